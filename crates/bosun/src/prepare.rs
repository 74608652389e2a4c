//! What `install`, `plan` and `verify-install` start from: the inputs rendered exactly as
//! `manifest generate` renders them (so everything that can fail without the cluster fails
//! before the first request), each component's objects in apply order, and a cluster client;
//! plus the read-only checks they share.

use std::io::Write;

use crate::install::FIELD_MANAGER;
use crate::mesh::MeshFailure;

/// The rendered install and a client for the cluster: what install, plan and verify-install
/// start from. Nothing has talked to the cluster yet.
pub(crate) struct Prepared {
    pub merged: serde_json::Value,
    pub components: Vec<cluster::Component>,
    pub runtime: tokio::runtime::Runtime,
    pub client: cluster::Client,
}

/// Renders `input` as `manifest generate` does (everything that can fail without the cluster
/// fails here), each component's objects in apply order, and makes the cluster client.
pub(crate) fn prepare(
    input: &crate::mesh::InputArgs,
    force: bool,
) -> Result<Prepared, MeshFailure> {
    let (merged, generated) = crate::mesh::render(input, force)?;
    let components: Vec<cluster::Component> = generated
        .components
        .iter()
        .map(|c| {
            let mut objects = c.objects.clone();
            manifest::order::sort_objects(&mut objects);
            cluster::Component {
                display_name: c.component.display_name.to_string(),
                objects: objects.into_iter().map(|o| o.value).collect(),
            }
        })
        .collect();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| MeshFailure(format!("starting the async runtime: {e}")))?;
    let client = runtime.block_on(cluster::Client::from_env())?;
    Ok(Prepared {
        merged,
        components,
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

    /// What installing with `force` would do (server-side dry runs; writes nothing).
    pub fn plan(&self, force: bool) -> Result<cluster::Plan, MeshFailure> {
        Ok(self.runtime.block_on(self.client.plan_install(
            &self.components,
            FIELD_MANAGER,
            force,
        ))?)
    }
}
