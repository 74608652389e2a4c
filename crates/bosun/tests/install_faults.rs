//! Faults of the API server during `bosun install` (issue 34, "Faults during cluster changes"):
//! the server paused (SIGSTOP) for 20 s, killed and started again, and killed for good, each in
//! the middle of an install, on a test control plane of the test's own (`testenv::Private`: a
//! real kube-apiserver and etcd, which the test may stop without disturbing other tests).
//!
//! Expected: bosun waits out or retries what it can within `--request-timeout` (each request's
//! bound, retries included) and finishes, or stops with an error that names the server and
//! what it waited for; a rerun then converges (a further install creates and changes nothing).
//! Every paused process is continued and every control plane stopped, also when a test fails
//! (guards). Needs the test control plane's binaries (`scripts/testenv`) and Istio's charts
//! (`scripts/fetch-istio`); 30-60 s per test, about 2.5 min for the file on 2 cores.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use cluster::testenv::Private;
use common::{run, stderr, succeeded, text, totals};
use k8s_openapi::api::core::v1::Namespace;
use kube::Api;

const ISTIO_NS: &str = "istio-system";

/// The flags of every install here: the minimal profile, without readiness waits (no kubelet).
fn install_args(manifests: &str) -> Vec<String> {
    ["install", "--set", "profile=minimal", "-y", "--no-wait"]
        .iter()
        .map(|s| s.to_string())
        .chain(["--manifests".to_string(), manifests.to_string()])
        .collect()
}

/// The API server process of a private control plane: its pid file and command line.
struct ApiServer {
    pid_file: PathBuf,
}

impl ApiServer {
    fn of(plane: &Private) -> ApiServer {
        ApiServer {
            pid_file: plane
                .kubeconfig()
                .parent()
                .unwrap()
                .join("kube-apiserver.pid"),
        }
    }

    fn pid(&self) -> i32 {
        std::fs::read_to_string(&self.pid_file)
            .unwrap_or_else(|e| panic!("{}: {e}", self.pid_file.display()))
            .trim()
            .parse()
            .unwrap()
    }

    fn signal(&self, signal: i32) {
        // SAFETY: sends a signal to a process this test's control plane started.
        let sent = unsafe { libc::kill(self.pid(), signal) };
        assert_eq!(sent, 0, "kill({}, {signal})", self.pid());
    }

    /// Stops it with SIGSTOP until the guard is dropped (SIGCONT), whatever happens meanwhile.
    fn pause(&self) -> Paused<'_> {
        self.signal(libc::SIGSTOP);
        Paused(self)
    }

    /// Kills it (SIGKILL, as a crash) and waits for it to be gone; returns its command line, to
    /// start it again.
    fn kill(&self) -> Vec<String> {
        let pid = self.pid();
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap();
        let args = cmdline
            .split(|b| *b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        self.signal(libc::SIGKILL);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Path::new(&format!("/proc/{pid}/cmdline")).exists()
            && std::fs::read(format!("/proc/{pid}/stat"))
                .is_ok_and(|s| !String::from_utf8_lossy(&s).contains(") Z "))
        {
            assert!(Instant::now() < deadline, "the API server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
        args
    }

    /// Starts it again as it was started (etcd kept the state); the pid file names the new
    /// process, so the control plane's `down` stops it.
    fn start(&self, args: &[String]) {
        let log = std::fs::OpenOptions::new()
            .append(true)
            .open(self.pid_file.with_file_name("kube-apiserver.log"))
            .unwrap();
        #[expect(
            clippy::zombie_processes,
            reason = "the API server outlives this call; the control plane's down stops it"
        )]
        let started = Command::new("setsid")
            .args(args)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        std::fs::write(&self.pid_file, format!("{}\n", started.id())).unwrap();
    }
}

/// A paused API server; dropping this continues it.
struct Paused<'a>(&'a ApiServer);

