//! Fields of installed objects that istiod itself writes while it runs. An installer or an
//! operator that applies them again fights istiod: each apply puts back the rendered value,
//! istiod writes its own again, and a reconciler watching its objects loops (the most common
//! bug of other Istio operators). So once another field manager owns such a field, bosun
//! neither sends it nor counts it as drift. Until then (a fresh install, or a cluster where
//! istiod never ran) it is applied as rendered, so the first apply still sets it.
//!
//! The fields, from the pinned Istio's source:
//! - `pkg/webhooks/webhookpatch.go` (`WebhookCertPatcher`): `clientConfig.caBundle` of every
//!   webhook of the MutatingWebhookConfigurations labelled with istiod's revision (its own
//!   injector and the revision tags pointing at it);
//! - `pkg/webhooks/validation/controller` (the validation webhook controller):
//!   `clientConfig.caBundle` of every webhook of its ValidatingWebhookConfigurations, and
//!   `failurePolicy`, which it switches from `Ignore` to `Fail` once it serves validation.
//!
//! Both write with updates, so the field then belongs to istiod's field manager in the object's
//! `managedFields`: that, not the value, is what is looked at. Pure: no I/O.

use serde_json::Value;

/// The fields istiod writes in one webhook of a configuration of kind `kind`, as paths below
/// the webhook.
fn runtime_fields(kind: &str) -> &'static [&'static [&'static str]] {
    match kind {
        "MutatingWebhookConfiguration" => &[&["clientConfig", "caBundle"]],
        "ValidatingWebhookConfiguration" => &[&["clientConfig", "caBundle"], &["failurePolicy"]],
        _ => &[],
    }
}

/// Whether objects of this kind have fields istiod writes.
pub fn has_runtime_fields(api_version: &str, kind: &str) -> bool {
    api_version.starts_with("admissionregistration.k8s.io/") && !runtime_fields(kind).is_empty()
}

/// The key of a list element in `fieldsV1` (`k:{"name":"…"}`): its merge key as compact JSON.
fn element_key(name: &str) -> String {
    format!("k:{{\"name\":{}}}", Value::String(name.to_string()))
}

/// Whether a `managedFields` entry owns `path` below webhook `webhook`.
fn owns(entry: &Value, webhook: &str, path: &[&str]) -> bool {
    let mut node = entry
        .get("fieldsV1")
        .and_then(|f| f.get("f:webhooks"))
        .and_then(|w| w.get(element_key(webhook)));
    for segment in path {
        node = node.and_then(|n| n.get(format!("f:{segment}")));
    }
    node.is_some()
}

/// Removes from `object` (an apply body, or a render about to be compared with the live
/// object) the fields istiod writes that a field manager other than `own_manager` owns in
/// `live` (the live object, or its metadata: only `metadata.managedFields` is read). Returns
/// their paths (`webhooks[NAME].failurePolicy`), for logs and tests.
pub fn drop_foreign_runtime_fields(
    object: &mut Value,
    live: &Value,
    own_manager: &str,
) -> Vec<String> {
    let kind = object
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let fields = runtime_fields(&kind);
    if fields.is_empty() {
        return Vec::new();
    }
    let others: Vec<&Value> = live
        .pointer("/metadata/managedFields")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|e| e.get("manager").and_then(Value::as_str) != Some(own_manager))
        .collect();
    let mut dropped = Vec::new();
    let Some(webhooks) = object.get_mut("webhooks").and_then(Value::as_array_mut) else {
        return dropped;
    };
    for webhook in webhooks {
        let name = webhook
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        for path in fields {
            if !others.iter().any(|e| owns(e, &name, path)) {
                continue;
            }
            let (last, parents) = path.split_last().expect("paths are not empty");
            let mut node = Some(&mut *webhook);
            for p in parents {
                node = node.and_then(|n| n.get_mut(*p));
            }
            if let Some(map) = node.and_then(Value::as_object_mut)
                && map.remove(*last).is_some()
            {
                dropped.push(format!("webhooks[{name}].{}", path.join(".")));
            }
        }
    }
    dropped
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn validator() -> Value {
        json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": "istio-validator-istio-system"},
            "webhooks": [{"name": "rev.validation.istio.io", "failurePolicy": "Ignore",
                "clientConfig": {"service": {"name": "istiod"}, "caBundle": "Q0E="}}]})
    }

    /// What the API server records after istiod's update of the validator.
    fn live(manager: &str) -> Value {
        json!({"metadata": {"managedFields": [
            {"manager": "bosun", "operation": "Apply", "fieldsV1": {"f:webhooks": {
                "k:{\"name\":\"rev.validation.istio.io\"}": {".": {}, "f:name": {}, "f:clientConfig": {"f:service": {}}}}}},
            {"manager": manager, "operation": "Update", "fieldsV1": {"f:webhooks": {
                "k:{\"name\":\"rev.validation.istio.io\"}": {"f:failurePolicy": {}, "f:clientConfig": {"f:caBundle": {}}}}}}
        ]}})
    }

    #[test]
    fn fields_istiod_took_over_are_dropped() {
        let mut body = validator();
        let dropped = drop_foreign_runtime_fields(&mut body, &live("pilot-discovery"), "bosun");
        assert_eq!(
            dropped,
            [
                "webhooks[rev.validation.istio.io].clientConfig.caBundle",
                "webhooks[rev.validation.istio.io].failurePolicy"
            ]
        );
        assert_eq!(
            body["webhooks"][0],
            json!({"name": "rev.validation.istio.io", "clientConfig": {"service": {"name": "istiod"}}})
        );
    }

    #[test]
    fn own_fields_and_other_kinds_are_kept() {
        let mut body = validator();
        assert!(drop_foreign_runtime_fields(&mut body, &live("bosun"), "bosun").is_empty());
        assert_eq!(body, validator());
        let mut injector = validator();
        injector["kind"] = "MutatingWebhookConfiguration".into();
        let dropped = drop_foreign_runtime_fields(&mut injector, &live("pilot-discovery"), "bosun");
        assert_eq!(
            dropped,
            ["webhooks[rev.validation.istio.io].clientConfig.caBundle"]
        );
        assert_eq!(injector["webhooks"][0]["failurePolicy"], "Ignore");
        let mut config_map = json!({"kind": "ConfigMap", "webhooks": [{"name": "rev.validation.istio.io", "failurePolicy": "x"}]});
        assert!(drop_foreign_runtime_fields(&mut config_map, &live("x"), "bosun").is_empty());
        // Nothing live owns anything yet: a first apply sends everything.
        let mut fresh = validator();
        assert!(drop_foreign_runtime_fields(&mut fresh, &json!({}), "bosun").is_empty());
    }

    #[test]
    fn element_keys_are_compact_json() {
        assert_eq!(element_key("a.b"), "k:{\"name\":\"a.b\"}");
        assert_eq!(element_key("q\"x"), "k:{\"name\":\"q\\\"x\"}");
    }
}
