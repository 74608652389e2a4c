//! bosun's command line. Commands and flags follow istioctl and helm so their users feel at
//! home; the logic lives in the library crates, this file only reads files and flags, calls
//! them and prints.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand};

mod adopt;
mod canary;
mod completion;
mod duration;
mod helm_records;
mod input;
mod install;
mod lock;
mod mesh;
mod mesh_ca;
mod mesh_check;
mod mesh_install;
mod operator;
mod owned;
mod plan;
mod precheck;
mod prepare;
mod profile;
mod progress;
mod prompt;
mod proxy;
mod release;
mod remote_secret;
mod revision;
mod runtime;
mod schema_fetch;
mod tag;
mod target;
mod translate;
mod uninstall;
mod verify;
mod version;

#[derive(Parser)]
#[command(name = "bosun", version, about = "The Istio operator, rebuilt in Rust")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Helm-compatible chart commands.
    Helm {
        #[command(subcommand)]
        command: HelmCommand,
    },
    /// Render as `manifest generate` does, then server-side apply to the cluster in
    /// dependency order (Namespaces and CRDs first, then each component once those it depends
    /// on are applied and ready), waiting for each component's workloads; then prune what the
    /// installation no longer renders. Refuses sidecar injectors that overlap another
    /// revision's; `--dry-run` and `--plan` change nothing.
    Install(install::InstallArgs),
    /// Upgrade the Istio control plane in place: an alias of `install`, as in istioctl (the
    /// same rendering, apply and readiness waits). With `--canary --version V`: the guided
    /// revision-based upgrade, resumable with `--continue` and undone with `--abort`.
    Upgrade(canary::UpgradeArgs),
    /// Commands related to Istio manifests.
    Manifest {
        #[command(subcommand)]
        command: ManifestCommand,
    },
    /// Show what `install` with the same inputs would do, changing nothing: each object to
    /// create, update (the fields that would change, from server-side dry runs) or delete.
    Plan(plan::PlanArgs),
    /// The in-cluster operator: reconciles IstioOperator resources.
    Operator {
        #[command(subcommand)]
        command: operator::OperatorCommand,
    },
    /// Commands related to Istio configuration profiles.
    Profile {
        #[command(subcommand)]
        command: profile::ProfileCommand,
    },
    /// Remove Istio from the cluster, as `istioctl uninstall` does: one control plane
    /// (`--revision R`, `-f IOP`; Base and CRDs stay) or, with `--purge`, every Istio-owned
    /// object, CRDs included. Lists what it removes and asks first (unless -y).
    Uninstall(uninstall::UninstallArgs),
    /// Check whether Istio can safely be installed or upgraded, as istioctl's `x precheck`:
    /// the Kubernetes version, every permission the install of the inputs needs, Gateway API
    /// CRD versions, existing control planes, injector overlaps and CRD downgrades. Each finding
    /// has a stable code and a fix. Exit status: 0 when no finding is an Error, 1 when one is
    /// (or, with `--fail-on-warning`, a Warning), 2 when precheck could not run.
    Precheck(precheck::PrecheckArgs),
    /// Sidecar proxies: which revision injected each workload and which are stale
    /// (`proxy status`), and restarting them onto the revision they ask for (`proxy restart`).
    Proxy {
        #[command(subcommand)]
        command: proxy::ProxyCommand,
    },
    /// Commands about control-plane revisions.
    Revision {
        #[command(subcommand)]
        command: revision::RevisionCommand,
    },
    /// Check the cluster against the rendered install: every object present and as rendered
    /// (judged by a server-side dry run), every workload ready. Exits 1 when not.
    VerifyInstall(verify::VerifyArgs),
    /// Validate IstioOperator files offline (every error at once, with file:line:col).
    Validate(profile::ValidateArgs),
    /// Revision tags: mutable aliases of control plane revisions for sidecar injection
    /// (`istio.io/rev=<tag>`), as `istioctl tag`. Point a tag at a new revision to move the
    /// namespaces that use it, then restart their workloads.
    Tag {
        #[command(subcommand)]
        command: tag::TagCommand,
    },
    /// Print bosun's version and the Istio release it installs by default, as `istioctl
    /// version --remote=false`.
    Version(version::VersionArgs),
    /// Create a Secret with credentials that let another cluster's istiod read this cluster's
    /// API server, as `istioctl create-remote-secret`: the reader service account's long-lived
    /// token (created when missing) in a kubeconfig, printed for `kubectl apply` on the other
    /// cluster.
    CreateRemoteSecret(remote_secret::RemoteSecretArgs),
    /// Multi-cluster meshes (issue 32).
    Mesh {
        #[command(subcommand)]
        command: MeshCommand,
    },
    /// Print the shell completion script for bash, zsh, fish (and more), as `istioctl
    /// completion`.
    Completion(completion::CompletionArgs),
}

