//! Revision tags: istioctl's `istioctl/pkg/tag` (the `tag` commands) and the default tag its
//! installer adds (`operator/pkg/webhook`), as pure functions over objects.
//!
//! A revision tag `T` pointing at revision `R` is three objects, all labelled `istio.io/tag=T`
//! and `istio.io/rev=R`:
//! - the MutatingWebhookConfiguration `istio-revision-tag-T` (`-NS` appended outside
//!   `istio-system`): the istiod chart's `revision-tags-mwc.yaml` rendered for `R` with
//!   `revisionTags: [T]`, then given the revision's own injector's endpoint (service, path, URL,
//!   CA bundle, reinvocation policy), its labels but `app`, and its annotations;
//! - for the tag `default` only, the ValidatingWebhookConfiguration `istiod-default-validator`
//!   (the `default` chart), pointed at the same endpoint's `/validate`, keeping a
//!   `failurePolicy` istiod has already switched to `Fail`;
//! - the Service `istiod-revision-tag-T` (the istiod chart's `revision-tags-svc.yaml`).
//!
//! Rendering is the caller's: [`TagRender`] hands this module the rendered objects. The
//! cluster side (which webhooks exist, applying, deleting) is the `cluster` crate's.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};
use vocab::labels::{
    DEACTIVATED_LABEL, DEACTIVATED_VALUE, DEFAULT_REVISION, REVISION_LABEL, TAG_LABEL,
};

/// The ValidatingWebhookConfiguration of the `default` tag.
pub const DEFAULT_VALIDATOR: &str = "istiod-default-validator";
/// The end of the name of the webhook (inside a configuration) that injects sidecars.
const INJECTION_WEBHOOK_SUFFIX: &str = "sidecar-injector.istio.io";
/// Labels of installer-managed objects contain this; user-made tags drop them so that
/// installs neither prune nor take over the tag.
const OPERATOR_LABEL_PART: &str = "operator.istio.io";

/// Why a tag could not be generated; messages are istioctl's where it has them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TagError {
    #[error("could not extract tag revision from webhook")]
    NoRevision,
    #[error("could not find sidecar-injector webhook in canonical webhook {0:?}")]
    NoInjector(String),
    #[error("could not find MutatingWebhookConfiguration in manifests")]
    NoMutatingWebhook,
    #[error("could not find ValidatingWebhookConfiguration in manifests")]
    NoValidatingWebhook,
    #[error("could not find Service tag in manifests")]
    NoService,
    #[error(transparent)]
    Render(#[from] TagRenderError),
}

/// Why a [`TagRender`] could not render: the renderer's own error, kept whole (the renderer is
/// the caller's, so its error type is too).
#[derive(Debug, Clone, thiserror::Error)]
#[error(transparent)]
pub struct TagRenderError(std::sync::Arc<dyn std::error::Error + Send + Sync>);

impl TagRenderError {
    pub fn new(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> TagRenderError {
        TagRenderError(error.into().into())
    }
}

/// Two failures are the same when they say the same: tag errors (and the refusals that carry
/// them) compare by what they print.
impl PartialEq for TagRenderError {
    fn eq(&self, other: &TagRenderError) -> bool {
        self.0.to_string() == other.0.to_string()
    }
}

impl Eq for TagRenderError {}

/// What to generate (istioctl's `GenerateOptions`, less what only decides the checks).
#[derive(Debug, Clone, Default)]
pub struct TagOptions {
    pub tag: String,
    /// The revision the tag points at (`default` for a control plane installed without one).
    pub revision: String,
    /// Overrides the MutatingWebhookConfiguration's name.
    pub webhook_name: Option<String>,
    /// Inject into every namespace unless it opts out (the chart's
    /// `sidecarInjectorWebhook.enableNamespacesByDefault`).
    pub auto_inject_namespaces: bool,
    /// Labels set over the rendered ones (the installer's owner labels for the default tag).
    pub custom_labels: BTreeMap<String, String>,
    /// A tag made by a user (`tag set`): labels naming the installer are dropped.
    pub user_managed: bool,
    pub istio_namespace: String,
    /// The install package (`--manifests`); empty for the default one.
    pub manifests: String,
}

/// What a tag copies from its revision's own injector (istioctl's `tagWebhookConfig`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Canonical {
    /// The revision as the charts take it: empty for `default`.
    pub revision: String,
    pub service: String,
    pub url: String,
    pub path: String,
    pub ca_bundle: String,
    pub reinvocation_policy: String,
    /// The injector's labels without `app`.
    pub labels: Map<String, Value>,
    pub annotations: Map<String, Value>,
}

