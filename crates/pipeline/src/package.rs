//! The install package: Istio's charts and profiles in a directory (`--manifests`,
//! `spec.installPackagePath`, or the pinned release). The only module of this crate that reads
//! files, and it reads only the package.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use iop::merge::ReadProfileError;
use manifest::generate::LoadChartError;

/// Locates the pinned release's `manifests/` directory when it is first needed. The caller
/// decides how (the CLI fetches it into its cache; the operator's image has it built in).
pub type LocateDefault = Arc<dyn Fn() -> Result<PathBuf, LocateError> + Send + Sync>;

/// Why the pinned release could not be located, in the locator's words. Kept as text: the
/// error is remembered for the life of an [`InstallPackages`] and handed to every caller that
/// needs the package, and the locator's failures (a download, a missing directory) are the
/// caller's to word.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct LocateError {
    pub message: String,
}

/// A locator words its own failure; it hands the text over with `Into::into`.
impl From<String> for LocateError {
    fn from(message: String) -> LocateError {
        LocateError { message }
    }
}

/// Where charts and profiles come from: the path an IstioOperator names, or the pinned
/// release's copy when it names none.
#[derive(Clone)]
pub struct InstallPackages {
    locate: LocateDefault,
    /// The pinned release's `manifests/`, located on first use.
    default_dir: Arc<OnceLock<Result<PathBuf, LocateError>>>,
}

impl InstallPackages {
    pub fn new(locate: LocateDefault) -> InstallPackages {
        InstallPackages {
            locate,
            default_dir: Arc::new(OnceLock::new()),
        }
    }

    /// The directory of the install package at `install_package_path` (the pinned release's
    /// when empty).
    pub fn dir(&self, install_package_path: &str) -> Result<PathBuf, LocateError> {
        if !install_package_path.is_empty() {
            return Ok(PathBuf::from(install_package_path));
        }
        self.default_dir().clone()
    }

    fn default_dir(&self) -> &Result<PathBuf, LocateError> {
        self.default_dir.get_or_init(|| (self.locate)())
    }

    /// `profiles/NAME.yaml` of the install package, failing in the words of istioctl's
    /// `fs.FS`: Go's `embed.FS` for the pinned release (compiled into istioctl: every miss is
    /// "file does not exist"), `os.DirFS` for a directory (names that are not valid `fs` paths,
    /// like `../x` or `/abs`, are "invalid argument"; other misses are the OS error).
    pub fn read_profile(
        &self,
        install_package_path: &str,
        profile: &str,
    ) -> Result<String, ReadProfileError> {
        let rel = format!("profiles/{profile}.yaml");
        let dir = self
            .dir(install_package_path)
            .map_err(|e| ReadProfileError::Package { message: e.message })?;
        let builtin = install_package_path.is_empty();
        if !go_valid_fs_path(&rel) {
            let why = if builtin {
                "file does not exist"
            } else {
                "invalid argument"
            };
            return Err(ReadProfileError::Open {
                path: rel,
                reason: why.to_string(),
            });
        }
        std::fs::read_to_string(dir.join(&rel)).map_err(|e| {
            let reason = if builtin && e.kind() == std::io::ErrorKind::NotFound {
                "file does not exist".to_string()
            } else {
                io_error_text(&e)
            };
            ReadProfileError::Open { path: rel, reason }
        })
    }

    /// What `manifest::generate` loads charts with: `charts/CHART_DIR` of the install
    /// package at the path it is given, or of the pinned release when that is empty.
    /// The pinned release is located only when a chart of it is loaded: with `--manifests`
    /// it is never needed, and the operator's image has no cache to fetch into.
    pub fn chart_loader(
        &self,
    ) -> impl Fn(&str, &str) -> Result<helm::chart::Chart, LoadChartError> + Sync + '_ {
        move |path: &str, chart_dir: &str| {
            if path.is_empty() {
                let dir = self
                    .default_dir()
                    .clone()
                    .map_err(|e| LoadChartError::Package(Box::new(e)))?;
                load_chart_dir(&dir, chart_dir)
            } else {
                load_chart_dir(Path::new(path), chart_dir)
            }
        }
    }

    /// The Istio version of the install package that `merged` renders from (its
    /// `spec.installPackagePath`, else the pinned release): the `VERSION` file next to its
    /// `manifests/` directory, else the base chart's `appVersion`, else `unknown` (what an
    /// unstamped istioctl build writes). Only values that are valid label values are taken.
    pub fn istio_version(&self, merged: &iop::IstioOperator) -> Result<String, LocateError> {
        let dir = self.dir(merged.install_package_path().unwrap_or_default())?;
        Ok(version_of_package(&dir).unwrap_or_else(|| "unknown".to_string()))
    }
}

