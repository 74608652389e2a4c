//! `values.schema.json`: validating a chart's coalesced values (and each subchart's own
//! values) as Helm 4 does with santhosh-tekuri/jsonschema v6, with that library's error tree
//! and wording.
//!
//! Facts this follows: the root error lists the root schema's errors (a group is flattened);
//! each error prints as `- at 'POINTER': MESSAGE`, a schema location with several failing
//! keywords as `validation failed` with its errors indented below; a `type` mismatch stops the
//! other keywords of that schema; under drafts before 2019-09 a `$ref` replaces its siblings,
//! and a `$ref` error with one cause is shown as that cause. Helm prints `CHART:` and the list
//! for every chart whose schema fails (a subchart's values are validated against its own
//! schema when the parent's values hold a map for it). Object properties are visited in key
//! order (Go visits them in random order, so several errors may come in any order).
//! Supported keywords: type, const, enum, $ref (local `#...` pointers), properties,
//! patternProperties, additionalProperties, required, min/maxProperties, items (schema or
//! array), prefixItems, additionalItems, min/maxItems, uniqueItems, min/maxLength, pattern,
//! minimum, maximum, exclusiveMinimum/Maximum (numbers and draft-4 booleans), multipleOf,
//! contains (min/maxContains), propertyNames, dependencies, dependentRequired,
//! dependentSchemas, not, allOf, anyOf, oneOf, if/then/else. Others (format, which is only an
//! annotation by default, unevaluated*, remote `$ref`s) are ignored.

use gotemplate::{Map, Value};

use crate::chart::Chart;

/// Why the values do not meet the schemas: the text Helm prints after its own heading.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SchemaError(pub String);

/// Helm's `ValidateAgainstSchema`: `chart`'s schema over `values`, then each subchart's
/// schema over `values[SUBCHART]`.
pub fn validate_chart(chart: &Chart, values: &Map) -> Result<(), SchemaError> {
    let mut out = String::new();
    if let Some(schema) = &chart.schema
        && let Err(e) = validate_single(values, schema)
    {
        out.push_str(&format!("{}:\n{}", chart.metadata.name, e.0));
    }
    for sub in &chart.dependencies {
        let name = sub.metadata.name.as_str();
        match values.get(name) {
            None | Some(Value::Nil) => {}
            Some(Value::Map(m)) => {
                if let Err(e) = validate_chart(sub, &m) {
                    out.push_str(&e.0);
                }
            }
            Some(other) => out.push_str(&format!(
                "{name}:\ninvalid type for values: expected object (map), got {}\n",
                other.type_name()
            )),
        }
    }
    if out.is_empty() {
        Ok(())
    } else {
        Err(SchemaError(out))
    }
}

/// One schema over one values map; the error text ends with a newline.
pub fn validate_single(values: &Map, schema_json: &[u8]) -> Result<(), SchemaError> {
    let text = String::from_utf8_lossy(schema_json);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    // The library decodes with a json.Decoder, which words a truncated document as io's EOF.
    let schema = crate::json_read::from_json(text).map_err(|e| {
        SchemaError(if e == "unexpected end of JSON input" {
            "unexpected EOF".to_string()
        } else {
            e
        })
    })?;
    let draft = match &schema {
        Value::Map(m) => match m.get("$schema") {
            Some(Value::String(s)) if s.contains("draft-04") => 4,
            Some(Value::String(s)) if s.contains("draft-06") => 6,
            Some(Value::String(s)) if s.contains("draft-07") => 7,
            Some(Value::String(s)) if s.contains("2019-09") => 2019,
            _ => 2020,
        },
        _ => 2020,
    };
    let v = Validator {
        root: &schema,
        draft,
    };
    let instance = Value::Map(values.clone());
    match v.validate(&schema, &instance, &mut Vec::new(), 0) {
        None => Ok(()),
        Some(err) => {
            let causes = match err.kind {
                Kind::Group => err.causes,
                _ => vec![err],
            };
            let mut text = String::new();
            for c in &causes {
                c.display(&mut text, 1);
            }
            Err(SchemaError(format!(
                "{}\n",
                text.strip_prefix('\n').unwrap_or(&text)
            )))
        }
    }
}

#[derive(Debug, Clone)]
enum Kind {
    Group,
    Reference,
    Message(String),
}

