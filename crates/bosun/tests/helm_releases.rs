//! `install --helm-releases` read by real helm v4 (`BOSUN_HELM`, else `scripts/fetch-helm`) on
//! the living cluster (`testenv::living_kubeconfig()`: `BOSUN_LIVING_KUBECONFIG`, in CI the
//! default living cluster): a minimal install with the images built here, made first without
//! the flag, is switched to `--helm-releases` without `--force` (bosun's own fields move to
//! helm's field manager; bosun's keeps only the owner labels); then `helm list`
//! shows `istio-base` and `istiod` deployed with the charts' versions, `helm get values` gives
//! the values `manifest translate` writes for each chart, `helm get manifest` holds exactly the
//! documents `manifest generate --cluster-specific` prints, `helm history` works, a second
//! install changes no record, `helm upgrade --reuse-values --set …` with the same chart
//! succeeds with no field-manager conflict (its change reaches the Deployment) and leaves
//! istioctl's owner labels on the objects; bosun then notices helm's revision (`plan
//! --helm-releases` names it and the value paths it changed), `install` refuses to undo it and
//! `install --force` re-applies bosun's render as the next revision; an install and a plan
//! without the flag keep recording (and say so), `install --plan --adopt` shows the way to
//! stop; a `helm upgrade` with a patched copy of the chart (same version) is noticed by
//! template file and refused; `helm rollback` (to helm's
//! revision, which bosun notices too, and to bosun's) and `helm uninstall` work, and `uninstall
//! --purge` removes bosun's records. Bad records
//! (another chart's release of the same name, a Secret that is not helm's format) refuse the
//! install with nothing changed.
//!
//! The operator's counterpart (`bosun.io/helm-releases` on an IstioOperator, `operator run` as
//! a child process): helm lists the releases it recorded, `helm get manifest` is the render,
//! `helm upgrade --reuse-values --set …` of istiod is left alone with the status saying what
//! changed, and `bosun.io/override-helm-changes` puts the render back as the next revision.
//!
//! Both tests install into `istio-system` as the other living tests do: they run one after the
//! other ([`one_at_a_time`]), and the test binaries run one at a time.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use cluster::testenv;
use common::{succeeded, text};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Pod, Secret};
use kube::Api;
use kube::api::{DeleteParams, ListParams, PostParams};
use serde_json::{Value, json};

const NS: &str = "istio-system";

/// The tests here share the living cluster's `istio-system`: one at a time.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LIVING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LIVING.lock().unwrap_or_else(|e| e.into_inner())
}

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

/// The inputs every render and install here takes: minimal, with the local images.
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

fn with_inputs<'a>(head: &[&'a str], inputs: &'a [String], tail: &[&'a str]) -> Vec<&'a str> {
    let mut v: Vec<&str> = head.to_vec();
    v.extend(inputs.iter().map(String::as_str));
    v.extend(tail);
    v
}

/// `version` and `appVersion` of a chart's Chart.yaml.
fn chart_versions(chart: &Path) -> (String, String) {
    let text = std::fs::read_to_string(chart.join("Chart.yaml")).unwrap();
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .map(|v| v.trim().trim_matches('"').to_string())
            .unwrap_or_else(|| panic!("{key} in {}", chart.display()))
    };
    (field("version:"), field("appVersion:"))
}