impl Drop for Paused<'_> {
    fn drop(&mut self) {
        // SAFETY: continues the process this guard stopped.
        unsafe {
            libc::kill(self.0.pid(), libc::SIGCONT);
        }
    }
}

/// Starts `bosun ARGS` against `kubeconfig` and waits until it has begun writing (the Istio
/// namespace exists) while it still runs, then returns it.
async fn install_under_way(plane: &Private, args: &[String]) -> std::process::Child {
    let client = plane.client().await;
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut child = common::bosun_command(plane.kubeconfig(), &args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let namespaces: Api<Namespace> = Api::all(client.kube().clone());
    let deadline = Instant::now() + Duration::from_secs(60);
    while namespaces.get_opt(ISTIO_NS).await.unwrap().is_none() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "bosun ended before its first write\n{}",
            text(&child.wait_with_output().unwrap())
        );
        assert!(Instant::now() < deadline, "the namespace never appeared");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        child.try_wait().unwrap().is_none(),
        "bosun finished before the fault: not mid-install"
    );
    child
}

/// Waits for `child` without blocking the runtime; returns its output and how long it took
/// from `since`.
async fn finish(child: std::process::Child, since: Instant) -> (Output, Duration) {
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    (out, since.elapsed())
}

/// A rerun succeeds, and a further one finds nothing to create or change: the cluster holds what
/// a clean install writes.
async fn rerun_converges(plane: &Private, args: &[String]) {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let rerun = testkit::output(common::bosun_command(plane.kubeconfig(), &args)).await;
    succeeded(&rerun);
    let settled = testkit::output(common::bosun_command(plane.kubeconfig(), &args)).await;
    succeeded(&settled);
    let (created, configured, unchanged) = totals(&settled);
    assert_eq!((created, configured), (0, 0), "{}", text(&settled));
    assert!(unchanged > 0, "{}", text(&settled));
}

#[test]
fn api_server_paused_20s_mid_install_is_waited_out_and_a_rerun_converges() {
    run(async {
        let plane = Private::start("paused");
        let server = ApiServer::of(&plane);
        let args = install_args(&common::manifests());
        let child = install_under_way(&plane, &args).await;
        let paused_at = Instant::now();
        {
            let _paused = server.pause();
            tokio::time::sleep(Duration::from_secs(20)).await;
        }
        let (out, took) = finish(child, paused_at).await;
        // Every request waits up to the default 30 s: the pause is waited out.
        succeeded(&out);
        assert!(
            took < Duration::from_secs(45),
            "took {took:?}\n{}",
            text(&out)
        );
        rerun_converges(&plane, &args).await;
    });
}

#[test]
fn api_server_restarted_mid_install_is_retried_and_a_rerun_converges() {
    run(async {
        let plane = Private::start("restarted");
        let server = ApiServer::of(&plane);
        let args = install_args(&common::manifests());
        let child = install_under_way(&plane, &args).await;
        let killed_at = Instant::now();
        let command = server.kill();
        // Down long enough for bosun's requests to be refused, then started again.
        tokio::time::sleep(Duration::from_secs(2)).await;
        server.start(&command);
        let (out, took) = finish(child, killed_at).await;
        // Before: `cannot reach the API server …: connection refused` within a second.
        succeeded(&out);
        assert!(
            took < Duration::from_secs(45),
            "took {took:?}\n{}",
            text(&out)
        );
        rerun_converges(&plane, &args).await;
    });
}