#[derive(Debug, Clone)]
struct VError {
    location: Vec<String>,
    kind: Kind,
    causes: Vec<VError>,
}

impl VError {
    fn display(&self, out: &mut String, indent: usize) {
        let skip = matches!(self.kind, Kind::Reference) && self.causes.len() == 1;
        let mut indent = indent;
        if !skip {
            out.push('\n');
            for _ in 0..indent.saturating_sub(1) {
                out.push_str("  ");
            }
            out.push_str("- ");
            let message = match &self.kind {
                Kind::Group | Kind::Reference => "validation failed".to_string(),
                Kind::Message(m) => m.clone(),
            };
            let pointer: String = self
                .location
                .iter()
                .map(|t| format!("/{}", t.replace('~', "~0").replace('/', "~1")))
                .collect();
            out.push_str(&format!("at {}: {message}", quote(&pointer)));
            indent += 1;
        }
        for c in &self.causes {
            c.display(out, indent);
        }
    }
}

/// The library's `quote`: Go's `%q` with `\"` unescaped and `'` escaped, in single quotes.
fn quote(s: &str) -> String {
    let q = gotemplate::fmt::quote(s);
    let inner = &q[1..q.len() - 1];
    format!("'{}'", inner.replace("\\\"", "\"").replace('\'', "\\'"))
}

/// The library's `display` of a primitive.
fn display(v: &Value) -> String {
    match v {
        Value::String(s) => quote(s),
        Value::List(_) | Value::Map(_) => "value".to_string(),
        other => gotemplate::fmt::sprint_value(other),
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Nil | Value::Invalid => "null",
        Value::Bool(_) => "boolean",
        Value::Int(..) | Value::Float(_) => "number",
        Value::String(_) => "string",
        Value::List(_) | Value::Bytes(_) => "array",
        Value::Map(_) => "object",
        Value::Object(_) | Value::Func(_) => "object",
    }
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

fn equals(a: &Value, b: &Value) -> bool {
    match (a, b) {
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
    }
}

/// `properties 'a', 'b' required, if 'x' exists`, when some of `required` are missing.
fn required_message(obj: &Map, name: &str, required: &Value) -> Option<String> {
    let Value::List(required) = required else {
        return None;
    };
    let missing: Vec<String> = required
        .items()
        .iter()
        .filter_map(|r| r.as_str())
        .filter(|r| !obj.contains_key(r))
        .map(quote)
        .collect();
    (!missing.is_empty()).then(|| {
        format!(
            "properties {} required, if {} exists",
            missing.join(", "),
            quote(name)
        )
    })
}

fn show_number(f: f64) -> String {
    gotemplate::fmt::sprint_value(&Value::Float(f))
}

struct Validator<'s> {
    root: &'s Value,
    draft: u32,
}

