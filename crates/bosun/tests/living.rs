//! bosun on the living cluster (`scripts/testenv up --living`: a real one-node Kubernetes with
//! a kubelet, controllers and the pilot image built here), where istiod really runs: it turns
//! Ready through the chart's readiness probe, writes its CA bundle and the validator's
//! `failurePolicy` into bosun's webhooks, injects sidecars and validates config through the
//! API server. Nothing here is simulated: readiness, garbage collection, image pulls and
//! crash loops are the kubelet's and the controllers' own.
//!
//! Every test installs a control plane into `istio-system` and the cluster-wide objects that
//! go with it (webhooks, the default revision tag, CRDs), so the tests of this file run one at
//! a time ([`LIVING`]); each starts by removing whatever an earlier one left ([`fresh`]) and
//! ends by uninstalling. Other namespaces are unique per test.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use cluster::testenv;
use common::{succeeded, text, totals};
use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Pod, Service};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Api;
use kube::api::{DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams};
use kube::core::ApiResource;
use serde_json::{Value, json};

/// Held by each test for its whole run: they all install into the same cluster-wide places.
static LIVING: Mutex<()> = Mutex::new(());

fn one_at_a_time() -> MutexGuard<'static, ()> {
    LIVING.lock().unwrap_or_else(|e| e.into_inner())
}

const ISTIO_NS: &str = "istio-system";
/// The user agent of this file's own writes, so the audit log tells them from bosun's.
const TEST_AGENT: &str = "bosun-living-test/1";
/// The field manager of what this file applies itself.
const TEST_AGENT_MANAGER: &str = "living-test";

fn kubeconfig() -> &'static Path {
    testenv::living_kubeconfig()
}

/// Runs `bosun ARGS` against the living cluster, stdin closed.
fn bosun(args: &[&str]) -> Output {
    common::bosun_at(kubeconfig(), args)
}

/// `--set hub=… --set tag=…` for the images built for the living cluster.
fn local_images() -> Vec<String> {
    let living = testenv::living();
    vec![
        "--set".into(),
        format!("hub={}", living.hub),
        "--set".into(),
        format!("tag={}", living.tag),
    ]
}

/// `bosun install -y --set profile=minimal` with the local images, then `extra`.
fn install(extra: &[&str]) -> Output {
    let mut args: Vec<String> = ["install", "-y", "--set", "profile=minimal"]
        .map(String::from)
        .to_vec();
    args.extend(local_images());
    args.extend(extra.iter().map(|s| s.to_string()));
    bosun(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// Polls `check` every 500 ms (a kubelet's and controllers' pace) until it gives a value;
/// fails after `timeout`, saying `what`.
async fn wait_until<T, F, Fut>(what: &str, timeout: Duration, check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    testkit::wait_until(what, timeout, Duration::from_millis(500), check)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Deletes the IstioOperator `minimal` and waits up to 2 minutes until it is gone: its
/// finalizer (the operator's) uninstalls first.
async fn delete_iop_and_wait_until_gone(iops: &Api<DynamicObject>, what: &str) {
    iops.delete("minimal", &DeleteParams::default())
        .await
        .unwrap();
    wait_until(what, Duration::from_secs(120), || async {
        iops.get_opt("minimal")
            .await
            .unwrap()
            .is_none()
            .then_some(())
    })
    .await;
}

async fn pods(kube: &kube::Client, ns: &str, selector: &str) -> Vec<Pod> {
    Api::<Pod>::namespaced(kube.clone(), ns)
        .list(&ListParams::default().labels(selector))
        .await
        .unwrap()
        .items
}

fn pod_name(pod: &Pod) -> String {
    pod.metadata.name.clone().unwrap_or_default()
}

/// The time the pod's `Ready` condition became true, if it is.
fn ready_since(pod: &Pod) -> Option<k8s_openapi::jiff::Timestamp> {
    pod.status
        .as_ref()?
        .conditions
        .as_ref()?
        .iter()
        .find(|c| c.type_ == "Ready" && c.status == "True")
        .map(|c| {
            c.last_transition_time
                .as_ref()
                .map(|t| t.0)
                .unwrap_or_default()
        })
}

/// Removes what an earlier test (or run) may have left, so each test starts from an empty
/// cluster: every installation (`uninstall --purge`), revision tags a user made (purge leaves
/// those, as istioctl's does), and waits until no pod is left in `istio-system`, so that a
/// readiness message can only be about this test's pods.
async fn fresh(kube: &kube::Client) {
    // An operator deployed from its image by a failed test would go on reconciling.
    remove_operator_deployment(kube).await;
    // An IstioOperator left by a failed operator test keeps its finalizer with no operator to
    // remove it, which would hold its namespace and the CRD forever.
    let crds: Api<CustomResourceDefinition> = Api::all(kube.clone());
    if crds.get_opt(IOP_CRD).await.unwrap().is_some() {
        let iops: Api<DynamicObject> = Api::all_with(kube.clone(), &iop_resource());
        for iop in iops.list(&ListParams::default()).await.unwrap().items {
            let (Some(name), Some(ns)) = (iop.metadata.name, iop.metadata.namespace) else {
                continue;
            };
            let api: Api<DynamicObject> = Api::namespaced_with(kube.clone(), &ns, &iop_resource());
            let unfinalized = json!({"metadata": {"finalizers": null}});
            let _ = api
                .patch(&name, &PatchParams::default(), &Patch::Merge(&unfinalized))
                .await;
            let _ = api.delete(&name, &DeleteParams::default()).await;
        }
        let _ = crds.delete(IOP_CRD, &DeleteParams::default()).await;
    }
    let purge = bosun(&["uninstall", "--purge", "-y"]);
    succeeded(&purge);
    let tags = ListParams::default().labels("istio.io/tag");
    let injectors: Api<MutatingWebhookConfiguration> = Api::all(kube.clone());
    for tag in injectors.list(&tags).await.unwrap().items {
        let name = tag.metadata.name.unwrap_or_default();
        let _ = injectors.delete(&name, &DeleteParams::default()).await;
    }
    let services: Api<Service> = Api::namespaced(kube.clone(), ISTIO_NS);
    for svc in services.list(&tags).await.unwrap().items {
        let name = svc.metadata.name.unwrap_or_default();
        let _ = services.delete(&name, &DeleteParams::default()).await;
    }
    wait_until(
        "the pods of an earlier installation gone",
        Duration::from_secs(120),
        || async { pods(kube, ISTIO_NS, "").await.is_empty().then_some(()) },
    )
    .await;
}

/// Whether a `managedFields` entry of `manager` exists in `object` (live JSON).
fn managed_by(object: &Value, manager: &str) -> bool {
    object
        .pointer("/metadata/managedFields")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|e| e["manager"] == manager)
}

/// What a running istiod writes into the objects the install applied (`manifest::runtime`):
/// the CA bundle of its injector's webhooks, and, once it serves validation, `failurePolicy:
/// Fail` in its validators (the revision's and the default tag's). `Some` with each object's
/// resourceVersion once every one of those writes is there, under istiod's field manager.
async fn istiod_writes(kube: &kube::Client, revision: &str) -> Option<Vec<(String, String)>> {
    let injectors: Api<MutatingWebhookConfiguration> = Api::all(kube.clone());
    let validators: Api<ValidatingWebhookConfiguration> = Api::all(kube.clone());
    let suffix = match revision {
        "default" => String::new(),
        r => format!("-{r}"),
    };
    let mut versions = Vec::new();
    let injector = injectors
        .get_opt(&format!("istio-sidecar-injector{suffix}"))
        .await
        .unwrap()?;
    let json = serde_json::to_value(&injector).unwrap();
    let bundled = injector.webhooks.iter().flatten().all(|w| {
        w.client_config
            .ca_bundle
            .as_ref()
            .is_some_and(|b| !b.0.is_empty())
    });
    if !bundled || !managed_by(&json, testenv::ISTIOD_MANAGER) {
        return None;
    }
    versions.push((
        injector.metadata.name.clone()?,
        injector.metadata.resource_version.clone()?,
    ));
    for name in [
        format!("istio-validator{suffix}-{ISTIO_NS}"),
        "istiod-default-validator".to_string(),
    ] {
        let validator = validators.get_opt(&name).await.unwrap()?;
        let json = serde_json::to_value(&validator).unwrap();
        let fails_closed = validator
            .webhooks
            .iter()
            .flatten()
            .all(|w| w.failure_policy.as_deref() == Some("Fail"));
        if !fails_closed || !managed_by(&json, testenv::ISTIOD_MANAGER) {
            return None;
        }
        versions.push((name, validator.metadata.resource_version.clone()?));
    }
    Some(versions)
}

fn virtual_services(kube: &kube::Client, ns: &str) -> Api<DynamicObject> {
    let resource = ApiResource {
        group: "networking.istio.io".into(),
        version: "v1".into(),
        api_version: "networking.istio.io/v1".into(),
        kind: "VirtualService".into(),
        plural: "virtualservices".into(),
    };
    Api::namespaced_with(kube.clone(), ns, &resource)
}

fn virtual_service(name: &str, ns: &str, host: &str) -> DynamicObject {
    serde_json::from_value(json!({
        "apiVersion": "networking.istio.io/v1", "kind": "VirtualService",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"hosts": ["reviews.example.com"],
                 "http": [{"route": [{"destination": {"host": host}}]}]}
    }))
    .unwrap()
}

async fn create_namespace(kube: &kube::Client, name: &str, labels: Value) {
    let ns: Namespace = serde_json::from_value(
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}),
    )
    .unwrap();
    Api::<Namespace>::all(kube.clone())
        .create(&PostParams::default(), &ns)
        .await
        .unwrap();
}

