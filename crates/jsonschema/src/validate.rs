//! Validating a value against compiled [`Schema`]s as santhosh-tekuri/jsonschema v6's
//! validator does, with its error tree: each schema's failing keywords (a group when there
//! are several), a `$ref`'s error wrapping its cause, the reference-cycle check over the
//! dynamic scope, `$recursiveRef`/`$dynamicRef` resolved through that scope, and the
//! unevaluated-properties/items bookkeeping. The same validator checks schema documents
//! against their metaschema, switching metaschemas where a document embeds a resource of
//! another draft.

use std::collections::{BTreeMap, BTreeSet};

use gotemplate::{Map, Value};

use super::compile::{Additional, Dependency, Items, Meta, Schema, TYPE_NAMES, type_bit};
use super::{display, localized_float, localized_int, quote};

#[derive(Debug, Clone)]
pub(super) enum Kind {
    /// Several errors of one schema.
    Group,
    /// A reference keyword's target failed.
    Reference,
    /// The whole validation against the schema at this location failed.
    Schema(String),
    Message(String),
}

#[derive(Debug, Clone)]
pub(super) struct VError {
    pub location: Vec<String>,
    pub kind: Kind,
    pub causes: Vec<VError>,
}

impl VError {
    /// The library's `ValidationError.Error()`: a tree of `- at 'POINTER': MESSAGE` lines, a
    /// reference with one cause shown as that cause.
    pub fn display(&self, out: &mut String, indent: usize) {
        let skip = matches!(self.kind, Kind::Reference) && self.causes.len() == 1;
        let mut indent = indent;
        if !skip {
            if indent > 0 {
                out.push('\n');
                for _ in 0..indent - 1 {
                    out.push_str("  ");
                }
                out.push_str("- ");
            }
            indent += 1;
            match &self.kind {
                Kind::Schema(location) => {
                    out.push_str("jsonschema validation failed with ");
                    out.push_str(&quote(location));
                }
                kind => {
                    let pointer: String = self
                        .location
                        .iter()
                        .map(|t| format!("/{}", t.replace('~', "~0").replace('/', "~1")))
                        .collect();
                    let message = match kind {
                        Kind::Message(m) => m.as_str(),
                        _ => "validation failed",
                    };
                    out.push_str(&format!("at {}: {message}", quote(&pointer)));
                }
            }
        }
        for c in &self.causes {
            c.display(out, indent);
        }
    }

    pub fn to_text(&self) -> String {
        let mut out = String::new();
        self.display(&mut out, 0);
        out
    }
}

/// One step of the dynamic scope: the schema entered, the reference keyword that led to it
/// (empty for a subschema), and which value it validates.
struct Frame<'f> {
    sch: usize,
    ref_keyword: &'static str,
    vid: usize,
    parent: Option<&'f Frame<'f>>,
}

impl Frame<'_> {
    /// An enclosing frame that validates the same value with the same schema.
    fn check_cycle(&self) -> Option<&Frame<'_>> {
        let mut scope = self.parent;
        while let Some(s) = scope {
            if s.vid != self.vid {
                break;
            }
            if s.sch == self.sch {
                return Some(s);
            }
            scope = s.parent;
        }
        None
    }
}

/// Properties and items no keyword has evaluated yet (only tracked when needed).
#[derive(Default)]
struct Uneval {
    props: BTreeSet<String>,
    items: BTreeSet<usize>,
}

impl Uneval {
    fn from(v: &Value, s: &Schema, caller_needs: bool) -> Uneval {
        let mut u = Uneval::default();
        match v {
            Value::Map(m)
                if !s.all_props_evaluated
                    && (caller_needs || s.unevaluated_properties.is_some()) =>
            {
                u.props = m.keys().iter().map(|k| k.to_string()).collect();
            }
            Value::List(l)
                if !s.all_items_evaluated
                    && (caller_needs || s.unevaluated_items.is_some())
                    && s.num_items_evaluated < l.len() =>
            {
                u.items = (s.num_items_evaluated..l.len()).collect();
            }
            _ => {}
        }
        u
    }

    fn merge(&mut self, other: &Uneval) {
        self.props.retain(|k| other.props.contains(k));
        self.items.retain(|i| other.items.contains(i));
    }

