//! The operator's own install (`bosun operator dump|init|remove`, and the Helm chart
//! `charts/bosun-operator`, which renders the same objects): the IstioOperator CRD, a
//! namespace, a ServiceAccount, the least-privilege ClusterRoles of [`crate::rbac`] and their
//! bindings (one RoleBinding in each namespace Istio is installed into), a Role for leader
//! election, the Deployment running `bosun operator run` from the operator image, and a Service
//! for its metrics. Pure: builds objects; `cluster` applies them.

use serde_json::{Value, json};

/// The name of every object of the operator's own install (but the CRD and namespace).
pub const OPERATOR_NAME: &str = "bosun-operator";
/// The port of `/metrics`, `/healthz` and `/readyz` in the operator's pod.
pub const METRICS_PORT: u16 = 8383;
/// The Lease two replicas compete for.
pub const LEASE_NAME: &str = "bosun-operator-leader";
/// The ClusterRole bound (by RoleBindings) in each namespace Istio is installed into.
pub const ISTIO_NAMESPACE_ROLE: &str = "bosun-operator-istio-namespace";
/// Where the operator image (`scripts/build-operator-image`, `images/operator/Containerfile`)
/// is published by default, and its name there: `localhost/bosun/operator:VERSION` is what the
/// build script tags, so a locally built image is found without a registry.
pub const DEFAULT_HUB: &str = "localhost/bosun";
pub const IMAGE_NAME: &str = "operator";
/// The install package (charts and profiles) inside the operator image.
pub const IMAGE_MANIFESTS: &str = "/usr/share/bosun/manifests";
/// The UID and GID the image runs as (no user database in the image: numbers only).
pub const RUN_AS_USER: u32 = 65532;

/// How the operator is installed.
#[derive(Debug, Clone)]
pub struct DeployOptions {
    pub namespace: String,
    pub image: String,
    /// Passed on as `--watch-namespace`: only IstioOperators there are reconciled.
    pub watch_namespace: Option<String>,
    /// Passed on as `--manifests`: charts and profiles inside the image.
    pub manifests: Option<String>,
    /// The namespaces Istio is installed into: there the operator may create what Istio's
    /// Roles grant (istiod's Secrets among them), and only there.
    pub istio_namespaces: Vec<String>,
    pub replicas: u32,
    /// The container's `resources`.
    pub resources: Value,
    /// Where the operator fetches the Istio versions IstioOperators name.
    pub sources: ReleaseSources,
}

/// Where the operator fetches the Istio versions IstioOperators name (`bosun.io/istio-version`),
/// put into its Deployment's environment as `--version` reads them (docs/versions.md). Taken
/// as given: the CLI validates them before anything is built.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReleaseSources {
    /// `BOSUN_ISTIO_MIRROR`: the release mirror (an `http(s)://` URL, an `oci://HOST/REPO`
    /// registry, or a directory in the pod).
    pub mirror: Option<String>,
    /// `BOSUN_ISTIO_MIRROR_PLAIN_HTTP=true`: the OCI mirror over plain HTTP.
    pub mirror_plain_http: bool,
    /// `GOPROXY`: where module versions come from.
    pub goproxy: Option<String>,
    /// A `kubernetes.io/dockerconfigjson` Secret in the operator's namespace: its
    /// `.dockerconfigjson` mounted as `config.json` in [`DOCKER_CONFIG_DIR`], which
    /// `DOCKER_CONFIG` names (the login for an OCI mirror).
    pub docker_config_secret: Option<String>,
}

/// Where the `docker_config_secret` is mounted in the operator's pod (`DOCKER_CONFIG`).
pub const DOCKER_CONFIG_DIR: &str = "/etc/bosun/docker";
/// The name of that volume.
const DOCKER_CONFIG_VOLUME: &str = "docker-config";

impl ReleaseSources {
    /// The container's environment for them, after the operator's own.
    fn env(&self) -> Vec<Value> {
        let mut env = Vec::new();
        if let Some(mirror) = &self.mirror {
            env.push(json!({"name": "BOSUN_ISTIO_MIRROR", "value": mirror}));
        }
        if self.mirror_plain_http {
            env.push(json!({"name": "BOSUN_ISTIO_MIRROR_PLAIN_HTTP", "value": "true"}));
        }
        if let Some(goproxy) = &self.goproxy {
            env.push(json!({"name": "GOPROXY", "value": goproxy}));
        }
        if self.docker_config_secret.is_some() {
            env.push(json!({"name": "DOCKER_CONFIG", "value": DOCKER_CONFIG_DIR}));
        }
        env
    }
}

