//! The function registry: Go's builtins, and later Sprig's and Helm's functions, plug in here.
//!
//! Each function declares Go's signature (parameter types, variadic tail), because Go checks the
//! number and types of arguments before the call and reports mismatches in its own words; the
//! executor does that checking (see [`convert_arg`]) so implementations only see well-typed values.
//! A later registration of a name replaces an earlier one, as Helm's Sprig `slice` replaces Go's.

use crate::HashMap;
use std::fmt;
use std::rc::Rc;

use crate::value::{IntKind, Value};

/// A Go parameter type, as far as templates can tell them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgType {
    /// `interface{}`: anything; no value becomes `Nil`.
    Any,
    /// `reflect.Value` (Go's own builtins): the raw value, no value included.
    Reflect,
    String,
    Bool,
    Int(IntKind),
    Float64,
    /// `[]interface{}`
    List,
    /// `map[string]interface{}`
    Map,
    /// `[]byte`
    Bytes,
    /// A named struct type such as `time.Time`: only an [`Object`](crate::Object) whose
    /// `type_name` is this name fits; Go never converts another value (not even `nil` or a
    /// literal) to a struct.
    Struct(&'static str),
    /// A Go interface type with methods (`io.Writer`) that no template value implements: only
    /// `nil` (or no value) fits, as its zero value; a literal cannot be converted to it.
    Interface(&'static str),
}

impl ArgType {
    /// Go's spelling of the type, as error messages print it.
    pub fn go_name(self) -> &'static str {
        match self {
            ArgType::Any => "interface {}",
            ArgType::Reflect => "reflect.Value",
            ArgType::String => "string",
            ArgType::Bool => "bool",
            ArgType::Int(k) => k.go_name(),
            ArgType::Float64 => "float64",
            ArgType::List => "[]interface {}",
            ArgType::Map => "map[string]interface {}",
            ArgType::Bytes => "[]uint8",
            ArgType::Struct(name) | ArgType::Interface(name) => name,
        }
    }

    /// Whether Go can assign `nil` to this type (interfaces, maps, slices).
    pub fn can_be_nil(self) -> bool {
        matches!(
            self,
            ArgType::Any | ArgType::List | ArgType::Map | ArgType::Bytes | ArgType::Interface(_)
        )
    }
}

/// An error returned by a function; the executor reports it as `error calling NAME: MESSAGE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FuncError(pub String);

impl FuncError {
    pub fn new(msg: impl Into<String>) -> FuncError {
        FuncError(msg.into())
    }
}

impl fmt::Display for FuncError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FuncError {}

impl From<String> for FuncError {
    fn from(s: String) -> FuncError {
        FuncError(s)
    }
}

impl From<&str> for FuncError {
    fn from(s: &str) -> FuncError {
        FuncError(s.to_string())
    }
}

/// What a running template offers to the functions it calls (Helm's `include` and `tpl` need it).
pub trait Context {
    /// Executes the named template of the running set with `data` as dot, returning its output
    /// (what `{{ template NAME DATA }}` would write). Starts a fresh execution, as Go's
    /// `ExecuteTemplate` does.
    fn execute_template(&mut self, name: &str, data: Value) -> Result<String, FuncError>;

    /// Parses `text` as a new template named `name` into a copy of the running set (so it sees
    /// the set's definitions, and its own `define`s do not leak back) and executes that new
    /// template with `data` (Go's `t.New(name).Parse(text)` then `t.Execute`: the text's own
    /// tree runs, also when it is empty and the set keeps an older template of that name).
    fn execute_text(&mut self, name: &str, text: &str, data: Value) -> Result<String, TextError>;
}

/// Why [`Context::execute_text`] failed: the text did not parse, or its execution failed
/// (callers word the two differently, as Helm's `tpl` does).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TextError {
    Parse(FuncError),
    Execute(FuncError),
}

impl From<TextError> for FuncError {
    fn from(e: TextError) -> FuncError {
        match e {
            TextError::Parse(e) | TextError::Execute(e) => e,
        }
    }
}

pub type FuncImpl = dyn Fn(&mut dyn Context, Vec<Value>) -> Result<Value, FuncError>;

/// A function callable from templates.
pub struct Func {
    /// Fixed parameters.
    pub params: Vec<ArgType>,
    /// The type of the `...` tail, if variadic.
    pub variadic: Option<ArgType>,
    /// Go's result type, for `%T` (for example `"string"`, `"interface {}"`).
    pub result: &'static str,
    /// Whether Go's signature also returns an `error`.
    pub returns_error: bool,
    /// One of Go's own builtins (decides the short-circuit of `and`/`or`, as in Go).
    pub builtin: bool,
    pub imp: Box<FuncImpl>,
}

impl Func {
    pub fn new(
        params: Vec<ArgType>,
        variadic: Option<ArgType>,
        result: &'static str,
        imp: impl Fn(&mut dyn Context, Vec<Value>) -> Result<Value, FuncError> + 'static,
    ) -> Func {
        Func {
            params,
            variadic,
            result,
            returns_error: true,
            builtin: false,
            imp: Box::new(imp),
        }
    }

