//! `create-remote-secret`'s sequence, as istioctl's `istioctl/pkg/multicluster` runs it: name
//! the cluster, make sure the service account exists (creating the reader's from the charts,
//! as istioctl does from its compiled-in ones), get or create its long-lived token Secret, wait
//! for the token controller to fill it, and build the remote secret around its CA and token.
//!
//! Every check that can fail on the input (the service account that cannot be created, a
//! `--secret-name` that names no token of the account, the reader objects' render) runs before
//! the first write, so a refused request leaves the cluster as it was. Options are checked
//! before this is called (`manifest::remote_secret::Options`).

use std::time::Duration;

use manifest::remote_secret::{
    self as objects, DEFAULT_NAMESPACE, Options, READER_SERVICE_ACCOUNT,
};
use serde_json::Value;

use crate::{Error, FIELD_MANAGER};

/// How long the token controller has to fill a token Secret just created.
const TOKEN_WAIT: Duration = Duration::from_secs(10);

/// What to make a remote secret of, and where.
#[derive(Debug, Clone)]
pub struct Request {
    pub options: Options,
    /// `--namespace`; None: the kubeconfig context's namespace, else `istio-system`.
    pub namespace: Option<String>,
    /// `--create-service-account`: create the reader service account (and its cluster role)
    /// when missing.
    pub create_service_account: bool,
    /// `--manifests`: the install package the reader objects are rendered from (the pinned
    /// release's when None).
    pub manifests: Option<String>,
}

impl Request {
    /// The namespace the request uses on `client`'s cluster.
    pub fn namespace(&self, client: &cluster::Client) -> String {
        self.namespace
            .clone()
            .filter(|n| !n.is_empty())
            .or_else(|| client.context_namespace().map(str::to_string))
            .unwrap_or_else(|| DEFAULT_NAMESPACE.to_string())
    }
}

/// A remote secret made, and what was written to make it.
#[derive(Debug, Clone)]
pub struct RemoteSecret {
    /// The Secret, as printed (`stringData`).
    pub secret: Value,
    /// What `create-remote-secret` prints: the header, the YAML, `---`.
    pub printed: String,
    /// istioctl's warning about a server other clusters cannot reach.
    pub warning: Option<String>,
    /// The cluster's name in the mesh (`--name`, or the kube-system UID).
    pub name: String,
    pub namespace: String,
    /// The token Secret the kubeconfig's credentials come from, and whether it was created.
    pub token_secret: String,
    pub token_secret_created: bool,
    /// The reader objects applied because the service account was missing (none otherwise).
    pub applied: Vec<vocab::ObjectRef>,
}

/// Makes the remote secret `request` asks for from `client`'s cluster (see the module's
/// documentation for the steps).
pub async fn create_remote_secret(
    client: &cluster::Client,
    request: &Request,
    packages: &pipeline::InstallPackages,
) -> Result<RemoteSecret, Error> {
    let options = &request.options;
    let namespace = request.namespace(client);
    let name = match &options.name {
        Some(name) => name.clone(),
        None => client.kube_system_uid().await?,
    };
    let service_account = options.service_account().to_string();

    // Reads and checks: nothing is written until each passes.
    let mut reader_objects = Vec::new();
    if !client
        .service_account_exists(&namespace, &service_account)
        .await?
    {
        if !request.create_service_account {
            return Err(Error::MissingServiceAccount {
                namespace,
                name: service_account,
            });
        }
        if service_account != READER_SERVICE_ACCOUNT {
            return Err(Error::CannotCreateServiceAccount {
                namespace,
                name: service_account,
            });
        }
        reader_objects = render_reader_objects(&namespace, request.manifests.clone(), packages)?;
    }
    let chosen_token = match &options.token_secret {
        Some(secret_name) => {
            let secret = client
                .secret(&namespace, secret_name)
                .await?
                .ok_or_else(|| Error::TokenSecretNotFound {
                    namespace: namespace.clone(),
                    name: secret_name.clone(),
                })?;
            let json = serde_json::to_value(&secret).unwrap_or_default();
            if !objects::references_service_account(&json, &service_account) {
                return Err(Error::TokenSecretOfAnother {
                    namespace,
                    name: secret_name.clone(),
                    service_account,
                });
            }
            Some(secret)
        }
        None => None,
    };
    let (server, warning) = match &options.server {
        Some(server) => (server.clone(), None),
        None => (
            client.server().to_string(),
            objects::server_warning(client.server()),
        ),
    };

    // Writes.
    let mut applied = Vec::new();
    if !reader_objects.is_empty() {
        client.ensure_namespace(&namespace, FIELD_MANAGER).await?;
        let report = client.apply(&reader_objects, FIELD_MANAGER, true).await?;
        applied = report.objects.into_iter().map(|a| a.object).collect();
        if !client
            .service_account_exists(&namespace, &service_account)
            .await?
        {
            return Err(Error::MissingServiceAccount {
                namespace,
                name: service_account,
            });
        }
    }
    let (token_secret, created) = match chosen_token {
        Some(secret) => (secret, false),
        None => {
            let found = client
                .service_account_token_secret(
                    &namespace,
                    &service_account,
                    &objects::token_secret(&service_account, &namespace),
                )
                .await?;
            (found.secret, found.created)
        }
    };
    let data = client
        .token_data(&token_secret, options.auth.needs_token(), TOKEN_WAIT)
        .await?;
    let kubeconfig = objects::kubeconfig(&objects::KubeconfigParts {
        name: &name,
        server: &server,
        tls_server_name: options.tls_server_name.as_deref(),
        ca: &data.ca,
        token: data.token.as_deref(),
        auth: &options.auth,
    });
    let secret = objects::secret(options.secret_type, &name, &namespace, &kubeconfig);
    Ok(RemoteSecret {
        printed: objects::print(&secret),
        secret,
        warning,
        name,
        namespace,
        token_secret: token_secret.metadata.name.unwrap_or_default(),
        token_secret_created: created,
        applied,
    })
}

/// The reader ServiceAccount, ClusterRole and ClusterRoleBinding for `namespace`, rendered
/// from the install package's charts with the default profile, as istioctl renders them from
/// its compiled-in ones.
fn render_reader_objects(
    namespace: &str,
    manifests: Option<String>,
    packages: &pipeline::InstallPackages,
) -> Result<Vec<Value>, Error> {
    let inputs = pipeline::Inputs {
        files: Vec::new(),
        set: vec![format!("values.global.istioNamespace={namespace}")],
        manifests,
        revision: None,
    };
    let rendered = pipeline::render(&inputs, packages, false, None).result?;
    let mut out = Vec::new();
    for component in &rendered.generated.components {
        for object in &component.objects {
            if objects::is_reader_object(component.component.name, object.kind(), object.name()) {
                let mut value = object.value().clone();
                if object.kind() == "ServiceAccount" && object.namespace().is_empty() {
                    value["metadata"]["namespace"] = namespace.into();
                }
                out.push(value);
            }
        }
    }
    if !out
        .iter()
        .any(|o| o["kind"] == "ServiceAccount" && o["metadata"]["name"] == READER_SERVICE_ACCOUNT)
    {
        return Err(Error::NoReaderServiceAccount);
    }
    Ok(out)
}
