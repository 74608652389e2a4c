//! Sprig's `semverCompare`: Masterminds/semver v3 versions and constraints (`>=1.2`, `~1.2`,
//! `^1`, `1.x`, `1.2 - 1.4`, `a, b`, `a || b`), with its rule that a prerelease version only
//! satisfies constraints that mention a prerelease.

use std::cmp::Ordering;
use std::rc::Rc;
use std::sync::LazyLock;

use gotemplate::{ArgType, Field, Func, FuncError, FuncMap, IntKind, MarshalError, Object, Value};
use regex::Regex;

use super::{def, s};

#[derive(Clone, Debug, Default)]
struct Version {
    major: u64,
    minor: u64,
    patch: u64,
    pre: String,
    /// Build metadata (after `+`); not compared.
    metadata: String,
}

const ERR_INVALID: &str = "invalid semantic version";

const CV: &str = r"v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?";
const OPS: &str = r"=||!=|>|<|>=|=>|<=|=<|~|~>|\^";
const WS: &str = r"[\t\n\f\r ]";

static CONSTRAINT_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"^{WS}*({OPS}){WS}*({CV}){WS}*$")).unwrap());
static RANGE_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"{WS}*({CV}){WS}+-{WS}+({CV}){WS}*")).unwrap());
static FIND_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"({OPS}){WS}*({CV})")).unwrap());
static VALID_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"^({WS}*({OPS}){WS}*({CV}){WS}*)((?:{WS}+|,{WS}*)({OPS}){WS}*({CV}){WS}*)*$"
    ))
    .unwrap()
});

