//! Go's builtin template functions with Go's exact semantics (Go 1.26 `text/template/funcs.go`).
//!
//! Each function sees its arguments as Go's `reflect.Value` builtins see them: `Value::Invalid` is
//! an invalid `reflect.Value` (a missing key, a literal `nil`), `Value::Nil` a nil interface (a
//! computed null). Most builtins look through interfaces first, so both behave alike; where Go
//! tells them apart (`len`, `index` of a nil element, `slice` indexes) so do these.
//!
//! `and` and `or` are registered for completeness; the executor short-circuits them itself, as Go
//! does. `call` expects the executor to pass the callee's expression text (Go's name for it in
//! error messages) as an extra first argument, as Go's `evalCall` does.

use std::rc::Rc;

use crate::fmt;
use crate::funcs::{ArgError, ArgType, Context, Func, FuncError, FuncMap};
use crate::value::{IntKind, List, Value};

type R = Result<Value, FuncError>;

fn builtin(
    params: Vec<ArgType>,
    variadic: Option<ArgType>,
    result: &'static str,
    returns_error: bool,
    imp: impl Fn(&mut dyn Context, Vec<Value>) -> R + 'static,
) -> Func {
    Func {
        params,
        variadic,
        result,
        returns_error,
        builtin: true,
        imp: Box::new(imp),
    }
}

/// Registers Go's builtins into `map`.
pub fn register(map: &mut FuncMap) {
    use ArgType::{Any, Reflect};
    let rv = "reflect.Value";
    map.insert(
        "and",
        builtin(vec![Reflect], Some(Reflect), rv, false, |_, a| Ok(and(&a))),
    );
    map.insert(
        "or",
        builtin(vec![Reflect], Some(Reflect), rv, false, |_, a| Ok(or(&a))),
    );
    map.insert(
        "not",
        builtin(vec![Reflect], None, "bool", false, |_, a| {
            Ok(Value::Bool(!truth(&a[0])))
        }),
    );
    map.insert(
        "len",
        builtin(vec![Reflect], None, "int", true, |_, a| length(&a[0])),
    );
    map.insert(
        "index",
        builtin(vec![Reflect], Some(Reflect), rv, true, |_, a| {
            index(&a[0], &a[1..])
        }),
    );
    map.insert(
        "slice",
        builtin(vec![Reflect], Some(Reflect), rv, true, |_, a| {
            slice(&a[0], &a[1..])
        }),
    );
    map.insert(
        "call",
        builtin(vec![Reflect], Some(Reflect), rv, false, call_builtin),
    );
    map.insert(
        "print",
        builtin(vec![], Some(Any), "string", false, |_, a| {
            Ok(Value::from(fmt::sprint(&a)))
        }),
    );
    map.insert(
        "printf",
        builtin(vec![ArgType::String], Some(Any), "string", false, |_, a| {
            let format = a[0].as_str().unwrap_or_default().to_string();
            Ok(Value::from(fmt::sprintf(&format, &a[1..])))
        }),
    );
    map.insert(
        "println",
        builtin(vec![], Some(Any), "string", false, |_, a| {
            Ok(Value::from(fmt::sprintln(&a)))
        }),
    );
    map.insert(
        "html",
        builtin(vec![], Some(Any), "string", false, |_, a| {
            Ok(Value::from(html_escape(&eval_args(&a))))
        }),
    );
    map.insert(
        "js",
        builtin(vec![], Some(Any), "string", false, |_, a| {
            Ok(Value::from(js_escape(&eval_args(&a))))
        }),
    );
    map.insert(
        "urlquery",
        builtin(vec![], Some(Any), "string", false, |_, a| {
            Ok(Value::from(query_escape(&eval_args(&a))))
        }),
    );
    let cmp = |f: fn(&Value, &Value) -> Result<bool, FuncError>| {
        builtin(vec![Reflect, Reflect], None, "bool", true, move |_, a| {
            f(&a[0], &a[1]).map(Value::Bool)
        })
    };
    map.insert(
        "eq",
        builtin(vec![Reflect], Some(Reflect), "bool", true, |_, a| {
            eq(&a[0], &a[1..]).map(Value::Bool)
        }),
    );
    map.insert("ne", cmp(ne));
    map.insert("lt", cmp(lt));
    map.insert("le", cmp(le));
    map.insert("gt", cmp(gt));
    map.insert("ge", cmp(ge));
}

// ---------------------------------------------------------------------------------------------
// Helpers.

