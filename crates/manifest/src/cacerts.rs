//! A shared root of trust for a multi-cluster mesh: one root CA and, per cluster, an
//! intermediate CA signed by it, as the four files of Istio's cert tooling
//! (`tools/certs/Makefile.selfsigned.mk`, `common.mk`) that become each cluster's `cacerts`
//! Secret: `ca-cert.pem`, `ca-key.pem`, `cert-chain.pem` (the intermediate, then the root) and
//! `root-cert.pem`. Pure: keys and certificates are made in memory; writing the files and the
//! Secret is the caller's.
//!
//! The certificates carry what Istio's Makefiles give them: the root `O=Istio, CN=Root CA`,
//! `basicConstraints = critical, CA:true`; each intermediate `O=Istio, CN=Intermediate CA,
//! L=<cluster>`, `basicConstraints = critical, CA:true, pathlen:0`, SAN
//! `DNS:istiod.istio-system.svc`; both `keyUsage = critical, digitalSignature,
//! nonRepudiation, keyEncipherment, keyCertSign`, a subject key identifier, and the
//! intermediate the root's as authority key identifier. Lifetimes: the Makefiles' 3650 days
//! for the root; 730 days for intermediates (the Makefiles also use 3650: an intermediate is
//! cheap to replace, and a shorter life bounds what a leaked cluster key is worth).
//!
//! Keys: ECDSA P-256 by default, which istiod reads as a CA key (`EC PRIVATE KEY`) and which
//! is made in well under a millisecond; RSA 4096, the Makefiles' choice, on request
//! ([`KeyType::Rsa4096`]), measured at 4.7 to 22 s per key on the 2-core CI machine.

use gox509::der::{
    OCTET_STRING, OID_AKI, OID_BASIC_CONSTRAINTS, OID_CN, OID_KEY_USAGE, OID_L, OID_O, OID_SAN,
    OID_SKI, SEQ, seq, tlv,
};
use gox509::{CertificateFields, Key, extension, key_id, name};

/// The root's lifetime, as Istio's Makefiles make it.
pub const ROOT_DAYS: i64 = 3650;
/// An intermediate's lifetime.
pub const INTERMEDIATE_DAYS: i64 = 730;
/// The intermediate's DNS name, as Istio's Makefiles give it.
pub const INTERMEDIATE_SAN: &str = "istiod.istio-system.svc";

/// The key type of new CA keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KeyType {
    #[default]
    P256,
    Rsa4096,
}