/// Masterminds/semver's `NewVersion`: its regular expression
/// `^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?$`
/// read by hand (each part is told by the character that starts it; compiling the expression
/// cost more than a whole chart's metadata), then its checks of the parts.
fn parse_version(text: &str) -> Result<Version, String> {
    let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
    let mut rest = text.strip_prefix('v').unwrap_or(text);
    let n = digits(rest);
    if n == 0 {
        return Err(ERR_INVALID.to_string());
    }
    let mut numbers = [Some(&rest[..n]), None, None];
    rest = &rest[n..];
    for number in &mut numbers[1..] {
        let Some(after) = rest.strip_prefix('.') else {
            break;
        };
        let n = digits(after);
        if n == 0 {
            break;
        }
        *number = Some(&after[..n]);
        rest = &after[n..];
    }
    // Dot-separated identifiers of `[0-9A-Za-z-]`, none empty.
    let identifiers = |s: &str| -> Option<usize> {
        let n = s
            .bytes()
            .take_while(|&b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
            .count();
        let ids = &s[..n];
        (n > 0 && !ids.starts_with('.') && !ids.ends_with('.') && !ids.contains("..")).then_some(n)
    };
    let mut pre = "";
    if let Some(after) = rest.strip_prefix('-') {
        let n = identifiers(after).ok_or(ERR_INVALID)?;
        pre = &after[..n];
        rest = &after[n..];
    }
    let mut metadata = "";
    if let Some(after) = rest.strip_prefix('+') {
        let n = identifiers(after).ok_or(ERR_INVALID)?;
        metadata = &after[..n];
        rest = &after[n..];
    }
    if !rest.is_empty() {
        return Err(ERR_INVALID.to_string());
    }
    let num = |part: Option<&str>| -> Result<u64, String> {
        part.map_or(Ok(0), |t| {
            t.parse::<u64>()
                .map_err(|_| {
                    format!(
                        "error parsing version segment: strconv.ParseUint: parsing {t:?}: value out of range"
                    )
                })
        })
    };
    for part in pre.split('.').filter(|_| !pre.is_empty()) {
        if part.len() > 1 && part.starts_with('0') && part.bytes().all(|b| b.is_ascii_digit()) {
            return Err("version segment starts with 0".to_string());
        }
    }
    Ok(Version {
        major: num(numbers[0])?,
        minor: num(numbers[1])?,
        patch: num(numbers[2])?,
        pre: pre.to_string(),
        metadata: metadata.to_string(),
    })
}

fn compare_pre_part(s: &str, o: &str) -> Ordering {
    if s == o {
        return Ordering::Equal;
    }
    if s.is_empty() {
        return Ordering::Less;
    }
    if o.is_empty() {
        return Ordering::Greater;
    }
    match (s.parse::<u64>(), o.parse::<u64>()) {
        (Err(_), Err(_)) => s.cmp(o),
        (Err(_), Ok(_)) => Ordering::Greater,
        (Ok(_), Err(_)) => Ordering::Less,
        (Ok(a), Ok(b)) => a.cmp(&b),
    }
}

fn compare(v: &Version, o: &Version) -> Ordering {
    let base = (v.major, v.minor, v.patch).cmp(&(o.major, o.minor, o.patch));
    if base != Ordering::Equal {
        return base;
    }
    match (v.pre.is_empty(), o.pre.is_empty()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => {
            let sp: Vec<&str> = v.pre.split('.').collect();
            let op: Vec<&str> = o.pre.split('.').collect();
            for i in 0..sp.len().max(op.len()) {
                let d = compare_pre_part(
                    sp.get(i).copied().unwrap_or(""),
                    op.get(i).copied().unwrap_or(""),
                );
                if d != Ordering::Equal {
                    return d;
                }
            }
            Ordering::Equal
        }
    }
}

struct Constraint {
    con: Version,
    op: String,
    dirty: bool,
    minor_dirty: bool,
    patch_dirty: bool,
}

fn is_x(s: &str) -> bool {
    matches!(s, "x" | "X" | "*")
}

fn parse_constraint(text: &str) -> Result<Constraint, String> {
    let m = CONSTRAINT_RE
        .captures(text)
        .ok_or_else(|| format!("improper constraint: {text}"))?;
    let g = |i: usize| m.get(i).map(|x| x.as_str()).unwrap_or("");
    let (major, minor, patch, pre) = (g(3), g(4), g(5), g(6));
    let (mut dirty, mut minor_dirty, mut patch_dirty) = (false, false, false);
    let ver = if is_x(major) || major.is_empty() {
        dirty = true;
        format!("0.0.0{pre}")
    } else if is_x(minor.trim_start_matches('.')) || minor.is_empty() {
        dirty = true;
        minor_dirty = true;
        format!("{major}.0.0{pre}")
    } else if is_x(patch.trim_start_matches('.')) || patch.is_empty() {
        dirty = true;
        patch_dirty = true;
        format!("{major}{minor}.0{pre}")
    } else {
        g(2).to_string()
    };
    let con = parse_version(&ver).map_err(|_| "constraint Parser Error".to_string())?;
    Ok(Constraint {
        con,
        op: g(1).to_string(),
        dirty,
        minor_dirty,
        patch_dirty,
    })
}

fn parse_constraints(text: &str) -> Result<Vec<Vec<Constraint>>, String> {
    // Rewrite hyphen ranges `a - b` into `>= a, <= b`.
    let mut rewritten = text.to_string();
    for caps in RANGE_RE.captures_iter(text) {
        let whole = caps.get(0).unwrap().as_str();
        let to = format!(">= {}, <= {}", &caps[1], &caps[11]);
        rewritten = rewritten.replacen(whole, &to, 1);
    }
    rewritten
        .split("||")
        .map(|seg| {
            if !VALID_RE.is_match(seg) {
                return Err(format!("improper constraint: {seg}"));
            }
            let found: Vec<&str> = FIND_RE.find_iter(seg).map(|m| m.as_str()).collect();
            let found = if found.is_empty() { vec![seg] } else { found };
            found.into_iter().map(parse_constraint).collect()
        })
        .collect()
}

fn tilde(v: &Version, c: &Constraint) -> bool {
    if compare(v, &c.con) == Ordering::Less {
        return false;
    }
    if c.con.major == 0 && c.con.minor == 0 && c.con.patch == 0 && !c.minor_dirty && !c.patch_dirty
    {
        return true;
    }
    if v.major != c.con.major {
        return false;
    }
    v.minor == c.con.minor || c.minor_dirty
}

fn check(v: &Version, c: &Constraint) -> bool {
    let con = &c.con;
    if c.op == "!=" {
        if c.dirty {
            if !v.pre.is_empty() && con.pre.is_empty() {
                return false;
            }
            if con.major != v.major {
                return true;
            }
            if con.minor != v.minor && !c.minor_dirty {
                return true;
            } else if c.minor_dirty {
                return false;
            } else if con.patch != v.patch && !c.patch_dirty {
                return true;
            } else if c.patch_dirty {
                if !v.pre.is_empty() || !con.pre.is_empty() {
                    return compare_pre_release(&v.pre, &con.pre) != Ordering::Equal;
                }
                return false;
            }
        }
        return compare(v, con) != Ordering::Equal;
    }
    if !v.pre.is_empty() && con.pre.is_empty() {
        return false;
    }
    match c.op.as_str() {
        ">" => {
            if !c.dirty {
                return compare(v, con) == Ordering::Greater;
            }
            if v.major != con.major {
                return v.major > con.major;
            }
            if c.minor_dirty {
                return false;
            }
            if c.patch_dirty {
                return v.minor > con.minor;
            }
            compare(v, con) == Ordering::Greater
        }
        "<" => compare(v, con) == Ordering::Less,
        ">=" | "=>" => compare(v, con) != Ordering::Less,
        "<=" | "=<" => {
            if !c.dirty {
                return compare(v, con) != Ordering::Greater;
            }
            if v.major > con.major {
                return false;
            }
            !(v.major == con.major && v.minor > con.minor && !c.minor_dirty)
        }
        "~" | "~>" => tilde(v, c),
        "^" => {
            if compare(v, con) == Ordering::Less {
                return false;
            }
            if con.major > 0 || c.minor_dirty {
                return v.major == con.major;
            }
            if v.major > 0 {
                return false;
            }
            if con.minor > 0 || c.patch_dirty {
                return v.minor == con.minor;
            }
            if v.minor > 0 {
                return false;
            }
            con.patch == v.patch
        }
        _ => {
            if c.dirty {
                return tilde(v, c);
            }
            compare(v, con) == Ordering::Equal
        }
    }
}

fn compare_pre_release(a: &str, b: &str) -> Ordering {
    let va = Version {
        pre: a.to_string(),
        ..Version::default()
    };
    let vb = Version {
        pre: b.to_string(),
        ..va.clone()
    };
    if a.is_empty() || b.is_empty() {
        return a.cmp(b);
    }
    compare(&va, &vb)
}

/// Whether `text` is a version Masterminds' `semver.NewVersion` accepts.
pub fn is_valid_version(text: &str) -> bool {
    parse_version(text).is_ok()
}

/// Why `semverCompare` could not compare: which argument Masterminds/semver refused, and its
/// message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompareError {
    #[error("{message}")]
    Constraint { constraint: String, message: String },
    #[error("{message}")]
    Version { version: String, message: String },
}

