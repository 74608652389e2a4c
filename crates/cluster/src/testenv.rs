//! The test control plane for integration tests (feature `testenv`): a real kube-apiserver and
//! etcd, started by `scripts/testenv up` once per test process, or one given by the environment.
//!
//! Which API server [`kubeconfig`] gives, first match wins:
//! 1. `BOSUN_TEST_KUBECONFIG`, when set: that kubeconfig, whatever it points at.
//! 2. `KUBECONFIG`, when it is a single file whose current context's cluster is `bosun-testenv`
//!    (what `scripts/testenv up` writes; `scripts/test` exports it). Any other `KUBECONFIG` is
//!    ignored, so tests never write to a cluster someone uses for real work.
//! 3. Otherwise `scripts/testenv up` is run (building the binaries the first time, which takes
//!    3-10 minutes on 2 cores). If this process started the control plane, it stops it at exit
//!    (`scripts/testenv down`) unless `BOSUN_TESTENV_KEEP` is set.
//!
//! There is no kubelet or controller manager: tests that need "ready" set status themselves.
//! The shared control plane holds a placeholder default revision tag (see
//! [`PLACEHOLDER_DEFAULT_TAG`]); tests about the default tag use a [`Private`] one.
//! The control plane may be shared by several tests and runs, so tests name their objects with
//! [`unique_name`].
//!
//! [`living`] gives the living cluster instead (`scripts/testenv up --living`: the same API
//! server plus kube-controller-manager, kube-scheduler, a kubelet with containerd, kube-proxy,
//! and images built on this machine), for tests that need pods to really run:
//! 1. `BOSUN_LIVING_KUBECONFIG`, when set, with `BOSUN_LOCAL_HUB`, `BOSUN_LOCAL_TAG`,
//!    `BOSUN_LOCAL_PAUSE` and `BOSUN_LOCAL_BUSYBOX` (what `scripts/test` exports from
//!    `up --living`).
//! 2. Otherwise `scripts/testenv up --living` is run (it needs root; the first build takes
//!    minutes), and stopped again at exit if this process started it, unless
//!    `BOSUN_TESTENV_KEEP` is set.
//!
//! [`second_living_kubeconfig`] gives a second living cluster beside it (`up --living --name
//! west`), routed to the first (node and pod IPs, no NAT), for tests across clusters:
//! `BOSUN_LIVING2_KUBECONFIG` when set (`scripts/test` exports it), else, outside CI, the same
//! start-and-stop as above; in CI a missing `BOSUN_LIVING2_KUBECONFIG` fails the test, since
//! `scripts/test` must have started that cluster.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::Client;

const TESTENV_CLUSTER: &str = "bosun-testenv";

static KUBECONFIG: OnceLock<PathBuf> = OnceLock::new();
static SCRIPT: OnceLock<PathBuf> = OnceLock::new();

fn script() -> &'static Path {
    SCRIPT.get_or_init(|| match std::env::var_os("BOSUN_TESTENV_SCRIPT") {
        Some(s) => PathBuf::from(s),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/testenv"),
    })
}

/// Whether `path` is a kubeconfig whose current context's cluster is the test control plane.
fn is_testenv_kubeconfig(path: &Path) -> bool {
    let Ok(config) = kube::config::Kubeconfig::read_from(path) else {
        return false;
    };
    let Some(current) = config.current_context.as_deref() else {
        return false;
    };
    config
        .contexts
        .iter()
        .filter(|c| c.name == current)
        .filter_map(|c| c.context.as_ref())
        .any(|c| c.cluster == TESTENV_CLUSTER)
}

extern "C" fn stop_at_exit() {
    let _ = Command::new(script())
        .arg("down")
        .stdout(Stdio::null())
        .status();
}

extern "C" fn stop_living_at_exit() {
    let _ = Command::new(script())
        .args(["down", "--living"])
        .stdout(Stdio::null())
        .status();
}

