//! The `values` schema of any Istio version, read from its `operator/pkg/apis/values_types.proto`
//! (the file istioctl's values decoder is generated from): the same shape
//! `scripts/gen-values-schema` writes into `values_schema.json` for the pin, so an install
//! package that carries its proto is validated against its own release's values, not the pin's.
//! Likewise its MeshConfig schema ([`mesh_schema`]), from istio.io/api's `mesh/v1alpha1`
//! protos and those they import, as `mesh_schema.json` is made for the pin.
//!
//! Only what the schema needs is read: messages (nested ones as `Outer.Inner`), their fields
//! (type, `repeated`, `map<K, V>`, the JSON name protoc gives or `json_name` sets, `deprecated`)
//! and enums' value names. Types resolve as protoc resolves them, innermost scope first.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use super::comments::strip_comments;
use super::schema::{ProtoField, ProtoMessage, ProtoSchema};

/// Protos that cannot be read as a schema (the caller names the files).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ProtoError {
    #[error("no package statement")]
    NoPackage,
    #[error("cannot read field {field:?} in message {message}")]
    Field { message: String, field: String },
    #[error("unknown type {ty} in message {message}")]
    UnknownType { message: String, ty: String },
    #[error("unbalanced braces")]
    Unbalanced,
    #[error("no message {0}")]
    NoRoot(&'static str),
}

/// The message `spec.values` decodes into.
const ROOT: &str = "Values";

const SCALARS: &[&str] = &[
    "bool", "string", "bytes", "int32", "int64", "uint32", "uint64", "sint32", "sint64", "fixed32",
    "fixed64", "sfixed32", "sfixed64", "float", "double",
];

/// Well-known types keep their own kind (see `schema::check_single`); the wrappers decode as
/// their scalar.
fn well_known(ty: &str) -> Option<&'static str> {
    Some(match ty {
        "google.protobuf.Value" => "value",
        "google.protobuf.Struct" => "struct",
        "google.protobuf.ListValue" => "list",
        "google.protobuf.Any" => "any",
        "google.protobuf.Duration" => "duration",
        "google.protobuf.Timestamp" => "timestamp",
        "google.protobuf.BoolValue" => "bool",
        "google.protobuf.StringValue" => "string",
        "google.protobuf.BytesValue" => "bytes",
        "google.protobuf.Int32Value" => "int32",
        "google.protobuf.Int64Value" => "int64",
        "google.protobuf.UInt32Value" => "uint32",
        "google.protobuf.UInt64Value" => "uint64",
        "google.protobuf.FloatValue" => "float",
        "google.protobuf.DoubleValue" => "double",
        _ => return None,
    })
}

/// Messages istio decodes by hand (operator/pkg/apis/value_types_json.go), and their kind.
fn custom(ty: &str) -> Option<&'static str> {
    (ty == "IntOrString").then_some("intOrString")
}

static FIELD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(repeated\s+)?(map\s*<\s*(\w+)\s*,\s*([\w.]+)\s*>|[\w.]+)\s+(\w+)\s*=\s*\d+\s*(\[(.*)\])?$",
    )
    .expect("the field pattern")
});
static ENUM_VALUE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\w+)\s*=\s*-?\d+").expect("the enum value pattern"));
static JSON_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"json_name\s*=\s*"([^"]*)""#).expect("the json_name pattern"));
static DEPRECATED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"deprecated\s*=\s*true").expect("the deprecated pattern"));

/// One field as written.
struct RawField {
    proto: String,
    json: String,
    ty: String,
    map_key: Option<String>,
    repeated: bool,
    deprecated: bool,
}

/// The package a proto's `package` statement names.
fn package_of(text: &str) -> Result<&str, ProtoError> {
    text.lines()
        .find_map(|l| {
            let rest = l.strip_prefix("package")?;
            let name = rest.trim().strip_suffix(';')?.trim();
            (rest.starts_with(char::is_whitespace) && !name.is_empty()).then_some(name)
        })
        .ok_or(ProtoError::NoPackage)
}

/// The message `meshConfig` decodes into.
const MESH_ROOT: &str = "istio.mesh.v1alpha1.MeshConfig";

