//! `bosun upgrade --canary` on the living cluster (`testenv::living_kubeconfig()`), the whole
//! procedure through the binary: the older Istio snapshot (`scripts/fetch-istio --previous`)
//! installed as revision `old` with the default tag and a tag `prod`, two namespaces of
//! workloads on `prod`; `upgrade --canary --version <the pin>` killed once the first namespace
//! rolled out, refused while in progress, resumed with `--continue`; then a second canary
//! killed after the tag move and undone with `--abort`.
//!
//! What "injected by revision R" means here: the pod's `istio.io/rev` annotation and its
//! `istio-proxy` container, written by the real istiod's injector when the Deployment
//! controller creates the pod. Istio's proxy image cannot be built here, so the workloads ask
//! the injector (through its documented pod annotations) for the pause image as the proxy
//! (`sidecar.istio.io/proxyImage`), no traffic interception (`interceptionMode: NONE`: no init
//! container), a plain sidecar container (`nativeSidecar: "false"`) and no status port (no
//! probes): the injected pods then run and turn Ready, so the rollouts the procedure waits for
//! really finish. The test waits for what bosun waits for (each rollout) and then reads the
//! pods the controller made.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use cluster::testenv;
use common::{succeeded, text};
use k8s_openapi::api::admissionregistration::v1::MutatingWebhookConfiguration;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Pod, Service};
use kube::Api;
use kube::api::{DeleteParams, ListParams, PostParams};
use serde_json::{Value, json};

const ISTIO_NS: &str = "istio-system";
const RECORD: &str = "bosun-canary-upgrade";

fn previous_manifests() -> String {
    let out = Command::new(common::repo_root().join("scripts/fetch-istio"))
        .arg("--previous")
        .output()
        .expect("running scripts/fetch-istio --previous");
    succeeded(&out);
    Path::new(common::stdout(&out).trim())
        .join("manifests")
        .display()
        .to_string()
}

/// The pinned module version (`ISTIO_VERSION` of scripts/istio-pin): what `--version` takes.
fn pinned_version() -> String {
    let pin = std::fs::read_to_string(common::repo_root().join("scripts/istio-pin")).unwrap();
    pin.lines()
        .find_map(|l| l.strip_prefix("ISTIO_VERSION="))
        .expect("ISTIO_VERSION in scripts/istio-pin")
        .trim()
        .to_string()
}

/// bosun's cache holding the pin (where scripts/fetch-istio put it), so `--version` of the
/// pin is read from it, with no network.
fn cache_dir() -> PathBuf {
    common::manifests_dir()
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .to_path_buf()
}

