//! `bosun upgrade --canary --version V`, `--continue` and `--abort`: the revision-based
//! upgrade as one resumable procedure. The steps, the plan, which revision is the old one and
//! the record of progress (a ConfigMap in the Istio namespace) are `installer::canary`'s; the
//! writes are the ones `install`, `tag set`, `proxy restart` and `uninstall --revision` make
//! (the same functions), and the record's reads and writes are `cluster::Client`'s
//! `*_record`. This module parses, asks and prints, and saves the record after each step
//! (and after each namespace of the restarts), so a killed run resumes where it was.

use std::collections::BTreeSet;
use std::sync::Mutex;

use clap::Args;
use installer::canary::{self, CanaryError, Plan, RECORD_NAME, Source, State, Step};

use crate::install::InstallArgs;
use crate::mesh::{InputArgs, MeshFailure};

#[derive(Args, Debug)]
pub struct UpgradeArgs {
    #[command(flatten)]
    pub install: InstallArgs,
    /// Upgrade by canary, as one resumable procedure: install --version V as a new revision
    /// (--revision R; default: derived from V, 1.30.3 → 1-30-3) beside the installed one,
    /// verify it, move the revision tags that point at the old revision to it (asking first,
    /// unless -y), restart the workloads the old revision injected namespace by namespace, then
    /// remove the old revision. --plan prints the steps for this cluster and changes nothing.
    #[arg(long, conflicts_with_all = ["resume", "abort"])]
    pub canary: bool,
    /// Resume the canary upgrade in progress (after an interruption or a failed step fixed).
    #[arg(long = "continue", id = "resume", conflicts_with = "abort")]
    pub resume: bool,
    /// Abort the canary upgrade in progress: move the revision tags back to the old revision
    /// and forget the procedure; the new revision stays installed. Possible until the old
    /// revision's removal starts.
    #[arg(long)]
    pub abort: bool,
}

/// The steps a progress line counts (Done is not one).
const STEPS: usize = 5;

pub fn upgrade(args: UpgradeArgs, runtime: &crate::runtime::Runtime) -> Result<(), MeshFailure> {
    if !(args.canary || args.resume || args.abort) {
        return crate::install::install(args.install, runtime);
    }
    let rt = runtime.get()?;
    let namespace = vocab::DEFAULT_ISTIO_NAMESPACE;
    let client = args.install.cluster.connect(rt)?;
    let record = rt.block_on(client.read_record(namespace, RECORD_NAME))?;
    let state = match record {
        Some(record) => Some(State::from_data(namespace, &record.data)?),
        None => None,
    };
    if args.canary {
        if let Some(state) = state {
            return Err(state.in_progress().into());
        }
        return start(&args, &client, runtime);
    }
    let Some(state) = state else {
        return Err(CanaryError::NotInProgress {
            namespace: namespace.to_string(),
        }
        .into());
    };
    if args.abort {
        return abort(&args, &client, rt, state);
    }
    if args.install.plan {
        print!(
            "Canary upgrade in progress: revision {} → {} (Istio {}), at step {}.\nSteps left:\n",
            state.old_revision,
            state.new_revision,
            state.version,
            state.step.as_str()
        );
        for step in Step::ALL
            .into_iter()
            .filter(|s| *s >= state.step && *s != Step::Done)
        {
            println!("  {}", step.describe());
        }
        return Ok(());
    }
    run(&args, &client, runtime, state, None)
}

/// The revision to install: `--revision`, else derived from `--version` (with the catalog's
/// help for a module version).
fn new_revision(input: &InputArgs) -> Result<(String, Option<String>), MeshFailure> {
    if let Some(r) = input.revision.as_deref().filter(|r| !r.is_empty()) {
        return Ok((r.to_string(), None));
    }
    let Some(version) = &input.package.version else {
        return Err(MeshFailure(
            "upgrade --canary with --manifests needs --revision R: the revision cannot be derived from a directory".to_string(),
        ));
    };
    let catalog = crate::release::catalog()?;
    let resolved = catalog.resolve(version)?;
    let revision = canary::revision_for_resolved(&resolved);
    let why = format!(
        "revision {revision} (derived from Istio {}; --revision names another)",
        match resolved {
            release::Resolved::Release { patch, .. } => patch.version.clone(),
            release::Resolved::Module(m) => format!("{} ({})", m.istio, m.version),
        }
    );
    Ok((revision, Some(why)))
}

