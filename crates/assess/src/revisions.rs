//! Which control-plane revisions a cluster has, and what still uses each: a pure function of
//! the live objects' kinds, names, labels and annotations ([`inventory`]); the `cluster` crate
//! reads them. `bosun revision list` prints the result, and `uninstall --revision R` refuses
//! while [`Revision::in_use`].
//!
//! How objects map to revisions (checked in the pinned Istio's charts, `istioctl/pkg/tag` and
//! `pkg/kube/inject`):
//! - **Control plane**: an object with istioctl's component label (`operator.istio.io/component`)
//!   and no `istio.io/tag` label belongs to the revision of its `istio.io/rev` label (`default`
//!   when missing); its version is its `operator.istio.io/version` label. An istiod Deployment
//!   (`app=istiod`) or a sidecar-injector MutatingWebhookConfiguration (`app=sidecar-injector`)
//!   without that label was installed some other way (Helm): it still marks its revision as
//!   installed, with the chart's `app.kubernetes.io/version` as the version.
//! - **Tags**: any object labelled `istio.io/tag=T` (the tag's MutatingWebhookConfiguration
//!   `istio-revision-tag-T`, its Service `istiod-revision-tag-T`, the default tag's validator)
//!   says that tag T points at the revision of its `istio.io/rev` label.
//! - **Namespaces** (as the injectors' namespace selectors decide): `istio-injection=enabled`
//!   selects the revision the `default` tag points at, or the `default` revision when there is no
//!   such tag; any other `istio-injection` value selects nothing (every revision's webhook
//!   requires the label absent). Otherwise `istio.io/rev=V` selects the revision tag V points at
//!   when V is a tag, else revision V. An empty value selects nothing, and so does a namespace
//!   being deleted (no pod can be created in it).
//! - **Pods**: the sidecar injector writes the annotation `istio.io/rev: <revision>` (the
//!   revision of the istiod that injected it, never a tag's name: the injection templates use
//!   `.Revision`) on every pod it injects; pods without it are taken from the `revision` field
//!   of their `sidecar.istio.io/status` annotation (older injectors). The *label* `istio.io/rev`
//!   on a pod only asks for injection and is not read. A pod with istioctl's component label
//!   and no `sidecar.istio.io/status` (the installer's gateways, whose own template carries
//!   `istio.io/rev`) was not injected: it is part of its revision's install.
//!
//! A revision that namespaces, tags or pods name but that has no control-plane object is listed
//! too, with `installed: false`: those are the namespaces and proxies left without a control
//! plane.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use vocab::labels::{
    COMPONENT_LABEL, DEFAULT_REVISION, HELM_VERSION_LABEL, INJECTION_LABEL, REVISION_LABEL,
    SIDECAR_STATUS_ANNOTATION, TAG_LABEL, VERSION_LABEL,
};

/// What the cluster crate reads: one object's identity, labels and annotations.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveObject {
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub name: String,
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
    /// Whether it is being deleted (`metadata.deletionTimestamp` set).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub terminating: bool,
}

impl LiveObject {
    /// An object of `kind` named `name` (in `namespace`, if namespaced) with these labels and
    /// no annotations: how tests and callers that read only labels describe one.
    pub fn new(kind: &str, namespace: Option<&str>, name: &str, labels: &[(&str, &str)]) -> Self {
        LiveObject {
            kind: kind.into(),
            namespace: namespace.map(str::to_string),
            name: name.into(),
            labels: labels
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Default::default()
        }
    }

    fn label(&self, key: &str) -> Option<&str> {
        self.labels.get(key).map(String::as_str)
    }

    fn display(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("{} {ns}/{}", self.kind, self.name),
            None => format!("{} {}", self.kind, self.name),
        }
    }
}

/// A namespace that selects a revision, and the label that makes it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct NamespaceSelection {
    pub namespace: String,
    /// `istio.io/rev=prod` or `istio-injection=enabled`.
    pub label: String,
    /// The tag the label goes through, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
}

/// A pod that runs a revision's proxy.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct PodRef {
    pub namespace: String,
    pub name: String,
}

