//! The cluster reads and writes of `create-remote-secret`: the cluster's UID, the service
//! account, the namespace, and the service account's long-lived token Secret (found, or
//! created and waited for until the token controller fills it). The objects themselves and
//! what they mean are `manifest::remote_secret`'s; the order of the steps is `installer`'s.

use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::{Namespace, Secret, ServiceAccount};
use kube::Api;
use kube::api::{ListParams, PostParams};
use serde_json::Value;
use vocab::ObjectRef;

use crate::{Client, Error};

/// What the token controller wrote into a token Secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenData {
    /// `ca.crt`: the API server's CA, PEM.
    pub ca: Vec<u8>,
    /// `token`, when written.
    pub token: Option<String>,
}

/// A token Secret of a service account, and whether this call created it.
#[derive(Debug, Clone)]
pub struct TokenSecret {
    pub name: String,
    pub created: bool,
    /// The Secret as read (or as created).
    pub secret: Secret,
}

fn object(kind: &str, namespace: Option<&str>, name: &str) -> Box<ObjectRef> {
    Box::new(ObjectRef {
        api_version: "v1".into(),
        kind: kind.into(),
        namespace: namespace.map(Into::into),
        name: name.into(),
    })
}

impl Client {
    /// The UID of the `kube-system` namespace: the name istioctl gives a cluster when it is
    /// given none (stable for the cluster's life, and unique).
    pub async fn kube_system_uid(&self) -> Result<String, Error> {
        let namespace = Api::<Namespace>::all(self.kube.clone())
            .get("kube-system")
            .await
            .map_err(|source| Error::Api {
                object: object("Namespace", None, "kube-system"),
                action: "get",
                source,
            })?;
        Ok(namespace.metadata.uid.unwrap_or_default())
    }

    /// Whether the ServiceAccount `namespace/name` exists.
    pub async fn service_account_exists(&self, namespace: &str, name: &str) -> Result<bool, Error> {
        Api::<ServiceAccount>::namespaced(self.kube.clone(), namespace)
            .get_opt(name)
            .await
            .map(|sa| sa.is_some())
            .map_err(|source| Error::Api {
                object: object("ServiceAccount", Some(namespace), name),
                action: "get",
                source,
            })
    }

    /// The Secret `namespace/name`, when it exists.
    pub async fn secret(&self, namespace: &str, name: &str) -> Result<Option<Secret>, Error> {
        Api::<Secret>::namespaced(self.kube.clone(), namespace)
            .get_opt(name)
            .await
            .map_err(|source| Error::Api {
                object: object("Secret", Some(namespace), name),
                action: "get",
                source,
            })
    }

    /// A token Secret of `service_account` in `namespace`: the first one there is (a Secret
    /// of type `kubernetes.io/service-account-token` annotated with the account's name), else
    /// `to_create` (`manifest::remote_secret::token_secret`), created.
    pub async fn service_account_token_secret(
        &self,
        namespace: &str,
        service_account: &str,
        to_create: &Value,
    ) -> Result<TokenSecret, Error> {
        let api = Api::<Secret>::namespaced(self.kube.clone(), namespace);
        let listed = api
            .list(&ListParams::default())
            .await
            .map_err(|source| Error::List {
                target: Box::new(crate::ListTarget {
                    api_version: "v1".into(),
                    kind: "Secret".into(),
                    selector: format!("(none), in namespace {namespace}"),
                }),
                source,
            })?;
        let existing = listed.items.into_iter().find(|secret| {
            serde_json::to_value(secret).is_ok_and(|json| {
                manifest::remote_secret::references_service_account(&json, service_account)
            })
        });
        if let Some(secret) = existing {
            return Ok(TokenSecret {
                name: secret.metadata.name.clone().unwrap_or_default(),
                created: false,
                secret,
            });
        }
        let name = to_create["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let failed = |action, source| Error::Api {
            object: object("Secret", Some(namespace), &name),
            action,
            source,
        };
        let secret: Secret =
            serde_json::from_value(to_create.clone()).map_err(|e| Error::InvalidObject {
                index: 0,
                reason: e.to_string(),
            })?;
        let secret = api
            .create(&PostParams::default(), &secret)
            .await
            .map_err(|e| failed("create", e))?;
        Ok(TokenSecret {
            name,
            created: true,
            secret,
        })
    }

