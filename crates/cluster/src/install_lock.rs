//! One writer per Istio namespace. `install`/`upgrade` and `uninstall` hold a Lease while they
//! write, so two of them started at once run one after the other instead of interleaving their
//! writes (two installs at once used to both report success with one's Deployment and the
//! other's mesh ConfigMap in the cluster). `install` takes it before its checks and holds it
//! through the confirmation prompt and the writes ([`HeldInstallLock`]), as Terraform holds its
//! state lock through plan, approval and apply: what it checked is what it writes over, and
//! the reads of the checks serve the writes (`crate::reads`). Commands that write nothing
//! (`plan`, `install --plan`/`--dry-run`, `precheck`, `verify-install`) take no lock.
//!
//! The Lease is `kube-system/bosun-install.<istio namespace>`: kube-system always exists, so
//! the first install locks before its namespace does, and nothing is written into the Istio
//! namespace. It is renewed while the work runs and deleted when the work ends, so no trace
//! is left; a holder that dies stops renewing and the Lease is free [`LEASE_DURATION`] later,
//! so a killed install delays the next one by at most that.
//! istioctl has no such lock; Helm marks its release `pending-install` and refuses a second
//! operation, where this one waits (up to the caller's bound) and says for whom.

use std::future::Future;
use std::time::{Duration, Instant};

use k8s_openapi::api::coordination::v1::Lease;
use kube::api::Api;

use crate::lease::{self, LeaseOptions};
use crate::{Client, Error};
use vocab::ObjectRef;

/// Where the Leases are: a namespace every cluster has.
pub const LOCK_NAMESPACE: &str = "kube-system";

/// The Lease that locks Istio namespace `istio_namespace`.
pub fn install_lock_name(istio_namespace: &str) -> String {
    format!("bosun-install.{istio_namespace}")
}

/// How long a Lease whose holder stopped renewing keeps others out.
pub const LEASE_DURATION: Duration = Duration::from_secs(15);
const RENEW_EVERY: Duration = Duration::from_secs(4);
const RETRY_EVERY: Duration = Duration::from_secs(1);

/// A lock holder's identity: the command, the host and the process, so that a waiting user
/// can tell whose install it is (`bosun install on HOST (pid N)`).
pub fn lock_identity(command: &str) -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "an unknown host".to_string());
    format!("bosun {command} on {host} (pid {})", std::process::id())
}

/// Who holds the install lock, as a waiter sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockHolder {
    /// The Lease (`Lease kube-system/bosun-install.<Istio namespace>`).
    pub lease: ObjectRef,
    /// What the holder wrote as its identity: the command, host and process.
    pub holder: String,
}

impl std::fmt::Display for LockHolder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} is held by {:?}", self.lease, self.holder)
    }
}

/// The Lease that locks Istio namespace `istio_namespace`, as errors and messages name it.
fn lease_ref(istio_namespace: &str) -> ObjectRef {
    lease::lease_ref(LOCK_NAMESPACE, &install_lock_name(istio_namespace))
}

/// The install lock, held: taken by [`Client::take_install_lock`], renewed by a task on the
/// client's runtime every [`RENEW_EVERY`] until [`HeldInstallLock::release`] deletes the Lease.
/// A command holds it from its first check to its last write, so what it read for the checks
/// (and the confirmation it asked for) stays true until it writes: no other bosun writes into
/// the Istio namespace in between. The renewal runs whenever the runtime runs: a command that
/// waits on something else meanwhile (a confirmation prompt) waits inside the runtime
/// (`spawn_blocking`), or the Lease expires [`LEASE_DURATION`] after its last renewal.
/// Dropped without `release`, the renewal stops and the Lease frees itself that long after.
pub struct HeldInstallLock {
    /// The Istio namespace it locks.
    namespace: String,
    options: LeaseOptions,
    /// The Lease as this holder last wrote it: renewals and the delete carry its
    /// resourceVersion instead of reading the Lease first (`lease::attempt`).
    written: std::sync::Arc<std::sync::Mutex<Option<Lease>>>,
    /// Tells the renewal to stop between renewals (one under way is finished first, so the
    /// delete carries the resourceVersion it wrote).
    stop: std::sync::Arc<tokio::sync::Notify>,
    renewing: tokio::task::JoinHandle<()>,
}

impl HeldInstallLock {
    /// The Istio namespace this lock is for.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// Stops renewing and deletes the Lease (if this holder still holds it), leaving no trace.
    /// Not releasing only delays the next holder by [`LEASE_DURATION`]: a failure here is not
    /// reported (a finished install is not failed for it). The release gets time of its own
    /// past the command's deadline (the work may have ended because it passed).
    pub async fn release(mut self, client: &Client) {
        client.extend_deadline(RENEW_EVERY);
        // A renewal under way is let finish (so the delete carries the resourceVersion it
        // wrote), but for a second at most: a server that stopped answering is not waited for
        // twice (the delete then reads the Lease first).
        self.stop.notify_one();
        if tokio::time::timeout(Duration::from_secs(1), &mut self.renewing)
            .await
            .is_err()
        {
            self.renewing.abort();
        }
        let written = self.written.lock().expect("the lock's Lease").clone();
        let _ = lease::delete_if_held(client, &self.options, written.as_ref()).await;
    }
}

impl Drop for HeldInstallLock {
    fn drop(&mut self) {
        self.renewing.abort();
    }
}

