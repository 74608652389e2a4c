//! Reads one Istio version's IstioOperator types, `operator/pkg/apis/types.go`, into the shape
//! schema istioctl's decoder enforces (the one scripts/gen-values-schema makes from the pin's
//! types by reflection, `iop_schema.json`), so a package of another version is held to its own
//! IstioOperator fields.
//!
//! Only what that file declares is read from it: its structs (`apis.*`), their fields as
//! encoding/json sees them (the `json` tag's name, `-` skipped, unexported fields skipped,
//! untagged embedded structs promoted), and the Go types of those fields. The Kubernetes types
//! the `k8s` blocks name (`corev1.Affinity`…) are not in it: they are the pin's, compiled in
//! (their fields follow the Kubernetes API, which keeps them compatible), and a Kubernetes type
//! the pin does not know is checked as `any` (taken unchecked, never refused). The reader is
//! Go's syntax for these declarations only (no generics, no grouped `type (…)`): anything else
//! in a struct is an error naming the line, so a version that changes the file's shape is not
//! silently read wrong.

use std::collections::{BTreeMap, BTreeSet};

use super::schema::GoRef;

/// Why a `types.go` could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GoTypesError {
    #[error("line {line}: cannot read this field of struct {ty}: {text:?}")]
    Field {
        ty: String,
        line: usize,
        text: String,
    },
    #[error("unbalanced braces, quotes or comments")]
    Unbalanced,
    #[error("no struct IstioOperator")]
    NoRoot,
    #[error("struct {ty} embeds {embedded}, whose fields bosun does not know")]
    Embedded { ty: String, embedded: String },
    #[error(
        "type {ty} decodes its JSON itself (it has an UnmarshalJSON method), in a way bosun does not know"
    )]
    OwnDecoding { ty: String },
    #[error("struct {ty} names type {go_type}, which is not declared")]
    Undeclared { ty: String, go_type: String },
}

/// The `apis.*` types of `text`, reachable from `IstioOperator`, as `iop_schema.json` holds
/// them; `known` says whether a non-`apis` type name is one the pin's schema has.
pub(crate) fn read(
    text: &str,
    known: &dyn Fn(&str) -> bool,
) -> Result<BTreeMap<String, BTreeMap<String, GoRef>>, GoTypesError> {
    let (code, closed) = super::comments::strip_comments(text);
    if !closed {
        return Err(GoTypesError::Unbalanced);
    }
    let file = File::parse(&code)?;
    if !file.structs.contains_key("IstioOperator") {
        return Err(GoTypesError::NoRoot);
    }
    let mut out = BTreeMap::new();
    let mut pending = vec!["IstioOperator".to_string()];
    while let Some(name) = pending.pop() {
        let key = format!("apis.{name}");
        if out.contains_key(&key) {
            continue;
        }
        let mut fields = BTreeMap::new();
        file.fields_of(&name, &mut fields, &mut pending, known)?;
        out.insert(key, fields);
    }
    Ok(out)
}

/// Package path prefixes dropped from a type's name, as the generator drops them.
const PATH_PREFIXES: &[&str] = &[
    "k8s.io/api/",
    "k8s.io/apimachinery/pkg/apis/",
    "istio.io/istio/operator/pkg/",
];

/// Types that decode their JSON their own way, by package path and name, and their kind (the
/// generator's `special`).
const SPECIAL: &[(&str, &str)] = &[
    ("k8s.io/apimachinery/pkg/api/resource.Quantity", "quantity"),
    (
        "k8s.io/apimachinery/pkg/util/intstr.IntOrString",
        "intOrString",
    ),
    ("k8s.io/apimachinery/pkg/apis/meta/v1.Time", "time"),
    ("k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime", "time"),
    ("k8s.io/apimachinery/pkg/apis/meta/v1.Duration", "duration"),
    ("encoding/json.RawMessage", "any"),
];

/// This package's own types that decode their JSON themselves, and the kind they decode as.
const OWN_DECODING: &[(&str, &str)] = &[("BoolValue", "bool")];

/// Embedded types of other packages whose fields are promoted, and those fields (Kubernetes'
/// TypeMeta has had these two since its first API).
const EMBEDDED: &[(&str, &[&str])] = &[(
    "k8s.io/apimachinery/pkg/apis/meta/v1.TypeMeta",
    &["apiVersion", "kind"],
)];

