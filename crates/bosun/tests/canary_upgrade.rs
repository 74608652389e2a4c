//! Upgrading Istio the two ways users do, across two Istio versions the module proxy serves
//! (`scripts/fetch-istio --previous`, then the pin), each on a fresh API server of its own
//! (`testenv::Private`: revision tags are cluster-wide):
//! - by canary: the older version installed as revision `old` with a tag `prod`, the pinned
//!   one as revision `new`, `prod` (and the default tag) moved to `new`, then `old` removed,
//!   which is refused while a tag still points at it;
//! - in place: `upgrade` of an install without revision from the older charts to the pinned
//!   ones, every object then as the pinned charts render it, and what they no longer render
//!   pruned.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use cluster::testenv;
use common::{bosun_at as bosun, succeeded, text};
use k8s_openapi::api::admissionregistration::v1::MutatingWebhookConfiguration;
use k8s_openapi::api::apps::v1::Deployment;
use kube::Api;
use kube::api::ListParams;

fn previous_manifests() -> String {
    let out = Command::new(common::repo_root().join("scripts/fetch-istio"))
        .arg("--previous")
        .output()
        .expect("running scripts/fetch-istio --previous");
    assert!(out.status.success(), "{}", text(&out));
    Path::new(String::from_utf8_lossy(&out.stdout).trim())
        .join("manifests")
        .display()
        .to_string()
}

/// The services the webhooks of the MutatingWebhookConfiguration `name` call.
async fn called_services(client: &cluster::Client, name: &str) -> Vec<String> {
    let api: Api<MutatingWebhookConfiguration> = Api::all(client.kube().clone());
    let mwc = api.get(name).await.unwrap();
    mwc.webhooks
        .unwrap_or_default()
        .into_iter()
        .filter_map(|w| w.client_config.service.map(|s| s.name))
        .collect()
}

/// Every object labelled `istio.io/rev=<revision>`, by kind and name, with its
/// resourceVersion: what "untouched" is checked against.
async fn revision_objects(client: &cluster::Client, revision: &str) -> BTreeMap<String, String> {
    let discovery = kube::Discovery::new(client.kube().clone())
        .run()
        .await
        .unwrap();
    let selector = format!("istio.io/rev={revision}");
    let mut out = BTreeMap::new();
    for group in discovery.groups() {
        for (resource, caps) in group.recommended_resources() {
            // ReplicaSets and EndpointSlices are the readiness helper's (no controllers run).
            if !caps.supports_operation(kube::discovery::verbs::LIST)
                || ["ReplicaSet", "EndpointSlice"].contains(&resource.kind.as_str())
            {
                continue;
            }
            let api: Api<kube::api::DynamicObject> =
                Api::all_with(client.kube().clone(), &resource);
            let Ok(list) = api.list(&ListParams::default().labels(&selector)).await else {
                continue;
            };
            for o in list.items {
                out.insert(
                    format!(
                        "{} {}/{}",
                        resource.kind,
                        o.metadata.namespace.unwrap_or_default(),
                        o.metadata.name.unwrap_or_default()
                    ),
                    o.metadata.resource_version.unwrap_or_default(),
                );
            }
        }
    }
    out
}

