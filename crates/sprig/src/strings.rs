//! Sprig's string functions.

use gotemplate::fmt::{quote, sprint_value};
use gotemplate::{ArgType, FuncError, FuncMap, IntKind, List, Map, Value};

use super::conv::{strslice, strval};
use super::{def, limits, n, runtime_error, s};
use goregexp;

const ANY: ArgType = ArgType::Any;
const INT: ArgType = ArgType::Int(IntKind::Int);
const STR: ArgType = ArgType::String;

/// Go's `strings.Repeat`, with its panics (a negative count, a length beyond `int`, then the
/// runtime's on an allocation beyond `maxAlloc`), checked before anything is allocated; a
/// result Go would try to allocate beyond bosun's limit is refused too ([`limits`]).
fn repeat(text: &str, count: i64) -> Result<String, FuncError> {
    match count {
        0 => return Ok(String::new()),
        1 => return Ok(text.to_string()),
        _ if count < 0 => return Err(FuncError::new("strings: negative Repeat count")),
        _ => {}
    }
    let len = text.len() as u128 * count as u128;
    if len > i64::MAX as u128 {
        return Err(FuncError::new("strings: Repeat output length overflow"));
    }
    if len > limits::GO_MAX_ALLOC {
        return Err(runtime_error("makeslice: len out of range"));
    }
    limits::string_within_limit(len)?;
    Ok(text.repeat(count as usize))
}

/// Sprig's `indent` (`prefix` empty) and `nindent` (`prefix` a newline): `prefix`, then `text`
/// with `spaces` spaces before it and after each of its newlines. Written in one pass into its
/// exact size: the text is often a large `include` (Istio's injection templates), and every
/// regrown or intermediate copy of it is fresh memory.
fn indent(prefix: &str, spaces: i64, text: &str) -> Result<String, FuncError> {
    let pad = repeat(" ", spaces)?;
    let newlines = || memchr::memchr_iter(b'\n', text.as_bytes());
    let size = pad.len() as u128 * (newlines().count() as u128 + 1)
        + prefix.len() as u128
        + text.len() as u128;
    limits::string_within_limit(size)?;
    let mut out = String::with_capacity(size as usize);
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
pub fn go_split<'t>(text: &'t str, sep: &str) -> Vec<&'t str> {
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

/// Go's `regexp.Compile`; the error as Go's `error parsing regexp: …`.
pub(crate) fn compile(pattern: &str) -> Result<goregexp::Regexp, String> {
    goregexp::compile(pattern).map_err(|e| e.to_string())
}

/// Go's `regexp.MustCompile`, whose panic Sprig's non-`must` functions fail with.
fn must_compile(pattern: &str) -> Result<goregexp::Regexp, FuncError> {
    goregexp::compile(pattern)
        .map_err(|e| FuncError::new(goregexp::must_compile_message(pattern, &e)))
}

/// Sprig's pair of functions: the `must` one returns the compile error, the other panics.
fn compile_for(pattern: &str, must: bool) -> Result<goregexp::Regexp, FuncError> {
    if must {
        compile(pattern).map_err(FuncError::new)
    } else {
        must_compile(pattern)
    }
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
        // Sprig ignores the compile error: no match.
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
    def(
        map,
        "regexReplaceAll",
        &[STR, STR, STR],
        None,
        "string",
        false,
        |_, a| replace_all(&a, false, false),
    );
    def(
        map,
        "mustRegexReplaceAll",
        &[STR, STR, STR],
        None,
        "string",
        true,
        |_, a| replace_all(&a, true, false),
    );
    def(
        map,
        "regexReplaceAllLiteral",
        &[STR, STR, STR],
        None,
        "string",
        false,
        |_, a| replace_all(&a, false, true),
    );
    def(
        map,
        "regexFind",
        &[STR, STR],
        None,
        "string",
        false,
        |_, a| find(&a, false),
    );
    def(
        map,
        "mustRegexFind",
        &[STR, STR],
        None,
        "string",
        true,
        |_, a| find(&a, true),
    );
    def(
        map,
        "regexQuoteMeta",
        &[STR],
        None,
        "string",
        false,
        |_, a| Ok(Value::from(goregexp::quote_meta(s(&a, 0)))),
    );
}

/// `regexReplaceAll` and its `must` and `Literal` forms: `$1`/`${name}` expanded unless
/// literal.
pub(super) fn replace_all(a: &[Value], must: bool, literal: bool) -> Result<Value, FuncError> {
    let re = compile_for(s(a, 0), must)?;
    Ok(Value::from(re.replace_all(s(a, 1), s(a, 2), literal)))
}

fn find(a: &[Value], must: bool) -> Result<Value, FuncError> {
    let re = compile_for(s(a, 0), must)?;
    Ok(Value::str(re.find(s(a, 1)).unwrap_or_default()))
}

fn find_all(a: &[Value], must: bool) -> Result<Value, FuncError> {
    let re = compile_for(s(a, 0), must)?;
    let found = re.find_all(s(a, 1), n(a, 2));
    Ok(Value::List(List::typed(
        found.into_iter().map(Value::str).collect(),
        "string",
    )))
}

fn split(a: &[Value], must: bool) -> Result<Value, FuncError> {
    let re = compile_for(s(a, 0), must)?;
    let parts = re.split(s(a, 1), n(a, 2));
    Ok(Value::List(List::typed(
        parts.into_iter().map(Value::str).collect(),
        "string",
    )))
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
    def(
        map,
        "regexFindAll",
        &[STR, STR, INT],
        None,
        "[]string",
        false,
        |_, a| find_all(&a, false),
    );
    def(
        map,
        "mustRegexFindAll",
        &[STR, STR, INT],
        None,
        "[]string",
        true,
        |_, a| find_all(&a, true),
    );
    def(
        map,
        "regexSplit",
        &[STR, STR, INT],
        None,
        "[]string",
        false,
        |_, a| split(&a, false),
    );
    def(
        map,
        "mustRegexSplit",
        &[STR, STR, INT],
        None,
        "[]string",
        true,
        |_, a| split(&a, true),
    );
}

#[cfg(test)]
mod tests {
    /// The vectorised split against the standard library's, separators that overlap
    /// themselves included.
    #[test]
    fn go_split_matches_str_split() {
        const PIECES: &[&str] = &["a", "aa", "-", "\n", "\n---\n", "é", "ab"];
        const SEPS: &[&str] = &["a", "aa", "aba", "\n---\n", "é", "-"];
        let mut rng = testkit::Xorshift::new(0x9e37_79b9_7f4a_7c15);
        for _ in 0..50_000 {
            let seed = rng.next();
            let text: String = (0..(seed % 10) as usize)
                .map(|k| PIECES[((seed >> (6 * k)) % PIECES.len() as u64) as usize])
                .collect();
            let sep = SEPS[((seed >> 60) % SEPS.len() as u64) as usize];
            let want: Vec<&str> = text.split(sep).collect();
            assert_eq!(super::go_split(&text, sep), want, "{text:?} by {sep:?}");
        }
    }
}
