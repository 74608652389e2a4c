//! The IstioOperator controller (`bosun operator run`): a kube-rs runtime [`Controller`] over
//! IstioOperator resources that also watches every object it applied (by label, see
//! [`crate::owned`]), so an edited or deleted Deployment, Service or webhook brings a
//! reconcile within the watch latency.
//!
//! One reconcile: validate and render ([`Render`]: the `pipeline` library, as `bosun install`
//! does); an invalid spec sets ERROR with the validation messages and applies nothing. Otherwise the
//! objects get ownership labels and go through [`cluster::Client::install`] (dependency order,
//! CRDs waited for; no workload readiness wait, so one slow Deployment never blocks the loop),
//! then `installer::uninstall::prune` deletes what the spec no longer renders, as after
//! `bosun install`, then readiness
//! is read once per workload and the status says HEALTHY or which workloads it waits for; a
//! not-yet-healthy IstioOperator is requeued (and the workloads' status changes trigger
//! reconciles too). Failures requeue with exponential backoff. The finalizer uninstalls
//! through `installer::uninstall::remove`, with the IstioOperator's labels as its scope. Status is written only when it changes.

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use kube::api::{Api, DynamicObject, Patch, PatchParams};
use kube::core::ApiResource;
use kube::runtime::controller::{Action, Config as ControllerConfig, Controller};
use kube::runtime::events::{Event as KubeEvent, EventType, Recorder, Reporter};
use kube::runtime::finalizer::{self, Event as FinalizerEvent, finalizer};
use kube::runtime::reflector::ObjectRef;
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Resource, ResourceExt};
use serde_json::{Value, json};

use crate::crd::{CRD_NAME, GROUP, KIND, PLURAL, VERSION};
use crate::lease::{self, LeaseOptions};
use crate::log::log;
use crate::metrics::Metrics;
use crate::object::IstioOperatorObject;
use crate::overlap::{Claims, Key};
use crate::owned::{OWNED_KINDS, Owner, label, managed_selector};
use crate::status::{ComponentState, Phase, Status};
use crate::{Error, Render, RenderError};

/// The finalizer on every reconciled IstioOperator: its objects are removed before it goes.
pub const FINALIZER: &str = "install.istio.io/bosun-operator";
/// The field manager of everything the operator applies and of the status it writes.
pub const FIELD_MANAGER: &str = "bosun-operator";

/// How often a HEALTHY IstioOperator is reconciled without any event (missed events are rare,
/// but a controller that never resyncs never recovers from one).
const RESYNC: Duration = Duration::from_secs(600);
/// How soon an IstioOperator whose workloads are not ready yet is looked at again.
const NOT_READY_REQUEUE: Duration = Duration::from_secs(30);
/// Error backoff: 1 s doubling to at most 5 min.
const BACKOFF_START: Duration = Duration::from_secs(1);
const BACKOFF_MAX: Duration = Duration::from_secs(300);

/// The watches' retry delay after an error: 100 ms doubling to 500 ms, reset by the next
/// event. kube-runtime pauses every trigger (all the watches together) for each error any
/// watch yields, and after an API server restart each of the ~20 watches yields one (`410
/// Expired`, then it lists again): with its default (up to 30 s) drift repair stalled for
/// minutes; with this, for seconds. While the API server is down that is at most two connection
/// attempts a second.
#[derive(Debug, Clone)]
struct WatchBackoff {
    next: Duration,
}

const WATCH_BACKOFF_START: Duration = Duration::from_millis(100);
const WATCH_BACKOFF_MAX: Duration = Duration::from_millis(500);

impl Default for WatchBackoff {
    fn default() -> Self {
        WatchBackoff {
            next: WATCH_BACKOFF_START,
        }
    }
}

impl Iterator for WatchBackoff {
    type Item = Duration;
    fn next(&mut self) -> Option<Duration> {
        let delay = self.next;
        self.next = (delay * 2).min(WATCH_BACKOFF_MAX);
        Some(delay)
    }
}

impl kube::runtime::utils::Backoff for WatchBackoff {
    fn reset(&mut self) {
        self.next = WATCH_BACKOFF_START;
    }
}

/// How `bosun operator run` runs.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Only IstioOperators in this namespace; all namespaces when `None`.
    pub watch_namespace: Option<String>,
    pub metrics_addr: SocketAddr,
    /// Leader election; `None` runs without (a single replica).
    pub lease: Option<LeaseOptions>,
    /// How long CRDs (the IstioOperator CRD at startup, Istio's in each apply) may take to be
    /// Established.
    pub crd_timeout: Duration,
    /// The catalog, sources and cache for the Istio versions IstioOperators name (see
    /// [`crate::version`]); `None`: an IstioOperator naming one is refused.
    pub versions: Option<Arc<crate::version::Versions>>,
    /// The cluster's Kubernetes version as the release policy judges it (`1.33` or its
    /// `gitVersion`); `None`: not judged.
    pub kubernetes: Option<String>,
}

fn iop_resource() -> ApiResource {
    ApiResource {
        group: GROUP.into(),
        version: VERSION.into(),
        api_version: format!("{GROUP}/{VERSION}"),
        kind: KIND.into(),
        plural: PLURAL.into(),
    }
}

/// The delay before retry `attempt` (1-based).
pub fn backoff(attempt: u32) -> Duration {
    BACKOFF_START
        .saturating_mul(1u32 << attempt.saturating_sub(1).min(16))
        .min(BACKOFF_MAX)
}

struct Context {
    client: cluster::Client,
    /// What each IstioOperator last rendered (see [`crate::overlap`]); shared with the drift
    /// watches, which wake every IstioOperator that renders a changed object.
    claims: Arc<Mutex<Claims>>,
    /// The IstioOperators each one shared objects with at its last reconcile: when that
    /// changes, they are reconciled too (so both statuses tell, and one takes over what an
    /// uninstalled one leaves).
    partners: Mutex<HashMap<Owner, std::collections::BTreeSet<Owner>>>,
    /// Requests a reconcile of another IstioOperator.
    trigger: tokio::sync::mpsc::UnboundedSender<ObjectRef<IstioOperatorObject>>,
    /// The render last applied successfully, per IstioOperator: each object's fingerprint.
    last_applied: Mutex<HashMap<Owner, Fingerprints>>,
    recorder: Recorder,
    render: Arc<dyn Render>,
    versions: Option<Arc<crate::version::Versions>>,
    kubernetes: Option<String>,
    metrics: Arc<Metrics>,
    crd_timeout: Duration,
    /// What the release policy said without refusing at each IstioOperator's last new render
    /// (shown in its status until the next new render is judged).
    policy_notes: Mutex<HashMap<Owner, Vec<String>>>,
    /// Consecutive failures per IstioOperator, for the backoff.
    failures: Mutex<HashMap<Owner, u32>>,
}

fn owner_of(iop: &DynamicObject) -> Owner {
    Owner {
        namespace: iop.namespace().unwrap_or_default(),
        name: iop.name_any(),
    }
}

