//! The `http:`/`https:` half of Helm's schema `$ref` loader (`HTTPURLLoader` in Helm's
//! `pkg/chart/common/util/jsonschema.go`), handed to the `helm` crate as its
//! `jsonschema::FetchUrl`: a GET with User-Agent `Helm/4.1.4`, a 15 s timeout for the
//! whole exchange, the proxy Go's `http.ProxyFromEnvironment` picks, redirects followed, and
//! only status 200 accepted. Failures are worded as Helm's Go client words them
//! (`HTTP request to URL returned status 404 (Not Found)`, `HTTP request failed for URL: Get
//! "URL": dial tcp 127.0.0.1:1: connect: connection refused`); causes Go words in ways that
//! depend on its own resolver or TLS stack (DNS, certificates) keep Go's framing with the
//! underlying reason in our words.

use std::io::Read;
use std::net::{IpAddr, ToSocketAddrs};
use std::time::Duration;

/// What Helm 4.1.4 sends as its User-Agent.
const USER_AGENT: &str = "Helm/4.1.4";
/// `http.Client.Timeout` of Helm's loader.
const TIMEOUT: Duration = Duration::from_secs(15);

/// Fetches `url` as Helm's schema loader does.
pub(crate) fn fetch(url: &str) -> Result<Vec<u8>, String> {
    let failed = |why: String| format!("HTTP request failed for {url}: Get {}: {why}", quoted(url));
    let mut agent = ureq::AgentBuilder::new()
        .timeout(TIMEOUT)
        .redirects(10)
        .user_agent(USER_AGENT);
    if let Some(proxy) = proxy_for(url, &|name| std::env::var(name).ok()) {
        let proxy = ureq::Proxy::new(&proxy).map_err(|e| {
            failed(format!(
                "proxyconnect tcp: invalid proxy URL {proxy:?}: {e}"
            ))
        })?;
        agent = agent.proxy(proxy);
    }
    let response = match agent.build().get(url).call() {
        Ok(response) => response,
        Err(ureq::Error::Status(_, response)) => response,
        Err(ureq::Error::Transport(t)) => return Err(failed(transport_error(url, &t))),
    };
    let status = response.status();
    if status != 200 {
        return Err(format!(
            "HTTP request to {url} returned status {status} ({})",
            status_text(status)
        ));
    }
    let mut body = Vec::new();
    response.into_reader().read_to_end(&mut body).map_err(|e| {
        if is_timeout(&e) {
            "context deadline exceeded (Client.Timeout or context cancellation while reading body)"
                .to_string()
        } else {
            e.to_string()
        }
    })?;
    Ok(body)
}

/// Go's `%q` of a URL (they hold no characters that need escapes beyond `"` and `\`).
fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

fn is_timeout(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
    )
}

/// What follows `Get "URL": ` in Go's error for a request that got no response.
fn transport_error(url: &str, t: &ureq::Transport) -> String {
    use std::error::Error;
    let io = t.source().and_then(|s| s.downcast_ref::<std::io::Error>());
    if let Some(e) = io
        && is_timeout(e)
    {
        return "context deadline exceeded (Client.Timeout exceeded while awaiting headers)"
            .to_string();
    }
    let (host, port) = host_port(url);
    match t.kind() {
        ureq::ErrorKind::ConnectionFailed => {
            let addr = dial_address(&host, port);
            match io.map(std::io::Error::kind) {
                Some(std::io::ErrorKind::ConnectionRefused) => {
                    format!("dial tcp {addr}: connect: connection refused")
                }
                // The TLS handshake (rustls) failed.
                Some(std::io::ErrorKind::InvalidData) => {
                    let why = io.map(ToString::to_string).unwrap_or_default();
                    if why.contains("corrupt message") {
                        "tls: first record does not look like a TLS handshake".to_string()
                    } else if why.contains("UnknownIssuer") {
                        "tls: failed to verify certificate: x509: certificate signed by unknown authority"
                            .to_string()
                    } else {
                        format!("tls: {why}")
                    }
                }
                _ => format!(
                    "dial tcp {addr}: connect: {}",
                    io.map_or_else(|| t.to_string(), go_io_text)
                ),
            }
        }
        ureq::ErrorKind::Dns => format!(
            "dial tcp: lookup {host} on {}: no such host",
            name_server(&std::fs::read_to_string("/etc/resolv.conf").unwrap_or_default())
        ),
        _ => match io {
            Some(e) => go_io_text(e),
            None => t.to_string(),
        },
    }
}

