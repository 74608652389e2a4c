//! Object-level diff of two manifests (`bosun manifest diff`), in the spirit of the
//! `istioctl manifest diff` that Istio removed in 1.24: objects are matched by
//! `Kind:Namespace:Name`, `--select`/`--ignore` take lists of such patterns with `*` wildcards
//! (an empty part matches anything, so `::` selects everything), and for every object present
//! on both sides the differing fields are listed with their old and new values.
//!
//! Lists whose items are all maps with distinct string `name` fields (containers, env, ports,
//! volumes) are matched by name and shown with istioctl's `[name:NAME]` path selector; other
//! lists by index. Multi-line strings (ConfigMap data, injection templates) are shown as a line
//! diff rather than as two long values.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::object::{Object, ObjectError};

/// A manifest that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiffError {
    #[error("{file}: {source}")]
    Object {
        file: String,
        #[source]
        source: ObjectError,
    },
    #[error("invalid resource pattern {0:?}: expected Kind:Namespace:Name")]
    Pattern(String),
}

/// One `Kind:Namespace:Name` pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    kind: String,
    namespace: String,
    name: String,
}

impl Pattern {
    /// Parses `Kind:Namespace:Name` (missing trailing parts match anything).
    pub fn parse(text: &str) -> Result<Pattern, DiffError> {
        let parts: Vec<&str> = text.trim().split(':').collect();
        if parts.len() > 3 || text.trim().is_empty() {
            return Err(DiffError::Pattern(text.to_string()));
        }
        let part = |i: usize| parts.get(i).map_or(String::new(), |s| s.to_string());
        Ok(Pattern {
            kind: part(0),
            namespace: part(1),
            name: part(2),
        })
    }

    /// A comma-separated list of patterns, as the flags take them.
    pub fn parse_list(text: &str) -> Result<Vec<Pattern>, DiffError> {
        text.split(',')
            .filter(|s| !s.trim().is_empty())
            .map(Pattern::parse)
            .collect()
    }

    pub fn matches(&self, key: &Key) -> bool {
        glob(&self.kind, &key.kind)
            && glob(&self.namespace, &key.namespace)
            && glob(&self.name, &key.name)
    }
}

/// `*` matches any run of characters, `?` one; an empty pattern matches anything.
fn glob(pattern: &str, text: &str) -> bool {
    if pattern.is_empty() {
        return true;
    }
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// An object's identity.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key {
    pub kind: String,
    pub namespace: String,
    pub name: String,
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.kind, self.namespace, self.name)
    }
}

impl Key {
    pub fn of(o: &Object) -> Key {
        Key {
            kind: o.kind().to_string(),
            namespace: o.namespace().to_string(),
            name: o.name().to_string(),
        }
    }
}

/// Every object of a manifest (documents split at `---` lines, empty ones skipped).
pub fn read_objects(file: &str, text: &str) -> Result<Vec<Object>, DiffError> {
    let mut out = Vec::new();
    for doc in iop::merge::split_yaml_documents(text) {
        if let Some(o) = Object::from_yaml(doc).map_err(|source| DiffError::Object {
            file: file.to_string(),
            source,
        })? {
            // A `List` (kubectl's output form) contributes its items.
            if o.kind() == "List"
                && let Some(items) = o.value().get("items").and_then(Value::as_array)
            {
                out.extend(items.iter().map(|v| Object::new(v.clone())));
                continue;
            }
            out.push(o);
        }
    }
    Ok(out)
}

/// Which objects take part.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Only objects matching one of these (all when empty).
    pub select: Vec<Pattern>,
    /// Never objects matching one of these.
    pub ignore: Vec<Pattern>,
}

impl Filter {
    pub fn keeps(&self, key: &Key) -> bool {
        (self.select.is_empty() || self.select.iter().any(|p| p.matches(key)))
            && !self.ignore.iter().any(|p| p.matches(key))
    }
}

/// One differing field.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// Present on both sides with different values.
    Changed {
        path: String,
        old: Value,
        new: Value,
    },
    /// Only in A.
    Removed { path: String, old: Value },
    /// Only in B.
    Added { path: String, new: Value },
}

/// The result of comparing two manifests.
#[derive(Clone, Debug, Default)]
pub struct ManifestDiff {
    pub only_a: Vec<Key>,
    pub only_b: Vec<Key>,
    pub changed: Vec<(Key, Vec<Change>)>,
    pub identical: usize,
}

