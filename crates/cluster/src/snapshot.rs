//! An installation's own objects as they were before an install applied anything: one
//! label-selected, metadata-only list per kind, read once and used twice. The applies take each
//! object's `resourceVersion` from it (to tell created, configured and unchanged apart) and the
//! prune after the install takes its candidates from it, so neither lists again. Objects
//! without the installation's owner labels are never read.
//!
//! Kinds served by a CustomResourceDefinition the install itself applies are listed without a
//! selector and filtered here: the API server answers a label-selected list of a kind whose
//! storage has only just started (the first request for a CRD's kind starts it) with 429 and a
//! one-second `Retry-After`, while a paginated list without a selector is served from etcd.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use futures::{StreamExt, TryStreamExt};
use vocab::labels::COMPONENT_LABEL;

use crate::listed::{Listed, group_of, selector};
use crate::{Client, Error};

/// An object as read before applying it: its metadata (`{"metadata": …}`), or all of it. The
/// snapshot holds what it listed so; the applies read the rest so (`crate::apply`).
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    /// Shared with the client's list of the kind when read from one (`crate::reads`).
    pub(crate) object: std::sync::Arc<serde_json::Value>,
    pub(crate) whole: bool,
}

/// A kind as the snapshot keys it: (group, kind). Versions do not matter: every version of a
/// kind lists the same objects.
pub(crate) type GroupKind = (String, String);

/// Which kinds were listed, and the installation's objects of each.
#[derive(Debug, Clone, Default)]
pub(crate) struct Snapshot {
    listed: BTreeSet<GroupKind>,
    objects: Vec<Listed>,
    /// (group, kind, namespace, name) → the object's metadata as listed, for the applies'
    /// outcomes (`crate::outcome`).
    versions: HashMap<(String, String, Option<String>, String), Seen>,
}

/// How one kind is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Read {
    /// Its CRD was created by this install: nothing of it can exist, so it is not listed.
    Nothing,
    /// A label-selected list.
    Selected,
    /// A list without a selector, filtered here (a kind served by a CRD; see the module docs).
    Unselected,
}

/// Whether `labels` make an object one of the installation's: every owner label, and a
/// component label (the same rule as the selector the lists use).
pub(crate) fn carries(labels: &BTreeMap<String, String>, owner: &BTreeMap<String, String>) -> bool {
    labels.contains_key(COMPONENT_LABEL) && owner.iter().all(|(k, v)| labels.get(k) == Some(v))
}

impl Snapshot {
    /// Whether `kind` was listed (a kind the server refused to list is not).
    pub(crate) fn covers(&self, group: &str, kind: &str) -> bool {
        self.listed.contains(&(group.to_string(), kind.to_string()))
    }