async fn delete_namespace(kube: &kube::Client, name: &str) {
    let _ = Api::<Namespace>::all(kube.clone())
        .delete(name, &DeleteParams::background())
        .await;
}

/// The pause image in a pod of its own, as a user's workload.
fn workload(name: &str, ns: &str) -> Pod {
    serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "labels": {"app": name}},
        "spec": {"containers": [{"name": "app", "image": testenv::living().pause_image}]}
    }))
    .unwrap()
}

/// The names of a pod's init containers and containers.
fn container_names(pod: &Pod) -> Vec<String> {
    let spec = pod.spec.as_ref().unwrap();
    spec.init_containers
        .iter()
        .flatten()
        .chain(&spec.containers)
        .map(|c| c.name.clone())
        .collect()
}

/// `bosun install` of the minimal profile with the local images: istiod runs and turns Ready
/// through the chart's own readiness probe, and bosun's wait returns only after that;
/// `verify-install` passes. istiod then writes its fields into bosun's webhooks; a second
/// install with the same input changes nothing and leaves them. The API server calls the
/// running istiod: a pod in a namespace with `istio-injection=enabled` comes back with the
/// sidecar injected, an invalid VirtualService is refused by istiod's validating webhook and a
/// valid one is admitted.
#[test]
fn minimal_install_lives_beside_a_running_istiod() {
    let _one = one_at_a_time();
    common::run(async {
        let client = testenv::living_client().await;
        let kube = client.kube().clone();
        fresh(&kube).await;

        let first = install(&[]);
        let finished = k8s_openapi::jiff::Timestamp::now();
        succeeded(&first);
        assert!(
            common::stdout(&first).contains("✔ Istiod installed"),
            "{}",
            text(&first)
        );
        let running = pods(&kube, ISTIO_NS, "app=istiod").await;
        assert_eq!(running.len(), 1, "istiod pods: {running:#?}");
        let istiod = &running[0];
        // Ready through the chart's probe (the kubelet marks a container with a readiness
        // probe ready only once the probe passes), and before bosun's wait returned.
        let container = &istiod.spec.as_ref().unwrap().containers[0];
        let probe = container
            .readiness_probe
            .as_ref()
            .and_then(|p| p.http_get.as_ref())
            .expect("istiod's readiness probe");
        assert_eq!(probe.path.as_deref(), Some("/ready"));
        assert_eq!(
            probe.port,
            k8s_openapi::apimachinery::pkg::util::intstr::IntOrString::Int(8080)
        );
        let since = ready_since(istiod).unwrap_or_else(|| panic!("istiod not Ready: {istiod:#?}"));
        assert!(
            since <= finished,
            "istiod became Ready at {since}, after bosun install returned at {finished}"
        );
        let status = istiod.status.as_ref().unwrap();
        assert_eq!(status.phase.as_deref(), Some("Running"));
        let statuses = status.container_statuses.as_ref().unwrap();
        assert!(
            statuses.iter().all(|c| c.ready && c.restart_count == 0),
            "{statuses:#?}"
        );

        let verify = bosun(
            &[
                &["verify-install", "--set", "profile=minimal"][..],
                &local_images()
                    .iter()
                    .map(String::as_str)
                    .collect::<Vec<_>>(),
            ]
            .concat(),
        );
        succeeded(&verify);
        assert!(
            common::stdout(&verify).contains("✔ Istio is installed and verified successfully"),
            "{}",
            text(&verify)
        );

        // istiod writes its CA bundle and fails its validators closed.
        let written = wait_until(
            "istiod's writes into its webhooks",
            Duration::from_secs(60),
            || istiod_writes(&kube, "default"),
        )
        .await;

        // The same install again: nothing to change, and istiod's writes stay as they are
        // (not a single write to those objects: the resourceVersions are the same).
        let again = install(&[]);
        succeeded(&again);
        let (created, configured, unchanged) = totals(&again);
        assert_eq!((created, configured), (0, 0), "{}", text(&again));
        assert!(unchanged > 30, "{}", text(&again));
        assert_eq!(
            istiod_writes(&kube, "default").await.as_ref(),
            Some(&written),
            "the second install changed what istiod wrote"
        );

        // Injection: the API server calls istiod's injector for the new pod.
        let apps = testenv::unique_name("living-inject");
        create_namespace(&kube, &apps, json!({"istio-injection": "enabled"})).await;
        let created = Api::<Pod>::namespaced(kube.clone(), &apps)
            .create(&PostParams::default(), &workload("app", &apps))
            .await
            .unwrap_or_else(|e| panic!("creating a pod in {apps}: {e:?}"));
        let names = container_names(&created);
        assert!(
            names.contains(&"istio-proxy".to_string()) && names.contains(&"istio-init".to_string()),
            "not injected: {names:?}"
        );
        let annotations = created.metadata.annotations.clone().unwrap_or_default();
        assert_eq!(
            annotations.get("istio.io/rev").map(String::as_str),
            Some("default")
        );
        assert!(
            annotations.contains_key("sidecar.istio.io/status"),
            "{annotations:?}"
        );

        // Validation: an invalid VirtualService (no labels: the default tag's validator) is
        // refused by istiod; a valid one is admitted (so the refusal is istiod's judgement, not
        // an unreachable webhook).
        let vs = virtual_services(&kube, &apps);
        let refused = vs
            .create(&PostParams::default(), &virtual_service("bad", &apps, ""))
            .await
            .expect_err("an invalid VirtualService was admitted");
        let said = format!("{refused:?}");
        assert!(
            said.contains("admission webhook \\\"validation.istio.io\\\" denied the request")
                || said.contains("admission webhook \"validation.istio.io\" denied the request"),
            "{said}"
        );
        vs.create(
            &PostParams::default(),
            &virtual_service("good", &apps, "reviews.default.svc.cluster.local"),
        )
        .await
        .unwrap_or_else(|e| panic!("a valid VirtualService was refused: {e:?}"));
        delete_namespace(&kube, &apps).await;

        succeeded(&bosun(&["uninstall", "--purge", "-y"]));
    });
}