#[derive(Subcommand)]
enum MeshCommand {
    /// Make a shared root of trust: a root CA and one intermediate CA per cluster, written as
    /// Istio's cert tooling writes them (DIR/root-cert.pem, DIR/root-key.pem,
    /// DIR/<cluster>/{ca-cert,ca-key,cert-chain,root-cert}.pem) for each cluster's `cacerts`
    /// Secret. Keys are made in process and never printed.
    Ca(mesh_ca::CaArgs),
    /// Create or update a cluster's `cacerts` Secret (istiod's CA, read when istiod starts:
    /// run this before installing) from a directory `mesh ca` wrote. Refuses to replace a
    /// `cacerts` of another root unless --force.
    Cacerts(mesh_ca::CacertsArgs),
    /// Install Istio into several clusters (kubeconfig contexts) and join them in one
    /// multi-primary mesh: checks every cluster first (contexts, API servers, cluster names,
    /// one mesh ID, each install's refusals, one root of trust in `cacerts`), then installs
    /// them side by side with their mesh ID, cluster name and network (and an east-west
    /// gateway per cluster when they are on several networks), then applies each cluster's
    /// remote secret in every other. --plan changes nothing.
    Install(Box<mesh_install::MeshInstallArgs>),
    /// Check a mesh's clusters (kubeconfig contexts): each holds a working remote secret of
    /// every other (its API server answers and accepts the token, not expired), all share one
    /// root of trust, network labels match istiod's network (and the east-west gateways are
    /// there when there are several), and each istiod reports the others as synced. Exit 0
    /// when no finding is an Error, 1 when one is, 2 when the check could not run.
    Check(mesh_check::MeshCheckArgs),
    /// Give each cluster's reader service account a new token, replace its remote secret in
    /// every other cluster, then delete the old token Secrets so that the API server refuses
    /// the old tokens (each istiod takes the new secret up by itself).
    RotateSecrets(mesh_check::ClustersArgs),
    /// Make the given clusters stop reading each other: in each, delete the remote secrets of
    /// the others (each istiod drops a cluster whose secret goes away). The readers' tokens
    /// stay valid for the clusters that remain; `mesh rotate-secrets` among those revokes them.
    Disconnect(mesh_check::ClustersArgs),
}

#[derive(Subcommand)]
enum ManifestCommand {
    /// Generate an Istio install manifest, as `istioctl manifest generate` does.
    Generate(mesh::GenerateArgs),
    /// Compare two manifests object by object; exits 1 when they differ, 2 on errors.
    Diff(profile::ManifestDiffArgs),
    /// Translate an IstioOperator install to Helm values, scripts and a README, as
    /// `istioctl manifest translate` does (the cluster is not touched).
    Translate(translate::TranslateArgs),
}

/// The command line as [`Cli`] reads it when its first argument is `helm`: only the `helm`
/// commands are built (setting up every command's flags took a third of a millisecond, about
/// a twentieth of a `helm template` of Istio's istiod chart). A test checks that the `helm`
/// commands read and print their help exactly as in [`Cli`].
#[derive(Parser)]
#[command(name = "bosun", version, about = "The Istio operator, rebuilt in Rust")]
struct HelmCli {
    #[command(subcommand)]
    command: HelmOnly,
}

