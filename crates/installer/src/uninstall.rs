//! What an uninstall removes and what a prune keeps, for the command line and the operator
//! alike (istioctl's `operator/pkg/uninstall`): which objects a scope selects, and the calls
//! that delete them. The listing and deleting are `cluster`'s (`Client::uninstall_candidates`,
//! `Client::prune_after_install`, `Client::delete_owned`: the kinds istioctl prunes, a safe
//! deletion order, Background propagation, each delete conditional on the uid listed);
//! CustomResourceDefinitions are deleted only by a purge and Namespaces never.
//!
//! Objects are always found by labels, so an object some other installation (another revision,
//! another IstioOperator, someone else) applied is never selected.

use std::collections::BTreeMap;

use crate::Error;

/// One control plane's components but Base, selected by `labels`: what `uninstall --revision
/// R` and `uninstall -f IOP` remove. istioctl never uninstalls Base that way, so the CRDs and
/// the roles every revision shares stay.
pub fn control_plane(labels: BTreeMap<String, String>) -> cluster::UninstallScope {
    let components = iop::component::ALL
        .iter()
        .filter(|c| c.name != "Base")
        .map(|c| c.name.to_string())
        .collect();
    cluster::UninstallScope::ControlPlane { labels, components }
}

/// What `uninstall --revision R` selects: revision R's control plane, Base excepted.
pub fn revision(revision: &str) -> cluster::UninstallScope {
    control_plane(BTreeMap::from([(
        vocab::labels::REVISION_LABEL.to_string(),
        revision.to_string(),
    )]))
}

/// What `uninstall -f IOP` selects: the control plane of `revision` (`None`: the one `merged`
/// names, else `default`) that `merged`'s IstioOperator owns (its name and namespace, when it
/// has them), Base excepted.
pub fn of_istio_operator(
    merged: &iop::IstioOperator,
    revision: Option<&str>,
) -> cluster::UninstallScope {
    let revision = revision.unwrap_or_else(|| merged.revision_or_default());
    let mut labels = BTreeMap::from([(
        vocab::labels::REVISION_LABEL.to_string(),
        revision.to_string(),
    )]);
    for (value, label) in [
        (merged.name(), vocab::labels::OWNING_RESOURCE_LABEL),
        (
            merged.namespace(),
            vocab::labels::OWNING_RESOURCE_NAMESPACE_LABEL,
        ),
    ] {
        if let Some(value) = value {
            labels.insert(label.to_string(), value.to_string());
        }
    }
    control_plane(labels)
}

/// Everything labelled `labels`, Base included: what an installation whose labels are its own
/// owns (the operator's objects carry their IstioOperator's name and namespace and the
/// operator's manager label, so none is another's).
pub fn owned_by(labels: BTreeMap<String, String>) -> cluster::UninstallScope {
    let components = iop::component::ALL
        .iter()
        .map(|c| c.name.to_string())
        .collect();
    cluster::UninstallScope::ControlPlane { labels, components }
}

/// Deletes what `scopes` select but `keep` keeps (each object once, in the safe order the
/// scopes list them), telling each deletion to `deleted`; returns what it dealt with.
pub async fn remove(
    client: &cluster::Client,
    scopes: &[cluster::UninstallScope],
    keep: &(dyn Fn(&vocab::ObjectRef) -> bool + Sync),
    deleted: &mut (dyn FnMut(&cluster::Deleted) + Send),
) -> Result<Vec<cluster::Deleted>, Error> {
    let mut doomed: Vec<cluster::OwnedObject> = Vec::new();
    for scope in scopes {
        for o in client.uninstall_candidates(scope).await? {
            if !keep(&o.object) && !doomed.iter().any(|d| d.object == o.object) {
                doomed.push(o);
            }
        }
    }
    Ok(client.delete_owned(&doomed, deleted).await?)
}

