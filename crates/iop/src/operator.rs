//! The merged IstioOperator as one typed value: the tree istioctl keeps (so that layering, the
//! translation to Helm values and validation never lose a field), and the fields every later
//! layer asks of it (name, namespace, revision, profile, install package), read and defaulted
//! here once. Nothing downstream reads those by string path or writes its own `istio-system`.

use serde_json::Value;

use vocab::DEFAULT_ISTIO_NAMESPACE;
use vocab::labels::DEFAULT_REVISION;

use crate::component::{self, Component, ComponentSpec, SpecError};
use crate::tree;

/// What the components render from: each enabled component with its instances, in
/// istioctl's component order, and the tree their values are translated from.
#[derive(Debug, Clone, PartialEq)]
pub struct Components {
    /// The merged tree with `spec.unvalidatedValues` laid over `spec.values`, as istioctl
    /// renders after validation.
    pub tree: Value,
    /// Enabled components only; gateways may have several instances.
    pub instances: Vec<(&'static Component, Vec<ComponentSpec>)>,
}

/// A component whose spec could not be read (istioctl's `get component X: …`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("get component {component}: {source}")]
pub struct ComponentsError {
    pub component: &'static str,
    #[source]
    pub source: SpecError,
}

/// The profile an IstioOperator without `profile` layers over.
pub const DEFAULT_PROFILE: &str = "default";

/// A merged IstioOperator (profile ← files ← `--set` flags, translated; see [`crate::merge`]).
/// Built only from a whole tree, so its fields always agree with the tree.
#[derive(Debug, Clone, PartialEq)]
pub struct IstioOperator {
    tree: Value,
    name: Option<String>,
    namespace: Option<String>,
    revision: Option<String>,
    profile: Option<String>,
    install_package_path: Option<String>,
}

/// A string field, `None` when absent, empty or not a string (istioctl's `GetPathString`
/// reads all three as "").
fn field(tree: &Value, path: &str) -> Option<String> {
    Some(tree::get_path_string(tree, path)).filter(|s| !s.is_empty())
}

impl IstioOperator {
    /// The typed view of a merged tree. `spec.values.revision` is the revision because the
    /// merge copies `spec.revision` there and values may set it on their own.
    pub fn from_tree(tree: Value) -> IstioOperator {
        IstioOperator {
            name: field(&tree, "metadata.name"),
            namespace: field(&tree, "metadata.namespace"),
            revision: field(&tree, "spec.values.revision"),
            profile: field(&tree, "spec.profile"),
            install_package_path: field(&tree, "spec.installPackagePath"),
            tree,
        }
    }

    /// The whole merged tree (`values`, `meshConfig`, components' `k8s` settings, …).
    pub fn tree(&self) -> &Value {
        &self.tree
    }

    pub fn into_tree(self) -> Value {
        self.tree
    }

    /// `metadata.name`, when it has one.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// `metadata.namespace` as the input (or `values.global.istioNamespace`) gave it: what the
    /// owner labels record.
    pub fn namespace(&self) -> Option<&str> {
        self.namespace.as_deref()
    }

    /// The namespace Istio is installed into: [`Self::namespace`], else `istio-system`.
    pub fn istio_namespace(&self) -> &str {
        self.namespace().unwrap_or(DEFAULT_ISTIO_NAMESPACE)
    }

    /// The control plane revision, when it is not the default one.
    pub fn revision(&self) -> Option<&str> {
        self.revision.as_deref()
    }

    /// The revision as labels name it: [`Self::revision`], else `default`.
    pub fn revision_or_default(&self) -> &str {
        self.revision().unwrap_or(DEFAULT_REVISION)
    }

    /// `spec.profile`, else `default`.
    pub fn profile(&self) -> &str {
        self.profile.as_deref().unwrap_or(DEFAULT_PROFILE)
    }

    /// `spec.installPackagePath`: the directory of the charts and profiles to render with;
    /// `None` for the pinned release.
    pub fn install_package_path(&self) -> Option<&str> {
        self.install_package_path.as_deref()
    }

    /// The components to render and the tree they render from (see [`Components`]).
    pub fn components(&self) -> Result<Components, ComponentsError> {
        let mut tree = self.tree.clone();
        if let Some(unvalidated) = tree::get_path_map(&tree, "spec.unvalidatedValues").cloned() {
            let layer = tree::make_map(Value::Object(unvalidated), &["spec", "values"]);
            if let Some(m) = tree.as_object_mut() {
                tree::merge_from(m, &layer);
            }
        }
        let mut instances = Vec::new();
        for comp in component::ALL {
            let specs = comp.instances(&tree).map_err(|source| ComponentsError {
                component: comp.name,
                source,
            })?;
            if !specs.is_empty() {
                instances.push((comp, specs));
            }
        }
        Ok(Components { tree, instances })
    }

    /// Whether webhooks are left to an operator (`values.global.operatorManageWebhooks`), so an
    /// install makes no default revision tag.
    pub fn operator_manages_webhooks(&self) -> bool {
        tree::get_path_bool(&self.tree, "spec.values.global.operatorManageWebhooks")
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_empty_operator_gets_every_default() {
        let iop = IstioOperator::from_tree(json!({"spec": {"values": {}}}));
        assert_eq!(iop.name(), None);
        assert_eq!(iop.namespace(), None);
        assert_eq!(iop.istio_namespace(), "istio-system");
        assert_eq!(iop.revision(), None);
        assert_eq!(iop.revision_or_default(), "default");
        assert_eq!(iop.profile(), "default");
        assert_eq!(iop.install_package_path(), None);
        assert!(!iop.operator_manages_webhooks());
    }

    #[test]
    fn fields_come_from_the_tree_and_empty_or_mistyped_ones_are_unset() {
        let iop = IstioOperator::from_tree(json!({
            "metadata": {"name": "control-plane", "namespace": "mesh"},
            "spec": {
                "profile": "demo",
                "installPackagePath": "/charts",
                "values": {"revision": "canary", "global": {"operatorManageWebhooks": true}}
            }
        }));
        assert_eq!(iop.name(), Some("control-plane"));
        assert_eq!(iop.istio_namespace(), "mesh");
        assert_eq!(iop.revision_or_default(), "canary");
        assert_eq!(iop.profile(), "demo");
        assert_eq!(iop.install_package_path(), Some("/charts"));
        assert!(iop.operator_manages_webhooks());

        let odd = IstioOperator::from_tree(json!({
            "metadata": {"namespace": 3},
            "spec": {"profile": "", "values": {"revision": ""}}
        }));
        assert_eq!(odd.istio_namespace(), "istio-system");
        assert_eq!(odd.revision(), None);
        assert_eq!(odd.profile(), "default");
    }
}
