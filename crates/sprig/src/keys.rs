//! Sprig's password and key functions: `bcrypt`, `htpasswd`, `derivePassword`,
//! `genPrivateKey`, `buildCustomCert` and the `genCA`/`genSelfSignedCert`/`genSignedCert`
//! family (with and without a given key), as Sprig builds them on Go's `crypto/x509`.
//!
//! DER, PEM and the X.509 certificate are written here, shaped as Go's `x509.CreateCertificate`
//! writes them; the arithmetic comes from RustCrypto's `rsa`, `p256` and `ed25519-dalek`.
//! `genPrivateKey` makes RSA, DSA (L2048N256, as Go's `crypto/dsa` generates it), ECDSA P-256
//! and Ed25519 keys; the certificate functions take RSA, ECDSA P-256 and Ed25519 keys. A DSA
//! key is read (Sprig's `DSAKeyFormat`) but, as in Go, fails certificate creation: x509 cannot
//! sign with it or certify its public key. Key blocks are decoded as Go's `encoding/asn1`
//! decodes them (`goasn1`), so malformed keys fail in Go's words.
//!
//! Not covered: ECDSA keys on other curves than P-256, and PKCS#8 X25519 keys (Go parses
//! both; bosun reports an unknown curve or algorithm).

use std::rc::Rc;

use gotemplate::{ArgType, Field, FuncError, FuncMap, IntKind, Object, Value};
use rsa::BigUint;

use gox509::der::*;
use gox509::{Key, asn1_time, extension, pem_encode, rsa_key, subject_name};

use super::crypto::b64_decode;
use super::goasn1::{self, Decoded};
use super::{def, n, s};

const STR: ArgType = ArgType::String;
const INT: ArgType = ArgType::Int(IntKind::Int);
const LIST: ArgType = ArgType::List;
/// Sprig's `certificate` struct parameter (`genSignedCert`'s CA): Go checks it before the call.
const CERT: ArgType = ArgType::Struct("sprig.certificate");

// ---------------------------------------------------------------------------------------------
// DER

/// A DER element: tag, contents and the whole encoding.
struct Elem<'a> {
    tag: u8,
    body: &'a [u8],
    raw: &'a [u8],
}

/// Reads DER elements one after another.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn next(&mut self) -> Option<Elem<'a>> {
        let d = self.0;
        let tag = *d.first()?;
        if tag & 0x1f == 0x1f {
            return None;
        }
        let first = *d.get(1)? as usize;
        let (len, head) = if first < 0x80 {
            (first, 2)
        } else {
            let k = first & 0x7f;
            if k == 0 || k > 4 || d.len() < 2 + k || d[2] == 0 {
                return None;
            }
            let len = d[2..2 + k].iter().fold(0usize, |a, &b| a << 8 | b as usize);
            if len < 0x80 {
                return None;
            }
            (len, 2 + k)
        };
        let end = head.checked_add(len)?;
        if d.len() < end {
            return None;
        }
        self.0 = &d[end..];
        Some(Elem {
            tag,
            body: &d[head..end],
            raw: &d[..end],
        })
    }

    fn expect(&mut self, tag: u8) -> Option<Elem<'a>> {
        let save = self.0;
        match self.next() {
            Some(e) if e.tag == tag => Some(e),
            _ => {
                self.0 = save;
                None
            }
        }
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The single element `der` consists of, with tag `tag`.
fn whole(der: &[u8], tag: u8) -> Option<Elem<'_>> {
    let mut r = Reader(der);
    let e = r.expect(tag)?;
    r.is_empty().then_some(e)
}

/// The magnitude of a non-negative INTEGER.
#[cfg(test)]
fn read_uint(e: &Elem) -> Option<BigUint> {
    if e.tag != INTEGER || e.body.is_empty() || e.body[0] & 0x80 != 0 {
        return None;
    }
    Some(BigUint::from_bytes_be(e.body))
}

fn read_small_int(e: &Elem) -> Option<i64> {
    if e.tag != INTEGER || e.body.is_empty() || e.body.len() > 8 {
        return None;
    }
    let neg = e.body[0] & 0x80 != 0;
    Some(
        e.body
            .iter()
            .fold(if neg { -1i64 } else { 0 }, |a, &b| a << 8 | b as i64),
    )
}

// ---------------------------------------------------------------------------------------------
// PEM

/// Go's `getLine`: up to the next newline, trailing spaces, tabs and `\r` removed.
fn get_line(data: &[u8]) -> (&[u8], &[u8]) {
    let (line, rest) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &data[data.len()..]),
    };
    let end = line.len()
        - line
            .iter()
            .rev()
            .take_while(|&&b| matches!(b, b' ' | b'\t' | b'\r'))
            .count();
    (&line[..end], rest)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Go's `pem.Decode`: the first well-formed block (type and bytes), skipping anything else.