fn start(
    args: &UpgradeArgs,
    client: &cluster::Client,
    runtime: &crate::runtime::Runtime,
) -> Result<(), MeshFailure> {
    let install = &args.install;
    if install.input.package.version.is_none() && install.input.manifests.is_none() {
        return Err(MeshFailure(
            "upgrade --canary needs the version to upgrade to: --version V (or --manifests DIR with --revision R)".to_string(),
        ));
    }
    if install.dry_run {
        return Err(MeshFailure(
            "upgrade --canary takes --plan, not --dry-run: it prints every step for this cluster and changes nothing".to_string(),
        ));
    }
    let rt = runtime.get()?;
    let (revision, derived) = new_revision(&install.input)?;
    canary::check_revision(&revision)?;
    let inventory = rt.block_on(client.revisions())?;
    let old = canary::old_revision(&inventory, &revision)?;
    let mut input = install.input.clone();
    input.revision = Some(revision.clone());
    // Everything that can refuse, before the first write: the render, the release policy
    // (end of life; a canary up to two minors), overlapping injectors, CRD downgrades.
    let prepared = crate::prepare::prepare(&input, install.force, &install.cluster, runtime)?;
    if install.precheck {
        crate::precheck::before_install(&prepared, install.force)?;
    }
    prepared.check_release_policy(install.force)?;
    prepared.check_webhook_overlaps(install.force)?;
    prepared.check_crd_downgrades(install.force)?;
    let status = rt.block_on(client.proxy_status(None))?;
    let plan = canary::plan(
        &inventory,
        &status.rows,
        &old,
        &revision,
        &prepared.install.version,
    );
    if let Some(derived) = derived {
        println!("Installing as {derived}.");
    }
    print!("{}", describe(&plan));
    if install.plan {
        println!("--plan: nothing was changed.");
        return Ok(());
    }
    if !install.yes {
        crate::prompt::confirm("upgrade", "Proceed? (y/N)")?;
    }
    let state = State::start(
        &plan,
        Source {
            version: install.input.package.version.clone(),
            mirror: install.input.package.mirror.clone(),
            manifests: install.input.manifests.clone(),
            filenames: install.input.filenames.clone(),
            set: install.input.set.clone(),
        },
    );
    let record = cluster::records::Record {
        labels: State::labels(),
        data: state.to_data(),
    };
    let namespace = vocab::DEFAULT_ISTIO_NAMESPACE;
    if rt.block_on(client.create_record(namespace, RECORD_NAME, &record))?
        == cluster::records::Created::AlreadyExists
    {
        // Another run started between the read and now.
        let data = rt
            .block_on(client.read_record(namespace, RECORD_NAME))?
            .map(|r| r.data)
            .unwrap_or_default();
        return Err(State::from_data(namespace, &data)?.in_progress().into());
    }
    run(args, client, runtime, state, Some(prepared))
}

