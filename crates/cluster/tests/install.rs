//! `Client::install` against the real test control plane: components ordered by their
//! dependencies, independent ones installed even when another fails.

use std::sync::Mutex;
use std::time::Duration;

use cluster::{Error, InstallEvent, InstallOptions, testenv};

use serde_json::{Value, json};
use vocab::Component;

fn config_map(ns: &str, name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": ns}, "data": {"k": "v"}})
}

fn component(name: &str, after: &[&str], objects: Vec<Value>) -> Component {
    Component {
        name: name.into(),
        display_name: format!("The {name}"),
        after: after.iter().map(|s| s.to_string()).collect(),
        objects,
    }
}

#[tokio::test]
async fn a_failed_component_skips_its_dependents_and_not_the_others() {
    let client = testenv::client().await;
    let ns = testenv::unique_name("order");
    let broken = json!({"apiVersion": "nowhere.example/v1", "kind": "Nothing", "metadata": {"name": "x", "namespace": ns}});
    let components = [
        component("Base", &[], vec![config_map(&ns, "base")]),
        component("Broken", &["Base"], vec![broken]),
        component(
            "AfterBroken",
            &["Broken"],
            vec![config_map(&ns, "after-broken")],
        ),
        component(
            "Independent",
            &["Base"],
            vec![config_map(&ns, "independent")],
        ),
    ];
    let options = InstallOptions {
        field_manager: "bosun".into(),
        take_over_from: Vec::new(),
        force: false,
        crd_timeout: Duration::from_secs(10),
        readiness_timeout: Some(Duration::from_secs(5)),
        wait_for_load_balancers: false,
        owner_labels: None,
        created_namespace_labels: Default::default(),
    };
    let events = Mutex::new(Vec::new());
    let record = |i: usize, e: InstallEvent<'_>| {
        let what = match e {
            InstallEvent::Applying => "applying".to_string(),
            InstallEvent::Waiting(_) => "waiting".to_string(),
            InstallEvent::Installed(_) => "installed".to_string(),
            InstallEvent::Failed(_) => "failed".to_string(),
            InstallEvent::Skipped { because } => format!("skipped ({because})"),
        };
        events
            .lock()
            .unwrap()
            .push(format!("{} {what}", components[i].name));
    };
    let err = client
        .install(&components, &options, &record)
        .await
        .unwrap_err();
    let Error::Install { failures } = &err else {
        panic!("not an install error: {err}");
    };
    let failed: Vec<&str> = failures.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(failed, ["The Broken", "The AfterBroken"], "{err}");
    assert!(
        err.to_string()
            .contains("The AfterBroken: skipped because The Broken failed"),
        "{err}"
    );

    let events = events.into_inner().unwrap();
    let position = |e: &str| {
        events
            .iter()
            .position(|x| x == e)
            .unwrap_or_else(|| panic!("no {e:?} in {events:?}"))
    };
    assert!(
        position("Base installed") < position("Broken applying"),
        "{events:?}"
    );
    assert!(
        position("Base installed") < position("Independent applying"),
        "{events:?}"
    );
    position("Independent installed");
    position("AfterBroken skipped (The Broken)");
    assert!(
        !events.iter().any(|e| e == "AfterBroken applying"),
        "{events:?}"
    );

    // What could be installed was: the independent component's ConfigMap exists, the one
    // after the broken component does not.
    let api: kube::Api<k8s_openapi::api::core::v1::ConfigMap> =
        kube::Api::namespaced(client.kube().clone(), &ns);
    assert!(api.get_opt("independent").await.unwrap().is_some());
    assert!(api.get_opt("after-broken").await.unwrap().is_none());
}