impl Validator<'_> {
    fn error(&self, location: &[String], message: String) -> VError {
        VError {
            location: location.to_vec(),
            kind: Kind::Message(message),
            causes: Vec::new(),
        }
    }

    fn resolve(&self, reference: &str) -> Option<Value> {
        let pointer = reference.strip_prefix('#')?;
        let mut current = self.root.clone();
        for token in pointer.split('/').skip(1) {
            let token = token.replace("~1", "/").replace("~0", "~");
            current = match &current {
                Value::Map(m) => m.get(&token)?,
                Value::List(l) => l.items().get(token.parse::<usize>().ok()?)?.clone(),
                _ => return None,
            };
        }
        Some(current)
    }

    /// Validates `v` (at `location`) against `schema`: `None` if valid, else one error or a
    /// group.
    fn validate(
        &self,
        schema: &Value,
        v: &Value,
        location: &mut Vec<String>,
        depth: usize,
    ) -> Option<VError> {
        let s = match schema {
            Value::Bool(true) => return None,
            Value::Bool(false) => return Some(self.error(location, "false schema".into())),
            Value::Map(m) => m,
            _ => return None,
        };
        if depth > 200 {
            return None;
        }
        let mut errors: Vec<VError> = Vec::new();

        // type
        if let Some(t) = s.get("type") {
            let wanted: Vec<String> = match &t {
                Value::String(x) => vec![x.to_string()],
                Value::List(l) => l
                    .items()
                    .iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect(),
                _ => vec![],
            };
            let got = json_type(v);
            let matched = wanted.iter().any(|w| w == got)
                || (wanted.iter().any(|w| w == "integer") && got == "number" && is_integer(v));
            if !wanted.is_empty() && !matched {
                let order = [
                    "null", "boolean", "number", "integer", "string", "array", "object",
                ];
                let want: Vec<&str> = order
                    .iter()
                    .copied()
                    .filter(|o| wanted.iter().any(|w| w == o))
                    .collect();
                return Some(
                    self.error(location, format!("got {got}, want {}", want.join(" or "))),
                );
            }
        }
        // const
        if let Some(c) = s.get("const")
            && !equals(v, &c)
        {
            let message = match &c {
                Value::List(_) | Value::Map(_) => "'const' failed".to_string(),
                other => format!("value must be {}", display(other)),
            };
            return Some(self.error(location, message));
        }
        // enum
        if let Some(Value::List(items)) = s.get("enum")
            && !items.items().iter().any(|e| equals(v, e))
        {
            let primitive = items
                .items()
                .iter()
                .all(|i| !matches!(i, Value::List(_) | Value::Map(_)));
            let message = if !primitive {
                "'enum' failed".to_string()
            } else if items.len() == 1 {
                format!("value must be {}", display(&items.items()[0]))
            } else {
                let shown: Vec<String> = items.items().iter().map(display).collect();
                format!("value must be one of {}", shown.join(", "))
            };
            return Some(self.error(location, message));
        }
        // $ref
        if let Some(Value::String(r)) = s.get("$ref") {
            let err = self.resolve(&r).and_then(|target| {
                self.validate(&target, v, location, depth + 1)
                    .map(|e| VError {
                        location: location.clone(),
                        kind: Kind::Reference,
                        causes: vec![e],
                    })
            });
            if self.draft < 2019 {
                return err;
            }
            errors.extend(err);
        }

        match v {
            Value::Map(obj) => self.object(s, obj, location, depth, &mut errors),
            Value::List(arr) => self.array(s, arr.items(), location, depth, &mut errors),
            Value::String(text) => self.string(s, text, location, &mut errors),
            Value::Int(..) | Value::Float(_) => self.number(s, v, location, &mut errors),
            _ => {}
        }

        self.conditionals(s, v, location, depth, &mut errors);

        match errors.len() {
            0 => None,
            1 => errors.pop(),
            _ => Some(VError {
                location: location.clone(),
                kind: Kind::Group,
                causes: errors,
            }),
        }
    }

    fn child(
        &self,
        schema: &Value,
        v: &Value,
        location: &mut Vec<String>,
        token: String,
        depth: usize,
    ) -> Option<VError> {
        location.push(token);
        let e = self.validate(schema, v, location, depth + 1);
        location.pop();
        e
    }

    fn object(
        &self,
        s: &Map,
        obj: &Map,
        location: &mut Vec<String>,
        depth: usize,
        errors: &mut Vec<VError>,
    ) {
        let count = |k: &str| s.get(k).and_then(|v| number(&v)).map(|f| f as usize);
        if let Some(min) = count("minProperties")
            && obj.len() < min
        {
            errors.push(self.error(
                location,
                format!("minProperties: got {}, want {min}", obj.len()),
            ));
        }
        if let Some(max) = count("maxProperties")
            && obj.len() > max
        {
            errors.push(self.error(
                location,
                format!("maxProperties: got {}, want {max}", obj.len()),
            ));
        }
        if let Some(Value::List(required)) = s.get("required") {
            let missing: Vec<String> = required
                .items()
                .iter()
                .filter_map(|r| r.as_str())
                .filter(|r| !obj.contains_key(r))
                .map(str::to_string)
                .collect();
            match missing.len() {
                0 => {}
                1 => errors
                    .push(self.error(location, format!("missing property {}", quote(&missing[0])))),
                _ => {
                    let shown: Vec<String> = missing.iter().map(|m| quote(m)).collect();
                    errors.push(
                        self.error(location, format!("missing properties {}", shown.join(", "))),
                    );
                }
            }
        }
        if self.draft < 2019
            && let Some(Value::Map(dependencies)) = s.get("dependencies")
        {
            for (name, dependency) in dependencies.entries() {
                if !obj.contains_key(&name) {
                    continue;
                }
                match &dependency {
                    Value::List(_) => {
                        if let Some(message) = required_message(obj, &name, &dependency) {
                            errors.push(self.error(location, message));
                        }
                    }
                    schema => errors.extend(self.validate(
                        schema,
                        &Value::Map(obj.clone()),
                        location,
                        depth + 1,
                    )),
                }
            }
        }
        let properties = match s.get("properties") {
            Some(Value::Map(p)) => Some(p),
            _ => None,
        };
        let patterns: Vec<(regex::Regex, Value)> = match s.get("patternProperties") {
            Some(Value::Map(p)) => p
                .entries()
                .into_iter()
                .filter_map(|(k, v)| regex::Regex::new(&k).ok().map(|r| (r, v)))
                .collect(),
            _ => Vec::new(),
        };
        let additional = s.get("additionalProperties");
        let mut not_allowed = Vec::new();
        for (name, value) in obj.entries() {
            let mut evaluated = false;
            if let Some(schema) = properties.as_ref().and_then(|p| p.get(&name)) {
                evaluated = true;
                errors.extend(self.child(&schema, &value, location, name.to_string(), depth));
            }
            for (re, schema) in &patterns {
                if re.is_match(&name) {
                    evaluated = true;
                    errors.extend(self.child(schema, &value, location, name.to_string(), depth));
                }
            }
            if !evaluated {
                match &additional {
                    Some(Value::Bool(false)) => not_allowed.push(name.to_string()),
                    Some(schema @ Value::Map(_)) => {
                        errors.extend(self.child(schema, &value, location, name.to_string(), depth))
                    }
                    _ => {}
                }
            }
        }
        if !not_allowed.is_empty() {
            let shown: Vec<String> = not_allowed.iter().map(|m| quote(m)).collect();
            errors.push(self.error(
                location,
                format!("additional properties {} not allowed", shown.join(", ")),
            ));
        }
        if self.draft == 4 {
            return;
        }
        if let Some(names) = s.get("propertyNames") {
            for name in obj.keys() {
                if let Some(e) =
                    self.validate(&names, &Value::str(&name), &mut Vec::new(), depth + 1)
                {
                    let causes = match e.kind {
                        Kind::Group => e.causes,
                        _ => vec![e],
                    };
                    errors.push(VError {
                        location: Vec::new(),
                        kind: Kind::Message(format!("invalid propertyName {}", quote(&name))),
                        causes,
                    });
                }
            }
        }
        if self.draft == 6 {
            return;
        }
        if let Some(Value::Map(dependent)) = s.get("dependentSchemas") {
            for (name, schema) in dependent.entries() {
                if obj.contains_key(&name) {
                    errors.extend(self.validate(
                        &schema,
                        &Value::Map(obj.clone()),
                        location,
                        depth + 1,
                    ));
                }
            }
        }
        if let Some(Value::Map(dependent)) = s.get("dependentRequired") {
            for (name, required) in dependent.entries() {
                if obj.contains_key(&name)
                    && let Some(message) = required_message(obj, &name, &required)
                {
                    errors.push(self.error(location, message));
                }
            }
        }
    }

    fn array(
        &self,
        s: &Map,
        arr: &[Value],
        location: &mut Vec<String>,
        depth: usize,
        errors: &mut Vec<VError>,
    ) {
        let count = |k: &str| s.get(k).and_then(|v| number(&v)).map(|f| f as usize);
        if let Some(min) = count("minItems")
            && arr.len() < min
        {
            errors.push(self.error(location, format!("minItems: got {}, want {min}", arr.len())));
        }
        if let Some(max) = count("maxItems")
            && arr.len() > max
        {
            errors.push(self.error(location, format!("maxItems: got {}, want {max}", arr.len())));
        }
        if matches!(s.get("uniqueItems"), Some(Value::Bool(true))) {
            'outer: for i in 0..arr.len() {
                for j in i + 1..arr.len() {
                    if equals(&arr[i], &arr[j]) {
                        errors
                            .push(self.error(location, format!("items at {i} and {j} are equal")));
                        break 'outer;
                    }
                }
            }
        }
        let mut evaluated = 0;
        if self.draft < 2020 {
            match s.get("items") {
                Some(Value::List(schemas)) => {
                    let n = schemas.len().min(arr.len());
                    for (i, item) in arr[..n].iter().enumerate() {
                        errors.extend(self.child(
                            &schemas.items()[i],
                            item,
                            location,
                            i.to_string(),
                            depth,
                        ));
                    }
                    evaluated = n;
                }
                Some(schema) => {
                    for (i, item) in arr.iter().enumerate() {
                        errors.extend(self.child(&schema, item, location, i.to_string(), depth));
                    }
                    evaluated = arr.len();
                }
                None => {}
            }
            match s.get("additionalItems") {
                Some(Value::Bool(false)) if evaluated != arr.len() && s.contains_key("items") => {
                    errors.push(self.error(
                        location,
                        format!(
                            "last {} additionalItem(s) not allowed",
                            arr.len() - evaluated
                        ),
                    ));
                }
                Some(schema @ Value::Map(_)) => {
                    for (i, item) in arr[evaluated..].iter().enumerate() {
                        errors.extend(self.child(&schema, item, location, i.to_string(), depth));
                    }
                }
                _ => {}
            }
        } else {
            if let Some(Value::List(prefix)) = s.get("prefixItems") {
                evaluated = prefix.len().min(arr.len());
                for (i, item) in arr[..evaluated].iter().enumerate() {
                    errors.extend(self.child(
                        &prefix.items()[i],
                        item,
                        location,
                        i.to_string(),
                        depth,
                    ));
                }
            }
            if let Some(schema) = s.get("items") {
                for (i, item) in arr[evaluated..].iter().enumerate() {
                    errors.extend(self.child(&schema, item, location, i.to_string(), depth));
                }
            }
        }
        if let Some(contains) = s.get("contains") {
            let mut failed = Vec::new();
            let mut matched = Vec::new();
            for (i, item) in arr.iter().enumerate() {
                match self.child(&contains, item, location, i.to_string(), depth) {
                    Some(e) => failed.push(e),
                    None => matched.push(i.to_string()),
                }
            }
            let min = if self.draft >= 2019 {
                count("minContains")
            } else {
                None
            };
            let max = if self.draft >= 2019 {
                count("maxContains")
            } else {
                None
            };
            let with_causes = |message: String, causes: Vec<VError>| VError {
                location: location.clone(),
                kind: Kind::Message(message),
                causes,
            };
            match min {
                Some(min) if matched.len() < min => {
                    let message = if matched.is_empty() {
                        format!(
                            "min {min} items required to match contains schema, but none matched"
                        )
                    } else {
                        format!(
                            "min {min} items required to match contains schema, but matched {} items at {}",
                            matched.len(),
                            matched.join(" ")
                        )
                    };
                    errors.push(with_causes(message, failed));
                }
                Some(_) => {}
                None if matched.is_empty() => errors.push(with_causes(
                    "no items match contains schema".to_string(),
                    failed,
                )),
                None => {}
            }
            if let Some(max) = max
                && matched.len() > max
            {
                errors.push(self.error(
                    location,
                    format!(
                        "max {max} items required to match contains schema, but matched {} items at {}",
                        matched.len(),
                        matched.join(" ")
                    ),
                ));
            }
        }
    }

    fn string(&self, s: &Map, text: &str, location: &[String], errors: &mut Vec<VError>) {
        let runes = text.chars().count();
        let count = |k: &str| s.get(k).and_then(|v| number(&v)).map(|f| f as usize);
        if let Some(min) = count("minLength")
            && runes < min
        {
            errors.push(self.error(location, format!("minLength: got {runes}, want {min}")));
        }
        if let Some(max) = count("maxLength")
            && runes > max
        {
            errors.push(self.error(location, format!("maxLength: got {runes}, want {max}")));
        }
        if let Some(Value::String(pattern)) = s.get("pattern")
            && let Ok(re) = regex::Regex::new(&pattern)
            && !re.is_match(text)
        {
            errors.push(self.error(
                location,
                format!("{} does not match pattern {}", quote(text), quote(&pattern)),
            ));
        }
    }

    fn number(&self, s: &Map, v: &Value, location: &[String], errors: &mut Vec<VError>) {
        let Some(got) = number(v) else { return };
        let bound = |k: &str| s.get(k).and_then(|b| number(&b));
        let exclusive_flag = |k: &str| matches!(s.get(k), Some(Value::Bool(true)));
        if let Some(min) = bound("minimum") {
            if self.draft == 4 && exclusive_flag("exclusiveMinimum") {
                if got <= min {
                    errors.push(self.error(
                        location,
                        format!(
                            "exclusiveMinimum: got {}, want {}",
                            show_number(got),
                            show_number(min)
                        ),
                    ));
                }
            } else if got < min {
                errors.push(self.error(
                    location,
                    format!(
                        "minimum: got {}, want {}",
                        show_number(got),
                        show_number(min)
                    ),
                ));
            }
        }
        if let Some(max) = bound("maximum") {
            if self.draft == 4 && exclusive_flag("exclusiveMaximum") {
                if got >= max {
                    errors.push(self.error(
                        location,
                        format!(
                            "exclusiveMaximum: got {}, want {}",
                            show_number(got),
                            show_number(max)
                        ),
                    ));
                }
            } else if got > max {
                errors.push(self.error(
                    location,
                    format!(
                        "maximum: got {}, want {}",
                        show_number(got),
                        show_number(max)
                    ),
                ));
            }
        }
        if self.draft > 4 {
            if let Some(min) = bound("exclusiveMinimum")
                && got <= min
            {
                errors.push(self.error(
                    location,
                    format!(
                        "exclusiveMinimum: got {}, want {}",
                        show_number(got),
                        show_number(min)
                    ),
                ));
            }
            if let Some(max) = bound("exclusiveMaximum")
                && got >= max
            {
                errors.push(self.error(
                    location,
                    format!(
                        "exclusiveMaximum: got {}, want {}",
                        show_number(got),
                        show_number(max)
                    ),
                ));
            }
        }
        if let Some(m) = bound("multipleOf")
            && m != 0.0
            && (got / m).fract() != 0.0
        {
            errors.push(self.error(
                location,
                format!(
                    "multipleOf: got {}, want {}",
                    show_number(got),
                    show_number(m)
                ),
            ));
        }
    }

    fn conditionals(
        &self,
        s: &Map,
        v: &Value,
        location: &mut Vec<String>,
        depth: usize,
        errors: &mut Vec<VError>,
    ) {
        let group = |kind: &str, causes: Vec<VError>, location: &[String]| VError {
            location: location.to_vec(),
            kind: Kind::Message(kind.to_string()),
            causes,
        };
        if let Some(not) = s.get("not")
            && self.validate(&not, v, location, depth + 1).is_none()
        {
            errors.push(self.error(location, "'not' failed".into()));
        }
        if let Some(Value::List(all)) = s.get("allOf") {
            let failed: Vec<VError> = all
                .items()
                .iter()
                .filter_map(|sch| self.validate(sch, v, location, depth + 1))
                .collect();
            if !failed.is_empty() {
                errors.push(group("'allOf' failed", failed, location));
            }
        }
        if let Some(Value::List(any)) = s.get("anyOf") {
            let mut failed = Vec::new();
            let mut matched = false;
            for sch in any.items() {
                match self.validate(sch, v, location, depth + 1) {
                    Some(e) => failed.push(e),
                    None => {
                        matched = true;
                        break;
                    }
                }
            }
            if !matched {
                errors.push(group("'anyOf' failed", failed, location));
            }
        }
        if let Some(Value::List(one)) = s.get("oneOf") {
            let mut failed = Vec::new();
            let mut matched: Option<usize> = None;
            for (i, sch) in one.items().iter().enumerate() {
                match self.validate(sch, v, location, depth + 1) {
                    Some(e) => {
                        if matched.is_none() {
                            failed.push(e);
                        }
                    }
                    None => match matched {
                        None => matched = Some(i),
                        Some(first) => {
                            errors.push(self.error(
                                location,
                                format!("'oneOf' failed, subschemas {first}, {i} matched"),
                            ));
                            break;
                        }
                    },
                }
            }
            if matched.is_none() {
                errors.push(group("'oneOf' failed, none matched", failed, location));
            }
        }
        if let Some(cond) = s.get("if") {
            let branch = if self.validate(&cond, v, location, depth + 1).is_none() {
                s.get("then")
            } else {
                s.get("else")
            };
            if let Some(branch) = branch {
                errors.extend(self.validate(&branch, v, location, depth + 1));
            }
        }
    }
}
