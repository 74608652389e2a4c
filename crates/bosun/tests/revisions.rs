//! `bosun revision list`, `uninstall --revision`'s refusals and `install`'s CRD downgrade
//! refusal against the test control plane (`scripts/testenv`).
//!
//! Each test installs its own revision (a unique name) into its own namespace with bosun
//! (`--no-wait`: there is no kubelet), then builds the situation by hand as istioctl and the
//! sidecar injector would leave it: a revision tag (the revision's injector copied to
//! `istio-revision-tag-T`, labelled `istio.io/tag=T`, selecting `istio.io/rev=T`, and its
//! Service `istiod-revision-tag-T`), namespaces labelled `istio.io/rev` or `istio-injection`,
//! and pods carrying the injector's `istio.io/rev` annotation. Namespaces are never removed on
//! this API server (no controllers), so tests take their labels off when done.
//!
//! Isolation: revision names are unique, and every assertion looks at the test's own revision.
//! The CRDs are shared by all installs; the downgrade test relabels them, so it takes [`CLUSTER`]
//! exclusively while the others hold it shared, and puts the labels back even when it fails.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use cluster::testenv;
use common::{exclusive, release_version, run, shared, stderr, stdout, succeeded, text};
use k8s_openapi::api::admissionregistration::v1::MutatingWebhookConfiguration;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Namespace, Pod, Service};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Api;
use kube::api::{DeleteParams, ListParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use common::{bosun_async as bosun, manifests_dir as manifests};

/// `bosun install` of the minimal profile (Base and istiod) as revision `revision` into
/// namespace `ns`, from the install package `manifests`.
async fn install_revision(ns: &str, revision: &str, manifests: &Path, extra: &[&str]) -> Output {
    let set_ns = format!("values.global.istioNamespace={ns}");
    let manifests = manifests.display().to_string();
    let mut args = vec![
        "install",
        "-y",
        "--no-wait",
        "--set",
        "profile=minimal",
        "--set",
        &set_ns,
        "-r",
        revision,
        "-d",
        &manifests,
    ];
    args.extend_from_slice(extra);
    bosun(&args).await
}

/// `bosun uninstall --revision REV` of the control plane [`install_revision`] put in `ns`
/// (uninstall selects by the owner labels, which name the Istio namespace), with `extra` flags.
async fn uninstall_revision(ns: &str, revision: &str, extra: &[&str]) -> Output {
    let set_ns = format!("values.global.istioNamespace={ns}");
    let mut args = vec!["uninstall", "--revision", revision, "--set", &set_ns];
    args.extend_from_slice(extra);
    bosun(&args).await
}

/// A revision tag made by hand the way `istioctl tag set` makes one: the revision's injector
/// (`istio.io/rev=REV`, no `istio.io/tag`) copied to `istio-revision-tag-TAG-NS`, its
/// operator labels dropped, labelled `istio.io/tag=TAG`, selecting `istio.io/rev=TAG` where the
/// revision's selected `istio.io/rev=REV`; and the Service `istiod-revision-tag-TAG`.
async fn make_tag(client: &cluster::Client, ns: &str, revision: &str, tag: &str) -> String {
    let hooks: Api<MutatingWebhookConfiguration> = Api::all(client.kube().clone());
    let selector = format!("istio.io/rev={revision},!istio.io/tag");
    let injector = hooks
        .list(&ListParams::default().labels(&selector))
        .await
        .unwrap()
        .items
        .pop()
        .unwrap_or_else(|| panic!("no injector labelled {selector}"));
    let mut json = serde_json::to_value(&injector).unwrap();
    let name = format!("istio-revision-tag-{tag}-{ns}");
    let mut labels: BTreeMap<String, String> = injector
        .metadata
        .labels
        .clone()
        .unwrap_or_default()
        .into_iter()
        .filter(|(k, _)| !k.starts_with("operator.istio.io") && !k.contains("install.operator"))
        .collect();
    labels.insert("istio.io/tag".into(), tag.into());
    json["metadata"] = json!({"name": name, "labels": labels});
    let text = serde_json::to_string(&json["webhooks"]).unwrap();
    let retargeted = text.replace(&format!("\"{revision}\""), &format!("\"{tag}\""));
    json["webhooks"] = serde_json::from_str(&retargeted).unwrap();
    let tag_hook: MutatingWebhookConfiguration = serde_json::from_value(json).unwrap();
    hooks
        .create(&PostParams::default(), &tag_hook)
        .await
        .unwrap();
    let services: Api<Service> = Api::namespaced(client.kube().clone(), ns);
    let service: Service = serde_json::from_value(json!({
        "metadata": {"name": format!("istiod-revision-tag-{tag}"),
            "labels": {"app": "istiod", "istio.io/tag": tag, "istio.io/rev": revision}},
        "spec": {"selector": {"app": "istiod", "istio.io/rev": revision},
            "ports": [{"name": "https-webhook", "port": 443, "targetPort": 15017}]}}))
    .unwrap();
    services
        .create(&PostParams::default(), &service)
        .await
        .unwrap();
    name
}

async fn delete_tag(client: &cluster::Client, ns: &str, tag: &str, hook: &str) {
    let hooks: Api<MutatingWebhookConfiguration> = Api::all(client.kube().clone());
    let _ = hooks.delete(hook, &DeleteParams::default()).await;
    let services: Api<Service> = Api::namespaced(client.kube().clone(), ns);
    let _ = services
        .delete(
            &format!("istiod-revision-tag-{tag}"),
            &DeleteParams::default(),
        )
        .await;
}

/// Creates namespace `name` with `labels`.
async fn namespace(client: &cluster::Client, name: &str, labels: Value) {
    let api: Api<Namespace> = Api::all(client.kube().clone());
    let ns: Namespace =
        serde_json::from_value(json!({"metadata": {"name": name, "labels": labels}})).unwrap();
    api.create(&PostParams::default(), &ns).await.unwrap();
}

/// Takes the Istio labels off namespace `name` (the fast tier never removes namespaces).
async fn unlabel(client: &cluster::Client, name: &str) {
    let api: Api<Namespace> = Api::all(client.kube().clone());
    let patch = json!({"metadata": {"labels": {"istio.io/rev": null, "istio-injection": null}}});
    api.patch(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap();
}

/// A pod as the sidecar injector leaves it: annotated `istio.io/rev: REV` (when `revision` is
/// given), with the istio-proxy container.
async fn pod(client: &cluster::Client, ns: &str, name: &str, revision: Option<&str>) {
    let api: Api<Pod> = Api::namespaced(client.kube().clone(), ns);
    let mut annotations = json!({});
    let mut containers = vec![json!({"name": "app", "image": "example.com/app:1"})];
    if let Some(rev) = revision {
        annotations = json!({"istio.io/rev": rev,
            "sidecar.istio.io/status": json!({"containers": ["istio-proxy"], "revision": rev}).to_string()});
        containers.push(json!({"name": "istio-proxy", "image": "example.com/proxyv2:1"}));
    }
    let pod: Pod = serde_json::from_value(json!({
        "metadata": {"name": name, "annotations": annotations},
        "spec": {"containers": containers}}))
    .unwrap();
    api.create(&PostParams::default(), &pod).await.unwrap();
}

/// The `revision list -o json` entry of `revision`, without the tag `default`: an install
/// makes itself the default tag when there is none, which on this shared API server depends on
/// what other tests installed before (each test's own tags are what it checks).
async fn listed(revision: &str) -> Value {
    let out = bosun(&["revision", "list", "-o", "json"]).await;
    succeeded(&out);
    let all: Value =
        serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| panic!("{e}\n{}", text(&out)));
    all["revisions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["revision"] == revision)
        .cloned()
        .map(|mut r| {
            if let Some(tags) = r["tags"].as_array_mut() {
                tags.retain(|t| t != "default");
            }
            r
        })
        .unwrap_or(Value::Null)
}

#[test]
fn revision_list_shows_version_components_tags_namespaces_and_pods() {
    let _shared = shared();
    run(async {
        let client = testenv::client().await;
        let ns = testenv::unique_name("istio-rl");
        let rev = testenv::unique_name("rl");
        let tag = testenv::unique_name("tag");
        succeeded(&install_revision(&ns, &rev, &manifests(), &[]).await);
        let hook = make_tag(&client, &ns, &rev, &tag).await;
        let (direct, via_tag, plain) = (
            testenv::unique_name("rl-direct"),
            testenv::unique_name("rl-via-tag"),
            testenv::unique_name("rl-plain"),
        );
        namespace(&client, &direct, json!({"istio.io/rev": rev})).await;
        namespace(&client, &via_tag, json!({"istio.io/rev": tag})).await;
        namespace(&client, &plain, json!({})).await;
        pod(&client, &direct, "web-1", Some(&rev)).await;
        pod(&client, &direct, "not-injected", None).await;
        pod(&client, &via_tag, "api-1", Some(&rev)).await;
        // A pod that ended runs no proxy.
        pod(&client, &plain, "done-1", Some(&rev)).await;
        let pods: Api<Pod> = Api::namespaced(client.kube().clone(), &plain);
        pods.patch_status(
            "done-1",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"phase": "Succeeded"}})),
        )
        .await
        .unwrap();

        let entry = listed(&rev).await;
        let want = json!({
            "revision": rev,
            "installed": true,
            "versions": [release_version()],
            "istiod_namespaces": [ns],
            "components": ["Base", "Pilot"],
            "injectors": [format!("istio-sidecar-injector-{rev}-{ns}")],
            "tags": [tag],
            "namespaces": [
                {"namespace": direct, "label": format!("istio.io/rev={rev}")},
                {"namespace": via_tag, "label": format!("istio.io/rev={tag}"), "tag": tag},
            ],
            "pods": [
                {"namespace": direct, "name": "web-1"},
                {"namespace": via_tag, "name": "api-1"},
            ],
        });
        assert_eq!(entry, want);

        // The table: one line for the revision, the namespace through the tag marked.
        let out = bosun(&["revision", "list"]).await;
        succeeded(&out);
        let table = stdout(&out);
        let header = table.lines().next().unwrap();
        assert!(
            header.starts_with("REVISION ") && header.ends_with(" PODS"),
            "{table}"
        );
        let line = table
            .lines()
            .find(|l| l.starts_with(&format!("{rev} ")))
            .unwrap_or_else(|| panic!("no line for {rev}:\n{table}"));
        let mut cells: Vec<&str> = line.split_whitespace().collect();
        // (The tag `default` left out, as in `listed`.)
        let tags = cells[4].replace("default,", "");
        cells[4] = &tags;
        assert_eq!(
            cells,
            [
                rev.as_str(),
                &release_version(),
                &ns,
                "Base,Pilot",
                &tag,
                &format!("{direct},{via_tag}[tag={tag}]"),
                "2"
            ],
            "{table}"
        );

        // Everything moved away: the revision is unused (and the tag gone).
        delete_tag(&client, &ns, &tag, &hook).await;
        for n in [&direct, &via_tag] {
            unlabel(&client, n).await;
        }
        for (n, p) in [(&direct, "web-1"), (&via_tag, "api-1")] {
            let pods: Api<Pod> = Api::namespaced(client.kube().clone(), n);
            pods.delete(p, &DeleteParams::default()).await.unwrap();
        }
        let entry = listed(&rev).await;
        assert_eq!(
            (&entry["tags"], &entry["namespaces"], &entry["pods"]),
            (&json!([]), &json!([]), &json!([])),
            "{entry}"
        );
        succeeded(&uninstall_revision(&ns, &rev, &["-y"]).await);
        // istioctl's uninstall by revision leaves Base (the reader ServiceAccount here).
        let entry = listed(&rev).await;
        assert_eq!(
            (
                &entry["components"],
                &entry["istiod_namespaces"],
                &entry["injectors"]
            ),
            (&json!(["Base"]), &json!([]), &json!([])),
            "{entry}"
        );
    });
}

