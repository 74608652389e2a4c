//! Structured logs: one `key=value` line per event on stderr (logfmt), which log collectors
//! parse without configuration: `ts=1764720000.123 level=info msg="reconciled" iop=ns/name`.

use std::fmt::Display;
use std::io::Write;

/// Quotes a value when logfmt needs it (spaces, quotes, `=`, or empty).
fn quoted(value: &str) -> String {
    if value.is_empty() || value.contains([' ', '"', '=', '\n', '\t']) {
        format!("{value:?}")
    } else {
        value.to_string()
    }
}

/// The line [`log`] prints, without the timestamp.
pub fn line(level: &str, msg: &str, fields: &[(&str, &dyn Display)]) -> String {
    let mut out = format!("level={level} msg={}", quoted(msg));
    for (key, value) in fields {
        out.push(' ');
        out.push_str(key);
        out.push('=');
        out.push_str(&quoted(&value.to_string()));
    }
    out
}

/// Prints one log line on stderr.
pub fn log(level: &str, msg: &str, fields: &[(&str, &dyn Display)]) {
    let ts = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "ts={ts:.3} {}", line(level, msg, fields));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_only_when_needed() {
        assert_eq!(
            line("info", "reconciled", &[("iop", &"ns/a"), ("took_ms", &12)]),
            "level=info msg=reconciled iop=ns/a took_ms=12"
        );
        assert_eq!(
            line(
                "error",
                "apply failed",
                &[("error", &"a \"b\""), ("x", &"")]
            ),
            r#"level=error msg="apply failed" error="a \"b\"" x="""#
        );
    }
}