#[derive(Subcommand)]
enum HelmOnly {
    /// Helm-compatible chart commands.
    Helm {
        #[command(subcommand)]
        command: HelmCommand,
    },
}

impl Cli {
    /// `Cli::parse()`, building only what the first argument needs (see [`HelmCli`]).
    fn parse_args() -> Cli {
        if std::env::args_os()
            .nth(1)
            .is_some_and(|first| first == "helm")
        {
            let HelmOnly::Helm { command } = parse_as_invoked::<HelmCli>().command;
            return Cli {
                command: Command::Helm { command },
            };
        }
        parse_as_invoked::<Cli>()
    }
}

/// The program name kubectl runs for `kubectl bosun …`: a binary of this name on the `PATH`
/// is a kubectl plugin (krew installs it so, `deploy/krew/bosun.yaml`).
const KUBECTL_PLUGIN: &str = "kubectl-bosun";

/// Whether this process was started by the name of kubectl's plugin (`argv[0]`'s file name
/// is `kubectl-bosun`, with `.exe` on Windows).
fn invoked_as_kubectl_plugin() -> bool {
    std::env::args_os().next().is_some_and(|arg0| {
        Path::new(&arg0)
            .file_stem()
            .is_some_and(|stem| stem == KUBECTL_PLUGIN)
    })
}

/// The command line parsed; as a kubectl plugin, usage and errors name the command as the
/// user typed it, `kubectl bosun`.
fn parse_as_invoked<P: Parser>() -> P {
    if !invoked_as_kubectl_plugin() {
        return P::parse();
    }
    let mut command = P::command().bin_name("kubectl bosun");
    let mut matches = command.clone().get_matches();
    P::from_arg_matches_mut(&mut matches).unwrap_or_else(|e| e.format(&mut command).exit())
}

#[derive(Subcommand)]
enum HelmCommand {
    /// Render a chart as `helm template` does.
    Template(TemplateArgs),
}

#[derive(Args)]
struct TemplateArgs {
    /// Release name, then chart directory (with one argument: the chart, named "release-name").
    #[arg(required = true, num_args = 1..=2, value_names = ["NAME", "CHART"])]
    args: Vec<String>,
    /// Namespace of the release.
    #[arg(short = 'n', long, default_value = "default")]
    namespace: String,
    /// Values files, in order (comma-separated lists allowed, as in helm).
    #[arg(short = 'f', long = "values", value_delimiter = ',')]
    values: Vec<PathBuf>,
    /// Set values (`a.b=c,d[0]=e`).
    #[arg(long)]
    set: Vec<String>,
    /// Set values, always as strings.
    #[arg(long = "set-string")]
    set_string: Vec<String>,
    /// Set values from files (`key=PATH`: the value is the file's contents).
    #[arg(long = "set-file")]
    set_file: Vec<String>,
    /// Print only the manifests from these templates (paths or globs relative to the chart).
    #[arg(short = 's', long = "show-only")]
    show_only: Vec<String>,
    /// Kubernetes version for `.Capabilities.KubeVersion`.
    #[arg(long = "kube-version")]
    kube_version: Option<String>,
    /// Extra API versions for `.Capabilities.APIVersions`.
    #[arg(short = 'a', long = "api-versions", value_delimiter = ',')]
    api_versions: Vec<String>,
    /// Include the chart's CRDs (`crds/`) in the output.
    #[arg(long = "include-crds")]
    include_crds: bool,
    /// Set values from JSON (`a.b=[1,2]`, or a whole JSON object).
    #[arg(long = "set-json")]
    set_json: Vec<String>,
    /// Set literal string values (everything after the first `=`).
    #[arg(long = "set-literal")]
    set_literal: Vec<String>,
    /// Set `.Release.IsUpgrade` instead of `.Release.IsInstall`.
    #[arg(long = "is-upgrade")]
    is_upgrade: bool,
    /// Leave hooks out of the output.
    #[arg(long = "no-hooks")]
    no_hooks: bool,
    /// Leave test hooks out of the output.
    #[arg(long = "skip-tests")]
    skip_tests: bool,
    /// Write the documents to files below this directory instead of stdout.
    #[arg(long = "output-dir")]
    output_dir: Option<String>,
    /// Render the release name from this template (Go text/template with Sprig).
    #[arg(long = "name-template")]
    name_template: Option<String>,
    /// Do not validate values against values.schema.json.
    #[arg(long = "skip-schema-validation")]
    skip_schema_validation: bool,
    /// With --output-dir, write below DIR/NAME.
    #[arg(long = "release-name")]
    release_name: bool,
    /// Install flags `helm template` accepts and that change nothing it prints (it renders
    /// client-side only): accepted for scripts written for helm (Argo CD passes --skip-crds).
    #[command(flatten)]
    accepted: AcceptedInstallFlags,
}

