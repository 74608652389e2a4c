//! What is taken out of a downloaded package (pure: bytes in, files out): `manifests/` of an
//! `istio.io/istio` module zip or of a release archive (`istio-<v>-linux-amd64.tar.gz`), with
//! the checks that keep a hostile or broken archive from writing outside the cache or filling
//! the disk; and the hashes that verify the download (Go's module `h1:` hash, SHA-256).

use std::io::Read;

use base64::Engine;
use sha2::{Digest, Sha256};

/// The limits on what is unpacked. The file and total limits are Helm's defaults for a chart
/// archive (`--max-file-size` 5 MiB, `--max-chart-size` 100 MiB): `manifests/` is Istio's
/// charts. A release archive also holds istioctl and samples, read through but not kept: the
/// whole stream is bounded too, so a gzip bomb stops early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub max_file: u64,
    pub max_kept: u64,
    pub max_entries: usize,
    pub max_stream: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_file: 5 << 20,
            max_kept: 100 << 20,
            max_entries: 100_000,
            max_stream: 2 << 30,
        }
    }
}

/// One file to write below the package's cache directory (a relative, checked path).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct File {
    pub path: String,
    pub data: Vec<u8>,
}

/// Why an archive was refused.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error("not a readable {format} archive")]
    Unreadable {
        format: &'static str,
        #[source]
        source: std::io::Error,
    },
    #[error("holds a path that leaves its directory: {path:?}")]
    PathEscape { path: String },
    #[error("holds a link in manifests/: {path:?} (only files and directories are unpacked)")]
    Link { path: String },
    #[error("{path:?} is larger than {limit} bytes")]
    FileTooLarge { path: String, limit: u64 },
    #[error("manifests/ is larger than {limit} bytes")]
    TooLarge { limit: u64 },
    #[error("holds more than {limit} entries")]
    TooManyEntries { limit: usize },
    #[error("has no {prefix}manifests/profiles/")]
    NoManifests { prefix: String },
    /// The module's go.mod requires a module its go.sum has no hash for.
    #[error("go.mod requires {module} {version}, but go.sum has no hash for it")]
    NoSum { module: String, version: String },
    /// A proto the MeshConfig protos import is not in the module.
    #[error("{from} imports {import}, which is not in the module")]
    MissingImport { from: String, import: String },
}

fn unreadable(format: &'static str) -> impl Fn(std::io::Error) -> ArchiveError {
    move |source| ArchiveError::Unreadable { format, source }
}

fn zip_unreadable(e: zip::result::ZipError) -> ArchiveError {
    ArchiveError::Unreadable {
        format: "zip",
        source: std::io::Error::other(e),
    }
}

/// Go's module hash (`dirhash.Hash1`): SHA-256 over the sorted lines `HEX  NAME\n` of every
/// file's SHA-256, base64, prefixed `h1:`. What go.sum records for a module zip.
pub fn module_hash(zip: &[u8]) -> Result<String, ArchiveError> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip)).map_err(zip_unreadable)?;
    let mut lines = Vec::new();
    for i in 0..archive.len() {
        let mut f = archive.by_index(i).map_err(zip_unreadable)?;
        if f.is_dir() {
            continue;
        }
        let mut hasher = Sha256::new();
        std::io::copy(&mut f, &mut hasher).map_err(unreadable("zip"))?;
        lines.push((f.name().to_string(), hex(&hasher.finalize())));
    }
    lines.sort();
    let mut summary = Sha256::new();
    for (name, digest) in &lines {
        summary.update(format!("{digest}  {name}\n").as_bytes());
    }
    Ok(format!(
        "h1:{}",
        base64::engine::general_purpose::STANDARD.encode(summary.finalize())
    ))
}

