//! istioctl's mesh commands that need no cluster: `manifest generate` (unless
//! `--cluster-specific`); and what every command that renders shares: the input flags, reading
//! the files they name, the install packages with the pinned release, the call into the
//! `pipeline` library and printing what it says.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;

use crate::io_error_text;

/// Flags shared by every command that builds an IstioOperator from inputs.
#[derive(Args, Clone, Debug)]
pub struct InputArgs {
    /// IstioOperator files, layered in order (`-` for stdin, last only).
    #[arg(short = 'f', long = "filename", value_delimiter = ',')]
    pub filenames: Vec<String>,
    /// Override an IstioOperator value (`components.pilot.k8s.replicaCount=2`,
    /// `values.global.hub=x`, `profile=demo`); escape dots in keys with `\.`.
    #[arg(short = 's', long = "set")]
    pub set: Vec<String>,
    /// The install package (charts and profiles) directory; the pinned release by default.
    #[arg(short = 'd', long = "manifests", alias = "charts")]
    pub manifests: Option<String>,
    #[command(flatten)]
    pub package: VersionFlags,
    /// Control plane revision (`--set revision=REV`).
    #[arg(short = 'r', long = "revision")]
    pub revision: Option<String>,
}

/// `--version` and `--mirror`: an Istio version's install package instead of the pinned one.
#[derive(Args, Clone, Debug, Default)]
pub struct VersionFlags {
    /// The Istio version to render: a release (1.30.3), a minor (1.30: its newest known
    /// patch) or an istio.io/istio module version; fetched, verified and cached on first use,
    /// offline after (`bosun version --list` shows them). Not with --manifests.
    #[arg(long = "version", value_name = "VERSION", conflicts_with = "manifests")]
    pub version: Option<String>,
    /// Where release archives come from: an HTTP(S) base URL or a directory laid out as
    /// Istio's release downloads (VERSION/istio-VERSION-linux-amd64.tar.gz and its .sha256),
    /// or an OCI registry, oci://HOST[:PORT]/REPO, holding release VERSION as the artifact
    /// REPO:VERSION (`oras push`); default $BOSUN_ISTIO_MIRROR, else
    /// https://github.com/istio/istio/releases/download.
    #[arg(long = "mirror", value_name = "URL|DIR", requires = "version")]
    pub mirror: Option<String>,
}

impl VersionFlags {
    /// The install package directory: `manifests` as given, else `--version`'s package
    /// (fetched into the cache on first use), else none (the pinned release).
    pub fn package(&self, manifests: Option<&str>) -> Result<Option<String>, MeshFailure> {
        match (&self.version, manifests) {
            (Some(_), Some(_)) => Err(MeshFailure(
                "--version and --manifests both name the install package; give one".to_string(),
            )),
            (Some(version), None) => crate::release::version_dir(version, self.mirror.as_deref())
                .map(|dir| Some(dir.display().to_string()))
                .map_err(MeshFailure),
            (None, m) => Ok(m.map(str::to_string)),
        }
    }
}

/// The install package the flags name, refusing `--version` with an install package named
/// elsewhere (`--set installPackagePath=…`, `spec.installPackagePath` in a file): the two
/// would disagree on the version.
fn package(
    input: &InputArgs,
    files: &[iop::merge::InputFile],
) -> Result<Option<String>, MeshFailure> {
    refuse_package_with_version(input, files)?;
    input.package.package(input.manifests.as_deref())
}

/// With `--version`, refuses an install package named elsewhere: `--set installPackagePath=…`
/// or `spec.installPackagePath` in one of `files`.
pub(crate) fn refuse_package_with_version(
    input: &InputArgs,
    files: &[iop::merge::InputFile],
) -> Result<(), MeshFailure> {
    if input.package.version.is_some() {
        let set = input.set.iter().find(|s| {
            s.split_once('=')
                .is_some_and(|(k, _)| k.trim().trim_start_matches("spec.") == "installPackagePath")
        });
        if let Some(set) = set {
            return Err(MeshFailure(format!(
                "--version and --set {set} both name the install package; give one"
            )));
        }
        for file in files {
            let names_one = file.maps().into_iter().any(|map| {
                map.get("spec")
                    .and_then(|spec| spec.get("installPackagePath"))
                    .and_then(|p| p.as_str())
                    .is_some_and(|p| !p.is_empty())
            });
            if names_one {
                return Err(MeshFailure(format!(
                    "--version and spec.installPackagePath in {} both name the install package; give one",
                    file.name
                )));
            }
        }
    }
    Ok(())
}