/// Why a CA could not be made.
#[derive(Debug, thiserror::Error)]
pub enum CaError {
    #[error("generating a key: {0}")]
    Key(#[from] gox509::KeyError),
    #[error("creating a certificate: {0}")]
    Certificate(#[from] gox509::CertificateError),
    #[error("generating a serial number: {0}")]
    Random(#[source] getrandom::Error),
}

/// A root CA: its key and certificate (PEM).
pub struct Root {
    key: Key,
    name: Vec<u8>,
    key_id: Vec<u8>,
    /// `root-cert.pem`.
    pub cert_pem: String,
}

/// One cluster's `cacerts` files. `Debug` leaves the key out, so it is never printed by
/// accident.
pub struct ClusterCa {
    pub cluster: String,
    /// `ca-cert.pem`: the intermediate.
    pub ca_cert: String,
    /// `ca-key.pem`: the intermediate's key.
    pub ca_key: String,
    /// `cert-chain.pem`: the intermediate, then the root.
    pub cert_chain: String,
    /// `root-cert.pem`.
    pub root_cert: String,
}

impl std::fmt::Debug for ClusterCa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterCa")
            .field("cluster", &self.cluster)
            .field("ca_cert", &self.ca_cert)
            .field("ca_key", &"<private key>")
            .finish()
    }
}

impl ClusterCa {
    /// The files, by the names Istio's tooling and the `cacerts` Secret give them.
    pub fn files(&self) -> [(&'static str, &str); 4] {
        [
            ("ca-cert.pem", &self.ca_cert),
            ("ca-key.pem", &self.ca_key),
            ("cert-chain.pem", &self.cert_chain),
            ("root-cert.pem", &self.root_cert),
        ]
    }
}

fn new_key(key_type: KeyType) -> Result<Key, CaError> {
    Ok(match key_type {
        KeyType::P256 => gox509::p256_key(),
        KeyType::Rsa4096 => gox509::rsa_key(4096)?,
    })
}

fn serial() -> Result<[u8; 16], CaError> {
    let mut b = [0u8; 16];
    getrandom::getrandom(&mut b).map_err(CaError::Random)?;
    // Positive and non-zero, as RFC 5280 asks.
    b[0] = (b[0] & 0x7f) | 0x01;
    Ok(b)
}

/// `keyUsage = critical, digitalSignature, nonRepudiation, keyEncipherment, keyCertSign`:
/// bits 0, 1, 2 and 5 (the first bit is the high bit), two unused.
fn key_usage() -> Vec<u8> {
    extension(OID_KEY_USAGE, true, &[0x03, 0x02, 0x02, 0xe4])
}

/// `now` is seconds since the epoch (the caller's clock).
pub fn root(key_type: KeyType, now: i64) -> Result<Root, CaError> {
    let key = new_key(key_type)?;
    let subject = name(&[(OID_O, "Istio"), (OID_CN, "Root CA")]);
    let id = key_id(&key);
    let extensions = [
        extension(OID_SKI, false, &tlv(OCTET_STRING, &id)),
        extension(OID_BASIC_CONSTRAINTS, true, &seq(&[&[0x01, 0x01, 0xff]])),
        key_usage(),
    ];
    let der = gox509::certificate(
        &CertificateFields {
            serial: &serial()?,
            subject: &subject,
            not_before: now,
            not_after: now + ROOT_DAYS * 86_400,
            extensions: &extensions,
        },
        &key,
        (&subject, &key),
    )?;
    Ok(Root {
        key,
        name: subject,
        key_id: id,
        cert_pem: gox509::pem_encode("CERTIFICATE", &der),
    })
}

impl Root {
    /// `root-key.pem`: the root's private key, to keep (offline) for adding clusters later.
    pub fn key_pem(&self) -> String {
        self.key.pem()
    }
}

/// The intermediate CA of `cluster`, signed by `root`.
pub fn cluster_ca(
    root: &Root,
    cluster: &str,
    key_type: KeyType,
    now: i64,
) -> Result<ClusterCa, CaError> {
    let key = new_key(key_type)?;
    let subject = name(&[
        (OID_O, "Istio"),
        (OID_CN, "Intermediate CA"),
        (OID_L, cluster),
    ]);
    let extensions = [
        extension(OID_SKI, false, &tlv(OCTET_STRING, &key_id(&key))),
        extension(OID_AKI, false, &seq(&[&tlv(0x80, &root.key_id)])),
        // CA:true, pathLenConstraint 0.
        extension(
            OID_BASIC_CONSTRAINTS,
            true,
            &seq(&[&[0x01, 0x01, 0xff], &[0x02, 0x01, 0x00]]),
        ),
        key_usage(),
        extension(
            OID_SAN,
            false,
            &tlv(SEQ, &tlv(0x82, INTERMEDIATE_SAN.as_bytes())),
        ),
    ];
    let der = gox509::certificate(
        &CertificateFields {
            serial: &serial()?,
            subject: &subject,
            not_before: now,
            not_after: now + INTERMEDIATE_DAYS * 86_400,
            extensions: &extensions,
        },
        &key,
        (&root.name, &root.key),
    )?;
    let ca_cert = gox509::pem_encode("CERTIFICATE", &der);
    Ok(ClusterCa {
        cluster: cluster.to_string(),
        cert_chain: format!("{ca_cert}{}", root.cert_pem),
        ca_cert,
        ca_key: key.pem(),
        root_cert: root.cert_pem.clone(),
    })
}

/// The name of the Secret istiod reads its CA from.
pub const SECRET_NAME: &str = "cacerts";
/// The files of a `cacerts` Secret, by name; `ca-key.pem` is the one private key.
pub const FILES: [&str; 4] = [
    "ca-cert.pem",
    "ca-key.pem",
    "cert-chain.pem",
    "root-cert.pem",
];

/// The `cacerts` Secret of `namespace` holding `files` (name, PEM text), as `kubectl create
/// secret generic cacerts --from-file=…` makes it.
pub fn secret(namespace: &str, files: &[(&str, &str)]) -> serde_json::Value {
    let data: serde_json::Map<String, serde_json::Value> = files
        .iter()
        .map(|(name, text)| {
            (
                name.to_string(),
                goyaml::json_value::b64_encode(text.as_bytes()).into(),
            )
        })
        .collect();
    serde_json::json!({
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": SECRET_NAME, "namespace": namespace},
        "type": "Opaque",
        "data": data,
    })
}

/// Whether two `root-cert.pem` texts hold the same certificates (line ends and blank lines
/// aside).
pub fn same_root(a: &str, b: &str) -> bool {
    let lines = |t: &str| -> Vec<String> {
        t.lines()
            .map(|l| l.trim().to_string())
            .filter(|l| !l.is_empty())
            .collect()
    };
    lines(a) == lines(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_chain_and_keys_stay_unprinted() {
        let root = root(KeyType::P256, 1_800_000_000).unwrap();
        let east = cluster_ca(&root, "east", KeyType::P256, 1_800_000_000).unwrap();
        assert_eq!(east.root_cert, root.cert_pem);
        assert_eq!(
            east.cert_chain,
            format!("{}{}", east.ca_cert, root.cert_pem)
        );
        assert!(east.ca_key.starts_with("-----BEGIN EC PRIVATE KEY-----\n"));
        let names: Vec<&str> = east.files().iter().map(|(n, _)| *n).collect();
        assert_eq!(
            names,
            [
                "ca-cert.pem",
                "ca-key.pem",
                "cert-chain.pem",
                "root-cert.pem"
            ]
        );
        let debug = format!("{east:?}");
        assert!(!debug.contains("PRIVATE KEY"), "{debug}");
        let west = cluster_ca(&root, "west", KeyType::P256, 1_800_000_000).unwrap();
        assert_ne!(west.ca_key, east.ca_key);
        assert!(same_root(
            &west.root_cert,
            &east.root_cert.replace('\n', "\r\n")
        ));
        let other = super::root(KeyType::P256, 1_800_000_000).unwrap();
        assert!(!same_root(&other.cert_pem, &east.root_cert));
        let secret = secret("istio-system", &east.files());
        assert_eq!(secret["metadata"]["name"], "cacerts");
        assert_eq!(
            secret["data"]
                .as_object()
                .unwrap()
                .keys()
                .collect::<Vec<_>>(),
            FILES.iter().collect::<Vec<_>>()
        );
    }
}
