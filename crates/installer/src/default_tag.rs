//! The default revision tag, as istioctl's installer makes it: decided before the install
//! (whether the install creates or moves it, and whether generating it will succeed), planned
//! with the install's dry runs, and applied after the install's objects.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::{Error, Install};

/// What istioctl's installer decides about the default revision tag before it applies (see
/// `manifest::tag::default_tag_needed`), and what this install changed in its render for it.
#[derive(Debug, Clone, Default)]
pub struct DefaultTag {
    /// The install creates or moves the default tag after applying (or tries to: istioctl
    /// skips a tag it cannot generate).
    pub needed: bool,
    /// The tag's injector as it will be (`manifest::tag::preview_mutating_webhook`), when the
    /// tag will be generated: the overlap check judges it, not the injectors it deactivates.
    pub preview: Option<Value>,
    /// The install's own injector (of the revision `default`), as rendered, when it is
    /// applied already deactivated: istioctl applies it active, then deactivates it once the
    /// tag exists; applying the end state directly lets a second install change nothing.
    /// Kept to re-activate it should the tag not be created after all.
    pub deactivated_injector: Option<Value>,
}

/// How [`Install::apply_default_tag`] ended.
#[derive(Debug)]
pub enum DefaultTagOutcome {
    /// The install does not make the default tag.
    NotNeeded,
    /// The tag's objects were applied.
    Applied(cluster::ApplyReport),
    /// The tag could not be generated (istioctl skips it too, and goes on); the install's own
    /// injector was re-activated if it had been applied deactivated.
    Skipped(cluster::tags::TagRefusal),
}