/// An installation's objects are read once, by its labels, before anything is applied: the
/// outcomes come from that read (an object someone else made is `Configured`, not `Created`),
/// and the prune after the install takes its candidates from it instead of listing again.
#[tokio::test]
async fn an_installations_objects_are_read_once_and_its_prune_reuses_the_read() {
    use cluster::Outcome;
    use kube::api::{Api, Patch, PatchParams};
    use vocab::{Installation, RenderedComponent};

    let client = testenv::client().await;
    let ns = testenv::unique_name("snap");
    let rev = testenv::unique_name("rev");
    let owner: std::collections::BTreeMap<String, String> = [
        ("operator.istio.io/managed", "Reconcile"),
        ("istio.io/rev", rev.as_str()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let owned = |name: &str| {
        let mut cm = config_map(&ns, name);
        let mut labels = json!(owner);
        labels["operator.istio.io/component"] = json!("Base");
        cm["metadata"]["labels"] = labels;
        cm
    };
    // Someone else's ConfigMaps: one the installation will take over, one it must leave alone.
    let configmaps: Api<k8s_openapi::api::core::v1::ConfigMap> =
        Api::namespaced(client.kube().clone(), &ns);
    let ns_object = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}});
    client.apply(&[ns_object], "someone", false).await.unwrap();
    for name in ["taken", "bystander"] {
        configmaps
            .patch(
                name,
                &PatchParams::apply("someone"),
                &Patch::Apply(json!({"apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": name, "namespace": ns}, "data": {"other": "x"}})),
            )
            .await
            .unwrap();
    }
    // "Created" is told from the creation second; let the other manager's second pass.
    tokio::time::sleep(Duration::from_millis(1100)).await;

    let options = InstallOptions {
        field_manager: "bosun".into(),
        take_over_from: Vec::new(),
        force: false,
        crd_timeout: Duration::from_secs(10),
        readiness_timeout: None,
        wait_for_load_balancers: false,
        owner_labels: Some(owner.clone()),
        created_namespace_labels: Default::default(),
    };
    let install = |names: &[&str]| {
        let objects: Vec<Value> = names.iter().map(|n| owned(n)).collect();
        let installation = Installation {
            owner_labels: owner.clone(),
            components: vec![RenderedComponent::from_objects("Base", &objects)],
        };
        (vec![component("Base", &[], objects)], installation)
    };
    let outcomes = |report: &cluster::InstallReport| -> Vec<(String, Outcome)> {
        report.components[0]
            .report
            .objects
            .iter()
            .map(|a| (a.object.name.clone(), a.outcome))
            .collect()
    };
    let name = |n: &str| n.to_string();

    let (components, installation) = install(&["a", "taken"]);
    let report = client
        .install(&components, &options, &|_, _| {})
        .await
        .unwrap();
    assert_eq!(
        outcomes(&report),
        [
            (name("a"), Outcome::Created),
            (name("taken"), Outcome::Configured)
        ]
    );
    let pruned = client
        .prune_after_install(&installation, &report, &mut |_| {})
        .await
        .unwrap();
    assert!(pruned.is_empty(), "{pruned:?}");

    let report = client
        .install(&components, &options, &|_, _| {})
        .await
        .unwrap();
    assert_eq!(
        outcomes(&report),
        [
            (name("a"), Outcome::Unchanged),
            (name("taken"), Outcome::Unchanged)
        ]
    );

    // "taken" is the installation's now; rendered no more, the prune deletes it.
    let audit = testenv::kubeconfig().with_file_name("audit.log");
    let audit_lines = || {
        std::fs::read_to_string(&audit)
            .map(|t| t.lines().map(str::to_string).collect::<Vec<_>>())
            .unwrap_or_default()
    };
    let start = audit_lines().len();
    let (components, installation) = install(&["a"]);
    let report = client
        .install(&components, &options, &|_, _| {})
        .await
        .unwrap();
    let pruned = client
        .prune_after_install(&installation, &report, &mut |_| {})
        .await
        .unwrap();
    let pruned: Vec<String> = pruned.iter().map(|d| d.object.to_string()).collect();
    assert_eq!(pruned, [format!("ConfigMap {ns}/taken")]);
    assert!(configmaps.get_opt("taken").await.unwrap().is_none());
    assert!(configmaps.get_opt("bystander").await.unwrap().is_some());

    if audit.exists() {
        // This test's lists of ConfigMaps: by its revision's labels, or in its namespace.
        tokio::time::sleep(Duration::from_millis(500)).await; // the log is written asynchronously
        let configmap_lists: Vec<String> = audit_lines()[start..]
            .iter()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|e| e["verb"] == "list")
            .filter_map(|e| e["requestURI"].as_str().map(str::to_string))
            .filter(|u| {
                (u.starts_with("/api/v1/configmaps?") && u.contains(&rev))
                    || u.starts_with(&format!("/api/v1/namespaces/{ns}/configmaps?"))
            })
            .collect();
        assert_eq!(configmap_lists.len(), 1, "{configmap_lists:#?}");
    }
}

