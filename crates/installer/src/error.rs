/// Why the installer could not decide, check, plan or write. A [`crate::Refusal`] is not one of
/// these: it is a finding about the cluster that the caller decides about.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A request to the cluster failed.
    #[error(transparent)]
    Cluster(#[from] cluster::Error),
    /// The render could not be made into an install (its version, its components).
    #[error(transparent)]
    Pipeline(#[from] pipeline::Error),
    /// [`crate::Install::apply_holding`] was given the lock of another Istio namespace.
    #[error(
        "the install into Istio namespace {namespace} holds the install lock of {held} instead of its own; nothing was written"
    )]
    NotLocked { held: String, namespace: String },
    /// Prune after the install failed.
    #[error("pruning: {0}")]
    Prune(#[source] cluster::Error),
    /// The default revision tag's objects could not be generated.
    #[error("planning the default revision tag: {0}")]
    DefaultTag(#[from] manifest::tag::TagError),
    /// The install will make the default tag but renders no injector to make it from.
    #[error(
        "planning the default revision tag: the install renders no sidecar injector of revision {revision}"
    )]
    NoInjector { revision: String },
    /// The install's injector could not be re-activated after the default tag was not made.
    #[error("re-activating the sidecar injector: {0}")]
    Reactivate(#[source] cluster::Error),
    /// The default revision tag's objects could not be applied.
    #[error("failed deploying webhooks: {0}")]
    DeployWebhooks(#[source] cluster::Error),
    /// `create-remote-secret`: the service account is missing and may not be created.
    #[error(
        "service account {namespace}/{name} does not exist; it is needed for the remote secret's token (install Istio on this cluster first, or run with --create-service-account=true)"
    )]
    MissingServiceAccount { namespace: String, name: String },
    /// `create-remote-secret`: the service account is missing and is not the reader, the only
    /// one whose objects the charts give.
    #[error(
        "service account {namespace}/{name} does not exist, and only {} can be created (from the charts' reader objects); create it, or install Istio on this cluster first (istiod's comes with the Pilot component)",
        manifest::remote_secret::READER_SERVICE_ACCOUNT
    )]
    CannotCreateServiceAccount { namespace: String, name: String },
    /// `create-remote-secret --secret-name`: no such Secret.
    #[error("could not get specified secret {namespace}/{name}: it does not exist")]
    TokenSecretNotFound { namespace: String, name: String },
    /// `create-remote-secret --secret-name`: the Secret is not a token of the service account.
    #[error("secret {namespace}/{name} does not reference ServiceAccount {service_account}")]
    TokenSecretOfAnother {
        namespace: String,
        name: String,
        service_account: String,
    },
    /// The charts rendered no reader service account to create.
    #[error(
        "the install package renders no {} to create",
        manifest::remote_secret::READER_SERVICE_ACCOUNT
    )]
    NoReaderServiceAccount,
    /// `cacerts` of another root is in the cluster.
    #[error(
        "Secret {namespace}/cacerts holds another root CA: replacing it would cut this cluster off from every cluster that trusts the old one; pass --force to replace it"
    )]
    ForeignRoot { namespace: String },
    /// No istiod configuration to take the cluster's name from.
    #[error(
        "no istiod configuration in namespace {namespace} (ConfigMap istio-sidecar-injector with values.global.multiCluster.clusterName): install the mesh first"
    )]
    NotInstalled { namespace: String },
}