fn pem_decode(data: &[u8]) -> Option<(String, Vec<u8>)> {
    const START: &[u8] = b"\n-----BEGIN ";
    const END: &[u8] = b"\n-----END ";
    const EOL: &[u8] = b"-----";
    let mut rest = data;
    loop {
        if rest.starts_with(&START[1..]) {
            rest = &rest[START.len() - 1..];
        } else if let Some(i) = find(rest, START) {
            rest = &rest[i + START.len()..];
        } else {
            return None;
        }
        let (type_line, after) = get_line(rest);
        rest = after;
        let Some(kind) = type_line.strip_suffix(EOL) else {
            continue;
        };
        let mut headers = 0;
        loop {
            if rest.is_empty() {
                return None;
            }
            let (line, next) = get_line(rest);
            if !line.contains(&b':') {
                break;
            }
            headers += 1;
            rest = next;
        }
        let (end, trailer_at) = if headers == 0 && rest.starts_with(&END[1..]) {
            (0, END.len() - 1)
        } else {
            match find(rest, END) {
                Some(i) => (i, i + END.len()),
                None => continue,
            }
        };
        let trailer = &rest[trailer_at..];
        let tlen = kind.len() + EOL.len();
        if trailer.len() < tlen {
            continue;
        }
        let (t, after_end) = trailer.split_at(tlen);
        if !t.starts_with(kind) || !t.ends_with(EOL) || !get_line(after_end).0.is_empty() {
            continue;
        }
        let body: Vec<u8> = rest[..end]
            .iter()
            .copied()
            .filter(|&b| b != b' ' && b != b'\t')
            .collect();
        let (bytes, err) = b64_decode(&body);
        if err.is_some() {
            continue;
        }
        return Some((String::from_utf8_lossy(kind).into_owned(), bytes));
    }
}

// ---------------------------------------------------------------------------------------------
// Keys

fn random<const N: usize>() -> Result<[u8; N], FuncError> {
    let mut b = [0u8; N];
    getrandom::getrandom(&mut b).map_err(|e| FuncError::new(e.to_string()))?;
    Ok(b)
}

/// Sprig's `generatePrivateKey`.
fn generate_private_key(kind: &str) -> Result<String, FuncError> {
    let key = match kind {
        "" | "rsa" => rsa_key(4096),
        "dsa" => {
            return Ok(match dsa_key() {
                Ok(key) => key,
                Err(e) => format!("failed to generate dsa params: {e}"),
            });
        }
        "ecdsa" => Ok(Key::Ec(p256::SecretKey::random(&mut rand_core::OsRng))),
        "ed25519" => Ok(Key::Ed(ed25519_dalek::SigningKey::from_bytes(&random()?))),
        _ => return Ok(format!("Unknown type {kind}")),
    };
    Ok(match key {
        Ok(k) => k.pem(),
        Err(e) => format!("failed to generate private key: {e}"),
    })
}

/// Go's `dsa.GenerateParameters(L2048N256)` then `dsa.GenerateKey`, written as Sprig's
/// `DSAKeyFormat` (version, P, Q, G, Y, X) in a `DSA PRIVATE KEY` block.
fn dsa_key() -> Result<String, String> {
    const L: usize = 2048;
    const N: usize = 256;
    // Go's `numMRTests`.
    const MILLER_RABIN_ROUNDS: usize = 64;
    let random_bytes = |buf: &mut [u8]| getrandom::getrandom(buf).map_err(|e| e.to_string());
    let prime = |n: &BigUint| num_bigint_dig::prime::probably_prime(n, MILLER_RABIN_ROUNDS);
    let one = BigUint::from(1u32);
    let mut q_bytes = [0u8; N / 8];
    let mut p_bytes = [0u8; L / 8];
    let (p, q) = 'primes: loop {
        random_bytes(&mut q_bytes)?;
        q_bytes[N / 8 - 1] |= 1;
        q_bytes[0] |= 0x80;
        let q = BigUint::from_bytes_be(&q_bytes);
        if !prime(&q) {
            continue;
        }
        for _ in 0..4 * L {
            random_bytes(&mut p_bytes)?;
            p_bytes[L / 8 - 1] |= 1;
            p_bytes[0] |= 0x80;
            let candidate = BigUint::from_bytes_be(&p_bytes);
            // p ≡ 1 (mod q), so that q divides p-1.
            let p = &candidate - (&candidate % &q) + &one;
            if p.bits() < L || !prime(&p) {
                continue;
            }
            break 'primes (p, q);
        }
    };
    let exponent = (&p - &one) / &q;
    let mut h = BigUint::from(2u32);
    let g = loop {
        let g = h.modpow(&exponent, &p);
        if g != one {
            break g;
        }
        h += &one;
    };
    let mut x_bytes = vec![0u8; q.bits() / 8];
    let x = loop {
        random_bytes(&mut x_bytes)?;
        let x = BigUint::from_bytes_be(&x_bytes);
        if x != BigUint::default() && x < q {
            break x;
        }
    };
    let y = g.modpow(&x, &p);
    let der = seq(&[
        &uint(&[0]),
        &big(&p),
        &big(&q),
        &big(&g),
        &big(&y),
        &big(&x),
    ]);
    Ok(pem_encode("DSA PRIVATE KEY", &der))
}

/// Go's checks that DER parses as a PKCS#1, SEC 1 or PKCS#8 structure, loosely: enough to say
/// which parser a key was meant for.
/// Go's `asn1.Unmarshal` into x509's `ecPrivateKey`, `pkcs8` and `pkcs1PrivateKey`: x509 names
/// the format a key that fails to parse as one format does parse as.
fn looks_like(der: &[u8], ty: goasn1::GoType) -> bool {
    goasn1::unmarshal_struct(der, ty).is_ok()
}

const USE_EC: &str =
    "x509: failed to parse private key (use ParseECPrivateKey instead for this key format)";
const USE_PKCS8: &str =
    "x509: failed to parse private key (use ParsePKCS8PrivateKey instead for this key format)";
const USE_PKCS1: &str =
    "x509: failed to parse private key (use ParsePKCS1PrivateKey instead for this key format)";

