//! `bosun mesh install` on two living clusters (`testenv::living()` and the second one,
//! `testenv::second_living_kubeconfig()`: in CI the default cluster and `west`), through one
//! merged kubeconfig (`KUBECONFIG=a:b`), as a user runs it.
//!
//! First the refusals, each of which must leave both clusters exactly as they were (the
//! Istio namespace's existence and labels, every Secret, ConfigMap, Deployment and
//! ServiceAccount in it, the webhooks): an unknown context, a context on an API server that
//! does not answer, two clusters with one name, a cluster file naming another Istio package
//! (mixed versions), no shared root of trust at all, and `cacerts` Secrets of two different
//! roots.
//!
//! Then the mesh: `mesh ca` for both clusters, and `mesh install --context A --context B --ca
//! DIR --network A=net1 --network B=net1` with the minimal profile and the living images. It
//! must end with istiod ready in both (the install waits for it), each istiod with its own
//! cluster ID and the mesh ID, the Istio namespace labelled with the network, both `cacerts`
//! of the one root, and each cluster holding the other's remote secret, which istiod takes up:
//! it logs that its controller for the other cluster synced, so it reached the other API server
//! with the secret's token. Then `mesh check` passes (istiod's view read from its
//! `/debug/clusterz` through a port-forward) and fails, naming the cluster and the cause, after
//! a remote secret is deleted, with a foreign `cacerts`, and after the reader's token is revoked.
//! Then `--plan` changes nothing and shows both clusters. Everything is uninstalled at the end.
//!
//! `mesh_install_primary_remote_on_two_living_clusters` installs the first cluster as the
//! primary and the second as its remote (`--remote`), and checks that the primary's istiod leads
//! the remote: see its documentation.
//!
//! Both tests use the same two clusters and hold [`CLUSTERS`] throughout; each leaves them as
//! it found them (uninstalled, `cacerts`, remote secrets and what primary-remote adds removed).
//!
//! Needs: root (the living clusters), the images built for them; about 1 to 2 minutes each.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use cluster::testenv;
use common::{stderr, stdout, succeeded, text};
use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Pod, Secret, ServiceAccount};
use kube::Api;
use kube::api::{DeleteParams, ListParams, LogParams};
use serde_json::Value;

const NS: &str = "istio-system";

/// The two living clusters, one test at a time.
static CLUSTERS: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn lock_clusters() -> std::sync::MutexGuard<'static, ()> {
    CLUSTERS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The two living clusters as both tests use them: each one's kubeconfig and context, one
/// kubeconfig merging both (`KUBECONFIG=a:b`), an empty work directory, and the living images.
#[derive(Clone)]
struct TwoClusters {
    living: &'static testenv::Living,
    a_config: PathBuf,
    b_config: PathBuf,
    a: String,
    b: String,
    merged: PathBuf,
    work: PathBuf,
    /// `hub=…` and `tag=…` for `--set`: the images built for the living clusters.
    hub: String,
    tag: String,
}

