//! `meshConfig` as istioctl reads it (operator/pkg/apis/validation validateMeshConfig →
//! pkg/config/mesh ApplyMeshConfigDefaults): golang/protobuf's jsonpb decodes the JSON into
//! istio.mesh.v1alpha1.MeshConfig over Istio's defaults — unknown fields ignored, fields
//! matched by JSON or proto name, scalars, enums by name or number, Duration strings, wrappers,
//! Struct/Value, maps and lists — and, if that succeeds, ValidateMeshConfig judges the result
//! ([`super::mesh_rules`]). The shape comes from mesh_schema.json (scripts/gen-values-schema).
//!
//! istioctl checks `spec.meshConfig`, and `spec.values.meshConfig` after copying
//! `spec.meshConfig` into it (so it reports a spec.meshConfig mistake twice); bosun reports a
//! finding where the user wrote the field, once.

use serde_json::{Map, Value};

use super::mesh_rules::{self, Severity};
use super::schema::{ProtoField, ProtoSchema};
use super::{Ctx, child, kind_name};
use crate::source::PathSeg;

/// Checks `spec.meshConfig` and `spec.values.meshConfig` of `spec` (at `sp`).
pub(crate) fn check(cx: &mut Ctx, spec: &Value, sp: &[PathSeg]) {
    let key = |p: &[PathSeg], k: &str| child(p, PathSeg::Key(k.to_string()));
    let spec_mesh = spec.get("meshConfig").filter(|v| !v.is_null());
    if let Some(m) = spec_mesh {
        let at = key(sp, "meshConfig");
        check_one(cx, m, &|rel| join(&at, rel));
    }
    let values_mesh = spec
        .get("values")
        .and_then(|v| v.get("meshConfig"))
        .filter(|v| !v.is_null());
    if let Some(m) = values_mesh {
        // What istioctl checks here is values.meshConfig with spec.meshConfig merged over it,
        // spec winning: its translation merges into the map it shares with the user's values,
        // so re-applying the user's values afterwards does not undo it.
        let mut seen = m.clone();
        if let (Value::Object(base), Some(Value::Object(over))) = (&mut seen, spec_mesh) {
            crate::tree::merge_from(base, over);
        }
        let spec_at = key(sp, "meshConfig");
        let values_at = key(&key(sp, "values"), "meshConfig");
        // A field spec.meshConfig sets came from there: point at it.
        check_one(cx, &seen, &|rel| match spec_mesh {
            Some(s) if resolves(s, rel) => join(&spec_at, rel),
            _ => join(&values_at, rel),
        });
    }
}

fn join(base: &[PathSeg], rel: &[PathSeg]) -> Vec<PathSeg> {
    let mut p = base.to_vec();
    p.extend_from_slice(rel);
    p
}

/// Whether every segment of `rel` names something in `v`.
fn resolves(v: &Value, rel: &[PathSeg]) -> bool {
    let mut cur = v;
    for seg in rel {
        let next = match seg {
            PathSeg::Key(k) => cur.get(k),
            PathSeg::Index(i) => cur.get(*i),
        };
        match next {
            Some(n) => cur = n,
            None => return false,
        }
    }
    true
}

/// One meshConfig: decode, then (only if that succeeded, as in istioctl) the semantic rules.
fn check_one(cx: &mut Ctx, mesh: &Value, place: &dyn Fn(&[PathSeg]) -> Vec<PathSeg>) {
    let before = cx.report.errors.len();
    let mut decode = Decode {
        cx,
        place,
        failed: false,
    };
    let schema = decode.cx.mesh;
    decode.message(mesh, &schema.root, &[]);
    if decode.failed || cx.report.errors.len() > before {
        return;
    }
    let canon = canonical(schema, mesh, &schema.root);
    for f in mesh_rules::check(&mesh_rules::effective(&canon)) {
        let at = place(&user_path(schema, mesh, &schema.root, &f.path));
        match f.severity {
            Severity::Error => cx.error(&at, f.message),
            Severity::Warning => cx.warn(&at, f.message),
        }
    }
}

