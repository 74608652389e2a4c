//! The parts of Go's `strconv` (and `%q`/`%#U` formatting) that the lexer, parser and error
//! messages depend on. Go's exact acceptance rules matter here: `089` is an error, `1_000` is not,
//! `'\"'` is invalid but `"\'"` is too, and error texts quote with Go's escapes.

/// Go's `strconv.IsPrint`, as far as the Rust standard library lets us tell: printable means
/// letters, marks, numbers, punctuation, symbols and the ASCII space.
pub(crate) fn is_print(c: char) -> bool {
    if c.is_ascii() {
        return (' '..='~').contains(&c);
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    let u = c as u32;
    // Format characters, private use and noncharacters: the ones Go refuses that Rust cannot
    // tell apart from printable ones by a standard predicate.
    !matches!(u,
        0xAD
        | 0x600..=0x605
        | 0x61C
        | 0x6DD
        | 0x70F
        | 0x180E
        | 0x200B..=0x200F
        | 0x202A..=0x202E
        | 0x2060..=0x206F
        | 0xD800..=0xF8FF
        | 0xFDD0..=0xFDEF
        | 0xFEFF
        | 0xFFF0..=0xFFFB
        | 0xFFFE..=0xFFFF
        | 0xE0000..=0xE0FFF
        | 0xF0000..=0x10FFFF)
        && (u & 0xFFFE) != 0xFFFE
}

/// Go's `strconv.Quote`: double-quoted with Go escapes (what `%q` prints for a string).
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        push_escaped(&mut out, c, '"');
    }
    out.push('"');
    out
}

fn push_escaped(out: &mut String, c: char, q: char) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    if c == q || c == '\\' {
        out.push('\\');
        out.push(c);
        return;
    }
    if is_print(c) {
        out.push(c);
        return;
    }
    match c {
        '\x07' => out.push_str("\\a"),
        '\x08' => out.push_str("\\b"),
        '\x0c' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\x0b' => out.push_str("\\v"),
        _ => {
            let u = c as u32;
            let (prefix, digits) = if u < 0x20 || u == 0x7f {
                ("\\x", 2)
            } else if u < 0x10000 {
                ("\\u", 4)
            } else {
                ("\\U", 8)
            };
            out.push_str(prefix);
            for i in (0..digits).rev() {
                out.push(HEX[((u >> (4 * i)) & 0xf) as usize] as char);
            }
        }
    }
}

/// Go's `%#U`: `U+0041 'A'`, the quoted character only when printable.
pub(crate) fn unicode_verbose(c: char) -> String {
    if is_print(c) {
        format!("U+{:04X} '{}'", c as u32, c)
    } else {
        format!("U+{:04X}", c as u32)
    }
}

/// Go's `%.Nq`: the first `n` runes, quoted.
pub(crate) fn quote_prefix(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => quote(&s[..i]),
        None => quote(s),
    }
}

/// What one `UnquoteChar` step yields: a character, or a raw byte from `\x` or octal escapes
/// (which in a Go string is a byte, not a rune).
enum Unquoted {
    Char(char),
    Byte(u8),
}

