//! Leases (`coordination.k8s.io/v1`), held as client-go's leaderelection holds them: the holder
//! renews `renewTime` every few seconds; another takes the Lease over only after
//! `renewTime + leaseDurationSeconds` has passed. Every write carries the resourceVersion it
//! read, so two racing for an expired Lease cannot both win (one gets a conflict). The decision
//! is a pure function ([`decide`]); the I/O is a get and a create or replace.
//!
//! Two users: the operator's leader election (its loops live in `operator`, which logs), and
//! the install lock ([`Client::holding_install_lock`]): one `install`/`upgrade`/`uninstall` at a
//! time writes into an Istio namespace.

use std::time::Duration;

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, ObjectMeta, PostParams};

use crate::{Client, Error};
use vocab::ObjectRef;

/// Which Lease, who holds it (this replica, this command), and the timings.
#[derive(Debug, Clone)]
pub struct LeaseOptions {
    pub namespace: String,
    pub name: String,
    /// The holder: an operator replica (its pod name in a cluster), or a command.
    pub identity: String,
    /// How long a Lease not renewed stays the holder's.
    pub lease_duration: Duration,
    /// How often the holder renews (well under `lease_duration`).
    pub renew_every: Duration,
}

impl LeaseOptions {
    pub fn new(namespace: &str, name: &str, identity: &str) -> LeaseOptions {
        LeaseOptions {
            namespace: namespace.into(),
            name: name.into(),
            identity: identity.into(),
            lease_duration: Duration::from_secs(15),
            renew_every: Duration::from_secs(3),
        }
    }
}

/// What to do with the Lease as read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// There is none: create it, held by us.
    Create,
    /// We hold it: renew.
    Renew,
    /// Someone else held it and let it expire (or nobody holds it): take it over.
    TakeOver,
    /// Someone else holds it: wait.
    Wait,
}

/// Decides from the Lease's spec (`None`: no Lease) at time `now`.
pub fn decide(spec: Option<&LeaseSpec>, identity: &str, now: Timestamp) -> Decision {
    let Some(spec) = spec else {
        return Decision::Create;
    };
    let holder = spec.holder_identity.as_deref().unwrap_or("");
    if holder == identity {
        return Decision::Renew;
    }
    if holder.is_empty() {
        return Decision::TakeOver;
    }
    let duration_ms = i64::from(spec.lease_duration_seconds.unwrap_or(15)) * 1000;
    let renewed_ms = spec
        .renew_time
        .as_ref()
        .or(spec.acquire_time.as_ref())
        .map(|t| t.0.as_millisecond())
        .unwrap_or(0);
    if renewed_ms + duration_ms < now.as_millisecond() {
        Decision::TakeOver
    } else {
        Decision::Wait
    }
}

/// The Lease `namespace/name`, as errors and messages name it.
pub fn lease_ref(namespace: &str, name: &str) -> ObjectRef {
    ObjectRef {
        api_version: "coordination.k8s.io/v1".into(),
        kind: "Lease".into(),
        namespace: Some(namespace.into()),
        name: name.into(),
    }
}

fn kube_error(options: &LeaseOptions, action: &'static str) -> impl FnOnce(kube::Error) -> Error {
    let object = Box::new(lease_ref(&options.namespace, &options.name));
    move |source| Error::Api {
        object,
        action,
        source,
    }
}

fn is_conflict(e: &kube::Error) -> bool {
    matches!(e, kube::Error::Api(s) if s.code == 409)
}

/// One attempt: returns whether `options.identity` holds the Lease afterwards.
pub async fn try_acquire_or_renew(client: &Client, options: &LeaseOptions) -> Result<bool, Error> {
    Ok(matches!(
        attempt(client, options, None).await?,
        Attempt::Held(_)
    ))
}

/// What one attempt at the Lease found.
#[derive(Debug, Clone, PartialEq)]
pub enum Attempt {
    /// `options.identity` holds the Lease now: the Lease as the server answered the write.
    Held(Box<Lease>),
    /// Someone else holds it: the holder the attempt read (`None` when another writer won a
    /// race for it between the read and the write, so who holds it now was not read).
    Waiting { holder: Option<String> },
}