/// Where an install package's own `values` schema is: Istio's source tree (and bosun's copies of
/// `istio.io/istio` module versions) hold it beside `manifests/`; release archives do not.
pub const VALUES_PROTO: &str = "operator/pkg/apis/values_types.proto";

/// Where an install package's own IstioOperator types are: Istio's source tree (and bosun's
/// copies of `istio.io/istio` module versions) hold them beside `manifests/`; release archives
/// do not.
pub const IOP_TYPES: &str = "operator/pkg/apis/types.go";

/// Where an install package's own MeshConfig protos are: bosun's copies of `istio.io/istio`
/// module versions keep istio.io/api's `mesh/v1alpha1/config.proto` and the protos it imports
/// under this directory, beside `manifests/` (`release::archive::MESH_PROTOS_DIR`).
pub const MESH_PROTOS_DIR: &str = "istio.io/api";

/// Why an install package's own schemas could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    #[error("reading {}: {}", path.display(), io_error_text(source))]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {source}", path.display())]
    Proto {
        path: PathBuf,
        source: iop::validate::ProtoError,
    },
    #[error("{}: {source}", path.display())]
    GoTypes {
        path: PathBuf,
        source: iop::validate::GoTypesError,
    },
}

/// An install package's own schemas, each `None` where the package has none (the pinned
/// Istio's compiled-in one applies).
#[derive(Debug, Default)]
pub struct PackageSchemas {
    pub iop: Option<iop::validate::IopSchema>,
    pub values: Option<iop::validate::ValuesSchema>,
    pub mesh: Option<iop::validate::MeshSchema>,
}

impl PackageSchemas {
    /// The schemas to validate with: the package's own, else the pin's.
    pub fn for_validation(&self) -> iop::validate::VersionSchemas<'_> {
        let pinned = iop::validate::VersionSchemas::pinned();
        iop::validate::VersionSchemas {
            iop: self.iop.as_ref().unwrap_or(pinned.iop),
            values: self.values.as_ref().unwrap_or(pinned.values),
            mesh: self.mesh.as_ref().unwrap_or(pinned.mesh),
        }
    }
}

impl InstallPackages {
    /// The schemas of the install package `merged` renders from: its own Istio's IstioOperator
    /// types (read from [`IOP_TYPES`] beside its `manifests/`), `values` (from
    /// [`VALUES_PROTO`]) and MeshConfig (the protos under [`MESH_PROTOS_DIR`]), so a package of
    /// another version is held to that version's API. Each is `None` (the pinned Istio's
    /// compiled-in schema applies) where it is the pin's and where the package does not carry
    /// the source (release archives carry none).
    pub fn schemas(&self, merged: &iop::IstioOperator) -> Result<PackageSchemas, SchemaError> {
        let path = merged.install_package_path().unwrap_or_default();
        let Some(root) = Path::new(path).parent().filter(|_| !path.is_empty()) else {
            return Ok(PackageSchemas::default());
        };
        let proto = root.join(VALUES_PROTO);
        let values = match read_if_there(&proto)? {
            // None, or the pin's own proto: its schema is compiled in.
            None => None,
            Some(text) if iop::validate::ValuesSchema::is_pinned_proto(&text) => None,
            Some(text) => Some(iop::validate::ValuesSchema::from_proto(&text).map_err(
                |source| SchemaError::Proto {
                    path: proto,
                    source,
                },
            )?),
        };
        let types = root.join(IOP_TYPES);
        let iop = match read_if_there(&types)? {
            // None, or the pin's own file: its schema is compiled in.
            None => None,
            Some(text) if iop::validate::IopSchema::is_pinned_types(&text) => None,
            Some(text) => {
                let schema = iop::validate::IopSchema::from_go_types(&text).map_err(|source| {
                    SchemaError::GoTypes {
                        path: types,
                        source,
                    }
                })?;
                // Another file declaring the pin's fields: the compiled-in schema is the same.
                (!schema.is_pinned()).then_some(schema)
            }
        };
        let mesh_dir = root.join(MESH_PROTOS_DIR);
        // Each proto by its path in istio.io/api, as the committed schema's digest has it.
        let mut protos = Vec::new();
        read_protos(&mesh_dir, "", &mut protos)?;
        let files: Vec<(&str, &str)> = protos
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        let mesh = match protos.is_empty() || iop::validate::MeshSchema::are_pinned_protos(&files) {
            // None, or the pin's own: its schema is compiled in.
            true => None,
            false => {
                let texts: Vec<&str> = protos.iter().map(|(_, t)| t.as_str()).collect();
                Some(
                    iop::validate::MeshSchema::from_protos(&texts).map_err(|source| {
                        SchemaError::Proto {
                            path: mesh_dir,
                            source,
                        }
                    })?,
                )
            }
        };
        Ok(PackageSchemas { iop, values, mesh })
    }
}