fn string_at<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

fn map_at(v: &Value, pointer: &str) -> Map<String, Value> {
    v.pointer(pointer)
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

impl Canonical {
    /// Reads the revision's injector (a MutatingWebhookConfiguration labelled
    /// `istio.io/rev=R` and not `istio.io/tag`), as istioctl's
    /// `tagWebhookConfigFromCanonicalWebhook` does.
    pub fn from_injector(webhook: &Value) -> Result<Canonical, TagError> {
        let labels = map_at(webhook, "/metadata/labels");
        let revision = labels
            .get(REVISION_LABEL)
            .ok_or(TagError::NoRevision)?
            .as_str()
            .unwrap_or("");
        let revision = if revision == DEFAULT_REVISION {
            ""
        } else {
            revision
        };
        let injector = webhook
            .get("webhooks")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|w| string_at(w, "/name").ends_with(INJECTION_WEBHOOK_SUFFIX))
            .ok_or_else(|| {
                TagError::NoInjector(string_at(webhook, "/metadata/name").to_string())
            })?;
        Ok(Canonical {
            revision: revision.to_string(),
            service: string_at(injector, "/clientConfig/service/name").to_string(),
            url: string_at(injector, "/clientConfig/url").to_string(),
            path: string_at(injector, "/clientConfig/service/path").to_string(),
            ca_bundle: string_at(injector, "/clientConfig/caBundle").to_string(),
            reinvocation_policy: string_at(injector, "/reinvocationPolicy").to_string(),
            labels: labels.into_iter().filter(|(k, _)| k != "app").collect(),
            annotations: map_at(webhook, "/metadata/annotations"),
        })
    }
}

/// How the caller renders, for [`generate`]: istioctl renders an IstioOperator given as
/// `--set` flags (`render.GenerateManifest`) and a chart with plain values (`helm.Render`).
pub trait TagRender {
    /// The objects of the IstioOperator these istioctl `--set` flags make.
    fn render_flags(&self, flags: &[String]) -> Result<Vec<Value>, TagRenderError>;
    /// The objects of the install package's chart `charts/DIR`, released as `istio` into
    /// `namespace`, with these values (coalesced with the chart's own).
    fn render_chart(
        &self,
        dir: &str,
        namespace: &str,
        values: &Map<String, Value>,
    ) -> Result<Vec<Value>, TagRenderError>;
}

/// The objects of a tag: the MutatingWebhookConfiguration, for `default` the validator, and
/// the Service, in istioctl's order. `live_validator` is the cluster's
/// `istiod-default-validator`, if any: a `failurePolicy` istiod set to `Fail` there is kept.
pub fn generate(
    canonical: &Canonical,
    options: &TagOptions,
    live_validator: Option<&Value>,
    render: &dyn TagRender,
) -> Result<Vec<Value>, TagError> {
    let mut objects = vec![mutating_webhook(canonical, options, render)?];
    if options.tag == DEFAULT_REVISION {
        // A rendering error here yields no validator at all, as in istioctl (which returns
        // an empty document when the `default` chart fails to render).
        if let Some(validator) = validating_webhook(canonical, options, live_validator, render)? {
            objects.push(validator);
        }
    }
    objects.push(service(options, render)?);
    Ok(objects)
}

