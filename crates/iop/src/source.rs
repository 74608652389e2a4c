//! Where each value of the merged IstioOperator came from: the profile, a `-f` file (with line
//! and column), or a `--set` flag. Layers are added in the order istioctl merges them (profile,
//! then files in order, then flags); a later layer's record for a path replaces the earlier
//! one, and when the later value is not a mapping (a scalar or a list, which replace rather
//! than merge) everything recorded under that path goes too.

use std::collections::BTreeMap;
use std::fmt;

pub use goyaml::{Mark, PathSeg, Shape};

/// Where one value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A profile (`spec.profile`, or the default one), read from `file`.
    Profile {
        name: String,
        file: String,
        line: usize,
        col: usize,
    },
    /// A `-f` file.
    File {
        file: String,
        line: usize,
        col: usize,
    },
    /// A `--set` flag, as given (`values.global.hub=foo`).
    SetFlag { flag: String },
    /// An input given as an object, not text (the IstioOperator resource the operator
    /// reads): named, with no line to point at.
    Object { name: String },
}

impl Origin {
    /// The file, line and column, when the value came from a file.
    pub fn location(&self) -> Option<(&str, usize, usize)> {
        match self {
            Origin::Profile {
                file, line, col, ..
            }
            | Origin::File { file, line, col } => Some((file, *line, *col)),
            Origin::SetFlag { .. } | Origin::Object { .. } => None,
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Profile {
                name,
                file,
                line,
                col,
            } => write!(f, "{file}:{line}:{col} (profile {name})"),
            Origin::File { file, line, col } => write!(f, "{file}:{line}:{col}"),
            Origin::SetFlag { flag } => write!(f, "--set {flag}"),
            Origin::Object { name } => f.write_str(name),
        }
    }
}

/// Points at line `line`, column `col` (1-based) of `file`, whose text is `text`: the location,
/// the line, and a caret under the column (as every input error shows it). A line past the
/// end (a YAML error at the end of the file) shows the location alone.
pub fn pointer(file: &str, text: &str, line: usize, col: usize) -> String {
    let gutter = line.to_string();
    let pad = " ".repeat(gutter.len());
    let mut out = format!("{pad}--> {file}:{line}:{col}\n");
    let Some(src) = text.lines().nth(line.saturating_sub(1)) else {
        return out;
    };
    // The caret goes under the column's character; tabs keep their width by being copied.
    let lead: String = src
        .chars()
        .take(col.saturating_sub(1))
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    out.push_str(&format!("{pad} |\n{gutter} | {src}\n{pad} | {lead}^\n"));
    out
}

/// A file that could not be read as YAML.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {source}")]
pub struct SourceError {
    pub file: String,
    #[source]
    pub source: goyaml::YamlError,
}

/// One layer: records in document order (parents before children).
#[derive(Clone, Debug, Default)]
pub struct Layer {
    records: Vec<(Vec<PathSeg>, Shape, Origin)>,
}

impl Layer {
    /// Every node of an IstioOperator file's first document, attributed to `-f file`.
    pub fn file(file: &str, text: &str) -> Result<Layer, SourceError> {
        Layer::from_text(file, text, |m| Origin::File {
            file: file.to_string(),
            line: m.line,
            col: m.column,
        })
    }

    /// Every node of profile `name`'s file.
    pub fn profile(name: &str, file: &str, text: &str) -> Result<Layer, SourceError> {
        Layer::from_text(file, text, |m| Origin::Profile {
            name: name.to_string(),
            file: file.to_string(),
            line: m.line,
            col: m.column,
        })
    }

    /// Every node of an input given as an object, attributed to it by `name` (so that a
    /// value it sets is not taken for the profile's that it replaced).
    pub fn object(name: &str, object: &serde_json::Map<String, serde_json::Value>) -> Layer {
        fn walk(
            v: &serde_json::Value,
            path: &mut Vec<PathSeg>,
            origin: &Origin,
            out: &mut Vec<(Vec<PathSeg>, Shape, Origin)>,
        ) {
            use serde_json::Value;
            let shape = match v {
                Value::Object(_) => Shape::Mapping,
                Value::Array(_) => Shape::Sequence,
                _ => Shape::Scalar,
            };
            out.push((path.clone(), shape, origin.clone()));
            match v {
                Value::Object(m) => {
                    for (k, child) in m {
                        path.push(PathSeg::Key(k.clone()));
                        walk(child, path, origin, out);
                        path.pop();
                    }
                }
                Value::Array(items) => {
                    for (i, child) in items.iter().enumerate() {
                        path.push(PathSeg::Index(i));
                        walk(child, path, origin, out);
                        path.pop();
                    }
                }
                _ => {}
            }
        }
        let origin = Origin::Object {
            name: name.to_string(),
        };
        // The root, then each entry under it (walked in place: the map is not copied).
        let mut records = vec![(Vec::new(), Shape::Mapping, origin.clone())];
        for (k, v) in object {
            walk(v, &mut vec![PathSeg::Key(k.clone())], &origin, &mut records);
        }
        Layer { records }
    }

