//! Chart dependencies as Helm 4's `ProcessDependencies` resolves them before rendering: which
//! subcharts of `charts/` are used (Chart.yaml `dependencies` matched by name and version
//! range, `alias` copies), which are enabled (`tags`, then `condition`), and `import-values`.
//!
//! Facts this follows:
//! - Subcharts not named by any dependency (or whose version is out of range) stay, first; then
//!   one copy per dependency entry whose chart is found, renamed to its alias.
//! - Every dependency starts enabled. With a `tags` table in the values, a dependency whose
//!   tags include a `false` one and no `true` one is disabled. Then the first path of its
//!   comma-separated `condition` that holds a boolean decides (non-booleans are skipped with a
//!   warning). Paths are read in the parent's coalesced values; a nested chart's conditions are
//!   read below its parents' names (`sub.deep.enabled`).
//! - Disabled dependencies are dropped, with every subchart of that name.
//! - `import-values` (`child`/`parent` maps, or strings meaning `exports.NAME`) are merged below
//!   the parent's own values, which win; earlier imports win over later ones.

use gotemplate::{Map, Value};

use crate::chart::{Chart, Dependency};
use crate::log::LogLine;
use crate::values::{self, ValuesError};

/// The dependencies Chart.yaml names that `charts/` does not hold, in Chart.yaml's order.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("found in Chart.yaml, but missing in charts/ directory: {}", .names.join(", "))]
pub struct MissingDependencies {
    pub names: Vec<String>,
}

/// Helm's `CheckDependencies`: every dependency of Chart.yaml must be in `charts/`.
pub fn check_dependencies(chart: &Chart) -> Result<(), MissingDependencies> {
    let names: Vec<String> = chart
        .metadata
        .dependencies
        .iter()
        .filter(|d| !chart.dependencies.iter().any(|c| c.metadata.name == d.name))
        .map(|d| d.name.clone())
        .collect();
    if names.is_empty() {
        Ok(())
    } else {
        Err(MissingDependencies { names })
    }
}

/// Resolves `chart`'s dependencies in place for the user's values `user`; returns the warnings
/// Helm logs.
pub fn process_dependencies(chart: &mut Chart, user: &Map) -> Result<Vec<LogLine>, ValuesError> {
    let mut warnings = Vec::new();
    process_enabled(chart, user, "", &mut warnings)?;
    process_import_values(chart, &mut warnings)?;
    Ok(warnings)
}

/// Masterminds' `Constraint.Check`, false when either side does not parse.
fn compatible(constraint: &str, version: &str) -> bool {
    sprig::semver::semver_compare(constraint, version).unwrap_or(false)
}

fn process_enabled(
    chart: &mut Chart,
    user: &Map,
    path: &str,
    warnings: &mut Vec<LogLine>,
) -> Result<(), ValuesError> {
    if chart.metadata.dependencies.is_empty() {
        return Ok(());
    }
    let loaded = std::mem::take(&mut chart.dependencies);
    let mut used: Vec<Chart> =
        loaded
            .iter()
            .filter(|c| {
                !chart.metadata.dependencies.iter().any(|r| {
                    c.metadata.name == r.name && compatible(&r.version, &c.metadata.version)
                })
            })
            .cloned()
            .collect();
    for req in &mut chart.metadata.dependencies {
        if let Some(found) = loaded
            .iter()
            .find(|c| c.metadata.name == req.name && compatible(&req.version, &c.metadata.version))
        {
            let mut copy = found.clone();
            if !req.alias.is_empty() {
                copy.metadata.name = req.alias.clone();
            }
            used.push(copy);
        }
        if !req.alias.is_empty() {
            req.name = req.alias.clone();
        }
        req.enabled = true;
    }
    chart.dependencies = used;

    let (cvals, _) = values::coalesce_chart(chart, user)?;
    process_tags(&mut chart.metadata.dependencies, &cvals, warnings);
    process_conditions(&mut chart.metadata.dependencies, &cvals, path, warnings);

    let disabled: Vec<String> = chart
        .metadata
        .dependencies
        .iter()
        .filter(|r| !r.enabled)
        .map(|r| r.name.clone())
        .collect();
    chart
        .dependencies
        .retain(|c| !disabled.contains(&c.metadata.name));
    chart
        .metadata
        .dependencies
        .retain(|r| !disabled.contains(&r.name));
    for sub in &mut chart.dependencies {
        let sub_path = format!("{path}{}.", sub.metadata.name);
        process_enabled(sub, &cvals, &sub_path, warnings)?;
    }
    Ok(())
}

