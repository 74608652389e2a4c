//! `bosun operator` against the real test control plane (`scripts/testenv`): `dump` offline,
//! `init` installing a CRD the API server accepts and that validates IstioOperators, and
//! `operator run` as a child process reconciling IstioOperators: objects applied, status
//! HEALTHY once the test sets istiod's readiness through the status subresource, drift
//! repaired (a deleted Deployment, a ConfigMap changed by another field manager), an invalid
//! spec set to ERROR with nothing applied, the finalizer uninstalling, metrics served, and
//! leader election between two processes.
//!
//! One test restarts the API server (it must come back with its state, so only a
//! `scripts/testenv` control plane will do); it holds [`API_SERVER`] for writing while the
//! others hold it for reading, so none of them sees the API server go away.
//!
//! Isolation: each test has its own IstioOperator namespace (the operator it starts watches
//! only that one) and its own Istio namespace; every cluster-scoped object the minimal
//! profile renders carries that namespace in its name, except the CRDs, which are shared
//! and never pruned.

mod common;

use common::operator::{
    Operator, audit_events, audit_len, condition, create_namespace, delete_and_wait, http_get, iop,
    iops, metric, status_of, wait_for, writes,
};
use common::{bosun, manifests, text};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Once;
use std::time::Duration;

use cluster::testenv;
use k8s_openapi::api::admissionregistration::v1::MutatingWebhookConfiguration;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

/// How long the operator may take to stop after SIGTERM: its Deployment's grace period
/// (Kubernetes' default, 30 s). It finishes the reconcile in flight first, which on a loaded
/// 2-core machine can take several seconds.
const SIGTERM_GRACE: Duration = Duration::from_secs(30);

/// Held for reading by every test that talks to the API server, for writing by the one that
/// restarts it.
static API_SERVER: std::sync::LazyLock<tokio::sync::RwLock<()>> =
    std::sync::LazyLock::new(|| tokio::sync::RwLock::new(()));

/// `bosun operator init` once per test process (the CRD is cluster-wide; init is idempotent).
fn init_once() {
    static INIT: Once = Once::new();
    INIT.call_once(|| {
        let out = bosun(&[
            "operator",
            "init",
            "--operator-namespace",
            "bosun-operator-tests",
        ]);
        assert!(out.status.success(), "{}", text(&out));
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("✔ bosun operator installed"),
            "{}",
            text(&out)
        );
    });
}

#[test]
fn dump_prints_the_operator_install_as_yaml() {
    let out = Command::new(env!("CARGO_BIN_EXE_bosun"))
        .args([
            "operator",
            "dump",
            "--operator-namespace",
            "ops",
            "--hub",
            "example.com/mesh",
            "--tag",
            "9.9",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let objects: Vec<manifest::object::Object> = stdout
        .split("\n---\n")
        .filter_map(|doc| manifest::object::Object::from_yaml(doc).unwrap())
        .collect();
    let kinds: Vec<&str> = objects.iter().map(|o| o.kind()).collect();
    assert_eq!(
        kinds,
        [
            "Namespace",
            "Namespace",
            "CustomResourceDefinition",
            "ServiceAccount",
            "ClusterRole",
            "ClusterRoleBinding",
            "ClusterRole",
            "RoleBinding",
            "Role",
            "RoleBinding",
            "Deployment",
            "Service"
        ]
    );
    // The operator's namespace, and the Istio namespace its RoleBinding goes to (so that the
    // dump applies on a fresh cluster).
    let names: Vec<&str> = objects[..2].iter().map(|o| o.name()).collect();
    assert_eq!(names, ["ops", "istio-system"]);
    let crd = objects[2].value();
    assert_eq!(crd["metadata"]["name"], "istiooperators.install.istio.io");
    assert_eq!(crd["spec"]["scope"], "Namespaced");
    let version = &crd["spec"]["versions"][0];
    assert_eq!(version["name"], "v1alpha1");
    assert_eq!(version["subresources"]["status"], json!({}));
    let schema = &version["schema"]["openAPIV3Schema"];
    assert_eq!(
        operator::crd::non_structural_nodes(schema),
        Vec::<String>::new()
    );
    let deployment = objects[10].value();
    assert_eq!(deployment["metadata"]["namespace"], "ops");
    let container = &deployment["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(container["image"], "example.com/mesh/operator:9.9");
    assert_eq!(container["args"][0], "operator");
    assert_eq!(container["args"][1], "run");
}

#[tokio::test]
async fn init_installs_a_crd_that_validates_istio_operators() {
    let _api_server = API_SERVER.read().await;
    init_once();
    let ns = testenv::unique_name("iop-crd");
    create_namespace(&ns).await;
    let api = iops(&ns).await;
    let strict_dry_run = PatchParams::apply("bosun-tests")
        .dry_run()
        .validation_strict();

    // Every profile of the pinned release is a valid IstioOperator.
    let profiles = PathBuf::from(manifests()).join("profiles");
    let mut checked = 0;
    for entry in std::fs::read_dir(&profiles).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let Some(obj) = manifest::object::Object::from_yaml(&text).unwrap() else {
            continue;
        };
        let mut body = obj.value().clone();
        body["metadata"] = json!({"name": "profile", "namespace": ns});
        api.patch("profile", &strict_dry_run, &Patch::Apply(&body))
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        checked += 1;
    }
    assert!(
        checked >= 5,
        "only {checked} profiles found in {}",
        profiles.display()
    );

    // Wrong types and unknown fields are refused by the schema, open fields are kept.
    let refused = |spec: Value| {
        json!({"apiVersion": "install.istio.io/v1alpha1", "kind": "IstioOperator",
               "metadata": {"name": "bad", "namespace": ns}, "spec": spec})
    };
    let err = api
        .patch(
            "bad",
            &strict_dry_run,
            &Patch::Apply(&refused(
                json!({"components": {"pilot": {"k8s": {"replicaCount": "two"}}}}),
            )),
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("replicaCount"), "{err}");
    let err = api
        .patch(
            "bad",
            &strict_dry_run,
            &Patch::Apply(&refused(json!({"components": {"pilot": {"bogus": true}}}))),
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("bogus"), "{err}");
    let created = api
        .create(
            &PostParams::default(),
            &serde_json::from_value(refused(
                json!({"values": {"anything": {"goes": [1, "two"]}}, "meshConfig": {"x": 1}}),
            ))
            .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(
        created.data["spec"]["values"]["anything"]["goes"],
        json!([1, "two"])
    );
    api.delete("bad", &Default::default()).await.unwrap();
}

#[tokio::test]
async fn operator_reconciles_repairs_drift_and_uninstalls() {
    let _api_server = API_SERVER.read().await;
    init_once();
    let ns = testenv::unique_name("iop-run");
    let istio_ns = testenv::unique_name("istio-op");
    create_namespace(&ns).await;
    let operator = Operator::start(&ns, &[]);
    let client = testenv::client().await;
    let api = iops(&ns).await;
    api.create(
        &PostParams::default(),
        &serde_json::from_value(iop("minimal", &ns, &istio_ns, json!({}))).unwrap(),
    )
    .await
    .unwrap();

    // Applied, labelled as owned, and waiting for istiod.
    let deployments: Api<Deployment> = Api::namespaced(client.kube().clone(), &istio_ns);
    let istiod = wait_for("istiod applied", &operator, || async {
        deployments.get_opt("istiod").await.unwrap()
    })
    .await;
    let labels = istiod.metadata.labels.clone().unwrap_or_default();
    assert_eq!(
        labels
            .get("install.operator.istio.io/owning-resource")
            .map(String::as_str),
        Some("minimal")
    );
    let status = wait_for(
        "status RECONCILING with Pilot waiting",
        &operator,
        || async {
            let s = status_of(&api.get("minimal").await.unwrap());
            (s["status"] == "RECONCILING"
                && s["componentStatus"]["Pilot"]["status"] == "RECONCILING")
                .then_some(s)
        },
    )
    .await;
    let pilot_error = status["componentStatus"]["Pilot"]["error"]
        .as_str()
        .unwrap();
    assert!(
        pilot_error.contains(&format!("Deployment {istio_ns}/istiod: 0/1 replicas ready")),
        "{status}"
    );
    assert_eq!(status["componentStatus"]["Base"]["status"], "HEALTHY");
    assert_eq!(status["observedGeneration"], 1);
    let finalizers = api.get("minimal").await.unwrap().metadata.finalizers;
    assert_eq!(
        finalizers,
        Some(vec!["install.istio.io/bosun-operator".to_string()])
    );

    // Ready → HEALTHY.
    let ready = |generation: i64| {
        json!({"status": {"observedGeneration": generation, "replicas": 1, "readyReplicas": 1,
                          "updatedReplicas": 1, "availableReplicas": 1}})
    };
    deployments
        .patch_status(
            "istiod",
            &PatchParams::default(),
            &Patch::Merge(&ready(istiod.metadata.generation.unwrap())),
        )
        .await
        .unwrap();
    let status = wait_for("status HEALTHY", &operator, || async {
        let s = status_of(&api.get("minimal").await.unwrap());
        (s["status"] == "HEALTHY").then_some(s)
    })
    .await;
    assert_eq!(
        status["componentStatus"]["Pilot"],
        json!({"status": "HEALTHY"}),
        "{status}"
    );

    // A reconcile with nothing to do (an annotation on the IstioOperator triggers one) finds
    // every object as rendered and applies nothing.
    let addr = operator.metrics_addr().await;
    let skipped = || {
        let (_, metrics) = http_get(&addr, "/metrics");
        metrics
            .lines()
            .find_map(|l| l.strip_prefix("bosun_operator_apply_skipped_total "))
            .unwrap()
            .parse::<u64>()
            .unwrap()
    };
    let before = skipped();
    // The API server's audit log (scripts/testenv writes one line per request) shows what the
    // operator sent meanwhile.
    let audit = testenv::kubeconfig().with_file_name("audit.log");
    let audit_lines = || {
        std::fs::read_to_string(&audit)
            .map(|t| t.lines().map(str::to_string).collect::<Vec<_>>())
            .unwrap_or_default()
    };
    // The Event for becoming HEALTHY is written just after the status: let it land first.
    let events: Api<k8s_openapi::api::events::v1::Event> =
        Api::namespaced(client.kube().clone(), &ns);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !events
        .list(&Default::default())
        .await
        .unwrap()
        .items
        .iter()
        .any(|e| e.reason.as_deref() == Some("Healthy"))
    {
        assert!(std::time::Instant::now() < deadline, "no Healthy event");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let audit_start = audit_lines().len();
    let rv_before = deployments
        .get("istiod")
        .await
        .unwrap()
        .metadata
        .resource_version;
    api.patch(
        "minimal",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"annotations": {"touched": "1"}}})),
    )
    .await
    .unwrap();
    wait_for("a reconcile that skips the apply", &operator, || async {
        (skipped() > before).then_some(())
    })
    .await;
    if audit.exists() {
        // Audit events are written asynchronously.
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        let writes: Vec<String> = audit_lines()[audit_start..]
            .iter()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|e| {
                e["userAgent"]
                    .as_str()
                    .is_some_and(|a| a.starts_with("bosun/"))
            })
            .filter(|e| {
                matches!(
                    e["verb"].as_str(),
                    Some("create" | "update" | "patch" | "delete")
                )
            })
            // Leader election renews its Lease on its own clock, whatever reconciles do.
            .filter(|e| e["objectRef"]["resource"].as_str() != Some("leases"))
            // Other tests' operators run meanwhile: only this installation's objects (its
            // namespaces; cluster-scoped objects carry the Istio namespace in their names).
            .filter(|e| {
                e["requestURI"]
                    .as_str()
                    .is_some_and(|u| u.contains(&ns) || u.contains(&istio_ns))
            })
            .map(|e| format!("{} {}", e["verb"], e["requestURI"]))
            .collect();
        // This test's own client says `bosun/` too: its annotation patch is one of them.
        let mut writes = writes;
        let own = writes
            .iter()
            .position(|w| w.starts_with("\"patch\"") && w.ends_with("/istiooperators/minimal?\""));
        assert!(
            own.is_some(),
            "the test's own patch is not in the audit log: {writes:#?}"
        );
        writes.remove(own.unwrap());
        assert!(
            writes.is_empty(),
            "a reconcile with nothing to do wrote: {writes:#?}"
        );
    }
    assert_eq!(
        deployments
            .get("istiod")
            .await
            .unwrap()
            .metadata
            .resource_version,
        rv_before
    );

    // A deleted Deployment comes back.
    let uid = istiod.metadata.uid.clone();
    deployments
        .delete("istiod", &Default::default())
        .await
        .unwrap();
    wait_for("istiod restored", &operator, || async {
        deployments
            .get_opt("istiod")
            .await
            .unwrap()
            .filter(|d| d.metadata.uid != uid)
    })
    .await;

    // A field another manager changed is taken back.
    let config_maps: Api<ConfigMap> = Api::namespaced(client.kube().clone(), &istio_ns);
    let mesh = config_maps.get("istio").await.unwrap().data.unwrap()["mesh"].clone();
    config_maps
        .patch(
            "istio",
            &PatchParams::apply("someone-else").force(),
            &Patch::Apply(json!({"apiVersion": "v1", "kind": "ConfigMap",
                                 "metadata": {"name": "istio", "namespace": istio_ns},
                                 "data": {"mesh": "theirs"}})),
        )
        .await
        .unwrap();
    wait_for("ConfigMap istio restored", &operator, || async {
        let data = config_maps.get("istio").await.unwrap().data.unwrap();
        (data["mesh"] == mesh).then_some(())
    })
    .await;

    // An edit is applied, and what the spec no longer renders is pruned, as `install` prunes
    // (the installer's prune): of two ConfigMaps with this IstioOperator's labels that it does
    // not render, the one labelled not-pruned stays.
    let hpas: Api<k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler> =
        Api::namespaced(client.kube().clone(), &istio_ns);
    assert!(hpas.get_opt("istiod").await.unwrap().is_some());
    for (name, not_pruned) in [("stray", false), ("kept", true)] {
        let mut labels = json!({
            "app.kubernetes.io/managed-by": "bosun-operator",
            "install.operator.istio.io/owning-resource": "minimal",
            "install.operator.istio.io/owning-resource-namespace": ns,
            "operator.istio.io/component": "Pilot",
        });
        if not_pruned {
            labels["install.operator.istio.io/owning-resource-not-pruned"] = json!("true");
        }
        let cm: ConfigMap =
            serde_json::from_value(json!({"metadata": {"name": name, "labels": labels}})).unwrap();
        config_maps
            .create(&PostParams::default(), &cm)
            .await
            .unwrap();
    }
    api.patch(
        "minimal",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {
            "values": {"pilot": {"autoscaleEnabled": false}},
            "components": {"pilot": {"k8s": {"replicaCount": 2}}}
        }})),
    )
    .await
    .unwrap();
    wait_for(
        "istiod scaled to 2 and its HPA pruned",
        &operator,
        || async {
            let replicas = deployments
                .get("istiod")
                .await
                .unwrap()
                .spec
                .unwrap()
                .replicas;
            let hpa = hpas.get_opt("istiod").await.unwrap();
            let stray = config_maps.get_opt("stray").await.unwrap();
            (replicas == Some(2) && hpa.is_none() && stray.is_none()).then_some(())
        },
    )
    .await;
    assert!(
        config_maps.get_opt("kept").await.unwrap().is_some(),
        "the not-pruned ConfigMap was pruned"
    );
    let status = wait_for("generation 2 observed", &operator, || async {
        let s = status_of(&api.get("minimal").await.unwrap());
        (s["observedGeneration"] == 2 && s["componentStatus"]["Pilot"]["status"] == "RECONCILING")
            .then_some(s)
    })
    .await;
    assert!(
        status["componentStatus"]["Pilot"]["error"]
            .as_str()
            .unwrap()
            .contains("/2 replicas ready"),
        "{status}"
    );

    // Metrics and health.
    assert_eq!(http_get(&addr, "/healthz").0, "HTTP/1.1 200 OK");
    assert_eq!(http_get(&addr, "/readyz").0, "HTTP/1.1 200 OK");
    let (line, metrics) = http_get(&addr, "/metrics");
    assert_eq!(line, "HTTP/1.1 200 OK");
    let applied: u64 = metrics
        .lines()
        .find_map(|l| l.strip_prefix("bosun_operator_reconciles_total{result=\"applied\"} "))
        .unwrap()
        .parse()
        .unwrap();
    assert!(applied >= 3, "{metrics}");
    assert!(
        metrics.contains(
            "bosun_operator_objects_applied_total{kind=\"Deployment\",outcome=\"created\"} "
        ),
        "{metrics}"
    );

    // Deleting the IstioOperator uninstalls what it owns, then lets it go.
    delete_and_wait(&api, "minimal", &operator).await;
    assert!(deployments.get_opt("istiod").await.unwrap().is_none());
    assert!(config_maps.get_opt("istio").await.unwrap().is_none());
    let cluster_roles: Api<k8s_openapi::api::rbac::v1::ClusterRole> =
        Api::all(client.kube().clone());
    assert!(
        cluster_roles
            .get_opt(&format!("istiod-clusterrole-{istio_ns}"))
            .await
            .unwrap()
            .is_none()
    );
    // CRDs stay: other IstioOperators (and every user's Istio config) depend on them.
    let crds: Api<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition> =
        Api::all(client.kube().clone());
    assert!(
        crds.get_opt("virtualservices.networking.istio.io")
            .await
            .unwrap()
            .is_some()
    );
}

