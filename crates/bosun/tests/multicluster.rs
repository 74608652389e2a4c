//! Multi-cluster pieces on the living cluster (`scripts/testenv up --living`), around one
//! shared install: a shared root of trust (`mesh ca`, `mesh cacerts`) that istiod really
//! uses, and `bosun create-remote-secret` against `istioctl create-remote-secret` (the token
//! Secret both make is filled by kube-controller-manager's token controller, which only the
//! living cluster runs).
//!
//! The root of trust: `mesh ca` writes a root and two intermediates, `mesh cacerts` creates
//! `istio-system/cacerts` from one before the install, and istiod, once running, publishes
//! that root in every namespace's `istio-ca-root-cert` ConfigMap. Then `mesh cacerts` with
//! another root is refused and leaves the Secret as it was, the same root's other
//! intermediate is accepted, and `--force` replaces it.
//!
//! One minimal install (with the images built for the living cluster) is shared by every case.
//! Each parity case runs istioctl (`BOSUN_ISTIOCTL`, else `scripts/fetch-istioctl`), records
//! what it printed and every object it made or changed (the namespace, Secrets and
//! ServiceAccounts in it, the `istio-reader-clusterrole*` ClusterRoles and bindings), undoes
//! that, then runs bosun with the same flags and requires the same: stdout byte for byte
//! with the token masked, the same warnings, and the same objects compared as JSON with
//! server-set fields (uid, resourceVersion, timestamps, managedFields) and the token aside.
//! After the default case, istioctl is run again on bosun's token Secret and must print
//! exactly what bosun printed, token included (each finds the other's Secret).
//!
//! Cases: the defaults; `--type config`; `--server`, `--tls-server-name` and `--context`;
//! `--auth-type plugin`; a namespace that does not exist (created, with the reader service
//! account and cluster role rendered from the charts); and no `-n` with a context that sets a
//! namespace.
//!
//! Bad input cases run bosun alone and require an error naming the problem and no change to
//! the cluster at all.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use cluster::testenv;
use common::{stderr, stdout, succeeded, text};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Secret, ServiceAccount};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
use kube::Api;
use kube::api::{DeleteParams, ListParams};
use serde_json::Value;

const ISTIO_NS: &str = "istio-system";
/// The namespace of the cases that create it (and the service account in it).
const NEW_NS: &str = "remote-secret-new";
/// A namespace that must still not exist after each bad-input case.
const BAD_NS: &str = "remote-secret-bad";

fn run_tool(tool: &Path, kubeconfig: &Path, args: &[&str]) -> Output {
    Command::new(tool)
        .arg("create-remote-secret")
        .args(args)
        .env("KUBECONFIG", kubeconfig)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", tool.display()))
}

/// The printed Secret with the token's value replaced (the only part that differs between two
/// tokens of one service account).
fn mask_token(printed: &str) -> String {
    printed
        .lines()
        .map(|line| match line.find("token: ") {
            Some(at) if line[..at].trim().is_empty() => format!("{}token: <token>", &line[..at]),
            _ => line.to_string(),
        })
        .map(|line| line + "\n")
        .collect()
}

/// The warnings a run printed (`warn: …` lines).
fn warnings(out: &Output) -> Vec<String> {
    stderr(out)
        .lines()
        .filter(|l| l.starts_with("warn: "))
        .map(str::to_string)
        .collect()
}

/// An object as JSON without what the API server sets on its own, and with the token (and the
/// service account's UID, new each time the account is made) masked.
fn normalize(object: impl serde::Serialize) -> Value {
    let mut value = serde_json::to_value(object).unwrap();
    if let Some(meta) = value["metadata"].as_object_mut() {
        for key in [
            "uid",
            "resourceVersion",
            "creationTimestamp",
            "managedFields",
            "generation",
        ] {
            meta.remove(key);
        }
        if let Some(uid) = meta
            .get_mut("annotations")
            .and_then(|a| a.get_mut("kubernetes.io/service-account.uid"))
        {
            *uid = "<uid>".into();
        }
    }
    if let Some(token) = value.get_mut("data").and_then(|d| d.get_mut("token")) {
        *token = "<token>".into();
    }
    value
}