fn process_tags(reqs: &mut [Dependency], cvals: &Map, warnings: &mut Vec<LogLine>) {
    let Some(Value::Map(tags)) = cvals.get("tags") else {
        return;
    };
    for req in reqs {
        let (mut has_true, mut has_false) = (false, false);
        for tag in &req.tags {
            match tags.get(tag) {
                Some(Value::Bool(true)) => has_true = true,
                Some(Value::Bool(false)) => has_false = true,
                Some(_) => warnings.push(LogLine::warn(
                    "returned non-bool value",
                    &[("tag", tag), ("chart", &req.name)],
                )),
                None => {}
            }
        }
        req.enabled = has_true || !has_false;
    }
}

fn process_conditions(
    reqs: &mut [Dependency],
    cvals: &Map,
    path: &str,
    warnings: &mut Vec<LogLine>,
) {
    for req in reqs {
        for condition in req.condition.trim().split(',') {
            if condition.is_empty() {
                continue;
            }
            if let Some(value) = path_value(cvals, &format!("{path}{condition}")) {
                if let Value::Bool(b) = value {
                    req.enabled = b;
                    break;
                }
                warnings.push(LogLine::warn(
                    "returned non-bool value",
                    &[("path", condition), ("chart", &req.name)],
                ));
            }
        }
    }
}

/// Helm's `Values.PathValue`: the non-table value at a dotted path.
fn path_value(values: &Map, path: &str) -> Option<Value> {
    let parts: Vec<&str> = path.split('.').collect();
    let (last, parents) = parts.split_last()?;
    let table = table(values, &parents.join("."))?;
    match table.get(last) {
        Some(Value::Map(_)) | None => None,
        Some(v) => Some(v),
    }
}

/// Helm's `Values.Table`: the table at a dotted path (the empty path is the values).
pub fn table(values: &Map, path: &str) -> Option<Map> {
    let mut table = values.clone();
    if path.is_empty() {
        return Some(table);
    }
    for part in path.split('.') {
        match table.get(part) {
            Some(Value::Map(m)) => table = m,
            _ => return None,
        }
    }
    Some(table)
}

/// The first element of a dotted path that is not a table (Helm's `ErrNoTable` names it).
fn table_miss(values: &Map, path: &str) -> String {
    let mut table = values.clone();
    for part in path.split('.') {
        match table.get(part) {
            Some(Value::Map(m)) => table = m,
            _ => return part.to_string(),
        }
    }
    String::new()
}

