//! The value model: the Go values that Helm templates see, with Go's types showing through.
//!
//! Go facts this model keeps:
//! - `Invalid` is Go's zero `reflect.Value` ("no value"): what a pipeline yields for a missing map
//!   key or a nil interface. Printed directly it is `<no value>`. Functions never receive it: when
//!   passed as an argument it becomes `Nil` (for `interface{}` parameters) or an error.
//! - `Nil` is a nil `interface{}` stored in data (a YAML `null`) or passed to a function. `fmt`
//!   prints it as `<nil>`.
//! - Integers remember their Go type (`int` for template literals and `len`, `int64` for `--set`
//!   and Sprig math, …), floats are `float64`: `%T`, `eq` and Sprig depend on it.
//! - Maps are shared, mutable references (Go maps are): Sprig's `set`/`merge` change them in
//!   place and every holder sees it. Keys are sorted bytewise, as Go prints and ranges over them.
//! - Lists are immutable shared slices; nothing in Go templates or Sprig writes into a slice.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;

use crate::funcs::Func;
use crate::text::Str;

/// A Go value as seen by a template.
#[derive(Clone, Default)]
pub enum Value {
    /// Go's invalid `reflect.Value`: "no value" (missing key, nil interface result).
    #[default]
    Invalid,
    /// A nil `interface{}` (YAML `null`, a `nil` argument).
    Nil,
    Bool(bool),
    /// A Go integer of the given type.
    Int(i64, IntKind),
    /// A Go `float64`.
    Float(f64),
    String(Str),
    /// A Go `[]byte`.
    Bytes(Rc<[u8]>),
    List(List),
    Map(Map),
    /// A Go struct or named type with fields and methods (`.Capabilities`, `.Files`, …).
    Object(Rc<dyn Object>),
    /// A Go func value (for `call`).
    Func(Rc<Func>),
}

/// Go's integer types; `Int` is Go's `int`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntKind {
    Int,
    Int8,
    Int16,
    Int32,
    Int64,
    Uint,
    Uint8,
    Uint16,
    Uint32,
    Uint64,
    Uintptr,
}

impl IntKind {
    pub fn go_name(self) -> &'static str {
        match self {
            IntKind::Int => "int",
            IntKind::Int8 => "int8",
            IntKind::Int16 => "int16",
            IntKind::Int32 => "int32",
            IntKind::Int64 => "int64",
            IntKind::Uint => "uint",
            IntKind::Uint8 => "uint8",
            IntKind::Uint16 => "uint16",
            IntKind::Uint32 => "uint32",
            IntKind::Uint64 => "uint64",
            IntKind::Uintptr => "uintptr",
        }
    }

    pub fn is_unsigned(self) -> bool {
        matches!(
            self,
            IntKind::Uint
                | IntKind::Uint8
                | IntKind::Uint16
                | IntKind::Uint32
                | IntKind::Uint64
                | IntKind::Uintptr
        )
    }
}

/// A Go slice: immutable, cheaply shared. `elem` is the Go element type name used by `%T`
/// (`interface {}` for `[]interface{}`, `string` for `[]string`).
#[derive(Clone)]
pub struct List {
    items: Rc<Vec<Value>>,
    elem: &'static str,
}

impl List {
    /// A `[]interface{}`.
    pub fn new(items: Vec<Value>) -> List {
        List {
            items: Rc::new(items),
            elem: "interface {}",
        }
    }

    /// A slice whose Go element type is `elem` (for example `"string"`).
    pub fn typed(items: Vec<Value>, elem: &'static str) -> List {
        List {
            items: Rc::new(items),
            elem,
        }
    }

    pub fn items(&self) -> &[Value] {
        &self.items
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn elem_type(&self) -> &'static str {
        self.elem
    }

    pub fn ptr_eq(&self, other: &List) -> bool {
        Rc::ptr_eq(&self.items, &other.items)
    }

    /// The address of the shared items, standing in for Go's slice pointer (`%p`).
    pub fn addr(&self) -> usize {
        Rc::as_ptr(&self.items) as usize
    }
}

