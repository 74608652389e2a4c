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
//!
//! [`Bounded`] is also where transient failures are retried (a server restarting refuses
//! connections for a few seconds; one killed mid-request resets them), with backoff and within
//! the same bound, so `--request-timeout` stays the longest one request takes; which failures
//! are retried for which requests, and why, is [`transient`]'s doc.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use http::Request;
use kube::client::Body;
use tower::buffer::Buffer;

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
        "the API server {server} did not answer within {} (waiting for {waited_for}{}); check the server address in the kubeconfig, or raise --request-timeout",
        seconds(*after),
        retried_text(retried)
    )]
    Unanswered {
        server: String,
        after: Duration,
        waited_for: String,
        /// The transient failures retried before the time ran out, if any.
        retried: Option<Retried>,
    },
    /// The command's deadline passed (see [`Deadline`]) before an answer came.
    #[error(
        "the API server {server} did not answer before bosun's deadline for this command passed ({} in all: --timeout and the waits' own timeouts; waiting for {waited_for}{}); raise --timeout (0 is no limit)",
        seconds(Duration::from_secs(total.as_secs())),
        retried_text(retried)
    )]
    DeadlinePassed {
        server: String,
        /// All the time the command was given: its own, and what its waits added.
        total: Duration,
        waited_for: String,
        retried: Option<Retried>,
    },
    /// The connection failed or broke: refused, reset, no route, a TLS failure.
    #[error(
        "cannot reach the API server {server} ({request}): {cause}{}",
        retried_text(retried)
    )]
    Unreachable {
        server: String,
        request: String,
        cause: String,
        /// The transient failures retried before giving up, if any.
        retried: Option<Retried>,
    },
}

/// How often a request was sent again after a transient failure, and for how long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retried {
    pub times: u32,
    pub for_: Duration,
}

/// A whole command's deadline for its requests, shared by a client's clones (none unless the
/// command sets one, [`crate::Client::set_deadline`]). A wait that may legitimately take long
/// (for workloads to be ready, CRDs to be served, another install's lock) adds its own timeout
/// when it begins to wait ([`crate::Client::extend_deadline`]), so the deadline bounds the
/// time spent talking to the API server and each wait keeps its own bound.
#[derive(Clone, Debug, Default)]
pub(crate) struct Deadline(Arc<Mutex<Option<DeadlineState>>>);

#[derive(Clone, Copy, Debug)]
struct DeadlineState {
    at: Instant,
    /// Everything granted so far, for the message.
    total: Duration,
}

impl Deadline {
    pub(crate) fn set(&self, total: Duration) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(DeadlineState {
            at: Instant::now() + total,
            total,
        });
    }

    pub(crate) fn extend(&self, by: Duration) {
        if let Some(state) = self.0.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            state.at += by;
            state.total += by;
        }
    }

    /// The time left and all the time granted, when there is a deadline.
    fn left(&self) -> Option<(Duration, Duration)> {
        let state = (*self.0.lock().unwrap_or_else(|e| e.into_inner()))?;
        Some((
            state.at.saturating_duration_since(Instant::now()),
            state.total,
        ))
    }
}

fn retried_text(retried: &Option<Retried>) -> String {
    match retried {
        Some(r) => format!(
            ", after {} {} over {} while the server was unreachable",
            r.times,
            if r.times == 1 { "retry" } else { "retries" },
            seconds(Duration::from_secs(r.for_.as_secs()))
        ),
        None => String::new(),
    }
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
    /// Whether the server has answered any request of this client (shared by its clones).
    pub answered: Arc<AtomicBool>,
    pub deadline: Deadline,
    /// Counts the client's writes, which end what its cached lists may be used for
    /// (`crate::reads`).
    pub writes: crate::reads::Writes,
    /// The newest second the server's answers named (`crate::outcome`).
    pub clock: crate::client::ServerClock,
}

impl<S> tower::Layer<S> for BoundLayer
where
    S: tower::Service<Request<Body>> + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<BoxError> + Send + Sync,
    S::Response: Send + 'static,
{
    type Service = Bounded<Buffer<Request<Body>, S::Future>>;

    fn layer(&self, inner: S) -> Self::Service {
        Bounded {
            // A buffer makes kube-rs's stack (a boxed service, not Clone) callable again from
            // a request's own future, for its retries (kube-rs buffers its stack the same way).
            inner: Buffer::new(inner, 1024),
            server: self.server.clone(),
            timeout: self.timeout,
            answered: self.answered.clone(),
            deadline: self.deadline.clone(),
            writes: self.writes.clone(),
            clock: self.clock.clone(),
        }
    }
}

