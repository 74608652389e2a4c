//! All of bosun's cluster I/O lives here, and only here: the kube-rs client, server-side apply,
//! and (as they arrive) dependency waits, readiness, prune, uninstall, verify and webhook overlap
//! checks. Other crates render; this one talks to the API server and must not render.
//!
//! What exists so far:
//! - [`Client`]: a connection to the cluster a [`Target`] names, found as kubectl finds it
//!   ([`Client::connect`]: `--kubeconfig`, else `KUBECONFIG`'s files merged, else
//!   `~/.kube/config`, with `--context` or the current context; else in-cluster), or to the
//!   current context of one kubeconfig file ([`Client::from_kubeconfig`], for tests).
//! - [`Client::apply`]: server-side apply of arbitrary objects (any kind the server serves,
//!   custom resources included), resolved through discovery, with a per-object
//!   [`Outcome`] (created / configured / unchanged) and field-manager conflicts as a typed
//!   [`Error::Conflict`] naming the other managers. An install may name managers whose
//!   fields it takes over without force when they are the only ones an object conflicts with
//!   ([`InstallOptions::take_over_from`]: the caller's own earlier manager); whom to name is
//!   the caller's policy.
//! - [`Client::wait_crd_established`]: waits until a CustomResourceDefinition is served.
//! - [`Client::install`]: a rendered mesh applied in dependency order (Namespaces, CRDs until
//!   Established, then each component once those it depends on are done, independent ones
//!   side by side), with progress events and a report per component, each component's
//!   workloads waited for until ready unless told not to.
//! - [`Client::prune`] / [`Client::prune_candidates`]: after an install, the objects of the
//!   installation it no longer renders, found by istioctl's owner labels, deleted (or only
//!   listed), with Background propagation.
//! - [`Client::uninstall_candidates`] and [`Client::delete_owned`]: what `uninstall` removes
//!   (one control plane, or `--purge` everything Istio-owned) in a safe order.
//! - [`tags`]: revision tags (istioctl's `tag` commands and the installer's default tag): the
//!   checks, reads and writes; the objects themselves come from `manifest::tag`.
//! - [`Client::take_install_lock`] ([`HeldInstallLock`]) and [`Client::holding_install_lock`]:
//!   one `install`/`uninstall` at a time per Istio namespace, through a Lease in kube-system ([`lease`] holds Leases, for it and the operator's leader
//!   election).
//! - [`records`]: a small record bosun keeps in the cluster as a ConfigMap's data (the canary
//!   upgrade's progress): read, create (refusing one that exists), replace, delete.
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
//! - [`Client::cluster_facts`]: the Kubernetes version and CNI configuration that istioctl's
//!   cluster-specific rendering looks at.
//!
//! - [`Client::verify`]: every rendered object present, as rendered (judged by a server dry
//!   run), and ready ([`VerifyReport`]), for `verify-install`.
//!
//! - [`Client::revision_objects`] / [`Client::revisions`]: the objects that say which
//!   control-plane revisions exist and what uses them (judged by `assess::revisions`), and
//!   [`Client::crd_downgrades`]: rendered CRDs that would replace newer live ones
//!   (`assess::crds`).
//! - [`Client::precheck_facts`]: what `bosun precheck` judges (`assess::precheck`), including
//!   one SelfSubjectAccessReview per permission the install needs ([`Client::install_access`]).
//!
//! - [`Client::kube_system_uid`], [`Client::service_account_token_secret`],
//!   [`Client::token_data`] and the other reads and writes of `create-remote-secret` (the
//!   long-lived token Secret, found or created and waited for).
//! - [`Client::mesh_read`]: what `mesh check` judges (`assess::mesh`): istiod's values, the
//!   network label, the root of trust, every remote secret tried with its own credentials, the
//!   east-west gateway, istiod's log.
//!
//! - [`Client::node_addresses`] and [`Client::annotate_namespace`]: what `mesh install`
//!   reads and writes for a primary-remote mesh besides the installs (the address a remote
//!   reaches its primary's istiod at; the remote's control-plane annotation);
//!   [`Client::namespace_metadata_owned_by`] and [`Client::remove_namespace_metadata`]: the
//!   mesh's label and annotation taken off again by `uninstall --purge` when only bosun wrote
//!   them.
//!
//! - [`Client::labelled_secrets`], [`Client::write_secret`], [`Client::delete_secret`]: the
//!   reads and writes of Helm release records (`install --helm-releases`; their format is the
//!   `helmrelease` crate's, which records to write is `installer`'s).
//!
//! Tests run against a real kube-apiserver and etcd started by `scripts/testenv`; the
//! [`testenv`] module (feature `testenv`) is the helper that tests use to get one.

mod apply;
mod client;
mod discovery;
mod error;
mod facts;
mod helm_records;
mod install;
mod install_lock;
pub mod lease;
mod listed;
pub mod mesh_check;
mod outcome;
pub mod overlap;
mod plan;
pub mod port_forward;
mod precheck;
mod primary_remote;
pub mod proxies;
mod prune;
mod reads;
mod ready;
pub mod records;
mod remote_secret;
mod revisions;
mod snapshot;
pub mod tags;
mod target;
#[cfg(feature = "testenv")]
pub mod testenv;
mod timeout;
mod uninstall;
mod verify;
mod wait;
mod webhooks;
mod why;

pub use apply::{Applied, ApplyReport, Outcome};
pub use client::{Client, keep_few_idle_connections};
pub use error::{Error, FieldConflict, ListTarget};
pub use install::{ComponentReport, InstallEvent, InstallOptions, InstallReport};
pub use install_lock::{
    HeldInstallLock, LEASE_DURATION, LOCK_NAMESPACE, LockHolder, install_lock_name, lock_identity,
};
pub use plan::{Action, Plan, PlannedObject, comparable, field_changes};
pub use precheck::PrecheckInstall;
pub use primary_remote::{MetadataField, NamespaceKey};
pub use prune::{DeleteOutcome, Deleted, OwnedObject, PRUNED_KINDS, PrunedKind};
pub use ready::{NotReadyWorkload, Readiness, is_workload, readiness};
pub use remote_secret::{TokenData, TokenSecret};
pub use revisions::RevisionObjects;
pub use target::{KubeconfigFiles, Searched, Target, TargetError};
pub use timeout::{ExecPluginTimeout, RequestError, RequestTimeout, describe};
pub use uninstall::UninstallScope;
pub use verify::{Presence, VerifiedObject, VerifyReport};
