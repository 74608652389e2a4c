//! The live side of the webhook overlap check: reads the cluster's MutatingWebhookConfigurations
//! and hands them, with the rendered objects, to the pure [`crate::overlap::find_overlaps`].

use k8s_openapi::api::admissionregistration::v1::MutatingWebhookConfiguration;
use serde::Deserialize;
use serde_json::Value;
use vocab::ObjectRef;

use crate::overlap::{self, Overlap};
use crate::{Client, Error};

impl Client {
    /// The sidecar-injector webhooks among `rendered` that would inject the same pods as a live
    /// injector of another revision (see [`crate::overlap`]). Only reads the cluster.
    pub async fn webhook_overlaps(&self, rendered: &[Value]) -> Result<Vec<Overlap>, Error> {
        self.webhook_overlaps_after(rendered, false).await
    }

    /// [`Client::webhook_overlaps`], judging the live injector of the revision `default` as
    /// deactivated when `default_deactivated` (what setting the default tag does to it first).
    pub async fn webhook_overlaps_after(
        &self,
        rendered: &[Value],
        default_deactivated: bool,
    ) -> Result<Vec<Overlap>, Error> {
        // The shared list of injectors (`crate::reads`), which the tag checks read too.
        const LISTING: &str = "listing them to check for overlapping sidecar injectors";
        let all = || {
            Box::new(ObjectRef {
                api_version: "admissionregistration.k8s.io/v1".into(),
                kind: "MutatingWebhookConfiguration".into(),
                namespace: None,
                name: "(all)".into(),
            })
        };
        let ar = kube::core::ApiResource::erase::<MutatingWebhookConfiguration>(&());
        let items = self
            .list_shared(&ar, None, "")
            .await
            .map_err(|source| Error::Api {
                object: all(),
                action: LISTING,
                source,
            })?;
        let list = items
            .iter()
            .map(|item| MutatingWebhookConfiguration::deserialize(item.as_ref()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| Error::Api {
                object: all(),
                action: LISTING,
                source: kube::Error::SerdeError(e),
            })?;
        let live: Vec<Value> = list
            .iter()
            .map(|mwc| {
                let mut json = serde_json::to_value(mwc).unwrap_or(Value::Null);
                if let Some(map) = json.as_object_mut() {
                    // List items carry no kind; the pure check looks at it.
                    map.insert("kind".into(), "MutatingWebhookConfiguration".into());
                }
                let label = |name: &str| {
                    json.pointer("/metadata/labels")
                        .and_then(|l| l.get(name))
                        .and_then(Value::as_str)
                };
                if default_deactivated
                    && label(vocab::labels::REVISION_LABEL) == Some(vocab::labels::DEFAULT_REVISION)
                    && label(vocab::labels::TAG_LABEL).is_none()
                {
                    manifest::tag::deactivate(&mut json);
                }
                json
            })
            .collect();
        Ok(overlap::find_overlaps(rendered, &live)?)
    }
}
