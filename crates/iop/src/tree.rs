//! istioctl's untyped IstioOperator tree (`operator/pkg/values.Map`): dotted paths with `\.`
//! escapes and `[N]` / `[key:value]` list selectors, `--set` values typed by guessing, and the
//! deep merge that layers one tree over another.
//!
//! The quirks are istioctl's and kept on purpose, because they decide what users get: a path is
//! passed through Go's `filepath.Clean` first; `[key:value]` compares the element's field with
//! the string `value` (so it only ever matches string fields); `--set` values become an `int`,
//! a `float64`, a `bool` or a string, in that order of preference, except under the few paths
//! istioctl always keeps as strings.

use serde_json::{Map, Value};

/// Why a path could not be set (istioctl panics on some of these; bosun reports them).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TreeError {
    #[error("element {0} not found")]
    ElementNotFound(String),
    #[error("unknown segment {0}")]
    UnknownSegment(String),
    #[error("cannot set {path}: {at} is {found}, not {wanted}")]
    NotContainer {
        path: String,
        at: String,
        found: &'static str,
        wanted: &'static str,
    },
    #[error("cannot set an empty path")]
    EmptyPath,
    /// A path deeper than bosun reads IstioOperator input ([`MAX_NESTING_DEPTH`]; istioctl's
    /// values go through encoding/json, which stops at 10,000 levels, but istioctl takes
    /// seconds and gigabytes per thousand before that).
    #[error(
        "cannot set a path of {elements} elements: bosun reads IstioOperator input at most {MAX_NESTING_DEPTH} levels deep, so a --set path has at most {MAX_SET_PATH_ELEMENTS} elements"
    )]
    TooDeep { elements: usize },
    /// `--set` text Go reads as an infinity or NaN, which istioctl then fails to write as JSON
    /// (or panics on): the message is Go's, then the flag.
    #[error("error marshaling into JSON: json: unsupported value: {shown} (--set {path}={text})")]
    Unencodable {
        path: String,
        text: String,
        shown: &'static str,
    },
}

/// How deeply IstioOperator input may nest maps and lists (the document's root counting as the
/// first level), in files and through `--set` paths. istioctl has no bound of its own (only
/// encoding/json's 10,000 levels) and spends seconds and gigabytes per thousand levels (a
/// 9000-deep `unvalidatedValues` takes it 40 s and 4 GB, one in `values.pilot.env` more than
/// 6 GB); Istio's own inputs nest about 10 deep, and the operator cannot read from the cluster
/// an IstioOperator nested beyond about 125 (serde_json's bound). Files are checked before
/// anything else reads them ([`crate::merge`]), in time linear in their size.
pub const MAX_NESTING_DEPTH: usize = 100;

/// The most elements a `--set` path may have (with istioctl's `spec.` in front): the root and
/// each element but the last make a map, and the value may be a list.
pub const MAX_SET_PATH_ELEMENTS: usize = MAX_NESTING_DEPTH - 1;

/// Paths whose `--set` values are never typed: tags like `1.20` must stay strings.
const ALWAYS_STRING: &[&str] = &[
    "spec.values.compatibilityVersion",
    "spec.tag",
    "spec.values.global.tag",
    "spec.meshConfig.defaultConfig.proxyMetadata.",
    "spec.values.meshConfig.defaultConfig.proxyMetadata.",
    "spec.compatibilityVersion",
];

/// Go's `path/filepath.Clean` for `/`-separated paths.
pub fn clean(path: &str) -> String {
    sprig::paths::clean(path)
}

/// Splits `s` at every `sep` not preceded by a backslash (the backslash stays).
pub(crate) fn split_escaped(s: &str, sep: char) -> Vec<String> {
    if s.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut start = 0;
    let mut prev: Option<char> = None;
    for (i, c) in s.char_indices() {
        if c == sep && (i == 0 || prev != Some('\\')) {
            out.push(s[start..i].to_string());
            start = i + c.len_utf8();
        }
        prev = Some(c);
    }
    out.push(s[start..].to_string());
    out
}

