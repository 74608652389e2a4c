//! Why a workload is not ready, in the words of what runs it: its pods' failing conditions and
//! container states (`PodScheduled=False: Unschedulable: 0/3 nodes are available…`,
//! `CrashLoopBackOff`), and the newest warning event about it, its ReplicaSets or its pods
//! (`FailedCreate`, `FailedScheduling`, `BackOff`). A workload's own status only says how many
//! replicas are short; this is what people need to fix it.
//!
//! [`evidence`] is pure (live JSON in, text out); [`Client::workload_evidence`] reads the pods
//! and events (two requests), which the readiness wait does only once a workload has been
//! waited for a while, and when the wait gives up.

use kube::api::{Api, ListParams};
use kube::core::DynamicObject;
use serde_json::Value;
use vocab::ObjectRef;

use crate::Client;

fn text<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

/// An integer field (0 when absent); a whole float counts too (YAML read as JSON gives those).
fn int(v: &Value, key: &str) -> i64 {
    v.get(key)
        .and_then(|n| n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)))
        .unwrap_or(0)
}

/// `key=value,key in (a,b),!key`: the label selector of a workload's `spec.selector`, in the
/// API server's query syntax; `None` when it has none (nothing to list by).
pub(crate) fn selector_query(selector: &Value) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(labels) = selector.get("matchLabels").and_then(Value::as_object) {
        for (k, v) in labels {
            parts.push(format!("{k}={}", v.as_str().unwrap_or("")));
        }
    }
    for expr in selector
        .get("matchExpressions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let key = text(expr, "/key");
        let values: Vec<&str> = expr
            .get("values")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        parts.push(match text(expr, "/operator") {
            "In" => format!("{key} in ({})", values.join(",")),
            "NotIn" => format!("{key} notin ({})", values.join(",")),
            "Exists" => key.to_string(),
            "DoesNotExist" => format!("!{key}"),
            _ => return None,
        });
    }
    (!parts.is_empty()).then(|| parts.join(","))
}

