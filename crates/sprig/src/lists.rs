//! Sprig's list functions. Lists are any Go slice (`[]interface{}`, `[]string`, `[]byte`, …);
//! results are new `[]interface{}` slices, as Sprig builds them.

use gotemplate::{ArgType, FuncError, FuncMap, IntKind, List, Value};

use super::conv::{deep_equal, empty, strslice, strval, to_int64};
use super::{def, runtime_error};
use crate::go_kind;

const ANY: ArgType = ArgType::Any;

/// The elements of a Go slice, or Sprig's error (`Cannot WHAT on type KIND`). A nil list makes
/// Sprig call a method on a nil `reflect.Type`, a nil pointer dereference.
fn elems(v: &Value, what: &str) -> Result<Vec<Value>, FuncError> {
    match v {
        Value::List(l) => Ok(l.items().to_vec()),
        Value::Bytes(b) => Ok(b
            .iter()
            .map(|x| Value::Int(*x as i64, IntKind::Uint8))
            .collect()),
        Value::Nil | Value::Invalid => Err(runtime_error(
            "invalid memory address or nil pointer dereference",
        )),
        // A named slice type (Helm's `VersionSet`, a `[]string`): Sprig reflects on its kind.
        Value::Object(o) => match o.as_value() {
            Some(Value::List(l)) => Ok(l.items().to_vec()),
            _ => Err(FuncError::new(format!(
                "Cannot {what} on type {}",
                go_kind(v)
            ))),
        },
        other => Err(FuncError::new(format!(
            "Cannot {what} on type {}",
            go_kind(other)
        ))),
    }
}

fn list(items: Vec<Value>) -> Value {
    Value::List(List::new(items))
}

macro_rules! list_fn {
    ($map:expr, $names:expr, $params:expr, $result:expr, $must_result:expr, $imp:expr) => {
        for (i, name) in $names.iter().enumerate() {
            def(
                $map,
                name,
                $params,
                None,
                $result,
                i % 2 == 1 || $must_result,
                $imp,
            );
        }
    };
}

