//! The CLI's side of install packages by version (the `release` library does the work): where
//! bosun's cache is, the catalog (compiled in, plus `BOSUN_CATALOG`), where packages come from
//! (`GOPROXY`, `BOSUN_ISTIO_MIRROR`, `--mirror`, docker's `config.json` for an OCI mirror's
//! login), `--version V` resolved to a `manifests/`
//! directory, and the download's progress on a terminal.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use release::{Catalog, Mirror, Packages, Progress, Sources};

/// bosun's cache: `$BOSUN_CACHE`, else `$HOME/.cache/bosun`.
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("BOSUN_CACHE").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("bosun"))
}

/// The catalog: the compiled-in one with the file `BOSUN_CATALOG` names laid over it.
pub fn catalog() -> Result<Catalog, String> {
    let builtin = Catalog::builtin();
    let Some(path) = std::env::var_os("BOSUN_CATALOG").filter(|p| !p.is_empty()) else {
        return Ok(builtin);
    };
    let path = PathBuf::from(path);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "BOSUN_CATALOG: open {}: {}",
            path.display(),
            crate::io_error_text(&e)
        )
    })?;
    Catalog::parse(&text)
        .and_then(|extra| builtin.merge(extra))
        .map_err(|e| format!("BOSUN_CATALOG {}: {e}", path.display()))
}

/// Where packages come from: `GOPROXY`'s first HTTP(S) proxy for module versions; `mirror`
/// (the `--mirror` flag), else `BOSUN_ISTIO_MIRROR`, else Istio's release downloads. An
/// `oci://` mirror is spoken to over plain HTTP on loopback or when
/// `BOSUN_ISTIO_MIRROR_PLAIN_HTTP` is `true`, with the login docker's `config.json` holds for
/// its registry.
pub fn sources(mirror: Option<&str>) -> Result<Sources, String> {
    let env_mirror = std::env::var("BOSUN_ISTIO_MIRROR").ok();
    let mirror = mirror
        .or(env_mirror.as_deref())
        .filter(|m| !m.trim().is_empty());
    let plain_http = match std::env::var("BOSUN_ISTIO_MIRROR_PLAIN_HTTP").as_deref() {
        Ok("true" | "1") => true,
        Ok("false" | "0" | "") | Err(_) => false,
        Ok(other) => {
            return Err(format!(
                "BOSUN_ISTIO_MIRROR_PLAIN_HTTP={other:?}: want true or false"
            ));
        }
    };
    let mirror = match mirror {
        None => Sources::default().mirror,
        Some(text) => {
            let mut mirror = Mirror::parse(text, plain_http).map_err(|e| e.to_string())?;
            if let Mirror::Oci(oci) = &mut mirror {
                oci.credentials = registry_login(&oci.registry)?;
            }
            mirror
        }
    };
    Ok(Sources {
        module_proxy: release::module_proxy_from_goproxy(std::env::var("GOPROXY").ok().as_deref()),
        mirror,
        ..Sources::default()
    })
}

/// The login for `registry` in docker's `config.json` (`$DOCKER_CONFIG/config.json`, else
/// `~/.docker/config.json`; what `docker login` and `oras login` write), if any.
fn registry_login(registry: &str) -> Result<Option<release::oci::Credentials>, String> {
    let path = match std::env::var_os("DOCKER_CONFIG").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir).join("config.json"),
        None => match std::env::var_os("HOME") {
            Some(home) => PathBuf::from(home).join(".docker").join("config.json"),
            None => return Ok(None),
        },
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(release::oci::docker_config_credentials(&text, registry)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!(
            "reading docker's config {}: {}",
            path.display(),
            crate::io_error_text(&e)
        )),
    }
}

/// The packages in bosun's cache, fetched from `sources`.
pub fn packages(sources: Sources) -> Result<Packages, String> {
    let root = cache_dir().ok_or("no cache directory: set BOSUN_CACHE or HOME")?;
    Ok(Packages {
        cache: release::Cache { root },
        sources,
        limits: release::archive::Limits::default(),
    })
}

/// The `manifests/` of `version` (a release, a minor or a module version), fetched into the
/// cache on first use.
pub fn version_dir(version: &str, mirror: Option<&str>) -> Result<PathBuf, String> {
    let catalog = catalog()?;
    let resolved = catalog.resolve(version).map_err(|e| e.to_string())?;
    let packages = packages(sources(mirror)?)?;
    fetch(&packages, &resolved)
}

/// The default version's `manifests/` (the pin), fetched into the cache on first use.
pub fn manifests_dir() -> Result<PathBuf, String> {
    let catalog = catalog()?;
    let module = catalog.default_module().map_err(|e| e.to_string())?;
    // A module version: the release mirror plays no part (a mirror setting bosun cannot
    // read does not stop the pin).
    let sources = Sources {
        module_proxy: release::module_proxy_from_goproxy(std::env::var("GOPROXY").ok().as_deref()),
        ..Sources::default()
    };
    let packages = packages(sources)?;
    fetch(&packages, &release::Resolved::Module(module)).map_err(|e| {
        format!("{e}. Pass --manifests DIR (an Istio release's manifests/ directory) instead")
    })
}

fn fetch(packages: &Packages, resolved: &release::Resolved<'_>) -> Result<PathBuf, String> {
    if let Some(dir) = packages.cached(resolved) {
        return Ok(dir);
    }
    let terminal = std::io::stderr().is_terminal();
    let shown = std::cell::Cell::new(0u64);
    let progress = |p: Progress<'_>| {
        if !terminal {
            return;
        }
        let mut stderr = std::io::stderr().lock();
        match p {
            Progress::Fetching { what, from } => {
                let _ = writeln!(
                    stderr,
                    "Fetching the charts and profiles of {what} from {from}"
                );
            }
            Progress::Received { bytes, total } if bytes - shown.get() >= 1 << 20 => {
                shown.set(bytes);
                let _ = match total {
                    Some(t) => write!(stderr, "\r  {} / {} MiB", bytes >> 20, t >> 20),
                    None => write!(stderr, "\r  {} MiB", bytes >> 20),
                };
            }
            Progress::Received { .. } => {}
        }
    };
    let dir = packages
        .ensure(resolved, &progress)
        .map_err(|e| e.to_string())?;
    if terminal {
        let done = if shown.get() > 0 { "\n" } else { "" };
        let _ = writeln!(
            std::io::stderr(),
            "{done}Verified and cached in {}",
            dir.display()
        );
    }
    Ok(dir)
}

/// Today, from the clock (UTC): the day the catalog's end-of-life dates are judged on.
pub fn today() -> release::support::Date {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    release::support::Date::from_unix_days((secs / 86_400) as i64)
}
