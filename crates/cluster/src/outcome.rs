//! What one server-side apply did to an object that existed (configured or unchanged), told from
//! the object as read before the apply and as the apply answered it, whoever else wrote the
//! object in between. Pure: no I/O.
//!
//! Comparing `resourceVersion` before and after is not enough once the read before is not
//! right before the apply (an install reads its objects once, under the install lock, for its
//! checks and its writes): writers the lock does not stop (the Deployment controller writing
//! status during a rollout, istiod writing its webhooks' `caBundle`) change the object in
//! between, and an object bosun's apply left alone would count as configured.
//!
//! So the decision looks at the apply's own trace. The server stamps the `time` of the
//! applying manager's managedFields entry (manager `bosun`, or `helm`; operation `Apply`) when
//! that apply changes the object (adds, changes or removes one of its fields), and only then
//! (`ManagedFieldsEntry.time` in the Kubernetes API reference; checked on the living cluster:
//! an unchanged re-apply keeps the entry's time and the `resourceVersion`; another manager's
//! write, status included, changes neither the entry nor its time). The time has one-second
//! granularity, so an apply that changed the object in the same second as the manager's
//! previous change leaves the time as it was. Hence [`judge`]:
//!
//! 1. the `resourceVersion` is the same: nobody wrote, unchanged;
//! 2. the manager's entry is new, its time moved, or it owns a field it did not own: the apply
//!    wrote, configured;
//! 3. its time stayed, and the apply was sent after a second later than that time began (the
//!    server's clock, from the `Date` of an answer received before the apply was sent): a write
//!    by this apply would have stamped a later second, so it did not write, unchanged;
//!    (This assumes the API servers' clocks agree to within the second, as NTP keeps them.)
//! 4. otherwise (the manager changed the object within the second the apply was sent in) the
//!    values at the paths the manager's `fieldsV1` set names are compared, before and after:
//!    equal, unchanged, whatever others changed elsewhere. This needs the whole object read
//!    before: [`needs_whole`] says when a metadata-only read must be replaced by a whole one.

use std::collections::BTreeSet;

use k8s_openapi::jiff::Timestamp;
use serde_json::{Map, Value};

use crate::apply::Outcome;

/// One step into an object along a `fieldsV1` path.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Step {
    /// `f:name`: a field of a map.
    Field(String),
    /// `k:{…}`: the element of a list whose fields have these values (JSON text).
    Key(String),
    /// `v:…`: the element of a list (a set) equal to this value (JSON text).
    Value(String),
    /// `i:N`: the element of a list at this index.
    Index(usize),
}

/// A path the manager owns, and whether it owns only that the node exists (`.`: a map or list
/// element others may add to) rather than its value.
type OwnedPath = (Vec<Step>, bool);

/// The seconds since the epoch of a managedFields `time` (`2026-12-07T11:40:01Z`).
fn seconds(time: &str) -> Option<i64> {
    time.parse::<Timestamp>().ok().map(|t| t.as_second())
}

/// `manager`'s `Apply` entry of the object's managedFields (the main resource's, not a
/// subresource's).
fn entry<'a>(object: &'a Value, manager: &str) -> Option<&'a Value> {
    object
        .pointer("/metadata/managedFields")?
        .as_array()?
        .iter()
        .find(|e| {
            e.get("manager").and_then(Value::as_str) == Some(manager)
                && e.get("operation").and_then(Value::as_str) == Some("Apply")
                && e.get("subresource")
                    .and_then(Value::as_str)
                    .is_none_or(str::is_empty)
        })
}

fn entry_seconds(entry: Option<&Value>) -> Option<i64> {
    entry
        .and_then(|e| e.get("time"))
        .and_then(Value::as_str)
        .and_then(seconds)
}

/// Every path of a `fieldsV1` set.
fn owned_paths(fields: &Value) -> BTreeSet<OwnedPath> {
    let mut out = BTreeSet::new();
    walk(fields, &mut Vec::new(), &mut out);
    out
}

fn walk(node: &Value, at: &mut Vec<Step>, out: &mut BTreeSet<OwnedPath>) {
    let Some(map) = node.as_object() else {
        return;
    };
    let children: Vec<(&String, &Value)> = map.iter().filter(|(k, _)| *k != ".").collect();
    if children.is_empty() {
        if !at.is_empty() {
            out.insert((at.clone(), false));
        }
        return;
    }
    if map.contains_key(".") {
        out.insert((at.clone(), true));
    }
    for (key, child) in children {
        let step = match key.split_once(':') {
            Some(("f", name)) => Step::Field(name.to_string()),
            Some(("k", fields)) => Step::Key(fields.to_string()),
            Some(("v", value)) => Step::Value(value.to_string()),
            Some(("i", index)) => match index.parse() {
                Ok(i) => Step::Index(i),
                Err(_) => continue,
            },
            _ => continue,
        };
        at.push(step);
        walk(child, at, out);
        at.pop();
    }
}

