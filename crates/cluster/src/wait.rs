//! Waiting for objects to reach a state.

use std::time::{Duration, Instant};

use futures::StreamExt;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, WatchEvent, WatchParams};

use crate::{Client, Error};

const POLL: Duration = Duration::from_millis(100);

/// Whether a CustomResourceDefinition (as JSON) has condition `Established=True`.
pub(crate) fn is_established(crd: &serde_json::Value) -> bool {
    crd.pointer("/status/conditions")
        .and_then(serde_json::Value::as_array)
        .is_some_and(|conditions| {
            conditions.iter().any(|c| {
                c.get("type").and_then(serde_json::Value::as_str) == Some("Established")
                    && c.get("status").and_then(serde_json::Value::as_str) == Some("True")
            })
        })
}

impl Client {
    /// Waits until the CustomResourceDefinition `name` has condition `Established=True`, that
    /// is, until the API server serves its kinds. On timeout the error says why it is not: the
    /// reason and message of a false `NamesAccepted` or `Established`, or that it does not exist.
    pub async fn wait_crd_established(&self, name: &str, timeout: Duration) -> Result<(), Error> {
        let api: Api<CustomResourceDefinition> = Api::all(self.kube.clone());
        let start = Instant::now();
        loop {
            let crd = api.get_opt(name).await.map_err(|source| Error::Api {
                object: Box::new(vocab::ObjectRef {
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

    /// Waits until each of the CustomResourceDefinitions `names` is Established, with one
    /// watch of CRDs starting at `since` (a resource version no later than their creation),
    /// instead of reading each one until it is. If the watch cannot be used (`since` is not a
    /// number, the server ends or refuses the watch), the CRDs still pending are waited for
    /// one by one with [`Client::wait_crd_established`].
    pub async fn wait_crds_established(
        &self,
        names: &[String],
        since: Option<&str>,
        timeout: Duration,
    ) -> Result<(), Error> {
        let start = Instant::now();
        let mut pending: Vec<&str> = names.iter().map(String::as_str).collect();
        if !pending.is_empty() {
            // A wait: it adds its own time to the command's deadline.
            self.extend_deadline(timeout);
        }
        if let Some(since) = since.filter(|rv| rv.parse::<u64>().is_ok())
            && !pending.is_empty()
        {
            let api: Api<CustomResourceDefinition> = Api::all(self.kube.clone());
            let seconds = timeout.as_secs().clamp(1, u32::MAX as u64) as u32;
            if let Ok(stream) = api
                .watch(&WatchParams::default().timeout(seconds), since)
                .await
            {
                let mut stream = std::pin::pin!(stream);
                while !pending.is_empty() {
                    let left = timeout.saturating_sub(start.elapsed());
                    let event = match tokio::time::timeout(left, stream.next()).await {
                        Ok(Some(Ok(event))) => event,
                        // Ended, failed, or out of time: the per-CRD wait below decides.
                        _ => break,
                    };
                    match event {
                        WatchEvent::Added(crd) | WatchEvent::Modified(crd) => {
                            let json = serde_json::to_value(&crd).unwrap_or_default();
                            if is_established(&json) {
                                let name = crd.metadata.name.unwrap_or_default();
                                pending.retain(|p| *p != name);
                            }
                        }
                        WatchEvent::Error(_) => break,
                        _ => {}
                    }
                }
            }
        }
        for name in pending {
            let left = timeout.saturating_sub(start.elapsed());
            self.wait_crd_established(name, left).await?;
        }
        Ok(())
    }
}