/// The IstioOperator as a render input: what a user's file would hold (no status, no
/// server-set metadata).
fn render_input(iop: &DynamicObject) -> Value {
    json!({
        "apiVersion": format!("{GROUP}/{VERSION}"),
        "kind": KIND,
        "metadata": {"name": iop.name_any(), "namespace": iop.namespace().unwrap_or_default()},
        "spec": iop.data.get("spec").cloned().unwrap_or_else(|| json!({})),
    })
}

/// Writes `status` unless the stored one (`current`, as cached) equals it, and records an Event when the
/// phase changes (what `kubectl describe` shows); returns the status now stored.
async fn write_status(
    ctx: &Context,
    api: &Api<IstioOperatorObject>,
    iop: &DynamicObject,
    current: Option<Value>,
    status: &Status,
) -> Result<Option<Value>, Error> {
    let now = crate::status::time(k8s_openapi::jiff::Timestamp::now());
    let wanted = status.to_json(current.as_ref(), &now);
    let stored = store_status(api, iop, current.as_ref(), wanted).await?;
    let old_phase = current
        .as_ref()
        .and_then(|c| c.get("status"))
        .and_then(Value::as_str);
    if stored.is_some() && old_phase != Some(status.phase.as_str()) {
        publish_event(ctx, iop, status).await;
    }
    // Each new set of shared objects is worth a Warning (the condition says it too).
    let overlap_message = |s: Option<&Value>| {
        s.and_then(|s| s.get("conditions"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|c| c["type"] == "Overlapping" && c["status"] == "True")
            .map(|c| c["message"].clone())
    };
    if let Some(stored) = &stored
        && let Some(message) = overlap_message(Some(stored))
        && overlap_message(current.as_ref()) != Some(message.clone())
    {
        let note = message.as_str().unwrap_or("").to_string();
        publish(ctx, iop, EventType::Warning, "Overlap", note).await;
    }
    Ok(stored.or(current))
}

/// Applies `wanted` as the status unless the stored one (`current`, as cached) equals it;
/// returns the status written (`None`: nothing was written).
async fn store_status(
    api: &Api<IstioOperatorObject>,
    iop: &DynamicObject,
    current: Option<&Value>,
    wanted: Value,
) -> Result<Option<Value>, Error> {
    if current == Some(&wanted) {
        return Ok(None);
    }
    let name = iop.name_any();
    // Server-side apply, not a merge patch: fields this manager stops setting (a resolved
    // `error`, a removed component) are removed by the server, whatever the (possibly stale)
    // cached object showed.
    let body = json!({
        "apiVersion": format!("{GROUP}/{VERSION}"),
        "kind": KIND,
        "metadata": {"name": name},
        "status": wanted,
    });
    api.patch_status(
        &name,
        &PatchParams::apply(FIELD_MANAGER).force(),
        &Patch::Apply(&body),
    )
    .await
    .map_err(|source| Error::Kube {
        action: format!("writing the status of IstioOperator {name}"),
        source,
    })?;
    Ok(Some(wanted))
}

/// An Event for a phase change. Events are a courtesy: failing to record one is logged, not
/// an error of the reconcile.
async fn publish_event(ctx: &Context, iop: &DynamicObject, status: &Status) {
    let (type_, reason) = match (status.phase, status.outcome) {
        (_, crate::status::Outcome::InvalidVersion) => (EventType::Warning, "InvalidVersion"),
        (_, crate::status::Outcome::FetchFailed) => (EventType::Warning, "FetchFailed"),
        (_, crate::status::Outcome::HelmChanged) => (EventType::Warning, "HelmChanged"),
        (phase, _) => match phase {
            Phase::Healthy => (EventType::Normal, "Healthy"),
            Phase::ActionRequired => (EventType::Warning, "Refused"),
            Phase::Error if status.components.is_empty() => (EventType::Warning, "Invalid"),
            Phase::Error => (EventType::Warning, "ApplyFailed"),
            _ => (EventType::Normal, "Reconciling"),
        },
    };
    publish(ctx, iop, type_, reason, status.message.clone()).await;
}

/// Records an Event about `iop` (failures are logged: Events are a courtesy).
async fn publish(
    ctx: &Context,
    iop: &DynamicObject,
    type_: EventType,
    reason: &str,
    mut note: String,
) {
    // An Event's note holds at most 1 kB.
    if note.len() > 1000 {
        let mut end = 1000;
        while !note.is_char_boundary(end) {
            end -= 1;
        }
        note.truncate(end);
        note.push('…');
    }
    let event = KubeEvent {
        type_,
        reason: reason.into(),
        note: Some(note),
        action: "Reconcile".into(),
        secondary: None,
    };
    let reference = iop.object_ref(&iop_resource());
    if let Err(e) = ctx.recorder.publish(&event, &reference).await {
        log("warn", "recording an event failed", &[("error", &e)]);
    }
}

/// Folds instances of one component (several gateways) into one `componentStatus` entry.
fn push_component(states: &mut Vec<ComponentState>, state: ComponentState) {
    fn rank(p: Phase) -> u8 {
        match p {
            Phase::Error => 3,
            Phase::Reconciling | Phase::Updating | Phase::ActionRequired => 2,
            Phase::None => 1,
            Phase::Healthy => 0,
        }
    }
    match states.iter_mut().find(|s| s.name == state.name) {
        Some(existing) => {
            if rank(state.phase) > rank(existing.phase) {
                existing.phase = state.phase;
            }
            if !state.error.is_empty() {
                if !existing.error.is_empty() {
                    existing.error.push_str("; ");
                }
                existing.error.push_str(&state.error);
            }
        }
        None => states.push(state),
    }
}

/// Whether an object gets this IstioOperator's ownership labels: not for kinds that are never
/// pruned (CRDs), which every revision renders alike; labelling them would make each
/// IstioOperator rewrite the others' labels on every reconcile.
fn is_owned_exclusively(object: &Value) -> bool {
    let field = |name: &str| object.get(name).and_then(Value::as_str).unwrap_or("");
    crate::owned::owned_kind(field("apiVersion"), field("kind")).is_none_or(|k| k.pruned)
}

/// Each rendered object's fingerprint ([`crate::noop::fingerprint`]), by object.
type Fingerprints = HashMap<Key, u64>;

fn fingerprints(components: &[vocab::Component]) -> Fingerprints {
    components
        .iter()
        .flat_map(|c| &c.objects)
        .filter_map(|o| Some((Key::of(o)?, crate::noop::fingerprint(&[o]))))
        .collect()
}

/// Splits each component's objects into those to apply and those left as they are: an object
/// is left when it renders as it did at the last successful apply (`last`) and the live object
/// still has every rendered field (see [`crate::noop`]). Both are needed: a render that
/// dropped a field looks satisfied but must be applied, since server-side apply removes the
/// fields it no longer sets. So a spec change that touches one object writes that object only
/// (before, every object was sent again on every change), and drift repair writes only what
/// drifted. Returns the components with the objects to apply, and each component's objects
/// left (as live, with the namespace the server gave them).
async fn split_unchanged(
    client: &cluster::Client,
    components: &[vocab::Component],
    rendered: &Fingerprints,
    last: Option<&Fingerprints>,
    manager: &str,
) -> Result<(Vec<vocab::Component>, Vec<Vec<vocab::ObjectRef>>), Error> {
    let mut to_apply = Vec::new();
    let mut left = Vec::new();
    for c in components {
        let mut apply = Vec::new();
        let mut refs = Vec::new();
        for o in &c.objects {
            let unchanged_render = Key::of(o).is_some_and(|key| {
                let now = rendered.get(&key);
                now.is_some() && last.and_then(|l| l.get(&key)) == now
            });
            let live_ref = match unchanged_render {
                true => satisfied_live(client, o, manager).await?,
                false => None,
            };
            match live_ref {
                Some(object) => refs.push(object),
                None => apply.push(o.clone()),
            }
        }
        to_apply.push(vocab::Component {
            name: c.name.clone(),
            display_name: c.display_name.clone(),
            after: c.after.clone(),
            objects: apply,
        });
        left.push(refs);
    }
    Ok((to_apply, left))
}

/// The live object of `rendered` when it still has every rendered field; `None` when it does
/// not (or does not exist).
async fn satisfied_live(
    client: &cluster::Client,
    rendered: &Value,
    manager: &str,
) -> Result<Option<vocab::ObjectRef>, Error> {
    let field = |p: &str| {
        rendered
            .pointer(p)
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let mut object = vocab::ObjectRef {
        api_version: field("/apiVersion").unwrap_or_default(),
        kind: field("/kind").unwrap_or_default(),
        namespace: field("/metadata/namespace"),
        name: field("/metadata/name").unwrap_or_default(),
    };
    let Some(live) = client.get(&object).await? else {
        return Ok(None);
    };
    // Fields istiod writes at run time are not drift (see `manifest::runtime`).
    let mut desired = rendered.clone();
    manifest::runtime::drop_foreign_runtime_fields(&mut desired, &live, manager);
    if let Some(field) = crate::noop::unsatisfied_field(&desired, &live) {
        log(
            "debug",
            "applying: an object differs from its render",
            &[("object", &object), ("field", &field)],
        );
        return Ok(None);
    }
    object.namespace = live
        .pointer("/metadata/namespace")
        .and_then(Value::as_str)
        .map(str::to_string);
    Ok(Some(object))
}

/// Applies the components (`cluster::Client::install`) and prunes what they no longer hold.
/// Returns each component's applied objects, how many were created or changed, and how many
/// were pruned. On an apply failure the status says which component failed.
async fn apply_and_prune(
    ctx: &Context,
    api: &Api<IstioOperatorObject>,
    iop: &DynamicObject,
    current: Option<Value>,
    rendered: &crate::Rendered,
    components: &[vocab::Component],
    left: &[Vec<vocab::ObjectRef>],
) -> Result<(Vec<Vec<vocab::ObjectRef>>, usize, usize), Error> {
    let owner = owner_of(iop);
    // helm's with Helm release records (see `crate::helm`), else the operator's own.
    let helm = crate::helm::requested(iop.meta().annotations.as_ref());
    let manager = if helm {
        installer::helm_releases::HELM_FIELD_MANAGER
    } else {
        FIELD_MANAGER
    };
    let generation = iop.meta().generation.unwrap_or(0);
    let options = cluster::InstallOptions {
        field_manager: manager.to_string(),
        take_over_from: Vec::new(),
        // The operator is the authority over what it owns: fields someone else changed are
        // taken back (drift repair).
        force: true,
        crd_timeout: ctx.crd_timeout,
        readiness_timeout: None,
        wait_for_load_balancers: false,
        owner_labels: None,
        // The Istio namespace, when the install creates it, labelled as `install` labels it.
        created_namespace_labels: rendered.namespace_labels.clone(),
    };
    // What became of each component (the install runs independent ones side by side).
    let outcomes: std::sync::Mutex<Vec<(Phase, String)>> =
        std::sync::Mutex::new(vec![(Phase::None, String::new()); components.len()]);
    let record = |i: usize, event: cluster::InstallEvent<'_>| {
        let outcome = match event {
            cluster::InstallEvent::Installed(_) => (Phase::Reconciling, String::new()),
            cluster::InstallEvent::Failed(e) => (Phase::Error, e.to_string()),
            cluster::InstallEvent::Skipped { because } => {
                (Phase::None, format!("not applied: {because} failed"))
            }
            _ => return,
        };
        if let Some(slot) = outcomes.lock().expect("install outcomes").get_mut(i) {
            *slot = outcome;
        }
    };
    let result = ctx.client.install(components, &options, &record).await;
    let report = match result {
        Ok(report) => report,
        Err(e) => {
            let outcomes = outcomes.into_inner().expect("install outcomes");
            let mut states = Vec::new();
            for (c, (phase, error)) in rendered.components.iter().zip(outcomes) {
                push_component(
                    &mut states,
                    ComponentState {
                        name: c.name.clone(),
                        phase,
                        error,
                    },
                );
            }
            write_status(
                ctx,
                api,
                iop,
                current,
                &Status::from_components(generation, states, Vec::new()),
            )
            .await?;
            return Err(e.into());
        }
    };
    for c in &report.components {
        for a in &c.report.objects {
            ctx.metrics.applied(&a.object.kind, a.outcome);
        }
    }
    let changed =
        report.count(cluster::Outcome::Created) + report.count(cluster::Outcome::Configured);
    let applied: Vec<Vec<vocab::ObjectRef>> = report
        .components
        .iter()
        .zip(left)
        .map(|(c, left)| {
            let applied = c.report.objects.iter().map(|a| a.object.clone());
            applied.chain(left.iter().cloned()).collect()
        })
        .collect();

    // What each component applied or left as it was is kept; the installer's prune deletes
    // the rest of what carries this IstioOperator's labels (and, with Helm release records,
    // Helm's manager label instead of the operator's), as `install` prunes its own.
    let kept = || {
        components
            .iter()
            .zip(&applied)
            .flat_map(|(c, objects)| objects.iter().map(|o| (c.name.as_str(), o)))
    };
    let mut label_sets = vec![owner.labels()];
    if helm {
        label_sets.push(owner.helm_labels());
    }
    let mut pruned = Vec::new();
    for labels in label_sets {
        let installation = installer::uninstall::installation(labels, kept());
        let deleted =
            installer::uninstall::prune(&ctx.client, &installation, &report, &mut |_| {}).await?;
        pruned.extend(
            deleted
                .into_iter()
                .filter(|d| d.outcome == cluster::DeleteOutcome::Deleted)
                .map(|d| d.object),
        );
    }
    for object in &pruned {
        ctx.metrics.pruned(&object.kind);
        log("info", "pruned", &[("iop", &owner), ("object", object)]);
    }

    Ok((applied, changed, pruned.len()))
}

async fn apply(
    iop: Arc<IstioOperatorObject>,
    ctx: Arc<Context>,
    api: Api<IstioOperatorObject>,
) -> Result<Action, Error> {
    let owner = owner_of(&iop);
    let generation = iop.meta().generation.unwrap_or(0);
    let mut current = iop.data.get("status").cloned();

    if crate::status::is_paused(iop.meta().annotations.as_ref()) {
        let now = crate::status::time(k8s_openapi::jiff::Timestamp::now());
        let wanted = crate::status::paused(current.as_ref(), generation, &now);
        if store_status(&api, &iop, current.as_ref(), wanted)
            .await?
            .is_some()
        {
            publish(
                &ctx,
                &iop,
                EventType::Normal,
                "Paused",
                format!(
                    "{} is set: nothing is applied or repaired until it is removed",
                    vocab::labels::PAUSE_ANNOTATION
                ),
            )
            .await;
            log("info", "paused", &[("iop", &owner)]);
        }
        // Removing the annotation is a change of the IstioOperator, which wakes it.
        return Ok(Action::await_change());
    }

    if let Some(reason) = iop.undecodable() {
        // serde_json's "recursion limit exceeded": it reads 128 levels of nesting at most.
        let message = format!("the object cannot be decoded: {reason}");
        write_status(
            &ctx,
            &api,
            &iop,
            current,
            &Status::invalid(generation, std::slice::from_ref(&message)),
        )
        .await?;
        log(
            "warn",
            "undecodable IstioOperator; nothing applied",
            &[("iop", &owner), ("error", &message)],
        );
        // Only a change of the object can fix it; that change is an event.
        return Ok(Action::await_change());
    }

    // The Istio version the IstioOperator names: resolved through the catalog, fetched,
    // verified and cached (a blocking download the first time), then rendered as
    // `--manifests` of that package would be.
    let (version, package) = match crate::version::requested(iop.meta().annotations.as_ref()) {
        None => (None, None),
        Some(requested) => {
            let spec = iop.data.get("spec").cloned();
            let versions = ctx.versions.clone();
            let found = tokio::task::spawn_blocking(move || match versions {
                Some(versions) => versions.package(&requested, spec.as_ref()),
                None => Err(crate::version::VersionError::NoCatalog),
            })
            .await
            .map_err(Error::RenderTask)?;
            match found {
                Ok((version, dir)) => (Some(version), Some(dir)),
                Err(e) if e.is_invalid() => {
                    let message = e.to_string();
                    let status = Status::invalid_version(generation, &message);
                    write_status(&ctx, &api, &iop, current, &status).await?;
                    log(
                        "warn",
                        "invalid Istio version; nothing applied",
                        &[("iop", &owner), ("error", &message)],
                    );
                    // Only a change of the IstioOperator fixes it; that change is an event.
                    return Ok(Action::await_change());
                }
                Err(e) => {
                    let status = Status::fetch_failed(generation, &e.to_string());
                    write_status(&ctx, &api, &iop, current, &status).await?;
                    return Err(e.into());
                }
            }
        }
    };
    let version = version.as_deref();

    // Helm release records (`bosun.io/helm-releases`): the render hands back the drafts too.
    let annotations = iop.meta().annotations.as_ref();
    let helm_mode = crate::helm::requested(annotations);
    let manager = if helm_mode {
        installer::helm_releases::HELM_FIELD_MANAGER
    } else {
        FIELD_MANAGER
    };
    let input = render_input(&iop);
    let render = ctx.render.clone();
    let rendered =
        tokio::task::spawn_blocking(move || render.render(&input, package.as_deref(), helm_mode))
            .await
            .map_err(Error::RenderTask)?;
    let mut rendered = match rendered {
        Ok(rendered) => rendered,
        Err(RenderError::Invalid(messages)) => {
            write_status(
                &ctx,
                &api,
                &iop,
                current,
                &Status::invalid(generation, &messages).with_version(version),
            )
            .await?;
            log(
                "warn",
                "invalid IstioOperator; nothing applied",
                &[("iop", &owner), ("errors", &messages.join("; "))],
            );
            // Only a spec change can fix it; the spec change is an event.
            return Ok(Action::await_change());
        }
        Err(e @ RenderError::Failed(_)) => {
            let status = Status::render_failed(generation, &e.to_string()).with_version(version);
            write_status(&ctx, &api, &iop, current, &status).await?;
            return Err(e.into());
        }
    };
    for w in &rendered.warnings {
        log("warn", "render warning", &[("iop", &owner), ("warning", w)]);
    }
    let mut drafts = match (helm_mode, rendered.helm_releases.take()) {
        (true, Some(drafts)) => Some(drafts),
        (true, None) => {
            let e = RenderError::Failed("the render returned no Helm release drafts".into());
            let status = Status::render_failed(generation, &e.to_string()).with_version(version);
            write_status(&ctx, &api, &iop, current, &status).await?;
            return Err(e.into());
        }
        (false, _) => None,
    };
    if let Some(drafts) = &mut drafts {
        crate::helm::label_drafts(drafts, &owner);
    }

    // A new generation (or a recovery from an error) shows as RECONCILING while it applies;
    // drift repair of a HEALTHY install does not flip the status back and forth.
    // Releases held because helm changed them stay ACTION_REQUIRED across drift repairs too.
    let settled = current.as_ref().is_some_and(|s| {
        s.get("observedGeneration").and_then(Value::as_i64) == Some(generation)
            && match s.get("status").and_then(Value::as_str) {
                Some("HEALTHY" | "RECONCILING") => true,
                Some("ACTION_REQUIRED") => s
                    .get("conditions")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .any(|c| c["type"] == "Reconciled" && c["reason"] == "HelmChanged"),
                _ => false,
            }
    });
    let mut components: Vec<vocab::Component> = rendered
        .components
        .iter()
        .map(|c| vocab::Component {
            name: c.name.clone(),
            display_name: c.display_name.clone(),
            after: c.after.clone(),
            objects: c
                .objects
                .iter()
                .map(|o| {
                    let mut o = o.clone();
                    if is_owned_exclusively(&o) {
                        label(&mut o, &owner, &c.name);
                    }
                    // Helm's ownership markers, as `install --helm-releases` puts them.
                    if let Some(drafts) = &drafts {
                        installer::helm_releases::mark_objects(&mut o, drafts);
                    }
                    o
                })
                .collect(),
        })
        .collect();
    // The render's objects were allocated on tokio's blocking thread (the render runs there);
    // the copies above are this thread's. The originals go back to be freed where they were
    // allocated: mimalloc takes a block freed by another thread back into its owner's pages
    // only when the owner allocates again, and the blocking thread idles between renders, so
    // freed here, the last render's pages can stay resident while the operator idles. With
    // this, the memory left after the IstioOperators are gone sat on one level in 10 runs
    // (9.9–11.3 MiB of its own, against about 12.3 or about 17.8 before); what it held right
    // after the reconciles varied until the HTTP pool was bounded too (`cluster::client`,
    // BENCHMARKS.md, `operator run`: memory).
    let originals: Vec<Vec<Value>> = rendered
        .components
        .iter_mut()
        .map(|c| std::mem::take(&mut c.objects))
        .collect();
    let _ = tokio::task::spawn_blocking(move || drop(originals)).await;

    // Objects another IstioOperator renders too: the oldest applies them, the others leave
    // them out (see `crate::overlap`).
    let keys = components
        .iter()
        .flat_map(|c| &c.objects)
        .filter(|o| is_owned_exclusively(o))
        .filter_map(Key::of)
        .collect();
    let created = iop
        .meta()
        .creation_timestamp
        .as_ref()
        .map(|t| crate::status::time(t.0))
        .unwrap_or_default();
    let overlaps = {
        let mut claims = ctx.claims.lock().expect("claims");
        claims.set(&owner, &created, keys);
        claims.overlaps(&owner)
    };
    let yielded = overlaps.yielded(&owner);
    for c in &mut components {
        c.objects.retain(|o| {
            !(is_owned_exclusively(o) && Key::of(o).is_some_and(|k| yielded.contains(&k)))
        });
    }
    wake_partners(&ctx, &owner, overlaps.partners());
    let overlap_lines = overlaps.lines();

    // With Helm release records: what helm wrote since the operator's last revision of each
    // release. A release helm changed in a way this render would undo is left alone (its
    // objects neither applied nor pruned) unless the override annotation says otherwise.
    let mut helm = None;
    let mut held_refs: Vec<Vec<vocab::ObjectRef>> = vec![Vec::new(); components.len()];
    let mut held_lines = Vec::new();
    if let Some(drafts) = drafts {
        let releases = installer::helm_releases::HelmReleases { drafts };
        let records = match releases.read(&ctx.client).await {
            Ok(records) => records,
            Err(e) if is_refusal(&e) => {
                let status = Status::refused(generation, &[e.to_string()], overlap_lines)
                    .with_version(version);
                write_status(&ctx, &api, &iop, current, &status).await?;
                log(
                    "warn",
                    "helm release records refused; nothing applied",
                    &[("iop", &owner), ("error", &e)],
                );
                return Ok(Action::requeue(crate::status::REFUSED_RECHECK));
            }
            Err(e) => return Err(e.into()),
        };
        let changes = releases.helm_changes(&records);
        let judgement = crate::helm::judge(changes.clone(), crate::helm::overrides(annotations));
        let held = judgement.held_objects(&releases.drafts);
        for (c, refs) in components.iter_mut().zip(&mut held_refs) {
            c.objects.retain(|o| {
                let key = object_key(o);
                if held.contains(&key) {
                    refs.push(object_ref(o));
                    false
                } else {
                    true
                }
            });
        }
        held_lines = judgement.held_lines();
        for line in &held_lines {
            log(
                "warn",
                "helm changed a release",
                &[("iop", &owner), ("release", line)],
            );
        }
        for note in judgement.overridden_notes() {
            log(
                "warn",
                "applying over helm's change",
                &[("iop", &owner), ("release", &note)],
            );
        }
        helm = Some((releases, judgement, changes));
    }

    let objects: Vec<&Value> = components.iter().flat_map(|c| &c.objects).collect();
    let rendered_fingerprints = fingerprints(&components);
    let last = ctx
        .last_applied
        .lock()
        .expect("last_applied")
        .get(&owner)
        .cloned();
    let same_render = last.as_ref() == Some(&rendered_fingerprints);
    // What the installer refuses (another revision's injectors that would inject the same
    // pods, newer CRDs) is checked for each new render, before anything is written: a render
    // already applied was checked when it was, and drift repair only puts it back. While it
    // stays refused, the status is the same each time, so a recheck writes nothing.
    // The release policy (`installer::release_policy`, what `install` judges): its refusals
    // join the others; what it only says goes into the status as notes.
    let mut notes = Vec::new();
    if same_render {
        let kept = ctx.policy_notes.lock().expect("policy_notes");
        notes = kept.get(&owner).cloned().unwrap_or_default();
    } else {
        let mut refusals = installer::refusals(&ctx.client, &objects).await?;
        if let Some(versions) = &ctx.versions {
            let (refusal, told) =
                release_policy(&ctx, &iop, versions.catalog(), &rendered.version).await?;
            for concern in told {
                log(
                    "warn",
                    "release policy",
                    &[("iop", &owner), ("concern", &concern)],
                );
                notes.push(concern.to_string());
            }
            if let Some(refusal) = refusal {
                if ignores_release_policy(iop.meta().annotations.as_ref()) {
                    log(
                        "warn",
                        "release policy ignored by annotation",
                        &[("iop", &owner), ("refusal", &refusal.findings())],
                    );
                    notes.push(format!(
                        "{} (ignored: {}=true)",
                        refusal.findings(),
                        vocab::labels::IGNORE_RELEASE_POLICY_ANNOTATION
                    ));
                } else {
                    refusals.push(refusal);
                    notes.push(format!(
                        "the annotation {}: \"true\" applies what the release policy refuses",
                        vocab::labels::IGNORE_RELEASE_POLICY_ANNOTATION
                    ));
                }
            }
        }
        ctx.policy_notes
            .lock()
            .expect("policy_notes")
            .insert(owner.clone(), notes.clone());
        if !refusals.is_empty() {
            let findings: Vec<String> = refusals.iter().map(installer::Refusal::findings).collect();
            let status = Status::refused(generation, &findings, overlap_lines)
                .with_version(version)
                .with_notes(&notes);
            write_status(&ctx, &api, &iop, current, &status).await?;
            let reasons: Vec<&str> = refusals.iter().map(installer::Refusal::reason).collect();
            log(
                "warn",
                "refused; nothing applied",
                &[
                    ("iop", &owner),
                    ("reasons", &reasons.join(",")),
                    ("findings", &findings.join("; ")),
                ],
            );
            return Ok(Action::requeue(crate::status::REFUSED_RECHECK));
        }
    }
    if let Some((_, judgement, _)) = &helm {
        notes.extend(judgement.overridden_notes());
    }
    if !settled {
        let applying = Status::applying(generation, overlap_lines.clone()).with_version(version);
        current = write_status(&ctx, &api, &iop, current, &applying).await?;
    }
    let (to_apply, mut left) = split_unchanged(
        &ctx.client,
        &components,
        &rendered_fingerprints,
        last.as_ref(),
        manager,
    )
    .await?;
    // helm writes a release's new record before it applies the objects: when the live objects
    // just read show a helm upgrade, its record is there by now, though the records read
    // above may predate it. So before applying, they are read again; if helm changed a
    // release meanwhile, the reconcile starts over rather than take helm's upgrade for drift.
    if let Some((releases, _, seen)) = &helm
        && to_apply.iter().any(|c| !c.objects.is_empty())
    {
        let again = releases.read(&ctx.client).await?;
        if releases.helm_changes(&again) != *seen {
            log(
                "info",
                "helm wrote a release during the reconcile; reconciling again",
                &[("iop", &owner)],
            );
            return Ok(Action::requeue(Duration::from_secs(1)));
        }
    }
    // The held releases' objects stay as they are, and are kept from prune.
    for (left, held) in left.iter_mut().zip(held_refs) {
        left.extend(held);
    }
    // Records written by the operator while the annotation was set, now that it is not (or
    // after a restart): looked for on each new render only.
    let leftover_records = if helm.is_none() && !same_render {
        installer::helm_releases::labelled_records(
            &ctx.client,
            &record_namespaces(&iop, components.iter().flat_map(|c| &c.objects)),
            &crate::helm::records_selector(&owner),
        )
        .await?
    } else {
        Vec::new()
    };
    let skipped = to_apply.iter().all(|c| c.objects.is_empty());
    let (applied, changed, pruned) = if skipped {
        ctx.metrics.apply_skipped();
        (left, 0, 0)
    } else {
        let (applied, changed, pruned) = apply_and_prune(
            &ctx,
            &api,
            &iop,
            current.clone(),
            &rendered,
            &to_apply,
            &left,
        )
        .await?;
        ctx.last_applied
            .lock()
            .expect("last_applied")
            .insert(owner.clone(), rendered_fingerprints);
        (applied, changed, pruned)
    };

    if let Some((releases, judgement, _)) = &helm {
        // istioctl's owner labels the charts do not render, held by the operator's own
        // manager so that helm's upgrades keep them (the held releases' objects excepted).
        if !skipped {
            let owner_labels = owner.labels();
            let holds: Vec<Value> = components
                .iter()
                .flat_map(|c| &c.objects)
                .filter_map(|o| {
                    installer::helm_releases::owner_label_hold(o, &releases.drafts, &owner_labels)
                })
                .collect();
            if !holds.is_empty() {
                ctx.client.apply(&holds, FIELD_MANAGER, true).await?;
            }
        }
        let free: Vec<installer::helm_releases::Draft> = releases
            .drafts
            .iter()
            .filter(|d| !judgement.holds(d))
            .cloned()
            .collect();
        let recorded = installer::helm_releases::HelmReleases { drafts: free }
            .write(&ctx.client, std::time::SystemTime::now())
            .await?;
        for r in recorded.iter().filter(|r| r.written) {
            log(
                "info",
                "helm release recorded",
                &[
                    ("iop", &owner),
                    ("release", &format!("{}/{}", r.namespace, r.release)),
                    ("revision", &r.version),
                ],
            );
        }
    } else if !leftover_records.is_empty() {
        // As `uninstall` does with the records it owns: the objects handed back from helm's
        // manager and annotations (now that the operator's apply holds them), then the
        // records deleted.
        let objects: Vec<vocab::ObjectRef> = applied.iter().flatten().cloned().collect();
        let handed = installer::helm_releases::release_objects(&ctx.client, &objects).await?;
        installer::helm_releases::delete_records(&ctx.client, &leftover_records).await?;
        log(
            "info",
            "helm release records removed",
            &[
                ("iop", &owner),
                ("records", &leftover_records.len()),
                ("objects", &handed),
            ],
        );
    }

    let mut states = Vec::new();
    for (c, applied) in rendered.components.iter().zip(&applied) {
        let mut not_ready = Vec::new();
        for object in applied {
            if !cluster::is_workload(object) {
                continue;
            }
            if let cluster::Readiness::NotReady(why) = ctx.client.readiness_of(object).await? {
                not_ready.push(format!("{object}: {why}"));
            }
        }
        let phase = if not_ready.is_empty() {
            Phase::Healthy
        } else {
            Phase::Reconciling
        };
        push_component(
            &mut states,
            ComponentState {
                name: c.name.clone(),
                phase,
                error: not_ready.join("; "),
            },
        );
    }
    let status = Status::from_components(generation, states, overlap_lines)
        .with_version(version)
        .with_notes(&notes)
        .with_helm_held(&held_lines);
    write_status(&ctx, &api, &iop, current, &status).await?;
    log(
        "info",
        "reconciled",
        &[
            ("iop", &owner),
            ("generation", &generation),
            ("status", &status.phase.as_str()),
            ("changed", &changed),
            ("pruned", &pruned),
            ("apply_skipped", &skipped),
        ],
    );
    Ok(if status.phase == Phase::Healthy {
        Action::requeue(RESYNC)
    } else if !held_lines.is_empty() {
        // A helm rollback or a later upgrade changes nothing the operator watches.
        Action::requeue(crate::status::REFUSED_RECHECK)
    } else {
        Action::requeue(NOT_READY_REQUEUE)
    })
}

async fn cleanup(iop: Arc<IstioOperatorObject>, ctx: Arc<Context>) -> Result<Action, Error> {
    let owner = owner_of(&iop);
    // What another IstioOperator still renders stays; that one takes it over.
    let (shared, heirs) = {
        let claims = ctx.claims.lock().expect("claims");
        let overlaps = claims.overlaps(&owner);
        let heirs = overlaps.partners();
        (overlaps.shared.into_keys().collect::<HashSet<Key>>(), heirs)
    };
    let keep = |o: &vocab::ObjectRef| {
        shared.contains(&Key::new(
            &o.api_version,
            &o.kind,
            o.namespace.as_deref().unwrap_or(""),
            &o.name,
        ))
    };
    // Its objects carry Helm's managed-by label while it has Helm release records; the
    // annotation may have gone with the deletion, so both are looked for.
    let scopes = [
        installer::uninstall::owned_by(owner.labels()),
        installer::uninstall::owned_by(owner.helm_labels()),
    ];
    let removed: Vec<vocab::ObjectRef> =
        installer::uninstall::remove(&ctx.client, &scopes, &keep, &mut |_| {})
            .await?
            .into_iter()
            .filter(|d| d.outcome == cluster::DeleteOutcome::Deleted)
            .map(|d| d.object)
            .collect();
    // The Helm release records the operator wrote for it, as `uninstall` removes its own.
    let namespaces: std::collections::BTreeSet<String> =
        record_namespaces(&iop, std::iter::empty())
            .into_iter()
            .chain(removed.iter().filter_map(|o| o.namespace.clone()))
            .collect();
    let records = installer::helm_releases::labelled_records(
        &ctx.client,
        &namespaces,
        &crate::helm::records_selector(&owner),
    )
    .await?;
    installer::helm_releases::delete_records(&ctx.client, &records).await?;
    ctx.claims.lock().expect("claims").remove(&owner);
    ctx.partners.lock().expect("partners").remove(&owner);
    for heir in heirs {
        request_reconcile(&ctx, &heir);
    }
    ctx.last_applied
        .lock()
        .expect("last_applied")
        .remove(&owner);
    ctx.policy_notes
        .lock()
        .expect("policy_notes")
        .remove(&owner);
    for object in &removed {
        ctx.metrics.pruned(&object.kind);
    }
    log(
        "info",
        "uninstalled",
        &[("iop", &owner), ("deleted", &removed.len())],
    );
    Ok(Action::await_change())
}

fn request_reconcile(ctx: &Context, owner: &Owner) {
    let _ = ctx
        .trigger
        .send(ObjectRef::new_with(&owner.name, iop_resource()).within(&owner.namespace));
}

/// Reconciles the IstioOperators `owner` now shares objects with, or shared them with until
/// now, when that set changed: their statuses and which of them applies each object follow.
fn wake_partners(ctx: &Context, owner: &Owner, partners: std::collections::BTreeSet<Owner>) {
    let before = {
        let mut all = ctx.partners.lock().expect("partners");
        if all.get(owner) == Some(&partners) || (partners.is_empty() && !all.contains_key(owner)) {
            return;
        }
        let before = all.remove(owner).unwrap_or_default();
        if !partners.is_empty() {
            all.insert(owner.clone(), partners.clone());
        }
        before
    };
    for other in before.union(&partners) {
        request_reconcile(ctx, other);
    }
}

/// What the release policy says of applying `version` (the rendered package's Istio version)
/// as `iop`'s revision today: [`installer::release_policy`], as `install` judges.
async fn release_policy(
    ctx: &Context,
    iop: &DynamicObject,
    catalog: &release::Catalog,
    version: &str,
) -> Result<(Option<installer::Refusal>, Vec<release::support::Concern>), Error> {
    let revision = iop
        .data
        .pointer("/spec/revision")
        .and_then(Value::as_str)
        .filter(|r| !r.is_empty())
        .unwrap_or(vocab::labels::DEFAULT_REVISION);
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400);
    let today = release::support::Date::from_unix_days(days as i64);
    Ok(installer::release_policy(
        &ctx.client,
        catalog,
        version,
        revision,
        ctx.kubernetes.as_deref(),
        today,
    )
    .await?)
}

