//! istioctl's `k8s.overlays[].patches[{path, value}]` on one rendered object:
//! `operator/pkg/render/postprocess.go` `applyPatches` over `operator/pkg/tpath` (`GetPathContext`
//! with createMissing, then `WritePathContext`).
//!
//! tpath's behaviour depends on Go types, so the object is held as istioctl holds it: the tree
//! yaml.v2 decodes (`map[interface{}]interface{}` maps, `int` integers, `float64` other numbers),
//! into which patch values are written as `encoding/json` decoded them (`map[string]interface{}`
//! maps, every number a `float64`). The two kinds of map behave differently (a missing key before
//! an `[N]` element creates a list only in the latter; writing to a list-valued key appends only
//! in the latter), so the tree remembers which kind each map is.
//!
//! A patch whose path does not resolve, or whose write fails, is skipped: applyPatches collects
//! those errors and then drops them, so istioctl applies the rest silently. They are returned in
//! [`Overlaid::skipped`]. Only a result istioctl cannot turn back into an object fails the call.

mod path;

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use thiserror::Error;

use crate::gofmt::{float_v, unstructured_number};

pub use iop::k8s::OverlayPatch;

/// The patched object and the patches istioctl skipped.
#[derive(Debug, Clone, PartialEq)]
pub struct Overlaid {
    pub object: Value,
    pub skipped: Vec<OverlayError>,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum OverlayError {
    /// A patch that istioctl skips, with tpath's message.
    #[error("overlay patch {index} (path {path:?}): {message}")]
    Patch {
        index: usize,
        path: String,
        message: String,
    },
    /// The patched object is not one istioctl can use (it fails the whole render).
    #[error("overlay result: {message}")]
    Result { message: String },
    /// Input for which Go's tpath panics (istioctl crashes).
    #[error("overlay patch {index} (path {path:?}): {message} (Go's tpath panics here)")]
    GoPanic {
        index: usize,
        path: String,
        message: String,
    },
}

impl OverlayError {
    /// The message istioctl's Go code produces for this error.
    pub fn go_message(&self) -> &str {
        match self {
            OverlayError::Patch { message, .. }
            | OverlayError::Result { message }
            | OverlayError::GoPanic { message, .. } => message,
        }
    }
}

/// applyPatches: every patch in order against `object`.
pub fn apply_overlay(object: &Value, patches: &[OverlayPatch]) -> Result<Overlaid, OverlayError> {
    let Value::Object(m) = object else {
        return Err(OverlayError::Result {
            message: "the object is not a map".to_string(),
        });
    };
    let mut root = Node::Map(MapNode::from_yaml(m));
    let mut skipped = Vec::new();
    for (index, p) in patches.iter().enumerate() {
        let value = p.value.as_ref().map_or(Node::Nil, Node::from_json);
        let elements = path::path_from_string(&p.path);
        let outcome = get_path_context(&root, &elements)
            .and_then(|mut frames| write_path_context(&mut frames, value).map(|()| frames));
        match outcome {
            Ok(frames) => root = frames.into_iter().next().expect("root frame").node,
            Err(Failure {
                message,
                frames,
                panic,
            }) => {
                if let Some(frames) = frames {
                    root = frames.into_iter().next().expect("root frame").node;
                }
                let path = p.path.clone();
                skipped.push(if panic {
                    OverlayError::GoPanic {
                        index,
                        path,
                        message,
                    }
                } else {
                    OverlayError::Patch {
                        index,
                        path,
                        message,
                    }
                });
            }
        }
        if skipped
            .last()
            .is_some_and(|e| matches!(e, OverlayError::GoPanic { .. }))
        {
            return Err(skipped.pop().expect("just checked"));
        }
    }
    let object = root.to_json();
    // manifest.FromYaml decodes into unstructured, which insists on a string kind.
    if object
        .get("kind")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty)
    {
        return Err(OverlayError::Result {
            // sigs.k8s.io/yaml wraps the decoder's error twice.
            message: format!(
                "error unmarshaling JSON: while decoding JSON: Object 'Kind' is missing in '{}'",
                go_json(&object)
            ),
        });
    }
    Ok(Overlaid { object, skipped })
}

/// encoding/json.Marshal of the object (sorted keys, Go's escaping), as Go quotes it in errors.
fn go_json(v: &Value) -> String {
    goyaml::to_json(&to_template_value(v)).unwrap_or_default()
}

