//! The operator under its own, least-privilege RBAC on the test API server (which enforces
//! RBAC): `operator init` installs its ServiceAccount and roles, and `operator run` acts as that
//! ServiceAccount (impersonated: the kubeconfig says `as:`), so every request it sends is
//! authorized against exactly what `operator dump` grants.
//! - It installs the default, demo and ambient profiles, each into a namespace `init` was told
//!   about (demo with Helm release records, `bosun.io/helm-releases`), and uninstalls them; the
//!   audit log shows no request of it was refused.
//! - It cannot grant more than it holds: creating a ClusterRole with more than its rules, or
//!   binding cluster-admin, is refused with the API server's escalation error; it has neither
//!   `escalate` nor `bind`, and cannot write Secrets outside Istio's namespaces.
//!
//! One operator namespace for the whole file (the ClusterRoleBinding `bosun-operator` names one
//! ServiceAccount): tests here share one `init`.

mod common;

use std::path::PathBuf;
use std::sync::OnceLock;

use cluster::testenv;
use common::operator::{
    Operator, audit_events, audit_len, condition, iop, iops, status_of, wait_for,
};
use common::{bosun, text};
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, PostParams};
use serde_json::{Value, json};

const OPERATOR_NS: &str = "bosun-operator-rbac";
const PROFILES: [&str; 3] = ["default", "demo", "ambient"];
const SERVICE_ACCOUNT: &str = "system:serviceaccount:bosun-operator-rbac:bosun-operator";

/// The Istio namespace of each profile's install (declared to `operator init`).
fn istio_namespace(profile: &str) -> String {
    format!("istio-rbac-{profile}")
}

/// `operator init` once per test process, declaring every profile's Istio namespace.
fn init_once() {
    static INIT: OnceLock<()> = OnceLock::new();
    INIT.get_or_init(|| {
        let mut args = vec![
            "operator".to_string(),
            "init".to_string(),
            "--operator-namespace".to_string(),
            OPERATOR_NS.to_string(),
        ];
        for p in PROFILES {
            args.push("--istio-namespace".into());
            args.push(istio_namespace(p));
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = bosun(&args);
        assert!(out.status.success(), "{}", text(&out));
    });
}

/// A copy of the test kubeconfig that impersonates the operator's ServiceAccount.
fn impersonating_kubeconfig() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let original = std::fs::read_to_string(testenv::kubeconfig()).unwrap();
        let mut out = String::new();
        let mut done = false;
        for line in original.lines() {
            out.push_str(line);
            out.push('\n');
            if line == "  user:" && !done {
                out.push_str(&format!("    as: {SERVICE_ACCOUNT}\n"));
                done = true;
            }
        }
        assert!(
            done,
            "no `  user:` line in {}",
            testenv::kubeconfig().display()
        );
        let path = std::env::temp_dir().join(format!(
            "{}.kubeconfig",
            testenv::unique_name("as-operator")
        ));
        std::fs::write(&path, out).unwrap();
        path
    })
    .clone()
}

async fn impersonating_client() -> kube::Client {
    let kubeconfig = kube::config::Kubeconfig::read_from(impersonating_kubeconfig()).unwrap();
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .unwrap();
    kube::Client::try_from(config).unwrap()
}

