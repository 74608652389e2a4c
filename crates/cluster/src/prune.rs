//! Prune: after an install, delete the objects of this installation that it no longer renders
//! (a gateway disabled, a component removed), as istioctl's `Installer.prune` does.
//!
//! Which objects are candidates, istioctl's rules:
//! - Kinds: istioctl's `NamespacedResources` and `ClusterResources` ([`PRUNED_KINDS`] without the
//!   purge-only ones). CRDs are never pruned: deleting one deletes every custom resource of its
//!   kind, which is user configuration. Kinds the server does not serve are skipped.
//! - Labels: every owner label the installation shares (managed, version, owning resource and
//!   namespace, revision; see `manifest::ownership::owner_labels`) and a component label. An
//!   object without all of these is never touched.
//! - Its component label must name one of the installer's components, and its identity (kind,
//!   namespace, name: istioctl's object hash) must not be among the objects rendered now for
//!   *that* component.
//! - [`NOT_PRUNED_LABEL`]` = "true"` keeps an object.
//!
//! [`Client::prune_candidates`] only computes the candidates (for a plan); [`Client::prune`]
//! deletes them, in [`PRUNED_KINDS`] order, with Background propagation (see [`Client::delete_owned`]).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use futures::{StreamExt, TryStreamExt};
use kube::api::{Api, DeleteParams, DynamicObject, Preconditions};
use kube::core::{ApiResource, GroupVersionKind};
use kube::discovery::Scope;
use vocab::labels::{COMPONENT_LABEL, NOT_PRUNED_LABEL};
use vocab::{Installation, ObjectRef};

use crate::listed::{Listed, selector};
use crate::{Client, Error};

/// A kind that prune or uninstall deletes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrunedKind {
    pub group: &'static str,
    pub version: &'static str,
    pub kind: &'static str,
    /// Only `uninstall --purge` deletes objects of this kind (istioctl's `AllClusterResources`
    /// beyond `ClusterResources`).
    pub purge_only: bool,
}

const fn kind(group: &'static str, version: &'static str, kind: &'static str) -> PrunedKind {
    PrunedKind {
        group,
        version,
        kind,
        purge_only: false,
    }
}

impl PrunedKind {
    /// Whether a CustomResourceDefinition serves the kind (Istio's and the CNI's groups) rather
    /// than the API server itself. Such kinds are listed whole and filtered by their reader:
    /// the API server answers a label-selected list of a kind whose storage has only just
    /// started with 429 and a one-second `Retry-After` (see `crate::snapshot`), and their
    /// objects are few.
    pub fn custom(&self) -> bool {
        !matches!(
            self.group,
            "" | "apps"
                | "autoscaling"
                | "policy"
                | "rbac.authorization.k8s.io"
                | "admissionregistration.k8s.io"
                | "apiextensions.k8s.io"
        )
    }
}

/// istioctl's pruned kinds (`NamespacedResources`, `ClusterResources`, and for purge the rest of
/// `AllClusterResources`), in the order objects are deleted. istioctl deletes in list order;
/// this order is chosen so that each step leaves a working cluster:
/// 1. webhook configurations first, so the API server stops calling into istiod before it goes
///    (a `failurePolicy: Fail` webhook whose service is gone blocks pod creation);
/// 2. autoscalers and disruption budgets, then workloads and their pods;
/// 3. services and EnvoyFilters, then configuration (ConfigMaps, Secrets);
/// 4. RBAC bindings before the roles they bind, service accounts after the workloads using them;
/// 5. CNI attachment definitions, and CRDs last: deleting a CRD deletes every custom resource
///    of its kind, so that happens only when nothing else is left.
pub const PRUNED_KINDS: &[PrunedKind] = &[
    kind(
        "admissionregistration.k8s.io",
        "v1",
        "MutatingWebhookConfiguration",
    ),
    kind(
        "admissionregistration.k8s.io",
        "v1",
        "ValidatingWebhookConfiguration",
    ),
    kind("autoscaling", "v2", "HorizontalPodAutoscaler"),
    kind("policy", "v1", "PodDisruptionBudget"),
    kind("apps", "v1", "Deployment"),
    kind("apps", "v1", "DaemonSet"),
    kind("", "v1", "Pod"),
    kind("", "v1", "Service"),
    kind("networking.istio.io", "v1alpha3", "EnvoyFilter"),
    kind("", "v1", "ConfigMap"),
    kind("", "v1", "Secret"),
    kind("rbac.authorization.k8s.io", "v1", "RoleBinding"),
    kind("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding"),
    kind("rbac.authorization.k8s.io", "v1", "Role"),
    kind("rbac.authorization.k8s.io", "v1", "ClusterRole"),
    kind("", "v1", "ServiceAccount"),
    PrunedKind {
        purge_only: true,
        ..kind("k8s.cni.cncf.io", "v1", "NetworkAttachmentDefinition")
    },
    PrunedKind {
        purge_only: true,
        ..kind("apiextensions.k8s.io", "v1", "CustomResourceDefinition")
    },
];

