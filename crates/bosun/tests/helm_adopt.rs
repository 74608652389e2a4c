//! `install --adopt` over an Istio that real helm v4 installed (`BOSUN_HELM`, else
//! `scripts/fetch-helm`) on the living cluster (`testenv::living_kubeconfig()`, in CI the
//! default living cluster): helm installs the pin's base and istiod charts with the values
//! `manifest translate` writes for the test's inputs (minimal, the images built here); then
//! - `install` without `--adopt` refuses, naming both releases and what `--adopt` does, and
//!   `precheck` reports them (BOSUN-PRE009); nothing changed;
//! - bad input refuses `install --adopt` with nothing changed: an object marked as another
//!   release's, a Secret labelled as a helm record that is not helm's format, a newer revision
//!   of `istiod` made from another chart;
//! - `install --plan --adopt` lists the releases, the ownership change and the records;
//! - `install --adopt`: every object of the releases is the same afterwards but for ownership
//!   (managedFields, helm's release annotations, istioctl's owner labels, the labels that name
//!   the release, and the sidecar injector deactivated in favour of the default revision tag,
//!   as istioctl's install makes it), helm's field manager owns nothing, `helm list -A` is
//!   empty, helm cannot import the objects again, and later installs write nothing.
//!
//! One test: it installs into `istio-system` as the other living tests do, one binary at a
//! time.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use cluster::testenv;
use common::{succeeded, text};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Pod, Secret};
use kube::Api;
use kube::api::{DeleteParams, ListParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

const NS: &str = "istio-system";

fn kubeconfig() -> &'static Path {
    testenv::living_kubeconfig()
}

fn bosun(args: &[&str]) -> Output {
    common::bosun_at(kubeconfig(), args)
}

fn helm(args: &[&str]) -> Output {
    let helm = common::fetched("BOSUN_HELM", "fetch-helm");
    Command::new(helm)
        .args(args)
        .arg("--kubeconfig")
        .arg(kubeconfig())
        .output()
        .expect("running helm")
}

fn helm_json(args: &[&str]) -> Value {
    let out = helm(args);
    succeeded(&out);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("helm {args:?}: {e}\n{}", text(&out)))
}

/// The inputs of bosun's renders and installs here: minimal, with the local images.
fn inputs() -> Vec<String> {
    let living = testenv::living();
    vec![
        "--set".into(),
        "profile=minimal".into(),
        "--set".into(),
        format!("hub={}", living.hub),
        "--set".into(),
        format!("tag={}", living.tag),
    ]
}

fn with_inputs<'a>(head: &[&'a str], inputs: &'a [String]) -> Vec<&'a str> {
    let mut v: Vec<&str> = head.to_vec();
    v.extend(inputs.iter().map(String::as_str));
    v
}

fn refused(out: &Output, message: &str) {
    assert!(!out.status.success(), "{}", text(out));
    assert!(
        text(out).contains(message),
        "wanted {message:?} in\n{}",
        text(out)
    );
}

/// Removes what an earlier test left: the helm releases of this test, Istio installed by
/// bosun (its records with it) and any other helm record in the namespace.
async fn fresh(kube: &kube::Client) {
    for release in ["istiod", "istio-base"] {
        let _ = helm(&["uninstall", release, "-n", NS, "--wait"]);
    }
    succeeded(&bosun(&["uninstall", "--purge", "-y"]));
    let secrets: Api<Secret> = Api::namespaced(kube.clone(), NS);
    for s in secrets
        .list(&ListParams::default().labels("owner=helm"))
        .await
        .unwrap()
        .items
    {
        let _ = secrets
            .delete(
                &s.metadata.name.unwrap_or_default(),
                &DeleteParams::default(),
            )
            .await;
    }
    let pods: Api<Pod> = Api::namespaced(kube.clone(), NS);
    testkit::wait_until(
        "the pods of an earlier install gone",
        Duration::from_secs(120),
        Duration::from_millis(500),
        || async {
            pods.list(&ListParams::default())
                .await
                .unwrap()
                .items
                .is_empty()
                .then_some(())
        },
    )
    .await
    .unwrap_or_else(|e| panic!("{e}"));
}

