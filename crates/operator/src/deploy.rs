//! The operator's own install (`bosun operator dump|init|remove`): the IstioOperator CRD, a
//! namespace, a ServiceAccount, a least-privilege ClusterRole and binding, a Role for leader
//! election, the Deployment running `bosun operator run`, and a Service for its metrics.
//! Pure: builds objects; `cluster` applies them.

use serde_json::{Value, json};

use crate::owned::OWNED_KINDS;

/// The name of every object of the operator's own install (but the CRD and namespace).
pub const OPERATOR_NAME: &str = "bosun-operator";
/// The port of `/metrics`, `/healthz` and `/readyz` in the operator's pod.
pub const METRICS_PORT: u16 = 8383;
/// The Lease two replicas compete for.
pub const LEASE_NAME: &str = "bosun-operator-leader";

/// How the operator is installed.
#[derive(Debug, Clone)]
pub struct DeployOptions {
    pub namespace: String,
    pub image: String,
    /// Passed on as `--watch-namespace`: only IstioOperators there are reconciled.
    pub watch_namespace: Option<String>,
    /// Passed on as `--manifests`: charts and profiles inside the image.
    pub manifests: Option<String>,
}

/// The image of `--image`, else `HUB/bosun:TAG` (no hub: `bosun:TAG`).
pub fn image(image: Option<&str>, hub: Option<&str>, tag: &str) -> String {
    match (image, hub.filter(|h| !h.is_empty())) {
        (Some(image), _) => image.to_string(),
        (None, Some(hub)) => format!("{}/bosun:{tag}", hub.trim_end_matches('/')),
        (None, None) => format!("bosun:{tag}"),
    }
}

fn labels() -> Value {
    json!({"app.kubernetes.io/name": OPERATOR_NAME, "app.kubernetes.io/part-of": "bosun-operator"})
}

fn metadata(name: &str, namespace: Option<&str>) -> Value {
    let mut meta = json!({"name": name, "labels": labels()});
    if let Some(ns) = namespace {
        meta["namespace"] = ns.into();
    }
    meta
}

/// The ClusterRole's rules: exactly what reconciles do. Each owned kind gets the verbs apply,
/// the drift watches, prune and uninstall use (CRDs no `delete`: they are never pruned).
/// Granting the Roles and ClusterRoles that Istio's charts render needs `bind` and `escalate`
/// (otherwise the operator would need every permission istiod has, cluster-wide, itself).
fn cluster_rules() -> Vec<Value> {
    let mut rules = vec![
        json!({"apiGroups": ["install.istio.io"], "resources": ["istiooperators"],
               "verbs": ["get", "list", "watch", "update", "patch"]}),
        json!({"apiGroups": ["install.istio.io"], "resources": ["istiooperators/status"],
               "verbs": ["get", "update", "patch"]}),
        json!({"apiGroups": ["install.istio.io"], "resources": ["istiooperators/finalizers"],
               "verbs": ["update"]}),
        // Target namespaces are created when they do not exist, never deleted.
        json!({"apiGroups": [""], "resources": ["namespaces"],
               "verbs": ["get", "list", "watch", "create"]}),
        json!({"apiGroups": ["", "events.k8s.io"], "resources": ["events"],
               "verbs": ["create", "patch"]}),
        // What rendering reads of the cluster, as istioctl does (`iop::detect`): Calico's
        // settings, and only those (Cilium's ConfigMap is readable already: an owned kind).
        json!({"apiGroups": ["projectcalico.org"], "resources": ["felixconfigurations"],
               "resourceNames": ["default"], "verbs": ["get"]}),
    ];
    let mut groups: Vec<&str> = Vec::new();
    for k in OWNED_KINDS {
        if !groups.contains(&k.group) {
            groups.push(k.group);
        }
    }
    for group in groups {
        let kinds = OWNED_KINDS.iter().filter(|k| k.group == group);
        let (pruned, kept): (Vec<&crate::owned::OwnedKind>, Vec<_>) = kinds.partition(|k| k.pruned);
        let read_write = ["get", "list", "watch", "create", "update", "patch"];
        if !pruned.is_empty() {
            let resources: Vec<&str> = pruned.iter().map(|k| k.plural).collect();
            let mut verbs = read_write.to_vec();
            verbs.push("delete");
            if group == "rbac.authorization.k8s.io" {
                verbs.extend(["bind", "escalate"]);
            }
            rules.push(json!({"apiGroups": [group], "resources": resources, "verbs": verbs}));
        }
        if !kept.is_empty() {
            let resources: Vec<&str> = kept.iter().map(|k| k.plural).collect();
            rules.push(json!({"apiGroups": [group], "resources": resources, "verbs": read_write}));
        }
    }
    rules
}