impl DeployOptions {
    /// The defaults of `operator dump` (and of the Helm chart's values).
    pub fn new(namespace: &str, image: String) -> DeployOptions {
        DeployOptions {
            namespace: namespace.into(),
            image,
            watch_namespace: None,
            manifests: Some(IMAGE_MANIFESTS.into()),
            istio_namespaces: vec!["istio-system".into()],
            replicas: 1,
            resources: default_resources(),
            sources: ReleaseSources::default(),
        }
    }
}

/// The container's resources by default: what `operator run` needs after reconciling the
/// largest profiles (BENCHMARKS.md), with room for a render.
pub fn default_resources() -> Value {
    json!({"requests": {"cpu": "50m", "memory": "64Mi"}, "limits": {"memory": "256Mi"}})
}

/// The image of `--image`, else `HUB/operator:TAG` (hub `localhost/bosun` by default).
pub fn image(image: Option<&str>, hub: Option<&str>, tag: &str) -> String {
    match image {
        Some(image) => image.to_string(),
        None => {
            let hub = hub.filter(|h| !h.is_empty()).unwrap_or(DEFAULT_HUB);
            format!("{}/{IMAGE_NAME}:{tag}", hub.trim_end_matches('/'))
        }
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

fn binding(
    kind: &str,
    name: &str,
    namespace: Option<&str>,
    role_kind: &str,
    role: &str,
    sa_ns: &str,
) -> Value {
    json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind,
        "metadata": metadata(name, namespace),
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": role_kind, "name": role},
        "subjects": [{"kind": "ServiceAccount", "name": OPERATOR_NAME, "namespace": sa_ns}]
    })
}

