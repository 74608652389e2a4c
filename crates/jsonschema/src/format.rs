//! The `format` checks of santhosh-tekuri/jsonschema v6, with its reasons worded as it words
//! them (`'x' is not valid ipv4: expected four decimals`). Helm's compiler asserts formats
//! only in schemas of drafts before 2019-09 (and the library always asserts them when it
//! checks a schema against its metaschema: `uri`, `uri-reference` and `regex` are used there).
//! Each check passes values that are not strings.

use gotemplate::fmt::quote;

/// A format the library knows; `None` for names it does not (those are not checked).
pub(crate) fn known(name: &str) -> Option<&'static str> {
    const NAMES: &[&str] = &[
        "regex",
        "json-pointer",
        "relative-json-pointer",
        "uuid",
        "duration",
        "period",
        "ipv4",
        "ipv6",
        "hostname",
        "email",
        "date",
        "time",
        "date-time",
        "uri",
        "iri",
        "uri-reference",
        "iri-reference",
        "uri-template",
        "semver",
    ];
    NAMES.iter().find(|n| **n == name).copied()
}

/// Checks `s` against the format `name` (one [`known`] returned): `Err(reason)` if it fails.
pub(crate) fn check(name: &str, s: &str) -> Result<(), String> {
    match name {
        "regex" => super::compile_regex(s).map(|_| ()),
        "json-pointer" => json_pointer(s),
        "relative-json-pointer" => relative_json_pointer(s),
        "uuid" => uuid(s),
        "duration" => duration(s),
        "period" => period(s),
        "ipv4" => ipv4(s),
        "ipv6" => ipv6(s),
        "hostname" => hostname(s),
        "email" => email(s),
        "date" => date(s),
        "time" => time(s),
        "date-time" => date_time(s),
        "uri" | "iri" => uri(s),
        "uri-reference" | "iri-reference" => uri_reference(s),
        "uri-template" => uri_template(s),
        "semver" => semver(s),
        _ => Ok(()),
    }
}

/// Go's `%q` of a rune (`strconv.QuoteRune`).
pub(crate) fn quote_rune(c: char) -> String {
    if c == '\'' {
        return "'\\''".to_string();
    }
    let q = quote(&c.to_string());
    format!("'{}'", q[1..q.len() - 1].replace("\\\"", "\""))
}

/// Go's `strconv.Atoi`, with its error text.
fn atoi(s: &str) -> Result<i64, String> {
    let syntax = || format!("strconv.Atoi: parsing {}: invalid syntax", quote(s));
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(syntax());
    }
    s.parse::<i64>()
        .map_err(|_| format!("strconv.Atoi: parsing {}: value out of range", quote(s)))
}

fn json_pointer(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Ok(());
    }
    let Some(rest) = s.strip_prefix('/') else {
        return Err("not starting with /".into());
    };
    for token in rest.split('/') {
        let mut escape = false;
        for c in token.chars() {
            if escape {
                escape = false;
                if c != '0' && c != '1' {
                    return Err("~ must be followed by 0 or 1".into());
                }
                continue;
            }
            if c == '~' {
                escape = true;
                continue;
            }
            // Every rune is allowed but '/' (split on) and '~' (handled): the library's
            // ranges leave out only U+002F and U+007E.
        }
        if escape {
            return Err("~ must be followed by 0 or 1".into());
        }
    }
    Ok(())
}

fn relative_json_pointer(s: &str) -> Result<(), String> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return Err("must start with non-negative integer".into());
    }
    if digits > 1 && s.starts_with('0') {
        return Err("starts with zero".into());
    }
    let rest = &s[digits..];
    if rest == "#" {
        return Ok(());
    }
    json_pointer(rest)
}