const BUILTINS: &[&str] = &[
    "bool", "string", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16",
    "uint32", "uint64", "float32", "float64",
];

struct Field {
    line: usize,
    text: String,
}

struct File {
    /// Import name → package path.
    imports: BTreeMap<String, String>,
    /// Struct name → its field lines.
    structs: BTreeMap<String, Vec<Field>>,
    /// Other declared types: name → the type they are defined as.
    others: BTreeMap<String, String>,
    /// Types with an `UnmarshalJSON` method.
    own_decoding: BTreeSet<String>,
}

impl File {
    fn parse(code: &str) -> Result<File, GoTypesError> {
        let mut file = File {
            imports: BTreeMap::new(),
            structs: BTreeMap::new(),
            others: BTreeMap::new(),
            own_decoding: BTreeSet::new(),
        };
        let lines: Vec<&str> = code.lines().collect();
        let mut i = 0;
        while i < lines.len() {
            let line = lines[i].trim();
            if line == "import (" {
                i += 1;
                while i < lines.len() && lines[i].trim() != ")" {
                    file.import(lines[i].trim());
                    i += 1;
                }
            } else if let Some(spec) = line.strip_prefix("import ") {
                file.import(spec.trim());
            } else if let Some(rest) = line.strip_prefix("type ") {
                let rest = rest.trim();
                if let Some(name) = rest.strip_suffix("struct {").map(str::trim) {
                    let mut fields = Vec::new();
                    i += 1;
                    let mut depth = 1;
                    while i < lines.len() {
                        let l = lines[i].trim();
                        depth += l.matches('{').count();
                        depth -= l.matches('}').count().min(depth);
                        if depth == 0 {
                            break;
                        }
                        if !l.is_empty() {
                            fields.push(Field {
                                line: i + 1,
                                text: l.to_string(),
                            });
                        }
                        i += 1;
                    }
                    if depth != 0 {
                        return Err(GoTypesError::Unbalanced);
                    }
                    file.structs.insert(name.to_string(), fields);
                } else if let Some((name, ty)) = rest.split_once(char::is_whitespace) {
                    file.others.insert(
                        name.to_string(),
                        ty.trim().trim_start_matches('=').trim().into(),
                    );
                }
            } else if let Some(rest) = line.strip_prefix("func (")
                && let Some((receiver, after)) = rest.split_once(')')
                && after.trim_start().starts_with("UnmarshalJSON(")
                && let Some(ty) = receiver.split_whitespace().last()
            {
                file.own_decoding
                    .insert(ty.trim_start_matches('*').to_string());
            }
            i += 1;
        }
        Ok(file)
    }

    /// One import spec: `"path"` or `name "path"`.
    fn import(&mut self, spec: &str) {
        let (name, path) = match spec.split_once(char::is_whitespace) {
            Some((name, path)) => (Some(name), path.trim()),
            None => (None, spec),
        };
        let path = path.trim_matches('"');
        if path.is_empty() {
            return;
        }
        let name = name.unwrap_or_else(|| path.rsplit('/').next().unwrap_or(path));
        self.imports.insert(name.to_string(), path.to_string());
    }

