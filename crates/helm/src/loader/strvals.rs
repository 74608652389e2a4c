//! Helm's `--set` syntax (`strvals`): `a.b=c,d[0]=x,e={1,2}`, backslash escapes, and type
//! inference (`--set`: int64, bool, null; `--set-string`: always strings).
//!
//! The parser reads the flag rune by rune as Helm's does, because its quirks (what a trailing
//! comma means, where lists may start, which errors come out) are part of the interface.

use gotemplate::{List, Map, Value};

use crate::template::ReadFileError;

/// Helm's limits: list indexes and key nesting depth.
const MAX_INDEX: i64 = 65536;
const MAX_NESTED_NAME_LEVEL: usize = 30;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct StrvalsError(pub String);

/// How values are typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Typing {
    /// `--set`: `true`/`false`, `null`, int64 where it parses.
    Inferred,
    /// `--set-string`.
    Strings,
}

/// Parses one `--set` argument into `dest` (changed in place).
pub fn parse_into(text: &str, dest: &Map, typing: Typing) -> Result<(), StrvalsError> {
    parse_into_with(text, dest, &|raw| Ok(typed_value(raw, typing)))
}

/// Parses one argument of the `--set` family into `dest`, turning each raw value into a value
/// with `read` (`--set-file` reads the file the raw value names).
pub fn parse_into_with(
    text: &str,
    dest: &Map,
    read: &dyn Fn(&str) -> Result<Value, ReadFileError>,
) -> Result<(), StrvalsError> {
    run_parser(text, dest, read, false)
}

/// Parses one `--set-json` argument of the `KEY=JSON[,KEY=JSON]...` form into `dest`: each
/// value is one JSON document (Go's `json.Decoder`), an empty value is `null`.
pub fn parse_json_into(text: &str, dest: &Map) -> Result<(), StrvalsError> {
    run_parser(text, dest, &|raw| Ok(Value::str(raw)), true)
}

/// Runs the `--set` parser over every `KEY=VALUE` of `text`.
fn run_parser(
    text: &str,
    dest: &Map,
    read: &dyn Fn(&str) -> Result<Value, ReadFileError>,
    json: bool,
) -> Result<(), StrvalsError> {
    let mut parser = Parser {
        chars: text.chars().collect(),
        pos: 0,
        read,
        json,
    };
    loop {
        match parser.key(dest, 0) {
            Ok(()) => continue,
            Err(Stop::Eof) => return Ok(()),
            Err(Stop::Error(e)) => return Err(e),
        }
    }
}

/// Parses one `--set-literal` argument into `dest`: the key path up to the first `=`, and all
/// the rest, commas and backslashes included, as one string.
pub fn parse_literal_into(text: &str, dest: &Map) -> Result<(), StrvalsError> {
    let mut p = LiteralParser {
        chars: text.chars().collect(),
        pos: 0,
    };
    loop {
        match p.key(dest, 0) {
            Ok(()) => continue,
            Err(Stop::Eof) => return Ok(()),
            Err(Stop::Error(e)) => return Err(e),
        }
    }
}

struct LiteralParser {
    chars: Vec<char>,
    pos: usize,
}

impl LiteralParser {
    fn until(&mut self, stop: &[char]) -> (String, Option<char>) {
        let mut out = String::new();
        while let Some(&c) = self.chars.get(self.pos) {
            self.pos += 1;
            if stop.contains(&c) {
                return (out, Some(c));
            }
            out.push(c);
        }
        (out, None)
    }

    fn rest(&mut self) -> String {
        let rest: String = self.chars[self.pos..].iter().collect();
        self.pos = self.chars.len();
        rest
    }

    fn conversion(found: &Value, want: &str) -> Stop {
        Stop::Error(StrvalsError(format!(
            "unable to parse key: interface conversion: interface {{}} is {}, not {want}",
            found.type_name()
        )))
    }

