//! `bosun plan`, `bosun install --plan` and `bosun install --dry-run`: what an install would do,
//! from `cluster::Client::plan_install` (server-side dry runs), printed as a readable plan with
//! field-level changes, as one line per object, or as JSON (`-o json`). Nothing is written.

use std::fmt::Write as _;

use clap::{Args, ValueEnum};
use cluster::{Action, Plan, PlannedObject};
use manifest::diff::Change;
use serde_json::{Value, json};

use crate::mesh::{InputArgs, MeshFailure};

/// How a plan is printed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// For people: one line per object, field changes below updates.
    #[default]
    Text,
    /// For programs: one JSON document.
    Json,
}

#[derive(Args, Debug)]
pub struct PlanArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub cluster: crate::target::ClusterArgs,
    /// Proceed even when validation fails or the install would be refused (the release
    /// policy, overlapping injectors, CRD downgrades: warned instead), and plan as `install
    /// --force` would apply (taking over fields other field managers own).
    #[arg(long)]
    pub force: bool,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value = "text")]
    pub output: Format,
    /// Plan as `install --adopt` would apply: take over an Istio that helm installed (see
    /// `install --adopt`); the plan then also lists the releases adopted and their records.
    #[arg(long)]
    pub adopt: bool,
    /// Plan as `install --helm-releases` would apply: objects with Helm's markers, applied as
    /// helm's field manager; the plan then also says each Helm release's next revision and
    /// what helm changed since bosun's last record.
    #[arg(long = "helm-releases", conflicts_with = "adopt")]
    pub helm_releases: bool,
}

/// `bosun plan`: renders as install does, refuses what install refuses (the release policy,
/// overlapping injectors, CRD downgrades: the same error and exit status 1, or with `--force`
/// the same warnings), prints the plan. So `plan` exits 0 exactly when `install` would go on.
pub fn plan_command(args: PlanArgs, runtime: &crate::runtime::Runtime) -> Result<(), MeshFailure> {
    let mut prepared = crate::prepare::prepare(&args.input, args.force, &args.cluster, runtime)?;
    let recording =
        if args.helm_releases || crate::helm_records::keeps_recording(&prepared, args.adopt)? {
            Some(crate::helm_records::read(&mut prepared)?)
        } else {
            None
        };
    let adoption = crate::adopt::check(&prepared, args.adopt, "plan")?;
    prepared.check_refusals(args.force)?;
    let plan = prepared.plan(args.force || !adoption.is_empty(), recording.is_some())?;
    crate::mesh::write_stdout(&match args.output {
        Format::Text => {
            let releases = match &recording {
                Some(recording) => recording.describe(),
                None => String::new(),
            };
            render_plan(&plan) + &crate::adopt::describe(&adoption, &prepared.install) + &releases
        }
        Format::Json => render_json(&plan, recording.as_ref().map(|r| r.to_json())),
    })
}

/// `install --dry-run` and `install --plan`: prints what the install would do; a dry run fails
/// when the install would (conflicts with other field managers), as kubectl's does.
pub fn install_without_writing(
    prepared: &crate::prepare::Prepared,
    force: bool,
    recording: Option<&crate::helm_records::Recording>,
    output: Format,
    as_plan: bool,
    dry_run: bool,
) -> Result<(), MeshFailure> {
    let plan = prepared.plan(force, recording.is_some())?;
    crate::mesh::write_stdout(&match (output, as_plan) {
        (Format::Json, _) => render_json(&plan, recording.map(|r| r.to_json())),
        (_, true) => render_plan(&plan) + &recording.map(|r| r.describe()).unwrap_or_default(),
        (_, false) => render_dry_run(&plan),
    })?;
    match plan.count(Action::Conflict) {
        n if n > 0 && dry_run => Err(MeshFailure(format!(
            "the install would fail: {n} object(s) have fields other field managers own (see above); pass --force to take them over"
        ))),
        _ => Ok(()),
    }
}

fn note(o: &PlannedObject) -> String {
    o.note
        .as_deref()
        .map(|n| format!(": {n}"))
        .unwrap_or_default()
}

/// The readable plan: `+` create, `~` update (with its field changes), `!` conflict, `-`
/// delete; unchanged objects are only counted.
pub fn render_plan(plan: &Plan) -> String {
    let mut out = String::new();
    for o in &plan.objects {
        match o.action {
            Action::Create => {
                let _ = writeln!(out, "+ {} (create{})", o.object, note(o));
            }
            Action::Update => {
                match &o.note {
                    Some(why) => writeln!(out, "~ {} ({why})", o.object),
                    None => writeln!(out, "~ {}", o.object),
                }
                .ok();
                for change in &o.changes {
                    manifest::diff::write_change(&mut out, change);
                }
            }
            Action::Conflict => {
                let _ = writeln!(out, "! {} (conflict{})", o.object, note(o));
            }
            Action::Delete => {
                let _ = writeln!(out, "- {} (delete{})", o.object, note(o));
            }
            Action::Unchanged => {}
        }
    }
    let _ = writeln!(
        out,
        "Plan: {} to create, {} to update, {} to delete, {} unchanged{}.",
        plan.count(Action::Create),
        plan.count(Action::Update),
        plan.count(Action::Delete),
        plan.count(Action::Unchanged),
        match plan.count(Action::Conflict) {
            0 => String::new(),
            n => format!(", {n} in conflict"),
        }
    );
    out
}

