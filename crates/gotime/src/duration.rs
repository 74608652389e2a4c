//! Go's `time.ParseDuration` and `time.Duration.String`, exactly: Sprig's duration functions
//! (`duration`, `durationRound`, `ago`, `toDate` offsets) print and read durations as Go does,
//! and so do the meshConfig checks in `iop` (golang/protobuf's jsonpb reads a
//! google.protobuf.Duration with ParseDuration, so its errors are the user's, and Istio's range
//! checks print durations with String: `time 2h0m0s must be >1ms and <1h0m0s`).

use thiserror::Error;

/// Nanoseconds, as Go's `time.Duration`.
pub type Nanos = i64;

pub const MILLISECOND: Nanos = 1_000_000;
pub const SECOND: Nanos = 1_000_000_000;
pub const HOUR: Nanos = 3600 * SECOND;

/// Why ParseDuration refused a string; the messages are Go's.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DurationError {
    #[error("time: invalid duration {}", go_quote(.0))]
    Invalid(String),
    #[error("time: missing unit in duration {}", go_quote(.0))]
    MissingUnit(String),
    #[error("time: unknown unit {} in duration {}", go_quote(.unit), go_quote(.input))]
    UnknownUnit { unit: String, input: String },
}

/// Go's `strconv.Quote` for the strings these messages hold (printable text; quotes,
/// backslashes and control characters escaped).
pub fn go_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\x7f' => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn unit(u: &str) -> Option<u64> {
    Some(match u {
        "ns" => 1,
        "us" | "µs" | "μs" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "m" => 60 * 1_000_000_000,
        "h" => 3600 * 1_000_000_000,
        _ => return None,
    })
}

/// `time.ParseDuration`: a signed sequence of decimal numbers, each with an optional fraction
/// and a unit; `0` alone needs none. Overflow past int64 nanoseconds is invalid.
pub fn parse_duration(input: &str) -> Result<Nanos, DurationError> {
    let invalid = || DurationError::Invalid(input.to_string());
    let mut s = input;
    let mut neg = false;
    if let Some(c) = s.chars().next()
        && (c == '-' || c == '+')
    {
        neg = c == '-';
        s = &s[1..];
    }
    if s == "0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    const LIMIT: u64 = 1 << 63;
    let mut total: u64 = 0;
    while !s.is_empty() {
        let b = s.as_bytes();
        if !(b[0] == b'.' || b[0].is_ascii_digit()) {
            return Err(invalid());
        }
        // The integer part; overflow is an error.
        let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
        let mut v: u64 = 0;
        for &c in &b[..digits] {
            if v > (LIMIT - 1) / 10 {
                return Err(invalid());
            }
            v = v * 10 + u64::from(c - b'0');
            if v > LIMIT {
                return Err(invalid());
            }
        }
        let pre = digits > 0;
        s = &s[digits..];
        // The fraction: digits past what fits are dropped, as Go's leadingFraction does.
        let (mut frac, mut scale, mut post) = (0u64, 1f64, false);
        if s.starts_with('.') {
            s = &s[1..];
            let fb = s.as_bytes();
            let n = fb.iter().take_while(|c| c.is_ascii_digit()).count();
            let mut overflow = false;
            for &c in &fb[..n] {
                if overflow {
                    continue;
                }
                if frac > (LIMIT - 1) / 10 {
                    overflow = true;
                    continue;
                }
                let y = frac * 10 + u64::from(c - b'0');
                if y > LIMIT {
                    overflow = true;
                    continue;
                }
                frac = y;
                scale *= 10.0;
            }
            post = n > 0;
            s = &s[n..];
        }
        if !pre && !post {
            return Err(invalid());
        }
        let n = s
            .char_indices()
            .find(|(_, c)| *c == '.' || c.is_ascii_digit())
            .map_or(s.len(), |(i, _)| i);
        if n == 0 {
            return Err(DurationError::MissingUnit(input.to_string()));
        }
        let u = &s[..n];
        s = &s[n..];
        let Some(unit) = unit(u) else {
            return Err(DurationError::UnknownUnit {
                unit: u.to_string(),
                input: input.to_string(),
            });
        };
        if v > LIMIT / unit {
            return Err(invalid());
        }
        v *= unit;
        if frac > 0 {
            v += (frac as f64 * (unit as f64 / scale)) as u64;
            if v > LIMIT {
                return Err(invalid());
            }
        }
        total += v;
        if total > LIMIT {
            return Err(invalid());
        }
    }
    if neg {
        return Ok((total as i128).wrapping_neg() as i64);
    }
    if total > LIMIT - 1 {
        return Err(invalid());
    }
    Ok(total as i64)
}