    fn key(&mut self, data: &Map, level: usize) -> Result<(), Stop> {
        let (key, last) = self.until(&['=', '[', '.']);
        match last {
            None if key.is_empty() => Err(Stop::Eof),
            None => fail(format!("key {key:?} has no value")),
            Some('=') => {
                let value = self.rest();
                set(data, &key, Value::str(&value));
                Ok(())
            }
            Some('.') => {
                let level = level + 1;
                if level > MAX_NESTED_NAME_LEVEL {
                    return fail(format!(
                        "value name nested level is greater than maximum supported nested level of {MAX_NESTED_NAME_LEVEL}"
                    ));
                }
                let inner = match data.get(&key) {
                    None => Map::new(),
                    Some(Value::Map(m)) => m,
                    Some(other) => {
                        return Err(Self::conversion(&other, "map[string]interface {}"));
                    }
                };
                let result = self.key(&inner, level);
                if result.is_ok() && inner.is_empty() {
                    return fail(format!("key map {key:?} has no value"));
                }
                if !inner.is_empty() {
                    set(data, &key, Value::Map(inner));
                }
                result
            }
            Some(_) => {
                let index = self.index()?;
                let list = match data.get(&key) {
                    None => Vec::new(),
                    Some(Value::List(l)) => l.items().to_vec(),
                    Some(other) => return Err(Self::conversion(&other, "[]interface {}")),
                };
                let (list, result) = self.list_item(list, index, level);
                set(data, &key, Value::List(List::new(list)));
                result
            }
        }
    }

    fn index(&mut self) -> Result<i64, Stop> {
        let (text, last) = self.until(&[']']);
        if last.is_none() {
            return fail("error parsing index: EOF");
        }
        text.parse::<i64>().or_else(|_| {
            fail(format!(
                "error parsing index: strconv.Atoi: parsing {text:?}: invalid syntax"
            ))
        })
    }

    fn list_item(
        &mut self,
        mut list: Vec<Value>,
        index: i64,
        level: usize,
    ) -> (Vec<Value>, Result<(), Stop>) {
        if index < 0 {
            return (list, fail(format!("negative {index} index not allowed")));
        }
        let (text, last) = self.until(&['[', '.', '=']);
        if !text.is_empty() {
            return (
                list,
                fail(format!("unexpected data at end of array index: {text:?}")),
            );
        }
        match last {
            None => (list, Err(Stop::Eof)),
            Some('=') => {
                let value = self.rest();
                set_index(list, index, Value::str(&value))
            }
            Some('.') => {
                let i = index as usize;
                let inner = match list.get(i) {
                    Some(Value::Map(m)) => m.clone(),
                    _ => Map::new(),
                };
                if i < list.len() {
                    list[i] = Value::Map(inner.clone());
                }
                if let Err(e) = self.key(&inner, level) {
                    return (list, Err(e));
                }
                set_index(list, index, Value::Map(inner))
            }
            Some(_) => {
                let next = match self.index() {
                    Ok(n) => n,
                    Err(e) => return (list, Err(e)),
                };
                let current = match list.get(index as usize) {
                    Some(Value::List(l)) => l.items().to_vec(),
                    _ => Vec::new(),
                };
                // `a[0][0]…` nests one list per index, as deep as the flag goes (Helm has no limit).
                let (inner, result) =
                    gotemplate::stack::grow(|| self.list_item(current, next, level));
                if result.is_err() {
                    return (list, result);
                }
                set_index(list, index, Value::list(inner))
            }
        }
    }
}

/// Helm's `typedVal`: the type `--set` gives a scalar.
pub fn typed_value(text: &str, typing: Typing) -> Value {
    if typing == Typing::Strings {
        return Value::str(text);
    }
    if text.eq_ignore_ascii_case("true") {
        return Value::Bool(true);
    }
    if text.eq_ignore_ascii_case("false") {
        return Value::Bool(false);
    }
    if text.eq_ignore_ascii_case("null") {
        return Value::Nil;
    }
    if text == "0" {
        return Value::int64(0);
    }
    // Go's ParseInt(…, 10, 64): an optional sign and decimal digits, no leading zero here.
    if !text.is_empty() && !text.starts_with('0') {
        let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
        if !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && let Ok(n) = text.parse::<i64>()
        {
            return Value::int64(n);
        }
    }
    Value::str(text)
}

