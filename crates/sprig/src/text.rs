//! More of Sprig's string functions: goutils' abbreviate/wrap/initials/swapcase, xstrings' case
//! conversions and shuffle, base32, the other hashes, random strings, and small leftovers
//! (`hello`, `typeIsLike`, the `os*` path functions, `mustRegexReplaceAllLiteral`).

use std::sync::LazyLock;

use gotemplate::{ArgType, FuncError, FuncMap, IntKind, Value};
use regex::Regex;

use super::{def, n, s};

const ANY: ArgType = ArgType::Any;
const INT: ArgType = ArgType::Int(IntKind::Int);
const STR: ArgType = ArgType::String;

/// Go's `unicode` general-category tests, answered by the regex crate's Unicode tables.
struct Cats {
    upper: Regex,
    lower: Regex,
    title: Regex,
    letter: Regex,
    number: Regex,
    punct: Regex,
}

static CATS: LazyLock<Cats> = LazyLock::new(|| Cats {
    upper: Regex::new(r"^\p{Lu}$").unwrap(),
    lower: Regex::new(r"^\p{Ll}$").unwrap(),
    title: Regex::new(r"^\p{Lt}$").unwrap(),
    letter: Regex::new(r"^\p{L}$").unwrap(),
    number: Regex::new(r"^\p{N}$").unwrap(),
    punct: Regex::new(r"^\p{P}$").unwrap(),
});

fn cat(re: &Regex, c: char) -> bool {
    let mut buf = [0u8; 4];
    re.is_match(c.encode_utf8(&mut buf))
}

pub(super) fn is_upper(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_uppercase();
    }
    cat(&CATS.upper, c)
}

pub(super) fn is_lower(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_lowercase();
    }
    cat(&CATS.lower, c)
}

fn is_title(c: char) -> bool {
    !c.is_ascii() && cat(&CATS.title, c)
}

fn is_letter(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    cat(&CATS.letter, c)
}

fn is_number(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    cat(&CATS.number, c)
}

fn is_punct(c: char) -> bool {
    cat(&CATS.punct, c)
}

/// Go's `unicode.IsSpace`.
fn is_space(c: char) -> bool {
    c.is_whitespace()
}

/// Go's simple (one rune to one rune) case mappings.
fn simple_map(c: char, upper: bool) -> char {
    let mut it: Vec<char> = if upper {
        c.to_uppercase().collect()
    } else {
        c.to_lowercase().collect()
    };
    if it.len() == 1 { it.pop().unwrap() } else { c }
}

fn to_upper(c: char) -> char {
    simple_map(c, true)
}

fn to_lower(c: char) -> char {
    simple_map(c, false)
}

/// Go's `unicode.ToTitle`: the upper case, except for the digraphs that have a title form.
fn to_title(c: char) -> char {
    match c {
        '\u{1C4}'..='\u{1C6}' => '\u{1C5}',
        '\u{1C7}'..='\u{1C9}' => '\u{1C8}',
        '\u{1CA}'..='\u{1CC}' => '\u{1CB}',
        '\u{1F1}'..='\u{1F3}' => '\u{1F2}',
        _ => to_upper(c),
    }
}

/// `str[lo:hi]` on bytes (cuts inside a character become U+FFFD, where Go keeps raw bytes).
fn bytes_str(text: &str, lo: usize, hi: usize) -> String {
    String::from_utf8_lossy(&text.as_bytes()[lo..hi]).into_owned()
}

/// goutils' `AbbreviateFull` (errors are dropped by Sprig: they give "").
fn abbreviate_full(text: &str, offset: i64, max_width: i64) -> String {
    let len = text.len() as i64;
    if text.is_empty() || max_width < 4 {
        return String::new();
    }
    if len <= max_width {
        return text.to_string();
    }
    let mut offset = offset.min(len);
    if len - offset < max_width - 3 {
        offset = len - (max_width - 3);
    }
    if offset <= 4 {
        return format!("{}...", bytes_str(text, 0, (max_width - 3) as usize));
    }
    if max_width < 7 {
        return String::new();
    }
    if offset + max_width - 3 < len {
        let rest = bytes_str(text, offset as usize, len as usize);
        return format!("...{}", abbreviate_full(&rest, 0, max_width - 3));
    }
    format!(
        "...{}",
        bytes_str(text, (len - (max_width - 3)) as usize, len as usize)
    )
}

