//! `bosun install`: renders as `manifest generate` does, then applies to the cluster through
//! `cluster::Client::install`, with istioctl's owner labels on every object; then prunes what
//! the installation no longer renders (see [`crate::owned`]) and creates or moves the default
//! revision tag as istioctl's installer does (see [`crate::tag`]). Validation and rendering finish before the first request, so an invalid
//! IstioOperator changes nothing in the cluster.

use std::io::Write;
use std::time::Duration;

use clap::Args;

use crate::mesh::{InputArgs, MeshFailure};

#[derive(Args, Debug)]
pub struct InstallArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub cluster: crate::target::ClusterArgs,
    /// Proceed even when validation fails, and take over fields that other field managers own
    /// (without it, such conflicts fail the install and name the other managers).
    #[arg(long)]
    pub force: bool,
    /// Do not ask for confirmation (required when stdin is not a terminal).
    #[arg(short = 'y', long = "skip-confirmation")]
    pub yes: bool,
    /// Do not wait for each component's workloads (Deployments, StatefulSets, DaemonSets, Jobs)
    /// to be ready. CustomResourceDefinitions are still waited for until Established, since
    /// later objects depend on them.
    #[arg(long = "no-wait")]
    pub no_wait: bool,
    /// Also wait until each Service of type LoadBalancer (the ingress gateway's) has an
    /// external address; off by default, as a cluster may have no load balancer to give one.
    #[arg(long = "wait-for-load-balancers", conflicts_with = "no_wait")]
    pub wait_for_load_balancers: bool,
    /// How long each component's workloads may take to become ready, and each
    /// CustomResourceDefinition to become Established (Go duration: `300s`, `5m`, `1m30s`).
    #[arg(long = "readiness-timeout", default_value = "300s", value_parser = crate::duration::parse_duration)]
    pub readiness_timeout: Duration,
    /// The longest the install may spend on the API server's requests, from its first write
    /// to its last; each wait (for readiness, for CRDs, for
    /// another install's lock) adds its own timeout to it when it begins. A duration (5m, 90s)
    /// or whole seconds; 0 is no limit.
    #[arg(long = "timeout", value_name = "DURATION", default_value = "5m", value_parser = crate::target::deadline)]
    pub timeout: crate::target::Deadline,
    /// Change nothing: server-side dry-run every object (`dryRun=All`) and print what would
    /// happen to each (created, configured, unchanged).
    #[arg(long = "dry-run", conflicts_with = "plan")]
    pub dry_run: bool,
    /// Change nothing: print the plan, each object to create, update (with the fields that
    /// would change, from a server-side dry run against the live object) or delete.
    #[arg(long)]
    pub plan: bool,
    /// Run `bosun precheck`'s checks first and stop on any Error finding.
    #[arg(long)]
    pub precheck: bool,
    /// Output format of --plan and --dry-run (`json`: the plan as one JSON document).
    #[arg(short = 'o', long = "output", value_enum, default_value = "text")]
    pub output: crate::plan::Format,
    /// Record each component as the Helm release Istio's Helm docs name (istio-base, istiod,
    /// istio-cni, ztunnel, gateways by name) in helm's own storage, with Helm's ownership
    /// markers on the objects, applied as helm's field manager: helm list, get, history,
    /// upgrade, rollback and uninstall then work on them. Once recorded, an install keeps
    /// recording without the flag; --adopt takes the releases back.
    #[arg(long = "helm-releases")]
    pub helm_releases: bool,
    /// Take over an Istio that helm installed (releases of Istio's charts whose objects this
    /// install renders): the objects are applied with bosun's field manager taking over helm's
    /// fields, helm's field manager and release annotations are removed from them, and the
    /// releases' records are deleted (helm list no longer shows them). Without it, such
    /// releases refuse the install. Releases bosun recorded (--helm-releases) are taken back
    /// the same way, which stops recording them.
    #[arg(long, conflicts_with = "helm_releases")]
    pub adopt: bool,
}

