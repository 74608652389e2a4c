//! The catalog of Istio versions bosun knows (pure: text in, data out): each minor release with
//! its status, end of life and supported Kubernetes versions, its patch releases, and the
//! `istio.io/istio` Go module versions with their go.sum hashes. Compiled in from
//! `catalog.json`; a file of the same shape can add to it or replace entries ([`Catalog::merge`]).

use std::cmp::Ordering;
use std::fmt;

use serde::{Deserialize, Serialize};

/// The catalog compiled into bosun.
const BUILTIN: &str = include_str!("../catalog.json");

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Catalog {
    /// When the entries were last checked against their sources (YYYY-MM-DD).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated: Option<String>,
    #[serde(default)]
    pub releases: Vec<Minor>,
    #[serde(default)]
    pub modules: Vec<Module>,
}

/// One minor release line (`1.30`) and the patch releases known of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Minor {
    pub minor: String,
    pub status: Status,
    /// `YYYY-MM-DD`, or `YYYY-MM` where only the month is announced; none when not announced.
    #[serde(default)]
    pub end_of_life: Option<String>,
    pub kubernetes: KubernetesRange,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    pub patches: Vec<Patch>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Supported,
    EndOfLife,
    PreRelease,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Status::Supported => "supported",
            Status::EndOfLife => "end-of-life",
            Status::PreRelease => "pre-release",
        })
    }
}

/// The Kubernetes minor versions a release supports, both ends included; `max` is none where
/// the sources do not say.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KubernetesRange {
    pub min: String,
    #[serde(default)]
    pub max: Option<String>,
}

impl fmt::Display for KubernetesRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.max {
            Some(max) => write!(f, "{}-{max}", self.min),
            None => write!(f, "{}+", self.min),
        }
    }
}

/// One patch release (`1.30.3`, `1.31.0-beta.1`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Patch {
    pub version: String,
    /// The SHA-256 (hex) of `istio-<version>-linux-amd64.tar.gz` as Istio published it. When
    /// given, an archive must have it whatever the mirror's `.sha256` file says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

/// One `istio.io/istio` Go module version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Module {
    pub version: String,
    /// The go.sum hash of the module zip (`h1:…`).
    pub sum: String,
    /// The Istio version its `VERSION` file names.
    pub istio: String,
    /// The version bosun renders when none is asked for (exactly one module has it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub default: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

/// A catalog that cannot be used, naming the entry.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("not a catalog: {0}")]
    Json(#[from] serde_json::Error),
    #[error("minor {minor:?}: not MAJOR.MINOR")]
    BadMinor { minor: String },
    #[error("release {version:?}: not MAJOR.MINOR.PATCH[-PRERELEASE] of minor {minor}")]
    BadPatch { minor: String, version: String },
    #[error("release {version:?}: sha256 {sha256:?} is not 64 hex digits")]
    BadSha256 { version: String, sha256: String },
    #[error("minor {minor}: end_of_life {date:?} is not YYYY-MM-DD or YYYY-MM")]
    BadDate { minor: String, date: String },
    #[error("module version {version:?}: not a Go module version (vX.Y.Z[-…]) with an h1: sum")]
    BadModule { version: String },
    #[error("{count} module versions are marked default; exactly one must be")]
    Default { count: usize },
}

impl Catalog {
    /// The catalog compiled into bosun.
    pub fn builtin() -> Catalog {
        Catalog::parse(BUILTIN).expect("the compiled-in catalog.json is valid (a test checks it)")
    }

    /// Reads and checks a catalog (JSON, the shape of `catalog.json`).
    pub fn parse(text: &str) -> Result<Catalog, CatalogError> {
        let catalog: Catalog = serde_json::from_str(text)?;
        catalog.check()?;
        Ok(catalog)
    }

    fn check(&self) -> Result<(), CatalogError> {
        for minor in &self.releases {
            let Some(parsed) = parse_minor(&minor.minor) else {
                return Err(CatalogError::BadMinor {
                    minor: minor.minor.clone(),
                });
            };
            if let Some(date) = &minor.end_of_life
                && !is_date(date)
            {
                return Err(CatalogError::BadDate {
                    minor: minor.minor.clone(),
                    date: date.clone(),
                });
            }
            for patch in &minor.patches {
                let ok = ReleaseVersion::parse(&patch.version)
                    .is_some_and(|v| (v.major, v.minor) == parsed);
                if !ok {
                    return Err(CatalogError::BadPatch {
                        minor: minor.minor.clone(),
                        version: patch.version.clone(),
                    });
                }
                if let Some(sum) = &patch.sha256
                    && !(sum.len() == 64 && sum.bytes().all(|b| b.is_ascii_hexdigit()))
                {
                    return Err(CatalogError::BadSha256 {
                        version: patch.version.clone(),
                        sha256: sum.clone(),
                    });
                }
            }
        }
        for module in &self.modules {
            if !is_module_version(&module.version) || !module.sum.starts_with("h1:") {
                return Err(CatalogError::BadModule {
                    version: module.version.clone(),
                });
            }
        }
        Ok(())
    }