#[test]
fn api_server_that_stays_down_mid_install_stops_bosun_within_the_request_timeout() {
    run(async {
        let plane = Private::start("down");
        let server = ApiServer::of(&plane);
        let mut args = install_args(&common::manifests());
        args.extend(["--request-timeout".to_string(), "5s".to_string()]);
        let child = install_under_way(&plane, &args).await;
        let killed_at = Instant::now();
        server.kill();
        let (out, took) = finish(child, killed_at).await;
        assert!(!out.status.success(), "{}", text(&out));
        eprintln!("bosun said:\n{}", stderr(&out));
        let url = plane_server(&plane);
        let said = stderr(&out);
        assert!(
            said.contains(&format!("cannot reach the API server {url} ("))
                && said.contains("connection refused, after ")
                && said.contains("while the server was unreachable"),
            "{}",
            text(&out)
        );
        // Each request is retried for at most its 5 s; a command ends with its first failed
        // write (the others in flight end the same way, side by side).
        assert!(
            took < Duration::from_secs(15),
            "took {took:?}\n{}",
            text(&out)
        );
        // That a rerun converges after a dead install is `prune_uninstall.rs`
        // `install_killed_midway_then_rerun_converges`'s (and the tests above): not repeated here.
    });
}

#[test]
fn api_server_paused_past_the_commands_deadline_stops_bosun_at_the_deadline() {
    run(async {
        let plane = Private::start("deadline");
        let server = ApiServer::of(&plane);
        let mut args = install_args(&common::manifests());
        // Each request may wait 30 s (the default), but the install as a whole 12 s.
        args.extend(["--timeout".to_string(), "12s".to_string()]);
        let started = Instant::now();
        let child = install_under_way(&plane, &args).await;
        let paused = server.pause();
        let (out, _) = finish(child, started).await;
        let took = started.elapsed();
        drop(paused);
        assert!(!out.status.success(), "{}", text(&out));
        eprintln!("bosun said:\n{}", stderr(&out));
        let url = plane_server(&plane);
        let said = stderr(&out);
        assert!(
            said.contains(&format!(
                "the API server {url} did not answer before bosun's deadline for this command passed (12s in all"
            )) && said.contains("raise --timeout"),
            "{}",
            text(&out)
        );
        // The deadline counts from the first write, which comes a little after the start.
        assert!(
            took < Duration::from_secs(25),
            "took {took:?}\n{}",
            text(&out)
        );
        serving(&plane).await;
        rerun_converges(&plane, &args).await;
    });
}

/// Waits until the control plane's API server answers again (a new bosun does not wait for a
/// server that refuses its first request: that is a wrong address as often as a restart).
async fn serving(plane: &Private) {
    let client = plane.client().await;
    let deadline = Instant::now() + Duration::from_secs(60);
    while client.kube().apiserver_version().await.is_err() {
        assert!(
            Instant::now() < deadline,
            "the API server did not serve again"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The API server's URL as the private control plane's kubeconfig gives it.
fn plane_server(plane: &Private) -> String {
    let config = kube::config::Kubeconfig::read_from(plane.kubeconfig()).unwrap();
    config.clusters[0]
        .cluster
        .as_ref()
        .and_then(|c| c.server.clone())
        .unwrap()
}

/// Objects of other owners, in the Istio namespace and beside it: a ConfigMap, a Deployment, a
/// CRD, and a namespace holding a ConfigMap.
fn bystanders() -> Vec<serde_json::Value> {
    use serde_json::json;
    vec![
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "apps"}}),
        json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "bystander", "namespace": "apps"}, "data": {"k": "v"}}),
        json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "bystander", "namespace": ISTIO_NS}, "data": {"k": "v"}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "bystander", "namespace": ISTIO_NS, "labels": {"app": "bystander"}},
            "spec": {"selector": {"matchLabels": {"app": "bystander"}},
                "template": {"metadata": {"labels": {"app": "bystander"}},
                    "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}}),
        json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object",
                        "x-kubernetes-preserve-unknown-fields": true}}}]}}),
    ]
}

