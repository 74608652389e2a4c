//! go-yaml v3's `Encoder` with `SetIndent(2)` over Go values (Helm's `toYamlPretty`), as the
//! differences from the v2 emitter in the parent module: values are encoded directly (no JSON
//! round trip, so `float64` keeps Go's `%g` form and integers stay integers), sequences are
//! indented under their keys, strings are never folded (v3's default width is unlimited),
//! YAML 1.1 booleans (`yes`, `on`, ...) and strings with tabs are double-quoted, and v3's key
//! order (a digit run followed by a letter sorts before a longer digit run).

use gotemplate::{IntKind, Object, Value};

use super::super::read::{YVal, resolve_non_string};
use super::{
    Emitter, Style, analyze_scalar, check_simple_key, is_base60_float, is_digit, is_letter,
    sort_keys,
};

fn is_old_bool(s: &str) -> bool {
    matches!(
        s,
        "y" | "Y"
            | "yes"
            | "Yes"
            | "YES"
            | "on"
            | "On"
            | "ON"
            | "n"
            | "N"
            | "no"
            | "No"
            | "NO"
            | "off"
            | "Off"
            | "OFF"
    )
}

/// v3's `encoder.stringv` style for an untagged string.
fn string_style(s: &str) -> Style {
    let plain = resolve_non_string("", s).is_none() && !is_base60_float(s) && !is_old_bool(s);
    if s.contains('\n') {
        Style::Literal
    } else if plain {
        Style::Plain
    } else {
        Style::DoubleQuoted
    }
}

fn scalar_text(v: &YVal) -> (String, Style) {
    match v {
        YVal::Nil => ("null".to_string(), Style::Plain),
        YVal::Bool(b) => (b.to_string(), Style::Plain),
        YVal::Int(i) => (i.to_string(), Style::Plain),
        YVal::Uint(u) => (u.to_string(), Style::Plain),
        YVal::Float(f) => {
            let s = match gotemplate::fmt::format_float(*f, 'g', -1).as_str() {
                "+Inf" => ".inf".to_string(),
                "-Inf" => "-.inf".to_string(),
                "NaN" => ".nan".to_string(),
                s => s.to_string(),
            };
            (s, Style::Plain)
        }
        YVal::Str(s) => {
            let s = String::from_utf8_lossy(s).into_owned();
            let style = string_style(&s);
            (s, style)
        }
        YVal::Seq(_) | YVal::Map(_) | YVal::Verbatim(_) => unreachable!("not a scalar"),
    }
}