/// An object found in the cluster that prune or uninstall would delete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedObject {
    pub object: ObjectRef,
    /// Its [`COMPONENT_LABEL`] (`None` for installed-state records, which have none).
    pub component: Option<String>,
    /// The uid it had when listed: deletion is conditional on it, so an object replaced since
    /// (deleted and created again by someone else) is not deleted by mistake.
    pub uid: Option<String>,
}

impl fmt::Display for OwnedObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.object.fmt(f)
    }
}

/// istioctl's object hash: kind, namespace (none for cluster-scoped kinds), name.
type Identity = (String, Option<String>, String);

/// The prune candidates among `listed` (pure: the rules in the module docs). Rendered objects
/// of namespaced kinds without a namespace are taken to be in `default_namespace`, where apply
/// puts them; namespaces on cluster-scoped ones are ignored.
pub(crate) fn prune_selection(
    installation: &Installation,
    listed: &[Listed],
    default_namespace: &str,
) -> Vec<OwnedObject> {
    let cluster_scoped: BTreeSet<&str> = listed
        .iter()
        .filter(|l| !l.namespaced)
        .map(|l| l.object.kind.as_str())
        .collect();
    let identity = |o: &ObjectRef, namespaced: bool| -> Identity {
        let namespace = namespaced.then(|| {
            o.namespace
                .clone()
                .unwrap_or_else(|| default_namespace.to_string())
        });
        (o.kind.clone(), namespace, o.name.clone())
    };
    let keep: BTreeMap<&str, BTreeSet<Identity>> = installation
        .components
        .iter()
        .map(|c| {
            let ids = c
                .objects
                .iter()
                .map(|o| identity(o, !cluster_scoped.contains(o.kind.as_str())))
                .collect();
            (c.name.as_str(), ids)
        })
        .collect();
    listed
        .iter()
        .filter(|l| {
            installation
                .owner_labels
                .iter()
                .all(|(k, v)| l.labels.get(k) == Some(v))
        })
        .filter(|l| l.labels.get(NOT_PRUNED_LABEL).map(String::as_str) != Some("true"))
        .filter_map(|l| {
            let component = l.labels.get(COMPONENT_LABEL)?;
            let kept = keep.get(component.as_str())?;
            (!kept.contains(&identity(&l.object, l.namespaced))).then(|| OwnedObject {
                object: l.object.clone(),
                component: Some(component.clone()),
                uid: l.uid.clone(),
            })
        })
        .collect()
}

/// What deleting one object did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeleteOutcome {
    Deleted,
    /// It was gone already (someone else deleted it since it was listed): fine.
    AlreadyGone,
}

/// One object [`Client::delete_owned`] dealt with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deleted {
    pub object: ObjectRef,
    pub outcome: DeleteOutcome,
}

impl Client {
    /// The API resource for `gvk` and whether it is namespaced, `None` when the server does not
    /// serve it (discovery cached per client, as for apply).
    pub(crate) async fn served(
        &self,
        gvk: &GroupVersionKind,
        what: &ObjectRef,
    ) -> Result<Option<(ApiResource, Scope)>, Error> {
        match self.discover(gvk).await {
            Ok(found) => Ok(found.map(|(ar, caps)| (ar, caps.scope))),
            Err(source) => Err(Error::Discovery {
                object: Box::new(what.clone()),
                api_version: what.api_version.clone(),
                source,
            }),
        }
    }

