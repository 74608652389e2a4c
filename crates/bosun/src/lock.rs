//! The install lock as the commands use it (`cluster::Client::holding_install_lock`): who this
//! process is, and what a waiting command prints.

use std::io::Write;
use std::time::Duration;

/// How long `uninstall` waits for another command's lock (`install` waits up to its
/// `--readiness-timeout`).
pub const UNINSTALL_LOCK_WAIT: Duration = Duration::from_secs(300);

/// The lock holder's identity: the command, the host and the process, so that a waiting user
/// can tell whose install it is.
pub fn identity(command: &str) -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "an unknown host".to_string());
    format!("bosun {command} on {host} (pid {})", std::process::id())
}

/// Printed once per holder while waiting for it.
pub fn print_waiting(holder: &cluster::LockHolder) {
    let _ = writeln!(
        std::io::stderr().lock(),
        "⏳ waiting for the install lock: {holder} (it frees itself {} s after its holder stops)",
        cluster::LEASE_DURATION.as_secs()
    );
}