/// A revision tag.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Tag {
    pub tag: String,
    pub revision: String,
    /// The objects that make the tag (`MutatingWebhookConfiguration istio-revision-tag-prod`).
    pub objects: Vec<String>,
}

/// One control-plane revision and what uses it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Revision {
    pub revision: String,
    /// Whether any control-plane object of it exists.
    pub installed: bool,
    /// The Istio versions its objects are labelled with (more than one mid-upgrade).
    pub versions: Vec<String>,
    /// The namespaces of its istiod Deployments.
    pub istiod_namespaces: Vec<String>,
    /// Its components (istioctl's names: `Base`, `Pilot`, …; `Pilot` for a Helm-installed istiod).
    pub components: Vec<String>,
    /// Its own sidecar-injector MutatingWebhookConfigurations (tags' are under `tags`).
    pub injectors: Vec<String>,
    /// The tags pointing at it.
    pub tags: Vec<String>,
    /// The namespaces that select it.
    pub namespaces: Vec<NamespaceSelection>,
    /// The pods running its proxy.
    pub pods: Vec<PodRef>,
}

impl Revision {
    fn new(name: &str) -> Revision {
        Revision {
            revision: name.to_string(),
            installed: false,
            versions: Vec::new(),
            istiod_namespaces: Vec::new(),
            components: Vec::new(),
            injectors: Vec::new(),
            tags: Vec::new(),
            namespaces: Vec::new(),
            pods: Vec::new(),
        }
    }

    /// Whether tags, namespaces or pods still use it.
    pub fn in_use(&self) -> bool {
        !(self.tags.is_empty() && self.namespaces.is_empty() && self.pods.is_empty())
    }
}

/// Every revision and every tag found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Inventory {
    pub revisions: Vec<Revision>,
    pub tags: Vec<Tag>,
}

impl Inventory {
    /// The revision named `name`, if the cluster has or uses it.
    pub fn revision(&self, name: &str) -> Option<&Revision> {
        self.revisions.iter().find(|r| r.revision == name)
    }

    /// The tag named `name`.
    pub fn tag(&self, name: &str) -> Option<&Tag> {
        self.tags.iter().find(|t| t.tag == name)
    }
}

/// istioctl's components in its install order; others sort after them by name.
const COMPONENT_ORDER: &[&str] = &[
    "Base",
    "Pilot",
    "Cni",
    "Ztunnel",
    "IngressGateways",
    "EgressGateways",
];

fn component_rank(name: &str) -> (usize, String) {
    let rank = COMPONENT_ORDER
        .iter()
        .position(|c| *c == name)
        .unwrap_or(COMPONENT_ORDER.len());
    (rank, name.to_string())
}

fn revision_of(object: &LiveObject) -> String {
    object
        .label(REVISION_LABEL)
        .filter(|r| !r.is_empty())
        .unwrap_or(DEFAULT_REVISION)
        .to_string()
}

/// The revision a pod's proxy belongs to (see the module docs), `None` when not injected.
/// A pod of an installed component (istioctl's component label: the installer's own
/// gateways, whose template carries `istio.io/rev` itself) that no injector touched (no
/// `sidecar.istio.io/status`) is part of its revision's install, not a workload using it.
pub fn pod_revision(pod: &LiveObject) -> Option<String> {
    if pod.labels.contains_key(COMPONENT_LABEL)
        && !pod.annotations.contains_key(SIDECAR_STATUS_ANNOTATION)
    {
        return None;
    }
    if let Some(rev) = pod
        .annotations
        .get(REVISION_LABEL)
        .filter(|r| !r.is_empty())
    {
        return Some(rev.clone());
    }
    let status = pod.annotations.get(SIDECAR_STATUS_ANNOTATION)?;
    let status: serde_json::Value = serde_json::from_str(status).ok()?;
    let rev = status.get("revision").and_then(serde_json::Value::as_str)?;
    Some(
        if rev.is_empty() {
            DEFAULT_REVISION
        } else {
            rev
        }
        .to_string(),
    )
}

