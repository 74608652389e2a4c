//! Go's builtin template functions with Go's exact semantics (Go 1.26 `text/template`):
//! `and`, `or`, `not`, `len`, `index`, `slice`, `print`, `printf`, `println`, `eq`, `ne`, `lt`,
//! `le`, `gt`, `ge`, `html`, `js`, `urlquery`, `call`.
//!
//! Go's builtins take `reflect.Value`s, so they see "no value" (`Value::Invalid`) and nil
//! interfaces (`Value::Nil`) as they are; both are Go's "untyped nil" once unwrapped.

use std::cmp::Ordering;

use crate::fmt::{sprint, sprintf, sprintln};
use crate::funcs::{ArgType, Context, Func, FuncError, FuncMap, convert_arg};
use crate::value::{IntKind, List, Value};

/// Registers Go's builtins into `map`.
pub fn register(map: &mut FuncMap) {
    use ArgType::{Any, Reflect, String};
    let mut add = |name: &str, params: Vec<ArgType>, variadic, result, returns_error, imp: Imp| {
        map.insert(
            name,
            Func {
                params,
                variadic,
                result,
                returns_error,
                builtin: true,
                imp: Box::new(move |_ctx, args| imp(args)),
            },
        );
    };
    add("and", vec![Reflect], Some(Reflect), "reflect.Value", false, and);
    add("or", vec![Reflect], Some(Reflect), "reflect.Value", false, or);
    add("not", vec![Reflect], None, "bool", false, not);
    add("len", vec![Reflect], None, "int", true, len);
    add("index", vec![Reflect], Some(Reflect), "reflect.Value", true, index);
    add("slice", vec![Reflect], Some(Reflect), "reflect.Value", true, slice);
    add("print", vec![], Some(Any), "string", false, |a| Ok(Value::from(sprint(&a))));
    add("println", vec![], Some(Any), "string", false, |a| Ok(Value::from(sprintln(&a))));
    add("printf", vec![String], Some(Any), "string", false, |a| {
        Ok(Value::from(sprintf(a[0].as_str().unwrap_or_default(), &a[1..])))
    });
    add("eq", vec![Reflect], Some(Reflect), "bool", true, |a| eq(&a[0], &a[1..]).map(Value::Bool));
    add("ne", vec![Reflect, Reflect], None, "bool", true, |a| {
        eq(&a[0], &a[1..2]).map(|e| Value::Bool(!e))
    });
    add("lt", vec![Reflect, Reflect], None, "bool", true, |a| lt(&a[0], &a[1]).map(Value::Bool));
    add("le", vec![Reflect, Reflect], None, "bool", true, |a| le(&a[0], &a[1]).map(Value::Bool));
    add("gt", vec![Reflect, Reflect], None, "bool", true, |a| {
        le(&a[0], &a[1]).map(|le| Value::Bool(!le))
    });
    add("ge", vec![Reflect, Reflect], None, "bool", true, |a| {
        lt(&a[0], &a[1]).map(|lt| Value::Bool(!lt))
    });
    add("html", vec![], Some(Any), "string", false, |a| Ok(Value::from(html_escape(&eval_args(&a)))));
    add("js", vec![], Some(Any), "string", false, |a| Ok(Value::from(js_escape(&eval_args(&a)))));
    add("urlquery", vec![], Some(Any), "string", false, |a| {
        Ok(Value::from(query_escape(&eval_args(&a))))
    });
    map.insert(
        "call",
        Func {
            params: vec![Reflect],
            variadic: Some(Reflect),
            result: "reflect.Value",
            returns_error: true,
            builtin: true,
            imp: Box::new(call),
        },
    );
}

type Imp = fn(Vec<Value>) -> Result<Value, FuncError>;

/// Go's `indirectInterface`: a nil interface is no value at all.
fn unwrap(v: &Value) -> Value {
    match v {
        Value::Nil => Value::Invalid,
        Value::Object(o) => o.as_value().unwrap_or_else(|| v.clone()),
        other => other.clone(),
    }
}

fn truth(v: &Value) -> bool {
    v.truth().unwrap_or(false)
}