#[derive(Args, Debug)]
pub struct GenerateArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Proceed even when validation fails (errors are printed as warnings).
    #[arg(long)]
    pub force: bool,
    /// Write the manifest to this file instead of stdout.
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
    /// Read the cluster for cluster-specific settings, as `install` does: its Kubernetes
    /// version (charts' `.Capabilities`), GKE's CNI settings, CNI warnings.
    #[arg(long = "cluster-specific")]
    pub cluster_specific: bool,
    /// Render for a cluster of this Kubernetes version without reading one (a GitOps render):
    /// the charts' `.Capabilities.KubeVersion`, and what istioctl decides from a cluster's
    /// version (GKE's settings for a `-gke` version), as `--cluster-specific` would. Not with
    /// --cluster-specific.
    #[arg(
        long = "kube-version",
        value_name = "VERSION",
        conflicts_with = "cluster_specific"
    )]
    pub kube_version: Option<String>,
    /// API versions the target cluster serves (`group/version` or `group/version/Kind`),
    /// added to Helm's defaults as the charts' `.Capabilities.APIVersions`, as `helm template
    /// --api-versions` adds them. Not with --cluster-specific.
    #[arg(
        short = 'a',
        long = "api-versions",
        value_name = "API_VERSION",
        value_delimiter = ',',
        conflicts_with = "cluster_specific"
    )]
    pub api_versions: Vec<String>,
    /// Run as Argo CD's config-management plugin (`deploy/argocd/plugin.yaml`): flags also
    /// come from Argo's environment, after any given here: `KUBE_VERSION` (--kube-version),
    /// `KUBE_API_VERSIONS` (--api-versions), `ARGOCD_ENV_BOSUN_FILES` (-f, comma-separated;
    /// without it, every *.yaml and *.yml file of the current folder that holds `kind:
    /// IstioOperator`, by name), `ARGOCD_ENV_BOSUN_SET` (one --set per line),
    /// `ARGOCD_ENV_BOSUN_VERSION` (--version), `ARGOCD_ENV_BOSUN_REVISION` (--revision), and
    /// the sidecar's `BOSUN_MANIFESTS` (--manifests, unless a version is asked for).
    #[arg(long = "argocd", conflicts_with = "cluster_specific")]
    pub argocd: bool,
    /// The cluster `--cluster-specific` reads.
    #[command(flatten)]
    pub cluster: crate::target::ClusterArgs,
}

/// istioctl's `AUTO_GKE_DETECTION`: on unless set to a false Go bool.
pub fn gke_detection() -> bool {
    std::env::var("AUTO_GKE_DETECTION")
        .ok()
        .and_then(|v| iop::detect::go_parse_bool(&v))
        .unwrap_or(true)
}

/// What the pipeline needs to know of a cluster, from the facts it gave.
pub fn detected(facts: &vocab::ClusterFacts) -> pipeline::Detected {
    pipeline::Detected::from_facts(facts, gke_detection())
}

/// Reads the cluster the `cluster` flags name.
fn detect_cluster(
    cluster: &crate::target::ClusterArgs,
    runtime: &crate::runtime::Runtime,
) -> Result<pipeline::Detected, MeshFailure> {
    let facts = runtime.get()?.block_on(async {
        let client = cluster.client().await?;
        Ok::<_, MeshFailure>(client.cluster_facts().await?)
    })?;
    Ok(detected(&facts))
}

/// Reads what istioctl takes from a cluster, when the pipeline asks: once the input is known
/// to be valid, so that bad input fails before any request.
pub type Detect<'a> = &'a dyn Fn() -> Result<pipeline::Detected, String>;

/// A failure worded as istioctl words it (`Error: …` is added by main).
pub struct MeshFailure(pub String);

impl<E: std::fmt::Display> From<E> for MeshFailure {
    fn from(e: E) -> MeshFailure {
        MeshFailure(e.to_string())
    }
}

