//! istioctl's tree paths (`operator/pkg/util/path.go`): `a.b.[key:value].[N].[:value]`, with `\.`
//! keeping a dot inside an element, and the element predicates tpath decides by.

use std::sync::OnceLock;

use regex::Regex;

/// util.PathFromString: `filepath.Clean`, one leading and one trailing dot trimmed, split at
/// unescaped dots, `\.` unescaped, and `node[expr]` split into `node` and `[expr]`.
pub(crate) fn path_from_string(path: &str) -> Vec<String> {
    let cleaned = clean(path);
    let p = cleaned.strip_prefix('.').unwrap_or(&cleaned);
    let p = p.strip_suffix('.').unwrap_or(p);
    let mut out = Vec::new();
    for part in split_escaped(p, '.') {
        if part.is_empty() {
            continue;
        }
        let part = part.replace("\\.", ".");
        match part.find('[') {
            Some(n) if n > 0 => {
                out.push(part[..n].to_string());
                out.push(part[n..].to_string());
            }
            _ => out.push(part),
        }
    }
    out
}

/// Go's `path/filepath.Clean` on Unix: lexical clean-up of `/`-separated names (`//`, `.` and
/// `..` elements), which istioctl runs on every overlay path.
pub(crate) fn clean(path: &str) -> String {
    if path.is_empty() {
        return ".".to_string();
    }
    let p = path.as_bytes();
    let n = p.len();
    let rooted = p[0] == b'/';
    let mut out: Vec<u8> = Vec::with_capacity(n);
    let (mut r, mut dotdot) = (0, 0);
    if rooted {
        out.push(b'/');
        r = 1;
        dotdot = 1;
    }
    while r < n {
        if p[r] == b'/' || (p[r] == b'.' && (r + 1 == n || p[r + 1] == b'/')) {
            // An empty or `.` element.
            r += 1;
        } else if p[r] == b'.' && p[r + 1] == b'.' && (r + 2 == n || p[r + 2] == b'/') {
            r += 2;
            if out.len() > dotdot {
                out.pop();
                while out.len() > dotdot && out[out.len() - 1] != b'/' {
                    out.pop();
                }
                // Go backs up to (not past) the separator, then drops it.
                if out.len() > dotdot {
                    out.pop();
                }
            } else if !rooted {
                if !out.is_empty() {
                    out.push(b'/');
                }
                out.extend_from_slice(b"..");
                dotdot = out.len();
            }
        } else {
            if (rooted && out.len() != 1) || (!rooted && !out.is_empty()) {
                out.push(b'/');
            }
            while r < n && p[r] != b'/' {
                out.push(p[r]);
                r += 1;
            }
        }
    }
    if out.is_empty() {
        return ".".to_string();
    }
    // Only whole ASCII bytes were removed, so the rest is still UTF-8.
    String::from_utf8(out).expect("cleaning keeps UTF-8")
}

/// util.splitEscaped: split at `sep` unless the previous character is a backslash.
pub(crate) fn split_escaped(s: &str, sep: char) -> Vec<&str> {
    if s.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut prev: Option<char> = None;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        if c == sep && (i == 0 || prev != Some('\\')) {
            out.push(&s[start..i]);
            start = i + c.len_utf8();
        }
        prev = Some(c);
    }
    out.push(&s[start..]);
    out
}

pub(crate) fn remove_brackets(pe: &str) -> Option<&str> {
    if pe.starts_with('[') && pe.ends_with(']') && pe.len() >= 2 {
        Some(&pe[1..pe.len() - 1])
    } else {
        None
    }
}

fn valid_key(s: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new("^[a-zA-Z0-9_-]*$").expect("valid regex"))
        .is_match(s)
}

/// `[key:value]`.
pub(crate) fn is_kv(pe: &str) -> bool {
    let Some(inner) = remove_brackets(pe) else {
        return false;
    };
    let kv = split_escaped(inner, ':');
    kv.len() == 2 && !kv[0].is_empty() && !kv[1].is_empty() && valid_key(kv[0])
}

/// `[:value]`.
fn is_v(pe: &str) -> bool {
    remove_brackets(pe).is_some_and(|v| v.len() > 1 && v.starts_with(':'))
}

/// `[N]` with N ≥ -1 (-1 appends).
pub(crate) fn is_n(pe: &str) -> bool {
    path_n(pe).is_some()
}

pub(crate) fn path_n(pe: &str) -> Option<i64> {
    let n = atoi(remove_brackets(pe)?)?;
    (n >= -1).then_some(n)
}

/// strconv.Atoi: an optional sign and decimal digits that fit an int64.
fn atoi(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<i64>().ok()
}

pub(crate) fn path_kv(pe: &str) -> Result<(String, String), String> {
    if !is_kv(pe) {
        return Err(format!("{pe} is not a valid key:value path element"));
    }
    let inner = remove_brackets(pe).expect("checked by is_kv");
    let kv = split_escaped(inner, ':');
    Ok((kv[0].to_string(), kv[1].to_string()))
}

pub(crate) fn path_v(pe: &str) -> Result<String, String> {
    if is_v(pe) {
        return Ok(remove_brackets(pe).expect("checked by is_v")[1..].to_string());
    }
    match remove_brackets(pe) {
        Some(v) if !v.is_empty() => Ok(v.to_string()),
        _ => Err(format!("{pe} is not a valid value path element")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        assert_eq!(
            path_from_string("spec.template.spec.containers.[name:istio-proxy].args[0]"),
            [
                "spec",
                "template",
                "spec",
                "containers",
                "[name:istio-proxy]",
                "args",
                "[0]"
            ]
        );
        assert_eq!(
            path_from_string("metadata.annotations.sidecar\\.istio\\.io/inject"),
            ["metadata", "annotations", "sidecar.istio.io/inject"]
        );
        assert_eq!(path_from_string(""), Vec::<String>::new());
        assert_eq!(path_from_string(".a.b."), ["a", "b"]);
    }

    #[test]
    fn clean_like_go() {
        for (input, want) in [
            ("", "."),
            ("a//b", "a/b"),
            ("a/./b/", "a/b"),
            ("a/b/../c", "a/c"),
            ("../a", "../a"),
            ("/../a", "/a"),
            ("a/..", "."),
            ("x.y/../z", "z"),
        ] {
            assert_eq!(clean(input), want, "{input}");
        }
    }

    #[test]
    fn elements() {
        assert!(is_kv("[name:foo]"));
        assert!(!is_kv("[:foo]"));
        assert!(is_n("[-1]") && is_n("[+2]") && !is_n("[-2]") && !is_n("[a]"));
        assert_eq!(path_v("[:x]").unwrap(), "x");
        assert_eq!(path_v("[x]").unwrap(), "x");
        assert!(path_v("x").is_err());
    }
}
