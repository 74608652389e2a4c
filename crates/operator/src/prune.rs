//! Deleting what an IstioOperator owns: after each apply (prune: objects a spec change no longer
//! renders) and in the finalizer (uninstall: everything it owns).
//!
//! **Seam for the lead:** [`remove_owned`] is the one function both paths call. `cluster` is
//! getting ownership labels, prune and uninstall of its own (in parallel work); when that lands,
//! the body of [`remove_owned`] should become a call into it, and [`crate::owned::label`] should
//! give way to the labels `manifest` sets. Until then this is a minimal, real version: it lists
//! every pruned kind of [`crate::owned::OWNED_KINDS`] by the owner's label selector and deletes
//! what is not in `keep`. It never deletes CustomResourceDefinitions or Namespaces (see
//! [`crate::owned::OwnedKind::pruned`]). [`delete_objects`] is the same kind of stand-in for
//! `operator remove`.

use std::collections::HashSet;

use kube::api::{Api, DeleteParams, DynamicObject, ListParams, PropagationPolicy};
use kube::core::ApiResource;

use crate::Error;
use crate::owned::{OWNED_KINDS, OwnedKind, Owner};

fn api_resource(k: &OwnedKind) -> ApiResource {
    ApiResource {
        group: k.group.to_string(),
        version: k.version.to_string(),
        api_version: k.api_version(),
        kind: k.kind.to_string(),
        plural: k.plural.to_string(),
    }
}

fn object_ref(k: &OwnedKind, namespace: Option<String>, name: &str) -> cluster::ObjectRef {
    cluster::ObjectRef {
        api_version: k.api_version(),
        kind: k.kind.to_string(),
        namespace,
        name: name.to_string(),
    }
}

/// Whether a list or delete failed only because the server does not serve the kind (an
/// optional add-on's kind such as NetworkAttachmentDefinition).
fn not_served(e: &kube::Error) -> bool {
    matches!(e, kube::Error::Api(s) if s.code == 404)
}

/// Deletes every object `owner` owns (by label, see [`Owner::selector`]) that is not in `keep`,
/// and returns what it deleted. `keep` empty: uninstall. Deletes propagate in the background,
/// so the owner's Pods and ReplicaSets go too.
pub async fn remove_owned(
    client: &cluster::Client,
    owner: &Owner,
    keep: &HashSet<cluster::ObjectRef>,
) -> Result<Vec<cluster::ObjectRef>, Error> {
    let selector = owner.selector();
    let mut deleted = Vec::new();
    for k in OWNED_KINDS.iter().filter(|k| k.pruned) {
        let ar = api_resource(k);
        let all: Api<DynamicObject> = Api::all_with(client.kube().clone(), &ar);
        let listed = match all
            .list_metadata(&ListParams::default().labels(&selector))
            .await
        {
            Ok(list) => list,
            Err(e) if not_served(&e) => continue,
            Err(source) => {
                return Err(Error::Kube {
                    action: format!("listing {} owned by IstioOperator {owner}", k.plural),
                    source,
                });
            }
        };
        for item in listed.items {
            let name = item.metadata.name.clone().unwrap_or_default();
            let namespace = item.metadata.namespace.clone().filter(|_| k.namespaced);
            let object = object_ref(k, namespace.clone(), &name);
            if keep.contains(&object) {
                continue;
            }
            delete(client, k, namespace.as_deref(), &name).await?;
            deleted.push(object);
        }
    }
    Ok(deleted)
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
    objects: &[cluster::ObjectRef],
) -> Result<Vec<cluster::ObjectRef>, Error> {
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
            crate::owned::owned_kind(&object.api_version, &object.kind).ok_or_else(|| {
                Error::Invalid(format!("{object}: not a kind the operator deletes"))
            })?
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
