//! A local Istio release mirror built from the two module snapshots (the older one, from
//! `scripts/fetch-istio --previous`, and the pin), laid out as Istio's release downloads: what
//! `versions.rs` and the operator's version tests fetch from, with no network.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{stdout, text};

/// The older snapshot's module version (`scripts/fetch-istio --previous`).
pub const PREVIOUS: &str = "v0.0.0-20260423205519-b01690e6db7d";

/// The older snapshot's `manifests/` (scripts/fetch-istio --previous).
pub fn previous_manifests() -> PathBuf {
    let out = Command::new(super::repo_root().join("scripts/fetch-istio"))
        .arg("--previous")
        .output()
        .expect("running scripts/fetch-istio --previous");
    assert!(out.status.success(), "{}", text(&out));
    Path::new(stdout(&out).trim()).join("manifests")
}

/// Go's module download cache beside the fetched snapshots (`scripts/fetch-istio` fills it):
/// `<cache>/gomod/cache/download`.
pub fn go_module_downloads() -> PathBuf {
    previous_manifests()
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .join("gomod/cache/download")
}

/// Lays out `proxy` as a Go module proxy serving `istio_zips` (each under the file name given,
/// `<version>.zip`) and every istio.io/api zip Go's cache holds, the MeshConfig APIs those
/// versions require (a module version's package keeps its MeshConfig protos).
pub fn module_proxy_dir(proxy: &Path, istio_zips: &[(&Path, &str)]) {
    let at = proxy.join("istio.io/istio/@v");
    std::fs::create_dir_all(&at).unwrap();
    for (zip, name) in istio_zips {
        std::fs::copy(zip, at.join(name)).unwrap();
    }
    let api = go_module_downloads().join("istio.io/api/@v");
    let to = proxy.join("istio.io/api/@v");
    std::fs::create_dir_all(&to).unwrap();
    for entry in std::fs::read_dir(&api).unwrap().flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "zip") {
            std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
        }
    }
}

/// A scratch directory, removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("bosun-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A gzipped tar laid out as Istio's release archive `istio-<version>-linux-amd64.tar.gz`,
/// with `manifests` as its `manifests/`.
pub fn release_archive(version: &str, manifests: &Path) -> Vec<u8> {
    let mut builder = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::fast(),
    ));
    let top = format!("istio-{version}");
    let mut add = |path: &str, data: &[u8], mode: u32| {
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(mode);
        header.set_cksum();
        builder
            .append_data(&mut header, format!("{top}/{path}"), data)
            .unwrap();
    };
    add("LICENSE", b"Apache License 2.0\n", 0o644);
    add("README.md", b"# Istio\n", 0o644);
    add(
        "manifest.yaml",
        format!("version: {version}\n").as_bytes(),
        0o644,
    );
    add("bin/istioctl", b"\x7fELF not really istioctl", 0o755);
    add("samples/README.md", b"samples\n", 0o644);
    builder
        .append_dir_all(format!("{top}/manifests"), manifests)
        .unwrap();
    builder.into_inner().unwrap().finish().unwrap()
}

/// Writes `archive` into `mirror/<version>/` with its checksum file (`"<hex> <basename>\n"`,
/// as Istio publishes it), the checksum being `sha256`'s when given.
pub fn publish(mirror: &Path, version: &str, archive: &[u8], sha256: Option<&str>) {
    use sha2::Digest;
    let dir = mirror.join(version);
    std::fs::create_dir_all(&dir).unwrap();
    let name = format!("istio-{version}-linux-amd64.tar.gz");
    std::fs::write(dir.join(&name), archive).unwrap();
    let digest: String = sha2::Sha256::digest(archive)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let mut sum = std::fs::File::create(dir.join(format!("{name}.sha256"))).unwrap();
    writeln!(sum, "{} {name}", sha256.unwrap_or(&digest)).unwrap();
}