/// kube-rs's request stack with a bound on the time to a response's headers, transient
/// connection failures retried within that bound (see [`transient`]), and transport errors
/// turned into [`RequestError`]s that name the server, the request and the cause.
///
/// This is the one place bosun retries a request (kube-rs's own layer inside it retries
/// 429/503/504 answers). The bound covers every attempt and every pause between them:
/// `--request-timeout` stays the longest one request can take, retries included. With no
/// limit (`--request-timeout 0`), transient failures are retried for [`RETRY_WITHOUT_LIMIT`].
#[derive(Clone)]
pub(crate) struct Bounded<S> {
    inner: S,
    server: String,
    timeout: RequestTimeout,
    answered: Arc<AtomicBool>,
    deadline: Deadline,
    writes: crate::reads::Writes,
    clock: crate::client::ServerClock,
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// How long transient failures are retried when requests have no time limit.
pub(crate) const RETRY_WITHOUT_LIMIT: Duration = Duration::from_secs(30);
/// The first pause before a retry; each next one doubles, up to [`MAX_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_millis(200);
const MAX_PAUSE: Duration = Duration::from_secs(2);

/// Whether a failed attempt may be sent again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Transient {
    /// The connection was refused: nothing was sent, so any request may be sent again.
    NotSent,
    /// The connection broke after the request may have been sent (reset, closed, cut short):
    /// the server may have done it, so only a request that does the same when done twice is
    /// sent again (see [`idempotent`]).
    MaybeDone,
    /// Anything else: not retried.
    No,
}

/// Which failures are retried and why:
/// - **Connection refused**: the API server is not listening, as while it restarts; nothing was
///   sent. Retried for every request, but only once the server has answered this client before:
///   a server that refuses from the first request is a wrong address or a server that is down,
///   and is said at once (as kubectl and istioctl do), not waited for.
/// - **Connection reset or aborted, a broken pipe, an unexpected end of the stream, hyper's
///   "connection closed before message completed"**: the server went away mid-request (killed,
///   restarted, a load balancer's idle cut). client-go retries these for GET only; bosun also
///   retries its server-side applies and merge patches, which leave the same object when done
///   twice. Creates (POST), updates (PUT: a retry of one that was done answers 409 Conflict),
///   deletes (a retry answers 404) and JSON patches are not retried: their callers see the error.
/// - **429, 503, 504 answers** (overload, a server starting or shutting down): kube-rs's own
///   retry layer inside this one sends them again, honouring `Retry-After`, within this bound.
/// - **500 answers**: not retried. The API server itself retries etcd's transient failures
///   (leader changes, an unavailable member: its storage layer's `etcd3retry`), so a 500 that
///   reaches bosun is one it could not get past either.
/// - **A request that got no answer in time**: not retried; the bound is spent.
/// - **Watches**: never retried here (see [`is_watch`]); their owners start them again.
/// - **TLS failures, unknown hosts, no route**: configuration problems or a server that is
///   gone, not retried.
fn transient(error: &(dyn std::error::Error + 'static)) -> Transient {
    let mut next: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = next {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            use std::io::ErrorKind::*;
            match io.kind() {
                ConnectionRefused => return Transient::NotSent,
                ConnectionReset | ConnectionAborted | BrokenPipe | UnexpectedEof => {
                    return Transient::MaybeDone;
                }
                // An io::Error that wraps another error does not give it as its source (it
                // gives that error's source): look at the wrapped one too.
                _ => {
                    if let Some(inner) = io.get_ref() {
                        let found = transient(inner);
                        if found != Transient::No {
                            return found;
                        }
                    }
                }
            }
        }
        if let Some(h) = e.downcast_ref::<hyper::Error>()
            && (h.is_incomplete_message() || h.is_closed() || h.is_canceled())
        {
            return Transient::MaybeDone;
        }
        next = e.source();
    }
    Transient::No
}

/// Whether `error` is a request cut short after it may have been sent (the server went away
/// mid-request): for a caller that can make a non-idempotent request safe to send again, as
/// creating a namespace is (a second create of one the first made answers 409).
pub(crate) fn cut_mid_request(error: &kube::Error) -> bool {
    transient(error) == Transient::MaybeDone
}

/// Whether doing `request` twice leaves the cluster as doing it once: reads, and patches that
/// set fields to given values (server-side apply, merge patch).
fn idempotent<B>(request: &Request<B>) -> bool {
    use http::Method;
    match *request.method() {
        Method::GET | Method::HEAD | Method::OPTIONS => true,
        Method::PATCH => request
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| {
                t.starts_with("application/apply-patch") || t.starts_with("application/merge-patch")
            }),
        _ => false,
    }
}

