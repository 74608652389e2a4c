//! Sprig's dictionary functions, with mergo's merge rules for `merge` and `mergeOverwrite`.

use gotemplate::{ArgType, FuncMap, List, Map, Value};

use super::conv::{empty, strval};
use super::{def, s};

const ANY: ArgType = ArgType::Any;
const MAP: ArgType = ArgType::Map;
const STR: ArgType = ArgType::String;

/// mergo's `deepMerge` of one `map[string]interface{}` into another, in place: `dst` keeps
/// its non-empty values unless `overwrite`; nested maps are merged key by key.
pub fn mergo_merge(dst: &Map, src: &Map, overwrite: bool) {
    gotemplate::stack::grow(|| {
        if dst.ptr_eq(src) {
            return;
        }
        for (key, sv) in src.entries() {
            let dv = dst.get(&key);
            if sv.is_nil() {
                if overwrite {
                    dst.insert(key, Value::Nil);
                }
                continue;
            }
            if let Value::Map(sm) = &sv
                && let Some(Value::Map(dm)) = &dv
            {
                mergo_merge(dm, sm, overwrite);
            }
            let dst_set = dv.as_ref().is_some_and(|d| !empty(d));
            if dst_set {
                let dv = dv.as_ref().unwrap();
                if matches!(sv, Value::List(_)) {
                    if overwrite {
                        dst.insert(key, sv);
                    }
                    continue;
                }
                if matches!(sv, Value::Map(_)) && matches!(dv, Value::Map(_)) {
                    continue;
                }
            }
            if overwrite || !dst_set {
                dst.insert(key, sv);
            }
        }
    })
}

/// copystructure's deep copy: maps and lists are copied all the way down; Go structs are
/// rebuilt from their exported fields ([`gotemplate::Object::deep_copy`]).
pub fn deep_copy(v: &Value) -> Value {
    gotemplate::stack::grow(|| match v {
        Value::Map(m) => {
            let out = Map::new().retyped(match m.type_name() {
                "map[string]interface {}" => None,
                _ => Some(m.type_name()),
            });
            for (k, v) in m.entries() {
                out.insert(k, deep_copy(&v));
            }
            Value::Map(out)
        }
        Value::List(l) => Value::List(List::typed(
            l.items().iter().map(deep_copy).collect(),
            l.elem_type(),
        )),
        Value::Object(o) => o.deep_copy().unwrap_or_else(|| v.clone()),
        other => other.clone(),
    })
}

/// Go's message for a failed `x.(map[string]interface{})` type assertion.
fn not_a_map(v: &Value) -> gotemplate::FuncError {
    let got = match v {
        Value::Invalid | Value::Nil => "nil".to_string(),
        other => other.type_name(),
    };
    gotemplate::FuncError::new(format!(
        "interface conversion: interface {{}} is {got}, not map[string]interface {{}}"
    ))
}