#[test]
fn canary_upgrade_with_revision_tags() {
    let old_charts = previous_manifests();
    let new_charts = common::manifests();
    let server = testenv::Private::start("canary");
    let kc = server.kubeconfig();
    common::run(async {
        let client = server.client().await;
        let ready = testenv::make_workloads_ready(&client, None);

        // The older version as revision `old`, tagged `prod`; a namespace uses the tag.
        let install = |charts: &str, revision: &str| {
            bosun(
                kc,
                &[
                    "install",
                    "-y",
                    "-d",
                    charts,
                    "--set",
                    "profile=minimal",
                    "--revision",
                    revision,
                ],
            )
        };
        succeeded(&install(&old_charts, "old"));
        let made = bosun(kc, &["tag", "set", "prod", "--revision", "old"]);
        succeeded(&made);
        assert!(
            String::from_utf8_lossy(&made.stdout).starts_with("Revision tag \"prod\" created,"),
            "{}",
            text(&made)
        );
        client
            .apply(
                &[serde_json::json!({"apiVersion": "v1", "kind": "Namespace",
                    "metadata": {"name": "apps", "labels": {"istio.io/rev": "prod"}}})],
                "kubectl",
                false,
            )
            .await
            .unwrap();
        assert_eq!(
            called_services(&client, "istio-revision-tag-prod").await[0],
            "istiod-old"
        );
        // The first install made itself the default.
        assert_eq!(
            called_services(&client, "istio-revision-tag-default").await[0],
            "istiod-old"
        );

        // The pinned version beside it, as revision `new`: the tags stay where they are.
        succeeded(&install(&new_charts, "new"));
        assert_eq!(
            called_services(&client, "istio-revision-tag-prod").await[0],
            "istiod-old"
        );
        let list = bosun(kc, &["tag", "list"]);
        succeeded(&list);
        let listed = String::from_utf8_lossy(&list.stdout).into_owned();
        assert!(
            listed
                .lines()
                .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["prod", "old", "apps"]),
            "{listed}"
        );

        // `old` cannot go while the tag `prod` points at it and a namespace uses that tag, nor
        // while the default tag its own install made points at it: that one would be deleted
        // with it while `new` stays, leaving `new` without a default tag.
        let refused = bosun(kc, &["uninstall", "--revision", "old", "-y"]);
        assert!(!refused.status.success(), "{}", text(&refused));
        let said = text(&refused);
        assert!(
            said.contains("tag prod points at it") && said.contains("namespace apps selects it"),
            "{said}"
        );
        assert!(
            said.contains("tag default points at it and would be deleted with it")
                && said.contains("bosun tag set default --revision new --overwrite"),
            "{said}"
        );
        let deployments: Api<Deployment> = Api::namespaced(client.kube().clone(), "istio-system");
        assert!(deployments.get_opt("istiod-old").await.unwrap().is_some());

        // Move the tags: the `prod` injector now calls `new`'s istiod (and says it was moved,
        // where istioctl says "created").
        let moved = bosun(
            kc,
            &["tag", "set", "prod", "--revision", "new", "--overwrite"],
        );
        succeeded(&moved);
        assert!(
            String::from_utf8_lossy(&moved.stdout).starts_with("Revision tag \"prod\" updated,"),
            "{}",
            text(&moved)
        );
        succeeded(&bosun(
            kc,
            &["tag", "set", "default", "--revision", "new", "--overwrite"],
        ));
        assert_eq!(
            called_services(&client, "istio-revision-tag-prod").await,
            vec!["istiod-new"; 2]
        );
        assert_eq!(
            called_services(&client, "istio-revision-tag-default").await[0],
            "istiod-new"
        );

        // Now `old` goes, and nothing of `new` is touched.
        let before = revision_objects(&client, "new").await;
        succeeded(&bosun(kc, &["uninstall", "--revision", "old", "-y"]));
        assert!(deployments.get_opt("istiod-old").await.unwrap().is_none());
        let left = revision_objects(&client, "old").await;
        assert!(left.is_empty(), "left of old: {left:?}");
        assert_eq!(revision_objects(&client, "new").await, before);
        let verify = bosun(
            kc,
            &[
                "verify-install",
                "--set",
                "profile=minimal",
                "--revision",
                "new",
            ],
        );
        succeeded(&verify);
        ready.abort();
    });
}

#[test]
fn in_place_upgrade_from_the_older_charts() {
    let old_charts = previous_manifests();
    let new_charts = common::manifests();
    let server = testenv::Private::start("in-place");
    let kc = server.kubeconfig();
    // What the older charts render that the pinned ones do not: upgrade must prune it.
    let render = |charts: &str| {
        let out = bosun(
            kc,
            &[
                "manifest",
                "generate",
                "-d",
                charts,
                "--set",
                "profile=default",
            ],
        );
        succeeded(&out);
        manifest::diff::read_objects("render", &String::from_utf8_lossy(&out.stdout))
            .unwrap()
            .iter()
            .map(|o| {
                (
                    o.kind().to_string(),
                    o.namespace().to_string(),
                    o.name().to_string(),
                )
            })
            .collect::<std::collections::BTreeSet<_>>()
    };
    let gone: Vec<_> = render(&old_charts)
        .difference(&render(&new_charts))
        .cloned()
        .collect();
    common::run(async {
        let client = server.client().await;
        let ready = testenv::make_workloads_ready(&client, None);
        succeeded(&bosun(
            kc,
            &[
                "install",
                "-y",
                "-d",
                &old_charts,
                "--set",
                "profile=default",
            ],
        ));
        let upgraded = bosun(kc, &["upgrade", "-y", "--set", "profile=default"]);
        succeeded(&upgraded);
        let said = String::from_utf8_lossy(&upgraded.stdout).into_owned();
        // The charts changed (CRD schemas, the injector's template): the upgrade changed those.
        let configured: usize = said
            .lines()
            .find_map(|l| l.strip_prefix("✔ Installation complete ("))
            .and_then(|l| l.split(", ").nth(1))
            .and_then(|p| p.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no summary line:\n{said}"));
        assert!(configured > 0, "{said}");
        for (kind, namespace, name) in &gone {
            assert!(
                said.contains(&format!("Removed {kind} {namespace}/{name}"))
                    || said.contains(&format!("Removed {kind} {name}")),
                "{kind} {namespace}/{name} not pruned:\n{said}"
            );
        }
        // Every object as the pinned charts render it, and ready.
        succeeded(&bosun(kc, &["verify-install", "--set", "profile=default"]));
        // And the default tag still there, now owned by the new install's labels.
        let api: Api<MutatingWebhookConfiguration> = Api::all(client.kube().clone());
        assert!(
            api.get_opt("istio-revision-tag-default")
                .await
                .unwrap()
                .is_some()
        );
        ready.abort();
    });
    eprintln!(
        "in-place upgrade: {} object(s) rendered only by the older charts: {gone:?}",
        gone.len()
    );
}
