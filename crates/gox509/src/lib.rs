//! The pieces of Go's `crypto/x509` (and `encoding/asn1`, `encoding/pem`) that bosun writes
//! certificates and keys with: DER encoding ([`der`]), PEM blocks, ASN.1 times, names, and
//! private keys (RSA, ECDSA P-256, Ed25519) with their public key infos and signatures, shaped
//! as Go writes them. Sprig's `genCA` family and bosun's mesh CA both build on it; each builds
//! its own certificates' fields from these pieces. The arithmetic is RustCrypto's `rsa`, `p256`
//! and `ed25519-dalek`.
//!
//! Must not know templates, Sprig, Helm or Istio.

pub mod der;

use der::*;
use rsa::BigUint;
use rsa::traits::{PrivateKeyParts, PublicKeyParts};

/// A key could not be made or could not sign: the `rsa` crate's error.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct KeyError(#[source] pub rsa::Error);

/// A time outside what ASN.1's GeneralizedTime holds (years 0 to 9999); Go's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("asn1: structure error: cannot represent time as GeneralizedTime")]
pub struct TimeError;

/// Go's `pem.EncodeToMemory` of a block without headers.
pub fn pem_encode(kind: &str, der: &[u8]) -> String {
    let b64 = goyaml::json_value::b64_encode(der);
    let mut out = format!("-----BEGIN {kind}-----\n");
    for line in b64.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(line).unwrap_or_default());
        out.push('\n');
    }
    out.push_str(&format!("-----END {kind}-----\n"));
    out
}

pub enum Key {
    Rsa(Box<rsa::RsaPrivateKey>),
    Ec(p256::SecretKey),
    Ed(ed25519_dalek::SigningKey),
}

pub fn rsa_key(bits: usize) -> Result<Key, KeyError> {
    rsa::RsaPrivateKey::new(&mut rand_core::OsRng, bits)
        .map(|k| Key::Rsa(Box::new(k)))
        .map_err(KeyError)
}

/// A new ECDSA P-256 key.
pub fn p256_key() -> Key {
    Key::Ec(p256::SecretKey::random(&mut rand_core::OsRng))
}

impl Key {
    /// Go's `x509.MarshalPKCS1PrivateKey` / `MarshalECPrivateKey` / `MarshalPKCS8PrivateKey`,
    /// as Sprig's `pemBlockForKey` picks them.
    pub fn pem(&self) -> String {
        match self {
            Key::Rsa(k) => {
                let crt = k.crt_coefficient().unwrap_or_default();
                let zero = BigUint::default();
                let der = seq(&[
                    &uint(&[0]),
                    &big(k.n()),
                    &big(k.e()),
                    &big(k.d()),
                    &big(&k.primes()[0]),
                    &big(&k.primes()[1]),
                    &big(k.dp().unwrap_or(&zero)),
                    &big(k.dq().unwrap_or(&zero)),
                    &big(&crt),
                ]);
                pem_encode("RSA PRIVATE KEY", &der)
            }
            Key::Ec(k) => pem_encode("EC PRIVATE KEY", &self.sec1(k)),
            Key::Ed(k) => {
                let der = seq(&[
                    &uint(&[0]),
                    &seq(&[&tlv(OID, OID_ED25519)]),
                    &tlv(OCTET_STRING, &tlv(OCTET_STRING, &k.to_bytes())),
                ]);
                pem_encode("PRIVATE KEY", &der)
            }
        }
    }

    pub fn sec1(&self, k: &p256::SecretKey) -> Vec<u8> {
        seq(&[
            &uint(&[1]),
            &tlv(OCTET_STRING, &k.to_bytes()),
            &tlv(0xa0, &tlv(OID, OID_P256)),
            &tlv(0xa1, &bit_string(&ec_point(k))),
        ])
    }

    /// The SubjectPublicKeyInfo's algorithm and key bits.
    pub fn public(&self) -> (Vec<u8>, Vec<u8>) {
        match self {
            Key::Rsa(k) => (
                seq(&[&tlv(OID, OID_RSA), &[0x05, 0x00]]),
                seq(&[&big(k.n()), &big(k.e())]),
            ),
            Key::Ec(k) => (
                seq(&[&tlv(OID, OID_EC_PUBLIC_KEY), &tlv(OID, OID_P256)]),
                ec_point(k),
            ),
            Key::Ed(k) => (
                seq(&[&tlv(OID, OID_ED25519)]),
                k.verifying_key().to_bytes().to_vec(),
            ),
        }
    }

    pub fn spki(&self) -> Vec<u8> {
        let (alg, bits) = self.public();
        seq(&[&alg, &bit_string(&bits)])
    }

    /// Go's `signingParamsForKey` algorithm identifier.
    pub fn signature_algorithm(&self) -> Vec<u8> {
        match self {
            Key::Rsa(_) => seq(&[&tlv(OID, OID_SHA256_RSA), &[0x05, 0x00]]),
            Key::Ec(_) => seq(&[&tlv(OID, OID_ECDSA_SHA256)]),
            Key::Ed(_) => seq(&[&tlv(OID, OID_ED25519)]),
        }
    }

    pub fn sign(&self, msg: &[u8]) -> Result<Vec<u8>, KeyError> {
        use sha2::Digest;
        match self {
            Key::Rsa(k) => {
                let digest = sha2::Sha256::digest(msg);
                k.sign(rsa::Pkcs1v15Sign::new::<sha2::Sha256>(), &digest)
                    .map_err(KeyError)
            }
            Key::Ec(k) => {
                use p256::ecdsa::signature::Signer;
                let sig: p256::ecdsa::Signature = p256::ecdsa::SigningKey::from(k).sign(msg);
                let (r, s) = sig.split_bytes();
                Ok(seq(&[&uint(&r), &uint(&s)]))
            }
            Key::Ed(k) => {
                use ed25519_dalek::Signer;
                Ok(k.sign(msg).to_bytes().to_vec())
            }
        }
    }
}