/// Runs `scripts/testenv up [extra]`, returns its stdout, and registers `at_exit` if the
/// control plane was not up before (unless `BOSUN_TESTENV_KEEP` is set).
fn up(extra: &[&str], at_exit: extern "C" fn()) -> String {
    let command = format!("{} up {}", script().display(), extra.join(" "));
    let was_up = Command::new(script())
        .arg("status")
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let out = Command::new(script())
        .arg("up")
        .args(extra)
        .stderr(Stdio::inherit())
        .output()
        .unwrap_or_else(|e| panic!("running {command}: {e}"));
    assert!(
        out.status.success(),
        "{command} failed ({}); its messages are above",
        out.status
    );
    if !was_up && std::env::var_os("BOSUN_TESTENV_KEEP").is_none() {
        // SAFETY: registers a plain function with no captured state; it runs once at exit.
        unsafe {
            libc::atexit(at_exit);
        }
    }
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The `NAME=value` pairs of the `export ...` lines `up` printed.
fn exported(stdout: &str) -> Vec<(String, String)> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("export "))
        .flat_map(str::split_whitespace)
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn start() -> PathBuf {
    let stdout = up(&[], stop_at_exit);
    let path = exported(&stdout)
        .into_iter()
        .find_map(|(k, v)| (k == "KUBECONFIG").then_some(v))
        .unwrap_or_else(|| {
            panic!(
                "{} up printed no `export KUBECONFIG=` line: {stdout:?}",
                script().display()
            )
        });
    PathBuf::from(path)
}

/// The kubeconfig of the test control plane (see the module docs for which one).
pub fn kubeconfig() -> &'static Path {
    KUBECONFIG.get_or_init(|| {
        let path = find_or_start();
        hold_default_tag(&path);
        path
    })
}

/// The name of the placeholder default revision tag of the shared control plane.
pub const PLACEHOLDER_DEFAULT_TAG: &str = "bosun-testenv-default-tag";

/// Puts the placeholder default tag back on the shared control plane, after a test that removes
/// every tag (`uninstall --purge`), before the tests waiting for it go on.
pub fn hold_default_tag_again() {
    hold_default_tag(kubeconfig());
}

/// Makes sure the shared control plane has a default revision tag, as a cluster Istio was
/// installed in once has. An install with a revision makes itself the default tag only when
/// there is none (istioctl's rule): without this, whichever revisioned install of the tests
/// running side by side came first would become the default, and its tag would then overlap
/// the injectors of every later install without a revision. The placeholder injects nothing
/// (istioctl's never-match selectors). Tests about the default tag itself use [`Private`].
fn hold_default_tag(kubeconfig: &Path) {
    let kubeconfig = kubeconfig.to_path_buf();
    // A thread of its own: this may be first called from inside a test's async runtime.
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        runtime.block_on(async {
            let client = Client::from_kubeconfig(&kubeconfig)
                .await
                .unwrap_or_else(|e| panic!("test control plane client: {e}"));
            let never = serde_json::json!({"matchLabels": {"istio.io/deactivated": "never-match"}});
            let tag = serde_json::json!({
                "apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "MutatingWebhookConfiguration",
                "metadata": {"name": PLACEHOLDER_DEFAULT_TAG, "labels": {
                    "app": "sidecar-injector", "istio.io/tag": "default", "istio.io/rev": "default"}},
                "webhooks": [{"name": "placeholder.sidecar-injector.istio.io",
                    "clientConfig": {"url": "https://127.0.0.1:1/inject"},
                    "sideEffects": "None", "admissionReviewVersions": ["v1"],
                    "namespaceSelector": never, "objectSelector": never,
                    "rules": [{"apiGroups": [""], "apiVersions": ["v1"],
                        "operations": ["CREATE"], "resources": ["pods"]}]}],
            });
            client
                .apply(&[tag], "bosun-testenv", true)
                .await
                .unwrap_or_else(|e| panic!("the placeholder default tag: {e}"));
        });
    })
    .join()
    .expect("making the placeholder default tag");
}

fn find_or_start() -> PathBuf {
    {
        if let Some(p) = std::env::var_os("BOSUN_TEST_KUBECONFIG") {
            return PathBuf::from(p);
        }
        if let Some(p) = std::env::var_os("KUBECONFIG").filter(|p| !p.is_empty()) {
            let p = PathBuf::from(p);
            if is_testenv_kubeconfig(&p) {
                return p;
            }
            eprintln!(
                "testenv: ignoring KUBECONFIG={} (not a bosun-testenv cluster; set BOSUN_TEST_KUBECONFIG to use it); starting the test control plane",
                p.display()
            );
        }
        start()
    }
}