    /// Every object of kind `group/version/kind` (all namespaces) matching `selector` (every
    /// object for an empty one); empty when the server does not serve the kind.
    pub(crate) async fn list_labelled(
        &self,
        group: &str,
        version: &str,
        kind: &str,
        selector: &str,
    ) -> Result<Vec<Listed>, Error> {
        let gvk = GroupVersionKind::gvk(group, version, kind);
        let api_version = if group.is_empty() {
            version.to_string()
        } else {
            format!("{group}/{version}")
        };
        let what = ObjectRef {
            api_version: api_version.clone(),
            kind: kind.to_string(),
            namespace: None,
            name: format!("(objects labelled {selector})"),
        };
        let Some((ar, scope)) = self.served(&gvk, &what).await? else {
            return Ok(Vec::new());
        };
        // Metadata is all selection needs (whole objects for the kinds whose one list the
        // checks share, `crate::reads`).
        let items = match self.list_metadata_shared(&ar, selector).await {
            Ok(items) => items,
            // The kind went away between discovery and the list (a CRD just deleted).
            Err(kube::Error::Api(status)) if status.code == 404 => return Ok(Vec::new()),
            Err(source) => {
                return Err(Error::List {
                    target: Box::new(crate::error::ListTarget {
                        api_version,
                        kind: kind.to_string(),
                        selector: selector.to_string(),
                    }),
                    source,
                });
            }
        };
        let namespaced = matches!(scope, Scope::Namespaced);
        Ok(items
            .into_iter()
            .map(|item| Listed {
                object: ObjectRef {
                    api_version: api_version.clone(),
                    kind: kind.to_string(),
                    namespace: item.metadata.namespace.clone().filter(|_| namespaced),
                    name: item.metadata.name.clone().unwrap_or_default(),
                },
                namespaced,
                labels: item.metadata.labels.clone().unwrap_or_default(),
                uid: item.metadata.uid.clone(),
                resource_version: item.metadata.resource_version.clone(),
                managed_fields: item.metadata.managed_fields.clone().unwrap_or_default(),
            })
            .collect())
    }

    /// Lists objects of every kind in `kinds` matching `selector`, in `kinds` order.
    pub(crate) async fn list_kinds(
        &self,
        kinds: impl Iterator<Item = &PrunedKind>,
        selector: &str,
    ) -> Result<Vec<Listed>, Error> {
        // A few lists in flight at once; the results stay in the kinds' (deletion) order.
        // Collected first: a stream over a closure would make the future's `Send` depend on
        // higher-ranked lifetimes the compiler cannot prove (the operator runs this in a task).
        let lists: Vec<_> = kinds
            .map(|k| self.list_labelled(k.group, k.version, k.kind, selector))
            .collect();
        let per_kind: Vec<Vec<Listed>> = futures::stream::iter(lists)
            .buffered(8)
            .try_collect()
            .await?;
        Ok(per_kind.into_iter().flatten().collect())
    }

    /// The objects [`Client::prune`] would delete for `installation`, in deletion order, without
    /// deleting anything.
    pub async fn prune_candidates(
        &self,
        installation: &Installation,
    ) -> Result<Vec<OwnedObject>, Error> {
        let selector = selector(&installation.owner_labels, &[COMPONENT_LABEL], None);
        let kinds = PRUNED_KINDS.iter().filter(|k| !k.purge_only);
        let listed = self.list_kinds(kinds, &selector).await?;
        Ok(prune_selection(
            installation,
            &listed,
            self.default_namespace(),
        ))
    }

    /// [`Client::prune`] right after `installed`: the installation's objects come from what
    /// the install listed before applying (see [`crate::snapshot`]); only kinds it did not list
    /// are listed now, and not those whose CustomResourceDefinition that install created (they
    /// have no objects yet).
    pub async fn prune_after_install(
        &self,
        installation: &Installation,
        installed: &crate::InstallReport,
        progress: &mut (dyn FnMut(&Deleted) + Send),
    ) -> Result<Vec<Deleted>, Error> {
        let snapshot = installed.owned_before.as_ref();
        let known = |k: &PrunedKind| {
            installed
                .created_kinds
                .contains(&(k.group.to_string(), k.kind.to_string()))
                || snapshot.is_some_and(|s| s.covers(k.group, k.kind))
        };
        let selector = selector(&installation.owner_labels, &[COMPONENT_LABEL], None);
        let pruned = || PRUNED_KINDS.iter().filter(|k| !k.purge_only);
        let mut fresh = self
            .list_kinds(pruned().filter(|k| !known(k)), &selector)
            .await?
            .into_iter()
            .peekable();
        // In deletion order: each kind's objects from the snapshot or from the fresh lists
        // (which come in that order too).
        let mut listed = Vec::new();
        for k in pruned() {
            if let Some(s) = snapshot.filter(|s| s.covers(k.group, k.kind)) {
                listed.extend(s.objects_of(k.group, k.kind).cloned());
            } else {
                while let Some(l) = fresh.next_if(|l| {
                    l.object.kind == k.kind
                        && crate::listed::group_of(&l.object.api_version) == k.group
                }) {
                    listed.push(l);
                }
            }
        }
        let candidates = prune_selection(installation, &listed, self.default_namespace());
        self.delete_owned(&candidates, progress).await
    }