/// `helm template` inherits `helm install`'s flags; these have no effect on what it renders.
#[derive(Args)]
struct AcceptedInstallFlags {
    /// Accepted, as by helm template: no CRDs are installed anyway (--include-crds prints them).
    #[arg(long = "skip-crds")]
    _skip_crds: bool,
    /// Accepted, as by helm template: nothing is created.
    #[arg(long = "create-namespace")]
    _create_namespace: bool,
    /// Accepted, as by helm template: there is no release record to describe.
    #[arg(long = "description", value_name = "TEXT")]
    _description: Option<String>,
    /// Accepted, as by helm template: NOTES.txt is never printed.
    #[arg(long = "hide-notes")]
    _hide_notes: bool,
    /// Accepted, as by helm template: nothing is validated against a cluster.
    #[arg(long = "disable-openapi-validation")]
    _disable_openapi_validation: bool,
    /// Accepted, as by helm template: nothing is waited for.
    #[arg(long = "wait-for-jobs")]
    _wait_for_jobs: bool,
    /// Accepted, as by helm template: nothing is installed or replaced.
    #[arg(long = "replace")]
    _replace: bool,
    /// Accepted, as by helm template: nothing is applied.
    #[arg(long = "take-ownership")]
    _take_ownership: bool,
    /// Accepted, as by helm template: nothing is applied.
    #[arg(long = "force-conflicts")]
    _force_conflicts: bool,
    /// Accepted, as by helm template: the chart is a local path, no version is resolved.
    #[arg(long = "devel")]
    _devel: bool,
}

/// A failure as helm words it on stderr: `Error: …`, plus helm's hint after render failures,
/// and the exit status (1, or a command's own: precheck's 2 for "could not run"; none printed
/// when the message is empty, the command having said everything).
struct Failure {
    message: String,
    render_hint: bool,
    code: u8,
}

impl Failure {
    fn input(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            render_hint: false,
            code: 1,
        }
    }
}

// Rendering builds and drops many small tree nodes (Istio's CRDs are 1 MB of YAML); mimalloc
// spends far less time in the allocator and in page faults on that than the system one. It is
// built without transparent huge pages (see `small_pages_only`), and in its version 2, which
// starts in less time than version 3 (BENCHMARKS.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Keeps this process off transparent huge pages, also where the system gives them to every
/// process. A command touches a few MiB spread over many 2 MiB regions; with huge pages each
/// region is a 2 MiB page to clear (or to compact memory for, after another process freed
/// much), which doubled `manifest generate`'s time and peak memory when measured alternated
/// with istioctl (BENCHMARKS.md).
fn small_pages_only() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes no pointers; it only sets a flag on this process.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// Large chart files are mapped rather than read (see the `helm` crate's `mapped`): one that
/// another process truncates while bosun runs raises SIGBUS where bosun reads past its new end.
/// That is said as an error of bosun's instead of the shell's bare "Bus error".
fn explain_bus_errors() {
    #[cfg(unix)]
    {
        extern "C" fn on_bus_error(_: libc::c_int) {
            const MESSAGE: &[u8] = b"Error: a chart file was truncated while bosun was reading it (SIGBUS); the command stopped there\n";
            // SAFETY: write(2) and _exit(2) are async-signal-safe; the buffer is static.
            unsafe {
                libc::write(2, MESSAGE.as_ptr().cast(), MESSAGE.len());
                libc::_exit(1);
            }
        }
        // SAFETY: the handler only calls async-signal-safe functions.
        unsafe {
            libc::signal(
                libc::SIGBUS,
                on_bus_error as *const () as libc::sighandler_t,
            );
        }
    }
}

