//! `--helm-releases`: each installed component instance recorded as the Helm release Istio's
//! Helm docs name, in helm v4's own storage (the `helmrelease` crate's format), so that helm's
//! `list`, `status`, `get`, `history`, `upgrade`, `rollback` and `uninstall` work on it.
//!
//! The policy, here: which release each component is ([`release_name`]: `istio-base`,
//! `istiod` (`istiod-<revision>` for a revision), `istio-cni`, `ztunnel`, a gateway by its
//! name), in the component's namespace; the objects carry Helm's ownership markers
//! ([`mark_objects`]); a new revision only when the chart, the values or the manifest changed
//! ([`next_revision`]: the previous deployed one `superseded`, history kept to helm's default
//! of 10); a record of another chart under the same name, or a Secret of that release that is
//! not helm's format, refuses the install before anything is written ([`HelmReleases::read`]).
//! Each revision bosun writes carries its number in a release label
//! ([`vocab::labels::HELM_RECORDED_REVISION_LABEL`]), which helm carries over: a newest
//! revision with another number is helm's, and [`helm_change`] says what it changed since
//! bosun's (value paths, never values) and whether this install would undo it (the command
//! line refuses that unless forced). istioctl's owner labels the charts do not render are held
//! by bosun's own field manager ([`owner_label_hold`]), so helm's upgrades leave them.
//!
//! The objects are applied by the field manager helm uses ([`HELM_FIELD_MANAGER`]): helm v4
//! upgrades a release recorded with `apply_method: ssa` by server-side apply as manager `helm`
//! without forcing conflicts, so fields another manager owned would conflict.

use std::collections::{BTreeMap, BTreeSet};
use std::time::SystemTime;

use helmrelease::{Record, Release, Status};
use k8s_openapi::api::core::v1::Secret;
use serde_json::{Map, Value};

use crate::Install;

/// The field manager helm v4 applies as (the base name of its binary, `helm`): objects of a
/// release bosun records are applied as it, so that helm's later server-side upgrades own
/// the same fields and do not conflict.
pub const HELM_FIELD_MANAGER: &str = "helm";

/// The field managers whose fields an install that records Helm releases takes over without
/// `--force` (pure policy): bosun's own, [`crate::FIELD_MANAGER`]. An install made without
/// `--helm-releases` applied its objects as `bosun`; the first one with it applies them as
/// [`HELM_FIELD_MANAGER`], and where a value differs (a field bosun's render now sets
/// otherwise, or one whose list the API server treats as a whole) the API server reports a
/// conflict with `bosun`. Those fields are bosun's to give: they move to `helm`, and bosun's
/// manager then keeps only the owner-label holds ([`owner_label_hold`]). A conflict naming any
/// other manager (istiod's, kubectl's, another tool's) still fails the install.
pub fn managers_handed_to_helm() -> Vec<String> {
    vec![crate::FIELD_MANAGER.to_string()]
}

/// The `name`s of Istio's charts (their Chart.yaml) that bosun records releases of.
pub const ISTIO_CHARTS: [&str; 6] = [
    "base",
    "istiod",
    "istio-ingress",
    "istio-egress",
    "cni",
    "ztunnel",
];

/// Why the Helm release records could not be made, read or written.
#[derive(Debug, thiserror::Error)]
pub enum HelmReleaseError {
    #[error("helm release {release}: {source}")]
    Components {
        release: String,
        #[source]
        source: iop::operator::ComponentsError,
    },
    #[error("helm release of {component}: its values: {source}")]
    Values {
        component: String,
        #[source]
        source: iop::tree::TreeError,
    },
    #[error("helm release of {component}: loading its chart: {source}")]
    Chart {
        component: String,
        #[source]
        source: manifest::generate::LoadChartError,
    },
    #[error(transparent)]
    ChartJson(#[from] helmrelease::ChartJsonError),
    #[error("{0}; bosun writes helm release records only over helm's own (nothing was changed)")]
    NotARecord(#[from] helmrelease::RecordError),
    #[error(
        "helm release {namespace}/{release} exists with chart {found:?} (Secret {secret}), not Istio's {chart:?}: it is another chart's release of the same name; bosun leaves it alone (nothing was changed)"
    )]
    ForeignChart {
        namespace: String,
        release: String,
        secret: String,
        found: String,
        chart: String,
    },
    #[error(
        "helm release {namespace}/{release} (Secret {secret}) carries bosun's mark but its chart is {found:?}, not one of Istio's; bosun leaves it alone (nothing was changed)"
    )]
    NotIstios {
        namespace: String,
        release: String,
        secret: String,
        found: String,
    },
    #[error(
        "Secret {namespace}/{secret} is labelled as a revision of helm release {release} but holds release {found:?} (nothing was changed)"
    )]
    Mislabelled {
        namespace: String,
        secret: String,
        release: String,
        found: String,
    },
    #[error(transparent)]
    Cluster(#[from] cluster::Error),
}

/// The Helm release a component instance is recorded as, by Istio's Helm docs: `istio-base`,
/// `istiod` (`istiod-<revision>` with a revision other than `default`), `istio-cni`,
/// `ztunnel`, and a gateway by its name.
pub fn release_name(
    component: &iop::component::Component,
    spec: &iop::component::ComponentSpec,
    revision: &str,
) -> String {
    match component.name {
        "Base" => "istio-base".to_string(),
        "Pilot" if revision.is_empty() || revision == vocab::labels::DEFAULT_REVISION => {
            "istiod".to_string()
        }
        "Pilot" => format!("istiod-{revision}"),
        "Cni" => "istio-cni".to_string(),
        "Ztunnel" => "ztunnel".to_string(),
        _ if !spec.name.is_empty() => spec.name.clone(),
        _ => component.resource_name.to_string(),
    }
}

/// One component instance's release, before its revision is known.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Draft {
    /// istioctl's component name (`Base`, `Pilot`, …).
    pub component: String,
    pub release: String,
    pub namespace: String,
    /// The chart as helm stores it ([`helmrelease::chart_json`]).
    pub chart: Value,
    pub chart_name: String,
    pub chart_version: String,
    /// The values the instance rendered with (what `helm install -f` would take).
    pub config: Map<String, Value>,
    /// The objects rendered for it, as `manifest generate` prints them.
    pub manifest: String,
    /// Kind, namespace and name of each object: which objects get this release's markers.
    pub objects: Vec<(String, String, String)>,
    /// The label keys the chart itself renders on each object (as [`Draft::objects`]): helm's
    /// own render of the release sets them too.
    pub chart_label_keys: Vec<BTreeSet<String>>,
    /// The release's own labels: bosun's mark, the revision and the component.
    pub labels: BTreeMap<String, String>,
}

/// The releases an install records, made from its render ([`Install::helm_release_drafts`]).
pub struct HelmReleases {
    pub drafts: Vec<Draft>,
}

impl Install {
    /// Each rendered component instance as a Helm release draft: its chart (loaded again from
    /// the install package), the values it rendered with and its rendered objects
    /// ([`drafts`] over this install's render).
    pub fn helm_release_drafts(&self) -> Result<HelmReleases, HelmReleaseError> {
        Ok(HelmReleases {
            drafts: drafts(&self.merged, &self.packages, &self.generated)?,
        })
    }