    /// The installation's objects of `kind` (empty if it was not listed).
    pub(crate) fn objects_of<'a>(
        &'a self,
        group: &'a str,
        kind: &'a str,
    ) -> impl Iterator<Item = &'a Listed> + 'a {
        self.objects
            .iter()
            .filter(move |l| l.object.kind == kind && group_of(&l.object.api_version) == group)
    }

    /// One of the installation's objects as listed (its metadata), if it was listed.
    pub(crate) fn seen(
        &self,
        group: &str,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> Option<&Seen> {
        self.versions.get(&(
            group.to_string(),
            kind.to_string(),
            namespace.map(str::to_string),
            name.to_string(),
        ))
    }

    /// The `resourceVersion` of one of the installation's objects, if it had one.
    #[cfg(test)]
    fn resource_version(
        &self,
        group: &str,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> Option<&str> {
        self.seen(group, kind, namespace, name)?
            .object
            .pointer("/metadata/resourceVersion")?
            .as_str()
    }

    fn insert(&mut self, group_kind: GroupKind, listed: Vec<Listed>) {
        for l in &listed {
            if let Some(rv) = &l.resource_version {
                let seen = Seen {
                    object: std::sync::Arc::new(serde_json::json!({"metadata": {
                        "name": l.object.name,
                        "resourceVersion": rv,
                        "managedFields": l.managed_fields,
                    }})),
                    whole: false,
                };
                self.versions.insert(
                    (
                        group_kind.0.clone(),
                        group_kind.1.clone(),
                        l.object.namespace.clone(),
                        l.object.name.clone(),
                    ),
                    seen,
                );
            }
        }
        self.objects.extend(listed);
        self.listed.insert(group_kind);
    }
}

impl Client {
    /// Lists the objects carrying `owner` labels of every kind in `kinds` (group, version,
    /// kind, and how to read it), a few lists at a time. A kind the server refuses to list
    /// (403) is left out: the applies then read its objects one by one, and a prune lists it
    /// (and reports the refusal) itself.
    pub(crate) async fn snapshot_owned(
        &self,
        kinds: &[(String, String, String, Read)],
        owner: &BTreeMap<String, String>,
    ) -> Result<Snapshot, Error> {
        let selected = selector(owner, &[COMPONENT_LABEL], None);
        let lists: Vec<_> = kinds
            .iter()
            .map(|(group, version, kind, read)| {
                let selected = selected.as_str();
                async move {
                    let group_kind = (group.clone(), kind.clone());
                    let listed = match read {
                        Read::Nothing => Ok(Vec::new()),
                        Read::Selected => self.list_labelled(group, version, kind, selected).await,
                        Read::Unselected => {
                            self.list_labelled(group, version, kind, "")
                                .await
                                .map(|all| {
                                    all.into_iter()
                                        .filter(|l| carries(&l.labels, owner))
                                        .collect()
                                })
                        }
                    };
                    match listed {
                        Ok(listed) => Ok(Some((group_kind, listed))),
                        Err(Error::List {
                            source: kube::Error::Api(status),
                            ..
                        }) if status.code == 403 => Ok(None),
                        Err(e) => Err(e),
                    }
                }
            })
            .collect();
        let per_kind: Vec<Option<(GroupKind, Vec<Listed>)>> = futures::stream::iter(lists)
            .buffered(8)
            .try_collect()
            .await?;
        let mut snapshot = Snapshot::default();
        for (group_kind, listed) in per_kind.into_iter().flatten() {
            snapshot.insert(group_kind, listed);
        }
        Ok(snapshot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vocab::ObjectRef;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn owned_objects_carry_every_owner_label_and_a_component() {
        let owner = labels(&[
            ("istio.io/rev", "default"),
            ("operator.istio.io/managed", "Reconcile"),
        ]);
        let mut l = owner.clone();
        assert!(!carries(&l, &owner), "no component label");
        l.insert(COMPONENT_LABEL.into(), "Pilot".into());
        assert!(carries(&l, &owner));
        l.insert("istio.io/rev".into(), "canary".into());
        assert!(!carries(&l, &owner));
    }

    #[test]
    fn versions_are_found_by_group_kind_namespace_and_name() {
        let mut s = Snapshot::default();
        let listed =
            |api_version: &str, kind: &str, ns: Option<&str>, name: &str, rv: &str| Listed {
                object: ObjectRef {
                    api_version: api_version.into(),
                    kind: kind.into(),
                    namespace: ns.map(str::to_string),
                    name: name.into(),
                },
                namespaced: ns.is_some(),
                labels: BTreeMap::new(),
                uid: None,
                resource_version: Some(rv.into()),
                managed_fields: Vec::new(),
            };
        s.insert(
            ("apps".into(), "Deployment".into()),
            vec![listed(
                "apps/v1",
                "Deployment",
                Some("istio-system"),
                "istiod",
                "7",
            )],
        );
        s.insert(
            ("rbac.authorization.k8s.io".into(), "ClusterRole".into()),
            vec![listed(
                "rbac.authorization.k8s.io/v1",
                "ClusterRole",
                None,
                "r",
                "9",
            )],
        );
        s.insert(("".into(), "Service".into()), Vec::new());
        assert_eq!(
            s.resource_version("apps", "Deployment", Some("istio-system"), "istiod"),
            Some("7")
        );
        assert_eq!(
            s.resource_version("apps", "Deployment", Some("other"), "istiod"),
            None
        );
        assert_eq!(
            s.resource_version("rbac.authorization.k8s.io", "ClusterRole", None, "r"),
            Some("9")
        );
        assert!(s.covers("", "Service") && !s.covers("", "ConfigMap"));
        assert_eq!(s.objects_of("apps", "Deployment").count(), 1);
        assert_eq!(s.objects_of("", "Deployment").count(), 0);
    }
}
