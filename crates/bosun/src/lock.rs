//! The install lock as the commands use it (`cluster::Client::holding_install_lock`): how long
//! they wait and what a waiting command prints.

use std::io::Write;
use std::time::Duration;

/// How long `uninstall` waits for another command's lock (`install` waits up to its
/// `--readiness-timeout`).
pub const UNINSTALL_LOCK_WAIT: Duration = Duration::from_secs(300);

/// Printed once per holder while waiting for it.
pub fn print_waiting(holder: &cluster::LockHolder) {
    let _ = writeln!(
        std::io::stderr().lock(),
        "⏳ waiting for the install lock: {holder} (it frees itself {} s after its holder stops)",
        cluster::LEASE_DURATION.as_secs()
    );
}

/// `install::apply`'s lock, for `command` (`install`, `upgrade`).
pub fn for_command(command: &str) -> installer::InstallLock<'static> {
    installer::InstallLock {
        identity: cluster::lock_identity(command),
        on_wait: &print_waiting,
    }
}

/// Runs `work` holding Istio namespace `namespace`'s install lock as `command` (waiting up to
/// `wait` for another holder, saying whose): taken before `work`'s first read, renewed while
/// it runs (on `runtime`; `work` asks its questions with `crate::prompt::confirm_in`), and
/// released (its Lease deleted) when `work` ends, whether it wrote, was refused or was told
/// no.
pub fn holding<T>(
    runtime: &tokio::runtime::Runtime,
    client: &cluster::Client,
    namespace: &str,
    command: &str,
    wait: Duration,
    work: impl FnOnce(&cluster::HeldInstallLock) -> Result<T, crate::mesh::MeshFailure>,
) -> Result<T, crate::mesh::MeshFailure> {
    let held = runtime.block_on(client.take_install_lock(
        namespace,
        &cluster::lock_identity(command),
        wait,
        &print_waiting,
    ))?;
    let result = work(&held);
    runtime.block_on(held.release(client));
    result
}
