//! `bosun operator dump|init|remove|run`: the in-cluster operator. The logic lives in the
//! `operator` crate, its render in the `pipeline` library (`operator::render::InlineRender`);
//! this file parses flags, prints, asks, and runs that render in a child process when asked
//! to ([`ChildRender`]).

use std::io::{BufRead, IsTerminal, Write};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Subcommand};
use serde_json::Value;

use crate::mesh::MeshFailure;

/// The field manager of the operator's own install (`operator init`).

#[derive(Subcommand)]
pub enum OperatorCommand {
    /// Print the operator's own install (IstioOperator CRD, namespace, RBAC, Deployment,
    /// Service) as YAML.
    Dump(DeployArgs),
    /// Install the operator into the cluster (server-side apply; the CRD is waited for until
    /// Established).
    Init(InitArgs),
    /// Remove the operator from the cluster (asks first unless -y).
    Remove(RemoveArgs),
    /// Run the controller: reconcile IstioOperator resources until SIGINT/SIGTERM.
    Run(RunArgs),
    /// Render one IstioOperator for `operator run` (a request on stdin, the answer on stdout).
    #[command(hide = true)]
    RenderChild,
}

/// Where `operator run` renders.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenderMode {
    /// In a short-lived child process (`bosun operator render-child`): the chart rendering's
    /// memory (tens of MB at its peak, and the schemas and code it keeps) goes with the child,
    /// so the long-running operator stays small (BENCHMARKS.md).
    Subprocess,
    /// In the operator's own process (no process start per render).
    Inline,
}

#[derive(Args, Debug, Clone)]
pub struct DeployArgs {
    /// The namespace the operator runs in.
    #[arg(long = "operator-namespace", default_value = "istio-operator")]
    pub operator_namespace: String,
    /// Registry of the operator image (`HUB/operator:TAG`; default `localhost/bosun`, where
    /// `scripts/build-operator-image` tags it).
    #[arg(long)]
    pub hub: Option<String>,
    /// Tag of the operator image.
    #[arg(long, default_value = env!("CARGO_PKG_VERSION"))]
    pub tag: String,
    /// The whole operator image reference (overrides --hub and --tag).
    #[arg(long)]
    pub image: Option<String>,
    /// Reconcile only IstioOperators in this namespace (all namespaces by default).
    #[arg(long = "watch-namespace")]
    pub watch_namespace: Option<String>,
    /// A namespace Istio is installed into (repeatable): only there may the operator create
    /// what Istio's Roles grant (istiod's Secrets among them).
    #[arg(long = "istio-namespace", default_value = "istio-system")]
    pub istio_namespaces: Vec<String>,
    /// How many operator replicas run (they elect a leader).
    #[arg(long, default_value_t = 1)]
    pub replicas: u32,
    /// The install package (charts and profiles) directory inside the operator's image.
    #[arg(short = 'd', long = "manifests", default_value = operator::deploy::IMAGE_MANIFESTS)]
    pub manifests: String,
    /// Where the operator fetches the Istio releases IstioOperators name
    /// (`bosun.io/istio-version`): a release mirror's `http(s)://` URL, an OCI registry
    /// (`oci://HOST[:PORT]/REPO`) or an absolute directory in its pod; its BOSUN_ISTIO_MIRROR.
    #[arg(long, value_name = "URL|oci://HOST/REPO|DIR", value_parser = parse_mirror)]
    pub mirror: Option<String>,
    /// Speak to the `oci://` mirror over plain HTTP (helm's --plain-http); its
    /// BOSUN_ISTIO_MIRROR_PLAIN_HTTP.
    #[arg(long = "mirror-plain-http", requires = "mirror")]
    pub mirror_plain_http: bool,
    /// A `kubernetes.io/dockerconfigjson` Secret in the operator's namespace holding the login
    /// for the `oci://` mirror: mounted as the pod's docker config (DOCKER_CONFIG).
    #[arg(long = "mirror-secret", value_name = "SECRET", requires = "mirror", value_parser = parse_secret_name)]
    pub mirror_secret: Option<String>,
    /// Where the operator fetches `istio.io/istio` module versions: Go's GOPROXY list, with
    /// an `http(s)://` module proxy in it (the image has no `go` to fall back on).
    #[arg(long, value_name = "URL", value_parser = parse_goproxy)]
    pub goproxy: Option<String>,
}

