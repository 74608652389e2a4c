/// Why [`go_unquote`] refused its input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnquoteError {
    #[error("not a Go double-quoted string: {0}")]
    NotQuoted(String),
    #[error("unescaped {0:?} inside a quoted string")]
    Unescaped(char),
    #[error("escape cut short at the end: {0}")]
    Short(String),
    #[error("bad escape {0}")]
    BadEscape(String),
}

/// Go's `strconv.Unquote` of a double-quoted string (what Go's `%q` and `strconv.Quote`
/// print), as bytes: `\x` and octal escapes stand for single bytes, which need not make UTF-8.
/// The decoder is independent of the `gotemplate` crate's own (the code some tests check), and
/// as strict as Go's: `\'`, an unescaped `"` or newline, and a surrogate or out-of-range code
/// point are refused. Bytes that are not escapes are kept as they are.
pub fn go_unquote(quoted: &[u8]) -> Result<Vec<u8>, UnquoteError> {
    let lossy = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let s = match quoted {
        [b'"', inner @ .., b'"'] => inner,
        _ => return Err(UnquoteError::NotQuoted(lossy(quoted))),
    };
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        if c == b'"' || c == b'\n' {
            return Err(UnquoteError::Unescaped(c as char));
        }
        if c != b'\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let start = i;
        let escape = *s
            .get(i + 1)
            .ok_or_else(|| UnquoteError::Short(lossy(&s[start..])))?;
        i += 2;
        // `len` hex or octal digits from `from`, or the escape is short or bad.
        let digits = |from: usize, len: usize, radix: u32| -> Result<u32, UnquoteError> {
            let d = s
                .get(from..from + len)
                .ok_or_else(|| UnquoteError::Short(lossy(&s[start..])))?;
            std::str::from_utf8(d)
                .ok()
                .filter(|t| t.bytes().all(|b| (b as char).is_digit(radix)))
                .and_then(|t| u32::from_str_radix(t, radix).ok())
                .ok_or_else(|| UnquoteError::BadEscape(lossy(&s[start..from + len])))
        };
        match escape {
            b'a' => out.push(0x07),
            b'b' => out.push(0x08),
            b'f' => out.push(0x0c),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(0x0b),
            b'\\' | b'"' => out.push(escape),
            b'x' => {
                out.push(digits(i, 2, 16)? as u8);
                i += 2;
            }
            b'0'..=b'7' => {
                let v = digits(i - 1, 3, 8)?;
                let byte = u8::try_from(v)
                    .map_err(|_| UnquoteError::BadEscape(lossy(&s[start..i + 2])))?;
                out.push(byte);
                i += 2;
            }
            b'u' | b'U' => {
                let len = if escape == b'u' { 4 } else { 8 };
                let ch = char::from_u32(digits(i, len, 16)?)
                    .ok_or_else(|| UnquoteError::BadEscape(lossy(&s[start..i + len])))?;
                out.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes());
                i += len;
            }
            _ => return Err(UnquoteError::BadEscape(lossy(&s[start..i]))),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::{UnquoteError, go_unquote};

    #[test]
    fn decodes_what_go_quotes() {
        // Each pair: Go's `%q` of a string (printed by Go 1.25), and its bytes.
        let cases: &[(&str, &[u8])] = &[
            (r#""""#, b""),
            (r#""a b""#, b"a b"),
            (r#""\a\b\f\n\r\t\v\\\"""#, b"\x07\x08\x0c\n\r\t\x0b\\\""),
            (r#""\x00\xff""#, b"\x00\xff"),
            (r#""\101\377""#, b"A\xff"),
            (r#""\u00e9""#, "é".as_bytes()),
            (r#""\U0001f600""#, "😀".as_bytes()),
            (r#""é'""#, "é'".as_bytes()),
        ];
        for (quoted, want) in cases {
            assert_eq!(
                go_unquote(quoted.as_bytes()).as_deref(),
                Ok(*want),
                "{quoted}"
            );
        }
    }

    /// Whether an error is the one expected.
    type Expected = fn(&UnquoteError) -> bool;

    #[test]
    fn refuses_what_go_refuses() {
        let cases: &[(&str, Expected)] = &[
            ("abc", |e| matches!(e, UnquoteError::NotQuoted(_))),
            ("\"", |e| matches!(e, UnquoteError::NotQuoted(_))),
            (r#""a"b""#, |e| matches!(e, UnquoteError::Unescaped('"'))),
            ("\"a\nb\"", |e| matches!(e, UnquoteError::Unescaped('\n'))),
            (r#""\'""#, |e| matches!(e, UnquoteError::BadEscape(_))),
            (r#""\q""#, |e| matches!(e, UnquoteError::BadEscape(_))),
            (r#""\""#, |e| matches!(e, UnquoteError::Short(_))),
            (r#""\x4""#, |e| matches!(e, UnquoteError::Short(_))),
            (r#""\xg0""#, |e| matches!(e, UnquoteError::BadEscape(_))),
            (r#""\400""#, |e| matches!(e, UnquoteError::BadEscape(_))),
            (r#""\18a""#, |e| matches!(e, UnquoteError::BadEscape(_))),
            (r#""\ud800""#, |e| matches!(e, UnquoteError::BadEscape(_))),
            (r#""\U00110000""#, |e| {
                matches!(e, UnquoteError::BadEscape(_))
            }),
            (r#""\u+0e9""#, |e| matches!(e, UnquoteError::BadEscape(_))),
        ];
        for (quoted, expected) in cases {
            let got = go_unquote(quoted.as_bytes());
            assert!(got.as_ref().is_err_and(expected), "{quoted}: got {got:?}");
        }
    }
}
