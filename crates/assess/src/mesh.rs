//! `bosun mesh check`'s judgements: pure functions from what the `cluster` crate read of each
//! cluster of a mesh ([`ClusterRead`]) to [`MeshFinding`]s, each with a stable code, a level,
//! the cluster (context) it is about, a message and a one-line fix. No secret value is ever put
//! into a finding.
//!
//! | code | level | what |
//! |---|---|---|
//! | BOSUN-MESH001 | Info | a cluster's remote secret for another cluster works: its API server answered and accepted the token |
//! | BOSUN-MESH002 | Error | no istiod configuration in a cluster (no `istio-sidecar-injector` ConfigMap with a cluster name): Istio is not installed there |
//! | BOSUN-MESH003 | Error | the clusters' mesh IDs differ, or two clusters have one cluster name |
//! | BOSUN-MESH004 | Error | a cluster holds no remote secret for another cluster of the mesh |
//! | BOSUN-MESH005 | Error | a remote secret holds no usable kubeconfig (no server, no token or client credential) |
//! | BOSUN-MESH006 | Error | a remote secret's API server does not answer |
//! | BOSUN-MESH007 | Error | a remote secret's API server refuses its token (401: revoked or invalid) |
//! | BOSUN-MESH008 | Error / Warning | a remote secret's token has expired / expires within 7 days (its JWT `exp`) |
//! | BOSUN-MESH009 | Error | the clusters' roots of trust differ (`root-cert.pem` of `cacerts`, else of istiod's self-signed `istio-ca-secret`), or a cluster has none |
//! | BOSUN-MESH010 | Error / Warning | the Istio namespace's `topology.istio.io/network` label differs from istiod's `values.global.network` (both set / only one set) |
//! | BOSUN-MESH011 | Error | clusters on several networks, and a cluster lacks the east-west gateway or the `cross-network-gateway` Gateway |
//! | BOSUN-MESH012 | Error | istiod does not report another cluster as synced (`/debug/clusterz`'s `syncStatus`; from the log: `kube controller for NAME synced` after the last time it removed or timed out that cluster) |
//! | BOSUN-MESH013 | Warning | istiod's `/debug/clusterz` could not be read (then the log is judged instead), or neither could (no running istiod pod) |
//!
//! How istiod's view is read: istiod serves `/debug/clusterz` (every cluster it reads, with
//! its sync status) on port 15014 only to requests from localhost or bearing a token istiod
//! authenticates; the API server's pod proxy strips the caller's `Authorization` header, so
//! istiod answers it 401. bosun does what istioctl does (`istioctl x remote-clusters`): it
//! port-forwards to the istiod pod (`cluster::port_forward`) and asks there, from localhost.
//! When that fails, it falls back to istiod's log, where its controllers write what they did
//! with each cluster ([`istiod_log_view`]), and says so.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::precheck::Level;

/// A token is said to expire soon (a Warning) within this many seconds.
pub const EXPIRY_WARNING_SECONDS: i64 = 7 * 24 * 3600;

/// What the `cluster` crate read of one cluster.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClusterRead {
    /// The kubeconfig context.
    pub context: String,
    /// The Istio namespace.
    pub namespace: String,
    /// istiod's values (`istio-sidecar-injector`'s; for a remote, the `values` ConfigMap's):
    /// None when there is none.
    pub istiod: Option<IstiodValues>,
    /// A remote of a primary-remote mesh (the `remote` profile): it runs no istiod, holds no
    /// remote secrets and needs no root of its own; a primary's istiod reads it.
    pub remote: bool,
    /// The Istio namespace's `topology.istio.io/network` label.
    pub namespace_network: Option<String>,
    /// The root of trust: where it was read and its PEM.
    pub root: Option<Root>,
    /// Every remote secret (label `istio/multiCluster=true`), each key of each.
    pub remote_secrets: Vec<RemoteSecret>,
    /// Whether the east-west gateway's Service `istio-eastwestgateway` exists.
    pub eastwest_gateway: bool,
    /// Whether the Gateway `cross-network-gateway` exists.
    pub cross_network_gateway: bool,
    /// istiod's view of the clusters it reads, as read.
    pub istiod_view: IstiodReport,
}

