//! `Client::plan` and `Client::verify` against the real test control plane (`scripts/testenv`):
//! the cases an install of Istio's charts does not reach (custom resources of a CRD not
//! installed yet, conflicts with another field manager, a kind nobody serves).

use cluster::{Action, Presence, testenv};
use serde_json::{Value, json};

fn config_map(ns: &str, name: &str, data: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": ns}, "data": data})
}

/// A CRD in a group unique to this test, and one object of its kind in `ns`.
fn crd_and_object(group: &str, ns: &str) -> (Value, Value) {
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("widgets.{group}")},
        "spec": {"group": group, "scope": "Namespaced",
                 "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                 "versions": [{"name": "v1", "served": true, "storage": true,
                               "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}
    });
    let widget = json!({"apiVersion": format!("{group}/v1"), "kind": "Widget",
                        "metadata": {"name": "w", "namespace": ns}, "spec": {"size": 1}});
    (crd, widget)
}

#[tokio::test]
async fn plan_covers_new_namespaces_new_kinds_updates_and_conflicts() {
    let client = testenv::client().await;
    let ns = testenv::unique_name("plan");
    let group = format!("{}.bosun.test", testenv::unique_name("g"));
    let (crd, widget) = crd_and_object(&group, &ns);
    let objects = [
        crd.clone(),
        widget.clone(),
        config_map(&ns, "mine", json!({"a": "1"})),
    ];

    // Nothing exists: the namespace and everything in it, and the widget, are to be created
    // without the server being able to dry-run them; the CRD is dry-run.
    let plan = client.plan(&objects, "bosun", false).await.unwrap();
    let summary: Vec<(String, Action, bool)> = plan
        .objects
        .iter()
        .map(|o| (o.object.to_string(), o.action, o.dry_run))
        .collect();
    assert_eq!(
        summary,
        [
            (format!("Namespace {ns}"), Action::Create, true),
            (
                format!("CustomResourceDefinition widgets.{group}"),
                Action::Create,
                true
            ),
            (format!("Widget {ns}/w"), Action::Create, false),
            (format!("ConfigMap {ns}/mine"), Action::Create, false),
        ]
    );
    assert!(
        plan.objects[2]
            .note
            .as_deref()
            .unwrap()
            .contains("CustomResourceDefinition is not installed yet"),
        "{plan:?}"
    );
    assert!(
        plan.objects[3]
            .note
            .as_deref()
            .unwrap()
            .contains(&format!("namespace {ns} does not exist yet")),
        "{plan:?}"
    );
    // The plan wrote nothing.
    let again = client.plan(&objects, "bosun", false).await.unwrap();
    assert_eq!(again, plan);

    // Applied, then changed by someone else: the plan shows the update and the conflict.
    client
        .apply(
            &[json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})],
            "bosun",
            false,
        )
        .await
        .unwrap();
    client.apply(&objects[..1], "bosun", false).await.unwrap();
    client
        .wait_crd_established(
            &format!("widgets.{group}"),
            std::time::Duration::from_secs(30),
        )
        .await
        .unwrap();
    client.apply(&objects, "bosun", false).await.unwrap();
    client
        .apply(
            &[config_map(&ns, "mine", json!({"a": "theirs"}))],
            "someone-else",
            true,
        )
        .await
        .unwrap();
    let mut bigger = widget.clone();
    bigger["spec"]["size"] = json!(2);
    let changed = [
        crd.clone(),
        bigger,
        config_map(&ns, "mine", json!({"a": "1"})),
    ];
    let plan = client.plan(&changed, "bosun", false).await.unwrap();
    let actions: Vec<Action> = plan.objects.iter().map(|o| o.action).collect();
    assert_eq!(
        actions,
        [Action::Unchanged, Action::Update, Action::Conflict],
        "{plan:?}"
    );
    assert_eq!(
        plan.objects[1].changes,
        [manifest::diff::Change::Changed {
            path: "spec.size".into(),
            old: json!(1),
            new: json!(2)
        }]
    );
    assert!(
        plan.objects[2]
            .note
            .as_deref()
            .unwrap()
            .contains("\"someone-else\""),
        "{plan:?}"
    );
    let forced = client.plan(&changed, "bosun", true).await.unwrap();
    assert_eq!(forced.objects[2].action, Action::Update);
    assert_eq!(
        forced.objects[2].changes,
        [manifest::diff::Change::Changed {
            path: "data.a".into(),
            old: json!("theirs"),
            new: json!("1")
        }]
    );

    // verify agrees: the widget and the config map differ, nothing is missing but a kind
    // nobody serves.
    let mut unknown = config_map(&ns, "x", json!({}));
    unknown["apiVersion"] = json!(format!("{group}/v9"));
    let report = client
        .verify(&[changed.to_vec(), vec![unknown]].concat(), "bosun")
        .await
        .unwrap();
    let presences: Vec<&Presence> = report.objects.iter().map(|o| &o.presence).collect();
    assert!(matches!(presences[0], Presence::Matches), "{report:?}");
    assert!(matches!(presences[1], Presence::Differs(_)), "{report:?}");
    assert!(matches!(presences[2], Presence::Differs(_)), "{report:?}");
    assert!(matches!(presences[3], Presence::Missing(_)), "{report:?}");
    assert!(!report.ok());

    // Deletes: dry-run on the server; the object stays.
    let config_map_ref = |name: &str| vocab::ObjectRef {
        api_version: "v1".into(),
        kind: "ConfigMap".into(),
        namespace: Some(ns.clone()),
        name: name.into(),
    };
    let deletes = client
        .plan_deletes(&[config_map_ref("mine"), config_map_ref("gone")])
        .await
        .unwrap();
    let actions: Vec<Action> = deletes.iter().map(|o| o.action).collect();
    assert_eq!(actions, [Action::Delete, Action::Unchanged], "{deletes:?}");
    assert!(deletes[1].note.as_deref().unwrap().contains("not found"));
    let still = client.plan(&changed[2..], "bosun", true).await.unwrap();
    assert_eq!(still.objects[0].action, Action::Update, "{still:?}");
}
