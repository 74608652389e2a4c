//! Sprig's `urlParse` and `urlJoin`, over a port of the parts of Go's `net/url` they use.

use gotemplate::fmt::quote;
use gotemplate::{ArgType, FuncError, FuncMap, Map, Value};

use super::{def, s};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Path,
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

fn escape(text: &str, mode: Mode) -> String {
    let mut out = String::new();
    for &b in text.as_bytes() {
        if should_escape(b, mode) {
            out.push_str(&format!("%{b:02X}"));
        } else {
            out.push(b as char);
        }
    }
    out
}

/// Go's `unescape` (errors in Go's words).
fn unescape(text: &str, mode: Mode) -> Result<String, String> {
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
                    return Err(format!(
                        "invalid URL escape {}",
                        quote(&String::from_utf8_lossy(&b[i..end]))
                    ));
                }
                let v = u8::from_str_radix(&text[i + 1..i + 3], 16).unwrap_or(0);
                if mode == Mode::Host && v < 0x80 && &text[i..i + 3] != "%25" {
                    // Go allows only %-encoded non-ASCII (and %25) in hosts.
                    if (u8::from_str_radix(&text[i + 1..i + 2], 16).unwrap_or(0)) < 8 {
                        return Err(format!("invalid URL escape {}", quote(&text[i..i + 3])));
                    }
                }
                out.push(v);
                i += 3;
            }
            c => {
                if mode == Mode::Host && c < 0x80 && should_escape(c, mode) {
                    return Err(format!(
                        "invalid character {} in host name",
                        quote(&(c as char).to_string())
                    ));
                }
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

#[derive(Default)]
struct Url {
    scheme: String,
    opaque: String,
    user: Option<(String, Option<String>)>,
    host: String,
    path: String,
    raw_query: String,
    fragment: String,
    omit_host: bool,
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
    unescape(host, Mode::Host)
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
        None => (unescape(info, Mode::UserPassword)?, None),
        Some((u, p)) => (
            unescape(u, Mode::UserPassword)?,
            Some(unescape(p, Mode::UserPassword)?),
        ),
    };
    Ok((Some(user), host))
}

/// Go's `url.Parse`; errors are `parse "URL": MESSAGE`.
fn parse(raw: &str) -> Result<Url, String> {
    let (u, frag) = match raw.split_once('#') {
        Some((u, f)) => (u, Some(f)),
        None => (raw, None),
    };
    let wrap = |at: &str, e: String| format!("parse {}: {e}", quote(at));
    let mut url = parse_main(u).map_err(|e| wrap(u, e))?;
    if let Some(f) = frag {
        url.fragment = unescape(f, Mode::Fragment).map_err(|e| wrap(raw, e))?;
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
    url.path = unescape(rest, Mode::Path)?;
    Ok(url)
}

fn user_string(user: &(String, Option<String>)) -> String {
    let mut out = escape(&user.0, Mode::UserPassword);
    if let Some(p) = &user.1 {
        out.push(':');
        out.push_str(&escape(p, Mode::UserPassword));
    }
    out
}

/// `url.URL.String()`.
fn to_string(u: &Url) -> String {
    let mut out = String::new();
    if !u.scheme.is_empty() {
        out.push_str(&u.scheme);
        out.push(':');
    }
    if !u.opaque.is_empty() {
        out.push_str(&u.opaque);
    } else {
        let has_authority = !u.host.is_empty() || u.user.is_some();
        if has_authority || (!u.scheme.is_empty() && !u.omit_host) {
            if !u.host.is_empty() || !u.path.is_empty() || u.user.is_some() {
                out.push_str("//");
            }
            if let Some(user) = &u.user {
                out.push_str(&user_string(user));
                out.push('@');
            }
            out.push_str(&escape(&u.host, Mode::Host));
        }
        let path = if u.path == "*" {
            "*".to_string()
        } else {
            escape(&u.path, Mode::Path)
        };
        if !path.is_empty() && !path.starts_with('/') && !u.host.is_empty() {
            out.push('/');
        }
        if out.is_empty() && path.split('/').next().unwrap_or_default().contains(':') {
            out.push_str("./");
        }
        out.push_str(&path);
    }
    if !u.raw_query.is_empty() {
        out.push('?');
        out.push_str(&u.raw_query);
    }
    if !u.fragment.is_empty() {
        out.push('#');
        out.push_str(&escape(&u.fragment, Mode::Fragment));
    }
    out
}

/// `u.Hostname()`.
fn hostname(host: &str) -> String {
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

/// Sprig's `dictGetOrEmpty`.
fn dict_str(d: &Map, key: &str) -> Result<String, FuncError> {
    match d.get(key) {
        None => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.to_string()),
        Some(other) => Err(FuncError::new(format!(
            "unable to parse {key} key, must be of type string, but {} found",
            crate::funcs::go_kind(&other)
        ))),
    }
}

pub(super) fn register(map: &mut FuncMap) {
    def(
        map,
        "urlParse",
        &[ArgType::String],
        None,
        "map[string]interface {}",
        false,
        |_, a| {
            let u =
                parse(s(&a, 0)).map_err(|e| FuncError::new(format!("unable to parse url: {e}")))?;
            let out = Map::new();
            out.insert("scheme", Value::from(u.scheme.clone()));
            out.insert("host", Value::from(u.host.clone()));
            out.insert("hostname", Value::from(hostname(&u.host)));
            out.insert("path", Value::from(u.path.clone()));
            out.insert("query", Value::from(u.raw_query.clone()));
            out.insert("opaque", Value::from(u.opaque.clone()));
            out.insert("fragment", Value::from(u.fragment.clone()));
            out.insert(
                "userinfo",
                Value::from(u.user.as_ref().map(user_string).unwrap_or_default()),
            );
            Ok(Value::Map(out))
        },
    );
    def(
        map,
        "urlJoin",
        &[ArgType::Map],
        None,
        "string",
        false,
        |_, a| {
            let d = a[0].as_map().cloned().unwrap_or_default();
            let mut u = Url {
                scheme: dict_str(&d, "scheme")?,
                host: dict_str(&d, "host")?,
                path: dict_str(&d, "path")?,
                raw_query: dict_str(&d, "query")?,
                opaque: dict_str(&d, "opaque")?,
                fragment: dict_str(&d, "fragment")?,
                ..Url::default()
            };
            let info = dict_str(&d, "userinfo")?;
            if !info.is_empty() {
                let tmp = parse(&format!("proto://{info}@host")).map_err(|e| {
                    FuncError::new(format!("unable to parse userinfo in dict: {e}"))
                })?;
                u.user = tmp.user;
            }
            Ok(Value::from(to_string(&u)))
        },
    );
}
