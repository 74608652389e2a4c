//! Bounds on every request to an API server, and errors that name the server and what was
//! waited for.
//!
//! What kube-rs bounds by itself (kube-client 5, hyper-timeout 0.5): its `connect_timeout`
//! wraps the whole connector, so it covers the TCP connection and the TLS handshake together;
//! its `read_timeout` (off by default) is a timeout on every read of the connection, which
//! would also end a watch that has nothing to say for that long; nothing bounds the wait for
//! a response's headers; and the exec credential plugin runs synchronously, without a bound,
//! while the client is built. So bosun sets `connect_timeout`, adds [`Bounded`] around the
//! whole request stack (credentials, retries of 429/503/504, connecting, sending, the
//! response's headers: everything until the headers arrive, and nothing after, so watches
//! still stream as long as the server keeps them open), and runs the exec plugin on a thread
//! it waits for at most as long ([`crate::Client::from_config_bounded`]).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use http::Request;

/// How long bosun waits for one request to an API server to be answered (its response's
/// headers), connecting included: kubectl's `--request-timeout`. `None` is no limit, as
/// kubectl's `0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestTimeout(pub Option<Duration>);

impl RequestTimeout {
    /// The bound when none is asked for. kubectl has none, so a server that accepts
    /// connections and never answers hangs it; istioctl gives up after 15 s. 30 s lets a slow
    /// server-side apply of a large CustomResourceDefinition or a busy API server answer, and
    /// still fails a hung one in half a minute.
    pub const DEFAULT: RequestTimeout = RequestTimeout(Some(Duration::from_secs(30)));
    /// No limit (kubectl's `--request-timeout 0`).
    pub const NONE: RequestTimeout = RequestTimeout(None);

    /// The bound on connecting: the TCP connection and the TLS handshake. client-go gives the
    /// dial 30 s and the handshake 10 s; one bound covers both here (kube-rs's connector
    /// does both in one future), no longer than the request's own.
    pub(crate) fn connect(self) -> Duration {
        const CONNECT: Duration = Duration::from_secs(10);
        match self.0 {
            Some(limit) => limit.min(CONNECT),
            None => CONNECT,
        }
    }
}

impl Default for RequestTimeout {
    fn default() -> RequestTimeout {
        RequestTimeout::DEFAULT
    }
}

/// A duration as kubectl's flag takes it back: `30s`, `1m30s`, `1.5s`.
pub(crate) fn seconds(d: Duration) -> String {
    let total = d.as_secs();
    if d.subsec_millis() != 0 {
        return format!("{}s", d.as_secs_f64());
    }
    match (total / 3600, total / 60 % 60, total % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, 0) => format!("{m}m"),
        (0, m, s) => format!("{m}m{s}s"),
        (h, m, s) => format!("{h}h{m}m{s}s"),
    }
}

/// A request to an API server that failed before its response's headers came.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// Nothing came back in time.
    #[error(
        "the API server {server} did not answer within {} (waiting for {waited_for}); check the server address in the kubeconfig, or raise --request-timeout",
        seconds(*after)
    )]
    Unanswered {
        server: String,
        after: Duration,
        waited_for: String,
    },
    /// The connection failed or broke: refused, reset, no route, a TLS failure.
    #[error("cannot reach the API server {server} ({request}): {cause}")]
    Unreachable {
        server: String,
        request: String,
        cause: String,
    },
}

/// What a request is, as the messages name it: `GET /version`.
fn request_text<B>(request: &Request<B>) -> String {
    format!("{} {}", request.method(), request.uri().path())
}

/// The [`tower::Layer`] for [`Bounded`].
#[derive(Clone)]
pub(crate) struct BoundLayer {
    pub server: String,
    pub timeout: RequestTimeout,
    /// Counts the client's writes, which end what its cached lists may be used for
    /// (`crate::reads`).
    pub writes: crate::reads::Writes,
}

impl<S> tower::Layer<S> for BoundLayer {
    type Service = Bounded<S>;

    fn layer(&self, inner: S) -> Bounded<S> {
        Bounded {
            inner,
            server: self.server.clone(),
            timeout: self.timeout,
            writes: self.writes.clone(),
        }
    }
}

/// kube-rs's request stack with a bound on the time to a response's headers, and transport
/// errors turned into [`RequestError`]s that name the server, the request and the cause.
#[derive(Clone)]
pub(crate) struct Bounded<S> {
    inner: S,
    server: String,
    timeout: RequestTimeout,
    writes: crate::reads::Writes,
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl<S, B, RB> tower::Service<Request<B>> for Bounded<S>
where
    S: tower::Service<Request<B>, Response = http::Response<RB>>,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let (method, path) = (request.method().clone(), request.uri().path().to_string());
        let writes = self.writes.clone();
        let what = request_text(&request);
        let server = self.server.clone();
        let timeout = self.timeout;
        let answer = self.inner.call(request);
        Box::pin(async move {
            let answered = match timeout.0 {
                Some(limit) => match tokio::time::timeout(limit, answer).await {
                    Ok(answered) => answered,
                    Err(_) => {
                        return Err(RequestError::Unanswered {
                            server,
                            after: limit,
                            waited_for: format!("the response to {what}"),
                        }
                        .into());
                    }
                },
                None => answer.await,
            };
            let response = answered.map_err(|e| explain(e.into(), &server, &what, timeout))?;
            writes.note(&method, &path, response.status());
            Ok(response)
        })
    }
}