/// A decoded `*big.Int` that is greater than zero, as its magnitude.
fn positive(v: &Decoded) -> Option<BigUint> {
    match v {
        Decoded::BigInt(b) if b[0] & 0x80 == 0 && b.iter().any(|&x| x != 0) => {
            Some(BigUint::from_bytes_be(b))
        }
        _ => None,
    }
}

/// Go's `x509.ParsePKCS1PrivateKey`.
fn parse_pkcs1(der: &[u8]) -> Result<Key, String> {
    let fields = match goasn1::unmarshal_struct(der, goasn1::PKCS1) {
        Ok((_, rest)) if !rest.is_empty() => return Err("asn1: syntax error: trailing data".into()),
        Ok((fields, _)) => fields,
        Err(_) if looks_like(der, goasn1::SEC1) => return Err(USE_EC.into()),
        Err(_) if looks_like(der, goasn1::PKCS8) => return Err(USE_PKCS8.into()),
        Err(e) => return Err(e),
    };
    if matches!(fields[0], Decoded::Int(v) if v > 1) {
        return Err("x509: unsupported private key version".into());
    }
    // N, D, P and Q, then the optional CRT values, must be positive.
    let required = [&fields[1], &fields[3], &fields[4], &fields[5]];
    let crt_ok = fields[6..9]
        .iter()
        .all(|v| *v == Decoded::Absent || positive(v).is_some());
    let nums: Option<Vec<BigUint>> = required.iter().map(|v| positive(v)).collect();
    let (Some(nums), true) = (nums, crt_ok) else {
        return Err("x509: private key contains zero or negative value".into());
    };
    // Go then validates the key in its FIPS module; of its checks only this one is worded as
    // Go words it, the others (a composite "prime", mismatched CRT values) in the rsa crate's.
    let e = match fields[2] {
        Decoded::Int(e) if e >= 2 => BigUint::from(e as u64),
        _ => return Err("crypto/rsa: public exponent too small or negative".into()),
    };
    let key = rsa::RsaPrivateKey::from_components(
        nums[0].clone(),
        e,
        nums[1].clone(),
        vec![nums[2].clone(), nums[3].clone()],
    )
    .map_err(|e| format!("crypto/rsa: {e}"))?;
    Ok(Key::Rsa(Box::new(key)))
}

/// Go's `x509.ParseECPrivateKey` (P-256 only); `named_curve` is the curve a PKCS#8 wrapper
/// names, which Go uses instead of the key's own.
fn parse_sec1(der: &[u8], named_curve: Option<&[u8]>) -> Result<Key, String> {
    let fields = match goasn1::unmarshal_struct(der, goasn1::SEC1) {
        Ok((fields, _)) => fields,
        Err(_) if looks_like(der, goasn1::PKCS8) => return Err(USE_PKCS8.into()),
        Err(_) if looks_like(der, goasn1::PKCS1) => return Err(USE_PKCS1.into()),
        Err(e) => return Err(format!("x509: failed to parse EC private key: {e}")),
    };
    let (Decoded::Int(version), Decoded::Bytes(private)) = (&fields[0], &fields[1]) else {
        return Err("x509: failed to parse EC private key: malformed DER".into());
    };
    let mut private: &[u8] = private;
    if *version != 1 {
        return Err(format!("x509: unknown EC private key version {version}"));
    }
    let curve = match (named_curve, &fields[2]) {
        (Some(c), _) => Some(c),
        (None, Decoded::Oid(c)) => Some(*c),
        _ => None,
    };
    if curve != Some(OID_P256) {
        return Err("x509: unknown elliptic curve".into());
    }
    // Go ignores leading zero padding; any other value longer than the curve order is too
    // large for it.
    while private.len() > 32 && private[0] == 0 {
        private = &private[1..];
    }
    if private.len() > 32 {
        return Err("x509: invalid elliptic curve private key value".into());
    }
    let mut bytes = [0u8; 32];
    bytes[32 - private.len()..].copy_from_slice(private);
    p256::SecretKey::from_bytes(&bytes.into())
        .map(Key::Ec)
        .map_err(|_| "x509: invalid elliptic curve private key value".into())
}

