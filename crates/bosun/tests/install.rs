//! `bosun install` against the real test control plane (`scripts/testenv`): the minimal profile
//! installed, installed again with nothing changed, an invalid input that touches nothing, and
//! readiness waits (no kubelet or controllers run there, so the tests set the status of the
//! istiod Deployment themselves through its status subresource, as envtest users do).

mod common;

use common::{manifests, text, totals};
use std::process::{Command, Output, Stdio};

use cluster::testenv;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Api;

/// Every install labels the cluster-wide objects (the CRDs) with its own owner labels (its
/// namespace), so the test that checks a re-install changes nothing holds this exclusively and
/// every other installing test holds it shared.
static CLUSTER_WIDE: tokio::sync::RwLock<()> = tokio::sync::RwLock::const_new(());

/// Runs `bosun install ARGS` against the test control plane, stdin closed.
fn bosun_install(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bosun"))
        .arg("install")
        .args(args)
        .env("KUBECONFIG", testenv::kubeconfig())
        .stdin(Stdio::null())
        .output()
        .expect("running bosun")
}

/// Starts `bosun install ARGS` against the test control plane without waiting for it.
fn spawn_bosun_install(args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_bosun"))
        .arg("install")
        .args(args)
        .env("KUBECONFIG", testenv::kubeconfig())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting bosun")
}

fn applied_by_bosun(
    managed: &Option<Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry>>,
) -> bool {
    managed
        .iter()
        .flatten()
        .any(|m| m.manager.as_deref() == Some("bosun") && m.operation.as_deref() == Some("Apply"))
}

/// A minimal install into a namespace of its own (created by the install, labelled with
/// `values.global.network` as istioctl's installer creates it), then the same install again:
/// nothing created or configured.
#[tokio::test]
async fn minimal_profile_installs_then_reinstall_changes_nothing() {
    let _exclusive = CLUSTER_WIDE.write().await;
    let ns = testenv::unique_name("istio-inst");
    let manifests = manifests();
    let set_ns = format!("values.global.istioNamespace={ns}");
    let args = [
        "--set",
        "profile=minimal",
        "--set",
        &set_ns,
        "--set",
        "values.global.network=net1",
        "-y",
        "--no-wait",
        "--manifests",
        &manifests,
    ];
    let first = bosun_install(&args);
    assert!(first.status.success(), "{}", text(&first));
    let stdout = String::from_utf8_lossy(&first.stdout);
    let core = stdout
        .find("✔ Istio core installed")
        .unwrap_or_else(|| panic!("{}", text(&first)));
    let istiod = stdout
        .find("✔ Istiod installed")
        .unwrap_or_else(|| panic!("{}", text(&first)));
    assert!(core < istiod, "{}", text(&first));
    let (created, _, _) = totals(&first);
    assert!(created > 0, "{}", text(&first));

    let client = testenv::client().await;
    let namespaces: Api<Namespace> = Api::all(client.kube().clone());
    // Created labelled with the network, as istioctl's installer creates it.
    let created_ns = namespaces
        .get_opt(&ns)
        .await
        .unwrap()
        .expect("the Istio namespace");
    let labels = created_ns.metadata.labels.unwrap_or_default();
    assert_eq!(
        labels.get("topology.istio.io/network").map(String::as_str),
        Some("net1"),
        "{labels:?}"
    );
    let deployments: Api<Deployment> = Api::namespaced(client.kube().clone(), &ns);
    let istiod_deployment = deployments.get("istiod").await.unwrap();
    assert!(applied_by_bosun(&istiod_deployment.metadata.managed_fields));
    let crds: Api<CustomResourceDefinition> = Api::all(client.kube().clone());
    for name in [
        "virtualservices.networking.istio.io",
        "peerauthentications.security.istio.io",
        "telemetries.telemetry.istio.io",
    ] {
        let crd = crds.get(name).await.unwrap();
        assert!(applied_by_bosun(&crd.metadata.managed_fields), "{name}");
    }

    let again = bosun_install(&args);
    assert!(again.status.success(), "{}", text(&again));
    let (created, configured, unchanged) = totals(&again);
    assert_eq!((created, configured), (0, 0), "{}", text(&again));
    assert!(unchanged > 0, "{}", text(&again));
    assert_eq!(
        deployments
            .get("istiod")
            .await
            .unwrap()
            .metadata
            .resource_version,
        istiod_deployment.metadata.resource_version
    );
}