/// `helm get manifest` of istio-base and istiod together is exactly `rendered` (what
/// `manifest generate --cluster-specific` printed), document for document.
fn helm_manifests_are(rendered: &str) {
    let rendered = common::documents(rendered);
    let mut recorded = Vec::new();
    for release in ["istio-base", "istiod"] {
        let out = helm(&["get", "manifest", release, "-n", NS]);
        succeeded(&out);
        recorded.extend(common::documents(&String::from_utf8_lossy(&out.stdout)));
    }
    recorded.sort();
    assert_eq!(recorded.len(), rendered.len());
    assert!(
        recorded == rendered,
        "helm get manifest differs from manifest generate"
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

/// Removes what an earlier test left: Istio (bosun's release records with it) and the
/// records this test plants.
async fn fresh(kube: &kube::Client) {
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
    wait_until(
        "the pods of an earlier install gone",
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

/// The labels of a live object of the Istio namespace.
async fn owner_labels(
    kube: &kube::Client,
    kind: &str,
    name: &str,
) -> std::collections::BTreeMap<String, String> {
    let meta = match kind {
        "Deployment" => {
            Api::<Deployment>::namespaced(kube.clone(), NS)
                .get(name)
                .await
                .unwrap()
                .metadata
        }
        "ConfigMap" => {
            Api::<k8s_openapi::api::core::v1::ConfigMap>::namespaced(kube.clone(), NS)
                .get(name)
                .await
                .unwrap()
                .metadata
        }
        other => panic!("kind {other}"),
    };
    meta.labels.unwrap_or_default()
}

/// The environment of istiod's container.
async fn istiod_env(deployments: &Api<Deployment>) -> Vec<k8s_openapi::api::core::v1::EnvVar> {
    deployments
        .get("istiod")
        .await
        .unwrap()
        .spec
        .unwrap()
        .template
        .spec
        .unwrap()
        .containers[0]
        .env
        .clone()
        .unwrap_or_default()
}

/// Copies the folder `from` (a chart) to `to`.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A release record of `release` that helm's format has but whose chart is `chart`.
fn record_of_chart(release: &str, chart: &str) -> Secret {
    helmrelease::Release {
        name: release.into(),
        namespace: NS.into(),
        version: 1,
        status: helmrelease::Status::Deployed,
        description: "Install complete".into(),
        first_deployed: "2026-01-01T00:00:00Z".into(),
        last_deployed: "2026-01-01T00:00:00Z".into(),
        chart: json!({"metadata": {"name": chart, "version": "1.0.0"}, "lock": null, "templates": [], "values": {}, "schema": null, "files": []}),
        config: Default::default(),
        manifest: String::new(),
        labels: Default::default(),
        apply_method: "ssa".into(),
    }
    .to_secret(1_767_225_600)
}

#[test]
fn helm_reads_and_takes_over_what_install_helm_releases_recorded() {
    let _one = one_at_a_time();
    common::run(async {
        let kube = testenv::living_client().await.kube().clone();
        fresh(&kube).await;
        let inputs = inputs();
        let install = with_inputs(&["install", "-y", "--helm-releases"], &inputs, &[]);
        let secrets: Api<Secret> = Api::namespaced(kube.clone(), NS);
        let deployments: Api<Deployment> = Api::namespaced(kube.clone(), NS);

        // Bad records refuse the install before anything is written (planted in the
        // namespace the install would make).
        let namespaces: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(kube.clone());
        if namespaces.get_opt(NS).await.unwrap().is_none() {
            let ns = serde_json::from_value(json!({"metadata": {"name": NS}})).unwrap();
            namespaces
                .create(&PostParams::default(), &ns)
                .await
                .unwrap();
        }
        secrets
            .create(
                &PostParams::default(),
                &record_of_chart("istio-base", "my-base"),
            )
            .await
            .unwrap();
        let out = bosun(&install);
        assert!(!out.status.success(), "{}", text(&out));
        assert!(
            text(&out).contains("helm release istio-system/istio-base exists with chart \"my-base\" (Secret sh.helm.release.v1.istio-base.v1), not Istio's \"base\""),
            "{}",
            text(&out)
        );
        assert!(
            deployments.get_opt("istiod").await.unwrap().is_none(),
            "nothing applied"
        );
        secrets
            .delete("sh.helm.release.v1.istio-base.v1", &DeleteParams::default())
            .await
            .unwrap();
        let not_helms: Secret = serde_json::from_value(json!({
            "metadata": {"name": "sh.helm.release.v1.istiod.v1", "labels": {"owner": "helm", "name": "istiod"}},
            "type": "Opaque", "stringData": {"release": "x"}
        }))
        .unwrap();
        secrets
            .create(&PostParams::default(), &not_helms)
            .await
            .unwrap();
        let out = bosun(&install);
        assert!(!out.status.success(), "{}", text(&out));
        assert!(
            text(&out).contains("Secret istio-system/sh.helm.release.v1.istiod.v1 is not a helm release record: its type is \"Opaque\""),
            "{}",
            text(&out)
        );
        assert!(
            deployments.get_opt("istiod").await.unwrap().is_none(),
            "nothing applied"
        );
        secrets
            .delete("sh.helm.release.v1.istiod.v1", &DeleteParams::default())
            .await
            .unwrap();

        // An install made without --helm-releases (its objects applied as manager bosun), then
        // switched to it: bosun's own fields move to helm's manager without --force (before:
        // a conflict with manager bosun on the validator's webhooks[].rules), and the plan
        // says so.
        succeeded(&bosun(&with_inputs(
            &["install", "-y", "--no-wait"],
            &inputs,
            &[],
        )));
        let out = bosun(&with_inputs(
            &["install", "--plan", "--helm-releases"],
            &inputs,
            &[],
        ));
        succeeded(&out);
        let said = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            said.contains(
                "~ Deployment istio-system/istiod (fields of field manager \"bosun\" move to \"helm\")\n"
            ) && !said.contains("conflict"),
            "{said}"
        );

        // The install, recorded.
        let out = bosun(&install);
        succeeded(&out);
        let said = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            said.contains("✔ Helm release istio-base in istio-system: revision 1\n"),
            "{said}"
        );
        assert!(
            said.contains("✔ Helm release istiod in istio-system: revision 1\n"),
            "{said}"
        );

        // helm list: both deployed, with the charts' versions.
        let charts: PathBuf = common::manifests_dir().join("charts");
        let list = helm_json(&["list", "-A", "-o", "json"]);
        let mut names: Vec<&str> = list
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["name"].as_str().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["istio-base", "istiod"], "{list}");
        for (release, chart_dir, chart_name) in [
            ("istio-base", "base", "base"),
            ("istiod", "istio-control/istio-discovery", "istiod"),
        ] {
            let (version, app_version) = chart_versions(&charts.join(chart_dir));
            let entry = list
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["name"] == release)
                .unwrap();
            assert_eq!(entry["namespace"], NS, "{entry}");
            assert_eq!(entry["status"], "deployed", "{entry}");
            assert_eq!(entry["revision"], "1", "{entry}");
            assert_eq!(entry["chart"], format!("{chart_name}-{version}"), "{entry}");
            assert_eq!(entry["app_version"], app_version, "{entry}");
        }

        // helm get values: what `manifest translate` says helm would take for each chart.
        let translated = std::env::temp_dir().join(testenv::unique_name("helmrel-translate"));
        let out = bosun(&with_inputs(
            &["manifest", "translate", "-o", translated.to_str().unwrap()],
            &inputs,
            &[],
        ));
        succeeded(&out);
        for (release, file) in [
            ("istio-base", "base-values.yaml"),
            ("istiod", "pilot-values.yaml"),
        ] {
            let want =
                goyaml::from_yaml_json(&std::fs::read_to_string(translated.join(file)).unwrap())
                    .unwrap();
            let got = helm_json(&["get", "values", release, "-n", NS, "-o", "json"]);
            assert_eq!(got, want, "helm get values {release}");
        }
        let _ = std::fs::remove_dir_all(&translated);

        // helm get manifest: exactly the documents bosun renders for this cluster.
        let out = bosun(&with_inputs(
            &["manifest", "generate", "--cluster-specific"],
            &inputs,
            &[],
        ));
        succeeded(&out);
        helm_manifests_are(&String::from_utf8_lossy(&out.stdout));

        // helm status and history.
        let status = helm_json(&["status", "istiod", "-n", NS, "-o", "json"]);
        assert_eq!(status["info"]["status"], "deployed", "{status}");
        let history = helm_json(&["history", "istiod", "-n", NS, "-o", "json"]);
        assert_eq!(history.as_array().unwrap().len(), 1, "{history}");
        assert_eq!(history[0]["description"], "Install complete", "{history}");

        // bosun's manager keeps only the owner labels the charts do not render (the holds).
        let validator = kube::Api::<
            k8s_openapi::api::admissionregistration::v1::ValidatingWebhookConfiguration,
        >::all(kube.clone())
        .get("istio-validator-istio-system")
        .await
        .unwrap();
        for entry in validator.metadata.managed_fields.unwrap_or_default() {
            if entry.manager.as_deref() == Some("bosun") {
                let fields = serde_json::to_value(&entry.fields_v1).unwrap();
                let top: Vec<&String> = fields.as_object().unwrap().keys().collect();
                assert_eq!(top, ["f:metadata"], "{fields}");
                let meta: Vec<&String> = fields["f:metadata"].as_object().unwrap().keys().collect();
                assert_eq!(meta, ["f:labels"], "{fields}");
            }
        }

        // The objects carry Helm's markers.
        let istiod = deployments.get("istiod").await.unwrap();
        assert_eq!(
            istiod.metadata.labels.as_ref().unwrap()["app.kubernetes.io/managed-by"],
            "Helm"
        );
        let annotations = istiod.metadata.annotations.clone().unwrap();
        assert_eq!(annotations["meta.helm.sh/release-name"], "istiod");
        assert_eq!(annotations["meta.helm.sh/release-namespace"], NS);

        // The same install again writes no revision.
        let out = bosun(&install);
        succeeded(&out);
        assert!(
            String::from_utf8_lossy(&out.stdout)
                .contains("✔ Helm release istiod in istio-system: revision 1 (unchanged)"),
            "{}",
            text(&out)
        );

        // helm upgrade with the same chart and one value changed: no conflict, and it lands.
        let chart = charts.join("istio-control/istio-discovery");
        let out = helm(&[
            "upgrade",
            "istiod",
            chart.to_str().unwrap(),
            "-n",
            NS,
            "--reuse-values",
            "--set",
            "pilot.env.BOSUN_HELM_TEST=upgraded",
        ]);
        succeeded(&out);
        let env = istiod_env(&deployments).await;
        assert!(
            env.iter()
                .any(|e| e.name == "BOSUN_HELM_TEST" && e.value.as_deref() == Some("upgraded")),
            "helm's upgrade reached the Deployment: {env:?}"
        );
        let history = helm_json(&["history", "istiod", "-n", NS, "-o", "json"]);
        let statuses: Vec<&str> = history
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["status"].as_str().unwrap())
            .collect();
        assert_eq!(statuses, ["superseded", "deployed"], "{history}");

        // istioctl's owner labels survive helm's upgrade (bosun's field manager holds those
        // the charts do not render), so bosun's prune and uninstall still find the objects.
        for (kind, name) in [("Deployment", "istiod"), ("ConfigMap", "istio")] {
            let labels = owner_labels(&kube, kind, name).await;
            for key in [
                "operator.istio.io/managed",
                "operator.istio.io/version",
                "install.operator.istio.io/owning-resource-namespace",
                "istio.io/rev",
                "operator.istio.io/component",
            ] {
                assert!(
                    labels.contains_key(key),
                    "{kind} {name} lost {key}: {labels:?}"
                );
            }
        }
        let out = bosun(&["uninstall", "--revision", "default", "--dry-run"]);
        succeeded(&out);
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("  Deployment istio-system/istiod\n"),
            "{}",
            text(&out)
        );

        // bosun notices helm's revision: the plan says it, by path (never the value).
        let plan = with_inputs(&["plan", "--helm-releases"], &inputs, &[]);
        let out = bosun(&plan);
        succeeded(&out);
        let said = String::from_utf8_lossy(&out.stdout).to_string();
        for line in [
            "Helm release istio-system/istio-base: revision 1 (unchanged)\n",
            "Helm release istio-system/istiod: revision 2 → 3\n",
            "  ❗ helm release istio-system/istiod: revision 2 (deployed, \"Upgrade complete\", at ",
            ") was not written by bosun; bosun wrote revision 1 last; changed since:\n    values.pilot.env.BOSUN_HELM_TEST added\n",
            "  install would undo these changes and refuses",
        ] {
            assert!(said.contains(line), "{line:?} in:\n{said}");
        }
        // (The object changes above the summary show the live Deployment's fields; the
        // release section after it names value paths only.)
        let releases = said
            .split_once("\nPlan: ")
            .map(|(_, r)| r)
            .unwrap_or_default();
        assert!(
            !releases.contains("upgraded"),
            "no value printed:\n{releases}"
        );
        // install --plan plans as helm's field manager: bosun's render is helm's values undone.
        let out = bosun(&with_inputs(
            &["install", "--plan", "--helm-releases"],
            &inputs,
            &[],
        ));
        succeeded(&out);
        let said = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            said.contains("spec.template.spec.containers.[name:discovery].env.[name:BOSUN_HELM_TEST]: {\"name\":\"BOSUN_HELM_TEST\",\"value\":\"upgraded\"} → (absent)")
                && said.contains("Helm release istio-system/istiod: revision 2 → 3\n")
                && !said.contains("conflict"),
            "{said}"
        );
        // With helm's value taken into the IstioOperator, nothing of helm's is undone.
        let taken = with_inputs(
            &[
                "plan",
                "--helm-releases",
                "--set",
                "values.pilot.env.BOSUN_HELM_TEST=upgraded",
            ],
            &inputs,
            &[],
        );
        let out = bosun(&taken);
        succeeded(&out);
        let said = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            said.contains("    values.pilot.env.BOSUN_HELM_TEST added — in this install's values\n  this install's values and chart carry these changes\n"),
            "{said}"
        );

        // install refuses to undo it, before writing anything, and says the two ways on.
        let out = bosun(&install);
        assert!(!out.status.success(), "{}", text(&out));
        let said = text(&out);
        for part in [
            "helm changed releases bosun recorded, and this install would undo it:",
            "values.pilot.env.BOSUN_HELM_TEST added",
            "take helm's changes into your IstioOperator (under spec.values: values.pilot.env.BOSUN_HELM_TEST;",
            "or run it with --force to re-apply bosun's render over helm's, recorded as the next revision (istiod revision 3). Nothing was changed.",
        ] {
            assert!(said.contains(part), "{part:?} in:\n{said}");
        }
        assert!(!said.contains("upgraded"), "no value printed:\n{said}");
        assert_eq!(
            helm_json(&["history", "istiod", "-n", NS, "-o", "json"])
                .as_array()
                .unwrap()
                .len(),
            2,
            "no revision written"
        );
        assert!(
            istiod_env(&deployments)
                .await
                .iter()
                .any(|e| e.name == "BOSUN_HELM_TEST")
        );

        // --force re-applies bosun's render, recorded as bosun's next revision.
        let forced = with_inputs(
            &["install", "-y", "--force", "--helm-releases", "--no-wait"],
            &inputs,
            &[],
        );
        let out = bosun(&forced);
        succeeded(&out);
        assert!(
            String::from_utf8_lossy(&out.stdout)
                .contains("✔ Helm release istiod in istio-system: revision 3\n"),
            "{}",
            text(&out)
        );
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(
                "re-applying bosun's render over it because of --force (recorded as revision 3)"
            ),
            "{}",
            text(&out)
        );
        let history = helm_json(&["history", "istiod", "-n", NS, "-o", "json"]);
        let revisions: Vec<(i64, &str, &str)> = history
            .as_array()
            .unwrap()
            .iter()
            .map(|h| {
                (
                    h["revision"].as_i64().unwrap(),
                    h["status"].as_str().unwrap(),
                    h["description"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            revisions,
            [
                (1, "superseded", "Install complete"),
                (2, "superseded", "Upgrade complete"),
                (3, "deployed", "Upgrade complete")
            ],
            "{history}"
        );
        assert!(
            !istiod_env(&deployments)
                .await
                .iter()
                .any(|e| e.name == "BOSUN_HELM_TEST"),
            "bosun's render re-applied"
        );
        // An install without --helm-releases keeps recording what bosun recorded, and says
        // so; so does a plan.
        let plain = with_inputs(&["install", "-y", "--no-wait"], &inputs, &[]);
        let out = bosun(&plain);
        succeeded(&out);
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(
                "ℹ bosun recorded this install as helm releases (istio-system/istio-base revision 1, istio-system/istiod revision 3): it records them again, as with --helm-releases"
            ) && String::from_utf8_lossy(&out.stdout)
                .contains("✔ Helm release istiod in istio-system: revision 3 (unchanged)\n"),
            "{}",
            text(&out)
        );
        let out = bosun(&with_inputs(&["plan"], &inputs, &[]));
        succeeded(&out);
        assert!(
            String::from_utf8_lossy(&out.stdout)
                .contains("Helm release istio-system/istiod: revision 3 (unchanged)\n"),
            "{}",
            text(&out)
        );
        // --adopt is the way to stop: the plan shows bosun's own releases taken back.
        let out = bosun(&with_inputs(
            &["install", "--plan", "--adopt"],
            &inputs,
            &[],
        ));
        succeeded(&out);
        assert!(
            String::from_utf8_lossy(&out.stdout)
                .contains("Adopt helm release istio-system/istiod (chart istiod-"),
            "{}",
            text(&out)
        );

        // helm upgrade with a patched copy of the chart (same name and version, one template
        // changed): bosun names the template, and install refuses to undo it.
        let patched = std::env::temp_dir().join(testenv::unique_name("helmrel-patched"));
        copy_dir(&chart, &patched);
        let service = patched.join("templates/service.yaml");
        let template = std::fs::read_to_string(&service).unwrap();
        assert!(template.contains("\n    istio: pilot\n"));
        std::fs::write(
            &service,
            template.replacen(
                "\n    istio: pilot\n",
                "\n    istio: pilot\n    bosun-test/patched: \"yes\"\n",
                1,
            ),
        )
        .unwrap();
        succeeded(&helm(&[
            "upgrade",
            "istiod",
            patched.to_str().unwrap(),
            "-n",
            NS,
            "--reuse-values",
        ]));
        let _ = std::fs::remove_dir_all(&patched);
        let out = bosun(&plan);
        succeeded(&out);
        let said = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            said.contains("Helm release istio-system/istiod: revision 4 → 5\n")
                && said.contains("bosun wrote revision 3 last; changed since:\n    chart file templates/service.yaml changed\n    no value changed\n")
                && said.contains("install would undo these changes and refuses: install from charts with helm's changed files (--manifests), or install with --force"),
            "{said}"
        );
        let out = bosun(&plain);
        assert!(!out.status.success(), "{}", text(&out));
        assert!(
            text(&out).contains("render from charts that carry helm's changed chart files (istio-system/istiod: templates/service.yaml;"),
            "{}",
            text(&out)
        );
        assert_eq!(
            helm_json(&["history", "istiod", "-n", NS, "-o", "json"])
                .as_array()
                .unwrap()
                .len(),
            4,
            "no revision written"
        );

        // helm rollback to helm's revision: bosun notices that one too.
        succeeded(&helm(&["rollback", "istiod", "2", "-n", NS]));
        assert!(
            istiod_env(&deployments)
                .await
                .iter()
                .any(|e| e.name == "BOSUN_HELM_TEST" && e.value.as_deref() == Some("upgraded")),
            "rolled back to helm's revision"
        );
        let out = bosun(&plan);
        succeeded(&out);
        let said = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            said.contains("Helm release istio-system/istiod: revision 5 → 6\n")
                && said.contains("revision 5 (deployed, \"Rollback to 2\", at ")
                && said.contains("bosun wrote revision 3 last; changed since:\n    values.pilot.env.BOSUN_HELM_TEST added\n"),
            "{said}"
        );

        // helm rollback to bosun's revision. A rollback applies the revision's stored
        // manifest, an install render: its validator says `failurePolicy: Ignore`, which
        // istiod (field manager pilot-discovery) has switched to Fail since, so a plain
        // rollback conflicts on that field, as it does after a real `helm install` (charts
        // leave the field out only when rendering an upgrade). --force-conflicts takes it, and
        // istiod switches it back.
        succeeded(&helm(&[
            "rollback",
            "istiod",
            "1",
            "-n",
            NS,
            "--force-conflicts",
        ]));
        let env = istiod_env(&deployments).await;
        assert!(
            !env.iter().any(|e| e.name == "BOSUN_HELM_TEST"),
            "rolled back: {env:?}"
        );

        assert_eq!(
            helm_json(&["history", "istiod", "-n", NS, "-o", "json"])
                .as_array()
                .unwrap()
                .len(),
            6
        );

        // helm uninstall of istiod: its objects and records go.
        succeeded(&helm(&["uninstall", "istiod", "-n", NS]));
        assert!(deployments.get_opt("istiod").await.unwrap().is_none());
        let left = secrets
            .list(&ListParams::default().labels("owner=helm,name=istiod"))
            .await
            .unwrap()
            .items;
        assert!(left.is_empty(), "{left:?}");

        // bosun's uninstall removes the release records it wrote.
        let out = bosun(&["uninstall", "--purge", "-y"]);
        succeeded(&out);
        assert!(
            String::from_utf8_lossy(&out.stdout).contains(
                "Helm release record Secret istio-system/sh.helm.release.v1.istio-base.v1"
            ),
            "{}",
            text(&out)
        );
        let list = helm_json(&["list", "-A", "-o", "json"]);
        assert_eq!(list, json!([]), "{list}");
    });
}

