//! Strategic merge patch as istioctl applies its `k8s` settings: the semantics of
//! `k8s.io/apimachinery/pkg/util/strategicpatch.StrategicMergePatch(original, patch, typed)` with
//! `typed` from `scheme.Scheme.New(gvk)` (merge keys and strategies from the Go struct tags,
//! held in the generated table of the `schema` module), including the `$patch`, `$retainKeys`, `$setElementOrder/…` and
//! `$deleteFromPrimitiveList/…` directives and `null` deleting a key.
//!
//! Values are handled as strategicpatch decodes JSON (k8s.io/apimachinery `util/json`: integer
//! literals that fit are int64, other numbers float64, and the two are different types to it).
//! An integral `f64` in the input counts as the integer it prints as in JSON, since istioctl
//! hands strategicpatch JSON text; the result has the same number typing.

mod schema;

use serde_json::{Map, Value};
use thiserror::Error;

use crate::gofmt::{sprint, sprint_s, to_unstructured, type_name};
use schema::{Meta, PatchMeta};

const DIRECTIVE_MARKER: &str = "$patch";
const DELETE: &str = "delete";
const REPLACE: &str = "replace";
const MERGE: &str = "merge";
const RETAIN_KEYS_STRATEGY: &str = "retainKeys";
const RETAIN_KEYS_DIRECTIVE: &str = "$retainKeys";
const DELETE_FROM_PRIMITIVE_LIST: &str = "$deleteFromPrimitiveList";
const SET_ELEMENT_ORDER: &str = "$setElementOrder";

const BAD_RETAIN_KEYS: &str = "invalid patch format of retainKeys";
const BAD_SET_ORDER: &str = "invalid patch format of setElementOrder list";
const BAD_PRIMITIVE_LIST: &str = "invalid patch format of primitive list";

type JMap = Map<String, Value>;

/// A Kubernetes object kind: `group` is empty for the core group.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ObjectKind {
    pub group: String,
    pub version: String,
    pub kind: String,
}

impl ObjectKind {
    pub fn new(group: &str, version: &str, kind: &str) -> ObjectKind {
        ObjectKind {
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
        }
    }

    /// `group/version` as Kubernetes prints a GroupVersion (`v1` for the core group).
    pub fn group_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

impl std::fmt::Display for ObjectKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}, Kind={}", self.group_version(), self.kind)
    }
}

#[derive(Debug, Clone, PartialEq, Error)]
pub enum SmpError {
    /// `scheme.Scheme.New` refuses the kind: istioctl fails with this message.
    #[error("{message}")]
    UnknownKind { kind: ObjectKind, message: String },
    /// The scheme knows the kind, but bosun carries no type table for it (istioctl would patch
    /// it; it never does for the k8s settings).
    #[error("strategic merge patch of {kind} is not supported (no type table for it)")]
    UnsupportedKind { kind: ObjectKind },
    /// strategicpatch's own error, with the JSON path (in the original object) where it arose.
    #[error("strategic merge patch at {path}: {message}")]
    Patch { path: String, message: String },
    /// Input for which Go's strategicpatch panics (istioctl crashes).
    #[error("strategic merge patch at {path}: {message} (Go's strategicpatch panics here)")]
    GoPanic { path: String, message: String },
}

impl SmpError {
    /// The message istioctl's Go code produces for this error (before istioctl wraps it).
    pub fn go_message(&self) -> String {
        match self {
            SmpError::UnknownKind { message, .. } => message.clone(),
            SmpError::Patch { message, .. } | SmpError::GoPanic { message, .. } => message.clone(),
            SmpError::UnsupportedKind { .. } => self.to_string(),
        }
    }
}

