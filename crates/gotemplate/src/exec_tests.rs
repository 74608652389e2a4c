//! Executor tests: the golden cases of `testdata/exec.txt` (checked against Go by the oracle in
//! `testdata/oracle`), plus behaviour the file format cannot express.

use std::rc::Rc;

use crate::error::ExecErrorKind;
use crate::funcs::{ArgType, Context, Func, FuncError, FuncMap};
use crate::template::{MissingKey, Templates};
use crate::value::{IntKind, Map, Object, Value};

const EXEC_CASES: &str = include_str!("../testdata/exec.txt");
const PARSE_CASES: &str = include_str!("../testdata/parse.txt");

struct Case {
    name: String,
    sections: Vec<(String, String, String)>,
}

/// The same format rules as the oracle's parser.
fn parse_cases(text: &str) -> Vec<Case> {
    fn end_case(lines: &mut Vec<&str>) {
        if lines.last() == Some(&"") {
            lines.pop();
        }
    }
    fn flush(case: &mut Option<Case>, sec: &mut Option<(String, String)>, lines: &mut Vec<&str>) {
        if let (Some(c), Some((kind, arg))) = (case.as_mut(), sec.take()) {
            c.sections.push((kind, arg, lines.join("\n")));
        }
        lines.clear();
    }
    let mut cases = Vec::new();
    let mut case: Option<Case> = None;
    let mut sec: Option<(String, String)> = None;
    let mut lines: Vec<&str> = Vec::new();
    for line in text.split('\n') {
        if let Some(name) = line.strip_prefix("### ") {
            end_case(&mut lines);
            flush(&mut case, &mut sec, &mut lines);
            if let Some(c) = case.take() {
                cases.push(c);
            }
            case = Some(Case {
                name: name.to_string(),
                sections: Vec::new(),
            });
        } else if case.is_some()
            && let Some(h) = line.strip_prefix("--- ")
        {
            flush(&mut case, &mut sec, &mut lines);
            let (kind, arg) = h.split_once(' ').unwrap_or((h, ""));
            sec = Some((kind.to_string(), arg.to_string()));
        } else if case.is_some() {
            lines.push(line);
        }
    }
    end_case(&mut lines);
    flush(&mut case, &mut sec, &mut lines);
    cases.extend(case);
    cases
}

/// A small JSON reader for test data: integers become Go `int`s, other numbers `float64`.
struct Json<'a> {
    s: &'a [u8],
    i: usize,
}

impl Json<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn value(&mut self) -> Value {
        self.ws();
        match self.s[self.i] {
            b'{' => {
                self.i += 1;
                let m = Map::new();
                loop {
                    self.ws();
                    if self.s[self.i] == b'}' {
                        self.i += 1;
                        return Value::Map(m);
                    }
                    let Value::String(k) = self.value() else {
                        panic!("bad key")
                    };
                    self.ws();
                    assert_eq!(self.s[self.i], b':');
                    self.i += 1;
                    let v = self.value();
                    m.insert(k, v);
                    self.ws();
                    if self.s[self.i] == b',' {
                        self.i += 1;
                    }
                }
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    self.ws();
                    if self.s[self.i] == b']' {
                        self.i += 1;
                        return Value::list(items);
                    }
                    items.push(self.value());
                    self.ws();
                    if self.s[self.i] == b',' {
                        self.i += 1;
                    }
                }
            }
            b'"' => {
                self.i += 1;
                let start = self.i;
                while self.s[self.i] != b'"' {
                    self.i += 1;
                }
                self.i += 1;
                Value::from(std::str::from_utf8(&self.s[start..self.i - 1]).unwrap())
            }
            b't' => self.word("true", Value::Bool(true)),
            b'f' => self.word("false", Value::Bool(false)),
            b'n' => self.word("null", Value::Nil),
            _ => {
                let start = self.i;
                while self.i < self.s.len() && b"+-.eE0123456789".contains(&self.s[self.i]) {
                    self.i += 1;
                }
                let t = std::str::from_utf8(&self.s[start..self.i]).unwrap();
                if t.contains(['.', 'e', 'E']) {
                    Value::Float(t.parse().unwrap())
                } else {
                    Value::int(t.parse().unwrap())
                }
            }
        }
    }

    fn word(&mut self, w: &str, v: Value) -> Value {
        self.i += w.len();
        v
    }
}

