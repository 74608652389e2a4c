//! `bosun version`: bosun's own version and the Istio release it installs when no
//! `--version`, `--manifests` or `spec.installPackagePath` names another, shaped like `istioctl
//! version --remote=false` (`client version: …` lines by default, `--short=false` for more, `-o
//! json|yaml` for programs). It reads nothing from the network (only `BOSUN_CATALOG`, if set),
//! so it answers the same before the pinned charts are first fetched. `--list` shows the
//! catalog: every version `--version` takes, and which are in bosun's cache.

use clap::{ArgAction, Args, ValueEnum};
use serde::Serialize;

use crate::mesh::MeshFailure;
use release::ISTIO_MODULE;

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
    /// List the Istio versions `--version` takes (bosun's catalog: releases with their status,
    /// end of life and Kubernetes versions; istio.io/istio module versions) and which are in
    /// bosun's cache; a table, or `-o json|yaml`.
    #[arg(long)]
    list: bool,
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

/// The default module's `VERSION` (what install labels carry as `operator.istio.io/version`),
/// from the catalog because the pinned charts may not be fetched yet; the `version`
/// integration test checks it against the fetched release.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct IstioVersion {
    version: String,
    module: &'static str,
    module_version: String,
    module_sum: String,
}

fn current(catalog: &release::Catalog) -> Result<Version, MeshFailure> {
    let module = catalog.default_module()?;
    Ok(Version {
        client_version: ClientVersion {
            version: env!("CARGO_PKG_VERSION"),
        },
        default_istio_version: IstioVersion {
            version: module.istio.clone(),
            module: ISTIO_MODULE,
            module_version: module.version.clone(),
            module_sum: module.sum.clone(),
        },
    })
}

/// `bosun version`.
pub fn version(args: VersionArgs) -> Result<(), MeshFailure> {
    let catalog = crate::release::catalog().map_err(MeshFailure)?;
    if args.list {
        let cache = crate::release::cache_dir().map(|root| release::Cache { root });
        let list = list(&catalog, cache.as_ref());
        return crate::mesh::write_stdout(&print_list(&list, args.output)?);
    }
    crate::mesh::write_stdout(&render(&args, &catalog)?)
}

/// What `--list` prints, field names in istioctl's camelCase.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
struct List {
    releases: Vec<ListedMinor>,
    modules: Vec<ListedModule>,
}

#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
struct ListedMinor {
    minor: String,
    status: String,
    end_of_life: Option<String>,
    kubernetes: release::catalog::KubernetesRange,
    patches: Vec<ListedPatch>,
}

#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
struct ListedPatch {
    version: String,
    cached: bool,
}

#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
struct ListedModule {
    version: String,
    istio: String,
    sum: String,
    default: bool,
    cached: bool,
}

/// The catalog with what `cache` holds of it.
fn list(catalog: &release::Catalog, cache: Option<&release::Cache>) -> List {
    let cached = |version: &str| cache.is_some_and(|c| c.manifests(version).is_some());
    List {
        releases: catalog
            .releases
            .iter()
            .map(|m| ListedMinor {
                minor: m.minor.clone(),
                status: m.status.to_string(),
                end_of_life: m.end_of_life.clone(),
                kubernetes: m.kubernetes.clone(),
                patches: m
                    .patches
                    .iter()
                    .map(|p| ListedPatch {
                        version: p.version.clone(),
                        cached: cached(&p.version),
                    })
                    .collect(),
            })
            .collect(),
        modules: catalog
            .modules
            .iter()
            .map(|m| ListedModule {
                version: m.version.clone(),
                istio: m.istio.clone(),
                sum: m.sum.clone(),
                default: m.default,
                cached: cached(&m.version),
            })
            .collect(),
    }
}

/// The list as a table (one row per version: releases newest first, then module versions), or
/// as JSON or YAML.
fn print_list(list: &List, output: Option<Format>) -> Result<String, MeshFailure> {
    let failed = |e: &dyn std::fmt::Display| MeshFailure(format!("printing the list: {e}"));
    match output {
        Some(Format::Json) => {
            return Ok(serde_json::to_string_pretty(list).map_err(|e| failed(&e))? + "\n");
        }
        Some(Format::Yaml) => {
            let tree = serde_json::to_value(list).map_err(|e| failed(&e))?;
            return goyaml::json_to_yaml(&tree).map_err(|e| failed(&e));
        }
        None => {}
    }
    let yes_no = |b: bool| if b { "yes" } else { "no" }.to_string();
    let mut rows = vec![[
        "VERSION".to_string(),
        "ISTIO".to_string(),
        "STATUS".to_string(),
        "END OF LIFE".to_string(),
        "KUBERNETES".to_string(),
        "CACHED".to_string(),
    ]];
    let mut releases: Vec<(&ListedMinor, &ListedPatch)> = list
        .releases
        .iter()
        .flat_map(|m| m.patches.iter().map(move |p| (m, p)))
        .collect();
    releases.sort_by_cached_key(|(_, p)| {
        std::cmp::Reverse(release::catalog::ReleaseVersion::parse(&p.version))
    });
    for (minor, patch) in releases {
        {
            rows.push([
                patch.version.clone(),
                minor.minor.clone(),
                minor.status.clone(),
                minor.end_of_life.clone().unwrap_or_else(|| "-".to_string()),
                minor.kubernetes.to_string(),
                yes_no(patch.cached),
            ]);
        }
    }
    for module in &list.modules {
        let status = if module.default {
            "module (default)"
        } else {
            "module"
        };
        rows.push([
            module.version.clone(),
            module.istio.clone(),
            status.to_string(),
            "-".to_string(),
            "-".to_string(),
            yes_no(module.cached),
        ]);
    }
    let widths: Vec<usize> = (0..6)
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in &rows {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            line.push_str(cell);
            if i + 1 < row.len() {
                line.push_str(&" ".repeat(widths[i] - cell.chars().count() + 3));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    Ok(out)
}

fn render(args: &VersionArgs, catalog: &release::Catalog) -> Result<String, MeshFailure> {
    let v = current(catalog)?;
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