#[tokio::test]
async fn invalid_spec_sets_error_and_applies_nothing() {
    let _api_server = API_SERVER.read().await;
    init_once();
    let ns = testenv::unique_name("iop-bad");
    let istio_ns = testenv::unique_name("istio-opbad");
    create_namespace(&ns).await;
    let operator = Operator::start(&ns, &[]);
    let api = iops(&ns).await;
    api.create(
        &PostParams::default(),
        &serde_json::from_value(iop("bad", &ns, &istio_ns, json!({"bogus": 1}))).unwrap(),
    )
    .await
    .unwrap();
    let status = wait_for("status ERROR", &operator, || async {
        let s = status_of(&api.get("bad").await.unwrap());
        (s["status"] == "ERROR").then_some(s)
    })
    .await;
    let message = status["message"].as_str().unwrap();
    assert!(
        message.contains("nothing was applied")
            && message.contains("values.global.bogus: unknown field \"bogus\""),
        "{status}"
    );
    assert_eq!(status["observedGeneration"], 1);
    let client = testenv::client().await;
    let events: Api<k8s_openapi::api::events::v1::Event> =
        Api::namespaced(client.kube().clone(), &ns);
    let event = wait_for("a Warning event", &operator, || async {
        let list = events.list(&Default::default()).await.unwrap();
        list.items.into_iter().find(|e| {
            e.regarding.as_ref().and_then(|r| r.name.as_deref()) == Some("bad")
                && e.reason.as_deref() == Some("Invalid")
        })
    })
    .await;
    assert_eq!(event.type_.as_deref(), Some("Warning"));
    assert!(
        event
            .note
            .unwrap_or_default()
            .contains("values.global.bogus")
    );
    let namespaces: Api<Namespace> = Api::all(client.kube().clone());
    assert!(namespaces.get_opt(&istio_ns).await.unwrap().is_none());

    // Fixing the spec applies it.
    api.patch(
        "bad",
        &PatchParams::default(),
        &Patch::Json::<()>(
            serde_json::from_value(json!([{"op": "remove", "path": "/spec/values/global/bogus"}]))
                .unwrap(),
        ),
    )
    .await
    .unwrap();
    let deployments: Api<Deployment> = Api::namespaced(client.kube().clone(), &istio_ns);
    wait_for("istiod applied after the fix", &operator, || async {
        deployments.get_opt("istiod").await.unwrap()
    })
    .await;
    let status = wait_for(
        "generation 2 applied, waiting for istiod",
        &operator,
        || async {
            let s = status_of(&api.get("bad").await.unwrap());
            (s["observedGeneration"] == 2
                && s["componentStatus"]["Pilot"]["status"] == "RECONCILING")
                .then_some(s)
        },
    )
    .await;
    assert_eq!(status["status"], "RECONCILING");
    assert!(
        status["message"]
            .as_str()
            .unwrap()
            .contains("waiting for workloads"),
        "{status}"
    );
    delete_and_wait(&api, "bad", &operator).await;
}