/// `StrategicMergePatch(original, patch, scheme.Scheme.New(kind))`.
pub fn strategic_merge(
    kind: &ObjectKind,
    original: &Value,
    patch: &Value,
) -> Result<Value, SmpError> {
    let table = schema::schema();
    let gvk = format!("{}/{}", kind.group_version(), kind.kind);
    let Some(root) = table.root(&gvk) else {
        if table.known(&gvk) {
            return Err(SmpError::UnsupportedKind { kind: kind.clone() });
        }
        return Err(SmpError::UnknownKind {
            kind: kind.clone(),
            message: format!(
                "no kind {} is registered for version {} in scheme {}",
                gotemplate::fmt::quote(&kind.kind),
                gotemplate::fmt::quote(&kind.group_version()),
                gotemplate::fmt::quote(&table.scheme_name)
            ),
        });
    };
    let original = document(original)?;
    let patch = document(patch)?;
    let merged = merge_map(original, patch, root, "")?;
    Ok(to_unstructured(&Value::Object(merged)))
}

/// handleUnmarshal: a JSON object, or null (which decodes to an empty map).
fn document(v: &Value) -> Result<JMap, SmpError> {
    match to_unstructured(v) {
        Value::Object(m) => Ok(m),
        Value::Null => Ok(JMap::new()),
        _ => Err(err("", "invalid JSON document")),
    }
}

fn err(path: &str, message: impl Into<String>) -> SmpError {
    SmpError::Patch {
        path: display_path(path),
        message: message.into(),
    }
}

fn panic_err(path: &str, message: impl Into<String>) -> SmpError {
    SmpError::GoPanic {
        path: display_path(path),
        message: message.into(),
    }
}

fn display_path(path: &str) -> String {
    if path.is_empty() {
        "the top level".to_string()
    } else {
        path.to_string()
    }
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn no_merge_key(m: &JMap, key: &str) -> String {
    format!(
        "map: {} does not contain declared merge key: {key}",
        sprint(&Value::Object(m.clone()))
    )
}

fn bad_arg_type(expected: &str, actual: &Value) -> String {
    format!(
        "expected a {expected}, but received a {}",
        type_name(actual)
    )
}

fn bad_patch_type(t: &Value, m: &JMap) -> String {
    format!(
        "unknown patch type: {} in map: {}",
        sprint_s(t),
        sprint(&Value::Object(m.clone()))
    )
}

/// Go's `reflect.TypeOf` identity for decoded JSON values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GoType {
    Nil,
    Bool,
    Int,
    Float,
    Str,
    List,
    Map,
}

fn go_type(v: &Value) -> GoType {
    match v {
        Value::Null => GoType::Nil,
        Value::Bool(_) => GoType::Bool,
        Value::Number(n) if n.as_i64().is_some() => GoType::Int,
        Value::Number(_) => GoType::Float,
        Value::String(_) => GoType::Str,
        Value::Array(_) => GoType::List,
        Value::Object(_) => GoType::Map,
    }
}

/// Go's `==` on two `interface{}` values holding decoded JSON. Go panics when both hold the same
/// uncomparable type (maps, slices); merge keys and primitive lists never do in practice, and
/// those are treated as unequal here.
fn go_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        // int64 and float64 never compare equal as interfaces.
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(a), Some(b)) => a == b,
            (None, None) => x.as_f64() == y.as_f64(),
            _ => false,
        },
        (Value::String(x), Value::String(y)) => x == y,
        _ => false,
    }
}

fn is_directive(v: &Value, name: &str) -> bool {
    v.as_str() == Some(name)
}

