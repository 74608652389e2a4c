//! Prune, uninstall selection and installed state against the real test control plane
//! (`scripts/testenv`), with hand-made objects: each test labels its objects with an owning
//! namespace and revision of its own, so tests running at the same time never select each
//! other's objects.

use std::collections::BTreeMap;
use std::time::Duration;

use cluster::{DeleteOutcome, UninstallScope, testenv};

use serde_json::{Value, json};
use vocab::labels::{COMPONENT_LABEL, INSTALLED_STATE_LABEL, NOT_PRUNED_LABEL};
use vocab::{Installation, RenderedComponent};

fn owner_labels(ns: &str) -> BTreeMap<String, String> {
    [
        ("operator.istio.io/managed", "Reconcile"),
        ("operator.istio.io/version", "1.31"),
        ("install.operator.istio.io/owning-resource-namespace", ns),
        ("istio.io/rev", ns),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

fn labelled(mut obj: Value, labels: &BTreeMap<String, String>, extra: &[(&str, &str)]) -> Value {
    let mut all = labels.clone();
    for (k, v) in extra {
        all.insert(k.to_string(), v.to_string());
    }
    obj["metadata"]["labels"] = json!(all);
    obj
}

fn config_map(ns: &str, name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": ns}, "data": {"k": "v"}})
}

async fn exists(
    client: &cluster::Client,
    api_version: &str,
    kind: &str,
    ns: Option<&str>,
    name: &str,
) -> bool {
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    let gvk = kube::core::GroupVersionKind::gvk(group, version, kind);
    let (ar, _) = kube::discovery::pinned_kind(client.kube(), &gvk)
        .await
        .unwrap();
    let api: kube::Api<kube::api::DynamicObject> = match ns {
        Some(ns) => kube::Api::namespaced_with(client.kube().clone(), ns, &ar),
        None => kube::Api::all_with(client.kube().clone(), &ar),
    };
    api.get_opt(name).await.unwrap().is_some()
}

#[tokio::test]
async fn prune_deletes_only_unrendered_objects_of_this_installation() {
    let client = testenv::client().await;
    let ns = testenv::unique_name("prune");
    let owner = owner_labels(&ns);
    let mut other = owner.clone();
    other.insert("istio.io/rev".into(), format!("{ns}-other"));
    let role_name = format!("{ns}-gateway-reader");
    let objects = [
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}),
        labelled(
            config_map(&ns, "istio"),
            &owner,
            &[(COMPONENT_LABEL, "Pilot")],
        ),
        labelled(
            config_map(&ns, "gone"),
            &owner,
            &[(COMPONENT_LABEL, "Pilot")],
        ),
        labelled(
            config_map(&ns, "gateway"),
            &owner,
            &[(COMPONENT_LABEL, "IngressGateways")],
        ),
        labelled(
            config_map(&ns, "kept"),
            &owner,
            &[
                (COMPONENT_LABEL, "IngressGateways"),
                (NOT_PRUNED_LABEL, "true"),
            ],
        ),
        labelled(
            config_map(&ns, "unknown-component"),
            &owner,
            &[(COMPONENT_LABEL, "Foo")],
        ),
        labelled(
            config_map(&ns, "other-revision"),
            &other,
            &[(COMPONENT_LABEL, "Pilot")],
        ),
        config_map(&ns, "unowned"),
        labelled(
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": role_name}, "rules": []}),
            &owner,
            &[(COMPONENT_LABEL, "IngressGateways")],
        ),
    ];
    client.apply(&objects, "bosun-tests", false).await.unwrap();

    let installation = Installation {
        owner_labels: owner.clone(),
        components: vec![
            RenderedComponent::from_objects("Base", &[]),
            RenderedComponent::from_objects("Pilot", &[config_map(&ns, "istio")]),
            RenderedComponent::from_objects("IngressGateways", &[]),
        ],
    };
    let candidates = client.prune_candidates(&installation).await.unwrap();
    let mut names: Vec<String> = candidates.iter().map(|c| c.object.to_string()).collect();
    names.sort();
    let mut want = vec![
        format!("ClusterRole {role_name}"),
        format!("ConfigMap {ns}/gateway"),
        format!("ConfigMap {ns}/gone"),
    ];
    want.sort();
    assert_eq!(names, want);
    // Listing deleted nothing.
    assert!(exists(&client, "v1", "ConfigMap", Some(&ns), "gone").await);

    let mut seen = Vec::new();
    let pruned = client
        .prune(&installation, &mut |d| seen.push(d.object.to_string()))
        .await
        .unwrap();
    assert_eq!(pruned.len(), 3);
    assert_eq!(seen.len(), 3);
    assert!(pruned.iter().all(|d| d.outcome == DeleteOutcome::Deleted));
    for name in ["gone", "gateway"] {
        assert!(
            !exists(&client, "v1", "ConfigMap", Some(&ns), name).await,
            "{name}"
        );
    }
    assert!(
        !exists(
            &client,
            "rbac.authorization.k8s.io/v1",
            "ClusterRole",
            None,
            &role_name
        )
        .await
    );
    for name in [
        "istio",
        "kept",
        "unknown-component",
        "other-revision",
        "unowned",
    ] {
        assert!(
            exists(&client, "v1", "ConfigMap", Some(&ns), name).await,
            "{name}"
        );
    }
    assert!(
        client
            .prune_candidates(&installation)
            .await
            .unwrap()
            .is_empty()
    );

    // Deleting what is already gone is fine.
    let again = client.delete_owned(&candidates, &mut |_| {}).await.unwrap();
    assert!(
        again
            .iter()
            .all(|d| d.outcome == DeleteOutcome::AlreadyGone)
    );
}

