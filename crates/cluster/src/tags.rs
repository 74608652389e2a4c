//! Revision tags in the cluster: the reads, checks and writes of istioctl's `istioctl/pkg/tag`
//! (`tag set|generate|list|remove`) and of the default tag its installer adds. What the tag's
//! objects contain is `manifest::tag`'s; the rendering it needs is the caller's
//! ([`manifest::tag::TagRender`]).
//!
//! Which objects are whose, by label (istioctl's selectors):
//! - a revision's own injector: MutatingWebhookConfiguration `istio.io/rev=R,!istio.io/tag`;
//! - a revision's istiod Service: `istio.io/rev=R,!istio.io/tag,app=istiod` in the Istio
//!   namespace;
//! - a tag's objects: `istio.io/tag=T` (webhooks cluster-wide, Services in the Istio namespace);
//! - the namespaces using a tag: `istio.io/rev=T`.

use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use k8s_openapi::api::core::v1::{Namespace, Service};
use kube::api::{Api, DeleteParams, ListParams, PostParams};
use manifest::tag::{self, Canonical, TagDescription, TagOptions, TagRender};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use vocab::ObjectRef;

use crate::{Client, Error, ListTarget};

/// The checks istioctl's `Generate` makes before a tag is generated.
#[derive(Debug, Clone, Copy, Default)]
pub struct TagChecks {
    /// `tag generate`: only print, so a tag named like a revision is not refused.
    pub generate_only: bool,
    /// `--overwrite`: an existing tag of that name is replaced.
    pub overwrite: bool,
}

/// Refusals of tag commands, in istioctl's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TagRefusal {
    #[error(
        "cannot create revision tag {0:?}: found existing control plane revision with same name"
    )]
    NamedLikeRevision(String),
    #[error(
        "cannot modify tag: found multiple canonical services with revision {revision:?} in namespace {namespace:?}"
    )]
    SeveralServices { revision: String, namespace: String },
    #[error(
        "cannot modify tag: cannot find MutatingWebhookConfiguration or Service with revision {0:?}"
    )]
    NoRevision(String),
    /// istioctl indexes the first webhook here and panics; bosun says what is missing.
    #[error(
        "cannot modify tag: found the istiod Service of revision {0:?} but no MutatingWebhookConfiguration labelled istio.io/rev={0} without istio.io/tag"
    )]
    NoInjector(String),
    #[error("cannot modify tag: found multiple canonical webhooks or services with revision {0:?}")]
    SeveralInjectors(String),
    #[error("revision tag {0:?} already exists, and --overwrite is false")]
    Exists(String),
    #[error("cannot remove tag {0:?}: cannot find MutatingWebhookConfiguration or Service for tag")]
    NotFound(String),
    #[error("expected a single webhook for default revision")]
    SeveralDefaultInjectors,
    #[error("{0}")]
    Generate(#[from] tag::TagError),
}

/// What removing a tag deleted.
#[derive(Debug, Clone, Default)]
pub struct RemovedTag {
    pub objects: Vec<ObjectRef>,
}

fn list_error(kind: &str, api_version: &str, selector: &str, source: kube::Error) -> Error {
    Error::List {
        target: Box::new(ListTarget {
            api_version: api_version.into(),
            kind: kind.into(),
            selector: selector.into(),
        }),
        source,
    }
}

/// A typed list item as JSON, with the `kind` and `apiVersion` list items lack.
fn to_json<T: Serialize>(item: &T, api_version: &str, kind: &str) -> Value {
    let mut json = serde_json::to_value(item).unwrap_or(Value::Null);
    if let Some(map) = json.as_object_mut() {
        map.insert("apiVersion".into(), api_version.into());
        map.insert("kind".into(), kind.into());
    }
    json
}

const ADMISSION: &str = "admissionregistration.k8s.io/v1";

fn object_ref(object: &Value) -> ObjectRef {
    let field = |p: &str| object.pointer(p).and_then(Value::as_str).unwrap_or("");
    ObjectRef {
        api_version: field("/apiVersion").to_string(),
        kind: field("/kind").to_string(),
        namespace: Some(field("/metadata/namespace"))
            .filter(|n| !n.is_empty())
            .map(str::to_string),
        name: field("/metadata/name").to_string(),
    }
}

