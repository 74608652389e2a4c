//! Go's `fmt` rendering of JSON values as k8s.io/apimachinery's `util/json` decodes them
//! (`map[string]interface{}`, `[]interface{}`, `int64` for integer literals that fit, `float64`
//! for other numbers, `string`, `bool`, nil), which strategicpatch puts into its error messages,
//! and the number typing of that JSON round trip.

use serde_json::{Map, Number, Value};

/// `fmt.Sprint(v)` / `%v` of such a value.
pub(crate) fn sprint(v: &Value) -> String {
    let mut out = String::new();
    write_v(&mut out, v);
    out
}

fn write_v(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("<nil>"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match n.as_i64() {
            Some(i) => out.push_str(&i.to_string()),
            None => out.push_str(&float_v(as_f64(n))),
        },
        Value::String(s) => out.push_str(s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write_v(out, item);
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push_str("map[");
            // fmt prints map keys sorted; serde_json's map may not iterate in that order.
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(k);
                out.push(':');
                write_v(out, &m[k.as_str()]);
            }
            out.push(']');
        }
    }
}

/// `%s` of such a value: strings as they are, other scalars as fmt's `%!s(float64=1)` complaint,
/// containers element by element.
pub(crate) fn sprint_s(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "%!s(<nil>)".to_string(),
        Value::Bool(_) | Value::Number(_) => format!("%!s({}={})", type_name(v), sprint(v)),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(sprint_s).collect();
            format!("[{}]", parts.join(" "))
        }
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .iter()
                .map(|k| format!("{k}:{}", sprint_s(&m[k.as_str()])))
                .collect();
            format!("map[{}]", parts.join(" "))
        }
    }
}

/// `reflect.TypeOf(v)` printed with `%s`, as mergepatch.ErrBadArgType prints it.
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "%!s(<nil>)",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.as_i64().is_some() => "int64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

/// `%v` of a float64: strconv's shortest 'g' form (`1e+06`, `0.5`).
pub(crate) fn float_v(f: f64) -> String {
    gotemplate::fmt::format_float(f, 'g', -1)
}

pub(crate) fn as_f64(n: &Number) -> f64 {
    n.as_f64().unwrap_or(f64::NAN)
}

/// The numbers as they are after `json.Marshal` and util/json's decoding (which unstructured
/// uses too): Go prints an integral float64 below 1e21 without exponent or fraction, and the
/// decoder makes any integer literal that fits an int64 an int64; everything else is a float64.
pub(crate) fn to_unstructured(v: &Value) -> Value {
    match v {
        Value::Number(n) => {
            if n.is_f64() {
                unstructured_number(as_f64(n))
            } else {
                Value::Number(n.clone())
            }
        }
        Value::Array(items) => Value::Array(items.iter().map(to_unstructured).collect()),
        Value::Object(m) => {
            let out: Map<String, Value> = m
                .iter()
                .map(|(k, v)| (k.clone(), to_unstructured(v)))
                .collect();
            Value::Object(out)
        }
        other => other.clone(),
    }
}

fn float_number(f: f64) -> Value {
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

/// One float64 after that round trip.
pub(crate) fn unstructured_number(f: f64) -> Value {
    // 2^63 itself does not fit; -2^63 does.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if f.fract() == 0.0 && (-LIMIT..LIMIT).contains(&f) {
        Value::from(f as i64)
    } else {
        float_number(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prints_like_go() {
        assert_eq!(
            sprint(&json!({"b": [1, "x"], "a": null})),
            "map[a:<nil> b:[1 x]]"
        );
        assert_eq!(sprint(&json!(1000000.0)), "1e+06");
        assert_eq!(sprint(&json!(1000000)), "1000000");
        assert_eq!(sprint_s(&json!(5)), "%!s(int64=5)");
        assert_eq!(sprint_s(&json!(0.5)), "%!s(float64=0.5)");
        assert_eq!(sprint_s(&json!({"a": true})), "map[a:%!s(bool=true)]");
    }

    #[test]
    fn unstructured_numbers() {
        assert_eq!(unstructured_number(8080.0), json!(8080));
        assert_eq!(unstructured_number(1e6), json!(1000000));
        assert_eq!(unstructured_number(0.5), json!(0.5));
        assert!(unstructured_number(9.3e18).is_f64());
        assert_eq!(
            unstructured_number(-9.223_372_036_854_776e18),
            json!(i64::MIN)
        );
    }
}
