//! The offline IstioOperator commands beside `manifest generate`: `profile list|dump|diff`
//! (istioctl's, removed from istioctl in Istio 1.24, kept here with their last output format),
//! `profile dump --explain`, `manifest diff` and `validate`. Reads files and flags, calls `iop`
//! and `manifest`, prints.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use crate::io_error_text;
use crate::mesh::{self, InputArgs, MeshFailure};

#[derive(Subcommand)]
pub enum ProfileCommand {
    /// List the available configuration profiles.
    List(ListArgs),
    /// Dump a configuration profile (or the IstioOperator that files and flags make of one).
    Dump(DumpArgs),
    /// Show the differences between two profiles (names or IstioOperator files); exits 1 when
    /// they differ.
    Diff(ProfileDiffArgs),
}

#[derive(Args)]
pub struct ListArgs {
    /// The install package (charts and profiles) directory; the pinned release by default.
    #[arg(short = 'd', long = "manifests", alias = "charts")]
    manifests: Option<String>,
    #[command(flatten)]
    package: mesh::VersionFlags,
    /// None: taken only to refuse them as istioctl did.
    #[arg(hide = true)]
    extra: Vec<String>,
}

#[derive(Args)]
pub struct DumpArgs {
    /// The profile (default: `default`, or the one the files name). One at most; more are
    /// refused as istioctl refused them.
    #[arg(value_name = "PROFILE")]
    profile: Vec<String>,
    #[command(flatten)]
    input: InputArgs,
    /// The root of the subtree to dump, e.g. `components.pilot` (default: the whole tree).
    #[arg(short = 'p', long = "config-path", default_value = "")]
    config_path: String,
    /// Output format: one of json|yaml|flags.
    #[arg(short = 'o', long = "output", default_value = "yaml")]
    output: String,
    /// For every value, print which layer set it: a profile or `-f` file (file:line:col) or a
    /// `--set` flag.
    #[arg(long)]
    explain: bool,
}

#[derive(Args)]
pub struct ProfileDiffArgs {
    /// Two profile names or profile files (a path: it holds `/` or `.`; it is laid over the
    /// `default.yaml` beside it).
    #[arg(value_names = ["A", "B"])]
    profiles: Vec<String>,
    /// The install package (charts and profiles) directory; the pinned release by default.
    #[arg(short = 'd', long = "manifests", alias = "charts")]
    manifests: Option<String>,
    #[command(flatten)]
    package: mesh::VersionFlags,
}

#[derive(Args)]
pub struct ManifestDiffArgs {
    /// Two manifest files or directories (every *.yaml/*.yml below a directory, in path order).
    #[arg(value_names = ["A", "B"], num_args = 2, required = true)]
    paths: Vec<PathBuf>,
    /// Compare only these objects: comma-separated `Kind:Namespace:Name` patterns, `*` as a
    /// wildcard, an empty part matching anything (`Deployment:istio-system:*`, `Service::istiod`).
    #[arg(long = "select")]
    select: Vec<String>,
    /// Leave these objects out (same patterns as --select).
    #[arg(long = "ignore")]
    ignore: Vec<String>,
}

#[derive(Args)]
pub struct ValidateArgs {
    #[command(flatten)]
    input: InputArgs,
}

pub fn profile(command: ProfileCommand) -> Result<(), MeshFailure> {
    match command {
        ProfileCommand::List(args) => list(args),
        ProfileCommand::Dump(args) => dump(args),
        ProfileCommand::Diff(args) => diff(args),
    }
}

fn package_dir(
    manifests: Option<&str>,
    package: &mesh::VersionFlags,
) -> Result<PathBuf, MeshFailure> {
    match package.package(manifests)? {
        Some(m) => Ok(PathBuf::from(m)),
        None => crate::release::manifests_dir().map_err(MeshFailure),
    }
}

fn list(args: ListArgs) -> Result<(), MeshFailure> {
    // cobra's ExactArgs(0), in its words.
    if !args.extra.is_empty() {
        return Err(MeshFailure(format!(
            "accepts 0 arg(s), received {}",
            args.extra.len()
        )));
    }
    let dir = package_dir(args.manifests.as_deref(), &args.package)?.join("profiles");
    let entries = std::fs::read_dir(&dir)
        .map_err(|e| MeshFailure(format!("open {}: {}", dir.display(), io_error_text(&e))))?;
    let files = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name().to_string_lossy().into_owned());
    mesh::write_stdout(&iop::profile::list(iop::profile::profile_names(files)))
}

