//! `bosun mesh check` and `bosun mesh rotate-secrets`. `mesh check` reads every cluster of a mesh (kubeconfig contexts, as `mesh install`
//! takes them) through `installer::mesh_check` and prints `assess::mesh`'s findings, each with
//! its stable code, level, cluster and a one-line fix.
//!
//! Exit status, as `precheck`'s: 0 when no finding is an Error, 1 when one is, 2 when the check
//! could not run (a context that does not exist, an API server that does not answer, a read
//! refused).

use std::io::Write;
use std::path::PathBuf;

use assess::mesh::MeshFinding;
use assess::precheck::Level;
use clap::{Args, ValueEnum};

use crate::mesh::MeshFailure;

/// How findings are printed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One line per finding (`Error [BOSUN-MESH004] (cluster east) …`), each followed by its fix.
    #[default]
    Log,
    /// A JSON list of findings: code, level, cluster, message, fix.
    Json,
}

#[derive(Args, Debug)]
pub struct MeshCheckArgs {
    /// A kubeconfig context of a cluster of the mesh (repeat for each cluster; at least two).
    #[arg(long = "context", value_name = "CONTEXT", required = true)]
    pub context: Vec<String>,
    /// The Istio namespace of every cluster.
    #[arg(short = 'n', long = "namespace", default_value = "istio-system")]
    pub namespace: String,
    /// Kubernetes configuration file (default: the files $KUBECONFIG lists, merged, else
    /// ~/.kube/config).
    #[arg(short = 'c', long = "kubeconfig", value_name = "PATH")]
    pub kubeconfig: Option<PathBuf>,
    /// How long to wait for each API server (a cluster's, or one a remote secret names) to
    /// answer each request.
    #[arg(long = "request-timeout", value_name = "DURATION", default_value = "10s", value_parser = crate::target::request_timeout)]
    pub request_timeout: cluster::RequestTimeout,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value = "log")]
    pub output: Format,
}

/// What a check ended with.
pub enum Outcome {
    /// No Error finding.
    Passed,
    /// An Error finding (exit 1).
    Failed,
}

fn log_text(findings: &[MeshFinding]) -> String {
    let mut out = String::new();
    for f in findings {
        out.push_str(&f.log_line());
        if f.level > Level::Info {
            out.push_str("\n    fix: ");
            out.push_str(&f.fix);
        }
        out.push('\n');
    }
    out
}

