//! Adopting a Helm-installed Istio (`install --adopt`): finding the Helm releases of Istio's
//! charts whose objects an install renders, judging whether bosun may take them over, and the
//! writes that hand them over.
//!
//! The policy, here:
//! - A release is helm's install of Istio ([`HelmInstalled`]) when its newest record is of one
//!   of Istio's charts ([`crate::helm_releases::ISTIO_CHARTS`]), is not `uninstalled`, does not
//!   carry bosun's mark (records `--helm-releases` wrote are bosun's own), and shares at least
//!   one object with the install's render. With `--adopt`, releases bosun recorded itself
//!   count too: adopting them is how an install stops recording (their records go, helm's
//!   field manager and markers leave the objects). Releases sharing nothing are left alone.
//! - Refused, before anything is written ([`AdoptError`]): a Secret labelled as a helm record
//!   that is not helm's format; a release of another chart under the name bosun gives one of
//!   Istio's releases (`istiod`, `istio-base`, …); a release of another chart holding an object
//!   the install renders; an Istio release holding objects the install does not render (they
//!   would be left without an owner); a rendered object whose live `meta.helm.sh/release-name`
//!   names a release that is not one of those adopted.
//! - Adoption ([`Adoption::hand_over`], after the install applied its objects with bosun's
//!   field manager and force): on every object of the adopted releases, helm's field manager
//!   entries and the `meta.helm.sh/release-name|namespace` annotations are removed, then every
//!   record Secret of those releases is deleted, so `helm list` no longer shows them and helm
//!   cannot upgrade or uninstall what bosun now owns.
//!
//! Reads and writes are `cluster`'s; which namespaces and objects are judged is decided here.

use std::collections::BTreeMap;

use helmrelease::Record;
use serde_json::Value;

use crate::Install;
use crate::helm_releases::{HELM_FIELD_MANAGER, ISTIO_CHARTS};

/// Kind, namespace (empty for cluster-scoped, or not given in a helm manifest) and name.
pub type ObjectKey = (String, String, String);

/// Why adopting (or installing over) Helm releases was refused, or failed.
#[derive(Debug, thiserror::Error)]
pub enum AdoptError {
    #[error(
        "{0}; bosun reads helm's release records before it takes anything over (nothing was changed)"
    )]
    NotARecord(#[from] helmrelease::RecordError),
    #[error(
        "helm release {namespace}/{release} is of chart {found:?}, not Istio's {chart:?}: it is another chart's release under the name of Istio's; bosun does not adopt it (nothing was changed)"
    )]
    ForeignChart {
        namespace: String,
        release: String,
        found: String,
        chart: String,
    },
    #[error(
        "{object} is an object of helm release {namespace}/{release} (chart {chart:?}), which is not one of Istio's charts; bosun leaves it alone (nothing was changed)"
    )]
    OtherRelease {
        object: String,
        namespace: String,
        release: String,
        chart: String,
    },
    #[error(
        "helm release {namespace}/{release} (chart {chart:?}) has {count} object(s) this install does not render ({objects}); adopting it would leave them without an owner: install with inputs that render them, or keep the release with helm (nothing was changed)"
    )]
    NotRendered {
        namespace: String,
        release: String,
        chart: String,
        count: usize,
        objects: String,
    },
    #[error(
        "{object} is marked as an object of helm release {namespace}/{release} (annotation meta.helm.sh/release-name), which is not one of the Istio releases adopted ({adopted}); bosun leaves it alone (nothing was changed)"
    )]
    MarkedByOther {
        object: String,
        namespace: String,
        release: String,
        adopted: String,
    },
    #[error("the names of Istio's helm releases: {source}")]
    Chart {
        #[source]
        source: crate::helm_releases::HelmReleaseError,
    },
    #[error(transparent)]
    Cluster(#[from] cluster::Error),
}

/// One Helm release of an Istio chart that helm installed and the install renders over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelmInstalled {
    pub namespace: String,
    pub release: String,
    pub chart: String,
    pub chart_version: String,
    /// The newest revision and its status (`deployed`, `failed`, …).
    pub revision: u32,
    pub status: String,
    /// Every record Secret of the release (each revision), by name.
    pub secrets: Vec<String>,
    /// The objects of the newest revision's manifest.
    pub objects: Vec<ObjectKey>,
}

