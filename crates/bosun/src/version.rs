//! `bosun version`: bosun's own version and the Istio release it installs when no
//! `--manifests` or `spec.installPackagePath` names another, shaped like `istioctl version
//! --remote=false` (`client version: …` lines by default, `--short=false` for more, `-o
//! json|yaml` for programs). It reads nothing from disk or the network, so it answers the same
//! before the pinned charts are first fetched.

use clap::{ArgAction, Args, ValueEnum};
use serde::Serialize;

use crate::mesh::MeshFailure;
use crate::release::{ISTIO_SUM, ISTIO_VERSION};

/// The `VERSION` file of the pinned `istio.io/istio` module (what install labels carry as
/// `operator.istio.io/version`). A constant because the pinned charts may not be fetched yet;
/// the `version` integration test checks it against the fetched release.
const ISTIO_RELEASE: &str = "1.31";
const ISTIO_MODULE: &str = "istio.io/istio";

/// The machine-readable output formats, as istioctl's `version -o`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Json,
    Yaml,
}

#[derive(Args, Debug)]
pub struct VersionArgs {
    /// Print only the version numbers (on by default, as in istioctl); `--short=false` adds
    /// the pinned Istio module's version and checksum.
    #[arg(
        short = 's',
        long,
        action = ArgAction::Set,
        num_args = 0..=1,
        require_equals = true,
        default_value_t = true,
        default_missing_value = "true"
    )]
    short: bool,
    /// One of 'yaml' or 'json' (all fields, whatever --short says).
    #[arg(short = 'o', long = "output", value_enum)]
    output: Option<Format>,
}

/// The document `-o json|yaml` prints. Field names follow istioctl's `clientVersion`; the
/// default Istio release takes the place of istioctl's `meshVersion`, which needs a cluster.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Version {
    client_version: ClientVersion,
    default_istio_version: IstioVersion,
}

#[derive(Serialize)]
struct ClientVersion {
    version: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct IstioVersion {
    version: &'static str,
    module: &'static str,
    module_version: &'static str,
    module_sum: &'static str,
}

fn current() -> Version {
    Version {
        client_version: ClientVersion {
            version: env!("CARGO_PKG_VERSION"),
        },
        default_istio_version: IstioVersion {
            version: ISTIO_RELEASE,
            module: ISTIO_MODULE,
            module_version: ISTIO_VERSION,
            module_sum: ISTIO_SUM,
        },
    }
}

/// `bosun version`.
pub fn version(args: VersionArgs) -> Result<(), MeshFailure> {
    crate::mesh::write_stdout(&render(&args)?)
}

fn render(args: &VersionArgs) -> Result<String, MeshFailure> {
    let v = current();
    let failed = |e: &dyn std::fmt::Display| MeshFailure(format!("printing the version: {e}"));
    Ok(match args.output {
        // Serialised from the struct, not a `serde_json::Value`, to keep istioctl's field order.
        Some(Format::Json) => serde_json::to_string_pretty(&v).map_err(|e| failed(&e))? + "\n",
        Some(Format::Yaml) => {
            let tree = serde_json::to_value(&v).map_err(|e| failed(&e))?;
            goyaml::json_to_yaml(&tree).map_err(|e| failed(&e))?
        }
        None if args.short => format!(
            "client version: {}\ndefault Istio version: {}\n",
            v.client_version.version, v.default_istio_version.version
        ),
        None => {
            let istio = &v.default_istio_version;
            format!(
                "client version: {}\ndefault Istio version: {} ({}@{}, {})\n",
                v.client_version.version,
                istio.version,
                istio.module,
                istio.module_version,
                istio.module_sum
            )
        }
    })
}