/// The plan as printed by `--plan` and before asking.
fn describe(plan: &Plan) -> String {
    let mut out = format!(
        "Canary upgrade of this cluster: revision {} (Istio {}) → revision {} (Istio {})\n",
        plan.old_revision,
        if plan.old_versions.is_empty() {
            "version unknown".to_string()
        } else {
            plan.old_versions.join(", ")
        },
        plan.new_revision,
        plan.version
    );
    out += &format!(
        "  1. install revision {} beside {} (the release gates checked: passed)\n",
        plan.new_revision, plan.old_revision
    );
    out += &format!(
        "  2. verify it: istiod ready, every object as rendered\n  3. move the revision tags from {} to {}: {}\n",
        plan.old_revision,
        plan.new_revision,
        if plan.tags.is_empty() {
            "none point at it".to_string()
        } else {
            plan.tags.join(", ")
        }
    );
    if plan.restarts.is_empty() {
        out += &format!(
            "  4. restart the workloads injected by {}: none now\n",
            plan.old_revision
        );
    } else {
        out += &format!(
            "  4. restart the workloads injected by {}, namespace by namespace:\n",
            plan.old_revision
        );
        for (ns, workloads) in &plan.restarts.namespaces {
            let names: Vec<String> = workloads
                .iter()
                .map(|w| format!("{}/{}", w.kind, w.name))
                .collect();
            out += &format!("       namespace {ns}: {}\n", names.join(", "));
        }
    }
    for w in &plan.restarts.cannot_restart {
        out += &format!(
            "       (not restartable: {} {}/{}: delete its pods yourself)\n",
            w.kind, w.namespace, w.name
        );
    }
    out += &format!(
        "  5. remove revision {} once nothing uses it\n",
        plan.old_revision
    );
    if !plan.direct_namespaces.is_empty() {
        out += &format!(
            "  ❗ namespaces selecting {} directly (istio.io/rev={}), which the procedure does not relabel; step 5 waits until they select a tag or {}: {}\n",
            plan.old_revision,
            plan.old_revision,
            plan.new_revision,
            plan.direct_namespaces.join(", ")
        );
    }
    out
}

/// The inputs the new revision is rendered from, as the record keeps them.
fn inputs(state: &State) -> InputArgs {
    InputArgs {
        filenames: state.source.filenames.clone(),
        set: state.source.set.clone(),
        manifests: state.source.manifests.clone(),
        package: crate::mesh::VersionFlags {
            version: state.source.version.clone(),
            mirror: state.source.mirror.clone(),
        },
        revision: Some(state.new_revision.clone()),
    }
}

fn save(
    rt: &tokio::runtime::Runtime,
    client: &cluster::Client,
    state: &State,
) -> Result<(), MeshFailure> {
    rt.block_on(client.update_record(
        vocab::DEFAULT_ISTIO_NAMESPACE,
        RECORD_NAME,
        &state.to_data(),
    ))?;
    Ok(())
}

/// Runs the steps from the one the record reached.
fn run(
    args: &UpgradeArgs,
    client: &cluster::Client,
    runtime: &crate::runtime::Runtime,
    mut state: State,
    mut prepared: Option<crate::prepare::Prepared<'_>>,
) -> Result<(), MeshFailure> {
    let rt = runtime.get()?;
    let install = &args.install;
    while state.step != Step::Done {
        let number = Step::ALL.iter().position(|s| *s == state.step).unwrap_or(0) + 1;
        println!(
            "Step {number}/{STEPS}: {} ({} → {})",
            state.step.describe(),
            state.old_revision,
            state.new_revision
        );
        match state.step {
            Step::Install => {
                let ready = match prepared.take() {
                    Some(p) => p,
                    None => {
                        let p = crate::prepare::prepare(
                            &inputs(&state),
                            install.force,
                            &install.cluster,
                            runtime,
                        )?;
                        p.check_release_policy(install.force)?;
                        p
                    }
                };
                crate::install::apply(ready, install, None, None, Default::default()).map_err(
                    |e| resume_hint(&state, "the install of the new revision failed", e),
                )?;
            }
            Step::Verify => {
                let p = crate::prepare::prepare(
                    &inputs(&state),
                    install.force,
                    &install.cluster,
                    runtime,
                )?;
                let objects: Vec<serde_json::Value> = p.install.objects().cloned().collect();
                let report = rt.block_on(client.verify(&objects, installer::FIELD_MANAGER))?;
                let (text, problems) = crate::verify::render(&report);
                if let Some(problems) = problems {
                    print!("{text}");
                    return Err(resume_hint(
                        &state,
                        &format!("revision {} does not verify", state.new_revision),
                        MeshFailure(problems),
                    ));
                }
                println!(
                    "✔ revision {}: {} objects as rendered, workloads ready",
                    state.new_revision,
                    objects.len()
                );
            }
            Step::MoveTags => {
                if !install.yes && !state.tags.is_empty() {
                    crate::prompt::confirm(
                        "tag move",
                        &format!(
                            "Move the revision tags {} from {} to {}? Pods created after this are injected by {}. (y/N)",
                            state.tags.join(", "),
                            state.old_revision,
                            state.new_revision,
                            state.new_revision
                        ),
                    )?;
                }
                move_tags(rt, client, &state, &state.new_revision, install.force)
                    .map_err(|e| resume_hint(&state, "moving the tags failed", e))?;
            }
            Step::Restart => restart(rt, client, &mut state, install.readiness_timeout)?,
            Step::RemoveOld => remove_old(rt, client, &state)?,
            Step::Done => {}
        }
        state.step = state.step.next();
        if state.step != Step::Done {
            save(rt, client, &state)?;
        }
    }
    rt.block_on(client.delete_record(vocab::DEFAULT_ISTIO_NAMESPACE, RECORD_NAME))?;
    println!(
        "✔ Canary upgrade complete: revision {} (Istio {}) serves; revision {} was removed",
        state.new_revision, state.version, state.old_revision
    );
    Ok(())
}

