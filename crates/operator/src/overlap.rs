//! Objects several IstioOperators render (a default and a revisioned control plane in one
//! namespace both render `istio-reader-service-account`, for one). Without a rule, each reconcile
//! relabels the object as its own (the last writer wins, back and forth) and an uninstall of
//! either deletes what the other still needs.
//!
//! The rule: the oldest IstioOperator (creation time, then namespace and name) applies and owns
//! such an object; the others leave it out of their applies (so it never carries their labels,
//! and their prunes never see it) and report the overlap in their status, as the oldest does. An
//! uninstall keeps the objects another IstioOperator still renders; that one takes them over on
//! its next reconcile, which the controller triggers. The claims are what this process last
//! rendered for each IstioOperator. Pure: no I/O.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::Value;

use crate::owned::Owner;

/// An object as claims compare it: kind, namespace (empty for cluster-scoped kinds, whatever the
/// render says) and name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key {
    pub group: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.namespace.is_empty() {
            write!(f, "{} {}", self.kind, self.name)
        } else {
            write!(f, "{} {}/{}", self.kind, self.namespace, self.name)
        }
    }
}

impl Key {
    /// The key of a rendered or live object (`None` without a kind or name).
    pub fn of(object: &Value) -> Option<Key> {
        let field = |p: &str| object.pointer(p).and_then(Value::as_str).unwrap_or("");
        let api_version = field("/apiVersion");
        let kind = field("/kind");
        let name = field("/metadata/name");
        if kind.is_empty() || name.is_empty() {
            return None;
        }
        Some(Key::new(
            api_version,
            kind,
            field("/metadata/namespace"),
            name,
        ))
    }

    /// `namespace` is dropped for the cluster-scoped kinds the operator knows.
    pub fn new(api_version: &str, kind: &str, namespace: &str, name: &str) -> Key {
        let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
        let cluster_scoped = crate::owned::owned_kind(api_version, kind)
            .is_some_and(|k| !k.namespaced)
            || kind == "Namespace";
        Key {
            group: group.to_string(),
            kind: kind.to_string(),
            namespace: if cluster_scoped {
                String::new()
            } else {
                namespace.to_string()
            },
            name: name.to_string(),
        }
    }
}

/// An IstioOperator's place in the order: older first.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Seniority {
    /// RFC 3339 (sorts as time).
    created: String,
    namespace: String,
    name: String,
}

/// What each IstioOperator last rendered.
#[derive(Debug, Default)]
pub struct Claims {
    by_owner: HashMap<Owner, (Seniority, BTreeSet<Key>)>,
}

/// One IstioOperator's objects that others render too.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Overlaps {
    /// Each shared object, the other IstioOperators that render it, and who keeps it.
    pub shared: BTreeMap<Key, (Vec<Owner>, Owner)>,
}

impl Overlaps {
    /// The objects `owner` must leave to an older IstioOperator.
    pub fn yielded(&self, owner: &Owner) -> BTreeSet<Key> {
        self.shared
            .iter()
            .filter(|(_, (_, keeper))| keeper != owner)
            .map(|(k, _)| k.clone())
            .collect()
    }

    /// Every IstioOperator it shares an object with.
    pub fn partners(&self) -> BTreeSet<Owner> {
        self.shared
            .values()
            .flat_map(|(others, _)| others.iter().cloned())
            .collect()
    }

    /// One line per shared object, for the status.
    pub fn lines(&self) -> Vec<String> {
        self.shared
            .iter()
            .map(|(key, (others, keeper))| {
                let others: Vec<String> = others.iter().map(Owner::to_string).collect();
                format!(
                    "{key} (also rendered by {}; applied by {keeper})",
                    others.join(", ")
                )
            })
            .collect()
    }
}

impl Claims {
    /// Records what `owner` (created at `created`, RFC 3339) renders now.
    pub fn set(&mut self, owner: &Owner, created: &str, keys: BTreeSet<Key>) {
        let seniority = Seniority {
            created: created.to_string(),
            namespace: owner.namespace.clone(),
            name: owner.name.clone(),
        };
        self.by_owner.insert(owner.clone(), (seniority, keys));
    }

    /// Forgets `owner` (uninstalled).
    pub fn remove(&mut self, owner: &Owner) {
        self.by_owner.remove(owner);
    }

