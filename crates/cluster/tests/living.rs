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

/// The node IP of a living cluster, as its node reports it.
async fn node_ip(client: &cluster::Client) -> String {
    let node = Api::<Node>::all(client.kube().clone())
        .get(NODE)
        .await
        .unwrap_or_else(|e| panic!("reading node {NODE}: {e}"));
    node.status
        .and_then(|s| s.addresses)
        .into_iter()
        .flatten()
        .find(|a| a.type_ == "InternalIP")
        .map(|a| a.address)
        .unwrap_or_else(|| panic!("node {NODE} reports no InternalIP"))
}

/// A busybox pod that runs `script` once (`restartPolicy: Never`).
fn busybox_pod(ns: &str, name: &str, image: &str, script: &str) -> serde_json::Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "labels": {"app": name}},
        "spec": {
            "restartPolicy": "Never",
            "terminationGracePeriodSeconds": 0,
            "containers": [{
                "name": "busybox", "image": image, "imagePullPolicy": "Never",
                "command": ["/bin/sh", "-c", script],
            }],
        },
    })
}

/// Waits until pod `name` is in one of `phases` and returns it; a pod that ends in another
/// phase fails the test with its log.
async fn pod_in_phase(pods: &Api<Pod>, name: &str, phases: &[&str]) -> Pod {
    let (timeout, every) = (Duration::from_secs(120), Duration::from_millis(500));
    let pod = testkit::wait_until(
        &format!("pod {name} in phase {phases:?}"),
        timeout,
        every,
        || async {
            let pod = pods.get(name).await.ok()?;
            let phase = pod.status.as_ref()?.phase.clone()?;
            (phases.contains(&phase.as_str()) || phase == "Failed" || phase == "Succeeded")
                .then_some(pod)
        },
    )
    .await
    .unwrap();
    let phase = pod.status.as_ref().and_then(|s| s.phase.clone()).unwrap();
    if !phases.contains(&phase.as_str()) {
        let log = pods
            .logs(name, &Default::default())
            .await
            .unwrap_or_default();
        panic!("pod {name} ended {phase}, not {phases:?}; its log:\n{log}");
    }
    pod
}

fn pod_ip(pod: &Pod) -> String {
    pod.status
        .as_ref()
        .and_then(|s| s.pod_ip.clone())
        .expect("a running pod has an IP")
}

/// Two living clusters are routed to each other as clusters on one network: a pod of the
/// first opens a TCP connection to the second's API server at its node IP, and a pod of the
/// second connects to a pod of the first by its pod IP, which sees the client's own pod IP
/// (no NAT on the way). Each cluster has a pod range of its own, so the return path is
/// unambiguous.
#[tokio::test]
async fn two_living_clusters_reach_each_other_without_nat() {
    let east = testenv::living();
    let east_client = testenv::living_client().await;
    let west_kubeconfig = testenv::second_living_kubeconfig();
    let west_client = testenv::second_living_client().await;

    // The second kubeconfig is the second cluster's, under its own names, and points at its
    // node IP: the address other clusters use too.
    let config = kube::config::Kubeconfig::read_from(west_kubeconfig).unwrap();
    let west_context = config.current_context.clone().unwrap_or_default();
    assert_eq!(west_context, testenv::SECOND_LIVING_NAME);
    let context = config
        .contexts
        .iter()
        .find(|c| c.name == west_context)
        .and_then(|c| c.context.clone())
        .unwrap();
    assert_eq!(context.cluster, testenv::SECOND_LIVING_NAME);
    assert_eq!(context.user.as_deref(), Some(testenv::SECOND_LIVING_NAME));
    let server = config
        .clusters
        .iter()
        .find(|c| c.name == context.cluster)
        .and_then(|c| c.cluster.as_ref()?.server.clone())
        .unwrap();
    let east_node = node_ip(&east_client).await;
    let west_node = node_ip(&west_client).await;
    assert_ne!(east_node, west_node, "two clusters with one node IP");
    assert_eq!(server, format!("https://{west_node}:6443"));

    let ns = testenv::unique_name("routed");
    let namespace = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}});
    let east_pods = Api::<Pod>::namespaced(east_client.kube().clone(), &ns);
    let west_pods = Api::<Pod>::namespaced(west_client.kube().clone(), &ns);

    // A pod of the first cluster reaches the second's API server (TCP to its node IP:6443;
    // retried while the pod's network may still be settling).
    let reach_api = format!(
        "for i in $(seq 1 20); do nc -w 3 {west_node} 6443 </dev/null && \
         echo reached {west_node}:6443 && exit 0; sleep 1; done; exit 1"
    );
    east_client
        .apply(
            &[
                namespace.clone(),
                busybox_pod(&ns, "reach-api", &east.busybox_image, &reach_api),
            ],
            "bosun-tests",
            false,
        )
        .await
        .unwrap();
    pod_in_phase(&east_pods, "reach-api", &["Succeeded"]).await;

    // A server in the first cluster that writes each connection's peer, as its kernel sees
    // it, to its log; a client in the second connects to its pod IP.
    let serve = "while true; do nc -l -p 8080 -e /bin/sh -c \
                 'netstat -tn | grep \":8080 \" >&2; cat >&2'; done";
    east_client
        .apply(
            &[busybox_pod(&ns, "server", &east.busybox_image, serve)],
            "bosun-tests",
            false,
        )
        .await
        .unwrap();
    let server_ip = pod_ip(&pod_in_phase(&east_pods, "server", &["Running"]).await);
    let connect = format!(
        "for i in $(seq 1 20); do echo hello-from-west | nc -w 3 {server_ip} 8080 && exit 0; \
         sleep 1; done; exit 1"
    );
    west_client
        .apply(
            &[
                namespace.clone(),
                busybox_pod(&ns, "client", &east.busybox_image, &connect),
            ],
            "bosun-tests",
            false,
        )
        .await
        .unwrap();
    let client_ip = pod_ip(&pod_in_phase(&west_pods, "client", &["Succeeded"]).await);
    let prefix = |ip: &str| ip.rsplit_once('.').map(|(p, _)| p.to_string()).unwrap();
    assert_ne!(
        prefix(&client_ip),
        prefix(&server_ip),
        "the two clusters' pods share a /24: {client_ip} and {server_ip}"
    );

    let log = testkit::wait_until(
        "the server's log naming the message",
        Duration::from_secs(30),
        Duration::from_millis(500),
        || async {
            let log = east_pods.logs("server", &Default::default()).await.ok()?;
            log.contains("hello-from-west").then_some(log)
        },
    )
    .await
    .unwrap();
    // netstat's line for the connection: local SERVER:8080, foreign CLIENT:port (as
    // IPv4-mapped addresses on busybox's IPv6 socket).
    assert!(
        log.lines()
            .any(|l| l.contains(&format!("{server_ip}:8080"))
                && l.contains(&format!("{client_ip}:"))),
        "the server saw no connection from the client's pod IP {client_ip} (a NAT would show \
         {west_node} or another address); its log:\n{log}"
    );

    for client in [&east_client, &west_client] {
        Api::<Namespace>::all(client.kube().clone())
            .delete(&ns, &DeleteParams::background())
            .await
            .unwrap();
    }
}
