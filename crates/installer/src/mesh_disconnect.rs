//! `mesh disconnect`: the given clusters stop reading each other. In each cluster, the remote
//! secrets of the other given clusters are deleted (each istiod drops a cluster whose secret
//! goes away); nothing else changes. The readers' tokens stay valid, since other clusters of
//! the mesh may still use them: `mesh rotate-secrets` among the clusters that stay revokes
//! them.
//!
//! The clusters are read first as `mesh check` reads them ([`crate::mesh_check::read_all`]):
//! each needs istiod's cluster name, which names the remote secrets' keys. A Secret holding a
//! key of a cluster that stays connected besides a key of one that leaves is refused (deleting
//! it would cut off the first too), before anything is deleted.

use std::collections::BTreeMap;

use assess::mesh::ClusterRead;

use crate::mesh::{ClusterFailure, MeshError};
use crate::mesh_check::{CheckOptions, cluster_names, read_all};

/// What was deleted in one cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disconnected {
    pub context: String,
    /// The remote secrets deleted (`namespace/name`) and the clusters each was for.
    pub deleted: Vec<(String, Vec<String>)>,
}

/// In each cluster, the remote secrets of the other given clusters (see the module's
/// documentation), or the first refusal. Pure: `names[i]` is the cluster name of `reads[i]`.
pub fn secrets_to_delete(
    reads: &[ClusterRead],
    names: &[String],
) -> Result<Vec<Disconnected>, MeshError> {
    let mut plan = Vec::new();
    for (i, read) in reads.iter().enumerate() {
        let leaving: Vec<&String> = names
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, n)| n)
            .collect();
        // A Secret may hold several keys (clusters): group them.
        let mut by_secret: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for s in &read.remote_secrets {
            by_secret
                .entry(s.secret.as_str())
                .or_default()
                .push(s.cluster.clone());
        }
        let mut deleted = Vec::new();
        for (secret, clusters) in by_secret {
            let (going, staying): (Vec<String>, Vec<String>) =
                clusters.into_iter().partition(|c| leaving.contains(&c));
            if going.is_empty() {
                continue;
            }
            if !staying.is_empty() {
                return Err(MeshError::SharedRemoteSecret {
                    context: read.context.clone(),
                    secret: secret.to_string(),
                    leaving: going,
                    staying,
                });
            }
            deleted.push((secret.to_string(), going));
        }
        plan.push(Disconnected {
            context: read.context.clone(),
            deleted,
        });
    }
    Ok(plan)
}

/// Disconnects the clusters of `options` (see the module's documentation); `on` hears each
/// cluster once its secrets are deleted.
pub async fn disconnect(
    options: &CheckOptions,
    base: &cluster::Target,
    on: &(dyn Fn(&Disconnected) + Sync),
) -> Result<Vec<Disconnected>, MeshError> {
    let clusters = read_all(options, base).await?;
    let names = cluster_names(&clusters, &options.namespace)?;
    let reads: Vec<ClusterRead> = clusters.iter().map(|c| c.read.clone()).collect();
    let plan = secrets_to_delete(&reads, &names)?;
    for (c, done) in clusters.iter().zip(&plan) {
        for (secret, _) in &done.deleted {
            let (namespace, name) = secret
                .split_once('/')
                .unwrap_or((&options.namespace, secret));
            c.client.delete_secret(namespace, name).await.map_err(|e| {
                MeshError::Clusters(vec![ClusterFailure {
                    context: c.read.context.clone(),
                    error: e.into(),
                }])
            })?;
        }
        on(done);
    }
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use assess::mesh::{IstiodReport, Probe, RemoteSecret};

    fn read(context: &str, secrets: &[(&str, &str)]) -> ClusterRead {
        ClusterRead {
            context: context.into(),
            namespace: "istio-system".into(),
            istiod: None,
            remote: false,
            namespace_network: None,
            root: None,
            remote_secrets: secrets
                .iter()
                .map(|(secret, cluster)| RemoteSecret {
                    secret: format!("istio-system/{secret}"),
                    cluster: cluster.to_string(),
                    server: None,
                    expires: None,
                    probe: Probe::Accepted { user: "u".into() },
                })
                .collect(),
            eastwest_gateway: false,
            cross_network_gateway: false,
            istiod_view: IstiodReport::Log {
                pod: String::new(),
                why: String::new(),
                log: String::new(),
            },
        }
    }

    #[test]
    fn each_cluster_loses_the_secrets_of_the_others_only() {
        // east and west leave each other; both keep reading north.
        let reads = [
            read(
                "e",
                &[
                    ("istio-remote-secret-west", "west"),
                    ("istio-remote-secret-north", "north"),
                ],
            ),
            read(
                "w",
                &[
                    ("istio-remote-secret-east", "east"),
                    ("istio-remote-secret-north", "north"),
                ],
            ),
        ];
        let names = ["east".to_string(), "west".to_string()];
        let plan = secrets_to_delete(&reads, &names).unwrap();
        assert_eq!(
            plan,
            vec![
                Disconnected {
                    context: "e".into(),
                    deleted: vec![(
                        "istio-system/istio-remote-secret-west".into(),
                        vec!["west".into()]
                    )],
                },
                Disconnected {
                    context: "w".into(),
                    deleted: vec![(
                        "istio-system/istio-remote-secret-east".into(),
                        vec!["east".into()]
                    )],
                },
            ]
        );
        // Already disconnected: nothing to delete.
        let bare = [read("e", &[]), read("w", &[])];
        let plan = secrets_to_delete(&bare, &names).unwrap();
        assert!(plan.iter().all(|d| d.deleted.is_empty()));
    }

    #[test]
    fn a_secret_shared_with_a_cluster_that_stays_is_refused() {
        let reads = [
            read("e", &[("both", "west"), ("both", "north")]),
            read("w", &[]),
        ];
        let names = ["east".to_string(), "west".to_string()];
        let err = secrets_to_delete(&reads, &names).unwrap_err();
        assert_eq!(
            err.to_string(),
            "context \"e\": the remote secret istio-system/both also holds the cluster(s) north that stay connected: deleting it would cut them off too; remove its keys for west by hand"
        );
    }
}