/// Sprig's `semverCompare CONSTRAINT VERSION`.
pub fn semver_compare(constraint: &str, version: &str) -> Result<bool, CompareError> {
    let ors = parse_constraints(constraint).map_err(|message| CompareError::Constraint {
        constraint: constraint.to_string(),
        message,
    })?;
    let v = parse_version(version).map_err(|message| CompareError::Version {
        version: version.to_string(),
        message,
    })?;
    Ok(ors.iter().any(|ands| ands.iter().all(|c| check(&v, c))))
}

/// `*semver.Version`, what Sprig's `semver` returns.
struct VersionObject {
    v: Version,
    original: String,
}

impl VersionObject {
    fn parse(text: &str) -> Result<VersionObject, String> {
        Ok(VersionObject {
            v: parse_version(text)?,
            original: text.to_string(),
        })
    }

    fn string(&self) -> String {
        let mut out = format!("{}.{}.{}", self.v.major, self.v.minor, self.v.patch);
        if !self.v.pre.is_empty() {
            out.push('-');
            out.push_str(&self.v.pre);
        }
        if !self.v.metadata.is_empty() {
            out.push('+');
            out.push_str(&self.v.metadata);
        }
        out
    }

    /// The version behind a `*semver.Version` argument.
    fn of(v: &Value) -> Option<Version> {
        let Value::Object(o) = v else { return None };
        if o.type_name() != "*semver.Version" {
            return None;
        }
        let text = o.field(SELF_FIELD)?;
        parse_version(text.as_str()?).ok()
    }
}

/// Hidden field (not an identifier, so no template can name it) giving the version back as
/// its `String()`, which parses to the same version (a deep copy's `0.0.0` included).
const SELF_FIELD: &str = "\0semver";

impl Object for VersionObject {
    fn type_name(&self) -> &str {
        "*semver.Version"
    }

    fn field(&self, name: &str) -> Option<Value> {
        (name == SELF_FIELD).then(|| Value::from(self.string()))
    }