/// `profile dump`, checked and layered as istioctl 1.23's was: at most one profile name, not
/// with `-f`; the format known; then `--set` flags, `--manifests` and `--revision` as flags, and
/// the profile name last of all (so it wins over a `--set profile=`).
fn dump(args: DumpArgs) -> Result<(), MeshFailure> {
    if args.profile.len() > 1 {
        return Err(MeshFailure("too many positional arguments".to_string()));
    }
    if !args.profile.is_empty() && !args.input.filenames.is_empty() {
        return Err(MeshFailure(
            "cannot specify both profile name and filename flag".to_string(),
        ));
    }
    let format: iop::profile::Format = args.output.parse()?;
    let packages = mesh::packages();
    let files = mesh::read_input_files(&args.input.filenames).map_err(MeshFailure)?;
    let mut flags = mesh::set_flags(&args.input, &files)?;
    flags.extend(args.profile.iter().map(|p| format!("profile={p}")));
    let read = |path: &str, profile: &str| packages.read_profile(path, profile);
    let layered = iop::merge::layer_inputs(&files, &flags, &read)
        .map_err(|e| mesh::explained(e.to_string(), &e, &files, &packages))?;
    let (merged, sources) = iop::merge::merge_inputs_traced(&files, &flags, &read)?;
    let merged = iop::IstioOperator::from_tree(merged);
    // istioctl dumped with validation forced: problems are reported, the dump still printed.
    let report = pipeline::validate(&merged, &sources, &packages)?;
    mesh::print_report(&report, &files, &merged, &packages, false);
    if !report.errors.is_empty() {
        let mut as_warnings = report.clone();
        as_warnings.warnings = std::mem::take(&mut as_warnings.errors);
        mesh::print_report(&as_warnings, &files, &merged, &packages, false);
    }
    let out = if args.explain {
        iop::profile::explain(&layered, &sources, &args.config_path)?
    } else {
        iop::profile::dump(&layered, &args.config_path, format)?
    };
    mesh::write_stdout(&out)
}

/// A `profile diff` operand as istioctl 1.23's `GenIOPFromProfile` read it: a profile name is
/// the `default` profile with that profile over it; a path (1.23's `IsFilePath`: the operand
/// holds `/` or `.`) is that profile file over the `default.yaml` in its own directory (unless
/// it is that file), as 1.23's `GetProfileYAML` read profile files. The layers are merged as the
/// pinned Istio merges profiles. `--manifests` becomes `installPackagePath`.
fn layered_profile(
    operand: &str,
    manifests: Option<&str>,
    packages: &pipeline::InstallPackages,
) -> Result<serde_json::Value, MeshFailure> {
    let fail = |e: String| MeshFailure(format!("could not read {operand:?}: {e}"));
    let ipp = manifests.unwrap_or("");
    let read = |path: &str, profile: &str| packages.read_profile(path, profile);
    let mut tree = if operand.contains('/') || operand.contains('.') {
        let read_file =
            |path: &Path| -> Result<serde_json::Map<String, serde_json::Value>, MeshFailure> {
                let text = crate::input::read_text(path)
                    .map_err(|e| fail(format!("open {}: {e}", path.display())))?;
                iop::merge::map_from_yaml(&text).map_err(|e| fail(e.to_string()))
            };
        let top = read_file(Path::new(operand))?;
        if Path::new(operand)
            .file_name()
            .is_some_and(|n| n == "default.yaml")
        {
            serde_json::Value::Object(top)
        } else {
            // Go's filepath.Join(filepath.Dir(operand), "default.yaml").
            let dir = operand.rfind('/').map_or("", |i| &operand[..=i]);
            let beside = iop::tree::clean(&format!("{dir}default.yaml"));
            let mut base = read_file(Path::new(&beside))?;
            iop::tree::merge_from(&mut base, &top);
            serde_json::Value::Object(base)
        }
    } else {
        serde_json::Value::Object(
            iop::merge::read_profile(ipp, operand, &read).map_err(|e| fail(e.to_string()))?,
        )
    };
    if let Some(m) = manifests {
        iop::tree::set_spec_paths(&mut tree, &[format!("installPackagePath={m}")])
            .map_err(|e| fail(e.to_string()))?;
    }
    Ok(tree)
}

