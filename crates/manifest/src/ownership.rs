//! Ownership: the labels istioctl's installer puts on every object it applies
//! (`getOwnerLabels` in `operator/pkg/install/install.go`), so that prune and uninstall can find
//! an installation's objects again, and the installed-state object that records which
//! IstioOperator an install applied.
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
//! Installed state: istioctl up to 1.23 saved the merged IstioOperator as an IstioOperator
//! custom resource named `installed-state[-<metadata.name>][-<revision>]` in the IOP's namespace,
//! annotated `install.istio.io/ignoreReconcile: "true"` so that the in-cluster operator leaves it
//! alone. Istio no longer ships the IstioOperator CRD, so an API server may not serve that kind.
//! Decision: [`installed_state`] builds both forms, and the cluster side stores the custom resource
//! when the server serves `install.istio.io/v1alpha1 IstioOperator`, otherwise a ConfigMap of the
//! same name and namespace, with the same labels and annotations, whose data key
//! [`INSTALLED_STATE_KEY`] holds the IstioOperator as YAML. Both carry the owner labels (without
//! the component label, so prune never selects them) and [`INSTALLED_STATE_LABEL`], by which
//! uninstall finds and removes them.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

/// `operator.istio.io/managed`: the operator (or istioctl) manages the object.
pub const MANAGED_LABEL: &str = "operator.istio.io/managed";
/// `operator.istio.io/version`: the Istio version of the installation.
pub const VERSION_LABEL: &str = "operator.istio.io/version";
/// `install.operator.istio.io/owning-resource`: the IstioOperator's `metadata.name`.
pub const OWNING_RESOURCE_LABEL: &str = "install.operator.istio.io/owning-resource";
/// `install.operator.istio.io/owning-resource-namespace`: the IstioOperator's namespace.
pub const OWNING_RESOURCE_NAMESPACE_LABEL: &str =
    "install.operator.istio.io/owning-resource-namespace";
/// `install.operator.istio.io/owning-resource-not-pruned`: `"true"` keeps an object from prune
/// (uninstall still removes it).
pub const NOT_PRUNED_LABEL: &str = "install.operator.istio.io/owning-resource-not-pruned";
/// `operator.istio.io/component`: which component (`Base`, `Pilot`, …) an object belongs to.
pub const COMPONENT_LABEL: &str = "operator.istio.io/component";
/// `istio.io/rev`: the control plane revision.
pub const REVISION_LABEL: &str = "istio.io/rev";
/// istioctl's value of [`MANAGED_LABEL`].
pub const MANAGED_VALUE: &str = "Reconcile";

/// The annotation that tells Istio's in-cluster operator not to reconcile an IstioOperator.
pub const IGNORE_RECONCILE_ANNOTATION: &str = "install.istio.io/ignoreReconcile";
/// bosun's mark on installed-state objects (`"true"`), by which uninstall finds them.
pub const INSTALLED_STATE_LABEL: &str = "bosun.io/installed-state";
/// The ConfigMap data key holding the installed IstioOperator as YAML.
pub const INSTALLED_STATE_KEY: &str = "IstioOperator";
/// istioctl's `InstalledSpecCRPrefix`.
pub const INSTALLED_STATE_PREFIX: &str = "installed-state";

/// The labels istioctl's `getOwnerLabels` gives an object of component `component` (its
/// user-facing name, `iop::component::Component::name`; `None` for the labels every object of
/// the installation shares) for the merged IstioOperator `merged`, installing Istio `version`.
pub fn owner_labels(
    merged: &Value,
    version: &str,
    component: Option<&str>,
) -> BTreeMap<String, String> {
    let mut labels = BTreeMap::new();
    labels.insert(MANAGED_LABEL.to_string(), MANAGED_VALUE.to_string());
    labels.insert(VERSION_LABEL.to_string(), version.to_string());
    let name = iop::tree::get_path_string(merged, "metadata.name");
    if !name.is_empty() {
        labels.insert(OWNING_RESOURCE_LABEL.to_string(), name);
    }
    let namespace = iop::tree::get_path_string(merged, "metadata.namespace");
    if !namespace.is_empty() {
        labels.insert(OWNING_RESOURCE_NAMESPACE_LABEL.to_string(), namespace);
    }
    labels.insert(REVISION_LABEL.to_string(), revision(merged));
    if let Some(c) = component.filter(|c| !c.is_empty()) {
        labels.insert(COMPONENT_LABEL.to_string(), c.to_string());
    }
    labels
}

