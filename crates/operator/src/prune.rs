//! Deleting what an IstioOperator owns: after each apply (prune: objects a spec change no longer
//! renders) and in the finalizer (uninstall: everything it owns).
//!
//! Both go through [`remove_owned`], which leaves the listing and the deleting to `cluster`
//! (`Client::uninstall_candidates` with the owner's labels, then `Client::delete_owned`: the
//! kinds istioctl prunes and the EndpointSlices the charts render, a safe deletion order, Background propagation, deletes conditional on
//! the uid listed). CustomResourceDefinitions and Namespaces are never selected. Objects are
//! found by the labels the operator sets ([`Owner::labels`]), so an object applied by someone
//! else, or by another IstioOperator, is never touched. [`delete_objects`] removes the
//! operator's own install (`operator remove`).

use kube::api::{Api, DeleteParams, DynamicObject, PropagationPolicy};
use kube::core::ApiResource;

use crate::Error;
use crate::owned::{OwnedKind, Owner};

fn api_resource(k: &OwnedKind) -> ApiResource {
    ApiResource {
        group: k.group.to_string(),
        version: k.version.to_string(),
        api_version: k.api_version(),
        kind: k.kind.to_string(),
        plural: k.plural.to_string(),
    }
}

fn object_ref(k: &OwnedKind, namespace: Option<String>, name: &str) -> vocab::ObjectRef {
    vocab::ObjectRef {
        api_version: k.api_version(),
        kind: k.kind.to_string(),
        namespace,
        name: name.to_string(),
    }
}

/// Deletes every object `owner` owns (by label, see [`Owner::labels`]) that `keep` does not
/// keep, and returns what it deleted. With `helm`, also the objects it owns that carry Helm's
/// `app.kubernetes.io/managed-by: Helm` instead of the operator's (an IstioOperator with Helm
/// release records, see [`crate::helm`]).
pub async fn remove_owned(
    client: &cluster::Client,
    owner: &Owner,
    keep: &(dyn Fn(&vocab::ObjectRef) -> bool + Sync),
    helm: bool,
) -> Result<Vec<vocab::ObjectRef>, Error> {
    let mut label_sets = vec![owner.labels()];
    if helm {
        label_sets.push(owner.helm_labels());
    }
    let mut doomed: Vec<cluster::OwnedObject> = Vec::new();
    for labels in label_sets {
        let scope = cluster::UninstallScope::ControlPlane {
            labels,
            components: iop::component::ALL
                .iter()
                .map(|c| c.name.to_string())
                .collect(),
        };
        for o in client.uninstall_candidates(&scope).await? {
            if !keep(&o.object) && !doomed.iter().any(|d| d.object == o.object) {
                doomed.push(o);
            }
        }
    }
    let deleted = client.delete_owned(&doomed, &mut |_| {}).await?;
    Ok(deleted
        .into_iter()
        .filter(|d| d.outcome == cluster::DeleteOutcome::Deleted)
        .map(|d| d.object)
        .collect())
}

async fn delete(
    client: &cluster::Client,
    k: &OwnedKind,
    namespace: Option<&str>,
    name: &str,
) -> Result<(), Error> {
    let ar = api_resource(k);
    let api: Api<DynamicObject> = match namespace {
        Some(ns) => Api::namespaced_with(client.kube().clone(), ns, &ar),
        None => Api::all_with(client.kube().clone(), &ar),
    };
    let params = DeleteParams {
        propagation_policy: Some(PropagationPolicy::Background),
        ..Default::default()
    };
    match api.delete(name, &params).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(s)) if s.code == 404 => Ok(()),
        Err(source) => Err(Error::Kube {
            action: format!(
                "deleting {}",
                object_ref(k, namespace.map(str::to_string), name)
            ),
            source,
        }),
    }
}

/// Deletes `objects` (each of a kind in [`OWNED_KINDS`], or a Namespace or the IstioOperator
/// CRD), in order; objects that do not exist are skipped. Returns what it deleted.
pub async fn delete_objects(
    client: &cluster::Client,
    objects: &[vocab::ObjectRef],
) -> Result<Vec<vocab::ObjectRef>, Error> {
    const NAMESPACE: OwnedKind = OwnedKind {
        group: "",
        version: "v1",
        kind: "Namespace",
        plural: "namespaces",
        namespaced: false,
        watched: false,
        pruned: false,
    };
    let mut deleted = Vec::new();
    for object in objects {
        let kind = if object.kind == "Namespace" && object.api_version == "v1" {
            &NAMESPACE
        } else {
            crate::owned::owned_kind(&object.api_version, &object.kind)
                .ok_or_else(|| Error::NotDeletable(object.clone()))?
        };
        let ar = api_resource(kind);
        let api: Api<DynamicObject> = match &object.namespace {
            Some(ns) => Api::namespaced_with(client.kube().clone(), ns, &ar),
            None => Api::all_with(client.kube().clone(), &ar),
        };
        let exists = api
            .get_metadata_opt(&object.name)
            .await
            .map_err(|source| Error::Kube {
                action: format!("reading {object}"),
                source,
            })?
            .is_some();
        if exists {
            delete(client, kind, object.namespace.as_deref(), &object.name).await?;
            deleted.push(object.clone());
        }
    }
    Ok(deleted)
}