    fn is_empty(&self) -> bool {
        self.props.is_empty() && self.items.is_empty()
    }
}

/// What a validation step knows besides the value: its scope, the metaschema in use (when
/// checking a schema document) and whether only the verdict matters.
#[derive(Clone, Copy)]
struct Cx<'f> {
    scope: &'f Frame<'f>,
    meta: Option<usize>,
    bool_result: bool,
}

pub(super) struct Validator<'a> {
    schemas: &'a [Schema],
    /// When checking a schema document: the metaschemas, and the draft of each resource in
    /// the document by pointer.
    meta: Option<(&'a Meta, &'a BTreeMap<String, u32>)>,
}

/// `v` against the compiled schema `root` of `schemas`.
pub(super) fn validate_value(schemas: &[Schema], root: usize, v: &Value) -> Result<(), VError> {
    Validator {
        schemas,
        meta: None,
    }
    .validate_root(root, v, None)
}

/// `v` (a schema document, or the part of one at a pointer) against the metaschema of
/// `draft`; the error is the library's whole text.
pub(super) fn check_against_meta(
    meta: &Meta,
    draft: u32,
    v: &Value,
    resources: &BTreeMap<String, u32>,
) -> Result<(), String> {
    let root = meta.root(draft);
    Validator {
        schemas: &meta.schemas,
        meta: Some((meta, resources)),
    }
    .validate_root(root, v, Some(root))
    .map_err(|e| e.to_text())
}

fn json_type(v: &Value) -> Option<&'static str> {
    Some(match v {
        Value::Nil | Value::Invalid => "null",
        Value::Bool(_) => "boolean",
        Value::Int(..) | Value::Float(_) => "number",
        Value::String(_) => "string",
        Value::List(_) => "array",
        Value::Map(_) => "object",
        _ => return None,
    })
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Int(n, _) => Some(*n as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

fn is_integer(v: &Value) -> bool {
    number(v).is_some_and(|f| f.fract() == 0.0 && f.is_finite())
}

/// The library's `equals`: numbers by value, maps and lists deeply.
fn equals(a: &Value, b: &Value) -> bool {
    gotemplate::stack::grow(|| match (a, b) {
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.entries()
                    .iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| equals(v, &w)))
        }
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.items().iter().zip(y.items()).all(|(p, q)| equals(p, q))
        }
        (Value::Nil | Value::Invalid, Value::Nil | Value::Invalid) => true,
        _ => match (number(a), number(b)) {
            (Some(x), Some(y)) => x == y,
            _ => match (a, b) {
                (Value::String(x), Value::String(y)) => x == y,
                (Value::Bool(x), Value::Bool(y)) => x == y,
                _ => false,
            },
        },
    })
}

/// `quo.IsInt()` of `got / want` in exact decimal arithmetic (`0.3` is a multiple of `0.1`),
/// over Go's shortest decimal forms of the two numbers, as the library's `big.Rat`s are.
fn is_multiple(got: f64, want: f64) -> bool {
    use num_bigint::BigInt;
    use num_traits::Zero;
    // `d.ddde±x` as (digits, power of ten).
    fn decimal(f: f64) -> Option<(BigInt, i64)> {
        let text = format!("{:e}", f);
        let (mantissa, exp) = text.split_once('e')?;
        let exp: i64 = exp.parse().ok()?;
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let digits: BigInt = format!("{int}{frac}").parse().ok()?;
        Some((digits, exp - frac.len() as i64))
    }
    let (Some((g, ge)), Some((w, we))) = (decimal(got), decimal(want)) else {
        return (got / want).fract() == 0.0;
    };
    if w.is_zero() {
        return true;
    }
    // g·10^ge / (w·10^we) is an integer iff g·10^(ge-we) is divisible by w.
    let ten = BigInt::from(10);
    let (num, den) = if ge >= we {
        (g * num_traits::pow(ten, (ge - we) as usize), w)
    } else {
        (g, w * num_traits::pow(ten, (we - ge) as usize))
    };
    (num % den).is_zero()
}

impl<'a> Validator<'a> {
    fn error(&self, vloc: &[String], message: String) -> VError {
        VError {
            location: vloc.to_vec(),
            kind: Kind::Message(message),
            causes: Vec::new(),
        }
    }

