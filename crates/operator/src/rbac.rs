//! The operator's permissions, derived from what it installs.
//!
//! Kubernetes lets a subject create a Role or ClusterRole (or bind one) only when it already
//! holds every permission in it, unless it has `escalate` (or `bind`) — the "high-privilege
//! controller" Istio removed its own operator for. So the operator holds exactly:
//! - cluster-wide (ClusterRole `bosun-operator`): the union of the rules of every ClusterRole
//!   Istio's charts render for the [`SUPPORTED_PROFILES`], plus what its own code does
//!   ([`own_rules`]: the verbs apply, drift watches, prune and uninstall send for each kind it
//!   applies, its IstioOperators, their status and Events);
//! - in each namespace Istio is installed into (ClusterRole `bosun-operator-istio-namespace`,
//!   bound there by a RoleBinding): the union of the rules of every Role the charts render.
//!   That is where the write access to Secrets Istio's Roles grant istiod lives: the operator
//!   can write Secrets only in those namespaces, and applies none itself (Istio's charts
//!   render no Secret). The Helm release records of an IstioOperator with
//!   `bosun.io/helm-releases` (see [`crate::helm`]) are Secrets in those namespaces, read,
//!   written and deleted through these rules; no rule of its own is added for them.
//!
//! No `escalate`, no `bind`; wildcards only where Istio's own rules have them (a subject can
//! grant `*` only by holding `*`). The union is computed from the render by [`derive`] and
//! kept in `charts/bosun-operator/files/rbac.json`, which both `operator dump` and the Helm
//! chart read; a test renders the profiles again and fails when the file is stale (the pinned
//! charts changed). Pure: no I/O.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::owned::OWNED_KINDS;

/// The built-in profiles whose Roles and ClusterRoles the operator's permissions cover. The
/// OpenShift profiles are left out: they add `use` of the `privileged` SecurityContextConstraints,
/// which no operator on other clusters should hold.
pub const SUPPORTED_PROFILES: [&str; 8] = [
    "ambient", "default", "demo", "empty", "minimal", "preview", "remote", "stable",
];

/// The derived rules, as stored in `charts/bosun-operator/files/rbac.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rbac {
    /// Which profiles the rules were derived from.
    pub profiles: Vec<String>,
    /// The rules of ClusterRole `bosun-operator`.
    #[serde(rename = "clusterRules")]
    pub cluster_rules: Vec<Value>,
    /// The rules of ClusterRole `bosun-operator-istio-namespace`, bound in Istio's namespaces.
    #[serde(rename = "namespaceRules")]
    pub namespace_rules: Vec<Value>,
}

/// The file both the CLI and the Helm chart read (see the module docs).
pub const RBAC_JSON: &str = include_str!("../../../charts/bosun-operator/files/rbac.json");

/// The derived rules in [`RBAC_JSON`].
pub fn committed() -> Rbac {
    serde_json::from_str(RBAC_JSON).expect("charts/bosun-operator/files/rbac.json is valid")
}

/// One permission: a verb on a resource (or a non-resource URL) of a group, maybe limited to
/// one name (`""`: any).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Permission {
    group: String,
    resource: String,
    name: String,
    verb: String,
    /// A `nonResourceURLs` rule (then `group` and `name` are empty and `resource` the URL).
    url: bool,
}

fn strings(rule: &Value, key: &str) -> Vec<String> {
    rule.get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

fn permissions(rule: &Value, out: &mut BTreeSet<Permission>) {
    let verbs = strings(rule, "verbs");
    for url in strings(rule, "nonResourceURLs") {
        for verb in &verbs {
            out.insert(Permission {
                group: String::new(),
                resource: url.clone(),
                name: String::new(),
                verb: verb.clone(),
                url: true,
            });
        }
    }
    let mut names = strings(rule, "resourceNames");
    if names.is_empty() {
        names.push(String::new());
    }
    for group in strings(rule, "apiGroups") {
        for resource in strings(rule, "resources") {
            for name in &names {
                for verb in &verbs {
                    out.insert(Permission {
                        group: group.clone(),
                        resource: resource.clone(),
                        name: name.clone(),
                        verb: verb.clone(),
                        url: false,
                    });
                }
            }
        }
    }
}

/// The union of `rules` as few rules as keeps it readable: a permission limited to a name is
/// dropped when the same verb is held for every name; then, per API group (and name), the
/// resources with the same verbs share a rule. Sorted, so the result is stable.
pub fn compact<'a>(rules: impl IntoIterator<Item = &'a Value>) -> Vec<Value> {
    let mut all = BTreeSet::new();
    for rule in rules {
        permissions(rule, &mut all);
    }
    let unnamed: BTreeSet<(String, String, String, bool)> = all
        .iter()
        .filter(|p| p.name.is_empty())
        .map(|p| (p.group.clone(), p.resource.clone(), p.verb.clone(), p.url))
        .collect();
    // (url, group, name) → resource → verbs
    let mut by_resource: BTreeMap<(bool, String, String), BTreeMap<String, BTreeSet<String>>> =
        BTreeMap::new();
    for p in &all {
        let key = (p.group.clone(), p.resource.clone(), p.verb.clone(), p.url);
        if !p.name.is_empty() && unnamed.contains(&key) {
            continue;
        }
        by_resource
            .entry((p.url, p.group.clone(), p.name.clone()))
            .or_default()
            .entry(p.resource.clone())
            .or_default()
            .insert(p.verb.clone());
    }
    let mut out = Vec::new();
    for ((url, group, name), resources) in by_resource {
        // verbs → resources
        let mut by_verbs: BTreeMap<Vec<String>, Vec<String>> = BTreeMap::new();
        for (resource, verbs) in resources {
            by_verbs
                .entry(verbs.into_iter().collect())
                .or_default()
                .push(resource);
        }
        for (verbs, resources) in by_verbs {
            let rule = if url {
                json!({"nonResourceURLs": resources, "verbs": verbs})
            } else if name.is_empty() {
                json!({"apiGroups": [group], "resources": resources, "verbs": verbs})
            } else {
                json!({"apiGroups": [group], "resources": resources, "resourceNames": [name], "verbs": verbs})
            };
            out.push(rule);
        }
    }
    out
}