impl Client {
    /// The objects of kind `T` (in `namespace`, or cluster-wide) that `selector` matches, as
    /// JSON, from the client's shared list of the kind (`crate::reads`). Each goes through
    /// `T` as a list of `T` would, so the JSON is the same as a typed list's.
    async fn list_json<T>(
        &self,
        namespace: Option<&str>,
        selector: &str,
        api_version: &str,
        kind: &str,
    ) -> Result<Vec<Value>, Error>
    where
        T: kube::Resource<DynamicType = ()> + Clone + DeserializeOwned + Serialize,
    {
        let ar = kube::core::ApiResource::erase::<T>(&());
        let items = self
            .list_shared(&ar, namespace, selector)
            .await
            .map_err(|e| list_error(kind, api_version, selector, e))?;
        items
            .iter()
            .map(|item| {
                let typed = T::deserialize(item.as_ref()).map_err(|e| {
                    list_error(kind, api_version, selector, kube::Error::SerdeError(e))
                })?;
                Ok(to_json(&typed, api_version, kind))
            })
            .collect()
    }

    /// The MutatingWebhookConfigurations matching a label selector, as JSON.
    pub async fn mutating_webhooks(&self, selector: &str) -> Result<Vec<Value>, Error> {
        self.list_json::<MutatingWebhookConfiguration>(
            None,
            selector,
            ADMISSION,
            "MutatingWebhookConfiguration",
        )
        .await
    }

    /// The ValidatingWebhookConfigurations matching a label selector, as JSON.
    pub async fn validating_webhooks(&self, selector: &str) -> Result<Vec<Value>, Error> {
        self.list_json::<ValidatingWebhookConfiguration>(
            None,
            selector,
            ADMISSION,
            "ValidatingWebhookConfiguration",
        )
        .await
    }

    /// The Services of `namespace` matching a label selector, as JSON.
    pub async fn services(&self, namespace: &str, selector: &str) -> Result<Vec<Value>, Error> {
        self.list_json::<Service>(Some(namespace), selector, "v1", "Service")
            .await
    }

    /// The names of the namespaces labelled `istio.io/rev=<tag>` (istioctl's
    /// `GetNamespacesWithTag`).
    pub async fn namespaces_with_tag(&self, tag: &str) -> Result<Vec<String>, Error> {
        let api: Api<Namespace> = Api::all(self.kube.clone());
        let selector = format!("{}={tag}", vocab::labels::REVISION_LABEL);
        let list = api
            .list(&ListParams::default().labels(&selector))
            .await
            .map_err(|e| list_error("Namespace", "v1", &selector, e))?;
        Ok(list
            .items
            .into_iter()
            .filter_map(|n| n.metadata.name)
            .collect())
    }

    /// Whether a default tag exists (istioctl's `PreviousInstallExists`: an injector labelled
    /// `app=sidecar-injector,istio.io/tag=default`). Like istioctl, a failed read counts as
    /// none.
    pub async fn default_tag_exists(&self) -> bool {
        self.mutating_webhooks("app=sidecar-injector,istio.io/tag=default")
            .await
            .is_ok_and(|found| !found.is_empty())
    }

    /// The names of revision `revision`'s own injectors (cluster-wide) and istiod Services (in
    /// `istio_namespace`): what tag generation requires exactly one (at most one) of.
    pub async fn revision_endpoints(
        &self,
        revision: &str,
        istio_namespace: &str,
    ) -> Result<(Vec<String>, Vec<String>), Error> {
        let selector = format!(
            "{}={revision},!{}",
            vocab::labels::REVISION_LABEL,
            vocab::labels::TAG_LABEL
        );
        let names = |objects: Vec<Value>| -> Vec<String> {
            objects.iter().map(|o| object_ref(o).name).collect()
        };
        let injectors = names(self.mutating_webhooks(&selector).await?);
        let services = names(
            self.services(istio_namespace, &format!("{selector},app=istiod"))
                .await?,
        );
        Ok((injectors, services))
    }