/// istioctl's `generateMutatingWebhook`.
fn mutating_webhook(
    canonical: &Canonical,
    options: &TagOptions,
    render: &dyn TagRender,
) -> Result<Value, TagError> {
    let mut flags = vec![
        format!("installPackagePath={}", options.manifests),
        "profile=empty".to_string(),
        "components.pilot.enabled=true".to_string(),
        format!("revision={}", canonical.revision),
        format!("values.revisionTags.[0]={}", options.tag),
        format!(
            "values.sidecarInjectorWebhook.enableNamespacesByDefault={}",
            options.auto_inject_namespaces
        ),
        format!("values.istiodRemote.injectionURL={}", canonical.url),
        format!("values.global.istioNamespace={}", options.istio_namespace),
    ];
    if !canonical.reinvocation_policy.is_empty() {
        flags.push(format!(
            "values.sidecarInjectorWebhook.reinvocationPolicy={}",
            canonical.reinvocation_policy
        ));
    }
    let rendered = render.render_flags(&flags)?;
    let mut webhook = rendered
        .into_iter()
        .find(|o| {
            o["kind"] == "MutatingWebhookConfiguration"
                && string_at(o, "/metadata/name").starts_with("istio-revision-tag-")
        })
        .ok_or(TagError::NoMutatingWebhook)?;
    for w in webhooks_mut(&mut webhook) {
        set_ca_bundle(w, &canonical.ca_bundle);
        if let Some(service) = w
            .pointer_mut("/clientConfig/service")
            .and_then(Value::as_object_mut)
        {
            service.insert("path".into(), canonical.path.clone().into());
            service.insert("name".into(), canonical.service.clone().into());
        }
    }
    if let Some(name) = options.webhook_name.as_deref().filter(|n| !n.is_empty()) {
        webhook["metadata"]["name"] = name.into();
    }
    set_labels(&mut webhook, &canonical.labels, options);
    merge_annotations(&mut webhook, &canonical.annotations);
    Ok(webhook)
}

/// The tag's MutatingWebhookConfiguration before its revision is installed: rendered as
/// [`generate`] renders it, but with no endpoint to copy yet (no CA bundle, the chart's
/// service), so only what decides which pods it injects (its name, labels and selectors) is
/// as it will be. What an install's overlap check needs before it applies anything.
pub fn preview_mutating_webhook(
    options: &TagOptions,
    render: &dyn TagRender,
) -> Result<Value, TagError> {
    let canonical = Canonical {
        revision: if options.revision == DEFAULT_REVISION {
            String::new()
        } else {
            options.revision.clone()
        },
        ..Canonical::default()
    };
    let mut webhook = mutating_webhook(&canonical, options, render)?;
    for w in webhooks_mut(&mut webhook) {
        // The chart's service, not the empty name of a canonical injector not yet read.
        if let Some(service) = w
            .pointer_mut("/clientConfig/service")
            .and_then(Value::as_object_mut)
        {
            service.remove("name");
            service.remove("path");
        }
    }
    Ok(webhook)
}