/// Go's `strconv.UnquoteChar`: decodes one character or escape from the front of `s`.
fn unquote_char(s: &str, quote: u8) -> Option<(Unquoted, &str)> {
    let bytes = s.as_bytes();
    let &first = bytes.first()?;
    if first == quote && (quote == b'\'' || quote == b'"') {
        return None;
    }
    if first != b'\\' {
        let c = s.chars().next()?;
        return Some((Unquoted::Char(c), &s[c.len_utf8()..]));
    }
    let &c = bytes.get(1)?;
    // Every valid escape letter is ASCII; anything else is a syntax error (and slicing past
    // it would split a character).
    if !c.is_ascii() {
        return None;
    }
    let rest = &s[2..];
    let simple = |ch: char| Some((Unquoted::Char(ch), rest));
    match c {
        b'a' => simple('\x07'),
        b'b' => simple('\x08'),
        b'f' => simple('\x0c'),
        b'n' => simple('\n'),
        b'r' => simple('\r'),
        b't' => simple('\t'),
        b'v' => simple('\x0b'),
        b'\\' => simple('\\'),
        b'\'' | b'"' => {
            if c != quote {
                return None;
            }
            simple(c as char)
        }
        b'x' | b'u' | b'U' => {
            let n = match c {
                b'x' => 2,
                b'u' => 4,
                _ => 8,
            };
            let digits = rest.get(..n)?;
            let mut v: u32 = 0;
            for d in digits.bytes() {
                v = (v << 4) | (d as char).to_digit(16)?;
            }
            let tail = &rest[n..];
            if c == b'x' {
                return Some((Unquoted::Byte(v as u8), tail));
            }
            Some((Unquoted::Char(char::from_u32(v)?), tail))
        }
        b'0'..=b'7' => {
            let digits = rest.as_bytes().get(..2)?;
            let mut v = u32::from(c - b'0');
            for &d in digits {
                if !(b'0'..=b'7').contains(&d) {
                    return None;
                }
                v = (v << 3) | u32::from(d - b'0');
            }
            if v > 255 {
                return None;
            }
            Some((Unquoted::Byte(v as u8), &rest[2..]))
        }
        _ => None,
    }
}

/// Go's `strconv.Unquote` for the string tokens the lexer produces (double-quoted and raw).
///
/// Go strings may hold invalid UTF-8 (`"\xff"`); Rust strings cannot, so such bytes become
/// U+FFFD here.
pub(crate) fn unquote(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    if bytes.len() < 2 {
        return None;
    }
    let q = bytes[0];
    if q != bytes[bytes.len() - 1] {
        return None;
    }
    let body = &s[1..s.len() - 1];
    match q {
        b'`' => {
            if body.contains('`') {
                return None;
            }
            // Go drops carriage returns from raw strings, as its compiler does.
            Some(body.replace('\r', ""))
        }
        b'"' | b'\'' => {
            if body.contains('\n') {
                return None;
            }
            if !body.contains('\\') && !body.contains(q as char) {
                if q == b'"' {
                    return Some(body.to_string());
                }
                let mut it = body.chars();
                return match (it.next(), it.next()) {
                    (Some(_), None) => Some(body.to_string()),
                    _ => None,
                };
            }
            let mut out: Vec<u8> = Vec::with_capacity(body.len());
            let mut rest = body;
            while !rest.is_empty() {
                let (u, tail) = unquote_char(rest, q)?;
                match u {
                    Unquoted::Char(c) => {
                        let mut buf = [0u8; 4];
                        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                    }
                    Unquoted::Byte(b) => out.push(b),
                }
                rest = tail;
                if q == b'\'' && !rest.is_empty() {
                    return None;
                }
            }
            Some(match String::from_utf8(out) {
                Ok(s) => s,
                Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
            })
        }
        _ => None,
    }
}

/// A character constant's value (`'a'`, `'\n'`, `'\u00e9'`), as the parser's `newNumber` takes it:
/// `Err(None)` is Go's `invalid syntax`, `Err(Some(..))` a malformed constant.
pub(crate) fn unquote_char_constant(text: &str) -> Result<u32, Option<String>> {
    let body = text.get(1..).ok_or(None)?;
    let (u, tail) = unquote_char(body, b'\'').ok_or(None)?;
    if tail != "'" {
        return Err(Some(format!("malformed character constant: {text}")));
    }
    Ok(match u {
        Unquoted::Char(c) => c as u32,
        Unquoted::Byte(b) => u32::from(b),
    })
}