/// The node of `object` at `path`, if there is one.
fn at<'a>(object: &'a Value, path: &[Step]) -> Option<&'a Value> {
    let mut node = object;
    for step in path {
        node = match step {
            Step::Field(name) => node.as_object()?.get(name)?,
            Step::Index(i) => node.as_array()?.get(*i)?,
            Step::Value(text) => {
                let wanted: Value = serde_json::from_str(text).ok()?;
                node.as_array()?.iter().find(|v| **v == wanted)?
            }
            Step::Key(text) => {
                let wanted: Map<String, Value> = serde_json::from_str(text).ok()?;
                node.as_array()?
                    .iter()
                    .find(|element| wanted.iter().all(|(k, v)| element.get(k) == Some(v)))?
            }
        };
    }
    Some(node)
}

/// Whether the values at the paths of `paths` are the same in `before` and `after` (for a path
/// owned as `.`, only whether the node exists).
fn same_at(before: &Value, after: &Value, paths: &BTreeSet<OwnedPath>) -> bool {
    paths.iter().all(|(path, exists_only)| {
        let (b, a) = (at(before, path), at(after, path));
        if *exists_only {
            b.is_some() == a.is_some()
        } else {
            b == a
        }
    })
}

/// Whether the object read before the apply (`before`, metadata only) must be read whole
/// right before the apply, for [`judge`] to tell its outcome: when `manager` changed it in the
/// second `server_second` (the newest second the server's answers named, `None` when none
/// did) or later, a change by the apply would not move its entry's time.
pub(crate) fn needs_whole(before: &Value, manager: &str, server_second: Option<i64>) -> bool {
    match (entry_seconds(entry(before, manager)), server_second) {
        (None, _) => false,
        (Some(time), Some(now)) => time >= now,
        (Some(_), None) => true,
    }
}

