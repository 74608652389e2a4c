//! Helm's `toToml` and `fromToml`: BurntSushi/toml (v1.6) over Go values. The decoder is in
//! `toml_decode`.
//!
//! The encoder follows BurntSushi's `Encoder` with its default two-space indent: a map's
//! plain values first (keys sorted), then its tables and arrays of tables; a table header is
//! preceded by an empty line at the top level only; arrays and maps inside arrays are inline.
//! A `time.Time` is a value (RFC 3339, or the form of the local date-time kind `fromToml` gave
//! it). Not covered: other structs (Sprig's certificate), which Go encodes as tables of their
//! fields, are reported as an unsupported type.

use gotemplate::fmt::format_float;
use gotemplate::{ArgType, FuncError, FuncMap, IntKind, List, Map, Value};

use super::def;

const ERR_NIL_ELEM: &str = "toml: cannot encode array with nil element";
const ERR_NO_KEY: &str = "toml: top-level values must be Go maps or structs";

/// The TOML types the encoder distinguishes (`nil` is `None`).
#[derive(PartialEq, Clone, Copy)]
enum Kind {
    Scalar,
    Array,
    Hash,
    ArrayHash,
}

/// Nil-like values the encoder writes nothing for.
fn is_nil(v: &Value) -> bool {
    matches!(v, Value::Nil | Value::Invalid)
}

/// Objects that stand for Go maps or slices are encoded as those.
fn plain(v: &Value) -> Value {
    match v {
        Value::Object(o) => o.as_value().unwrap_or_else(|| v.clone()),
        _ => v.clone(),
    }
}

fn toml_kind(v: &Value) -> Result<Option<Kind>, String> {
    Ok(Some(match plain(v) {
        Value::Nil | Value::Invalid => return Ok(None),
        Value::Map(_) => Kind::Hash,
        Value::List(l) => {
            if is_table_array(&l)? {
                Kind::ArrayHash
            } else {
                Kind::Array
            }
        }
        Value::Bytes(_) => Kind::Array,
        Value::Object(o) if o.type_name() == "time.Time" => Kind::Scalar,
        Value::Object(o) => return Err(format!("unsupported type: {}", o.kind())),
        Value::Func(_) => return Err("unsupported type: func".into()),
        _ => Kind::Scalar,
    }))
}

fn is_table_array(l: &List) -> Result<bool, String> {
    if l.is_empty() {
        return Ok(false);
    }
    let mut all = true;
    for item in l.items() {
        match toml_kind(item)? {
            None => return Err(ERR_NIL_ELEM.into()),
            Some(Kind::Hash) => {}
            Some(_) => all = false,
        }
    }
    Ok(all)
}

fn bare(k: &str) -> bool {
    !k.is_empty()
        && k.bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
}

/// BurntSushi's `dblQuotedReplacer`.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            '\0'..='\u{1f}' | '\u{7f}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// One part of a key as BurntSushi writes it (`Key.String`): bare, or double-quoted.
pub(super) fn quote_key(k: &str) -> String {
    if bare(k) { k.to_string() } else { quote(k) }
}

fn key_string(key: &[String]) -> String {
    key.iter()
        .map(|k| quote_key(k))
        .collect::<Vec<_>>()
        .join(".")
}

struct Encoder {
    out: String,
}

impl Encoder {
    fn newline(&mut self) {
        if !self.out.is_empty() {
            self.out.push('\n');
        }
    }

    fn indent(&mut self, key: &[String]) {
        for _ in 1..key.len() {
            self.out.push_str("  ");
        }
    }

    fn encode(&mut self, key: &[String], v: &Value) -> Result<(), String> {
        match plain(v) {
            Value::Nil | Value::Invalid => Ok(()),
            Value::Map(m) => self.table(key, &m),
            Value::List(l) if is_table_array(&l)? => self.array_of_tables(key, &l),
            // A `time.Time` is a `TextMarshaler`: written as a value.
            Value::Object(o) if o.type_name() == "time.Time" => {
                self.key_value(key, &Value::Object(o), false)
            }
            Value::Object(o) => Err(format!(
                "unsupported type for key '{}': {}",
                key_string(key),
                o.kind()
            )),
            Value::Func(_) => Err(format!(
                "unsupported type for key '{}': func",
                key_string(key)
            )),
            other => self.key_value(key, &other, false),
        }
    }

    fn key_value(&mut self, key: &[String], v: &Value, inline: bool) -> Result<(), String> {
        if let Some(last) = key.last() {
            self.indent(key);
            self.out.push_str(&quote_key(last));
            self.out.push_str(" = ");
            self.element(v)?;
            if !inline {
                self.newline();
            }
            Ok(())
        } else {
            self.element(v)
        }
    }