/// An OS error as Go words it: the C library's text in lower case.
fn go_io_text(e: &std::io::Error) -> String {
    let text = e.to_string();
    let text = text.split(" (os error ").next().unwrap_or_default();
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_lowercase().chain(chars).collect())
        .unwrap_or_default()
}

/// The name server Go's resolver asks first (and names in its errors): the first
/// `nameserver` of resolv.conf, port 53; Go's default without one.
fn name_server(resolv_conf: &str) -> String {
    let first = resolv_conf.lines().find_map(|l| {
        let mut words = l.split_whitespace();
        (words.next() == Some("nameserver"))
            .then(|| words.next())
            .flatten()
            .and_then(|a| a.parse::<IpAddr>().ok())
    });
    match first {
        Some(IpAddr::V6(v6)) => format!("[{v6}]:53"),
        Some(ip) => format!("{ip}:53"),
        None => "127.0.0.1:53".to_string(),
    }
}

/// The host (without brackets) and port a URL connects to.
fn host_port(url: &str) -> (String, u16) {
    let (scheme, rest) = url.split_once("://").unwrap_or(("http", url));
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let authority = authority.rsplit('@').next().unwrap_or_default();
    let default = if scheme.eq_ignore_ascii_case("https") {
        443
    } else {
        80
    };
    if let Some(inner) = authority.strip_prefix('[') {
        let (host, after) = inner.split_once(']').unwrap_or((inner, ""));
        let port = after
            .strip_prefix(':')
            .and_then(|p| p.parse().ok())
            .unwrap_or(default);
        return (host.to_string(), port);
    }
    match authority.rsplit_once(':') {
        Some((host, port)) => (host.to_string(), port.parse().unwrap_or(default)),
        None => (authority.to_string(), default),
    }
}

/// The address Go names in a dial error: the IP it dialled and the port.
fn dial_address(host: &str, port: u16) -> String {
    let ip = match host.parse::<IpAddr>() {
        Ok(ip) => Some(ip),
        Err(_) => (host, port)
            .to_socket_addrs()
            .ok()
            .and_then(|mut a| a.next())
            .map(|a| a.ip()),
    };
    match ip {
        Some(IpAddr::V6(v6)) => format!("[{v6}]:{port}"),
        Some(ip) => format!("{ip}:{port}"),
        None => format!("{host}:{port}"),
    }
}

/// Go's `http.ProxyFromEnvironment` (golang.org/x/net/http/httpproxy): `HTTPS_PROXY` for
/// `https` URLs, `HTTP_PROXY` for `http` ones (upper case first), none for `localhost`, a
/// loopback address or a host `NO_PROXY` lists. A proxy without a scheme is `http://`.
fn proxy_for(url: &str, env: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    let any = |names: [&str; 2]| names.iter().find_map(|n| env(n).filter(|v| !v.is_empty()));
    let https = url
        .get(..6)
        .is_some_and(|s| s.eq_ignore_ascii_case("https:"));
    let proxy = if https {
        any(["HTTPS_PROXY", "https_proxy"])
    } else {
        any(["HTTP_PROXY", "http_proxy"])
    }?;
    let (host, port) = host_port(url);
    let host = host.to_ascii_lowercase();
    if host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback()) {
        return None;
    }
    let no_proxy = any(["NO_PROXY", "no_proxy"]).unwrap_or_default();
    for entry in no_proxy.split(',').map(|e| e.trim().to_ascii_lowercase()) {
        if entry.is_empty() {
            continue;
        }
        if entry == "*" {
            return None;
        }
        if let Some((net, bits)) = entry.split_once('/')
            && let (Ok(net), Ok(bits), Ok(ip)) = (
                net.parse::<IpAddr>(),
                bits.parse::<u32>(),
                host.parse::<IpAddr>(),
            )
        {
            if in_network(ip, net, bits) {
                return None;
            }
            continue;
        }
        if let Ok(ip) = entry.parse::<IpAddr>() {
            if host.parse::<IpAddr>() == Ok(ip) {
                return None;
            }
            continue;
        }
        // `host[:port]`; a leading dot (or none) matches the domain and its subdomains.
        let (name, entry_port) = match entry.rsplit_once(':') {
            Some((n, p)) if p.parse::<u16>().is_ok() => (n, p.parse::<u16>().ok()),
            _ => (entry.as_str(), None),
        };
        if entry_port.is_some_and(|p| p != port) {
            continue;
        }
        // `*.x` is `.x`; `.x` matches below x only, `x` matches x too.
        let name = name
            .strip_prefix('*')
            .filter(|n| n.starts_with('.'))
            .unwrap_or(name);
        let matched = match name.strip_prefix('.') {
            Some(_) => host.ends_with(name),
            None => host == name || host.ends_with(&format!(".{name}")),
        };
        if matched {
            return None;
        }
    }
    Some(if proxy.contains("://") {
        proxy
    } else {
        format!("http://{proxy}")
    })
}