/// Only reached when a caller replaced the executor's short-circuit (never for the builtin
/// itself): the first falsy argument, or the last.
fn and(args: Vec<Value>) -> Result<Value, FuncError> {
    let last = args.len() - 1;
    Ok(args.iter().position(|a| !truth(a)).map_or(args[last].clone(), |i| args[i].clone()))
}

fn or(args: Vec<Value>) -> Result<Value, FuncError> {
    let last = args.len() - 1;
    Ok(args.iter().position(truth).map_or(args[last].clone(), |i| args[i].clone()))
}

fn not(args: Vec<Value>) -> Result<Value, FuncError> {
    Ok(Value::Bool(!truth(&args[0])))
}

fn len(args: Vec<Value>) -> Result<Value, FuncError> {
    let n = match &args[0] {
        Value::Invalid => return Err("reflect: call of reflect.Value.Type on zero Value".into()),
        Value::Nil => return Err("len of nil pointer".into()),
        Value::String(s) => s.len(),
        Value::Bytes(b) => b.len(),
        Value::List(l) => l.len(),
        Value::Map(m) => m.len(),
        Value::Object(o) => match o.len() {
            Some(n) => n,
            None => return Err(format!("len of type {}", o.type_name()).into()),
        },
        other => return Err(format!("len of type {}", other.type_name()).into()),
    };
    Ok(Value::int(n as i64))
}

/// Go's `indexArg`: an integer index within `0..=cap` (the upper bound is Go's; the access
/// that follows reports `cap` itself as out of range).
fn index_arg(index: &Value, cap: usize) -> Result<usize, FuncError> {
    let x = match unwrap(index) {
        Value::Int(n, _) => n,
        Value::Invalid => return Err("cannot index slice/array with nil".into()),
        other => {
            return Err(format!("cannot index slice/array with type {}", other.type_name()).into());
        }
    };
    if x < 0 || x as u64 > cap as u64 {
        return Err(format!("index out of range: {x}").into());
    }
    Ok(x as usize)
}

fn index(args: Vec<Value>) -> Result<Value, FuncError> {
    let mut item = unwrap(&args[0]);
    if item.is_invalid() {
        return Err("index of untyped nil".into());
    }
    for key in &args[1..] {
        item = match &item {
            Value::Nil | Value::Invalid => return Err("index of nil pointer".into()),
            Value::List(l) => {
                let i = index_arg(key, l.len())?;
                l.items().get(i).cloned().ok_or("reflect: slice index out of range")?
            }
            Value::Bytes(b) => {
                let i = index_arg(key, b.len())?;
                let byte = b.get(i).ok_or("reflect: slice index out of range")?;
                Value::Int(*byte as i64, IntKind::Uint8)
            }
            Value::String(s) => {
                let i = index_arg(key, s.len())?;
                let byte = s.as_bytes().get(i).ok_or("reflect: string index out of range")?;
                Value::Int(*byte as i64, IntKind::Uint8)
            }
            Value::Map(m) => match unwrap(key) {
                Value::String(key) => m.get(&key).unwrap_or(Value::Nil),
                Value::Invalid => return Err("value is nil; should be of type string".into()),
                other => {
                    return Err(format!(
                        "value has type {}; should be string",
                        other.type_name()
                    )
                    .into());
                }
            },
            Value::Object(o) => match o.as_value() {
                Some(inner) => index(vec![inner, key.clone()])?,
                None => return Err(format!("can't index item of type {}", o.type_name()).into()),
            },
            other => return Err(format!("can't index item of type {}", other.type_name()).into()),
        };
        // A nil element stays a nil interface: the next step reports "index of nil pointer".
        if let Value::Object(o) = &item
            && let Some(inner) = o.as_value()
        {
            item = inner;
        }
    }
    Ok(item)
}