/// mergeMap.
fn merge_map(
    mut original: JMap,
    mut patch: JMap,
    schema: Meta,
    path: &str,
) -> Result<JMap, SmpError> {
    if let Some(directive) = patch.get(DIRECTIVE_MARKER) {
        return handle_directive_in_merge_map(directive.clone(), patch, path);
    }
    apply_retain_keys(&mut original, &mut patch, path)?;
    merge_patch_into_original(&mut original, &mut patch, schema, path)?;

    // Go ranges over the patch map in random order; the order only matters for a patch holding
    // both `$deleteFromPrimitiveList/x` and `x`, which this (sorted) order applies deletion first.
    for (key, patch_v) in patch {
        let mut k = key;
        let mut is_delete_list = false;
        if k.starts_with(DELETE_FROM_PRIMITIVE_LIST) {
            let original_key = extract_key(&k, DELETE_FROM_PRIMITIVE_LIST, path)?;
            is_delete_list = true;
            if !original_key.is_empty() {
                k = original_key;
            }
        }
        let kpath = child(path, &k);

        if patch_v.is_null() {
            original.remove(&k);
            continue;
        }

        let Some(orig_v) = original.get(&k) else {
            if !is_delete_list {
                take_patch_value(&mut original, k, patch_v);
            }
            continue;
        };
        if go_type(orig_v) != go_type(&patch_v) {
            if !is_delete_list {
                take_patch_value(&mut original, k, patch_v);
            }
            continue;
        }
        let orig_v = original.remove(&k).expect("checked above");
        let merged = match (orig_v, patch_v) {
            (Value::Object(o), Value::Object(p)) => {
                let (sub, meta) = schema.lookup_struct(&k).map_err(|m| err(&kpath, m))?;
                let (_, strategy) = retain_keys_strategy(&meta, &kpath)?;
                if strategy != REPLACE {
                    Value::Object(merge_map(o, p, sub, &kpath)?)
                } else {
                    Value::Object(p)
                }
            }
            (Value::Array(o), Value::Array(p)) => {
                let (sub, meta) = schema.lookup_slice(&k).map_err(|m| err(&kpath, m))?;
                let (_, strategy) = retain_keys_strategy(&meta, &kpath)?;
                Value::Array(merge_slice_handler(
                    o,
                    p,
                    sub,
                    &strategy,
                    &meta.merge_key,
                    is_delete_list,
                    &kpath,
                )?)
            }
            (_, p) => match remove_directives(p) {
                Some(v) => v,
                None => continue,
            },
        };
        original.insert(k, merged);
    }
    Ok(original)
}

/// A patch value for a key the original lacks (or holds with another type): nulls dropped, then
/// directives removed; a value that is itself a directive removes the key.
fn take_patch_value(original: &mut JMap, k: String, mut patch_v: Value) {
    discard_null_values(&mut patch_v);
    match remove_directives(patch_v) {
        Some(v) => {
            original.insert(k, v);
        }
        None => {
            original.remove(&k);
        }
    }
}

fn handle_directive_in_merge_map(
    directive: Value,
    mut patch: JMap,
    path: &str,
) -> Result<JMap, SmpError> {
    if is_directive(&directive, REPLACE) {
        // The rest of the patch is taken as it is, nested directives and nulls included.
        patch.remove(DIRECTIVE_MARKER);
        return Ok(patch);
    }
    if is_directive(&directive, DELETE) {
        return Ok(JMap::new());
    }
    Err(err(path, bad_patch_type(&directive, &patch)))
}

fn extract_key(s: &str, prefix: &str, path: &str) -> Result<String, SmpError> {
    match s.split_once('/') {
        Some((head, rest)) if head == prefix => Ok(rest.to_string()),
        _ => Err(err(
            path,
            match prefix {
                DELETE_FROM_PRIMITIVE_LIST => BAD_PRIMITIVE_LIST,
                _ => BAD_SET_ORDER,
            },
        )),
    }
}

/// extractRetainKeysPatchStrategy: whether `retainKeys` is among the strategies, and the other.
fn retain_keys_strategy(meta: &PatchMeta, path: &str) -> Result<(bool, String), SmpError> {
    let s = &meta.strategies;
    match s.len() {
        0 => Ok((false, String::new())),
        1 if s[0] == RETAIN_KEYS_STRATEGY => Ok((true, String::new())),
        1 => Ok((false, s[0].clone())),
        2 if s[0] == RETAIN_KEYS_STRATEGY => Ok((true, s[1].clone())),
        2 if s[1] == RETAIN_KEYS_STRATEGY => Ok((true, s[0].clone())),
        _ => Err(err(
            path,
            format!("unexpected patch strategy: [{}]", s.join(" ")),
        )),
    }
}