/// Whether `annotations` let the release policy's refusals pass
/// ([`vocab::labels::IGNORE_RELEASE_POLICY_ANNOTATION`]).
fn ignores_release_policy(
    annotations: Option<&std::collections::BTreeMap<String, String>>,
) -> bool {
    annotations
        .and_then(|a| a.get(vocab::labels::IGNORE_RELEASE_POLICY_ANNOTATION))
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
}

/// Whether a Helm release records error is one the cluster's state causes (another chart's
/// release of the same name, a record not in helm's format): refused, not retried.
fn is_refusal(e: &installer::helm_releases::HelmReleaseError) -> bool {
    use installer::helm_releases::HelmReleaseError as E;
    matches!(
        e,
        E::NotARecord(_) | E::ForeignChart { .. } | E::Mislabelled { .. }
    )
}

/// Kind, namespace and name of a rendered object (how Helm release drafts name their objects).
fn object_key(o: &Value) -> (String, String, String) {
    let field = |p: &str| {
        o.pointer(p)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    (
        field("/kind"),
        field("/metadata/namespace"),
        field("/metadata/name"),
    )
}

fn object_ref(o: &Value) -> vocab::ObjectRef {
    let field = |p: &str| o.pointer(p).and_then(Value::as_str).map(str::to_string);
    vocab::ObjectRef {
        api_version: field("/apiVersion").unwrap_or_default(),
        kind: field("/kind").unwrap_or_default(),
        namespace: field("/metadata/namespace"),
        name: field("/metadata/name").unwrap_or_default(),
    }
}

/// The namespaces an IstioOperator's Helm release records may be in: those of its objects
/// and its Istio namespace (the operator may read Secrets only in Istio's namespaces,
/// so it never lists them cluster-wide).
fn record_namespaces<'a>(
    iop: &DynamicObject,
    objects: impl Iterator<Item = &'a Value>,
) -> std::collections::BTreeSet<String> {
    let istio = iop
        .data
        .pointer("/spec/namespace")
        .or_else(|| iop.data.pointer("/spec/values/global/istioNamespace"))
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .unwrap_or(vocab::DEFAULT_ISTIO_NAMESPACE)
        .to_string();
    objects
        .filter_map(|o| o.pointer("/metadata/namespace").and_then(Value::as_str))
        .map(str::to_string)
        .chain([istio])
        .collect()
}