/// One IstioOperator that cannot be decoded (its `unvalidatedValues` nested 200 deep: the API
/// server keeps it, serde_json reads 128 levels) present when the operator starts: it is
/// reported on that object, the other IstioOperators are reconciled, /readyz says ready, and
/// SIGTERM ends the operator within its grace period (30 s). (kube-rs decodes a list at once: before,
/// one such object failed every list, nothing was reconciled again, and SIGTERM went unheard.)
#[tokio::test]
async fn an_undecodable_istio_operator_is_reported_and_the_others_reconcile() {
    let _api_server = API_SERVER.read().await;
    init_once();
    let ns = testenv::unique_name("iop-deep");
    let istio_ns = testenv::unique_name("istio-opdeep");
    create_namespace(&ns).await;
    let client = testenv::client().await;
    let api: Api<operator::object::IstioOperatorObject> = Api::namespaced_with(
        client.kube().clone(),
        &ns,
        &common::operator::iop_resource(),
    );
    let mut deep = iop("deep", &ns, &istio_ns, json!({}));
    let mut nested = json!([]);
    for _ in 0..200 {
        nested = json!([nested]);
    }
    deep["spec"]["unvalidatedValues"] = json!({"x": nested});
    for object in [deep, iop("plain", &ns, &istio_ns, json!({}))] {
        let object = serde_json::from_str(&object.to_string()).unwrap();
        api.create(&PostParams::default(), &object).await.unwrap();
    }

    let mut operator = Operator::start(&ns, &[]);
    let deployments: Api<Deployment> = Api::namespaced(client.kube().clone(), &istio_ns);
    wait_for(
        "istiod applied for the other IstioOperator",
        &operator,
        || async { deployments.get_opt("istiod").await.unwrap() },
    )
    .await;
    let status = wait_for("the undecodable one's status ERROR", &operator, || async {
        let s = api.get("deep").await.unwrap().data["status"].clone();
        (s["status"] == "ERROR").then_some(s)
    })
    .await;
    let message = status["message"].as_str().unwrap();
    assert!(
        message.contains("nothing was applied")
            && message.contains("the object cannot be decoded: recursion limit exceeded"),
        "{status}"
    );
    let addr = operator.metrics_addr().await;
    assert_eq!(http_get(&addr, "/readyz").0, "HTTP/1.1 200 OK");

    let exit = operator.terminate(SIGTERM_GRACE);
    assert!(
        exit.is_some(),
        "still running 30 s after SIGTERM; log:\n{}",
        operator.log()
    );
    drop(operator);

    // A new operator removes both (the finalizer needs only the undecodable one's metadata).
    let operator = Operator::start(&ns, &[]);
    for name in ["deep", "plain"] {
        // A raw DELETE: kube-rs reads a delete's answer as a JSON tree first, which the
        // undecodable object's own depth would fail.
        let request = http::Request::delete(format!(
            "/apis/install.istio.io/v1alpha1/namespaces/{ns}/istiooperators/{name}"
        ))
        .body(Vec::new())
        .unwrap();
        client.kube().request_text(request).await.unwrap();
    }
    wait_for("both IstioOperators gone", &operator, || async {
        api.list(&Default::default())
            .await
            .unwrap()
            .items
            .is_empty()
            .then_some(())
    })
    .await;
    assert!(deployments.get_opt("istiod").await.unwrap().is_none());
}

/// Thirty spec changes 200 ms apart, half of them while the operator is stopped: it converges
/// on the last spec, and all it writes for them (read from the audit log) is the ConfigMaps
/// that change with meshConfig, the IstioOperator's status and Events: no other object is sent
/// again, nothing is deleted. (Before, every spec change re-sent every object: 406 writes for
/// 31 changes of the minimal profile.) The IstioOperator sets a network, so the Istio namespace
/// the operator creates carries istioctl's `topology.istio.io/network` label.
#[tokio::test]
async fn spec_changes_write_only_what_they_change() {
    let _api_server = API_SERVER.read().await;
    init_once();
    let ns = testenv::unique_name("iop-churn");
    let istio_ns = testenv::unique_name("istio-opchurn");
    create_namespace(&ns).await;
    let mut operator = Operator::start(&ns, &[]);
    let client = testenv::client().await;
    let api = iops(&ns).await;
    api.create(
        &PostParams::default(),
        // A network: the operator creates the Istio namespace labelled with it, as `install`
        // and istioctl's installer do.
        &serde_json::from_value(iop(
            "minimal",
            &ns,
            &istio_ns,
            json!({"network": "net-churn"}),
        ))
        .unwrap(),
    )
    .await
    .unwrap();
    let ready = testenv::make_workloads_ready(&client, Some(&istio_ns));
    wait_for("HEALTHY", &operator, || async {
        let s = status_of(&api.get("minimal").await.unwrap());
        (s["status"] == "HEALTHY").then_some(())
    })
    .await;
    let namespaces: Api<Namespace> = Api::all(client.kube().clone());
    let labels = namespaces.get(&istio_ns).await.unwrap().metadata.labels;
    assert_eq!(
        labels
            .unwrap_or_default()
            .get("topology.istio.io/network")
            .map(String::as_str),
        Some("net-churn"),
        "the Istio namespace the operator created"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    let audit_start = audit_len();

    let change = |i: usize| {
        let api = api.clone();
        async move {
            let patch = json!({"spec": {"meshConfig": {"accessLogFile": format!("/dev/log-{i}")}}});
            api.patch("minimal", &PatchParams::default(), &Patch::Merge(&patch))
                .await
                .unwrap();
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    };
    for i in 0..15 {
        change(i).await;
    }
    let exit = operator.terminate(SIGTERM_GRACE);
    assert!(
        exit.is_some(),
        "still running 30 s after SIGTERM; log:\n{}",
        operator.log()
    );
    drop(operator);
    for i in 15..30 {
        change(i).await;
    }
    let operator = Operator::start(&ns, &[]);
    let configmaps: Api<ConfigMap> = Api::namespaced(client.kube().clone(), &istio_ns);
    wait_for("the last meshConfig applied", &operator, || async {
        let mesh = configmaps
            .get("istio")
            .await
            .unwrap()
            .data?
            .remove("mesh")?;
        mesh.contains("accessLogFile: /dev/log-29").then_some(())
    })
    .await;
    let generation = api.get("minimal").await.unwrap().metadata.generation;
    wait_for("HEALTHY at the last generation", &operator, || async {
        let s = status_of(&api.get("minimal").await.unwrap());
        (s["status"] == "HEALTHY" && s["observedGeneration"].as_i64() == generation).then_some(())
    })
    .await;
    ready.abort();
    tokio::time::sleep(Duration::from_secs(1)).await;

    let events = audit_events(audit_start);
    // The operator's writes: its applies carry its field manager; anything else it sends
    // (a delete, a create) carries none. The test's own writes (workloads made ready, the
    // spec changes) carry theirs or are to the IstioOperator.
    let written = writes(&events, |e| {
        let uri = e["requestURI"].as_str().unwrap_or("");
        e["userAgent"]
            .as_str()
            .is_some_and(|a| a.starts_with("bosun/"))
            && !matches!(
                e["objectRef"]["resource"].as_str(),
                Some("leases" | "events" | "istiooperators")
            )
            && e["objectRef"]["subresource"].as_str() != Some("status")
            && (!uri.contains("fieldManager=") || uri.contains("fieldManager=bosun-operator"))
            && (uri.contains(&ns) || uri.contains(&istio_ns))
    });
    // The restarted process remembers nothing of what the first applied, so it applies the
    // whole render once; every other write is a changed ConfigMap. Nothing is created or
    // deleted.
    let mut per_object: BTreeMap<String, usize> = BTreeMap::new();
    for w in &written {
        let path = w.split('?').next().unwrap_or(w).to_string();
        *per_object.entry(path).or_default() += 1;
    }
    let again: Vec<_> = per_object
        .iter()
        .filter(|(path, n)| !path.contains("/configmaps/") && **n > 1)
        .collect();
    assert!(
        written.iter().all(|w| w.starts_with("\"patch\"")) && again.is_empty(),
        "the operator sent unchanged objects again, or created or deleted: {written:#?}\nlog:\n{}",
        operator.log()
    );
    let configmap_writes = written
        .iter()
        .filter(|w| w.contains("/configmaps/"))
        .count();
    assert!((1..=2 * 30 + 3).contains(&configmap_writes), "{written:#?}");
    delete_and_wait(&api, "minimal", &operator).await;
}

#[tokio::test]
async fn two_operators_elect_one_leader_and_the_other_takes_over() {
    let _api_server = API_SERVER.read().await;
    init_once();
    let ns = testenv::unique_name("iop-lead");
    let istio_ns = testenv::unique_name("istio-oplead");
    create_namespace(&ns).await;
    let mut a = Some(Operator::start(
        &ns,
        &["--lease-namespace", &ns, "--identity", "a"],
    ));
    let mut b = Some(Operator::start(
        &ns,
        &["--lease-namespace", &ns, "--identity", "b"],
    ));
    let leads = |o: &Option<Operator>| {
        o.as_ref()
            .is_some_and(|o| o.log().contains("msg=\"became leader\""))
    };
    let first = a.as_ref().unwrap();
    wait_for("a leader", first, || async {
        (leads(&a) || leads(&b)).then_some(())
    })
    .await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(
        leads(&a) != leads(&b),
        "both lead:\n{}\n{}",
        a.as_ref().unwrap().log(),
        b.as_ref().unwrap().log()
    );
    let (leader, follower) = if leads(&a) {
        (&mut a, &mut b)
    } else {
        (&mut b, &mut a)
    };

    // Only the leader reconciles.
    let api = iops(&ns).await;
    api.create(
        &PostParams::default(),
        &serde_json::from_value(iop("minimal", &ns, &istio_ns, json!({}))).unwrap(),
    )
    .await
    .unwrap();
    let client = testenv::client().await;
    let deployments: Api<Deployment> = Api::namespaced(client.kube().clone(), &istio_ns);
    wait_for("istiod applied", leader.as_ref().unwrap(), || async {
        deployments.get_opt("istiod").await.unwrap()
    })
    .await;
    let follower_log = follower.as_ref().unwrap().log();
    assert!(!follower_log.contains("msg=reconciled"), "{follower_log}");

    // The leader goes away: the other takes over once the Lease expires, and reconciles.
    drop(leader.take());
    let new_leader = follower.as_ref().unwrap();
    wait_for("the follower to take over", new_leader, || async {
        new_leader
            .log()
            .contains("msg=\"became leader\"")
            .then_some(())
    })
    .await;
    deployments
        .delete("istiod", &Default::default())
        .await
        .unwrap();
    wait_for("istiod restored by the new leader", new_leader, || async {
        deployments.get_opt("istiod").await.unwrap()
    })
    .await;
    delete_and_wait(&api, "minimal", new_leader).await;
}

#[tokio::test]
async fn remove_refuses_while_istio_operators_exist_and_keeps_the_crd_with_force() {
    let _api_server = API_SERVER.read().await;
    init_once();
    let operator_ns = testenv::unique_name("bosun-op-rm");
    let out = bosun(&["operator", "init", "--operator-namespace", &operator_ns]);
    assert!(out.status.success(), "{}", text(&out));
    let ns = testenv::unique_name("iop-rm");
    create_namespace(&ns).await;
    let api = iops(&ns).await;
    // No operator watches this namespace, so it gets no finalizer and can simply be deleted.
    api.create(
        &PostParams::default(),
        &serde_json::from_value(iop("left", &ns, "unused", json!({}))).unwrap(),
    )
    .await
    .unwrap();

    let out = bosun(&["operator", "remove", "--operator-namespace", &operator_ns]);
    assert!(!out.status.success(), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("{ns}/left")) && stderr.contains("--force"),
        "{}",
        text(&out)
    );

    let out = bosun(&[
        "operator",
        "remove",
        "--operator-namespace",
        &operator_ns,
        "--force",
    ]);
    assert!(
        !out.status.success() && String::from_utf8_lossy(&out.stderr).contains("pass -y"),
        "{}",
        text(&out)
    );

    let out = bosun(&[
        "operator",
        "remove",
        "--operator-namespace",
        &operator_ns,
        "--force",
        "-y",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("deleted Deployment {operator_ns}/bosun-operator")),
        "{}",
        text(&out)
    );
    assert!(
        !stdout.contains("CustomResourceDefinition"),
        "{}",
        text(&out)
    );
    let client = testenv::client().await;
    let deployments: Api<Deployment> = Api::namespaced(client.kube().clone(), &operator_ns);
    assert!(
        deployments
            .get_opt("bosun-operator")
            .await
            .unwrap()
            .is_none()
    );
    assert!(api.get_opt("left").await.unwrap().is_some());
    api.delete("left", &Default::default()).await.unwrap();
}

/// The kube-apiserver of the `scripts/testenv` control plane: its pid file and command line.
fn api_server_process() -> (PathBuf, u32, Vec<String>) {
    let state = testenv::kubeconfig().parent().unwrap().to_path_buf();
    let pid_file = state.join("kube-apiserver.pid");
    let pid: u32 = std::fs::read_to_string(&pid_file)
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e} (not a scripts/testenv control plane?)",
                pid_file.display()
            )
        })
        .trim()
        .parse()
        .unwrap();
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap();
    let args = cmdline
        .split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    (pid_file, pid, args)
}