fn main() -> ExitCode {
    small_pages_only();
    explain_bus_errors();
    let cli = Cli::parse_args();
    // Every command but the operator's own ends soon after it renders (a render child too).
    let one_shot = !matches!(
        cli.command,
        Command::Operator {
            command: operator::OperatorCommand::Dump(_)
                | operator::OperatorCommand::Init(_)
                | operator::OperatorCommand::Remove(_)
                | operator::OperatorCommand::Run(_)
        }
    );
    if one_shot {
        helm::skip_freeing();
    }
    // The one async runtime, built when the first command that needs it asks.
    let runtime = runtime::Runtime::default();
    let result = match cli.command {
        Command::Helm {
            command: HelmCommand::Template(args),
        } => helm_template(args),
        Command::Install(args) => install::install(args, &runtime).map_err(|e| Failure::input(e.0)),
        Command::Upgrade(args) => canary::upgrade(args, &runtime).map_err(|e| Failure::input(e.0)),
        Command::Manifest {
            command: ManifestCommand::Generate(args),
        } => mesh::manifest_generate(args, &runtime).map_err(|e| Failure::input(e.0)),
        Command::Manifest {
            command: ManifestCommand::Diff(args),
        } => profile::manifest_diff(args).map_err(|e| Failure::input(e.0)),
        Command::Manifest {
            command: ManifestCommand::Translate(args),
        } => translate::manifest_translate(args).map_err(|e| Failure::input(e.0)),
        Command::Uninstall(args) => {
            uninstall::uninstall(args, &runtime).map_err(|e| Failure::input(e.0))
        }
        Command::Plan(args) => plan::plan_command(args, &runtime).map_err(|e| Failure::input(e.0)),
        Command::Operator { command } => {
            operator::operator(command, &runtime).map_err(|e| Failure::input(e.0))
        }
        Command::Profile { command } => profile::profile(command).map_err(|e| Failure::input(e.0)),
        Command::VerifyInstall(args) => {
            verify::verify_install(args, &runtime).map_err(|e| Failure::input(e.0))
        }
        Command::Validate(args) => profile::validate(args).map_err(|e| Failure::input(e.0)),
        Command::Tag { command } => tag::tag(command, &runtime).map_err(|e| Failure::input(e.0)),
        Command::Precheck(args) => match precheck::precheck_command(args, &runtime) {
            Ok(precheck::Outcome::Passed) => Ok(()),
            Ok(precheck::Outcome::Failed) => Err(Failure {
                code: 1,
                ..Failure::input("")
            }),
            Err(e) => Err(Failure {
                code: 2,
                ..Failure::input(e.0)
            }),
        },
        Command::Proxy { command } => {
            proxy::proxy(command, &runtime).map_err(|e| Failure::input(e.0))
        }
        Command::Revision { command } => {
            revision::revision(command, &runtime).map_err(|e| Failure::input(e.0))
        }
        Command::CreateRemoteSecret(args) => {
            remote_secret::create_remote_secret(args, &runtime).map_err(|e| Failure::input(e.0))
        }
        Command::Mesh {
            command: MeshCommand::Ca(args),
        } => mesh_ca::mesh_ca(args).map_err(|e| Failure::input(e.0)),
        Command::Mesh {
            command: MeshCommand::Cacerts(args),
        } => mesh_ca::mesh_cacerts(args, &runtime).map_err(|e| Failure::input(e.0)),
        Command::Mesh {
            command: MeshCommand::Install(args),
        } => mesh_install::mesh_install(*args, &runtime).map_err(|e| Failure::input(e.0)),
        Command::Mesh {
            command: MeshCommand::RotateSecrets(args),
        } => mesh_check::rotate_secrets(args, &runtime).map_err(|e| Failure::input(e.0)),
        Command::Mesh {
            command: MeshCommand::Disconnect(args),
        } => mesh_check::disconnect(args, &runtime).map_err(|e| Failure::input(e.0)),
        Command::Mesh {
            command: MeshCommand::Check(args),
        } => match mesh_check::mesh_check(args, &runtime) {
            Ok(mesh_check::Outcome::Passed) => Ok(()),
            Ok(mesh_check::Outcome::Failed) => Err(Failure {
                code: 1,
                ..Failure::input("")
            }),
            Err(e) => Err(Failure {
                code: 2,
                ..Failure::input(e.0)
            }),
        },
        Command::Version(args) => version::version(args).map_err(|e| Failure::input(e.0)),
        Command::Completion(args) => {
            completion::completion(args, Cli::command()).map_err(|e| Failure::input(e.0))
        }
    };
    let code = match result {
        Ok(()) => 0,
        Err(failure) => {
            let mut stderr = std::io::stderr().lock();
            if !failure.message.is_empty() {
                let _ = writeln!(stderr, "Error: {}", failure.message);
            }
            if failure.render_hint {
                let _ = writeln!(stderr, "\nUse --debug flag to render out invalid YAML");
            }
            failure.code
        }
    };
    if one_shot {
        exit_now(code);
    }
    ExitCode::from(code)
}

