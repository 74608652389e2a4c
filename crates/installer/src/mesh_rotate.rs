//! `mesh rotate-secrets`: every cluster's remote secret made again around a new token of its
//! reader service account, applied in every other cluster, and only then the reader's old
//! token Secrets deleted, so that the API server refuses the old tokens. Each istiod takes the
//! changed remote secret up by itself.
//!
//! The clusters are read first as `mesh check` reads them ([`crate::mesh_check::read_all`]):
//! each must have istiod's cluster name; the API server address other clusters reach a cluster
//! at is kept from the remote secrets they hold (else the kubeconfig's). Per cluster, in turn:
//! 1. a new token Secret `istio-reader-service-account-istio-remote-secret-token-<now>`,
//!    filled by the token controller;
//! 2. the remote secret with that token (as `create-remote-secret --name <cluster>
//!    --secret-name <new>`), server-side applied in every other cluster;
//! 3. if every apply succeeded, the reader's other token Secrets deleted (only Secrets of type
//!    `kubernetes.io/service-account-token` annotated with the reader account). If one failed,
//!    nothing is deleted: the old tokens still work, and running the command again converges.

use manifest::remote_secret::{self as objects, Auth, Options, READER_SERVICE_ACCOUNT, SecretType};

use crate::FIELD_MANAGER;
use crate::mesh::{ClusterError, ClusterFailure, MeshError};
use crate::mesh_check::{CheckOptions, ReadCluster, cluster_names, read_all};

/// What was done for one cluster.
#[derive(Debug, Clone)]
pub struct Rotated {
    pub context: String,
    pub cluster_name: String,
    /// The new token Secret.
    pub token_secret: String,
    /// The contexts whose remote secret for this cluster was replaced.
    pub applied_in: Vec<String>,
    /// The old token Secrets deleted.
    pub revoked: Vec<String>,
}

/// What happened, cluster by cluster, as it happens.
pub type OnRotated<'a> = &'a (dyn Fn(&Rotated) + Sync);

/// Rotates every cluster's reader token (see the module's documentation). `now` (seconds
/// since the epoch) names the new token Secrets.
pub async fn rotate_secrets(
    options: &CheckOptions,
    base: &cluster::Target,
    packages: &pipeline::InstallPackages,
    on: OnRotated<'_>,
) -> Result<Vec<Rotated>, MeshError> {
    let clusters = read_all(options, base).await?;
    let names = cluster_names(&clusters, &options.namespace)?;
    let namespace = &options.namespace;
    let mut done = Vec::new();
    for (i, c) in clusters.iter().enumerate() {
        let name = &names[i];
        let failed = |error: ClusterError| {
            MeshError::Clusters(vec![ClusterFailure {
                context: c.read.context.clone(),
                error,
            }])
        };
        // The server the other clusters reach this one at, as their remote secrets say.
        let server = clusters
            .iter()
            .flat_map(|o| o.read.remote_secrets.iter())
            .find(|s| &s.cluster == name)
            .and_then(|s| s.server.clone());
        let old = c
            .client
            .service_account_token_secrets(namespace, READER_SERVICE_ACCOUNT)
            .await
            .map_err(|e| failed(e.into()))?;
        let mut token = objects::token_secret(READER_SERVICE_ACCOUNT, namespace);
        let token_name = format!(
            "{}-{}",
            objects::token_secret_name(READER_SERVICE_ACCOUNT),
            options.now
        );
        token["metadata"]["name"] = token_name.clone().into();
        c.client
            .create_secret(namespace, &token)
            .await
            .map_err(|e| failed(e.into()))?;
        let request = crate::remote_secret::Request {
            options: Options::new(
                Some(name.clone()),
                SecretType::Remote,
                Auth::BearerToken,
                None,
                server,
                None,
                Some(token_name.clone()),
            )
            .map_err(|e| failed(e.into()))?,
            namespace: Some(namespace.clone()),
            create_service_account: false,
            manifests: None,
        };
        let made = crate::remote_secret::create_remote_secret(&c.client, &request, packages)
            .await
            .map_err(|e| failed(e.into()))?;
        let mut applied_in = Vec::new();
        let mut failures = Vec::new();
        let others: Vec<&ReadCluster> = clusters
            .iter()
            // A remote runs no istiod to read remote secrets.
            .filter(|o| o.read.context != c.read.context && !o.read.remote)
            .collect();
        let applies = others.iter().map(|o| {
            let secret = made.secret.clone();
            async move {
                let result = o
                    .client
                    .apply(std::slice::from_ref(&secret), FIELD_MANAGER, true)
                    .await;
                (o.read.context.clone(), result)
            }
        });
        for (context, result) in futures::future::join_all(applies).await {
            match result {
                Ok(_) => applied_in.push(context),
                Err(e) => failures.push(ClusterFailure {
                    context,
                    error: e.into(),
                }),
            }
        }
        if !failures.is_empty() {
            return Err(MeshError::Clusters(failures));
        }
        let mut revoked = Vec::new();
        for secret in old.iter().filter(|s| **s != token_name) {
            c.client
                .delete_secret(namespace, secret)
                .await
                .map_err(|e| failed(e.into()))?;
            revoked.push(secret.clone());
        }
        let rotated = Rotated {
            context: c.read.context.clone(),
            cluster_name: name.clone(),
            token_secret: token_name,
            applied_in,
            revoked,
        };
        on(&rotated);
        done.push(rotated);
    }
    Ok(done)
}
