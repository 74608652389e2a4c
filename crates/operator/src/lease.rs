//! Leader election for `operator run`: the replicas compete for one Lease (the reads and writes,
//! and the decision, are `cluster::lease`); this module waits for it, keeps renewing it and
//! logs what happens.

use cluster::lease::try_acquire_or_renew;
pub use cluster::lease::{LeaseOptions, release};

use crate::Error;
use crate::log::log;

/// Waits until this replica holds the Lease. Transient API errors are retried.
pub async fn acquire(client: &cluster::Client, options: &LeaseOptions) -> Result<(), Error> {
    loop {
        match try_acquire_or_renew(client, options).await {
            Ok(true) => return Ok(()),
            Ok(false) => {}
            Err(e) => log("warn", "leader election", &[("error", &e)]),
        }
        tokio::time::sleep(options.renew_every).await;
    }
}

/// Renews the Lease until it is lost: another replica holds it, or renewals failed for longer
/// than the lease duration (others may have taken it over by then). Returns when lost.
pub async fn hold(client: &cluster::Client, options: &LeaseOptions) {
    let mut last_renewal = std::time::Instant::now();
    loop {
        tokio::time::sleep(options.renew_every).await;
        match try_acquire_or_renew(client, options).await {
            Ok(true) => last_renewal = std::time::Instant::now(),
            Ok(false) => {
                log(
                    "warn",
                    "lost leadership: another replica holds the Lease",
                    &[("identity", &options.identity)],
                );
                return;
            }
            Err(e) => {
                // Stop before the Lease can expire, so two leaders never overlap.
                if last_renewal.elapsed() + options.renew_every >= options.lease_duration {
                    log(
                        "error",
                        "lost leadership: could not renew the Lease in time",
                        &[("error", &e)],
                    );
                    return;
                }
                log("warn", "renewing the Lease failed", &[("error", &e)]);
            }
        }
    }
}
