//! Layering the inputs into one IstioOperator, exactly as istioctl's `MergeInputs` does:
//! the `default` profile ← the chosen profile ← every `-f` file in order ← every `--set` flag in
//! order; then top-level fields translated into Helm values (`spec.hub` → `values.global.hub`,
//! …), component enablement propagated into values, and the user's own `values` applied once
//! more on top so that they win over those translations.

use std::cell::RefCell;
use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::source::{self, Layer, Origin, PathSeg, SourceMap};
use crate::tree::{self, TreeError};

/// One `-f` input, already read by the caller.
#[derive(Debug, Clone)]
pub struct InputFile {
    /// The name as given on the command line (`-` for stdin), or what names an object
    /// (`IstioOperator istio-system/example`).
    pub name: String,
    pub body: InputBody,
}

/// What an input holds.
#[derive(Debug, Clone)]
pub enum InputBody {
    /// A file's text, as read: parsed here, with every value's line and column kept.
    Text(String),
    /// An IstioOperator already parsed (the resource the operator reads from the API server):
    /// layered as it is, with no text to print and parse again, and so no positions.
    Object(Map<String, Value>),
}

impl InputFile {
    /// A file's text.
    pub fn text(name: impl Into<String>, text: impl Into<String>) -> InputFile {
        InputFile {
            name: name.into(),
            body: InputBody::Text(text.into()),
        }
    }

    /// An object already parsed (not a map: layered as an empty one, as a `null` file is).
    /// Its numbers are made what a file's become, Go's `float64` (see [`normalize_floats`]),
    /// so that it merges and renders exactly as its text would.
    pub fn object(name: impl Into<String>, object: &Value) -> InputFile {
        let object = match normalize_floats(object) {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        InputFile {
            name: name.into(),
            body: InputBody::Object(object),
        }
    }

    /// Each document that reads as a map (a document that does not is left to the merge to
    /// name); an object is its own one map.
    pub fn maps(&self) -> Vec<Map<String, Value>> {
        match &self.body {
            InputBody::Text(text) => split_yaml_documents(text)
                .into_iter()
                .filter_map(|doc| map_from_yaml(doc).ok())
                .collect(),
            InputBody::Object(object) => vec![object.clone()],
        }
    }

    /// The text, when the input is text (what a caret under a line needs).
    pub fn source(&self) -> Option<&str> {
        match &self.body {
            InputBody::Text(text) => Some(text),
            InputBody::Object(_) => None,
        }
    }
}

/// Reads `profiles/NAME.yaml` from the install package at the given path ("" for the built-in
/// charts).
pub type ReadProfile<'a> = &'a dyn Fn(&str, &str) -> Result<String, ReadProfileError>;

/// Why a [`ReadProfile`] could not read a profile, in istioctl's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadProfileError {
    /// Go's `fs.PathError` from the package's `fs.FS`: `open profiles/x.yaml: file does not
    /// exist` (the reason is Go's wording of the OS error).
    #[error("open {path}: {reason}")]
    Open { path: String, reason: String },
    /// The install package itself could not be located (the locator's words).
    #[error("{message}")]
    Package { message: String },
}

/// Why a document is not an IstioOperator map (istioctl's `values.MapFromYaml`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MapFromYamlError {
    #[error(transparent)]
    Yaml(goyaml::YamlError),
    #[error(transparent)]
    NotJson(#[from] goyaml::json_value::NotJson),
    /// The document is a scalar or a list (its JSON type named as Go names it).
    #[error(
        "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {json_type} into Go value of type values.Map"
    )]
    NotMap { json_type: String },
    /// The document is an object without a `kind` (Kubernetes' unstructured decoder, with the
    /// document as Go's `encoding/json` writes it).
    #[error("error unmarshaling JSON: while decoding JSON: Object 'Kind' is missing in '{json}'")]
    MissingKind { json: String },
}

