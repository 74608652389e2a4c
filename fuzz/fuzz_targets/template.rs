//! Lexer + parser + executor on arbitrary input: must never panic, overflow the stack or hang.
//! The input is a template text; it runs against data holding every kind of value.
#![no_main]

use gotemplate::{FuncMap, List, Map, MissingKey, Templates, Value};
use libfuzzer_sys::fuzz_target;

fn data() -> Value {
    let inner = Map::from_entries([
        ("s", Value::str("text")),
        ("n", Value::Nil),
        ("list", Value::list(vec![Value::int(1), Value::Float(2.5), Value::str("x")])),
    ]);
    Value::Map(Map::from_entries([
        ("a", Value::Float(1.0)),
        ("i", Value::int64(3)),
        ("b", Value::Bool(true)),
        ("s", Value::str("hello")),
        ("nil", Value::Nil),
        ("m", Value::Map(inner)),
        ("l", Value::List(List::new(vec![Value::str("a"), Value::str("b")]))),
        ("bytes", Value::Bytes(b"xyz"[..].into())),
    ]))
}

fuzz_target!(|input: &[u8]| {
    let Ok(text) = std::str::from_utf8(input) else { return };
    let mut set = Templates::new(FuncMap::builtins());
    set.set_missing_key(MissingKey::Zero);
    // Bound the work a template may do, so loops over huge ranges end with an error.
    set.set_step_limit(Some(200_000));
    if set.parse("fuzz", text).is_ok() {
        let _ = set.execute("fuzz", data());
    }
});
