//! Helm's `ValidateAgainstSchema` over the `jsonschema` crate: a chart's `values.schema.json`
//! over its coalesced values, then each subchart's over its part, and the line Helm's `urn:`
//! loader logs.

use gotemplate::{Map, Value};
use jsonschema::{Loader, SchemaError, validate_single};

use crate::chart::Chart;
use crate::log::LogLine;

/// Helm's `ValidateAgainstSchema`: `chart`'s schema over `values`, then each subchart's
/// schema over `values[SUBCHART]`.
pub fn validate_chart(chart: &Chart, values: &Map, loader: &mut Loader) -> Result<(), SchemaError> {
    let mut out = String::new();
    if let Some(schema) = &chart.schema
        && let Err(e) = validate_single(values, schema, loader)
    {
        out.push_str(&format!("{}:\n{}", chart.metadata.name, e.0));
    }
    for sub in &chart.dependencies {
        let name = sub.metadata.name.as_str();
        match values.get(name) {
            None | Some(Value::Nil) => {}
            Some(Value::Map(m)) => {
                if let Err(e) = validate_chart(sub, &m, loader) {
                    out.push_str(&e.0);
                }
            }
            Some(other) => out.push_str(&format!(
                "{name}:\ninvalid type for values: expected object (map), got {}\n",
                other.type_name()
            )),
        }
    }
    if out.is_empty() {
        Ok(())
    } else {
        Err(SchemaError(out))
    }
}

/// What Helm's `urnLoader` logged while `loader` loaded: one warning per URN it could not
/// resolve (the schema `true` took its place).
pub fn urn_warnings(loader: &mut Loader) -> Vec<LogLine> {
    loader
        .unresolved_urns
        .drain(..)
        .map(|urn| {
            LogLine::warn(
                "unresolved URN reference ignored; using permissive schema",
                &[("urn", urn.as_str())],
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(yaml: &str) -> Map {
        match goyaml::values_from_yaml(yaml) {
            Ok(m) => m,
            Err(e) => panic!("bad test values: {e}"),
        }
    }

    #[test]
    fn an_unresolved_urn_warns_once_per_render() {
        let schema = br#"{"properties": {"a": {"$ref": "urn:x:a"}, "b": {"$ref": "urn:x:a"}}}"#;
        let mut loader = Loader::files_only();
        for _ in 0..2 {
            assert_eq!(
                validate_single(&values("a: 1\n"), schema, &mut loader),
                Ok(())
            );
        }
        let shown: Vec<String> = urn_warnings(&mut loader)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            shown,
            [
                "level=WARN msg=\"unresolved URN reference ignored; using permissive schema\" urn=urn:x:a"
            ]
        );
    }
}
