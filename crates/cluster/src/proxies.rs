//! The live side of `proxy status` and `proxy restart`: reads the pods (with their controller
//! and `istio-proxy` image), the ReplicaSets' controllers and what `revision list` reads
//! (revisions, tags, namespaces), for `assess::proxies` to judge; restarts a workload as
//! `kubectl rollout restart` does and waits for its rollout.

use std::time::Duration;

use assess::proxies::{Owner, ProxyPod, ReplicaSetOwner, WorkloadProxies, WorkloadRef};
use assess::revisions::Inventory;
use k8s_openapi::api::apps::v1::ReplicaSet;
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::{Api, DynamicObject, ListParams, Patch, PatchParams};
use kube::core::{ApiResource, GroupVersionKind};
use vocab::ObjectRef;

use crate::ready::NotReadyWorkload;
use crate::{Client, Error, ListTarget};

/// The pod-template annotation `kubectl rollout restart` sets to the time of the restart: a
/// changed template makes the controller roll every pod, and the injector injects the new ones.
pub const RESTARTED_AT_ANNOTATION: &str = "kubectl.kubernetes.io/restartedAt";

/// What `proxy status` judges: the revisions (all namespaces, for tags and what is installed),
/// and the rows for the pods of `namespace` (all when `None`).
#[derive(Debug, Clone)]
pub struct ProxyStatus {
    pub inventory: Inventory,
    pub rows: Vec<WorkloadProxies>,
}

fn controller(refs: Option<Vec<OwnerReference>>) -> Option<Owner> {
    refs?
        .into_iter()
        .find(|r| r.controller == Some(true))
        .map(|r| Owner {
            kind: r.kind,
            name: r.name,
        })
}

fn list_error(api_version: &str, kind: &str, source: kube::Error) -> Error {
    Error::List {
        target: Box::new(ListTarget {
            api_version: api_version.into(),
            kind: kind.into(),
            selector: String::new(),
        }),
        source,
    }
}

/// The workload kinds a restart patches, with their resource plurals.
fn restart_resource(kind: &str) -> Option<ApiResource> {
    let plural = match kind {
        "Deployment" => "deployments",
        "StatefulSet" => "statefulsets",
        "DaemonSet" => "daemonsets",
        _ => return None,
    };
    Some(ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("apps", "v1", kind),
        plural,
    ))
}

fn object_ref(w: &WorkloadRef) -> ObjectRef {
    ObjectRef {
        api_version: "apps/v1".into(),
        kind: w.kind.clone(),
        namespace: Some(w.namespace.clone()),
        name: w.name.clone(),
    }
}

