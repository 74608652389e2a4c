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
//!
//! [`living`] gives the living cluster instead (`scripts/testenv up --living`: the same API
//! server plus kube-controller-manager, kube-scheduler, a kubelet with containerd, kube-proxy,
//! and images built on this machine), for tests that need pods to really run:
//! 1. `BOSUN_LIVING_KUBECONFIG`, when set, with `BOSUN_LOCAL_HUB`, `BOSUN_LOCAL_TAG` and
//!    `BOSUN_LOCAL_PAUSE` (what `scripts/test` exports from `up --living`).
//! 2. Otherwise `scripts/testenv up --living` is run (it needs root; the first build takes
//!    minutes), and stopped again at exit if this process started it, unless
//!    `BOSUN_TESTENV_KEEP` is set.

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

extern "C" fn stop_living_at_exit() {
    let _ = Command::new(script())
        .args(["down", "--living"])
        .stdout(Stdio::null())
        .status();
}

/// Runs `scripts/testenv up [extra]`, returns its stdout, and registers `at_exit` if the
/// control plane was not up before (unless `BOSUN_TESTENV_KEEP` is set).
fn up(extra: &[&str], at_exit: extern "C" fn()) -> String {
    let command = format!("{} up {}", script().display(), extra.join(" "));
    let was_up = Command::new(script())
        .arg("status")
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let out = Command::new(script())
        .arg("up")
        .args(extra)
        .stderr(Stdio::inherit())
        .output()
        .unwrap_or_else(|e| panic!("running {command}: {e}"));
    assert!(
        out.status.success(),
        "{command} failed ({}); its messages are above",
        out.status
    );
    if !was_up && std::env::var_os("BOSUN_TESTENV_KEEP").is_none() {
        // SAFETY: registers a plain function with no captured state; it runs once at exit.
        unsafe {
            libc::atexit(at_exit);
        }
    }
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The `NAME=value` pairs of the `export ...` lines `up` printed.
fn exported(stdout: &str) -> Vec<(String, String)> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("export "))
        .flat_map(str::split_whitespace)
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn start() -> PathBuf {
    let stdout = up(&[], stop_at_exit);
    let path = exported(&stdout)
        .into_iter()
        .find_map(|(k, v)| (k == "KUBECONFIG").then_some(v))
        .unwrap_or_else(|| {
            panic!(
                "{} up printed no `export KUBECONFIG=` line: {stdout:?}",
                script().display()
            )
        });
    PathBuf::from(path)
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

/// The living cluster: where it is and the images built for it.
#[derive(Debug, Clone)]
pub struct Living {
    /// A kubeconfig with cluster-admin rights, reachable from this machine.
    pub kubeconfig: PathBuf,
    /// `--set hub=` for Istio images built here (`BOSUN_LOCAL_HUB`, `localhost/istio`).
    pub hub: String,
    /// `--set tag=` for them (`BOSUN_LOCAL_TAG`); not `latest`, so the charts' pull policy is
    /// IfNotPresent and the images, present on the node, are never pulled.
    pub tag: String,
    /// The pause image on the node (`BOSUN_LOCAL_PAUSE`): a container that runs and does
    /// nothing, for workloads that only need to be Ready.
    pub pause_image: String,
}

static LIVING: OnceLock<Living> = OnceLock::new();

const LIVING_VARS: [&str; 4] = [
    "BOSUN_LIVING_KUBECONFIG",
    "BOSUN_LOCAL_HUB",
    "BOSUN_LOCAL_TAG",
    "BOSUN_LOCAL_PAUSE",
];

fn living_from(vars: &[(String, String)], from: &str) -> Living {
    let get = |name: &str| {
        vars.iter()
            .find_map(|(k, v)| (k == name).then(|| v.clone()))
            .unwrap_or_else(|| panic!("{from} gives no {name} (it needs all of {LIVING_VARS:?})"))
    };
    Living {
        kubeconfig: PathBuf::from(get("BOSUN_LIVING_KUBECONFIG")),
        hub: get("BOSUN_LOCAL_HUB"),
        tag: get("BOSUN_LOCAL_TAG"),
        pause_image: get("BOSUN_LOCAL_PAUSE"),
    }
}

/// The living cluster (see the module docs for which one), started if need be.
pub fn living() -> &'static Living {
    LIVING.get_or_init(|| {
        if std::env::var_os("BOSUN_LIVING_KUBECONFIG").is_some() {
            let vars: Vec<(String, String)> = LIVING_VARS
                .iter()
                .filter_map(|k| Some((k.to_string(), std::env::var(k).ok()?)))
                .collect();
            return living_from(&vars, "the environment");
        }
        let stdout = up(&["--living"], stop_living_at_exit);
        let mut vars = exported(&stdout);
        for (k, _) in &mut vars {
            if k == "KUBECONFIG" {
                *k = "BOSUN_LIVING_KUBECONFIG".to_string();
            }
        }
        living_from(&vars, &format!("{} up --living", script().display()))
    })
}

/// The living cluster's kubeconfig.
pub fn living_kubeconfig() -> &'static Path {
    &living().kubeconfig
}

/// A client for the living cluster.
pub async fn living_client() -> Client {
    Client::from_kubeconfig(living_kubeconfig())
        .await
        .unwrap_or_else(|e| panic!("living cluster client: {e}"))
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
