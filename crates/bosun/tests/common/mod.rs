//! Helpers shared by the integration tests: the repository root, the oracles and inputs that
//! scripts fetch (a test uses what the environment names, else runs the script), and running
//! bosun against the test control plane.

#![allow(dead_code)] // each test file uses its own subset

pub mod http;
pub mod manifests;
pub mod mirror;
pub mod oci;
pub mod operator;
pub mod readme;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use cluster::testenv;

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The path `env` names, else what `scripts/SCRIPT` prints (it fetches or builds the thing).
pub fn fetched(env: &str, script: &str) -> PathBuf {
    fetched_with(env, script, &[])
}

/// The path `env` names, else what `scripts/SCRIPT ARGS` prints.
pub fn fetched_with(env: &str, script: &str, args: &[&str]) -> PathBuf {
    if let Ok(path) = std::env::var(env) {
        return PathBuf::from(path);
    }
    let out = Command::new(repo_root().join("scripts").join(script))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run scripts/{script}: {e}"));
    assert!(
        out.status.success(),
        "scripts/{script} {} failed:\n{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

#[allow(unused_imports)] // each test file uses its own subset
pub use testkit::{block_on as run, stderr, stdout, succeeded, text};

/// The pinned release's `manifests` folder, as a path.
pub fn manifests_dir() -> PathBuf {
    fetched("BOSUN_ISTIO", "fetch-istio").join("manifests")
}

/// The pinned release's `manifests` folder.
pub fn manifests() -> String {
    manifests_dir().display().to_string()
}

/// `bosun ARGS` against the cluster of `kubeconfig`, stdin closed, ready to run.
pub fn bosun_command(kubeconfig: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_bosun"));
    c.args(args)
        .env("KUBECONFIG", kubeconfig)
        .stdin(Stdio::null());
    c
}

/// Runs `bosun ARGS` against the test control plane, stdin closed.
pub fn bosun(args: &[&str]) -> Output {
    bosun_at(testenv::kubeconfig(), args)
}

/// Runs `bosun ARGS` against the test control plane without blocking the test's runtime.
pub async fn bosun_async(args: &[&str]) -> Output {
    testkit::output(bosun_command(testenv::kubeconfig(), args)).await
}

/// One case of tests/cases/manifest-generate/parity.txt: a name, the flags both tools get, and
/// why it is a known gap (if it is).
pub struct Case {
    pub name: String,
    pub args: Vec<String>,
    pub gap: Option<String>,
}

/// The parity cases; `$INPUT` in their flags is `input_dir` (istioctl's own test inputs),
/// `$CASES` our own inputs.
pub fn parity_cases(input_dir: &Path) -> Vec<Case> {
    let path = repo_root().join("tests/cases/manifest-generate/parity.txt");
    let text = std::fs::read_to_string(&path).expect("read parity.txt");
    let mut gaps = std::collections::BTreeMap::new();
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix("gap ") {
            let (name, why) = rest.split_once(':').expect("gap NAME: why");
            gaps.insert(name.trim().to_string(), why.trim().to_string());
            continue;
        }
        let (name, args) = line.split_once(':').expect("NAME: ARGS");
        let input = input_dir.display().to_string();
        let own = repo_root()
            .join("tests/cases/manifest-generate/inputs")
            .display()
            .to_string();
        out.push(Case {
            name: name.trim().to_string(),
            args: args
                .split_whitespace()
                .map(|a| a.replace("$INPUT", &input).replace("$CASES", &own))
                .collect(),
            gap: None,
        });
    }
    for case in &mut out {
        case.gap = gaps.remove(&case.name);
    }
    assert!(gaps.is_empty(), "gaps for unknown cases: {gaps:?}");
    out
}

/// Held shared by the tests of one file that may run side by side, exclusively by one that
/// changes what they all depend on (a purge, cluster-wide objects).
static CLUSTER: std::sync::RwLock<()> = std::sync::RwLock::new(());

pub fn shared() -> std::sync::RwLockReadGuard<'static, ()> {
    CLUSTER.read().unwrap_or_else(|e| e.into_inner())
}

pub fn exclusive() -> std::sync::RwLockWriteGuard<'static, ()> {
    CLUSTER.write().unwrap_or_else(|e| e.into_inner())
}

/// The pinned release's version (its VERSION file), which bosun's owner labels carry.
pub fn release_version() -> String {
    let file = Path::new(&manifests()).parent().unwrap().join("VERSION");
    std::fs::read_to_string(&file)
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
        .trim()
        .to_string()
}

/// The `(created, configured, unchanged)` counts of install's `✔ Installation complete (…)`
/// line.
pub fn totals(out: &Output) -> (usize, usize, usize) {
    let stdout = stdout(out);
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("✔ Installation complete ("))
        .unwrap_or_else(|| panic!("no summary line\n{}", text(out)));
    let n: Vec<usize> = line
        .split(", ")
        .map(|part| part.split(' ').next().unwrap().parse().unwrap())
        .collect();
    (n[0], n[1], n[2])
}

/// Runs `bosun ARGS` against the cluster of `kubeconfig` (a private control plane), stdin
/// closed.
pub fn bosun_at(kubeconfig: &Path, args: &[&str]) -> Output {
    bosun_command(kubeconfig, args)
        .output()
        .expect("running bosun")
}

/// The documents of a manifest (`---` lines split them), sorted, so that what `helm get
/// manifest` and `manifest generate` print compare document for document in any order.
pub fn documents(text: &str) -> Vec<String> {
    let mut docs: Vec<String> = format!("\n{text}")
        .split("\n---\n")
        .map(|d| {
            d.trim_start_matches('\n')
                .trim_start_matches("---\n")
                .trim_end()
                .to_string()
        })
        .filter(|d| !d.is_empty())
        .collect();
    docs.sort();
    docs
}