#[test]
fn purge_during_an_install_waits_for_it_then_removes_only_istio_objects() {
    run(async {
        let plane = Private::start("purge");
        let client = plane.client().await;
        let istio_ns = serde_json::json!({"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": ISTIO_NS}});
        client
            .apply(&[istio_ns], "someone-else", false)
            .await
            .unwrap();
        client
            .apply(&bystanders(), "someone-else", false)
            .await
            .unwrap();
        // The install holds the install lock (Lease kube-system/bosun-install.istio-system)
        // from its checks on; the namespace exists already, so wait for the lock and its first
        // Istio object (a purge that starts before the install writes finds nothing to remove
        // and is done: the order is then purge, then install).
        let args = install_args(&common::manifests());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let install = common::bosun_command(plane.kubeconfig(), &args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let leases: Api<k8s_openapi::api::coordination::v1::Lease> =
            Api::namespaced(client.kube().clone(), "kube-system");
        let deadline = Instant::now() + Duration::from_secs(60);
        let crds: Api<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition> =
            Api::all(client.kube().clone());
        let istio_crd = || async {
            crds.list(&Default::default())
                .await
                .unwrap()
                .items
                .iter()
                .any(|c| {
                    c.metadata
                        .name
                        .as_deref()
                        .unwrap_or("")
                        .ends_with(".istio.io")
                })
        };
        while leases
            .get_opt("bosun-install.istio-system")
            .await
            .unwrap()
            .is_none()
            || !istio_crd().await
        {
            assert!(
                Instant::now() < deadline,
                "the install never took its lock and wrote"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let purge = common::bosun_command(plane.kubeconfig(), &["uninstall", "--purge", "-y"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let started = Instant::now();
        let (installed, _) = finish(install, started).await;
        let (purged, _) = finish(purge, started).await;
        succeeded(&installed);
        succeeded(&purged);
        // The purge waited for the install, then removed what it had written: the order is
        // install, then purge, never a mix.
        assert!(
            common::stdout(&purged).contains("waiting for the install lock")
                || stderr(&purged).contains("waiting for the install lock"),
            "{}",
            text(&purged)
        );
        let deployments: Api<k8s_openapi::api::apps::v1::Deployment> =
            Api::namespaced(client.kube().clone(), ISTIO_NS);
        assert!(deployments.get_opt("istiod").await.unwrap().is_none());
        let crds: Api<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition> =
            Api::all(client.kube().clone());
        let istio_crds: Vec<String> = crds
            .list(&Default::default())
            .await
            .unwrap()
            .items
            .into_iter()
            .filter(|c| c.metadata.deletion_timestamp.is_none())
            .filter_map(|c| c.metadata.name)
            .filter(|n| n.ends_with(".istio.io"))
            .collect();
        assert!(istio_crds.is_empty(), "left after purge: {istio_crds:?}");
        // Every bystander is still there.
        for object in bystanders() {
            let kind = object["kind"].as_str().unwrap();
            let name = object["metadata"]["name"].as_str().unwrap();
            let namespace = object["metadata"]["namespace"].as_str();
            let (ar, _) = kube::discovery::pinned_kind(
                client.kube(),
                &kube::core::GroupVersionKind::gvk(
                    object["apiVersion"]
                        .as_str()
                        .unwrap()
                        .rsplit_once('/')
                        .map_or("", |(g, _)| g),
                    object["apiVersion"]
                        .as_str()
                        .unwrap()
                        .rsplit('/')
                        .next()
                        .unwrap(),
                    kind,
                ),
            )
            .await
            .unwrap();
            let api: Api<kube::api::DynamicObject> = match namespace {
                Some(ns) => Api::namespaced_with(client.kube().clone(), ns, &ar),
                None => Api::all_with(client.kube().clone(), &ar),
            };
            let live = api.get_opt(name).await.unwrap();
            assert!(
                live.is_some_and(|o| o.metadata.deletion_timestamp.is_none()),
                "{kind} {namespace:?}/{name} was removed\n{}",
                text(&purged)
            );
        }
        let namespaces: Api<Namespace> = Api::all(client.kube().clone());
        assert!(namespaces.get_opt(ISTIO_NS).await.unwrap().is_some());
    });
}