/// Go's `indirectInterface`: a nil interface becomes the invalid value; a named type exposed as an
/// object with a plain value underneath becomes that value.
fn concrete(v: &Value) -> Value {
    match v {
        Value::Nil => Value::Invalid,
        Value::Object(o) => o.as_value().unwrap_or_else(|| v.clone()),
        _ => v.clone(),
    }
}

/// Go's `truth` of a builtin argument: `isTrue` of the value inside the interface.
pub fn truth(v: &Value) -> bool {
    concrete(v).truth().unwrap_or(false)
}

fn err<T>(msg: impl Into<String>) -> Result<T, FuncError> {
    Err(FuncError::new(msg))
}

// ---------------------------------------------------------------------------------------------
// Boolean logic.

/// `and`: the first false argument, or the last (the executor short-circuits instead).
pub fn and(args: &[Value]) -> Value {
    args.iter()
        .find(|v| !truth(v))
        .or(args.last())
        .cloned()
        .unwrap_or(Value::Invalid)
}

/// `or`: the first true argument, or the last (the executor short-circuits instead).
pub fn or(args: &[Value]) -> Value {
    args.iter()
        .find(|v| truth(v))
        .or(args.last())
        .cloned()
        .unwrap_or(Value::Invalid)
}

// ---------------------------------------------------------------------------------------------
// len, index, slice.

/// The type Go's `indirect` leaves: a pointer's element type (`len` and `index` name it).
fn indirect_type(item: &Value) -> String {
    let name = item.type_name();
    match name.strip_prefix('*') {
        Some(elem) => elem.to_string(),
        None => name,
    }
}

/// `len`: bytes of a string, elements of a list, map or `[]byte`.
pub fn length(item: &Value) -> R {
    let n = match item {
        // Go calls Type() on the invalid value and reports reflect's panic.
        Value::Invalid => return err("reflect: call of reflect.Value.Type on zero Value"),
        Value::Nil => return err("len of nil pointer"),
        Value::String(s) => s.len(),
        Value::Bytes(b) => b.len(),
        Value::List(l) => l.len(),
        Value::Map(m) => m.len(),
        Value::Object(o) => match o.len() {
            Some(n) => n,
            None => match o.as_value() {
                Some(v) => return length(&v),
                None => return err(format!("len of type {}", indirect_type(item))),
            },
        },
        other => return err(format!("len of type {}", other.type_name())),
    };
    Ok(Value::int(n as i64))
}

/// Go's `indexArg`: an index into something of length `cap`. A nil interface (`Value::Nil`) is
/// "nil" when `nil_interface_is_nil` (Go's `index` looks through interfaces first) and an
/// `interface {}` otherwise (Go's `slice` does not).
fn index_arg(index: &Value, cap: usize, nil_interface_is_nil: bool) -> Result<usize, FuncError> {
    let x = match index {
        Value::Int(n, _) => *n,
        Value::Invalid => return err("cannot index slice/array with nil"),
        Value::Nil if nil_interface_is_nil => return err("cannot index slice/array with nil"),
        Value::Nil => return err("cannot index slice/array with type interface {}"),
        other => {
            return err(format!(
                "cannot index slice/array with type {}",
                other.type_name()
            ));
        }
    };
    if x < 0 || x as u64 > cap as u64 {
        return err(format!("index out of range: {x}"));
    }
    Ok(x as usize)
}

/// `index item i j ...`: `item[i][j]...` over lists, strings, `[]byte` and maps.
pub fn index(item: &Value, indexes: &[Value]) -> R {
    let mut item = concrete(item);
    if item.is_invalid() {
        return err("index of untyped nil");
    }
    for idx in indexes {
        if matches!(item, Value::Nil) {
            return err("index of nil pointer");
        }
        let item_c = concrete(&item);
        let idx = concrete(idx);
        item = match &item_c {
            Value::List(l) => {
                let x = index_arg(&idx, l.len(), true)?;
                match l.items().get(x) {
                    Some(v) => v.clone(),
                    None => return err("reflect: slice index out of range"),
                }
            }
            Value::Bytes(b) => {
                let x = index_arg(&idx, b.len(), true)?;
                match b.get(x) {
                    Some(&c) => Value::Int(c as i64, IntKind::Uint8),
                    None => return err("reflect: slice index out of range"),
                }
            }
            Value::String(s) => {
                let x = index_arg(&idx, s.len(), true)?;
                match s.as_bytes().get(x) {
                    Some(&c) => Value::Int(c as i64, IntKind::Uint8),
                    None => return err("reflect: string index out of range"),
                }
            }
            Value::Map(m) => match &idx {
                Value::String(k) => m.get(k).unwrap_or(Value::Nil),
                Value::Invalid | Value::Nil => {
                    return err("value is nil; should be of type string");
                }
                other => {
                    return err(format!(
                        "value has type {}; should be string",
                        other.type_name()
                    ));
                }
            },
            other => return err(format!("can't index item of type {}", indirect_type(other))),
        };
    }
    Ok(item)
}