    /// Generates the objects of tag `options.tag` pointing at `options.revision`, after
    /// istioctl's checks: a tag named like an existing revision is refused (unless only
    /// generating, overwriting, or the tag is `default`), the revision must have exactly one
    /// own injector (and at most one istiod Service), and an existing tag is replaced only
    /// with `overwrite`. Only reads the cluster.
    pub async fn generate_tag(
        &self,
        options: &TagOptions,
        checks: TagChecks,
        render: &dyn TagRender,
    ) -> Result<Result<Vec<Value>, TagRefusal>, Error> {
        let ns = options.istio_namespace.as_str();
        let revision_selector = |rev: &str| {
            format!(
                "{}={rev},!{}",
                vocab::labels::REVISION_LABEL,
                vocab::labels::TAG_LABEL
            )
        };
        let revision_services = |rev: &str| format!("{},app=istiod", revision_selector(rev));
        if !(checks.generate_only
            || checks.overwrite
            || options.tag == vocab::labels::DEFAULT_REVISION)
        {
            let services = self.services(ns, &revision_services(&options.tag)).await?;
            let webhooks = self
                .mutating_webhooks(&revision_selector(&options.tag))
                .await?;
            if !services.is_empty() || !webhooks.is_empty() {
                return Ok(Err(TagRefusal::NamedLikeRevision(options.tag.clone())));
            }
        }
        let services = self
            .services(ns, &revision_services(&options.revision))
            .await?;
        if services.len() > 1 {
            return Ok(Err(TagRefusal::SeveralServices {
                revision: options.revision.clone(),
                namespace: ns.to_string(),
            }));
        }
        let webhooks = self
            .mutating_webhooks(&revision_selector(&options.revision))
            .await?;
        let canonical = match webhooks.as_slice() {
            [] if services.is_empty() => {
                return Ok(Err(TagRefusal::NoRevision(options.revision.clone())));
            }
            [] => return Ok(Err(TagRefusal::NoInjector(options.revision.clone()))),
            [one] => one,
            _ => return Ok(Err(TagRefusal::SeveralInjectors(options.revision.clone()))),
        };
        if !checks.overwrite {
            let selector = format!("{}={}", vocab::labels::TAG_LABEL, options.tag);
            let tag_services = self.services(ns, &selector).await?;
            let tag_webhooks = self.mutating_webhooks(&selector).await?;
            if !tag_services.is_empty() || !tag_webhooks.is_empty() {
                return Ok(Err(TagRefusal::Exists(options.tag.clone())));
            }
        }
        let canonical = match Canonical::from_injector(canonical) {
            Ok(c) => c,
            Err(e) => return Ok(Err(e.into())),
        };
        let live_validator = if options.tag == vocab::labels::DEFAULT_REVISION {
            self.default_validator().await?
        } else {
            None
        };
        Ok(
            tag::generate(&canonical, options, live_validator.as_ref(), render)
                .map_err(TagRefusal::from),
        )
    }

    /// The cluster's `istiod-default-validator`, if any (a tag `default` keeps the
    /// `failurePolicy` istiod set there).
    pub async fn default_validator(&self) -> Result<Option<Value>, Error> {
        // From the shared list of validating webhooks the checks read anyway.
        Ok(self.validating_webhooks("").await?.into_iter().find(|v| {
            v.pointer("/metadata/name").and_then(Value::as_str) == Some(tag::DEFAULT_VALIDATOR)
        }))
    }

    /// What setting the default tag would do to the injector of the revision `default` (the
    /// one an install without a revision made): `Some((live, deactivated))` when there is one
    /// whose selectors it would replace by ones nothing matches. Reads only.
    pub async fn default_injector_deactivation(
        &self,
    ) -> Result<Result<Option<(Value, Value)>, TagRefusal>, Error> {
        let selector = format!(
            "{}={},!{}",
            vocab::labels::REVISION_LABEL,
            vocab::labels::DEFAULT_REVISION,
            vocab::labels::TAG_LABEL
        );
        let list = self.mutating_webhooks(&selector).await?;
        let live = match list.as_slice() {
            [] => return Ok(Ok(None)),
            [one] => one.clone(),
            _ => return Ok(Err(TagRefusal::SeveralDefaultInjectors)),
        };
        let mut deactivated = live.clone();
        tag::deactivate(&mut deactivated);
        Ok(Ok((deactivated != live).then_some((live, deactivated))))
    }

    /// Deactivates the injector of the revision `default` (the one an install without a
    /// revision made), if there is one, as istioctl does when the default tag is set: its
    /// selectors are replaced by ones nothing matches, and it is kept. Returns its name when
    /// it changed it.
    pub async fn deactivate_default_injector(
        &self,
        field_manager: &str,
    ) -> Result<Result<Option<String>, TagRefusal>, Error> {
        let (_, deactivated) = match self.default_injector_deactivation().await? {
            Ok(Some(change)) => change,
            Ok(None) => return Ok(Ok(None)),
            Err(refusal) => return Ok(Err(refusal)),
        };
        let name = deactivated
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let object = ObjectRef {
            api_version: ADMISSION.into(),
            kind: "MutatingWebhookConfiguration".into(),
            namespace: None,
            name: name.clone(),
        };
        let injector: MutatingWebhookConfiguration =
            serde_json::from_value(deactivated).map_err(|e| Error::InvalidObject {
                index: 0,
                reason: format!("{object}: {e}"),
            })?;
        // An update, as istioctl's: it replaces the selectors whoever set them.
        let params = PostParams {
            field_manager: Some(field_manager.into()),
            ..Default::default()
        };
        let api: Api<MutatingWebhookConfiguration> = Api::all(self.kube.clone());
        api.replace(&name, &params, &injector)
            .await
            .map_err(|source| Error::Api {
                object: Box::new(object),
                action: "deactivating its selectors",
                source,
            })?;
        Ok(Ok(Some(name)))
    }

