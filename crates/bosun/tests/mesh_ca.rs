//! `bosun mesh ca`: the files Istio's cert tooling makes, checked by real OpenSSL, private
//! keys written 0600 and never printed, and nothing replaced or half-written on bad input.
//! (The certificates' fields are checked in `crates/manifest/tests/cacerts_openssl.rs`.)

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{stderr, stdout, succeeded, text};

fn bosun(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_bosun"))
        .args(args)
        .output()
        .expect("running bosun")
}

fn dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bosun-mesh-ca-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn verify(root: &Path, cert: &Path) -> bool {
    Command::new("openssl")
        .arg("verify")
        .arg("-CAfile")
        .arg(root)
        .arg(cert)
        .output()
        .expect("openssl on PATH")
        .status
        .success()
}

/// Every file under `dir`, relative, with its contents.
fn files(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for entry in walk(dir) {
        out.push((
            entry.strip_prefix(dir).unwrap().display().to_string(),
            std::fs::read_to_string(&entry).unwrap(),
        ));
    }
    out.sort();
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn writes_a_shared_root_and_one_intermediate_per_cluster() {
    let out = dir("two");
    let path = out.to_str().unwrap();
    let made = bosun(&[
        "mesh",
        "ca",
        "--cluster",
        "east",
        "--cluster",
        "west",
        "--out",
        path,
    ]);
    succeeded(&made);
    assert!(!text(&made).contains("PRIVATE KEY"), "{}", text(&made));
    let names: Vec<String> = files(&out).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        [
            "east/ca-cert.pem",
            "east/ca-key.pem",
            "east/cert-chain.pem",
            "east/root-cert.pem",
            "root-cert.pem",
            "root-key.pem",
            "west/ca-cert.pem",
            "west/ca-key.pem",
            "west/cert-chain.pem",
            "west/root-cert.pem",
        ]
    );
    #[cfg(unix)]
    for key in ["root-key.pem", "east/ca-key.pem", "west/ca-key.pem"] {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(out.join(key))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{key}");
    }
    let root = std::fs::read_to_string(out.join("root-cert.pem")).unwrap();
    for cluster in ["east", "west"] {
        assert_eq!(
            std::fs::read_to_string(out.join(cluster).join("root-cert.pem")).unwrap(),
            root
        );
        assert!(verify(
            &out.join("root-cert.pem"),
            &out.join(cluster).join("ca-cert.pem")
        ));
    }

    // A second run into the same directory replaces nothing.
    let before = files(&out);
    let again = bosun(&["mesh", "ca", "--cluster", "north", "--out", path]);
    assert!(!again.status.success(), "{}", text(&again));
    assert!(
        stderr(&again).contains("root-cert.pem exists"),
        "{}",
        text(&again)
    );
    assert_eq!(files(&out), before);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn bad_input_writes_nothing() {
    for (args, expected) in [
        (&["--cluster", "Bad_Name"][..], "is not a DNS-1123 label"),
        (&["--cluster", "east", "--cluster", "east"], "given twice"),
        (
            &["--cluster", "east", "--key-type", "dsa"],
            "invalid value 'dsa'",
        ),
    ] {
        let out = dir("bad");
        let mut full = vec!["mesh", "ca", "--out", out.to_str().unwrap()];
        full.extend_from_slice(args);
        let run = bosun(&full);
        assert!(!run.status.success(), "{args:?}: {}", text(&run));
        assert!(stderr(&run).contains(expected), "{args:?}: {}", text(&run));
        assert!(stdout(&run).is_empty());
        assert!(!out.exists(), "{args:?} wrote {}", out.display());
    }
}
