//! istioctl's mesh commands that need no cluster: `manifest generate` (unless
//! `--cluster-specific`) and `profile`. Reads the inputs and the install package from disk,
//! hands them to `iop` and `manifest`, prints.

use std::cell::RefCell;
use std::io::{Read, Write};
use std::path::PathBuf;

use clap::Args;
use serde_json::Value;

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
    /// Control plane revision (`--set revision=REV`).
    #[arg(short = 'r', long = "revision")]
    pub revision: Option<String>,
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
    /// Read the current cluster for cluster-specific settings, as `install` does: its
    /// Kubernetes version (charts' `.Capabilities`), GKE's CNI settings, CNI warnings.
    #[arg(long = "cluster-specific")]
    pub cluster_specific: bool,
}

/// What istioctl takes from the cluster it renders for (see `iop::detect`).
pub struct Detected {
    /// `--set` paths laid over the profile (GKE's).
    pub settings: Vec<String>,
    /// The cluster's version, as the charts' `.Capabilities.KubeVersion`.
    pub kube_version: helm::objects::KubeVersion,
    pub cni: iop::detect::CniConfig,
}

impl Detected {
    pub fn from_facts(facts: &cluster::ClusterFacts) -> Detected {
        // istioctl's AUTO_GKE_DETECTION: on unless set to a false Go bool.
        let gke = std::env::var("AUTO_GKE_DETECTION")
            .ok()
            .and_then(|v| iop::detect::go_parse_bool(&v))
            .unwrap_or(true);
        let v = &facts.version;
        Detected {
            settings: iop::detect::platform_settings(&v.git_version, gke),
            kube_version: helm::objects::KubeVersion {
                version: v.git_version.clone(),
                major: v.major.clone(),
                minor: v.minor.clone(),
            },
            cni: iop::detect::CniConfig {
                calico_felix: facts.calico_felix.clone(),
                cilium: facts.cilium_config.clone(),
            },
        }
    }

    /// The inputs' `merged` IstioOperator for this cluster: merged again with the detected
    /// settings over the profile (when there are any), and istioctl's CNI warnings for it.
    pub fn apply(
        &self,
        merged: Value,
        files: &[iop::merge::InputFile],
        flags: &[String],
        packages: &InstallPackages,
    ) -> Result<(Value, Vec<String>), MeshFailure> {
        let merged = if self.settings.is_empty() {
            merged
        } else {
            let read = |path: &str, profile: &str| packages.read_profile(path, profile);
            iop::merge::merge_inputs_detected(files, flags, &self.settings, &read)
                .map_err(|e| MeshFailure(format!("merge inputs: {e}")))?
        };
        let enabled = |c: &str| iop::detect::component_enabled(&merged, c);
        let warnings =
            iop::detect::cni_incompatibilities(&self.cni, enabled("cni"), enabled("ztunnel"));
        Ok((merged, warnings))
    }

    /// Reads the current cluster (`KUBECONFIG`, …) on a runtime of its own.
    pub fn from_current_cluster() -> Result<Detected, MeshFailure> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| MeshFailure(format!("starting the async runtime: {e}")))?;
        let facts = runtime.block_on(async {
            let client = cluster::Client::from_env().await?;
            client.cluster_facts().await
        })?;
        Ok(Detected::from_facts(&facts))
    }
}

/// Reads what istioctl takes from a cluster, when asked: called once the input is known to
/// be valid, so that bad input fails before any request.
pub type Detect<'a> = &'a dyn Fn() -> Result<Detected, MeshFailure>;

/// A failure worded as istioctl words it (`Error: …` is added by main).
pub struct MeshFailure(pub String);

impl<E: std::fmt::Display> From<E> for MeshFailure {
    fn from(e: E) -> MeshFailure {
        MeshFailure(e.to_string())
    }
}

/// Where charts and profiles come from: `--manifests`, `installPackagePath`, or the pinned
/// release's copy in bosun's cache.
pub struct InstallPackages {
    /// The pinned release's `manifests/`, located (and fetched) on first use.
    default_dir: RefCell<Option<Result<PathBuf, String>>>,
}

impl InstallPackages {
    pub fn new() -> InstallPackages {
        InstallPackages {
            default_dir: RefCell::new(None),
        }
    }

    pub fn dir(&self, install_package_path: &str) -> Result<PathBuf, String> {
        if !install_package_path.is_empty() {
            return Ok(PathBuf::from(install_package_path));
        }
        self.default_dir
            .borrow_mut()
            .get_or_insert_with(crate::release::manifests_dir)
            .clone()
    }