pub fn ec_point(k: &p256::SecretKey) -> Vec<u8> {
    use p256::elliptic_curve::sec1::ToEncodedPoint;
    k.public_key().to_encoded_point(false).as_bytes().to_vec()
}

pub fn asn1_string(text: &str) -> Vec<u8> {
    let printable = text.bytes().all(|b| {
        b.is_ascii_alphanumeric()
            || matches!(b, b'\''..=b')' | b'+'..=b'/' | b' ' | b':' | b'=' | b'?')
    });
    tlv(if printable { 0x13 } else { 0x0c }, text.as_bytes())
}

/// `pkix.Name{CommonName: cn}` as an RDN sequence (empty when `cn` is).
pub fn subject_name(cn: &str) -> Vec<u8> {
    if cn.is_empty() {
        return seq(&[]);
    }
    let atv = seq(&[&tlv(OID, OID_CN), &asn1_string(cn)]);
    seq(&[&tlv(0x31, &atv)])
}

/// A `pkix.Name` of the given attributes (type OID, value), one RDN each, in order.
pub fn name(attributes: &[(&[u8], &str)]) -> Vec<u8> {
    let rdns: Vec<Vec<u8>> = attributes
        .iter()
        .map(|(oid, value)| tlv(0x31, &seq(&[&tlv(OID, oid), &asn1_string(value)])))
        .collect();
    tlv(SEQ, &rdns.concat())
}

/// What a certificate says beyond its keys: the fields `x509.CreateCertificate` takes from
/// its template, already encoded.
pub struct CertificateFields<'a> {
    /// A positive serial number (big-endian).
    pub serial: &'a [u8],
    /// The subject, as [`name`] encodes it.
    pub subject: &'a [u8],
    /// Seconds since the epoch.
    pub not_before: i64,
    pub not_after: i64,
    /// Each an [`extension`].
    pub extensions: &'a [Vec<u8>],
}

/// A certificate (DER) for `subject_key`'s public key with `fields`, issued by `issuer` (its
/// name and key; the subject's own name and key for a self-signed one), signed with SHA-256.
pub fn certificate(
    fields: &CertificateFields,
    subject_key: &Key,
    issuer: (&[u8], &Key),
) -> Result<Vec<u8>, CertificateError> {
    let (issuer_name, issuer_key) = issuer;
    let alg = issuer_key.signature_algorithm();
    let validity = seq(&[
        &asn1_time(fields.not_before)?,
        &asn1_time(fields.not_after)?,
    ]);
    let tbs = seq(&[
        &tlv(0xa0, &uint(&[2])),
        &uint(fields.serial),
        &alg,
        issuer_name,
        &validity,
        fields.subject,
        &subject_key.spki(),
        &tlv(0xa3, &tlv(SEQ, &fields.extensions.concat())),
    ]);
    let signature = issuer_key.sign(&tbs)?;
    Ok(seq(&[&tbs, &alg, &bit_string(&signature)]))
}

/// Why [`certificate`] failed.
#[derive(Debug, thiserror::Error)]
pub enum CertificateError {
    #[error(transparent)]
    Time(#[from] TimeError),
    #[error("signing the certificate: {0}")]
    Sign(#[from] KeyError),
}

/// The subject key identifier of `key`: the first 20 bytes of the SHA-256 of its public key
/// bits, as this crate writes it for Sprig's `genCA` too.
pub fn key_id(key: &Key) -> Vec<u8> {
    use sha2::Digest;
    let (_, bits) = key.public();
    sha2::Sha256::digest(&bits)[..20].to_vec()
}

/// Proleptic Gregorian date of a day count since 1970-01-01.
pub fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719468;
    let era = z.div_euclid(146097);
    let doe = z.rem_euclid(146097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Go's `asn1` time: UTCTime for 1950–2049, GeneralizedTime otherwise.
pub fn asn1_time(secs: i64) -> Result<Vec<u8>, TimeError> {
    let (y, mo, d) = civil(secs.div_euclid(86400));
    let t = secs.rem_euclid(86400);
    let clock = format!(
        "{mo:02}{d:02}{:02}{:02}{:02}Z",
        t / 3600,
        t / 60 % 60,
        t % 60
    );
    if (1950..2050).contains(&y) {
        Ok(tlv(0x17, format!("{:02}{clock}", y % 100).as_bytes()))
    } else if (0..=9999).contains(&y) {
        Ok(tlv(0x18, format!("{y:04}{clock}").as_bytes()))
    } else {
        Err(TimeError)
    }
}

pub fn extension(oid: &[u8], critical: bool, value: &[u8]) -> Vec<u8> {
    let crit: &[u8] = if critical { &[0x01, 0x01, 0xff] } else { &[] };
    seq(&[&tlv(OID, oid), crit, &tlv(OCTET_STRING, value)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(19723), (2024, 1, 1));
        assert_eq!(asn1_time(0).unwrap(), tlv(0x17, b"700101000000Z"));
        assert_eq!(
            asn1_time(2_524_608_000).unwrap(),
            tlv(0x18, b"20500101000000Z")
        );
        assert_eq!(asn1_time(-62_167_219_201), Err(TimeError));
    }
}
