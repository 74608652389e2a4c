//! Server-side apply against the real test control plane (`scripts/testenv`).

use std::time::Duration;

use cluster::{Error, Outcome, testenv};
use serde_json::{Value, json};

/// A namespace as bosun applies one: with a label, so the apply owns a field (see
/// `bare_namespace_is_written_once_more_by_the_server`).
fn namespace(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": {"app.kubernetes.io/part-of": "bosun-tests"}}})
}

fn config_map(ns: &str, name: &str, data: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": ns}, "data": data})
}

#[tokio::test]
async fn namespace_and_config_map_created_then_unchanged_then_configured() {
    let client = testenv::client().await;
    let ns = testenv::unique_name("apply");
    let objects = [
        namespace(&ns),
        config_map(&ns, "settings", json!({"a": "1"})),
    ];

    let first = client.apply(&objects, "bosun", false).await.unwrap();
    let outcomes: Vec<_> = first.objects.iter().map(|a| a.outcome).collect();
    assert_eq!(outcomes, [Outcome::Created, Outcome::Created]);
    assert_eq!(
        first.objects[0].object.to_string(),
        format!("Namespace {ns}")
    );
    assert_eq!(
        first.objects[1].object.to_string(),
        format!("ConfigMap {ns}/settings")
    );

    let again = client.apply(&objects, "bosun", false).await.unwrap();
    assert_eq!(again.count(Outcome::Unchanged), 2, "{again:?}");
    assert!(!again.changed());
    assert_eq!(
        again.objects[1].resource_version,
        first.objects[1].resource_version
    );

    let changed = [config_map(&ns, "settings", json!({"a": "2"}))];
    let third = client.apply(&changed, "bosun", false).await.unwrap();
    assert_eq!(third.objects[0].outcome, Outcome::Configured);
}

/// An apply that owns no field (a Namespace with only a name) leaves no managedFields entry; the
/// next apply makes the server record the fields it defaulted (label, finalizer) under
/// `before-first-apply`, so it really writes once more, and only then is the object stable.
/// `Configured` is the truth there, not a bug in comparing resource versions.
#[tokio::test]
async fn bare_namespace_is_written_once_more_by_the_server() {
    let client = testenv::client().await;
    let bare = [
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": testenv::unique_name("bare")}}),
    ];
    let mut outcomes = Vec::new();
    for _ in 0..3 {
        outcomes.push(client.apply(&bare, "bosun", false).await.unwrap().objects[0].outcome);
    }
    assert_eq!(
        outcomes,
        [Outcome::Created, Outcome::Configured, Outcome::Unchanged]
    );
}

#[tokio::test]
async fn crd_established_then_its_kind_is_served() {
    let client = testenv::client().await;
    let group = format!("{}.bosun.test", testenv::unique_name("g"));
    let crd_name = format!("widgets.{group}");
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": crd_name},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {"size": {"type": "integer"}}}
                }}}
            }]
        }
    });
    let report = client.apply(&[crd], "bosun", false).await.unwrap();
    assert_eq!(report.objects[0].outcome, Outcome::Created);
    assert_eq!(report.objects[0].object.namespace, None);

    client
        .wait_crd_established(&crd_name, Duration::from_secs(30))
        .await
        .unwrap();

    let ns = testenv::unique_name("crd");
    let widget = json!({
        "apiVersion": format!("{group}/v1"), "kind": "Widget",
        "metadata": {"name": "w", "namespace": ns}, "spec": {"size": 3}
    });
    let report = client
        .apply(&[namespace(&ns), widget.clone()], "bosun", false)
        .await
        .unwrap();
    assert_eq!(report.objects[1].outcome, Outcome::Created);
    assert_eq!(
        report.objects[1].object.to_string(),
        format!("Widget {ns}/w")
    );
    let again = client.apply(&[widget], "bosun", false).await.unwrap();
    assert_eq!(again.objects[0].outcome, Outcome::Unchanged);
}

#[tokio::test]
async fn waiting_for_a_missing_crd_times_out_and_says_why() {
    let client = testenv::client().await;
    let err = client
        .wait_crd_established("nothings.missing.bosun.test", Duration::from_millis(300))
        .await
        .unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::Timeout { .. }), "{err:?}");
    assert!(
        msg.starts_with(
            "CustomResourceDefinition nothings.missing.bosun.test: not Established after"
        ),
        "{msg}"
    );
    assert!(msg.ends_with("(it does not exist)"), "{msg}");
}

#[tokio::test]
async fn conflict_with_another_field_manager_is_reported_then_taken_over_with_force() {
    let client = testenv::client().await;
    let ns = testenv::unique_name("conflict");
    client
        .apply(
            &[
                namespace(&ns),
                config_map(&ns, "shared", json!({"key": "theirs"})),
            ],
            "someone-else",
            false,
        )
        .await
        .unwrap();

    let ours = [config_map(&ns, "shared", json!({"key": "ours"}))];
    let err = client.apply(&ours, "bosun", false).await.unwrap_err();
    match &err {
        Error::Conflict { object, conflicts } => {
            assert_eq!(object.to_string(), format!("ConfigMap {ns}/shared"));
            assert_eq!(conflicts.len(), 1, "{conflicts:?}");
            assert_eq!(conflicts[0].manager, "someone-else");
            assert_eq!(conflicts[0].field, ".data.key");
        }
        other => panic!("expected a conflict, got {other:?}"),
    }
    assert_eq!(err.conflicting_managers(), ["someone-else"]);
    assert!(
        err.to_string()
            .contains("field manager \"someone-else\" on .data.key"),
        "{err}"
    );

    let report = client.apply(&ours, "bosun", true).await.unwrap();
    assert_eq!(report.objects[0].outcome, Outcome::Configured);
    let api: kube::Api<k8s_openapi::api::core::v1::ConfigMap> =
        kube::Api::namespaced(client.kube().clone(), &ns);
    let live = api.get("shared").await.unwrap();
    assert_eq!(live.data.unwrap()["key"], "ours");
}