/// `slice item [i [j [k]]]`: Go's `item[i:j:k]` over lists, strings and `[]byte`.
pub fn slice(item: &Value, indexes: &[Value]) -> R {
    let item = concrete(item);
    if item.is_invalid() {
        return err("slice of untyped nil");
    }
    if indexes.len() > 3 {
        return err(format!("too many slice indexes: {}", indexes.len()));
    }
    let len = match &item {
        Value::String(s) => {
            if indexes.len() == 3 {
                return err("cannot 3-index slice a string");
            }
            s.len()
        }
        Value::List(l) => l.len(),
        Value::Bytes(b) => b.len(),
        other => return err(format!("can't slice item of type {}", other.type_name())),
    };
    // Go checks against the capacity; our slices' capacity is their length.
    let cap = len;
    let mut idx = [0, len, cap];
    for (i, index) in indexes.iter().enumerate() {
        idx[i] = index_arg(index, cap, false)?;
    }
    if idx[0] > idx[1] {
        return err(format!("invalid slice index: {} > {}", idx[0], idx[1]));
    }
    if indexes.len() == 3 && idx[1] > idx[2] {
        return err(format!("invalid slice index: {} > {}", idx[1], idx[2]));
    }
    let (i, j) = (idx[0], idx[1]);
    Ok(match &item {
        Value::String(s) => Value::from(String::from_utf8_lossy(&s.as_bytes()[i..j]).into_owned()),
        Value::List(l) => Value::List(List::typed(l.items()[i..j].to_vec(), l.elem_type())),
        Value::Bytes(b) => Value::Bytes(Rc::from(&b[i..j])),
        _ => unreachable!(),
    })
}

// ---------------------------------------------------------------------------------------------
// call.

fn call_builtin(ctx: &mut dyn Context, args: Vec<Value>) -> R {
    // The executor passes the callee's name first (see the module doc).
    let (name, rest) = match args.split_first() {
        Some((Value::String(name), rest)) if !rest.is_empty() => (name.to_string(), rest),
        _ => ("fn".to_string(), &args[..]),
    };
    match rest.split_first() {
        Some((func, rest)) => call(ctx, &name, func, rest),
        None => err("call of nil"),
    }
}

/// Go's `call fn args...`: checks the arguments against `fn`'s signature in `call`'s own words
/// (`name` is the callee's expression text, as Go reports it) and calls it.
pub fn call(ctx: &mut dyn Context, name: &str, func: &Value, args: &[Value]) -> R {
    let f = match concrete(func) {
        Value::Invalid => return err("call of nil"),
        Value::Func(f) => f,
        other => return err(format!("non-function {name} of type {}", other.type_name())),
    };
    let num_in = f.params.len();
    if f.variadic.is_some() {
        if args.len() < num_in {
            return err(format!(
                "wrong number of args for {name}: got {} want at least {num_in}",
                args.len()
            ));
        }
    } else if args.len() != num_in {
        return err(format!(
            "wrong number of args for {name}: got {} want {num_in}",
            args.len()
        ));
    }
    let mut argv = Vec::with_capacity(args.len());
    for (i, arg) in args.iter().enumerate() {
        let v = prepare_arg(concrete(arg), f.param(i))
            .map_err(|e| FuncError::new(format!("arg {i}: {e}")))?;
        argv.push(v);
    }
    (f.imp)(ctx, argv)
}

