//! `Client::install` against the real test control plane: components ordered by their
//! dependencies, independent ones installed even when another fails.

use std::sync::Mutex;
use std::time::Duration;

use cluster::{Component, Error, InstallEvent, InstallOptions, testenv};
use serde_json::{Value, json};

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
        force: false,
        crd_timeout: Duration::from_secs(10),
        readiness_timeout: Some(Duration::from_secs(5)),
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