fn diff(args: ProfileDiffArgs) -> Result<(), MeshFailure> {
    if args.profiles.len() != 2 {
        return Err(MeshFailure("diff requires two profiles".to_string()));
    }
    let packages = mesh::packages();
    let m = args.package.package(args.manifests.as_deref())?;
    let m = m.as_deref();
    let a = layered_profile(&args.profiles[0], m, &packages)?;
    let b = layered_profile(&args.profiles[1], m, &packages)?;
    let (out, differ) = iop::profile::diff(&a, &b)?;
    mesh::write_stdout(&out)?;
    if differ {
        std::process::exit(1);
    }
    Ok(())
}

/// Every manifest file under `path` (itself when it is a file), in path order.
fn manifest_files(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), MeshFailure> {
    let meta = std::fs::metadata(path).map_err(|e| {
        MeshFailure(format!(
            "could not read {:?}: {}",
            path.display().to_string(),
            io_error_text(&e)
        ))
    })?;
    if !meta.is_dir() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| MeshFailure(format!("open {}: {}", path.display(), io_error_text(&e))))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            manifest_files(&p, out)?;
        } else if p.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(p);
        }
    }
    Ok(())
}

fn read_manifest(path: &Path) -> Result<Vec<manifest::object::Object>, MeshFailure> {
    let mut files = Vec::new();
    manifest_files(path, &mut files)?;
    let mut objects = Vec::new();
    for f in files {
        let text = crate::input::read_text(&f).map_err(|e| {
            MeshFailure(format!("could not read {:?}: {e}", f.display().to_string()))
        })?;
        objects.extend(manifest::diff::read_objects(
            &f.display().to_string(),
            &text,
        )?);
    }
    Ok(objects)
}

/// `manifest diff`: exit 0 when the manifests hold the same objects, 1 when they differ, 2 when
/// one cannot be read (as diff(1) does, so scripts can tell a difference from a failure).
pub fn manifest_diff(args: ManifestDiffArgs) -> Result<(), MeshFailure> {
    let run = || -> Result<bool, MeshFailure> {
        let patterns = |lists: &[String]| -> Result<Vec<manifest::diff::Pattern>, MeshFailure> {
            let mut out = Vec::new();
            for l in lists {
                out.extend(manifest::diff::Pattern::parse_list(l)?);
            }
            Ok(out)
        };
        let filter = manifest::diff::Filter {
            select: patterns(&args.select)?,
            ignore: patterns(&args.ignore)?,
        };
        let a = read_manifest(&args.paths[0])?;
        let b = read_manifest(&args.paths[1])?;
        let d = manifest::diff::diff(&a, &b, &filter);
        let name = |p: &Path| p.display().to_string();
        mesh::write_stdout(&d.render(&name(&args.paths[0]), &name(&args.paths[1])))?;
        Ok(!d.is_empty())
    };
    match run() {
        Ok(false) => Ok(()),
        Ok(true) => std::process::exit(1),
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "Error: {}", e.0);
            std::process::exit(2);
        }
    }
}

/// `validate -f F...`: the files (layered over their profile, with any flags) checked
/// offline; every error is printed with its file:line:col and a caret, and the command fails.
pub fn validate(args: ValidateArgs) -> Result<(), MeshFailure> {
    if args.input.filenames.is_empty() {
        return Err(MeshFailure(
            "no IstioOperator files given: pass -f FILE".to_string(),
        ));
    }
    let packages = mesh::packages();
    let files = mesh::read_inputs(&args.input.filenames)?;
    let flags = mesh::set_flags(&args.input, &files)?;
    let pipeline::Validated { merged, report } =
        pipeline::merge_and_validate(&files, &flags, &packages)
            .map_err(|e| mesh::pipeline_failure(e, &files, &packages))?;
    mesh::print_report(&report, &files, &merged, &packages, true);
    let names: Vec<String> = args
        .input
        .filenames
        .iter()
        .map(|f| format!("{f:?}"))
        .collect();
    let names = names.join(", ");
    let (ne, nw) = (report.errors.len(), report.warnings.len());
    let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    if ne > 0 {
        return Err(MeshFailure(format!(
            "{names}: {}, {}",
            plural(ne, "error"),
            plural(nw, "warning")
        )));
    }
    if nw > 0 {
        mesh::write_stdout(&format!(
            "{names} has warnings: {}\n",
            plural(nw, "warning")
        ))
    } else {
        mesh::write_stdout(&format!("{names} is valid\n"))
    }
}