    /// `profiles/NAME.yaml` of the install package, failing in the words of istioctl's
    /// `fs.FS`: Go's `embed.FS` for the pinned release (compiled into istioctl: every miss is
    /// "file does not exist"), `os.DirFS` for a directory (names that are not valid `fs` paths,
    /// like `../x` or `/abs`, are "invalid argument"; other misses are the OS error).
    pub fn read_profile(
        &self,
        install_package_path: &str,
        profile: &str,
    ) -> Result<String, String> {
        let rel = format!("profiles/{profile}.yaml");
        let dir = self.dir(install_package_path)?;
        let builtin = install_package_path.is_empty();
        if !go_valid_fs_path(&rel) {
            let why = if builtin {
                "file does not exist"
            } else {
                "invalid argument"
            };
            return Err(format!("open {rel}: {why}"));
        }
        std::fs::read_to_string(dir.join(&rel)).map_err(|e| {
            let why = if builtin && e.kind() == std::io::ErrorKind::NotFound {
                "file does not exist".to_string()
            } else {
                io_error_text(&e)
            };
            format!("open {rel}: {why}")
        })
    }

    /// What `manifest::generate` loads charts with: `charts/CHART_DIR` of the install
    /// package at the path it is given, or of the pinned release when that is empty.
    /// The pinned release is located (and fetched) only when a chart of it is loaded: with
    /// `--manifests` it is never needed, and the operator's image has no cache to fetch into.
    pub fn chart_loader(
        &self,
    ) -> Result<impl Fn(&str, &str) -> Result<helm::chart::Chart, String> + Sync, String> {
        let default_dir: std::sync::OnceLock<Result<PathBuf, String>> = std::sync::OnceLock::new();
        if let Some(known) = self.default_dir.borrow().clone() {
            let _ = default_dir.set(known);
        }
        Ok(move |path: &str, chart_dir: &str| {
            if path.is_empty() {
                let dir = default_dir
                    .get_or_init(crate::release::manifests_dir)
                    .clone()?;
                load_chart_dir(&dir, path, chart_dir)
            } else {
                load_chart_dir(std::path::Path::new(""), path, chart_dir)
            }
        })
    }
}

/// Go's `io/fs.ValidPath`: unrooted, `/`-separated, no empty, `.` or `..` element.
fn go_valid_fs_path(name: &str) -> bool {
    name == "."
        || name
            .split('/')
            .all(|e| !e.is_empty() && e != "." && e != "..")
}

/// Loads `charts/CHART_DIR` of the install package at `install_package_path`, or of the
/// pinned release (`default_dir`) when the path is empty. Thread-safe: it shares nothing.
fn load_chart_dir(
    default_dir: &std::path::Path,
    install_package_path: &str,
    chart_dir: &str,
) -> Result<helm::chart::Chart, String> {
    let root = if install_package_path.is_empty() {
        default_dir.to_path_buf()
    } else {
        PathBuf::from(install_package_path)
    };
    let dir = root.join("charts").join(chart_dir);
    if !dir.is_dir() {
        return Err("component does not exist".to_string());
    }
    helm::chart::load_dir(&dir).map_err(|e| e.to_string())
}

