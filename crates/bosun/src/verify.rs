//! `bosun verify-install`: renders as `install` does and checks the cluster against it with
//! `cluster::Client::verify` (every object present, as rendered, workloads ready), printing
//! istioctl's verify-install lines. Fails (exit 1) when anything is missing, differs or is not
//! ready. What bosun's catalog says of the verified Istio (end of life, the cluster's Kubernetes
//! outside its range) is told on stderr (`releasePolicy` in `-o json`) and changes no exit
//! status: the install is what was asked for, and the advice is about the release.

use std::fmt::Write as _;
use std::io::Write as _;

use clap::Args;
use cluster::{Presence, Readiness, VerifiedObject, VerifyReport};

use crate::mesh::{InputArgs, MeshFailure};

#[derive(Args, Debug)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub cluster: crate::target::ClusterArgs,
    /// Proceed even when validation of the inputs fails.
    #[arg(long)]
    pub force: bool,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value = "text")]
    pub output: crate::plan::Format,
}

/// istioctl's way of naming an object: `Deployment: istiod.istio-system`.
fn label(o: &VerifiedObject) -> String {
    match &o.object.namespace {
        Some(ns) => format!("{}: {}.{ns}", o.object.kind, o.object.name),
        None => format!("{}: {}", o.object.kind, o.object.name),
    }
}

/// The report's lines, and the problem summary when there are problems (main prints it on
/// stderr as the error).
pub fn render(report: &VerifyReport) -> (String, Option<String>) {
    let mut out = String::new();
    let (mut missing, mut differing, mut not_ready) = (0, 0, 0);
    for o in &report.objects {
        match (&o.presence, &o.readiness) {
            (Presence::Missing(why), _) => {
                missing += 1;
                let _ = writeln!(out, "✘ {}: {why}", label(o));
            }
            (Presence::Differs(changes), _) => {
                differing += 1;
                let _ = writeln!(
                    out,
                    "✘ {}: differs from the rendered object (live → rendered):",
                    label(o)
                );
                for c in changes {
                    manifest::diff::write_change(&mut out, c);
                }
            }
            (Presence::Matches, Some(Readiness::NotReady(why))) => {
                not_ready += 1;
                let _ = writeln!(out, "✘ {}: not ready: {why}", label(o));
            }
            (Presence::Matches, _) => {
                let _ = writeln!(out, "✔ {} checked successfully", label(o));
            }
        }
        if let (Presence::Differs(_), Some(Readiness::NotReady(why))) = (&o.presence, &o.readiness)
        {
            not_ready += 1;
            let _ = writeln!(out, "✘ {}: not ready: {why}", label(o));
        }
    }
    let count = |kind: &str| {
        report
            .objects
            .iter()
            .filter(|o| o.object.kind == kind)
            .count()
    };
    let _ = writeln!(
        out,
        "Checked {} custom resource definitions",
        count("CustomResourceDefinition")
    );
    let _ = writeln!(out, "Checked {} Istio Deployments", count("Deployment"));
    if report.ok() {
        let _ = writeln!(out, "✔ Istio is installed and verified successfully");
        return (out, None);
    }
    let mut summary = format!(
        "Istio installation is incomplete or does not match the inputs: {missing} missing, {differing} differing, {not_ready} not ready (of {} objects)",
        report.objects.len()
    );
    if missing + differing > 0 {
        // What was installed is not recorded in the cluster: the comparison is with what
        // these inputs render, so other inputs than the install's read as differences.
        summary.push_str(
            "\nthe objects are compared with what the given inputs render: give verify-install the inputs the install had (its -d/--manifests, --version, -f and --set flags)",
        );
    }
    (out, Some(summary))
}

/// What to do about a concern of the catalog's about an installed release: install's fix for
/// the Kubernetes range; a way up for an end-of-life release (install's fix names `--force`,
/// which means nothing here); none for a release the catalog does not know.
fn advice(concern: &release::support::Concern) -> Option<String> {
    use release::support::Concern::*;
    match concern {
        NotInCatalog { .. } => None,
        EndOfLife { .. } => Some(
            "upgrade to a supported release (`bosun version --list` shows them; `bosun upgrade --canary --version V` moves the workloads to it)".to_string(),
        ),
        other => Some(other.fix()),
    }
}

