//! The IstioOperator CustomResourceDefinition (`istiooperators.install.istio.io`), with an
//! OpenAPI v3 schema derived from the pinned Istio's Go type tree (`iop::IOP_SCHEMA_JSON`), so
//! that the API server checks field names and types as istioctl's own unmarshalling does.
//!
//! The schema is structural (every node has a `type`) except where the IstioOperator is open by
//! design, which is marked `x-kubernetes-preserve-unknown-fields`: `values` and
//! `unvalidatedValues` (Helm values, checked by bosun's own validation, which has the values
//! schema and gives better messages), `meshConfig`, overlay patch values and any other `any`
//! field. Quantities and int-or-string fields use `x-kubernetes-int-or-string`. Pure: no I/O.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Map, Value, json};

/// The CRD's name, group, version and kind.
pub const CRD_NAME: &str = "istiooperators.install.istio.io";
pub const GROUP: &str = "install.istio.io";
pub const VERSION: &str = "v1alpha1";
pub const KIND: &str = "IstioOperator";
pub const PLURAL: &str = "istiooperators";

/// The values `status.status` may take, as the old Istio operator defined them
/// (istio/api `operator/v1alpha1/operator.proto`, `InstallStatus.Status`).
pub const STATUS_VALUES: [&str; 6] = [
    "NONE",
    "UPDATING",
    "RECONCILING",
    "HEALTHY",
    "ERROR",
    "ACTION_REQUIRED",
];

#[derive(Deserialize)]
struct GoSchema {
    root: String,
    types: BTreeMap<String, BTreeMap<String, GoField>>,
}

#[derive(Deserialize)]
struct GoField {
    kind: String,
    #[serde(rename = "type")]
    type_name: Option<String>,
    items: Option<Box<GoField>>,
    values: Option<Box<GoField>>,
}

fn preserve_unknown() -> Value {
    json!({"x-kubernetes-preserve-unknown-fields": true})
}

fn int_or_string() -> Value {
    json!({
        "anyOf": [{"type": "integer"}, {"type": "string"}],
        "x-kubernetes-int-or-string": true
    })
}

/// Converts Go type trees to OpenAPI, remembering the struct types being expanded so that a
/// recursive type (none today, but the tree is generated) becomes an open object instead of an
/// endless schema.
struct Converter<'a> {
    types: &'a BTreeMap<String, BTreeMap<String, GoField>>,
    expanding: Vec<String>,
}

impl Converter<'_> {
    fn field(&mut self, f: &GoField) -> Value {
        match f.kind.as_str() {
            "string" => json!({"type": "string"}),
            "bool" => json!({"type": "boolean"}),
            "int32" => json!({"type": "integer", "format": "int32"}),
            "int64" => json!({"type": "integer", "format": "int64"}),
            "uint32" => {
                json!({"type": "integer", "format": "int64", "minimum": 0, "maximum": u32::MAX})
            }
            "time" => json!({"type": "string", "format": "date-time"}),
            "quantity" | "intOrString" => int_or_string(),
            "list" => match &f.items {
                Some(items) => json!({"type": "array", "items": self.field(items)}),
                None => json!({"type": "array", "items": preserve_unknown()}),
            },
            "map" => match &f.values {
                Some(values) => {
                    json!({"type": "object", "additionalProperties": self.field(values)})
                }
                None => json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}),
            },
            "struct" => match &f.type_name {
                Some(name) => self.structure(name),
                None => json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}),
            },
            // `any` and whatever a future generator adds: accepted as is, checked by bosun.
            _ => preserve_unknown(),
        }
    }

    fn structure(&mut self, name: &str) -> Value {
        let fields = match self.types.get(name) {
            Some(fields) if !fields.is_empty() && !self.expanding.iter().any(|n| n == name) => {
                fields
            }
            _ => return json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}),
        };
        self.expanding.push(name.to_string());
        let mut properties = Map::new();
        for (field_name, field) in fields {
            properties.insert(field_name.clone(), self.field(field));
        }
        self.expanding.pop();
        json!({"type": "object", "properties": properties})
    }
}

/// The `spec` schema: the IstioOperator's `spec` field of the Go type tree.
fn spec_schema() -> Value {
    let schema: GoSchema =
        serde_json::from_str(iop::IOP_SCHEMA_JSON).expect("iop_schema.json is valid");
    let mut converter = Converter {
        types: &schema.types,
        expanding: Vec::new(),
    };
    let root = schema.types.get(&schema.root).expect("root type present");
    match root.get("spec") {
        Some(spec) => converter.field(spec),
        None => json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}),
    }
}

/// The `status` schema: the old operator's `InstallStatus`, plus `observedGeneration`.
fn status_schema() -> Value {
    let status_enum = json!({"type": "string", "enum": STATUS_VALUES});
    json!({
        "type": "object",
        "properties": {
            "status": status_enum,
            "message": {"type": "string"},
            "observedGeneration": {"type": "integer", "format": "int64"},
            // Kubernetes' `metav1.Condition`, keyed by type (see `crate::status`).
            "conditions": {
                "type": "array",
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["type"],
                "items": {
                    "type": "object",
                    "required": ["type", "status", "lastTransitionTime", "reason", "message"],
                    "properties": {
                        "type": {"type": "string"},
                        "status": {"type": "string", "enum": ["True", "False", "Unknown"]},
                        "reason": {"type": "string"},
                        "message": {"type": "string"},
                        "observedGeneration": {"type": "integer", "format": "int64"},
                        "lastTransitionTime": {"type": "string", "format": "date-time"}
                    }
                }
            },
            "componentStatus": {
                "type": "object",
                "additionalProperties": {
                    "type": "object",
                    "properties": {
                        "status": status_enum,
                        "error": {"type": "string"},
                        "version": {"type": "string"}
                    }
                }
            }
        }
    })
}

