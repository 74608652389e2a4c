//! `bosun precheck` (istioctl's `x precheck`) and `install --precheck`: renders the inputs as
//! `install` would, reads the cluster (`cluster::Client::precheck_facts`) and prints
//! `assess::precheck`'s findings, each with its stable code and a one-line fix.
//!
//! Exit status: 0 when no finding is an Error (warnings are printed), 1 when one is (or a
//! Warning with `--fail-on-warning`), 2 when precheck could not run (invalid input, no cluster,
//! an unreadable Kubernetes version). Checks that could not run because of the user's rights
//! are findings (BOSUN-PRE004), not failures.
//!
//! Where it differs from istioctl, on purpose: `-f` is an IstioOperator file (as for
//! `install`), so istioctl's `-f/--from-version` is `--from-version` only; it checks the
//! permissions of the install the inputs render (every kind, every verb, every namespace)
//! rather than `create` on eleven fixed kinds; warnings alone exit 0 (istioctl exits 1 on any
//! Warning) unless `--fail-on-warning`; istioctl's `AlphaAnnotation` analyzer (IST0136, Info
//! level, hidden by default) is not run.

use std::io::Write;

use assess::precheck::{Finding, Level};
use clap::{Args, ValueEnum};

use crate::mesh::{InputArgs, MeshFailure};

/// How findings are printed (istioctl's `-o`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// istioctl's lines (`Error [IST0141] (Cluster) …`), each followed by its fix.
    #[default]
    Log,
    /// A JSON list of findings (istioctl's fields plus `fix`).
    Json,
    /// The same as YAML.
    Yaml,
}

#[derive(Args, Debug)]
pub struct PrecheckArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub cluster: crate::target::ClusterArgs,
    /// The namespace Istio is installed into (`--set values.global.istioNamespace=NS`): where
    /// the namespaced permissions are checked.
    #[arg(short = 'i', long = "istioNamespace")]
    pub istio_namespace: Option<String>,
    /// Proceed even when the inputs fail validation.
    #[arg(long)]
    pub force: bool,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value = "log")]
    pub output: Format,
    /// The lowest level printed: Info, Warning or Error (istioctl's default: Warning).
    #[arg(long = "output-threshold", default_value = "Warning", value_parser = parse_level)]
    pub output_threshold: Level,
    /// Exit 1 on warnings too, as istioctl does.
    #[arg(long = "fail-on-warning")]
    pub fail_on_warning: bool,
    /// Also check for behaviour changes since this Istio version (`1.21`), as istioctl's
    /// `--from-version`.
    #[arg(long = "from-version")]
    pub from_version: Option<String>,
}

fn parse_level(text: &str) -> Result<Level, String> {
    Level::parse(text).ok_or_else(|| format!("invalid level {text:?} (Info, Warning or Error)"))
}

/// What a precheck ended with.
pub enum Outcome {
    /// Nothing worse than the threshold for failing.
    Passed,
    /// Findings that fail the check (exit 1).
    Failed,
}

/// The findings for the install `prepared` renders.
pub(crate) fn findings(
    prepared: &crate::prepare::Prepared,
    from_version: Option<&str>,
) -> Result<Vec<Finding>, MeshFailure> {
    // The rendered objects and, when the install makes it, the default tag's injector.
    let (rendered, default_deactivated) = prepared.install.overlap_candidates();
    let revision = prepared.install.revision();
    let install = cluster::PrecheckInstall {
        rendered: &rendered,
        revision,
        version: &prepared.install.version,
        default_deactivated,
    };
    let mut facts = prepared
        .runtime
        .block_on(prepared.client.precheck_facts(Some(install), from_version))?;
    // The catalog's judgement of the release on today's date (the pinned minimum Kubernetes
    // version is checked instead when the Kubernetes version cannot be read this way).
    let catalog = crate::release::catalog().map_err(MeshFailure)?;
    facts.lifecycle = facts.kubernetes_version.judged().map(|kubernetes| {
        release::support::lifecycle(
            &catalog,
            &prepared.install.version,
            Some(&kubernetes),
            crate::release::today(),
        )
    });
    let mut findings =
        assess::precheck::precheck(&facts).map_err(|e| MeshFailure(e.to_string()))?;
    // Helm releases of Istio's charts under the install (a check that cannot run, such as
    // listing Secrets being forbidden, is said as such, as the other checks are).
    let adoption = match prepared
        .runtime
        .block_on(prepared.install.helm_adoption(&prepared.client, false))
    {
        Ok(adoption) => adoption,
        Err(e) => {
            findings.push(assess::precheck::skipped(
                "Helm releases of Istio's charts",
                &e.to_string(),
            ));
            Default::default()
        }
    };
    findings.extend(assess::precheck::helm_installed(
        &adoption
            .releases
            .iter()
            .map(|r| {
                (
                    format!("Helm release {}/{}", r.namespace, r.release),
                    format!(
                        "chart {}-{}, revision {}, {}",
                        r.chart, r.chart_version, r.revision, r.status
                    ),
                )
            })
            .collect::<Vec<_>>(),
    ));
    Ok(findings)
}

