//! The living cluster (`scripts/testenv up --living`): a real node that runs pods from images
//! built on this machine. These tests check the cluster itself, through this crate's client.

use std::time::Duration;

use cluster::testenv;
use k8s_openapi::api::core::v1::{Namespace, Node, Pod};
use kube::Api;
use kube::api::{DeleteParams, ListParams};
use serde_json::json;

const NODE: &str = "living-node";

async fn node() -> Node {
    let client = testenv::living_client().await;
    Api::<Node>::all(client.kube().clone())
        .get(NODE)
        .await
        .unwrap_or_else(|e| panic!("reading node {NODE}: {e}"))
}

#[tokio::test]
async fn node_is_ready_and_holds_the_local_images() {
    let living = testenv::living();
    let node = node().await;
    let status = node.status.expect("the node has a status");
    let ready = status
        .conditions
        .iter()
        .flatten()
        .find(|c| c.type_ == "Ready")
        .map(|c| c.status.as_str());
    assert_eq!(ready, Some("True"), "node {NODE} is not Ready");
    let info = status.node_info.expect("the node reports its versions");
    assert!(
        info.kubelet_version.starts_with("v1."),
        "kubelet version {:?}",
        info.kubelet_version
    );
    assert!(info.container_runtime_version.starts_with("containerd://"));
    // The images `up --living` imported, under the names a render points at.
    let names: Vec<&str> = status
        .images
        .iter()
        .flatten()
        .flat_map(|i| i.names.iter().flatten())
        .map(String::as_str)
        .collect();
    for image in [
        format!("{}/pilot:{}", living.hub, living.tag),
        format!("{}/install-cni:{}", living.hub, living.tag),
        living.pause_image.clone(),
    ] {
        assert!(
            names.contains(&image.as_str()),
            "{image} is not on the node: {names:?}"
        );
    }
}

/// A Deployment is turned into a ReplicaSet and a Pod by the controller manager, scheduled,
/// run by the kubelet through containerd, and reported ready; its namespace is then really
/// deleted (the namespace controller finalizes it).
#[tokio::test]
async fn deployment_of_the_local_pause_image_becomes_ready() {
    let living = testenv::living();
    let client = testenv::living_client().await;
    let ns = testenv::unique_name("living");
    let objects = [
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}),
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "pause", "namespace": ns},
            "spec": {
                "replicas": 2,
                "selector": {"matchLabels": {"app": "pause"}},
                "template": {
                    "metadata": {"labels": {"app": "pause"}},
                    "spec": {"containers": [{
                        "name": "pause",
                        "image": living.pause_image,
                        "imagePullPolicy": "Never",
                    }]},
                },
            },
        }),
    ];
    let report = client.apply(&objects, "bosun-tests", false).await.unwrap();
    let applied: Vec<_> = report.objects.iter().map(|a| a.object.clone()).collect();
    client
        .wait_ready("the test Deployment", &applied, Duration::from_secs(120))
        .await
        .unwrap();

    let pods = Api::<Pod>::namespaced(client.kube().clone(), &ns)
        .list(&ListParams::default().labels("app=pause"))
        .await
        .unwrap();
    assert_eq!(pods.items.len(), 2, "{pods:?}");
    for pod in &pods.items {
        let status = pod.status.as_ref().expect("a pod status");
        assert_eq!(status.phase.as_deref(), Some("Running"));
        let ip = status.pod_ip.as_deref().unwrap_or("");
        assert!(ip.starts_with("10.244."), "pod IP {ip:?}");
        assert_eq!(
            pod.spec.as_ref().and_then(|s| s.node_name.as_deref()),
            Some(NODE)
        );
    }

    let namespaces = Api::<Namespace>::all(client.kube().clone());
    namespaces
        .delete(&ns, &DeleteParams::background())
        .await
        .unwrap();
    let gone = || async {
        namespaces
            .get_opt(&ns)
            .await
            .unwrap()
            .is_none()
            .then_some(())
    };
    let (timeout, every) = (Duration::from_secs(120), Duration::from_millis(500));
    testkit::wait_until(&format!("namespace {ns} deleted"), timeout, every, gone)
        .await
        .unwrap();
}