#[tokio::test]
async fn operator_under_its_own_role_installs_default_demo_and_ambient() {
    init_once();
    let client = testenv::client().await;
    let ns = testenv::unique_name("iop-rbac");
    common::operator::create_namespace(&ns).await;
    let audit_start = audit_len();
    let operator = Operator::start_with(
        &impersonating_kubeconfig(),
        &ns,
        &["--lease-namespace", OPERATOR_NS],
    );
    wait_for("leadership", &operator, || async {
        operator
            .log()
            .contains("msg=\"became leader\"")
            .then_some(())
    })
    .await;
    let api = iops(&ns).await;
    let mut ready = Vec::new();
    for profile in PROFILES {
        let istio_ns = istio_namespace(profile);
        let mut body = iop(profile, &ns, &istio_ns, json!({}));
        body["spec"]["profile"] = profile.into();
        if profile == "demo" {
            // Helm release records (Secrets in the Istio namespace) under the same role.
            body["metadata"]["annotations"] = json!({"bosun.io/helm-releases": "true"});
        }
        api.create(
            &PostParams::default(),
            &serde_json::from_value(body).unwrap(),
        )
        .await
        .unwrap();
        ready.push(testenv::make_workloads_ready(&client, Some(&istio_ns)));
    }
    for profile in PROFILES {
        let status = wait_for("Ready=True", &operator, || async {
            let s = status_of(&api.get(profile).await.unwrap());
            assert_ne!(
                s["status"],
                "ERROR",
                "{profile}: {s}\nlog:\n{}",
                operator.log()
            );
            (condition(&s, "Ready")["status"] == "True").then_some(s)
        })
        .await;
        assert_eq!(
            condition(&status, "Reconciled")["status"],
            "True",
            "{status}"
        );
    }
    let deployments: Api<Deployment> =
        Api::namespaced(client.kube().clone(), &istio_namespace("demo"));
    for name in ["istiod", "istio-ingressgateway", "istio-egressgateway"] {
        assert!(deployments.get_opt(name).await.unwrap().is_some(), "{name}");
    }
    let records = || async {
        let secrets: Api<k8s_openapi::api::core::v1::Secret> =
            Api::namespaced(client.kube().clone(), &istio_namespace("demo"));
        let mut names: Vec<String> = secrets
            .list(&kube::api::ListParams::default().labels("owner=helm"))
            .await
            .unwrap()
            .items
            .into_iter()
            .filter_map(|s| s.metadata.name)
            .collect();
        names.sort();
        names
    };
    assert_eq!(
        records().await,
        [
            "sh.helm.release.v1.istio-base.v1",
            "sh.helm.release.v1.istio-egressgateway.v1",
            "sh.helm.release.v1.istio-ingressgateway.v1",
            "sh.helm.release.v1.istiod.v1",
        ]
    );
    for handle in ready {
        handle.abort();
    }

    // Uninstalled under the same role.
    for profile in PROFILES {
        api.delete(profile, &Default::default()).await.unwrap();
    }
    for profile in PROFILES {
        wait_for("uninstalled", &operator, || async {
            api.get_opt(profile).await.unwrap().is_none().then_some(())
        })
        .await;
        let deployments: Api<Deployment> =
            Api::namespaced(client.kube().clone(), &istio_namespace(profile));
        assert!(deployments.get_opt("istiod").await.unwrap().is_none());
    }
    assert!(
        records().await.is_empty(),
        "the demo's Helm release records"
    );

    // Every request was the ServiceAccount's, and none was refused. What it sent, by verb and
    // resource, is printed (the ClusterRole's own rules follow from it).
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    let events = audit_events(audit_start);
    let mine: Vec<&Value> = events
        .iter()
        .filter(|e| {
            e["user"]["username"] == SERVICE_ACCOUNT
                || e["impersonatedUser"]["username"] == SERVICE_ACCOUNT
        })
        // The other test's probes, as the same ServiceAccount, are dry runs; the operator
        // sends none.
        .filter(|e| {
            !e["requestURI"]
                .as_str()
                .is_some_and(|u| u.contains("dryRun=All"))
        })
        .collect();
    assert!(
        !mine.is_empty(),
        "no request of the operator's ServiceAccount in the audit log"
    );
    let refused: Vec<String> = mine
        .iter()
        .filter(|e| e["responseStatus"]["code"] == 403)
        .map(|e| {
            format!(
                "{} {} {}",
                e["verb"], e["requestURI"], e["responseStatus"]["message"]
            )
        })
        .collect();
    assert!(
        refused.is_empty(),
        "refused: {refused:#?}\nlog:\n{}",
        operator.log()
    );
    let mut used: Vec<String> = mine
        .iter()
        .map(|e| {
            format!(
                "{} {}/{}",
                e["verb"].as_str().unwrap_or(""),
                e["objectRef"]["apiGroup"].as_str().unwrap_or(""),
                e["objectRef"]["resource"]
                    .as_str()
                    .unwrap_or("")
                    .to_string()
                    + &e["objectRef"]["subresource"]
                        .as_str()
                        .map(|s| format!("/{s}"))
                        .unwrap_or_default()
            )
        })
        .collect();
    used.sort();
    used.dedup();
    eprintln!(
        "requests of the operator's ServiceAccount:\n{}",
        used.join("\n")
    );
}