impl TwoClusters {
    /// The clusters, and `$TMPDIR/<work>-<pid>` made empty.
    fn new(work: &str) -> TwoClusters {
        let living = testenv::living();
        let a_config = testenv::living_kubeconfig().to_path_buf();
        let b_config = testenv::second_living_kubeconfig().to_path_buf();
        let a = context_of(&a_config);
        let b = context_of(&b_config);
        assert_ne!(a, b, "the two living clusters' contexts");
        let merged = PathBuf::from(format!("{}:{}", a_config.display(), b_config.display()));
        let work = std::env::temp_dir().join(format!("{work}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&work);
        std::fs::create_dir_all(&work).unwrap();
        TwoClusters {
            living,
            hub: format!("hub={}", living.hub),
            tag: format!("tag={}", living.tag),
            a_config,
            b_config,
            a,
            b,
            merged,
            work,
        }
    }

    /// `bosun mesh install --context A --context B -y` of the minimal profile with the living
    /// images, then `extra`, through the merged kubeconfig.
    fn mesh_install(&self, extra: &[&str]) -> std::process::Output {
        self.mesh_install_at(&self.merged, extra)
    }

    /// [`TwoClusters::mesh_install`] through another kubeconfig.
    fn mesh_install_at(&self, kubeconfig: &Path, extra: &[&str]) -> std::process::Output {
        let mut args = vec![
            "mesh",
            "install",
            "--context",
            &self.a,
            "--context",
            &self.b,
            "-y",
            "--set",
            "profile=minimal",
            "--set",
            &self.hub,
            "--set",
            &self.tag,
        ];
        args.extend_from_slice(extra);
        common::bosun_at(kubeconfig, &args)
    }
}

/// The kubeconfig's current context.
fn context_of(kubeconfig: &Path) -> String {
    std::fs::read_to_string(kubeconfig)
        .unwrap()
        .lines()
        .find_map(|l| {
            l.strip_prefix("current-context: ")
                .map(|c| c.trim().trim_matches('"').to_string())
        })
        .unwrap_or_else(|| panic!("{} has no current-context", kubeconfig.display()))
}

/// What a refused `mesh install` must not change: the Istio namespace and what is in it, and
/// the webhooks.
async fn snapshot(kube: &kube::Client) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    let clean = |v: Value| {
        let mut v = v;
        if let Some(meta) = v["metadata"].as_object_mut() {
            meta.remove("managedFields");
        }
        v
    };
    if let Some(ns) = Api::<Namespace>::all(kube.clone())
        .get_opt(NS)
        .await
        .unwrap()
    {
        out.insert(
            "Namespace".into(),
            clean(serde_json::to_value(ns.metadata).unwrap()),
        );
    }
    let all = ListParams::default();
    macro_rules! list {
        ($kind:ty, $api:expr) => {
            for o in $api.list(&all).await.unwrap().items {
                let name = o.metadata.name.clone().unwrap_or_default();
                out.insert(
                    format!("{} {name}", stringify!($kind)),
                    clean(serde_json::to_value(&o).unwrap()),
                );
            }
        };
    }
    list!(Secret, Api::<Secret>::namespaced(kube.clone(), NS));
    list!(ConfigMap, Api::<ConfigMap>::namespaced(kube.clone(), NS));
    list!(Deployment, Api::<Deployment>::namespaced(kube.clone(), NS));
    list!(
        ServiceAccount,
        Api::<ServiceAccount>::namespaced(kube.clone(), NS)
    );
    list!(
        MutatingWebhookConfiguration,
        Api::<MutatingWebhookConfiguration>::all(kube.clone())
    );
    list!(
        ValidatingWebhookConfiguration,
        Api::<ValidatingWebhookConfiguration>::all(kube.clone())
    );
    out
}

/// Of a [`snapshot`] taken while istiod runs, what `mesh install` would write and istiod does
/// not: the namespace's labels, every Secret's labels and data, every Deployment's spec (istiod
/// itself rewrites ConfigMaps and webhooks' `caBundle` and `failurePolicy`, and the controllers
/// the status).
fn written(snapshot: BTreeMap<String, Value>) -> BTreeMap<String, Value> {
    snapshot
        .into_iter()
        .filter_map(|(key, v)| {
            let kept = if key == "Namespace" {
                v["labels"].clone()
            } else if key.starts_with("Secret ") {
                serde_json::json!([v["metadata"]["labels"], v["data"]])
            } else if key.starts_with("Deployment ") {
                v["spec"].clone()
            } else {
                return None;
            };
            Some((key, kept))
        })
        .collect()
}

/// Removes what a mesh install leaves that uninstall does not: `cacerts`, remote secrets and
/// their token Secrets.
async fn clean(kube: &kube::Client) {
    let secrets = Api::<Secret>::namespaced(kube.clone(), NS);
    let dp = DeleteParams::default();
    let _ = secrets.delete("cacerts", &dp).await;
    if let Ok(list) = secrets.list(&ListParams::default()).await {
        for s in list.items {
            let name = s.metadata.name.unwrap_or_default();
            if name.starts_with("istio-remote-secret-")
                || name.contains("-istio-remote-secret-token")
            {
                let _ = secrets.delete(&name, &dp).await;
            }
        }
    }
}

/// `bosun mesh check` over the merged kubeconfig: its exit status, stdout and stderr.
fn mesh_check(merged: &Path, a: &str, b: &str, json: bool) -> (Option<i32>, String, String) {
    let mut args = vec!["mesh", "check", "--context", a, "--context", b];
    if json {
        args.extend(["-o", "json"]);
    }
    let out = common::bosun_at(merged, &args);
    (out.status.code(), stdout(&out), stderr(&out))
}

/// A Secret as it can be created again.
fn recreatable(mut secret: Secret) -> Secret {
    let meta = &mut secret.metadata;
    meta.resource_version = None;
    meta.uid = None;
    meta.creation_timestamp = None;
    meta.managed_fields = None;
    secret
}

/// `mesh check` on the healthy mesh passes, with istiod's view read from `/debug/clusterz`
/// (no fallback to its log); `mesh rotate-secrets` replaces the tokens (the old one is refused
/// by the API server, the mesh passes the check again); then `mesh check` fails, naming the cluster and the cause, after a remote
/// secret is deleted, with a `cacerts` of a foreign root, and after the reader's token is
/// revoked (its token Secret deleted), each restored but the last; `mesh disconnect` then
/// deletes each cluster's remote secret of the other, and nothing else.
async fn mesh_check_finds_what_breaks(
    merged: &Path,
    ka: &kube::Client,
    kb: &kube::Client,
    a: &str,
    b: &str,
    other_ca: &Path,
) {
    let started = std::time::Instant::now();
    // A context that does not exist: the check cannot run (exit 2), and says which.
    let (code, _, err) = mesh_check(merged, a, "nope", false);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("context \"nope\" was not found"), "{err}");
    let (code, out, err) = mesh_check(merged, a, b, false);
    assert_eq!(code, Some(0), "healthy mesh:\n{out}\n{err}");
    for (x, y) in [(a, b), (b, a)] {
        assert!(
            out.contains(&format!(
                "Info [BOSUN-MESH001] (cluster {x}) remote secret istio-system/istio-remote-secret-{y} for cluster {y}:"
            )),
            "{out}"
        );
    }
    assert!(
        !out.contains("BOSUN-MESH013"),
        "istiod's /debug/clusterz was not read:\n{out}"
    );
    assert!(err.contains("✔ mesh check: no errors"), "{err}");
    let (code, out, _) = mesh_check(merged, a, b, true);
    assert_eq!(code, Some(0));
    let findings: Vec<Value> = serde_json::from_str(&out).unwrap();
    for f in &findings {
        for key in ["code", "level", "cluster", "message", "fix"] {
            assert!(f.get(key).is_some(), "{f}: no {key}");
        }
        assert!(
            !f["message"].as_str().unwrap().contains("token:"),
            "a secret value printed: {f}"
        );
    }

    // rotate-secrets: new tokens everywhere, the old one refused, the mesh whole again.
    let a_secrets = Api::<Secret>::namespaced(ka.clone(), NS);
    let remote = format!("istio-remote-secret-{b}");
    let old_kubeconfig = a_secrets.get(&remote).await.unwrap().data.unwrap()[b]
        .0
        .clone();
    let rotated = common::bosun_at(
        merged,
        &[
            "mesh",
            "rotate-secrets",
            "--context",
            a,
            "--context",
            b,
            "-y",
        ],
    );
    succeeded(&rotated);
    let printed = stdout(&rotated);
    for x in [a, b] {
        assert!(
            printed.contains(&format!("[{x}] ✔ cluster {x}: new token Secret")),
            "{printed}"
        );
    }
    let new_kubeconfig = a_secrets.get(&remote).await.unwrap().data.unwrap()[b]
        .0
        .clone();
    assert_ne!(
        old_kubeconfig, new_kubeconfig,
        "a's remote secret for b was not replaced"
    );
    let old =
        kube::config::Kubeconfig::from_yaml(&String::from_utf8(old_kubeconfig).unwrap()).unwrap();
    let old = kube::Config::from_custom_kubeconfig(old, &Default::default())
        .await
        .unwrap();
    let old = kube::Client::try_from(old).unwrap();
    let refused = testkit::wait_until(
        "b's API server to refuse the old token",
        Duration::from_secs(30),
        Duration::from_millis(500),
        || async {
            let review =
                Api::<k8s_openapi::api::authentication::v1::SelfSubjectReview>::all(old.clone())
                    .create(&Default::default(), &Default::default())
                    .await;
            matches!(review, Err(kube::Error::Api(s)) if s.code == 401).then_some(())
        },
    )
    .await;
    refused.unwrap();
    let whole = testkit::wait_until(
        "mesh check to pass after rotate-secrets",
        Duration::from_secs(60),
        Duration::from_millis(1000),
        || async { (mesh_check(merged, a, b, false).0 == Some(0)).then_some(()) },
    )
    .await;
    if let Err(e) = whole {
        panic!("{e}\n{}", mesh_check(merged, a, b, false).1);
    }