/// The last holder of a deeply nested list frees its items on a stack that can take the depth.
impl Drop for List {
    fn drop(&mut self) {
        if let Some(items) = Rc::get_mut(&mut self.items)
            && !items.is_empty()
        {
            let items = std::mem::take(items);
            crate::stack::grow(move || drop(items));
        }
    }
}

impl FromIterator<Value> for List {
    fn from_iter<T: IntoIterator<Item = Value>>(iter: T) -> Self {
        List::new(iter.into_iter().collect())
    }
}

/// A Go `map[string]interface{}` (or a named map type): a shared, mutable reference.
#[derive(Clone, Default)]
pub struct Map {
    entries: Rc<MapCell>,
    type_name: Option<&'static str>,
}

/// Where a lazily built map's entries come from: a decoded document that the map stands for.
///
/// A 60 KB CRD read with `fromYaml` is a tree of thousands of maps, of which a template
/// usually touches two or three; a lazy map builds its own level on first use (its nested
/// maps lazy again), and a writer that knows the source can write an untouched map straight
/// from it. A source must always build the same entries: the map's meaning is fixed when it
/// is made, building it is only deferred.
pub trait MapSource {
    /// This map's entries, one level (nested maps may be lazy themselves).
    fn build(&self) -> BTreeMap<Rc<str>, Value>;

    /// The source itself, for writers that can use it without building the map.
    fn as_any(&self) -> &dyn std::any::Any;
}

#[derive(Default)]
struct MapCell {
    entries: RefCell<BTreeMap<Rc<str>, Value>>,
    /// Set while the entries are not built yet (then `entries` is empty).
    pending: RefCell<Option<Rc<dyn MapSource>>>,
}

/// A deeply nested map tree is freed on a stack that can take its depth.
impl Drop for MapCell {
    fn drop(&mut self) {
        let entries = self.entries.get_mut();
        if !entries.is_empty() {
            let entries = std::mem::take(entries);
            crate::stack::grow(move || drop(entries));
        }
    }
}

impl MapCell {
    /// The entries, built first if the map is still lazy.
    fn built(&self) -> &RefCell<BTreeMap<Rc<str>, Value>> {
        // A plain borrow first: most maps are never lazy, and a lazy one is built once.
        if self.pending.borrow().is_some()
            && let Some(source) = self.pending.borrow_mut().take()
        {
            *self.entries.borrow_mut() = source.build();
        }
        &self.entries
    }
}

impl Map {
    pub fn new() -> Map {
        Map::default()
    }

    /// A map whose Go type shows as `type_name` in `%T` (for example `"chartutil.Values"`).
    pub fn named(type_name: &'static str) -> Map {
        Map {
            entries: Rc::default(),
            type_name: Some(type_name),
        }
    }

    /// A map whose entries `source` builds when the map is first used (see [`MapSource`]).
    pub fn lazy(source: Rc<dyn MapSource>) -> Map {
        Map {
            entries: Rc::new(MapCell {
                entries: RefCell::default(),
                pending: RefCell::new(Some(source)),
            }),
            type_name: None,
        }
    }

    /// The source of a lazy map whose entries are not built yet: its entries are exactly what
    /// the source builds, so a reader may use the source instead.
    pub fn pending_source(&self) -> Option<Rc<dyn MapSource>> {
        self.entries.pending.borrow().clone()
    }

    pub fn from_entries<K: Into<Rc<str>>>(entries: impl IntoIterator<Item = (K, Value)>) -> Map {
        let map = Map::new();
        for (k, v) in entries {
            map.insert(k, v);
        }
        map
    }

