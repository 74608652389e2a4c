//! istioctl's installer policy, in one place for bosun's command line and its operator alike:
//! what an install decides and checks between rendering and writing, and the writes that are
//! policy rather than plain apply.
//!
//! Owns:
//! - [`Install`]: a rendered install ready for one cluster (the pipeline's install set plus the
//!   default revision tag's decision, [`DefaultTag`]), made by [`Install::prepare`];
//! - the refusals before the first write ([`Refusal`]): sidecar injectors that would inject the
//!   same pods as another revision's, and CustomResourceDefinitions that would be replaced by
//!   older ones ([`webhook_overlaps`], [`crd_downgrades`], and [`refusals`] for both; the
//!   [`Install`] methods of those names judge an install with its default tag), and what
//!   bosun's catalog forbids ([`Install::release_policy`]: an end-of-life release, Istio's
//!   upgrade rules; the operator does not ask for it yet);
//! - [`Install::plan`]: what the install would do, from server-side dry runs, the default tag
//!   and prune included;
//! - [`Install::apply_default_tag`]: creating or moving the default revision tag after the
//!   install applied, as istioctl's installer does;
//! - [`Install::apply`]: the install's writes in order (apply and waits, prune, default tag)
//!   under the install lock, for each cluster of `mesh install`; [`Install::apply_holding`],
//!   the same under a lock `install` took before its checks.
//!
//! - [`remote_secret`]: `create-remote-secret`'s sequence (the service account created from the
//!   charts when missing, the long-lived token Secret found or created and waited for), every
//!   check before the first write.
//!
//! - [`canary`]: the guided canary upgrade's steps, plan and the record of its progress kept
//!   in the cluster (pure; the command line runs the steps).
//!
//! - [`cacerts`]: a mesh CA's `cacerts` Secret, refused when it would replace another root.
//!
//! - [`mesh`]: `mesh install`'s orchestration over several clusters (each a client and its
//!   facts): the checks across them, each cluster's install through [`Install::apply`], side by
//!   side, and the remote secrets in every direction; [`mesh_check`]: `mesh check`'s reads of
//!   every cluster, judged together by `assess::mesh`; [`mesh_rotate`]: `mesh rotate-secrets`
//!   (new reader tokens, every remote secret replaced, the old tokens revoked).
//!
//! - [`helm_releases`]: `--helm-releases`, each component instance recorded as the Helm
//!   release Istio's Helm docs name (which release, the ownership markers, when a new
//!   revision is due, refusing another chart's release of the same name, which revisions helm
//!   wrote after bosun's and what they changed, the owner labels held by bosun's own field
//!   manager so that helm's upgrades keep them), for `install --helm-releases` and for the
//!   operator's `bosun.io/helm-releases` alike (its render hands back [`helm_releases::drafts`]).
//!
//! - [`uninstall`]: what `uninstall` and the operator's finalizer remove (the scopes) and what a
//!   prune after an install keeps, for both.
//!
//! - [`adopt`]: `install --adopt`, taking over a Helm-installed Istio (which releases, the
//!   refusals, handing their objects and records over to bosun).
//!
//! Must not: parse flags, print, ask, or decide what to do about a refusal (the command line
//! fails or warns with `--force`; the operator records it in the IstioOperator's status).
//! Rendering is `pipeline`'s and every request is `cluster`'s: this crate only sequences them.
//! A target cluster is plain data here, a [`cluster::Client`] passed to each call.

pub mod adopt;
pub mod cacerts;
pub mod canary;
mod default_tag;
mod error;
pub mod helm_releases;
pub mod mesh;
pub mod mesh_check;
pub mod mesh_disconnect;
pub mod mesh_rotate;
mod refusal;
pub mod remote_secret;
pub mod uninstall;

use std::collections::BTreeMap;

use serde_json::Value;

pub use default_tag::{DefaultTag, DefaultTagOutcome};
pub use error::Error;
pub use refusal::{Refusal, crd_downgrades, refusals, release_policy, webhook_overlaps};

