//! Running `bosun operator run` in tests, and reading what it did: its log, its metrics, the
//! IstioOperator's status and conditions, and the API server's audit log.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use cluster::testenv;
use kube::api::{Api, DynamicObject};
use kube::core::ApiResource;
use serde_json::{Value, json};

use super::manifests;

pub fn iop_resource() -> ApiResource {
    ApiResource {
        group: "install.istio.io".into(),
        version: "v1alpha1".into(),
        api_version: "install.istio.io/v1alpha1".into(),
        kind: "IstioOperator".into(),
        plural: "istiooperators".into(),
    }
}

pub async fn iops(ns: &str) -> Api<DynamicObject> {
    Api::namespaced_with(testenv::client().await.kube().clone(), ns, &iop_resource())
}

pub async fn create_namespace(name: &str) {
    let client = testenv::client().await;
    client
        .apply(
            &[json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})],
            "bosun-tests",
            false,
        )
        .await
        .unwrap();
}

/// A running `bosun operator run`, killed when dropped; its stderr (the log) goes to a file.
pub struct Operator {
    child: Child,
    log: PathBuf,
}

impl Operator {
    pub fn start(watch_namespace: &str, extra: &[&str]) -> Operator {
        Operator::start_with(testenv::kubeconfig(), watch_namespace, extra)
    }

    /// Started with `kubeconfig` (one that impersonates the operator's ServiceAccount, say).
    pub fn start_with(kubeconfig: &Path, watch_namespace: &str, extra: &[&str]) -> Operator {
        Operator::start_env(kubeconfig, watch_namespace, extra, &[])
    }

    /// Started with `kubeconfig` and the environment variables `env` set (bosun's cache,
    /// catalog and mirror, say).
    pub fn start_env(
        kubeconfig: &Path,
        watch_namespace: &str,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> Operator {
        let log = std::env::temp_dir().join(format!("{}.log", testenv::unique_name("bosun-op")));
        let file = std::fs::File::create(&log).unwrap();
        let manifests = manifests();
        let child = Command::new(env!("CARGO_BIN_EXE_bosun"))
            .args([
                "operator",
                "run",
                "--watch-namespace",
                watch_namespace,
                "--manifests",
                &manifests,
                "--metrics-addr",
                "127.0.0.1:0",
            ])
            .args(extra)
            .env("KUBECONFIG", kubeconfig)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(file)
            .spawn()
            .expect("starting bosun operator run");
        Operator { child, log }
    }

    /// Sends SIGTERM (what the kubelet sends) and waits up to `grace` for the process to
    /// exit; its exit status, or `None` if it was still running (then it is killed on drop).
    pub fn terminate(&mut self, grace: Duration) -> Option<std::process::ExitStatus> {
        let sent = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("running kill");
        assert!(sent.success(), "kill -TERM {}", self.child.id());
        let deadline = std::time::Instant::now() + grace;
        while std::time::Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().expect("waiting for the operator") {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        None
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The address the metrics server bound (from the log).
    pub async fn metrics_addr(&self) -> String {
        let log = wait_for("the metrics address in the log", self, || async {
            let log = self.log();
            log.contains("msg=\"serving /metrics").then_some(log)
        })
        .await;
        let line = log
            .lines()
            .find(|l| l.contains("msg=\"serving /metrics"))
            .unwrap();
        line.split("addr=").nth(1).unwrap().trim().to_string()
    }
}

impl Drop for Operator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.log);
    }
}

/// Polls `check` every 200 ms until it gives a value; fails after 60 s with the operator's log.
pub async fn wait_for<T, F, Fut>(what: &str, operator: &Operator, check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let (timeout, every) = (Duration::from_secs(60), Duration::from_millis(200));
    testkit::wait_until(what, timeout, every, check)
        .await
        .unwrap_or_else(|e| panic!("{e}; operator log:\n{}", operator.log()))
}

pub fn iop(name: &str, ns: &str, istio_ns: &str, values_global: Value) -> Value {
    let mut global = json!({"istioNamespace": istio_ns});
    if let (Some(g), Some(extra)) = (global.as_object_mut(), values_global.as_object()) {
        g.extend(extra.clone());
    }
    json!({
        "apiVersion": "install.istio.io/v1alpha1",
        "kind": "IstioOperator",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"profile": "minimal", "values": {"global": global}}
    })
}

pub fn status_of(iop: &DynamicObject) -> Value {
    iop.data.get("status").cloned().unwrap_or(Value::Null)
}

/// `GET path` on the operator's metrics server: (status line, body).
pub fn http_get(addr: &str, path: &str) -> (String, String) {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    (head.lines().next().unwrap().to_string(), body.to_string())
}

/// The value of an unlabelled counter or gauge on the operator's `/metrics`.
pub fn metric(addr: &str, name: &str) -> u64 {
    let (_, metrics) = http_get(addr, "/metrics");
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{name} ")))
        .unwrap_or_else(|| panic!("no {name} in\n{metrics}"))
        .parse()
        .unwrap()
}

/// The condition `type_` of a status (`Null` when there is none).
pub fn condition(status: &Value, type_: &str) -> Value {
    status["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == type_)
        .cloned()
        .unwrap_or(Value::Null)
}

/// The API server's audit log (`scripts/testenv` writes one JSON line per request).
pub fn audit_log() -> PathBuf {
    testenv::kubeconfig().with_file_name("audit.log")
}

/// How many lines the audit log has now.
pub fn audit_len() -> usize {
    std::fs::read_to_string(audit_log())
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

/// The audit events after line `from` (audit events are written asynchronously: give them a
/// moment first).
pub fn audit_events(from: usize) -> Vec<Value> {
    std::fs::read_to_string(audit_log())
        .unwrap_or_default()
        .lines()
        .skip(from)
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The writes among `events` (create, update, patch, delete), as `VERB URI` lines.
pub fn writes(events: &[Value], keep: impl Fn(&Value) -> bool) -> Vec<String> {
    events
        .iter()
        .filter(|e| {
            matches!(
                e["verb"].as_str(),
                Some("create" | "update" | "patch" | "delete")
            )
        })
        .filter(|e| keep(e))
        .map(|e| format!("{} {}", e["verb"], e["requestURI"]))
        .collect()
}

/// Deletes IstioOperator `name` through `api` and waits until it is gone: the operator has
/// uninstalled it and removed its finalizer.
pub async fn delete_and_wait(api: &Api<DynamicObject>, name: &str, operator: &Operator) {
    api.delete(name, &Default::default()).await.unwrap();
    wait_for(&format!("IstioOperator {name} gone"), operator, || async {
        api.get_opt(name).await.unwrap().is_none().then_some(())
    })
    .await;
}