/// v3's `keyList.Less` for two string keys.
fn key_less(a: &str, b: &str) -> bool {
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    let mut digits = false;
    let mut i = 0;
    while i < ar.len() && i < br.len() {
        if ar[i] == br[i] {
            digits = is_digit(ar[i]);
            i += 1;
            continue;
        }
        let al = is_letter(ar[i]);
        let bl = is_letter(br[i]);
        if al && bl {
            return ar[i] < br[i];
        }
        if al || bl {
            return if digits { al } else { bl };
        }
        let (mut an, mut bn): (i64, i64) = (0, 0);
        if ar[i] == '0' || br[i] == '0' {
            let mut j = i;
            while j > 0 && is_digit(ar[j - 1]) {
                if ar[j - 1] != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
                j -= 1;
            }
        }
        let mut ai = i;
        while ai < ar.len() && is_digit(ar[ai]) {
            an = an.wrapping_mul(10).wrapping_add(ar[ai] as i64 - '0' as i64);
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && is_digit(br[bi]) {
            bn = bn.wrapping_mul(10).wrapping_add(br[bi] as i64 - '0' as i64);
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

/// A Go value as go-yaml v3's encoder walks it.
enum Node {
    /// nil, a bool, number or string (never a collection).
    Scalar(YVal),
    /// A `time.Time`: its RFC 3339 text, which v3 writes plain (tagged `!!timestamp`
    /// implicitly) where a string of that text would be quoted.
    Timestamp(String),
    Seq(Vec<Node>),
    /// A Go map: v3 sorts its keys.
    Map(Vec<(YVal, Node)>),
    /// A Go struct: its fields in declaration order.
    Struct(Vec<(YVal, Node)>),
}

impl Emitter<'_> {
    fn emit_node_v3(&mut self, v: &Node, mapping: bool, simple_key: bool) {
        gotemplate::stack::grow(|| {
            self.mapping_context = mapping;
            self.simple_key_context = simple_key;
            match v {
                Node::Seq(items) if !items.is_empty() => {
                    self.increase_indent(false, false);
                    for item in items {
                        self.write_indent();
                        self.write_indicator(b"-", true, false, true);
                        self.emit_node_v3(item, false, false);
                    }
                    self.pop_indent();
                }
                Node::Map(entries) if !entries.is_empty() => {
                    let mut entries: Vec<(String, &(YVal, Node))> =
                        entries.iter().map(|e| (scalar_text(&e.0).0, e)).collect();
                    sort_keys(&mut entries, &|a: &(String, _), b: &(String, _)| {
                        key_less(&a.0, &b.0)
                    });
                    self.emit_entries_v3(entries.into_iter().map(|(_, e)| e));
                }
                Node::Struct(entries) if !entries.is_empty() => {
                    self.emit_entries_v3(entries.iter())
                }
                Node::Seq(_) => self.write_indicator(b"[]", true, false, false),
                Node::Map(_) | Node::Struct(_) => self.write_indicator(b"{}", true, false, false),
                Node::Timestamp(text) => self.emit_scalar_v3(text.as_bytes(), Style::Plain),
                Node::Scalar(scalar) => self.emit_scalar_node_v3(scalar, mapping, simple_key),
            }
        })
    }

    /// A key or other scalar: nil, a bool, number or string.
    fn emit_scalar_node_v3(&mut self, v: &YVal, mapping: bool, simple_key: bool) {
        self.mapping_context = mapping;
        self.simple_key_context = simple_key;
        let (text, style) = scalar_text(v);
        self.emit_scalar_v3(text.as_bytes(), style);
    }

    fn emit_entries_v3<'n>(&mut self, entries: impl Iterator<Item = &'n (YVal, Node)>) {
        self.increase_indent(false, false);
        for (k, v) in entries {
            self.write_indent();
            if check_simple_key(k) {
                self.emit_scalar_node_v3(k, true, true);
                self.write_indicator(b":", false, false, false);
            } else {
                self.write_indicator(b"?", true, false, true);
                self.emit_scalar_node_v3(k, true, false);
                self.write_indent();
                self.write_indicator(b":", true, false, true);
            }
            self.emit_node_v3(v, true, false);
        }
        self.pop_indent();
    }

    /// `yaml_emitter_select_scalar_style` and the writers, where v3's analysis lets a tab into
    /// literal blocks but not into plain or single-quoted scalars.
    fn emit_scalar_v3(&mut self, value: &[u8], requested: Style) {
        let tabs = value.contains(&b'\t');
        let untabbed: Vec<u8> = value
            .iter()
            .map(|&c| if c == b'\t' { b'x' } else { c })
            .collect();
        let mut a = analyze_scalar(&untabbed);
        if tabs {
            a.flow_plain_allowed = false;
            a.block_plain_allowed = false;
            a.single_quoted_allowed = false;
        }
        self.emit_analyzed_scalar(value, requested, a);
    }
}

/// A Go value as go-yaml v3 sees it; `None` for what it cannot encode here (funcs, objects
/// bosun does not model).
fn to_node(v: &Value) -> Option<Node> {
    gotemplate::stack::grow(|| {
        Some(match v {
            Value::Nil | Value::Invalid => Node::Scalar(YVal::Nil),
            Value::Bool(b) => Node::Scalar(YVal::Bool(*b)),
            Value::Int(n, kind) => Node::Scalar(match kind {
                IntKind::Uint
                | IntKind::Uint8
                | IntKind::Uint16
                | IntKind::Uint32
                | IntKind::Uint64
                | IntKind::Uintptr => YVal::Uint(*n as u64),
                _ => YVal::Int(*n),
            }),
            Value::Float(f) => Node::Scalar(YVal::Float(*f)),
            Value::String(s) => Node::Scalar(YVal::Str(s.as_bytes().into())),
            Value::Bytes(b) => Node::Seq(
                b.iter()
                    .map(|&x| Node::Scalar(YVal::Uint(x as u64)))
                    .collect(),
            ),
            Value::List(l) => Node::Seq(l.items().iter().map(to_node).collect::<Option<_>>()?),
            Value::Map(m) => Node::Map(
                m.entries()
                    .into_iter()
                    .map(|(k, v)| Some((YVal::Str(k.as_bytes().into()), to_node(&v)?)))
                    .collect::<Option<_>>()?,
            ),
            Value::Object(o) => object_node(o.as_ref(), v)?,
            Value::Func(_) => return None,
        })
    })
}

/// v3's `marshal` of a Go object: `time.Time` first, then a `TextMarshaler` (written as a
/// string), then the object's kind: the value underneath a named type, a struct's exported
/// fields named by their `yaml` tag or their lower-cased name (`omitempty` leaves out zero
/// values).
fn object_node(o: &dyn Object, v: &Value) -> Option<Node> {
    if let Some(text) = gotime::time::yaml_time_text(v) {
        return Some(Node::Timestamp(text));
    }
    if let Some(text) = o.marshal_text() {
        return Some(Node::Scalar(YVal::Str(text.ok()?.as_bytes().into())));
    }
    if let Some(inner) = o.as_value() {
        return to_node(&inner);
    }
    let mut entries = Vec::new();
    for f in o.fields()?.iter().filter(|f| f.is_exported()) {
        let tag = f
            .tag_lookup("yaml")
            // v3 still reads a tag without any `key:` as its yaml tag.
            .or_else(|| (!f.tag.contains(':')).then(|| f.tag.to_string()))
            .unwrap_or_default();
        if tag == "-" {
            continue;
        }
        let mut opts = tag.split(',');
        let name = match opts.next().filter(|n| !n.is_empty()) {
            Some(name) => name.to_string(),
            None => f.name.to_lowercase(),
        };
        if opts.any(|o| o == "omitempty") && is_zero(&f.value) {
            continue;
        }
        entries.push((YVal::Str(name.as_bytes().into()), to_node(&f.value)?));
    }
    Some(Node::Struct(entries))
}

/// v3's `isZero` for the values a modelled struct holds; encoding/json's `isEmptyValue`
/// (`omitempty`) agrees on every one of them.
pub(crate) fn is_zero(v: &Value) -> bool {
    match v {
        Value::Invalid | Value::Nil => true,
        Value::Bool(b) => !b,
        Value::Int(n, _) => *n == 0,
        Value::Float(x) => *x == 0.0,
        Value::String(s) => s.is_empty(),
        Value::Bytes(b) => b.is_empty(),
        Value::List(l) => l.is_empty(),
        Value::Map(m) => m.is_empty(),
        Value::Object(_) | Value::Func(_) => false,
    }
}

/// go-yaml v3's `Encoder.Encode` with `SetIndent(2)` (the stream's text, with its final line
/// break); `None` where bosun cannot encode the value.
pub(crate) fn to_yaml_pretty(v: &Value) -> Option<String> {
    let node = to_node(v)?;
    let mut e = Emitter::new();
    e.best_width = i64::MAX / 4;
    e.emit_node_v3(&node, false, false);
    e.write_indent();
    Some(String::from_utf8_lossy(&e.out).into_owned())
}