    /// Puts Helm's ownership markers on every object of a recorded release (the
    /// `app.kubernetes.io/managed-by: Helm` label and the `meta.helm.sh/release-name` and
    /// `-namespace` annotations), as helm puts them on what it applies.
    ///
    /// Also makes the install's owner-label holds ([`owner_label_hold`]): istioctl's owner
    /// labels the charts do not render, applied once more by bosun's own field manager so that
    /// a later `helm upgrade` (whose render lacks them) does not remove them.
    pub fn mark_helm_objects(&mut self, releases: &HelmReleases) {
        let owner = self.installation.owner_labels.clone();
        let mut holds = Vec::new();
        for component in &mut self.components {
            for object in &mut component.objects {
                mark_objects(object, &releases.drafts);
                holds.extend(owner_label_hold(object, &releases.drafts, &owner));
            }
        }
        self.owner_label_holds = holds;
        // The install's own injector as rendered, kept for the default tag (which is made from
        // it, and copies its annotations): marked as the applied one is.
        if let Some(injector) = &mut self.default_tag.deactivated_injector {
            mark_objects(injector, &releases.drafts);
        }
    }
}

impl Install {
    /// The namespace and name of the release each rendered component instance is recorded as
    /// ([`release_name`]), without loading any chart: what [`Install::recorded_before`] looks
    /// for.
    pub fn helm_release_names(&self) -> Result<Vec<(String, String)>, HelmReleaseError> {
        let components =
            self.merged
                .components()
                .map_err(|source| HelmReleaseError::Components {
                    release: String::new(),
                    source,
                })?;
        let revision = self.revision().to_string();
        let mut names = Vec::new();
        for generated in &self.generated.components {
            let comp = generated.component;
            if let Some((_, specs)) = components
                .instances
                .iter()
                .find(|(c, _)| c.name == comp.name)
            {
                for spec in specs.iter().take(generated.instance_sizes.len()) {
                    names.push((spec.namespace.clone(), release_name(comp, spec, &revision)));
                }
            }
        }
        Ok(names)
    }

    /// The releases of this install that bosun recorded before ([`recorded_before`]), read from
    /// the helm records bosun marked in the namespaces the releases go to. Reads only; a Secret
    /// that is not helm's format is passed over here (recording reads and refuses it).
    pub async fn recorded_before(
        &self,
        client: &cluster::Client,
    ) -> Result<Vec<RecordedBefore>, HelmReleaseError> {
        let names = self.helm_release_names()?;
        let namespaces: BTreeSet<&str> = names.iter().map(|(ns, _)| ns.as_str()).collect();
        let selector = format!(
            "owner={},{}=true",
            helmrelease::OWNER,
            vocab::labels::HELM_RELEASE_RECORD_LABEL
        );
        let mut records = Vec::new();
        for namespace in namespaces {
            for secret in client.labelled_secrets(Some(namespace), &selector).await? {
                records.extend(Record::from_secret(&secret).ok());
            }
        }
        Ok(recorded_before(&names, &records))
    }
}

/// A release bosun recorded an install as, found again by an install not asked to record
/// ([`recorded_before`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedBefore {
    pub namespace: String,
    pub release: String,
    /// Its newest revision.
    pub revision: u32,
}

/// Which of the releases `names` (namespace, release) bosun recorded before (pure): those with
/// records carrying bosun's mark ([`vocab::labels::HELM_RELEASE_RECORD_LABEL`], which helm
/// carries over to the revisions it writes) whose newest revision is not `uninstalled`. An
/// install without `--helm-releases` keeps recording these (the command line says so): left
/// alone, their records would go stale, and helm would show an old manifest and old values as
/// deployed. Releases helm installed itself carry no mark: they are `--adopt`'s.
pub fn recorded_before(names: &[(String, String)], records: &[Record]) -> Vec<RecordedBefore> {
    names
        .iter()
        .filter_map(|(namespace, release)| {
            let newest = records
                .iter()
                .filter(|r| {
                    r.namespace == *namespace
                        && r.name() == Some(release.as_str())
                        && r.labels
                            .get(vocab::labels::HELM_RELEASE_RECORD_LABEL)
                            .is_some_and(|v| v == "true")
                })
                .max_by_key(|r| r.version())?;
            (newest.status() != Status::Uninstalled.as_str()).then(|| RecordedBefore {
                namespace: namespace.clone(),
                release: release.clone(),
                revision: newest.version().unwrap_or_default(),
            })
        })
        .collect()
}

/// Each instance of a render as a Helm release draft (pure but for reading the charts from
/// the install package again): its chart, the values it rendered with and its objects, as
/// `manifest generate` prints them. What `install --helm-releases` records, and what the
/// operator's render hands back for an IstioOperator that asks for Helm release records.
pub fn drafts(
    merged: &iop::IstioOperator,
    packages: &pipeline::InstallPackages,
    generated: &manifest::generate::Generated,
) -> Result<Vec<Draft>, HelmReleaseError> {
    let components = merged
        .components()
        .map_err(|source| HelmReleaseError::Components {
            release: String::new(),
            source,
        })?;
    let load = packages.chart_loader();
    let package = merged.install_package_path().unwrap_or_default();
    let revision = merged.revision_or_default().to_string();
    let mut drafts = Vec::new();
    for generated in &generated.components {
        let comp = generated.component;
        let Some((_, specs)) = components
            .instances
            .iter()
            .find(|(c, _)| c.name == comp.name)
        else {
            continue;
        };
        let chart = load(package, comp.chart_dir).map_err(|source| HelmReleaseError::Chart {
            component: comp.name.to_string(),
            source,
        })?;
        let chart_json = helmrelease::chart_json(&chart)?;
        let mut start = 0;
        for (spec, size) in specs.iter().zip(&generated.instance_sizes) {
            let mut objects: Vec<&manifest::object::Object> =
                generated.objects[start..start + size].iter().collect();
            start += size;
            manifest::order::sort_objects(&mut objects);
            let docs: Vec<String> = objects
                .iter()
                .map(|o| {
                    o.kept_yaml()
                        .map(str::to_string)
                        .unwrap_or_else(|| o.to_yaml())
                })
                .collect();
            let values_tree = iop::translate::component_values(comp, spec, &components.tree)
                .map_err(|source| HelmReleaseError::Values {
                    component: comp.name.to_string(),
                    source,
                })?;
            let config = iop::tree::get_path_map(&values_tree, "spec.values")
                .cloned()
                .unwrap_or_default();
            let release = release_name(comp, spec, &revision);
            let labels = BTreeMap::from([
                (
                    vocab::labels::HELM_RELEASE_RECORD_LABEL.to_string(),
                    "true".to_string(),
                ),
                (
                    vocab::labels::COMPONENT_LABEL.to_string(),
                    comp.name.to_string(),
                ),
                (vocab::labels::REVISION_LABEL.to_string(), revision.clone()),
            ]);
            drafts.push(Draft {
                component: comp.name.to_string(),
                release,
                namespace: spec.namespace.clone(),
                chart: chart_json.clone(),
                chart_name: chart.metadata.name.clone(),
                chart_version: chart.metadata.version.clone(),
                config,
                manifest: helmrelease::manifest_text(docs.iter().map(String::as_str)),
                objects: objects
                    .iter()
                    .map(|o| {
                        (
                            o.kind().to_string(),
                            o.namespace().to_string(),
                            o.name().to_string(),
                        )
                    })
                    .collect(),
                chart_label_keys: objects
                    .iter()
                    .map(|o| {
                        o.value()
                            .pointer("/metadata/labels")
                            .and_then(Value::as_object)
                            .map(|l| l.keys().cloned().collect())
                            .unwrap_or_default()
                    })
                    .collect(),
                labels,
            });
        }
    }
    Ok(drafts)
}