/// istioctl's `splitPath`: `a.b\.c[0].d` → `a`, `b.c`, `[0]`, `d`.
pub fn split_path(path: &str) -> Vec<String> {
    let cleaned = clean(path);
    let trimmed = cleaned.strip_prefix('.').unwrap_or(&cleaned);
    let trimmed = trimmed.strip_suffix('.').unwrap_or(trimmed);
    let mut out = Vec::new();
    for seg in split_escaped(trimmed, '.') {
        if seg.is_empty() {
            continue;
        }
        let seg = seg.replace("\\.", ".");
        match seg.find('[') {
            Some(i) if i > 0 => {
                out.push(seg[..i].to_string());
                out.push(seg[i..].to_string());
            }
            _ => out.push(seg),
        }
    }
    out
}

/// `[N]` → N (Go's `strconv.Atoi`: optional sign, decimal digits).
fn index_selector(seg: &str) -> Option<i64> {
    let inner = seg.strip_prefix('[')?.strip_suffix(']')?;
    go_atoi(inner)
}

/// `[key:value]` → (key, value).
fn kv_selector(seg: &str) -> Option<(&str, &str)> {
    let inner = seg.strip_prefix('[')?.strip_suffix(']')?;
    inner.split_once(':')
}

/// Go's `strconv.Atoi` on a 64-bit platform.
pub fn go_atoi(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<i64>().ok()
}

/// Whether a list element's `key` field equals `value` as Go's `any == string` does: only a
/// string field can match.
fn element_matches(element: &Value, key: &str, value: &str) -> bool {
    element
        .as_object()
        .and_then(|m| m.get(key))
        .and_then(Value::as_str)
        == Some(value)
}

/// istioctl's `GetPath`. (A `[key:value]` hit yields the list's first element, as istioctl's
/// does; it reuses the index parsed, and failed to parse, for `[N]`.)
pub fn get_path<'a>(root: &'a Value, path: &str) -> Option<&'a Value> {
    let mut cur = root;
    for seg in split_path(path) {
        if let Some(idx) = index_selector(&seg) {
            let list = cur.as_array()?;
            cur = usize::try_from(idx).ok().and_then(|i| list.get(i))?;
        } else if let Some((k, v)) = kv_selector(&seg) {
            let list = cur.as_array()?;
            if !list.iter().any(|e| element_matches(e, k, v)) {
                return None;
            }
            cur = list.first()?;
        } else {
            cur = cur.as_object()?.get(&seg)?;
        }
    }
    Some(cur)
}

/// istioctl's `GetPathMap`: plain `.`-separated keys (no escapes, no selectors), maps only.
pub fn get_path_map<'a>(root: &'a Value, path: &str) -> Option<&'a Map<String, Value>> {
    let mut cur = root.as_object()?;
    for key in path.split('.') {
        cur = cur.get(key)?.as_object()?;
    }
    Some(cur)
}

/// istioctl's `GetPathString`: the string at `path`, or "" if absent or not a string.
pub fn get_path_string(root: &Value, path: &str) -> String {
    get_path(root, path)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// istioctl's `GetPathBool`: the bool at `path`, or false if absent or not a bool.
pub fn get_path_bool(root: &Value, path: &str) -> bool {
    get_path(root, path)
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

/// JSON's name for a value's type, as Go's `encoding/json` errors say it.
pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a bool",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a map",
    }
}