    /// The IstioOperators whose last render holds `key`.
    pub fn owners_of(&self, key: &Key) -> Vec<Owner> {
        let mut owners: Vec<(&Seniority, &Owner)> = self
            .by_owner
            .iter()
            .filter(|(_, (_, keys))| keys.contains(key))
            .map(|(o, (s, _))| (s, o))
            .collect();
        owners.sort();
        owners.into_iter().map(|(_, o)| o.clone()).collect()
    }

    /// The objects `owner`'s last render shares with others, and who keeps each (the oldest).
    pub fn overlaps(&self, owner: &Owner) -> Overlaps {
        let mut out = Overlaps::default();
        let Some((_, keys)) = self.by_owner.get(owner) else {
            return out;
        };
        for key in keys {
            let owners = self.owners_of(key);
            if owners.len() < 2 {
                continue;
            }
            let keeper = owners[0].clone();
            let others = owners.into_iter().filter(|o| o != owner).collect();
            out.shared.insert(key.clone(), (others, keeper));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn owner(ns: &str, name: &str) -> Owner {
        Owner {
            namespace: ns.into(),
            name: name.into(),
        }
    }

    fn keys(objects: &[Value]) -> BTreeSet<Key> {
        objects.iter().filter_map(Key::of).collect()
    }

    #[test]
    fn cluster_scoped_keys_ignore_the_rendered_namespace() {
        let a = Key::of(
            &json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "r", "namespace": "istio-system"}}),
        )
        .unwrap();
        let b = Key::new("rbac.authorization.k8s.io/v1", "ClusterRole", "", "r");
        assert_eq!(a, b);
        assert_eq!(a.to_string(), "ClusterRole r");
        let sa = Key::new("v1", "ServiceAccount", "istio-system", "reader");
        assert_eq!(sa.to_string(), "ServiceAccount istio-system/reader");
        assert!(Key::of(&json!({"kind": "ConfigMap"})).is_none());
    }

    #[test]
    fn the_oldest_keeps_shared_objects_and_both_see_the_overlap() {
        let reader = json!({"apiVersion": "v1", "kind": "ServiceAccount",
            "metadata": {"name": "reader", "namespace": "istio-system"}});
        let istiod = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "istiod", "namespace": "istio-system"}});
        let canary = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "istiod-canary", "namespace": "istio-system"}});
        let (old, new) = (owner("a", "z-old"), owner("a", "b-new"));
        let mut claims = Claims::default();
        claims.set(
            &new,
            "2026-01-02T00:00:00Z",
            keys(&[reader.clone(), canary]),
        );
        assert!(claims.overlaps(&new).shared.is_empty());
        claims.set(
            &old,
            "2026-01-01T00:00:00Z",
            keys(&[reader.clone(), istiod]),
        );

        let reader_key = Key::of(&reader).unwrap();
        let for_new = claims.overlaps(&new);
        assert_eq!(for_new.yielded(&new), BTreeSet::from([reader_key.clone()]));
        assert_eq!(for_new.partners(), BTreeSet::from([old.clone()]));
        assert_eq!(
            for_new.lines(),
            ["ServiceAccount istio-system/reader (also rendered by a/z-old; applied by a/z-old)"]
        );
        let for_old = claims.overlaps(&old);
        assert!(for_old.yielded(&old).is_empty());
        assert_eq!(for_old.partners(), BTreeSet::from([new.clone()]));
        assert_eq!(claims.owners_of(&reader_key), [old.clone(), new.clone()]);

        // The oldest is uninstalled: the other keeps the object from now on.
        claims.remove(&old);
        assert!(claims.overlaps(&new).shared.is_empty());
        assert_eq!(claims.owners_of(&reader_key), [new]);
    }

    #[test]
    fn same_creation_time_orders_by_namespace_and_name() {
        let cm = Key::new("v1", "ConfigMap", "n", "c");
        let mut claims = Claims::default();
        for o in [owner("b", "x"), owner("a", "y")] {
            claims.set(&o, "2026-01-01T00:00:00Z", BTreeSet::from([cm.clone()]));
        }
        assert_eq!(claims.owners_of(&cm), [owner("a", "y"), owner("b", "x")]);
    }
}