/// Marks `object` with the release of `drafts` that renders it, if one does.
pub fn mark_objects(object: &mut Value, drafts: &[Draft]) {
    let field = |o: &Value, p: &str| {
        o.pointer(p)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let key = (
        field(object, "/kind"),
        field(object, "/metadata/namespace"),
        field(object, "/metadata/name"),
    );
    let Some(draft) = drafts.iter().find(|d| d.objects.contains(&key)) else {
        return;
    };
    let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    let mut put = |map: &str, key: &str, value: &str| {
        let entry = metadata
            .entry(map.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
        if !entry.is_object() {
            *entry = Value::Object(Map::new());
        }
        if let Some(m) = entry.as_object_mut() {
            m.insert(key.to_string(), Value::String(value.to_string()));
        }
    };
    put(
        "labels",
        vocab::labels::MANAGED_BY_LABEL,
        vocab::labels::HELM_MANAGED_BY_VALUE,
    );
    put(
        "annotations",
        vocab::labels::HELM_RELEASE_NAME_ANNOTATION,
        &draft.release,
    );
    put(
        "annotations",
        vocab::labels::HELM_RELEASE_NAMESPACE_ANNOTATION,
        &draft.namespace,
    );
}

/// The owner-label hold of `object` when one of `drafts` records it (pure): the object's
/// identity and those of its labels that are istioctl's owner labels (`owner`, and the
/// component label) but that the chart does not render. Applied by bosun's field manager, those
/// labels are then co-owned by `bosun` beside `helm`, so helm's next server-side apply, whose
/// render lacks them, leaves them on the object (it removes only fields no other manager owns);
/// and as helm never sends them, helm never conflicts with them. Labels the chart renders stay
/// helm's alone: holding one helm renders with another value would make `helm upgrade` fail on
/// a conflict.
pub fn owner_label_hold(
    object: &Value,
    drafts: &[Draft],
    owner: &BTreeMap<String, String>,
) -> Option<Value> {
    let field = |p: &str| object.pointer(p).and_then(Value::as_str).unwrap_or("");
    let key = (
        field("/kind").to_string(),
        field("/metadata/namespace").to_string(),
        field("/metadata/name").to_string(),
    );
    let (draft, at) = drafts
        .iter()
        .find_map(|d| d.objects.iter().position(|o| *o == key).map(|i| (d, i)))?;
    let rendered = draft.chart_label_keys.get(at)?;
    let labels = object
        .pointer("/metadata/labels")
        .and_then(Value::as_object)?;
    let held: Map<String, Value> = labels
        .iter()
        .filter(|(k, _)| {
            (owner.contains_key(*k) || *k == vocab::labels::COMPONENT_LABEL)
                && !rendered.contains(*k)
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if held.is_empty() {
        return None;
    }
    let mut metadata = Map::new();
    metadata.insert("name".into(), Value::String(key.2.clone()));
    if !key.1.is_empty() {
        metadata.insert("namespace".into(), Value::String(key.1.clone()));
    }
    metadata.insert("labels".into(), Value::Object(held));
    let mut hold = Map::new();
    hold.insert(
        "apiVersion".into(),
        object.get("apiVersion").cloned().unwrap_or(Value::Null),
    );
    hold.insert("kind".into(), Value::String(key.0));
    hold.insert("metadata".into(), Value::Object(metadata));
    Some(Value::Object(hold))
}

/// What one release's record needs: the Secrets to create, replace and delete.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RevisionWrites {
    /// The new revision (none when nothing changed).
    pub create: Option<Secret>,
    /// Earlier revisions re-labelled (`deployed` → `superseded`).
    pub replace: Vec<Secret>,
    /// Revisions beyond the history bound, by Secret name.
    pub delete: Vec<String>,
    /// The release's revision after the writes.
    pub version: u32,
}

/// The revision the draft makes over the release's `existing` records (pure): none when the
/// newest is deployed with the same chart, values and manifest; else the next version
/// (`Install complete` for the first, `Upgrade complete` after), every deployed one
/// `superseded`, the oldest deleted beyond `max_history` (0: no bound). `now` is the time of
/// the writes. Records of another chart or release are refused.
pub fn next_revision(
    draft: &Draft,
    existing: &[Record],
    now: SystemTime,
    max_history: usize,
) -> Result<RevisionWrites, HelmReleaseError> {
    for record in existing {
        let found_release = record.name().unwrap_or_default();
        if found_release != draft.release {
            return Err(HelmReleaseError::Mislabelled {
                namespace: draft.namespace.clone(),
                secret: record.secret.clone(),
                release: draft.release.clone(),
                found: found_release.to_string(),
            });
        }
        let chart = record.chart_name().unwrap_or_default();
        if chart != draft.chart_name {
            return Err(HelmReleaseError::ForeignChart {
                namespace: draft.namespace.clone(),
                release: draft.release.clone(),
                secret: record.secret.clone(),
                found: chart.to_string(),
                chart: draft.chart_name.clone(),
            });
        }
    }
    let since = now
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = since.as_secs() as i64;
    let now_text = helmrelease::go_time(secs, since.subsec_nanos());
    let newest = existing.iter().max_by_key(|r| r.version());
    if let Some(newest) = newest
        && newest.status() == Status::Deployed.as_str()
        && newest.chart_version() == draft.chart_version
        && newest.config() == draft.config
        && newest.manifest() == draft.manifest
    {
        return Ok(RevisionWrites {
            version: newest.version().unwrap_or_default(),
            ..Default::default()
        });
    }
    let version = newest.and_then(Record::version).unwrap_or(0) + 1;
    let release = Release {
        name: draft.release.clone(),
        namespace: draft.namespace.clone(),
        version,
        status: Status::Deployed,
        description: if newest.is_some() {
            "Upgrade complete".into()
        } else {
            "Install complete".into()
        },
        first_deployed: newest
            .and_then(Record::first_deployed)
            .map(str::to_string)
            .unwrap_or_else(|| now_text.clone()),
        last_deployed: now_text,
        chart: draft.chart.clone(),
        config: draft.config.clone(),
        manifest: draft.manifest.clone(),
        labels: newest
            .map(Record::own_labels)
            .unwrap_or_default()
            .into_iter()
            .chain(draft.labels.clone())
            .chain([(
                vocab::labels::HELM_RECORDED_REVISION_LABEL.to_string(),
                version.to_string(),
            )])
            .collect(),
        apply_method: helmrelease::APPLY_METHOD_SERVER_SIDE.into(),
    };
    let replace = existing
        .iter()
        .filter(|r| r.status() == Status::Deployed.as_str())
        .map(|r| r.with_status(Status::Superseded, secs))
        .collect();
    let mut by_age: Vec<&Record> = existing.iter().collect();
    by_age.sort_by_key(|r| r.version());
    let total = existing.len() + 1;
    let delete = if max_history > 0 && total > max_history {
        by_age[..total - max_history]
            .iter()
            .map(|r| r.secret.clone())
            .collect()
    } else {
        Vec::new()
    };
    Ok(RevisionWrites {
        create: Some(release.to_secret(secs)),
        replace,
        delete,
        version,
    })
}

/// How a value changed between two revisions' values (helm's `config`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueChangeKind {
    Added,
    Changed,
    Removed,
}

impl std::fmt::Display for ValueChangeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ValueChangeKind::Added => "added",
            ValueChangeKind::Changed => "changed",
            ValueChangeKind::Removed => "removed",
        })
    }
}

/// One value path that differs (the values themselves are not kept: they may be secrets).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueChange {
    /// The path in the chart's values, dot-separated (`pilot.env.FOO`; a dot inside a key is
    /// written `\.`, list items by index or `[name:x]`).
    pub path: String,
    pub kind: ValueChangeKind,
}

