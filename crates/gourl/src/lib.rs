//! A port of the parts of Go's `net/url` that Helm's behaviour shows through: `url.Parse`
//! (with Go's error texts), `URL.String`, `ResolveReference`, `PathEscape`/`PathUnescape` and
//! `Hostname`. Sprig's `urlParse`/`urlJoin` and the `$ref` resolution of `values.schema.json`
//! (santhosh-tekuri/jsonschema joins references with `ResolveReference`) both sit on it.
//!
//! Mirrors Go's `net/url`. It must not know Sprig, JSON Schema or Helm.

use gotemplate::fmt::quote;

/// Go's `encoding` modes of `shouldEscape`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Path,
    PathSegment,
    Host,
    UserPassword,
    Fragment,
}

/// Go's `shouldEscape`.
fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if mode == Mode::Host
        && matches!(
            c,
            b'!' | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'['
                | b']'
                | b'<'
                | b'>'
                | b'"'
        )
    {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => return false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => {
            return match mode {
                Mode::Path => c == b'?',
                Mode::PathSegment => matches!(c, b'/' | b';' | b',' | b'?'),
                Mode::UserPassword => matches!(c, b'@' | b'/' | b'?' | b':'),
                Mode::Fragment => false,
                Mode::Host => true,
            };
        }
        _ => {}
    }
    if mode == Mode::Fragment && matches!(c, b'!' | b'(' | b')' | b'*') {
        return false;
    }
    true
}

/// Go's `escape`: the bytes `mode` wants escaped as `%XX` (upper-case hex).
pub fn escape(text: &str, mode: Mode) -> String {
    let mut out = String::with_capacity(text.len());
    for &b in text.as_bytes() {
        if should_escape(b, mode) {
            out.push_str(&format!("%{b:02X}"));
        } else {
            out.push(b as char);
        }
    }
    out
}

/// Why Go's `unescape` refused a string: its `EscapeError` or `InvalidHostError`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UnescapeError {
    /// The escape as written (`%zz`, or what is left of one at the end).
    #[error("invalid URL escape {}", quote(.0))]
    Escape(String),
    /// The character a host name may not hold.
    #[error("invalid character {} in host name", quote(.0))]
    InvalidHost(String),
}

/// Go's `*url.Error` from `url.Parse`: the URL (or the part of it) that failed and Go's reason.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("parse {}: {message}", quote(.url))]
pub struct ParseError {
    pub url: String,
    pub message: String,
}

/// Go's `unescape`.
pub fn unescape(text: &str, mode: Mode) -> Result<String, UnescapeError> {
    let b = text.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                if i + 2 >= b.len()
                    || !b[i + 1].is_ascii_hexdigit()
                    || !b[i + 2].is_ascii_hexdigit()
                {
                    let end = (i + 3).min(b.len());
                    return Err(UnescapeError::Escape(
                        String::from_utf8_lossy(&b[i..end]).into_owned(),
                    ));
                }
                let v = u8::from_str_radix(&text[i + 1..i + 3], 16).unwrap_or(0);
                if mode == Mode::Host && v < 0x80 && &text[i..i + 3] != "%25" {
                    // Go allows only %-encoded non-ASCII (and %25) in hosts.
                    if (u8::from_str_radix(&text[i + 1..i + 2], 16).unwrap_or(0)) < 8 {
                        return Err(UnescapeError::Escape(text[i..i + 3].to_string()));
                    }
                }
                out.push(v);
                i += 3;
            }
            c => {
                if mode == Mode::Host && c < 0x80 && should_escape(c, mode) {
                    return Err(UnescapeError::InvalidHost((c as char).to_string()));
                }
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// `url.PathEscape`.
pub fn path_escape(text: &str) -> String {
    escape(text, Mode::PathSegment)
}

/// `url.PathUnescape`.
pub fn path_unescape(text: &str) -> Result<String, UnescapeError> {
    unescape(text, Mode::PathSegment)
}

/// Go's `url.URL` (the fields Helm's uses reach).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Url {
    pub scheme: String,
    pub opaque: String,
    pub user: Option<(String, Option<String>)>,
    pub host: String,
    /// Decoded.
    pub path: String,
    /// The path as written, when that differs from escaping `path` the default way.
    pub raw_path: String,
    pub force_query: bool,
    pub raw_query: String,
    /// Decoded.
    pub fragment: String,
    pub raw_fragment: String,
    pub omit_host: bool,
}

fn valid_optional_port(port: &str) -> bool {
    if port.is_empty() {
        return true;
    }
    port.starts_with(':') && port[1..].bytes().all(|b| b.is_ascii_digit())
}

