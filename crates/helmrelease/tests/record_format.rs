//! The release record format both ways: what bosun writes reads back as written, a record real
//! helm v4.1.4 wrote (captured from `helm install` of a tiny chart on the living cluster, the
//! Secret as `kubectl get -o json` printed it: `tests/data/helm-written-secret.json`) decodes,
//! and Secrets that are not records are refused naming the Secret.

use std::collections::BTreeMap;

use helmrelease::{Record, Release, Status};
use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use serde_json::json;

fn release() -> Release {
    Release {
        name: "istiod".into(),
        namespace: "istio-system".into(),
        version: 3,
        status: Status::Deployed,
        description: "Upgrade complete".into(),
        first_deployed: "2026-12-06T21:40:30.5Z".into(),
        last_deployed: "2026-12-06T22:00:00Z".into(),
        chart: json!({"metadata": {"name": "istiod", "version": "1.0.0", "appVersion": "1.0.0", "apiVersion": "v2"},
                       "lock": null, "templates": [{"name": "templates/a.yaml", "data": "YTogMQo="}],
                       "values": {"a": 1}, "schema": null, "files": []}),
        config: json!({"pilot": {"replicaCount": 2}})
            .as_object()
            .unwrap()
            .clone(),
        manifest: "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n".into(),
        labels: BTreeMap::from([("bosun.io/helm-release".to_string(), "true".to_string())]),
        apply_method: "ssa".into(),
    }
}

#[test]
fn what_bosun_writes_reads_back() {
    let r = release();
    let secret = r.to_secret(1_796_600_430);
    assert_eq!(
        secret.metadata.name.as_deref(),
        Some("sh.helm.release.v1.istiod.v3")
    );
    assert_eq!(secret.type_.as_deref(), Some("helm.sh/release.v1"));
    let labels = secret.metadata.labels.clone().unwrap();
    for (k, v) in [
        ("name", "istiod"),
        ("owner", "helm"),
        ("status", "deployed"),
        ("version", "3"),
        ("createdAt", "1796600430"),
        ("bosun.io/helm-release", "true"),
    ] {
        assert_eq!(labels.get(k).map(String::as_str), Some(v), "label {k}");
    }
    // base64 of gzip: the gzip magic after decoding.
    let data = &secret.data.as_ref().unwrap()["release"].0;
    use base64::Engine;
    let zipped = base64::engine::general_purpose::STANDARD
        .decode(data)
        .unwrap();
    assert_eq!(&zipped[..3], &[0x1f, 0x8b, 0x08]);

    let record = Record::from_secret(&secret).unwrap();
    assert_eq!(record.body, r.to_json());
    assert_eq!(record.name(), Some("istiod"));
    assert_eq!(record.version(), Some(3));
    assert_eq!(record.status(), "deployed");
    assert_eq!(record.chart_name(), Some("istiod"));
    assert_eq!(record.config(), r.config);
    assert_eq!(record.manifest(), r.manifest);
    assert_eq!(
        record.own_labels(),
        BTreeMap::from([("bosun.io/helm-release".to_string(), "true".to_string())])
    );

    // Superseding keeps every field but the status, and the createdAt label.
    let superseded = record.with_status(Status::Superseded, 1_796_600_500);
    let again = Record::from_secret(&superseded).unwrap();
    let mut want = r.to_json();
    want["info"]["status"] = json!("superseded");
    assert_eq!(again.body, want);
    assert_eq!(again.labels["status"], "superseded");
    assert_eq!(again.labels["createdAt"], "1796600430");
    assert_eq!(again.labels["modifiedAt"], "1796600500");
}

fn secret(type_: &str, data: Option<&[u8]>) -> Secret {
    Secret {
        metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
            name: Some("sh.helm.release.v1.istiod.v1".into()),
            namespace: Some("istio-system".into()),
            ..Default::default()
        },
        type_: Some(type_.into()),
        data: data.map(|d| BTreeMap::from([("release".to_string(), ByteString(d.to_vec()))])),
        ..Default::default()
    }
}

#[test]
fn what_is_not_a_record_is_refused_naming_the_secret() {
    let cases: Vec<(Secret, &str)> = vec![
        (secret("Opaque", Some(b"x")), "its type is \"Opaque\""),
        (secret("helm.sh/release.v1", None), "no `release` data"),
        (secret("helm.sh/release.v1", Some(b"%%%")), "not base64"),
        // base64 of the gzip magic and garbage.
        (
            secret("helm.sh/release.v1", Some(b"H4sIAAAA")),
            "does not unzip",
        ),
        // base64 of `{"a":1}`: JSON, but no release in it.
        (
            secret("helm.sh/release.v1", Some(b"eyJhIjoxfQ==")),
            "has no name",
        ),
        // base64 of `nope`.
        (secret("helm.sh/release.v1", Some(b"bm9wZQ==")), "not JSON"),
    ];
    for (s, want) in cases {
        let e = Record::from_secret(&s).unwrap_err().to_string();
        assert!(
            e.starts_with(
                "Secret istio-system/sh.helm.release.v1.istiod.v1 is not a helm release record"
            ),
            "{e}"
        );
        assert!(e.contains(want), "{e} should say {want}");
    }
}

#[test]
fn a_record_real_helm_wrote_decodes() {
    let text = include_str!("data/helm-written-secret.json");
    let secret: Secret = serde_json::from_str(text).unwrap();
    let record = Record::from_secret(&secret).unwrap();
    assert_eq!(record.name(), Some("tiny"));
    assert_eq!(record.version(), Some(1));
    assert_eq!(record.status(), "deployed");
    assert_eq!(record.chart_name(), Some("tiny"));
    assert_eq!(record.chart_version(), "0.1.0");
    assert_eq!(
        record.config(),
        json!({"greeting": "hello"}).as_object().unwrap().clone()
    );
    assert!(
        record.manifest().contains("kind: ConfigMap"),
        "{}",
        record.manifest()
    );
    assert_eq!(record.body["apply_method"], "ssa");
    assert_eq!(record.body["info"]["description"], "Install complete");
    // The chart as helm stores it: the keys bosun writes too.
    let chart = record.body["chart"].as_object().unwrap();
    for key in ["metadata", "lock", "templates", "values", "schema", "files"] {
        assert!(chart.contains_key(key), "helm's chart has {key}: {chart:?}");
    }
    assert_eq!(
        record.body["chart"]["templates"][0]["name"],
        "templates/cm.yaml"
    );
    // Re-labelled as bosun supersedes it: everything helm wrote is kept.
    let superseded = Record::from_secret(&record.with_status(Status::Superseded, 1)).unwrap();
    let mut want = record.body.clone();
    want["info"]["status"] = json!("superseded");
    assert_eq!(superseded.body, want);
}