fn uuid(s: &str) -> Result<(), String> {
    const GROUPS: [usize; 5] = [8, 4, 4, 4, 12];
    let groups: Vec<&str> = s.split('-').collect();
    if groups.len() != GROUPS.len() {
        return Err(format!("must have {} elements", GROUPS.len()));
    }
    for (i, group) in groups.iter().enumerate() {
        if group.len() != GROUPS[i] {
            return Err(format!(
                "element {} must be {} characters long",
                i + 1,
                GROUPS[i]
            ));
        }
        if let Some(c) = group.chars().find(|c| !c.is_ascii_hexdigit()) {
            return Err(format!("non-hex character {}", quote_rune(c)));
        }
    }
    Ok(())
}

fn duration(s: &str) -> Result<(), String> {
    let Some(s) = s.strip_prefix('P') else {
        return Err("must start with P".into());
    };
    if s.is_empty() {
        return Err("nothing after P".into());
    }
    if let Some(weeks) = s.strip_suffix('W') {
        if weeks.is_empty() {
            return Err("no number in week".into());
        }
        if !weeks.bytes().all(|b| b.is_ascii_digit()) {
            return Err("invalid week".into());
        }
        return Ok(());
    }
    const ALL_UNITS: [&str; 2] = ["YMD", "HMS"];
    for (i, part) in s.split('T').enumerate() {
        if i != 0 && part.is_empty() {
            return Err("no time elements".into());
        }
        if i >= ALL_UNITS.len() {
            return Err("more than one T".into());
        }
        let mut units = ALL_UNITS[i];
        let mut rest = part;
        while !rest.is_empty() {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                return Err("missing number".into());
            }
            rest = &rest[digits..];
            let Some(&unit) = rest.as_bytes().first() else {
                return Err("missing unit".into());
            };
            match units.bytes().position(|u| u == unit) {
                Some(j) => units = &units[j + 1..],
                None => {
                    let shown = quote_rune(unit as char);
                    return Err(if ALL_UNITS[i].as_bytes().contains(&unit) {
                        format!("unit {shown} out of order")
                    } else {
                        format!("invalid unit {shown}")
                    });
                }
            }
            // Past an ASCII unit letter; a multi-byte rune was refused above.
            rest = &rest[1..];
        }
    }
    Ok(())
}

fn ipv4(s: &str) -> Result<(), String> {
    let groups: Vec<&str> = s.split('.').collect();
    if groups.len() != 4 {
        return Err("expected four decimals".into());
    }
    for group in groups {
        if group.len() > 1 && group.starts_with('0') {
            return Err("leading zeros".into());
        }
        let n = atoi(group)?;
        if !(0..=255).contains(&n) {
            return Err("decimal must be between 0 and 255".into());
        }
    }
    Ok(())
}

fn ipv6(s: &str) -> Result<(), String> {
    if !s.contains(':') {
        return Err("missing colon".into());
    }
    let zoned = parse_addr(s)?;
    if zoned {
        return Err("zone id is not a part of ipv6 address".into());
    }
    Ok(())
}

/// Go's `netip.ParseAddr` for its error text: `Ok(true)` for an address with a zone.
fn parse_addr(s: &str) -> Result<bool, String> {
    for b in s.bytes() {
        match b {
            b'.' => return parse_ipv4_fields(s, 0, s.len()).map(|()| false),
            b':' => return parse_ipv6(s),
            b'%' => return Err(addr_error(s, "missing IPv6 address", "")),
            _ => {}
        }
    }
    Err(addr_error(s, "unable to parse IP", ""))
}

/// Go's `parseAddrError.Error`.
fn addr_error(input: &str, msg: &str, at: &str) -> String {
    if at.is_empty() {
        format!("ParseAddr({}): {msg}", quote(input))
    } else {
        format!("ParseAddr({}): {msg} (at {})", quote(input), quote(at))
    }
}