/// One attempt, as [`try_acquire_or_renew`], also saying who holds the Lease when it is not
/// this identity: the Lease read for the attempt is the one a waiter reports, so waiting costs
/// one read per attempt. A holder that renews passes `written`, the Lease as its last write
/// left it ([`Attempt::Held`]), instead of reading it first: the renewal carries that
/// resourceVersion, and if someone wrote the Lease since (a conflict), the attempt reads it and
/// decides again.
pub async fn attempt(
    client: &Client,
    options: &LeaseOptions,
    written: Option<&Lease>,
) -> Result<Attempt, Error> {
    if let Some(written) = written {
        match write_attempt(client, options, Some(written.clone())).await? {
            Attempt::Waiting { holder: None } => {}
            done => return Ok(done),
        }
    }
    let api: Api<Lease> = Api::namespaced(client.kube().clone(), &options.namespace);
    let current = api
        .get_opt(&options.name)
        .await
        .map_err(kube_error(options, "reading"))?;
    write_attempt(client, options, current).await
}

/// The write of an attempt given the Lease as last known (`None`: there is none); a conflict
/// (someone else wrote first) is `Waiting` with no holder.
async fn write_attempt(
    client: &Client,
    options: &LeaseOptions,
    current: Option<Lease>,
) -> Result<Attempt, Error> {
    let raced = || Attempt::Waiting { holder: None };
    let api: Api<Lease> = Api::namespaced(client.kube().clone(), &options.namespace);
    let now = Timestamp::now();
    let duration_secs = i32::try_from(options.lease_duration.as_secs()).unwrap_or(i32::MAX);
    match decide(
        current.as_ref().and_then(|l| l.spec.as_ref()),
        &options.identity,
        now,
    ) {
        Decision::Wait => Ok(Attempt::Waiting {
            holder: current
                .and_then(|l| l.spec?.holder_identity)
                .filter(|h| !h.is_empty()),
        }),
        Decision::Create => {
            let lease = Lease {
                metadata: ObjectMeta {
                    name: Some(options.name.clone()),
                    namespace: Some(options.namespace.clone()),
                    ..Default::default()
                },
                spec: Some(LeaseSpec {
                    holder_identity: Some(options.identity.clone()),
                    lease_duration_seconds: Some(duration_secs),
                    acquire_time: Some(MicroTime(now)),
                    renew_time: Some(MicroTime(now)),
                    lease_transitions: Some(0),
                    ..Default::default()
                }),
            };
            match api.create(&PostParams::default(), &lease).await {
                Ok(lease) => Ok(Attempt::Held(Box::new(lease))),
                Err(e) if is_conflict(&e) => Ok(raced()),
                Err(e) => Err(kube_error(options, "creating")(e)),
            }
        }
        decision @ (Decision::Renew | Decision::TakeOver) => {
            let mut lease = current.expect("a Lease to renew or take over");
            let spec = lease.spec.get_or_insert_with(Default::default);
            spec.renew_time = Some(MicroTime(now));
            spec.lease_duration_seconds = Some(duration_secs);
            if decision == Decision::TakeOver {
                spec.holder_identity = Some(options.identity.clone());
                spec.acquire_time = Some(MicroTime(now));
                spec.lease_transitions = Some(spec.lease_transitions.unwrap_or(0) + 1);
            }
            // `replace` sends the resourceVersion read above: a concurrent writer makes it 409.
            match api
                .replace(&options.name, &PostParams::default(), &lease)
                .await
            {
                Ok(lease) => Ok(Attempt::Held(Box::new(lease))),
                Err(e) if is_conflict(&e) => Ok(raced()),
                Err(e) => Err(kube_error(options, "renewing")(e)),
            }
        }
    }
}

