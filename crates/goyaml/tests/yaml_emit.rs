//! Writing YAML and JSON: every case under `tests/cases/yaml/emit/` against the Go oracle.

mod common;

use common::{case_files, parse_cases};
use goyaml as yaml;

#[test]
fn emit_cases() {
    let mut total = 0;
    let mut failures = Vec::new();
    let mut gaps = Vec::new();
    for path in case_files("yaml/emit") {
        for case in parse_cases(&path) {
            total += 1;
            let failures = if case.gap { &mut gaps } else { &mut failures };
            let want_yaml = case.section("to_yaml").expect("to_yaml section");
            let value = match yaml::from_yaml_bytes(&case.input) {
                Ok(v) => v,
                Err(e) => {
                    let got = format!("input error: {e}");
                    if got != want_yaml {
                        failures.push(format!(
                            "{}/{}: input: want {want_yaml}, got {got}",
                            case.file, case.name
                        ));
                    }
                    continue;
                }
            };
            let got_yaml = match yaml::to_yaml(&value) {
                Ok(s) => s,
                Err(e) => format!("error: {e}"),
            };
            if got_yaml != want_yaml {
                failures.push(format!(
                    "{}/{} to_yaml:\n--- want\n{want_yaml}\n--- got\n{got_yaml}",
                    case.file, case.name
                ));
            }
            if let Some(want_json) = case.section("to_json") {
                let got_json = match yaml::to_json(&value) {
                    Ok(s) => s,
                    Err(e) => format!("error: {e}"),
                };
                if got_json != want_json {
                    failures.push(format!(
                        "{}/{} to_json:\n  want: {want_json}\n  got:  {got_json}",
                        case.file, case.name
                    ));
                }
            }
        }
    }
    for g in &gaps {
        eprintln!("known gap: {g}");
    }
    for f in &failures {
        eprintln!("{f}");
    }
    eprintln!(
        "yaml emit: {total} cases, {} mismatches, {} known-gap mismatches",
        failures.len(),
        gaps.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {total} emit cases failed",
        failures.len()
    );
}

/// Values a template holds that YAML input cannot make (expected outputs from the Go oracle).
#[test]
fn typed_values() {
    use gotemplate::{IntKind, List, Map, Value};
    use std::rc::Rc;

    let m = Map::new();
    m.insert("a", Value::int(5));
    m.insert("b", Value::int64(9007199254740993));
    m.insert("c", Value::Int(-1, IntKind::Uint64));
    m.insert("d", Value::Bytes(Rc::from(&b"hi"[..])));
    m.insert("e", Value::Float(-0.0));
    m.insert("f", Value::Float(1e6));
    m.insert("g", Value::Float(1234567.5));
    let v = Value::Map(m);
    assert_eq!(
        yaml::to_yaml(&v).unwrap(),
        "a: 5\nb: 9007199254740993\nc: 18446744073709551615\nd: aGk=\ne: 0\nf: 1000000\ng: 1.2345675e+06\n"
    );
    assert_eq!(
        yaml::to_json(&v).unwrap(),
        r#"{"a":5,"b":9007199254740993,"c":18446744073709551615,"d":"aGk=","e":-0,"f":1000000,"g":1234567.5}"#
    );

    let nan = Value::Map(Map::from_entries([("x", Value::Float(f64::NAN))]));
    assert_eq!(
        yaml::to_yaml(&nan).unwrap_err().to_string(),
        "error marshaling into JSON: json: unsupported value: NaN"
    );
    assert_eq!(
        yaml::to_json(&nan).unwrap_err().to_string(),
        "json: unsupported value: NaN"
    );
    let inf = Value::Map(Map::from_entries([("x", Value::Float(f64::INFINITY))]));
    assert_eq!(
        yaml::to_yaml(&inf).unwrap_err().to_string(),
        "error marshaling into JSON: json: unsupported value: +Inf"
    );

    let list = Value::list(vec![
        Value::Nil,
        Value::Bool(true),
        Value::str("s"),
        Value::Float(1.5),
    ]);
    assert_eq!(
        yaml::to_yaml(&list).unwrap(),
        "- null\n- true\n- s\n- 1.5\n"
    );
    assert_eq!(yaml::to_json(&list).unwrap(), r#"[null,true,"s",1.5]"#);
    assert_eq!(yaml::to_yaml(&Value::str("top")).unwrap(), "top\n");
    assert_eq!(yaml::to_yaml(&Value::Nil).unwrap(), "null\n");
    assert_eq!(yaml::to_yaml(&Value::Invalid).unwrap(), "null\n");
    assert_eq!(yaml::to_yaml(&Value::Map(Map::new())).unwrap(), "{}\n");
    let strs = Value::List(List::typed(
        vec![Value::str("a"), Value::str("b")],
        "string",
    ));
    assert_eq!(yaml::to_yaml(&strs).unwrap(), "- a\n- b\n");
}