/// Go's `parseIPv4Fields` over `input[off..end]`.
fn parse_ipv4_fields(input: &str, off: usize, end: usize) -> Result<(), String> {
    let s = &input.as_bytes()[off..end];
    let at = |i: usize| String::from_utf8_lossy(&s[i..]).into_owned();
    let (mut val, mut pos, mut digits) = (0u32, 0, 0);
    for (i, &c) in s.iter().enumerate() {
        if c.is_ascii_digit() {
            if digits == 1 && val == 0 {
                return Err(addr_error(
                    input,
                    "IPv4 field has octet with leading zero",
                    "",
                ));
            }
            val = val * 10 + u32::from(c - b'0');
            digits += 1;
            if val > 255 {
                return Err(addr_error(input, "IPv4 field has value >255", ""));
            }
        } else if c == b'.' {
            if i == 0 || i == s.len() - 1 || s[i - 1] == b'.' {
                return Err(addr_error(
                    input,
                    "IPv4 field must have at least one digit",
                    &at(i),
                ));
            }
            if pos == 3 {
                return Err(addr_error(input, "IPv4 address too long", ""));
            }
            pos += 1;
            val = 0;
            digits = 0;
        } else {
            return Err(addr_error(input, "unexpected character", &at(i)));
        }
    }
    if pos < 3 {
        return Err(addr_error(input, "IPv4 address too short", ""));
    }
    Ok(())
}