#[tokio::test]
async fn operator_recovers_when_the_api_server_restarts() {
    if std::env::var_os("BOSUN_TEST_KUBECONFIG").is_some() {
        // Not a control plane this test can restart; said loudly rather than pretended.
        eprintln!(
            "operator_recovers_when_the_api_server_restarts: not run (BOSUN_TEST_KUBECONFIG is set)"
        );
        return;
    }
    let _api_server = API_SERVER.write().await;
    init_once();
    let ns = testenv::unique_name("iop-restart");
    let istio_ns = testenv::unique_name("istio-oprst");
    create_namespace(&ns).await;
    let operator = Operator::start(&ns, &[]);
    let api = iops(&ns).await;
    api.create(
        &PostParams::default(),
        &serde_json::from_value(iop("minimal", &ns, &istio_ns, json!({}))).unwrap(),
    )
    .await
    .unwrap();
    let client = testenv::client().await;
    let deployments: Api<Deployment> = Api::namespaced(client.kube().clone(), &istio_ns);
    wait_for("istiod applied", &operator, || async {
        deployments.get_opt("istiod").await.unwrap()
    })
    .await;

    let addr = operator.metrics_addr().await;
    assert_eq!(http_get(&addr, "/readyz").0, "HTTP/1.1 200 OK");

    // Kill the API server (as a crash would), then start it again as it was started; etcd
    // keeps the state.
    let (pid_file, pid, args) = api_server_process();
    let killed = Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    wait_for("the API server to exit", &operator, || async {
        (!std::path::Path::new(&format!("/proc/{pid}")).exists()).then_some(())
    })
    .await;
    // A controller that cannot sync is not ready.
    wait_for("/readyz to say not ready", &operator, || async {
        (http_get(&addr, "/readyz").0 != "HTTP/1.1 200 OK").then_some(())
    })
    .await;
    let log = std::fs::OpenOptions::new()
        .append(true)
        .open(pid_file.with_file_name("kube-apiserver.log"))
        .unwrap();
    // `setsid` so that it outlives this test process, as `scripts/testenv up` starts it; the pid
    // file is rewritten so that `scripts/testenv down` stops the new process.
    #[expect(
        clippy::zombie_processes,
        reason = "the API server outlives this test; scripts/testenv down stops it"
    )]
    let restarted = Command::new("setsid")
        .args(&args)
        .stdin(Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap();
    std::fs::write(&pid_file, format!("{}\n", restarted.id())).unwrap();
    wait_for("the API server to serve again", &operator, || async {
        deployments.get_opt("istiod").await.ok().map(|_| ())
    })
    .await;
    wait_for("/readyz to say ready again", &operator, || async {
        (http_get(&addr, "/readyz").0 == "HTTP/1.1 200 OK").then_some(())
    })
    .await;

    // The operator's watches resume: a deleted Deployment is restored, a deleted
    // IstioOperator uninstalled.
    deployments
        .delete("istiod", &Default::default())
        .await
        .unwrap();
    wait_for("istiod restored after the restart", &operator, || async {
        deployments.get_opt("istiod").await.unwrap()
    })
    .await;
    delete_and_wait(&api, "minimal", &operator).await;
    assert!(deployments.get_opt("istiod").await.unwrap().is_none());
}

/// The IstioOperators of `ns` as `kubectl get istiooperators` shows them (the server's Table).
async fn table(ns: &str) -> (Vec<String>, Vec<Vec<Value>>) {
    let client = testenv::client().await;
    let request = http::Request::get(format!(
        "/apis/install.istio.io/v1alpha1/namespaces/{ns}/istiooperators"
    ))
    .header(
        http::header::ACCEPT,
        "application/json;as=Table;v=v1;g=meta.k8s.io",
    )
    .body(Vec::new())
    .unwrap();
    let table: Value = client.kube().request(request).await.unwrap();
    let columns = table["columnDefinitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect();
    let rows = table["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["cells"].as_array().unwrap().clone())
        .collect();
    (columns, rows)
}

#[tokio::test]
async fn pause_stops_reconciling_until_the_annotation_goes() {
    let _api_server = API_SERVER.read().await;
    init_once();
    let ns = testenv::unique_name("iop-pause");
    let istio_ns = testenv::unique_name("istio-oppause");
    create_namespace(&ns).await;
    let operator = Operator::start(&ns, &[]);
    let client = testenv::client().await;
    let api = iops(&ns).await;
    api.create(
        &PostParams::default(),
        &serde_json::from_value(iop("paused", &ns, &istio_ns, json!({}))).unwrap(),
    )
    .await
    .unwrap();
    let deployments: Api<Deployment> = Api::namespaced(client.kube().clone(), &istio_ns);
    let status = wait_for("generation 1 applied", &operator, || async {
        let s = status_of(&api.get("paused").await.unwrap());
        (condition(&s, "Reconciled")["status"] == "True").then_some(s)
    })
    .await;
    let reconciled = condition(&status, "Reconciled");
    assert_eq!(reconciled["reason"], "Applied", "{status}");
    assert_eq!(reconciled["observedGeneration"], 1);
    let ready = condition(&status, "Ready");
    assert_eq!(ready["status"], "False", "{status}");
    assert_eq!(ready["reason"], "WorkloadsNotReady");
    assert!(
        ready["message"].as_str().unwrap().contains("istiod"),
        "{status}"
    );

    // `kubectl get istiooperators`: the printer columns.
    let (columns, rows) = table(&ns).await;
    assert_eq!(
        columns,
        ["Name", "Status", "Revision", "Profile", "Ready", "Age"]
    );
    assert_eq!(rows[0][0], "paused");
    assert_eq!(rows[0][1], "RECONCILING");
    assert_eq!(rows[0][3], "minimal");
    assert_eq!(rows[0][4], "False");

    // Paused: the status says so, a deleted Deployment stays deleted, a spec change waits.
    api.patch(
        "paused",
        &PatchParams::default(),
        &Patch::Merge(
            json!({"metadata": {"annotations": {"install.istio.io/ignoreReconcile": "true"}}}),
        ),
    )
    .await
    .unwrap();
    let status = wait_for("Reconciled=False (Paused)", &operator, || async {
        let s = status_of(&api.get("paused").await.unwrap());
        (condition(&s, "Reconciled")["reason"] == "Paused").then_some(s)
    })
    .await;
    assert_eq!(condition(&status, "Reconciled")["status"], "False");
    assert_eq!(status["status"], "RECONCILING", "kept: {status}");
    deployments
        .delete("istiod", &Default::default())
        .await
        .unwrap();
    api.patch(
        "paused",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"components": {"pilot": {"k8s": {"replicaCount": 2}}}}})),
    )
    .await
    .unwrap();
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert!(
        deployments.get_opt("istiod").await.unwrap().is_none(),
        "restored while paused; log:\n{}",
        operator.log()
    );
    let status = status_of(&api.get("paused").await.unwrap());
    assert_eq!(status["observedGeneration"], 1, "{status}");
    let events: Api<k8s_openapi::api::events::v1::Event> =
        Api::namespaced(client.kube().clone(), &ns);
    assert!(
        events
            .list(&Default::default())
            .await
            .unwrap()
            .items
            .iter()
            .any(|e| e.reason.as_deref() == Some("Paused")),
        "no Paused event"
    );

    // Resumed: the Deployment comes back as the new spec says.
    api.patch(
        "paused",
        &PatchParams::default(),
        &Patch::Merge(
            json!({"metadata": {"annotations": {"install.istio.io/ignoreReconcile": null}}}),
        ),
    )
    .await
    .unwrap();
    wait_for("istiod restored with 2 replicas", &operator, || async {
        deployments
            .get_opt("istiod")
            .await
            .unwrap()
            .filter(|d| d.spec.as_ref().and_then(|s| s.replicas) == Some(2))
    })
    .await;
    let status = wait_for("generation 2 applied", &operator, || async {
        let s = status_of(&api.get("paused").await.unwrap());
        let c = condition(&s, "Reconciled");
        (c["status"] == "True" && c["observedGeneration"] == 2).then_some(s)
    })
    .await;
    assert_eq!(status["observedGeneration"], 2);
    delete_and_wait(&api, "paused", &operator).await;
}

