//! Helm's rendering engine: which templates are parsed and executed in what order, the shared
//! root they see, and how their errors are reworded.
//!
//! Facts this follows (checked against helm 4.1.4): all of a render's templates live in one Go
//! template set; they are parsed and executed deepest path first, then in reverse lexical order,
//! so a name `define`d twice keeps the definition parsed last; every template of a chart shares
//! one root map, which is why `set $ "Values" …` in one file is seen by the files executed after
//! it; partials (`_*.tpl`) are parsed, never executed; the output of each file has every
//! `<no value>` removed.

use std::collections::BTreeMap;

use gotemplate::{Map, MissingKey, Templates, Value};

use crate::chart::Chart;
use crate::funcs::{self, WARN_END, WARN_START};

/// The name of the root of Helm's template set (it shows in some of Go's error messages).
pub const ROOT_TEMPLATE_NAME: &str = "gotpl";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct RenderError(pub String);

/// What every template of the root chart sees besides `.Values`.
pub struct RenderContext {
    pub release: Map,
    pub capabilities: Value,
}

/// Renders every template of `chart` with `values` (already coalesced). Returns the output of
/// each executed file by its full name (`chart/templates/x.yaml`), NOTES.txt included.
pub fn render(
    chart: &Chart,
    values: &Map,
    context: &RenderContext,
) -> Result<BTreeMap<String, String>, RenderError> {
    let chart_name = &chart.metadata.name;
    let root = Map::from_entries([
        ("Chart", chart.metadata_value(true)),
        ("Files", files_value(chart)),
        ("Release", Value::Map(context.release.clone())),
        ("Capabilities", context.capabilities.clone()),
        ("Values", Value::Map(values.clone())),
        ("Subcharts", Value::Map(Map::new())),
    ]);
    let mut named: Vec<(String, String)> = chart
        .templates
        .iter()
        .map(|t| (format!("{chart_name}/{}", t.path), t.text()))
        .collect();
    sort_for_parsing(&mut named);

    let mut set = Templates::new(funcs::helm_funcs());
    set.set_root_name(ROOT_TEMPLATE_NAME);
    set.set_missing_key(MissingKey::Zero);
    for (name, text) in &named {
        set.parse(name, text)
            .map_err(|e| cleanup_parse_error(name, &e.to_string()))?;
    }

    let base_path = format!("{chart_name}/templates");
    let mut rendered = BTreeMap::new();
    for (name, _) in &named {
        if is_partial(name) {
            continue;
        }
        let template = Map::from_entries([
            ("Name", Value::str(name)),
            ("BasePath", Value::str(&base_path)),
        ]);
        root.insert("Template", Value::Map(template));
        let out = set
            .execute(name, Value::Map(root.clone()))
            .map_err(|e| reformat_exec_error(&e.to_string()))?;
        rendered.insert(name.clone(), out.replace("<no value>", ""));
    }
    Ok(rendered)
}

fn files_value(chart: &Chart) -> Value {
    let files = chart
        .files
        .iter()
        .map(|f| (f.path.clone(), f.data.clone()))
        .collect();
    Value::Object(std::rc::Rc::new(crate::objects::Files::new(files)))
}

/// A partial: a file whose base name starts with `_`.
pub fn is_partial(name: &str) -> bool {
    name.rsplit('/')
        .next()
        .is_some_and(|base| base.starts_with('_'))
}

/// Helm's `sortTemplates`: more `/` first; equal depth in reverse lexical order.
fn sort_for_parsing(named: &mut [(String, String)]) {
    named.sort_by(|(a, _), (b, _)| {
        let depth = |s: &str| s.bytes().filter(|&c| c == b'/').count();
        depth(b).cmp(&depth(a)).then_with(|| b.cmp(a))
    });
}

/// Helm's `cleanupParseError`: `parse error at (LOCATION): MESSAGE`, from Go's
/// `template: LOCATION: …: MESSAGE`.
fn cleanup_parse_error(filename: &str, text: &str) -> RenderError {
    let tokens: Vec<&str> = text.split(": ").collect();
    if tokens.len() == 1 {
        return RenderError(format!("parse error in ({filename}): {text}"));
    }
    RenderError(format!(
        "parse error at ({}): {}",
        tokens[1],
        tokens[tokens.len() - 1]
    ))
}