/// Go's `parseIPv6`; `Ok(true)` when the address has a zone.
fn parse_ipv6(input: &str) -> Result<bool, String> {
    let mut s = input;
    let mut zone = "";
    if let Some(i) = s.find('%') {
        (s, zone) = (&s[..i], &s[i + 1..]);
        if zone.is_empty() {
            return Err(addr_error(input, "zone must be a non-empty string", ""));
        }
    }
    let mut ellipsis: Option<usize> = None;
    if s.starts_with("::") {
        ellipsis = Some(0);
        s = &s[2..];
        if s.is_empty() {
            return Ok(!zone.is_empty());
        }
    }
    let mut i = 0;
    while i < 16 {
        let b = s.as_bytes();
        let mut off = 0;
        let mut acc: u32 = 0;
        while off < b.len() {
            let Some(d) = (b[off] as char).to_digit(16) else {
                break;
            };
            acc = (acc << 4) + d;
            if off > 3 {
                return Err(addr_error(
                    input,
                    "each group must have 4 or less digits",
                    s,
                ));
            }
            if acc > 0xffff {
                return Err(addr_error(input, "IPv6 field has value >=2^16", s));
            }
            off += 1;
        }
        if off == 0 {
            return Err(addr_error(
                input,
                "each colon-separated field must have at least one digit",
                s,
            ));
        }
        if off < b.len() && b[off] == b'.' {
            if ellipsis.is_none() && i != 12 {
                return Err(addr_error(
                    input,
                    "embedded IPv4 address must replace the final 2 fields of the address",
                    s,
                ));
            }
            if i + 4 > 16 {
                return Err(addr_error(
                    input,
                    "too many hex fields to fit an embedded IPv4 at the end of the address",
                    s,
                ));
            }
            let mut end = input.len();
            if !zone.is_empty() {
                end -= zone.len() + 1;
            }
            parse_ipv4_fields(input, end - s.len(), end)?;
            s = "";
            i += 4;
            break;
        }
        i += 2;
        s = &s[off..];
        if s.is_empty() {
            break;
        }
        if !s.starts_with(':') {
            return Err(addr_error(input, "unexpected character, want colon", s));
        } else if s.len() == 1 {
            return Err(addr_error(
                input,
                "colon must be followed by more characters",
                s,
            ));
        }
        s = &s[1..];
        if s.starts_with(':') {
            if ellipsis.is_some() {
                return Err(addr_error(input, "multiple :: in address", s));
            }
            ellipsis = Some(i);
            s = &s[1..];
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return Err(addr_error(input, "trailing garbage after address", s));
    }
    if i < 16 {
        if ellipsis.is_none() {
            return Err(addr_error(input, "address string too short", ""));
        }
    } else if ellipsis.is_some() {
        return Err(addr_error(
            input,
            "the :: must expand to at least one field of zeros",
            "",
        ));
    }
    Ok(!zone.is_empty())
}

fn hostname(s: &str) -> Result<(), String> {
    let s = s.strip_suffix('.').unwrap_or(s);
    if s.len() > 253 {
        return Err("more than 253 characters long".into());
    }
    for label in s.split('.') {
        if label.is_empty() || label.len() > 63 {
            return Err("label must be 1 to 63 characters long".into());
        }
        if label.starts_with('-') {
            return Err("label starts with hyphen".into());
        }
        if label.ends_with('-') {
            return Err("label ends with hyphen".into());
        }
        if let Some(c) = label
            .chars()
            .find(|c| !c.is_ascii_alphanumeric() && *c != '-')
        {
            return Err(format!("invalid character {}", quote_rune(c)));
        }
    }
    Ok(())
}

fn email(s: &str) -> Result<(), String> {
    if s.len() > 254 {
        // Sic: the library's limit is 254 bytes, its message says 255.
        return Err("more than 255 characters long".into());
    }
    let Some(at) = s.rfind('@') else {
        return Err("missing @".into());
    };
    let (local, domain) = (&s[..at], &s[at + 1..]);
    if local.len() > 64 {
        return Err("local part more than 64 characters long".into());
    }
    if local.len() > 1 && local.starts_with('"') {
        // Sic: the library checks the leading quote twice, never the closing one.
        let inner = &local.as_bytes()[1..local.len() - 1];
        if inner.iter().any(|b| matches!(b, b'\\' | b'"')) {
            return Err("backslash and quote are not allowed within quoted local part".into());
        }
    } else {
        if local.starts_with('.') {
            return Err("starts with dot".into());
        }
        if local.ends_with('.') {
            return Err("ends with dot".into());
        }
        if local.contains("..") {
            return Err("consecutive dots".into());
        }
        if let Some(c) = local
            .chars()
            .find(|c| !c.is_ascii_alphanumeric() && !".!#$%&'*+-/=?^_`{|}~".contains(*c))
        {
            return Err(format!("invalid character {}", quote_rune(c)));
        }
    }
    if domain.starts_with('[') && domain.ends_with(']') && domain.len() >= 2 {
        let inner = &domain[1..domain.len() - 1];
        if let Some(v6) = inner.strip_prefix("IPv6:") {
            return ipv6(v6).map_err(|e| format!("invalid ipv6 address: {e}"));
        }
        return ipv4(inner).map_err(|e| format!("invalid ipv4 address: {e}"));
    }
    hostname(domain).map_err(|e| format!("invalid domain: {e}"))
}

fn date(s: &str) -> Result<(), String> {
    gotime::time::check_parse("2006-01-02", s).map_err(|e| e.to_string())
}

fn time(text: &str) -> Result<(), String> {
    let b = text.as_bytes();
    if b.len() < 9 {
        return Err("less than 9 characters long".into());
    }
    if b[2] != b':' || b[5] != b':' {
        return Err("missing colon in correct place".into());
    }
    let mut hms = Vec::new();
    // The first eight bytes split on ':' into at most three fields, as `SplitN(.., 3)`.
    let head = String::from_utf8_lossy(&b[..8]).into_owned();
    for token in head.splitn(3, ':') {
        let n = atoi(token).map_err(|_| "invalid hour/min/sec".to_string())?;
        if n < 0 {
            return Err("non-positive hour/min/sec".into());
        }
        hms.push(n);
    }
    if hms.len() != 3 {
        return Err("missing hour/min/sec".into());
    }
    let (mut h, mut m, s) = (hms[0], hms[1], hms[2]);
    if h > 23 || m > 59 || s > 60 {
        return Err("hour/min/sec out of range".into());
    }
    let mut rest = &b[8..];
    if let Some(frac) = rest.strip_prefix(b".") {
        let digits = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return Err("no digits in second fraction".into());
        }
        rest = &frac[digits..];
    }
    if rest != b"z" && rest != b"Z" {
        if rest.len() != 6 {
            return Err("offset must be 6 characters long".into());
        }
        let sign = match rest[0] {
            b'+' => -1,
            b'-' => 1,
            _ => return Err("offset must begin with plus/minus".into()),
        };
        let offset = &rest[1..];
        if offset[2] != b':' {
            return Err("missing colon in offset in correct place".into());
        }
        let offset = String::from_utf8_lossy(offset).into_owned();
        let mut zhm = Vec::new();
        for token in offset.splitn(2, ':') {
            let n = atoi(token).map_err(|_| "invalid hour/min in offset".to_string())?;
            if n < 0 {
                return Err("non-positive hour/min in offset".into());
            }
            zhm.push(n);
        }
        let (zh, zm) = (zhm[0], zhm[1]);
        if zh > 23 || zm > 59 {
            return Err("hour/min in offset out of range".into());
        }
        let mut hm = (h * 60 + m) + sign * (zh * 60 + zm);
        if hm < 0 {
            hm += 24 * 60;
        }
        (h, m) = (hm / 60, hm % 60);
    }
    if s >= 60 && (h != 23 || m != 59) {
        return Err("invalid leap second".into());
    }
    Ok(())
}

