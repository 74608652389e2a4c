//! `bosun uninstall`: istioctl's `uninstall` (`operator/cmd/mesh/uninstall.go`). Selects what to
//! remove (`--purge`: everything Istio-owned, CRDs included; `--revision R` or `-f IOP`: that
//! control plane's components except Base), lists it, asks, deletes in a safe order through
//! `cluster`, and reports each removed object.
//!
//! Where bosun differs from istioctl, on purpose:
//! - The revision selected is `--revision`, else the one the inputs set (`--set revision=R`, or
//!   the file's `spec.revision`), else `default`. istioctl passes only the `--revision` flag on,
//!   so `uninstall --set revision=R` or `-f` without a revision selects the components of every
//!   revision owned by that namespace, which is not what was asked for.
//! - The objects are always listed (istioctl lists them only with `--verbose`), and the removal
//!   is always confirmed unless `-y` (istioctl asks only for purge, gateways and proxies); there
//!   is no proxy check, which needs istiod.
//! - `--revision R` with nothing labelled with that revision fails with istioctl's "could not
//!   find target revision" (istioctl looks the revision up in the cluster first).
//! - Uninstalling one control plane (not `--purge`) is refused while its revision is in use: a
//!   revision tag points at it, a namespace selects it, or pods run its proxy (their
//!   `istio.io/rev` annotation; `assess::revisions` decides), unless an istiod of the same
//!   revision stays in another namespace. A tag the uninstall deletes with the control plane
//!   (the default tag its own install made) counts only while another revision's istiod stays,
//!   which it would leave without a default tag (istioctl deletes it silently); the refusal
//!   says how to move it there. The refusal lists them; `--force` proceeds with a warning. istioctl only asks istiod how many proxies it serves (and asks
//!   to confirm), which needs a reachable istiod and misses tags and namespaces.

use std::io::Write;

use clap::Args;

use crate::mesh::{InputArgs, MeshFailure};

/// istioctl's warnings, word for word.
const ALL_RESOURCES_REMOVED_WARNING: &str = "All Istio resources will be pruned from the cluster";
const NO_RESOURCES_REMOVED_WARNING: &str =
    "No resources will be pruned from the cluster. Please double check the input configs";
const PURGE_WITH_REVISION_OR_OPERATOR_SPECIFIED_WARNING: &str = "Purge uninstall will remove all Istio resources, ignoring the specified revision or operator file";

#[derive(Args, Debug)]
pub struct UninstallArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub cluster: crate::target::ClusterArgs,
    /// Delete all Istio related resources for all versions, CRDs included.
    #[arg(long)]
    pub purge: bool,
    /// Do not ask for confirmation (required when stdin is not a terminal).
    #[arg(short = 'y', long = "skip-confirmation")]
    pub yes: bool,
    /// List what would be deleted, and delete nothing.
    #[arg(long = "dry-run")]
    pub dry_run: bool,
    /// The longest the deletion may spend on the API server's requests (waiting for another
    /// command's install lock adds its own time). A duration (5m, 90s) or whole seconds; 0 is
    /// no limit.
    #[arg(long = "timeout", value_name = "DURATION", default_value = "5m", value_parser = crate::target::deadline)]
    pub timeout: crate::target::Deadline,
    /// Uninstall the revision even while tags, namespaces or pods still use it.
    #[arg(long)]
    pub force: bool,
    /// Fail, instead of warning, when the Helm release records bosun wrote cannot be read.
    /// They are removed either way: those of the revision's components but Base (all of
    /// them with --purge).
    #[arg(long = "helm-releases")]
    pub helm_releases: bool,
}

/// The most pods a refusal names (istioctl names proxies up to 30 too); the rest are counted.
const MAX_PODS_NAMED: usize = 30;