fn parse_host(host: &str) -> Result<String, String> {
    if host.starts_with('[') {
        let Some(i) = host.rfind(']') else {
            return Err("missing ']' in host".to_string());
        };
        let port = &host[i + 1..];
        if !valid_optional_port(port) {
            return Err(format!("invalid port {} after host", quote(port)));
        }
    } else if let Some(i) = host.rfind(':') {
        let port = &host[i..];
        if !valid_optional_port(port) {
            return Err(format!("invalid port {} after host", quote(port)));
        }
    }
    unescape(host, Mode::Host).map_err(|e| e.to_string())
}

fn valid_userinfo(s: &str) -> bool {
    s.bytes().all(|b| {
        b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'-' | b'.'
                    | b'_'
                    | b':'
                    | b'~'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
                    | b'%'
                    | b'@'
            )
    })
}

type User = Option<(String, Option<String>)>;

fn parse_authority(authority: &str) -> Result<(User, String), String> {
    let at = authority.rfind('@');
    let host = parse_host(match at {
        Some(i) => &authority[i + 1..],
        None => authority,
    })?;
    let Some(i) = at else {
        return Ok((None, host));
    };
    let info = &authority[..i];
    if !valid_userinfo(info) {
        return Err("net/url: invalid userinfo".to_string());
    }
    let user = match info.split_once(':') {
        None => (
            unescape(info, Mode::UserPassword).map_err(|e| e.to_string())?,
            None,
        ),
        Some((u, p)) => (
            unescape(u, Mode::UserPassword).map_err(|e| e.to_string())?,
            Some(unescape(p, Mode::UserPassword).map_err(|e| e.to_string())?),
        ),
    };
    Ok((Some(user), host))
}

/// Go's `url.Parse`; errors are `parse "URL": MESSAGE`.
pub fn parse(raw: &str) -> Result<Url, ParseError> {
    let (u, frag) = match raw.split_once('#') {
        Some((u, f)) => (u, Some(f)),
        None => (raw, None),
    };
    let wrap = |at: &str, message: String| ParseError {
        url: at.to_string(),
        message,
    };
    let mut url = parse_main(u).map_err(|e| wrap(u, e))?;
    if let Some(f) = frag.filter(|f| !f.is_empty()) {
        url.set_fragment(f).map_err(|e| wrap(raw, e))?;
    }
    Ok(url)
}

fn parse_main(raw: &str) -> Result<Url, String> {
    if raw.bytes().any(|b| b < b' ' || b == 0x7f) {
        return Err("net/url: invalid control character in URL".to_string());
    }
    let mut url = Url::default();
    if raw == "*" {
        url.path = "*".to_string();
        return Ok(url);
    }
    // The scheme.
    let mut rest = raw;
    for (i, c) in raw.bytes().enumerate() {
        if c.is_ascii_alphabetic() {
            continue;
        }
        if c.is_ascii_digit() || c == b'+' || c == b'-' || c == b'.' {
            if i == 0 {
                break;
            }
            continue;
        }
        if c == b':' {
            if i == 0 {
                return Err("missing protocol scheme".to_string());
            }
            url.scheme = raw[..i].to_ascii_lowercase();
            rest = &raw[i + 1..];
        }
        break;
    }
    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        url.force_query = true;
        rest = &rest[..rest.len() - 1];
    } else if let Some((r, q)) = rest.split_once('?') {
        url.raw_query = q.to_string();
        rest = r;
    }
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            url.opaque = rest.to_string();
            return Ok(url);
        }
        let segment = rest.split('/').next().unwrap_or_default();
        if segment.contains(':') {
            return Err("first path segment in URL cannot contain colon".to_string());
        }
    }
    if (!url.scheme.is_empty() || !rest.starts_with("///")) && rest.starts_with("//") {
        let authority = &rest[2..];
        let (auth, path) = match authority.find('/') {
            Some(i) => (&authority[..i], &authority[i..]),
            None => (authority, ""),
        };
        let (user, host) = parse_authority(auth)?;
        url.user = user;
        url.host = host;
        rest = path;
    } else if !url.scheme.is_empty() && rest.starts_with('/') {
        url.omit_host = true;
    }
    url.set_path(rest)?;
    Ok(url)
}

/// Go's `validEncoded`: `s` holds only what `mode` leaves as is, sub-delimiters and escapes.
fn valid_encoded(s: &str, mode: Mode) -> bool {
    s.bytes().all(|b| {
        matches!(
            b,
            b'!' | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'@'
                | b'['
                | b']'
                | b'%'
        ) || !should_escape(b, mode)
    })
}

pub fn user_string(user: &(String, Option<String>)) -> String {
    let mut out = escape(&user.0, Mode::UserPassword);
    if let Some(p) = &user.1 {
        out.push(':');
        out.push_str(&escape(p, Mode::UserPassword));
    }
    out
}