/// A message's field by JSON name, or by proto name (jsonpb takes both; the JSON name wins).
fn field<'a>(def: &'a BTreeFields, k: &str) -> Option<(&'a str, &'a ProtoField)> {
    def.get_key_value(k)
        .map(|(n, f)| (n.as_str(), f))
        .or_else(|| {
            def.iter()
                .find(|(_, f)| f.proto.as_deref() == Some(k))
                .map(|(n, f)| (n.as_str(), f))
        })
}

type BTreeFields = std::collections::BTreeMap<String, ProtoField>;

/// The user's meshConfig with JSON names only, unknown fields and nulls dropped: what the
/// decoded proto holds, in the shape the rules read.
pub(crate) fn canonical(schema: &ProtoSchema, v: &Value, msg: &str) -> Value {
    let (Some(obj), Some(def)) = (v.as_object(), schema.messages.get(msg)) else {
        return v.clone();
    };
    let mut out = Map::new();
    for (k, fv) in obj {
        let Some((name, f)) = field(&def.fields, k) else {
            continue;
        };
        if fv.is_null() && f.kind != "value" {
            continue;
        }
        // Given under both names, the JSON name's value is the one jsonpb keeps.
        if name != k && obj.contains_key(name) {
            continue;
        }
        out.insert(name.to_string(), canonical_field(schema, fv, f));
    }
    Value::Object(out)
}

fn canonical_field(schema: &ProtoSchema, v: &Value, f: &ProtoField) -> Value {
    let single = |v: &Value| match (f.kind.as_str(), f.message.as_deref()) {
        ("message", Some(m)) => canonical(schema, v, m),
        _ => v.clone(),
    };
    if f.repeated {
        return match v.as_array() {
            Some(a) => Value::Array(a.iter().map(single).collect()),
            None => v.clone(),
        };
    }
    if f.kind == "map"
        && let (Some(m), Some(val)) = (v.as_object(), f.value.as_deref())
    {
        return Value::Object(
            m.iter()
                .map(|(k, x)| (k.clone(), canonical_field(schema, x, val)))
                .collect(),
        );
    }
    single(v)
}

/// A canonical path (JSON names) as written in `user` (either name); it stops at the first
/// segment the user did not write (a default), so the finding points at the nearest field.
fn user_path(schema: &ProtoSchema, user: &Value, msg: &str, canon: &[PathSeg]) -> Vec<PathSeg> {
    let mut out = Vec::new();
    let mut cur = user;
    let mut ty: Option<&ProtoField> = None;
    let mut msg = Some(msg.to_string());
    for seg in canon {
        match seg {
            PathSeg::Key(k) => {
                let in_map = ty.is_some_and(|f| f.kind == "map");
                let found = if in_map {
                    cur.get(k)
                        .map(|v| (k.clone(), v, ty.and_then(|f| f.value.as_deref())))
                } else {
                    let def = msg.as_deref().and_then(|m| schema.messages.get(m));
                    def.and_then(|d| {
                        let f = d.fields.get(k)?;
                        let written = if cur.get(k).is_some() {
                            k.clone()
                        } else {
                            f.proto.clone().filter(|p| cur.get(p).is_some())?
                        };
                        Some((written.clone(), cur.get(&written)?, Some(f)))
                    })
                };
                let Some((written, next, f)) = found else {
                    return out;
                };
                out.push(PathSeg::Key(written));
                cur = next;
                ty = f;
                msg = f.and_then(|f| f.message.clone());
                if f.is_some_and(|f| f.repeated) {
                    // Indexes come next; the element type is the field's own.
                    continue;
                }
            }
            PathSeg::Index(i) => {
                let Some(next) = cur.get(*i) else {
                    return out;
                };
                out.push(PathSeg::Index(*i));
                cur = next;
                // An element of a repeated field: no longer "repeated".
            }
        }
    }
    out
}