/// istioctl's `fixWhConfig` and `generateValidatingWebhook`. `None` when the chart does not
/// render (istioctl then applies no validator).
fn validating_webhook(
    canonical: &Canonical,
    options: &TagOptions,
    live_validator: Option<&Value>,
    render: &dyn TagRender,
) -> Result<Option<Value>, TagError> {
    let url = validation_url(&canonical.url);
    let values = json!({
        "revision": canonical.revision,
        "base": {"validationURL": url},
        "global": {"istioNamespace": options.istio_namespace},
    });
    let values = values.as_object().expect("an object literal");
    let Ok(rendered) = render.render_chart("default", &options.istio_namespace, values) else {
        return Ok(None);
    };
    let mut validator = rendered
        .into_iter()
        .find(|o| o["kind"] == "ValidatingWebhookConfiguration")
        .ok_or(TagError::NoValidatingWebhook)?;
    // istiod switches the validator's failurePolicy from Ignore to Fail once it serves; a
    // live `Fail` is left out (the API server's default for it is Fail), anything else kept.
    let live_policies: BTreeMap<String, Option<Value>> = live_validator
        .and_then(|v| v.get("webhooks"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|w| {
            let policy = w.get("failurePolicy").filter(|p| *p != "Fail").cloned();
            (string_at(w, "/name").to_string(), policy)
        })
        .collect();
    for w in webhooks_mut(&mut validator) {
        set_ca_bundle(w, &canonical.ca_bundle);
        let name = string_at(w, "/name").to_string();
        if let (Some(policy), Some(map)) = (live_policies.get(&name), w.as_object_mut()) {
            match policy {
                Some(p) => map.insert("failurePolicy".into(), p.clone()),
                None => map.remove("failurePolicy"),
            };
        }
    }
    set_labels(&mut validator, &canonical.labels, options);
    merge_annotations(&mut validator, &canonical.annotations);
    Ok(Some(validator))
}

/// The injector's URL with the path `/validate` (Go's `url.Parse`, then `Path = "/validate"`);
/// empty stays empty, and a URL Go could not parse is kept as it is.
fn validation_url(url: &str) -> String {
    if url.is_empty() {
        return String::new();
    }
    // scheme://authority[/path][?query][#fragment]: the path is replaced, the rest kept.
    let Some(scheme_end) = url.find("://") else {
        return url.to_string();
    };
    let after = scheme_end + 3;
    let authority_end = url[after..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| after + i);
    let rest = &url[authority_end..];
    let tail = rest.find(['?', '#']).map_or("", |i| &rest[i..]);
    format!("{}/validate{tail}", &url[..authority_end])
}

/// istioctl's `generateTagService`: rendered with the tag's revision as given (`default`
/// included), labelled like the webhooks but without the canonical injector's labels.
fn service(options: &TagOptions, render: &dyn TagRender) -> Result<Value, TagError> {
    let flags = vec![
        format!("installPackagePath={}", options.manifests),
        "profile=empty".to_string(),
        "components.pilot.enabled=true".to_string(),
        format!("revision={}", options.revision),
        format!("values.revisionTags.[0]={}", options.tag),
        format!("values.global.istioNamespace={}", options.istio_namespace),
    ];
    let rendered = render.render_flags(&flags)?;
    let mut service = rendered
        .into_iter()
        .find(|o| {
            o["kind"] == "Service"
                && o.pointer(&format!(
                    "/metadata/labels/{}",
                    TAG_LABEL.replace('/', "~1")
                ))
                .and_then(Value::as_str)
                    == Some(options.tag.as_str())
        })
        .ok_or(TagError::NoService)?;
    set_labels(&mut service, &Map::new(), options);
    Ok(service)
}

fn webhooks_mut(config: &mut Value) -> impl Iterator<Item = &mut Value> {
    config
        .get_mut("webhooks")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
}

/// Go sets `caBundle` to the canonical injector's bytes; an empty one is left out.
fn set_ca_bundle(webhook: &mut Value, ca_bundle: &str) {
    let Some(client) = webhook
        .get_mut("clientConfig")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    if ca_bundle.is_empty() {
        client.remove("caBundle");
    } else {
        client.insert("caBundle".into(), ca_bundle.into());
    }
}

fn metadata_map<'a>(object: &'a mut Value, field: &str) -> &'a mut Map<String, Value> {
    let metadata = &mut object["metadata"];
    if !metadata.is_object() {
        *metadata = Value::Object(Map::new());
    }
    let entry = &mut metadata[field];
    if !entry.is_object() {
        *entry = Value::Object(Map::new());
    }
    entry.as_object_mut().expect("made an object above")
}