pub(super) fn register(map: &mut FuncMap) {
    for name in ["list", "tuple"] {
        def(
            map,
            name,
            &[],
            Some(ANY),
            "[]interface {}",
            false,
            |_, a| Ok(list(a)),
        );
    }
    for (name, must) in [
        ("append", false),
        ("push", false),
        ("mustAppend", true),
        ("mustPush", true),
    ] {
        def(
            map,
            name,
            &[ANY, ANY],
            None,
            "[]interface {}",
            must,
            |_, a| {
                let mut items = elems(&a[0], "push")?;
                items.push(a[1].clone());
                Ok(list(items))
            },
        );
    }
    list_fn!(
        map,
        ["prepend", "mustPrepend"],
        &[ANY, ANY],
        "[]interface {}",
        false,
        |_, a| {
            let mut items = elems(&a[0], "prepend")?;
            items.insert(0, a[1].clone());
            Ok(list(items))
        }
    );
    list_fn!(
        map,
        ["first", "mustFirst"],
        &[ANY],
        "interface {}",
        false,
        |_, a| {
            Ok(elems(&a[0], "find first")?
                .into_iter()
                .next()
                .unwrap_or(Value::Nil))
        }
    );
    list_fn!(
        map,
        ["last", "mustLast"],
        &[ANY],
        "interface {}",
        false,
        |_, a| { Ok(elems(&a[0], "find last")?.pop().unwrap_or(Value::Nil)) }
    );
    list_fn!(
        map,
        ["rest", "mustRest"],
        &[ANY],
        "[]interface {}",
        false,
        |_, a| {
            let items = elems(&a[0], "find rest")?;
            if items.is_empty() {
                // A nil `[]interface{}`.
                return Ok(list(Vec::new()));
            }
            Ok(list(items[1..].to_vec()))
        }
    );
    list_fn!(
        map,
        ["initial", "mustInitial"],
        &[ANY],
        "[]interface {}",
        false,
        |_, a| {
            let items = elems(&a[0], "find initial")?;
            if items.is_empty() {
                return Ok(list(Vec::new()));
            }
            Ok(list(items[..items.len() - 1].to_vec()))
        }
    );
    list_fn!(
        map,
        ["reverse", "mustReverse"],
        &[ANY],
        "[]interface {}",
        false,
        |_, a| {
            let mut items = elems(&a[0], "find reverse")?;
            items.reverse();
            Ok(list(items))
        }
    );
    list_fn!(
        map,
        ["compact", "mustCompact"],
        &[ANY],
        "[]interface {}",
        false,
        |_, a| {
            let items = elems(&a[0], "compact")?;
            Ok(list(items.into_iter().filter(|v| !empty(v)).collect()))
        }
    );
    list_fn!(
        map,
        ["uniq", "mustUniq"],
        &[ANY],
        "[]interface {}",
        false,
        |_, a| {
            let mut out: Vec<Value> = Vec::new();
            for v in elems(&a[0], "find uniq")? {
                if !out.iter().any(|o| deep_equal(o, &v)) {
                    out.push(v);
                }
            }
            Ok(list(out))
        }
    );
    for (name, must) in [("without", false), ("mustWithout", true)] {
        def(
            map,
            name,
            &[ANY],
            Some(ANY),
            "[]interface {}",
            must,
            |_, a| {
                let omit = &a[1..];
                let items = elems(&a[0], "find without")?;
                Ok(list(
                    items
                        .into_iter()
                        .filter(|v| !omit.iter().any(|o| deep_equal(o, v)))
                        .collect(),
                ))
            },
        );
    }
    for (name, must) in [("has", false), ("mustHas", true)] {
        def(map, name, &[ANY, ANY], None, "bool", must, |_, a| {
            if a[1].is_nil() {
                return Ok(Value::Bool(false));
            }
            let items = elems(&a[1], "find has")?;
            Ok(Value::Bool(items.iter().any(|v| deep_equal(&a[0], v))))
        });
    }
    for (name, must) in [("slice", false), ("mustSlice", true)] {
        def(
            map,
            name,
            &[ANY],
            Some(ANY),
            "interface {}",
            must,
            sprig_slice,
        );
    }
    def(
        map,
        "concat",
        &[],
        Some(ANY),
        "interface {}",
        false,
        |_, a| {
            let mut out = Vec::new();
            for v in &a {
                match v {
                    Value::List(_) | Value::Bytes(_) => out.extend(elems(v, "concat")?),
                    other => {
                        return Err(FuncError::new(format!(
                            "Cannot concat type {} as list",
                            go_kind(other)
                        )));
                    }
                }
            }
            Ok(list(out))
        },
    );
    def(map, "sortAlpha", &[ANY], None, "[]string", false, |_, a| {
        let mut items = match &a[0] {
            Value::List(_) | Value::Bytes(_) => strslice(&a[0]),
            other => vec![strval(other)],
        };
        items.sort();
        Ok(Value::List(List::typed(
            items.into_iter().map(Value::from).collect(),
            "string",
        )))
    });
}

/// Sprig's `slice LIST [START [END]]`, which replaces Go's builtin in Helm: lists only.
fn sprig_slice(_: &mut dyn gotemplate::Context, args: Vec<Value>) -> Result<Value, FuncError> {
    let list = match &args[0] {
        Value::List(l) => l.clone(),
        Value::Bytes(b) => List::typed(
            b.iter()
                .map(|x| Value::Int(*x as i64, IntKind::Uint8))
                .collect(),
            "uint8",
        ),
        Value::Nil | Value::Invalid => {
            return Err(runtime_error(
                "invalid memory address or nil pointer dereference",
            ));
        }
        other => {
            return Err(FuncError::new(format!(
                "list should be type of slice or array but {}",
                go_kind(other)
            )));
        }
    };
    if list.is_empty() {
        return Ok(Value::Nil);
    }
    let len = list.len() as i64;
    let start = args.get(1).map(to_int64).unwrap_or(0);
    let end = if args.len() < 3 {
        len
    } else {
        to_int64(&args[2])
    };
    if start < 0 || end < start || end > len {
        return Err(FuncError::new(
            "reflect.Value.Slice: slice index out of bounds",
        ));
    }
    let items = list.items()[start as usize..end as usize].to_vec();
    Ok(Value::List(List::typed(items, list.elem_type())))
}
