//! Shape checks from the two generated schemas (scripts/gen-values-schema): the IstioOperator
//! as istioctl decodes it (Go's encoding/json into operator/pkg/apis types, unknown fields
//! disallowed), and `spec.values` as its jsonpb decoder reads values_types.proto.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use serde::Deserialize;
use serde_json::Value;

use super::{Ctx, child, kind_name};
use crate::source::PathSeg;

/// A Go type as reflected: `kind` is a Go kind (`string`, `int32`, `struct`, `list`, `map`, …)
/// or one of the types with their own JSON decoding (`quantity`, `intOrString`, `any`, …).
#[derive(Deserialize, Debug, Clone, PartialEq)]
pub(crate) struct GoRef {
    pub kind: String,
    #[serde(rename = "type")]
    pub ty: Option<String>,
    pub items: Option<Box<GoRef>>,
    pub values: Option<Box<GoRef>>,
}

#[derive(Deserialize)]
pub(crate) struct GoSchema {
    /// The [`digest`] of the `types.go` the schema was generated from.
    #[serde(rename = "typesDigest", default)]
    pub types_digest: Option<String>,
    pub root: String,
    pub types: BTreeMap<String, BTreeMap<String, GoRef>>,
}

/// A field of values_types.proto, keyed by its JSON name.
#[derive(Deserialize, Debug, Default, PartialEq)]
pub(crate) struct ProtoField {
    pub kind: String,
    pub message: Option<String>,
    #[serde(rename = "enum")]
    pub enum_name: Option<String>,
    pub value: Option<Box<ProtoField>>,
    #[serde(default)]
    pub repeated: bool,
    #[serde(default)]
    pub deprecated: bool,
    pub proto: Option<String>,
}

#[derive(Deserialize, Debug, PartialEq)]
pub(crate) struct ProtoMessage {
    #[serde(rename = "fullName")]
    pub full_name: String,
    pub fields: BTreeMap<String, ProtoField>,
}

#[derive(Deserialize, Debug, PartialEq)]
pub(crate) struct ProtoSchema {
    /// For a committed schema: the [`digest`] of the protos it was generated from.
    #[serde(rename = "protoDigest", default)]
    pub proto_digest: Option<String>,
    pub root: String,
    pub messages: BTreeMap<String, ProtoMessage>,
    pub enums: BTreeMap<String, Vec<String>>,
}

/// The pin's IstioOperator schema as generated: its `apis.*` types and the Kubernetes types
/// they name.
static GO: LazyLock<GoSchema> =
    LazyLock::new(|| serde_json::from_str(crate::IOP_SCHEMA_JSON).expect("iop_schema.json"));

/// The prefix of the IstioOperator's own types (operator/pkg/apis) in the schema's names.
const APIS: &str = "apis.";

/// The schema the IstioOperator itself (outside `values` and `meshConfig`) is checked
/// against: one Istio version's operator/pkg/apis types, as istioctl's decoder reads them, with
/// the Kubernetes types of the `k8s` blocks (always the pin's: see `gotypes`).
#[derive(Debug, PartialEq)]
pub struct IopSchema {
    /// The `apis.*` types, by name.
    pub(crate) apis: BTreeMap<String, BTreeMap<String, GoRef>>,
}

impl IopSchema {
    /// The pinned Istio's, generated into `iop_schema.json` by scripts/gen-values-schema.
    pub fn pinned() -> &'static IopSchema {
        static PINNED: LazyLock<IopSchema> = LazyLock::new(|| IopSchema {
            apis: GO
                .types
                .iter()
                .filter(|(name, _)| name.starts_with(APIS))
                .map(|(name, fields)| (name.clone(), fields.clone()))
                .collect(),
        });
        &PINNED
    }

    /// Whether `text` is the pin's own `operator/pkg/apis/types.go`, the one
    /// [`IopSchema::pinned`] was generated from: a package that carries it needs no parse (the
    /// parse is on a command's critical path; a digest costs less than a tenth of it).
    pub fn is_pinned_types(text: &str) -> bool {
        let digest = digest(&[("operator/pkg/apis/types.go", text)]);
        GO.types_digest.as_deref() == Some(digest.as_str())
    }

    /// Another version's, read from its `operator/pkg/apis/types.go` (`gotypes`).
    pub fn from_go_types(text: &str) -> Result<IopSchema, super::gotypes::GoTypesError> {
        let known = |name: &str| GO.types.contains_key(name);
        Ok(IopSchema {
            apis: super::gotypes::read(text, &known)?,
        })
    }

    /// Whether this is the pin's schema (a package whose types.go declares the same fields).
    pub fn is_pinned(&self) -> bool {
        self == IopSchema::pinned()
    }

    /// The fields of struct type `ty`.
    pub(crate) fn fields(&self, ty: &str) -> Option<&BTreeMap<String, GoRef>> {
        if ty.starts_with(APIS) {
            self.apis.get(ty)
        } else {
            GO.types.get(ty)
        }
    }
}

