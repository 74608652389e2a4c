//! The IstioOperator's `status`, as the old Istio operator wrote it (`status.status`,
//! `componentStatus` per component with its `error`, `message`), plus `observedGeneration` and
//! Kubernetes-style `conditions` people and tools can wait on (`kubectl wait
//! --for=condition=Ready istiooperator/NAME`):
//! - `Reconciled`: the current generation is applied (`Applied`), or why not (`Applying`,
//!   `Invalid`, `InvalidVersion`, `FetchFailed`, `RenderFailed`, `Refused`, `ApplyFailed`,
//!   `Paused`); when the IstioOperator names an Istio version (see [`crate::version`]), the
//!   `Applied` message and `message` say which;
//! - `Ready`: every workload it applied is ready (`Healthy`), or why not (`WorkloadsNotReady`,
//!   or the reason Reconciled gives);
//! - `Overlapping`: another IstioOperator renders some of the same objects (`SharedObjects`,
//!   naming them and which IstioOperator keeps each), else `NoOverlap`.
//!
//! Each condition's `lastTransitionTime` changes only when its `status` does. Pure: no I/O (the
//! controller writes it with server-side apply, only when it changed).

use serde_json::{Map, Value, json};
use vocab::labels::{ISTIO_VERSION_ANNOTATION, PAUSE_ANNOTATION};

/// Whether an IstioOperator's annotations pause it.
pub fn is_paused(annotations: Option<&std::collections::BTreeMap<String, String>>) -> bool {
    annotations
        .and_then(|a| a.get(PAUSE_ANNOTATION))
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
}

/// How soon an IstioOperator whose apply was refused is checked again: what the refusal names
/// is in the cluster, not the spec, so no event of the IstioOperator's says it went away.
pub const REFUSED_RECHECK: std::time::Duration = std::time::Duration::from_secs(60);

/// Why the last reconcile ended as it did (the `Reconciled` condition's reason).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Being applied now.
    Applying,
    /// The generation is applied.
    Applied,
    /// The spec is invalid; nothing was applied.
    Invalid,
    /// The Istio version the IstioOperator names is malformed or unknown; nothing was applied.
    InvalidVersion,
    /// The named version's install package could not be fetched or verified; retried.
    FetchFailed,
    /// Rendering failed (charts missing, a template failed).
    RenderFailed,
    /// The installer refused to apply what the cluster holds would conflict with (another
    /// revision's sidecar injectors, newer CRDs): nothing was applied.
    Refused,
    /// A component could not be applied.
    ApplyFailed,
    /// Applied, but for the Helm releases helm changed in a way the spec does not carry,
    /// which are left as helm made them (see `crate::helm`).
    HelmChanged,
}

impl Outcome {
    fn reason(self) -> &'static str {
        match self {
            Outcome::Applying => "Applying",
            Outcome::Applied => "Applied",
            Outcome::Invalid => "Invalid",
            Outcome::InvalidVersion => "InvalidVersion",
            Outcome::FetchFailed => "FetchFailed",
            Outcome::RenderFailed => "RenderFailed",
            Outcome::Refused => "Refused",
            Outcome::ApplyFailed => "ApplyFailed",
            Outcome::HelmChanged => "HelmChanged",
        }
    }
}

/// One Kubernetes-style condition (without its transition time, which depends on the last one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condition {
    pub type_: &'static str,
    /// `True`, `False` or `Unknown`.
    pub status: &'static str,
    pub reason: String,
    pub message: String,
}