struct Decode<'a, 'b> {
    cx: &'a mut Ctx<'b>,
    place: &'a dyn Fn(&[PathSeg]) -> Vec<PathSeg>,
    failed: bool,
}

impl Decode<'_, '_> {
    fn error(&mut self, rel: &[PathSeg], message: String) {
        self.failed = true;
        let at = (self.place)(rel);
        self.cx.error(&at, message);
    }

    fn message(&mut self, v: &Value, msg: &str, path: &[PathSeg]) {
        let schema = self.cx.mesh;
        let Some(def) = schema.messages.get(msg) else {
            return;
        };
        let Some(obj) = v.as_object() else {
            self.error(
                path,
                format!(
                    "cannot unmarshal {} into Go value of type map[string]json.RawMessage ({msg} is an object)",
                    kind_name(v)
                ),
            );
            return;
        };
        for (k, fv) in obj {
            let p = child(path, PathSeg::Key(k.clone()));
            match field(&def.fields, k) {
                // Given under both names, jsonpb reads only the JSON name's value.
                Some((name, _)) if name != k && obj.contains_key(name) => {
                    let at = (self.place)(&p);
                    self.cx.warn(
                        &at,
                        format!("ignored: the field is also given as \"{name}\", which istioctl reads instead"),
                    );
                }
                Some((_, f)) => self.field(fv, f, &p),
                None => {
                    // istioctl drops unknown fields silently (ApplyJSON retries with
                    // AllowUnknownFields); a typo then does nothing, so say so.
                    let near = def
                        .fields
                        .iter()
                        .find(|(n, f)| {
                            n.eq_ignore_ascii_case(k)
                                || f.proto
                                    .as_deref()
                                    .is_some_and(|p| p.eq_ignore_ascii_case(k))
                        })
                        .map(|(n, _)| format!(" (did you mean \"{n}\"?)"))
                        .unwrap_or_default();
                    let at = (self.place)(&p);
                    self.cx.warn(
                        &at,
                        format!("unknown field \"{k}\" in {msg}{near}: istioctl ignores it"),
                    );
                }
            }
        }
    }

    fn field(&mut self, v: &Value, f: &ProtoField, path: &[PathSeg]) {
        // jsonpb skips a null field, except a google.protobuf.Value, which takes it.
        if v.is_null() {
            return;
        }
        if f.repeated {
            let Some(items) = v.as_array() else {
                self.error(
                    path,
                    format!(
                        "cannot unmarshal {} into Go value of type []json.RawMessage (a list)",
                        kind_name(v)
                    ),
                );
                return;
            };
            for (i, it) in items.iter().enumerate() {
                self.single(it, f, &child(path, PathSeg::Index(i)), true);
            }
            return;
        }
        if f.kind == "map" {
            let Some(m) = v.as_object() else {
                self.error(
                    path,
                    format!(
                        "cannot unmarshal {} into Go value of type map[string]json.RawMessage (a map)",
                        kind_name(v)
                    ),
                );
                return;
            };
            let val = f.value.as_deref().expect("map value type");
            for (k, it) in m {
                self.single(it, val, &child(path, PathSeg::Key(k.clone())), true);
            }
            return;
        }
        self.single(v, f, path, false);
    }

