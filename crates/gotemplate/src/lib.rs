//! Go's `text/template` language, faithfully: the lexer ([`lex`]), the parser producing an AST
//! with positions ([`parse`], [`ast`]), the executor ([`exec`]), Go's builtin functions
//! ([`builtins`]) and Go's `fmt` verbs as `print`/`printf` use them ([`fmt`]), over a value model
//! where Go's types show through ([`value`]).
//!
//! This crate knows nothing of Helm, YAML, files or I/O: output goes to a `String`, functions come
//! from a [`funcs::FuncMap`] that callers extend (Sprig and Helm functions live in the `helm` crate).

pub mod builtins;
pub mod fmt;
pub mod funcs;
pub mod value;

pub use funcs::{ArgType, Context, Func, FuncError, FuncMap};
pub use value::{IntKind, List, Map, Object, Value};