    // A remote secret deleted: a no longer reads b.
    let saved = recreatable(a_secrets.get(&remote).await.unwrap());
    a_secrets
        .delete(&remote, &DeleteParams::default())
        .await
        .unwrap();
    let (code, out, _) = mesh_check(merged, a, b, false);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(&format!(
            "Error [BOSUN-MESH004] (cluster {a}) no remote secret for cluster {b}"
        )),
        "{out}"
    );
    a_secrets.create(&Default::default(), &saved).await.unwrap();

    // A foreign root in b: both clusters are told their roots differ.
    let b_secrets = Api::<Secret>::namespaced(kb.clone(), NS);
    let cacerts = recreatable(b_secrets.get("cacerts").await.unwrap());
    let foreign = other_ca.join(b);
    let mut data = cacerts.clone();
    data.data = Some(
        manifest::cacerts::FILES
            .iter()
            .map(|f| {
                (
                    f.to_string(),
                    k8s_openapi::ByteString(std::fs::read(foreign.join(f)).unwrap()),
                )
            })
            .collect(),
    );
    b_secrets
        .replace("cacerts", &Default::default(), &data)
        .await
        .unwrap();
    let (code, out, _) = mesh_check(merged, a, b, false);
    assert_eq!(code, Some(1), "{out}");
    for x in [a, b] {
        assert!(
            out.contains(&format!(
                "Error [BOSUN-MESH009] (cluster {x}) the root of trust in Secret istio-system/"
            )),
            "{out}"
        );
    }
    b_secrets
        .replace("cacerts", &Default::default(), &cacerts)
        .await
        .unwrap();

    // b's reader token revoked: a's remote secret for b is refused by b's API server.
    for secret in b_secrets.list(&ListParams::default()).await.unwrap().items {
        let name = secret.metadata.name.unwrap_or_default();
        if name.starts_with("istio-reader-service-account-istio-remote-secret-token") {
            b_secrets
                .delete(&name, &DeleteParams::default())
                .await
                .unwrap();
        }
    }
    // The API server refuses a token whose Secret is gone once its cache of tokens forgets it.
    let refused = testkit::wait_until(
        "mesh check to find the revoked token",
        Duration::from_secs(30),
        Duration::from_millis(1000),
        || async {
            let (code, out, _) = mesh_check(merged, a, b, false);
            (code == Some(1)
                && out.contains(&format!(
                    "Error [BOSUN-MESH007] (cluster {a}) remote secret istio-system/istio-remote-secret-{b} for cluster {b}: "
                )))
            .then_some(out)
        },
    )
    .await;
    if let Err(e) = refused {
        panic!("{e}\n{}", mesh_check(merged, a, b, false).1);
    }

    // disconnect: each cluster's remote secret of the other deleted, nothing else; again, it
    // finds nothing to do.
    let disconnect = || {
        common::bosun_at(
            merged,
            &["mesh", "disconnect", "--context", a, "--context", b, "-y"],
        )
    };
    let first = disconnect();
    succeeded(&first);
    for (x, y) in [(a, b), (b, a)] {
        assert!(
            stdout(&first).contains(&format!(
                "[{x}] ✔ deleted istio-system/istio-remote-secret-{y} ({y})"
            )),
            "{}",
            stdout(&first)
        );
    }
    for secrets in [&a_secrets, &b_secrets] {
        let left = secrets
            .list(&ListParams::default().labels("istio/multiCluster=true"))
            .await
            .unwrap()
            .items;
        assert!(left.is_empty(), "remote secrets left: {left:?}");
    }
    assert!(
        b_secrets.get_opt("cacerts").await.unwrap().is_some(),
        "disconnect deleted more than remote secrets"
    );
    let (code, out, _) = mesh_check(merged, a, b, false);
    assert_eq!(code, Some(1), "{out}");
    for (x, y) in [(a, b), (b, a)] {
        assert!(
            out.contains(&format!(
                "Error [BOSUN-MESH004] (cluster {x}) no remote secret for cluster {y}"
            )),
            "{out}"
        );
    }
    let again = disconnect();
    succeeded(&again);
    assert!(
        stdout(&again).contains("already disconnected"),
        "{}",
        stdout(&again)
    );
    eprintln!("mesh check cases took {:?}", started.elapsed());
}

fn istiod_env(deployment: &Deployment, name: &str) -> Option<String> {
    deployment
        .spec
        .as_ref()?
        .template
        .spec
        .as_ref()?
        .containers
        .iter()
        .flat_map(|c| c.env.iter().flatten())
        .find(|e| e.name == name)
        .and_then(|e| e.value.clone())
}

