//! OCI registries on 127.0.0.1 for the tests of an OCI release mirror:
//! - [`Registry`]: a real one, `crane registry serve` (go-containerregistry), with release
//!   archives pushed by the real `oras push`; both built by `scripts/fetch-oci-tools` (or
//!   named by `BOSUN_OCI_TOOLS`, the directory holding them);
//! - [`FakeRegistry`]: a registry that lies (a blob that is not its digest, a manifest named by
//!   another digest, a blob longer than its manifest says) behind anonymous bearer-token auth,
//!   as Docker Hub and ghcr.io ask for it: what a real registry cannot be made to serve.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use sha2::Digest as _;

/// The directory holding `crane` and `oras`.
pub fn tools() -> PathBuf {
    super::fetched("BOSUN_OCI_TOOLS", "fetch-oci-tools")
}

pub fn sha256(data: &[u8]) -> String {
    sha2::Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `crane registry serve` on 127.0.0.1 (blobs and manifests in memory), killed when dropped.
pub struct Registry {
    /// `127.0.0.1:PORT`.
    pub address: String,
    child: Child,
}

impl Registry {
    pub fn start() -> Registry {
        let mut child = Command::new(tools().join("crane"))
            .args(["registry", "serve", "--address", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starting crane registry serve");
        // It logs "serving on port N", then a line per request: read the first, drain the rest.
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let port = loop {
            match lines.next() {
                Some(Ok(line)) => {
                    if let Some(port) = line.split("serving on port ").nth(1) {
                        break port.trim().to_string();
                    }
                }
                _ => {
                    let _ = child.kill();
                    panic!("crane registry serve stopped before it said its port");
                }
            }
        };
        std::thread::spawn(move || lines.for_each(drop));
        Registry {
            address: format!("127.0.0.1:{port}"),
            child,
        }
    }

    /// `oras push ADDRESS/REPO:TAG FILE` (plain HTTP), FILE given by its name as an air-gapped
    /// site's operator would push it, so the layer is titled with it.
    pub fn push(&self, repo: &str, tag: &str, file: &Path) {
        let out = Command::new(tools().join("oras"))
            .args(["push", "--plain-http", "--no-tty"])
            .arg(format!("{}/{repo}:{tag}", self.address))
            .arg(file.file_name().unwrap())
            .current_dir(file.parent().unwrap())
            .env("HOME", file.parent().unwrap())
            .stdin(Stdio::null())
            .output()
            .expect("running oras push");
        assert!(out.status.success(), "oras push: {}", super::text(&out));
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What the fake registry serves under one tag.
#[derive(Clone)]
pub struct Artifact {
    /// The manifest's bytes.
    pub manifest: Vec<u8>,
    /// The `Docker-Content-Digest` it is served with (`sha256:` of the manifest when honest).
    pub named: String,
    /// Blobs by digest (`sha256:…`), as served (honest or not).
    pub blobs: BTreeMap<String, Vec<u8>>,
}

impl Artifact {
    /// An artifact as `oras push REPO:TAG FILE` makes it: an OCI image manifest, the empty
    /// config, one layer titled `file` holding `data`, of `size` (the data's own when honest).
    pub fn oras(file: &str, data: &[u8], size: Option<u64>) -> Artifact {
        let digest = format!("sha256:{}", sha256(data));
        let manifest = format!(
            r#"{{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","artifactType":"application/vnd.unknown.artifact.v1","config":{{"mediaType":"application/vnd.oci.empty.v1+json","digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","size":2,"data":"e30="}},"layers":[{{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"{digest}","size":{},"annotations":{{"org.opencontainers.image.title":"{file}"}}}}]}}"#,
            size.unwrap_or(data.len() as u64)
        );
        Artifact {
            named: format!("sha256:{}", sha256(manifest.as_bytes())),
            manifest: manifest.into_bytes(),
            blobs: BTreeMap::from([(digest, data.to_vec())]),
        }
    }

    /// The layer's digest.
    pub fn layer_digest(&self) -> String {
        self.blobs.keys().next().unwrap().clone()
    }
}

/// The fake registry: repository `repo`'s tags, each answered only with the bearer token its
/// token endpoint (`/token`) hands out for `repository:REPO:pull`.
pub struct FakeRegistry {
    pub address: String,
    /// The requests it answered (`METHOD PATH`, and ` [AUTHORIZATION]` for a token request
    /// that carried credentials), in order.
    pub log: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

const TOKEN: &str = "anonymous-pull-token";

impl FakeRegistry {
    pub fn start(repo: &str, tags: BTreeMap<String, Artifact>) -> FakeRegistry {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let address = listener.local_addr().unwrap().to_string();
        let stop = Arc::new(AtomicBool::new(false));
        let log = Arc::new(Mutex::new(Vec::new()));
        let thread = {
            let (stop, log, repo, address) =
                (stop.clone(), log.clone(), repo.to_string(), address.clone());
            std::thread::spawn(move || {
                for conn in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    if let Ok(conn) = conn {
                        let _ = serve(conn, &address, &repo, &tags, &log);
                    }
                }
            })
        };
        FakeRegistry {
            address,
            log,
            stop,
            thread: Some(thread),
        }
    }

    pub fn requests(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for FakeRegistry {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(&self.address);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve(
    conn: TcpStream,
    address: &str,
    repo: &str,
    tags: &BTreeMap<String, Artifact>,
    log: &Mutex<Vec<String>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(conn.try_clone()?);
    let mut request = String::new();
    reader.read_line(&mut request)?;
    let mut headers = BTreeMap::new();
    let mut line = String::new();
    while reader.read_line(&mut line)? > 2 {
        if let Some((k, v)) = line.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
        line.clear();
    }
    let mut words = request.split_whitespace();
    let (method, target) = (
        words.next().unwrap_or("").to_string(),
        words.next().unwrap_or("/").to_string(),
    );
    // A token request's credentials are logged: the test of a login reads them.
    let credentials = headers
        .get("authorization")
        .filter(|_| target.starts_with("/token"))
        .map(|a| format!(" [{a}]"))
        .unwrap_or_default();
    log.lock()
        .unwrap()
        .push(format!("{method} {target}{credentials}"));
    let mut conn = conn;
    let mut answer = |status: &str, extra: &[(&str, &str)], body: &[u8]| {
        let mut head = format!(
            "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n",
            body.len()
        );
        for (k, v) in extra {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        conn.write_all(head.as_bytes())?;
        conn.write_all(body)?;
        conn.flush()
    };
    let scope = format!("repository:{repo}:pull");
    if let Some(query) = target.strip_prefix("/token?") {
        let want = format!("service=fake-registry&scope={}", escape(&scope));
        return if query == want {
            answer(
                "200 OK",
                &[("Content-Type", "application/json")],
                format!(r#"{{"token":"{TOKEN}","expires_in":300}}"#).as_bytes(),
            )
        } else {
            answer("403 Forbidden", &[], b"")
        };
    }
    if headers.get("authorization").map(String::as_str) != Some(&format!("Bearer {TOKEN}")) {
        let challenge = format!(
            r#"Bearer realm="http://{address}/token",service="fake-registry",scope="{scope}""#
        );
        return answer(
            "401 Unauthorized",
            &[
                ("WWW-Authenticate", &challenge),
                ("Content-Type", "application/json"),
            ],
            br#"{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}"#,
        );
    }
    let prefix = format!("/v2/{repo}/");
    let rest = target.strip_prefix(&prefix).unwrap_or("");
    if let Some(tag) = rest.strip_prefix("manifests/")
        && let Some(artifact) = tags.get(tag)
    {
        return answer(
            "200 OK",
            &[
                ("Content-Type", "application/vnd.oci.image.manifest.v1+json"),
                ("Docker-Content-Digest", &artifact.named),
            ],
            &artifact.manifest,
        );
    }
    if let Some(digest) = rest.strip_prefix("blobs/")
        && let Some(blob) = tags.values().find_map(|a| a.blobs.get(digest))
    {
        return answer(
            "200 OK",
            &[("Content-Type", "application/octet-stream")],
            blob,
        );
    }
    answer(
        "404 Not Found",
        &[("Content-Type", "application/json")],
        br#"{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown"}]}"#,
    )
}

fn escape(value: &str) -> String {
    value
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}