/// Every object of the operator's install, in apply order.
pub fn operator_objects(options: &DeployOptions) -> Vec<Value> {
    let ns = options.namespace.as_str();
    let rbac = crate::rbac::committed();
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
    let mut env = vec![
        json!({"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}),
        // Only used when no --manifests is given (the pinned release is then fetched), and
        // for the versions IstioOperators name: the root filesystem is read-only.
        json!({"name": "BOSUN_CACHE", "value": "/tmp/bosun"}),
        // mimalloc's defaults (eagerly committed arenas, delayed purging) suit a short
        // render; a long-running, mostly idle operator halves its RSS without them
        // (BENCHMARKS.md).
        json!({"name": "MIMALLOC_ARENA_EAGER_COMMIT", "value": "0"}),
        json!({"name": "MIMALLOC_PURGE_DELAY", "value": "0"}),
    ];
    env.extend(options.sources.env());
    let mut mounts = vec![json!({"name": "tmp", "mountPath": "/tmp"})];
    let mut volumes = vec![json!({"name": "tmp", "emptyDir": {}})];
    if let Some(secret) = &options.sources.docker_config_secret {
        mounts.push(
            json!({"name": DOCKER_CONFIG_VOLUME, "mountPath": DOCKER_CONFIG_DIR, "readOnly": true}),
        );
        volumes.push(json!({"name": DOCKER_CONFIG_VOLUME, "secret": {
            "secretName": secret,
            "items": [{"key": ".dockerconfigjson", "path": "config.json"}]
        }}));
    }
    let probe = |path: &str| json!({"httpGet": {"path": path, "port": "http-metrics"}, "periodSeconds": 10, "failureThreshold": 3});
    let mut objects = vec![
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": metadata(ns, None)}),
        crate::crd::istio_operator_crd(),
        json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": metadata(OPERATOR_NAME, Some(ns))}),
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": metadata(OPERATOR_NAME, None),
            "rules": rbac.cluster_rules
        }),
        binding(
            "ClusterRoleBinding",
            OPERATOR_NAME,
            None,
            "ClusterRole",
            OPERATOR_NAME,
            ns,
        ),
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": metadata(ISTIO_NAMESPACE_ROLE, None),
            "rules": rbac.namespace_rules
        }),
    ];
    for istio_ns in &options.istio_namespaces {
        objects.push(binding(
            "RoleBinding",
            ISTIO_NAMESPACE_ROLE,
            Some(istio_ns),
            "ClusterRole",
            ISTIO_NAMESPACE_ROLE,
            ns,
        ));
    }
    objects.extend([
        // Leader election: Leases only in the operator's own namespace.
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": metadata(OPERATOR_NAME, Some(ns)),
            "rules": [{"apiGroups": ["coordination.k8s.io"], "resources": ["leases"],
                       "verbs": ["get", "create", "update"]}]
        }),
        binding("RoleBinding", OPERATOR_NAME, Some(ns), "Role", OPERATOR_NAME, ns),
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": metadata(OPERATOR_NAME, Some(ns)),
            "spec": {
                "replicas": options.replicas,
                "selector": {"matchLabels": {"app.kubernetes.io/name": OPERATOR_NAME}},
                "template": {
                    "metadata": {"labels": labels()},
                    "spec": {
                        "serviceAccountName": OPERATOR_NAME,
                        "securityContext": {"runAsNonRoot": true, "runAsUser": RUN_AS_USER, "runAsGroup": RUN_AS_USER, "seccompProfile": {"type": "RuntimeDefault"}},
                        "containers": [{
                            "name": "operator",
                            "image": options.image,
                            "args": args,
                            "env": env,
                            "ports": [{"name": "http-metrics", "containerPort": METRICS_PORT}],
                            "livenessProbe": probe("/healthz"),
                            "readinessProbe": probe("/readyz"),
                            "resources": options.resources,
                            "securityContext": {"allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true, "capabilities": {"drop": ["ALL"]}},
                            "volumeMounts": mounts
                        }],
                        "volumes": volumes
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
    ]);
    objects
}

/// What `operator dump` prints: [`operator_objects`], with each Istio namespace the operator's
/// RoleBindings go to (other than its own) made right after the operator's own Namespace, so
/// that `kubectl apply -f` of the dump works on a fresh cluster. `operator init` needs none of
/// them: its install creates the namespaces its objects go to. They carry no operator label,
/// so `operator remove` never counts them as the operator's.
pub fn dump_objects(options: &DeployOptions) -> Vec<Value> {
    let mut objects = operator_objects(options);
    let mut seen = vec![options.namespace.as_str()];
    let namespaces: Vec<Value> = options
        .istio_namespaces
        .iter()
        .filter(|ns| {
            let new = !seen.contains(&ns.as_str());
            seen.push(ns);
            new
        })
        .map(|ns| json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}))
        .collect();
    objects.splice(1..1, namespaces);
    objects
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dump_makes_the_istio_namespaces_its_bindings_need() {
        let mut options = options();
        options.istio_namespaces.push("ops".into());
        options.istio_namespaces.push("gateways".into());
        let dump = dump_objects(&options);
        let names: Vec<String> = dump[..4]
            .iter()
            .map(|o| format!("{} {}", o["kind"].as_str().unwrap(), o["metadata"]["name"]))
            .collect();
        assert_eq!(
            names,
            [
                "Namespace \"ops\"",
                "Namespace \"istio-system\"",
                "Namespace \"gateways\"",
                "CustomResourceDefinition \"istiooperators.install.istio.io\""
            ]
        );
        assert!(dump[1]["metadata"].get("labels").is_none());
        assert_eq!(dump.len(), operator_objects(&options).len() + 2);
    }

    fn options() -> DeployOptions {
        DeployOptions {
            watch_namespace: Some("istio-system".into()),
            manifests: None,
            istio_namespaces: vec!["istio-system".into(), "gateways".into()],
            ..DeployOptions::new("ops", image(None, Some("example.com/mesh/"), "1.2"))
        }
    }

    #[test]
    fn release_sources_go_into_the_environment_and_the_login_is_mounted() {
        let plain = operator_objects(&options());
        let env_names = |objects: &[Value]| -> Vec<String> {
            objects[10]["spec"]["template"]["spec"]["containers"][0]["env"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["name"].as_str().unwrap().to_string())
                .collect()
        };
        assert!(!env_names(&plain).contains(&"BOSUN_ISTIO_MIRROR".to_string()));
        let mut with = options();
        with.sources = ReleaseSources {
            mirror: Some("oci://registry.corp:5000/istio/releases".into()),
            mirror_plain_http: true,
            goproxy: Some("https://goproxy.corp".into()),
            docker_config_secret: Some("mirror-login".into()),
        };
        let objects = operator_objects(&with);
        let pod = &objects[10]["spec"]["template"]["spec"];
        let env = &pod["containers"][0]["env"];
        assert_eq!(
            env.as_array().unwrap()[4..],
            [
                json!({"name": "BOSUN_ISTIO_MIRROR", "value": "oci://registry.corp:5000/istio/releases"}),
                json!({"name": "BOSUN_ISTIO_MIRROR_PLAIN_HTTP", "value": "true"}),
                json!({"name": "GOPROXY", "value": "https://goproxy.corp"}),
                json!({"name": "DOCKER_CONFIG", "value": "/etc/bosun/docker"}),
            ]
        );
        assert_eq!(
            pod["containers"][0]["volumeMounts"][1],
            json!({"name": "docker-config", "mountPath": "/etc/bosun/docker", "readOnly": true})
        );
        assert_eq!(
            pod["volumes"][1]["secret"],
            json!({"secretName": "mirror-login", "items": [{"key": ".dockerconfigjson", "path": "config.json"}]})
        );
    }

    #[test]
    fn images() {
        assert_eq!(image(Some("a/b:c"), Some("h"), "t"), "a/b:c");
        assert_eq!(image(None, Some("h/"), "t"), "h/operator:t");
        assert_eq!(image(None, None, "t"), "localhost/bosun/operator:t");
    }

    #[test]
    fn objects_go_to_the_operator_namespace_and_run_the_operator() {
        let objects = operator_objects(&options());
        let kinds: Vec<String> = objects
            .iter()
            .map(|o| {
                let ns = o["metadata"]["namespace"].as_str().unwrap_or("");
                format!(
                    "{} {ns}/{}",
                    o["kind"].as_str().unwrap(),
                    o["metadata"]["name"].as_str().unwrap()
                )
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "Namespace /ops",
                "CustomResourceDefinition /istiooperators.install.istio.io",
                "ServiceAccount ops/bosun-operator",
                "ClusterRole /bosun-operator",
                "ClusterRoleBinding /bosun-operator",
                "ClusterRole /bosun-operator-istio-namespace",
                "RoleBinding istio-system/bosun-operator-istio-namespace",
                "RoleBinding gateways/bosun-operator-istio-namespace",
                "Role ops/bosun-operator",
                "RoleBinding ops/bosun-operator",
                "Deployment ops/bosun-operator",
                "Service ops/bosun-operator",
            ]
        );
        let deployment = &objects[10];
        let container = &deployment["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(container["image"], "example.com/mesh/operator:1.2");
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
        assert_eq!(container["securityContext"]["readOnlyRootFilesystem"], true);
        for binding in [&objects[4], &objects[6], &objects[7], &objects[9]] {
            assert_eq!(binding["subjects"][0]["namespace"], "ops", "{binding}");
        }
        assert_eq!(objects[7]["roleRef"]["kind"], "ClusterRole");
    }

    #[test]
    fn defaults_run_the_image_with_its_charts() {
        let objects = operator_objects(&DeployOptions::new(
            "istio-operator",
            image(None, None, "9"),
        ));
        let deployment = objects.iter().find(|o| o["kind"] == "Deployment").unwrap();
        let container = &deployment["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(container["image"], "localhost/bosun/operator:9");
        assert_eq!(
            container["args"][4],
            "--manifests=/usr/share/bosun/manifests"
        );
        assert_eq!(objects[6]["metadata"]["namespace"], "istio-system");
    }

    #[test]
    fn cluster_role_covers_owned_kinds_and_never_deletes_crds() {
        let objects = operator_objects(&options());
        let rules = objects[3]["rules"].as_array().unwrap().clone();
        let verbs_for = |group: &str, resource: &str| -> Vec<String> {
            rules
                .iter()
                .filter(|r| r["apiGroups"][0] == group && r.get("resourceNames").is_none())
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
        for k in crate::owned::OWNED_KINDS {
            let verbs = verbs_for(k.group, k.plural);
            assert!(verbs.contains(&"patch".to_string()), "{}", k.kind);
            assert_eq!(
                verbs.contains(&"delete".to_string()),
                k.pruned,
                "{}",
                k.kind
            );
        }
        assert!(!verbs_for("", "namespaces").contains(&"delete".to_string()));
        // Cluster-wide, Secrets can only be read (as Istio's reader ClusterRole grants).
        assert_eq!(verbs_for("", "secrets"), ["get", "list", "watch"]);
    }
}
