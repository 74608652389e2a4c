//! What Helm logs on stderr while rendering, in the words of Go's `log/slog` text handler
//! (`level=WARN msg="returned non-bool value" path=a.b chart=sub`).

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogLine {
    /// `INFO` or `WARN`.
    pub level: &'static str,
    pub message: String,
    pub attrs: Vec<(String, String)>,
}

impl LogLine {
    pub fn info(message: impl Into<String>) -> LogLine {
        LogLine {
            level: "INFO",
            message: message.into(),
            attrs: Vec::new(),
        }
    }

    pub fn warn(message: impl Into<String>, attrs: &[(&str, &str)]) -> LogLine {
        LogLine {
            level: "WARN",
            message: message.into(),
            attrs: attrs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }
}

/// slog's text handler quotes a value that is empty or holds a space, `=`, `"` or a
/// non-printable character.
fn slog_value(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c != ' ' && c != '=' && c != '"' && gotemplate::fmt::is_print(c));
    if plain {
        text.to_string()
    } else {
        gotemplate::fmt::quote(text)
    }
}

impl fmt::Display for LogLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "level={} msg={}", self.level, slog_value(&self.message))?;
        for (k, v) in &self.attrs {
            write!(f, " {k}={}", slog_value(v))?;
        }
        Ok(())
    }
}