#[test]
fn mesh_install_joins_two_living_clusters() {
    let _clusters = lock_clusters();
    let two = TwoClusters::new("bosun-mesh-install");
    let TwoClusters {
        a_config,
        b_config,
        a,
        b,
        merged,
        work,
        ..
    } = two.clone();
    let mesh = |extra: &[&str]| two.mesh_install(extra);
    common::run(async {
        let ka = testenv::living_client().await.kube().clone();
        let kb = testenv::second_living_client().await.kube().clone();
        for config in [&a_config, &b_config] {
            succeeded(&common::bosun_at(config, &["uninstall", "--purge", "-y"]));
        }
        clean(&ka).await;
        clean(&kb).await;

        // A kubeconfig with a third context whose API server does not answer (a closed port).
        let dead = work.join("dead-kubeconfig");
        let a_text = std::fs::read_to_string(&a_config).unwrap();
        let a_server = a_text
            .lines()
            .find_map(|l| l.trim().strip_prefix("server: "))
            .unwrap()
            .to_string();
        let dead_text = a_text
            .replace(&a_server, "https://127.0.0.1:1")
            .replace(&format!("name: {a}"), "name: dead")
            .replace(&format!("cluster: {a}"), "cluster: dead")
            .replace(&format!("current-context: {a}"), "current-context: dead");
        std::fs::write(&dead, dead_text).unwrap();
        let with_dead = PathBuf::from(format!("{}:{}", merged.display(), dead.display()));

        // Two CAs: the mesh's, and another root for the mismatch.
        let ca = work.join("ca");
        let other = work.join("other");
        let dir = |p: &Path| p.display().to_string();
        succeeded(&common::bosun_at(
            &merged,
            &[
                "mesh",
                "ca",
                "--cluster",
                &a,
                "--cluster",
                &b,
                "--out",
                &dir(&ca),
            ],
        ));
        succeeded(&common::bosun_at(
            &merged,
            &["mesh", "ca", "--cluster", &b, "--out", &dir(&other)],
        ));

        // Per-cluster inputs: a shared file and one of the first cluster's own, each setting
        // an istiod environment variable (the mesh's install shows which won where), and one
        // contradicting the mesh's --network.
        let shared_file = work.join("shared.yaml");
        let a_file = work.join("a.yaml");
        let conflicting = work.join("conflicting.yaml");
        let iop = |values: &str| {
            format!(
                "apiVersion: install.istio.io/v1alpha1\nkind: IstioOperator\nspec:\n  values:\n{values}"
            )
        };
        let env = |value: &str| {
            iop(&format!(
                "    pilot:\n      env:\n        BOSUN_MESH_INPUT: {value}\n"
            ))
        };
        std::fs::write(&shared_file, env("shared")).unwrap();
        std::fs::write(&a_file, env("cluster-a")).unwrap();
        std::fs::write(&conflicting, iop("    global:\n      network: net2\n")).unwrap();
        let shared_arg = dir(&shared_file);
        let a_file_arg = format!("{a}={}", dir(&a_file));
        let conflicting_arg = format!("{a}={}", dir(&conflicting));
        let net_a = format!("{a}=net1");
        let net_b = format!("{b}=net1");
        let conflict = format!(
            "--cluster-file {conflicting_arg}: spec.values.global.network is \"net2\", but the mesh sets it to \"net1\" (from --network {a}=net1)"
        );
        // Mixed Istio versions: one cluster's own file names the older snapshot's package.
        let older = work.join("older.yaml");
        std::fs::write(
            &older,
            format!(
                "apiVersion: install.istio.io/v1alpha1\nkind: IstioOperator\nspec:\n  installPackagePath: {}\n",
                dir(&common::mirror::previous_manifests())
            ),
        )
        .unwrap();
        let older_arg = format!("{b}={}", dir(&older));

        let mut failures = Vec::new();
        let ca_arg = dir(&ca);
        let dup_a = format!("{a}=same");
        let dup_b = format!("{b}=same");
        let bad: Vec<(Vec<&str>, &Path, &str)> = vec![
            (
                vec![
                    "--ca",
                    &ca_arg,
                    "--network",
                    &net_a,
                    "--network",
                    &net_b,
                    "--cluster-file",
                    &conflicting_arg,
                ],
                &merged,
                &conflict,
            ),
            (
                vec!["--ca", &ca_arg, "--cluster-file", &older_arg],
                &merged,
                "the clusters would run different Istio install packages",
            ),
            (
                vec!["--context", "nope", "--ca", &ca_arg],
                &merged,
                "context \"nope\" was not found",
            ),
            (
                vec!["--context", "dead", "--ca", &ca_arg],
                &with_dead,
                "context dead: fail to get Kubernetes version: cannot reach the API server https://127.0.0.1:1",
            ),
            (
                vec![
                    "--cluster-name",
                    &dup_a,
                    "--cluster-name",
                    &dup_b,
                    "--ca",
                    &ca_arg,
                ],
                &merged,
                "both name their cluster \"same\"",
            ),
            (
                vec![],
                &merged,
                "no cluster has a Secret istio-system/cacerts",
            ),
        ];
        let before = (snapshot(&ka).await, snapshot(&kb).await);
        let check_refused = |args: &[&str], out: &std::process::Output, expected: &str| {
            if out.status.success() || !stderr(out).contains(expected) {
                Some(format!("{args:?}: expected {expected:?}:\n{}", text(out)))
            } else {
                None
            }
        };
        for (extra, kubeconfig, expected) in &bad {
            let out = two.mesh_install_at(kubeconfig, extra);
            failures.extend(check_refused(extra, &out, expected));
            if (snapshot(&ka).await, snapshot(&kb).await) != before {
                failures.push(format!("{extra:?} wrote to a cluster"));
            }
        }
        // Different roots: each cluster given a cacerts of its own root.
        succeeded(&common::bosun_at(
            &a_config,
            &["mesh", "cacerts", "--dir", &dir(&ca.join(&a))],
        ));
        succeeded(&common::bosun_at(
            &b_config,
            &["mesh", "cacerts", "--dir", &dir(&other.join(&b))],
        ));
        let before = (snapshot(&ka).await, snapshot(&kb).await);
        let out = mesh(&[]);
        failures.extend(check_refused(&[], &out, "hold different root CAs"));
        let out = mesh(&["--ca", &ca_arg]);
        failures.extend(check_refused(
            &["--ca"],
            &out,
            &format!(
                "context \"{b}\": Secret istio-system/cacerts holds another root CA than --ca's"
            ),
        ));
        if (snapshot(&ka).await, snapshot(&kb).await) != before {
            failures.push("a refusal over cacerts wrote to a cluster".into());
        }
        clean(&kb).await;
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));

        // The mesh.
        let started = std::time::Instant::now();
        let out = mesh(&[
            "--ca",
            &ca_arg,
            "--network",
            &net_a,
            "--network",
            &net_b,
            "-f",
            &shared_arg,
            "--cluster-file",
            &a_file_arg,
        ]);
        eprintln!("mesh install took {:?}", started.elapsed());
        succeeded(&out);
        let printed = stdout(&out);
        for context in [&a, &b] {
            assert!(
                printed.contains(&format!("[{context}] ✔ Installation complete")),
                "{printed}"
            );
        }
        assert!(
            printed.contains("✔ Mesh \"mesh1\": 2 clusters, 2 remote secrets"),
            "{printed}"
        );

        let root = std::fs::read_to_string(ca.join("root-cert.pem")).unwrap();
        for (kube, name, other) in [(&ka, &a, &b), (&kb, &b, &a)] {
            let istiod = Api::<Deployment>::namespaced(kube.clone(), NS)
                .get("istiod")
                .await
                .unwrap();
            let ready = istiod
                .status
                .as_ref()
                .and_then(|s| s.ready_replicas)
                .unwrap_or(0);
            assert!(ready >= 1, "{name}: istiod not ready");
            assert_eq!(
                istiod_env(&istiod, "CLUSTER_ID").as_deref(),
                Some(name.as_str())
            );
            // The first cluster's own file over the shared one; the other only the shared.
            assert_eq!(
                istiod_env(&istiod, "BOSUN_MESH_INPUT").as_deref(),
                Some(if name == &a { "cluster-a" } else { "shared" }),
                "{name}: --cluster-file"
            );
            let mesh_config = Api::<ConfigMap>::namespaced(kube.clone(), NS)
                .get("istio")
                .await
                .unwrap()
                .data
                .unwrap()["mesh"]
                .clone();
            assert!(
                mesh_config.contains("meshId: mesh1"),
                "{name}: {mesh_config}"
            );
            let ns = Api::<Namespace>::all(kube.clone()).get(NS).await.unwrap();
            assert_eq!(
                ns.metadata
                    .labels
                    .unwrap_or_default()
                    .get("topology.istio.io/network"),
                Some(&"net1".to_string()),
                "{name}: the network label"
            );
            let cacerts = Api::<Secret>::namespaced(kube.clone(), NS)
                .get("cacerts")
                .await
                .unwrap()
                .data
                .unwrap();
            assert!(manifest::cacerts::same_root(
                &String::from_utf8_lossy(&cacerts["root-cert.pem"].0),
                &root
            ));
            let secret = Api::<Secret>::namespaced(kube.clone(), NS)
                .get(&format!("istio-remote-secret-{other}"))
                .await
                .unwrap_or_else(|e| panic!("{name} holds no remote secret of {other}: {e}"));
            let labels = secret.metadata.labels.clone().unwrap_or_default();
            assert_eq!(
                labels.get("istio/multiCluster").map(String::as_str),
                Some("true")
            );
            let kubeconfig =
                String::from_utf8_lossy(&secret.data.unwrap()[other.as_str()].0).into_owned();
            let other_config = if other == &a { &a_config } else { &b_config };
            let other_server = std::fs::read_to_string(other_config)
                .unwrap()
                .lines()
                .find_map(|l| l.trim().strip_prefix("server: ").map(str::to_string))
                .unwrap();
            assert!(
                kubeconfig.contains(&format!("server: {other_server}")),
                "{name}'s secret for {other} does not point at {other_server}:\n{kubeconfig}"
            );
            // istiod takes the secret up and reads the other cluster: it logs that its
            // controller for that cluster synced, which needs the other API server reached
            // with the secret's token. (Its `/debug/clusterz` says the same, but through the
            // API server's pod proxy istiod refuses it: 401, its debug endpoints want a token
            // of their own.)
            let pods = Api::<Pod>::namespaced(kube.clone(), NS);
            let wanted = format!("kube controller for {other} synced");
            let synced = testkit::wait_until(
                &format!("{name}'s istiod to log {wanted:?}"),
                Duration::from_secs(90),
                Duration::from_millis(1000),
                || async {
                    let list = pods
                        .list(&ListParams::default().labels("app=istiod"))
                        .await
                        .ok()?;
                    for pod in list.items {
                        let pod = pod.metadata.name.unwrap_or_default();
                        let log = pods.logs(&pod, &LogParams::default()).await.ok()?;
                        if let Some(line) = log.lines().find(|l| l.contains(&wanted)) {
                            return Some(line.to_string());
                        }
                    }
                    None
                },
            )
            .await;
            match synced {
                Ok(line) => eprintln!("{name}'s istiod: {line}"),
                Err(e) => panic!("{e}"),
            }
        }

        mesh_check_finds_what_breaks(&merged, &ka, &kb, &a, &b, &other).await;

        // --plan writes nothing and shows both clusters; moving the second cluster to another
        // network would add an east-west gateway to each (planned only: its Envoy cannot run
        // here).
        let before = (written(snapshot(&ka).await), written(snapshot(&kb).await));
        let net_b2 = format!("{b}=net2");
        let plan = mesh(&[
            "--ca",
            &ca_arg,
            "--network",
            &net_a,
            "--network",
            &net_b2,
            "--plan",
        ]);
        succeeded(&plan);
        let planned = stdout(&plan);
        for context in [&a, &b] {
            assert!(
                planned.contains(&format!("== context {context}\n")),
                "{planned}"
            );
        }
        for expected in [
            "* update Secret istio-system/cacerts from --ca",
            "* label namespace istio-system topology.istio.io/network=net2",
            "* install the east-west gateway istio-eastwestgateway (IstioOperator eastwest)",
            "* apply Gateway istio-system/cross-network-gateway",
            "+ Deployment istio-system/istio-eastwestgateway (create",
            &format!("* apply Secret istio-system/istio-remote-secret-{b} (reads context {b})"),
        ] {
            assert!(
                planned.contains(expected),
                "{expected:?} not planned:\n{planned}"
            );
        }
        let after = (written(snapshot(&ka).await), written(snapshot(&kb).await));
        if after != before {
            let changed: Vec<&String> = (after.0.iter().chain(after.1.iter()))
                .filter(|(k, v)| before.0.get(*k) != Some(*v) && before.1.get(*k) != Some(*v))
                .map(|(k, _)| k)
                .collect();
            panic!("--plan wrote to a cluster: {changed:?}");
        }

        // uninstall --purge takes the network label off again where bosun alone wrote it; in
        // the second cluster someone else has changed it since, so it stays.
        let namespaces_b = Api::<Namespace>::all(kb.clone());
        let user_label =
            serde_json::json!({"metadata": {"labels": {"topology.istio.io/network": "user-net"}}});
        namespaces_b
            .patch(
                NS,
                &kube::api::PatchParams {
                    field_manager: Some("kubectl-label".into()),
                    ..Default::default()
                },
                &kube::api::Patch::Merge(&user_label),
            )
            .await
            .unwrap();
        let purged = common::bosun_at(&a_config, &["uninstall", "--purge", "-y"]);
        succeeded(&purged);
        assert!(
            stdout(&purged).contains(
                "Removed label topology.istio.io/network=net1 of Namespace istio-system."
            ),
            "{}",
            text(&purged)
        );
        succeeded(&common::bosun_at(
            &b_config,
            &["uninstall", "--purge", "-y"],
        ));
        let network_label = |ns: Namespace| {
            ns.metadata
                .labels
                .unwrap_or_default()
                .get("topology.istio.io/network")
                .cloned()
        };
        let ns_a = Api::<Namespace>::all(ka.clone()).get(NS).await.unwrap();
        assert_eq!(
            network_label(ns_a),
            None,
            "{a}: the network label bosun set"
        );
        let ns_b = namespaces_b.get(NS).await.unwrap();
        assert_eq!(
            network_label(ns_b).as_deref(),
            Some("user-net"),
            "{b}: a label another manager wrote"
        );
        let unlabel =
            serde_json::json!({"metadata": {"labels": {"topology.istio.io/network": null}}});
        namespaces_b
            .patch(NS, &Default::default(), &kube::api::Patch::Merge(&unlabel))
            .await
            .unwrap();
        clean(&ka).await;
        clean(&kb).await;
        let _ = std::fs::remove_dir_all(&work);
    });
}