/// The paths where `to` differs from `from` (paths only), down to each leaf: a map added or
/// removed whole is listed by the paths of its leaves (`pilot.env.FOO added`, not `pilot.env
/// added`), the paths `--set values.…` would take.
pub fn value_changes(from: &Map<String, Value>, to: &Map<String, Value>) -> Vec<ValueChange> {
    let mut out = Vec::new();
    for change in
        manifest::diff::compare_values(&Value::Object(from.clone()), &Value::Object(to.clone()))
    {
        match change {
            manifest::diff::Change::Added { path, new } => {
                leaves(&path, &new, ValueChangeKind::Added, &mut out)
            }
            manifest::diff::Change::Removed { path, old } => {
                leaves(&path, &old, ValueChangeKind::Removed, &mut out)
            }
            manifest::diff::Change::Changed { path, .. } => out.push(ValueChange {
                path,
                kind: ValueChangeKind::Changed,
            }),
        }
    }
    out
}

/// The leaf paths of `value` at `path` (a non-empty map's entries; anything else is a leaf).
fn leaves(path: &str, value: &Value, kind: ValueChangeKind, out: &mut Vec<ValueChange>) {
    match value.as_object() {
        Some(map) if !map.is_empty() => {
            for (k, v) in map {
                let seg = k.replace('.', "\\.");
                let child = if path.is_empty() {
                    seg
                } else {
                    format!("{path}.{seg}")
                };
                leaves(&child, v, kind, out);
            }
        }
        _ => out.push(ValueChange {
            path: path.to_string(),
            kind,
        }),
    }
}

/// One file of a chart that differs between two revisions' charts (a template, a file under
/// `files/`, `values.schema.json`), by its path in the chart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub path: String,
    pub kind: ValueChangeKind,
}

/// The files where chart `to` differs from chart `from` (both as helm stores them in a
/// release), in path order: a chart of the same name and version changed by hand (a patched
/// local copy `helm upgrade` was given) differs here and nowhere else.
pub fn chart_file_changes(from: &Value, to: &Value) -> Vec<FileChange> {
    let (from, to) = (helmrelease::chart_files(from), helmrelease::chart_files(to));
    let paths: BTreeSet<&String> = from.keys().chain(to.keys()).collect();
    paths
        .into_iter()
        .filter_map(|path| {
            let kind = match (from.get(path), to.get(path)) {
                (None, Some(_)) => ValueChangeKind::Added,
                (Some(_), None) => ValueChangeKind::Removed,
                (Some(a), Some(b)) if a != b => ValueChangeKind::Changed,
                _ => return None,
            };
            Some(FileChange {
                path: path.clone(),
                kind,
            })
        })
        .collect()
}

/// Whether two value paths name the same value or one lies inside the other.
fn paths_overlap(a: &str, b: &str) -> bool {
    let inside = |long: &str, short: &str| {
        long.strip_prefix(short)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('.') || rest.starts_with('['))
    };
    inside(a, b) || inside(b, a)
}

/// A release whose newest revision bosun did not write: helm (or another tool) changed it after
/// bosun's last record ([`helm_change`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelmChange {
    pub release: String,
    pub namespace: String,
    /// The newest revision, its status, description (`Upgrade complete`, `Rollback to 1`)
    /// and when it was deployed.
    pub revision: u32,
    pub status: String,
    pub description: String,
    pub deployed: String,
    /// The revision bosun wrote last (its mark carried over), when known.
    pub bosun_revision: Option<u32>,
    /// Whether bosun's last revision is still in the history (helm keeps 10): the changes are
    /// then counted from it, else from what this install would record.
    pub since_bosun: bool,
    /// The chart versions, bosun's last and the newest, when they differ.
    pub chart: Option<(String, String)>,
    /// The value paths helm changed (from bosun's last revision to the newest).
    pub values: Vec<ValueChange>,
    /// Those of [`HelmChange::values`] this install's values do not carry (it would undo
    /// them), and whether its chart version differs from the newest revision's.
    pub undone: Vec<ValueChange>,
    pub chart_undone: bool,
    /// The chart's files helm's revision changed (from bosun's last revision's chart to the
    /// newest's, or from the chart this install renders when bosun's is gone): templates,
    /// `files/`, `values.schema.json`, by path.
    pub files: Vec<FileChange>,
    /// Those of [`HelmChange::files`] the chart this install renders does not have as the
    /// newest revision has them (the install would undo them).
    pub files_undone: Vec<FileChange>,
    /// The revision this install would record.
    pub next: u32,
}

impl HelmChange {
    /// Whether the install would undo something helm changed: values this install's do not
    /// carry, or another chart version.
    pub fn would_undo(&self) -> bool {
        !self.undone.is_empty() || self.chart_undone || !self.files_undone.is_empty()
    }

    /// What the user can do instead of undoing helm's change, in words: take changed values
    /// into the IstioOperator, render from a chart with helm's changed files, or `--force`.
    pub fn ways_on(&self) -> String {
        let mut ways = Vec::new();
        if !self.undone.is_empty() {
            ways.push("take the values into the IstioOperator");
        }
        if !self.files_undone.is_empty() {
            ways.push("install from charts with helm's changed files (--manifests)");
        }
        ways.push("install with --force");
        ways.join(", or ")
    }

    /// `istio-system/istiod revision 2 (Upgrade complete, deployed at …)`.
    pub fn describe(&self) -> String {
        let mut out = format!(
            "helm release {}/{}: revision {} ({}",
            self.namespace, self.release, self.revision, self.status
        );
        if !self.description.is_empty() {
            out.push_str(&format!(", {:?}", self.description));
        }
        if !self.deployed.is_empty() {
            out.push_str(&format!(", at {}", self.deployed));
        }
        out.push_str(") was not written by bosun");
        match self.bosun_revision {
            Some(r) => out.push_str(&format!("; bosun wrote revision {r} last")),
            None => out.push_str("; bosun's revision is not known"),
        }
        out
    }

    /// The changes, one line each (paths only, never values): the chart version, then each
    /// value path, marked when this install would undo it.
    pub fn change_lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if let Some((ours, theirs)) = &self.chart {
            lines.push(format!("chart version {ours} → {theirs}"));
        } else if self.chart_undone {
            lines.push("chart version: this install's differs".to_string());
        }
        for f in &self.files {
            let undone = if self.files_undone.contains(f) {
                ""
            } else {
                " — in this install's chart"
            };
            lines.push(format!("chart file {} {}{undone}", f.path, f.kind));
        }
        let from = if self.since_bosun {
            String::new()
        } else {
            " (bosun's revision is no longer in helm's history: compared with this install's values)"
                .to_string()
        };
        for v in &self.values {
            let undone = if self.undone.contains(v) {
                ""
            } else {
                " — in this install's values"
            };
            lines.push(format!("values.{} {}{undone}", v.path, v.kind));
        }
        if self.values.is_empty() {
            lines.push(format!("no value changed{from}"));
        } else if !from.is_empty() {
            lines.push(from.trim_start().to_string());
        }
        lines
    }
}

