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

    /// Waits until every one of `workloads` has rolled out (the controller saw the new
    /// template and every replica is updated and ready), telling `on_poll` what still waits.
    pub async fn wait_rollouts(
        &self,
        workloads: &[WorkloadRef],
        timeout: Duration,
        on_poll: &(dyn Fn(&[NotReadyWorkload]) + Sync),
    ) -> Result<(), Error> {
        let objects: Vec<ObjectRef> = workloads.iter().map(object_ref).collect();
        self.wait_ready_reporting("the restarted workloads", &objects, timeout, false, on_poll)
            .await
    }
}