/// The field manager of every object `bosun install` (and `bosun operator init`) applies; the
/// operator applies as its own (`operator::controller::FIELD_MANAGER`).
pub const FIELD_MANAGER: &str = "bosun";

/// A rendered install, ready for one cluster: what `install`, `plan` and `verify-install`
/// start from, and what the operator applies.
pub struct Install {
    /// The merged, validated IstioOperator.
    pub merged: iop::IstioOperator,
    /// The Istio version of the charts rendered (the owner labels' version).
    pub version: String,
    /// Each component's objects in apply order, carrying istioctl's owner labels.
    pub components: Vec<vocab::Component>,
    /// What this install owns: its owner labels and what each component renders (for prune).
    pub installation: vocab::Installation,
    /// Whether (and how) the install creates or moves the default revision tag.
    pub default_tag: DefaultTag,
    /// The install packages rendered from (the default tag renders from them too).
    pub packages: pipeline::InstallPackages,
    /// The render itself, per component and instance, before the install's labels (what
    /// `manifest generate` prints; Helm release records hold it).
    pub generated: manifest::generate::Generated,
    /// With Helm release records: istioctl's owner labels the charts do not render, per
    /// object, applied by bosun's own field manager after the components
    /// ([`helm_releases::owner_label_hold`]); empty otherwise.
    pub owner_label_holds: Vec<Value>,
}

impl Install {
    /// The rendered install for `client`'s cluster: the pipeline's install set, every object
    /// with istioctl's owner labels, and the default revision tag's decision (which only
    /// reads the cluster).
    pub async fn prepare(
        client: &cluster::Client,
        rendered: pipeline::Rendered,
        packages: pipeline::InstallPackages,
    ) -> Result<Install, Error> {
        let pipeline::install::InstallSet {
            version,
            mut components,
            installation,
        } = pipeline::install::install_set(
            &rendered,
            &packages,
            pipeline::install::OwnerLabels::All,
        )?;
        let merged = rendered.merged;
        let generated = rendered.generated;
        let default_tag =
            default_tag::decide(client, &merged, &version, &mut components, &packages).await?;
        Ok(Install {
            merged,
            version,
            components,
            installation,
            default_tag,
            packages,
            generated,
            owner_label_holds: Vec::new(),
        })
    }

    /// Every rendered object, in apply order.
    pub fn objects(&self) -> impl Iterator<Item = &Value> {
        self.components.iter().flat_map(|c| c.objects.iter())
    }

    /// Labels of the namespaces the install creates ([`created_namespace_labels`]).
    pub fn created_namespace_labels(&self) -> BTreeMap<String, BTreeMap<String, String>> {
        created_namespace_labels(&self.merged)
    }

    /// The control plane revision the install makes (`default` when it names none).
    pub fn revision(&self) -> &str {
        self.merged.revision_or_default()
    }

