//! The cluster istioctl leaves against the one bosun leaves: each case of
//! `tests/cases/cluster-parity/cases.txt` runs the same commands with the pinned istioctl and
//! with bosun, each on a fresh API server of its own (`testenv::Private`), and after every
//! command compares every object the commands created or changed, field by field, plus the
//! exit status (and, where the case asks, the output).
//!
//! A test control plane runs no controllers or kubelet, so a helper task does for workloads
//! what they would (`testenv::make_workloads_ready`: ReplicaSets for istioctl's wait, ready
//! statuses, ready endpoints); ReplicaSets and EndpointSlices are its, so they are not
//! compared. Left out of every object: what the API server sets (`uid`, `resourceVersion`,
//! `creationTimestamp`, `generation`, `managedFields`), `status` (the helper's), a Service's
//! allocated `clusterIP(s)` and node ports (random per server), and the label
//! `operator.istio.io/version` where istioctl's is `unknown` (an istioctl built from a module
//! has no version stamped in; bosun labels the charts' version).
//!
//! Before each of bosun's `install` steps, the same `install --plan -o json` runs: every
//! object the install then creates, changes (status aside) or deletes must be in that plan,
//! and everything it plans to create must be there after.
//!
//! `BOSUN_PARITY_CASES=a,b` runs only those cases.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use cluster::testenv;
use serde_json::Value;

/// One command of a case, or (`@namespace NAME [k=v]...`) a namespace with those labels made
/// by the test on both sides, as a user would with kubectl.
#[derive(Debug, Clone)]
struct Step {
    /// The arguments both tools get (`$MANIFESTS`: the pinned charts).
    args: Vec<String>,
    /// `=`: their standard outputs must be equal too.
    same_stdout: bool,
    /// `| apply`: what the command prints (manifests) is then applied to its cluster, as a
    /// user pipes `tag generate` into `kubectl apply -f -`.
    apply_stdout: bool,
}

impl Step {
    fn parse(text: &str, manifests: &str) -> Step {
        let mut text = text.trim();
        let same_stdout = text.starts_with('=');
        if same_stdout {
            text = text[1..].trim_start();
        }
        let apply_stdout = text.ends_with("| apply");
        if apply_stdout {
            text = text.trim_end_matches("| apply").trim_end();
        }
        Step {
            args: text
                .split_whitespace()
                .map(|a| a.replace("$MANIFESTS", manifests))
                .collect(),
            same_stdout,
            apply_stdout,
        }
    }
}

struct Case {
    name: String,
    steps: Vec<Step>,
}

fn cases(manifests: &str) -> Vec<Case> {
    let path = common::repo_root().join("tests/cases/cluster-parity/cases.txt");
    let text = std::fs::read_to_string(&path).expect("read cases.txt");
    let only: Option<BTreeSet<String>> = std::env::var("BOSUN_PARITY_CASES")
        .ok()
        .map(|v| v.split(',').map(|s| s.trim().to_string()).collect());
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (name, steps) = l.split_once(':').expect("NAME: STEP ; STEP");
            Case {
                name: name.trim().to_string(),
                steps: steps
                    .split(';')
                    .map(|s| Step::parse(s, manifests))
                    .collect(),
            }
        })
        .filter(|c| only.as_ref().is_none_or(|o| o.contains(&c.name)))
        .collect()
}

/// What one command did on one side, and the cluster after it.
struct Observed {
    status: Option<i32>,
    stdout: String,
    stderr: String,
    objects: BTreeMap<String, Value>,
    /// bosun's `install` steps only: where the `install --plan` run just before disagreed with
    /// what the install then did.
    plan_misses: Vec<String>,
}

/// Kinds never compared: the API server's own bookkeeping, and what the readiness helper
/// makes in the controllers' place.
const SKIPPED: &[&str] = &[
    "Event",
    "Lease",
    "Endpoints",
    "EndpointSlice",
    "ReplicaSet",
    "Pod",
    "ComponentStatus",
    // A Service's allocated cluster IP, random per server.
    "IPAddress",
];