enum Stop {
    Eof,
    Error(StrvalsError),
}

fn fail<T>(msg: impl Into<String>) -> Result<T, Stop> {
    Err(Stop::Error(StrvalsError(msg.into())))
}

struct Parser<'r> {
    chars: Vec<char>,
    pos: usize,
    read: &'r dyn Fn(&str) -> Result<Value, ReadFileError>,
    /// `--set-json`: values are JSON documents.
    json: bool,
}

/// The outcome of reading a value list: a list, or "not a list" (no `{`), or end of input.
enum ValList {
    List(Vec<Value>),
    NotList,
    Eof,
}

impl Parser<'_> {
    /// Helm's `emptyVal`: skips blanks; true at the end of input or after a comma.
    fn empty_val(&mut self) -> bool {
        while let Some(&c) = self.chars.get(self.pos) {
            if c == ',' {
                self.pos += 1;
                return true;
            }
            if !gotemplate_is_space(c) {
                return false;
            }
            self.pos += 1;
        }
        true
    }

    /// A `--set-json` value: `None` for an empty one (null).
    fn json_value(&mut self) -> Result<Value, Stop> {
        if self.empty_val() {
            return Ok(Value::Nil);
        }
        let (value, used) = goyaml::json_read::from_json_prefix(&self.chars[self.pos..])
            .map_err(|e| Stop::Error(StrvalsError(e.to_string())))?;
        self.pos += used;
        self.empty_val();
        Ok(value)
    }

    fn value(&self, raw: &str) -> Result<Value, Stop> {
        (self.read)(raw).map_err(|e| Stop::Error(StrvalsError(e.message)))
    }

    fn next(&mut self) -> Option<char> {
        let c = self.chars.get(self.pos).copied();
        if c.is_some() {
            self.pos += 1;
        }
        c
    }

    /// Reads runes until one in `stop`; backslash escapes the next rune. Returns the runes read
    /// and the stop rune, or `None` as the stop at end of input.
    fn until(&mut self, stop: &[char]) -> (String, Option<char>) {
        let mut out = String::new();
        while let Some(c) = self.next() {
            if c == '\\' {
                if let Some(escaped) = self.next() {
                    out.push(escaped);
                }
                continue;
            }
            if stop.contains(&c) {
                return (out, Some(c));
            }
            out.push(c);
        }
        (out, None)
    }

    fn key(&mut self, data: &Map, level: usize) -> Result<(), Stop> {
        let (key, last) = self.until(&['=', '[', ',', '.']);
        match last {
            None => {
                if key.is_empty() {
                    Err(Stop::Eof)
                } else {
                    fail(format!("key {key:?} has no value"))
                }
            }
            Some('[') => {
                let index = self.key_index()?;
                let list = match data.get(&key) {
                    None => Vec::new(),
                    Some(Value::List(l)) => l.items().to_vec(),
                    Some(other) => {
                        return fail(format!(
                            "unable to parse key: interface conversion: interface {{}} is {}, not []interface {{}}",
                            other.type_name()
                        ));
                    }
                };
                let (list, result) = self.list_item(list, index, level);
                set(data, &key, Value::List(List::new(list)));
                result
            }
            Some('=') if self.json => {
                let value = self.json_value()?;
                set(data, &key, value);
                Ok(())
            }
            Some('=') => match self.val_list()? {
                ValList::List(items) => {
                    set(data, &key, Value::list(items));
                    Ok(())
                }
                ValList::Eof => {
                    set(data, &key, Value::str(""));
                    Err(Stop::Eof)
                }
                ValList::NotList => {
                    // The end of input after a scalar is not reported here (as in Helm): the
                    // next key finds it.
                    let (text, _) = self.until(&[',']);
                    set(data, &key, self.value(&text)?);
                    Ok(())
                }
            },
            Some(',') => {
                set(data, &key, Value::str(""));
                fail(format!("key {key:?} has no value (cannot end with ,)"))
            }
            Some(_) => {
                let level = level + 1;
                if level > MAX_NESTED_NAME_LEVEL {
                    return fail(format!(
                        "value name nested level is greater than maximum supported nested level of {MAX_NESTED_NAME_LEVEL}"
                    ));
                }
                let inner = match data.get(&key) {
                    None => Map::new(),
                    Some(Value::Map(m)) => m,
                    Some(other) => {
                        return fail(format!(
                            "unable to parse key: interface conversion: interface {{}} is {}, not map[string]interface {{}}",
                            other.type_name()
                        ));
                    }
                };
                let result = self.key(&inner, level);
                if result.is_ok() && inner.is_empty() {
                    return fail(format!("key map {key:?} has no value"));
                }
                if !inner.is_empty() {
                    set(data, &key, Value::Map(inner));
                }
                result
            }
        }
    }

    fn key_index(&mut self) -> Result<i64, Stop> {
        let (text, last) = self.until(&[']']);
        if last.is_none() {
            return fail("error parsing index: EOF");
        }
        match text.parse::<i64>() {
            Ok(i) => Ok(i),
            Err(_) => fail(format!(
                "error parsing index: strconv.Atoi: parsing {text:?}: invalid syntax"
            )),
        }
    }

    fn list_item(
        &mut self,
        list: Vec<Value>,
        index: i64,
        level: usize,
    ) -> (Vec<Value>, Result<(), Stop>) {
        if index < 0 {
            return (list, fail(format!("negative {index} index not allowed")));
        }
        let (text, last) = self.until(&['[', '.', '=']);
        if !text.is_empty() {
            return (
                list,
                fail(format!("unexpected data at end of array index: {text:?}")),
            );
        }
        match last {
            None => (list, Err(Stop::Eof)),
            Some('=') if self.json => match self.json_value() {
                Ok(value) => set_index(list, index, value),
                Err(e) => (list, Err(e)),
            },
            Some('=') => {
                let value = match self.val_list() {
                    Err(e) => return (list, Err(e)),
                    Ok(ValList::List(items)) => Value::list(items),
                    Ok(ValList::Eof) => Value::str(""),
                    Ok(ValList::NotList) => {
                        let (text, _) = self.until(&[',']);
                        match self.value(&text) {
                            Ok(v) => v,
                            Err(e) => return (list, Err(e)),
                        }
                    }
                };
                set_index(list, index, value)
            }
            Some('[') => {
                let next_index = match self.key_index() {
                    Ok(i) => i,
                    Err(e) => return (list, Err(e)),
                };
                let current = match list.get(index as usize) {
                    Some(Value::List(l)) => l.items().to_vec(),
                    Some(Value::Nil) | None => Vec::new(),
                    Some(other) => {
                        let msg = format!(
                            "interface conversion: interface {{}} is {}, not []interface {{}}",
                            other.type_name()
                        );
                        return (list, fail(msg));
                    }
                };
                let (inner, result) =
                    gotemplate::stack::grow(|| self.list_item(current, next_index, level));
                if result.is_err() {
                    return (list, result);
                }
                set_index(list, index, Value::list(inner))
            }
            Some(_) => {
                let inner = match list.get(index as usize) {
                    Some(Value::Map(m)) => m.clone(),
                    _ => Map::new(),
                };
                if let Err(e) = self.key(&inner, level) {
                    return (list, Err(e));
                }
                set_index(list, index, Value::Map(inner))
            }
        }
    }

    fn val_list(&mut self) -> Result<ValList, Stop> {
        match self.chars.get(self.pos) {
            None => return Ok(ValList::Eof),
            Some('{') => self.pos += 1,
            Some(_) => return Ok(ValList::NotList),
        }
        let mut items = Vec::new();
        loop {
            let (text, last) = self.until(&[',', '}']);
            match last {
                None => return fail("list must terminate with '}'"),
                Some('}') => {
                    if self.chars.get(self.pos) == Some(&',') {
                        self.pos += 1;
                    }
                    items.push(self.value(&text)?);
                    return Ok(ValList::List(items));
                }
                Some(_) => items.push(self.value(&text)?),
            }
        }
    }
}