/// A `bosun operator run` child process against the living cluster, killed when dropped; its
/// log (stderr) goes to a file.
struct Operator {
    child: Child,
    log: PathBuf,
}

impl Operator {
    fn start(watch_namespace: &str) -> Operator {
        let log = std::env::temp_dir().join(format!("{}.log", testenv::unique_name("living-op")));
        let manifests = common::manifests();
        let child = Command::new(env!("CARGO_BIN_EXE_bosun"))
            .args([
                "operator",
                "run",
                "--watch-namespace",
                watch_namespace,
                // Leader election as the Deployment `operator dump` prints runs it.
                "--lease-namespace",
                watch_namespace,
                "--identity",
                "living-test",
                "--manifests",
                &manifests,
                "--metrics-addr",
                "127.0.0.1:0",
            ])
            .env("KUBECONFIG", kubeconfig())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("starting bosun operator run");
        Operator { child, log }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// A counter from its `/metrics`.
    fn metric(&self, name: &str) -> u64 {
        let log = self.log();
        let addr = log
            .lines()
            .find(|l| l.contains("msg=\"serving /metrics"))
            .and_then(|l| l.split("addr=").nth(1))
            .unwrap_or_else(|| panic!("no metrics address in the log:\n{log}"))
            .trim()
            .to_string();
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(&addr).unwrap();
        write!(stream, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        response
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no {name} in /metrics:\n{response}"))
            .parse()
            .unwrap()
    }
}

impl Drop for Operator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.log);
    }
}

/// The API server's audit log (one JSON line per request; the living cluster writes it beside
/// its kubeconfig), read from a byte offset on.
struct Audit {
    path: PathBuf,
}

impl Audit {
    fn new() -> Audit {
        Audit {
            path: kubeconfig().with_file_name("audit.log"),
        }
    }

    fn offset(&self) -> u64 {
        std::fs::metadata(&self.path)
            .unwrap_or_else(|e| panic!("{}: {e}", self.path.display()))
            .len()
    }

    /// The write requests (create, update, patch, delete) logged since `offset` whose user
    /// agent starts with `agent`, as `verb URI` (query left out).
    fn writes_since(&self, offset: u64, agent: &str) -> Vec<String> {
        use std::io::{BufRead, Seek};
        let mut file = std::fs::File::open(&self.path).unwrap();
        let len = file.metadata().unwrap().len();
        assert!(
            len >= offset,
            "{} was rotated meanwhile (it shrank from {offset} to {len} bytes)",
            self.path.display()
        );
        file.seek(std::io::SeekFrom::Start(offset)).unwrap();
        std::io::BufReader::new(file)
            .lines()
            .map_while(Result::ok)
            .filter_map(|l| serde_json::from_str::<Value>(&l).ok())
            .filter(|e| {
                e["userAgent"]
                    .as_str()
                    .is_some_and(|a| a.starts_with(agent))
            })
            .filter(|e| {
                matches!(
                    e["verb"].as_str(),
                    Some("create" | "update" | "patch" | "delete")
                )
            })
            .map(|e| {
                let uri = e["requestURI"].as_str().unwrap_or("");
                format!(
                    "{} {}",
                    e["verb"].as_str().unwrap_or(""),
                    uri.split('?').next().unwrap_or("")
                )
            })
            .collect()
    }
}

const IOP_CRD: &str = "istiooperators.install.istio.io";

fn iop_resource() -> ApiResource {
    ApiResource {
        group: "install.istio.io".into(),
        version: "v1alpha1".into(),
        api_version: "install.istio.io/v1alpha1".into(),
        kind: "IstioOperator".into(),
        plural: "istiooperators".into(),
    }
}