    /// A `minX`/`maxX` pair of keywords over a count (properties, items, characters).
    fn count_bounds(
        &self,
        vloc: &[String],
        errors: &mut Vec<VError>,
        count: i64,
        (min_keyword, min): (&str, Option<i64>),
        (max_keyword, max): (&str, Option<i64>),
    ) {
        let mut check = |keyword: &str, bound: Option<i64>, fails: fn(i64, i64) -> bool| {
            if let Some(want) = bound
                && fails(count, want)
            {
                errors.push(self.error(
                    vloc,
                    format!(
                        "{keyword}: got {}, want {}",
                        localized_int(count),
                        localized_int(want)
                    ),
                ));
            }
        };
        check(min_keyword, min, |got, want| got < want);
        check(max_keyword, max, |got, want| got > want);
    }

    fn with_causes(&self, vloc: &[String], message: String, causes: Vec<VError>) -> VError {
        VError {
            location: vloc.to_vec(),
            kind: Kind::Message(message),
            causes,
        }
    }

    /// `Schema.validate`: a fresh scope; the error is a `Schema` error over the causes.
    fn validate_root(&self, sch: usize, v: &Value, meta: Option<usize>) -> Result<(), VError> {
        let frame = Frame {
            sch,
            ref_keyword: "",
            vid: 0,
            parent: None,
        };
        let mut uneval = Uneval::from(v, &self.schemas[sch], false);
        let cx = Cx {
            scope: &frame,
            meta,
            bool_result: false,
        };
        self.validate(sch, v, &mut Vec::new(), cx, &mut uneval)
            .map_err(|e| VError {
                location: Vec::new(),
                kind: Kind::Schema(self.schemas[sch].location()),
                causes: match e.kind {
                    Kind::Group => e.causes,
                    _ => vec![e],
                },
            })
    }

    /// `metaResource`/`handleMeta`: when checking a document and the metaschema itself is
    /// entered where the document holds a resource, that resource's own draft's metaschema
    /// takes over.
    fn handle_meta(
        &self,
        sch: usize,
        meta: Option<usize>,
        vloc: &[String],
    ) -> (usize, Option<usize>) {
        if let (Some((m, resources)), Some(current)) = (self.meta, meta)
            && sch == current
            // Nearly every document is one resource, its root: then no other location can
            // name one, and the pointer of each need not be spelled out to find that.
            && (vloc.is_empty() || resources.len() > 1 || !resources.contains_key(""))
        {
            let ptr: String = vloc
                .iter()
                .map(|t| format!("/{}", t.replace('~', "~0").replace('/', "~1")))
                .collect();
            if let Some(&draft) = resources.get(&ptr) {
                let root = m.root(draft);
                return (root, Some(root));
            }
        }
        (sch, meta)
    }

    /// `kwLoc`: the keyword path that led from the scope's root to `frame`.
    fn keyword_location(&self, frame: &Frame<'_>) -> String {
        let mut loc = String::new();
        let mut f = frame;
        while let Some(parent) = f.parent {
            if !f.ref_keyword.is_empty() {
                loc = format!("/{}{loc}", f.ref_keyword);
            } else {
                let cur = self.schemas[f.sch].location();
                let par = self.schemas[parent.sch].location();
                loc = format!("{}{loc}", cur.get(par.len()..).unwrap_or_default());
            }
            f = parent;
        }
        loc
    }

    /// `validateSelf`: the same value against another schema of the same scope.
    #[allow(clippy::too_many_arguments)] // the library's validator state, spelled out
    fn validate_self(
        &self,
        sch: usize,
        ref_keyword: &'static str,
        bool_result: bool,
        v: &Value,
        vloc: &mut Vec<String>,
        cx: Cx<'_>,
        uneval: &mut Uneval,
    ) -> Result<(), VError> {
        let frame = Frame {
            sch,
            ref_keyword,
            vid: cx.scope.vid,
            parent: Some(cx.scope),
        };
        let mut sub = Uneval::from(v, &self.schemas[sch], !uneval.is_empty());
        let (target, meta) = self.handle_meta(sch, cx.meta, vloc);
        let cx = Cx {
            scope: &frame,
            meta,
            bool_result: cx.bool_result || bool_result,
        };
        let result = self.validate(target, v, vloc, cx, &mut sub);
        if result.is_ok() {
            uneval.merge(&sub);
        }
        result
    }