/// Whether the newest of a release's `existing` records was written by someone else than
/// bosun after bosun's own (pure): bosun's mark ([`vocab::labels::HELM_RECORDED_REVISION_LABEL`],
/// carried over by helm) names another revision than the record's. A release without records,
/// or whose newest record carries no mark (records of bosun before the mark, or not bosun's at
/// all: those are `--adopt`'s business), gives none. What changed is counted from bosun's last
/// revision when helm kept it, else from the draft's values; each change the draft's values do
/// not carry too is one the install would undo.
pub fn helm_change(draft: &Draft, existing: &[Record]) -> Option<HelmChange> {
    let newest = existing.iter().max_by_key(|r| r.version())?;
    let revision = newest.version()?;
    let mark = |r: &Record| {
        r.labels
            .get(vocab::labels::HELM_RECORDED_REVISION_LABEL)
            .and_then(|m| m.parse::<u32>().ok())
    };
    newest
        .labels
        .get(vocab::labels::HELM_RECORDED_REVISION_LABEL)?;
    if mark(newest) == Some(revision) {
        return None;
    }
    // bosun's last: the newest record whose mark is its own number; else (helm kept none of
    // bosun's) the revision the newest one's mark names (a rollback carries the mark of the
    // revision it rolled back to).
    let bosun_revision = existing
        .iter()
        .filter(|r| r.version().is_some() && mark(r) == r.version())
        .filter_map(Record::version)
        .max()
        .or_else(|| mark(newest));
    let ours = bosun_revision.and_then(|b| existing.iter().find(|r| r.version() == Some(b)));
    let theirs = newest.config();
    let chart_of = |r: &Record| -> Value { r.body.get("chart").cloned().unwrap_or(Value::Null) };
    let their_chart = chart_of(newest);
    let (values, chart, files) = match ours {
        Some(ours) => (
            value_changes(&ours.config(), &theirs),
            (ours.chart_version() != newest.chart_version()).then(|| {
                (
                    ours.chart_version().to_string(),
                    newest.chart_version().to_string(),
                )
            }),
            // Only within one chart version: another version's files differ as a matter of
            // course, and the version says it.
            if ours.chart_version() == newest.chart_version() {
                chart_file_changes(&chart_of(ours), &their_chart)
            } else {
                Vec::new()
            },
        ),
        None if draft.chart_version == newest.chart_version() => (
            value_changes(&draft.config, &theirs),
            None,
            chart_file_changes(&draft.chart, &their_chart),
        ),
        None => (value_changes(&draft.config, &theirs), None, Vec::new()),
    };
    let against_draft_files = chart_file_changes(&their_chart, &draft.chart);
    let files_undone = files
        .iter()
        .filter(|f| against_draft_files.iter().any(|d| d.path == f.path))
        .cloned()
        .collect();
    let against_draft = value_changes(&theirs, &draft.config);
    let undone = values
        .iter()
        .filter(|v| {
            against_draft
                .iter()
                .any(|d| paths_overlap(&v.path, &d.path))
        })
        .cloned()
        .collect();
    let str_at = |p: &str| {
        newest
            .body
            .pointer(p)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    Some(HelmChange {
        release: draft.release.clone(),
        namespace: draft.namespace.clone(),
        revision,
        status: newest.status().to_string(),
        description: str_at("/info/description"),
        deployed: str_at("/info/last_deployed"),
        bosun_revision,
        since_bosun: ours.is_some(),
        chart,
        values,
        undone,
        chart_undone: newest.chart_version() != draft.chart_version,
        files,
        files_undone,
        next: revision + 1,
    })
}

/// What recording would do to one release ([`HelmReleases::planned`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedRelease {
    pub release: String,
    pub namespace: String,
    /// Its newest revision now (0: none yet).
    pub current: u32,
    /// The revision after the install (`current` when nothing changed).
    pub next: u32,
}

/// What recording did to one release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    pub release: String,
    pub namespace: String,
    pub version: u32,
    /// A new revision was written (else nothing changed).
    pub written: bool,
}

impl HelmReleases {
    /// Reads the live records of every release and checks them (reads only): a record of
    /// another chart under one of the names, or a Secret of one of them that is not helm's
    /// format, fails here, before the install writes anything.
    pub async fn read(
        &self,
        client: &cluster::Client,
    ) -> Result<Vec<Vec<Record>>, HelmReleaseError> {
        let mut all = Vec::new();
        for draft in &self.drafts {
            let secrets = client
                .labelled_secrets(
                    Some(&draft.namespace),
                    &helmrelease::selector(&draft.release),
                )
                .await?;
            let records = secrets
                .iter()
                .map(Record::from_secret)
                .collect::<Result<Vec<_>, _>>()?;
            // Checked now, with the clock's time standing in for the later one.
            next_revision(
                draft,
                &records,
                SystemTime::now(),
                helmrelease::DEFAULT_MAX_HISTORY,
            )?;
            all.push(records);
        }
        Ok(all)
    }

    /// The releases helm (or another tool) changed after bosun's last record
    /// ([`helm_change`]), from the records [`HelmReleases::read`] gave (pure).
    pub fn helm_changes(&self, records: &[Vec<Record>]) -> Vec<HelmChange> {
        self.drafts
            .iter()
            .zip(records)
            .filter_map(|(draft, records)| helm_change(draft, records))
            .collect()
    }

    /// What recording would do to each release, from the records [`HelmReleases::read`] gave
    /// (pure): its revision now (0 when there is none) and the one this install would
    /// record (the same when nothing changed).
    pub fn planned(
        &self,
        records: &[Vec<Record>],
    ) -> Result<Vec<PlannedRelease>, HelmReleaseError> {
        self.drafts
            .iter()
            .zip(records)
            .map(|(draft, records)| {
                let now = records
                    .iter()
                    .filter_map(Record::version)
                    .max()
                    .unwrap_or(0);
                let writes = next_revision(
                    draft,
                    records,
                    SystemTime::now(),
                    helmrelease::DEFAULT_MAX_HISTORY,
                )?;
                Ok(PlannedRelease {
                    release: draft.release.clone(),
                    namespace: draft.namespace.clone(),
                    current: now,
                    next: writes.version,
                })
            })
            .collect()
    }

    /// Writes each release's next revision (after the install applied its objects): the new
    /// record first, then the earlier ones superseded, then the oldest beyond helm's history
    /// bound deleted.
    pub async fn write(
        &self,
        client: &cluster::Client,
        now: SystemTime,
    ) -> Result<Vec<Recorded>, HelmReleaseError> {
        let existing = self.read(client).await?;
        let mut out = Vec::new();
        for (draft, records) in self.drafts.iter().zip(&existing) {
            let writes = next_revision(draft, records, now, helmrelease::DEFAULT_MAX_HISTORY)?;
            let written = writes.create.is_some();
            if let Some(secret) = &writes.create {
                client.write_secret(secret, false).await?;
            }
            for secret in &writes.replace {
                client.write_secret(secret, true).await?;
            }
            for name in &writes.delete {
                client.delete_secret(&draft.namespace, name).await?;
            }
            out.push(Recorded {
                release: draft.release.clone(),
                namespace: draft.namespace.clone(),
                version: writes.version,
                written,
            });
        }
        Ok(out)
    }
}

/// The Helm release records bosun wrote (its mark on them), in every namespace, or only those
/// of `revision` and not of the Base component when `revision` is given (what `uninstall`
/// removes with one control plane). Every one is checked to be helm's format first.
pub async fn owned_records(
    client: &cluster::Client,
    revision: Option<&str>,
) -> Result<Vec<Record>, HelmReleaseError> {
    let selector = format!(
        "owner={},{}=true",
        helmrelease::OWNER,
        vocab::labels::HELM_RELEASE_RECORD_LABEL
    );
    let secrets = client.labelled_secrets(None, &selector).await?;
    let records = secrets
        .iter()
        .map(Record::from_secret)
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(r) = records
        .iter()
        .find(|r| !ISTIO_CHARTS.contains(&r.chart_name().unwrap_or_default()))
    {
        return Err(HelmReleaseError::NotIstios {
            namespace: r.namespace.clone(),
            release: r.name().unwrap_or_default().to_string(),
            secret: r.secret.clone(),
            found: r.chart_name().unwrap_or_default().to_string(),
        });
    }
    Ok(records
        .into_iter()
        .filter(|r| match revision {
            None => true,
            Some(rev) => {
                r.labels
                    .get(vocab::labels::REVISION_LABEL)
                    .map(String::as_str)
                    == Some(rev)
                    && r.labels
                        .get(vocab::labels::COMPONENT_LABEL)
                        .map(String::as_str)
                        != Some("Base")
            }
        })
        .collect())
}

