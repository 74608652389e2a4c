//! Sprig's JSON writers beyond Helm's `toJson`: `mustToJson`, `toPrettyJson`, `toRawJson` and
//! their `must` forms, all over `encoding/json.Marshal` (see [`goyaml::to_json`]).

use gotemplate::{ArgType, FuncError, FuncMap, Value};

use super::def;

/// Go's `json.Indent(dst, src, "", "  ")` of compact JSON.
fn indent(compact: &str) -> String {
    goyaml::json_indent(compact, "  ")
}

/// `json.Indent` scans its input first, and its scanner refuses nesting deeper than
/// `maxNestingDepth` (10000): the opening bracket that goes one level too deep, as Go's
/// scanner error names it.
fn too_deep(compact: &str) -> Option<char> {
    const MAX_NESTING_DEPTH: usize = 10000;
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for b in compact.bytes() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                if depth > MAX_NESTING_DEPTH {
                    return Some(b as char);
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// Undoes `encoding/json`'s HTML escaping (`\u003c`, `\u003e`, `\u0026`), as an `Encoder` with
/// `SetEscapeHTML(false)` writes.
fn unescape_html(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let mut rest = json;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let html = [("\\u003c", '<'), ("\\u003e", '>'), ("\\u0026", '&')]
            .iter()
            .find(|(esc, _)| tail.starts_with(esc));
        if let Some((esc, c)) = html {
            out.push(*c);
            rest = &tail[esc.len()..];
        } else {
            // Copy the escape and the character it escapes.
            let n = 1 + tail[1..].chars().next().map_or(0, char::len_utf8);
            out.push_str(&tail[..n]);
            rest = &tail[n..];
        }
    }
    out.push_str(rest);
    out
}

fn marshal(v: &Value, pretty: bool, raw: bool) -> Result<String, FuncError> {
    let mut text = goyaml::to_json(v).map_err(|e| FuncError::new(e.message))?;
    if raw {
        text = unescape_html(&text);
    }
    if pretty {
        if let Some(c) = too_deep(&text) {
            return Err(FuncError::new(format!(
                "invalid character '{c}' exceeded max depth"
            )));
        }
        text = indent(&text);
    }
    Ok(text)
}

pub(super) fn register(map: &mut FuncMap) {
    const ANY: ArgType = ArgType::Any;
    def(map, "toJson", &[ANY], None, "string", false, |_, a| {
        Ok(Value::from(
            marshal(&a[0], false, false).unwrap_or_default(),
        ))
    });
    def(map, "mustToJson", &[ANY], None, "string", true, |_, a| {
        marshal(&a[0], false, false).map(Value::from)
    });
    def(
        map,
        "toPrettyJson",
        &[ANY],
        None,
        "string",
        false,
        |_, a| Ok(Value::from(marshal(&a[0], true, false).unwrap_or_default())),
    );
    def(
        map,
        "mustToPrettyJson",
        &[ANY],
        None,
        "string",
        true,
        |_, a| marshal(&a[0], true, false).map(Value::from),
    );
    // Sprig's `toRawJson`, unlike the other writers, panics where Marshal fails, and the
    // template reports the panic as the call's error.
    def(map, "toRawJson", &[ANY], None, "string", false, |_, a| {
        marshal(&a[0], false, true).map(Value::from)
    });
    def(
        map,
        "mustToRawJson",
        &[ANY],
        None,
        "string",
        true,
        |_, a| marshal(&a[0], false, true).map(Value::from),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indents_like_go() {
        assert_eq!(
            indent(r#"{"a":[1,{}],"b":[],"c":"x,{:"}"#),
            "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": [],\n  \"c\": \"x,{:\"\n}"
        );
    }

    #[test]
    fn unescapes_html_only() {
        assert_eq!(
            unescape_html(r#""\u003c\\u003e\u0026\u2028""#),
            r#""<\\u003e&\u2028""#
        );
    }
}
