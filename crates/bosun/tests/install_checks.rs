//! What `bosun install` checks and shows before it writes, on the real test control plane
//! (`scripts/testenv`): sidecar-injector webhook overlaps with other revisions.
//!
//! Every live webhook a test creates selects only namespaces labelled with a revision unique to
//! that test: it can overlap the install it is meant for and no other. The tests run one at a
//! time ([`one_at_a_time`]): every install labels the cluster-scoped CRDs it shares with the
//! others with its own namespace, so a plan or verify-install that expects "unchanged" would see
//! another test's install in between.

mod common;

use common::{bosun, manifests, text};

use cluster::testenv;
use k8s_openapi::api::admissionregistration::v1::MutatingWebhookConfiguration;
use k8s_openapi::api::core::v1::Namespace;
use kube::Api;
use serde_json::{Value, json};

/// Held by each test for its whole run (tokio's lock: it is held across awaits, and a test
/// that fails does not poison it for the others).
async fn one_at_a_time() -> tokio::sync::MutexGuard<'static, ()> {
    static LOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    LOCK.lock().await
}

/// A live sidecar injector of revision `rev` whose one webhook has these selectors.
fn live_injector(
    name: &str,
    rev: &str,
    namespace_selector: Value,
    object_selector: Value,
) -> Value {
    json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingWebhookConfiguration",
        "metadata": {"name": name, "labels": {"app": "sidecar-injector", "istio.io/rev": rev}},
        "webhooks": [{
            "name": "rev.namespace.sidecar-injector.istio.io",
            "admissionReviewVersions": ["v1"],
            "sideEffects": "None",
            "failurePolicy": "Fail",
            "clientConfig": {"url": "https://127.0.0.1:1/inject"},
            "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}],
            "namespaceSelector": namespace_selector,
            "objectSelector": object_selector,
        }]
    })
}

async fn delete_mwc(name: &str) {
    let client = testenv::client().await;
    let api: Api<MutatingWebhookConfiguration> = Api::all(client.kube().clone());
    let _ = api.delete(name, &Default::default()).await;
}

async fn namespace_exists(ns: &str) -> bool {
    let client = testenv::client().await;
    let namespaces: Api<Namespace> = Api::all(client.kube().clone());
    namespaces.get_opt(ns).await.unwrap().is_some()
}

#[tokio::test]
async fn overlapping_injector_of_another_revision_refuses_the_install_until_forced() {
    let _serial = one_at_a_time().await;
    let ns = testenv::unique_name("istio-ovl");
    let rev = testenv::unique_name("r");
    let other = format!("{rev}-old");
    let live_name = format!("istio-sidecar-injector-{other}");
    // Another revision's injector that (wrongly) also serves namespaces labelled with our
    // revision: both would inject pods there.
    let client = testenv::client().await;
    client
        .apply(
            &[live_injector(
                &live_name,
                &other,
                json!({"matchExpressions": [
                    {"key": "istio.io/rev", "operator": "In", "values": [rev]},
                    {"key": "istio-injection", "operator": "DoesNotExist"}]}),
                json!({}),
            )],
            "bosun-tests",
            false,
        )
        .await
        .unwrap();

    let manifests = manifests();
    let set_ns = format!("values.global.istioNamespace={ns}");
    let mut args = vec![
        "install",
        "--set",
        "profile=minimal",
        "--set",
        &set_ns,
        "-r",
        &rev,
        "-y",
        "--no-wait",
        "--manifests",
        &manifests,
    ];
    let out = bosun(&args);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let refused = !out.status.success()
        && stderr.contains(&format!(
            "MutatingWebhookConfiguration istio-sidecar-injector-{rev}-{ns} webhook rev.namespace.sidecar-injector.istio.io (revision {rev}) (to install)"
        ))
        && stderr.contains(&format!(
            "MutatingWebhookConfiguration {live_name} webhook rev.namespace.sidecar-injector.istio.io (revision {other}) (in the cluster)"
        ))
        && stderr.contains(&format!(
            "with labels {{istio.io/rev={rev}, kubernetes.io/metadata.name=example}}"
        ))
        && stderr.contains("pass --force");
    // The refused install held the install lock for its checks and gave it back: its Lease
    // is gone with it.
    let leases: Api<k8s_openapi::api::coordination::v1::Lease> =
        Api::namespaced(client.kube().clone(), "kube-system");
    let lease_left = leases
        .get_opt(&cluster::install_lock_name(&ns))
        .await
        .unwrap()
        .is_some();
    let untouched = !namespace_exists(&ns).await;

    args.push("--force");
    let forced = bosun(&args);
    delete_mwc(&live_name).await;
    delete_mwc(&format!("istio-sidecar-injector-{rev}-{ns}")).await;
    assert!(refused, "{}", text(&out));
    assert!(untouched, "the refused install created {ns}");
    assert!(!lease_left, "the refused install left its lock's Lease");
    assert!(forced.status.success(), "{}", text(&forced));
    assert!(
        String::from_utf8_lossy(&forced.stderr).contains("continuing because of --force"),
        "{}",
        text(&forced)
    );
}

