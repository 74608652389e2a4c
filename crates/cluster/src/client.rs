use std::path::Path;
use std::time::Duration;

use kube::config::{KubeConfigOptions, Kubeconfig};

use crate::timeout::{BoundLayer, Deadline, ExecPluginTimeout, RequestTimeout};
use crate::{Error, Target};

pub(crate) use crate::discovery::DiscoveryCache;

/// What bosun calls itself in requests: `bosun/<version>`.
pub const USER_AGENT: &str = concat!("bosun/", env!("CARGO_PKG_VERSION"));

/// A connection to one cluster. Cheap to clone: clones share the HTTP connection pool and the
/// discovery cache.
#[derive(Clone)]
pub struct Client {
    pub(crate) kube: kube::Client,
    pub(crate) discovery: DiscoveryCache,
    /// Lists read once per command and shared by the checks (`crate::reads`).
    pub(crate) reads: crate::reads::ReadCache,
    /// The API server's address as the kubeconfig writes it (kube-rs keeps it as a URI,
    /// which adds a `/` that a kubeconfig handed to another cluster should not have).
    server: String,
    /// The namespace the kubeconfig's context sets, if it sets one.
    context_namespace: Option<String>,
    /// The command's deadline for its requests, if it set one.
    deadline: Deadline,
    /// The server's clock, as its answers' `Date` headers tell it.
    pub(crate) clock: ServerClock,
}

/// The newest second (since the epoch) that the API server's answers to a client named in
/// their `Date` header, shared by the client's clones: a request sent after it was read is
/// handled by the server in that second or later (`crate::outcome` tells an apply's outcome
/// with it). 0 until an answer carried one.
#[derive(Clone, Default)]
pub(crate) struct ServerClock(std::sync::Arc<std::sync::atomic::AtomicI64>);

