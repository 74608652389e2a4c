//! `bosun proxy status` and `bosun proxy restart` through the real binary against the test
//! control plane (`scripts/testenv`: an API server, no kubelet or controllers).
//!
//! The test builds what a canary upgrade leaves behind by hand: istiod Deployments of two
//! revisions (only their labels matter: they make a revision installed), a revision tag's
//! webhook configuration pointing at the new one, namespaces asking for the tag, the new or the
//! old revision, and Deployments with a ReplicaSet and pods carrying the injector's annotations
//! and an `istio-proxy` container, as the injector leaves them. Pods are never started (no
//! kubelet), and no controller rolls anything out: the test sets a restarted Deployment's
//! rollout status itself, through the status subresource, once bosun has patched it.
//!
//! Isolation: revisions, tags and namespaces have unique names, and restarts select by the
//! test's own old revision, so no other test's workloads are touched. Namespaces cannot be
//! deleted on this API server; the test deletes what it made in them, and its istiod
//! Deployments and tag, so other tests' `revision list` and precheck never see them.

mod common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use cluster::testenv;
use common::{shared, text};
use k8s_openapi::api::admissionregistration::v1::MutatingWebhookConfiguration;
use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::core::v1::{Namespace, Pod};
use kube::Api;
use kube::api::{DeleteParams, ListParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

#[derive(Clone)]
struct Names {
    cp: String,
    old: String,
    new: String,
    tag: String,
    /// Asks for the tag (→ new): cart (old, stale), front (new, current).
    a: String,
    /// Asks for new: api (old, stale) and a bare pod `debug` (old, stale, no rollout).
    b: String,
    /// Asks for old: keep (old, current).
    c: String,
}

async fn create<K>(api: &Api<K>, value: Value) -> K
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + serde::Serialize + std::fmt::Debug,
{
    let object: K = serde_json::from_value(value).unwrap();
    api.create(&PostParams::default(), &object).await.unwrap()
}

/// An istiod Deployment of `revision` (istioctl's labels), which makes it installed.
async fn istiod(client: &cluster::Client, ns: &str, revision: &str, version: &str) {
    let api: Api<Deployment> = Api::namespaced(client.kube().clone(), ns);
    create(
        &api,
        json!({"metadata": {"name": format!("istiod-{revision}"), "labels": {
            "app": "istiod", "istio.io/rev": revision,
            "operator.istio.io/component": "Pilot", "operator.istio.io/version": version}},
        "spec": {"selector": {"matchLabels": {"app": "istiod"}},
            "template": {"metadata": {"labels": {"app": "istiod"}},
                "spec": {"containers": [{"name": "discovery", "image": "pilot"}]}}}}),
    )
    .await;
}

/// A Deployment `name` with a ReplicaSet and `pods` pods injected by `revision` (proxy image
/// tagged `version`), as the controllers and the injector would leave them.
async fn workload(
    client: &cluster::Client,
    ns: &str,
    name: &str,
    pods: usize,
    revision: &str,
    version: &str,
) {
    let deployments: Api<Deployment> = Api::namespaced(client.kube().clone(), ns);
    let d = create(
        &deployments,
        json!({"metadata": {"name": name},
        "spec": {"replicas": pods, "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "app", "image": "app"}]}}}}),
    )
    .await;
    let owner = |kind: &str, name: &str, uid: &str| {
        json!([{"apiVersion": "apps/v1", "kind": kind, "name": name, "uid": uid,
            "controller": true}])
    };
    let rs_name = format!("{name}-5d8f");
    let replica_sets: Api<ReplicaSet> = Api::namespaced(client.kube().clone(), ns);
    let rs = create(
        &replica_sets,
        json!({"metadata": {"name": rs_name,
            "ownerReferences": owner("Deployment", name, d.metadata.uid.as_deref().unwrap())},
        "spec": {"replicas": pods, "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "app", "image": "app"}]}}}}),
    )
    .await;
    for i in 0..pods {
        pod(
            client,
            ns,
            &format!("{rs_name}-{i}"),
            Some(owner(
                "ReplicaSet",
                &rs_name,
                rs.metadata.uid.as_deref().unwrap(),
            )),
            revision,
            version,
        )
        .await;
    }
}

async fn pod(
    client: &cluster::Client,
    ns: &str,
    name: &str,
    owner: Option<Value>,
    revision: &str,
    version: &str,
) {
    let pods: Api<Pod> = Api::namespaced(client.kube().clone(), ns);
    let status = json!({"revision": revision, "containers": ["istio-proxy"]}).to_string();
    let mut metadata = json!({"name": name, "annotations": {
        "istio.io/rev": revision, "sidecar.istio.io/status": status}});
    if let Some(owner) = owner {
        metadata["ownerReferences"] = owner;
    }
    create(
        &pods,
        json!({"metadata": metadata, "spec": {"containers": [
        {"name": "app", "image": "app"},
        {"name": "istio-proxy", "image": format!("docker.io/istio/proxyv2:{version}")}]}}),
    )
    .await;
}

async fn setup(client: &cluster::Client) -> Names {
    let names = Names {
        cp: testenv::unique_name("px-cp"),
        old: testenv::unique_name("pxold"),
        new: testenv::unique_name("pxnew"),
        tag: testenv::unique_name("pxtag"),
        a: testenv::unique_name("pxa"),
        b: testenv::unique_name("pxb"),
        c: testenv::unique_name("pxc"),
    };
    let namespaces: Api<Namespace> = Api::all(client.kube().clone());
    for (ns, rev) in [
        (&names.cp, None),
        (&names.a, Some(&names.tag)),
        (&names.b, Some(&names.new)),
        (&names.c, Some(&names.old)),
    ] {
        let labels = rev.map(|r| json!({"istio.io/rev": r})).unwrap_or(json!({}));
        create(
            &namespaces,
            json!({"metadata": {"name": ns, "labels": labels}}),
        )
        .await;
    }
    istiod(client, &names.cp, &names.old, "1.30.3").await;
    istiod(client, &names.cp, &names.new, "1.31.0").await;
    // The tag's webhook configuration: `revision list` reads a tag from its labels alone.
    let hooks: Api<MutatingWebhookConfiguration> = Api::all(client.kube().clone());
    create(
        &hooks,
        json!({"metadata": {"name": format!("istio-revision-tag-{}", names.tag),
        "labels": {"istio.io/tag": names.tag, "istio.io/rev": names.new,
            "app": "sidecar-injector"}}}),
    )
    .await;
    workload(client, &names.a, "cart", 2, &names.old, "1.30.3").await;
    workload(client, &names.a, "front", 1, &names.new, "1.31.0").await;
    workload(client, &names.b, "api", 1, &names.old, "1.30.3").await;
    pod(client, &names.b, "debug", None, &names.old, "1.30.3").await;
    workload(client, &names.c, "keep", 1, &names.old, "1.30.3").await;
    names
}

async fn cleanup(client: &cluster::Client, names: &Names) {
    let hooks: Api<MutatingWebhookConfiguration> = Api::all(client.kube().clone());
    let _ = hooks
        .delete(
            &format!("istio-revision-tag-{}", names.tag),
            &DeleteParams::default(),
        )
        .await;
    for ns in [&names.cp, &names.a, &names.b, &names.c] {
        let all = ListParams::default();
        let d: Api<Deployment> = Api::namespaced(client.kube().clone(), ns);
        let _ = d.delete_collection(&DeleteParams::default(), &all).await;
        let r: Api<ReplicaSet> = Api::namespaced(client.kube().clone(), ns);
        let _ = r.delete_collection(&DeleteParams::default(), &all).await;
        let p: Api<Pod> = Api::namespaced(client.kube().clone(), ns);
        // No kubelet confirms a graceful delete: delete at once.
        let _ = p
            .delete_collection(&DeleteParams::default().grace_period(0), &all)
            .await;
        let n: Api<Namespace> = Api::all(client.kube().clone());
        let patch = json!({"metadata": {"labels": {"istio.io/rev": null}}});
        let _ = n
            .patch(ns, &PatchParams::default(), &Patch::Merge(&patch))
            .await;
    }
}

fn restarted_at(d: &Deployment) -> Option<String> {
    d.spec
        .as_ref()?
        .template
        .metadata
        .as_ref()?
        .annotations
        .as_ref()?
        .get("kubectl.kubernetes.io/restartedAt")
        .cloned()
}

/// What the Deployment controller reports once a rollout is done.
async fn roll_out(client: &cluster::Client, ns: &str, name: &str) {
    let api: Api<Deployment> = Api::namespaced(client.kube().clone(), ns);
    let d = api.get(name).await.unwrap();
    let n = d.spec.as_ref().and_then(|s| s.replicas).unwrap_or(1);
    let status = json!({"status": {"observedGeneration": d.metadata.generation,
        "replicas": n, "readyReplicas": n, "updatedReplicas": n, "availableReplicas": n}});
    api.patch_status(name, &PatchParams::default(), &Patch::Merge(&status))
        .await
        .unwrap();
}

async fn restarted(client: &cluster::Client, ns: &str, name: &str) -> Option<String> {
    let api: Api<Deployment> = Api::namespaced(client.kube().clone(), ns);
    restarted_at(&api.get(name).await.unwrap())
}

#[test]
fn status_marks_stale_workloads_and_restart_goes_namespace_by_namespace() {
    let _guard = shared();
    common::run(async {
        let client = testenv::client().await;
        let names = setup(&client).await;
        // The checks run as a task so that a failed assertion still reaches the cleanup.
        let (c, n) = (client.clone(), names.clone());
        let outcome = tokio::spawn(async move { check(&c, &n).await }).await;
        cleanup(&client, &names).await;
        if let Err(e) = outcome {
            std::panic::resume_unwind(e.into_panic());
        }
    });
}

async fn bosun(args: &[&str]) -> std::process::Output {
    common::bosun_async(args).await
}

async fn check(client: &cluster::Client, n: &Names) {
    // Status of one namespace, as JSON: the stale Deployment (through the tag), the current one.
    let out = bosun(&["proxy", "status", "-n", &n.a, "-o", "json"]).await;
    assert!(out.status.success(), "{}", text(&out));
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    let through = format!("namespace istio.io/rev={} (tag {})", n.tag, n.tag);
    assert_eq!(
        rows,
        json!([
            {"namespace": n.a, "kind": "Deployment", "name": "cart",
             "pods": ["cart-5d8f-0", "cart-5d8f-1"], "injected_by": n.old, "version": "1.30.3",
             "wants": n.new, "wants_through": through, "status": "stale",
             "reason": format!("{through} asks for {}", n.new)},
            {"namespace": n.a, "kind": "Deployment", "name": "front", "pods": ["front-5d8f-0"],
             "injected_by": n.new, "version": "1.31.0", "wants": n.new,
             "wants_through": through, "status": "current"},
        ]),
        "{}",
        text(&out)
    );

    // All namespaces as a table, filtered by the old revision: the rows of its pods and of the
    // namespace asking for it, and nothing of other tests.
    let out = bosun(&["proxy", "status", "--revision", &n.old]).await;
    assert!(out.status.success(), "{}", text(&out));
    let table = String::from_utf8_lossy(&out.stdout).to_string();
    let lines: Vec<Vec<&str>> = table
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    let want: Vec<Vec<&str>> = vec![
        vec![
            "NAMESPACE",
            "WORKLOAD",
            "PODS",
            "INJECTED",
            "BY",
            "VERSION",
            "WANTS",
            "STATUS",
        ],
        vec![
            &n.a,
            "Deployment/cart",
            "2",
            &n.old,
            "1.30.3",
            &n.new,
            "stale",
        ],
        vec![
            &n.b,
            "Deployment/api",
            "1",
            &n.old,
            "1.30.3",
            &n.new,
            "stale",
        ],
        vec![&n.b, "Pod/debug", "1", &n.old, "1.30.3", &n.new, "stale"],
        vec![
            &n.c,
            "Deployment/keep",
            "1",
            &n.old,
            "1.30.3",
            &n.old,
            "current",
        ],
    ];
    assert_eq!(lines, want, "{table}");

    // YAML carries the same rows.
    let out = bosun(&["proxy", "status", "-n", &n.c, "-o", "yaml"]).await;
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("status: current"),
        "{}",
        text(&out)
    );

    // The dry run names every Deployment with pods of the old revision, by namespace, warns
    // about the bare pod, and patches nothing.
    let out = bosun(&["proxy", "restart", "--revision", &n.old, "--dry-run"]).await;
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout,
        format!(
            "Would restart 3 workloads injected by revision {old}, namespace by namespace:\n  namespace {a}: Deployment/cart\n  namespace {b}: Deployment/api\n  namespace {c}: Deployment/keep\n",
            old = n.old,
            a = n.a,
            b = n.b,
            c = n.c
        )
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&format!("Pod {}/debug", n.b)),
        "{}",
        text(&out)
    );
    assert_eq!(restarted(client, &n.a, "cart").await, None);

    // Without a terminal and without -y nothing is asked and nothing changes.
    let out = bosun(&["proxy", "restart", "--revision", &n.old]).await;
    assert!(!out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("-y"), "{}", text(&out));
    assert_eq!(restarted(client, &n.a, "cart").await, None);

    // The restart: the first namespace rolls out (the test plays the Deployment controller
    // once bosun patched it); the second never does, so bosun stops there, naming the
    // workload, and leaves the third namespace alone.
    let kubeconfig = testenv::kubeconfig();
    let child = common::bosun_command(
        kubeconfig,
        &[
            "proxy",
            "restart",
            "--revision",
            &n.old,
            "-y",
            "--timeout",
            "6s",
        ],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while restarted(client, &n.a, "cart").await.is_none() {
        assert!(Instant::now() < deadline, "cart never restarted");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Namespace by namespace: the next one waits for this one's rollout.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(restarted(client, &n.b, "api").await, None);
    roll_out(client, &n.a, "cart").await;
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    assert!(!out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    for line in [
        format!("restarted Deployment {}/cart", n.a),
        format!("namespace {}: Deployment/cart rolled out", n.a),
        format!("restarted Deployment {}/api", n.b),
        format!("waiting for Deployment {}/api", n.b),
    ] {
        assert!(stdout.contains(&line), "no {line:?} in\n{}", text(&out));
    }
    for part in [
        format!("proxy restart stopped in namespace {}", n.b),
        format!("Deployment {}/api", n.b),
        format!("not restarted yet: namespaces {}", n.c),
        format!("bosun proxy restart --revision {}", n.old),
    ] {
        assert!(stderr.contains(&part), "no {part:?} in\n{}", text(&out));
    }
    assert!(restarted(client, &n.b, "api").await.is_some());
    assert_eq!(restarted(client, &n.c, "keep").await, None);
    assert_eq!(restarted(client, &n.a, "front").await, None);

    // What the controllers and the injector would have done: cart's and api's pods replaced
    // by pods of the new revision. Run again, only keep is left, and it rolls out.
    let pods: Api<Pod> = Api::namespaced(client.kube().clone(), &n.a);
    for p in ["cart-5d8f-0", "cart-5d8f-1"] {
        pods.delete(p, &DeleteParams::default().grace_period(0))
            .await
            .unwrap();
    }
    let pods: Api<Pod> = Api::namespaced(client.kube().clone(), &n.b);
    for p in ["api-5d8f-0", "debug"] {
        pods.delete(p, &DeleteParams::default().grace_period(0))
            .await
            .unwrap();
    }
    roll_out(client, &n.b, "api").await;
    let before_api = restarted(client, &n.b, "api").await;
    let child = common::bosun_command(
        kubeconfig,
        &[
            "proxy",
            "restart",
            "--revision",
            &n.old,
            "-y",
            "--timeout",
            "30s",
        ],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while restarted(client, &n.c, "keep").await.is_none() {
        assert!(Instant::now() < deadline, "keep never restarted");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    roll_out(client, &n.c, "keep").await;
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&format!(
            "Restarting 1 workload injected by revision {}",
            n.old
        )),
        "{}",
        text(&out)
    );
    assert_eq!(restarted(client, &n.b, "api").await, before_api);

    // Nothing of the old revision is left to restart.
    let out = bosun(&["proxy", "restart", "--revision", &n.old, "-y", "-n", &n.a]).await;
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("No workloads injected by revision"),
        "{}",
        text(&out)
    );
}