/// The operator reconciles the install `bosun install` made (an IstioOperator with the same
/// input) while istiod runs: it takes the objects over without undoing what istiod wrote (istiod
/// never has to write again), turns HEALTHY, and then, for 3 minutes in which it reconciles
/// again and again (istiod's status changes, and this test touching the IstioOperator each
/// minute), sends no write request at all but its leader election's Lease renewals, as the
/// API server's audit log counts them.
#[test]
fn operator_sends_no_writes_for_three_minutes_beside_a_running_istiod() {
    let _one = one_at_a_time();
    common::run(async {
        let client = testenv::living_client().await;
        let kube = client.kube().clone();
        fresh(&kube).await;
        succeeded(&install(&[]));
        wait_until(
            "istiod's writes into its webhooks",
            Duration::from_secs(60),
            || istiod_writes(&kube, "default"),
        )
        .await;

        // The IstioOperator CRD, as `operator dump` gives it (the operator's own Deployment is
        // not installed: the operator runs here as a child process).
        let dump = bosun(&["operator", "dump"]);
        succeeded(&dump);
        let crd: Vec<Value> = manifest::diff::read_objects("dump", &common::stdout(&dump))
            .unwrap()
            .iter()
            .filter(|o| o.kind() == "CustomResourceDefinition")
            .map(|o| o.value().clone())
            .collect();
        assert_eq!(crd.len(), 1, "the IstioOperator CRD");
        client.apply(&crd, TEST_AGENT_MANAGER, true).await.unwrap();
        let ns = testenv::unique_name("living-iop");
        create_namespace(&kube, &ns, json!({})).await;
        let iops: Api<DynamicObject> = Api::namespaced_with(kube.clone(), &ns, &iop_resource());
        let living = testenv::living();
        let iop: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "install.istio.io/v1alpha1", "kind": "IstioOperator",
            "metadata": {"name": "minimal", "namespace": ns},
            "spec": {"profile": "minimal", "hub": living.hub, "tag": living.tag}
        }))
        .unwrap();
        wait_until(
            "the IstioOperator CRD served",
            Duration::from_secs(60),
            || async { iops.create(&PostParams::default(), &iop).await.ok() },
        )
        .await;

        let audit = Audit::new();
        let started = audit.offset();
        let operator = Operator::start(&ns);
        let healthy = || async {
            let iop = iops.get("minimal").await.ok()?;
            (iop.data["status"]["status"] == "HEALTHY").then_some(())
        };
        let deadline = Instant::now() + Duration::from_secs(120);
        while healthy().await.is_none() {
            assert!(
                Instant::now() < deadline,
                "not HEALTHY within 120s; operator log:\n{}",
                operator.log()
            );
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        // Its Event for becoming HEALTHY is written just after the status: let it land.
        tokio::time::sleep(Duration::from_secs(3)).await;
        // Took over: its field manager and labels are on istiod's Deployment.
        let istiod = Api::<Deployment>::namespaced(kube.clone(), ISTIO_NS)
            .get("istiod")
            .await
            .unwrap();
        assert!(
            managed_by(&serde_json::to_value(&istiod).unwrap(), "bosun-operator"),
            "the operator did not apply istiod's Deployment"
        );
        let written = istiod_writes(&kube, "default")
            .await
            .expect("what istiod wrote is still there after the operator took over");

        // The window: the operator keeps reconciling (touched once a minute by this test, with
        // a user agent of its own) and must find nothing to write.
        let toucher = testenv::kube_client_as(kubeconfig(), TEST_AGENT).await;
        let touched_iops: Api<DynamicObject> = Api::namespaced_with(toucher, &ns, &iop_resource());
        let skipped_before = operator.metric("bosun_operator_apply_skipped_total");
        let window_start = audit.offset();
        let window = Instant::now();
        for minute in 1..=3 {
            touched_iops
                .patch(
                    "minimal",
                    &PatchParams::default(),
                    &Patch::Merge(json!({"metadata": {"annotations": {"living-test/touched": minute.to_string()}}})),
                )
                .await
                .unwrap();
            while window.elapsed() < Duration::from_secs(60 * minute) {
                tokio::time::sleep(Duration::from_secs(5)).await;
                assert!(
                    healthy().await.is_some(),
                    "no longer HEALTHY; operator log:\n{}",
                    operator.log()
                );
            }
        }
        tokio::time::sleep(Duration::from_secs(1)).await; // the audit log is written asynchronously
        let writes = audit.writes_since(window_start, "bosun/");
        let (leases, others): (Vec<&String>, Vec<&String>) =
            writes.iter().partition(|w| w.contains("/leases/"));
        let skipped = operator.metric("bosun_operator_apply_skipped_total") - skipped_before;
        eprintln!(
            "operator, 3 minutes beside a running istiod: {} write(s) besides its Lease, {} Lease renewal(s), {skipped} reconcile(s) that skipped the apply",
            others.len(),
            leases.len()
        );
        assert!(
            others.is_empty(),
            "the operator wrote in 3 minutes with nothing to do: {others:#?}\nits log:\n{}",
            operator.log()
        );
        // The Lease renewals are its leader election's own clock (every 3 s): counted apart,
        // and their presence shows the audit log does hold this operator's requests.
        let lease = format!(
            "update /apis/coordination.k8s.io/v1/namespaces/{ns}/leases/bosun-operator-leader"
        );
        assert!(
            !leases.is_empty() && leases.iter().all(|w| **w == lease),
            "{leases:#?}"
        );
        assert!(skipped >= 3, "only {skipped} reconciles in the window");
        // istiod never had to write again since the operator started: nothing was undone.
        let istiod_writes_since = audit
            .writes_since(started, "pilot-discovery/")
            .into_iter()
            .filter(|w| w.contains("webhookconfigurations"))
            .collect::<Vec<_>>();
        assert!(
            istiod_writes_since.is_empty(),
            "istiod wrote its webhooks again: {istiod_writes_since:#?}"
        );
        assert_eq!(istiod_writes(&kube, "default").await, Some(written));

        // Deleting the IstioOperator: its finalizer uninstalls (a real garbage collector
        // then removes istiod's pods).
        delete_iop_and_wait_until_gone(&iops, "the IstioOperator gone").await;
        drop(operator);
        delete_namespace(&kube, &ns).await;
        let crds: Api<CustomResourceDefinition> = Api::all(kube.clone());
        let _ = crds.delete(IOP_CRD, &DeleteParams::default()).await;
        succeeded(&bosun(&["uninstall", "--purge", "-y"]));
    });
}