/// istiod's view of the clusters it reads, as it could be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IstiodReport {
    /// `/debug/clusterz`'s answer (JSON) from the pod `pod`.
    Clusterz { pod: String, json: String },
    /// `/debug/clusterz` could not be read (`why`); the pod's log instead.
    Log {
        pod: String,
        why: String,
        log: String,
    },
    /// Neither could be read.
    Unreadable(String),
}

impl Default for IstiodReport {
    fn default() -> IstiodReport {
        IstiodReport::Unreadable(String::new())
    }
}

/// What istiod was installed with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IstiodValues {
    pub cluster_name: String,
    pub mesh_id: Option<String>,
    pub network: Option<String>,
}

/// A root of trust as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// `Secret istio-system/cacerts` or `Secret istio-system/istio-ca-secret`.
    pub source: String,
    pub pem: String,
}

/// One kubeconfig of a remote secret (a Secret may hold several keys).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteSecret {
    /// `namespace/name`.
    pub secret: String,
    /// The cluster it is for: the data key (the name istiod gives the cluster).
    pub cluster: String,
    /// The API server it names.
    pub server: Option<String>,
    /// The token's `exp` (seconds since the epoch), when it is a JWT with one.
    pub expires: Option<i64>,
    /// What the API server said to the credentials.
    pub probe: Probe,
}

/// The API server's answer to a remote secret's credentials (a SelfSubjectReview).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// Accepted, as this user.
    Accepted { user: String },
    /// Refused (HTTP status, the server's message).
    Refused { status: u16, message: String },
    /// No answer (the error).
    Unreachable { error: String },
    /// The kubeconfig could not be used (why).
    Unusable { why: String },
}

/// One finding of `mesh check`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MeshFinding {
    pub code: &'static str,
    pub level: Level,
    /// The context of the cluster it is about.
    pub cluster: String,
    pub message: String,
    pub fix: String,
}

impl MeshFinding {
    fn new(
        code: &'static str,
        level: Level,
        cluster: &str,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) -> MeshFinding {
        MeshFinding {
            code,
            level,
            cluster: cluster.to_string(),
            message: message.into(),
            fix: fix.into(),
        }
    }

    /// `Error [BOSUN-MESH004] (cluster east) …`.
    pub fn log_line(&self) -> String {
        format!(
            "{} [{}] (cluster {}) {}",
            self.level, self.code, self.cluster, self.message
        )
    }
}

/// What istiod says of one cluster it reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClusterState {
    Synced,
    TimedOut,
    Removed,
    /// Another `/debug/clusterz` status (`syncing`, `closed`, …).
    Other(String),
}

/// Why `/debug/clusterz`'s answer could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ClusterzError {
    #[error("/debug/clusterz did not answer JSON: {0}")]
    NotJson(#[source] serde_json::Error),
    #[error("/debug/clusterz did not answer a list")]
    NotAList,
}

/// istiod's view from `/debug/clusterz`: a JSON list of clusters, each with its `id`,
/// `secretName` and `syncStatus` (`synced`, `syncing`, `timeout`, `closed`), as the pinned
/// istiod answers (older ones capitalised the fields).
pub fn clusterz_view(json: &str) -> Result<BTreeMap<String, ClusterState>, ClusterzError> {
    let value: serde_json::Value = serde_json::from_str(json).map_err(ClusterzError::NotJson)?;
    let list = value.as_array().ok_or(ClusterzError::NotAList)?;
    let mut out = BTreeMap::new();
    for entry in list {
        let field = |names: &[&str]| {
            names
                .iter()
                .find_map(|n| entry.get(*n).and_then(|v| v.as_str()))
                .map(str::to_string)
        };
        let Some(id) = field(&["id", "ID"]) else {
            continue;
        };
        let status = field(&["syncStatus", "SyncStatus"]).unwrap_or_default();
        let state = match status.to_ascii_lowercase().as_str() {
            "synced" => ClusterState::Synced,
            "timeout" => ClusterState::TimedOut,
            _ => ClusterState::Other(status),
        };
        out.insert(id, state);
    }
    Ok(out)
}

