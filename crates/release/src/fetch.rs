//! Getting a package's bytes: over HTTP(S) (the module proxy, a release mirror) or from a local
//! directory mirror, and `go mod download` as the module's second way in. The only module of
//! this crate that touches the network.

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
    let response = match ureq::get(url)
        .timeout(std::time::Duration::from_secs(300))
        .call()
    {
        Ok(response) => response,
        Err(ureq::Error::Status(status, response)) => {
            return Err(FetchError::Status {
                url: url.to_string(),
                status,
                text: response.status_text().to_string(),
            });
        }
        Err(ureq::Error::Transport(t)) => {
            return Err(FetchError::Transport {
                url: url.to_string(),
                source: Box::new(t),
            });
        }
    };
    let total: Option<u64> = response
        .header("Content-Length")
        .and_then(|l| l.parse().ok());
    if total.is_some_and(|t| t > MAX_DOWNLOAD) {
        return Err(FetchError::TooLarge {
            url: url.to_string(),
            limit: MAX_DOWNLOAD,
        });
    }
    let mut reader = response.into_reader().take(MAX_DOWNLOAD + 1);
    let mut out = Vec::with_capacity(total.unwrap_or(1 << 20) as usize);
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
        if out.len() as u64 > MAX_DOWNLOAD {
            return Err(FetchError::TooLarge {
                url: url.to_string(),
                limit: MAX_DOWNLOAD,
            });
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