/// Why the inputs could not be merged. Messages are istioctl's; the CLI prefixes them with
/// `merge inputs: ` as istioctl does.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    #[error("stdin is only allowed as the last filename")]
    StdinNotLast,
    #[error("unable to parse file: {source}")]
    SplitFile {
        file: String,
        #[source]
        source: MapFromYamlError,
        /// Where in the file the YAML parser stopped (1-based line and column).
        at: Option<(usize, usize)>,
    },
    #[error("contains multiple IstioOperator CRs, only one per file is supported")]
    MultipleIstioOperators { file: String },
    #[error("{message}")]
    Yaml {
        file: String,
        message: String,
        /// Where in the file the YAML parser stopped (1-based line and column).
        at: Option<(usize, usize)>,
    },
    #[error("profile {name:?} not found: {source}")]
    ProfileNotFound {
        name: String,
        /// The install package it was looked for in ("" for the pinned release).
        install_package_path: String,
        #[source]
        source: ReadProfileError,
    },
    #[error("{file}: {source}")]
    Profile {
        file: String,
        #[source]
        source: MapFromYamlError,
    },
    #[error("{0}")]
    Set(#[from] TreeError),
    #[error(
        "{file} nests maps and lists more than {MAX_NESTING_DEPTH} deep (line {line}, column \
         {col}); bosun reads IstioOperator files at most {MAX_NESTING_DEPTH} levels deep"
    )]
    TooDeep {
        file: String,
        /// Where the first map or list beyond the bound starts (1-based line and column).
        line: usize,
        col: usize,
    },
    /// [`MergeError::TooDeep`] for an input given as an object: where, by path.
    #[error(
        "{name} nests maps and lists more than {MAX_NESTING_DEPTH} deep (at {path}); bosun reads \
         IstioOperators at most {MAX_NESTING_DEPTH} levels deep"
    )]
    ObjectTooDeep { name: String, path: String },
}

pub use crate::tree::MAX_NESTING_DEPTH;

impl MergeError {
    /// The file, line and column a YAML syntax error points at, for showing the line with a
    /// caret (istioctl's message names no file and only go-yaml's idea of the line).
    pub fn location(&self) -> Option<(&str, usize, usize)> {
        match self {
            MergeError::SplitFile {
                file,
                at: Some((line, col)),
                ..
            }
            | MergeError::Yaml {
                file,
                at: Some((line, col)),
                ..
            } => Some((file, *line, *col)),
            MergeError::TooDeep { file, line, col } => Some((file, *line, *col)),
            _ => None,
        }
    }

    /// The input file an error without a position is about, when istioctl's message does not
    /// name it (an alias bomb, several IstioOperators in one file).
    pub fn unnamed_file(&self) -> Option<&str> {
        match self {
            MergeError::SplitFile { file, at: None, .. }
            | MergeError::Yaml { file, at: None, .. }
            | MergeError::MultipleIstioOperators { file } => Some(file),
            _ => None,
        }
    }
}