/// The text of the file at `path`, `None` when there is none.
fn read_if_there(path: &Path) -> Result<Option<String>, SchemaError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(SchemaError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Every `*.proto` under `dir` (none when it does not exist), with its text, by its path below
/// the first `dir` (`/`-separated, after `rel`, the path of `dir` itself).
fn read_protos(dir: &Path, rel: &str, out: &mut Vec<(String, String)>) -> Result<(), SchemaError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => {
            return Err(SchemaError::Read {
                path: dir.to_path_buf(),
                source,
            });
        }
    };
    for entry in entries {
        let entry = entry.map_err(|source| SchemaError::Read {
            path: dir.to_path_buf(),
            source,
        })?;
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let below = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir {
            read_protos(&path, &below, out)?;
        } else if path.extension().is_some_and(|e| e == "proto") {
            let text = std::fs::read_to_string(&path).map_err(|source| SchemaError::Read {
                path: path.clone(),
                source,
            })?;
            out.push((below, text));
        }
    }
    Ok(())
}

/// Why an install package offers no profiles to choose from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoProfiles {
    #[error("the install package {dir} does not exist")]
    Missing { dir: PathBuf },
    #[error("{dir} has no profiles/ directory: give the manifests/ directory of an Istio release")]
    NotAPackage { dir: PathBuf },
    #[error(transparent)]
    Locate(#[from] LocateError),
}

impl InstallPackages {
    /// The profiles the install package at `install_package_path` (the pinned release's when
    /// empty) offers, sorted: what a user who named a missing one can choose from.
    pub fn profile_names(&self, install_package_path: &str) -> Result<Vec<String>, NoProfiles> {
        let dir = self.dir(install_package_path)?;
        if !dir.is_dir() {
            return Err(NoProfiles::Missing { dir });
        }
        let entries = std::fs::read_dir(dir.join("profiles"))
            .map_err(|_| NoProfiles::NotAPackage { dir: dir.clone() })?;
        let files = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| e.file_name().to_string_lossy().into_owned());
        let mut names = iop::profile::profile_names(files);
        names.sort();
        Ok(names)
    }
}

/// Go's `io/fs.ValidPath`: unrooted, `/`-separated, no empty, `.` or `..` element.
fn go_valid_fs_path(name: &str) -> bool {
    name == "."
        || name
            .split('/')
            .all(|e| !e.is_empty() && e != "." && e != "..")
}

/// Loads `charts/CHART_DIR` of the install package in `root`. Thread-safe: it shares nothing.
fn load_chart_dir(root: &Path, chart_dir: &str) -> Result<helm::chart::Chart, LoadChartError> {
    let dir = root.join("charts").join(chart_dir);
    if !dir.is_dir() {
        return Err(LoadChartError::NoComponent);
    }
    Ok(helm::chart::load_dir(&dir)?)
}

fn version_of_package(manifests: &Path) -> Option<String> {
    let from_file = manifests
        .parent()
        .and_then(|p| std::fs::read_to_string(p.join("VERSION")).ok())
        .map(|v| v.trim().to_string());
    let from_chart = || {
        let chart = std::fs::read_to_string(manifests.join("charts/base/Chart.yaml")).ok()?;
        chart.lines().find_map(|l| {
            l.strip_prefix("appVersion:")
                .map(|v| v.trim().trim_matches(['"', '\'']).to_string())
        })
    };
    from_file
        .filter(|v| is_label_value(v))
        .or_else(|| from_chart().filter(|v| is_label_value(v)))
}