impl ServerClock {
    /// Takes in the `Date` of an answer.
    pub(crate) fn note(&self, headers: &http::HeaderMap) {
        let second = headers
            .get(http::header::DATE)
            .and_then(|d| d.to_str().ok())
            .and_then(crate::outcome::http_date_seconds);
        if let Some(second) = second {
            self.0
                .fetch_max(second, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// The newest second named so far, if any.
    pub(crate) fn second(&self) -> Option<i64> {
        let second = self.0.load(std::sync::atomic::Ordering::Relaxed);
        (second > 0).then_some(second)
    }
}

impl Client {
    /// A client for the current context of the kubeconfig file at `path`.
    pub async fn from_kubeconfig(path: impl AsRef<Path>) -> Result<Client, Error> {
        let path = path.as_ref();
        let kubeconfig = Kubeconfig::read_from(path).map_err(|source| Error::Kubeconfig {
            path: path.to_path_buf(),
            source,
        })?;
        let config =
            kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
                .await
                .map_err(|source| Error::Kubeconfig {
                    path: path.to_path_buf(),
                    source,
                })?;
        Self::from_config(config)
    }

    /// A client for `target`, found as kubectl finds it (see [`Target`]): the
    /// `--kubeconfig` file, else the files `KUBECONFIG` lists, else `~/.kube/config`, with
    /// `--context` or the current context; else the in-cluster service account. Its requests
    /// are bounded by the target's [`RequestTimeout`].
    pub async fn connect(target: &Target) -> Result<Client, Error> {
        let (mut config, context) =
            crate::target::resolve(target, &crate::target::Environment::current()).await?;
        // kube-rs's own inference applies these (impersonation and URL overrides, a debugging
        // aid read from KUBE_RS_DEBUG_* variables); so does bosun, as it did through it.
        config.apply_debug_overrides();
        let mut client = Self::from_config_bounded(config, target.request_timeout)?;
        if let Some(server) = context.server {
            client.server = server;
        }
        client.context_namespace = context.namespace;
        Ok(client)
    }

    /// A client for an already built kube-rs configuration, with the default bound on each
    /// request ([`RequestTimeout::DEFAULT`]).
    pub fn from_config(config: kube::Config) -> Result<Client, Error> {
        Self::from_config_bounded(config, RequestTimeout::DEFAULT)
    }

    /// A client for an already built kube-rs configuration whose requests wait at most
    /// `timeout` for an answer (see [`crate::timeout`](RequestTimeout) for what that covers).
    pub fn from_config_bounded(
        mut config: kube::Config,
        timeout: RequestTimeout,
    ) -> Result<Client, Error> {
        // The API server records it (audit logs, `kubectl get --raw /metrics` by client), so
        // people can tell bosun's requests from others'.
        if !config
            .headers
            .iter()
            .any(|(name, _)| name == http::header::USER_AGENT)
        {
            config.headers.push((
                http::header::USER_AGENT,
                http::HeaderValue::from_static(USER_AGENT),
            ));
        }
        config.connect_timeout = Some(timeout.connect());
        // kube-rs's read timeout is a bound on every read of a connection, which would end a
        // quiet watch too; the layer below bounds the wait for headers instead. Writes keep
        // kube-rs's own bound.
        config.read_timeout = None;
        let reads = crate::reads::ReadCache::default();
        let layer = BoundLayer {
            server: server_text(&config.cluster_url),
            timeout,
            answered: Default::default(),
            deadline: Default::default(),
            writes: reads.writes.clone(),
            clock: ServerClock::default(),
        };
        let clock = layer.clock.clone();
        let deadline = layer.deadline.clone();
        let exec = config.auth_info.exec.as_ref().map(|exec| {
            std::iter::once(exec.command.clone().unwrap_or_default())
                .chain(exec.args.clone().unwrap_or_default())
                .collect::<Vec<_>>()
                .join(" ")
        });
        let server = layer.server.clone();
        let build = move || http_stack(config).map(|builder| builder.with_layer(&layer).build());
        let kube = match (exec, timeout.0) {
            // kube-rs runs the exec credential plugin while it builds the client, and waits
            // for it without a bound; it is waited for here on a thread of its own. If it
            // never ends, the thread and the plugin are left behind: a command ends the
            // process when it fails, which ends the thread (the plugin, in its own process,
            // ends when it ends, as when kubectl is interrupted).
            (Some(command), Some(limit)) => {
                let runtime = tokio::runtime::Handle::try_current().ok();
                let (sender, receiver) = std::sync::mpsc::channel();
                std::thread::Builder::new()
                    .name("exec-credential".into())
                    .spawn(move || {
                        let _entered = runtime.as_ref().map(|r| r.enter());
                        let _ = sender.send(build());
                    })
                    .map_err(Error::ExecThread)?;
                match receiver.recv_timeout(limit) {
                    Ok(built) => built,
                    Err(_) => {
                        return Err(Error::ExecPluginTimeout(ExecPluginTimeout {
                            command,
                            server,
                            after: limit,
                        }));
                    }
                }
            }
            _ => build(),
        }
        .map_err(Error::Connect)?;
        Ok(Client {
            kube,
            discovery: Default::default(),
            reads,
            server,
            context_namespace: None,
            deadline,
            clock,
        })
    }

    /// Gives the command using this client (and its clones) `total` from now for all its
    /// requests: once it has passed, every request fails at once, naming the deadline. Waits
    /// add their own time ([`Client::extend_deadline`]). Without this call there is none, as
    /// for the operator, which runs until stopped.
    pub fn set_deadline(&self, total: Duration) {
        self.deadline.set(total);
    }

    /// Moves the deadline (if there is one) `by` later: called by a wait as it begins to wait
    /// up to `by` (for readiness, for CRDs to be served, for another command's install lock),
    /// so that the deadline bounds the talking and each wait keeps its own bound.
    pub fn extend_deadline(&self, by: Duration) {
        self.deadline.extend(by);
    }

    /// The underlying kube-rs client, for what this crate does not wrap yet.
    pub fn kube(&self) -> &kube::Client {
        &self.kube
    }

    /// The namespace that namespaced objects without one go to (the kubeconfig context's).
    pub fn default_namespace(&self) -> &str {
        self.kube.default_namespace()
    }

    /// The API server's address: the kubeconfig's `server` as written there when the client
    /// was made by [`Client::connect`] from a kubeconfig.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The namespace the kubeconfig's context sets, when it sets one ([`Client::connect`]
    /// only): istioctl's commands use it as their default namespace, and `istio-system` when
    /// the context sets none (where [`Client::default_namespace`] says `default`).
    pub fn context_namespace(&self) -> Option<&str> {
        self.context_namespace.as_deref()
    }
}

/// The largest read buffer one connection keeps (hyper's default is 8 KiB + 400 KiB).
const MAX_READ_BUFFER: usize = 64 * 1024;
/// The most idle connections the pool of a long-running process keeps to the API server
/// ([`keep_few_idle_connections`]; hyper's default: no limit).
const MAX_IDLE_CONNECTIONS: usize = 4;

/// Whether this process's clients keep at most [`MAX_IDLE_CONNECTIONS`] idle connections.
static FEW_IDLE_CONNECTIONS: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Makes the clients this process builds from now on keep at most [`MAX_IDLE_CONNECTIONS`] idle
/// connections (see [`http_stack`]): for a process that runs for weeks, the operator. A
/// command keeps every connection it opened until it ends: an install's next side-by-side
/// burst then needs no new connection, whose TLS handshake would be bounded by the shorter
/// connect timeout (10 s) instead of the request's 30 s, and an API server paused for 20 s
/// mid-install would fail it (`install_faults.rs`
/// `api_server_paused_20s_mid_install_is_waited_out_and_a_rerun_converges`).
pub fn keep_few_idle_connections() {
    FEW_IDLE_CONNECTIONS.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// The HTTP stack under the kube-rs client: kube-rs's own (`ClientBuilder::try_from`, whose
/// layers it repeats: base URL, retry, authorization, headers), with two of hyper's settings
/// bounded for a process that runs for weeks, the operator (the idle pool only there:
/// [`keep_few_idle_connections`]). hyper grows a connection's read
/// buffer to the largest read it made (doubling while reads fill it, up to 408 KiB: one CRD
/// or list read makes it that large) and keeps it as long as the connection lives; its pool
/// keeps every connection a burst of side-by-side requests opened, for 90 s. So the operator,
/// after a reconcile (its components applied side by side, each object read back), held
/// 40-odd idle connections, some with buffers of hundreds of KiB, and its memory depended on
/// how the reads had fallen (BENCHMARKS.md, `operator run`: memory). Reads of at most 64 KiB
/// only mean more of them for a large answer (a 1 MiB list: 16), and a connection opened again
/// costs a TLS handshake. With a proxy (which kube-rs refuses without its proxy features) or an
/// exec credential plugin (whose client certificate's expiry kube-rs records privately), the
/// stack is kube-rs's, unchanged.
fn http_stack(
    config: kube::Config,
) -> Result<kube::client::ClientBuilder<HttpService>, kube::Error> {
    use kube::client::ConfigExt;
    use tower::ServiceExt;
    if config.proxy_url.is_some() || config.auth_info.exec.is_some() {
        return kube::client::ClientBuilder::try_from(config);
    }
    let mut http = hyper_util::client::legacy::connect::HttpConnector::new();
    http.enforce_http(false);
    let mut connector =
        hyper_timeout::TimeoutConnector::new(config.rustls_https_connector_with_connector(http)?);
    connector.set_connect_timeout(config.connect_timeout);
    connector.set_read_timeout(config.read_timeout);
    connector.set_write_timeout(config.write_timeout);
    connector.set_reset_reader_on_write(config.reset_reader_on_write);
    let mut client = hyper_util::client::legacy::Builder::new(hyper_util::rt::TokioExecutor::new());
    client.http1_max_buf_size(MAX_READ_BUFFER);
    if FEW_IDLE_CONNECTIONS.load(std::sync::atomic::Ordering::Relaxed) {
        client.pool_max_idle_per_host(MAX_IDLE_CONNECTIONS);
    }
    let client = client.build(connector);
    let retry = config
        .default_retry
        .then(|| tower::retry::RetryLayer::new(kube::client::retry::RetryPolicy::server_retry()));
    let service = tower::ServiceBuilder::new()
        .layer(config.base_uri_layer())
        .option_layer(retry)
        .option_layer(config.auth_layer()?)
        .layer(config.extra_headers_layer()?)
        .map_err(tower::BoxError::from)
        .service(client)
        .map_response(|response: http::Response<hyper::body::Incoming>| {
            response.map(|body| {
                Box::new(http_body_util::BodyExt::map_err(
                    body,
                    tower::BoxError::from,
                )) as Box<kube::client::DynBody>
            })
        })
        .boxed();
    Ok(kube::client::ClientBuilder::new(
        service,
        config.default_namespace.clone(),
    ))
}

/// The service kube-rs's `ClientBuilder::try_from` builds, and [`http_stack`] too.
type HttpService = tower::util::BoxService<
    http::Request<kube::client::Body>,
    http::Response<Box<kube::client::DynBody>>,
    tower::BoxError,
>;

/// The server's URL as the kubeconfig gives it: `https://10.0.0.1:6443` (a URI prints a `/`
/// after it).
fn server_text(url: &http::Uri) -> String {
    let text = url.to_string();
    match text.strip_suffix('/') {
        Some(bare) if url.path() == "/" => bare.to_string(),
        _ => text,
    }
}

/// Every object's metadata that `params` selects, a page of 500 at a time. Paginated lists are
/// served from storage while a kind's watch cache is still starting (a CRD created a moment
/// ago), where a plain list is answered with 429 and a one-second Retry-After.
pub(crate) async fn list_metadata_paged(
    api: &kube::Api<kube::core::DynamicObject>,
    params: kube::api::ListParams,
) -> Result<Vec<kube::core::PartialObjectMeta<kube::core::DynamicObject>>, kube::Error> {
    let mut params = params.limit(500);
    let mut items = Vec::new();
    loop {
        let page = api.list_metadata(&params).await?;
        items.extend(page.items);
        match page.metadata.continue_.filter(|c| !c.is_empty()) {
            Some(token) => params = params.continue_token(&token),
            None => return Ok(items),
        }
    }
}
