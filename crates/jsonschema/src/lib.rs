//! `values.schema.json`: validating a chart's coalesced values (and each subchart's own
//! values) as Helm 4 does with santhosh-tekuri/jsonschema v6, with that library's behaviour
//! and wording.
//!
//! Helm adds the schema to the library as the resource `file:///values.schema.json` and
//! compiles it (`compile.rs`): every document is checked against its draft's metaschema
//! (`"type": 5` is refused as `"file:///values.schema.json#" is not valid against metaschema:
//! ...`), `$ref`s (and `$recursiveRef`/`$dynamicRef`) are resolved against the base URI of
//! the resource they sit in — the document's URL, or an enclosing `$id` — to JSON pointers or
//! anchors, in the same document or in another one loaded by URL, and the first problem
//! (`failing loading "URL": ...`, `json-pointer in "URL#/p" not found`, ...) is the error.
//! A relative reference therefore resolves against `file:///values.schema.json`: `defs.json`
//! is `/defs.json` on disk, not a file of the chart. Documents come from a [`Loader`]:
//! `http(s)://json-schema.org/` metaschemas are built in and never fetched; `file:` URLs are
//! read from disk (Go's `FileLoader`: the URL's path); `urn:` URLs Helm cannot resolve, so it
//! logs `unresolved URN reference ignored; using permissive schema` (once per URN) and uses
//! the schema `true`; `http:`/`https:` URLs go to the fetcher the caller supplies (the `bosun`
//! binary's GETs with Helm's 15 s timeout and error texts), and without one are refused as
//! the library refuses a scheme it has no loader for. This crate does no network I/O itself:
//! the fetcher is a plain function in `TemplateOptions::schema_http`, so the default (none)
//! loads files only. A [`Loader`] lives for one render, so every document is loaded once
//! however many charts refer to it.
//!
//! Validation (`validate.rs`) then follows the library's error tree: the root error lists the
//! root schema's errors (a group is flattened); each error prints as `- at 'POINTER':
//! MESSAGE`, a schema location with several failing keywords as `validation failed` with its
//! errors indented below; a `type` mismatch stops the other keywords of that schema; under
//! drafts before 2019-09 a `$ref` replaces its siblings, and a reference error with one cause
//! is shown as that cause; numbers are printed as `golang.org/x/text/message` prints them
//! (`1,000`, `1.5×10⁰⁶`). `format` is asserted in drafts before 2019-09 only (as the library
//! does by default). Helm prints `CHART:` and the text for every chart whose schema fails (a
//! subchart's values are validated against its own schema when the parent's values hold a
//! map for it). Object properties are visited in key order (Go visits them in random order,
//! so several errors may come in any order). Not followed: a custom metaschema's
//! `$vocabulary` (the draft's default vocabularies apply), and a number in an `enum`/`const`
//! is printed in Go's `%v` form rather than as written in the schema.
//!
//! Mirrors `github.com/santhosh-tekuri/jsonschema/v6` as Helm 4 configures it (its loaders for
//! `file:`, `http(s):` through the caller, and `urn:`). It must not know Helm: charts,
//! subcharts and Helm's log lines are the `helm` crate's (`helm::values_schema`).

mod compile;
mod format;
mod validate;

use std::collections::{HashMap, HashSet};

use gotemplate::{Map, Value};

/// Why the values do not meet the schemas: the text Helm prints after its own heading.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SchemaError(pub String);

/// GETs an `http:`/`https:` URL for a schema `$ref` and returns the body; the body is decoded
/// as JSON here.
pub type FetchUrl = fn(&str) -> Result<Vec<u8>, FetchError>;

/// Why a fetcher could not GET a schema: the whole text Helm's loader gives (`HTTP request to
/// URL returned status 404 (Not Found)`, `HTTP request failed for URL: ...`), which the library
/// prints after `failing loading "URL": `. Only the fetcher (the caller's HTTP client) knows
/// the failure, so the text is all there is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct FetchError {
    pub message: String,
}

impl FetchError {
    pub fn new(message: impl Into<String>) -> FetchError {
        FetchError {
            message: message.into(),
        }
    }
}

/// The fetcher is the CLI's, which does not depend on this crate: it hands its text over with
/// `Into::into` inside `helm::template::TemplateOptions::schema_http`.
impl From<String> for FetchError {
    fn from(message: String) -> FetchError {
        FetchError::new(message)
    }
}

/// Where the documents schema `$ref`s name come from, for one render: what was loaded (each
/// document is loaded once), and what loading logged.
#[derive(Debug, Default)]
pub struct Loader {
    http: Option<FetchUrl>,
    docs: HashMap<String, Value>,
    warned: HashSet<String>,
    /// The `urn:` URLs resolved to the permissive schema, each once, in order (Helm logs a
    /// warning for each).
    pub unresolved_urns: Vec<String>,
}

impl Loader {
    /// Loads `file:` (and built-in metaschema) URLs; `http(s):` ones through `http`.
    pub fn new(http: Option<FetchUrl>) -> Loader {
        Loader {
            http,
            ..Loader::default()
        }
    }