/// What create-remote-secret may make or change in `ns`, and the reader cluster roles.
async fn snapshot(kube: &kube::Client, ns: &str) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    if let Some(namespace) = Api::<Namespace>::all(kube.clone())
        .get_opt(ns)
        .await
        .unwrap()
    {
        out.insert(format!("Namespace {ns}"), normalize(namespace));
    }
    let all = ListParams::default();
    for secret in Api::<Secret>::namespaced(kube.clone(), ns)
        .list(&all)
        .await
        .unwrap()
        .items
    {
        let name = secret.metadata.name.clone().unwrap_or_default();
        out.insert(format!("Secret {ns}/{name}"), normalize(secret));
    }
    for sa in Api::<ServiceAccount>::namespaced(kube.clone(), ns)
        .list(&all)
        .await
        .unwrap()
        .items
    {
        let name = sa.metadata.name.clone().unwrap_or_default();
        out.insert(format!("ServiceAccount {ns}/{name}"), normalize(sa));
    }
    let reader = |name: &Option<String>| {
        name.as_deref()
            .is_some_and(|n| n.starts_with("istio-reader-clusterrole"))
    };
    for role in Api::<ClusterRole>::all(kube.clone())
        .list(&all)
        .await
        .unwrap()
        .items
    {
        if reader(&role.metadata.name) {
            let name = role.metadata.name.clone().unwrap_or_default();
            out.insert(format!("ClusterRole {name}"), normalize(role));
        }
    }
    for binding in Api::<ClusterRoleBinding>::all(kube.clone())
        .list(&all)
        .await
        .unwrap()
        .items
    {
        if reader(&binding.metadata.name) {
            let name = binding.metadata.name.clone().unwrap_or_default();
            out.insert(format!("ClusterRoleBinding {name}"), normalize(binding));
        }
    }
    out
}

/// What `after` has that `before` has not, or has otherwise.
fn changes(
    before: &BTreeMap<String, Value>,
    after: &BTreeMap<String, Value>,
) -> BTreeMap<String, Value> {
    after
        .iter()
        .filter(|(k, v)| before.get(*k) != Some(*v))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// Deletes what `changes` names (objects it made; nothing here changes an existing object)
/// and waits until they are gone.
async fn undo(kube: &kube::Client, changes: &BTreeMap<String, Value>) {
    let dp = DeleteParams::default();
    for key in changes.keys() {
        let (kind, name) = key.split_once(' ').unwrap();
        let (ns, name) = name.split_once('/').unwrap_or(("", name));
        let _ = match kind {
            "Namespace" => Api::<Namespace>::all(kube.clone())
                .delete(name, &dp)
                .await
                .map(|_| ()),
            "Secret" => Api::<Secret>::namespaced(kube.clone(), ns)
                .delete(name, &dp)
                .await
                .map(|_| ()),
            "ServiceAccount" => Api::<ServiceAccount>::namespaced(kube.clone(), ns)
                .delete(name, &dp)
                .await
                .map(|_| ()),
            "ClusterRole" => Api::<ClusterRole>::all(kube.clone())
                .delete(name, &dp)
                .await
                .map(|_| ()),
            "ClusterRoleBinding" => Api::<ClusterRoleBinding>::all(kube.clone())
                .delete(name, &dp)
                .await
                .map(|_| ()),
            other => panic!("no undo for {other}"),
        };
    }
    for key in changes.keys().filter(|k| k.starts_with("Namespace ")) {
        let name = &key["Namespace ".len()..];
        testkit::wait_until(
            &format!("namespace {name} gone"),
            Duration::from_secs(90),
            Duration::from_millis(250),
            || async {
                Api::<Namespace>::all(kube.clone())
                    .get_opt(name)
                    .await
                    .unwrap()
                    .is_none()
                    .then_some(())
            },
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    }
}

/// Removes what an earlier run may have left: the token Secrets create-remote-secret makes in
/// istio-system, this file's namespaces and their reader cluster roles.
async fn clean(kube: &kube::Client) {
    let _ = Api::<Secret>::namespaced(kube.clone(), ISTIO_NS)
        .delete("cacerts", &DeleteParams::default())
        .await;
    let mut left = BTreeMap::new();
    for (key, value) in snapshot(kube, ISTIO_NS).await {
        if key.starts_with("Secret ") && key.ends_with("-istio-remote-secret-token") {
            left.insert(key, value);
        }
    }
    for ns in [NEW_NS, BAD_NS] {
        for (key, value) in snapshot(kube, ns).await {
            let own = key == format!("Namespace {ns}")
                || key == format!("ClusterRole istio-reader-clusterrole-{ns}")
                || key == format!("ClusterRoleBinding istio-reader-clusterrole-{ns}");
            if own {
                left.insert(key, value);
            }
        }
    }
    undo(kube, &left).await;
}

struct Parity<'a> {
    name: &'a str,
    args: &'a [&'a str],
    /// The namespace the case writes in.
    ns: &'a str,
    /// istioctl's create-remote-secret flags run first and kept for the case (both tools then
    /// find that token Secret).
    prepare: Option<&'a [&'a str]>,
    /// The objects the case must make (bosun and istioctl alike).
    made: &'a [&'a str],
    /// Run with a copy of the kubeconfig whose context sets this namespace.
    context_namespace: Option<&'a str>,
}