    /// A `--set` flag that sets `path` (from the document root, e.g. `spec.values.global.hub`).
    /// What it sets replaces whatever was recorded under the path.
    pub fn set_flag(flag: &str, path: Vec<PathSeg>) -> Layer {
        Layer {
            records: vec![(
                path,
                Shape::Scalar,
                Origin::SetFlag {
                    flag: flag.to_string(),
                },
            )],
        }
    }

    fn from_text(
        file: &str,
        text: &str,
        origin: impl Fn(Mark) -> Origin,
    ) -> Result<Layer, SourceError> {
        let positions = goyaml::positions(text).map_err(|source| SourceError {
            file: file.to_string(),
            source,
        })?;
        Ok(Layer {
            records: positions
                .into_iter()
                .map(|p| {
                    let o = origin(p.mark());
                    (p.path, p.shape, o)
                })
                .collect(),
        })
    }
}

/// The origin of every recorded path of the merged IstioOperator.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    records: BTreeMap<Vec<PathSeg>, Origin>,
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Adds a layer on top of the earlier ones.
    pub fn push(&mut self, layer: Layer) {
        for (path, shape, origin) in layer.records {
            if shape != Shape::Mapping {
                self.remove_under(&path);
            }
            self.records.insert(path, origin);
        }
    }

    /// [`Layer::file`] pushed.
    pub fn push_file(&mut self, file: &str, text: &str) -> Result<(), SourceError> {
        self.push(Layer::file(file, text)?);
        Ok(())
    }

    /// Removes the records strictly under `path` (paths sort after their prefix, contiguously).
    fn remove_under(&mut self, path: &[PathSeg]) {
        let under: Vec<Vec<PathSeg>> = self
            .records
            .range(path.to_vec()..)
            .skip_while(|(p, _)| p.as_slice() == path)
            .take_while(|(p, _)| p.starts_with(path))
            .map(|(p, _)| p.clone())
            .collect();
        for p in under {
            self.records.remove(&p);
        }
    }

    /// The origin of `path`; else, when something was recorded under it, the first such
    /// record (a key that only a `--set` flag under it created, such as the misspelt
    /// `components.pilott` of `--set components.pilott.enabled=true`: files record every key
    /// they write, flags only the leaf); else that of its nearest recorded ancestor (a value the
    /// merge created inside something a layer set, or a default, is attributed to what set its
    /// parent).
    pub fn lookup(&self, path: &[PathSeg]) -> Option<&Origin> {
        self.records.get(path).or_else(|| {
            self.records
                .range(path.to_vec()..)
                .take_while(|(p, _)| p.starts_with(path))
                .map(|(_, o)| o)
                .next()
                .or_else(|| {
                    (0..path.len())
                        .rev()
                        .find_map(|n| self.records.get(&path[..n]))
                })
        })
    }

    /// Records for `to` what is recorded for `from` and under it (for values the merge copies,
    /// such as `spec.hub` into `spec.values.global.hub`); earlier records under `to` go.
    pub fn alias(&mut self, from: &[PathSeg], to: &[PathSeg]) {
        let copies: Vec<(Vec<PathSeg>, Origin)> = self
            .records
            .range(from.to_vec()..)
            .take_while(|(p, _)| p.starts_with(from))
            .map(|(p, o)| {
                let mut q = to.to_vec();
                q.extend_from_slice(&p[from.len()..]);
                (q, o.clone())
            })
            .collect();
        if copies.is_empty() {
            return;
        }
        self.remove_under(to);
        for (p, o) in copies {
            self.records.insert(p, o);
        }
    }

    /// The origin recorded for exactly `path`.
    pub fn get(&self, path: &[PathSeg]) -> Option<&Origin> {
        self.records.get(path)
    }

    /// Every record, in path order (what `profile dump --explain` prints).
    pub fn iter(&self) -> impl Iterator<Item = (&[PathSeg], &Origin)> {
        self.records.iter().map(|(p, o)| (p.as_slice(), o))
    }
}

