//! istioctl's `profile` commands over a layered IstioOperator (see
//! [`crate::merge::layer_inputs`]): `list`, `dump` (YAML, JSON or `--set` flags, the whole
//! spec or a subtree) and `diff` (a line diff of the two profiles' YAML, as istioctl printed it
//! with kylelemons/godebug), plus bosun's `dump --explain`, which names the layer behind every
//! value.
//!
//! Istio removed these commands in 1.24; their output here follows the last istioctl that had
//! them (operator/cmd/mesh/profile-{list,dump,diff}.go): the dump is the `spec` under an
//! `apiVersion`/`kind` header (laid on with a JSON merge patch, so null map entries go), or the
//! `--config-path` node as found, YAML is followed by an empty line, JSON is indented by four
//! spaces, flags are `path=value` lines (strings quoted as Go's `%q`, other values as `%v`)
//! sorted bytewise. scripts/profile-oracle is the oracle these are checked against.

use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::source::{Origin, PathSeg, SourceMap, dotted};
use crate::tree;

/// Why a profile could not be printed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProfileError {
    #[error("unknown output format: {0}")]
    UnknownFormat(String),
    /// `--config-path` names nothing there; the message is istioctl's `GetPathContext`'s.
    #[error("{0}")]
    ConfigPath(String),
    #[error(transparent)]
    Encode(goyaml::YamlError),
}

/// `profile dump -o`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Yaml,
    Json,
    Flags,
}

impl std::str::FromStr for Format {
    type Err = ProfileError;
    fn from_str(s: &str) -> Result<Format, ProfileError> {
        match s {
            "yaml" => Ok(Format::Yaml),
            "json" => Ok(Format::Json),
            "flags" => Ok(Format::Flags),
            other => Err(ProfileError::UnknownFormat(other.to_string())),
        }
    }
}

/// `profile list` for the profiles of an install package (file names without `.yaml`).
pub fn list(mut names: Vec<String>) -> String {
    if names.is_empty() {
        return "No profiles available.\n".to_string();
    }
    names.sort();
    let mut out = "Istio configuration profiles:\n".to_string();
    for n in names {
        let _ = writeln!(out, "    {n}");
    }
    out
}

/// The profile names in a directory listing (`*.yaml` files).
pub fn profile_names<I: IntoIterator<Item = String>>(files: I) -> Vec<String> {
    files
        .into_iter()
        .filter_map(|f| f.strip_suffix(".yaml").map(str::to_string))
        .collect()
}

/// The document `profile dump` prints without `--config-path`: the layered tree's `spec` under
/// istioctl's header (metadata is not part of a profile).
pub fn dump_document(layered: &Value) -> Value {
    let mut doc = Map::new();
    doc.insert(
        "apiVersion".to_string(),
        Value::String("install.istio.io/v1alpha1".to_string()),
    );
    doc.insert(
        "kind".to_string(),
        Value::String("IstioOperator".to_string()),
    );
    let spec = layered.get("spec").cloned().unwrap_or(Value::Null);
    doc.insert("spec".to_string(), spec);
    Value::Object(doc)
}