/// Asks on the terminal, inside the runtime, so that the install lock's renewal keeps running
/// while the question waits for an answer.
fn confirm(
    runtime: &tokio::runtime::Runtime,
    install: &installer::Install,
) -> Result<(), MeshFailure> {
    let question = format!(
        "This will install the Istio {:?} profile (with components: {}) into the cluster. Proceed? (y/N)",
        install.merged.profile(),
        install
            .components
            .iter()
            .map(|c| c.display_name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    crate::prompt::confirm_in(runtime, "install", question)
}

pub fn install(args: InstallArgs, runtime: &crate::runtime::Runtime) -> Result<(), MeshFailure> {
    let rendered = crate::prepare::render(&args.input, args.force, &args.cluster, runtime)?;
    if args.dry_run || args.plan {
        // They write nothing, so they take no lock: another command may be writing while they
        // read, and what they print is the cluster as it was when read, as for `bosun plan`.
        let mut prepared = rendered.prepare()?;
        let (recording, adoption) = check(&mut prepared, &args)?;
        crate::plan::install_without_writing(
            &prepared,
            args.force || !adoption.is_empty(),
            recording.as_ref(),
            args.output,
            args.plan,
            args.dry_run,
        )?;
        if args.plan && args.output == crate::plan::Format::Text {
            crate::mesh::write_stdout(&crate::adopt::describe(&adoption, &prepared.install))?;
        }
        return Ok(());
    }
    // The install lock is taken before the first check and held through the question and the
    // writes (as Terraform holds its state lock through plan, approval and apply): what the
    // checks read stays what the install writes over, and is read once. A refusal or a "no"
    // releases it (the Lease is deleted) and nothing else is written.
    let namespace = rendered.istio_namespace().to_string();
    let (runtime, client) = (rendered.runtime, rendered.client.clone());
    let locked = |mut prepared: crate::prepare::Prepared<'_>,
                  held: &cluster::HeldInstallLock|
     -> Result<(), MeshFailure> {
        let (recording, adoption) = check(&mut prepared, &args)?;
        if !args.yes {
            confirm(prepared.runtime, &prepared.install)?;
        }
        let helm_releases = recording.map(|r| r.releases);
        apply(prepared, &args, Some(held), helm_releases, adoption)
    };
    if args.precheck {
        // `--precheck` first, before the lock is asked for: among what it finds may be that
        // this user cannot take it (no rights on Leases), which it says with the fix.
        let prepared = rendered.prepare()?;
        crate::precheck::before_install(&prepared, args.force)?;
        return crate::lock::holding(
            runtime,
            &client,
            &namespace,
            "install",
            args.readiness_timeout,
            |held| locked(prepared, held),
        );
    }
    crate::lock::holding(
        runtime,
        &client,
        &namespace,
        "install",
        args.readiness_timeout,
        |held| locked(rendered.prepare()?, held),
    )
}

/// Every read-only check before the install's first write: Helm releases of the same names
/// (with `--helm-releases`, or without it when bosun recorded this install before and it is
/// not `--adopt`: another chart's release of the same name, a record not in helm's
/// format, or a change helm made that the install would undo stops here; a plan says the last
/// instead), what `--adopt` takes over, `--precheck`'s checks (for `--plan`/`--dry-run`), the release policy, overlapping
/// injectors and CRD downgrades. The Helm releases to record (their markers put on the
/// objects) and the adoption, for the writes.
fn check(
    prepared: &mut crate::prepare::Prepared<'_>,
    args: &InstallArgs,
) -> Result<
    (
        Option<crate::helm_records::Recording>,
        installer::adopt::Adoption,
    ),
    MeshFailure,
> {
    let recording =
        if args.helm_releases || crate::helm_records::keeps_recording(prepared, args.adopt)? {
            let recording = crate::helm_records::read(prepared)?;
            if !args.plan {
                recording.check(args.force)?;
            }
            Some(recording)
        } else {
            None
        };
    let adoption = crate::adopt::check(prepared, args.adopt, "install")?;
    if args.precheck && (args.plan || args.dry_run) {
        // (An install runs it before taking the lock: `install`.)
        crate::precheck::before_install(prepared, args.force)?;
    }
    prepared.check_refusals(args.force)?;
    Ok((recording, adoption))
}

/// Applies a prepared install (checked and confirmed already): every component in order with
/// its readiness waits, then prune and the default revision tag, printing progress and the
/// summary; with `helm_releases`, the objects carry Helm's markers, are applied as helm's field
/// manager, and the releases are recorded afterwards. The canary upgrade's install step is this
/// too. Under `held`, the install lock the caller took before its checks; without it, the
/// writes take the lock themselves (`installer::Install::apply`).
pub(crate) fn apply(
    prepared: crate::prepare::Prepared<'_>,
    args: &InstallArgs,
    held: Option<&cluster::HeldInstallLock>,
    helm_releases: Option<installer::helm_releases::HelmReleases>,
    adoption: installer::adopt::Adoption,
) -> Result<(), MeshFailure> {
    let crate::prepare::Prepared {
        install,
        runtime,
        client,
        ..
    } = prepared;
    args.timeout.set_on(&client);
    let components = &install.components;
    let options = cluster::InstallOptions {
        field_manager: installer::helm_releases::field_manager(helm_releases.is_some()).to_string(),
        take_over_from: installer::helm_releases::taken_over_from(helm_releases.is_some()),
        // Adopting takes over the fields helm's field manager owns.
        force: args.force || !adoption.is_empty(),
        crd_timeout: args.readiness_timeout,
        readiness_timeout: (!args.no_wait).then_some(args.readiness_timeout),
        wait_for_load_balancers: args.wait_for_load_balancers,
        owner_labels: Some(install.installation.owner_labels.clone()),
        created_namespace_labels: Default::default(),
    };
    let progress = crate::progress::InstallProgress::new(
        components.iter().map(|c| c.display_name.clone()).collect(),
    );
    let applied = runtime.block_on(async {
        let on_event = |i: usize, e: cluster::InstallEvent<'_>| progress.event(i, e);
        let mut deleted = crate::owned::print_deleted;
        let lock = crate::lock::for_command("install");
        let applying = async {
            match held {
                Some(held) => {
                    install
                        .apply_holding(&client, &options, held, &on_event, &mut deleted)
                        .await
                }
                None => {
                    install
                        .apply(&client, &options, &lock, &on_event, &mut deleted)
                        .await
                }
            }
        };
        let ticker = async {
            loop {
                tokio::time::sleep(Duration::from_millis(100)).await;
                progress.tick();
            }
        };
        tokio::select! {
            result = applying => result,
            never = ticker => never,
        }
    })?;
    let tag = match applied.default_tag {
        installer::DefaultTagOutcome::NotNeeded => None,
        installer::DefaultTagOutcome::Applied(report) => Some(report),
        installer::DefaultTagOutcome::Skipped(refusal) => {
            let _ = writeln!(
                std::io::stderr().lock(),
                "❗ the default revision tag was not created: {refusal}"
            );
            None
        }
    };
    let (mut report, pruned) = (applied.report, applied.pruned);
    let recorded = match &helm_releases {
        Some(releases) => {
            runtime.block_on(releases.write(&client, std::time::SystemTime::now()))?
        }
        None => Vec::new(),
    };
    let handed = if adoption.is_empty() {
        None
    } else {
        Some(runtime.block_on(adoption.hand_over(&client, &install))?)
    };
    let mut stdout = std::io::stdout().lock();
    if let Some(handed) = handed {
        for release in &adoption.releases {
            let _ = writeln!(
                stdout,
                "✔ Adopted helm release {}/{}: {} object(s) now bosun's, {} record(s) deleted",
                release.namespace,
                release.release,
                release.objects.len(),
                release.secrets.len()
            );
        }
        let _ = writeln!(
            stdout,
            "  (helm's field manager and release annotations removed from {} object(s))",
            handed.objects
        );
    }
    for r in &recorded {
        let _ = writeln!(
            stdout,
            "✔ Helm release {} in {}: revision {}{}",
            r.release,
            r.namespace,
            r.version,
            if r.written { "" } else { " (unchanged)" }
        );
    }
    if let Some(tag) = tag {
        use cluster::Outcome::*;
        let _ = writeln!(
            stdout,
            "✔ Default revision tag points at revision {:?} ({} created, {} configured, {} unchanged)",
            install.revision(),
            tag.count(Created),
            tag.count(Configured),
            tag.count(Unchanged)
        );
        report.components.push(cluster::ComponentReport {
            display_name: "default revision tag".to_string(),
            report: tag,
        });
    }
    let created_ns = report.namespaces.count(cluster::Outcome::Created);
    if created_ns > 0 {
        let _ = writeln!(stdout, "  ({created_ns} namespace(s) created)");
    }
    use cluster::Outcome::*;
    let removed = pruned
        .iter()
        .filter(|d| d.outcome == cluster::DeleteOutcome::Deleted)
        .count();
    let _ = writeln!(
        stdout,
        "✔ Installation complete ({} created, {} configured, {} unchanged{})",
        report.count(Created),
        report.count(Configured),
        report.count(Unchanged),
        if removed > 0 {
            format!(", {removed} pruned")
        } else {
            String::new()
        }
    );
    Ok(())
}