/// A failed step's error, with the way on.
fn resume_hint(state: &State, what: &str, e: MeshFailure) -> MeshFailure {
    MeshFailure(format!(
        "{what}: {}\nthe canary upgrade stopped at step {}; fix the cause, then run `bosun upgrade --continue` (or `bosun upgrade --abort` to move the tags back to {})",
        e.0,
        state.step.as_str(),
        state.old_revision
    ))
}

/// The package directory the record's source names ("" for the pinned one): what the tags
/// are rendered from.
fn package(state: &State) -> Result<String, MeshFailure> {
    Ok(inputs(state)
        .package
        .package(state.source.manifests.as_deref())?
        .unwrap_or_default())
}

/// Points each of the record's tags at `revision`.
fn move_tags(
    rt: &tokio::runtime::Runtime,
    client: &cluster::Client,
    state: &State,
    revision: &str,
    force: bool,
) -> Result<(), MeshFailure> {
    let manifests = package(state)?;
    for tag in &state.tags {
        let options = manifest::tag::TagOptions {
            tag: tag.clone(),
            revision: revision.to_string(),
            webhook_name: None,
            auto_inject_namespaces: false,
            custom_labels: Default::default(),
            user_managed: true,
            istio_namespace: vocab::DEFAULT_ISTIO_NAMESPACE.to_string(),
            manifests: manifests.clone(),
        };
        let on_overlap = if force {
            crate::tag::Overlaps::Allow
        } else {
            crate::tag::Overlaps::Refuse
        };
        let done = crate::tag::point(client, rt, &options, true, false, on_overlap)?
            .unwrap_or("unchanged");
        println!("  revision tag {tag} → {revision} ({done})");
    }
    Ok(())
}

/// The restart step: the workloads still injected by the old revision, namespace by
/// namespace, each namespace's rollouts waited for; the record notes each namespace done.
fn restart(
    rt: &tokio::runtime::Runtime,
    client: &cluster::Client,
    state: &mut State,
    timeout: std::time::Duration,
) -> Result<(), MeshFailure> {
    let status = rt.block_on(client.proxy_status(None))?;
    let plan = canary::restart_plan(&status.rows, &state.old_revision);
    for w in &plan.cannot_restart {
        eprintln!(
            "warning: {} {}/{}: pods injected by {}, but no rollout to restart; delete and recreate its pods yourself",
            w.kind, w.namespace, w.name, state.old_revision
        );
    }
    if plan.is_empty() {
        println!(
            "  no workloads injected by {} left to restart",
            state.old_revision
        );
    }
    for (ns, workloads) in &plan.namespaces {
        let names = workloads
            .iter()
            .map(|w| format!("{}/{}", w.kind, w.name))
            .collect::<Vec<_>>()
            .join(", ");
        let stopped = |e: String| {
            resume_hint(
                state,
                &format!("the restart stopped in namespace {ns} ({names})"),
                MeshFailure(format!(
                    "{e}\n(kubectl -n {ns} rollout status <kind>/<name> and its pods' events say why)"
                )),
            )
        };
        for w in workloads {
            rt.block_on(client.restart_workload(w))
                .map_err(|e| stopped(e.to_string()))?;
        }
        println!("  namespace {ns}: restarted {names}; waiting for the rollouts");
        let reported = Mutex::new(BTreeSet::new());
        let on_poll = |waiting: &[cluster::NotReadyWorkload]| {
            let mut reported = reported.lock().unwrap_or_else(|e| e.into_inner());
            for (object, why) in waiting {
                if reported.insert(object.to_string()) {
                    println!("  waiting for {object}: {why}");
                }
            }
        };
        rt.block_on(client.wait_rollouts(workloads, timeout, &on_poll))
            .map_err(|e| stopped(e.to_string()))?;
        if !state.namespaces_done.contains(ns) {
            state.namespaces_done.push(ns.clone());
        }
        save(rt, client, state)?;
        println!("  namespace {ns}: {names} rolled out");
    }
    Ok(())
}