#[tokio::test]
async fn operator_leaves_what_istiod_writes_alone() {
    let _api_server = API_SERVER.read().await;
    init_once();
    let ns = testenv::unique_name("iop-istiod");
    let istio_ns = testenv::unique_name("istio-opistiod");
    create_namespace(&ns).await;
    let operator = Operator::start(&ns, &[]);
    let client = testenv::client().await;
    let api = iops(&ns).await;
    api.create(
        &PostParams::default(),
        &serde_json::from_value(iop("minimal", &ns, &istio_ns, json!({}))).unwrap(),
    )
    .await
    .unwrap();
    let ready = testenv::make_workloads_ready(&client, Some(&istio_ns));
    let status = wait_for("Ready=True", &operator, || async {
        let s = status_of(&api.get("minimal").await.unwrap());
        (condition(&s, "Ready")["status"] == "True").then_some(s)
    })
    .await;
    assert_eq!(status["status"], "HEALTHY");
    assert_eq!(condition(&status, "Ready")["reason"], "Healthy");
    ready.abort();
    // The Event for becoming HEALTHY is written just after the status: let it land first.
    let events: Api<k8s_openapi::api::events::v1::Event> =
        Api::namespaced(client.kube().clone(), &ns);
    wait_for("the Healthy event", &operator, || async {
        events
            .list(&Default::default())
            .await
            .unwrap()
            .items
            .iter()
            .any(|e| e.reason.as_deref() == Some("Healthy"))
            .then_some(())
    })
    .await;
    let addr = operator.metrics_addr().await;
    let skipped_before = metric(&addr, "bosun_operator_apply_skipped_total");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let audit_start = audit_len();

    // istiod starts: its CA bundle goes into the injector and the validator, and the
    // validator fails closed. Each write is a watch event that makes the operator reconcile.
    let selector = format!(
        "app.kubernetes.io/managed-by=bosun-operator,install.operator.istio.io/owning-resource-namespace={ns}"
    );
    let changed = testenv::write_as_istiod(testenv::kubeconfig(), &selector).await;
    assert_eq!(changed, 2, "the injector and the validator");
    wait_for("reconciles that apply nothing", &operator, || async {
        (metric(&addr, "bosun_operator_apply_skipped_total") > skipped_before).then_some(())
    })
    .await;
    // Again, and a reconcile of the IstioOperator itself (a change to it).
    testenv::write_as_istiod(testenv::kubeconfig(), &selector).await;
    let skipped = metric(&addr, "bosun_operator_apply_skipped_total");
    api.patch(
        "minimal",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"annotations": {"touched": "1"}}})),
    )
    .await
    .unwrap();
    wait_for("one more reconcile", &operator, || async {
        (metric(&addr, "bosun_operator_apply_skipped_total") > skipped).then_some(())
    })
    .await;
    tokio::time::sleep(Duration::from_secs(2)).await;

    // Nothing written by the operator meanwhile (the test's own annotation patch aside): it
    // neither put back its rendered CA bundle and failurePolicy nor counted them as drift.
    let events = audit_events(audit_start);
    assert!(
        events.iter().any(|e| e["userAgent"]
            .as_str()
            .is_some_and(|a| a.starts_with("pilot-discovery/"))),
        "istiod's writes are not in the audit log"
    );
    let mut written = writes(&events, |e| {
        e["userAgent"]
            .as_str()
            .is_some_and(|a| a.starts_with("bosun/"))
            && e["objectRef"]["resource"].as_str() != Some("leases")
            && e["requestURI"]
                .as_str()
                .is_some_and(|u| u.contains(&ns) || u.contains(&istio_ns))
    });
    let own = written
        .iter()
        .position(|w| w.starts_with("\"patch\"") && w.contains("/istiooperators/minimal"));
    assert!(
        own.is_some(),
        "the test's own patch is not in the audit log: {written:#?}"
    );
    written.remove(own.unwrap());
    assert!(
        written.is_empty(),
        "the operator wrote: {written:#?}\nlog:\n{}",
        operator.log()
    );
    let validators: Api<
        k8s_openapi::api::admissionregistration::v1::ValidatingWebhookConfiguration,
    > = Api::all(client.kube().clone());
    let validator = validators
        .list(&kube::api::ListParams::default().labels(&selector))
        .await
        .unwrap()
        .items
        .remove(0);
    for w in validator.webhooks.unwrap_or_default() {
        assert_eq!(w.failure_policy.as_deref(), Some("Fail"));
        assert!(w.client_config.ca_bundle.is_some());
    }
    delete_and_wait(&api, "minimal", &operator).await;
}

#[tokio::test]
async fn istio_operators_rendering_the_same_object_do_not_fight() {
    let _api_server = API_SERVER.read().await;
    init_once();
    let ns = testenv::unique_name("iop-overlap");
    let istio_ns = testenv::unique_name("istio-opoverlap");
    create_namespace(&ns).await;
    let operator = Operator::start(&ns, &[]);
    let client = testenv::client().await;
    let api = iops(&ns).await;
    // A default control plane and a revisioned one in the same namespace: both render
    // ServiceAccount istio-reader-service-account.
    api.create(
        &PostParams::default(),
        &serde_json::from_value(iop("first", &ns, &istio_ns, json!({}))).unwrap(),
    )
    .await
    .unwrap();
    let accounts: Api<k8s_openapi::api::core::v1::ServiceAccount> =
        Api::namespaced(client.kube().clone(), &istio_ns);
    let reader = "istio-reader-service-account";
    wait_for("the reader account applied", &operator, || async {
        accounts.get_opt(reader).await.unwrap()
    })
    .await;
    let mut second = iop("second", &ns, &istio_ns, json!({}));
    second["spec"]["revision"] = "canary".into();
    api.create(
        &PostParams::default(),
        &serde_json::from_value(second).unwrap(),
    )
    .await
    .unwrap();
    let deployments: Api<Deployment> = Api::namespaced(client.kube().clone(), &istio_ns);
    wait_for("istiod-canary applied", &operator, || async {
        deployments.get_opt("istiod-canary").await.unwrap()
    })
    .await;

    // Both statuses say which object they share and who applies it, once reconciled (the
    // status written while a generation applies says Overlapping already).
    for name in ["first", "second"] {
        let status = wait_for(
            "Overlapping=True and Reconciled=True",
            &operator,
            || async {
                let s = status_of(&api.get(name).await.unwrap());
                (condition(&s, "Overlapping")["status"] == "True"
                    && condition(&s, "Reconciled")["status"] == "True")
                    .then_some(s)
            },
        )
        .await;
        let message = condition(&status, "Overlapping")["message"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            message.contains(&format!("ServiceAccount {istio_ns}/{reader}"))
                && message.contains(&format!("applied by {ns}/first")),
            "{name}: {message}"
        );
        assert_eq!(
            condition(&status, "Reconciled")["status"],
            "True",
            "{status}"
        );
    }
    let events: Api<k8s_openapi::api::events::v1::Event> =
        Api::namespaced(client.kube().clone(), &ns);
    for name in ["first", "second"] {
        wait_for("an Overlap event", &operator, || async {
            events
                .list(&Default::default())
                .await
                .unwrap()
                .items
                .iter()
                .any(|e| {
                    e.reason.as_deref() == Some("Overlap")
                        && e.type_.as_deref() == Some("Warning")
                        && e.regarding.as_ref().and_then(|r| r.name.as_deref()) == Some(name)
                })
                .then_some(())
        })
        .await;
    }

    // No flapping: reconciles of both leave the account as the older one applied it.
    let owner_of = |sa: &k8s_openapi::api::core::v1::ServiceAccount| {
        sa.metadata.labels.as_ref().unwrap()["install.operator.istio.io/owning-resource"].clone()
    };
    let before = accounts.get(reader).await.unwrap();
    assert_eq!(owner_of(&before), "first");
    let addr = operator.metrics_addr().await;
    let reconciles = || {
        let (_, metrics) = http_get(&addr, "/metrics");
        metrics
            .lines()
            .find_map(|l| l.strip_prefix("bosun_operator_reconciles_total{result=\"applied\"} "))
            .map(|n| n.parse::<u64>().unwrap())
            .unwrap_or(0)
    };
    let count = reconciles();
    for name in ["first", "second", "first", "second"] {
        api.patch(
            name,
            &PatchParams::default(),
            &Patch::Merge(
                json!({"metadata": {"annotations": {"touched": testenv::unique_name("t")}}}),
            ),
        )
        .await
        .unwrap();
        tokio::time::sleep(Duration::from_millis(400)).await;
    }
    wait_for("four more reconciles", &operator, || async {
        (reconciles() >= count + 4).then_some(())
    })
    .await;
    let after = accounts.get(reader).await.unwrap();
    assert_eq!(
        after.metadata.resource_version, before.metadata.resource_version,
        "the shared account was rewritten"
    );

    // The older one is uninstalled: the account stays (the other still renders it) and
    // becomes the other's; the overlap is gone from its status.
    delete_and_wait(&api, "first", &operator).await;
    assert!(deployments.get_opt("istiod").await.unwrap().is_none());
    let taken = wait_for("the account taken over by second", &operator, || async {
        accounts
            .get_opt(reader)
            .await
            .unwrap()
            .filter(|sa| owner_of(sa) == "second")
    })
    .await;
    assert_eq!(
        taken.metadata.uid, before.metadata.uid,
        "the account was deleted"
    );
    wait_for("Overlapping=False on second", &operator, || async {
        let s = status_of(&api.get("second").await.unwrap());
        (condition(&s, "Overlapping")["status"] == "False").then_some(())
    })
    .await;
    delete_and_wait(&api, "second", &operator).await;
    assert!(accounts.get_opt(reader).await.unwrap().is_none());
}

/// Deletes a MutatingWebhookConfiguration when dropped, even when the test fails (a fresh
/// runtime on a thread of its own: the test's may be the one unwinding).
struct DeleteInjector(String);

impl Drop for DeleteInjector {
    fn drop(&mut self) {
        let name = self.0.clone();
        std::thread::spawn(move || {
            common::run(async move {
                let client = testenv::client().await;
                let webhooks: Api<MutatingWebhookConfiguration> = Api::all(client.kube().clone());
                webhooks.delete(&name, &Default::default()).await.unwrap();
            })
        })
        .join()
        .unwrap();
    }
}

/// An IstioOperator of a revision of its own whose generations the refusal tests apply: each
/// sets an environment variable of istiod's to the generation's number, so each renders anew
/// and the live istiod says which generation was applied last.
struct Generations {
    api: Api<DynamicObject>,
    deployments: Api<Deployment>,
    spec: Value,
    istiod: String,
}

impl Generations {
    fn new(client: &cluster::Client, ns: &str, istio_ns: &str, revision: &str) -> Generations {
        let mut spec = iop("refuse", ns, istio_ns, json!({}));
        spec["spec"]["revision"] = revision.into();
        Generations {
            api: Api::namespaced_with(client.kube().clone(), ns, &common::operator::iop_resource()),
            deployments: Api::namespaced(client.kube().clone(), istio_ns),
            spec,
            istiod: format!("istiod-{revision}"),
        }
    }

    async fn apply(&self, n: u32) {
        let mut spec = self.spec.clone();
        spec["spec"]["values"]["pilot"] = json!({"env": {"BOSUN_TEST_GENERATION": n.to_string()}});
        self.api
            .patch(
                "refuse",
                &PatchParams::apply("bosun-tests").force(),
                &Patch::Apply(&spec),
            )
            .await
            .unwrap();
    }

    /// The generation the live istiod was applied from.
    async fn applied(&self) -> Option<String> {
        let d = self.deployments.get_opt(&self.istiod).await.unwrap()?;
        d.spec?.template.spec?.containers[0]
            .env
            .as_ref()?
            .iter()
            .find(|e| e.name == "BOSUN_TEST_GENERATION")?
            .value
            .clone()
    }

    async fn wait_applied(&self, operator: &Operator, n: u32) {
        wait_for(&format!("generation {n} applied"), operator, || async {
            (self.applied().await == Some(n.to_string())).then_some(())
        })
        .await;
    }

    /// Waits until generation `n` is refused; checks what the status says and that the live
    /// istiod is still `last_applied`'s; returns the status message.
    async fn wait_refused(&self, operator: &Operator, n: u32, last_applied: u32) -> String {
        let status = wait_for(&format!("generation {n} refused"), operator, || async {
            let s = status_of(&self.api.get("refuse").await.unwrap());
            (s["observedGeneration"] == n && s["status"] == "ACTION_REQUIRED").then_some(s)
        })
        .await;
        let reconciled = condition(&status, "Reconciled");
        assert_eq!(reconciled["status"], "False", "{status}");
        assert_eq!(reconciled["reason"], "Refused", "{status}");
        assert_eq!(condition(&status, "Ready")["reason"], "Refused", "{status}");
        let message = status["message"].as_str().unwrap().to_string();
        assert!(
            message.contains(&format!(
                "refused to apply generation {n}, so nothing was applied"
            )) && !message.contains("--force"),
            "{status}"
        );
        assert_eq!(self.applied().await, Some(last_applied.to_string()));
        message
    }

