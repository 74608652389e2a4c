//! Which workloads run a sidecar proxy, which revision injected it, which revision they ask for
//! now, and so which are stale: a pure function of the pods, their ReplicaSets' owners,
//! the namespaces and the [`Inventory`] (tags and installed revisions). The `cluster` crate
//! reads them; `bosun proxy status` prints the rows and `bosun proxy restart` restarts what
//! [`restart_plan`] picks.
//!
//! The rules (the injectors' selectors in the pinned Istio's charts, as
//! [`crate::revisions`] reads them):
//! - **Injected by**: [`pod_revision`] (the pod's `istio.io/rev` annotation, else the
//!   `revision` of its `sidecar.istio.io/status`).
//! - **Wants**: a pod labelled `sidecar.istio.io/inject=false` wants none. Otherwise the
//!   namespace decides when it carries `istio-injection` or `istio.io/rev`
//!   ([`namespace_revision`]: tags resolved); the injectors' object selectors apply only to
//!   namespaces with neither label, so only then does the pod's own `istio.io/rev` label
//!   (through tags) or `sidecar.istio.io/inject=true` (the `default` tag) count.
//! - **Status**: `current` when injected by the revision it wants and that revision is
//!   installed; `stale` when injected by another revision, by one no longer installed, or when
//!   nothing asks for injection any more (a restart would drop the proxy); `not injected` when
//!   it wants a revision but has no proxy. Pods that neither have nor want a proxy are not
//!   listed.
//! - **Workload**: the pod's controller; a ReplicaSet is followed to its own controller (a
//!   Deployment). A pod without a controller is its own workload (kind `Pod`).
//! - **Version**: the tag of the pod's `istio-proxy` image, else the injecting revision's
//!   installed versions.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use vocab::labels::{DEFAULT_REVISION, INJECTION_LABEL, REVISION_LABEL, SIDECAR_INJECT_LABEL};

use crate::revisions::{Inventory, LiveObject, namespace_revision, pod_revision};

/// An object's controller (the ownerReference with `controller: true`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Owner {
    pub kind: String,
    pub name: String,
}

/// What the cluster crate reads of a pod.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProxyPod {
    pub namespace: String,
    pub name: String,
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<Owner>,
    /// The image of its `istio-proxy` container (or init container, for native sidecars).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy_image: Option<String>,
}

/// A ReplicaSet and its controller, to follow a pod up to its Deployment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplicaSetOwner {
    pub namespace: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<Owner>,
}

/// Where a workload's proxies stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProxyState {
    Current,
    Stale,
    NotInjected,
}

impl ProxyState {
    pub fn as_str(self) -> &'static str {
        match self {
            ProxyState::Current => "current",
            ProxyState::Stale => "stale",
            ProxyState::NotInjected => "not injected",
        }
    }
}

/// One row: a workload's pods that share who injected them and what they want (a workload
/// mid-rollout has a row per revision).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WorkloadProxies {
    pub namespace: String,
    pub kind: String,
    pub name: String,
    pub pods: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub injected_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wants: Option<String>,
    /// The label that makes it want `wants` (`namespace istio.io/rev=prod (tag prod)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wants_through: Option<String>,
    pub status: ProxyState,
    /// Why it is stale or not injected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The revision that `name` resolves to: a tag's revision when `name` is a tag, else `name`.
pub fn resolve(inventory: &Inventory, name: &str) -> String {
    inventory
        .tag(name)
        .map(|t| t.revision.clone())
        .unwrap_or_else(|| name.to_string())
}

fn tag_targets(inventory: &Inventory) -> BTreeMap<String, String> {
    inventory
        .tags
        .iter()
        .map(|t| (t.tag.clone(), t.revision.clone()))
        .collect()
}

/// The revision a pod asks for, with what makes it ask (see the module docs).
fn wants(
    pod: &ProxyPod,
    namespace_labels: Option<&BTreeMap<String, String>>,
    tags: &BTreeMap<String, String>,
) -> Option<(String, String)> {
    if pod.labels.get(SIDECAR_INJECT_LABEL).map(String::as_str) == Some("false") {
        return None;
    }
    let empty = BTreeMap::new();
    let ns_labels = namespace_labels.unwrap_or(&empty);
    if ns_labels.contains_key(INJECTION_LABEL) || ns_labels.contains_key(REVISION_LABEL) {
        return namespace_revision(&pod.namespace, ns_labels, tags).map(|(rev, sel)| {
            let through = match sel.tag {
                Some(tag) if tag != rev => format!("namespace {} (tag {tag})", sel.label),
                _ => format!("namespace {}", sel.label),
            };
            (rev, through)
        });
    }
    let via = |label: String, name: &str| {
        let rev = tags.get(name).cloned().unwrap_or_else(|| name.to_string());
        let through = if rev != name {
            format!("pod {label} (tag {name})")
        } else {
            format!("pod {label}")
        };
        (rev, through)
    };
    if let Some(v) = pod.labels.get(REVISION_LABEL).filter(|v| !v.is_empty()) {
        return Some(via(format!("{REVISION_LABEL}={v}"), v));
    }
    if pod.labels.get(SIDECAR_INJECT_LABEL).map(String::as_str) == Some("true") {
        return Some(via(
            format!("{SIDECAR_INJECT_LABEL}=true"),
            DEFAULT_REVISION,
        ));
    }
    None
}