impl ManifestDiff {
    pub fn is_empty(&self) -> bool {
        self.only_a.is_empty() && self.only_b.is_empty() && self.changed.is_empty()
    }

    /// The report `manifest diff` prints (`a` and `b` name the two sides).
    pub fn render(&self, a: &str, b: &str) -> String {
        if self.is_empty() {
            return format!("Manifests are identical ({} objects)\n", self.identical);
        }
        let mut out = String::new();
        let section = |out: &mut String, title: String, keys: &[Key]| {
            if keys.is_empty() {
                return;
            }
            let _ = writeln!(out, "{title} ({}):", keys.len());
            for k in keys {
                let _ = writeln!(out, "  {k}");
            }
        };
        section(&mut out, format!("Only in {a}"), &self.only_a);
        section(&mut out, format!("Only in {b}"), &self.only_b);
        if !self.changed.is_empty() {
            let _ = writeln!(out, "Differing objects ({}):", self.changed.len());
            for (key, changes) in &self.changed {
                let _ = writeln!(out, "  {key}");
                for c in changes {
                    write_change(&mut out, c);
                }
            }
        }
        let _ = writeln!(
            out,
            "{} only in {a}, {} only in {b}, {} differing, {} identical",
            self.only_a.len(),
            self.only_b.len(),
            self.changed.len(),
            self.identical
        );
        out
    }
}

/// One field change as `    path: old → new`; a multi-line string as a line diff below it,
/// each run of edits headed by the line (of the old text) where it starts.
pub fn write_change(out: &mut String, change: &Change) {
    match change {
        Change::Changed {
            path,
            old: Value::String(old),
            new: Value::String(new),
        } if old.contains('\n') || new.contains('\n') => {
            let _ = writeln!(out, "    {path}: (text)");
            let old: Vec<&str> = old.split('\n').collect();
            let new: Vec<&str> = new.split('\n').collect();
            let (mut line, mut in_hunk) = (1, false);
            for chunk in iop::profile::diff_chunks(&old, &new) {
                let edits = !chunk.deleted.is_empty() || !chunk.added.is_empty();
                if edits && !in_hunk {
                    let _ = writeln!(out, "      @@ line {line}");
                }
                in_hunk = edits && chunk.equal.is_empty();
                line += chunk.deleted.len() + chunk.equal.len();
                // No trailing blank after the sign for empty lines.
                for l in chunk.deleted {
                    let _ = writeln!(out, "{}", format!("      - {l}").trim_end());
                }
                for l in chunk.added {
                    let _ = writeln!(out, "{}", format!("      + {l}").trim_end());
                }
            }
        }
        Change::Changed { path, old, new } => {
            let _ = writeln!(out, "    {path}: {} → {}", show(old), show(new));
        }
        Change::Added { path, new } => {
            let _ = writeln!(out, "    {path}: (absent) → {}", show(new));
        }
        Change::Removed { path, old } => {
            let _ = writeln!(out, "    {path}: {} → (absent)", show(old));
        }
    }
}