    fn element(&mut self, v: &Value) -> Result<(), String> {
        match plain(v) {
            Value::String(s) => self.out.push_str(&quote(&s)),
            Value::Bool(b) => self.out.push_str(if b { "true" } else { "false" }),
            Value::Int(n, kind) => {
                let unsigned = matches!(
                    kind,
                    IntKind::Uint
                        | IntKind::Uint8
                        | IntKind::Uint16
                        | IntKind::Uint32
                        | IntKind::Uint64
                        | IntKind::Uintptr
                );
                if unsigned {
                    self.out.push_str(&(n as u64).to_string());
                } else {
                    self.out.push_str(&n.to_string());
                }
            }
            Value::Float(f) => {
                if f.is_sign_negative() && (f.is_nan() || f.is_infinite()) {
                    self.out.push('-');
                }
                if f.is_nan() {
                    self.out.push_str("nan");
                } else if f.is_infinite() {
                    self.out.push_str("inf");
                } else {
                    let s = format_float(f, 'g', -1);
                    let needs_dot = !s.contains(['e', '.']);
                    self.out.push_str(&s);
                    if needs_dot {
                        self.out.push_str(".0");
                    }
                }
            }
            Value::Bytes(b) => {
                let items: Vec<Value> = b
                    .iter()
                    .map(|&x| Value::Int(x as i64, IntKind::Uint8))
                    .collect();
                self.array(&items)?;
            }
            Value::List(l) => self.array(l.items())?,
            Value::Map(m) => self.map(&[], &m, true)?,
            Value::Nil | Value::Invalid => {
                return Err("reflect: call of reflect.Value.Interface on zero Value".into());
            }
            Value::Object(o) => match super::date::toml_time_text(&Value::Object(o.clone())) {
                Some(text) => self.out.push_str(&text),
                None => return Err(format!("unexpected type: {}", o.type_name())),
            },
            Value::Func(_) => return Err("unsupported type: func".into()),
        }
        Ok(())
    }

    fn array(&mut self, items: &[Value]) -> Result<(), String> {
        self.out.push('[');
        for (i, item) in items.iter().enumerate() {
            self.element(item)?;
            if i + 1 != items.len() {
                self.out.push_str(", ");
            }
        }
        self.out.push(']');
        Ok(())
    }

    fn array_of_tables(&mut self, key: &[String], l: &List) -> Result<(), String> {
        if key.is_empty() {
            return Err(ERR_NO_KEY.into());
        }
        for item in l.items() {
            self.newline();
            self.indent(key);
            self.out.push_str("[[");
            self.out.push_str(&key_string(key));
            self.out.push_str("]]");
            self.newline();
            if let Value::Map(m) = plain(item) {
                self.map(key, &m, false)?;
            }
        }
        Ok(())
    }

    fn table(&mut self, key: &[String], m: &Map) -> Result<(), String> {
        if key.len() == 1 {
            self.newline();
        }
        if !key.is_empty() {
            self.indent(key);
            self.out.push('[');
            self.out.push_str(&key_string(key));
            self.out.push(']');
            self.newline();
        }
        self.map(key, m, false)
    }

    fn map(&mut self, key: &[String], m: &Map, inline: bool) -> Result<(), String> {
        let mut direct = Vec::new();
        let mut sub = Vec::new();
        for (k, v) in m.entries() {
            match toml_kind(&v)? {
                Some(Kind::Hash | Kind::ArrayHash) => sub.push((k, v)),
                _ => direct.push((k, v)),
            }
        }
        if inline {
            self.out.push('{');
        }
        let has_sub = !sub.is_empty();
        for (group, trail) in [(direct, has_sub), (sub, false)] {
            let n = group.len();
            for (i, (k, v)) in group.into_iter().enumerate() {
                if is_nil(&plain(&v)) {
                    continue;
                }
                if inline {
                    self.key_value(&[k.to_string()], &v, true)?;
                    if trail || i + 1 != n {
                        self.out.push_str(", ");
                    }
                } else {
                    let mut child = key.to_vec();
                    child.push(k.to_string());
                    self.encode(&child, &v)?;
                }
            }
        }
        if inline {
            self.out.push('}');
        }
        Ok(())
    }
}

/// BurntSushi's `Encoder.Encode` of a Go value (Helm 4.1 has no `mustToToml`: the error
/// text is `toToml`'s result).
pub fn to_toml(v: &Value) -> Result<String, String> {
    let mut enc = Encoder { out: String::new() };
    enc.encode(&[], v)?;
    Ok(enc.out)
}

pub(super) fn register(map: &mut FuncMap) {
    def(
        map,
        "toToml",
        &[ArgType::Any],
        None,
        "string",
        false,
        |_, a| {
            if is_nil(&a[0]) {
                // Go's reflection panics on the nil interface.
                return Err(FuncError::new(
                    "reflect: call of reflect.Value.Type on zero Value",
                ));
            }
            Ok(Value::from(to_toml(&a[0]).unwrap_or_else(|e| e)))
        },
    );
    register_from(map);
}

pub(super) fn register_from(map: &mut FuncMap) {
    def(
        map,
        "fromToml",
        &[ArgType::String],
        None,
        "map[string]interface {}",
        false,
        |_, a| {
            super::toml_decode::from_toml(super::s(&a, 0))
                .map(Value::Map)
                .map_err(FuncError::new)
        },
    );
}
