//! `mesh install`: one Istio mesh over several clusters (multi-primary, one network or several,
//! or primary-remote), every check first, then each cluster installed through the same path as
//! `install` ([`crate::Install::apply`]), side by side, then remote secrets in every direction
//! (remote→primary only for a remote).
//!
//! A target cluster is data: a context's [`cluster::Client`] and its facts ([`Connected`]). The
//! stages, each a function the command line calls in turn:
//! 1. [`members`] (pure): the `--context`, `--cluster-name`, `--network` and `--server` flags
//!    as one [`Member`] per context; flags naming a context not given, a context twice, a name
//!    that is not a DNS-1123 label, networks for some clusters only, are refused here.
//!    [`remotes`] (pure) marks the `--remote` contexts (at least one primary stays).
//! 2. [`connect`]: a client per context, each API server asked for its version (all at once);
//!    every context that does not exist or does not answer is named. With remotes,
//!    [`remote_control`] picks the primary (the first non-remote) and the address the remotes
//!    reach its istiod at (given, or on one network its node's, read from the node list).
//! 3. [`render`] (no request): each cluster's inputs rendered, with `values.global.meshID`,
//!    `values.global.multiCluster.clusterName` and `values.global.network` per cluster (the
//!    flags win over the files; the defaults, `mesh1` and the context's name, lose to them),
//!    and for a multi-network mesh the east-west gateway's IstioOperator
//!    ([`manifest::eastwest`]); with remotes ([`render_with_remotes`]) each primary gets
//!    `values.global.externalIstiod` and each remote the `remote` profile, its injection path
//!    and `values.global.remotePilotAddress` ([`manifest::primary_remote`]). Then the rendered
//!    values are judged: one mesh ID, unique cluster names.
//! 4. [`prepare`] (reads only): each cluster's install prepared and refused as `install`
//!    refuses (release policy, injector overlaps, CRD downgrades), and the `cacerts` roots
//!    judged ([`judge_roots`]): all clusters share one, or the CA given makes them share one
//!    (the primaries only: a remote's workloads get certificates from the primary's istiod).
//! 5. [`Prepared::plan`] (server-side dry runs) or [`Prepared::install`]: per cluster the
//!    Istio namespace with its network label and `cacerts`, the install, the east-west gateway
//!    and its `cross-network-gateway`; a remote's namespace annotated with its primary, the
//!    primary's istiod exposed to the remotes; once every cluster is installed, each cluster's
//!    remote secret ([`crate::remote_secret`]) applied in every other primary. A cluster that fails
//!    does not stop the others; the secrets are then not exchanged, and the report says which
//!    cluster failed, which were installed, and that running the command again converges.

use std::collections::BTreeMap;
use std::fmt;

use futures::future::join_all;
use manifest::remote_secret::{Auth, Options, SecretType};
use serde_json::Value;

use crate::{Error, FIELD_MANAGER, Install, Refusal};

/// The mesh ID when neither `--mesh-id` nor the inputs give one (Istio's multi-cluster docs').
pub const DEFAULT_MESH_ID: &str = "mesh1";
/// The namespace label that gives a cluster's default network.
pub use vocab::labels::NETWORK_LABEL;

/// One cluster of the mesh, from the flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The kubeconfig context.
    pub context: String,
    /// `--cluster-name CONTEXT=NAME`; None: the context's name, unless the inputs set one.
    pub cluster_name: Option<String>,
    /// `--network CONTEXT=NET`.
    pub network: Option<String>,
    /// `--server CONTEXT=URL`: the API server as the other clusters reach it (the remote
    /// secret's), when not the kubeconfig's.
    pub server: Option<String>,
    /// `--remote CONTEXT`: a remote of the mesh's primary (the `remote` profile, no istiod of
    /// its own; see [`remotes`]).
    pub remote: bool,
}

/// Why the mesh cannot be installed as asked. Every one is found before the first write.
#[derive(Debug, thiserror::Error)]
pub enum MeshError {
    #[error("a mesh needs at least two clusters: give --context for each (got {0})")]
    TooFewContexts(usize),
    #[error("context {0:?} is given twice")]
    ContextTwice(String),
    #[error("{flag} {text:?}: expected CONTEXT=VALUE")]
    NotAPair { flag: &'static str, text: String },
    #[error("{flag} {context}=…: {context:?} is not one of the --context values ({})", given.join(", "))]
    UnknownContext {
        flag: &'static str,
        context: String,
        given: Vec<String>,
    },
    #[error("{flag} is given twice for context {context:?}")]
    FlagTwice { flag: &'static str, context: String },
    #[error(
        "context {context:?}: cluster name {name:?} is not a DNS-1123 label (lower-case letters, digits and '-', at most 63)"
    )]
    InvalidClusterName { context: String, name: String },
    #[error(
        "context {context:?} is not a DNS-1123 label, so it cannot name its cluster: pass --cluster-name {context}=NAME"
    )]
    ContextNotAName { context: String },
    #[error("--network is given for {} but not for {}: give every cluster its network, or none (one network)", given.join(", "), missing.join(", "))]
    NetworksPartial {
        given: Vec<String>,
        missing: Vec<String>,
    },
    /// Failures of single clusters (unreachable, not rendered, refused), each named.
    #[error("{}", ClusterFailures(.0))]
    Clusters(Vec<ClusterFailure>),
    #[error(
        "contexts {first:?} and {second:?} both name their cluster {name:?}: each cluster of a mesh needs its own name (--cluster-name CONTEXT=NAME)"
    )]
    DuplicateClusterName {
        name: String,
        first: String,
        second: String,
    },
    #[error("the clusters would get different mesh IDs ({}): a mesh has one (--mesh-id)", pairs(.0))]
    MeshIds(Vec<(String, String)>),
    #[error(
        "no cluster has a Secret {namespace}/cacerts: each istiod would make its own root CA and no cluster would trust another's workloads; make a shared one with `bosun mesh ca --cluster NAME… --out DIR` and pass --ca DIR"
    )]
    NoSharedRoot { namespace: String },
    #[error("{} {} a Secret {namespace}/cacerts but {} {} not: give every cluster an intermediate of the same root (`bosun mesh cacerts`), or pass --ca DIR", with.join(", "), have(with.len()), without.join(", "), have_not(without.len()))]
    SomeWithoutRoot {
        namespace: String,
        with: Vec<String>,
        without: Vec<String>,
    },
    #[error("the clusters' Secrets {namespace}/cacerts hold different root CAs ({}): they would not trust each other's workloads; give them intermediates of one root (`bosun mesh cacerts --force` replaces one)", groups.iter().map(|g| g.join(" and ")).collect::<Vec<_>>().join(" / "))]
    DifferentRoots {
        namespace: String,
        groups: Vec<Vec<String>>,
    },
    #[error(
        "context {context:?}: Secret {namespace}/cacerts holds another root CA than --ca's: replacing it would cut the cluster off from every cluster that trusts the old one; replace it on purpose with `bosun mesh cacerts --force`, or use that root"
    )]
    ForeignRoot { context: String, namespace: String },
    #[error(
        "--ca: the CA files of cluster {cluster:?} (context {context:?}) have another root than the others'"
    )]
    CaRootsDiffer { cluster: String, context: String },
    #[error("--remote {context}: {context:?} is not one of the --context values ({})", given.join(", "))]
    UnknownRemote { context: String, given: Vec<String> },
    #[error(
        "--cluster-file {context}=-: a cluster's own file cannot be stdin (pass -f - for the shared inputs)"
    )]
    ClusterFileStdin { context: String },
    #[error("{0}")]
    ClusterFileSetsMeshValue(Box<ClusterFileConflict>),
    #[error("--remote {0}: the context is named twice")]
    RemoteTwice(String),
    #[error(
        "every context is a --remote: a primary-remote mesh needs at least one primary (a --context that is not --remote) to run the istiod the remotes use"
    )]
    NoPrimary,
    #[error(
        "the remotes reach the primary {primary:?} on another network, through its east-west gateway: pass --remote-pilot-address with the gateway's external address (its Service's load balancer IP or hostname)"
    )]
    PilotAddressNeeded { primary: String },
    #[error(
        "context {context:?}: no node has an InternalIP address, so the remotes cannot reach its istiod on the node network: pass --remote-pilot-address"
    )]
    NoNodeAddress { context: String },
    #[error("--remote-pilot-address is for a primary-remote mesh: give --remote CONTEXT too")]
    PilotAddressWithoutRemote,
    #[error("--remote-pilot-address {0:?} is not an IP address or a DNS name")]
    InvalidPilotAddress(String),
    #[error(
        "the clusters would run different Istio install packages ({}): a mesh is installed with one (--version or --manifests, for all clusters); to move a mesh to another Istio cluster by cluster, run `bosun install` or `bosun upgrade --canary` in each",
        .0.iter().map(|p| format!("{}: Istio {} from {}", p.context, p.version, p.dir.display())).collect::<Vec<_>>().join("; ")
    )]
    MixedPackages(Vec<MemberPackage>),
    #[error(
        "context {context:?} (a --remote): the inputs name its cluster {rendered:?}, but its injection path was made for {expected:?}: pass --cluster-name {context}=NAME"
    )]
    RemoteNameFromInputs {
        context: String,
        rendered: String,
        expected: String,
    },
    #[error(
        "context {context:?}: the remote secret {secret} also holds the cluster(s) {} that stay connected: deleting it would cut them off too; remove its keys for {} by hand",
        staying.join(", "), leaving.join(", ")
    )]
    SharedRemoteSecret {
        context: String,
        secret: String,
        leaving: Vec<String>,
        staying: Vec<String>,
    },
}

