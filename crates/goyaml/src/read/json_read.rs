//! Go's `encoding/json.Unmarshal` into `interface{}`, for Helm's `fromJson`/`fromJsonArray`:
//! objects become maps, arrays `[]interface{}`, numbers `float64`; syntax errors are worded as
//! Go's scanner words them.

use gotemplate::fmt::quote;
use gotemplate::{List, Map, Value};

/// Go's `quoteChar`, for scanner errors.
fn quote_char(c: char) -> String {
    match c {
        '\'' => "'\\''".to_string(),
        '"' => "'\"'".to_string(),
        c => {
            let q = quote(&c.to_string());
            format!("'{}'", &q[1..q.len() - 1])
        }
    }
}

/// `encoding/json`'s scanner refuses input nested deeper than this (`maxNestingDepth`), both
/// in `Unmarshal` and in a `Decoder`.
const MAX_NESTING_DEPTH: usize = 10000;

/// Reads UTF-8 text; `pos` is a byte offset. Decoding to a `Vec<char>` first cost a third
/// of the read of a half-megabyte schema (its memory had to be found and cleared).
struct Parser<'a> {
    text: &'a str,
    pos: usize,
    /// Objects and arrays open around the current position.
    depth: usize,
}

type R<T> = Result<T, JsonError>;

/// Why `encoding/json` refused the text, in its words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JsonError {
    /// Go's `json.SyntaxError` for a character where none may be.
    #[error("{message}")]
    Syntax { message: String },
    /// Go's `json.SyntaxError` for input that ends inside a value (a `json.Decoder` reports
    /// this one as `EOF` or `unexpected EOF` instead).
    #[error("unexpected end of JSON input")]
    UnexpectedEnd,
    /// Go's `json.UnmarshalTypeError` for a number too large for a float64.
    #[error("json: cannot unmarshal number {number} into Go value of type float64")]
    NumberRange { number: String },
}

fn eof() -> JsonError {
    JsonError::UnexpectedEnd
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        match self.text.as_bytes().get(self.pos) {
            Some(&b) if b < 0x80 => Some(b as char),
            Some(_) => self.text[self.pos..].chars().next(),
            None => None,
        }
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\n' | '\r')) {
            self.pos += 1;
        }
    }

    fn bad(&self, c: char, context: &str) -> JsonError {
        JsonError::Syntax {
            message: format!("invalid character {} {context}", quote_char(c)),
        }
    }

    fn next_or_eof(&mut self) -> R<char> {
        let c = self.peek().ok_or_else(eof)?;
        self.pos += c.len_utf8();
        Ok(c)
    }

    fn value(&mut self) -> R<Value> {
        self.skip_ws();
        let c = self.peek().ok_or_else(eof)?;
        match c {
            '{' | '[' => {
                self.depth += 1;
                if self.depth > MAX_NESTING_DEPTH {
                    return Err(self.bad(c, "exceeded max depth"));
                }
                self.pos += 1;
                let v = gotemplate::stack::grow(|| {
                    if c == '{' {
                        self.object()
                    } else {
                        self.array()
                    }
                });
                self.depth -= 1;
                v
            }
            '"' => {
                self.pos += 1;
                self.string().map(Value::from)
            }
            't' => self.literal("true", Value::Bool(true)),
            'f' => self.literal("false", Value::Bool(false)),
            'n' => self.literal("null", Value::Nil),
            '-' | '0'..='9' => self.number(),
            c => Err(self.bad(c, "looking for beginning of value")),
        }
    }

    fn literal(&mut self, word: &str, v: Value) -> R<Value> {
        self.pos += 1;
        for expect in word.chars().skip(1) {
            let c = self.next_or_eof()?;
            if c != expect {
                return Err(self.bad(
                    c,
                    &format!("in literal {word} (expecting {})", quote_char(expect)),
                ));
            }
        }
        Ok(v)
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while matches!(self.peek(), Some('0'..='9')) {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> R<Value> {
        let start = self.pos;
        if self.peek() == Some('-') {
            self.pos += 1;
            match self.peek() {
                Some('0'..='9') => {}
                Some(c) => return Err(self.bad(c, "in numeric literal")),
                None => return Err(eof()),
            }
        }
        if self.peek() == Some('0') {
            self.pos += 1;
        } else {
            self.digits();
        }
        if self.peek() == Some('.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(match self.peek() {
                    Some(c) => self.bad(c, "after decimal point in numeric literal"),
                    None => eof(),
                });
            }
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some('+' | '-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(match self.peek() {
                    Some(c) => self.bad(c, "in exponent of numeric literal"),
                    None => eof(),
                });
            }
        }
        let text = &self.text[start..self.pos];
        let f: f64 = text.parse().map_err(|_| eof())?;
        if f.is_infinite() {
            return Err(JsonError::NumberRange {
                number: text.to_string(),
            });
        }
        Ok(Value::Float(f))
    }

    fn hex4(&mut self) -> R<u32> {
        let mut n = 0;
        for _ in 0..4 {
            let c = self.next_or_eof()?;
            let d = c
                .to_digit(16)
                .ok_or_else(|| self.bad(c, "in \\u hexadecimal character escape"))?;
            n = n * 16 + d;
        }
        Ok(n)
    }

    fn string(&mut self) -> R<String> {
        let mut out = String::new();
        loop {
            // A run of plain characters is copied at once: a schema document of half a
            // megabyte is mostly such runs.
            // (No byte of a multi-byte UTF-8 sequence is below 0x80.)
            let rest = &self.text.as_bytes()[self.pos..];
            let run = rest
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                .unwrap_or(rest.len());
            out.push_str(&self.text[self.pos..self.pos + run]);
            self.pos += run;
            let c = self.next_or_eof()?;
            match c {
                '"' => return Ok(out),
                '\\' => {
                    let e = self.next_or_eof()?;
                    match e {
                        '"' | '\\' | '/' => out.push(e),
                        'b' => out.push('\u{8}'),
                        'f' => out.push('\u{c}'),
                        'n' => out.push('\n'),
                        'r' => out.push('\r'),
                        't' => out.push('\t'),
                        'u' => {
                            let mut n = self.hex4()?;
                            if (0xD800..0xDC00).contains(&n)
                                && self.text.as_bytes().get(self.pos) == Some(&b'\\')
                                && self.text.as_bytes().get(self.pos + 1) == Some(&b'u')
                            {
                                let save = self.pos;
                                self.pos += 2;
                                let lo = self.hex4()?;
                                if (0xDC00..0xE000).contains(&lo) {
                                    n = 0x10000 + ((n - 0xD800) << 10) + (lo - 0xDC00);
                                } else {
                                    self.pos = save;
                                }
                            }
                            out.push(char::from_u32(n).unwrap_or('\u{FFFD}'));
                        }
                        e => return Err(self.bad(e, "in string escape code")),
                    }
                }
                c if (c as u32) < 0x20 => return Err(self.bad(c, "in string literal")),
                c => out.push(c),
            }
        }
    }

    fn object(&mut self) -> R<Value> {
        let map = Map::new();
        self.skip_ws();
        if self.peek() == Some('}') {
            self.pos += 1;
            return Ok(Value::Map(map));
        }
        loop {
            self.skip_ws();
            match self.next_or_eof()? {
                '"' => {}
                c => return Err(self.bad(c, "looking for beginning of object key string")),
            }
            let key = self.string()?;
            self.skip_ws();
            match self.next_or_eof()? {
                ':' => {}
                c => return Err(self.bad(c, "after object key")),
            }
            let v = self.value()?;
            map.insert(key, v);
            self.skip_ws();
            match self.next_or_eof()? {
                ',' => {}
                '}' => return Ok(Value::Map(map)),
                c => return Err(self.bad(c, "after object key:value pair")),
            }
        }
    }

    fn array(&mut self) -> R<Value> {
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(']') {
            self.pos += 1;
            return Ok(Value::List(List::new(items)));
        }
        loop {
            items.push(self.value()?);
            self.skip_ws();
            match self.next_or_eof()? {
                ',' => {}
                ']' => return Ok(Value::List(List::new(items))),
                c => return Err(self.bad(c, "after array element")),
            }
        }
    }
}