/// Go's `prepareArg`: `value` for a parameter of type `ty`, converting between integer types.
pub fn prepare_arg(value: Value, ty: ArgType) -> Result<Value, ArgError> {
    if ty == ArgType::Reflect {
        return Ok(value);
    }
    if value.is_nil() {
        if !ty.can_be_nil() {
            return Err(ArgError::new(format!(
                "value is nil; should be of type {}",
                ty.go_name()
            )));
        }
        return Ok(Value::Nil);
    }
    let ok = match (ty, &value) {
        (ArgType::Any, _) => true,
        (ArgType::String, Value::String(_)) => true,
        (ArgType::Bool, Value::Bool(_)) => true,
        (ArgType::Float64, Value::Float(_)) => true,
        (ArgType::List, Value::List(l)) => l.elem_type() == "interface {}",
        // A named map type is assignable to the unnamed map type with its underlying type.
        (ArgType::Map, Value::Map(_)) => true,
        (ArgType::Bytes, Value::Bytes(_)) => true,
        (ArgType::Struct(name), Value::Object(o)) => o.type_name() == name,
        (ArgType::Int(k), Value::Int(n, _)) => return Ok(convert_int(*n, k)),
        _ => false,
    };
    if ok {
        Ok(value)
    } else {
        Err(ArgError::new(format!(
            "value has type {}; should be {}",
            value.type_name(),
            ty.go_name()
        )))
    }
}

/// Go's integer conversion `T(n)`: truncates to the width of `kind`.
pub fn convert_int(n: i64, kind: IntKind) -> Value {
    let v = match kind {
        IntKind::Int8 => n as i8 as i64,
        IntKind::Int16 => n as i16 as i64,
        IntKind::Int32 => n as i32 as i64,
        IntKind::Uint8 => n as u8 as i64,
        IntKind::Uint16 => n as u16 as i64,
        IntKind::Uint32 => n as u32 as i64,
        _ => n,
    };
    Value::Int(v, kind)
}

// ---------------------------------------------------------------------------------------------
// Comparison.

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bool,
    Int,
    Uint,
    Float,
    String,
    /// Not a basic kind (Go's `invalidKind`): nil, maps, slices, funcs, structs.
    Other,
}

fn basic_kind(v: &Value) -> Kind {
    match v {
        Value::Bool(_) => Kind::Bool,
        Value::Int(_, k) if k.is_unsigned() => Kind::Uint,
        Value::Int(..) => Kind::Int,
        Value::Float(_) => Kind::Float,
        Value::String(_) => Kind::String,
        _ => Kind::Other,
    }
}

fn int_of(v: &Value) -> i64 {
    match v {
        Value::Int(n, _) => *n,
        _ => 0,
    }
}

fn uint_of(v: &Value) -> u64 {
    int_of(v) as u64
}

fn float_of(v: &Value) -> f64 {
    match v {
        Value::Float(f) => *f,
        _ => 0.0,
    }
}

fn str_of(v: &Value) -> &str {
    v.as_str().unwrap_or_default()
}

/// Go's `reflect.Kind` as far as `canCompare` tells them apart.
fn reflect_kind(v: &Value) -> u8 {
    match v {
        Value::Invalid | Value::Nil => 0,
        Value::List(_) | Value::Bytes(_) => 1,
        Value::Map(_) => 2,
        Value::Func(_) => 3,
        Value::Object(_) => 4,
        _ => 5,
    }
}

/// `eq arg1 arg2...`: whether `arg1` equals any of the others, with Go's type rules.
pub fn eq(arg1: &Value, args: &[Value]) -> Result<bool, FuncError> {
    let a1 = concrete(arg1);
    if args.is_empty() {
        return err("missing argument for comparison");
    }
    let k1 = basic_kind(&a1);
    for arg in args {
        let a = concrete(arg);
        let k2 = basic_kind(&a);
        let truth = if k1 != k2 {
            match (k1, k2) {
                (Kind::Int, Kind::Uint) => int_of(&a1) >= 0 && int_of(&a1) as u64 == uint_of(&a),
                (Kind::Uint, Kind::Int) => int_of(&a) >= 0 && uint_of(&a1) == int_of(&a) as u64,
                _ => {
                    if !a1.is_invalid() && !a.is_invalid() {
                        return err(format!(
                            "incompatible types for comparison: {} and {}",
                            a1.type_name(),
                            a.type_name()
                        ));
                    }
                    false
                }
            }
        } else {
            match k1 {
                Kind::Bool => a1.truth() == a.truth(),
                Kind::Float => float_of(&a1) == float_of(&a),
                Kind::Int => int_of(&a1) == int_of(&a),
                Kind::Uint => uint_of(&a1) == uint_of(&a),
                Kind::String => str_of(&a1) == str_of(&a),
                Kind::Other => {
                    let (kd1, kd2) = (reflect_kind(&a1), reflect_kind(&a));
                    if kd1 != kd2 && kd1 != 0 && kd2 != 0 {
                        return err(format!(
                            "non-comparable types {}: {}, {}: {}",
                            fmt::sprintf("%s", std::slice::from_ref(&a1)),
                            a1.type_name(),
                            a.type_name(),
                            fmt::sprint_value(&a)
                        ));
                    }
                    if a1.is_invalid() || a.is_invalid() {
                        a1.is_invalid() == a.is_invalid()
                    } else {
                        match (&a1, &a) {
                            (Value::Object(x), Value::Object(y)) => {
                                std::ptr::addr_eq(Rc::as_ptr(x), Rc::as_ptr(y))
                            }
                            _ => {
                                return err(format!(
                                    "non-comparable type {}: {}",
                                    fmt::sprintf("%s", std::slice::from_ref(&a)),
                                    a.type_name()
                                ));
                            }
                        }
                    }
                }
            }
        };
        if truth {
            return Ok(true);
        }
    }
    Ok(false)
}

