//! Reading YAML as `sigs.k8s.io/yaml` does: go-yaml v2 decodes one document into Go's
//! `interface{}` (YAML 1.1 resolution, anchors, merge keys), `convertToJSONableObject` turns map
//! keys into strings, and an `encoding/json` round trip makes every number a `float64`.

pub(crate) mod fast;
pub(crate) mod fast_repeats;
pub mod json_read;
pub(crate) mod libyaml;
pub(crate) mod positions;

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use gotemplate::{List, Map, Value};

use crate::YamlError;
use crate::gofmt::format_float;
use crate::libyaml::{ErrorKind, Event, EventKind, Mark, ParseError, Parser};

pub(crate) const STR_TAG: &str = "tag:yaml.org,2002:str";
pub(crate) const BOOL_TAG: &str = "tag:yaml.org,2002:bool";
pub(crate) const INT_TAG: &str = "tag:yaml.org,2002:int";
pub(crate) const FLOAT_TAG: &str = "tag:yaml.org,2002:float";
pub(crate) const NULL_TAG: &str = "tag:yaml.org,2002:null";
pub(crate) const TIMESTAMP_TAG: &str = "tag:yaml.org,2002:timestamp";
pub(crate) const BINARY_TAG: &str = "tag:yaml.org,2002:binary";
pub(crate) const MERGE_TAG: &str = "tag:yaml.org,2002:merge";

const LONG_TAG_PREFIX: &str = "tag:yaml.org,2002:";

fn short_tag(tag: &str) -> String {
    match tag.strip_prefix(LONG_TAG_PREFIX) {
        Some(rest) => format!("!!{rest}"),
        None => tag.to_string(),
    }
}

/// A go-yaml failure: the message as go-yaml's error prints it (with its `yaml: ` prefix where
/// go-yaml has one), and the 1-based line it names, if any.
#[derive(Debug, Clone)]
pub(crate) struct Fail {
    pub message: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
}

impl Fail {
    fn new(message: impl Into<String>) -> Fail {
        Fail {
            message: message.into(),
            line: None,
            column: None,
        }
    }

    /// go-yaml's `failf`: the message gets the `yaml: ` prefix.
    fn yaml(message: impl AsRef<str>) -> Fail {
        Fail::new(format!("yaml: {}", message.as_ref()))
    }

    /// go-yaml's `parser.fail()`.
    fn from_parse(e: &ParseError) -> Fail {
        let mut line = 0;
        if e.problem_mark.line != 0 {
            line = e.problem_mark.line;
            // Scanner errors don't iterate line before returning error.
            if e.kind == ErrorKind::Scanner {
                line += 1;
            }
        } else if e.context_mark.line != 0 {
            line = e.context_mark.line;
        }
        let msg = if e.problem.is_empty() {
            "unknown problem parsing YAML content"
        } else {
            e.problem.as_str()
        };
        let message = if line != 0 {
            format!("yaml: line {line}: {msg}")
        } else {
            format!("yaml: {msg}")
        };
        Fail {
            message,
            line: Some(e.problem_mark.line + 1),
            column: Some(e.problem_mark.column + 1),
        }
    }