/// Go's fmtFrac: the fraction of `v` at `prec` digits, trailing zeros (and a bare point)
/// dropped; returns the text and the integer part.
fn frac(mut v: u64, prec: usize) -> (String, u64) {
    let mut digits = Vec::new();
    let mut print = false;
    for _ in 0..prec {
        let d = v % 10;
        print = print || d != 0;
        if print {
            digits.push(char::from(b'0' + d as u8));
        }
        v /= 10;
    }
    if print {
        digits.push('.');
    }
    digits.reverse();
    (digits.into_iter().collect(), v)
}

/// `time.Duration.String`: `1h0m0s`, `1.5s`, `100ms`, `0s`.
pub fn format_duration(d: Nanos) -> String {
    if d == 0 {
        return "0s".to_string();
    }
    let neg = d < 0;
    let mut u = d.unsigned_abs();
    let body = if u < SECOND as u64 {
        let (prec, unit) = if u < 1_000 {
            (0, "ns")
        } else if u < 1_000_000 {
            (3, "µs")
        } else {
            (6, "ms")
        };
        let (f, int) = frac(u, prec);
        format!("{int}{f}{unit}")
    } else {
        let (f, int) = frac(u, 9);
        u = int;
        let secs = format!("{}{f}s", u % 60);
        u /= 60;
        if u > 0 {
            let mins = format!("{}m{secs}", u % 60);
            u /= 60;
            if u > 0 { format!("{u}h{mins}") } else { mins }
        } else {
            secs
        }
    };
    if neg { format!("-{body}") } else { body }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_as_go_does() {
        assert_eq!(parse_duration("10s"), Ok(10 * SECOND));
        assert_eq!(parse_duration("1h30m"), Ok(HOUR + 30 * 60 * SECOND));
        assert_eq!(parse_duration("1.5ms"), Ok(1_500_000));
        assert_eq!(parse_duration("-2s"), Ok(-2 * SECOND));
        assert_eq!(parse_duration("0"), Ok(0));
        assert_eq!(parse_duration(".5s"), Ok(SECOND / 2));
        assert_eq!(parse_duration("1µs"), Ok(1_000));
        assert_eq!(
            parse_duration("abc").unwrap_err().to_string(),
            "time: invalid duration \"abc\""
        );
        assert_eq!(
            parse_duration("5").unwrap_err().to_string(),
            "time: missing unit in duration \"5\""
        );
        assert_eq!(
            parse_duration("5x").unwrap_err().to_string(),
            "time: unknown unit \"x\" in duration \"5x\""
        );
        assert!(parse_duration("").is_err());
        assert!(parse_duration("1.s").is_ok());
        assert!(parse_duration(".s").is_err());
        assert!(parse_duration("9999999999h").is_err());
    }

    #[test]
    fn formats_as_go_does() {
        assert_eq!(format_duration(HOUR), "1h0m0s");
        assert_eq!(format_duration(MILLISECOND), "1ms");
        assert_eq!(format_duration(1_500_000_000), "1.5s");
        assert_eq!(format_duration(90 * SECOND), "1m30s");
        assert_eq!(format_duration(500), "500ns");
        assert_eq!(format_duration(1_500), "1.5µs");
        assert_eq!(format_duration(-2 * HOUR), "-2h0m0s");
        assert_eq!(format_duration(0), "0s");
    }
}
