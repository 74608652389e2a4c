//! The Istio version an IstioOperator names (the annotation
//! [`vocab::labels::ISTIO_VERSION_ANNOTATION`]), resolved and fetched through the same
//! `release` code as `--version`: the catalog, the sources (module proxy, release mirror), the
//! verification and the cache the CLI hands the operator in [`Versions`]. The package
//! directory found here is rendered exactly as `--manifests DIR` would be.
//!
//! Resolving is pure; [`Versions::package`] may download (blocking I/O, through
//! `release::Packages::ensure`): the controller calls it on a blocking thread.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;
use vocab::labels::ISTIO_VERSION_ANNOTATION;

/// Where the operator's versions come from: the catalog (compiled in, with the CLI's
/// `BOSUN_CATALOG` laid over it) and the packages (cache directory and sources).
#[derive(Debug)]
pub struct Versions {
    catalog: release::Catalog,
    packages: release::Packages,
    /// One fetch at a time: the cache stages a package in a directory named after the process,
    /// so two IstioOperators naming the same new version must not fetch it side by side.
    fetching: std::sync::Mutex<()>,
}

/// Why the version an IstioOperator names gives no install package.
#[derive(Debug, thiserror::Error)]
pub enum VersionError {
    /// The annotation is empty.
    #[error(
        "annotation {ISTIO_VERSION_ANNOTATION}: empty: give a release (1.30.3), a minor (1.30) or an istio.io/istio module version, or remove the annotation"
    )]
    Empty,
    /// The annotation and `spec.installPackagePath` both name a package.
    #[error(
        "annotation {ISTIO_VERSION_ANNOTATION}: it and spec.installPackagePath ({path}) both name the install package; give one"
    )]
    TwoPackages { path: String },
    /// Not a version, or one the catalog does not know.
    #[error("annotation {ISTIO_VERSION_ANNOTATION}: {0}")]
    Unknown(#[from] release::ResolveError),
    /// The operator was given no catalog and cache to resolve versions with.
    #[error(
        "annotation {ISTIO_VERSION_ANNOTATION}: this operator was started without a release catalog and cache"
    )]
    NoCatalog,
    /// The version is known but its package could not be had (a mirror down, a checksum that
    /// does not match): retried with backoff. Nothing was cached.
    #[error("annotation {ISTIO_VERSION_ANNOTATION}={version}: {source}")]
    Fetch {
        version: String,
        #[source]
        source: Box<release::Error>,
    },
}

impl VersionError {
    /// Whether the IstioOperator itself must change (else a retry may succeed).
    pub fn is_invalid(&self) -> bool {
        !matches!(self, VersionError::Fetch { .. })
    }
}

/// The version `annotations` name, trimmed; `None` when the annotation is absent.
pub fn requested(annotations: Option<&BTreeMap<String, String>>) -> Option<String> {
    annotations
        .and_then(|a| a.get(ISTIO_VERSION_ANNOTATION))
        .map(|v| v.trim().to_string())
}

/// Checks what `requested` names against `spec` and the catalog without fetching anything:
/// the exact version it resolves to (a minor becomes its newest known patch).
pub fn resolve(
    catalog: &release::Catalog,
    requested: &str,
    spec: Option<&Value>,
) -> Result<String, VersionError> {
    if requested.is_empty() {
        return Err(VersionError::Empty);
    }
    if let Some(path) = spec
        .and_then(|s| s.get("installPackagePath"))
        .and_then(Value::as_str)
        .filter(|p| !p.is_empty())
    {
        return Err(VersionError::TwoPackages {
            path: path.to_string(),
        });
    }
    Ok(catalog.resolve(requested)?.version().to_string())
}

impl Versions {
    /// The catalog versions resolve in and the release policy judges by.
    pub fn catalog(&self) -> &release::Catalog {
        &self.catalog
    }

    pub fn new(catalog: release::Catalog, packages: release::Packages) -> Versions {
        Versions {
            catalog,
            packages,
            fetching: std::sync::Mutex::new(()),
        }
    }

    /// The exact version `requested` names and its `manifests/` directory, fetched, verified
    /// and cached on first use (once cached: no I/O but a directory check).
    pub fn package(
        &self,
        requested: &str,
        spec: Option<&Value>,
    ) -> Result<(String, PathBuf), VersionError> {
        let version = resolve(&self.catalog, requested, spec)?;
        let resolved = self.catalog.resolve(&version)?;
        if let Some(dir) = self.packages.cached(&resolved) {
            return Ok((version, dir));
        }
        let _one = self.fetching.lock().unwrap_or_else(|e| e.into_inner());
        match self.packages.ensure(&resolved, &|_| {}) {
            Ok(dir) => Ok((version, dir)),
            Err(source) => Err(VersionError::Fetch {
                version,
                source: Box::new(source),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const CATALOG: &str = r#"{"releases": [{"minor": "9.0", "status": "supported",
        "end_of_life": null, "kubernetes": {"min": "1.30"},
        "patches": [{"version": "9.0.1"}, {"version": "9.0.2"}]}]}"#;

    fn catalog() -> release::Catalog {
        release::Catalog::parse(CATALOG).unwrap()
    }

    #[test]
    fn the_annotation_is_read_and_trimmed() {
        let mut a = BTreeMap::new();
        assert_eq!(requested(Some(&a)), None);
        a.insert(ISTIO_VERSION_ANNOTATION.to_string(), " 9.0 ".to_string());
        assert_eq!(requested(Some(&a)).as_deref(), Some("9.0"));
        assert_eq!(requested(None), None);
    }

    #[test]
    fn versions_resolve_through_the_catalog() {
        let cases: &[(&str, Option<Value>, Result<&str, &str>)] = &[
            ("9.0.1", None, Ok("9.0.1")),
            ("9.0", None, Ok("9.0.2")),
            (
                "9.0.7",
                None,
                Err(
                    "annotation bosun.io/istio-version: Istio release 9.0.7 is not in bosun's catalog",
                ),
            ),
            (
                "latest",
                None,
                Err("annotation bosun.io/istio-version: \"latest\" is not an Istio version"),
            ),
            (
                "",
                None,
                Err("annotation bosun.io/istio-version: empty: give a release"),
            ),
            (
                "9.0.1",
                Some(json!({"installPackagePath": "/charts"})),
                Err(
                    "annotation bosun.io/istio-version: it and spec.installPackagePath (/charts) both name the install package; give one",
                ),
            ),
        ];
        for (request, spec, want) in cases {
            let got = resolve(&catalog(), request, spec.as_ref());
            match (got, want) {
                (Ok(v), Ok(w)) => assert_eq!(&v, w, "{request}"),
                (Err(e), Err(w)) => {
                    assert!(e.is_invalid());
                    assert!(e.to_string().starts_with(w), "{request}: {e}");
                }
                (got, want) => panic!("{request}: got {got:?}, want {want:?}"),
            }
        }
    }
}
