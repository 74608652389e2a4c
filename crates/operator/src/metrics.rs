//! The operator's metrics (Prometheus text format) and its HTTP endpoints: `/metrics`,
//! `/healthz` (the process serves requests) and `/readyz` (the IstioOperator kind is served
//! and the controller's IstioOperator watch is in sync: not ready while it cannot list or
//! watch). A few counters and one histogram do not warrant an HTTP
//! framework, so the server is a small HTTP/1.1 responder on tokio (one request per connection).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// The reconcile duration histogram's upper bounds, in seconds.
const BUCKETS: [f64; 10] = [0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0];

#[derive(Default)]
struct Counters {
    /// By result: `applied`, `invalid`, `error`, `uninstalled`.
    reconciles: BTreeMap<&'static str, u64>,
    duration_buckets: [u64; BUCKETS.len()],
    duration_count: u64,
    duration_sum: f64,
    /// By (kind, outcome).
    applied: BTreeMap<(String, String), u64>,
    /// By kind.
    pruned: BTreeMap<String, u64>,
    apply_skipped: u64,
}

/// Shared by the controller (which counts) and the HTTP server (which prints).
#[derive(Default)]
pub struct Metrics {
    counters: Mutex<Counters>,
    ready: AtomicBool,
    leader: AtomicBool,
}

impl Metrics {
    pub fn reconciled(&self, result: &'static str, took: Duration) {
        let mut c = self.counters.lock().expect("metrics");
        *c.reconciles.entry(result).or_default() += 1;
        let secs = took.as_secs_f64();
        for (i, bound) in BUCKETS.iter().enumerate() {
            if secs <= *bound {
                c.duration_buckets[i] += 1;
            }
        }
        c.duration_count += 1;
        c.duration_sum += secs;
    }

    pub fn applied(&self, kind: &str, outcome: cluster::Outcome) {
        let mut c = self.counters.lock().expect("metrics");
        *c.applied
            .entry((kind.to_string(), outcome.to_string()))
            .or_default() += 1;
    }

    pub fn pruned(&self, kind: &str) {
        let mut c = self.counters.lock().expect("metrics");
        *c.pruned.entry(kind.to_string()).or_default() += 1;
    }

    /// A reconcile found every object as rendered and sent no writes.
    pub fn apply_skipped(&self) {
        self.counters.lock().expect("metrics").apply_skipped += 1;
    }

    pub fn set_ready(&self, ready: bool) {
        self.ready.store(ready, Ordering::Relaxed);
    }

    pub fn is_ready(&self) -> bool {
        self.ready.load(Ordering::Relaxed)
    }

    pub fn set_leader(&self, leader: bool) {
        self.leader.store(leader, Ordering::Relaxed);
    }

    /// The Prometheus text exposition of every metric.
    pub fn render(&self) -> String {
        let c = self.counters.lock().expect("metrics");
        let mut out = String::new();
        out.push_str("# HELP bosun_operator_reconciles_total IstioOperator reconciles, by result.\n# TYPE bosun_operator_reconciles_total counter\n");
        for result in ["applied", "invalid", "error", "uninstalled"] {
            let n = c.reconciles.get(result).copied().unwrap_or(0);
            let _ = writeln!(
                out,
                "bosun_operator_reconciles_total{{result=\"{result}\"}} {n}"
            );
        }
        out.push_str("# HELP bosun_operator_reconcile_errors_total Reconciles that failed and were retried with backoff.\n# TYPE bosun_operator_reconcile_errors_total counter\n");
        let _ = writeln!(
            out,
            "bosun_operator_reconcile_errors_total {}",
            c.reconciles.get("error").copied().unwrap_or(0)
        );
        out.push_str("# HELP bosun_operator_reconcile_duration_seconds Time one reconcile took.\n# TYPE bosun_operator_reconcile_duration_seconds histogram\n");
        for (bound, n) in BUCKETS.iter().zip(c.duration_buckets) {
            let _ = writeln!(
                out,
                "bosun_operator_reconcile_duration_seconds_bucket{{le=\"{bound}\"}} {n}"
            );
        }
        let _ = writeln!(
            out,
            "bosun_operator_reconcile_duration_seconds_bucket{{le=\"+Inf\"}} {}",
            c.duration_count
        );
        let _ = writeln!(
            out,
            "bosun_operator_reconcile_duration_seconds_sum {}",
            c.duration_sum
        );
        let _ = writeln!(
            out,
            "bosun_operator_reconcile_duration_seconds_count {}",
            c.duration_count
        );
        out.push_str("# HELP bosun_operator_objects_applied_total Objects server-side applied, by kind and outcome.\n# TYPE bosun_operator_objects_applied_total counter\n");
        for ((kind, outcome), n) in &c.applied {
            let _ = writeln!(
                out,
                "bosun_operator_objects_applied_total{{kind=\"{kind}\",outcome=\"{outcome}\"}} {n}"
            );
        }
        out.push_str("# HELP bosun_operator_objects_pruned_total Objects deleted by prune or uninstall, by kind.\n# TYPE bosun_operator_objects_pruned_total counter\n");
        for (kind, n) in &c.pruned {
            let _ = writeln!(
                out,
                "bosun_operator_objects_pruned_total{{kind=\"{kind}\"}} {n}"
            );
        }
        out.push_str("# HELP bosun_operator_apply_skipped_total Reconciles that found every object as rendered and sent no writes.\n# TYPE bosun_operator_apply_skipped_total counter\n");
        let _ = writeln!(
            out,
            "bosun_operator_apply_skipped_total {}",
            c.apply_skipped
        );
        out.push_str("# HELP bosun_operator_leader Whether this replica holds the leader Lease.\n# TYPE bosun_operator_leader gauge\n");
        let _ = writeln!(
            out,
            "bosun_operator_leader {}",
            u8::from(self.leader.load(Ordering::Relaxed))
        );
        out
    }
}