impl Url {
    /// `setPath`: the decoded path, and the written form when it is not the default one.
    fn set_path(&mut self, p: &str) -> Result<(), String> {
        self.path = unescape(p, Mode::Path).map_err(|e| e.to_string())?;
        self.raw_path = if escape(&self.path, Mode::Path) == p {
            String::new()
        } else {
            p.to_string()
        };
        Ok(())
    }

    fn set_fragment(&mut self, f: &str) -> Result<(), String> {
        self.fragment = unescape(f, Mode::Fragment).map_err(|e| e.to_string())?;
        self.raw_fragment = if escape(&self.fragment, Mode::Fragment) == f {
            String::new()
        } else {
            f.to_string()
        };
        Ok(())
    }

    /// `EscapedPath`.
    pub fn escaped_path(&self) -> String {
        if !self.raw_path.is_empty()
            && valid_encoded(&self.raw_path, Mode::Path)
            && unescape(&self.raw_path, Mode::Path).is_ok_and(|p| p == self.path)
        {
            return self.raw_path.clone();
        }
        if self.path == "*" {
            return "*".to_string();
        }
        escape(&self.path, Mode::Path)
    }

    /// `EscapedFragment`.
    fn escaped_fragment(&self) -> String {
        if !self.raw_fragment.is_empty()
            && valid_encoded(&self.raw_fragment, Mode::Fragment)
            && unescape(&self.raw_fragment, Mode::Fragment).is_ok_and(|f| f == self.fragment)
        {
            return self.raw_fragment.clone();
        }
        escape(&self.fragment, Mode::Fragment)
    }

    /// `IsAbs`.
    pub fn is_abs(&self) -> bool {
        !self.scheme.is_empty()
    }

    /// `ResolveReference`: `reference` resolved against `self` as RFC 3986 section 5.2 says.
    pub fn resolve_reference(&self, reference: &Url) -> Url {
        let mut url = reference.clone();
        if reference.scheme.is_empty() {
            url.scheme = self.scheme.clone();
        }
        if !reference.scheme.is_empty() || !reference.host.is_empty() || reference.user.is_some() {
            // The path was validly escaped, so setting it cannot fail.
            let _ = url.set_path(&resolve_path(&reference.escaped_path(), ""));
            return url;
        }
        if !reference.opaque.is_empty() {
            url.user = None;
            url.host.clear();
            url.path.clear();
            return url;
        }
        if reference.path.is_empty() && !reference.force_query && reference.raw_query.is_empty() {
            url.raw_query = self.raw_query.clone();
            if reference.fragment.is_empty() {
                url.fragment = self.fragment.clone();
                url.raw_fragment = self.raw_fragment.clone();
            }
        }
        if reference.path.is_empty() && !self.opaque.is_empty() {
            url.opaque = self.opaque.clone();
            url.user = None;
            url.host.clear();
            url.path.clear();
            return url;
        }
        url.host = self.host.clone();
        url.user = self.user.clone();
        let _ = url.set_path(&resolve_path(
            &self.escaped_path(),
            &reference.escaped_path(),
        ));
        url
    }
}

/// Go's `resolvePath`: `reference` (escaped) against `base`, dot segments removed.
fn resolve_path(base: &str, reference: &str) -> String {
    let full = if reference.is_empty() {
        base.to_string()
    } else if !reference.starts_with('/') {
        let i = base.rfind('/').map_or(0, |i| i + 1);
        format!("{}{reference}", &base[..i])
    } else {
        reference.to_string()
    };
    if full.is_empty() {
        return String::new();
    }
    let mut dst = String::from("/");
    let mut first = true;
    let mut last = "";
    for elem in full.split('/') {
        last = elem;
        match elem {
            "." => first = false,
            ".." => {
                match dst[1..].rfind('/') {
                    Some(i) => dst.truncate(i + 1),
                    None => dst.truncate(1),
                }
                first = dst.len() == 1;
            }
            _ => {
                if !first {
                    dst.push('/');
                }
                dst.push_str(elem);
                first = false;
            }
        }
    }
    if last == "." || last == ".." {
        dst.push('/');
    }
    if dst.len() > 1 && dst.as_bytes()[1] == b'/' {
        return dst[1..].to_string();
    }
    dst
}