/// Go's `x509.ParsePKCS8PrivateKey` (RSA, P-256 and Ed25519 keys).
fn parse_pkcs8(der: &[u8]) -> Result<Key, String> {
    let fields = match goasn1::unmarshal_struct(der, goasn1::PKCS8) {
        Ok((fields, _)) => fields,
        Err(_) if looks_like(der, goasn1::SEC1) => return Err(USE_EC.into()),
        Err(_) if looks_like(der, goasn1::PKCS1) => return Err(USE_PKCS1.into()),
        Err(e) => return Err(e),
    };
    let (Decoded::Struct(algo), Decoded::Bytes(private)) = (&fields[1], &fields[2]) else {
        return Err("x509: malformed PKCS#8 private key".into());
    };
    let Decoded::Oid(oid) = algo[0] else {
        return Err("x509: malformed PKCS#8 private key".into());
    };
    // The parameters' whole encoding (`RawValue.FullBytes`), when present.
    let params = match algo[1] {
        Decoded::Raw(full) => Some(full),
        _ => None,
    };
    if oid == OID_RSA {
        return parse_pkcs1(private)
            .map_err(|e| format!("x509: failed to parse RSA private key embedded in PKCS#8: {e}"));
    }
    if oid == OID_EC_PUBLIC_KEY {
        // Go reads the parameters as an OBJECT IDENTIFIER, and ignores them if they are not one.
        let named = match params.map(|full| goasn1::unmarshal(full, goasn1::GoType::Oid)) {
            Some(Ok((Decoded::Oid(oid), _))) => Some(oid),
            _ => None,
        };
        return parse_sec1(private, named)
            .map_err(|e| format!("x509: failed to parse EC private key embedded in PKCS#8: {e}"));
    }
    if oid == OID_ED25519 {
        if params.is_some() {
            return Err("x509: invalid Ed25519 private key parameters".into());
        }
        let seed = match goasn1::unmarshal(private, goasn1::GoType::Bytes) {
            Ok((Decoded::Bytes(seed), _)) => seed,
            Ok(_) => return Err("x509: invalid Ed25519 private key".into()),
            Err(e) => return Err(format!("x509: invalid Ed25519 private key: {e}")),
        };
        let Ok(seed) = <[u8; 32]>::try_from(seed) else {
            return Err(format!(
                "x509: invalid Ed25519 private key length: {}",
                seed.len()
            ));
        };
        return Ok(Key::Ed(ed25519_dalek::SigningKey::from_bytes(&seed)));
    }
    Err(format!(
        "x509: PKCS#8 wrapping contained private key with unknown algorithm: {}",
        oid_string(oid)
    ))
}

fn oid_string(oid: &[u8]) -> String {
    let mut parts: Vec<u64> = Vec::new();
    let mut acc = 0u64;
    for (i, &b) in oid.iter().enumerate() {
        acc = acc << 7 | (b & 0x7f) as u64;
        if b & 0x80 == 0 {
            if parts.is_empty() && i < oid.len() {
                let first = (acc / 40).min(2);
                parts.push(first);
                parts.push(acc - 40 * first);
            } else {
                parts.push(acc);
            }
            acc = 0;
        }
    }
    parts
        .iter()
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join(".")
}

/// A key Sprig's `parsePrivateKeyPEM` accepts.
enum PrivateKey {
    /// One Go's x509 signs with and certifies.
    Signer(Box<Key>),
    /// A `*dsa.PrivateKey`: Sprig reads it, but x509 neither signs with DSA (it is no
    /// `crypto.Signer`) nor writes DSA public keys into certificates.
    Dsa,
}

impl PrivateKey {
    /// The key as the signer of a certificate (`x509.CreateCertificate`'s first check).
    fn signer(&self) -> Result<&Key, String> {
        match self {
            PrivateKey::Signer(k) => Ok(k.as_ref()),
            PrivateKey::Dsa => {
                Err("x509: certificate private key does not implement crypto.Signer".into())
            }
        }
    }

    /// The key whose public half the certificate carries (`marshalPublicKey`).
    fn signee(&self) -> Result<&Key, String> {
        match self {
            PrivateKey::Signer(k) => Ok(k.as_ref()),
            PrivateKey::Dsa => Err("x509: unsupported public key type: *dsa.PublicKey".into()),
        }
    }
}

/// Sprig's `parsePrivateKeyPEM`.
fn parse_private_key_pem(text: &str) -> Result<PrivateKey, String> {
    let Some((kind, der)) = pem_decode(text.as_bytes()) else {
        return Err("no PEM data in input".into());
    };
    if kind == "PRIVATE KEY" {
        return parse_pkcs8(&der)
            .map(|k| PrivateKey::Signer(Box::new(k)))
            .map_err(|e| format!("decoding PEM as PKCS#8: {e}"));
    }
    let Some(prefix) = kind.strip_suffix(" PRIVATE KEY") else {
        return Err(format!("no private key data in PEM block of type {kind}"));
    };
    match prefix {
        "RSA" => parse_pkcs1(&der)
            .map(|k| PrivateKey::Signer(Box::new(k)))
            .map_err(|e| format!("parsing RSA private key from PEM: {e}")),
        "EC" => parse_sec1(&der, None)
            .map(|k| PrivateKey::Signer(Box::new(k)))
            .map_err(|e| format!("parsing EC private key from PEM: {e}")),
        // Sprig's `DSAKeyFormat`; trailing bytes are ignored.
        "DSA" => goasn1::unmarshal_struct(&der, goasn1::DSA)
            .map(|_| PrivateKey::Dsa)
            .map_err(|e| format!("parsing DSA private key from PEM: {e}")),
        _ => Err(format!("invalid private key type {kind}")),
    }
}

// ---------------------------------------------------------------------------------------------
// Certificates

/// Sprig's `certificate` struct.
struct Certificate {
    cert: String,
    key: String,
}

impl Object for Certificate {
    fn type_name(&self) -> &str {
        "sprig.certificate"
    }

    fn field(&self, name: &str) -> Option<Value> {
        match name {
            "Cert" => Some(Value::str(&self.cert)),
            "Key" => Some(Value::str(&self.key)),
            _ => None,
        }
    }

    fn format(&self) -> String {
        format!("{{{} {}}}", self.cert, self.key)
    }

    fn fields(&self) -> Option<Vec<Field>> {
        Some(vec![
            Field::new("Cert", Value::str(&self.cert)),
            Field::new("Key", Value::str(&self.key)),
        ])
    }
}

fn cert_value(cert: String, key: String) -> Value {
    Value::Object(Rc::new(Certificate { cert, key }))
}

/// What `x509.CreateCertificate` needs of a parsed parent certificate.
struct Parent {
    subject: Vec<u8>,
    spki: Vec<u8>,
    subject_key_id: Option<Vec<u8>>,
}