/// applyRetainKeysDirective (with MergeParallelList, as StrategicMergePatch runs).
fn apply_retain_keys(original: &mut JMap, patch: &mut JMap, path: &str) -> Result<(), SmpError> {
    let Some(retain) = patch.remove(RETAIN_KEYS_DIRECTIVE) else {
        return Ok(());
    };
    let Value::Array(list) = retain else {
        return Err(err(path, BAD_RETAIN_KEYS));
    };
    // Go keys a set by the list's values; only string values can match a field name.
    let keep: Vec<&str> = list.iter().filter_map(Value::as_str).collect();
    for (k, v) in patch.iter() {
        if v.is_null()
            || k.starts_with(DELETE_FROM_PRIMITIVE_LIST)
            || k.starts_with(SET_ELEMENT_ORDER)
        {
            continue;
        }
        if !keep.contains(&k.as_str()) {
            return Err(err(path, BAD_RETAIN_KEYS));
        }
    }
    original.retain(|k, _| keep.contains(&k.as_str()));
    Ok(())
}

/// mergePatchIntoOriginal: each `$setElementOrder/<key>` merges that list now and orders it by
/// the directive, then the patch's order, then the original's.
fn merge_patch_into_original(
    original: &mut JMap,
    patch: &mut JMap,
    schema: Meta,
    path: &str,
) -> Result<(), SmpError> {
    let keys: Vec<String> = patch
        .keys()
        .filter(|k| k.starts_with(SET_ELEMENT_ORDER))
        .cloned()
        .collect();
    for key in keys {
        let order_v = patch.remove(&key).expect("listed above");
        let Value::Array(order) = order_v else {
            return Err(err(path, bad_arg_type("[]interface {}", &order_v)));
        };
        let original_key = extract_key(&key, SET_ELEMENT_ORDER, path)?;
        let kpath = child(path, &original_key);
        let original_list = match original.get(&original_key) {
            None => None,
            Some(Value::Array(l)) => Some(l.clone()),
            Some(other) => return Err(err(&kpath, bad_arg_type("[]interface {}", other))),
        };
        let patch_list = match patch.get(&original_key) {
            None => None,
            Some(Value::Array(l)) => Some(l.clone()),
            Some(other) => return Err(err(&kpath, bad_arg_type("[]interface {}", other))),
        };
        let (sub, meta) = schema
            .lookup_slice(&original_key)
            .map_err(|m| err(&kpath, m))?;
        let (_, strategy) = retain_keys_strategy(&meta, &kpath)?;
        let merge_key = meta.merge_key.as_str();
        validate_patch_with_set_order_list(
            patch_list.as_deref().unwrap_or(&[]),
            &order,
            merge_key,
            &kpath,
        )?;

        let original_values = original_list.clone().unwrap_or_default();
        let patch_values = patch_list.clone().unwrap_or_default();
        let merged = match (original_list, patch_list) {
            (Some(o), None) => o,
            (None, Some(p)) => match remove_directives(Value::Array(p)) {
                Some(Value::Array(v)) => v,
                _ => continue,
            },
            (Some(o), Some(p)) => {
                merge_slice_handler(o, p, sub, &strategy, merge_key, false, &kpath)?
            }
            (None, None) => continue,
        };

        let (patch_items, server_only) = if merge_key.is_empty() {
            partition_primitives(merged, &order)
        } else {
            partition_maps(merged, &order, merge_key, &kpath)?
        };
        let kind = slice_element_type(&[&original_values, &patch_values], &kpath)?;
        let both = normalize_element_order(
            patch_items,
            server_only,
            &order,
            &original_values,
            merge_key,
            kind,
            &kpath,
        )?;
        original.insert(original_key.clone(), Value::Array(both));
        patch.remove(&original_key);
    }
    Ok(())
}