    async fn delete(&self, operator: &Operator) {
        delete_and_wait(&self.api, "refuse", operator).await;
    }
}

/// The operator refuses what `bosun install` refuses, through the same installer checks: a
/// generation whose sidecar injector would inject the same pods as another revision's is not
/// applied; the IstioOperator says why (ACTION_REQUIRED, `Reconciled` False with reason
/// `Refused`, a Warning event), and the next generation applies once the other injector is
/// gone.
#[tokio::test]
async fn operator_refuses_an_injector_that_overlaps_another_revisions() {
    let _api_server = API_SERVER.read().await;
    init_once();
    let ns = testenv::unique_name("iop-refuse");
    let istio_ns = testenv::unique_name("istio-oprefuse");
    let revision = testenv::unique_name("refused");
    create_namespace(&ns).await;
    let operator = Operator::start(&ns, &[]);
    let client = testenv::client().await;
    let iop = Generations::new(&client, &ns, &istio_ns, &revision);
    iop.apply(1).await;
    iop.wait_applied(&operator, 1).await;

    // Another revision's injector that injects the pods of namespaces labelled for this one
    // (deleted again even when the test fails: it would overlap this revision's installs).
    let bystander = testenv::unique_name("bystander-injector");
    let remove_bystander = DeleteInjector(bystander.clone());
    let other = testenv::unique_name("other");
    client
        .apply(
            &[json!({
                "apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "MutatingWebhookConfiguration",
                "metadata": {"name": bystander, "labels": {
                    "app": "sidecar-injector", "istio.io/rev": other}},
                "webhooks": [{"name": "bystander.sidecar-injector.istio.io",
                    "clientConfig": {"url": "https://127.0.0.1:1/inject"},
                    "sideEffects": "None", "admissionReviewVersions": ["v1"],
                    "failurePolicy": "Ignore",
                    // Not `istio-injection`: the default revision's injectors answer that,
                    // and they must not overlap this one (other tests install them).
                    "namespaceSelector": {"matchExpressions": [
                        {"key": "istio.io/rev", "operator": "In", "values": [revision]},
                        {"key": "istio-injection", "operator": "DoesNotExist"}]},
                    "rules": [{"apiGroups": [""], "apiVersions": ["v1"],
                        "operations": ["CREATE"], "resources": ["pods"]}]}]
            })],
            "bosun-tests",
            false,
        )
        .await
        .unwrap();
    iop.apply(2).await;
    let message = iop.wait_refused(&operator, 2, 1).await;
    assert!(
        message.contains("would inject sidecars into the same pods as one of another revision")
            && message.contains(&format!("MutatingWebhookConfiguration {bystander}")),
        "{message}"
    );
    let events: Api<k8s_openapi::api::events::v1::Event> =
        Api::namespaced(client.kube().clone(), &ns);
    let event = wait_for("a Warning event", &operator, || async {
        let list = events.list(&Default::default()).await.unwrap();
        list.items.into_iter().find(|e| {
            e.regarding.as_ref().and_then(|r| r.name.as_deref()) == Some("refuse")
                && e.reason.as_deref() == Some("Refused")
        })
    })
    .await;
    assert_eq!(event.type_.as_deref(), Some("Warning"));

    drop(remove_bystander);
    iop.apply(3).await;
    iop.wait_applied(&operator, 3).await;
    iop.delete(&operator).await;
}

/// The operator refuses to replace CRDs with older ones, as `bosun install` does: on a control
/// plane of its own (its CRDs are made to look like a newer Istio's, which every other test's
/// install would refuse), a generation is refused with nothing applied while they do, and the
/// next generation applies once they no longer do.
#[tokio::test]
async fn operator_refuses_to_replace_newer_crds() {
    let server = testenv::Private::start("op-crds");
    let kubeconfig = server.kubeconfig();
    let out = common::bosun_at(
        kubeconfig,
        &[
            "operator",
            "init",
            "--operator-namespace",
            "bosun-operator-tests",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let client = cluster::Client::from_kubeconfig(kubeconfig).await.unwrap();
    let ns = "iop-crds";
    client
        .apply(
            &[json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})],
            "bosun-tests",
            false,
        )
        .await
        .unwrap();
    let operator = Operator::start_with(kubeconfig, ns, &[]);
    let iop = Generations::new(&client, ns, "istio-crds", "crds");
    iop.apply(1).await;
    iop.wait_applied(&operator, 1).await;

    let crd = "wasmplugins.extensions.istio.io";
    let crds: Api<CustomResourceDefinition> = Api::all(client.kube().clone());
    let version =
        |v: Option<&str>| json!({"metadata": {"labels": {"operator.istio.io/version": v}}});
    crds.patch(
        crd,
        &PatchParams::default(),
        &Patch::Merge(&version(Some("99.0"))),
    )
    .await
    .unwrap();
    iop.apply(2).await;
    let message = iop.wait_refused(&operator, 2, 1).await;
    assert!(
        message.contains(
            "the install would replace a CustomResourceDefinition with older one (a downgrade): "
        ) && message.contains(&format!("{crd}: in the cluster from Istio 99.0"))
            && !message.contains("would inject sidecars"),
        "{message}"
    );

    crds.patch(crd, &PatchParams::default(), &Patch::Merge(&version(None)))
        .await
        .unwrap();
    iop.apply(3).await;
    iop.wait_applied(&operator, 3).await;
    iop.delete(&operator).await;
}

/// `bosun manifest generate --version VERSION -f FILE` with `env` (the test's cache, catalog
/// and mirror): the objects as the CLI renders that version.
fn generate_version(env: &[(&str, &str)], version: &str, file: &std::path::Path) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_bosun"))
        .args(["manifest", "generate", "--version", version, "-f"])
        .arg(file)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    common::manifests::objects(&String::from_utf8_lossy(&out.stdout))
        .unwrap()
        .into_values()
        .flatten()
        .collect()
}