    /// `validateVal`: a member of the value (at `token`) against a subschema.
    fn validate_val(
        &self,
        sch: usize,
        v: &Value,
        token: String,
        vloc: &mut Vec<String>,
        cx: Cx<'_>,
    ) -> Result<(), VError> {
        vloc.push(token);
        let frame = Frame {
            sch,
            ref_keyword: "",
            vid: cx.scope.vid + 1,
            parent: Some(cx.scope),
        };
        let mut sub = Uneval::from(v, &self.schemas[sch], false);
        let (target, meta) = self.handle_meta(sch, cx.meta, vloc);
        let cx = Cx {
            scope: &frame,
            meta,
            bool_result: cx.bool_result,
        };
        let result = self.validate(target, v, vloc, cx, &mut sub);
        vloc.pop();
        result
    }

    /// `validateRef`: a reference's target; its error wraps the target's errors.
    fn validate_ref(
        &self,
        sch: usize,
        keyword: &'static str,
        v: &Value,
        vloc: &mut Vec<String>,
        cx: Cx<'_>,
        uneval: &mut Uneval,
    ) -> Result<(), VError> {
        self.validate_self(sch, keyword, false, v, vloc, cx, uneval)
            .map_err(|e| VError {
                location: vloc.clone(),
                kind: Kind::Reference,
                causes: match e.kind {
                    Kind::Group => e.causes,
                    _ => vec![e],
                },
            })
    }

    fn validate(
        &self,
        idx: usize,
        v: &Value,
        vloc: &mut Vec<String>,
        cx: Cx<'_>,
        uneval: &mut Uneval,
    ) -> Result<(), VError> {
        gotemplate::stack::grow(|| {
            let s = &self.schemas[idx];
            if let Some(b) = s.boolean {
                return if b {
                    Ok(())
                } else {
                    Err(self.error(vloc, "false schema".into()))
                };
            }
            if let Some(earlier) = cx.scope.check_cycle() {
                return Err(self.error(
                    vloc,
                    format!(
                        "both {} and {} resolve to {} causing reference cycle",
                        self.keyword_location(cx.scope),
                        self.keyword_location(earlier),
                        gotemplate::fmt::quote(&s.location())
                    ),
                ));
            }
            let Some(t) = json_type(v) else {
                return Err(self.error(vloc, format!("invalid jsonType {}", v.type_name())));
            };
            // type
            if s.types != 0 {
                let matched = s.types & type_bit(t) != 0
                    || (s.types & type_bit("integer") != 0 && t == "number" && is_integer(v));
                if !matched {
                    let want: Vec<&str> = TYPE_NAMES
                        .iter()
                        .copied()
                        .filter(|n| s.types & type_bit(n) != 0)
                        .collect();
                    return Err(self.error(vloc, format!("got {t}, want {}", want.join(" or "))));
                }
            }
            // const
            if let Some(c) = &s.constant
                && !equals(v, c)
            {
                let message = match c {
                    Value::List(_) | Value::Map(_) => "'const' failed".to_string(),
                    other => format!("value must be {}", display(other)),
                };
                return Err(self.error(vloc, message));
            }
            // enum
            if let Some(items) = &s.enumeration
                && !items.iter().any(|e| equals(v, e))
            {
                let primitive = items
                    .iter()
                    .all(|i| !matches!(i, Value::List(_) | Value::Map(_)));
                let message = if !primitive {
                    "'enum' failed".to_string()
                } else if items.len() == 1 {
                    format!("value must be {}", display(&items[0]))
                } else {
                    let shown: Vec<String> = items.iter().map(display).collect();
                    format!("value must be one of {}", shown.join(", "))
                };
                return Err(self.error(vloc, message));
            }
            // format
            if let (Some(name), Value::String(text)) = (s.format, v)
                && let Err(reason) = super::format::check(name, text)
            {
                return Err(self.error(
                    vloc,
                    format!("{} is not valid {name}: {reason}", display(v)),
                ));
            }
            let mut errors: Vec<VError> = Vec::new();
            // $ref
            if let Some(target) = s.reference {
                let result = self.validate_ref(target, "$ref", v, vloc, cx, uneval);
                if s.draft < 2019 {
                    return result;
                }
                errors.extend(result.err());
            }
            match v {
                Value::Map(obj) => self.object(s, obj, v, vloc, cx, uneval, &mut errors),
                Value::List(arr) => self.array(s, arr.items(), vloc, cx, uneval, &mut errors),
                Value::String(text) => self.string(s, text, vloc, &mut errors),
                Value::Int(..) | Value::Float(_) => self.number(s, v, vloc, &mut errors),
                _ => {}
            }
            if errors.is_empty() || !cx.bool_result {
                if s.draft >= 2019 {
                    self.dynamic_refs(s, v, vloc, cx, uneval, &mut errors);
                }
                self.conditionals(s, v, vloc, cx, uneval, &mut errors);
                if s.draft >= 2019 {
                    self.unevaluated(s, v, vloc, cx, uneval, &mut errors);
                }
            }
            match errors.len() {
                0 => Ok(()),
                1 => Err(errors.pop().expect("one error")),
                _ => Err(VError {
                    location: vloc.clone(),
                    kind: Kind::Group,
                    causes: errors,
                }),
            }
        })
    }

