//! The test control plane for integration tests (feature `testenv`): a real kube-apiserver and
//! etcd, started by `scripts/testenv up` once per test process, or one given by the environment.
//!
//! Which API server [`kubeconfig`] gives, first match wins:
//! 1. `BOSUN_TEST_KUBECONFIG`, when set: that kubeconfig, whatever it points at.
//! 2. `KUBECONFIG`, when it is a single file whose current context's cluster is `bosun-testenv`
//!    (what `scripts/testenv up` writes; `scripts/test` exports it). Any other `KUBECONFIG` is
//!    ignored, so tests never write to a cluster someone uses for real work.
//! 3. Otherwise `scripts/testenv up` is run (building the binaries the first time, which takes
//!    3-10 minutes on 2 cores). If this process started the control plane, it stops it at exit
//!    (`scripts/testenv down`) unless `BOSUN_TESTENV_KEEP` is set.
//!
//! There is no kubelet or controller manager: tests that need "ready" set status themselves.
//! The control plane may be shared by several tests and runs, so tests name their objects with
//! [`unique_name`].

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::Client;

const TESTENV_CLUSTER: &str = "bosun-testenv";

static KUBECONFIG: OnceLock<PathBuf> = OnceLock::new();
static SCRIPT: OnceLock<PathBuf> = OnceLock::new();

fn script() -> &'static Path {
    SCRIPT.get_or_init(|| match std::env::var_os("BOSUN_TESTENV_SCRIPT") {
        Some(s) => PathBuf::from(s),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/testenv"),
    })
}

/// Whether `path` is a kubeconfig whose current context's cluster is the test control plane.
fn is_testenv_kubeconfig(path: &Path) -> bool {
    let Ok(config) = kube::config::Kubeconfig::read_from(path) else {
        return false;
    };
    let Some(current) = config.current_context.as_deref() else {
        return false;
    };
    config
        .contexts
        .iter()
        .filter(|c| c.name == current)
        .filter_map(|c| c.context.as_ref())
        .any(|c| c.cluster == TESTENV_CLUSTER)
}

extern "C" fn stop_at_exit() {
    let _ = Command::new(script())
        .arg("down")
        .stdout(Stdio::null())
        .status();
}

fn start() -> PathBuf {
    let was_up = Command::new(script())
        .arg("status")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let out = Command::new(script())
        .arg("up")
        .stderr(Stdio::inherit())
        .output()
        .unwrap_or_else(|e| panic!("running {} up: {e}", script().display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{} up failed ({}); its messages are above",
        script().display(),
        out.status
    );
    let path = stdout
        .lines()
        .find_map(|l| l.strip_prefix("export KUBECONFIG="))
        .unwrap_or_else(|| {
            panic!(
                "{} up printed no `export KUBECONFIG=` line: {stdout:?}",
                script().display()
            )
        });
    if !was_up && std::env::var_os("BOSUN_TESTENV_KEEP").is_none() {
        // SAFETY: registers a plain function with no captured state; it runs once at exit.
        unsafe {
            libc::atexit(stop_at_exit);
        }
    }
    PathBuf::from(path.trim())
}

/// The kubeconfig of the test control plane (see the module docs for which one).
pub fn kubeconfig() -> &'static Path {
    KUBECONFIG.get_or_init(|| {
        if let Some(p) = std::env::var_os("BOSUN_TEST_KUBECONFIG") {
            return PathBuf::from(p);
        }
        if let Some(p) = std::env::var_os("KUBECONFIG").filter(|p| !p.is_empty()) {
            let p = PathBuf::from(p);
            if is_testenv_kubeconfig(&p) {
                return p;
            }
            eprintln!(
                "testenv: ignoring KUBECONFIG={} (not a bosun-testenv cluster; set BOSUN_TEST_KUBECONFIG to use it); starting the test control plane",
                p.display()
            );
        }
        start()
    })
}

/// A client for the test control plane.
pub async fn client() -> Client {
    Client::from_kubeconfig(kubeconfig())
        .await
        .unwrap_or_else(|e| panic!("test control plane client: {e}"))
}

/// A DNS-1123 name unique to this test process and call: `{prefix}-{pid}-{seconds}-{n}`.
pub fn unique_name(prefix: &str) -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() % 100_000)
        .unwrap_or(0);
    format!(
        "{prefix}-{}-{secs}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}