/// The node `--config-path` selects below `spec`, and where it is (selectors resolved to
/// indexes), as istioctl's `GetConfigSubtree` found it with the read-only `GetPathContext`:
/// `spec` is the tree as Go reads it back from YAML (numbers are `float64`); keys split at
/// unescaped dots (`a.b\.c`, `node[expr]`); `[N]` indexes a list (`-1` counts as an index but is
/// never in range); on a list of maps `[key:value]` picks the first element whose field prints
/// (`%v`) as the value, on a list of scalars `[V]` or `[:V]` the first whose `%v` the regular
/// expression V matches. A key missing at the end of the path selects an empty map, as
/// `GetPathContext` creates a leaf there; anything else missing is an error worded as istioctl
/// words it.
pub fn config_subtree(spec: &Value, path: &str) -> Result<(Value, Vec<PathSeg>), ProfileError> {
    let segs = tree::split_path(path);
    let full = segs.join(".");
    let fail = |m: String| Err(ProfileError::ConfigPath(m));
    let mut cur = spec;
    let mut at = Vec::new();
    for (i, pe) in segs.iter().enumerate() {
        let remain = segs[i..].join(".");
        match cur {
            Value::Null => return fail(format!("node {pe} is zero")),
            Value::Array(items) => {
                if let Some(idx) = n_path_element(pe) {
                    let found = usize::try_from(idx).ok().and_then(|i| items.get(i));
                    let Some(found) = found else {
                        return fail(format!(
                            "index {idx} exceeds list length {} at path {remain}",
                            items.len()
                        ));
                    };
                    at.push(PathSeg::Index(idx as usize));
                    cur = found;
                    continue;
                }
                let mut hit = None;
                for (idx, item) in items.iter().enumerate() {
                    if let Value::Object(m) = item {
                        let Some((k, v)) = kv_path_element(pe) else {
                            return fail(format!(
                                "path {full}: {pe} is not a valid key:value path element"
                            ));
                        };
                        if go_sprint(m.get(&k).unwrap_or(&Value::Null)) == v {
                            hit = Some(idx);
                            break;
                        }
                        continue;
                    }
                    let Some(pattern) = v_path_element(pe) else {
                        return fail(format!(
                            "path {full}: {pe} is not a valid value path element"
                        ));
                    };
                    // An invalid expression matches nothing (istioctl logs it and goes on).
                    if regex::Regex::new(&pattern).is_ok_and(|re| re.is_match(&go_sprint(item))) {
                        hit = Some(idx);
                        break;
                    }
                }
                let Some(idx) = hit else {
                    return fail(format!("path {full}: element {pe} not found"));
                };
                at.push(PathSeg::Index(idx));
                cur = &items[idx];
            }
            Value::Object(m) => match m.get(pe) {
                Some(next) => {
                    at.push(PathSeg::Key(pe.clone()));
                    cur = next;
                }
                None if i + 1 == segs.len() => {
                    at.push(PathSeg::Key(pe.clone()));
                    return Ok((Value::Object(Map::new()), at));
                }
                None => {
                    return fail(format!("path not found at element {pe} in path {full}"));
                }
            },
            leaf => {
                let go_type = match leaf {
                    Value::String(_) => "string",
                    Value::Bool(_) => "bool",
                    _ => "float64",
                };
                return fail(format!("leaf type {go_type} in non-leaf Node {remain}"));
            }
        }
    }
    Ok((cur.clone(), at))
}

fn go_sprint(v: &Value) -> String {
    gotemplate::fmt::sprint_value(&goyaml::json_value::from_json_value(v))
}

/// istioctl's `IsNPathElement` + `PathN`: `[N]` with N a Go int no smaller than -1.
fn n_path_element(pe: &str) -> Option<i64> {
    let inner = pe.strip_prefix('[')?.strip_suffix(']')?;
    tree::go_atoi(inner).filter(|n| *n >= -1)
}

/// istioctl's `PathKV`: `[key:value]`, split at an unescaped `:` into exactly two non-empty
/// parts, the key made of `[a-zA-Z0-9_-]`.
fn kv_path_element(pe: &str) -> Option<(String, String)> {
    let inner = pe.strip_prefix('[')?.strip_suffix(']')?;
    let kv = tree::split_escaped(inner, ':');
    let [k, v] = kv.as_slice() else {
        return None;
    };
    let key_ok = k
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    (!k.is_empty() && !v.is_empty() && key_ok).then(|| (k.clone(), v.clone()))
}

/// istioctl's `PathV`: `[:V]` → V, otherwise whatever is between the brackets (not empty).
fn v_path_element(pe: &str) -> Option<String> {
    let inner = pe.strip_prefix('[')?.strip_suffix(']')?;
    match inner.strip_prefix(':') {
        Some(v) if !v.is_empty() => Some(v.to_string()),
        _ => (!inner.is_empty()).then(|| inner.to_string()),
    }
}