    /// The names in `required` that `obj` lacks, quoted.
    fn missing(obj: &Map, required: &[String]) -> Vec<String> {
        required
            .iter()
            .filter(|r| !obj.contains_key(r))
            .map(|r| quote(r))
            .collect()
    }

    #[allow(clippy::too_many_arguments)] // the library's validator state, spelled out
    fn object(
        &self,
        s: &Schema,
        obj: &Map,
        v: &Value,
        vloc: &mut Vec<String>,
        cx: Cx<'_>,
        uneval: &mut Uneval,
        errors: &mut Vec<VError>,
    ) {
        let len = obj.len() as i64;
        self.count_bounds(
            vloc,
            errors,
            len,
            ("minProperties", s.min_properties),
            ("maxProperties", s.max_properties),
        );
        let missing = Self::missing(obj, &s.required);
        match missing.len() {
            0 => {}
            1 => errors.push(self.error(vloc, format!("missing property {}", missing[0]))),
            _ => {
                errors.push(self.error(vloc, format!("missing properties {}", missing.join(", "))))
            }
        }
        if cx.bool_result && !errors.is_empty() {
            return;
        }
        for (name, dependency) in &s.dependencies {
            if !obj.contains_key(name) {
                continue;
            }
            match dependency {
                Dependency::Required(required) => {
                    let missing = Self::missing(obj, required);
                    if !missing.is_empty() {
                        errors.push(self.error(
                            vloc,
                            format!(
                                "properties {} required, if {} exists",
                                missing.join(", "),
                                quote(name)
                            ),
                        ));
                    }
                }
                Dependency::Schema(sch) => errors.extend(
                    self.validate_self(*sch, "", false, v, vloc, cx, uneval)
                        .err(),
                ),
            }
        }
        let mut not_allowed = Vec::new();
        for (name, value) in obj.entries() {
            if cx.bool_result && !errors.is_empty() {
                return;
            }
            let mut evaluated = false;
            if let Some(&sch) = s.properties.get(&*name) {
                evaluated = true;
                errors.extend(
                    self.validate_val(sch, &value, name.to_string(), vloc, cx)
                        .err(),
                );
            }
            for (re, sch) in &s.pattern_properties {
                if re.is_match(&name) {
                    evaluated = true;
                    errors.extend(
                        self.validate_val(*sch, &value, name.to_string(), vloc, cx)
                            .err(),
                    );
                }
            }
            if !evaluated && let Some(additional) = s.additional_properties {
                evaluated = true;
                match additional {
                    Additional::Bool(false) => not_allowed.push(quote(&name)),
                    Additional::Bool(true) => {}
                    Additional::Schema(sch) => errors.extend(
                        self.validate_val(sch, &value, name.to_string(), vloc, cx)
                            .err(),
                    ),
                }
            }
            if evaluated {
                uneval.props.remove(&*name);
            }
        }
        if !not_allowed.is_empty() {
            errors.push(self.error(
                vloc,
                format!(
                    "additional properties {} not allowed",
                    not_allowed.join(", ")
                ),
            ));
        }
        if s.draft == 4 {
            return;
        }
        if let Some(names) = s.property_names {
            for name in obj.keys() {
                let (sch, meta) = self.handle_meta(names, cx.meta, vloc);
                if let Err(mut e) = self.validate_root(sch, &Value::str(&name), meta) {
                    e.kind = Kind::Message(format!("invalid propertyName {}", quote(&name)));
                    errors.push(e);
                }
            }
        }
        if s.draft == 6 {
            return;
        }
        for (name, sch) in &s.dependent_schemas {
            if obj.contains_key(name) {
                errors.extend(
                    self.validate_self(*sch, "", false, v, vloc, cx, uneval)
                        .err(),
                );
            }
        }
        for (name, required) in &s.dependent_required {
            if obj.contains_key(name) {
                let missing = Self::missing(obj, required);
                if !missing.is_empty() {
                    errors.push(self.error(
                        vloc,
                        format!(
                            "properties {} required, if {} exists",
                            missing.join(", "),
                            quote(name)
                        ),
                    ));
                }
            }
        }
    }