/// Go's `x509.ParseCertificate`, as far as the structure goes (no signature check, as Go).
fn parse_certificate(der: &[u8]) -> Result<Parent, String> {
    let mut outer = Reader(der);
    let cert = outer.expect(SEQ).ok_or("x509: malformed certificate")?;
    let mut c = Reader(cert.body);
    let tbs = c.expect(SEQ).ok_or("x509: malformed tbs certificate")?;
    let mut t = Reader(tbs.body);
    if let Some(v) = t.expect(0xa0) {
        let version = whole(v.body, INTEGER)
            .and_then(|e| read_small_int(&e))
            .ok_or("x509: malformed version")?;
        if !(0..=2).contains(&version) {
            return Err(format!("x509: invalid version {}", version + 1));
        }
    }
    t.expect(INTEGER).ok_or("x509: malformed serial number")?;
    t.expect(SEQ)
        .ok_or("x509: malformed signature algorithm identifier")?;
    let issuer = t.expect(SEQ).ok_or("x509: malformed issuer")?;
    let _ = issuer;
    t.expect(SEQ).ok_or("x509: malformed validity")?;
    let subject = t.expect(SEQ).ok_or("x509: malformed subject")?;
    let spki = t.expect(SEQ).ok_or("x509: malformed spki")?;
    let mut subject_key_id = None;
    let _ = t.expect(0x81);
    let _ = t.expect(0x82);
    if let Some(exts) = t.expect(0xa3) {
        let list = whole(exts.body, SEQ).ok_or("x509: malformed extensions")?;
        let mut r = Reader(list.body);
        while !r.is_empty() {
            let ext = r.expect(SEQ).ok_or("x509: malformed extension")?;
            let mut e = Reader(ext.body);
            let oid = e.expect(OID).ok_or("x509: malformed extension OID field")?;
            let _ = e.expect(0x01);
            let value = e
                .expect(OCTET_STRING)
                .ok_or("x509: malformed extension value field")?;
            if oid.body == OID_SKI {
                let id = whole(value.body, OCTET_STRING)
                    .ok_or("x509: invalid subject key identifier")?;
                subject_key_id = Some(id.body.to_vec());
            }
        }
    }
    c.expect(SEQ)
        .ok_or("x509: malformed algorithm identifier")?;
    c.expect(BIT_STRING).ok_or("x509: malformed signature")?;
    Ok(Parent {
        subject: subject.raw.to_vec(),
        spki: spki.raw.to_vec(),
        subject_key_id: subject_key_id.filter(|id| !id.is_empty()),
    })
}

/// Go's `encoding/asn1` choice for an untagged string: PrintableString when it can be one.
/// Go's `time.Now().Add(d)` as seconds since the epoch (d in nanoseconds, Go's wrapping
/// `time.Duration` arithmetic done by the caller).
fn now() -> (i64, i64) {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    (d.as_secs() as i64, d.subsec_nanos() as i64)
}

/// Sprig's `getBaseCertTemplate`, the fields that vary.
struct Template {
    cn: String,
    ips: Vec<Vec<u8>>,
    dns: Vec<String>,
    days: i64,
    is_ca: bool,
}

/// Sprig's `getNetIPs` and `getAlternateDNSStrs`, then the template.
fn base_template(cn: &str, ips: &Value, dns: &Value, days: i64) -> Result<Template, FuncError> {
    let items = |v: &Value| match v {
        Value::List(l) => l.items().to_vec(),
        _ => Vec::new(),
    };
    let mut ip_bytes = Vec::new();
    for ip in items(ips) {
        let Some(text) = ip.as_str() else {
            return Err(FuncError::new(format!(
                "error parsing ip: {} is not a string",
                gotemplate::fmt::sprint_value(&ip)
            )));
        };
        let parsed: std::net::IpAddr = text
            .parse()
            .map_err(|_| FuncError::new(format!("error parsing ip: {text}")))?;
        ip_bytes.push(match parsed {
            std::net::IpAddr::V4(a) => a.octets().to_vec(),
            std::net::IpAddr::V6(a) => match a.to_ipv4_mapped() {
                Some(v4) => v4.octets().to_vec(),
                None => a.octets().to_vec(),
            },
        });
    }
    let mut names = Vec::new();
    for name in items(dns) {
        let Some(text) = name.as_str() else {
            return Err(FuncError::new(format!(
                "error processing alternate dns name: {} is not a string",
                gotemplate::fmt::sprint_value(&name)
            )));
        };
        names.push(text.to_string());
    }
    Ok(Template {
        cn: cn.to_string(),
        ips: ip_bytes,
        dns: names,
        days,
        is_ca: false,
    })
}

