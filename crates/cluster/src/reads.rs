//! Lists read once per command and shared by every check that needs them.
//!
//! An install reads the same few kinds from several checks: the default revision tag's
//! decision, the overlapping-injector refusal, the revision inventory, the CRD downgrade check,
//! the snapshot of what the installation owns, the tag's own apply. Each used to list them with
//! its own label selector (MutatingWebhookConfigurations seven times in one install). For the
//! kinds in [`SHARED_KINDS`] (few objects, read by several checks), a client lists each kind
//! (in a namespace, or cluster-wide) once, unselected, and answers every label selector from
//! that list. The list stays good while every write of this client to its kind is one the list
//! took in: the request layer counts each successful write (any request but a read, other than
//! to a Lease, which only the install lock writes), and the server-side apply hands the object
//! the server answered to [`Client::took_in`], which puts it in the lists of its kind and counts
//! it there. So a read after the install's own apply sees what the apply did without listing
//! again (before, the webhook configurations, CRDs and Services were listed once more after the
//! apply); any other write (a delete, a tag's replace, a dry run) ends the list. Writes by others
//! in between are what a read a moment earlier would also have missed; so that "a moment" stays
//! one, a list is used for [`MAX_AGE`] at most (a confirmation prompt or a readiness wait in
//! between makes the next check read again). Taking the install lock ends every list too: a
//! command that waited for another's lock must not trust what it read before that command
//! finished (`install_lock`). So `install` takes the lock before its first check: the lists
//! its checks read then serve it through its writes, each kind read once.
//!
//! The other kinds (the pruned kinds: Deployments, ConfigMaps, RBAC…, too many in a cluster to
//! list whole) are listed with their selector, metadata only, and each such list is kept under
//! the same rules to answer a later list that narrows it (every requirement of the first, and
//! more): the revision checks list each pruned kind by `operator.istio.io/component`, and the
//! install's snapshot of its own objects (that label and its owner labels) is answered from
//! those lists instead of listing every kind again.
//! A selector this module cannot evaluate (set-based: `key in (a,b)`) is sent to the server.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kube::api::{Api, DynamicObject, ListParams};
use kube::core::{ApiResource, PartialObjectMeta};
use serde::Deserialize;
use serde_json::Value;

use crate::Client;

/// How long a shared list answers for the cluster.
pub(crate) const MAX_AGE: Duration = Duration::from_secs(10);

/// The kinds whose lists are shared: `(group, kind)`.
pub(crate) const SHARED_KINDS: &[(&str, &str)] = &[
    (
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
    ),
    ("apiextensions.k8s.io", "CustomResourceDefinition"),
    ("", "Service"),
];

/// The writes a client has made, counted per resource (`group/plural`); shared by its request
/// stack and its cached lists. Deleting a Namespace counts for every resource (it deletes what
/// is in it); creating or changing one changes no other resource's objects.
#[derive(Clone, Default)]
pub(crate) struct Writes(Arc<Mutex<HashMap<String, u64>>>);

/// The count key of Namespace deletes, which every resource's count includes.
const NAMESPACE_DELETES: &str = "(namespace deletes)";

impl Writes {
    /// Counts a request that changed something (its answer was a success), Leases aside.
    pub(crate) fn note(&self, method: &http::Method, path: &str, status: http::StatusCode) {
        if is_write(method, path) && status.is_success() {
            let resource = resource_of(path);
            let mut counts = self.0.lock().expect("write counts");
            if resource == "/namespaces" && *method == http::Method::DELETE {
                *counts.entry(NAMESPACE_DELETES.to_string()).or_default() += 1;
            }
            *counts.entry(resource).or_default() += 1;
        }
    }

    /// The writes so far to resource `group/plural` itself.
    pub(crate) fn to(&self, resource: &str) -> u64 {
        let counts = self.0.lock().expect("write counts");
        counts.get(resource).copied().unwrap_or(0)
    }

    /// The writes so far that may have changed resource `group/plural`.
    fn count(&self, resource: &str) -> u64 {
        let counts = self.0.lock().expect("write counts");
        counts.get(resource).copied().unwrap_or(0)
            + counts.get(NAMESPACE_DELETES).copied().unwrap_or(0)
    }
}

/// Whether a request may change what a shared list holds: anything but a read, except writes
/// to Leases (the install lock's acquire, renewals and release).
pub(crate) fn is_write(method: &http::Method, path: &str) -> bool {
    let read = matches!(
        *method,
        http::Method::GET | http::Method::HEAD | http::Method::OPTIONS
    );
    !read && !path.starts_with("/apis/coordination.k8s.io/")
}