/// `uninstall --purge`: every object the install rendered is deleted, the garbage collector
/// removes istiod's ReplicaSet (which bosun does not delete itself) and its pods, and an object
/// of someone else's in `istio-system` is left alone.
#[test]
fn uninstall_purge_leaves_what_it_does_not_own_and_the_collector_removes_pods() {
    let _one = one_at_a_time();
    common::run(async {
        let client = testenv::living_client().await;
        let kube = client.kube().clone();
        fresh(&kube).await;
        succeeded(&install(&[]));
        let rendered = {
            let mut args: Vec<String> = ["manifest", "generate", "--set", "profile=minimal"]
                .map(String::from)
                .to_vec();
            args.extend(local_images());
            let out = bosun(&args.iter().map(String::as_str).collect::<Vec<_>>());
            succeeded(&out);
            manifest::diff::read_objects("render", &common::stdout(&out)).unwrap()
        };
        let config_maps: Api<ConfigMap> = Api::namespaced(kube.clone(), ISTIO_NS);
        let name = testenv::unique_name("not-istios");
        let theirs: ConfigMap =
            serde_json::from_value(json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": ISTIO_NS}, "data": {"k": "v"}}))
            .unwrap();
        let theirs = config_maps
            .create(&PostParams::default(), &theirs)
            .await
            .unwrap();
        let replica_sets: Vec<String> = Api::<ReplicaSet>::namespaced(kube.clone(), ISTIO_NS)
            .list(&ListParams::default().labels("app=istiod"))
            .await
            .unwrap()
            .items
            .into_iter()
            .filter_map(|rs| rs.metadata.name)
            .collect();
        let istiod_pods: Vec<String> = pods(&kube, ISTIO_NS, "app=istiod")
            .await
            .iter()
            .map(pod_name)
            .collect();
        assert_eq!((replica_sets.len(), istiod_pods.len()), (1, 1));

        let purge = bosun(&["uninstall", "--purge", "-y"]);
        succeeded(&purge);
        // Every rendered object is gone (CRDs take a moment: their instances are removed first).
        for object in &rendered {
            let reference = vocab::ObjectRef {
                api_version: object.api_version().to_string(),
                kind: object.kind().to_string(),
                namespace: (!object.namespace().is_empty()).then(|| object.namespace().to_string()),
                name: object.name().to_string(),
            };
            wait_until(
                &format!("{reference:?} deleted"),
                Duration::from_secs(60),
                || async {
                    client
                        .get(&reference)
                        .await
                        .unwrap()
                        .is_none()
                        .then_some(())
                },
            )
            .await;
        }
        // bosun deleted the Deployment (with background propagation) and, as istioctl does,
        // the pods that carry the install's labels; never the ReplicaSet, which only the
        // garbage collector removes (and with it any pod it made meanwhile).
        let said = common::stdout(&purge);
        assert!(
            said.contains("Removed Deployment istio-system/istiod."),
            "{said}"
        );
        assert!(!said.contains("ReplicaSet"), "{said}");
        let rs_api: Api<ReplicaSet> = Api::namespaced(kube.clone(), ISTIO_NS);
        wait_until(
            "istiod's ReplicaSet and pods collected",
            Duration::from_secs(120),
            || async {
                for rs in &replica_sets {
                    if rs_api.get_opt(rs).await.unwrap().is_some() {
                        return None;
                    }
                }
                pods(&kube, ISTIO_NS, "app=istiod")
                    .await
                    .is_empty()
                    .then_some(())
            },
        )
        .await;
        let still = config_maps.get(&name).await.unwrap();
        assert_eq!(still.metadata.uid, theirs.metadata.uid);
        assert_eq!(
            still.metadata.resource_version,
            theirs.metadata.resource_version
        );
        config_maps
            .delete(&name, &DeleteParams::default())
            .await
            .unwrap();
    });
}

/// An image that does not exist (`--set tag=nope`): the install's readiness wait gives up at
/// its timeout naming istiod's pod, the kubelet's `ErrImagePull`/`ImagePullBackOff` and the
/// pull error of its event.
#[test]
fn a_missing_image_is_named_by_the_readiness_wait() {
    let _one = one_at_a_time();
    common::run(async {
        let client = testenv::living_client().await;
        let kube = client.kube().clone();
        fresh(&kube).await;
        let living = testenv::living();
        let image = format!("{}/pilot:nope", living.hub);
        let started = Instant::now();
        let out = bosun(&[
            "install",
            "-y",
            "--set",
            "profile=minimal",
            "--set",
            &format!("hub={}", living.hub),
            "--set",
            "tag=nope",
            "--readiness-timeout",
            "20s",
        ]);
        let took = started.elapsed();
        assert!(!out.status.success(), "{}", text(&out));
        let said = common::stderr(&out);
        let pod = pods(&kube, ISTIO_NS, "app=istiod").await;
        assert_eq!(pod.len(), 1, "{pod:#?}");
        let pod = pod_name(&pod[0]);
        assert!(
            said.contains("Deployment istio-system/istiod: 0/1 replicas ready"),
            "{said}"
        );
        assert!(
            said.contains(&format!("pod {pod}: container discovery waiting: ")),
            "{said}"
        );
        assert!(
            said.contains("waiting: ErrImagePull") || said.contains("waiting: ImagePullBackOff"),
            "{said}"
        );
        // The event's message, not its bare `Error: ErrImagePull` twin.
        assert!(
            said.contains(&format!(
                "last warning: Failed on Pod {pod}: Failed to pull image \"{image}\": "
            )),
            "{said}"
        );
        assert!(said.contains("not ready after 20"), "{said}");
        assert!(took < Duration::from_secs(90), "the install took {took:?}");
        succeeded(&bosun(&["uninstall", "--purge", "-y"]));
    });
}

/// A container that exits (istiod's Deployment overlaid so that pilot-discovery gets an unknown
/// command): the readiness wait names the pod, `CrashLoopBackOff` and how the container last
/// ended.
#[test]
fn a_crashing_container_is_named_with_its_last_termination() {
    let _one = one_at_a_time();
    common::run(async {
        let client = testenv::living_client().await;
        let kube = client.kube().clone();
        fresh(&kube).await;
        let file = std::env::temp_dir().join(format!("{}.yaml", testenv::unique_name("crash")));
        std::fs::write(
            &file,
            "apiVersion: install.istio.io/v1alpha1
kind: IstioOperator
spec:
  components:
    pilot:
      k8s:
        overlays:
        - kind: Deployment
          name: istiod
          patches:
          - path: spec.template.spec.containers.[name:discovery].args[0]
            value: no-such-command
",
        )
        .unwrap();
        // The kubelet restarts it after 10 s, then 20 s: 30 s in, it waits in CrashLoopBackOff.
        let out = install(&["-f", file.to_str().unwrap(), "--readiness-timeout", "30s"]);
        let _ = std::fs::remove_file(&file);
        assert!(!out.status.success(), "{}", text(&out));
        let said = common::stderr(&out);
        let pod = pods(&kube, ISTIO_NS, "app=istiod").await;
        assert_eq!(pod.len(), 1, "{pod:#?}");
        let pod = pod_name(&pod[0]);
        // pilot-discovery exits with -1 on a command it does not know. The kubelet's second
        // restart falls near the 30 s mark, so the container is either waiting out its
        // back-off (its last termination named) or just terminated again (under load).
        let waiting = format!("pod {pod}: container discovery waiting: CrashLoopBackOff: ");
        let terminated =
            format!("pod {pod}: container discovery terminated: Error (exit code 255)");
        assert!(
            (said.contains(&waiting) && said.contains("last terminated: Error (exit code 255)"))
                || said.contains(&terminated),
            "{said}"
        );
        assert!(
            said.contains(&format!(
                "last warning: BackOff on Pod {pod}: Back-off restarting failed container discovery"
            )),
            "{said}"
        );
        succeeded(&bosun(&["uninstall", "--purge", "-y"]));
    });
}

/// Every object labelled `istio.io/rev=<revision>`, by kind and name, with what says it was
/// changed: its generation where it has one (a Deployment's status changes with its pods'),
/// else its resourceVersion. Pods, ReplicaSets, EndpointSlices and Events are the controllers'
/// and the kubelet's, not the installer's, and are left out.
async fn revision_objects(
    kube: &kube::Client,
    revision: &str,
) -> std::collections::BTreeMap<String, String> {
    let discovery = kube::Discovery::new(kube.clone()).run().await.unwrap();
    let selector = format!("istio.io/rev={revision}");
    let mut out = std::collections::BTreeMap::new();
    for group in discovery.groups() {
        for (resource, caps) in group.recommended_resources() {
            if !caps.supports_operation(kube::discovery::verbs::LIST)
                || ["Pod", "ReplicaSet", "EndpointSlice", "Endpoints", "Event"]
                    .contains(&resource.kind.as_str())
            {
                continue;
            }
            let api: Api<DynamicObject> = Api::all_with(kube.clone(), &resource);
            let Ok(list) = api.list(&ListParams::default().labels(&selector)).await else {
                continue;
            };
            for o in list.items {
                let version = match o.metadata.generation {
                    Some(g) => format!("generation {g}"),
                    None => o.metadata.resource_version.unwrap_or_default(),
                };
                out.insert(
                    format!(
                        "{} {}/{}",
                        resource.kind,
                        o.metadata.namespace.unwrap_or_default(),
                        o.metadata.name.unwrap_or_default()
                    ),
                    version,
                );
            }
        }
    }
    out
}

/// The revision whose istiod injected a pod created (as a server-side dry run) in `ns`.
async fn injected_by(kube: &kube::Client, ns: &str) -> Option<String> {
    let params = PostParams {
        dry_run: true,
        ..Default::default()
    };
    let pod = Api::<Pod>::namespaced(kube.clone(), ns)
        .create(&params, &workload("probe", ns))
        .await
        .unwrap_or_else(|e| panic!("a dry-run pod in {ns}: {e:?}"));
    assert!(
        container_names(&pod).contains(&"istio-proxy".to_string()),
        "{pod:#?}"
    );
    pod.metadata.annotations?.get("istio.io/rev").cloned()
}

/// The canary upgrade of `canary_upgrade.rs` with real istiods of both revisions running (the
/// older Istio's charts as revision `old`, tagged `prod`; the pinned charts as `new`; both with
/// the local pilot image): each is Ready, the tags route injection to the istiod they name (a
/// pod in a namespace using `prod` is injected by `old`, then, the tags moved, by `new`),
/// `old` cannot be uninstalled while in use, and once it is removed `new` is untouched, still
/// serving injection and validation.
#[test]
fn canary_upgrade_with_two_running_istiods() {
    let _one = one_at_a_time();
    let old_charts = {
        let out = Command::new(common::repo_root().join("scripts/fetch-istio"))
            .arg("--previous")
            .output()
            .expect("running scripts/fetch-istio --previous");
        succeeded(&out);
        Path::new(common::stdout(&out).trim())
            .join("manifests")
            .display()
            .to_string()
    };
    common::run(async {
        let client = testenv::living_client().await;
        let kube = client.kube().clone();
        fresh(&kube).await;
        let installed = |charts: Option<&str>, revision: &str| {
            let mut args = vec!["--revision", revision];
            if let Some(charts) = charts {
                args.extend(["-d", charts]);
            }
            succeeded(&install(&args));
        };
        let ready_istiods = || async {
            let mut ready: Vec<String> = pods(&kube, ISTIO_NS, "app=istiod")
                .await
                .iter()
                .filter(|p| ready_since(p).is_some())
                .filter_map(|p| p.metadata.labels.as_ref()?.get("istio.io/rev").cloned())
                .collect();
            ready.sort();
            ready
        };

        installed(Some(&old_charts), "old");
        assert_eq!(ready_istiods().await, ["old"]);
        succeeded(&bosun(&["tag", "set", "prod", "--revision", "old"]));
        let apps = testenv::unique_name("living-canary");
        create_namespace(&kube, &apps, json!({"istio.io/rev": "prod"})).await;
        assert_eq!(injected_by(&kube, &apps).await.as_deref(), Some("old"));

        installed(None, "new");
        assert_eq!(ready_istiods().await, ["new", "old"]);
        // The tag still sends injection to `old`.
        assert_eq!(injected_by(&kube, &apps).await.as_deref(), Some("old"));

        let refused = bosun(&["uninstall", "--revision", "old", "-y"]);
        assert!(!refused.status.success(), "{}", text(&refused));
        let said = text(&refused);
        assert!(
            said.contains("tag prod points at it")
                && said.contains(&format!("namespace {apps} selects it")),
            "{said}"
        );

        succeeded(&bosun(&[
            "tag",
            "set",
            "prod",
            "--revision",
            "new",
            "--overwrite",
        ]));
        succeeded(&bosun(&[
            "tag",
            "set",
            "default",
            "--revision",
            "new",
            "--overwrite",
        ]));
        assert_eq!(injected_by(&kube, &apps).await.as_deref(), Some("new"));

        // `new`'s objects once settled (istiod may still be writing its CA bundle into the
        // moved tags): then `old` goes, and none of them changes.
        let mut before = revision_objects(&kube, "new").await;
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            tokio::time::sleep(Duration::from_secs(2)).await;
            let now = revision_objects(&kube, "new").await;
            if now == before || Instant::now() > deadline {
                before = now;
                break;
            }
            before = now;
        }
        let old_pods: Vec<String> = pods(&kube, ISTIO_NS, "app=istiod,istio.io/rev=old")
            .await
            .iter()
            .map(pod_name)
            .collect();
        succeeded(&bosun(&["uninstall", "--revision", "old", "-y"]));
        let pod_api: Api<Pod> = Api::namespaced(kube.clone(), ISTIO_NS);
        wait_until(
            "old's istiod pod collected",
            Duration::from_secs(120),
            || async {
                for pod in &old_pods {
                    if pod_api.get_opt(pod).await.unwrap().is_some() {
                        return None;
                    }
                }
                Some(())
            },
        )
        .await;
        assert!(revision_objects(&kube, "old").await.is_empty());
        assert_eq!(revision_objects(&kube, "new").await, before);
        assert_eq!(ready_istiods().await, ["new"]);
        // `new` serves alone: injection, and validation through the moved default tag.
        assert_eq!(injected_by(&kube, &apps).await.as_deref(), Some("new"));
        let refused = virtual_services(&kube, &apps)
            .create(&PostParams::default(), &virtual_service("bad", &apps, ""))
            .await
            .expect_err("an invalid VirtualService was admitted");
        assert!(
            format!("{refused:?}").contains("denied the request"),
            "{refused:?}"
        );
        let mut verify = vec![
            "verify-install",
            "--set",
            "profile=minimal",
            "--revision",
            "new",
        ];
        let images = local_images();
        verify.extend(images.iter().map(String::as_str));
        succeeded(&bosun(&verify));

        succeeded(&bosun(&["tag", "remove", "prod", "-y"]));
        delete_namespace(&kube, &apps).await;
        succeeded(&bosun(&["uninstall", "--purge", "-y"]));
    });
}