    /// The JSON fields of struct `name` into `out` (embedded structs' promoted), queuing the
    /// structs of this file they name.
    fn fields_of(
        &self,
        name: &str,
        out: &mut BTreeMap<String, GoRef>,
        pending: &mut Vec<String>,
        known: &dyn Fn(&str) -> bool,
    ) -> Result<(), GoTypesError> {
        let fields = self
            .structs
            .get(name)
            .ok_or_else(|| GoTypesError::Embedded {
                ty: name.to_string(),
                embedded: name.to_string(),
            })?;
        for field in fields {
            let bad = || GoTypesError::Field {
                ty: name.to_string(),
                line: field.line,
                text: field.text.clone(),
            };
            let (decl, tag) = match field.text.split_once('`') {
                Some((decl, tag)) => (decl.trim(), Some(tag.trim_end().trim_end_matches('`'))),
                None => (field.text.as_str(), None),
            };
            let json = tag.and_then(json_tag);
            if json == Some("-") {
                continue;
            }
            let json_name = json.map(|t| t.split(',').next().unwrap_or(""));
            let words: Vec<&str> = decl.split_whitespace().collect();
            match words.as_slice() {
                [embedded] if json_name.unwrap_or("").is_empty() => {
                    let ty = embedded.trim_start_matches('*');
                    if let Some((pkg, type_name)) = ty.split_once('.') {
                        let path = self.path_of(pkg).ok_or_else(bad)?;
                        let full = format!("{path}.{type_name}");
                        let (_, promoted) =
                            EMBEDDED.iter().find(|(t, _)| *t == full).ok_or_else(|| {
                                GoTypesError::Embedded {
                                    ty: name.to_string(),
                                    embedded: full.clone(),
                                }
                            })?;
                        for field in *promoted {
                            out.insert(field.to_string(), scalar("string"));
                        }
                    } else if is_exported(ty) && self.structs.contains_key(ty) {
                        self.fields_of(ty, out, pending, known)?;
                    } else if !is_exported(ty) {
                        // An unexported embedded non-struct (BoolValue's `bool`): not JSON's.
                    } else {
                        return Err(bad());
                    }
                }
                // An embedded type given a name by its tag is a field of that name.
                [embedded] => {
                    let go_ref = self.type_ref(name, embedded, pending, known)?;
                    out.insert(json_name.unwrap_or_default().to_string(), go_ref);
                }
                [names @ .., ty] if !names.is_empty() => {
                    // `A, B T`: every name but the last ends with a comma.
                    let (last, others) = names.split_last().ok_or_else(bad)?;
                    if last.ends_with(',') || others.iter().any(|n| !n.ends_with(',')) {
                        return Err(bad());
                    }
                    let go_ref = self.type_ref(name, ty, pending, known)?;
                    for field_name in names.iter().map(|n| n.trim_end_matches(',')) {
                        if field_name.is_empty() || field_name.contains(',') {
                            return Err(bad());
                        }
                        if !is_exported(field_name) {
                            continue;
                        }
                        let key = json_name.filter(|n| !n.is_empty()).unwrap_or(field_name);
                        out.insert(key.to_string(), go_ref.clone());
                    }
                }
                _ => return Err(bad()),
            }
        }
        Ok(())
    }

    fn path_of(&self, pkg: &str) -> Option<&str> {
        self.imports.get(pkg).map(String::as_str)
    }

    /// The schema reference of Go type expression `ty`, in struct `owner`.
    fn type_ref(
        &self,
        owner: &str,
        ty: &str,
        pending: &mut Vec<String>,
        known: &dyn Fn(&str) -> bool,
    ) -> Result<GoRef, GoTypesError> {
        let ty = ty.trim_start_matches('*');
        if let Some(elem) = ty.strip_prefix("[]") {
            if matches!(elem, "byte" | "uint8") {
                return Ok(scalar("bytes"));
            }
            return Ok(GoRef {
                kind: "list".into(),
                ty: None,
                items: Some(Box::new(self.type_ref(owner, elem, pending, known)?)),
                values: None,
            });
        }
        if let Some(rest) = ty.strip_prefix("map[") {
            let (_, value) = rest.split_once(']').ok_or_else(|| undeclared(owner, ty))?;
            return Ok(GoRef {
                kind: "map".into(),
                ty: None,
                items: None,
                values: Some(Box::new(self.type_ref(owner, value, pending, known)?)),
            });
        }
        if matches!(ty, "any" | "interface{}") {
            return Ok(scalar("any"));
        }
        if BUILTINS.contains(&ty) {
            return Ok(scalar(ty));
        }
        if let Some((pkg, name)) = ty.split_once('.') {
            let path = self.path_of(pkg).ok_or_else(|| undeclared(owner, ty))?;
            let full = format!("{path}.{name}");
            if let Some((_, kind)) = SPECIAL.iter().find(|(t, _)| *t == full) {
                return Ok(scalar(kind));
            }
            let trimmed = PATH_PREFIXES
                .iter()
                .find_map(|p| full.strip_prefix(p))
                .unwrap_or(&full)
                .to_string();
            if !known(&trimmed) {
                return Ok(scalar("any"));
            }
            return Ok(GoRef {
                kind: "struct".into(),
                ty: Some(trimmed),
                items: None,
                values: None,
            });
        }
        if self.own_decoding.contains(ty) {
            let (_, kind) = OWN_DECODING
                .iter()
                .find(|(t, _)| *t == ty)
                .ok_or_else(|| GoTypesError::OwnDecoding { ty: ty.into() })?;
            return Ok(scalar(kind));
        }
        if self.structs.contains_key(ty) {
            pending.push(ty.to_string());
            return Ok(GoRef {
                kind: "struct".into(),
                ty: Some(format!("apis.{ty}")),
                items: None,
                values: None,
            });
        }
        if let Some(underlying) = self.others.get(ty) {
            return self.type_ref(owner, underlying, pending, known);
        }
        Err(undeclared(owner, ty))
    }
}

