//! Helm's own template functions (`include`, `tpl`, `required`, `fail`, `lookup`, `toYaml`,
//! `toJson`, `fromYaml`), registered on top of Sprig's (see [`sprig`]).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use gotemplate::{ArgType, Func, FuncError, FuncMap, List, Map, TextError, Value};

/// Helm's bound on how often one name may be `include`d inside itself.
const INCLUDE_RECURSION_MAX: usize = 1000;

/// Markers Helm puts around `required`/`fail` messages so that its error clean-up can show
/// just the message (`execution error at (file:line:col): message`).
pub const WARN_START: &str = "HELM_ERR_START";
pub const WARN_END: &str = "HELM_ERR_END";

fn warn_wrap(msg: &str) -> FuncError {
    FuncError::new(format!("{WARN_START}{msg}{WARN_END}"))
}

/// Every function Helm adds on top of Go's builtins, for one render.
pub fn helm_funcs() -> FuncMap {
    helm_funcs_with(&goyaml::YamlMemo::new())
}

/// [`helm_funcs`] whose `fromYaml` and `toYaml` share `memo` (so that the caller can look up
/// what `toYaml` wrote).
pub fn helm_funcs_with(memo: &goyaml::YamlMemo) -> FuncMap {
    let mut map = sprig::sprig_funcs();
    register_yaml_json(&mut map, memo);
    offer_split_parts(&mut map, memo);
    // Without `--enable-dns` (bosun has no such flag) Helm replaces Sprig's DNS lookup.
    let mut no_dns = Func::new(vec![ArgType::String], None, "string", |_, _| {
        Ok(Value::str(""))
    });
    no_dns.returns_error = false;
    map.insert("getHostByName", no_dns);
    let included: Rc<RefCell<HashMap<String, usize>>> = Rc::default();
    map.insert(
        "include",
        Func::new(vec![ArgType::String, ArgType::Any], None, "string", move |ctx, args| {
            let name = args[0].as_str().unwrap_or_default().to_string();
            {
                let mut counts = included.borrow_mut();
                let count = counts.entry(name.clone()).or_insert(0);
                if *count > INCLUDE_RECURSION_MAX {
                    return Err(FuncError::new(format!(
                        "rendering template has a nested reference name: {name}: unable to execute template"
                    )));
                }
                *count += 1;
            }
            let result = ctx.execute_template(&name, args[1].clone());
            if let Some(count) = included.borrow_mut().get_mut(&name) {
                *count -= 1;
            }
            result.map(Value::from)
        }),
    );
    // Helm 4's `tpl` parses the text as a new template named like the set's root (`gotpl`) in
    // a clone of the running set, whatever the context is, and runs that new template.
    map.insert(
        "tpl",
        Func::new(
            vec![ArgType::String, ArgType::Any],
            None,
            "string",
            |ctx, args| {
                let text = args[0].as_str().unwrap_or_default();
                let out = ctx
                    .execute_text(crate::engine::ROOT_TEMPLATE_NAME, text, args[1].clone())
                    .map_err(|e| {
                        let quoted = gotemplate::fmt::quote(text);
                        FuncError::new(match e {
                            TextError::Parse(e) => format!("cannot parse template {quoted}: {e}"),
                            TextError::Execute(e) => {
                                format!("error during tpl function execution for {quoted}: {e}")
                            }
                        })
                    })?;
                Ok(Value::from(out.replace("<no value>", "")))
            },
        ),
    );
    map.insert(
        "required",
        Func::new(
            vec![ArgType::String, ArgType::Any],
            None,
            "interface {}",
            |_, args| {
                let warn = args[0].as_str().unwrap_or_default();
                match &args[1] {
                    Value::Nil | Value::Invalid => Err(warn_wrap(warn)),
                    Value::String(s) if s.is_empty() => Err(warn_wrap(warn)),
                    other => Ok(other.clone()),
                }
            },
        ),
    );
    map.insert(
        "fail",
        Func::new(vec![ArgType::String], None, "string", |_, args| {
            Err(warn_wrap(args[0].as_str().unwrap_or_default()))
        }),
    );
    let mut lookup = Func::new(
        vec![
            ArgType::String,
            ArgType::String,
            ArgType::String,
            ArgType::String,
        ],
        None,
        "map[string]interface {}",
        // `helm template` never talks to a cluster: lookup finds nothing.
        |_, _| Ok(Value::Map(Map::new())),
    );
    lookup.returns_error = true;
    map.insert("lookup", lookup);
    map
}

/// Sprig's `splitList`, which also offers its large parts to `memo` for preparation ahead of
/// the `fromYaml` that usually follows (see `goyaml::Ahead`; Istio's base chart splits its CRD
/// file so). The result is Sprig's.
fn offer_split_parts(map: &mut FuncMap, memo: &goyaml::YamlMemo) {
    let Some(split) = map.get("splitList").cloned() else {
        return;
    };
    let memo = memo.clone();
    let (params, variadic, result) = (split.params.clone(), split.variadic, split.result);
    let returns_error = split.returns_error;
    let mut offering = Func::new(params, variadic, result, move |ctx, args| {
        let parts = (split.imp)(ctx, args)?;
        if let Value::List(list) = &parts {
            let texts: Vec<gotemplate::Str> = list
                .items()
                .iter()
                .filter_map(|v| match v {
                    Value::String(s) => Some(s.clone()),
                    _ => None,
                })
                .collect();
            memo.offer_parts(&texts);
        }
        Ok(parts)
    });
    offering.returns_error = returns_error;
    map.insert("splitList", offering);
}

