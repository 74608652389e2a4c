//! `bosun mesh install`: one mesh over several kubeconfig contexts (multi-primary, or
//! primary-remote with `--remote`). The flags
//! are read and the files named here; the checks, the installs and the remote secrets are
//! `installer::mesh`'s (each cluster's install is `installer::Install::apply`, as for
//! `install`); this prints what it says, each line prefixed with the cluster's context.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use installer::mesh::{self, MeshEvent, Secrets};

use crate::mesh::{InputArgs, MeshFailure};

#[derive(Args, Debug)]
pub struct MeshInstallArgs {
    /// A kubeconfig context to install into and join to the mesh (repeat for each cluster; at
    /// least two). Without --cluster-name the context's name is the cluster's.
    #[arg(long = "context", value_name = "CONTEXT", required = true)]
    pub context: Vec<String>,
    /// The mesh ID of every cluster (`values.global.meshID`); default: the inputs', else
    /// mesh1.
    #[arg(long = "mesh-id", value_name = "ID")]
    pub mesh_id: Option<String>,
    /// A cluster's name in the mesh (`values.global.multiCluster.clusterName`, the remote
    /// secret's name), as CONTEXT=NAME; default: the context's name.
    #[arg(long = "cluster-name", value_name = "CONTEXT=NAME")]
    pub cluster_names: Vec<String>,
    /// A cluster's network (`values.global.network` and the Istio namespace's
    /// topology.istio.io/network label), as CONTEXT=NETWORK; give all or none. Clusters on
    /// different networks also get the east-west gateway and its cross-network Gateway.
    #[arg(long = "network", value_name = "CONTEXT=NETWORK")]
    pub networks: Vec<String>,
    /// An IstioOperator file for one cluster only, as CONTEXT=FILE (repeatable, also for one
    /// context: layered in order). Laid over the shared -f files and under the shared --set
    /// flags and the mesh's own settings (--mesh-id, --cluster-name, --network, --remote); a
    /// file that sets one of those to another value is refused.
    #[arg(long = "cluster-file", value_name = "CONTEXT=FILE")]
    pub cluster_files: Vec<String>,
    /// The API server address the other clusters reach a cluster at (its remote secret's),
    /// as CONTEXT=URL; default: the kubeconfig's.
    #[arg(long = "server", value_name = "CONTEXT=URL")]
    pub servers: Vec<String>,
    /// A context to install as a remote of the mesh's primary (repeat for each): the `remote`
    /// profile (no istiod; the primary's serves its sidecars and injection), its Istio
    /// namespace annotated topology.istio.io/controlPlaneClusters with the primary's cluster
    /// name, and its remote secret applied in the primaries only. The primary is the first
    /// --context that is not --remote.
    #[arg(long = "remote", value_name = "CONTEXT")]
    pub remotes: Vec<String>,
    /// The address (IP or DNS name) at which the remotes reach the primary's istiod
    /// (values.global.remotePilotAddress); required when they are on another network (the
    /// primary's east-west gateway's external address). Default on one network: the
    /// primary's first node's InternalIP, where a Service istiod-exposed forwards 15012 and
    /// 15017 to istiod.
    #[arg(long = "remote-pilot-address", value_name = "ADDRESS")]
    pub remote_pilot_address: Option<String>,
    /// A mesh CA directory from `bosun mesh ca` (DIR/<cluster name>/ca-cert.pem and the
    /// other three files): each cluster's `cacerts` Secret is created from it before
    /// istiod starts. Without it every cluster must hold a `cacerts` of one root already.
    #[arg(long = "ca", value_name = "DIR")]
    pub ca: Option<PathBuf>,
    #[command(flatten)]
    pub input: InputArgs,
    /// Kubernetes configuration file (default: the files $KUBECONFIG lists, merged, else
    /// ~/.kube/config).
    #[arg(short = 'c', long = "kubeconfig", value_name = "PATH")]
    pub kubeconfig: Option<PathBuf>,
    /// How long to wait for each API server to answer each request (as `install`'s).
    #[arg(long = "request-timeout", value_name = "DURATION", default_value = "30s", value_parser = crate::target::request_timeout)]
    pub request_timeout: cluster::RequestTimeout,
    /// Proceed even when validation fails or a cluster's install would be refused, and take
    /// over fields that other field managers own.
    #[arg(long)]
    pub force: bool,
    /// Do not ask for confirmation (required when stdin is not a terminal).
    #[arg(short = 'y', long = "skip-confirmation")]
    pub yes: bool,
    /// Do not wait for each component's workloads to be ready.
    #[arg(long = "no-wait")]
    pub no_wait: bool,
    /// How long each component's workloads may take to become ready (Go duration).
    #[arg(long = "readiness-timeout", default_value = "300s", value_parser = crate::duration::parse_duration)]
    pub readiness_timeout: Duration,
    /// Change nothing: print, per cluster, the steps and the objects each install would
    /// create, update or delete (server-side dry runs).
    #[arg(long)]
    pub plan: bool,
}

