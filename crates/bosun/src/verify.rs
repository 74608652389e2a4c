//! `bosun verify-install`: renders as `install` does and checks the cluster against it with
//! `cluster::Client::verify` (every object present, as rendered, workloads ready), printing
//! istioctl's verify-install lines. Fails (exit 1) when anything is missing, differs or is not
//! ready.

use std::fmt::Write as _;

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

/// The report as one JSON document: `ok`, and `objects`, each with `apiVersion`, `kind`,
/// `namespace`, `name`, `status` (`missing`, `differs`, `matches`), `reason` (why missing),
/// `changes` (live → rendered, as in `plan -o json`) and `ready` (`null` for non-workloads)
/// with `notReadyReason`.
pub fn render_json(report: &VerifyReport) -> String {
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
    let mut text = serde_json::to_string_pretty(&serde_json::json!({
        "ok": report.ok(),
        "objects": objects,
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
    let (text, problems) = render(&report);
    crate::mesh::write_stdout(&match args.output {
        crate::plan::Format::Text => text,
        crate::plan::Format::Json => render_json(&report),
    })?;
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
        let v: serde_json::Value = serde_json::from_str(&render_json(&report)).unwrap();
        assert_eq!(v["ok"], false);
        assert_eq!(v["objects"][0]["ready"], false);
        assert_eq!(v["objects"][0]["notReadyReason"], "0/1 replicas ready");
        assert_eq!(v["objects"][1]["status"], "missing");
        assert_eq!(v["objects"][1]["reason"], "not found");
        assert_eq!(v["objects"][1]["ready"], serde_json::Value::Null);
    }
}