/// A `--cluster-file` that sets one of the mesh's own settings to another value.
#[derive(Debug, thiserror::Error)]
#[error(
    "--cluster-file {context}={file}: {field} is {found:?}, but the mesh sets it to {value:?} (from {from}) and its value would win: remove the field from the file"
)]
pub struct ClusterFileConflict {
    pub context: String,
    pub file: String,
    /// The IstioOperator path (`spec.values.global.network`).
    pub field: String,
    /// The file's value.
    pub found: String,
    /// The mesh's value, and the flag or role it comes from.
    pub value: String,
    pub from: String,
}

fn have(n: usize) -> &'static str {
    if n == 1 { "has" } else { "have" }
}
fn have_not(n: usize) -> &'static str {
    if n == 1 { "does" } else { "do" }
}
fn pairs(p: &[(String, String)]) -> String {
    p.iter()
        .map(|(c, v)| format!("{c}: {v:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The install package a member's render used: its Istio version and its directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberPackage {
    pub context: String,
    pub version: String,
    pub dir: std::path::PathBuf,
}

/// One install package for every member (two snapshots may name one Istio version, so the
/// directories are compared, not only the versions). Pure.
pub fn judge_packages(packages: &[MemberPackage]) -> Result<(), MeshError> {
    match packages.first() {
        Some(first) if packages.iter().any(|p| p.dir != first.dir) => {
            Err(MeshError::MixedPackages(packages.to_vec()))
        }
        _ => Ok(()),
    }
}

/// What went wrong in one cluster.
#[derive(Debug)]
pub struct ClusterFailure {
    pub context: String,
    pub error: ClusterError,
}

#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    #[error(transparent)]
    Cluster(#[from] cluster::Error),
    #[error(transparent)]
    Render(#[from] pipeline::Error),
    #[error(transparent)]
    Installer(#[from] Error),
    #[error("{0}")]
    Refused(Refusal),
    #[error(transparent)]
    Options(#[from] manifest::remote_secret::OptionsError),
}

struct ClusterFailures<'a>(&'a [ClusterFailure]);

impl fmt::Display for ClusterFailures<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, failure) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "context {}: {}", failure.context, failure.error)?;
        }
        Ok(())
    }
}

/// One `CONTEXT=VALUE` flag split, its context one of those given.
fn context_pair<'t>(
    flag: &'static str,
    text: &'t str,
    contexts: &[String],
) -> Result<(&'t str, &'t str), MeshError> {
    let (context, value) = text
        .split_once('=')
        .filter(|(c, v)| !c.is_empty() && !v.is_empty())
        .ok_or_else(|| MeshError::NotAPair {
            flag,
            text: text.to_string(),
        })?;
    if !contexts.iter().any(|c| c == context) {
        return Err(MeshError::UnknownContext {
            flag,
            context: context.to_string(),
            given: contexts.to_vec(),
        });
    }
    Ok((context, value))
}

/// `CONTEXT=VALUE` flags read into a map, each context a given one and named once.
fn per_context(
    flag: &'static str,
    texts: &[String],
    contexts: &[String],
) -> Result<BTreeMap<String, String>, MeshError> {
    let mut out = BTreeMap::new();
    for text in texts {
        let (context, value) = context_pair(flag, text, contexts)?;
        if out.insert(context.to_string(), value.to_string()).is_some() {
            return Err(MeshError::FlagTwice {
                flag,
                context: context.to_string(),
            });
        }
    }
    Ok(out)
}

fn is_label(name: &str) -> bool {
    manifest::remote_secret::validate_name(name).is_ok()
}

/// The flags as one [`Member`] per context (see the module's documentation for what is
/// refused). Pure.
pub fn members(
    contexts: &[String],
    cluster_names: &[String],
    networks: &[String],
    servers: &[String],
) -> Result<Vec<Member>, MeshError> {
    if contexts.len() < 2 {
        return Err(MeshError::TooFewContexts(contexts.len()));
    }
    for (i, c) in contexts.iter().enumerate() {
        if contexts[..i].contains(c) {
            return Err(MeshError::ContextTwice(c.clone()));
        }
    }
    let mut names = per_context("--cluster-name", cluster_names, contexts)?;
    let mut nets = per_context("--network", networks, contexts)?;
    let mut urls = per_context("--server", servers, contexts)?;
    if !nets.is_empty() && nets.len() != contexts.len() {
        return Err(MeshError::NetworksPartial {
            given: contexts
                .iter()
                .filter(|c| nets.contains_key(*c))
                .cloned()
                .collect(),
            missing: contexts
                .iter()
                .filter(|c| !nets.contains_key(*c))
                .cloned()
                .collect(),
        });
    }
    let mut out = Vec::new();
    for context in contexts {
        let cluster_name = names.remove(context);
        match &cluster_name {
            Some(name) if !is_label(name) => {
                return Err(MeshError::InvalidClusterName {
                    context: context.clone(),
                    name: name.clone(),
                });
            }
            None if !is_label(context) => {
                return Err(MeshError::ContextNotAName {
                    context: context.clone(),
                });
            }
            _ => {}
        }
        out.push(Member {
            context: context.clone(),
            cluster_name,
            network: nets.remove(context),
            server: urls.remove(context),
            remote: false,
        });
    }
    Ok(out)
}

/// Marks the `--remote` contexts of `members` (primary-remote): each must be a given context,
/// named once, and at least one member must stay a primary. Pure.
pub fn remotes(mut members: Vec<Member>, remotes: &[String]) -> Result<Vec<Member>, MeshError> {
    for (i, r) in remotes.iter().enumerate() {
        if remotes[..i].contains(r) {
            return Err(MeshError::RemoteTwice(r.clone()));
        }
        match members.iter_mut().find(|m| &m.context == r) {
            Some(m) => m.remote = true,
            None => {
                return Err(MeshError::UnknownRemote {
                    context: r.clone(),
                    given: members.iter().map(|m| m.context.clone()).collect(),
                });
            }
        }
    }
    if !members.is_empty() && members.iter().all(|m| m.remote) {
        return Err(MeshError::NoPrimary);
    }
    Ok(members)
}

/// How the remotes reach the primary's istiod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exposure {
    /// One network, no address given: a Service with the primary's node address as its
    /// external IP ([`manifest::primary_remote::exposed_istiod_service`]).
    NodeAddress,
    /// Another network: `expose-istiod.yaml` on the primary's east-west gateway, at the
    /// address given.
    EastWestGateway,
    /// One network, the address given (`--remote-pilot-address`): nothing is applied for it.
    Given,
}

/// A primary-remote mesh's control plane: which member leads the remotes and where they reach
/// its istiod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteControl {
    /// The primary's index among the members (the first member that is not a remote).
    pub primary: usize,
    /// `values.global.remotePilotAddress` of every remote.
    pub address: String,
    pub exposure: Exposure,
}

/// Whether `address` can be `global.remotePilotAddress`: an IPv4 or IPv6 address (an
/// EndpointSlice of it) or a DNS name (an ExternalName Service).
fn valid_address(address: &str) -> bool {
    address.parse::<std::net::IpAddr>().is_ok()
        || (!address.is_empty()
            && address.len() <= 253
            && address.split('.').all(|l| {
                !l.is_empty()
                    && l.len() <= 63
                    && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                    && !l.starts_with('-')
                    && !l.ends_with('-')
            }))
}

/// The remotes' control plane (None: no member is a remote). The primary is the first member
/// that is not a remote. With `pilot_address` the remotes use it (on another network it must
/// be the primary's east-west gateway's, where `expose-istiod.yaml` passes istiod's ports
/// through); without it, on one network, the primary's first ready node's InternalIP, where a
/// Service with that external IP exposes istiod (reads only: the node list).
pub async fn remote_control(
    connected: &[Connected],
    pilot_address: Option<&str>,
) -> Result<Option<RemoteControl>, MeshError> {
    if !connected.iter().any(|c| c.member.remote) {
        return match pilot_address {
            Some(_) => Err(MeshError::PilotAddressWithoutRemote),
            None => Ok(None),
        };
    }
    let Some(primary) = connected.iter().position(|c| !c.member.remote) else {
        return Err(MeshError::NoPrimary);
    };
    let mut networks: Vec<&Option<String>> = connected.iter().map(|c| &c.member.network).collect();
    networks.sort();
    networks.dedup();
    let multi_network = networks.len() > 1;
    let context = &connected[primary].member.context;
    if let Some(address) = pilot_address {
        if !valid_address(address) {
            return Err(MeshError::InvalidPilotAddress(address.to_string()));
        }
        return Ok(Some(RemoteControl {
            primary,
            address: address.to_string(),
            exposure: if multi_network {
                Exposure::EastWestGateway
            } else {
                Exposure::Given
            },
        }));
    }
    if multi_network {
        return Err(MeshError::PilotAddressNeeded {
            primary: context.clone(),
        });
    }
    let nodes = connected[primary]
        .client
        .node_addresses()
        .await
        .map_err(|e| {
            MeshError::Clusters(vec![ClusterFailure {
                context: context.clone(),
                error: e.into(),
            }])
        })?;
    let address = nodes
        .into_iter()
        .find_map(|(_, a)| a.into_iter().next())
        .ok_or_else(|| MeshError::NoNodeAddress {
            context: context.clone(),
        })?;
    Ok(Some(RemoteControl {
        primary,
        address,
        exposure: Exposure::NodeAddress,
    }))
}