/// Reads the `-f` inputs (stdin for `-`).
pub(crate) fn read_inputs(names: &[String]) -> Result<Vec<iop::merge::InputFile>, MeshFailure> {
    read_input_files(names).map_err(|e| MeshFailure(format!("merge inputs: {e}")))
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

/// istioctl's flag aliases: `--manifests` and `--revision` are `--set` flags in disguise.
pub(crate) fn set_flags(input: &InputArgs) -> Vec<String> {
    let mut flags = input.set.clone();
    if let Some(m) = &input.manifests {
        flags.push(format!("installPackagePath={m}"));
    }
    if let Some(r) = input
        .revision
        .as_deref()
        .filter(|r| !r.is_empty() && *r != "default")
    {
        flags.push(format!("revision={r}"));
    }
    flags
}

/// The merged IstioOperator of the inputs, validated: errors fail (or, with `force`, are
/// printed as warnings, as istioctl does); warnings are printed. With `detect`, the cluster is
/// read once the input is valid (or forced), the inputs are merged again over what it implies
/// for the profile, and its CNI warnings are printed first, as istioctl prints them.
pub fn validated_input(
    input: &InputArgs,
    packages: &InstallPackages,
    force: bool,
    detect: Option<Detect<'_>>,
) -> Result<(Value, Option<Detected>), MeshFailure> {
    let files = read_inputs(&input.filenames)?;
    let flags = set_flags(input);
    let (mut merged, report) = merge_and_validate(&files, &flags, packages)?;
    if !report.errors.is_empty() && !force {
        print_warnings(&report, &files, &merged, packages);
    }
    let detected = match detect {
        Some(detect) if report.errors.is_empty() || force => Some(detect()?),
        _ => None,
    };
    if let Some(d) = &detected {
        let warnings;
        (merged, warnings) = d.apply(merged, &files, &flags, packages)?;
        let mut stderr = std::io::stderr().lock();
        for w in warnings {
            let _ = writeln!(stderr, "❗ {w}");
        }
    }
    if report.errors.is_empty() || force {
        print_warnings(&report, &files, &merged, packages);
    }
    report_errors(&report, &files, &merged, packages, force)?;
    Ok((merged, detected))
}

/// Prints the report's errors; an error unless there are none or `force` is set.
fn report_errors(
    report: &iop::validate::Report,
    files: &[iop::merge::InputFile],
    merged: &Value,
    packages: &InstallPackages,
    force: bool,
) -> Result<(), MeshFailure> {
    let mut stderr = std::io::stderr().lock();
    if !report.errors.is_empty() {
        print_errors(report, files, merged, packages);
        let n = report.errors.len();
        let summary = format!(
            "the IstioOperator is invalid ({n} error{})",
            if n == 1 { "" } else { "s" }
        );
        if !force {
            return Err(MeshFailure(format!(
                "{summary}; fix it, or pass --force to proceed"
            )));
        }
        let _ = writeln!(
            stderr,
            "spec invalid; continuing because of --force: {summary}"
        );
    }
    Ok(())
}

/// The inputs (already read) layered over their profile and `--set` flags, and the validation
/// report of the result. Prints nothing: the CLI and the operator word the report differently.
pub fn merge_and_validate(
    files: &[iop::merge::InputFile],
    flags: &[String],
    packages: &InstallPackages,
) -> Result<(Value, iop::validate::Report), MeshFailure> {
    let (merged, sources) = merge_inputs(files, flags, packages)?;
    let report = iop::validate::validate(&merged, &sources);
    Ok((merged, report))
}

/// The inputs layered over their profile and `--set` flags, with where each value came from.
fn merge_inputs(
    files: &[iop::merge::InputFile],
    flags: &[String],
    packages: &InstallPackages,
) -> Result<(Value, iop::source::SourceMap), MeshFailure> {
    let read = |path: &str, profile: &str| packages.read_profile(path, profile);
    iop::merge::merge_inputs_traced(files, flags, &read)
        .map_err(|e| MeshFailure(format!("merge inputs: {e}")))
}

/// The text of the file an issue points into (a `-f` input or a profile), for its caret.
fn issue_text(
    issue: &iop::validate::Issue,
    files: &[iop::merge::InputFile],
    merged: &Value,
    packages: &InstallPackages,
) -> String {
    match &issue.origin {
        Some(iop::source::Origin::File { file, .. }) => files
            .iter()
            .find(|f| &f.name == file)
            .map(|f| f.text.clone())
            .unwrap_or_default(),
        Some(iop::source::Origin::Profile { name, .. }) => {
            let path = iop::tree::get_path_string(merged, "spec.installPackagePath");
            packages.read_profile(&path, name).unwrap_or_default()
        }
        _ => String::new(),
    }
}

/// Prints a report's warnings on stderr, each with its line and caret.
pub(crate) fn print_warnings(
    report: &iop::validate::Report,
    files: &[iop::merge::InputFile],
    merged: &Value,
    packages: &InstallPackages,
) {
    let mut stderr = std::io::stderr().lock();
    for w in &report.warnings {
        let shown = iop::validate::render(w, &issue_text(w, files, merged, packages));
        let _ = write!(stderr, "{}", shown.replacen("error: ", "warning: ", 1));
    }
}

/// Prints a report's errors on stderr, each with its line and caret.
pub(crate) fn print_errors(
    report: &iop::validate::Report,
    files: &[iop::merge::InputFile],
    merged: &Value,
    packages: &InstallPackages,
) {
    let mut stderr = std::io::stderr().lock();
    for e in &report.errors {
        let _ = write!(
            stderr,
            "{}",
            iop::validate::render(e, &issue_text(e, files, merged, packages))
        );
    }
}

/// The inputs merged, validated and rendered, as `manifest generate` renders them (for the
/// cluster `detect` reads, if given); the charts' warnings are printed on stderr. Returns the
/// merged IstioOperator too.
pub fn render(
    input: &InputArgs,
    force: bool,
    detect: Option<Detect<'_>>,
) -> Result<(Value, manifest::generate::Generated), MeshFailure> {
    let packages = InstallPackages::new();
    let generated;
    let merged;
    if detect.is_some() {
        let detected;
        (merged, detected) = validated_input(input, &packages, force, detect)?;
        let kube_version = detected.as_ref().map(|d| &d.kube_version);
        generated = generate(&merged, kube_version, &packages)?;
    } else {
        // Without a cluster to ask, validation does not change the merged input, so it runs
        // beside the rendering; what the report says is printed, and decides, before anything
        // rendered is used.
        let files = read_inputs(&input.filenames)?;
        let flags = set_flags(input);
        let sources;
        (merged, sources) = merge_inputs(&files, &flags, &packages)?;
        let load = packages.chart_loader()?;
        let validate = || iop::validate::validate(&merged, &sources);
        let (rendered, report) =
            manifest::generate::generate_printable(&merged, None, &load, validate);
        print_warnings(&report, &files, &merged, &packages);
        report_errors(&report, &files, &merged, &packages, force)?;
        generated = rendered?;
    }
    let mut stderr = std::io::stderr().lock();
    for w in &generated.warnings {
        let _ = writeln!(stderr, "❗ {w}");
    }
    Ok((merged, generated))
}

/// The merged (validated) IstioOperator's component instances with their Helm values and plain
/// Helm rendering (see [`manifest::generate::migrate`]).
pub fn migrate(merged: &Value) -> Result<Vec<manifest::generate::Migration>, MeshFailure> {
    let packages = InstallPackages::new();
    let load = packages.chart_loader()?;
    Ok(manifest::generate::migrate(merged, None, &load)?)
}

/// The merged IstioOperator rendered with the charts of its install package (warnings are in
/// the result, not printed).
pub fn generate(
    merged: &Value,
    kube_version: Option<&helm::objects::KubeVersion>,
    packages: &InstallPackages,
) -> Result<manifest::generate::Generated, MeshFailure> {
    let load = packages.chart_loader()?;
    Ok(manifest::generate::generate(merged, kube_version, &load)?)
}

/// Which objects [`cluster_components`] gives istioctl's owner labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OwnerLabels {
    /// Every object, CustomResourceDefinitions included, as `istioctl install` labels them.
    All,
    /// All but CustomResourceDefinitions: the operator's. CRDs are shared by every
    /// installation, and labels naming one installation on them would be fought over by the
    /// operator's field manager and `bosun install`'s (each install's labels differ).
    NotCrds,
}

