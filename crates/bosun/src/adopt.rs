//! `--adopt` on `install` and `plan`: the command line's side of taking over a Helm-installed
//! Istio (`installer::adopt`). Without the flag, Helm releases of Istio's charts under the
//! install refuse it with a message naming them and saying what `--adopt` does; with it, the
//! live objects are checked for another release's markers and the plan says what adoption
//! changes.

use std::fmt::Write as _;
use std::io::Write as _;

use installer::adopt::Adoption;

use crate::mesh::MeshFailure;

/// Finds the Helm-installed Istio releases the prepared install renders over (reads only).
/// Without `adopt` any such release refuses `command`; with it, each rendered object marked
/// as another release's does.
pub(crate) fn check(
    prepared: &crate::prepare::Prepared<'_>,
    adopt: bool,
    command: &str,
) -> Result<Adoption, MeshFailure> {
    let adoption = prepared
        .runtime
        .block_on(prepared.install.helm_adoption(&prepared.client, adopt))?;
    if adoption.is_empty() {
        if adopt {
            let _ = writeln!(
                std::io::stderr().lock(),
                "ℹ no helm release of Istio's charts renders what this install does: nothing to adopt"
            );
        }
        return Ok(adoption);
    }
    if !adopt {
        return Err(MeshFailure(refusal(&adoption, command)));
    }
    prepared.runtime.block_on(
        prepared
            .install
            .check_adoption_markers(&prepared.client, &adoption),
    )?;
    Ok(adoption)
}

/// The refusal without `--adopt`.
pub(crate) fn refusal(adoption: &Adoption, command: &str) -> String {
    let mut out = String::from("Istio here was installed by helm: ");
    let names: Vec<String> = adoption
        .releases
        .iter()
        .map(|r| format!("release {}", r.describe()))
        .collect();
    out.push_str(&names.join(", "));
    let _ = write!(
        out,
        ".\nbosun {command} would take over their objects. Run it again with --adopt to hand them to bosun: \
         bosun's field manager takes over helm's fields, helm's field manager and release annotations are \
         removed from the objects, and the release records are deleted (helm list no longer shows them; \
         `bosun install --plan --adopt` shows every change first). Or keep Istio with helm (helm upgrade). \
         Nothing was changed."
    );
    out
}

/// What adoption changes, for `--plan`: each release, its objects' ownership and its records.
pub(crate) fn describe(adoption: &Adoption, install: &installer::Install) -> String {
    let mut out = String::new();
    if adoption.is_empty() {
        return out;
    }
    let objects = adoption.objects(install);
    for release in &adoption.releases {
        let _ = writeln!(out, "Adopt helm release {}:", release.describe());
        let _ = writeln!(
            out,
            "  {} object(s): field manager \"{}\" takes over from \"{}\"; annotations {} and {} removed",
            release.objects.len(),
            installer::FIELD_MANAGER,
            installer::helm_releases::HELM_FIELD_MANAGER,
            vocab::labels::HELM_RELEASE_NAME_ANNOTATION,
            vocab::labels::HELM_RELEASE_NAMESPACE_ANNOTATION,
        );
        for secret in &release.secrets {
            let _ = writeln!(
                out,
                "  - Secret {}/{} (helm release record: deleted)",
                release.namespace, secret
            );
        }
    }
    let _ = writeln!(
        out,
        "Adoption: {} release(s), {} object(s) handed to bosun, {} record(s) to delete.",
        adoption.releases.len(),
        objects.len(),
        adoption
            .releases
            .iter()
            .map(|r| r.secrets.len())
            .sum::<usize>()
    );
    out
}
