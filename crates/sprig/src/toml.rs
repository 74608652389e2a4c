//! Helm's `toToml` and `fromToml`: BurntSushi/toml (v1.6) over Go values. The decoder is in
//! `toml_decode`.
//!
//! The encoder follows BurntSushi's `Encoder` with its default two-space indent: a map's
//! plain values first (keys sorted), then its tables and arrays of tables; a table header is
//! preceded by an empty line at the top level only; arrays and maps inside arrays are inline.
//! A `time.Time` is a value (RFC 3339, or the form of the local date-time kind `fromToml` gave
//! it), a `TextMarshaler` (a semver version) a string, and other structs (Sprig's certificate,
//! `.Capabilities`) tables of their exported fields in declaration order.

use gotemplate::fmt::format_float;
use gotemplate::{ArgType, Field, FuncError, FuncMap, IntKind, List, Map, Value};

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

/// What BurntSushi's encoder sees of a value: a Go object by the interfaces and kinds it
/// checks in turn.
enum Shape {
    /// Not an object (or a named map, slice or number: the value underneath).
    Plain(Value),
    /// A `time.Time`: a TOML date-time.
    Time(Value),
    /// An `encoding.TextMarshaler` (a semver version): its text, as a string.
    Text(Result<String, String>),
    /// A struct, or a pointer to one: a table of its exported fields.
    Struct(Vec<Field>),
    /// A kind TOML has no form for, by its Go name.
    Unsupported(&'static str),
}

fn shape(v: &Value) -> Shape {
    gotemplate::stack::grow(|| match v {
        Value::Object(o) if o.type_name() == "time.Time" => Shape::Time(v.clone()),
        Value::Object(o) => {
            if let Some(text) = o.marshal_text() {
                Shape::Text(text.map_err(|e| e.to_string()))
            } else if let Some(inner) = o.as_value() {
                shape(&inner)
            } else if let Some(fields) = o.fields() {
                Shape::Struct(fields)
            } else {
                Shape::Unsupported(o.kind())
            }
        }
        Value::Func(_) => Shape::Unsupported("func"),
        other => Shape::Plain(other.clone()),
    })
}

fn toml_kind(v: &Value) -> Result<Option<Kind>, String> {
    gotemplate::stack::grow(|| {
        Ok(Some(match shape(v) {
            Shape::Plain(Value::Nil | Value::Invalid) => return Ok(None),
            Shape::Plain(Value::Map(_)) | Shape::Struct(_) => Kind::Hash,
            Shape::Plain(Value::List(l)) => {
                if is_table_array(&l)? {
                    Kind::ArrayHash
                } else {
                    Kind::Array
                }
            }
            Shape::Plain(Value::Bytes(_)) => Kind::Array,
            Shape::Plain(_) | Shape::Time(_) | Shape::Text(_) => Kind::Scalar,
            Shape::Unsupported(kind) => return Err(format!("unsupported type: {kind}")),
        }))
    })
}

/// One entry of a table, as BurntSushi writes it.
struct Entry {
    key: String,
    value: Value,
    /// A struct field's index among all the struct's fields (see [`Encoder::entries`]).
    field_index: Option<usize>,
}

/// A struct's fields as table entries: exported ones, named by their `toml` tag or their Go
/// name (`-` leaves one out, `omitempty` leaves out empty strings, slices and maps and false),
/// with the number of fields BurntSushi counts (before `omitempty`).
fn struct_entries(fields: &[Field]) -> (Vec<Entry>, usize) {
    let mut counted = Vec::new();
    for (i, f) in fields.iter().enumerate() {
        if !f.is_exported() {
            continue;
        }
        let tag = f.tag_lookup("toml").unwrap_or_default();
        if tag != "-" {
            counted.push((i, f, tag));
        }
    }
    let total = counted.len();
    let entries = counted
        .into_iter()
        .filter_map(|(i, f, tag)| {
            let mut opts = tag.split(',');
            let key = opts.next().filter(|n| !n.is_empty()).unwrap_or(f.name);
            let empty = match &f.value {
                Value::String(s) => s.is_empty(),
                Value::Bytes(b) => b.is_empty(),
                Value::List(l) => l.is_empty(),
                Value::Map(m) => m.is_empty(),
                Value::Bool(b) => !b,
                _ => false,
            };
            (!(empty && opts.any(|o| o == "omitempty"))).then(|| Entry {
                key: key.to_string(),
                value: f.value.clone(),
                field_index: Some(i),
            })
        })
        .collect();
    (entries, total)
}

fn is_table_array(l: &List) -> Result<bool, String> {
    gotemplate::stack::grow(|| {
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
    })
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
        gotemplate::stack::grow(|| {
            match shape(v) {
                Shape::Plain(Value::Nil | Value::Invalid) => Ok(()),
                Shape::Plain(Value::Map(m)) => self.table(key, Self::map_entries(&m), None),
                Shape::Plain(Value::List(l)) if is_table_array(&l)? => {
                    self.array_of_tables(key, &l)
                }
                Shape::Plain(other) => self.key_value(key, &other, false),
                // Written as values: BurntSushi checks for these before the kind.
                Shape::Time(_) | Shape::Text(_) => self.key_value(key, v, false),
                Shape::Struct(fields) => {
                    let (entries, total) = struct_entries(&fields);
                    self.table(key, entries, Some(total))
                }
                Shape::Unsupported(kind) => Err(format!(
                    "unsupported type for key '{}': {kind}",
                    key_string(key)
                )),
            }
        })
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
        gotemplate::stack::grow(|| {
            match shape(v) {
                Shape::Plain(Value::String(s)) => self.out.push_str(&quote(&s)),
                Shape::Plain(Value::Bool(b)) => self.out.push_str(if b { "true" } else { "false" }),
                Shape::Plain(Value::Int(n, kind)) => {
                    if kind.is_unsigned() {
                        self.out.push_str(&(n as u64).to_string());
                    } else {
                        self.out.push_str(&n.to_string());
                    }
                }
                Shape::Plain(Value::Float(f)) => {
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
                Shape::Plain(Value::Bytes(b)) => {
                    let items: Vec<Value> = b
                        .iter()
                        .map(|&x| Value::Int(x as i64, IntKind::Uint8))
                        .collect();
                    self.array(&items)?;
                }
                Shape::Plain(Value::List(l)) => self.array(l.items())?,
                Shape::Plain(Value::Map(m)) => {
                    self.table_body(&[], Self::map_entries(&m), None, true)?
                }
                Shape::Plain(Value::Nil | Value::Invalid) => {
                    return Err("reflect: call of reflect.Value.Interface on zero Value".into());
                }
                Shape::Time(t) => match super::date::toml_time_text(&t) {
                    Some(text) => self.out.push_str(&text),
                    None => return Err(format!("unexpected type: {}", t.type_name())),
                },
                Shape::Text(text) => self.out.push_str(&quote(&text?)),
                Shape::Struct(fields) => {
                    let (entries, total) = struct_entries(&fields);
                    self.table_body(&[], entries, Some(total), true)?;
                }
                Shape::Plain(other @ (Value::Object(_) | Value::Func(_))) => {
                    return Err(format!("unexpected type: {}", other.type_name()));
                }
                Shape::Unsupported(kind) => return Err(format!("unsupported type: {kind}")),
            }
            Ok(())
        })
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
        gotemplate::stack::grow(|| {
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
                match shape(item) {
                    Shape::Plain(Value::Map(m)) => {
                        self.table_body(key, Self::map_entries(&m), None, false)?
                    }
                    Shape::Struct(fields) => {
                        let (entries, total) = struct_entries(&fields);
                        self.table_body(key, entries, Some(total), false)?
                    }
                    _ => {}
                }
            }
            Ok(())
        })
    }