/// The tag of an image reference (`docker.io/istio/proxyv2:1.30.3` → `1.30.3`), without a
/// digest; `None` when untagged (a registry port is not a tag).
pub fn image_tag(image: &str) -> Option<String> {
    let image = image.split('@').next().unwrap_or(image);
    let last = image.rsplit('/').next().unwrap_or(image);
    last.rsplit_once(':')
        .map(|(_, tag)| tag.to_string())
        .filter(|t| !t.is_empty())
}

fn workload_of(pod: &ProxyPod, replica_sets: &BTreeMap<(&str, &str), &Option<Owner>>) -> Owner {
    match &pod.owner {
        None => Owner {
            kind: "Pod".into(),
            name: pod.name.clone(),
        },
        Some(o) if o.kind == "ReplicaSet" => replica_sets
            .get(&(pod.namespace.as_str(), o.name.as_str()))
            .and_then(|owner| (*owner).clone())
            .unwrap_or_else(|| o.clone()),
        Some(o) => o.clone(),
    }
}

/// The rows for `pods` (see the module docs), by namespace, workload, then injecting revision.
/// `namespaces` are the cluster's Namespace objects (others are ignored).
pub fn status(
    inventory: &Inventory,
    namespaces: &[LiveObject],
    pods: &[ProxyPod],
    replica_sets: &[ReplicaSetOwner],
) -> Vec<WorkloadProxies> {
    let tags = tag_targets(inventory);
    let ns_labels: BTreeMap<&str, &BTreeMap<String, String>> = namespaces
        .iter()
        .filter(|n| n.kind == "Namespace")
        .map(|n| (n.name.as_str(), &n.labels))
        .collect();
    let rs: BTreeMap<(&str, &str), &Option<Owner>> = replica_sets
        .iter()
        .map(|r| ((r.namespace.as_str(), r.name.as_str()), &r.owner))
        .collect();
    type Key = (String, String, String, Option<String>, Option<String>);
    let mut rows: BTreeMap<Key, WorkloadProxies> = BTreeMap::new();
    for pod in pods {
        let injected = pod_revision(&LiveObject {
            kind: "Pod".into(),
            namespace: Some(pod.namespace.clone()),
            name: pod.name.clone(),
            labels: pod.labels.clone(),
            annotations: pod.annotations.clone(),
            terminating: false,
        });
        let wanted = wants(pod, ns_labels.get(pod.namespace.as_str()).copied(), &tags);
        if injected.is_none() && wanted.is_none() {
            continue;
        }
        let installed = |rev: &str| inventory.revision(rev).is_some_and(|r| r.installed);
        let (status, reason) = match (&injected, &wanted) {
            (None, Some((want, through))) => (
                ProxyState::NotInjected,
                Some(format!("{through} asks for {want}; the pod has no proxy")),
            ),
            (Some(rev), _) if !installed(rev) => (
                ProxyState::Stale,
                Some(format!("revision {rev} is not installed")),
            ),
            (Some(_), None) => (
                ProxyState::Stale,
                Some("nothing asks for injection any more".to_string()),
            ),
            (Some(rev), Some((want, through))) if rev != want => (
                ProxyState::Stale,
                Some(format!("{through} asks for {want}")),
            ),
            _ => (ProxyState::Current, None),
        };
        let workload = workload_of(pod, &rs);
        let version = pod.proxy_image.as_deref().and_then(image_tag).or_else(|| {
            let rev = injected.as_deref()?;
            let r = inventory.revision(rev)?;
            (!r.versions.is_empty()).then(|| r.versions.join(","))
        });
        let key = (
            pod.namespace.clone(),
            workload.kind.clone(),
            workload.name.clone(),
            injected.clone(),
            wanted.as_ref().map(|w| w.0.clone()),
        );
        let row = rows.entry(key).or_insert_with(|| WorkloadProxies {
            namespace: pod.namespace.clone(),
            kind: workload.kind,
            name: workload.name,
            pods: Vec::new(),
            injected_by: injected.clone(),
            version: None,
            wants: wanted.as_ref().map(|w| w.0.clone()),
            wants_through: wanted.as_ref().map(|w| w.1.clone()),
            status,
            reason,
        });
        row.pods.push(pod.name.clone());
        // Pods of one row may run different images mid-rollout of another change: keep the
        // first one seen with a version.
        if row.version.is_none() {
            row.version = version;
        }
    }
    rows.into_values()
        .map(|mut r| {
            r.pods.sort();
            r
        })
        .collect()
}

/// Which workloads `proxy restart` restarts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// Those with pods injected by this revision (a tag is resolved first).
    Revision(String),
    /// Those with stale pods.
    Stale,
}