/// Removes what primary-remote adds, should an uninstall have left it (bosun's before
/// `uninstall --purge` removed them, or a test that failed midway): the Service exposing the
/// primary's istiod, the remote's `istiod` EndpointSlice and the control-plane annotation on
/// the remote's Istio namespace.
async fn clean_primary_remote(primary: &kube::Client, remote: &kube::Client) {
    use k8s_openapi::api::core::v1::Service;
    use k8s_openapi::api::discovery::v1::EndpointSlice;
    let dp = DeleteParams::default();
    let _ = Api::<Service>::namespaced(primary.clone(), NS)
        .delete(manifest::primary_remote::EXPOSED_ISTIOD_SERVICE, &dp)
        .await;
    let _ = Api::<EndpointSlice>::namespaced(remote.clone(), NS)
        .delete("istiod", &dp)
        .await;
    let namespaces = Api::<Namespace>::all(remote.clone());
    if namespaces.get_opt(NS).await.ok().flatten().is_some() {
        let patch = serde_json::json!({"metadata": {"annotations": {
            manifest::primary_remote::CONTROL_PLANE_CLUSTERS: null
        }}});
        namespaces
            .patch(
                NS,
                &kube::api::PatchParams::default(),
                &kube::api::Patch::Merge(&patch),
            )
            .await
            .unwrap();
    }
}