    /// One value of field type `f`. `element` is a list element or map value, where a null is
    /// decoded (as the zero value) rather than skipped.
    fn single(&mut self, v: &Value, f: &ProtoField, path: &[PathSeg], element: bool) {
        let go_type = |kind: &str| -> &'static str {
            match kind {
                "string" => "string",
                "bool" => "bool",
                "bytes" => "[]uint8",
                "int32" | "sint32" | "sfixed32" => "int32",
                "int64" | "sint64" | "sfixed64" => "int64",
                "uint32" | "fixed32" => "uint32",
                "uint64" | "fixed64" => "uint64",
                "float" => "float32",
                "double" => "float64",
                _ => "value",
            }
        };
        let mismatch = |v: &Value, ty: &str| {
            format!(
                "cannot unmarshal {} into Go value of type {ty}",
                kind_name(v)
            )
        };
        match f.kind.as_str() {
            "value" => {}
            // A null element is an empty message.
            "message" if !v.is_null() => {
                self.message(v, f.message.as_deref().unwrap_or_default(), path)
            }
            "struct" if !v.is_object() && !v.is_null() => self.error(
                path,
                format!(
                    "bad StructValue: {}",
                    mismatch(v, "map[string]json.RawMessage")
                ),
            ),
            "duration" => match v {
                Value::String(s) => {
                    if let Err(e) = gotime::parse_duration(s) {
                        self.error(path, format!("bad Duration: {e}"));
                    }
                }
                // A null list element or map value is read as the empty string.
                Value::Null if element => {
                    self.error(path, "bad Duration: time: invalid duration \"\"".into())
                }
                Value::Null => {}
                _ => self.error(path, mismatch(v, "string")),
            },
            "string" if !v.is_string() && !v.is_null() => self.error(path, mismatch(v, "string")),
            "bool" if !v.is_boolean() && !v.is_null() => self.error(path, mismatch(v, "bool")),
            "bytes" => match v {
                Value::String(s) if !is_base64(s) => {
                    self.error(path, format!("illegal base64 data in {}", go_quote(s)))
                }
                Value::String(_) | Value::Null => {}
                _ => self.error(path, mismatch(v, "[]uint8")),
            },
            "enum" => {
                let name = f.enum_name.as_deref().unwrap_or_default();
                let values = self
                    .cx
                    .mesh
                    .enums
                    .get(name)
                    .map(Vec::as_slice)
                    .unwrap_or_default();
                match v {
                    Value::String(s) if values.iter().any(|e| e == s) => {}
                    Value::String(s) => self.error(
                        path,
                        format!(
                            "unknown value {} for enum {name} (supported values: {})",
                            go_quote(s),
                            values.join(", ")
                        ),
                    ),
                    Value::Number(_) => self.integer(v, "int32", "protoreflect.EnumNumber", path),
                    Value::Null => {}
                    _ => self.error(path, mismatch(v, "protoreflect.EnumNumber")),
                }
            }
            k @ ("int32" | "sint32" | "sfixed32" | "int64" | "sint64" | "sfixed64" | "uint32"
            | "fixed32" | "uint64" | "fixed64") => {
                let ty = go_type(k);
                match v {
                    // jsonpb strips a pair of quotes and reads what is inside as JSON.
                    Value::String(s) => match serde_json::from_str::<Value>(s) {
                        Ok(n @ Value::Number(_)) => self.integer(&n, ty, ty, path),
                        Ok(Value::Null) => {}
                        Ok(other) => self.error(path, mismatch(&other, ty)),
                        Err(_) => self.error(path, quoted_number_error(s, ty)),
                    },
                    Value::Number(_) => self.integer(v, ty, ty, path),
                    Value::Null => {}
                    _ => self.error(path, mismatch(v, ty)),
                }
            }
            k @ ("float" | "double") => {
                let ty = go_type(k);
                let ok = match v {
                    Value::Number(n) => {
                        k == "double" || n.as_f64().is_some_and(|f| f.abs() <= f32::MAX as f64)
                    }
                    Value::String(s) => {
                        matches!(s.as_str(), "NaN" | "Infinity" | "-Infinity")
                            || serde_json::from_str::<Value>(s)
                                .is_ok_and(|n| n.is_number() || n.is_null())
                    }
                    Value::Null => true,
                    _ => false,
                };
                if !ok {
                    self.error(path, mismatch(v, ty));
                }
            }
            _ => {}
        }
    }

    /// A JSON number into a Go integer of kind `kind` (`ty` is how Go names the target).
    fn integer(&mut self, v: &Value, kind: &str, ty: &str, path: &[PathSeg]) {
        let (lo, hi) = match kind {
            "int32" => (i32::MIN as f64, i32::MAX as f64),
            "int64" => (i64::MIN as f64, i64::MAX as f64),
            "uint32" => (0.0, u32::MAX as f64),
            _ => (0.0, u64::MAX as f64),
        };
        let Some(f) = v.as_f64() else { return };
        if f.fract() != 0.0 || f < lo || f > hi {
            self.error(
                path,
                format!(
                    "cannot unmarshal number {} into Go value of type {ty}",
                    super::num(v)
                ),
            );
        }
    }
}