#[tokio::test]
async fn unknown_kind_is_reported() {
    let client = testenv::client().await;
    let obj = json!({"apiVersion": "nope.bosun.test/v1", "kind": "Nothing", "metadata": {"name": "x", "namespace": "default"}});
    let err = client.apply(&[obj], "bosun", false).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "Nothing default/x: the API server serves no kind Nothing in nope.bosun.test/v1"
    );
}

fn widget_crd(group: &str, plural: &str, kind: &str) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.{group}")},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"plural": plural, "kind": kind},
            "versions": [{"name": "v1", "served": true, "storage": true,
                          "schema": {"openAPIV3Schema": {"type": "object"}}}]
        }
    })
}

#[tokio::test]
async fn several_crds_are_waited_for_with_one_watch_and_a_missing_one_is_named() {
    let client = testenv::client().await;
    let group = format!("{}.bosun.test", testenv::unique_name("w"));
    let crds = [
        widget_crd(&group, "gadgets", "Gadget"),
        widget_crd(&group, "gizmos", "Gizmo"),
    ];
    let report = client.apply(&crds, "bosun", false).await.unwrap();
    let names: Vec<String> = report
        .objects
        .iter()
        .map(|a| a.object.name.clone())
        .collect();
    let earliest = report
        .objects
        .iter()
        .map(|a| a.resource_version.parse::<u64>().unwrap())
        .min()
        .unwrap();
    let since = (earliest - 1).to_string();
    client
        .wait_crds_established(&names, Some(&since), Duration::from_secs(30))
        .await
        .unwrap();
    let gadget = json!({"apiVersion": format!("{group}/v1"), "kind": "Gadget",
                        "metadata": {"name": "g", "namespace": "default"}});
    client.apply(&[gadget], "bosun", false).await.unwrap();

    let mut with_missing = names.clone();
    with_missing.push(format!("missing.{group}"));
    let err = client
        .wait_crds_established(&with_missing, Some(&since), Duration::from_millis(500))
        .await
        .unwrap_err();
    assert!(
        err.to_string().starts_with(&format!(
            "CustomResourceDefinition missing.{group}: not Established"
        )),
        "{err}"
    );
}

/// An install reads its objects once, under its lock, for its checks and its applies: another
/// writer in between (istiod patching its webhook's CA bundle and failure policy) must neither
/// make the apply count the object `configured` nor make it fight istiod over the fields
/// istiod took after the read (the apply reads their owners again on the conflict and leaves
/// them to istiod).
#[tokio::test]
async fn a_write_by_another_manager_after_the_read_is_neither_counted_nor_fought() {
    use kube::api::{Api, DynamicObject, Patch, PatchParams};
    let client = testenv::client().await;
    let name = testenv::unique_name("readonce");
    let webhook = json!({
        "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": name, "labels": {"app.kubernetes.io/part-of": "bosun-tests"}},
        "webhooks": [{"name": "v.example.com", "admissionReviewVersions": ["v1"],
                      "sideEffects": "None", "failurePolicy": "Ignore", "rules": [],
                      "clientConfig": {"url": "https://example.invalid/validate", "caBundle": ""}}],
    });
    let first = client
        .apply(std::slice::from_ref(&webhook), "bosun", false)
        .await
        .unwrap();
    assert_eq!(first.objects[0].outcome, Outcome::Created);

    // istiod's writes, by another client: this client's list of the kind does not see them.
    let ar = kube::core::ApiResource::from_gvk(&kube::core::GroupVersionKind::gvk(
        "admissionregistration.k8s.io",
        "v1",
        "ValidatingWebhookConfiguration",
    ));
    let other = testenv::client().await;
    let api: Api<DynamicObject> = Api::all_with(other.kube().clone(), &ar);
    let istiod = PatchParams {
        field_manager: Some("pilot-discovery".into()),
        ..Default::default()
    };
    let written = json!({"webhooks": [{"name": "v.example.com", "failurePolicy": "Fail",
                                       "clientConfig": {"caBundle": "Y2E="}}]});
    api.patch(&name, &istiod, &Patch::Strategic(&written))
        .await
        .unwrap();

    let again = client
        .apply(std::slice::from_ref(&webhook), "bosun", false)
        .await
        .unwrap();
    assert_eq!(again.objects[0].outcome, Outcome::Unchanged, "{again:?}");
    let live = serde_json::to_value(api.get(&name).await.unwrap()).unwrap();
    assert_eq!(live["webhooks"][0]["failurePolicy"], "Fail", "{live}");
    assert_eq!(
        live["webhooks"][0]["clientConfig"]["caBundle"], "Y2E=",
        "{live}"
    );

    // A change of bosun's own is still one, whoever wrote before it.
    let mut changed = webhook.clone();
    changed["webhooks"][0]["timeoutSeconds"] = json!(7);
    let third = client.apply(&[changed], "bosun", false).await.unwrap();
    assert_eq!(third.objects[0].outcome, Outcome::Configured, "{third:?}");
    api.delete(&name, &Default::default()).await.unwrap();
}
