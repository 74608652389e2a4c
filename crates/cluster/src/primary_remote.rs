//! The cluster reads and writes of a primary-remote mesh besides the installs: the addresses
//! of a cluster's nodes (where a remote reaches the primary's istiod on a flat network) and
//! the annotation on a remote's Istio namespace. What they mean is `manifest::primary_remote`'s;
//! when they happen is `installer::mesh`'s.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Node;
use kube::Api;
use kube::api::ListParams;

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
}