/// A failed request's error, said with the server and the request, unless kube-rs's own
/// layers (credentials, the request's building) made it: those are kube-rs errors that say
/// what they are, and kube-rs hands them on as they are.
fn explain(error: BoxError, server: &str, what: &str, timeout: RequestTimeout) -> BoxError {
    if error.is::<kube::Error>() {
        return error;
    }
    let mut causes: Vec<&(dyn std::error::Error + 'static)> = Vec::new();
    let mut next: Option<&(dyn std::error::Error + 'static)> = Some(error.as_ref());
    while let Some(e) = next {
        causes.push(e);
        next = e.source();
    }
    // hyper-timeout's connect bound is an io::Error of kind TimedOut.
    if causes.iter().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::TimedOut)
    }) {
        return RequestError::Unanswered {
            server: server.to_string(),
            after: timeout.connect(),
            waited_for: format!("the connection and TLS handshake, for {what}"),
        }
        .into();
    }
    RequestError::Unreachable {
        server: server.to_string(),
        request: what.to_string(),
        cause: cause_text(&causes),
    }
    .into()
}

/// The innermost causes that say something (hyper's outer `client error (Connect)` does not),
/// joined: `tcp connect error: connection refused`.
fn cause_text(causes: &[&(dyn std::error::Error + 'static)]) -> String {
    let mut parts: Vec<String> = Vec::new();
    for e in causes {
        let text = e.to_string();
        if text.starts_with("client error (") {
            continue;
        }
        // Rust's `(os error 111)` says nothing a person needs.
        let text = match text.find(" (os error ") {
            Some(at) => text[..at].to_string(),
            None => text,
        };
        // Each part's own words start lower case: `…: connection refused`.
        let text = text
            .split(": ")
            .map(|part| lowercase_first(part.to_string()))
            .collect::<Vec<_>>()
            .join(": ");
        // Each layer often repeats its source's text after its own.
        if let Some(last) = parts.last_mut() {
            if last.ends_with(&text) {
                continue;
            }
            if let Some(own) = last.strip_suffix(&format!(": {text}")) {
                *last = own.to_string();
            }
        }
        parts.push(text);
    }
    if parts.is_empty() {
        return causes
            .first()
            .map(|e| e.to_string())
            .unwrap_or_else(|| "unknown error".into());
    }
    parts.join(": ")
}

/// io errors start `Connection refused`; a message reads `…: connection refused`. A word in
/// capitals (`TLS`) stays.
fn lowercase_first(text: String) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) if c.is_uppercase() && chars.clone().next().is_some_and(char::is_lowercase) => {
            c.to_lowercase().chain(chars).collect()
        }
        _ => text,
    }
}

/// kube-rs's text for `e`, with what bosun's own layer said in place of kube-rs's prefix
/// (`ServiceError: …`) and hyper's bare `client error (Connect)` said with its cause.
pub fn describe(e: &kube::Error) -> String {
    match e {
        kube::Error::Service(inner) => match inner.downcast_ref::<RequestError>() {
            Some(said) => said.to_string(),
            None => inner.to_string(),
        },
        kube::Error::HyperError(inner) => {
            let mut causes: Vec<&(dyn std::error::Error + 'static)> = vec![inner];
            let mut next = std::error::Error::source(inner);
            while let Some(c) = next {
                causes.push(c);
                next = c.source();
            }
            cause_text(&causes)
        }
        other => other.to_string(),
    }
}

/// The exec credential plugin did not finish in time.
#[derive(Debug, thiserror::Error)]
#[error(
    "the exec credential plugin {command} did not finish within {} (it gives the credentials for the API server {server}); check that it runs and does not wait for input, or raise --request-timeout",
    seconds(*after)
)]
pub struct ExecPluginTimeout {
    /// The plugin's command line, as the kubeconfig gives it.
    pub command: String,
    pub server: String,
    pub after: Duration,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_kubectl_takes_them() {
        assert_eq!(seconds(Duration::from_secs(30)), "30s");
        assert_eq!(seconds(Duration::from_secs(120)), "2m");
        assert_eq!(seconds(Duration::from_secs(90)), "1m30s");
        assert_eq!(seconds(Duration::from_secs(3601)), "1h0m1s");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5s");
    }

    #[test]
    fn connecting_is_bounded_by_the_smaller() {
        assert_eq!(RequestTimeout::DEFAULT.connect(), Duration::from_secs(10));
        assert_eq!(
            RequestTimeout(Some(Duration::from_secs(2))).connect(),
            Duration::from_secs(2)
        );
        assert_eq!(RequestTimeout::NONE.connect(), Duration::from_secs(10));
    }

    #[test]
    fn causes_are_said_once_innermost_last() {
        let io = std::io::Error::from_raw_os_error(111);
        let outer = std::io::Error::other(format!("tcp connect error: {io}"));
        let causes: Vec<&(dyn std::error::Error + 'static)> = vec![&outer, &io];
        assert_eq!(cause_text(&causes), "tcp connect error: connection refused");
    }
}