fn object_ref(object: &Value) -> vocab::ObjectRef {
    let field = |p: &str| {
        object
            .pointer(p)
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    vocab::ObjectRef {
        api_version: field("/apiVersion").unwrap(),
        kind: field("/kind").unwrap(),
        namespace: field("/metadata/namespace"),
        name: field("/metadata/name").unwrap(),
    }
}

/// The first of `objects` the cluster does not hold as rendered: `None` when every one is
/// live with every rendered field but the labels that say who manages it (the command line's
/// render says `manifest generate`'s, the operator writes its own). CRDs are left out: they
/// are cluster-wide, never pruned, and the other tests running beside this one apply the pin's.
async fn first_unsatisfied(objects: &[Value]) -> Option<String> {
    let client = testenv::client().await;
    let owned: Vec<&Value> = objects
        .iter()
        .filter(|o| o["kind"] != "CustomResourceDefinition")
        .collect();
    assert!(
        owned.len() > 10,
        "too few objects rendered: {}",
        owned.len()
    );
    for object in owned {
        let what = object_ref(object);
        let mut object = object.clone();
        if let Some(labels) = object
            .pointer_mut("/metadata/labels")
            .and_then(Value::as_object_mut)
        {
            labels.retain(|k, _| {
                k != vocab::labels::MANAGED_BY_LABEL && !k.starts_with("install.operator.istio.io/")
            });
        }
        let object = &object;
        match client.get(&what).await.unwrap() {
            None => return Some(format!("{what}: missing")),
            Some(live) => {
                if let Some(field) = operator::noop::unsatisfied_field(object, &live) {
                    return Some(format!("{what}: {field}"));
                }
            }
        }
    }
    None
}

/// An IstioOperator naming an Istio version (`bosun.io/istio-version`) is reconciled to that
/// version's objects, fetched from a module proxy on loopback holding the two snapshots'
/// module zips (the older one and the pin; their go.sum hashes are in the built-in catalog)
/// into a cache of the test's own: the live objects are what `manifest generate --version
/// <older>` renders of the same IstioOperator; changing the annotation to the pin's version
/// reconciles the pin's objects; an unknown version leaves the cluster as it is, with the
/// reason in the status and a Warning event, while another IstioOperator naming an unknown
/// version from the start never has anything applied and does not stop the first. (Module
/// versions rather than the release mirror of `versions.rs`: its archives carry the
/// snapshots' charts, whose version is `1.0.0`, and the release policy would then judge
/// them against the other tests' 1.31 control planes.)
#[tokio::test]
async fn an_istio_operator_naming_a_version_is_reconciled_to_that_version() {
    use common::http::FileServer;
    use common::mirror::{PREVIOUS, Scratch, previous_manifests};
    let _api_server = API_SERVER.read().await;
    init_once();
    let scratch = Scratch::new("operator-versions");
    let (proxy, cache) = (scratch.0.join("proxy"), scratch.0.join("cache"));
    let gomod = previous_manifests()
        .parent()
        .and_then(std::path::Path::parent)
        .unwrap()
        .join("gomod/cache/download/istio.io/istio/@v");
    let pin_zip = std::fs::read_dir(&gomod)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.extension().is_some_and(|e| e == "zip") && !p.to_string_lossy().contains(PREVIOUS)
        })
        .expect("the pin's module zip in Go's module cache (scripts/fetch-istio)");
    let pin = pin_zip.file_stem().unwrap().to_str().unwrap().to_string();
    let previous_zip = gomod.join(format!("{PREVIOUS}.zip"));
    common::mirror::module_proxy_dir(
        &proxy,
        &[
            (&previous_zip, &format!("{PREVIOUS}.zip")),
            (&pin_zip, &format!("{pin}.zip")),
        ],
    );
    let server = FileServer::start(&proxy);
    let env = [
        ("BOSUN_CACHE", cache.to_str().unwrap()),
        ("GOPROXY", server.url.as_str()),
        ("GOSUMDB", "off"),
        ("GOFLAGS", "-mod=mod"),
        ("BOSUN_CATALOG", ""),
        ("BOSUN_ISTIO_MIRROR", "http://127.0.0.1:9"),
    ];

    let ns = testenv::unique_name("iop-ver");
    let (istio_a, istio_b) = (
        testenv::unique_name("istio-ver"),
        testenv::unique_name("istio-verbad"),
    );
    create_namespace(&ns).await;
    let operator = Operator::start_env(testenv::kubeconfig(), &ns, &[], &env);
    let api = iops(&ns).await;
    let annotation = vocab::labels::ISTIO_VERSION_ANNOTATION;
    let named = |name: &str, istio_ns: &str, version: &str| {
        let mut object = iop(name, &ns, istio_ns, json!({}));
        object["metadata"]["annotations"] = json!({annotation: version});
        object
    };
    let a = named("a", &istio_a, PREVIOUS);
    let file = scratch.0.join("a.yaml");
    std::fs::write(&file, serde_json::to_string(&a).unwrap()).unwrap();
    // The command line fetches into a cache of its own: the operator fetches for itself.
    let cli_cache = scratch.0.join("cli-cache");
    let mut cli_env = env;
    cli_env[0] = ("BOSUN_CACHE", cli_cache.to_str().unwrap());
    let older = generate_version(&cli_env, PREVIOUS, &file);
    let newer = generate_version(&cli_env, &pin, &file);
    // Each module, and the istio.io/api each requires.
    assert_eq!(server.requests(), 4);
    // The sidecar injector's and the values ConfigMaps differ (CRDs aside, which the
    // comparison leaves out): the test can tell the versions apart.
    let without_crds = |objects: &[Value]| -> Vec<Value> {
        objects
            .iter()
            .filter(|o| o["kind"] != "CustomResourceDefinition")
            .cloned()
            .collect()
    };
    assert_ne!(
        without_crds(&older),
        without_crds(&newer),
        "the two versions render alike: the test could not tell"
    );
    for object in [a, named("b", &istio_b, "9.7.0")] {
        api.create(
            &PostParams::default(),
            &serde_json::from_value(object).unwrap(),
        )
        .await
        .unwrap();
    }

    // a: the older snapshot's objects, and its status says so.
    let reconciled = |name: &'static str, version: String| {
        let api = api.clone();
        let wanted = format!("with Istio {version} (");
        move || {
            let (api, wanted) = (api.clone(), wanted.clone());
            async move {
                let s = status_of(&api.get(name).await.unwrap());
                let c = condition(&s, "Reconciled");
                (c["status"] == "True"
                    && c["message"].as_str().is_some_and(|m| m.contains(&wanted)))
                .then_some(s)
            }
        }
    };
    let status = wait_for(
        "a reconciled with the older snapshot",
        &operator,
        reconciled("a", PREVIOUS.to_string()),
    )
    .await;
    assert!(
        status["message"]
            .as_str()
            .unwrap()
            .starts_with(&format!("Istio {PREVIOUS} (bosun.io/istio-version): ")),
        "{status}"
    );
    if let Some(d) = first_unsatisfied(&older).await {
        panic!("the older snapshot's render is not what is live: {d}");
    }
    assert!(
        cache
            .join(format!("istio-{PREVIOUS}/manifests/profiles"))
            .is_dir()
    );

    // b: refused, nothing of it in the cluster.
    let status = wait_for("b refused", &operator, || async {
        let s = status_of(&api.get("b").await.unwrap());
        (s["status"] == "ERROR").then_some(s)
    })
    .await;
    let message = status["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "nothing was applied: annotation bosun.io/istio-version: Istio release 9.7.0 is not in bosun's catalog; known releases: "
        ),
        "{status}"
    );
    assert_eq!(condition(&status, "Reconciled")["reason"], "InvalidVersion");
    let client = testenv::client().await;
    let events: Api<k8s_openapi::api::events::v1::Event> =
        Api::namespaced(client.kube().clone(), &ns);
    let event = wait_for("an InvalidVersion event", &operator, || async {
        let list = events.list(&Default::default()).await.unwrap();
        list.items.into_iter().find(|e| {
            e.regarding.as_ref().and_then(|r| r.name.as_deref()) == Some("b")
                && e.reason.as_deref() == Some("InvalidVersion")
        })
    })
    .await;
    assert_eq!(event.type_.as_deref(), Some("Warning"));
    let namespaces: Api<Namespace> = Api::all(client.kube().clone());
    assert!(namespaces.get_opt(&istio_b).await.unwrap().is_none());

    // The pin's version: the pin's objects, and what only the older snapshot rendered is
    // pruned.
    let set_version = |version: &str| {
        let patch = json!({"metadata": {"annotations": {annotation: version}}});
        let api = api.clone();
        async move {
            api.patch("a", &PatchParams::default(), &Patch::Merge(&patch))
                .await
                .unwrap();
        }
    };
    set_version(&pin).await;
    wait_for(
        "a reconciled with the pin",
        &operator,
        reconciled("a", pin.clone()),
    )
    .await;
    if let Some(d) = first_unsatisfied(&newer).await {
        panic!("the pin's render is not what is live: {d}");
    }
    assert_eq!(
        server.requests(),
        8,
        "the operator fetched each module (and the istio.io/api it requires) once"
    );
    assert!(
        cache
            .join(format!("istio-{pin}/manifests/profiles"))
            .is_dir()
    );
    let newer_refs: Vec<vocab::ObjectRef> = newer.iter().map(object_ref).collect();
    for gone in older
        .iter()
        .map(object_ref)
        .filter(|r| !newer_refs.contains(r))
    {
        assert!(
            client.get(&gone).await.unwrap().is_none(),
            "{gone} was not pruned"
        );
    }

    // An unknown version: the status says why, the cluster is left as it is.
    let deployments: Api<Deployment> = Api::namespaced(client.kube().clone(), &istio_a);
    let before = deployments
        .get("istiod")
        .await
        .unwrap()
        .metadata
        .resource_version;
    set_version("9.0.9").await;
    let status = wait_for("a refused", &operator, || async {
        let s = status_of(&api.get("a").await.unwrap());
        (s["status"] == "ERROR").then_some(s)
    })
    .await;
    assert!(
        status["message"]
            .as_str()
            .unwrap()
            .contains("Istio release 9.0.9 is not in bosun's catalog"),
        "{status}"
    );
    if let Some(d) = first_unsatisfied(&newer).await {
        panic!("an unknown version changed the cluster: {d}");
    }
    let after = deployments
        .get("istiod")
        .await
        .unwrap()
        .metadata
        .resource_version;
    assert_eq!(before, after, "istiod was written");

    // Removing the annotation renders the operator's own package (the pin) again; deleting
    // uninstalls through the finalizer.
    let remove = json!({"metadata": {"annotations": {annotation: null}}});
    api.patch("a", &PatchParams::default(), &Patch::Merge(&remove))
        .await
        .unwrap();
    wait_for("a reconciled without a version", &operator, || async {
        let s = status_of(&api.get("a").await.unwrap());
        (condition(&s, "Reconciled")["status"] == "True").then_some(())
    })
    .await;
    delete_and_wait(&api, "a", &operator).await;
    delete_and_wait(&api, "b", &operator).await;
    drop(server);
}

/// The operator applies the release policy `install` applies (`installer::release_policy`):
/// with a catalog (`BOSUN_CATALOG`) saying the pin's minor is end of life and needs a newer
/// Kubernetes than the test control plane's, an IstioOperator goes to ACTION_REQUIRED with the
/// end of life in its message and nothing applied; the annotation
/// `bosun.io/ignore-release-policy: "true"` lets it apply, the status noting both the ignored
/// refusal and the Kubernetes range (which only warns, as in `install`).
#[tokio::test]
async fn operator_applies_the_release_policy() {
    let _api_server = API_SERVER.read().await;
    init_once();
    let pin = std::fs::read_to_string(common::manifests_dir().with_file_name("VERSION")).unwrap();
    let mut parts = pin.trim().split('.');
    let minor = format!("{}.{}", parts.next().unwrap(), parts.next().unwrap());
    let scratch = common::mirror::Scratch::new("operator-policy");
    let catalog = scratch.0.join("catalog.json");
    std::fs::write(
        &catalog,
        format!(
            r#"{{"releases": [{{"minor": "{minor}", "status": "supported", "end_of_life": "2020-01-01",
               "kubernetes": {{"min": "1.99", "max": null}}, "patches": [{{"version": "{minor}.0"}}]}}]}}"#
        ),
    )
    .unwrap();
    let ns = testenv::unique_name("iop-policy");
    let istio_ns = testenv::unique_name("istio-policy");
    create_namespace(&ns).await;
    let env = [
        ("BOSUN_CATALOG", catalog.to_str().unwrap()),
        ("BOSUN_CACHE", scratch.0.to_str().unwrap()),
    ];
    let operator = Operator::start_env(testenv::kubeconfig(), &ns, &[], &env);
    let api = iops(&ns).await;
    api.create(
        &PostParams::default(),
        &serde_json::from_value(iop("eol", &ns, &istio_ns, json!({}))).unwrap(),
    )
    .await
    .unwrap();
    let status = wait_for("refused as end of life", &operator, || async {
        let s = status_of(&api.get("eol").await.unwrap());
        (s["status"] == "ACTION_REQUIRED").then_some(s)
    })
    .await;
    let message = status["message"].as_str().unwrap();
    assert!(
        message.contains(&format!(
            "the install is not supported by Istio's release policy: Istio {} is end of life: support for {minor} ended 2020-01-01",
            pin.trim()
        )) && message.contains("; note: The Kubernetes Version \"")
            && message.contains("\" is lower than the minimum version: 1.99")
            && message.contains("; note: the annotation bosun.io/ignore-release-policy: \"true\" applies what the release policy refuses"),
        "{status}"
    );
    assert_eq!(condition(&status, "Reconciled")["reason"], "Refused");
    let client = testenv::client().await;
    let namespaces: Api<Namespace> = Api::all(client.kube().clone());
    assert!(namespaces.get_opt(&istio_ns).await.unwrap().is_none());

    let ignore = json!({"metadata": {"annotations": {
        vocab::labels::IGNORE_RELEASE_POLICY_ANNOTATION: "true"}}});
    api.patch("eol", &PatchParams::default(), &Patch::Merge(&ignore))
        .await
        .unwrap();
    let deployments: Api<Deployment> = Api::namespaced(client.kube().clone(), &istio_ns);
    wait_for("istiod applied once ignored", &operator, || async {
        deployments.get_opt("istiod").await.unwrap()
    })
    .await;
    let status = wait_for("reconciled", &operator, || async {
        let s = status_of(&api.get("eol").await.unwrap());
        (condition(&s, "Reconciled")["status"] == "True").then_some(s)
    })
    .await;
    let message = status["message"].as_str().unwrap();
    assert!(
        message.contains("is end of life")
            && message.contains("(ignored: bosun.io/ignore-release-policy=true)")
            && message.contains("lower than the minimum version: 1.99"),
        "{status}"
    );
    delete_and_wait(&api, "eol", &operator).await;
}

/// The Helm release records of `release` in `ns`, decoded, oldest first.
async fn helm_records(ns: &str, release: &str) -> Vec<helmrelease::Record> {
    let client = testenv::client().await;
    let secrets: Api<k8s_openapi::api::core::v1::Secret> =
        Api::namespaced(client.kube().clone(), ns);
    let list = secrets
        .list(&kube::api::ListParams::default().labels(&helmrelease::selector(release)))
        .await
        .unwrap();
    let mut records: Vec<helmrelease::Record> = list
        .items
        .iter()
        .map(|s| helmrelease::Record::from_secret(s).unwrap())
        .collect();
    records.sort_by_key(|r| r.version());
    records
}