/// `--mirror`: what `--mirror` of the other commands takes, but in the operator's pod, so a
/// directory must be absolute and a URL must name a host.
fn parse_mirror(text: &str) -> Result<String, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err(
            "empty; want an http(s):// URL, oci://HOST[:PORT]/REPO or an absolute directory".into(),
        );
    }
    match release::Mirror::parse(text, false).map_err(|e| e.to_string())? {
        release::Mirror::Url(url) => {
            http_url(&url)?;
        }
        release::Mirror::Dir(dir) if !dir.is_absolute() => {
            return Err(format!(
                "{text:?} is neither an http(s):// URL, an oci:// registry nor an absolute directory (the operator's pod has no working directory to resolve it in)"
            ));
        }
        release::Mirror::Dir(_) | release::Mirror::Oci(_) => {}
    }
    Ok(text.to_string())
}

/// An `http(s)://` URL with a host and no spaces.
fn http_url(url: &str) -> Result<(), String> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .ok_or_else(|| format!("{url:?} is not an http(s):// URL"))?;
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    if host.is_empty() || host.starts_with(':') || url.contains(char::is_whitespace) {
        return Err(format!(
            "{url:?}: an http(s):// URL needs a host (and no spaces)"
        ));
    }
    Ok(())
}

/// `--goproxy`: Go's GOPROXY list (`,` or `|` between entries) of `http(s)://` proxies,
/// `direct` and `off`, with at least one proxy: bosun fetches from the first, and the
/// operator's image has no `go` for the others.
fn parse_goproxy(text: &str) -> Result<String, String> {
    let text = text.trim();
    let mut proxies = 0;
    for entry in text.split([',', '|']).map(str::trim) {
        match entry {
            "direct" | "off" => {}
            _ if entry.starts_with("http://") || entry.starts_with("https://") => {
                http_url(entry)?;
                proxies += 1;
            }
            _ => {
                return Err(format!(
                    "{entry:?} is not a module proxy: want http(s):// URLs (or direct, off) separated by , or |"
                ));
            }
        }
    }
    if proxies == 0 {
        return Err(format!(
            "{text:?} names no http(s):// module proxy; the operator fetches module versions only from one"
        ));
    }
    Ok(text.to_string())
}

/// `--mirror-secret`: a Secret's name (a DNS subdomain: lower-case letters, digits, `-` and
/// `.`, starting and ending with a letter or digit, at most 253 characters).
fn parse_secret_name(text: &str) -> Result<String, String> {
    let alnum = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    let valid = !text.is_empty()
        && text.len() <= 253
        && text.chars().all(|c| alnum(c) || c == '-' || c == '.')
        && text
            .split('.')
            .all(|label| label.starts_with(alnum) && label.ends_with(alnum));
    if valid {
        Ok(text.to_string())
    } else {
        Err(format!(
            "{text:?} is not a Secret name (lower-case letters, digits, - and . ; starting and ending with a letter or digit)"
        ))
    }
}

#[derive(Args, Debug)]
pub struct InitArgs {
    #[command(flatten)]
    pub deploy: DeployArgs,
    /// How long the IstioOperator CRD may take to become Established (`30s`, `1m`).
    #[arg(long = "readiness-timeout", default_value = "60s", value_parser = crate::duration::parse_duration)]
    pub readiness_timeout: Duration,
    #[command(flatten)]
    pub cluster: crate::target::ClusterArgs,
}