/// Every object of the operator's install, in apply order.
pub fn operator_objects(options: &DeployOptions) -> Vec<Value> {
    let ns = options.namespace.as_str();
    let mut args = vec![
        "operator".to_string(),
        "run".to_string(),
        format!("--metrics-addr=0.0.0.0:{METRICS_PORT}"),
        format!("--lease-namespace={ns}"),
    ];
    if let Some(watch) = &options.watch_namespace {
        args.push(format!("--watch-namespace={watch}"));
    }
    if let Some(manifests) = &options.manifests {
        args.push(format!("--manifests={manifests}"));
    }
    let probe = |path: &str| json!({"httpGet": {"path": path, "port": "http-metrics"}, "periodSeconds": 10, "failureThreshold": 3});
    vec![
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": metadata(ns, None)}),
        crate::crd::istio_operator_crd(),
        json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": metadata(OPERATOR_NAME, Some(ns))}),
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": metadata(OPERATOR_NAME, None),
            "rules": cluster_rules()
        }),
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
            "metadata": metadata(OPERATOR_NAME, None),
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": OPERATOR_NAME},
            "subjects": [{"kind": "ServiceAccount", "name": OPERATOR_NAME, "namespace": ns}]
        }),
        // Leader election: Leases only in the operator's own namespace.
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": metadata(OPERATOR_NAME, Some(ns)),
            "rules": [{"apiGroups": ["coordination.k8s.io"], "resources": ["leases"],
                       "verbs": ["get", "create", "update"]}]
        }),
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": metadata(OPERATOR_NAME, Some(ns)),
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": OPERATOR_NAME},
            "subjects": [{"kind": "ServiceAccount", "name": OPERATOR_NAME, "namespace": ns}]
        }),
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": metadata(OPERATOR_NAME, Some(ns)),
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": {"app.kubernetes.io/name": OPERATOR_NAME}},
                "template": {
                    "metadata": {"labels": labels()},
                    "spec": {
                        "serviceAccountName": OPERATOR_NAME,
                        "securityContext": {"runAsNonRoot": true, "runAsUser": 65532, "seccompProfile": {"type": "RuntimeDefault"}},
                        "containers": [{
                            "name": "operator",
                            "image": options.image,
                            "args": args,
                            "env": [
                                {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                                // The pinned release's charts are cached here when no --manifests is given.
                                {"name": "BOSUN_CACHE", "value": "/var/cache/bosun"},
                                // mimalloc's defaults (eagerly committed arenas, delayed purging) suit
                                // a short render; a long-running, mostly idle operator halves its
                                // RSS without them (BENCHMARKS.md).
                                {"name": "MIMALLOC_ARENA_EAGER_COMMIT", "value": "0"},
                                {"name": "MIMALLOC_PURGE_DELAY", "value": "0"}
                            ],
                            "ports": [{"name": "http-metrics", "containerPort": METRICS_PORT}],
                            "livenessProbe": probe("/healthz"),
                            "readinessProbe": probe("/readyz"),
                            "resources": {"requests": {"cpu": "50m", "memory": "64Mi"}, "limits": {"memory": "256Mi"}},
                            "securityContext": {"allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true, "capabilities": {"drop": ["ALL"]}},
                            "volumeMounts": [{"name": "cache", "mountPath": "/var/cache/bosun"}]
                        }],
                        "volumes": [{"name": "cache", "emptyDir": {}}]
                    }
                }
            }
        }),
        json!({
            "apiVersion": "v1", "kind": "Service",
            "metadata": metadata(OPERATOR_NAME, Some(ns)),
            "spec": {
                "selector": {"app.kubernetes.io/name": OPERATOR_NAME},
                "ports": [{"name": "http-metrics", "port": METRICS_PORT, "targetPort": "http-metrics"}]
            }
        }),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> DeployOptions {
        DeployOptions {
            namespace: "ops".into(),
            image: image(None, Some("example.com/mesh/"), "1.2"),
            watch_namespace: Some("istio-system".into()),
            manifests: None,
        }
    }

    #[test]
    fn images() {
        assert_eq!(image(Some("a/b:c"), Some("h"), "t"), "a/b:c");
        assert_eq!(image(None, Some("h/"), "t"), "h/bosun:t");
        assert_eq!(image(None, None, "t"), "bosun:t");
    }

    #[test]
    fn objects_go_to_the_operator_namespace_and_run_the_operator() {
        let objects = operator_objects(&options());
        let kinds: Vec<&str> = objects
            .iter()
            .map(|o| o["kind"].as_str().unwrap())
            .collect();
        assert_eq!(
            kinds,
            [
                "Namespace",
                "CustomResourceDefinition",
                "ServiceAccount",
                "ClusterRole",
                "ClusterRoleBinding",
                "Role",
                "RoleBinding",
                "Deployment",
                "Service"
            ]
        );
        let deployment = &objects[7];
        assert_eq!(deployment["metadata"]["namespace"], "ops");
        let container = &deployment["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(container["image"], "example.com/mesh/bosun:1.2");
        assert_eq!(
            container["args"],
            json!([
                "operator",
                "run",
                "--metrics-addr=0.0.0.0:8383",
                "--lease-namespace=ops",
                "--watch-namespace=istio-system"
            ])
        );
        assert_eq!(objects[4]["subjects"][0]["namespace"], "ops");
    }

    #[test]
    fn cluster_role_covers_owned_kinds_and_never_deletes_crds() {
        let rules = cluster_rules();
        let verbs_for = |group: &str, resource: &str| -> Vec<String> {
            rules
                .iter()
                .filter(|r| r["apiGroups"][0] == group)
                .filter(|r| {
                    r["resources"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|x| x == resource)
                })
                .flat_map(|r| r["verbs"].as_array().unwrap().clone())
                .map(|v| v.as_str().unwrap().to_string())
                .collect()
        };
        for k in OWNED_KINDS {
            let verbs = verbs_for(k.group, k.plural);
            assert!(verbs.contains(&"patch".to_string()), "{}", k.kind);
            assert_eq!(
                verbs.contains(&"delete".to_string()),
                k.pruned,
                "{}",
                k.kind
            );
        }
        assert_eq!(
            verbs_for("install.istio.io", "istiooperators/status"),
            ["get", "update", "patch"]
        );
        assert!(!verbs_for("", "namespaces").contains(&"delete".to_string()));
        assert!(verbs_for("", "secrets").iter().all(|v| v != "*"));
    }
}