fn validate_patch_with_set_order_list(
    patch_list: &[Value],
    order: &[Value],
    merge_key: &str,
    path: &str,
) -> Result<(), SmpError> {
    if order.is_empty() || patch_list.is_empty() {
        return Ok(());
    }
    let non_delete: Vec<Value> = if merge_key.is_empty() {
        patch_list.to_vec()
    } else {
        extract_to_delete_items(patch_list.to_vec(), path)?.0
    };
    let (mut pi, mut si) = (0, 0);
    while pi < non_delete.len() && si < order.len() {
        if non_delete[pi]
            .as_object()
            .is_some_and(|m| m.contains_key(DIRECTIVE_MARKER))
        {
            pi += 1;
            continue;
        }
        if merge_key_value_equal(&non_delete[pi], &order[si], merge_key, path)? {
            pi += 1;
        }
        si += 1;
    }
    if pi < non_delete.len() && si >= order.len() {
        return Err(err(
            path,
            format!(
                "The order in patch list:\n{}\n doesn't match {SET_ELEMENT_ORDER} list:\n{}\n",
                sprint(&Value::Array(patch_list.to_vec())),
                sprint(&Value::Array(order.to_vec()))
            ),
        ));
    }
    Ok(())
}

fn merge_key_value_equal(
    left: &Value,
    right: &Value,
    merge_key: &str,
    path: &str,
) -> Result<bool, SmpError> {
    if merge_key.is_empty() {
        return Ok(go_eq(left, right));
    }
    let l = left
        .as_object()
        .ok_or_else(|| err(path, bad_arg_type("map[string]interface {}", left)))?;
    let r = right
        .as_object()
        .ok_or_else(|| err(path, bad_arg_type("map[string]interface {}", right)))?;
    let lv = l
        .get(merge_key)
        .ok_or_else(|| err(path, no_merge_key(l, merge_key)))?;
    let rv = r
        .get(merge_key)
        .ok_or_else(|| err(path, no_merge_key(r, merge_key)))?;
    Ok(go_eq(lv, rv))
}

/// mergeSliceHandler: lists merge only with the `merge` strategy (or as a deletion list);
/// otherwise the patch's list replaces the original's as it is.
fn merge_slice_handler(
    original: Vec<Value>,
    patch: Vec<Value>,
    schema: Meta,
    strategy: &str,
    merge_key: &str,
    is_delete_list: bool,
    path: &str,
) -> Result<Vec<Value>, SmpError> {
    if strategy == MERGE || is_delete_list {
        merge_slice(original, patch, schema, merge_key, is_delete_list, path)
    } else {
        Ok(patch)
    }
}

fn merge_slice(
    original: Vec<Value>,
    patch: Vec<Value>,
    schema: Meta,
    merge_key: &str,
    is_delete_list: bool,
    path: &str,
) -> Result<Vec<Value>, SmpError> {
    if original.is_empty() && patch.is_empty() {
        return Ok(original);
    }
    let kind = slice_element_type(&[&original, &patch], path)?;
    let (original, patch, merged) = if kind != GoType::Map {
        if is_delete_list {
            return Ok(delete_from_slice(original, &patch));
        }
        let mut both = original.clone();
        both.extend(patch.iter().cloned());
        let merged = deduplicate_scalars(both);
        (original, patch, merged)
    } else {
        if merge_key.is_empty() {
            return Err(err(
                path,
                format!(
                    "cannot merge lists without merge key for {}",
                    schema.kind_name()
                ),
            ));
        }
        let (original, patch) =
            merge_slice_with_special_elements(original, patch, merge_key, path)?;
        let merged = merge_slice_without_special_elements(
            original.clone(),
            &patch,
            merge_key,
            schema,
            path,
        )?;
        (original, patch, merged)
    };
    let (patch_items, server_only) = if merge_key.is_empty() {
        partition_primitives(merged, &patch)
    } else {
        partition_maps(merged, &patch, merge_key, path)?
    };
    normalize_element_order(
        patch_items,
        server_only,
        &patch,
        &original,
        merge_key,
        kind,
        path,
    )
}

