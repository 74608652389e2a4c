//! Ownership labels, prune and `bosun uninstall` against the real test control
//! plane (`scripts/testenv`). No kubelet or controllers run there: tests that wait for readiness
//! set each Deployment's and DaemonSet's status themselves (a helper task patches the status
//! subresource as the workloads appear); the minimal-profile tests use `--no-wait`.
//!
//! Isolation: each test installs into a namespace of its own (`values.global.istioNamespace`),
//! so its owner labels (`owning-resource-namespace`) differ from every other test's, and prune
//! or `uninstall --revision` in one test never selects another's objects. `uninstall --purge`
//! removes every Istio-owned object in the cluster, CRDs included, so the purge test takes
//! [`CLUSTER`] exclusively while the other tests here hold it shared: it never runs alongside
//! them. The CRDs are shared by all installs (each install relabels them with its own owner
//! labels), so the test that checks a re-install changes nothing takes it exclusively too.
//! (Tests in other files run in other processes, one after another.)

mod common;

use common::{exclusive, release_version, run, shared, stdout, succeeded, text, totals};
use std::collections::BTreeMap;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use cluster::testenv;
use k8s_openapi::api::apps::v1::{DaemonSet, Deployment};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Service, ServiceAccount};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Api;
use kube::api::{ListParams, Patch, PatchParams};

use common::manifests_dir as manifests;

fn bosun_command(command: &str, args: &[&str]) -> Command {
    let mut c = common::bosun_command(testenv::kubeconfig(), &[command]);
    c.args(args);
    c
}

/// Runs `bosun COMMAND ARGS` to the end without blocking the runtime.
async fn bosun(command: &str, args: &[&str]) -> Output {
    testkit::output(bosun_command(command, args)).await
}

fn labels_of(
    meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
) -> BTreeMap<String, String> {
    meta.labels.clone().unwrap_or_default()
}

/// The owner labels istioctl sets, for component `component` of an install into `ns`.
fn assert_owner_labels(
    what: &str,
    labels: &BTreeMap<String, String>,
    ns: &str,
    revision: &str,
    component: &str,
) {
    let version = release_version();
    let want = [
        ("operator.istio.io/managed", "Reconcile"),
        ("operator.istio.io/version", version.as_str()),
        ("install.operator.istio.io/owning-resource-namespace", ns),
        ("istio.io/rev", revision),
        ("operator.istio.io/component", component),
    ];
    for (k, v) in want {
        assert_eq!(
            labels.get(k).map(String::as_str),
            Some(v),
            "{what}: label {k} in {labels:?}"
        );
    }
    // The IstioOperator has no name, so istioctl adds no owning-resource label; the charts' own
    // `install.operator.istio.io/owning-resource: unknown` stays as rendered.
}

async fn unowned_config_map(client: &cluster::Client, ns: &str) {
    client
        .apply(
            &[serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "not-istio", "namespace": ns}, "data": {"k": "v"}})],
            "someone-else",
            false,
        )
        .await
        .unwrap();
}