/// Every object the server holds, by `group/kind namespace/name`, with its resourceVersion.
async fn all_objects(client: &cluster::Client) -> BTreeMap<String, Value> {
    let discovery = kube::Discovery::new(client.kube().clone())
        .run()
        .await
        .expect("discovery");
    let mut out = BTreeMap::new();
    for group in discovery.groups() {
        for (resource, caps) in group.recommended_resources() {
            if !caps.supports_operation(kube::discovery::verbs::LIST)
                || SKIPPED.contains(&resource.kind.as_str())
            {
                continue;
            }
            let api: kube::Api<kube::api::DynamicObject> =
                kube::Api::all_with(client.kube().clone(), &resource);
            let Ok(list) = api.list(&Default::default()).await else {
                continue;
            };
            for item in list.items {
                let mut json = serde_json::to_value(&item).unwrap_or(Value::Null);
                json["apiVersion"] = resource.api_version.clone().into();
                json["kind"] = resource.kind.clone().into();
                let key = format!(
                    "{}/{} {}/{}",
                    resource.group,
                    resource.kind,
                    item.metadata.namespace.as_deref().unwrap_or(""),
                    item.metadata.name.as_deref().unwrap_or("")
                );
                out.insert(key, json);
            }
        }
    }
    out
}

fn resource_version(v: &Value) -> &str {
    v.pointer("/metadata/resourceVersion")
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// What the comparison looks at (see the module docs).
fn normalize(mut v: Value) -> Value {
    if let Some(meta) = v.get_mut("metadata").and_then(Value::as_object_mut) {
        for k in [
            "uid",
            "resourceVersion",
            "creationTimestamp",
            "generation",
            "managedFields",
            "selfLink",
        ] {
            meta.remove(k);
        }
    }
    if let Some(map) = v.as_object_mut() {
        map.remove("status");
    }
    if v["kind"] == "Service"
        && let Some(spec) = v.get_mut("spec").and_then(Value::as_object_mut)
    {
        spec.remove("clusterIP");
        spec.remove("clusterIPs");
        spec.remove("healthCheckNodePort");
        for port in spec
            .get_mut("ports")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            if let Some(p) = port.as_object_mut() {
                p.remove("nodePort");
            }
        }
    }
    v
}

fn run(binary: &Path, kubeconfig: &Path, args: &[String]) -> Output {
    Command::new(binary)
        .args(args)
        .env("KUBECONFIG", kubeconfig)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", binary.display()))
}

/// The key `all_objects` gives the object a plan entry names.
fn plan_key(entry: &Value) -> String {
    let api_version = entry["apiVersion"].as_str().unwrap_or("");
    let group = api_version.split_once('/').map_or("", |(g, _)| g);
    format!(
        "{group}/{} {}/{}",
        entry["kind"].as_str().unwrap_or(""),
        entry["namespace"].as_str().unwrap_or(""),
        entry["name"].as_str().unwrap_or("")
    )
}

/// Where `install --plan -o json` (run just before the install) and what the install did
/// disagree: an object the install created or changed (its content, status aside) that the
/// plan did not list to create or update, one it deleted that the plan did not list to
/// delete, and one the plan listed to create that is not there after.
fn plan_misses(
    plan: &Value,
    before: &BTreeMap<String, Value>,
    after: &BTreeMap<String, Value>,
) -> Vec<String> {
    let planned = |actions: &[&str]| -> BTreeSet<String> {
        plan["objects"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|o| actions.contains(&o["action"].as_str().unwrap_or("")))
            .map(plan_key)
            .collect()
    };
    let (writes, deletes, creates) = (
        planned(&["create", "update"]),
        planned(&["delete"]),
        planned(&["create"]),
    );
    let mut misses = Vec::new();
    // The API server registers an APIService for each new CRD group version itself.
    let derived = |key: &str| key.starts_with("apiregistration.k8s.io/APIService ");
    for (key, now) in after {
        if before.get(key) != Some(now) && !writes.contains(key) && !derived(key) {
            misses.push(format!(
                "  install wrote {key}, which its plan did not list"
            ));
        }
    }
    for key in before
        .keys()
        .filter(|k| !after.contains_key(*k) && !derived(k))
    {
        if !deletes.contains(key) {
            misses.push(format!(
                "  install deleted {key}, which its plan did not list"
            ));
        }
    }
    for key in creates.iter().filter(|k| !after.contains_key(*k)) {
        misses.push(format!(
            "  the plan listed {key} to create, the install did not"
        ));
    }
    misses
}

