//! What an install would do, asked of the API server without changing anything: every object
//! is server-side applied with `dryRun=All` and the result compared with the live object, so
//! defaulting, admission and field ownership are the server's own, not guessed.
//!
//! Two kinds of object cannot be dry-run, and are planned as created with a note saying why:
//! objects in a namespace that does not exist yet (the server refuses them: the install creates
//! the namespace first), and custom resources whose CustomResourceDefinition is among the objects
//! but not installed yet (the server does not serve their kind). Objects to delete are not found
//! here: whoever computes them (prune) plans them with [`Client::plan_deletes`] (a server dry
//! run of each delete) or adds them as they are with [`Plan::add_deletes`].
//!
//! [`field_changes`] and [`comparable`] are pure; [`Client::plan`] does the I/O.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use k8s_openapi::api::core::v1::Namespace;
use kube::api::Patch;
use kube::api::{Api, DeleteParams, DynamicObject, ObjectMeta, PatchParams, PostParams};
use kube::core::GroupVersionKind;
use kube::discovery::Scope;
use manifest::diff::Change;
use serde_json::Value;
use vocab::{Component, ObjectRef};

use crate::apply::{Parsed, Target, conflicts};
use crate::{Client, Error};

/// What would happen to one object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Create,
    /// It exists and would change (see [`PlannedObject::changes`]).
    Update,
    Unchanged,
    /// Other field managers own fields the apply sets: the install fails unless forced.
    Conflict,
    /// It would be deleted (pruned).
    Delete,
}

impl Action {
    /// The word `kubectl apply --dry-run` uses for an outcome (`created`, `configured`, …).
    pub fn past_tense(self) -> &'static str {
        match self {
            Action::Create => "created",
            Action::Update => "configured",
            Action::Unchanged => "unchanged",
            Action::Conflict => "conflicting",
            Action::Delete => "deleted",
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Action::Create => "create",
            Action::Update => "update",
            Action::Unchanged => "unchanged",
            Action::Conflict => "conflict",
            Action::Delete => "delete",
        })
    }
}

/// One object of a [`Plan`].
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedObject {
    pub object: ObjectRef,
    pub action: Action,
    /// For [`Action::Update`]: the fields that would change, live value → applied value
    /// (metadata the server maintains and `status` left out, see [`comparable`]). Empty when
    /// only field ownership would change.
    pub changes: Vec<Change>,
    /// Why the plan says what it says when the server could not be asked, or the conflict.
    pub note: Option<String>,
    /// Whether the server dry-ran the object; `false` when it could not (see the module docs)
    /// and for deletes.
    pub dry_run: bool,
}

/// What an install would do, object by object, in the order it would do it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    pub objects: Vec<PlannedObject>,
}

impl Plan {
    /// Adds objects that would be deleted (prune candidates), after everything else, without
    /// asking the server; [`Client::plan_deletes`] asks it.
    pub fn add_deletes(&mut self, objects: impl IntoIterator<Item = ObjectRef>) {
        self.objects
            .extend(objects.into_iter().map(|object| PlannedObject {
                object,
                action: Action::Delete,
                changes: Vec::new(),
                note: None,
                dry_run: false,
            }));
    }

    /// How many objects have this action.
    pub fn count(&self, action: Action) -> usize {
        self.objects.iter().filter(|o| o.action == action).count()
    }
}

/// Metadata the server maintains, which no apply sets: left out of field changes.
const SERVER_METADATA: &[&str] = &[
    "managedFields",
    "resourceVersion",
    "generation",
    "uid",
    "creationTimestamp",
];

/// `obj` without what the server maintains (the metadata in `SERVER_METADATA`, and `status`):
/// what an apply can change.
pub fn comparable(obj: &Value) -> Value {
    let mut out = obj.clone();
    if let Some(map) = out.as_object_mut() {
        map.remove("status");
        if let Some(meta) = map.get_mut("metadata").and_then(Value::as_object_mut) {
            for field in SERVER_METADATA {
                meta.remove(*field);
            }
        }
    }
    out
}

/// The fields that differ between the live object and what the apply would make of it.
pub fn field_changes(live: &Value, applied: &Value) -> Vec<Change> {
    manifest::diff::compare_values(&comparable(live), &comparable(applied))
}

/// Whether the apply would write at all: anything but `resourceVersion` and the time stamps
/// of field-ownership entries differs (a dry run returns the old `resourceVersion`, and stamps
/// the time it ran).
fn would_write(live: &Value, applied: &Value) -> bool {
    let strip = |obj: &Value| {
        let mut out = obj.clone();
        if let Some(meta) = out.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.remove("resourceVersion");
            if let Some(entries) = meta.get_mut("managedFields").and_then(Value::as_array_mut) {
                for entry in entries.iter_mut().filter_map(Value::as_object_mut) {
                    entry.remove("time");
                }
            }
        }
        out
    };
    strip(live) != strip(applied)
}

