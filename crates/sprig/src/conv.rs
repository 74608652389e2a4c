//! Sprig's defaults, reflection, conversion and integer math functions, and the helpers the
//! rest of Sprig shares: `empty`, `strval`, spf13/cast's `ToInt64`/`ToFloat64`.

use gotemplate::fmt::sprint_value;
use gotemplate::{ArgType, FuncError, FuncMap, IntKind, List, Value};

use super::{def, n, runtime_error, s};
use crate::go_kind;

const ANY: ArgType = ArgType::Any;
const INT: ArgType = ArgType::Int(IntKind::Int);
const STR: ArgType = ArgType::String;

/// Sprig's `empty`: the zero value of its type (nil, false, 0, empty string/slice/map);
/// structs are never empty.
pub fn empty(v: &Value) -> bool {
    match v {
        Value::Invalid | Value::Nil => true,
        Value::Bool(b) => !*b,
        Value::Int(i, _) => *i == 0,
        Value::Float(f) => *f == 0.0,
        Value::String(s) => s.is_empty(),
        Value::Bytes(b) => b.is_empty(),
        Value::List(l) => l.is_empty(),
        Value::Map(m) => m.is_empty(),
        Value::Object(o) => match (o.as_value(), o.kind()) {
            (Some(inner), _) => empty(&inner),
            (None, "map" | "slice" | "string") => o.len() == Some(0),
            _ => false,
        },
        Value::Func(_) => false,
    }
}

/// Sprig's `strval`: strings as they are, `[]byte` as text, anything else as `%v`.
pub fn strval(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        other => sprint_value(other),
    }
}

/// cast's `trimZeroDecimal`: `"5.00"` becomes `"5"`.
fn trim_zero_decimal(s: &str) -> &str {
    let b = s.as_bytes();
    let mut found_zero = false;
    for i in (1..=b.len()).rev() {
        match b[i - 1] {
            b'.' => {
                if found_zero {
                    return &s[..i - 1];
                }
            }
            b'0' => found_zero = true,
            _ => return s,
        }
    }
    s
}

/// Go's `strconv.ParseInt(s, 0, 64)`: sign, base prefix (`0x`, `0o`, `0b`, leading `0`),
/// underscores between digits when a prefix is present or the literal is decimal.
pub fn parse_int_base0(s: &str) -> Option<i64> {
    let (neg, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let lower = rest.to_ascii_lowercase();
    let (radix, body, prefixed) = if let Some(r) = lower.strip_prefix("0x") {
        (16, r, true)
    } else if let Some(r) = lower.strip_prefix("0b") {
        (2, r, true)
    } else if let Some(r) = lower.strip_prefix("0o") {
        (8, r, true)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..], true)
    } else {
        (10, lower.as_str(), false)
    };
    if body.is_empty() {
        return None;
    }
    // Underscores: only between digits (or right after a prefix).
    let mut prev_underscore = !prefixed;
    let mut digits = String::new();
    for c in body.chars() {
        if c == '_' {
            if prev_underscore {
                return None;
            }
            prev_underscore = true;
            continue;
        }
        c.to_digit(radix)?;
        prev_underscore = false;
        digits.push(c);
    }
    if prev_underscore || digits.is_empty() {
        return None;
    }
    let mag = u64::from_str_radix(&digits, radix).ok()?;
    if neg {
        if mag > i64::MAX as u64 + 1 {
            return None;
        }
        Some((mag as i64).wrapping_neg())
    } else {
        i64::try_from(mag).ok()
    }
}

/// spf13/cast's `ToInt64` (and `ToInt`): numbers truncate, numeric strings parse, booleans are
/// 0/1, anything else is 0.
pub fn to_int64(v: &Value) -> i64 {
    match v {
        Value::Int(i, _) => *i,
        Value::Float(f) => go_float_to_int64(*f),
        Value::Bool(b) => *b as i64,
        Value::String(s) => parse_int_base0(trim_zero_decimal(s)).unwrap_or(0),
        Value::Object(o) => o.as_value().map(|v| to_int64(&v)).unwrap_or(0),
        _ => 0,
    }
}

/// Go's `int64(f)` as compiled for amd64 (helm's build): a value that does not fit, or NaN,
/// becomes the minimum int64 (the CPU's "integer indefinite"), where Rust's `as` saturates.
fn go_float_to_int64(f: f64) -> i64 {
    // 2^63 is exactly representable; every float below it and at or above -2^63 fits.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if f.is_nan() || !(-LIMIT..LIMIT).contains(&f) {
        i64::MIN
    } else {
        f as i64
    }
}

