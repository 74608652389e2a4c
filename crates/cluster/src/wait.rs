//! Waiting for objects to reach a state.

use std::time::{Duration, Instant};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::Api;

use crate::{Client, Error};

const POLL: Duration = Duration::from_millis(100);

impl Client {
    /// Waits until the CustomResourceDefinition `name` has condition `Established=True`, that
    /// is, until the API server serves its kinds. On timeout the error says why it is not: the
    /// reason and message of a false `NamesAccepted` or `Established`, or that it does not exist.
    pub async fn wait_crd_established(&self, name: &str, timeout: Duration) -> Result<(), Error> {
        let api: Api<CustomResourceDefinition> = Api::all(self.kube.clone());
        let start = Instant::now();
        loop {
            let crd = api.get_opt(name).await.map_err(|source| Error::Api {
                object: Box::new(crate::ObjectRef {
                    api_version: "apiextensions.k8s.io/v1".into(),
                    kind: "CustomResourceDefinition".into(),
                    namespace: None,
                    name: name.into(),
                }),
                action: "reading it while waiting until Established",
                source,
            })?;
            let last = match crd {
                None => Some("it does not exist".to_string()),
                Some(crd) => {
                    let conditions = crd.status.and_then(|s| s.conditions).unwrap_or_default();
                    let established = conditions
                        .iter()
                        .any(|c| c.type_ == "Established" && c.status == "True");
                    if established {
                        return Ok(());
                    }
                    conditions
                        .iter()
                        .find(|c| {
                            c.status == "False"
                                && (c.type_ == "NamesAccepted" || c.type_ == "Established")
                        })
                        .map(|c| {
                            format!(
                                "{}={}: {}: {}",
                                c.type_,
                                c.status,
                                c.reason.as_deref().unwrap_or(""),
                                c.message.as_deref().unwrap_or("")
                            )
                        })
                }
            };
            if start.elapsed() >= timeout {
                return Err(Error::Timeout {
                    what: format!("CustomResourceDefinition {name}"),
                    condition: "Established",
                    waited: start.elapsed(),
                    last,
                });
            }
            tokio::time::sleep(POLL).await;
        }
    }
}