fn to_template_value(v: &Value) -> gotemplate::Value {
    use gotemplate::{IntKind, List, Map as TMap, Value as T};
    match v {
        Value::Null => T::Nil,
        Value::Bool(b) => T::Bool(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => T::Int(i, IntKind::Int64),
            None => T::Float(n.as_f64().unwrap_or_default()),
        },
        Value::String(s) => T::String(s.as_str().into()),
        Value::Array(items) => T::List(List::new(items.iter().map(to_template_value).collect())),
        Value::Object(m) => T::Map(TMap::from_entries(
            m.iter().map(|(k, v)| (k.as_str(), to_template_value(v))),
        )),
    }
}

/// A value in istioctl's tree, with the Go type tpath sees.
#[derive(Debug, Clone, PartialEq)]
enum Node {
    Nil,
    Bool(bool),
    /// Go `int` (yaml.v2's integers).
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<Node>),
    Map(MapNode),
}

#[derive(Debug, Clone, PartialEq)]
struct MapNode {
    /// `map[interface{}]interface{}` (from yaml.v2) rather than `map[string]interface{}`.
    any_keyed: bool,
    entries: BTreeMap<String, Node>,
}

impl MapNode {
    fn new(any_keyed: bool) -> MapNode {
        MapNode {
            any_keyed,
            entries: BTreeMap::new(),
        }
    }

    fn from_yaml(m: &Map<String, Value>) -> MapNode {
        MapNode {
            any_keyed: true,
            entries: m
                .iter()
                .map(|(k, v)| (k.clone(), Node::from_yaml(v)))
                .collect(),
        }
    }
}

impl Node {
    /// The object as yaml.v2 decodes it: integer literals are `int`.
    fn from_yaml(v: &Value) -> Node {
        match v {
            Value::Number(n) => match n.as_i64() {
                Some(i) => Node::Int(i),
                None => Node::Float(n.as_f64().unwrap_or_default()),
            },
            Value::Array(items) => Node::List(items.iter().map(Node::from_yaml).collect()),
            Value::Object(m) => Node::Map(MapNode::from_yaml(m)),
            other => Node::scalar(other),
        }
    }

    /// A patch value as encoding/json decodes it: every number a float64.
    fn from_json(v: &Value) -> Node {
        match v {
            Value::Number(n) => Node::Float(n.as_f64().unwrap_or_default()),
            Value::Array(items) => Node::List(items.iter().map(Node::from_json).collect()),
            Value::Object(m) => Node::Map(MapNode {
                any_keyed: false,
                entries: m
                    .iter()
                    .map(|(k, v)| (k.clone(), Node::from_json(v)))
                    .collect(),
            }),
            other => Node::scalar(other),
        }
    }

    fn scalar(v: &Value) -> Node {
        match v {
            Value::Bool(b) => Node::Bool(*b),
            Value::String(s) => Node::Str(s.clone()),
            _ => Node::Nil,
        }
    }

    /// A value sigs.k8s.io/yaml decoded (through JSON, so numbers are float64).
    fn from_template(v: &gotemplate::Value) -> Node {
        use gotemplate::Value as T;
        match v {
            T::Bool(b) => Node::Bool(*b),
            T::Int(i, _) => Node::Float(*i as f64),
            T::Float(f) => Node::Float(*f),
            T::String(s) => Node::Str(s.to_string()),
            T::List(l) => Node::List(l.items().iter().map(Node::from_template).collect()),
            T::Map(m) => Node::Map(MapNode {
                any_keyed: false,
                entries: m
                    .entries()
                    .iter()
                    .map(|(k, v)| (k.to_string(), Node::from_template(v)))
                    .collect(),
            }),
            _ => Node::Nil,
        }
    }

    /// The node after yaml.v2 Marshal and manifest.FromYaml (sigs.k8s.io/yaml into unstructured).
    fn to_json(&self) -> Value {
        match self {
            Node::Nil => Value::Null,
            Node::Bool(b) => Value::Bool(*b),
            Node::Int(i) => Value::from(*i),
            Node::Float(f) => unstructured_number(*f),
            Node::Str(s) => Value::String(s.clone()),
            Node::List(items) => Value::Array(items.iter().map(Node::to_json).collect()),
            Node::Map(m) => Value::Object(
                m.entries
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_json()))
                    .collect(),
            ),
        }
    }

    /// `%T`.
    fn go_type(&self) -> &'static str {
        match self {
            Node::Nil => "<nil>",
            Node::Bool(_) => "bool",
            Node::Int(_) => "int",
            Node::Float(_) => "float64",
            Node::Str(_) => "string",
            Node::List(_) => "[]interface {}",
            Node::Map(m) if m.any_keyed => "map[interface {}]interface {}",
            Node::Map(_) => "map[string]interface {}",
        }
    }

    /// `fmt.Sprint`.
    fn sprint(&self) -> String {
        match self {
            Node::Nil => "<nil>".to_string(),
            Node::Bool(b) => b.to_string(),
            Node::Int(i) => i.to_string(),
            Node::Float(f) => float_v(*f),
            Node::Str(s) => s.clone(),
            Node::List(items) => {
                let parts: Vec<String> = items.iter().map(Node::sprint).collect();
                format!("[{}]", parts.join(" "))
            }
            Node::Map(m) => {
                let parts: Vec<String> = m
                    .entries
                    .iter()
                    .map(|(k, v)| format!("{k}:{}", v.sprint()))
                    .collect();
                format!("map[{}]", parts.join(" "))
            }
        }
    }
}

