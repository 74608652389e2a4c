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

/// Whether an install (or plan) not asked to record Helm releases records them anyway, because
/// bosun recorded this install as Helm releases before (`installer::helm_releases::recorded_before`):
/// left alone, the records would go stale and helm would show an old manifest and values as
/// deployed. Says so on stderr, with the way to stop (`--adopt`). Never with `--adopt`, which
/// takes such releases back (reads only).
pub(crate) fn keeps_recording(
    prepared: &crate::prepare::Prepared<'_>,
    adopt: bool,
) -> Result<bool, MeshFailure> {
    if adopt {
        return Ok(false);
    }
    let recorded = prepared
        .runtime
        .block_on(prepared.install.recorded_before(&prepared.client))?;
    if recorded.is_empty() {
        return Ok(false);
    }
    let names: Vec<String> = recorded
        .iter()
        .map(|r| format!("{}/{} revision {}", r.namespace, r.release, r.revision))
        .collect();
    let _ = writeln!(
        std::io::stderr().lock(),
        "ℹ bosun recorded this install as helm releases ({}): it records them again, as with --helm-releases, \
         so that helm does not show an old manifest and old values as deployed. To stop recording and keep the \
         install, run it with --adopt (bosun takes the releases back: their records deleted, helm's field manager \
         and markers removed from the objects).",
        names.join(", ")
    );
    Ok(true)
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
                    format!(
                        "install would undo these changes and refuses: {}",
                        change.ways_on()
                    )
                } else {
                    "this install's values and chart carry these changes".to_string()
                }
            );
        }
        out
    }
}

