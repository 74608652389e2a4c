//! The reads of `bosun mesh check` in one cluster ([`Client::mesh_read`]): istiod's values,
//! the Istio namespace's network label, the root of trust, every remote secret (each tried
//! against the API server it names, with its own credentials: a SelfSubjectReview), the
//! east-west gateway and its Gateway, and istiod's log. What they mean is `assess::mesh`'s.
//! No secret value leaves this module: a remote secret is reduced to its server, its token's
//! expiry and the API server's answer.

use std::collections::BTreeMap;

use assess::mesh::{ClusterRead, IstiodReport, IstiodValues, Probe, RemoteSecret, Root};
use k8s_openapi::api::authentication::v1::SelfSubjectReview;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Pod, Secret, Service};
use kube::Api;
use kube::api::{ApiResource, DynamicObject, GroupVersionKind, ListParams, LogParams, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use secrecy::ExposeSecret;
use serde_json::Value;

use crate::{Client, Error, ListTarget, RequestTimeout};

/// The label of the Secrets istiod reads other clusters with.
pub const MULTICLUSTER_LABEL: &str = "istio/multiCluster=true";

fn list_error(kind: &str, selector: String, source: kube::Error) -> Error {
    Error::List {
        target: Box::new(ListTarget {
            api_version: "v1".into(),
            kind: kind.into(),
            selector,
        }),
        source,
    }
}

fn get_error(kind: &str, namespace: Option<&str>, name: &str, source: kube::Error) -> Error {
    Error::Api {
        object: Box::new(vocab::ObjectRef {
            api_version: "v1".into(),
            kind: kind.into(),
            namespace: namespace.map(Into::into),
            name: name.into(),
        }),
        action: "get",
        source,
    }
}

impl Client {
    /// What `mesh check` needs of this cluster (`context` names it in the findings), its Istio
    /// in `namespace`. Each remote secret's API server is asked, with the secret's
    /// credentials, who they are, waiting at most `probe_timeout`.
    pub async fn mesh_read(
        &self,
        context: &str,
        namespace: &str,
        probe_timeout: RequestTimeout,
    ) -> Result<ClusterRead, Error> {
        let secrets = Api::<Secret>::namespaced(self.kube.clone(), namespace);
        let configmaps = Api::<ConfigMap>::namespaced(self.kube.clone(), namespace);
        let ns = Api::<Namespace>::all(self.kube.clone())
            .get_opt(namespace)
            .await
            .map_err(|e| get_error("Namespace", None, namespace, e))?;
        let namespace_network = ns
            .and_then(|n| n.metadata.labels)
            .and_then(|l| l.get(vocab::labels::NETWORK_LABEL).cloned());

        // istiod's values: the default revision's injector ConfigMap, else any revision's.
        let listed = configmaps
            .list(&ListParams::default())
            .await
            .map_err(|e| list_error("ConfigMap", format!("(none), in namespace {namespace}"), e))?;
        let mut injectors: Vec<&ConfigMap> = listed
            .items
            .iter()
            .filter(|c| {
                c.metadata
                    .name
                    .as_deref()
                    .is_some_and(|n| n.starts_with("istio-sidecar-injector"))
            })
            .collect();
        injectors.sort_by_key(|c| c.metadata.name.as_deref() != Some("istio-sidecar-injector"));
        let mut istiod = injectors.iter().find_map(|c| istiod_values(c, "values"));
        // A remote (the `remote` profile) runs no istiod and has no injector ConfigMap; its
        // values are in the ConfigMap `values[-REV]` (`merged-values`).
        let runs_no_istiod = injectors.is_empty() && istiod.is_none();
        if runs_no_istiod {
            let mut rendered: Vec<&ConfigMap> = listed
                .items
                .iter()
                .filter(|c| {
                    c.metadata
                        .name
                        .as_deref()
                        .is_some_and(|n| n == "values" || n.starts_with("values-"))
                })
                .collect();
            rendered.sort_by_key(|c| c.metadata.name.as_deref() != Some("values"));
            istiod = rendered
                .iter()
                .find_map(|c| istiod_values(c, "merged-values"));
        }
        let is_remote = runs_no_istiod && istiod.is_some();

        // The root of trust: cacerts, else istiod's self-signed CA.
        let mut root = None;
        for (name, keys) in [
            ("cacerts", &["root-cert.pem"][..]),
            ("istio-ca-secret", &["root-cert.pem", "ca-cert.pem"][..]),
        ] {
            let secret = secrets
                .get_opt(name)
                .await
                .map_err(|e| get_error("Secret", Some(namespace), name, e))?;
            let Some(data) = secret.and_then(|s| s.data) else {
                continue;
            };
            let pem = keys
                .iter()
                .filter_map(|k| data.get(*k))
                .map(|b| String::from_utf8_lossy(&b.0).into_owned())
                .find(|t| t.contains("-----BEGIN CERTIFICATE-----"));
            if let Some(pem) = pem {
                root = Some(Root {
                    source: format!("Secret {namespace}/{name}"),
                    pem,
                });
                break;
            }
        }

        // Remote secrets, each key a kubeconfig, each tried.
        let remote = secrets
            .list(&ListParams::default().labels(MULTICLUSTER_LABEL))
            .await
            .map_err(|e| {
                list_error(
                    "Secret",
                    format!("{MULTICLUSTER_LABEL}, in namespace {namespace}"),
                    e,
                )
            })?;
        let mut kubeconfigs = Vec::new();
        for secret in &remote.items {
            let name = format!(
                "{namespace}/{}",
                secret.metadata.name.as_deref().unwrap_or_default()
            );
            let data: BTreeMap<_, _> = secret.data.clone().unwrap_or_default();
            for (key, value) in data {
                kubeconfigs.push((name.clone(), key, value.0));
            }
        }
        let probes = kubeconfigs
            .into_iter()
            .map(|(secret, cluster, bytes)| async move {
                let (server, expires, probe) = probe_kubeconfig(&bytes, probe_timeout).await;
                RemoteSecret {
                    secret,
                    cluster,
                    server,
                    expires,
                    probe,
                }
            });
        let remote_secrets = futures::future::join_all(probes).await;

        // The east-west gateway and the Gateway that exposes the services.
        let eastwest_gateway = Api::<Service>::namespaced(self.kube.clone(), namespace)
            .get_opt("istio-eastwestgateway")
            .await
            .map_err(|e| get_error("Service", Some(namespace), "istio-eastwestgateway", e))?
            .is_some();
        let gateway = ApiResource::from_gvk(&GroupVersionKind::gvk(
            "networking.istio.io",
            "v1",
            "Gateway",
        ));
        let cross_network_gateway =
            Api::<DynamicObject>::namespaced_with(self.kube.clone(), namespace, &gateway)
                .get_opt("cross-network-gateway")
                .await
                .ok()
                .flatten()
                .is_some();

        let istiod_view = self.istiod_view(namespace, probe_timeout).await;
        Ok(ClusterRead {
            context: context.to_string(),
            namespace: namespace.to_string(),
            istiod,
            remote: is_remote,
            namespace_network,
            root,
            remote_secrets,
            eastwest_gateway,
            cross_network_gateway,
            istiod_view,
        })
    }

    /// istiod's view of the clusters it reads: the newest running istiod pod's
    /// `/debug/clusterz` on its port 15014, through a port-forward (istiod answers it only from
    /// localhost), else that pod's log (the `discovery` container's).
    async fn istiod_view(&self, namespace: &str, timeout: RequestTimeout) -> IstiodReport {
        let pods = Api::<Pod>::namespaced(self.kube.clone(), namespace);
        let listed = match pods.list(&ListParams::default().labels("app=istiod")).await {
            Ok(l) => l,
            Err(e) => {
                return IstiodReport::Unreadable(format!(
                    "listing istiod pods: {}",
                    crate::timeout::describe(&e)
                ));
            }
        };
        let newest = listed
            .items
            .into_iter()
            .filter(|p| {
                p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running")
                    && p.metadata.deletion_timestamp.is_none()
            })
            .max_by_key(|p| p.metadata.creation_timestamp.clone().map(|t| t.0));
        let Some(newest) = newest else {
            return IstiodReport::Unreadable(format!(
                "no running istiod pod (label app=istiod) in {namespace}"
            ));
        };
        let name = newest.metadata.name.unwrap_or_default();
        let pod = format!("{namespace}/{name}");
        let limit = timeout.0.unwrap_or(std::time::Duration::from_secs(30));
        let why = match self
            .pod_get(namespace, &name, 15014, "/debug/clusterz", limit)
            .await
        {
            Ok(r) if r.status == 200 => {
                return IstiodReport::Clusterz {
                    pod,
                    json: String::from_utf8_lossy(&r.body).into_owned(),
                };
            }
            Ok(r) => format!("it answered HTTP {}", r.status),
            Err(e) => e.to_string(),
        };
        match pods
            .logs(
                &name,
                &LogParams {
                    container: Some("discovery".into()),
                    ..LogParams::default()
                },
            )
            .await
        {
            Ok(log) => IstiodReport::Log { pod, why, log },
            Err(e) => IstiodReport::Unreadable(format!(
                "{why}; reading pod {pod}'s log: {}",
                crate::timeout::describe(&e)
            )),
        }
    }
}

/// istiod's values from an injector ConfigMap's `values` (JSON).
/// The cluster name, mesh ID and network of the values JSON under `key` of `configmap`.
fn istiod_values(configmap: &ConfigMap, key: &str) -> Option<IstiodValues> {
    let text = configmap.data.as_ref()?.get(key)?;
    let values: Value = serde_json::from_str(text).ok()?;
    let global = values.get("global")?;
    let text = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    Some(IstiodValues {
        cluster_name: text(global.pointer("/multiCluster/clusterName"))?,
        mesh_id: text(global.get("meshID")),
        network: text(global.get("network")),
    })
}

/// A remote secret's kubeconfig tried: its server, its token's expiry, and what the server
/// said to a SelfSubjectReview made with its credentials.
async fn probe_kubeconfig(
    bytes: &[u8],
    timeout: RequestTimeout,
) -> (Option<String>, Option<i64>, Probe) {
    let unusable = |why: String| (None, None, Probe::Unusable { why });
    let Ok(text) = std::str::from_utf8(bytes) else {
        return unusable("not UTF-8 text".into());
    };
    let kubeconfig = match Kubeconfig::from_yaml(text) {
        Ok(k) => k,
        Err(e) => return unusable(format!("not a kubeconfig: {e}")),
    };
    let config =
        match kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default()).await
        {
            Ok(c) => c,
            Err(e) => return unusable(format!("not a usable kubeconfig: {e}")),
        };
    let server = Some(
        config
            .cluster_url
            .to_string()
            .trim_end_matches('/')
            .to_string(),
    );
    let expires = config
        .auth_info
        .token
        .as_ref()
        .and_then(|t| assess::mesh::token_expiry(t.expose_secret()));
    if config.auth_info.token.is_none()
        && config.auth_info.client_certificate_data.is_none()
        && config.auth_info.auth_provider.is_none()
        && config.auth_info.exec.is_none()
    {
        return (
            server,
            expires,
            Probe::Unusable {
                why: "its user has no token and no client certificate".into(),
            },
        );
    }
    let client = match Client::from_config_bounded(config, timeout) {
        Ok(c) => c,
        Err(e) => {
            return (server, expires, Probe::Unusable { why: e.to_string() });
        }
    };
    let reviews = Api::<SelfSubjectReview>::all(client.kube.clone());
    let probe = match reviews
        .create(&PostParams::default(), &SelfSubjectReview::default())
        .await
    {
        Ok(review) => Probe::Accepted {
            user: review
                .status
                .and_then(|s| s.user_info)
                .and_then(|u| u.username)
                .unwrap_or_default(),
        },
        // Authenticated, but not allowed to review itself: the token is accepted.
        Err(kube::Error::Api(status)) if status.code == 403 => Probe::Accepted {
            user: "(authenticated; SelfSubjectReview forbidden)".into(),
        },
        Err(kube::Error::Api(status)) => Probe::Refused {
            status: status.code,
            message: status.message.clone(),
        },
        Err(e) => Probe::Unreachable {
            error: crate::timeout::describe(&e),
        },
    };
    (server, expires, probe)
}