fn json(s: &str) -> Value {
    Json {
        s: s.as_bytes(),
        i: 0,
    }
    .value()
}

fn func(
    params: Vec<ArgType>,
    variadic: Option<ArgType>,
    result: &'static str,
    imp: impl Fn(&mut dyn Context, Vec<Value>) -> Result<Value, FuncError> + 'static,
) -> Func {
    Func::new(params, variadic, result, imp)
}

fn arg_str(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

/// The oracle's functions, with the same Go signatures.
fn test_funcs() -> FuncMap {
    use ArgType::*;
    let mut m = FuncMap::new();
    m.insert(
        "fail",
        func(vec![String], None, "string", |_, a| {
            Err(FuncError::new(arg_str(&a[0])))
        }),
    );
    m.insert(
        "id",
        func(vec![Any], None, "interface {}", |_, mut a| Ok(a.remove(0))),
    );
    m.insert(
        "i64",
        func(vec![Int(IntKind::Int64)], None, "int64", |_, mut a| {
            Ok(a.remove(0))
        }),
    );
    m.insert(
        "u8",
        func(vec![Int(IntKind::Uint8)], None, "uint8", |_, mut a| {
            Ok(a.remove(0))
        }),
    );
    m.insert(
        "f64",
        func(vec![Float64], None, "float64", |_, mut a| Ok(a.remove(0))),
    );
    m.insert(
        "str",
        func(vec![String], None, "string", |_, mut a| Ok(a.remove(0))),
    );
    m.insert(
        "boolf",
        func(vec![Bool], None, "bool", |_, mut a| Ok(a.remove(0))),
    );
    m.insert(
        "nilf",
        func(vec![], None, "interface {}", |_, _| Ok(Value::Nil)),
    );
    m.insert(
        "list",
        func(vec![], Some(Any), "[]interface {}", |_, a| {
            Ok(Value::list(a))
        }),
    );
    m.insert(
        "strs",
        func(vec![], Some(String), "[]string", |_, a| {
            Ok(Value::List(crate::value::List::typed(a, "string")))
        }),
    );
    m.insert(
        "typeof",
        func(vec![Any], None, "string", |_, a| {
            Ok(Value::from(a[0].type_name()))
        }),
    );
    m.insert(
        "cat",
        func(vec![String], Some(String), "string", |_, a| {
            let rest: Vec<std::string::String> = a[1..].iter().map(arg_str).collect();
            Ok(Value::from(format!(
                "{}|{}",
                arg_str(&a[0]),
                rest.join(",")
            )))
        }),
    );
    m.insert(
        "mlist",
        func(vec![List], None, "int", |_, a| {
            Ok(Value::int(a[0].as_list().map_or(0, |l| l.len()) as i64))
        }),
    );
    m.insert(
        "include",
        func(vec![String, Any], None, "string", |ctx, a| {
            Ok(Value::from(
                ctx.execute_template(&arg_str(&a[0]), a[1].clone())?,
            ))
        }),
    );
    m.insert(
        "tpl",
        func(vec![String, Any], None, "string", |ctx, a| {
            Ok(Value::from(ctx.execute_text(
                "tpl",
                &arg_str(&a[0]),
                a[1].clone(),
            )?))
        }),
    );
    m.insert(
        "fnv",
        func(vec![], None, "interface {}", |_, _| {
            let mut f = Func::new(vec![], None, "string", |_, _| Ok(Value::str("")));
            f.returns_error = false;
            Ok(Value::Func(Rc::new(f)))
        }),
    );
    // Until Go's builtins land: names for the parser (cases calling them are marked `needs
    // builtins`), and stand-ins for and/or, which the executor short-circuits itself.
    let builtins = FuncMap::builtins();
    for name in [
        "call", "html", "index", "slice", "js", "len", "not", "print", "printf", "println",
        "urlquery", "eq", "ge", "gt", "le", "lt", "ne",
    ] {
        if !builtins.contains(name) {
            m.insert(
                name,
                func(vec![], Some(Reflect), "interface {}", |_, _| {
                    Err(FuncError::new("builtin not yet available"))
                }),
            );
        }
    }
    if !builtins.contains("and") {
        for name in ["and", "or"] {
            let mut f = func(vec![Reflect], Some(Reflect), "reflect.Value", |_, _| {
                Ok(Value::Invalid)
            });
            f.returns_error = false;
            f.builtin = true;
            m.insert(name, f);
        }
    }
    m
}

fn fmt_is_stub() -> bool {
    crate::fmt::print_value(&Value::int(1)).is_empty()
}

fn builtins_are_stub() -> bool {
    !FuncMap::builtins().contains("eq")
}

fn run_case(c: &Case) -> String {
    let mut t = Templates::new(test_funcs());
    t.set_root_name("gotpl");
    let mut data = Value::Nil;
    let mut exec = "t".to_string();
    for (kind, arg, body) in &c.sections {
        match kind.as_str() {
            "mk" => t.set_missing_key(match body.trim() {
                "zero" => MissingKey::Zero,
                "error" => MissingKey::Error,
                _ => MissingKey::Default,
            }),
            "delims" => {
                let (l, r) = body.trim().split_once(' ').unwrap_or(("", ""));
                t.set_delims(l, r);
            }
            "data" => data = json(body),
            "exec" => exec = arg.trim().to_string(),
            _ => {}
        }
    }
    for (kind, arg, body) in &c.sections {
        let name = match kind.as_str() {
            "template" => "t",
            "file" => arg.as_str(),
            _ => continue,
        };
        if let Err(e) = t.parse(name, body) {
            return format!("PARSE:{e}");
        }
    }
    match t.execute(&exec, data) {
        Ok(out) => format!("OUT:{out}"),
        Err(e) => format!("EXEC:{e}"),
    }
}

#[test]
fn golden_exec_cases() {
    run_golden(EXEC_CASES);
}

#[test]
fn golden_parse_cases() {
    run_golden(PARSE_CASES);
}

fn run_golden(file: &str) {
    let cases = parse_cases(file);
    assert!(cases.len() > 50, "cases not found");
    let (skip_fmt, skip_builtins) = (fmt_is_stub(), builtins_are_stub());
    let mut failures = Vec::new();
    let mut skipped = 0;
    for c in &cases {
        let needs = c
            .sections
            .iter()
            .find(|s| s.0 == "needs")
            .map_or("", |s| s.2.as_str());
        if (skip_fmt && needs.contains("fmt")) || (skip_builtins && needs.contains("builtins")) {
            skipped += 1;
            continue;
        }
        let Some(want) = c.sections.iter().find(|s| s.0 == "want").map(|s| &s.2) else {
            failures.push(format!("{}: no want section", c.name));
            continue;
        };
        let got = run_case(c);
        if &got != want {
            failures.push(format!("{}\n   want {want:?}\n    got {got:?}", c.name));
        }
    }
    eprintln!(
        "{} golden cases, {skipped} skipped until fmt/builtins land",
        cases.len()
    );
    assert!(
        failures.is_empty(),
        "{} failing cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn run(text: &str, data: Value) -> Result<String, String> {
    let mut t = Templates::new(test_funcs());
    t.parse("t", text).map_err(|e| e.to_string())?;
    t.execute("t", data).map_err(|e| e.to_string())
}

#[test]
fn structured_errors() {
    let mut t = Templates::new(test_funcs());
    t.parse("x.yaml", "a\nb {{ fail \"no\" }}").unwrap();
    let e = t.execute("x.yaml", Value::Nil).unwrap_err();
    assert_eq!(e.name, "x.yaml");
    let loc = e.location.clone().unwrap();
    assert_eq!(
        (loc.parse_name.as_str(), loc.line, loc.col),
        ("x.yaml", 2, 5)
    );
    assert_eq!(e.context.as_deref(), Some("fail \"no\""));
    assert_eq!(e.message, "error calling fail: no");
    assert_eq!(
        e.to_string(),
        "template: x.yaml:2:5: executing \"x.yaml\" at <fail \"no\">: error calling fail: no"
    );

    let e = t.execute("missing", Value::Nil).unwrap_err();
    assert!(matches!(e.kind, ExecErrorKind::NoTemplate { .. }));
    assert_eq!(
        e.to_string(),
        "template: no template \"missing\" associated with template \"\""
    );

    let e = t.parse("p", "\n{{ .x").unwrap_err();
    assert_eq!(
        (e.name.as_str(), e.line, e.message.as_str()),
        ("p", 2, "unclosed action")
    );
}

#[test]
fn parse_failure_adds_nothing() {
    let mut t = Templates::new(test_funcs());
    assert!(t.parse("a", "{{define \"d\"}}x{{end}}{{").is_err());
    assert!(!t.has("a") && !t.has("d"));
    t.parse("b", "{{define \"d\"}}x{{end}}").unwrap();
    assert_eq!(t.names(), ["b", "d"]);
}

#[test]
fn clones_share_but_do_not_leak() {
    let mut base = Templates::new(test_funcs());
    base.parse("a", "{{define \"d\"}}base{{end}}A").unwrap();
    let mut clone = base.clone();
    clone
        .parse("b", "{{define \"d\"}}clone{{end}}{{template \"d\"}}")
        .unwrap();
    assert_eq!(clone.execute("b", Value::Nil).unwrap(), "clone");
    assert!(!base.has("b"));
    assert_eq!(base.execute("a", Value::Nil).unwrap(), "A");
    base.parse("c", "{{template \"d\"}}").unwrap();
    assert_eq!(base.execute("c", Value::Nil).unwrap(), "base");
    assert!(!clone.has("c"));
}

#[test]
fn tpl_defines_do_not_leak_into_the_running_set() {
    let mut t = Templates::new(test_funcs());
    t.parse(
        "t",
        "{{tpl \"{{define \\\"q\\\"}}Q{{end}}\" .}}{{include \"q\" .}}",
    )
    .unwrap();
    let e = t.execute("t", Value::Nil).unwrap_err().to_string();
    assert!(
        e.ends_with(
            "error calling include: template: no template \"q\" associated with template \"\""
        ),
        "{e}"
    );
}

#[test]
fn a_parsed_text_runs_its_own_tree_even_when_empty() {
    // The test `tpl` parses its text as "tpl": an empty text does not replace the set's
    // "tpl", yet what runs is the text's own (empty) tree, as Go's `t.New(name).Parse` runs.
    let mut t = Templates::new(test_funcs());
    t.parse("tpl", "OLD").unwrap();
    t.parse(
        "t",
        "[{{tpl \"\" .}}][{{tpl \"{{/* c */}}\" .}}][{{tpl \"{{define \\\"tpl\\\"}}D{{end}}\" .}}][{{template \"tpl\"}}]",
    )
    .unwrap();
    assert_eq!(t.execute("t", Value::Nil).unwrap(), "[][][D][OLD]");
}

#[test]
fn a_text_that_does_not_parse_is_told_from_one_that_fails() {
    let mut funcs = test_funcs();
    funcs.insert(
        "failure",
        func(vec![ArgType::String], None, "string", |ctx, a| {
            Ok(Value::str(
                match ctx.execute_text("x", &arg_str(&a[0]), Value::Nil) {
                    Ok(_) => "none",
                    Err(crate::TextError::Parse(_)) => "parse",
                    Err(crate::TextError::Execute(_)) => "execute",
                },
            ))
        }),
    );
    let mut t = Templates::new(funcs);
    t.parse(
        "t",
        "{{failure \"{{ if }}\"}} {{failure \"{{ template \\\"nope\\\" }}\"}} {{failure \"x\"}}",
    )
    .unwrap();
    assert_eq!(t.execute("t", Value::Nil).unwrap(), "parse execute none");
}

#[test]
fn named_maps_have_methods_before_keys() {
    let mut t = Templates::new(test_funcs());
    t.set_map_methods(Rc::new(|m: &Map, name: &str| {
        (m.type_name() == "x.Named" && name == "Size").then(|| {
            let m = m.clone();
            let mut f = Func::new(
                vec![ArgType::Int(IntKind::Int)],
                None,
                "int",
                move |_, a| {
                    let Value::Int(n, _) = a[0] else {
                        unreachable!()
                    };
                    Ok(Value::int(m.len() as i64 * n))
                },
            );
            f.returns_error = false;
            Rc::new(f)
        })
    }));
    t.parse(
        "t",
        "{{ .n.Size 10 }} {{ .n.k }} {{ .p.Size }} {{ index .n \"Size\" }} {{ $n := .n }}{{ $n.Size 2 }}",
    )
    .unwrap();
    let named = Map::named("x.Named");
    named.insert("k", Value::str("v"));
    named.insert("Size", Value::str("key"));
    let plain = Map::from_entries([("Size", Value::str("plain"))]);
    let data = Map::from_entries([("n", Value::Map(named)), ("p", Value::Map(plain))]);
    assert_eq!(
        t.execute("t", Value::Map(data.clone())).unwrap(),
        "20 v plain key 4"
    );
    t.parse("u", "{{ .n.Size }}").unwrap();
    let e = t.execute("u", Value::Map(data)).unwrap_err().to_string();
    assert!(
        e.ends_with("wrong number of args for Size: want 1 got 0"),
        "{e}"
    );
}

#[test]
fn shared_maps_are_mutated_in_place() {
    let mut funcs = test_funcs();
    funcs.insert(
        "set",
        func(
            vec![ArgType::Map, ArgType::String, ArgType::Any],
            None,
            "map[string]interface {}",
            |_, a| {
                if let Value::Map(m) = &a[0] {
                    m.insert(arg_str(&a[1]), a[2].clone());
                }
                Ok(a[0].clone())
            },
        ),
    );
    let mut t = Templates::new(funcs);
    t.parse("t", "{{$_ := set . \"k\" \"v\"}}{{.k}}").unwrap();
    let data = Map::new();
    assert_eq!(t.execute("t", Value::Map(data.clone())).unwrap(), "v");
    assert_eq!(
        data.get("k")
            .and_then(|v| v.as_str().map(str::to_string))
            .as_deref(),
        Some("v")
    );
}

struct Caps;

impl Object for Caps {
    fn type_name(&self) -> &str {
        "*chartutil.Capabilities"
    }

    fn field(&self, name: &str) -> Option<Value> {
        (name == "KubeVersion").then(|| Value::str("v1.35.0"))
    }

    fn method(&self, name: &str) -> Option<Rc<Func>> {
        match name {
            "Has" => Some(Rc::new(func(
                vec![ArgType::String],
                None,
                "bool",
                |_, a| Ok(Value::Bool(a[0].as_str() == Some("apps/v1"))),
            ))),
            "Name" => Some(Rc::new(func(vec![], None, "string", |_, _| {
                Ok(Value::str("caps"))
            }))),
            _ => None,
        }
    }
}

#[test]
fn objects_methods_then_fields() {
    let data = Value::Map(Map::from_entries([("C", Value::Object(Rc::new(Caps)))]));
    let ok = |t: &str| run(t, data.clone());
    assert_eq!(
        ok("{{.C.KubeVersion}} {{.C.Name}}"),
        Ok("v1.35.0 caps".to_string())
    );
    assert_eq!(
        ok("{{if .C.Has \"apps/v1\"}}yes{{end}}{{if .C.Has \"x\"}}no{{end}}"),
        Ok("yes".to_string())
    );
    assert_eq!(
        ok("{{\"apps/v1\" | .C.Has | typeof}}"),
        Ok("bool".to_string())
    );
    assert_eq!(
        ok("{{.C.Nope}}"),
        Err("template: t:1:4: executing \"t\" at <.C.Nope>: can't evaluate field Nope in type interface {}".to_string())
    );
    assert_eq!(
        ok("{{$c := .C}}{{$c.Nope}}"),
        Err("template: t:1:16: executing \"t\" at <$c.Nope>: can't evaluate field Nope in type *chartutil.Capabilities"
            .to_string())
    );
    assert_eq!(
        ok("{{.C.KubeVersion 1}}"),
        Err("template: t:1:4: executing \"t\" at <.C.KubeVersion>: KubeVersion has arguments but cannot be invoked as function"
            .to_string())
    );
    assert_eq!(
        ok("{{.C.Has}}"),
        Err("template: t:1:4: executing \"t\" at <.C.Has>: wrong number of args for Has: want 1 got 0".to_string())
    );
}

/// A function with a struct parameter (Sprig's `unixEpoch(date time.Time)`), over `Caps` as the
/// struct: Go checks every argument before the call, so the function never runs on a wrong one.
#[test]
fn struct_parameters_are_checked_before_the_call() {
    let mut funcs = test_funcs();
    funcs.insert(
        "epoch",
        func(
            vec![ArgType::String, ArgType::Struct("*chartutil.Capabilities")],
            None,
            "string",
            |_, a| {
                Ok(Value::from(format!(
                    "{} {}",
                    arg_str(&a[0]),
                    a[1].type_name()
                )))
            },
        ),
    );
    let run = |text: &str| {
        let mut t = Templates::new(funcs.clone());
        t.parse("t", text).map_err(|e| e.to_string())?;
        let data = Value::Map(Map::from_entries([
            ("C", Value::Object(Rc::new(Caps))),
            ("s", Value::str("x")),
            ("n", Value::Nil),
        ]));
        t.execute("t", data).map_err(|e| e.to_string())
    };
    assert_eq!(
        run("{{epoch \"a\" .C}}|{{.C | epoch \"b\"}}"),
        Ok("a *chartutil.Capabilities|b *chartutil.Capabilities".to_string())
    );
    let cases = [
        (
            "{{epoch \"a\" \"x\"}}",
            "t:1:12: executing \"t\" at <\"x\">: can't handle \"x\" for arg of type *chartutil.Capabilities",
        ),
        (
            "{{epoch \"a\" 5}}",
            "t:1:12: executing \"t\" at <5>: can't handle 5 for arg of type *chartutil.Capabilities",
        ),
        (
            "{{epoch \"a\" nil}}",
            "t:1:12: executing \"t\" at <nil>: cannot assign nil to *chartutil.Capabilities",
        ),
        (
            "{{epoch \"a\" .s}}",
            "t:1:12: executing \"t\" at <.s>: wrong type for value; expected *chartutil.Capabilities; got string",
        ),
        (
            "{{epoch \"a\" .n}}",
            "t:1:12: executing \"t\" at <.n>: wrong type for value; expected *chartutil.Capabilities; got interface {}",
        ),
        (
            "{{epoch \"a\" .missing}}",
            "t:1:12: executing \"t\" at <.missing>: invalid value; expected *chartutil.Capabilities",
        ),
        (
            "{{.s | epoch \"a\"}}",
            "t:1:13: executing \"t\" at <\"a\">: wrong type for value; expected *chartutil.Capabilities; got string",
        ),
        // The check of an argument comes before the evaluation of the next one.
        (
            "{{epoch 1 (fail \"later\")}}",
            "t:1:8: executing \"t\" at <1>: expected string; found 1",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(run(text), Err(format!("template: {want}")), "{text}");
    }
}

#[test]
fn deep_recursion_does_not_overflow() {
    // Deep parentheses and nested ifs, executed.
    let parens = format!("{{{{{}\"x\"{}}}}}", "(".repeat(5000), ")".repeat(5000));
    assert_eq!(run(&parens, Value::Nil), Ok("x".to_string()));
    let ifs = format!("{}x{}", "{{if 1}}".repeat(5000), "{{end}}".repeat(5000));
    assert_eq!(run(&ifs, Value::Nil), Ok("x".to_string()));
    // Endless include recursion ends with an error instead of a crash.
    let e = run(
        "{{define \"r\"}}{{include \"r\" .}}{{end}}{{include \"r\" .}}",
        Value::Nil,
    )
    .unwrap_err();
    assert!(
        e.ends_with("exceeded maximum nesting of template executions (2000)"),
        "{}",
        &e[..200.min(e.len())]
    );
}

#[test]
fn data_nil_is_no_value() {
    assert_eq!(run("{{.}}", Value::Nil), Ok("<no value>".to_string()));
}

#[test]
fn a_printed_spliced_string_keeps_its_large_texts_shared() {
    let shared = crate::Str::from("s".repeat(10_000));
    let block = shared.slice(&shared[..8_000]);
    let spliced = crate::Str::spliced("<a>".to_string(), vec![(1, block.clone())]);
    let mut t = Templates::new(FuncMap::new());
    t.parse("t", "[{{.}}]").unwrap();
    let pieces = t
        .execute_pieces("t", Value::String(spliced.clone()))
        .unwrap();
    let joined: String = pieces.iter().map(|p| p.as_str()).collect();
    assert_eq!(joined, format!("[<{}a>]", "s".repeat(8_000)));
    assert!(
        pieces
            .iter()
            .any(|p| std::ptr::eq(p.as_str(), block.as_str())),
        "the block is printed as it is shared"
    );
    assert_eq!(t.execute("t", Value::String(spliced)).unwrap(), joined);
}