/// istioctl's closing error, with its page for Istio `version`.
fn issues_found(version: &str) -> String {
    let docs = assess::version::Version::parse(version)
        .map(|v| format!("v{}.{}", v.major(), v.minor()))
        .unwrap_or_else(|| "latest".to_string());
    format!(
        "Issues found when checking the cluster. Istio may not be safe to install or upgrade.\nSee https://istio.io/{docs}/docs/reference/config/analysis for more information about causes and resolutions."
    )
}

fn log_text(findings: &[&Finding]) -> String {
    let mut out = String::new();
    for f in findings {
        out.push_str(&f.log_line());
        out.push_str("\n    fix: ");
        out.push_str(&f.fix);
        out.push('\n');
    }
    out
}

fn json_value(findings: &[&Finding], version: &str) -> serde_json::Value {
    serde_json::Value::Array(
        findings
            .iter()
            .map(|f| {
                let mut v = serde_json::to_value(f).unwrap_or_default();
                if let (Some(map), Some(url)) = (v.as_object_mut(), f.documentation_url(version)) {
                    map.insert("documentationUrl".into(), url.into());
                }
                v
            })
            .collect(),
    )
}

/// `bosun precheck`. `Ok(Failed)` is exit 1; errors are exit 2 (see the module docs).
pub fn precheck_command(
    args: PrecheckArgs,
    runtime: &crate::runtime::Runtime,
) -> Result<Outcome, MeshFailure> {
    let mut input = args.input.clone();
    if let Some(ns) = &args.istio_namespace {
        input.set.push(format!("values.global.istioNamespace={ns}"));
    }
    let prepared = crate::prepare::prepare(&input, args.force, &args.cluster, runtime)?;
    let findings = findings(&prepared, args.from_version.as_deref())?;
    let shown: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.level >= args.output_threshold)
        .collect();
    let text = match args.output {
        Format::Log => log_text(&shown),
        Format::Json => {
            let mut t =
                serde_json::to_string_pretty(&json_value(&shown, &prepared.install.version))
                    .map_err(|e| MeshFailure(format!("writing JSON: {e}")))?;
            t.push('\n');
            t
        }
        Format::Yaml => goyaml::json_to_yaml(&json_value(&shown, &prepared.install.version))
            .map_err(|e| MeshFailure(format!("writing YAML: {}", e.message)))?,
    };
    if shown.is_empty() && args.output == Format::Log {
        let _ = writeln!(
            std::io::stderr().lock(),
            "✔ No issues found when checking the cluster. Istio is safe to install or upgrade!\n  To get started, check out https://istio.io/latest/docs/setup/getting-started/."
        );
    } else {
        crate::mesh::write_stdout(&text)?;
    }
    match assess::precheck::exit_code(&findings, args.fail_on_warning) {
        0 => Ok(Outcome::Passed),
        _ => {
            let _ = writeln!(
                std::io::stderr().lock(),
                "Error: {}",
                issues_found(&prepared.install.version)
            );
            Ok(Outcome::Failed)
        }
    }
}

/// The release policy's refusals, which `install --force` overrides (end of life, Istio's
/// upgrade rules): with `--force`, `install --precheck` prints them and goes on, as the install
/// itself does.
const FORCED_BY_INSTALL: &[&str] = &["BOSUN-PRE002", "BOSUN-PRE007"];

/// `install --precheck`: the findings at Warning or worse go to stderr; any Error stops the
/// install before it writes anything (with `force`, not those of [`FORCED_BY_INSTALL`]).
pub(crate) fn before_install(
    prepared: &crate::prepare::Prepared,
    force: bool,
) -> Result<(), MeshFailure> {
    let mut findings = findings(prepared, None)?;
    let shown: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.level >= Level::Warning)
        .collect();
    if !shown.is_empty() {
        let _ = write!(std::io::stderr().lock(), "{}", log_text(&shown));
    }
    if force {
        findings.retain(|f| !FORCED_BY_INSTALL.contains(&f.code));
    }
    if assess::precheck::exit_code(&findings, false) != 0 {
        let errors = findings.iter().filter(|f| f.level == Level::Error).count();
        return Err(MeshFailure(format!(
            "precheck found {errors} error{} (above); nothing was installed",
            if errors == 1 { "" } else { "s" }
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closing_error_names_the_docs_of_the_version() {
        assert!(
            issues_found("1.31")
                .contains("https://istio.io/v1.31/docs/reference/config/analysis for more")
        );
        assert!(issues_found("unknown").contains("https://istio.io/latest/docs/"));
    }

    #[test]
    fn thresholds_parse_as_istioctl_levels() {
        assert_eq!(parse_level("info"), Ok(Level::Info));
        assert_eq!(parse_level("Warning"), Ok(Level::Warning));
        assert_eq!(parse_level("ERROR"), Ok(Level::Error));
        assert!(parse_level("fatal").is_err());
    }
}
