//! The bridge between the template value model and `serde_json::Value`, the tree that the
//! IstioOperator and manifest crates keep (it is `Send`, typed views deserialize from it).
//!
//! Numbers keep their Go meaning across the bridge: a JSON integer is a Go `int`, any other
//! number a `float64`. Going to JSON, values that JSON cannot hold (functions, objects, NaN) are
//! errors, as `encoding/json` would report them; byte slices become base64 strings as in Go.

use gotemplate::{IntKind, List, Map, Value};

/// A value that has no JSON form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("json: unsupported value: {0}")]
pub struct NotJson(pub String);

/// A template value as a JSON tree. `Invalid` ("no value") becomes null, as a nil interface.
pub fn to_json_value(v: &Value) -> Result<serde_json::Value, NotJson> {
    gotemplate::stack::grow(|| {
        Ok(match v {
            Value::Invalid | Value::Nil => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Int(n, kind) => {
                if kind.is_unsigned() {
                    serde_json::Value::from(*n as u64)
                } else {
                    serde_json::Value::from(*n)
                }
            }
            Value::Float(f) => serde_json::Number::from_f64(*f)
                .map(serde_json::Value::Number)
                .ok_or_else(|| NotJson(f.to_string()))?,
            Value::String(s) => serde_json::Value::String(s.to_string()),
            Value::Bytes(b) => serde_json::Value::String(b64_encode(b)),
            Value::List(l) => serde_json::Value::Array(
                l.items()
                    .iter()
                    .map(to_json_value)
                    .collect::<Result<_, _>>()?,
            ),
            Value::Map(m) => {
                let mut out = serde_json::Map::new();
                for (k, v) in m.entries() {
                    out.insert(k.to_string(), to_json_value(&v)?);
                }
                serde_json::Value::Object(out)
            }
            Value::Object(_) | Value::Func(_) => return Err(NotJson(v.type_name())),
        })
    })
}

/// A JSON tree as template values: integers are Go `int`s, other numbers `float64`s, maps and
/// lists fresh (so templates may mutate them without touching the tree).
pub fn from_json_value(v: &serde_json::Value) -> Value {
    gotemplate::stack::grow(|| match v {
        serde_json::Value::Null => Value::Nil,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::Int(i, IntKind::Int)
            } else if let Some(u) = n.as_u64() {
                Value::Int(u as i64, IntKind::Uint64)
            } else {
                Value::Float(n.as_f64().unwrap_or(0.0))
            }
        }
        serde_json::Value::String(s) => Value::from(s.as_str()),
        serde_json::Value::Array(items) => {
            Value::List(List::new(items.iter().map(from_json_value).collect()))
        }
        serde_json::Value::Object(m) => Value::Map(from_json_map(m)),
    })
}

/// [`from_json_value`] for a map.
pub fn from_json_map(m: &serde_json::Map<String, serde_json::Value>) -> Map {
    gotemplate::stack::grow(|| {
        Map::from_entries(m.iter().map(|(k, v)| (k.as_str(), from_json_value(v))))
    })
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Go's `base64.StdEncoding.EncodeToString`, which `encoding/json` writes a `[]byte` with.
pub fn b64_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(B64[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}