/// The install packages, with the pinned release fetched into bosun's cache on first use.
pub fn packages() -> pipeline::InstallPackages {
    pipeline::InstallPackages::new(std::sync::Arc::new(|| {
        crate::release::manifests_dir().map_err(Into::into)
    }))
}

/// Reads the `-f` inputs (stdin for `-`).
pub(crate) fn read_inputs(names: &[String]) -> Result<Vec<iop::merge::InputFile>, MeshFailure> {
    let files = read_input_files(names).map_err(|e| MeshFailure(format!("merge inputs: {e}")))?;
    // istioctl renders an empty file as if it were not given, without a word: say so, since
    // an empty file is more often a mistake (a wrong path, a failed redirect) than a choice.
    for file in files
        .iter()
        .filter(|f| f.source().is_some_and(iop::merge::holds_no_object))
    {
        let name = if file.name == "-" {
            "stdin"
        } else {
            &file.name
        };
        let _ = writeln!(
            std::io::stderr().lock(),
            "warning: {name} holds no IstioOperator (it is empty or only comments); it changes nothing"
        );
    }
    Ok(files)
}

/// [`read_inputs`] with Go's bare message on failure (istioctl 1.23's `profile dump` did not
/// prefix it).
pub(crate) fn read_input_files(names: &[String]) -> Result<Vec<iop::merge::InputFile>, String> {
    let mut files = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let text = if name == "-" {
            if i != names.len() - 1 {
                return Err("stdin is only allowed as the last filename".to_string());
            }
            crate::input::read_stdin().map_err(|e| format!("read stdin: {e}"))?
        } else {
            let path = name.trim();
            crate::input::read_text(std::path::Path::new(path))
                .map_err(|e| format!("open {path}: {e}"))?
        };
        files.push(iop::merge::InputFile::text(name.clone(), text));
    }
    Ok(files)
}

/// The flags' inputs as the pipeline takes them, the files read.
pub(crate) fn inputs(input: &InputArgs) -> Result<pipeline::Inputs, MeshFailure> {
    let files = read_inputs(&input.filenames)?;
    Ok(pipeline::Inputs {
        manifests: package(input, &files)?,
        files,
        set: input.set.clone(),
        revision: input.revision.clone(),
    })
}

/// istioctl's flag aliases: `--manifests` and `--revision` are `--set` flags in disguise
/// (and `--version` is `--manifests` with its package's directory).
pub(crate) fn set_flags(
    input: &InputArgs,
    files: &[iop::merge::InputFile],
) -> Result<Vec<String>, MeshFailure> {
    let inputs = pipeline::Inputs {
        files: Vec::new(),
        set: input.set.clone(),
        manifests: package(input, files)?,
        revision: input.revision.clone(),
    };
    Ok(inputs.flags())
}

/// Tells the pipeline's diagnostics on stderr.
pub(crate) fn print_diagnostics(diagnostics: &[pipeline::Diagnostic]) {
    let mut stderr = std::io::stderr().lock();
    for d in diagnostics {
        let _ = write!(stderr, "{d}");
    }
}

/// Prints a validation report's warnings (and, when `errors`, then its errors) on stderr, each
/// with its line and caret.
pub(crate) fn print_report(
    report: &iop::validate::Report,
    files: &[iop::merge::InputFile],
    merged: &iop::IstioOperator,
    packages: &pipeline::InstallPackages,
    errors: bool,
) {
    print_diagnostics(&pipeline::diagnostics(
        report, files, merged, packages, errors,
    ));
}

/// The inputs merged, validated and rendered, as `manifest generate` renders them (for the
/// cluster `detect` reads, if given); what the pipeline has to say is printed on stderr.
pub fn render(
    input: &InputArgs,
    packages: &pipeline::InstallPackages,
    force: bool,
    detect: Option<Detect<'_>>,
) -> Result<pipeline::Rendered, MeshFailure> {
    let inputs = inputs(input)?;
    let detect = detect.map(|d| move || d().map_err(pipeline::DetectError::new));
    let detect = detect
        .as_ref()
        .map(|d| d as &dyn Fn() -> Result<pipeline::Detected, pipeline::DetectError>);
    let rendering = pipeline::render(&inputs, packages, force, detect);
    print_diagnostics(&rendering.diagnostics);
    rendering
        .result
        .map_err(|e| pipeline_failure(e, &inputs.files, packages))
}