/// Which child of a frame's node the next frame is (PathContext.KeyToChild).
#[derive(Debug, Clone)]
enum Key {
    Map(String),
    Index(usize),
}

/// One PathContext: a node on the path, kept by value; writes are carried back up the frames as
/// tpath's setPathContext carries them.
#[derive(Debug, Clone)]
struct Frame {
    node: Node,
    key: Option<Key>,
    /// A list reached through a map key, which tpath holds as `*interface{}` (only such lists
    /// can be written into or deleted from).
    ptr: bool,
    /// The node is the one its parent holds (tpath's in-place map updates reach the tree through
    /// it), not a fresh one tpath made and has not yet stored.
    attached: bool,
}

struct Failure {
    message: String,
    /// The frames with whatever tpath changed in place before failing (None: nothing changed).
    frames: Option<Vec<Frame>>,
    panic: bool,
}

impl Failure {
    fn at(message: String) -> Failure {
        Failure {
            message,
            frames: None,
            panic: false,
        }
    }
}

fn join(p: &[String]) -> String {
    p.join(".")
}

/// getPathContext with createMissing.
fn get_path_context(root: &Node, full: &[String]) -> Result<Vec<Frame>, Failure> {
    let mut frames = vec![Frame {
        node: root.clone(),
        key: None,
        ptr: false,
        attached: true,
    }];
    let mut i = 0;
    while i < full.len() {
        let pe = &full[i];
        let remain = &full[i..];
        let cur = frames.last_mut().expect("at least the root");
        if cur.node == Node::Nil {
            // The new node is not stored in the parent until the write carries it up.
            cur.node = if path::is_n(pe) || path::is_kv(pe) {
                Node::List(Vec::new())
            } else {
                Node::Map(MapNode::new(false))
            };
            cur.ptr = false;
            cur.attached = false;
        }
        match &mut cur.node {
            Node::List(list) => {
                if let Some(n) = path::path_n(pe) {
                    let (idx, found, attached) = if n < 0 || n as usize >= list.len() {
                        (list.len(), Node::Map(MapNode::new(false)), false)
                    } else {
                        (n as usize, list[n as usize].clone(), true)
                    };
                    cur.key = Some(Key::Index(idx));
                    frames.push(Frame {
                        node: found,
                        key: None,
                        ptr: false,
                        attached,
                    });
                    i += 1;
                    continue;
                }
                let mut matched = None;
                for (idx, le) in list.iter().enumerate() {
                    if let Node::Map(lm) = le {
                        let (k, v) = path::path_kv(pe)
                            .map_err(|e| Failure::at(format!("path {}: {e}", join(full))))?;
                        if lm.entries.get(&k).unwrap_or(&Node::Nil).sprint() == v {
                            matched = Some((idx, le.clone(), Some(Key::Map(k))));
                            break;
                        }
                        continue;
                    }
                    let v = path::path_v(pe)
                        .map_err(|e| Failure::at(format!("path {}: {e}", join(full))))?;
                    if matches_regex(&v, &le.sprint()) {
                        matched = Some((idx, le.clone(), None));
                        break;
                    }
                }
                let Some((idx, node, key)) = matched else {
                    return Err(Failure::at(format!(
                        "path {}: element {pe} not found",
                        join(full)
                    )));
                };
                let kv_terminal = key.is_some() && remain.len() == 1;
                cur.key = Some(Key::Index(idx));
                frames.push(Frame {
                    node,
                    key,
                    ptr: false,
                    attached: true,
                });
                if kv_terminal {
                    return Ok(frames);
                }
                i += 1;
            }
            Node::Map(m) => {
                if !m.entries.contains_key(pe.as_str()) {
                    let created = if !m.any_keyed && remain.len() > 1 && path::is_n(&remain[1]) {
                        Node::List(Vec::new())
                    } else {
                        Node::Map(MapNode::new(m.any_keyed))
                    };
                    m.entries.insert(pe.clone(), created);
                }
                let node = m.entries[pe.as_str()].clone();
                let ptr = matches!(node, Node::List(_));
                cur.key = Some(Key::Map(pe.clone()));
                frames.push(Frame {
                    node,
                    key: None,
                    ptr,
                    attached: true,
                });
                i += 1;
            }
            other => {
                return Err(Failure::at(format!(
                    "leaf type {} in non-leaf Node {}",
                    other.go_type(),
                    join(remain)
                )));
            }
        }
    }
    Ok(frames)
}