/// What the apply by `manager` did to an object that existed: `before` as read before the apply
/// (`whole`: all of it, else its metadata only), `after` as the apply answered it, and
/// `server_second` the newest second the server's answers named before the apply was sent (see
/// the module docs for the rules).
pub(crate) fn judge(
    before: &Value,
    whole: bool,
    after: &Value,
    manager: &str,
    server_second: Option<i64>,
) -> Outcome {
    let version = |o: &Value| {
        o.pointer("/metadata/resourceVersion")
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    if version(before).is_some() && version(before) == version(after) {
        return Outcome::Unchanged;
    }
    let (was, is) = (entry(before, manager), entry(after, manager));
    let Some(is) = is else {
        // The manager owns nothing after its apply (an empty body): nothing told.
        return Outcome::Configured;
    };
    let (Some(was_time), Some(is_time)) = (entry_seconds(was), entry_seconds(Some(is))) else {
        // New entry: the apply took fields.
        return Outcome::Configured;
    };
    if was_time != is_time {
        return Outcome::Configured;
    }
    let empty = Value::Object(Map::new());
    let was_paths = owned_paths(was.and_then(|e| e.get("fieldsV1")).unwrap_or(&empty));
    let is_paths = owned_paths(is.get("fieldsV1").unwrap_or(&empty));
    if !is_paths.is_subset(&was_paths) {
        // Only the manager's own apply adds to its set (others take fields away).
        return Outcome::Configured;
    }
    if server_second.is_some_and(|now| was_time < now) {
        return Outcome::Unchanged;
    }
    if !whole {
        // Not told by time, no values to compare: a write happened, say it may be ours.
        return Outcome::Configured;
    }
    // The manager's fields in both sets: others' writes to them would have taken them (and
    // fail this apply as a conflict); fields it gave up count when they were removed.
    let gone: BTreeSet<OwnedPath> = was_paths.difference(&is_paths).cloned().collect();
    let removed = gone
        .iter()
        .any(|(path, _)| at(before, path).is_some() && at(after, path).is_none());
    if !removed && same_at(before, after, &is_paths) {
        Outcome::Unchanged
    } else {
        Outcome::Configured
    }
}

/// The seconds since the epoch of an HTTP `Date` header (`Mon, 07 Dec 2026 11:40:01 GMT`).
pub(crate) fn http_date_seconds(date: &str) -> Option<i64> {
    k8s_openapi::jiff::fmt::rfc2822::DateTimeParser::new()
        .parse_timestamp(date)
        .ok()
        .map(|t| t.as_second())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A Deployment-like object: resourceVersion, managedFields (manager, time, fieldsV1) and
    /// a body.
    fn object(rv: &str, entries: Value, spec: Value) -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "istiod", "namespace": "istio-system", "resourceVersion": rv,
                         "labels": {"app": "istiod", "extra": "x"}, "managedFields": entries},
            "spec": spec,
        })
    }

    fn bosun(time: &str, fields: Value) -> Value {
        json!({"manager": "bosun", "operation": "Apply", "apiVersion": "apps/v1", "time": time,
               "fieldsType": "FieldsV1", "fieldsV1": fields})
    }

    fn controller(time: &str) -> Value {
        json!({"manager": "kube-controller-manager", "operation": "Update", "subresource": "status",
               "apiVersion": "apps/v1", "time": time, "fieldsType": "FieldsV1",
               "fieldsV1": {"f:status": {"f:replicas": {}}}})
    }

    fn owned() -> Value {
        json!({"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
               "f:spec": {"f:replicas": {}, "f:template": {"f:spec": {"f:containers": {
                   "k:{\"name\":\"discovery\"}": {".": {}, "f:image": {}, "f:name": {}}}}}}})
    }

    fn spec(replicas: u32, image: &str) -> Value {
        json!({"replicas": replicas, "template": {"spec": {"containers": [
            {"name": "discovery", "image": image, "imagePullPolicy": "Always"}]}}})
    }

    /// (case, before, whole, after, newest server second before the apply, outcome)
    type Case = (&'static str, Value, bool, Value, Option<i64>, Outcome);

    const T0: &str = "2026-12-07T11:40:01Z";
    const T1: &str = "2026-12-07T11:40:02Z";
    const S0: i64 = 1_796_643_601; // T0
    const S1: i64 = S0 + 1;

    #[test]
    fn the_managed_fields_time_parses_in_the_servers_seconds() {
        assert_eq!(seconds(T0), Some(S0));
        assert_eq!(http_date_seconds("Mon, 07 Dec 2026 11:40:01 GMT"), Some(S0));
        assert_eq!(http_date_seconds("yesterday"), None);
    }

    #[test]
    fn outcomes_from_the_object_before_and_as_the_apply_answered() {
        let owned = owned();
        // (case, before, whole, after, newest server second before the apply, outcome)
        let cases: Vec<Case> = vec![
            (
                "nobody wrote",
                object("5", json!([bosun(T0, owned.clone())]), spec(1, "a")),
                false,
                object("5", json!([bosun(T0, owned.clone())]), spec(1, "a")),
                Some(S1 + 60),
                Outcome::Unchanged,
            ),
            (
                "the controller wrote status in between, the apply changed nothing",
                object("5", json!([bosun(T0, owned.clone())]), spec(1, "a")),
                false,
                object(
                    "6",
                    json!([bosun(T0, owned.clone()), controller(T1)]),
                    spec(1, "a"),
                ),
                Some(S1),
                Outcome::Unchanged,
            ),
            (
                "the apply changed the image: its time moved",
                object("5", json!([bosun(T0, owned.clone())]), spec(1, "a")),
                false,
                object("6", json!([bosun(T1, owned.clone())]), spec(1, "b")),
                Some(S1),
                Outcome::Configured,
            ),
            (
                "bosun's entry is new (adopting a Helm install)",
                object("5", json!([controller(T0)]), spec(1, "a")),
                false,
                object(
                    "6",
                    json!([controller(T0), bosun(T0, owned.clone())]),
                    spec(1, "a"),
                ),
                Some(S0),
                Outcome::Configured,
            ),
            (
                "the apply took a field more, within the same second",
                object(
                    "5",
                    json!([bosun(T0, json!({"f:spec": {"f:replicas": {}}}))]),
                    spec(1, "a"),
                ),
                false,
                object("6", json!([bosun(T0, owned.clone())]), spec(1, "a")),
                Some(S0),
                Outcome::Configured,
            ),
            (
                "bosun changed it this second, others wrote, the apply changed nothing (values)",
                object("5", json!([bosun(T1, owned.clone())]), spec(1, "a")),
                true,
                object(
                    "7",
                    json!([bosun(T1, owned.clone()), controller(T1)]),
                    json!({"replicas": 1, "template": {"spec": {"containers": [
                        {"name": "discovery", "image": "a", "imagePullPolicy": "IfNotPresent"}]}}}),
                ),
                Some(S1),
                Outcome::Unchanged,
            ),
            (
                "bosun changed it this second, and the apply changed it again (values)",
                object("5", json!([bosun(T1, owned.clone())]), spec(1, "a")),
                true,
                object("6", json!([bosun(T1, owned.clone())]), spec(2, "a")),
                Some(S1),
                Outcome::Configured,
            ),
            (
                "the same, an image in a keyed list",
                object("5", json!([bosun(T1, owned.clone())]), spec(1, "a")),
                true,
                object("6", json!([bosun(T1, owned.clone())]), spec(1, "b")),
                Some(S1),
                Outcome::Configured,
            ),
            (
                "the apply removed a field it no longer sends, in the same second",
                object("5", json!([bosun(T1, owned.clone())]), spec(1, "a")),
                true,
                object(
                    "6",
                    json!([bosun(
                        T1,
                        json!({"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                        "f:spec": {"f:template": {"f:spec": {"f:containers": {
                            "k:{\"name\":\"discovery\"}": {".": {}, "f:image": {}, "f:name": {}}}}}}})
                    )]),
                    json!({"template": {"spec": {"containers": [
                        {"name": "discovery", "image": "a", "imagePullPolicy": "Always"}]}}}),
                ),
                Some(S1),
                Outcome::Configured,
            ),
            (
                "a label another manager added is not bosun's change",
                object("5", json!([bosun(T1, owned.clone())]), spec(1, "a")),
                true,
                {
                    let mut o = object("6", json!([bosun(T1, owned.clone())]), spec(1, "a"));
                    o["metadata"]["labels"]["someone"] = json!("else");
                    o
                },
                Some(S1),
                Outcome::Unchanged,
            ),
            (
                "same second, metadata only: cannot tell, so configured",
                object("5", json!([bosun(T1, owned.clone())]), spec(1, "a")),
                false,
                object("6", json!([bosun(T1, owned.clone())]), spec(1, "a")),
                Some(S1),
                Outcome::Configured,
            ),
            (
                "no server time known, metadata only",
                object("5", json!([bosun(T0, owned.clone())]), spec(1, "a")),
                false,
                object(
                    "6",
                    json!([bosun(T0, owned.clone()), controller(T1)]),
                    spec(1, "a"),
                ),
                None,
                Outcome::Configured,
            ),
            (
                "helm's entry, under --helm-releases",
                object(
                    "5",
                    json!([{"manager": "helm", "operation": "Apply", "time": T0,
                            "fieldsV1": {"f:spec": {"f:replicas": {}}}}]),
                    spec(1, "a"),
                ),
                false,
                object(
                    "6",
                    json!([{"manager": "helm", "operation": "Apply", "time": T0,
                            "fieldsV1": {"f:spec": {"f:replicas": {}}}}, controller(T1)]),
                    spec(1, "a"),
                ),
                Some(S1),
                Outcome::Unchanged,
            ),
        ];
        for (case, before, whole, after, now, want) in cases {
            let manager = if case.starts_with("helm") {
                "helm"
            } else {
                "bosun"
            };
            assert_eq!(judge(&before, whole, &after, manager, now), want, "{case}");
        }
    }

    #[test]
    fn a_whole_read_is_needed_only_for_a_change_by_the_manager_in_the_current_second() {
        let owned = owned();
        let before = object("5", json!([bosun(T0, owned)]), spec(1, "a"));
        // (newest server second, whether the object must be read whole)
        for (now, want) in [(Some(S1), false), (Some(S0), true), (None, true)] {
            assert_eq!(needs_whole(&before, "bosun", now), want, "{now:?}");
        }
        let foreign = object("5", json!([controller(T0)]), spec(1, "a"));
        assert!(
            !needs_whole(&foreign, "bosun", Some(S0)),
            "no entry: not ours yet"
        );
    }

    #[test]
    fn fields_v1_paths_find_their_values() {
        let o = json!({"spec": {"ports": [{"port": 80, "protocol": "TCP", "name": "http"}],
                                "finalizers": ["a", "b"], "args": ["x", "y"]}});
        let fields = json!({"f:spec": {
            "f:ports": {"k:{\"port\":80,\"protocol\":\"TCP\"}": {".": {}, "f:name": {}}},
            "f:finalizers": {"v:\"b\"": {}},
            "f:args": {"i:1": {}}}});
        let paths = owned_paths(&fields);
        let values: Vec<Option<&Value>> = paths.iter().map(|(p, _)| at(&o, p)).collect();
        assert!(values.iter().all(Option::is_some), "{paths:?}");
        assert!(values.contains(&Some(&json!("http"))));
        assert!(values.contains(&Some(&json!("b"))));
        assert!(values.contains(&Some(&json!("y"))));
    }
}