fn undeclared(owner: &str, ty: &str) -> GoTypesError {
    GoTypesError::Undeclared {
        ty: owner.to_string(),
        go_type: ty.to_string(),
    }
}

fn scalar(kind: &str) -> GoRef {
    GoRef {
        kind: kind.to_string(),
        ty: None,
        items: None,
        values: None,
    }
}

fn is_exported(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase)
}

/// The value of the `json` key of a struct tag (`json:"name,omitempty" yaml:"…"`), as
/// reflect's `StructTag.Get` reads it.
fn json_tag(tag: &str) -> Option<&str> {
    let start = tag.find("json:\"")? + "json:\"".len();
    let rest = &tag[start..];
    Some(&rest[..rest.find('"')?])
}

#[cfg(test)]
mod tests {
    use super::super::pinned_source::pinned_module_file;
    use super::super::schema::IopSchema;
    use super::super::{VersionSchemas, validate_with};
    use super::*;
    use crate::source::SourceMap;

    /// The pin's types.go reads as the committed schema's `apis.*` types (this reader and the
    /// generator's reflection agree), when the pinned module is in bosun's Go module cache.
    #[test]
    fn the_pins_types_read_as_the_committed_schema() {
        let Some(text) = pinned_module_file("operator/pkg/apis/types.go") else {
            return;
        };
        assert!(IopSchema::is_pinned_types(&text));
        assert!(!IopSchema::is_pinned_types(
            &text.replace("struct", "struct ")
        ));
        let read = IopSchema::from_go_types(&text).unwrap();
        let pinned = IopSchema::pinned();
        assert_eq!(
            read.apis.keys().collect::<Vec<_>>(),
            pinned.apis.keys().collect::<Vec<_>>()
        );
        for (name, fields) in &pinned.apis {
            assert_eq!(&read.apis[name], fields, "type {name}");
        }
        assert!(read.is_pinned());
    }

    /// A small types.go in the file's own style: the root, a component with an embedded one, a
    /// Kubernetes type, a type decoding itself, tags Go reads leniently.
    const TYPES: &str = r#"package apis

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// IstioOperator is the root. // not a "string"
type IstioOperator struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty""`
	Spec IstioOperatorSpec `json:"spec,omitempty"`
}

/* A block comment
   over lines. */
type IstioOperatorSpec struct {
	Profile string `json:"profile,omitempty"`
	Values json.RawMessage `json:"values,omitempty"`
	Components *IstioComponentSpec `json:"components,omitempty"`
	Future map[string]*NewThing `json:"future,omitempty"`
	Raw map[string]any `json:"-"`
	hidden string
}

type IstioComponentSpec struct {
	Pilot *ComponentSpec `json:"pilot,omitempty"`
	Gateways []GatewayComponentSpec `json:"gateways,omitempty"`
}

type ComponentSpec struct {
	Enabled *BoolValue `json:"enabled,omitempty"`
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`
	Unknown *corev1.SomethingNew `json:"unknown,omitempty"`
	Count Replicas `json:"count,omitempty"`
}

type GatewayComponentSpec struct {
	ComponentSpec
	Name string `json:"name,omitempty"`
}

type NewThing struct {
	Level uint32
}

type Replicas int32

type BoolValue struct {
	bool
}