impl Client {
    /// Reads everything `proxy status` shows for `namespace` (all namespaces when `None`) and
    /// judges it with `assess::proxies::status`. Pods that have ended run no proxy and are
    /// skipped, as `revision list` skips them.
    pub async fn proxy_status(&self, namespace: Option<&str>) -> Result<ProxyStatus, Error> {
        let read = self.revision_objects().await;
        if let Some((_, e)) = read.failed.into_iter().next() {
            return Err(e);
        }
        let inventory = assess::revisions::inventory(&read.objects);
        let (pods, replica_sets): (Api<Pod>, Api<ReplicaSet>) = match namespace {
            Some(ns) => (
                Api::namespaced(self.kube.clone(), ns),
                Api::namespaced(self.kube.clone(), ns),
            ),
            None => (Api::all(self.kube.clone()), Api::all(self.kube.clone())),
        };
        let running = ListParams::default().fields("status.phase!=Succeeded,status.phase!=Failed");
        let pods = pods
            .list(&running)
            .await
            .map_err(|e| list_error("v1", "Pod", e))?;
        let replica_sets = replica_sets
            .list_metadata(&ListParams::default())
            .await
            .map_err(|e| list_error("apps/v1", "ReplicaSet", e))?;
        let pods: Vec<ProxyPod> = pods
            .items
            .into_iter()
            .filter(|p| p.metadata.deletion_timestamp.is_none())
            .map(|p| {
                let spec = p.spec.unwrap_or_default();
                // Native sidecars (Kubernetes 1.29+) put istio-proxy among the init containers.
                let proxy_image = spec
                    .containers
                    .iter()
                    .chain(spec.init_containers.iter().flatten())
                    .find(|c| c.name == "istio-proxy")
                    .and_then(|c| c.image.clone());
                ProxyPod {
                    namespace: p.metadata.namespace.unwrap_or_default(),
                    name: p.metadata.name.unwrap_or_default(),
                    labels: p.metadata.labels.unwrap_or_default(),
                    annotations: p.metadata.annotations.unwrap_or_default(),
                    owner: controller(p.metadata.owner_references),
                    proxy_image,
                }
            })
            .collect();
        let replica_sets: Vec<ReplicaSetOwner> = replica_sets
            .items
            .into_iter()
            .map(|r| ReplicaSetOwner {
                namespace: r.metadata.namespace.unwrap_or_default(),
                name: r.metadata.name.unwrap_or_default(),
                owner: controller(r.metadata.owner_references),
            })
            .collect();
        let rows = assess::proxies::status(&inventory, &read.objects, &pods, &replica_sets);
        Ok(ProxyStatus { inventory, rows })
    }

    /// Restarts `workload` as `kubectl rollout restart` does: sets the pod template's
    /// [`RESTARTED_AT_ANNOTATION`] to now (RFC 3339, whole seconds, as kubectl writes it).
    pub async fn restart_workload(&self, workload: &WorkloadRef) -> Result<(), Error> {
        let at = k8s_openapi::jiff::Timestamp::now()
            .round(k8s_openapi::jiff::Unit::Second)
            .map(|t| t.to_string())
            .unwrap_or_else(|_| k8s_openapi::jiff::Timestamp::now().to_string());
        let object = object_ref(workload);
        let Some(ar) = restart_resource(&workload.kind) else {
            return Err(Error::NotRestartable {
                object: Box::new(object),
            });
        };
        let api: Api<DynamicObject> =
            Api::namespaced_with(self.kube.clone(), &workload.namespace, &ar);
        let patch = serde_json::json!({
            "spec": {"template": {"metadata": {"annotations": {RESTARTED_AT_ANNOTATION: at}}}}
        });
        api.patch(
            &workload.name,
            &PatchParams::default(),
            &Patch::Merge(&patch),
        )
        .await
        .map_err(|source| Error::Api {
            object: Box::new(object),
            action: "patching its pod template to restart it",
            source,
        })?;
        Ok(())
    }

