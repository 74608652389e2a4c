//! What bosun reads from the cluster it renders for, against istioctl on the real test control
//! plane (`scripts/testenv`): `manifest generate --cluster-specific` renders as istioctl's does,
//! and `install` warns about Calico and Cilium settings that break Istio in istioctl's words.
//!
//! One test, in a binary of its own: the Cilium ConfigMap and Calico FelixConfiguration it
//! creates are cluster-wide facts every install would see, so nothing else may run meanwhile
//! (cargo runs test binaries one after another); they are removed at the end.

mod common;

use common::{manifests, text};
use std::process::{Command, Output, Stdio};

use cluster::testenv;
use serde_json::{Value, json};

fn run(program: &std::path::Path, args: &[&str]) -> Output {
    Command::new(program)
        .args(args)
        .env("KUBECONFIG", testenv::kubeconfig())
        .stdin(Stdio::null())
        .output()
        .expect("running the tool")
}

/// The `❗ detected …` lines of a run's stderr.
fn detected(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("❗ detected"))
        .map(str::to_string)
        .collect()
}

/// Removes the cluster-wide CNI facts when dropped, so a failing test leaves none behind.
struct CniFacts;

impl CniFacts {
    async fn remove(client: &cluster::Client) {
        let config_maps: kube::Api<k8s_openapi::api::core::v1::ConfigMap> =
            kube::Api::namespaced(client.kube().clone(), "kube-system");
        let _ = config_maps
            .delete("cilium-config", &Default::default())
            .await;
        let crds: kube::Api<
            k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
        > = kube::Api::all(client.kube().clone());
        let name = "felixconfigurations.projectcalico.org";
        let _ = crds.delete(name, &Default::default()).await;
        // Gone, not only terminating: a CRD applied again meanwhile would go with it.
        for _ in 0..300 {
            if matches!(crds.get_opt(name).await, Ok(None)) {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        panic!("CRD {name} is still there 30 s after its deletion");
    }
}

impl Drop for CniFacts {
    fn drop(&mut self) {
        // On a runtime (and with a client) of its own: the test's runtime is the thread this
        // runs on, blocked here, and a kube client drives its requests on the runtime it was
        // made on.
        std::thread::spawn(|| {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime")
                .block_on(async { CniFacts::remove(&testenv::client().await).await });
        })
        .join()
        .ok();
    }
}

#[tokio::test]
async fn cluster_specific_rendering_and_cni_warnings_match_istioctl() {
    let istioctl = common::fetched("BOSUN_ISTIOCTL", "fetch-istioctl");
    let bosun = std::path::PathBuf::from(env!("CARGO_BIN_EXE_bosun"));
    let manifests = manifests();
    let client = testenv::client().await;

    // Rendering for the cluster: its version (v1.36 here, 1.32 without a cluster) becomes the
    // charts' `.Capabilities.KubeVersion`. Istio's charts only look for `-gke` in it, so this
    // checks the flag end to end rather than a version-dependent difference. The offline
    // render for a target (`--kube-version` with the cluster's version, issue 33) must print
    // what istioctl's cluster-specific render prints too.
    let git_version = client.cluster_facts().await.unwrap().version.git_version;
    for profile in ["default", "ambient"] {
        let set = format!("profile={profile}");
        let args = [
            "manifest",
            "generate",
            "--cluster-specific",
            "--set",
            &set,
            "-d",
            &manifests,
        ];
        let theirs = run(&istioctl, &args);
        let ours = run(&bosun, &args);
        assert!(theirs.status.success(), "istioctl: {}", text(&theirs));
        assert!(ours.status.success(), "bosun: {}", text(&ours));
        assert!(
            theirs.stdout == ours.stdout,
            "profile {profile}: outputs differ\n{}",
            manifest_diff(&theirs.stdout, &ours.stdout)
        );
        let offline = run(
            &bosun,
            &[
                "manifest",
                "generate",
                "--kube-version",
                &git_version,
                "--set",
                &set,
                "-d",
                &manifests,
            ],
        );
        assert!(offline.status.success(), "bosun: {}", text(&offline));
        assert!(
            theirs.stdout == offline.stdout,
            "profile {profile}, --kube-version {git_version}: outputs differ\n{}",
            manifest_diff(&theirs.stdout, &offline.stdout)
        );
    }

    // Cilium and Calico configured the ways istioctl warns about.
    let facts = CniFacts;
    CniFacts::remove(&client).await;
    let felix_crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "felixconfigurations.projectcalico.org"},
        "spec": {"group": "projectcalico.org", "scope": "Cluster",
            "names": {"plural": "felixconfigurations", "singular": "felixconfiguration",
                "kind": "FelixConfiguration", "listKind": "FelixConfigurationList"},
            "versions": [{"name": "v3", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object",
                    "x-kubernetes-preserve-unknown-fields": true}}}]}
    });
    client
        .apply(&[felix_crd], "bosun-tests", true)
        .await
        .unwrap();
    client
        .wait_crd_established(
            "felixconfigurations.projectcalico.org",
            std::time::Duration::from_secs(30),
        )
        .await
        .unwrap();
    let objects: Vec<Value> = vec![
        json!({"apiVersion": "projectcalico.org/v3", "kind": "FelixConfiguration",
            "metadata": {"name": "default"},
            "spec": {"bpfConnectTimeLoadBalancing": "TCP", "bpfConnectTimeLoadBalancingEnabled": true}}),
        json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "cilium-config", "namespace": "kube-system"},
            "data": {"cni-exclusive": "true", "enable-bpf-masquerade": "true",
                "bpf-lb-sock": "true", "kube-proxy-replacement": "strict"}}),
    ];
    client.apply(&objects, "bosun-tests", true).await.unwrap();

    for profile in ["default", "ambient"] {
        let set = format!("profile={profile}");
        let args = [
            "install",
            "--dry-run",
            "-y",
            "--set",
            &set,
            "-d",
            &manifests,
        ];
        let theirs = run(&istioctl, &args);
        let ours = run(&bosun, &args);
        assert!(theirs.status.success(), "istioctl: {}", text(&theirs));
        assert!(ours.status.success(), "bosun: {}", text(&ours));
        let want = detected(&theirs);
        // Calico's two in every profile; Cilium's CNI and ztunnel ones only where those run.
        assert!(
            want.len() >= 4,
            "istioctl warned less than expected: {}",
            text(&theirs)
        );
        assert_eq!(detected(&ours), want, "profile {profile}: {}", text(&ours));
    }
    drop(facts);
}

/// The first differing line of two manifests, with a little context.
fn manifest_diff(a: &[u8], b: &[u8]) -> String {
    let (a, b) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
    let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let at = a
        .iter()
        .zip(&b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let from = at.saturating_sub(3);
    format!(
        "line {}:\nistioctl:\n{}\nbosun:\n{}",
        at + 1,
        a[from..(at + 3).min(a.len())].join("\n"),
        b[from..(at + 3).min(b.len())].join("\n")
    )
}
