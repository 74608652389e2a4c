//! Istio install packages by version: which versions bosun knows ([`catalog`], compiled in),
//! where a version's charts and profiles come from ([`Sources`]: the Go module proxy for an
//! `istio.io/istio` module version, a release archive mirror for a release: files over HTTP(S)
//! or in a directory, or an OCI registry ([`oci`])), how a download is verified and unpacked
//! ([`archive`]: the module's go.sum hash, the release's published SHA-256 or its OCI digests,
//! `manifests/` only, within limits), and bosun's cache of them ([`cache`]).
//!
//! Whether the catalog lets a version be installed ([`support`]: end of life, the Kubernetes
//! range, Istio's upgrade rules) is pure too, with today's date passed in.
//!
//! The catalog, version resolution, hashing, unpacking and the OCI formats ([`oci`]) are pure;
//! [`fetch`] (network, the OCI distribution API, local mirror reads, `go mod download`) and
//! [`cache`] (writes) do the I/O. The CLI decides where the cache is and reads the environment
//! (`GOPROXY`, `BOSUN_ISTIO_MIRROR`, `BOSUN_CATALOG`) and docker's `config.json`; this crate
//! reads no environment.

pub mod archive;
pub mod cache;
pub mod catalog;
pub mod fetch;
pub mod oci;
pub mod support;

use std::path::PathBuf;

pub use cache::{Cache, CacheError};
pub use catalog::{Catalog, CatalogError, ResolveError, Resolved};
pub use fetch::{FetchError, GoError, Progress};
pub use oci::OciMirror;

/// The Go module whose versions are module versions.
pub const ISTIO_MODULE: &str = "istio.io/istio";
/// Where Go fetches modules from when `GOPROXY` names no HTTP(S) proxy.
pub const DEFAULT_MODULE_PROXY: &str = "https://proxy.golang.org";
/// Where Istio publishes its release archives: `<this>/<version>/istio-<version>-….tar.gz`.
pub const OFFICIAL_MIRROR: &str = "https://github.com/istio/istio/releases/download";

/// Where packages come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sources {
    /// The module proxy's base URL (`GOPROXY`'s first HTTP(S) entry).
    pub module_proxy: String,
    /// Try `go mod download` when the module proxy cannot be reached (Go's own settings then
    /// apply: private proxies, netrc).
    pub go_fallback: bool,
    /// Where release archives are.
    pub mirror: Mirror,
}

/// A release archive mirror: `<base>/<version>/istio-<version>-linux-amd64.tar.gz` and its
/// `.sha256`, over HTTP(S) or in a local directory; or an OCI registry holding release
/// `<version>` as the artifact `<registry>/<repository>:<version>` ([`oci`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mirror {
    Url(String),
    Dir(PathBuf),
    Oci(OciMirror),
}

impl Mirror {
    /// A mirror as a flag or `BOSUN_ISTIO_MIRROR` names it: an `http(s)://` base URL, an
    /// `oci://HOST[:PORT]/REPO` registry (over plain HTTP when `plain_http`, or on loopback),
    /// a `file://` URL or a directory.
    pub fn parse(text: &str, plain_http: bool) -> Result<Mirror, oci::MirrorError> {
        let text = text.trim();
        if text.starts_with("http://") || text.starts_with("https://") {
            return Ok(Mirror::Url(text.trim_end_matches('/').to_string()));
        }
        if text.starts_with("oci://") {
            return OciMirror::parse(text, plain_http).map(Mirror::Oci);
        }
        Ok(Mirror::Dir(PathBuf::from(
            text.strip_prefix("file://").unwrap_or(text),
        )))
    }

    /// Where `file` of release `version` is, as a URL or a path (for an OCI mirror, the
    /// artifact: `oci://HOST/REPO:VERSION`).
    pub fn location(&self, version: &str, file: &str) -> String {
        match self {
            Mirror::Url(base) => format!("{base}/{version}/{file}"),
            Mirror::Dir(dir) => dir.join(version).join(file).display().to_string(),
            Mirror::Oci(oci) => format!("oci://{}", oci.artifact(version)),
        }
    }

