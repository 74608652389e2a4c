//! The cluster a command talks to: kubectl's and istioctl's `--kubeconfig` (`-c`) and
//! `--context`, on every command that reads or writes a cluster.

use std::path::PathBuf;

use clap::Args;
use clap::builder::TypedValueParser;

use crate::mesh::MeshFailure;

#[derive(Args, Clone, Debug, Default)]
pub struct ClusterArgs {
    /// Kubernetes configuration file (default: the files $KUBECONFIG lists, else
    /// ~/.kube/config, else the in-cluster service account).
    // Any OS string, the empty one too (clap's path parser refuses it): scripts pass
    // `--kubeconfig "$KC"` with KC unset, which kubectl and istioctl take as no flag.
    #[arg(
        short = 'c',
        long = "kubeconfig",
        value_name = "PATH",
        value_hint = clap::ValueHint::FilePath,
        value_parser = clap::builder::OsStringValueParser::new().map(PathBuf::from)
    )]
    pub kubeconfig: Option<PathBuf>,
    /// Kubernetes configuration context (default: the kubeconfig's current-context).
    #[arg(long = "context", value_name = "NAME")]
    pub context: Option<String>,
}

impl ClusterArgs {
    /// The cluster the flags name. An empty value is no flag, as for kubectl and istioctl
    /// (whose flags default to "").
    pub fn target(&self) -> cluster::Target {
        cluster::Target {
            kubeconfig: self
                .kubeconfig
                .clone()
                .filter(|p| !p.as_os_str().is_empty()),
            context: self.context.clone().filter(|c| !c.is_empty()),
        }
    }

    /// A client for the cluster the flags name.
    pub async fn client(&self) -> Result<cluster::Client, MeshFailure> {
        Ok(cluster::Client::connect(&self.target()).await?)
    }

    /// [`ClusterArgs::client`], from code that is not async.
    pub fn connect(
        &self,
        runtime: &tokio::runtime::Runtime,
    ) -> Result<cluster::Client, MeshFailure> {
        runtime.block_on(self.client())
    }
}