    pub fn type_name(&self) -> &'static str {
        self.type_name.unwrap_or("map[string]interface {}")
    }

    /// Whether the map is of a named map type (which may have methods).
    pub fn is_named(&self) -> bool {
        self.type_name.is_some()
    }

    pub fn get(&self, key: &str) -> Option<Value> {
        self.entries.built().borrow().get(key).cloned()
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.entries.built().borrow().contains_key(key)
    }

    pub fn insert(&self, key: impl Into<Rc<str>>, value: Value) -> Option<Value> {
        self.entries.built().borrow_mut().insert(key.into(), value)
    }

    pub fn remove(&self, key: &str) -> Option<Value> {
        self.entries.built().borrow_mut().remove(key)
    }

    pub fn len(&self) -> usize {
        self.entries.built().borrow().len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.built().borrow().is_empty()
    }

    /// The keys in Go's sorted order.
    pub fn keys(&self) -> Vec<Rc<str>> {
        self.entries.built().borrow().keys().cloned().collect()
    }

    /// A snapshot of the entries in sorted key order (safe to iterate while the map is changed).
    pub fn entries(&self) -> Vec<(Rc<str>, Value)> {
        self.entries
            .built()
            .borrow()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// Borrow the entries without copying. Do not mutate the map while holding it.
    pub fn with_entries<R>(&self, f: impl FnOnce(&BTreeMap<Rc<str>, Value>) -> R) -> R {
        f(&self.entries.built().borrow())
    }

    pub fn ptr_eq(&self, other: &Map) -> bool {
        Rc::ptr_eq(&self.entries, &other.entries)
    }

    /// The address of the shared entries, standing in for Go's map pointer (`%p`).
    pub fn addr(&self) -> usize {
        Rc::as_ptr(&self.entries) as usize
    }

    /// The same map (shared entries) seen as another Go map type: `None` is the plain
    /// `map[string]interface{}`, as a named map becomes when passed to such a parameter.
    pub fn retyped(&self, type_name: Option<&'static str>) -> Map {
        Map {
            entries: self.entries.clone(),
            type_name,
        }
    }

    /// A new map with the same entries (values are shared, not deep-copied).
    pub fn shallow_clone(&self) -> Map {
        Map {
            entries: Rc::new(MapCell {
                entries: RefCell::new(self.entries.built().borrow().clone()),
                pending: RefCell::default(),
            }),
            type_name: self.type_name,
        }
    }
}

/// One field of a Go struct, as reflection sees it: what `fmt` prints and the encoders
/// (`encoding/json`, go-yaml, BurntSushi/toml) walk.
#[derive(Clone, Debug)]
pub struct Field {
    /// The Go field name; an unexported field's starts with a lower-case letter.
    pub name: &'static str,
    /// The struct tag as written in Go (`json:"version,omitempty"`), empty without one.
    pub tag: &'static str,
    pub value: Value,
}

impl Field {
    pub fn new(name: &'static str, value: Value) -> Field {
        Field {
            name,
            tag: "",
            value,
        }
    }

    /// Whether other packages (and so the encoders) see the field.
    pub fn is_exported(&self) -> bool {
        self.name.chars().next().is_some_and(char::is_uppercase)
    }

