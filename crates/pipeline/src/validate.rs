//! Layering the inputs over their profile and validating the result; the report's issues as
//! diagnostics, each with the line of its file and a caret under the column.

use std::fmt;

use iop::IstioOperator;

use crate::{Error, InstallPackages};

/// Something to tell the user, in the order it is to be told (on stderr). `Display` gives
/// the exact text, line end included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Diagnostic {
    /// A validation warning: `shown` is `file:line:col: warning: …`, its line and a caret.
    Warning {
        shown: String,
        issue: iop::validate::Issue,
    },
    /// A validation error, shown as a warning is.
    Error {
        shown: String,
        issue: iop::validate::Issue,
    },
    /// istioctl's CNI incompatibility warnings and the charts' `WARNING:` lines.
    Notice(String),
    /// Validation failed but `force` proceeds.
    Forced { summary: String },
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Diagnostic::Warning { shown, .. } | Diagnostic::Error { shown, .. } => {
                f.write_str(shown)
            }
            Diagnostic::Notice(text) => writeln!(f, "❗ {text}"),
            Diagnostic::Forced { summary } => {
                writeln!(f, "spec invalid; continuing because of --force: {summary}")
            }
        }
    }
}

/// The merged IstioOperator and its validation report.
#[derive(Debug, Clone)]
pub struct Validated {
    pub merged: IstioOperator,
    pub report: iop::validate::Report,
}

/// The inputs layered over their profile and `--set` flags, with where each value came from.
pub fn merge_inputs(
    files: &[iop::merge::InputFile],
    flags: &[String],
    packages: &InstallPackages,
) -> Result<(IstioOperator, iop::source::SourceMap), Error> {
    let read = |path: &str, profile: &str| packages.read_profile(path, profile);
    let (tree, sources) =
        iop::merge::merge_inputs_traced(files, flags, &read).map_err(Error::Merge)?;
    Ok((IstioOperator::from_tree(tree), sources))
}

/// The inputs layered over their profile and `--set` flags, and the validation report of the
/// result. The CLI and the operator word the report differently.
pub fn merge_and_validate(
    files: &[iop::merge::InputFile],
    flags: &[String],
    packages: &InstallPackages,
) -> Result<Validated, Error> {
    let (merged, sources) = merge_inputs(files, flags, packages)?;
    let report = validate(&merged, &sources, packages)?;
    Ok(Validated { merged, report })
}

/// `merged` validated with the schemas of the install package it renders from.
pub fn validate(
    merged: &IstioOperator,
    sources: &iop::source::SourceMap,
    packages: &InstallPackages,
) -> Result<iop::validate::Report, Error> {
    let own = packages.schemas(merged)?;
    Ok(iop::validate::validate_with(
        merged.tree(),
        sources,
        own.for_validation(),
    ))
}

/// The report's warnings, then (when `errors`) its errors, each shown with its line and caret.
pub fn diagnostics(
    report: &iop::validate::Report,
    files: &[iop::merge::InputFile],
    merged: &IstioOperator,
    packages: &InstallPackages,
    errors: bool,
) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = report
        .warnings
        .iter()
        .map(|w| Diagnostic::Warning {
            shown: show(w, files, merged, packages).replacen("error: ", "warning: ", 1),
            issue: w.clone(),
        })
        .collect();
    if errors {
        out.extend(
            report
                .errors
                .iter()
                .map(|e| error(e, files, merged, packages)),
        );
    }
    out
}

/// Judges the report: its errors are added to `out` and fail, unless `force` (then a note
/// says so and the pipeline goes on).
pub(crate) fn judge(
    report: &iop::validate::Report,
    files: &[iop::merge::InputFile],
    merged: &IstioOperator,
    packages: &InstallPackages,
    force: bool,
    out: &mut Vec<Diagnostic>,
) -> Result<(), Error> {
    if report.errors.is_empty() {
        return Ok(());
    }
    out.extend(
        report
            .errors
            .iter()
            .map(|e| error(e, files, merged, packages)),
    );
    let n = report.errors.len();
    let summary = format!(
        "the IstioOperator is invalid ({n} error{})",
        if n == 1 { "" } else { "s" }
    );
    if !force {
        return Err(Error::Invalid { summary });
    }
    out.push(Diagnostic::Forced { summary });
    Ok(())
}

fn error(
    issue: &iop::validate::Issue,
    files: &[iop::merge::InputFile],
    merged: &IstioOperator,
    packages: &InstallPackages,
) -> Diagnostic {
    Diagnostic::Error {
        shown: show(issue, files, merged, packages),
        issue: issue.clone(),
    }
}

/// An issue with the line of its file and a caret.
fn show(
    issue: &iop::validate::Issue,
    files: &[iop::merge::InputFile],
    merged: &IstioOperator,
    packages: &InstallPackages,
) -> String {
    iop::validate::render(issue, &issue_text(issue, files, merged, packages))
}

/// The text of the file an issue points into (a `-f` input or a profile), for its caret.
fn issue_text(
    issue: &iop::validate::Issue,
    files: &[iop::merge::InputFile],
    merged: &IstioOperator,
    packages: &InstallPackages,
) -> String {
    match &issue.origin {
        Some(iop::source::Origin::File { file, .. }) => files
            .iter()
            .find(|f| &f.name == file)
            .and_then(|f| f.source())
            .unwrap_or_default()
            .to_string(),
        Some(iop::source::Origin::Profile { name, .. }) => {
            let path = merged.install_package_path().unwrap_or_default();
            packages.read_profile(path, name).unwrap_or_default()
        }
        _ => String::new(),
    }
}