#[derive(Args, Debug)]
pub struct RemoveArgs {
    /// The namespace the operator runs in.
    #[arg(long = "operator-namespace", default_value = "istio-operator")]
    pub operator_namespace: String,
    /// Do not ask for confirmation (required when stdin is not a terminal).
    #[arg(short = 'y', long = "skip-confirmation")]
    pub yes: bool,
    /// Remove the operator even though IstioOperators exist; they and the CRD are kept.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub cluster: crate::target::ClusterArgs,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// Reconcile only IstioOperators in this namespace (all namespaces by default).
    #[arg(long = "watch-namespace")]
    pub watch_namespace: Option<String>,
    /// The install package (charts and profiles) directory; the pinned release by default.
    #[arg(short = 'd', long = "manifests")]
    pub manifests: Option<String>,
    /// Where `/metrics`, `/healthz` and `/readyz` are served (port 0: any free port, logged).
    #[arg(long = "metrics-addr", default_value = "0.0.0.0:8383")]
    pub metrics_addr: SocketAddr,
    /// Elect a leader through a Lease in this namespace, so that several replicas are safe
    /// (without it, the process assumes it is the only one).
    #[arg(long = "lease-namespace")]
    pub lease_namespace: Option<String>,
    /// This replica's name in the Lease (default: $POD_NAME, else hostname and pid).
    #[arg(long)]
    pub identity: Option<String>,
    /// How long CRDs may take to become Established.
    #[arg(long = "crd-timeout", default_value = "60s", value_parser = crate::duration::parse_duration)]
    pub crd_timeout: Duration,
    /// Where IstioOperators are rendered.
    #[arg(long, value_enum, default_value = "subprocess")]
    pub render: RenderMode,
    /// The cluster to reconcile in (in its pod, the operator uses its service account).
    #[command(flatten)]
    pub cluster: crate::target::ClusterArgs,
}

/// The operator's install as the flags say; `--mirror-plain-http` and `--mirror-secret` are for
/// an `oci://` mirror only (refused with another, before anything is printed or applied).
fn deploy_options(args: &DeployArgs) -> Result<operator::deploy::DeployOptions, MeshFailure> {
    let oci = args
        .mirror
        .as_deref()
        .is_some_and(|m| m.starts_with("oci://"));
    for (given, flag) in [
        (args.mirror_plain_http, "--mirror-plain-http"),
        (args.mirror_secret.is_some(), "--mirror-secret"),
    ] {
        if given && !oci {
            return Err(MeshFailure(format!(
                "{flag} is for an OCI registry mirror: --mirror {:?} is not oci://HOST/REPO",
                args.mirror.as_deref().unwrap_or_default()
            )));
        }
    }
    Ok(operator::deploy::DeployOptions {
        watch_namespace: args.watch_namespace.clone(),
        manifests: Some(args.manifests.clone()).filter(|m| !m.is_empty()),
        istio_namespaces: args.istio_namespaces.clone(),
        replicas: args.replicas,
        sources: operator::deploy::ReleaseSources {
            mirror: args.mirror.clone(),
            mirror_plain_http: args.mirror_plain_http,
            goproxy: args.goproxy.clone(),
            docker_config_secret: args.mirror_secret.clone(),
        },
        ..operator::deploy::DeployOptions::new(
            &args.operator_namespace,
            operator::deploy::image(args.image.as_deref(), args.hub.as_deref(), &args.tag),
        )
    })
}

/// The operator commands; those that talk to the cluster run on `runtime`, whose blocking
/// pool is what `run`'s renders need (see [`crate::runtime`]).
pub fn operator(
    command: OperatorCommand,
    runtime: &crate::runtime::Runtime,
) -> Result<(), MeshFailure> {
    match command {
        OperatorCommand::Dump(args) => dump(&args),
        OperatorCommand::Init(args) => runtime.get()?.block_on(init(args)),
        OperatorCommand::Remove(args) => runtime.get()?.block_on(remove(args)),
        OperatorCommand::Run(args) => runtime.get()?.block_on(run(args)),
        OperatorCommand::RenderChild => render_child(),
    }
}

fn dump(args: &DeployArgs) -> Result<(), MeshFailure> {
    let objects: Vec<manifest::object::Object> =
        operator::deploy::dump_objects(&deploy_options(args)?)
            .into_iter()
            .map(manifest::object::Object::new)
            .collect();
    crate::mesh::write_stdout(&manifest::order::print_objects(&objects))
}