    /// Whether tag `tag_name` has a MutatingWebhookConfiguration or a Service (in
    /// `istio_namespace`).
    pub async fn tag_exists(&self, tag_name: &str, istio_namespace: &str) -> Result<bool, Error> {
        let selector = format!("{}={tag_name}", vocab::labels::TAG_LABEL);
        Ok(!self.services(istio_namespace, &selector).await?.is_empty()
            || !self.mutating_webhooks(&selector).await?.is_empty())
    }

    /// Deletes tag `tag`'s webhooks (mutating and validating, cluster-wide) and Services (in
    /// `istio_namespace`), as `istioctl tag remove` does; a tag with neither is refused.
    pub async fn remove_tag(
        &self,
        tag_name: &str,
        istio_namespace: &str,
    ) -> Result<Result<RemovedTag, TagRefusal>, Error> {
        let selector = format!("{}={tag_name}", vocab::labels::TAG_LABEL);
        let services = self.services(istio_namespace, &selector).await?;
        let mutating = self.mutating_webhooks(&selector).await?;
        if services.is_empty() && mutating.is_empty() {
            return Ok(Err(TagRefusal::NotFound(tag_name.to_string())));
        }
        let validating = self.validating_webhooks(&selector).await?;
        let mut removed = RemovedTag::default();
        for object in mutating.iter().chain(&validating).chain(&services) {
            let reference = object_ref(object);
            self.delete_one(&reference).await?;
            removed.objects.push(reference);
        }
        Ok(Ok(removed))
    }

    async fn delete_one(&self, object: &ObjectRef) -> Result<(), Error> {
        let error = |source| Error::Api {
            object: Box::new(object.clone()),
            action: "deleting it",
            source,
        };
        let params = DeleteParams::default();
        let result = match object.kind.as_str() {
            "MutatingWebhookConfiguration" => {
                Api::<MutatingWebhookConfiguration>::all(self.kube.clone())
                    .delete(&object.name, &params)
                    .await
                    .map(|_| ())
            }
            "ValidatingWebhookConfiguration" => {
                Api::<ValidatingWebhookConfiguration>::all(self.kube.clone())
                    .delete(&object.name, &params)
                    .await
                    .map(|_| ())
            }
            _ => Api::<Service>::namespaced(
                self.kube.clone(),
                object.namespace.as_deref().unwrap_or_default(),
            )
            .delete(&object.name, &params)
            .await
            .map(|_| ()),
        };
        match result {
            Err(kube::Error::Api(status)) if status.code == 404 => Ok(()),
            other => other.map_err(error),
        }
    }

    /// The rows of `tag list` (istioctl's `listTags`): every tag and untagged revision found
    /// on MutatingWebhookConfigurations and on Services of `istio_namespace` labelled
    /// `istio.io/rev`, with the namespaces using each.
    pub async fn tag_descriptions(
        &self,
        istio_namespace: &str,
    ) -> Result<Vec<TagDescription>, Error> {
        let webhooks = self
            .mutating_webhooks(vocab::labels::REVISION_LABEL)
            .await?;
        let services = self
            .services(istio_namespace, vocab::labels::REVISION_LABEL)
            .await?;
        let labels: Vec<serde_json::Map<String, Value>> = webhooks
            .iter()
            .chain(&services)
            .filter_map(|o| o.pointer("/metadata/labels").and_then(Value::as_object))
            .cloned()
            .collect();
        let mut rows = Vec::new();
        for (tag_name, revision) in tag::tag_pairs(&labels) {
            let namespaces = self.namespaces_with_tag(&tag_name).await?;
            rows.push(TagDescription {
                tag: tag_name,
                revision,
                namespaces,
            });
        }
        Ok(rows)
    }
}