/// `now` as a Kubernetes `metav1.Time` (RFC 3339, whole seconds, UTC).
pub fn time(now: k8s_openapi::jiff::Timestamp) -> String {
    now.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// The conditions as stored: each with `observedGeneration`, and the `lastTransitionTime` of
/// the same condition in `previous` (a stored status) when its `status` did not change, else
/// `now`.
fn conditions_json(
    conditions: &[Condition],
    generation: i64,
    previous: Option<&Value>,
    now: &str,
) -> Value {
    let old = |type_: &str| {
        previous
            .and_then(|p| p.get("conditions"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|c| c.get("type").and_then(Value::as_str) == Some(type_))
    };
    Value::Array(
        conditions
            .iter()
            .map(|c| {
                let since = old(c.type_)
                    .filter(|o| o.get("status").and_then(Value::as_str) == Some(c.status))
                    .and_then(|o| o.get("lastTransitionTime"))
                    .and_then(Value::as_str)
                    .unwrap_or(now);
                json!({
                    "type": c.type_, "status": c.status, "reason": c.reason,
                    "message": c.message, "observedGeneration": generation,
                    "lastTransitionTime": since
                })
            })
            .collect(),
    )
}

/// A stored status with reconciliation paused: everything as it was, but the `Reconciled`
/// condition, which says it is paused and how to resume.
pub fn paused(previous: Option<&Value>, generation: i64, now: &str) -> Value {
    let mut status = previous
        .filter(|p| p.is_object())
        .cloned()
        .unwrap_or_else(|| json!({"status": Phase::None.as_str()}));
    let mut conditions: Vec<Condition> = Vec::new();
    let reconciled = Condition {
        type_: "Reconciled",
        status: "False",
        reason: "Paused".into(),
        message: format!(
            "reconciliation is paused by the annotation {PAUSE_ANNOTATION}=true; nothing is applied or repaired until it is removed"
        ),
    };
    conditions.push(reconciled);
    let mut out = conditions_json(&conditions, generation, previous, now);
    // The other conditions stay as they were.
    if let Some(old) = previous
        .and_then(|p| p.get("conditions"))
        .and_then(Value::as_array)
        && let Some(list) = out.as_array_mut()
    {
        list.extend(
            old.iter()
                .filter(|c| c.get("type").and_then(Value::as_str) != Some("Reconciled"))
                .cloned(),
        );
    }
    status["conditions"] = out;
    status
}

/// `status.status` and each component's status (istio/api `InstallStatus.Status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    None,
    Updating,
    Reconciling,
    Healthy,
    Error,
    ActionRequired,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::None => "NONE",
            Phase::Updating => "UPDATING",
            Phase::Reconciling => "RECONCILING",
            Phase::Healthy => "HEALTHY",
            Phase::Error => "ERROR",
            Phase::ActionRequired => "ACTION_REQUIRED",
        }
    }
}

/// One component's state (the key of `componentStatus` is istioctl's name: `Base`, `Pilot`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComponentState {
    pub name: String,
    pub phase: Phase,
    /// Why it is not healthy; empty when it is.
    pub error: String,
}

/// A whole status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    pub phase: Phase,
    pub message: String,
    pub observed_generation: i64,
    pub components: Vec<ComponentState>,
    pub outcome: Outcome,
    /// Objects another IstioOperator renders too, one line each (see [`crate::overlap`]).
    pub overlaps: Vec<String>,
    /// The Istio version the IstioOperator names and this status is about, when it names one.
    pub version: Option<String>,
}

impl Status {
    /// The conditions this status implies.
    pub fn conditions(&self) -> Vec<Condition> {
        let reconciled = match self.outcome {
            Outcome::Applied => Condition {
                type_: "Reconciled",
                status: "True",
                reason: Outcome::Applied.reason().into(),
                message: format!(
                    "generation {} is applied{}",
                    self.observed_generation,
                    self.version_note()
                ),
            },
            other => Condition {
                type_: "Reconciled",
                status: "False",
                reason: other.reason().into(),
                message: self.message.clone(),
            },
        };
        let ready = match (self.outcome, self.phase) {
            (Outcome::Applied, Phase::Healthy) => Condition {
                type_: "Ready",
                status: "True",
                reason: "Healthy".into(),
                message: self.message.clone(),
            },
            (Outcome::Applied, _) => Condition {
                type_: "Ready",
                status: "False",
                reason: "WorkloadsNotReady".into(),
                message: self.message.clone(),
            },
            (Outcome::Applying, _) => Condition {
                type_: "Ready",
                status: "Unknown",
                reason: "Applying".into(),
                message: self.message.clone(),
            },
            (other, _) => Condition {
                type_: "Ready",
                status: "False",
                reason: other.reason().into(),
                message: self.message.clone(),
            },
        };
        let overlapping = if self.overlaps.is_empty() {
            Condition {
                type_: "Overlapping",
                status: "False",
                reason: "NoOverlap".into(),
                message: "no other IstioOperator renders the objects this one applies".into(),
            }
        } else {
            Condition {
                type_: "Overlapping",
                status: "True",
                reason: "SharedObjects".into(),
                message: format!(
                    "{} object(s) are rendered by other IstioOperators too; the oldest IstioOperator applies each, the others leave it alone: {}",
                    self.overlaps.len(),
                    self.overlaps.join("; ")
                ),
            }
        };
        vec![reconciled, ready, overlapping]
    }