/// A client for the test control plane.
pub async fn client() -> Client {
    Client::from_kubeconfig(kubeconfig())
        .await
        .unwrap_or_else(|e| panic!("test control plane client: {e}"))
}

/// The living cluster: where it is and the images built for it.
#[derive(Debug, Clone)]
pub struct Living {
    /// A kubeconfig with cluster-admin rights, reachable from this machine.
    pub kubeconfig: PathBuf,
    /// `--set hub=` for Istio images built here (`BOSUN_LOCAL_HUB`, `localhost/istio`).
    pub hub: String,
    /// `--set tag=` for them (`BOSUN_LOCAL_TAG`); not `latest`, so the charts' pull policy is
    /// IfNotPresent and the images, present on the node, are never pulled.
    pub tag: String,
    /// The pause image on the node (`BOSUN_LOCAL_PAUSE`): a container that runs and does
    /// nothing, for workloads that only need to be Ready.
    pub pause_image: String,
    /// Debian's static busybox as an image (`BOSUN_LOCAL_BUSYBOX`), every applet in `/bin`:
    /// a shell, `nc`, `netstat` for test pods (its `wget` crashes; use `nc`).
    pub busybox_image: String,
}

static LIVING: OnceLock<Living> = OnceLock::new();

const LIVING_VARS: [&str; 5] = [
    "BOSUN_LIVING_KUBECONFIG",
    "BOSUN_LOCAL_HUB",
    "BOSUN_LOCAL_TAG",
    "BOSUN_LOCAL_PAUSE",
    "BOSUN_LOCAL_BUSYBOX",
];

fn living_from(vars: &[(String, String)], from: &str) -> Living {
    let get = |name: &str| {
        vars.iter()
            .find_map(|(k, v)| (k == name).then(|| v.clone()))
            .unwrap_or_else(|| panic!("{from} gives no {name} (it needs all of {LIVING_VARS:?})"))
    };
    Living {
        kubeconfig: PathBuf::from(get("BOSUN_LIVING_KUBECONFIG")),
        hub: get("BOSUN_LOCAL_HUB"),
        tag: get("BOSUN_LOCAL_TAG"),
        pause_image: get("BOSUN_LOCAL_PAUSE"),
        busybox_image: get("BOSUN_LOCAL_BUSYBOX"),
    }
}

/// The living cluster (see the module docs for which one), started if need be.
pub fn living() -> &'static Living {
    LIVING.get_or_init(|| {
        if std::env::var_os("BOSUN_LIVING_KUBECONFIG").is_some() {
            let vars: Vec<(String, String)> = LIVING_VARS
                .iter()
                .filter_map(|k| Some((k.to_string(), std::env::var(k).ok()?)))
                .collect();
            return living_from(&vars, "the environment");
        }
        let stdout = up(&["--living"], stop_living_at_exit);
        let mut vars = exported(&stdout);
        for (k, _) in &mut vars {
            if k == "KUBECONFIG" {
                *k = "BOSUN_LIVING_KUBECONFIG".to_string();
            }
        }
        living_from(&vars, &format!("{} up --living", script().display()))
    })
}

/// The living cluster's kubeconfig.
pub fn living_kubeconfig() -> &'static Path {
    &living().kubeconfig
}

/// A client for the living cluster.
pub async fn living_client() -> Client {
    Client::from_kubeconfig(living_kubeconfig())
        .await
        .unwrap_or_else(|e| panic!("living cluster client: {e}"))
}

/// The `--name` of the second living cluster (its kubeconfig's cluster, user and context).
pub const SECOND_LIVING_NAME: &str = "west";

static SECOND_LIVING: OnceLock<PathBuf> = OnceLock::new();

extern "C" fn stop_second_living_at_exit() {
    let _ = Command::new(script())
        .args(["down", "--living", "--name", SECOND_LIVING_NAME])
        .stdout(Stdio::null())
        .status();
}