/// A member whose API server answered: the target, as data.
#[derive(Clone)]
pub struct Connected {
    pub member: Member,
    pub client: cluster::Client,
    pub facts: vocab::ClusterFacts,
}

/// A client for each member's context (of `base`'s kubeconfig files, with its request
/// timeout), each API server asked for its facts, all at once. Every failure is named.
pub async fn connect(
    members: Vec<Member>,
    base: &cluster::Target,
) -> Result<Vec<Connected>, MeshError> {
    let tries = members.into_iter().map(|member| async move {
        let target = cluster::Target {
            context: Some(member.context.clone()),
            ..base.clone()
        };
        let made = async {
            let client = cluster::Client::connect(&target).await?;
            let facts = client.cluster_facts().await?;
            Ok::<_, cluster::Error>((client, facts))
        }
        .await;
        match made {
            Ok((client, facts)) => Ok(Connected {
                member,
                client,
                facts,
            }),
            Err(e) => Err(ClusterFailure {
                context: member.context,
                error: e.into(),
            }),
        }
    });
    let (connected, failed) = split(join_all(tries).await);
    if failed.is_empty() {
        Ok(connected)
    } else {
        Err(MeshError::Clusters(failed))
    }
}

fn split<T, E>(results: Vec<Result<T, E>>) -> (Vec<T>, Vec<E>) {
    let mut ok = Vec::new();
    let mut err = Vec::new();
    for r in results {
        match r {
            Ok(t) => ok.push(t),
            Err(e) => err.push(e),
        }
    }
    (ok, err)
}

/// What every cluster renders from: the command line's inputs (files read), and the mesh ID.
pub struct MeshInputs {
    pub inputs: pipeline::Inputs,
    /// `--cluster-file CONTEXT=FILE`, read: each context's own IstioOperator files, in the
    /// order given, laid over the shared files (`inputs.files`) for that cluster only and
    /// under the shared `--set` flags and the mesh's own settings ([`mesh_settings`]). A file
    /// that sets one of the mesh's settings to another value is refused
    /// ([`judge_cluster_files`]).
    pub cluster_files: BTreeMap<String, Vec<iop::merge::InputFile>>,
    /// `--mesh-id`; None: the inputs' `values.global.meshID`, else [`DEFAULT_MESH_ID`].
    pub mesh_id: Option<String>,
    /// Validation errors as warnings (`--force`).
    pub force: bool,
    /// istioctl's `AUTO_GKE_DETECTION`.
    pub gke_detection: bool,
}

/// One cluster's renders and the mesh values they hold.
pub struct MemberRendered {
    pub main: pipeline::Rendered,
    /// The east-west gateway's install (a multi-network mesh only).
    pub eastwest: Option<pipeline::Rendered>,
    pub mesh_id: String,
    pub cluster_name: String,
    pub network: Option<String>,
}

/// [`render`]'s answer: what the pipeline said for each context, and the renders or the first
/// failure.
pub struct Renders {
    pub diagnostics: Vec<(String, Vec<pipeline::Diagnostic>)>,
    pub result: Result<Vec<MemberRendered>, RenderFailure>,
}

#[derive(Debug, thiserror::Error)]
pub enum RenderFailure {
    /// The context's inputs did not render.
    #[error("context {context}: {error}")]
    Pipeline {
        context: String,
        #[source]
        error: pipeline::Error,
    },
    /// The rendered values break the mesh (mesh IDs, cluster names).
    #[error(transparent)]
    Mesh(#[from] MeshError),
}

/// `--cluster-file CONTEXT=FILE` flags as (context, file) pairs in the order given (a context
/// may have several files; each context must be a given one). Pure.
pub fn cluster_file_flags(
    texts: &[String],
    contexts: &[String],
) -> Result<Vec<(String, String)>, MeshError> {
    let flag = "--cluster-file";
    let mut out = Vec::new();
    for text in texts {
        let (context, file) = context_pair(flag, text, contexts)?;
        if file == "-" {
            return Err(MeshError::ClusterFileStdin {
                context: context.to_string(),
            });
        }
        out.push((context.to_string(), file.to_string()));
    }
    Ok(out)
}

/// One value the mesh sets in a member's render itself, after every input (a `--set` path,
/// its value, and the flag or role it comes from).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeshSetting {
    pub path: String,
    pub value: String,
    pub from: String,
}

/// The values the mesh sets in `member`'s render after its inputs: `--mesh-id`,
/// `--cluster-name`, `--network` when given (without them the inputs' values, else the
/// defaults, stand), and in a primary-remote mesh (`control`) a primary's
/// `values.global.externalIstiod`, a remote's `remote` profile, injection path and
/// `values.global.remotePilotAddress`. Pure.
pub fn mesh_settings(
    member: &Member,
    mesh_id: Option<&str>,
    control: Option<&RemoteControl>,
) -> Vec<MeshSetting> {
    let setting = |path: &str, value: &str, from: String| MeshSetting {
        path: path.to_string(),
        value: value.to_string(),
        from,
    };
    let mut out = Vec::new();
    if let Some(id) = mesh_id {
        out.push(setting(
            "values.global.meshID",
            id,
            format!("--mesh-id {id}"),
        ));
    }
    if let Some(name) = &member.cluster_name {
        out.push(setting(
            "values.global.multiCluster.clusterName",
            name,
            format!("--cluster-name {}={name}", member.context),
        ));
    }
    if let Some(net) = &member.network {
        out.push(setting(
            "values.global.network",
            net,
            format!("--network {}={net}", member.context),
        ));
    }
    if let Some(control) = control {
        if member.remote {
            let name = member.cluster_name.as_deref().unwrap_or(&member.context);
            let path = manifest::primary_remote::injection_path(name, member.network.as_deref());
            let from = format!("--remote {}", member.context);
            out.push(setting("profile", "remote", from.clone()));
            out.push(setting(
                "values.istiodRemote.injectionPath",
                &path,
                from.clone(),
            ));
            out.push(setting(
                "values.global.remotePilotAddress",
                &control.address,
                from,
            ));
        } else {
            out.push(setting(
                "values.global.externalIstiod",
                "true",
                "--remote: a primary leads the remotes".to_string(),
            ));
        }
    }
    out
}

/// A scalar of an IstioOperator file as `--set` would write it.
fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        // YAML numbers come as float64 (sigs.k8s.io/yaml's JSON): 7 is 7, not 7.0.
        Value::Number(n) => Some(match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
            _ => n.to_string(),
        }),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

/// Refuses a `--cluster-file` of `context` that sets one of the mesh's own settings
/// ([`mesh_settings`]) to another value: the mesh's value would silently win. Each document of
/// each file is read; one that does not parse is left to the render, which names its error.
/// Pure.
pub fn judge_cluster_files(
    context: &str,
    files: &[iop::merge::InputFile],
    settings: &[MeshSetting],
) -> Result<(), MeshError> {
    for file in files {
        for map in file.maps() {
            let Some(spec) = map.get("spec") else {
                continue;
            };
            for s in settings {
                let found = s
                    .path
                    .split('.')
                    .try_fold(spec, |v, key| v.get(key))
                    .and_then(scalar_text);
                if let Some(found) = found
                    && found != s.value
                {
                    return Err(MeshError::ClusterFileSetsMeshValue(Box::new(
                        ClusterFileConflict {
                            context: context.to_string(),
                            file: file.name.clone(),
                            field: format!("spec.{}", s.path),
                            found,
                            value: s.value.clone(),
                            from: s.from.clone(),
                        },
                    )));
                }
            }
        }
    }
    Ok(())
}

/// The defaults a member's render starts from, as an IstioOperator file below the inputs'.
fn defaults_file(member: &Member, mesh_id: &str) -> iop::merge::InputFile {
    iop::merge::InputFile::text(
        format!("(mesh install defaults for context {})", member.context),
        format!(
            "apiVersion: install.istio.io/v1alpha1\nkind: IstioOperator\nspec:\n  values:\n    global:\n      meshID: {}\n      multiCluster:\n        clusterName: {}\n",
            json_string(mesh_id),
            json_string(&member.context)
        ),
    )
}