/// A Kubernetes label value: at most 63 characters, alphanumerics and `-_.`, starting and
/// ending with an alphanumeric.
fn is_label_value(v: &str) -> bool {
    let ends_ok = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    !v.is_empty()
        && v.len() <= 63
        && ends_ok(v.chars().next())
        && ends_ok(v.chars().last())
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// An I/O error as Go's `os` package words the common ones (istioctl's messages end in them).
pub fn io_error_text(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values() {
        for ok in ["1.31", "1.23.0-beta.1", "unknown", "a"] {
            assert!(is_label_value(ok), "{ok}");
        }
        for bad in ["", "1.31\n", "-1", "1.", "a b", &"x".repeat(64)] {
            assert!(!is_label_value(bad), "{bad:?}");
        }
    }

    #[test]
    fn version_from_the_version_file_else_the_base_chart() {
        let dir = std::env::temp_dir().join(format!("pipeline-version-{}", std::process::id()));
        let manifests = dir.join("manifests");
        std::fs::create_dir_all(manifests.join("charts/base")).unwrap();
        assert_eq!(version_of_package(&manifests), None);
        std::fs::write(
            manifests.join("charts/base/Chart.yaml"),
            "apiVersion: v2\nappVersion: \"1.23.2\"\nname: base\n",
        )
        .unwrap();
        assert_eq!(version_of_package(&manifests).as_deref(), Some("1.23.2"));
        std::fs::write(dir.join("VERSION"), "1.31\n").unwrap();
        assert_eq!(version_of_package(&manifests).as_deref(), Some("1.31"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_pinned_release_is_located_once_and_only_when_needed() {
        let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = calls.clone();
        let packages = InstallPackages::new(Arc::new(move || {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Err("offline".to_string().into())
        }));
        assert_eq!(packages.dir("/x").unwrap(), PathBuf::from("/x"));
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 0);
        assert_eq!(packages.dir("").unwrap_err().to_string(), "offline");
        assert_eq!(
            packages.read_profile("", "default").unwrap_err(),
            ReadProfileError::Package {
                message: "offline".into()
            }
        );
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
    }

    /// The pin's own package (as `scripts/fetch-istio` makes it) carries the pin's protos:
    /// they are known by their digest, and neither is parsed.
    #[test]
    fn the_pins_own_protos_are_known_and_another_versions_are_read() {
        let pin = include_str!("../../../scripts/istio-pin");
        let field = |name: &str| {
            pin.lines()
                .find_map(|l| l.strip_prefix(name))
                .expect("scripts/istio-pin")
                .trim_matches(|c| c == '"' || c == '\'')
                .to_string()
        };
        let cache = std::env::var_os("BOSUN_CACHE")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/bosun")))
            .expect("a cache folder");
        let merged = |version: &str| {
            let manifests = cache.join(format!("istio-{version}/manifests"));
            let tree = serde_json::json!({"spec": {"installPackagePath": manifests}});
            (manifests, iop::IstioOperator::from_tree(tree))
        };
        let packages = InstallPackages::new(Arc::new(|| Err("unused".to_string().into())));
        let (manifests, pinned) = merged(&field("ISTIO_VERSION="));
        if !manifests.parent().unwrap().join(MESH_PROTOS_DIR).is_dir() {
            // CI fetches the pin (and its protos) first: there, a missing one is a failure.
            assert!(
                std::env::var_os("CI").is_none(),
                "{} has no protos",
                manifests.display()
            );
            eprintln!("skipping: run scripts/fetch-istio");
            return;
        }
        let own = packages.schemas(&pinned).unwrap();
        assert!(own.values.is_none() && own.mesh.is_none(), "{own:?}");
        let (manifests, previous) = merged(&field("ISTIO_PREVIOUS_VERSION="));
        if manifests.parent().unwrap().join(MESH_PROTOS_DIR).is_dir() {
            let own = packages.schemas(&previous).unwrap();
            assert!(own.values.is_some() && own.mesh.is_some());
        }
    }
}