/// mergeSliceWithSpecialElements: `$patch: delete` elements remove their match from the
/// original, `$patch: replace` makes the rest of the patch the whole list.
fn merge_slice_with_special_elements(
    mut original: Vec<Value>,
    patch: Vec<Value>,
    merge_key: &str,
    path: &str,
) -> Result<(Vec<Value>, Vec<Value>), SmpError> {
    let mut plain = Vec::new();
    let mut replace = false;
    for v in patch {
        let m = v
            .as_object()
            .expect("elements are maps (checked by the element type)");
        match m.get(DIRECTIVE_MARKER) {
            None => plain.push(v),
            Some(d) if is_directive(d, DELETE) => {
                let Some(mv) = m.get(merge_key) else {
                    return Err(err(path, no_merge_key(m, merge_key)));
                };
                original = delete_matching_entries(original, merge_key, mv, path)?;
            }
            Some(d) if is_directive(d, REPLACE) => replace = true,
            Some(d) if is_directive(d, MERGE) => {
                return Err(err(
                    path,
                    "merging lists cannot yet be specified in the patch",
                ));
            }
            Some(d) => return Err(err(path, bad_patch_type(d, m))),
        }
    }
    if replace {
        return Ok((plain, Vec::new()));
    }
    Ok((original, plain))
}

fn delete_matching_entries(
    mut original: Vec<Value>,
    merge_key: &str,
    value: &Value,
    path: &str,
) -> Result<Vec<Value>, SmpError> {
    while let Some((_, i)) = find_map_by_key_value(&original, merge_key, value, path)? {
        original.remove(i);
    }
    Ok(original)
}

fn merge_slice_without_special_elements(
    mut original: Vec<Value>,
    patch: &[Value],
    merge_key: &str,
    schema: Meta,
    path: &str,
) -> Result<Vec<Value>, SmpError> {
    for v in patch {
        let m = v
            .as_object()
            .expect("elements are maps (checked by the element type)");
        let Some(mv) = m.get(merge_key) else {
            return Err(err(path, no_merge_key(m, merge_key)));
        };
        match find_map_by_key_value(&original, merge_key, mv, path)? {
            Some((found, i)) => {
                let epath = format!("{path}[{merge_key}={}]", sprint(mv));
                original[i] = Value::Object(merge_map(found, m.clone(), schema, &epath)?);
            }
            // A new element goes in as the patch has it, nulls and nested directives included.
            None => original.push(v.clone()),
        }
    }
    Ok(original)
}

/// findMapInSliceBasedOnKeyValue: the first map whose merge key equals `value`.
fn find_map_by_key_value(
    list: &[Value],
    key: &str,
    value: &Value,
    path: &str,
) -> Result<Option<(JMap, usize)>, SmpError> {
    for (i, v) in list.iter().enumerate() {
        let Some(m) = v.as_object() else {
            return Err(err(path, format!("value for key {i} is not a map")));
        };
        if m.get(key).is_some_and(|x| go_eq(x, value)) {
            return Ok(Some((m.clone(), i)));
        }
    }
    Ok(None)
}

fn delete_from_slice(current: Vec<Value>, to_delete: &[Value]) -> Vec<Value> {
    current
        .into_iter()
        .filter(|v| !to_delete.iter().any(|d| go_eq(d, v)))
        .collect()
}

/// deduplicateScalars, with its own element order: a duplicate is overwritten by the last
/// element and the list shortened.
fn deduplicate_scalars(mut s: Vec<Value>) -> Vec<Value> {
    let mut length = s.len() as isize - 1;
    let mut i: isize = 0;
    while i < length {
        let mut j = i + 1;
        while j <= length {
            if go_eq(&s[i as usize], &s[j as usize]) {
                s[j as usize] = s[length as usize].clone();
                s.truncate(length as usize);
                length -= 1;
                j -= 1;
            }
            j += 1;
        }
        i += 1;
    }
    s
}

fn partition_primitives(original: Vec<Value>, by: &[Value]) -> (Vec<Value>, Vec<Value>) {
    original
        .into_iter()
        .partition(|v| by.iter().any(|b| go_eq(b, v)))
}