/// The SHA-256 of `data`, in lower-case hex.
pub fn sha256_hex(data: &[u8]) -> String {
    hex(&Sha256::digest(data))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The digest in a release's `.sha256` file: `"<hex> <basename>\n"` (release-builder's
/// format; `sha256sum`'s two spaces and `*` binary marker are taken too). `None` when the file
/// is not that, or names another file.
pub fn parse_checksum_file(text: &str, basename: &str) -> Option<String> {
    let line = text.lines().find(|l| !l.trim().is_empty())?;
    let mut words = line.split_whitespace();
    let digest = words.next()?;
    let name = words.next().map(|n| n.trim_start_matches('*'));
    let valid = digest.len() == 64 && digest.bytes().all(|b| b.is_ascii_hexdigit());
    (valid && name.is_none_or(|n| n == basename) && words.next().is_none())
        .then(|| digest.to_ascii_lowercase())
}

/// A path inside `manifests/` that is safe to write below a directory: relative, `/`-separated,
/// no empty, `.` or `..` element.
fn checked(path: &str) -> Result<(), ArchiveError> {
    let bad = path.starts_with('/')
        || path.contains('\\')
        || path
            .split('/')
            .any(|p| p.is_empty() || p == "." || p == "..");
    if bad {
        return Err(ArchiveError::PathEscape {
            path: path.to_string(),
        });
    }
    Ok(())
}

/// Tallies what is kept against the limits.
struct Budget {
    limits: Limits,
    kept: u64,
    entries: usize,
}

impl Budget {
    fn entry(&mut self) -> Result<(), ArchiveError> {
        self.entries += 1;
        if self.entries > self.limits.max_entries {
            return Err(ArchiveError::TooManyEntries {
                limit: self.limits.max_entries,
            });
        }
        Ok(())
    }

    /// Reads one kept file, refusing it past the limits without reading more than they allow.
    fn read(&mut self, path: &str, size: u64, r: impl Read) -> Result<Vec<u8>, ArchiveError> {
        let too_large = || ArchiveError::FileTooLarge {
            path: path.to_string(),
            limit: self.limits.max_file,
        };
        if size > self.limits.max_file {
            return Err(too_large());
        }
        let mut data = Vec::with_capacity(size as usize);
        r.take(self.limits.max_file + 1)
            .read_to_end(&mut data)
            .map_err(unreadable("archive"))?;
        if data.len() as u64 > self.limits.max_file {
            return Err(too_large());
        }
        self.kept += data.len() as u64;
        if self.kept > self.limits.max_kept {
            return Err(ArchiveError::TooLarge {
                limit: self.limits.max_kept,
            });
        }
        Ok(data)
    }
}

/// The module's `values` schema source, kept beside `manifests/` so that a package of this
/// version is validated against its own values (`pipeline::package::VALUES_PROTO`).
const VALUES_PROTO: &str = "operator/pkg/apis/values_types.proto";

/// The module's IstioOperator types, kept beside `manifests/` so that a package of this version
/// is validated against its own IstioOperator fields (`pipeline::package::IOP_TYPES`).
const IOP_TYPES: &str = "operator/pkg/apis/types.go";

/// `manifests/`, `VERSION`, the values proto and the IstioOperator types of the module zip of
/// `istio.io/istio@VERSION`.
pub fn module_files(
    zip: &[u8],
    module_version: &str,
    limits: Limits,
) -> Result<Vec<File>, ArchiveError> {
    let files = zip_files(
        zip,
        &format!("istio.io/istio@{module_version}/"),
        limits,
        |rel| {
            rel.starts_with("manifests/")
                || rel == "VERSION"
                || rel == VALUES_PROTO
                || rel == IOP_TYPES
        },
    )?;
    require_profiles(&files, "")?;
    Ok(files)
}

/// The files of a module zip under `prefix` (`MODULE@VERSION/`) that `keep` keeps (by their
/// path below it), read within `limits`.
fn zip_files(
    zip: &[u8],
    prefix: &str,
    limits: Limits,
    keep: impl Fn(&str) -> bool,
) -> Result<Vec<File>, ArchiveError> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip)).map_err(zip_unreadable)?;
    let mut budget = Budget {
        limits,
        kept: 0,
        entries: 0,
    };
    let mut files = Vec::new();
    for i in 0..archive.len() {
        budget.entry()?;
        let f = archive.by_index(i).map_err(zip_unreadable)?;
        let Some(rel) = f.name().strip_prefix(prefix).map(str::to_string) else {
            continue;
        };
        if f.is_dir() || !keep(&rel) {
            continue;
        }
        checked(&rel)?;
        // Go's module zips hold no links (modules are plain files), so every entry is a file.
        let size = f.size();
        let data = budget.read(&rel, size, f)?;
        files.push(File { path: rel, data });
    }
    Ok(files)
}