/// spf13/cast's `ToFloat64`.
pub fn to_float64(v: &Value) -> f64 {
    match v {
        Value::Int(i, k) if k.is_unsigned() => *i as u64 as f64,
        Value::Int(i, _) => *i as f64,
        Value::Float(f) => *f,
        Value::Bool(b) => *b as i64 as f64,
        Value::String(s) => parse_go_float(s).unwrap_or(0.0),
        Value::Object(o) => o.as_value().map(|v| to_float64(&v)).unwrap_or(0.0),
        _ => 0.0,
    }
}

/// Go's `strconv.ParseFloat(s, 64)` for decimal input (and Go's spellings of infinity / NaN).
fn parse_go_float(s: &str) -> Option<f64> {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    let lower = body.to_ascii_lowercase();
    if matches!(lower.as_str(), "inf" | "infinity" | "nan") {
        return s.parse().ok();
    }
    let bytes = body.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let ok = match b {
            b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-' => true,
            // Underscores only between digits.
            b'_' => {
                i > 0
                    && bytes[i - 1].is_ascii_digit()
                    && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)
            }
            _ => false,
        };
        if !ok {
            return None;
        }
    }
    // Go's ParseFloat answers a finite literal too large for float64 with ±Inf and a range
    // error, which cast turns into 0; only the spellings of infinity above are infinite.
    s.replace('_', "")
        .parse()
        .ok()
        .filter(|f: &f64| f.is_finite())
}

/// `strconv.Atoi` with the error dropped: syntax errors are 0, out-of-range values clamp.
fn atoi(s: &str) -> i64 {
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return 0;
    }
    let mut acc: i128 = 0;
    for b in digits.bytes() {
        acc = (acc * 10 + (b - b'0') as i128).min(i64::MAX as i128 + 1);
    }
    let v = if neg { -acc } else { acc };
    v.clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

/// Go's `reflect.DeepEqual` of two template values.
pub fn deep_equal(a: &Value, b: &Value) -> bool {
    gotemplate::stack::grow(|| match (a, b) {
        (Value::Invalid | Value::Nil, Value::Invalid | Value::Nil) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x, kx), Value::Int(y, ky)) => kx == ky && x == y,
        (Value::Float(x), Value::Float(y)) => x == y,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Bytes(x), Value::Bytes(y)) => x == y,
        (Value::List(x), Value::List(y)) => {
            x.elem_type() == y.elem_type()
                && x.len() == y.len()
                && x.items()
                    .iter()
                    .zip(y.items())
                    .all(|(p, q)| deep_equal(p, q))
        }
        (Value::Map(x), Value::Map(y)) => {
            if x.type_name() != y.type_name() || x.len() != y.len() {
                return false;
            }
            if x.ptr_eq(y) {
                return true;
            }
            x.entries()
                .iter()
                .all(|(k, v)| y.get(k).is_some_and(|w| deep_equal(v, &w)))
        }
        (Value::Object(x), Value::Object(y)) => {
            std::ptr::addr_eq(std::rc::Rc::as_ptr(x), std::rc::Rc::as_ptr(y))
        }
        _ => false,
    })
}

fn int_math(op: &str, a: i64, b: i64) -> Result<i64, FuncError> {
    Ok(match op {
        "sub" => a.wrapping_sub(b),
        "div" | "mod" if b == 0 => return Err(runtime_error("integer divide by zero")),
        "div" => a.wrapping_div(b),
        "mod" => a.wrapping_rem(b),
        _ => unreachable!(),
    })
}