    fn array(
        &self,
        s: &Schema,
        arr: &[Value],
        vloc: &mut Vec<String>,
        cx: Cx<'_>,
        uneval: &mut Uneval,
        errors: &mut Vec<VError>,
    ) {
        let len = arr.len() as i64;
        self.count_bounds(
            vloc,
            errors,
            len,
            ("minItems", s.min_items),
            ("maxItems", s.max_items),
        );
        if s.unique_items && arr.len() > 1 {
            // The first item equal to an earlier one, and the first such earlier one.
            let duplicate = (1..arr.len())
                .find_map(|i| (0..i).find(|&j| equals(&arr[i], &arr[j])).map(|j| (j, i)));
            if let Some((j, i)) = duplicate {
                errors.push(self.error(
                    vloc,
                    format!(
                        "items at {} and {} are equal",
                        localized_int(j as i64),
                        localized_int(i as i64)
                    ),
                ));
            }
        }
        if s.draft < 2020 {
            let mut evaluated = 0;
            match &s.items {
                Some(Items::One(sch)) => {
                    for (i, item) in arr.iter().enumerate() {
                        errors.extend(self.validate_val(*sch, item, i.to_string(), vloc, cx).err());
                    }
                    evaluated = arr.len();
                }
                Some(Items::List(schemas)) => {
                    let n = schemas.len().min(arr.len());
                    for (i, item) in arr[..n].iter().enumerate() {
                        errors.extend(
                            self.validate_val(schemas[i], item, i.to_string(), vloc, cx)
                                .err(),
                        );
                    }
                    evaluated = n;
                }
                None => {}
            }
            match s.additional_items {
                Some(Additional::Bool(false)) if evaluated != arr.len() => {
                    errors.push(self.error(
                        vloc,
                        format!(
                            "last {} additionalItem(s) not allowed",
                            localized_int((arr.len() - evaluated) as i64)
                        ),
                    ));
                }
                // Sic: the library names the extra items by their index among the extras.
                Some(Additional::Schema(sch)) => {
                    for (i, item) in arr[evaluated..].iter().enumerate() {
                        errors.extend(self.validate_val(sch, item, i.to_string(), vloc, cx).err());
                    }
                }
                _ => {}
            }
        } else {
            let evaluated = s.prefix_items.len().min(arr.len());
            for (i, item) in arr[..evaluated].iter().enumerate() {
                errors.extend(
                    self.validate_val(s.prefix_items[i], item, i.to_string(), vloc, cx)
                        .err(),
                );
            }
            // Sic: as above, indexes count from the first item past `prefixItems`.
            if let Some(sch) = s.items2020 {
                for (i, item) in arr[evaluated..].iter().enumerate() {
                    errors.extend(self.validate_val(sch, item, i.to_string(), vloc, cx).err());
                }
            }
        }
        if let Some(contains) = s.contains {
            let mut failed = Vec::new();
            let mut matched: Vec<usize> = Vec::new();
            for (i, item) in arr.iter().enumerate() {
                match self.validate_val(contains, item, i.to_string(), vloc, cx) {
                    Err(e) => failed.push(e),
                    Ok(()) => {
                        matched.push(i);
                        if s.draft >= 2020 {
                            uneval.items.remove(&i);
                        }
                    }
                }
            }
            let at: Vec<String> = matched.iter().map(|i| i.to_string()).collect();
            match s.min_contains {
                Some(min) if (matched.len() as i64) < min => {
                    let message = if matched.is_empty() {
                        format!(
                            "min {} items required to match contains schema, but none matched",
                            localized_int(min)
                        )
                    } else {
                        format!(
                            "min {} items required to match contains schema, but matched {} items at {}",
                            localized_int(min),
                            localized_int(matched.len() as i64),
                            at.join(" ")
                        )
                    };
                    errors.push(self.with_causes(vloc, message, failed));
                }
                Some(_) => {}
                None if matched.is_empty() => errors.push(self.with_causes(
                    vloc,
                    "no items match contains schema".to_string(),
                    failed,
                )),
                None => {}
            }
            if let Some(max) = s.max_contains
                && matched.len() as i64 > max
            {
                errors.push(self.error(
                    vloc,
                    format!(
                        "max {} items required to match contains schema, but matched {} items at {}",
                        localized_int(max),
                        localized_int(matched.len() as i64),
                        at.join(" ")
                    ),
                ));
            }
        }
    }