#[test]
fn uninstall_refuses_a_revision_that_tags_namespaces_or_pods_use() {
    let _shared = shared();
    run(async {
        let client = testenv::client().await;
        let ns = testenv::unique_name("istio-un");
        let rev = testenv::unique_name("un");
        succeeded(&install_revision(&ns, &rev, &manifests(), &[]).await);
        let deployments: Api<Deployment> = Api::namespaced(client.kube().clone(), &ns);
        let istiod = format!("istiod-{rev}");
        let refused = |out: &Output, what: &str| {
            assert_eq!(out.status.code(), Some(1), "{}", text(out));
            let err = stderr(out);
            assert!(
                err.contains(&format!("revision {rev} is still in use"))
                    && err.contains(what)
                    && err.contains("or pass --force to uninstall anyway"),
                "want {what:?}\n{}",
                text(out)
            );
        };

        // A tag points at it.
        let tag = testenv::unique_name("utag");
        let hook = make_tag(&client, &ns, &rev, &tag).await;
        let out = uninstall_revision(&ns, &rev, &["-y"]).await;
        refused(
            &out,
            &format!(
                "\n  tag {tag} points at it (MutatingWebhookConfiguration {hook}, Service {ns}/istiod-revision-tag-{tag})"
            ),
        );
        // A dry run says the same: it is what the real run would do.
        let out = uninstall_revision(&ns, &rev, &["--dry-run"]).await;
        refused(&out, &format!("tag {tag} points at it"));
        delete_tag(&client, &ns, &tag, &hook).await;

        // A namespace selects it.
        let app = testenv::unique_name("un-app");
        namespace(&client, &app, json!({"istio.io/rev": rev})).await;
        let out = uninstall_revision(&ns, &rev, &["-y"]).await;
        refused(
            &out,
            &format!("\n  namespace {app} selects it (istio.io/rev={rev})\n"),
        );
        unlabel(&client, &app).await;

        // A pod runs its proxy.
        pod(&client, &app, "cart-1", Some(&rev)).await;
        let out = uninstall_revision(&ns, &rev, &["-y"]).await;
        refused(&out, &format!("\n  pod {app}/cart-1 runs its proxy\n"));
        // Refusals remove nothing.
        assert!(deployments.get_opt(&istiod).await.unwrap().is_some());

        // --force proceeds, and says what it leaves behind.
        let out = uninstall_revision(&ns, &rev, &["-y", "--force"]).await;
        succeeded(&out);
        assert!(
            stderr(&out).contains(&format!(
                "❗ revision {rev} is still in use; continuing because of --force:\n  pod {app}/cart-1 runs its proxy"
            )),
            "{}",
            text(&out)
        );
        assert!(deployments.get_opt(&istiod).await.unwrap().is_none());
        // What is left: the pod, on a revision with only its Base objects.
        let entry = listed(&rev).await;
        assert_eq!(
            (
                &entry["components"],
                &entry["istiod_namespaces"],
                &entry["pods"]
            ),
            (
                &json!(["Base"]),
                &json!([]),
                &json!([{"namespace": app, "name": "cart-1"}])
            ),
            "{entry}"
        );
        let pods: Api<Pod> = Api::namespaced(client.kube().clone(), &app);
        pods.delete("cart-1", &DeleteParams::default())
            .await
            .unwrap();
    });
}

