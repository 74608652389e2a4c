//! What `install`, `plan` and `verify-install` start from: the `pipeline` library's install set
//! (the inputs rendered exactly as `manifest generate` renders them, so everything that can
//! fail without the cluster fails before the first request; each component's objects in apply
//! order with istioctl's owner labels; what the installation owns, for prune), a cluster
//! client, and the default revision tag's decision; plus the read-only checks they share.

use std::io::Write;

use crate::install::FIELD_MANAGER;
use crate::mesh::MeshFailure;

/// The rendered install and a client for the cluster: what install, plan and verify-install
/// start from. Only reads have gone to the cluster (its version and CNI configuration).
pub(crate) struct Prepared<'r> {
    pub merged: serde_json::Value,
    /// The Istio version of the charts rendered (the owner labels' version).
    pub version: String,
    /// Each component's objects in apply order, carrying istioctl's owner labels.
    pub components: Vec<cluster::Component>,
    /// What this install owns: its owner labels and what each component renders (for prune).
    pub installation: cluster::Installation,
    /// The process's runtime (see [`crate::runtime`]), which the client's requests run on.
    pub runtime: &'r tokio::runtime::Runtime,
    pub client: cluster::Client,
    /// Whether (and how) the install creates or moves the default revision tag.
    pub default_tag: DefaultTag,
    /// The install packages rendered from (the default tag renders from them too).
    pub packages: pipeline::InstallPackages,
}

/// What istioctl's installer decides about the default revision tag before it applies (see
/// `manifest::tag::default_tag_needed`), and what this install changed in its render for it.
#[derive(Debug, Clone, Default)]
pub(crate) struct DefaultTag {
    /// The install creates or moves the default tag after applying (or tries to: istioctl
    /// skips a tag it cannot generate).
    pub needed: bool,
    /// The tag's injector as it will be (`manifest::tag::preview_mutating_webhook`), when the
    /// tag will be generated: the overlap check judges it, not the injectors it deactivates.
    pub preview: Option<serde_json::Value>,
    /// The install's own injector (of the revision `default`), as rendered, when it is
    /// applied already deactivated: istioctl applies it active, then deactivates it once the
    /// tag exists; applying the end state directly lets a second install change nothing.
    /// Kept to re-activate it should the tag not be created after all.
    pub deactivated_injector: Option<serde_json::Value>,
}

/// Renders `input` as `manifest generate --cluster-specific` does (invalid input fails before
/// the cluster is read), each component's objects in apply order, and makes the client for the
/// cluster the `cluster` flags name.
pub(crate) fn prepare<'r>(
    input: &crate::mesh::InputArgs,
    force: bool,
    cluster: &crate::target::ClusterArgs,
    runtime: &'r crate::runtime::Runtime,
) -> Result<Prepared<'r>, MeshFailure> {
    let runtime = runtime.get()?;
    // The cluster is read (its version and CNI, as istioctl reads them) only once the input
    // is known to be valid; the client made for that is the one returned.
    let made = std::cell::RefCell::new(None);
    let detect = || -> Result<pipeline::Detected, String> {
        let client = cluster.connect(runtime).map_err(|e| e.0)?;
        let facts = runtime
            .block_on(client.cluster_facts())
            .map_err(|e| e.to_string())?;
        *made.borrow_mut() = Some(client);
        Ok(crate::mesh::detected(&facts))
    };
    let packages = crate::mesh::packages();
    let rendered = crate::mesh::render(input, &packages, force, Some(&detect))?;
    let pipeline::install::InstallSet {
        version,
        components,
        installation,
    } = pipeline::install::install_set(&rendered, &packages, pipeline::install::OwnerLabels::All)?;
    let merged = rendered.merged;
    let client = match made.into_inner() {
        Some(client) => client,
        None => cluster.connect(runtime)?,
    };
    let mut components = components;
    let default_tag = runtime.block_on(decide_default_tag(
        &client,
        &merged,
        &version,
        &mut components,
        &packages,
    ))?;
    Ok(Prepared {
        merged,
        version,
        components,
        installation,
        runtime,
        client,
        default_tag,
        packages,
    })
}

