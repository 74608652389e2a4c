//! Shared by the data-driven tests: the value literal language of `fmt_cases.txt` and
//! `builtin_cases.txt` (documented at the top of those files).

#![allow(dead_code)]

use std::rc::Rc;

use gotemplate::{ArgType, Func, FuncError, IntKind, List, Map, Value};

/// Go's `strconv.Unquote` of a double-quoted string from a case file, as bytes.
pub fn unquote(s: &str) -> Vec<u8> {
    testkit::go_unquote(s.as_bytes()).unwrap_or_else(|e| panic!("{e}"))
}

pub fn unquote_str(s: &str) -> String {
    String::from_utf8(unquote(s)).expect("valid UTF-8")
}

/// The fixed Go funcs `fn:NAME` stands for.
pub fn test_func(name: &str) -> Func {
    let int = ArgType::Int(IntKind::Int);
    let mut f = match name {
        "add" => Func::new(vec![int, int], None, "int", |_, a| match (&a[0], &a[1]) {
            (Value::Int(x, _), Value::Int(y, _)) => Ok(Value::int(x + y)),
            _ => Err(FuncError::new("bad args")),
        }),
        "fail" => Func::new(vec![], None, "string", |_, _| Err(FuncError::new("boom"))),
        "join" => Func::new(vec![ArgType::String], Some(int), "string", |_, a| {
            let xs = Value::List(List::typed(a[1..].to_vec(), "int"));
            Ok(Value::from(gotemplate::fmt::sprint(&[a[0].clone(), xs])))
        }),
        "two" => Func::new(
            vec![ArgType::String, ArgType::Any],
            None,
            "string",
            |_, a| {
                Ok(Value::from(gotemplate::fmt::sprint(&[
                    a[0].clone(),
                    Value::str("/"),
                    a[1].clone(),
                ])))
            },
        ),
        "i8" => Func::new(vec![ArgType::Int(IntKind::Int8)], None, "int8", |_, a| {
            Ok(a[0].clone())
        }),
        "lst" => Func::new(vec![ArgType::List], None, "int", |_, a| {
            Ok(Value::int(a[0].as_list().map_or(0, |l| l.len()) as i64))
        }),
        _ => panic!("unknown test func {name}"),
    };
    f.returns_error = name == "fail";
    f
}

struct Parser<'a> {
    s: &'a str,
    i: usize,
}

impl Parser<'_> {
    fn rest(&self) -> &str {
        &self.s[self.i..]
    }

    fn ws(&mut self) {
        while self.rest().starts_with([' ', ',']) {
            self.i += 1;
        }
    }

    fn eat(&mut self, p: &str) -> bool {
        if self.rest().starts_with(p) {
            self.i += p.len();
            true
        } else {
            false
        }
    }

    fn quoted(&mut self) -> Vec<u8> {
        let b = self.rest().as_bytes();
        let mut j = 1;
        while b[j] != b'"' {
            if b[j] == b'\\' {
                j += 1;
            }
            j += 1;
        }
        let q = &self.rest()[..=j];
        let out = unquote(q);
        self.i += j + 1;
        out
    }

    fn value(&mut self) -> Value {
        self.ws();
        if self.eat("nil") {
            return Value::Nil;
        }
        if self.eat("missing") {
            return Value::Invalid;
        }
        if self.eat("true") {
            return Value::Bool(true);
        }
        if self.eat("false") {
            return Value::Bool(false);
        }
        if self.eat("+Inf") {
            return Value::Float(f64::INFINITY);
        }
        if self.eat("-Inf") {
            return Value::Float(f64::NEG_INFINITY);
        }
        if self.eat("NaN") {
            return Value::Float(f64::NAN);
        }
        if self.eat("fn:") {
            let n = self
                .rest()
                .bytes()
                .take_while(|c| c.is_ascii_alphanumeric())
                .count();
            let name = &self.rest()[..n];
            let f = test_func(name);
            self.i += n;
            return Value::Func(Rc::new(f));
        }
        if self.rest().starts_with('"') {
            return Value::from(String::from_utf8(self.quoted()).expect("valid UTF-8"));
        }
        if self.eat("b") {
            return Value::Bytes(Rc::from(self.quoted()));
        }
        if self.eat("[]string") {
            return Value::List(List::typed(self.list(), "string"));
        }
        if self.eat("[]int") {
            return Value::List(List::typed(self.list(), "int"));
        }
        if self.rest().starts_with('[') {
            return Value::list(self.list());
        }
        if self.eat("{") {
            let m = Map::new();
            loop {
                self.ws();
                if self.eat("}") {
                    return Value::Map(m);
                }
                let k = String::from_utf8(self.quoted()).unwrap();
                self.ws();
                assert!(self.eat(":"));
                let v = self.value();
                m.insert(k, v);
            }
        }
        self.number()
    }

    fn list(&mut self) -> Vec<Value> {
        assert!(self.eat("["), "expected [ at {}", self.rest());
        let mut out = Vec::new();
        loop {
            self.ws();
            if self.eat("]") {
                return out;
            }
            out.push(self.value());
        }
    }

    fn number(&mut self) -> Value {
        let b = self.rest().as_bytes();
        let mut j = 0;
        while j < b.len() && b"+-0123456789.eE".contains(&b[j]) {
            if (b[j] == b'+' || b[j] == b'-') && j > 0 && b[j - 1] != b'e' && b[j - 1] != b'E' {
                break;
            }
            j += 1;
        }
        let num = &self.rest()[..j];
        let k = j;
        while j < b.len() && b[j].is_ascii_alphanumeric() {
            j += 1;
        }
        let suf = &self.rest()[k..j];
        assert!(!num.is_empty(), "bad literal at {}", self.rest());
        let v = if suf == "f" || (suf.is_empty() && num.contains(['.', 'e', 'E'])) {
            Value::Float(num.parse().unwrap())
        } else if suf.starts_with('u') {
            let u: u64 = num.parse().unwrap();
            let kind = match suf {
                "u" => IntKind::Uint,
                "u8" => IntKind::Uint8,
                "u16" => IntKind::Uint16,
                "u32" => IntKind::Uint32,
                "u64" => IntKind::Uint64,
                "uptr" => IntKind::Uintptr,
                _ => panic!("bad suffix {suf}"),
            };
            Value::Int(u as i64, kind)
        } else {
            let n: i64 = num.parse().unwrap();
            let kind = match suf {
                "" => IntKind::Int,
                "i8" => IntKind::Int8,
                "i16" => IntKind::Int16,
                "i32" => IntKind::Int32,
                "i64" => IntKind::Int64,
                _ => panic!("bad suffix {suf}"),
            };
            Value::Int(n, kind)
        };
        self.i += j;
        v
    }
}

/// Parses an argument list literal `[a, b, ...]`.
pub fn parse_args(s: &str) -> Vec<Value> {
    let mut p = Parser { s, i: 0 };
    let v = p.list();
    p.ws();
    assert_eq!(p.i, s.len(), "trailing input in {s}");
    v
}

/// The data lines of a case file, split on tabs.
pub fn cases(text: &str) -> Vec<Vec<&str>> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split('\t').collect())
        .collect()
}