/// Helm's `toYaml`, `toJson` and `fromYaml` (they replace Sprig's `toJson`).
fn register_yaml_json(map: &mut FuncMap, memo: &goyaml::YamlMemo) {
    let memo_to = memo.clone();
    let mut to_yaml = Func::new(vec![ArgType::Any], None, "string", move |_, args| {
        Ok(match memo_to.to_yaml(&args[0]) {
            Ok(text) => Value::String(text),
            Err(_) => Value::str(""),
        })
    });
    to_yaml.returns_error = false;
    map.insert("toYaml", to_yaml);
    let mut to_yaml_pretty = Func::new(vec![ArgType::Any], None, "string", |_, args| {
        let text = goyaml::to_yaml_pretty(&args[0]).unwrap_or_default();
        Ok(Value::from(
            text.strip_suffix('\n').unwrap_or(&text).to_string(),
        ))
    });
    to_yaml_pretty.returns_error = false;
    map.insert("toYamlPretty", to_yaml_pretty);
    // Helm's `mustToYaml` panics where `toYaml` gives "".
    let mut must_to_yaml = Func::new(vec![ArgType::Any], None, "string", |_, args| {
        goyaml::to_yaml(&args[0])
            .map(|text| Value::from(text.strip_suffix('\n').unwrap_or(&text).to_string()))
            .map_err(|e| FuncError::new(e.message))
    });
    must_to_yaml.returns_error = false;
    map.insert("mustToYaml", must_to_yaml);
    // Sprig's `mustFromJson` (Helm replaces only `fromJson`): any JSON value, or the error.
    let must_from_json = Func::new(vec![ArgType::String], None, "interface {}", |_, args| {
        goyaml::json_read::from_json(args[0].as_str().unwrap_or_default())
            .map_err(|e| FuncError::new(e.to_string()))
    });
    map.insert("mustFromJson", must_from_json);
    let mut to_json = Func::new(vec![ArgType::Any], None, "string", |_, args| {
        Ok(Value::from(goyaml::to_json(&args[0]).unwrap_or_default()))
    });
    to_json.returns_error = false;
    map.insert("toJson", to_json);
    let memo_from = memo.clone();
    let mut from_yaml = Func::new(
        vec![ArgType::String],
        None,
        "map[string]interface {}",
        move |_, args| {
            let out = Map::new();
            let parsed = match &args[0] {
                Value::String(text) => memo_from.from_yaml(text),
                other => goyaml::from_yaml(other.as_str().unwrap_or_default()),
            };
            match parsed {
                Ok(Value::Map(m)) => return Ok(Value::Map(m)),
                Ok(Value::Nil) => {}
                Ok(other) => {
                    out.insert(
                        "Error",
                        Value::from(format!(
                            "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                            goyaml::json_read::json_kind(&other)
                        )),
                    );
                }
                Err(e) => {
                    out.insert("Error", Value::from(e.message));
                }
            }
            Ok(Value::Map(out))
        },
    );
    from_yaml.returns_error = false;
    map.insert("fromYaml", from_yaml);
    let mut from_yaml_array = Func::new(
        vec![ArgType::String],
        None,
        "[]interface {}",
        |_, args| {
            let text = args[0].as_str().unwrap_or_default();
            let err = match goyaml::from_yaml(text) {
                Ok(Value::List(l)) => return Ok(Value::List(List::new(l.items().to_vec()))),
                Ok(Value::Nil) => return Ok(Value::List(List::new(Vec::new()))),
                Ok(other) => format!(
                    "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go value of type []interface {{}}",
                    goyaml::json_read::json_kind(&other)
                ),
                Err(e) => e.message,
            };
            Ok(Value::List(List::new(vec![Value::from(err)])))
        },
    );
    from_yaml_array.returns_error = false;
    map.insert("fromYamlArray", from_yaml_array);
    let mut from_json = Func::new(
        vec![ArgType::String],
        None,
        "map[string]interface {}",
        |_, args| {
            let out = Map::new();
            let err = match goyaml::json_read::from_json(args[0].as_str().unwrap_or_default()) {
                Ok(Value::Map(m)) => return Ok(Value::Map(m)),
                Ok(Value::Nil) => return Ok(Value::Map(out)),
                Ok(other) => format!(
                    "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                    goyaml::json_read::json_kind(&other)
                ),
                Err(e) => e.to_string(),
            };
            out.insert("Error", Value::from(err));
            Ok(Value::Map(out))
        },
    );
    from_json.returns_error = false;
    map.insert("fromJson", from_json);
    let mut from_json_array =
        Func::new(vec![ArgType::String], None, "[]interface {}", |_, args| {
            let err = match goyaml::json_read::from_json(args[0].as_str().unwrap_or_default()) {
                Ok(Value::List(l)) => return Ok(Value::List(l)),
                Ok(Value::Nil) => return Ok(Value::List(List::new(Vec::new()))),
                Ok(other) => format!(
                    "json: cannot unmarshal {} into Go value of type []interface {{}}",
                    goyaml::json_read::json_kind(&other)
                ),
                Err(e) => e.to_string(),
            };
            Ok(Value::List(List::new(vec![Value::from(err)])))
        });
    from_json_array.returns_error = false;
    map.insert("fromJsonArray", from_json_array);
}