/// The kubeconfig of the second living cluster (see the module docs for which one), started
/// if need be. It has the same images as [`living`]'s.
pub fn second_living_kubeconfig() -> &'static Path {
    SECOND_LIVING.get_or_init(|| {
        if let Some(p) = std::env::var_os("BOSUN_LIVING2_KUBECONFIG") {
            return PathBuf::from(p);
        }
        let command = format!(
            "{} up --living --name {SECOND_LIVING_NAME}",
            script().display()
        );
        assert!(
            std::env::var_os("CI").is_none(),
            "BOSUN_LIVING2_KUBECONFIG is not set: in CI, scripts/test must start the second living \
             cluster ({command}) and export its kubeconfig"
        );
        eprintln!(
            "\n*** BOSUN_LIVING2_KUBECONFIG is not set: starting the second living cluster \
             with `{command}` (if this starts it, it stops it at exit unless \
             BOSUN_TESTENV_KEEP is set) ***\n"
        );
        let stdout = up(
            &["--living", "--name", SECOND_LIVING_NAME],
            stop_second_living_at_exit,
        );
        exported(&stdout)
            .into_iter()
            .find_map(|(k, v)| (k == "KUBECONFIG").then(|| PathBuf::from(v)))
            .unwrap_or_else(|| panic!("{command} printed no `export KUBECONFIG=` line: {stdout:?}"))
    })
}

/// A client for the second living cluster.
pub async fn second_living_client() -> Client {
    Client::from_kubeconfig(second_living_kubeconfig())
        .await
        .unwrap_or_else(|e| panic!("second living cluster client: {e}"))
}

/// A DNS-1123 name unique to this test process and call: `{prefix}-{pid}-{seconds}-{n}`.
pub fn unique_name(prefix: &str) -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() % 100_000)
        .unwrap_or(0);
    format!(
        "{prefix}-{}-{secs}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// A test control plane of its own (`scripts/testenv up` with a private state directory),
/// for tests that compare whole clusters and so need one nothing else writes to. Stopped and
/// its state removed when dropped.
pub struct Private {
    dir: PathBuf,
    kubeconfig: PathBuf,
}

impl Private {
    /// Starts one (the binaries are built once, like the shared one's). `label` goes into
    /// the state directory's name, for the logs.
    pub fn start(label: &str) -> Private {
        let base = std::env::var_os("BOSUN_CACHE")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/bosun")))
            .unwrap_or_else(std::env::temp_dir)
            .join("testenv-run");
        let dir = base.join(unique_name(&format!("private-{label}")));
        let out = Command::new(script())
            .arg("up")
            .env("BOSUN_TESTENV_DIR", &dir)
            .stderr(Stdio::inherit())
            .output()
            .unwrap_or_else(|e| panic!("running {} up: {e}", script().display()));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let started = Private {
            kubeconfig: PathBuf::from(
                stdout
                    .lines()
                    .find_map(|l| l.strip_prefix("export KUBECONFIG="))
                    .unwrap_or("")
                    .trim(),
            ),
            dir,
        };
        assert!(
            out.status.success() && !started.kubeconfig.as_os_str().is_empty(),
            "{} up (private, {}) failed ({}); its messages are above",
            script().display(),
            started.dir.display(),
            out.status
        );
        started
    }

    pub fn kubeconfig(&self) -> &Path {
        &self.kubeconfig
    }

    /// The directory holding its state and logs (the API server's `audit.log` among them).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub async fn client(&self) -> Client {
        Client::from_kubeconfig(&self.kubeconfig)
            .await
            .unwrap_or_else(|e| panic!("private control plane client: {e}"))
    }
}

