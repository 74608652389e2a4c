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
//!
//! The objects are applied by the field manager helm uses ([`HELM_FIELD_MANAGER`]): helm v4
//! upgrades a release recorded with `apply_method: ssa` by server-side apply as manager `helm`
//! without forcing conflicts, so fields another manager owned would conflict.

use std::collections::BTreeMap;
use std::time::SystemTime;

use helmrelease::{Record, Release, Status};
use k8s_openapi::api::core::v1::Secret;
use serde_json::{Map, Value};

use crate::Install;

/// The field manager helm v4 applies as (the base name of its binary, `helm`): objects of a
/// release bosun records are applied as it, so that helm's later server-side upgrades own
/// the same fields and do not conflict.
pub const HELM_FIELD_MANAGER: &str = "helm";

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
#[derive(Debug, Clone)]
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
    /// The release's own labels: bosun's mark, the revision and the component.
    pub labels: BTreeMap<String, String>,
}

/// The releases an install records, made from its render ([`Install::helm_release_drafts`]).
pub struct HelmReleases {
    pub drafts: Vec<Draft>,
}

impl Install {
    /// Each rendered component instance as a Helm release draft: its chart (loaded again from
    /// the install package), the values it rendered with and its rendered objects.
    pub fn helm_release_drafts(&self) -> Result<HelmReleases, HelmReleaseError> {
        let components =
            self.merged
                .components()
                .map_err(|source| HelmReleaseError::Components {
                    release: String::new(),
                    source,
                })?;
        let load = self.packages.chart_loader();
        let package = self.merged.install_package_path().unwrap_or_default();
        let revision = self.revision().to_string();
        let mut drafts = Vec::new();
        for generated in &self.generated.components {
            let comp = generated.component;
            let Some((_, specs)) = components
                .instances
                .iter()
                .find(|(c, _)| c.name == comp.name)
            else {
                continue;
            };
            let chart =
                load(package, comp.chart_dir).map_err(|source| HelmReleaseError::Chart {
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
                    labels,
                });
            }
        }
        Ok(HelmReleases { drafts })
    }

    /// Puts Helm's ownership markers on every object of a recorded release (the
    /// `app.kubernetes.io/managed-by: Helm` label and the `meta.helm.sh/release-name` and
    /// `-namespace` annotations), as helm puts them on what it applies.
    pub fn mark_helm_objects(&mut self, releases: &HelmReleases) {
        for component in &mut self.components {
            for object in &mut component.objects {
                mark_objects(object, &releases.drafts);
            }
        }
    }
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
