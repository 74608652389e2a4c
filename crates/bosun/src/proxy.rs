//! `bosun proxy status` and `bosun proxy restart`: which revision injected each workload's
//! sidecar proxies and which stale ones to restart onto the revision their namespace asks for
//! now — the restart step of a canary upgrade, which no other tool does (istioctl's
//! `proxy-status` asks istiod about connected proxies; the Sail operator's `updateWorkloads` is
//! never read). The judgement is `assess::proxies`; the reads, patches and rollout waits are
//! `cluster::Client::proxy_status`, `restart_workload` and `wait_rollouts`.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::Duration;

use assess::proxies::{RestartPlan, Selection, WorkloadProxies};
use clap::{Args, Subcommand, ValueEnum};

use crate::mesh::MeshFailure;

#[derive(Subcommand, Debug)]
pub enum ProxyCommand {
    /// List the workloads with sidecar proxies (or that ask for one): who injected their pods
    /// (revision and version), the revision their namespace or pod labels ask for now (tags
    /// resolved), and whether they are current, stale (injected by another revision, or by one
    /// no longer installed) or not injected.
    Status(StatusArgs),
    /// Restart the workloads whose pods were injected by a revision (`--revision R`) or are
    /// stale (`--stale`), as `kubectl rollout restart` does, namespace by namespace, waiting
    /// for each namespace's rollouts and stopping at the first that fails.
    Restart(RestartArgs),
}

/// How `proxy status` prints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A table, one workload (and injecting revision) a line.
    #[default]
    Table,
    /// A JSON list of rows, each with its pods' names and why it is stale.
    Json,
    /// The JSON rows as YAML.
    Yaml,
}

#[derive(Args, Debug)]
pub struct StatusArgs {
    #[command(flatten)]
    pub cluster: crate::target::ClusterArgs,
    /// Only this namespace (default: all namespaces).
    #[arg(short = 'n', long = "namespace", value_name = "NAMESPACE")]
    pub namespace: Option<String>,
    /// Only workloads injected by, or asking for, this revision (a tag is resolved).
    #[arg(long = "revision", short = 'r', value_name = "REVISION")]
    pub revision: Option<String>,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value = "table")]
    pub output: Format,
}

#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("which").required(true).args(["revision", "stale"])))]
pub struct RestartArgs {
    #[command(flatten)]
    pub cluster: crate::target::ClusterArgs,
    /// Restart the workloads with pods injected by this revision (a tag is resolved).
    #[arg(long = "revision", short = 'r', value_name = "REVISION")]
    pub revision: Option<String>,
    /// Restart every workload with stale proxies.
    #[arg(long = "stale")]
    pub stale: bool,
    /// Only this namespace (default: all namespaces).
    #[arg(short = 'n', long = "namespace", value_name = "NAMESPACE")]
    pub namespace: Option<String>,
    /// Print what would be restarted and change nothing.
    #[arg(long = "dry-run")]
    pub dry_run: bool,
    /// Restart without asking.
    #[arg(short = 'y', long = "skip-confirmation")]
    pub skip_confirmation: bool,
    /// How long to wait for each namespace's rollouts.
    #[arg(long = "timeout", default_value = "300s", value_parser = crate::duration::parse_duration)]
    pub timeout: Duration,
}

pub fn proxy(command: ProxyCommand, runtime: &crate::runtime::Runtime) -> Result<(), MeshFailure> {
    match command {
        ProxyCommand::Status(args) => status(args, runtime),
        ProxyCommand::Restart(args) => restart(args, runtime),
    }
}

fn status(args: StatusArgs, runtime: &crate::runtime::Runtime) -> Result<(), MeshFailure> {
    let found = runtime.get()?.block_on(async {
        let client = args.cluster.client().await?;
        Ok::<_, MeshFailure>(client.proxy_status(args.namespace.as_deref()).await?)
    })?;
    let mut rows = found.rows;
    if let Some(r) = &args.revision {
        let r = assess::proxies::resolve(&found.inventory, r);
        rows.retain(|row| {
            row.injected_by.as_deref() == Some(r.as_str()) || row.wants.as_deref() == Some(&r)
        });
    }
    crate::mesh::write_stdout(&match args.output {
        Format::Table => table(&rows),
        Format::Json => json(&rows)?,
        Format::Yaml => {
            let value = serde_json::to_value(&rows)
                .map_err(|e| MeshFailure(format!("writing YAML: {e}")))?;
            goyaml::json_to_yaml(&value).map_err(|e| MeshFailure(format!("writing YAML: {e}")))?
        }
    })
}

fn json(rows: &[WorkloadProxies]) -> Result<String, MeshFailure> {
    let mut text = serde_json::to_string_pretty(rows)
        .map_err(|e| MeshFailure(format!("writing JSON: {e}")))?;
    text.push('\n');
    Ok(text)
}

fn dash(cell: &Option<String>) -> String {
    cell.clone().unwrap_or_else(|| "-".to_string())
}