/// Go's `unicode.IsSpace`.
fn gotemplate_is_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{85}' | '\u{A0}'
    ) || (c > '\u{FF}' && c.is_whitespace())
}

fn set(data: &Map, key: &str, value: Value) {
    if !key.is_empty() {
        data.insert(key, value);
    }
}

fn set_index(mut list: Vec<Value>, index: i64, value: Value) -> (Vec<Value>, Result<(), Stop>) {
    if index > MAX_INDEX {
        let msg =
            format!("index of {index} is greater than maximum supported index of {MAX_INDEX}");
        return (list, fail(msg));
    }
    let index = index as usize;
    if list.len() <= index {
        list.resize(index + 1, Value::Nil);
    }
    list[index] = value;
    (list, Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<String, String> {
        let dest = Map::new();
        parse_into(text, &dest, Typing::Inferred).map_err(|e| e.0)?;
        Ok(format!("{:?}", Value::Map(dest)))
    }

    /// Helm takes `a[0][0]…` of any depth (30,000 indexes: exit 0, checked with helm v4.1.4);
    /// each index is a list inside the last, built by recursion here.
    #[test]
    fn indexes_nest_as_deep_as_the_flag_goes() {
        const DEPTH: usize = 30_000;
        for json in [false, true] {
            let text = format!("a{}=1", "[0]".repeat(DEPTH));
            let dest = Map::new();
            let parsed = if json {
                parse_json_into(&text, &dest)
            } else {
                parse_into(&text, &dest, Typing::Inferred)
            };
            parsed.map_err(|e| e.0).expect("parses");
            let mut v = dest.get("a").expect("a is set");
            let mut depth = 0;
            while let Value::List(l) = v {
                v = l.items()[0].clone();
                depth += 1;
            }
            assert_eq!(depth, DEPTH);
        }
    }

    #[test]
    fn cases() {
        let cases: &[(&str, Result<&str, &str>)] = &[
            ("a=1", Ok(r#"{"a": int64(1)}"#)),
            ("a=b,c=d", Ok(r#"{"a": "b", "c": "d"}"#)),
            ("a.b=c", Ok(r#"{"a": {"b": "c"}}"#)),
            (
                "a=true,b=FALSE,c=null",
                Ok(r#"{"a": true, "b": false, "c": nil}"#),
            ),
            (
                "a=012,b=0,c=-3,d=1.5",
                Ok(r#"{"a": "012", "b": int64(0), "c": int64(-3), "d": "1.5"}"#),
            ),
            ("a={x,y}", Ok(r#"{"a": ["x", "y"]}"#)),
            ("a[1]=x", Ok(r#"{"a": [nil, "x"]}"#)),
            ("a[0].b=x", Ok(r#"{"a": [{"b": "x"}]}"#)),
            ("a[0][1]=x", Ok(r#"{"a": [[nil, "x"]]}"#)),
            (r"a\.b=c", Ok(r#"{"a.b": "c"}"#)),
            (r"a=b\,c", Ok(r#"{"a": "b,c"}"#)),
            ("a=", Ok(r#"{"a": ""}"#)),
            ("a", Err(r#"key "a" has no value"#)),
            ("a,", Err(r#"key "a" has no value (cannot end with ,)"#)),
            ("a[-1]=x", Err("negative -1 index not allowed")),
            ("a[x]=1", Err("error parsing index")),
            ("a={x", Err("list must terminate with '}'")),
            ("a[0]x=1", Err("unexpected data at end of array index")),
        ];
        for (input, want) in cases {
            let got = parse(input);
            match (want, &got) {
                (Ok(w), Ok(g)) => assert_eq!(g, w, "input {input}"),
                (Err(w), Err(g)) => assert!(g.contains(w), "input {input}: {g}"),
                _ => panic!("input {input}: want {want:?}, got {got:?}"),
            }
        }
    }
}