/// Refuses (or with `force` warns) when the revision of `scope` is still in use (see the module
/// docs). Only reads the cluster.
pub(crate) fn check_in_use(
    runtime: &tokio::runtime::Runtime,
    client: &cluster::Client,
    scope: &cluster::UninstallScope,
    candidates: &[cluster::OwnedObject],
    force: bool,
) -> Result<(), MeshFailure> {
    let cluster::UninstallScope::ControlPlane { labels, .. } = scope else {
        return Ok(());
    };
    let Some(revision) = labels.get(vocab::labels::REVISION_LABEL) else {
        return Ok(());
    };
    let inventory = match runtime.block_on(client.revisions()) {
        Ok(inventory) => inventory,
        Err(e) if force => {
            let _ = writeln!(
                std::io::stderr().lock(),
                "❗ could not check whether revision {revision} is in use ({e}); continuing because of --force"
            );
            return Ok(());
        }
        Err(e) => {
            return Err(MeshFailure(format!(
                "cannot tell whether revision {revision} is still in use: {e}\npass --force to uninstall without this check"
            )));
        }
    };
    // The istiod Deployments this uninstall removes, by namespace.
    let removed_from: Vec<String> = candidates
        .iter()
        .filter(|c| c.object.kind == "Deployment" && c.component.as_deref() == Some("Pilot"))
        .filter_map(|c| c.object.namespace.clone())
        .collect();
    let removed: Vec<String> = candidates.iter().map(|c| c.object.to_string()).collect();
    let uses = assess::revisions::uses_left_without_control_plane(
        &inventory,
        revision,
        &removed_from,
        &removed,
        MAX_PODS_NAMED,
    );
    if uses.is_empty() {
        return Ok(());
    }
    let listed: String = uses.iter().map(|u| format!("\n  {u}")).collect();
    if force {
        let _ = writeln!(
            std::io::stderr().lock(),
            "❗ revision {revision} is still in use; continuing because of --force:{listed}"
        );
        return Ok(());
    }
    Err(MeshFailure(format!(
        "revision {revision} is still in use; uninstalling it would leave these without a control plane:{listed}\nmove them to another revision first (point the tags elsewhere, relabel the namespaces, restart the pods; `bosun revision list` shows what uses each revision), or pass --force to uninstall anyway"
    )))
}

/// The revision the inputs name, for the "at least one of" check: `--revision`, or a
/// `--set revision=…` flag.
fn revision_flag(input: &InputArgs) -> Option<String> {
    if let Some(r) = input.revision.as_deref().filter(|r| !r.is_empty()) {
        return Some(r.to_string());
    }
    input.set.iter().rev().find_map(|flag| {
        let (path, value) = iop::tree::split_set_flag(flag);
        (path == "revision" || path == "spec.revision")
            .then_some(value)
            .filter(|v| !v.is_empty())
    })
}

fn ask(question: &str) -> Result<(), MeshFailure> {
    crate::prompt::confirm("uninstall", question)
}

/// The Deployments among `objects` that are gateways (their name says so, as istioctl judges).
fn gateways(objects: &[cluster::OwnedObject]) -> Vec<&str> {
    objects
        .iter()
        .filter(|o| o.object.kind == "Deployment" && o.object.name.contains("gateway"))
        .map(|o| o.object.name.as_str())
        .collect()
}

/// What to select (`--purge`, or one control plane from the merged inputs), and the Istio
/// namespace whose install lock the uninstall takes.
fn scope(args: &UninstallArgs) -> Result<(cluster::UninstallScope, String), MeshFailure> {
    if args.purge {
        let namespace = vocab::DEFAULT_ISTIO_NAMESPACE.to_string();
        return Ok((cluster::UninstallScope::Purge, namespace));
    }
    let files = crate::mesh::read_inputs(&args.input.filenames)?;
    let flags = crate::mesh::set_flags(&args.input, &files)?;
    let packages = crate::mesh::packages();
    let (merged, _) = pipeline::merge_inputs(&files, &flags, &packages)?;
    let revision = revision_flag(&args.input);
    let scope = installer::uninstall::of_istio_operator(&merged, revision.as_deref());
    Ok((scope, merged.istio_namespace().to_string()))
}

