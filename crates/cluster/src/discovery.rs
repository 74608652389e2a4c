//! Which kinds the API server serves, learnt once per command.
//!
//! The first lookup runs one aggregated discovery (`/api` and `/apis`, two requests) and keeps
//! every kind in it; every later lookup of a client and its clones is answered from that, so a
//! command reads discovery once however many kinds it applies, lists or prunes (before, each
//! check looked each group version up on its own: `/api/v1` eight times in one install).
//! Lookups wait for each other, so checks running side by side do not each start the same
//! discovery. A kind missing from it is not served, and looking it up again costs nothing.
//!
//! These make it ask again:
//! - [`Client::invalidate_discovery`], called when the install itself has created
//!   CustomResourceDefinitions and needs their kinds, and any write of this client to
//!   CustomResourceDefinitions since the discovery (counted by `crate::reads`, so a caller that
//!   applies a CRD and then an object of its kind needs no call): the next miss runs discovery
//!   again, and,
//!   since the aggregated view may lag a moment behind a CRD just established, a kind still
//!   missing after that is looked up in its own group version.
//! - Time: a kind found missing is taken as missing for [`NOT_SERVED_FOR`] only, so a process
//!   that lives on (the operator) sees CRDs that others install later. A command's lookups fall
//!   within that window; kinds found served stay known.
//! - A discovery that cannot reach the server (no answer, no connection, no credentials) fails
//!   every lookup that was already waiting for it with the same error, and is tried again by
//!   the next lookup to start: a command that reads many kinds side by side (`revision list`)
//!   waits one request timeout, not one for each kind in line. Such an error is not a server
//!   without aggregated discovery, so no group version is asked on its own either.
//! - A server that answers 404 for `/api` or `/apis` is no Kubernetes API server (a wrong path
//!   in the kubeconfig's server URL): that is said, as for an unreachable one, rather than
//!   every kind being taken as not served.
//! - A server without aggregated discovery (older than Kubernetes 1.27, or an aggregated API
//!   that fails it): each group version is read on its own, as kube-rs's `pinned_kind` does,
//!   and the answer (served or not) is kept.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use kube::core::{ApiResource, GroupVersionKind};
use kube::discovery::{self, ApiCapabilities, Discovery};

use crate::Client;

/// What a client has learnt of the server's kinds; shared by its clones.
#[derive(Default)]
pub(crate) struct Discovered {
    served: HashMap<GroupVersionKind, (ApiResource, ApiCapabilities)>,
    /// Kinds looked up one by one and not served, and when.
    missing: HashMap<GroupVersionKind, Instant>,
    /// When `served` was filled with every kind of an aggregated discovery, if it was since
    /// the last invalidation.
    complete: Option<Instant>,
    /// The discovery was run again after [`Client::invalidate_discovery`]: its view may lag
    /// behind CRDs established a moment ago, so a miss is checked in its group version.
    after_invalidation: bool,
    /// The aggregated discovery failed once: kinds are looked up one group version at a time.
    no_aggregated: bool,
    /// This client's writes to CustomResourceDefinitions when `complete` was filled.
    crd_writes: u64,
    /// The last discovery that could not reach the server, and when it ended.
    unreachable: Option<(Instant, Arc<kube::Error>)>,
}

/// A discovery's failure to reach the server, given to each lookup that waited for it
/// (`kube::Error` is not `Clone`). It reads as the failure itself.
#[derive(Debug, thiserror::Error)]
#[error("{}", crate::timeout::describe(.0))]
struct SharedFailure(Arc<kube::Error>);

impl SharedFailure {
    fn error(failure: &Arc<kube::Error>) -> kube::Error {
        kube::Error::Service(Box::new(SharedFailure(failure.clone())))
    }
}

/// The server answered 404 for discovery's `/api` or `/apis`, which every Kubernetes API server
/// serves (older ones without aggregated discovery too): read on, every kind would look
/// missing and a command would report an empty cluster.
#[derive(Debug, thiserror::Error)]
#[error(
    "the server {server} answered HTTP 404 for the API discovery paths (/api, /apis): no Kubernetes API server answers at that address; check the server URL (and its path) in the kubeconfig"
)]
struct NoApiServer {
    server: String,
}

/// The request never got an answer from the server: bosun's own request layer (timeouts,
/// connection, credentials) or the connection itself failed.
fn unreachable(e: &kube::Error) -> bool {
    matches!(e, kube::Error::Service(_) | kube::Error::HyperError(_))
}