fn json_string(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

fn value_at(rendered: &pipeline::Rendered, pointer: &str) -> Option<String> {
    rendered
        .merged
        .tree()
        .pointer(pointer)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// Renders every member's install (no request: the facts were read by [`connect`]), then the
/// east-west gateway's when the mesh spans networks, and judges the rendered mesh values.
pub fn render(
    connected: &[Connected],
    mesh: &MeshInputs,
    packages: &pipeline::InstallPackages,
) -> Renders {
    render_with_remotes(connected, mesh, packages, None)
}

/// [`render`] for a mesh that may have remotes (`control`: [`remote_control`]'s answer): the
/// primaries also get `values.global.externalIstiod: true` (so their istiod leads the remotes
/// that name them), and each remote the `remote` profile, `values.istiodRemote.injectionPath`
/// (its cluster name and network) and `values.global.remotePilotAddress`.
pub fn render_with_remotes(
    connected: &[Connected],
    mesh: &MeshInputs,
    packages: &pipeline::InstallPackages,
    control: Option<&RemoteControl>,
) -> Renders {
    let mut diagnostics = Vec::new();
    let mut mains = Vec::new();
    let mut paths = Vec::new();
    for c in connected {
        let settings = mesh_settings(&c.member, mesh.mesh_id.as_deref(), control);
        let own = mesh
            .cluster_files
            .get(&c.member.context)
            .map(Vec::as_slice)
            .unwrap_or_default();
        if let Err(e) = judge_cluster_files(&c.member.context, own, &settings) {
            return Renders {
                diagnostics,
                result: Err(e.into()),
            };
        }
        let mut inputs = mesh.inputs.clone();
        inputs
            .files
            .insert(0, defaults_file(&c.member, DEFAULT_MESH_ID));
        inputs.files.extend(own.iter().cloned());
        inputs
            .set
            .extend(settings.iter().map(|s| format!("{}={}", s.path, s.value)));
        if control.is_some() {
            paths.push(c.member.remote.then(|| {
                c.member
                    .cluster_name
                    .clone()
                    .unwrap_or_else(|| c.member.context.clone())
            }));
        }
        let detected = pipeline::Detected::from_facts(&c.facts, mesh.gke_detection);
        let detect = move || Ok(detected.clone());
        let rendering = pipeline::render(&inputs, packages, mesh.force, Some(&detect));
        diagnostics.push((c.member.context.clone(), rendering.diagnostics));
        match rendering.result {
            Ok(r) => mains.push(r),
            Err(error) => {
                return Renders {
                    diagnostics,
                    result: Err(RenderFailure::Pipeline {
                        context: c.member.context.clone(),
                        error,
                    }),
                };
            }
        }
    }
    // Where each render's package is (its directory as given, or the one `--version`/the pin
    // resolves to, made canonical so that two spellings of one directory agree).
    let mut used = Vec::new();
    for (c, main) in connected.iter().zip(&mains) {
        let located = packages
            .dir(main.merged.install_package_path().unwrap_or_default())
            .and_then(|dir| Ok((packages.istio_version(&main.merged)?, dir)));
        match located {
            Ok((version, dir)) => used.push(MemberPackage {
                context: c.member.context.clone(),
                version,
                dir: std::fs::canonicalize(&dir).unwrap_or(dir),
            }),
            Err(error) => {
                return Renders {
                    diagnostics,
                    result: Err(RenderFailure::Pipeline {
                        context: c.member.context.clone(),
                        error: pipeline::Error::Package(error),
                    }),
                };
            }
        }
    }
    if let Err(e) = judge_packages(&used) {
        return Renders {
            diagnostics,
            result: Err(e.into()),
        };
    }
    let mut members: Vec<MemberRendered> = mains
        .into_iter()
        .map(|main| MemberRendered {
            mesh_id: value_at(&main, "/spec/values/global/meshID").unwrap_or_default(),
            cluster_name: value_at(&main, "/spec/values/global/multiCluster/clusterName")
                .unwrap_or_default(),
            network: value_at(&main, "/spec/values/global/network"),
            main,
            eastwest: None,
        })
        .collect();
    let values: Vec<(String, String, String)> = connected
        .iter()
        .zip(&members)
        .map(|(c, m)| {
            (
                c.member.context.clone(),
                m.mesh_id.clone(),
                m.cluster_name.clone(),
            )
        })
        .collect();
    if let Err(e) = judge_values(&values) {
        return Renders {
            diagnostics,
            result: Err(e.into()),
        };
    }
    for ((c, m), expected) in connected.iter().zip(&members).zip(&paths) {
        if let Some(expected) = expected
            && &m.cluster_name != expected
        {
            return Renders {
                diagnostics,
                result: Err(MeshError::RemoteNameFromInputs {
                    context: c.member.context.clone(),
                    rendered: m.cluster_name.clone(),
                    expected: expected.clone(),
                }
                .into()),
            };
        }
    }
    if multi_network(&members) {
        for (c, m) in connected.iter().zip(members.iter_mut()) {
            let network = m.network.clone().unwrap_or_default();
            let inputs = pipeline::Inputs {
                files: vec![iop::merge::InputFile::text(
                    format!("(east-west gateway of context {})", c.member.context),
                    manifest::eastwest::iop(&network, m.main.merged.revision()),
                )],
                set: Vec::new(),
                manifests: mesh.inputs.manifests.clone(),
                revision: None,
            };
            let detected = pipeline::Detected::from_facts(&c.facts, mesh.gke_detection);
            let detect = move || Ok(detected.clone());
            let rendering = pipeline::render(&inputs, packages, mesh.force, Some(&detect));
            diagnostics.push((c.member.context.clone(), rendering.diagnostics));
            match rendering.result {
                Ok(r) => m.eastwest = Some(r),
                Err(error) => {
                    return Renders {
                        diagnostics,
                        result: Err(RenderFailure::Pipeline {
                            context: c.member.context.clone(),
                            error,
                        }),
                    };
                }
            }
        }
    }
    Renders {
        diagnostics,
        result: Ok(members),
    }
}

/// Whether the members are on more than one network (then each gets an east-west gateway).
fn multi_network(members: &[MemberRendered]) -> bool {
    let mut networks: Vec<&Option<String>> = members.iter().map(|m| &m.network).collect();
    networks.sort();
    networks.dedup();
    networks.len() > 1
}

/// One mesh ID, unique cluster names that are DNS-1123 labels, as rendered: (context, mesh
/// ID, cluster name) per member. Pure.
pub fn judge_values(values: &[(String, String, String)]) -> Result<(), MeshError> {
    if values.iter().any(|(_, id, _)| *id != values[0].1) {
        return Err(MeshError::MeshIds(
            values
                .iter()
                .map(|(c, id, _)| (c.clone(), id.clone()))
                .collect(),
        ));
    }
    for (i, (context, _, name)) in values.iter().enumerate() {
        if !is_label(name) {
            return Err(MeshError::InvalidClusterName {
                context: context.clone(),
                name: name.clone(),
            });
        }
        if let Some((first, _, _)) = values[..i].iter().find(|(_, _, n)| n == name) {
            return Err(MeshError::DuplicateClusterName {
                name: name.clone(),
                first: first.clone(),
                second: context.clone(),
            });
        }
    }
    Ok(())
}

/// A mesh CA's files for one cluster (`bosun mesh ca`'s `DIR/<cluster>`): name, PEM text.
#[derive(Debug, Clone)]
pub struct CaFiles {
    pub files: Vec<(String, String)>,
}

impl CaFiles {
    fn root(&self) -> &str {
        self.files
            .iter()
            .find(|(n, _)| n == "root-cert.pem")
            .map(|(_, t)| t.as_str())
            .unwrap_or_default()
    }
}

/// What to do about each cluster's `cacerts`, decided by [`judge_roots`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaAction {
    /// Keep the cluster's `cacerts` (it holds the mesh's root).
    Keep,
    /// Create or update it from the given CA files (the same root, or none there).
    Write,
}

/// Judges the clusters' `cacerts` roots (context, the live `root-cert.pem` if any) against
/// the CA files given (one per context, same order) if any. Without files every cluster must
/// hold one and all the same root; with files each live root must be theirs (or absent).
/// Pure.
pub fn judge_roots(
    namespace: &str,
    live: &[(String, Option<String>)],
    given: Option<&[(String, CaFiles)]>,
) -> Result<Vec<CaAction>, MeshError> {
    use manifest::cacerts::same_root;
    match given {
        Some(given) => {
            let first = given.first().map(|(_, f)| f.root()).unwrap_or_default();
            for (context, files) in given {
                if !same_root(files.root(), first) {
                    return Err(MeshError::CaRootsDiffer {
                        cluster: context.clone(),
                        context: context.clone(),
                    });
                }
            }
            for ((context, root), (_, files)) in live.iter().zip(given) {
                if let Some(root) = root
                    && !same_root(root, files.root())
                {
                    return Err(MeshError::ForeignRoot {
                        context: context.clone(),
                        namespace: namespace.to_string(),
                    });
                }
            }
            Ok(vec![CaAction::Write; live.len()])
        }
        None => {
            let with: Vec<String> = live
                .iter()
                .filter(|(_, r)| r.is_some())
                .map(|(c, _)| c.clone())
                .collect();
            let without: Vec<String> = live
                .iter()
                .filter(|(_, r)| r.is_none())
                .map(|(c, _)| c.clone())
                .collect();
            if with.is_empty() {
                return Err(MeshError::NoSharedRoot {
                    namespace: namespace.to_string(),
                });
            }
            if !without.is_empty() {
                return Err(MeshError::SomeWithoutRoot {
                    namespace: namespace.to_string(),
                    with,
                    without,
                });
            }
            let mut groups: Vec<(String, Vec<String>)> = Vec::new();
            for (context, root) in live {
                let root = root.clone().unwrap_or_default();
                match groups.iter_mut().find(|(r, _)| same_root(r, &root)) {
                    Some((_, contexts)) => contexts.push(context.clone()),
                    None => groups.push((root, vec![context.clone()])),
                }
            }
            if groups.len() > 1 {
                return Err(MeshError::DifferentRoots {
                    namespace: namespace.to_string(),
                    groups: groups.into_iter().map(|(_, c)| c).collect(),
                });
            }
            Ok(vec![CaAction::Keep; live.len()])
        }
    }
}

/// The catalog's rules for each cluster's install, as `install` applies them.
pub struct Policy<'a> {
    pub catalog: &'a release::Catalog,
    pub today: release::support::Date,
    /// Refusals become warnings (`--force`).
    pub force: bool,
}

