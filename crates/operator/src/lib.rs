//! bosun's in-cluster operator: a kube-rs runtime controller that reconciles
//! `install.istio.io/v1alpha1` IstioOperator resources.
//!
//! Owns: the controller loop ([`controller`]), the IstioOperator status ([`status`]), the
//! labels that tie what it applies to an IstioOperator ([`owned`]; what prune and the finalizer
//! remove by them is `installer::uninstall`'s, as for `bosun uninstall`), leader election through a Lease ([`lease`]), the `/metrics`, `/healthz` and
//! `/readyz` endpoints ([`metrics`]), structured logs ([`log`]), and the operator's own install
//! objects with the IstioOperator CRD ([`deploy`], [`crd`]).
//!
//! Renders through the `pipeline` library, the same API `bosun install` calls, so the two can
//! never render differently: in this process ([`render::InlineRender`]) or behind the
//! [`Render`] trait, which lets the CLI render in a short-lived child process instead (so the
//! render's memory goes with the child).
//!
//! The Istio version an IstioOperator may name ([`version`]) is resolved, fetched and cached
//! through `release`, with the catalog and sources the CLI hands in. Helm release records for
//! an IstioOperator that asks for them ([`helm`]) are `installer::helm_releases`' (drafts,
//! markers, revisions, what helm changed); this crate only decides when to hold a release back.
//!
//! Must not: render any other way, depend on the CLI, or duplicate cluster I/O that `cluster`
//! has: every apply goes through [`cluster::Client::install`], readiness through
//! [`cluster::Client::readiness_of`].

pub mod controller;
pub mod crd;
pub mod deploy;
pub mod helm;
pub mod lease;
pub mod log;
pub mod metrics;
pub mod noop;
pub mod object;
pub mod overlap;
pub mod owned;
pub mod rbac;
pub mod remove;
pub mod render;
pub mod status;
pub mod version;

use serde_json::Value;

/// A rendered IstioOperator.
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    /// In istioctl's component order, each one's objects in apply order with the owner
    /// labels (CRDs left unlabelled), as `pipeline::resource` renders them.
    pub components: Vec<vocab::Component>,
    /// The charts' and validation's warnings (logged, not fatal).
    pub warnings: Vec<String>,
    /// The Istio version of the install package that rendered it (judged by the release
    /// policy, `installer::release_policy`).
    pub version: String,
    /// Each component instance as a Helm release draft (its chart, values and objects), when
    /// the render was asked for them ([`vocab::labels::HELM_RELEASES_ANNOTATION`]).
    pub helm_releases: Option<Vec<installer::helm_releases::Draft>>,
    /// Labels of the namespaces the install creates, by namespace
    /// ([`installer::created_namespace_labels`]: the Istio namespace's network label).
    pub namespace_labels:
        std::collections::BTreeMap<String, std::collections::BTreeMap<String, String>>,
}

/// Why an IstioOperator could not be rendered.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RenderError {
    /// The spec is invalid: each validation error as a person reads it. Nothing is applied.
    #[error("the IstioOperator is invalid: {}", .0.join("; "))]
    Invalid(Vec<String>),
    /// Rendering failed for another reason (charts missing, a template failed).
    #[error("{0}")]
    Failed(String),
}

/// Validation and rendering of one IstioOperator: [`render::InlineRender`], or another process
/// running it. Called on a blocking thread (rendering is CPU work).
pub trait Render: Send + Sync + 'static {
    /// Renders `iop`, the IstioOperator as stored (apiVersion, kind, metadata, spec), with
    /// the install package `package` when given (the version the IstioOperator names, see
    /// [`version`]) instead of the operator's own; with `helm_releases`, the Helm release
    /// drafts too ([`Rendered::helm_releases`]).
    fn render(
        &self,
        iop: &Value,
        package: Option<&std::path::Path>,
        helm_releases: bool,
    ) -> Result<Rendered, RenderError>;
}

/// Errors of the operator's own I/O.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Cluster(#[from] cluster::Error),
    #[error("{action}: {}", cluster::describe(source))]
    Kube {
        action: String,
        #[source]
        source: kube::Error,
    },
    #[error(transparent)]
    Render(#[from] RenderError),
    /// The Istio version the IstioOperator names could not be had (see [`version`]).
    #[error(transparent)]
    Version(#[from] version::VersionError),
    /// The Helm release records could not be read, written or removed.
    #[error(transparent)]
    HelmReleases(#[from] installer::helm_releases::HelmReleaseError),
    /// The installer's checks before applying could not run, or its prune or uninstall
    /// failed (its message says which).
    #[error(transparent)]
    Installer(#[from] installer::Error),
    /// The render ran on the blocking pool and did not come back (it panicked).
    #[error("the render task failed: {0}")]
    RenderTask(#[source] tokio::task::JoinError),
    /// The metrics and health endpoints could not listen.
    #[error("serving metrics on {addr}: {source}")]
    Metrics {
        addr: std::net::SocketAddr,
        #[source]
        source: std::io::Error,
    },
    /// The IstioOperator CRD is not served, so there is nothing to watch.
    #[error("{0}; install it with `bosun operator init` (or apply `bosun operator dump`)")]
    NoCrd(#[source] cluster::Error),
    /// Another replica holds the leader Lease now: this one exits, and its restart competes
    /// for the Lease again.
    #[error("lost the leader Lease; exiting so that a restart competes for it again")]
    LostLease,
    /// `operator remove` was asked to delete an object of a kind the operator never deletes
    /// ([`remove::delete_objects`]).
    #[error("{0}: not a kind the operator deletes")]
    NotDeletable(vocab::ObjectRef),
}