/// Whether `request` starts a watch (`?watch=true`). Watches are not retried here: whoever
/// watches (kube-runtime's watcher in the operator, the CRD wait) already starts one again, or
/// falls back to reading, on its own terms, and must see the failure to do so (the operator's
/// `/readyz` turns false while its watch cannot be made).
fn is_watch<B>(request: &Request<B>) -> bool {
    request.uri().query().is_some_and(|q| {
        q.split('&')
            .any(|pair| pair == "watch=true" || pair == "watch=1")
    })
}

/// A copy of `request` to send again, when its body can be copied (kube-rs's bodies are bytes;
/// a streamed body cannot be, and is not retried).
fn copy(request: &Request<Body>) -> Option<Request<Body>> {
    let body = request.body().try_clone()?;
    let mut copy = Request::new(body);
    *copy.method_mut() = request.method().clone();
    *copy.uri_mut() = request.uri().clone();
    *copy.version_mut() = request.version();
    *copy.headers_mut() = request.headers().clone();
    *copy.extensions_mut() = request.extensions().clone();
    Some(copy)
}

impl<S, RB> tower::Service<Request<Body>> for Bounded<S>
where
    S: tower::Service<Request<Body>, Response = http::Response<RB>> + Clone + Send + 'static,
    S::Error: Into<BoxError> + Send,
    S::Future: Send + 'static,
    RB: Send + 'static,
{
    type Response = S::Response;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        let (method, path) = (request.method().clone(), request.uri().path().to_string());
        let writes = self.writes.clone();
        let clock = self.clock.clone();
        let what = request_text(&request);
        let server = self.server.clone();
        let timeout = self.timeout;
        let answered = self.answered.clone();
        let deadline = self.deadline.clone();
        // The service polled ready is the one called first; a clone is made ready for retries.
        let fresh = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, fresh);
        Box::pin(async move {
            let started = Instant::now();
            let budget = timeout.0.unwrap_or(RETRY_WITHOUT_LIMIT);
            let may_repeat = idempotent(&request);
            let watch = is_watch(&request);
            let mut pause = FIRST_PAUSE;
            let mut retries = 0u32;
            let mut request = request;
            loop {
                let retried = (retries > 0).then(|| Retried {
                    times: retries,
                    for_: started.elapsed(),
                });
                let passed = |total: Duration| -> BoxError {
                    RequestError::DeadlinePassed {
                        server: server.clone(),
                        total,
                        waited_for: format!("the response to {what}"),
                        retried,
                    }
                    .into()
                };
                // The wait for this attempt: what is left of the request's bound or of the
                // command's deadline, whichever ends first.
                let request_left = timeout.0.map(|l| l.saturating_sub(started.elapsed()));
                let command_left = deadline.left();
                if let Some((left, total)) = command_left
                    && left.is_zero()
                {
                    return Err(passed(total));
                }
                let again = copy(&request);
                if retries > 0 {
                    std::future::poll_fn(|cx| inner.poll_ready(cx))
                        .await
                        .map_err(Into::into)?;
                }
                let answer = inner.call(request);
                let bound = match (request_left, command_left) {
                    (Some(r), Some((c, total))) if c < r => Some((c, Some(total))),
                    (Some(r), _) => Some((r, None)),
                    (None, Some((c, total))) => Some((c, Some(total))),
                    (None, None) => None,
                };
                let answered_now = match bound {
                    Some((left, by_deadline)) => match tokio::time::timeout(left, answer).await {
                        Ok(answered) => answered,
                        Err(_) => {
                            return Err(match by_deadline {
                                Some(total) => passed(total),
                                None => RequestError::Unanswered {
                                    server: server.clone(),
                                    after: timeout.0.unwrap_or_default(),
                                    waited_for: format!("the response to {what}"),
                                    retried,
                                }
                                .into(),
                            });
                        }
                    },
                    None => answer.await,
                };
                let error: BoxError = match answered_now {
                    Ok(response) => {
                        answered.store(true, Ordering::Relaxed);
                        writes.note(&method, &path, response.status());
                        clock.note(response.headers());
                        return Ok(response);
                    }
                    Err(e) => e.into(),
                };
                let retry = !watch
                    && match transient(error.as_ref()) {
                        Transient::NotSent => answered.load(Ordering::Relaxed),
                        Transient::MaybeDone => may_repeat,
                        Transient::No => false,
                    };
                let in_time = started.elapsed() + pause < budget
                    && deadline.left().is_none_or(|(left, _)| pause < left);
                match again {
                    Some(again) if retry && in_time => {
                        tokio::time::sleep(pause).await;
                        pause = (pause * 2).min(MAX_PAUSE);
                        retries += 1;
                        request = again;
                    }
                    _ => return Err(explain(error, &server, &what, timeout, retried)),
                }
            }
        })
    }
}