/// What is wrong with one pod, or `None` when it is ready.
fn pod_problem(pod: &Value) -> Option<String> {
    let conditions: Vec<&Value> = pod
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .map(|c| c.iter().collect())
        .unwrap_or_default();
    let ready = conditions
        .iter()
        .any(|c| text(c, "/type") == "Ready" && text(c, "/status") == "True");
    if ready {
        return None;
    }
    let mut why = Vec::new();
    // The container states say the most (a crash loop, an image that cannot be pulled).
    for status in ["initContainerStatuses", "containerStatuses"] {
        for c in pod
            .pointer(&format!("/status/{status}"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let name = text(c, "/name");
            // A container that crashes is seen between its runs, waiting in CrashLoopBackOff
            // or just started again: why it stopped is only in its last state.
            let last = c.pointer("/lastState/terminated").map(termination);
            if let Some(waiting) = c.pointer("/state/waiting") {
                let mut line = format!("container {name} waiting: {}", text(waiting, "/reason"));
                let message = text(waiting, "/message");
                if !message.is_empty() {
                    line.push_str(&format!(": {message}"));
                }
                if let Some(last) = &last {
                    line.push_str(&format!(", last terminated: {last}"));
                }
                why.push(line);
            } else if let Some(done) = c.pointer("/state/terminated") {
                // An init container that finished did its job.
                if status == "initContainerStatuses" && int(done, "exitCode") == 0 {
                    continue;
                }
                why.push(format!(
                    "container {name} terminated: {}",
                    termination(done)
                ));
            } else if let Some(last) = last.filter(|_| c.get("ready") != Some(&Value::Bool(true))) {
                let restarts = int(c, "restartCount");
                why.push(format!(
                    "container {name} running, not ready, restarted {restarts} times, last terminated: {last}"
                ));
            }
        }
    }
    // Then the first condition that failed, in the order a pod goes through them.
    if why.is_empty() {
        for kind in ["PodScheduled", "Initialized", "ContainersReady", "Ready"] {
            if let Some(c) = conditions
                .iter()
                .find(|c| text(c, "/type") == kind && text(c, "/status") == "False")
            {
                let mut line = format!("{kind}=False");
                for part in [text(c, "/reason"), text(c, "/message")] {
                    if !part.is_empty() {
                        line.push_str(&format!(": {part}"));
                    }
                }
                why.push(line);
                break;
            }
        }
    }
    if why.is_empty() {
        let phase = match text(pod, "/status/phase") {
            "" => "Pending",
            phase => phase,
        };
        why.push(format!("{phase}, not ready"));
    }
    Some(format!(
        "pod {}: {}",
        text(pod, "/metadata/name"),
        why.join("; ")
    ))
}

/// How a container ended: `Error (exit code 255)`, with its termination message (its log's
/// tail under `terminationMessagePolicy: FallbackToLogsOnError`) on one line, shortened.
fn termination(done: &Value) -> String {
    let mut out = format!(
        "{} (exit code {})",
        match text(done, "/reason") {
            "" => "terminated",
            reason => reason,
        },
        int(done, "exitCode")
    );
    let message = text(done, "/message")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if !message.is_empty() {
        const MAX: usize = 300;
        let mut end = message.len().min(MAX);
        while !message.is_char_boundary(end) {
            end -= 1;
        }
        out.push_str(": ");
        out.push_str(&message[..end]);
        if end < message.len() {
            out.push('…');
        }
    }
    out
}

/// Whether a warning event says nothing about why a pod is not ready, so another one should
/// be shown instead:
/// - the kubelet's `Error: ErrImagePull`, `Error: ImagePullBackOff`, `Error:
///   CreateContainerError`…: a bare reason, which the container's state already gives (its
///   informative twin, `Failed to pull image "…": …`, is written at the same moment);
/// - `MissingClusterDNS` and `DNSConfigForming`: the kubelet's DNS settings, repeated at every
///   pod sync and so often the newest warning, yet never what keeps a pod from being ready
///   (the kubelet falls back to the node's DNS settings).
fn says_nothing(e: &Value) -> bool {
    let reason_only = text(e, "/message")
        .strip_prefix("Error: ")
        .is_some_and(|rest| !rest.is_empty() && rest.chars().all(|c| c.is_ascii_alphanumeric()));
    reason_only || matches!(text(e, "/reason"), "MissingClusterDNS" | "DNSConfigForming")
}

/// When an event last happened (RFC 3339 strings compare in time order).
fn event_time(e: &Value) -> &str {
    for p in [
        "/series/lastObservedTime",
        "/lastTimestamp",
        "/eventTime",
        "/metadata/creationTimestamp",
    ] {
        let t = text(e, p);
        if !t.is_empty() {
            return t;
        }
    }
    ""
}

/// Whether event `e` is about workload `kind`/`name`, one of `pods` (its pods, by name), or
/// one of its ReplicaSets (named `<name>-<hash>`, the hash without dashes).
fn concerns(e: &Value, kind: &str, name: &str, pods: &[&str]) -> bool {
    let involved_kind = text(e, "/involvedObject/kind");
    let involved = text(e, "/involvedObject/name");
    match involved_kind {
        k if k == kind => involved == name,
        "Pod" => pods.contains(&involved),
        "ReplicaSet" => involved
            .strip_prefix(name)
            .and_then(|rest| rest.strip_prefix('-'))
            .is_some_and(|hash| !hash.is_empty() && !hash.contains('-')),
        _ => false,
    }
}

/// The evidence about workload `kind`/`name` in its pods (live JSON) and its namespace's
/// warning events: the first pod that is not ready and why, and the newest warning about it.
/// `None` when there is nothing to add.
pub(crate) fn evidence(kind: &str, name: &str, pods: &[Value], events: &[Value]) -> Option<String> {
    let mut parts = Vec::new();
    if pods.is_empty() {
        parts.push("no pods".to_string());
    } else if let Some(problem) = pods.iter().find_map(pod_problem) {
        parts.push(problem);
    }
    let pod_names: Vec<&str> = pods.iter().map(|p| text(p, "/metadata/name")).collect();
    if let Some(e) = events
        .iter()
        .filter(|e| text(e, "/type") == "Warning" && concerns(e, kind, name, &pod_names))
        .filter(|e| !says_nothing(e))
        .max_by(|a, b| event_time(a).cmp(event_time(b)))
    {
        parts.push(format!(
            "last warning: {} on {} {}: {}",
            text(e, "/reason"),
            text(e, "/involvedObject/kind"),
            text(e, "/involvedObject/name"),
            text(e, "/message")
        ));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

impl Client {
    /// [`evidence`] for a workload whose live JSON is `live`: lists its pods (by its selector)
    /// and its namespace's warning events. Failures to read them are no error (they only add
    /// detail): `None` then.
    pub(crate) async fn workload_evidence(
        &self,
        object: &ObjectRef,
        live: &Value,
    ) -> Option<String> {
        let ns = object.namespace.as_deref()?;
        let pods_api: Api<DynamicObject> = Api::namespaced_with(
            self.kube.clone(),
            ns,
            &kube::core::ApiResource::erase::<k8s_openapi::api::core::v1::Pod>(&()),
        );
        let events_api: Api<DynamicObject> = Api::namespaced_with(
            self.kube.clone(),
            ns,
            &kube::core::ApiResource::erase::<k8s_openapi::api::core::v1::Event>(&()),
        );
        let selector = live.pointer("/spec/selector").and_then(selector_query);
        let pods = match &selector {
            Some(s) => pods_api
                .list(&ListParams::default().labels(s))
                .await
                .ok()?
                .items
                .iter()
                .filter_map(|p| serde_json::to_value(p).ok())
                .collect(),
            None => Vec::new(),
        };
        let events: Vec<Value> = events_api
            .list(&ListParams::default().fields("type=Warning"))
            .await
            .ok()?
            .items
            .iter()
            .filter_map(|e| serde_json::to_value(e).ok())
            .collect();
        evidence(&object.kind, &object.name, &pods, &events)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every case in `tests/cases/cluster/why`: a workload's `kind` and `name`, its `pods` and
    /// its namespace's warning `events` as the API server returns them (most taken from the
    /// living cluster), and the evidence `want`ed (`null`: none).
    #[test]
    fn evidence_cases() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/cases/cluster/why");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
            .collect();
        files.sort();
        assert!(files.len() >= 6, "too few cases in {}", dir.display());
        let mut failures = Vec::new();
        for file in &files {
            let name = file.file_name().unwrap().to_string_lossy().to_string();
            let text = std::fs::read_to_string(file).unwrap();
            let case = goyaml::from_yaml_json(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            let list = |key: &str| {
                case.get(key)
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default()
            };
            let got = evidence(
                case["kind"].as_str().expect("kind"),
                case["name"].as_str().expect("name"),
                &list("pods"),
                &list("events"),
            );
            let want = case.get("want").and_then(Value::as_str).map(str::to_string);
            if got != want {
                failures.push(format!("{name}:\n   got {got:?}\n  want {want:?}"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn selectors_in_query_syntax() {
        let s = json!({"matchLabels": {"app": "istiod", "istio.io/rev": "default"},
                       "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]},
                                            {"key": "x", "operator": "DoesNotExist"}]});
        assert_eq!(
            selector_query(&s).unwrap(),
            "app=istiod,istio.io/rev=default,tier in (a,b),!x"
        );
        assert_eq!(selector_query(&json!({})), None);
    }

    #[test]
    fn unschedulable_pod_and_the_newest_warning() {
        let pods = [
            json!({"metadata": {"name": "istiod-5d-x"}, "status": {"phase": "Pending",
            "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                            "message": "0/3 nodes are available: 3 Insufficient cpu."}]}}),
        ];
        let events = [
            json!({"type": "Warning", "reason": "FailedScheduling", "message": "old",
                   "lastTimestamp": "2026-12-01T10:00:00Z",
                   "involvedObject": {"kind": "Pod", "name": "istiod-5d-x"}}),
            json!({"type": "Warning", "reason": "FailedScheduling", "message": "0/3 nodes are available",
                   "lastTimestamp": "2026-12-01T10:05:00Z",
                   "involvedObject": {"kind": "Pod", "name": "istiod-5d-x"}}),
            json!({"type": "Warning", "reason": "BackOff", "message": "another workload",
                   "lastTimestamp": "2026-12-01T11:00:00Z",
                   "involvedObject": {"kind": "Pod", "name": "istiod-other-5d-x2"}}),
        ];
        // The third is about another workload's pod (`istiod-other`), though newer.
        let got = evidence("Deployment", "istiod", &pods, &events).unwrap();
        assert_eq!(
            got,
            "pod istiod-5d-x: PodScheduled=False: Unschedulable: 0/3 nodes are available: 3 Insufficient cpu.; last warning: FailedScheduling on Pod istiod-5d-x: 0/3 nodes are available"
        );
    }

    #[test]
    fn crash_looping_container_and_no_pods() {
        let pods = [
            json!({"metadata": {"name": "ztunnel-abc"}, "status": {"phase": "Running",
            "conditions": [{"type": "Ready", "status": "False", "reason": "ContainersNotReady"}],
            "containerStatuses": [{"name": "istio-proxy", "state": {"waiting": {"reason": "CrashLoopBackOff",
                "message": "back-off 5m0s restarting failed container"}}}]}}),
        ];
        assert_eq!(
            evidence("DaemonSet", "ztunnel", &pods, &[]).unwrap(),
            "pod ztunnel-abc: container istio-proxy waiting: CrashLoopBackOff: back-off 5m0s restarting failed container"
        );
        let quota = [json!({"type": "Warning", "reason": "FailedCreate",
            "message": "pods \"istiod-5d-\" is forbidden: exceeded quota",
            "involvedObject": {"kind": "ReplicaSet", "name": "istiod-5d"}})];
        assert_eq!(
            evidence("Deployment", "istiod", &[], &quota).unwrap(),
            "no pods; last warning: FailedCreate on ReplicaSet istiod-5d: pods \"istiod-5d-\" is forbidden: exceeded quota"
        );
        let ready = [
            json!({"metadata": {"name": "p"}, "status": {"conditions": [{"type": "Ready", "status": "True"}]}}),
        ];
        assert_eq!(evidence("Deployment", "p", &ready, &[]), None);
    }
}