#[tokio::test]
async fn injector_of_another_revision_with_disjoint_selectors_lets_the_install_proceed() {
    let _serial = one_at_a_time().await;
    let ns = testenv::unique_name("istio-disj");
    let rev = testenv::unique_name("r");
    let canary = format!("{rev}-canary");
    let live_name = format!("istio-sidecar-injector-{canary}");
    // The canary revision's own namespace webhook, as Istio's chart renders it.
    let client = testenv::client().await;
    client
        .apply(
            &[live_injector(
                &live_name,
                &canary,
                json!({"matchExpressions": [
                    {"key": "istio.io/rev", "operator": "In", "values": [canary]},
                    {"key": "istio-injection", "operator": "DoesNotExist"}]}),
                json!({"matchExpressions": [
                    {"key": "sidecar.istio.io/inject", "operator": "NotIn", "values": ["false"]}]}),
            )],
            "bosun-tests",
            false,
        )
        .await
        .unwrap();
    let manifests = manifests();
    let set_ns = format!("values.global.istioNamespace={ns}");
    let out = bosun(&[
        "install",
        "--set",
        "profile=minimal",
        "--set",
        &set_ns,
        "-r",
        &rev,
        "-y",
        "--no-wait",
        "--manifests",
        &manifests,
    ]);
    delete_mwc(&live_name).await;
    delete_mwc(&format!("istio-sidecar-injector-{rev}-{ns}")).await;
    // With no default tag in the cluster, the install made itself the default: that tag's
    // injector would overlap the default installs of the other tests here.
    delete_mwc(&format!("istio-revision-tag-default-{ns}")).await;
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("webhook"),
        "{}",
        text(&out)
    );
    assert!(namespace_exists(&ns).await);
}