/// istioctl's `generateLabels`: rendered ← the canonical injector's ← custom; a user-made
/// tag then loses every label whose key contains `operator.istio.io`.
fn set_labels(object: &mut Value, canonical: &Map<String, Value>, options: &TagOptions) {
    let labels = metadata_map(object, "labels");
    for (k, v) in canonical {
        labels.insert(k.clone(), v.clone());
    }
    for (k, v) in &options.custom_labels {
        labels.insert(k.clone(), v.clone().into());
    }
    if options.user_managed {
        labels.retain(|k, _| !k.contains(OPERATOR_LABEL_PART));
    }
}

fn merge_annotations(object: &mut Value, annotations: &Map<String, Value>) {
    if annotations.is_empty() {
        return;
    }
    let target = metadata_map(object, "annotations");
    for (k, v) in annotations {
        target.insert(k.clone(), v.clone());
    }
}

/// The revision's injector with every webhook's namespace and object selectors replaced by
/// one nothing matches (istioctl's `DeactivateIstioInjectionWebhook`): kept, so a user can
/// point the default tag back at it, but inert.
pub fn deactivate(injector: &mut Value) {
    let never = json!({"matchLabels": {DEACTIVATED_LABEL: DEACTIVATED_VALUE}});
    for w in webhooks_mut(injector) {
        if let Some(map) = w.as_object_mut() {
            map.insert("namespaceSelector".into(), never.clone());
            map.insert("objectSelector".into(), never.clone());
        }
    }
}

/// Whether an install of the merged IstioOperator `merged` creates (or moves) the default
/// tag, given whether one exists already (istioctl's `detectIfTagWebhookIsNeeded`): an
/// install without a revision always makes itself the default; a revisioned one only when
/// there is no default tag yet. Never when webhooks are left to an operator
/// (`values.global.operatorManageWebhooks`).
pub fn default_tag_needed(merged: &iop::IstioOperator, default_tag_exists: bool) -> bool {
    !merged.operator_manages_webhooks() && (!default_tag_exists || merged.revision().is_none())
}

/// Whether `object` is a revision's own sidecar injector for `revision` (a
/// MutatingWebhookConfiguration labelled `istio.io/rev=<revision>` and not `istio.io/tag`).
pub fn is_own_injector(object: &Value, revision: &str) -> bool {
    is_revisions_own(object, "MutatingWebhookConfiguration", revision)
}

/// A revision's istiod Service, as istioctl's tag code finds it (`istio.io/rev=<revision>`, no
/// `istio.io/tag`, `app=istiod`, in the Istio namespace `namespace`).
pub fn is_own_istiod_service(object: &Value, revision: &str, namespace: &str) -> bool {
    is_revisions_own(object, "Service", revision)
        && object
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
            == Some(namespace)
        && label(object, "app") == Some("istiod")
}

/// An object of `kind` that belongs to `revision` itself rather than to a tag pointing at it.
fn is_revisions_own(object: &Value, kind: &str, revision: &str) -> bool {
    object["kind"] == kind
        && label(object, REVISION_LABEL) == Some(revision)
        && label(object, TAG_LABEL).is_none()
}

fn label<'a>(object: &'a Value, name: &str) -> Option<&'a str> {
    object
        .pointer("/metadata/labels")
        .and_then(|l| l.get(name))
        .and_then(Value::as_str)
}

/// Whether generating the default tag will succeed once an install has applied its objects:
/// the revision then needs exactly one own injector and at most one istiod Service in the
/// Istio namespace. `live_*` are the names found in the cluster before the install, `own_*`
/// the names the install renders (which it will apply, replacing live ones of those names).
pub fn default_tag_will_generate(
    live_injectors: &[String],
    own_injectors: &[String],
    live_services: &[String],
    own_services: &[String],
) -> bool {
    let after = |live: &[String], own: &[String]| {
        own.len() + live.iter().filter(|n| !own.contains(n)).count()
    };
    after(live_injectors, own_injectors) == 1 && after(live_services, own_services) <= 1
}