/// The install failed, said `needle` on stderr, and never created its namespace.
async fn assert_refused_untouched(out: &std::process::Output, needle: &str, ns: &str) {
    assert!(!out.status.success(), "{}", text(out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(needle),
        "{}",
        text(out)
    );
    let client = testenv::client().await;
    let namespaces: Api<Namespace> = Api::all(client.kube().clone());
    assert!(namespaces.get_opt(ns).await.unwrap().is_none());
}

#[tokio::test]
async fn invalid_input_changes_nothing() {
    let ns = testenv::unique_name("istio-bad");
    let manifests = manifests();
    let set_ns = format!("values.global.istioNamespace={ns}");
    let out = bosun_install(&[
        "--set",
        "profile=minimal",
        "--set",
        &set_ns,
        "--set",
        "values.global.bogus=1",
        "-y",
        "--manifests",
        &manifests,
    ]);
    assert_refused_untouched(&out, "bogus", &ns).await;
}

#[tokio::test]
async fn without_a_terminal_and_without_y_it_refuses() {
    let ns = testenv::unique_name("istio-ask");
    let manifests = manifests();
    let set_ns = format!("values.global.istioNamespace={ns}");
    let out = bosun_install(&[
        "--set",
        "profile=minimal",
        "--set",
        &set_ns,
        "--manifests",
        &manifests,
    ]);
    assert_refused_untouched(&out, "pass -y", &ns).await;
}

#[tokio::test]
async fn conflict_with_another_field_manager_is_reported_then_taken_over_with_force() {
    let _shared = CLUSTER_WIDE.read().await;
    let ns = testenv::unique_name("istio-conf");
    let client = testenv::client().await;
    client
        .apply(
            &[
                serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns, "labels": {"app.kubernetes.io/part-of": "bosun-tests"}}}),
                serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "istio", "namespace": ns}, "data": {"mesh": "theirs"}}),
            ],
            "someone-else",
            false,
        )
        .await
        .unwrap();
    let manifests = manifests();
    let set_ns = format!("values.global.istioNamespace={ns}");
    let mut args = vec![
        "--set",
        "profile=minimal",
        "--set",
        &set_ns,
        "-y",
        "--no-wait",
        "--manifests",
        &manifests,
    ];
    let out = bosun_install(&args);
    assert!(!out.status.success(), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("ConfigMap {ns}/istio"))
            && stderr.contains("field manager \"someone-else\" on .data.mesh"),
        "{}",
        text(&out)
    );

    args.push("--force");
    let out = bosun_install(&args);
    assert!(out.status.success(), "{}", text(&out));
    let config_maps: Api<k8s_openapi::api::core::v1::ConfigMap> =
        Api::namespaced(client.kube().clone(), &ns);
    let live = config_maps.get("istio").await.unwrap();
    assert_ne!(live.data.unwrap()["mesh"], "theirs");
}

#[tokio::test]
async fn install_waits_until_istiod_is_ready() {
    let _shared = CLUSTER_WIDE.read().await;
    let ns = testenv::unique_name("istio-wait");
    let manifests = manifests();
    let set_ns = format!("values.global.istioNamespace={ns}");
    let mut child = spawn_bosun_install(&[
        "--set",
        "profile=minimal",
        "--set",
        &set_ns,
        "-y",
        "--readiness-timeout",
        "60s",
        "--manifests",
        &manifests,
    ]);

    // Wait until istiod's Deployment is applied; bosun must then be waiting for it.
    let client = testenv::client().await;
    let deployments: Api<Deployment> = Api::namespaced(client.kube().clone(), &ns);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let live = loop {
        if let Some(d) = deployments.get_opt("istiod").await.unwrap() {
            break d;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "{}",
            text(&child.wait_with_output().unwrap())
        );
        assert!(std::time::Instant::now() < deadline, "istiod never applied");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert!(
        child.try_wait().unwrap().is_none(),
        "bosun finished before istiod was ready\n{}",
        text(&child.wait_with_output().unwrap())
    );

    let generation = live.metadata.generation.unwrap();
    let replicas = live.spec.as_ref().and_then(|s| s.replicas).unwrap_or(1);
    let status = serde_json::json!({"status": {
        "observedGeneration": generation,
        "replicas": replicas,
        "readyReplicas": replicas,
        "updatedReplicas": replicas,
        "availableReplicas": replicas,
    }});
    deployments
        .patch_status(
            "istiod",
            &kube::api::PatchParams::default(),
            &kube::api::Patch::Merge(&status),
        )
        .await
        .unwrap();
    // What the EndpointSlice controller would publish for a ready istiod pod: the webhooks
    // istiod serves wait for it.
    let slice = serde_json::json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
        "metadata": {"name": "istiod-ready", "namespace": ns,
            "labels": {"kubernetes.io/service-name": "istiod"}},
        "addressType": "IPv4",
        "endpoints": [{"addresses": ["10.0.0.9"], "conditions": {"ready": true}}]});
    client
        .apply(&[slice], "endpointslice-controller", false)
        .await
        .unwrap();

    let out = tokio::time::timeout(
        std::time::Duration::from_secs(60),
        tokio::task::spawn_blocking(move || child.wait_with_output().unwrap()),
    )
    .await
    .expect("bosun still running after istiod became ready")
    .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("✔ Istiod installed"),
        "{}",
        text(&out)
    );
}

