//! Helm's rendering engine: which templates are parsed and executed in what order, the shared
//! root they see, and how their errors are reworded.
//!
//! Facts this follows (checked against helm 4.1.4): all of a render's templates live in one Go
//! template set; they are parsed and executed deepest path first, then in reverse lexical order,
//! so a name `define`d twice keeps the definition parsed last; every template of a chart shares
//! one root map, which is why `set $ "Values" …` in one file is seen by the files executed after
//! it; partials (`_*.tpl`) are parsed, never executed; the output of each file has every
//! `<no value>` removed.
//!
//! Its submodules: Helm's own template functions ([`funcs`]) and objects ([`objects`]),
//! `.Files.Glob`'s glob syntax ([`glob`]), and what Helm logs while rendering ([`log`]).

pub mod funcs;
pub mod glob;
pub mod log;
pub mod objects;

use std::collections::BTreeMap;

use gotemplate::{Map, MissingKey, Templates, Value};

use crate::chart::Chart;
use crate::objects::VALUES_TYPE;
use funcs::{WARN_END, WARN_START};

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

/// A template of the render, with the root it executes with (shared by its chart's templates).
struct Renderable {
    name: String,
    text: std::rc::Rc<str>,
    root: Map,
    base_path: String,
}

/// Renders every template of `chart` and of its subcharts with `values` (already coalesced).
/// Returns the output of each executed file by its full name (`chart/templates/x.yaml`,
/// `chart/charts/sub/templates/y.yaml`), NOTES.txt included.
pub fn render(
    chart: &Chart,
    values: &Map,
    context: &RenderContext,
) -> Result<BTreeMap<String, String>, RenderError> {
    render_with(chart, values, context, &goyaml::YamlMemo::new(), None)
}

/// [`render`], with the templates' `fromYaml` and `toYaml` sharing `memo`: afterwards it knows
/// the trees behind the large `toYaml` outputs in the rendered files. With a `helper`, the
/// templates are parsed on both threads when there is enough to parse.
pub fn render_with(
    chart: &Chart,
    values: &Map,
    context: &RenderContext,
    memo: &goyaml::YamlMemo,
    helper: Option<&cores::Worker>,
) -> Result<BTreeMap<String, String>, RenderError> {
    let mut rendered = BTreeMap::new();
    render_each(chart, values, context, memo, helper, |name, pieces| {
        rendered.insert(name, pieces.concat());
    })?;
    Ok(rendered)
}

/// [`render_with`], handing each file's output to `each` (name, output as the pieces it was
/// printed in, see [`gotemplate::exec::Output::into_pieces`]) as soon as it is rendered, in
/// the order Helm executes them (not the order of the names), so that a caller can start on
/// it while the rest renders.
pub fn render_each(
    chart: &Chart,
    values: &Map,
    context: &RenderContext,
    memo: &goyaml::YamlMemo,
    helper: Option<&cores::Worker>,
    mut each: impl FnMut(String, Vec<gotemplate::Str>),
) -> Result<(), RenderError> {
    let mut all = Vec::new();
    collect(chart, None, &chart.metadata.name, values, context, &mut all);
    all.sort_by(|a, b| parse_order(&a.name, &b.name));

    let mut set = Templates::new(funcs::helm_funcs_with(memo));
    set.set_root_name(ROOT_TEMPLATE_NAME);
    set.set_missing_key(MissingKey::Zero);
    set.set_map_methods(std::rc::Rc::new(crate::objects::values_method));
    parse_all(&mut set, &all, helper)?;

    for t in &all {
        if is_partial(&t.name) {
            continue;
        }
        // A `common.Values`, as the root it is put in.
        let template = Map::from_entries([
            ("Name", Value::str(&t.name)),
            ("BasePath", Value::str(&t.base_path)),
        ])
        .retyped(Some(VALUES_TYPE));
        t.root.insert("Template", Value::Map(template));
        let pieces = set
            .execute_pieces(&t.name, Value::Map(t.root.clone()))
            .map_err(|e| reformat_exec_error(&e.to_string()))?;
        each(t.name.clone(), without_no_value(pieces));
    }
    if crate::freeing_skipped() {
        std::mem::forget(set);
        std::mem::forget(all);
    }
    Ok(())
}

/// Helm's removal of `<no value>` from a rendered file, here given as pieces: joined into one
/// when it is found (in a piece or across several).
fn without_no_value(pieces: Vec<gotemplate::Str>) -> Vec<gotemplate::Str> {
    if !contains_across(&pieces, NO_VALUE) {
        return pieces;
    }
    vec![gotemplate::Str::from(pieces.concat().replace(NO_VALUE, ""))]
}

const NO_VALUE: &str = "<no value>";

