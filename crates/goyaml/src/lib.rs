//! YAML as Go programs read and write it: `sigs.k8s.io/yaml` over go-yaml v2
//! (`gopkg.in/yaml.v2`), go-yaml v3's emitter (`gopkg.in/yaml.v3`, Helm's `toYamlPretty`), and
//! the `encoding/json` pieces `sigs.k8s.io/yaml` goes through ([`json_read`], [`json_value`]).
//!
//! Reading ([`from_yaml`], [`values_from_yaml`], [`documents`]) follows `sigs.k8s.io/yaml`'s
//! `Unmarshal`: go-yaml v2 decodes YAML 1.1 into Go values, map keys become strings, and a JSON
//! round trip turns every number into a `float64` ([`Value::Float`]).
//!
//! Writing ([`to_yaml`], [`to_json`]) follows `sigs.k8s.io/yaml.Marshal`: `encoding/json`, read
//! back by go-yaml v2, then go-yaml v2's encoder and emitter (ported, for its exact styles).
//!
//! Values are `gotemplate`'s; Go's `time.Time` comes from `gotime`. This crate must not know
//! Helm, charts, Sprig or templates beyond the value model: the callers decide what a document
//! means.

// Grouped by direction: `read` (go-yaml v2's decoder, the fast reader for emitted YAML, text
// positions, `encoding/json`'s reader) and `emit` (the v2 and v3 emitters, Go's float
// formats, repeated and verbatim blocks); what both use (the memo, the thread ahead, scratch
// buffers, the `serde_json` bridge) stays at the top. The `use`s below keep the inner
// modules' short paths (`crate::fast`, …) for the code that names them.
mod ahead;
mod emit;
pub mod json_value;
mod memo;
mod read;
mod scratch;

use emit::{gofmt, repeats, verbatim};
pub use read::json_read;
use read::{fast, fast_repeats, libyaml, positions};

use gotemplate::{Map, Value};

/// Set by [`skip_freeing`].
static SKIP_FREEING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// For processes that end right after rendering (the command line): what a render builds in
/// many small allocations (the memos' trees, megabytes of nodes for Istio's CRDs; the parsed
/// templates) is left to the process's exit instead of being freed piece by piece. A
/// long-running process (the operator) must not call this.
#[inline]
pub fn skip_freeing() {
    SKIP_FREEING.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Whether [`skip_freeing`] was called.
#[inline]
pub fn freeing_skipped() -> bool {
    SKIP_FREEING.load(std::sync::atomic::Ordering::Relaxed)
}

/// `String::from_utf8_lossy`, with `str::from_utf8`'s fast check first: nearly every text is
/// valid, and the lossy scan is byte by byte.
#[inline]
pub fn utf8_lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

pub use ahead::Ahead;
pub use memo::YamlMemo;
pub use positions::{Mark, PathSeg, Position, Shape};

/// A YAML error, with the message Helm would print (go-yaml's text, wrapped as
/// `sigs.k8s.io/yaml` wraps it) and, for a syntax error, the 1-based line and column where the
/// parser stopped (to point at: go-yaml's message often names the line before it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct YamlError {
    pub message: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
}

/// One document, as `sigs.k8s.io/yaml.Unmarshal` into an `interface{}` reads it: the first
/// document of the stream (later ones are not read), nil for an empty stream.
#[inline]
pub fn from_yaml(text: &str) -> Result<Value, YamlError> {
    read::from_yaml_bytes(text.as_bytes())
}

/// A rendered document as Helm reads it to sort it: [`from_yaml`], but with the scalars of
/// `SimpleHead`'s string fields (`kind`, `apiVersion`, `metadata.name`, annotations) as
/// strings, which sigs.k8s.io/yaml makes of them for that target.
#[inline]
pub fn from_yaml_for_head(text: &str) -> Result<Value, YamlError> {
    read::from_yaml_for_head(text.as_bytes())
}

/// The field of `fields` that encoding/json decodes the object key `key` into: the exact
/// name, or else one equal under Go's case folding.
#[inline]
pub fn go_json_field<'f>(key: &str, fields: &[&'f str]) -> Option<&'f str> {
    read::go_json_field(key, fields)
}

/// [`from_yaml`] over bytes (input that is not UTF-8 fails as go-yaml fails on it).
#[inline]
pub fn from_yaml_bytes(input: &[u8]) -> Result<Value, YamlError> {
    read::from_yaml_bytes(input)
}

/// Helm v4's `loader.LoadValues`, which reads a chart's `values.yaml` and `-f` files: the
/// stream is split at lines starting with `---` (k8s.io/apimachinery's `YAMLReader`), every
/// document is unmarshaled into a map (an empty or `null` one adds nothing) and merged into the
/// previous ones (maps recursively, anything else replaces). A top level other than a map is an
/// error in Helm's words; callers prefix the file (`cannot load values.yaml: …`).
#[inline]
pub fn values_from_yaml(text: &str) -> Result<Map, YamlError> {
    read::load_values_bytes(text.as_bytes())
}

/// [`values_from_yaml`] over bytes.
#[inline]
pub fn values_from_yaml_bytes(input: &[u8]) -> Result<Map, YamlError> {
    read::load_values_bytes(input)
}

/// Helm's `ReadValues` (`pkg/chart/common`): one document unmarshaled into `common.Values`;
/// empty or `null` is an empty map.
#[inline]
pub fn read_values(text: &str) -> Result<Map, YamlError> {
    read::read_values_bytes(text.as_bytes())
}

/// [`read_values`] over bytes.
#[inline]
pub fn read_values_bytes(input: &[u8]) -> Result<Map, YamlError> {
    read::read_values_bytes(input)
}

