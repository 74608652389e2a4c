use std::path::PathBuf;

use vocab::ObjectRef;

use crate::overlap::{Overlap, SelectorError};
use crate::timeout::describe;

/// One field that another field manager owns, from a server-side apply conflict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldConflict {
    /// The field manager that owns the field (for example `kubectl-client-side-apply`).
    pub manager: String,
    /// The field's path as the API server prints it (for example `.data.key`).
    pub field: String,
    /// The API server's own words for this conflict.
    pub message: String,
}

/// What a failed list asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListTarget {
    pub api_version: String,
    pub kind: String,
    /// The label selector.
    pub selector: String,
}

/// Errors from cluster I/O.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("reading kubeconfig {}: {source}", path.display())]
    Kubeconfig {
        path: PathBuf,
        #[source]
        source: kube::config::KubeconfigError,
    },
    /// No configuration for the cluster asked for.
    #[error(transparent)]
    Target(#[from] crate::target::TargetError),
    #[error("creating the cluster client: {}", describe(.0))]
    Connect(#[source] kube::Error),
    /// The exec credential plugin did not finish in time.
    #[error(transparent)]
    ExecPluginTimeout(crate::timeout::ExecPluginTimeout),
    #[error("starting a thread for the exec credential plugin: {0}")]
    ExecThread(#[source] std::io::Error),
    /// istioctl's wording: `fail to get Kubernetes version`.
    #[error("fail to get Kubernetes version: {}", describe(.0))]
    Version(#[source] kube::Error),
    #[error("object #{index}: {reason}")]
    InvalidObject { index: usize, reason: String },
    #[error("{object}: the API server serves no kind {kind} in {api_version}")]
    UnknownKind {
        object: Box<ObjectRef>,
        api_version: String,
        kind: String,
    },
    #[error("{object}: discovery of {api_version} failed: {}", describe(source))]
    Discovery {
        object: Box<ObjectRef>,
        api_version: String,
        #[source]
        source: kube::Error,
    },
    #[error(
        "{object}: server-side apply conflicts with field manager{} {} on {} (re-apply with force to take them over)",
        if managers(conflicts).len() == 1 { "" } else { "s" },
        managers(conflicts).join(", "),
        conflicts.iter().map(|c| c.field.as_str()).collect::<Vec<_>>().join(", ")
    )]
    Conflict {
        object: Box<ObjectRef>,
        conflicts: Vec<FieldConflict>,
    },
    /// `proxy restart` asked to restart a kind that has no rollout (a Job, a bare Pod).
    #[error("{object}: only Deployments, StatefulSets and DaemonSets can be restarted")]
    NotRestartable { object: Box<ObjectRef> },
    #[error("{object}: {action}: {}", describe(source))]
    Api {
        object: Box<ObjectRef>,
        action: &'static str,
        #[source]
        source: kube::Error,
    },
    #[error("{what}: not {condition} after {waited:?}{}", last.as_deref().map(|l| format!(" ({l})")).unwrap_or_default())]
    Timeout {
        what: String,
        condition: &'static str,
        waited: std::time::Duration,
        /// Why it is not there yet, as last seen (a condition's reason and message).
        last: Option<String>,
    },
    /// A webhook configuration whose label selectors the API server would reject.
    #[error(transparent)]
    InvalidSelector(#[from] SelectorError),
    /// Sidecar injectors of different revisions that would both inject the same pods.
    #[error(
        "{} would inject sidecars into the same pods as {} of another revision already in the cluster (pods would be injected twice):{}\nremove or relabel the other revision's webhooks, or pass --force to install anyway",
        if overlaps.len() == 1 { "a webhook" } else { "webhooks" },
        if overlaps.len() == 1 { "one" } else { "ones" },
        overlaps.iter().map(|o| format!("\n  {o}")).collect::<String>()
    )]
    WebhookOverlap { overlaps: Vec<Overlap> },
    /// Objects still not ready when the readiness wait ended (workloads, webhooks, load
    /// balancers): each one, and why.
    #[error(
        "{what}: {} not ready after {waited:.1?}:{}",
        if objects.len() == 1 { "1 object".to_string() } else { format!("{} objects", objects.len()) },
        objects.iter().map(|(o, why)| format!("\n  {o}: {why}")).collect::<String>()
    )]
    NotReady {
        what: String,
        waited: std::time::Duration,
        objects: Vec<(ObjectRef, String)>,
    },
    /// Not applied, because a component it is installed after failed.
    #[error("skipped because {because} failed")]
    Skipped { because: String },
    /// Components that failed (or were skipped) once the install reached them; the others
    /// were installed.
    #[error(
        "{} failed:{}",
        if failures.len() == 1 { "1 component".to_string() } else { format!("{} components", failures.len()) },
        failures.iter().map(|(c, e)| format!("\n{}", naming(c, e).replace('\n', "\n  "))).collect::<String>()
    )]
    Install { failures: Vec<(String, Error)> },
    #[error("{component} is installed after {after}, which comes later in the list")]
    InstallOrder { component: String, after: String },
    #[error("listing {} ({}) labelled {}: {}", target.kind, target.api_version, target.selector, describe(source))]
    List {
        target: Box<ListTarget>,
        #[source]
        source: kube::Error,
    },
}

/// `error`'s text, starting with `component`'s name unless it does already.
pub(crate) fn naming(component: &str, error: &Error) -> String {
    let text = error.to_string();
    if text.starts_with(&format!("{component}:")) {
        text
    } else {
        format!("{component}: {text}")
    }
}

fn managers(conflicts: &[FieldConflict]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for c in conflicts {
        let quoted = format!("{:?}", c.manager);
        if !names.contains(&quoted) {
            names.push(quoted);
        }
    }
    names
}

impl Error {
    /// Whether a list was refused for want of rights (403).
    pub fn is_forbidden(&self) -> bool {
        matches!(self, Error::List { source: kube::Error::Api(status), .. } if status.code == 403)
    }

    /// The field managers a [`Error::Conflict`] names, each once, in the server's order.
    pub fn conflicting_managers(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        if let Error::Conflict { conflicts, .. } = self {
            for c in conflicts {
                if !out.contains(&c.manager.as_str()) {
                    out.push(&c.manager);
                }
            }
        }
        out
    }
}