/// The error a reconcile ends with (kube-rs's finalizer wraps ours).
pub type ReconcileError = finalizer::Error<Error>;

async fn reconcile(
    iop: Arc<IstioOperatorObject>,
    ctx: Arc<Context>,
) -> Result<Action, ReconcileError> {
    let start = Instant::now();
    let owner = owner_of(&iop);
    let api: Api<IstioOperatorObject> =
        Api::namespaced_with(ctx.client.kube().clone(), &owner.namespace, &iop_resource());
    let deleting = iop.meta().deletion_timestamp.is_some();
    let result = finalizer(&api, FINALIZER, iop, |event| {
        let ctx = ctx.clone();
        let api = api.clone();
        async move {
            match event {
                FinalizerEvent::Apply(iop) => apply(iop, ctx, api).await,
                FinalizerEvent::Cleanup(iop) => cleanup(iop, ctx).await,
            }
        }
    })
    .await;
    let took = start.elapsed();
    match &result {
        Ok(_) => {
            ctx.failures.lock().expect("failures").remove(&owner);
            let what = if deleting { "uninstalled" } else { "applied" };
            ctx.metrics.reconciled(what, took);
        }
        // An invalid spec is a successful reconcile whose outcome is ERROR; it is counted
        // by the status, not as a failure.
        Err(_) => ctx.metrics.reconciled("error", took),
    }
    result
}

