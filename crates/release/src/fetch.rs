//! Getting a package's bytes: over HTTP(S) (the module proxy, a release mirror) or from a local
//! directory mirror, an OCI registry mirror ([`oci`]), and `go mod download` as the module's
//! second way in. The only module of this crate that touches the network.

pub mod oci;

use std::io::Read;
use std::path::{Path, PathBuf};

/// What a download tells its caller as it goes (the CLI shows it on a terminal).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress<'a> {
    /// A download starts.
    Fetching { what: &'a str, from: &'a str },
    /// Bytes received so far, and how many are coming when the server said.
    Received { bytes: u64, total: Option<u64> },
}

/// Why bytes could not be had.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("GET {url}: the server answered {status} {text}")]
    Status {
        url: String,
        status: u16,
        text: String,
    },
    #[error("GET {url}: {}", transport_text(source))]
    Transport {
        url: String,
        #[source]
        source: Box<ureq::Transport>,
    },
    #[error("GET {url}: {source}")]
    Read {
        url: String,
        #[source]
        source: std::io::Error,
    },
    #[error("GET {url}: more than {limit} bytes; refusing it")]
    TooLarge { url: String, limit: u64 },
    #[error("reading {}: {source}", path.display())]
    Local {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// What went wrong in a transport error, without the URL that ureq's own text repeats.
fn transport_text(t: &ureq::Transport) -> String {
    match t.message() {
        Some(message) => format!("{}: {message}", t.kind()),
        None => t.kind().to_string(),
    }
}

impl FetchError {
    /// True when the source said it has no such file (a mirror without that release).
    pub fn not_found(&self) -> bool {
        match self {
            FetchError::Status { status, .. } => *status == 404 || *status == 410,
            FetchError::Local { source, .. } => source.kind() == std::io::ErrorKind::NotFound,
            _ => false,
        }
    }
}

/// The most a download may be: Istio's release archives are about 30 MB, its module zip 12 MB.
pub const MAX_DOWNLOAD: u64 = 512 << 20;

/// GETs `url` whole.
pub fn get(url: &str, progress: &dyn Fn(Progress<'_>)) -> Result<Vec<u8>, FetchError> {
    match call(url, &[])? {
        Ok(response) => read_body(url, response, MAX_DOWNLOAD, progress),
        Err(response) => Err(status_error(url, &response)),
    }
}

/// GETs `url` with `headers`: the response, or the one of an error status (its headers and
/// body say why); a transport failure is an error.
pub(crate) fn call(
    url: &str,
    headers: &[(&str, &str)],
) -> Result<Result<ureq::Response, ureq::Response>, FetchError> {
    let mut request = ureq::get(url).timeout(std::time::Duration::from_secs(300));
    for (name, value) in headers {
        request = request.set(name, value);
    }
    match request.call() {
        Ok(response) => Ok(Ok(response)),
        Err(ureq::Error::Status(_, response)) => Ok(Err(response)),
        Err(ureq::Error::Transport(t)) => Err(FetchError::Transport {
            url: url.to_string(),
            source: Box::new(t),
        }),
    }
}

/// The error of an answer with an error status.
pub(crate) fn status_error(url: &str, response: &ureq::Response) -> FetchError {
    FetchError::Status {
        url: url.to_string(),
        status: response.status(),
        text: response.status_text().to_string(),
    }
}

/// Reads `response`'s body whole, refusing more than `limit` bytes.
pub(crate) fn read_body(
    url: &str,
    response: ureq::Response,
    limit: u64,
    progress: &dyn Fn(Progress<'_>),
) -> Result<Vec<u8>, FetchError> {
    let too_large = || FetchError::TooLarge {
        url: url.to_string(),
        limit,
    };
    let total: Option<u64> = response
        .header("Content-Length")
        .and_then(|l| l.parse().ok());
    if total.is_some_and(|t| t > limit) {
        return Err(too_large());
    }
    let mut reader = response.into_reader().take(limit + 1);
    let mut out = Vec::with_capacity(total.unwrap_or(1 << 20).min(limit) as usize);
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = reader.read(&mut buf).map_err(|source| FetchError::Read {
            url: url.to_string(),
            source,
        })?;
        if n == 0 {
            break;
        }
        out.extend_from_slice(&buf[..n]);
        if out.len() as u64 > limit {
            return Err(too_large());
        }
        progress(Progress::Received {
            bytes: out.len() as u64,
            total,
        });
    }
    Ok(out)
}

/// Reads a file of a local directory mirror.
pub fn read_local(path: &Path) -> Result<Vec<u8>, FetchError> {
    std::fs::read(path).map_err(|source| FetchError::Local {
        path: path.to_path_buf(),
        source,
    })
}

/// `go mod download` failed or could not run.
#[derive(Debug, thiserror::Error)]
pub enum GoError {
    #[error("cannot run go: {0}")]
    Run(#[source] std::io::Error),
    #[error("go mod download failed: {stderr}")]
    Failed { stderr: String },
    #[error("go mod download printed no zip path")]
    NoZip,
    #[error("reading {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// `go mod download MODULE@VERSION` into a module cache of bosun's (`<cache>/gomod`, the one
/// `scripts/fetch-istio` uses), returning the zip's bytes: Go's own proxy settings, netrc and
/// private-module rules apply.
pub fn go_mod_download(cache_root: &Path, module: &str, version: &str) -> Result<Vec<u8>, GoError> {
    let modcache = cache_root.join("gomod");
    let scratch = cache_root.join(".bosun-go-download");
    std::fs::create_dir_all(&scratch).map_err(|source| GoError::Read {
        path: scratch.clone(),
        source,
    })?;
    std::fs::write(scratch.join("go.mod"), "module bosun.local/download\n").map_err(|source| {
        GoError::Read {
            path: scratch.join("go.mod"),
            source,
        }
    })?;
    let out = std::process::Command::new("go")
        .args(["mod", "download", "-json"])
        .arg(format!("{module}@{version}"))
        .current_dir(&scratch)
        .env("GOMODCACHE", &modcache)
        .env("GOFLAGS", "-mod=mod")
        .env("GOWORK", "off")
        .output()
        .map_err(GoError::Run)?;
    if !out.status.success() {
        // With -json, go says why in the JSON's Error field; stderr may be empty.
        let json_error = serde_json::from_slice::<serde_json::Value>(&out.stdout)
            .ok()
            .and_then(|v| v.get("Error")?.as_str().map(str::to_string));
        let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
        return Err(GoError::Failed {
            stderr: json_error.filter(|_| stderr.is_empty()).unwrap_or(stderr),
        });
    }
    let info: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|_| GoError::NoZip)?;
    let zip = info
        .get("Zip")
        .and_then(|z| z.as_str())
        .ok_or(GoError::NoZip)?;
    std::fs::read(zip).map_err(|source| GoError::Read {
        path: PathBuf::from(zip),
        source,
    })
}