impl Recording {
    /// What [`Recording::describe`] says, for `-o json`: per release `namespace`, `release`,
    /// `revision` (now; 0 for none), `next`, and when helm changed it since bosun's record
    /// `changedOutsideBosun`: `revision`, `status`, `description`, `deployed`, `bosunRevision`,
    /// `values` (each `path` and `change`: added, changed, removed; never the value), `chart`
    /// (`from`, `to`) when its version changed, `undone` (the paths this install would undo)
    /// and `installRefuses`.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::json;
        let releases: Vec<serde_json::Value> = self
            .planned
            .iter()
            .map(|p| {
                let mut entry = json!({
                    "namespace": p.namespace,
                    "release": p.release,
                    "revision": p.current,
                    "next": p.next,
                });
                if let Some(c) = self
                    .changes
                    .iter()
                    .find(|c| c.release == p.release && c.namespace == p.namespace)
                {
                    entry["changedOutsideBosun"] = json!({
                        "revision": c.revision,
                        "status": c.status,
                        "description": c.description,
                        "deployed": c.deployed,
                        "bosunRevision": c.bosun_revision,
                        "values": c.values.iter().map(|v| json!({"path": v.path, "change": v.kind.to_string()})).collect::<Vec<_>>(),
                        "chart": c.chart.as_ref().map(|(from, to)| json!({"from": from, "to": to})),
                        "undone": c.undone.iter().map(|v| v.path.clone()).collect::<Vec<_>>(),
                        "chartFiles": c.files.iter().map(|f| json!({"path": f.path, "change": f.kind.to_string()})).collect::<Vec<_>>(),
                        "undoneChartFiles": c.files_undone.iter().map(|f| f.path.clone()).collect::<Vec<_>>(),
                        "installRefuses": c.would_undo(),
                    });
                }
                entry
            })
            .collect();
        serde_json::Value::Array(releases)
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
    let files: Vec<String> = undoing
        .iter()
        .flat_map(|c| {
            c.files_undone
                .iter()
                .map(move |f| format!("{}/{}: {}", c.namespace, c.release, f.path))
        })
        .collect();
    let take = match (paths.is_empty(), files.is_empty()) {
        (false, _) => format!(
            "under spec.values: {}; {} shows helm's values",
            paths.join(", "),
            gets.join(", ")
        ),
        (true, true) => format!("the chart version; {} shows helm's values", gets.join(", ")),
        (true, false) => String::new(),
    };
    let charts = if files.is_empty() {
        String::new()
    } else {
        format!(
            "{}render from charts that carry helm's changed chart files ({}; install with --manifests pointing at a folder whose charts hold them) ",
            if take.is_empty() { "" } else { "and " },
            files.join(", ")
        )
    };
    let _ = write!(
        out,
        "Either {}{}and run the install again, \
         or run it with --force to re-apply bosun's render over helm's, recorded as the next revision ({}). \
         Nothing was changed.",
        if take.is_empty() {
            String::new()
        } else {
            format!("take helm's changes into your IstioOperator ({take}) ")
        },
        charts,
        undoing
            .iter()
            .map(|c| format!("{} revision {}", c.release, c.next))
            .collect::<Vec<_>>()
            .join(", ")
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use installer::helm_releases::{ValueChange, ValueChangeKind};

    fn recording(undone: bool) -> Recording {
        let values = vec![ValueChange {
            path: "pilot.env.SECRET_TOKEN".into(),
            kind: ValueChangeKind::Added,
        }];
        Recording {
            releases: HelmReleases { drafts: Vec::new() },
            planned: vec![
                PlannedRelease {
                    release: "istio-base".into(),
                    namespace: "istio-system".into(),
                    current: 1,
                    next: 1,
                },
                PlannedRelease {
                    release: "istiod".into(),
                    namespace: "istio-system".into(),
                    current: 2,
                    next: 3,
                },
            ],
            changes: vec![HelmChange {
                release: "istiod".into(),
                namespace: "istio-system".into(),
                revision: 2,
                status: "deployed".into(),
                description: "Upgrade complete".into(),
                deployed: "2026-12-07T08:00:00Z".into(),
                bosun_revision: Some(1),
                since_bosun: true,
                chart: None,
                undone: if undone { values.clone() } else { Vec::new() },
                values,
                chart_undone: false,
                files: Vec::new(),
                files_undone: Vec::new(),
                next: 3,
            }],
        }
    }

    #[test]
    fn the_plan_names_each_release_and_helms_changes_by_path() {
        assert_eq!(
            recording(true).describe(),
            "Helm release istio-system/istio-base: revision 1 (unchanged)\n\
             Helm release istio-system/istiod: revision 2 → 3\n\
             \x20 ❗ helm release istio-system/istiod: revision 2 (deployed, \"Upgrade complete\", at 2026-12-07T08:00:00Z) was not written by bosun; bosun wrote revision 1 last; changed since:\n\
             \x20   values.pilot.env.SECRET_TOKEN added\n\
             \x20 install would undo these changes and refuses: take the values into the IstioOperator, or install with --force\n"
        );
        assert!(
            recording(false)
                .describe()
                .contains("values.pilot.env.SECRET_TOKEN added — in this install's values\n  this install's values and chart carry these changes\n")
        );
    }

    #[test]
    fn the_refusal_gives_both_ways_on() {
        let r = recording(true);
        let undoing: Vec<&HelmChange> = r.changes.iter().collect();
        let text = refusal(&undoing);
        assert!(text.starts_with("helm changed releases bosun recorded, and this install would undo it:\n  helm release istio-system/istiod: revision 2"), "{text}");
        assert!(text.ends_with("Either take helm's changes into your IstioOperator (under spec.values: values.pilot.env.SECRET_TOKEN; `helm get values istiod -n istio-system` shows helm's values) and run the install again, or run it with --force to re-apply bosun's render over helm's, recorded as the next revision (istiod revision 3). Nothing was changed."), "{text}");
        assert!(recording(false).check(false).is_ok());
        assert!(r.check(false).is_err());
        assert!(r.check(true).is_ok());
    }

    #[test]
    fn json_has_paths_not_values() {
        let v = recording(true).to_json();
        assert_eq!(
            v[0],
            serde_json::json!({"namespace": "istio-system", "release": "istio-base", "revision": 1, "next": 1})
        );
        let c = &v[1]["changedOutsideBosun"];
        assert_eq!(c["bosunRevision"], 1);
        assert_eq!(
            c["values"],
            serde_json::json!([{"path": "pilot.env.SECRET_TOKEN", "change": "added"}])
        );
        assert_eq!(c["undone"], serde_json::json!(["pilot.env.SECRET_TOKEN"]));
        assert_eq!(c["installRefuses"], true);
        assert_eq!(c["chart"], serde_json::Value::Null);
    }
}
