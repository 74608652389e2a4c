//! Reads and writes of Helm's release records (Secrets of type `helm.sh/release.v1`, see the
//! `helmrelease` crate for their format): the records of one release, every record a label
//! selector finds, and creating, replacing and deleting one. Which records an install writes
//! and when is `installer`'s.

use k8s_openapi::api::core::v1::Secret;
use kube::Api;
use kube::api::{DeleteParams, ListParams, PostParams};
use vocab::ObjectRef;

use crate::{Client, Error, ListTarget};

fn secret_ref(namespace: &str, name: &str) -> Box<ObjectRef> {
    Box::new(ObjectRef {
        api_version: "v1".into(),
        kind: "Secret".into(),
        namespace: Some(namespace.into()),
        name: name.into(),
    })
}

impl Client {
    /// The Secrets in `namespace` (every namespace when `None`) that `selector` finds, sorted
    /// by namespace and name.
    pub async fn labelled_secrets(
        &self,
        namespace: Option<&str>,
        selector: &str,
    ) -> Result<Vec<Secret>, Error> {
        let api: Api<Secret> = match namespace {
            Some(ns) => Api::namespaced(self.kube.clone(), ns),
            None => Api::all(self.kube.clone()),
        };
        let list = api
            .list(&ListParams::default().labels(selector))
            .await
            .map_err(|source| Error::List {
                target: Box::new(ListTarget {
                    api_version: "v1".into(),
                    kind: "Secret".into(),
                    selector: selector.to_string(),
                }),
                source,
            })?;
        let mut items = list.items;
        items.sort_by(|a, b| {
            (&a.metadata.namespace, &a.metadata.name)
                .cmp(&(&b.metadata.namespace, &b.metadata.name))
        });
        Ok(items)
    }

    /// Creates `secret` (in its own namespace), or replaces the one of its name when `replace`.
    pub async fn write_secret(&self, secret: &Secret, replace: bool) -> Result<(), Error> {
        let namespace = secret.metadata.namespace.clone().unwrap_or_default();
        let name = secret.metadata.name.clone().unwrap_or_default();
        let api: Api<Secret> = Api::namespaced(self.kube.clone(), &namespace);
        let result = if replace {
            let live = api.get(&name).await.map_err(|source| Error::Api {
                object: secret_ref(&namespace, &name),
                action: "get",
                source,
            })?;
            let mut secret = secret.clone();
            secret.metadata.resource_version = live.metadata.resource_version;
            api.replace(&name, &PostParams::default(), &secret).await
        } else {
            api.create(&PostParams::default(), secret).await
        };
        result.map(|_| ()).map_err(|source| Error::Api {
            object: secret_ref(&namespace, &name),
            action: if replace { "replace" } else { "create" },
            source,
        })
    }

    /// Deletes the Secret `namespace/name` (gone already is fine).
    pub async fn delete_secret(&self, namespace: &str, name: &str) -> Result<(), Error> {
        let api: Api<Secret> = Api::namespaced(self.kube.clone(), namespace);
        match api.delete(name, &DeleteParams::default()).await {
            Ok(_) => Ok(()),
            Err(kube::Error::Api(e)) if e.code == 404 => Ok(()),
            Err(source) => Err(Error::Api {
                object: secret_ref(namespace, name),
                action: "delete",
                source,
            }),
        }
    }
}