    /// A map's entries, keys sorted (a Go map's `MapKeys`, sorted as BurntSushi sorts them).
    fn map_entries(m: &Map) -> Vec<Entry> {
        m.entries()
            .into_iter()
            .map(|(k, v)| Entry {
                key: k.to_string(),
                value: v,
                field_index: None,
            })
            .collect()
    }

    /// A map's or struct's table: `fields` is the number of a struct's fields.
    fn table(
        &mut self,
        key: &[String],
        entries: Vec<Entry>,
        fields: Option<usize>,
    ) -> Result<(), String> {
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
        self.table_body(key, entries, fields, false)
    }

    /// The entries of a table (BurntSushi's `eMap`/`eStruct`): plain values first, then
    /// tables and arrays of tables, each group in order. Inline, a map puts commas between
    /// the entries it writes; a struct puts one after every field but the one whose index is
    /// the last counted, so a struct with unexported or skipped fields gets them in odd places.
    fn table_body(
        &mut self,
        key: &[String],
        entries: Vec<Entry>,
        fields: Option<usize>,
        inline: bool,
    ) -> Result<(), String> {
        gotemplate::stack::grow(|| {
            let mut direct = Vec::new();
            let mut sub = Vec::new();
            for e in entries {
                match toml_kind(&e.value)? {
                    Some(Kind::Hash | Kind::ArrayHash) => sub.push(e),
                    _ => direct.push(e),
                }
            }
            if inline {
                self.out.push('{');
            }
            let has_sub = !sub.is_empty();
            for (group, trail) in [(direct, has_sub), (sub, false)] {
                let n = group.len();
                for (i, e) in group.into_iter().enumerate() {
                    if matches!(shape(&e.value), Shape::Plain(Value::Nil | Value::Invalid)) {
                        continue;
                    }
                    if inline {
                        self.key_value(std::slice::from_ref(&e.key), &e.value, true)?;
                        let comma = match (e.field_index, fields) {
                            (Some(index), Some(total)) => index + 1 != total,
                            _ => trail || i + 1 != n,
                        };
                        if comma {
                            self.out.push_str(", ");
                        }
                    } else {
                        let mut child = key.to_vec();
                        child.push(e.key);
                        self.encode(&child, &e.value)?;
                    }
                }
            }
            if inline {
                self.out.push('}');
            }
            Ok(())
        })
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