/// The schema `spec.values` is checked against: one Istio version's values_types.proto.
#[derive(Debug, PartialEq)]
pub struct ValuesSchema {
    pub(crate) schema: ProtoSchema,
}

impl ValuesSchema {
    /// The pinned Istio's, generated into `values_schema.json` by scripts/gen-values-schema.
    pub fn pinned() -> &'static ValuesSchema {
        static PINNED: LazyLock<ValuesSchema> = LazyLock::new(|| ValuesSchema {
            schema: serde_json::from_str(include_str!("../values_schema.json"))
                .expect("values_schema.json"),
        });
        &PINNED
    }

    /// Whether `text` is the pin's own proto, the one [`ValuesSchema::pinned`] was generated
    /// from: a package that carries it needs no parse.
    pub fn is_pinned_proto(text: &str) -> bool {
        let digest = digest(&[("operator/pkg/apis/values_types.proto", text)]);
        ValuesSchema::pinned().schema.proto_digest.as_deref() == Some(digest.as_str())
    }

    /// Another version's, read from its `operator/pkg/apis/values_types.proto`.
    pub fn from_proto(text: &str) -> Result<ValuesSchema, super::proto::ProtoError> {
        Ok(ValuesSchema {
            schema: super::proto::values_schema(text)?,
        })
    }
}

/// The schema `meshConfig` is checked against: one Istio version's MeshConfig (istio.io/api's
/// `mesh/v1alpha1` protos at the version that Istio requires).
#[derive(Debug, PartialEq)]
pub struct MeshSchema {
    pub(crate) schema: ProtoSchema,
}

impl MeshSchema {
    /// The pinned Istio's, generated into `mesh_schema.json` by scripts/gen-values-schema.
    pub fn pinned() -> &'static MeshSchema {
        static PINNED: LazyLock<MeshSchema> = LazyLock::new(|| MeshSchema {
            schema: serde_json::from_str(include_str!("../mesh_schema.json"))
                .expect("mesh_schema.json"),
        });
        &PINNED
    }

    /// Whether `files` (each proto's path in istio.io/api and its text) are the pin's own, those
    /// [`MeshSchema::pinned`] was generated from: a package that carries them needs no parse.
    pub fn are_pinned_protos(files: &[(&str, &str)]) -> bool {
        MeshSchema::pinned().schema.proto_digest.as_deref() == Some(digest(files).as_str())
    }

    /// Another version's, read from its `mesh/v1alpha1/config.proto` and the protos it imports
    /// (`texts`, in any order; the well-known `google/…` ones are not needed).
    pub fn from_protos(texts: &[&str]) -> Result<MeshSchema, super::proto::ProtoError> {
        Ok(MeshSchema {
            schema: super::proto::mesh_schema(texts)?,
        })
    }
}

/// The digest of protos, each `(path, text)`: in path order, every path and text followed by a
/// NUL, the bytes taken as little-endian 64-bit words (the last padded with zeros) and folded
/// FNV-1a style, a word at a time, then the length. How a package's protos are recognised as
/// the pin's without parsing them (the parse costs about 2 ms a command, a seventh of a
/// `manifest generate`; a word at a time, this costs a few hundredths of one).
/// scripts/gen-values-schema writes the same digest into the committed schemas
/// (`protoDigest`). Not a security check: a package that matched by accident would be
/// validated with the pin's schema, which is what a package without protos gets anyway.
pub fn digest(files: &[(&str, &str)]) -> String {
    let mut sorted = files.to_vec();
    sorted.sort();
    let mut bytes = Vec::new();
    for (path, text) in sorted {
        bytes.extend_from_slice(path.as_bytes());
        bytes.push(0);
        bytes.extend_from_slice(text.as_bytes());
        bytes.push(0);
    }
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for chunk in bytes.chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        h = (h ^ u64::from_le_bytes(word)).wrapping_mul(PRIME);
    }
    h = (h ^ bytes.len() as u64).wrapping_mul(PRIME);
    format!("{h:016x}")
}

/// Hooks for fields whose JSON the generic walk does not judge (checked elsewhere or not at
/// all), by Go struct type and field.
fn skipped(ty: &str, field: &str) -> bool {
    // `values` has its own (proto) schema; meshConfig is Istio's MeshConfig proto, checked by
    // the `mesh` module; unvalidatedValues is exempt by definition.
    ty == "apis.IstioOperatorSpec" && matches!(field, "values" | "meshConfig" | "unvalidatedValues")
}

