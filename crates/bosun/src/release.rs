//! The Istio release bosun is pinned to, where its install package (charts and profiles) is
//! cached, and how it gets there on first use: the `istio.io/istio` module zip from the Go
//! module proxy over HTTPS (checked against the pinned go.sum hash), or, when that fails and a
//! Go toolchain is installed, `go mod download`. Only `manifests/` is kept. The pin must equal
//! scripts/istio-pin (a test checks it); the cache layout is the one scripts/fetch-istio uses.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The `istio.io/istio` module version whose `manifests/` bosun renders by default.
pub const ISTIO_VERSION: &str = "v0.0.0-20260827124520-eed52ebb66ad";
/// The go.sum hash of that module's zip.
pub const ISTIO_SUM: &str = "h1:ui9TJjRMAV/hb5ehQaZDq7IUGxuQP6dra9lapT/VjHI=";
const ISTIO_MODULE: &str = "istio.io/istio";

/// bosun's cache: `$BOSUN_CACHE`, else `$HOME/.cache/bosun`.
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("BOSUN_CACHE").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("bosun"))
}

fn release_dir() -> Option<PathBuf> {
    Some(cache_dir()?.join(format!("istio-{ISTIO_VERSION}")))
}

/// The pinned release's `manifests/` directory, when it is in the cache.
pub fn cached_manifests_dir() -> Option<PathBuf> {
    let dir = release_dir()?.join("manifests");
    dir.join("profiles").is_dir().then_some(dir)
}

/// The pinned release's `manifests/`, fetched into the cache if it is not there yet.
pub fn manifests_dir() -> Result<PathBuf, String> {
    if let Some(dir) = cached_manifests_dir() {
        return Ok(dir);
    }
    let dest = release_dir().ok_or("no cache directory: set BOSUN_CACHE or HOME")?;
    let progress = std::io::stderr().is_terminal();
    let note = |msg: &str| {
        if progress {
            let _ = writeln!(std::io::stderr(), "{msg}");
        }
    };
    note(&format!(
        "Fetching the Istio charts and profiles ({ISTIO_MODULE}@{ISTIO_VERSION}) into {}",
        dest.display()
    ));
    let zip = match download_module_zip(progress) {
        Ok(zip) => zip,
        Err(https) => match go_mod_download() {
            Ok(zip) => zip,
            Err(go) => {
                return Err(format!(
                    "could not fetch the Istio charts: from the Go module proxy: {https}; with the Go toolchain: {go}. Pass --manifests DIR (an Istio release's manifests/ directory) instead"
                ));
            }
        },
    };
    let sum = module_hash(&zip)?;
    if sum != ISTIO_SUM {
        return Err(format!(
            "{ISTIO_MODULE}@{ISTIO_VERSION} has hash {sum}, expected {ISTIO_SUM}; refusing to use it"
        ));
    }
    install_manifests(&zip, &dest)?;
    note("Fetched.");
    cached_manifests_dir().ok_or_else(|| format!("{} has no manifests/profiles", dest.display()))
}

fn module_url() -> String {
    let proxy = std::env::var("GOPROXY")
        .ok()
        .and_then(|p| {
            p.split([',', '|'])
                .map(str::trim)
                .find(|e| e.starts_with("https://") || e.starts_with("http://"))
                .map(|e| e.trim_end_matches('/').to_string())
        })
        .unwrap_or_else(|| "https://proxy.golang.org".to_string());
    format!("{proxy}/{ISTIO_MODULE}/@v/{ISTIO_VERSION}.zip")
}

/// GET the module zip from the module proxy.
fn download_module_zip(progress: bool) -> Result<Vec<u8>, String> {
    let url = module_url();
    let response = ureq::get(&url)
        .timeout(std::time::Duration::from_secs(300))
        .call()
        .map_err(|e| format!("GET {url}: {e}"))?;
    let total: Option<usize> = response
        .header("Content-Length")
        .and_then(|l| l.parse().ok());
    let mut reader = response.into_reader();
    let mut out = Vec::with_capacity(total.unwrap_or(16 << 20));
    let mut buf = vec![0u8; 1 << 16];
    let mut last_shown = 0;
    loop {
        let n = reader
            .read(&mut buf)
            .map_err(|e| format!("GET {url}: {e}"))?;
        if n == 0 {
            break;
        }
        out.extend_from_slice(&buf[..n]);
        if progress && out.len() - last_shown >= 1 << 20 {
            last_shown = out.len();
            let done = out.len() >> 20;
            let line = match total {
                Some(t) => format!("\r  {done} / {} MiB", t >> 20),
                None => format!("\r  {done} MiB"),
            };
            let _ = write!(std::io::stderr(), "{line}");
        }
    }
    if progress && last_shown > 0 {
        let _ = writeln!(std::io::stderr());
    }
    Ok(out)
}

