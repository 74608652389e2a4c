//! The live side of `bosun precheck`: reads what `assess::precheck` judges (the Kubernetes
//! version, one SelfSubjectAccessReview per permission the install needs, the CRDs, the
//! revisions, the injectors the render would overlap, the `zipkin` Service for
//! `--from-version`). Only the version must be readable; any other read that fails becomes a
//! "could not check" finding, so a user with few rights still learns what they lack.

use std::collections::BTreeMap;

use assess::precheck::{Access, AccessAnswer, Facts, Install, KubernetesVersion};
use futures::StreamExt;
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};
use k8s_openapi::api::core::v1::Service;
use kube::api::{Api, PostParams};
use kube::core::GroupVersionKind;
use serde_json::Value;
use vocab::ObjectRef;

use crate::prune::PRUNED_KINDS;
use crate::{Client, Error};

/// The install precheck looks ahead to: what it renders.
#[derive(Debug, Clone, Copy)]
pub struct PrecheckInstall<'a> {
    /// Every object the install applies (Namespaces and CRDs included), with owner labels.
    pub rendered: &'a [Value],
    /// Its revision (`default` without one).
    pub revision: &'a str,
    /// The Istio version of the charts rendered.
    pub version: &'a str,
    /// The install moves the default tag: the live injector of the revision `default` is
    /// judged deactivated, as the tag leaves it (`rendered` then holds the tag's injector).
    pub default_deactivated: bool,
}

impl Client {
    /// Asks the API server whether the current user may do `access`.
    pub async fn access_review(&self, access: &Access) -> Result<AccessAnswer, kube::Error> {
        let api: Api<SelfSubjectAccessReview> = Api::all(self.kube.clone());
        let review = SelfSubjectAccessReview {
            spec: SelfSubjectAccessReviewSpec {
                resource_attributes: Some(ResourceAttributes {
                    namespace: access.namespace.clone(),
                    verb: Some(access.verb.clone()),
                    group: Some(access.group.clone()),
                    resource: Some(access.resource.clone()),
                    ..Default::default()
                }),
                ..Default::default()
            },
            ..Default::default()
        };
        let answer = api.create(&PostParams::default(), &review).await?;
        let status = answer.status.unwrap_or_default();
        Ok(AccessAnswer {
            access: access.clone(),
            allowed: status.allowed,
            reason: status.reason.unwrap_or_default(),
        })
    }

    /// The plural resource name of each `(group, version, kind)` the server serves, by
    /// `(group, kind)`.
    async fn resources(
        &self,
        kinds: impl IntoIterator<Item = (String, String, String)>,
    ) -> Result<BTreeMap<(String, String), String>, Error> {
        let mut out = BTreeMap::new();
        for (group, version, kind) in kinds {
            if out.contains_key(&(group.clone(), kind.clone())) {
                continue;
            }
            let gvk = GroupVersionKind::gvk(&group, &version, &kind);
            let what = ObjectRef {
                api_version: gvk.api_version(),
                kind: kind.clone(),
                namespace: None,
                name: "(discovery)".into(),
            };
            if let Some((ar, _)) = self.served(&gvk, &what).await? {
                out.insert((group, kind), ar.plural);
            }
        }
        Ok(out)
    }