/// Ends the process without its exit handlers. They only hand memory back (mimalloc returns
/// each arena to the kernel range by range), which the kernel does at once anyway; skipping
/// them took `manifest generate`'s CPU time from about 29 to 22 ms (BENCHMARKS.md).
fn exit_now(code: u8) -> ! {
    // Everything is written by now but what stdout may still buffer.
    let _ = std::io::stdout().lock().flush();
    // SAFETY: `_exit` ends the process at once; nothing runs after it.
    unsafe { libc::_exit(i32::from(code)) }
}

fn helm_template(args: TemplateArgs) -> Result<(), Failure> {
    let (name, chart_path) = match (args.args.as_slice(), &args.name_template) {
        ([_, _], Some(_)) => {
            return Err(Failure::input(
                "cannot set --name-template and also specify a name",
            ));
        }
        ([chart], Some(template)) => {
            let name = helm::template::name_from_template(template)
                .map_err(|e| Failure::input(e.to_string()))?;
            (name, chart.clone())
        }
        ([chart], None) => ("release-name".to_string(), chart.clone()),
        ([name, chart], None) => (name.clone(), chart.clone()),
        _ => unreachable!("clap allows one or two positional arguments"),
    };
    let chart_dir = PathBuf::from(&chart_path);
    if !chart_dir.exists() {
        return Err(Failure::input(format!("path {chart_path:?} not found")));
    }
    let chart = helm::chart::load_path(&chart_dir).map_err(|e| Failure::input(e.to_string()))?;
    let mut value_files = Vec::new();
    for path in &args.values {
        // helm reads `-` (spaces around it allowed) from stdin, and names it `-` in errors.
        let text = if path.to_str().is_some_and(|p| p.trim() == "-") {
            input::read_stdin().map_err(|e| Failure::input(format!("read stdin: {e}")))?
        } else {
            input::read_text(path)
                .map_err(|e| Failure::input(format!("open {}: {e}", path.display())))?
        };
        value_files.push((path.display().to_string(), text));
    }
    let options = helm::template::TemplateOptions {
        release_name: name,
        namespace: args.namespace,
        value_files,
        set: args.set,
        set_string: args.set_string,
        set_file: args.set_file,
        read_file: Some(|path| read_value_file(path).map_err(Into::into)),
        show_only: args.show_only,
        kube_version: args.kube_version,
        api_versions: args.api_versions,
        include_crds: args.include_crds,
        set_json: args.set_json,
        set_literal: args.set_literal,
        is_upgrade: args.is_upgrade,
        no_hooks: args.no_hooks,
        skip_tests: args.skip_tests,
        output_dir: args.output_dir,
        use_release_name: args.release_name,
        skip_schema_validation: args.skip_schema_validation,
        schema_http: Some(|url| schema_fetch::fetch(url).map_err(Into::into)),
    };
    let output = helm::template::template(&chart, &options).map_err(template_failure)?;
    let mut stderr = std::io::stderr().lock();
    for warning in &output.warnings {
        let _ = writeln!(stderr, "{warning}");
    }
    let mut stdout = std::io::stdout().lock();
    for file in &output.files {
        let path = write_output_file(file)?;
        let _ = writeln!(stdout, "wrote {path}");
    }
    let written = output
        .stdout
        .write_to(&mut stdout)
        .and_then(|()| stdout.flush())
        .map_err(|e| Failure::input(mesh::output_error(e)));
    // The process ends next (`exit_now`): the rendered files and the chart are left to it.
    std::mem::forget(output);
    std::mem::forget(chart);
    written
}

