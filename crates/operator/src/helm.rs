//! Helm release records for an IstioOperator (`bosun.io/helm-releases: "true"`): what
//! `install --helm-releases` does, through the same `installer::helm_releases` code, made to
//! fit a controller that repairs drift.
//!
//! With the annotation, each reconcile asks the render for the Helm release drafts, marks the
//! objects with Helm's ownership markers ([`installer::helm_releases::mark_objects`]), applies
//! them as helm's field manager, holds the owner labels the charts do not render with the
//! operator's own manager ([`installer::helm_releases::owner_label_hold`]) and writes the records
//! (labelled with the IstioOperator, [`record_labels`]). Before each apply, the live records are
//! judged by [`installer::helm_releases::helm_change`]: a release helm changed in a way the spec
//! does not carry is held back ([`judge`]), its objects neither applied nor pruned, until the
//! spec takes the values or [`vocab::labels::OVERRIDE_HELM_CHANGES_ANNOTATION`] says to apply
//! over it. The annotation's removal and the IstioOperator's deletion remove the records the
//! operator wrote and hand the objects back from helm's manager ([`records_selector`]).
//!
//! Pure: the records are read and written by the controller, through `installer` and `cluster`.

use std::collections::{BTreeMap, BTreeSet};

use installer::helm_releases::{Draft, HelmChange};
use vocab::labels::{
    HELM_RELEASE_RECORD_LABEL, HELM_RELEASES_ANNOTATION, OVERRIDE_HELM_CHANGES_ANNOTATION,
    OWNING_RESOURCE_LABEL, OWNING_RESOURCE_NAMESPACE_LABEL,
};

use crate::owned::Owner;

type Annotations = BTreeMap<String, String>;

fn is_true(annotations: Option<&Annotations>, key: &str) -> bool {
    annotations
        .and_then(|a| a.get(key))
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
}

/// Whether the IstioOperator asks for Helm release records.
pub fn requested(annotations: Option<&Annotations>) -> bool {
    is_true(annotations, HELM_RELEASES_ANNOTATION)
}

/// Whether the IstioOperator says to apply over what helm changed.
pub fn overrides(annotations: Option<&Annotations>) -> bool {
    is_true(annotations, OVERRIDE_HELM_CHANGES_ANNOTATION)
}

/// The release labels the operator adds to the records of `owner`'s releases (helm carries
/// release labels over to the revisions it writes): which IstioOperator they belong to.
pub fn record_labels(owner: &Owner) -> BTreeMap<String, String> {
    BTreeMap::from([
        (OWNING_RESOURCE_LABEL.to_string(), owner.name.clone()),
        (
            OWNING_RESOURCE_NAMESPACE_LABEL.to_string(),
            owner.namespace.clone(),
        ),
    ])
}

/// The selector of every record the operator wrote for `owner` (helm's own revisions of those
/// releases included: they carry the release labels over).
pub fn records_selector(owner: &Owner) -> String {
    format!(
        "owner={},{HELM_RELEASE_RECORD_LABEL}=true,{OWNING_RESOURCE_LABEL}={},{OWNING_RESOURCE_NAMESPACE_LABEL}={}",
        helm_owner(),
        owner.name,
        owner.namespace
    )
}

fn helm_owner() -> &'static str {
    // helm's Secret driver's `owner` label value.
    "helm"
}

/// The drafts with the operator's record labels added.
pub fn label_drafts(drafts: &mut [Draft], owner: &Owner) {
    for draft in drafts {
        draft.labels.extend(record_labels(owner));
    }
}

/// What the live records say of each release before an apply.
#[derive(Debug, Default, PartialEq)]
pub struct Judgement {
    /// Releases helm changed in a way the spec does not carry: their objects are left alone.
    pub held: Vec<HelmChange>,
    /// Releases helm changed that the override annotation applies over anyway.
    pub overridden: Vec<HelmChange>,
}