/// istiod's view of the clusters it reads, from its log: for each cluster ID, the last of
/// `kube controller for ID synced after …` (synced), `kube controller for ID initial sync timed
/// out` and `deleting cluster_id=ID …` / `shutting down cluster ID` (removed).
pub fn istiod_log_view(log: &str) -> BTreeMap<String, ClusterState> {
    let mut out = BTreeMap::new();
    for line in log.lines() {
        if let Some(rest) = after(line, "kube controller for ") {
            let id = first_word(rest);
            let tail = &rest[id.len()..];
            if tail.trim_start().starts_with("synced") {
                out.insert(id.to_string(), ClusterState::Synced);
            } else if tail.contains("initial sync timed out") {
                out.insert(id.to_string(), ClusterState::TimedOut);
            }
        } else if let Some(rest) = after(line, "deleting cluster_id=") {
            out.insert(first_word(rest).to_string(), ClusterState::Removed);
        } else if let Some(rest) = after(line, "shutting down cluster ") {
            out.insert(first_word(rest).to_string(), ClusterState::Removed);
        }
    }
    out
}

fn after<'a>(line: &'a str, marker: &str) -> Option<&'a str> {
    line.find(marker).map(|i| &line[i + marker.len()..])
}

fn first_word(text: &str) -> &str {
    let end = text
        .find(|c: char| c.is_whitespace() || c == '"' || c == ',')
        .unwrap_or(text.len());
    &text[..end]
}

/// The `exp` claim of a JWT (seconds since the epoch); None when `token` is not a JWT or has
/// none (a legacy service account token never expires).
pub fn token_expiry(token: &str) -> Option<i64> {
    let mut parts = token.trim().split('.');
    let (_, payload, _) = (parts.next()?, parts.next()?, parts.next()?);
    let bytes = base64url_decode(payload)?;
    let claims: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    claims.get("exp")?.as_i64()
}