/// The default tag's options for an install of `merged` (istioctl's `WebhooksToDeploy`): it
/// points at the install's revision, inherits its auto-injection setting and carries the
/// install's `owner_labels` plus the not-pruned label, and renders from the install's package.
pub fn default_tag_options(
    merged: &iop::IstioOperator,
    owner_labels: &BTreeMap<String, String>,
) -> TagOptions {
    let mut custom_labels = owner_labels.clone();
    custom_labels.insert(
        vocab::labels::NOT_PRUNED_LABEL.to_string(),
        "true".to_string(),
    );
    TagOptions {
        tag: DEFAULT_REVISION.to_string(),
        revision: merged.revision_or_default().to_string(),
        webhook_name: None,
        auto_inject_namespaces: iop::tree::get_path_bool(
            merged.tree(),
            "spec.values.sidecarInjectorWebhook.enableNamespacesByDefault",
        ),
        custom_labels,
        user_managed: false,
        istio_namespace: merged.istio_namespace().to_string(),
        manifests: merged
            .install_package_path()
            .unwrap_or_default()
            .to_string(),
    }
}

/// One row of `tag list`: a tag (empty for a revision no tag names), the revision it points
/// at, and the namespaces labelled `istio.io/rev=<tag>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagDescription {
    pub tag: String,
    pub revision: String,
    pub namespaces: Vec<String>,
}