fn slice(args: Vec<Value>) -> Result<Value, FuncError> {
    let item = unwrap(&args[0]);
    let indexes = &args[1..];
    if item.is_invalid() {
        return Err("slice of untyped nil".into());
    }
    if indexes.len() > 3 {
        return Err(format!("too many slice indexes: {}", indexes.len()).into());
    }
    let len = match &item {
        Value::String(s) => {
            if indexes.len() == 3 {
                return Err("cannot 3-index slice a string".into());
            }
            s.len()
        }
        Value::List(l) => l.len(),
        Value::Bytes(b) => b.len(),
        other => return Err(format!("can't slice item of type {}", other.type_name()).into()),
    };
    let mut idx = [0, len, len];
    for (i, index) in indexes.iter().enumerate() {
        idx[i] = index_arg(index, len)?;
    }
    if idx[0] > idx[1] {
        return Err(format!("invalid slice index: {} > {}", idx[0], idx[1]).into());
    }
    if indexes.len() == 3 && idx[1] > idx[2] {
        return Err(format!("invalid slice index: {} > {}", idx[1], idx[2]).into());
    }
    let (start, end) = (idx[0], idx[1]);
    Ok(match &item {
        Value::String(s) => match s.get(start..end) {
            Some(sub) => Value::str(sub),
            None => Value::from(String::from_utf8_lossy(&s.as_bytes()[start..end]).into_owned()),
        },
        Value::List(l) => Value::List(List::typed(l.items()[start..end].to_vec(), l.elem_type())),
        Value::Bytes(b) => Value::Bytes(b[start..end].into()),
        _ => unreachable!("checked above"),
    })
}

/// Go's comparison classes (`basicKind`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bool,
    Int,
    Uint,
    Float,
    String,
    Invalid,
}

fn basic_kind(v: &Value) -> Kind {
    match v {
        Value::Bool(_) => Kind::Bool,
        Value::Int(_, k) if k.is_unsigned() => Kind::Uint,
        Value::Int(..) => Kind::Int,
        Value::Float(_) => Kind::Float,
        Value::String(_) => Kind::String,
        _ => Kind::Invalid,
    }
}

fn as_int(v: &Value) -> i64 {
    match v {
        Value::Int(n, _) => *n,
        _ => 0,
    }
}

fn incompatible(a: &Value, b: &Value) -> FuncError {
    format!("incompatible types for comparison: {} and {}", a.type_name(), b.type_name()).into()
}

fn eq(arg1: &Value, rest: &[Value]) -> Result<bool, FuncError> {
    let arg1 = unwrap(arg1);
    if rest.is_empty() {
        return Err("missing argument for comparison".into());
    }
    let k1 = basic_kind(&arg1);
    for arg in rest {
        let arg = unwrap(arg);
        let k2 = basic_kind(&arg);
        let truth = if k1 != k2 {
            match (k1, k2) {
                // Integers compare by value whatever their signedness (values are held as i64).
                (Kind::Int, Kind::Uint) | (Kind::Uint, Kind::Int) => as_int(&arg1) == as_int(&arg),
                _ if !arg1.is_invalid() && !arg.is_invalid() => {
                    return Err(incompatible(&arg1, &arg));
                }
                _ => false,
            }
        } else {
            match (&arg1, &arg) {
                (Value::Bool(a), Value::Bool(b)) => a == b,
                (Value::Int(a, _), Value::Int(b, _)) => a == b,
                (Value::Float(a), Value::Float(b)) => a == b,
                (Value::String(a), Value::String(b)) => a == b,
                (Value::Invalid, _) | (_, Value::Invalid) => arg1.is_invalid() && arg.is_invalid(),
                (Value::Object(a), Value::Object(b)) if a.type_name() == b.type_name() => {
                    std::rc::Rc::ptr_eq(a, b)
                }
                _ if arg1.type_name() != arg.type_name() => {
                    return Err(format!(
                        "non-comparable types {}: {}, {}: {}",
                        sprintf("%s", std::slice::from_ref(&arg1)),
                        arg1.type_name(),
                        arg.type_name(),
                        sprint(std::slice::from_ref(&arg))
                    )
                    .into());
                }
                _ => {
                    return Err(format!(
                        "non-comparable type {}: {}",
                        sprintf("%s", std::slice::from_ref(&arg)),
                        arg.type_name()
                    )
                    .into());
                }
            }
        };
        if truth {
            return Ok(true);
        }
    }
    Ok(false)
}

