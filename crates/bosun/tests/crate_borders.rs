//! No library crate hands another a failure as text: every function, method, callback and
//! error variant another crate can reach carries a typed error (issue 30). Checked with
//! `scripts/string-errors`, which lists the reachable items whose error is a `String`; the
//! only ones allowed are below, each with its reason. A new one fails this test: give it a
//! type (or, if text is all there is, add it here with why).

use std::collections::BTreeSet;
use std::process::Command;

/// Reachable items whose error is text on purpose: nothing typed lies beneath the words.
const ALLOWED: &[(&str, &str)] = &[
    (
        "helm::loader::chart::ChartError::Invalid",
        "Helm's own wording about a chart's content",
    ),
    (
        "helm::loader::chart::ChartError::Archive",
        "Helm's own wording about an archive's entries",
    ),
    (
        "iop::profile::ProfileError::UnknownFormat",
        "istioctl's wording, naming the format asked for",
    ),
    (
        "iop::profile::ProfileError::ConfigPath",
        "istioctl's wording, naming the path asked for",
    ),
    (
        "operator::RenderError::Failed",
        "the render may run in a child process, whose failure arrives as text",
    ),
];

#[test]
fn library_crates_return_typed_errors() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new("python3")
        .arg(root.join("scripts/string-errors"))
        .output()
        .expect("running scripts/string-errors with python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let found: BTreeSet<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let (_crate, _kind, path) = (words.next()?, words.next()?, words.next()?);
            path.contains("::").then(|| path.to_string())
        })
        .collect();
    let allowed: BTreeSet<String> = ALLOWED.iter().map(|(p, _)| p.to_string()).collect();
    let new: Vec<&String> = found.difference(&allowed).collect();
    let gone: Vec<&String> = allowed.difference(&found).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "items whose error is text, not allowed: {new:?}; allowed but no longer found (remove them from ALLOWED): {gone:?}"
    );
}