fn date_time(s: &str) -> Result<(), String> {
    let b = s.as_bytes();
    if b.len() < 20 {
        return Err("less than 20 characters long".into());
    }
    if b[10] != b't' && b[10] != b'T' {
        return Err("11th character must be t or T".into());
    }
    let date_part = String::from_utf8_lossy(&b[..10]);
    date(&date_part).map_err(|e| format!("invalid date element: {e}"))?;
    let time_part = String::from_utf8_lossy(&b[11..]);
    time(&time_part).map_err(|e| format!("invalid time element: {e}"))
}

/// The library's `parseURL`: Go's `url.Parse`, plus a check of IPv6 hosts.
fn parse_url(s: &str) -> Result<gourl::Url, String> {
    let u = gourl::parse(s).map_err(|e| e.to_string())?;
    let host = gourl::hostname(&u.host);
    if host.contains(':') {
        if !u.host.contains('[') || !u.host.contains(']') {
            return Err("ipv6 address not enclosed in brackets".into());
        }
        ipv6(&host).map_err(|e| format!("invalid ipv6 address: {e}"))?;
    }
    Ok(u)
}

fn uri(s: &str) -> Result<(), String> {
    if !parse_url(s)?.is_abs() {
        return Err("relative url".into());
    }
    Ok(())
}

fn uri_reference(s: &str) -> Result<(), String> {
    if s.contains('\\') {
        return Err("contains \\".into());
    }
    parse_url(s).map(|_| ())
}

fn uri_template(s: &str) -> Result<(), String> {
    let u = parse_url(s)?;
    // The library looks at `RawPath` only, which is empty unless the path was written
    // with escapes that differ from Go's own.
    for token in u.raw_path.split('/') {
        let token =
            gourl::path_unescape(token).map_err(|e| format!("percent decode failed: {e}"))?;
        let mut want = true;
        for c in token.chars() {
            let got = match c {
                '{' => true,
                '}' => false,
                _ => continue,
            };
            if got != want {
                return Err("nested curly braces".into());
            }
            want = !want;
        }
        if !want {
            return Err("no matching closing brace".into());
        }
    }
    Ok(())
}

fn period(s: &str) -> Result<(), String> {
    let Some((start, end)) = s.split_once('/') else {
        return Err("missing slash".into());
    };
    if start.starts_with('P') {
        duration(start).map_err(|e| format!("invalid start duration: {e}"))?;
        date_time(end).map_err(|e| format!("invalid end date-time: {e}"))?;
    } else {
        date_time(start).map_err(|e| format!("invalid start date-time: {e}"))?;
        if end.starts_with('P') {
            duration(end).map_err(|e| format!("invalid end duration: {e}"))?;
        } else {
            date_time(end).map_err(|e| format!("invalid end date-time: {e}"))?;
        }
    }
    Ok(())
}