/// Puts back the version label of the Istio CRDs that a test relabelled as from a newer
/// Istio, when the test ends (also by a panic), so later installs are not refused.
struct RestoreCrdLabels {
    newer: String,
    release: String,
}

impl Drop for RestoreCrdLabels {
    fn drop(&mut self) {
        let (newer, release) = (self.newer.clone(), self.release.clone());
        let restore = async move {
            let client = testenv::client().await;
            let crds: Api<CustomResourceDefinition> = Api::all(client.kube().clone());
            let selector = format!("operator.istio.io/version={newer}");
            for crd in crds
                .list(&ListParams::default().labels(&selector))
                .await
                .unwrap()
            {
                let patch = json!({"metadata": {"labels": {"operator.istio.io/version": release}}});
                let _ = crds
                    .patch(
                        &crd.metadata.name.unwrap(),
                        &PatchParams::default(),
                        &Patch::Merge(&patch),
                    )
                    .await;
            }
        };
        // A fresh runtime on its own thread: the test's runtime may be the one unwinding.
        std::thread::spawn(move || run(restore)).join().unwrap();
    }
}

/// An install package that is the pinned one under another Istio version: its `manifests` a
/// link to the pinned charts, its `VERSION` file `version` (what release packages carry, and
/// where bosun's version label comes from).
fn package_as_version(version: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(testenv::unique_name("istio-pkg"));
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(manifests(), dir.join("manifests")).unwrap();
    std::fs::write(dir.join("VERSION"), format!("{version}\n")).unwrap();
    dir.join("manifests")
}