/// What JSON merge patch (evanphx/json-patch, which istioctl's `OverlayYAML` uses) keeps of a
/// value it copies into a document: no map entry whose value is null, at any depth; nulls in
/// lists stay.
pub fn prune_nulls(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), prune_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(prune_nulls).collect()),
        other => other.clone(),
    }
}

/// `profile dump`'s output for a layered IstioOperator. The whole spec is laid under the header
/// as istioctl did it, with a JSON merge patch, so map entries holding null are dropped; a
/// `--config-path` subtree is printed as found.
pub fn dump(layered: &Value, config_path: &str, format: Format) -> Result<String, ProfileError> {
    let spec = crate::merge::normalize_floats(layered.get("spec").unwrap_or(&Value::Null));
    let node = if config_path.is_empty() {
        let mut doc = dump_document(layered);
        doc["spec"] = prune_nulls(&spec);
        doc
    } else {
        config_subtree(&spec, config_path)?.0
    };
    Ok(match format {
        Format::Yaml => format!("{}\n", to_yaml(&node)?),
        Format::Json => format!("{}\n", goyaml::json_indent(&to_json(&node)?, "    ")),
        Format::Flags => {
            // The header's `spec` is left out: flags are relative to it.
            let root = match &node {
                Value::Object(m) if m.contains_key("spec") => &m["spec"],
                other => other,
            };
            let lines: Vec<String> = leaves(root).into_iter().map(|l| l.flag).collect();
            format!("{}\n", lines.join("\n"))
        }
    })
}

/// One leaf of a tree as a `--set` flag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leaf {
    /// From the walked node.
    pub path: Vec<PathSeg>,
    /// `path=value` as `profile dump -o flags` prints it.
    pub flag: String,
}

/// Every scalar under `root` as a flag, sorted as istioctl sorts them (bytewise). Empty maps
/// and lists have no leaves (istioctl prints nothing for them).
pub fn leaves(root: &Value) -> Vec<Leaf> {
    let mut out = Vec::new();
    walk(root, &mut Vec::new(), "", &mut out, false);
    out.sort_by(|a, b| a.flag.cmp(&b.flag));
    out
}

fn walk(v: &Value, path: &mut Vec<PathSeg>, text: &str, out: &mut Vec<Leaf>, empties: bool) {
    match v {
        Value::Object(m) if !(empties && m.is_empty()) => {
            for (k, child) in m {
                let comp = k.replace('.', "\\.");
                let t = if text.is_empty() {
                    comp
                } else {
                    format!("{text}.{comp}")
                };
                path.push(PathSeg::Key(k.clone()));
                walk(child, path, &t, out, empties);
                path.pop();
            }
        }
        Value::Array(items) if !(empties && items.is_empty()) => {
            for (i, child) in items.iter().enumerate() {
                path.push(PathSeg::Index(i));
                walk(child, path, &format!("{text}[{i}]"), out, empties);
                path.pop();
            }
        }
        _ => out.push(Leaf {
            path: path.clone(),
            flag: format!("{text}={}", go_flag_value(v)),
        }),
    }
}

/// A scalar as istioctl's walk prints it: strings `%q`, everything else `%v` of what Go's JSON
/// decoder made of it (numbers are float64, null is `<nil>`).
fn go_flag_value(v: &Value) -> String {
    match v {
        Value::String(s) => gotemplate::fmt::quote(s),
        Value::Null => "<nil>".to_string(),
        Value::Object(m) if m.is_empty() => "map[]".to_string(),
        Value::Array(a) if a.is_empty() => "[]".to_string(),
        other => gotemplate::fmt::sprint_value(&goyaml::json_value::from_json_value(other)),
    }
}

/// `sigs.k8s.io/yaml.Marshal`.
pub fn to_yaml(v: &Value) -> Result<String, ProfileError> {
    goyaml::to_yaml(&goyaml::json_value::from_json_value(v)).map_err(ProfileError::Encode)
}