/// The revision a namespace with `labels` selects, given each tag's revision, with the
/// selection's description; `None` when it selects none (see the module docs).
pub fn namespace_revision(
    namespace: &str,
    labels: &BTreeMap<String, String>,
    tags: &BTreeMap<String, String>,
) -> Option<(String, NamespaceSelection)> {
    let through_tag = |label: String, tag: &str, fallback: &str| match tags.get(tag) {
        Some(rev) => (
            rev.clone(),
            NamespaceSelection {
                namespace: namespace.to_string(),
                label,
                tag: Some(tag.to_string()),
            },
        ),
        None => (
            fallback.to_string(),
            NamespaceSelection {
                namespace: namespace.to_string(),
                label,
                tag: None,
            },
        ),
    };
    if let Some(value) = labels.get(INJECTION_LABEL) {
        return (value == "enabled").then(|| {
            through_tag(
                format!("{INJECTION_LABEL}=enabled"),
                DEFAULT_REVISION,
                DEFAULT_REVISION,
            )
        });
    }
    let value = labels.get(REVISION_LABEL).filter(|v| !v.is_empty())?;
    Some(through_tag(
        format!("{REVISION_LABEL}={value}"),
        value,
        value,
    ))
}

fn push_unique(list: &mut Vec<String>, value: &str) {
    if !list.iter().any(|v| v == value) {
        list.push(value.to_string());
    }
}

/// The revisions and tags that `objects` show (see the module docs). `objects` may hold
/// anything; what no rule reads is ignored.
pub fn inventory(objects: &[LiveObject]) -> Inventory {
    let mut revisions: BTreeMap<String, Revision> = BTreeMap::new();
    let mut tags: BTreeMap<String, Tag> = BTreeMap::new();
    let entry = |revisions: &mut BTreeMap<String, Revision>, name: &str| {
        revisions
            .entry(name.to_string())
            .or_insert_with(|| Revision::new(name));
    };

    for object in objects {
        if let Some(tag) = object.label(TAG_LABEL).filter(|t| !t.is_empty()) {
            let revision = revision_of(object);
            let t = tags.entry(tag.to_string()).or_insert_with(|| Tag {
                tag: tag.to_string(),
                revision: revision.clone(),
                objects: Vec::new(),
            });
            // Objects of one tag that disagree on the revision: the webhook decides
            // injection, so it wins over the Service.
            if object.kind == "MutatingWebhookConfiguration" {
                t.revision = revision;
            }
            push_unique(&mut t.objects, &object.display());
            continue;
        }
        // What is installed is told by the control plane's own objects: not by pods (istiod's
        // pods carry the component label too; a pod still terminating after an uninstall made
        // the revision look installed), nor by objects already being deleted.
        if object.kind == "Pod" || object.terminating {
            continue;
        }
        let component = object.label(COMPONENT_LABEL).filter(|c| !c.is_empty());
        let istiod = object.kind == "Deployment" && object.label("app") == Some("istiod");
        let injector = object.kind == "MutatingWebhookConfiguration"
            && object.label("app") == Some("sidecar-injector");
        if component.is_none() && !istiod && !injector {
            continue;
        }
        let name = revision_of(object);
        entry(&mut revisions, &name);
        let r = revisions.get_mut(&name).expect("inserted above");
        r.installed = true;
        let version = match component {
            Some(_) => object.label(VERSION_LABEL),
            None => object
                .label(VERSION_LABEL)
                .or_else(|| object.label(HELM_VERSION_LABEL)),
        };
        if let Some(v) = version.filter(|v| !v.is_empty()) {
            push_unique(&mut r.versions, v);
        }
        match component {
            Some(c) => push_unique(&mut r.components, c),
            None if istiod => push_unique(&mut r.components, "Pilot"),
            None => {}
        }
        if istiod && let Some(ns) = &object.namespace {
            push_unique(&mut r.istiod_namespaces, ns);
        }
        if injector {
            push_unique(&mut r.injectors, &object.name);
        }
    }

    let tag_targets: BTreeMap<String, String> = tags
        .values()
        .map(|t| (t.tag.clone(), t.revision.clone()))
        .collect();
    for t in tags.values() {
        entry(&mut revisions, &t.revision);
        let r = revisions.get_mut(&t.revision).expect("inserted above");
        push_unique(&mut r.tags, &t.tag);
    }
    for object in objects {
        match object.kind.as_str() {
            "Namespace" if !object.terminating => {
                if let Some((rev, selection)) =
                    namespace_revision(&object.name, &object.labels, &tag_targets)
                {
                    entry(&mut revisions, &rev);
                    let r = revisions.get_mut(&rev).expect("inserted above");
                    r.namespaces.push(selection);
                }
            }
            "Pod" => {
                if let Some(rev) = pod_revision(object) {
                    entry(&mut revisions, &rev);
                    let r = revisions.get_mut(&rev).expect("inserted above");
                    r.pods.push(PodRef {
                        namespace: object.namespace.clone().unwrap_or_default(),
                        name: object.name.clone(),
                    });
                }
            }
            _ => {}
        }
    }

    let revisions = revisions
        .into_values()
        .map(|mut r| {
            r.versions.sort();
            r.istiod_namespaces.sort();
            r.components.sort_by_key(|c| component_rank(c));
            r.injectors.sort();
            r.tags.sort();
            r.namespaces.sort();
            r.namespaces.dedup();
            r.pods.sort();
            r.pods.dedup();
            r
        })
        .collect();
    let tags = tags
        .into_values()
        .map(|mut t| {
            t.objects.sort();
            t
        })
        .collect();
    Inventory { revisions, tags }
}