/// istioctl's `SetPath`: creates missing maps and lists on the way; an index past the end of a
/// list appends.
pub fn set_path(root: &mut Value, path: &str, value: Value) -> Result<(), TreeError> {
    let segs = split_path(path);
    if segs.is_empty() {
        return Err(TreeError::EmptyPath);
    }
    if segs.len() > MAX_SET_PATH_ELEMENTS {
        return Err(TreeError::TooDeep {
            elements: segs.len(),
        });
    }
    if root.is_null() {
        *root = Value::Object(Map::new());
    }
    let Value::Object(map) = root else {
        return Err(TreeError::NotContainer {
            path: path.to_string(),
            at: "the root".to_string(),
            found: kind_name(root),
            wanted: "a map",
        });
    };
    set_recurse(map, &segs, value, path, 0)
}

fn set_recurse(
    base: &mut Map<String, Value>,
    segs: &[String],
    value: Value,
    full: &str,
    depth: usize,
) -> Result<(), TreeError> {
    let seg = &segs[0];
    let next_is_list = segs.len() >= 2 && segs[1].starts_with('[');
    let here = || segs_prefix(full, depth + 1);
    if next_is_list {
        let last = segs.len() == 2;
        let entry = base
            .entry(seg.clone())
            .or_insert_with(|| Value::Array(Vec::new()));
        let found = kind_name(entry);
        let Value::Array(list) = entry else {
            return Err(TreeError::NotContainer {
                path: full.to_string(),
                at: here(),
                found,
                wanted: "a list",
            });
        };
        let index: i64 = if let Some((k, v)) = kv_selector(&segs[1]) {
            match list.iter().position(|e| element_matches(e, k, v)) {
                Some(i) => i as i64,
                None => return Err(TreeError::ElementNotFound(segs[1].clone())),
            }
        } else if let Some(i) = index_selector(&segs[1]) {
            i
        } else {
            return Err(TreeError::UnknownSegment(segs[1].clone()));
        };
        if index < 0 || index as usize >= list.len() {
            if last {
                list.push(value);
            } else {
                let mut fresh = Map::new();
                gotemplate::stack::grow(|| {
                    set_recurse(&mut fresh, &segs[2..], value, full, depth + 2)
                })?;
                list.push(Value::Object(fresh));
            }
        } else {
            if last {
                // istioctl casts the element to a map and recurses with no segments left,
                // which it cannot do; setting `a[0]=x` on an existing element is refused.
                return Err(TreeError::UnknownSegment(segs[1].clone()));
            }
            let element = &mut list[index as usize];
            if element.is_null() {
                *element = Value::Object(Map::new());
            }
            let found = kind_name(element);
            let Value::Object(m) = element else {
                return Err(TreeError::NotContainer {
                    path: full.to_string(),
                    at: segs_prefix(full, depth + 2),
                    found,
                    wanted: "a map",
                });
            };
            gotemplate::stack::grow(|| set_recurse(m, &segs[2..], value, full, depth + 2))?;
        }
        return Ok(());
    }
    if segs.len() == 1 {
        base.insert(seg.clone(), value);
        return Ok(());
    }
    let entry = base
        .entry(seg.clone())
        .or_insert_with(|| Value::Object(Map::new()));
    if entry.is_null() {
        // istioctl descends into a fresh map that it never attaches to a key holding null,
        // so the value is silently dropped (a file with `values:` and nothing under it
        // really does keep every later `values.*` setting out). Kept for parity.
        return Ok(());
    }
    let found = kind_name(entry);
    let Value::Object(m) = entry else {
        return Err(TreeError::NotContainer {
            path: full.to_string(),
            at: here(),
            found,
            wanted: "a map",
        });
    };
    // One level per element: a path may be thousands of elements long.
    gotemplate::stack::grow(|| set_recurse(m, &segs[1..], value, full, depth + 1))
}

/// The first `n` segments of `path`, joined again for messages.
fn segs_prefix(path: &str, n: usize) -> String {
    let segs = split_path(path);
    let mut out = String::new();
    for s in segs.iter().take(n) {
        if !out.is_empty() && !s.starts_with('[') {
            out.push('.');
        }
        out.push_str(s);
    }
    out
}