    /// Loads `file:` (and built-in metaschema) URLs only.
    pub fn files_only() -> Loader {
        Loader::default()
    }

    /// Helm's `SchemeURLLoader`: the document at `url` by its scheme; the error is the
    /// loader's own text (the library adds `failing loading "URL": `).
    fn load(&mut self, url: &str) -> Result<Value, String> {
        let u = gourl::parse(url).map_err(|e| e.to_string())?;
        match u.scheme.as_str() {
            "file" => {
                let path = &u.path;
                let bytes = std::fs::read(path).map_err(|e| {
                    if e.raw_os_error() == Some(21) {
                        // Go opens a directory fine and fails on reading it.
                        format!("read {path}: {}", io_error_text(&e))
                    } else {
                        format!("open {path}: {}", io_error_text(&e))
                    }
                })?;
                unmarshal_json(&bytes)
            }
            "http" | "https" if self.http.is_some() => {
                let fetch = self.http.expect("checked");
                unmarshal_json(&fetch(url).map_err(|e| e.message)?)
            }
            "urn" => {
                if self.warned.insert(url.to_string()) {
                    self.unresolved_urns.push(url.to_string());
                }
                Ok(Value::Bool(true))
            }
            _ => Err(format!(
                "no URLLoader registered for {}",
                quote_go(&u.to_string())
            )),
        }
    }
}