/// Where a YAML error in `part` (a slice of `text`) stopped, as a position in `text`.
fn position_in(text: &str, part: &str, e: &goyaml::YamlError) -> Option<(usize, usize)> {
    let (line, col) = (e.line?, e.column?);
    let offset = (part.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    let before = text.get(..offset)?;
    Some((before.matches('\n').count() + line, col))
}

fn yaml_position(source: &MapFromYamlError) -> Option<&goyaml::YamlError> {
    match source {
        MapFromYamlError::Yaml(e) => Some(e),
        _ => None,
    }
}

/// The skeleton every merge starts from.
fn user_config_base() -> Value {
    serde_json::json!({
        "apiVersion": "install.istio.io/v1alpha1",
        "kind": "IstioOperator",
        "metadata": {},
        "spec": {}
    })
}

/// Parses one document as istioctl's `values.MapFromYaml` does (the first document; a null
/// or empty one is an empty map).
pub fn map_from_yaml(text: &str) -> Result<Map<String, Value>, MapFromYamlError> {
    let v = goyaml::from_yaml(text).map_err(MapFromYamlError::Yaml)?;
    match goyaml::json_value::to_json_value(&v)? {
        Value::Object(m) => Ok(m),
        Value::Null => Ok(Map::new()),
        other => Err(MapFromYamlError::NotMap {
            json_type: tree::json_type(&other).to_string(),
        }),
    }
}

/// Whether `text` holds no object at all: nothing but white space, comments, `---` lines and
/// `null` documents. istioctl renders such a file as if it were not given (the bare profile);
/// the caller may want to say so.
pub fn holds_no_object(text: &str) -> bool {
    split_yaml_documents(text).into_iter().all(|part| {
        matches!(
            goyaml::from_yaml(part),
            Ok(gotemplate::Value::Nil | gotemplate::Value::Invalid)
        )
    })
}

/// istioctl's `checkNoMultipleIOPs`: the file split at `---` lines, each part read as a
/// Kubernetes object (an empty part is none; an object must have a `kind`); more than one
/// object is refused.
fn check_single_object(name: &str, text: &str) -> Result<(), MergeError> {
    let mut objects = 0;
    for part in split_yaml_documents(text) {
        let fail = |source: MapFromYamlError| MergeError::SplitFile {
            file: name.to_string(),
            at: yaml_position(&source).and_then(|e| position_in(text, part, e)),
            source,
        };
        if let Some(at) = goyaml::first_too_deep(part, MAX_NESTING_DEPTH) {
            let e = goyaml::YamlError {
                message: String::new(),
                line: Some(at.line),
                column: Some(at.column),
            };
            let (line, col) = position_in(text, part, &e).unwrap_or((at.line, at.column));
            return Err(MergeError::TooDeep {
                file: name.to_string(),
                line,
                col,
            });
        }
        let doc = map_from_yaml(part).map_err(fail)?;
        let has_kind = doc
            .get("kind")
            .and_then(Value::as_str)
            .is_some_and(|k| !k.is_empty());
        if has_kind {
            objects += 1;
            continue;
        }
        // map_from_yaml read it, so it parses; a part that is only comments or `null` is no
        // object at all.
        let yaml = goyaml::from_yaml(part).map_err(|e| fail(MapFromYamlError::Yaml(e)))?;
        if !matches!(yaml, gotemplate::Value::Nil | gotemplate::Value::Invalid) {
            let json = goyaml::to_json(&yaml).map_err(|e| fail(MapFromYamlError::Yaml(e)))?;
            return Err(fail(MapFromYamlError::MissingKind { json }));
        }
    }
    if objects > 1 {
        return Err(MergeError::MultipleIstioOperators {
            file: name.to_string(),
        });
    }
    Ok(())
}

/// An object's nesting held to the bound files are held to ([`MAX_NESTING_DEPTH`]); the
/// first map or list beyond it is named by its path.
fn check_object_depth(name: &str, object: &Map<String, Value>) -> Result<(), MergeError> {
    /// The path (innermost segment first) to the first map or list under `v` (at `depth`, 1
    /// for the root) that is deeper than the bound; segments are made on the way out only.
    fn too_deep(v: &Value, depth: usize) -> Option<Vec<String>> {
        let below = |child: &Value, seg: &dyn Fn() -> String| {
            let mut path = too_deep(child, depth + 1)?;
            path.push(seg());
            Some(path)
        };
        match v {
            Value::Object(_) | Value::Array(_) if depth > MAX_NESTING_DEPTH => Some(Vec::new()),
            Value::Object(m) => m.iter().find_map(|(k, c)| below(c, &|| format!(".{k}"))),
            Value::Array(items) => {
                (items.iter().enumerate()).find_map(|(i, c)| below(c, &|| format!("[{i}]")))
            }
            _ => None,
        }
    }
    let found = object.iter().find_map(|(k, v)| {
        let mut path = too_deep(v, 2)?;
        path.push(k.clone());
        Some(path)
    });
    match found {
        None => Ok(()),
        Some(path) => Err(MergeError::ObjectTooDeep {
            name: name.to_string(),
            path: path.into_iter().rev().collect(),
        }),
    }
}

/// Istio's `yml.SplitString`: parts between lines starting with `---`, trimmed, empty ones
/// dropped. (A last line without a newline is always content.)
/// Each part is a slice of `text`: the lines between two separators are contiguous there.
pub fn split_yaml_documents(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    // A separator line starts the text or follows a newline; rendered charts are megabytes of
    // lines, so the candidates are found with one substring search rather than line by line.
    let candidates = text
        .starts_with("---")
        .then_some(0)
        .into_iter()
        .chain(memchr::memmem::find_iter(text.as_bytes(), b"\n---").map(|p| p + 1));
    for line in candidates {
        // The last line, without a newline, is content even when it starts with `---`.
        let Some(nl) = memchr::memchr(b'\n', &text.as_bytes()[line..]) else {
            break;
        };
        parts.push(&text[start..line]);
        start = line + nl + 1;
    }
    parts.push(&text[start..]);
    parts
        .into_iter()
        .map(|p| p.trim_matches(|c: char| c.is_whitespace()))
        .filter(|p| !p.is_empty())
        .collect()
}

/// The profile layers: `default`, then the named one (when it is not `default`).
pub fn read_profile(
    install_package_path: &str,
    profile: &str,
    read: ReadProfile<'_>,
) -> Result<Map<String, Value>, MergeError> {
    let profile = if profile.is_empty() {
        "default"
    } else {
        profile
    };
    let load = |name: &str| -> Result<Map<String, Value>, MergeError> {
        let text =
            read(install_package_path, name).map_err(|source| MergeError::ProfileNotFound {
                name: name.to_string(),
                install_package_path: install_package_path.to_string(),
                source,
            })?;
        map_from_yaml(&text).map_err(|source| MergeError::Profile {
            file: format!("profiles/{name}.yaml"),
            source,
        })
    };
    let mut base = load("default")?;
    if profile != "default" {
        let top = load(profile)?;
        tree::merge_from(&mut base, &top);
    }
    Ok(base)
}

/// [`merge_inputs`], also recording where every value came from: the profiles' and files'
/// lines and columns, and the `--set` flags (what `validate` points at and `profile dump
/// --explain` prints). A file that cannot be read for positions fails as it would to merge.
pub fn merge_inputs_traced(
    files: &[InputFile],
    set_flags: &[String],
    read: ReadProfile<'_>,
) -> Result<(Value, SourceMap), MergeError> {
    merge_inputs_traced_detected(files, set_flags, &[], read)
}

/// [`merge_inputs_traced`] with settings detected from the cluster (`detected`, `--set`
/// paths; see [`crate::detect::platform_settings`]) laid over the profile, as istioctl does
/// when it has a cluster. Their values carry no origin.
pub fn merge_inputs_traced_detected(
    files: &[InputFile],
    set_flags: &[String],
    detected: &[String],
    read: ReadProfile<'_>,
) -> Result<(Value, SourceMap), MergeError> {
    // Each profile file is read once: the merge and the positions both need it.
    let texts: RefCell<HashMap<(String, String), Result<String, ReadProfileError>>> =
        Default::default();
    let read = |path: &str, name: &str| -> Result<String, ReadProfileError> {
        let key = (path.to_string(), name.to_string());
        if let Some(text) = texts.borrow().get(&key) {
            return text.clone();
        }
        let text = read(path, name);
        texts.borrow_mut().insert(key, text.clone());
        text
    };
    let merged = merge_inputs_detected(files, set_flags, detected, &read)?;
    let mut sources = SourceMap::new();
    let install_package_path = tree::get_path_string(&merged, "spec.installPackagePath");
    let profile = tree::get_path_string(&merged, "spec.profile");
    let profile = if profile.is_empty() {
        "default"
    } else {
        &profile
    };
    let mut profiles = vec!["default"];
    if profile != "default" {
        profiles.push(profile);
    }
    for name in profiles {
        let file = format!("profiles/{name}.yaml");
        if let Ok(text) = read(&install_package_path, name)
            && let Ok(layer) = Layer::profile(name, &file, &text)
        {
            sources.push(layer);
        }
    }
    for file in files {
        let layer = match &file.body {
            InputBody::Text(text) => {
                Layer::file(&file.name, text).map_err(|e| MergeError::Yaml {
                    file: file.name.clone(),
                    at: position_in(text, text, &e.source),
                    message: e.source.message,
                })?
            }
            InputBody::Object(object) => Layer::object(&file.name, object),
        };
        sources.push(layer);
    }
    for flag in set_flags {
        let (path, _) = tree::split_set_flag(flag);
        let segs = resolve_segments(&merged, &format!("spec.{path}"));
        sources.push(Layer::set_flag(flag, segs));
    }
    for (from, to) in TRANSLATIONS {
        let to = resolve_segments(&merged, &format!("spec.values.{to}"));
        // The user's own values are applied again after the translation, so a value a file or
        // flag set at the target itself keeps its origin.
        let user_set = matches!(
            sources.get(&to),
            Some(Origin::File { .. } | Origin::SetFlag { .. })
        );
        if !user_set {
            sources.alias(&source::path(from), &to);
        }
    }
    Ok((merged, sources))
}

/// An istioctl path as positions in the merged tree: `[N]` past the end is the element that
/// was appended, `[key:value]` the element that matches.
fn resolve_segments(tree_root: &Value, path: &str) -> Vec<PathSeg> {
    let mut out = Vec::new();
    let mut cur = Some(tree_root);
    for seg in tree::split_path(path) {
        let list = cur.and_then(Value::as_array);
        let inner = seg.strip_prefix('[').and_then(|s| s.strip_suffix(']'));
        let index = match inner {
            Some(inner) => match (tree::go_atoi(inner), inner.split_once(':')) {
                (Some(i), _) => {
                    let len = list.map_or(0, Vec::len);
                    Some(if i < 0 || i as usize >= len {
                        len.saturating_sub(1)
                    } else {
                        i as usize
                    })
                }
                (None, Some((k, v))) => list.and_then(|l| {
                    l.iter()
                        .position(|e| e.get(k).and_then(Value::as_str) == Some(v))
                }),
                (None, None) => None,
            },
            None => None,
        };
        match index {
            Some(i) => {
                out.push(PathSeg::Index(i));
                cur = list.and_then(|l| l.get(i));
            }
            None => {
                cur = cur.and_then(|c| c.get(&seg));
                out.push(PathSeg::Key(seg));
            }
        }
    }
    out
}

/// istioctl's `MergeInputs` without a cluster (as `manifest generate` runs unless told
/// `--cluster-specific`).
pub fn merge_inputs(
    files: &[InputFile],
    set_flags: &[String],
    read: ReadProfile<'_>,
) -> Result<Value, MergeError> {
    merge_inputs_detected(files, set_flags, &[], read)
}

/// istioctl's `MergeInputs` with the settings it detected from the cluster (`--set` paths)
/// laid over the profile, under the user's inputs.
pub fn merge_inputs_detected(
    files: &[InputFile],
    set_flags: &[String],
    detected: &[String],
    read: ReadProfile<'_>,
) -> Result<Value, MergeError> {
    let (mut base, user_values, shared) = layer(files, set_flags, detected, read)?;
    translate_to_helm(&mut base)?;
    if let Some(mut values) = user_values {
        // The maps the base shares with the user's values carry what the translation wrote
        // into them (spec.meshConfig over values.meshConfig), as in istioctl.
        for p in &shared {
            if let Some(now) = spec_values_at(&base, p) {
                set_at(&mut values, p, now.clone());
            }
        }
        let layer = tree::make_map(Value::Object(values), &["spec", "values"]);
        tree::merge_from(as_map(&mut base), &layer);
    }
    Ok(base)
}

/// The inputs layered (profiles ← files ← `--set` flags) as [`merge_inputs`] layers them, but
/// before istioctl's translation of top-level fields into Helm values: the IstioOperator the
/// user's inputs describe, which is what `profile dump` prints.
pub fn layer_inputs(
    files: &[InputFile],
    set_flags: &[String],
    read: ReadProfile<'_>,
) -> Result<Value, MergeError> {
    Ok(layer(files, set_flags, &[], read)?.0)
}

/// Paths (under `spec.values`) of maps istioctl shares between the base and the user's values.
type SharedMaps = Vec<Vec<String>>;

type Layered = (Value, Option<Map<String, Value>>, SharedMaps);

/// The layered tree, the user's own `values` (re-applied after translation) and the maps of
/// those values the tree shares with them (see [`shared_maps`]).
fn layer(
    files: &[InputFile],
    set_flags: &[String],
    detected: &[String],
    read: ReadProfile<'_>,
) -> Result<Layered, MergeError> {
    let mut user = user_config_base();
    for (i, file) in files.iter().enumerate() {
        if file.name == "-" && i != files.len() - 1 {
            return Err(MergeError::StdinNotLast);
        }
        let mut m = match &file.body {
            InputBody::Text(text) => {
                check_single_object(&file.name, text)?;
                map_from_yaml(text).map_err(|e| MergeError::Yaml {
                    file: file.name.clone(),
                    at: yaml_position(&e).and_then(|y| position_in(text, text, y)),
                    message: e.to_string(),
                })?
            }
            InputBody::Object(object) => {
                check_object_depth(&file.name, object)?;
                object.clone()
            }
        };
        // istioctl's "special hack to allow an empty spec".
        if m.get("spec").is_some_and(Value::is_null) {
            m.remove("spec");
        }
        tree::merge_from(as_map(&mut user), &m);
    }
    tree::set_spec_paths(&mut user, set_flags)?;

    let install_package_path = tree::get_path_string(&user, "spec.installPackagePath");
    let profile = tree::get_path_string(&user, "spec.profile");
    let user_values = tree::get_path_map(&user, "spec.values").cloned();

    let mut base = Value::Object(read_profile(&install_package_path, &profile, read)?);
    tree::set_spec_paths(&mut base, detected)?;
    let mut shared = Vec::new();
    if let Some(uv) = &user_values {
        let profile_values = tree::get_path_map(&base, "spec.values");
        shared_maps(profile_values, uv, &mut Vec::new(), &mut shared);
    }
    // istioctl would add its compiled-in hub and tag here; a build without them (as the
    // pinned istioctl is) adds nothing, and neither does bosun.
    tree::merge_from(as_map(&mut base), user.as_object().expect("built as a map"));
    Ok((base, user_values, shared))
}

/// Where Go's `Map.MergeFrom` stores the user's own map object in the base rather than
/// merging into one of the base's: a user map whose key the base lacks (or holds a non-map
/// at). Go maps are references, so later writes into the base at those paths show in the
/// user's values too.
fn shared_maps(
    base: Option<&Map<String, Value>>,
    user: &Map<String, Value>,
    prefix: &mut Vec<String>,
    out: &mut SharedMaps,
) {
    for (k, v) in user {
        let Value::Object(um) = v else { continue };
        prefix.push(k.clone());
        match base.and_then(|b| b.get(k)) {
            Some(Value::Object(bm)) => shared_maps(Some(bm), um, prefix, out),
            _ => out.push(prefix.clone()),
        }
        prefix.pop();
    }
}

fn spec_values_at<'a>(base: &'a Value, path: &[String]) -> Option<&'a Value> {
    let mut cur = base.get("spec")?.get("values")?;
    for k in path {
        cur = cur.get(k)?;
    }
    Some(cur)
}