/// Both clusters uninstalled and cleaned (see [`clean`] and [`clean_primary_remote`]).
async fn reset_primary_remote(configs: [&Path; 2], primary: &kube::Client, remote: &kube::Client) {
    for config in configs {
        succeeded(&common::bosun_at(config, &["uninstall", "--purge", "-y"]));
    }
    clean(primary).await;
    clean(remote).await;
    clean_primary_remote(primary, remote).await;
}

/// The manager that owns `field` (a `managedFields` path such as `f:caBundle`) in `object`'s
/// managed fields, with the object's JSON.
fn managers_of(object: &Value, field: &str) -> Vec<String> {
    object["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["fieldsV1"].to_string().contains(&format!("\"{field}\"")))
        .filter_map(|m| m["manager"].as_str().map(str::to_string))
        .collect()
}

/// Primary-remote: `mesh install --context A --context B --remote B`. The checks first (a
/// `--remote` that is not a given context, every context a remote, a second network without
/// `--remote-pilot-address`), each writing nothing. Then the mesh, and what proves that the
/// primary's istiod leads the remote:
/// - the primary's istiod (`EXTERNAL_ISTIOD=true`) holds the remote's secret and logs that its
///   controller for the remote synced; the remote holds no secret of the primary, no istiod
///   Deployment, no `cacerts`, and its Istio namespace names the primary in
///   `topology.istio.io/controlPlaneClusters`;
/// - the remote's injector's `caBundle` is the mesh root (of the primary's `cacerts`: the remote
///   has none) and was written by the manager `pilot-discovery` (istiod's), not by the install
///   (bosun); the remote's `default` namespace holds `istio-ca-root-cert` with that root, also
///   written by `pilot-discovery`: there is no istiod on the remote, so it is the primary's,
///   reaching the remote API server with the remote secret's token;
/// - injection on the remote goes through `global.remotePilotAddress`: a Pod created (server
///   dry run) in an injection-enabled namespace of the remote comes back with `istio-proxy`,
///   whose `ISTIO_META_CLUSTER_ID` is the remote's (from the injection path), so the remote's API
///   server reached the primary's istiod at the primary's node address.
///
/// What the test clusters cannot show: the proxies themselves (Istio's Envoy cannot be built
/// here), so no sidecar of the remote ever connects to the primary's istiod on 15012 and no
/// traffic crosses the clusters.
#[test]
fn mesh_install_primary_remote_on_two_living_clusters() {
    let _clusters = lock_clusters();
    let two = TwoClusters::new("bosun-mesh-remote");
    let TwoClusters {
        living,
        a_config,
        b_config,
        a,
        b,
        merged,
        work,
        ..
    } = two.clone();
    let mesh = |extra: &[&str]| two.mesh_install(extra);
    common::run(async {
        let ka = testenv::living_client().await.kube().clone();
        let kb = testenv::second_living_client().await.kube().clone();
        reset_primary_remote([&a_config, &b_config], &ka, &kb).await;

        // The primary's CA only: a remote needs none.
        let ca = work.join("ca");
        let ca_arg = ca.display().to_string();
        succeeded(&common::bosun_at(
            &merged,
            &["mesh", "ca", "--cluster", &a, "--out", &ca_arg],
        ));

        let net_a = format!("{a}=net1");
        let net_b = format!("{b}=net2");
        let bad: Vec<(Vec<&str>, String)> = vec![
            (
                vec!["--remote", "nope", "--ca", &ca_arg],
                format!("--remote nope: \"nope\" is not one of the --context values ({a}, {b})"),
            ),
            (
                vec!["--remote", &a, "--remote", &b, "--ca", &ca_arg],
                "every context is a --remote".to_string(),
            ),
            (
                vec![
                    "--remote",
                    &b,
                    "--ca",
                    &ca_arg,
                    "--network",
                    &net_a,
                    "--network",
                    &net_b,
                ],
                format!(
                    "the remotes reach the primary \"{a}\" on another network, through its east-west gateway: pass --remote-pilot-address"
                ),
            ),
        ];
        let before = (snapshot(&ka).await, snapshot(&kb).await);
        let mut failures = Vec::new();
        for (extra, expected) in &bad {
            let out = mesh(extra);
            if out.status.success() || !stderr(&out).contains(expected.as_str()) {
                failures.push(format!("{extra:?}: expected {expected:?}:\n{}", text(&out)));
            }
        }
        if (snapshot(&ka).await, snapshot(&kb).await) != before {
            failures.push("a refused primary-remote install wrote to a cluster".into());
        }
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));

        // --plan shows the remote's steps and writes nothing.
        let plan = mesh(&["--remote", &b, "--ca", &ca_arg, "--plan"]);
        succeeded(&plan);
        let planned = stdout(&plan);
        for expected in [
            format!("* annotate namespace istio-system topology.istio.io/controlPlaneClusters={a}"),
            "* no Secret istio-system/cacerts: the primary's istiod signs this cluster's workloads"
                .to_string(),
            format!("* apply Secret istio-system/istio-remote-secret-{b} (reads context {b})"),
            "* apply Service istio-system/istiod-exposed".to_string(),
        ] {
            assert!(
                planned.contains(&expected),
                "{expected:?} not planned:\n{planned}"
            );
        }
        assert!(
            !planned.contains(&format!("istio-remote-secret-{a}")),
            "a remote reads no cluster:\n{planned}"
        );
        if (snapshot(&ka).await, snapshot(&kb).await) != before {
            panic!("--plan wrote to a cluster");
        }

        let started = std::time::Instant::now();
        let out = mesh(&["--remote", &b, "--ca", &ca_arg]);
        eprintln!("primary-remote mesh install took {:?}", started.elapsed());
        succeeded(&out);
        let printed = stdout(&out);
        for expected in [
            format!(
                "[{b}] ✔ Namespace istio-system annotated topology.istio.io/controlPlaneClusters={a}"
            ),
            format!("[{a}] ✔ Installation complete"),
            format!("[{b}] ✔ Installation complete"),
            "✔ Mesh \"mesh1\": 2 clusters, 1 remote secrets".to_string(),
        ] {
            assert!(printed.contains(&expected), "{expected:?}:\n{printed}");
        }

        // The primary: istiod told to lead remotes, reading the remote with its secret.
        let istiod = Api::<Deployment>::namespaced(ka.clone(), NS)
            .get("istiod")
            .await
            .unwrap();
        assert_eq!(
            istiod_env(&istiod, "EXTERNAL_ISTIOD").as_deref(),
            Some("true")
        );
        Api::<Secret>::namespaced(ka.clone(), NS)
            .get(&format!("istio-remote-secret-{b}"))
            .await
            .unwrap_or_else(|e| panic!("the primary holds no remote secret of {b}: {e}"));
        let pods = Api::<Pod>::namespaced(ka.clone(), NS);
        let wanted = format!("kube controller for {b} synced");
        let synced = testkit::wait_until(
            &format!("the primary's istiod to log {wanted:?}"),
            Duration::from_secs(90),
            Duration::from_millis(1000),
            || async {
                let list = pods
                    .list(&ListParams::default().labels("app=istiod"))
                    .await
                    .ok()?;
                for pod in list.items {
                    let pod = pod.metadata.name.unwrap_or_default();
                    let log = pods.logs(&pod, &LogParams::default()).await.ok()?;
                    if let Some(line) = log.lines().find(|l| l.contains(&wanted)) {
                        return Some(line.to_string());
                    }
                }
                None
            },
        )
        .await;
        match synced {
            Ok(line) => eprintln!("the primary's istiod: {line}"),
            Err(e) => panic!("{e}"),
        }

        // The remote: no istiod, no CA, no secret of the primary; led by the primary.
        assert!(
            Api::<Deployment>::namespaced(kb.clone(), NS)
                .get_opt("istiod")
                .await
                .unwrap()
                .is_none(),
            "the remote runs an istiod"
        );
        let remote_secrets = Api::<Secret>::namespaced(kb.clone(), NS);
        for name in ["cacerts".to_string(), format!("istio-remote-secret-{a}")] {
            assert!(
                remote_secrets.get_opt(&name).await.unwrap().is_none(),
                "the remote holds Secret {name}"
            );
        }
        let ns = Api::<Namespace>::all(kb.clone()).get(NS).await.unwrap();
        assert_eq!(
            ns.metadata
                .annotations
                .unwrap_or_default()
                .get(manifest::primary_remote::CONTROL_PLANE_CLUSTERS),
            Some(&a)
        );
        let root = std::fs::read_to_string(ca.join("root-cert.pem")).unwrap();
        let webhooks = Api::<MutatingWebhookConfiguration>::all(kb.clone());
        let led = testkit::wait_until(
            "the primary's istiod to patch the remote's injector and write istio-ca-root-cert",
            Duration::from_secs(60),
            Duration::from_millis(500),
            || async {
                let webhook = webhooks.get("istio-sidecar-injector").await.ok()?;
                let bundle = webhook
                    .webhooks
                    .as_ref()?
                    .first()?
                    .client_config
                    .ca_bundle
                    .clone()?;
                if !manifest::cacerts::same_root(&String::from_utf8_lossy(&bundle.0), &root) {
                    return None;
                }
                let config_map = Api::<ConfigMap>::namespaced(kb.clone(), "default")
                    .get_opt("istio-ca-root-cert")
                    .await
                    .ok()??;
                let cert = config_map.data.as_ref()?.get("root-cert.pem")?.clone();
                if !manifest::cacerts::same_root(&cert, &root) {
                    return None;
                }
                Some((
                    serde_json::to_value(&webhook).unwrap(),
                    serde_json::to_value(&config_map).unwrap(),
                ))
            },
        )
        .await;
        let (webhook, config_map) = led.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            managers_of(&webhook, "f:caBundle"),
            vec!["pilot-discovery".to_string()],
            "the injector's caBundle is istiod's write"
        );
        assert_eq!(
            managers_of(&config_map, "f:root-cert.pem"),
            vec!["pilot-discovery".to_string()],
            "istio-ca-root-cert is istiod's write"
        );

        // Injection on the remote, served by the primary's istiod at the node address.
        let injected_ns = "bosun-remote-injection";
        let namespaces = Api::<Namespace>::all(kb.clone());
        let namespace: Namespace = serde_json::from_value(serde_json::json!({
            "metadata": {"name": injected_ns, "labels": {"istio-injection": "enabled"}}
        }))
        .unwrap();
        namespaces
            .create(&Default::default(), &namespace)
            .await
            .unwrap();
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "injected"},
            "spec": {"containers": [{"name": "app", "image": living.busybox_image.clone()}]}
        }))
        .unwrap();
        // kube-proxy on both clusters programs the path (the remote's `istiod` Service to the
        // primary's node address, that node's external IP to istiod) a moment after the
        // install: until then the API server's webhook call is refused.
        let pods = Api::<Pod>::namespaced(kb.clone(), injected_ns);
        let dry_run = kube::api::PostParams {
            dry_run: true,
            ..Default::default()
        };
        let started = std::time::Instant::now();
        let created = loop {
            let created = pods.create(&dry_run, &pod).await;
            match &created {
                Err(kube::Error::Api(s))
                    if s.message.contains("failed calling webhook")
                        && started.elapsed() < Duration::from_secs(30) =>
                {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
                _ => break created,
            }
        };
        let _ = namespaces
            .delete(injected_ns, &DeleteParams::default())
            .await;
        let created = created.unwrap_or_else(|e| panic!("creating a pod on the remote: {e}"));
        let spec = created.spec.unwrap();
        let proxy = spec
            .containers
            .iter()
            .chain(spec.init_containers.iter().flatten())
            .find(|c| c.name == "istio-proxy")
            .unwrap_or_else(|| panic!("the remote's pod was not injected: {spec:?}"));
        let cluster_id = proxy
            .env
            .iter()
            .flatten()
            .find(|e| e.name == "ISTIO_META_CLUSTER_ID")
            .and_then(|e| e.value.clone());
        assert_eq!(cluster_id.as_deref(), Some(b.as_str()));

        // mesh check knows the remote: no istiod, secrets or root expected there; the
        // primary's secret for it working and its istiod reporting it synced.
        let (code, out, err) = mesh_check(&merged, &a, &b, false);
        assert_eq!(code, Some(0), "primary-remote mesh:\n{out}\n{err}");
        assert!(
            out.contains(&format!(
                "Info [BOSUN-MESH001] (cluster {a}) remote secret istio-system/istio-remote-secret-{b} for cluster {b}:"
            )),
            "{out}"
        );

        // uninstall --purge removes what the mesh made for primary-remote (istioctl's purge
        // leaves the remote's `istiod` EndpointSlice, not among its pruned kinds): the
        // exposed istiod Service, the EndpointSlice, the control-plane annotation.
        for config in [&a_config, &b_config] {
            succeeded(&common::bosun_at(config, &["uninstall", "--purge", "-y"]));
        }
        use k8s_openapi::api::core::v1::Service;
        use k8s_openapi::api::discovery::v1::EndpointSlice;
        assert!(
            Api::<Service>::namespaced(ka.clone(), NS)
                .get_opt(manifest::primary_remote::EXPOSED_ISTIOD_SERVICE)
                .await
                .unwrap()
                .is_none(),
            "uninstall --purge left the primary's istiod-exposed Service"
        );
        let slices: Vec<String> = Api::<EndpointSlice>::namespaced(kb.clone(), NS)
            .list(&ListParams::default())
            .await
            .unwrap()
            .items
            .into_iter()
            .filter_map(|s| s.metadata.name)
            .collect();
        assert!(
            !slices.contains(&"istiod".to_string()),
            "uninstall --purge left the remote's EndpointSlices {slices:?}"
        );
        let ns = Api::<Namespace>::all(kb.clone()).get(NS).await.unwrap();
        assert_eq!(
            ns.metadata
                .annotations
                .unwrap_or_default()
                .get(manifest::primary_remote::CONTROL_PLANE_CLUSTERS),
            None,
            "uninstall --purge left the remote's control-plane annotation"
        );

        reset_primary_remote([&a_config, &b_config], &ka, &kb).await;
        let _ = std::fs::remove_dir_all(&work);
    });
}