/// Runs `case`'s steps with `binary` on a fresh API server; what each step did. With
/// `check_plans`, each `install` step is preceded by the same `install --plan -o json`, which
/// must list every object the install then writes or deletes.
fn observe(binary: &Path, label: &str, case: &Case, check_plans: bool) -> Vec<Observed> {
    let server = testenv::Private::start(label);
    common::run(async {
        let client = server.client().await;
        let ready = testenv::make_workloads_ready(&client, None);
        // The API server makes Service default/kubernetes itself, a moment after it starts:
        // wait for it, so that it is in the baseline of both servers and in neither's steps.
        let services: kube::Api<k8s_openapi::api::core::v1::Service> =
            kube::Api::namespaced(client.kube().clone(), "default");
        testkit::wait_until(
            "Service default/kubernetes",
            std::time::Duration::from_secs(60),
            std::time::Duration::from_millis(100),
            || async {
                services
                    .get_opt("kubernetes")
                    .await
                    .ok()
                    .flatten()
                    .map(|_| ())
            },
        )
        .await
        .expect("the API server's own Service");
        let baseline: BTreeMap<String, String> = all_objects(&client)
            .await
            .into_iter()
            .map(|(k, v)| (k, resource_version(&v).to_string()))
            .collect();
        let mut observed = Vec::new();
        for step in &case.steps {
            if step.args.first().map(String::as_str) == Some("@namespace") {
                let labels: serde_json::Map<String, Value> = step.args[2..]
                    .iter()
                    .filter_map(|kv| kv.split_once('='))
                    .map(|(k, v)| (k.to_string(), Value::String(v.to_string())))
                    .collect();
                let ns = serde_json::json!({"apiVersion": "v1", "kind": "Namespace",
                    "metadata": {"name": step.args[1], "labels": labels}});
                client
                    .apply(&[ns], "kubectl", true)
                    .await
                    .expect("making a namespace");
                observed.push(Observed {
                    status: Some(0),
                    stdout: String::new(),
                    stderr: String::new(),
                    objects: BTreeMap::new(),
                    plan_misses: Vec::new(),
                });
                continue;
            }
            let planned = if check_plans && step.args.first().map(String::as_str) == Some("install")
            {
                let mut args: Vec<String> =
                    step.args.iter().filter(|a| *a != "-y").cloned().collect();
                args.extend(["--plan", "-o", "json"].map(String::from));
                let kubeconfig = server.kubeconfig().to_path_buf();
                let binary = binary.to_path_buf();
                let out = tokio::task::spawn_blocking(move || run(&binary, &kubeconfig, &args))
                    .await
                    .unwrap();
                assert!(
                    out.status.success(),
                    "install --plan before step {:?}: {}",
                    step.args,
                    String::from_utf8_lossy(&out.stderr)
                );
                let plan: Value = serde_json::from_slice(&out.stdout).expect("the plan as JSON");
                let before: BTreeMap<String, Value> = all_objects(&client)
                    .await
                    .into_iter()
                    .map(|(k, v)| (k, normalize(v)))
                    .collect();
                Some((plan, before))
            } else {
                None
            };
            let kubeconfig = server.kubeconfig().to_path_buf();
            let (binary, args) = (binary.to_path_buf(), step.args.clone());
            let out = tokio::task::spawn_blocking(move || run(&binary, &kubeconfig, &args))
                .await
                .unwrap();
            if step.apply_stdout && out.status.success() {
                let text = String::from_utf8_lossy(&out.stdout);
                let objects: Vec<Value> = manifest::diff::read_objects("stdout", &text)
                    .expect("the command printed manifests")
                    .into_iter()
                    .map(|o| o.into_value())
                    .collect();
                client
                    .apply(&objects, "kubectl", true)
                    .await
                    .expect("applying what the command printed");
            }
            let now = all_objects(&client).await;
            let plan_misses = match &planned {
                Some((plan, before)) => {
                    let after: BTreeMap<String, Value> = now
                        .iter()
                        .map(|(k, v)| (k.clone(), normalize(v.clone())))
                        .collect();
                    plan_misses(plan, before, &after)
                }
                None => Vec::new(),
            };
            let objects = now
                .into_iter()
                .filter(|(k, v)| baseline.get(k).map(String::as_str) != Some(resource_version(v)))
                .map(|(k, v)| (k, normalize(v)))
                .collect();
            observed.push(Observed {
                status: out.status.code(),
                stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
                stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
                objects,
                plan_misses,
            });
        }
        ready.abort();
        observed
    })
}

