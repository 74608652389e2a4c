//! Values: merging user-supplied layers (`-f` files, `--set` flags) and coalescing them with a
//! chart's defaults, with Helm's rules (maps merge, everything else replaces, a user `null`
//! deletes a default).

use gotemplate::{Map, Value};

use crate::chart::Chart;

/// Helm's `mergeMaps`: `overlay` onto `base`, recursing where both sides hold maps. `base` is
/// changed in place.
pub fn merge_into(base: &Map, overlay: &Map) {
    gotemplate::stack::grow(|| {
        for (key, value) in overlay.entries() {
            match (base.get(&key), &value) {
                (Some(Value::Map(existing)), Value::Map(incoming)) => {
                    let merged = existing.shallow_clone();
                    merge_into(&merged, incoming);
                    base.insert(key, Value::Map(merged));
                }
                _ => {
                    base.insert(key, value);
                }
            }
        }
    })
}

/// Why coalescing failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValuesError {
    /// A subchart's values are not a map (Helm prints the value with `%t`).
    #[error("type mismatch on {name}: {shown}")]
    TypeMismatch { name: String, shown: String },
}

/// Helm's `CoalesceValues`: the user's values (deep-copied) with the chart's defaults and its
/// subcharts' defaults coalesced in, globals copied down. A user `null` deletes a default.
/// Returns the values and the warnings Helm logs.
pub fn coalesce_chart(chart: &Chart, user: &Map) -> Result<(Map, Vec<String>), ValuesError> {
    let mut warnings = Vec::new();
    let dest = deep_copy(user);
    coalesce(chart, &dest, "", false, &mut warnings)?;
    Ok((dest, warnings))
}

/// Helm's `MergeValues`: as [`coalesce_chart`], but `null`s are kept.
pub fn merge_chart(chart: &Chart, user: &Map) -> Result<Map, ValuesError> {
    let dest = deep_copy(user);
    coalesce(chart, &dest, "", true, &mut Vec::new())?;
    Ok(dest)
}

fn concat_prefix(a: &str, b: &str) -> String {
    if a.is_empty() {
        b.to_string()
    } else {
        format!("{a}.{b}")
    }
}

fn coalesce(
    chart: &Chart,
    dest: &Map,
    prefix: &str,
    merge: bool,
    warnings: &mut Vec<String>,
) -> Result<(), ValuesError> {
    coalesce_values(chart, dest, prefix, merge, warnings);
    coalesce_deps(chart, dest, prefix, merge, warnings)
}

fn coalesce_deps(
    chart: &Chart,
    dest: &Map,
    prefix: &str,
    merge: bool,
    warnings: &mut Vec<String>,
) -> Result<(), ValuesError> {
    for sub in &chart.dependencies {
        let name = sub.metadata.name.as_str();
        let sub_values = match dest.get(name) {
            None => {
                let m = Map::new();
                dest.insert(name, Value::Map(m.clone()));
                m
            }
            Some(Value::Map(m)) => m,
            Some(other) => {
                return Err(ValuesError::TypeMismatch {
                    name: name.to_string(),
                    shown: gotemplate::fmt::sprintf("%t", &[other]),
                });
            }
        };
        let sub_prefix = concat_prefix(prefix, &chart.metadata.name);
        coalesce_globals(&sub_values, dest, &sub_prefix, warnings);
        coalesce(sub, &sub_values, &sub_prefix, merge, warnings)?;
    }
    Ok(())
}

/// Copies the parent's `global` into the subchart's: the parent wins; tables are merged one
/// level deep through a shallow copy (so deeper tables stay shared, as in Helm).
fn coalesce_globals(dest: &Map, src: &Map, prefix: &str, warnings: &mut Vec<String>) {
    let dest_globals = match dest.get(GLOBAL_KEY) {
        None => Map::new(),
        Some(Value::Map(m)) => m,
        Some(_) => {
            warnings.push(format!(
                "warning: skipping globals because destination {GLOBAL_KEY} is not a table."
            ));
            return;
        }
    };
    let src_globals = match src.get(GLOBAL_KEY) {
        None => Map::new(),
        Some(Value::Map(m)) => m,
        Some(_) => {
            warnings.push(format!(
                "warning: skipping globals because source {GLOBAL_KEY} is not a table."
            ));
            return;
        }
    };
    for (key, value) in src_globals.entries() {
        match &value {
            Value::Map(table) => {
                let copy = table.shallow_clone().retyped(None);
                match dest_globals.get(&key) {
                    None => {
                        dest_globals.insert(key, Value::Map(copy));
                    }
                    Some(Value::Map(existing)) => {
                        let sub_prefix = concat_prefix(prefix, &key);
                        coalesce_tables(&copy, &existing, &sub_prefix, true, warnings);
                        dest_globals.insert(key, Value::Map(copy));
                    }
                    Some(_) => warnings.push(format!(
                        "Conflict: cannot merge map onto non-map for {key:?}. Skipping."
                    )),
                }
            }
            _ => {
                if let Some(Value::Map(_)) = dest_globals.get(&key) {
                    warnings.push(format!("key {key} is table. Skipping"));
                } else {
                    dest_globals.insert(key, value);
                }
            }
        }
    }
    dest.insert(GLOBAL_KEY, Value::Map(dest_globals));
}