/// The resource (`group/plural`, `/plural` for the core group) a request's path is about:
/// `/api/v1/namespaces/NS/services/NAME` → `/services`,
/// `/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/NAME` →
/// `admissionregistration.k8s.io/mutatingwebhookconfigurations`.
pub(crate) fn resource_of(path: &str) -> String {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let (group, rest) = match segments.as_slice() {
        ["api", _version, rest @ ..] => ("", rest),
        ["apis", group, _version, rest @ ..] => (*group, rest),
        _ => ("?", &segments[..0]),
    };
    let plural = match rest {
        ["namespaces", _namespace, plural, ..] => plural,
        [plural, ..] => plural,
        [] => "",
    };
    format!("{group}/{plural}")
}

/// The resource key of `ar`, as [`resource_of`] gives it for its requests.
fn resource_key(ar: &ApiResource) -> String {
    format!("{}/{}", ar.group, ar.plural)
}

/// A client's shared lists: by kind and namespace, the write count they were read at.
#[derive(Clone, Default)]
pub(crate) struct ReadCache {
    pub(crate) writes: Writes,
    /// Off in a process that lives on (the operator): it would keep the last lists, whole
    /// objects, in memory between reconciles, for reads that are seconds apart at most in a
    /// command.
    off: bool,
    lists: Arc<tokio::sync::Mutex<HashMap<String, Shared>>>,
    /// Metadata lists of the other kinds (all namespaces), by resource (`group/plural`), each
    /// with its selector: a later list that narrows one of them is answered from it.
    narrowed: Arc<Mutex<HashMap<String, Vec<Narrowed>>>>,
}

/// A metadata list read with a label selector, kept to answer narrower selectors.
struct Narrowed {
    requirements: Vec<Requirement>,
    writes: u64,
    read_at: Instant,
    items: Arc<Vec<PartialObjectMeta<DynamicObject>>>,
}

/// One shared list: the writes to its kind before it was read, when, and the objects.
/// Each object is behind an `Arc`: every check that reads the list gets the objects it
/// selects without copying them (the CRDs' schemas are most of an install's bytes read; a copy
/// per check, and its drop, were about a fifth of a second install's client CPU).
struct Shared {
    writes: u64,
    read_at: Instant,
    objects: Vec<Arc<Value>>,
}

/// One requirement of an equality-based label selector.
#[derive(Debug, PartialEq, Eq)]
enum Requirement {
    Equals(String, String),
    NotEquals(String, String),
    Exists(String),
    Absent(String),
}

/// The requirements of `selector`, `None` for set-based ones (`in`, `notin`: sent to the
/// server as they are).
fn parse_selector(selector: &str) -> Option<Vec<Requirement>> {
    if selector.contains('(') {
        return None;
    }
    let mut requirements = Vec::new();
    for term in selector.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        let requirement = if let Some((k, v)) = term.split_once("!=") {
            Requirement::NotEquals(k.trim().into(), v.trim().into())
        } else if let Some((k, v)) = term.split_once("==").or_else(|| term.split_once('=')) {
            Requirement::Equals(k.trim().into(), v.trim().into())
        } else if let Some(k) = term.strip_prefix('!') {
            Requirement::Absent(k.trim().into())
        } else if term.contains(' ') {
            return None;
        } else {
            Requirement::Exists(term.into())
        };
        requirements.push(requirement);
    }
    Some(requirements)
}

fn matches(requirements: &[Requirement], labels: &BTreeMap<&str, &str>) -> bool {
    requirements.iter().all(|r| match r {
        Requirement::Equals(k, v) => labels.get(k.as_str()) == Some(&v.as_str()),
        Requirement::NotEquals(k, v) => labels.get(k.as_str()) != Some(&v.as_str()),
        Requirement::Exists(k) => labels.contains_key(k.as_str()),
        Requirement::Absent(k) => !labels.contains_key(k.as_str()),
    })
}

fn labels_of(object: &Value) -> BTreeMap<&str, &str> {
    object
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.as_str(), v.as_str()?)))
                .collect()
        })
        .unwrap_or_default()
}