func (b *BoolValue) UnmarshalJSON(bytes []byte) error {
	return nil
}
"#;

    fn known(name: &str) -> bool {
        name == "core/v1.ResourceRequirements" || name == "meta/v1.ObjectMeta"
    }

    #[test]
    fn reads_the_fields_as_encoding_json_sees_them() {
        let types = read(TYPES, &known).unwrap();
        let kinds = |ty: &str| -> Vec<(String, String)> {
            types[ty]
                .iter()
                .map(|(k, r)| {
                    let inner = r.ty.clone().or_else(|| {
                        r.items
                            .as_ref()
                            .or(r.values.as_ref())
                            .map(|i| format!("of {}", i.ty.clone().unwrap_or(i.kind.clone())))
                    });
                    (
                        k.clone(),
                        format!("{} {}", r.kind, inner.unwrap_or_default()),
                    )
                })
                .collect()
        };
        let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
            v.iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        assert_eq!(
            kinds("apis.IstioOperator"),
            pairs(&[
                ("apiVersion", "string "),
                ("kind", "string "),
                ("metadata", "struct meta/v1.ObjectMeta"),
                ("spec", "struct apis.IstioOperatorSpec"),
            ])
        );
        assert_eq!(
            kinds("apis.IstioOperatorSpec"),
            pairs(&[
                ("components", "struct apis.IstioComponentSpec"),
                ("future", "map of apis.NewThing"),
                ("profile", "string "),
                ("values", "any "),
            ])
        );
        assert_eq!(
            kinds("apis.GatewayComponentSpec"),
            pairs(&[
                ("count", "int32 "),
                ("enabled", "bool "),
                ("name", "string "),
                ("resources", "struct core/v1.ResourceRequirements"),
                // A Kubernetes type the pin does not know is taken unchecked.
                ("unknown", "any "),
            ])
        );
        assert_eq!(kinds("apis.NewThing"), pairs(&[("Level", "uint32 ")]));
    }

    #[test]
    fn a_versions_own_fields_are_checked_against_its_own_types() {
        let schema = IopSchema::from_go_types(TYPES).unwrap();
        let pinned = VersionSchemas::pinned();
        let schemas = VersionSchemas {
            iop: &schema,
            ..pinned
        };
        let iop = serde_json::json!({
            "apiVersion": "install.istio.io/v1alpha1",
            "kind": "IstioOperator",
            "spec": {"future": {"a": {"Level": 3}}, "components": {"gateways": [{"name": "g", "count": 2}]}}
        });
        let errors = |schemas| {
            validate_with(&iop, &SourceMap::default(), schemas)
                .errors
                .into_iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(errors(schemas), Vec::<String>::new());
        assert_eq!(
            errors(pinned),
            [
                "components.gateways: unknown field \"gateways\"",
                "future: unknown field \"future\""
            ]
        );
        // The other way round: a field the pin has and this version does not.
        let hub = serde_json::json!({"apiVersion": "install.istio.io/v1alpha1", "kind": "IstioOperator", "spec": {"hub": "h"}});
        let found = validate_with(&hub, &SourceMap::default(), schemas).errors;
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].to_string(), "hub: unknown field \"hub\"");
    }

    #[test]
    fn what_it_cannot_read_is_an_error_naming_it() {
        let cases = [
            (
                TYPES.replace("\tSpec IstioOperatorSpec", "\tSpec, IstioOperatorSpec"),
                "line 14: cannot read this field of struct IstioOperator",
            ),
            (
                TYPES.replace("Count Replicas", "Count Missing"),
                "struct ComponentSpec names type Missing, which is not declared",
            ),
            (
                TYPES.replace("metav1.TypeMeta `", "metav1.ListMeta `"),
                "struct IstioOperator embeds k8s.io/apimachinery/pkg/apis/meta/v1.ListMeta",
            ),
            (
                TYPES
                    .replace("BoolValue) UnmarshalJSON", "Replicas) UnmarshalJSON")
                    .replace("*BoolValue `", "*Replicas `"),
                "type Replicas decodes its JSON itself",
            ),
            (
                TYPES.replace("type IstioOperator struct", "type Root struct"),
                "no struct IstioOperator",
            ),
            (TYPES.replace("*/", ""), "unbalanced"),
        ];
        for (text, want) in cases {
            let error = read(&text, &known).unwrap_err().to_string();
            assert!(error.contains(want), "{error:?} should contain {want:?}");
        }
    }
}