/// Decides whether the install creates or moves the default tag, as istioctl's installer
/// does, and whether generating it will succeed once the install applied its objects (the
/// revision then has exactly one injector and at most one istiod Service, and at most one
/// injector of the revision `default` is there to deactivate). When it will, the tag's injector
/// is previewed for the overlap check, and an install without a revision renders its own
/// injector deactivated, as the tag leaves it. Only reads the cluster.
pub(crate) async fn decide(
    client: &cluster::Client,
    merged: &iop::IstioOperator,
    version: &str,
    components: &mut [vocab::Component],
    packages: &pipeline::InstallPackages,
) -> Result<DefaultTag, Error> {
    let exists = client.default_tag_exists().await;
    if !manifest::tag::default_tag_needed(merged, exists) {
        return Ok(DefaultTag::default());
    }
    let needed_only = DefaultTag {
        needed: true,
        ..DefaultTag::default()
    };
    let revision = merged.revision_or_default();
    let namespace = merged.istio_namespace();
    let objects: Vec<&Value> = components.iter().flat_map(|c| c.objects.iter()).collect();
    let own_injectors: Vec<String> = objects
        .iter()
        .filter(|o| manifest::tag::is_own_injector(o, revision))
        .map(|o| name(o))
        .collect();
    let own_services: Vec<String> = objects
        .iter()
        .filter(|o| manifest::tag::is_own_istiod_service(o, revision, namespace))
        .map(|o| name(o))
        .collect();
    let (live_injectors, live_services) = client.revision_endpoints(revision, namespace).await?;
    if !manifest::tag::default_tag_will_generate(
        &live_injectors,
        &own_injectors,
        &live_services,
        &own_services,
    ) {
        return Ok(needed_only);
    }
    if revision != vocab::labels::DEFAULT_REVISION {
        // The `default` revision's injector the tag deactivates: istioctl gives up on more
        // than one.
        let (default_injectors, _) = client
            .revision_endpoints(vocab::labels::DEFAULT_REVISION, namespace)
            .await?;
        if default_injectors.len() > 1 {
            return Ok(needed_only);
        }
    }
    let owner_labels = manifest::ownership::owner_labels(merged, version, None);
    let (options, render) = pipeline::tag::default_tag_setup(merged, &owner_labels, packages);
    let preview = manifest::tag::preview_mutating_webhook(&options, &render)?;
    let mut original = None;
    if revision == vocab::labels::DEFAULT_REVISION {
        for object in components.iter_mut().flat_map(|c| c.objects.iter_mut()) {
            if manifest::tag::is_own_injector(object, revision) {
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

fn name(object: &Value) -> String {
    object
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

impl Install {
    fn owner_labels(&self) -> BTreeMap<String, String> {
        manifest::ownership::owner_labels(&self.merged, &self.version, None)
    }

    /// What the install does for the default revision tag after applying (see
    /// [`Install::apply_default_tag`]): the tag's objects, generated from the revision's
    /// injector as this install renders it and dry-run applied as the install applies them,
    /// and, when the tag moves away from the revision `default`, the update that deactivates
    /// that revision's injector. Nothing when the install will not generate the tag.
    pub(crate) async fn plan_default_tag(
        &self,
        client: &cluster::Client,
        field_manager: &str,
    ) -> Result<Vec<cluster::PlannedObject>, Error> {
        if self.default_tag.preview.is_none() {
            return Ok(Vec::new());
        }
        let revision = self.revision();
        let own_injector = self
            .default_tag
            .deactivated_injector
            .as_ref()
            .or_else(|| {
                self.objects()
                    .find(|o| manifest::tag::is_own_injector(o, revision))
            })
            .ok_or_else(|| Error::NoInjector {
                revision: revision.to_string(),
            })?;
        let mut canonical = manifest::tag::Canonical::from_injector(own_injector)?;
        // The install generates the tag from the live injector once applied, whose CA bundle
        // istiod wrote (the apply leaves it: `manifest::runtime`), and the tag's webhooks carry
        // that bundle; the rendered injector has none. Without the live one the plan showed
        // the tag's `caBundle` removed after every install.
        if canonical.ca_bundle.is_empty() {
            let selector = format!(
                "{}={revision},!{}",
                vocab::labels::REVISION_LABEL,
                vocab::labels::TAG_LABEL
            );
            if let [live] = client.mutating_webhooks(&selector).await?.as_slice()
                && let Ok(live) = manifest::tag::Canonical::from_injector(live)
            {
                canonical.ca_bundle = live.ca_bundle;
            }
        }
        let (options, render) =
            pipeline::tag::default_tag_setup(&self.merged, &self.owner_labels(), &self.packages);
        let live_validator = client.default_validator().await?;
        let objects =
            manifest::tag::generate(&canonical, &options, live_validator.as_ref(), &render)?;
        let mut planned = client.plan(&objects, field_manager, true).await?.objects;
        for object in &mut planned {
            if object.note.is_none() {
                object.note = Some("the default revision tag".into());
            }
        }
        if revision != vocab::labels::DEFAULT_REVISION
            && let Ok(Some((live, deactivated))) = client.default_injector_deactivation().await?
        {
            planned.push(cluster::PlannedObject {
                object: vocab::ObjectRef {
                    api_version: "admissionregistration.k8s.io/v1".into(),
                    kind: "MutatingWebhookConfiguration".into(),
                    namespace: None,
                    name: name(&live),
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

    /// Creates or moves the default revision tag after the install applied its objects, as
    /// istioctl's installer does: the tag's objects generated from the revision's live
    /// injector and applied with `field_manager`, then the revision `default`'s injector
    /// deactivated. A tag that cannot be generated is skipped, as istioctl skips it (the
    /// target may be a remote cluster), and the install's own injector re-activated if it was
    /// applied deactivated for the tag.
    pub async fn apply_default_tag(
        &self,
        client: &cluster::Client,
        field_manager: &str,
    ) -> Result<DefaultTagOutcome, Error> {
        if !self.default_tag.needed {
            return Ok(DefaultTagOutcome::NotNeeded);
        }
        let (options, render) =
            pipeline::tag::default_tag_setup(&self.merged, &self.owner_labels(), &self.packages);
        let checks = cluster::tags::TagChecks {
            generate_only: false,
            overwrite: true,
        };
        let generated = match client.generate_tag(&options, checks, &render).await? {
            Ok(objects) => client
                .deactivate_default_injector(field_manager)
                .await?
                .map(|_| objects),
            Err(refusal) => Err(refusal),
        };
        let objects = match generated {
            Ok(objects) => objects,
            Err(refusal) => {
                if let Some(injector) = &self.default_tag.deactivated_injector {
                    client
                        .apply(std::slice::from_ref(injector), field_manager, true)
                        .await
                        .map_err(Error::Reactivate)?;
                }
                return Ok(DefaultTagOutcome::Skipped(refusal));
            }
        };
        let report = client
            .apply(&objects, field_manager, true)
            .await
            .map_err(Error::DeployWebhooks)?;
        Ok(DefaultTagOutcome::Applied(report))
    }

    /// What installing would do (server-side dry runs with `field_manager`, taking over fields
    /// of other managers with `force`, and without it those of `take_over_from` when they are
    /// the only ones an object conflicts with; writes nothing): each rendered object, the
    /// default tag's objects, then each object the install's prune would delete (dry-run
    /// deletes).
    pub async fn plan(
        &self,
        client: &cluster::Client,
        field_manager: &str,
        force: bool,
        take_over_from: &[String],
    ) -> Result<cluster::Plan, Error> {
        let mut plan = client
            .plan_install(&self.components, field_manager, force, take_over_from)
            .await?;
        let doomed: Vec<vocab::ObjectRef> = client
            .prune_candidates(&self.installation)
            .await?
            .into_iter()
            .map(|owned| owned.object)
            .collect();
        plan.objects
            .extend(self.plan_default_tag(client, field_manager).await?);
        plan.objects.extend(client.plan_deletes(&doomed).await?);
        Ok(plan)
    }
}