const VERSION_LABEL: &str = "operator.istio.io/version";

/// The differences between istioctl's cluster `a` and bosun's `b`, as report lines.
fn differences(a: &BTreeMap<String, Value>, b: &BTreeMap<String, Value>) -> Vec<String> {
    let mut out = Vec::new();
    for key in a.keys().chain(b.keys()).collect::<BTreeSet<_>>() {
        match (a.get(key), b.get(key)) {
            (Some(_), None) => out.push(format!("  only after istioctl: {key}")),
            (None, Some(_)) => out.push(format!("  only after bosun: {key}")),
            (Some(x), Some(y)) => {
                let mut y = y.clone();
                let theirs = x
                    .pointer("/metadata/labels")
                    .and_then(|l| l.get(VERSION_LABEL));
                if theirs.and_then(Value::as_str) == Some("unknown")
                    && let Some(labels) = y
                        .pointer_mut("/metadata/labels")
                        .and_then(Value::as_object_mut)
                    && labels.contains_key(VERSION_LABEL)
                {
                    labels.insert(VERSION_LABEL.into(), "unknown".into());
                }
                let changes = manifest::diff::compare_values(x, &y);
                if !changes.is_empty() {
                    let mut text = format!("  differs: {key}\n");
                    for c in &changes {
                        manifest::diff::write_change(&mut text, c);
                    }
                    out.push(text.trim_end().to_string());
                }
            }
            (None, None) => unreachable!(),
        }
    }
    out
}

#[test]
fn clusters_after_istioctl_and_bosun_are_equal() {
    let istioctl: PathBuf = common::fetched("BOSUN_ISTIOCTL", "fetch-istioctl");
    let bosun = PathBuf::from(env!("CARGO_BIN_EXE_bosun"));
    let manifests = common::manifests();
    let cases = cases(&manifests);
    assert!(!cases.is_empty(), "no cases selected");
    let mut failed = Vec::new();
    for case in &cases {
        let (theirs, ours) = std::thread::scope(|s| {
            let theirs =
                s.spawn(|| observe(&istioctl, &format!("{}-istioctl", case.name), case, false));
            let ours = observe(&bosun, &format!("{}-bosun", case.name), case, true);
            (theirs.join().expect("istioctl side"), ours)
        });
        let mut report = Vec::new();
        for (i, (step, (a, b))) in case.steps.iter().zip(theirs.iter().zip(&ours)).enumerate() {
            let mut lines = Vec::new();
            if a.status != b.status {
                lines.push(format!(
                    "  exit status: istioctl {:?}, bosun {:?}\n  istioctl stderr: {}\n  bosun stderr: {}",
                    a.status, b.status, a.stderr.trim(), b.stderr.trim()
                ));
            }
            if step.same_stdout && a.stdout != b.stdout {
                lines.push(format!(
                    "  stdout differs:\n--- istioctl\n{}--- bosun\n{}",
                    a.stdout, b.stdout
                ));
            }
            lines.extend(differences(&a.objects, &b.objects));
            lines.extend(b.plan_misses.iter().cloned());
            if !lines.is_empty() {
                report.push(format!(
                    "step {} ({}):\n{}",
                    i + 1,
                    step.args.join(" "),
                    lines.join("\n")
                ));
            }
        }
        let objects = theirs.last().map_or(0, |o| o.objects.len());
        if report.is_empty() {
            eprintln!(
                "{}: equal ({objects} objects after the last step)",
                case.name
            );
        } else {
            eprintln!("{}: DIFFERENT\n{}", case.name, report.join("\n"));
            failed.push(case.name.clone());
        }
    }
    eprintln!(
        "{} of {} cases equal",
        cases.len() - failed.len(),
        cases.len()
    );
    assert!(failed.is_empty(), "cases that differ: {failed:?}");
}
