//! What `bosun install` checks and shows before it writes, on the real test control plane
//! (`scripts/testenv`): sidecar-injector webhook overlaps with other revisions.
//!
//! Tests here run in parallel with each other and share cluster-scoped webhook
//! configurations, so every live webhook a test creates selects only namespaces labelled with
//! a revision unique to that test: it can overlap the install it is meant for and no other.

mod common;

use std::process::{Command, Output, Stdio};

use cluster::testenv;
use k8s_openapi::api::admissionregistration::v1::MutatingWebhookConfiguration;
use k8s_openapi::api::core::v1::Namespace;
use kube::Api;
use serde_json::{Value, json};

fn manifests() -> String {
    common::fetched("BOSUN_ISTIO", "fetch-istio")
        .join("manifests")
        .display()
        .to_string()
}

/// Runs `bosun ARGS` against the test control plane, stdin closed.
fn bosun(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bosun"))
        .args(args)
        .env("KUBECONFIG", testenv::kubeconfig())
        .stdin(Stdio::null())
        .output()
        .expect("running bosun")
}

fn text(out: &Output) -> String {
    format!(
        "status {}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
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
    let untouched = !namespace_exists(&ns).await;

    args.push("--force");
    let forced = bosun(&args);
    delete_mwc(&live_name).await;
    delete_mwc(&format!("istio-sidecar-injector-{rev}-{ns}")).await;
    assert!(refused, "{}", text(&out));
    assert!(untouched, "the refused install created {ns}");
    assert!(forced.status.success(), "{}", text(&forced));
    assert!(
        String::from_utf8_lossy(&forced.stderr).contains("continuing because of --force"),
        "{}",
        text(&forced)
    );
}

#[tokio::test]
async fn injector_of_another_revision_with_disjoint_selectors_lets_the_install_proceed() {
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
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("webhook"),
        "{}",
        text(&out)
    );
    assert!(namespace_exists(&ns).await);
}