/// A pipeline failure in istioctl's words, then what istioctl leaves out (see
/// [`merge_failure`]).
pub(crate) fn pipeline_failure(
    e: pipeline::Error,
    files: &[iop::merge::InputFile],
    packages: &pipeline::InstallPackages,
) -> MeshFailure {
    match &e {
        pipeline::Error::Merge(m) => explained(e.to_string(), m, files, packages),
        _ => MeshFailure(e.to_string()),
    }
}

/// A merge failure in istioctl's words (`message`), then, on lines of their own, what istioctl
/// leaves out: where a YAML syntax error in an input file stopped (file:line:col, the line, a
/// caret, as every other input error shows it; the file alone when there is no place, as for
/// an alias bomb), and for a profile that is not there, the ones
/// that are (or why the install package has none).
pub(crate) fn explained(
    mut message: String,
    e: &iop::merge::MergeError,
    files: &[iop::merge::InputFile],
    packages: &pipeline::InstallPackages,
) -> MeshFailure {
    if let Some((file, line, col)) = e.location()
        && let Some(text) = files
            .iter()
            .find(|f| f.name == file)
            .and_then(|f| f.source())
    {
        message.push('\n');
        message.push_str(iop::source::pointer(file, text, line, col).trim_end());
    } else if let Some(file) = e.unnamed_file() {
        message.push_str(&format!("\n --> {file}"));
    }
    if let iop::merge::MergeError::ProfileNotFound {
        install_package_path,
        ..
    } = e
    {
        let hint = match packages.profile_names(install_package_path) {
            Ok(names) if names.is_empty() => "the install package has no profiles".to_string(),
            Ok(names) => format!("the profiles are: {}", names.join(", ")),
            Err(why) => why.to_string(),
        };
        message.push_str(&format!("\n  {hint}"));
    }
    MeshFailure(message)
}

pub fn manifest_generate(
    mut args: GenerateArgs,
    runtime: &crate::runtime::Runtime,
) -> Result<(), MeshFailure> {
    if args.argocd {
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let folder = istio_operator_files(Path::new("."))?;
        argocd_flags(&mut args, &env, folder);
    }
    let detect = || detect_cluster(&args.cluster, runtime).map_err(|e| e.0);
    let offline = offline_target(&args)?;
    let given = || Ok(offline.clone().expect("only called with a target"));
    let detect: Option<Detect<'_>> = if args.cluster_specific {
        Some(&detect)
    } else if offline.is_some() {
        Some(&given)
    } else {
        None
    };
    let generated = render(&args.input, &packages(), args.force, detect)?.generated;
    let objects = generated.sorted_objects();
    let write = |out: &mut dyn Write| {
        let mut w = std::io::BufWriter::with_capacity(1 << 16, out);
        manifest::order::write_objects(&objects, &mut w)?;
        w.flush()
    };
    let written = match &args.output {
        Some(path) => {
            let failure = |step: &str, e: std::io::Error| {
                MeshFailure(format!(
                    "write manifest to {:?}: {step} {}: {}",
                    path.display().to_string(),
                    path.display(),
                    io_error_text(&e)
                ))
            };
            let mut file = std::fs::File::create(path).map_err(|e| failure("open", e))?;
            write(&mut file).map_err(|e| failure("write", e))
        }
        None => write(&mut std::io::stdout().lock()).map_err(|e| MeshFailure(output_error(e))),
    };
    // The process ends after printing: freeing the objects' trees (megabytes of small nodes
    // for Istio's CRDs) would only cost time.
    std::mem::forget(generated);
    written
}