/// What prune compares the cluster with, for an installation labelled `owner_labels` whose
/// components keep `kept` (component name and object, as applied or found in the cluster):
/// every component istioctl knows, with none kept for those `kept` does not name, so that a
/// disabled component's leftovers are pruned.
pub fn installation<'a>(
    owner_labels: BTreeMap<String, String>,
    kept: impl IntoIterator<Item = (&'a str, &'a vocab::ObjectRef)>,
) -> vocab::Installation {
    let mut components: Vec<vocab::RenderedComponent> = iop::component::ALL
        .iter()
        .map(|c| vocab::RenderedComponent {
            name: c.name.to_string(),
            objects: Vec::new(),
        })
        .collect();
    for (name, object) in kept {
        if let Some(c) = components.iter_mut().find(|c| c.name == name) {
            c.objects.push(object.clone());
        }
    }
    vocab::Installation {
        owner_labels,
        components,
    }
}

/// Deletes what `installation` owns but no longer renders, right after the install `installed`
/// (whose lists it reuses, see `cluster::Client::prune_after_install`): objects labelled with
/// every owner label and a component the installation knows, not among that component's
/// objects, and not labelled `install.operator.istio.io/not-pruned`.
pub async fn prune(
    client: &cluster::Client,
    installation: &vocab::Installation,
    installed: &cluster::InstallReport,
    deleted: &mut (dyn FnMut(&cluster::Deleted) + Send),
) -> Result<Vec<cluster::Deleted>, Error> {
    client
        .prune_after_install(installation, installed, deleted)
        .await
        .map_err(Error::Prune)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn component_names(scope: &cluster::UninstallScope) -> Vec<&str> {
        match scope {
            cluster::UninstallScope::ControlPlane { components, .. } => {
                components.iter().map(String::as_str).collect()
            }
            cluster::UninstallScope::Purge => panic!("not a control plane"),
        }
    }

    #[test]
    fn a_control_plane_leaves_base_and_an_owner_takes_all() {
        assert!(!component_names(&revision("canary")).contains(&"Base"));
        let owned = owned_by(BTreeMap::new());
        assert_eq!(component_names(&owned).len(), iop::component::ALL.len());
        assert!(component_names(&owned).contains(&"Base"));
    }

    #[test]
    fn an_istio_operator_selects_its_revision_and_owner() {
        let merged = iop::IstioOperator::from_tree(serde_json::json!({
            "metadata": {"name": "main", "namespace": "istio-system"},
            "spec": {"values": {"revision": "blue"}}
        }));
        let labels = |s: cluster::UninstallScope| match s {
            cluster::UninstallScope::ControlPlane { labels, .. } => labels,
            cluster::UninstallScope::Purge => panic!("not a control plane"),
        };
        let got = labels(of_istio_operator(&merged, None));
        assert_eq!(got[vocab::labels::REVISION_LABEL], "blue");
        assert_eq!(got[vocab::labels::OWNING_RESOURCE_LABEL], "main");
        assert_eq!(
            got[vocab::labels::OWNING_RESOURCE_NAMESPACE_LABEL],
            "istio-system"
        );
        let got = labels(of_istio_operator(&merged, Some("green")));
        assert_eq!(got[vocab::labels::REVISION_LABEL], "green");
        let bare = iop::IstioOperator::from_tree(serde_json::json!({"spec": {}}));
        let got = labels(of_istio_operator(&bare, None));
        assert_eq!(got[vocab::labels::REVISION_LABEL], "default");
        assert!(!got.contains_key(vocab::labels::OWNING_RESOURCE_LABEL));
    }

    #[test]
    fn an_installation_knows_every_component_and_keeps_what_it_is_given() {
        let istiod = vocab::ObjectRef {
            api_version: "apps/v1".into(),
            kind: "Deployment".into(),
            namespace: Some("istio-system".into()),
            name: "istiod".into(),
        };
        let got = installation(
            BTreeMap::from([("a".to_string(), "b".to_string())]),
            [("Pilot", &istiod), ("NoSuchComponent", &istiod)],
        );
        let names: Vec<&str> = got.components.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names.len(), iop::component::ALL.len());
        let pilot = got.components.iter().find(|c| c.name == "Pilot").unwrap();
        assert_eq!(pilot.objects, [istiod]);
        let kept: usize = got.components.iter().map(|c| c.objects.len()).sum();
        assert_eq!(kept, 1);
    }
}