/// Go's `x509.CreateCertificate` for Sprig's templates, then Sprig's `getCertAndKey` PEM
/// encoding: the certificate and the signee's key.
fn create_certificate(
    t: &Template,
    signee: &PrivateKey,
    parent: Option<&Parent>,
    signer: &PrivateKey,
) -> Result<(String, String), String> {
    let fail = |e: String| format!("error creating certificate: {e}");
    let signer = signer.signer().map_err(fail)?;
    let signee = signee.signee().map_err(fail)?;
    let subject = subject_name(&t.cn);
    let issuer = parent.map_or(subject.clone(), |p| p.subject.clone());
    let aki = match parent {
        Some(p) if p.subject != subject => p.subject_key_id.clone(),
        _ => None,
    };
    let ski = t.is_ca.then(|| gox509::key_id(signee));
    if parent.is_some_and(|p| p.spki != signer.spki()) {
        return Err(fail(
            "x509: provided PrivateKey doesn't match parent's PublicKey".into(),
        ));
    }
    // Key usage bits, low bit first: digitalSignature, keyEncipherment, (CA) keyCertSign.
    let key_usage: &[u8] = if t.is_ca {
        &[0x03, 0x02, 0x02, 0xa4]
    } else {
        &[0x03, 0x02, 0x05, 0xa0]
    };
    let mut exts = vec![
        extension(OID_KEY_USAGE, true, key_usage),
        extension(
            OID_EXT_KEY_USAGE,
            false,
            &seq(&[&tlv(OID, OID_SERVER_AUTH), &tlv(OID, OID_CLIENT_AUTH)]),
        ),
        extension(
            OID_BASIC_CONSTRAINTS,
            true,
            &if t.is_ca {
                seq(&[&[0x01, 0x01, 0xff]])
            } else {
                seq(&[])
            },
        ),
    ];
    if let Some(id) = &ski {
        exts.push(extension(OID_SKI, false, &tlv(OCTET_STRING, id)));
    }
    if let Some(id) = &aki {
        exts.push(extension(OID_AKI, false, &seq(&[&tlv(0x80, id)])));
    }
    if !t.dns.is_empty() || !t.ips.is_empty() {
        let mut names = Vec::new();
        for name in &t.dns {
            if !name.is_ascii() {
                return Err(fail(format!(
                    "x509: {} cannot be encoded as an IA5String",
                    gotemplate::fmt::quote(name)
                )));
            }
            names.extend(tlv(0x82, name.as_bytes()));
        }
        for ip in &t.ips {
            names.extend(tlv(0x87, ip));
        }
        exts.push(extension(OID_SAN, t.cn.is_empty(), &tlv(SEQ, &names)));
    }
    let serial: [u8; 16] = random().map_err(|e| e.0)?;
    let (secs, nanos) = now();
    let span = 86_400_000_000_000i64.wrapping_mul(t.days);
    let after_nanos = nanos as i128 + span as i128;
    let not_after = secs + after_nanos.div_euclid(1_000_000_000) as i64;
    let validity = seq(&[
        &asn1_time(secs).map_err(|e| fail(e.to_string()))?,
        &asn1_time(not_after).map_err(|e| fail(e.to_string()))?,
    ]);
    let alg = signer.signature_algorithm();
    let tbs = seq(&[
        &tlv(0xa0, &uint(&[2])),
        &uint(&serial),
        &alg,
        &issuer,
        &validity,
        &subject,
        &signee.spki(),
        &tlv(0xa3, &tlv(SEQ, &exts.concat())),
    ]);
    let signature = signer.sign(&tbs).map_err(|e| fail(e.to_string()))?;
    let der = seq(&[&tbs, &alg, &bit_string(&signature)]);
    Ok((pem_encode("CERTIFICATE", &der), signee.pem()))
}

fn err(e: String) -> FuncError {
    FuncError::new(e)
}

/// Sprig's `generateCertificateAuthority*`: `key` is a PEM key or `None` for a new RSA key.
fn gen_ca(cn: &str, days: i64, key: Option<&str>) -> Result<Value, FuncError> {
    let key = match key {
        Some(pem) => {
            parse_private_key_pem(pem).map_err(|e| err(format!("parsing private key: {e}")))?
        }
        None => PrivateKey::Signer(Box::new(
            rsa_key(2048).map_err(|e| err(format!("error generating rsa key: {e}")))?,
        )),
    };
    let mut t = base_template(cn, &Value::Nil, &Value::Nil, days)?;
    t.is_ca = true;
    let (cert, key) = create_certificate(&t, &key, None, &key).map_err(err)?;
    Ok(cert_value(cert, key))
}

/// Sprig's `generateSelfSignedCertificate*`.
fn gen_self_signed(a: &[Value], key: Option<&str>) -> Result<Value, FuncError> {
    let key = match key {
        Some(pem) => {
            parse_private_key_pem(pem).map_err(|e| err(format!("parsing private key: {e}")))?
        }
        None => PrivateKey::Signer(Box::new(
            rsa_key(2048).map_err(|e| err(format!("error generating rsa key: {e}")))?,
        )),
    };
    let t = base_template(s(a, 0), &a[1], &a[2], n(a, 3))?;
    let (cert, key) = create_certificate(&t, &key, None, &key).map_err(err)?;
    Ok(cert_value(cert, key))
}

/// Sprig's `generateSignedCertificate*`.
fn gen_signed(a: &[Value], key: Option<&str>) -> Result<Value, FuncError> {
    // The executor has checked the argument against `CERT`, as Go's does.
    let (ca_cert, ca_key) = match &a[4] {
        Value::Object(o) => (
            o.field("Cert").unwrap_or_default(),
            o.field("Key").unwrap_or_default(),
        ),
        other => {
            return Err(err(format!(
                "wrong type for value; expected sprig.certificate; got {}",
                other.type_name()
            )));
        }
    };
    let key = match key {
        Some(pem) => {
            parse_private_key_pem(pem).map_err(|e| err(format!("parsing private key: {e}")))?
        }
        None => PrivateKey::Signer(Box::new(
            rsa_key(2048).map_err(|e| err(format!("error generating rsa key: {e}")))?,
        )),
    };
    let Some((_, der)) = pem_decode(ca_cert.as_str().unwrap_or_default().as_bytes()) else {
        return Err(err("unable to decode certificate".into()));
    };
    let parent = parse_certificate(&der).map_err(|e| {
        err(format!(
            "error parsing certificate: decodedSignerCert.Bytes: {e}"
        ))
    })?;
    let signer = parse_private_key_pem(ca_key.as_str().unwrap_or_default())
        .map_err(|e| err(format!("error parsing private key: {e}")))?;
    let t = base_template(s(a, 0), &a[1], &a[2], n(a, 3))?;
    let (cert, key) = create_certificate(&t, &key, Some(&parent), &signer).map_err(err)?;
    Ok(cert_value(cert, key))
}