/// The removal step: the old revision's control plane, once nothing uses it.
fn remove_old(
    rt: &tokio::runtime::Runtime,
    client: &cluster::Client,
    state: &State,
) -> Result<(), MeshFailure> {
    let scope = installer::uninstall::revision(&state.old_revision);
    let candidates = rt.block_on(client.uninstall_candidates(&scope))?;
    if candidates.is_empty() {
        println!("  revision {} is removed already", state.old_revision);
        return Ok(());
    }
    crate::uninstall::check_in_use(rt, client, &scope, &candidates, false).map_err(|e| {
        MeshFailure(format!(
            "{}\nthe canary upgrade stopped before removing revision {}; once nothing uses it, run `bosun upgrade --continue`",
            e.0, state.old_revision
        ))
    })?;
    let deleted = rt
        .block_on(client.delete_owned(&candidates, &mut crate::owned::print_deleted))
        .map_err(|e| MeshFailure(format!("failed to delete control plane resources: {e}")))?;
    let removed = deleted
        .iter()
        .filter(|d| d.outcome == cluster::DeleteOutcome::Deleted)
        .count();
    println!(
        "  revision {} removed ({removed} objects)",
        state.old_revision
    );
    Ok(())
}

/// `--abort`: the tags back to the old revision (when the move had started), the record
/// deleted. The new revision stays installed: pods restarted during the procedure run its
/// proxies, and removing it would leave them without a control plane.
fn abort(
    args: &UpgradeArgs,
    client: &cluster::Client,
    rt: &tokio::runtime::Runtime,
    state: State,
) -> Result<(), MeshFailure> {
    if !state.can_abort() {
        return Err(CanaryError::CannotAbort {
            old: state.old_revision.clone(),
            new: state.new_revision.clone(),
            step: state.step.as_str(),
        }
        .into());
    }
    println!(
        "Aborting the canary upgrade from {} to {} (at step {}).",
        state.old_revision,
        state.new_revision,
        state.step.as_str()
    );
    if state.step >= Step::MoveTags && !state.tags.is_empty() {
        if !args.install.yes {
            crate::prompt::confirm(
                "abort",
                &format!(
                    "Move the revision tags {} back to {}? (y/N)",
                    state.tags.join(", "),
                    state.old_revision
                ),
            )?;
        }
        move_tags(rt, client, &state, &state.old_revision, args.install.force)?;
    }
    rt.block_on(client.delete_record(vocab::DEFAULT_ISTIO_NAMESPACE, RECORD_NAME))?;
    let moved = state
        .namespaces_done
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>();
    println!(
        "✔ Aborted: the tags point at {} again. Revision {} stays installed{}; remove it with `bosun uninstall --revision {}` once nothing uses it",
        state.old_revision,
        state.new_revision,
        if moved.is_empty() {
            String::new()
        } else {
            format!(
                " (the workloads restarted in {} run its proxies: `bosun proxy restart --stale` moves them back)",
                moved.join(", ")
            )
        },
        state.new_revision,
    );
    Ok(())
}