/// The Helm release records in `namespaces` that `selector` finds (each decoded; a Secret
/// that is not helm's format is an error): the records an owner labelled as its own, as the
/// operator labels those of an IstioOperator.
pub async fn labelled_records(
    client: &cluster::Client,
    namespaces: &BTreeSet<String>,
    selector: &str,
) -> Result<Vec<Record>, HelmReleaseError> {
    let mut records = Vec::new();
    for namespace in namespaces {
        for secret in client.labelled_secrets(Some(namespace), selector).await? {
            records.push(Record::from_secret(&secret)?);
        }
    }
    Ok(records)
}

/// Hands objects a recorded release held back from helm: helm's field manager entries and
/// its release annotations are removed from each (what adopting does; the fields stay with
/// the manager that applied them too). Returns how many objects changed.
pub async fn release_objects(
    client: &cluster::Client,
    objects: &[vocab::ObjectRef],
) -> Result<usize, HelmReleaseError> {
    let mut changed = 0;
    for object in objects {
        if client
            .drop_field_manager(
                object,
                HELM_FIELD_MANAGER,
                &[
                    vocab::labels::HELM_RELEASE_NAME_ANNOTATION,
                    vocab::labels::HELM_RELEASE_NAMESPACE_ANNOTATION,
                ],
            )
            .await?
        {
            changed += 1;
        }
    }
    Ok(changed)
}

/// Deletes `records` (from [`owned_records`]).
pub async fn delete_records(
    client: &cluster::Client,
    records: &[Record],
) -> Result<(), HelmReleaseError> {
    for record in records {
        client
            .delete_secret(&record.namespace, &record.secret)
            .await?;
    }
    Ok(())
}

/// The field manager an install applies as: helm's when it records Helm releases (helm's later
/// upgrades then own the same fields), else bosun's.
pub fn field_manager(helm_releases: bool) -> &'static str {
    if helm_releases {
        HELM_FIELD_MANAGER
    } else {
        crate::FIELD_MANAGER
    }
}

