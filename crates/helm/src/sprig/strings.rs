//! Sprig's string functions.

use gotemplate::fmt::{quote, sprint_value};
use gotemplate::{ArgType, FuncError, FuncMap, IntKind, List, Map, Value};

use super::conv::{strslice, strval};
use super::{def, n, runtime_error, s};

const ANY: ArgType = ArgType::Any;
const INT: ArgType = ArgType::Int(IntKind::Int);
const STR: ArgType = ArgType::String;

/// Go's `strings.Repeat`, which panics on a negative count.
fn repeat(text: &str, count: i64) -> Result<String, FuncError> {
    if count < 0 {
        return Err(FuncError::new("strings: negative Repeat count"));
    }
    Ok(text.repeat(count as usize))
}

/// Sprig's `indent` (`prefix` empty) and `nindent` (`prefix` a newline): `prefix`, then `text`
/// with `spaces` spaces before it and after each of its newlines. Written in one pass into its
/// exact size: the text is often a large `include` (Istio's injection templates), and every
/// regrown or intermediate copy of it is fresh memory.
fn indent(prefix: &str, spaces: i64, text: &str) -> Result<String, FuncError> {
    let pad = repeat(" ", spaces)?;
    let newlines = || memchr::memchr_iter(b'\n', text.as_bytes());
    let size = pad
        .len()
        .checked_mul(newlines().count() + 1)
        .and_then(|pads| pads.checked_add(prefix.len() + text.len()));
    // A size beyond memory fails as the growing string would.
    let mut out = String::with_capacity(size.unwrap_or(text.len()));
    out.push_str(prefix);
    out.push_str(&pad);
    let mut from = 0;
    for at in newlines() {
        out.push_str(&text[from..=at]);
        out.push_str(&pad);
        from = at + 1;
    }
    out.push_str(&text[from..]);
    Ok(out)
}

/// Go's `strings.Split`: an empty separator splits into characters.
pub(crate) fn go_split<'t>(text: &'t str, sep: &str) -> Vec<&'t str> {
    if sep.is_empty() {
        return text
            .char_indices()
            .map(|(i, c)| &text[i..i + c.len_utf8()])
            .collect();
    }
    // memmem's vectorised search: Istio's 1 MB CRD file is split on "\n---\n".
    let mut parts = Vec::new();
    let mut start = 0;
    // Matches come non-overlapping, left to right, as strings.Split takes them.
    for at in memchr::memmem::find_iter(text.as_bytes(), sep.as_bytes()) {
        parts.push(&text[start..at]);
        start = at + sep.len();
    }
    parts.push(&text[start..]);
    parts
}

/// Go's `unicode.ToUpper`/`ToLower` applied rune by rune (no multi-character expansions).
fn map_runes(text: &str, upper: bool) -> String {
    text.chars()
        .map(|c| {
            let mut it: Vec<char> = if upper {
                c.to_uppercase().collect()
            } else {
                c.to_lowercase().collect()
            };
            if it.len() == 1 { it.pop().unwrap() } else { c }
        })
        .collect()
}

/// Go's `strings.Trim(s, cutset)`.
fn trim_set(text: &str, cutset: &str) -> String {
    text.trim_matches(|c| cutset.contains(c)).to_string()
}

/// Go's message for an out-of-range string slice `s[lo:hi]` (`None` when in range).
fn slice_check(lo: Option<i64>, hi: i64, len: i64) -> Option<FuncError> {
    let lo_text = lo.map(|l| l.to_string()).unwrap_or_default();
    if hi < 0 || hi > len {
        if lo.is_none() {
            return Some(runtime_error(&format!(
                "slice bounds out of range [:{hi}] with length {len}"
            )));
        }
        return Some(runtime_error(&format!(
            "slice bounds out of range [{lo_text}:{hi}]"
        )));
    }
    if let Some(l) = lo
        && (l < 0 || l > hi)
    {
        return Some(runtime_error(&format!(
            "slice bounds out of range [{l}:{hi}]"
        )));
    }
    None
}

fn byte_slice(text: &str, lo: usize, hi: usize) -> Value {
    Value::from(String::from_utf8_lossy(&text.as_bytes()[lo..hi]).into_owned())
}