/// Gives the Lease up on a clean shutdown (client-go's `ReleaseOnCancel`): the holder is
/// cleared, so a waiting replica takes over at its next attempt (within `renew_every`) instead
/// of after the whole `lease_duration`, and a rolling update of the operator leaves IstioOperators
/// unreconciled for seconds, not a quarter of a minute. Only a Lease this replica still holds
/// is touched; a conflict means someone else wrote it first, which is as good.
pub async fn release(client: &Client, options: &LeaseOptions) -> Result<(), Error> {
    let api: Api<Lease> = Api::namespaced(client.kube().clone(), &options.namespace);
    let Some(mut lease) = api
        .get_opt(&options.name)
        .await
        .map_err(kube_error(options, "reading"))?
    else {
        return Ok(());
    };
    let spec = lease.spec.get_or_insert_with(Default::default);
    if spec.holder_identity.as_deref() != Some(options.identity.as_str()) {
        return Ok(());
    }
    spec.holder_identity = None;
    spec.renew_time = Some(MicroTime(Timestamp::now()));
    match api
        .replace(&options.name, &PostParams::default(), &lease)
        .await
    {
        Ok(_) => Ok(()),
        Err(e) if is_conflict(&e) => Ok(()),
        Err(e) => Err(kube_error(options, "releasing")(e)),
    }
}

/// Deletes the Lease if `options.identity` still holds it (a lock given up for good, leaving
/// no trace); the delete carries the resourceVersion of `written` (the Lease as this holder's
/// last write left it) or, without it or when someone wrote the Lease since, of the Lease read
/// now, so a Lease someone else took over in between stays.
pub async fn delete_if_held(
    client: &Client,
    options: &LeaseOptions,
    written: Option<&Lease>,
) -> Result<(), Error> {
    let api: Api<Lease> = Api::namespaced(client.kube().clone(), &options.namespace);
    if let Some(written) = written {
        match delete_version(&api, options, written).await {
            Err(e) if is_conflict(&e) => {}
            done => return done.map_err(kube_error(options, "deleting")),
        }
    }
    let Some(lease) = api
        .get_opt(&options.name)
        .await
        .map_err(kube_error(options, "reading"))?
    else {
        return Ok(());
    };
    let holder = lease
        .spec
        .as_ref()
        .and_then(|s| s.holder_identity.as_deref());
    if holder != Some(options.identity.as_str()) {
        return Ok(());
    }
    match delete_version(&api, options, &lease).await {
        Err(e) if is_conflict(&e) => Ok(()),
        done => done.map_err(kube_error(options, "deleting")),
    }
}

/// Deletes the Lease if it is still `lease` (its resourceVersion and uid); one gone already
/// is as good.
async fn delete_version(
    api: &Api<Lease>,
    options: &LeaseOptions,
    lease: &Lease,
) -> Result<(), kube::Error> {
    let params = kube::api::DeleteParams {
        preconditions: Some(kube::api::Preconditions {
            resource_version: lease.metadata.resource_version.clone(),
            uid: lease.metadata.uid.clone(),
        }),
        ..Default::default()
    };
    match api.delete(&options.name, &params).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(s)) if s.code == 404 => Ok(()),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(holder: &str, renewed: Timestamp) -> LeaseSpec {
        LeaseSpec {
            holder_identity: Some(holder.into()),
            lease_duration_seconds: Some(15),
            renew_time: Some(MicroTime(renewed)),
            ..Default::default()
        }
    }

    #[test]
    fn decisions() {
        let now = Timestamp::from_second(1_000_000).unwrap();
        let recent = Timestamp::from_second(1_000_000 - 5).unwrap();
        let stale = Timestamp::from_second(1_000_000 - 16).unwrap();
        assert_eq!(decide(None, "a", now), Decision::Create);
        assert_eq!(decide(Some(&spec("a", stale)), "a", now), Decision::Renew);
        assert_eq!(decide(Some(&spec("b", recent)), "a", now), Decision::Wait);
        assert_eq!(
            decide(Some(&spec("b", stale)), "a", now),
            Decision::TakeOver
        );
        assert_eq!(
            decide(Some(&spec("", recent)), "a", now),
            Decision::TakeOver
        );
    }
}
