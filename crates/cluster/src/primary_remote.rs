//! The cluster reads and writes of a primary-remote mesh besides the installs: the addresses
//! of a cluster's nodes (where a remote reaches the primary's istiod on a flat network) and
//! the annotation on a remote's Istio namespace, and taking the mesh's labels and annotations
//! off a namespace again when only bosun wrote them (`uninstall --purge`). What they mean is
//! `manifest::primary_remote`'s; when they happen is `installer::mesh`'s and the CLI's.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Namespace, Node};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry;
use kube::Api;
use kube::api::ListParams;

use crate::plan::namespace_ref;
use crate::{Client, Error, ListTarget};

impl Client {
    /// Each node's `InternalIP` addresses, by node name (sorted), the ready nodes first.
    pub async fn node_addresses(&self) -> Result<Vec<(String, Vec<String>)>, Error> {
        let api: Api<Node> = Api::all(self.kube.clone());
        let nodes = api
            .list(&ListParams::default())
            .await
            .map_err(|source| Error::List {
                target: Box::new(ListTarget {
                    api_version: "v1".into(),
                    kind: "Node".into(),
                    selector: "(any)".into(),
                }),
                source,
            })?;
        let mut out: Vec<(bool, String, Vec<String>)> = nodes
            .items
            .into_iter()
            .map(|node| {
                let status = node.status.unwrap_or_default();
                let ready = status
                    .conditions
                    .unwrap_or_default()
                    .iter()
                    .any(|c| c.type_ == "Ready" && c.status == "True");
                let addresses = status
                    .addresses
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|a| a.type_ == "InternalIP")
                    .map(|a| a.address)
                    .collect();
                (!ready, node.metadata.name.unwrap_or_default(), addresses)
            })
            .collect();
        out.sort();
        Ok(out.into_iter().map(|(_, name, a)| (name, a)).collect())
    }

    /// Sets `annotations` on namespace `name` (a merge patch, as `kubectl annotate
    /// --overwrite`: other annotations stay).
    pub async fn annotate_namespace(
        &self,
        name: &str,
        annotations: &BTreeMap<String, String>,
        field_manager: &str,
    ) -> Result<(), Error> {
        self.merge_namespace_metadata(
            name,
            "annotations",
            annotations,
            field_manager,
            "annotating it",
        )
        .await
    }

    /// Of the `labels` and `annotations` keys, those set on namespace `name` that no field
    /// manager but `manager` owns (by the namespace's managedFields): what a mesh install
    /// wrote there and nobody changed since. None when the namespace does not exist.
    pub async fn namespace_metadata_owned_by(
        &self,
        name: &str,
        labels: &[&str],
        annotations: &[&str],
        manager: &str,
    ) -> Result<Vec<NamespaceKey>, Error> {
        let api: Api<Namespace> = Api::all(self.kube.clone());
        let Some(ns) = api.get_opt(name).await.map_err(|source| Error::Api {
            object: Box::new(namespace_ref(name)),
            action: "reading it",
            source,
        })?
        else {
            return Ok(Vec::new());
        };
        let meta = &ns.metadata;
        let fields = meta.managed_fields.as_deref().unwrap_or_default();
        let mut out = Vec::new();
        for (field, keys, set) in [
            (MetadataField::Labels, labels, &meta.labels),
            (MetadataField::Annotations, annotations, &meta.annotations),
        ] {
            for key in keys {
                let Some(value) = set.as_ref().and_then(|m| m.get(*key)) else {
                    continue;
                };
                if owned_only_by(fields, field, key, manager) {
                    out.push(NamespaceKey {
                        namespace: name.to_string(),
                        field,
                        key: key.to_string(),
                        value: value.clone(),
                    });
                }
            }
        }
        Ok(out)
    }

    /// Removes `keys` from their namespaces (a merge patch setting each to null, as
    /// `field_manager`); a namespace gone meanwhile is not an error.
    pub async fn remove_namespace_metadata(
        &self,
        keys: &[NamespaceKey],
        field_manager: &str,
    ) -> Result<(), Error> {
        let api: Api<Namespace> = Api::all(self.kube.clone());
        let mut by_namespace: BTreeMap<&str, serde_json::Value> = BTreeMap::new();
        for k in keys {
            let patch = by_namespace
                .entry(&k.namespace)
                .or_insert_with(|| serde_json::json!({"metadata": {}}));
            patch["metadata"][k.field.name()][&k.key] = serde_json::Value::Null;
        }
        let params = kube::api::PatchParams {
            field_manager: Some(field_manager.into()),
            ..Default::default()
        };
        for (name, patch) in by_namespace {
            match api
                .patch(name, &params, &kube::api::Patch::Merge(&patch))
                .await
            {
                Ok(_) => {}
                Err(kube::Error::Api(status)) if status.code == 404 => {}
                Err(source) => {
                    return Err(Error::Api {
                        object: Box::new(namespace_ref(name)),
                        action: "removing the mesh's labels and annotations",
                        source,
                    });
                }
            }
        }
        Ok(())
    }
}