/// The namespace `charts/bosun-operator` deploys the operator into.
const OPERATOR_NS: &str = "istio-operator";

/// Removes what `charts/bosun-operator` installs (its namespace, with the Deployment, and its
/// cluster-wide RBAC), waiting until no operator pod is left.
async fn remove_operator_deployment(kube: &kube::Client) {
    use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
    let namespaces: Api<Namespace> = Api::all(kube.clone());
    if namespaces.get_opt(OPERATOR_NS).await.unwrap().is_none() {
        return;
    }
    let deployments: Api<Deployment> = Api::namespaced(kube.clone(), OPERATOR_NS);
    let _ = deployments
        .delete("bosun-operator", &DeleteParams::foreground())
        .await;
    delete_namespace(kube, OPERATOR_NS).await;
    let bindings: Api<ClusterRoleBinding> = Api::all(kube.clone());
    let _ = bindings
        .delete("bosun-operator", &DeleteParams::default())
        .await;
    let roles: Api<ClusterRole> = Api::all(kube.clone());
    for role in ["bosun-operator", "bosun-operator-istio-namespace"] {
        let _ = roles.delete(role, &DeleteParams::default()).await;
    }
    wait_until(
        "the operator's namespace gone",
        Duration::from_secs(120),
        || async {
            namespaces
                .get_opt(OPERATOR_NS)
                .await
                .unwrap()
                .is_none()
                .then_some(())
        },
    )
    .await;
}

