//! API servers that hang or are not there, through the real binary: each case ends within its
//! bound with one line that names the server (or the exec credential plugin) and what bosun
//! waited for. The servers are TCP listeners on 127.0.0.1 that accept and never answer, or a
//! port nothing listens on; no API server, no network.
//!
//! The bounds are bosun's defaults (30 s for an answer, 10 s to connect and finish the TLS
//! handshake) and `--request-timeout 2s`; the cases run side by side, so the file takes about
//! 30 s. The upper limits checked are generous (a loaded machine); the lower ones show the
//! bound, not something else, ended the command.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A listener on 127.0.0.1 that accepts every connection and never writes (nor closes) one.
struct Silent {
    port: u16,
}

impl Silent {
    fn start() -> Silent {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port on 127.0.0.1");
        let port = listener.local_addr().expect("its address").port();
        std::thread::spawn(move || {
            let mut held: Vec<TcpStream> = Vec::new();
            for stream in listener.incoming().flatten() {
                held.push(stream);
            }
        });
        Silent { port }
    }
}

/// A directory of its own, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!(
            "bosun-hanging-{name}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        ));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A kubeconfig for `server` whose user has a token, or gets one from `exec` (a command and
/// its arguments).
fn kubeconfig(dir: &Path, server: &str, exec: Option<(&str, &[&str])>) -> PathBuf {
    let user = match exec {
        None => "    token: t\n".to_string(),
        Some((command, args)) => format!(
            "    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: {command}\n      args: [{}]\n      interactiveMode: Never\n",
            args.iter()
                .map(|a| format!("\"{a}\""))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: {server}\n    insecure-skip-tls-verify: true\nusers:\n- name: u\n  user:\n{user}contexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n"
    );
    let path = dir.join("kubeconfig");
    std::fs::write(&path, text).expect("writing the kubeconfig");
    path
}

/// `bosun revision list --kubeconfig KUBECONFIG EXTRA…`, and how long it took. HOME is the
/// test's directory and KUBECONFIG unset, so nothing else is reached.
fn revision_list(dir: &Path, kubeconfig: &Path, extra: &[&str]) -> (Output, Duration) {
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_bosun"))
        .args(["revision", "list", "--kubeconfig"])
        .arg(kubeconfig)
        .args(extra)
        .env("HOME", dir)
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .stdin(Stdio::null())
        .output()
        .expect("running bosun");
    (out, start.elapsed())
}

/// The command failed with one line on stderr holding each of `expected`.
fn fails_saying(out: &Output, expected: &[&str]) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "succeeded: {stderr}");
    assert_eq!(
        stderr.trim_end().lines().count(),
        1,
        "not one line: {stderr}"
    );
    for part in expected {
        assert!(stderr.contains(part), "{part:?} is not in: {stderr}");
    }
    assert!(
        !stderr.contains("client error (") && !stderr.contains("ServiceError"),
        "{stderr}"
    );
    stderr
}

fn within(took: Duration, low: u64, high: u64) {
    assert!(
        took >= Duration::from_secs(low) && took < Duration::from_secs(high),
        "took {took:?}, not between {low} and {high} s"
    );
}

#[test]
fn a_server_that_never_answers_is_given_up_on_after_30s() {
    let dir = TempDir::new("http");
    let server = format!("http://127.0.0.1:{}", Silent::start().port);
    let config = kubeconfig(&dir.0, &server, None);
    let (out, took) = revision_list(&dir.0, &config, &[]);
    fails_saying(
        &out,
        &[
            &format!(
                "the API server {server} did not answer within 30s (waiting for the response to GET /"
            ),
            "raise --request-timeout",
        ],
    );
    within(took, 29, 60);
}

#[test]
fn request_timeout_shortens_the_wait() {
    let dir = TempDir::new("short");
    let server = format!("http://127.0.0.1:{}", Silent::start().port);
    let config = kubeconfig(&dir.0, &server, None);
    let (out, took) = revision_list(&dir.0, &config, &["--request-timeout", "2s"]);
    fails_saying(
        &out,
        &[&format!("the API server {server} did not answer within 2s")],
    );
    within(took, 2, 15);
}

#[test]
fn a_tls_handshake_that_never_ends_is_given_up_on_after_10s() {
    let dir = TempDir::new("tls");
    let server = format!("https://127.0.0.1:{}", Silent::start().port);
    let config = kubeconfig(&dir.0, &server, None);
    let (out, took) = revision_list(&dir.0, &config, &[]);
    fails_saying(
        &out,
        &[&format!(
            "the API server {server} did not answer within 10s (waiting for the connection and TLS handshake, for GET /"
        )],
    );
    within(took, 9, 30);
}

#[test]
fn an_exec_plugin_that_hangs_is_named() {
    let dir = TempDir::new("exec");
    let server = format!("http://127.0.0.1:{}", Silent::start().port);
    // It outlives bosun (which leaves it behind, as a killed kubectl would) by a little only.
    let config = kubeconfig(&dir.0, &server, Some(("sleep", &["20"])));
    let (out, took) = revision_list(&dir.0, &config, &["--request-timeout", "2s"]);
    fails_saying(
        &out,
        &[
            "the exec credential plugin sleep 20 did not finish within 2s",
            &server,
        ],
    );
    within(took, 2, 15);
}

