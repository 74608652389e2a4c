//! The canonical text of a Kubernetes resource quantity (`resource.Quantity.String()`), which
//! istioctl copies into Helm values for CPU settings: `0.5` → `500m`, `2000` → `2k`,
//! `1000m` → `1`. Decimal quantities are reduced to the largest SI suffix that keeps an integer
//! mantissa; exponent forms (`1e3`) keep that form; binary ones (`1Ki`) are left as written.

use serde_json::Value;

const DECIMAL_SUFFIXES: &[(i32, &str)] = &[
    (-9, "n"),
    (-6, "u"),
    (-3, "m"),
    (0, ""),
    (3, "k"),
    (6, "M"),
    (9, "G"),
    (12, "T"),
    (15, "P"),
    (18, "E"),
];

/// A quantity given in JSON (a string, or a number as its JSON text).
pub fn canonical_from_json(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => canonical(s),
        Value::Number(n) => canonical(&n.to_string()),
        _ => None,
    }
}

/// The canonical form of `text`, or `None` when it is not a quantity.
pub fn canonical(text: &str) -> Option<String> {
    let (negative, rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let num_end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let (number, suffix) = rest.split_at(num_end);
    if number.is_empty() || number == "." || number.matches('.').count() > 1 {
        return None;
    }
    let (exp, exponent_form) = match suffix {
        s if s.starts_with(['e', 'E']) => (s[1..].parse::<i32>().ok()?, true),
        "" => (0, false),
        s => match DECIMAL_SUFFIXES.iter().find(|(_, name)| *name == s) {
            Some((e, _)) => (*e, false),
            None if ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"].contains(&s) => {
                return Some(text.to_string());
            }
            None => return None,
        },
    };
    let (int_part, frac_part) = number.split_once('.').unwrap_or((number, ""));
    let mut digits: String = format!("{int_part}{frac_part}");
    let mut exponent = exp - frac_part.len() as i32;
    digits = digits.trim_start_matches('0').to_string();
    if digits.is_empty() {
        return Some("0".to_string());
    }
    while digits.ends_with('0') {
        digits.pop();
        exponent += 1;
    }
    // Kubernetes keeps at most nanounits: smaller amounts round up to the next nano.
    if exponent < -9 {
        let drop = (-9 - exponent) as usize;
        if drop >= digits.len() {
            digits = "1".to_string();
        } else {
            let (keep, dropped) = digits.split_at(digits.len() - drop);
            let mut keep = keep.to_string();
            if dropped.bytes().any(|b| b != b'0') {
                keep = add_one(&keep);
            }
            digits = keep;
        }
        exponent = -9;
        while digits.len() > 1 && digits.ends_with('0') {
            digits.pop();
            exponent += 1;
        }
    }
    let sign = if negative { "-" } else { "" };
    if exponent_form {
        // DecimalExponent: mantissa and an exponent that is a multiple of 3.
        while exponent.rem_euclid(3) != 0 {
            digits.push('0');
            exponent -= 1;
        }
        return Some(if exponent == 0 {
            format!("{sign}{digits}")
        } else {
            format!("{sign}{digits}e{exponent}")
        });
    }
    while exponent.rem_euclid(3) != 0 || exponent > 18 {
        digits.push('0');
        exponent -= 1;
    }
    let suffix = DECIMAL_SUFFIXES
        .iter()
        .find(|(e, _)| *e == exponent)
        .map(|(_, s)| *s)?;
    Some(format!("{sign}{digits}{suffix}"))
}

fn add_one(digits: &str) -> String {
    let mut bytes = digits.as_bytes().to_vec();
    for i in (0..bytes.len()).rev() {
        if bytes[i] == b'9' {
            bytes[i] = b'0';
        } else {
            bytes[i] += 1;
            return String::from_utf8(bytes).expect("ascii digits");
        }
    }
    format!("1{}", String::from_utf8(bytes).expect("ascii digits"))
}

#[cfg(test)]
mod tests {
    use super::canonical;

    #[test]
    fn canonical_forms() {
        for (input, want) in [
            ("100m", "100m"),
            ("0.5", "500m"),
            ("1.5", "1500m"),
            ("1000m", "1"),
            ("2", "2"),
            ("2000", "2k"),
            ("0", "0"),
            ("1e3", "1e3"),
            ("0.0000000001", "1n"),
            ("128Mi", "128Mi"),
        ] {
            assert_eq!(canonical(input).as_deref(), Some(want), "{input}");
        }
        assert_eq!(canonical("abc"), None);
    }
}
