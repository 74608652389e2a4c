//! istioctl's mesh commands that need no cluster: `manifest generate` (unless
//! `--cluster-specific`); and what every command that renders shares: the input flags, reading
//! the files they name, the install packages with the pinned release, the call into the
//! `pipeline` library and printing what it says.

use std::io::{Read, Write};
use std::path::PathBuf;

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
    /// Istio's release downloads (VERSION/istio-VERSION-linux-amd64.tar.gz and its .sha256);
    /// default $BOSUN_ISTIO_MIRROR, else https://github.com/istio/istio/releases/download.
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
            let names_one = iop::merge::split_yaml_documents(&file.text)
                .into_iter()
                .filter_map(|doc| iop::merge::map_from_yaml(doc).ok())
                .any(|map| {
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
    input.package.package(input.manifests.as_deref())
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
        .filter(|f| iop::merge::holds_no_object(&f.text))
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
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .map_err(|e| format!("read stdin: {e}"))?;
            s
        } else {
            let path = name.trim();
            std::fs::read_to_string(path)
                .map_err(|e| format!("open {path}: {}", io_error_text(&e)))?
        };
        files.push(iop::merge::InputFile {
            name: name.clone(),
            text,
        });
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
/// caret, as every other input error shows it), and for a profile that is not there, the ones
/// that are (or why the install package has none).
pub(crate) fn explained(
    mut message: String,
    e: &iop::merge::MergeError,
    files: &[iop::merge::InputFile],
    packages: &pipeline::InstallPackages,
) -> MeshFailure {
    if let Some((file, line, col)) = e.location()
        && let Some(input) = files.iter().find(|f| f.name == file)
    {
        message.push('\n');
        message.push_str(iop::source::pointer(file, &input.text, line, col).trim_end());
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
    args: GenerateArgs,
    runtime: &crate::runtime::Runtime,
) -> Result<(), MeshFailure> {
    let detect = || detect_cluster(&args.cluster, runtime).map_err(|e| e.0);
    let detect: Option<Detect<'_>> = args.cluster_specific.then_some(&detect);
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