/// One cluster, checked and ready to install.
pub struct PreparedMember {
    pub connected: Connected,
    pub cluster_name: String,
    pub network: Option<String>,
    /// The Istio namespace (the install's).
    pub namespace: String,
    pub install: Install,
    pub eastwest: Option<Install>,
    /// What to do about `cacerts`, and the files when writing.
    pub ca: CaAction,
    pub ca_files: Option<CaFiles>,
    /// The root of the cluster's `cacerts` before the install, if it had one.
    pub live_root: Option<String>,
}

impl PreparedMember {
    pub fn context(&self) -> &str {
        &self.connected.member.context
    }
}

/// Every cluster checked (see [`prepare`]).
pub struct Prepared {
    pub members: Vec<PreparedMember>,
    pub mesh_id: String,
    /// What the checks said without refusing (context, text): the catalog's concerns, and
    /// refusals passed over with `force`.
    pub warnings: Vec<(String, String)>,
    /// The remotes' control plane (primary-remote; [`Prepared::lead_remotes`]).
    pub control: Option<RemoteControl>,
}

/// Prepares every cluster's install (reads only, all clusters at once): the install and the
/// east-west gateway's made from their renders, `install`'s refusals (release policy,
/// injector overlaps, CRD downgrades) per cluster, the `cacerts` roots judged with
/// [`judge_roots`] (`ca`: the CA files per member, same order; only the primaries' when some
/// are remotes: a remote runs no istiod, so its workloads get their certificates from the
/// primary's and its own `cacerts` is neither read nor written). Any refusal (unless
/// `policy.force`) or failed read fails it all, naming each cluster.
pub async fn prepare(
    connected: Vec<Connected>,
    rendered: Vec<MemberRendered>,
    packages: &pipeline::InstallPackages,
    ca: Option<Vec<CaFiles>>,
    policy: &Policy<'_>,
) -> Result<Prepared, MeshError> {
    let mesh_id = rendered
        .first()
        .map(|m| m.mesh_id.clone())
        .unwrap_or_default();
    let tries = connected
        .into_iter()
        .zip(rendered)
        .map(|(c, r)| prepare_one(c, r, packages, policy));
    let results = join_all(tries).await;
    let mut members = Vec::new();
    let mut warnings = Vec::new();
    let mut failures = Vec::new();
    for result in results {
        match result {
            Ok((member, said)) => {
                warnings.extend(said.into_iter().map(|w| (member.context().to_string(), w)));
                members.push(member);
            }
            Err(failure) => failures.push(failure),
        }
    }
    if !failures.is_empty() {
        return Err(MeshError::Clusters(failures));
    }
    let namespace = members
        .first()
        .map(|m| m.namespace.clone())
        .unwrap_or_default();
    let live: Vec<(String, Option<String>)> = members
        .iter()
        .filter(|m| !m.connected.member.remote)
        .map(|m| (m.context().to_string(), m.live_root.clone()))
        .collect();
    let given: Option<Vec<(String, CaFiles)>> = ca.map(|files| {
        members
            .iter()
            .filter(|m| !m.connected.member.remote)
            .map(|m| m.context().to_string())
            .zip(files)
            .collect()
    });
    let actions = judge_roots(&namespace, &live, given.as_deref())?;
    let primaries = members.iter_mut().filter(|m| !m.connected.member.remote);
    for (i, (member, action)) in primaries.zip(actions).enumerate() {
        member.ca = action;
        member.ca_files = given.as_ref().map(|g| g[i].1.clone());
    }
    Ok(Prepared {
        members,
        mesh_id,
        warnings,
        control: None,
    })
}

async fn prepare_one(
    connected: Connected,
    rendered: MemberRendered,
    packages: &pipeline::InstallPackages,
    policy: &Policy<'_>,
) -> Result<(PreparedMember, Vec<String>), ClusterFailure> {
    let context = connected.member.context.clone();
    let fail = |error: ClusterError| ClusterFailure {
        context: context.clone(),
        error,
    };
    let client = &connected.client;
    let namespace = rendered.main.merged.istio_namespace().to_string();
    let install = Install::prepare(client, rendered.main, packages.clone())
        .await
        .map_err(|e| fail(e.into()))?;
    let eastwest = match rendered.eastwest {
        Some(r) => {
            let mut eastwest = Install::prepare(client, r, packages.clone())
                .await
                .map_err(|e| fail(e.into()))?;
            // The gateway renders no injector: the default revision tag is the main install's
            // to make (istioctl's install of the gateway's IstioOperator regenerates the same
            // tag from the live injector; bosun leaves it as the main install made it).
            eastwest.default_tag = crate::DefaultTag::default();
            Some(eastwest)
        }
        None => None,
    };
    let mut said = Vec::new();
    let mut refusals = Vec::new();
    let v = &connected.facts.version;
    let kubernetes = assess::precheck::KubernetesVersion {
        git_version: v.git_version.clone(),
        major: v.major.clone(),
        minor: v.minor.clone(),
    }
    .judged();
    let (refusal, told) = install
        .release_policy(client, policy.catalog, kubernetes.as_deref(), policy.today)
        .await
        .map_err(|e| fail(e.into()))?;
    said.extend(told.iter().map(|c| c.to_string()));
    refusals.extend(refusal);
    refusals.extend(
        install
            .webhook_overlaps(client)
            .await
            .map_err(|e| fail(e.into()))?,
    );
    refusals.extend(
        install
            .crd_downgrades(client)
            .await
            .map_err(|e| fail(e.into()))?,
    );
    if let Some(refusal) = refusals.into_iter().next() {
        if !policy.force {
            return Err(fail(ClusterError::Refused(refusal)));
        }
        said.push(format!("{refusal}\ncontinuing because of --force"));
    }
    let live_root = client
        .secret(&namespace, manifest::cacerts::SECRET_NAME)
        .await
        .map_err(|e| fail(e.into()))?
        .map(|s| {
            s.data
                .as_ref()
                .and_then(|d| d.get("root-cert.pem"))
                .map(|b| String::from_utf8_lossy(&b.0).into_owned())
                .unwrap_or_default()
        });
    Ok((
        PreparedMember {
            cluster_name: rendered.cluster_name,
            network: rendered.network,
            namespace,
            install,
            eastwest,
            ca: CaAction::Keep,
            ca_files: None,
            live_root,
            connected,
        },
        said,
    ))
}