    /// `file` of release `version` from a file mirror (an OCI mirror is pulled whole by
    /// [`fetch::oci::pull`]).
    fn get(
        &self,
        version: &str,
        file: &str,
        progress: &dyn Fn(Progress<'_>),
    ) -> Result<Vec<u8>, FetchError> {
        match self {
            Mirror::Dir(dir) => fetch::read_local(&dir.join(version).join(file)),
            Mirror::Url(_) | Mirror::Oci(_) => fetch::get(&self.location(version, file), progress),
        }
    }
}

impl Default for Sources {
    fn default() -> Sources {
        Sources {
            module_proxy: DEFAULT_MODULE_PROXY.to_string(),
            go_fallback: true,
            mirror: Mirror::Url(OFFICIAL_MIRROR.to_string()),
        }
    }
}

/// The module proxy a `GOPROXY` value names: its first HTTP(S) entry (`direct`, `off` and
/// `file://` entries are Go's alone), else the default proxy.
pub fn module_proxy_from_goproxy(goproxy: Option<&str>) -> String {
    goproxy
        .and_then(|p| {
            p.split([',', '|'])
                .map(str::trim)
                .find(|e| e.starts_with("https://") || e.starts_with("http://"))
                .map(|e| e.trim_end_matches('/').to_string())
        })
        .unwrap_or_else(|| DEFAULT_MODULE_PROXY.to_string())
}

/// The release archive whose `manifests/` bosun takes: the Linux amd64 one whatever the
/// machine (the charts and profiles are the same in every platform's archive).
pub fn release_archive_name(version: &str) -> String {
    format!("istio-{version}-linux-amd64.tar.gz")
}

/// Why a version's package could not be had. Nothing is cached when any of these happens.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(
        "could not fetch {module}@{version}: from the module proxy: {proxy}{}",
        go.as_ref().map(|g| format!("; with the Go toolchain: {g}")).unwrap_or_default()
    )]
    ModuleFetch {
        /// `istio.io/istio`, or the `istio.io/api` it requires (its MeshConfig protos).
        module: String,
        version: String,
        #[source]
        proxy: FetchError,
        go: Option<Box<GoError>>,
    },
    #[error(
        "{module}@{version} has hash {got}, but {} says {want}; refusing it (nothing was cached)",
        if module == ISTIO_MODULE { "bosun's catalog".to_string() } else { format!("{ISTIO_MODULE}'s go.sum") }
    )]
    ModuleHash {
        module: String,
        version: String,
        got: String,
        want: String,
    },
    #[error("could not fetch Istio {version} from the release mirror: {source}")]
    Mirror {
        version: String,
        #[source]
        source: FetchError,
    },
    #[error(
        "could not fetch Istio {version} from the OCI registry {registry}: {artifact}: {source} (nothing was cached)"
    )]
    Oci {
        version: String,
        registry: String,
        artifact: String,
        #[source]
        source: Box<fetch::oci::OciError>,
    },
    #[error(
        "{location} is not a checksum file for {archive} (want \"<sha256 hex> {archive}\"); refusing the release (nothing was cached)"
    )]
    ChecksumFile { location: String, archive: String },
    #[error(
        "{location} has SHA-256 {got}, but {said_by} says {want}; refusing it (nothing was cached)"
    )]
    Checksum {
        location: String,
        got: String,
        want: String,
        said_by: String,
    },
    #[error("{what}: {source}; refusing it (nothing was cached)")]
    Archive {
        what: String,
        #[source]
        source: archive::ArchiveError,
    },
    #[error(transparent)]
    Cache(#[from] CacheError),
}

/// A release archive as a mirror gave it: its bytes, where they came from, and the checksums
/// (hex, and who says so) the mirror published beside it.
struct Downloaded {
    tgz: Vec<u8>,
    location: String,
    checksums: Vec<(String, String)>,
}

/// The packages of every version the catalog knows, in a cache, fetched from `sources`.
#[derive(Debug, Clone)]
pub struct Packages {
    pub cache: Cache,
    pub sources: Sources,
    pub limits: archive::Limits,
}

impl Packages {
    /// `resolved`'s `manifests/` if the cache holds it.
    pub fn cached(&self, resolved: &Resolved<'_>) -> Option<PathBuf> {
        self.cache.manifests(resolved.version())
    }