/// What keeps revision `name` from being uninstalled when the uninstall removes its istiod
/// from `removed_from` (namespaces) and deletes the objects `removed` (as [`LiveObject`]s
/// display them: `Kind ns/name`): [`uses`], unless an istiod of that revision stays in some
/// other namespace (a second control plane of the same revision), which goes on serving them.
/// A tag all of whose objects the uninstall deletes (the default tag an install made for
/// itself) goes with it and keeps nothing when no other revision has an istiod; while another
/// one does, it holds the revision back: deleting it would leave that control plane without
/// the default tag (no injection for `istio-injection=enabled` namespaces, no default
/// validator) when moving it there (`tag set T --revision OTHER --overwrite`) keeps both, so
/// its line says so. The namespaces using a tag still count either way.
pub fn uses_left_without_control_plane(
    inventory: &Inventory,
    name: &str,
    removed_from: &[String],
    removed: &[String],
    max_pods: usize,
) -> Vec<String> {
    let Some(r) = inventory.revision(name) else {
        return Vec::new();
    };
    if r.istiod_namespaces
        .iter()
        .any(|ns| !removed_from.contains(ns))
    {
        return Vec::new();
    }
    let goes_too = |tag: &str| {
        inventory
            .tag(tag)
            .is_some_and(|t| !t.objects.is_empty() && t.objects.iter().all(|o| removed.contains(o)))
    };
    // Another revision an istiod still serves, which such a tag can move to.
    let stays = inventory
        .revisions
        .iter()
        .find(|o| o.revision != name && !o.istiod_namespaces.is_empty())
        .map(|o| o.revision.as_str());
    let mut kept = inventory.clone();
    let mut moving = Vec::new();
    if let Some(r) = kept.revisions.iter_mut().find(|r| r.revision == name) {
        r.tags.retain(|t| {
            if !goes_too(t) {
                return true;
            }
            if let Some(other) = stays {
                let objects = inventory
                    .tag(t)
                    .map(|t| t.objects.join(", "))
                    .unwrap_or_default();
                moving.push(format!(
                    "tag {t} points at it and would be deleted with it ({objects}) while revision {other} stays; move it first: bosun tag set {t} --revision {other} --overwrite"
                ));
            }
            false
        });
    }
    moving.extend(uses(&kept, name, max_pods));
    moving
}

