//! `--kubeconfig`, `--context` and `KUBECONFIG` lists point bosun at the cluster they name,
//! shown with two real API servers: the shared test control plane (`cluster::testenv`) and a
//! private one this test starts (and stops when done, also when it fails). One kubeconfig holds
//! both under distinct cluster, user and context names; each server is marked by a namespace
//! only it has, labelled with a revision only it is asked about, so `bosun revision list` and
//! `bosun plan` print something that tells the servers apart.
//!
//! bosun runs with `HOME` in an empty directory and without `KUBECONFIG` unless a case sets
//! it, so nothing but the two test servers can be reached.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use cluster::testenv;
use common::{run, stderr, stdout, text};
use k8s_openapi::api::core::v1::Namespace;
use kube::Api;
use kube::api::{Patch, PatchParams, PostParams};
use kube::config::Kubeconfig;

/// `path`'s kubeconfig with its (only) cluster, user and context renamed to `name`, `name`
/// and `name`, and `name` its current context.
fn renamed(path: &Path, name: &str) -> Kubeconfig {
    let mut config =
        Kubeconfig::read_from(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let current = config.current_context.clone().expect("a current context");
    config.contexts.retain(|c| c.name == current);
    let context = config.contexts[0].context.as_mut().expect("a context");
    let (cluster, user) = (context.cluster.clone(), context.user.clone());
    context.cluster = name.into();
    context.user = Some(name.into());
    config.contexts[0].name = name.into();
    config.clusters.retain(|c| c.name == cluster);
    config.clusters[0].name = name.into();
    config.auth_infos.retain(|u| Some(&u.name) == user.as_ref());
    config.auth_infos[0].name = name.into();
    config.current_context = Some(name.into());
    config
}

/// Writes `config` to `path` (as JSON, which is YAML).
fn write(path: &Path, config: &Kubeconfig) -> PathBuf {
    std::fs::write(
        path,
        serde_json::to_string(config).expect("a kubeconfig as JSON"),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    path.to_path_buf()
}

/// `bosun ARGS` with `HOME` in `home` (no `~/.kube/config`), `KUBECONFIG` as given, and no
/// in-cluster service account; bosun's cache stays where this test's is.
fn bosun(home: &Path, kubeconfig: Option<&std::ffi::OsStr>, args: &[&str]) -> Output {
    let cache = std::env::var_os("BOSUN_CACHE")
        .filter(|c| !c.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/bosun")))
        .expect("BOSUN_CACHE or HOME");
    let mut c = Command::new(env!("CARGO_BIN_EXE_bosun"));
    c.args(args)
        .env("HOME", home)
        .env("BOSUN_CACHE", cache)
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .stdin(Stdio::null());
    if let Some(k) = kubeconfig {
        c.env("KUBECONFIG", k);
    }
    c.output().expect("running bosun")
}

/// The revisions `revision list -o json` lists, among `ours`.
fn listed(out: &Output, ours: &[&str]) -> BTreeSet<String> {
    assert!(out.status.success(), "revision list failed\n{}", text(out));
    let json: serde_json::Value = serde_json::from_str(&stdout(out))
        .unwrap_or_else(|e| panic!("revision list -o json: {e}\n{}", text(out)));
    json["revisions"]
        .as_array()
        .expect("revisions")
        .iter()
        .filter_map(|r| r["revision"].as_str())
        .filter(|r| ours.contains(r))
        .map(str::to_string)
        .collect()
}

/// A namespace marking one server: labelled `istio.io/rev=REV`, so `revision list` lists
/// `REV` as used there. The label is taken off when dropped (namespaces are never removed on
/// the test control plane, which has no controllers), also when the test fails.
struct Marker {
    kubeconfig: PathBuf,
    namespace: String,
}

impl Marker {
    fn place(kubeconfig: &Path, namespace: &str, revision: &str) -> Marker {
        run(async {
            let client = cluster::Client::from_kubeconfig(kubeconfig)
                .await
                .expect("a test client");
            let namespaces: Api<Namespace> = Api::all(client.kube().clone());
            let ns: Namespace = serde_json::from_value(serde_json::json!({
                "metadata": {"name": namespace, "labels": {"istio.io/rev": revision}},
            }))
            .expect("a namespace");
            namespaces
                .create(&PostParams::default(), &ns)
                .await
                .unwrap_or_else(|e| panic!("creating namespace {namespace}: {e}"));
        });
        Marker {
            kubeconfig: kubeconfig.to_path_buf(),
            namespace: namespace.to_string(),
        }
    }
}

impl Drop for Marker {
    fn drop(&mut self) {
        let (kubeconfig, namespace) = (self.kubeconfig.clone(), self.namespace.clone());
        // A thread of its own: a test that panicked inside a runtime may still be in it.
        let _ = std::thread::spawn(move || {
            run(async {
                let client = cluster::Client::from_kubeconfig(&kubeconfig).await.ok()?;
                let namespaces: Api<Namespace> = Api::all(client.kube().clone());
                let unlabel = serde_json::json!({"metadata": {"labels": {"istio.io/rev": null}}});
                namespaces
                    .patch(&namespace, &PatchParams::default(), &Patch::Merge(&unlabel))
                    .await
                    .ok()
            })
        })
        .join();
    }
}

#[test]
fn kubeconfig_and_context_pick_the_server() {
    let shared = testenv::kubeconfig();
    // Stopped, and its state removed, when dropped: at the end or when an assertion fails.
    let private = testenv::Private::start("contexts");
    let dir = private.dir().join("contexts-test");
    let home = dir.join("home");
    std::fs::create_dir_all(&home).expect("a home directory");

    let alpha_config = renamed(shared, "alpha");
    let beta_config = renamed(private.kubeconfig(), "beta");
    let alpha = write(&dir.join("alpha.yaml"), &alpha_config);
    let beta = write(&dir.join("beta.yaml"), &beta_config);
    let both = write(
        &dir.join("both.yaml"),
        &alpha_config
            .clone()
            .merge(beta_config.clone())
            .expect("merging the two"),
    );

    let name = testenv::unique_name("ctx");
    let (rev_alpha, rev_beta) = (format!("{name}-alpha"), format!("{name}-beta"));
    let (ns_alpha, ns_beta) = (format!("{name}-ns-alpha"), format!("{name}-ns-beta"));
    let _alpha_marker = Marker::place(shared, &ns_alpha, &rev_alpha);
    let _beta_marker = Marker::place(private.kubeconfig(), &ns_beta, &rev_beta);
    let ours = [rev_alpha.as_str(), rev_beta.as_str()];
    let only = |r: &str| BTreeSet::from([r.to_string()]);
    let revisions = |kubeconfig: Option<&std::ffi::OsStr>, flags: &[&str]| {
        let mut args = vec!["revision", "list", "-o", "json"];
        args.extend_from_slice(flags);
        listed(&bosun(&home, kubeconfig, &args), &ours)
    };
    let path = |p: &Path| p.display().to_string();

    // One kubeconfig with both: --context picks, the current context is the default.
    assert_eq!(
        revisions(None, &["--kubeconfig", &path(&both), "--context", "alpha"]),
        only(&rev_alpha)
    );
    assert_eq!(
        revisions(None, &["--kubeconfig", &path(&both), "--context", "beta"]),
        only(&rev_beta)
    );
    assert_eq!(
        revisions(None, &["--kubeconfig", &path(&both)]),
        only(&rev_alpha)
    );
    // istioctl's short flag.
    assert_eq!(revisions(None, &["-c", &path(&beta)]), only(&rev_beta));

    // KUBECONFIG lists merge: the first file's current context wins, either file's contexts
    // can be picked, and a file that does not exist is skipped.
    let list = |paths: &[&Path]| std::env::join_paths(paths).expect("a KUBECONFIG list");
    let missing = dir.join("missing.yaml");
    let alpha_then_beta = list(&[&missing, &alpha, &beta]);
    assert_eq!(revisions(Some(&alpha_then_beta), &[]), only(&rev_alpha));
    assert_eq!(
        revisions(Some(&alpha_then_beta), &["--context", "beta"]),
        only(&rev_beta)
    );
    let beta_then_alpha = list(&[&beta, &alpha]);
    assert_eq!(revisions(Some(&beta_then_alpha), &[]), only(&rev_beta));
    assert_eq!(
        revisions(Some(&beta_then_alpha), &["--context", "alpha"]),
        only(&rev_alpha)
    );
    // --kubeconfig replaces KUBECONFIG.
    assert_eq!(
        revisions(Some(alpha.as_os_str()), &["--kubeconfig", &path(&beta)]),
        only(&rev_beta)
    );

    // A render reads the server asked for: the plan creates the Istio namespace only where it
    // is not there yet.
    let manifests = common::manifests();
    let set_ns = format!("values.global.istioNamespace={ns_alpha}");
    let revision = format!("{name}-plan");
    let plan = |context: &str| {
        let out = bosun(
            &home,
            None,
            &[
                "plan",
                "--kubeconfig",
                &path(&both),
                "--context",
                context,
                "--set",
                "profile=minimal",
                "--set",
                &set_ns,
                "-r",
                &revision,
                "-d",
                &manifests,
            ],
        );
        assert!(
            out.status.success(),
            "plan --context {context}\n{}",
            text(&out)
        );
        stdout(&out)
    };
    let creates_namespace = format!("+ Namespace {ns_alpha} (create");
    let on_alpha = plan("alpha");
    assert!(
        !on_alpha.lines().any(|l| l.starts_with(&creates_namespace)),
        "{on_alpha}"
    );
    let on_beta = plan("beta");
    assert!(
        on_beta.lines().any(|l| l.starts_with(&creates_namespace)),
        "{on_beta}"
    );

    // Errors say which file, which context, and what there is.
    let out = bosun(
        &home,
        None,
        &[
            "revision",
            "list",
            "--kubeconfig",
            &path(&both),
            "--context",
            "gamma",
        ],
    );
    assert!(!out.status.success(), "{}", text(&out));
    assert_eq!(
        stderr(&out),
        format!(
            "Error: context \"gamma\" was not found in kubeconfig {} (contexts: alpha, beta)\n",
            both.display()
        )
    );
    let out = bosun(
        &home,
        None,
        &["tag", "list", "--kubeconfig", &path(&missing)],
    );
    assert_eq!(
        stderr(&out),
        format!(
            "Error: kubeconfig {} given by --kubeconfig does not exist\n",
            missing.display()
        )
    );
    let out = bosun(&home, None, &["precheck", "-d", &manifests]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_eq!(
        stderr(&out),
        format!(
            "Error: no cluster configuration: KUBECONFIG is not set and {} does not exist, and not running inside a cluster; pass --kubeconfig or set KUBECONFIG\n",
            home.join(".kube/config").display()
        )
    );
}