impl Drop for Private {
    fn drop(&mut self) {
        let _ = Command::new(script())
            .arg("down")
            .env("BOSUN_TESTENV_DIR", &self.dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        if std::env::var_os("BOSUN_TESTENV_KEEP").is_none() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Until aborted, does what the controllers and the kubelet a test control plane lacks would
/// do for workloads to count as ready, in `namespace` (every namespace when `None`):
/// - every Deployment gets a ReplicaSet it controls with its pod template (istioctl's wait
///   looks for the Deployment's newest ReplicaSet) and both get a ready status;
/// - every DaemonSet gets a ready status, as on a one-node cluster;
/// - every Service with a selector gets a ready endpoint (an EndpointSlice `NAME-ready`), as
///   the EndpointSlice controller would publish it.
///
/// Tests that compare clusters leave ReplicaSets and EndpointSlices out: they are this
/// helper's, not the installer's.
pub fn make_workloads_ready(
    client: &Client,
    namespace: Option<&str>,
) -> tokio::task::JoinHandle<()> {
    use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, ReplicaSet};
    use k8s_openapi::api::core::v1::Service;
    use k8s_openapi::api::discovery::v1::EndpointSlice;
    use kube::Api;
    use kube::api::{ListParams, Patch, PatchParams, PostParams};

    let kube = client.kube().clone();
    let namespace = namespace.map(str::to_string);
    fn api<K>(kube: &kube::Client, namespace: &Option<String>) -> Api<K>
    where
        K: kube::Resource<Scope = k8s_openapi::NamespaceResourceScope>,
        <K as kube::Resource>::DynamicType: Default,
    {
        match namespace {
            Some(ns) => Api::namespaced(kube.clone(), ns),
            None => Api::all(kube.clone()),
        }
    }
    tokio::spawn(async move {
        let deployments: Api<Deployment> = api(&kube, &namespace);
        let daemonsets: Api<DaemonSet> = api(&kube, &namespace);
        let services: Api<Service> = api(&kube, &namespace);
        let status = PatchParams::default();
        loop {
            for svc in services
                .list(&ListParams::default())
                .await
                .map(|l| l.items)
                .unwrap_or_default()
            {
                if svc
                    .spec
                    .as_ref()
                    .and_then(|s| s.selector.as_ref())
                    .is_none()
                {
                    continue;
                }
                let (Some(name), Some(ns)) = (svc.metadata.name, svc.metadata.namespace) else {
                    continue;
                };
                let slices: Api<EndpointSlice> = Api::namespaced(kube.clone(), &ns);
                let slice = serde_json::json!({"apiVersion": "discovery.k8s.io/v1",
                    "kind": "EndpointSlice",
                    "metadata": {"name": format!("{name}-ready"),
                        "labels": {"kubernetes.io/service-name": name}},
                    "addressType": "IPv4",
                    "endpoints": [{"addresses": ["10.0.0.9"], "conditions": {"ready": true}}]});
                let _ = slices
                    .patch(
                        &format!("{name}-ready"),
                        &PatchParams::apply("endpointslice-controller"),
                        &Patch::Apply(&slice),
                    )
                    .await;
            }
            for d in deployments
                .list(&ListParams::default())
                .await
                .map(|l| l.items)
                .unwrap_or_default()
            {
                let generation = d.metadata.generation.unwrap_or(1);
                let observed = d.status.as_ref().and_then(|s| s.observed_generation);
                if observed == Some(generation) {
                    continue;
                }
                let (Some(name), Some(ns), Some(uid)) = (
                    d.metadata.name.clone(),
                    d.metadata.namespace.clone(),
                    d.metadata.uid.clone(),
                ) else {
                    continue;
                };
                let Some(spec) = d.spec.clone() else { continue };
                let replicas = spec.replicas.unwrap_or(1);
                // The ReplicaSet a Deployment controller would make for this generation: named
                // after it, so a later generation replaces the template in place.
                let replica_sets: Api<ReplicaSet> = Api::namespaced(kube.clone(), &ns);
                let rs_name = format!("{name}-{generation}");
                let rs = serde_json::json!({
                    "apiVersion": "apps/v1", "kind": "ReplicaSet",
                    "metadata": {"name": rs_name, "namespace": ns,
                        "labels": spec.template.metadata.as_ref().and_then(|m| m.labels.clone()),
                        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment",
                            "name": name, "uid": uid, "controller": true, "blockOwnerDeletion": true}]},
                    "spec": {"replicas": replicas, "selector": spec.selector, "template": spec.template},
                });
                let Ok(rs) = serde_json::from_value::<ReplicaSet>(rs) else {
                    continue;
                };
                match replica_sets.create(&PostParams::default(), &rs).await {
                    Ok(_) => {}
                    Err(kube::Error::Api(e)) if e.code == 409 => {}
                    Err(_) => continue,
                }
                let ready = serde_json::json!({"status": {"observedGeneration": 1, "replicas": replicas,
                    "readyReplicas": replicas, "availableReplicas": replicas, "fullyLabeledReplicas": replicas}});
                if replica_sets
                    .patch_status(&rs_name, &status, &Patch::Merge(&ready))
                    .await
                    .is_err()
                {
                    continue;
                }
                let ready = serde_json::json!({"status": {
                    "observedGeneration": generation, "replicas": replicas, "readyReplicas": replicas,
                    "updatedReplicas": replicas, "availableReplicas": replicas}});
                let deployments: Api<Deployment> = Api::namespaced(kube.clone(), &ns);
                let _ = deployments
                    .patch_status(&name, &status, &Patch::Merge(&ready))
                    .await;
            }
            for d in daemonsets
                .list(&ListParams::default())
                .await
                .map(|l| l.items)
                .unwrap_or_default()
            {
                let generation = d.metadata.generation.unwrap_or(1);
                let observed = d.status.as_ref().and_then(|s| s.observed_generation);
                if observed == Some(generation) {
                    continue;
                }
                let (Some(name), Some(ns)) = (d.metadata.name, d.metadata.namespace) else {
                    continue;
                };
                let ready = serde_json::json!({"status": {
                    "observedGeneration": generation, "desiredNumberScheduled": 1, "currentNumberScheduled": 1,
                    "numberReady": 1, "updatedNumberScheduled": 1, "numberAvailable": 1, "numberMisscheduled": 0}});
                let daemonsets: Api<DaemonSet> = Api::namespaced(kube.clone(), &ns);
                let _ = daemonsets
                    .patch_status(&name, &status, &Patch::Merge(&ready))
                    .await;
            }
            tokio::time::sleep(std::time::Duration::from_millis(150)).await;
        }
    })
}