fn set_at(values: &mut Map<String, Value>, path: &[String], v: Value) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut cur = values;
    for k in parents {
        match cur.get_mut(k) {
            Some(Value::Object(m)) => cur = m,
            _ => return,
        }
    }
    cur.insert(last.clone(), v);
}

fn as_map(v: &mut Value) -> &mut Map<String, Value> {
    if !v.is_object() {
        *v = Value::Object(Map::new());
    }
    v.as_object_mut().expect("just made a map")
}

/// Top-level fields istioctl copies into values. istioctl walks a Go map here, so its order is
/// random; the targets are distinct, so the order does not matter.
const TRANSLATIONS: &[(&str, &str)] = &[
    ("spec.hub", "global.hub"),
    ("spec.tag", "global.tag"),
    ("spec.revision", "revision"),
    ("spec.meshConfig", "meshConfig"),
    ("spec.compatibilityVersion", "compatibilityVersion"),
];

/// istioctl's `translateIstioOperatorToHelm`.
fn translate_to_helm(base: &mut Value) -> Result<(), MergeError> {
    for (from, to) in TRANSLATIONS {
        let Some(v) = tree::get_path(base, from).cloned() else {
            continue;
        };
        if v.is_object() {
            let layer = tree::make_map(v, &["spec", "values", "meshConfig"]);
            tree::merge_from(as_map(base), &layer);
        } else {
            // istioctl formats the value with %v and parses it again as a --set flag.
            let flag = format!("values.{to}={}", go_sprint(&v));
            tree::set_spec_paths(base, &[flag])?;
        }
    }
    let pilot = tree::get_path_bool(base, "spec.components.pilot.enabled");
    tree::set_path(base, "spec.values.pilot.enabled", Value::Bool(pilot))?;
    let cni = tree::get_path_bool(base, "spec.components.cni.enabled");
    tree::set_path(base, "spec.values.pilot.cni.enabled", Value::Bool(cni))?;
    let ns = tree::get_path_string(base, "spec.values.global.istioNamespace");
    if !ns.is_empty() {
        tree::set_path(base, "metadata.namespace", Value::String(ns))?;
    }
    Ok(())
}