pub(crate) fn compile(pattern: &str) -> Result<regex::Regex, String> {
    if let Some(ops) = nested_repeat(pattern) {
        return Err(format!(
            "error parsing regexp: invalid nested repetition operator: `{ops}`"
        ));
    }
    if let Some(op) = invalid_repeat(pattern) {
        return Err(format!(
            "error parsing regexp: invalid repeat count: `{op}`"
        ));
    }
    regex::Regex::new(&go_regex(pattern)).map_err(|e| {
        if let Some(go) = go_syntax_error(pattern) {
            return go;
        }
        let text = e.to_string();
        // Go's wording for the errors whose Go text is known to follow from Rust's.
        if text.contains("unclosed group") {
            format!("error parsing regexp: missing closing ): `{pattern}`")
        } else if text.contains("unopened group") {
            format!("error parsing regexp: unexpected ): `{pattern}`")
        } else {
            text
        }
    })
}

/// Go's `regexp/syntax` wording (`error parsing regexp: CODE: `EXPR``) for the syntax errors
/// whose Go counterpart and offending text follow from the parser's error and span: an
/// unclosed class (EXPR from its `[` on), an unknown escape (a backreference is one to Go), a
/// trailing backslash, a repetition without an operand (EXPR the operator, a lazy `?`
/// included), a reversed class range, an unknown Unicode class.
fn go_syntax_error(pattern: &str) -> Option<String> {
    use regex_syntax::ast::ErrorKind;
    let e = match regex_syntax::ast::parse::Parser::new().parse(pattern) {
        Ok(_) => return go_translate_error(pattern),
        Err(e) => e,
    };
    let span = e.span();
    let at = pattern.get(span.start.offset..span.end.offset)?;
    let (code, expr) = match e.kind() {
        ErrorKind::ClassUnclosed => ("missing closing ]", pattern.get(span.start.offset..)?),
        ErrorKind::EscapeUnrecognized | ErrorKind::UnsupportedBackreference => {
            ("invalid escape sequence", at)
        }
        ErrorKind::EscapeUnexpectedEof => ("trailing backslash at end of expression", ""),
        ErrorKind::RepetitionMissing => {
            let rest = pattern.get(span.start.offset..)?;
            let op = rest.chars().next()?;
            let len = match op {
                '*' | '+' | '?' => op.len_utf8(),
                '{' => rest.find('}')? + 1,
                _ => return None,
            };
            let len = if rest[len..].starts_with('?') {
                len + 1
            } else {
                len
            };
            ("missing argument to repetition operator", &rest[..len])
        }
        ErrorKind::ClassRangeInvalid => ("invalid character class range", at),
        _ => return None,
    };
    Some(format!("error parsing regexp: {code}: `{expr}`"))
}

/// The errors Rust's translation (past the syntax) reports that Go's parser words itself.
fn go_translate_error(pattern: &str) -> Option<String> {
    use regex_syntax::hir::ErrorKind;
    let Err(regex_syntax::Error::Translate(e)) = regex_syntax::Parser::new().parse(pattern) else {
        return None;
    };
    let span = e.span();
    let at = pattern.get(span.start.offset..span.end.offset)?;
    match e.kind() {
        ErrorKind::UnicodePropertyNotFound | ErrorKind::UnicodePropertyValueNotFound => Some(
            format!("error parsing regexp: invalid character class range: `{at}`"),
        ),
        _ => None,
    }
}

/// Go refuses a repetition operator right after another (`a**`, `a+?*`), which Rust's
/// `regex` accepts: the two operators' text.
fn nested_repeat(pattern: &str) -> Option<&str> {
    use regex_syntax::ast::Ast;
    fn find<'p>(ast: &Ast, pattern: &'p str) -> Option<&'p str> {
        match ast {
            Ast::Repetition(r) => {
                if let Ast::Repetition(inner) = &*r.ast {
                    return pattern.get(inner.op.span.start.offset..r.op.span.end.offset);
                }
                find(&r.ast, pattern)
            }
            Ast::Group(g) => find(&g.ast, pattern),
            Ast::Alternation(a) => a.asts.iter().find_map(|x| find(x, pattern)),
            Ast::Concat(c) => c.asts.iter().find_map(|x| find(x, pattern)),
            _ => None,
        }
    }
    let ast = regex_syntax::ast::parse::Parser::new()
        .parse(pattern)
        .ok()?;
    find(&ast, pattern)
}

