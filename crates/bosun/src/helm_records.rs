//! `--helm-releases` on `install` and `plan`: the command line's side of recording the install
//! as Helm releases (`installer::helm_releases`). The releases are read (and checked) before
//! anything is written; a release whose newest revision helm (or another tool) wrote after
//! bosun's last one is said, with the value paths that changed; `install` refuses to undo such
//! a change unless `--force`, and a plan says what each release's record becomes.

use std::fmt::Write as _;
use std::io::Write as _;

use installer::helm_releases::{HelmChange, HelmReleases, PlannedRelease};

use crate::mesh::MeshFailure;

/// The releases an install records and their live records (read and checked, nothing
/// written); the install's objects now carry Helm's markers.
pub(crate) struct Recording {
    pub releases: HelmReleases,
    /// Each release's revision now and after the install.
    pub planned: Vec<PlannedRelease>,
    pub changes: Vec<HelmChange>,
}

/// Makes the install's release drafts, reads their records (another chart's release of the
/// same name, or a record not in helm's format, stops here) and marks the objects.
pub(crate) fn read(prepared: &mut crate::prepare::Prepared<'_>) -> Result<Recording, MeshFailure> {
    let releases = prepared.install.helm_release_drafts()?;
    let records = prepared.runtime.block_on(releases.read(&prepared.client))?;
    prepared.install.mark_helm_objects(&releases);
    let changes = releases.helm_changes(&records);
    let planned = releases.planned(&records)?;
    Ok(Recording {
        releases,
        planned,
        changes,
    })
}

impl Recording {
    /// `install`'s answer to releases helm changed: refuse when the install would undo a
    /// change, unless `force` (then it warns); a change the install's values carry already
    /// is only said.
    pub fn check(&self, force: bool) -> Result<(), MeshFailure> {
        let undoing: Vec<&HelmChange> = self.changes.iter().filter(|c| c.would_undo()).collect();
        let mut stderr = std::io::stderr().lock();
        for change in self.changes.iter().filter(|c| !c.would_undo()) {
            let _ = writeln!(
                stderr,
                "ℹ {}; this install's values carry its changes: it records revision {}",
                change.describe(),
                change.next
            );
        }
        if undoing.is_empty() {
            return Ok(());
        }
        if force {
            for change in undoing {
                let _ = writeln!(
                    stderr,
                    "❗ {}; re-applying bosun's render over it because of --force (recorded as revision {}), undoing:\n{}",
                    change.describe(),
                    change.next,
                    indented(&change.change_lines(), "    ")
                );
            }
            return Ok(());
        }
        Err(MeshFailure(refusal(&undoing)))
    }

    /// What recording would do, for a plan: each release's revision now and after, and each
    /// change helm made since bosun's record.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for p in &self.planned {
            let what = match (p.current, p.next) {
                (0, next) => format!("revision {next} (new release)"),
                (now, next) if now == next => format!("revision {now} (unchanged)"),
                (now, next) => format!("revision {now} → {next}"),
            };
            let _ = writeln!(out, "Helm release {}/{}: {what}", p.namespace, p.release);
            let Some(change) = self
                .changes
                .iter()
                .find(|c| c.release == p.release && c.namespace == p.namespace)
            else {
                continue;
            };
            let _ = writeln!(
                out,
                "  ❗ {}; changed since:\n{}",
                change.describe(),
                indented(&change.change_lines(), "    ")
            );
            let _ = writeln!(
                out,
                "  {}",
                if change.would_undo() {
                    "install would undo these changes and refuses: take them into the IstioOperator, or install with --force"
                } else {
                    "this install's values carry these changes"
                }
            );
        }
        out
    }
}

fn indented(lines: &[String], prefix: &str) -> String {
    lines
        .iter()
        .map(|l| format!("{prefix}{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The refusal: each release helm changed, what changed (paths only), and the two ways on.
fn refusal(undoing: &[&HelmChange]) -> String {
    let mut out =
        String::from("helm changed releases bosun recorded, and this install would undo it:\n");
    for change in undoing {
        let _ = writeln!(
            out,
            "  {}; changed since:\n{}",
            change.describe(),
            indented(&change.change_lines(), "    ")
        );
    }
    let paths: Vec<String> = undoing
        .iter()
        .flat_map(|c| c.undone.iter().map(|v| format!("values.{}", v.path)))
        .collect();
    let gets: Vec<String> = undoing
        .iter()
        .map(|c| format!("`helm get values {} -n {}`", c.release, c.namespace))
        .collect();
    let _ = write!(
        out,
        "Either take helm's changes into your IstioOperator ({}; {} shows helm's values) and run the install again, \
         or run it with --force to re-apply bosun's render over helm's, recorded as the next revision ({}). \
         Nothing was changed.",
        if paths.is_empty() {
            "the chart version".to_string()
        } else {
            format!("under spec.values: {}", paths.join(", "))
        },
        gets.join(", "),
        undoing
            .iter()
            .map(|c| format!("{} revision {}", c.release, c.next))
            .collect::<Vec<_>>()
            .join(", ")
    );
    out
}