    /// Go's `reflect.StructTag.Lookup`: the value under `key` in the conventional
    /// `key:"value" key2:"value2"` form; `None` when the key is absent or the tag is malformed
    /// before it.
    pub fn tag_lookup(&self, key: &str) -> Option<String> {
        let mut tag = self.tag;
        loop {
            tag = tag.trim_start_matches(' ');
            if tag.is_empty() {
                return None;
            }
            let b = tag.as_bytes();
            let name_len = b
                .iter()
                .position(|&c| c <= b' ' || c == b':' || c == b'"' || c == 0x7f)
                .unwrap_or(b.len());
            if name_len == 0 || name_len + 1 >= b.len() || b[name_len] != b':' {
                return None;
            }
            if b[name_len + 1] != b'"' {
                return None;
            }
            let name = &tag[..name_len];
            let rest = &tag[name_len + 1..];
            // The quoted value runs to the first unescaped quote.
            let rb = rest.as_bytes();
            let mut i = 1;
            while i < rb.len() && rb[i] != b'"' {
                if rb[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            if i >= rb.len() {
                return None;
            }
            let quoted = &rest[..=i];
            tag = &rest[i + 1..];
            if name == key {
                return crate::strconv::unquote(quoted);
            }
        }
    }
}

/// The error an [`Object`]'s `MarshalJSON` or `MarshalText` returned. Each type that has
/// those methods fails in its own way (`time.Time`'s range checks), so the error is the type's
/// own, kept whole; it prints as Go's error's text, which the encoders wrap in their own words.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct MarshalError(Box<dyn std::error::Error + Send + Sync>);

impl MarshalError {
    pub fn new(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> MarshalError {
        MarshalError(error.into())
    }
}

/// A Go struct, pointer or named type exposed to templates: fields by name, methods by name.
///
/// The executor resolves `.Name` on an object by trying a method first, then a field, as Go does.
/// What Go's reflection-driven code (`fmt`, the encoders, deep copies) sees of it is described
/// by [`Object::fields`], [`Object::as_value`] and the interfaces Go consults first
/// ([`Object::stringer`], [`Object::go_string`], [`Object::marshal_json`],
/// [`Object::marshal_text`]).
// `len` answers Go's `len` builtin (None where Go refuses it), not a container's size, so an
// `is_empty` beside it would mean nothing.
#[allow(clippy::len_without_is_empty)]
pub trait Object {
    /// The Go type name, as `%T` prints it (for example `*chartutil.Capabilities`).
    fn type_name(&self) -> &str;

    /// An exported field, or `None` if the type has no such field.
    fn field(&self, _name: &str) -> Option<Value> {
        None
    }

    /// The signature of a method, or `None` if the type has no such method.
    fn method(&self, _name: &str) -> Option<Rc<Func>> {
        None
    }

    /// How `fmt`'s `%v` prints it.
    fn format(&self) -> String {
        format!("{{{}}}", self.type_name())
    }

    /// How `{{ value }}` prints it. Go prints an addressable struct through its pointer's
    /// `String` method when it has one, which `printf "%v"` (a copy) does not use.
    fn print(&self) -> String {
        self.format()
    }

    /// Go's truth: structs are always true; pointers are true when not nil.
    fn is_true(&self) -> bool {
        true
    }

    /// `len` of the object, if Go would allow `len` on it.
    fn len(&self) -> Option<usize> {
        None
    }

    /// Go's `reflect.Kind` name of the type (`ptr`, `struct`, `map`, …), as Sprig's `kindOf`
    /// prints it. By default: `ptr` for a type named `*…`, the kind of [`Object::as_value`] when
    /// there is one, else `struct`.
    fn kind(&self) -> &'static str {
        if self.type_name().starts_with('*') {
            return "ptr";
        }
        match self.as_value() {
            Some(Value::Bool(_)) => "bool",
            Some(Value::Int(_, k)) => k.go_name(),
            Some(Value::Float(_)) => "float64",
            Some(Value::String(_)) => "string",
            Some(Value::Bytes(_) | Value::List(_)) => "slice",
            Some(Value::Map(_)) => "map",
            _ => "struct",
        }
    }

    /// When the object is really a Go map, slice or string (a named type), its plain value; the
    /// executor then treats it as that value for `range`, `index` and comparisons.
    fn as_value(&self) -> Option<Value> {
        None
    }

    /// When the Go type is a struct or a pointer to one: its fields in declaration order,
    /// unexported ones included (`fmt` prints them, the encoders skip them). `None` for other
    /// types, and for structs whose fields bosun does not model (`time.Time`'s are a wall clock
    /// and a location pointer).
    fn fields(&self) -> Option<Vec<Field>> {
        None
    }

    /// Go's `fmt.Stringer`: what `String()` returns, when the value itself has that method (a
    /// method on the pointer only does not count: `fmt` gets a copy).
    fn stringer(&self) -> Option<String> {
        None
    }

    /// Go's `fmt.GoStringer`: what `%#v` prints.
    fn go_string(&self) -> Option<String> {
        None
    }

    /// Go's `json.Marshaler`: the JSON text `MarshalJSON` returns, or its error.
    fn marshal_json(&self) -> Option<Result<String, MarshalError>> {
        None
    }

    /// Go's `encoding.TextMarshaler`: the text `MarshalText` returns, or its error.
    fn marshal_text(&self) -> Option<Result<String, MarshalError>> {
        None
    }

    /// What `copystructure.Copy` (Sprig's `deepCopy`) makes of it, when that is not the value
    /// itself: a copy is built from the exported fields only, so unexported ones come back zero.
    fn deep_copy(&self) -> Option<Value> {
        None
    }
}

impl Value {
    pub fn int(n: i64) -> Value {
        Value::Int(n, IntKind::Int)
    }

    pub fn int64(n: i64) -> Value {
        Value::Int(n, IntKind::Int64)
    }

    pub fn str(s: &str) -> Value {
        Value::String(Str::from(s))
    }

    pub fn list(items: Vec<Value>) -> Value {
        Value::List(List::new(items))
    }

    pub fn is_invalid(&self) -> bool {
        matches!(self, Value::Invalid)
    }

    /// Nil or invalid: the values Go's `reflect` reports as "nil or no value".
    pub fn is_nil(&self) -> bool {
        matches!(self, Value::Invalid | Value::Nil)
    }

    /// Go's template truth (`text/template`'s `isTrue`): false, 0, nil, and empty strings,
    /// slices and maps are false; structs are true. `None` for the invalid value, which Go
    /// reports as an error where truth is required (`if` of no value is false, see the executor).
    pub fn truth(&self) -> Option<bool> {
        Some(match self {
            Value::Invalid => return None,
            Value::Nil => false,
            Value::Bool(b) => *b,
            Value::Int(n, _) => *n != 0,
            Value::Float(f) => *f != 0.0,
            Value::String(s) => !s.is_empty(),
            Value::Bytes(b) => !b.is_empty(),
            Value::List(l) => !l.is_empty(),
            Value::Map(m) => !m.is_empty(),
            Value::Object(o) => o.is_true(),
            Value::Func(_) => true,
        })
    }

    /// Go's type name as `%T` prints it (`<nil>` for nil and no value).
    pub fn type_name(&self) -> String {
        match self {
            Value::Invalid | Value::Nil => "<nil>".to_string(),
            Value::Bool(_) => "bool".to_string(),
            Value::Int(_, k) => k.go_name().to_string(),
            Value::Float(_) => "float64".to_string(),
            Value::String(_) => "string".to_string(),
            Value::Bytes(_) => "[]uint8".to_string(),
            Value::List(l) => format!("[]{}", l.elem_type()),
            Value::Map(m) => m.type_name().to_string(),
            Value::Object(o) => o.type_name().to_string(),
            Value::Func(f) => f.go_type(),
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&Map> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_list(&self) -> Option<&List> {
        match self {
            Value::List(l) => Some(l),
            _ => None,
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::str(s)
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::String(Str::from(s))
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

impl From<f64> for Value {
    fn from(f: f64) -> Value {
        Value::Float(f)
    }
}

impl From<Map> for Value {
    fn from(m: Map) -> Value {
        Value::Map(m)
    }
}

impl From<List> for Value {
    fn from(l: List) -> Value {
        Value::List(l)
    }
}

/// Debug shows Go's `%#v`-like structure, for tests and error messages in Rust code.
impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Invalid => write!(f, "<no value>"),
            Value::Nil => write!(f, "nil"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(n, k) => write!(f, "{}({n})", k.go_name()),
            Value::Float(x) => write!(f, "float64({x:?})"),
            Value::String(s) => write!(f, "{s:?}"),
            Value::Bytes(b) => write!(f, "[]byte({b:?})"),
            Value::List(l) => f.debug_list().entries(l.items()).finish(),
            Value::Map(m) => m.with_entries(|e| f.debug_map().entries(e.iter()).finish()),
            Value::Object(o) => write!(f, "{}", o.type_name()),
            Value::Func(func) => write!(f, "{}", func.go_type()),
        }
    }
}
