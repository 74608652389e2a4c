//! bosun lives beside a running istiod without fighting it: istiod writes its CA bundle into
//! its webhooks and switches its validators' `failurePolicy` to `Fail` (see
//! `manifest::runtime`), and a second `install` (or `verify-install`, or a plan) with the same
//! input neither undoes those writes nor counts them as changes. Here the writes are made as
//! istiod makes them (`testenv::write_as_istiod`: updates under its field manager), on a
//! private API server so that the cluster-wide webhooks are this test's alone. (The living
//! test cluster proves the same with a real istiod.)

mod common;

use cluster::testenv;
use common::{bosun_at as bosun, text, totals};
use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use kube::Api;

#[test]
fn a_second_install_keeps_what_istiod_wrote() {
    let server = testenv::Private::start("istiod-writes");
    let kc = server.kubeconfig();
    let manifests = common::manifests();
    let args = [
        "install",
        "-y",
        "-d",
        &manifests,
        "--set",
        "profile=minimal",
    ];
    common::run(async {
        let client = server.client().await;
        let ready = testenv::make_workloads_ready(&client, None);
        let first = bosun(kc, &args);
        assert!(first.status.success(), "{}", text(&first));

        // istiod starts: the injector, the default tag's injector, the revision's validator
        // and the default validator get its CA bundle; the validators fail closed.
        let changed = testenv::write_as_istiod(kc, "istio.io/rev=default").await;
        assert_eq!(changed, 4, "injector, tag injector and the two validators");
        let validators: Api<ValidatingWebhookConfiguration> = Api::all(client.kube().clone());
        let injectors: Api<MutatingWebhookConfiguration> = Api::all(client.kube().clone());
        let snapshot = || async {
            let mut out = Vec::new();
            for v in validators.list(&Default::default()).await.unwrap().items {
                out.push((v.metadata.name.clone(), v.metadata.resource_version.clone()));
                for w in v.webhooks.unwrap_or_default() {
                    assert_eq!(
                        w.failure_policy.as_deref(),
                        Some("Fail"),
                        "{:?}",
                        v.metadata.name
                    );
                    assert!(w.client_config.ca_bundle.is_some(), "{:?}", v.metadata.name);
                }
            }
            for m in injectors.list(&Default::default()).await.unwrap().items {
                out.push((m.metadata.name.clone(), m.metadata.resource_version.clone()));
                for w in m.webhooks.unwrap_or_default() {
                    assert!(w.client_config.ca_bundle.is_some(), "{:?}", m.metadata.name);
                }
            }
            out
        };
        let before = snapshot().await;

        // The same install again: nothing changes, istiod's fields stay.
        let again = bosun(kc, &args);
        assert!(again.status.success(), "{}", text(&again));
        let (created, configured, _) = totals(&again);
        assert_eq!((created, configured), (0, 0), "{}", text(&again));
        assert_eq!(snapshot().await, before);

        // Nor are they differences for verify-install or the plan.
        let verify = bosun(
            kc,
            &[
                "verify-install",
                "-d",
                &manifests,
                "--set",
                "profile=minimal",
            ],
        );
        assert!(verify.status.success(), "{}", text(&verify));
        let plan = bosun(kc, &["plan", "-d", &manifests, "--set", "profile=minimal"]);
        assert!(plan.status.success(), "{}", text(&plan));
        let said = String::from_utf8_lossy(&plan.stdout);
        assert!(said.contains(" 0 to update"), "{}", text(&plan));

        // The default tag made again by an install, from the live injector, which now holds
        // istiod's CA bundle (as an install that waited for istiod makes it): the tag's
        // webhooks carry the bundle as bosun's field. The plan generates the tag as the install
        // does, bundle included, so it still changes nothing (before: the tag's two webhook
        // configurations were planned as updates removing `caBundle` after every such install).
        injectors
            .delete("istio-revision-tag-default", &Default::default())
            .await
            .expect("deleting the default tag's injector");
        validators
            .delete("istiod-default-validator", &Default::default())
            .await
            .expect("deleting the default validator");
        let remade = bosun(kc, &args);
        assert!(remade.status.success(), "{}", text(&remade));
        let tag: serde_json::Value = serde_json::to_value(
            injectors
                .get("istio-revision-tag-default")
                .await
                .expect("the default tag made again"),
        )
        .unwrap();
        assert!(
            tag.pointer("/webhooks/0/clientConfig/caBundle")
                .is_some_and(|b| b.as_str().is_some_and(|b| !b.is_empty())),
            "the tag took the live injector's CA bundle: {tag}"
        );
        let plan = bosun(kc, &["plan", "-d", &manifests, "--set", "profile=minimal"]);
        assert!(plan.status.success(), "{}", text(&plan));
        let said = String::from_utf8_lossy(&plan.stdout);
        assert!(said.contains(" 0 to update"), "{}", text(&plan));
        ready.abort();
    });
}
