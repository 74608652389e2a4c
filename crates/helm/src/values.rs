//! Values: merging user-supplied layers (`-f` files, `--set` flags) and coalescing them with a
//! chart's defaults, with Helm's rules (maps merge, everything else replaces, a user `null`
//! deletes a default).

use gotemplate::{Map, Value};

/// Helm's `mergeMaps`: `overlay` onto `base`, recursing where both sides hold maps. `base` is
/// changed in place.
pub fn merge_into(base: &Map, overlay: &Map) {
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
}

/// Helm's `CoalesceValues` for one chart: user values win over the chart's defaults; a user
/// `null` removes the default. Returns the coalesced values (a new map; `user` is not changed)
/// and the warnings Helm would log.
pub fn coalesce(chart_name: &str, user: &Map, defaults: &Map) -> (Map, Vec<String>) {
    let out = deep_copy(user);
    let mut warnings = Vec::new();
    coalesce_tables(&out, defaults, chart_name, &mut warnings);
    // A `null` the user gave for a key the chart does not default stays a null in Helm.
    (out, warnings)
}

fn coalesce_tables(dst: &Map, src: &Map, prefix: &str, warnings: &mut Vec<String>) {
    for (key, default) in src.entries() {
        let full_key = format!("{prefix}.{key}");
        match dst.get(&key) {
            None => {
                dst.insert(key, deep_copy_value(&default));
            }
            Some(Value::Nil) => {
                dst.remove(&key);
            }
            Some(Value::Map(user)) => match &default {
                Value::Map(default) => coalesce_tables(&user, default, &full_key, warnings),
                Value::Nil => {}
                _ => warnings.push(format!(
                    "warning: destination for {full_key} is a table. Ignoring non-table value ({})",
                    gotemplate::fmt::print_value(&default)
                )),
            },
            Some(_) => {
                if matches!(default, Value::Map(_)) {
                    warnings.push(format!(
                        "warning: skipped value for {full_key}: Not a table."
                    ));
                }
            }
        }
    }
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
    match value {
        Value::Map(m) => Value::Map(deep_copy(m)),
        other => other.clone(),
    }
}

/// Re-types a plain map as Helm's `common.Values` (what `%T` of `.Values` shows).
pub fn as_values(map: &Map) -> Map {
    let out = Map::named("common.Values");
    for (key, value) in map.entries() {
        out.insert(key, value);
    }
    out
}