fn int_range(kind: &str) -> Option<(f64, f64)> {
    Some(match kind {
        "int8" => (i8::MIN as f64, i8::MAX as f64),
        "int16" => (i16::MIN as f64, i16::MAX as f64),
        "int32" => (i32::MIN as f64, i32::MAX as f64),
        "int" | "int64" => (i64::MIN as f64, i64::MAX as f64),
        "uint8" => (0.0, u8::MAX as f64),
        "uint16" => (0.0, u16::MAX as f64),
        "uint32" => (0.0, u32::MAX as f64),
        "uint" | "uint64" => (0.0, u64::MAX as f64),
        _ => return None,
    })
}

/// Checks `v` against the Go type `r` as encoding/json would decode it.
pub(crate) fn check_go(cx: &mut Ctx, v: &Value, r: &GoRef, path: &[PathSeg]) {
    // encoding/json leaves any Go value alone on a JSON null.
    if v.is_null() {
        return;
    }
    let kind = r.kind.as_str();
    let want = |cx: &mut Ctx, what: &str| {
        cx.error(
            path,
            format!(
                "cannot unmarshal {} into a field of type {what}",
                kind_name(v)
            ),
        )
    };
    match kind {
        "any" => {}
        "struct" => {
            let ty = r.ty.as_deref().unwrap_or_default();
            check_struct(cx, v, ty, path);
        }
        "list" => match v.as_array() {
            Some(items) => {
                let item = r.items.as_deref().expect("list items");
                for (i, it) in items.iter().enumerate() {
                    check_go(cx, it, item, &child(path, PathSeg::Index(i)));
                }
            }
            None => want(cx, "list"),
        },
        "map" => match v.as_object() {
            Some(m) => {
                let val = r.values.as_deref().expect("map values");
                for (k, it) in m {
                    check_go(cx, it, val, &child(path, PathSeg::Key(k.clone())));
                }
            }
            None => want(cx, "map"),
        },
        "string" | "time" | "duration" if !v.is_string() => want(cx, "string"),
        "bytes" if !v.is_string() => want(cx, "[]byte (a base64 string)"),
        "bool" if !v.is_boolean() => want(cx, "bool"),
        "float32" | "float64" if !v.is_number() => want(cx, kind),
        "quantity" => match v {
            Value::String(s) => super::k8s::check_quantity(cx, s.trim(), path),
            Value::Number(n) => super::k8s::check_quantity(cx, &n.to_string(), path),
            _ => want(cx, "resource.Quantity (a string or number)"),
        },
        "intOrString" => match v {
            Value::String(_) => {}
            Value::Number(_) => check_int(cx, v, "int32", path),
            _ => want(cx, "intstr.IntOrString (an integer or string)"),
        },
        k if int_range(k).is_some() => check_int(cx, v, k, path),
        _ => {}
    }
}

/// An integer of Go kind `kind`: a JSON number, integral, in range.
fn check_int(cx: &mut Ctx, v: &Value, kind: &str, path: &[PathSeg]) {
    let (lo, hi) = int_range(kind).expect("integer kind");
    let Some(f) = v.as_f64() else {
        cx.error(
            path,
            format!(
                "cannot unmarshal {} into a field of type {kind}",
                kind_name(v)
            ),
        );
        return;
    };
    if f.fract() != 0.0 || f < lo || f > hi {
        cx.error(
            path,
            format!(
                "cannot unmarshal number {} into a field of type {kind}",
                super::num(v)
            ),
        );
    }
}

/// A Go struct: every key must name a field (encoding/json matches names case-insensitively,
/// but istioctl reads the merged tree by exact names, so a differently cased key is ignored
/// there: it is reported as unknown, with the field it resembles).
pub(crate) fn check_struct(cx: &mut Ctx, v: &Value, ty: &str, path: &[PathSeg]) {
    let Some(m) = v.as_object() else {
        cx.error(
            path,
            format!(
                "cannot unmarshal {} into a field of type object",
                kind_name(v)
            ),
        );
        return;
    };
    let iop = cx.iop;
    let Some(fields) = iop.fields(ty) else {
        return;
    };
    for (k, fv) in m {
        let p = child(path, PathSeg::Key(k.clone()));
        match fields.get(k.as_str()) {
            Some(r) => {
                if !skipped(ty, k) {
                    check_go(cx, fv, r, &p);
                }
            }
            None => {
                let near = fields.keys().find(|f| f.eq_ignore_ascii_case(k));
                match near {
                    Some(f) => {
                        cx.error(&p, format!("unknown field \"{k}\" (did you mean \"{f}\"?)"))
                    }
                    None => cx.error(&p, format!("unknown field \"{k}\"")),
                }
            }
        }
    }
}

/// The root IstioOperator type.
pub(crate) fn root_type() -> &'static str {
    &GO.root
}

/// Checks `spec.values` against values_types.proto as jsonpb reads it.
pub(crate) fn check_values(cx: &mut Ctx, v: &Value, path: &[PathSeg]) {
    let root = cx.values.root.as_str();
    check_message(cx, v, root, path);
}