/// A copy of `kubeconfig` (one context, as `scripts/testenv` writes it) whose context sets
/// `namespace`.
fn with_context_namespace(kubeconfig: &Path, namespace: &str) -> std::path::PathBuf {
    let text = std::fs::read_to_string(kubeconfig).unwrap();
    assert_eq!(
        text.matches("\n  context:\n").count(),
        1,
        "one context:\n{text}"
    );
    let copy = kubeconfig.with_file_name(format!("kubeconfig-remote-secret-{namespace}"));
    std::fs::write(
        &copy,
        text.replace(
            "\n  context:\n",
            &format!("\n  context:\n    namespace: {namespace}\n"),
        ),
    )
    .unwrap();
    copy
}

#[test]
fn shared_root_and_remote_secrets() {
    let istioctl = common::fetched("BOSUN_ISTIOCTL", "fetch-istioctl");
    let bosun = Path::new(env!("CARGO_BIN_EXE_bosun"));
    let kubeconfig = testenv::living_kubeconfig();
    let living = testenv::living();
    common::run(async {
        let kube = testenv::living_client().await.kube().clone();
        succeeded(&common::bosun_at(
            kubeconfig,
            &["uninstall", "--purge", "-y"],
        ));
        clean(&kube).await;
        // The shared root of trust, in place before istiod starts.
        let ca = std::env::temp_dir().join(format!("bosun-living-ca-{}", std::process::id()));
        let other = ca.join("other");
        let _ = std::fs::remove_dir_all(&ca);
        let ca_dir = |p: &Path| p.to_str().unwrap().to_string();
        succeeded(&common::bosun_at(
            kubeconfig,
            &[
                "mesh",
                "ca",
                "--cluster",
                "east",
                "--cluster",
                "west",
                "--out",
                &ca_dir(&ca),
            ],
        ));
        succeeded(&common::bosun_at(
            kubeconfig,
            &["mesh", "ca", "--cluster", "east", "--out", &ca_dir(&other)],
        ));
        let cacerts = |dir: &Path, force: bool| {
            let dir = ca_dir(dir);
            let mut args = vec!["mesh", "cacerts", "--dir", dir.as_str()];
            if force {
                args.push("--force");
            }
            common::bosun_at(kubeconfig, &args)
        };
        let created = cacerts(&ca.join("east"), false);
        succeeded(&created);
        assert_eq!(stdout(&created), "Secret istio-system/cacerts created\n");
        let hub = format!("hub={}", living.hub);
        let tag = format!("tag={}", living.tag);
        let install = common::bosun_at(
            kubeconfig,
            &[
                "install",
                "-y",
                "--set",
                "profile=minimal",
                "--set",
                &hub,
                "--set",
                &tag,
            ],
        );
        succeeded(&install);

        let root = std::fs::read_to_string(ca.join("root-cert.pem")).unwrap();
        // An earlier istiod's ConfigMap can still be there when this one starts (nothing owns
        // it, so uninstall leaves it): wait for istiod to rewrite it with the plugged root.
        let last_seen = std::sync::Mutex::new(String::new());
        let published = testkit::wait_until(
            "istiod's istio-ca-root-cert in namespace default to hold the plugged root",
            Duration::from_secs(90),
            Duration::from_millis(500),
            || async {
                let seen = Api::<ConfigMap>::namespaced(kube.clone(), "default")
                    .get_opt("istio-ca-root-cert")
                    .await
                    .unwrap()
                    .and_then(|cm| cm.data?.get("root-cert.pem").cloned())?;
                *last_seen.lock().unwrap() = seen.clone();
                manifest::cacerts::same_root(&seen, &root).then_some(seen)
            },
        )
        .await;
        if let Err(e) = published {
            panic!(
                "{e}: istiod publishes another root:\n{}\nnot\n{root}",
                last_seen.lock().unwrap()
            );
        }
        let live_cacerts = || async {
            Api::<Secret>::namespaced(kube.clone(), ISTIO_NS)
                .get("cacerts")
                .await
                .unwrap()
                .data
                .unwrap()
        };
        let before = live_cacerts().await;
        let refused = cacerts(&other.join("east"), false);
        assert!(!refused.status.success(), "{}", text(&refused));
        assert!(
            stderr(&refused).contains("Secret istio-system/cacerts holds another root CA"),
            "{}",
            text(&refused)
        );
        assert_eq!(
            live_cacerts().await,
            before,
            "a refused cacerts was written"
        );
        let same_root = cacerts(&ca.join("west"), false);
        succeeded(&same_root);
        assert!(stdout(&same_root).contains("updated (same root)"));
        let forced = cacerts(&other.join("east"), true);
        succeeded(&forced);
        assert!(stdout(&forced).contains("replaced"));
        let replaced = live_cacerts().await;
        let other_root = std::fs::read_to_string(other.join("root-cert.pem")).unwrap();
        assert!(manifest::cacerts::same_root(
            &String::from_utf8_lossy(&replaced["root-cert.pem"].0),
            &other_root
        ));
        let _ = std::fs::remove_dir_all(&ca);

        // The kubeconfig's one context, named on the command line in one case.
        let context = std::fs::read_to_string(kubeconfig)
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix("current-context: ").map(str::to_string))
            .expect("the living kubeconfig's current-context");
        let cases = [
            Parity {
                name: "defaults (the kube-system UID as name)",
                args: &[],
                ns: ISTIO_NS,
                prepare: None,
                context_namespace: None,
                made: &[
                    "Secret istio-system/istio-reader-service-account-istio-remote-secret-token",
                ],
            },
            Parity {
                name: "--type config",
                args: &["--type", "config", "--name", "east"],
                ns: ISTIO_NS,
                prepare: None,
                context_namespace: None,
                made: &["Secret istio-system/istiod-istio-remote-secret-token"],
            },
            Parity {
                name: "--server and --tls-server-name",
                args: &[
                    "--name",
                    "east",
                    "--server",
                    "https://east.example:6443",
                    "--tls-server-name",
                    "east.example",
                    "--context",
                    &context,
                ],
                ns: ISTIO_NS,
                prepare: None,
                context_namespace: None,
                made: &[
                    "Secret istio-system/istio-reader-service-account-istio-remote-secret-token",
                ],
            },
            // istioctl reads ca.crt at once with a plugin, before the token controller has
            // filled a Secret it just made ("no "ca.crt" data found"), so the token Secret is
            // made first; bosun waits for it (checked below).
            Parity {
                name: "--auth-type plugin",
                args: &[
                    "--name",
                    "east",
                    "--auth-type",
                    "plugin",
                    "--auth-plugin-name",
                    "gcp",
                ],
                ns: ISTIO_NS,
                prepare: Some(&["--name", "east"]),
                context_namespace: None,
                made: &[],
            },
            Parity {
                name: "a new namespace: namespace, reader service account and role created",
                args: &["--name", "east", "-n", NEW_NS],
                ns: NEW_NS,
                prepare: None,
                context_namespace: None,
                made: &[
                    "Namespace remote-secret-new",
                    "ServiceAccount remote-secret-new/istio-reader-service-account",
                    "Secret remote-secret-new/istio-reader-service-account-istio-remote-secret-token",
                    "ClusterRole istio-reader-clusterrole-remote-secret-new",
                    "ClusterRoleBinding istio-reader-clusterrole-remote-secret-new",
                ],
            },
            // No -n: the namespace the kubeconfig's context sets.
            Parity {
                name: "the context's namespace",
                args: &["--name", "east"],
                ns: NEW_NS,
                prepare: None,
                context_namespace: Some(NEW_NS),
                made: &[
                    "Namespace remote-secret-new",
                    "ServiceAccount remote-secret-new/istio-reader-service-account",
                    "Secret remote-secret-new/istio-reader-service-account-istio-remote-secret-token",
                ],
            },
        ];
        let mut failures = Vec::new();
        for case in &cases {
            let copied = case
                .context_namespace
                .map(|ns| with_context_namespace(kubeconfig, ns));
            let kubeconfig = copied.as_deref().unwrap_or(kubeconfig);
            let start = snapshot(&kube, case.ns).await;
            if let Some(prepare) = case.prepare {
                succeeded(&run_tool(&istioctl, kubeconfig, prepare));
            }
            let before = snapshot(&kube, case.ns).await;
            let theirs = run_tool(&istioctl, kubeconfig, case.args);
            let after_theirs = snapshot(&kube, case.ns).await;
            let made_by_theirs = changes(&before, &after_theirs);
            undo(&kube, &made_by_theirs).await;
            assert_eq!(
                snapshot(&kube, case.ns).await,
                before,
                "{}: undoing istioctl's objects",
                case.name
            );
            let ours = run_tool(bosun, kubeconfig, case.args);
            let after_ours = snapshot(&kube, case.ns).await;
            let made_by_ours = changes(&before, &after_ours);

            let mut problems = Vec::new();
            if !theirs.status.success() || !ours.status.success() {
                problems.push(format!(
                    "istioctl: {}\nbosun: {}",
                    text(&theirs),
                    text(&ours)
                ));
            }
            if mask_token(&stdout(&theirs)) != mask_token(&stdout(&ours)) {
                problems.push(format!(
                    "stdout differs:\n--- istioctl\n{}--- bosun\n{}",
                    mask_token(&stdout(&theirs)),
                    mask_token(&stdout(&ours))
                ));
            }
            if warnings(&theirs) != warnings(&ours) {
                problems.push(format!(
                    "warnings differ: istioctl {:?}, bosun {:?}",
                    warnings(&theirs),
                    warnings(&ours)
                ));
            }
            if made_by_theirs != made_by_ours {
                problems.push(format!(
                    "objects differ:\n--- istioctl\n{}\n--- bosun\n{}",
                    serde_json::to_string_pretty(&made_by_theirs).unwrap(),
                    serde_json::to_string_pretty(&made_by_ours).unwrap()
                ));
            }
            for expected in case.made {
                if !made_by_ours.contains_key(*expected) {
                    problems.push(format!("{expected} was not made"));
                }
            }
            if made_by_ours
                .iter()
                .any(|(k, v)| k.starts_with("Secret ") && v["data"]["token"] != "<token>")
            {
                problems.push("a token Secret was not filled".into());
            }
            if case.args.is_empty() && problems.is_empty() {
                // Each finds the other's token Secret: istioctl, run again, uses bosun's and
                // prints what bosun printed, token and all.
                let again = run_tool(&istioctl, kubeconfig, case.args);
                if stdout(&again) != stdout(&ours) {
                    problems.push(format!(
                        "istioctl on bosun's token Secret printed another Secret:\n{}",
                        text(&again)
                    ));
                }
            }
            if !problems.is_empty() {
                failures.push(format!("{}:\n{}", case.name, problems.join("\n")));
            }
            let end = snapshot(&kube, case.ns).await;
            undo(&kube, &changes(&start, &end)).await;
            if let Some(copy) = &copied {
                let _ = std::fs::remove_file(copy);
            }
        }

        // With a plugin, bosun waits for the token controller where istioctl fails.
        let fresh_plugin = run_tool(
            bosun,
            kubeconfig,
            &[
                "--name",
                "east",
                "--auth-type",
                "plugin",
                "--auth-plugin-name",
                "gcp",
            ],
        );
        if !fresh_plugin.status.success()
            || !stdout(&fresh_plugin).contains("certificate-authority-data: ")
        {
            failures.push(format!(
                "--auth-type plugin on a new token Secret:\n{}",
                text(&fresh_plugin)
            ));
        }
        clean(&kube).await;

        // Bad input: an error naming the problem, and nothing written.
        let bad: [(&[&str], &str); 5] = [
            (
                &["--name", "Bad_Name", "-n", BAD_NS],
                "Bad_Name is not a valid DNS 1123 label",
            ),
            (&["--type", "foo", "-n", BAD_NS], "unsupported type: foo"),
            (
                &["--auth-type", "foo", "-n", BAD_NS],
                "unsupported authentication type: foo",
            ),
            (
                &["--create-service-account=false", "-n", BAD_NS],
                "service account remote-secret-bad/istio-reader-service-account does not exist",
            ),
            // istioctl applies the reader objects here and only then finds no `istiod`.
            (
                &["--type", "config", "-n", BAD_NS],
                "service account remote-secret-bad/istiod does not exist, and only istio-reader-service-account can be created",
            ),
        ];
        let before_bad = (
            snapshot(&kube, BAD_NS).await,
            snapshot(&kube, ISTIO_NS).await,
        );
        for (args, expected) in bad {
            let out = run_tool(bosun, kubeconfig, args);
            let after = (
                snapshot(&kube, BAD_NS).await,
                snapshot(&kube, ISTIO_NS).await,
            );
            if out.status.success() || !stderr(&out).contains(expected) || !stdout(&out).is_empty()
            {
                failures.push(format!("{args:?}: expected {expected:?}:\n{}", text(&out)));
            }
            if after != before_bad {
                failures.push(format!(
                    "{args:?} wrote to the cluster: {:?}",
                    changes(&before_bad.0, &after.0)
                        .keys()
                        .chain(changes(&before_bad.1, &after.1).keys())
                        .collect::<Vec<_>>()
                ));
                clean(&kube).await;
            }
        }

        succeeded(&common::bosun_at(
            kubeconfig,
            &["uninstall", "--purge", "-y"],
        ));
        clean(&kube).await;
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    });
}