#[test]
fn default_profile_reinstalls_unchanged_then_prunes_a_disabled_gateway() {
    // Exclusive: the CRDs are shared by every install, and another test's install relabels
    // them (its owning namespace and revision), which would make "unchanged" untrue.
    let _exclusive = exclusive();
    run(async {
        let ns = testenv::unique_name("istio-prune");
        let client = testenv::client().await;
        let manifests = manifests().display().to_string();
        let set_ns = format!("values.global.istioNamespace={ns}");
        let args = [
            "--set",
            &set_ns,
            "-y",
            "--readiness-timeout",
            "60s",
            "--manifests",
            &manifests,
        ];
        let ready = testenv::make_workloads_ready(&client, Some(&ns));

        let first = bosun("install", &args).await;
        succeeded(&first);
        let deployments: Api<Deployment> = Api::namespaced(client.kube().clone(), &ns);
        let istiod = deployments.get("istiod").await.unwrap();
        assert_owner_labels(
            "istiod",
            &labels_of(&istiod.metadata),
            &ns,
            "default",
            "Pilot",
        );
        let gateway = deployments.get("istio-ingressgateway").await.unwrap();
        assert_owner_labels(
            "gateway",
            &labels_of(&gateway.metadata),
            &ns,
            "default",
            "IngressGateways",
        );
        let crds: Api<CustomResourceDefinition> = Api::all(client.kube().clone());
        let crd = crds
            .get("virtualservices.networking.istio.io")
            .await
            .unwrap();
        assert_eq!(
            labels_of(&crd.metadata)["operator.istio.io/component"],
            "Base"
        );

        // No installed state: istioctl stopped writing it in 1.21, and nothing of bosun reads it.
        let config_maps: Api<ConfigMap> = Api::namespaced(client.kube().clone(), &ns);
        assert!(
            config_maps
                .get_opt("installed-state")
                .await
                .unwrap()
                .is_none()
        );

        unowned_config_map(&client, &ns).await;
        // Kept from prune by its label, though its gateway goes.
        let accounts: Api<ServiceAccount> = Api::namespaced(client.kube().clone(), &ns);
        let keep = serde_json::json!({"metadata": {"labels": {"install.operator.istio.io/owning-resource-not-pruned": "true"}}});
        accounts
            .patch(
                "istio-ingressgateway-service-account",
                &PatchParams::default(),
                &Patch::Merge(&keep),
            )
            .await
            .unwrap();

        let again = bosun("install", &args).await;
        succeeded(&again);
        let (created, configured, unchanged) = totals(&again);
        assert_eq!((created, configured), (0, 0), "{}", text(&again));
        assert!(unchanged > 0);
        assert!(!stdout(&again).contains("Removed"), "{}", text(&again));
        assert_eq!(
            deployments
                .get("istiod")
                .await
                .unwrap()
                .metadata
                .resource_version,
            istiod.metadata.resource_version
        );

        let dir = std::env::temp_dir().join(testenv::unique_name("iop"));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("no-gateway.yaml");
        std::fs::write(
            &file,
            "apiVersion: install.istio.io/v1alpha1\nkind: IstioOperator\nspec:\n  components:\n    ingressGateways:\n    - name: istio-ingressgateway\n      enabled: false\n",
        )
        .unwrap();
        let file = file.display().to_string();
        let mut without_gateway = args.to_vec();
        without_gateway.extend(["-f", &file]);
        // The plan shows the prune to come, and changes nothing.
        let plan_args = ["--set", &set_ns, "--manifests", &manifests, "-f", &file];
        let plan = bosun("plan", &plan_args).await;
        succeeded(&plan);
        for doomed in [
            format!("- Deployment {ns}/istio-ingressgateway (delete)"),
            format!("- Service {ns}/istio-ingressgateway (delete)"),
        ] {
            assert!(stdout(&plan).contains(&doomed), "{doomed}\n{}", text(&plan));
        }
        assert!(
            !stdout(&plan).contains("istio-ingressgateway-service-account (delete)"),
            "the not-pruned label keeps it: {}",
            text(&plan)
        );
        assert!(
            deployments
                .get_opt("istio-ingressgateway")
                .await
                .unwrap()
                .is_some()
        );

        let third = bosun("install", &without_gateway).await;
        ready.abort();
        succeeded(&third);
        let out = stdout(&third);
        for removed in [
            format!("  Removed Deployment {ns}/istio-ingressgateway."),
            format!("  Removed Service {ns}/istio-ingressgateway."),
        ] {
            assert!(out.contains(&removed), "{removed}\n{}", text(&third));
        }
        assert!(out.contains(" pruned)"), "{}", text(&third));
        assert!(
            deployments
                .get_opt("istio-ingressgateway")
                .await
                .unwrap()
                .is_none()
        );
        let services: Api<Service> = Api::namespaced(client.kube().clone(), &ns);
        assert!(
            services
                .get_opt("istio-ingressgateway")
                .await
                .unwrap()
                .is_none()
        );
        assert!(deployments.get_opt("istiod").await.unwrap().is_some());
        assert!(
            accounts
                .get_opt("istio-ingressgateway-service-account")
                .await
                .unwrap()
                .is_some()
        );
        assert!(config_maps.get_opt("not-istio").await.unwrap().is_some());
        // Nothing left to prune.
        let fourth = bosun("install", &without_gateway).await;
        succeeded(&fourth);
        assert!(!stdout(&fourth).contains("Removed"), "{}", text(&fourth));
        let _ = std::fs::remove_dir_all(&dir);
    });
}

