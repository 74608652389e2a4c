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
}