/// Go's limits on counted repetition (`regexp/syntax`): a count above 1000, or nested counts
/// that together ask for more than 1000 copies of what they repeat (`(x{64}\n){16,18}`), are
/// "invalid repeat count" errors, which Rust's `regex` accepts. Returns the offending
/// operator's text (the outermost repetition whose nesting is too large).
fn invalid_repeat(pattern: &str) -> Option<&str> {
    use regex_syntax::ast::{Ast, RepetitionKind, RepetitionRange};
    // (min, max) of a counted repetition; max -1 when unbounded.
    fn counts(kind: &RepetitionKind) -> Option<(u32, i64)> {
        match kind {
            RepetitionKind::Range(RepetitionRange::Exactly(n)) => Some((*n, *n as i64)),
            RepetitionKind::Range(RepetitionRange::AtLeast(n)) => Some((*n, -1)),
            RepetitionKind::Range(RepetitionRange::Bounded(m, n)) => Some((*m, *n as i64)),
            _ => None,
        }
    }
    // Go's `repeatIsValid`: at most `n` copies of the innermost thing.
    fn within(ast: &Ast, n: i64) -> bool {
        let mut n = n;
        if let Ast::Repetition(r) = ast
            && let Some((min, max)) = counts(&r.op.kind)
        {
            let m = if max < 0 { min as i64 } else { max };
            if m > n {
                return false;
            }
            if m > 0 {
                n /= m;
            }
        }
        children(ast).iter().all(|c| within(c, n))
    }
    fn children(ast: &Ast) -> Vec<&Ast> {
        match ast {
            Ast::Repetition(r) => vec![&*r.ast],
            Ast::Group(g) => vec![&*g.ast],
            Ast::Alternation(a) => a.asts.iter().collect(),
            Ast::Concat(c) => c.asts.iter().collect(),
            _ => Vec::new(),
        }
    }
    // Go checks each repetition as it parses it, innermost (leftmost-closing) first.
    fn first_invalid(ast: &Ast) -> Option<&regex_syntax::ast::Span> {
        if let Some(span) = children(ast).into_iter().find_map(first_invalid) {
            return Some(span);
        }
        let Ast::Repetition(r) = ast else {
            return None;
        };
        let (min, max) = counts(&r.op.kind)?;
        let bad_count = min > 1000 || max > 1000 || (max >= 0 && (min as i64) > max);
        let nested_too_large = (min >= 2 || max >= 2) && !within(ast, 1000);
        (bad_count || nested_too_large).then_some(&r.op.span)
    }
    // A pattern this parser refuses is left to `regex` (and its error).
    let ast = regex_syntax::ast::parse::Parser::new()
        .parse(pattern)
        .ok()?;
    let span = first_invalid(&ast)?;
    pattern.get(span.start.offset..span.end.offset)
}