impl HelmInstalled {
    /// `istio-system/istiod (chart istiod-1.2.3, revision 1, deployed)`.
    pub fn describe(&self) -> String {
        format!(
            "{}/{} (chart {}-{}, revision {}, {})",
            self.namespace,
            self.release,
            self.chart,
            self.chart_version,
            self.revision,
            self.status
        )
    }
}

/// The Helm-installed Istio releases an install would take over (empty: none).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Adoption {
    pub releases: Vec<HelmInstalled>,
}

/// The name, namespace and chart of one of Istio's releases as bosun names them.
#[derive(Debug, Clone)]
pub struct IstioRelease {
    pub release: String,
    pub namespace: String,
    pub chart: String,
}

fn key_of(object: &Value) -> ObjectKey {
    let field = |p: &str| {
        object
            .pointer(p)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    (
        field("/kind"),
        field("/metadata/namespace"),
        field("/metadata/name"),
    )
}

/// A rendered object as a reference to its live one (`None` without kind or name).
fn object_ref(object: &Value) -> Option<vocab::ObjectRef> {
    let (kind, namespace, name) = key_of(object);
    let api_version = object.get("apiVersion").and_then(Value::as_str)?;
    (!kind.is_empty() && !name.is_empty()).then(|| vocab::ObjectRef {
        api_version: api_version.to_string(),
        kind,
        namespace: (!namespace.is_empty()).then_some(namespace),
        name,
    })
}

/// Whether a helm manifest's object and a rendered one are the same: kind and name equal, and
/// the namespaces too when both say one (helm applies a namespaced object without one to the
/// release's namespace; a cluster-scoped one has none).
fn same_object(helm: &ObjectKey, ours: &ObjectKey) -> bool {
    helm.0 == ours.0
        && helm.2 == ours.2
        && (helm.1.is_empty() || ours.1.is_empty() || helm.1 == ours.1)
}

fn describe_key(key: &ObjectKey) -> String {
    if key.1.is_empty() {
        format!("{} {}", key.0, key.2)
    } else {
        format!("{} {}/{}", key.0, key.1, key.2)
    }
}

/// The objects of a release's manifest (documents that hold no object, or do not parse, are
/// skipped: helm could not have applied them either).
pub fn manifest_objects(record: &Record) -> Vec<ObjectKey> {
    helmrelease::manifest_documents(record.manifest())
        .into_iter()
        .filter_map(|doc| manifest::object::Object::from_yaml(doc).ok().flatten())
        .map(|o| {
            (
                o.kind().to_string(),
                o.namespace().to_string(),
                o.name().to_string(),
            )
        })
        .collect()
}

/// Judges the helm records found in the install's namespaces against what it renders (pure).
/// `istio` are the releases bosun would name Istio's components (a release of that name and
/// namespace must be of that chart); `rendered` are the install's objects. With `bosuns_own`,
/// releases bosun recorded itself (`--helm-releases`: its mark on the records) are judged too:
/// `--adopt` takes them back from helm as it takes helm's own, which is how an install stops
/// recording Helm releases; without it they are left to recording.
pub fn judge(
    records: &[Record],
    istio: &[IstioRelease],
    rendered: &[ObjectKey],
    bosuns_own: bool,
) -> Result<Adoption, AdoptError> {
    let mut by_release: BTreeMap<(String, String), Vec<&Record>> = BTreeMap::new();
    for record in records {
        by_release
            .entry((
                record.namespace.clone(),
                record.name().unwrap_or_default().to_string(),
            ))
            .or_default()
            .push(record);
    }
    let mut releases = Vec::new();
    for ((namespace, release), mut history) in by_release {
        history.sort_by_key(|r| r.version());
        let Some(newest) = history.last() else {
            continue;
        };
        if newest.status() == helmrelease::Status::Uninstalled.as_str()
            || (!bosuns_own
                && newest
                    .labels
                    .get(vocab::labels::HELM_RELEASE_RECORD_LABEL)
                    .is_some_and(|v| v == "true"))
        {
            continue;
        }
        let chart = newest.chart_name().unwrap_or_default().to_string();
        if let Some(ours) = istio
            .iter()
            .find(|i| i.release == release && i.namespace == namespace)
            && ours.chart != chart
        {
            return Err(AdoptError::ForeignChart {
                namespace,
                release,
                found: chart,
                chart: ours.chart.clone(),
            });
        }
        let objects = manifest_objects(newest);
        let shared: Vec<&ObjectKey> = objects
            .iter()
            .filter(|o| rendered.iter().any(|r| same_object(o, r)))
            .collect();
        if shared.is_empty() {
            continue;
        }
        if !ISTIO_CHARTS.contains(&chart.as_str()) {
            return Err(AdoptError::OtherRelease {
                object: describe_key(shared[0]),
                namespace,
                release,
                chart,
            });
        }
        let missing: Vec<String> = objects
            .iter()
            .filter(|o| !rendered.iter().any(|r| same_object(o, r)))
            .map(describe_key)
            .collect();
        if !missing.is_empty() {
            let shown: Vec<&str> = missing.iter().take(5).map(String::as_str).collect();
            return Err(AdoptError::NotRendered {
                namespace,
                release,
                chart,
                count: missing.len(),
                objects: if missing.len() > shown.len() {
                    format!("{}, …", shown.join(", "))
                } else {
                    shown.join(", ")
                },
            });
        }
        releases.push(HelmInstalled {
            chart_version: newest.chart_version().to_string(),
            revision: newest.version().unwrap_or_default(),
            status: newest.status().to_string(),
            secrets: history.iter().map(|r| r.secret.clone()).collect(),
            objects,
            namespace,
            release,
            chart,
        });
    }
    Ok(Adoption { releases })
}

/// Checks a rendered object's live Helm marker (pure): a `meta.helm.sh/release-name` naming a
/// release that is not one adopted refuses the adoption.
pub fn check_marker(
    live: &Value,
    adoption: &Adoption,
    default_namespace: &str,
) -> Result<(), AdoptError> {
    let annotation = |name: &str| {
        live.pointer("/metadata/annotations")
            .and_then(|a| a.get(name))
            .and_then(Value::as_str)
    };
    let Some(release) = annotation(vocab::labels::HELM_RELEASE_NAME_ANNOTATION) else {
        return Ok(());
    };
    let key = key_of(live);
    let namespace = annotation(vocab::labels::HELM_RELEASE_NAMESPACE_ANNOTATION)
        .map(str::to_string)
        .unwrap_or_else(|| {
            if key.1.is_empty() {
                default_namespace.to_string()
            } else {
                key.1.clone()
            }
        });
    if adoption
        .releases
        .iter()
        .any(|r| r.release == release && r.namespace == namespace)
    {
        return Ok(());
    }
    Err(AdoptError::MarkedByOther {
        object: describe_key(&key),
        namespace,
        release: release.to_string(),
        adopted: adoption
            .releases
            .iter()
            .map(|r| format!("{}/{}", r.namespace, r.release))
            .collect::<Vec<_>>()
            .join(", "),
    })
}

/// What [`Adoption::hand_over`] did.
#[derive(Debug, Clone, Default)]
pub struct HandedOver {
    /// Objects whose helm field manager entries or markers were removed.
    pub objects: usize,
    /// Record Secrets deleted.
    pub records: Vec<(String, String)>,
}

impl Install {
    /// The Helm-installed Istio releases this install renders over, judged ([`judge`]) from
    /// the helm records in the namespaces its components go to. Only reads.
    ///
    /// Only when `adopting`, a release under the name bosun gives one of Istio's but of
    /// another chart is refused: an install that neither adopts nor records releases leaves a
    /// release it renders nothing of alone, whatever its name.
    pub async fn helm_adoption(
        &self,
        client: &cluster::Client,
        adopting: bool,
    ) -> Result<Adoption, AdoptError> {
        let rendered: Vec<ObjectKey> = self.objects().map(key_of).collect();
        let mut namespaces: Vec<&str> = rendered
            .iter()
            .map(|k| k.1.as_str())
            .filter(|ns| !ns.is_empty())
            .chain([self.merged.istio_namespace()])
            .collect();
        namespaces.sort();
        namespaces.dedup();
        let selector = format!("owner={}", helmrelease::OWNER);
        let mut records = Vec::new();
        for namespace in namespaces {
            for secret in client.labelled_secrets(Some(namespace), &selector).await? {
                records.push(Record::from_secret(&secret)?);
            }
        }
        if records.is_empty() {
            return Ok(Adoption::default());
        }
        if !adopting {
            return judge(&records, &[], &rendered, false);
        }
        // The names bosun gives Istio's releases, for the same-name check (each chart loaded
        // again from the install package: only when there are records to judge).
        let drafts = self
            .helm_release_drafts()
            .map_err(|source| AdoptError::Chart { source })?;
        let istio: Vec<IstioRelease> = drafts
            .drafts
            .iter()
            .map(|d| IstioRelease {
                release: d.release.clone(),
                namespace: d.namespace.clone(),
                chart: d.chart_name.clone(),
            })
            .collect();
        judge(&records, &istio, &rendered, true)
    }

    /// The rendered objects that belong to an adopted release, with their live state checked:
    /// one marked as another release's refuses the adoption. Only reads.
    pub async fn check_adoption_markers(
        &self,
        client: &cluster::Client,
        adoption: &Adoption,
    ) -> Result<(), AdoptError> {
        for object in self.objects() {
            let Some(reference) = object_ref(object) else {
                continue;
            };
            if let Some(live) = client.get(&reference).await? {
                check_marker(&live, adoption, self.merged.istio_namespace())?;
            }
        }
        Ok(())
    }
}

impl Adoption {
    pub fn is_empty(&self) -> bool {
        self.releases.is_empty()
    }

    /// The rendered objects of the adopted releases, as references to their live objects.
    pub fn objects<'a>(&'a self, install: &'a Install) -> Vec<vocab::ObjectRef> {
        install
            .objects()
            .filter(|o| {
                let key = key_of(o);
                self.releases
                    .iter()
                    .any(|r| r.objects.iter().any(|h| same_object(h, &key)))
            })
            .filter_map(object_ref)
            .collect()
    }

    /// Hands the adopted releases over to bosun, after the install applied its objects with
    /// bosun's field manager and force: on each of their objects helm's field manager entries
    /// and its release annotations are removed, then every record Secret of the releases is
    /// deleted (objects first, so that a failure half-way leaves the records for another
    /// `--adopt`).
    pub async fn hand_over(
        &self,
        client: &cluster::Client,
        install: &Install,
    ) -> Result<HandedOver, AdoptError> {
        let mut done = HandedOver::default();
        for object in self.objects(install) {
            if client
                .drop_field_manager(
                    &object,
                    HELM_FIELD_MANAGER,
                    &[
                        vocab::labels::HELM_RELEASE_NAME_ANNOTATION,
                        vocab::labels::HELM_RELEASE_NAMESPACE_ANNOTATION,
                    ],
                )
                .await?
            {
                done.objects += 1;
            }
        }
        for release in &self.releases {
            for secret in &release.secrets {
                client.delete_secret(&release.namespace, secret).await?;
                done.records
                    .push((release.namespace.clone(), secret.clone()));
            }
        }
        Ok(done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record(release: &str, chart: &str, version: u32, status: &str, manifest: &str) -> Record {
        let secret = helmrelease::Release {
            name: release.into(),
            namespace: "istio-system".into(),
            version,
            status: match status {
                "deployed" => helmrelease::Status::Deployed,
                "superseded" => helmrelease::Status::Superseded,
                _ => helmrelease::Status::Uninstalled,
            },
            description: "Install complete".into(),
            first_deployed: "2026-01-01T00:00:00Z".into(),
            last_deployed: "2026-01-01T00:00:00Z".into(),
            chart: json!({"metadata": {"name": chart, "version": "1.0.0"}}),
            config: Default::default(),
            manifest: manifest.into(),
            labels: Default::default(),
            apply_method: "ssa".into(),
        }
        .to_secret(1);
        Record::from_secret(&secret).unwrap()
    }

    const ISTIOD: &str = "---\n# Source: istiod/templates/deployment.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: istiod\n  namespace: istio-system\n---\n# Source: istiod/templates/mutatingwebhook.yaml\napiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata:\n  name: istio-sidecar-injector\n";

    fn istio() -> Vec<IstioRelease> {
        vec![IstioRelease {
            release: "istiod".into(),
            namespace: "istio-system".into(),
            chart: "istiod".into(),
        }]
    }

    fn rendered() -> Vec<ObjectKey> {
        vec![
            ("Deployment".into(), "istio-system".into(), "istiod".into()),
            (
                "MutatingWebhookConfiguration".into(),
                "".into(),
                "istio-sidecar-injector".into(),
            ),
            ("ConfigMap".into(), "istio-system".into(), "istio".into()),
        ]
    }

    #[test]
    fn helm_installed_istio_is_found_with_its_history() {
        let records = [
            record("istiod", "istiod", 1, "superseded", ISTIOD),
            record("istiod", "istiod", 2, "deployed", ISTIOD),
        ];
        let adoption = judge(&records, &istio(), &rendered(), true).unwrap();
        assert_eq!(adoption.releases.len(), 1);
        let r = &adoption.releases[0];
        assert_eq!(
            r.describe(),
            "istio-system/istiod (chart istiod-1.0.0, revision 2, deployed)"
        );
        assert_eq!(
            r.secrets,
            [
                "sh.helm.release.v1.istiod.v1",
                "sh.helm.release.v1.istiod.v2"
            ]
        );
        assert_eq!(r.objects.len(), 2);
    }

    #[test]
    fn releases_left_alone() {
        // Uninstalled (kept history), bosun's own records, and releases sharing no object.
        let uninstalled = record("istiod", "istiod", 1, "uninstalled", ISTIOD);
        let mut bosuns = record("istiod", "istiod", 1, "deployed", ISTIOD);
        bosuns.labels.insert(
            vocab::labels::HELM_RELEASE_RECORD_LABEL.into(),
            "true".into(),
        );
        let elsewhere = record(
            "istio-ingress",
            "istio-ingress",
            1,
            "deployed",
            "---\nkind: Deployment\nmetadata:\n  name: gw\n  namespace: istio-system\n",
        );
        for records in [vec![uninstalled], vec![bosuns.clone()], vec![elsewhere]] {
            assert_eq!(
                judge(&records, &istio(), &rendered(), false).unwrap(),
                Adoption::default()
            );
        }
        // --adopt takes bosun's own recorded releases back too (recording stops).
        let adoption = judge(&[bosuns], &istio(), &rendered(), true).unwrap();
        assert_eq!(adoption.releases.len(), 1);
        assert_eq!(adoption.releases[0].release, "istiod");
    }

    #[test]
    fn refusals() {
        let cases: Vec<(Record, &str)> = vec![
            (
                record(
                    "istiod",
                    "my-istiod",
                    1,
                    "deployed",
                    "---\nkind: Secret\nmetadata:\n  name: x\n",
                ),
                "helm release istio-system/istiod is of chart \"my-istiod\", not Istio's \"istiod\"",
            ),
            (
                record(
                    "my-app",
                    "my-app",
                    1,
                    "deployed",
                    "---\nkind: ConfigMap\nmetadata:\n  name: istio\n  namespace: istio-system\n",
                ),
                "ConfigMap istio-system/istio is an object of helm release istio-system/my-app (chart \"my-app\"), which is not one of Istio's charts",
            ),
            (
                record(
                    "istiod",
                    "istiod",
                    1,
                    "deployed",
                    &format!("{ISTIOD}---\nkind: Service\nmetadata:\n  name: extra\n"),
                ),
                "helm release istio-system/istiod (chart \"istiod\") has 1 object(s) this install does not render (Service extra)",
            ),
        ];
        for (r, want) in cases {
            let e = judge(&[r], &istio(), &rendered(), true)
                .unwrap_err()
                .to_string();
            assert!(e.contains(want), "{e}");
            assert!(e.ends_with("(nothing was changed)"), "{e}");
        }
    }

    #[test]
    fn live_markers_of_another_release_refuse() {
        let adoption = judge(
            &[record("istiod", "istiod", 1, "deployed", ISTIOD)],
            &istio(),
            &rendered(),
            true,
        )
        .unwrap();
        let ours = json!({"kind": "Deployment", "metadata": {"name": "istiod", "namespace": "istio-system",
            "annotations": {"meta.helm.sh/release-name": "istiod", "meta.helm.sh/release-namespace": "istio-system"}}});
        check_marker(&ours, &adoption, "istio-system").unwrap();
        let unmarked = json!({"kind": "ConfigMap", "metadata": {"name": "istio", "namespace": "istio-system"}});
        check_marker(&unmarked, &adoption, "istio-system").unwrap();
        let theirs = json!({"kind": "ConfigMap", "metadata": {"name": "istio", "namespace": "istio-system",
            "annotations": {"meta.helm.sh/release-name": "my-app"}}});
        let e = check_marker(&theirs, &adoption, "istio-system")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("ConfigMap istio-system/istio is marked as an object of helm release istio-system/my-app (annotation meta.helm.sh/release-name), which is not one of the Istio releases adopted (istio-system/istiod)"),
            "{e}"
        );
    }
}