    fn method(&self, name: &str) -> Option<Rc<Func>> {
        let u = |n: u64| Value::Int(n as i64, IntKind::Uint64);
        let (result, value): (&'static str, Value) = match name {
            "Major" => ("uint64", u(self.v.major)),
            "Minor" => ("uint64", u(self.v.minor)),
            "Patch" => ("uint64", u(self.v.patch)),
            "Prerelease" => ("string", Value::str(&self.v.pre)),
            "Metadata" => ("string", Value::str(&self.v.metadata)),
            "Original" => ("string", Value::str(&self.original)),
            "String" => ("string", Value::from(self.string())),
            "Compare" | "LessThan" | "GreaterThan" | "Equal" | "LessThanEqual"
            | "GreaterThanEqual" => {
                let me = self.v.clone();
                let op = name.to_string();
                let result = if name == "Compare" { "int" } else { "bool" };
                let mut f = Func::new(vec![ArgType::Any], None, result, move |_, a| {
                    let other = VersionObject::of(&a[0]).ok_or_else(|| {
                        FuncError::new(format!(
                            "wrong type for value; expected *semver.Version; got {}",
                            a[0].type_name()
                        ))
                    })?;
                    let c = compare(&me, &other);
                    Ok(match op.as_str() {
                        "Compare" => Value::int(c as i64),
                        "LessThan" => Value::Bool(c.is_lt()),
                        "GreaterThan" => Value::Bool(c.is_gt()),
                        "LessThanEqual" => Value::Bool(c.is_le()),
                        "GreaterThanEqual" => Value::Bool(c.is_ge()),
                        _ => Value::Bool(c.is_eq()),
                    })
                });
                f.returns_error = false;
                return Some(Rc::new(f));
            }
            _ => return None,
        };
        let mut f = Func::new(vec![], None, result, move |_, _| Ok(value.clone()));
        f.returns_error = false;
        Some(Rc::new(f))
    }

    fn format(&self) -> String {
        self.string()
    }

    fn stringer(&self) -> Option<String> {
        Some(self.string())
    }

    /// `Version.MarshalJSON`: its `String()` as a JSON string (the characters a version may
    /// hold need no escaping).
    fn marshal_json(&self) -> Option<Result<String, MarshalError>> {
        Some(Ok(format!("\"{}\"", self.string())))
    }

    fn marshal_text(&self) -> Option<Result<String, MarshalError>> {
        Some(Ok(self.string()))
    }

    fn fields(&self) -> Option<Vec<Field>> {
        let u = |n: u64| Value::Int(n as i64, IntKind::Uint64);
        Some(vec![
            Field::new("major", u(self.v.major)),
            Field::new("minor", u(self.v.minor)),
            Field::new("patch", u(self.v.patch)),
            Field::new("pre", Value::str(&self.v.pre)),
            Field::new("metadata", Value::str(&self.v.metadata)),
            Field::new("original", Value::str(&self.original)),
        ])
    }

    /// copystructure copies exported fields only, and `semver.Version` has none: the copy is
    /// the zero version.
    fn deep_copy(&self) -> Option<Value> {
        Some(Value::Object(Rc::new(VersionObject {
            v: Version::default(),
            original: String::new(),
        })))
    }
}

pub(super) fn register(map: &mut FuncMap) {
    def(
        map,
        "semver",
        &[ArgType::String],
        None,
        "*semver.Version",
        true,
        |_, a| {
            VersionObject::parse(s(&a, 0))
                .map(|v| Value::Object(Rc::new(v)))
                .map_err(FuncError::new)
        },
    );
    def(
        map,
        "semverCompare",
        &[ArgType::String, ArgType::String],
        None,
        "bool",
        true,
        |_, a| {
            semver_compare(s(&a, 0), s(&a, 1))
                .map(Value::Bool)
                .map_err(|e| FuncError::new(e.to_string()))
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_error_names_the_argument() {
        let e = semver_compare(">= 1.0", "x.y").unwrap_err();
        assert!(matches!(&e, CompareError::Version { version, .. } if version == "x.y"));
        assert_eq!(e.to_string(), parse_version("x.y").err().unwrap());
        let e = semver_compare("~> 1.0, ~> 2.0 foo", "1.0.0").unwrap_err();
        assert!(
            matches!(&e, CompareError::Constraint { constraint, .. } if constraint.ends_with("foo"))
        );
        assert_eq!(
            e.to_string(),
            parse_constraints("~> 1.0, ~> 2.0 foo").err().unwrap()
        );
    }
}