    fn string(&self, s: &Schema, text: &str, vloc: &[String], errors: &mut Vec<VError>) {
        let runes = text.chars().count() as i64;
        self.count_bounds(
            vloc,
            errors,
            runes,
            ("minLength", s.min_length),
            ("maxLength", s.max_length),
        );
        if let Some((re, pattern)) = &s.pattern
            && !re.is_match(text)
        {
            errors.push(self.error(
                vloc,
                format!("{} does not match pattern {}", quote(text), quote(pattern)),
            ));
        }
    }

    fn number(&self, s: &Schema, v: &Value, vloc: &[String], errors: &mut Vec<VError>) {
        let Some(got) = number(v) else { return };
        let mut check = |keyword: &str, bound: Option<f64>, fails: fn(f64, f64) -> bool| {
            if let Some(want) = bound
                && fails(got, want)
            {
                errors.push(self.error(
                    vloc,
                    format!(
                        "{keyword}: got {}, want {}",
                        localized_float(got),
                        localized_float(want)
                    ),
                ));
            }
        };
        check("minimum", s.minimum, |g, w| g < w);
        check("maximum", s.maximum, |g, w| g > w);
        check("exclusiveMinimum", s.exclusive_minimum, |g, w| g <= w);
        check("exclusiveMaximum", s.exclusive_maximum, |g, w| g >= w);
        check("multipleOf", s.multiple_of, |g, w| !is_multiple(g, w));
    }

    fn dynamic_refs(
        &self,
        s: &Schema,
        v: &Value,
        vloc: &mut Vec<String>,
        cx: Cx<'_>,
        uneval: &mut Uneval,
        errors: &mut Vec<VError>,
    ) {
        if let Some(mut target) = s.recursive_ref {
            if self.schemas[target].recursive_anchor {
                // The outermost schema of the scope whose resource has `$recursiveAnchor`.
                let mut scope = Some(cx.scope);
                while let Some(f) = scope {
                    if self.schemas[self.schemas[f.sch].resource].recursive_anchor {
                        target = f.sch;
                    }
                    scope = f.parent;
                }
            }
            errors.extend(
                self.validate_ref(target, "$recursiveRef", v, vloc, cx, uneval)
                    .err(),
            );
        }
        if let Some((initial, anchor)) = &s.dynamic_ref {
            let mut target = *initial;
            if !anchor.is_empty() && self.schemas[target].dynamic_anchor == *anchor {
                // The outermost resource of the scope with that `$dynamicAnchor`.
                let mut scope = Some(cx.scope);
                while let Some(f) = scope {
                    let resource = &self.schemas[self.schemas[f.sch].resource];
                    if let Some(&d) = resource.dynamic_anchors.get(anchor) {
                        target = d;
                    }
                    scope = f.parent;
                }
            }
            errors.extend(
                self.validate_ref(target, "$dynamicRef", v, vloc, cx, uneval)
                    .err(),
            );
        }
    }