/// The failure `helm template` prints for `e`; lines Helm logged before failing are printed
/// here, as Helm prints them as it goes.
fn template_failure(e: helm::template::TemplateError) -> Failure {
    match e {
        helm::template::TemplateError::Render(e) => Failure {
            message: e.0,
            render_hint: true,
            code: 1,
        },
        helm::template::TemplateError::Logged { warnings, error } => {
            let mut stderr = std::io::stderr().lock();
            for warning in &warnings {
                let _ = writeln!(stderr, "{warning}");
            }
            template_failure(*error)
        }
        other => Failure::input(other.to_string()),
    }
}

/// Writes one `--output-dir` file as helm does (directories created, `DIR/NAME` created or
/// appended to; a hook also appends to a file left from before). Returns the path written.
fn write_output_file(file: &helm::template::OutputFile) -> Result<String, Failure> {
    let path = format!("{}/{}", file.dir, file.name);
    let target = PathBuf::from(&path);
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent).map_err(|e| {
            Failure::input(format!("mkdir {}: {}", parent.display(), io_error_text(&e)))
        })?;
    }
    let append = file.append || (file.hook && target.exists());
    let result = if append {
        std::fs::OpenOptions::new()
            .append(true)
            .open(&target)
            .and_then(|mut f| f.write_all(file.data.as_bytes()))
    } else {
        std::fs::write(&target, file.data.as_bytes())
    };
    result.map_err(|e| Failure::input(format!("open {path}: {}", io_error_text(&e))))?;
    Ok(path)
}

/// Reads a `--set-file` file, failing in Go's words (see [`input`] for what is refused).
fn read_value_file(path: &str) -> Result<String, String> {
    input::read_text(std::path::Path::new(path)).map_err(|e| format!("open {path}: {e}"))
}

