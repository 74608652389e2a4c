//! What `install` does after applying: prune of what the installation no longer renders
//! (`cluster`; what the installation owns comes from `pipeline::install`), printing each
//! object removed.

use std::io::Write;

use crate::mesh::MeshFailure;

/// After a successful apply: prunes what the installation no longer renders, printing each
/// removed object. Returns the pruned objects.
pub async fn prune(
    client: &cluster::Client,
    installation: &vocab::Installation,
    installed: &cluster::InstallReport,
) -> Result<Vec<cluster::Deleted>, MeshFailure> {
    client
        .prune_after_install(installation, installed, &mut print_deleted)
        .await
        .map_err(|e| MeshFailure(format!("pruning: {e}")))
}

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