/// The API server's answer to creating `object` as the operator: `Ok` or the error's text.
async fn create_as_operator(object: Value) -> Result<(), (u16, String)> {
    let client = impersonating_client().await;
    let gvk = (
        object["apiVersion"].as_str().unwrap().to_string(),
        object["kind"].as_str().unwrap().to_string(),
    );
    let (group, version) = gvk.0.rsplit_once('/').unwrap_or(("", &gvk.0));
    let ar = kube::core::ApiResource {
        group: group.into(),
        version: version.into(),
        api_version: gvk.0.clone(),
        kind: gvk.1.clone(),
        plural: format!("{}s", gvk.1.to_ascii_lowercase()),
    };
    let api: Api<kube::api::DynamicObject> = match object["metadata"]["namespace"].as_str() {
        Some(ns) => Api::namespaced_with(client, ns, &ar),
        None => Api::all_with(client, &ar),
    };
    let params = PostParams {
        dry_run: true,
        ..Default::default()
    };
    match api
        .create(&params, &serde_json::from_value(object).unwrap())
        .await
    {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(s)) => Err((s.code, s.message)),
        Err(e) => panic!("{e}"),
    }
}

#[tokio::test]
async fn operator_cannot_grant_more_than_it_holds() {
    init_once();
    let escalation = "attempting to grant RBAC permissions not currently held";
    let role = |rules: Value| {
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
               "metadata": {"name": testenv::unique_name("bosun-rbac-probe")}, "rules": rules})
    };
    // What it holds it can grant: a ClusterRole with all of its own rules.
    let rbac = operator::rbac::committed();
    create_as_operator(role(Value::Array(rbac.cluster_rules.clone())))
        .await
        .unwrap_or_else(|e| {
            panic!("a ClusterRole with the operator's own rules was refused: {e:?}")
        });
    // More is refused: Secrets written cluster-wide, everything, another group's wildcard.
    for rules in [
        json!([{"apiGroups": [""], "resources": ["secrets"], "verbs": ["create"]}]),
        json!([{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}]),
        json!([{"apiGroups": ["apps"], "resources": ["*"], "verbs": ["get"]}]),
        json!([{"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["clusterroles"], "verbs": ["escalate"]}]),
    ] {
        let (code, message) = create_as_operator(role(rules.clone()))
            .await
            .expect_err(&format!("a ClusterRole with {rules} was allowed"));
        assert_eq!(code, 403, "{message}");
        assert!(message.contains(escalation), "{rules}: {message}");
    }
    // Binding a role it does not hold is refused too (no `bind`).
    let binding = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
        "metadata": {"name": testenv::unique_name("bosun-rbac-probe")},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
        "subjects": [{"kind": "ServiceAccount", "name": "bosun-operator", "namespace": OPERATOR_NS}]});
    let (code, message) = create_as_operator(binding)
        .await
        .expect_err("binding cluster-admin was allowed");
    assert_eq!(code, 403, "{message}");
    assert!(message.contains(escalation), "{message}");
    // Secrets: written only in Istio's namespaces.
    let secret = |ns: &str| {
        json!({"apiVersion": "v1", "kind": "Secret",
               "metadata": {"name": "probe", "namespace": ns}, "data": {}})
    };
    let (code, _) = create_as_operator(secret(OPERATOR_NS))
        .await
        .expect_err("a Secret outside Istio's namespaces was allowed");
    assert_eq!(code, 403);
    let client = testenv::client().await;
    common::operator::create_namespace(&istio_namespace("default")).await;
    create_as_operator(secret(&istio_namespace("default")))
        .await
        .unwrap_or_else(|e| panic!("a Secret in an Istio namespace was refused: {e:?}"));
    // And the API server agrees it holds neither `escalate` nor `bind`.
    let reviews: Api<k8s_openapi::api::authorization::v1::SubjectAccessReview> =
        Api::all(client.kube().clone());
    for verb in ["escalate", "bind", "impersonate"] {
        let review = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
            "spec": {"user": SERVICE_ACCOUNT,
                     "groups": ["system:serviceaccounts", format!("system:serviceaccounts:{OPERATOR_NS}"), "system:authenticated"],
                     "resourceAttributes": {"group": "rbac.authorization.k8s.io", "resource": "clusterroles", "verb": verb}}});
        let answer = reviews
            .create(
                &PostParams::default(),
                &serde_json::from_value(review).unwrap(),
            )
            .await
            .unwrap();
        assert!(!answer.status.unwrap().allowed, "{verb}");
    }
}