fn is_404(e: &kube::Error) -> bool {
    matches!(e, kube::Error::Api(status) if status.code == 404)
}

/// The resource key (`crate::reads::resource_of`) of CustomResourceDefinitions.
const CRDS: &str = "apiextensions.k8s.io/customresourcedefinitions";

/// How long a kind found missing stays missing without asking again.
pub const NOT_SERVED_FOR: Duration = Duration::from_secs(30);

pub(crate) type DiscoveryCache = std::sync::Arc<tokio::sync::Mutex<Discovered>>;

impl Client {
    /// The API resource of `gvk` and its capabilities, `None` when the server does not serve
    /// it. Errors are those of the discovery requests other than "not found".
    pub(crate) async fn discover(
        &self,
        gvk: &GroupVersionKind,
    ) -> Result<Option<(ApiResource, ApiCapabilities)>, kube::Error> {
        let waiting_since = Instant::now();
        let mut known = self.discovery.lock().await;
        if let Some(hit) = known.served.get(gvk) {
            return Ok(Some(hit.clone()));
        }
        if let Some((at, failure)) = &known.unreachable
            && *at >= waiting_since
        {
            return Err(SharedFailure::error(failure));
        }
        // This client has made or changed CRDs since the discovery: their kinds may be new.
        let crd_writes = self.reads.writes.to(CRDS);
        if known.complete.is_some() && known.crd_writes != crd_writes {
            known.missing.clear();
            known.complete = None;
            known.after_invalidation = true;
        }
        let fresh = |at: &Instant| at.elapsed() < NOT_SERVED_FOR;
        if known.missing.get(gvk).is_some_and(fresh) {
            return Ok(None);
        }
        if !known.complete.as_ref().is_some_and(fresh) && !known.no_aggregated {
            match Discovery::new(self.kube.clone()).run_aggregated().await {
                Ok(all) => {
                    for group in all.groups() {
                        for version in group.versions() {
                            for (ar, caps) in group.versioned_resources(version) {
                                let kind = GroupVersionKind::gvk(&ar.group, &ar.version, &ar.kind);
                                known.served.insert(kind, (ar, caps));
                            }
                        }
                    }
                    known.complete = Some(Instant::now());
                    known.crd_writes = crd_writes;
                    if let Some(hit) = known.served.get(gvk) {
                        return Ok(Some(hit.clone()));
                    }
                }
                Err(e) if unreachable(&e) || is_404(&e) => {
                    let failure = Arc::new(if is_404(&e) {
                        kube::Error::Service(Box::new(NoApiServer {
                            server: self.server().to_string(),
                        }))
                    } else {
                        e
                    });
                    known.unreachable = Some((Instant::now(), failure.clone()));
                    return Err(SharedFailure::error(&failure));
                }
                Err(_) => known.no_aggregated = true,
            }
        }
        if known.complete.is_some() && !known.after_invalidation {
            return Ok(None);
        }
        match discovery::pinned_kind(&self.kube, gvk).await {
            Ok(found) => {
                known.served.insert(gvk.clone(), found.clone());
                Ok(Some(found))
            }
            // An unknown group version is a plain-text 404, which kube-rs wraps in a Status
            // with code 404 (and a reason of its own, so `is_not_found` misses it); a known one
            // without the kind is a discovery error.
            Err(kube::Error::Discovery(_)) => {
                known.missing.insert(gvk.clone(), Instant::now());
                Ok(None)
            }
            Err(kube::Error::Api(status)) if status.code == 404 => {
                known.missing.insert(gvk.clone(), Instant::now());
                Ok(None)
            }
            Err(e) if unreachable(&e) => {
                let failure = Arc::new(e);
                known.unreachable = Some((Instant::now(), failure.clone()));
                Err(SharedFailure::error(&failure))
            }
            Err(source) => Err(source),
        }
    }

    /// Forgets which kinds are not served: the install has just created CustomResourceDefinitions
    /// and their kinds are to be found at the next lookup. Kinds known to be served stay.
    /// A client that has not run discovery yet has nothing to forget, and its first discovery
    /// is taken as it is (no group version is asked on its own after it).
    pub async fn invalidate_discovery(&self) {
        let mut known = self.discovery.lock().await;
        known.missing.clear();
        if known.complete.take().is_some() {
            known.after_invalidation = true;
        }
    }
}
