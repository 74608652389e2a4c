//! Sprig (Masterminds/sprig v3), the function library Helm registers before its own functions.
//!
//! Only the functions implemented here exist; each follows Sprig's Go signature (so the
//! executor checks arguments as Go does) and Sprig's semantics, including its panics, which Go's
//! template engine turns into `error calling NAME: MESSAGE`. Functions that build a value from a
//! count (`repeat`, `until`, `seq`, `randAlpha`…) check it before allocating: Go's own panics
//! where Go has them, and bosun's bound ([`MAX_BUILT_BYTES`]) where Go would exhaust memory.
//!
//! Mirrors `github.com/Masterminds/sprig/v3`, with the Go pieces only Sprig needs (the
//! `encoding/asn1` and `crypto/x509` key parsing of `goasn1`/`keys`, BurntSushi/toml). Go's
//! `time`, `regexp`, `net/url` and `encoding/json` come from `gotime`, `goregexp`, `gourl` and
//! `goyaml`. It must not know charts, values files or Helm's own functions (`include`, `tpl`,
//! `toYaml`, `required`, `lookup`).

mod conv;
pub mod crypto;
mod date;
mod dicts;
mod goasn1;
mod json;
mod keys;
mod limits;
mod lists;
mod math;
pub mod paths;
pub mod semver;
use crypto::b64_encode as base64_encode;
pub mod strings;
mod text;
mod toml;
mod toml_decode;
mod url;

use gotemplate::{ArgType, Context, Func, FuncError, FuncMap, Value};

pub use conv::{empty, strval, to_float64, to_int64};
pub use limits::{MAX_BUILT_BYTES, MAX_BUILT_ITEMS};

/// Every Sprig function bosun implements.
pub fn sprig_funcs() -> FuncMap {
    let mut map = FuncMap::new();
    conv::register(&mut map);
    strings::register(&mut map);
    strings::register_more(&mut map);
    dicts::register(&mut map);
    lists::register(&mut map);
    crypto::register(&mut map);
    keys::register(&mut map);
    semver::register(&mut map);
    json::register(&mut map);
    paths::register(&mut map);
    text::register(&mut map);
    math::register(&mut map);
    date::register(&mut map);
    url::register(&mut map);
    toml::register(&mut map);
    map
}

type Imp = fn(&mut dyn Context, Vec<Value>) -> Result<Value, FuncError>;

/// Registers `name` with Go's signature: fixed `params`, optional variadic tail, result type
/// and whether Go's function also returns an `error`.
fn def(
    map: &mut FuncMap,
    name: &str,
    params: &[ArgType],
    variadic: Option<ArgType>,
    result: &'static str,
    returns_error: bool,
    imp: Imp,
) {
    let mut f = Func::new(params.to_vec(), variadic, result, imp);
    f.returns_error = returns_error;
    map.insert(name, f);
}

/// The text of a Go runtime panic, as the template engine reports it.
fn runtime_error(msg: &str) -> FuncError {
    FuncError::new(format!("runtime error: {msg}"))
}

/// `args[i]` as a Rust string (the executor has checked the type).
fn s(args: &[Value], i: usize) -> &str {
    args[i].as_str().unwrap_or_default()
}

/// `args[i]` as a Go `int` (the executor has checked the type).
fn n(args: &[Value], i: usize) -> i64 {
    match &args[i] {
        Value::Int(v, _) => *v,
        _ => 0,
    }
}

/// Go's `reflect.Kind` name of a value, as Sprig's error messages print it.
pub fn go_kind(value: &Value) -> &'static str {
    match value {
        Value::Invalid | Value::Nil => "invalid",
        Value::Bool(_) => "bool",
        Value::Int(_, kind) => kind.go_name(),
        Value::Float(_) => "float64",
        Value::String(_) => "string",
        Value::Bytes(_) | Value::List(_) => "slice",
        Value::Map(_) => "map",
        Value::Object(o) => o.kind(),
        Value::Func(_) => "func",
    }
}