#[tokio::test]
async fn readiness_timeout_names_what_is_not_ready_and_why() {
    let _shared = CLUSTER_WIDE.read().await;
    let ns = testenv::unique_name("istio-late");
    let manifests = manifests();
    let set_ns = format!("values.global.istioNamespace={ns}");
    let child = spawn_bosun_install(&[
        "--set",
        "profile=minimal",
        "--set",
        &set_ns,
        "-y",
        "--readiness-timeout",
        "4s",
        "--manifests",
        &manifests,
    ]);

    // What a scheduler would leave behind: a pending pod of istiod that fits no node, and the
    // warning about it.
    let client = testenv::client().await;
    let deployments: Api<Deployment> = Api::namespaced(client.kube().clone(), &ns);
    let istiod = loop {
        if let Some(d) = deployments.get_opt("istiod").await.unwrap() {
            break d;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    let labels = istiod.spec.unwrap().selector.match_labels.unwrap();
    let pod = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "istiod-5d4f9c-x7k2p", "namespace": ns, "labels": labels},
        "spec": {"containers": [{"name": "discovery", "image": "istio/pilot"}]}});
    let status = serde_json::json!({"status": {"phase": "Pending", "conditions": [{
        "type": "PodScheduled", "status": "False", "reason": "Unschedulable",
        "message": "0/1 nodes are available: 1 Insufficient cpu."}]}});
    let event = serde_json::json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "istiod-5d4f9c-x7k2p.1", "namespace": ns},
        "type": "Warning", "reason": "FailedScheduling",
        "message": "0/1 nodes are available: 1 Insufficient cpu.",
        "lastTimestamp": "2026-12-01T10:00:00Z",
        "involvedObject": {"kind": "Pod", "name": "istiod-5d4f9c-x7k2p", "namespace": ns}});
    client
        .apply(&[pod, event], "scheduler", false)
        .await
        .unwrap();
    let pods: Api<k8s_openapi::api::core::v1::Pod> = Api::namespaced(client.kube().clone(), &ns);
    pods.patch_status(
        "istiod-5d4f9c-x7k2p",
        &kube::api::PatchParams::default(),
        &kube::api::Patch::Merge(&status),
    )
    .await
    .unwrap();

    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    assert!(!out.status.success(), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        // istiod, and the two webhook configurations it serves (no endpoint without it).
        stderr.contains("Istiod: 3 objects not ready after")
            && stderr.contains(&format!(
                "no ready endpoint for Service {ns}/istiod, which its webhooks call"
            ))
            && stderr.contains(&format!(
                "Deployment {ns}/istiod: 0/1 replicas ready (observedGeneration 0 < generation 1"
            ))
            && stderr.contains(
                "pod istiod-5d4f9c-x7k2p: PodScheduled=False: Unschedulable: 0/1 nodes are available: 1 Insufficient cpu."
            )
            && stderr.contains(
                "last warning: FailedScheduling on Pod istiod-5d4f9c-x7k2p: 0/1 nodes are available"
            ),
        "{}",
        text(&out)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("✔ Istio core installed"), "{}", text(&out));
    assert!(!stdout.contains("✔ Istiod installed"), "{}", text(&out));
}