pub(super) fn register(map: &mut FuncMap) {
    def(
        map,
        "default",
        &[ANY],
        Some(ANY),
        "interface {}",
        false,
        |_, a| {
            Ok(match a.get(1) {
                Some(given) if !empty(given) => given.clone(),
                _ => a[0].clone(),
            })
        },
    );
    def(map, "empty", &[ANY], None, "bool", false, |_, a| {
        Ok(Value::Bool(empty(&a[0])))
    });
    def(
        map,
        "coalesce",
        &[],
        Some(ANY),
        "interface {}",
        false,
        |_, a| Ok(a.into_iter().find(|v| !empty(v)).unwrap_or(Value::Nil)),
    );
    def(map, "all", &[], Some(ANY), "bool", false, |_, a| {
        Ok(Value::Bool(a.iter().all(|v| !empty(v))))
    });
    def(map, "any", &[], Some(ANY), "bool", false, |_, a| {
        Ok(Value::Bool(a.iter().any(|v| !empty(v))))
    });
    def(
        map,
        "ternary",
        &[ANY, ANY, ArgType::Bool],
        None,
        "interface {}",
        false,
        |_, a| {
            let pick = matches!(a[2], Value::Bool(true));
            Ok(if pick { a[0].clone() } else { a[1].clone() })
        },
    );
    def(map, "typeOf", &[ANY], None, "string", false, |_, a| {
        Ok(Value::from(a[0].type_name()))
    });
    def(map, "typeIs", &[STR, ANY], None, "bool", false, |_, a| {
        Ok(Value::Bool(s(&a, 0) == a[1].type_name()))
    });
    def(map, "kindOf", &[ANY], None, "string", false, |_, a| {
        Ok(Value::str(go_kind(&a[0])))
    });
    def(map, "kindIs", &[STR, ANY], None, "bool", false, |_, a| {
        Ok(Value::Bool(s(&a, 0) == go_kind(&a[1])))
    });
    def(
        map,
        "deepEqual",
        &[ANY, ANY],
        None,
        "bool",
        false,
        |_, a| Ok(Value::Bool(deep_equal(&a[0], &a[1]))),
    );
    def(map, "toString", &[ANY], None, "string", false, |_, a| {
        Ok(Value::from(strval(&a[0])))
    });
    def(map, "toStrings", &[ANY], None, "[]string", false, |_, a| {
        let items = strslice(&a[0]).into_iter().map(Value::from).collect();
        Ok(Value::List(List::typed(items, "string")))
    });
    def(map, "atoi", &[STR], None, "int", false, |_, a| {
        Ok(Value::int(atoi(s(&a, 0))))
    });
    def(map, "int", &[ANY], None, "int", false, |_, a| {
        Ok(Value::int(to_int64(&a[0])))
    });
    def(map, "int64", &[ANY], None, "int64", false, |_, a| {
        Ok(Value::int64(to_int64(&a[0])))
    });
    def(map, "float64", &[ANY], None, "float64", false, |_, a| {
        Ok(Value::Float(to_float64(&a[0])))
    });
    def(map, "add1", &[ANY], None, "int64", false, |_, a| {
        Ok(Value::int64(to_int64(&a[0]).wrapping_add(1)))
    });
    def(map, "add", &[], Some(ANY), "int64", false, |_, a| {
        Ok(Value::int64(
            a.iter().fold(0i64, |acc, v| acc.wrapping_add(to_int64(v))),
        ))
    });
    def(map, "mul", &[ANY], Some(ANY), "int64", false, |_, a| {
        Ok(Value::int64(
            a[1..]
                .iter()
                .fold(to_int64(&a[0]), |acc, v| acc.wrapping_mul(to_int64(v))),
        ))
    });
    for op in ["sub", "div", "mod"] {
        let f = match op {
            "sub" => |_: &mut dyn gotemplate::Context, a: Vec<Value>| {
                int_math("sub", to_int64(&a[0]), to_int64(&a[1])).map(Value::int64)
            },
            "div" => |_: &mut dyn gotemplate::Context, a: Vec<Value>| {
                int_math("div", to_int64(&a[0]), to_int64(&a[1])).map(Value::int64)
            },
            _ => |_: &mut dyn gotemplate::Context, a: Vec<Value>| {
                int_math("mod", to_int64(&a[0]), to_int64(&a[1])).map(Value::int64)
            },
        };
        def(map, op, &[ANY, ANY], None, "int64", false, f);
    }
    for name in ["max", "biggest"] {
        def(map, name, &[ANY], Some(ANY), "int64", false, |_, a| {
            Ok(Value::int64(
                a[1..].iter().map(to_int64).fold(to_int64(&a[0]), i64::max),
            ))
        });
    }
    def(map, "min", &[ANY], Some(ANY), "int64", false, |_, a| {
        Ok(Value::int64(
            a[1..].iter().map(to_int64).fold(to_int64(&a[0]), i64::min),
        ))
    });
    def(map, "until", &[INT], None, "[]int", false, |_, a| {
        let count = n(&a, 0);
        int_list(super::math::until_step(
            0,
            count,
            if count < 0 { -1 } else { 1 },
        ))
    });
    def(
        map,
        "untilStep",
        &[INT, INT, INT],
        None,
        "[]int",
        false,
        |_, a| int_list(super::math::until_step(n(&a, 0), n(&a, 1), n(&a, 2))),
    );
}

/// A Go `[]int` of `nums`.
fn int_list(nums: Result<Vec<i64>, FuncError>) -> Result<Value, FuncError> {
    let items = nums?.into_iter().map(Value::int).collect();
    Ok(Value::List(List::typed(items, "int")))
}

/// Sprig's `strslice`: a list's non-nil elements as strings; nil is an empty list; anything
/// else is a one-element list.
pub fn strslice(v: &Value) -> Vec<String> {
    match v {
        Value::List(l) => l
            .items()
            .iter()
            .filter(|x| !x.is_nil())
            .map(strval)
            .collect(),
        Value::Bytes(b) => b.iter().map(|x| x.to_string()).collect(),
        Value::Nil | Value::Invalid => Vec::new(),
        other => vec![strval(other)],
    }
}