/// `bosun.io/helm-releases: "true"` (fast tier; real helm on the living cluster is
/// `helm_releases.rs`' part): the operator records each component instance as the Helm release
/// Istio's docs name, in helm's format (decoded by `helmrelease`), holding exactly the documents
/// `manifest generate --cluster-specific` renders; the objects carry Helm's markers and are
/// applied as manager `helm`, the operator's own manager holding only the owner labels. Then a
/// revision written as `helm upgrade --reuse-values --set pilot.env.…` writes it (the record
/// and the Deployment's new env var): the operator leaves istiod as helm made it, the status
/// says ACTION_REQUIRED (reason HelmChanged) with the value path and never the value, and the
/// other release is still repaired. `bosun.io/override-helm-changes: "true"` puts the render
/// back as revision 3; removing `bosun.io/helm-releases` deletes the records and hands the
/// objects back to the operator's manager.
#[tokio::test]
async fn operator_records_helm_releases_and_leaves_what_helm_changed() {
    let _api_server = API_SERVER.read().await;
    init_once();
    let ns = testenv::unique_name("iop-helm");
    let istio_ns = testenv::unique_name("istio-helm");
    create_namespace(&ns).await;
    create_namespace(&istio_ns).await;
    let operator = Operator::start(&ns, &[]);
    let client = testenv::client().await;
    let api = iops(&ns).await;
    let mut resource = iop("helm", &ns, &istio_ns, json!({}));
    resource["metadata"]["annotations"] = json!({"bosun.io/helm-releases": "true"});
    api.create(
        &PostParams::default(),
        &serde_json::from_value(resource.clone()).unwrap(),
    )
    .await
    .unwrap();

    // The records: one release per component, revision 1, deployed, bosun's mark and the
    // IstioOperator in their labels.
    let (base, istiod) = wait_for("both releases recorded", &operator, || async {
        let base = helm_records(&istio_ns, "istio-base").await;
        let istiod = helm_records(&istio_ns, "istiod").await;
        (base.len() == 1 && istiod.len() == 1).then_some((base, istiod))
    })
    .await;
    for (record, chart) in [(&base[0], "base"), (&istiod[0], "istiod")] {
        assert_eq!(record.version(), Some(1));
        assert_eq!(record.status(), "deployed");
        assert_eq!(record.chart_name(), Some(chart));
        assert_eq!(record.labels["bosun.io/helm-release"], "true");
        assert_eq!(record.labels["bosun.io/helm-revision"], "1");
        assert_eq!(
            record.labels["install.operator.istio.io/owning-resource"],
            "helm"
        );
        assert_eq!(record.body["apply_method"], "ssa");
    }
    // Exactly what `manifest generate --cluster-specific` renders of the same IstioOperator.
    let file = std::env::temp_dir().join(format!("{}.json", testenv::unique_name("iop-helm")));
    std::fs::write(&file, resource.to_string()).unwrap();
    let out = bosun(&[
        "manifest",
        "generate",
        "--cluster-specific",
        "--manifests",
        &manifests(),
        "-f",
        file.to_str().unwrap(),
    ]);
    let _ = std::fs::remove_file(&file);
    assert!(out.status.success(), "{}", text(&out));
    let rendered = common::documents(&String::from_utf8_lossy(&out.stdout));
    let mut recorded = common::documents(base[0].manifest());
    recorded.extend(common::documents(istiod[0].manifest()));
    recorded.sort();
    assert_eq!(recorded.len(), rendered.len());
    assert!(
        recorded == rendered,
        "the records' manifests differ from manifest generate"
    );

    // Helm's markers, manager `helm`, the operator's manager holding only the owner labels.
    let deployments: Api<Deployment> = Api::namespaced(client.kube().clone(), &istio_ns);
    let deployment = deployments.get("istiod").await.unwrap();
    let meta = &deployment.metadata;
    let labels = meta.labels.clone().unwrap_or_default();
    let annotations = meta.annotations.clone().unwrap_or_default();
    assert_eq!(labels["app.kubernetes.io/managed-by"], "Helm");
    assert_eq!(
        labels["install.operator.istio.io/owning-resource-namespace"],
        ns
    );
    assert_eq!(annotations["meta.helm.sh/release-name"], "istiod");
    assert_eq!(annotations["meta.helm.sh/release-namespace"], istio_ns);
    let managers: BTreeMap<String, Value> = meta
        .managed_fields
        .iter()
        .flatten()
        .filter(|m| m.operation.as_deref() == Some("Apply"))
        .map(|m| {
            (
                m.manager.clone().unwrap_or_default(),
                m.fields_v1
                    .as_ref()
                    .map(|f| f.0.clone())
                    .unwrap_or_default(),
            )
        })
        .collect();
    assert!(
        managers["helm"].pointer("/f:spec").is_some(),
        "{managers:?}"
    );
    let held = &managers["bosun-operator"];
    assert_eq!(
        held.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["f:metadata"],
        "{held}"
    );
    assert!(held.pointer("/f:metadata/f:labels").is_some(), "{held}");

    // helm upgrade --reuse-values --set pilot.env.HELM_SET=…: its revision 2 (the release
    // labels carried over), then its server-side apply of the Deployment as manager `helm`.
    let secrets: Api<k8s_openapi::api::core::v1::Secret> =
        Api::namespaced(client.kube().clone(), &istio_ns);
    let v1 = &istiod[0];
    let mut config = v1.config();
    config
        .entry("pilot")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .unwrap()
        .entry("env")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .unwrap()
        .insert("HELM_SET".into(), json!("from-helm-upgrade"));
    let v2 = helmrelease::Release {
        name: "istiod".into(),
        namespace: istio_ns.clone(),
        version: 2,
        status: helmrelease::Status::Deployed,
        description: "Upgrade complete".into(),
        first_deployed: v1.first_deployed().unwrap().to_string(),
        last_deployed: "2026-12-07T12:00:00Z".into(),
        chart: v1.body["chart"].clone(),
        config,
        manifest: v1.manifest().to_string(),
        labels: v1.own_labels(),
        apply_method: "ssa".into(),
    };
    let now = 1_796_000_000;
    // In helm's order: the new revision's record first (helm creates it before it applies
    // anything), then the old one superseded. The other order left a moment with no deployed
    // revision newer than bosun's: a reconcile that read the records then, and the Deployment
    // just after, took helm's upgrade for drift (this test failed so, now and then).
    secrets
        .create(&PostParams::default(), &v2.to_secret(now))
        .await
        .unwrap();
    secrets
        .replace(
            &v1.secret,
            &PostParams::default(),
            &v1.with_status(helmrelease::Status::Superseded, now),
        )
        .await
        .unwrap();
    // helm v4 applies the whole rendered object server-side as manager `helm`: the live
    // Deployment with the new env var stands in for its render.
    let mut body = serde_json::to_value(deployments.get("istiod").await.unwrap()).unwrap();
    body.as_object_mut().unwrap().remove("status");
    let metadata = body["metadata"].as_object_mut().unwrap();
    for server_set in [
        "managedFields",
        "resourceVersion",
        "uid",
        "creationTimestamp",
        "generation",
    ] {
        metadata.remove(server_set);
    }
    body["spec"]["template"]["spec"]["containers"][0]["env"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "HELM_SET", "value": "from-helm-upgrade"}));
    deployments
        .patch("istiod", &PatchParams::apply("helm"), &Patch::Apply(&body))
        .await
        .unwrap();
    let has_env = |d: &Deployment| {
        d.spec
            .as_ref()
            .unwrap()
            .template
            .spec
            .as_ref()
            .unwrap()
            .containers[0]
            .env
            .iter()
            .flatten()
            .any(|e| e.name == "HELM_SET")
    };
    let status = wait_for(
        "ACTION_REQUIRED: helm changed istiod",
        &operator,
        || async {
            let s = status_of(&api.get("helm").await.unwrap());
            (s["status"] == "ACTION_REQUIRED").then_some(s)
        },
    )
    .await;
    let reconciled = condition(&status, "Reconciled");
    assert_eq!(reconciled["reason"], "HelmChanged", "{status}");
    let message = status["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("helm release {istio_ns}/istiod: revision 2")),
        "{message}"
    );
    assert!(
        message.contains("values.pilot.env.HELM_SET added"),
        "{message}"
    );
    assert!(
        !message.contains("from-helm-upgrade"),
        "a value in {message}"
    );
    assert!(
        message.contains("bosun.io/override-helm-changes"),
        "{message}"
    );
    // istiod stays as helm made it; the other release is still repaired.
    let service_accounts: Api<k8s_openapi::api::core::v1::ServiceAccount> =
        Api::namespaced(client.kube().clone(), &istio_ns);
    let base_sa = base[0]
        .manifest()
        .split("\n---\n")
        .find(|d| d.contains("kind: ServiceAccount"))
        .and_then(|d| d.lines().find_map(|l| l.trim().strip_prefix("name: ")))
        .unwrap()
        .trim_matches('"')
        .to_string();
    service_accounts
        .delete(&base_sa, &Default::default())
        .await
        .unwrap();
    wait_for(
        "the base release's ServiceAccount restored",
        &operator,
        || async { service_accounts.get_opt(&base_sa).await.unwrap() },
    )
    .await;
    assert!(has_env(&deployments.get("istiod").await.unwrap()));
    assert_eq!(helm_records(&istio_ns, "istiod").await.len(), 2);

    // The override annotation: the render is back, as revision 3, written by the operator.
    api.patch(
        "helm",
        &PatchParams::default(),
        &Patch::Merge(
            json!({"metadata": {"annotations": {"bosun.io/override-helm-changes": "true"}}}),
        ),
    )
    .await
    .unwrap();
    let v3 = wait_for("revision 3 recorded", &operator, || async {
        let records = helm_records(&istio_ns, "istiod").await;
        (records.len() == 3).then(|| records[2].clone())
    })
    .await;
    assert_eq!(v3.status(), "deployed");
    assert_eq!(v3.labels["bosun.io/helm-revision"], "3");
    assert_eq!(v3.config(), v1.config());
    assert!(!has_env(&deployments.get("istiod").await.unwrap()));
    let status = wait_for("no longer ACTION_REQUIRED", &operator, || async {
        let s = status_of(&api.get("helm").await.unwrap());
        (s["status"] != "ACTION_REQUIRED").then_some(s)
    })
    .await;
    assert!(
        status["message"]
            .as_str()
            .unwrap()
            .contains("applied over: bosun.io/override-helm-changes=true"),
        "{status}"
    );

    // Without the annotation: the records go, the objects are the operator's again.
    api.patch(
        "helm",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"annotations": {"bosun.io/helm-releases": null}}})),
    )
    .await
    .unwrap();
    wait_for("the records removed", &operator, || async {
        (helm_records(&istio_ns, "istiod").await.is_empty()
            && helm_records(&istio_ns, "istio-base").await.is_empty())
        .then_some(())
    })
    .await;
    let deployment = wait_for("istiod handed back", &operator, || async {
        let d = deployments.get("istiod").await.unwrap();
        let annotations = d.metadata.annotations.clone().unwrap_or_default();
        (!annotations.contains_key("meta.helm.sh/release-name")).then_some(d)
    })
    .await;
    let labels = deployment.metadata.labels.clone().unwrap_or_default();
    assert_eq!(labels["app.kubernetes.io/managed-by"], "bosun-operator");
    assert!(
        deployment
            .metadata
            .managed_fields
            .iter()
            .flatten()
            .all(|m| m.manager.as_deref() != Some("helm")),
        "{:?}",
        deployment.metadata.managed_fields
    );

    delete_and_wait(&api, "helm", &operator).await;
    assert!(deployments.get_opt("istiod").await.unwrap().is_none());
}