/// The IstioOperator CRD object.
pub fn istio_operator_crd() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {
            "name": CRD_NAME,
            "labels": {"app.kubernetes.io/part-of": "bosun-operator"}
        },
        "spec": {
            "group": GROUP,
            "names": {
                "kind": KIND,
                "listKind": "IstioOperatorList",
                "plural": PLURAL,
                "singular": "istiooperator",
                "shortNames": ["iop", "io"]
            },
            "scope": "Namespaced",
            "versions": [{
                "name": VERSION,
                "served": true,
                "storage": true,
                "subresources": {"status": {}},
                // `kubectl get istiooperators`: NAME STATUS REVISION PROFILE READY AGE.
                "additionalPrinterColumns": [
                    {"name": "Status", "type": "string", "jsonPath": ".status.status",
                     "description": "HEALTHY, RECONCILING or ERROR"},
                    {"name": "Revision", "type": "string", "jsonPath": ".spec.revision"},
                    {"name": "Profile", "type": "string", "jsonPath": ".spec.profile"},
                    {"name": "Ready", "type": "string",
                     "jsonPath": ".status.conditions[?(@.type==\"Ready\")].status", "priority": 1},
                    {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}
                ],
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "description": "An Istio installation, reconciled by bosun's operator.",
                    "properties": {
                        "apiVersion": {"type": "string"},
                        "kind": {"type": "string"},
                        "metadata": {"type": "object"},
                        "spec": spec_schema(),
                        "status": status_schema()
                    }
                }}
            }]
        }
    })
}

/// The paths of schema nodes that break the structural rules: a node without `type` that is
/// neither open (`x-kubernetes-preserve-unknown-fields`) nor int-or-string. Empty for a
/// structural schema. (The API server checks more; this is the rule a generator can break.)
pub fn non_structural_nodes(schema: &Value) -> Vec<String> {
    fn walk(node: &Value, path: String, out: &mut Vec<String>) {
        let Some(map) = node.as_object() else {
            out.push(format!("{path} (not an object)"));
            return;
        };
        let flag = |k: &str| map.get(k).and_then(Value::as_bool) == Some(true);
        if !map.contains_key("type")
            && !flag("x-kubernetes-preserve-unknown-fields")
            && !flag("x-kubernetes-int-or-string")
        {
            out.push(path.clone());
        }
        if let Some(props) = map.get("properties").and_then(Value::as_object) {
            for (k, v) in props {
                walk(v, format!("{path}.{k}"), out);
            }
        }
        if let Some(items) = map.get("items") {
            walk(items, format!("{path}[]"), out);
        }
        if let Some(values) = map.get("additionalProperties").filter(|v| v.is_object()) {
            walk(values, format!("{path}{{}}"), out);
        }
    }
    let mut out = Vec::new();
    walk(schema, String::new(), &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Value {
        istio_operator_crd()["spec"]["versions"][0]["schema"]["openAPIV3Schema"].clone()
    }

    #[test]
    fn schema_is_structural() {
        assert_eq!(non_structural_nodes(&schema()), Vec::<String>::new());
    }

    #[test]
    fn structural_check_finds_typeless_nodes() {
        let bad = json!({"type": "object", "properties": {"a": {"description": "x"}, "b": {"type": "array", "items": {}}}});
        assert_eq!(non_structural_nodes(&bad), [".a", ".b[]"]);
    }

    #[test]
    fn open_fields_preserve_unknown_fields() {
        let spec = &schema()["properties"]["spec"]["properties"];
        for field in ["values", "unvalidatedValues", "meshConfig"] {
            assert_eq!(
                spec[field]["x-kubernetes-preserve-unknown-fields"], true,
                "{field}"
            );
        }
        let overlay = &spec["components"]["properties"]["pilot"]["properties"]["k8s"]["properties"]
            ["overlays"]["items"];
        assert_eq!(
            overlay["properties"]["patches"]["items"]["properties"]["value"]["x-kubernetes-preserve-unknown-fields"],
            true
        );
    }

    #[test]
    fn typed_fields_are_typed() {
        let spec = &schema()["properties"]["spec"]["properties"];
        assert_eq!(spec["profile"]["type"], "string");
        let k8s = &spec["components"]["properties"]["pilot"]["properties"]["k8s"]["properties"];
        assert_eq!(k8s["replicaCount"]["type"], "integer");
        assert_eq!(
            k8s["nodeSelector"]["additionalProperties"]["type"],
            "string"
        );
        assert_eq!(
            k8s["resources"]["properties"]["limits"]["additionalProperties"]["x-kubernetes-int-or-string"],
            true
        );
        let gateways = &spec["components"]["properties"]["ingressGateways"];
        assert_eq!(gateways["type"], "array");
        assert_eq!(gateways["items"]["properties"]["name"]["type"], "string");
    }

    #[test]
    fn status_has_the_old_operator_fields() {
        let status = &schema()["properties"]["status"]["properties"];
        assert_eq!(status["status"]["enum"], json!(STATUS_VALUES));
        assert_eq!(
            status["componentStatus"]["additionalProperties"]["properties"]["error"]["type"],
            "string"
        );
        assert_eq!(status["observedGeneration"]["type"], "integer");
        assert_eq!(
            status["conditions"]["x-kubernetes-list-map-keys"],
            json!(["type"])
        );
    }

    #[test]
    fn printer_columns_show_status_revision_profile_and_age() {
        let crd = istio_operator_crd();
        let columns: Vec<&str> = crd["spec"]["versions"][0]["additionalPrinterColumns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(columns, ["Status", "Revision", "Profile", "Ready", "Age"]);
    }
}