async fn init(args: InitArgs) -> Result<(), MeshFailure> {
    let options = deploy_options(&args.deploy)?;
    let component = vocab::Component {
        name: "Operator".into(),
        display_name: "bosun operator".into(),
        after: Vec::new(),
        objects: operator::deploy::operator_objects(&options),
    };
    let client = args.cluster.client().await?;
    let install = cluster::InstallOptions {
        field_manager: installer::FIELD_MANAGER.into(),
        take_over_from: Vec::new(),
        force: false,
        crd_timeout: args.readiness_timeout,
        readiness_timeout: None,
        wait_for_load_balancers: false,
        owner_labels: None,
        created_namespace_labels: Default::default(),
    };
    let report = client.install(&[component], &install, &|_, _| {}).await?;
    use cluster::Outcome::*;
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(
        stdout,
        "✔ bosun operator installed in namespace {} ({} created, {} configured, {} unchanged)",
        options.namespace,
        report.count(Created),
        report.count(Configured),
        report.count(Unchanged)
    );
    Ok(())
}

fn confirm(question: &str) -> Result<(), MeshFailure> {
    if !std::io::stdin().is_terminal() {
        return Err(MeshFailure(
            "stdin is not a terminal, so the removal cannot be confirmed; pass -y (--skip-confirmation) to remove without asking".into(),
        ));
    }
    let mut stdout = std::io::stdout().lock();
    let _ = write!(stdout, "{question} (y/N) ");
    let _ = stdout.flush();
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|e| MeshFailure(format!("reading the answer: {e}")))?;
    match answer.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" => Ok(()),
        _ => Err(MeshFailure("cancelled".into())),
    }
}

/// Namespaces `operator remove` never deletes, even when `operator init` labelled them.
const PROTECTED_NAMESPACES: [&str; 5] = [
    "default",
    "kube-system",
    "kube-public",
    "kube-node-lease",
    "istio-system",
];

