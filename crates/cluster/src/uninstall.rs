//! Uninstall: which objects `uninstall` removes (istioctl's `GetPrunedResources`).
//!
//! The scopes, istioctl's:
//! - [`UninstallScope::Purge`]: every object of any kind in [`crate::PRUNED_KINDS`] (CRDs and
//!   NetworkAttachmentDefinitions included) that has a component label, whatever installation
//!   or revision it belongs to; objects without one are never touched.
//! - [`UninstallScope::ControlPlane`]: the objects whose labels match the given ones (revision,
//!   owning IstioOperator and namespace) and whose component is one of the given ones (istioctl
//!   leaves Base out, so CRDs and the shared cluster roles stay for other revisions). CRDs and
//!   NetworkAttachmentDefinitions are not deleted.
//!
//! Purge also removes, first, every revision tag (webhook configurations and Services labelled
//! `istio.io/tag`), including those `tag set` made, which carry no component label: istioctl's
//! purge leaves them, and a tag's injector calling an istiod that is gone blocks pod creation
//! in every namespace that uses the tag.
//!
//! Both also remove the EndpointSlices an install rendered itself (the `remote` profile's
//! `istiod`, which points a remote at its primary's istiod): not among istioctl's pruned kinds,
//! so istioctl's purge leaves them behind. Only slices with a component label that no
//! Kubernetes controller manages are selected: the EndpointSlice controller copies a Service's
//! labels onto the slices it makes, so the slices of istiod's own Service carry the component
//! label too; those are the controller's, and go with their Service. They are deleted after
//! the Services and before the purge-only kinds.
//!
//! Both also remove, last, the installed-state records earlier bosun versions wrote (an
//! IstioOperator, or a ConfigMap standing in for it, labelled [`INSTALLED_STATE_LABEL`]) that
//! the scope covers; bosun no longer writes them (see `manifest::ownership`).

use std::collections::BTreeMap;

use vocab::labels::{COMPONENT_LABEL, INSTALLED_STATE_LABEL, TAG_LABEL};

use crate::listed::selector;
use crate::prune::{PRUNED_KINDS, PrunedKind};
use crate::{Client, Error, OwnedObject};

/// The kinds an installed-state record can have: the IstioOperator custom resource, or the
/// ConfigMap standing in for it.
const INSTALLED_STATE_KINDS: &[(&str, &str, &str)] = &[
    ("install.istio.io", "v1alpha1", "IstioOperator"),
    ("", "v1", "ConfigMap"),
];

/// The EndpointSlices an install renders (see the module docs): deleted with the Services.
const RENDERED_ENDPOINT_SLICES: PrunedKind = PrunedKind {
    group: "discovery.k8s.io",
    version: "v1",
    kind: "EndpointSlice",
    purge_only: false,
};

/// The selector term that leaves out the EndpointSlices Kubernetes' controllers manage.
const NOT_CONTROLLER_MANAGED: &str = "endpointslice.kubernetes.io/managed-by notin (endpointslice-controller.k8s.io,endpointslicemirroring-controller.k8s.io)";

/// Which objects [`Client::uninstall_candidates`] selects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UninstallScope {
    /// Every Istio object, CRDs included (`uninstall --purge`).
    Purge,
    /// One control plane (`uninstall --revision R`, `uninstall -f IOP`).
    ControlPlane {
        /// Labels each selected object has (for example `istio.io/rev`,
        /// `install.operator.istio.io/owning-resource-namespace`).
        labels: BTreeMap<String, String>,
        /// The component label values selected (istioctl: every component but Base).
        components: Vec<String>,
    },
}

impl Client {
    /// The objects uninstalling `scope` deletes, in deletion order (see [`crate::PRUNED_KINDS`]),
    /// installed-state records last. Lists only; deletes nothing.
    pub async fn uninstall_candidates(
        &self,
        scope: &UninstallScope,
    ) -> Result<Vec<OwnedObject>, Error> {
        let none = BTreeMap::new();
        let (object_selector, kinds, state_labels): (String, Vec<&PrunedKind>, _) = match scope {
            UninstallScope::Purge => (
                selector(&none, &[COMPONENT_LABEL], None),
                PRUNED_KINDS.iter().collect(),
                &none,
            ),
            UninstallScope::ControlPlane { labels, components } => {
                if components.is_empty() {
                    return Ok(Vec::new());
                }
                (
                    selector(
                        labels,
                        &[COMPONENT_LABEL],
                        Some((COMPONENT_LABEL, components)),
                    ),
                    PRUNED_KINDS.iter().filter(|k| !k.purge_only).collect(),
                    labels,
                )
            }
        };
        let mut out: Vec<OwnedObject> = Vec::new();
        if *scope == UninstallScope::Purge {
            // Tags without a component label (those with one are listed below); first, in
            // deletion order, like every webhook configuration.
            let tag_kinds = PRUNED_KINDS.iter().filter(|k| {
                matches!(
                    k.kind,
                    "MutatingWebhookConfiguration" | "ValidatingWebhookConfiguration" | "Service"
                )
            });
            let tags = format!("{TAG_LABEL},!{COMPONENT_LABEL}");
            out.extend(
                self.list_kinds(tag_kinds, &tags)
                    .await?
                    .into_iter()
                    .map(|l| OwnedObject {
                        component: None,
                        object: l.object,
                        uid: l.uid,
                    }),
            );
        }
        let owned = |l: crate::listed::Listed| OwnedObject {
            component: l.labels.get(COMPONENT_LABEL).cloned(),
            object: l.object,
            uid: l.uid,
        };
        let mut listed: Vec<OwnedObject> = self
            .list_kinds(kinds.into_iter(), &object_selector)
            .await?
            .into_iter()
            .map(owned)
            .collect();
        let slices = self
            .list_kinds(
                std::iter::once(&RENDERED_ENDPOINT_SLICES),
                &format!("{object_selector},{NOT_CONTROLLER_MANAGED}"),
            )
            .await?;
        // After the Services and everything else of the non-purge-only kinds.
        let at = listed
            .iter()
            .position(|o| {
                PRUNED_KINDS
                    .iter()
                    .any(|k| k.purge_only && k.kind == o.object.kind)
            })
            .unwrap_or(listed.len());
        listed.splice(at..at, slices.into_iter().map(owned));
        out.extend(listed);
        let mut state_labels = state_labels.clone();
        state_labels.insert(INSTALLED_STATE_LABEL.to_string(), "true".to_string());
        let state_selector = selector(&state_labels, &[], None);
        for (group, version, kind) in INSTALLED_STATE_KINDS {
            for l in self
                .list_labelled(group, version, kind, &state_selector)
                .await?
            {
                out.push(OwnedObject {
                    object: l.object,
                    component: None,
                    uid: l.uid,
                });
            }
        }
        Ok(out)
    }
}
