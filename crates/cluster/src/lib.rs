//! All of bosun's cluster I/O lives here, and only here: the kube-rs client, server-side apply,
//! and (as they arrive) dependency waits, readiness, prune, uninstall, verify and webhook overlap
//! checks. Other crates render; this one talks to the API server and must not render.
//!
//! What exists so far:
//! - [`Client`]: a connection built from a kubeconfig file ([`Client::from_kubeconfig`]) or the
//!   usual inference ([`Client::from_env`]: `KUBECONFIG`, `~/.kube/config`, in-cluster).
//! - [`Client::apply`]: server-side apply of arbitrary objects (any kind the server serves,
//!   custom resources included), resolved through discovery, with a per-object
//!   [`Outcome`] (created / configured / unchanged) and field-manager conflicts as a typed
//!   [`Error::Conflict`] naming the other managers.
//! - [`Client::wait_crd_established`]: waits until a CustomResourceDefinition is served.
//! - [`Client::install`]: a rendered mesh applied in dependency order (Namespaces, CRDs until
//!   Established, then component by component), with a report per component, each
//!   component's workloads waited for until ready unless told not to.
//! - [`readiness`]: when a Deployment, StatefulSet, DaemonSet or Job is ready (a pure function
//!   of its live JSON), and [`Client::wait_ready`], which polls until they are.
//!
//! - [`overlap`]: whether sidecar injectors of two revisions would inject the same pods (pure,
//!   exact over label selectors), and [`Client::webhook_overlaps`], which checks rendered
//!   webhooks against the cluster's.
//!
//! - [`Client::plan`]: what an install would do, from server-side dry runs compared with the
//!   live objects ([`Plan`]: create / update with field changes / unchanged / conflict, and
//!   deletes that prune adds).
//!
//! - [`Client::verify`]: every rendered object present, as rendered (judged by a server dry
//!   run), and ready ([`VerifyReport`]), for `verify-install`.
//!
//! Tests run against a real kube-apiserver and etcd started by `scripts/testenv`; the
//! [`testenv`] module (feature `testenv`) is the helper that tests use to get one.

mod apply;
mod client;
mod error;
mod install;
pub mod overlap;
mod plan;
mod ready;
#[cfg(feature = "testenv")]
pub mod testenv;
mod verify;
mod wait;
mod webhooks;

pub use apply::{Applied, ApplyReport, ObjectRef, Outcome};
pub use client::Client;
pub use error::{Error, FieldConflict};
pub use install::{Component, ComponentReport, InstallOptions, InstallReport};
pub use plan::{Action, Plan, PlannedObject, comparable, field_changes};
pub use ready::{Readiness, is_workload, readiness};
pub use verify::{Presence, VerifiedObject, VerifyReport};