    /// The status as stored, given the stored one (for the conditions' transition times) and
    /// the time now (see [`time`]).
    pub fn to_json(&self, previous: Option<&Value>, now: &str) -> Value {
        let mut components = Map::new();
        for c in &self.components {
            let mut entry = json!({"status": c.phase.as_str()});
            if !c.error.is_empty() {
                entry["error"] = c.error.clone().into();
            }
            components.insert(c.name.clone(), entry);
        }
        let mut status = json!({
            "status": self.phase.as_str(),
            "observedGeneration": self.observed_generation,
            "message": self.message,
        });
        if !components.is_empty() {
            status["componentStatus"] = Value::Object(components);
        }
        status["conditions"] =
            conditions_json(&self.conditions(), self.observed_generation, previous, now);
        status
    }

    /// This status with the Istio version the IstioOperator names (`None`: its operator's
    /// own): said in `message` and in the `Reconciled` condition.
    pub fn with_version(mut self, version: Option<&str>) -> Status {
        self.version = version.map(str::to_string);
        if let Some(v) = &self.version {
            self.message = format!("Istio {v} ({}): {}", ISTIO_VERSION_ANNOTATION, self.message);
        }
        self
    }

    /// This status with what the release policy says without refusing (the cluster's
    /// Kubernetes outside the release's range, a version the catalog lacks) added to `message`.
    pub fn with_notes(mut self, notes: &[String]) -> Status {
        for note in notes {
            self.message.push_str(&format!("; note: {note}"));
        }
        self
    }

    /// This status with the Helm releases held back because helm changed them (one line each,
    /// from `crate::helm::Judgement::held_lines`): ACTION_REQUIRED, condition `Reconciled`
    /// False with reason `HelmChanged`, the lines first in `message`. An apply failure stays
    /// ERROR (the lines are added to its message).
    pub fn with_helm_held(mut self, lines: &[String]) -> Status {
        if lines.is_empty() {
            return self;
        }
        let held = format!(
            "{} Helm release(s) changed by helm are left as helm made them: {}",
            lines.len(),
            lines.join("; ")
        );
        if self.phase != Phase::Error {
            self.phase = Phase::ActionRequired;
            self.outcome = Outcome::HelmChanged;
        }
        self.message = format!("{held}; the rest: {}", self.message);
        self
    }

    fn version_note(&self) -> String {
        self.version
            .as_ref()
            .map(|v| format!(" with Istio {v} ({ISTIO_VERSION_ANNOTATION})"))
            .unwrap_or_default()
    }

    /// The Istio version the IstioOperator names is malformed, unknown or conflicts with its
    /// spec: ERROR, nothing applied; only a change of the IstioOperator fixes it.
    pub fn invalid_version(generation: i64, error: &str) -> Status {
        Status {
            phase: Phase::Error,
            message: format!("nothing was applied: {error}"),
            observed_generation: generation,
            components: Vec::new(),
            outcome: Outcome::InvalidVersion,
            overlaps: Vec::new(),
            version: None,
        }
    }