/// The Go module of Istio's APIs, whose `mesh/v1alpha1/config.proto` defines MeshConfig.
pub const API_MODULE: &str = "istio.io/api";

/// Where a package keeps the MeshConfig protos of its version, beside `manifests/`: under this
/// directory, by their paths in [`API_MODULE`] (`istio.io/api/mesh/v1alpha1/config.proto`).
pub const MESH_PROTOS_DIR: &str = "istio.io/api";

/// The MeshConfig proto, the root of the imports [`mesh_protos`] keeps.
pub const MESH_PROTO: &str = "mesh/v1alpha1/config.proto";

/// A module another module requires, at the version its go.mod names, with the hash its go.sum
/// records for that version's zip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    pub version: String,
    pub sum: String,
}

/// What the go.mod in the module zip of `istio.io/istio@VERSION` requires of `module`, with
/// its go.sum hash; `None` when it does not require it.
pub fn module_requirement(
    zip: &[u8],
    module_version: &str,
    module: &str,
) -> Result<Option<Requirement>, ArchiveError> {
    let prefix = format!("istio.io/istio@{module_version}/");
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip)).map_err(zip_unreadable)?;
    let mut text = |name: &str| -> Result<String, ArchiveError> {
        let path = format!("{prefix}{name}");
        match archive.by_name(&path) {
            Ok(f) => {
                let mut out = String::new();
                f.take(MAX_GO_FILE)
                    .read_to_string(&mut out)
                    .map_err(unreadable("zip"))?;
                Ok(out)
            }
            Err(zip::result::ZipError::FileNotFound) => Ok(String::new()),
            Err(e) => Err(zip_unreadable(e)),
        }
    };
    let (go_mod, go_sum) = (text("go.mod")?, text("go.sum")?);
    let Some(version) = required_version(&go_mod, module) else {
        return Ok(None);
    };
    let sum = go_sum.lines().find_map(|line| {
        let mut parts = line.split_whitespace();
        (parts.next() == Some(module) && parts.next() == Some(version.as_str()))
            .then(|| parts.next())
            .flatten()
            .map(str::to_string)
    });
    match sum {
        Some(sum) => Ok(Some(Requirement { version, sum })),
        None => Err(ArchiveError::NoSum {
            module: module.to_string(),
            version,
        }),
    }
}

/// Go's go.mod and go.sum are small; a larger one is cut here, and its requirement not found.
const MAX_GO_FILE: u64 = 4 << 20;

/// The version go.mod `text` requires of `module` (in a `require` block or line).
fn required_version(text: &str, module: &str) -> Option<String> {
    let mut in_block = false;
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or_default().trim();
        let entry = if in_block {
            if line == ")" {
                in_block = false;
                continue;
            }
            line
        } else if line == "require (" {
            in_block = true;
            continue;
        } else if let Some(rest) = line.strip_prefix("require ") {
            rest.trim()
        } else {
            continue;
        };
        let mut parts = entry.split_whitespace();
        if parts.next() == Some(module) {
            return parts.next().map(str::to_string);
        }
    }
    None
}

/// The MeshConfig proto of the module zip of `istio.io/api@VERSION` and every proto it imports,
/// directly or not (`google/…`, the well-known types, left out), as [`MESH_PROTOS_DIR`] paths.
pub fn mesh_protos(
    zip: &[u8],
    api_version: &str,
    limits: Limits,
) -> Result<Vec<File>, ArchiveError> {
    let protos: std::collections::BTreeMap<String, Vec<u8>> = zip_files(
        zip,
        &format!("{API_MODULE}@{api_version}/"),
        limits,
        |rel| rel.ends_with(".proto"),
    )?
    .into_iter()
    .map(|f| (f.path, f.data))
    .collect();
    let mut kept = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let mut todo = vec![(
        MESH_PROTO.to_string(),
        format!("{API_MODULE}@{api_version}"),
    )];
    while let Some((rel, from)) = todo.pop() {
        if rel.starts_with("google/") || !seen.insert(rel.clone()) {
            continue;
        }
        let Some(data) = protos.get(&rel) else {
            return Err(ArchiveError::MissingImport { from, import: rel });
        };
        for import in proto_imports(&String::from_utf8_lossy(data)) {
            todo.push((import, rel.clone()));
        }
        kept.push(File {
            path: format!("{MESH_PROTOS_DIR}/{rel}"),
            data: data.clone(),
        });
    }
    Ok(kept)
}