    /// Deletes the objects of `installation` it no longer renders (see the module docs),
    /// calling `progress` after each. Stops at the first failure; running it again continues.
    pub async fn prune(
        &self,
        installation: &Installation,
        progress: &mut (dyn FnMut(&Deleted) + Send),
    ) -> Result<Vec<Deleted>, Error> {
        let candidates = self.prune_candidates(installation).await?;
        self.delete_owned(&candidates, progress).await
    }

    /// Deletes `objects` in the order given (candidates come in a safe order), each only if it
    /// still has the uid it was listed with, calling `progress` after each. An object already
    /// gone is fine. Stops at the first failure.
    ///
    /// Propagation is Background: the object goes at once and the garbage collector removes
    /// its dependents (a Deployment's ReplicaSets and Pods) afterwards. Foreground would leave
    /// each object with a `foregroundDeletion` finalizer until the garbage collector has removed
    /// its dependents, so on a server without one (a bare API server, a stuck controller
    /// manager) every deleted object would stay, terminating, forever.
    pub async fn delete_owned(
        &self,
        objects: &[OwnedObject],
        progress: &mut (dyn FnMut(&Deleted) + Send),
    ) -> Result<Vec<Deleted>, Error> {
        let mut done = Vec::new();
        for owned in objects {
            let object = &owned.object;
            let (group, version) = object
                .api_version
                .split_once('/')
                .unwrap_or(("", &object.api_version));
            let gvk = GroupVersionKind::gvk(group, version, &object.kind);
            let outcome = match self.served(&gvk, object).await? {
                // The kind is gone, and with it the object (its CRD was deleted).
                None => DeleteOutcome::AlreadyGone,
                Some((ar, scope)) => {
                    let api: Api<DynamicObject> = match (&scope, &object.namespace) {
                        (Scope::Namespaced, Some(ns)) => {
                            Api::namespaced_with(self.kube.clone(), ns, &ar)
                        }
                        (Scope::Namespaced, None) => {
                            Api::default_namespaced_with(self.kube.clone(), &ar)
                        }
                        (Scope::Cluster, _) => Api::all_with(self.kube.clone(), &ar),
                    };
                    let mut params = DeleteParams::background();
                    if let Some(uid) = &owned.uid {
                        params.preconditions = Some(Preconditions {
                            uid: Some(uid.clone()),
                            resource_version: None,
                        });
                    }
                    match api.delete(&object.name, &params).await {
                        Ok(_) => DeleteOutcome::Deleted,
                        Err(kube::Error::Api(status)) if status.code == 404 => {
                            DeleteOutcome::AlreadyGone
                        }
                        Err(source) => {
                            return Err(Error::Api {
                                object: Box::new(object.clone()),
                                action: "deleting it",
                                source,
                            });
                        }
                    }
                }
            };
            let deleted = Deleted {
                object: object.clone(),
                outcome,
            };
            progress(&deleted);
            done.push(deleted);
        }
        Ok(done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use vocab::RenderedComponent;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn owner() -> BTreeMap<String, String> {
        labels(&[
            ("operator.istio.io/managed", "Reconcile"),
            ("istio.io/rev", "default"),
        ])
    }

    fn listed(kind: &str, ns: Option<&str>, name: &str, extra: &[(&str, &str)]) -> Listed {
        let mut l = owner();
        l.extend(labels(extra));
        Listed {
            object: ObjectRef {
                api_version: "v1".into(),
                kind: kind.into(),
                namespace: ns.map(str::to_string),
                name: name.into(),
            },
            namespaced: ns.is_some(),
            labels: l,
            uid: Some(format!("uid-{name}")),
            resource_version: None,
            managed_fields: Vec::new(),
        }
    }

    fn installation() -> Installation {
        Installation {
            owner_labels: owner(),
            components: vec![
                RenderedComponent::from_objects(
                    "Pilot",
                    &[
                        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "istiod", "namespace": "istio-system"}}),
                        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "no-ns"}}),
                        // Rendered with a namespace although cluster-scoped: the namespace is ignored.
                        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "istiod", "namespace": "istio-system"}}),
                    ],
                ),
                RenderedComponent::from_objects("IngressGateways", &[]),
            ],
        }
    }

    fn names(got: &[OwnedObject]) -> Vec<String> {
        got.iter().map(|o| o.object.to_string()).collect()
    }

    #[test]
    fn prunes_only_unrendered_objects_of_known_components() {
        let cluster = [
            listed(
                "Deployment",
                Some("istio-system"),
                "istiod",
                &[(COMPONENT_LABEL, "Pilot")],
            ),
            listed(
                "ConfigMap",
                Some("default"),
                "no-ns",
                &[(COMPONENT_LABEL, "Pilot")],
            ),
            listed("ClusterRole", None, "istiod", &[(COMPONENT_LABEL, "Pilot")]),
            // Gone from the render.
            listed(
                "Deployment",
                Some("istio-system"),
                "old",
                &[(COMPONENT_LABEL, "Pilot")],
            ),
            // The same identity, but the component says another one rendered it: it is not
            // among IngressGateways' objects, so it goes.
            listed(
                "Deployment",
                Some("istio-system"),
                "istiod",
                &[(COMPONENT_LABEL, "IngressGateways")],
            ),
            // A disabled gateway's leftovers.
            listed(
                "Service",
                Some("istio-system"),
                "istio-ingressgateway",
                &[(COMPONENT_LABEL, "IngressGateways")],
            ),
            // Kept by label.
            listed(
                "Service",
                Some("istio-system"),
                "keep-me",
                &[
                    (COMPONENT_LABEL, "IngressGateways"),
                    (NOT_PRUNED_LABEL, "true"),
                ],
            ),
            // A component the installer does not know.
            listed(
                "Service",
                Some("istio-system"),
                "other",
                &[(COMPONENT_LABEL, "Foo")],
            ),
            // No component label.
            listed("Service", Some("istio-system"), "bare", &[]),
        ];
        let got = prune_selection(&installation(), &cluster, "default");
        assert_eq!(
            names(&got),
            [
                "Deployment istio-system/old",
                "Deployment istio-system/istiod",
                "Service istio-system/istio-ingressgateway",
            ]
        );
        assert_eq!(got[0].uid.as_deref(), Some("uid-old"));
        assert_eq!(got[2].component.as_deref(), Some("IngressGateways"));
    }

    #[test]
    fn never_selects_objects_missing_an_owner_label() {
        let mut other_revision = listed(
            "Deployment",
            Some("istio-system"),
            "old",
            &[(COMPONENT_LABEL, "Pilot")],
        );
        other_revision
            .labels
            .insert("istio.io/rev".into(), "canary".into());
        let mut unmanaged = listed(
            "Deployment",
            Some("istio-system"),
            "old2",
            &[(COMPONENT_LABEL, "Pilot")],
        );
        unmanaged.labels.remove("operator.istio.io/managed");
        assert!(
            prune_selection(&installation(), &[other_revision, unmanaged], "default").is_empty()
        );
    }

    #[test]
    fn selectors() {
        assert_eq!(
            selector(&owner(), &[COMPONENT_LABEL], None),
            "istio.io/rev=default,operator.istio.io/managed=Reconcile,operator.istio.io/component"
        );
        let within = ["Pilot".to_string(), "Cni".to_string()];
        assert_eq!(
            selector(
                &BTreeMap::new(),
                &[COMPONENT_LABEL],
                Some((COMPONENT_LABEL, &within))
            ),
            "operator.istio.io/component,operator.istio.io/component in (Pilot,Cni)"
        );
    }

    #[test]
    fn deletion_order_puts_webhooks_first_and_crds_last() {
        assert_eq!(PRUNED_KINDS[0].kind, "MutatingWebhookConfiguration");
        assert_eq!(
            PRUNED_KINDS.last().unwrap().kind,
            "CustomResourceDefinition"
        );
        let pos = |k: &str| PRUNED_KINDS.iter().position(|p| p.kind == k).unwrap();
        assert!(pos("Deployment") < pos("ServiceAccount"));
        assert!(pos("RoleBinding") < pos("Role"));
        assert!(pos("ClusterRoleBinding") < pos("ClusterRole"));
        assert!(pos("EnvoyFilter") < pos("CustomResourceDefinition"));
        // istioctl prunes 16 kinds; purge adds CRDs and NetworkAttachmentDefinitions.
        assert_eq!(PRUNED_KINDS.iter().filter(|k| !k.purge_only).count(), 16);
    }
}