fn command(args: &[String]) -> Command {
    let mut c = common::bosun_command(
        testenv::living_kubeconfig(),
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    c.env("BOSUN_CACHE", cache_dir());
    c
}

fn bosun(args: &[String]) -> Output {
    command(args).output().expect("running bosun")
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

/// The inputs every install here takes: the minimal profile with the images built here.
fn inputs() -> Vec<String> {
    let living = testenv::living();
    strings(&[
        "--set",
        "profile=minimal",
        "--set",
        &format!("hub={}", living.hub),
        "--set",
        &format!("tag={}", living.tag),
    ])
}

fn upgrade(extra: &[&str]) -> Vec<String> {
    let mut args = strings(&["upgrade"]);
    args.extend(strings(extra));
    args.extend(inputs());
    args
}

/// Runs `args`, killing bosun (SIGKILL) as soon as it prints a line for which `at` holds;
/// returns what it printed. Fails if it ends before.
fn killed_at(args: &[String], at: impl Fn(&str) -> bool) -> String {
    let mut child = command(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting bosun");
    let stdout = child.stdout.take().unwrap();
    let mut seen = String::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        seen.push_str(&line);
        seen.push('\n');
        if at(&line) {
            child.kill().unwrap();
            child.wait().unwrap();
            return seen;
        }
    }
    let out = child.wait_with_output().unwrap();
    panic!(
        "bosun ended before the line it was to be killed at ({}):\n{seen}{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

async fn wait_until<T, F, Fut>(what: &str, timeout: Duration, check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    testkit::wait_until(what, timeout, Duration::from_millis(500), check)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Removes what an earlier run (of this test or another living test) left: every
/// installation, user-made tags, this test's record.
async fn fresh(kube: &kube::Client) {
    succeeded(&bosun(&strings(&["uninstall", "--purge", "-y"])));
    let tags = ListParams::default().labels("istio.io/tag");
    let injectors: Api<MutatingWebhookConfiguration> = Api::all(kube.clone());
    for tag in injectors.list(&tags).await.unwrap().items {
        let name = tag.metadata.name.unwrap_or_default();
        let _ = injectors.delete(&name, &DeleteParams::default()).await;
    }
    let services: Api<Service> = Api::namespaced(kube.clone(), ISTIO_NS);
    for svc in services.list(&tags).await.unwrap().items {
        let name = svc.metadata.name.unwrap_or_default();
        let _ = services.delete(&name, &DeleteParams::default()).await;
    }
    // An earlier failed run's namespaces (their pods would keep its revisions listed).
    let namespaces: Api<Namespace> = Api::all(kube.clone());
    let ours = |n: &Namespace| {
        let name = n.metadata.name.clone().unwrap_or_default();
        (name.starts_with("canary-a-") || name.starts_with("canary-b-")).then_some(name)
    };
    for n in namespaces.list(&ListParams::default()).await.unwrap().items {
        if let Some(name) = ours(&n) {
            let _ = namespaces.delete(&name, &DeleteParams::default()).await;
        }
    }
    wait_until(
        "an earlier run's namespaces gone",
        Duration::from_secs(120),
        || async {
            let left = namespaces.list(&ListParams::default()).await.unwrap().items;
            (!left.iter().any(|n| ours(n).is_some())).then_some(())
        },
    )
    .await;
    let records: Api<ConfigMap> = Api::namespaced(kube.clone(), ISTIO_NS);
    let _ = records.delete(RECORD, &DeleteParams::default()).await;
    let pods: Api<Pod> = Api::namespaced(kube.clone(), ISTIO_NS);
    wait_until(
        "the pods of an earlier installation gone",
        Duration::from_secs(120),
        || async {
            pods.list(&ListParams::default())
                .await
                .unwrap()
                .items
                .is_empty()
                .then_some(())
        },
    )
    .await;
}

/// A namespace on tag `prod` with the Deployment `app` (see the module docs for its
/// annotations).
async fn workloads(kube: &kube::Client, ns: &str) {
    let namespace: Namespace = serde_json::from_value(
        json!({"metadata": {"name": ns, "labels": {"istio.io/rev": "prod"}}}),
    )
    .unwrap();
    Api::<Namespace>::all(kube.clone())
        .create(&PostParams::default(), &namespace)
        .await
        .unwrap();
    let pause = testenv::living().pause_image.clone();
    let deployment: Deployment = serde_json::from_value(json!({
        "metadata": {"name": "app", "namespace": ns},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "app"}},
            "template": {"metadata": {"labels": {"app": "app"}, "annotations": {
                "sidecar.istio.io/proxyImage": pause,
                "sidecar.istio.io/interceptionMode": "NONE",
                "sidecar.istio.io/nativeSidecar": "false",
                "status.sidecar.istio.io/port": "0",
                "sidecar.istio.io/proxyCPU": "10m",
                "sidecar.istio.io/proxyMemory": "16Mi"}},
            "spec": {"terminationGracePeriodSeconds": 0,
                "containers": [{"name": "app", "image": pause}]}}}
    }))
    .unwrap();
    Api::<Deployment>::namespaced(kube.clone(), ns)
        .create(&PostParams::default(), &deployment)
        .await
        .unwrap();
}

/// The revisions that injected the running (not terminating) pods of `app` in `ns`, once
/// every such pod is Ready; each pod must have the injected `istio-proxy` container.
async fn injected_by(kube: &kube::Client, ns: &str) -> Vec<String> {
    let pods: Api<Pod> = Api::namespaced(kube.clone(), ns);
    wait_until(
        &format!("the pods of {ns}/app ready"),
        Duration::from_secs(120),
        || async {
            let list = pods
                .list(&ListParams::default().labels("app=app"))
                .await
                .unwrap()
                .items;
            let live: Vec<&Pod> = list
                .iter()
                .filter(|p| p.metadata.deletion_timestamp.is_none())
                .collect();
            let ready = |p: &Pod| {
                p.status
                    .as_ref()
                    .and_then(|s| s.conditions.as_ref())
                    .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
            };
            if live.is_empty() || !live.iter().all(|p| ready(p)) {
                return None;
            }
            let mut revisions = Vec::new();
            for p in live {
                let containers: Vec<&str> = p
                    .spec
                    .as_ref()
                    .map(|s| s.containers.iter().map(|c| c.name.as_str()).collect())
                    .unwrap_or_default();
                assert!(containers.contains(&"istio-proxy"), "not injected: {p:#?}");
                revisions.push(
                    p.metadata
                        .annotations
                        .as_ref()
                        .and_then(|a| a.get("istio.io/rev"))
                        .cloned()
                        .unwrap_or_default(),
                );
            }
            revisions.sort();
            revisions.dedup();
            Some(revisions)
        },
    )
    .await
}

/// The revision each tag points at, as `tag list -o json` says (which also lists each
/// revision's own injector, with an empty tag: left out).
fn tags() -> Vec<(String, String)> {
    let out = bosun(&strings(&["tag", "list", "-o", "json"]));
    succeeded(&out);
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut tags: Vec<(String, String)> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["tag"].as_str().unwrap().to_string(),
                r["revision"].as_str().unwrap().to_string(),
            )
        })
        .filter(|(tag, _)| !tag.is_empty())
        .collect();
    tags.sort();
    tags
}

