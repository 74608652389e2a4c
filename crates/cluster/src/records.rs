//! Small records bosun keeps in the cluster: a ConfigMap whose `data` is the record (the
//! canary upgrade's progress, `installer::canary`). This module only reads, creates, updates
//! and deletes them; what the keys mean is the caller's.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::Api;
use kube::api::{DeleteParams, PostParams};
use serde_json::json;
use vocab::ObjectRef;

use crate::{Client, Error};

/// A record as read: its data and labels.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    pub labels: BTreeMap<String, String>,
    pub data: BTreeMap<String, String>,
}

/// What [`Client::create_record`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Created {
    Created,
    /// A ConfigMap of that name exists already: nothing was written.
    AlreadyExists,
}

fn config_map(namespace: &str, name: &str) -> ObjectRef {
    ObjectRef {
        api_version: "v1".into(),
        kind: "ConfigMap".into(),
        namespace: Some(namespace.into()),
        name: name.into(),
    }
}

impl Client {
    /// The ConfigMap `namespace/name` as a record, or `None` when there is none.
    pub async fn read_record(&self, namespace: &str, name: &str) -> Result<Option<Record>, Error> {
        let api: Api<ConfigMap> = Api::namespaced(self.kube().clone(), namespace);
        let found = api.get_opt(name).await.map_err(|source| Error::Api {
            object: Box::new(config_map(namespace, name)),
            action: "reading it",
            source,
        })?;
        Ok(found.map(|cm| Record {
            labels: cm.metadata.labels.unwrap_or_default(),
            data: cm.data.unwrap_or_default(),
        }))
    }

    /// Creates the ConfigMap `namespace/name` with `record`, unless one exists: creating is
    /// the lock (two runs cannot both create it).
    pub async fn create_record(
        &self,
        namespace: &str,
        name: &str,
        record: &Record,
    ) -> Result<Created, Error> {
        let api: Api<ConfigMap> = Api::namespaced(self.kube().clone(), namespace);
        let cm: ConfigMap = serde_json::from_value(json!({
            "metadata": {"name": name, "namespace": namespace, "labels": record.labels},
            "data": record.data,
        }))
        .map_err(|e| Error::InvalidObject {
            index: 0,
            reason: e.to_string(),
        })?;
        match api.create(&PostParams::default(), &cm).await {
            Ok(_) => Ok(Created::Created),
            Err(kube::Error::Api(status)) if status.code == 409 => Ok(Created::AlreadyExists),
            Err(source) => Err(Error::Api {
                object: Box::new(config_map(namespace, name)),
                action: "creating it",
                source,
            }),
        }
    }

    /// Replaces the data of the ConfigMap `namespace/name` with `data` (keys not in `data`
    /// are removed).
    pub async fn update_record(
        &self,
        namespace: &str,
        name: &str,
        data: &BTreeMap<String, String>,
    ) -> Result<(), Error> {
        let api: Api<ConfigMap> = Api::namespaced(self.kube().clone(), namespace);
        let failed = |action, source| Error::Api {
            object: Box::new(config_map(namespace, name)),
            action,
            source,
        };
        // Read and replace (with the resourceVersion read): a merge patch cannot drop keys it
        // does not name, and a concurrent writer makes the replace fail rather than be lost.
        let mut cm = api
            .get(name)
            .await
            .map_err(|source| failed("reading it", source))?;
        cm.data = Some(data.clone());
        api.replace(name, &PostParams::default(), &cm)
            .await
            .map_err(|source| failed("updating it", source))?;
        Ok(())
    }

    /// Deletes the ConfigMap `namespace/name`; one that is gone already is no error.
    pub async fn delete_record(&self, namespace: &str, name: &str) -> Result<(), Error> {
        let api: Api<ConfigMap> = Api::namespaced(self.kube().clone(), namespace);
        match api.delete(name, &DeleteParams::default()).await {
            Ok(_) => Ok(()),
            Err(kube::Error::Api(status)) if status.code == 404 => Ok(()),
            Err(source) => Err(Error::Api {
                object: Box::new(config_map(namespace, name)),
                action: "deleting it",
                source,
            }),
        }
    }
}