fn say(context: &str, line: &str) {
    let mut stdout = std::io::stdout().lock();
    for l in line.lines() {
        let _ = writeln!(stdout, "[{context}] {l}");
    }
}

fn warn(context: &str, line: &str) {
    let mut stderr = std::io::stderr().lock();
    for l in line.lines() {
        let _ = writeln!(stderr, "[{context}] ❗ {l}");
    }
}

/// Prints one cluster's event.
fn event(context: &str, event: MeshEvent<'_>) {
    match event {
        MeshEvent::Step(text) => say(context, &format!("✔ {text}")),
        MeshEvent::Warning(text) => warn(context, text),
        MeshEvent::Deleted(d) => say(
            context,
            &match d.outcome {
                cluster::DeleteOutcome::Deleted => format!("  Removed {}.", d.object),
                cluster::DeleteOutcome::AlreadyGone => format!("  {} was already gone.", d.object),
            },
        ),
        MeshEvent::Component {
            install,
            component,
            event,
        } => {
            let prefix = if install == "Istio" {
                String::new()
            } else {
                format!("{install}: ")
            };
            match event {
                cluster::InstallEvent::Installed(report) => say(
                    context,
                    &format!(
                        "✔ {prefix}{component} installed ({})",
                        crate::progress::counts(&report.report)
                    ),
                ),
                cluster::InstallEvent::Failed(e) => {
                    say(context, &format!("✘ {prefix}{component}: {e}"))
                }
                cluster::InstallEvent::Skipped { because } => say(
                    context,
                    &format!("✘ {prefix}{component} skipped because {because} failed"),
                ),
                cluster::InstallEvent::Applying | cluster::InstallEvent::Waiting(_) => {}
            }
        }
    }
}

/// Reads each `--cluster-file` (context, path) pair's file, by context in the order given;
/// with `--version`, a file that names its own install package is refused as a shared one is.
fn read_cluster_files(
    pairs: &[(String, String)],
    input: &InputArgs,
) -> Result<BTreeMap<String, Vec<iop::merge::InputFile>>, MeshFailure> {
    let mut out: BTreeMap<String, Vec<iop::merge::InputFile>> = BTreeMap::new();
    for (context, path) in pairs {
        let mut read = crate::mesh::read_inputs(std::slice::from_ref(path))
            .map_err(|e| MeshFailure(format!("--cluster-file {context}={path}: {}", e.0)))?;
        crate::mesh::refuse_package_with_version(input, &read)?;
        out.entry(context.clone()).or_default().append(&mut read);
    }
    Ok(out)
}

/// Reads `--ca DIR`'s files of each cluster (by its name in the mesh).
fn ca_files(dir: &std::path::Path, names: &[String]) -> Result<Vec<mesh::CaFiles>, MeshFailure> {
    let mut out = Vec::new();
    for name in names {
        let mut files = Vec::new();
        for file in manifest::cacerts::FILES {
            let path = dir.join(name).join(file);
            let text = std::fs::read_to_string(&path).map_err(|e| {
                MeshFailure(format!(
                    "--ca: reading {} (cluster {name}'s CA; `bosun mesh ca --cluster {name}` makes it): {}",
                    path.display(),
                    crate::io_error_text(&e)
                ))
            })?;
            if !text.contains("-----BEGIN ") {
                return Err(MeshFailure(format!(
                    "--ca: {} holds no PEM block",
                    path.display()
                )));
            }
            files.push((file.to_string(), text));
        }
        out.push(mesh::CaFiles { files });
    }
    Ok(out)
}

