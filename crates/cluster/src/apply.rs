//! Server-side apply of arbitrary objects.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use futures::{StreamExt, TryStreamExt};
use kube::api::{Api, DynamicObject, ListParams, Patch, PatchParams};
use kube::core::{ApiResource, GroupVersionKind, Status};
use kube::discovery::Scope;
use serde_json::Value;
use vocab::ObjectRef;

use crate::snapshot::{Seen, Snapshot};
use crate::{Client, Error, FieldConflict};

/// What an apply did to one object, judged from the object before and as the apply answered it
/// (`crate::outcome`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The object did not exist.
    Created,
    /// It existed and the apply changed it.
    Configured,
    /// It existed and the apply left it as it was (no write happened).
    Unchanged,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Outcome::Created => "created",
            Outcome::Configured => "configured",
            Outcome::Unchanged => "unchanged",
        })
    }
}

/// One applied object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    pub object: ObjectRef,
    pub outcome: Outcome,
    /// The object's `resourceVersion` after the apply (empty for a target namespace that
    /// already existed: the install creates those with a plain create and does not read them).
    pub resource_version: String,
}

/// What [`Client::apply`] did, one entry per object in input order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApplyReport {
    pub objects: Vec<Applied>,
}

impl ApplyReport {
    /// How many objects had this outcome.
    pub fn count(&self, outcome: Outcome) -> usize {
        self.objects.iter().filter(|a| a.outcome == outcome).count()
    }

    /// Whether any object was created or changed.
    pub fn changed(&self) -> bool {
        self.objects.iter().any(|a| a.outcome != Outcome::Unchanged)
    }
}

/// What was known of an object before applying it.
enum Before {
    /// It did not exist.
    Absent,
    /// It existed, as read then.
    Existed(Seen),
    /// It was not among the installation's objects (a [`Snapshot`]): absent, or someone
    /// else's.
    NotOwned,
}

/// Whether the apply that answered `applied` created it: `field_manager`'s apply entry was
/// written in the same second as the object (both are set by the request that creates it; an
/// apply to an existing object stamps its entry later than the object's creation). An object
/// someone else created within the same second before the apply counts as created.
fn created_by(applied: &DynamicObject, field_manager: &str) -> bool {
    let Some(created) = &applied.metadata.creation_timestamp else {
        return false;
    };
    applied
        .metadata
        .managed_fields
        .iter()
        .flatten()
        .filter(|f| {
            f.manager.as_deref() == Some(field_manager) && f.operation.as_deref() == Some("Apply")
        })
        .any(|f| f.time.as_ref() == Some(created))
}

/// An object as a metadata read gives it.
pub(crate) fn metadata_seen(metadata: &kube::api::ObjectMeta) -> Seen {
    Seen {
        object: Arc::new(serde_json::json!({ "metadata": metadata })),
        whole: false,
    }
}

/// A kind (group, version, plural) in a namespace (`None`: cluster-scoped).
type KindIn = (String, String, String, Option<String>);

/// How many server-side applies one [`Client::apply`] has in flight at once.
const PATCHES_IN_FLIGHT: usize = 8;

pub(crate) struct Parsed {
    pub(crate) gvk: GroupVersionKind,
    pub(crate) object: ObjectRef,
}

/// Where one object goes: its API (namespaced or not), its reference with the namespace
/// settled, and the body to send (a cluster-scoped object's namespace dropped).
pub(crate) struct Target {
    pub(crate) api: Api<DynamicObject>,
    pub(crate) object: ObjectRef,
    pub(crate) body: Value,
}