/// Why jsonpb could not read the inside of a quoted integer as JSON: Go's syntax error where
/// it is simple to match, else what was expected.
fn quoted_number_error(s: &str, ty: &str) -> String {
    match s.trim_start().chars().next() {
        None => "unexpected end of JSON input".to_string(),
        Some(c) if !"-0123456789\"[{tfn".contains(c) => {
            format!("invalid character '{c}' looking for beginning of value")
        }
        Some(_) => format!(
            "cannot unmarshal string {} into Go value of type {ty} (not a number)",
            go_quote(s)
        ),
    }
}

fn go_quote(s: &str) -> String {
    gotime::go_quote(s)
}

/// Go's encoding/json reads []byte as standard, padded base64.
fn is_base64(s: &str) -> bool {
    let body = s.trim_end_matches('=');
    s.len().is_multiple_of(4)
        && s.len() - body.len() <= 2
        && body
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'+' || c == b'/')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn mesh() -> &'static ProtoSchema {
        &crate::validate::MeshSchema::pinned().schema
    }

    fn keys(p: &[&str]) -> Vec<PathSeg> {
        p.iter()
            .map(|s| match s.parse::<usize>() {
                Ok(i) => PathSeg::Index(i),
                Err(_) => PathSeg::Key(s.to_string()),
            })
            .collect()
    }

    #[test]
    fn canonical_uses_json_names_and_drops_unknowns_and_nulls() {
        let user = json!({
            "proxy_listen_port": 1,
            "bogus": 2,
            "trustDomain": null,
            "default_config": {"discovery_address": "a:1", "proxyMetadata": {"K": "v"}},
            "serviceSettings": [{"hosts": ["h"], "extra": 1}],
        });
        assert_eq!(
            canonical(mesh(), &user, &mesh().root),
            json!({
                "proxyListenPort": 1,
                "defaultConfig": {"discoveryAddress": "a:1", "proxyMetadata": {"K": "v"}},
                "serviceSettings": [{"hosts": ["h"]}],
            })
        );
        // Both names given: the JSON name's value is kept.
        assert_eq!(
            canonical(
                mesh(),
                &json!({"access_log_file": 5, "accessLogFile": "x"}),
                &mesh().root
            ),
            json!({"accessLogFile": "x"})
        );
    }

    #[test]
    fn user_paths_follow_the_names_written_and_stop_at_defaults() {
        let user = json!({
            "default_config": {"tracing": {"zipkin": {"address": "x"}}},
            "serviceSettings": [{"hosts": ["a", "b"]}],
        });
        assert_eq!(
            user_path(
                mesh(),
                &user,
                &mesh().root,
                &keys(&["defaultConfig", "tracing", "zipkin", "address"])
            ),
            keys(&["default_config", "tracing", "zipkin", "address"])
        );
        assert_eq!(
            user_path(
                mesh(),
                &user,
                &mesh().root,
                &keys(&["serviceSettings", "0", "hosts", "1"])
            ),
            keys(&["serviceSettings", "0", "hosts", "1"])
        );
        // A default the user did not write: the nearest written parent.
        assert_eq!(
            user_path(
                mesh(),
                &user,
                &mesh().root,
                &keys(&["defaultConfig", "statusPort"])
            ),
            keys(&["default_config"])
        );
        assert_eq!(
            user_path(mesh(), &user, &mesh().root, &keys(&["proxyListenPort"])),
            Vec::<PathSeg>::new()
        );
    }

    #[test]
    fn base64_is_go_std_encoding() {
        assert!(is_base64("YWJj"));
        assert!(is_base64("YQ=="));
        assert!(!is_base64("abc"));
        assert!(!is_base64("YQ=a"));
    }
}