/// With `wait_for_load_balancers`, a component is installed once its Services of type
/// LoadBalancer have an address; until then the wait names the Service and why.
#[tokio::test]
async fn load_balancer_services_are_waited_for_when_asked() {
    use kube::api::{Api, Patch, PatchParams};

    let client = testenv::client().await;
    let ns = testenv::unique_name("lb");
    let service = json!({"apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "gateway", "namespace": ns},
        "spec": {"type": "LoadBalancer", "selector": {"app": "gateway"},
            "ports": [{"name": "http", "port": 80, "targetPort": 8080}]}});
    let components = [component("Gateways", &[], vec![service])];
    let options = |wait_for_load_balancers| InstallOptions {
        field_manager: "bosun".into(),
        take_over_from: Vec::new(),
        force: false,
        crd_timeout: Duration::from_secs(10),
        readiness_timeout: Some(Duration::from_secs(2)),
        wait_for_load_balancers,
        owner_labels: None,
        created_namespace_labels: Default::default(),
    };
    // Not asked: nothing to wait for.
    client
        .install(&components, &options(false), &|_, _| {})
        .await
        .unwrap();
    let err = client
        .install(&components, &options(true), &|_, _| {})
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(&format!("Service {ns}/gateway"))
            && err.contains("no load balancer address yet"),
        "{err}"
    );

    let services: Api<k8s_openapi::api::core::v1::Service> =
        Api::namespaced(client.kube().clone(), &ns);
    services
        .patch_status(
            "gateway",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"loadBalancer": {"ingress": [{"ip": "192.0.2.10"}]}}})),
        )
        .await
        .unwrap();
    client
        .install(&components, &options(true), &|_, _| {})
        .await
        .unwrap();
}

/// A component with webhooks is installed once the Services they call have ready endpoints:
/// until then the API server could not call them.
#[tokio::test]
async fn webhooks_are_waited_for_until_their_service_has_a_ready_endpoint() {
    use kube::api::{Api, PostParams};

    let client = testenv::client().await;
    let ns = testenv::unique_name("hook");
    let config = json!({"apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration", "metadata": {"name": ns},
        "webhooks": [{"name": "check.example.com", "admissionReviewVersions": ["v1"],
            "sideEffects": "None", "failurePolicy": "Ignore",
            // Nothing is ever sent to it: it matches no request.
            "rules": [{"apiGroups": ["example.com"], "apiVersions": ["v1"],
                "operations": ["CREATE"], "resources": ["nothings"]}],
            "clientConfig": {"service": {"namespace": ns, "name": "checker", "port": 443}}}]});
    let components = [component("Pilot", &[], vec![config_map(&ns, "c"), config])];
    let options = InstallOptions {
        field_manager: "bosun".into(),
        take_over_from: Vec::new(),
        force: false,
        crd_timeout: Duration::from_secs(10),
        readiness_timeout: Some(Duration::from_secs(2)),
        wait_for_load_balancers: false,
        owner_labels: None,
        created_namespace_labels: Default::default(),
    };
    let err = client
        .install(&components, &options, &|_, _| {})
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(&format!("ValidatingWebhookConfiguration {ns}"))
            && err.contains(&format!("no ready endpoint for Service {ns}/checker")),
        "{err}"
    );

    let slice = |ready: bool| -> k8s_openapi::api::discovery::v1::EndpointSlice {
        serde_json::from_value(json!({
            "metadata": {"name": format!("checker-{ready}"),
                "labels": {"kubernetes.io/service-name": "checker"}},
            "addressType": "IPv4",
            "endpoints": [{"addresses": ["10.0.0.7"], "conditions": {"ready": ready}}]}))
        .unwrap()
    };
    let slices: Api<k8s_openapi::api::discovery::v1::EndpointSlice> =
        Api::namespaced(client.kube().clone(), &ns);
    slices
        .create(&PostParams::default(), &slice(false))
        .await
        .unwrap();
    assert!(
        client
            .install(&components, &options, &|_, _| {})
            .await
            .is_err(),
        "an endpoint that is not ready is not enough"
    );
    slices
        .create(&PostParams::default(), &slice(true))
        .await
        .unwrap();
    client
        .install(&components, &options, &|_, _| {})
        .await
        .unwrap();
    let configs: Api<k8s_openapi::api::admissionregistration::v1::ValidatingWebhookConfiguration> =
        Api::all(client.kube().clone());
    configs.delete(&ns, &Default::default()).await.unwrap();
}