impl Client {
    /// Runs `work` holding the install lock of Istio namespace `namespace` as `identity` (say
    /// what runs where: `bosun install on HOST (pid N)`), taken as [`Client::take_install_lock`]
    /// takes it. The lock is released when `work` ends, whatever its outcome.
    pub async fn holding_install_lock<T, E>(
        &self,
        namespace: &str,
        identity: &str,
        wait: Duration,
        on_wait: &(dyn Fn(&LockHolder) + Sync),
        work: impl Future<Output = Result<T, E>>,
    ) -> Result<T, E>
    where
        E: From<Error>,
    {
        let held = self
            .take_install_lock(namespace, identity, wait, on_wait)
            .await?;
        let result = work.await;
        held.release(self).await;
        result
    }

    /// Takes the install lock of Istio namespace `namespace` as `identity`. While another
    /// holds it, `on_wait` is called with the holder and this waits, up to `wait`; then
    /// [`Error::Timeout`] names the holder. Once held, it is renewed in the background (a task
    /// spawned on the current tokio runtime) until [`HeldInstallLock::release`].
    ///
    /// Every shared list and what discovery found missing are forgotten once it is held: they
    /// may predate another command's writes (an uninstall waiting for an install would miss
    /// what, and which kinds, it created). So a command takes it before its checks, whose
    /// reads then serve it through its last write.
    pub async fn take_install_lock(
        &self,
        namespace: &str,
        identity: &str,
        wait: Duration,
        on_wait: &(dyn Fn(&LockHolder) + Sync),
    ) -> Result<HeldInstallLock, Error> {
        let options = LeaseOptions {
            namespace: LOCK_NAMESPACE.into(),
            name: install_lock_name(namespace),
            identity: identity.into(),
            lease_duration: LEASE_DURATION,
            renew_every: RENEW_EVERY,
        };
        let lease = self
            .acquire_install_lock(namespace, &options, wait, on_wait)
            .await?;
        let written = std::sync::Arc::new(std::sync::Mutex::new(Some(lease)));
        self.forget_shared_lists().await;
        self.invalidate_discovery().await;
        let stop = std::sync::Arc::new(tokio::sync::Notify::new());
        let renewing = {
            let (client, options, written) = (self.clone(), options.clone(), written.clone());
            let stop = stop.clone();
            tokio::spawn(async move {
                loop {
                    tokio::select! {
                        _ = tokio::time::sleep(RENEW_EVERY) => {}
                        _ = stop.notified() => return,
                    }
                    // A failed renewal is retried at the next tick; the work is not
                    // interrupted half-way (that would leave the very mixed state the lock
                    // prevents).
                    let last = written.lock().expect("the lock's Lease").clone();
                    let renewed = lease::attempt(&client, &options, last.as_ref()).await;
                    *written.lock().expect("the lock's Lease") = match renewed {
                        Ok(lease::Attempt::Held(lease)) => Some(*lease),
                        _ => None,
                    };
                }
            })
        };
        Ok(HeldInstallLock {
            namespace: namespace.into(),
            options,
            written,
            stop,
            renewing,
        })
    }

    async fn acquire_install_lock(
        &self,
        namespace: &str,
        options: &LeaseOptions,
        wait: Duration,
        on_wait: &(dyn Fn(&LockHolder) + Sync),
    ) -> Result<k8s_openapi::api::coordination::v1::Lease, Error> {
        let started = Instant::now();
        let mut told = None::<String>;
        loop {
            // The attempt's own read says who holds it: no second read per attempt.
            let holder = match lease::attempt(self, options, None).await? {
                lease::Attempt::Held(lease) => return Ok(*lease),
                lease::Attempt::Waiting { holder } => holder.map(|holder| LockHolder {
                    lease: lease_ref(namespace),
                    holder,
                }),
            };
            if let Some(holder) = &holder
                && told.as_deref() != Some(holder.holder.as_str())
            {
                if told.is_none() {
                    // Waiting for another command: that wait adds its own time to this
                    // command's deadline.
                    self.extend_deadline(wait);
                }
                on_wait(holder);
                told = Some(holder.holder.clone());
            }
            if started.elapsed() >= wait {
                return Err(Error::Timeout {
                    what: format!(
                        "the install lock ({})",
                        holder
                            .map(|h| h.to_string())
                            .unwrap_or_else(|| lease_ref(namespace).to_string())
                    ),
                    condition: "released",
                    waited: started.elapsed(),
                    last: Some(format!(
                        "another bosun is installing or uninstalling in namespace {}; if it died, \
                         the lock frees itself {} s after its last renewal",
                        namespace,
                        LEASE_DURATION.as_secs()
                    )),
                });
            }
            tokio::time::sleep(RETRY_EVERY).await;
        }
    }

    /// The holder of Istio namespace `namespace`'s install lock, if it is held.
    pub async fn install_lock_holder(&self, namespace: &str) -> Result<Option<LockHolder>, Error> {
        let api: Api<Lease> = Api::namespaced(self.kube().clone(), LOCK_NAMESPACE);
        let lease = api
            .get_opt(&install_lock_name(namespace))
            .await
            .map_err(|source| Error::Api {
                object: Box::new(lease_ref(namespace)),
                action: "reading",
                source,
            })?;
        Ok(lease
            .and_then(|l| l.spec?.holder_identity)
            .filter(|h| !h.is_empty())
            .map(|holder| LockHolder {
                lease: lease_ref(namespace),
                holder,
            }))
    }
}
