//! Printing what prune and uninstall removed (the prune itself is `installer::Install::apply`'s
//! and `cluster`'s).

use std::io::Write;

/// One line per deleted object, as istioctl words it (`  Removed Deployment ns/name.`).
pub fn print_deleted(d: &cluster::Deleted) {
    let mut stdout = std::io::stdout().lock();
    let _ = match d.outcome {
        cluster::DeleteOutcome::Deleted => writeln!(stdout, "  Removed {}.", d.object),
        cluster::DeleteOutcome::AlreadyGone => {
            writeln!(stdout, "  {} was already gone.", d.object)
        }
    };
}