/// Rewrites Go's ASCII-only Perl classes (`\d`, `\w`, `\s`, `\b`) into their ASCII forms, since
/// Rust's `regex` makes them Unicode-aware.
fn go_regex(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        if c == '\\' {
            let Some(next) = chars.next() else {
                out.push(c);
                break;
            };
            let rep = match (next, in_class) {
                ('d', true) => Some("0-9"),
                ('w', true) => Some("0-9A-Za-z_"),
                ('s', true) => Some("\\t\\n\\f\\r "),
                ('d', false) => Some("[0-9]"),
                ('w', false) => Some("[0-9A-Za-z_]"),
                ('s', false) => Some("[\\t\\n\\f\\r ]"),
                ('D', false) => Some("[^0-9]"),
                ('W', false) => Some("[^0-9A-Za-z_]"),
                ('S', false) => Some("[^\\t\\n\\f\\r ]"),
                ('b', false) => Some("(?-u:\\b)"),
                ('B', false) => Some("(?-u:\\B)"),
                _ => None,
            };
            match rep {
                Some(r) => out.push_str(r),
                None => {
                    out.push(c);
                    out.push(next);
                }
            }
            continue;
        }
        if in_class {
            if c == ']' {
                in_class = false;
            }
        } else if c == '[' {
            in_class = true;
            out.push(c);
            if chars.peek() == Some(&'^') {
                out.push(chars.next().unwrap());
            }
            if chars.peek() == Some(&']') {
                out.push(chars.next().unwrap());
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// Go's `strings.Title`: the first letter of every word in title case.
fn title(text: &str) -> String {
    let is_separator = |c: char| {
        if c.is_ascii() {
            return !(c.is_ascii_alphanumeric() || c == '_');
        }
        if c.is_alphanumeric() {
            return false;
        }
        c.is_whitespace()
    };
    let mut prev = ' ';
    text.chars()
        .map(|c| {
            let out = if is_separator(prev) {
                let mut up: Vec<char> = c.to_uppercase().collect();
                if up.len() == 1 { up.pop().unwrap() } else { c }
            } else {
                c
            };
            prev = c;
            out
        })
        .collect()
}

/// goutils' `Uncapitalize`: the first letter of every white-space separated word lowered.
fn untitle(text: &str) -> String {
    let mut prev_space = true;
    text.chars()
        .map(|c| {
            let out = if prev_space {
                let mut low: Vec<char> = c.to_lowercase().collect();
                if low.len() == 1 {
                    low.pop().unwrap()
                } else {
                    c
                }
            } else {
                c
            };
            prev_space = c.is_whitespace();
            out
        })
        .collect()
}

pub(super) fn register(map: &mut FuncMap) {
    def(map, "title", &[STR], None, "string", false, |_, a| {
        Ok(Value::from(title(s(&a, 0))))
    });
    def(map, "untitle", &[STR], None, "string", false, |_, a| {
        Ok(Value::from(untitle(s(&a, 0))))
    });
    def(
        map,
        "plural",
        &[STR, STR, INT],
        None,
        "string",
        false,
        |_, a| Ok(Value::str(if n(&a, 2) == 1 { s(&a, 0) } else { s(&a, 1) })),
    );
    def(map, "trim", &[STR], None, "string", false, |_, a| {
        Ok(Value::str(s(&a, 0).trim()))
    });
    def(map, "upper", &[STR], None, "string", false, |_, a| {
        Ok(Value::from(map_runes(s(&a, 0), true)))
    });
    def(map, "lower", &[STR], None, "string", false, |_, a| {
        Ok(Value::from(map_runes(s(&a, 0), false)))
    });
    for name in ["trimAll", "trimall"] {
        def(map, name, &[STR, STR], None, "string", false, |_, a| {
            Ok(Value::from(trim_set(s(&a, 1), s(&a, 0))))
        });
    }
    def(
        map,
        "trimSuffix",
        &[STR, STR],
        None,
        "string",
        false,
        |_, a| {
            let text = s(&a, 1);
            Ok(Value::str(text.strip_suffix(s(&a, 0)).unwrap_or(text)))
        },
    );
    def(
        map,
        "trimPrefix",
        &[STR, STR],
        None,
        "string",
        false,
        |_, a| {
            let text = s(&a, 1);
            Ok(Value::str(text.strip_prefix(s(&a, 0)).unwrap_or(text)))
        },
    );
    def(map, "contains", &[STR, STR], None, "bool", false, |_, a| {
        Ok(Value::Bool(s(&a, 1).contains(s(&a, 0))))
    });
    def(
        map,
        "hasPrefix",
        &[STR, STR],
        None,
        "bool",
        false,
        |_, a| Ok(Value::Bool(s(&a, 1).starts_with(s(&a, 0)))),
    );
    def(
        map,
        "hasSuffix",
        &[STR, STR],
        None,
        "bool",
        false,
        |_, a| Ok(Value::Bool(s(&a, 1).ends_with(s(&a, 0)))),
    );
    def(map, "quote", &[], Some(ANY), "string", false, |_, a| {
        let parts: Vec<String> = a
            .iter()
            .filter(|v| !v.is_nil())
            .map(|v| quote(&strval(v)))
            .collect();
        Ok(Value::from(parts.join(" ")))
    });
    def(map, "squote", &[], Some(ANY), "string", false, |_, a| {
        let parts: Vec<String> = a
            .iter()
            .filter(|v| !v.is_nil())
            .map(|v| format!("'{}'", sprint_value(v)))
            .collect();
        Ok(Value::from(parts.join(" ")))
    });
    def(map, "cat", &[], Some(ANY), "string", false, |_, a| {
        let parts: Vec<String> = a.iter().filter(|v| !v.is_nil()).map(sprint_value).collect();
        Ok(Value::from(parts.join(" ")))
    });
    def(map, "indent", &[INT, STR], None, "string", false, |_, a| {
        indent("", n(&a, 0), s(&a, 1)).map(Value::from)
    });
    def(
        map,
        "nindent",
        &[INT, STR],
        None,
        "string",
        false,
        |_, a| indent("\n", n(&a, 0), s(&a, 1)).map(Value::from),
    );
    def(
        map,
        "replace",
        &[STR, STR, STR],
        None,
        "string",
        false,
        |_, a| Ok(Value::from(s(&a, 2).replace(s(&a, 0), s(&a, 1)))),
    );
    def(map, "repeat", &[INT, STR], None, "string", false, |_, a| {
        repeat(s(&a, 1), n(&a, 0)).map(Value::from)
    });
    def(map, "nospace", &[STR], None, "string", false, |_, a| {
        Ok(Value::from(
            s(&a, 0)
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect::<String>(),
        ))
    });
    def(
        map,
        "split",
        &[STR, STR],
        None,
        "map[string]string",
        false,
        |_, a| {
            let m = Map::named("map[string]string");
            for (i, part) in go_split(s(&a, 1), s(&a, 0)).into_iter().enumerate() {
                m.insert(format!("_{i}"), Value::str(part));
            }
            Ok(Value::Map(m))
        },
    );
    def(
        map,
        "splitList",
        &[STR, STR],
        None,
        "[]string",
        false,
        |_, a| {
            // Istio's CRD file is split into 15 parts of 1 MB in all: large parts share the
            // file's text instead of copying it.
            let text = match &a[1] {
                Value::String(text) => text.clone(),
                other => gotemplate::Str::from(other.as_str().unwrap_or_default()),
            };
            let items = go_split(&text, s(&a, 0))
                .into_iter()
                .map(|part| Value::String(text.slice(part)))
                .collect();
            Ok(Value::List(List::typed(items, "string")))
        },
    );
    def(map, "join", &[STR, ANY], None, "string", false, |_, a| {
        Ok(Value::from(strslice(&a[1]).join(s(&a, 0))))
    });
    def(
        map,
        "substr",
        &[INT, INT, STR],
        None,
        "string",
        false,
        |_, a| {
            let (start, end, text) = (n(&a, 0), n(&a, 1), s(&a, 2));
            let len = text.len() as i64;
            if start < 0 {
                if let Some(e) = slice_check(None, end, len) {
                    return Err(e);
                }
                return Ok(byte_slice(text, 0, end as usize));
            }
            if end < 0 || end > len {
                if let Some(e) = slice_check(Some(start), len, len) {
                    return Err(e);
                }
                return Ok(byte_slice(text, start as usize, len as usize));
            }
            if let Some(e) = slice_check(Some(start), end, len) {
                return Err(e);
            }
            Ok(byte_slice(text, start as usize, end as usize))
        },
    );
    def(map, "trunc", &[INT, STR], None, "string", false, |_, a| {
        let (c, text) = (n(&a, 0), s(&a, 1));
        let len = text.len() as i64;
        if c < 0 && len + c > 0 {
            return Ok(byte_slice(text, (len + c) as usize, len as usize));
        }
        if c >= 0 && len > c {
            return Ok(byte_slice(text, 0, c as usize));
        }
        Ok(Value::str(text))
    });
    def(
        map,
        "regexMatch",
        &[STR, STR],
        None,
        "bool",
        false,
        |_, a| {
            Ok(Value::Bool(
                compile(s(&a, 0)).is_ok_and(|re| re.is_match(s(&a, 1))),
            ))
        },
    );
    def(
        map,
        "mustRegexMatch",
        &[STR, STR],
        None,
        "bool",
        true,
        |_, a| {
            let re = compile(s(&a, 0)).map_err(FuncError::new)?;
            Ok(Value::Bool(re.is_match(s(&a, 1))))
        },
    );
    // The plain forms fail as the must forms do (Sprig's panic is reported as an error too).
    for (name, must) in [("regexReplaceAll", false), ("mustRegexReplaceAll", true)] {
        def(map, name, &[STR, STR, STR], None, "string", must, |_, a| {
            let re = compile(s(&a, 0)).map_err(FuncError::new)?;
            Ok(Value::from(re.replace_all(s(&a, 1), s(&a, 2)).into_owned()))
        });
    }
    def(
        map,
        "regexReplaceAllLiteral",
        &[STR, STR, STR],
        None,
        "string",
        false,
        |_, a| {
            let re = compile(s(&a, 0)).map_err(FuncError::new)?;
            Ok(Value::from(
                re.replace_all(s(&a, 1), regex::NoExpand(s(&a, 2)))
                    .into_owned(),
            ))
        },
    );
    for (name, must) in [("regexFind", false), ("mustRegexFind", true)] {
        def(map, name, &[STR, STR], None, "string", must, |_, a| {
            let re = compile(s(&a, 0)).map_err(FuncError::new)?;
            Ok(Value::str(
                re.find(s(&a, 1)).map(|m| m.as_str()).unwrap_or_default(),
            ))
        });
    }
    def(
        map,
        "regexQuoteMeta",
        &[STR],
        None,
        "string",
        false,
        |_, a| {
            let mut out = String::new();
            for c in s(&a, 0).chars() {
                if "\\.+*?()|[]{}^$".contains(c) {
                    out.push('\\');
                }
                out.push(c);
            }
            Ok(Value::from(out))
        },
    );
}

/// `splitn` and the remaining regular-expression functions.
pub(super) fn register_more(map: &mut FuncMap) {
    def(
        map,
        "splitn",
        &[STR, INT, STR],
        None,
        "map[string]string",
        false,
        |_, a| {
            let (sep, count, text) = (s(&a, 0), n(&a, 1), s(&a, 2));
            let m = Map::named("map[string]string");
            let parts: Vec<String> = if count == 0 {
                Vec::new()
            } else if count < 0 || sep.is_empty() {
                let all = go_split(text, sep);
                if count > 0 && all.len() > count as usize {
                    let mut head: Vec<String> = all[..count as usize - 1]
                        .iter()
                        .map(|p| p.to_string())
                        .collect();
                    head.push(all[count as usize - 1..].concat());
                    head
                } else {
                    all.into_iter().map(String::from).collect()
                }
            } else {
                text.splitn(count as usize, sep).map(String::from).collect()
            };
            for (i, part) in parts.into_iter().enumerate() {
                m.insert(format!("_{i}"), Value::from(part));
            }
            Ok(Value::Map(m))
        },
    );
    for (name, must) in [("regexFindAll", false), ("mustRegexFindAll", true)] {
        def(
            map,
            name,
            &[STR, STR, INT],
            None,
            "[]string",
            must,
            |_, a| {
                let re = compile(s(&a, 0)).map_err(FuncError::new)?;
                let limit = n(&a, 2);
                let found: Vec<Value> = if limit == 0 {
                    Vec::new()
                } else {
                    re.find_iter(s(&a, 1))
                        .take(if limit < 0 {
                            usize::MAX
                        } else {
                            limit as usize
                        })
                        .map(|m| Value::str(m.as_str()))
                        .collect()
                };
                Ok(Value::List(List::typed(found, "string")))
            },
        );
    }
    for (name, must) in [("regexSplit", false), ("mustRegexSplit", true)] {
        def(
            map,
            name,
            &[STR, STR, INT],
            None,
            "[]string",
            must,
            |_, a| {
                let re = compile(s(&a, 0)).map_err(FuncError::new)?;
                let (text, limit) = (s(&a, 1), n(&a, 2));
                let mut out: Vec<Value> = Vec::new();
                if limit != 0 {
                    if !s(&a, 0).is_empty() && text.is_empty() {
                        out.push(Value::str(""));
                    } else {
                        let (mut beg, mut end) = (0, 0);
                        let take = if limit < 0 {
                            usize::MAX
                        } else {
                            limit as usize
                        };
                        for m in re.find_iter(text).take(take) {
                            if limit > 0 && out.len() as i64 == limit - 1 {
                                break;
                            }
                            end = m.start();
                            if m.end() != 0 {
                                out.push(Value::str(&text[beg..end]));
                            }
                            beg = m.end();
                        }
                        if end != text.len() {
                            out.push(Value::str(&text[beg..]));
                        }
                    }
                }
                Ok(Value::List(List::typed(out, "string")))
            },
        );
    }
}

#[cfg(test)]
mod tests {
    /// The vectorised split against the standard library's, separators that overlap
    /// themselves included.
    #[test]
    fn go_split_matches_str_split() {
        const PIECES: &[&str] = &["a", "aa", "-", "\n", "\n---\n", "é", "ab"];
        const SEPS: &[&str] = &["a", "aa", "aba", "\n---\n", "é", "-"];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..50_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let text: String = (0..(seed % 10) as usize)
                .map(|k| PIECES[((seed >> (6 * k)) % PIECES.len() as u64) as usize])
                .collect();
            let sep = SEPS[((seed >> 60) % SEPS.len() as u64) as usize];
            let want: Vec<&str> = text.split(sep).collect();
            assert_eq!(super::go_split(&text, sep), want, "{text:?} by {sep:?}");
        }
    }
}