    /// This catalog with `other`'s entries laid over it: a minor of `other` replaces the one of
    /// the same name, a module the one of the same version; new ones are added. A module
    /// marked default in `other` takes the default from the others.
    pub fn merge(mut self, other: Catalog) -> Result<Catalog, CatalogError> {
        for minor in other.releases {
            match self.releases.iter_mut().find(|m| m.minor == minor.minor) {
                Some(existing) => *existing = minor,
                None => self.releases.push(minor),
            }
        }
        if other.modules.iter().any(|m| m.default) {
            for module in &mut self.modules {
                module.default = false;
            }
        }
        for module in other.modules {
            match self
                .modules
                .iter_mut()
                .find(|m| m.version == module.version)
            {
                Some(existing) => *existing = module,
                None => self.modules.push(module),
            }
        }
        self.releases.sort_by_key(|m| parse_minor(&m.minor));
        if other.updated.is_some() {
            self.updated = other.updated;
        }
        self.check()?;
        self.default_module()?;
        Ok(self)
    }

    /// The module version rendered when no version is asked for.
    pub fn default_module(&self) -> Result<&Module, CatalogError> {
        let defaults: Vec<&Module> = self.modules.iter().filter(|m| m.default).collect();
        match defaults.as_slice() {
            [one] => Ok(one),
            _ => Err(CatalogError::Default {
                count: defaults.len(),
            }),
        }
    }

    /// What `request` names: a release (`1.30.3`), a minor (`1.30`: its newest known patch,
    /// a pre-release only when the minor has nothing else), or a module version
    /// (`v0.0.0-20260423205519-b01690e6db7d`). Only versions in the catalog resolve: bosun
    /// verifies what it fetches against what the catalog knows.
    pub fn resolve(&self, request: &str) -> Result<Resolved<'_>, ResolveError> {
        let request = request.trim();
        let unknown = |reason: Unknown| ResolveError {
            request: request.to_string(),
            reason,
            known: self.known(),
        };
        if is_module_version(request) {
            return self
                .modules
                .iter()
                .find(|m| m.version == request)
                .map(Resolved::Module)
                .ok_or_else(|| unknown(Unknown::Module));
        }
        if let Some(version) = ReleaseVersion::parse(request) {
            let minor = self
                .releases
                .iter()
                .find(|m| parse_minor(&m.minor) == Some((version.major, version.minor)));
            return minor
                .and_then(|minor| {
                    let patch = minor.patches.iter().find(|p| p.version == request)?;
                    Some(Resolved::Release { minor, patch })
                })
                .ok_or_else(|| unknown(Unknown::Release));
        }
        if let Some(wanted) = parse_minor(request) {
            let minor = self
                .releases
                .iter()
                .find(|m| parse_minor(&m.minor) == Some(wanted));
            return minor
                .and_then(|minor| {
                    let patch = newest(&minor.patches)?;
                    Some(Resolved::Release { minor, patch })
                })
                .ok_or_else(|| unknown(Unknown::Minor));
        }
        Err(unknown(Unknown::Syntax))
    }

    fn known(&self) -> Known {
        Known {
            releases: self
                .releases
                .iter()
                .map(|m| {
                    let patches: Vec<&str> = m.patches.iter().map(|p| p.version.as_str()).collect();
                    (m.minor.clone(), patches.join(", "))
                })
                .collect(),
            modules: self
                .modules
                .iter()
                .map(|m| (m.version.clone(), m.default))
                .collect(),
        }
    }
}

/// The newest of `patches`: the newest final release, else the newest pre-release.
fn newest(patches: &[Patch]) -> Option<&Patch> {
    let key = |p: &&Patch| ReleaseVersion::parse(&p.version);
    let finals = patches
        .iter()
        .filter(|p| key(p).is_some_and(|v| v.pre.is_none()));
    finals
        .max_by(|a, b| key(a).cmp(&key(b)))
        .or_else(|| patches.iter().max_by(|a, b| key(a).cmp(&key(b))))
}

/// What a version request resolved to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolved<'a> {
    Release { minor: &'a Minor, patch: &'a Patch },
    Module(&'a Module),
}

impl Resolved<'_> {
    /// The exact version: a release number or a module version.
    pub fn version(&self) -> &str {
        match self {
            Resolved::Release { patch, .. } => &patch.version,
            Resolved::Module(module) => &module.version,
        }
    }
}