#[tokio::test]
async fn control_plane_uninstall_selects_its_components_and_installed_state() {
    let client = testenv::client().await;
    let ns = testenv::unique_name("uninst");
    let owner = owner_labels(&ns);
    let mut state = labelled(
        config_map(&ns, "installed-state"),
        &owner,
        &[(INSTALLED_STATE_LABEL, "true")],
    );
    state["data"] = json!({"IstioOperator": "kind: IstioOperator\n"});
    let objects = [
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}),
        labelled(
            config_map(&ns, "base"),
            &owner,
            &[(COMPONENT_LABEL, "Base")],
        ),
        labelled(
            config_map(&ns, "pilot"),
            &owner,
            &[(COMPONENT_LABEL, "Pilot")],
        ),
        config_map(&ns, "unowned"),
        state,
    ];
    client.apply(&objects, "bosun-tests", false).await.unwrap();
    let scope = UninstallScope::ControlPlane {
        labels: [("istio.io/rev".to_string(), ns.clone())]
            .into_iter()
            .collect(),
        components: vec!["Pilot".into(), "IngressGateways".into()],
    };
    let candidates = client.uninstall_candidates(&scope).await.unwrap();
    let names: Vec<String> = candidates.iter().map(|c| c.object.to_string()).collect();
    assert_eq!(
        names,
        [
            format!("ConfigMap {ns}/pilot"),
            format!("ConfigMap {ns}/installed-state")
        ]
    );
    assert_eq!(candidates[0].component.as_deref(), Some("Pilot"));
    assert_eq!(candidates[1].component, None);
    client.delete_owned(&candidates, &mut |_| {}).await.unwrap();
    for (name, there) in [
        ("base", true),
        ("unowned", true),
        ("pilot", false),
        ("installed-state", false),
    ] {
        assert_eq!(
            exists(&client, "v1", "ConfigMap", Some(&ns), name).await,
            there,
            "{name}"
        );
    }
}