/// Sprig's `buildCustomCertificate`.
fn build_custom_cert(b64cert: &str, b64key: &str) -> Result<Value, FuncError> {
    let (cert, e) = b64_decode(b64cert.as_bytes());
    if e.is_some() {
        return Err(err("unable to decode base64 certificate".into()));
    }
    let (key, e) = b64_decode(b64key.as_bytes());
    if e.is_some() {
        return Err(err("unable to decode base64 private key".into()));
    }
    let Some((_, der)) = pem_decode(&cert) else {
        return Err(err("unable to decode certificate".into()));
    };
    parse_certificate(&der)
        .map_err(|e| err(format!("error parsing certificate: decodedCert.Bytes: {e}")))?;
    let cert = String::from_utf8_lossy(&cert).into_owned();
    let key = String::from_utf8_lossy(&key).into_owned();
    parse_private_key_pem(&key).map_err(|e| err(format!("error parsing private key: {e}")))?;
    Ok(cert_value(cert, key))
}

// ---------------------------------------------------------------------------------------------
// Passwords

/// Sprig's `bcrypt`: Go's `bcrypt.GenerateFromPassword` at the default cost 10.
fn bcrypt(password: &str) -> String {
    if password.len() > 72 {
        return "failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes"
            .into();
    }
    match bcrypt::hash_with_result(password, 10) {
        Ok(h) => h.format_for_version(bcrypt::Version::TwoA),
        Err(e) => format!("failed to encrypt string with bcrypt: {e}"),
    }
}

const SEED: &[u8] = b"com.lyndir.masterpassword";

fn templates(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "maximum" => &["anoxxxxxxxxxxxxxxxxx", "axxxxxxxxxxxxxxxxxno"],
        "long" => &[
            "CvcvnoCvcvCvcv",
            "CvcvCvcvnoCvcv",
            "CvcvCvcvCvcvno",
            "CvccnoCvcvCvcv",
            "CvccCvcvnoCvcv",
            "CvccCvcvCvcvno",
            "CvcvnoCvccCvcv",
            "CvcvCvccnoCvcv",
            "CvcvCvccCvcvno",
            "CvcvnoCvcvCvcc",
            "CvcvCvcvnoCvcc",
            "CvcvCvcvCvccno",
            "CvccnoCvccCvcv",
            "CvccCvccnoCvcv",
            "CvccCvccCvcvno",
            "CvcvnoCvccCvcc",
            "CvcvCvccnoCvcc",
            "CvcvCvccCvccno",
            "CvccnoCvcvCvcc",
            "CvccCvcvnoCvcc",
            "CvccCvcvCvccno",
        ],
        "medium" => &["CvcnoCvc", "CvcCvcno"],
        "short" => &["Cvcn"],
        "basic" => &["aaanaaan", "aannaaan", "aaannaaa"],
        "pin" => &["nnnn"],
        _ => return None,
    })
}

fn template_chars(c: u8) -> &'static [u8] {
    match c {
        b'V' => b"AEIOU",
        b'C' => b"BCDFGHJKLMNPQRSTVWXYZ",
        b'v' => b"aeiou",
        b'c' => b"bcdfghjklmnpqrstvwxyz",
        b'A' => b"AEIOUBCDFGHJKLMNPQRSTVWXYZ",
        b'a' => b"AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz",
        b'n' => b"0123456789",
        b'o' => b"@&%?,=[]_:-+*$#!'^~;()/.",
        _ => b"AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()",
    }
}

/// Sprig's `derivePassword`: the Master Password algorithm (scrypt N=32768, r=8, p=2, then
/// HMAC-SHA256 of the site, the seed's bytes picking the template and its characters).
fn derive_password(counter: u32, kind: &str, password: &str, user: &str, site: &str) -> String {
    use hmac::Mac;
    let Some(temps) = templates(kind) else {
        return format!("cannot find password template {kind}");
    };
    let mut salt = SEED.to_vec();
    salt.extend((user.len() as u32).to_be_bytes());
    salt.extend(user.as_bytes());
    let mut key = [0u8; 64];
    let params = scrypt::Params::new(15, 8, 2, 64).expect("valid scrypt parameters");
    if let Err(e) = scrypt::scrypt(password.as_bytes(), &salt, &params, &mut key) {
        return format!("failed to derive password: {e}");
    }
    let mut msg = SEED.to_vec();
    msg.extend((site.len() as u32).to_be_bytes());
    msg.extend(site.as_bytes());
    msg.extend(counter.to_be_bytes());
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(&key).expect("any key length");
    mac.update(&msg);
    let seed = mac.finalize().into_bytes();
    let temp = temps[seed[0] as usize % temps.len()].as_bytes();
    temp.iter()
        .enumerate()
        .map(|(i, &c)| {
            let chars = template_chars(c);
            chars[seed[i + 1] as usize % chars.len()] as char
        })
        .collect()
}