/// A version the catalog does not know, with everything it does know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}; {known}", reason.describe(request))]
pub struct ResolveError {
    pub request: String,
    pub reason: Unknown,
    pub known: Known,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unknown {
    /// Not a release, a minor or a module version.
    Syntax,
    Release,
    Minor,
    Module,
}

impl Unknown {
    fn describe(self, request: &str) -> String {
        match self {
            Unknown::Syntax => format!(
                "{request:?} is not an Istio version: give a release (1.30.3), a minor (1.30) or an istio.io/istio module version (v0.0.0-…)"
            ),
            Unknown::Release => format!("Istio release {request} is not in bosun's catalog"),
            Unknown::Minor => format!("Istio minor {request} is not in bosun's catalog"),
            Unknown::Module => {
                // `v1.30.3`: a release named as a Go module version (which Istio's are not).
                let release = request
                    .strip_prefix('v')
                    .and_then(ReleaseVersion::parse)
                    .filter(|v| v.major > 0)
                    .map(|_| {
                        format!(
                            "; an Istio release is named without the v: {}",
                            &request[1..]
                        )
                    })
                    .unwrap_or_default();
                format!(
                    "istio.io/istio module version {request} is not in bosun's catalog (bosun needs its go.sum hash to verify it){release}"
                )
            }
        }
    }
}

/// The versions a catalog knows, as an error lists them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Known {
    /// Each minor with its patches, comma-separated.
    pub releases: Vec<(String, String)>,
    /// Each module version, and whether it is the default.
    pub modules: Vec<(String, bool)>,
}

impl fmt::Display for Known {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("known releases: ")?;
        if self.releases.is_empty() {
            f.write_str("none")?;
        }
        for (i, (minor, patches)) in self.releases.iter().enumerate() {
            let sep = if i == 0 { "" } else { "; " };
            write!(f, "{sep}{minor} ({patches})")?;
        }
        f.write_str("; known module versions: ")?;
        if self.modules.is_empty() {
            f.write_str("none")?;
        }
        for (i, (version, default)) in self.modules.iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            let default = if *default { " (the default)" } else { "" };
            write!(f, "{sep}{version}{default}")?;
        }
        f.write_str(" (a newer catalog can be named with BOSUN_CATALOG=FILE, see docs/versions.md)")
    }
}

/// An Istio release number: `MAJOR.MINOR.PATCH` with an optional `-PRERELEASE`
/// (`1.31.0-beta.1`), ordered as semantic versions are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseVersion {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub pre: Option<String>,
}

impl ReleaseVersion {
    pub fn parse(text: &str) -> Option<ReleaseVersion> {
        let (core, pre) = match text.split_once('-') {
            Some((core, pre)) => (core, Some(pre)),
            None => (text, None),
        };
        let mut parts = core.split('.');
        let (major, minor, patch) = (
            number(parts.next()?)?,
            number(parts.next()?)?,
            number(parts.next()?)?,
        );
        if parts.next().is_some() {
            return None;
        }
        if let Some(pre) = pre
            && !pre.split('.').all(|id| {
                !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            })
        {
            return None;
        }
        Some(ReleaseVersion {
            major,
            minor,
            patch,
            pre: pre.map(str::to_string),
        })
    }
}

impl Ord for ReleaseVersion {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.major, self.minor, self.patch)
            .cmp(&(other.major, other.minor, other.patch))
            .then_with(|| match (&self.pre, &other.pre) {
                (None, None) => Ordering::Equal,
                (None, Some(_)) => Ordering::Greater,
                (Some(_), None) => Ordering::Less,
                (Some(a), Some(b)) => compare_prerelease(a, b),
            })
    }
}

impl PartialOrd for ReleaseVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Semantic versioning's pre-release order: identifier by identifier, numbers numerically and
/// below words, a shorter list first when it is a prefix.
fn compare_prerelease(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a.split('.'), b.split('.'));
    loop {
        match (x.next(), y.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(p), Some(q)) => {
                let order = match (number(p), number(q)) {
                    (Some(m), Some(n)) => m.cmp(&n),
                    (Some(_), None) => Ordering::Less,
                    (None, Some(_)) => Ordering::Greater,
                    (None, None) => p.cmp(q),
                };
                if order != Ordering::Equal {
                    return order;
                }
            }
        }
    }
}

/// A decimal number without sign or leading zeros (as semantic versions write them).
fn number(text: &str) -> Option<u64> {
    let valid = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    valid.then(|| text.parse().ok()).flatten()
}

/// `MAJOR.MINOR`.
pub fn parse_minor(text: &str) -> Option<(u64, u64)> {
    let (major, minor) = text.split_once('.')?;
    Some((number(major)?, number(minor)?))
}

/// A Go module version as the module proxy names them: `v` and a semantic version
/// (pseudo-versions such as `v0.0.0-20260423205519-b01690e6db7d` included).
pub fn is_module_version(text: &str) -> bool {
    text.strip_prefix('v')
        .and_then(|rest| {
            // Build metadata (`+incompatible`) is allowed by Go; nothing else after it.
            let rest = rest.split_once('+').map_or(rest, |(v, _)| v);
            ReleaseVersion::parse(rest)
        })
        .is_some()
}

fn is_date(text: &str) -> bool {
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    let parts: Vec<&str> = text.split('-').collect();
    match parts.as_slice() {
        [y, m] => digits(y, 4) && digits(m, 2),
        [y, m, d] => digits(y, 4) && digits(m, 2) && digits(d, 2),
        _ => false,
    }
}