/// A failed request's error, said with the server and the request, unless kube-rs's own
/// layers (credentials, the request's building) made it: those are kube-rs errors that say
/// what they are, and kube-rs hands them on as they are.
fn explain(
    error: BoxError,
    server: &str,
    what: &str,
    timeout: RequestTimeout,
    retried: Option<Retried>,
) -> BoxError {
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
            retried,
        }
        .into();
    }
    RequestError::Unreachable {
        server: server.to_string(),
        request: what.to_string(),
        cause: cause_text(&causes),
        retried,
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
        kube::Error::Service(inner) => {
            if let Some(said) = inner.downcast_ref::<RequestError>() {
                said.to_string()
            } else if let Some(kube::client::AuthError::AuthExecRun { cmd, out }) =
                inner.downcast_ref::<kube::client::AuthError>()
            {
                // A token refreshed during a request: the plugin runs then too.
                exec_failure_text(cmd, &out.status, &out.stderr)
            } else {
                inner.to_string()
            }
        }
        kube::Error::HyperError(inner) => {
            let mut causes: Vec<&(dyn std::error::Error + 'static)> = vec![inner];
            let mut next = std::error::Error::source(inner);
            while let Some(c) = next {
                causes.push(c);
                next = c.source();
            }
            cause_text(&causes)
        }
        // kube-rs prints the whole Status as a debug struct after its message.
        kube::Error::Api(status) => api_status_text(status.code, &status.reason, &status.message),
        kube::Error::Auth(kube::client::AuthError::AuthExecRun { cmd, out }) => {
            exec_failure_text(cmd, &out.status, &out.stderr)
        }
        other => other.to_string(),
    }
}

/// An API server's error answer in kubectl's words (`Error from server (NotFound): …`), or,
/// when the body was no `Status` (a proxy's page, a path the server does not serve), its
/// HTTP code and the body's first line.
fn api_status_text(code: u16, reason: &str, message: &str) -> String {
    if reason == "Failed to parse error data" {
        let line = message.lines().next().unwrap_or("").trim();
        let mut line: String = line.chars().take(200).collect();
        if line.is_empty() {
            line = "(no body)".to_string();
        }
        return format!("the server answered HTTP {code}: {line}");
    }
    if reason.is_empty() {
        format!("Error from server (HTTP {code}): {message}")
    } else {
        format!("Error from server ({reason}): {message}")
    }
}