async fn remove(args: RemoveArgs) -> Result<(), MeshFailure> {
    use kube::api::{Api, DynamicObject, ListParams};
    let client = args.cluster.client().await?;
    let ns = args.operator_namespace.as_str();

    // IstioOperators left behind would lose their controller: their finalizers could never
    // run, and deleting the CRD would hang on them.
    let iop_resource = kube::core::ApiResource {
        group: operator::crd::GROUP.into(),
        version: operator::crd::VERSION.into(),
        api_version: format!("{}/{}", operator::crd::GROUP, operator::crd::VERSION),
        kind: operator::crd::KIND.into(),
        plural: operator::crd::PLURAL.into(),
    };
    let iops: Api<DynamicObject> = Api::all_with(client.kube().clone(), &iop_resource);
    let existing: Vec<String> = match iops.list_metadata(&ListParams::default()).await {
        Ok(list) => list
            .items
            .iter()
            .map(|m| {
                format!(
                    "{}/{}",
                    m.metadata.namespace.as_deref().unwrap_or(""),
                    m.metadata.name.as_deref().unwrap_or("")
                )
            })
            .collect(),
        Err(kube::Error::Api(s)) if s.code == 404 => Vec::new(),
        Err(e) => {
            return Err(MeshFailure(format!(
                "listing IstioOperators: {}",
                cluster::describe(&e)
            )));
        }
    };
    if !existing.is_empty() && !args.force {
        return Err(MeshFailure(format!(
            "{} IstioOperator(s) still exist ({}); delete them first so that the operator uninstalls what they own, or pass --force to remove only the operator and keep them and the CRD",
            existing.len(),
            existing.join(", ")
        )));
    }
    if !args.yes {
        let also = if existing.is_empty() {
            " and the IstioOperator CRD"
        } else {
            ""
        };
        confirm(&format!(
            "This will remove the bosun operator from namespace {ns}{also}. Proceed?"
        ))?;
    }

    let name = operator::deploy::OPERATOR_NAME;
    let object =
        |api_version: &str, kind: &str, namespace: Option<&str>, name: &str| vocab::ObjectRef {
            api_version: api_version.into(),
            kind: kind.into(),
            namespace: namespace.map(str::to_string),
            name: name.into(),
        };
    let rbac = "rbac.authorization.k8s.io/v1";
    let mut objects = vec![
        object("apps/v1", "Deployment", Some(ns), name),
        object("v1", "Service", Some(ns), name),
        object(rbac, "RoleBinding", Some(ns), name),
        object(rbac, "Role", Some(ns), name),
        object(rbac, "ClusterRoleBinding", None, name),
        object(rbac, "ClusterRole", None, name),
        object("v1", "ServiceAccount", Some(ns), name),
    ];
    // The RoleBindings in Istio's namespaces that bind this operator's ServiceAccount; the
    // ClusterRole they bind goes with the last operator that uses it.
    let bindings: Api<k8s_openapi::api::rbac::v1::RoleBinding> = Api::all(client.kube().clone());
    let istio_role = operator::deploy::ISTIO_NAMESPACE_ROLE;
    let selector = format!("app.kubernetes.io/name={name}");
    let all_bindings = bindings
        .list(&ListParams::default().labels(&selector))
        .await
        .map_err(|e| {
            MeshFailure(format!(
                "listing the operator's RoleBindings: {}",
                cluster::describe(&e)
            ))
        })?
        .items;
    let mut other_operators = false;
    for b in &all_bindings {
        if b.metadata.name.as_deref() != Some(istio_role) {
            continue;
        }
        let ours = b.subjects.iter().flatten().any(|s| {
            s.kind == "ServiceAccount" && s.namespace.as_deref() == Some(ns) && s.name == name
        });
        if ours {
            objects.insert(
                0,
                object(
                    rbac,
                    "RoleBinding",
                    b.metadata.namespace.as_deref(),
                    istio_role,
                ),
            );
        } else {
            other_operators = true;
        }
    }
    if !other_operators {
        objects.push(object(rbac, "ClusterRole", None, istio_role));
    }
    // The namespace goes only when `operator init` made it ours (its label) and it is not
    // one that others rely on.
    let namespaces: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(client.kube().clone());
    let ours = namespaces
        .get_opt(ns)
        .await
        .map_err(|e| MeshFailure(format!("reading namespace {ns}: {}", cluster::describe(&e))))?
        .is_some_and(|n| {
            n.metadata
                .labels
                .unwrap_or_default()
                .get("app.kubernetes.io/part-of")
                .map(String::as_str)
                == Some("bosun-operator")
        });
    if ours && !PROTECTED_NAMESPACES.contains(&ns) {
        objects.push(object("v1", "Namespace", None, ns));
    }
    if existing.is_empty() {
        objects.push(object(
            "apiextensions.k8s.io/v1",
            "CustomResourceDefinition",
            None,
            operator::crd::CRD_NAME,
        ));
    }
    let deleted = operator::remove::delete_objects(&client, &objects).await?;
    let mut stdout = std::io::stdout().lock();
    for o in &deleted {
        let _ = writeln!(stdout, "✔ deleted {o}");
    }
    let _ = writeln!(
        stdout,
        "✔ bosun operator removed ({} object(s) deleted)",
        deleted.len()
    );
    Ok(())
}

/// The pipeline's render for the cluster `facts` describe, the pinned release fetched into
/// bosun's cache if no install package is given.
fn inline_render(
    manifests: Option<String>,
    facts: &vocab::ClusterFacts,
) -> operator::render::InlineRender {
    operator::render::InlineRender {
        manifests,
        locate: Arc::new(|| crate::release::manifests_dir().map_err(Into::into)),
        detected: crate::mesh::detected(facts),
    }
}

/// The catalog and the packages for the Istio versions IstioOperators name: what `--version`
/// uses (`BOSUN_CATALOG`, `BOSUN_CACHE`, `BOSUN_ISTIO_MIRROR`, `GOPROXY`); a mirror setting
/// that is not one stops the operator at its start.
fn versions() -> Result<operator::version::Versions, MeshFailure> {
    let catalog = crate::release::catalog().map_err(MeshFailure)?;
    let sources = crate::release::sources(None).map_err(MeshFailure)?;
    let packages = match crate::release::cache_dir() {
        Some(_) => crate::release::packages(sources).map_err(MeshFailure)?,
        // Neither BOSUN_CACHE nor HOME (the image run without its Deployment's environment):
        // the temporary directory, as the Deployment's BOSUN_CACHE=/tmp/bosun. The operator
        // must not fail to start for a cache only an IstioOperator naming a version uses.
        None => release::Packages {
            cache: release::Cache {
                root: std::env::temp_dir().join("bosun"),
            },
            sources,
            limits: release::archive::Limits::default(),
        },
    };
    Ok(operator::version::Versions::new(catalog, packages))
}

