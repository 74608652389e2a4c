//! The Rust half of the differential fuzzer in `testdata/fuzz`: reads NUL-separated templates,
//! parses and executes each, and writes NUL-separated results in the Go half's format.

use gotemplate::*;
use std::io::Write;
fn s(v: &Value) -> String {
    v.as_str().unwrap_or("").to_string()
}
fn main() {
    let raw = std::fs::read_to_string(std::env::args().nth(1).unwrap()).unwrap();
    let mut out = std::io::stdout().lock();
    for text in raw.split('\0') {
        let mut f = FuncMap::new();
        f.insert(
            "fail",
            Func::new(vec![ArgType::String], None, "string", |_, a| {
                Err(FuncError::new(s(&a[0])))
            }),
        );
        f.insert(
            "id",
            Func::new(vec![ArgType::Any], None, "interface {}", |_, mut a| {
                Ok(a.remove(0))
            }),
        );
        f.insert(
            "str",
            Func::new(vec![ArgType::String], None, "string", |_, mut a| {
                Ok(a.remove(0))
            }),
        );
        f.insert(
            "list",
            Func::new(vec![], Some(ArgType::Any), "[]interface {}", |_, a| {
                Ok(Value::list(a))
            }),
        );
        f.insert(
            "typeof",
            Func::new(vec![ArgType::Any], None, "string", |_, a| {
                Ok(Value::from(a[0].type_name()))
            }),
        );
        for name in ["and", "or"] {
            let mut g = Func::new(
                vec![ArgType::Reflect],
                Some(ArgType::Reflect),
                "reflect.Value",
                |_, _| Ok(Value::Invalid),
            );
            g.builtin = true;
            f.insert(name, g);
        }
        f.insert(
            "not",
            Func::new(vec![ArgType::Reflect], None, "bool", |_, a| {
                Ok(Value::Bool(!a[0].truth().unwrap_or(false)))
            }),
        );
        let mut t = Templates::new(f);
        t.set_root_name("gotpl");
        let data = Map::new();
        data.insert("a", Value::str("A"));
        data.insert("b", Value::Map(Map::from_entries([("c", Value::str("C"))])));
        data.insert("l", Value::list(vec![Value::str("x"), Value::str("y")]));
        data.insert("n", Value::Nil);
        let res = match t.parse("t", text) {
            Err(e) => format!("PARSE:{e}"),
            Ok(()) => match t.execute("t", Value::Map(data)) {
                Ok(o) => format!("OUT:{o}"),
                Err(e) => format!("EXEC:{e}"),
            },
        };
        write!(out, "{res}\0").unwrap();
    }
}
