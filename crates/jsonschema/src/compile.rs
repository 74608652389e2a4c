//! Turning schema documents into [`Schema`] nodes, as santhosh-tekuri/jsonschema v6's compiler
//! does: documents (roots) are loaded by URL, their resources (`$id`s, with the draft each
//! one speaks) and anchors are collected, every root is checked against its draft's
//! metaschema, and the compiler walks from the root schema breadth first, resolving each
//! `$ref`, `$recursiveRef` and `$dynamicRef` against the base URI of the resource it sits in
//! (loading other documents as it meets them) and failing at the first problem, in the
//! library's words. Every node compiled also compiles the resource it belongs to, so one
//! reference into a document compiles the whole document (and fails on any bad reference in
//! it), as Helm does.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

use gotemplate::fmt::quote;
use gotemplate::{Map, Value};

use super::{Loader, format, validate};

/// A JSON Schema draft: where its keywords keep subschemas, and which keyword names ids.
pub(super) struct Draft {
    pub version: u32,
    url: &'static str,
    id: &'static str,
    subschemas: &'static [&'static str],
    default_vocabs: &'static [&'static str],
}

const DRAFT4_SUBSCHEMAS: &[&str] = &[
    "definitions/*",
    "not",
    "allOf/[]",
    "anyOf/[]",
    "oneOf/[]",
    "properties/*",
    "additionalProperties",
    "patternProperties/*",
    "items",
    "items/[]",
    "additionalItems",
    "dependencies/*",
];
const DRAFT6_SUBSCHEMAS: &[&str] = &[
    "definitions/*",
    "not",
    "allOf/[]",
    "anyOf/[]",
    "oneOf/[]",
    "properties/*",
    "additionalProperties",
    "patternProperties/*",
    "items",
    "items/[]",
    "additionalItems",
    "dependencies/*",
    "propertyNames",
    "contains",
];
const DRAFT7_SUBSCHEMAS: &[&str] = &[
    "definitions/*",
    "not",
    "allOf/[]",
    "anyOf/[]",
    "oneOf/[]",
    "properties/*",
    "additionalProperties",
    "patternProperties/*",
    "items",
    "items/[]",
    "additionalItems",
    "dependencies/*",
    "propertyNames",
    "contains",
    "if",
    "then",
    "else",
];
const DRAFT2019_SUBSCHEMAS: &[&str] = &[
    "definitions/*",
    "not",
    "allOf/[]",
    "anyOf/[]",
    "oneOf/[]",
    "properties/*",
    "additionalProperties",
    "patternProperties/*",
    "items",
    "items/[]",
    "additionalItems",
    "dependencies/*",
    "propertyNames",
    "contains",
    "if",
    "then",
    "else",
    "$defs/*",
    "dependentSchemas/*",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentSchema",
];
const DRAFT2020_SUBSCHEMAS: &[&str] = &[
    "definitions/*",
    "not",
    "allOf/[]",
    "anyOf/[]",
    "oneOf/[]",
    "properties/*",
    "additionalProperties",
    "patternProperties/*",
    "items",
    "items/[]",
    "additionalItems",
    "dependencies/*",
    "propertyNames",
    "contains",
    "if",
    "then",
    "else",
    "$defs/*",
    "dependentSchemas/*",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentSchema",
    "prefixItems/[]",
];

pub(super) static DRAFT4: Draft = Draft {
    version: 4,
    url: "http://json-schema.org/draft-04/schema",
    id: "id",
    subschemas: DRAFT4_SUBSCHEMAS,
    default_vocabs: &[],
};
pub(super) static DRAFT6: Draft = Draft {
    version: 6,
    url: "http://json-schema.org/draft-06/schema",
    id: "$id",
    subschemas: DRAFT6_SUBSCHEMAS,
    default_vocabs: &[],
};
pub(super) static DRAFT7: Draft = Draft {
    version: 7,
    url: "http://json-schema.org/draft-07/schema",
    id: "$id",
    subschemas: DRAFT7_SUBSCHEMAS,
    default_vocabs: &[],
};
pub(super) static DRAFT2019: Draft = Draft {
    version: 2019,
    url: "https://json-schema.org/draft/2019-09/schema",
    id: "$id",
    subschemas: DRAFT2019_SUBSCHEMAS,
    default_vocabs: &["core", "applicator", "validation"],
};
pub(super) static DRAFT2020: Draft = Draft {
    version: 2020,
    url: "https://json-schema.org/draft/2020-12/schema",
    id: "$id",
    subschemas: DRAFT2020_SUBSCHEMAS,
    default_vocabs: &["core", "applicator", "unevaluated", "validation"],
};
pub(super) static DRAFTS: [&Draft; 5] = [&DRAFT4, &DRAFT6, &DRAFT7, &DRAFT2019, &DRAFT2020];

/// The draft a `$schema` URL names (`#` with nothing after it allowed; `http` and `https`
/// alike); `None` for other URLs.
fn draft_from_url(url: &str) -> Option<&'static Draft> {
    let (u, frag) = split(url);
    if !frag.is_empty() {
        return None;
    }
    let u = u
        .strip_prefix("http://")
        .or_else(|| u.strip_prefix("https://"))
        .unwrap_or(u);
    Some(match u {
        "json-schema.org/schema" | "json-schema.org/draft/2020-12/schema" => &DRAFT2020,
        "json-schema.org/draft/2019-09/schema" => &DRAFT2019,
        "json-schema.org/draft-07/schema" => &DRAFT7,
        "json-schema.org/draft-06/schema" => &DRAFT6,
        "json-schema.org/draft-04/schema" => &DRAFT4,
        _ => return None,
    })
}

impl Draft {
    /// The resource id a schema object declares (its fragment dropped); empty if none. Before
    /// 2019-09 a `$ref` hides its siblings, the id among them.
    fn get_id(&self, obj: &Map) -> String {
        if self.version < 2019 && obj.contains_key("$ref") {
            return String::new();
        }
        match obj.get(self.id) {
            Some(Value::String(id)) => split(&id).0.to_string(),
            _ => String::new(),
        }
    }

    fn has_vocab(&self, name: &str) -> bool {
        name == "core" || self.version < 2019 || self.default_vocabs.contains(&name)
    }
}

