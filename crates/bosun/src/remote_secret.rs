//! `bosun create-remote-secret`: istioctl's command of that name. Flags are read and checked
//! here (all of them before the cluster is touched); the objects are
//! `manifest::remote_secret`'s and the sequence of reads and writes `installer::remote_secret`'s.

use std::io::Write;

use clap::Args;
use manifest::remote_secret::{Auth, Options, SecretType};

use crate::mesh::MeshFailure;

#[derive(Args, Debug)]
pub struct RemoteSecretArgs {
    /// Name of the local cluster whose credentials are stored in the secret (a DNS-1123
    /// label). Default: the UID of the cluster's kube-system namespace.
    #[arg(long = "name")]
    pub name: Option<String>,
    /// Type of the generated secret: remote (a primary's istiod reads this cluster) or config
    /// (an external istiod reads its config cluster).
    #[arg(long = "type", value_name = "remote|config")]
    pub secret_type: Option<String>,
    /// The address and port of the Kubernetes API server, as the other cluster reaches it.
    /// Default: the kubeconfig's.
    #[arg(long = "server")]
    pub server: Option<String>,
    /// The server name the client checks the API server's certificate for (kubeconfig
    /// `tls-server-name`), when --server is a proxy.
    #[arg(long = "tls-server-name")]
    pub tls_server_name: Option<String>,
    /// Create a secret with this service account's credentials. Default:
    /// "istio-reader-service-account" with --type remote, "istiod" with --type config.
    #[arg(long = "service-account")]
    pub service_account: Option<String>,
    /// Create the reader service account (and its cluster role), from the charts, when it
    /// does not exist.
    #[arg(
        long = "create-service-account",
        value_name = "BOOL",
        num_args = 0..=1,
        require_equals = true,
        default_value = "true",
        default_missing_value = "true",
        value_parser = go_bool
    )]
    pub create_service_account: bool,
    /// The name of an existing token Secret of the service account to use.
    #[arg(long = "secret-name")]
    pub secret_name: Option<String>,
    /// Type of authentication to use: bearer-token (the service account's token) or plugin
    /// (a client-go auth-provider).
    #[arg(long = "auth-type", value_name = "bearer-token|plugin")]
    pub auth_type: Option<String>,
    /// Authenticator plug-in name (with --auth-type=plugin).
    #[arg(long = "auth-plugin-name")]
    pub auth_plugin_name: Option<String>,
    /// Authenticator plug-in configuration, KEY=VALUE[,KEY=VALUE] (with --auth-type=plugin).
    #[arg(long = "auth-plugin-config")]
    pub auth_plugin_config: Vec<String>,
    /// The namespace of the service account and of the printed Secret. Default: the
    /// kubeconfig context's namespace, else istio-system.
    #[arg(short = 'n', long = "namespace")]
    pub namespace: Option<String>,
    /// The install package (charts) the reader service account is rendered from when it is
    /// created; the pinned release by default.
    #[arg(short = 'd', long = "manifests")]
    pub manifests: Option<String>,
    /// `--version`/`--mirror`: the charts of another Istio version for the reader account.
    #[command(flatten)]
    pub package: crate::mesh::VersionFlags,
    #[command(flatten)]
    pub cluster: crate::target::ClusterArgs,
}

/// Go's `strconv.ParseBool`, as pflag reads a boolean flag's value.
fn go_bool(text: &str) -> Result<bool, String> {
    iop::detect::go_parse_bool(text).ok_or_else(|| format!("invalid boolean value {text:?}"))
}

/// The flags as checked options: every mistake in them is found here, before any request.
pub fn options(args: &RemoteSecretArgs) -> Result<Options, manifest::remote_secret::OptionsError> {
    let secret_type = SecretType::parse(args.secret_type.as_deref().unwrap_or("remote"))?;
    let auth = Auth::parse(
        args.auth_type.as_deref(),
        args.auth_plugin_name.as_deref(),
        &args.auth_plugin_config,
    )?;
    Options::new(
        args.name.clone(),
        secret_type,
        auth,
        args.service_account.clone(),
        args.server.clone(),
        args.tls_server_name.clone(),
        args.secret_name.clone(),
    )
}

pub fn create_remote_secret(
    args: RemoteSecretArgs,
    runtime: &crate::runtime::Runtime,
) -> Result<(), MeshFailure> {
    let options = options(&args)?;
    let request = installer::remote_secret::Request {
        options,
        namespace: args.namespace.clone(),
        create_service_account: args.create_service_account,
        manifests: args.package.package(args.manifests.as_deref())?,
    };
    let runtime = runtime.get()?;
    let client = args.cluster.connect(runtime)?;
    let packages = crate::mesh::packages();
    let made = runtime.block_on(installer::remote_secret::create_remote_secret(
        &client, &request, &packages,
    ))?;
    if let Some(warning) = &made.warning {
        let _ = writeln!(std::io::stderr().lock(), "warn: {warning}");
    }
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(made.printed.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| MeshFailure(crate::mesh::output_error(e)))
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: RemoteSecretArgs,
    }

    fn parse(args: &[&str]) -> Result<Options, String> {
        let cli = Cli::try_parse_from(std::iter::once("x").chain(args.iter().copied()))
            .map_err(|e| e.to_string())?;
        options(&cli.args).map_err(|e| e.to_string())
    }

    fn create_sa(args: &[&str]) -> bool {
        Cli::try_parse_from(std::iter::once("x").chain(args.iter().copied()))
            .unwrap()
            .args
            .create_service_account
    }

    #[test]
    fn defaults_are_istioctls() {
        let options = parse(&[]).unwrap();
        assert_eq!(options.secret_type, SecretType::Remote);
        assert_eq!(options.auth, Auth::BearerToken);
        assert_eq!(options.name, None);
        assert_eq!(options.service_account(), "istio-reader-service-account");
        assert!(create_sa(&[]));
        assert!(create_sa(&["--create-service-account"]));
        assert!(!create_sa(&["--create-service-account=false"]));
        assert!(!create_sa(&["--create-service-account=0"]));
        assert!(parse(&["--create-service-account=maybe"]).is_err());
    }

    #[test]
    fn bad_flags_fail_before_any_request() {
        assert_eq!(
            parse(&["--name", "Bad_x"]).unwrap_err(),
            "Bad_x is not a valid DNS 1123 label"
        );
        assert!(
            parse(&["--type", "foo"])
                .unwrap_err()
                .starts_with("unsupported type: foo")
        );
        assert!(
            parse(&["--auth-type", "foo"])
                .unwrap_err()
                .starts_with("unsupported authentication type: foo")
        );
        assert_eq!(
            parse(&["--auth-type", "plugin"]).unwrap_err(),
            "--auth-type=plugin needs --auth-plugin-name"
        );
        assert_eq!(
            parse(&["--auth-plugin-name", "gcp"]).unwrap_err(),
            "--auth-plugin-name needs --auth-type=plugin"
        );
        let plugin = parse(&[
            "--auth-type=plugin",
            "--auth-plugin-name=gcp",
            "--auth-plugin-config=a=b",
            "--auth-plugin-config",
            "c=d,e=f",
        ])
        .unwrap();
        let Auth::Plugin { name, config } = plugin.auth else {
            panic!("plugin")
        };
        assert_eq!(name, "gcp");
        assert_eq!(config.len(), 3);
        let config = parse(&["--type=config", "--name=c1", "--service-account="]).unwrap();
        assert_eq!(config.service_account(), "istiod");
        assert_eq!(config.name.as_deref(), Some("c1"));
    }
}