/// Where in a namespace's metadata a [`NamespaceKey`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetadataField {
    Labels,
    Annotations,
}

impl MetadataField {
    /// The metadata field's name (`labels`, `annotations`).
    pub fn name(self) -> &'static str {
        match self {
            MetadataField::Labels => "labels",
            MetadataField::Annotations => "annotations",
        }
    }
}

/// A label or annotation of a namespace, with its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamespaceKey {
    pub namespace: String,
    pub field: MetadataField,
    pub key: String,
    pub value: String,
}

impl std::fmt::Display for NamespaceKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.field {
            MetadataField::Labels => "label",
            MetadataField::Annotations => "annotation",
        };
        write!(
            f,
            "{what} {}={} of Namespace {}",
            self.key, self.value, self.namespace
        )
    }
}

/// Whether `manager` is the only field manager of `metadata.<field>.<key>` in `fields` (a
/// namespace's managedFields). A key no entry lists (written before managedFields were kept)
/// is nobody's: false. Pure.
pub fn owned_only_by(
    fields: &[ManagedFieldsEntry],
    field: MetadataField,
    key: &str,
    manager: &str,
) -> bool {
    let owners: Vec<&str> = fields
        .iter()
        .filter(|e| {
            e.fields_v1
                .as_ref()
                .and_then(|f| f.0.get("f:metadata"))
                .and_then(|m| m.get(format!("f:{}", field.name())))
                .and_then(|m| m.get(format!("f:{key}")))
                .is_some()
        })
        .map(|e| e.manager.as_deref().unwrap_or_default())
        .collect();
    !owners.is_empty() && owners.iter().all(|o| *o == manager)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(manager: &str, fields: serde_json::Value) -> ManagedFieldsEntry {
        serde_json::from_value(serde_json::json!({
            "manager": manager,
            "operation": "Update",
            "fieldsType": "FieldsV1",
            "fieldsV1": fields
        }))
        .unwrap()
    }

    #[test]
    fn a_key_is_removed_only_when_the_manager_alone_wrote_it() {
        let label =
            |k: &str| serde_json::json!({"f:metadata": {"f:labels": {format!("f:{k}"): {}}}});
        let annotation =
            |k: &str| serde_json::json!({"f:metadata": {"f:annotations": {format!("f:{k}"): {}}}});
        let net = "topology.istio.io/network";
        let cases: Vec<(Vec<ManagedFieldsEntry>, MetadataField, bool)> = vec![
            (
                vec![entry("bosun", label(net))],
                MetadataField::Labels,
                true,
            ),
            // Another manager wrote it too (kubectl label --overwrite), or only another one.
            (
                vec![
                    entry("bosun", label(net)),
                    entry("kubectl-label", label(net)),
                ],
                MetadataField::Labels,
                false,
            ),
            (
                vec![entry("kubectl-label", label(net))],
                MetadataField::Labels,
                false,
            ),
            // bosun owns another key, or the same key as an annotation.
            (
                vec![entry("bosun", label("other"))],
                MetadataField::Labels,
                false,
            ),
            (
                vec![entry("bosun", annotation(net))],
                MetadataField::Labels,
                false,
            ),
            (
                vec![entry("bosun", annotation(net))],
                MetadataField::Annotations,
                true,
            ),
            // Nobody's.
            (Vec::new(), MetadataField::Labels, false),
        ];
        for (i, (fields, field, expected)) in cases.iter().enumerate() {
            assert_eq!(
                owned_only_by(fields, *field, net, "bosun"),
                *expected,
                "case {i}"
            );
        }
    }
}