    pub(crate) fn into_error(self, prefix: &str) -> YamlError {
        YamlError {
            message: format!("{prefix}{}", self.message),
            line: self.line,
            column: self.column,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The node tree, as go-yaml's parser builds it from the event stream.

pub(crate) enum NodeKind {
    Document(Option<usize>),
    Scalar {
        value: String,
        tag: String,
        implicit: bool,
    },
    Sequence(Vec<usize>),
    /// Keys and values alternate.
    Mapping(Vec<usize>),
    Alias {
        name: String,
        target: usize,
    },
}

pub(crate) struct Node {
    pub(crate) kind: NodeKind,
    /// Where the node starts (for an alias, the `*name`), for [`crate::positions`].
    pub(crate) mark: Mark,
}

pub(crate) struct TreeParser {
    parser: Parser,
    peeked: Option<Event>,
    pub(crate) nodes: Vec<Node>,
    anchors: HashMap<String, usize>,
    started: bool,
    /// The collections open around the next event, for go-yaml's depth limits.
    open: Vec<Open>,
    /// How many of `open` are flow collections (go-yaml's `flow_level`), and how many block
    /// collections are indented (go-yaml's `indents`; a sequence at its key's column is not).
    flow_level: usize,
    indents: usize,
}

/// A collection being read, as go-yaml's scanner counts it.
#[derive(Clone, Copy)]
struct Open {
    flow: bool,
    indented: bool,
    mapping: bool,
    column: usize,
}

fn event_name(k: &EventKind) -> &'static str {
    match k {
        EventKind::StreamStart => "stream start",
        EventKind::StreamEnd => "stream end",
        EventKind::DocumentStart { .. } => "document start",
        EventKind::DocumentEnd => "document end",
        EventKind::Alias { .. } => "alias",
        EventKind::Scalar { .. } => "scalar",
        EventKind::SequenceStart { .. } => "sequence start",
        EventKind::SequenceEnd => "sequence end",
        EventKind::MappingStart { .. } => "mapping start",
        EventKind::MappingEnd => "mapping end",
    }
}

impl TreeParser {
    pub(crate) fn new(input: &[u8]) -> TreeParser {
        // go-yaml parses an empty buffer as a single newline.
        let input: &[u8] = if input.is_empty() { b"\n" } else { input };
        TreeParser {
            parser: Parser::new(input),
            peeked: None,
            nodes: Vec::new(),
            anchors: HashMap::new(),
            started: false,
            open: Vec::new(),
            flow_level: 0,
            indents: 0,
        }
    }

    fn peek(&mut self) -> Result<&Event, Fail> {
        if self.peeked.is_none() {
            let ev = self.parser.next_event().map_err(|e| Fail::from_parse(&e))?;
            self.peeked = Some(ev);
        }
        Ok(self.peeked.as_ref().expect("peeked"))
    }

    fn take(&mut self) -> Result<Event, Fail> {
        self.peek()?;
        Ok(self.peeked.take().expect("peeked"))
    }

    fn expect(&mut self, want: &'static str) -> Result<Event, Fail> {
        let ev = self.take()?;
        if ev.kind == EventKind::StreamEnd && want != "stream end" {
            return Err(Fail::yaml(
                "attempted to go past the end of stream; corrupted value?",
            ));
        }
        let got = event_name(&ev.kind);
        if got != want {
            return Err(Fail::yaml(format!("expected {want} event but got {got}")));
        }
        Ok(ev)
    }

    fn add(&mut self, kind: NodeKind, anchor: Option<String>, mark: Mark) -> usize {
        let id = self.nodes.len();
        self.nodes.push(Node { kind, mark });
        if let Some(a) = anchor {
            self.anchors.insert(a, id);
        }
        id
    }

    /// Enters a collection starting at `mark`, failing as go-yaml's scanner fails when it is
    /// one level too deep.
    fn enter(&mut self, flow: bool, mapping: bool, mark: Mark) -> Result<(), Fail> {
        let parent = self.open.last().copied();
        let indentless = !flow
            && !mapping
            && parent.is_some_and(|p| !p.flow && p.mapping && p.column == mark.column);
        let open = Open {
            flow,
            indented: !flow && !indentless,
            mapping,
            column: mark.column,
        };
        self.open.push(open);
        let over = if flow {
            self.flow_level += 1;
            self.flow_level > crate::emit::YAML_MAX_DEPTH
        } else if open.indented {
            self.indents += 1;
            self.indents > crate::emit::YAML_MAX_DEPTH
        } else {
            false
        };
        if over {
            return Err(Fail::from_parse(&ParseError {
                kind: ErrorKind::Scanner,
                problem: format!("exceeded max depth of {}", crate::emit::YAML_MAX_DEPTH),
                problem_mark: mark,
                context_mark: Default::default(),
            }));
        }
        Ok(())
    }

    fn leave(&mut self) {
        if let Some(open) = self.open.pop() {
            if open.flow {
                self.flow_level -= 1;
            } else if open.indented {
                self.indents -= 1;
            }
        }
    }

    /// go-yaml's `parser.parse()`: the next node, or `None` at the end of the stream.
    pub(crate) fn parse(&mut self) -> Result<Option<usize>, Fail> {
        gotemplate::stack::grow(|| {
            if !self.started {
                self.expect("stream start")?;
                self.started = true;
            }
            let ev = self.peek()?;
            match &ev.kind {
                EventKind::Scalar { .. } => {
                    let ev = self.take()?;
                    let mark = ev.start;
                    let EventKind::Scalar {
                        anchor,
                        tag,
                        value,
                        plain_implicit,
                        ..
                    } = ev.kind
                    else {
                        unreachable!()
                    };
                    // libyaml validated the input as UTF-8; scalar values are UTF-8.
                    let value = String::from_utf8(value)
                        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
                    let kind = NodeKind::Scalar {
                        value,
                        tag,
                        implicit: plain_implicit,
                    };
                    Ok(Some(self.add(kind, anchor, mark)))
                }
                EventKind::Alias { anchor } => {
                    let name = anchor.clone();
                    let mark = ev.start;
                    let Some(&target) = self.anchors.get(&name) else {
                        return Err(Fail::yaml(format!("unknown anchor '{name}' referenced")));
                    };
                    self.take()?;
                    Ok(Some(self.add(NodeKind::Alias { name, target }, None, mark)))
                }
                EventKind::MappingStart { anchor, flow } => {
                    let anchor = anchor.clone();
                    let flow = *flow;
                    let mark = ev.start;
                    self.enter(flow, true, mark)?;
                    let id = self.add(NodeKind::Mapping(Vec::new()), anchor, mark);
                    self.take()?;
                    let mut children = Vec::new();
                    while self.peek()?.kind != EventKind::MappingEnd {
                        let k = self.parse_child()?;
                        let v = self.parse_child()?;
                        children.push(k);
                        children.push(v);
                    }
                    self.take()?;
                    self.leave();
                    self.nodes[id].kind = NodeKind::Mapping(children);
                    Ok(Some(id))
                }
                EventKind::SequenceStart { anchor, flow } => {
                    let anchor = anchor.clone();
                    let flow = *flow;
                    let mark = ev.start;
                    self.enter(flow, false, mark)?;
                    let id = self.add(NodeKind::Sequence(Vec::new()), anchor, mark);
                    self.take()?;
                    let mut children = Vec::new();
                    while self.peek()?.kind != EventKind::SequenceEnd {
                        children.push(self.parse_child()?);
                    }
                    self.take()?;
                    self.leave();
                    self.nodes[id].kind = NodeKind::Sequence(children);
                    Ok(Some(id))
                }
                EventKind::DocumentStart { version } => {
                    // go-yaml (like libyaml 0.1) accepts only `%YAML 1.1`; libyaml 0.2 also 1.2.
                    if let Some((major, minor)) = *version
                        && (major, minor) != (1, 1)
                        && major == 1
                    {
                        return Err(Fail::from_parse(&ParseError {
                            kind: ErrorKind::Parser,
                            problem: "found incompatible YAML document".to_string(),
                            problem_mark: ev.start,
                            context_mark: Default::default(),
                        }));
                    }
                    let mark = ev.start;
                    self.anchors.clear();
                    let id = self.add(NodeKind::Document(None), None, mark);
                    self.take()?;
                    let child = self.parse()?;
                    self.expect("document end")?;
                    self.nodes[id].kind = NodeKind::Document(child);
                    Ok(Some(id))
                }
                EventKind::StreamEnd => Ok(None),
                other => Err(Fail::yaml(format!(
                    "attempted to parse unknown event: {}",
                    event_name(other)
                ))),
            }
        })
    }

    fn parse_child(&mut self) -> Result<usize, Fail> {
        match self.parse()? {
            Some(id) => Ok(id),
            None => Err(Fail::yaml(
                "attempted to go past the end of stream; corrupted value?",
            )),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Go values as go-yaml v2 produces them when decoding into `interface{}`.

/// A Go value decoded by go-yaml into `interface{}`.
#[derive(Clone, Debug)]
pub(crate) enum YVal {
    Nil,
    Bool(bool),
    /// Go `int` (or `int64`; the same on 64-bit).
    Int(i64),
    Uint(u64),
    Float(f64),
    /// A Go string: bytes, UTF-8 unless it came from `!!binary`.
    Str(Rc<[u8]>),
    Seq(Vec<YVal>),
    Map(YMap),
    /// A non-empty block mapping not read yet, whose text is what `toYaml` writes for it
    /// (see `verbatim`).
    Verbatim(Rc<crate::verbatim::Verbatim>),
}

/// A deeply nested document is freed on a stack that can take its depth.
impl Drop for YVal {
    fn drop(&mut self) {
        match self {
            YVal::Seq(items) if !items.is_empty() => {
                let items = std::mem::take(items);
                gotemplate::stack::grow(move || drop(items));
            }
            YVal::Map(m) if !m.entries.is_empty() => {
                let entries = std::mem::take(&mut m.entries);
                gotemplate::stack::grow(move || drop(entries));
            }
            _ => {}
        }
    }
}

impl YVal {
    fn str(s: &str) -> YVal {
        YVal::Str(Rc::from(s.as_bytes()))
    }
}

/// Go's `map[interface{}]interface{}`: entries in insertion order, keys compared as Go does.
#[derive(Clone, Debug, Default)]
pub(crate) struct YMap {
    pub entries: Vec<(YVal, YVal)>,
    /// Built on the first `set` (boxed: most maps are only read, and a small map keeps trees
    /// of 1 MB documents small).
    index: Option<Box<KeyIndex>>,
}

#[derive(Clone, Debug, Default)]
struct KeyIndex {
    slots: HashMap<KeyRepr, usize>,
    nan_count: u64,
}

impl KeyIndex {
    fn repr(&mut self, k: &YVal) -> KeyRepr {
        match k {
            YVal::Nil => KeyRepr::Nil,
            YVal::Bool(b) => KeyRepr::Bool(*b),
            YVal::Int(i) => KeyRepr::Int(*i),
            YVal::Uint(u) => KeyRepr::Uint(*u),
            YVal::Float(f) if f.is_nan() => {
                self.nan_count += 1;
                KeyRepr::NaN(self.nan_count)
            }
            // +0 and -0 are the same key.
            YVal::Float(f) => KeyRepr::Float(if *f == 0.0 { 0 } else { f.to_bits() }),
            YVal::Str(s) => KeyRepr::Str(s.clone()),
            YVal::Seq(_) | YVal::Map(_) | YVal::Verbatim(_) => {
                unreachable!("checked by the decoder")
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum KeyRepr {
    Nil,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(u64),
    /// NaN is never equal to itself: every NaN key is a new key.
    NaN(u64),
    Str(Rc<[u8]>),
}

impl YMap {
    /// A map of entries whose keys are already distinct (from a Go map, or checked).
    pub(crate) fn from_distinct(entries: Vec<(YVal, YVal)>) -> YMap {
        YMap {
            entries,
            index: None,
        }
    }

    /// Go's `m[k] = v`.
    pub(crate) fn set(&mut self, k: YVal, v: YVal) {
        let entries = &self.entries;
        let index = self.index.get_or_insert_with(|| {
            let mut ix = KeyIndex::default();
            for (i, (key, _)) in entries.iter().enumerate() {
                let r = ix.repr(key);
                ix.slots.insert(r, i);
            }
            Box::new(ix)
        });
        let repr = index.repr(&k);
        match index.slots.get(&repr) {
            Some(&i) => self.entries[i].1 = v,
            None => {
                index.slots.insert(repr, self.entries.len());
                self.entries.push((k, v));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Scalar resolution: go-yaml v2's resolve.go.

fn resolvable_tag(tag: &str) -> bool {
    matches!(
        tag,
        "" | STR_TAG | BOOL_TAG | INT_TAG | FLOAT_TAG | NULL_TAG | TIMESTAMP_TAG
    )
}

/// go-yaml's float pattern `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`, matched
/// by hand (compiling the expression cost more than reading a chart's Chart.yaml).
pub(crate) fn is_yaml_style_float(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |i: usize| {
        b[i.min(b.len())..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count()
    };
    let mut i = usize::from(matches!(b.first(), Some(b'-' | b'+')));
    match digits(i) {
        0 => {
            let fraction = digits(i + 1);
            if b.get(i) != Some(&b'.') || fraction == 0 {
                return false;
            }
            i += 1 + fraction;
        }
        n => {
            i += n;
            if b.get(i) == Some(&b'.') {
                i += 1 + digits(i + 1);
            }
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        i += usize::from(matches!(b.get(i), Some(b'-' | b'+')));
        match digits(i) {
            0 => return false,
            n => i += n,
        }
    }
    i == b.len()
}

fn resolve_map(s: &str) -> Option<(&'static str, YVal)> {
    Some(match s {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            (BOOL_TAG, YVal::Bool(true))
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            (BOOL_TAG, YVal::Bool(false))
        }
        "" | "~" | "null" | "Null" | "NULL" => (NULL_TAG, YVal::Nil),
        ".nan" | ".NaN" | ".NAN" => (FLOAT_TAG, YVal::Float(f64::NAN)),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            (FLOAT_TAG, YVal::Float(f64::INFINITY))
        }
        "-.inf" | "-.Inf" | "-.INF" => (FLOAT_TAG, YVal::Float(f64::NEG_INFINITY)),
        "<<" => (MERGE_TAG, YVal::str("<<")),
        _ => return None,
    })
}

/// Go's `strconv.ParseUint(s, 0, 64)` without underscores (the caller removed them).
fn parse_uint_base0(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.is_empty() {
        return None;
    }
    let (base, digits): (u64, &[u8]) = if b[0] == b'0' {
        if b.len() >= 3 && matches!(b[1] | 0x20, b'b') {
            (2, &b[2..])
        } else if b.len() >= 3 && matches!(b[1] | 0x20, b'o') {
            (8, &b[2..])
        } else if b.len() >= 3 && matches!(b[1] | 0x20, b'x') {
            (16, &b[2..])
        } else {
            (8, &b[1..])
        }
    } else {
        (10, b)
    };
    let mut n: u64 = 0;
    for &c in digits {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'z' => c - b'a' + 10,
            b'A'..=b'Z' => c - b'A' + 10,
            _ => return None,
        } as u64;
        if d >= base {
            return None;
        }
        n = n.checked_mul(base)?.checked_add(d)?;
    }
    Some(n)
}

/// Go's `strconv.ParseInt(s, 0, 64)` without underscores.
fn parse_int_base0(s: &str) -> Option<i64> {
    let (neg, rest) = match s.as_bytes().first() {
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    let u = parse_uint_base0(rest)?;
    if neg {
        if u > 1u64 << 63 {
            return None;
        }
        Some((u as i64).wrapping_neg())
    } else if u > i64::MAX as u64 {
        None
    } else {
        Some(u as i64)
    }
}

/// Go's `strconv.ParseFloat(s, 64)` for strings matching go-yaml's float pattern: out of range
/// is an error.
fn parse_float(s: &str) -> Option<f64> {
    if !is_yaml_style_float(s) {
        return None;
    }
    let f: f64 = s.parse().ok()?;
    if f.is_infinite() { None } else { Some(f) }
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ => {
            if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 {
                29
            } else {
                28
            }
        }
    }
}

/// Up to `max` digits (at least one) at the front of `s`.
fn take_digits(s: &str, max: usize) -> Option<(u32, &str)> {
    let n = s.bytes().take(max).take_while(u8::is_ascii_digit).count();
    if n == 0 {
        return None;
    }
    Some((s[..n].parse().ok()?, &s[n..]))
}

/// go-yaml's `parseTimestamp`: the layouts `2006-1-2T15:4:5.999999999Z07:00` (also with `t`),
/// `2006-1-2 15:4:5.999999999` and `2006-1-2`, checked as Go's `time.Parse` does.
fn parse_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    let i = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if i != 4 || i == b.len() || b[i] != b'-' {
        return false;
    }
    let year: i64 = s[..4].parse().unwrap_or(0);
    let rest = &s[5..];
    let Some((month, rest)) = take_digits(rest, 2) else {
        return false;
    };
    let Some(rest) = rest.strip_prefix('-') else {
        return false;
    };
    let Some((day, rest)) = take_digits(rest, 2) else {
        return false;
    };
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return false;
    }
    if rest.is_empty() {
        return true;
    }
    let (with_zone, rest) = match rest.as_bytes()[0] {
        b'T' | b't' => (true, &rest[1..]),
        b' ' => (false, &rest[1..]),
        _ => return false,
    };
    let Some((hour, rest)) = take_digits(rest, 2) else {
        return false;
    };
    let Some(rest) = rest.strip_prefix(':') else {
        return false;
    };
    let Some((min, rest)) = take_digits(rest, 2) else {
        return false;
    };
    let Some(rest) = rest.strip_prefix(':') else {
        return false;
    };
    let Some((sec, mut rest)) = take_digits(rest, 2) else {
        return false;
    };
    if hour > 23 || min > 59 || sec > 59 {
        return false;
    }
    if let Some(frac) = rest.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return false;
        }
        rest = &frac[n..];
    }
    if !with_zone {
        return rest.is_empty();
    }
    if rest == "Z" {
        return true;
    }
    let rb = rest.as_bytes();
    rb.len() == 6
        && (rb[0] == b'+' || rb[0] == b'-')
        && rb[1].is_ascii_digit()
        && rb[2].is_ascii_digit()
        && rb[3] == b':'
        && rb[4].is_ascii_digit()
        && rb[5].is_ascii_digit()
}

fn resolve_untyped(tag: &str, s: &str) -> (&'static str, YVal) {
    resolve_non_string(tag, s).unwrap_or_else(|| (STR_TAG, YVal::str(s)))
}

/// [`resolve_untyped`] when `s` resolves to something other than a plain string (a
/// timestamp included); `None` for a string, without copying it.
pub(crate) fn resolve_non_string(tag: &str, s: &str) -> Option<(&'static str, YVal)> {
    let hint = match s.as_bytes().first() {
        None => b'N',
        Some(b'+' | b'-') => b'S',
        Some(b'0'..=b'9') => b'D',
        Some(b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~') => b'M',
        Some(b'.') => b'.',
        Some(_) => 0,
    };
    if hint != 0 && tag != STR_TAG && tag != BINARY_TAG {
        if let Some(r) = resolve_map(s) {
            return Some(r);
        }
        match hint {
            b'.' => {
                if let Some(f) = parse_float(s) {
                    return Some((FLOAT_TAG, YVal::Float(f)));
                }
            }
            b'D' | b'S' => {
                if (tag.is_empty() || tag == TIMESTAMP_TAG) && parse_timestamp(s) {
                    return Some((TIMESTAMP_TAG, YVal::str(s)));
                }
                let plain = s.replace('_', "");
                if let Some(i) = parse_int_base0(&plain) {
                    return Some((INT_TAG, YVal::Int(i)));
                }
                if let Some(u) = parse_uint_base0(&plain) {
                    return Some((INT_TAG, YVal::Uint(u)));
                }
                if let Some(f) = parse_float(&plain) {
                    return Some((FLOAT_TAG, YVal::Float(f)));
                }
                // "0b…" and "-0b…" are covered by the base-0 integer parse above.
            }
            _ => {}
        }
    }
    None
}

/// An untagged plain scalar's Go value (how go-yaml reads a JSON number back).
pub(crate) fn resolve_plain(s: &str) -> YVal {
    resolve_untyped("", s).1
}

/// go-yaml's `resolve(tag, in)`.
fn resolve(tag: &str, s: &str) -> Result<(String, YVal), Fail> {
    if !resolvable_tag(tag) {
        return Ok((tag.to_string(), YVal::str(s)));
    }
    let (rtag, out) = resolve_untyped(tag, s);
    if tag.is_empty() || tag == rtag || tag == STR_TAG || tag == BINARY_TAG {
        return Ok((rtag.to_string(), out));
    }
    if tag == FLOAT_TAG
        && rtag == INT_TAG
        && let YVal::Int(i) = out
    {
        return Ok((FLOAT_TAG.to_string(), YVal::Float(i as f64)));
    }
    Err(Fail::yaml(format!(
        "cannot decode {} `{}` as a {}",
        short_tag(rtag),
        s,
        short_tag(tag)
    )))
}

/// Go's `base64.StdEncoding.DecodeString`: padded, newlines ignored.
fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let data: Vec<u8> = s.bytes().filter(|&c| c != b'\n' && c != b'\r').collect();
    if !data.len().is_multiple_of(4) {
        return None;
    }
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(data.len() / 4 * 3);
    let chunks = data.len() / 4;
    for (ci, q) in data.chunks(4).enumerate() {
        let last = ci + 1 == chunks;
        let pad = q.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return None;
        }
        let mut n = 0u32;
        for &c in &q[..4 - pad] {
            n = (n << 6) | val(c)?;
        }
        n <<= 6 * pad as u32;
        out.push((n >> 16) as u8);
        if pad < 2 {
            out.push((n >> 8) as u8);
        }
        if pad < 1 {
            out.push(n as u8);
        }
    }
    Some(out)
}

// ---------------------------------------------------------------------------------------------
// The decoder: go-yaml v2's decode.go for an `interface{}` target.

pub(crate) struct Decoder<'a> {
    nodes: &'a [Node],
    active_aliases: HashSet<usize>,
    decode_count: u64,
    alias_count: u64,
    alias_depth: u64,
}

fn allowed_alias_ratio(decode_count: u64) -> f64 {
    const LOW: u64 = 400_000;
    const HIGH: u64 = 4_000_000;
    if decode_count <= LOW {
        0.99
    } else if decode_count >= HIGH {
        0.10
    } else {
        0.99 - 0.89 * ((decode_count - LOW) as f64 / (HIGH - LOW) as f64)
    }
}

impl<'a> Decoder<'a> {
    pub(crate) fn new(nodes: &'a [Node]) -> Decoder<'a> {
        Decoder {
            nodes,
            active_aliases: HashSet::new(),
            decode_count: 0,
            alias_count: 0,
            alias_depth: 0,
        }
    }

    fn count(&mut self) -> Result<(), Fail> {
        self.decode_count += 1;
        if self.alias_depth > 0 {
            self.alias_count += 1;
        }
        if self.alias_count > 100
            && self.decode_count > 1000
            && self.alias_count as f64 / self.decode_count as f64
                > allowed_alias_ratio(self.decode_count)
        {
            return Err(Fail::yaml("document contains excessive aliasing"));
        }
        Ok(())
    }

    fn enter_alias(&mut self, id: usize, name: &str) -> Result<(), Fail> {
        if !self.active_aliases.insert(id) {
            return Err(Fail::yaml(format!("anchor '{name}' value contains itself")));
        }
        self.alias_depth += 1;
        Ok(())
    }

    fn leave_alias(&mut self, id: usize) {
        self.alias_depth -= 1;
        self.active_aliases.remove(&id);
    }

    pub(crate) fn unmarshal(&mut self, id: usize) -> Result<YVal, Fail> {
        gotemplate::stack::grow(|| {
            self.count()?;
            let nodes = self.nodes;
            match &nodes[id].kind {
                NodeKind::Document(child) => match child {
                    Some(c) => self.unmarshal(*c),
                    None => Ok(YVal::Nil),
                },
                NodeKind::Alias { name, target } => {
                    self.enter_alias(id, name)?;
                    let r = self.unmarshal(*target);
                    self.leave_alias(id);
                    r
                }
                NodeKind::Scalar {
                    value,
                    tag,
                    implicit,
                } => self.scalar(value, tag, *implicit),
                NodeKind::Sequence(children) => {
                    let mut out = Vec::with_capacity(children.len());
                    for &c in children {
                        out.push(self.unmarshal(c)?);
                    }
                    Ok(YVal::Seq(out))
                }
                NodeKind::Mapping(_) => {
                    let mut m = YMap::default();
                    self.mapping_into(id, &mut m)?;
                    Ok(YVal::Map(m))
                }
            }
        })
    }

    fn scalar(&mut self, value: &str, tag: &str, implicit: bool) -> Result<YVal, Fail> {
        if tag.is_empty() && !implicit {
            return Ok(YVal::str(value));
        }
        let (rtag, resolved) = resolve(tag, value)?;
        if rtag == BINARY_TAG {
            let YVal::Str(s) = &resolved else {
                unreachable!()
            };
            let text = std::str::from_utf8(s).unwrap_or_default();
            return match base64_decode(text) {
                Some(data) => Ok(YVal::Str(Rc::from(data))),
                None => Err(Fail::yaml("!!binary value contains invalid base64 data")),
            };
        }
        if let YVal::Nil = resolved {
            return Ok(YVal::Nil);
        }
        if rtag == TIMESTAMP_TAG {
            // Timestamps stay strings when decoding into interface{}.
            return Ok(YVal::str(value));
        }
        Ok(resolved)
    }

    /// Decode the mapping node `id` (or an alias of one) into `out`, as go-yaml's `mapping`
    /// does for an existing map: entries, merges and overwrites go into `out` in order.
    fn mapping_into(&mut self, id: usize, out: &mut YMap) -> Result<(), Fail> {
        gotemplate::stack::grow(|| {
            let nodes = self.nodes;
            match &nodes[id].kind {
                NodeKind::Alias { name, target } => {
                    self.count()?;
                    self.enter_alias(id, name)?;
                    let r = self.mapping_into(*target, out);
                    self.leave_alias(id);
                    return r;
                }
                NodeKind::Mapping(_) => {}
                _ => {
                    return Err(Fail::yaml(
                        "map merge requires map or sequence of maps as the value",
                    ));
                }
            }
            let NodeKind::Mapping(children) = &nodes[id].kind else {
                unreachable!()
            };
            for pair in children.chunks(2) {
                let (k, v) = (pair[0], pair[1]);
                if self.is_merge(k) {
                    self.merge(v, out)?;
                    continue;
                }
                let key = self.unmarshal(k)?;
                if matches!(key, YVal::Seq(_) | YVal::Map(_)) {
                    return Err(Fail::yaml(format!(
                        "invalid map key: {}",
                        go_sharp_v(&key, true)
                    )));
                }
                let value = self.unmarshal(v)?;
                out.set(key, value);
            }
            Ok(())
        })
    }

    pub(crate) fn is_merge(&self, id: usize) -> bool {
        matches!(&self.nodes[id].kind,
            NodeKind::Scalar { value, tag, implicit } if value == "<<" && (*implicit || tag == MERGE_TAG))
    }

    fn is_mapping(&self, id: usize) -> bool {
        matches!(self.nodes[id].kind, NodeKind::Mapping(_))
    }

    fn merge(&mut self, id: usize, out: &mut YMap) -> Result<(), Fail> {
        gotemplate::stack::grow(|| {
            let want_map = || Fail::yaml("map merge requires map or sequence of maps as the value");
            let nodes = self.nodes;
            match &nodes[id].kind {
                NodeKind::Mapping(_) => {
                    self.count()?;
                    self.mapping_into(id, out)
                }
                NodeKind::Alias { target, .. } => {
                    if !self.is_mapping(*target) {
                        return Err(want_map());
                    }
                    self.count()?;
                    self.mapping_into(id, out)
                }
                NodeKind::Sequence(children) => {
                    // Step backwards as earlier nodes take precedence.
                    for &c in children.iter().rev() {
                        match &nodes[c].kind {
                            NodeKind::Alias { target, .. } if !self.is_mapping(*target) => {
                                return Err(want_map());
                            }
                            NodeKind::Alias { .. } | NodeKind::Mapping(_) => {}
                            _ => return Err(want_map()),
                        }
                        self.count()?;
                        self.mapping_into(c, out)?;
                    }
                    Ok(())
                }
                _ => Err(want_map()),
            }
        })
    }
}

/// Go's `%#v` of a decoded value (for go-yaml's and sigs.k8s.io/yaml's error messages).
/// `nested` values print a nil as `interface {}(nil)`.
pub(crate) fn go_sharp_v(v: &YVal, top: bool) -> String {
    gotemplate::stack::grow(|| match v {
        YVal::Nil => {
            if top {
                "<nil>".to_string()
            } else {
                "interface {}(nil)".to_string()
            }
        }
        YVal::Bool(b) => b.to_string(),
        YVal::Int(i) => i.to_string(),
        YVal::Uint(u) => format!("0x{u:x}"),
        YVal::Float(f) => format_float(*f, 'g', 64),
        YVal::Str(s) => go_quote(&String::from_utf8_lossy(s)),
        YVal::Seq(items) => {
            let parts: Vec<String> = items.iter().map(|e| go_sharp_v(e, false)).collect();
            format!("[]interface {{}}{{{}}}", parts.join(", "))
        }
        YVal::Map(m) => {
            let mut parts: Vec<(String, String)> = m
                .entries
                .iter()
                .map(|(k, v)| (go_sharp_v(k, false), go_sharp_v(v, false)))
                .collect();
            parts.sort();
            let parts: Vec<String> = parts.into_iter().map(|(k, v)| format!("{k}:{v}")).collect();
            format!("map[interface {{}}]interface {{}}{{{}}}", parts.join(", "))
        }
        YVal::Verbatim(block) => go_sharp_v(&block.expand(), top),
    })
}

/// Go's `strconv.Quote` (close enough for error messages: printable characters stay).
fn go_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            '\x0b' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c if (0x80..0xa0).contains(&(c as u32)) => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

// ---------------------------------------------------------------------------------------------
// sigs.k8s.io/yaml's JSON step.

/// Go's conversion of a string's bytes to valid UTF-8 as `encoding/json` writes it: every byte
/// of an invalid sequence becomes U+FFFD.
pub(crate) fn go_lossy_utf8(b: &[u8]) -> String {
    match std::str::from_utf8(b) {
        Ok(s) => s.to_string(),
        Err(_) => {
            let mut out = String::new();
            for chunk in b.utf8_chunks() {
                out.push_str(chunk.valid());
                for _ in chunk.invalid() {
                    out.push('\u{FFFD}');
                }
            }
            out
        }
    }
}

pub(crate) fn key_string(k: &YVal, v: &YVal) -> Result<String, Fail> {
    Ok(match k {
        YVal::Str(s) => go_lossy_utf8(s),
        YVal::Int(i) => i.to_string(),
        YVal::Float(f) => match format_float(*f, 'g', 32).as_str() {
            "+Inf" => ".inf".to_string(),
            "-Inf" => "-.inf".to_string(),
            "NaN" => ".nan".to_string(),
            s => s.to_string(),
        },
        YVal::Bool(b) => b.to_string(),
        _ => {
            let ty = match k {
                YVal::Uint(_) => "uint64",
                _ => "%!s(<nil>)",
            };
            return Err(Fail::new(format!(
                "unsupported map key of type: {ty}, key: {}, value: {}",
                go_sharp_v(k, true),
                go_sharp_v(v, true)
            )));
        }
    })
}

/// [`go_lossy_utf8`] as a shared string, copied once.
fn json_str(b: &[u8]) -> Rc<str> {
    match std::str::from_utf8(b) {
        Ok(s) => Rc::from(s),
        Err(_) => Rc::from(go_lossy_utf8(b)),
    }
}

/// `convertToJSONableObject` and the JSON round trip: numbers become float64, keys strings.
pub(crate) fn to_json_value(v: &YVal) -> Result<Value, Fail> {
    gotemplate::stack::grow(|| {
        Ok(match v {
            YVal::Nil => Value::Nil,
            YVal::Bool(b) => Value::Bool(*b),
            YVal::Int(i) => Value::Float(*i as f64),
            YVal::Uint(u) => Value::Float(*u as f64),
            YVal::Float(f) => Value::Float(*f),
            YVal::Str(s) => Value::String(json_str(s).into()),
            YVal::Verbatim(block) => to_json_value(&block.expand())?,
            YVal::Seq(items) => {
                let out: Result<Vec<Value>, Fail> = items.iter().map(to_json_value).collect();
                Value::List(List::new(out?))
            }
            YVal::Map(m) => {
                let out = Map::new();
                for (k, v) in &m.entries {
                    let ks: Rc<str> = match k {
                        YVal::Str(s) => json_str(s),
                        _ => key_string(k, v)?.into(),
                    };
                    out.insert(ks, to_json_value(v)?);
                }
                Value::Map(out)
            }
        })
    })
}

/// A decoded map read as [`to_json_value`] reads it, built one level at a time when a
/// template first uses it (a [`gotemplate::MapSource`]): the node at `path` in `root`, each
/// step an entry of a map or an item of a sequence.
pub(crate) struct LazyDoc {
    root: Rc<YVal>,
    path: Rc<[u32]>,
}

impl LazyDoc {
    /// The decoded node this map stands for.
    pub(crate) fn node(&self) -> &YVal {
        let mut node = &*self.root;
        for &i in self.path.iter() {
            node = match node {
                YVal::Map(m) => &m.entries[i as usize].1,
                YVal::Seq(items) => &items[i as usize],
                // Paths are only made by `lazy_value`, one step per map entry or item.
                _ => unreachable!("a LazyDoc path steps into a scalar"),
            };
        }
        node
    }
}

impl gotemplate::MapSource for LazyDoc {
    fn build(&self) -> std::collections::BTreeMap<Rc<str>, Value> {
        let (root, path, m) = match self.node() {
            YVal::Map(m) => (&self.root, &*self.path, m),
            // A block not read yet: read now, as the root of its own lazy maps.
            YVal::Verbatim(block) => {
                let read = Rc::new(block.expand());
                return LazyDoc {
                    root: read,
                    path: Rc::from([]),
                }
                .build();
            }
            _ => unreachable!("a LazyDoc stands for a map"),
        };
        m.entries
            .iter()
            .enumerate()
            .map(|(i, (k, v))| {
                // `lazy_convertible` trees have string keys only.
                let YVal::Str(k) = k else {
                    unreachable!("a LazyDoc key is a string")
                };
                (json_str(k), lazy_value(root, path, i, v))
            })
            .collect()
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The value of `node`, the `step`-th child of the node at `parent` in `root`: scalars as
/// [`to_json_value`] converts them, maps lazy, sequences converted item by item.
fn lazy_value(root: &Rc<YVal>, parent: &[u32], step: usize, node: &YVal) -> Value {
    gotemplate::stack::grow(|| {
        let path = || -> Rc<[u32]> { parent.iter().copied().chain([step as u32]).collect() };
        match node {
            YVal::Map(m) if m.entries.is_empty() => Value::Map(Map::new()),
            // Verbatim blocks are non-empty maps, read when the lazy map is built.
            YVal::Map(_) | YVal::Verbatim(_) => Value::Map(Map::lazy(Rc::new(LazyDoc {
                root: root.clone(),
                path: path(),
            }))),
            YVal::Seq(items) => {
                let path = path();
                Value::List(List::new(
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, item)| lazy_value(root, &path, i, item))
                        .collect(),
                ))
            }
            // Scalars never fail to convert.
            scalar => to_json_value(scalar).unwrap_or(Value::Nil),
        }
    })
}

/// Whether [`lazy_json_value`] may stand for the round trip of `root`: a map holding nothing the
/// round trip could refuse (a key that is not a string, NaN or an infinity). Otherwise the
/// caller takes the eager path and its exact error.
pub(crate) fn lazy_convertible(root: &YVal) -> bool {
    fn convertible(v: &YVal) -> bool {
        gotemplate::stack::grow(|| match v {
            YVal::Float(f) => f.is_finite(),
            YVal::Seq(items) => items.iter().all(convertible),
            YVal::Map(m) => m
                .entries
                .iter()
                .all(|(k, v)| matches!(k, YVal::Str(_)) && convertible(v)),
            _ => true,
        })
    }
    matches!(root, YVal::Map(_)) && convertible(root)
}

/// [`json_round_trip`] of a decoded map that is [`lazy_convertible`], built lazily (see
/// [`LazyDoc`]).
pub(crate) fn lazy_json_value(root: &Rc<YVal>) -> Value {
    debug_assert!(
        lazy_convertible(root),
        "a lazy map of a tree that may not convert"
    );
    match &**root {
        YVal::Map(m) if m.entries.is_empty() => Value::Map(Map::new()),
        _ => Value::Map(Map::lazy(Rc::new(LazyDoc {
            root: root.clone(),
            path: Rc::from([]),
        }))),
    }
}

/// [`to_json_value`] and then [`crate::json_value::to_json_value`] in one step, for a decoded
/// document that converts without error (`None` otherwise: the caller takes the general path
/// for its error).
pub(crate) fn yval_to_serde(v: &YVal) -> Option<serde_json::Value> {
    gotemplate::stack::grow(|| {
        let number = |f: f64| serde_json::Number::from_f64(f).map(serde_json::Value::Number);
        Some(match v {
            YVal::Nil => serde_json::Value::Null,
            YVal::Bool(b) => serde_json::Value::Bool(*b),
            YVal::Int(i) => number(*i as f64)?,
            YVal::Uint(u) => number(*u as f64)?,
            YVal::Float(f) => number(*f)?,
            YVal::Str(s) => serde_json::Value::String(go_lossy_utf8(s)),
            YVal::Verbatim(block) => yval_to_serde(&block.expand())?,
            YVal::Seq(items) => {
                serde_json::Value::Array(items.iter().map(yval_to_serde).collect::<Option<_>>()?)
            }
            YVal::Map(m) => {
                let mut out = serde_json::Map::new();
                for (k, v) in &m.entries {
                    let ks = key_string(k, v).ok()?;
                    out.insert(ks, yval_to_serde(v)?);
                }
                serde_json::Value::Object(out)
            }
        })
    })
}

/// `json.Marshal`'s rejection of NaN and infinities, found in its (sorted) order.
pub(crate) fn check_json_floats(v: &Value) -> Result<(), Fail> {
    match v {
        Value::Float(f) if !f.is_finite() => Err(Fail::new(format!(
            "json: unsupported value: {}",
            format_float(*f, 'g', 64)
        ))),
        Value::List(l) => l.items().iter().try_for_each(check_json_floats),
        Value::Map(m) => m.with_entries(|e| e.values().try_for_each(check_json_floats)),
        _ => Ok(()),
    }
}

// ---------------------------------------------------------------------------------------------
// Entry points.

/// go-yaml's `Unmarshal` into `interface{}`: the first document, or nil.
pub(crate) fn decode_first(input: &[u8]) -> Result<YVal, Fail> {
    decode_first_sharing(input, true)
}

/// [`decode_first`], finding repeated blocks to share only with `share_repeats` (see
/// `fast::decode`).
fn decode_first_sharing(input: &[u8], share_repeats: bool) -> Result<YVal, Fail> {
    if let Some(v) = crate::fast::decode(input, share_repeats) {
        // Debug builds (all the tests) check the fast reader against libyaml's reading.
        #[cfg(debug_assertions)]
        match decode_general(input) {
            Ok(general) => assert!(
                same_yval(&v, &general),
                "fast YAML reader differs on {:?}",
                String::from_utf8_lossy(input)
            ),
            Err(e) => panic!(
                "fast YAML reader accepted what go-yaml rejects ({}): {:?}",
                e.message,
                String::from_utf8_lossy(input)
            ),
        }
        return Ok(v);
    }
    decode_general(input)
}

/// [`decode_first`] of a large text that `toYaml` may write back: blocks already written as
/// `toYaml` writes them stay unread (see `verbatim`).
pub(crate) fn decode_first_keeping_verbatim(
    text: &gotemplate::Str,
    ahead: Option<&crate::ahead::Offering>,
) -> Result<YVal, Fail> {
    let prepared = match ahead.map(|a| a.take(text)) {
        Some(crate::ahead::Taken::Prepared(prepared)) => prepared,
        _ => crate::fast::prepare(text),
    };
    let Some(v) = prepared.and_then(|p| crate::fast::decode_prepared(text, p)) else {
        return decode_first(text.as_bytes());
    };
    // Debug builds (all the tests) check the blocks left unread against reading them.
    #[cfg(debug_assertions)]
    {
        let read = crate::verbatim::expand_all(&v, &|y| Some(y.clone()));
        let whole = decode_first(text.as_bytes()).expect("the fast reader took the text");
        assert!(
            same_yval(read.as_ref().unwrap_or(&v), &whole),
            "a verbatim block reads differently"
        );
    }
    Ok(v)
}

/// Structural equality of decoded values (entries in order, floats by bits).
pub(crate) fn same_yval(a: &YVal, b: &YVal) -> bool {
    gotemplate::stack::grow(|| {
        match (a, b) {
            (YVal::Nil, YVal::Nil) => true,
            (YVal::Bool(x), YVal::Bool(y)) => x == y,
            (YVal::Int(x), YVal::Int(y)) => x == y,
            (YVal::Uint(x), YVal::Uint(y)) => x == y,
            (YVal::Float(x), YVal::Float(y)) => x.to_bits() == y.to_bits(),
            (YVal::Str(x), YVal::Str(y)) => x == y,
            (YVal::Seq(x), YVal::Seq(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_yval(a, b))
            }
            (YVal::Map(x), YVal::Map(y)) => {
                x.entries.len() == y.entries.len()
                    && x.entries
                        .iter()
                        .zip(&y.entries)
                        .all(|(a, b)| same_yval(&a.0, &b.0) && same_yval(&a.1, &b.1))
            }
            (YVal::Verbatim(x), YVal::Verbatim(y)) => x.same_text(y),
            // A verbatim block stands for its value read or for its value converted, depending on
            // the tree; the callers that compare it with another node expand it first.
            _ => false,
        }
    })
}

/// [`decode_first`] through libyaml's events and go-yaml's decoder.
fn decode_general(input: &[u8]) -> Result<YVal, Fail> {
    let mut p = TreeParser::new(input);
    let Some(root) = p.parse()? else {
        return Ok(YVal::Nil);
    };
    let mut d = Decoder::new(&p.nodes);
    d.unmarshal(root)
}

/// sigs.k8s.io/yaml's `yamlToJSON` step for one decoded document.
pub(crate) fn json_round_trip(y: &YVal) -> Result<Value, YamlError> {
    const PREFIX: &str = "error converting YAML to JSON: ";
    let v = to_json_value(y).map_err(|f| f.into_error(PREFIX))?;
    check_json_floats(&v).map_err(|f| f.into_error(PREFIX))?;
    Ok(v)
}

pub(crate) fn from_yaml_bytes(input: &[u8]) -> Result<Value, YamlError> {
    let y = decode_first(input).map_err(|f| f.into_error("error converting YAML to JSON: "))?;
    let v = json_round_trip(&y)?;
    check_json_depth(input.len(), &y)?;
    Ok(v)
}

/// `encoding/json`'s `maxNestingDepth`: the decoder that reads the JSON text of a YAML
/// document back refuses anything nested deeper.
const JSON_MAX_NESTING_DEPTH: usize = 10000;

/// sigs.k8s.io/yaml's second step, `json.Unmarshal` of the document's JSON text, fails on
/// nesting deeper than the JSON decoder takes (go-yaml, with separate limits for flow and
/// block nesting, can hand it more). `len` is the document text's length.
pub(crate) fn check_json_depth(len: usize, y: &YVal) -> Result<(), YamlError> {
    // Every level of nesting takes at least a byte of the text (an alias only repeats a
    // collection read before it, never one that holds it), so short texts need no walk.
    if len <= JSON_MAX_NESTING_DEPTH {
        return Ok(());
    }
    match json_too_deep(y, 0) {
        None => Ok(()),
        Some(c) => Err(YamlError {
            message: format!(
                "error unmarshaling JSON: while decoding JSON: invalid character '{c}' exceeded max depth"
            ),
            line: None,
            column: None,
        }),
    }
}

/// The bracket that opens the first collection nested deeper than [`JSON_MAX_NESTING_DEPTH`],
/// in the JSON text's order (keys sorted), for a node inside `depth` collections.
fn json_too_deep(v: &YVal, depth: usize) -> Option<char> {
    let bracket = match v {
        YVal::Seq(_) => '[',
        YVal::Map(_) => '{',
        // Verbatim blocks come from the fast reader, which reads only shallow documents.
        _ => return None,
    };
    if depth >= JSON_MAX_NESTING_DEPTH {
        return Some(bracket);
    }
    gotemplate::stack::grow(|| match v {
        YVal::Seq(items) => items.iter().find_map(|i| json_too_deep(i, depth + 1)),
        YVal::Map(m) => {
            let mut nested: Vec<&(YVal, YVal)> = m
                .entries
                .iter()
                .filter(|(_, v)| matches!(v, YVal::Seq(_) | YVal::Map(_)))
                .collect();
            if nested.len() > 1 {
                nested.sort_by(|a, b| match (&a.0, &b.0) {
                    (YVal::Str(x), YVal::Str(y)) => x.cmp(y),
                    _ => std::cmp::Ordering::Equal,
                });
            }
            nested.iter().find_map(|(_, v)| json_too_deep(v, depth + 1))
        }
        _ => None,
    })
}

/// sigs.k8s.io/yaml's `Unmarshal` into Helm's `SimpleHead` up to the JSON decoding: the YAML
/// to JSON conversion knows the target, and writes the numbers and booleans it finds where the
/// target holds a string (`apiVersion`, `kind`, `metadata.name`, each annotation) as strings
/// (`kind: 1.50` is `"1.5"`, formatted as a float32, `kind: .inf` is `"+Inf"` rather than a
/// value JSON cannot hold). Keys match the fields as Go's JSON does, case folded.
pub(crate) fn from_yaml_for_head(input: &[u8]) -> Result<Value, YamlError> {
    // The tree is looked at once, for its head: nothing to share.
    let mut y = decode_first_sharing(input, false)
        .map_err(|f| f.into_error("error converting YAML to JSON: "))?;
    if let YVal::Verbatim(block) = &y {
        y = block.expand();
    }
    head_strings(&mut y);
    // Only the head is looked at: a tree the round trip cannot refuse is not converted whole
    // (a document can hold a large ConfigMap's strings), only as far as it is read.
    if lazy_convertible(&y) {
        check_json_depth(input.len(), &y)?;
        return Ok(lazy_json_value(&Rc::new(y)));
    }
    let v = json_round_trip(&y)?;
    check_json_depth(input.len(), &y)?;
    Ok(v)
}

/// `SimpleHead`'s string fields, with the field a key names.
fn head_field<'f>(key: &YVal, value: &YVal, fields: &[&'f str]) -> Option<&'f str> {
    go_json_field(&key_string(key, value).ok()?, fields)
}

/// The field of `fields` that encoding/json decodes `key` into: the exact name, or else one
/// equal under its case folding.
pub(crate) fn go_json_field<'f>(key: &str, fields: &[&'f str]) -> Option<&'f str> {
    fields.iter().find(|f| **f == key).copied().or_else(|| {
        // Go's folding of ASCII is ASCII's case; only other letters (the Kelvin sign, the long
        // s) can fold onto a field's.
        if key.is_ascii() {
            return fields.iter().find(|f| f.eq_ignore_ascii_case(key)).copied();
        }
        let folded = go_json_fold(key);
        fields.iter().find(|f| go_json_fold(f) == folded).copied()
    })
}

/// encoding/json's `foldName`: each letter as `unicode.ToUpper(unicode.ToLower(r))`.
fn go_json_fold(name: &str) -> String {
    name.chars()
        .map(|c| {
            let lower = c
                .to_lowercase()
                .next()
                .filter(|_| c.to_lowercase().count() == 1);
            let lower = lower.unwrap_or(c);
            let upper = lower
                .to_uppercase()
                .next()
                .filter(|_| lower.to_uppercase().count() == 1);
            upper.unwrap_or(lower)
        })
        .collect()
}

fn head_strings(y: &mut YVal) {
    let YVal::Map(map) = y else { return };
    for (k, v) in &mut map.entries {
        expand_verbatim(v);
        match head_field(k, v, &["apiVersion", "kind", "metadata"]) {
            Some("metadata") => {
                let YVal::Map(meta) = v else { continue };
                for (k, v) in &mut meta.entries {
                    expand_verbatim(v);
                    match head_field(k, v, &["name", "annotations"]) {
                        Some("annotations") => {
                            if let YVal::Map(annotations) = v {
                                annotations
                                    .entries
                                    .iter_mut()
                                    .for_each(|(_, v)| as_go_string(v));
                            }
                        }
                        Some(_) => as_go_string(v),
                        None => {}
                    }
                }
            }
            Some(_) => as_go_string(v),
            None => {}
        }
    }
}

fn expand_verbatim(v: &mut YVal) {
    if let YVal::Verbatim(block) = v {
        *v = block.expand();
    }
}

/// sigs.k8s.io/yaml's scalar for a string target.
fn as_go_string(v: &mut YVal) {
    let text = match v {
        YVal::Int(i) => i.to_string(),
        YVal::Uint(u) => u.to_string(),
        YVal::Float(f) => format_float(*f, 'g', 32),
        YVal::Bool(b) => b.to_string(),
        _ => return,
    };
    *v = YVal::str(&text);
}

/// sigs.k8s.io/yaml `Unmarshal` into a map type named `type_name` (as Go prints it).
fn unmarshal_map(input: &[u8], type_name: &str) -> Result<Option<Map>, YamlError> {
    let v = from_yaml_bytes(input)?;
    let what = match v {
        Value::Nil => return Ok(None),
        Value::Map(m) => return Ok(Some(m)),
        Value::String(_) => "string",
        Value::Float(_) => "number",
        Value::Bool(_) => "bool",
        Value::List(_) => "array",
        _ => "value",
    };
    Err(YamlError {
        message: format!(
            "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {what} into Go value of type {type_name}"
        ),
        line: None,
        column: None,
    })
}

/// Helm's `ReadValues` (`pkg/chart/common`).
pub(crate) fn read_values_bytes(input: &[u8]) -> Result<Map, YamlError> {
    Ok(unmarshal_map(input, "common.Values")?.unwrap_or_default())
}

/// Go's `strings.TrimSpace`.
fn go_trim_space(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace())
}