/// goutils' `WrapCustom`.
fn wrap_custom(text: &str, width: i64, newline: &str, long_words: bool) -> String {
    if text.is_empty() {
        return String::new();
    }
    let newline = if newline.is_empty() { "\n" } else { newline };
    let width = width.max(1) as usize;
    let b = text.as_bytes();
    let len = b.len();
    let mut offset = 0usize;
    let mut out: Vec<u8> = Vec::with_capacity(len);
    while len - offset > width {
        if b[offset] == b' ' {
            offset += 1;
            continue;
        }
        let end = width + offset + 1;
        let space = b[offset..end].iter().rposition(|&c| c == b' ');
        if let Some(at) = space {
            let at = at + offset;
            out.extend_from_slice(&b[offset..at]);
            out.extend_from_slice(newline.as_bytes());
            offset = at + 1;
        } else if long_words {
            let end = width + offset;
            out.extend_from_slice(&b[offset..end]);
            out.extend_from_slice(newline.as_bytes());
            offset += width;
        } else {
            let end = width + offset;
            match b[end..].iter().position(|&c| c == b' ') {
                None => {
                    out.extend_from_slice(&b[offset..]);
                    offset = len;
                }
                Some(i) => {
                    let at = i + end;
                    out.extend_from_slice(&b[offset..at]);
                    out.extend_from_slice(newline.as_bytes());
                    offset = at + 1;
                }
            }
        }
    }
    out.extend_from_slice(&b[offset..]);
    String::from_utf8_lossy(&out).into_owned()
}

/// goutils' `Initials`: it walks bytes, taking each byte as a rune.
fn initials(text: &str) -> String {
    let mut out = String::new();
    let mut gap = true;
    for &byte in text.as_bytes() {
        let ch = byte as char;
        if is_space(ch) {
            gap = true;
        } else if gap {
            out.push(ch);
            gap = false;
        }
    }
    out
}

/// goutils' `SwapCase`.
fn swap_case(text: &str) -> String {
    let mut ws = true;
    text.chars()
        .map(|c| {
            if is_upper(c) || is_title(c) {
                ws = false;
                to_lower(c)
            } else if is_lower(c) {
                if ws {
                    ws = false;
                    to_title(c)
                } else {
                    to_upper(c)
                }
            } else {
                ws = is_space(c);
                c
            }
        })
        .collect()
}

fn is_connector(c: char) -> bool {
    c == '-' || c == '_' || is_space(c)
}

/// xstrings' `isAlphabet`: a letter that is not a CJK ideograph.
fn is_alphabet(c: char) -> bool {
    if !is_letter(c) {
        return false;
    }
    !matches!(c, '\u{4E00}'..='\u{9FCC}' | '\u{3400}'..='\u{4D85}' | '\u{20000}'..='\u{2B81D}')
}