#[test]
fn ambient_profile_with_a_revision_installs_ready_then_uninstalls_by_revision() {
    let _shared = shared();
    run(async {
        let ns = testenv::unique_name("istio-amb");
        let revision = testenv::unique_name("amb");
        let client = testenv::client().await;
        let manifests = manifests().display().to_string();
        let set_ns = format!("values.global.istioNamespace={ns}");
        let ready = testenv::make_workloads_ready(&client, Some(&ns));
        let out = bosun(
            "install",
            &[
                "--set",
                "profile=ambient",
                "--set",
                &set_ns,
                "--revision",
                &revision,
                "-y",
                "--readiness-timeout",
                "60s",
                "--manifests",
                &manifests,
            ],
        )
        .await;
        ready.abort();
        succeeded(&out);
        for line in [
            "✔ CNI installed",
            "✔ Ztunnel installed",
            "✔ Istiod installed",
        ] {
            assert!(stdout(&out).contains(line), "{line}\n{}", text(&out));
        }
        let daemonsets: Api<DaemonSet> = Api::namespaced(client.kube().clone(), &ns);
        let ztunnel = daemonsets.get("ztunnel").await.unwrap();
        assert_owner_labels(
            "ztunnel",
            &labels_of(&ztunnel.metadata),
            &ns,
            &revision,
            "Ztunnel",
        );
        let cni = daemonsets.get("istio-cni-node").await.unwrap();
        assert_owner_labels("cni", &labels_of(&cni.metadata), &ns, &revision, "Cni");
        let config_maps: Api<ConfigMap> = Api::namespaced(client.kube().clone(), &ns);
        let state_name = format!("installed-state-{revision}");
        assert!(config_maps.get_opt(&state_name).await.unwrap().is_none());
        unowned_config_map(&client, &ns).await;

        let uninstall_args = [
            "--revision",
            &revision,
            "--set",
            &set_ns,
            "--manifests",
            &manifests,
        ];
        // Without a terminal and without -y it refuses, and removes nothing.
        let refused = bosun("uninstall", &uninstall_args).await;
        assert!(!refused.status.success(), "{}", text(&refused));
        assert!(
            String::from_utf8_lossy(&refused.stderr).contains("pass -y"),
            "{}",
            text(&refused)
        );
        assert!(
            stdout(&refused).contains(&format!("Deployment {ns}/istiod")),
            "{}",
            text(&refused)
        );
        assert!(daemonsets.get_opt("ztunnel").await.unwrap().is_some());

        let mut yes = uninstall_args.to_vec();
        yes.push("-y");
        let out = bosun("uninstall", &yes).await;
        succeeded(&out);
        let listed = stdout(&out);
        assert!(
            listed.contains(&format!("  Removed DaemonSet {ns}/ztunnel.")),
            "{}",
            text(&out)
        );
        assert!(listed.contains("✔ Uninstall complete"), "{}", text(&out));
        let deployments: Api<Deployment> = Api::namespaced(client.kube().clone(), &ns);
        assert!(deployments.get_opt("istiod").await.unwrap().is_none());
        assert!(daemonsets.get_opt("ztunnel").await.unwrap().is_none());
        assert!(
            daemonsets
                .get_opt("istio-cni-node")
                .await
                .unwrap()
                .is_none()
        );
        assert!(config_maps.get_opt(&state_name).await.unwrap().is_none());
        assert!(config_maps.get_opt("not-istio").await.unwrap().is_some());
        // Base stays for the other revisions: its service account and the CRDs.
        let accounts: Api<ServiceAccount> = Api::namespaced(client.kube().clone(), &ns);
        assert!(
            accounts
                .get_opt("istio-reader-service-account")
                .await
                .unwrap()
                .is_some()
        );
        let crds: Api<CustomResourceDefinition> = Api::all(client.kube().clone());
        assert!(
            crds.get_opt("virtualservices.networking.istio.io")
                .await
                .unwrap()
                .is_some()
        );

        // Gone: a second uninstall finds nothing, and says the revision is not there.
        let again = bosun("uninstall", &yes).await;
        assert!(!again.status.success(), "{}", text(&again));
        assert!(
            String::from_utf8_lossy(&again.stderr).contains("could not find target revision"),
            "{}",
            text(&again)
        );
    });
}