fn check_message(cx: &mut Ctx, v: &Value, msg: &str, path: &[PathSeg]) {
    let Some(m) = v.as_object() else {
        cx.error(
            path,
            format!("cannot unmarshal {} into a message", kind_name(v)),
        );
        return;
    };
    let values = cx.values;
    let Some(def) = values.messages.get(msg) else {
        return;
    };
    for (k, fv) in m {
        let p = child(path, PathSeg::Key(k.clone()));
        // jsonpb matches a field by its proto name or its JSON name.
        let field = def
            .fields
            .get(k.as_str())
            .or_else(|| def.fields.values().find(|f| f.proto.as_deref() == Some(k)));
        let Some(f) = field else {
            cx.error(&p, format!("unknown field \"{k}\" in {}", def.full_name));
            continue;
        };
        if f.deprecated && !fv.is_null() {
            cx.warn(
                &p,
                "is deprecated (so marked in Istio's values API)".to_string(),
            );
        }
        check_field(cx, fv, f, &p);
    }
}

fn check_field(cx: &mut Ctx, v: &Value, f: &ProtoField, path: &[PathSeg]) {
    // jsonpb skips a null for every field (google.protobuf.Value takes it as its null).
    if v.is_null() {
        return;
    }
    if f.repeated {
        let Some(items) = v.as_array() else {
            cx.error(
                path,
                format!("cannot unmarshal {} into a repeated field", kind_name(v)),
            );
            return;
        };
        for (i, it) in items.iter().enumerate() {
            let p = child(path, PathSeg::Index(i));
            // A null list element is decoded as the element type's zero or rejected by jsonpb;
            // only messages and Value take it.
            check_single(cx, it, f, &p);
        }
        return;
    }
    check_single(cx, v, f, path);
}

fn check_single(cx: &mut Ctx, v: &Value, f: &ProtoField, path: &[PathSeg]) {
    let want = |cx: &mut Ctx, what: &str| {
        cx.error(
            path,
            format!(
                "cannot unmarshal {} into a field of type {what}",
                kind_name(v)
            ),
        )
    };
    match f.kind.as_str() {
        "value" | "any" => {}
        "message" => {
            if v.is_null() {
                return;
            }
            check_message(cx, v, f.message.as_deref().unwrap_or_default(), path)
        }
        "struct" if !v.is_object() => want(cx, "google.protobuf.Struct (an object)"),
        "list" if !v.is_array() => want(cx, "google.protobuf.ListValue (a list)"),
        "map" => match v.as_object() {
            Some(m) => {
                let val = f.value.as_deref().expect("map value");
                for (k, it) in m {
                    check_single(cx, it, val, &child(path, PathSeg::Key(k.clone())));
                }
            }
            None => want(cx, "map"),
        },
        "bool" if !v.is_boolean() => want(cx, "bool"),
        "string" if !v.is_string() => want(cx, "string"),
        "bytes" if !v.is_string() => want(cx, "bytes (a base64 string)"),
        "duration" => match v.as_str() {
            Some(s) if super::k8s::go_duration(s) => {}
            Some(s) => cx.error(
                path,
                format!("bad Duration: time: invalid duration \"{s}\""),
            ),
            None => want(cx, "google.protobuf.Duration (a string such as \"1s\")"),
        },
        "float" | "double" => {
            let ok = v.is_number()
                || v.as_str().is_some_and(|s| {
                    s.parse::<f64>().is_ok() || matches!(s, "NaN" | "Infinity" | "-Infinity")
                });
            if !ok {
                want(cx, &f.kind)
            }
        }
        "enum" => {
            let name = f.enum_name.as_deref().unwrap_or_default();
            let values = cx
                .values
                .enums
                .get(name)
                .map(Vec::as_slice)
                .unwrap_or_default();
            match v {
                Value::String(s) if values.iter().any(|e| e == s) => {}
                Value::String(s) => cx.error(
                    path,
                    format!(
                        "unknown value \"{s}\" for enum istio.operator.v1alpha1.{name} (supported values: {})",
                        values.join(", ")
                    ),
                ),
                Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) => {}
                _ => want(cx, &format!("enum {name}")),
            }
        }
        "intOrString" => match v {
            Value::String(_) => {}
            Value::Number(_) => check_int(cx, v, "int32", path),
            _ => want(cx, "IntOrString (an integer or string)"),
        },
        k if int_range(k).is_some() => {
            // jsonpb takes integers quoted too.
            if let Some(s) = v.as_str() {
                match s.parse::<f64>() {
                    Ok(n) => check_int(cx, &serde_json::json!(n), k, path),
                    Err(_) => want(cx, k),
                }
            } else {
                check_int(cx, v, k, path)
            }
        }
        _ => {}
    }
}
