//! When a reconcile may leave an object alone, so that a reconcile writes only what changed and
//! one with nothing to do sends no write requests: the object renders as it did when this
//! process last applied it successfully for the IstioOperator (same [`fingerprint`]), and the
//! live object still has every field of its rendered form ([`satisfied`]). Both are needed: a
//! render that dropped a field looks satisfied but must be applied, since server-side apply
//! removes the fields it no longer sets. When in doubt (a value the server normalised, say
//! `1000m` to `1`) the answer is "not satisfied", which only costs the apply that would have
//! happened anyway. Pure: no I/O.

use std::hash::{Hash, Hasher};

use serde_json::Value;

/// A fingerprint of rendered objects (stable within one process).
pub fn fingerprint(objects: &[&Value]) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for o in objects {
        o.to_string().hash(&mut hasher);
    }
    hasher.finish()
}

/// Whether a rendered value the live object lacks is one the server drops: Kubernetes' Go
/// types omit empty strings, `false`, zero, and empty maps and lists (`omitempty`), so their
/// absence is no difference.
fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Object(m) => m.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::String(s) => s.is_empty(),
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
    }
}

/// The path of the first field `desired` sets that `live` does not hold with that value
/// (other fields of `live` are the server's defaults or other managers' and do not matter).
fn difference(desired: &Value, live: Option<&Value>, path: &str) -> Option<String> {
    let Some(live) = live else {
        return (!is_empty(desired)).then(|| path.to_string());
    };
    match (desired, live) {
        (Value::Null, _) => None,
        (Value::Object(d), Value::Object(l)) => d
            .iter()
            .find_map(|(k, v)| difference(v, l.get(k), &format!("{path}.{k}"))),
        (Value::Object(d), _) if d.is_empty() => None,
        (Value::Array(d), Value::Array(l)) if d.len() == l.len() => d
            .iter()
            .zip(l)
            .enumerate()
            .find_map(|(i, (d, l))| difference(d, Some(l), &format!("{path}[{i}]"))),
        (Value::Number(d), Value::Number(l)) if d.as_f64() == l.as_f64() => None,
        (Value::String(d), Value::String(l)) if same_quantity(d, l) => None,
        (d, l) if d == l => None,
        _ => Some(path.to_string()),
    }
}

/// The value of a Kubernetes quantity (`2048Mi`, `0.5`, `500m`, `1e3`), or `None` when `text`
/// is not one.
fn quantity_value(text: &str) -> Option<f64> {
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '+' || c == '-'))
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(split);
    let number: f64 = number.parse().ok()?;
    let scale = match suffix {
        "" => 1.0,
        "n" => 1e-9,
        "u" => 1e-6,
        "m" => 1e-3,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "E" => 1e18,
        "Ki" => 1024f64,
        "Mi" => 1024f64.powi(2),
        "Gi" => 1024f64.powi(3),
        "Ti" => 1024f64.powi(4),
        "Pi" => 1024f64.powi(5),
        "Ei" => 1024f64.powi(6),
        _ => {
            let exponent: i32 = suffix.strip_prefix(['e', 'E'])?.parse().ok()?;
            10f64.powi(exponent)
        }
    };
    Some(number * scale)
}

/// Whether two strings are the same quantity written differently: the API server stores
/// quantities in canonical form (`2048Mi` comes back as `2Gi`, `1000m` as `1`).
fn same_quantity(a: &str, b: &str) -> bool {
    match (quantity_value(a), quantity_value(b)) {
        (Some(x), Some(y)) => (x - y).abs() <= f64::EPSILON * x.abs().max(y.abs()) * 4.0,
        _ => false,
    }
}

/// Where the live object does not satisfy the rendered one (`None`: it does). The rendered
/// `metadata.namespace` (a cluster-scoped object's is dropped by the apply) and `status` (the
/// server ignores it on apply) are not compared.
pub fn unsatisfied_field(desired: &Value, live: &Value) -> Option<String> {
    let mut desired = desired.clone();
    if let Some(map) = desired.as_object_mut() {
        map.remove("status");
        if let Some(meta) = map.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.remove("namespace");
        }
    }
    difference(&desired, Some(live), "")
}

/// Whether the live object satisfies the rendered one.
pub fn satisfied(desired: &Value, live: &Value) -> bool {
    unsatisfied_field(desired, live).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_and_other_fields_do_not_matter() {
        let desired = json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "s", "namespace": "n", "labels": {"a": "1"}, "annotations": {}},
            "spec": {"ports": [{"port": 80, "name": "http", "appProtocol": ""}], "publishNotReadyAddresses": false},
            "status": {}});
        let live = json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "s", "namespace": "n", "labels": {"a": "1", "b": "2"}, "uid": "u"},
            "spec": {"ports": [{"port": 80.0, "name": "http", "protocol": "TCP"}], "clusterIP": "10.0.0.1"}});
        assert!(satisfied(&desired, &live));
    }

    #[test]
    fn changed_missing_or_extra_items_are_not_satisfied() {
        let desired = json!({"metadata": {"name": "c"}, "data": {"mesh": "ours"}, "list": [1, 2]});
        let changed =
            json!({"metadata": {"name": "c"}, "data": {"mesh": "theirs"}, "list": [1, 2]});
        let missing = json!({"metadata": {"name": "c"}, "list": [1, 2]});
        let longer =
            json!({"metadata": {"name": "c"}, "data": {"mesh": "ours"}, "list": [1, 2, 3]});
        assert_eq!(
            unsatisfied_field(&desired, &changed).as_deref(),
            Some(".data.mesh")
        );
        assert_eq!(
            unsatisfied_field(&desired, &missing).as_deref(),
            Some(".data")
        );
        assert_eq!(
            unsatisfied_field(&desired, &longer).as_deref(),
            Some(".list")
        );
    }

    #[test]
    fn quantities_compare_by_value() {
        for (a, b) in [
            ("2048Mi", "2Gi"),
            ("1000m", "1"),
            ("0.5", "500m"),
            ("1e3", "1k"),
        ] {
            assert!(same_quantity(a, b), "{a} {b}");
        }
        for (a, b) in [
            ("2048Mi", "2G"),
            ("100m", "1"),
            ("istiod", "istiod"),
            ("1x", "1x"),
        ] {
            assert!(!same_quantity(a, b), "{a} {b}");
        }
        let desired = json!({"resources": {"requests": {"memory": "2048Mi", "cpu": "500m"}}});
        let live = json!({"resources": {"requests": {"memory": "2Gi", "cpu": "500m"}}});
        assert!(satisfied(&desired, &live));
    }

    #[test]
    fn cluster_scoped_objects_ignore_the_rendered_namespace() {
        let desired = json!({"kind": "ClusterRole", "metadata": {"name": "r", "namespace": "x"}});
        let live = json!({"kind": "ClusterRole", "metadata": {"name": "r"}});
        assert!(satisfied(&desired, &live));
    }

    #[test]
    fn fingerprints_differ_with_content() {
        let a = json!({"a": 1});
        let b = json!({"a": 2});
        assert_eq!(fingerprint(&[&a, &b]), fingerprint(&[&a, &b]));
        assert_ne!(fingerprint(&[&a, &b]), fingerprint(&[&b, &a]));
    }
}