#[test]
fn install_killed_midway_then_rerun_converges() {
    // Exclusive: its last install must change nothing, and another test's install relabels
    // the shared CRDs (their owning namespace and revision).
    let _exclusive = exclusive();
    run(async {
        let ns = testenv::unique_name("istio-kill");
        let client = testenv::client().await;
        let manifests = manifests().display().to_string();
        let set_ns = format!("values.global.istioNamespace={ns}");
        let args = [
            "--set",
            "profile=minimal",
            "--set",
            &set_ns,
            "-y",
            "--no-wait",
            "--manifests",
            &manifests,
        ];
        let mut child = bosun_command("install", &args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Kill it once it has started writing: its namespace exists.
        let namespaces: Api<Namespace> = Api::all(client.kube().clone());
        let deadline = Instant::now() + Duration::from_secs(60);
        while namespaces.get_opt(&ns).await.unwrap().is_none() {
            assert!(
                child.try_wait().unwrap().is_none(),
                "{}",
                text(&child.wait_with_output().unwrap())
            );
            assert!(Instant::now() < deadline, "the namespace never appeared");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "bosun finished before it could be killed"
        );
        child.kill().unwrap();
        let killed = child.wait_with_output().unwrap();
        assert!(!killed.status.success());
        let deployments: Api<Deployment> = Api::namespaced(client.kube().clone(), &ns);
        assert!(
            deployments.get_opt("istiod").await.unwrap().is_none(),
            "killed after istiod was applied: not mid-way\n{}",
            text(&killed)
        );

        let rerun = bosun("install", &args).await;
        succeeded(&rerun);
        assert!(deployments.get_opt("istiod").await.unwrap().is_some());
        let settled = bosun("install", &args).await;
        succeeded(&settled);
        let (created, configured, _) = totals(&settled);
        assert_eq!((created, configured), (0, 0), "{}", text(&settled));
    });
}

#[test]
fn purge_removes_every_owned_object_and_leaves_unowned_ones() {
    let _exclusive = exclusive();
    run(async {
        let ns = testenv::unique_name("istio-purge");
        let client = testenv::client().await;
        let manifests = manifests().display().to_string();
        let set_ns = format!("values.global.istioNamespace={ns}");
        let install = bosun(
            "install",
            &[
                "--set",
                "profile=minimal",
                "--set",
                &set_ns,
                "-y",
                "--no-wait",
                "--manifests",
                &manifests,
            ],
        )
        .await;
        succeeded(&install);
        unowned_config_map(&client, &ns).await;
        // A revision tag as `tag set` makes one: labelled istio.io/tag, no component label.
        // istioctl's purge leaves it (and its injector then blocks pods); bosun's removes it.
        let user_tag = testenv::unique_name("purge-tag");
        client
            .apply(
                &[
                    serde_json::json!({"apiVersion": "admissionregistration.k8s.io/v1",
                    "kind": "MutatingWebhookConfiguration",
                    "metadata": {"name": format!("istio-revision-tag-{user_tag}"),
                        "labels": {"istio.io/tag": user_tag, "istio.io/rev": "default",
                                   "app": "sidecar-injector"}},
                    "webhooks": [{"name": "rev.namespace.sidecar-injector.istio.io",
                        "clientConfig": {"url": "https://127.0.0.1:1/inject"},
                        "sideEffects": "None", "admissionReviewVersions": ["v1"],
                        "namespaceSelector": {"matchLabels": {"istio.io/rev": user_tag}},
                        "rules": [{"apiGroups": [""], "apiVersions": ["v1"],
                            "operations": ["CREATE"], "resources": ["pods"]}]}]}),
                ],
                "istioctl",
                false,
            )
            .await
            .unwrap();

        let dry = bosun("uninstall", &["--purge", "--dry-run"]).await;
        succeeded(&dry);
        let listed = stdout(&dry);
        assert!(
            listed.contains("All Istio resources will be pruned from the cluster"),
            "{}",
            text(&dry)
        );
        assert!(
            listed.contains(&format!("  Deployment {ns}/istiod")),
            "{}",
            text(&dry)
        );
        assert!(
            listed.contains("  CustomResourceDefinition virtualservices.networking.istio.io"),
            "{}",
            text(&dry)
        );
        assert!(!listed.contains("not-istio"), "{}", text(&dry));
        assert!(
            listed.contains(&format!(
                "  MutatingWebhookConfiguration istio-revision-tag-{user_tag}"
            )),
            "{}",
            text(&dry)
        );
        let deployments: Api<Deployment> = Api::namespaced(client.kube().clone(), &ns);
        assert!(
            deployments.get_opt("istiod").await.unwrap().is_some(),
            "the dry run deleted"
        );

        let out = bosun("uninstall", &["--purge", "-y"]).await;
        // Every tag went, the shared control plane's placeholder default tag too: back with it
        // before the tests waiting for this one go on.
        testenv::hold_default_tag_again();
        succeeded(&out);
        assert!(
            stdout(&out).contains("✔ Uninstall complete"),
            "{}",
            text(&out)
        );

        // Nothing with a component label is left, in any namespace, of any pruned kind.
        let selector = "operator.istio.io/component";
        for k in cluster::PRUNED_KINDS {
            let gvk = kube::core::GroupVersionKind::gvk(k.group, k.version, k.kind);
            let Ok((ar, _)) = kube::discovery::pinned_kind(client.kube(), &gvk).await else {
                continue;
            };
            let api: Api<kube::api::DynamicObject> = Api::all_with(client.kube().clone(), &ar);
            let left: Vec<String> = api
                .list(&ListParams::default().labels(selector))
                .await
                .unwrap()
                .items
                .into_iter()
                // A deleted CRD lingers while the API server removes its custom resources.
                .filter(|o| o.metadata.deletion_timestamp.is_none())
                .map(|o| {
                    format!(
                        "{} {:?}/{:?}",
                        k.kind, o.metadata.namespace, o.metadata.name
                    )
                })
                .collect();
            assert!(left.is_empty(), "left after purge: {left:?}");
        }
        let webhooks: Api<
            k8s_openapi::api::admissionregistration::v1::MutatingWebhookConfiguration,
        > = Api::all(client.kube().clone());
        assert!(
            webhooks
                .get_opt(&format!("istio-revision-tag-{user_tag}"))
                .await
                .unwrap()
                .is_none(),
            "the user's tag survived the purge"
        );
        let config_maps: Api<ConfigMap> = Api::namespaced(client.kube().clone(), &ns);
        assert!(config_maps.get_opt("not-istio").await.unwrap().is_some());
        assert!(
            config_maps
                .get_opt("installed-state")
                .await
                .unwrap()
                .is_none()
        );
        let namespaces: Api<Namespace> = Api::all(client.kube().clone());
        assert!(namespaces.get_opt(&ns).await.unwrap().is_some());

        // Before other tests install again: the CRDs must be gone, not terminating.
        let crds: Api<CustomResourceDefinition> = Api::all(client.kube().clone());
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let istio: Vec<String> = crds
                .list(&ListParams::default().labels(selector))
                .await
                .unwrap()
                .items
                .into_iter()
                .filter_map(|c| c.metadata.name)
                .collect();
            if istio.is_empty() {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "CRDs still there after purge: {istio:?}"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    });
}

#[test]
fn named_istio_operator_is_owner_and_uninstalls_by_file() {
    let _shared = shared();
    run(async {
        let ns = testenv::unique_name("istio-named");
        let name = testenv::unique_name("cp");
        // A revision of its own: an install of the revision `default` would make itself the
        // default tag, and on the shared control plane (whose placeholder default tag also
        // points at `default`) its uninstall would then be refused as in use unless another
        // test's istiod of `default` happened to run elsewhere. That refusal is tested in
        // revisions.rs.
        let revision = testenv::unique_name("named");
        let istiod_name = format!("istiod-{revision}");
        let client = testenv::client().await;
        let manifests = manifests().display().to_string();
        let dir = std::env::temp_dir().join(testenv::unique_name("iop"));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("named.yaml");
        std::fs::write(
            &file,
            format!("apiVersion: install.istio.io/v1alpha1\nkind: IstioOperator\nmetadata:\n  name: {name}\nspec:\n  profile: minimal\n  revision: {revision}\n  values:\n    global:\n      istioNamespace: {ns}\n"),
        )
        .unwrap();
        let file = file.display().to_string();
        let out = bosun(
            "install",
            &["-f", &file, "-y", "--no-wait", "--manifests", &manifests],
        )
        .await;
        succeeded(&out);
        let deployments: Api<Deployment> = Api::namespaced(client.kube().clone(), &ns);
        let istiod = deployments.get(&istiod_name).await.unwrap();
        let labels = labels_of(&istiod.metadata);
        assert_eq!(labels["install.operator.istio.io/owning-resource"], name);
        assert_eq!(
            labels["install.operator.istio.io/owning-resource-namespace"],
            ns
        );
        let config_maps: Api<ConfigMap> = Api::namespaced(client.kube().clone(), &ns);
        let state_name = format!("installed-state-{name}");
        assert!(config_maps.get_opt(&state_name).await.unwrap().is_none());

        let dry = bosun(
            "uninstall",
            &["-f", &file, "--dry-run", "--manifests", &manifests],
        )
        .await;
        succeeded(&dry);
        assert!(
            stdout(&dry).contains(&format!("  Deployment {ns}/{istiod_name}")),
            "{}",
            text(&dry)
        );
        assert!(
            stdout(&dry).contains("Dry run: nothing was removed."),
            "{}",
            text(&dry)
        );
        assert!(deployments.get_opt(&istiod_name).await.unwrap().is_some());

        let out = bosun("uninstall", &["-f", &file, "-y", "--manifests", &manifests]).await;
        succeeded(&out);
        assert!(
            stdout(&out).contains(&format!("  Removed Deployment {ns}/{istiod_name}.")),
            "{}",
            text(&out)
        );
        assert!(deployments.get_opt(&istiod_name).await.unwrap().is_none());
        assert!(config_maps.get_opt(&state_name).await.unwrap().is_none());
        let accounts: Api<ServiceAccount> = Api::namespaced(client.kube().clone(), &ns);
        assert!(
            accounts
                .get_opt("istio-reader-service-account")
                .await
                .unwrap()
                .is_some()
        );

        // Nothing of it is left: istioctl's message, and success.
        let again = bosun("uninstall", &["-f", &file, "-y", "--manifests", &manifests]).await;
        succeeded(&again);
        assert!(
            stdout(&again).contains("No resources will be pruned from the cluster. Please double check the input configs"),
            "{}",
            text(&again)
        );
        let _ = std::fs::remove_dir_all(&dir);
    });
}

/// Helm release record Secrets bosun wrote in `ns`, by name.
async fn record_secrets(client: &cluster::Client, ns: &str) -> Vec<String> {
    let secrets: Api<k8s_openapi::api::core::v1::Secret> =
        Api::namespaced(client.kube().clone(), ns);
    let selector = format!(
        "owner={},{}=true",
        helmrelease::OWNER,
        vocab::labels::HELM_RELEASE_RECORD_LABEL
    );
    let mut names: Vec<String> = secrets
        .list(&ListParams::default().labels(&selector))
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|s| s.metadata.name)
        .collect();
    names.sort();
    names
}

/// A plain `uninstall` (no `--helm-releases`) removes the records bosun wrote of what it
/// removes, as a plain install keeps recording: left, helm would list releases whose objects
/// are gone. Base's record stays with Base, which a revision's uninstall leaves.
#[test]
fn a_plain_uninstall_removes_the_helm_release_records_bosun_wrote() {
    // Exclusive, and purged at the end: recording makes manager `helm` co-own the shared
    // CRDs' labels, which the other tests' plain installs would then conflict with.
    let _exclusive = exclusive();
    run(async {
        let ns = testenv::unique_name("istio-rec");
        let revision = testenv::unique_name("rec");
        let client = testenv::client().await;
        let manifests = manifests().display().to_string();
        let set_ns = format!("values.global.istioNamespace={ns}");
        let out = bosun(
            "install",
            &[
                "--set",
                "profile=minimal",
                "--set",
                &set_ns,
                "--revision",
                &revision,
                "--helm-releases",
                "--no-wait",
                "-y",
                "--manifests",
                &manifests,
            ],
        )
        .await;
        succeeded(&out);
        let before = record_secrets(&client, &ns).await;
        let istiod = format!("sh.helm.release.v1.istiod-{revision}.v1");
        assert!(before.contains(&istiod), "{before:?}\n{}", text(&out));
        assert!(
            before.contains(&"sh.helm.release.v1.istio-base.v1".to_string()),
            "{before:?}"
        );

        let out = bosun(
            "uninstall",
            &["--revision", &revision, "--set", &set_ns, "-y"],
        )
        .await;
        succeeded(&out);
        assert!(
            stdout(&out).contains(&format!(
                "  Helm release record Secret {ns}/{istiod} (release istiod-{revision}, revision 1)"
            )),
            "{}",
            text(&out)
        );
        assert_eq!(
            record_secrets(&client, &ns).await,
            ["sh.helm.release.v1.istio-base.v1"]
        );
        succeeded(&bosun("uninstall", &["--purge", "-y"]).await);
        assert!(record_secrets(&client, &ns).await.is_empty());
    });
}