/// The revisions `revision list -o json` lists.
fn revisions() -> Vec<String> {
    let out = bosun(&strings(&["revision", "list", "-o", "json"]));
    succeeded(&out);
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    listed["revisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["revision"].as_str().unwrap().to_string())
        .collect()
}

async fn record(kube: &kube::Client) -> Option<ConfigMap> {
    Api::<ConfigMap>::namespaced(kube.clone(), ISTIO_NS)
        .get_opt(RECORD)
        .await
        .unwrap()
}

fn pair(tag: &str, revision: &str) -> (String, String) {
    (tag.to_string(), revision.to_string())
}

#[test]
fn canary_upgrade_resumes_after_a_kill_and_aborts_after_the_tag_move() {
    let old_charts = previous_manifests();
    let pin = pinned_version();
    // The revision derived from the pin: its catalog entry's Istio version, 1.31.
    let new = "1-31";
    common::run(async {
        let kube = testenv::living_client().await.kube().clone();
        fresh(&kube).await;

        // The older snapshot as revision `old`: it makes itself the default tag; `prod` too.
        let mut install = strings(&["install", "-y", "-d", &old_charts, "--revision", "old"]);
        install.extend(inputs());
        succeeded(&bosun(&install));
        succeeded(&bosun(&strings(&[
            "tag",
            "set",
            "prod",
            "--revision",
            "old",
        ])));
        let a = testenv::unique_name("canary-a");
        let b = testenv::unique_name("canary-b");
        workloads(&kube, &a).await;
        workloads(&kube, &b).await;
        assert_eq!(injected_by(&kube, &a).await, ["old"]);
        assert_eq!(injected_by(&kube, &b).await, ["old"]);
        assert_eq!(tags(), [pair("default", "old"), pair("prod", "old")]);

        // Bad input is refused before anything is written.
        for (args, says) in [
            (upgrade(&["--canary", "--version", "9.9.9", "-y"]), "9.9.9"),
            (
                upgrade(&["--canary", "--version", &pin, "--revision", "old", "-y"]),
                "revision old is the installed one",
            ),
            (
                upgrade(&["--continue", "-y"]),
                "no canary upgrade is in progress",
            ),
            (
                upgrade(&["--abort", "-y"]),
                "no canary upgrade is in progress",
            ),
        ] {
            let out = bosun(&args);
            assert!(!out.status.success(), "{args:?}: {}", text(&out));
            assert!(text(&out).contains(says), "{args:?}: {}", text(&out));
        }
        assert!(record(&kube).await.is_none());

        // --plan names the old revision, the derived one, the tags and the workloads.
        let out = bosun(&upgrade(&["--canary", "--version", &pin, "--plan"]));
        succeeded(&out);
        let plan = common::stdout(&out);
        for says in [
            format!("Installing as revision {new} (derived from Istio 1.31"),
            format!("revision old (Istio 1.31) → revision {new}"),
            format!("move the revision tags from old to {new}: default, prod"),
            format!("namespace {a}: Deployment/app"),
            format!("namespace {b}: Deployment/app"),
            "5. remove revision old once nothing uses it".to_string(),
        ] {
            assert!(plan.contains(&says), "{says}\n{}", text(&out));
        }
        assert!(record(&kube).await.is_none());
        assert_eq!(revisions(), ["old"]);

        // The procedure, killed once the first namespace rolled out.
        let seen = killed_at(&upgrade(&["--canary", "--version", &pin, "-y"]), |l| {
            l.starts_with(&format!("  namespace {a}: Deployment/app rolled out"))
        });
        for says in ["Step 1/5", "Step 2/5", "Step 3/5", "Step 4/5"] {
            assert!(seen.contains(says), "{says}\n{seen}");
        }
        let kept = record(&kube).await.expect("the record survives the kill");
        let data = kept.data.unwrap_or_default();
        assert_eq!(data["step"], "restart", "{data:?}");
        assert_eq!(data["oldRevision"], "old");
        assert_eq!(data["newRevision"], new);
        assert_eq!(data["tags"], r#"["default","prod"]"#);
        assert_eq!(data["namespacesDone"], format!("[\"{a}\"]"));
        assert_eq!(
            kept.metadata.labels.unwrap_or_default()["bosun.io/procedure"],
            "canary-upgrade"
        );
        assert_eq!(tags(), [pair("default", new), pair("prod", new)]);
        // (b's restart may have begun in the milliseconds before the kill: its rollout was not
        // waited for, so the record does not count it, and --continue takes it from there.)
        assert_eq!(injected_by(&kube, &a).await, [new]);

        // A second canary is refused, pointing at --continue and --abort.
        let out = bosun(&upgrade(&["--canary", "--version", &pin, "-y"]));
        assert!(!out.status.success(), "{}", text(&out));
        assert!(
            text(&out).contains("is in progress at step restart: run `bosun upgrade --continue`")
                && text(&out).contains("`bosun upgrade --abort`"),
            "{}",
            text(&out)
        );

        let out = bosun(&upgrade(&["--continue", "-y"]));
        succeeded(&out);
        assert!(
            common::stdout(&out).contains(&format!(
                "✔ Canary upgrade complete: revision {new} (Istio 1.31) serves; revision old was removed"
            )),
            "{}",
            text(&out)
        );
        assert!(
            !common::stdout(&out).contains(&format!("namespace {a}: restarted")),
            "{}",
            text(&out)
        );
        assert_eq!(injected_by(&kube, &a).await, [new]);
        assert_eq!(injected_by(&kube, &b).await, [new]);
        assert_eq!(tags(), [pair("default", new), pair("prod", new)]);
        // The old pods may take a moment to go (grace period 0).
        wait_until(
            "revision list showing only the new revision",
            Duration::from_secs(60),
            || async { (revisions() == [new]).then_some(()) },
        )
        .await;
        assert!(record(&kube).await.is_none());
        let istiods: Api<Deployment> = Api::namespaced(kube.clone(), ISTIO_NS);
        assert!(istiods.get_opt("istiod-old").await.unwrap().is_none());

        // A second canary (the pin again, as `again`), killed once the tags moved, aborted.
        let seen = killed_at(
            &upgrade(&["--canary", "--version", &pin, "--revision", "again", "-y"]),
            |l| l.starts_with("Step 4/5"),
        );
        assert!(seen.contains("revision tag prod → again"), "{seen}");
        assert_eq!(tags(), [pair("default", "again"), pair("prod", "again")]);
        let out = bosun(&upgrade(&["--abort", "-y"]));
        succeeded(&out);
        assert!(
            common::stdout(&out).contains(&format!(
                "✔ Aborted: the tags point at {new} again. Revision again stays installed"
            )),
            "{}",
            text(&out)
        );
        assert_eq!(tags(), [pair("default", new), pair("prod", new)]);
        assert!(record(&kube).await.is_none());
        let mut listed = revisions();
        listed.sort();
        assert_eq!(listed, ["1-31", "again"]);

        for ns in [&a, &b] {
            let _ = Api::<Namespace>::all(kube.clone())
                .delete(ns, &DeleteParams::default())
                .await;
        }
        fresh(&kube).await;
    });
}