/// Whether a CustomResourceDefinition among `objects` defines `object`'s kind.
fn crd_among(objects: &[Value], object: &ObjectRef) -> bool {
    let group = object
        .api_version
        .split_once('/')
        .map(|(g, _)| g)
        .unwrap_or("");
    objects.iter().any(|o| {
        o.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition")
            && o.pointer("/spec/group").and_then(Value::as_str) == Some(group)
            && o.pointer("/spec/names/kind").and_then(Value::as_str) == Some(object.kind.as_str())
    })
}

fn is_namespace(obj: &Value) -> bool {
    obj.get("kind").and_then(Value::as_str) == Some("Namespace")
        && obj.get("apiVersion").and_then(Value::as_str) == Some("v1")
}

/// The reference of Namespace `name`.
pub(crate) fn namespace_ref(name: &str) -> ObjectRef {
    ObjectRef {
        api_version: "v1".into(),
        kind: "Namespace".into(),
        namespace: None,
        name: name.into(),
    }
}

impl Client {
    async fn namespace_exists(
        &self,
        name: &str,
        known: &mut BTreeMap<String, bool>,
    ) -> Result<bool, Error> {
        if let Some(exists) = known.get(name) {
            return Ok(*exists);
        }
        let api: Api<Namespace> = Api::all(self.kube.clone());
        let exists = api
            .get_opt(name)
            .await
            .map_err(|source| Error::Api {
                object: Box::new(namespace_ref(name)),
                action: "reading it",
                source,
            })?
            .is_some();
        known.insert(name.to_string(), exists);
        Ok(exists)
    }

    /// Plans deleting `objects` (prune candidates): each deleted with `dryRun=All`, so the
    /// server checks that it exists and may be deleted. An object already gone is planned as
    /// unchanged, with a note. Writes nothing; add the result to a plan with
    /// `plan.objects.extend(…)`.
    pub async fn plan_deletes(&self, objects: &[ObjectRef]) -> Result<Vec<PlannedObject>, Error> {
        let mut out = Vec::new();
        for object in objects {
            let (group, version) = object
                .api_version
                .split_once('/')
                .unwrap_or(("", object.api_version.as_str()));
            let parsed = Parsed {
                gvk: GroupVersionKind::gvk(group, version, &object.kind),
                object: object.clone(),
            };
            let (ar, scope) = self.resolve(&parsed).await?;
            let api: Api<DynamicObject> = match (scope, &object.namespace) {
                (Scope::Namespaced, Some(ns)) => Api::namespaced_with(self.kube.clone(), ns, &ar),
                (Scope::Namespaced, None) => {
                    Api::namespaced_with(self.kube.clone(), self.default_namespace(), &ar)
                }
                (Scope::Cluster, _) => Api::all_with(self.kube.clone(), &ar),
            };
            let params = DeleteParams {
                dry_run: true,
                ..Default::default()
            };
            let (action, note) = match api.delete(&object.name, &params).await {
                Ok(_) => (Action::Delete, None),
                Err(kube::Error::Api(status)) if status.code == 404 => (
                    Action::Unchanged,
                    Some("not found, so nothing to delete".to_string()),
                ),
                Err(source) => {
                    return Err(Error::Api {
                        object: Box::new(object.clone()),
                        action: "deleting it (dry run)",
                        source,
                    });
                }
            };
            out.push(PlannedObject {
                object: object.clone(),
                action,
                changes: Vec::new(),
                note,
                dry_run: true,
            });
        }
        Ok(out)
    }

    /// Plans [`Client::install`] of `components` with this field manager and force: their
    /// objects in the order the install applies them (Namespaces, CustomResourceDefinitions,
    /// then the rest component by component), each dry-run as [`Client::plan`] does. Writes
    /// nothing.
    ///
    /// `take_over_from` as [`crate::InstallOptions::take_over_from`]: an object that conflicts
    /// only with those managers is planned as the install applies it, taking their fields.
    pub async fn plan_install(
        &self,
        components: &[Component],
        field_manager: &str,
        force: bool,
        take_over_from: &[String],
    ) -> Result<Plan, Error> {
        let all = || components.iter().flat_map(|c| c.objects.iter());
        let is_crd =
            |o: &Value| o.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition");
        let ordered: Vec<Value> = all()
            .filter(|o| is_namespace(o))
            .chain(all().filter(|o| is_crd(o)))
            .chain(all().filter(|o| !is_namespace(o) && !is_crd(o)))
            .cloned()
            .collect();
        self.plan_taking(&ordered, field_manager, force, take_over_from)
            .await
    }