/// Go's `underscoreOK`: underscores only between digits (or after a base prefix).
fn underscore_ok(s: &str) -> bool {
    let b = s.as_bytes();
    let mut saw = b'^';
    let mut i = 0;
    let b = if !b.is_empty() && (b[0] == b'-' || b[0] == b'+') {
        &b[1..]
    } else {
        b
    };
    let mut hex = false;
    if b.len() >= 2 && b[0] == b'0' && matches!(b[1] | 0x20, b'b' | b'o' | b'x') {
        i = 2;
        saw = b'0';
        hex = b[1] | 0x20 == b'x';
    }
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_digit() || (hex && (c | 0x20).is_ascii_hexdigit()) {
            saw = b'0';
        } else if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
        } else {
            if saw == b'_' {
                return false;
            }
            saw = b'!';
        }
        i += 1;
    }
    saw != b'_'
}

/// Go's `strconv.ParseUint(s, 0, 64)`.
pub(crate) fn parse_uint(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.is_empty() {
        return None;
    }
    let (base, digits): (u64, &[u8]) = if b[0] == b'0' {
        match b.get(1).map(|c| c | 0x20) {
            Some(b'b') if b.len() >= 3 => (2, &b[2..]),
            Some(b'o') if b.len() >= 3 => (8, &b[2..]),
            Some(b'x') if b.len() >= 3 => (16, &b[2..]),
            _ => (8, &b[1..]),
        }
    } else {
        (10, b)
    };
    let mut n: u64 = 0;
    let mut underscores = false;
    for &c in digits {
        let d = match c {
            b'_' => {
                underscores = true;
                continue;
            }
            b'0'..=b'9' => c - b'0',
            _ if (c | 0x20).is_ascii_lowercase() => (c | 0x20) - b'a' + 10,
            _ => return None,
        };
        if u64::from(d) >= base {
            return None;
        }
        n = n.checked_mul(base)?.checked_add(u64::from(d))?;
    }
    if underscores && !underscore_ok(s) {
        return None;
    }
    Some(n)
}

/// Go's `strconv.ParseInt(s, 0, 64)`.
pub(crate) fn parse_int(s: &str) -> Option<i64> {
    let (neg, rest) = match s.as_bytes().first() {
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        Some(_) => (false, s),
        None => return None,
    };
    let u = parse_uint(rest)?;
    if neg {
        if u > 1u64 << 63 {
            return None;
        }
        Some((u as i64).wrapping_neg())
    } else {
        i64::try_from(u).ok()
    }
}

/// Go's `strconv.ParseFloat(s, 64)` for the syntax the lexer lets through: decimal and hex
/// floats with underscores. Out-of-range values are errors, as in Go.
pub(crate) fn parse_float(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut neg = false;
    match b.first() {
        Some(b'+') => i = 1,
        Some(b'-') => {
            neg = true;
            i = 1
        }
        Some(_) => {}
        None => return None,
    }
    let hex = i + 2 < b.len() && b[i] == b'0' && b[i + 1] | 0x20 == b'x';
    if hex {
        i += 2;
    }
    let mut underscores = false;
    let mut saw_dot = false;
    let mut saw_digits = false;
    let mut mantissa = String::new();
    let mut frac_digits: i64 = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'_' {
            underscores = true;
        } else if c == b'.' {
            if saw_dot {
                break;
            }
            saw_dot = true;
        } else if c.is_ascii_digit() || (hex && (c | 0x20).is_ascii_hexdigit()) {
            saw_digits = true;
            mantissa.push(c as char);
            if saw_dot {
                frac_digits += 1;
            }
        } else {
            break;
        }
        i += 1;
    }
    if !saw_digits {
        return None;
    }
    let exp_char = if hex { b'p' } else { b'e' };
    let mut exp: i64 = 0;
    if i < b.len() && b[i] | 0x20 == exp_char {
        i += 1;
        let mut esign = 1;
        match b.get(i) {
            Some(b'+') => i += 1,
            Some(b'-') => {
                esign = -1;
                i += 1
            }
            _ => {}
        }
        if !b.get(i).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
            if b[i] == b'_' {
                underscores = true;
            } else if exp < 100_000 {
                exp = exp * 10 + i64::from(b[i] - b'0');
            }
            i += 1;
        }
        exp *= esign;
    } else if hex {
        return None;
    }
    if i != b.len() || (underscores && !underscore_ok(s)) {
        return None;
    }
    let value = if hex {
        hex_float(&mantissa, exp - 4 * frac_digits)?
    } else {
        let text = format!("{mantissa}e{}", exp - frac_digits);
        text.parse::<f64>().ok()?
    };
    if value.is_infinite() {
        return None;
    }
    Some(if neg { -value } else { value })
}