/// `bosun mesh check`. `Ok(Failed)` is exit 1; errors are exit 2.
pub fn mesh_check(
    args: MeshCheckArgs,
    runtime: &crate::runtime::Runtime,
) -> Result<Outcome, MeshFailure> {
    let base = cluster::Target {
        kubeconfig: args
            .kubeconfig
            .clone()
            .filter(|p| !p.as_os_str().is_empty()),
        context: None,
        request_timeout: args.request_timeout,
    };
    let now = now();
    let options = installer::mesh_check::CheckOptions {
        contexts: args.context.clone(),
        namespace: args.namespace.clone(),
        probe_timeout: args.request_timeout,
        now,
    };
    let findings = runtime
        .get()?
        .block_on(installer::mesh_check::check(&options, &base))?;
    let errors = findings.iter().filter(|f| f.level == Level::Error).count();
    let warnings = findings
        .iter()
        .filter(|f| f.level == Level::Warning)
        .count();
    match args.output {
        Format::Log => {
            crate::mesh::write_stdout(&log_text(&findings))?;
            let clusters = args.context.join(", ");
            let summary = if errors == 0 {
                format!(
                    "✔ mesh check: no errors in {clusters}{}",
                    if warnings > 0 {
                        format!(" ({warnings} warning{})", plural(warnings))
                    } else {
                        String::new()
                    }
                )
            } else {
                format!(
                    "✘ mesh check: {errors} error{} in {clusters} (above)",
                    plural(errors)
                )
            };
            let _ = writeln!(std::io::stderr().lock(), "{summary}");
        }
        Format::Json => {
            let mut text = serde_json::to_string_pretty(&findings)
                .map_err(|e| MeshFailure(format!("writing JSON: {e}")))?;
            text.push('\n');
            crate::mesh::write_stdout(&text)?;
        }
    }
    Ok(if errors == 0 {
        Outcome::Passed
    } else {
        Outcome::Failed
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The clusters `mesh rotate-secrets` and `mesh disconnect` write to.
#[derive(Args, Debug)]
pub struct ClustersArgs {
    /// A kubeconfig context of a cluster of the mesh (repeat for each cluster; at least two).
    #[arg(long = "context", value_name = "CONTEXT", required = true)]
    pub context: Vec<String>,
    /// The Istio namespace of every cluster.
    #[arg(short = 'n', long = "namespace", default_value = "istio-system")]
    pub namespace: String,
    /// Kubernetes configuration file (default: the files $KUBECONFIG lists, merged, else
    /// ~/.kube/config).
    #[arg(short = 'c', long = "kubeconfig", value_name = "PATH")]
    pub kubeconfig: Option<PathBuf>,
    /// How long to wait for each API server to answer each request.
    #[arg(long = "request-timeout", value_name = "DURATION", default_value = "30s", value_parser = crate::target::request_timeout)]
    pub request_timeout: cluster::RequestTimeout,
    /// Do not ask for confirmation (required when stdin is not a terminal).
    #[arg(short = 'y', long = "skip-confirmation")]
    pub yes: bool,
}

impl ClustersArgs {
    /// The kubeconfig to find the contexts in, and the clusters to read.
    fn clusters(&self) -> (cluster::Target, installer::mesh_check::CheckOptions) {
        let base = cluster::Target {
            kubeconfig: self
                .kubeconfig
                .clone()
                .filter(|p| !p.as_os_str().is_empty()),
            context: None,
            request_timeout: self.request_timeout,
        };
        let options = installer::mesh_check::CheckOptions {
            contexts: self.context.clone(),
            namespace: self.namespace.clone(),
            probe_timeout: self.request_timeout,
            now: now(),
        };
        (base, options)
    }
}

/// `bosun mesh rotate-secrets`.
pub fn rotate_secrets(
    args: ClustersArgs,
    runtime: &crate::runtime::Runtime,
) -> Result<(), MeshFailure> {
    if !args.yes {
        crate::prompt::confirm(
            "rotate-secrets",
            &format!(
                "This will give the reader service account of {} a new token, replace every remote secret, and revoke the old tokens. Proceed? (y/N)",
                args.context.join(", ")
            ),
        )?;
    }
    let (base, options) = args.clusters();
    let packages = crate::mesh::packages();
    let said = |r: &installer::mesh_rotate::Rotated| {
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(
            stdout,
            "[{}] ✔ cluster {}: new token Secret {}/{}; remote secret replaced in {}; revoked {}",
            r.context,
            r.cluster_name,
            args.namespace,
            r.token_secret,
            r.applied_in.join(", "),
            if r.revoked.is_empty() {
                "none".to_string()
            } else {
                r.revoked.join(", ")
            }
        );
    };
    runtime
        .get()?
        .block_on(installer::mesh_rotate::rotate_secrets(
            &options, &base, &packages, &said,
        ))?;
    Ok(())
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or_default()
}

/// `bosun mesh disconnect`.
pub fn disconnect(
    args: ClustersArgs,
    runtime: &crate::runtime::Runtime,
) -> Result<(), MeshFailure> {
    if !args.yes {
        crate::prompt::confirm(
            "disconnect",
            &format!(
                "This will delete, in each of {}, the remote secrets of the others, so that their istiods stop reading each other. Proceed? (y/N)",
                args.context.join(", ")
            ),
        )?;
    }
    let (base, options) = args.clusters();
    let said = |d: &installer::mesh_disconnect::Disconnected| {
        let mut stdout = std::io::stdout().lock();
        let text = if d.deleted.is_empty() {
            "no remote secret of the others (already disconnected)".to_string()
        } else {
            d.deleted
                .iter()
                .map(|(secret, clusters)| format!("deleted {secret} ({})", clusters.join(", ")))
                .collect::<Vec<_>>()
                .join("; ")
        };
        let _ = writeln!(stdout, "[{}] ✔ {text}", d.context);
    };
    runtime
        .get()?
        .block_on(installer::mesh_disconnect::disconnect(
            &options, &base, &said,
        ))?;
    Ok(())
}