    /// Plans the install of `objects` (in install order) with `field_manager`, `force` as the
    /// install would take it: the namespaces objects go to that nothing renders and that do not
    /// exist first (the install creates them), then each object, dry-run on the server (see the
    /// module docs). Writes nothing.
    pub async fn plan(
        &self,
        objects: &[Value],
        field_manager: &str,
        force: bool,
    ) -> Result<Plan, Error> {
        self.plan_taking(objects, field_manager, force, &[]).await
    }

    /// [`Client::plan`], taking over without `force` the fields of `take_over_from` when they
    /// are the only managers an object conflicts with (as [`Client::install`] does).
    pub async fn plan_taking(
        &self,
        objects: &[Value],
        field_manager: &str,
        force: bool,
        take_over_from: &[String],
    ) -> Result<Plan, Error> {
        let mut plan = Plan::default();
        let mut known = BTreeMap::new();
        let rendered: BTreeSet<&str> = objects
            .iter()
            .filter(|o| is_namespace(o))
            .filter_map(|o| o.pointer("/metadata/name").and_then(Value::as_str))
            .collect();
        let targets: BTreeSet<&str> = objects
            .iter()
            .filter_map(|o| o.pointer("/metadata/namespace").and_then(Value::as_str))
            .filter(|ns| !ns.is_empty() && !rendered.contains(ns))
            .collect();
        for ns in targets {
            if !self.namespace_exists(ns, &mut known).await? {
                // The install creates it with a plain create: dry-run that.
                let api: Api<Namespace> = Api::all(self.kube.clone());
                let namespace = Namespace {
                    metadata: ObjectMeta {
                        name: Some(ns.to_string()),
                        ..Default::default()
                    },
                    ..Default::default()
                };
                let params = PostParams {
                    dry_run: true,
                    field_manager: Some(field_manager.to_string()),
                };
                api.create(&params, &namespace)
                    .await
                    .map_err(|source| Error::Api {
                        object: Box::new(namespace_ref(ns)),
                        action: "creating it (dry run)",
                        source,
                    })?;
                plan.objects.push(PlannedObject {
                    object: namespace_ref(ns),
                    action: Action::Create,
                    changes: Vec::new(),
                    note: Some("objects go to it and nothing renders it".into()),
                    dry_run: true,
                });
            }
        }

        let mut params = PatchParams::apply(field_manager).dry_run();
        let forced = PatchParams::apply(field_manager).dry_run().force();
        if force {
            params = params.force();
        }
        for (index, obj) in objects.iter().enumerate() {
            let planned = |object: ObjectRef, action, note: String, dry_run| PlannedObject {
                object,
                action,
                changes: Vec::new(),
                note: Some(note),
                dry_run,
            };
            let Target {
                api,
                object,
                mut body,
            } = match self.target(index, obj).await {
                Ok(target) => target,
                Err(Error::UnknownKind { object, .. }) if crd_among(objects, &object) => {
                    plan.objects.push(planned(
                        *object,
                        Action::Create,
                        "its CustomResourceDefinition is not installed yet, so the server cannot dry-run it".into(),
                        false,
                    ));
                    continue;
                }
                Err(e) => return Err(e),
            };
            if let Some(ns) = &object.namespace
                && !self.namespace_exists(ns, &mut known).await?
            {
                let note = format!(
                    "namespace {ns} does not exist yet, so the server cannot dry-run objects in it"
                );
                plan.objects
                    .push(planned(object, Action::Create, note, false));
                continue;
            }
            let live = api
                .get_opt(&object.name)
                .await
                .map_err(|source| Error::Api {
                    object: Box::new(object.clone()),
                    action: "reading it before the dry run",
                    source,
                })?;
            // As the install sends it: without the fields istiod took over.
            if let Some(live) = &live {
                manifest::runtime::drop_foreign_runtime_fields(
                    &mut body,
                    &serde_json::to_value(live).unwrap_or(Value::Null),
                    field_manager,
                );
            }
            let mut answer = api.patch(&object.name, &params, &Patch::Apply(&body)).await;
            let mut taken_from = None;
            if let Err(kube::Error::Api(status)) = &answer
                && !force
                && crate::apply::takes_over_only(&conflicts(status), take_over_from)
            {
                let mut managers: Vec<String> =
                    conflicts(status).into_iter().map(|c| c.manager).collect();
                managers.sort();
                managers.dedup();
                taken_from = Some(managers);
                answer = api.patch(&object.name, &forced, &Patch::Apply(&body)).await;
            }
            let applied = match answer {
                Ok(applied) => applied,
                Err(kube::Error::Api(status)) if !conflicts(&status).is_empty() => {
                    let conflict = Error::Conflict {
                        conflicts: conflicts(&status),
                        object: Box::new(object.clone()),
                    };
                    let managers = conflict.conflicting_managers().join(", ");
                    let note = format!(
                        "fields owned by {managers}; the install fails unless --force takes them over ({conflict})"
                    );
                    plan.objects
                        .push(planned(object, Action::Conflict, note, true));
                    continue;
                }
                Err(source) => {
                    return Err(Error::Api {
                        object: Box::new(object),
                        action: "server-side apply dry run",
                        source,
                    });
                }
            };
            let Some(live) = live else {
                plan.objects.push(PlannedObject {
                    object,
                    action: Action::Create,
                    changes: Vec::new(),
                    note: None,
                    dry_run: true,
                });
                continue;
            };
            let live = serde_json::to_value(&live).unwrap_or(Value::Null);
            let applied = serde_json::to_value(&applied).unwrap_or(Value::Null);
            let (action, changes) = if would_write(&live, &applied) {
                (Action::Update, field_changes(&live, &applied))
            } else {
                (Action::Unchanged, Vec::new())
            };
            let note = match taken_from {
                Some(managers) => Some(format!(
                    "fields of field manager {} move to {field_manager:?}",
                    managers
                        .iter()
                        .map(|m| format!("{m:?}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
                None => (action == Action::Update && changes.is_empty())
                    .then(|| "only field ownership changes".to_string()),
            };
            plan.objects.push(PlannedObject {
                object,
                action,
                changes,
                note,
                dry_run: true,
            });
        }
        Ok(plan)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn field_changes_leave_out_what_the_server_maintains() {
        let live = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "istiod", "resourceVersion": "5", "generation": 3, "uid": "u",
                         "creationTimestamp": "t", "managedFields": [{"manager": "bosun"}],
                         "labels": {"a": "1"}},
            "spec": {"replicas": 1}, "status": {"readyReplicas": 1}});
        let applied = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "istiod", "resourceVersion": "5", "generation": 4, "uid": "u",
                         "creationTimestamp": "t", "managedFields": [{"manager": "other"}],
                         "labels": {"a": "1", "b": "2"}},
            "spec": {"replicas": 2}, "status": {}});
        assert_eq!(
            field_changes(&live, &applied),
            vec![
                Change::Added {
                    path: "metadata.labels.b".into(),
                    new: json!("2")
                },
                Change::Changed {
                    path: "spec.replicas".into(),
                    old: json!(1),
                    new: json!(2)
                },
            ]
        );
    }

    #[test]
    fn a_dry_run_that_only_restamps_times_writes_nothing() {
        let live = json!({"metadata": {"resourceVersion": "5", "managedFields": [{"manager": "bosun", "time": "t1"}]}, "data": {"a": "1"}});
        let same = json!({"metadata": {"resourceVersion": "5", "managedFields": [{"manager": "bosun", "time": "t2"}]}, "data": {"a": "1"}});
        let owner = json!({"metadata": {"resourceVersion": "5", "managedFields": [{"manager": "other", "time": "t2"}]}, "data": {"a": "1"}});
        assert!(!would_write(&live, &same));
        assert!(would_write(&live, &owner));
        assert!(field_changes(&live, &owner).is_empty());
    }

    #[test]
    fn custom_resources_of_rendered_crds_are_recognised() {
        let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "spec": {"group": "networking.istio.io", "names": {"kind": "Gateway"}}});
        let object = |api_version: &str, kind: &str| ObjectRef {
            api_version: api_version.into(),
            kind: kind.into(),
            namespace: None,
            name: "x".into(),
        };
        assert!(crd_among(
            std::slice::from_ref(&crd),
            &object("networking.istio.io/v1", "Gateway")
        ));
        assert!(!crd_among(
            std::slice::from_ref(&crd),
            &object("gateway.networking.k8s.io/v1", "Gateway")
        ));
        assert!(!crd_among(
            &[crd],
            &object("networking.istio.io/v1", "Sidecar")
        ));
    }

    #[test]
    fn deletes_come_last() {
        let mut plan = Plan::default();
        plan.objects.push(PlannedObject {
            object: namespace_ref("a"),
            action: Action::Create,
            changes: Vec::new(),
            note: None,
            dry_run: true,
        });
        plan.add_deletes([namespace_ref("b")]);
        assert_eq!(plan.objects[1].action, Action::Delete);
        assert_eq!(
            (plan.count(Action::Create), plan.count(Action::Delete)),
            (1, 1)
        );
    }
}