impl Judgement {
    /// The objects (kind, namespace, name) of the held releases.
    pub fn held_objects<'a>(&self, drafts: &'a [Draft]) -> BTreeSet<&'a (String, String, String)> {
        drafts
            .iter()
            .filter(|d| {
                self.held
                    .iter()
                    .any(|h| h.release == d.release && h.namespace == d.namespace)
            })
            .flat_map(|d| &d.objects)
            .collect()
    }

    /// Whether `draft`'s release is held.
    pub fn holds(&self, draft: &Draft) -> bool {
        self.held
            .iter()
            .any(|h| h.release == draft.release && h.namespace == draft.namespace)
    }

    /// One line per held release for the status: what helm wrote and the value paths it
    /// changed (never the values), and how to go on.
    pub fn held_lines(&self) -> Vec<String> {
        self.held
            .iter()
            .map(|c| {
                format!(
                    "{}: {}; its objects are not repaired until the spec carries these values or the annotation {OVERRIDE_HELM_CHANGES_ANNOTATION}: \"true\" applies the spec over them",
                    c.describe(),
                    c.change_lines().join(", ")
                )
            })
            .collect()
    }

    /// One note per overridden release.
    pub fn overridden_notes(&self) -> Vec<String> {
        self.overridden
            .iter()
            .map(|c| {
                format!(
                    "{}: {} (applied over: {OVERRIDE_HELM_CHANGES_ANNOTATION}=true)",
                    c.describe(),
                    c.change_lines().join(", ")
                )
            })
            .collect()
    }
}

/// Sorts what helm changed (`changes`, from [`installer::helm_releases::helm_change`]) into the
/// releases held back and those applied over (`force`: the override annotation). A change this
/// render would not undo (the spec carries the values) is neither: the render is applied and
/// recorded as the next revision.
pub fn judge(changes: Vec<HelmChange>, force: bool) -> Judgement {
    let mut out = Judgement::default();
    for change in changes.into_iter().filter(HelmChange::would_undo) {
        if force {
            out.overridden.push(change);
        } else {
            out.held.push(change);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use installer::helm_releases::{ValueChange, ValueChangeKind};

    fn change(release: &str, undone: bool) -> HelmChange {
        let v = ValueChange {
            path: "pilot.env.X".into(),
            kind: ValueChangeKind::Added,
        };
        HelmChange {
            release: release.into(),
            namespace: "istio-system".into(),
            revision: 2,
            status: "deployed".into(),
            description: "Upgrade complete".into(),
            deployed: String::new(),
            bosun_revision: Some(1),
            since_bosun: true,
            chart: None,
            values: vec![v.clone()],
            undone: if undone { vec![v] } else { Vec::new() },
            chart_undone: false,
            files: Vec::new(),
            files_undone: Vec::new(),
            next: 3,
        }
    }

    #[test]
    fn annotations_are_read_as_booleans() {
        let a = BTreeMap::from([
            (HELM_RELEASES_ANNOTATION.to_string(), " True".to_string()),
            (
                OVERRIDE_HELM_CHANGES_ANNOTATION.to_string(),
                "no".to_string(),
            ),
        ]);
        assert!(requested(Some(&a)));
        assert!(!overrides(Some(&a)));
        assert!(!requested(None));
    }

    #[test]
    fn only_changes_the_render_would_undo_are_held_or_overridden() {
        let changes = vec![change("istiod", true), change("istio-base", false)];
        let held = judge(changes.clone(), false);
        assert_eq!(held.held.len(), 1);
        assert_eq!(held.held[0].release, "istiod");
        assert!(held.overridden.is_empty());
        let line = &held.held_lines()[0];
        assert!(line.contains("values.pilot.env.X added"), "{line}");
        assert!(line.contains(OVERRIDE_HELM_CHANGES_ANNOTATION), "{line}");
        let forced = judge(changes, true);
        assert!(forced.held.is_empty());
        assert_eq!(forced.overridden.len(), 1);
    }

    #[test]
    fn the_records_selector_names_the_istio_operator() {
        let owner = Owner {
            namespace: "istio-system".into(),
            name: "main".into(),
        };
        assert_eq!(
            records_selector(&owner),
            "owner=helm,bosun.io/helm-release=true,install.operator.istio.io/owning-resource=main,install.operator.istio.io/owning-resource-namespace=istio-system"
        );
    }
}