    /// Waits until every one of `workloads` has rolled out, telling `on_poll` what still
    /// waits: first until each is ready ([`Client::wait_ready_reporting`], whose timeout error
    /// names the pods' and events' evidence), then until no pod of the old template is left
    /// ([`rollout_left`]: readiness alone counts old ready pods among the ready ones).
    pub async fn wait_rollouts(
        &self,
        workloads: &[WorkloadRef],
        timeout: Duration,
        on_poll: &(dyn Fn(&[NotReadyWorkload]) + Sync),
    ) -> Result<(), Error> {
        let start = std::time::Instant::now();
        let objects: Vec<ObjectRef> = workloads.iter().map(object_ref).collect();
        self.wait_ready_reporting("the restarted workloads", &objects, timeout, false, on_poll)
            .await?;
        loop {
            let mut left = Vec::new();
            for (w, object) in workloads.iter().zip(&objects) {
                let Some(ar) = restart_resource(&w.kind) else {
                    continue;
                };
                let api: Api<DynamicObject> =
                    Api::namespaced_with(self.kube.clone(), &w.namespace, &ar);
                let live = api.get(&w.name).await.map_err(|source| Error::Api {
                    object: Box::new(object.clone()),
                    action: "reading it while waiting for its rollout",
                    source,
                })?;
                let json = serde_json::to_value(&live).unwrap_or_default();
                if let Some(why) = rollout_left(&w.kind, &json) {
                    left.push((object.clone(), why));
                }
            }
            if left.is_empty() {
                return Ok(());
            }
            on_poll(&left);
            if start.elapsed() >= timeout {
                return Err(Error::NotReady {
                    what: "the restarted workloads".to_string(),
                    waited: start.elapsed(),
                    objects: left,
                });
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
}

fn int(obj: &serde_json::Value, pointer: &str) -> i64 {
    obj.pointer(pointer)
        .and_then(serde_json::Value::as_i64)
        .unwrap_or(0)
}

/// What a ready workload still has of its old template, as `kubectl rollout status` judges
/// it; `None` when the rollout is complete. A Deployment: pods beyond the updated ones (old
/// pods still running or terminating); a StatefulSet: `currentRevision` not yet
/// `updateRevision`; a DaemonSet: pods not updated or not available.
pub fn rollout_left(kind: &str, obj: &serde_json::Value) -> Option<String> {
    let generation = int(obj, "/metadata/generation");
    let observed = int(obj, "/status/observedGeneration");
    if observed < generation {
        return Some(format!(
            "observedGeneration {observed} < generation {generation}"
        ));
    }
    match kind {
        "Deployment" => {
            let (all, updated) = (
                int(obj, "/status/replicas"),
                int(obj, "/status/updatedReplicas"),
            );
            (all > updated).then(|| format!("{} old replica(s) pending termination", all - updated))
        }
        "StatefulSet" => {
            let current = obj.pointer("/status/currentRevision");
            let update = obj.pointer("/status/updateRevision");
            (update.is_some() && current != update).then(|| {
                format!(
                    "pods of revision {} not all replaced by {}",
                    current.and_then(|v| v.as_str()).unwrap_or("?"),
                    update.and_then(|v| v.as_str()).unwrap_or("?")
                )
            })
        }
        "DaemonSet" => {
            let desired = int(obj, "/status/desiredNumberScheduled");
            let updated = int(obj, "/status/updatedNumberScheduled");
            let available = int(obj, "/status/numberAvailable");
            (updated < desired || available < desired)
                .then(|| format!("{updated} of {desired} pods updated, {available} available"))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_rollout_is_done_when_no_old_pod_is_left() {
        let d =
            |status: serde_json::Value| json!({"metadata": {"generation": 2}, "status": status});
        assert_eq!(
            rollout_left("Deployment", &d(json!({"observedGeneration": 1}))).as_deref(),
            Some("observedGeneration 1 < generation 2")
        );
        // Two ready pods, one of them old: ready, but not rolled out.
        let mid = json!({"observedGeneration": 2, "replicas": 3, "updatedReplicas": 2, "readyReplicas": 2});
        assert_eq!(
            rollout_left("Deployment", &d(mid)).as_deref(),
            Some("1 old replica(s) pending termination")
        );
        let done = json!({"observedGeneration": 2, "replicas": 2, "updatedReplicas": 2});
        assert_eq!(rollout_left("Deployment", &d(done)), None);
        let sts =
            json!({"observedGeneration": 2, "currentRevision": "db-1", "updateRevision": "db-2"});
        assert_eq!(
            rollout_left("StatefulSet", &d(sts)).as_deref(),
            Some("pods of revision db-1 not all replaced by db-2")
        );
        let sts =
            json!({"observedGeneration": 2, "currentRevision": "db-2", "updateRevision": "db-2"});
        assert_eq!(rollout_left("StatefulSet", &d(sts)), None);
        let ds = json!({"observedGeneration": 2, "desiredNumberScheduled": 2, "updatedNumberScheduled": 2, "numberAvailable": 1});
        assert_eq!(
            rollout_left("DaemonSet", &d(ds)).as_deref(),
            Some("2 of 2 pods updated, 1 available")
        );
    }
}
