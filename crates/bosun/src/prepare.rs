//! What `install`, `plan` and `verify-install` start from: the inputs rendered exactly as
//! `manifest generate` renders them (so everything that can fail without the cluster fails
//! before the first request), each component's objects in apply order with istioctl's owner
//! labels, what the installation owns (for prune), and a cluster client;
//! plus the read-only checks they share.

use std::io::Write;

use crate::install::FIELD_MANAGER;
use crate::mesh::MeshFailure;

/// The rendered install and a client for the cluster: what install, plan and verify-install
/// start from. Only reads have gone to the cluster (its version and CNI configuration).
pub(crate) struct Prepared {
    pub merged: serde_json::Value,
    /// The Istio version of the charts rendered (the owner labels' version).
    pub version: String,
    /// Each component's objects in apply order, carrying istioctl's owner labels.
    pub components: Vec<cluster::Component>,
    /// What this install owns: its owner labels and what each component renders (for prune).
    pub installation: cluster::Installation,
    pub runtime: tokio::runtime::Runtime,
    pub client: cluster::Client,
}

/// Renders `input` as `manifest generate --cluster-specific` does (invalid input fails before
/// the cluster is read), each component's objects in apply order, and makes the cluster client.
pub(crate) fn prepare(
    input: &crate::mesh::InputArgs,
    force: bool,
) -> Result<Prepared, MeshFailure> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| MeshFailure(format!("starting the async runtime: {e}")))?;
    // The cluster is read (its version and CNI, as istioctl reads them) only once the input
    // is known to be valid; the client made for that is the one returned.
    let made = std::cell::RefCell::new(None);
    let detect = || -> Result<crate::mesh::Detected, MeshFailure> {
        let client = runtime.block_on(cluster::Client::from_env())?;
        let facts = runtime.block_on(client.cluster_facts())?;
        *made.borrow_mut() = Some(client);
        Ok(crate::mesh::Detected::from_facts(&facts))
    };
    let (merged, generated) = crate::mesh::render(input, force, Some(&detect))?;
    let version = crate::owned::istio_version(&merged)?;
    let components = crate::mesh::cluster_components(
        &generated,
        &merged,
        &version,
        crate::mesh::OwnerLabels::All,
    );
    let rendered: Vec<(&str, &[serde_json::Value])> = generated
        .components
        .iter()
        .zip(&components)
        .map(|(g, c)| (g.component.name, c.objects.as_slice()))
        .collect();
    let installation = crate::owned::installation(&merged, &version, &rendered);
    let client = match made.into_inner() {
        Some(client) => client,
        None => runtime.block_on(cluster::Client::from_env())?,
    };
    Ok(Prepared {
        merged,
        version,
        components,
        installation,
        runtime,
        client,
    })
}

impl Prepared {
    /// Refuses (or with `force` warns about) rendered sidecar injectors that would inject the
    /// same pods as a live injector of another revision, as istioctl's `CheckWebhooks` does.
    /// Only reads the cluster.
    pub fn check_webhook_overlaps(&self, force: bool) -> Result<(), MeshFailure> {
        let rendered: Vec<serde_json::Value> = self
            .components
            .iter()
            .flat_map(|c| c.objects.iter().cloned())
            .collect();
        let overlaps = self
            .runtime
            .block_on(self.client.webhook_overlaps(&rendered))?;
        if overlaps.is_empty() {
            return Ok(());
        }
        let error = cluster::Error::WebhookOverlap { overlaps };
        if !force {
            return Err(error.into());
        }
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(
            stderr,
            "❗ invalid webhook configs; continuing because of --force: {error}"
        );
        Ok(())
    }

    /// Refuses (or with `force` warns about) rendered CRDs that would replace newer live ones
    /// (`assess::crds`: the CRDs' Istio versions, and API versions they would stop serving).
    /// Only reads the cluster.
    pub fn check_crd_downgrades(&self, force: bool) -> Result<(), MeshFailure> {
        let rendered: Vec<serde_json::Value> = self
            .components
            .iter()
            .flat_map(|c| c.objects.iter().cloned())
            .collect();
        let downgrades = self
            .runtime
            .block_on(self.client.crd_downgrades(&rendered))?;
        if downgrades.is_empty() {
            return Ok(());
        }
        let refused = assess::crds::DowngradeRefused { downgrades };
        if !force {
            return Err(MeshFailure(refused.to_string()));
        }
        let _ = writeln!(
            std::io::stderr().lock(),
            "❗ {}; continuing because of --force",
            refused
                .to_string()
                .lines()
                .filter(|l| !l.starts_with("install with charts"))
                .collect::<Vec<_>>()
                .join("\n")
        );
        Ok(())
    }

    /// What installing with `force` would do (server-side dry runs; writes nothing): each
    /// rendered object, then each object the install's prune would delete (dry-run deletes).
    pub fn plan(&self, force: bool) -> Result<cluster::Plan, MeshFailure> {
        self.runtime.block_on(async {
            let mut plan = self
                .client
                .plan_install(&self.components, FIELD_MANAGER, force)
                .await?;
            let doomed: Vec<cluster::ObjectRef> = self
                .client
                .prune_candidates(&self.installation)
                .await?
                .into_iter()
                .map(|owned| owned.object)
                .collect();
            plan.objects
                .extend(self.client.plan_deletes(&doomed).await?);
            Ok(plan)
        })
    }
}