impl std::fmt::Display for Url {
    /// `url.URL.String()`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut out = String::new();
        if !self.scheme.is_empty() {
            out.push_str(&self.scheme);
            out.push(':');
        }
        if !self.opaque.is_empty() {
            out.push_str(&self.opaque);
        } else {
            let authority = !self.scheme.is_empty() || !self.host.is_empty() || self.user.is_some();
            let omitted = self.omit_host && self.host.is_empty() && self.user.is_none();
            if authority && !omitted {
                if !self.host.is_empty() || !self.path.is_empty() || self.user.is_some() {
                    out.push_str("//");
                }
                if let Some(user) = &self.user {
                    out.push_str(&user_string(user));
                    out.push('@');
                }
                out.push_str(&escape(&self.host, Mode::Host));
            }
            let path = self.escaped_path();
            if !path.is_empty() && !path.starts_with('/') && !self.host.is_empty() {
                out.push('/');
            }
            if out.is_empty() && path.split('/').next().unwrap_or_default().contains(':') {
                out.push_str("./");
            }
            out.push_str(&path);
        }
        if self.force_query || !self.raw_query.is_empty() {
            out.push('?');
            out.push_str(&self.raw_query);
        }
        if !self.fragment.is_empty() {
            out.push('#');
            out.push_str(&self.escaped_fragment());
        }
        f.write_str(&out)
    }
}

/// `u.Hostname()`.
pub fn hostname(host: &str) -> String {
    let mut h = host;
    if let Some(i) = h.rfind(':')
        && valid_optional_port(&h[i..])
    {
        h = &h[..i];
    }
    if h.starts_with('[') && h.ends_with(']') {
        h = &h[1..h.len() - 1];
    }
    h.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn join(base: &str, reference: &str) -> String {
        let b = parse(base).unwrap();
        let r = parse(reference).unwrap();
        b.resolve_reference(&r).to_string()
    }

    // Expectations from Go's net/url (url_test.go's resolveReferenceTests and `go run`).
    #[test]
    fn resolve_reference_as_go() {
        let cases = [
            (
                "file:///values.schema.json",
                "other.json",
                "file:///other.json",
            ),
            (
                "file:///values.schema.json",
                "#/a",
                "file:///values.schema.json#/a",
            ),
            ("file:///a/b/c.json", "../d.json", "file:///a/d.json"),
            ("file:///a/b/c.json", "./", "file:///a/b/"),
            ("file:///a/b/c.json", "../../../..", "file:///"),
            ("http://h/a/b", "//x/y", "http://x/y"),
            ("http://h/a/b", "/y", "http://h/y"),
            ("http://h/a/b?q", "", "http://h/a/b?q"),
            ("http://h/a/b", "urn:x:y", "urn:x:y"),
            ("urn:x:y", "#frag", "urn:x:y#frag"),
            ("http://a/b/c/d;p?q", "g;x?y#s", "http://a/b/c/g;x?y#s"),
            ("http://a/b/c/d;p?q", "../../../g", "http://a/g"),
            ("http://a/b/c/d;p?q", "g/..", "http://a/b/c/"),
            ("file:///d/x%2Fy.json", "z.json", "file:///d/z.json"),
            (
                "file:///values.schema.json",
                "a%20b.json",
                "file:///a%20b.json",
            ),
        ];
        for (base, reference, want) in cases {
            assert_eq!(join(base, reference), want, "{base} + {reference}");
        }
    }

    #[test]
    fn parse_keeps_raw_forms() {
        let u = parse("file:///d/x%2Fy.json").unwrap();
        assert_eq!(u.path, "/d/x/y.json");
        assert_eq!(u.to_string(), "file:///d/x%2Fy.json");
        let u = parse("file:/tmp/x.json").unwrap();
        assert!(u.omit_host);
        assert_eq!(u.to_string(), "file:/tmp/x.json");
        assert_eq!(
            parse("http://h:x/").unwrap_err().to_string(),
            "parse \"http://h:x/\": invalid port \":x\" after host"
        );
        assert_eq!(
            parse("a%zz").unwrap_err().to_string(),
            "parse \"a%zz\": invalid URL escape \"%zz\""
        );
        let e = parse("x#a%zz").unwrap_err();
        assert_eq!(
            (e.url.as_str(), e.message.as_str()),
            ("x#a%zz", "invalid URL escape \"%zz\"")
        );
    }

    #[test]
    fn path_escape_as_go() {
        assert_eq!(path_escape("$defs"), "$defs");
        assert_eq!(path_escape("a b/c?d;e,f"), "a%20b%2Fc%3Fd%3Be%2Cf");
        assert_eq!(path_escape("~0é"), "~0%C3%A9");
        assert_eq!(path_unescape("a%2Fb").unwrap(), "a/b");
        assert_eq!(
            path_unescape("a%2").unwrap_err(),
            UnescapeError::Escape("%2".into())
        );
        assert_eq!(
            path_unescape("a%2").unwrap_err().to_string(),
            "invalid URL escape \"%2\""
        );
    }
}