/// The east-west gateway's IstioOperator is what the pinned Istio's
/// `samples/multicluster/gen-eastwest-gateway.sh` prints, byte for byte, with and without a
/// revision; the cross-network Gateway is `samples/multicluster/expose-services.yaml`'s, in the
/// Istio namespace. No cluster: the script runs with bash.
#[test]
fn the_east_west_gateway_is_istios_samples() {
    let istio = common::fetched("BOSUN_ISTIO", "fetch-istio");
    let samples = istio.join("samples/multicluster");
    for (network, revision) in [("net1", None), ("network-2", Some("canary"))] {
        let mut command = std::process::Command::new("bash");
        command
            .arg(samples.join("gen-eastwest-gateway.sh"))
            .args(["--network", network]);
        if let Some(revision) = revision {
            command.args(["--revision", revision]);
        }
        let out = command.output().expect("running bash");
        assert!(out.status.success(), "{}", text(&out));
        assert_eq!(
            manifest::eastwest::iop(network, revision),
            stdout(&out),
            "network {network}, revision {revision:?}"
        );
    }
    let sample = std::fs::read_to_string(samples.join("expose-services.yaml")).unwrap();
    let mut expected = goyaml::from_yaml_json(&sample).unwrap();
    expected["metadata"]["namespace"] = "istio-system".into();
    // YAML numbers read as float64 (sigs.k8s.io/yaml's JSON): compare numbers as numbers.
    fn numbers_as_f64(v: &mut Value) {
        match v {
            Value::Number(n) => *v = serde_json::json!(n.as_f64().unwrap()),
            Value::Array(a) => a.iter_mut().for_each(numbers_as_f64),
            Value::Object(o) => o.values_mut().for_each(numbers_as_f64),
            _ => {}
        }
    }
    let mut ours = manifest::eastwest::expose_services("istio-system");
    numbers_as_f64(&mut ours);
    numbers_as_f64(&mut expected);
    assert_eq!(ours, expected);
}