/// The MeshConfig schema `texts` describe: istio.io/api's `mesh/v1alpha1/config.proto` and the
/// protos it imports (the well-known `google/…` ones aside), in any order. Names are
/// package-qualified, as in `mesh_schema.json`.
pub(crate) fn mesh_schema(texts: &[&str]) -> Result<ProtoSchema, ProtoError> {
    let (mut messages, mut enums) = (Messages::new(), BTreeMap::new());
    for text in texts {
        let package = package_of(text)?;
        let (m, e) = parse(&strip_comments(text).0)?;
        messages.extend(m.into_iter().map(|(k, v)| (format!("{package}.{k}"), v)));
        enums.extend(e.into_iter().map(|(k, v)| (format!("{package}.{k}"), v)));
    }
    schema_of(&messages, enums, MESH_ROOT, str::to_string)
}

/// One field's schema entry: its type resolved in `scope`, a map or list as written.
fn field_entry(
    f: &RawField,
    scope: &str,
    messages: &Messages,
    enums: &BTreeMap<String, Vec<String>>,
) -> Result<ProtoField, ProtoError> {
    let mut entry = resolve(&f.ty, scope, messages, enums)?;
    if f.map_key.is_some() {
        entry = ProtoField {
            kind: "map".into(),
            value: Some(Box::new(entry)),
            ..ProtoField::default()
        };
    }
    entry.repeated = f.repeated;
    entry.deprecated = f.deprecated;
    entry.proto = Some(f.proto.clone());
    Ok(entry)
}

/// The values schema `text` (a `values_types.proto`) describes.
pub(crate) fn values_schema(text: &str) -> Result<ProtoSchema, ProtoError> {
    let package = package_of(text)?;
    let (messages, enums) = parse(&strip_comments(text).0)?;
    schema_of(&messages, enums, ROOT, |full| format!("{package}.{full}"))
}

/// The schema of `messages` (those istio decodes by hand left out), each field resolved, whose
/// root message is `root`; `full_name` gives a message's protobuf name from its key.
fn schema_of(
    messages: &Messages,
    enums: BTreeMap<String, Vec<String>>,
    root: &'static str,
    full_name: impl Fn(&str) -> String,
) -> Result<ProtoSchema, ProtoError> {
    let mut out = BTreeMap::new();
    for (full, fields) in messages {
        if custom(full).is_some() {
            continue;
        }
        let mut by_json = BTreeMap::new();
        for f in fields {
            by_json.insert(f.json.clone(), field_entry(f, full, messages, &enums)?);
        }
        out.insert(
            full.clone(),
            ProtoMessage {
                full_name: full_name(full),
                fields: by_json,
            },
        );
    }
    if !out.contains_key(root) {
        return Err(ProtoError::NoRoot(root));
    }
    Ok(ProtoSchema {
        proto_digest: None,
        root: root.into(),
        messages: out,
        enums,
    })
}

type Messages = BTreeMap<String, Vec<RawField>>;