/// The objects of a release's manifest, as references.
fn release_objects(release: &str) -> Vec<vocab::ObjectRef> {
    let out = helm(&["get", "manifest", release, "-n", NS]);
    succeeded(&out);
    let manifest = String::from_utf8_lossy(&out.stdout).to_string();
    helmrelease::manifest_documents(&manifest)
        .into_iter()
        .filter_map(|doc| goyaml::from_yaml_json(doc).ok())
        .filter(|v: &Value| v.is_object())
        .map(|v| {
            let s = |p: &str| v.pointer(p).and_then(Value::as_str).map(str::to_string);
            vocab::ObjectRef {
                api_version: s("/apiVersion").unwrap(),
                kind: s("/kind").unwrap(),
                namespace: s("/metadata/namespace"),
                name: s("/metadata/name").unwrap(),
            }
        })
        .collect()
}

/// A live object with what adoption changes taken out: the server's bookkeeping
/// (managedFields, resourceVersion, generation, status, the Deployment's revision
/// annotation), helm's release annotations, istioctl's owner labels, the labels naming the
/// release (`release`, `app.kubernetes.io/instance`: helm's release name before, istioctl's
/// `istio` after), and the webhooks of the sidecar injector (deactivated by the default tag,
/// checked apart).
fn without_ownership(mut v: Value) -> Value {
    let meta = v["metadata"].as_object_mut().unwrap();
    for key in ["managedFields", "resourceVersion", "generation"] {
        meta.remove(key);
    }
    if let Some(labels) = meta.get_mut("labels").and_then(Value::as_object_mut) {
        labels.retain(|k, _| {
            !(k.starts_with("operator.istio.io/")
                || k.starts_with("install.operator.istio.io/")
                || k == "istio.io/rev"
                || k == "release"
                || k == "app.kubernetes.io/instance")
        });
    }
    if let Some(annotations) = meta.get_mut("annotations").and_then(Value::as_object_mut) {
        annotations.retain(|k, _| {
            !(k.starts_with("meta.helm.sh/") || k == "deployment.kubernetes.io/revision")
        });
        if annotations.is_empty() {
            meta.remove("annotations");
        }
    }
    let root = v.as_object_mut().unwrap();
    root.remove("status");
    if root.get("kind") == Some(&json!("MutatingWebhookConfiguration")) {
        root.remove("webhooks");
    }
    if let Some(labels) = v
        .pointer_mut("/spec/template/metadata/labels")
        .and_then(Value::as_object_mut)
    {
        labels.remove("app.kubernetes.io/instance");
    }
    v
}