/// The key of values shared by a chart and all its subcharts.
pub const GLOBAL_KEY: &str = "global";

fn coalesce_values(
    chart: &Chart,
    dest: &Map,
    prefix: &str,
    merge: bool,
    warnings: &mut Vec<String>,
) {
    gotemplate::stack::grow(|| {
        let sub_prefix = concat_prefix(prefix, &chart.metadata.name);
        let defaults = deep_copy(&chart.values);
        for (key, default) in defaults.entries() {
            match dest.get(&key) {
                Some(Value::Nil) if !merge => {
                    dest.remove(&key);
                }
                Some(Value::Map(user)) => match &default {
                    Value::Map(src) => {
                        let merge = merge
                            || chart
                                .dependencies
                                .iter()
                                .any(|d| d.metadata.name.as_str() == &*key);
                        coalesce_tables(
                            &user,
                            src,
                            &concat_prefix(&sub_prefix, &key),
                            merge,
                            warnings,
                        );
                    }
                    Value::Nil => {}
                    _ => warnings.push(format!(
                        "warning: skipped value for {sub_prefix}.{key}: Not a table."
                    )),
                },
                Some(_) => {}
                // Helm 4.1.4 keeps the chart's own nulls (later Helm versions drop them).
                None => {
                    dest.insert(key, default);
                }
            }
        }
    })
}

/// Helm's `CoalesceTables`: `src` into `dst`, `dst` wins; a `null` in `dst` deletes `src`'s
/// value. Returns nothing: `dst` is changed in place (and, as in Helm, `src` gains `dst`'s
/// nulls).
pub fn coalesce_tables_into(dst: &Map, src: &Map) {
    coalesce_tables(dst, src, "", false, &mut Vec::new());
}

/// Helm's `MergeTables`: as [`coalesce_tables_into`], but `null`s in `dst` are kept.
pub fn merge_tables_into(dst: &Map, src: &Map) {
    coalesce_tables(dst, src, "", true, &mut Vec::new());
}

fn coalesce_tables(dst: &Map, src: &Map, prefix: &str, merge: bool, warnings: &mut Vec<String>) {
    gotemplate::stack::grow(|| {
        let src_non_nil: std::collections::HashSet<std::rc::Rc<str>> = src
            .entries()
            .into_iter()
            .filter(|(_, v)| !matches!(v, Value::Nil))
            .map(|(k, _)| k)
            .collect();
        for (key, value) in dst.entries() {
            if matches!(value, Value::Nil) {
                src.insert(key, Value::Nil);
            }
        }
        for (key, value) in src.entries() {
            let full_key = concat_prefix(prefix, &key);
            match dst.get(&key) {
            Some(Value::Nil) if !merge && src_non_nil.contains(&key) => {
                dst.remove(&key);
            }
            None => {
                dst.insert(key, value);
            }
            Some(existing) => match (&value, &existing) {
                (Value::Map(s), Value::Map(d)) => coalesce_tables(d, s, &full_key, merge, warnings),
                (Value::Map(_), _) => warnings.push(format!(
                    "warning: cannot overwrite table with non table for {full_key} ({})",
                    gotemplate::fmt::print_value(&value)
                )),
                (Value::Nil, _) => {}
                (_, Value::Map(_)) => warnings.push(format!(
                    "warning: destination for {full_key} is a table. Ignoring non-table value ({})",
                    gotemplate::fmt::print_value(&value)
                )),
                _ => {}
            },
        }
        }
    })
}

/// A deep copy of a values tree, so coalescing never changes the chart's or the user's maps.
pub fn deep_copy(map: &Map) -> Map {
    let out = if map.type_name() == "map[string]interface {}" {
        Map::new()
    } else {
        Map::named(map.type_name())
    };
    for (key, value) in map.entries() {
        out.insert(key, deep_copy_value(&value));
    }
    out
}

fn deep_copy_value(value: &Value) -> Value {
    gotemplate::stack::grow(|| match value {
        Value::Map(m) => Value::Map(deep_copy(m)),
        other => other.clone(),
    })
}

/// Re-types a plain map as Helm's `common.Values` (what `%T` of `.Values` shows).
pub fn as_values(map: &Map) -> Map {
    let out = Map::named("common.Values");
    for (key, value) in map.entries() {
        out.insert(key, value);
    }
    out
}