fn default_identity() -> String {
    if let Some(pod) = std::env::var("POD_NAME").ok().filter(|p| !p.is_empty()) {
        return pod;
    }
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "bosun".into());
    format!("{host}-{}", std::process::id())
}

async fn run(args: RunArgs) -> Result<(), MeshFailure> {
    // A process that lives on keeps few idle connections (their buffers would decide its
    // memory: `cluster::keep_few_idle_connections`) and no shared lists between reconciles
    // (`cluster::Client::without_shared_lists`): they would hold whole objects for nothing.
    cluster::keep_few_idle_connections();
    let client = args.cluster.client().await?.without_shared_lists();
    let lease = args.lease_namespace.as_deref().map(|ns| {
        let identity = args.identity.clone().unwrap_or_else(default_identity);
        operator::lease::LeaseOptions::new(ns, operator::deploy::LEASE_NAME, &identity)
    });
    // Read once: the version and CNI settings of a running cluster rarely change, and every
    // reconcile would otherwise read them again.
    let facts = client.cluster_facts().await?;
    let v = &facts.version;
    let kubernetes = assess::precheck::KubernetesVersion {
        git_version: v.git_version.clone(),
        major: v.major.clone(),
        minor: v.minor.clone(),
    }
    .judged();
    let options = operator::controller::RunOptions {
        watch_namespace: args.watch_namespace,
        metrics_addr: args.metrics_addr,
        lease,
        crd_timeout: args.crd_timeout,
        versions: Some(Arc::new(versions()?)),
        kubernetes,
    };
    let render: Arc<dyn operator::Render> = match args.render {
        RenderMode::Inline => Arc::new(inline_render(args.manifests, &facts)),
        RenderMode::Subprocess => Arc::new(ChildRender {
            exe: own_executable()?,
            manifests: args.manifests,
            facts: facts_json(&facts),
        }),
    };
    operator::controller::run(client, render, options).await?;
    Ok(())
}

/// This executable, to start render children with: `/proc/self/exe`, else `argv[0]` when it
/// is a path (a chroot without /proc).
fn own_executable() -> Result<std::path::PathBuf, MeshFailure> {
    std::env::current_exe().or_else(|e| {
        std::env::args_os()
            .next()
            .map(std::path::PathBuf::from)
            .filter(|p| p.is_absolute() && p.is_file())
            .ok_or_else(|| MeshFailure(format!("finding this executable to render with: {e}")))
    })
}

/// The cluster facts a render needs, as the render child reads them.
fn facts_json(facts: &vocab::ClusterFacts) -> Value {
    serde_json::json!({
        "version": serde_json::to_value(&facts.version).unwrap_or(Value::Null),
        "calicoFelix": facts.calico_felix,
        "ciliumConfig": facts.cilium_config,
    })
}

fn facts_from_json(json: &Value) -> Result<vocab::ClusterFacts, String> {
    Ok(vocab::ClusterFacts {
        version: serde_json::from_value(json["version"].clone())
            .map_err(|e| format!("the cluster version: {e}"))?,
        calico_felix: Some(json["calicoFelix"].clone()).filter(|v| !v.is_null()),
        cilium_config: serde_json::from_value(json["ciliumConfig"].clone())
            .map_err(|e| format!("the Cilium settings: {e}"))?,
    })
}

/// Renders each IstioOperator in a child process (`bosun operator render-child`), which runs
/// [`operator::render::InlineRender`]: the same render, whose memory is returned when the
/// child exits.
struct ChildRender {
    exe: std::path::PathBuf,
    manifests: Option<String>,
    facts: Value,
}