/// The operator with `bosun.io/helm-releases: "true"` (`operator run` as a child process, on a
/// minimal IstioOperator with the local images): `helm list` shows `istio-base` and `istiod`
/// deployed, `helm get manifest` holds exactly what `manifest generate --cluster-specific`
/// renders of the IstioOperator; `helm upgrade --reuse-values --set pilot.env.…` of istiod
/// succeeds (no conflict with the operator's manager) and the operator leaves it (the env var
/// stays, the status is ACTION_REQUIRED naming the value path and never the value); with
/// `bosun.io/override-helm-changes: "true"` the operator's render is back as revision 3 (helm's
/// values of revision 1 again, the env var gone); deleting the IstioOperator deletes the
/// records with the objects (`helm list` empty).
#[test]
fn operator_records_helm_releases_that_helm_reads_and_leaves_what_helm_upgraded() {
    use common::operator::{Operator, iop_resource};
    use kube::api::{DynamicObject, Patch, PatchParams};
    let _one = one_at_a_time();
    common::run(async {
        let client = testenv::living_client().await;
        let kube = client.kube().clone();
        fresh(&kube).await;
        let deployments: Api<Deployment> = Api::namespaced(kube.clone(), NS);

        // The IstioOperator CRD, as `operator dump` gives it (the operator runs here as a
        // child process, not from its Deployment).
        let dump = bosun(&["operator", "dump"]);
        succeeded(&dump);
        let crd: Vec<Value> = manifest::diff::read_objects("dump", &common::stdout(&dump))
            .unwrap()
            .iter()
            .filter(|o| o.kind() == "CustomResourceDefinition")
            .map(|o| o.value().clone())
            .collect();
        client.apply(&crd, "living-test", true).await.unwrap();
        let ns = testenv::unique_name("helm-iop");
        client
            .apply(
                &[json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})],
                "living-test",
                false,
            )
            .await
            .unwrap();
        let iops: Api<DynamicObject> = Api::namespaced_with(kube.clone(), &ns, &iop_resource());
        let living = testenv::living();
        let resource = json!({
            "apiVersion": "install.istio.io/v1alpha1", "kind": "IstioOperator",
            "metadata": {"name": "helm", "namespace": ns,
                         "annotations": {"bosun.io/helm-releases": "true"}},
            "spec": {"profile": "minimal", "hub": living.hub, "tag": living.tag}
        });
        let iop: DynamicObject = serde_json::from_value(resource.clone()).unwrap();
        wait_until(
            "the IstioOperator CRD served",
            Duration::from_secs(60),
            || async { iops.create(&PostParams::default(), &iop).await.ok() },
        )
        .await;
        let operator = Operator::start_with(kubeconfig(), &ns, &[]);
        let status = || async {
            iops.get("helm")
                .await
                .ok()
                .map(|i| i.data["status"].clone())
                .unwrap_or(Value::Null)
        };
        let until = |what: &'static str, check: fn(&Value) -> bool| {
            let operator = &operator;
            async move {
                let deadline = std::time::Instant::now() + Duration::from_secs(150);
                loop {
                    let s = status().await;
                    if check(&s) {
                        return s;
                    }
                    assert!(
                        std::time::Instant::now() < deadline,
                        "{what}: {s}\noperator log:\n{}",
                        operator.log()
                    );
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
            }
        };
        until("HEALTHY", |s| s["status"] == "HEALTHY").await;

        // helm list: both releases deployed, with the charts' versions.
        let charts: PathBuf = common::manifests_dir().join("charts");
        let list = helm_json(&["list", "-n", NS, "-o", "json"]);
        let mut seen: Vec<(String, String, String)> = list
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["name"].as_str().unwrap().to_string(),
                    r["status"].as_str().unwrap().to_string(),
                    r["chart"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        seen.sort();
        let (base_version, _) = chart_versions(&charts.join("base"));
        let (istiod_version, _) = chart_versions(&charts.join("istio-control/istio-discovery"));
        assert_eq!(
            seen,
            [
                (
                    "istio-base".into(),
                    "deployed".into(),
                    format!("base-{base_version}")
                ),
                (
                    "istiod".into(),
                    "deployed".into(),
                    format!("istiod-{istiod_version}")
                ),
            ],
            "{list}"
        );

        // helm get manifest: what the operator rendered, document for document.
        let file = std::env::temp_dir().join(format!("{ns}.json"));
        std::fs::write(&file, resource.to_string()).unwrap();
        let out = bosun(&[
            "manifest",
            "generate",
            "--cluster-specific",
            "-f",
            file.to_str().unwrap(),
        ]);
        let _ = std::fs::remove_file(&file);
        succeeded(&out);
        helm_manifests_are(&String::from_utf8_lossy(&out.stdout));

        // helm upgrade of istiod: no conflict, it lands, and the operator leaves it.
        let out = helm(&[
            "upgrade",
            "istiod",
            charts
                .join("istio-control/istio-discovery")
                .to_str()
                .unwrap(),
            "-n",
            NS,
            "--reuse-values",
            "--set",
            "pilot.env.BOSUN_HELM_TEST=upgraded",
        ]);
        succeeded(&out);
        let has_env = || async {
            istiod_env(&deployments)
                .await
                .iter()
                .any(|e| e.name == "BOSUN_HELM_TEST" && e.value.as_deref() == Some("upgraded"))
        };
        assert!(has_env().await, "helm's upgrade reached the Deployment");
        let held = until("ACTION_REQUIRED after helm's upgrade", |s| {
            s["status"] == "ACTION_REQUIRED"
        })
        .await;
        let message = held["message"].as_str().unwrap();
        assert!(
            message.contains(
                "helm release istio-system/istiod: revision 2 (deployed, \"Upgrade complete\""
            ) && message.contains("values.pilot.env.BOSUN_HELM_TEST added")
                && !message.contains("upgraded"),
            "{message}"
        );
        // Its drift repairs after the upgrade (istiod rolls out) leave it.
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert!(
            has_env().await,
            "the operator undid helm's upgrade:\n{}",
            operator.log()
        );
        assert_eq!(
            helm_json(&["history", "istiod", "-n", NS, "-o", "json"])
                .as_array()
                .unwrap()
                .len(),
            2
        );

        // The override: the operator's render is back as revision 3.
        iops.patch(
            "helm",
            &PatchParams::default(),
            &Patch::Merge(
                json!({"metadata": {"annotations": {"bosun.io/override-helm-changes": "true"}}}),
            ),
        )
        .await
        .unwrap();
        // (Revision 3 is written before revision 2 becomes superseded, as helm writes them.)
        let statuses = |h: &Value| -> Vec<String> {
            h.as_array()
                .unwrap()
                .iter()
                .map(|h| h["status"].as_str().unwrap().to_string())
                .collect()
        };
        wait_until("revision 3 deployed", Duration::from_secs(120), || async {
            let h = helm_json(&["history", "istiod", "-n", NS, "-o", "json"]);
            (statuses(&h) == ["superseded", "superseded", "deployed"]).then_some(h)
        })
        .await;
        assert_eq!(
            helm_json(&["get", "values", "istiod", "-n", NS, "-o", "json"]),
            helm_json(&[
                "get",
                "values",
                "istiod",
                "-n",
                NS,
                "--revision",
                "1",
                "-o",
                "json"
            ]),
        );
        assert!(!has_env().await, "the render is back");

        // Deleting the IstioOperator deletes its records with its objects.
        iops.delete("helm", &DeleteParams::default()).await.unwrap();
        wait_until(
            "the IstioOperator gone",
            Duration::from_secs(120),
            || async { iops.get_opt("helm").await.unwrap().is_none().then_some(()) },
        )
        .await;
        let list = helm_json(&["list", "-n", NS, "-o", "json"]);
        assert_eq!(list, json!([]), "{list}");
        assert!(deployments.get_opt("istiod").await.unwrap().is_none());
        drop(operator);
        let namespaces: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(kube.clone());
        let _ = namespaces.delete(&ns, &DeleteParams::default()).await;
    });
}
