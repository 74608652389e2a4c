//! The live side of revisions: reads the objects `assess::revisions` decides over (control-plane
//! objects, istiod Deployments, webhook configurations, tag Services, namespaces, running pods)
//! and the live CustomResourceDefinitions that `assess::crds` compares rendered ones with.
//! Metadata only, except for CRDs (their served versions are in the spec).

use assess::crds::CrdDowngrade;
use assess::revisions::{Inventory, LiveObject};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DynamicObject, ListParams};
use kube::core::GroupVersionKind;
use serde_json::Value;
use vocab::ObjectRef;
use vocab::labels::COMPONENT_LABEL;

use crate::prune::PRUNED_KINDS;
use crate::{Client, Error};

/// One source of [`Client::revision_objects`]: what it reads, for messages.
struct RevisionSource {
    what: &'static str,
    group: &'static str,
    version: &'static str,
    kind: &'static str,
    labels: &'static str,
    fields: &'static str,
}

/// Everything `revision list` reads besides the control-plane objects (those are read per
/// kind in [`PRUNED_KINDS`] by the component label). Pods that have ended run no proxy, so only
/// pods not Succeeded or Failed are listed.
const SOURCES: &[RevisionSource] = &[
    RevisionSource {
        what: "istiod Deployments",
        group: "apps",
        version: "v1",
        kind: "Deployment",
        labels: "app=istiod",
        fields: "",
    },
    RevisionSource {
        what: "MutatingWebhookConfigurations (injectors and revision tags)",
        group: "admissionregistration.k8s.io",
        version: "v1",
        kind: "MutatingWebhookConfiguration",
        labels: "",
        fields: "",
    },
    RevisionSource {
        what: "revision tag Services",
        group: "",
        version: "v1",
        kind: "Service",
        labels: vocab::labels::TAG_LABEL,
        fields: "",
    },
    RevisionSource {
        what: "revision tag ValidatingWebhookConfigurations",
        group: "admissionregistration.k8s.io",
        version: "v1",
        kind: "ValidatingWebhookConfiguration",
        labels: vocab::labels::TAG_LABEL,
        fields: "",
    },
    RevisionSource {
        what: "namespaces (which revision each selects)",
        group: "",
        version: "v1",
        kind: "Namespace",
        labels: "",
        fields: "",
    },
    RevisionSource {
        what: "the cluster's pods (which revisions' proxies run)",
        group: "",
        version: "v1",
        kind: "Pod",
        labels: "",
        fields: "status.phase!=Succeeded,status.phase!=Failed",
    },
];

/// What [`Client::revision_objects`] read, and what it could not.
#[derive(Debug, Default)]
pub struct RevisionObjects {
    pub objects: Vec<LiveObject>,
    /// Sources that could not be read: what, and why.
    pub failed: Vec<(String, Error)>,
}

impl Client {
    /// Every object of `kind` (metadata only) matching the label and field selectors, as
    /// [`LiveObject`]s; none when the server does not serve the kind.
    async fn list_live(
        &self,
        (group, version, kind): (&str, &str, &str),
        labels: &str,
        fields: &str,
    ) -> Result<Vec<LiveObject>, Error> {
        let api_version = if group.is_empty() {
            version.to_string()
        } else {
            format!("{group}/{version}")
        };
        let what = ObjectRef {
            api_version: api_version.clone(),
            kind: kind.to_string(),
            namespace: None,
            name: format!("(objects labelled {labels})"),
        };
        let gvk = GroupVersionKind::gvk(group, version, kind);
        let Some((ar, _)) = self.served(&gvk, &what).await? else {
            return Ok(Vec::new());
        };
        let listed = if fields.is_empty() {
            // The shared list for the kinds the checks all read (`crate::reads`).
            self.list_metadata_shared(&ar, labels).await
        } else {
            let api: Api<DynamicObject> = Api::all_with(self.kube.clone(), &ar);
            let mut params = ListParams::default().fields(fields);
            if !labels.is_empty() {
                params = params.labels(labels);
            }
            crate::client::list_metadata_paged(&api, params).await
        };
        let items = match listed {
            Ok(items) => items,
            Err(kube::Error::Api(status)) if status.code == 404 => return Ok(Vec::new()),
            Err(source) => {
                return Err(Error::List {
                    target: Box::new(crate::ListTarget {
                        api_version,
                        kind: kind.to_string(),
                        selector: [labels, fields]
                            .iter()
                            .filter(|s| !s.is_empty())
                            .copied()
                            .collect::<Vec<_>>()
                            .join(" "),
                    }),
                    source,
                });
            }
        };
        Ok(items
            .into_iter()
            .map(|item| {
                let meta = item.metadata;
                LiveObject {
                    kind: kind.to_string(),
                    namespace: meta.namespace,
                    name: meta.name.unwrap_or_default(),
                    labels: meta.labels.unwrap_or_default(),
                    annotations: meta.annotations.unwrap_or_default(),
                    terminating: meta.deletion_timestamp.is_some(),
                }
            })
            .collect())
    }