/// What the operator's own code sends, whatever it installs.
pub fn own_rules() -> Vec<Value> {
    let mut rules = vec![
        // The finalizer is added and removed with patches; the status is applied.
        json!({"apiGroups": ["install.istio.io"], "resources": ["istiooperators"],
               "verbs": ["get", "list", "watch", "patch"]}),
        json!({"apiGroups": ["install.istio.io"], "resources": ["istiooperators/status"],
               "verbs": ["patch"]}),
        // Target namespaces are created when they do not exist, never deleted.
        json!({"apiGroups": [""], "resources": ["namespaces"], "verbs": ["get", "create"]}),
        json!({"apiGroups": ["events.k8s.io"], "resources": ["events"],
               "verbs": ["create", "patch"]}),
        // What rendering reads of the cluster, as istioctl does (`iop::detect`): Calico's
        // settings, and only those (Cilium's ConfigMap is readable already: an owned kind).
        json!({"apiGroups": ["projectcalico.org"], "resources": ["felixconfigurations"],
               "resourceNames": ["default"], "verbs": ["get"]}),
    ];
    for k in OWNED_KINDS {
        // Server-side apply is a patch, and a patch that creates needs `create` as well; the
        // no-op check reads each object, the drift watches list and watch by label; prune and
        // uninstall delete (never CRDs).
        let mut verbs = vec!["get", "list", "watch", "create", "patch"];
        if k.pruned {
            verbs.push("delete");
        }
        rules.push(json!({"apiGroups": [k.group], "resources": [k.plural], "verbs": verbs}));
    }
    // Uninstall lists every kind istioctl prunes by the owner's labels, including kinds Istio's
    // charts do not render (it deletes none of them: none carries the operator's labels).
    for k in cluster::PRUNED_KINDS.iter().filter(|k| !k.purge_only) {
        if crate::owned::OWNED_KINDS
            .iter()
            .any(|o| o.group == k.group && o.kind == k.kind)
        {
            continue;
        }
        let plural = format!("{}s", k.kind.to_ascii_lowercase());
        rules.push(json!({"apiGroups": [k.group], "resources": [plural], "verbs": ["list"]}));
    }
    rules
}

/// Derives the operator's rules from the objects rendered for each supported profile.
pub fn derive(rendered: &[(String, Vec<Value>)]) -> Rbac {
    let mut cluster_rules = own_rules();
    let mut namespace_rules = Vec::new();
    for (_, objects) in rendered {
        for o in objects {
            if o.get("apiVersion").and_then(Value::as_str) != Some("rbac.authorization.k8s.io/v1") {
                continue;
            }
            let rules = o
                .get("rules")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .cloned();
            match o.get("kind").and_then(Value::as_str) {
                Some("ClusterRole") => cluster_rules.extend(rules),
                Some("Role") => namespace_rules.extend(rules),
                _ => {}
            }
        }
    }
    Rbac {
        profiles: rendered.iter().map(|(p, _)| p.clone()).collect(),
        cluster_rules: compact(&cluster_rules),
        namespace_rules: compact(&namespace_rules),
    }
}

/// The places in `rules` that hold a wildcard (`*` as group, resource, verb or URL), as
/// `group/resource:verb` lines.
pub fn wildcards(rules: &[Value]) -> Vec<String> {
    let mut all = BTreeSet::new();
    for rule in rules {
        permissions(rule, &mut all);
    }
    all.into_iter()
        .filter(|p| {
            p.group == "*" || p.resource == "*" || p.verb == "*" || p.resource.ends_with("/*")
        })
        .map(|p| format!("{}/{}:{}", p.group, p.resource, p.verb))
        .collect()
}