/// Messages (their fields in order) and enums (their value names) by full name.
fn parse(text: &str) -> Result<(Messages, BTreeMap<String, Vec<String>>), ProtoError> {
    let (mut messages, mut enums) = (Messages::new(), BTreeMap::new());
    // Scopes: (kind, full name); a oneof's is its message's.
    let mut stack: Vec<(&str, String)> = Vec::new();
    let mut start = 0;
    let mut tokens = Vec::new();
    for (i, c) in text.char_indices() {
        if matches!(c, '{' | '}' | ';') {
            tokens.push(&text[start..i]);
            tokens.push(&text[i..i + 1]);
            start = i + 1;
        }
    }
    tokens.push(&text[start..]);
    for token in tokens {
        let token = token.trim();
        match token {
            "" | "{" | ";" => continue,
            "}" => {
                stack.pop().ok_or(ProtoError::Unbalanced)?;
                continue;
            }
            _ => {}
        }
        let words: Vec<&str> = token.split_whitespace().collect();
        if let [kind @ ("message" | "enum" | "oneof"), name] = words[..] {
            if kind == "oneof" {
                let owner = stack.last().ok_or(ProtoError::Unbalanced)?.1.clone();
                stack.push(("oneof", owner));
                continue;
            }
            let full = match stack.last() {
                Some((_, outer)) => format!("{outer}.{name}"),
                None => name.to_string(),
            };
            if kind == "message" {
                messages.insert(full.clone(), Vec::new());
            } else {
                enums.insert(full.clone(), Vec::new());
            }
            stack.push((kind, full));
            continue;
        }
        // proto3 `optional` changes presence only, which JSON decoding does not see.
        let token = match token.strip_prefix("optional") {
            Some(rest) if rest.starts_with(char::is_whitespace) => rest.trim_start(),
            _ => token,
        };
        let statement = |word: &str| {
            token.strip_prefix(word).is_some_and(|rest| {
                rest.is_empty() || !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_')
            })
        };
        let Some((kind, owner)) = stack.last() else {
            continue;
        };
        if ["syntax", "package", "import", "option", "reserved"]
            .iter()
            .any(|w| statement(w))
        {
            continue;
        }
        if *kind == "enum" {
            if let Some(m) = ENUM_VALUE.captures(token) {
                enums
                    .get_mut(owner)
                    .expect("its enum")
                    .push(m[1].to_string());
            }
            continue;
        }
        let normalized = words.join(" ");
        let normalized = match normalized.strip_prefix("optional ") {
            Some(rest) => rest.to_string(),
            None => normalized,
        };
        let m = FIELD
            .captures(&normalized)
            .ok_or_else(|| ProtoError::Field {
                message: owner.clone(),
                field: token.to_string(),
            })?;
        let options = m.get(7).map_or("", |o| o.as_str());
        let proto = m[5].to_string();
        let map_key = m.get(3).map(|k| k.as_str().to_string());
        let ty = match m.get(4) {
            Some(value) => value.as_str(),
            None => m.get(2).expect("the type").as_str(),
        };
        messages
            .get_mut(owner)
            .expect("its message")
            .push(RawField {
                json: JSON_NAME
                    .captures(options)
                    .map_or_else(|| json_name(&proto), |j| j[1].to_string()),
                proto,
                ty: ty.to_string(),
                map_key,
                repeated: m.get(1).is_some(),
                deprecated: DEPRECATED.is_match(options),
            });
    }
    if !stack.is_empty() {
        return Err(ProtoError::Unbalanced);
    }
    Ok((messages, enums))
}