/// The metaschema documents the library has built in: `http(s)://json-schema.org/PATH` for
/// these paths (`schema` alone is the 2020-12 one). They are never fetched.
fn builtin_metaschema(url: &str) -> Option<&'static str> {
    let path = url
        .strip_prefix("http://json-schema.org/")
        .or_else(|| url.strip_prefix("https://json-schema.org/"))?;
    Some(match path {
        "schema" | "draft/2020-12/schema" => include_str!("metaschemas/draft/2020-12/schema.json"),
        "draft-04/schema" => include_str!("metaschemas/draft-04/schema.json"),
        "draft-06/schema" => include_str!("metaschemas/draft-06/schema.json"),
        "draft-07/schema" => include_str!("metaschemas/draft-07/schema.json"),
        "draft/2019-09/schema" => include_str!("metaschemas/draft/2019-09/schema.json"),
        "draft/2019-09/meta/applicator" => {
            include_str!("metaschemas/draft/2019-09/meta/applicator.json")
        }
        "draft/2019-09/meta/content" => include_str!("metaschemas/draft/2019-09/meta/content.json"),
        "draft/2019-09/meta/core" => include_str!("metaschemas/draft/2019-09/meta/core.json"),
        "draft/2019-09/meta/format" => include_str!("metaschemas/draft/2019-09/meta/format.json"),
        "draft/2019-09/meta/meta-data" => {
            include_str!("metaschemas/draft/2019-09/meta/meta-data.json")
        }
        "draft/2019-09/meta/validation" => {
            include_str!("metaschemas/draft/2019-09/meta/validation.json")
        }
        "draft/2020-12/meta/applicator" => {
            include_str!("metaschemas/draft/2020-12/meta/applicator.json")
        }
        "draft/2020-12/meta/content" => include_str!("metaschemas/draft/2020-12/meta/content.json"),
        "draft/2020-12/meta/core" => include_str!("metaschemas/draft/2020-12/meta/core.json"),
        "draft/2020-12/meta/format-annotation" => {
            include_str!("metaschemas/draft/2020-12/meta/format-annotation.json")
        }
        "draft/2020-12/meta/format-assertion" => {
            include_str!("metaschemas/draft/2020-12/meta/format-assertion.json")
        }
        "draft/2020-12/meta/meta-data" => {
            include_str!("metaschemas/draft/2020-12/meta/meta-data.json")
        }
        "draft/2020-12/meta/unevaluated" => {
            include_str!("metaschemas/draft/2020-12/meta/unevaluated.json")
        }
        "draft/2020-12/meta/validation" => {
            include_str!("metaschemas/draft/2020-12/meta/validation.json")
        }
        _ => return None,
    })
}

// ---------------------------------------------------------------------------------------------
// URLs, fragments and JSON pointers, as the library handles them
// ---------------------------------------------------------------------------------------------

/// Splits at the first `#`.
fn split(s: &str) -> (&str, &str) {
    s.split_once('#').unwrap_or((s, ""))
}

/// The library's `ParseURLError`.
fn parse_url_error(url: &str, e: &dyn std::fmt::Display) -> String {
    format!("error in parsing {}: {e}", quote(url))
}

/// `splitFragment`: the URL part and the percent-decoded fragment.
fn split_fragment(s: &str) -> Result<(String, String), String> {
    let (u, f) = split(s);
    let f = gourl::path_unescape(f).map_err(|e| parse_url_error(s, &e))?;
    Ok((u.to_string(), f))
}

/// `url.join`: `reference` resolved against `base` (both as the library parses them).
fn join(base: &str, reference: &str) -> Result<(String, String), String> {
    let b = gourl::parse(base).map_err(|e| parse_url_error(base, &e))?;
    let (r, frag) = split_fragment(reference)?;
    let ru = gourl::parse(&r).map_err(|e| parse_url_error(&r, &e))?;
    let mut resolved = b.resolve_reference(&ru);
    // Go's ResolveReference ignores an opaque base (golang.org/issue/66084); the library
    // puts it back.
    if !ru.is_abs() && !b.opaque.is_empty() {
        resolved.opaque = b.opaque.clone();
    }
    Ok((resolved.to_string(), frag))
}

/// `encode`: each pointer token path-escaped, the slashes kept.
fn encode(frag: &str) -> String {
    frag.split('/')
        .map(gourl::path_escape)
        .collect::<Vec<_>>()
        .join("/")
}

/// `urlPtr.String()`: `URL#POINTER`, the pointer encoded.
pub(super) fn url_ptr(url: &str, ptr: &str) -> String {
    format!("{url}#{}", encode(ptr))
}

fn escape_token(token: &str) -> String {
    // Nearly every token (a property name) has neither: one copy rather than two.
    if !token.contains(['~', '/']) {
        return token.to_string();
    }
    token.replace('~', "~0").replace('/', "~1")
}

/// `unescape` of a pointer token; `None` for a `~` not followed by `0` or `1`.
fn unescape_token(token: &str) -> Option<std::borrow::Cow<'_, str>> {
    if !token.contains('~') {
        return Some(std::borrow::Cow::Borrowed(token));
    }
    let mut out = String::new();
    let mut chars = token.chars();
    while let Some(c) = chars.next() {
        if c != '~' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('0') => out.push('~'),
            Some('1') => out.push('/'),
            _ => return None,
        }
    }
    Some(std::borrow::Cow::Owned(out))
}

/// The value at `ptr` in `doc`; errors name `url#ptr`.
fn lookup(doc: &Value, url: &str, ptr: &str) -> Result<Value, String> {
    let mut v = doc.clone();
    for token in ptr.split('/').skip(1) {
        let token = unescape_token(token)
            .ok_or_else(|| format!("invalid json-pointer {}", quote(&url_ptr(url, ptr))))?;
        let next = match &v {
            Value::Map(m) => m.get(&token),
            Value::List(l) => token
                .parse::<i64>()
                .ok()
                .and_then(|i| usize::try_from(i).ok())
                .and_then(|i| l.items().get(i).cloned()),
            _ => None,
        };
        v =
            next.ok_or_else(|| format!("json-pointer in {} not found", quote(&url_ptr(url, ptr))))?;
    }
    Ok(v)
}

