//! The data-driven case files under `tests/cases/` (format: `tests/cases/yaml/read/README.md`).

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use gotemplate::Value;

pub struct Case {
    pub file: String,
    pub name: String,
    pub input: Vec<u8>,
    /// A known divergence from Go (reported, not failed).
    pub gap: bool,
    /// Expected sections in file order: (name, body).
    pub sections: Vec<(String, String)>,
}

impl Case {
    pub fn section(&self, name: &str) -> Option<&str> {
        self.sections
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.as_str())
    }
}

fn unescape(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 >= b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        i += 1;
        match b[i] {
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'n' => out.push(b'\n'),
            b'\\' => out.push(b'\\'),
            b'x' => {
                out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
                i += 2;
            }
            b'u' => {
                let c = char::from_u32(u32::from_str_radix(&s[i + 1..i + 5], 16).unwrap()).unwrap();
                out.extend_from_slice(c.to_string().as_bytes());
                i += 4;
            }
            other => {
                out.push(b'\\');
                out.push(other);
            }
        }
        i += 1;
    }
    out
}

pub fn parse_cases(path: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(path).unwrap();
    let file = path.file_name().unwrap().to_string_lossy().into_owned();
    let mut cases: Vec<Case> = Vec::new();
    // (header words, body)
    let mut blocks: Vec<(Vec<String>, String)> = Vec::new();
    for line in text.split_inclusive('\n') {
        if let Some(h) = line.strip_prefix("@@@ ") {
            blocks.push((
                h.split_whitespace().map(str::to_string).collect(),
                String::new(),
            ));
        } else if let Some(last) = blocks.last_mut() {
            last.1.push_str(line);
        }
    }
    for (words, mut body) in blocks {
        let flags = &words[1..];
        if words[0] == "case" {
            let flags = &flags[1..];
            if flags.iter().any(|f| f == "noeol") {
                body.pop();
            }
            let input = if flags.iter().any(|f| f == "escaped") {
                unescape(&body)
            } else {
                body.into_bytes()
            };
            let gap = flags.iter().any(|f| f == "gap");
            cases.push(Case {
                file: file.clone(),
                name: words[1].clone(),
                input,
                gap,
                sections: Vec::new(),
            });
        } else {
            if flags.iter().any(|f| f == "noeol") {
                body.pop();
            }
            cases
                .last_mut()
                .unwrap()
                .sections
                .push((words[0].clone(), body));
        }
    }
    cases
}

pub fn case_files(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cases")
        .join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    files
}

pub fn dump_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f || (0x80..0xa0).contains(&(c as u32)) => {
                out.push_str(&format!("\\u{{{:04X}}}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)`.
pub fn go_g(f: f64) -> String {
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let s = format!("{:e}", f.abs());
    let (mant, exp) = s.split_once('e').unwrap();
    let exp: i32 = exp.parse().unwrap();
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let nd = digits.len() as i32;
    let sign = if f < 0.0 { "-" } else { "" };
    if !(-4..6).contains(&exp) {
        let mut m = digits[..1].to_string();
        if nd > 1 {
            m.push('.');
            m.push_str(&digits[1..]);
        }
        format!(
            "{sign}{m}e{}{:02}",
            if exp < 0 { '-' } else { '+' },
            exp.abs()
        )
    } else if exp >= 0 {
        let int_len = (exp + 1) as usize;
        if digits.len() <= int_len {
            format!("{sign}{digits}{}", "0".repeat(int_len - digits.len()))
        } else {
            format!("{sign}{}.{}", &digits[..int_len], &digits[int_len..])
        }
    } else {
        format!("{sign}0.{}{digits}", "0".repeat((-exp - 1) as usize))
    }
}

/// The canonical dump the Go oracle prints.
pub fn dump(v: &Value) -> String {
    match v {
        Value::Nil | Value::Invalid => "nil".into(),
        Value::Bool(b) => format!("bool({b})"),
        Value::Float(f) => format!("float64({})", go_g(*f)),
        Value::String(s) => dump_str(s),
        Value::List(l) => {
            let parts: Vec<String> = l.items().iter().map(dump).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::Map(m) => {
            let parts: Vec<String> = m
                .entries()
                .iter()
                .map(|(k, v)| format!("{}: {}", dump_str(k), dump(v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        other => format!("UNEXPECTED({other:?})"),
    }
}