pub(super) fn register(map: &mut FuncMap) {
    for (name, must) in [("deepCopy", false), ("mustDeepCopy", true)] {
        def(map, name, &[ANY], None, "interface {}", must, |_, a| {
            Ok(deep_copy(&a[0]))
        });
    }
    def(map, "dig", &[], Some(ANY), "interface {}", true, |_, a| {
        if a.len() < 3 {
            return Err(gotemplate::FuncError::new(
                "dig needs at least three arguments",
            ));
        }
        let mut dict = match &a[a.len() - 1] {
            Value::Map(m) if m.type_name() == "map[string]interface {}" => m.clone(),
            other => return Err(not_a_map(other)),
        };
        let default = a[a.len() - 2].clone();
        let mut keys = Vec::new();
        for k in &a[..a.len() - 2] {
            match k {
                Value::String(s) => keys.push(s.clone()),
                other => {
                    let got = match other {
                        Value::Invalid | Value::Nil => "nil".to_string(),
                        o => o.type_name(),
                    };
                    return Err(gotemplate::FuncError::new(format!(
                        "interface conversion: interface {{}} is {got}, not string"
                    )));
                }
            }
        }
        for (i, k) in keys.iter().enumerate() {
            let Some(step) = dict.get(k) else {
                return Ok(default);
            };
            if i == keys.len() - 1 {
                return Ok(step);
            }
            dict = match step {
                Value::Map(m) if m.type_name() == "map[string]interface {}" => m,
                other => return Err(not_a_map(&other)),
            };
        }
        Ok(default)
    });
    def(
        map,
        "dict",
        &[],
        Some(ANY),
        "map[string]interface {}",
        false,
        |_, a| {
            let m = Map::new();
            for pair in a.chunks(2) {
                let value = pair.get(1).cloned().unwrap_or_else(|| Value::str(""));
                m.insert(strval(&pair[0]), value);
            }
            Ok(Value::Map(m))
        },
    );
    def(
        map,
        "get",
        &[MAP, STR],
        None,
        "interface {}",
        false,
        |_, a| {
            Ok(match &a[0] {
                Value::Map(m) => m.get(s(&a, 1)).unwrap_or_else(|| Value::str("")),
                _ => Value::str(""),
            })
        },
    );
    def(
        map,
        "set",
        &[MAP, STR, ANY],
        None,
        "map[string]interface {}",
        false,
        |_, a| {
            if let Value::Map(m) = &a[0] {
                m.insert(s(&a, 1), a[2].clone());
                return Ok(a[0].clone());
            }
            // Go: assignment to entry in nil map.
            Err(gotemplate::FuncError::new("assignment to entry in nil map"))
        },
    );
    def(
        map,
        "unset",
        &[MAP, STR],
        None,
        "map[string]interface {}",
        false,
        |_, a| {
            if let Value::Map(m) = &a[0] {
                m.remove(s(&a, 1));
            }
            Ok(a[0].clone())
        },
    );
    def(map, "hasKey", &[MAP, STR], None, "bool", false, |_, a| {
        Ok(Value::Bool(
            a[0].as_map().is_some_and(|m| m.contains_key(s(&a, 1))),
        ))
    });
    def(
        map,
        "pluck",
        &[STR],
        Some(MAP),
        "[]interface {}",
        false,
        |_, a| {
            let key = s(&a, 0);
            let items = a[1..]
                .iter()
                .filter_map(|d| d.as_map().and_then(|m| m.get(key)))
                .collect();
            Ok(Value::List(List::new(items)))
        },
    );
    def(map, "keys", &[], Some(MAP), "[]string", false, |_, a| {
        let items = a
            .iter()
            .filter_map(|d| d.as_map())
            .flat_map(|m| m.keys())
            .map(|k| Value::String(k.into()))
            .collect();
        Ok(Value::List(List::typed(items, "string")))
    });
    def(
        map,
        "pick",
        &[MAP],
        Some(STR),
        "map[string]interface {}",
        false,
        |_, a| {
            let out = Map::new();
            if let Value::Map(m) = &a[0] {
                for k in &a[1..] {
                    let k = k.as_str().unwrap_or_default();
                    if let Some(v) = m.get(k) {
                        out.insert(k, v);
                    }
                }
            }
            Ok(Value::Map(out))
        },
    );
    def(
        map,
        "omit",
        &[MAP],
        Some(STR),
        "map[string]interface {}",
        false,
        |_, a| {
            let out = Map::new();
            if let Value::Map(m) = &a[0] {
                for (k, v) in m.entries() {
                    if !a[1..].iter().any(|o| o.as_str() == Some(&k)) {
                        out.insert(k, v);
                    }
                }
            }
            Ok(Value::Map(out))
        },
    );
    def(
        map,
        "values",
        &[MAP],
        None,
        "[]interface {}",
        false,
        |_, a| {
            let items = match &a[0] {
                Value::Map(m) => m.entries().into_iter().map(|(_, v)| v).collect(),
                _ => Vec::new(),
            };
            Ok(Value::List(List::new(items)))
        },
    );
    for (name, overwrite, must) in [
        ("merge", false, false),
        ("mustMerge", false, true),
        ("mergeOverwrite", true, false),
        ("mustMergeOverwrite", true, true),
    ] {
        let imp = if overwrite {
            |_: &mut dyn gotemplate::Context, a: Vec<Value>| merge_all(a, true)
        } else {
            |_: &mut dyn gotemplate::Context, a: Vec<Value>| merge_all(a, false)
        };
        def(map, name, &[MAP], Some(MAP), "interface {}", must, imp);
    }
}

fn merge_all(a: Vec<Value>, overwrite: bool) -> Result<Value, gotemplate::FuncError> {
    let Value::Map(dst) = &a[0] else {
        // mergo refuses a nil destination map.
        return Err(gotemplate::FuncError::new(
            "src and dst must be of same type",
        ));
    };
    for src in &a[1..] {
        if let Value::Map(sm) = src {
            mergo_merge(dst, sm, overwrite);
        }
    }
    Ok(a[0].clone())
}
