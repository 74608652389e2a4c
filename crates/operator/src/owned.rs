//! What the operator owns: the kinds Istio's charts render (one table, used for the RBAC rules,
//! the drift watches and prune), and the labels that tie an applied object to its IstioOperator.
//! Pure: no I/O (what carries these labels is pruned and uninstalled by `installer::uninstall`).

use serde_json::Value;
use vocab::labels::{
    COMPONENT_LABEL, HELM_MANAGED_BY_VALUE, MANAGED_BY_LABEL, OWNING_RESOURCE_LABEL,
    OWNING_RESOURCE_NAMESPACE_LABEL,
};

pub const MANAGED_BY: &str = "bosun-operator";

/// One kind the operator may apply, watch and prune.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwnedKind {
    pub group: &'static str,
    pub version: &'static str,
    pub kind: &'static str,
    pub plural: &'static str,
    pub namespaced: bool,
    /// Watched for drift. CRDs are not: they are large (watching them would hold megabytes)
    /// and shared by every revision. Kinds served only when an optional add-on is installed
    /// are not either, since a watch on an unserved kind fails forever.
    pub watched: bool,
    /// Deleted by prune and uninstall. CRDs are not: deleting one deletes every resource of
    /// it in the cluster (every user's Istio configuration), which no IstioOperator change
    /// should do implicitly; Namespaces are not, since they hold what others put there.
    pub pruned: bool,
}

impl OwnedKind {
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_string()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

const fn kind(
    group: &'static str,
    version: &'static str,
    kind: &'static str,
    plural: &'static str,
    namespaced: bool,
) -> OwnedKind {
    OwnedKind {
        group,
        version,
        kind,
        plural,
        namespaced,
        watched: true,
        pruned: true,
    }
}

/// Every kind the pinned Istio's charts render (`grep kind: manifests/charts`). No Secret: the
/// charts render none, so the operator neither applies nor watches Secrets (see `crate::rbac`).
pub const OWNED_KINDS: &[OwnedKind] = &[
    kind("", "v1", "ConfigMap", "configmaps", true),
    kind("", "v1", "Service", "services", true),
    kind("", "v1", "ServiceAccount", "serviceaccounts", true),
    kind("", "v1", "ResourceQuota", "resourcequotas", true),
    kind("apps", "v1", "Deployment", "deployments", true),
    kind("apps", "v1", "DaemonSet", "daemonsets", true),
    kind(
        "autoscaling",
        "v2",
        "HorizontalPodAutoscaler",
        "horizontalpodautoscalers",
        true,
    ),
    kind(
        "policy",
        "v1",
        "PodDisruptionBudget",
        "poddisruptionbudgets",
        true,
    ),
    kind(
        "networking.k8s.io",
        "v1",
        "NetworkPolicy",
        "networkpolicies",
        true,
    ),
    kind(
        "discovery.k8s.io",
        "v1",
        "EndpointSlice",
        "endpointslices",
        true,
    ),
    kind("rbac.authorization.k8s.io", "v1", "Role", "roles", true),
    kind(
        "rbac.authorization.k8s.io",
        "v1",
        "RoleBinding",
        "rolebindings",
        true,
    ),
    kind(
        "rbac.authorization.k8s.io",
        "v1",
        "ClusterRole",
        "clusterroles",
        false,
    ),
    kind(
        "rbac.authorization.k8s.io",
        "v1",
        "ClusterRoleBinding",
        "clusterrolebindings",
        false,
    ),
    kind(
        "admissionregistration.k8s.io",
        "v1",
        "MutatingWebhookConfiguration",
        "mutatingwebhookconfigurations",
        false,
    ),
    kind(
        "admissionregistration.k8s.io",
        "v1",
        "ValidatingWebhookConfiguration",
        "validatingwebhookconfigurations",
        false,
    ),
    kind(
        "admissionregistration.k8s.io",
        "v1",
        "ValidatingAdmissionPolicy",
        "validatingadmissionpolicies",
        false,
    ),
    kind(
        "admissionregistration.k8s.io",
        "v1",
        "ValidatingAdmissionPolicyBinding",
        "validatingadmissionpolicybindings",
        false,
    ),
    OwnedKind {
        watched: false,
        ..kind(
            "k8s.cni.cncf.io",
            "v1",
            "NetworkAttachmentDefinition",
            "network-attachment-definitions",
            true,
        )
    },
    OwnedKind {
        watched: false,
        pruned: false,
        ..kind(
            "apiextensions.k8s.io",
            "v1",
            "CustomResourceDefinition",
            "customresourcedefinitions",
            false,
        )
    },
];

/// The owned kind of `api_version`/`kind`, if the operator knows it.
pub fn owned_kind(api_version: &str, kind: &str) -> Option<&'static OwnedKind> {
    OWNED_KINDS
        .iter()
        .find(|k| k.kind == kind && k.api_version() == api_version)
}

/// Which IstioOperator owns an object (shown as `namespace/name`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Owner {
    pub namespace: String,
    pub name: String,
}

