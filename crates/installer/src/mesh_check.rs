//! `mesh check`'s sequence over several clusters: a client per kubeconfig context (all at
//! once, each failure named), each cluster read ([`cluster::Client::mesh_read`], all at once),
//! then the reads judged together ([`assess::mesh::check`]). Nothing is written.

use futures::future::join_all;

use crate::mesh::{ClusterFailure, MeshError};

/// What to check.
pub struct CheckOptions {
    /// The kubeconfig contexts, one per cluster (at least two, none twice).
    pub contexts: Vec<String>,
    /// The Istio namespace of every cluster.
    pub namespace: String,
    /// How long a remote secret's API server may take to answer.
    pub probe_timeout: cluster::RequestTimeout,
    /// Now, in seconds since the epoch (tokens' expiry is judged against it).
    pub now: i64,
}

/// A cluster of the mesh, read.
pub struct ReadCluster {
    pub client: cluster::Client,
    pub read: assess::mesh::ClusterRead,
}

/// A client for each context (of `base`'s kubeconfig files), its API server asked for its
/// version, and the cluster read, all at once; every context that could not be read is named.
pub async fn read_all(
    options: &CheckOptions,
    base: &cluster::Target,
) -> Result<Vec<ReadCluster>, MeshError> {
    if options.contexts.len() < 2 {
        return Err(MeshError::TooFewContexts(options.contexts.len()));
    }
    for (i, c) in options.contexts.iter().enumerate() {
        if options.contexts[..i].contains(c) {
            return Err(MeshError::ContextTwice(c.clone()));
        }
    }
    let reads = options.contexts.iter().map(|context| async move {
        let target = cluster::Target {
            context: Some(context.clone()),
            ..base.clone()
        };
        let read = async {
            let client = cluster::Client::connect(&target).await?;
            // The API server answers before anything else is judged (a context on a
            // server that does not answer is a failure to run, not a finding).
            client.cluster_facts().await?;
            let read = client
                .mesh_read(context, &options.namespace, options.probe_timeout)
                .await?;
            Ok::<_, cluster::Error>(ReadCluster { client, read })
        }
        .await;
        read.map_err(|e| ClusterFailure {
            context: context.clone(),
            error: e.into(),
        })
    });
    let mut read = Vec::new();
    let mut failed = Vec::new();
    for r in join_all(reads).await {
        match r {
            Ok(r) => read.push(r),
            Err(e) => failed.push(e),
        }
    }
    if !failed.is_empty() {
        return Err(MeshError::Clusters(failed));
    }
    Ok(read)
}

/// The findings, worst first; an error when a cluster could not be read at all (named).
pub async fn check(
    options: &CheckOptions,
    base: &cluster::Target,
) -> Result<Vec<assess::mesh::MeshFinding>, MeshError> {
    let read: Vec<assess::mesh::ClusterRead> = read_all(options, base)
        .await?
        .into_iter()
        .map(|r| r.read)
        .collect();
    Ok(assess::mesh::check(&read, options.now))
}

/// The cluster name istiod was installed with in each cluster, in order; every cluster that has
/// none (Istio not installed there) is named.
pub(crate) fn cluster_names(
    clusters: &[ReadCluster],
    namespace: &str,
) -> Result<Vec<String>, MeshError> {
    let mut names = Vec::new();
    let mut missing = Vec::new();
    for c in clusters {
        match &c.read.istiod {
            Some(values) => names.push(values.cluster_name.clone()),
            None => missing.push(ClusterFailure {
                context: c.read.context.clone(),
                error: crate::mesh::ClusterError::Installer(crate::Error::NotInstalled {
                    namespace: namespace.to_string(),
                }),
            }),
        }
    }
    if missing.is_empty() {
        Ok(names)
    } else {
        Err(MeshError::Clusters(missing))
    }
}