/// Whether `ar`'s lists are shared, in `namespace` (`None`: cluster-wide). Services are
/// shared within a namespace only: a cluster's Services are too many to read whole for a
/// label-selected few.
pub(crate) fn is_shared(ar: &ApiResource, namespace: Option<&str>) -> bool {
    is_shared_kind(ar) && (namespace.is_some() || ar.kind != "Service")
}

/// Whether `ar` is one of [`SHARED_KINDS`].
fn is_shared_kind(ar: &ApiResource) -> bool {
    SHARED_KINDS
        .iter()
        .any(|(group, kind)| ar.group == *group && ar.kind == *kind)
}

impl Client {
    /// This client without shared lists (`crate::reads`): every check lists what it reads,
    /// and nothing is kept between reads. For a process that lives on, like the operator.
    pub fn without_shared_lists(mut self) -> Client {
        self.reads.off = true;
        self
    }

    /// Drops every shared list: the next read of each kind goes to the server. Called once
    /// this client holds the install lock, since other clients' writes do not expire them.
    pub(crate) async fn forget_shared_lists(&self) {
        self.reads.lists.lock().await.clear();
        self.reads.narrowed.lock().expect("narrowed lists").clear();
    }

    /// Whether this client keeps shared lists of kind `ar`, which take in its applies
    /// ([`Client::took_in`]).
    pub(crate) fn keeps_lists_of(&self, ar: &ApiResource) -> bool {
        !self.reads.off && is_shared_kind(ar)
    }

    /// Whether this client answers reads of `ar` in `namespace` from one shared list.
    pub(crate) fn shares(&self, ar: &ApiResource, namespace: Option<&str>) -> bool {
        !self.reads.off && is_shared(ar, namespace)
    }

    /// The objects of kind `ar` (in `namespace`, or in every namespace) that `selector`
    /// matches, whole, as JSON with `apiVersion` and `kind` set. For a kind of
    /// [`SHARED_KINDS`] and an equality-based selector, from the client's one list of the kind
    /// since its last write; otherwise listed now.
    pub(crate) async fn list_shared(
        &self,
        ar: &ApiResource,
        namespace: Option<&str>,
        selector: &str,
    ) -> Result<Vec<Arc<Value>>, kube::Error> {
        let api: Api<DynamicObject> = match namespace {
            Some(ns) => Api::namespaced_with(self.kube.clone(), ns, ar),
            None => Api::all_with(self.kube.clone(), ar),
        };
        let requirements = parse_selector(selector).filter(|_| self.shares(ar, namespace));
        let Some(requirements) = requirements else {
            return Ok(list_all(&api, ar, selector)
                .await?
                .into_iter()
                .map(Arc::new)
                .collect());
        };
        let key = list_key(ar, namespace);
        let mut lists = self.reads.lists.lock().await;
        let writes = self.reads.writes.count(&resource_key(ar));
        let fresh = |s: &Shared| s.writes == writes && s.read_at.elapsed() < MAX_AGE;
        if !lists.get(&key).is_some_and(fresh) {
            let read_at = Instant::now();
            let objects = list_all(&api, ar, "").await?;
            let shared = Shared {
                writes,
                read_at,
                objects: objects.into_iter().map(Arc::new).collect(),
            };
            lists.insert(key.clone(), shared);
        }
        Ok(lists[&key]
            .objects
            .iter()
            .filter(|o| matches(&requirements, &labels_of(o)))
            .cloned()
            .collect())
    }