/// k8s.io/apimachinery's `YAMLReader`: documents split at lines starting with `---`, lines
/// re-terminated with `\n` (a `\r\n` ending becomes `\n`). The reader is lazy: on a bad
/// separator line, the documents completed before it come with the error.
fn split_yaml_documents(input: &[u8]) -> (Vec<Vec<u8>>, Option<YamlError>) {
    let mut docs = Vec::new();
    let mut buffer: Vec<u8> = Vec::new();
    let mut rest = input;
    while !rest.is_empty() {
        let (mut line, next) = match rest.iter().position(|&c| c == b'\n') {
            Some(i) => {
                let mut l = &rest[..i];
                if l.last() == Some(&b'\r') {
                    l = &l[..l.len() - 1];
                }
                (l.to_vec(), &rest[i + 1..])
            }
            None => (rest.to_vec(), &rest[rest.len()..]),
        };
        rest = next;
        line.push(b'\n');
        if let Some(after) = line.strip_prefix(b"---") {
            let after = String::from_utf8_lossy(after);
            let trimmed = go_trim_space(&after);
            if !trimmed.is_empty() && !trimmed.starts_with('#') {
                let err = YamlError {
                    message: format!(
                        "error reading yaml document: invalid Yaml document separator: {trimmed}"
                    ),
                    line: None,
                    column: None,
                };
                return (docs, Some(err));
            }
            if !buffer.is_empty() {
                docs.push(std::mem::take(&mut buffer));
                continue;
            }
        }
        buffer.extend_from_slice(&line);
    }
    if !buffer.is_empty() {
        docs.push(buffer);
    }
    (docs, None)
}