/// Whether `holder` covers `wanted`, as the API server's escalation check decides it for the
/// rules these profiles use (exact names, `*` for groups, resources and verbs, and
/// `resourceNames`): the operator can create a role with `wanted` only if this holds.
pub fn covers(holder: &[Value], wanted: &[Value]) -> Vec<String> {
    let mut held = BTreeSet::new();
    for rule in holder {
        permissions(rule, &mut held);
    }
    let mut needed = BTreeSet::new();
    for rule in wanted {
        permissions(rule, &mut needed);
    }
    let any = |want: &str, have: &str| have == "*" || have == want;
    needed
        .into_iter()
        .filter(|n| {
            !held.iter().any(|h| {
                h.url == n.url
                    && any(&n.group, &h.group)
                    && (any(&n.resource, &h.resource)
                        || (h.resource.ends_with("/*")
                            && n.resource.split('/').next() == h.resource.split('/').next()))
                    && any(&n.verb, &h.verb)
                    && (h.name.is_empty() || h.name == n.name)
            })
        })
        .map(|n| {
            format!(
                "{}/{}:{}{}",
                n.group,
                n.resource,
                n.verb,
                if n.name.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", n.name)
                }
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_merges_and_drops_what_is_covered() {
        let rules = [
            json!({"apiGroups": ["", "apps"], "resources": ["pods"], "verbs": ["get", "list"]}),
            json!({"apiGroups": [""], "resources": ["services"], "verbs": ["list", "get"]}),
            json!({"apiGroups": [""], "resources": ["pods"], "resourceNames": ["a"], "verbs": ["get", "delete"]}),
            json!({"apiGroups": ["apps"], "resources": ["pods"], "verbs": ["watch"]}),
        ];
        assert_eq!(
            compact(&rules),
            [
                json!({"apiGroups": [""], "resources": ["pods", "services"], "verbs": ["get", "list"]}),
                json!({"apiGroups": [""], "resources": ["pods"], "resourceNames": ["a"], "verbs": ["delete"]}),
                json!({"apiGroups": ["apps"], "resources": ["pods"], "verbs": ["get", "list", "watch"]}),
            ]
        );
    }

    #[test]
    fn derive_takes_the_union_of_cluster_roles_and_roles() {
        let cluster_role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "rules": [{"apiGroups": ["x.io"], "resources": ["*"], "verbs": ["get"]}]});
        let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "rules": [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["create"]}]});
        let rbac = derive(&[
            ("a".into(), vec![cluster_role.clone()]),
            ("b".into(), vec![cluster_role, role]),
        ]);
        assert_eq!(rbac.profiles, ["a", "b"]);
        assert_eq!(
            rbac.namespace_rules,
            [json!({"apiGroups": [""], "resources": ["secrets"], "verbs": ["create"]})]
        );
        assert!(
            rbac.cluster_rules
                .contains(&json!({"apiGroups": ["x.io"], "resources": ["*"], "verbs": ["get"]}))
        );
        assert!(covers(&rbac.cluster_rules, &own_rules()).is_empty());
    }

    #[test]
    fn own_rules_never_escalate_bind_or_use_wildcards() {
        let own = compact(&own_rules());
        assert!(wildcards(&own).is_empty(), "{:?}", wildcards(&own));
        let text = serde_json::to_string(&own).unwrap();
        assert!(!text.contains("\"escalate\"") && !text.contains("\"bind\""));
        // Secrets are neither applied nor watched by the operator itself: uninstall lists them.
        let secrets = [json!({"apiGroups": [""], "resources": ["secrets"], "verbs": ["create"]})];
        assert_eq!(covers(&own, &secrets), ["/secrets:create".to_string()]);
    }

    #[test]
    fn covers_follows_wildcards_and_names() {
        let holder = [
            json!({"apiGroups": ["a.io"], "resources": ["*"], "verbs": ["get"]}),
            json!({"apiGroups": [""], "resources": ["pods"], "resourceNames": ["p"], "verbs": ["*"]}),
        ];
        let fine = [
            json!({"apiGroups": ["a.io"], "resources": ["things", "*"], "verbs": ["get"]}),
            json!({"apiGroups": [""], "resources": ["pods"], "resourceNames": ["p"], "verbs": ["delete", "*"]}),
        ];
        assert!(covers(&holder, &fine).is_empty());
        let more = [
            json!({"apiGroups": ["a.io"], "resources": ["things"], "verbs": ["list"]}),
            json!({"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}),
        ];
        assert_eq!(covers(&holder, &more), ["/pods:get", "a.io/things:list"]);
    }

    #[test]
    fn the_committed_rules_cover_the_operator_and_grant_no_escalation() {
        let rbac = committed();
        assert_eq!(rbac.profiles, SUPPORTED_PROFILES);
        assert!(covers(&rbac.cluster_rules, &own_rules()).is_empty());
        for rules in [&rbac.cluster_rules, &rbac.namespace_rules] {
            let text = serde_json::to_string(rules).unwrap();
            assert!(
                !text.contains("\"escalate\"") && !text.contains("\"bind\""),
                "{text}"
            );
            assert!(!text.contains("\"impersonate\""), "{text}");
        }
    }
}