/// One level of Go's `template: LOC: executing "NAME" at <NODE>: MESSAGE`.
struct ExecLevel<'a> {
    location: &'a str,
    name: &'a str,
    node: &'a str,
    message: &'a str,
}

fn parse_exec_level(text: &str) -> Option<ExecLevel<'_>> {
    let rest = text.strip_prefix("template: ")?;
    let (location, rest) = rest.split_once(": executing \"")?;
    let (name, rest) = rest.split_once("\" at <")?;
    let (node, message) = rest.split_once(">: ")?;
    Some(ExecLevel {
        location,
        name,
        node,
        message,
    })
}

/// Helm 4's rewording of execution errors. `required`/`fail` messages become
/// `execution error at (LOC): MESSAGE`. Errors the executor raised itself become an indented
/// trace, one level per nested `include`; an error a function returned is left as Go wrote it.
pub fn reformat_exec_error(text: &str) -> RenderError {
    if let Some(level) = parse_exec_level(text)
        && let Some(start) = text.find(WARN_START)
    {
        let after = &text[start + WARN_START.len()..];
        if let Some(end) = after.rfind(WARN_END) {
            return RenderError(format!(
                "execution error at ({}): {}",
                level.location,
                &after[..end]
            ));
        }
    }
    RenderError(trace(text).unwrap_or_else(|| text.to_string()))
}

fn trace(text: &str) -> Option<String> {
    let level = parse_exec_level(text)?;
    let head = format!(
        "{}\n  executing \"{}\" at <{}>:\n    ",
        level.location, level.name, level.node
    );
    match level.message.strip_prefix("error calling ") {
        Some(rest) => {
            let (func, inner) = rest.split_once(": ")?;
            let inner_trace = trace(inner)?;
            Some(format!("{head}error calling {func}:\n{inner_trace}"))
        }
        None => Some(format!("{head}{}", level.message)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_order_is_deepest_first_then_reverse_lexical() {
        let mut named: Vec<(String, String)> = [
            "c/templates/a.yaml",
            "c/templates/b.yaml",
            "c/templates/sub/z.yaml",
            "c/templates/_h.tpl",
        ]
        .iter()
        .map(|s| (s.to_string(), String::new()))
        .collect();
        sort_for_parsing(&mut named);
        let order: Vec<&str> = named.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            order,
            [
                "c/templates/sub/z.yaml",
                "c/templates/b.yaml",
                "c/templates/a.yaml",
                "c/templates/_h.tpl"
            ]
        );
    }

    #[test]
    fn exec_errors_are_reworded_like_helm() {
        let cases = [
            (
                r#"template: e1/templates/x.yaml:1:13: executing "e1/templates/x.yaml" at <.Values.m.n>: nil pointer evaluating interface {}.n"#,
                "e1/templates/x.yaml:1:13\n  executing \"e1/templates/x.yaml\" at <.Values.m.n>:\n    nil pointer evaluating interface {}.n",
            ),
            (
                r#"template: e1/templates/x.yaml:1:6: executing "e1/templates/x.yaml" at <eq .Values.a 1>: error calling eq: incompatible types for comparison: float64 and int"#,
                r#"template: e1/templates/x.yaml:1:6: executing "e1/templates/x.yaml" at <eq .Values.a 1>: error calling eq: incompatible types for comparison: float64 and int"#,
            ),
            (
                r#"template: e1/templates/x.yaml:1:48: executing "e1/templates/x.yaml" at <include "t" .>: error calling include: template: e1/templates/x.yaml:1:26: executing "t" at <.Values.q.r>: nil pointer evaluating interface {}.r"#,
                "e1/templates/x.yaml:1:48\n  executing \"e1/templates/x.yaml\" at <include \"t\" .>:\n    error calling include:\ne1/templates/x.yaml:1:26\n  executing \"t\" at <.Values.q.r>:\n    nil pointer evaluating interface {}.r",
            ),
            (
                r#"template: e1/templates/x.yaml:1:6: executing "e1/templates/x.yaml" at <fail "boom">: error calling fail: HELM_ERR_STARTboomHELM_ERR_END"#,
                "execution error at (e1/templates/x.yaml:1:6): boom",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(reformat_exec_error(input).0, want);
        }
    }
}