fn lt(arg1: &Value, arg2: &Value) -> Result<bool, FuncError> {
    let (a, b) = (unwrap(arg1), unwrap(arg2));
    let (k1, k2) = (basic_kind(&a), basic_kind(&b));
    if k1 == Kind::Invalid || k2 == Kind::Invalid {
        return Err("invalid type for comparison".into());
    }
    if k1 != k2 {
        return match (k1, k2) {
            (Kind::Int, Kind::Uint) | (Kind::Uint, Kind::Int) => Ok(as_int(&a) < as_int(&b)),
            _ => Err(incompatible(&a, &b)),
        };
    }
    Ok(match (&a, &b) {
        (Value::Int(x, _), Value::Int(y, _)) => x < y,
        (Value::Float(x), Value::Float(y)) => x.partial_cmp(y) == Some(Ordering::Less),
        (Value::String(x), Value::String(y)) => x.as_bytes() < y.as_bytes(),
        _ => return Err("invalid type for comparison".into()),
    })
}

fn le(a: &Value, b: &Value) -> Result<bool, FuncError> {
    if lt(a, b)? {
        return Ok(true);
    }
    eq(a, std::slice::from_ref(b))
}

/// Go's `evalArgs`: one string argument as is, anything else as `fmt.Sprint` prints it, with
/// no value shown as `<no value>`.
fn eval_args(args: &[Value]) -> String {
    if let [Value::String(s)] = args {
        return s.to_string();
    }
    let shown: Vec<Value> = args
        .iter()
        .map(|a| match a {
            Value::Nil | Value::Invalid => Value::str("<no value>"),
            other => other.clone(),
        })
        .collect();
    sprint(&shown)
}

/// Go's `HTMLEscapeString`.
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\0' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// Go's `JSEscapeString`.
pub fn js_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '<' => out.push_str("\\u003C"),
            '>' => out.push_str("\\u003E"),
            '&' => out.push_str("\\u0026"),
            '=' => out.push_str("\\u003D"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c if (c as u32) < 0x80 => out.push(c),
            c if is_print(c) => out.push(c),
            c => out.push_str(&format!("\\u{:04X}", c as u32)),
        }
    }
    out
}

/// Go's `url.QueryEscape`.
pub fn query_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(b as char),
            b' ' => out.push('+'),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// `call FN ARGS...`; the executor passes the callee's name first (Go's error messages use it).
fn call(ctx: &mut dyn Context, args: Vec<Value>) -> Result<Value, FuncError> {
    let name = args[0].as_str().unwrap_or_default().to_string();
    let func = match unwrap(&args[1]) {
        Value::Invalid => return Err("call of nil".into()),
        Value::Func(f) => f,
        other => {
            return Err(format!("non-function {name} of type {}", other.type_name()).into());
        }
    };
    let call_args = &args[2..];
    let want = func.params.len();
    if func.variadic.is_some() && call_args.len() < want {
        return Err(format!(
            "wrong number of args for {name}: got {} want at least {want}",
            call_args.len()
        )
        .into());
    }
    if func.variadic.is_none() && call_args.len() != want {
        return Err(
            format!("wrong number of args for {name}: got {} want {want}", call_args.len()).into(),
        );
    }
    let mut argv = Vec::with_capacity(call_args.len());
    for (i, arg) in call_args.iter().enumerate() {
        let converted = convert_arg(func.param(i), unwrap(arg))
            .map_err(|e| FuncError::new(format!("arg {i}: {e}")))?;
        argv.push(converted);
    }
    (func.imp)(ctx, argv)
}

/// Go's `unicode.IsPrint`, approximated with Rust's classes: graphic characters and the ASCII
/// space (other spaces, controls and format characters are not printable).
fn is_print(c: char) -> bool {
    c == ' '
        || !(c.is_control()
            || c.is_whitespace()
            || matches!(c as u32, 0xAD | 0x600..=0x605 | 0x200B..=0x200F | 0x2028..=0x202E | 0x2060..=0x206F | 0xFEFF | 0xFFF9..=0xFFFB | 0xE000..=0xF8FF))
}