/// Helm's `MergeMaps`: maps merge recursively, anything else in `b` replaces.
fn merge_maps(a: &Map, b: &Map) -> Map {
    gotemplate::stack::grow(|| {
        let out = a.shallow_clone();
        for (k, v) in b.entries() {
            if let Value::Map(bm) = &v
                && let Some(Value::Map(am)) = out.get(&k)
            {
                out.insert(k, Value::Map(merge_maps(&am, bm)));
                continue;
            }
            out.insert(k, v);
        }
        out
    })
}

/// Helm v4's `loader.LoadValues`: every document of the stream unmarshaled into a map and
/// merged into the previous ones.
pub(crate) fn load_values_bytes(input: &[u8]) -> Result<Map, YamlError> {
    let mut values = Map::new();
    let (docs, split_err) = split_yaml_documents(input);
    for doc in docs {
        let current = unmarshal_map(&doc, "map[string]interface {}").map_err(|e| YamlError {
            message: format!("cannot unmarshal yaml document: {}", e.message),
            ..e
        })?;
        if let Some(current) = current {
            values = merge_maps(&values, &current);
        }
    }
    match split_err {
        Some(e) => Err(e),
        None => Ok(values),
    }
}

pub(crate) fn documents_bytes(input: &[u8]) -> Result<Vec<Value>, YamlError> {
    const PREFIX: &str = "error converting YAML to JSON: ";
    // A go-yaml Decoder reads the stream as is (an empty one has no documents).
    let mut p = TreeParser::new(input);
    let mut out = Vec::new();
    loop {
        let root = match p.parse() {
            Ok(Some(root)) => root,
            Ok(None) => return Ok(out),
            Err(f) => return Err(f.into_error(PREFIX)),
        };
        let y = Decoder::new(&p.nodes)
            .unmarshal(root)
            .map_err(|f| f.into_error(PREFIX))?;
        out.push(json_round_trip(&y)?);
    }
}