/// An exec credential plugin that failed: its command (kube-rs's text puts the
/// ExecCredential input before it), its exit status and the last line it wrote to stderr.
fn exec_failure_text(cmd: &str, status: &std::process::ExitStatus, stderr: &[u8]) -> String {
    // kube-rs names it as `KUBERNETES_EXEC_INFO="…" "command" "args"…`; the command is what
    // a person recognises.
    let command = cmd
        .rsplit_once("}\" ")
        .map_or(cmd, |(_, command)| command)
        .replace('"', "");
    let stderr = String::from_utf8_lossy(stderr);
    let said = stderr.lines().rev().find(|l| !l.trim().is_empty());
    format!(
        "the exec credential plugin {command} failed ({status}){}; run it by hand to see why",
        said.map(|l| format!(": {}", l.trim())).unwrap_or_default()
    )
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
    fn api_answers_read_as_kubectl_prints_them() {
        assert_eq!(
            api_status_text(404, "NotFound", "deployments.apps \"x\" not found"),
            "Error from server (NotFound): deployments.apps \"x\" not found"
        );
        assert_eq!(
            api_status_text(
                404,
                "Failed to parse error data",
                "404 page not found\nmore"
            ),
            "the server answered HTTP 404: 404 page not found"
        );
        assert_eq!(
            api_status_text(502, "Failed to parse error data", ""),
            "the server answered HTTP 502: (no body)"
        );
    }

    #[test]
    fn a_failed_exec_plugin_is_named_with_its_status_and_words() {
        use std::os::unix::process::ExitStatusExt;
        let cmd = r#"KUBERNETES_EXEC_INFO="{\"kind\":\"ExecCredential\",\"spec\":{\"interactive\":false}}" "gke-gcloud-auth-plugin" "--x""#;
        assert_eq!(
            exec_failure_text(
                cmd,
                &std::process::ExitStatus::from_raw(256),
                b"oops\nno credentials\n\n"
            ),
            "the exec credential plugin gke-gcloud-auth-plugin --x failed (exit status: 1): no credentials; run it by hand to see why"
        );
    }

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
    fn which_failures_are_retried() {
        use std::io::{Error as Io, ErrorKind};
        let wrapped = |kind: ErrorKind| Io::other(Box::new(Io::from(kind)) as BoxError);
        for (error, want) in [
            (Io::from(ErrorKind::ConnectionRefused), Transient::NotSent),
            (wrapped(ErrorKind::ConnectionRefused), Transient::NotSent),
            (Io::from(ErrorKind::ConnectionReset), Transient::MaybeDone),
            (wrapped(ErrorKind::BrokenPipe), Transient::MaybeDone),
            (Io::from(ErrorKind::UnexpectedEof), Transient::MaybeDone),
            (Io::from(ErrorKind::TimedOut), Transient::No),
            (Io::from(ErrorKind::PermissionDenied), Transient::No),
            (
                Io::other("invalid peer certificate: UnknownIssuer"),
                Transient::No,
            ),
        ] {
            assert_eq!(transient(&error), want, "{error:?}");
        }
    }

    #[test]
    fn only_requests_that_do_the_same_twice_are_sent_again_after_a_broken_connection() {
        let request = |method: &str, content_type: Option<&str>| {
            let mut r = Request::builder().method(method).uri("/api/v1/namespaces");
            if let Some(t) = content_type {
                r = r.header(http::header::CONTENT_TYPE, t);
            }
            r.body(()).unwrap()
        };
        for (method, content_type, want) in [
            ("GET", None, true),
            ("HEAD", None, true),
            ("PATCH", Some("application/apply-patch+yaml"), true),
            ("PATCH", Some("application/merge-patch+json"), true),
            ("PATCH", Some("application/json-patch+json"), false),
            (
                "PATCH",
                Some("application/strategic-merge-patch+json"),
                false,
            ),
            ("POST", Some("application/json"), false),
            ("PUT", Some("application/json"), false),
            ("DELETE", None, false),
        ] {
            assert_eq!(
                idempotent(&request(method, content_type)),
                want,
                "{method} {content_type:?}"
            );
        }
    }

    #[test]
    fn a_deadline_is_none_until_set_and_waits_extend_it() {
        let deadline = Deadline::default();
        deadline.extend(Duration::from_secs(60));
        assert!(
            deadline.left().is_none(),
            "extending no deadline makes none"
        );
        deadline.set(Duration::from_secs(10));
        let clone = deadline.clone();
        clone.extend(Duration::from_secs(300));
        let (left, total) = deadline.left().unwrap();
        assert_eq!(total, Duration::from_secs(310));
        assert!(left > Duration::from_secs(300) && left <= total, "{left:?}");
    }

    #[test]
    fn watches_are_told_apart() {
        let request = |uri: &str| Request::get(uri).body(()).unwrap();
        assert!(is_watch(&request(
            "/api/v1/pods?watch=true&resourceVersion=1"
        )));
        assert!(is_watch(&request("/api/v1/pods?resourceVersion=1&watch=1")));
        assert!(!is_watch(&request("/api/v1/pods?limit=500")));
        assert!(!is_watch(&request("/api/v1/pods")));
    }

    #[test]
    fn retries_are_said_after_the_cause() {
        let error = RequestError::Unreachable {
            server: "https://10.0.0.1:6443".into(),
            request: "PATCH /api/v1/namespaces/x".into(),
            cause: "tcp connect error: connection refused".into(),
            retried: Some(Retried {
                times: 7,
                for_: Duration::from_millis(4900),
            }),
        };
        assert_eq!(
            error.to_string(),
            "cannot reach the API server https://10.0.0.1:6443 (PATCH /api/v1/namespaces/x): \
             tcp connect error: connection refused, after 7 retries over 4s while the server \
             was unreachable"
        );
    }

    #[test]
    fn causes_are_said_once_innermost_last() {
        let io = std::io::Error::from_raw_os_error(111);
        let outer = std::io::Error::other(format!("tcp connect error: {io}"));
        let causes: Vec<&(dyn std::error::Error + 'static)> = vec![&outer, &io];
        assert_eq!(cause_text(&causes), "tcp connect error: connection refused");
    }
}