#[test]
fn install_refuses_to_replace_crds_with_older_ones_unless_forced() {
    let _exclusive = exclusive();
    let release = release_version();
    let newer = "1.99.0".to_string();
    let _restore = RestoreCrdLabels {
        newer: newer.clone(),
        release: release.clone(),
    };
    run(async {
        let client = testenv::client().await;
        let crds: Api<CustomResourceDefinition> = Api::all(client.kube().clone());
        let version_of = |crd: CustomResourceDefinition| {
            crd.metadata.labels.unwrap_or_default()["operator.istio.io/version"].clone()
        };
        let ns = testenv::unique_name("istio-crd");
        let (new_rev, rev) = (testenv::unique_name("new"), testenv::unique_name("old"));

        // A newer Istio installs its CRDs (--force: 1.99 beside the pinned revisions other tests
        // leave is more than the two minors a canary may move).
        let newer_package = package_as_version(&newer);
        succeeded(&install_revision(&ns, &new_rev, &newer_package, &["--force"]).await);
        let crd = "virtualservices.networking.istio.io";
        assert_eq!(version_of(crds.get(crd).await.unwrap()), newer);

        // The pinned (older) release is refused, before anything is written.
        let out = install_revision(&ns, &rev, &manifests(), &[]).await;
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        let err = stderr(&out);
        assert!(
            err.contains("the install would replace ")
                && err.contains(" CustomResourceDefinitions with older ones (a downgrade):")
                && err.contains(&format!(
                    "\n  {crd}: in the cluster from Istio {newer}, the install's from Istio {release}\n"
                ))
                && err.contains("or pass --force to downgrade them"),
            "{}",
            text(&out)
        );
        let deployments: Api<Deployment> = Api::namespaced(client.kube().clone(), &ns);
        assert!(
            deployments
                .get_opt(&format!("istiod-{rev}"))
                .await
                .unwrap()
                .is_none()
        );
        assert_eq!(version_of(crds.get(crd).await.unwrap()), newer);

        // precheck reports it too (an Error: exit 1).
        let manifests = manifests().display().to_string();
        let out = bosun(&["precheck", "-d", &manifests, "-r", &rev]).await;
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        assert!(
            stdout(&out).contains(&format!(
                "Error [BOSUN-PRE003] (CustomResourceDefinition {crd}) The install would replace this CRD with an older one: {crd}: in the cluster from Istio {newer}, the install's from Istio {release}\n"
            )),
            "{}",
            text(&out)
        );

        // --force downgrades them, saying so.
        let out = install_revision(&ns, &rev, Path::new(&manifests), &["--force"]).await;
        succeeded(&out);
        assert!(
            stderr(&out).contains("❗ the install would replace ")
                && stderr(&out).contains("continuing because of --force"),
            "{}",
            text(&out)
        );
        assert_eq!(version_of(crds.get(crd).await.unwrap()), release);

        // Same version again: nothing to refuse.
        succeeded(&install_revision(&ns, &rev, Path::new(&manifests), &[]).await);
        for r in [&rev, &new_rev] {
            succeeded(&uninstall_revision(&ns, r, &["-y"]).await);
        }
        let _ = std::fs::remove_dir_all(newer_package.parent().unwrap());
    });
}