    /// Go's type of the function, as `%T` prints it.
    pub fn go_type(&self) -> String {
        let mut parts: Vec<String> = self
            .params
            .iter()
            .map(|p| p.go_name().to_string())
            .collect();
        if let Some(v) = self.variadic {
            parts.push(format!("...{}", v.go_name()));
        }
        let result = if self.returns_error {
            format!(" ({}, error)", self.result)
        } else {
            format!(" {}", self.result)
        };
        format!("func({}){}", parts.join(", "), result)
    }

    /// The Go-worded error for a call with `got` arguments, or `None` when the count fits.
    pub fn arity_error(&self, name: &str, got: usize) -> Option<String> {
        let want = self.params.len();
        if self.variadic.is_some() {
            (got < want)
                .then(|| format!("wrong number of args for {name}: want at least {want} got {got}"))
        } else {
            (got != want).then(|| format!("wrong number of args for {name}: want {want} got {got}"))
        }
    }

    /// The parameter type of argument `i`.
    pub fn param(&self, i: usize) -> ArgType {
        self.params
            .get(i)
            .copied()
            .or(self.variadic)
            .unwrap_or(ArgType::Any)
    }
}

impl fmt::Debug for Func {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.go_type())
    }
}

/// Go's `validateType` for a computed (non-literal) argument: convert `value` to `ty` or say why
/// it cannot be, in Go's words. No value becomes the parameter's zero value where Go allows nil;
/// a nil `interface{}` (a YAML `null` reached through a field) fits only `interface{}` parameters.
pub fn convert_arg(ty: ArgType, value: Value) -> Result<Value, ArgError> {
    if value.is_invalid() {
        return match ty {
            ArgType::Reflect => Ok(Value::Invalid),
            t if t.can_be_nil() => Ok(Value::Nil),
            t => Err(ArgError::new(format!(
                "invalid value; expected {}",
                t.go_name()
            ))),
        };
    }
    let ok = match (ty, &value) {
        (ArgType::Any | ArgType::Reflect, _) => true,
        (ArgType::String, Value::String(_)) => true,
        (ArgType::Bool, Value::Bool(_)) => true,
        (ArgType::Int(k), Value::Int(_, vk)) => k == *vk,
        (ArgType::Float64, Value::Float(_)) => true,
        (ArgType::List, Value::List(l)) => l.elem_type() == "interface {}",
        // A named map type (`common.Values`) is assignable to its underlying
        // `map[string]interface{}`; other map types (`map[string]string`) are not.
        (ArgType::Map, Value::Map(m)) => {
            m.type_name() == "map[string]interface {}" || !m.type_name().starts_with("map[")
        }
        (ArgType::Bytes, Value::Bytes(_)) => true,
        (ArgType::Struct(name), Value::Object(o)) => o.type_name() == name,
        _ => false,
    };
    if ok {
        // Go converts the argument to the parameter's type: a named map becomes a plain one.
        if let (ArgType::Map, Value::Map(m)) = (ty, &value) {
            return Ok(Value::Map(m.retyped(None)));
        }
        return Ok(value);
    }
    let got = match value {
        Value::Nil => "interface {}".to_string(),
        other => other.type_name(),
    };
    Err(ArgError::new(format!(
        "wrong type for value; expected {}; got {got}",
        ty.go_name()
    )))
}

/// Why an argument does not fit its parameter's type, in Go's words (`wrong type for value;
/// expected string; got int`); callers add where (`arg 0: `, the executor's location).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ArgError {
    pub message: String,
}

impl ArgError {
    pub fn new(message: impl Into<String>) -> ArgError {
        ArgError {
            message: message.into(),
        }
    }
}

/// The methods of named map types (Helm's `common.Values`): the method `name` of `map` as a
/// function bound to it, or `None` when the map's type has no such method (then `.name` is a
/// key, as Go looks a method up before the key).
pub type MapMethods = dyn Fn(&crate::value::Map, &str) -> Option<Rc<Func>>;

/// Functions by name. Later inserts replace earlier ones.
#[derive(Clone, Default)]
pub struct FuncMap {
    funcs: HashMap<String, Rc<Func>>,
}

impl FuncMap {
    pub fn new() -> FuncMap {
        FuncMap::default()
    }

    /// Go's builtin functions (`and`, `or`, `not`, `len`, `index`, `slice`, `print`, `printf`,
    /// `println`, `eq`, `ne`, `lt`, `le`, `gt`, `ge`, `html`, `js`, `urlquery`, `call`).
    pub fn builtins() -> FuncMap {
        let mut map = FuncMap::new();
        crate::builtins::register(&mut map);
        map
    }

    pub fn insert(&mut self, name: impl Into<String>, func: Func) {
        self.funcs.insert(name.into(), Rc::new(func));
    }

    pub fn get(&self, name: &str) -> Option<&Rc<Func>> {
        self.funcs.get(name)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.funcs.contains_key(name)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.funcs.keys().map(String::as_str)
    }

    /// Adds every function of `other`, replacing same-named ones.
    pub fn extend(&mut self, other: FuncMap) {
        self.funcs.extend(other.funcs);
    }
}