/// istioctl's `parseValue` for `--set` values: Go `int`, then `float64`, then `bool`, else the
/// string with `\,` unescaped. `path` only names the flag in the error for a value JSON cannot
/// hold (an infinity or NaN; istioctl fails later, when it writes the tree, unless a later layer
/// happens to replace the value).
pub fn parse_set_value(path: &str, text: &str) -> Result<Value, TreeError> {
    if let Some(i) = go_atoi(text) {
        return Ok(Value::from(i));
    }
    match go_parse_float(text) {
        GoFloat::Finite(f) => {
            if let Some(n) = serde_json::Number::from_f64(f) {
                return Ok(Value::Number(n));
            }
        }
        GoFloat::NonFinite(shown) => {
            return Err(TreeError::Unencodable {
                path: path.to_string(),
                text: text.to_string(),
                shown,
            });
        }
        GoFloat::Invalid => {}
    }
    Ok(match text {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Value::Bool(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Value::Bool(false),
        _ => Value::String(text.replace("\\,", ",")),
    })
}

/// What Go's `strconv.ParseFloat(s, 64)` makes of a text, for [`parse_set_value`].
#[derive(Clone, Copy, Debug, PartialEq)]
enum GoFloat {
    Finite(f64),
    /// `Inf`, `-infinity`, `NaN`, …: as Go's JSON encoder names the value.
    NonFinite(&'static str),
    /// A syntax error, or a finite text out of range (Go returns an error for both).
    Invalid,
}

/// Go's `strconv.ParseFloat(s, 64)`: an optional sign, then `inf`/`infinity` (any case; `nan`
/// only unsigned), a decimal number (`1`, `1.`, `.5`, `1e-3`) or a hexadecimal one with a
/// binary exponent (`0x1.8p1`, mandatory), with `_` allowed between digits (and after `0x`).
/// Overflow is an error; underflow is zero.
fn go_parse_float(s: &str) -> GoFloat {
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let lower = body.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" {
        return GoFloat::NonFinite(if neg { "-Inf" } else { "+Inf" });
    }
    if lower == "nan" && body.len() == s.len() {
        return GoFloat::NonFinite("NaN");
    }
    if !underscores_ok(body) {
        return GoFloat::Invalid;
    }
    let digits: String = body.chars().filter(|&c| c != '_').collect();
    let value = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) if !hex.is_empty() => parse_hex_float(hex),
        _ => parse_decimal_float(&digits),
    };
    match value {
        Some(v) if v.is_finite() => GoFloat::Finite(if neg { -v } else { v }),
        _ => GoFloat::Invalid,
    }
}

/// Go's rule for `_` in a number (after its sign): only between two digits, or between the
/// base prefix and a digit.
fn underscores_ok(body: &str) -> bool {
    let b = body.as_bytes();
    let hex = b.len() >= 2 && b[0] == b'0' && matches!(b[1], b'x' | b'X');
    let prefixed = b.len() >= 2 && b[0] == b'0' && matches!(b[1] | 0x20, b'x' | b'o' | b'b');
    // What came last: a digit (or the prefix), an underscore, or something else.
    #[derive(PartialEq)]
    enum Last {
        Start,
        Digit,
        Underscore,
        Other,
    }
    let mut last = if prefixed { Last::Digit } else { Last::Start };
    for &c in &b[if prefixed { 2 } else { 0 }..] {
        if c.is_ascii_digit() || (hex && c.is_ascii_hexdigit()) {
            last = Last::Digit;
        } else if c == b'_' {
            if last != Last::Digit {
                return false;
            }
            last = Last::Underscore;
        } else if last == Last::Underscore {
            return false;
        } else {
            last = Last::Other;
        }
    }
    last != Last::Underscore
}