/// Argo CD's plugin environment as flags (see `--argocd`), after those already given; `env`
/// reads a variable (unset or blank is `None`), `folder` is the IstioOperator files of the
/// current folder, taken when `ARGOCD_ENV_BOSUN_FILES` is not set.
pub(crate) fn argocd_flags(
    args: &mut GenerateArgs,
    env: &dyn Fn(&str) -> Option<String>,
    folder: Vec<String>,
) {
    let input = &mut args.input;
    match env("ARGOCD_ENV_BOSUN_FILES") {
        Some(files) => input.filenames.extend(
            files
                .split(',')
                .map(str::trim)
                .filter(|f| !f.is_empty())
                .map(str::to_string),
        ),
        None if input.filenames.is_empty() => input.filenames = folder,
        None => {}
    }
    if let Some(set) = env("ARGOCD_ENV_BOSUN_SET") {
        input.set.extend(
            set.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string),
        );
    }
    if input.package.version.is_none() {
        input.package.version = env("ARGOCD_ENV_BOSUN_VERSION").map(|v| v.trim().to_string());
    }
    // The sidecar's own setting (not the Application's): the charts in its image, so that
    // the pinned release renders without a download. Another --version is fetched instead.
    if input.package.version.is_none() && input.manifests.is_none() {
        input.manifests = env("BOSUN_MANIFESTS").map(|v| v.trim().to_string());
    }
    if input.revision.is_none() {
        input.revision = env("ARGOCD_ENV_BOSUN_REVISION").map(|v| v.trim().to_string());
    }
    if args.kube_version.is_none() {
        args.kube_version = env("KUBE_VERSION").map(|v| v.trim().to_string());
    }
    if let Some(apis) = env("KUBE_API_VERSIONS") {
        args.api_versions.extend(
            apis.split(',')
                .map(str::trim)
                .filter(|a| !a.is_empty())
                .map(str::to_string),
        );
    }
}

/// The files of `dir` named `*.yaml` or `*.yml` that hold an IstioOperator (a line `kind:
/// IstioOperator`), by name.
fn istio_operator_files(dir: &Path) -> Result<Vec<String>, MeshFailure> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        MeshFailure(format!(
            "--argocd: read {}: {}",
            dir.display(),
            io_error_text(&e)
        ))
    })?;
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".yaml") || n.ends_with(".yml"))
        .filter(|n| {
            crate::input::read_text(&dir.join(n))
                .is_ok_and(|text| text.lines().any(|l| l.trim_end() == "kind: IstioOperator"))
        })
        .collect();
    names.sort();
    Ok(names)
}

/// The cluster `--kube-version` / `--api-versions` describe, when either is given: what
/// `--cluster-specific` would have read, without a cluster. API versions alone render for
/// istioctl's default Kubernetes version.
fn offline_target(args: &GenerateArgs) -> Result<Option<pipeline::Detected>, MeshFailure> {
    if args.kube_version.is_none() && args.api_versions.is_empty() {
        return Ok(None);
    }
    let version = args
        .kube_version
        .as_deref()
        .unwrap_or(manifest::render::ISTIOCTL_KUBE_VERSION);
    let kube_version = helm::objects::KubeVersion::parse(version)
        .map_err(|e| MeshFailure(format!("--kube-version: {e}")))?;
    let api_versions = args
        .api_versions
        .iter()
        .map(|a| a.trim().to_string())
        .filter(|a| !a.is_empty())
        .collect();
    Ok(Some(pipeline::Detected::offline(
        kube_version,
        api_versions,
        gke_detection(),
    )))
}

pub fn write_stdout(text: &str) -> Result<(), MeshFailure> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| MeshFailure(output_error(e)))
}