fn to_json(v: &Value) -> Result<String, ProfileError> {
    goyaml::to_json(&goyaml::json_value::from_json_value(v)).map_err(ProfileError::Encode)
}

/// `profile dump --explain`: every value of the dump (or of the `--config-path` subtree) as a
/// flag relative to `spec`, followed by the layer that set it. Empty maps and lists are shown
/// too (`{}`, `[]`), since a layer may set them on purpose.
pub fn explain(
    layered: &Value,
    sources: &SourceMap,
    config_path: &str,
) -> Result<String, ProfileError> {
    let spec = crate::merge::normalize_floats(layered.get("spec").unwrap_or(&Value::Null));
    let (node, prefix) = if config_path.is_empty() {
        (spec, Vec::new())
    } else {
        config_subtree(&spec, config_path)?
    };
    let mut found = Vec::new();
    let mut start = vec![PathSeg::Key("spec".to_string())];
    start.extend(prefix);
    let start_text = dotted(&start);
    let start_text = if start_text == "spec" {
        String::new()
    } else {
        start_text
    };
    walk(&node, &mut start, &start_text, &mut found, true);
    found.sort_by(|a, b| a.flag.cmp(&b.flag));
    let mut out = String::new();
    for leaf in found {
        let flag = match leaf.flag.strip_suffix("=map[]") {
            Some(p) => format!("{p}={{}}"),
            None => leaf.flag,
        };
        let origin = sources
            .lookup(&leaf.path)
            .map_or_else(|| "(built in)".to_string(), Origin::to_string);
        let _ = writeln!(out, "{flag}  # {origin}");
    }
    Ok(out)
}

/// `profile diff`'s output and whether the profiles differ: both documents as YAML, diffed line
/// by line.
pub fn diff(a: &Value, b: &Value) -> Result<(String, bool), ProfileError> {
    let ay = to_yaml(&crate::merge::normalize_floats(a))?;
    let by = to_yaml(&crate::merge::normalize_floats(b))?;
    let d = line_diff(&ay, &by);
    if d.is_empty() {
        Ok(("Profiles are identical\n".to_string(), false))
    } else {
        Ok((format!("The difference between profiles:\n{d}"), true))
    }
}

/// kylelemons/godebug's `diff.Diff`: the lines of `a` and `b` (split at `\n`), each prefixed
/// with `+` (added), `-` (deleted) or ` ` (equal), from Myers' shortest edit script with that
/// package's tie-breaking; trailing newlines trimmed; empty when the texts are equal.
pub fn line_diff(a: &str, b: &str) -> String {
    let al: Vec<&str> = a.split('\n').collect();
    let bl: Vec<&str> = b.split('\n').collect();
    let mut out = String::new();
    for chunk in diff_chunks(&al, &bl) {
        for l in chunk.added {
            let _ = writeln!(out, "+{l}");
        }
        for l in chunk.deleted {
            let _ = writeln!(out, "-{l}");
        }
        for l in chunk.equal {
            let _ = writeln!(out, " {l}");
        }
    }
    out.trim_end_matches('\n').to_string()
}

/// One run of the edit script: added or deleted lines, then equal ones.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Chunk<'a> {
    pub added: Vec<&'a str>,
    pub deleted: Vec<&'a str>,
    pub equal: Vec<&'a str>,
}

