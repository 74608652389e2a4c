//! The operator image that `scripts/build-operator-image` writes (`BOSUN_OPERATOR_IMAGE`
//! names a built one; otherwise the script runs, which needs a release build):
//! - a well-formed OCI image layout and docker-archive in one tar: every blob's digest and size
//!   as its manifest says, the layer's uncompressed digest as the config's `diff_ids`;
//! - tagged with the image `bosun operator dump` deploys by default, running as a non-root
//!   numeric user with `bosun operator run --manifests=<the charts inside>`;
//! - and working: its bosun, run from the unpacked layer (chroot, as user 65532, for whom
//!   nothing but /tmp is writable — a read-only root filesystem in effect; no network, no cache)
//!   reconciles an IstioOperator on the test API server with the charts inside the image, and
//!   writes no file.

mod common;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cluster::testenv;
use common::fetched;
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, DynamicObject, PostParams};
use kube::core::ApiResource;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const USER: &str = "65532:65532";

fn image_tar() -> PathBuf {
    fetched("BOSUN_OPERATOR_IMAGE", "build-operator-image")
}

/// Every file of the tar by name (the tar crate reads; GNU tar and gzip do the heavy lifting
/// elsewhere, since an unoptimised test build inflates 24 MB slowly).
fn read_tar(path: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut archive = tar::Archive::new(std::fs::File::open(path).unwrap());
    let mut files = BTreeMap::new();
    for entry in archive.entries().unwrap() {
        let mut entry = entry.unwrap();
        if entry.header().entry_type().is_dir() {
            continue;
        }
        let name = entry.path().unwrap().display().to_string();
        let mut data = Vec::new();
        entry.read_to_end(&mut data).unwrap();
        files.insert(name, data);
    }
    files
}

/// `data` through `gzip -dc`.
fn gunzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut child = Command::new("gzip")
        .arg("-dc")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("gzip");
    let mut stdin = child.stdin.take().unwrap();
    let input = data.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success(), "gzip -dc failed");
    out.stdout
}

fn sha256(data: &[u8]) -> String {
    format!("{:x}", Sha256::digest(data))
}

/// The blob a descriptor points at, checked against its digest and size.
fn blob<'a>(files: &'a BTreeMap<String, Vec<u8>>, descriptor: &Value) -> &'a [u8] {
    let digest = descriptor["digest"].as_str().unwrap();
    let hex = digest.strip_prefix("sha256:").unwrap();
    let data = files
        .get(&format!("blobs/sha256/{hex}"))
        .unwrap_or_else(|| panic!("blob {digest} missing"));
    assert_eq!(sha256(data), hex, "blob {digest} has another digest");
    assert_eq!(
        data.len() as u64,
        descriptor["size"].as_u64().unwrap(),
        "blob {digest} size"
    );
    data
}

struct Image {
    config: Value,
    layer_gz: Vec<u8>,
    repo_tag: String,
}

fn open_image() -> Image {
    let path = image_tar();
    let files = read_tar(&path);
    let json = |name: &str| -> Value {
        serde_json::from_slice(files.get(name).unwrap_or_else(|| panic!("{name} missing"))).unwrap()
    };
    assert_eq!(json("oci-layout"), json!({"imageLayoutVersion": "1.0.0"}));
    let index = json("index.json");
    let manifests = index["manifests"].as_array().unwrap();
    assert_eq!(manifests.len(), 1);
    let manifest: Value = serde_json::from_slice(blob(&files, &manifests[0])).unwrap();
    assert_eq!(
        manifest["mediaType"],
        "application/vnd.oci.image.manifest.v1+json"
    );
    let config_bytes = blob(&files, &manifest["config"]);
    let config: Value = serde_json::from_slice(config_bytes).unwrap();
    let layers = manifest["layers"].as_array().unwrap();
    assert_eq!(layers.len(), 1);
    let layer_gz = blob(&files, &layers[0]).to_vec();
    let layer = gunzip(&layer_gz);
    assert_eq!(
        config["rootfs"]["diff_ids"],
        json!([format!("sha256:{}", sha256(&layer))])
    );

    // The docker-archive view names the same blobs and the tag.
    let docker = json("manifest.json");
    assert_eq!(
        docker[0]["Config"],
        format!("blobs/sha256/{}", sha256(config_bytes))
    );
    assert_eq!(
        docker[0]["Layers"],
        json!([format!("blobs/sha256/{}", sha256(&layer_gz))])
    );
    let repo_tag = docker[0]["RepoTags"][0].as_str().unwrap().to_string();
    assert_eq!(
        manifests[0]["annotations"]["io.containerd.image.name"],
        repo_tag.as_str()
    );
    Image {
        config,
        layer_gz,
        repo_tag,
    }
}

#[test]
fn image_is_a_valid_layout_tagged_as_operator_dump_deploys_it() {
    let image = open_image();
    let default_image = operator::deploy::image(None, None, env!("CARGO_PKG_VERSION"));
    assert_eq!(image.repo_tag, default_image);
    let config = &image.config["config"];
    assert_eq!(config["User"], USER);
    assert_eq!(config["Entrypoint"], json!(["/usr/local/bin/bosun"]));
    assert_eq!(
        config["Cmd"],
        json!([
            "operator",
            "run",
            format!("--manifests={}", operator::deploy::IMAGE_MANIFESTS)
        ])
    );
    assert_eq!(
        operator::deploy::RUN_AS_USER.to_string(),
        USER.split(':').next().unwrap()
    );
    let size = image.layer_gz.len();
    eprintln!("operator image {}: {size} bytes compressed", image.repo_tag);
    assert!(size < 40 << 20, "the image is {size} bytes, over 40 MiB");
}