/// A value on one line: JSON (strings quoted, so `"1"` and `1` differ visibly).
fn show(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// Compares two manifests' objects. Objects appear in key order; a key given twice on one side
/// keeps its last object (as applying the manifest would).
pub fn diff(a: &[Object], b: &[Object], filter: &Filter) -> ManifestDiff {
    let index = |objs: &[Object]| -> BTreeMap<Key, Value> {
        objs.iter()
            .map(|o| (Key::of(o), o.value().clone()))
            .filter(|(k, _)| filter.keeps(k))
            .collect()
    };
    let (ia, ib) = (index(a), index(b));
    let mut out = ManifestDiff::default();
    for (k, va) in &ia {
        match ib.get(k) {
            None => out.only_a.push(k.clone()),
            Some(vb) => {
                let mut changes = Vec::new();
                compare(va, vb, "", &mut changes);
                if changes.is_empty() {
                    out.identical += 1;
                } else {
                    out.changed.push((k.clone(), changes));
                }
            }
        }
    }
    out.only_b = ib
        .keys()
        .filter(|k| !ia.contains_key(*k))
        .cloned()
        .collect();
    out
}

/// The differing fields of two values (`a` old, `b` new), with the paths and list matching
/// that [`diff`] uses for whole objects.
pub fn compare_values(a: &Value, b: &Value) -> Vec<Change> {
    let mut out = Vec::new();
    compare(a, b, "", &mut out);
    out
}

fn join(path: &str, seg: &str) -> String {
    if path.is_empty() {
        seg.to_string()
    } else {
        format!("{path}.{seg}")
    }
}

fn key_seg(k: &str) -> String {
    k.replace('.', "\\.")
}

fn compare(a: &Value, b: &Value, path: &str, out: &mut Vec<Change>) {
    match (a, b) {
        (Value::Object(ma), Value::Object(mb)) => compare_maps(ma, mb, path, out),
        (Value::Array(la), Value::Array(lb)) => {
            if let (Some(na), Some(nb)) = (names(la), names(lb)) {
                let before = out.len();
                let mb: BTreeMap<&str, &Value> = nb.iter().copied().zip(lb.iter()).collect();
                let ma: BTreeMap<&str, &Value> = na.iter().copied().zip(la.iter()).collect();
                for (name, va) in na.iter().zip(la.iter()) {
                    let p = join(path, &format!("[name:{name}]"));
                    match mb.get(name) {
                        Some(vb) => compare(va, vb, &p, out),
                        None => out.push(Change::Removed {
                            path: p,
                            old: va.clone(),
                        }),
                    }
                }
                for (name, vb) in nb.iter().zip(lb.iter()) {
                    if !ma.contains_key(name) {
                        out.push(Change::Added {
                            path: join(path, &format!("[name:{name}]")),
                            new: vb.clone(),
                        });
                    }
                }
                if out.len() == before && na != nb {
                    out.push(Change::Changed {
                        path: join(path, "(order)"),
                        old: Value::from(na.iter().map(|s| Value::from(*s)).collect::<Vec<_>>()),
                        new: Value::from(nb.iter().map(|s| Value::from(*s)).collect::<Vec<_>>()),
                    });
                }
                return;
            }
            for i in 0..la.len().max(lb.len()) {
                let p = format!("{path}[{i}]");
                match (la.get(i), lb.get(i)) {
                    (Some(x), Some(y)) => compare(x, y, &p, out),
                    (Some(x), None) => out.push(Change::Removed {
                        path: p,
                        old: x.clone(),
                    }),
                    (None, Some(y)) => out.push(Change::Added {
                        path: p,
                        new: y.clone(),
                    }),
                    (None, None) => {}
                }
            }
        }
        _ if values_equal(a, b) => {}
        _ => out.push(Change::Changed {
            path: path.to_string(),
            old: a.clone(),
            new: b.clone(),
        }),
    }
}

fn compare_maps(
    ma: &Map<String, Value>,
    mb: &Map<String, Value>,
    path: &str,
    out: &mut Vec<Change>,
) {
    let mut keys: Vec<&String> = ma.keys().chain(mb.keys()).collect();
    keys.sort();
    keys.dedup();
    for k in keys {
        let p = join(path, &key_seg(k));
        match (ma.get(k), mb.get(k)) {
            (Some(x), Some(y)) => compare(x, y, &p, out),
            (Some(x), None) => out.push(Change::Removed {
                path: p,
                old: x.clone(),
            }),
            (None, Some(y)) => out.push(Change::Added {
                path: p,
                new: y.clone(),
            }),
            (None, None) => {}
        }
    }
}

/// Numbers compare by value (`1` and `1.0` are the same to Kubernetes).
fn values_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// The items' `name`s, when every item is a map with a distinct string name.
fn names(items: &[Value]) -> Option<Vec<&str>> {
    if items.is_empty() {
        return None;
    }
    let names: Vec<&str> = items
        .iter()
        .map(|i| i.get("name").and_then(Value::as_str))
        .collect::<Option<_>>()?;
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    (sorted.len() == names.len()).then_some(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob("", "x"));
        assert!(glob("*", ""));
        assert!(glob("istio-*", "istio-system"));
        assert!(glob("*gate*", "istio-ingressgateway"));
        assert!(!glob("istio-?", "istio-ab"));
        assert!(glob("Deploy?ent", "Deployment"));
    }

    #[test]
    fn patterns() {
        let k = Key {
            kind: "Service".into(),
            namespace: "istio-system".into(),
            name: "istiod".into(),
        };
        assert!(Pattern::parse("::").unwrap().matches(&k));
        assert!(Pattern::parse("Service:*:istiod").unwrap().matches(&k));
        assert!(Pattern::parse("Service").unwrap().matches(&k));
        assert!(!Pattern::parse("Deployment:*:*").unwrap().matches(&k));
        assert!(Pattern::parse("a:b:c:d").is_err());
        assert_eq!(Pattern::parse_list("A::,B::x").unwrap().len(), 2);
    }
}