/// `mantissa` (hex digits) times 2^`exp`, rounded to nearest even.
fn hex_float(mantissa: &str, mut exp: i64) -> Option<f64> {
    let digits = mantissa.trim_start_matches('0');
    let mut m: u128 = 0;
    let mut sticky = false;
    for (n, c) in digits.chars().enumerate() {
        let d = c.to_digit(16)?;
        if n < 30 {
            m = (m << 4) | u128::from(d);
        } else {
            exp += 4;
            sticky |= d != 0;
        }
    }
    if sticky {
        m |= 1;
    }
    if m == 0 {
        return Some(0.0);
    }
    let mut v = m as f64;
    // Scale in steps so intermediate powers of two stay representable.
    while exp > 0 {
        let step = exp.min(1000);
        v *= 2f64.powi(step as i32);
        exp -= step;
    }
    while exp < 0 {
        let step = (-exp).min(1000);
        v /= 2f64.powi(step as i32);
        exp += step;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(
            quote("a\"b\\c\n\t\x01é\u{200b}"),
            r#""a\"b\\c\n\t\x01é\u200b""#
        );
        assert_eq!(quote_prefix("abcdefghijklmnop", 10), r#""abcdefghij""#);
        assert_eq!(unicode_verbose('€'), "U+20AC '€'");
        assert_eq!(unicode_verbose('\u{1}'), "U+0001");
    }

    #[test]
    fn unquoting() {
        assert_eq!(
            unquote(r#""a\tb\u00e9\x41\101""#).as_deref(),
            Some("a\tbéAA")
        );
        assert_eq!(unquote(r#""\q""#), None);
        assert_eq!(unquote(r#""\'""#), None);
        assert_eq!(unquote("`a\r\nb`").as_deref(), Some("a\nb"));
        assert_eq!(unquote_char_constant("'a'"), Ok(97));
        assert_eq!(unquote_char_constant(r"'\n'"), Ok(10));
        assert_eq!(unquote_char_constant(r"'\u00e9'"), Ok(0xe9));
        assert_eq!(unquote_char_constant(r#"'\"'"#), Err(None));
        assert_eq!(unquote_char_constant("''"), Err(None));
        assert!(matches!(unquote_char_constant("'ab'"), Err(Some(_))));
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_uint("0x1F"), Some(31));
        assert_eq!(parse_uint("0o17"), Some(15));
        assert_eq!(parse_uint("017"), Some(15));
        assert_eq!(parse_uint("0b101"), Some(5));
        assert_eq!(parse_uint("1_000"), Some(1000));
        assert_eq!(parse_uint("1__0"), None);
        assert_eq!(parse_uint("089"), None);
        assert_eq!(parse_uint("0"), Some(0));
        assert_eq!(parse_uint("18446744073709551616"), None);
        assert_eq!(parse_int("-0x10"), Some(-16));
        assert_eq!(parse_int("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_int("9223372036854775808"), None);
        assert_eq!(parse_float("1.5e3"), Some(1500.0));
        assert_eq!(parse_float("089"), Some(89.0));
        assert_eq!(parse_float("0x1p-2"), Some(0.25));
        assert_eq!(parse_float("0x1.8p1"), Some(3.0));
        assert_eq!(parse_float("0x1.8"), None);
        assert_eq!(parse_float(".5"), Some(0.5));
        assert_eq!(parse_float("5."), Some(5.0));
        assert_eq!(parse_float("."), None);
        assert_eq!(parse_float("1e400"), None);
        assert_eq!(parse_float("1e-400"), Some(0.0));
        assert_eq!(parse_float("1_0.5"), Some(10.5));
    }
}