    /// The token Secret's `ca.crt` and `token`, read again every 200 ms until the token
    /// controller has written them (`ca.crt` only, without `needs_token`), for up to
    /// `timeout`. The controller fills a new Secret within a moment; istioctl waits 5 s.
    pub async fn token_data(
        &self,
        secret: &Secret,
        needs_token: bool,
        timeout: Duration,
    ) -> Result<TokenData, Error> {
        let namespace = secret.metadata.namespace.clone().unwrap_or_default();
        let name = secret.metadata.name.clone().unwrap_or_default();
        let started = Instant::now();
        let mut current = secret.clone();
        loop {
            let data = current.data.clone().unwrap_or_default();
            let ca = data.get("ca.crt").map(|b| b.0.clone());
            let token = data
                .get("token")
                .map(|b| String::from_utf8_lossy(&b.0).into_owned());
            let missing = match (&ca, &token) {
                (None, _) => Some("ca.crt"),
                (Some(_), None) if needs_token => Some("token"),
                _ => None,
            };
            match (missing, ca) {
                (None, Some(ca)) => return Ok(TokenData { ca, token }),
                (Some(key), _) if started.elapsed() >= timeout => {
                    return Err(Error::Timeout {
                        what: format!("Secret {namespace}/{name}"),
                        condition: "filled by the token controller",
                        waited: started.elapsed(),
                        last: Some(format!(
                            "no {key:?} data; is kube-controller-manager running?"
                        )),
                    });
                }
                _ => {}
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
            current = self
                .secret(&namespace, &name)
                .await?
                .ok_or_else(|| Error::Timeout {
                    what: format!("Secret {namespace}/{name}"),
                    condition: "filled by the token controller",
                    waited: started.elapsed(),
                    last: Some("it was deleted meanwhile".into()),
                })?;
        }
    }

    /// The names of every token Secret of `service_account` in `namespace` (type
    /// `kubernetes.io/service-account-token`, annotated with the account), by name.
    pub async fn service_account_token_secrets(
        &self,
        namespace: &str,
        service_account: &str,
    ) -> Result<Vec<String>, Error> {
        let listed = Api::<Secret>::namespaced(self.kube.clone(), namespace)
            .list(&ListParams::default())
            .await
            .map_err(|source| Error::List {
                target: Box::new(crate::ListTarget {
                    api_version: "v1".into(),
                    kind: "Secret".into(),
                    selector: format!("(none), in namespace {namespace}"),
                }),
                source,
            })?;
        let mut names: Vec<String> = listed
            .items
            .into_iter()
            .filter(|secret| {
                serde_json::to_value(secret).is_ok_and(|json| {
                    manifest::remote_secret::references_service_account(&json, service_account)
                })
            })
            .filter_map(|s| s.metadata.name)
            .collect();
        names.sort();
        Ok(names)
    }

    /// Creates the Secret `secret` (JSON) in `namespace`.
    pub async fn create_secret(&self, namespace: &str, secret: &Value) -> Result<Secret, Error> {
        let name = secret["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let typed: Secret =
            serde_json::from_value(secret.clone()).map_err(|e| Error::InvalidObject {
                index: 0,
                reason: e.to_string(),
            })?;
        Api::<Secret>::namespaced(self.kube.clone(), namespace)
            .create(&PostParams::default(), &typed)
            .await
            .map_err(|source| Error::Api {
                object: object("Secret", Some(namespace), &name),
                action: "create",
                source,
            })
    }
}