    /// The named version's package could not be fetched or verified: ERROR, nothing applied,
    /// retried with backoff (nothing was cached).
    pub fn fetch_failed(generation: i64, error: &str) -> Status {
        Status {
            phase: Phase::Error,
            message: format!("nothing was applied, retrying with backoff: {error}"),
            observed_generation: generation,
            components: Vec::new(),
            outcome: Outcome::FetchFailed,
            overlaps: Vec::new(),
            version: None,
        }
    }

    /// While a generation is applied.
    pub fn applying(generation: i64, overlaps: Vec<String>) -> Status {
        Status {
            phase: Phase::Reconciling,
            message: format!("applying generation {generation}"),
            observed_generation: generation,
            components: Vec::new(),
            outcome: Outcome::Applying,
            overlaps,
            version: None,
        }
    }

    /// Rendering failed for a reason other than the spec.
    pub fn render_failed(generation: i64, error: &str) -> Status {
        Status {
            phase: Phase::Error,
            message: format!("rendering failed, retrying with backoff: {error}"),
            observed_generation: generation,
            components: Vec::new(),
            outcome: Outcome::RenderFailed,
            overlaps: Vec::new(),
            version: None,
        }
    }

    /// The installer refused to apply (see `installer::Refusal`): ACTION_REQUIRED, nothing
    /// applied, each finding in `message`, and what the operator does next.
    pub fn refused(generation: i64, findings: &[String], overlaps: Vec<String>) -> Status {
        Status {
            phase: Phase::ActionRequired,
            message: format!(
                "refused to apply generation {generation}, so nothing was applied: {}; the operator checks again every {} s and applies once the cluster no longer conflicts",
                findings.join("; "),
                REFUSED_RECHECK.as_secs()
            ),
            observed_generation: generation,
            components: Vec::new(),
            outcome: Outcome::Refused,
            overlaps,
            version: None,
        }
    }

    /// Invalid input: ERROR, nothing applied, the validation messages in `message`.
    pub fn invalid(generation: i64, messages: &[String]) -> Status {
        let n = messages.len();
        Status {
            phase: Phase::Error,
            message: format!(
                "the IstioOperator is invalid ({n} error{}), so nothing was applied; fix the spec: {}",
                if n == 1 { "" } else { "s" },
                messages.join("; ")
            ),
            observed_generation: generation,
            components: Vec::new(),
            outcome: Outcome::Invalid,
            overlaps: Vec::new(),
            version: None,
        }
    }