fn partition_maps(
    original: Vec<Value>,
    by: &[Value],
    merge_key: &str,
    path: &str,
) -> Result<(Vec<Value>, Vec<Value>), SmpError> {
    let (mut patch, mut server_only) = (Vec::new(), Vec::new());
    for v in original {
        let Some(m) = v.as_object() else {
            return Err(err(path, bad_arg_type("map[string]interface {}", &v)));
        };
        let Some(mv) = m.get(merge_key) else {
            return Err(err(path, no_merge_key(m, merge_key)));
        };
        if find_map_by_key_value(by, merge_key, mv, path)?.is_some() {
            patch.push(v);
        } else {
            server_only.push(v);
        }
    }
    Ok((patch, server_only))
}

/// sliceElementType: the one element type of all the lists.
fn slice_element_type(slices: &[&[Value]], path: &str) -> Result<GoType, SmpError> {
    let mut prev: Option<GoType> = None;
    for s in slices {
        for v in s.iter() {
            let t = go_type(v);
            match prev {
                None => {
                    if t == GoType::Nil {
                        // reflect.TypeOf(nil).Kind() is a nil dereference in Go.
                        return Err(panic_err(path, "list whose first element is null"));
                    }
                    if t == GoType::List {
                        return Err(err(path, "lists of lists are not supported"));
                    }
                    prev = Some(t);
                }
                Some(p) if p != t => {
                    let all: Vec<Value> = slices.iter().map(|s| Value::Array(s.to_vec())).collect();
                    return Err(err(
                        path,
                        format!(
                            "list element types are not identical: {}",
                            sprint(&Value::Array(all))
                        ),
                    ));
                }
                Some(_) => {}
            }
        }
    }
    prev.ok_or_else(|| err(path, "no elements in any of the given slices"))
}

fn validate_merge_key_in_lists(
    merge_key: &str,
    lists: &[&[Value]],
    path: &str,
) -> Result<(), SmpError> {
    for list in lists {
        for item in list.iter() {
            let Some(m) = item.as_object() else {
                return Err(err(path, bad_arg_type("map[string]interface {}", item)));
            };
            if !m.contains_key(merge_key) {
                return Err(err(path, no_merge_key(m, merge_key)));
            }
        }
    }
    Ok(())
}

/// extractToDeleteItems: elements that are `$patch: delete` directives, split off.
fn extract_to_delete_items(
    l: Vec<Value>,
    path: &str,
) -> Result<(Vec<Value>, Vec<Value>), SmpError> {
    let (mut keep, mut delete) = (Vec::new(), Vec::new());
    for v in l {
        let Some(m) = v.as_object() else {
            return Err(err(path, bad_arg_type("map[string]interface {}", &v)));
        };
        if m.get(DIRECTIVE_MARKER)
            .is_some_and(|d| is_directive(d, DELETE))
        {
            delete.push(v);
        } else {
            keep.push(v);
        }
    }
    Ok((keep, delete))
}

/// index: position of the item (by merge key for maps) in the list.
fn index_of(list: &[Value], item: &Value, merge_key: &str, kind: GoType) -> Option<usize> {
    let key_of = |v: &Value| -> Value {
        if kind == GoType::Map {
            v.as_object()
                .and_then(|m| m.get(merge_key))
                .cloned()
                .unwrap_or(Value::Null)
        } else {
            v.clone()
        }
    };
    let want = key_of(item);
    list.iter().position(|v| go_eq(&want, &key_of(v)))
}