/// A workload to restart.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct WorkloadRef {
    pub namespace: String,
    pub kind: String,
    pub name: String,
}

/// What `proxy restart` does: the workloads to restart, grouped by namespace in order, and
/// the selected pods it cannot restart (no Deployment, StatefulSet or DaemonSet owns them).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RestartPlan {
    pub namespaces: Vec<(String, Vec<WorkloadRef>)>,
    pub cannot_restart: Vec<WorkloadRef>,
}

impl RestartPlan {
    pub fn is_empty(&self) -> bool {
        self.namespaces.is_empty()
    }

    pub fn workloads(&self) -> impl Iterator<Item = &WorkloadRef> {
        self.namespaces.iter().flat_map(|(_, w)| w)
    }
}

/// The kinds a rollout restart works on (a pod-template annotation starts a new rollout).
pub const RESTARTABLE_KINDS: &[&str] = &["Deployment", "StatefulSet", "DaemonSet"];

/// The restart plan for `rows` (from [`status`]).
pub fn restart_plan(
    inventory: &Inventory,
    rows: &[WorkloadProxies],
    which: &Selection,
) -> RestartPlan {
    let revision = match which {
        Selection::Revision(r) => Some(resolve(inventory, r)),
        Selection::Stale => None,
    };
    let mut by_ns: BTreeMap<String, Vec<WorkloadRef>> = BTreeMap::new();
    let mut cannot = Vec::new();
    for row in rows {
        let selected = match &revision {
            Some(r) => row.injected_by.as_deref() == Some(r.as_str()),
            None => row.status == ProxyState::Stale,
        };
        if !selected {
            continue;
        }
        let w = WorkloadRef {
            namespace: row.namespace.clone(),
            kind: row.kind.clone(),
            name: row.name.clone(),
        };
        if RESTARTABLE_KINDS.contains(&row.kind.as_str()) {
            by_ns.entry(w.namespace.clone()).or_default().push(w);
        } else {
            cannot.push(w);
        }
    }
    for list in by_ns.values_mut() {
        list.sort();
        list.dedup();
    }
    cannot.sort();
    cannot.dedup();
    RestartPlan {
        namespaces: by_ns.into_iter().collect(),
        cannot_restart: cannot,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::revisions::inventory;

    /// Every case in `tests/cases/assess/proxies`: `objects` (the inventory's [`LiveObject`]s:
    /// control plane, tags, namespaces), `pods` ([`ProxyPod`]s), `replica_sets`, the expected
    /// `rows` exactly as `proxy status -o json` prints them, and optionally `restart:
    /// {REVISION or "--stale": [namespace/Kind/name, …]}` and `cannot_restart` likewise.
    #[test]
    fn proxy_cases() {
        let mut failures = Vec::new();
        for (name, case) in crate::cases::yaml_cases("proxies", 4) {
            let field = |k: &str| case.get(k).cloned().unwrap_or(serde_json::json!([]));
            let objects: Vec<LiveObject> =
                serde_json::from_value(field("objects")).unwrap_or_else(|e| panic!("{name}: {e}"));
            let pods: Vec<ProxyPod> =
                serde_json::from_value(field("pods")).unwrap_or_else(|e| panic!("{name}: {e}"));
            let rs: Vec<ReplicaSetOwner> = serde_json::from_value(field("replica_sets"))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let inv = inventory(&objects);
            let rows = status(&inv, &objects, &pods, &rs);
            let got = serde_json::to_value(&rows).unwrap();
            if got != field("rows") {
                failures.push(format!(
                    "{name}: rows\n got: {}\nwant: {}",
                    serde_json::to_string_pretty(&got).unwrap(),
                    serde_json::to_string_pretty(&field("rows")).unwrap()
                ));
            }
            let show = |w: &WorkloadRef| format!("{}/{}/{}", w.namespace, w.kind, w.name);
            if let Some(restarts) = case.get("restart").and_then(|r| r.as_object()) {
                for (which, want) in restarts {
                    let selection = if which == "--stale" {
                        Selection::Stale
                    } else {
                        Selection::Revision(which.clone())
                    };
                    let plan = restart_plan(&inv, &rows, &selection);
                    let got = serde_json::json!({
                        "workloads": plan.workloads().map(show).collect::<Vec<_>>(),
                        "cannot_restart": plan.cannot_restart.iter().map(show).collect::<Vec<_>>(),
                    });
                    if &got != want {
                        failures.push(format!("{name}: restart {which}: got {got}, want {want}"));
                    }
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    }

    #[test]
    fn image_tags() {
        assert_eq!(
            image_tag("docker.io/istio/proxyv2:1.30.3").as_deref(),
            Some("1.30.3")
        );
        assert_eq!(image_tag("localhost:5000/proxyv2").as_deref(), None);
        assert_eq!(
            image_tag("localhost:5000/proxyv2:1.31.0-distroless@sha256:ab").as_deref(),
            Some("1.31.0-distroless")
        );
        assert_eq!(image_tag("proxyv2").as_deref(), None);
    }
}