impl Owner {
    /// The labels every object this IstioOperator's reconciles applied carries.
    pub fn labels(&self) -> std::collections::BTreeMap<String, String> {
        [
            (MANAGED_BY_LABEL, MANAGED_BY),
            (OWNING_RESOURCE_LABEL, self.name.as_str()),
            (OWNING_RESOURCE_NAMESPACE_LABEL, self.namespace.as_str()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
    }

    /// [`Owner::labels`] with Helm's `app.kubernetes.io/managed-by: Helm`: what the objects of
    /// an IstioOperator with Helm release records carry (see [`crate::helm`]).
    pub fn helm_labels(&self) -> std::collections::BTreeMap<String, String> {
        let mut labels = self.labels();
        labels.insert(MANAGED_BY_LABEL.into(), HELM_MANAGED_BY_VALUE.into());
        labels
    }

    /// The label selector that finds every object this IstioOperator's reconciles applied
    /// (managed by the operator, or by Helm for an IstioOperator with Helm release records:
    /// see [`crate::helm`]).
    pub fn selector(&self) -> String {
        format!(
            "{MANAGED_BY_LABEL} in ({MANAGED_BY},{HELM_MANAGED_BY_VALUE}),{OWNING_RESOURCE_LABEL}={},{OWNING_RESOURCE_NAMESPACE_LABEL}={}",
            self.name, self.namespace
        )
    }

    /// The owner an object's labels name, if the operator applied it.
    pub fn of_labels(labels: &std::collections::BTreeMap<String, String>) -> Option<Owner> {
        if !matches!(
            labels.get(MANAGED_BY_LABEL).map(String::as_str),
            Some(MANAGED_BY | HELM_MANAGED_BY_VALUE)
        ) {
            return None;
        }
        Some(Owner {
            name: labels.get(OWNING_RESOURCE_LABEL)?.clone(),
            namespace: labels.get(OWNING_RESOURCE_NAMESPACE_LABEL)?.clone(),
        })
    }
}

impl std::fmt::Display for Owner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.namespace, self.name)
    }
}

/// The selector the drift watches use: everything the operator applied, for any owner (the
/// objects of IstioOperators with Helm release records are managed by Helm; the owner label
/// only the operator sets keeps other Helm releases out).
pub fn managed_selector() -> String {
    format!(
        "{MANAGED_BY_LABEL} in ({MANAGED_BY},{HELM_MANAGED_BY_VALUE}),{OWNING_RESOURCE_NAMESPACE_LABEL}"
    )
}

/// Adds the ownership labels to a rendered object (before it is applied).
pub fn label(object: &mut Value, owner: &Owner, component: &str) {
    let Some(map) = object.as_object_mut() else {
        return;
    };
    let metadata = map
        .entry("metadata")
        .or_insert_with(|| Value::Object(Default::default()));
    let Some(metadata) = metadata.as_object_mut() else {
        return;
    };
    let labels = metadata
        .entry("labels")
        .or_insert_with(|| Value::Object(Default::default()));
    if !labels.is_object() {
        *labels = Value::Object(Default::default());
    }
    let labels = labels.as_object_mut().expect("labels is an object");
    labels.insert(MANAGED_BY_LABEL.into(), MANAGED_BY.into());
    labels.insert(OWNING_RESOURCE_LABEL.into(), owner.name.clone().into());
    labels.insert(
        OWNING_RESOURCE_NAMESPACE_LABEL.into(),
        owner.namespace.clone().into(),
    );
    if !component.is_empty() {
        labels.insert(COMPONENT_LABEL.into(), component.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn labels_are_added_and_read_back() {
        let owner = Owner {
            namespace: "istio-system".into(),
            name: "main".into(),
        };
        let mut obj = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "labels": {"app": "istiod"}}});
        label(&mut obj, &owner, "Pilot");
        let labels: std::collections::BTreeMap<String, String> =
            serde_json::from_value(obj["metadata"]["labels"].clone()).unwrap();
        assert_eq!(labels["app"], "istiod");
        assert_eq!(labels[COMPONENT_LABEL], "Pilot");
        assert_eq!(Owner::of_labels(&labels), Some(owner.clone()));
        assert_eq!(
            owner.selector(),
            "app.kubernetes.io/managed-by in (bosun-operator,Helm),install.operator.istio.io/owning-resource=main,install.operator.istio.io/owning-resource-namespace=istio-system"
        );
        let mut bare = json!({"kind": "ConfigMap"});
        label(&mut bare, &owner, "");
        assert_eq!(bare["metadata"]["labels"][OWNING_RESOURCE_LABEL], "main");
        assert!(bare["metadata"]["labels"].get(COMPONENT_LABEL).is_none());
    }

    #[test]
    fn unlabelled_or_foreign_objects_have_no_owner() {
        let mut labels = std::collections::BTreeMap::new();
        labels.insert(OWNING_RESOURCE_LABEL.to_string(), "x".to_string());
        labels.insert(OWNING_RESOURCE_NAMESPACE_LABEL.to_string(), "y".to_string());
        assert_eq!(Owner::of_labels(&labels), None);
    }

    #[test]
    fn finds_kinds_by_api_version() {
        assert_eq!(
            owned_kind("apps/v1", "Deployment").map(|k| k.plural),
            Some("deployments")
        );
        assert_eq!(owned_kind("v1", "ConfigMap").map(|k| k.group), Some(""));
        assert!(owned_kind("apps/v1", "ConfigMap").is_none());
        let crd = owned_kind("apiextensions.k8s.io/v1", "CustomResourceDefinition").unwrap();
        assert!(!crd.pruned && !crd.watched);
    }
}