fn in_network(ip: IpAddr, net: IpAddr, bits: u32) -> bool {
    match (ip, net) {
        (IpAddr::V4(a), IpAddr::V4(n)) if bits <= 32 => {
            let mask = if bits == 0 {
                0
            } else {
                u32::MAX << (32 - bits)
            };
            u32::from(a) & mask == u32::from(n) & mask
        }
        (IpAddr::V6(a), IpAddr::V6(n)) if bits <= 128 => {
            let mask = if bits == 0 {
                0
            } else {
                u128::MAX << (128 - bits)
            };
            u128::from(a) & mask == u128::from(n) & mask
        }
        _ => false,
    }
}

/// Go's `http.StatusText`.
fn status_text(code: u16) -> &'static str {
    match code {
        100 => "Continue",
        101 => "Switching Protocols",
        102 => "Processing",
        103 => "Early Hints",
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        203 => "Non-Authoritative Information",
        204 => "No Content",
        205 => "Reset Content",
        206 => "Partial Content",
        207 => "Multi-Status",
        208 => "Already Reported",
        226 => "IM Used",
        300 => "Multiple Choices",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        305 => "Use Proxy",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        402 => "Payment Required",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        407 => "Proxy Authentication Required",
        408 => "Request Timeout",
        409 => "Conflict",
        410 => "Gone",
        411 => "Length Required",
        412 => "Precondition Failed",
        413 => "Request Entity Too Large",
        414 => "Request URI Too Long",
        415 => "Unsupported Media Type",
        416 => "Requested Range Not Satisfiable",
        417 => "Expectation Failed",
        418 => "I'm a teapot",
        421 => "Misdirected Request",
        422 => "Unprocessable Entity",
        423 => "Locked",
        424 => "Failed Dependency",
        425 => "Too Early",
        426 => "Upgrade Required",
        428 => "Precondition Required",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        451 => "Unavailable For Legal Reasons",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        505 => "HTTP Version Not Supported",
        506 => "Variant Also Negotiates",
        507 => "Insufficient Storage",
        508 => "Loop Detected",
        510 => "Not Extended",
        511 => "Network Authentication Required",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn proxy_selection_as_go() {
        let e = env(&[
            ("HTTP_PROXY", "proxy:3128"),
            ("https_proxy", "http://sp:8080"),
            ("NO_PROXY", "internal.example,.corp,10.0.0.0/8,h:8443"),
        ]);
        assert_eq!(
            proxy_for("http://example.com/s.json", &e).as_deref(),
            Some("http://proxy:3128")
        );
        assert_eq!(
            proxy_for("https://example.com/s.json", &e).as_deref(),
            Some("http://sp:8080")
        );
        for direct in [
            "http://127.0.0.1:8080/x",
            "http://localhost/x",
            "http://[::1]:80/x",
            "http://internal.example/x",
            "http://a.internal.example/x",
            "http://b.corp/x",
            "http://10.1.2.3/x",
            "https://h:8443/x",
        ] {
            assert_eq!(proxy_for(direct, &e), None, "{direct}");
        }
        // `.corp` matches subdomains only; a port in NO_PROXY must match.
        assert!(proxy_for("http://corp/x", &e).is_some());
        assert!(proxy_for("https://h/x", &e).is_some());
        assert_eq!(proxy_for("http://example.com/", &env(&[])), None);
    }

    #[test]
    fn addresses() {
        assert_eq!(
            host_port("http://127.0.0.1:1/x.json"),
            ("127.0.0.1".into(), 1)
        );
        assert_eq!(host_port("https://u@[::1]/x"), ("::1".into(), 443));
        assert_eq!(dial_address("::1", 80), "[::1]:80");
        assert_eq!(status_text(404), "Not Found");
        assert_eq!(
            name_server("# x\nsearch a\nnameserver 10.0.0.2\nnameserver 10.0.0.3\n"),
            "10.0.0.2:53"
        );
        assert_eq!(name_server("nameserver ::1"), "[::1]:53");
        assert_eq!(name_server(""), "127.0.0.1:53");
    }
}