/// The condition `type_` of an IstioOperator as read, if it is `True` for its current generation.
fn condition_true(iop: &DynamicObject, type_: &str) -> bool {
    let generation = iop.metadata.generation;
    iop.data["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|c| {
            c["type"] == type_
                && c["status"] == "True"
                && c["observedGeneration"].as_i64() == generation
        })
}

/// The operator as a user deploys it: its image, built here by `scripts/build-operator-image`
/// and imported into the node's containerd (never pulled), deployed by `charts/bosun-operator`
/// with two replicas under the chart's least-privilege RBAC (the living API server enforces
/// RBAC, and the operator uses its pod's ServiceAccount token). The two pods turn Ready, exactly
/// one holds the leader Lease and reconciles; an IstioOperator of the minimal profile with the
/// local images reaches `Ready` with a real istiod running. Deleting the leader's pod (SIGTERM,
/// as a rolling update does) hands the Lease on well before it would expire (the leader
/// releases it), and the new leader repairs drift (istiod's Deployment deleted). Deleting the
/// IstioOperator uninstalls through the operator's finalizer.
#[test]
fn operator_from_its_image_elects_one_leader_and_reaches_ready_with_istiod() {
    let _one = one_at_a_time();
    let image_tar = common::fetched("BOSUN_OPERATOR_IMAGE", "build-operator-image");
    let imported = Command::new(common::repo_root().join("scripts/testenv-living"))
        .arg("import")
        .arg(&image_tar)
        .output()
        .expect("running scripts/testenv-living import");
    succeeded(&imported);
    common::run(async {
        let client = testenv::living_client().await;
        let kube = client.kube().clone();
        fresh(&kube).await;
        // The chart's Roles go into the Istio namespaces, which must exist first.
        let namespaces: Api<Namespace> = Api::all(kube.clone());
        if namespaces.get_opt(ISTIO_NS).await.unwrap().is_none() {
            create_namespace(&kube, ISTIO_NS, json!({})).await;
        }
        let chart = common::repo_root().join("charts/bosun-operator");
        let rendered = bosun(&[
            "helm",
            "template",
            "bosun-operator",
            &chart.display().to_string(),
            "--include-crds",
            "--set",
            "replicas=2",
            "--set",
            &format!("watchNamespace={ISTIO_NS}"),
        ]);
        succeeded(&rendered);
        let objects: Vec<Value> =
            manifest::diff::read_objects("charts/bosun-operator", &common::stdout(&rendered))
                .unwrap()
                .iter()
                .map(|o| o.value().clone())
                .collect();
        let image = objects
            .iter()
            .find(|o| o["kind"] == "Deployment")
            .and_then(|d| d.pointer("/spec/template/spec/containers/0/image"))
            .and_then(Value::as_str)
            .expect("the chart's Deployment names an image")
            .to_string();
        assert!(
            common::stdout(&imported).contains(&image)
                || common::stderr(&imported).contains(&image),
            "the chart deploys {image}, the import gave:\n{}",
            text(&imported)
        );
        client
            .apply(&objects, TEST_AGENT_MANAGER, true)
            .await
            .unwrap();

        let operator_pods = || pods(&kube, OPERATOR_NS, "app.kubernetes.io/name=bosun-operator");
        let running = wait_until(
            "two operator pods Ready",
            Duration::from_secs(120),
            || async {
                let ready: Vec<Pod> = operator_pods()
                    .await
                    .into_iter()
                    .filter(|p| ready_since(p).is_some() && p.metadata.deletion_timestamp.is_none())
                    .collect();
                (ready.len() == 2).then_some(ready)
            },
        )
        .await;
        for pod in &running {
            let spec = pod.spec.as_ref().unwrap();
            assert_eq!(spec.containers[0].image.as_deref(), Some(image.as_str()));
            let status = &pod
                .status
                .as_ref()
                .unwrap()
                .container_statuses
                .as_ref()
                .unwrap()[0];
            assert_eq!(status.image, image, "{status:?}");
            assert_eq!(status.restart_count, 0, "{status:?}");
        }
        let leases: Api<k8s_openapi::api::coordination::v1::Lease> =
            Api::namespaced(kube.clone(), OPERATOR_NS);
        let holder = || async {
            leases
                .get_opt(operator::deploy::LEASE_NAME)
                .await
                .unwrap()
                .and_then(|l| l.spec?.holder_identity)
                .filter(|h| !h.is_empty())
        };
        let leader = wait_until("a leader", Duration::from_secs(60), holder).await;
        let names: Vec<String> = running.iter().map(pod_name).collect();
        assert!(names.contains(&leader), "{leader} is not one of {names:?}");
        let pod_api: Api<Pod> = Api::namespaced(kube.clone(), OPERATOR_NS);
        let log_of = |name: String| {
            let pod_api = pod_api.clone();
            async move {
                pod_api
                    .logs(&name, &Default::default())
                    .await
                    .unwrap_or_else(|e| panic!("the log of {name}: {e}"))
            }
        };
        for name in &names {
            let log = log_of(name.clone()).await;
            assert_eq!(
                log.contains("msg=\"became leader\""),
                *name == leader,
                "{name} (leader {leader}):\n{log}"
            );
        }

        let iops: Api<DynamicObject> =
            Api::namespaced_with(kube.clone(), ISTIO_NS, &iop_resource());
        let living = testenv::living();
        let iop: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "install.istio.io/v1alpha1", "kind": "IstioOperator",
            "metadata": {"name": "minimal", "namespace": ISTIO_NS},
            "spec": {"profile": "minimal", "hub": living.hub, "tag": living.tag}
        }))
        .unwrap();
        iops.create(&PostParams::default(), &iop).await.unwrap();
        let ready = || async {
            let iop = iops.get("minimal").await.ok()?;
            (condition_true(&iop, "Ready") && condition_true(&iop, "Reconciled")).then_some(iop)
        };
        let became_ready =
            wait_until("the IstioOperator Ready", Duration::from_secs(180), ready).await;
        assert_eq!(became_ready.data["status"]["status"], "HEALTHY");
        let istiods: Vec<String> = pods(&kube, ISTIO_NS, "app=istiod")
            .await
            .iter()
            .filter(|p| ready_since(p).is_some())
            .map(pod_name)
            .collect();
        assert_eq!(istiods.len(), 1, "{istiods:?}");
        let leader_log = log_of(leader.clone()).await;
        assert!(leader_log.contains("msg=reconciled"), "{leader_log}");
        let follower = names.iter().find(|n| **n != leader).unwrap().clone();
        let follower_log = log_of(follower.clone()).await;
        assert!(!follower_log.contains("msg=reconciled"), "{follower_log}");

        // A rolling update's SIGTERM: the leader releases the Lease on its way out.
        let deleted_at = Instant::now();
        pod_api
            .delete(&leader, &DeleteParams::default())
            .await
            .unwrap();
        let next = wait_until("a new leader", Duration::from_secs(60), || async {
            holder().await.filter(|h| *h != leader)
        })
        .await;
        let handed_over = deleted_at.elapsed();
        eprintln!("leader {leader} deleted; {next} leads after {handed_over:?}");
        assert!(
            handed_over < Duration::from_secs(12),
            "the Lease passed on after {handed_over:?}: not released (it expires after 15 s)"
        );
        let deployments: Api<Deployment> = Api::namespaced(kube.clone(), ISTIO_NS);
        let old_uid = deployments.get("istiod").await.unwrap().metadata.uid;
        deployments
            .delete("istiod", &DeleteParams::default())
            .await
            .unwrap();
        wait_until(
            "istiod's Deployment restored by the new leader, and Ready",
            Duration::from_secs(180),
            || async {
                let restored = deployments.get_opt("istiod").await.unwrap()?;
                let fresh_ready = restored.metadata.uid != old_uid
                    && restored.status.as_ref()?.ready_replicas == Some(1);
                if !fresh_ready {
                    return None;
                }
                ready().await
            },
        )
        .await;

        delete_iop_and_wait_until_gone(&iops, "the IstioOperator uninstalled and gone").await;
        assert!(
            deployments.get_opt("istiod").await.unwrap().is_none(),
            "the finalizer left istiod"
        );
        remove_operator_deployment(&kube).await;
        let crds: Api<CustomResourceDefinition> = Api::all(kube.clone());
        let _ = crds.delete(IOP_CRD, &DeleteParams::default()).await;
        succeeded(&bosun(&["uninstall", "--purge", "-y"]));
    });
}