/// `digits[.digits][e[+-]digits]`, at least one mantissa digit; Rust's parse rounds as Go's.
fn parse_decimal_float(t: &str) -> Option<f64> {
    let b = t.as_bytes();
    let mut i = 0;
    let int_digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    i += int_digits;
    let mut frac_digits = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        frac_digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        i += frac_digits;
    }
    if int_digits + frac_digits == 0 {
        return None;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp_digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        if exp_digits == 0 {
            return None;
        }
        i += exp_digits;
    }
    if i != b.len() {
        return None;
    }
    t.parse::<f64>().ok()
}

/// The part after `0x`: hex digits with an optional point, then `p[+-]digits`. The value is
/// rounded to the nearest float64, ties to even, subnormals included.
fn parse_hex_float(t: &str) -> Option<f64> {
    let (mant, exp) = t.split_once(['p', 'P'])?;
    let exp_digits = exp.strip_prefix(['+', '-']).unwrap_or(exp);
    if exp_digits.is_empty() || !exp_digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    // Exponents past any float's range only need to stay past it.
    let exp_abs: i64 = exp_digits.parse().unwrap_or(100_000).min(100_000);
    let exp2 = if exp.starts_with('-') {
        -exp_abs
    } else {
        exp_abs
    };
    let (int_part, frac_part) = mant.split_once('.').unwrap_or((mant, ""));
    if int_part.len() + frac_part.len() == 0
        || !int_part
            .bytes()
            .chain(frac_part.bytes())
            .all(|c| c.is_ascii_hexdigit())
    {
        return None;
    }
    // The significant bits: up to 124 of them exactly, the rest only as "something was dropped".
    let mut m: u128 = 0;
    let mut scale = exp2 - 4 * frac_part.len() as i64;
    let mut sticky = false;
    for c in int_part.bytes().chain(frac_part.bytes()) {
        let d = (c as char).to_digit(16).expect("checked hex digit") as u128;
        if m >> 120 == 0 {
            m = m * 16 + d;
        } else {
            sticky |= d != 0;
            scale += 4;
        }
    }
    Some(round_binary(m, scale, sticky))
}

/// The float64 nearest to `m · 2^scale` (plus a little more when `sticky`), ties to even.
fn round_binary(m: u128, scale: i64, sticky: bool) -> f64 {
    if m == 0 {
        return 0.0;
    }
    let top = 127 - i64::from(m.leading_zeros()); // m < 2^(top+1)
    // The lowest bit a float64 can hold here: 53 significant bits, but never below 2^-1074.
    let lowest = (top + scale - 52).max(-1074);
    let drop = lowest - scale;
    let mut q = if drop <= 0 {
        m << (-drop).min(127)
    } else if drop > 127 {
        0
    } else {
        m >> drop
    };
    if drop > 0 {
        let (half, rest) = if drop > 128 {
            (false, true)
        } else {
            let half_bit = 1u128 << (drop - 1);
            let rem = if drop == 128 {
                m
            } else {
                m & ((1u128 << drop) - 1)
            };
            (rem & half_bit != 0, rem & (half_bit - 1) != 0 || sticky)
        };
        if half && (rest || q & 1 == 1) {
            q += 1;
        }
    }
    // q < 2^54 now; q · 2^lowest is exact unless it overflows.
    let mut v = q as f64;
    let mut e = lowest;
    while e > 0 {
        let step = e.min(1000);
        v *= 2f64.powi(step as i32);
        e -= step;
    }
    while e < 0 {
        let step = (-e).min(1000);
        v *= 2f64.powi(-(step as i32));
        e += step;
    }
    v
}

/// istioctl's `getPV`: `path=value`, both trimmed; no `=` means the whole text is the path and
/// the value is empty.
pub fn split_set_flag(flag: &str) -> (String, String) {
    match flag.split_once('=') {
        Some((p, v)) => (p.trim().to_string(), v.trim().to_string()),
        None => (flag.to_string(), String::new()),
    }
}

/// The value istioctl stores for `--set path=text` (typed unless the path is always a string).
pub fn typed_set_value(path: &str, text: &str) -> Result<Value, TreeError> {
    if ALWAYS_STRING.iter().any(|p| path.starts_with(p)) {
        Ok(Value::String(text.to_string()))
    } else {
        parse_set_value(path, text)
    }
}