fn managers(v: &Value) -> Vec<String> {
    v["metadata"]["managedFields"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|f| f["manager"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn install_adopt_takes_over_what_helm_installed() {
    common::run(async {
        let client = testenv::living_client().await;
        let kube = client.kube().clone();
        fresh(&kube).await;
        let inputs = inputs();
        let secrets: Api<Secret> = Api::namespaced(kube.clone(), NS);
        let deployments: Api<Deployment> = Api::namespaced(kube.clone(), NS);

        // helm installs Istio with the values bosun would give each chart.
        let values: PathBuf = std::env::temp_dir().join(testenv::unique_name("adopt-values"));
        succeeded(&bosun(&with_inputs(
            &["manifest", "translate", "-o", values.to_str().unwrap()],
            &inputs,
        )));
        let charts = common::manifests_dir().join("charts");
        for (release, chart, file) in [
            ("istio-base", "base", "base-values.yaml"),
            (
                "istiod",
                "istio-control/istio-discovery",
                "pilot-values.yaml",
            ),
        ] {
            succeeded(&helm(&[
                "install",
                release,
                charts.join(chart).to_str().unwrap(),
                "-n",
                NS,
                "--create-namespace",
                "-f",
                values.join(file).to_str().unwrap(),
                "--wait",
                "--timeout",
                "120s",
            ]));
        }
        let _ = std::fs::remove_dir_all(&values);
        // istiod switches its validator to `failurePolicy: Fail` once it serves validation (a
        // field of its own, not the install's): the objects are compared from then on.
        let validators: Api<
            k8s_openapi::api::admissionregistration::v1::ValidatingWebhookConfiguration,
        > = Api::all(kube.clone());
        testkit::wait_until(
            "istiod's validator switched to Fail",
            Duration::from_secs(120),
            Duration::from_millis(500),
            || async {
                let v = validators.get("istio-validator-istio-system").await.ok()?;
                let policy = v.webhooks?.first()?.failure_policy.clone()?;
                (policy == "Fail").then_some(())
            },
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
        let mut objects = release_objects("istio-base");
        objects.extend(release_objects("istiod"));
        let mut before = Vec::new();
        for o in &objects {
            before.push(
                client
                    .get(o)
                    .await
                    .unwrap()
                    .unwrap_or_else(|| panic!("{o}")),
            );
        }
        let istiod_version = || async {
            deployments
                .get("istiod")
                .await
                .unwrap()
                .metadata
                .resource_version
                .unwrap()
        };
        let untouched = istiod_version().await;

        // Without --adopt: refused, naming the releases and what --adopt does.
        let install = with_inputs(&["install", "-y"], &inputs);
        let out = bosun(&install);
        refused(
            &out,
            "Istio here was installed by helm: release istio-system/istio-base (chart base-",
        );
        refused(
            &out,
            ", revision 1, deployed), release istio-system/istiod (chart istiod-",
        );
        refused(&out, "Run it again with --adopt to hand them to bosun");
        refused(
            &bosun(&with_inputs(&["plan"], &inputs)),
            "bosun plan would take over their objects",
        );
        let out = bosun(&with_inputs(&["precheck"], &inputs));
        assert!(
            text(&out).contains("Warning [BOSUN-PRE009] (Helm release istio-system/istiod) Istio was installed by helm here"),
            "{}",
            text(&out)
        );

        // Bad input: refused, nothing changed.
        let adopt = with_inputs(&["install", "-y", "--adopt"], &inputs);
        let sa: Api<k8s_openapi::api::core::v1::ServiceAccount> = Api::namespaced(kube.clone(), NS);
        let mark = |release: &str| json!({"metadata": {"annotations": {"meta.helm.sh/release-name": release}}});
        sa.patch(
            "istio-reader-service-account",
            &PatchParams::default(),
            &Patch::Merge(&mark("my-app")),
        )
        .await
        .unwrap();
        refused(
            &bosun(&adopt),
            "ServiceAccount istio-system/istio-reader-service-account is marked as an object of helm release istio-system/my-app (annotation meta.helm.sh/release-name), which is not one of the Istio releases adopted (istio-system/istio-base, istio-system/istiod)",
        );
        sa.patch(
            "istio-reader-service-account",
            &PatchParams::default(),
            &Patch::Merge(&mark("istio-base")),
        )
        .await
        .unwrap();

        let not_helms: Secret = serde_json::from_value(json!({
            "metadata": {"name": "sh.helm.release.v1.bogus.v1", "labels": {"owner": "helm", "name": "bogus"}},
            "type": "Opaque", "stringData": {"release": "x"}
        }))
        .unwrap();
        secrets
            .create(&PostParams::default(), &not_helms)
            .await
            .unwrap();
        refused(
            &bosun(&adopt),
            "Secret istio-system/sh.helm.release.v1.bogus.v1 is not a helm release record: its type is \"Opaque\"",
        );
        secrets
            .delete("sh.helm.release.v1.bogus.v1", &DeleteParams::default())
            .await
            .unwrap();

        let foreign = helmrelease::Release {
            name: "istiod".into(),
            namespace: NS.into(),
            version: 99,
            status: helmrelease::Status::Deployed,
            description: "Upgrade complete".into(),
            first_deployed: "2026-01-01T00:00:00Z".into(),
            last_deployed: "2026-01-01T00:00:00Z".into(),
            chart: json!({"metadata": {"name": "my-istiod", "version": "1.0.0"}, "lock": null, "templates": [], "values": {}, "schema": null, "files": []}),
            config: Default::default(),
            manifest: String::new(),
            labels: Default::default(),
            apply_method: "ssa".into(),
        }
        .to_secret(1_767_225_600);
        secrets
            .create(&PostParams::default(), &foreign)
            .await
            .unwrap();
        refused(
            &bosun(&adopt),
            "helm release istio-system/istiod is of chart \"my-istiod\", not Istio's \"istiod\"",
        );
        secrets
            .delete("sh.helm.release.v1.istiod.v99", &DeleteParams::default())
            .await
            .unwrap();
        assert_eq!(istiod_version().await, untouched, "nothing was applied");
        assert_eq!(
            helm_json(&["list", "-A", "-o", "json"])
                .as_array()
                .unwrap()
                .len(),
            2
        );

        // The plan says what adoption changes, with no conflict left.
        let out = bosun(&with_inputs(&["install", "--plan", "--adopt"], &inputs));
        succeeded(&out);
        let plan = String::from_utf8_lossy(&out.stdout).to_string();
        for want in [
            "Adopt helm release istio-system/istiod (chart istiod-",
            "field manager \"bosun\" takes over from \"helm\"",
            "  - Secret istio-system/sh.helm.release.v1.istiod.v1 (helm release record: deleted)",
            "  - Secret istio-system/sh.helm.release.v1.istio-base.v1 (helm release record: deleted)",
            "Adoption: 2 release(s), ",
        ] {
            assert!(plan.contains(want), "{want:?} in\n{plan}");
        }
        assert!(!plan.contains("in conflict"), "{plan}");
        assert_eq!(istiod_version().await, untouched, "the plan wrote nothing");

        // The adoption.
        let out = bosun(&adopt);
        succeeded(&out);
        let said = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            said.contains("✔ Adopted helm release istio-system/istiod: ")
                && said.contains("✔ Adopted helm release istio-system/istio-base: "),
            "{said}"
        );

        // Nothing changed but ownership.
        for (o, was) in objects.iter().zip(before) {
            let now = client
                .get(o)
                .await
                .unwrap()
                .unwrap_or_else(|| panic!("{o} gone"));
            let who = managers(&now);
            assert!(
                !who.iter().any(|m| m == "helm"),
                "{o}: helm still manages it: {who:?}"
            );
            assert!(
                who.iter().any(|m| m == "bosun"),
                "{o}: bosun does not: {who:?}"
            );
            let annotations = &now["metadata"]["annotations"];
            assert!(
                annotations.get("meta.helm.sh/release-name").is_none(),
                "{o}: {annotations}"
            );
            assert_eq!(
                now["metadata"]["labels"]["install.operator.istio.io/owning-resource-namespace"],
                NS,
                "{o}: istioctl's owner labels"
            );
            if o.kind == "MutatingWebhookConfiguration" {
                assert!(
                    now.to_string().contains("istio.io/deactivated"),
                    "{o}: the default tag took over injection: {now}"
                );
            }
            assert_eq!(
                without_ownership(now),
                without_ownership(was),
                "{o} changed beyond ownership"
            );
        }
        let list = helm_json(&["list", "-A", "-o", "json"]);
        assert_eq!(list, json!([]), "{list}");
        let left = secrets
            .list(&ListParams::default().labels("owner=helm"))
            .await
            .unwrap()
            .items;
        assert!(left.is_empty(), "{left:?}");

        // helm cannot take the objects back unawares: an install of the release again refuses
        // them (their helm annotations are gone) and records nothing (helm v4 lists every
        // status by default).
        let out = helm(&[
            "upgrade",
            "--install",
            "istiod",
            charts
                .join("istio-control/istio-discovery")
                .to_str()
                .unwrap(),
            "-n",
            NS,
        ]);
        assert!(!out.status.success(), "{}", text(&out));
        assert!(
            text(&out).contains(
                "exists and cannot be imported into the current release: invalid ownership metadata"
            ),
            "{}",
            text(&out)
        );
        let list = helm_json(&["list", "-A", "-o", "json"]);
        assert_eq!(list, json!([]), "{list}");

        // The adoption relabelled istiod's pod template, so istiod rolls out once; until the
        // Deployment controller is done, it writes the Deployment's status, and an install
        // reading the Deployment before such a write and applying after it would count it
        // `configured` though its apply changed nothing (it compares resource versions).
        let started = std::time::Instant::now();
        loop {
            let d = deployments.get("istiod").await.unwrap();
            let (spec, status) = (d.spec.unwrap_or_default(), d.status.unwrap_or_default());
            let want = spec.replicas.unwrap_or(1);
            let settled = status.observed_generation == d.metadata.generation
                && status.replicas == Some(want)
                && status.updated_replicas == Some(want)
                && status.available_replicas == Some(want);
            if settled {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(120),
                "istiod did not finish rolling out: {status:?}"
            );
            tokio::time::sleep(Duration::from_millis(500)).await;
        }

        // A second install changes none of the adopted objects and creates nothing. (The
        // default revision tag's two webhook configurations, made by the adoption while
        // istiod was rolling out, may be re-applied once: istiod takes their failurePolicy
        // over after they were made. A third install writes nothing at all.)
        let out = bosun(&install);
        succeeded(&out);
        let said = String::from_utf8_lossy(&out.stdout).to_string();
        for line in [
            "✔ Istio core installed (0 created, 0 configured, ",
            "✔ Istiod installed (0 created, 0 configured, ",
        ] {
            assert!(said.contains(line), "{line:?} in\n{}", text(&out));
        }
        assert_eq!(common::totals(&out).0, 0, "{}", text(&out));
        let out = bosun(&install);
        succeeded(&out);
        assert_eq!(common::totals(&out).0, 0, "{}", text(&out));
        assert_eq!(common::totals(&out).1, 0, "{}", text(&out));

        succeeded(&bosun(&["uninstall", "--purge", "-y"]));
    });
}