/// A plain kube client for the cluster of `kubeconfig` that calls itself `user_agent` (bosun's
/// own client says `bosun/…`), so that an audit log tells a test's requests from bosun's.
pub async fn kube_client_as(kubeconfig: &Path, user_agent: &'static str) -> kube::Client {
    let kubeconfig = kube::config::Kubeconfig::read_from(kubeconfig).expect("test kubeconfig");
    let mut config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .expect("test kubeconfig");
    config.headers.push((
        http::header::USER_AGENT,
        http::HeaderValue::from_static(user_agent),
    ));
    kube::Client::try_from(config).expect("a kube client")
}

/// The field manager and user agent istiod writes with (its binary's name).
pub const ISTIOD_MANAGER: &str = "pilot-discovery";

/// Writes into the webhook configurations matching `selector` what a running istiod writes
/// (see `manifest::runtime`): a CA bundle into every webhook, and `failurePolicy: Fail` into
/// every validating one; with updates, as istiod makes them, under its field manager and user
/// agent (so audit logs tell these writes from bosun's). Returns how many configurations it
/// changed.
pub async fn write_as_istiod(kubeconfig: &Path, selector: &str) -> usize {
    use k8s_openapi::api::admissionregistration::v1::{
        MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
    };
    use kube::Api;
    use kube::api::{ListParams, PostParams};

    let kube = kube_client_as(kubeconfig, "pilot-discovery/test").await;
    let params = PostParams {
        field_manager: Some(ISTIOD_MANAGER.into()),
        ..Default::default()
    };
    let list = ListParams::default().labels(selector);
    // A PEM certificate's base64, as istiod writes its root certificate.
    let ca = k8s_openapi::ByteString(
        b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n".to_vec(),
    );
    let mut changed = 0;
    let mutating: Api<MutatingWebhookConfiguration> = Api::all(kube.clone());
    for mut mwc in mutating.list(&list).await.expect("listing injectors").items {
        for w in mwc.webhooks.iter_mut().flatten() {
            w.client_config.ca_bundle = Some(ca.clone());
        }
        let name = mwc.metadata.name.clone().unwrap_or_default();
        mutating
            .replace(&name, &params, &mwc)
            .await
            .expect("istiod's CA bundle write");
        changed += 1;
    }
    let validating: Api<ValidatingWebhookConfiguration> = Api::all(kube.clone());
    for mut vwc in validating
        .list(&list)
        .await
        .expect("listing validators")
        .items
    {
        for w in vwc.webhooks.iter_mut().flatten() {
            w.client_config.ca_bundle = Some(ca.clone());
            w.failure_policy = Some("Fail".into());
        }
        let name = vwc.metadata.name.clone().unwrap_or_default();
        validating
            .replace(&name, &params, &vwc)
            .await
            .expect("istiod's validator write");
        changed += 1;
    }
    changed
}