fn error_policy(
    iop: Arc<IstioOperatorObject>,
    error: &ReconcileError,
    ctx: Arc<Context>,
) -> Action {
    let owner = owner_of(&iop);
    let attempt = {
        let mut failures = ctx.failures.lock().expect("failures");
        let n = failures.entry(owner.clone()).or_default();
        *n += 1;
        *n
    };
    let delay = backoff(attempt);
    log(
        "error",
        "reconcile failed",
        &[
            ("iop", &owner),
            ("attempt", &attempt),
            ("retry_in", &format!("{delay:?}")),
            ("error", error),
        ],
    );
    Action::requeue(delay)
}

/// Runs the operator until SIGINT/SIGTERM (or, with leader election, until leadership is
/// lost, which is an error: the process exits and its restart competes again).
pub async fn run(
    client: cluster::Client,
    render: Arc<dyn Render>,
    options: RunOptions,
) -> Result<(), Error> {
    let metrics = Arc::new(Metrics::default());
    let bound = crate::metrics::serve(options.metrics_addr, metrics.clone())
        .await
        .map_err(|source| Error::Metrics {
            addr: options.metrics_addr,
            source,
        })?;
    log(
        "info",
        "serving /metrics /healthz /readyz",
        &[("addr", &bound)],
    );

    client
        .wait_crd_established(CRD_NAME, options.crd_timeout)
        .await
        .map_err(Error::NoCrd)?;
    metrics.set_ready(true);

    let mut holding = None;
    let lost_leadership = match &options.lease {
        Some(lease_options) => {
            log(
                "info",
                "waiting for leadership",
                &[
                    ("lease", &lease_options.name),
                    ("identity", &lease_options.identity),
                ],
            );
            lease::acquire(&client, lease_options).await?;
            metrics.set_leader(true);
            log(
                "info",
                "became leader",
                &[("identity", &lease_options.identity)],
            );
            let (tx, rx) = tokio::sync::oneshot::channel::<()>();
            let (client, lease_options, metrics) =
                (client.clone(), lease_options.clone(), metrics.clone());
            holding = Some(tokio::spawn(async move {
                lease::hold(&client, &lease_options).await;
                metrics.set_leader(false);
                let _ = tx.send(());
            }));
            Some(rx)
        }
        None => None,
    };
    let lost = Arc::new(std::sync::atomic::AtomicBool::new(false));

    let ar = iop_resource();
    let iops: Api<IstioOperatorObject> = match &options.watch_namespace {
        Some(ns) => Api::namespaced_with(client.kube().clone(), ns, &ar),
        None => Api::all_with(client.kube().clone(), &ar),
    };
    let claims = Arc::new(Mutex::new(Claims::default()));
    let (trigger, triggered) = tokio::sync::mpsc::unbounded_channel();
    let triggered = futures::stream::unfold(triggered, |mut rx| async move {
        rx.recv().await.map(|r| (r, rx))
    });
    // Ready follows the IstioOperator watch: false while it cannot list or watch (no RBAC,
    // the API server away), so a controller that cannot sync says so; true at its next event.
    let writer = kube::runtime::reflector::store::Writer::<IstioOperatorObject>::new(ar.clone());
    let reader = writer.as_reader();
    let synced = metrics.clone();
    let iop_events = kube::runtime::reflector(writer, watcher(iops, watcher::Config::default()))
        .inspect(move |event| synced.set_ready(event.is_ok()))
        .applied_objects();
    let mut controller = Controller::for_stream_with(iop_events, reader, ar.clone())
        .with_config(ControllerConfig::default().debounce(Duration::from_millis(200)))
        .trigger_backoff(WatchBackoff::default())
        .reconcile_on(triggered);
    for k in OWNED_KINDS.iter().filter(|k| k.watched) {
        let kind_ar = ApiResource {
            group: k.group.into(),
            version: k.version.into(),
            api_version: k.api_version(),
            kind: k.kind.into(),
            plural: k.plural.into(),
        };
        let api: Api<DynamicObject> = Api::all_with(client.kube().clone(), &kind_ar);
        let iop_ar = ar.clone();
        let claims = claims.clone();
        let (api_version, kind) = (kind_ar.api_version.clone(), kind_ar.kind.clone());
        controller = controller.watches_with(
            api,
            kind_ar,
            watcher::Config::default().labels(&managed_selector()),
            // The IstioOperator whose labels it carries, and every other that renders it (an
            // object it left to an older one, which is now deleted, say).
            move |object: DynamicObject| {
                let key = Key::new(
                    &api_version,
                    &kind,
                    object.namespace().as_deref().unwrap_or(""),
                    &object.name_any(),
                );
                let mut owners = claims.lock().expect("claims").owners_of(&key);
                if let Some(owner) = Owner::of_labels(object.labels())
                    && !owners.contains(&owner)
                {
                    owners.push(owner);
                }
                owners.into_iter().map({
                    let iop_ar = iop_ar.clone();
                    move |owner| {
                        ObjectRef::new_with(&owner.name, iop_ar.clone()).within(&owner.namespace)
                    }
                })
            },
        );
    }
    let mut controller = controller.shutdown_on_signal();
    if let Some(rx) = lost_leadership {
        let lost = lost.clone();
        controller = controller.graceful_shutdown_on(async move {
            let _ = rx.await;
            lost.store(true, std::sync::atomic::Ordering::Relaxed);
        });
    }
    let shutdown_client = client.clone();
    let reporter = Reporter {
        controller: FIELD_MANAGER.into(),
        instance: options.lease.as_ref().map(|l| l.identity.clone()),
    };
    let context = Arc::new(Context {
        recorder: Recorder::new(client.kube().clone(), reporter),
        claims,
        partners: Mutex::new(HashMap::new()),
        trigger,
        client,
        render,
        versions: options.versions.clone(),
        kubernetes: options.kubernetes.clone(),
        metrics,
        crd_timeout: options.crd_timeout,
        failures: Mutex::new(HashMap::new()),
        policy_notes: Mutex::new(HashMap::new()),
        last_applied: Mutex::new(HashMap::new()),
    });
    log(
        "info",
        "controller started",
        &[(
            "watch_namespace",
            &options.watch_namespace.as_deref().unwrap_or("*"),
        )],
    );
    controller
        .run(reconcile, error_policy, context)
        .for_each(|result| async move {
            if let Err(e) = result {
                // Reconcile failures are logged by the error policy; these are the watches'.
                // An owned object's event for an IstioOperator this process does not watch
                // (another namespace) or that is gone is expected, not worth a line.
                if !matches!(
                    e,
                    kube::runtime::controller::Error::ReconcilerFailed(..)
                        | kube::runtime::controller::Error::ObjectNotFound(..)
                ) {
                    log("warn", "controller", &[("error", &e)]);
                }
            }
        })
        .await;
    if lost.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(Error::LostLease);
    }
    if let (Some(holding), Some(lease_options)) = (holding, &options.lease) {
        // Stopped by a signal while leading: no more renewals, then hand the Lease on.
        holding.abort();
        let _ = holding.await;
        match lease::release(&shutdown_client, lease_options).await {
            Ok(()) => log("info", "released the leader Lease", &[]),
            Err(e) => log("warn", "releasing the leader Lease", &[("error", &e)]),
        }
    }
    log("info", "stopped", &[]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crds_get_no_owner_labels() {
        let crd =
            json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition"});
        let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment"});
        let unknown = json!({"apiVersion": "example.com/v1", "kind": "Thing"});
        assert!(!is_owned_exclusively(&crd));
        assert!(is_owned_exclusively(&deployment));
        assert!(is_owned_exclusively(&unknown));
    }

    #[test]
    fn watch_backoff_is_short_and_resets() {
        use kube::runtime::utils::Backoff;
        let mut b = WatchBackoff::default();
        let delays: Vec<Duration> = b.by_ref().take(6).collect();
        assert_eq!(
            delays,
            [100, 200, 400, 500, 500, 500].map(Duration::from_millis)
        );
        b.reset();
        assert_eq!(b.next(), Some(WATCH_BACKOFF_START));
    }

    #[test]
    fn backoff_doubles_up_to_five_minutes() {
        assert_eq!(backoff(1), Duration::from_secs(1));
        assert_eq!(backoff(2), Duration::from_secs(2));
        assert_eq!(backoff(5), Duration::from_secs(16));
        assert_eq!(backoff(40), BACKOFF_MAX);
    }

    #[test]
    fn gateway_instances_fold_into_one_entry() {
        let mut states = Vec::new();
        let state = |phase, error: &str| ComponentState {
            name: "IngressGateways".into(),
            phase,
            error: error.into(),
        };
        push_component(&mut states, state(Phase::Healthy, ""));
        push_component(&mut states, state(Phase::Reconciling, "a: not ready"));
        push_component(&mut states, state(Phase::Healthy, ""));
        assert_eq!(states, [state(Phase::Reconciling, "a: not ready")]);
    }

    #[test]
    fn render_input_drops_status_and_server_metadata() {
        let iop: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "install.istio.io/v1alpha1", "kind": "IstioOperator",
            "metadata": {"name": "a", "namespace": "n", "uid": "u", "resourceVersion": "5"},
            "spec": {"profile": "minimal"}, "status": {"status": "HEALTHY"}
        }))
        .unwrap();
        assert_eq!(
            render_input(&iop),
            json!({"apiVersion": "install.istio.io/v1alpha1", "kind": "IstioOperator",
                   "metadata": {"name": "a", "namespace": "n"}, "spec": {"profile": "minimal"}})
        );
    }
}