    /// Reads every object `assess::revisions::inventory` decides over: objects of istioctl's
    /// pruned kinds that carry the component label, and [`SOURCES`]. A source that cannot be
    /// read (a forbidden list) is recorded in `failed` and the others are still read.
    pub async fn revision_objects(&self) -> RevisionObjects {
        let mut read = RevisionObjects::default();
        let owned = PRUNED_KINDS.iter().map(|k| {
            let labelled = async move {
                // A kind a CRD serves is listed whole (`PrunedKind::custom`); the install's
                // snapshot of it is then answered from this list (`crate::reads`).
                let labels = if k.custom() { "" } else { COMPONENT_LABEL };
                let listed = self
                    .list_live((k.group, k.version, k.kind), labels, "")
                    .await?;
                Ok::<_, Error>(
                    listed
                        .into_iter()
                        .filter(|o| o.labels.contains_key(COMPONENT_LABEL))
                        .collect(),
                )
            };
            (
                "control-plane objects (labelled operator.istio.io/component)",
                futures::future::Either::Left(labelled),
            )
        });
        let others = SOURCES.iter().map(|s| {
            (
                s.what,
                futures::future::Either::Right(self.list_live(
                    (s.group, s.version, s.kind),
                    s.labels,
                    s.fields,
                )),
            )
        });
        let lists: Vec<_> = owned
            .chain(others)
            .map(|(what, list)| async move { (what, list.await) })
            .collect();
        let results: Vec<_> = futures::future::join_all(lists).await;
        let mut seen = std::collections::BTreeSet::new();
        for (what, result) in results {
            match result {
                Ok(objects) => {
                    for o in objects {
                        // The istiod Deployment and injector are read twice (by component
                        // label and by their own selector): once is enough.
                        if seen.insert((o.kind.clone(), o.namespace.clone(), o.name.clone())) {
                            read.objects.push(o);
                        }
                    }
                }
                Err(e) => {
                    if !read.failed.iter().any(|(w, _)| w == what) {
                        read.failed.push((what.to_string(), e));
                    }
                }
            }
        }
        read
    }

    /// The cluster's revisions and what uses each (`assess::revisions::inventory` over
    /// [`Client::revision_objects`]); fails when any source cannot be read, since a missing
    /// source would make a revision look unused.
    pub async fn revisions(&self) -> Result<Inventory, Error> {
        let mut read = self.revision_objects().await;
        if !read.failed.is_empty() {
            return Err(read.failed.remove(0).1);
        }
        Ok(assess::revisions::inventory(&read.objects))
    }

    /// Every CustomResourceDefinition in the cluster, as JSON (with `apiVersion` and `kind`),
    /// shared with the client's list of them (`crate::reads`): the install's apply and the
    /// downgrade check read the same objects, and none is copied.
    pub async fn live_crds(&self) -> Result<Vec<std::sync::Arc<Value>>, Error> {
        let ar = kube::core::ApiResource::erase::<CustomResourceDefinition>(&());
        self.list_shared(&ar, None, "")
            .await
            .map_err(|source| Error::List {
                target: Box::new(crate::ListTarget {
                    api_version: "apiextensions.k8s.io/v1".into(),
                    kind: "CustomResourceDefinition".into(),
                    selector: String::new(),
                }),
                source,
            })
    }

    /// The rendered CRDs among `rendered` that would replace live ones with older ones
    /// (`assess::crds::downgrades`). Only reads the cluster.
    pub async fn crd_downgrades(&self, rendered: &[Value]) -> Result<Vec<CrdDowngrade>, Error> {
        if !rendered
            .iter()
            .any(|o| o.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition"))
        {
            return Ok(Vec::new());
        }
        let live = self.live_crds().await?;
        Ok(assess::crds::downgrades(rendered, &live))
    }
}