/// What keeps revision `name` from being uninstalled: the tags pointing at it, the namespaces
/// selecting it and the pods running its proxy, one line each (at most `max_pods` pods named;
/// the rest counted). Empty when nothing uses it.
pub fn uses(inventory: &Inventory, name: &str, max_pods: usize) -> Vec<String> {
    let Some(r) = inventory.revision(name) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for tag in &r.tags {
        let objects = inventory
            .tag(tag)
            .map(|t| t.objects.join(", "))
            .unwrap_or_default();
        out.push(format!("tag {tag} points at it ({objects})"));
    }
    for ns in &r.namespaces {
        let through = ns
            .tag
            .as_deref()
            .map(|t| format!(", through tag {t}"))
            .unwrap_or_default();
        out.push(format!(
            "namespace {} selects it ({}{through})",
            ns.namespace, ns.label
        ));
    }
    for pod in r.pods.iter().take(max_pods) {
        out.push(format!("pod {}/{} runs its proxy", pod.namespace, pod.name));
    }
    if r.pods.len() > max_pods {
        out.push(format!(
            "{} more pods run its proxy",
            r.pods.len() - max_pods
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every case in `tests/cases/assess/revisions`: `objects` (as [`LiveObject`]s) and the
    /// expected `revisions` and `tags` exactly as `revision list -o json` prints them, and
    /// optionally `uses: {REVISION: [lines]}` for what `uninstall --revision` would list.
    #[test]
    fn revision_cases() {
        let mut failures = Vec::new();
        for (name, case) in crate::cases::yaml_cases("revisions", 8) {
            let objects: Vec<LiveObject> = serde_json::from_value(case["objects"].clone())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let got = inventory(&objects);
            let got_json = serde_json::to_value(&got).unwrap();
            for key in ["revisions", "tags"] {
                let want = case.get(key).cloned().unwrap_or(serde_json::json!([]));
                if got_json[key] != want {
                    failures.push(format!(
                        "{name}: {key}\n got: {}\nwant: {}",
                        serde_json::to_string_pretty(&got_json[key]).unwrap(),
                        serde_json::to_string_pretty(&want).unwrap()
                    ));
                }
            }
            if let Some(want_uses) = case.get("uses").and_then(|u| u.as_object()) {
                for (rev, want) in want_uses {
                    let got_uses = serde_json::to_value(uses(&got, rev, 2)).unwrap();
                    if &got_uses != want {
                        failures.push(format!(
                            "{name}: uses of {rev}: got {got_uses}, want {want}"
                        ));
                    }
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    }

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn namespace_rules() {
        let tags = labels(&[("default", "canary"), ("prod", "stable")]);
        let rev = |l: &[(&str, &str)]| namespace_revision("ns", &labels(l), &tags).map(|(r, _)| r);
        assert_eq!(
            rev(&[("istio-injection", "enabled")]).as_deref(),
            Some("canary")
        );
        assert_eq!(rev(&[("istio-injection", "disabled")]), None);
        assert_eq!(
            rev(&[("istio-injection", "disabled"), ("istio.io/rev", "prod")]),
            None
        );
        assert_eq!(
            rev(&[("istio-injection", "enabled"), ("istio.io/rev", "prod")]).as_deref(),
            Some("canary")
        );
        assert_eq!(rev(&[("istio.io/rev", "prod")]).as_deref(), Some("stable"));
        assert_eq!(rev(&[("istio.io/rev", "x")]).as_deref(), Some("x"));
        assert_eq!(rev(&[("istio.io/rev", "")]), None);
        assert_eq!(rev(&[]), None);
        let no_tags = BTreeMap::new();
        assert_eq!(
            namespace_revision("ns", &labels(&[("istio-injection", "enabled")]), &no_tags)
                .map(|(r, s)| (r, s.tag)),
            Some(("default".to_string(), None))
        );
    }

    #[test]
    fn uses_count_only_when_the_last_istiod_goes() {
        let istiod = |ns: &str| LiveObject {
            kind: "Deployment".into(),
            namespace: Some(ns.into()),
            name: "istiod".into(),
            labels: labels(&[("app", "istiod")]),
            ..LiveObject::default()
        };
        let namespace = LiveObject {
            kind: "Namespace".into(),
            name: "shop".into(),
            labels: labels(&[("istio-injection", "enabled")]),
            ..LiveObject::default()
        };
        let two = inventory(&[istiod("a"), istiod("b"), namespace.clone()]);
        let one = inventory(&[istiod("a"), namespace]);
        let a = ["a".to_string()];
        assert_eq!(
            uses_left_without_control_plane(&two, "default", &a, &[], 5),
            Vec::<String>::new()
        );
        assert_eq!(
            uses_left_without_control_plane(&one, "default", &a, &[], 5),
            ["namespace shop selects it (istio-injection=enabled)"]
        );
        assert_eq!(
            uses_left_without_control_plane(&one, "default", &["b".to_string()], &[], 5),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_tag_the_uninstall_deletes_keeps_nothing() {
        let tag_webhook = LiveObject {
            kind: "MutatingWebhookConfiguration".into(),
            name: "istio-revision-tag-default".into(),
            labels: labels(&[
                ("istio.io/rev", "old"),
                ("istio.io/tag", "default"),
                ("app", "sidecar-injector"),
            ]),
            ..LiveObject::default()
        };
        let istiod = LiveObject {
            kind: "Deployment".into(),
            namespace: Some("istio-system".into()),
            name: "istiod-old".into(),
            labels: labels(&[("app", "istiod"), ("istio.io/rev", "old")]),
            ..LiveObject::default()
        };
        let found = inventory(&[istiod.clone(), tag_webhook.clone()]);
        let from = ["istio-system".to_string()];
        assert_eq!(
            uses_left_without_control_plane(&found, "old", &from, &[], 5),
            ["tag default points at it (MutatingWebhookConfiguration istio-revision-tag-default)"]
        );
        let removed = ["MutatingWebhookConfiguration istio-revision-tag-default".to_string()];
        assert_eq!(
            uses_left_without_control_plane(&found, "old", &from, &removed, 5),
            Vec::<String>::new()
        );
        // With another revision's istiod beside it, the tag it would delete holds it back.
        let new_istiod = LiveObject {
            kind: "Deployment".into(),
            namespace: Some("istio-system".into()),
            name: "istiod-new".into(),
            labels: labels(&[("app", "istiod"), ("istio.io/rev", "new")]),
            ..LiveObject::default()
        };
        let two = inventory(&[istiod, new_istiod, tag_webhook]);
        assert_eq!(
            uses_left_without_control_plane(&two, "old", &from, &removed, 5),
            [
                "tag default points at it and would be deleted with it (MutatingWebhookConfiguration istio-revision-tag-default) while revision new stays; move it first: bosun tag set default --revision new --overwrite"
            ]
        );
    }

    #[test]
    fn pod_rules() {
        let pod = |annotations: &[(&str, &str)]| LiveObject {
            kind: "Pod".into(),
            namespace: Some("ns".into()),
            name: "p".into(),
            labels: labels(&[("istio.io/rev", "label-only")]),
            annotations: labels(annotations),
            terminating: false,
        };
        assert_eq!(pod_revision(&pod(&[])), None);
        assert_eq!(
            pod_revision(&pod(&[("istio.io/rev", "canary")])).as_deref(),
            Some("canary")
        );
        assert_eq!(
            pod_revision(&pod(&[(
                "sidecar.istio.io/status",
                r#"{"revision":"old"}"#
            )]))
            .as_deref(),
            Some("old")
        );
        assert_eq!(
            pod_revision(&pod(&[("sidecar.istio.io/status", r#"{"revision":""}"#)])).as_deref(),
            Some("default")
        );
        assert_eq!(
            pod_revision(&pod(&[("sidecar.istio.io/status", "not json")])),
            None
        );
        // The installer's gateway: its template sets istio.io/rev; nothing injected it.
        let gateway = LiveObject {
            labels: labels(&[
                ("istio.io/rev", "old"),
                ("operator.istio.io/component", "IngressGateways"),
            ]),
            ..pod(&[
                ("istio.io/rev", "old"),
                ("sidecar.istio.io/inject", "false"),
            ])
        };
        assert_eq!(pod_revision(&gateway), None);
    }
}
