//! The IstioOperator's `status`, as the old Istio operator wrote it (`status.status`,
//! `componentStatus` per component with its `error`, `message`), plus `observedGeneration`.
//! Pure: no I/O (the controller writes it with server-side apply, only when it changed).

use serde_json::{Map, Value, json};

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
}

impl Status {
    pub fn to_json(&self) -> Value {
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
        status
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
        }
    }

    /// After an apply: HEALTHY when every component is, RECONCILING while workloads come up
    /// (the message names each and why), ERROR when a component failed.
    pub fn from_components(generation: i64, components: Vec<ComponentState>) -> Status {
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
        Status {
            phase,
            message,
            observed_generation: generation,
            components,
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
        );
        assert_eq!(s.phase, Phase::Healthy);
        let j = s.to_json();
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
        );
        assert_eq!(s.phase, Phase::Reconciling);
        assert!(
            s.message
                .contains("Pilot: Deployment istio-system/istiod: 0/1 replicas ready"),
            "{}",
            s.message
        );
        let failed = Status::from_components(1, vec![component("Base", Phase::Error, "boom")]);
        assert_eq!(failed.phase, Phase::Error);
        assert!(failed.message.contains("Base: boom"));
    }

    #[test]
    fn invalid_says_nothing_was_applied() {
        let s = Status::invalid(2, &["values.global.bogus: unknown field".into()]);
        assert_eq!(s.to_json()["status"], "ERROR");
        assert!(s.message.contains("nothing was applied"));
        assert!(s.message.contains("values.global.bogus: unknown field"));
        assert!(s.to_json().get("componentStatus").is_none());
    }
}