pub fn mesh_install(
    args: MeshInstallArgs,
    runtime: &crate::runtime::Runtime,
) -> Result<(), MeshFailure> {
    // Everything below up to the question only reads.
    let members = mesh::members(
        &args.context,
        &args.cluster_names,
        &args.networks,
        &args.servers,
    )?;
    let members = mesh::remotes(members, &args.remotes)?;
    let cluster_files = mesh::cluster_file_flags(&args.cluster_files, &args.context)?;
    let inputs = crate::mesh::inputs(&args.input)?;
    let cluster_files = read_cluster_files(&cluster_files, &args.input)?;
    // Every file read, to point at a syntax error in whichever it is.
    let mut files = inputs.files.clone();
    files.extend(cluster_files.values().flatten().cloned());
    let runtime = runtime.get()?;
    let base = cluster::Target {
        kubeconfig: args
            .kubeconfig
            .clone()
            .filter(|p| !p.as_os_str().is_empty()),
        context: None,
        request_timeout: args.request_timeout,
    };
    let connected = runtime.block_on(mesh::connect(members, &base))?;
    let control = runtime.block_on(mesh::remote_control(
        &connected,
        args.remote_pilot_address.as_deref(),
    ))?;
    let remote: Vec<bool> = connected.iter().map(|c| c.member.remote).collect();
    let packages = crate::mesh::packages();
    let renders = mesh::render_with_remotes(
        &connected,
        &mesh::MeshInputs {
            inputs,
            cluster_files,
            mesh_id: args.mesh_id.clone(),
            force: args.force,
            gke_detection: crate::mesh::gke_detection(),
        },
        &packages,
        control.as_ref(),
    );
    // The inputs are the same for every cluster: their diagnostics are printed once.
    let mut printed: Vec<String> = Vec::new();
    for (_, diagnostics) in &renders.diagnostics {
        let text: String = diagnostics.iter().map(|d| d.to_string()).collect();
        if !printed.contains(&text) {
            crate::mesh::print_diagnostics(diagnostics);
            printed.push(text);
        }
    }
    let rendered = match renders.result {
        Ok(rendered) => rendered,
        Err(mesh::RenderFailure::Pipeline { context, error }) => {
            let explained = crate::mesh::pipeline_failure(error, &files, &packages);
            return Err(MeshFailure(format!("context {context}: {}", explained.0)));
        }
        Err(e) => return Err(e.into()),
    };
    let ca = match &args.ca {
        Some(dir) => {
            // A remote has no istiod and needs no CA of its own.
            let names: Vec<String> = rendered
                .iter()
                .zip(&remote)
                .filter(|(_, remote)| !**remote)
                .map(|(r, _)| r.cluster_name.clone())
                .collect();
            Some(ca_files(dir, &names)?)
        }
        None => None,
    };
    let catalog = crate::release::catalog()?;
    let policy = mesh::Policy {
        catalog: &catalog,
        today: crate::release::today(),
        force: args.force,
    };
    let prepared = runtime
        .block_on(mesh::prepare(connected, rendered, &packages, ca, &policy))?
        .lead_remotes(control);
    for (context, warning) in &prepared.warnings {
        warn(context, warning);
    }

    if args.plan {
        let plans = runtime.block_on(prepared.plan(args.force));
        let mut out = String::new();
        let mut failed = Vec::new();
        for (context, plan) in plans {
            match plan {
                Ok(plan) => {
                    out.push_str(&format!("== context {context}\n"));
                    for step in &plan.steps {
                        out.push_str(&format!("* {step}\n"));
                    }
                    out.push_str(&crate::plan::render_plan(&plan.install));
                    if let Some(eastwest) = &plan.eastwest {
                        out.push_str("east-west gateway:\n");
                        out.push_str(&crate::plan::render_plan(eastwest));
                    }
                }
                Err(e) => failed.push(format!("context {context}: {e}")),
            }
        }
        crate::mesh::write_stdout(&out)?;
        return match failed.is_empty() {
            true => Ok(()),
            false => Err(MeshFailure(failed.join("\n"))),
        };
    }

    if !args.yes {
        let clusters: Vec<String> = prepared
            .members
            .iter()
            .map(|m| {
                format!(
                    "{} (cluster {}{})",
                    m.context(),
                    m.cluster_name,
                    if m.connected.member.remote {
                        ", remote"
                    } else {
                        ""
                    }
                )
            })
            .collect();
        crate::prompt::confirm(
            "install",
            &format!(
                "This will install Istio into {} and join them in mesh {:?}. Proceed? (y/N)",
                clusters.join(", "),
                prepared.mesh_id
            ),
        )?;
    }
    let options = cluster::InstallOptions {
        field_manager: installer::FIELD_MANAGER.to_string(),
        take_over_from: Vec::new(),
        force: args.force,
        crd_timeout: args.readiness_timeout,
        readiness_timeout: (!args.no_wait).then_some(args.readiness_timeout),
        wait_for_load_balancers: false,
        owner_labels: None,
        created_namespace_labels: Default::default(),
    };
    let report = runtime.block_on(prepared.install(&options, &event));
    let mut failures = Vec::new();
    let mut installed = Vec::new();
    for (context, result) in &report.members {
        match result {
            Ok(done) => {
                use cluster::Outcome::*;
                let r = &done.applied.report;
                say(
                    context,
                    &format!(
                        "✔ Installation complete ({} created, {} configured, {} unchanged)",
                        r.count(Created),
                        r.count(Configured),
                        r.count(Unchanged)
                    ),
                );
                installed.push(context.clone());
            }
            Err(e) => failures.push(format!("context {context}: {e}")),
        }
    }
    match &report.secrets {
        Secrets::Exchanged(pairs) => {
            let _ = writeln!(
                std::io::stdout().lock(),
                "✔ Mesh {:?}: {} clusters, {} remote secrets",
                prepared.mesh_id,
                report.members.len(),
                pairs.len()
            );
        }
        Secrets::NotExchanged => failures.push(format!(
            "no remote secrets were exchanged; {} installed, the others not: fix the cause and run the same command again (it converges)",
            if installed.is_empty() {
                "no cluster was".to_string()
            } else {
                format!("{} {}", installed.join(", "), if installed.len() == 1 { "is" } else { "are" })
            }
        )),
        Secrets::Failed { applied, failures: f } => {
            for failure in f {
                failures.push(format!("context {}: remote secret: {}", failure.context, failure.error));
            }
            failures.push(format!(
                "every cluster is installed, but {} of {} remote secrets were applied: run the same command again (it converges)",
                applied.len(),
                prepared.secret_count()
            ));
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(MeshFailure(failures.join("\n")))
    }
}