/// `SchemaPath.collect`: the subschemas a keyword path (`properties/*`, `allOf/[]`, `not`)
/// reaches from `v` at `ptr`, by pointer.
fn collect(path: &str, v: &Value, ptr: &str, out: &mut BTreeMap<String, Value>) {
    let (head, rest) = match path.split_once('/') {
        Some((h, r)) => (h, Some(r)),
        None => (path, None),
    };
    let mut found: Vec<(String, Value)> = Vec::new();
    match (head, v) {
        ("*", Value::Map(m)) => {
            for (k, child) in m.entries() {
                found.push((format!("{ptr}/{}", escape_token(&k)), child));
            }
        }
        ("[]", Value::List(l)) => {
            for (i, child) in l.items().iter().enumerate() {
                found.push((format!("{ptr}/{i}"), child.clone()));
            }
        }
        ("*" | "[]", _) => {}
        (name, Value::Map(m)) => {
            if let Some(child) = m.get(name) {
                found.push((format!("{ptr}/{}", escape_token(name)), child));
            }
        }
        _ => {}
    }
    for (p, child) in found {
        match rest {
            Some(rest) => collect(rest, &child, &p, out),
            None => {
                out.insert(p, child);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Roots and resources
// ---------------------------------------------------------------------------------------------

/// Maps and sets keyed by JSON pointers, hashed for every node of a schema: SipHash's
/// defence against crafted keys buys nothing against a chart's own schema, and hashing long
/// pointers with it took a tenth of a large schema's compile.
type FastMap<K, V> = HashMap<K, V, foldhash::fast::FixedState>;
type FastSet<K> = HashSet<K, foldhash::fast::FixedState>;

/// A schema resource: a subschema with its own base URI (the root, or one with an id).
#[derive(Clone)]
struct Resource {
    ptr: String,
    id: String,
    draft: &'static Draft,
    anchors: BTreeMap<String, String>,
    dynamic_anchors: Vec<String>,
}

impl Resource {
    fn new(ptr: &str, id: &str, draft: &'static Draft) -> Resource {
        Resource {
            ptr: ptr.to_string(),
            id: id.to_string(),
            draft,
            anchors: BTreeMap::new(),
            dynamic_anchors: Vec::new(),
        }
    }
}

/// A loaded document: its resources by pointer and the subschema pointers already seen.
#[derive(Clone)]
struct Root {
    url: String,
    doc: Value,
    resources: BTreeMap<String, Resource>,
    processed: FastSet<String>,
}

impl Root {
    /// The resource a pointer lies in: the nearest one at or above it (the root, `""`, is
    /// above every pointer).
    fn resource_entry(&self, ptr: &str) -> Option<(&String, &Resource)> {
        // Most documents hold one resource (the root) or a few, and every node compiled asks:
        // a scan of them beats a map search for each of a deep pointer's parents.
        if self.resources.len() <= 8 {
            let above = |key: &str| {
                key.is_empty()
                    || (ptr.starts_with(key)
                        && matches!(ptr.as_bytes().get(key.len()), None | Some(b'/')))
            };
            return self
                .resources
                .iter()
                .filter(|(key, _)| above(key))
                .max_by_key(|(key, _)| key.len());
        }
        let mut p = ptr;
        loop {
            if let Some(entry) = self.resources.get_key_value(p) {
                return Some(entry);
            }
            if p.is_empty() {
                return None;
            }
            p = p.rfind('/').map_or("", |i| &p[..i]);
        }
    }

    fn resource_key(&self, ptr: &str) -> String {
        self.resource_entry(ptr)
            .map_or_else(String::new, |(key, _)| key.clone())
    }

    fn resource(&self, ptr: &str) -> Option<&Resource> {
        self.resource_entry(ptr).map(|(_, res)| res)
    }

    /// `resolveFragmentIn`: a pointer is taken below the resource, an anchor looked up in it.
    fn resolve_fragment_in(&self, frag: &str, res: &Resource) -> Result<String, String> {
        if frag.is_empty() || frag.starts_with('/') {
            return Ok(format!("{}{frag}", res.ptr));
        }
        res.anchors.get(frag).cloned().ok_or_else(|| {
            format!(
                "anchor in {} not found in schema {}",
                quote(&format!("{}#{}", res.id, encode(frag))),
                quote(&self.url)
            )
        })
    }

    /// The draft (metaschema) each resource speaks, by pointer; for the metaschema check.
    fn drafts(&self) -> BTreeMap<String, u32> {
        self.resources
            .iter()
            .map(|(p, r)| (p.clone(), r.draft.version))
            .collect()
    }
}

// ---------------------------------------------------------------------------------------------
// Compiled schemas
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
pub(super) enum Additional {
    Bool(bool),
    Schema(usize),
}

#[derive(Clone, Debug)]
pub(super) enum Items {
    One(usize),
    List(Vec<usize>),
}

#[derive(Clone, Debug)]
pub(super) enum Dependency {
    Required(Vec<String>),
    Schema(usize),
}

/// JSON types as the library's bit set orders them when it lists them.
pub(super) const TYPE_NAMES: [&str; 7] = [
    "null", "boolean", "number", "integer", "string", "array", "object",
];

/// One compiled schema; other schemas are indexes into the same arena.
#[derive(Debug, Default)]
pub(super) struct Schema {
    /// The document's URL and the JSON pointer in it (see [`Schema::location`]).
    pub url: Rc<str>,
    pub ptr: String,
    pub draft: u32,
    /// The resource (root or `$id`'d schema) this one belongs to.
    pub resource: usize,
    /// On a resource: its `$dynamicAnchor`s.
    pub dynamic_anchors: BTreeMap<String, usize>,
    pub all_props_evaluated: bool,
    pub all_items_evaluated: bool,
    pub num_items_evaluated: usize,

    pub boolean: Option<bool>,
    pub reference: Option<usize>,
    pub recursive_ref: Option<usize>,
    pub recursive_anchor: bool,
    /// The initial target and the anchor named in its fragment (empty for a pointer).
    pub dynamic_ref: Option<(usize, String)>,
    pub dynamic_anchor: String,
    /// Bits over [`TYPE_NAMES`].
    pub types: u8,
    pub enumeration: Option<Vec<Value>>,
    pub constant: Option<Value>,
    pub not: Option<usize>,
    pub all_of: Vec<usize>,
    pub any_of: Vec<usize>,
    pub one_of: Vec<usize>,
    pub if_: Option<usize>,
    pub then: Option<usize>,
    pub else_: Option<usize>,
    pub format: Option<&'static str>,

    pub max_properties: Option<i64>,
    pub min_properties: Option<i64>,
    pub required: Vec<String>,
    pub property_names: Option<usize>,
    pub properties: BTreeMap<String, usize>,
    pub pattern_properties: Vec<(goregexp::Regexp, usize)>,
    pub additional_properties: Option<Additional>,
    pub dependencies: Vec<(String, Dependency)>,
    pub dependent_required: Vec<(String, Vec<String>)>,
    pub dependent_schemas: Vec<(String, usize)>,
    pub unevaluated_properties: Option<usize>,

    pub min_items: Option<i64>,
    pub max_items: Option<i64>,
    pub unique_items: bool,
    pub contains: Option<usize>,
    pub min_contains: Option<i64>,
    pub max_contains: Option<i64>,
    pub items: Option<Items>,
    pub additional_items: Option<Additional>,
    pub prefix_items: Vec<usize>,
    pub items2020: Option<usize>,
    pub unevaluated_items: Option<usize>,

    pub min_length: Option<i64>,
    pub max_length: Option<i64>,
    pub pattern: Option<(goregexp::Regexp, String)>,

    pub maximum: Option<f64>,
    pub minimum: Option<f64>,
    pub exclusive_maximum: Option<f64>,
    pub exclusive_minimum: Option<f64>,
    pub multiple_of: Option<f64>,
}

impl Schema {
    /// `URL#POINTER`, the pointer encoded. Only error messages show it, so it is made when
    /// one needs it rather than for each of the thousands of nodes of a large schema.
    pub fn location(&self) -> String {
        url_ptr(&self.url, &self.ptr)
    }
}

pub(super) fn type_bit(name: &str) -> u8 {
    TYPE_NAMES
        .iter()
        .position(|t| *t == name)
        .map_or(0, |i| 1 << i)
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Int(n, _) => Some(*n as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

fn strings(list: &Value) -> Vec<String> {
    match list {
        Value::List(l) => l
            .items()
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

/// The compiled metaschemas of the drafts asked for so far, compiled (with format assertions
/// on, as the library compiles them) once per thread. Compiling all five took about 7 ms of
/// every render of a chart with a `values.schema.json`; most charts' schemas speak one draft.
pub(super) struct Meta {
    pub schemas: Vec<Schema>,
    roots: Vec<(u32, usize)>,
}

impl Meta {
    /// The metaschema of draft `version`.
    pub fn root(&self, version: u32) -> usize {
        self.roots
            .iter()
            .find(|(v, _)| *v == version)
            .map_or(0, |(_, i)| *i)
    }

    fn build(versions: &[u32]) -> Result<Meta, String> {
        let mut loader = Loader::files_only();
        let mut c = Compiler::new(&mut loader, None, true);
        let mut roots = Vec::new();
        for d in DRAFTS {
            if versions.contains(&d.version) {
                roots.push((d.version, c.compile(d.url)?));
            }
        }
        Ok(Meta {
            schemas: c.schemas,
            roots,
        })
    }

    fn has(&self, version: u32) -> bool {
        self.roots.iter().any(|(v, _)| *v == version)
    }

    /// The metaschemas of every draft.
    pub fn get() -> Result<Rc<Meta>, String> {
        let all: Vec<u32> = DRAFTS.iter().map(|d| d.version).collect();
        Meta::get_for(&all)
    }

    /// Metaschemas with (at least) these drafts' compiled; a thread's earlier ones when they
    /// have them, else all of those and these compiled anew.
    pub fn get_for(versions: &[u32]) -> Result<Rc<Meta>, String> {
        thread_local! {
            static META: std::cell::RefCell<Option<Rc<Meta>>> =
                const { std::cell::RefCell::new(None) };
        }
        META.with(|cell| {
            let mut cached = cell.borrow_mut();
            if let Some(m) = cached.as_ref()
                && versions.iter().all(|v| m.has(*v))
            {
                return Ok(m.clone());
            }
            let mut want = versions.to_vec();
            if let Some(m) = cached.as_ref() {
                want.extend(m.roots.iter().map(|(v, _)| *v));
            }
            let m = Rc::new(Meta::build(&want)?);
            *cached = Some(m.clone());
            Ok(m)
        })
    }

    /// The drafts whose metaschemas checking `doc` (a root schema document) can need: the
    /// default draft for a root without `$schema` and every draft a `$schema` names; `None`
    /// (all of them) where that cannot be told from the document alone: a `$schema` that is
    /// not a known draft's URL (or not a string), or a reference that may load another
    /// document, which may speak any draft.
    pub fn drafts_of(doc: &Value) -> Option<Vec<u32>> {
        fn walk(v: &Value, out: &mut Vec<u32>) -> Option<()> {
            match v {
                Value::Map(m) => m.with_entries(|entries| {
                    for (k, child) in entries {
                        match &**k {
                            "$schema" => match child {
                                Value::String(url) => {
                                    out.push(draft_from_url(url.as_str())?.version)
                                }
                                _ => return None,
                            },
                            "$ref" | "$dynamicRef" | "$recursiveRef" => {
                                if let Value::String(r) = child
                                    && !r.as_str().starts_with('#')
                                {
                                    return None;
                                }
                            }
                            _ => {}
                        }
                        walk(child, out)?;
                    }
                    Some(())
                }),
                Value::List(l) => {
                    for child in l.items() {
                        walk(child, out)?;
                    }
                    Some(())
                }
                _ => Some(()),
            }
        }
        let mut out = Vec::new();
        if !matches!(doc, Value::Map(m) if m.contains_key("$schema")) {
            out.push(DRAFT2020.version);
        }
        walk(doc, &mut out)?;
        out.sort_unstable();
        out.dedup();
        Some(out)
    }
}

/// A schema object as compiling it reads it: about sixty keyword lookups, most of them for
/// keywords it does not have. Its few keys are listed once, so that an absent keyword is
/// ruled out by their lengths rather than by a search of the map (a third of the compile
/// time of a large schema went to those searches).
struct Keywords<'a> {
    map: &'a Map,
    keys: Vec<Rc<str>>,
}

impl<'a> Keywords<'a> {
    fn of(map: &'a Map) -> Keywords<'a> {
        Keywords {
            map,
            keys: map.keys(),
        }
    }

    fn contains_key(&self, keyword: &str) -> bool {
        self.keys
            .iter()
            .any(|k| k.len() == keyword.len() && **k == *keyword)
    }

    fn get(&self, keyword: &str) -> Option<Value> {
        if self.contains_key(keyword) {
            self.map.get(keyword)
        } else {
            None
        }
    }
}

/// The library's compiler over one set of documents; `schemas` is the arena it fills.
pub(super) struct Compiler<'l> {
    loader: &'l mut Loader,
    meta: Option<&'l Meta>,
    assert_format: bool,
    /// Documents added before compiling (the chart's own schema), by URL.
    added: HashMap<String, Value>,
    roots: FastMap<String, Root>,
    pub schemas: Vec<Schema>,
    /// Each node by document URL, then pointer.
    index: FastMap<Rc<str>, FastMap<String, usize>>,
    queue: Vec<usize>,
}

impl<'l> Compiler<'l> {
    /// A compiler that loads through `loader` and checks each document against `meta` (none
    /// only for compiling the metaschemas themselves).
    pub fn new(loader: &'l mut Loader, meta: Option<&'l Meta>, assert_format: bool) -> Self {
        Compiler {
            loader,
            meta,
            assert_format,
            added: HashMap::new(),
            roots: FastMap::default(),
            schemas: Vec::new(),
            index: FastMap::default(),
            queue: Vec::new(),
        }
    }

    /// `AddResource` for an absolute URL without a fragment.
    pub fn add_resource(&mut self, url: &str, doc: Value) {
        self.added.insert(url.to_string(), doc);
    }

    /// `Compile(url)`: the root schema's node, everything reachable from it compiled.
    pub fn compile(&mut self, url: &str) -> Result<usize, String> {
        let (u, frag) = split_fragment(url)?;
        let (u, ptr) = self.resolve_fragment(&u, &frag)?;
        // About one node per subschema the document holds: growing the arena of nodes (each
        // several hundred bytes) by doubling would copy it again and again.
        let expected = self.roots[&u].processed.len();
        self.schemas.reserve(expected);
        let first = self.enqueue(&u, &ptr);
        let mut done = 0;
        while done < self.queue.len() {
            let idx = self.queue[done];
            let (url, ptr) = (self.schemas[idx].url.clone(), self.schemas[idx].ptr.clone());
            self.ensure_subschema(&url, &ptr)?;
            let doc = self.roots[&*url].doc.clone();
            let v = lookup(&doc, &url, &ptr)?;
            self.compile_value(&v, idx, &url, &ptr)?;
            done += 1;
        }
        Ok(first)
    }

    fn enqueue(&mut self, url: &str, ptr: &str) -> usize {
        if let Some(&i) = self.index.get(url).and_then(|nodes| nodes.get(ptr)) {
            return i;
        }
        let i = self.schemas.len();
        let url: Rc<str> = match self.index.get_key_value(url) {
            Some((u, _)) => u.clone(),
            None => Rc::from(url),
        };
        self.index
            .entry(url.clone())
            .or_default()
            .insert(ptr.to_string(), i);
        self.schemas.push(Schema {
            url,
            ptr: ptr.to_string(),
            ..Schema::default()
        });
        self.queue.push(i);
        i
    }

    /// `defaultLoader.load`: an added document, one loaded before, a built-in metaschema,
    /// or whatever the loader fetches.
    fn load(&mut self, url: &str) -> Result<Value, String> {
        if let Some(doc) = self.added.get(url) {
            return Ok(doc.clone());
        }
        if let Some(doc) = self.loader.docs.get(url) {
            return Ok(doc.clone());
        }
        let doc = match builtin_metaschema(url) {
            Some(text) => super::unmarshal_json(text.as_bytes())?,
            None => self
                .loader
                .load(url)
                .map_err(|e| format!("failing loading {}: {e}", quote(url)))?,
        };
        self.loader.docs.insert(url.to_string(), doc.clone());
        Ok(doc)
    }

    fn or_load(&mut self, url: &str) -> Result<(), String> {
        if self.roots.contains_key(url) {
            return Ok(());
        }
        let doc = self.load(url)?;
        self.add_root(url, doc)
    }

    fn add_root(&mut self, url: &str, doc: Value) -> Result<(), String> {
        let mut r = Root {
            url: url.to_string(),
            doc: doc.clone(),
            resources: BTreeMap::new(),
            processed: FastSet::default(),
        };
        self.collect_resources(&mut r, &doc, url, "", &DRAFT2020)?;
        if !url.starts_with("http://json-schema.org/")
            && !url.starts_with("https://json-schema.org/")
        {
            self.check_meta(&r, &doc, "")?;
        }
        self.roots.insert(url.to_string(), r);
        Ok(())
    }

    /// `roots.resolveFragment`: the document loaded, the fragment resolved in its root
    /// resource.
    fn resolve_fragment(&mut self, url: &str, frag: &str) -> Result<(String, String), String> {
        self.or_load(url)?;
        let r = &self.roots[url];
        let res = r
            .resources
            .get("")
            .ok_or_else(|| format!("no root resource in {}", quote(url)))?;
        let ptr = r.resolve_fragment_in(frag, res)?;
        Ok((url.to_string(), ptr))
    }

    /// Checks `v` (the schema at `ptr` of `r`) against the metaschema of its draft.
    fn check_meta(&self, r: &Root, v: &Value, ptr: &str) -> Result<(), String> {
        let Some(meta) = self.meta else {
            return Ok(());
        };
        let draft = r.resource(ptr).map_or(2020, |res| res.draft.version);
        validate::check_against_meta(meta, draft, v, &r.drafts()).map_err(|e| {
            format!(
                "{} is not valid against metaschema: {e}",
                quote(&url_ptr(&r.url, ptr))
            )
        })
    }

    /// `getDraft`: the draft a schema object's `$schema` names, following a custom
    /// metaschema's own `$schema` (loading it) until a known draft.
    fn get_draft(
        &mut self,
        url: &str,
        ptr: &str,
        doc: &Value,
        default: &'static Draft,
        cycle: &mut HashSet<String>,
    ) -> Result<&'static Draft, String> {
        let Value::Map(obj) = doc else {
            return Ok(default);
        };
        let Some(Value::String(sch)) = obj.get("$schema") else {
            return Ok(default);
        };
        if let Some(d) = draft_from_url(&sch) {
            return Ok(d);
        }
        let sch = split(&sch).0.to_string();
        if let Err(e) = gourl::parse(&sch) {
            return Err(format!(
                "invalid $schema in {}: {e}",
                quote(&url_ptr(url, ptr))
            ));
        }
        if ptr.is_empty() && sch == url {
            return Err(format!("draft {} is not supported", quote(&sch)));
        }
        if !cycle.insert(sch.clone()) {
            return Err(format!("cycle in resolving $schema in {}", quote(&sch)));
        }
        let meta_doc = self.load(&sch)?;
        self.get_draft(&sch, "", &meta_doc, default, cycle)
    }

    fn collect_resources(
        &mut self,
        r: &mut Root,
        sch: &Value,
        base: &str,
        ptr: &str,
        fallback: &'static Draft,
    ) -> Result<(), String> {
        if r.processed.contains(ptr) {
            return Ok(());
        }
        self.collect_resources_in(r, sch, base, ptr, fallback)?;
        r.processed.insert(ptr.to_string());
        Ok(())
    }

    fn collect_resources_in(
        &mut self,
        r: &mut Root,
        sch: &Value,
        base: &str,
        ptr: &str,
        fallback: &'static Draft,
    ) -> Result<(), String> {
        let Value::Map(obj) = sch else {
            if ptr.is_empty() {
                r.resources
                    .insert(String::new(), Resource::new("", base, fallback));
            }
            return Ok(());
        };
        let mut has_schema = matches!(obj.get("$schema"), Some(Value::String(_)));
        let root_url = r.url.clone();
        let mut draft = self.get_draft(&root_url, ptr, sch, fallback, &mut HashSet::new())?;
        let mut id = draft.get_id(obj);
        if id.is_empty() && !ptr.is_empty() {
            // A `$schema` counts only in a resource.
            draft = fallback;
            has_schema = false;
            id = draft.get_id(obj);
        }
        let mut base = base.to_string();
        let mut res = None;
        if !id.is_empty() {
            let (u, _) = join(&base, &id)
                .map_err(|_| format!("error in parsing id at {}", quote(&url_ptr(&r.url, ptr))))?;
            base = u;
            res = Some(Resource::new(ptr, &base, draft));
        } else if ptr.is_empty() {
            res = Some(Resource::new(ptr, &base, draft));
        }
        if let Some(mut res) = res {
            let mut found = false;
            for other in r.resources.values() {
                if other.id == base {
                    found = true;
                    if other.ptr != ptr {
                        return Err(format!(
                            "duplicate id {} in {} at {} and {}",
                            quote(&base),
                            quote(&r.url),
                            quote(ptr),
                            quote(&other.ptr)
                        ));
                    }
                }
            }
            if !found {
                res.draft = if has_schema { draft } else { fallback };
                r.resources.insert(ptr.to_string(), res);
            }
        }
        let base_key = r
            .resources
            .iter()
            .find(|(_, res)| res.id == base)
            .map(|(k, _)| k.clone())
            .ok_or_else(|| format!("no resource for {} in {}", quote(&base), quote(&r.url)))?;
        collect_anchors(r, obj, ptr, &base_key)?;
        let mut subschemas = BTreeMap::new();
        let keywords = Keywords::of(obj);
        for path in draft.subschemas {
            let keyword = path.split_once('/').map_or(*path, |(k, _)| k);
            if keywords.contains_key(keyword) {
                collect(path, sch, ptr, &mut subschemas);
            }
        }
        let base_draft = r.resources[&base_key].draft;
        for (p, v) in subschemas {
            self.collect_resources(r, &v, &base, &p, base_draft)?;
        }
        Ok(())
    }

    /// `ensureSubschema`: a pointer no keyword reached before (a `$ref` to `#/x/y`) has its
    /// resources and anchors collected and is checked against the metaschema.
    fn ensure_subschema(&mut self, url: &str, ptr: &str) -> Result<(), String> {
        self.or_load(url)?;
        let r = &self.roots[url];
        if r.processed.contains(ptr) {
            return Ok(());
        }
        let v = lookup(&r.doc, url, ptr)?;
        // Worked on outside the map (not on a copy: a root holds a pointer per subschema of
        // a large document); on an error the whole compile fails, so nothing needs undoing.
        let mut root = self.roots.remove(url).expect("loaded above");
        let (base, draft) = match root.resource(ptr) {
            Some(res) => (res.id.clone(), res.draft),
            None => (url.to_string(), &DRAFT2020),
        };
        self.collect_resources(&mut root, &v, &base, ptr, draft)?;
        if !root.resources.contains_key(ptr)
            && let Value::Map(obj) = &v
        {
            let key = root.resource_key(ptr);
            collect_anchors(&mut root, obj, ptr, &key)?;
        }
        self.check_meta(&root, &v, ptr)?;
        self.roots.insert(url.to_string(), root);
        Ok(())
    }

    fn compile_value(&mut self, v: &Value, idx: usize, url: &str, ptr: &str) -> Result<(), String> {
        let full = self.roots[url]
            .resource(ptr)
            .ok_or_else(|| format!("no resource for {}", quote(&url_ptr(url, ptr))))?;
        // The resource without its anchors, which compiling a keyword does not need: copying
        // them for every node of a large schema is wasted work.
        let res = Resource::new(&full.ptr, &full.id, full.draft);
        let dynamic: Vec<(String, String)> = if full.draft.version >= 2020 && ptr == full.ptr {
            full.anchors
                .iter()
                .filter(|(anchor, _)| full.dynamic_anchors.contains(anchor))
                .map(|(a, p)| (a.clone(), p.clone()))
                .collect()
        } else {
            Vec::new()
        };
        let draft = res.draft.version;
        self.schemas[idx].draft = draft;
        let resource = self.enqueue(url, &res.ptr);
        self.schemas[idx].resource = resource;
        for (anchor, anchor_ptr) in dynamic {
            let target = self.enqueue(url, &anchor_ptr);
            self.schemas[idx].dynamic_anchors.insert(anchor, target);
        }
        match v {
            Value::Bool(b) => self.schemas[idx].boolean = Some(*b),
            Value::Map(obj) if obj.is_empty() => self.schemas[idx].boolean = Some(true),
            Value::Map(obj) => {
                let compiled = self.compile_object(&Keywords::of(obj), url, ptr, &res)?;
                let s = &mut self.schemas[idx];
                let (url, ptr, draft, resource, anchors) = (
                    s.url.clone(),
                    std::mem::take(&mut s.ptr),
                    s.draft,
                    s.resource,
                    std::mem::take(&mut s.dynamic_anchors),
                );
                *s = Schema {
                    url,
                    ptr,
                    draft,
                    resource,
                    dynamic_anchors: anchors,
                    ..compiled
                };
            }
            _ => {}
        }
        let s = &mut self.schemas[idx];
        s.all_props_evaluated = s.additional_properties.is_some();
        if draft < 2020 {
            s.all_items_evaluated = s.additional_items.is_some();
            match &s.items {
                Some(Items::One(_)) => s.all_items_evaluated = true,
                Some(Items::List(l)) => s.num_items_evaluated = l.len(),
                None => {}
            }
        } else {
            s.all_items_evaluated = s.items2020.is_some();
            s.num_items_evaluated = s.prefix_items.len();
        }
        Ok(())
    }

    /// `objCompiler.compile`: the keywords of one schema object, in the library's order (which
    /// decides which of several bad references is reported).
    fn compile_object(
        &mut self,
        obj: &Keywords,
        url: &str,
        ptr: &str,
        res: &Resource,
    ) -> Result<Schema, String> {
        let d = res.draft;
        let version = d.version;
        let mut s = Schema::default();
        let child2 = |k: &str, j: &str| format!("{ptr}/{}/{}", escape_token(k), escape_token(j));
        let int = |k: &str| {
            obj.get(k)
                .and_then(|v| number(&v))
                .filter(|f| f.fract() == 0.0 && f.is_finite())
                .map(|f| f as i64)
        };
        let num = |k: &str| obj.get(k).and_then(|v| number(&v));
        let boolean = |k: &str| matches!(obj.get(k), Some(Value::Bool(true)));

        // Draft 4.
        if d.has_vocab("core") {
            s.reference = self.enqueue_ref(obj, "$ref", url, res)?;
        }
        let ref_hides_siblings = version < 2019 && s.reference.is_some();
        if !ref_hides_siblings {
            if d.has_vocab("applicator") {
                s.all_of = self.enqueue_arr(obj, "allOf", url, ptr);
                s.any_of = self.enqueue_arr(obj, "anyOf", url, ptr);
                s.one_of = self.enqueue_arr(obj, "oneOf", url, ptr);
                s.not = self.enqueue_prop(obj, "not", url, ptr);
                if version < 2020 {
                    match obj.get("items") {
                        Some(Value::List(_)) => {
                            s.items = Some(Items::List(self.enqueue_arr(obj, "items", url, ptr)));
                            s.additional_items =
                                self.enqueue_additional(obj, "additionalItems", url, ptr);
                        }
                        Some(_) => {
                            s.items = self.enqueue_prop(obj, "items", url, ptr).map(Items::One)
                        }
                        None => {}
                    }
                }
                if let Some(Value::Map(props)) = obj.get("properties") {
                    for k in props.keys() {
                        let i = self.enqueue(url, &child2("properties", &k));
                        s.properties.insert(k.to_string(), i);
                    }
                }
                if let Some(Value::Map(props)) = obj.get("patternProperties") {
                    for k in props.keys() {
                        let i = self.enqueue(url, &child2("patternProperties", &k));
                        let re = super::compile_regex(&k).map_err(|e| {
                            format!(
                                "invalid regex {} at {}: {e}",
                                quote(&k),
                                quote(&format!(
                                    "{}/{}",
                                    url_ptr(url, ptr),
                                    gourl::path_escape("patternProperties")
                                ))
                            )
                        })?;
                        s.pattern_properties.push((re, i));
                    }
                }
                s.additional_properties =
                    self.enqueue_additional(obj, "additionalProperties", url, ptr);
                if let Some(Value::Map(deps)) = obj.get("dependencies") {
                    for (k, v) in deps.entries() {
                        let dep = match v {
                            Value::List(_) => Dependency::Required(strings(&v)),
                            _ => Dependency::Schema(self.enqueue(url, &child2("dependencies", &k))),
                        };
                        s.dependencies.push((k.to_string(), dep));
                    }
                }
            }
            if d.has_vocab("validation") {
                if let Some(t) = obj.get("type") {
                    s.types = match &t {
                        Value::String(x) => type_bit(x),
                        Value::List(l) => l
                            .items()
                            .iter()
                            .filter_map(|x| x.as_str())
                            .fold(0, |acc, x| acc | type_bit(x)),
                        _ => 0,
                    };
                }
                if let Some(Value::List(l)) = obj.get("enum") {
                    s.enumeration = Some(l.items().to_vec());
                }
                s.multiple_of = num("multipleOf");
                s.maximum = num("maximum");
                if boolean("exclusiveMaximum") {
                    s.exclusive_maximum = s.maximum.take();
                } else {
                    s.exclusive_maximum = num("exclusiveMaximum");
                }
                s.minimum = num("minimum");
                if boolean("exclusiveMinimum") {
                    s.exclusive_minimum = s.minimum.take();
                } else {
                    s.exclusive_minimum = num("exclusiveMinimum");
                }
                s.min_length = int("minLength");
                s.max_length = int("maxLength");
                if let Some(Value::String(p)) = obj.get("pattern") {
                    let re = super::compile_regex(&p).map_err(|e| {
                        format!(
                            "invalid regex {} at {}: {e}",
                            quote(&p),
                            quote(&format!("{}/pattern", url_ptr(url, ptr)))
                        )
                    })?;
                    s.pattern = Some((re, p.to_string()));
                }
                s.min_items = int("minItems");
                s.max_items = int("maxItems");
                s.unique_items = boolean("uniqueItems");
                s.max_properties = int("maxProperties");
                s.min_properties = int("minProperties");
                if let Some(r @ Value::List(_)) = obj.get("required") {
                    s.required = strings(&r);
                }
            }
            let assert_format = self.assert_format
                || version < 2019
                || (version == 2019 && d.has_vocab("format"))
                || (version >= 2020 && d.has_vocab("format-assertion"));
            if assert_format && let Some(Value::String(f)) = obj.get("format") {
                s.format = format::known(&f);
            }
        }

        // Draft 6.
        if version >= 6 {
            if d.has_vocab("applicator") {
                s.contains = self.enqueue_prop(obj, "contains", url, ptr);
                s.property_names = self.enqueue_prop(obj, "propertyNames", url, ptr);
            }
            if d.has_vocab("validation") {
                s.constant = obj.get("const");
            }
        }

        // Draft 7.
        if version >= 7 && d.has_vocab("applicator") {
            s.if_ = self.enqueue_prop(obj, "if", url, ptr);
            if s.if_.is_some() {
                let b = match obj.get("if") {
                    Some(Value::Bool(b)) => Some(b),
                    _ => None,
                };
                if b != Some(false) {
                    s.then = self.enqueue_prop(obj, "then", url, ptr);
                }
                if b != Some(true) {
                    s.else_ = self.enqueue_prop(obj, "else", url, ptr);
                }
            }
        }

        // Draft 2019-09.
        if version >= 2019 {
            if d.has_vocab("core") {
                s.recursive_ref = self.enqueue_ref(obj, "$recursiveRef", url, res)?;
                s.recursive_anchor = boolean("$recursiveAnchor");
            }
            if d.has_vocab("validation") {
                if s.contains.is_some() {
                    s.min_contains = int("minContains");
                    s.max_contains = int("maxContains");
                }
                if let Some(Value::Map(m)) = obj.get("dependentRequired") {
                    for (k, v) in m.entries() {
                        if let Value::List(_) = v {
                            s.dependent_required.push((k.to_string(), strings(&v)));
                        }
                    }
                }
            }
            if d.has_vocab("applicator")
                && let Some(Value::Map(m)) = obj.get("dependentSchemas")
            {
                for k in m.keys() {
                    let i = self.enqueue(url, &child2("dependentSchemas", &k));
                    s.dependent_schemas.push((k.to_string(), i));
                }
            }
            let unevaluated = if version == 2019 {
                d.has_vocab("applicator")
            } else {
                d.has_vocab("unevaluated")
            };
            if unevaluated {
                s.unevaluated_items = self.enqueue_prop(obj, "unevaluatedItems", url, ptr);
                s.unevaluated_properties =
                    self.enqueue_prop(obj, "unevaluatedProperties", url, ptr);
            }
        }

        // Draft 2020-12.
        if version >= 2020 {
            if d.has_vocab("core") {
                if let Some(target) = self.enqueue_ref(obj, "$dynamicRef", url, res)? {
                    let reference = obj
                        .get("$dynamicRef")
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default();
                    let (_, frag) = split_fragment(&reference)?;
                    let anchor = if frag.is_empty() || frag.starts_with('/') {
                        String::new()
                    } else {
                        frag
                    };
                    s.dynamic_ref = Some((target, anchor));
                }
                if let Some(Value::String(a)) = obj.get("$dynamicAnchor") {
                    s.dynamic_anchor = a.to_string();
                }
            }
            if d.has_vocab("applicator") {
                s.prefix_items = self.enqueue_arr(obj, "prefixItems", url, ptr);
                s.items2020 = self.enqueue_prop(obj, "items", url, ptr);
            }
        }
        Ok(s)
    }

    /// A reference keyword's target: local (in this document) or loaded.
    fn enqueue_ref(
        &mut self,
        obj: &Keywords,
        keyword: &str,
        url: &str,
        res: &Resource,
    ) -> Result<Option<usize>, String> {
        let Some(Value::String(reference)) = obj.get(keyword) else {
            return Ok(None);
        };
        let (target, frag) = join(&res.id, &reference)?;
        let r = &self.roots[url];
        let local = if target == r.url {
            r.resources.get("")
        } else {
            r.resources.values().find(|x| x.id == target)
        };
        if let Some(local) = local {
            let ptr = r.resolve_fragment_in(&frag, local)?;
            return Ok(Some(self.enqueue(url, &ptr)));
        }
        let (u, ptr) = self.resolve_fragment(&target, &frag)?;
        Ok(Some(self.enqueue(&u, &ptr)))
    }

    fn enqueue_prop(&mut self, obj: &Keywords, name: &str, url: &str, ptr: &str) -> Option<usize> {
        obj.contains_key(name)
            .then(|| self.enqueue(url, &format!("{ptr}/{}", escape_token(name))))
    }

    fn enqueue_arr(&mut self, obj: &Keywords, name: &str, url: &str, ptr: &str) -> Vec<usize> {
        let Some(Value::List(l)) = obj.get(name) else {
            return Vec::new();
        };
        (0..l.len())
            .map(|i| self.enqueue(url, &format!("{ptr}/{}/{i}", escape_token(name))))
            .collect()
    }

    fn enqueue_additional(
        &mut self,
        obj: &Keywords,
        name: &str,
        url: &str,
        ptr: &str,
    ) -> Option<Additional> {
        match obj.get(name) {
            Some(Value::Bool(b)) => Some(Additional::Bool(b)),
            Some(_) => self
                .enqueue_prop(obj, name, url, ptr)
                .map(Additional::Schema),
            None => None,
        }
    }
}

/// `collectAnchors`: the anchors a schema object declares, added to the resource at
/// `res_key`.
fn collect_anchors(r: &mut Root, obj: &Map, ptr: &str, res_key: &str) -> Result<(), String> {
    let Some(res) = r.resources.get(res_key) else {
        return Ok(());
    };
    let version = res.draft.version;
    let id_keyword = res.draft.id;
    let mut found: Vec<(String, bool)> = Vec::new();
    if version < 2019 {
        if obj.contains_key("$ref") {
            return Ok(());
        }
        if let Some(Value::String(id)) = obj.get(id_keyword) {
            let (_, frag) = split_fragment(&id).map_err(|_| {
                format!(
                    "error in parsing anchor at {}",
                    quote(&url_ptr(&r.url, ptr))
                )
            })?;
            if !frag.is_empty() && !frag.starts_with('/') {
                found.push((frag, false));
            }
        }
    }
    if version >= 2019
        && let Some(Value::String(a)) = obj.get("$anchor")
    {
        found.push((a.to_string(), false));
    }
    if version >= 2020
        && let Some(Value::String(a)) = obj.get("$dynamicAnchor")
    {
        found.push((a.to_string(), true));
    }
    let url = r.url.clone();
    let Some(res) = r.resources.get_mut(res_key) else {
        return Ok(());
    };
    for (anchor, dynamic) in found {
        match res.anchors.get(&anchor) {
            Some(existing) if existing == ptr => {}
            Some(existing) => {
                return Err(format!(
                    "duplicate anchor {} in {} at {} and {}",
                    quote(&anchor),
                    quote(&url),
                    quote(existing),
                    quote(ptr)
                ));
            }
            None => {
                res.anchors.insert(anchor.clone(), ptr.to_string());
            }
        }
        if dynamic {
            res.dynamic_anchors.push(anchor);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metaschemas_compile() {
        let meta = Meta::get().expect("the built-in metaschemas compile");
        for d in DRAFTS {
            let root = meta.root(d.version);
            assert_eq!(meta.schemas[root].location(), format!("{}#", d.url));
        }
    }

    #[test]
    fn drafts_a_document_needs() {
        let doc = |json: &str| goyaml::from_yaml(json).unwrap();
        assert_eq!(
            Meta::drafts_of(&doc(r#"{"type": "object"}"#)),
            Some(vec![2020])
        );
        assert_eq!(
            Meta::drafts_of(&doc(
                r##"{"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"a": {"$ref": "#/definitions/a"}}}"##
            )),
            Some(vec![7])
        );
        assert_eq!(
            Meta::drafts_of(&doc(
                r#"{"$defs": {"x": {"$id": "x", "$schema": "http://json-schema.org/draft-04/schema#"}}}"#
            )),
            Some(vec![4, 2020])
        );
        // Another document may speak any draft; so may an unknown metaschema.
        assert_eq!(Meta::drafts_of(&doc(r#"{"$ref": "other.json"}"#)), None);
        assert_eq!(
            Meta::drafts_of(&doc(r#"{"$schema": "https://example.com/meta"}"#)),
            None
        );
        assert_eq!(
            Meta::drafts_of(&doc(r#"{"properties": {"$schema": {"type": "string"}}}"#)),
            None
        );
        // Compiled lazily, a thread's metaschemas grow to what is asked.
        let seven = Meta::get_for(&[7]).unwrap();
        assert!(seven.has(7));
        let both = Meta::get_for(&[4]).unwrap();
        assert!(both.has(4) && both.has(7));
        assert_eq!(
            both.schemas[both.root(7)].location(),
            format!("{}#", DRAFT7.url)
        );
    }

    #[test]
    fn drafts_from_urls() {
        assert_eq!(
            draft_from_url("http://json-schema.org/schema#").map(|d| d.version),
            Some(2020)
        );
        assert_eq!(
            draft_from_url("https://json-schema.org/draft-07/schema").map(|d| d.version),
            Some(7)
        );
        assert!(draft_from_url("http://json-schema.org/draft-07/schema#/x").is_none());
        assert!(draft_from_url("http://example.com/meta").is_none());
    }

    #[test]
    fn pointers_and_urls() {
        assert_eq!(
            url_ptr("file:///v.json", "/$defs/a b"),
            "file:///v.json#/$defs/a%20b"
        );
        assert_eq!(
            join("file:///values.schema.json", "defs.json#/x%20y").unwrap(),
            ("file:///defs.json".to_string(), "/x y".to_string())
        );
        assert_eq!(
            join("urn:a:b", "#/c").unwrap(),
            ("urn:a:b".to_string(), "/c".to_string())
        );
        let doc = goyaml::json_read::from_json(r#"{"a": [1, {"b~/": 2}]}"#).unwrap();
        assert!(matches!(lookup(&doc, "u", "/a/1/b~0~1"), Ok(Value::Float(f)) if f == 2.0));
        assert_eq!(
            lookup(&doc, "u", "/a/2").unwrap_err(),
            "json-pointer in \"u#/a/2\" not found"
        );
        assert_eq!(
            lookup(&doc, "u", "/a~2").unwrap_err(),
            "invalid json-pointer \"u#/a~2\""
        );
    }
}
