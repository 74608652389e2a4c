//! Writing YAML as `sigs.k8s.io/yaml.Marshal` does: `encoding/json.Marshal`, go-yaml v2 reading
//! the JSON back (numbers get their YAML 1.1 types), then go-yaml v2's `Marshal`: its encoder's
//! style choices and a port of the part of its emitter (`emitterc.go`) that block-style
//! documents use. libyaml 0.2's emitter differs from go-yaml's in places, so this does not use
//! it.

use std::borrow::Cow;

use gotemplate::{Field, Object, Str, Value};

use crate::YamlError;

pub(crate) mod gofmt;
pub(crate) mod repeats;
pub(crate) mod v3;
pub(crate) mod verbatim;
use crate::gofmt::{format_float, json_float};
use crate::read::{LazyDoc, YMap, YVal, decode_first, resolve_plain};
use crate::repeats::{Repeats, StateAfter, StateBefore};

// ---------------------------------------------------------------------------------------------
// encoding/json.Marshal

fn json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn base64_encode(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn int_text(n: i64, unsigned: bool) -> String {
    if unsigned {
        (n as u64).to_string()
    } else {
        n.to_string()
    }
}

/// What `encoding/json` writes for a Go object, in the order it looks for it.
enum JsonObject {
    /// What its `MarshalJSON` returned.
    Raw(String),
    /// What its `MarshalText` returned, written as a string.
    Text(String),
    /// A named map, slice or number: the value underneath.
    Plain(Value),
    /// A struct (or a pointer to one): its exported fields by their JSON names, in order.
    Struct(Vec<(String, Value)>),
}

fn json_object(o: &dyn Object) -> Result<JsonObject, String> {
    let t = o.type_name();
    if let Some(r) = o.marshal_json() {
        return r
            .map(JsonObject::Raw)
            .map_err(|e| format!("json: error calling MarshalJSON for type {t}: {e}"));
    }
    if let Some(r) = o.marshal_text() {
        return r
            .map(JsonObject::Text)
            .map_err(|e| format!("json: error calling MarshalText for type {t}: {e}"));
    }
    if let Some(v) = o.as_value() {
        return Ok(JsonObject::Plain(v));
    }
    match o.fields() {
        Some(fields) => Ok(JsonObject::Struct(json_fields(&fields))),
        None => Err(format!("json: unsupported type: {t}")),
    }
}

/// A struct's fields as `encoding/json` writes them: exported ones only, named by their
/// `json` tag (`-` leaves a field out), `omitempty` leaving out false, 0, "", nil and empty
/// maps and slices.
fn json_fields(fields: &[Field]) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for f in fields.iter().filter(|f| f.is_exported()) {
        let tag = f.tag_lookup("json").unwrap_or_default();
        if tag == "-" {
            continue;
        }
        let mut opts = tag.split(',');
        let name = opts.next().filter(|n| !n.is_empty()).unwrap_or(f.name);
        if v3::is_zero(&f.value) && opts.any(|o| o == "omitempty") {
            continue;
        }
        out.push((name.to_string(), f.value.clone()));
    }
    out
}

fn json_value(out: &mut String, v: &Value) -> Result<(), String> {
    gotemplate::stack::grow(|| {
        match v {
            Value::Invalid | Value::Nil => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Int(n, k) => out.push_str(&int_text(*n, k.is_unsigned())),
            Value::Float(f) => {
                if !f.is_finite() {
                    return Err(format!(
                        "json: unsupported value: {}",
                        format_float(*f, 'g', 64)
                    ));
                }
                out.push_str(&json_float(*f));
            }
            Value::String(s) => json_string(out, s),
            Value::Bytes(b) => {
                out.push('"');
                out.push_str(&base64_encode(b));
                out.push('"');
            }
            Value::List(l) => {
                out.push('[');
                for (i, item) in l.items().iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    json_value(out, item)?;
                }
                out.push(']');
            }
            Value::Map(m) => {
                out.push('{');
                m.with_entries(|entries| -> Result<(), String> {
                    for (i, (k, v)) in entries.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        json_string(out, k);
                        out.push(':');
                        json_value(out, v)?;
                    }
                    Ok(())
                })?;
                out.push('}');
            }
            Value::Object(o) => match json_object(o.as_ref())? {
                // Go re-compacts it; the marshalers here write compact JSON already.
                JsonObject::Raw(text) => out.push_str(&text),
                JsonObject::Text(text) => json_string(out, &text),
                JsonObject::Plain(inner) => return json_value(out, &inner),
                JsonObject::Struct(fields) => {
                    out.push('{');
                    for (i, (name, value)) in fields.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        json_string(out, name);
                        out.push(':');
                        json_value(out, value)?;
                    }
                    out.push('}');
                }
            },
            Value::Func(f) => return Err(format!("json: unsupported type: {}", f.go_type())),
        }
        Ok(())
    })
}