/// What to say when printing on stdout failed: `writing output: …`. A closed pipe (`bosun … |
/// head`) instead ends the process as istioctl and helm (Go programs) end: killed by SIGPIPE,
/// saying nothing, so the shell sees status 141 as it does for them. Rust ignores SIGPIPE, so
/// bosun sees the closed pipe as an error of the write instead.
pub(crate) fn output_error(e: std::io::Error) -> String {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        // SAFETY: restoring a signal's default action and raising it take no pointers; _exit
        // is only reached if the signal did not end the process.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
            libc::raise(libc::SIGPIPE);
            libc::_exit(141);
        }
    }
    format!("writing output: {e}")
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    /// Argo CD's environment as flags: each case is the command line, the environment, the
    /// folder's IstioOperator files, and the flags that result.
    #[test]
    fn argocd_environment_maps_to_flags() {
        type Case<'a> = (
            &'a [&'a str],
            &'a [(&'a str, &'a str)],
            &'a [&'a str],
            &'a str,
        );
        let cases: &[Case] = &[
            (&[], &[], &["a.yaml", "b.yml"], "-f a.yaml -f b.yml"),
            (
                &[],
                &[
                    ("KUBE_VERSION", "1.33.2"),
                    ("KUBE_API_VERSIONS", "v1, apps/v1,"),
                    ("ARGOCD_ENV_BOSUN_SET", "a=1\n\n b=2 \n"),
                    ("ARGOCD_ENV_BOSUN_VERSION", "1.30"),
                    ("ARGOCD_ENV_BOSUN_REVISION", "blue"),
                    ("BOSUN_MANIFESTS", "/usr/share/bosun/manifests"),
                ],
                &["iop.yaml"],
                "-f iop.yaml --set a=1 --set b=2 --version 1.30 -r blue --kube-version 1.33.2 -a v1 -a apps/v1",
            ),
            (
                &[],
                &[
                    ("ARGOCD_ENV_BOSUN_FILES", "x.yaml, y.yaml"),
                    ("BOSUN_MANIFESTS", "/m"),
                ],
                &["iop.yaml"],
                "-f x.yaml -f y.yaml -d /m",
            ),
            (
                &["-f", "given.yaml", "--kube-version", "1.30", "-r", "green"],
                &[
                    ("KUBE_VERSION", "1.33"),
                    ("ARGOCD_ENV_BOSUN_REVISION", "blue"),
                ],
                &["iop.yaml"],
                "-f given.yaml -r green --kube-version 1.30",
            ),
        ];
        for (argv, env, folder, want) in cases {
            let mut full = vec!["bosun", "manifest", "generate", "--argocd"];
            full.extend(argv.iter());
            let crate::Command::Manifest {
                command: crate::ManifestCommand::Generate(mut args),
            } = crate::Cli::try_parse_from(&full).unwrap().command
            else {
                panic!("not manifest generate")
            };
            let lookup = |name: &str| {
                env.iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            };
            let folder = folder.iter().map(|f| f.to_string()).collect();
            super::argocd_flags(&mut args, &lookup, folder);
            let mut got = Vec::new();
            let input = &args.input;
            got.extend(input.filenames.iter().map(|f| format!("-f {f}")));
            got.extend(input.set.iter().map(|s| format!("--set {s}")));
            got.extend(
                input
                    .package
                    .version
                    .iter()
                    .map(|v| format!("--version {v}")),
            );
            got.extend(input.manifests.iter().map(|d| format!("-d {d}")));
            got.extend(input.revision.iter().map(|r| format!("-r {r}")));
            got.extend(
                args.kube_version
                    .iter()
                    .map(|k| format!("--kube-version {k}")),
            );
            got.extend(args.api_versions.iter().map(|a| format!("-a {a}")));
            assert_eq!(got.join(" "), *want, "{argv:?} {env:?}");
        }
    }

    /// Every command that renders or installs takes `--version` and `--mirror`, and refuses
    /// `--version` with `--manifests` (issue 31).
    #[test]
    fn every_rendering_command_takes_a_version() {
        let commands: [&[&str]; 14] = [
            &["manifest", "generate"],
            &["manifest", "translate"],
            &["install"],
            &["upgrade"],
            &["plan"],
            &["verify-install"],
            &["precheck"],
            &["profile", "dump"],
            &["profile", "diff"],
            &["profile", "list"],
            &["validate"],
            &["uninstall"],
            &["create-remote-secret"],
            &["mesh", "install"],
        ];
        let root = crate::Cli::command();
        for path in commands {
            let mut command = &root;
            for name in path {
                command = command
                    .find_subcommand(name)
                    .unwrap_or_else(|| panic!("{path:?}"));
            }
            for flag in ["version", "mirror"] {
                assert!(
                    command.get_arguments().any(|a| a.get_long() == Some(flag)),
                    "{path:?} has no --{flag}"
                );
            }
            let mut args = vec!["bosun"];
            args.extend_from_slice(path);
            args.extend(["--version", "1.30", "--manifests", "/x"]);
            let e = crate::Cli::try_parse_from(&args).err().map(|e| e.kind());
            assert_eq!(
                e,
                Some(clap::error::ErrorKind::ArgumentConflict),
                "{args:?}"
            );
            let mut args = vec!["bosun"];
            args.extend_from_slice(path);
            args.extend(["--mirror", "/srv/istio"]);
            let e = crate::Cli::try_parse_from(&args).err().map(|e| e.kind());
            assert_eq!(
                e,
                Some(clap::error::ErrorKind::MissingRequiredArgument),
                "{args:?}: --mirror without --version"
            );
        }
    }
}