/// Runs real istioctl (built from the pinned Istio) against the test control plane.
async fn istioctl(args: &[&str]) -> Output {
    let mut c = Command::new(common::fetched("BOSUN_ISTIOCTL", "fetch-istioctl"));
    c.args(args)
        .env("KUBECONFIG", testenv::kubeconfig())
        .stdin(Stdio::null());
    testkit::output(c).await
}

/// A tag made by real `istioctl tag set`, read by bosun, against istioctl's own view
/// (`istioctl tag list -o json`) and istioctl's uninstall. Measured, and kept true here:
/// - bosun's `revision list` has the tag pointing at the revision, and the namespace labelled
///   with the tag selecting it through the tag, as `istioctl tag list` has them;
/// - istioctl's `uninstall --revision R -y` goes ahead while the tag points at R (it only asks
///   istiod for proxies, and with no reachable istiod says so), and does not remove the tag's
///   webhook, which would be left pointing at nothing; bosun's refuses and names the tag.
#[test]
fn tags_made_by_istioctl_agree_with_istioctl_tag_list_and_block_uninstall() {
    let _shared = shared();
    run(async {
        let client = testenv::client().await;
        let ns = testenv::unique_name("istio-itag");
        let rev = testenv::unique_name("itag");
        let tag = testenv::unique_name("itag-t");
        let app = testenv::unique_name("itag-app");
        succeeded(&install_revision(&ns, &rev, &manifests(), &[]).await);
        let out = istioctl(&["tag", "set", &tag, "--revision", &rev, "-i", &ns]).await;
        succeeded(&out);
        namespace(&client, &app, json!({"istio.io/rev": tag})).await;

        let out = istioctl(&["tag", "list", "-o", "json"]).await;
        succeeded(&out);
        let tags: Value = serde_json::from_str(&stdout(&out)).unwrap();
        let theirs = tags
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["tag"] == tag)
            .cloned()
            .unwrap_or_else(|| panic!("{tag} not in {}", text(&out)));
        assert_eq!(
            theirs,
            json!({"tag": tag, "revision": rev, "namespaces": [app]})
        );
        let entry = listed(&rev).await;
        assert_eq!(entry["tags"], json!([tag]), "{entry}");
        assert_eq!(
            entry["namespaces"],
            json!([{"namespace": app, "label": format!("istio.io/rev={tag}"), "tag": tag}]),
            "{entry}"
        );

        let set_ns = format!("values.global.istioNamespace={ns}");
        let out = istioctl(&[
            "uninstall",
            "--revision",
            &rev,
            "--set",
            &set_ns,
            "-i",
            &ns,
            "--dry-run",
            "-y",
        ])
        .await;
        succeeded(&out);
        let all = format!("{}{}", stdout(&out), stderr(&out));
        assert!(
            all.contains(&format!(
                "Unable to find any proxies pointing to the {rev} control plane"
            )) && all.contains(&format!("Kind=Deployment/istiod-{rev}.{ns}"))
                && !all.contains(&format!("istio-revision-tag-{tag}")),
            "{}",
            text(&out)
        );
        let out = uninstall_revision(&ns, &rev, &["--dry-run"]).await;
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        assert!(
            stderr(&out).contains(&format!(
                "\n  tag {tag} points at it (MutatingWebhookConfiguration istio-revision-tag-{tag}-{ns}, Service {ns}/istiod-revision-tag-{tag})\n  namespace {app} selects it (istio.io/rev={tag}, through tag {tag})\n"
            )),
            "{}",
            text(&out)
        );

        succeeded(&istioctl(&["tag", "remove", &tag, "-y", "-i", &ns]).await);
        unlabel(&client, &app).await;
        succeeded(&uninstall_revision(&ns, &rev, &["-y"]).await);
    });
}