/// `spec.values.revision`, or `default` when unset or empty (istioctl's `GetPathStringOr`).
pub fn revision(merged: &Value) -> String {
    let rev = iop::tree::get_path_string(merged, "spec.values.revision");
    if rev.is_empty() {
        "default".to_string()
    } else {
        rev
    }
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

/// The name istioctl (up to 1.23) gave the saved IstioOperator: `installed-state`, then
/// `-<metadata.name>` when the IstioOperator has a name, then `-<revision>` when it sets
/// `spec.revision`.
pub fn installed_state_name(merged: &Value) -> String {
    let mut name = INSTALLED_STATE_PREFIX.to_string();
    for path in ["metadata.name", "spec.revision"] {
        let part = iop::tree::get_path_string(merged, path);
        if !part.is_empty() {
            name.push('-');
            name.push_str(&part);
        }
    }
    name
}

/// The namespace of the installed state: the IstioOperator's, `istio-system` when it has none.
pub fn installed_state_namespace(merged: &Value) -> String {
    let ns = iop::tree::get_path_string(merged, "metadata.namespace");
    if ns.is_empty() {
        "istio-system".to_string()
    } else {
        ns
    }
}

/// The installed state in both of its forms (see the module docs); the cluster side applies one.
#[derive(Debug, Clone, PartialEq)]
pub struct InstalledState {
    /// The `install.istio.io/v1alpha1` IstioOperator custom resource.
    pub custom_resource: Value,
    /// The ConfigMap of the same name, namespace, labels and annotations, holding the custom
    /// resource's YAML under [`INSTALLED_STATE_KEY`].
    pub config_map: Value,
}

/// Why the installed state could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("writing the installed IstioOperator as YAML: {0}")]
pub struct InstalledStateError(String);

/// The installed-state objects recording the merged IstioOperator `merged` installed as
/// Istio `version`.
pub fn installed_state(
    merged: &Value,
    version: &str,
) -> Result<InstalledState, InstalledStateError> {
    let name = installed_state_name(merged);
    let namespace = installed_state_namespace(merged);
    let mut labels = owner_labels(merged, version, None);
    labels.insert(INSTALLED_STATE_LABEL.to_string(), "true".to_string());
    // Only the identity, labels and annotations of the input's metadata: anything else there
    // (a resourceVersion, a uid from a live object) would make the apply fail.
    let input_meta = |key: &str| {
        merged
            .pointer(&format!("/metadata/{key}"))
            .and_then(Value::as_object)
            .cloned()
    };
    let mut metadata = Map::new();
    metadata.insert("name".into(), Value::String(name));
    metadata.insert("namespace".into(), Value::String(namespace));
    if let Some(input_labels) = input_meta("labels") {
        metadata.insert("labels".into(), Value::Object(input_labels));
    }
    let mut annotations = input_meta("annotations").unwrap_or_default();
    annotations.insert(IGNORE_RECONCILE_ANNOTATION.into(), "true".into());
    metadata.insert("annotations".into(), Value::Object(annotations));
    let mut custom_resource = json!({
        "apiVersion": "install.istio.io/v1alpha1",
        "kind": "IstioOperator",
        "metadata": Value::Object(metadata),
        "spec": merged.get("spec").cloned().unwrap_or_else(|| json!({})),
    });
    set_labels(&mut custom_resource, &labels);
    let yaml =
        helm::yaml::json_to_yaml(&custom_resource).map_err(|e| InstalledStateError(e.message))?;
    let mut cm_metadata = Map::new();
    for key in ["name", "namespace", "labels", "annotations"] {
        if let Some(v) = custom_resource.pointer(&format!("/metadata/{key}")) {
            cm_metadata.insert(key.into(), v.clone());
        }
    }
    let config_map = json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": Value::Object(cm_metadata),
        "data": { INSTALLED_STATE_KEY: yaml },
    });
    Ok(InstalledState {
        custom_resource,
        config_map,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn owner_labels_of_a_plain_install() {
        let merged = json!({"metadata": {"namespace": "istio-system"}, "spec": {"values": {}}});
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
        let merged = json!({"metadata": {"name": "cp", "namespace": "ns"},
                            "spec": {"revision": "canary", "values": {"revision": "canary"}}});
        let got = owner_labels(&merged, "1.31", Some("IngressGateways"));
        assert_eq!(got[OWNING_RESOURCE_LABEL], "cp");
        assert_eq!(got[OWNING_RESOURCE_NAMESPACE_LABEL], "ns");
        assert_eq!(got[REVISION_LABEL], "canary");
        assert_eq!(got[COMPONENT_LABEL], "IngressGateways");
        // An empty revision is the default one; no name, no owning-resource label.
        let merged = json!({"spec": {"values": {"revision": ""}}});
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

    #[test]
    fn installed_state_names_follow_istioctl() {
        assert_eq!(installed_state_name(&json!({})), "installed-state");
        assert_eq!(
            installed_state_name(&json!({"spec": {"revision": "canary"}})),
            "installed-state-canary"
        );
        assert_eq!(
            installed_state_name(
                &json!({"metadata": {"name": "cp"}, "spec": {"revision": "1-31"}})
            ),
            "installed-state-cp-1-31"
        );
        assert_eq!(installed_state_namespace(&json!({})), "istio-system");
    }

    #[test]
    fn installed_state_both_forms() {
        let merged = json!({"apiVersion": "install.istio.io/v1alpha1", "kind": "IstioOperator",
            "metadata": {"namespace": "ns"},
            "spec": {"profile": "minimal", "values": {"global": {"istioNamespace": "ns"}}}});
        let state = installed_state(&merged, "1.31").unwrap();
        let cr = &state.custom_resource;
        assert_eq!(cr["kind"], "IstioOperator");
        assert_eq!(cr["metadata"]["name"], "installed-state");
        assert_eq!(cr["metadata"]["namespace"], "ns");
        assert_eq!(
            cr["metadata"]["annotations"][IGNORE_RECONCILE_ANNOTATION],
            "true"
        );
        assert_eq!(cr["metadata"]["labels"][INSTALLED_STATE_LABEL], "true");
        assert_eq!(cr["metadata"]["labels"][VERSION_LABEL], "1.31");
        assert!(cr["metadata"]["labels"].get(COMPONENT_LABEL).is_none());
        assert_eq!(cr["spec"], merged["spec"]);
        let cm = &state.config_map;
        assert_eq!(cm["kind"], "ConfigMap");
        assert_eq!(cm["metadata"]["name"], "installed-state");
        assert_eq!(cm["metadata"]["labels"], cr["metadata"]["labels"]);
        assert_eq!(cm["metadata"]["annotations"], cr["metadata"]["annotations"]);
        let yaml = cm["data"][INSTALLED_STATE_KEY].as_str().unwrap();
        assert_eq!(helm::yaml::from_yaml_json(yaml).unwrap(), *cr);
    }
}