fn base64url_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut buffer = 0u32;
    let mut bits = 0;
    for c in text.bytes().filter(|c| *c != b'=') {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            _ => return None,
        };
        buffer = (buffer << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// The first certificate of a PEM text, its base64 body without whitespace: two roots are one
/// when these are equal.
pub fn root_identity(pem: &str) -> Option<String> {
    let start = pem.find("-----BEGIN CERTIFICATE-----")? + "-----BEGIN CERTIFICATE-----".len();
    let end = start + pem[start..].find("-----END CERTIFICATE-----")?;
    let body: String = pem[start..end]
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    (!body.is_empty()).then_some(body)
}

/// The findings for a mesh of `clusters`, at `now` (seconds since the epoch), worst first.
pub fn check(clusters: &[ClusterRead], now: i64) -> Vec<MeshFinding> {
    let mut out = Vec::new();
    let names: Vec<(&ClusterRead, &IstiodValues)> = clusters
        .iter()
        .filter_map(|c| c.istiod.as_ref().map(|v| (c, v)))
        .collect();
    for c in clusters.iter().filter(|c| c.istiod.is_none()) {
        out.push(MeshFinding::new(
            "BOSUN-MESH002",
            Level::Error,
            &c.context,
            format!(
                "no istiod configuration in namespace {} (ConfigMap istio-sidecar-injector with values.global.multiCluster.clusterName): Istio is not installed here",
                c.namespace
            ),
            "install the mesh: bosun mesh install --context … --context …",
        ));
    }
    // One mesh ID, one name per cluster.
    let mesh_ids: BTreeSet<Option<&String>> =
        names.iter().map(|(_, v)| v.mesh_id.as_ref()).collect();
    if mesh_ids.len() > 1 {
        for (c, v) in &names {
            out.push(MeshFinding::new(
                "BOSUN-MESH003",
                Level::Error,
                &c.context,
                format!(
                    "mesh ID {:?}, while the clusters have {}",
                    v.mesh_id.as_deref().unwrap_or(""),
                    mesh_ids
                        .iter()
                        .map(|m| format!("{:?}", m.map(String::as_str).unwrap_or("")))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                "give every cluster one mesh ID (bosun mesh install --mesh-id ID)",
            ));
        }
    }
    for (i, (c, v)) in names.iter().enumerate() {
        if let Some((first, _)) = names[..i]
            .iter()
            .find(|(_, w)| w.cluster_name == v.cluster_name)
        {
            out.push(MeshFinding::new(
                "BOSUN-MESH003",
                Level::Error,
                &c.context,
                format!(
                    "cluster name {:?} is also context {}'s: istiod tells clusters apart by name",
                    v.cluster_name, first.context
                ),
                "give each cluster its own name (bosun mesh install --cluster-name CONTEXT=NAME)",
            ));
        }
    }
    // Remote secrets: every other cluster's, working, in each cluster that runs istiod (a
    // remote runs none; the primaries read it).
    for (c, _) in names.iter().filter(|(c, _)| !c.remote) {
        for (other, ov) in names.iter().filter(|(o, _)| o.context != c.context) {
            let name = &ov.cluster_name;
            let secrets: Vec<&RemoteSecret> = c
                .remote_secrets
                .iter()
                .filter(|s| &s.cluster == name)
                .collect();
            if secrets.is_empty() {
                out.push(MeshFinding::new(
                    "BOSUN-MESH004",
                    Level::Error,
                    &c.context,
                    format!(
                        "no remote secret for cluster {name} (context {}) in namespace {}: istiod here does not read that cluster",
                        other.context, c.namespace
                    ),
                    format!(
                        "bosun create-remote-secret --context {} --name {name} | kubectl --context {} apply -f - (or run bosun mesh install again)",
                        other.context, c.context
                    ),
                ));
            }
            for s in secrets {
                out.extend(judge_secret(c, &other.context, s, now));
            }
        }
    }
    // One root of trust.
    // A remote's workloads get their certificates from a primary's istiod: it needs no root.
    let roots: Vec<(&ClusterRead, Option<String>)> = clusters
        .iter()
        .filter(|c| !c.remote)
        .map(|c| (c, c.root.as_ref().and_then(|r| root_identity(&r.pem))))
        .collect();
    let distinct: BTreeSet<&String> = roots.iter().filter_map(|(_, r)| r.as_ref()).collect();
    for (c, root) in &roots {
        let source = c
            .root
            .as_ref()
            .map(|r| r.source.clone())
            .unwrap_or_default();
        match root {
            None => out.push(MeshFinding::new(
                "BOSUN-MESH009",
                Level::Error,
                &c.context,
                format!(
                    "no root of trust: neither Secret {ns}/cacerts nor istiod's {ns}/istio-ca-secret holds a root-cert.pem certificate",
                    ns = c.namespace
                ),
                "give every cluster an intermediate of one root: bosun mesh ca, then bosun mesh cacerts --context … --dir DIR/<cluster>, then restart istiod",
            )),
            Some(root) if distinct.len() > 1 => {
                let same: Vec<&str> = roots
                    .iter()
                    .filter(|(o, r)| o.context != c.context && r.as_ref() == Some(root))
                    .map(|(o, _)| o.context.as_str())
                    .collect();
                let others: Vec<&str> = roots
                    .iter()
                    .filter(|(o, r)| o.context != c.context && r.as_ref() != Some(root))
                    .map(|(o, _)| o.context.as_str())
                    .collect();
                out.push(MeshFinding::new(
                    "BOSUN-MESH009",
                    Level::Error,
                    &c.context,
                    format!(
                        "the root of trust in {source} differs from that of {}{}: workloads of those clusters do not trust each other",
                        others.join(", "),
                        if same.is_empty() {
                            String::new()
                        } else {
                            format!(" (it is shared with {})", same.join(", "))
                        }
                    ),
                    "give every cluster an intermediate of one root (bosun mesh cacerts --force --context … --dir DIR/<cluster>), then restart istiod",
                ));
            }
            Some(_) => {}
        }
    }
    // Networks.
    let networks: BTreeSet<&String> = names
        .iter()
        .filter_map(|(_, v)| v.network.as_ref())
        .collect();
    for (c, v) in &names {
        if c.namespace_network != v.network {
            // Both set and different: istiod and the namespace disagree. One of them alone
            // still gives the cluster a network, but not everywhere Istio looks for it.
            let level = if c.namespace_network.is_some() && v.network.is_some() {
                Level::Error
            } else {
                Level::Warning
            };
            out.push(MeshFinding::new(
                "BOSUN-MESH010",
                level,
                &c.context,
                format!(
                    "namespace {} is labelled topology.istio.io/network={:?} but istiod was installed with values.global.network={:?}",
                    c.namespace,
                    c.namespace_network.as_deref().unwrap_or(""),
                    v.network.as_deref().unwrap_or("")
                ),
                match &v.network {
                    Some(net) => format!(
                        "kubectl --context {} label namespace {} topology.istio.io/network={net} --overwrite",
                        c.context, c.namespace
                    ),
                    None => format!(
                        "kubectl --context {} label namespace {} topology.istio.io/network-",
                        c.context, c.namespace
                    ),
                },
            ));
        }
        if networks.len() > 1 {
            let mut missing = Vec::new();
            if !c.eastwest_gateway {
                missing.push("the east-west gateway (Service istio-eastwestgateway)".to_string());
            }
            if !c.cross_network_gateway {
                missing.push(format!("the Gateway {}/cross-network-gateway", c.namespace));
            }
            if !missing.is_empty() {
                out.push(MeshFinding::new(
                    "BOSUN-MESH011",
                    Level::Error,
                    &c.context,
                    format!(
                        "the clusters are on {} networks, but {} is missing: no traffic crosses into network {:?}",
                        networks.len(),
                        missing.join(" and "),
                        v.network.as_deref().unwrap_or("")
                    ),
                    "run bosun mesh install again with every cluster's --network",
                ));
            }
        }
    }
    // istiod's view (a remote runs no istiod).
    for (c, _) in names.iter().filter(|(c, _)| !c.remote) {
        let fallback = |why: String| {
            MeshFinding::new(
                "BOSUN-MESH013",
                Level::Warning,
                &c.context,
                why,
                format!(
                    "kubectl --context {} -n {} port-forward deploy/istiod 15014, then curl localhost:15014/debug/clusterz",
                    c.context, c.namespace
                ),
            )
        };
        let (view, source) = match &c.istiod_view {
            IstiodReport::Clusterz { pod, json } => match clusterz_view(json) {
                Ok(view) => (view, format!("{pod}'s /debug/clusterz")),
                Err(why) => {
                    out.push(fallback(format!("istiod's view could not be read: {why}")));
                    continue;
                }
            },
            IstiodReport::Log { pod, why, log } => {
                out.push(fallback(format!(
                    "istiod's /debug/clusterz could not be read ({why}); its view is taken from pod {pod}'s log instead"
                )));
                (istiod_log_view(log), format!("{pod}'s log"))
            }
            IstiodReport::Unreadable(why) => {
                out.push(fallback(format!(
                    "istiod's view of the other clusters could not be read: {why}"
                )));
                continue;
            }
        };
        for (other, ov) in names.iter().filter(|(o, _)| o.context != c.context) {
            let name = &ov.cluster_name;
            let why = match view.get(name) {
                Some(ClusterState::Synced) => continue,
                Some(ClusterState::TimedOut) => "its initial sync timed out".to_string(),
                Some(ClusterState::Removed) => {
                    "it removed that cluster (its remote secret went)".to_string()
                }
                Some(ClusterState::Other(status)) => format!("its status is {status:?}"),
                None => "it does not list it".to_string(),
            };
            out.push(MeshFinding::new(
                "BOSUN-MESH012",
                Level::Error,
                &c.context,
                format!(
                    "istiod does not report cluster {name} (context {}) as synced ({source}): {why}",
                    other.context
                ),
                "fix the remote secret findings of this cluster; istiod takes a new or changed remote secret up by itself",
            ));
        }
    }
    out.sort_by(|a, b| {
        b.level
            .cmp(&a.level)
            .then_with(|| a.cluster.cmp(&b.cluster))
            .then_with(|| a.code.cmp(b.code))
            .then_with(|| a.message.cmp(&b.message))
    });
    out.dedup();
    out
}

fn judge_secret(
    c: &ClusterRead,
    other_context: &str,
    s: &RemoteSecret,
    now: i64,
) -> Vec<MeshFinding> {
    let mut out = Vec::new();
    let server = s.server.as_deref().unwrap_or("(none)");
    let recreate = format!(
        "bosun create-remote-secret --context {other_context} --name {} | kubectl --context {} apply -f -",
        s.cluster, c.context
    );
    match &s.probe {
        Probe::Accepted { user } => out.push(MeshFinding::new(
            "BOSUN-MESH001",
            Level::Info,
            &c.context,
            format!(
                "remote secret {} for cluster {}: {server} accepts its token as {user}",
                s.secret, s.cluster
            ),
            "nothing to do",
        )),
        Probe::Unusable { why } => out.push(MeshFinding::new(
            "BOSUN-MESH005",
            Level::Error,
            &c.context,
            format!(
                "remote secret {} for cluster {} holds no usable kubeconfig: {why}",
                s.secret, s.cluster
            ),
            recreate.clone(),
        )),
        Probe::Unreachable { error } => out.push(MeshFinding::new(
            "BOSUN-MESH006",
            Level::Error,
            &c.context,
            format!(
                "remote secret {} for cluster {}: its API server {server} does not answer: {error}",
                s.secret, s.cluster
            ),
            format!(
                "check that {server} is the address the other cluster is reached at from here; else {recreate} with --server URL"
            ),
        )),
        Probe::Refused { status, message } => out.push(MeshFinding::new(
            "BOSUN-MESH007",
            Level::Error,
            &c.context,
            format!(
                "remote secret {} for cluster {}: {server} refuses its token ({status}{}): it was revoked or is not that cluster's",
                s.secret,
                s.cluster,
                if message.is_empty() {
                    String::new()
                } else {
                    format!(": {message}")
                }
            ),
            recreate.clone(),
        )),
    }
    if let Some(exp) = s.expires {
        if exp <= now {
            out.push(MeshFinding::new(
                "BOSUN-MESH008",
                Level::Error,
                &c.context,
                format!(
                    "remote secret {} for cluster {}: its token expired {} ago",
                    s.secret,
                    s.cluster,
                    span(now - exp)
                ),
                recreate,
            ));
        } else if exp - now < EXPIRY_WARNING_SECONDS {
            out.push(MeshFinding::new(
                "BOSUN-MESH008",
                Level::Warning,
                &c.context,
                format!(
                    "remote secret {} for cluster {}: its token expires in {}",
                    s.secret,
                    s.cluster,
                    span(exp - now)
                ),
                recreate,
            ));
        }
    }
    out
}

fn span(seconds: i64) -> String {
    match seconds {
        s if s >= 86400 => format!("{}d{}h", s / 86400, s % 86400 / 3600),
        s if s >= 3600 => format!("{}h{}m", s / 3600, s % 3600 / 60),
        s => format!("{}m{}s", s / 60, s % 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pem(body: &str) -> String {
        format!("-----BEGIN CERTIFICATE-----\n{body}\n-----END CERTIFICATE-----\n")
    }

    fn cluster(context: &str, others: &[&str]) -> ClusterRead {
        ClusterRead {
            context: context.into(),
            namespace: "istio-system".into(),
            istiod: Some(IstiodValues {
                cluster_name: context.into(),
                mesh_id: Some("mesh1".into()),
                network: Some("net1".into()),
            }),
            remote: false,
            namespace_network: Some("net1".into()),
            root: Some(Root {
                source: "Secret istio-system/cacerts".into(),
                pem: pem("QUJD\nREVG"),
            }),
            remote_secrets: others
                .iter()
                .map(|o| RemoteSecret {
                    secret: format!("istio-system/istio-remote-secret-{o}"),
                    cluster: o.to_string(),
                    server: Some(format!("https://{o}:6443")),
                    expires: None,
                    probe: Probe::Accepted {
                        user: "system:serviceaccount:istio-system:istio-reader-service-account"
                            .into(),
                    },
                })
                .collect(),
            eastwest_gateway: false,
            cross_network_gateway: false,
            istiod_view: IstiodReport::Clusterz {
                pod: "istiod-1".into(),
                json: serde_json::to_string(
                    &std::iter::once(context)
                        .chain(others.iter().copied())
                        .map(|id| serde_json::json!({"id": id, "secretName": "", "syncStatus": "synced"}))
                        .collect::<Vec<_>>(),
                )
                .unwrap(),
            },
        }
    }

    fn codes(findings: &[MeshFinding]) -> Vec<String> {
        findings
            .iter()
            .filter(|f| f.level != Level::Info)
            .map(|f| format!("{} {} {}", f.level, f.code, f.cluster))
            .collect()
    }

    /// Each case: a change to a healthy two-cluster mesh, and the findings above Info.
    #[test]
    fn findings_name_the_cluster_and_the_cause() {
        type Change = fn(&mut [ClusterRead]);
        let cases: &[(&str, Change, &[&str])] = &[
            ("healthy", |_| {}, &[]),
            (
                "secret deleted",
                |m| m[0].remote_secrets.clear(),
                &["Error BOSUN-MESH004 a"],
            ),
            (
                "token refused",
                |m| {
                    m[1].remote_secrets[0].probe = Probe::Refused {
                        status: 401,
                        message: "Unauthorized".into(),
                    }
                },
                &["Error BOSUN-MESH007 b"],
            ),
            (
                "server silent",
                |m| {
                    m[1].remote_secrets[0].probe = Probe::Unreachable {
                        error: "connection refused".into(),
                    }
                },
                &["Error BOSUN-MESH006 b"],
            ),
            (
                "expired",
                |m| m[0].remote_secrets[0].expires = Some(999),
                &["Error BOSUN-MESH008 a"],
            ),
            (
                "expires soon",
                |m| m[0].remote_secrets[0].expires = Some(1000 + 3600),
                &["Warning BOSUN-MESH008 a"],
            ),
            (
                "foreign root",
                |m| m[1].root.as_mut().unwrap().pem = pem("WFla"),
                &["Error BOSUN-MESH009 a", "Error BOSUN-MESH009 b"],
            ),
            ("no root", |m| m[1].root = None, &["Error BOSUN-MESH009 b"]),
            (
                "b a remote of a: no istiod, no secrets, no root of its own",
                |m| {
                    m[1].remote = true;
                    m[1].remote_secrets.clear();
                    m[1].root = None;
                    m[1].istiod_view = IstiodReport::Unreadable("no running istiod pod".into());
                },
                &[],
            ),
            (
                "the primary without the remote's secret",
                |m| {
                    m[1].remote = true;
                    m[1].remote_secrets.clear();
                    m[0].remote_secrets.clear();
                },
                &["Error BOSUN-MESH004 a"],
            ),
            (
                "network label missing",
                |m| m[0].namespace_network = None,
                &["Warning BOSUN-MESH010 a"],
            ),
            (
                "network label differs",
                |m| m[0].namespace_network = Some("net9".into()),
                &["Error BOSUN-MESH010 a"],
            ),
            (
                "two networks without gateways",
                |m| {
                    m[1].istiod.as_mut().unwrap().network = Some("net2".into());
                    m[1].namespace_network = Some("net2".into());
                    m[0].eastwest_gateway = true;
                    m[0].cross_network_gateway = true;
                },
                &["Error BOSUN-MESH011 b"],
            ),
            (
                "istiod syncing",
                |m| {
                    m[0].istiod_view = IstiodReport::Clusterz {
                        pod: "istiod-1".into(),
                        json: r#"[{"id":"a","syncStatus":"synced"},{"id":"b","syncStatus":"syncing"}]"#.into(),
                    }
                },
                &["Error BOSUN-MESH012 a"],
            ),
            (
                "istiod lists nothing",
                |m| {
                    m[1].istiod_view = IstiodReport::Clusterz {
                        pod: "istiod-1".into(),
                        json: "[]".into(),
                    }
                },
                &["Error BOSUN-MESH012 b"],
            ),
            (
                "istiod's log: removed",
                |m| {
                    m[0].istiod_view = IstiodReport::Log {
                        pod: "istiod-1".into(),
                        why: "refused".into(),
                        log: "kube controller for b synced after 1s\ndeleting cluster_id=b configured by secret x\n".into(),
                    }
                },
                &["Error BOSUN-MESH012 a", "Warning BOSUN-MESH013 a"],
            ),
            (
                "istiod's log: synced",
                |m| {
                    m[0].istiod_view = IstiodReport::Log {
                        pod: "istiod-1".into(),
                        why: "refused".into(),
                        log: "kube controller for b synced after 1s\n".into(),
                    }
                },
                &["Warning BOSUN-MESH013 a"],
            ),
            (
                "istiod unreadable",
                |m| m[1].istiod_view = IstiodReport::Unreadable("no running istiod pod".into()),
                &["Warning BOSUN-MESH013 b"],
            ),
            (
                "not installed",
                |m| m[1].istiod = None,
                &["Error BOSUN-MESH002 b"],
            ),
            (
                "mesh IDs",
                |m| m[1].istiod.as_mut().unwrap().mesh_id = Some("other".into()),
                &["Error BOSUN-MESH003 a", "Error BOSUN-MESH003 b"],
            ),
        ];
        for (name, change, want) in cases {
            let mut mesh = vec![cluster("a", &["b"]), cluster("b", &["a"])];
            change(&mut mesh);
            let got = codes(&check(&mesh, 1000));
            assert_eq!(got, *want, "{name}: {:#?}", check(&mesh, 1000));
        }
        let healthy = check(&[cluster("a", &["b"]), cluster("b", &["a"])], 1000);
        assert_eq!(healthy.len(), 2, "one Info per working secret");
    }

    #[test]
    fn the_expiry_of_a_jwt() {
        // {"alg":"RS256"} . {"exp":1700000000,"sub":"x"} . signature
        let token = "eyJhbGciOiJSUzI1NiJ9.eyJleHAiOjE3MDAwMDAwMDAsInN1YiI6IngifQ.c2ln";
        assert_eq!(token_expiry(token), Some(1_700_000_000));
        assert_eq!(token_expiry("not-a-jwt"), None);
        // No exp: a legacy token.
        assert_eq!(
            token_expiry("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"),
            None
        );
    }

    #[test]
    fn istiod_log_lines() {
        let log = "2026-12-07T04:00:00Z info kube controller for west synced after 12ms\n\
                   2026-12-07T04:00:01Z warn kube controller for south initial sync timed out\n\
                   2026-12-07T04:00:02Z info kube controller for north synced after 1s\n\
                   2026-12-07T04:00:03Z info deleting cluster_id=north configured by secret istio-system/x\n";
        let view = istiod_log_view(log);
        assert_eq!(view.get("west"), Some(&ClusterState::Synced));
        assert_eq!(view.get("south"), Some(&ClusterState::TimedOut));
        assert_eq!(view.get("north"), Some(&ClusterState::Removed));
    }
}
