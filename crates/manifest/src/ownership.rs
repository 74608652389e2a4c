//! Ownership: the labels istioctl's installer puts on every object it applies
//! (`getOwnerLabels` in `operator/pkg/install/install.go`), so that prune and uninstall can find
//! an installation's objects again.
//!
//! Only `install` and `upgrade` add these labels; `manifest generate` prints objects as rendered,
//! byte-identical to istioctl's output, which has none of them.
//!
//! The version label: istioctl writes its own binary's version (`version.Info.Version`), which
//! is also the version of the charts compiled into it. bosun renders whatever install package it
//! is given, so the label carries the version of *those* charts: the caller reads it (I/O) from
//! the `VERSION` file next to the package's `manifests/` directory (the pinned release has one),
//! else from the base chart's `appVersion`. See [`owner_labels`].
//!
//! Installed state: istioctl up to 1.20 also saved the merged IstioOperator in the cluster
//! (`installed-state…`); it stopped in 1.21, and no bosun feature reads such a record, so bosun
//! writes none either. Earlier bosun versions did (a ConfigMap or IstioOperator labelled
//! [`INSTALLED_STATE_LABEL`]); uninstall still removes those.

use std::collections::BTreeMap;

use iop::IstioOperator;
use serde_json::{Map, Value};
use vocab::labels::{
    COMPONENT_LABEL, MANAGED_LABEL, MANAGED_VALUE, OWNING_RESOURCE_LABEL,
    OWNING_RESOURCE_NAMESPACE_LABEL, REVISION_LABEL, VERSION_LABEL,
};

/// The labels istioctl's `getOwnerLabels` gives an object of component `component` (its
/// user-facing name, `iop::component::Component::name`; `None` for the labels every object of
/// the installation shares) for the merged IstioOperator `merged`, installing Istio `version`.
pub fn owner_labels(
    merged: &IstioOperator,
    version: &str,
    component: Option<&str>,
) -> BTreeMap<String, String> {
    let mut labels = BTreeMap::new();
    labels.insert(MANAGED_LABEL.to_string(), MANAGED_VALUE.to_string());
    labels.insert(VERSION_LABEL.to_string(), version.to_string());
    if let Some(name) = merged.name() {
        labels.insert(OWNING_RESOURCE_LABEL.to_string(), name.to_string());
    }
    if let Some(namespace) = merged.namespace() {
        labels.insert(
            OWNING_RESOURCE_NAMESPACE_LABEL.to_string(),
            namespace.to_string(),
        );
    }
    labels.insert(
        REVISION_LABEL.to_string(),
        merged.revision_or_default().to_string(),
    );
    if let Some(c) = component.filter(|c| !c.is_empty()) {
        labels.insert(COMPONENT_LABEL.to_string(), c.to_string());
    }
    labels
}

/// Sets `labels` on the object `object` (over labels of the same keys it has, as istioctl's
/// `SetLabel` does). A value that is not a JSON object is left alone.
pub fn set_labels(object: &mut Value, labels: &BTreeMap<String, String>) {
    let Some(map) = object.as_object_mut() else {
        return;
    };
    let metadata = map
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    if !metadata.is_object() {
        *metadata = Value::Object(Map::new());
    }
    let metadata = metadata.as_object_mut().expect("made an object above");
    let existing = metadata
        .entry("labels")
        .or_insert_with(|| Value::Object(Map::new()));
    if !existing.is_object() {
        *existing = Value::Object(Map::new());
    }
    let existing = existing.as_object_mut().expect("made an object above");
    for (k, v) in labels {
        existing.insert(k.clone(), Value::String(v.clone()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn owner_labels_of_a_plain_install() {
        let merged = IstioOperator::from_tree(
            json!({"metadata": {"namespace": "istio-system"}, "spec": {"values": {}}}),
        );
        assert_eq!(
            owner_labels(&merged, "1.31", Some("Pilot")),
            labels(&[
                (
                    "install.operator.istio.io/owning-resource-namespace",
                    "istio-system"
                ),
                ("istio.io/rev", "default"),
                ("operator.istio.io/component", "Pilot"),
                ("operator.istio.io/managed", "Reconcile"),
                ("operator.istio.io/version", "1.31"),
            ])
        );
        // The shared labels: no component.
        assert!(!owner_labels(&merged, "1.31", None).contains_key(COMPONENT_LABEL));
    }

    #[test]
    fn owner_labels_with_name_and_revision() {
        let merged =
            IstioOperator::from_tree(json!({"metadata": {"name": "cp", "namespace": "ns"},
                            "spec": {"revision": "canary", "values": {"revision": "canary"}}}));
        let got = owner_labels(&merged, "1.31", Some("IngressGateways"));
        assert_eq!(got[OWNING_RESOURCE_LABEL], "cp");
        assert_eq!(got[OWNING_RESOURCE_NAMESPACE_LABEL], "ns");
        assert_eq!(got[REVISION_LABEL], "canary");
        assert_eq!(got[COMPONENT_LABEL], "IngressGateways");
        // An empty revision is the default one; no name, no owning-resource label.
        let merged = IstioOperator::from_tree(json!({"spec": {"values": {"revision": ""}}}));
        let got = owner_labels(&merged, "1.31", None);
        assert_eq!(got[REVISION_LABEL], "default");
        assert!(!got.contains_key(OWNING_RESOURCE_LABEL));
        assert!(!got.contains_key(OWNING_RESOURCE_NAMESPACE_LABEL));
    }

    #[test]
    fn set_labels_overrides_and_keeps_others() {
        let mut obj = json!({"kind": "ConfigMap", "metadata": {"name": "a", "labels": {"app": "x", "istio.io/rev": "old"}}});
        set_labels(&mut obj, &labels(&[("istio.io/rev", "new"), ("k", "v")]));
        assert_eq!(
            obj["metadata"]["labels"],
            json!({"app": "x", "istio.io/rev": "new", "k": "v"})
        );
        let mut bare = json!({"kind": "ConfigMap"});
        set_labels(&mut bare, &labels(&[("k", "v")]));
        assert_eq!(bare["metadata"]["labels"], json!({"k": "v"}));
    }
}