/// Go's `encoding/json.Marshal` of the value.
pub(crate) fn to_json(v: &Value) -> Result<String, YamlError> {
    let mut out = String::new();
    json_value(&mut out, v).map_err(|message| YamlError {
        message,
        line: None,
        column: None,
    })?;
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// JSON read back by go-yaml (`JSONToYAML`): strings stay strings, numbers resolve by their text.

/// Characters that `encoding/json` writes raw but go-yaml's reader does not take as they are:
/// control characters it rejects, and NEL, a line break folded inside the quoted string.
fn needs_yaml_reread(s: &str) -> bool {
    if s.is_ascii() {
        return s.as_bytes().contains(&0x7f);
    }
    s.chars()
        .any(|c| matches!(c, '\u{7f}'..='\u{9f}' | '\u{fffe}' | '\u{ffff}'))
}

/// A JSON string as go-yaml reads it back: itself, unless go-yaml's reader would see it
/// differently (then the whole JSON text is read back by the YAML reader).
fn json_string_to_yval(s: &str) -> Result<YVal, ()> {
    if needs_yaml_reread(s) {
        Err(())
    } else {
        Ok(YVal::Str(s.as_bytes().into()))
    }
}

/// go-yaml's scanner refuses flow collections nested deeper than this (`max_flow_level`), and
/// block collections indented deeper (`max_indents`): "exceeded max depth of 10000".
pub(crate) const YAML_MAX_DEPTH: usize = 10000;

/// The value as go-yaml reads back its JSON text (`Err` where only reading the text itself
/// gives go-yaml's answer, including a nesting too deep for go-yaml).
fn json_to_yval(v: &Value) -> Result<YVal, ()> {
    json_to_yval_at(v, 0)
}

/// [`json_to_yval`] of a value inside `depth` collections.
fn json_to_yval_at(v: &Value, depth: usize) -> Result<YVal, ()> {
    if matches!(v, Value::List(_) | Value::Map(_) | Value::Object(_)) {
        if depth >= YAML_MAX_DEPTH {
            return Err(());
        }
        gotemplate::stack::grow(|| json_to_yval_level(v, depth + 1))
    } else {
        json_to_yval_level(v, depth)
    }
}

/// One level of [`json_to_yval_at`]: `inner` is the depth of the value's own items.
fn json_to_yval_level(v: &Value, inner: usize) -> Result<YVal, ()> {
    Ok(match v {
        Value::Invalid | Value::Nil => YVal::Nil,
        Value::Bool(b) => YVal::Bool(*b),
        Value::Int(n, k) => resolve_plain(&int_text(*n, k.is_unsigned())),
        Value::Float(f) => resolve_plain(&json_float(*f)),
        Value::String(s) => json_string_to_yval(s)?,
        Value::Bytes(b) => YVal::Str(base64_encode(b).as_bytes().into()),
        Value::List(l) => {
            let items: Result<Vec<YVal>, ()> = l
                .items()
                .iter()
                .map(|item| json_to_yval_at(item, inner))
                .collect();
            YVal::Seq(items?)
        }
        Value::Map(m) => {
            if let Some(source) = m.pending_source()
                && let Some(doc) = source.as_any().downcast_ref::<LazyDoc>()
            {
                return lazy_map_to_yval(doc, inner - 1);
            }
            // Distinct string keys stay distinct: json_string_to_yval keeps a string as it is.
            let entries = m.with_entries(|entries| -> Result<Vec<(YVal, YVal)>, ()> {
                entries
                    .iter()
                    .map(|(k, v)| Ok((json_string_to_yval(k)?, json_to_yval_at(v, inner)?)))
                    .collect()
            })?;
            YVal::Map(YMap::from_distinct(entries))
        }
        // Callers have marshaled the JSON already, so an object's errors were reported there.
        Value::Object(o) => match json_object(o.as_ref()).map_err(|_| ())? {
            // go-yaml reads back what the marshaler wrote.
            JsonObject::Raw(text) => decode_first(text.as_bytes()).map_err(|_| ())?,
            JsonObject::Text(text) => json_string_to_yval(&text)?,
            JsonObject::Plain(plain) => json_to_yval_at(&plain, inner - 1)?,
            JsonObject::Struct(fields) => {
                // JSON names are distinct in the structs modelled here, as Go requires of the
                // fields it writes.
                let entries = fields
                    .iter()
                    .map(|(k, v)| Ok((json_string_to_yval(k)?, json_to_yval_at(v, inner)?)))
                    .collect::<Result<Vec<_>, ()>>()?;
                YVal::Map(YMap::from_distinct(entries))
            }
        },
        Value::Func(_) => YVal::Nil,
    })
}

/// Whether `m` is a lazy map of a decoded document, not built yet.
fn is_lazy_doc(m: &gotemplate::Map) -> bool {
    m.pending_source()
        .is_some_and(|s| s.as_any().downcast_ref::<LazyDoc>().is_some())
}

/// [`json_to_yval`] of a lazy map that is not built yet, written from its document.
fn lazy_map_to_yval(doc: &LazyDoc, depth: usize) -> Result<YVal, ()> {
    let y = lazy_doc_to_yval_at(doc.node(), depth)?;
    // Debug builds (all the tests) check the shortcut against the conversion it skips.
    #[cfg(debug_assertions)]
    {
        let value = crate::read::to_json_value(doc.node()).expect("a LazyDoc converts");
        let general = json_to_yval_at(&value, depth);
        let whole = crate::verbatim::expand_all(&y, &|v| lazy_doc_to_yval(v).ok());
        assert!(
            general
                .as_ref()
                .is_ok_and(|g| crate::read::same_yval(g, whole.as_ref().unwrap_or(&y))),
            "a lazy map writes differently from its conversion"
        );
    }
    Ok(y)
}

/// Integers beyond this are not exact as float64.
const EXACT_INT: u64 = 1 << 53;

/// `json_to_yval(to_json_value(node))` without building the template values between: numbers
/// become float64 text read back, keys sort as a Go map's do, and strings keep their bytes.
fn lazy_doc_to_yval(node: &YVal) -> Result<YVal, ()> {
    lazy_doc_to_yval_at(node, 0)
}

/// [`lazy_doc_to_yval`] of a node inside `depth` collections (see [`json_to_yval_at`]).
fn lazy_doc_to_yval_at(node: &YVal, depth: usize) -> Result<YVal, ()> {
    if matches!(node, YVal::Seq(_) | YVal::Map(_)) {
        if depth >= YAML_MAX_DEPTH {
            return Err(());
        }
        gotemplate::stack::grow(|| lazy_doc_to_yval_level(node, depth + 1))
    } else {
        lazy_doc_to_yval_level(node, depth)
    }
}

/// One level of [`lazy_doc_to_yval_at`]: `inner` is the depth of the node's own items.
fn lazy_doc_to_yval_level(node: &YVal, inner: usize) -> Result<YVal, ()> {
    Ok(match node {
        YVal::Nil => YVal::Nil,
        YVal::Bool(b) => YVal::Bool(*b),
        // An integer exact as a float64 is written as its digits, which read back as it.
        YVal::Int(i) if i.unsigned_abs() <= EXACT_INT => YVal::Int(*i),
        YVal::Uint(u) if *u <= EXACT_INT => YVal::Int(*u as i64),
        YVal::Int(i) => resolve_plain(&json_float(*i as f64)),
        YVal::Uint(u) => resolve_plain(&json_float(*u as f64)),
        YVal::Float(f) => resolve_plain(&json_float(*f)),
        YVal::Str(s) => json_bytes_to_yval(s)?,
        // Its text was compared with the output for the converted value.
        YVal::Verbatim(block) => YVal::Verbatim(block.clone()),
        YVal::Seq(items) => YVal::Seq(
            items
                .iter()
                .map(|item| lazy_doc_to_yval_at(item, inner))
                .collect::<Result<_, ()>>()?,
        ),
        YVal::Map(m) => {
            let mut entries = m
                .entries
                .iter()
                .map(|(k, v)| match k {
                    YVal::Str(k) => Ok((json_bytes_to_yval(k)?, v)),
                    // LazyDoc trees have string keys only.
                    _ => Err(()),
                })
                .collect::<Result<Vec<_>, ()>>()?;
            let key = |e: &(YVal, &YVal)| -> std::rc::Rc<[u8]> {
                match &e.0 {
                    YVal::Str(b) => b.clone(),
                    _ => std::rc::Rc::from([]),
                }
            };
            // A Go map holds each key once, the last one read, in sorted order.
            if !entries.windows(2).all(|w| key(&w[0]) < key(&w[1])) {
                entries.reverse();
                entries.sort_by_key(key);
                entries.dedup_by_key(|e| key(e));
            }
            let entries = entries
                .into_iter()
                .map(|(k, v)| Ok((k, lazy_doc_to_yval_at(v, inner)?)))
                .collect::<Result<Vec<_>, ()>>()?;
            YVal::Map(YMap::from_distinct(entries))
        }
    })
}

/// A decoded string as the JSON round trip and go-yaml's re-read leave it (shared when valid
/// UTF-8, as most are).
fn json_bytes_to_yval(s: &std::rc::Rc<[u8]>) -> Result<YVal, ()> {
    match std::str::from_utf8(s) {
        Ok(text) if !needs_yaml_reread(text) => Ok(YVal::Str(s.clone())),
        Ok(_) => Err(()),
        Err(_) => json_string_to_yval(&crate::read::go_lossy_utf8(s)),
    }
}

// ---------------------------------------------------------------------------------------------
// go-yaml v2's key order (sorter.go), for string keys.

fn is_letter(c: char) -> bool {
    c.is_alphabetic()
}

fn is_digit(c: char) -> bool {
    c.is_ascii_digit() || (!c.is_ascii() && c.is_numeric())
}

/// `keyList.Less` for two string keys.
fn key_less(a: &str, b: &str) -> bool {
    // Most keys are ASCII: compare their bytes without collecting characters.
    if a.is_ascii() && b.is_ascii() {
        return key_less_in(a.as_bytes(), b.as_bytes(), |c| c as char);
    }
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    key_less_in(&ar, &br, |c| c)
}

fn key_less_in<T: Copy + PartialEq + PartialOrd>(
    ar: &[T],
    br: &[T],
    ch: impl Fn(T) -> char,
) -> bool {
    let mut i = 0;
    while i < ar.len() && i < br.len() {
        if ar[i] == br[i] {
            i += 1;
            continue;
        }
        let al = is_letter(ch(ar[i]));
        let bl = is_letter(ch(br[i]));
        if al && bl {
            return ar[i] < br[i];
        }
        if al || bl {
            return bl;
        }
        let (mut an, mut bn): (i64, i64) = (0, 0);
        if ch(ar[i]) == '0' || ch(br[i]) == '0' {
            let mut j = i as isize - 1;
            while j >= 0 && is_digit(ch(ar[j as usize])) {
                if ch(ar[j as usize]) != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
                j -= 1;
            }
        }
        let mut ai = i;
        while ai < ar.len() && is_digit(ch(ar[ai])) {
            an = an
                .wrapping_mul(10)
                .wrapping_add(ch(ar[ai]) as i64 - '0' as i64);
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && is_digit(ch(br[bi])) {
            bn = bn
                .wrapping_mul(10)
                .wrapping_add(ch(br[bi]) as i64 - '0' as i64);
            bi += 1;
        }
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ar[i] < br[i];
    }
    ar.len() < br.len()
}

/// Sort with a comparator that may not be a total order, without panicking: insertion sort
/// (what Go's `sort.Sort` does for up to 12 elements), merge sort beyond.
fn sort_keys<T>(items: &mut Vec<T>, less: &impl Fn(&T, &T) -> bool) {
    if items.len() <= 12 {
        for i in 1..items.len() {
            let mut j = i;
            while j > 0 && less(&items[j], &items[j - 1]) {
                items.swap(j, j - 1);
                j -= 1;
            }
        }
        return;
    }
    let mid = items.len() / 2;
    let mut right = items.split_off(mid);
    sort_keys(items, less);
    sort_keys(&mut right, less);
    let left = std::mem::take(items);
    let mut l = left.into_iter().peekable();
    let mut r = right.into_iter().peekable();
    loop {
        match (l.peek(), r.peek()) {
            (Some(a), Some(b)) => {
                if less(b, a) {
                    items.push(r.next().expect("peeked"));
                } else {
                    items.push(l.next().expect("peeked"));
                }
            }
            (Some(_), None) => items.push(l.next().expect("peeked")),
            (None, Some(_)) => items.push(r.next().expect("peeked")),
            (None, None) => break,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The encoder's scalar styles (encode.go).

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
}

/// go-yaml v2's base 60 float pattern `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`,
/// matched by hand (no expression to compile). After a colon, a second digit is taken when
/// the first is 0-5: only a colon, a dot or the end may follow a group, never a digit.
fn base60_float_pattern(s: &str) -> bool {
    let b = s.as_bytes();
    let digit_or_underscore = |c: &u8| c.is_ascii_digit() || *c == b'_';
    let mut i = usize::from(matches!(b.first(), Some(b'-' | b'+')));
    if !b.get(i).is_some_and(u8::is_ascii_digit) {
        return false;
    }
    i += 1 + b[i + 1..]
        .iter()
        .take_while(|c| digit_or_underscore(c))
        .count();
    let mut groups = 0;
    while b.get(i) == Some(&b':') {
        i += 1;
        match (b.get(i), b.get(i + 1)) {
            (Some(b'0'..=b'5'), Some(second)) if second.is_ascii_digit() => i += 2,
            (Some(first), _) if first.is_ascii_digit() => i += 1,
            _ => return false,
        }
        groups += 1;
    }
    if groups == 0 {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1 + b[i + 1..]
            .iter()
            .take_while(|c| digit_or_underscore(c))
            .count();
    }
    i == b.len()
}

fn is_base60_float(s: &str) -> bool {
    let Some(&c) = s.as_bytes().first() else {
        return false;
    };
    if !(c == b'+' || c == b'-' || c.is_ascii_digit()) || !s.contains(':') {
        return false;
    }
    base60_float_pattern(s)
}

fn string_style(s: &str) -> Style {
    let can_use_plain = crate::read::resolve_non_string("", s).is_none() && !is_base60_float(s);
    if s.contains('\n') {
        Style::Literal
    } else if can_use_plain {
        Style::Plain
    } else {
        Style::DoubleQuoted
    }
}

// ---------------------------------------------------------------------------------------------
// The emitter (emitterc.go), for block collections, empty flow collections and scalars.

fn at(b: &[u8], i: usize) -> u8 {
    b.get(i).copied().unwrap_or(0)
}

fn width(c: u8) -> usize {
    if c & 0x80 == 0 {
        1
    } else if c & 0xE0 == 0xC0 {
        2
    } else if c & 0xF0 == 0xE0 {
        3
    } else if c & 0xF8 == 0xF0 {
        4
    } else {
        0
    }
}

fn is_space(b: &[u8], i: usize) -> bool {
    at(b, i) == b' '
}

fn is_blank(b: &[u8], i: usize) -> bool {
    matches!(at(b, i), b' ' | b'\t')
}

fn is_break(b: &[u8], i: usize) -> bool {
    let c = at(b, i);
    c == b'\r'
        || c == b'\n'
        || (c == 0xC2 && at(b, i + 1) == 0x85)
        || (c == 0xE2 && at(b, i + 1) == 0x80 && (at(b, i + 2) == 0xA8 || at(b, i + 2) == 0xA9))
}

fn is_blankz(b: &[u8], i: usize) -> bool {
    is_blank(b, i) || is_break(b, i) || at(b, i) == 0
}

fn is_printable(b: &[u8], i: usize) -> bool {
    let c = at(b, i);
    c == 0x0A
        || (0x20..=0x7E).contains(&c)
        || (c == 0xC2 && at(b, i + 1) >= 0xA0)
        || (c > 0xC2 && c < 0xED)
        || (c == 0xED && at(b, i + 1) < 0xA0)
        || c == 0xEE
        || (c == 0xEF
            && !(at(b, i + 1) == 0xBB && at(b, i + 2) == 0xBF)
            && !(at(b, i + 1) == 0xBF && (at(b, i + 2) == 0xBE || at(b, i + 2) == 0xBF)))
}

/// go-yaml's `is_bom(b, i)` looks at the start of the value whatever `i` is.
fn starts_with_bom(b: &[u8]) -> bool {
    b.starts_with(&[0xEF, 0xBB, 0xBF])
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Analysis {
    multiline: bool,
    flow_plain_allowed: bool,
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

/// Whether byte `c` of a scalar is a YAML indicator there: (in flow context, in block context),
/// as libyaml's `yaml_emitter_analyze_scalar` decides.
#[inline]
fn indicators(c: u8, first: bool, preceded_by_ws: bool, followed_by_ws: bool) -> (bool, bool) {
    if first {
        match c {
            b'#' | b',' | b'[' | b']' | b'{' | b'}' | b'&' | b'*' | b'!' | b'|' | b'>' | b'\''
            | b'"' | b'%' | b'@' | b'`' => (true, true),
            b'?' | b':' => (true, followed_by_ws),
            b'-' if followed_by_ws => (true, true),
            _ => (false, false),
        }
    } else {
        match c {
            b',' | b'?' | b'[' | b']' | b'{' | b'}' => (true, false),
            b':' => (true, followed_by_ws),
            b'#' if preceded_by_ws => (true, true),
            _ => (false, false),
        }
    }
}

/// `yaml_emitter_analyze_scalar`.
fn analyze_scalar(value: &[u8]) -> Analysis {
    if value.is_empty() {
        return analyze_any(value);
    }
    let multiline = memchr::memchr2(b'\n', b'\r', value).is_some();
    if value.is_ascii() {
        return if multiline {
            analyze_multiline(value)
        } else {
            analyze_ascii(value)
        };
    }
    if multiline && std::str::from_utf8(value).is_ok() {
        return analyze_multiline(value);
    }
    analyze_any(value)
}

/// [`analyze_any`] for UTF-8 text with a line break, which rules out both plain styles
/// whatever its indicators: only the flags that decide the quoted and block styles are
/// computed, skipping printable ASCII other than the space at a comparison each (a sidecar
/// injector template is tens of kilobytes of this).
fn analyze_multiline(value: &[u8]) -> Analysis {
    let n = value.len();
    let mut special_characters = false;
    let mut break_space = false;
    let mut space_break = false;
    let mut previous_space = false;
    let mut previous_break = false;
    let mut i = 0;
    while i < n {
        let c = value[i];
        if (0x21..=0x7E).contains(&c) {
            previous_space = false;
            previous_break = false;
            i += 1;
            continue;
        }
        if !is_printable(value, i) {
            special_characters = true;
        }
        if c == b' ' {
            break_space |= previous_break;
            previous_space = true;
            previous_break = false;
        } else if is_break(value, i) {
            space_break |= previous_space;
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        i += width(c).max(1);
    }
    // The last character starts at the last byte that is not a UTF-8 continuation byte.
    let last = (0..n).rev().find(|&k| value[k] & 0xC0 != 0x80).unwrap_or(0);
    finish_analysis(
        true,
        false,
        false,
        special_characters,
        [
            value[0] == b' ',
            is_break(value, 0),
            value[last] == b' ',
            is_break(value, last),
        ],
        break_space,
        space_break,
    )
}

/// Bytes that change nothing in the analysis when they are not the first: printable ASCII
/// other than the space and the characters that can be indicators after the first
/// (`,?[]{}:#`). After a run of them no space or break precedes and no white space is before.
static QUIET_AFTER_FIRST: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0x21;
    while c <= 0x7E {
        table[c] = !matches!(
            c as u8,
            b',' | b'?' | b'[' | b']' | b'{' | b'}' | b':' | b'#'
        );
        c += 1;
    }
    table
};

/// [`analyze_any`] for ASCII text, where every character is one byte: the same flags with
/// the character classes as plain comparisons, and runs of [`QUIET_AFTER_FIRST`] bytes (most
/// of a long description or template) skipped at a table lookup each.
fn analyze_ascii(value: &[u8]) -> Analysis {
    let n = value.len();
    let mut block_indicators = false;
    let mut flow_indicators = false;
    let mut line_breaks = false;
    let mut special_characters = false;
    let mut break_space = false;
    let mut space_break = false;
    let mut previous_space = false;
    let mut previous_break = false;
    if value.starts_with(b"---") || value.starts_with(b"...") {
        block_indicators = true;
        flow_indicators = true;
    }
    let blank = |c: u8| c == b' ' || c == b'\t';
    let brk = |c: u8| c == b'\r' || c == b'\n';
    let mut preceded_by_whitespace = true;
    let mut i = 0;
    while i < n {
        let c = value[i];
        if i > 0 && QUIET_AFTER_FIRST[c as usize] {
            i += 1;
            while i < n && QUIET_AFTER_FIRST[value[i] as usize] {
                i += 1;
            }
            previous_space = false;
            previous_break = false;
            preceded_by_whitespace = false;
            continue;
        }
        let followed_by_whitespace = i + 1 >= n || blank(value[i + 1]);
        let (flow, block) = indicators(c, i == 0, preceded_by_whitespace, followed_by_whitespace);
        flow_indicators |= flow;
        block_indicators |= block;
        if !(c == 0x0A || (0x20..=0x7E).contains(&c)) {
            special_characters = true;
        }
        if c == b' ' {
            if previous_break {
                break_space = true;
            }
            previous_space = true;
            previous_break = false;
        } else if brk(c) {
            line_breaks = true;
            if previous_space {
                space_break = true;
            }
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        // is_blankz: a NUL counts as the end of the text.
        preceded_by_whitespace = blank(c) || brk(c) || c == 0;
        i += 1;
    }
    let leading_space = value[0] == b' ';
    let leading_break = brk(value[0]);
    let trailing_space = value[n - 1] == b' ';
    let trailing_break = brk(value[n - 1]);
    finish_analysis(
        line_breaks,
        flow_indicators,
        block_indicators,
        special_characters,
        [leading_space, leading_break, trailing_space, trailing_break],
        break_space,
        space_break,
    )
}

/// The styles the flags allow (the end of `yaml_emitter_analyze_scalar`).
fn finish_analysis(
    line_breaks: bool,
    flow_indicators: bool,
    block_indicators: bool,
    special_characters: bool,
    [leading_space, leading_break, trailing_space, trailing_break]: [bool; 4],
    break_space: bool,
    space_break: bool,
) -> Analysis {
    let mut a = Analysis {
        multiline: line_breaks,
        flow_plain_allowed: true,
        block_plain_allowed: true,
        single_quoted_allowed: true,
        block_allowed: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.flow_plain_allowed = false;
        a.block_plain_allowed = false;
    }
    if trailing_space {
        a.block_allowed = false;
    }
    if break_space {
        a.flow_plain_allowed = false;
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
    }
    if space_break || special_characters {
        a.flow_plain_allowed = false;
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
        a.block_allowed = false;
    }
    if line_breaks {
        a.flow_plain_allowed = false;
        a.block_plain_allowed = false;
    }
    if flow_indicators {
        a.flow_plain_allowed = false;
    }
    if block_indicators {
        a.block_plain_allowed = false;
    }
    a
}

/// `yaml_emitter_analyze_scalar`, character by character.
fn analyze_any(value: &[u8]) -> Analysis {
    if value.is_empty() {
        return Analysis {
            multiline: false,
            flow_plain_allowed: false,
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    let mut block_indicators = false;
    let mut flow_indicators = false;
    let mut line_breaks = false;
    let mut special_characters = false;
    let mut leading_space = false;
    let mut leading_break = false;
    let mut trailing_space = false;
    let mut trailing_break = false;
    let mut break_space = false;
    let mut space_break = false;
    let mut previous_space = false;
    let mut previous_break = false;

    if value.starts_with(b"---") || value.starts_with(b"...") {
        block_indicators = true;
        flow_indicators = true;
    }
    let mut preceded_by_whitespace = true;
    let mut i = 0;
    while i < value.len() {
        let w = width(value[i]).max(1);
        let followed_by_whitespace = i + w >= value.len() || is_blank(value, i + w);
        let c = value[i];
        let (flow, block) = indicators(c, i == 0, preceded_by_whitespace, followed_by_whitespace);
        flow_indicators |= flow;
        block_indicators |= block;
        // The emitter is in unicode mode: only non-printable characters are special.
        if !is_printable(value, i) {
            special_characters = true;
        }
        if is_space(value, i) {
            if i == 0 {
                leading_space = true;
            }
            if i + w == value.len() {
                trailing_space = true;
            }
            if previous_break {
                break_space = true;
            }
            previous_space = true;
            previous_break = false;
        } else if is_break(value, i) {
            line_breaks = true;
            if i == 0 {
                leading_break = true;
            }
            if i + w == value.len() {
                trailing_break = true;
            }
            if previous_space {
                space_break = true;
            }
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = is_blankz(value, i);
        i += w;
    }
    finish_analysis(
        line_breaks,
        flow_indicators,
        block_indicators,
        special_characters,
        [leading_space, leading_break, trailing_space, trailing_break],
        break_space,
        space_break,
    )
}

struct Emitter<'a> {
    out: Vec<u8>,
    column: i64,
    indent: i64,
    indents: Vec<i64>,
    whitespace: bool,
    indention: bool,
    flow_level: u32,
    mapping_context: bool,
    simple_key_context: bool,
    best_indent: i64,
    best_width: i64,
    /// Collections written more than once, when the tree has any (see [`Repeats`]).
    repeats: Option<Repeats<'a>>,
    /// When set, large verbatim blocks are not copied into `out` but set in at their offsets
    /// (see [`marshal_spliced`]).
    splices: Option<Vec<(usize, Str)>>,
}

impl<'a> Emitter<'a> {
    fn new() -> Emitter<'a> {
        Emitter {
            out: Vec::new(),
            column: 0,
            indent: -1,
            indents: Vec::new(),
            whitespace: true,
            indention: true,
            flow_level: 0,
            mapping_context: false,
            simple_key_context: false,
            best_indent: 2,
            best_width: 80,
            repeats: None,
            splices: None,
        }
    }

    /// The number of texts set in so far.
    fn splice_count(&self) -> usize {
        self.splices.as_ref().map_or(0, Vec::len)
    }

    /// Writes again what was written at `text` of `out`, with the texts set in there
    /// (`splices`: their indices, none unless splicing).
    fn write_again(&mut self, text: std::ops::Range<usize>, splices: std::ops::Range<usize>) {
        let mut from = text.start;
        for k in splices {
            let list = self
                .splices
                .as_mut()
                .expect("texts are set in only while splicing");
            let (at, shared) = list[k].clone();
            self.out.extend_from_within(from..at);
            list.push((self.out.len(), shared));
            from = at;
        }
        self.out.extend_from_within(from..text.end);
    }

    fn put(&mut self, c: u8) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push(b'\n');
        self.column = 0;
    }

    /// Copy one character of `s` at `*i`.
    fn write(&mut self, s: &[u8], i: &mut usize) {
        let w = width(s[*i]).max(1);
        self.out.extend_from_slice(&s[*i..(*i + w).min(s.len())]);
        self.column += 1;
        *i += w;
    }

    /// Copy the run of ASCII bytes at `*i` that `ordinary` accepts, one column each: what
    /// calling [`Emitter::write`] on each of them would do, in one copy.
    fn write_run(&mut self, s: &[u8], i: &mut usize, ordinary: impl Fn(u8) -> bool) {
        let start = *i;
        let mut end = start;
        while end < s.len() && s[end] < 0x80 && ordinary(s[end]) {
            end += 1;
        }
        if end == start {
            self.write(s, i);
            return;
        }
        self.out.extend_from_slice(&s[start..end]);
        self.column += (end - start) as i64;
        *i = end;
    }

    fn write_all(&mut self, s: &[u8]) {
        let mut i = 0;
        while i < s.len() {
            self.write(s, &mut i);
        }
    }

    fn write_break(&mut self, s: &[u8], i: &mut usize) {
        if s[*i] == b'\n' {
            self.put_break();
            *i += 1;
        } else {
            self.write(s, i);
            self.column = 0;
        }
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { self.best_indent } else { 0 };
        } else if !indentless {
            self.indent += self.best_indent;
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().expect("indent stack");
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0);
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        if self.column < indent {
            let n = (indent - self.column) as usize;
            self.out.resize(self.out.len() + n, b' ');
            self.column = indent;
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn write_indicator(
        &mut self,
        indicator: &[u8],
        need_whitespace: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        if need_whitespace && !self.whitespace {
            self.put(b' ');
        }
        self.write_all(indicator);
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
    }

    fn emit_node(&mut self, v: &'a YVal, mapping: bool, simple_key: bool) {
        gotemplate::stack::grow(|| {
            if let YVal::Verbatim(block) = v
                && self.flow_level == 0
                && self.state_before(mapping, simple_key) == block.before()
            {
                match self.splices.as_mut() {
                    Some(list) if block.emitted().len() >= SPLICE_MIN => {
                        list.push((self.out.len(), block.shared()));
                    }
                    _ => self.out.extend_from_slice(block.emitted()),
                }
                self.restore(block.after());
                return;
            }
            // Repeated collections are non-empty, so written in block style.
            let block_collection = self.flow_level == 0 && matches!(v, YVal::Seq(_) | YVal::Map(_));
            let Some(hash) = self
                .repeats
                .as_ref()
                .filter(|_| block_collection)
                .and_then(|r| r.hash_of(v))
            else {
                return self.emit_node_once(v, mapping, simple_key);
            };
            let before = self.state_before(mapping, simple_key);
            let repeats = self.repeats.as_ref().expect("checked above");
            if let Some((text, splices, after)) = repeats.find(hash, before, v) {
                self.write_again(text, splices);
                self.restore(after);
                return;
            }
            let (start, first_splice) = (self.out.len(), self.splice_count());
            self.emit_node_once(v, mapping, simple_key);
            let after = self.state_after();
            let (end, end_splice) = (self.out.len(), self.splice_count());
            if let Some(r) = self.repeats.as_mut() {
                r.remember(hash, before, v, start..end, first_splice..end_splice, after);
            }
        })
    }

    fn emit_node_once(&mut self, v: &'a YVal, mapping: bool, simple_key: bool) {
        match v {
            YVal::Seq(items) if self.flow_level == 0 && !items.is_empty() => {
                self.mapping_context = mapping;
                self.simple_key_context = simple_key;
                self.begin_block_seq();
                for item in items {
                    self.seq_item();
                    self.emit_node(item, false, false);
                }
                self.pop_indent();
            }
            YVal::Map(m) if self.flow_level == 0 && !m.entries.is_empty() => {
                self.mapping_context = mapping;
                self.simple_key_context = simple_key;
                self.increase_indent(false, false);
                // Each key's text once, not once per comparison.
                let mut entries: Vec<(Cow<'_, str>, &(YVal, YVal))> =
                    m.entries.iter().map(|e| (yval_key_str(&e.0), e)).collect();
                sort_keys(
                    &mut entries,
                    &|a: &(Cow<'_, str>, &(YVal, YVal)), b: &(Cow<'_, str>, &(YVal, YVal))| {
                        key_less(&a.0, &b.0)
                    },
                );
                for (_, (k, v)) in entries {
                    self.write_indent();
                    if check_simple_key(k) {
                        self.emit_node(k, true, true);
                        self.write_indicator(b":", false, false, false);
                    } else {
                        self.write_indicator(b"?", true, false, true);
                        self.emit_node(k, true, false);
                        self.write_indent();
                        self.write_indicator(b":", true, false, true);
                    }
                    self.emit_node(v, true, false);
                }
                self.pop_indent();
            }
            YVal::Verbatim(block) => {
                // Another state than the one the block was compared in: written from its value.
                match lazy_doc_to_yval(&block.expand()) {
                    Ok(value) => {
                        // An emitter of the value's own lifetime (repeats refer to nodes of the
                        // tree being written), continuing this one's output and state.
                        let mut inner = Emitter {
                            out: std::mem::take(&mut self.out),
                            indents: std::mem::take(&mut self.indents),
                            repeats: None,
                            splices: self.splices.take(),
                            ..*self
                        };
                        inner.emit_node_once(&value, mapping, simple_key);
                        self.restore(inner.state_after());
                        self.indent = inner.indent;
                        self.out = inner.out;
                        self.indents = inner.indents;
                        self.splices = inner.splices;
                    }
                    // `verbatim::find` converted every scalar of the block.
                    Err(()) => unreachable!("a verbatim block converts"),
                }
            }
            leaf => self.emit_leaf(leaf, mapping, simple_key),
        }
    }

    /// A scalar, or a collection written in flow style (only empty ones are, here).
    fn emit_leaf(&mut self, v: &YVal, mapping: bool, simple_key: bool) {
        self.mapping_context = mapping;
        self.simple_key_context = simple_key;
        match v {
            YVal::Seq(_) => {
                self.write_indicator(b"[", true, true, false);
                self.increase_indent(true, false);
                self.pop_indent();
                self.write_indicator(b"]", false, false, false);
            }
            YVal::Map(_) => {
                self.write_indicator(b"{", true, true, false);
                self.increase_indent(true, false);
                self.pop_indent();
                self.write_indicator(b"}", false, false, false);
            }
            scalar => {
                let (text, style) = scalar_text(scalar);
                self.emit_scalar(text.as_bytes(), style);
            }
        }
    }

    /// The start of a non-empty block sequence (its items each begin with [`Self::seq_item`]).
    fn begin_block_seq(&mut self) {
        let indentless = self.mapping_context && !self.indention;
        self.increase_indent(false, indentless);
    }

    fn seq_item(&mut self) {
        self.write_indent();
        self.write_indicator(b"-", true, false, true);
    }

    fn state_before(&self, mapping: bool, simple_key: bool) -> StateBefore {
        StateBefore {
            indent: self.indent,
            column: self.column,
            whitespace: self.whitespace,
            indention: self.indention,
            mapping,
            simple_key,
        }
    }

    fn state_after(&self) -> StateAfter {
        StateAfter {
            column: self.column,
            whitespace: self.whitespace,
            indention: self.indention,
            mapping_context: self.mapping_context,
            simple_key_context: self.simple_key_context,
        }
    }

    fn restore(&mut self, after: StateAfter) {
        self.column = after.column;
        self.whitespace = after.whitespace;
        self.indention = after.indention;
        self.mapping_context = after.mapping_context;
        self.simple_key_context = after.simple_key_context;
    }

    fn emit_scalar(&mut self, value: &[u8], requested: Style) {
        self.emit_analyzed_scalar(value, requested, analyze_scalar(value));
    }

    /// `yaml_emitter_select_scalar_style` (tags are always implicit here) given the scalar's
    /// analysis, then the writer of the chosen style. go-yaml v3 shares it with its own analysis.
    fn emit_analyzed_scalar(&mut self, value: &[u8], requested: Style, a: Analysis) {
        let mut style = requested;
        if self.simple_key_context && a.multiline {
            style = Style::DoubleQuoted;
        }
        if style == Style::Plain {
            if (self.flow_level > 0 && !a.flow_plain_allowed)
                || (self.flow_level == 0 && !a.block_plain_allowed)
            {
                style = Style::SingleQuoted;
            }
            if value.is_empty() && (self.flow_level > 0 || self.simple_key_context) {
                style = Style::SingleQuoted;
            }
        }
        if style == Style::SingleQuoted && !a.single_quoted_allowed {
            style = Style::DoubleQuoted;
        }
        if style == Style::Literal
            && (!a.block_allowed || self.flow_level > 0 || self.simple_key_context)
        {
            style = Style::DoubleQuoted;
        }
        self.increase_indent(true, false);
        let allow_breaks = !self.simple_key_context;
        match style {
            Style::Plain => self.write_plain(value, allow_breaks),
            Style::SingleQuoted => self.write_single_quoted(value, allow_breaks),
            Style::DoubleQuoted => self.write_double_quoted(value, allow_breaks),
            Style::Literal => self.write_literal(value),
        }
        self.pop_indent();
    }

    fn write_plain(&mut self, value: &[u8], allow_breaks: bool) {
        if !self.whitespace {
            self.put(b' ');
        }
        let mut spaces = false;
        let mut breaks = false;
        let mut i = 0;
        while i < value.len() {
            if is_space(value, i) {
                if allow_breaks
                    && !spaces
                    && self.column > self.best_width
                    && !is_space(value, i + 1)
                {
                    self.write_indent();
                    i += 1;
                } else {
                    self.write(value, &mut i);
                }
                spaces = true;
            } else if is_break(value, i) {
                if !breaks && value[i] == b'\n' {
                    self.put_break();
                }
                self.write_break(value, &mut i);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.write_run(value, &mut i, |c| !matches!(c, b' ' | b'\n' | b'\r'));
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    /// [`Emitter::write_plain`] of printable ASCII without line breaks (every string
    /// [`plain_as_read`] takes): the text is copied whole between the spaces where the line
    /// folds, which are the first spaces past the width that stand alone.
    fn write_plain_line(&mut self, value: &[u8], allow_breaks: bool) {
        debug_assert!(value.iter().all(|&b| (0x20..0x7f).contains(&b)));
        if !self.whitespace {
            self.put(b' ');
        }
        // Written up to here; `self.column` is where the byte at `from` goes.
        let mut from = 0;
        if allow_breaks {
            loop {
                // The first byte that would be written past the width.
                let past = from + (self.best_width + 1 - self.column).max(0) as usize;
                let Some(fold) = value.get(past..).and_then(|rest| {
                    memchr::memchr_iter(b' ', rest)
                        .map(|k| past + k)
                        .find(|&j| {
                            (j == 0 || value[j - 1] != b' ') && value.get(j + 1) != Some(&b' ')
                        })
                }) else {
                    break;
                };
                if fold > from {
                    self.out.extend_from_slice(&value[from..fold]);
                    self.column += (fold - from) as i64;
                    self.indention = false;
                }
                self.write_indent();
                from = fold + 1;
            }
        }
        self.out.extend_from_slice(&value[from..]);
        self.column += (value.len() - from) as i64;
        self.whitespace = false;
        self.indention = false;
    }

    fn write_single_quoted(&mut self, value: &[u8], allow_breaks: bool) {
        self.write_indicator(b"'", true, false, false);
        let mut spaces = false;
        let mut breaks = false;
        let mut i = 0;
        while i < value.len() {
            if is_space(value, i) {
                if allow_breaks
                    && !spaces
                    && self.column > self.best_width
                    && i > 0
                    && i < value.len() - 1
                    && !is_space(value, i + 1)
                {
                    self.write_indent();
                    i += 1;
                } else {
                    self.write(value, &mut i);
                }
                spaces = true;
            } else if is_break(value, i) {
                if !breaks && value[i] == b'\n' {
                    self.put_break();
                }
                self.write_break(value, &mut i);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if value[i] == b'\'' {
                    self.put(b'\'');
                    self.write(value, &mut i);
                } else {
                    self.write_run(value, &mut i, |c| {
                        !matches!(c, b' ' | b'\n' | b'\r' | b'\'')
                    });
                }
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.write_indicator(b"'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_double_quoted(&mut self, value: &[u8], allow_breaks: bool) {
        let mut spaces = false;
        self.write_indicator(b"\"", true, false, false);
        let bom = starts_with_bom(value);
        let mut i = 0;
        while i < value.len() {
            if !is_printable(value, i)
                || bom
                || is_break(value, i)
                || value[i] == b'"'
                || value[i] == b'\\'
            {
                let octet = value[i];
                let (w, mut v): (usize, u32) = if octet & 0x80 == 0 {
                    (1, u32::from(octet & 0x7F))
                } else if octet & 0xE0 == 0xC0 {
                    (2, u32::from(octet & 0x1F))
                } else if octet & 0xF0 == 0xE0 {
                    (3, u32::from(octet & 0x0F))
                } else {
                    (4, u32::from(octet & 0x07))
                };
                for k in 1..w {
                    v = (v << 6) + u32::from(at(value, i + k) & 0x3F);
                }
                i += w;
                self.put(b'\\');
                match v {
                    0x00 => self.put(b'0'),
                    0x07 => self.put(b'a'),
                    0x08 => self.put(b'b'),
                    0x09 => self.put(b't'),
                    0x0A => self.put(b'n'),
                    0x0B => self.put(b'v'),
                    0x0C => self.put(b'f'),
                    0x0D => self.put(b'r'),
                    0x1B => self.put(b'e'),
                    0x22 => self.put(b'"'),
                    0x5C => self.put(b'\\'),
                    0x85 => self.put(b'N'),
                    0xA0 => self.put(b'_'),
                    0x2028 => self.put(b'L'),
                    0x2029 => self.put(b'P'),
                    _ => {
                        let (c, digits) = if v <= 0xFF {
                            (b'x', 2)
                        } else if v <= 0xFFFF {
                            (b'u', 4)
                        } else {
                            (b'U', 8)
                        };
                        self.put(c);
                        for k in (0..digits).rev() {
                            let d = ((v >> (4 * k)) & 0xF) as u8;
                            self.put(if d < 10 { b'0' + d } else { b'A' + d - 10 });
                        }
                    }
                }
                spaces = false;
            } else if is_space(value, i) {
                if allow_breaks
                    && !spaces
                    && self.column > self.best_width
                    && i > 0
                    && i < value.len() - 1
                {
                    self.write_indent();
                    if is_space(value, i + 1) {
                        self.put(b'\\');
                    }
                    i += 1;
                } else {
                    self.write(value, &mut i);
                }
                spaces = true;
            } else {
                self.write_run(value, &mut i, |c| {
                    (0x21..=0x7E).contains(&c) && c != b'"' && c != b'\\'
                });
                spaces = false;
            }
        }
        self.write_indicator(b"\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_block_scalar_hints(&mut self, value: &[u8]) {
        if is_space(value, 0) || is_break(value, 0) {
            let hint = [b'0' + self.best_indent as u8];
            self.write_indicator(&hint, false, false, false);
        }
        let mut chomp: Option<u8> = None;
        if value.is_empty() {
            chomp = Some(b'-');
        } else {
            let mut i = value.len() - 1;
            while value[i] & 0xC0 == 0x80 {
                i -= 1;
            }
            if !is_break(value, i) {
                chomp = Some(b'-');
            } else if i == 0 {
                chomp = Some(b'+');
            } else {
                i -= 1;
                while value[i] & 0xC0 == 0x80 {
                    i -= 1;
                }
                if is_break(value, i) {
                    chomp = Some(b'+');
                }
            }
        }
        if let Some(c) = chomp {
            self.write_indicator(&[c], false, false, false);
        }
    }

    fn write_literal(&mut self, value: &[u8]) {
        self.write_indicator(b"|", true, false, false);
        self.write_block_scalar_hints(value);
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        let mut i = 0;
        while i < value.len() {
            if is_break(value, i) {
                self.write_break(value, &mut i);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.write_run(value, &mut i, |c| c != b'\n' && c != b'\r');
                self.indention = false;
                breaks = false;
            }
        }
    }
}

fn yval_key_str(k: &YVal) -> Cow<'_, str> {
    match k {
        YVal::Str(s) => crate::utf8_lossy(s),
        other => scalar_text(other).0,
    }
}

/// The text and the encoder's requested style of a scalar.
fn scalar_text(v: &YVal) -> (Cow<'_, str>, Style) {
    match v {
        YVal::Nil => (Cow::Borrowed("null"), Style::Plain),
        YVal::Bool(b) => (
            Cow::Borrowed(if *b { "true" } else { "false" }),
            Style::Plain,
        ),
        YVal::Int(i) => (Cow::Owned(i.to_string()), Style::Plain),
        YVal::Uint(u) => (Cow::Owned(u.to_string()), Style::Plain),
        YVal::Float(f) => {
            let s = match format_float(*f, 'g', 64).as_str() {
                "+Inf" => ".inf".to_string(),
                "-Inf" => "-.inf".to_string(),
                "NaN" => ".nan".to_string(),
                s => s.to_string(),
            };
            (Cow::Owned(s), Style::Plain)
        }
        YVal::Str(s) => {
            let s = crate::utf8_lossy(s);
            let style = string_style(&s);
            (s, style)
        }
        YVal::Seq(_) | YVal::Map(_) | YVal::Verbatim(_) => unreachable!("not a scalar"),
    }
}

/// `yaml_emitter_check_simple_key` for a key node.
fn check_simple_key(k: &YVal) -> bool {
    match k {
        YVal::Seq(items) => items.is_empty(),
        YVal::Map(m) => m.entries.is_empty(),
        YVal::Verbatim(_) => false,
        scalar => {
            let (text, _) = scalar_text(scalar);
            let b = text.as_bytes();
            // The analysis's `multiline` is whether any character is a line break.
            b.len() <= 128 && !(0..b.len()).any(|i| is_break(b, i))
        }
    }
}

/// go-yaml v2's `Marshal` of a decoded value.
pub(crate) fn marshal(v: &YVal) -> String {
    let (text, spliced) = marshal_into(v, false);
    debug_assert!(spliced.is_empty(), "nothing is set in unless asked");
    text
}

/// [`marshal`], with the large verbatim blocks of `v` (see `verbatim`) set into the text as
/// the shared parts of their document instead of copied: a CRD written back by `toYaml` is
/// then mostly its own file's text.
pub(crate) fn marshal_spliced(v: &YVal) -> Spliced {
    marshal_into(v, true)
}

/// A text and the texts to set into it at offsets of it (see [`Str::spliced`]).
pub(crate) type Spliced = (String, Vec<(usize, Str)>);

/// Verbatim blocks shorter than this are copied even when splicing: a copy costs less than
/// a shared part (and `Str` copies parts this small anyway).
const SPLICE_MIN: usize = 1024;

fn marshal_into(v: &YVal, splicing: bool) -> Spliced {
    // Written into this thread's buffer and copied out at its final size: a buffer grown
    // from empty for each document (a CRD is 60 KB) moves to fresh pages at each doubling
    // (see `scratch`).
    let (text, spliced) =
        crate::scratch::reusing(&MARSHALLED, crate::scratch::keep_bytes, |buffer| {
            let mut e = Emitter::new();
            e.out = std::mem::take(buffer);
            e.out.clear();
            e.repeats = Repeats::of(v);
            e.splices = splicing.then(Vec::new);
            e.emit_node(v, false, false);
            // Document end: an implicit document ends with a line break.
            e.write_indent();
            // Texts are set in between characters, so the rest is UTF-8 on its own.
            let text = String::from_utf8(e.out.clone())
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
            *buffer = e.out;
            (text, e.splices.unwrap_or_default())
        });
    // Debug builds (all the tests) check every copied block against writing its value.
    #[cfg(debug_assertions)]
    if let Some(expanded) = crate::verbatim::expand_all(v, &|y| lazy_doc_to_yval(y).ok()) {
        let joined = Str::spliced(text.clone(), spliced.clone());
        assert_eq!(
            joined.as_str(),
            marshal(&expanded),
            "a verbatim block writes differently"
        );
    }
    (text, spliced)
}

thread_local! {
    /// [`marshal`]'s output buffer (see `scratch`).
    static MARSHALLED: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The emitter driven one event at a time by a reader (see `verbatim`): what [`marshal`]
/// writes for a tree, without the tree.
pub(crate) struct Stream(Emitter<'static>);

impl Stream {
    /// A stream writing into `out` (cleared first), which will hold about `size` bytes.
    pub fn with_buffer(mut out: Vec<u8>, size: usize) -> Stream {
        out.clear();
        out.reserve(size);
        let mut e = Emitter::new();
        e.out = out;
        Stream(e)
    }

    /// The buffer written into, for reuse.
    pub fn into_buffer(self) -> Vec<u8> {
        self.0.out
    }

    pub fn out(&self) -> &[u8] {
        &self.0.out
    }

    /// The state a block that is a key's value (`mapping`) or an item starts in.
    pub fn state_before(&self, mapping: bool) -> StateBefore {
        self.0.state_before(mapping, false)
    }

    pub fn state_after(&self) -> StateAfter {
        self.0.state_after()
    }

    /// A non-empty block mapping that is a key's value (`mapping`), an item or the document.
    pub fn begin_map(&mut self, mapping: bool) {
        self.0.mapping_context = mapping;
        self.0.simple_key_context = false;
        self.0.increase_indent(false, false);
    }

    /// A non-empty block sequence (see [`Stream::begin_map`]).
    pub fn begin_seq(&mut self, mapping: bool) {
        self.0.mapping_context = mapping;
        self.0.simple_key_context = false;
        self.0.begin_block_seq();
    }

    pub fn end_block(&mut self) {
        self.0.pop_indent();
    }

    /// The output at `range` written again, ending in the state `after` (a block written the
    /// same as an earlier one).
    pub fn repeat_output(&mut self, range: std::ops::Range<usize>, after: StateAfter) {
        self.0.out.extend_from_within(range);
        self.0.restore(after);
    }

    pub fn seq_item(&mut self) {
        self.0.seq_item();
    }

    /// A decoded mapping key and its `:`, as the JSON round trip leaves it: `None` when that
    /// changes the key or the emitter writes it in the long form (`? key`); otherwise whether
    /// it reads back as itself.
    pub fn map_key(&mut self, key: &[u8]) -> Option<bool> {
        // Most keys are words written as they are (see `plain_as_read`): a simple key, written
        // plain, that reads back.
        if key.len() <= 128 && plain_as_read(key) {
            self.0.write_indent();
            self.plain(key, true, true);
            self.0.write_indicator(b":", false, false, false);
            return Some(true);
        }
        let k = json_bytes_to_yval(&std::rc::Rc::from(key)).ok()?;
        if !matches!(&k, YVal::Str(b) if **b == *key) || !check_simple_key(&k) {
            return None;
        }
        self.0.write_indent();
        self.0.emit_leaf(&k, true, true);
        self.0.write_indicator(b":", false, false, false);
        Some(crate::memo::key_round_trips(key))
    }

    /// A string for which [`plain_as_read`] holds, written as [`Stream::scalar`] writes it
    /// (without its analysis, which [`plain_as_read`] stands for).
    pub fn plain_string(&mut self, s: &[u8], mapping: bool) {
        self.plain(s, mapping, false);
    }

    /// A scalar whose text is an integer or boolean in the form the emitter writes its value
    /// (`0`, `-12`, `65536`, `true`; integers exact as a float64, as the JSON round trip
    /// keeps them), written as [`Stream::scalar`] writes the value read from it: `false`
    /// (nothing written) for any other text.
    pub fn canonical_scalar(&mut self, text: &[u8], mapping: bool) -> bool {
        let digits = text.strip_prefix(b"-").unwrap_or(text);
        let integer = match digits {
            [b'0'] => digits.len() == text.len(),
            [b'1'..=b'9', rest @ ..] => rest.len() < 15 && rest.iter().all(u8::is_ascii_digit),
            _ => false,
        };
        if !integer && text != b"true" && text != b"false" {
            return false;
        }
        // Debug builds (all the tests) check the text against the value read and converted.
        #[cfg(debug_assertions)]
        {
            let read = crate::read::resolve_plain(std::str::from_utf8(text).expect("ASCII"));
            let converted = lazy_doc_to_yval(&read).expect("a number or boolean converts");
            let (written, style) = scalar_text(&converted);
            assert_eq!((written.as_bytes(), style), (text, Style::Plain));
            let a = analyze_scalar(text);
            assert!(
                a.block_plain_allowed && !a.multiline,
                "{written} is written plain"
            );
            assert!(crate::memo::round_trips(&converted));
        }
        self.0.mapping_context = mapping;
        self.0.simple_key_context = false;
        self.0.increase_indent(true, false);
        self.0.write_plain_line(text, true);
        self.0.pop_indent();
        true
    }

    /// `emit_leaf` of a string for which [`plain_as_read`] holds.
    fn plain(&mut self, s: &[u8], mapping: bool, simple_key: bool) {
        #[cfg(debug_assertions)]
        {
            let a = analyze_scalar(s);
            let text = std::str::from_utf8(s).expect("ASCII");
            assert!(
                string_style(text) == Style::Plain && a.block_plain_allowed && !a.multiline,
                "{text:?} is not written plain"
            );
        }
        self.0.mapping_context = mapping;
        self.0.simple_key_context = simple_key;
        self.0.increase_indent(true, false);
        self.0.write_plain_line(s, !simple_key);
        self.0.pop_indent();
    }

    /// A decoded scalar (or `[]`, `{}`) that is a key's value (`mapping`) or an item, written
    /// as its JSON round trip is: `None` when that fails; otherwise whether it reads back.
    pub fn scalar(&mut self, v: &YVal, mapping: bool) -> Option<bool> {
        if matches!(v, YVal::Float(f) if !f.is_finite()) {
            return None;
        }
        let converted = lazy_doc_to_yval(v).ok()?;
        self.0.emit_leaf(&converted, mapping, false);
        Some(crate::memo::round_trips(&converted))
    }
}

/// Whether `s`, the rest of a line after `key: ` or `- `, is a plain scalar that reads as
/// itself, a string that the emitter writes plain and that reads back as written: printable
/// ASCII starting with a letter or digit, without `:` or `#` (which could end it or start a
/// comment) or a trailing space, and not a word that resolves to another type.
pub(crate) fn plain_as_read(s: &[u8]) -> bool {
    let Some((&first, rest)) = s.split_first() else {
        return false;
    };
    // Without an early exit, so that the check of each byte is vectorized.
    let odd = |b: u8| !(0x20..=0x7e).contains(&b) | (b == b':') | (b == b'#');
    first.is_ascii_alphanumeric()
        && s.last() != Some(&b' ')
        && !rest.iter().fold(false, |found, &b| found | odd(b))
        && crate::text_of(s).is_some_and(|t| crate::read::resolve_non_string("", t).is_none())
}

/// Whether the emitter writes a mapping's keys in the order given (they are the keys of a
/// decoded map, in its order): each once, and where its sort puts them when the JSON round
/// trip hands them over in byte order.
pub(crate) fn in_emitted_order(keys: &[&[u8]]) -> bool {
    // Most maps need no sort to tell (see `ordered_as_bytes`).
    if keys
        .windows(2)
        .all(|w| w[0] < w[1] && w[0].is_ascii() && ordered_as_bytes(w[0], w[1]))
        && keys.last().is_none_or(|k| k.is_ascii())
    {
        return true;
    }
    // go-yaml's order is not byte order everywhere (`a_b` before `aB`; Istio's CRDs have
    // `mirror_percent` before `mirrorPercent`).
    let mut in_bytes = keys.to_vec();
    in_bytes.sort_unstable();
    if in_bytes.windows(2).any(|w| w[0] == w[1]) {
        return false;
    }
    emitter_order(&in_bytes)
        .is_some_and(|order| order.iter().map(|&j| in_bytes[j]).eq(keys.iter().copied()))
}

/// Whether the emitter's sort leaves `keys` where they are.
#[cfg(test)]
fn left_in_place_by_sort(keys: &[&[u8]]) -> bool {
    emitter_order(keys).is_some_and(|order| order.iter().enumerate().all(|(i, &j)| i == j))
}

/// Where the emitter's sort puts `keys` (in this order before it): indexes into `keys`;
/// `None` when a key is not UTF-8.
fn emitter_order(keys: &[&[u8]]) -> Option<Vec<usize>> {
    let texts = keys
        .iter()
        .map(|k| super::text_of(k))
        .collect::<Option<Vec<&str>>>()?;
    let mut order: Vec<usize> = (0..texts.len()).collect();
    sort_keys(&mut order, &|a: &usize, b: &usize| {
        key_less(texts[*a], texts[*b])
    });
    Some(order)
}

/// Whether `keyList.Less` orders two ASCII keys `a < b` (in byte order) as their bytes do,
/// because of the bytes where they first differ. Among ASCII letters and the non-digits below
/// `A` it compares bytes (letters after the others), so keys whose neighbours all differ
/// first at such bytes are in its order, whatever its order does elsewhere.
fn ordered_as_bytes(a: &[u8], b: &[u8]) -> bool {
    let quiet = |c: u8| c.is_ascii_alphabetic() || (c < b'A' && !c.is_ascii_digit());
    match a.iter().zip(b).position(|(x, y)| x != y) {
        // A prefix comes first in both orders.
        None => true,
        Some(i) => quiet(a[i]) && quiet(b[i]),
    }
}

/// `sigs.k8s.io/yaml.Marshal`.
pub(crate) fn to_yaml(v: &Value) -> Result<String, YamlError> {
    to_yaml_with(v, marshal).map(|(text, _)| text)
}

/// Whether `encoding/json.Marshal` may fail on the value (NaN, infinities, unsupported types,
/// marshalers that refuse).
fn json_fails(v: &Value) -> bool {
    gotemplate::stack::grow(|| {
        match v {
            Value::Float(f) => !f.is_finite(),
            Value::List(l) => l.items().iter().any(json_fails),
            // A lazy map's document holds no NaN or infinity (lazy_convertible checked it).
            Value::Map(m) if is_lazy_doc(m) => false,
            Value::Map(m) => m.with_entries(|e| e.values().any(json_fails)),
            // An object's marshalers may fail; the JSON is written to find out.
            Value::Object(_) | Value::Func(_) => true,
            _ => false,
        }
    })
}

/// [`to_yaml`] with its verbatim blocks set in (see [`marshal_spliced`]), and the tree
/// go-yaml wrote when it came straight from the value (not from reading the JSON text back).
pub(crate) fn to_yaml_tree(v: &Value) -> Result<(Spliced, Option<YVal>), YamlError> {
    to_yaml_with(v, marshal_spliced)
}

/// `sigs.k8s.io/yaml.Marshal`, its last step (go-yaml's) made by `marshal`.
fn to_yaml_with<T>(
    v: &Value,
    marshal: impl Fn(&YVal) -> T,
) -> Result<(T, Option<YVal>), YamlError> {
    let marshal_json = || {
        let mut json = String::new();
        json_value(&mut json, v).map_err(|e| YamlError {
            message: format!("error marshaling into JSON: {e}"),
            line: None,
            column: None,
        })?;
        Ok::<String, YamlError>(json)
    };
    // json.Marshal first, for its errors; its text is needed only when it fails or when
    // go-yaml would read a string of it differently.
    if json_fails(v) {
        marshal_json()?;
    }
    match json_to_yval(v) {
        Ok(y) => {
            let text = marshal(&y);
            Ok((text, Some(y)))
        }
        // A string go-yaml's reader takes differently: read the JSON text back as go-yaml does;
        // its errors come back as go-yaml wrote them.
        Err(()) => {
            let json = marshal_json()?;
            let y = decode_first(json.as_bytes()).map_err(|f| YamlError {
                message: f.message,
                line: f.line,
                column: f.column,
            })?;
            Ok((marshal(&y), None))
        }
    }
}

/// A JSON tree as go-yaml reads its `encoding/json` text back, or `None` when a string would
/// read differently (then the caller takes the general path).
fn serde_to_yval(v: &serde_json::Value) -> Option<YVal> {
    gotemplate::stack::grow(|| {
        Some(match v {
            serde_json::Value::Null => YVal::Nil,
            serde_json::Value::Bool(b) => YVal::Bool(*b),
            serde_json::Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    resolve_plain(&i.to_string())
                } else if let Some(u) = n.as_u64() {
                    resolve_plain(&u.to_string())
                } else {
                    resolve_plain(&json_float(n.as_f64()?))
                }
            }
            serde_json::Value::String(s) => json_string_to_yval(s).ok()?,
            serde_json::Value::Array(items) => {
                YVal::Seq(items.iter().map(serde_to_yval).collect::<Option<_>>()?)
            }
            serde_json::Value::Object(m) => {
                let entries = m
                    .iter()
                    .map(|(k, v)| Some((json_string_to_yval(k).ok()?, serde_to_yval(v)?)))
                    .collect::<Option<Vec<_>>>()?;
                YVal::Map(YMap::from_distinct(entries))
            }
        })
    })
}

/// `sigs.k8s.io/yaml.Marshal` of a JSON tree whose integers are Go integers and other numbers
/// float64s (as [`crate::json_value::from_json_value`] reads them).
pub(crate) fn json_tree_to_yaml(v: &serde_json::Value) -> Result<String, YamlError> {
    match serde_to_yval(v) {
        Some(y) => Ok(marshal(&y)),
        None => to_yaml(&crate::json_value::from_json_value(v)),
    }
}

#[cfg(test)]
mod analysis_tests {
    /// The analysis with its fast paths (ASCII, multi-line text) against the character by
    /// character port of libyaml's, on strings drawn from the characters that matter to it.
    #[test]
    fn fast_analysis_matches_general() {
        const ALPHABET: &[&str] = &[
            " ", "\t", "\r", "\n", "\0", "\x7f", "\x01", "#", ",", "[", "]", "{", "}", "&", "*",
            "!", "|", ">", "'", "\"", "%", "@", "`", "?", ":", "-", ".", "a", "b", "1", "é", "–",
            "\u{85}", "\u{2028}", "\u{2029}", "\u{feff}", "\u{a0}", "\u{9f}", "\u{fffe}", "😀",
        ];
        let mut rng = testkit::Xorshift::new(0x9e37_79b9_7f4a_7c15);
        for round in 0..400_000 {
            // Short strings cover every combination near the ends; long ones, runs.
            let len = if round % 4 == 0 {
                1 + (rng.next() % 40) as usize
            } else {
                1 + (rng.next() % 6) as usize
            };
            let s: Vec<u8> = (0..len).flat_map(|_| rng.pick(ALPHABET).bytes()).collect();
            assert_eq!(
                super::analyze_scalar(&s),
                super::analyze_any(&s),
                "{:?}",
                String::from_utf8_lossy(&s)
            );
        }
    }
}

#[cfg(test)]
mod pattern_tests {
    use super::{emitter_order, in_emitted_order, left_in_place_by_sort};
    /// Every string of up to six characters drawn from those the patterns tell apart.
    fn every_string(alphabet: &[char], max_len: usize, mut check: impl FnMut(&str)) {
        let mut current = vec![String::new()];
        for _ in 0..max_len {
            let mut longer = Vec::with_capacity(current.len() * alphabet.len());
            for s in &current {
                check(s);
                for c in alphabet {
                    longer.push(format!("{s}{c}"));
                }
            }
            current = longer;
        }
        current.iter().for_each(|s| check(s));
    }

    /// The plain writer for one line against the general one, from every column around the
    /// width, on texts whose spaces come alone, in pairs and at the ends.
    #[test]
    fn a_plain_line_is_written_as_the_general_writer_writes_it() {
        use super::Emitter;
        let words = ["a", "bb", "ccccccccccc", " ", "  ", "dddd-eeee/ffff.gggg"];
        let mut texts = vec![String::new()];
        for _ in 0..12 {
            let mut next = Vec::new();
            for (k, t) in texts.iter().enumerate() {
                for (w, word) in words.iter().enumerate() {
                    if (k + w) % 3 == 0 {
                        next.push(format!("{t}{word}"));
                    }
                }
            }
            next.truncate(400);
            texts.extend(next.iter().cloned());
            texts.sort();
            texts.dedup();
        }
        assert!(texts.len() > 1000, "{}", texts.len());
        let long = "x ".repeat(150);
        texts.push(long.clone());
        texts.push(long.replace(' ', "  "));
        for text in &texts {
            for column in [0, 5, 40, 70, 78, 79, 80, 81, 82, 120] {
                for (whitespace, indention, allow_breaks) in [
                    (true, true, true),
                    (false, false, true),
                    (false, true, true),
                    (true, false, false),
                ] {
                    let start = |e: &mut Emitter| {
                        e.column = column;
                        e.indent = 6;
                        e.whitespace = whitespace;
                        e.indention = indention;
                    };
                    let (mut general, mut line) = (Emitter::new(), Emitter::new());
                    start(&mut general);
                    start(&mut line);
                    general.write_plain(text.as_bytes(), allow_breaks);
                    line.write_plain_line(text.as_bytes(), allow_breaks);
                    assert_eq!(
                        (&line.out, line.column, line.whitespace, line.indention),
                        (
                            &general.out,
                            general.column,
                            general.whitespace,
                            general.indention
                        ),
                        "{text:?} from column {column}"
                    );
                }
            }
        }
    }

    /// The verifier's shortcut for numbers and booleans takes only the texts the emitter
    /// writes back as they are (debug builds also check each against its reading).
    #[test]
    fn canonical_scalars_are_integers_and_booleans_as_written() {
        let cases: [(&str, bool); 17] = [
            ("0", true),
            ("12", true),
            ("-12", true),
            ("65536", true),
            ("999999999999999", true),
            ("1000000000000000", false),
            ("true", true),
            ("false", true),
            ("-0", false),
            ("007", false),
            ("+1", false),
            ("1.5", false),
            ("1e3", false),
            ("0x1F", false),
            ("True", false),
            ("yes", false),
            ("", false),
        ];
        for (text, taken) in cases {
            let mut stream = super::Stream::with_buffer(Vec::new(), 16);
            assert_eq!(
                stream.canonical_scalar(text.as_bytes(), true),
                taken,
                "{text:?}"
            );
            let written = if taken { text } else { "" };
            assert_eq!(String::from_utf8_lossy(stream.out()), written, "{text:?}");
        }
    }

    /// Keys out of byte order are in the emitter's order when its sort, given them in byte
    /// order, puts them so: checked on every order of up to four keys.
    #[test]
    fn keys_out_of_byte_order_are_in_order_where_the_sort_puts_them() {
        let cases: [(&[&str], bool); 6] = [
            (
                &["mirror_percent", "mirrorPercent", "mirrorPercentage"],
                true,
            ),
            (&["mirrorPercent", "mirror_percent"], false),
            (&["jwks", "jwks_uri", "jwksUri"], true),
            (&["jwks_uri", "jwks", "jwksUri"], false),
            (&["a_b", "aB", "a_b"], false),
            (&["x10", "x9"], false),
        ];
        for (keys, ordered) in cases {
            let keys: Vec<&[u8]> = keys.iter().map(|k| k.as_bytes()).collect();
            assert_eq!(in_emitted_order(&keys), ordered, "{keys:?}");
        }
        let pool = ["a", "a_b", "aB", "a9", "a10", "b", "B", "_"];
        fn orders(n: usize) -> Vec<Vec<usize>> {
            if n == 0 {
                return vec![Vec::new()];
            }
            let mut all = Vec::new();
            for shorter in orders(n - 1) {
                for at in 0..=shorter.len() {
                    let mut longer = shorter.clone();
                    longer.insert(at, n - 1);
                    all.push(longer);
                }
            }
            all
        }
        for first in 0..pool.len() {
            for width in 1..=4 {
                let chosen: Vec<&[u8]> = (0..width)
                    .map(|k| pool[(first + 3 * k) % pool.len()].as_bytes())
                    .collect();
                let mut in_bytes = chosen.clone();
                in_bytes.sort_unstable();
                in_bytes.dedup();
                let written: Vec<&[u8]> = emitter_order(&in_bytes)
                    .unwrap()
                    .iter()
                    .map(|&j| in_bytes[j])
                    .collect();
                for order in orders(in_bytes.len()) {
                    let keys: Vec<&[u8]> = order.iter().map(|&j| in_bytes[j]).collect();
                    assert_eq!(in_emitted_order(&keys), keys == written, "{keys:?}");
                }
            }
        }
    }

    /// The order check without a sort against the sort, on every byte-ordered list of up to
    /// three keys of up to two characters from letters, digits and the bytes around them.
    #[test]
    fn keys_in_order_without_a_sort_are_those_the_sort_leaves() {
        let mut keys = Vec::new();
        every_string(&['a', 'B', 'Z', '_', '-', '0', '1', '9', '['], 2, |s| {
            keys.push(s.to_string())
        });
        keys.sort();
        let check = |list: &[&String]| {
            let list: Vec<&[u8]> = list.iter().map(|k| k.as_bytes()).collect();
            assert_eq!(
                in_emitted_order(&list),
                left_in_place_by_sort(&list),
                "{list:?}"
            );
        };
        for (i, a) in keys.iter().enumerate() {
            for (j, b) in keys.iter().enumerate().skip(i + 1) {
                check(&[a, b]);
                for c in &keys[j + 1..] {
                    check(&[a, b, c]);
                }
            }
        }
    }

    /// The hand-written matchers against go-yaml's regular expressions they stand for.
    #[test]
    fn float_patterns_match_go_yaml_s_expressions() {
        let base60 =
            regex::Regex::new(r"^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$").unwrap();
        every_string(&['0', '5', '7', '_', ':', '.', '+', '-', 'x'], 6, |s| {
            assert_eq!(super::base60_float_pattern(s), base60.is_match(s), "{s:?}");
        });
        let float =
            regex::Regex::new(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$").unwrap();
        every_string(&['0', '9', '.', 'e', 'E', '+', '-', 'x'], 6, |s| {
            assert_eq!(
                crate::read::is_yaml_style_float(s),
                float.is_match(s),
                "{s:?}"
            );
        });
    }
}