/// Whether the pieces joined would contain `pattern`, without joining them: a match across
/// pieces starts in the last `pattern.len() - 1` bytes before a piece and ends in its first
/// `pattern.len()`, however many pieces it spans.
fn contains_across(pieces: &[gotemplate::Str], pattern: &str) -> bool {
    let mut tail = String::new();
    for piece in pieces {
        if piece.contains(pattern) {
            return true;
        }
        let head = &piece[..piece.ceil_char_boundary(pattern.len().min(piece.len()))];
        let window = format!("{tail}{head}");
        if window.contains(pattern) {
            return true;
        }
        let last = if piece.len() >= pattern.len() {
            piece.as_str()
        } else {
            tail.push_str(piece);
            tail.as_str()
        };
        tail = last[last.floor_char_boundary(last.len().saturating_sub(pattern.len() - 1))..]
            .to_string();
    }
    false
}

/// Below this much template text a helper costs about what it saves.
pub const PARSE_BESIDE_MIN: usize = 32 * 1024;

/// Parses every template into `set` in Helm's order (the order decides which of two `define`s
/// of one name wins); the first failure in that order is the error.
fn parse_all(
    set: &mut Templates,
    all: &[Renderable],
    helper: Option<&cores::Worker>,
) -> Result<(), RenderError> {
    let named: Vec<(&str, &str)> = all.iter().map(|t| (t.name.as_str(), &*t.text)).collect();
    let parse_error =
        |name: &str, e| cleanup_parse_error(name, &gotemplate::ParseError::to_string(&e));
    let parse_here = |set: &mut Templates, named: &[(&str, &str)]| {
        named
            .iter()
            .try_for_each(|(name, text)| set.parse(name, text).map_err(|e| parse_error(name, e)))
    };
    // A helper may take the last templates, up to two thirds of the text (copied for it).
    let total: usize = named.iter().map(|(_, text)| text.len()).sum();
    let mut first_theirs = named.len();
    let mut theirs_len = 0;
    while first_theirs > 0 && theirs_len + named[first_theirs - 1].1.len() <= total * 2 / 3 {
        first_theirs -= 1;
        theirs_len += named[first_theirs].1.len();
    }
    let Some(helper) = helper.filter(|_| total >= PARSE_BESIDE_MIN && first_theirs < named.len())
    else {
        return parse_here(set, &named);
    };
    let shared = std::sync::Arc::new(Sharing {
        next: std::sync::Mutex::new(Next {
            front: 0,
            back: named.len(),
            helper_took: false,
        }),
        first_theirs,
        templates: named[first_theirs..]
            .iter()
            .map(|(name, text)| (name.to_string(), text.to_string()))
            .collect(),
    });
    let parser = set.detached_parser();
    let theirs = shared.clone();
    let (done, parsed) = std::sync::mpsc::sync_channel(1);
    helper.run(move || {
        let mut parsed = Vec::new();
        while let Some(i) = theirs.take_back() {
            let (name, text) = &theirs.templates[i - theirs.first_theirs];
            parsed.push((i, parser.parse(name, text)));
        }
        let _ = done.send(parsed);
    });
    // This thread takes templates from the first, the helper from the last, until they meet:
    // whichever starts late or parses slowly does less.
    let mut mine = Ok(());
    while let Some(i) = shared.take_front() {
        let (name, text) = named[i];
        if let Err(e) = set.parse(name, text) {
            // Every template the helper took comes after this one: this error is the first.
            shared.stop();
            mine = Err(parse_error(name, e));
            break;
        }
    }
    // A helper busy with earlier jobs may not have taken any: then there is nothing to wait
    // for (it can take none from now on), and its job ends at once when it runs.
    if !shared.next().helper_took {
        return mine;
    }
    // Waits for the template the helper is at; a helper that panicked sends nothing.
    let mut parsed = parsed.recv().expect("the template parse helper panicked");
    mine?;
    parsed.sort_by_key(|(i, _)| *i);
    parsed.into_iter().try_for_each(|(i, parsed)| {
        set.add_parsed(parsed.map_err(|e| parse_error(named[i].0, e))?);
        Ok(())
    })
}

/// The templates of a parse shared by the render thread and a helper (see [`parse_all`]).
struct Sharing {
    next: std::sync::Mutex<Next>,
    /// The first template the helper may take; `templates` are the copies from there on.
    first_theirs: usize,
    templates: Vec<(String, String)>,
}

/// The templates not taken yet: `front..back`.
struct Next {
    front: usize,
    back: usize,
    /// Whether the helper has taken one (then its results are waited for).
    helper_took: bool,
}

impl Sharing {
    fn next(&self) -> std::sync::MutexGuard<'_, Next> {
        // Single assignments under the lock: a panic while holding it leaves nothing half-done.
        self.next.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn take_front(&self) -> Option<usize> {
        let mut next = self.next();
        (next.front < next.back).then(|| {
            next.front += 1;
            next.front - 1
        })
    }