/// Go's `fmt.Sprint` (`%v`) of a JSON value as istioctl holds it.
pub fn go_sprint(v: &Value) -> String {
    gotemplate::fmt::sprint_value(&goyaml::json_value::from_json_value(&normalize_floats(v)))
}

/// Numbers as Go holds them after a JSON decode into `any`: all `float64`.
pub fn normalize_floats(v: &Value) -> Value {
    match v {
        Value::Number(n) => n
            .as_f64()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number)
            .unwrap_or(Value::Null),
        Value::Array(items) => Value::Array(items.iter().map(normalize_floats).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), normalize_floats(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_errors_keep_the_profile_and_the_reason() {
        let read = |_: &str, _: &str| Ok("- a".to_string());
        let e = read_profile("", "default", &read).unwrap_err();
        assert!(
            matches!(&e, MergeError::Profile { file, source: MapFromYamlError::NotMap { .. } } if file == "profiles/default.yaml"),
            "{e:?}"
        );
        let read = |_: &str, name: &str| -> Result<String, ReadProfileError> {
            Err(ReadProfileError::Open {
                path: format!("profiles/{name}.yaml"),
                reason: "file does not exist".into(),
            })
        };
        let e = read_profile("", "nope", &read).unwrap_err();
        assert_eq!(
            e.to_string(),
            "profile \"default\" not found: open profiles/default.yaml: file does not exist"
        );
        assert!(
            matches!(e, MergeError::ProfileNotFound { name, source: ReadProfileError::Open { .. }, .. } if name == "default")
        );
        assert_eq!(
            map_from_yaml("- a").unwrap_err(),
            MapFromYamlError::NotMap {
                json_type: "array".into()
            }
        );
        assert_eq!(
            map_from_yaml("- a").unwrap_err().to_string(),
            "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type values.Map"
        );
    }

    /// istioctl's values maps are shared with the base where the profile has none, so the
    /// translation's spec.meshConfig survives re-applying the user's values.meshConfig; where
    /// the profile has the map, the user's value wins.
    #[test]
    fn translated_mesh_config_shows_through_shared_user_maps() {
        let profile = "apiVersion: install.istio.io/v1alpha1\nkind: IstioOperator\nspec:\n  values:\n    global:\n      hub: x\n";
        let read = |_: &str, _: &str| Ok(profile.to_string());
        let file = InputFile::text(
            "in.yaml",
            "kind: IstioOperator\nspec:\n  meshConfig:\n    trustDomain: spec.example\n  values:\n    meshConfig:\n      trustDomain: values.example\n    global:\n      hub: user\n",
        );
        let merged = merge_inputs(&[file], &["hub=flag".to_string()], &read).unwrap();
        assert_eq!(
            tree::get_path_string(&merged, "spec.values.meshConfig.trustDomain"),
            "spec.example"
        );
        assert_eq!(
            tree::get_path_string(&merged, "spec.values.global.hub"),
            "user"
        );
    }

    /// Issue 34: a file nested 9000 deep (18 KB) cost 2.2 GB and 11 s (every node's path was
    /// kept); it is refused from one linear read, at the first map or list past the bound, in
    /// whichever document and under whichever field it is.
    #[test]
    fn files_nested_beyond_the_bound_are_refused_where_they_go_too_deep() {
        let read = |_: &str, _: &str| Ok("spec: {}\n".to_string());
        let head = "apiVersion: install.istio.io/v1alpha1\nkind: IstioOperator\nspec:\n";
        // (the nested text under spec, how many lists or maps it nests, whether it is refused,
        // the line and column of the first too deep)
        let lists = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        let maps = |n: usize| format!("{}1{}", "{a: ".repeat(n), "}".repeat(n));
        // The root, spec and unvalidatedValues are the first three levels.
        let cases = [
            (
                format!("  unvalidatedValues:\n    x: {}\n", lists(97)),
                None,
            ),
            (
                format!("  unvalidatedValues:\n    x: {}\n", lists(98)),
                Some((5, 105)),
            ),
            (
                format!("  unvalidatedValues:\n    x: {}\n", lists(9000)),
                Some((5, 105)),
            ),
            (
                format!(
                    "  values:\n    pilot:\n      env:\n        x: {}\n",
                    maps(9000)
                ),
                Some((7, 392)),
            ),
            (
                format!("  values:\n    global:\n      x: {}\n", lists(9000)),
                Some((6, 106)),
            ),
        ];
        for (body, want) in cases {
            let file = InputFile::text("deep.yaml", format!("{head}{body}"));
            match (merge_inputs(&[file], &[], &read), want) {
                (Err(MergeError::TooDeep { file, line, col }), Some(at)) => {
                    assert_eq!((file.as_str(), line, col), ("deep.yaml", at.0, at.1));
                }
                (Ok(_), None) => {}
                (got, _) => panic!("{body:.60}: {got:?}"),
            }
        }
        // A later document of the file too (the first error is there, not istioctl's "multiple").
        let file = InputFile::text(
            "two.yaml",
            format!("kind: A\n---\nkind: B\nx: {}\n", lists(200)),
        );
        let e = merge_inputs(&[file], &[], &read).unwrap_err();
        assert_eq!(e.location(), Some(("two.yaml", 4, 103)));
        assert_eq!(
            e.to_string(),
            "two.yaml nests maps and lists more than 100 deep (line 4, column 103); bosun reads \
             IstioOperator files at most 100 levels deep"
        );
    }

    /// The operator's input: the resource as read, layered as the object it is. It merges as
    /// its text would, its values are attributed to it by name (not to the profile it
    /// overrides), and it is held to the files' nesting bound.
    #[test]
    fn an_object_merges_as_its_text_would_and_is_named_as_the_origin() {
        let profile = "apiVersion: install.istio.io/v1alpha1\nkind: IstioOperator\nspec:\n  values:\n    global:\n      hub: x\n";
        let read = |_: &str, _: &str| Ok(profile.to_string());
        let text = "apiVersion: install.istio.io/v1alpha1\nkind: IstioOperator\nmetadata:\n  name: main\nspec:\n  hub: h\n  values:\n    global:\n      hub: user\n      proxy:\n        resources:\n          limits:\n            cpu: 2\n    pilot:\n      env:\n        A: \"1\"\n";
        // As the API server gives it: integers are integers until the input normalizes them.
        let object = serde_json::json!({
            "apiVersion": "install.istio.io/v1alpha1",
            "kind": "IstioOperator",
            "metadata": {"name": "main"},
            "spec": {
                "hub": "h",
                "values": {
                    "global": {"hub": "user", "proxy": {"resources": {"limits": {"cpu": 2}}}},
                    "pilot": {"env": {"A": "1"}}
                }
            }
        });
        let flags = ["values.pilot.autoscaleMin=2".to_string()];
        let from_text = merge_inputs_traced(&[InputFile::text("f.yaml", text)], &flags, &read);
        let from_object = merge_inputs_traced(
            &[InputFile::object("IstioOperator ns/main", &object)],
            &flags,
            &read,
        );
        let ((text_tree, _), (object_tree, sources)) = (from_text.unwrap(), from_object.unwrap());
        assert_eq!(text_tree, object_tree);
        let hub = source::path("spec.values.global.hub");
        assert_eq!(
            sources.lookup(&hub),
            Some(&Origin::Object {
                name: "IstioOperator ns/main".into()
            })
        );
        assert_eq!(sources.lookup(&hub).unwrap().location(), None);

        let mut deep = serde_json::json!(1);
        for _ in 0..100 {
            deep = serde_json::json!([deep]);
        }
        let object = serde_json::json!({"kind": "IstioOperator", "spec": {"unvalidatedValues": {"x": deep}}});
        let e = merge_inputs(&[InputFile::object("o", &object)], &[], &read).unwrap_err();
        assert!(
            matches!(&e, MergeError::ObjectTooDeep { name, path } if name == "o" && path.starts_with("spec.unvalidatedValues.x[0][0]")),
            "{e:?}"
        );
    }

    #[test]
    fn files_of_comments_and_separators_hold_no_object() {
        for empty in ["", "\n", "# nothing\n", "---\n# a\n---\n", "null\n", "~"] {
            assert!(holds_no_object(empty), "{empty:?}");
        }
        for object in ["kind: IstioOperator\n", "{}", "# a\n---\nspec: {}\n", "[]"] {
            assert!(!holds_no_object(object), "{object:?}");
        }
    }

    #[test]
    fn split_documents_like_istio() {
        assert_eq!(
            split_yaml_documents("a: 1\n---\n\n--- # x\nb: 2\n---"),
            vec!["a: 1", "b: 2\n---"]
        );
    }

    /// `yml.SplitString` line by line, as Istio writes it: the reference for the search.
    fn split_line_by_line(text: &str) -> Vec<&str> {
        let mut parts = Vec::new();
        let (mut start, mut line) = (0, 0);
        while let Some(nl) = text[line..].find('\n') {
            let end = line + nl + 1;
            if text[line..].starts_with("---") {
                parts.push(&text[start..line]);
                start = end;
            }
            line = end;
        }
        parts.push(&text[start..]);
        parts
            .into_iter()
            .map(|p| p.trim_matches(|c: char| c.is_whitespace()))
            .filter(|p| !p.is_empty())
            .collect()
    }

    #[test]
    fn split_documents_matches_line_by_line() {
        const PIECES: &[&str] = &["---", "\n", "a", " ", "-", "--", "\t", "\n---\n", "é"];
        let mut rng = testkit::Xorshift::new(0x2545_f491_4f6c_dd1d);
        for _ in 0..100_000 {
            let seed = rng.next();
            let text: String = (0..(seed % 12) as usize)
                .map(|k| PIECES[((seed >> (5 * k)) % PIECES.len() as u64) as usize])
                .collect();
            assert_eq!(
                split_yaml_documents(&text),
                split_line_by_line(&text),
                "{text:?}"
            );
        }
    }
}
