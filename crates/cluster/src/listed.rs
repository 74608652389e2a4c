//! Objects as a label-selected list gives them, and the selectors that list them: what prune,
//! uninstall and the install's snapshot of its own objects share (none of them depends on
//! another for it).

use std::collections::BTreeMap;

use vocab::ObjectRef;

/// An object as listed: what selection looks at.
#[derive(Debug, Clone)]
pub(crate) struct Listed {
    pub object: ObjectRef,
    pub namespaced: bool,
    pub labels: BTreeMap<String, String>,
    pub uid: Option<String>,
    pub resource_version: Option<String>,
    /// Its managedFields (what an apply's outcome is told by: `crate::outcome`).
    pub managed_fields: Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry>,
}

/// A label selector: each `labels` pair equal, each of `exists` present, and `key in (values)`
/// for `within`.
pub(crate) fn selector(
    labels: &BTreeMap<String, String>,
    exists: &[&str],
    within: Option<(&str, &[String])>,
) -> String {
    let mut parts: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
    parts.extend(exists.iter().map(|k| k.to_string()));
    if let Some((key, values)) = within {
        parts.push(format!("{key} in ({})", values.join(",")));
    }
    parts.join(",")
}

/// The API group of an `apiVersion` (`""` for the core group).
pub(crate) fn group_of(api_version: &str) -> &str {
    api_version.split_once('/').map_or("", |(g, _)| g)
}