    /// After an apply: HEALTHY when every component is, RECONCILING while workloads come up
    /// (the message names each and why), ERROR when a component failed.
    pub fn from_components(
        generation: i64,
        components: Vec<ComponentState>,
        overlaps: Vec<String>,
    ) -> Status {
        let failed: Vec<&ComponentState> = components
            .iter()
            .filter(|c| c.phase == Phase::Error)
            .collect();
        let waiting: Vec<&ComponentState> = components
            .iter()
            .filter(|c| c.phase != Phase::Healthy && c.phase != Phase::Error)
            .collect();
        let (phase, message) = if !failed.is_empty() {
            let what: Vec<String> = failed
                .iter()
                .map(|c| format!("{}: {}", c.name, c.error))
                .collect();
            (
                Phase::Error,
                format!(
                    "applying failed, retrying with backoff: {}",
                    what.join("; ")
                ),
            )
        } else if !waiting.is_empty() {
            let what: Vec<String> = waiting
                .iter()
                .map(|c| format!("{}: {}", c.name, c.error))
                .collect();
            (
                Phase::Reconciling,
                format!(
                    "applied; waiting for workloads to become ready: {}",
                    what.join("; ")
                ),
            )
        } else {
            (
                Phase::Healthy,
                "every component is applied and its workloads are ready".to_string(),
            )
        };
        let outcome = if phase == Phase::Error {
            Outcome::ApplyFailed
        } else {
            Outcome::Applied
        };
        Status {
            phase,
            message,
            observed_generation: generation,
            components,
            outcome,
            overlaps,
            version: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn component(name: &str, phase: Phase, error: &str) -> ComponentState {
        ComponentState {
            name: name.into(),
            phase,
            error: error.into(),
        }
    }

    #[test]
    fn healthy_when_every_component_is() {
        let s = Status::from_components(
            3,
            vec![
                component("Base", Phase::Healthy, ""),
                component("Pilot", Phase::Healthy, ""),
            ],
            Vec::new(),
        );
        assert_eq!(s.phase, Phase::Healthy);
        let j = s.to_json(None, "T0");
        assert_eq!(j["status"], "HEALTHY");
        assert_eq!(j["observedGeneration"], 3);
        assert_eq!(j["componentStatus"]["Pilot"], json!({"status": "HEALTHY"}));
    }

    #[test]
    fn waiting_names_the_workloads() {
        let s = Status::from_components(
            1,
            vec![
                component("Base", Phase::Healthy, ""),
                component(
                    "Pilot",
                    Phase::Reconciling,
                    "Deployment istio-system/istiod: 0/1 replicas ready",
                ),
            ],
            Vec::new(),
        );
        assert_eq!(s.phase, Phase::Reconciling);
        assert!(
            s.message
                .contains("Pilot: Deployment istio-system/istiod: 0/1 replicas ready"),
            "{}",
            s.message
        );
        let failed =
            Status::from_components(1, vec![component("Base", Phase::Error, "boom")], Vec::new());
        assert_eq!(failed.phase, Phase::Error);
        assert!(failed.message.contains("Base: boom"));
    }

    #[test]
    fn invalid_says_nothing_was_applied() {
        let s = Status::invalid(2, &["values.global.bogus: unknown field".into()]);
        let j = s.to_json(None, "T0");
        assert_eq!(j["status"], "ERROR");
        assert!(s.message.contains("nothing was applied"));
        assert!(s.message.contains("values.global.bogus: unknown field"));
        assert!(j.get("componentStatus").is_none());
        assert_eq!(condition(&j, "Reconciled")["reason"], "Invalid");
        assert_eq!(condition(&j, "Ready")["status"], "False");
    }

    #[test]
    fn a_named_version_shows_in_the_message_and_the_reconciled_condition() {
        let healthy = ComponentState {
            name: "Pilot".into(),
            phase: Phase::Healthy,
            error: String::new(),
        };
        let s = Status::from_components(3, vec![healthy], Vec::new())
            .with_version(Some("1.30.3"))
            .with_notes(&["Istio 1.30.3 is not in bosun's catalog".into()]);
        let j = s.to_json(None, "T0");
        assert_eq!(
            j["message"],
            "Istio 1.30.3 (bosun.io/istio-version): every component is applied and its workloads are ready; note: Istio 1.30.3 is not in bosun's catalog"
        );
        assert_eq!(
            condition(&j, "Reconciled")["message"],
            "generation 3 is applied with Istio 1.30.3 (bosun.io/istio-version)"
        );
        let unversioned = Status::from_components(3, Vec::new(), Vec::new()).with_version(None);
        assert_eq!(
            condition(&unversioned.to_json(None, "T0"), "Reconciled")["message"],
            "generation 3 is applied"
        );
    }

    #[test]
    fn an_invalid_or_unfetched_version_is_an_error_with_its_reason() {
        let invalid = Status::invalid_version(1, "annotation bosun.io/istio-version: unknown");
        let j = invalid.to_json(None, "T0");
        assert_eq!(j["status"], "ERROR");
        assert_eq!(
            j["message"],
            "nothing was applied: annotation bosun.io/istio-version: unknown"
        );
        assert_eq!(condition(&j, "Reconciled")["reason"], "InvalidVersion");
        assert_eq!(condition(&j, "Ready")["reason"], "InvalidVersion");
        let fetch = Status::fetch_failed(1, "mirror down").to_json(None, "T0");
        assert_eq!(fetch["status"], "ERROR");
        assert_eq!(condition(&fetch, "Reconciled")["reason"], "FetchFailed");
    }

    fn condition<'a>(status: &'a Value, type_: &str) -> &'a Value {
        status["conditions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["type"] == type_)
            .unwrap_or_else(|| panic!("no {type_} condition in {status}"))
    }

    #[test]
    fn conditions_follow_the_phase_and_keep_their_transition_times() {
        let waiting = Status::from_components(
            4,
            vec![component("Pilot", Phase::Reconciling, "istiod: 0/1 ready")],
            Vec::new(),
        )
        .to_json(None, "T0");
        assert_eq!(
            condition(&waiting, "Reconciled"),
            &json!({"type": "Reconciled", "status": "True", "reason": "Applied",
                    "message": "generation 4 is applied", "observedGeneration": 4,
                    "lastTransitionTime": "T0"})
        );
        assert_eq!(condition(&waiting, "Ready")["status"], "False");
        assert_eq!(condition(&waiting, "Ready")["reason"], "WorkloadsNotReady");
        assert_eq!(condition(&waiting, "Overlapping")["status"], "False");

        let healthy = Status::from_components(
            4,
            vec![component("Pilot", Phase::Healthy, "")],
            vec!["ServiceAccount ns/reader: kept by ns/older".into()],
        )
        .to_json(Some(&waiting), "T1");
        // Reconciled stayed True: its time is kept; Ready became True now.
        assert_eq!(
            condition(&healthy, "Reconciled")["lastTransitionTime"],
            "T0"
        );
        assert_eq!(condition(&healthy, "Ready")["status"], "True");
        assert_eq!(condition(&healthy, "Ready")["lastTransitionTime"], "T1");
        let overlapping = condition(&healthy, "Overlapping");
        assert_eq!(overlapping["status"], "True");
        assert!(
            overlapping["message"]
                .as_str()
                .unwrap()
                .contains("ServiceAccount ns/reader: kept by ns/older")
        );

        let applying = Status::applying(5, Vec::new()).to_json(Some(&healthy), "T2");
        assert_eq!(condition(&applying, "Ready")["status"], "Unknown");
        assert_eq!(condition(&applying, "Reconciled")["reason"], "Applying");
        let failed = Status::render_failed(5, "no charts").to_json(Some(&applying), "T3");
        assert_eq!(condition(&failed, "Reconciled")["reason"], "RenderFailed");
        assert_eq!(condition(&failed, "Reconciled")["lastTransitionTime"], "T2");
    }

    #[test]
    fn pause_changes_only_the_reconciled_condition() {
        let healthy =
            Status::from_components(2, vec![component("Pilot", Phase::Healthy, "")], Vec::new())
                .to_json(None, "T0");
        let paused = paused(Some(&healthy), 3, "T1");
        assert_eq!(paused["status"], "HEALTHY");
        assert_eq!(paused["observedGeneration"], 2);
        let reconciled = condition(&paused, "Reconciled");
        assert_eq!(reconciled["status"], "False");
        assert_eq!(reconciled["reason"], "Paused");
        assert_eq!(reconciled["lastTransitionTime"], "T1");
        assert!(
            reconciled["message"]
                .as_str()
                .unwrap()
                .contains(PAUSE_ANNOTATION)
        );
        assert_eq!(condition(&paused, "Ready"), condition(&healthy, "Ready"));
        // Paused again later: nothing changes, so nothing is written.
        assert_eq!(super::paused(Some(&paused), 3, "T2"), paused);
        // A new IstioOperator paused before its first reconcile.
        assert_eq!(super::paused(None, 1, "T0")["status"], "NONE");
    }

    #[test]
    fn pause_annotation_must_say_true() {
        let map = |v: &str| {
            std::collections::BTreeMap::from([(PAUSE_ANNOTATION.to_string(), v.to_string())])
        };
        assert!(is_paused(Some(&map("true"))));
        assert!(is_paused(Some(&map("True"))));
        assert!(!is_paused(Some(&map("false"))));
        assert!(!is_paused(Some(&map(""))));
        assert!(!is_paused(None));
    }
}