    /// Writes the install to `client`'s cluster, as each cluster of `mesh install` (and the
    /// canary upgrade's install step) does: every component applied in dependency order and
    /// waited for ([`cluster::Client::install`], telling `progress`), then what the
    /// installation no longer renders pruned (each deleted object told to `deleted`), then the
    /// default revision tag created or moved ([`Install::apply_default_tag`]). All of it holds
    /// the Istio namespace's install lock ([`cluster::Client::holding_install_lock`]; waiting
    /// up to `options.crd_timeout`, the command's readiness timeout), so two installs at once
    /// run one after the other. Call it once the refusals passed; a caller that checks
    /// under the lock (`bosun install`) takes it first and calls [`Install::apply_holding`].
    pub async fn apply(
        &self,
        client: &cluster::Client,
        options: &cluster::InstallOptions,
        lock: &InstallLock<'_>,
        progress: &(dyn Fn(usize, cluster::InstallEvent<'_>) + Sync),
        deleted: &mut (dyn FnMut(&cluster::Deleted) + Send),
    ) -> Result<Applied, Error> {
        client
            .holding_install_lock(
                self.merged.istio_namespace(),
                &lock.identity,
                options.crd_timeout,
                lock.on_wait,
                self.writes(client, options, progress, deleted),
            )
            .await
    }

    /// [`Install::apply`]'s writes under a lock the caller took already (before its checks,
    /// so that what they read is what the install writes over): `held` must be the lock of
    /// this install's Istio namespace, else nothing is written ([`Error::NotLocked`]).
    pub async fn apply_holding(
        &self,
        client: &cluster::Client,
        options: &cluster::InstallOptions,
        held: &cluster::HeldInstallLock,
        progress: &(dyn Fn(usize, cluster::InstallEvent<'_>) + Sync),
        deleted: &mut (dyn FnMut(&cluster::Deleted) + Send),
    ) -> Result<Applied, Error> {
        let namespace = self.merged.istio_namespace();
        if held.namespace() != namespace {
            return Err(Error::NotLocked {
                held: held.namespace().to_string(),
                namespace: namespace.to_string(),
            });
        }
        // The checks' lists (read under this lock) serve the writes too. Other writers the
        // lock does not stop (the Deployment controller during a rollout, istiod writing its
        // webhooks) may change objects between the checks and the applies; each apply's
        // outcome (created, configured, unchanged) is told from bosun's own managedFields
        // entry and values, not from the resource version (`cluster`'s `outcome` module), so
        // their writes do not make an unchanged object count as configured.
        self.writes(client, options, progress, deleted).await
    }

    async fn writes(
        &self,
        client: &cluster::Client,
        options: &cluster::InstallOptions,
        progress: &(dyn Fn(usize, cluster::InstallEvent<'_>) + Sync),
        deleted: &mut (dyn FnMut(&cluster::Deleted) + Send),
    ) -> Result<Applied, Error> {
        let mut options = options.clone();
        options
            .created_namespace_labels
            .extend(self.created_namespace_labels());
        let options = &options;
        let report = client.install(&self.components, options, progress).await?;
        if !self.owner_label_holds.is_empty() {
            client
                .apply(&self.owner_label_holds, FIELD_MANAGER, options.force)
                .await?;
        }
        let pruned = uninstall::prune(client, &self.installation, &report, deleted).await?;
        let default_tag = self
            .apply_default_tag(client, &options.field_manager)
            .await?;
        Ok(Applied {
            report,
            pruned,
            default_tag,
        })
    }
}

/// Who takes the install lock in [`Install::apply`], and what to tell while another holds it.
pub struct InstallLock<'a> {
    /// The holder's identity ([`cluster::lock_identity`]).
    pub identity: String,
    pub on_wait: &'a (dyn Fn(&cluster::LockHolder) + Sync),
}

/// What [`Install::apply`] did.
#[derive(Debug)]
pub struct Applied {
    pub report: cluster::InstallReport,
    /// The objects prune deleted (or found already gone).
    pub pruned: Vec<cluster::Deleted>,
    pub default_tag: DefaultTagOutcome,
}

/// Labels of the namespaces an install of `merged` creates: the Istio namespace labelled with
/// `values.global.network` when it is set, as istioctl's installer creates it
/// (`operator/pkg/util.CreateNamespace`); a namespace that exists keeps its labels. `install`
/// and the operator both create namespaces with these.
pub fn created_namespace_labels(
    merged: &iop::IstioOperator,
) -> BTreeMap<String, BTreeMap<String, String>> {
    let network = iop::tree::get_path_string(merged.tree(), "spec.values.global.network");
    if network.is_empty() {
        return BTreeMap::new();
    }
    BTreeMap::from([(
        merged.istio_namespace().to_string(),
        BTreeMap::from([(vocab::labels::NETWORK_LABEL.to_string(), network)]),
    )])
}