/// The rendered components as `cluster::Client::install` takes them: each component's objects
/// in apply order, carrying istioctl's owner labels (`version`: the charts' Istio version), with
/// the components each is installed after.
pub fn cluster_components(
    generated: &manifest::generate::Generated,
    merged: &Value,
    version: &str,
    which: OwnerLabels,
) -> Vec<cluster::Component> {
    generated
        .components
        .iter()
        .map(|c| {
            let mut objects = c.objects.clone();
            manifest::order::sort_objects(&mut objects);
            let mut objects: Vec<_> = objects.into_iter().map(|o| o.into_value()).collect();
            for object in objects.iter_mut() {
                let crd =
                    object.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition");
                if which == OwnerLabels::All || !crd {
                    crate::owned::label_objects(
                        merged,
                        version,
                        c.component.name,
                        std::slice::from_mut(object),
                    );
                }
            }
            cluster::Component {
                name: c.component.name.to_string(),
                display_name: c.component.display_name.to_string(),
                after: c
                    .component
                    .installed_after
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
                objects,
            }
        })
        .collect()
}

pub fn manifest_generate(args: GenerateArgs) -> Result<(), MeshFailure> {
    let detect = || Detected::from_current_cluster();
    let detect: Option<Detect<'_>> = args.cluster_specific.then_some(&detect);
    let (_, generated) = render(&args.input, args.force, detect)?;
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
        None => write(&mut std::io::stdout().lock())
            .map_err(|e| MeshFailure(format!("writing output: {e}"))),
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
        .map_err(|e| MeshFailure(format!("writing output: {e}")))
}