/// Go's regexp.MatchString (unanchored); a bad pattern matches nothing, as tpath logs and moves on.
fn matches_regex(pattern: &str, s: &str) -> bool {
    regex::Regex::new(pattern).is_ok_and(|re| re.is_match(s))
}

/// WritePathContext.
fn write_path_context(frames: &mut [Frame], value: Node) -> Result<(), Failure> {
    if value != Node::Nil {
        return set_path_context(frames, value);
    }
    let l = frames.len() - 1;
    if l == 0 {
        return Err(Failure::at("cannot delete root element".to_string()));
    }
    let parent = &mut frames[l - 1];
    match (&mut parent.node, parent.key.clone()) {
        (Node::List(list), Some(Key::Index(idx))) => {
            if !parent.ptr {
                return Err(Failure::at(
                    "deleteFromSlicePtr parent type is []interface {}, must be *[]interface{}"
                        .to_string(),
                ));
            }
            if idx >= list.len() {
                return Err(Failure {
                    message: format!("deleting index {idx} of a list of {}", list.len()),
                    frames: None,
                    panic: true,
                });
            }
            list.remove(idx);
            // The shortened list is stored back into the grandparent map explicitly.
            let list_node = parent.node.clone();
            let gp = &mut frames[l - 2];
            match (&mut gp.node, gp.key.clone()) {
                (Node::Map(m), Some(Key::Map(k))) => {
                    m.entries.insert(k, list_node);
                }
                (other, _) => {
                    let t = if gp.ptr {
                        "*interface {}"
                    } else {
                        other.go_type()
                    };
                    return Err(Failure::at(format!(
                        "cannot delete path: unsupported parent.parent type {t} for delete"
                    )));
                }
            }
            carry_in_place(frames, l - 2);
            Ok(())
        }
        (Node::Map(m), Some(Key::Map(k))) if !parent.ptr => {
            m.entries.remove(&k);
            carry_in_place(frames, l - 1);
            Ok(())
        }
        (other, _) => {
            let t = if parent.ptr {
                "*interface {}"
            } else {
                other.go_type()
            };
            Err(Failure::at(format!(
                "cannot delete path: unsupported parent type {t} for delete"
            )))
        }
    }
}

/// What tpath changed in place at `from` reaches the tree through every frame that is its
/// parent's own node; a fresh node (or a list that grew) cuts the chain.
fn carry_in_place(frames: &mut [Frame], from: usize) {
    let mut level = from;
    while level > 0 && frames[level].attached {
        let node = frames[level].node.clone();
        store_child(&mut frames[level - 1], node);
        level -= 1;
    }
}

fn store_child(parent: &mut Frame, node: Node) {
    match (&mut parent.node, &parent.key) {
        (Node::Map(m), Some(Key::Map(k))) => {
            m.entries.insert(k.clone(), node);
        }
        (Node::List(list), Some(Key::Index(i))) if *i < list.len() => list[*i] = node,
        _ => {}
    }
}

/// setPathContext: write the value, then each parent into its parent, up to the root.
fn set_path_context(frames: &mut [Frame], value: Node) -> Result<(), Failure> {
    let mut level = frames.len() - 1;
    let mut value = value;
    let mut leaf = true;
    loop {
        match set_value_context(frames, level, value, leaf) {
            Ok(true) => {}
            Ok(false) => {
                // The write stopped short of the root; what it did in place still shows.
                carry_in_place(frames, level.saturating_sub(1));
                return Ok(());
            }
            Err(message) => {
                carry_in_place(frames, level);
                return Err(Failure {
                    message,
                    frames: Some(frames.to_vec()),
                    panic: false,
                });
            }
        }
        if level <= 1 {
            return Ok(());
        }
        level -= 1;
        value = frames[level].node.clone();
        leaf = false;
    }
}