/// xstrings' `ToPascalCase` (Sprig's `camelcase`).
fn pascal_case(text: &str) -> String {
    let mut chars = text.chars().peekable();
    let mut out = String::new();
    let mut first_upper = false;
    let mut r0 = '\0';
    let mut got = false;
    for c in chars.by_ref() {
        got = true;
        if !is_connector(c) {
            first_upper = is_upper(c);
            r0 = to_upper(c);
            break;
        }
        out.push(c);
        r0 = c;
    }
    if chars.peek().is_none() {
        if got {
            out.push(r0);
        }
        return out;
    }
    for c in chars {
        let r1 = r0;
        r0 = c;
        if is_connector(r0) && is_connector(r1) {
            out.push(r1);
            continue;
        }
        if is_connector(r1) {
            first_upper = is_upper(r0);
            r0 = to_upper(r0);
        } else {
            if first_upper {
                if is_upper(r0) {
                    r0 = to_lower(r0);
                } else {
                    first_upper = false;
                }
            }
            out.push(r1);
        }
    }
    out.push(r0);
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Word {
    Invalid,
    Number,
    Upper,
    Alpha,
    Connector,
    Punct,
    Other,
}

/// The character at the start of `text`, skipping U+FFFD (xstrings skips invalid runes, and
/// Go decodes U+FFFD as `RuneError`); `prev` when only such characters remain. Returns the
/// character and the bytes consumed.
fn next_valid(text: &str, prev: char) -> (char, usize) {
    let mut size = 0;
    for c in text.chars() {
        size += c.len_utf8();
        if c != '\u{FFFD}' {
            return (c, size);
        }
    }
    (prev, size)
}

/// xstrings' `nextWord`: the type of the next word, the word and the rest.
fn next_word(text: &str) -> (Word, &str, &str) {
    if text.is_empty() {
        return (Word::Invalid, "", "");
    }
    let mut remaining = text;
    let (mut r, mut size) = next_valid(remaining, '\u{FFFD}');
    let mut offset = size;
    if r == '\u{FFFD}' {
        return (Word::Invalid, &text[..offset], &text[offset..]);
    }
    let wt;
    // Advances over characters while `keep` holds.
    macro_rules! run {
        ($keep:expr) => {
            while !remaining.is_empty() {
                let (c, sz) = next_valid(remaining, r);
                r = c;
                size = sz;
                if !$keep(r) {
                    break;
                }
                offset += size;
                remaining = &remaining[size..];
            }
        };
    }
    if is_connector(r) {
        wt = Word::Connector;
        remaining = &remaining[size..];
        run!(is_connector);
    } else if is_punct(r) {
        wt = Word::Punct;
        remaining = &remaining[size..];
        run!(is_punct);
    } else if is_upper(r) {
        wt = Word::Upper;
        remaining = &remaining[size..];
        if !remaining.is_empty() {
            let (c, sz) = next_valid(remaining, r);
            r = c;
            size = sz;
            if is_upper(r) {
                let mut prev_size = size;
                offset += size;
                remaining = &remaining[size..];
                while !remaining.is_empty() {
                    let (c, sz) = next_valid(remaining, r);
                    r = c;
                    size = sz;
                    if !is_upper(r) {
                        break;
                    }
                    prev_size = size;
                    offset += size;
                    remaining = &remaining[size..];
                }
                if !remaining.is_empty() && is_alphabet(r) {
                    offset -= prev_size;
                    remaining = &text[offset..];
                }
            } else if is_alphabet(r) {
                offset += size;
                remaining = &remaining[size..];
                run!(|c| is_alphabet(c) && !is_upper(c));
            }
        }
    } else if is_alphabet(r) {
        wt = Word::Alpha;
        remaining = &remaining[size..];
        run!(|c| is_alphabet(c) && !is_upper(c));
    } else if is_number(r) {
        wt = Word::Number;
        remaining = &remaining[size..];
        run!(is_number);
    } else {
        wt = Word::Other;
        remaining = &remaining[size..];
        run!(|c| !(is_connector(c) || is_alphabet(c) || is_number(c) || is_punct(c)));
    }
    let _ = size;
    (wt, &text[..offset], remaining)
}

/// xstrings' `toLower` helper.
fn lower_word(out: &mut String, wt: Word, word: &str, connector: char) {
    if wt != Word::Upper && wt != Word::Connector {
        out.push_str(word);
        return;
    }
    for c in word.chars() {
        if is_connector(c) {
            out.push(connector);
        } else if is_upper(c) {
            out.push(to_lower(c));
        } else {
            out.push(c);
        }
    }
}

/// xstrings' `camelCaseToLowerCase` (`snakecase`, `kebabcase`).
fn to_lower_case(text: &str, connector: char) -> String {
    if text.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    let (mut wt, mut word, mut remaining) = next_word(text);
    while !remaining.is_empty() {
        if wt != Word::Connector {
            lower_word(&mut out, wt, word, connector);
        }
        let prev = wt;
        let last = word;
        (wt, word, remaining) = next_word(remaining);
        match prev {
            Word::Number => {
                while wt == Word::Alpha || wt == Word::Number {
                    lower_word(&mut out, wt, word, connector);
                    (wt, word, remaining) = next_word(remaining);
                }
                if wt != Word::Invalid && wt != Word::Punct && wt != Word::Connector {
                    out.push(connector);
                }
            }
            Word::Connector => lower_word(&mut out, prev, last, connector),
            Word::Punct => {}
            _ => {
                if wt != Word::Number {
                    if wt != Word::Connector && wt != Word::Punct {
                        out.push(connector);
                    }
                    continue;
                }
                if remaining.is_empty() {
                    continue;
                }
                let last = word;
                (wt, word, remaining) = next_word(remaining);
                if wt != Word::Alpha {
                    lower_word(&mut out, Word::Number, last, connector);
                    if wt != Word::Connector && wt != Word::Punct {
                        out.push(connector);
                    }
                    continue;
                }
                out.push(connector);
                lower_word(&mut out, Word::Number, last, connector);
                while wt == Word::Alpha || wt == Word::Number {
                    lower_word(&mut out, wt, word, connector);
                    (wt, word, remaining) = next_word(remaining);
                }
                if wt != Word::Invalid && wt != Word::Connector && wt != Word::Punct {
                    out.push(connector);
                }
            }
        }
    }
    lower_word(&mut out, wt, word, connector);
    out
}

/// Go's `encoding/base32` standard encoding, with padding.
fn b32_encode(data: &[u8]) -> String {
    const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut out = String::new();
    for chunk in data.chunks(5) {
        let mut buf = [0u8; 5];
        buf[..chunk.len()].copy_from_slice(chunk);
        let bits = u64::from_be_bytes([0, 0, 0, buf[0], buf[1], buf[2], buf[3], buf[4]]);
        let chars = match chunk.len() {
            1 => 2,
            2 => 4,
            3 => 5,
            4 => 7,
            _ => 8,
        };
        for i in 0..8 {
            if i < chars {
                out.push(ALPHABET[((bits >> (35 - 5 * i)) & 31) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Go's `base32.StdEncoding.DecodeString`: the decoded bytes, or Go's error text
/// (`illegal base32 data at input byte N`). Newlines are dropped first, as Go does.
fn b32_decode(text: &str) -> Result<Vec<u8>, String> {
    let src: Vec<u8> = text.bytes().filter(|&b| b != b'\n' && b != b'\r').collect();
    let olen = src.len();
    let err = |at: usize| Err(format!("illegal base32 data at input byte {at}"));
    let mut out = Vec::new();
    let mut pos = 0;
    let mut end = false;
    while pos < olen && !end {
        let mut vals = [0u8; 8];
        let mut dlen = 8;
        let mut j = 0;
        while j < 8 {
            let left = olen - pos;
            if left == 0 {
                return err(olen - j);
            }
            let c = src[pos];
            pos += 1;
            let left = olen - pos;
            if c == b'=' && j >= 2 && left < 8 {
                if left + j < 7 {
                    return err(olen);
                }
                for k in 0..7 - j {
                    if left > k && src[pos + k] != b'=' {
                        return err(pos + k - 1);
                    }
                }
                dlen = j;
                end = true;
                if matches!(dlen, 1 | 3 | 6) {
                    return err(pos - 1);
                }
                break;
            }
            vals[j] = match c {
                b'A'..=b'Z' => c - b'A',
                b'2'..=b'7' => c - b'2' + 26,
                _ => return err(pos - 1),
            };
            j += 1;
        }
        let mut bits: u64 = 0;
        for v in vals {
            bits = (bits << 5) | v as u64;
        }
        let bytes = bits.to_be_bytes();
        let count = match dlen {
            2 => 1,
            4 => 2,
            5 => 3,
            7 => 4,
            _ => 5,
        };
        out.extend_from_slice(&bytes[3..3 + count]);
    }
    Ok(out)
}

fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &x in data {
        a = (a + x as u32) % 65521;
        b = (b + a) % 65521;
    }
    (b << 16) | a
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Bytes from the operating system's random source.
pub(super) fn random_bytes(n: usize) -> Vec<u8> {
    let mut buf = vec![0u8; n];
    getrandom::getrandom(&mut buf).expect("operating system random source");
    buf
}

/// A uniformly random integer in `0..bound` (`bound > 0`).
pub(super) fn random_below(bound: u64) -> u64 {
    let zone = u64::MAX - u64::MAX % bound;
    loop {
        let v = u64::from_le_bytes(random_bytes(8).try_into().unwrap());
        if v < zone {
            return v % bound;
        }
    }
}

/// goutils' `CryptoRandom` for the charsets Sprig uses: `count` characters from `charset`
/// (none for a count below 1: Sprig drops goutils' error). Go's `make([]rune, count)` panics
/// beyond its allocation limit; below it, beyond bosun's bound, the count is refused too.
fn random_string(count: i64, charset: &[u8]) -> Result<String, FuncError> {
    if count <= 0 {
        return Ok(String::new());
    }
    super::limits::go_make_slice(i128::from(count), 4)?;
    super::limits::string_within_limit(count as u128)?;
    Ok((0..count)
        .map(|_| charset[random_below(charset.len() as u64) as usize] as char)
        .collect())
}

const ALPHA: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const DIGITS: &[u8] = b"0123456789";

/// Go's `uuid.New().String()`: a random version-4 UUID.
fn uuid_v4() -> String {
    let mut b = random_bytes(16);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h = hex(&b);
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

pub(super) fn register(map: &mut FuncMap) {
    def(map, "hello", &[], None, "string", false, |_, _| {
        Ok(Value::str("Hello!"))
    });
    def(map, "abbrev", &[INT, STR], None, "string", false, |_, a| {
        let (width, text) = (n(&a, 0), s(&a, 1));
        Ok(Value::from(if width < 4 {
            text.to_string()
        } else {
            abbreviate_full(text, 0, width)
        }))
    });
    def(
        map,
        "abbrevboth",
        &[INT, INT, STR],
        None,
        "string",
        false,
        |_, a| {
            let (left, right, text) = (n(&a, 0), n(&a, 1), s(&a, 2));
            Ok(Value::from(if right < 4 || left > 0 && right < 7 {
                text.to_string()
            } else {
                abbreviate_full(text, left, right)
            }))
        },
    );
    def(map, "wrap", &[INT, STR], None, "string", false, |_, a| {
        Ok(Value::from(wrap_custom(s(&a, 1), n(&a, 0), "", false)))
    });
    def(
        map,
        "wrapWith",
        &[INT, STR, STR],
        None,
        "string",
        false,
        |_, a| Ok(Value::from(wrap_custom(s(&a, 2), n(&a, 0), s(&a, 1), true))),
    );
    def(map, "initials", &[STR], None, "string", false, |_, a| {
        Ok(Value::from(initials(s(&a, 0))))
    });
    def(map, "swapcase", &[STR], None, "string", false, |_, a| {
        Ok(Value::from(swap_case(s(&a, 0))))
    });
    def(map, "camelcase", &[STR], None, "string", false, |_, a| {
        Ok(Value::from(pascal_case(s(&a, 0))))
    });
    def(map, "snakecase", &[STR], None, "string", false, |_, a| {
        Ok(Value::from(to_lower_case(s(&a, 0), '_')))
    });
    def(map, "kebabcase", &[STR], None, "string", false, |_, a| {
        Ok(Value::from(to_lower_case(s(&a, 0), '-')))
    });
    def(map, "shuffle", &[STR], None, "string", false, |_, a| {
        let mut chars: Vec<char> = s(&a, 0).chars().collect();
        for i in (1..chars.len()).rev() {
            let j = random_below(i as u64 + 1) as usize;
            chars.swap(i, j);
        }
        Ok(Value::from(chars.into_iter().collect::<String>()))
    });
    def(map, "b32enc", &[STR], None, "string", false, |_, a| {
        Ok(Value::from(b32_encode(s(&a, 0).as_bytes())))
    });
    def(map, "b32dec", &[STR], None, "string", false, |_, a| {
        Ok(Value::from(match b32_decode(s(&a, 0)) {
            Ok(data) => String::from_utf8_lossy(&data).into_owned(),
            Err(e) => e,
        }))
    });
    def(map, "sha1sum", &[STR], None, "string", false, |_, a| {
        use sha1::Digest;
        Ok(Value::from(hex(&sha1::Sha1::digest(s(&a, 0).as_bytes()))))
    });
    def(map, "sha512sum", &[STR], None, "string", false, |_, a| {
        use sha2::Digest;
        Ok(Value::from(hex(&sha2::Sha512::digest(s(&a, 0).as_bytes()))))
    });
    def(map, "adler32sum", &[STR], None, "string", false, |_, a| {
        Ok(Value::from(adler32(s(&a, 0).as_bytes()).to_string()))
    });
    let charsets = [
        ("randAlpha", ALPHA.to_vec()),
        ("randNumeric", DIGITS.to_vec()),
        ("randAlphaNum", [ALPHA, DIGITS].concat()),
        ("randAscii", (32u8..127).collect()),
    ];
    for (name, set) in charsets {
        map.insert(
            name,
            gotemplate::Func::new(vec![INT], None, "string", move |_, a| {
                random_string(n(&a, 0), &set).map(Value::from)
            }),
        );
    }
    def(map, "randBytes", &[INT], None, "string", true, |_, a| {
        // Go's `make([]byte, count)`, then its base64 (4 bytes for every 3, the result).
        let count = n(&a, 0);
        super::limits::go_make_slice(i128::from(count), 1)?;
        super::limits::string_within_limit((count as u128).div_ceil(3) * 4)?;
        Ok(Value::from(super::base64_encode(&random_bytes(
            count as usize,
        ))))
    });
    def(map, "uuidv4", &[], None, "string", false, |_, _| {
        Ok(Value::from(uuid_v4()))
    });
    def(
        map,
        "typeIsLike",
        &[STR, ANY],
        None,
        "bool",
        false,
        |_, a| {
            let t = a[1].type_name();
            let target = s(&a, 0);
            Ok(Value::Bool(target == t || format!("*{target}") == t))
        },
    );
    def(
        map,
        "mustRegexReplaceAllLiteral",
        &[STR, STR, STR],
        None,
        "string",
        true,
        |_, a| super::strings::replace_all(&a, true, true),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_conversions() {
        assert_eq!(to_lower_case("FirstName", '_'), "first_name");
        assert_eq!(to_lower_case("HTTPServer", '_'), "http_server");
        assert_eq!(to_lower_case("NoHTTPS", '_'), "no_https");
        assert_eq!(to_lower_case("GO_PATH", '_'), "go_path");
        assert_eq!(to_lower_case("GO PATH", '_'), "go_path");
        assert_eq!(to_lower_case("GO-PATH", '_'), "go_path");
        assert_eq!(to_lower_case("http2xx", '_'), "http_2xx");
        assert_eq!(to_lower_case("HTTP20xOK", '_'), "http_20x_ok");
        assert_eq!(to_lower_case("Duration2m3s", '_'), "duration_2m3s");
        assert_eq!(to_lower_case("Bld4Floor3rd", '_'), "bld4_floor_3rd");
        assert_eq!(to_lower_case("  FirstName", '-'), "--first-name");
        assert_eq!(pascal_case("some_words"), "SomeWords");
        assert_eq!(pascal_case("http_server"), "HttpServer");
        assert_eq!(pascal_case("no_https"), "NoHttps");
        assert_eq!(pascal_case("_complex__case_"), "_Complex_Case_");
        assert_eq!(pascal_case("all"), "All");
        assert_eq!(pascal_case("GOLANG_IS_GREAT"), "GolangIsGreat");
    }

    #[test]
    fn encodings() {
        assert_eq!(b32_encode(b"foobar"), "MZXW6YTBOI======");
        assert_eq!(b32_decode("MZXW6YTBOI======").unwrap(), b"foobar");
        assert_eq!(adler32(b"Wikipedia"), 300286872);
        assert_eq!(uuid_v4().len(), 36);
    }
}