/// The response to one request line (`GET /metrics HTTP/1.1`): status line and body.
fn respond(metrics: &Metrics, request_line: &str) -> (&'static str, &'static str, String) {
    let mut parts = request_line.split_whitespace();
    let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let path = path.split('?').next().unwrap_or("");
    const TEXT: &str = "text/plain; charset=utf-8";
    if method != "GET" && method != "HEAD" {
        return ("405 Method Not Allowed", TEXT, "only GET\n".into());
    }
    match path {
        "/metrics" => (
            "200 OK",
            "text/plain; version=0.0.4; charset=utf-8",
            metrics.render(),
        ),
        "/healthz" => ("200 OK", TEXT, "ok\n".into()),
        "/readyz" if metrics.is_ready() => ("200 OK", TEXT, "ok\n".into()),
        "/readyz" => (
            "503 Service Unavailable",
            TEXT,
            "not ready: the IstioOperator CRD is not served yet, or IstioOperators cannot be listed or watched (see the log)\n".into(),
        ),
        _ => ("404 Not Found", TEXT, "not found\n".into()),
    }
}

/// Binds `addr` now (so a taken port fails startup) and serves the endpoints until the
/// process ends. Returns the bound address (port 0 picks a free one).
pub async fn serve(addr: SocketAddr, metrics: Arc<Metrics>) -> std::io::Result<SocketAddr> {
    let listener = TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                continue;
            };
            let metrics = metrics.clone();
            tokio::spawn(async move {
                let mut buf = Vec::with_capacity(1024);
                let mut chunk = [0u8; 1024];
                // Read the head (at most 16 KiB, 5 s); the body of a GET is ignored.
                let read = tokio::time::timeout(Duration::from_secs(5), async {
                    while !buf.windows(4).any(|w| w == b"\r\n\r\n") && buf.len() < 16 * 1024 {
                        match stream.read(&mut chunk).await {
                            Ok(0) | Err(_) => break,
                            Ok(n) => buf.extend_from_slice(&chunk[..n]),
                        }
                    }
                })
                .await;
                if read.is_err() {
                    return;
                }
                let head = String::from_utf8_lossy(&buf);
                let line = head.lines().next().unwrap_or("");
                let (status, content_type, body) = respond(&metrics, line);
                let body = if line.starts_with("HEAD ") {
                    String::new()
                } else {
                    body
                };
                let response = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    Ok(bound)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_counters_and_histogram() {
        let m = Metrics::default();
        m.reconciled("applied", Duration::from_millis(300));
        m.reconciled("error", Duration::from_secs(3));
        m.applied("Deployment", cluster::Outcome::Created);
        m.applied("Deployment", cluster::Outcome::Created);
        m.pruned("ConfigMap");
        m.apply_skipped();
        let text = m.render();
        for line in [
            "bosun_operator_reconciles_total{result=\"applied\"} 1",
            "bosun_operator_reconciles_total{result=\"error\"} 1",
            "bosun_operator_reconcile_errors_total 1",
            "bosun_operator_reconcile_duration_seconds_bucket{le=\"0.25\"} 0",
            "bosun_operator_reconcile_duration_seconds_bucket{le=\"0.5\"} 1",
            "bosun_operator_reconcile_duration_seconds_bucket{le=\"5\"} 2",
            "bosun_operator_reconcile_duration_seconds_bucket{le=\"+Inf\"} 2",
            "bosun_operator_reconcile_duration_seconds_count 2",
            "bosun_operator_objects_applied_total{kind=\"Deployment\",outcome=\"created\"} 2",
            "bosun_operator_objects_pruned_total{kind=\"ConfigMap\"} 1",
            "bosun_operator_apply_skipped_total 1",
            "bosun_operator_leader 0",
        ] {
            assert!(text.lines().any(|l| l == line), "{line} missing in\n{text}");
        }
    }

    #[test]
    fn routes() {
        let m = Metrics::default();
        assert_eq!(respond(&m, "GET /healthz HTTP/1.1").0, "200 OK");
        assert_eq!(
            respond(&m, "GET /readyz HTTP/1.1").0,
            "503 Service Unavailable"
        );
        m.set_ready(true);
        assert_eq!(respond(&m, "GET /readyz?verbose HTTP/1.1").0, "200 OK");
        assert_eq!(respond(&m, "GET /nope HTTP/1.1").0, "404 Not Found");
        assert_eq!(
            respond(&m, "POST /metrics HTTP/1.1").0,
            "405 Method Not Allowed"
        );
        assert!(respond(&m, "GET /metrics HTTP/1.1").2.contains("# TYPE"));
    }
}