/// `proxy status` and `proxy restart` with the real Deployment controller and kubelet. An
/// injected proxy cannot start here (no Envoy image), so the workload is the pause image with
/// the injector's annotations in its pod template (revision `gone-…`, which no istiod serves):
/// every pod the controller makes looks injected by it, and is stale because that revision is
/// not installed. The restart must patch the template, and return only once the controller
/// has rolled out new, ready pods; the old pods are replaced.
#[test]
fn proxy_restart_returns_once_the_controller_rolled_out_new_pods() {
    let _one = one_at_a_time();
    common::run(async {
        let kube = testenv::living_client().await.kube().clone();
        let ns = testenv::unique_name("proxy-restart");
        let gone = testenv::unique_name("gone");
        // A revision nothing serves: no injector here matches it, so pods are created as is.
        create_namespace(&kube, &ns, json!({"istio.io/rev": gone})).await;
        let status = json!({"revision": gone, "containers": ["istio-proxy"]}).to_string();
        let deployment: Deployment = serde_json::from_value(json!({
            "metadata": {"name": "app", "namespace": ns},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "app"}},
                "template": {"metadata": {"labels": {"app": "app"},
                    "annotations": {"istio.io/rev": gone, "sidecar.istio.io/status": status}},
                "spec": {"terminationGracePeriodSeconds": 0,
                    "containers": [{"name": "app", "image": testenv::living().pause_image}]}}}
        }))
        .unwrap();
        let deployments: Api<Deployment> = Api::namespaced(kube.clone(), &ns);
        deployments
            .create(&PostParams::default(), &deployment)
            .await
            .unwrap();
        let before: Vec<String> = wait_until("2 ready pods", Duration::from_secs(120), || async {
            let pods = pods(&kube, &ns, "app=app").await;
            let ready = pods
                .iter()
                .filter(|p| ready_since(p).is_some())
                .map(pod_name)
                .collect::<Vec<_>>();
            (ready.len() == 2).then_some(ready)
        })
        .await;

        let out = bosun(&["proxy", "status", "-n", &ns, "-o", "json"]);
        succeeded(&out);
        let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(rows.as_array().map(Vec::len), Some(1), "{}", text(&out));
        assert_eq!(rows[0]["name"], "app", "{}", text(&out));
        assert_eq!(rows[0]["kind"], "Deployment", "{}", text(&out));
        assert_eq!(rows[0]["status"], "stale", "{}", text(&out));
        let mut listed: Vec<String> = serde_json::from_value(rows[0]["pods"].clone()).unwrap();
        listed.sort();
        let mut want = before.clone();
        want.sort();
        assert_eq!(listed, want, "{}", text(&out));

        let out = bosun(&[
            "proxy",
            "restart",
            "--stale",
            "-n",
            &ns,
            "-y",
            "--timeout",
            "120s",
        ]);
        succeeded(&out);
        assert!(
            String::from_utf8_lossy(&out.stdout)
                .contains(&format!("namespace {ns}: Deployment/app rolled out")),
            "{}",
            text(&out)
        );
        // When bosun returns, the controller has made and readied two pods of the new template.
        let live = deployments.get("app").await.unwrap();
        let s = live.status.clone().unwrap_or_default();
        assert_eq!(s.observed_generation, live.metadata.generation);
        assert_eq!((s.updated_replicas, s.ready_replicas), (Some(2), Some(2)));
        let now: Vec<String> = pods(&kube, &ns, "app=app")
            .await
            .iter()
            .filter(|p| p.metadata.deletion_timestamp.is_none() && ready_since(p).is_some())
            .map(pod_name)
            .collect();
        assert_eq!(now.len(), 2, "{now:?}");
        assert!(
            now.iter().all(|p| !before.contains(p)),
            "{before:?} {now:?}"
        );
        delete_namespace(&kube, &ns).await;
    });
}