    fn conditionals(
        &self,
        s: &Schema,
        v: &Value,
        vloc: &mut Vec<String>,
        cx: Cx<'_>,
        uneval: &mut Uneval,
        errors: &mut Vec<VError>,
    ) {
        if let Some(not) = s.not
            && self
                .validate_self(not, "", true, v, vloc, cx, uneval)
                .is_ok()
        {
            errors.push(self.error(vloc, "'not' failed".into()));
        }
        if !s.all_of.is_empty() {
            let mut failed = Vec::new();
            for &sch in &s.all_of {
                if let Err(e) = self.validate_self(sch, "", false, v, vloc, cx, uneval) {
                    failed.push(e);
                    if cx.bool_result {
                        break;
                    }
                }
            }
            if !failed.is_empty() {
                errors.push(self.with_causes(vloc, "'allOf' failed".into(), failed));
            }
        }
        if !s.any_of.is_empty() {
            let mut failed = Vec::new();
            let mut matched = false;
            for &sch in &s.any_of {
                match self.validate_self(sch, "", false, v, vloc, cx, uneval) {
                    Err(e) => failed.push(e),
                    Ok(()) => {
                        matched = true;
                        // For unevaluated*, every subschema has to be evaluated.
                        if uneval.is_empty() {
                            break;
                        }
                    }
                }
            }
            if !matched {
                errors.push(self.with_causes(vloc, "'anyOf' failed".into(), failed));
            }
        }
        if !s.one_of.is_empty() {
            let mut failed = Vec::new();
            let mut matched: Option<usize> = None;
            for (i, &sch) in s.one_of.iter().enumerate() {
                match self.validate_self(sch, "", matched.is_some(), v, vloc, cx, uneval) {
                    Err(e) => {
                        if matched.is_none() {
                            failed.push(e);
                        }
                    }
                    Ok(()) => match matched {
                        None => matched = Some(i),
                        Some(first) => {
                            errors.push(self.error(
                                vloc,
                                format!(
                                    "'oneOf' failed, subschemas {}, {} matched",
                                    localized_int(first as i64),
                                    localized_int(i as i64)
                                ),
                            ));
                            break;
                        }
                    },
                }
            }
            if matched.is_none() {
                errors.push(self.with_causes(vloc, "'oneOf' failed, none matched".into(), failed));
            }
        }
        if let Some(cond) = s.if_ {
            if self
                .validate_self(cond, "", true, v, vloc, cx, uneval)
                .is_ok()
            {
                if let Some(then) = s.then {
                    errors.extend(
                        self.validate_self(then, "", false, v, vloc, cx, uneval)
                            .err(),
                    );
                }
            } else if let Some(otherwise) = s.else_ {
                errors.extend(
                    self.validate_self(otherwise, "", false, v, vloc, cx, uneval)
                        .err(),
                );
            }
        }
    }

    fn unevaluated(
        &self,
        s: &Schema,
        v: &Value,
        vloc: &mut Vec<String>,
        cx: Cx<'_>,
        uneval: &mut Uneval,
        errors: &mut Vec<VError>,
    ) {
        if let (Value::Map(obj), Some(sch)) = (v, s.unevaluated_properties) {
            for name in std::mem::take(&mut uneval.props) {
                if let Some(value) = obj.get(&name) {
                    errors.extend(self.validate_val(sch, &value, name, vloc, cx).err());
                }
            }
        }
        if let (Value::List(arr), Some(sch)) = (v, s.unevaluated_items) {
            for i in std::mem::take(&mut uneval.items) {
                if let Some(item) = arr.items().get(i) {
                    errors.extend(self.validate_val(sch, item, i.to_string(), vloc, cx).err());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multiples_in_decimal() {
        assert!(is_multiple(0.3, 0.1));
        assert!(is_multiple(10.0, 2.5));
        assert!(!is_multiple(10.1, 2.5));
        assert!(is_multiple(1e20, 0.01));
        assert!(!is_multiple(7.0, 2.0));
    }
}