/// istioctl's `SetPaths`: each `path=value` flag set in order.
pub fn set_paths<S: AsRef<str>>(root: &mut Value, flags: &[S]) -> Result<(), TreeError> {
    for flag in flags {
        let (path, text) = split_set_flag(flag.as_ref());
        let value = typed_set_value(&path, &text)?;
        set_path(root, &path, value)?;
    }
    Ok(())
}

/// istioctl's `SetSpecPaths`: [`set_paths`] with every path under `spec.`.
pub fn set_spec_paths<S: AsRef<str>>(root: &mut Value, flags: &[S]) -> Result<(), TreeError> {
    for flag in flags {
        set_paths(root, &[format!("spec.{}", flag.as_ref())]).map_err(|e| match e {
            // Named as the user wrote the flag.
            TreeError::Unencodable { path, text, shown } => TreeError::Unencodable {
                path: path.strip_prefix("spec.").unwrap_or(&path).to_string(),
                text,
                shown,
            },
            other => other,
        })?;
    }
    Ok(())
}

/// istioctl's `MergeFrom`: maps merge recursively; anything else (lists included) replaces.
pub fn merge_from(base: &mut Map<String, Value>, other: &Map<String, Value>) {
    for (k, v) in other {
        if let Value::Object(om) = v
            && let Some(Value::Object(bm)) = base.get_mut(k)
        {
            merge_from(bm, om);
            continue;
        }
        base.insert(k.clone(), v.clone());
    }
}

