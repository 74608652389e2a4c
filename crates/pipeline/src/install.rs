//! What an install makes of the rendered objects before it applies them: istioctl's owner
//! labels on every object, each component's objects in apply order, and what the
//! installation owns (for prune).

use iop::IstioOperator;
use serde_json::Value;

use crate::{Error, InstallPackages, Rendered};

/// Which objects [`cluster_components`] gives istioctl's owner labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OwnerLabels {
    /// Every object, CustomResourceDefinitions included, as `istioctl install` labels them.
    All,
    /// All but CustomResourceDefinitions: the operator's. CRDs are shared by every
    /// installation, and labels naming one installation on them would be fought over by the
    /// operator's field manager and `bosun install`'s (each install's labels differ).
    NotCrds,
}

/// A rendered install as the cluster takes it.
pub struct InstallSet {
    /// The Istio version of the charts rendered (the owner labels' version).
    pub version: String,
    /// Each component's objects in apply order, carrying istioctl's owner labels.
    pub components: Vec<vocab::Component>,
    /// What this install owns: its owner labels and what each component renders (for prune).
    pub installation: vocab::Installation,
}

/// The rendered install, labelled and ordered for the cluster.
pub fn install_set(
    rendered: &Rendered,
    packages: &InstallPackages,
    which: OwnerLabels,
) -> Result<InstallSet, Error> {
    let merged = &rendered.merged;
    let version = packages.istio_version(merged)?;
    let components = cluster_components(&rendered.generated, merged, &version, which);
    let by_name: Vec<(&str, &[Value])> = rendered
        .generated
        .components
        .iter()
        .zip(&components)
        .map(|(g, c)| (g.component.name, c.objects.as_slice()))
        .collect();
    let installation = installation(merged, &version, &by_name);
    Ok(InstallSet {
        version,
        components,
        installation,
    })
}

/// The rendered components as `cluster::Client::install` takes them: each component's objects
/// in apply order, carrying istioctl's owner labels (`version`: the charts' Istio version), with
/// the components each is installed after.
pub fn cluster_components(
    generated: &manifest::generate::Generated,
    merged: &IstioOperator,
    version: &str,
    which: OwnerLabels,
) -> Vec<vocab::Component> {
    generated
        .components
        .iter()
        .map(|c| {
            let mut objects = c.objects.clone();
            manifest::order::sort_objects(&mut objects);
            let mut objects: Vec<_> = objects.into_iter().map(|o| o.into_value()).collect();
            let labels = manifest::ownership::owner_labels(merged, version, Some(c.component.name));
            for object in objects.iter_mut() {
                let crd =
                    object.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition");
                if which == OwnerLabels::All || !crd {
                    manifest::ownership::set_labels(object, &labels);
                }
            }
            vocab::Component {
                name: c.component.name.to_string(),
                display_name: c.component.display_name.to_string(),
                after: c
                    .component
                    .installed_after
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
                objects,
            }
        })
        .collect()
}

/// What prune compares the cluster with: the installation's shared labels, and for every
/// component istioctl knows the objects rendered for it now (none for disabled ones).
pub fn installation(
    merged: &IstioOperator,
    version: &str,
    rendered: &[(&str, &[Value])],
) -> vocab::Installation {
    let components = iop::component::ALL
        .iter()
        .map(|c| {
            let objects = rendered
                .iter()
                .filter(|(name, _)| *name == c.name)
                .flat_map(|(_, objects)| objects.iter().cloned())
                .collect::<Vec<_>>();
            vocab::RenderedComponent::from_objects(c.name, &objects)
        })
        .collect();
    vocab::Installation {
        owner_labels: manifest::ownership::owner_labels(merged, version, None),
        components,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn installation_lists_every_component() {
        let merged = IstioOperator::from_tree(
            serde_json::json!({"metadata": {"namespace": "ns"}, "spec": {"values": {}}}),
        );
        let pilot = [
            serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "istiod", "namespace": "ns"}}),
        ];
        let got = installation(&merged, "1.31", &[("Pilot", &pilot)]);
        let names: Vec<&str> = got.components.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "Base",
                "Pilot",
                "IngressGateways",
                "EgressGateways",
                "Cni",
                "Ztunnel"
            ]
        );
        assert_eq!(got.components[1].objects.len(), 1);
        assert!(got.components[2].objects.is_empty());
        assert!(
            !got.owner_labels
                .contains_key(vocab::labels::COMPONENT_LABEL)
        );
    }
}