/// Go's wording of an OS error (`no such file or directory`): the C library's message in
/// lower case, without Rust's `(os error N)`.
fn io_error_text(e: &std::io::Error) -> String {
    let text = e.to_string();
    let text = match text.rfind(" (os error ") {
        Some(i) => &text[..i],
        None => &text,
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The library's `UnmarshalJSON`: one JSON document (decoded by a `json.Decoder`, so a
/// truncated one is `unexpected EOF` and an empty one `EOF`), nothing but white space after
/// it.
fn unmarshal_json(bytes: &[u8]) -> Result<Value, String> {
    let text = goyaml::utf8_lossy(bytes);
    let white = |c: char| matches!(c, ' ' | '\t' | '\n' | '\r');
    match goyaml::json_read::from_json_str_prefix(&text) {
        Ok((v, used)) => {
            if !text[used..].chars().all(white) {
                return Err("invalid character after top-level value".into());
            }
            Ok(v)
        }
        Err(goyaml::json_read::JsonError::UnexpectedEnd) => {
            if text.chars().all(white) {
                Err("EOF".into())
            } else {
                Err("unexpected EOF".into())
            }
        }
        Err(e) => Err(e.to_string()),
    }
}

/// Helm's `ValidateAgainstSingleSchema`: one schema over one values map. A validation error's
/// text ends with a newline; a compile error (bad JSON, a schema the metaschema refuses, a
/// reference that cannot be resolved) is the library's text as it is.
pub fn validate_single(
    values: &Map,
    schema_json: &[u8],
    loader: &mut Loader,
) -> Result<(), SchemaError> {
    const ROOT: &str = "file:///values.schema.json";
    let bytes = schema_json
        .strip_prefix("\u{feff}".as_bytes())
        .unwrap_or(schema_json);
    let doc = unmarshal_json(bytes).map_err(SchemaError)?;
    let meta = match compile::Meta::drafts_of(&doc) {
        Some(drafts) => compile::Meta::get_for(&drafts),
        None => compile::Meta::get(),
    }
    .map_err(SchemaError)?;
    let mut compiler = compile::Compiler::new(loader, Some(&meta), false);
    compiler.add_resource(ROOT, doc);
    let root = compiler.compile(ROOT).map_err(SchemaError)?;
    let schemas = compiler.schemas;
    validate::validate_value(&schemas, root, &Value::Map(values.clone())).map_err(|e| {
        let text = e.to_text();
        let prefix = format!("jsonschema validation failed with '{ROOT}#'\n");
        let text = text.strip_prefix(&prefix).unwrap_or(&text);
        SchemaError(format!("{text}\n"))
    })
}

/// Go's `regexp.Compile`, as the library compiles `pattern`s, `patternProperties` and checks
/// the `regex` format.
fn compile_regex(pattern: &str) -> Result<goregexp::Regexp, String> {
    goregexp::compile(pattern).map_err(|e| e.to_string())
}

/// Go's `%q`.
fn quote_go(s: &str) -> String {
    gotemplate::fmt::quote(s)
}

/// The library's `quote`: Go's `%q` with `\"` unescaped and `'` escaped, in single quotes.
/// The unescaping runs over the quoted text, closing quote included, so a string ending in a
/// backslash loses the escape of that backslash (`a\` shows as `'a\'`), as it does in Go.
fn quote(s: &str) -> String {
    let q = gotemplate::fmt::quote(s)
        .replace("\\\"", "\"")
        .replace('\'', "\\'");
    format!("'{}'", &q[1..q.len() - 1])
}

/// The library's `display` of a primitive.
fn display(v: &Value) -> String {
    match v {
        Value::String(s) => quote(s),
        Value::List(_) | Value::Map(_) => "value".to_string(),
        other => gotemplate::fmt::sprint_value(other),
    }
}

/// Digits grouped by threes with commas, as English `golang.org/x/text/message` prints them.
fn group_digits(digits: &str) -> String {
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `%d` through the library's English message printer: `1,000`.
fn localized_int(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let sign = if n < 0 { "-" } else { "" };
    format!("{sign}{}", group_digits(&digits))
}

/// `%v` of a float64 through the library's English message printer: Go's `%v` digits, the
/// integer part grouped (`1,234.5`), an exponent as a power of ten in superscript
/// (`1.5e+06` is `1.5×10⁰⁶`).
fn localized_float(f: f64) -> String {
    let text = gotemplate::fmt::sprint_value(&Value::Float(f));
    let (mantissa, exponent) = match text.split_once('e') {
        Some((m, e)) => (m, Some(e)),
        None => (text.as_str(), None),
    };
    let (sign, unsigned) = match mantissa.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", mantissa),
    };
    if !unsigned.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return text; // NaN, +Inf
    }
    let (int, frac) = match unsigned.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (unsigned, None),
    };
    let mut out = format!("{sign}{}", group_digits(int));
    if let Some(frac) = frac {
        out.push('.');
        out.push_str(frac);
    }
    if let Some(exponent) = exponent {
        out.push_str("×10");
        for c in exponent.chars() {
            out.push(match c {
                '-' => '⁻',
                '0' => '⁰',
                '1' => '¹',
                '2' => '²',
                '3' => '³',
                '4' => '⁴',
                '5' => '⁵',
                '6' => '⁶',
                '7' => '⁷',
                '8' => '⁸',
                '9' => '⁹',
                _ => continue,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    fn values(yaml: &str) -> Map {
        match goyaml::values_from_yaml(yaml) {
            Ok(m) => m,
            Err(e) => panic!("bad test values: {e}"),
        }
    }

    static FETCHES: AtomicUsize = AtomicUsize::new(0);

    fn fetch_defs(url: &str) -> Result<Vec<u8>, FetchError> {
        FETCHES.fetch_add(1, Ordering::SeqCst);
        match url {
            "https://schemas.example/defs.json" => {
                Ok(br#"{"$defs": {"port": {"type": "integer", "maximum": 65535}}}"#.to_vec())
            }
            _ => Err(FetchError::new(format!(
                "HTTP request to {url} returned status 404 (Not Found)"
            ))),
        }
    }

    #[test]
    fn a_loader_fetches_each_document_once() {
        let schema = br#"{"properties": {
            "a": {"$ref": "https://schemas.example/defs.json#/$defs/port"},
            "b": {"$ref": "https://schemas.example/defs.json#/$defs/port"}}}"#;
        let mut loader = Loader::new(Some(fetch_defs));
        let before = FETCHES.load(Ordering::SeqCst);
        assert_eq!(
            validate_single(&values("a: 1\nb: 2\n"), schema, &mut loader),
            Ok(())
        );
        // A second chart of the same render (a subchart) refers to it again.
        let e = validate_single(&values("a: 70000\n"), schema, &mut loader).unwrap_err();
        assert_eq!(e.0, "- at '/a': maximum: got 70,000, want 65,535\n");
        assert_eq!(FETCHES.load(Ordering::SeqCst) - before, 1);
    }

    #[test]
    fn without_a_fetcher_http_is_an_unknown_scheme() {
        let schema = br#"{"properties": {"a": {"$ref": "https://schemas.example/x.json"}}}"#;
        let e = validate_single(&values("a: 1\n"), schema, &mut Loader::files_only()).unwrap_err();
        assert_eq!(
            e.0,
            "failing loading \"https://schemas.example/x.json\": no URLLoader registered for \"https://schemas.example/x.json\""
        );
    }

    #[test]
    fn quoting_as_the_library_quotes() {
        assert_eq!(quote("it's"), "'it\\'s'");
        assert_eq!(quote("say \"hi\""), "'say \"hi\"'");
        assert_eq!(quote("a\\"), "'a\\'");
        assert_eq!(quote("a\\b"), "'a\\\\b'");
    }

    #[test]
    fn numbers_print_as_the_message_printer_prints_them() {
        assert_eq!(localized_int(-1234567), "-1,234,567");
        assert_eq!(localized_int(999), "999");
        assert_eq!(localized_float(1234.5678), "1,234.5678");
        assert_eq!(localized_float(1500000.5), "1.5000005×10⁰⁶");
        assert_eq!(localized_float(1e-7), "1×10⁻⁰⁷");
        assert_eq!(localized_float(-5000.0), "-5,000");
    }

    #[test]
    fn documents_decode_as_the_library_decodes_them() {
        assert_eq!(unmarshal_json(b"  ").unwrap_err(), "EOF");
        assert_eq!(unmarshal_json(b"{\"a\":").unwrap_err(), "unexpected EOF");
        assert_eq!(
            unmarshal_json(b"{} {}").unwrap_err(),
            "invalid character after top-level value"
        );
        assert!(unmarshal_json(b"{}\n").is_ok());
    }
}