/// `ne a b`: `!(a == b)`.
pub fn ne(a: &Value, b: &Value) -> Result<bool, FuncError> {
    eq(a, std::slice::from_ref(b)).map(|t| !t)
}

/// `lt a b`: ordering of basic kinds only.
pub fn lt(arg1: &Value, arg2: &Value) -> Result<bool, FuncError> {
    let a1 = concrete(arg1);
    let k1 = basic_kind(&a1);
    if k1 == Kind::Other {
        return err("invalid type for comparison");
    }
    let a2 = concrete(arg2);
    let k2 = basic_kind(&a2);
    if k2 == Kind::Other {
        return err("invalid type for comparison");
    }
    if k1 != k2 {
        return match (k1, k2) {
            (Kind::Int, Kind::Uint) => Ok(int_of(&a1) < 0 || (int_of(&a1) as u64) < uint_of(&a2)),
            (Kind::Uint, Kind::Int) => Ok(int_of(&a2) >= 0 && uint_of(&a1) < int_of(&a2) as u64),
            _ => err(format!(
                "incompatible types for comparison: {} and {}",
                a1.type_name(),
                a2.type_name()
            )),
        };
    }
    Ok(match k1 {
        Kind::Float => float_of(&a1) < float_of(&a2),
        Kind::Int => int_of(&a1) < int_of(&a2),
        Kind::Uint => uint_of(&a1) < uint_of(&a2),
        Kind::String => str_of(&a1) < str_of(&a2),
        Kind::Bool | Kind::Other => return err("invalid type for comparison"),
    })
}

/// `le a b`: `a < b || a == b`.
pub fn le(a: &Value, b: &Value) -> Result<bool, FuncError> {
    if lt(a, b)? {
        return Ok(true);
    }
    eq(a, std::slice::from_ref(b))
}

/// `gt a b`: `!(a <= b)`.
pub fn gt(a: &Value, b: &Value) -> Result<bool, FuncError> {
    le(a, b).map(|t| !t)
}

/// `ge a b`: `!(a < b)`.
pub fn ge(a: &Value, b: &Value) -> Result<bool, FuncError> {
    lt(a, b).map(|t| !t)
}

// ---------------------------------------------------------------------------------------------
// Escapers.

/// Go's `evalArgs` for `html`, `js` and `urlquery`: a lone string as is, otherwise
/// `fmt.Sprint` of the arguments with nil ones printed as `<no value>`.
pub fn eval_args(args: &[Value]) -> String {
    if let [Value::String(s)] = args {
        return s.to_string();
    }
    let args: Vec<Value> = args
        .iter()
        .map(|a| {
            if a.is_nil() {
                Value::str("<no value>")
            } else {
                a.clone()
            }
        })
        .collect();
    fmt::sprint(&args)
}

/// Go's `template.HTMLEscapeString`.
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\0' => out.push('\u{FFFD}'),
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// Go's `template.JSEscapeString`.
pub fn js_escape(s: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
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
            c if (c as u32) < 0x20 => {
                out.push_str("\\u00");
                out.push(HEX[(c as usize) >> 4] as char);
                out.push(HEX[(c as usize) & 0xF] as char);
            }
            c if c.is_ascii() || fmt::is_print(c) => out.push(c),
            c => out.push_str(&format!("\\u{:04X}", c as u32)),
        }
    }
    out
}

/// Go's `url.QueryEscape`.
pub fn query_escape(s: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => {
                out.push('%');
                out.push(HEX[(b >> 4) as usize] as char);
                out.push(HEX[(b & 0xF) as usize] as char);
            }
        }
    }
    out
}