/// Decides whether the install creates or moves the default tag, as istioctl's installer
/// does, and whether generating it will succeed once the install applied its objects (the
/// revision then has exactly one injector and at most one istiod Service, and at most one
/// injector of the revision `default` is there to deactivate). When it will, the tag's injector
/// is previewed for the overlap check, and an install without a revision renders its own
/// injector deactivated, as the tag leaves it. Only reads the cluster.
async fn decide_default_tag(
    client: &cluster::Client,
    merged: &serde_json::Value,
    version: &str,
    components: &mut [cluster::Component],
    packages: &pipeline::InstallPackages,
) -> Result<DefaultTag, MeshFailure> {
    let exists = client.default_tag_exists().await;
    if !manifest::tag::default_tag_needed(merged, exists) {
        return Ok(DefaultTag::default());
    }
    let needed_only = DefaultTag {
        needed: true,
        ..DefaultTag::default()
    };
    let revision = manifest::ownership::revision(merged);
    let mut namespace = iop::tree::get_path_string(merged, "metadata.namespace");
    if namespace.is_empty() {
        namespace = "istio-system".to_string();
    }
    let name = |o: &serde_json::Value| {
        o.pointer("/metadata/name")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let objects: Vec<&serde_json::Value> =
        components.iter().flat_map(|c| c.objects.iter()).collect();
    let own_injectors: Vec<String> = objects
        .iter()
        .filter(|o| manifest::tag::is_own_injector(o, &revision))
        .map(|o| name(o))
        .collect();
    let own_services: Vec<String> = objects
        .iter()
        .filter(|o| is_own_istiod_service(o, &revision, &namespace))
        .map(|o| name(o))
        .collect();
    let (live_injectors, live_services) = client.revision_endpoints(&revision, &namespace).await?;
    if !manifest::tag::default_tag_will_generate(
        &live_injectors,
        &own_injectors,
        &live_services,
        &own_services,
    ) {
        return Ok(needed_only);
    }
    if revision != manifest::tag::DEFAULT_TAG {
        // The `default` revision's injector the tag deactivates: istioctl gives up on more
        // than one.
        let (default_injectors, _) = client
            .revision_endpoints(manifest::tag::DEFAULT_TAG, &namespace)
            .await?;
        if default_injectors.len() > 1 {
            return Ok(needed_only);
        }
    }
    let owner_labels = manifest::ownership::owner_labels(merged, version, None);
    let (options, render) = pipeline::tag::default_tag_setup(merged, &owner_labels, packages);
    let preview = manifest::tag::preview_mutating_webhook(&options, &render)?;
    let mut original = None;
    if revision == manifest::tag::DEFAULT_TAG {
        for object in components.iter_mut().flat_map(|c| c.objects.iter_mut()) {
            if manifest::tag::is_own_injector(object, &revision) {
                original = Some(object.clone());
                manifest::tag::deactivate(object);
            }
        }
    }
    Ok(DefaultTag {
        needed: true,
        preview: Some(preview),
        deactivated_injector: original,
    })
}

/// A revision's istiod Service, as istioctl's tag code finds it (`istio.io/rev=R`, no
/// `istio.io/tag`, `app=istiod`, in the Istio namespace).
fn is_own_istiod_service(object: &serde_json::Value, revision: &str, namespace: &str) -> bool {
    let label = |name: &str| {
        object
            .pointer("/metadata/labels")
            .and_then(|l| l.get(name))
            .and_then(serde_json::Value::as_str)
    };
    object["kind"] == "Service"
        && object
            .pointer("/metadata/namespace")
            .and_then(serde_json::Value::as_str)
            == Some(namespace)
        && label(manifest::tag::REVISION_LABEL) == Some(revision)
        && label(manifest::tag::TAG_LABEL).is_none()
        && label("app") == Some("istiod")
}

impl Prepared<'_> {
    /// What the overlap check judges: the rendered objects, plus the default tag's injector
    /// when the install will make it; and whether the live injector of the revision `default`
    /// counts as deactivated (it will be, once the tag exists).
    pub fn overlap_candidates(&self) -> (Vec<serde_json::Value>, bool) {
        let mut rendered: Vec<serde_json::Value> = self
            .components
            .iter()
            .flat_map(|c| c.objects.iter().cloned())
            .collect();
        rendered.extend(self.default_tag.preview.iter().cloned());
        (rendered, self.default_tag.preview.is_some())
    }

    /// Refuses (or with `force` warns about) rendered sidecar injectors that would inject the
    /// same pods as a live injector of another revision, as istioctl's `CheckWebhooks` does,
    /// judging the default tag the install makes as it will be (istioctl leaves its own
    /// injectors out of the check instead, and misses what the tag then injects twice).
    /// Only reads the cluster.
    pub fn check_webhook_overlaps(&self, force: bool) -> Result<(), MeshFailure> {
        let (rendered, default_deactivated) = self.overlap_candidates();
        let overlaps = self.runtime.block_on(
            self.client
                .webhook_overlaps_after(&rendered, default_deactivated),
        )?;
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
            plan.objects.extend(self.plan_default_tag().await?);
            plan.objects
                .extend(self.client.plan_deletes(&doomed).await?);
            Ok(plan)
        })
    }

    /// What the install does for the default revision tag after applying (see
    /// `crate::tag::apply_default_tag`): the tag's objects, generated from the revision's
    /// injector as this install renders it and dry-run applied as the install applies them,
    /// and, when the tag moves away from the revision `default`, the update that deactivates
    /// that revision's injector. Nothing when the install will not generate the tag.
    async fn plan_default_tag(&self) -> Result<Vec<cluster::PlannedObject>, MeshFailure> {
        if self.default_tag.preview.is_none() {
            return Ok(Vec::new());
        }
        let revision = manifest::ownership::revision(&self.merged);
        let own_injector = self
            .default_tag
            .deactivated_injector
            .as_ref()
            .or_else(|| {
                self.components
                    .iter()
                    .flat_map(|c| c.objects.iter())
                    .find(|o| manifest::tag::is_own_injector(o, &revision))
            })
            .ok_or_else(|| {
                MeshFailure(format!(
                    "planning the default revision tag: the install renders no sidecar injector of revision {revision}"
                ))
            })?;
        let canonical = manifest::tag::Canonical::from_injector(own_injector)
            .map_err(|e| MeshFailure(format!("planning the default revision tag: {e}")))?;
        let owner_labels = manifest::ownership::owner_labels(&self.merged, &self.version, None);
        let (options, render) =
            pipeline::tag::default_tag_setup(&self.merged, &owner_labels, &self.packages);
        let live_validator = self.client.default_validator().await?;
        let objects =
            manifest::tag::generate(&canonical, &options, live_validator.as_ref(), &render)
                .map_err(|e| MeshFailure(format!("planning the default revision tag: {e}")))?;
        let mut planned = self
            .client
            .plan(&objects, FIELD_MANAGER, true)
            .await?
            .objects;
        for object in &mut planned {
            if object.note.is_none() {
                object.note = Some("the default revision tag".into());
            }
        }
        if revision != manifest::tag::DEFAULT_TAG
            && let Ok(Some((live, deactivated))) =
                self.client.default_injector_deactivation().await?
        {
            planned.push(cluster::PlannedObject {
                object: cluster::ObjectRef {
                    api_version: "admissionregistration.k8s.io/v1".into(),
                    kind: "MutatingWebhookConfiguration".into(),
                    namespace: None,
                    name: live
                        .pointer("/metadata/name")
                        .and_then(serde_json::Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                },
                action: cluster::Action::Update,
                changes: cluster::field_changes(&live, &deactivated),
                note: Some("deactivated: the default revision tag now injects".into()),
                // An update (as istioctl's), not an apply: nothing to dry-run it against.
                dry_run: false,
            });
        }
        Ok(planned)
    }
}
