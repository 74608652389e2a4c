//! Parse and execution errors: `Display` gives Go's exact text; the fields give the parts, because
//! Helm takes Go's messages apart and reassembles them.

use std::fmt;

use crate::strconv::quote;

/// A parse error: `template: NAME:LINE: MESSAGE`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("template: {name}:{line}: {message}")]
pub struct ParseError {
    /// The name given to the parse (the file name in Helm).
    pub name: String,
    /// The line Go reports: that of the last token read.
    pub line: usize,
    pub message: String,
}

/// Where an execution error happened, as Go's `ErrorContext` reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The name of the parse the node came from (the file, also for `define`d templates).
    pub parse_name: String,
    /// 1-based line.
    pub line: usize,
    /// 0-based byte offset from the start of the line.
    pub col: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExecErrorKind {
    /// An error while executing; `location` and `context` are set when Go knew the node.
    Exec,
    /// `ExecuteTemplate` of an unknown name.
    NoTemplate {
        /// The receiver's name in Go's message (`associated with template %q`).
        root: String,
    },
}

/// An execution error, Displayed as Go prints it:
/// `template: x.yaml:3:12: executing "x.yaml" at <eq .a 0>: error calling eq: ...`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ExecError {
    pub kind: ExecErrorKind,
    /// The template being executed (Go's `executing %q`), or the unknown name for `NoTemplate`.
    pub name: String,
    pub location: Option<Location>,
    /// The node as Go prints it between `<` and `>`.
    pub context: Option<String>,
    /// The message proper (`error calling eq: incompatible types for comparison`).
    pub message: String,
}

impl ExecError {
    pub(crate) fn no_template(name: &str, root: &str) -> ExecError {
        ExecError {
            kind: ExecErrorKind::NoTemplate {
                root: root.to_string(),
            },
            name: name.to_string(),
            location: None,
            context: None,
            message: format!(
                "no template {} associated with template {}",
                quote(name),
                quote(root)
            ),
        }
    }
}

impl fmt::Display for ExecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.kind, &self.location, &self.context) {
            (ExecErrorKind::NoTemplate { .. }, _, _) => write!(f, "template: {}", self.message),
            (ExecErrorKind::Exec, Some(loc), Some(ctx)) => write!(
                f,
                "template: {}:{}:{}: executing {} at <{}>: {}",
                loc.parse_name,
                loc.line,
                loc.col,
                quote(&self.name),
                ctx,
                self.message
            ),
            _ => write!(f, "template: {}: {}", self.name, self.message),
        }
    }
}