/// `json.Unmarshal(text, &interface{})`.
pub fn from_json(text: &str) -> Result<Value, JsonError> {
    let mut p = Parser {
        text,
        pos: 0,
        depth: 0,
    };
    let v = p.value()?;
    p.skip_ws();
    if let Some(c) = p.peek() {
        return Err(p.bad(c, "after top-level value"));
    }
    Ok(v)
}

/// `json.Decoder.Decode` of the first value of `text` (what follows it is left alone): the
/// value and how many bytes it took (Go's `InputOffset`).
pub fn from_json_str_prefix(text: &str) -> Result<(Value, usize), JsonError> {
    let mut p = Parser {
        text,
        pos: 0,
        depth: 0,
    };
    let v = p.value()?;
    Ok((v, p.pos))
}

/// [`from_json_str_prefix`] over characters; how many characters it took.
pub fn from_json_prefix(chars: &[char]) -> Result<(Value, usize), JsonError> {
    let text: String = chars.iter().collect();
    let (v, used) = from_json_str_prefix(&text)?;
    Ok((v, text[..used].chars().count()))
}

/// The kind word `encoding/json` uses in "cannot unmarshal KIND into Go value" errors.
pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Bool(_) => "bool",
        Value::Int(..) | Value::Float(_) => "number",
        Value::String(_) => "string",
        Value::List(_) => "array",
        _ => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_say_what_go_says() {
        assert_eq!(
            from_json("1e999").unwrap_err(),
            JsonError::NumberRange {
                number: "1e999".into()
            }
        );
        assert_eq!(
            from_json("1e999").unwrap_err().to_string(),
            "json: cannot unmarshal number 1e999 into Go value of type float64"
        );
        assert_eq!(from_json("[1,").unwrap_err(), JsonError::UnexpectedEnd);
        assert_eq!(
            from_json("[1,").unwrap_err().to_string(),
            "unexpected end of JSON input"
        );
        assert_eq!(
            from_json("{} x").unwrap_err().to_string(),
            "invalid character 'x' after top-level value"
        );
    }
}