fn normalize_slice_order(
    to_sort: Vec<Value>,
    order: &[Value],
    merge_key: &str,
    kind: GoType,
    path: &str,
) -> Result<Vec<Value>, SmpError> {
    let (mut to_sort, to_delete) = if kind == GoType::Map {
        validate_merge_key_in_lists(merge_key, &[&to_sort, order], path)?;
        extract_to_delete_items(to_sort, path)?
    } else {
        (to_sort, Vec::new())
    };
    // Go's sort.SliceStable with strategicpatch's less (true whenever either item is not in the
    // order list). It insertion-sorts runs of 20 before merging; with all items found, as they
    // are here, any stable sort gives the same order, and for up to 20 items this is Go's.
    let less = |a: &Value, b: &Value| match (
        index_of(order, a, merge_key, kind),
        index_of(order, b, merge_key, kind),
    ) {
        (Some(i), Some(j)) => i < j,
        _ => true,
    };
    for i in 1..to_sort.len() {
        let mut j = i;
        while j > 0 && less(&to_sort[j], &to_sort[j - 1]) {
            to_sort.swap(j, j - 1);
            j -= 1;
        }
    }
    to_sort.extend(to_delete);
    Ok(to_sort)
}

fn normalize_element_order(
    patch: Vec<Value>,
    server_only: Vec<Value>,
    patch_order: &[Value],
    server_order: &[Value],
    merge_key: &str,
    kind: GoType,
    path: &str,
) -> Result<Vec<Value>, SmpError> {
    let patch = normalize_slice_order(patch, patch_order, merge_key, kind, path)?;
    let server_only = normalize_slice_order(server_only, server_order, merge_key, kind, path)?;
    Ok(merge_sorted_slice(
        server_only,
        patch,
        server_order,
        merge_key,
        kind,
    ))
}

/// mergeSortedSlice: server-only items are placed before a patch item only when the live order
/// puts them first; otherwise patch items come first.
fn merge_sorted_slice(
    left: Vec<Value>,
    right: Vec<Value>,
    server_order: &[Value],
    merge_key: &str,
    kind: GoType,
) -> Vec<Value> {
    let mut out = Vec::with_capacity(left.len() + right.len());
    let (mut i, mut j) = (0, 0);
    while i < left.len() || j < right.len() {
        if i >= left.len() {
            out.push(right[j].clone());
            j += 1;
        } else if j >= right.len() {
            out.push(left[i].clone());
            i += 1;
        } else {
            let li = index_of(server_order, &left[i], merge_key, kind);
            let ri = index_of(server_order, &right[j], merge_key, kind);
            if matches!((li, ri), (Some(a), Some(b)) if a < b) {
                out.push(left[i].clone());
                i += 1;
            } else {
                out.push(right[j].clone());
                j += 1;
            }
        }
    }
    out
}

/// removeDirectives: a map holding `$patch` is dropped (None), elsewhere recursively.
fn remove_directives(v: Value) -> Option<Value> {
    match v {
        Value::Object(m) => {
            if m.contains_key(DIRECTIVE_MARKER) {
                return None;
            }
            Some(Value::Object(
                m.into_iter()
                    .filter_map(|(k, v)| remove_directives(v).map(|v| (k, v)))
                    .collect(),
            ))
        }
        Value::Array(items) => Some(Value::Array(
            items.into_iter().filter_map(remove_directives).collect(),
        )),
        other => Some(other),
    }
}

/// discardNullValuesFromPatch: null map values go, recursively (nulls in lists stay).
fn discard_null_values(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|_, v| !v.is_null());
            m.values_mut().for_each(discard_null_values);
        }
        Value::Array(items) => items.iter_mut().for_each(discard_null_values),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dedup_keeps_go_order() {
        // Go's in-place algorithm moves the last element into a duplicate's slot.
        let out = deduplicate_scalars(vec![json!("a"), json!("b"), json!("a"), json!("c")]);
        assert_eq!(out, vec![json!("a"), json!("b"), json!("c")]);
        let out = deduplicate_scalars(vec![json!("a"), json!("a"), json!("b"), json!("c")]);
        assert_eq!(out, vec![json!("a"), json!("c"), json!("b")]);
    }

    #[test]
    fn directives_removed() {
        let v = json!({"a": {"$patch": "delete"}, "b": [1, {"$patch": "x"}]});
        assert_eq!(remove_directives(v), Some(json!({"b": [1]})));
    }
}