    /// The answers to every permission installing `rendered` needs
    /// (`assess::precheck::required_access`), a few reviews in flight at once.
    pub async fn install_access(&self, rendered: &[Value]) -> Result<Vec<AccessAnswer>, Error> {
        let pruned: Vec<(String, String)> = PRUNED_KINDS
            .iter()
            .filter(|k| !k.purge_only)
            .map(|k| (k.group.to_string(), k.kind.to_string()))
            .collect();
        let kinds = rendered
            .iter()
            .filter_map(|o| {
                let api_version = o.get("apiVersion").and_then(Value::as_str)?;
                let kind = o.get("kind").and_then(Value::as_str)?;
                let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
                Some((group.to_string(), version.to_string(), kind.to_string()))
            })
            .chain(PRUNED_KINDS.iter().filter(|k| !k.purge_only).map(|k| {
                (
                    k.group.to_string(),
                    k.version.to_string(),
                    k.kind.to_string(),
                )
            }))
            .collect::<Vec<_>>();
        let resources = self.resources(kinds).await?;
        let needed = assess::precheck::required_access(rendered, &pruned, &resources);
        let reviews: Vec<_> = needed.iter().map(|a| self.access_review(a)).collect();
        let answers: Vec<Result<AccessAnswer, kube::Error>> =
            futures::stream::iter(reviews).buffered(8).collect().await;
        answers
            .into_iter()
            .collect::<Result<Vec<_>, _>>()
            .map_err(|source| Error::Api {
                object: Box::new(ObjectRef {
                    api_version: "authorization.k8s.io/v1".into(),
                    kind: "SelfSubjectAccessReview".into(),
                    namespace: None,
                    name: "(permissions of the install)".into(),
                }),
                action: "asking whether the install is allowed",
                source,
            })
    }

    /// Everything precheck judges (see the module docs). `install` is the install to check
    /// for (its permissions, injector overlaps and CRD downgrades); `from_version` is istioctl's
    /// `--from-version`. Fails only when the Kubernetes version cannot be read.
    pub async fn precheck_facts(
        &self,
        install: Option<PrecheckInstall<'_>>,
        from_version: Option<&str>,
    ) -> Result<Facts, Error> {
        let version = self
            .kube
            .apiserver_version()
            .await
            .map_err(Error::Version)?;
        let mut facts = Facts {
            kubernetes_version: KubernetesVersion {
                git_version: version.git_version,
                major: version.major,
                minor: version.minor,
            },
            ..Facts::default()
        };
        let crds = self.live_crds().await;
        let read = self.revision_objects().await;
        for (what, error) in read.failed {
            facts.skipped.push((what, error.to_string()));
        }
        facts.inventory = Some(assess::revisions::inventory(&read.objects));
        if let Some(install) = install {
            match self.install_access(install.rendered).await {
                Ok(answers) => facts.access = answers,
                Err(e) => facts
                    .skipped
                    .push(("the install's permissions".into(), e.to_string())),
            }
            let overlaps = match self
                .webhook_overlaps_after(install.rendered, install.default_deactivated)
                .await
            {
                Ok(found) => found
                    .iter()
                    .map(|o| (o.rendered.configuration.clone(), o.to_string()))
                    .collect(),
                Err(e) => {
                    facts
                        .skipped
                        .push(("sidecar injectors of other revisions".into(), e.to_string()));
                    Vec::new()
                }
            };
            let crd_downgrades = match &crds {
                Ok(live) => assess::crds::downgrades(install.rendered, live),
                Err(_) => Vec::new(),
            };
            facts.install = Some(Install {
                revision: install.revision.to_string(),
                version: install.version.to_string(),
                overlaps,
                crd_downgrades,
            });
        }
        match crds {
            Ok(live) => facts.crds = live.iter().map(|crd| Value::clone(crd)).collect(),
            Err(e) => facts.skipped.push((
                "the cluster's CustomResourceDefinitions (Gateway API versions, CRD downgrades)"
                    .into(),
                e.to_string(),
            )),
        }
        if let Some(from) = from_version {
            // istioctl looks in istio-system, whatever the Istio namespace.
            let services: Api<Service> = Api::namespaced(self.kube.clone(), "istio-system");
            match services.get_opt("zipkin").await {
                Ok(found) => facts.from_version = Some((from.to_string(), found.is_some())),
                Err(e) => {
                    facts.from_version = Some((from.to_string(), false));
                    facts.skipped.push((
                        "Service istio-system/zipkin (--from-version)".into(),
                        crate::describe(&e),
                    ));
                }
            }
        }
        Ok(facts)
    }
}
