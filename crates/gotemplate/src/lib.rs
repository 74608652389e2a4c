//! Go's `text/template` language, faithfully: the lexer ([`lex`]), the parser producing an AST
//! with positions ([`parse`], [`ast`]), the executor ([`exec`]), Go's builtin functions
//! ([`builtins`]) and Go's `fmt` verbs as `print`/`printf` use them ([`fmt`]), over a value model
//! where Go's types show through ([`value`]).
//!
//! This crate knows nothing of Helm, YAML, files or I/O: output goes to a `String` (or stays the
//! pieces it was printed in, [`exec::Output`]), Go strings are [`Str`]s, functions come
//! from a [`funcs::FuncMap`] that callers extend (Sprig and Helm functions live in the `helm` crate).
//! [`Templates`] is the entry point: a set of named templates that parse and execute together.

pub mod ast;
pub mod builtins;
pub mod error;
pub mod exec;
pub mod fmt;
pub mod funcs;
pub mod lex;
pub mod parse;
pub mod stack;
mod strconv;
pub mod template;
pub mod text;
pub mod value;

pub use error::{ExecError, ExecErrorKind, Location, ParseError};
pub use funcs::{ArgError, ArgType, Context, Func, FuncError, FuncMap, MapMethods, TextError};
pub use template::{DetachedParser, MissingKey, Parsed, Templates};
pub use text::Str;
pub use value::{Field, IntKind, List, Map, MapSource, MarshalError, Object, Value};

/// The hash maps of names (functions, templates): foldhash instead of SipHash, whose cost
/// showed in every parse and call that looks a name up. Seeded per process.
pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
pub(crate) type HashSet<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;
