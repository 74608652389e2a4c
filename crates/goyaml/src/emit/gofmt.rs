//! Go's `strconv.FormatFloat` for the shortest representation (`prec = -1`), in the `'e'`, `'f'`
//! and `'g'` formats, and `encoding/json`'s float format.

/// Shortest decimal digits and decimal point position of a finite, non-negative float:
/// value = 0.d1d2d3... × 10^dp. Zero has no digits and dp 0 (as Go's decimal conversion).
fn shortest_digits(abs: f64, bits32: bool) -> (Vec<u8>, i32) {
    if abs == 0.0 {
        return (Vec::new(), 0);
    }
    // Rust's `{:e}` prints the shortest round-tripping digits: "1.2345e6".
    let s = if bits32 {
        format!("{:e}", abs as f32)
    } else {
        format!("{abs:e}")
    };
    let (mant, exp) = s.split_once('e').expect("exponent");
    let exp: i32 = exp.parse().expect("exponent digits");
    let digits: Vec<u8> = mant.bytes().filter(u8::is_ascii_digit).collect();
    (digits, exp + 1)
}

/// Go `strconv.FormatFloat(f, fmt, -1, bits)` for fmt in `'e'`, `'f'`, `'g'`.
pub(crate) fn format_float(f: f64, fmt: char, bits: u32) -> String {
    // Go converts to the float32 first, which may overflow to an infinity.
    let f = if bits == 32 { f as f32 as f64 } else { f };
    if f.is_nan() {
        return "NaN".to_string();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.to_string();
    }
    let neg = f.is_sign_negative();
    let (digits, dp) = shortest_digits(f.abs(), bits == 32);
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    let nd = digits.len() as i32;
    let fmt = match fmt {
        'g' => {
            // Shortest: Go decides with precision 6.
            let exp = dp - 1;
            if nd != 0 && !(-4..6).contains(&exp) {
                'e'
            } else {
                'f'
            }
        }
        other => other,
    };
    if fmt == 'e' {
        // d.ddddde±dd
        out.push(if nd == 0 { '0' } else { digits[0] as char });
        if nd > 1 {
            out.push('.');
            for &d in &digits[1..] {
                out.push(d as char);
            }
        }
        out.push('e');
        let exp = if nd == 0 { 0 } else { dp - 1 };
        out.push(if exp < 0 { '-' } else { '+' });
        let e = exp.unsigned_abs();
        if e < 10 {
            out.push('0');
        }
        out.push_str(&e.to_string());
        return out;
    }
    // %f with max(nd - dp, 0) fraction digits.
    if dp > 0 {
        for i in 0..dp {
            out.push(if i < nd {
                digits[i as usize] as char
            } else {
                '0'
            });
        }
    } else {
        out.push('0');
    }
    let frac = (nd - dp).max(0);
    if frac > 0 {
        out.push('.');
        for i in 0..frac {
            let j = dp + i;
            out.push(if j < 0 || j >= nd {
                '0'
            } else {
                digits[j as usize] as char
            });
        }
    }
    out
}

/// `encoding/json`'s float64 encoding (the caller rejects NaN and infinities).
pub(crate) fn json_float(f: f64) -> String {
    let abs = f.abs();
    let fmt = if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        'e'
    } else {
        'f'
    };
    let mut s = format_float(f, fmt, 64);
    if fmt == 'e' {
        // Clean up e-09 to e-9.
        let b = s.as_bytes();
        let n = b.len();
        if n >= 4 && b[n - 4] == b'e' && b[n - 3] == b'-' && b[n - 2] == b'0' {
            s.remove(n - 2);
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g_format() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (-0.0, "-0"),
            (1.0, "1"),
            (1.5, "1.5"),
            (1000000.0, "1e+06"),
            (123456.0, "123456"),
            (1234567.5, "1.2345675e+06"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1e21, "1e+21"),
            (1e300, "1e+300"),
            (123456789.123, "1.23456789123e+08"),
            (9007199254740993.0, "9.007199254740992e+15"),
            (0.1, "0.1"),
            (100.0, "100"),
            (1e-320, "1e-320"),
        ];
        for (f, want) in cases {
            assert_eq!(format_float(*f, 'g', 64), *want, "{f}");
        }
        assert_eq!(format_float(0.1234567891, 'g', 32), "0.12345679");
        assert_eq!(format_float(1e20, 'g', 32), "1e+20");
        // Go converts to float32 first: past its range that is an infinity.
        assert_eq!(format_float(1e40, 'g', 32), "+Inf");
        assert_eq!(format_float(-1e40, 'g', 32), "-Inf");
    }

    #[test]
    fn json_format() {
        let cases: &[(f64, &str)] = &[
            (1.0, "1"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (1.5e-7, "1.5e-7"),
            (0.000001, "0.000001"),
            (-0.0, "-0"),
            (123456789.123, "123456789.123"),
            (1e-320, "1e-320"),
        ];
        for (f, want) in cases {
            assert_eq!(json_float(*f), *want, "{f}");
        }
    }
}