/// Go's wording of common I/O errors (`no such file or directory`), without Rust's
/// `(os error 2)` suffix.
pub(crate) fn io_error_text(e: &std::io::Error) -> String {
    pipeline::io_error_text(e)
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    /// Every `helm` command, with its help, as the whole command line builds it.
    fn helm_commands(root: clap::Command) -> Vec<(String, String)> {
        fn walk(mut cmd: clap::Command, path: String, out: &mut Vec<(String, String)>) {
            let help = cmd.render_long_help().to_string();
            out.push((path.clone(), help));
            for sub in cmd.get_subcommands().cloned().collect::<Vec<_>>() {
                let name = sub.get_name().to_string();
                walk(sub, format!("{path} {name}"), out);
            }
        }
        let mut root = root;
        root.build();
        let helm = root.find_subcommand("helm").expect("helm").clone();
        let mut out = Vec::new();
        walk(helm, "bosun helm".into(), &mut out);
        out
    }

    #[test]
    fn every_cluster_command_takes_kubeconfig_and_context() {
        let root = Cli::command();
        let cluster_commands: [&[&str]; 18] = [
            &["install"],
            &["upgrade"],
            &["plan"],
            &["uninstall"],
            &["precheck"],
            &["verify-install"],
            &["revision", "list"],
            &["tag", "set"],
            &["tag", "generate"],
            &["tag", "list"],
            &["tag", "remove"],
            &["operator", "init"],
            &["operator", "remove"],
            &["operator", "run"],
            &["manifest", "generate"],
            &["create-remote-secret"],
            &["mesh", "cacerts"],
            &["mesh", "install"],
        ];
        for path in cluster_commands {
            let mut command = &root;
            for name in path {
                command = command
                    .find_subcommand(name)
                    .unwrap_or_else(|| panic!("{path:?}"));
            }
            let flag = |id: &str| {
                command
                    .get_arguments()
                    .find(|a| a.get_id() == id)
                    .unwrap_or_else(|| panic!("{path:?} has no --{id}"))
            };
            assert_eq!(flag("kubeconfig").get_long(), Some("kubeconfig"));
            assert_eq!(flag("kubeconfig").get_short(), Some('c'), "{path:?}");
            assert_eq!(flag("context").get_long(), Some("context"));
            assert_eq!(
                flag("request_timeout").get_long(),
                Some("request-timeout"),
                "{path:?}"
            );
        }
    }

    #[test]
    fn cluster_flags_name_the_target() {
        let parsed = |args: &[&str]| {
            let Command::Tag {
                command: tag::TagCommand::List(list),
            } = Cli::try_parse_from(args).expect("parses").command
            else {
                panic!("tag list")
            };
            list.cluster.target()
        };
        assert_eq!(
            parsed(&["bosun", "tag", "list", "-c", "/k", "--context", "blue"]),
            cluster::Target {
                kubeconfig: Some(PathBuf::from("/k")),
                context: Some("blue".into()),
                ..cluster::Target::default()
            }
        );
        assert_eq!(
            parsed(&["bosun", "tag", "list", "--request-timeout", "0"]).request_timeout,
            cluster::RequestTimeout::NONE
        );
        assert_eq!(
            parsed(&["bosun", "tag", "list"]).request_timeout,
            cluster::RequestTimeout::DEFAULT
        );
        // As for kubectl, whose flags default to "": an empty value is no flag.
        assert_eq!(
            parsed(&["bosun", "tag", "list", "--kubeconfig=", "--context="]),
            cluster::Target::default()
        );
    }

    #[test]
    fn helm_commands_are_read_as_the_whole_command_line_reads_them() {
        assert_eq!(
            helm_commands(HelmCli::command()),
            helm_commands(Cli::command())
        );
        let args = [
            "bosun", "helm", "template", "-n", "ns", "r", "chart", "--set", "a=b",
        ];
        let Command::Helm {
            command: HelmCommand::Template(whole),
        } = Cli::try_parse_from(args).expect("parses").command
        else {
            panic!("helm template")
        };
        let HelmOnly::Helm {
            command: HelmCommand::Template(alone),
        } = HelmCli::try_parse_from(args).expect("parses").command;
        assert_eq!(
            (whole.args, whole.namespace, whole.set),
            (alone.args, alone.namespace, alone.set)
        );
        for bad in [
            &["bosun", "helm"][..],
            &["bosun", "helm", "templat"],
            &["bosun", "helm", "template"],
            &["bosun", "helm", "template", "c", "--nope"],
            &["bosun", "helm", "template", "--help"],
        ] {
            let whole = Cli::try_parse_from(bad).err().expect("fails").to_string();
            let alone = HelmCli::try_parse_from(bad)
                .err()
                .expect("fails")
                .to_string();
            assert_eq!(whole, alone, "{bad:?}");
        }
    }
}