fn semver(s: &str) -> Result<(), String> {
    let mut s = s;
    if let Some(i) = s.find('+') {
        let build = &s[i + 1..];
        if build.is_empty() {
            return Err("build is empty".into());
        }
        for id in build.split('.') {
            if id.is_empty() {
                return Err("build identifier is empty".into());
            }
            if let Some(c) = id.chars().find(|c| !c.is_ascii_alphanumeric() && *c != '-') {
                return Err(format!(
                    "invalid character {} in build identifier",
                    quote_rune(c)
                ));
            }
        }
        s = &s[..i];
    }
    if let Some(i) = s.find('-') {
        for id in s[i + 1..].split('.') {
            if id.is_empty() {
                return Err("pre-release identifier is empty".into());
            }
            if let Some(c) = id.chars().find(|c| !c.is_ascii_alphanumeric() && *c != '-') {
                return Err(format!(
                    "invalid character {} in pre-release identifier",
                    quote_rune(c)
                ));
            }
            let all_digits = id.bytes().all(|b| b.is_ascii_digit());
            if all_digits && id.len() > 1 && id.starts_with('0') {
                return Err("pre-release numeric identifier starts with zero".into());
            }
        }
        s = &s[..i];
    }
    let versions: Vec<&str> = s.split('.').collect();
    if versions.len() != 3 {
        return Err("versionCore must have 3 numbers separated by dot".into());
    }
    for (name, version) in ["major", "minor", "patch"].iter().zip(versions) {
        if version.is_empty() {
            return Err(format!("{name} is empty"));
        }
        if version.len() > 1 && version.starts_with('0') {
            return Err(format!("{name} starts with zero"));
        }
        if !version.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("{name} contains non-digit"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Reasons as the library gives them (checked with helm: `'x' is not valid FORMAT: REASON`).
    #[test]
    fn reasons() {
        let cases: &[(&str, &str, Option<&str>)] = &[
            ("ipv4", "1.2.3.4", None),
            ("ipv4", "x", Some("expected four decimals")),
            (
                "ipv4",
                "1.2.3.x",
                Some("strconv.Atoi: parsing \"x\": invalid syntax"),
            ),
            ("ipv4", "1.2.3.04", Some("leading zeros")),
            (
                "ipv4",
                "1.2.3.256",
                Some("decimal must be between 0 and 255"),
            ),
            ("ipv6", "::1", None),
            ("ipv6", "1:2:3:4:5:6:1.2.3.4", None),
            ("ipv6", "x", Some("missing colon")),
            (
                "ipv6",
                "1::x",
                Some(
                    "ParseAddr(\"1::x\"): each colon-separated field must have at least one digit (at \"x\")",
                ),
            ),
            (
                "ipv6",
                "fe80::1%eth0",
                Some("zone id is not a part of ipv6 address"),
            ),
            ("hostname", "a-b.c", None),
            ("hostname", "a_b", Some("invalid character '_'")),
            ("email", "a@b.c", None),
            ("email", "ab.c", Some("missing @")),
            ("email", "\"é@b.c", None),
            ("uuid", "0123456789", Some("must have 5 elements")),
            ("duration", "P1Y2M", None),
            ("duration", "P1M2Y", Some("unit 'Y' out of order")),
            ("date-time", "2020-01-01T00:00:00Z", None),
            ("time", "25:00:00Z", Some("hour/min/sec out of range")),
            ("uri", "a/b", Some("relative url")),
            ("uri-reference", "a\\b", Some("contains \\")),
            ("json-pointer", "/a~2", Some("~ must be followed by 0 or 1")),
            (
                "semver",
                "1.2",
                Some("versionCore must have 3 numbers separated by dot"),
            ),
            (
                "regex",
                "(",
                Some("error parsing regexp: missing closing ): `(`"),
            ),
        ];
        for (name, value, want) in cases {
            let got = check(name, value).err();
            assert_eq!(got.as_deref(), *want, "{name} {value:?}");
        }
    }
}