pub(super) fn register(map: &mut FuncMap) {
    def(map, "bcrypt", &[STR], None, "string", false, |_, a| {
        Ok(Value::from(bcrypt(s(&a, 0))))
    });
    def(
        map,
        "htpasswd",
        &[STR, STR],
        None,
        "string",
        false,
        |_, a| {
            let user = s(&a, 0);
            Ok(Value::from(if user.contains(':') {
                format!("invalid username: {user}")
            } else {
                format!("{user}:{}", bcrypt(s(&a, 1)))
            }))
        },
    );
    def(
        map,
        "derivePassword",
        &[ArgType::Int(IntKind::Uint32), STR, STR, STR, STR],
        None,
        "string",
        false,
        |_, a| {
            Ok(Value::from(derive_password(
                n(&a, 0) as u32,
                s(&a, 1),
                s(&a, 2),
                s(&a, 3),
                s(&a, 4),
            )))
        },
    );
    def(
        map,
        "genPrivateKey",
        &[STR],
        None,
        "string",
        false,
        |_, a| generate_private_key(s(&a, 0)).map(Value::from),
    );
    def(
        map,
        "buildCustomCert",
        &[STR, STR],
        None,
        "sprig.certificate",
        true,
        |_, a| build_custom_cert(s(&a, 0), s(&a, 1)),
    );
    def(
        map,
        "genCA",
        &[STR, INT],
        None,
        "sprig.certificate",
        true,
        |_, a| gen_ca(s(&a, 0), n(&a, 1), None),
    );
    def(
        map,
        "genCAWithKey",
        &[STR, INT, STR],
        None,
        "sprig.certificate",
        true,
        |_, a| gen_ca(s(&a, 0), n(&a, 1), Some(s(&a, 2))),
    );
    def(
        map,
        "genSelfSignedCert",
        &[STR, LIST, LIST, INT],
        None,
        "sprig.certificate",
        true,
        |_, a| gen_self_signed(&a, None),
    );
    def(
        map,
        "genSelfSignedCertWithKey",
        &[STR, LIST, LIST, INT, STR],
        None,
        "sprig.certificate",
        true,
        |_, a| gen_self_signed(&a, Some(s(&a, 4))),
    );
    def(
        map,
        "genSignedCert",
        &[STR, LIST, LIST, INT, CERT],
        None,
        "sprig.certificate",
        true,
        |_, a| gen_signed(&a, None),
    );
    def(
        map,
        "genSignedCertWithKey",
        &[STR, LIST, LIST, INT, CERT, STR],
        None,
        "sprig.certificate",
        true,
        |_, a| gen_signed(&a, Some(s(&a, 5))),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn der_lengths() {
        assert_eq!(tlv(4, &[0; 3]), vec![4, 3, 0, 0, 0]);
        assert_eq!(&tlv(4, &[0; 200])[..3], &[4, 0x81, 200]);
        assert_eq!(&tlv(4, &[0; 300])[..4], &[4, 0x82, 1, 44]);
        assert_eq!(uint(&[0, 0x80]), vec![2, 2, 0, 0x80]);
        assert_eq!(uint(&[0]), vec![2, 1, 0]);
    }

    #[test]
    fn pem_round_trip() {
        let text = pem_encode("X", &[1u8; 100]);
        assert_eq!(
            pem_decode(text.as_bytes()),
            Some(("X".into(), vec![1u8; 100]))
        );
        assert_eq!(
            pem_decode(b"junk\n-----BEGIN A-----\nAQ==\n-----END B-----\n"),
            None
        );
    }

    #[test]
    fn dsa_keys_are_go_shaped() {
        let pem = generate_private_key("dsa").unwrap();
        let (kind, der) = pem_decode(pem.as_bytes()).unwrap();
        assert_eq!(kind, "DSA PRIVATE KEY");
        let s = whole(&der, SEQ).unwrap();
        let mut r = Reader(s.body);
        let ints: Vec<BigUint> = std::iter::from_fn(|| r.next())
            .map(|e| read_uint(&e).unwrap())
            .collect();
        let [version, p, q, g, y, x] = &ints[..] else {
            panic!("six integers, got {}", ints.len())
        };
        let one = BigUint::from(1u32);
        assert_eq!(version, &BigUint::default());
        assert_eq!((p.bits(), q.bits()), (2048, 256));
        assert!(num_bigint_dig::prime::probably_prime(p, 20));
        assert!(num_bigint_dig::prime::probably_prime(q, 20));
        assert_eq!((p - &one) % q, BigUint::default());
        assert!(g > &one && g.modpow(q, p) == one);
        assert!(x < q && &g.modpow(x, p) == y);
        // Sprig reads it back as a DSA key.
        assert!(matches!(parse_private_key_pem(&pem), Ok(PrivateKey::Dsa)));
    }

    #[test]
    fn keys_round_trip() {
        let k = generate_private_key("ecdsa").unwrap();
        let key = parse_private_key_pem(&k).unwrap();
        assert!(matches!(key.signer(), Ok(Key::Ec(_))));
        let k = generate_private_key("ed25519").unwrap();
        let key = parse_private_key_pem(&k).unwrap();
        assert!(matches!(key.signer(), Ok(Key::Ed(_))));
        assert_eq!(oid_string(OID_P256), "1.2.840.10045.3.1.7");
    }
}