/// The catalog's concerns as verify-install tells them on stderr: `❗` and a fix line for
/// end of life and the Kubernetes range, `ℹ` for a release not in the catalog.
pub fn render_release_policy(concerns: &[release::support::Concern]) -> String {
    let mut out = String::new();
    for concern in concerns {
        match advice(concern) {
            Some(fix) => {
                let _ = writeln!(out, "❗ {concern}\n    fix: {fix}");
            }
            None => {
                let _ = writeln!(out, "ℹ {concern}");
            }
        }
    }
    out
}

/// The report as one JSON document: `ok`, and `objects`, each with `apiVersion`, `kind`,
/// `namespace`, `name`, `status` (`missing`, `differs`, `matches`), `reason` (why missing),
/// `changes` (live → rendered, as in `plan -o json`) and `ready` (`null` for non-workloads)
/// with `notReadyReason`; and `releasePolicy`: what the catalog says of the verified release
/// (each `kind`, as `release::support::Concern::kind`, `message` and `fix`, `null` when there
/// is nothing to do), which `ok` does not count.
pub fn render_json(report: &VerifyReport, concerns: &[release::support::Concern]) -> String {
    let objects: Vec<serde_json::Value> = report
        .objects
        .iter()
        .map(|o| {
            let (status, reason, changes) = match &o.presence {
                Presence::Missing(why) => ("missing", Some(why.as_str()), Vec::new()),
                Presence::Differs(changes) => (
                    "differs",
                    None,
                    changes.iter().map(crate::plan::change_json).collect(),
                ),
                Presence::Matches => ("matches", None, Vec::new()),
            };
            let (ready, not_ready_reason) = match &o.readiness {
                None => (None, None),
                Some(Readiness::Ready) => (Some(true), None),
                Some(Readiness::NotReady(why)) => (Some(false), Some(why.as_str())),
            };
            serde_json::json!({
                "apiVersion": o.object.api_version,
                "kind": o.object.kind,
                "namespace": o.object.namespace,
                "name": o.object.name,
                "status": status,
                "reason": reason,
                "changes": changes,
                "ready": ready,
                "notReadyReason": not_ready_reason,
            })
        })
        .collect();
    let policy: Vec<serde_json::Value> = concerns
        .iter()
        .map(|c| {
            serde_json::json!({
                "kind": c.kind(),
                "message": c.to_string(),
                "fix": advice(c),
            })
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&serde_json::json!({
        "ok": report.ok(),
        "objects": objects,
        "releasePolicy": policy,
    }))
    .unwrap_or_default();
    text.push('\n');
    text
}

pub fn verify_install(
    args: VerifyArgs,
    runtime: &crate::runtime::Runtime,
) -> Result<(), MeshFailure> {
    let prepared = crate::prepare::prepare(&args.input, args.force, &args.cluster, runtime)?;
    let objects: Vec<serde_json::Value> = prepared.install.objects().cloned().collect();
    let report = prepared
        .runtime
        .block_on(prepared.client.verify(&objects, installer::FIELD_MANAGER))?;
    let concerns = prepared.release_lifecycle()?;
    let (text, problems) = render(&report);
    crate::mesh::write_stdout(&match args.output {
        crate::plan::Format::Text => text,
        crate::plan::Format::Json => render_json(&report, &concerns),
    })?;
    if args.output == crate::plan::Format::Text {
        let _ = write!(
            std::io::stderr().lock(),
            "{}",
            render_release_policy(&concerns)
        );
    }
    match problems {
        None => Ok(()),
        Some(summary) => Err(MeshFailure(summary)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use manifest::diff::Change;
    use serde_json::json;
    use vocab::ObjectRef;

    fn object(kind: &str, ns: Option<&str>, name: &str, presence: Presence) -> VerifiedObject {
        VerifiedObject {
            object: ObjectRef {
                api_version: "v1".into(),
                kind: kind.into(),
                namespace: ns.map(str::to_string),
                name: name.into(),
            },
            presence,
            readiness: None,
        }
    }

    #[test]
    fn lines_and_summary() {
        let mut istiod = object(
            "Deployment",
            Some("istio-system"),
            "istiod",
            Presence::Matches,
        );
        istiod.readiness = Some(Readiness::NotReady("0/1 replicas ready".into()));
        let report = VerifyReport {
            objects: vec![
                object("ClusterRole", None, "istiod", Presence::Matches),
                istiod,
                object(
                    "ConfigMap",
                    Some("istio-system"),
                    "istio",
                    Presence::Missing("not found".into()),
                ),
                object(
                    "Service",
                    Some("istio-system"),
                    "istiod",
                    Presence::Differs(vec![Change::Changed {
                        path: "spec.type".into(),
                        old: json!("NodePort"),
                        new: json!("ClusterIP"),
                    }]),
                ),
            ],
        };
        let (text, summary) = render(&report);
        assert_eq!(
            text,
            "✔ ClusterRole: istiod checked successfully\n\
             ✘ Deployment: istiod.istio-system: not ready: 0/1 replicas ready\n\
             ✘ ConfigMap: istio.istio-system: not found\n\
             ✘ Service: istiod.istio-system: differs from the rendered object (live → rendered):\n    spec.type: \"NodePort\" → \"ClusterIP\"\n\
             Checked 0 custom resource definitions\n\
             Checked 1 Istio Deployments\n"
        );
        assert_eq!(
            summary.as_deref(),
            Some(
                "Istio installation is incomplete or does not match the inputs: 1 missing, 1 differing, 1 not ready (of 4 objects)\n\
                 the objects are compared with what the given inputs render: give verify-install the inputs the install had (its -d/--manifests, --version, -f and --set flags)"
            )
        );
        let ok = VerifyReport {
            objects: vec![object("ClusterRole", None, "istiod", Presence::Matches)],
        };
        let (text, summary) = render(&ok);
        assert!(text.ends_with("✔ Istio is installed and verified successfully\n"));
        assert_eq!(summary, None);
    }

    #[test]
    fn json_report() {
        let mut istiod = object("Deployment", Some("n"), "istiod", Presence::Matches);
        istiod.readiness = Some(Readiness::NotReady("0/1 replicas ready".into()));
        let report = VerifyReport {
            objects: vec![
                istiod,
                object(
                    "ConfigMap",
                    Some("n"),
                    "c",
                    Presence::Missing("not found".into()),
                ),
            ],
        };
        let ended = release::support::Concern::EndOfLife {
            version: "1.9.9".into(),
            minor: "1.9".into(),
            since: Some("2021-10-08".into()),
        };
        let unknown = release::support::Concern::NotInCatalog {
            version: "1.99.0".into(),
        };
        let v: serde_json::Value =
            serde_json::from_str(&render_json(&report, &[ended, unknown])).unwrap();
        assert_eq!(v["releasePolicy"][0]["kind"], "end-of-life");
        assert_eq!(
            v["releasePolicy"][0]["message"],
            "Istio 1.9.9 is end of life: support for 1.9 ended 2021-10-08"
        );
        assert!(
            v["releasePolicy"][0]["fix"]
                .as_str()
                .unwrap()
                .starts_with("upgrade to a supported release")
        );
        assert_eq!(v["releasePolicy"][1]["kind"], "not-in-catalog");
        assert_eq!(v["releasePolicy"][1]["fix"], serde_json::Value::Null);
        assert_eq!(v["ok"], false);
        assert_eq!(v["objects"][0]["ready"], false);
        assert_eq!(v["objects"][0]["notReadyReason"], "0/1 replicas ready");
        assert_eq!(v["objects"][1]["status"], "missing");
        assert_eq!(v["objects"][1]["reason"], "not found");
        assert_eq!(v["objects"][1]["ready"], serde_json::Value::Null);
    }
}