pub fn uninstall(
    args: UninstallArgs,
    runtime: &crate::runtime::Runtime,
) -> Result<(), MeshFailure> {
    let revision = revision_flag(&args.input);
    if revision.is_none() && args.input.filenames.is_empty() && !args.purge {
        return Err(MeshFailure(
            "at least one of the --revision (or --set revision=<revision>), --filename or --purge flags must be set".to_string(),
        ));
    }
    let mut stdout = std::io::stdout().lock();
    if args.purge && (args.input.revision.is_some() || !args.input.filenames.is_empty()) {
        let _ = writeln!(
            stdout,
            "{PURGE_WITH_REVISION_OR_OPERATOR_SPECIFIED_WARNING}"
        );
    }
    let (scope, lock_namespace) = scope(&args)?;
    let runtime = runtime.get()?;
    let (client, candidates, records, marks) = runtime.block_on(async {
        let client = args.cluster.client().await?;
        let candidates = client.uninstall_candidates(&scope).await?;
        // Read (and checked to be helm's format) before anything is deleted. Looked for by
        // every uninstall, as a plain install keeps recording what bosun recorded: left, the
        // records would show helm releases as deployed whose objects are gone.
        let revision = match &scope {
            cluster::UninstallScope::Purge => None,
            cluster::UninstallScope::ControlPlane { labels, .. } => labels
                .get(vocab::labels::REVISION_LABEL)
                .map(String::as_str),
        };
        let records = match installer::helm_releases::owned_records(&client, revision).await {
            Ok(records) => records,
            // Someone allowed to remove Istio but not to list Secrets: asked for nothing about
            // records, they are not stopped by them.
            Err(installer::helm_releases::HelmReleaseError::Cluster(e))
                if !args.helm_releases && !args.purge && e.is_forbidden() =>
            {
                let _ = writeln!(
                    std::io::stderr().lock(),
                    "❗ could not look for Helm release records bosun wrote ({e}); any there are left in place"
                );
                Vec::new()
            }
            Err(e) => return Err(e.into()),
        };
        let marks = match args.purge {
            true => mesh_marks(&client, &candidates).await?,
            false => Vec::new(),
        };
        Ok::<_, MeshFailure>((client, candidates, records, marks))
    })?;

    if candidates.is_empty() && records.is_empty() {
        if let Some(r) = args.input.revision.as_deref().filter(|_| !args.purge) {
            return Err(MeshFailure(format!("could not find target revision {r}")));
        }
        let _ = writeln!(stdout, "{NO_RESOURCES_REMOVED_WARNING}");
        return Ok(());
    }
    check_in_use(runtime, &client, &scope, &candidates, args.force)?;
    if args.purge {
        let _ = writeln!(stdout, "{ALL_RESOURCES_REMOVED_WARNING}");
    }
    let _ = writeln!(
        stdout,
        "The following {} will be removed from the cluster:",
        if candidates.len() == 1 {
            "resource".to_string()
        } else {
            format!("{} resources", candidates.len())
        }
    );
    for c in &candidates {
        let _ = writeln!(stdout, "  {c}");
    }
    for r in &records {
        let _ = writeln!(
            stdout,
            "  Helm release record Secret {}/{} (release {}, revision {})",
            r.namespace,
            r.secret,
            r.name().unwrap_or_default(),
            r.version().unwrap_or_default()
        );
    }
    for m in &marks {
        let _ = writeln!(stdout, "  {m} (set by bosun mesh install)");
    }
    let gateways = gateways(&candidates);
    if !args.purge && !gateways.is_empty() {
        let _ = writeln!(
            stdout,
            "You are about to remove the following gateways: {}. To avoid downtime, please quit this command and reinstall the gateway(s) with a revision that is not being removed from the cluster.",
            gateways.join(", ")
        );
    }
    if args.dry_run {
        let _ = writeln!(stdout, "Dry run: nothing was removed.");
        return Ok(());
    }
    drop(stdout);
    if !args.yes {
        ask("Proceed? (y/N)")?;
    }
    args.timeout.set_on(&client);
    // Under the install lock (cluster::install_lock), what to delete is read again: an
    // install that held the lock meanwhile may have added objects of this scope.
    let deleted = runtime
        .block_on(client.holding_install_lock(
            &lock_namespace,
            &cluster::lock_identity("uninstall"),
            crate::lock::UNINSTALL_LOCK_WAIT,
            &crate::lock::print_waiting,
            async {
                let candidates = client.uninstall_candidates(&scope).await?;
                client
                    .delete_owned(&candidates, &mut crate::owned::print_deleted)
                    .await
            },
        ))
        .map_err(|e| MeshFailure(format!("failed to delete control plane resources: {e}")))?;
    runtime
        .block_on(installer::helm_releases::delete_records(&client, &records))
        .map_err(|e| MeshFailure(format!("failed to delete helm release records: {e}")))?;
    runtime
        .block_on(client.remove_namespace_metadata(&marks, installer::FIELD_MANAGER))
        .map_err(|e| MeshFailure(format!("failed to remove the mesh's namespace labels: {e}")))?;
    for m in &marks {
        let _ = writeln!(std::io::stdout().lock(), "  Removed {m}.");
    }
    let removed = deleted
        .iter()
        .filter(|d| d.outcome == cluster::DeleteOutcome::Deleted)
        .count()
        + records.len()
        + marks.len();
    let _ = writeln!(
        std::io::stdout().lock(),
        "✔ Uninstall complete ({removed} removed)"
    );
    Ok(())
}