/// Earlier bosun versions recorded the installed IstioOperator as an IstioOperator custom
/// resource where the server served that kind: uninstall still removes such a record. The
/// IstioOperator CRD is cluster-wide, so this is the only test here that creates it, and it
/// deletes it again.
#[tokio::test]
async fn uninstall_removes_an_earlier_installed_state_custom_resource() {
    let client = testenv::client().await;
    let ns = testenv::unique_name("state");
    client
        .apply(
            &[json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})],
            "bosun-tests",
            false,
        )
        .await
        .unwrap();
    let labels = {
        let mut l = owner_labels(&ns);
        l.insert(INSTALLED_STATE_LABEL.into(), "true".into());
        l
    };
    let meta = json!({"name": "installed-state", "namespace": ns, "labels": labels});
    let cr = json!({"apiVersion": "install.istio.io/v1alpha1", "kind": "IstioOperator", "metadata": meta, "spec": {"profile": "minimal"}});
    let crds: kube::Api<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition> =
        kube::Api::all(client.kube().clone());
    let crd_name = "istiooperators.install.istio.io";

    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": crd_name},
        "spec": {"group": "install.istio.io", "scope": "Namespaced",
            "names": {"kind": "IstioOperator", "plural": "istiooperators", "singular": "istiooperator", "listKind": "IstioOperatorList"},
            "versions": [{"name": "v1alpha1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}
    });
    // Forced: the operator's tests, run earlier against the same server, may have installed
    // the real CRD (field manager `bosun`).
    client.apply(&[crd], "bosun-tests", true).await.unwrap();
    client
        .wait_crd_established(crd_name, Duration::from_secs(30))
        .await
        .unwrap();
    client.apply(&[cr], "bosun-tests", false).await.unwrap();

    let scope = UninstallScope::ControlPlane {
        labels: [("istio.io/rev".to_string(), ns.clone())]
            .into_iter()
            .collect(),
        components: vec!["Pilot".into()],
    };
    let found = client.uninstall_candidates(&scope).await.unwrap();
    let names: Vec<String> = found.iter().map(|c| c.object.to_string()).collect();
    assert!(
        names.contains(&format!("IstioOperator {ns}/installed-state")),
        "{names:?}"
    );
    client.delete_owned(&found, &mut |_| {}).await.unwrap();
    assert!(
        client
            .uninstall_candidates(&scope)
            .await
            .unwrap()
            .is_empty()
    );
    crds.delete(crd_name, &Default::default()).await.unwrap();
}

#[tokio::test]
async fn kinds_the_server_does_not_serve_are_skipped() {
    let client = testenv::client().await;
    // No CNI plugin's CRD on the test API server: purge's NetworkAttachmentDefinitions are
    // not served. Listing (not deleting) every purge kind still works.
    let nad =
        kube::core::GroupVersionKind::gvk("k8s.cni.cncf.io", "v1", "NetworkAttachmentDefinition");
    assert!(
        kube::discovery::pinned_kind(client.kube(), &nad)
            .await
            .is_err()
    );
    let found = client
        .uninstall_candidates(&UninstallScope::Purge)
        .await
        .unwrap();
    assert!(
        found
            .iter()
            .all(|o| o.object.kind != "NetworkAttachmentDefinition")
    );
}

#[tokio::test]
async fn an_object_replaced_after_listing_is_not_deleted() {
    let client = testenv::client().await;
    let ns = testenv::unique_name("replaced");
    let owner = owner_labels(&ns);
    let cm = labelled(
        config_map(&ns, "gone"),
        &owner,
        &[(COMPONENT_LABEL, "Pilot")],
    );
    client
        .apply(
            &[
                json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}),
                cm.clone(),
            ],
            "bosun-tests",
            false,
        )
        .await
        .unwrap();
    let installation = Installation {
        owner_labels: owner,
        components: vec![RenderedComponent::from_objects("Pilot", &[])],
    };
    let candidates = client.prune_candidates(&installation).await.unwrap();
    assert_eq!(candidates.len(), 1);
    // Someone deletes it and creates another of the same name.
    let config_maps: kube::Api<k8s_openapi::api::core::v1::ConfigMap> =
        kube::Api::namespaced(client.kube().clone(), &ns);
    config_maps
        .delete("gone", &Default::default())
        .await
        .unwrap();
    client.apply(&[cm], "bosun-tests", false).await.unwrap();
    let err = client
        .delete_owned(&candidates, &mut |_| {})
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with(&format!("ConfigMap {ns}/gone: deleting it:")),
        "{err}"
    );
    assert!(exists(&client, "v1", "ConfigMap", Some(&ns), "gone").await);
}