/// The edit chunks from `a` to `b` (Myers' O(ND) algorithm: furthest-reaching paths per
/// diagonal, kept for every edit distance, then walked back from the end).
pub fn diff_chunks<'a>(a: &[&'a str], b: &[&'a str]) -> Vec<Chunk<'a>> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let max = n + m;
    if max == 0 {
        return Vec::new();
    }
    let off = max;
    let at = |k: isize| (off + k) as usize;
    let mut v = vec![0isize; (2 * max + 1) as usize];
    let mut history: Vec<Vec<isize>> = Vec::new();
    let mut d = 0isize;
    'outer: while d <= max {
        let mut k = -d;
        while k <= d {
            let mut x = if k == -d {
                v[at(-d + 1)]
            } else if k == d {
                v[at(d - 1)] + 1
            } else if v[at(k + 1)] > v[at(k - 1)] {
                v[at(k + 1)]
            } else {
                v[at(k - 1)] + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            v[at(k)] = x;
            if x >= n && y >= m {
                history.push(v.clone());
                break 'outer;
            }
            k += 2;
        }
        history.push(v.clone());
        d += 1;
    }
    if d == 0 {
        return Vec::new();
    }
    let mut chunks: Vec<Chunk<'a>> = vec![Chunk::default(); (d + 1) as usize];
    let (mut x, mut y) = (n, m);
    for step in (1..=d).rev() {
        let v = &history[step as usize];
        let k = x - y;
        let insert = k == -step || (k != step && v[at(k - 1)] < v[at(k + 1)]);
        let x1 = v[at(k)];
        let (kk, x0, x_mid) = if insert {
            let x0 = v[at(k + 1)];
            (k + 1, x0, x0)
        } else {
            let x0 = v[at(k - 1)];
            (k - 1, x0, x0 + 1)
        };
        let y0 = x0 - kk;
        let mut c = Chunk::default();
        if insert {
            c.added = vec![b[y0 as usize]];
        } else {
            c.deleted = vec![a[x0 as usize]];
        }
        if x_mid < x1 {
            c.equal = a[x_mid as usize..x1 as usize].to_vec();
        }
        x = x0;
        y = y0;
        chunks[step as usize] = c;
    }
    if x > 0 {
        chunks[0].equal = a[..x as usize].to_vec();
    }
    if chunks[0] == Chunk::default() {
        chunks.remove(0);
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn list_sorts_and_indents() {
        assert_eq!(
            list(profile_names(vec![
                "demo.yaml".into(),
                "ambient.yaml".into(),
                "README".into()
            ])),
            "Istio configuration profiles:\n    ambient\n    demo\n"
        );
        assert_eq!(list(Vec::new()), "No profiles available.\n");
    }

    #[test]
    fn flags_are_sorted_quoted_and_escaped() {
        let v = json!({"values": {"a.b": "x\"y", "n": 1000000, "f": 0.5, "t": true, "z": null,
            "l": [{"name": "p"}], "e": {}}});
        let flags: Vec<String> = leaves(&crate::merge::normalize_floats(&v))
            .into_iter()
            .map(|l| l.flag)
            .collect();
        assert_eq!(
            flags,
            vec![
                "values.a\\.b=\"x\\\"y\"",
                "values.f=0.5",
                "values.l[0].name=\"p\"",
                "values.n=1e+06",
                "values.t=true",
                "values.z=<nil>",
            ]
        );
    }

    #[test]
    fn json_indents_like_go() {
        assert_eq!(
            goyaml::json_indent(r#"{"a":[1,{}],"b":{"c":"x,:{"},"d":[]}"#, "    "),
            "{\n    \"a\": [\n        1,\n        {}\n    ],\n    \"b\": {\n        \"c\": \"x,:{\"\n    },\n    \"d\": []\n}"
        );
    }

    #[test]
    fn dump_yaml_has_header_and_blank_line_and_config_path_selects() {
        let t = json!({"apiVersion": "x", "metadata": {"namespace": "n"},
            "spec": {"components": {"egressGateways": [{"name": "e", "enabled": true}]}}});
        assert_eq!(
            dump(&t, "", Format::Yaml).unwrap(),
            "apiVersion: install.istio.io/v1alpha1\nkind: IstioOperator\nspec:\n  components:\n    egressGateways:\n    - enabled: true\n      name: e\n\n"
        );
        assert_eq!(
            dump(
                &t,
                "components.egressGateways.[name:e].enabled",
                Format::Flags
            )
            .unwrap(),
            "=true\n"
        );
        assert_eq!(
            dump(&t, "components.egressGateways", Format::Flags).unwrap(),
            "[0].enabled=true\n[0].name=\"e\"\n"
        );
        assert_eq!(
            dump(&t, "components.egressGateways[0]", Format::Json).unwrap(),
            "{\n    \"enabled\": true,\n    \"name\": \"e\"\n}\n"
        );
        // A key missing at the end reads as an empty map, as istioctl's GetPathContext makes one.
        assert_eq!(dump(&t, "components.nope", Format::Yaml).unwrap(), "{}\n\n");
    }

    #[test]
    fn config_path_selects_and_fails_as_istioctl() {
        let spec = crate::merge::normalize_floats(&json!({
            "hub": "h",
            "list": [{"name": "a", "port": 80, "on": true}, {"name": "b", "n": null}],
            "args": ["--x=1", "--keepalive=30m"],
            "m": {"a.b": 1, "z": null}
        }));
        let sel = |p: &str| config_subtree(&spec, p).map(|(v, at)| (v, dotted(&at)));
        let msg = |p: &str| match config_subtree(&spec, p) {
            Err(ProfileError::ConfigPath(m)) => m,
            other => panic!("{p}: {other:?}"),
        };
        assert_eq!(sel("list.[port:80].name").unwrap().0, json!("a"));
        assert_eq!(sel("list.[on:true]").unwrap().1, "list[0]");
        // A field the element lacks prints as Go's nil.
        assert_eq!(sel("list.[n:<nil>].name").unwrap().0, json!("a"));
        assert_eq!(sel("list[1].name").unwrap().0, json!("b"));
        assert_eq!(
            sel("args.[:keepalive]").unwrap().0,
            json!("--keepalive=30m")
        );
        assert_eq!(sel("args.[x=\\d]").unwrap().1, "args[0]");
        assert_eq!(sel("m.a\\.b").unwrap().0, json!(1.0));
        assert_eq!(sel("m.z").unwrap().0, Value::Null);
        assert_eq!(sel("m.nope").unwrap().0, json!({}));
        assert_eq!(msg("m.z.q"), "node q is zero");
        assert_eq!(
            msg("m.nope.q"),
            "path not found at element nope in path m.nope.q"
        );
        assert_eq!(
            msg("list.[2].name"),
            "index 2 exceeds list length 2 at path [2].name"
        );
        assert_eq!(
            msg("list.[-1]"),
            "index -1 exceeds list length 2 at path [-1]"
        );
        assert_eq!(
            msg("list.[c]"),
            "path list.[c]: [c] is not a valid key:value path element"
        );
        assert_eq!(
            msg("list.[name:c]"),
            "path list.[name:c]: element [name:c] not found"
        );
        assert_eq!(
            msg("args.[]"),
            "path args.[]: [] is not a valid value path element"
        );
        assert_eq!(msg("hub.x.y"), "leaf type string in non-leaf Node x.y");
        assert_eq!(
            msg("list.[0].port.x"),
            "leaf type float64 in non-leaf Node x"
        );
    }

    #[test]
    fn whole_dump_drops_null_entries_as_a_merge_patch_does() {
        let t = json!({"spec": {"values": {"a": null, "b": [null, {"c": null, "d": 1}]}}});
        assert_eq!(
            dump(&t, "", Format::Json).unwrap(),
            "{\n    \"apiVersion\": \"install.istio.io/v1alpha1\",\n    \"kind\": \"IstioOperator\",\n    \"spec\": {\n        \"values\": {\n            \"b\": [\n                null,\n                {\n                    \"d\": 1\n                }\n            ]\n        }\n    }\n}\n"
        );
        assert_eq!(dump(&t, "values.a", Format::Yaml).unwrap(), "null\n\n");
    }

    #[test]
    fn line_diff_matches_godebug() {
        assert_eq!(line_diff("a\nb\nc", "a\nb\nc"), "");
        // Worked through godebug's algorithm by hand: the deletion comes first, and the empty
        // line after the last newline stays as an equal line (" ").
        assert_eq!(line_diff("a\nb\nc\n", "a\nx\nc\n"), " a\n-b\n+x\n c\n ");
    }
}
