//! The Go type facts strategicpatch reads from struct tags (`patchStrategy`, `patchMergeKey`),
//! for the kinds istioctl patches. The table (`schema.json`) is printed by the Go generator in
//! `tests/gogen` from the real k8s.io/api types; this module answers the two lookups
//! strategicpatch's `PatchMetaFromStruct` answers, with its error texts.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use serde_json::Value;

const TABLE: &str = include_str!("schema.json");

pub(crate) struct Schema {
    pub(crate) scheme_name: String,
    roots: HashMap<String, usize>,
    known: HashSet<String>,
    types: Vec<TypeEntry>,
}

struct TypeEntry {
    /// reflect.Kind's name: "struct", "ptr", "slice", "map", "string", …
    kind: String,
    /// reflect.Type.Name(): the Go type name without package, empty for unnamed types.
    name: String,
    elem: Option<usize>,
    fields: Vec<Field>,
}

struct Field {
    name: String,
    ty: usize,
    strategy: String,
    merge_key: String,
}

/// A field's patch facts, as strategicpatch.PatchMeta holds them.
#[derive(Debug, Clone, Default)]
pub(crate) struct PatchMeta {
    /// The `patchStrategy` tag split at commas (an absent tag gives one empty strategy).
    pub(crate) strategies: Vec<String>,
    pub(crate) merge_key: String,
}

/// A position in the type table: strategicpatch's `PatchMetaFromStruct{T}`.
#[derive(Clone, Copy)]
pub(crate) struct Meta {
    schema: &'static Schema,
    ty: usize,
}

pub(crate) fn schema() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| parse(TABLE))
}

fn parse(text: &str) -> Schema {
    // The table is generated and embedded, so a malformed one is a build defect, not input.
    let v: Value = serde_json::from_str(text).expect("smp/schema.json is valid JSON");
    let s = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let idx = |v: &Value| v.as_u64().expect("type index") as usize;
    let roots = v["roots"]
        .as_object()
        .expect("roots")
        .iter()
        .map(|(k, id)| (k.clone(), idx(id)))
        .collect();
    let types = v["types"]
        .as_array()
        .expect("types")
        .iter()
        .map(|t| TypeEntry {
            kind: s(&t["kind"]),
            name: s(&t["name"]),
            elem: t.get("elem").map(idx),
            fields: t
                .get("fields")
                .and_then(Value::as_array)
                .map(|fs| {
                    fs.iter()
                        .map(|f| Field {
                            name: s(&f[0]),
                            ty: idx(&f[1]),
                            strategy: s(&f[2]),
                            merge_key: s(&f[3]),
                        })
                        .collect()
                })
                .unwrap_or_default(),
        })
        .collect();
    let known = v["known"]
        .as_array()
        .expect("known")
        .iter()
        .map(s)
        .collect();
    Schema {
        scheme_name: s(&v["scheme"]),
        roots,
        known,
        types,
    }
}

impl Schema {
    /// The root type for `group/version/Kind` (`v1/Kind` for the core group).
    pub(crate) fn root(&'static self, gvk: &str) -> Option<Meta> {
        self.roots.get(gvk).map(|&ty| Meta { schema: self, ty })
    }

    /// Whether `scheme.Scheme.New` knows the kind at all.
    pub(crate) fn known(&self, gvk: &str) -> bool {
        self.known.contains(gvk)
    }
}

impl Meta {
    fn entry(&self, ty: usize) -> &'static TypeEntry {
        &self.schema.types[ty]
    }

    /// `Name()`: the kind of the type (strategicpatch names lists by it in one error).
    pub(crate) fn kind_name(&self) -> &'static str {
        &self.entry(self.ty).kind
    }

    /// `LookupPatchMetadataForStruct`: the field's type and tags, found as the forked
    /// encoding/json finds it (exact name first, else the first case-insensitive match).
    pub(crate) fn lookup_struct(&self, key: &str) -> Result<(Meta, PatchMeta), String> {
        let mut t = self.entry(self.ty);
        if t.kind == "ptr" {
            t = self.entry(t.elem.expect("pointer element"));
        }
        if t.kind != "struct" {
            return Err(format!(
                "merging an object in json but data type is not struct, instead is: {}",
                t.kind
            ));
        }
        let field = t
            .fields
            .iter()
            .find(|f| f.name == key)
            .or_else(|| t.fields.iter().find(|f| f.name.eq_ignore_ascii_case(key)));
        match field {
            Some(f) => Ok((
                Meta {
                    schema: self.schema,
                    ty: f.ty,
                },
                PatchMeta {
                    strategies: f.strategy.split(',').map(str::to_string).collect(),
                    merge_key: f.merge_key.clone(),
                },
            )),
            None => Err(format!(
                "unable to find api field in struct {} for the json field {}",
                t.name,
                gotemplate::fmt::quote(key)
            )),
        }
    }

    /// `LookupPatchMetadataForSlice`: the field's element type and the field's tags.
    pub(crate) fn lookup_slice(&self, key: &str) -> Result<(Meta, PatchMeta), String> {
        let (field, meta) = self.lookup_struct(key)?;
        let t = self.entry(field.ty);
        let elem = match t.kind.as_str() {
            "slice" | "array" => {
                let e = t.elem.expect("slice element");
                if matches!(self.entry(e).kind.as_str(), "slice" | "array") {
                    return Err("unexpected slice of slice".to_string());
                }
                e
            }
            "ptr" => {
                let e = t.elem.expect("pointer element");
                let et = self.entry(e);
                if matches!(et.kind.as_str(), "slice" | "array") {
                    et.elem.expect("slice element")
                } else {
                    e
                }
            }
            // Go names the kind of the type looked in, not of the field.
            _ => {
                return Err(format!(
                    "expected slice or array type, but got: {}",
                    self.kind_name()
                ));
            }
        };
        Ok((
            Meta {
                schema: self.schema,
                ty: elem,
            },
            meta,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn container_facts() {
        let d = schema().root("apps/v1/Deployment").unwrap();
        let (spec, _) = d.lookup_struct("spec").unwrap();
        let (tmpl, _) = spec.lookup_struct("template").unwrap();
        let (pod, _) = tmpl.lookup_struct("spec").unwrap();
        let (c, meta) = pod.lookup_slice("containers").unwrap();
        assert_eq!(meta.strategies, ["merge"]);
        assert_eq!(meta.merge_key, "name");
        assert_eq!(c.kind_name(), "struct");
        let (_, args) = c.lookup_slice("args").unwrap();
        assert_eq!(args.strategies, [""]);
        assert!(pod.lookup_struct("Containers").is_ok());
        let err = pod.lookup_struct("nope").err().unwrap();
        assert_eq!(
            err,
            "unable to find api field in struct PodSpec for the json field \"nope\""
        );
    }
}