/// The `(tag, revision)` pairs `tag list` shows, from the labels of the MutatingWebhookConfigurations
/// and Services labelled `istio.io/rev`, as istioctl's `listTags` gathers them: an untagged
/// revision appears (with an empty tag) only when no tag points at it; sorted by revision,
/// then tag.
pub fn tag_pairs<'a>(
    labels: impl IntoIterator<Item = &'a Map<String, Value>>,
) -> Vec<(String, String)> {
    let mut pairs = std::collections::BTreeSet::new();
    for l in labels {
        let Some(revision) = l.get(REVISION_LABEL).and_then(Value::as_str) else {
            continue;
        };
        let tag = l.get(TAG_LABEL).and_then(Value::as_str).unwrap_or("");
        pairs.insert((revision.to_string(), tag.to_string()));
    }
    let tagged: std::collections::BTreeSet<String> = pairs
        .iter()
        .filter(|(_, t)| !t.is_empty())
        .map(|(r, _)| r.clone())
        .collect();
    pairs
        .into_iter()
        .filter(|(r, t)| !t.is_empty() || !tagged.contains(r))
        .map(|(r, t)| (t, r))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_url_replaces_the_path_only() {
        assert_eq!(validation_url(""), "");
        assert_eq!(
            validation_url("https://istiod.example:15017/inject/cluster/c1/net/n1"),
            "https://istiod.example:15017/validate"
        );
        assert_eq!(
            validation_url("https://istiod.example:15017"),
            "https://istiod.example:15017/validate"
        );
        assert_eq!(validation_url("https://h/x?a=b"), "https://h/validate?a=b");
    }

    #[test]
    fn canonical_reads_the_injector_and_blanks_the_default_revision() {
        let wh = json!({
            "metadata": {"name": "istio-sidecar-injector", "labels": {"app": "sidecar-injector", "istio.io/rev": "default", "x": "y"}, "annotations": {"a": "b"}},
            "webhooks": [
                {"name": "rev.namespace.sidecar-injector.istio.io", "clientConfig": {"service": {"name": "istiod", "path": "/inject", "namespace": "istio-system"}, "caBundle": "Q0E="}, "reinvocationPolicy": "Never"},
            ]
        });
        let c = Canonical::from_injector(&wh).unwrap();
        assert_eq!(c.revision, "");
        assert_eq!(c.service, "istiod");
        assert_eq!(c.path, "/inject");
        assert_eq!(c.ca_bundle, "Q0E=");
        assert_eq!(c.reinvocation_policy, "Never");
        assert!(!c.labels.contains_key("app"));
        assert_eq!(c.labels["x"], "y");
        let mut no_rev = wh.clone();
        no_rev["metadata"]["labels"]
            .as_object_mut()
            .unwrap()
            .remove("istio.io/rev");
        assert_eq!(Canonical::from_injector(&no_rev), Err(TagError::NoRevision));
        let mut no_injector = wh;
        no_injector["webhooks"][0]["name"] = "other.example.com".into();
        assert!(matches!(
            Canonical::from_injector(&no_injector),
            Err(TagError::NoInjector(_))
        ));
    }

    #[test]
    fn user_made_tags_drop_installer_labels() {
        let mut object = json!({"metadata": {"labels": {"operator.istio.io/component": "Pilot", "install.operator.istio.io/owning-resource": "x", "app": "a"}}});
        let options = TagOptions {
            user_managed: true,
            ..Default::default()
        };
        set_labels(&mut object, &Map::new(), &options);
        assert_eq!(object["metadata"]["labels"], json!({"app": "a"}));
    }

    #[test]
    fn deactivated_selectors_never_match() {
        let mut wh = json!({"webhooks": [{"name": "a", "namespaceSelector": {"matchLabels": {"x": "y"}}}, {"name": "b"}]});
        deactivate(&mut wh);
        let never = json!({"matchLabels": {DEACTIVATED_LABEL: DEACTIVATED_VALUE}});
        for w in wh["webhooks"].as_array().unwrap() {
            assert_eq!(w["namespaceSelector"], never);
            assert_eq!(w["objectSelector"], never);
        }
    }

    #[test]
    fn default_tag_is_needed_as_istioctl_decides() {
        let iop = iop::IstioOperator::from_tree;
        let default = iop(json!({"spec": {"values": {}}}));
        let canary = iop(json!({"spec": {"values": {"revision": "canary"}}}));
        let managed =
            iop(json!({"spec": {"values": {"global": {"operatorManageWebhooks": true}}}}));
        assert!(default_tag_needed(&default, false));
        assert!(default_tag_needed(&default, true));
        assert!(default_tag_needed(&canary, false));
        assert!(!default_tag_needed(&canary, true));
        assert!(!default_tag_needed(&managed, false));
    }

    #[test]
    fn generation_needs_one_injector_after_the_install() {
        let v = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        assert!(default_tag_will_generate(&[], &v(&["a"]), &[], &v(&["s"])));
        assert!(default_tag_will_generate(
            &v(&["a"]),
            &v(&["a"]),
            &v(&["s"]),
            &v(&["s"])
        ));
        assert!(!default_tag_will_generate(&v(&["b"]), &v(&["a"]), &[], &[]));
        assert!(!default_tag_will_generate(&[], &[], &[], &[]));
        assert!(!default_tag_will_generate(
            &[],
            &v(&["a"]),
            &v(&["t"]),
            &v(&["s"])
        ));
    }

    #[test]
    fn tag_pairs_hide_untagged_revisions_that_have_tags() {
        let l = |v: Value| v.as_object().unwrap().clone();
        let labels = [
            l(json!({"istio.io/rev": "1-30"})),
            l(json!({"istio.io/rev": "1-31"})),
            l(json!({"istio.io/rev": "1-31", "istio.io/tag": "prod"})),
            l(json!({"istio.io/rev": "1-31", "istio.io/tag": "default"})),
            l(json!({"other": "x"})),
        ];
        assert_eq!(
            tag_pairs(labels.iter()),
            vec![
                ("".to_string(), "1-30".to_string()),
                ("default".to_string(), "1-31".to_string()),
                ("prod".to_string(), "1-31".to_string()),
            ]
        );
    }
}