/// setValueContext for the frame at `level`; Ok(false) stops the upward writes.
fn set_value_context(
    frames: &mut [Frame],
    level: usize,
    value: Node,
    leaf: bool,
) -> Result<bool, String> {
    if level == 0 {
        return Ok(false);
    }
    let (vv, map_from_string) = try_unmarshal_string_to_yaml(value);
    let (before, rest) = frames.split_at_mut(level);
    let parent = &mut before[level - 1];
    let this = &mut rest[0];
    match &mut parent.node {
        Node::List(list) if parent.ptr => {
            let Some(Key::Index(idx)) = parent.key else {
                return Err("list frame without an index".to_string());
            };
            if idx >= list.len() {
                list.resize(idx + 1, Node::Nil);
                // A grown list is a new Go slice: the map still holds the old one.
                parent.attached = false;
            }
            list[idx] = vv.clone();
            this.node = vv;
            Ok(true)
        }
        Node::List(_) => Err("don't know about type []interface {}".to_string()),
        Node::Map(m) if !m.any_keyed => {
            let Some(Key::Map(key)) = parent.key.clone() else {
                return Err("map frame without a key".to_string());
            };
            if this.ptr && !map_from_string {
                if !leaf {
                    // Carrying a list frame up: the pointer itself is stored.
                    m.entries.insert(key, vv.clone());
                    this.node = vv;
                    return Ok(true);
                }
                let Node::List(existing) = &this.node else {
                    return Err(format!("don't know about vnc type {}", this.node.go_type()));
                };
                // A value written to a list-valued key of such a map is appended to the list.
                let mut appended = existing.clone();
                let is_map = matches!(&vv, Node::Map(vm) if !vm.any_keyed);
                appended.push(vv);
                let appended = Node::List(appended);
                m.entries.insert(key, appended.clone());
                if !is_map {
                    this.node = appended;
                }
                return Ok(true);
            }
            if map_from_string {
                m.entries.remove(&key);
                if let Node::Map(vm) = vv {
                    // Go takes the first key of a random map order; a one-key map is the
                    // intended use. Go stores nothing for a missing root key.
                    if let Some((k, v)) = vm.entries.into_iter().next() {
                        m.entries.insert(k, v);
                    }
                }
                return Ok(false);
            }
            m.entries.insert(key, vv.clone());
            this.node = vv;
            Ok(true)
        }
        Node::Map(m) => {
            let Some(Key::Map(key)) = parent.key.clone() else {
                return Err("map frame without a key".to_string());
            };
            m.entries.insert(key, vv.clone());
            this.node = vv;
            Ok(true)
        }
        other => Err(format!("don't know about type {}", other.go_type())),
    }
}

/// tryToUnmarshalStringToYAML: a string that looks like a YAML map (one line with `": "`, or
/// several lines with a colon) and is not JSON becomes that map.
fn try_unmarshal_string_to_yaml(value: Node) -> (Node, bool) {
    let Node::Str(s) = &value else {
        return (value, false);
    };
    let lines = s.split('\n').count();
    if !((lines == 1 && s.contains(": ")) || (lines > 1 && s.contains(':'))) {
        return (value, false);
    }
    // JSON text stays a string (Go tries encoding/json into a map first).
    if serde_json::from_str::<Map<String, Value>>(s).is_ok() {
        return (value, false);
    }
    match goyaml::from_yaml(s) {
        Ok(gotemplate::Value::Map(m)) => (Node::from_template(&gotemplate::Value::Map(m)), true),
        Ok(gotemplate::Value::Nil) => (Node::Map(MapNode::new(false)), true),
        _ => (value, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_printing() {
        let n = Node::from_json(&serde_json::json!({"b": 1000000, "a": [true, null]}));
        assert_eq!(n.sprint(), "map[a:[true <nil>] b:1e+06]");
        assert_eq!(Node::from_yaml(&serde_json::json!(80)).sprint(), "80");
    }

    #[test]
    fn yaml_strings_become_maps() {
        let (n, from_string) = try_unmarshal_string_to_yaml(Node::Str("a: 1".into()));
        assert!(from_string);
        assert_eq!(n.sprint(), "map[a:1]");
        let (_, from_string) = try_unmarshal_string_to_yaml(Node::Str("{\"a\": 1}".into()));
        assert!(!from_string);
        let (_, from_string) = try_unmarshal_string_to_yaml(Node::Str("http://x".into()));
        assert!(!from_string);
    }
}