/// The Gateway and VirtualService that expose the primary's istiod through its east-west
/// gateway are the pinned Istio's `samples/multicluster/expose-istiod.yaml` and, with a
/// revision, `expose-istiod-rev.yaml.tmpl` (its `{{.Revision}}` filled in), in the Istio
/// namespace. No cluster.
#[test]
fn expose_istiod_is_istios_sample() {
    let istio = common::fetched("BOSUN_ISTIO", "fetch-istio");
    let samples = istio.join("samples/multicluster");
    fn numbers_as_f64(v: &mut Value) {
        match v {
            Value::Number(n) => *v = serde_json::json!(n.as_f64().unwrap()),
            Value::Array(a) => a.iter_mut().for_each(numbers_as_f64),
            Value::Object(o) => o.values_mut().for_each(numbers_as_f64),
            _ => {}
        }
    }
    for (file, revision) in [
        ("expose-istiod.yaml", None),
        ("expose-istiod-rev.yaml.tmpl", Some("canary")),
    ] {
        let text = std::fs::read_to_string(samples.join(file))
            .unwrap()
            .replace("{{.Revision}}", revision.unwrap_or_default());
        let mut expected: Vec<Value> = text
            .split("\n---\n")
            .filter(|d| d.contains("kind:"))
            .map(|d| {
                let mut v = goyaml::from_yaml_json(d).unwrap();
                v["metadata"]["namespace"] = "istio-system".into();
                numbers_as_f64(&mut v);
                v
            })
            .collect();
        let mut ours = manifest::primary_remote::expose_istiod("istio-system", revision);
        ours.iter_mut().for_each(numbers_as_f64);
        expected.iter_mut().for_each(numbers_as_f64);
        assert_eq!(ours, expected, "{file}");
    }
}
