//! `manifest::cacerts` checked by real OpenSSL (`openssl` on PATH): the chain verifies, each
//! certificate says what Istio's cert tooling makes it say (CA, path length, key usage, SAN,
//! subject and issuer, lifetime), each key is its certificate's, and another root's
//! intermediate does not verify.

use std::path::{Path, PathBuf};
use std::process::Command;

use manifest::cacerts::{self, KeyType};

struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("bosun-cacerts-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `openssl ARGS` in `dir`: (succeeded, stdout and stderr).
fn openssl(dir: &Path, args: &[&str]) -> (bool, String) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("openssl on PATH");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
        - 60
}

fn write(dir: &Path, ca: &cacerts::ClusterCa) {
    for (name, text) in ca.files() {
        std::fs::write(dir.join(name), text).unwrap();
    }
}

fn check_cluster(dir: &Path, cluster: &str) {
    let (ok, out) = openssl(dir, &["verify", "-CAfile", "root-cert.pem", "ca-cert.pem"]);
    assert!(ok && out.contains("ca-cert.pem: OK"), "{out}");
    // The chain file is the intermediate then the root, as istiod reads it.
    let (ok, out) = openssl(
        dir,
        &[
            "verify",
            "-CAfile",
            "root-cert.pem",
            "-untrusted",
            "cert-chain.pem",
            "ca-cert.pem",
        ],
    );
    assert!(ok, "{out}");

    let (ok, text) = openssl(dir, &["x509", "-in", "ca-cert.pem", "-noout", "-text"]);
    assert!(ok, "{text}");
    for expected in [
        "Issuer: O = Istio, CN = Root CA",
        &format!("Subject: O = Istio, CN = Intermediate CA, L = {cluster}"),
        "X509v3 Basic Constraints: critical\n                CA:TRUE, pathlen:0",
        "X509v3 Key Usage: critical\n                Digital Signature, Non Repudiation, Key Encipherment, Certificate Sign",
        "DNS:istiod.istio-system.svc",
        "X509v3 Subject Key Identifier",
        "X509v3 Authority Key Identifier",
        "Signature Algorithm: ",
    ] {
        assert!(text.contains(expected), "{expected:?} not in\n{text}");
    }
    let (ok, root) = openssl(dir, &["x509", "-in", "root-cert.pem", "-noout", "-text"]);
    assert!(ok, "{root}");
    for expected in [
        "Issuer: O = Istio, CN = Root CA",
        "Subject: O = Istio, CN = Root CA",
        "X509v3 Basic Constraints: critical\n                CA:TRUE\n",
        "Certificate Sign",
    ] {
        assert!(root.contains(expected), "{expected:?} not in\n{root}");
    }

    // Lifetimes: the intermediate two years, the root ten.
    let day = 86_400;
    let ends_after = |file: &str, days: i64| {
        openssl(
            dir,
            &[
                "x509",
                "-in",
                file,
                "-noout",
                "-checkend",
                &(days * day).to_string(),
            ],
        )
        .0
    };
    assert!(ends_after("ca-cert.pem", 729) && !ends_after("ca-cert.pem", 731));
    assert!(ends_after("root-cert.pem", 3649) && !ends_after("root-cert.pem", 3651));

    // The key is the certificate's.
    let (ok, from_key) = openssl(dir, &["pkey", "-in", "ca-key.pem", "-pubout"]);
    assert!(ok, "{from_key}");
    let (ok, from_cert) = openssl(dir, &["x509", "-in", "ca-cert.pem", "-noout", "-pubkey"]);
    assert!(ok, "{from_cert}");
    assert_eq!(from_key, from_cert);
}

#[test]
fn one_root_two_clusters_p256() {
    let root = cacerts::root(KeyType::P256, now()).unwrap();
    let dirs: Vec<(TempDir, &str)> = ["east", "west"]
        .into_iter()
        .map(|cluster| {
            let dir = TempDir::new(cluster);
            write(
                &dir.0,
                &cacerts::cluster_ca(&root, cluster, KeyType::P256, now()).unwrap(),
            );
            (dir, cluster)
        })
        .collect();
    for (dir, cluster) in &dirs {
        check_cluster(&dir.0, cluster);
        let (_, text) = openssl(&dir.0, &["x509", "-in", "ca-cert.pem", "-noout", "-text"]);
        assert!(text.contains("ecdsa-with-SHA256"), "{text}");
    }
    // The same root: west's intermediate verifies with east's root file.
    let (ok, out) = openssl(
        &dirs[0].0.0,
        &[
            "verify",
            "-CAfile",
            "root-cert.pem",
            dirs[1].0.0.join("ca-cert.pem").to_str().unwrap(),
        ],
    );
    assert!(ok, "{out}");

    // Another root's intermediate does not.
    let other = cacerts::root(KeyType::P256, now()).unwrap();
    let foreign = TempDir::new("foreign");
    write(
        &foreign.0,
        &cacerts::cluster_ca(&other, "east", KeyType::P256, now()).unwrap(),
    );
    let (ok, out) = openssl(
        &dirs[0].0.0,
        &[
            "verify",
            "-CAfile",
            "root-cert.pem",
            foreign.0.join("ca-cert.pem").to_str().unwrap(),
        ],
    );
    assert!(!ok, "a foreign intermediate verified:\n{out}");
}

/// RSA 4096, Istio's Makefiles' key type: one key only (each takes seconds), the intermediate's.
#[test]
fn an_rsa_4096_intermediate() {
    let root = cacerts::root(KeyType::P256, now()).unwrap();
    let dir = TempDir::new("rsa");
    let ca = cacerts::cluster_ca(&root, "rsa", KeyType::Rsa4096, now()).unwrap();
    assert!(ca.ca_key.starts_with("-----BEGIN RSA PRIVATE KEY-----\n"));
    write(&dir.0, &ca);
    check_cluster(&dir.0, "rsa");
    let (_, text) = openssl(&dir.0, &["x509", "-in", "ca-cert.pem", "-noout", "-text"]);
    assert!(text.contains("Public-Key: (4096 bit)"), "{text}");
}