/// The field managers an install takes fields over from without `--force`: with
/// `helm_releases`, bosun's own (they move to helm's manager), else none.
pub fn taken_over_from(helm_releases: bool) -> Vec<String> {
    if helm_releases {
        managers_handed_to_helm()
    } else {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::time::Duration;

    fn draft(config: Value) -> Draft {
        Draft {
            component: "Pilot".into(),
            release: "istiod".into(),
            namespace: "istio-system".into(),
            chart: json!({"metadata": {"name": "istiod", "version": "1.2.3"}}),
            chart_name: "istiod".into(),
            chart_version: "1.2.3".into(),
            config: config.as_object().unwrap().clone(),
            manifest: "---\na: 1\n".into(),
            objects: vec![("ConfigMap".into(), "istio-system".into(), "istio".into())],
            chart_label_keys: vec![BTreeSet::from(["istio.io/rev".to_string()])],
            labels: BTreeMap::from([(
                vocab::labels::HELM_RELEASE_RECORD_LABEL.into(),
                "true".into(),
            )]),
        }
    }

    fn at(secs: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
    }

    fn read(secret: &Secret) -> Record {
        Record::from_secret(secret).unwrap()
    }

    #[test]
    fn revisions_follow_helms_rules() {
        let d = draft(json!({"a": 1}));
        let first = next_revision(&d, &[], at(100), 10).unwrap();
        assert_eq!(first.version, 1);
        let v1 = read(first.create.as_ref().unwrap());
        assert_eq!(v1.body["info"]["description"], "Install complete");
        assert_eq!(v1.body["info"]["first_deployed"], "1970-01-01T00:01:40Z");
        assert_eq!(v1.body["apply_method"], "ssa");
        assert!(first.replace.is_empty() && first.delete.is_empty());

        // The same chart, values and manifest: nothing to write.
        let same = next_revision(&d, std::slice::from_ref(&v1), at(200), 10).unwrap();
        assert_eq!(
            same,
            RevisionWrites {
                version: 1,
                ..Default::default()
            }
        );

        // Other values: revision 2, the first superseded, first_deployed kept.
        let changed = next_revision(
            &draft(json!({"a": 2})),
            std::slice::from_ref(&v1),
            at(300),
            10,
        )
        .unwrap();
        assert_eq!(changed.version, 2);
        let v2 = read(changed.create.as_ref().unwrap());
        assert_eq!(v2.body["info"]["description"], "Upgrade complete");
        assert_eq!(v2.body["info"]["first_deployed"], "1970-01-01T00:01:40Z");
        assert_eq!(v2.body["info"]["last_deployed"], "1970-01-01T00:05:00Z");
        assert_eq!(changed.replace.len(), 1);
        assert_eq!(read(&changed.replace[0]).status(), "superseded");
        assert_eq!(read(&changed.replace[0]).version(), Some(1));
    }

    /// The revision helm's upgrade writes over `previous`: its release labels carried over
    /// (bosun's mark among them), other values.
    fn helm_upgrade(previous: &Record, config: Value, chart_version: &str) -> Record {
        let version = previous.version().unwrap() + 1;
        read(
            &helmrelease::Release {
                name: "istiod".into(),
                namespace: "istio-system".into(),
                version,
                status: Status::Deployed,
                description: "Upgrade complete".into(),
                first_deployed: "1970-01-01T00:01:40Z".into(),
                last_deployed: "1970-01-01T00:10:00Z".into(),
                chart: json!({"metadata": {"name": "istiod", "version": chart_version}}),
                config: config.as_object().unwrap().clone(),
                manifest: "---\nb: 1\n".into(),
                labels: previous.own_labels(),
                apply_method: "ssa".into(),
            }
            .to_secret(600),
        )
    }

    #[test]
    fn a_revision_helm_wrote_after_bosuns_is_noticed() {
        let base = json!({"pilot": {"env": {"A": "1"}}, "global": {"hub": "h"}});
        let v1 = read(
            next_revision(&draft(base.clone()), &[], at(100), 10)
                .unwrap()
                .create
                .as_ref()
                .unwrap(),
        );
        assert_eq!(v1.labels[vocab::labels::HELM_RECORDED_REVISION_LABEL], "1");
        // bosun's own newest revision: nothing to say.
        assert_eq!(
            helm_change(&draft(base.clone()), std::slice::from_ref(&v1)),
            None
        );

        // helm upgrade --reuse-values --set pilot.env.B=x --set global.hub=other
        let helms = json!({"pilot": {"env": {"A": "1", "B": "x"}}, "global": {"hub": "other"}, "new": {"x.y": {"z": 1}}});
        let v2 = helm_upgrade(&v1, helms.clone(), "1.2.3");
        let records = [v1.clone(), v2.clone()];
        let change = helm_change(&draft(base.clone()), &records).unwrap();
        assert_eq!(change.revision, 2);
        assert_eq!(change.bosun_revision, Some(1));
        assert!(change.since_bosun);
        assert_eq!(change.description, "Upgrade complete");
        assert_eq!(change.deployed, "1970-01-01T00:10:00Z");
        assert_eq!(change.chart, None);
        let paths: Vec<(&str, ValueChangeKind)> = change
            .values
            .iter()
            .map(|v| (v.path.as_str(), v.kind))
            .collect();
        assert_eq!(
            paths,
            [
                ("global.hub", ValueChangeKind::Changed),
                ("new.x\\.y.z", ValueChangeKind::Added),
                ("pilot.env.B", ValueChangeKind::Added)
            ]
        );
        // bosun's values carry neither: the install would undo both.
        assert_eq!(change.undone, change.values);
        assert!(change.would_undo());
        assert_eq!(change.next, 3);
        let lines = change.change_lines().join("\n");
        assert_eq!(
            lines,
            "values.global.hub changed\nvalues.new.x\\.y.z added\nvalues.pilot.env.B added"
        );
        assert!(!lines.contains("other"), "no values shown");

        // The install's values carry one of them: only the other would be undone.
        let half = json!({"pilot": {"env": {"A": "1", "B": "x"}}, "global": {"hub": "h"}, "new": {"x.y": {"z": 1}}});
        let change = helm_change(&draft(half), &records).unwrap();
        assert_eq!(change.undone.len(), 1);
        assert_eq!(change.undone[0].path, "global.hub");
        // Both: nothing undone, still reported.
        let change = helm_change(&draft(helms.clone()), &records).unwrap();
        assert!(!change.would_undo(), "{change:?}");

        // bosun writes revision 3 over helm's: its mark says 3 again.
        let writes = next_revision(&draft(base.clone()), &records, at(700), 10).unwrap();
        let v3 = read(writes.create.as_ref().unwrap());
        assert_eq!(v3.labels[vocab::labels::HELM_RECORDED_REVISION_LABEL], "3");
        // (The test's v1 was left `deployed`: both are superseded.)
        let superseded: Vec<Record> = writes.replace.iter().map(read).collect();
        let v2_superseded = superseded
            .iter()
            .find(|r| r.version() == Some(2))
            .unwrap()
            .clone();
        assert_eq!(v2_superseded.status(), "superseded");
        assert_eq!(
            helm_change(&draft(base.clone()), &[v1.clone(), v2_superseded, v3]),
            None
        );

        // A rollback to bosun's revision: helm's, with no value changed; nothing undone.
        let mut rollback = helm_upgrade(&v2, base.clone(), "1.2.3");
        rollback.body["info"]["description"] = json!("Rollback to 1");
        let change =
            helm_change(&draft(base.clone()), &[v1.clone(), v2.clone(), rollback]).unwrap();
        assert_eq!(change.description, "Rollback to 1");
        assert_eq!(change.bosun_revision, Some(1));
        assert!(change.values.is_empty() && !change.would_undo());
        assert_eq!(change.change_lines(), ["no value changed"]);

        // Another chart version.
        let v2 = helm_upgrade(&v1, base.clone(), "1.2.4");
        let change = helm_change(&draft(base.clone()), &[v1.clone(), v2]).unwrap();
        assert_eq!(change.chart, Some(("1.2.3".into(), "1.2.4".into())));
        assert!(change.would_undo());

        // bosun's revision gone from the history: counted from the install's values.
        let change = helm_change(&draft(base.clone()), &[v2_only(&v1, &helms)]).unwrap();
        assert!(!change.since_bosun);
        assert_eq!(change.values.len(), 3);

        // Records without bosun's revision mark (older bosun, or not bosun's): none.
        let mut unmarked = v1.clone();
        unmarked
            .labels
            .remove(vocab::labels::HELM_RECORDED_REVISION_LABEL);
        assert_eq!(helm_change(&draft(base), &[unmarked]), None);
    }

    /// A chart as helm stores it, with these templates (name, data: base64 in a real record,
    /// compared as it is).
    fn chart_with(version: &str, templates: &[(&str, &str)]) -> Value {
        let b64 = |t: &str| t.to_string();
        json!({"metadata": {"name": "istiod", "version": version},
               "templates": templates.iter().map(|(n, t)| json!({"name": n, "data": b64(t)})).collect::<Vec<_>>(),
               "files": [{"name": "files/injection-template.yaml", "data": b64("inj")}],
               "values": {"a": 1}, "schema": null})
    }

    #[test]
    fn chart_files_are_compared_by_path() {
        let base = chart_with("1", &[("templates/a.yaml", "a"), ("templates/b.yaml", "b")]);
        // (from, to, changes)
        type Case = (Value, Value, Vec<(&'static str, ValueChangeKind)>);
        let cases: Vec<Case> = vec![
            (base.clone(), base.clone(), vec![]),
            (
                base.clone(),
                chart_with("1", &[("templates/a.yaml", "A"), ("templates/b.yaml", "b")]),
                vec![("templates/a.yaml", ValueChangeKind::Changed)],
            ),
            (
                base.clone(),
                chart_with("1", &[("templates/b.yaml", "b"), ("templates/c.yaml", "c")]),
                vec![
                    ("templates/a.yaml", ValueChangeKind::Removed),
                    ("templates/c.yaml", ValueChangeKind::Added),
                ],
            ),
            // The chart's values (helm's --reuse-values stores merged ones there) and its
            // metadata are not files compared.
            (
                base.clone(),
                {
                    let mut c = base.clone();
                    c["values"] = json!({"a": 2, "global": {}});
                    c["metadata"]["description"] = json!("x");
                    c
                },
                vec![],
            ),
            (
                base.clone(),
                {
                    let mut c = base.clone();
                    c["files"][0]["data"] = json!("eA==");
                    c["schema"] = json!("e30=");
                    c
                },
                vec![
                    ("files/injection-template.yaml", ValueChangeKind::Changed),
                    ("values.schema.json", ValueChangeKind::Added),
                ],
            ),
        ];
        for (from, to, want) in cases {
            let got: Vec<(String, ValueChangeKind)> = chart_file_changes(&from, &to)
                .into_iter()
                .map(|f| (f.path, f.kind))
                .collect();
            let want: Vec<(String, ValueChangeKind)> =
                want.into_iter().map(|(p, k)| (p.to_string(), k)).collect();
            assert_eq!(got, want, "{from} → {to}");
        }
    }

    #[test]
    fn a_chart_helm_changed_under_the_same_version_is_noticed() {
        let ours = chart_with("1.2.3", &[("templates/service.yaml", "svc")]);
        let patched = chart_with("1.2.3", &[("templates/service.yaml", "svc+label")]);
        let mut d = draft(json!({"a": 1}));
        d.chart = ours.clone();
        let v1 = read(
            next_revision(&d, &[], at(1), 10)
                .unwrap()
                .create
                .as_ref()
                .unwrap(),
        );
        // helm upgrade ./patched-copy --reuse-values: the same values, the same version.
        let mut v2 = helm_upgrade(&v1, json!({"a": 1}), "1.2.3");
        v2.body["chart"] = patched.clone();
        let records = [v1.clone(), v2.clone()];
        let change = helm_change(&d, &records).unwrap();
        assert!(change.values.is_empty() && change.chart.is_none() && !change.chart_undone);
        let file = FileChange {
            path: "templates/service.yaml".into(),
            kind: ValueChangeKind::Changed,
        };
        assert_eq!(change.files, std::slice::from_ref(&file));
        assert_eq!(change.files_undone, std::slice::from_ref(&file));
        assert!(change.would_undo());
        assert_eq!(
            change.change_lines(),
            [
                "chart file templates/service.yaml changed",
                "no value changed"
            ]
        );
        assert_eq!(
            change.ways_on(),
            "install from charts with helm's changed files (--manifests), or install with --force"
        );

        // Rendered from the patched chart: carried, not refused.
        let mut carried = d.clone();
        carried.chart = patched.clone();
        let change = helm_change(&carried, &records).unwrap();
        assert_eq!(change.files, std::slice::from_ref(&file));
        assert!(change.files_undone.is_empty() && !change.would_undo());
        assert_eq!(
            change.change_lines()[0],
            "chart file templates/service.yaml changed — in this install's chart"
        );

        // bosun's revision gone from helm's history: compared with the chart this install
        // renders.
        let change = helm_change(&d, std::slice::from_ref(&v2)).unwrap();
        assert!(!change.since_bosun);
        assert_eq!(change.files_undone, [file]);

        // Another chart version: the version says it, files are not listed.
        let mut v2 = helm_upgrade(&v1, json!({"a": 1}), "1.2.4");
        v2.body["chart"] = chart_with("1.2.4", &[("templates/service.yaml", "new")]);
        let change = helm_change(&d, &[v1, v2]).unwrap();
        assert!(change.files.is_empty() && change.chart_undone);
    }

    #[test]
    fn releases_bosun_recorded_before_are_found() {
        let names = vec![
            ("istio-system".to_string(), "istio-base".to_string()),
            ("istio-system".to_string(), "istiod".to_string()),
        ];
        let record = |release: &str, version: u32, status: Status, marked: bool| {
            let labels = if marked {
                BTreeMap::from([(
                    vocab::labels::HELM_RELEASE_RECORD_LABEL.to_string(),
                    "true".to_string(),
                )])
            } else {
                BTreeMap::new()
            };
            read(
                &Release {
                    name: release.into(),
                    namespace: "istio-system".into(),
                    version,
                    status,
                    description: String::new(),
                    first_deployed: String::new(),
                    last_deployed: String::new(),
                    chart: json!({"metadata": {"name": "x", "version": "1"}}),
                    config: Map::new(),
                    manifest: String::new(),
                    labels,
                    apply_method: "ssa".into(),
                }
                .to_secret(1),
            )
        };
        // (records, releases found with their newest revision)
        type Case = (Vec<Record>, Vec<(&'static str, u32)>);
        let cases: Vec<Case> = vec![
            (vec![], vec![]),
            // bosun's records, helm's revision after them carrying the mark over.
            (
                vec![
                    record("istio-base", 1, Status::Deployed, true),
                    record("istiod", 1, Status::Superseded, true),
                    record("istiod", 2, Status::Deployed, true),
                ],
                vec![("istio-base", 1), ("istiod", 2)],
            ),
            // helm's own install (no mark): --adopt's business, not recording's.
            (vec![record("istiod", 1, Status::Deployed, false)], vec![]),
            // uninstalled with its history kept.
            (vec![record("istiod", 3, Status::Uninstalled, true)], vec![]),
            // a release this install does not record.
            (
                vec![record("istio-ingressgateway", 1, Status::Deployed, true)],
                vec![],
            ),
        ];
        for (records, want) in cases {
            let got: Vec<(String, u32)> = recorded_before(&names, &records)
                .into_iter()
                .map(|r| (r.release, r.revision))
                .collect();
            let want: Vec<(String, u32)> =
                want.into_iter().map(|(r, v)| (r.to_string(), v)).collect();
            assert_eq!(got, want);
        }
        let mut elsewhere = record("istiod", 1, Status::Deployed, true);
        elsewhere.namespace = "other".into();
        assert!(recorded_before(&names, &[elsewhere]).is_empty());
    }

    #[test]
    fn bosuns_last_revision_is_its_newest_own_one() {
        let base = json!({"a": 1});
        let v1 = read(
            next_revision(&draft(base.clone()), &[], at(1), 10)
                .unwrap()
                .create
                .as_ref()
                .unwrap(),
        );
        let v2 = helm_upgrade(&v1, json!({"a": 2}), "1.2.3");
        let v3 = read(
            next_revision(&draft(base.clone()), &[v1.clone(), v2.clone()], at(3), 10)
                .unwrap()
                .create
                .as_ref()
                .unwrap(),
        );
        // helm rollback to 2: revision 4, its labels (mark "1") carried over from revision 2.
        let mut v4 = helm_upgrade(&v2, json!({"a": 2}), "1.2.3");
        v4.body["version"] = json!(4);
        let change = helm_change(&draft(base), &[v1, v2, v3, v4]).unwrap();
        assert_eq!(change.revision, 4);
        assert_eq!(change.bosun_revision, Some(3));
        assert!(change.since_bosun);
        assert_eq!(change.values.len(), 1);
    }

    fn v2_only(v1: &Record, config: &Value) -> Record {
        helm_upgrade(v1, config.clone(), "1.2.3")
    }

    #[test]
    fn value_paths_overlap_by_segment() {
        assert!(paths_overlap("a.b", "a.b"));
        assert!(paths_overlap("a.b", "a.b.c"));
        assert!(paths_overlap("a.b[0]", "a.b"));
        assert!(!paths_overlap("a.b", "a.bc"));
        assert!(!paths_overlap("a.b", "a.c"));
    }

    #[test]
    fn owner_labels_the_chart_does_not_render_are_held() {
        let d = draft(json!({}));
        let owner = BTreeMap::from([
            (
                "operator.istio.io/managed".to_string(),
                "Reconcile".to_string(),
            ),
            ("istio.io/rev".to_string(), "default".to_string()),
        ]);
        let object = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
            "name": "istio", "namespace": "istio-system",
            "labels": {"operator.istio.io/managed": "Reconcile", "istio.io/rev": "default",
                       "operator.istio.io/component": "Pilot", "app": "x"}},
            "data": {"a": "b"}});
        assert_eq!(
            owner_label_hold(&object, std::slice::from_ref(&d), &owner),
            Some(
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
                "name": "istio", "namespace": "istio-system",
                "labels": {"operator.istio.io/managed": "Reconcile", "operator.istio.io/component": "Pilot"}}})
            )
        );
        let other = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
            "name": "other", "namespace": "istio-system", "labels": {"operator.istio.io/managed": "Reconcile"}}});
        assert_eq!(owner_label_hold(&other, &[d], &owner), None);
    }

    #[test]
    fn history_is_bounded() {
        let mut records: Vec<Record> = Vec::new();
        for n in 0..12 {
            let writes = next_revision(&draft(json!({"n": n})), &records, at(100 + n), 10).unwrap();
            for s in &writes.replace {
                let r = read(s);
                let i = records.iter().position(|x| x.secret == r.secret).unwrap();
                records[i] = r;
            }
            records.retain(|r| !writes.delete.contains(&r.secret));
            records.push(read(writes.create.as_ref().unwrap()));
        }
        let mut versions: Vec<u32> = records.iter().filter_map(Record::version).collect();
        versions.sort();
        assert_eq!(versions, (3..=12).collect::<Vec<_>>());
        let deployed: Vec<_> = records
            .iter()
            .filter(|r| r.status() == "deployed")
            .collect();
        assert_eq!(deployed.len(), 1);
        assert_eq!(deployed[0].version(), Some(12));
    }

    #[test]
    fn another_charts_release_of_the_same_name_is_refused() {
        let mut other = draft(json!({}));
        other.chart = json!({"metadata": {"name": "my-istiod", "version": "9"}});
        other.chart_name = "my-istiod".into();
        let theirs = read(
            next_revision(&other, &[], at(1), 10)
                .unwrap()
                .create
                .as_ref()
                .unwrap(),
        );
        let e = next_revision(&draft(json!({})), &[theirs], at(2), 10)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("helm release istio-system/istiod exists with chart \"my-istiod\" (Secret sh.helm.release.v1.istiod.v1), not Istio's \"istiod\""),
            "{e}"
        );
    }

    #[test]
    fn objects_get_helms_markers() {
        let d = draft(json!({}));
        let mut object = json!({"kind": "ConfigMap", "metadata": {"name": "istio", "namespace": "istio-system", "labels": {"x": "y"}}});
        mark_objects(&mut object, std::slice::from_ref(&d));
        assert_eq!(
            object["metadata"],
            json!({"name": "istio", "namespace": "istio-system",
                   "labels": {"x": "y", "app.kubernetes.io/managed-by": "Helm"},
                   "annotations": {"meta.helm.sh/release-name": "istiod", "meta.helm.sh/release-namespace": "istio-system"}})
        );
        let mut unrelated = json!({"kind": "ConfigMap", "metadata": {"name": "other"}});
        mark_objects(&mut unrelated, &[d]);
        assert_eq!(
            unrelated,
            json!({"kind": "ConfigMap", "metadata": {"name": "other"}})
        );
    }
}