/// Unpacks the image's layer into a new directory (owners and modes as in the image).
fn unpack(layer_gz: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(testenv::unique_name("bosun-image"));
    std::fs::create_dir_all(&dir).unwrap();
    let layer = dir.with_extension("layer.tar.gz");
    std::fs::write(&layer, layer_gz).unwrap();
    let status = Command::new("tar")
        .args([
            "-xzpf",
            layer.to_str().unwrap(),
            "--same-owner",
            "-C",
            dir.to_str().unwrap(),
        ])
        .status()
        .unwrap();
    assert!(status.success(), "unpacking the layer failed");
    std::fs::remove_file(&layer).unwrap();
    dir
}

/// Every file and directory below `dir` but `tmp/`, with its length.
fn tree(dir: &Path) -> BTreeMap<String, u64> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, u64>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let rel = path.strip_prefix(base).unwrap().display().to_string();
            if rel == "tmp" {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path).unwrap();
            out.insert(rel, meta.len());
            if meta.is_dir() {
                walk(base, &path, out);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

#[tokio::test]
async fn image_runs_the_operator_as_non_root_with_its_own_charts() {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    assert!(
        root,
        "this test runs the image's bosun with chroot, which needs root (as CI and the development machines run)"
    );
    let image = open_image();
    let dir = unpack(&image.layer_gz);
    let before = tree(&dir);

    // The test API server's kubeconfig (its credentials are inline) where user 65532 can read it.
    let kubeconfig = dir.join("tmp/kubeconfig");
    std::fs::copy(testenv::kubeconfig(), &kubeconfig).unwrap();
    Command::new("chmod")
        .args(["644", kubeconfig.to_str().unwrap()])
        .status()
        .unwrap();

    let client = testenv::client().await;
    let ns = testenv::unique_name("iop-image");
    let istio_ns = testenv::unique_name("istio-image");
    client
        .apply(
            &[json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})],
            "bosun-tests",
            false,
        )
        .await
        .unwrap();
    let init = common::bosun(&[
        "operator",
        "init",
        "--operator-namespace",
        "bosun-operator-image",
    ]);
    assert!(init.status.success(), "{}", common::text(&init));

    let log = dir.join("tmp/operator.log");
    // Found on this process's PATH: the child's PATH is the image's.
    let chroot = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("chroot"))
        .find(|p| p.is_file())
        .expect("chroot on PATH");
    let mut child = Command::new(chroot)
        .arg(format!("--userspec={USER}"))
        .arg(&dir)
        .args([
            "/usr/local/bin/bosun",
            "operator",
            "run",
            "--watch-namespace",
            &ns,
            "--manifests",
            operator::deploy::IMAGE_MANIFESTS,
            "--metrics-addr",
            "127.0.0.1:0",
        ])
        .env_clear()
        .env("KUBECONFIG", "/tmp/kubeconfig")
        .env("PATH", "/usr/local/bin")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let log_text = || std::fs::read_to_string(&log).unwrap_or_default();

    let iops: Api<DynamicObject> = Api::namespaced_with(
        client.kube().clone(),
        &ns,
        &ApiResource {
            group: "install.istio.io".into(),
            version: "v1alpha1".into(),
            api_version: "install.istio.io/v1alpha1".into(),
            kind: "IstioOperator".into(),
            plural: "istiooperators".into(),
        },
    );
    let iop = json!({"apiVersion": "install.istio.io/v1alpha1", "kind": "IstioOperator",
        "metadata": {"name": "minimal", "namespace": ns},
        "spec": {"profile": "minimal", "values": {"global": {"istioNamespace": istio_ns}}}});
    iops.create(
        &PostParams::default(),
        &serde_json::from_value(iop).unwrap(),
    )
    .await
    .unwrap();
    let deployments: Api<Deployment> = Api::namespaced(client.kube().clone(), &istio_ns);
    let deadline = Instant::now() + Duration::from_secs(90);
    let istiod = loop {
        if let Some(d) = deployments.get_opt("istiod").await.unwrap() {
            break d;
        }
        assert!(
            Instant::now() < deadline,
            "the image's operator applied nothing; its log:\n{}",
            log_text()
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    // The version label comes from the VERSION file beside the image's charts.
    let version = std::fs::read_to_string(dir.join("usr/share/bosun/VERSION")).unwrap();
    assert_eq!(
        istiod.metadata.labels.unwrap()["operator.istio.io/version"],
        version.trim()
    );

    iops.delete("minimal", &Default::default()).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while iops.get_opt("minimal").await.unwrap().is_some() {
        assert!(
            Instant::now() < deadline,
            "not uninstalled; log:\n{}",
            log_text()
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        !log_text().contains("level=error"),
        "the operator logged errors:\n{}",
        log_text()
    );
    assert_eq!(tree(&dir), before, "the operator wrote outside /tmp");
    let _ = std::fs::remove_dir_all(&dir);
}