fn process_import_values(
    chart: &mut Chart,
    warnings: &mut Vec<LogLine>,
) -> Result<(), ValuesError> {
    for sub in &mut chart.dependencies {
        process_import_values(sub, warnings)?;
    }
    if chart.metadata.dependencies.is_empty() {
        return Ok(());
    }
    let cvals = values::merge_chart(chart, &Map::new())?;
    let imported = Map::new();
    for req in &mut chart.metadata.dependencies {
        let mut resolved = Vec::new();
        for spec in &req.import_values {
            let (child, parent) = match spec {
                Value::Map(m) => {
                    let show =
                        |k: &str| gotemplate::fmt::sprint_value(&m.get(k).unwrap_or(Value::Nil));
                    (show("child"), show("parent"))
                }
                Value::String(s) => (format!("exports.{s}"), ".".to_string()),
                _ => continue,
            };
            resolved.push(Value::Map(Map::from_entries([
                ("child", Value::str(&child)),
                ("parent", Value::str(&parent)),
            ])));
            let path = format!("{}.{child}", req.name);
            let Some(found) = table(&cvals, &path) else {
                let missing = table_miss(&cvals, &path);
                let error = format!("{missing:?} is not a table");
                warnings.push(if matches!(spec, Value::Map(_)) {
                    LogLine::warn(
                        "ImportValues missing table from chart",
                        &[("chart", &req.name), ("error", &error)],
                    )
                } else {
                    LogLine::warn("ImportValues missing table", &[("error", &error)])
                });
                continue;
            };
            let placed = if parent == "." {
                found
            } else {
                parent.split('.').rev().fold(found, |inner, key| {
                    Map::from_entries([(key.to_string(), Value::Map(inner))])
                })
            };
            values::merge_tables_into(&imported, &placed);
        }
        req.import_values = resolved;
    }
    let merged = values::deep_copy(&cvals);
    values::merge_tables_into(&merged, &imported);
    chart.values = merged.retyped(Some("common.Values"));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::ChartFile;

    fn chart(files: &[(&str, &str)]) -> Chart {
        Chart::from_files(
            files
                .iter()
                .map(|(p, t)| ChartFile {
                    path: p.to_string(),
                    data: crate::chart::FileData::new(t.as_bytes()),
                })
                .collect(),
        )
        .unwrap()
    }

    const SUB: &str = "apiVersion: v2\nname: sub\nversion: 0.1.0\n";

    #[test]
    fn conditions_tags_and_aliases() {
        let parent = "apiVersion: v2\nname: p\nversion: 1.0.0\ndependencies:\n- name: sub\n  version: 0.1.0\n  alias: one\n  condition: one.enabled,x\n- name: sub\n  version: 0.1.0\n  alias: two\n  tags: [t]\n";
        let base = chart(&[("Chart.yaml", parent), ("charts/sub/Chart.yaml", SUB)]);
        let names = |user: &str| {
            let mut c = base.clone();
            let user = goyaml::values_from_yaml(user).unwrap();
            process_dependencies(&mut c, &user).unwrap();
            c.dependencies
                .iter()
                .map(|d| d.metadata.name.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(""), ["one", "two"]);
        assert_eq!(names("one: {enabled: false}"), ["two"]);
        assert_eq!(names("one: {enabled: 1}\nx: false"), ["two"]);
        assert_eq!(names("tags: {t: false}"), ["one"]);
    }

    #[test]
    fn missing_dependencies_are_named() {
        let parent =
            "apiVersion: v2\nname: p\nversion: 1.0.0\ndependencies:\n- name: a\n- name: b\n";
        let c = chart(&[("Chart.yaml", parent)]);
        assert_eq!(
            check_dependencies(&c).unwrap_err().to_string(),
            "found in Chart.yaml, but missing in charts/ directory: a, b"
        );
        assert_eq!(check_dependencies(&c).unwrap_err().names, ["a", "b"]);
    }

    #[test]
    fn globals_flow_down_and_the_parent_wins() {
        let parent = "apiVersion: v2\nname: p\nversion: 1.0.0\n";
        let c = chart(&[
            ("Chart.yaml", parent),
            ("values.yaml", "global: {g: p}\n"),
            ("charts/sub/Chart.yaml", SUB),
            ("charts/sub/values.yaml", "global: {g: s, h: s}\nx: 1\n"),
        ]);
        let (values, _) = values::coalesce_chart(&c, &Map::new()).unwrap();
        let json = goyaml::to_json(&Value::Map(values)).unwrap();
        assert_eq!(
            json,
            r#"{"global":{"g":"p"},"sub":{"global":{"g":"p","h":"s"},"x":1}}"#
        );
    }
}