/// What [`Prepared::install`] tells its caller about one cluster, as it happens.
#[derive(Debug)]
pub enum MeshEvent<'a> {
    /// A step done, in words (`Secret istio-system/cacerts created`).
    Step(&'a str),
    /// An event of the install (`install`: "Istio" or "east-west gateway") of component
    /// `component` (its display name).
    Component {
        install: &'a str,
        component: &'a str,
        event: cluster::InstallEvent<'a>,
    },
    /// Prune deleted an object.
    Deleted(&'a cluster::Deleted),
    /// Something the cluster's install went on despite (the default tag skipped).
    Warning(&'a str),
}

/// The events' receiver: the context, then the event.
pub type OnEvent<'a> = &'a (dyn Fn(&str, MeshEvent<'_>) + Sync);

/// What one cluster's install did.
#[derive(Debug)]
pub struct MemberInstalled {
    pub applied: crate::Applied,
    pub eastwest: Option<crate::Applied>,
}

/// How the remote secrets' exchange ended.
#[derive(Debug)]
pub enum Secrets {
    /// Not tried: a cluster's install failed.
    NotExchanged,
    /// Every cluster holds every other's: (the cluster holding it, the cluster it reads).
    Exchanged(Vec<(String, String)>),
    /// These failed (the context whose secret could not be made or applied, why); the ones
    /// applied are listed.
    Failed {
        applied: Vec<(String, String)>,
        failures: Vec<ClusterFailure>,
    },
}

/// What [`Prepared::install`] did, per cluster and for the secrets.
#[derive(Debug)]
pub struct MeshReport {
    pub members: Vec<(String, Result<MemberInstalled, ClusterError>)>,
    pub secrets: Secrets,
}

impl MeshReport {
    pub fn succeeded(&self) -> bool {
        self.members.iter().all(|(_, r)| r.is_ok()) && matches!(self.secrets, Secrets::Exchanged(_))
    }
}

/// One cluster's plan: the steps in words, and the installs' server-side dry runs.
pub struct MemberPlan {
    pub steps: Vec<String>,
    pub install: cluster::Plan,
    pub eastwest: Option<cluster::Plan>,
}

impl Prepared {
    /// The remotes' control plane ([`remote_control`]'s answer) for the install: the primary
    /// exposes istiod and the remotes' namespaces name it.
    pub fn lead_remotes(mut self, control: Option<RemoteControl>) -> Self {
        self.control = control;
        self
    }

    /// The primary that leads the remotes, when there are remotes.
    fn leader(&self) -> Option<&PreparedMember> {
        self.control.as_ref().map(|c| &self.members[c.primary])
    }

    /// Whether member `holder` holds member `read`'s remote secret: a primary reads every
    /// other cluster; a remote reads none.
    fn reads(&self, holder: usize, read: usize) -> bool {
        holder != read && !self.members[holder].connected.member.remote
    }

    /// How many remote secrets [`Prepared::install`] applies.
    pub fn secret_count(&self) -> usize {
        let n = self.members.len();
        (0..n)
            .flat_map(|i| (0..n).map(move |j| (i, j)))
            .filter(|(i, j)| self.reads(*i, *j))
            .count()
    }

    /// The steps [`Prepared::install`] takes on member `i`, in words. Pure.
    pub fn steps(&self, i: usize) -> Vec<String> {
        let m = &self.members[i];
        let mut steps = vec![format!(
            "install Istio {} (mesh ID {:?}, cluster name {:?}{})",
            m.install.version,
            self.mesh_id,
            m.cluster_name,
            m.network
                .as_ref()
                .map(|n| format!(", network {n:?}"))
                .unwrap_or_default()
        )];
        if let Some(net) = &m.network {
            steps.insert(
                0,
                format!("label namespace {} {NETWORK_LABEL}={net}", m.namespace),
            );
        }
        let remote = m.connected.member.remote;
        if remote {
            // The install's step is the last so far (after the network label's).
            let last = steps.len() - 1;
            steps[last] = format!(
                "install Istio {} with the remote profile (no istiod; mesh ID {:?}, cluster name {:?}{}; istiod at {})",
                m.install.version,
                self.mesh_id,
                m.cluster_name,
                m.network
                    .as_ref()
                    .map(|n| format!(", network {n:?}"))
                    .unwrap_or_default(),
                self.control
                    .as_ref()
                    .map(|c| c.address.as_str())
                    .unwrap_or("?")
            );
            if let Some(leader) = self.leader() {
                steps.insert(
                    0,
                    format!(
                        "annotate namespace {} {}={} (the primary's istiod leads this cluster)",
                        m.namespace,
                        manifest::primary_remote::CONTROL_PLANE_CLUSTERS,
                        leader.cluster_name
                    ),
                );
            }
        }
        match m.ca {
            _ if remote => steps.insert(
                0,
                format!(
                    "no Secret {}/cacerts: the primary's istiod signs this cluster's workloads",
                    m.namespace
                ),
            ),
            CaAction::Keep => steps.insert(
                0,
                format!("keep Secret {}/cacerts (the mesh's root)", m.namespace),
            ),
            CaAction::Write => steps.insert(
                0,
                format!(
                    "{} Secret {}/cacerts from --ca (before istiod starts)",
                    if m.live_root.is_some() {
                        "update"
                    } else {
                        "create"
                    },
                    m.namespace
                ),
            ),
        }
        if m.eastwest.is_some() {
            steps.push(format!(
                "install the east-west gateway {} (IstioOperator {})",
                manifest::eastwest::GATEWAY_NAME,
                manifest::eastwest::IOP_NAME
            ));
            steps.push(format!(
                "apply Gateway {}/{} (*.local on 15443, AUTO_PASSTHROUGH)",
                m.namespace,
                manifest::eastwest::EXPOSE_SERVICES_NAME
            ));
        }
        if let Some(control) = &self.control
            && control.primary == i
        {
            match control.exposure {
                Exposure::NodeAddress => steps.push(format!(
                    "apply Service {}/{} (istiod's 15012 and 15017 at the node address {}, for the remotes)",
                    m.namespace,
                    manifest::primary_remote::EXPOSED_ISTIOD_SERVICE,
                    control.address
                )),
                Exposure::EastWestGateway => steps.push(format!(
                    "apply Gateway {}/{} and its VirtualService (istiod's 15012 and 15017 through the east-west gateway, at {})",
                    m.namespace,
                    manifest::primary_remote::ISTIOD_GATEWAY_NAME,
                    control.address
                )),
                Exposure::Given => {}
            }
        }
        for (j, other) in self.members.iter().enumerate() {
            if self.reads(i, j) {
                steps.push(format!(
                    "apply Secret {}/istio-remote-secret-{} (reads context {})",
                    m.namespace,
                    other.cluster_name,
                    other.context()
                ));
            }
        }
        steps
    }

    /// What installing would do on each cluster (server-side dry runs; writes nothing), all
    /// clusters at once.
    pub async fn plan(&self, force: bool) -> Vec<(String, Result<MemberPlan, ClusterError>)> {
        let plans = self.members.iter().enumerate().map(|(i, m)| async move {
            let client = &m.connected.client;
            let plan = async {
                let install = m.install.plan(client, FIELD_MANAGER, force, &[]).await?;
                let eastwest = match &m.eastwest {
                    Some(e) => Some(e.plan(client, FIELD_MANAGER, force, &[]).await?),
                    None => None,
                };
                Ok::<_, Error>(MemberPlan {
                    steps: self.steps(i),
                    install,
                    eastwest,
                })
            }
            .await;
            (m.context().to_string(), plan.map_err(ClusterError::from))
        });
        join_all(plans).await
    }

    /// Installs every cluster at once (see the module's documentation), then exchanges the
    /// remote secrets when every cluster is installed. `options` are every install's.
    pub async fn install(&self, options: &cluster::InstallOptions, on: OnEvent<'_>) -> MeshReport {
        let installs = self.members.iter().enumerate().map(|(i, m)| {
            let extras = self.extras(i);
            async move {
                (
                    m.context().to_string(),
                    install_one(m, &extras, options, on).await,
                )
            }
        });
        let members = join_all(installs).await;
        let secrets = if members.iter().all(|(_, r)| r.is_ok()) {
            self.exchange_secrets(on).await
        } else {
            Secrets::NotExchanged
        };
        MeshReport { members, secrets }
    }

    /// What member `i` gets besides its install in a primary-remote mesh.
    fn extras(&self, i: usize) -> Extras {
        let m = &self.members[i];
        let mut extras = Extras::default();
        let Some(control) = &self.control else {
            return extras;
        };
        if m.connected.member.remote {
            extras.leader = self.leader().map(|l| l.cluster_name.clone());
        } else if control.primary == i {
            let revision = m.install.merged.revision();
            extras.expose = match control.exposure {
                Exposure::NodeAddress => vec![manifest::primary_remote::exposed_istiod_service(
                    &m.namespace,
                    revision,
                    &control.address,
                )],
                Exposure::EastWestGateway => {
                    manifest::primary_remote::expose_istiod(&m.namespace, revision)
                }
                Exposure::Given => Vec::new(),
            };
        }
        extras
    }

    /// Each cluster's remote secret (made on it, as `create-remote-secret --name <cluster>`),
    /// applied in the Istio namespace of every other cluster that reads it: every primary
    /// (a remote reads no cluster: primary-remote exchanges remote→primary only).
    pub async fn exchange_secrets(&self, on: OnEvent<'_>) -> Secrets {
        let packages = self.members.first().map(|m| m.install.packages.clone());
        let Some(packages) = packages else {
            return Secrets::Exchanged(Vec::new());
        };
        let n = self.members.len();
        let made = self.members.iter().enumerate().map(|(j, m)| {
            let packages = &packages;
            let wanted = (0..n).any(|i| self.reads(i, j));
            async move {
                if !wanted {
                    return Ok(None);
                }
                let made = async {
                    let options = Options::new(
                        Some(m.cluster_name.clone()),
                        SecretType::Remote,
                        Auth::BearerToken,
                        None,
                        m.connected.member.server.clone(),
                        None,
                        None,
                    )?;
                    let request = crate::remote_secret::Request {
                        options,
                        namespace: Some(m.namespace.clone()),
                        create_service_account: true,
                        manifests: m.install.merged.install_package_path().map(str::to_string),
                    };
                    let secret = crate::remote_secret::create_remote_secret(
                        &m.connected.client,
                        &request,
                        packages,
                    )
                    .await?;
                    Ok::<_, ClusterError>(secret)
                }
                .await;
                if let Ok(secret) = &made
                    && let Some(warning) = &secret.warning
                {
                    on(m.context(), MeshEvent::Warning(warning));
                }
                made.map(Some).map_err(|error| ClusterFailure {
                    context: m.context().to_string(),
                    error,
                })
            }
        });
        let (made, mut failures) = split(join_all(made).await);
        if !failures.is_empty() {
            return Secrets::Failed {
                applied: Vec::new(),
                failures,
            };
        }
        let mut applies = Vec::new();
        for (i, holder) in self.members.iter().enumerate() {
            for (j, read) in self.members.iter().enumerate() {
                let Some(read_secret) = made[j].as_ref().filter(|_| self.reads(i, j)) else {
                    continue;
                };
                let mut secret = read_secret.secret.clone();
                secret["metadata"]["namespace"] = holder.namespace.clone().into();
                applies.push(async move {
                    let result = holder
                        .connected
                        .client
                        .apply(std::slice::from_ref(&secret), FIELD_MANAGER, true)
                        .await;
                    let name = secret["metadata"]["name"].as_str().unwrap_or_default();
                    if let Ok(report) = &result {
                        let outcome = report
                            .objects
                            .first()
                            .map(|a| outcome_word(a.outcome))
                            .unwrap_or("applied");
                        on(
                            holder.context(),
                            MeshEvent::Step(&format!(
                                "Secret {}/{name} {outcome} (istiod reads cluster {} of context {})",
                                holder.namespace,
                                read.cluster_name,
                                read.context()
                            )),
                        );
                    }
                    (holder, read, result)
                });
            }
        }
        let mut applied = Vec::new();
        for (holder, read, result) in join_all(applies).await {
            match result {
                Ok(_) => applied.push((holder.context().to_string(), read.context().to_string())),
                Err(e) => failures.push(ClusterFailure {
                    context: holder.context().to_string(),
                    error: e.into(),
                }),
            }
        }
        if failures.is_empty() {
            Secrets::Exchanged(applied)
        } else {
            Secrets::Failed { applied, failures }
        }
    }
}

fn outcome_word(outcome: cluster::Outcome) -> &'static str {
    match outcome {
        cluster::Outcome::Created => "created",
        cluster::Outcome::Configured => "configured",
        cluster::Outcome::Unchanged => "unchanged",
    }
}

/// What a member of a primary-remote mesh gets besides its install.
#[derive(Default)]
struct Extras {
    /// A remote: the cluster name of the primary that leads it (its namespace's annotation).
    leader: Option<String>,
    /// The leading primary: the objects that expose its istiod to the remotes.
    expose: Vec<Value>,
}

async fn install_one(
    m: &PreparedMember,
    extras: &Extras,
    options: &cluster::InstallOptions,
    on: OnEvent<'_>,
) -> Result<MemberInstalled, ClusterError> {
    let context = m.context();
    let client = &m.connected.client;
    let created = client.ensure_namespace(&m.namespace, FIELD_MANAGER).await?;
    if created.outcome == cluster::Outcome::Created {
        on(
            context,
            MeshEvent::Step(&format!("Namespace {} created", m.namespace)),
        );
    }
    if let Some(net) = &m.network {
        let labels = BTreeMap::from([(NETWORK_LABEL.to_string(), net.clone())]);
        client
            .label_namespace(&m.namespace, &labels, FIELD_MANAGER)
            .await?;
        on(
            context,
            MeshEvent::Step(&format!(
                "Namespace {} labelled {NETWORK_LABEL}={net}",
                m.namespace
            )),
        );
    }
    if let Some(leader) = &extras.leader {
        let key = manifest::primary_remote::CONTROL_PLANE_CLUSTERS;
        let annotations = BTreeMap::from([(key.to_string(), leader.clone())]);
        client
            .annotate_namespace(&m.namespace, &annotations, FIELD_MANAGER)
            .await?;
        on(
            context,
            MeshEvent::Step(&format!(
                "Namespace {} annotated {key}={leader}",
                m.namespace
            )),
        );
    }
    if let (CaAction::Write, Some(ca)) = (m.ca, &m.ca_files) {
        let files: Vec<(&str, &str)> = ca
            .files
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_str()))
            .collect();
        let outcome = crate::cacerts::apply_cacerts(client, &m.namespace, &files, false).await?;
        let said = match outcome {
            crate::cacerts::CacertsOutcome::Created => "created",
            crate::cacerts::CacertsOutcome::Updated => "updated (same root)",
            crate::cacerts::CacertsOutcome::Replaced => "replaced",
        };
        on(
            context,
            MeshEvent::Step(&format!("Secret {}/cacerts {said}", m.namespace)),
        );
    }
    let applied = apply_install(context, "Istio", &m.install, client, options, on).await?;
    let eastwest = match &m.eastwest {
        Some(e) => {
            let applied =
                apply_install(context, "east-west gateway", e, client, options, on).await?;
            let gateway = manifest::eastwest::expose_services(&m.namespace);
            client
                .apply(std::slice::from_ref(&gateway), FIELD_MANAGER, options.force)
                .await?;
            on(
                context,
                MeshEvent::Step(&format!(
                    "Gateway {}/{} applied",
                    m.namespace,
                    manifest::eastwest::EXPOSE_SERVICES_NAME
                )),
            );
            Some(applied)
        }
        None => None,
    };
    if !extras.expose.is_empty() {
        let report = client
            .apply(&extras.expose, FIELD_MANAGER, options.force)
            .await?;
        for a in &report.objects {
            on(
                context,
                MeshEvent::Step(&format!(
                    "{} {} (istiod exposed to the remotes)",
                    a.object,
                    outcome_word(a.outcome)
                )),
            );
        }
    }
    Ok(MemberInstalled { applied, eastwest })
}

async fn apply_install(
    context: &str,
    name: &str,
    install: &Install,
    client: &cluster::Client,
    options: &cluster::InstallOptions,
    on: OnEvent<'_>,
) -> Result<crate::Applied, ClusterError> {
    let mut options = options.clone();
    options.owner_labels = Some(install.installation.owner_labels.clone());
    let progress = |i: usize, event: cluster::InstallEvent<'_>| {
        let component = install
            .components
            .get(i)
            .map(|c| c.display_name.as_str())
            .unwrap_or("");
        on(
            context,
            MeshEvent::Component {
                install: name,
                component,
                event,
            },
        );
    };
    let mut deleted = |d: &cluster::Deleted| on(context, MeshEvent::Deleted(d));
    let on_wait = |holder: &cluster::LockHolder| {
        on(
            context,
            MeshEvent::Warning(&format!("waiting for the install lock: {holder}")),
        );
    };
    let lock = crate::InstallLock {
        identity: cluster::lock_identity("mesh install"),
        on_wait: &on_wait,
    };
    let applied = install
        .apply(client, &options, &lock, &progress, &mut deleted)
        .await?;
    if let crate::DefaultTagOutcome::Skipped(refusal) = &applied.default_tag {
        on(
            context,
            MeshEvent::Warning(&format!(
                "the default revision tag was not created: {refusal}"
            )),
        );
    }
    Ok(applied)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn flags_become_members() {
        let m = members(
            &s(&["east", "west"]),
            &s(&["west=w1"]),
            &s(&["east=n1", "west=n2"]),
            &s(&["east=https://10.0.0.1:6443"]),
        )
        .unwrap();
        assert_eq!(m[0].cluster_name, None);
        assert_eq!(m[1].cluster_name.as_deref(), Some("w1"));
        assert_eq!(m[0].network.as_deref(), Some("n1"));
        assert_eq!(m[0].server.as_deref(), Some("https://10.0.0.1:6443"));
        assert_eq!(m[1].server, None);
    }

    #[test]
    fn bad_flags_are_refused_with_the_context_named() {
        type Case<'a> = (&'a [&'a str], &'a [&'a str], &'a [&'a str], &'a str);
        let cases: &[Case] = &[
            (&["east"], &[], &[], "at least two clusters"),
            (
                &["east", "east"],
                &[],
                &[],
                "context \"east\" is given twice",
            ),
            (
                &["east", "west"],
                &["north=n"],
                &[],
                "--cluster-name north=…: \"north\" is not one of the --context values (east, west)",
            ),
            (
                &["east", "west"],
                &[],
                &["east=n1"],
                "--network is given for east but not for west",
            ),
            (
                &["east", "west"],
                &["east=a", "east=b"],
                &[],
                "--cluster-name is given twice for context \"east\"",
            ),
            (
                &["east", "west"],
                &["east=Bad_Name"],
                &[],
                "cluster name \"Bad_Name\" is not a DNS-1123 label",
            ),
            (
                &["gke_p_z_c", "west"],
                &[],
                &[],
                "pass --cluster-name gke_p_z_c=NAME",
            ),
            (
                &["east", "west"],
                &["east"],
                &[],
                "--cluster-name \"east\": expected CONTEXT=VALUE",
            ),
        ];
        for (contexts, names, nets, expected) in cases {
            let e = members(&s(contexts), &s(names), &s(nets), &[]).unwrap_err();
            assert!(e.to_string().contains(expected), "{contexts:?}: {e}");
        }
    }

    #[test]
    fn remotes_are_marked_and_judged() {
        let m = |contexts: &[&str]| members(&s(contexts), &[], &[], &[]).unwrap();
        let marked = remotes(m(&["east", "west", "north"]), &s(&["west"])).unwrap();
        let flags: Vec<bool> = marked.iter().map(|m| m.remote).collect();
        assert_eq!(flags, vec![false, true, false]);
        assert!(
            remotes(m(&["east", "west"]), &[])
                .unwrap()
                .iter()
                .all(|m| !m.remote)
        );
        let cases: &[(&[&str], &[&str], &str)] = &[
            (
                &["east", "west"],
                &["north"],
                "--remote north: \"north\" is not one of the --context values (east, west)",
            ),
            (
                &["east", "west"],
                &["west", "west"],
                "--remote west: the context is named twice",
            ),
            (
                &["east", "west"],
                &["east", "west"],
                "every context is a --remote: a primary-remote mesh needs at least one primary",
            ),
        ];
        for (contexts, given, expected) in cases {
            let e = remotes(m(contexts), &s(given)).unwrap_err();
            assert!(e.to_string().starts_with(expected), "{given:?}: {e}");
        }
    }

    #[test]
    fn pilot_addresses_are_ips_or_dns_names() {
        for good in ["10.250.1.2", "fd00::1", "istiod.example.com", "a-b.c"] {
            assert!(valid_address(good), "{good}");
        }
        for bad in ["", "http://x", "a..b", "-a.b", "10.0.0.1:15012", "a_b"] {
            assert!(!valid_address(bad), "{bad}");
        }
    }

    #[test]
    fn rendered_values_are_judged() {
        let v = |rows: &[(&str, &str, &str)]| -> Vec<(String, String, String)> {
            rows.iter()
                .map(|(c, m, n)| (c.to_string(), m.to_string(), n.to_string()))
                .collect()
        };
        assert!(judge_values(&v(&[("e", "mesh1", "east"), ("w", "mesh1", "west")])).is_ok());
        let e = judge_values(&v(&[("e", "mesh1", "same"), ("w", "mesh1", "same")])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "contexts \"e\" and \"w\" both name their cluster \"same\": each cluster of a mesh needs its own name (--cluster-name CONTEXT=NAME)"
        );
        let e = judge_values(&v(&[("e", "mesh1", "east"), ("w", "other", "west")])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the clusters would get different mesh IDs (e: \"mesh1\", w: \"other\"): a mesh has one (--mesh-id)"
        );
        let e = judge_values(&v(&[("e", "mesh1", ""), ("w", "mesh1", "west")])).unwrap_err();
        assert!(matches!(e, MeshError::InvalidClusterName { .. }), "{e}");
    }

    #[test]
    fn one_install_package_for_the_mesh() {
        let p = |context: &str, version: &str, dir: &str| MemberPackage {
            context: context.into(),
            version: version.into(),
            dir: dir.into(),
        };
        let same = [p("e", "1.31", "/pkg/a"), p("w", "1.31", "/pkg/a")];
        assert!(judge_packages(&same).is_ok());
        // Two snapshots that both say 1.31 are still two packages.
        let mixed = [p("e", "1.31", "/pkg/a"), p("w", "1.31", "/pkg/b")];
        assert_eq!(
            judge_packages(&mixed).unwrap_err().to_string(),
            "the clusters would run different Istio install packages (e: Istio 1.31 from /pkg/a; w: Istio 1.31 from /pkg/b): a mesh is installed with one (--version or --manifests, for all clusters); to move a mesh to another Istio cluster by cluster, run `bosun install` or `bosun upgrade --canary` in each"
        );
    }

    fn ca(root: &str) -> CaFiles {
        CaFiles {
            files: vec![("root-cert.pem".into(), root.into())],
        }
    }

    #[test]
    fn roots_are_judged() {
        let a = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
        let b = "-----BEGIN CERTIFICATE-----\nBBBB\n-----END CERTIFICATE-----\n";
        let live = |x: Option<&str>, y: Option<&str>| {
            vec![
                ("east".to_string(), x.map(str::to_string)),
                ("west".to_string(), y.map(str::to_string)),
            ]
        };
        let ns = "istio-system";
        assert_eq!(
            judge_roots(ns, &live(Some(a), Some(a)), None).unwrap(),
            vec![CaAction::Keep; 2]
        );
        let e = judge_roots(ns, &live(None, None), None).unwrap_err();
        assert!(matches!(e, MeshError::NoSharedRoot { .. }), "{e}");
        let e = judge_roots(ns, &live(Some(a), None), None).unwrap_err();
        assert_eq!(
            e.to_string().split(':').next().unwrap(),
            "east has a Secret istio-system/cacerts but west does not"
        );
        let e = judge_roots(ns, &live(Some(a), Some(b)), None).unwrap_err();
        assert!(e.to_string().contains("(east / west)"), "{e}");
        let given = vec![("east".to_string(), ca(a)), ("west".to_string(), ca(a))];
        assert_eq!(
            judge_roots(ns, &live(None, Some(a)), Some(&given)).unwrap(),
            vec![CaAction::Write; 2]
        );
        let e = judge_roots(ns, &live(None, Some(b)), Some(&given)).unwrap_err();
        assert!(
            e.to_string().starts_with(
                "context \"west\": Secret istio-system/cacerts holds another root CA than --ca's"
            ),
            "{e}"
        );
        let mixed = vec![("east".to_string(), ca(a)), ("west".to_string(), ca(b))];
        assert!(judge_roots(ns, &live(None, None), Some(&mixed)).is_err());
    }

    fn member(context: &str, name: Option<&str>, network: Option<&str>, remote: bool) -> Member {
        Member {
            context: context.to_string(),
            cluster_name: name.map(str::to_string),
            network: network.map(str::to_string),
            server: None,
            remote,
        }
    }

    #[test]
    fn cluster_file_flags_are_pairs_of_given_contexts() {
        let contexts = s(&["east", "west"]);
        let pairs = cluster_file_flags(
            &s(&["west=w.yaml", "east=e.yaml", "west=w2.yaml"]),
            &contexts,
        )
        .unwrap();
        assert_eq!(
            pairs,
            vec![
                ("west".to_string(), "w.yaml".to_string()),
                ("east".to_string(), "e.yaml".to_string()),
                ("west".to_string(), "w2.yaml".to_string()),
            ]
        );
        for (flag, expected) in [
            (
                "w.yaml",
                "--cluster-file \"w.yaml\": expected CONTEXT=VALUE",
            ),
            ("west=", "--cluster-file \"west=\": expected CONTEXT=VALUE"),
            (
                "north=n.yaml",
                "--cluster-file north=…: \"north\" is not one of the --context values (east, west)",
            ),
            (
                "east=-",
                "--cluster-file east=-: a cluster's own file cannot be stdin",
            ),
        ] {
            let e = cluster_file_flags(&s(&[flag]), &contexts).unwrap_err();
            assert!(e.to_string().starts_with(expected), "{flag}: {e}");
        }
    }

    #[test]
    fn the_mesh_settings_follow_the_flags_and_roles() {
        let paths = |v: Vec<MeshSetting>| -> Vec<String> {
            v.into_iter()
                .map(|s| format!("{}={}", s.path, s.value))
                .collect()
        };
        // Without flags the inputs' values (else the defaults) stand: the mesh sets nothing.
        assert!(mesh_settings(&member("east", None, None, false), None, None).is_empty());
        assert_eq!(
            paths(mesh_settings(
                &member("east", Some("c1"), Some("n1"), false),
                Some("m"),
                None
            )),
            s(&[
                "values.global.meshID=m",
                "values.global.multiCluster.clusterName=c1",
                "values.global.network=n1"
            ])
        );
        let control = RemoteControl {
            primary: 0,
            address: "10.0.0.1".to_string(),
            exposure: Exposure::NodeAddress,
        };
        assert_eq!(
            paths(mesh_settings(
                &member("east", None, None, false),
                None,
                Some(&control)
            )),
            s(&["values.global.externalIstiod=true"])
        );
        assert_eq!(
            paths(mesh_settings(
                &member("west", None, Some("n2"), true),
                None,
                Some(&control)
            )),
            s(&[
                "values.global.network=n2",
                "profile=remote",
                "values.istiodRemote.injectionPath=/inject/cluster/west/net/n2",
                "values.global.remotePilotAddress=10.0.0.1"
            ])
        );
    }

    #[test]
    fn a_cluster_file_may_not_contradict_the_mesh() {
        let file = |name: &str, text: &str| {
            iop::merge::InputFile::text(name.to_string(), text.to_string())
        };
        let settings = mesh_settings(
            &member("east", Some("c1"), Some("n1"), false),
            Some("m"),
            None,
        );
        let head = "apiVersion: install.istio.io/v1alpha1\nkind: IstioOperator\nspec:\n";
        // What the mesh does not set, the same values, and documents that do not parse (the
        // render names their error) pass.
        let fine = [
            format!("{head}  values:\n    pilot:\n      env:\n        X: a\n"),
            format!(
                "{head}  values:\n    global:\n      meshID: m\n      network: n1\n      multiCluster:\n        clusterName: c1\n"
            ),
            "spec: [unclosed".to_string(),
            String::new(),
        ];
        for text in &fine {
            judge_cluster_files("east", &[file("e.yaml", text)], &settings)
                .unwrap_or_else(|e| panic!("{text:?}: {e}"));
        }
        let cases = [
            (
                format!("{head}  values:\n    global:\n      network: n2\n"),
                "--cluster-file east=e.yaml: spec.values.global.network is \"n2\", but the mesh sets it to \"n1\" (from --network east=n1)",
            ),
            (
                // The second document of the file.
                format!(
                    "{head}  values: {{}}\n---\n{head}  values:\n    global:\n      multiCluster: {{clusterName: other}}\n"
                ),
                "--cluster-file east=e.yaml: spec.values.global.multiCluster.clusterName is \"other\", but the mesh sets it to \"c1\" (from --cluster-name east=c1)",
            ),
            (
                format!("{head}  values:\n    global:\n      meshID: 7\n"),
                "--cluster-file east=e.yaml: spec.values.global.meshID is \"7\", but the mesh sets it to \"m\" (from --mesh-id m)",
            ),
        ];
        for (text, expected) in &cases {
            let e = judge_cluster_files(
                "east",
                &[file("ok.yaml", &fine[0]), file("e.yaml", text)],
                &settings,
            )
            .unwrap_err();
            assert!(e.to_string().starts_with(expected), "{e}");
        }
        // A remote's role: its profile and a primary's externalIstiod.
        let control = RemoteControl {
            primary: 0,
            address: "10.0.0.1".to_string(),
            exposure: Exposure::NodeAddress,
        };
        let remote = mesh_settings(&member("west", None, None, true), None, Some(&control));
        let e = judge_cluster_files(
            "west",
            &[file("w.yaml", &format!("{head}  profile: default\n"))],
            &remote,
        )
        .unwrap_err();
        assert!(
            e.to_string().starts_with(
                "--cluster-file west=w.yaml: spec.profile is \"default\", but the mesh sets it to \"remote\" (from --remote west)"
            ),
            "{e}"
        );
        let primary = mesh_settings(&member("east", None, None, false), None, Some(&control));
        let e = judge_cluster_files(
            "east",
            &[file(
                "e.yaml",
                &format!("{head}  values:\n    global:\n      externalIstiod: false\n"),
            )],
            &primary,
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("spec.values.global.externalIstiod is \"false\""),
            "{e}"
        );
    }
}