    /// `resolved`'s `manifests/`, fetched, verified and cached first when the cache does not
    /// hold it.
    pub fn ensure(
        &self,
        resolved: &Resolved<'_>,
        progress: &dyn Fn(Progress<'_>),
    ) -> Result<PathBuf, Error> {
        if let Some(dir) = self.cached(resolved) {
            return Ok(dir);
        }
        let files = match resolved {
            Resolved::Module(module) => self.module_files(module, progress)?,
            Resolved::Release { patch, .. } => self.release_files(patch, progress)?,
        };
        Ok(self.cache.store(resolved.version(), &files)?)
    }

    fn module_files(
        &self,
        module: &catalog::Module,
        progress: &dyn Fn(Progress<'_>),
    ) -> Result<Vec<archive::File>, Error> {
        let version = &module.version;
        let zip = self.module_zip(ISTIO_MODULE, version, &module.sum, progress)?;
        let archive_error = |module: &str, version: &str| {
            let what = format!("{module}@{version}");
            move |source| Error::Archive { what, source }
        };
        let mut files = archive::module_files(&zip, version, self.limits)
            .map_err(archive_error(ISTIO_MODULE, version))?;
        // The MeshConfig API of this version is istio.io/api's, at the version its go.mod
        // requires (verified with its go.sum), kept beside `manifests/` so that `meshConfig` is
        // validated against this version's, not the pin's.
        let required = archive::module_requirement(&zip, version, archive::API_MODULE)
            .map_err(archive_error(ISTIO_MODULE, version))?;
        if let Some(api) = required {
            let api_zip = self.module_zip(archive::API_MODULE, &api.version, &api.sum, progress)?;
            files.extend(
                archive::mesh_protos(&api_zip, &api.version, self.limits)
                    .map_err(archive_error(archive::API_MODULE, &api.version))?,
            );
        }
        Ok(files)
    }

    /// The zip of `module@version` from the module proxy (or the Go toolchain, when allowed and
    /// the proxy could not be reached), refused unless its hash is `sum`.
    fn module_zip(
        &self,
        module: &str,
        version: &str,
        sum: &str,
        progress: &dyn Fn(Progress<'_>),
    ) -> Result<Vec<u8>, Error> {
        let url = format!("{}/{module}/@v/{version}.zip", self.sources.module_proxy);
        progress(Progress::Fetching {
            what: &format!("{module}@{version}"),
            from: &url,
        });
        let fetch_error = |proxy, go| Error::ModuleFetch {
            module: module.to_string(),
            version: version.to_string(),
            proxy,
            go,
        };
        let zip = match fetch::get(&url, progress) {
            Ok(zip) => zip,
            Err(proxy) if self.sources.go_fallback && !proxy.not_found() => {
                match fetch::go_mod_download(&self.cache.root, module, version) {
                    Ok(zip) => zip,
                    Err(go) => return Err(fetch_error(proxy, Some(Box::new(go)))),
                }
            }
            Err(proxy) => return Err(fetch_error(proxy, None)),
        };
        let got = archive::module_hash(&zip).map_err(|source| Error::Archive {
            what: format!("{module}@{version} (from {url})"),
            source,
        })?;
        if got != sum {
            return Err(Error::ModuleHash {
                module: module.to_string(),
                version: version.to_string(),
                got,
                want: sum.to_string(),
            });
        }
        Ok(zip)
    }

    fn release_files(
        &self,
        patch: &catalog::Patch,
        progress: &dyn Fn(Progress<'_>),
    ) -> Result<Vec<archive::File>, Error> {
        let version = &patch.version;
        let Downloaded {
            tgz,
            location,
            checksums: mut wanted,
        } = match &self.sources.mirror {
            Mirror::Oci(oci) => self.oci_archive(oci, version, progress)?,
            mirror => self.file_mirror_archive(mirror, version, progress)?,
        };
        // One path after the bytes, whichever mirror they came from: the catalog's SHA-256,
        // then the archive's own checks.
        let got = archive::sha256_hex(&tgz);
        if let Some(pinned) = &patch.sha256 {
            wanted.push((pinned.to_ascii_lowercase(), "bosun's catalog".to_string()));
        }
        for (want, said_by) in wanted {
            if got != want {
                return Err(Error::Checksum {
                    location,
                    got,
                    want,
                    said_by,
                });
            }
        }
        archive::release_files(&tgz, version, self.limits).map_err(|source| Error::Archive {
            what: location,
            source,
        })
    }

    /// The archive from a file mirror, where it is, and the checksum its `.sha256` file says.
    fn file_mirror_archive(
        &self,
        mirror: &Mirror,
        version: &str,
        progress: &dyn Fn(Progress<'_>),
    ) -> Result<Downloaded, Error> {
        let name = release_archive_name(version);
        let sum_name = format!("{name}.sha256");
        let failed = |source| Error::Mirror {
            version: version.to_string(),
            source,
        };
        // The small checksum file first: a mirror that is down or lacks the release is told
        // before the archive is downloaded.
        let sum_location = mirror.location(version, &sum_name);
        let sum_text = mirror.get(version, &sum_name, &|_| {}).map_err(failed)?;
        let published = archive::parse_checksum_file(&String::from_utf8_lossy(&sum_text), &name)
            .ok_or_else(|| Error::ChecksumFile {
                location: sum_location.clone(),
                archive: name.clone(),
            })?;
        let location = mirror.location(version, &name);
        progress(Progress::Fetching {
            what: &format!("Istio {version}"),
            from: &location,
        });
        let tgz = mirror.get(version, &name, progress).map_err(failed)?;
        Ok(Downloaded {
            tgz,
            location,
            checksums: vec![(published, sum_location)],
        })
    }

    /// The archive from an OCI registry mirror, verified against its digests (the manifest's,
    /// the layer's digest and size), and where it is: `oci://HOST/REPO:VERSION`.
    fn oci_archive(
        &self,
        oci: &OciMirror,
        version: &str,
        progress: &dyn Fn(Progress<'_>),
    ) -> Result<Downloaded, Error> {
        let location = format!("oci://{}", oci.artifact(version));
        progress(Progress::Fetching {
            what: &format!("Istio {version}"),
            from: &location,
        });
        let pulled = fetch::oci::pull(
            oci,
            version,
            &release_archive_name(version),
            fetch::MAX_DOWNLOAD,
            progress,
        )
        .map_err(|source| Error::Oci {
            version: version.to_string(),
            registry: oci.registry.clone(),
            artifact: oci.artifact(version),
            source: Box::new(source),
        })?;
        let location = format!("{location} (layer {})", pulled.layer.digest);
        Ok(Downloaded {
            tgz: pulled.data,
            location,
            checksums: Vec::new(),
        })
    }
}