/// `--dry-run`: one line per object with what the server says the apply would do.
pub fn render_dry_run(plan: &Plan) -> String {
    let mut out = String::new();
    for o in &plan.objects {
        let how = match (o.dry_run, &o.note) {
            (true, None) => "(server dry run)".to_string(),
            (true, Some(note)) => format!("(server dry run: {note})"),
            (false, None) => "(not dry-run)".to_string(),
            (false, Some(note)) => format!("(not dry-run: {note})"),
        };
        let _ = writeln!(out, "{} {} {how}", o.object, o.action.past_tense());
    }
    let _ = writeln!(
        out,
        "Dry run complete, nothing was changed ({} would be created, {} configured, {} unchanged{})",
        plan.count(Action::Create),
        plan.count(Action::Update),
        plan.count(Action::Unchanged),
        match (plan.count(Action::Conflict), plan.count(Action::Delete)) {
            (0, 0) => String::new(),
            (c, d) => format!(", {c} in conflict, {d} deleted"),
        }
    );
    out
}

/// One field change as JSON: `path`, `old`, `new` (a side absent when the field is).
pub(crate) fn change_json(change: &Change) -> Value {
    match change {
        Change::Changed { path, old, new } => json!({"path": path, "old": old, "new": new}),
        Change::Added { path, new } => json!({"path": path, "new": new}),
        Change::Removed { path, old } => json!({"path": path, "old": old}),
    }
}

/// The plan as one JSON document: `objects` (each with `apiVersion`, `kind`, `namespace`,
/// `name`, `action`, `note`, and for updates `changes` with `path`, `old` and `new`, a side
/// left out when the field is absent there) and `summary` counts.
/// With `--helm-releases` it also has `helmReleases` (what recording the install as Helm
/// releases would do, see [`crate::helm_records::Recording::to_json`]).
pub fn render_json(plan: &Plan, helm_releases: Option<Value>) -> String {
    let objects: Vec<Value> = plan
        .objects
        .iter()
        .map(|o| {
            json!({
                "apiVersion": o.object.api_version,
                "kind": o.object.kind,
                "namespace": o.object.namespace,
                "name": o.object.name,
                "action": o.action.to_string(),
                "note": o.note,
                "changes": o.changes.iter().map(change_json).collect::<Vec<_>>(),
            })
        })
        .collect();
    let summary: serde_json::Map<String, Value> = [
        Action::Create,
        Action::Update,
        Action::Unchanged,
        Action::Conflict,
        Action::Delete,
    ]
    .into_iter()
    .map(|a| (a.to_string(), plan.count(a).into()))
    .collect();
    let mut document = json!({"objects": objects, "summary": summary});
    if let Some(helm_releases) = helm_releases {
        document["helmReleases"] = helm_releases;
    }
    let mut text = serde_json::to_string_pretty(&document).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use vocab::ObjectRef;

    fn object(kind: &str, ns: &str, name: &str) -> ObjectRef {
        ObjectRef {
            api_version: "v1".into(),
            kind: kind.into(),
            namespace: (!ns.is_empty()).then(|| ns.to_string()),
            name: name.into(),
        }
    }

    fn sample() -> Plan {
        let mut plan = Plan {
            objects: vec![
                PlannedObject {
                    object: object("ConfigMap", "istio-system", "x"),
                    action: Action::Create,
                    changes: vec![],
                    note: None,
                    dry_run: true,
                },
                PlannedObject {
                    object: object("Deployment", "istio-system", "istiod"),
                    action: Action::Update,
                    changes: vec![
                        Change::Changed {
                            path: "spec.replicas".into(),
                            old: json!(1),
                            new: json!(2),
                        },
                        Change::Changed {
                            path: "data.mesh".into(),
                            old: json!("a: 1\nb: 2"),
                            new: json!("a: 1\nb: 3"),
                        },
                    ],
                    note: None,
                    dry_run: true,
                },
                PlannedObject {
                    object: object("Service", "istio-system", "istiod"),
                    action: Action::Unchanged,
                    changes: vec![],
                    note: None,
                    dry_run: true,
                },
                PlannedObject {
                    object: object("ServiceAccount", "istio-system", "sa"),
                    action: Action::Update,
                    changes: vec![],
                    note: Some("only field ownership changes".into()),
                    dry_run: true,
                },
            ],
        };
        plan.add_deletes([object("ConfigMap", "istio-system", "old")]);
        plan
    }

    #[test]
    fn readable_plan() {
        assert_eq!(
            render_plan(&sample()),
            "+ ConfigMap istio-system/x (create)\n\
             ~ Deployment istio-system/istiod\n    spec.replicas: 1 → 2\n    data.mesh: (text)\n      @@ line 2\n      - b: 2\n      + b: 3\n\
             ~ ServiceAccount istio-system/sa (only field ownership changes)\n\
             - ConfigMap istio-system/old (delete)\n\
             Plan: 1 to create, 2 to update, 1 to delete, 1 unchanged.\n"
        );
    }

    #[test]
    fn json_plan() {
        let v: Value = serde_json::from_str(&render_json(&sample(), None)).unwrap();
        assert_eq!(v["summary"]["update"], 2);
        assert_eq!(v["summary"]["delete"], 1);
        assert_eq!(v["objects"][1]["kind"], "Deployment");
        assert_eq!(
            v["objects"][1]["changes"][0],
            json!({"path": "spec.replicas", "old": 1, "new": 2})
        );
        assert_eq!(v["objects"][4]["action"], "delete");
    }

    #[test]
    fn dry_run_lines() {
        let text = render_dry_run(&sample());
        assert!(text.starts_with("ConfigMap istio-system/x created (server dry run)\nDeployment istio-system/istiod configured (server dry run)\n"), "{text}");
        assert!(
            text.ends_with(
                "(1 would be created, 2 configured, 1 unchanged, 0 in conflict, 1 deleted)\n"
            ),
            "{text}"
        );
    }
}