/// What `mesh install` writes on an Istio namespace besides the install, that `--purge` takes
/// off again: the network label (`--network`) and a remote's control-plane annotation, in
/// each namespace a purged object lives in, when bosun alone wrote them (a label another
/// manager wrote or changed too stays).
async fn mesh_marks(
    client: &cluster::Client,
    candidates: &[cluster::OwnedObject],
) -> Result<Vec<cluster::NamespaceKey>, MeshFailure> {
    let namespaces: std::collections::BTreeSet<&str> = candidates
        .iter()
        .filter_map(|c| c.object.namespace.as_deref())
        .collect();
    let mut out = Vec::new();
    for namespace in namespaces {
        out.extend(
            client
                .namespace_metadata_owned_by(
                    namespace,
                    &[installer::mesh::NETWORK_LABEL],
                    &[manifest::primary_remote::CONTROL_PLANE_CLUSTERS],
                    installer::FIELD_MANAGER,
                )
                .await?,
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(revision: Option<&str>, set: &[&str]) -> InputArgs {
        InputArgs {
            filenames: Vec::new(),
            set: set.iter().map(|s| s.to_string()).collect(),
            manifests: None,
            package: Default::default(),
            revision: revision.map(str::to_string),
        }
    }

    #[test]
    fn revision_from_flag_or_set() {
        assert_eq!(
            revision_flag(&input(Some("a"), &["revision=b"])).as_deref(),
            Some("a")
        );
        assert_eq!(
            revision_flag(&input(None, &["revision=b"])).as_deref(),
            Some("b")
        );
        assert_eq!(
            revision_flag(&input(None, &["spec.revision=c"])).as_deref(),
            Some("c")
        );
        assert_eq!(revision_flag(&input(None, &["profile=minimal"])), None);
        assert_eq!(revision_flag(&input(Some(""), &[])), None);
    }

    #[test]
    fn gateway_deployments_by_name() {
        let owned = |kind: &str, name: &str| cluster::OwnedObject {
            object: vocab::ObjectRef {
                api_version: "apps/v1".into(),
                kind: kind.into(),
                namespace: Some("ns".into()),
                name: name.into(),
            },
            component: None,
            uid: None,
        };
        let objects = [
            owned("Deployment", "istiod"),
            owned("Deployment", "istio-ingressgateway"),
            owned("Service", "istio-egressgateway"),
        ];
        assert_eq!(gateways(&objects), ["istio-ingressgateway"]);
    }
}