    fn take_back(&self) -> Option<usize> {
        let mut next = self.next();
        (next.front < next.back && next.back > self.first_theirs).then(|| {
            next.helper_took = true;
            next.back -= 1;
            next.back
        })
    }

    /// No more templates for the helper.
    fn stop(&self) {
        let mut next = self.next();
        next.back = next.front;
    }
}

/// Helm's `recAllTpls`: the root of `chart` (its `.Values` is the parent's `.Values.NAME`
/// table, shared, or an empty map), its subcharts' roots under `.Subcharts`, and its
/// templates (a library chart's partials only) named below `full_path`.
fn collect(
    chart: &Chart,
    parent: Option<&Map>,
    full_path: &str,
    root_values: &Map,
    context: &RenderContext,
    out: &mut Vec<Renderable>,
) -> Map {
    let values = match parent {
        None => root_values.clone(),
        Some(parent) => match parent.get("Values") {
            Some(Value::Map(v)) => match v.get(&chart.metadata.name) {
                Some(Value::Map(own)) => own.retyped(Some(VALUES_TYPE)),
                _ => Map::named(VALUES_TYPE),
            },
            _ => Map::named(VALUES_TYPE),
        },
    };
    let subcharts = Map::new();
    // The templates' root is a `common.Values` (with its methods); `.Subcharts` holds the
    // subcharts' roots as plain maps.
    let root = Map::from_entries([
        ("Chart", chart.metadata_value(parent.is_none())),
        ("Files", files_value(chart)),
        ("Release", Value::Map(context.release.clone())),
        ("Capabilities", context.capabilities.clone()),
        ("Values", Value::Map(values)),
        ("Subcharts", Value::Map(subcharts.clone())),
    ])
    .retyped(Some(VALUES_TYPE));
    for sub in &chart.dependencies {
        let sub_path = format!("{full_path}/charts/{}", sub.metadata.name);
        let sub_root = collect(sub, Some(&root), &sub_path, root_values, context, out);
        subcharts.insert(
            sub.metadata.name.as_str(),
            Value::Map(sub_root.retyped(None)),
        );
    }
    let base_path = format!("{full_path}/templates");
    for t in &chart.templates {
        if chart.is_library() && !is_partial(&t.path) {
            continue;
        }
        let name = format!("{full_path}/{}", t.path);
        // A later chart of the same full name (two aliases cannot collide) replaces it.
        out.retain(|r: &Renderable| r.name != name);
        out.push(Renderable {
            name,
            text: t.text().into(),
            root: root.clone(),
            base_path: base_path.clone(),
        });
    }
    root
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
fn parse_order(a: &str, b: &str) -> std::cmp::Ordering {
    let depth = |s: &str| s.bytes().filter(|&c| c == b'/').count();
    depth(b).cmp(&depth(a)).then_with(|| b.cmp(a))
}

#[cfg(test)]
fn sort_for_parsing(named: &mut [(String, String)]) {
    named.sort_by(|(a, _), (b, _)| parse_order(a, b));
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
            // Helm's `parseTemplateNoTemplateError`: Go's `template: no template %q associated
            // with template %q` (an `include` of an undefined name) is a link of the trace of
            // its own, printed whole, without a location.
            let inner_trace = if inner.starts_with("template: no template ") {
                inner.trim_end().to_string()
            } else {
                trace(inner)?
            };
            Some(format!("{head}error calling {func}:\n{inner_trace}"))
        }
        None => Some(format!("{head}{}", level.message)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_value_is_removed_also_across_pieces() {
        let pieces = |parts: &[&str]| -> Vec<gotemplate::Str> {
            parts.iter().map(|p| gotemplate::Str::from(*p)).collect()
        };
        let joined = |pieces: Vec<gotemplate::Str>| -> String {
            pieces.iter().map(|p| p.as_str()).collect()
        };
        for parts in [
            &["a <no value> b"][..],
            &["a <n", "o v", "alue> b"],
            &["a <no value", "> b"],
            &["a ", "<", "n", "o", " ", "v", "a", "l", "u", "e", ">", " b"],
            &["é<no v", "alue>é ", "<no value>"],
        ] {
            let want = parts.concat().replace(NO_VALUE, "");
            assert_eq!(joined(without_no_value(pieces(parts))), want, "{parts:?}");
        }
        // Without one, the pieces are handed back as they were.
        let kept = pieces(&["é<no v", "alué> ", "<no valu"]);
        let first = kept[0].as_ptr();
        let back = without_no_value(kept);
        assert_eq!(back.len(), 3);
        assert_eq!(back[0].as_ptr(), first);
    }

    /// A chart `c` of these files (`templates/...`), and a context to render it in.
    fn chart_of(templates: &[(&str, String)]) -> (Chart, RenderContext) {
        let mut files = vec![crate::chart::ChartFile {
            path: "Chart.yaml".into(),
            data: crate::chart::FileData::new(b"apiVersion: v2\nname: c\nversion: 0.1.0\n"),
        }];
        files.extend(
            templates
                .iter()
                .map(|(path, text)| crate::chart::ChartFile {
                    path: path.to_string(),
                    data: crate::chart::FileData::new(text.as_bytes()),
                }),
        );
        let context = RenderContext {
            release: Map::new(),
            capabilities: Value::Nil,
        };
        (Chart::from_files(files).unwrap(), context)
    }

    /// Renders files (`templates/...`) of a chart `c` both ways; the results must agree.
    fn render_both_ways(
        templates: &[(&str, String)],
    ) -> Result<BTreeMap<String, String>, RenderError> {
        let (chart, context) = chart_of(templates);
        let render = |helper| {
            render_with(
                &chart,
                &Map::new(),
                &context,
                &goyaml::YamlMemo::new(),
                helper,
            )
        };
        let one = render(None);
        let worker = cores::Worker::start("test-parse", cores::MAIN_THREAD_STACK);
        assert!(worker.is_some() || cores::available() < 2);
        assert_eq!(one, render(worker.as_ref()));
        one
    }

    /// Enough text that a parse helper is used.
    fn padding() -> String {
        format!("{{{{/* {} */}}}}", "x".repeat(PARSE_BESIDE_MIN))
    }

    #[test]
    fn parsing_beside_keeps_helm_s_order_for_defines_and_errors() {
        // Parse order: d, c, b, a (reverse lexical); d is twice as long as the others, so the
        // helper takes b and a, up to half of the text. The last `define` parsed wins, whichever
        // thread parsed it.
        let pad = padding();
        let define = |body: &str| format!("{pad}{{{{define \"x\"}}}}{body}{{{{end}}}}");
        let files = [
            ("templates/a.yaml", format!("{pad}{{{{include \"x\" .}}}}")),
            ("templates/b.yaml", define("from b")),
            ("templates/c.yaml", define("from c")),
            ("templates/d.yaml", pad.repeat(2)),
        ];
        let out = render_both_ways(&files).unwrap();
        assert!(out["c/templates/a.yaml"].ends_with("from b"), "{out:?}");
        // The failure parsed first is reported, on either thread.
        let broken = format!("{pad}{{{{ if }}}}");
        let paths = ["a", "b", "c", "d"].map(|name| format!("templates/{name}.yaml"));
        for (first, second) in [("b", "a"), ("c", "a"), ("d", "c"), ("a", "a")] {
            let files: Vec<(&str, String)> = paths
                .iter()
                .map(|path| {
                    let broken_here = [first, second]
                        .iter()
                        .any(|n| path.contains(&format!("/{n}.")));
                    // d stays twice as long, so that the helper takes b and a.
                    let text = if broken_here {
                        broken.clone()
                    } else {
                        pad.clone()
                    };
                    let text = if path.contains("/d.") {
                        text.repeat(2)
                    } else {
                        text
                    };
                    (path.as_str(), text)
                })
                .collect();
            let err = render_both_ways(&files).unwrap_err();
            assert!(
                err.0.contains(&format!("c/templates/{first}.yaml")),
                "{err}"
            );
        }
    }

    #[test]
    fn a_parse_does_not_wait_for_a_helper_busy_with_earlier_jobs() {
        let Some(worker) = cores::Worker::start("test-busy", cores::MAIN_THREAD_STACK) else {
            return;
        };
        let pad = padding();
        let files = [
            ("templates/a.yaml", format!("{pad}a")),
            ("templates/b.yaml", format!("{pad}b")),
        ];
        let (chart, context) = chart_of(&files);
        // The worker is held by a job until the render has ended; a render that waited for
        // it would see the job give up first.
        let (release, released) = std::sync::mpsc::channel::<()>();
        let gave_up = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = gave_up.clone();
        worker.run(move || {
            let wait = std::time::Duration::from_secs(20);
            if released.recv_timeout(wait).is_err() {
                flag.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        });
        let memo = goyaml::YamlMemo::new();
        let out = render_with(&chart, &Map::new(), &context, &memo, Some(&worker)).unwrap();
        release.send(()).unwrap();
        drop(worker);
        assert!(!gave_up.load(std::sync::atomic::Ordering::SeqCst));
        assert_eq!(out["c/templates/a.yaml"], "a");
    }

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
                r#"template: e1/templates/x.yaml:1:3: executing "e1/templates/x.yaml" at <include "n" .>: error calling include: template: no template "n" associated with template "gotpl""#,
                "e1/templates/x.yaml:1:3\n  executing \"e1/templates/x.yaml\" at <include \"n\" .>:\n    error calling include:\ntemplate: no template \"n\" associated with template \"gotpl\"",
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