    /// This client's own server-side apply of an object of kind `ar`, as the server answered
    /// it (`object`, JSON with `apiVersion` and `kind`, [`answer_json`]): each shared list of
    /// the kind in its namespace (and cluster-wide) takes it in, and every list of the kind
    /// counts the write as seen, so the lists stay good across the apply. Call it only for a
    /// write that changed the cluster as `object` says (no dry run).
    pub(crate) async fn took_in(&self, ar: &ApiResource, object: &Arc<Value>) {
        if !self.keeps_lists_of(ar) || !object.is_object() {
            return;
        }
        let field = |pointer: &str| {
            object
                .pointer(pointer)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let (namespace, name) = (field("/metadata/namespace"), field("/metadata/name"));
        let same = |o: &Value| {
            o.pointer("/metadata/name").and_then(Value::as_str) == Some(name.as_str())
                && o.pointer("/metadata/namespace")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    == namespace
        };
        let of_kind = format!("{}/{}/", ar.api_version, ar.plural);
        let mut lists = self.reads.lists.lock().await;
        for (key, shared) in lists.iter_mut() {
            let Some(list_namespace) = key.strip_prefix(&of_kind) else {
                continue;
            };
            // A write the list counted without this call (a list read after the write) is
            // counted twice: the next read lists again, which is only a read more.
            shared.writes += 1;
            if list_namespace.is_empty() || list_namespace == namespace {
                let objects = &mut shared.objects;
                match objects.iter_mut().find(|o| same(o)) {
                    Some(old) => *old = object.clone(),
                    None => objects.push(object.clone()),
                }
            }
        }
    }
}

/// An object of kind `ar` the server answered, as JSON with `apiVersion` and `kind` (as a
/// shared list holds its objects).
pub(crate) fn answer_json(ar: &ApiResource, object: &DynamicObject) -> Value {
    let mut json = serde_json::to_value(object).unwrap_or(Value::Null);
    if let Some(map) = json.as_object_mut() {
        map.insert("apiVersion".into(), ar.api_version.clone().into());
        map.insert("kind".into(), ar.kind.clone().into());
    }
    json
}

/// The key of the shared list of `ar` in `namespace` (`None`: cluster-wide).
fn list_key(ar: &ApiResource, namespace: Option<&str>) -> String {
    format!(
        "{}/{}/{}",
        ar.api_version,
        ar.plural,
        namespace.unwrap_or("")
    )
}

impl Client {
    /// The metadata of every object of kind `ar` (all namespaces) that `selector` matches: from
    /// the shared list for a kind of [`SHARED_KINDS`]; else from an earlier metadata list of
    /// the kind whose equality-based selector this one narrows (under the shared lists' rules:
    /// no write of this client to the kind since, [`MAX_AGE`], dropped with the install
    /// lock's taking); else one metadata list (paged), kept for the next.
    pub(crate) async fn list_metadata_shared(
        &self,
        ar: &ApiResource,
        selector: &str,
    ) -> Result<Vec<PartialObjectMeta<DynamicObject>>, kube::Error> {
        if self.shares(ar, None) && parse_selector(selector).is_some() {
            return self
                .list_shared(ar, None, selector)
                .await?
                .iter()
                .map(|o| {
                    PartialObjectMeta::deserialize(o.as_ref()).map_err(kube::Error::SerdeError)
                })
                .collect();
        }
        let requirements = parse_selector(selector).filter(|_| !self.reads.off);
        let Some(requirements) = requirements else {
            return list_metadata(&self.kube, ar, selector).await;
        };
        // A list of the kind whose selector this one narrows (every requirement of it, and
        // more) answers it: the revision checks' `operator.istio.io/component` lists serve the
        // install's snapshot of its own objects (that label and the owner labels).
        let key = resource_key(ar);
        let writes = self.reads.writes.count(&key);
        let found = {
            let narrowed = self.reads.narrowed.lock().expect("narrowed lists");
            narrowed
                .get(&key)
                .into_iter()
                .flatten()
                .find(|l| {
                    l.writes == writes
                        && l.read_at.elapsed() < MAX_AGE
                        && l.requirements.iter().all(|r| requirements.contains(r))
                })
                .map(|l| l.items.clone())
        };
        let items = match found {
            Some(items) => items,
            None => {
                let read_at = Instant::now();
                let items = Arc::new(list_metadata(&self.kube, ar, selector).await?);
                let mut narrowed = self.reads.narrowed.lock().expect("narrowed lists");
                let lists = narrowed.entry(key).or_default();
                lists.retain(|l| l.writes == writes && l.read_at.elapsed() < MAX_AGE);
                lists.push(Narrowed {
                    requirements: parse_selector(selector).unwrap_or_default(),
                    writes,
                    read_at,
                    items: items.clone(),
                });
                items
            }
        };
        Ok(items
            .iter()
            .filter(|item| {
                let labels = item
                    .metadata
                    .labels
                    .iter()
                    .flatten()
                    .map(|(k, v)| (k.as_str(), v.as_str()))
                    .collect();
                matches(&requirements, &labels)
            })
            .cloned()
            .collect())
    }
}

/// One metadata list of kind `ar` (all namespaces) with `selector`, from the server.
async fn list_metadata(
    kube: &kube::Client,
    ar: &ApiResource,
    selector: &str,
) -> Result<Vec<PartialObjectMeta<DynamicObject>>, kube::Error> {
    let api: Api<DynamicObject> = Api::all_with(kube.clone(), ar);
    let params = match selector {
        "" => ListParams::default(),
        _ => ListParams::default().labels(selector),
    };
    crate::client::list_metadata_paged(&api, params).await
}

/// Every object `api` lists with `selector`, a page of 500 at a time (see
/// [`crate::client::list_metadata_paged`] on why pages).
async fn list_all(
    api: &Api<DynamicObject>,
    ar: &ApiResource,
    selector: &str,
) -> Result<Vec<Value>, kube::Error> {
    let mut params = ListParams::default().limit(500);
    if !selector.is_empty() {
        params = params.labels(selector);
    }
    let mut items = Vec::new();
    loop {
        let page = api.list(&params).await?;
        for item in page.items {
            let mut json = serde_json::to_value(&item).map_err(kube::Error::SerdeError)?;
            if let Some(map) = json.as_object_mut() {
                // List items carry no kind.
                map.insert("apiVersion".into(), ar.api_version.clone().into());
                map.insert("kind".into(), ar.kind.clone().into());
            }
            items.push(json);
        }
        match page.metadata.continue_.filter(|c| !c.is_empty()) {
            Some(token) => params = params.continue_token(&token),
            None => return Ok(items),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn selectors_as_the_api_server_reads_them() {
        let object = json!({"metadata": {"labels": {"istio.io/rev": "default", "app": "istiod"}}});
        let labels = labels_of(&object);
        // (selector, whether it matches)
        let cases = [
            ("", true),
            ("istio.io/rev=default", true),
            ("istio.io/rev==default", true),
            ("istio.io/rev=canary", false),
            ("istio.io/rev!=canary", true),
            ("istio.io/rev=default,!istio.io/tag", true),
            ("istio.io/rev=default,!istio.io/tag,app=istiod", true),
            ("istio.io/tag", false),
            ("app, istio.io/rev", true),
            ("!app", false),
            ("missing!=x", true),
        ];
        for (selector, expected) in cases {
            let requirements = parse_selector(selector).expect(selector);
            assert_eq!(matches(&requirements, &labels), expected, "{selector}");
        }
        assert_eq!(parse_selector("app in (a,b)"), None);
        assert_eq!(parse_selector("app notin (a)"), None);
    }

    #[test]
    fn reads_do_not_count_as_writes_and_the_lock_does_not_either() {
        use http::Method;
        assert!(!is_write(&Method::GET, "/api/v1/services"));
        assert!(is_write(&Method::PATCH, "/api/v1/namespaces/a/services/b"));
        assert!(is_write(
            &Method::DELETE,
            "/apis/apps/v1/namespaces/a/deployments/b"
        ));
        assert!(!is_write(
            &Method::PUT,
            "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/l"
        ));
        let writes = Writes::default();
        let services = "/services";
        let injectors = "admissionregistration.k8s.io/mutatingwebhookconfigurations";
        let ok = http::StatusCode::OK;
        writes.note(
            &Method::POST,
            "/api/v1/namespaces",
            http::StatusCode::CONFLICT,
        );
        assert_eq!(writes.count(services), 0, "a refused write changes nothing");
        let injector = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/a";
        writes.note(&Method::PATCH, injector, ok);
        assert_eq!((writes.count(injectors), writes.count(services)), (1, 0));
        writes.note(&Method::PATCH, "/api/v1/namespaces/ns/services/s", ok);
        assert_eq!((writes.count(injectors), writes.count(services)), (1, 1));
        writes.note(
            &Method::POST,
            "/api/v1/namespaces",
            http::StatusCode::CREATED,
        );
        assert_eq!(
            (writes.count(injectors), writes.count(services)),
            (1, 1),
            "a new namespace holds nothing of theirs"
        );
        writes.note(&Method::DELETE, "/api/v1/namespaces/ns", ok);
        assert_eq!((writes.count(injectors), writes.count(services)), (2, 2));
    }

    #[test]
    fn resources_of_request_paths() {
        let cases = [
            ("/api/v1/namespaces/ns/services/istiod", "/services"),
            ("/api/v1/namespaces/ns/services", "/services"),
            ("/api/v1/namespaces", "/namespaces"),
            ("/api/v1/namespaces/istio-system", "/namespaces"),
            (
                "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/a.b",
                "apiextensions.k8s.io/customresourcedefinitions",
            ),
            (
                "/apis/apps/v1/namespaces/ns/deployments/d/status",
                "apps/deployments",
            ),
        ];
        for (path, resource) in cases {
            assert_eq!(resource_of(path), resource, "{path}");
        }
    }
}