/// Two installs into one Istio namespace at once: the second waits for the first's install
/// lock (a Lease in kube-system), says whose, and runs once the first is done, so the cluster
/// ends as the second installed it, not a mix; no Lease is left behind. (Before the lock, both
/// reported success with one's Deployment and the other's mesh ConfigMap.)
#[tokio::test]
async fn a_second_install_waits_for_the_first() {
    let _shared = CLUSTER_WIDE.read().await;
    let ns = testenv::unique_name("istio-lock");
    let manifests = manifests();
    let set_ns = format!("values.global.istioNamespace={ns}");
    let install = |who: &str, wait: &[&str]| {
        let env = format!("values.pilot.env.INSTALLED_BY={who}");
        let log = format!("meshConfig.accessLogFile=/dev/{who}");
        let mut args = vec![
            "--set",
            "profile=minimal",
            "--set",
            &set_ns,
            "--set",
            &env,
            "--set",
            &log,
            "-y",
            "--manifests",
            &manifests,
        ];
        args.extend_from_slice(wait);
        spawn_bosun_install(&args)
    };
    // The first waits for an istiod that never becomes ready here, holding the lock until its
    // readiness timeout: long enough for the second to render and ask for the lock meanwhile
    // (a debug build's render took more than 8 s with the machine's two cores loaded).
    let first = install("first", &["--readiness-timeout", "15s"]);
    let client = testenv::client().await;
    let deployments: Api<Deployment> = Api::namespaced(client.kube().clone(), &ns);
    testkit::wait_until(
        "the first install's istiod",
        std::time::Duration::from_secs(60),
        std::time::Duration::from_millis(100),
        || async { deployments.get_opt("istiod").await.unwrap() },
    )
    .await
    .unwrap();
    let first_pid = first.id();
    let second = install("second", &["--no-wait"]);
    let first = first.wait_with_output().unwrap();
    assert!(!first.status.success(), "{}", text(&first));
    assert!(
        String::from_utf8_lossy(&first.stderr).contains("not ready"),
        "{}",
        text(&first)
    );
    let second = second.wait_with_output().unwrap();
    assert!(second.status.success(), "{}", text(&second));
    let stderr = String::from_utf8_lossy(&second.stderr);
    let lease = cluster::install_lock_name(&ns);
    assert!(
        stderr.contains(&format!(
            "⏳ waiting for the install lock: Lease kube-system/{lease} is held by \"bosun install on "
        )) && stderr.contains(&format!("(pid {first_pid})\"")),
        "{}",
        text(&second)
    );

    let istiod = deployments.get("istiod").await.unwrap();
    let env = istiod.spec.unwrap().template.spec.unwrap().containers[0]
        .env
        .clone()
        .unwrap_or_default();
    let installed_by = env.iter().find(|e| e.name == "INSTALLED_BY");
    assert_eq!(
        installed_by.and_then(|e| e.value.as_deref()),
        Some("second")
    );
    let configmaps: Api<k8s_openapi::api::core::v1::ConfigMap> =
        Api::namespaced(client.kube().clone(), &ns);
    let mesh = configmaps.get("istio").await.unwrap().data.unwrap()["mesh"].clone();
    assert!(mesh.contains("accessLogFile: /dev/second"), "{mesh}");
    let leases: Api<k8s_openapi::api::coordination::v1::Lease> =
        Api::namespaced(client.kube().clone(), "kube-system");
    assert!(leases.get_opt(&lease).await.unwrap().is_none());
}

/// The install lock is taken before the checks and held while the confirmation prompt waits,
/// renewed meanwhile (the renewal runs inside the runtime while the question is asked from
/// tokio's blocking pool); a "no" releases it, deleting the Lease, and writes nothing else.
/// The prompt needs a terminal: `script` gives the install one and passes the answer on.
#[tokio::test]
async fn the_lock_is_held_and_renewed_while_the_prompt_waits_and_a_no_releases_it() {
    use std::io::Write;
    use std::time::{Duration, Instant};
    let _shared = CLUSTER_WIDE.read().await;
    let ns = testenv::unique_name("istio-ask");
    let manifests = manifests();
    let command = format!(
        "{} install --set profile=minimal --set values.global.istioNamespace={ns} --no-wait --manifests {manifests}",
        env!("CARGO_BIN_EXE_bosun")
    );
    let mut child = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env("KUBECONFIG", testenv::kubeconfig())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting script (util-linux) to give bosun a terminal");
    let client = testenv::client().await;
    let leases: Api<k8s_openapi::api::coordination::v1::Lease> =
        Api::namespaced(client.kube().clone(), "kube-system");
    let name = cluster::install_lock_name(&ns);
    let held = testkit::wait_until(
        "the install's lock",
        Duration::from_secs(60),
        Duration::from_millis(100),
        || async { leases.get_opt(&name).await.unwrap() },
    )
    .await
    .unwrap();
    let spec = held.spec.clone().unwrap();
    assert!(
        spec.holder_identity
            .as_deref()
            .unwrap_or("")
            .starts_with("bosun install on "),
        "{spec:?}"
    );
    // Past one renewal (every 4 s) while the question waits: the Lease is renewed.
    let acquired = spec.acquire_time.unwrap().0;
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let now = leases.get(&name).await.unwrap().spec.unwrap();
        if now.renew_time.as_ref().is_some_and(|t| t.0 > acquired) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the Lease was not renewed: {now:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    child.stdin.as_mut().unwrap().write_all(b"n\n").unwrap();
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("Proceed? (y/N)") && said.contains("cancelled"),
        "{said}"
    );
    assert!(
        leases.get_opt(&name).await.unwrap().is_none(),
        "the Lease stayed"
    );
    let namespaces: Api<Namespace> = Api::all(client.kube().clone());
    assert!(
        namespaces.get_opt(&ns).await.unwrap().is_none(),
        "the cancelled install created {ns}"
    );
}
