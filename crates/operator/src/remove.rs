//! `bosun operator remove`'s deletes: the operator's own install (its Deployment, roles,
//! bindings, namespace, the IstioOperator CRD), listed by [`crate::deploy`]. What an
//! IstioOperator owns is pruned and uninstalled by `installer::uninstall`, not here.

use kube::api::{Api, DeleteParams, DynamicObject, PropagationPolicy};
use kube::core::ApiResource;

use crate::Error;
use crate::owned::OwnedKind;

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