/// A path from dotted text (`spec.components.pilot.k8s`, `a.b[0].c`): for tests and callers that
/// name paths in istioctl's way. Keys cannot contain `.` or `[` here.
pub fn path(text: &str) -> Vec<PathSeg> {
    let mut out = Vec::new();
    for part in text.split('.').filter(|s| !s.is_empty()) {
        let mut rest = part;
        if let Some(i) = rest.find('[') {
            if i > 0 {
                out.push(PathSeg::Key(rest[..i].to_string()));
            }
            rest = &rest[i..];
            while let Some(r) = rest.strip_prefix('[') {
                let end = r.find(']').unwrap_or(r.len());
                match r[..end].parse() {
                    Ok(n) => out.push(PathSeg::Index(n)),
                    Err(_) => out.push(PathSeg::Key(r[..end].to_string())),
                }
                rest = r.get(end + 1..).unwrap_or("");
            }
        } else {
            out.push(PathSeg::Key(rest.to_string()));
        }
    }
    out
}

/// A path as istioctl prints field paths: dotted keys, `[i]` for list items, and relative to
/// `spec` when under it (`components.pilot.k8s.replicaCount`, `values.global.hub`).
pub fn dotted(p: &[PathSeg]) -> String {
    let p = match p.first() {
        Some(PathSeg::Key(k)) if k == "spec" && p.len() > 1 => &p[1..],
        _ => p,
    };
    let mut out = String::new();
    for seg in p {
        match seg {
            PathSeg::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            PathSeg::Index(i) => {
                out.push_str(&format!("[{i}]"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_layers_replace_scalars_and_lists_with_their_subtrees_and_merge_maps() {
        let profile =
            "spec:\n  hub: a\n  values:\n    global:\n      x: 1\n    list:\n    - p: 1\n";
        let file = "spec:\n  values:\n    list: []\n    global:\n      z: 2\n";
        let mut sm = SourceMap::new();
        sm.push(Layer::profile("default", "profiles/default.yaml", profile).unwrap());
        sm.push(Layer::file("my.yaml", file).unwrap());
        fn at_in(sm: &SourceMap, p: &str) -> Option<String> {
            sm.lookup(&path(p)).map(|o| o.to_string())
        }
        let at = |p: &str| at_in(&sm, p);
        assert_eq!(
            at("spec.hub").as_deref(),
            Some("profiles/default.yaml:2:3 (profile default)")
        );
        assert_eq!(
            at("spec.values.global.x").as_deref(),
            Some("profiles/default.yaml:5:7 (profile default)")
        );
        assert_eq!(at("spec.values.global.z").as_deref(), Some("my.yaml:5:7"));
        assert_eq!(at("spec.values.list").as_deref(), Some("my.yaml:3:5"));
        // The profile's list item is gone: its path now falls back to the file's list.
        assert!(sm.get(&path("spec.values.list[0].p")).is_none());
        assert_eq!(at("spec.values.list[0].p").as_deref(), Some("my.yaml:3:5"));
        sm.push(Layer::set_flag(
            "values.global=foo",
            path("spec.values.global"),
        ));
        assert_eq!(
            at_in(&sm, "spec.values.global.z").as_deref(),
            Some("--set values.global=foo")
        );
        assert!(sm.get(&path("spec.values.global.x")).is_none());
        assert_eq!(at_in(&sm, "spec.other").as_deref(), Some("my.yaml:1:1"));
    }

    #[test]
    fn a_key_only_a_set_flag_created_is_the_flags() {
        let mut sm = SourceMap::new();
        let profile = "spec:\n  components:\n    pilot:\n      enabled: true\n";
        sm.push(Layer::profile("default", "profiles/default.yaml", profile).unwrap());
        sm.push(Layer::set_flag(
            "components.pilott.enabled=true",
            path("spec.components.pilott.enabled"),
        ));
        let at = |p: &str| sm.lookup(&path(p)).map(|o| o.to_string());
        assert_eq!(
            at("spec.components.pilott").as_deref(),
            Some("--set components.pilott.enabled=true")
        );
        assert_eq!(
            at("spec.components.pilot").as_deref(),
            Some("profiles/default.yaml:3:5 (profile default)")
        );
        assert_eq!(
            at("spec.components.pilot.k8s").as_deref(),
            Some("profiles/default.yaml:3:5 (profile default)")
        );
    }

    #[test]
    fn lookup_without_any_record_is_none_and_bad_yaml_names_the_file() {
        assert!(SourceMap::new().lookup(&path("spec")).is_none());
        let e = Layer::file("bad.yaml", "a: [\n").unwrap_err();
        assert!(e.to_string().starts_with("bad.yaml: "), "{e}");
    }

    #[test]
    fn paths_print_as_istioctl_prints_them() {
        let p = path("spec.components.ingressGateways[1].k8s.env[0].name");
        assert_eq!(p[3], PathSeg::Index(1));
        assert_eq!(dotted(&p), "components.ingressGateways[1].k8s.env[0].name");
        assert_eq!(dotted(&path("metadata.name")), "metadata.name");
        assert_eq!(dotted(&path("spec")), "spec");
    }
}