/// protoc's default JSON name: underscores dropped, the letter after each one capitalised.
fn json_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// A field's type as protoc resolves it: innermost enclosing scope first (a leading dot names
/// it from the root).
fn resolve(
    ty: &str,
    scope: &str,
    messages: &Messages,
    enums: &BTreeMap<String, Vec<String>>,
) -> Result<ProtoField, ProtoError> {
    let field = |kind: &str| ProtoField {
        kind: kind.into(),
        ..ProtoField::default()
    };
    let (ty, parts): (&str, Vec<&str>) = match ty.strip_prefix('.') {
        Some(absolute) => (absolute, Vec::new()),
        None => (ty, scope.split('.').collect()),
    };
    if SCALARS.contains(&ty) {
        return Ok(field(ty));
    }
    if let Some(kind) = well_known(ty) {
        return Ok(field(kind));
    }
    for i in (0..=parts.len()).rev() {
        let mut candidate = parts[..i].join(".");
        if !candidate.is_empty() {
            candidate.push('.');
        }
        candidate.push_str(ty);
        if let Some(kind) = custom(&candidate) {
            return Ok(field(kind));
        }
        if messages.contains_key(&candidate) {
            return Ok(ProtoField {
                message: Some(candidate),
                ..field("message")
            });
        }
        if enums.contains_key(&candidate) {
            return Ok(ProtoField {
                enum_name: Some(candidate),
                ..field("enum")
            });
        }
    }
    Err(ProtoError::UnknownType {
        message: scope.to_string(),
        ty: ty.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::super::pinned_source::{gomod_cache_and_pin, pinned_module_file, read_or_skip};
    use super::*;

    const SMALL: &str = r#"
syntax = "proto3";
package istio.operator.v1alpha1;
import "google/protobuf/wrappers.proto";
option go_package = "istio.io/istio/operator/pkg/apis";
/* a block
   comment */
message Values {
  // A comment with { braces; }
  GlobalConfig global = 1;
  map<string, string> labels = 2;
  repeated Port ports = 3 [deprecated = true];
  EgressConfig istio_egressgateway = 4 [json_name = "istio-egressgateway"];
  google.protobuf.BoolValue enabled = 5;
  IntOrString target = 6;
  message Port {
    uint32 port = 1;
    Mode mode = 2;
  }
  enum Mode {
    option allow_alias = true;
    A = 0;
    B = 1;
  }
  oneof choice {
    string one_of_a = 7;
  }
  reserved 8;
  optional string later = 9;
}
message GlobalConfig { string proxy_image = 1; }
message EgressConfig { bool enabled = 1; }
message IntOrString { int64 type = 1; }
"#;

    #[test]
    fn a_small_proto_reads_as_the_generator_writes_it() {
        let schema = values_schema(SMALL).unwrap();
        assert_eq!(schema.root, "Values");
        let values = &schema.messages["Values"];
        assert_eq!(values.full_name, "istio.operator.v1alpha1.Values");
        let keys: Vec<&str> = values.fields.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "enabled",
                "global",
                "istio-egressgateway",
                "labels",
                "later",
                "oneOfA",
                "ports",
                "target"
            ]
        );
        assert_eq!(
            values.fields["global"].message.as_deref(),
            Some("GlobalConfig")
        );
        assert_eq!(values.fields["labels"].kind, "map");
        assert_eq!(
            values.fields["labels"].value.as_ref().unwrap().kind,
            "string"
        );
        assert!(values.fields["ports"].repeated && values.fields["ports"].deprecated);
        assert_eq!(
            values.fields["ports"].message.as_deref(),
            Some("Values.Port")
        );
        assert_eq!(values.fields["enabled"].kind, "bool");
        assert_eq!(values.fields["target"].kind, "intOrString");
        assert_eq!(
            schema.messages["Values.Port"].fields["mode"]
                .enum_name
                .as_deref(),
            Some("Values.Mode")
        );
        assert_eq!(schema.enums["Values.Mode"], ["A", "B"]);
        assert!(!schema.messages.contains_key("IntOrString"));
        assert_eq!(
            schema.messages["GlobalConfig"].fields["proxyImage"]
                .proto
                .as_deref(),
            Some("proxy_image")
        );
    }

    #[test]
    fn what_cannot_be_read_is_named() {
        assert_eq!(
            values_schema("message Values {}"),
            Err(ProtoError::NoPackage)
        );
        let bad = "package p;\nmessage Values {\n  Nope x = 1;\n}\n";
        assert_eq!(
            values_schema(bad),
            Err(ProtoError::UnknownType {
                message: "Values".into(),
                ty: "Nope".into()
            })
        );
        let bad = "package p;\nmessage Values {\n  string = 1;\n}\n";
        assert!(matches!(values_schema(bad), Err(ProtoError::Field { .. })));
        assert_eq!(
            values_schema("package p;\nmessage Other {}\n"),
            Err(ProtoError::NoRoot("Values"))
        );
        assert_eq!(
            values_schema("package p;\nmessage Values {\n"),
            Err(ProtoError::Unbalanced)
        );
    }

    /// `derived` is `committed`, message by message (so that a difference names its message).
    fn assert_same_schema(derived: &ProtoSchema, committed: &ProtoSchema) {
        assert_eq!(derived.root, committed.root);
        assert_eq!(derived.enums, committed.enums);
        assert_eq!(
            derived.messages.keys().collect::<Vec<_>>(),
            committed.messages.keys().collect::<Vec<_>>()
        );
        for (name, message) in &committed.messages {
            assert_eq!(&derived.messages[name], message, "message {name}");
        }
    }

    /// The committed schema is what this reader makes of the pin's proto (the generator and
    /// this module agree), when the pinned module is in bosun's Go module cache.
    #[test]
    fn the_pins_proto_reads_as_the_committed_schema() {
        let Some(text) = pinned_module_file("operator/pkg/apis/values_types.proto") else {
            return;
        };
        assert!(super::super::schema::ValuesSchema::is_pinned_proto(&text));
        assert!(!super::super::schema::ValuesSchema::is_pinned_proto(
            &text.replace("message", "message ")
        ));
        let derived = values_schema(&text).unwrap();
        let committed = &super::super::schema::ValuesSchema::pinned().schema;
        assert_same_schema(&derived, committed);
    }

    /// Likewise MeshConfig: the committed `mesh_schema.json` is what this reader makes of the
    /// istio.io/api protos the pin requires (MeshConfig's file and those it imports, found as
    /// the generator finds them).
    #[test]
    fn the_pins_mesh_protos_read_as_the_committed_schema() {
        let (cache, version) = gomod_cache_and_pin();
        let Some(go_mod) = read_or_skip(&cache.join(format!("istio.io/istio@{version}/go.mod")))
        else {
            return;
        };
        let api = go_mod
            .lines()
            .find_map(|l| {
                let mut parts = l.split_whitespace();
                (parts.next() == Some("istio.io/api")).then(|| parts.next())?
            })
            .expect("the pin requires istio.io/api");
        let dir = cache.join(format!("istio.io/api@{api}"));
        let (mut todo, mut texts, mut paths) = (
            vec!["mesh/v1alpha1/config.proto".to_string()],
            Vec::new(),
            Vec::new(),
        );
        let mut seen = std::collections::BTreeSet::new();
        while let Some(rel) = todo.pop() {
            if rel.starts_with("google/") || !seen.insert(rel.clone()) {
                continue;
            }
            let Some(text) = read_or_skip(&dir.join(&rel)) else {
                return;
            };
            todo.extend(text.lines().filter_map(|l| {
                let rest = l.trim().strip_prefix("import")?.trim_start();
                let rest = rest.strip_prefix("public").unwrap_or(rest).trim_start();
                Some(rest.strip_prefix('"')?.split('"').next()?.to_string())
            }));
            texts.push(text);
            paths.push(rel);
        }
        let files: Vec<(&str, &str)> = paths
            .iter()
            .map(String::as_str)
            .zip(texts.iter().map(String::as_str))
            .collect();
        assert!(super::super::schema::MeshSchema::are_pinned_protos(&files));
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        let derived = mesh_schema(&texts).unwrap();
        let committed = &super::super::schema::MeshSchema::pinned().schema;
        assert_same_schema(&derived, committed);
    }

    #[test]
    fn mesh_types_resolve_across_packages_and_from_the_root() {
        let config = r#"
syntax = "proto3";
package istio.mesh.v1alpha1;
import "networking/v1alpha3/x.proto";
// A line comment's `/*` opens nothing: from: us-west/zone1/*
message MeshConfig {
  networking.v1alpha3.Policy policy = 1;
  .istio.networking.v1alpha3.Policy absolute = 2;
  Mode mode = 3;
  google.protobuf.Duration timeout = 4;
  enum Mode { A = 0; }
}
"#;
        let other = "package istio.networking.v1alpha3;\nmessage Policy { string name = 1; }\n";
        let schema = mesh_schema(&[other, config]).unwrap();
        let root = &schema.messages["istio.mesh.v1alpha1.MeshConfig"];
        assert_eq!(root.full_name, "istio.mesh.v1alpha1.MeshConfig");
        for field in ["policy", "absolute"] {
            assert_eq!(
                root.fields[field].message.as_deref(),
                Some("istio.networking.v1alpha3.Policy"),
                "{field}"
            );
        }
        assert_eq!(
            root.fields["mode"].enum_name.as_deref(),
            Some("istio.mesh.v1alpha1.MeshConfig.Mode")
        );
        assert_eq!(root.fields["timeout"].kind, "duration");
        assert_eq!(
            mesh_schema(&[other]),
            Err(ProtoError::NoRoot("istio.mesh.v1alpha1.MeshConfig"))
        );
    }
}