/// istioctl's `MakeMap`: `contents` nested under `path`.
pub fn make_map(contents: Value, path: &[&str]) -> Map<String, Value> {
    let mut cur = contents;
    for key in path.iter().rev() {
        let mut m = Map::new();
        m.insert((*key).to_string(), cur);
        cur = Value::Object(m);
    }
    match cur {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_deeper_than_bosun_reads_are_refused() {
        let deep = |n: usize| format!("spec.{}", vec!["a"; n - 1].join("."));
        let mut root = Value::Null;
        set_path(&mut root, &deep(MAX_SET_PATH_ELEMENTS), Value::Bool(true)).unwrap();
        // serde_json frees (and compares) a tree recursively: a deep one on a stack of its own.
        let freeing = std::thread::Builder::new().stack_size(256 << 20);
        freeing.spawn(move || drop(root)).unwrap().join().unwrap();
        for n in [MAX_SET_PATH_ELEMENTS + 1, 9000, 30_000] {
            let mut root = Value::Null;
            let err = set_path(&mut root, &deep(n), Value::Bool(true)).unwrap_err();
            assert!(
                err.to_string()
                    .starts_with(&format!("cannot set a path of {n} elements")),
                "{err}"
            );
            assert!(root.is_null() || root.as_object().is_some_and(|m| m.is_empty()));
        }
    }

    #[test]
    fn split_path_handles_escapes_and_selectors() {
        assert_eq!(split_path("a.b\\.c[0].d"), vec!["a", "b.c", "[0]", "d"]);
        assert_eq!(
            split_path("components.ingressGateways.[name:istio-ingressgateway].enabled"),
            vec![
                "components",
                "ingressGateways",
                "[name:istio-ingressgateway]",
                "enabled"
            ]
        );
        assert_eq!(split_path(".a.b."), vec!["a", "b"]);
        assert_eq!(clean("a//b/./c/../d"), "a/b/d");
    }

    #[test]
    fn set_values_are_typed_as_istioctl_types_them() {
        let typed = |t: &str| parse_set_value("spec.values.x", t).unwrap();
        assert_eq!(typed("3"), json!(3));
        assert_eq!(typed("1.5"), json!(1.5));
        assert_eq!(typed("True"), json!(true));
        assert_eq!(typed("t"), json!(true));
        assert_eq!(typed("a\\,b"), json!("a,b"));
        assert_eq!(typed("1e3"), json!(1000.0));
        assert_eq!(typed_set_value("spec.tag", "1.20").unwrap(), json!("1.20"));
        // Go's ParseFloat: `_` between digits, hex with a binary exponent, `1.` and `.5`.
        assert_eq!(typed("1_000"), json!(1000.0));
        assert_eq!(typed("1_000.5_5"), json!(1000.55));
        assert_eq!(typed("0x1p4"), json!(16.0));
        assert_eq!(typed("0x_1.8P-1"), json!(0.75));
        assert_eq!(typed("-0x.8p1"), json!(-1.0));
        assert_eq!(typed("1."), json!(1.0));
        assert_eq!(typed(".5"), json!(0.5));
        // Not floats to Go: a string.
        for text in [
            "0x10", "1__0", "_1", "1_", "1e", ".", "0x", "1e400", "0xp1", "+nan", "infin",
        ] {
            assert_eq!(typed(text), json!(text), "{text}");
        }
        // Overflow is an error (a string), underflow is zero.
        assert_eq!(typed("1e-400"), json!(0.0));
        assert_eq!(typed("0x1p-1075"), json!(0.0));
        assert_eq!(typed("0x1p-1074"), json!(5e-324));
        assert_eq!(typed("0x1.8p-1074"), json!(1e-323));
        assert_eq!(typed("0x1.fffffffffffff8p0"), json!(2.0));
        assert_eq!(typed("0x1.fffffffffffff7ffp0"), json!(1.9999999999999998));
        assert_eq!(typed("0x1p1024"), json!("0x1p1024"));
        // Rounding past 53 bits: ties to even, anything beyond the half rounds up.
        assert_eq!(typed("0x1.0000000000000000000001p0"), json!(1.0));
        assert_eq!(typed("0x1.00000000000008p0"), json!(1.0));
        assert_eq!(
            typed("0x1.000000000000080000000000000001p0"),
            json!(1.0000000000000002)
        );
        assert_eq!(typed("0x3p-1076"), json!(5e-324));
        assert_eq!(typed("0x1_0p0"), json!(16.0));
        assert_eq!(typed("0b1"), json!("0b1"));
        assert_eq!(
            parse_set_value("spec.values.x", "-Infinity")
                .unwrap_err()
                .to_string(),
            "error marshaling into JSON: json: unsupported value: -Inf (--set spec.values.x=-Infinity)"
        );
        assert!(parse_set_value("spec.values.x", "NaN").is_err());
    }

    #[test]
    fn set_path_creates_and_appends() {
        let mut v = json!({});
        set_path(
            &mut v,
            "spec.components.ingressGateways[0].name",
            json!("a"),
        )
        .unwrap();
        set_path(
            &mut v,
            "spec.components.ingressGateways[5].name",
            json!("b"),
        )
        .unwrap();
        set_path(
            &mut v,
            "spec.components.ingressGateways.[name:b].enabled",
            json!(true),
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"spec":{"components":{"ingressGateways":[{"name":"a"},{"name":"b","enabled":true}]}}})
        );
        assert_eq!(
            set_path(
                &mut v,
                "spec.components.ingressGateways.[name:c].enabled",
                json!(1)
            ),
            Err(TreeError::ElementNotFound("[name:c]".to_string()))
        );
        assert!(set_path(&mut v, "spec.components.ingressGateways.x", json!(1)).is_err());
    }

    #[test]
    fn merge_replaces_lists_and_merges_maps() {
        let mut a = json!({"a":{"b":1,"l":[1,2]}});
        let b = json!({"a":{"c":2,"l":[3]}});
        merge_from(a.as_object_mut().unwrap(), b.as_object().unwrap());
        assert_eq!(a, json!({"a":{"b":1,"c":2,"l":[3]}}));
    }
}