pub(crate) fn parse(index: usize, obj: &Value) -> Result<Parsed, Error> {
    let invalid = |reason: &str| Error::InvalidObject {
        index,
        reason: reason.to_string(),
    };
    let map = obj
        .as_object()
        .ok_or_else(|| invalid("not a JSON object"))?;
    let field = |name: &str| {
        map.get(name)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    let api_version = field("apiVersion").ok_or_else(|| invalid("no apiVersion"))?;
    let kind = field("kind").ok_or_else(|| invalid("no kind"))?;
    let meta = map.get("metadata").and_then(Value::as_object);
    let meta_str = |name: &str| {
        meta.and_then(|m| m.get(name))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    let name = meta_str("name").ok_or_else(|| invalid(&format!("{kind} has no metadata.name")))?;
    if meta_str("generateName").is_some() && meta_str("name").is_none() {
        return Err(invalid("generateName cannot be applied"));
    }
    let (group, version) = match api_version.split_once('/') {
        Some((g, v)) => (g, v),
        None => ("", api_version),
    };
    Ok(Parsed {
        gvk: GroupVersionKind::gvk(group, version, kind),
        object: ObjectRef {
            api_version: api_version.to_string(),
            kind: kind.to_string(),
            namespace: meta_str("namespace").map(str::to_string),
            name: name.to_string(),
        },
    })
}

/// The field-manager conflicts in a failed apply's status, if it is one.
pub(crate) fn conflicts(status: &Status) -> Vec<FieldConflict> {
    if status.code != 409 {
        return Vec::new();
    }
    let Some(details) = &status.details else {
        return Vec::new();
    };
    details
        .causes
        .iter()
        .filter(|c| c.reason == "FieldManagerConflict")
        .map(|c| FieldConflict {
            manager: manager_of(&c.message),
            field: c.field.clone(),
            message: c.message.clone(),
        })
        .collect()
}

/// Whether an apply that conflicted on `found` may take those fields over without being
/// forced: every conflicting field is owned by one of `take_over_from` (the caller's own
/// earlier field managers, such as bosun's before an install moves to helm's), and there is
/// at least one. A field of any other manager keeps the conflict.
pub(crate) fn takes_over_only(found: &[FieldConflict], take_over_from: &[String]) -> bool {
    !found.is_empty()
        && !take_over_from.is_empty()
        && found.iter().all(|c| take_over_from.contains(&c.manager))
}

/// The manager named in an API server conflict message: `conflict with "kubectl" using v1`.
fn manager_of(message: &str) -> String {
    let rest = message.strip_prefix("conflict with ").unwrap_or(message);
    match rest.strip_prefix('"').and_then(|r| r.split_once('"')) {
        Some((name, _)) => name.to_string(),
        None => rest.to_string(),
    }
}

impl Client {
    pub(crate) async fn resolve(&self, parsed: &Parsed) -> Result<(ApiResource, Scope), Error> {
        // One discovery per command, shared by every lookup (`crate::discovery`).
        match self.discover(&parsed.gvk).await {
            Ok(Some((ar, caps))) => Ok((ar, caps.scope)),
            Ok(None) => Err(Error::UnknownKind {
                object: Box::new(parsed.object.clone()),
                api_version: parsed.object.api_version.clone(),
                kind: parsed.object.kind.clone(),
            }),
            Err(source) => Err(Error::Discovery {
                object: Box::new(parsed.object.clone()),
                api_version: parsed.object.api_version.clone(),
                source,
            }),
        }
    }

    /// Resolves object #`index` (`obj`) to where it is applied. Namespaced objects without a
    /// namespace go to [`Client::default_namespace`]; a namespace on a cluster-scoped object is
    /// dropped, as kubectl does.
    pub(crate) async fn target(&self, index: usize, obj: &Value) -> Result<Target, Error> {
        let mut parsed = parse(index, obj)?;
        let (ar, scope) = self.resolve(&parsed).await?;
        let mut body = obj.clone();
        let api: Api<DynamicObject> = match scope {
            Scope::Namespaced => {
                let ns = parsed
                    .object
                    .namespace
                    .get_or_insert_with(|| self.default_namespace().to_string())
                    .clone();
                Api::namespaced_with(self.kube.clone(), &ns, &ar)
            }
            Scope::Cluster => {
                parsed.object.namespace = None;
                if let Some(meta) = body.get_mut("metadata").and_then(Value::as_object_mut) {
                    meta.remove("namespace");
                }
                Api::all_with(self.kube.clone(), &ar)
            }
        };
        Ok(Target {
            api,
            object: parsed.object,
            body,
        })
    }

    /// The live object `object` names (its kind resolved through discovery, like
    /// [`Client::apply`]), or `None` when it does not exist. A namespaced object without a
    /// namespace is looked up in [`Client::default_namespace`].
    pub async fn get(&self, object: &ObjectRef) -> Result<Option<Value>, Error> {
        let api = self.api_of(object).await?;
        let live = api
            .get_opt(&object.name)
            .await
            .map_err(|source| Error::Api {
                object: Box::new(object.clone()),
                action: "reading it",
                source,
            })?;
        Ok(live.map(|o| serde_json::to_value(o).unwrap_or(Value::Null)))
    }

    /// Removes field manager `manager`'s entries from the live object's `managedFields`, and
    /// the `annotations` named, in one update guarded by the object's `resourceVersion` (what
    /// adopting another tool's objects does once bosun's apply owns their fields). `false`
    /// when there was nothing to remove or the object is gone. The fields only `manager` owned
    /// stay in the object, unowned.
    pub async fn drop_field_manager(
        &self,
        object: &ObjectRef,
        manager: &str,
        annotations: &[&str],
    ) -> Result<bool, Error> {
        let api = self.api_of(object).await?;
        let failed = |action: &'static str| {
            let object = Box::new(object.clone());
            move |source| Error::Api {
                object,
                action,
                source,
            }
        };
        // Another writer (a controller updating the status, istiod patching its webhooks)
        // may change the object between the read and the update: read again, a few times.
        let mut attempts = 0;
        loop {
            attempts += 1;
            let Some(mut live) = api
                .get_opt(&object.name)
                .await
                .map_err(failed("reading it"))?
            else {
                return Ok(false);
            };
            let meta = &mut live.metadata;
            let mut changed = false;
            if let Some(fields) = meta.managed_fields.as_mut() {
                let before = fields.len();
                fields.retain(|f| f.manager.as_deref() != Some(manager));
                changed |= fields.len() != before;
            }
            if let Some(map) = meta.annotations.as_mut() {
                for name in annotations {
                    changed |= map.remove(*name).is_some();
                }
            }
            if !changed {
                return Ok(false);
            }
            match api
                .replace(&object.name, &kube::api::PostParams::default(), &live)
                .await
            {
                Ok(_) => return Ok(true),
                Err(kube::Error::Api(e)) if e.code == 409 && attempts < 5 => continue,
                Err(e) => return Err(failed("removing another field manager's ownership")(e)),
            }
        }
    }

    /// The API of `object`'s kind (resolved through discovery), in its namespace
    /// ([`Client::default_namespace`] for a namespaced object naming none).
    async fn api_of(&self, object: &ObjectRef) -> Result<Api<DynamicObject>, Error> {
        let (group, version) = match object.api_version.split_once('/') {
            Some((g, v)) => (g, v),
            None => ("", object.api_version.as_str()),
        };
        let parsed = Parsed {
            gvk: GroupVersionKind::gvk(group, version, &object.kind),
            object: object.clone(),
        };
        let (ar, scope) = self.resolve(&parsed).await?;
        let api: Api<DynamicObject> = match scope {
            Scope::Namespaced => {
                let ns = object
                    .namespace
                    .clone()
                    .unwrap_or_else(|| self.default_namespace().to_string());
                Api::namespaced_with(self.kube.clone(), &ns, &ar)
            }
            Scope::Cluster => Api::all_with(self.kube.clone(), &ar),
        };
        Ok(api)
    }

    /// Server-side applies `objects` with `field_manager`, a few at a time, stopping at the
    /// first failure in input order (objects after it may have been applied already: they
    /// were in flight). With `force`, fields owned by other managers are taken over; without it such
    /// fields fail the apply with [`Error::Conflict`].
    ///
    /// Each object's kind is resolved through discovery (cached per client) before anything
    /// is written, so an unknown kind anywhere fails the call with nothing applied. Namespaced
    /// objects without a namespace go to [`Client::default_namespace`]; a namespace on a
    /// cluster-scoped object is dropped, as kubectl does. The outcome compares the object
    /// before and after (`crate::outcome`: the resource version, the time and fields of
    /// `field_manager`'s managedFields entry); the befores come from one list per kind and
    /// namespace, not one read per object.
    pub async fn apply(
        &self,
        objects: &[Value],
        field_manager: &str,
        force: bool,
    ) -> Result<ApplyReport, Error> {
        Ok(ApplyReport {
            objects: self
                .apply_returning(objects, field_manager, force)
                .await?
                .into_iter()
                .map(|(applied, _)| applied)
                .collect(),
        })
    }

    /// [`Client::apply`], also returning each object as the server answered the apply.
    pub(crate) async fn apply_returning(
        &self,
        objects: &[Value],
        field_manager: &str,
        force: bool,
    ) -> Result<Vec<(Applied, DynamicObject)>, Error> {
        self.apply_known(objects, field_manager, force, &[], None)
            .await
    }

    /// [`Client::apply_returning`], taking the objects' resource versions before the apply
    /// from `snapshot` for the kinds it covers instead of listing them. An object not in the
    /// snapshot is not the installation's (yet): the server's answer tells whether the apply
    /// created it (see [`created_by`]).
    ///
    /// Without `force`, an object whose apply conflicts only with managers of
    /// `take_over_from` ([`takes_over_only`]) is applied again, forced: those fields move to
    /// `field_manager`; a conflict naming any other manager fails as without it.
    pub(crate) async fn apply_known(
        &self,
        objects: &[Value],
        field_manager: &str,
        force: bool,
        take_over_from: &[String],
        snapshot: Option<&Snapshot>,
    ) -> Result<Vec<(Applied, DynamicObject)>, Error> {
        let covered = |ar: &ApiResource| snapshot.filter(|s| s.covers(&ar.group, &ar.kind));
        let mut params = PatchParams::apply(field_manager);
        let forced = PatchParams::apply(field_manager).force();
        if force {
            params = params.force();
        }
        let mut targets = Vec::with_capacity(objects.len());
        for (index, obj) in objects.iter().enumerate() {
            let mut parsed = parse(index, obj)?;
            let (ar, scope) = self.resolve(&parsed).await?;
            let mut body = obj.clone();
            match scope {
                Scope::Namespaced => {
                    parsed
                        .object
                        .namespace
                        .get_or_insert_with(|| self.default_namespace().to_string());
                }
                Scope::Cluster => {
                    parsed.object.namespace = None;
                    if let Some(meta) = body.get_mut("metadata").and_then(Value::as_object_mut) {
                        meta.remove("namespace");
                    }
                }
            }
            targets.push((parsed.object, ar, body));
        }

        // The objects before, one list per kind and namespace.
        let mut before: HashMap<KindIn, HashMap<String, Seen>> = HashMap::new();
        for (object, ar, _) in &targets {
            let key = (
                ar.group.clone(),
                ar.version.clone(),
                ar.plural.clone(),
                object.namespace.clone(),
            );
            if before.contains_key(&key) || covered(ar).is_some() {
                continue;
            }
            let api = self.api_for(ar, object.namespace.as_deref());
            let listed = if self.shares(ar, object.namespace.as_deref()) {
                // The kinds the checks read whole: their shared list (`crate::reads`).
                self.list_shared(ar, object.namespace.as_deref(), "")
                    .await
                    .map(|all| {
                        all.into_iter()
                            .map(|object| Seen {
                                object,
                                whole: true,
                            })
                            .collect::<Vec<_>>()
                    })
            } else {
                crate::client::list_metadata_paged(&api, ListParams::default())
                    .await
                    .map(|all| {
                        all.into_iter()
                            .map(|m| metadata_seen(&m.metadata))
                            .collect()
                    })
            };
            match listed {
                Ok(listed) => {
                    let seen = listed
                        .into_iter()
                        .filter_map(|seen| {
                            let name = seen.object.pointer("/metadata/name")?.as_str()?;
                            Some((name.to_string(), seen))
                        })
                        .collect();
                    before.insert(key, seen);
                }
                // Someone allowed to apply but not to list: read the objects one by one.
                Err(kube::Error::Api(status)) if status.code == 403 => {}
                Err(source) => {
                    return Err(Error::Api {
                        object: Box::new(object.clone()),
                        action: "listing its kind before applying",
                        source,
                    });
                }
            }
        }

        // The patches go out a few at a time (objects of one batch do not depend on each other
        // at the API level, with one exception below); the answers are kept in input order, and
        // the first failure in that order is the one reported.
        let before = &before;
        let params = &params;
        let forced = &forced;
        let patch = |(object, ar, mut body): (ObjectRef, ApiResource, Value)| async move {
            let api = self.api_for(&ar, object.namespace.as_deref());
            let runtime_fields =
                manifest::runtime::has_runtime_fields(&object.api_version, &object.kind);
            let rendered = runtime_fields.then(|| body.clone());
            // Fields istiod writes at run time (its webhooks' CA bundle, the validator's
            // failure policy) are not sent once istiod owns them: applying them would undo
            // its writes, and it would write them again (see `manifest::runtime`).
            if runtime_fields
                && let Some(live) =
                    self.live_for_runtime_fields(&ar, &object)
                        .await
                        .map_err(|source| Error::Api {
                            object: Box::new(object.clone()),
                            action: "reading who owns its fields before applying",
                            source,
                        })?
            {
                manifest::runtime::drop_foreign_runtime_fields(&mut body, &live, field_manager);
            }
            let mut previous = if let Some(s) = covered(&ar) {
                let ns = object.namespace.as_deref();
                match s.seen(&ar.group, &ar.kind, ns, &object.name) {
                    Some(seen) => Before::Existed(seen.clone()),
                    None => Before::NotOwned,
                }
            } else {
                let key = (
                    ar.group.clone(),
                    ar.version.clone(),
                    ar.plural.clone(),
                    object.namespace.clone(),
                );
                match before.get(&key) {
                    Some(names) => names.get(&object.name).cloned(),
                    None => api
                        .get_metadata_opt(&object.name)
                        .await
                        .map_err(|source| Error::Api {
                            object: Box::new(object.clone()),
                            action: "reading it before applying",
                            source,
                        })?
                        .map(|m| metadata_seen(&m.metadata)),
                }
                .map_or(Before::Absent, Before::Existed)
            };
            // The metadata read cannot tell this apply's outcome when this manager changed the
            // object within the second the apply goes out in (`crate::outcome`): read it whole.
            if let Before::Existed(seen) = &previous
                && !seen.whole
                && crate::outcome::needs_whole(&seen.object, field_manager, self.clock.second())
            {
                let live = api
                    .get_opt(&object.name)
                    .await
                    .map_err(|source| Error::Api {
                        object: Box::new(object.clone()),
                        action: "reading it before applying",
                        source,
                    })?;
                previous = match live {
                    Some(live) => Before::Existed(Seen {
                        object: Arc::new(serde_json::to_value(&live).unwrap_or(Value::Null)),
                        whole: true,
                    }),
                    None => Before::Absent,
                };
            }
            let sent_after = self.clock.second();
            let mut answer = api.patch(&object.name, params, &Patch::Apply(&body)).await;
            // The owners of istiod's run-time fields were read with the checks (the shared
            // list): istiod may have taken one since (a webhook it patched a moment ago). Such
            // a conflict is told by reading the owners again and applying without those fields.
            if let Err(kube::Error::Api(status)) = &answer
                && !conflicts(status).is_empty()
                && let Some(mut again) = rendered
                && let Some(live) =
                    api.get_metadata_opt(&object.name)
                        .await
                        .map_err(|source| Error::Api {
                            object: Box::new(object.clone()),
                            action: "reading who owns its fields before applying",
                            source,
                        })?
            {
                let live = serde_json::to_value(&live).unwrap_or(Value::Null);
                manifest::runtime::drop_foreign_runtime_fields(&mut again, &live, field_manager);
                if again != body {
                    body = again;
                    answer = api.patch(&object.name, params, &Patch::Apply(&body)).await;
                }
            }
            if let Err(kube::Error::Api(status)) = &answer
                && !force
                && takes_over_only(&conflicts(status), take_over_from)
            {
                // Only the caller's own earlier manager holds those fields: move them.
                answer = api.patch(&object.name, forced, &Patch::Apply(&body)).await;
            }
            // The answer as JSON, made only where it is read (by the shared lists of its kind,
            // by the outcome of an object that existed), and once.
            let (after, after_json) = match answer {
                Ok(after) => {
                    let json = (self.keeps_lists_of(&ar) || matches!(previous, Before::Existed(_)))
                        .then(|| Arc::new(crate::reads::answer_json(&ar, &after)));
                    if let Some(json) = &json {
                        self.took_in(&ar, json).await;
                    }
                    (after, json)
                }
                Err(kube::Error::Api(status)) if !conflicts(&status).is_empty() => {
                    return Err(Error::Conflict {
                        conflicts: conflicts(&status),
                        object: Box::new(object),
                    });
                }
                Err(source) => {
                    return Err(Error::Api {
                        object: Box::new(object),
                        action: "server-side apply",
                        source,
                    });
                }
            };
            let resource_version = after.metadata.resource_version.clone().unwrap_or_default();
            let outcome = match previous {
                Before::Absent => Outcome::Created,
                Before::Existed(seen) => crate::outcome::judge(
                    &seen.object,
                    seen.whole,
                    // (Made above for an object that existed.)
                    after_json.as_deref().unwrap_or(&Value::Null),
                    field_manager,
                    sent_after,
                ),
                Before::NotOwned if created_by(&after, field_manager) => Outcome::Created,
                Before::NotOwned => Outcome::Configured,
            };
            Ok((
                Applied {
                    object,
                    outcome,
                    resource_version,
                },
                after,
            ))
        };
        // The exception: a subject without `bind` (an operator with least privilege) may bind a
        // role only once the API server can read that role's rules to check it holds them all;
        // before, the binding's apply fails with NotFound. So bindings go after everything else.
        let is_binding = |ar: &ApiResource| {
            ar.group == "rbac.authorization.k8s.io" && ar.kind.ends_with("Binding")
        };
        let (bindings, others): (Vec<_>, Vec<_>) = targets
            .into_iter()
            .enumerate()
            .partition(|(_, (_, ar, _))| is_binding(ar));
        let mut done: Vec<(usize, (Applied, DynamicObject))> = Vec::new();
        for wave in [others, bindings] {
            let answers: Vec<(usize, (Applied, DynamicObject))> =
                futures::stream::iter(wave.into_iter().map(|(i, target)| {
                    let applied = patch(target);
                    async move { applied.await.map(|a| (i, a)) }
                }))
                .buffered(PATCHES_IN_FLIGHT)
                .try_collect()
                .await?;
            done.extend(answers);
        }
        done.sort_by_key(|(i, _)| *i);
        Ok(done.into_iter().map(|(_, a)| a).collect())
    }

    /// The live object `object` (of kind `ar`) as JSON, for who owns its fields: from the
    /// shared list of its kind (`crate::reads`), which the checks read already; else read.
    async fn live_for_runtime_fields(
        &self,
        ar: &ApiResource,
        object: &ObjectRef,
    ) -> Result<Option<Arc<Value>>, kube::Error> {
        let namespace = object.namespace.as_deref();
        if self.shares(ar, namespace) {
            let all = self.list_shared(ar, namespace, "").await?;
            return Ok(all.into_iter().find(|o| {
                o.pointer("/metadata/name").and_then(Value::as_str) == Some(object.name.as_str())
            }));
        }
        let live = self
            .api_for(ar, namespace)
            .get_metadata_opt(&object.name)
            .await?;
        Ok(live.map(|l| Arc::new(serde_json::to_value(&l).unwrap_or(Value::Null))))
    }

    fn api_for(&self, ar: &ApiResource, namespace: Option<&str>) -> Api<DynamicObject> {
        match namespace {
            Some(ns) => Api::namespaced_with(self.kube.clone(), ns, ar),
            None => Api::all_with(self.kube.clone(), ar),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_core_and_grouped_kinds() {
        let p = parse(0, &json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "n"}})).unwrap();
        assert_eq!(p.gvk, GroupVersionKind::gvk("", "v1", "ConfigMap"));
        assert_eq!(p.object.to_string(), "ConfigMap n/a");
        let p = parse(
            0,
            &json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}}),
        )
        .unwrap();
        assert_eq!(p.gvk, GroupVersionKind::gvk("apps", "v1", "Deployment"));
        assert_eq!(p.object.to_string(), "Deployment d");
    }

    #[test]
    fn rejects_objects_without_identity() {
        for (obj, want) in [
            (json!([]), "object #3: not a JSON object"),
            (json!({"kind": "ConfigMap"}), "object #3: no apiVersion"),
            (json!({"apiVersion": "v1"}), "object #3: no kind"),
            (
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}}),
                "object #3: ConfigMap has no metadata.name",
            ),
        ] {
            assert_eq!(parse(3, &obj).err().unwrap().to_string(), want);
        }
    }

    #[test]
    fn reads_conflicts_from_status() {
        let status: Status = serde_json::from_value(json!({
            "kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Conflict", "code": 409,
            "message": "Apply failed with 1 conflict: conflict with \"other\": .data.k",
            "details": {"causes": [{"reason": "FieldManagerConflict", "message": "conflict with \"other\" using v1", "field": ".data.k"}]}
        }))
        .unwrap();
        let got = conflicts(&status);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].manager, "other");
        assert_eq!(got[0].field, ".data.k");
        let err = Error::Conflict {
            object: Box::new(ObjectRef {
                api_version: "v1".into(),
                kind: "ConfigMap".into(),
                namespace: Some("n".into()),
                name: "c".into(),
            }),
            conflicts: got,
        };
        assert_eq!(
            err.to_string(),
            "ConfigMap n/c: server-side apply conflicts with field manager \"other\" on .data.k (re-apply with force to take them over)"
        );
        assert_eq!(err.conflicting_managers(), ["other"]);
    }

    #[test]
    fn only_conflicts_with_the_callers_own_managers_are_taken_over() {
        let conflict = |manager: &str| FieldConflict {
            manager: manager.into(),
            field: ".webhooks[name=\"x\"].rules".into(),
            message: String::new(),
        };
        let own = ["bosun".to_string()];
        for (found, from, takes) in [
            (vec![conflict("bosun")], &own[..], true),
            (vec![conflict("bosun"), conflict("bosun")], &own[..], true),
            (
                vec![conflict("bosun"), conflict("kubectl")],
                &own[..],
                false,
            ),
            (vec![conflict("pilot-discovery")], &own[..], false),
            (vec![conflict("bosun")], &[][..], false),
            (vec![], &own[..], false),
        ] {
            assert_eq!(
                takes_over_only(&found, from),
                takes,
                "{found:?} from {from:?}"
            );
        }
    }
}