/// The table, padded as `revision list`'s (each cell to its column's widest plus one space).
fn table(rows: &[WorkloadProxies]) -> String {
    if rows.is_empty() {
        return "No workloads with sidecar proxies found.\n".to_string();
    }
    let mut cells = vec![
        [
            "NAMESPACE",
            "WORKLOAD",
            "PODS",
            "INJECTED BY",
            "VERSION",
            "WANTS",
            "STATUS",
        ]
        .map(str::to_string)
        .to_vec(),
    ];
    cells.extend(rows.iter().map(|r| {
        vec![
            r.namespace.clone(),
            format!("{}/{}", r.kind, r.name),
            r.pods.len().to_string(),
            dash(&r.injected_by),
            dash(&r.version),
            dash(&r.wants),
            r.status.as_str().to_string(),
        ]
    }));
    let widths: Vec<usize> = (0..cells[0].len())
        .map(|i| {
            cells
                .iter()
                .map(|r| r[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in &cells {
        let mut line = String::new();
        for (i, cell) in r.iter().enumerate() {
            let _ = write!(line, "{cell:<width$} ", width = widths[i]);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn describe_plan(plan: &RestartPlan) -> String {
    let mut out = String::new();
    for (ns, workloads) in &plan.namespaces {
        let names: Vec<String> = workloads
            .iter()
            .map(|w| format!("{}/{}", w.kind, w.name))
            .collect();
        let _ = writeln!(out, "  namespace {ns}: {}", names.join(", "));
    }
    out
}

fn restart(args: RestartArgs, runtime: &crate::runtime::Runtime) -> Result<(), MeshFailure> {
    let which = match &args.revision {
        Some(r) => Selection::Revision(r.clone()),
        None => Selection::Stale,
    };
    let what = match &args.revision {
        Some(r) => format!("injected by revision {r}"),
        None => "with stale proxies".to_string(),
    };
    let rt = runtime.get()?;
    let client = args.cluster.connect(rt)?;
    let found = rt.block_on(client.proxy_status(args.namespace.as_deref()))?;
    let plan = assess::proxies::restart_plan(&found.inventory, &found.rows, &which);
    for w in &plan.cannot_restart {
        eprintln!(
            "warning: {} {}/{}: pods {what}, but no rollout to restart (only Deployments, StatefulSets and DaemonSets have one); delete and recreate its pods yourself to re-inject them",
            w.kind, w.namespace, w.name
        );
    }
    if plan.is_empty() {
        println!("No workloads {what} to restart.");
        return Ok(());
    }
    let count = plan.workloads().count();
    if args.dry_run {
        print!(
            "Would restart {count} workload{} {what}, namespace by namespace:\n{}",
            if count == 1 { "" } else { "s" },
            describe_plan(&plan)
        );
        return Ok(());
    }
    print!(
        "Restarting {count} workload{} {what}, namespace by namespace:\n{}",
        if count == 1 { "" } else { "s" },
        describe_plan(&plan)
    );
    if !args.skip_confirmation {
        crate::prompt::confirm("restart", "Proceed? (y/N)")?;
    }
    for (i, (ns, workloads)) in plan.namespaces.iter().enumerate() {
        let left: Vec<&str> = plan.namespaces[i + 1..]
            .iter()
            .map(|(n, _)| n.as_str())
            .collect();
        let what = &what;
        let stopped = |done: &str, why: String| {
            let mut msg = format!("proxy restart stopped in namespace {ns}: {why}\n{done}");
            if !left.is_empty() {
                let _ = write!(msg, "\nnot restarted yet: namespaces {}", left.join(", "));
            }
            let again = match &args.revision {
                Some(r) => format!("bosun proxy restart --revision {r}"),
                None => "bosun proxy restart --stale".to_string(),
            };
            let _ = write!(
                msg,
                "\nfix the workload (kubectl -n {ns} rollout status <kind>/<name> and its pods' events say why), then run `{again}` again: it selects only the workloads whose pods are still {what}"
            );
            MeshFailure(msg)
        };
        for w in workloads {
            rt.block_on(client.restart_workload(w))
                .map_err(|e| stopped("", e.to_string()))?;
            println!("restarted {} {ns}/{}", w.kind, w.name);
        }
        // Each workload still rolling out is named once, with why, as the wait first sees it.
        let reported = Mutex::new(BTreeSet::new());
        let on_poll = |waiting: &[cluster::NotReadyWorkload]| {
            let mut reported = reported.lock().unwrap_or_else(|e| e.into_inner());
            for (object, why) in waiting {
                if reported.insert(object.to_string()) {
                    println!("waiting for {object}: {why}");
                }
            }
        };
        rt.block_on(client.wait_rollouts(workloads, args.timeout, &on_poll))
            .map_err(|e| {
                stopped(
                    &format!(
                        "restarted (rollout not finished): {}",
                        workloads
                            .iter()
                            .map(|w| format!("{}/{}", w.kind, w.name))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    e.to_string(),
                )
            })?;
        println!(
            "namespace {ns}: {} rolled out",
            workloads
                .iter()
                .map(|w| format!("{}/{}", w.kind, w.name))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use assess::proxies::ProxyState;

    #[test]
    fn table_has_a_line_per_row_and_dashes_for_nothing() {
        let row = |name: &str, by: Option<&str>, wants: Option<&str>, status| WorkloadProxies {
            namespace: "shop".into(),
            kind: "Deployment".into(),
            name: name.into(),
            pods: vec!["a".into(), "b".into()],
            injected_by: by.map(str::to_string),
            version: by.map(|_| "1.30.3".to_string()),
            wants: wants.map(str::to_string),
            wants_through: None,
            status,
            reason: None,
        };
        assert_eq!(
            table(&[
                row("cart", Some("stable"), Some("canary"), ProxyState::Stale),
                row("web", None, Some("canary"), ProxyState::NotInjected),
            ]),
            "\
NAMESPACE WORKLOAD        PODS INJECTED BY VERSION WANTS  STATUS
shop      Deployment/cart 2    stable      1.30.3  canary stale
shop      Deployment/web  2    -           -       canary not injected
"
        );
        assert_eq!(table(&[]), "No workloads with sidecar proxies found.\n");
    }
}