/// Every document of a multi-document stream, each read as [`from_yaml`] reads one (a go-yaml
/// v2 `Decoder` loop). An empty stream has no documents; an empty document is nil.
#[inline]
pub fn documents(text: &str) -> Result<Vec<Value>, YamlError> {
    read::documents_bytes(text.as_bytes())
}

/// Where every node of the document [`from_yaml`] reads sits in `text`: each node's path, the
/// 1-based line and column of its key (mapping entries) and of its value, and its shape;
/// parents before children, in document order. Fails exactly as [`from_yaml`] fails.
#[inline]
pub fn positions(text: &str) -> Result<Vec<Position>, YamlError> {
    positions::positions(text.as_bytes())
}

/// Where the first collection of the first document sits that is nested inside more than `max`
/// collections (the root is the first; aliases count as what they name), found in time linear
/// in the text: for callers that bound the nesting of their input before anything that costs
/// more per level reads it. `None` when nothing is that deep or the text does not parse.
#[inline]
pub fn first_too_deep(text: &str, max: usize) -> Option<Mark> {
    positions::first_too_deep(text.as_bytes(), max)
}

/// `sigs.k8s.io/yaml.Marshal` (Helm's `toYaml` before it trims): JSON, read back by go-yaml v2
/// (integers keep their digits, others are floats), then go-yaml v2's block-style output with
/// keys in its natural order.
#[inline]
pub fn to_yaml(v: &Value) -> Result<String, YamlError> {
    emit::to_yaml(v)
}

/// Go's `json.Indent` (no prefix) of compact JSON as `encoding/json` writes it: one element per
/// line, `": "` after keys, empty `{}` and `[]` kept on one line.
pub fn json_indent(compact: &str, indent: &str) -> String {
    let mut out = String::with_capacity(compact.len() * 2);
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut chars = compact.chars().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str(indent);
        }
    };
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                let close = if c == '{' { '}' } else { ']' };
                if chars.peek() == Some(&close) {
                    out.push(chars.next().expect("peeked"));
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c => out.push(c),
        }
    }
    out
}

/// Go's `encoding/json.Marshal` of the value: sorted keys, `<`, `>`, `&`, U+2028 and U+2029
/// escaped, Go's float format; NaN and infinities are errors.
#[inline]
pub fn to_json(v: &Value) -> Result<String, YamlError> {
    emit::to_json(v)
}

/// go-yaml v3's `Encoder` with `SetIndent(2)` (Helm's `toYamlPretty` before it trims); `None`
/// for values bosun cannot encode that way (Go structs, funcs).
#[inline]
pub fn to_yaml_pretty(v: &Value) -> Option<String> {
    emit::v3::to_yaml_pretty(v)
}

/// [`from_yaml`] as a JSON tree (every number a float64, as `sigs.k8s.io/yaml` leaves it), read
/// straight into the tree; errors and values without a JSON form are as [`from_yaml`] and
/// [`crate::json_value::to_json_value`] report them.
pub fn from_yaml_json(text: &str) -> Result<serde_json::Value, YamlError> {
    if let Ok(y) = read::decode_first(text.as_bytes())
        && let Some(v) = read::yval_to_serde(&y)
    {
        return Ok(v);
    }
    let v = from_yaml(text)?;
    crate::json_value::to_json_value(&v).map_err(|e| YamlError {
        message: e.to_string(),
        line: None,
        column: None,
    })
}

/// [`to_yaml`] of a JSON tree read as [`crate::json_value::from_json_value`] reads it
/// (integers are Go integers, other numbers float64s), without building template values.
#[inline]
pub fn json_to_yaml(v: &serde_json::Value) -> Result<String, YamlError> {
    emit::json_tree_to_yaml(v)
}

/// The document after the comment lines it starts with (each `#` to its `\n`, with no other
/// line break in it), where its YAML begins.
pub fn skip_comment_lines(text: &str) -> &str {
    let mut rest = text;
    while rest.starts_with('#') {
        let Some(nl) = rest.find('\n') else {
            return rest;
        };
        if !rest[..nl]
            .bytes()
            .all(|b| b == b'\t' || (0x20..0x7f).contains(&b))
        {
            return rest;
        }
        rest = &rest[nl + 1..];
    }
    rest
}

/// How many spaces `bytes` starts with: eight bytes at a time, as a line of a CRD is
/// indented by up to forty.
pub(crate) fn leading_spaces(bytes: &[u8]) -> usize {
    const SPACES: u64 = u64::from_le_bytes([b' '; 8]);
    let mut n = 0;
    while let Some(chunk) = bytes.get(n..n + 8) {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let other = word ^ SPACES;
        if other != 0 {
            // The lowest byte that is not a space is the first (little-endian).
            return n + (other.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    n + bytes[n..].iter().take_while(|&&b| b == b' ').count()
}

/// `bytes` as text, when they are UTF-8: ASCII (nearly all of a CRD's keys and plain words)
/// without the general UTF-8 check, which costs more than the rest of reading a key.
pub(crate) fn text_of(bytes: &[u8]) -> Option<&str> {
    if bytes.is_ascii() {
        // SAFETY: ASCII bytes are UTF-8.
        Some(unsafe { std::str::from_utf8_unchecked(bytes) })
    } else {
        std::str::from_utf8(bytes).ok()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn leading_spaces_counts_across_words_and_tails() {
        for n in 0..40 {
            for tail in ["", "x", "x  ", "\n", "        y"] {
                let text = format!("{}{tail}", " ".repeat(n));
                let expected = text.bytes().take_while(|&b| b == b' ').count();
                assert_eq!(super::leading_spaces(text.as_bytes()), expected, "{text:?}");
            }
        }
    }
}
