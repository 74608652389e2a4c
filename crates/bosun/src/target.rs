//! The cluster a command talks to: kubectl's and istioctl's `--kubeconfig` (`-c`) and
//! `--context`, on every command that reads or writes a cluster.

use std::path::PathBuf;

use clap::Args;
use clap::builder::TypedValueParser;

use crate::mesh::MeshFailure;

#[derive(Args, Clone, Debug)]
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
    /// How long to wait for the API server to answer each request, connecting included, as
    /// kubectl's flag: a duration (10s, 1m, 1h30m) or whole seconds; 0 is no limit. It also
    /// bounds an exec credential plugin. Waits for readiness have their own timeouts; each
    /// request inside them is bounded by this one.
    #[arg(long = "request-timeout", value_name = "DURATION", default_value = "30s", value_parser = request_timeout)]
    pub request_timeout: cluster::RequestTimeout,
}

/// kubectl's `--request-timeout` (client-go's `ParseTimeout`): whole seconds, else a Go
/// duration; zero is no limit. A negative one, which kubectl takes as no limit too, is
/// refused as the mistake it likely is.
pub(crate) fn request_timeout(text: &str) -> Result<cluster::RequestTimeout, String> {
    let invalid = || {
        format!(
            "invalid timeout {text:?}: give whole seconds, or a number with a unit (1s, 2m, 3h); 0 is no limit"
        )
    };
    let nanos: i64 = match text.parse::<i64>() {
        Ok(secs) => secs.checked_mul(1_000_000_000).ok_or_else(invalid)?,
        Err(_) => gotime::parse_duration(text).map_err(|_| invalid())?,
    };
    match nanos {
        0 => Ok(cluster::RequestTimeout::NONE),
        n if n < 0 => Err(invalid()),
        n => Ok(cluster::RequestTimeout(Some(
            std::time::Duration::from_nanos(n as u64),
        ))),
    }
}

/// A command's `--timeout`: its deadline for the API server's requests (see
/// `cluster::Client::set_deadline`); `None` is no deadline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadline(pub Option<std::time::Duration>);

impl Deadline {
    /// Sets it on `client`, if there is one.
    pub fn set_on(self, client: &cluster::Client) {
        if let Some(total) = self.0 {
            client.set_deadline(total);
        }
    }
}

/// Reads `--timeout` as `--request-timeout` is read; `0` is none.
pub(crate) fn deadline(text: &str) -> Result<Deadline, String> {
    request_timeout(text).map(|t| Deadline(t.0))
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
            request_timeout: self.request_timeout,
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

impl Default for ClusterArgs {
    fn default() -> ClusterArgs {
        ClusterArgs {
            kubeconfig: None,
            context: None,
            request_timeout: cluster::RequestTimeout::DEFAULT,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn request_timeout_reads_as_kubectl_reads_it() {
        let after = |secs: f64| Ok(cluster::RequestTimeout(Some(Duration::from_secs_f64(secs))));
        assert_eq!(request_timeout("10"), after(10.0));
        assert_eq!(request_timeout("10s"), after(10.0));
        assert_eq!(request_timeout("1m30s"), after(90.0));
        assert_eq!(request_timeout("1.5s"), after(1.5));
        assert_eq!(request_timeout("0"), Ok(cluster::RequestTimeout::NONE));
        assert_eq!(request_timeout("0s"), Ok(cluster::RequestTimeout::NONE));
        for bad in ["", "ten", "10x", "-1", "-5s"] {
            assert!(request_timeout(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn timeout_reads_as_request_timeout_and_zero_is_no_deadline() {
        assert_eq!(deadline("5m"), Ok(Deadline(Some(Duration::from_secs(300)))));
        assert_eq!(deadline("12"), Ok(Deadline(Some(Duration::from_secs(12)))));
        assert_eq!(deadline("0"), Ok(Deadline(None)));
        assert!(deadline("-1s").is_err());
    }
}