/// A listener on 127.0.0.1 that reads each request's head, hands it on, and never answers.
fn listening() -> (u16, std::sync::mpsc::Receiver<String>) {
    use std::io::Read;
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port on 127.0.0.1");
    let port = listener.local_addr().expect("its address").port();
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut held: Vec<TcpStream> = Vec::new();
        for mut stream in listener.incoming().flatten() {
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).is_ok_and(|n| n == 1) {
                head.push(byte[0]);
            }
            let _ = sender.send(String::from_utf8_lossy(&head).into_owned());
            held.push(stream);
        }
    });
    (port, receiver)
}

/// The bound on the plugin must not break one that answers: its token is what bosun sends.
#[test]
fn an_exec_plugin_that_answers_gives_the_credentials() {
    let dir = TempDir::new("exec-ok");
    let plugin = dir.0.join("plugin");
    std::fs::write(
        &plugin,
        "#!/bin/sh\necho '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"from-the-plugin\"}}'\n",
    )
    .expect("writing the plugin");
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&plugin, std::fs::Permissions::from_mode(0o755))
            .expect("making it executable");
    }
    let (port, heads) = listening();
    let server = format!("http://127.0.0.1:{port}");
    let config = kubeconfig(&dir.0, &server, Some((&plugin.to_string_lossy(), &[])));
    let (out, _) = revision_list(&dir.0, &config, &["--request-timeout", "2s"]);
    fails_saying(
        &out,
        &[&format!("the API server {server} did not answer within 2s")],
    );
    let head = heads
        .recv_timeout(Duration::from_secs(5))
        .expect("a request");
    assert!(
        head.to_lowercase()
            .contains("authorization: bearer from-the-plugin"),
        "{head}"
    );
}

#[test]
fn a_closed_port_is_named_with_the_cause() {
    let dir = TempDir::new("closed");
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port on 127.0.0.1");
        listener.local_addr().expect("its address").port()
    };
    let server = format!("https://127.0.0.1:{port}");
    let config = kubeconfig(&dir.0, &server, None);
    let (out, took) = revision_list(&dir.0, &config, &[]);
    fails_saying(
        &out,
        &[
            &format!("cannot reach the API server {server} (GET /"),
            "connection refused",
        ],
    );
    within(took, 0, 15);
}

/// A plugin that fails is named with its exit status and its last words (before: kube-rs's
/// `Output { status: ExitStatus(unix_wait_status(256)), … }`).
#[test]
fn an_exec_plugin_that_fails_is_named_with_its_words() {
    let dir = TempDir::new("exec-fails");
    let server = format!("http://127.0.0.1:{}", Silent::start().port);
    let config = kubeconfig(
        &dir.0,
        &server,
        Some((
            "sh",
            &["-c", "echo 'error: no credentials for you' >&2; exit 3"],
        )),
    );
    let (out, took) = revision_list(&dir.0, &config, &[]);
    let stderr = fails_saying(
        &out,
        &[
            "the exec credential plugin sh -c",
            "failed (exit status: 3): error: no credentials for you",
        ],
    );
    assert!(!stderr.contains("Output {"), "{stderr}");
    within(took, 0, 15);
}

/// A server on 127.0.0.1 that answers every request with `status` (`502 Bad Gateway`) and
/// `body` as text/html, and closes the connection.
fn answering(status: &'static str, body: &'static str) -> String {
    use std::io::{Read, Write};
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port on 127.0.0.1");
    let port = listener.local_addr().expect("its address").port();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).is_ok_and(|n| n == 1) {
                head.push(byte[0]);
            }
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    format!("http://127.0.0.1:{port}")
}

/// Something that is no API server (a proxy's error page) is quoted in one line with its HTTP
/// code (before: kube-rs's `ApiError: … (Status { … })`).
#[test]
fn an_answer_that_is_no_api_status_is_quoted_in_one_line() {
    let dir = TempDir::new("proxy-page");
    let server = answering(
        "502 Bad Gateway",
        "<html><body>502 Bad Gateway</body></html>\n<hr>nginx\n",
    );
    let config = kubeconfig(&dir.0, &server, None);
    let (out, took) = revision_list(&dir.0, &config, &[]);
    let stderr = fails_saying(
        &out,
        &["the server answered HTTP 502: <html><body>502 Bad Gateway</body></html>"],
    );
    assert!(!stderr.contains("Status {"), "{stderr}");
    within(took, 0, 15);
}

/// A server URL whose path leads nowhere (`https://host/prefix` in front of an API server that
/// has no such prefix) answers 404 for everything: that is said, rather than every kind taken
/// as not served (before: "No Istio control plane revisions found.", exit 0).
#[test]
fn a_server_url_that_is_no_api_server_is_said() {
    let dir = TempDir::new("not-found");
    let server = answering("404 Not Found", "404 page not found\n");
    let config = kubeconfig(&dir.0, &server, None);
    let (out, took) = revision_list(&dir.0, &config, &[]);
    fails_saying(
        &out,
        &[&format!(
            "the server {server} answered HTTP 404 for the API discovery paths (/api, /apis): no Kubernetes API server answers at that address"
        )],
    );
    within(took, 0, 15);
}