/// The files a proto imports (`import "a/b.proto";`, `import public "…";`).
pub fn proto_imports(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let rest = line.trim().strip_prefix("import")?;
            let rest = rest.trim_start();
            let rest = rest.strip_prefix("public").unwrap_or(rest).trim_start();
            let rest = rest.strip_prefix("weak").unwrap_or(rest).trim_start();
            let path = rest.strip_prefix('"')?.split('"').next()?;
            Some(path.to_string())
        })
        .collect()
}

/// `istio-<VERSION>/manifests/` of a release archive (gzipped tar), as `manifests/…` paths.
/// Links are refused there (a link could point out of the cache); entries elsewhere in the
/// archive (istioctl, samples) are read through and dropped.
pub fn release_files(tgz: &[u8], version: &str, limits: Limits) -> Result<Vec<File>, ArchiveError> {
    let top = format!("istio-{version}/");
    let stream = flate2::read::GzDecoder::new(tgz).take(limits.max_stream);
    let mut archive = tar::Archive::new(stream);
    let mut budget = Budget {
        limits,
        kept: 0,
        entries: 0,
    };
    let mut files = Vec::new();
    for entry in archive.entries().map_err(unreadable("tar.gz"))? {
        budget.entry()?;
        let entry = entry.map_err(unreadable("tar.gz"))?;
        let raw = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let name = raw.trim_start_matches("./");
        let Some(rel) = name.strip_prefix(&top) else {
            continue;
        };
        if !rel.starts_with("manifests/") {
            continue;
        }
        let kind = entry.header().entry_type();
        if kind.is_dir() {
            continue;
        }
        checked(rel.trim_end_matches('/'))?;
        if kind.is_symlink() || kind.is_hard_link() {
            return Err(ArchiveError::Link {
                path: name.to_string(),
            });
        }
        if !kind.is_file() {
            // Devices, FIFOs, PAX and GNU metadata entries carry no chart content.
            continue;
        }
        let rel = rel.to_string();
        let size = entry.header().size().map_err(unreadable("tar.gz"))?;
        let data = budget.read(&rel, size, entry)?;
        files.push(File { path: rel, data });
    }
    if files.is_empty() && budget.entries == 0 {
        // An empty stream: gzip of nothing, or not gzip at all with no error from the reader.
        return Err(ArchiveError::Unreadable {
            format: "tar.gz",
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, "no entries"),
        });
    }
    require_profiles(&files, &top)?;
    Ok(files)
}

fn require_profiles(files: &[File], prefix: &str) -> Result<(), ArchiveError> {
    if files
        .iter()
        .any(|f| f.path.starts_with("manifests/profiles/"))
    {
        return Ok(());
    }
    Err(ArchiveError::NoManifests {
        prefix: prefix.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_mod_requirements_are_read_from_blocks_and_lines() {
        let go_mod = "module istio.io/istio\n\ngo 1.25\n\nrequire (\n\tgithub.com/a/b v1.0.0\n\tistio.io/api v1.31.0-rc.0.0.2026 // indirect\n)\n\nrequire istio.io/client-go v1.2.3\n";
        let cases = [
            ("istio.io/api", Some("v1.31.0-rc.0.0.2026")),
            ("istio.io/client-go", Some("v1.2.3")),
            ("github.com/a/b", Some("v1.0.0")),
            ("istio.io/ap", None),
            ("istio.io/istio", None),
        ];
        for (module, want) in cases {
            assert_eq!(
                required_version(go_mod, module).as_deref(),
                want,
                "{module}"
            );
        }
    }

    #[test]
    fn imports_are_read_as_protoc_names_them() {
        let text = "syntax = \"proto3\";\nimport \"a/b.proto\";\nimport public \"c.proto\";\n  import weak \"d/e.proto\";\n// import \"commented.proto\";\noption go_package = \"x\";\n";
        assert_eq!(proto_imports(text), ["a/b.proto", "c.proto", "d/e.proto"]);
    }
}