#[tokio::test]
async fn dry_run_into_a_new_namespace_changes_nothing_and_says_why_objects_were_not_dry_run() {
    let _serial = one_at_a_time().await;
    let ns = testenv::unique_name("istio-dry");
    let manifests = manifests();
    let set_ns = format!("values.global.istioNamespace={ns}");
    let out = bosun(&[
        "install",
        "--dry-run",
        "--set",
        "profile=minimal",
        "--set",
        &set_ns,
        "--manifests",
        &manifests,
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    for line in [
        format!("Namespace {ns} created (server dry run: objects go to it and nothing renders it)"),
        format!(
            "Deployment {ns}/istiod created (not dry-run: namespace {ns} does not exist yet, so the server cannot dry-run objects in it)"
        ),
        format!(
            "MutatingWebhookConfiguration istio-sidecar-injector-{ns} created (server dry run)"
        ),
        format!("ClusterRole istiod-clusterrole-{ns} created (server dry run)"),
    ] {
        assert!(
            stdout.lines().any(|l| l == line),
            "no line {line:?}\n{}",
            text(&out)
        );
    }
    assert!(
        stdout.contains("Dry run complete, nothing was changed"),
        "{}",
        text(&out)
    );

    assert!(!namespace_exists(&ns).await, "the dry run created {ns}");
    let client = testenv::client().await;
    let mwcs: Api<MutatingWebhookConfiguration> = Api::all(client.kube().clone());
    let name = format!("istio-sidecar-injector-{ns}");
    assert!(
        mwcs.get_opt(&name).await.unwrap().is_none(),
        "the dry run created {name}"
    );
    let roles: Api<k8s_openapi::api::rbac::v1::ClusterRole> = Api::all(client.kube().clone());
    let name = format!("istiod-clusterrole-{ns}");
    assert!(
        roles.get_opt(&name).await.unwrap().is_none(),
        "the dry run created {name}"
    );
}

#[tokio::test]
async fn plan_after_an_install_shows_field_changes_against_the_live_objects() {
    let _serial = one_at_a_time().await;
    let ns = testenv::unique_name("istio-plan");
    let manifests = manifests();
    let set_ns = format!("values.global.istioNamespace={ns}");
    let base = [
        "--set",
        "profile=minimal",
        "--set",
        &set_ns,
        "--manifests",
        &manifests,
    ];
    let install = bosun(&[&["install", "-y", "--no-wait"], &base[..]].concat());
    assert!(install.status.success(), "{}", text(&install));
    let client = testenv::client().await;
    let deployments: Api<k8s_openapi::api::apps::v1::Deployment> =
        Api::namespaced(client.kube().clone(), &ns);
    let before = deployments.get("istiod").await.unwrap();

    // Unchanged inputs: nothing to do.
    let same = bosun(&[&["install", "--dry-run"], &base[..]].concat());
    assert!(same.status.success(), "{}", text(&same));
    let stdout = String::from_utf8_lossy(&same.stdout);
    assert!(
        stdout.contains(&format!(
            "Deployment {ns}/istiod unchanged (server dry run)"
        )) && stdout.contains("(0 would be created, 0 configured,"),
        "{}",
        text(&same)
    );

    let more = [&base[..], &["--set", "components.pilot.k8s.replicaCount=2"]].concat();
    let plan = bosun(&[&["plan"], &more[..]].concat());
    assert!(plan.status.success(), "{}", text(&plan));
    let stdout = String::from_utf8_lossy(&plan.stdout);
    assert!(
        stdout.contains(&format!(
            "~ Deployment {ns}/istiod\n    spec.replicas: 1 → 2\n"
        )),
        "{}",
        text(&plan)
    );
    assert!(stdout.contains("0 to create,"), "{}", text(&plan));
    assert!(
        !stdout.contains(&format!("~ Service {ns}/istiod")),
        "{}",
        text(&plan)
    );

    let json_out = bosun(&[&["install", "--plan", "-o", "json"], &more[..]].concat());
    assert!(json_out.status.success(), "{}", text(&json_out));
    let doc: Value = serde_json::from_slice(&json_out.stdout).expect("plan JSON");
    let istiod = doc["objects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["kind"] == "Deployment" && o["name"] == "istiod")
        .unwrap_or_else(|| panic!("{}", text(&json_out)));
    assert_eq!(istiod["action"], "update");
    assert!(
        istiod["changes"]
            .as_array()
            .unwrap()
            .contains(&json!({"path": "spec.replicas", "old": 1, "new": 2})),
        "{istiod}"
    );

    let after = deployments.get("istiod").await.unwrap();
    assert_eq!(
        after.metadata.resource_version,
        before.metadata.resource_version
    );
    assert_eq!(after.spec.unwrap().replicas, Some(1));
}

#[tokio::test]
async fn verify_install_reports_missing_changed_and_unready_objects() {
    let _serial = one_at_a_time().await;
    let ns = testenv::unique_name("istio-ver");
    let manifests = manifests();
    let set_ns = format!("values.global.istioNamespace={ns}");
    let inputs = [
        "--set",
        "profile=minimal",
        "--set",
        &set_ns,
        "--manifests",
        &manifests,
    ];
    let install = bosun(&[&["install", "-y", "--no-wait"], &inputs[..]].concat());
    assert!(install.status.success(), "{}", text(&install));
    let verify = || bosun(&[&["verify-install"], &inputs[..]].concat());

    // Freshly installed, but nothing runs istiod.
    let out = verify();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(
        stdout.contains(&format!(
            "✘ Deployment: istiod.{ns}: not ready: 0/1 replicas ready"
        )) && stdout.contains(&format!("✔ ConfigMap: istio.{ns} checked successfully"))
            && stdout.contains("Checked 15 custom resource definitions"),
        "{}",
        text(&out)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("0 missing, 0 differing, 1 not ready"),
        "{}",
        text(&out)
    );

    // istiod ready: verified.
    let client = testenv::client().await;
    let deployments: Api<k8s_openapi::api::apps::v1::Deployment> =
        Api::namespaced(client.kube().clone(), &ns);
    let live = deployments.get("istiod").await.unwrap();
    let status = json!({"status": {
        "observedGeneration": live.metadata.generation.unwrap(),
        "replicas": 1, "readyReplicas": 1, "updatedReplicas": 1, "availableReplicas": 1,
    }});
    deployments
        .patch_status(
            "istiod",
            &kube::api::PatchParams::default(),
            &kube::api::Patch::Merge(&status),
        )
        .await
        .unwrap();
    let out = verify();
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("✔ Istio is installed and verified successfully"),
        "{}",
        text(&out)
    );

    // One object deleted, one rendered field changed by someone else.
    let accounts: Api<k8s_openapi::api::core::v1::ServiceAccount> =
        Api::namespaced(client.kube().clone(), &ns);
    accounts
        .delete("istiod", &Default::default())
        .await
        .unwrap();
    let config_maps: Api<k8s_openapi::api::core::v1::ConfigMap> =
        Api::namespaced(client.kube().clone(), &ns);
    config_maps
        .patch(
            "values",
            &kube::api::PatchParams {
                field_manager: Some("someone-else".into()),
                ..Default::default()
            },
            &kube::api::Patch::Merge(json!({"data": {"original-values": "{}"}})),
        )
        .await
        .unwrap();
    let out = verify();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(
        stdout.contains(&format!("✘ ServiceAccount: istiod.{ns}: not found\n"))
            && stdout.contains(&format!(
                "✘ ConfigMap: values.{ns}: differs from the rendered object (live → rendered):\n    data.original-values: (text)\n      @@ line 1\n      - {{}}\n"
            ))
            && stdout.contains(&format!("✔ Deployment: istiod.{ns} checked successfully")),
        "{}",
        text(&out)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("1 missing, 1 differing, 0 not ready"),
        "{}",
        text(&out)
    );
    let out = bosun(&[&["verify-install", "-o", "json"], &inputs[..]].concat());
    assert!(!out.status.success(), "{}", text(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("verify JSON");
    assert_eq!(doc["ok"], false);
    let entry = |kind: &str, name: &str| {
        doc["objects"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["kind"] == kind && o["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no {kind} {name} in {doc}"))
    };
    assert_eq!(entry("ServiceAccount", "istiod")["status"], "missing");
    assert_eq!(entry("ConfigMap", "values")["status"], "differs");
    assert_eq!(entry("Deployment", "istiod")["ready"], true);
}

#[tokio::test]
async fn dry_run_and_plan_show_conflicts_with_other_field_managers() {
    let _serial = one_at_a_time().await;
    let ns = testenv::unique_name("istio-dcon");
    let client = testenv::client().await;
    client
        .apply(
            &[
                json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}),
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "istio", "namespace": ns}, "data": {"mesh": "theirs"}}),
            ],
            "someone-else",
            false,
        )
        .await
        .unwrap();
    let manifests = manifests();
    let set_ns = format!("values.global.istioNamespace={ns}");
    let inputs = [
        "--set",
        "profile=minimal",
        "--set",
        &set_ns,
        "--manifests",
        &manifests,
    ];

    let dry = bosun(&[&["install", "--dry-run"], &inputs[..]].concat());
    assert!(!dry.status.success(), "{}", text(&dry));
    assert!(
        String::from_utf8_lossy(&dry.stdout).contains(&format!(
            "ConfigMap {ns}/istio conflicting (server dry run: fields owned by someone-else;"
        )) && String::from_utf8_lossy(&dry.stderr).contains("the install would fail: 1 object(s)"),
        "{}",
        text(&dry)
    );

    let plan = bosun(&[&["install", "--plan"], &inputs[..]].concat());
    assert!(plan.status.success(), "{}", text(&plan));
    let stdout = String::from_utf8_lossy(&plan.stdout);
    assert!(
        stdout.contains(&format!(
            "! ConfigMap {ns}/istio (conflict: fields owned by someone-else;"
        )) && stdout.contains(", 1 in conflict."),
        "{}",
        text(&plan)
    );

    let forced = bosun(&[&["install", "--dry-run", "--force"], &inputs[..]].concat());
    assert!(forced.status.success(), "{}", text(&forced));
    assert!(
        String::from_utf8_lossy(&forced.stdout).contains(&format!(
            "ConfigMap {ns}/istio configured (server dry run)\n"
        )),
        "{}",
        text(&forced)
    );
    let config_maps: Api<k8s_openapi::api::core::v1::ConfigMap> =
        Api::namespaced(client.kube().clone(), &ns);
    assert_eq!(
        config_maps.get("istio").await.unwrap().data.unwrap()["mesh"],
        "theirs"
    );
}