impl operator::Render for ChildRender {
    fn render(
        &self,
        iop: &Value,
        package: Option<&std::path::Path>,
        helm_releases: bool,
    ) -> Result<operator::Rendered, operator::RenderError> {
        use operator::RenderError;
        use std::process::{Command, Stdio};
        // The package of the version the IstioOperator names replaces the operator's own.
        let manifests = package
            .map(|p| p.display().to_string())
            .or_else(|| self.manifests.clone());
        let request = serde_json::json!({
            "iop": iop, "manifests": manifests, "facts": self.facts, "helmReleases": helm_releases,
        });
        let failed = |what: String| RenderError::Failed(format!("the render process: {what}"));
        let mut child = Command::new(&self.exe)
            .args(["operator", "render-child"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| failed(format!("starting {}: {e}", self.exe.display())))?;
        // The child reads the whole request before it writes anything, so writing first and
        // reading after cannot block on a full pipe.
        if let Some(mut stdin) = child.stdin.take() {
            stdin
                .write_all(request.to_string().as_bytes())
                .map_err(|e| failed(format!("sending the request: {e}")))?;
        }
        let out = child
            .wait_with_output()
            .map_err(|e| failed(format!("waiting for it: {e}")))?;
        if !out.status.success() {
            return Err(failed(format!(
                "{}: {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        let answer: Value = serde_json::from_slice(&out.stdout)
            .map_err(|e| failed(format!("reading its answer: {e}")))?;
        if let Some(messages) = answer.get("invalid") {
            return Err(RenderError::Invalid(
                serde_json::from_value(messages.clone()).unwrap_or_default(),
            ));
        }
        if let Some(message) = answer.get("failed").and_then(Value::as_str) {
            return Err(RenderError::Failed(message.to_string()));
        }
        let rendered = &answer["rendered"];
        let components = rendered["components"]
            .as_array()
            .ok_or_else(|| failed("an answer without components".into()))?
            .iter()
            .map(|c| vocab::Component {
                name: c["name"].as_str().unwrap_or("").to_string(),
                display_name: c["displayName"].as_str().unwrap_or("").to_string(),
                after: serde_json::from_value(c["after"].clone()).unwrap_or_default(),
                objects: c["objects"].as_array().cloned().unwrap_or_default(),
            })
            .collect();
        Ok(operator::Rendered {
            namespace_labels: serde_json::from_value(rendered["namespaceLabels"].clone())
                .map_err(|e| failed(format!("reading its namespace labels: {e}")))?,
            components,
            warnings: serde_json::from_value(rendered["warnings"].clone()).unwrap_or_default(),
            version: rendered["version"].as_str().unwrap_or_default().to_string(),
            helm_releases: match rendered.get("helmReleases") {
                None | Some(Value::Null) => None,
                Some(drafts) => Some(
                    serde_json::from_value(drafts.clone())
                        .map_err(|e| failed(format!("reading its Helm release drafts: {e}")))?,
                ),
            },
        })
    }
}

/// `bosun operator render-child`: one render for [`ChildRender`].
fn render_child() -> Result<(), MeshFailure> {
    use std::io::Read;
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| MeshFailure(format!("reading the render request: {e}")))?;
    let request: Value = serde_json::from_str(&text)
        .map_err(|e| MeshFailure(format!("reading the render request: {e}")))?;
    let facts = facts_from_json(&request["facts"]).map_err(MeshFailure)?;
    let render = inline_render(request["manifests"].as_str().map(str::to_string), &facts);
    let helm_releases = request["helmReleases"].as_bool().unwrap_or(false);
    let answer = match operator::Render::render(&render, &request["iop"], None, helm_releases) {
        Ok(rendered) => serde_json::json!({"rendered": {
            "components": rendered.components.iter().map(|c| serde_json::json!({
                "name": c.name, "displayName": c.display_name, "after": c.after,
                "objects": c.objects,
            })).collect::<Vec<_>>(),
            "warnings": rendered.warnings,
            "version": rendered.version,
            "helmReleases": rendered.helm_releases,
            "namespaceLabels": rendered.namespace_labels,
        }}),
        Err(operator::RenderError::Invalid(messages)) => serde_json::json!({"invalid": messages}),
        Err(operator::RenderError::Failed(message)) => serde_json::json!({"failed": message}),
    };
    crate::mesh::write_stdout(&answer.to_string())
}