/// `go mod download` of the module into a scratch GOMODCACHE under bosun's cache.
fn go_mod_download() -> Result<Vec<u8>, String> {
    let cache = cache_dir().ok_or("no cache directory")?;
    let modcache = cache.join("gomod");
    let scratch = cache.join(".bosun-go-download");
    std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    std::fs::write(scratch.join("go.mod"), "module bosun.local/download\n")
        .map_err(|e| format!("{}: {e}", scratch.display()))?;
    let out = std::process::Command::new("go")
        .args(["mod", "download", "-json"])
        .arg(format!("{ISTIO_MODULE}@{ISTIO_VERSION}"))
        .current_dir(&scratch)
        .env("GOMODCACHE", &modcache)
        .env("GOFLAGS", "-mod=mod")
        .env("GOWORK", "off")
        .output()
        .map_err(|e| format!("cannot run go: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "go mod download failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let info: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("go mod download printed no JSON: {e}"))?;
    let zip = info
        .get("Zip")
        .and_then(|z| z.as_str())
        .ok_or("go mod download named no zip")?;
    std::fs::read(zip).map_err(|e| format!("{zip}: {e}"))
}

/// Go's module hash (`dirhash.Hash1`): SHA-256 over the sorted lines `HEX  NAME` of every
/// file's SHA-256, base64, prefixed `h1:`.
fn module_hash(zip: &[u8]) -> Result<String, String> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip))
        .map_err(|e| format!("the module zip is unreadable: {e}"))?;
    let mut lines = Vec::new();
    for i in 0..archive.len() {
        let mut f = archive
            .by_index(i)
            .map_err(|e| format!("the module zip is unreadable: {e}"))?;
        if f.is_dir() {
            continue;
        }
        let mut data = Vec::new();
        f.read_to_end(&mut data)
            .map_err(|e| format!("the module zip is unreadable: {e}"))?;
        lines.push((f.name().to_string(), hex(&Sha256::digest(&data))));
    }
    lines.sort();
    let mut summary = Sha256::new();
    for (name, digest) in &lines {
        summary.update(format!("{digest}  {name}\n").as_bytes());
    }
    Ok(format!(
        "h1:{}",
        goyaml::json_value::b64_encode(&summary.finalize())
    ))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Extracts `manifests/` of the module zip into `dest/manifests`, atomically: into a scratch
/// directory first, then renamed into place.
fn install_manifests(zip: &[u8], dest: &Path) -> Result<(), String> {
    let prefix = format!("{ISTIO_MODULE}@{ISTIO_VERSION}/");
    let parent = dest.parent().ok_or("bad cache directory")?;
    std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    let stage = parent.join(format!(".istio-stage-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&stage);
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip)).map_err(|e| e.to_string())?;
    for i in 0..archive.len() {
        let mut f = archive.by_index(i).map_err(|e| e.to_string())?;
        let Some(rel) = f.name().strip_prefix(&prefix).map(str::to_string) else {
            continue;
        };
        if !(rel.starts_with("manifests/") || rel == "VERSION") || f.is_dir() {
            continue;
        }
        if rel.split('/').any(|s| s == ".." || s.is_empty()) {
            return Err(format!("the module zip holds a suspicious path: {rel}"));
        }
        let target = stage.join(&rel);
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let mut data = Vec::new();
        f.read_to_end(&mut data).map_err(|e| e.to_string())?;
        std::fs::write(&target, data).map_err(|e| format!("{}: {e}", target.display()))?;
    }
    if !stage.join("manifests/profiles").is_dir() {
        let _ = std::fs::remove_dir_all(&stage);
        return Err("the module zip has no manifests/profiles".to_string());
    }
    if dest.join("manifests/profiles").is_dir() {
        // Another bosun (or scripts/fetch-istio) got there first; its copy is as good.
        let _ = std::fs::remove_dir_all(&stage);
        return Ok(());
    }
    let _ = std::fs::remove_dir_all(dest);
    std::fs::rename(&stage, dest).map_err(|e| format!("{}: {e}", dest.display()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn pin_matches_the_scripts() {
        let pin = include_str!("../../../scripts/istio-pin");
        assert!(
            pin.contains(&format!("ISTIO_VERSION={}", super::ISTIO_VERSION))
                && pin.contains(&format!("ISTIO_SUM='{}'", super::ISTIO_SUM)),
            "crates/bosun/src/release.rs and scripts/istio-pin disagree on the Istio pin"
        );
    }

    #[test]
    fn module_hash_of_the_cached_zip() {
        // When the Go module cache holds the pinned zip, its hash is the pinned one.
        let Some(cache) = super::cache_dir() else {
            return;
        };
        let zip = cache.join(format!(
            "gomod/cache/download/istio.io/istio/@v/{}.zip",
            super::ISTIO_VERSION
        ));
        let Ok(data) = std::fs::read(&zip) else {
            return;
        };
        assert_eq!(super::module_hash(&data).unwrap(), super::ISTIO_SUM);
    }
}
