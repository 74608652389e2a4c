//! What `install` adds to the rendered objects and does after applying them: istioctl's owner
//! labels on every object (`manifest::ownership`), then prune of what the installation no longer
//! renders (`cluster`). This module reads the install package's
//! version (file I/O) and wires the libraries together; the rules live in them.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::mesh::MeshFailure;

/// The Istio version of the install package that `merged` renders from (its
/// `spec.installPackagePath`, else the pinned release): the `VERSION` file next to its
/// `manifests/` directory, else the base chart's `appVersion`, else `unknown` (what an
/// unstamped istioctl build writes). Only values that are valid label values are taken.
pub fn istio_version(merged: &Value) -> Result<String, MeshFailure> {
    let path = iop::tree::get_path_string(merged, "spec.installPackagePath");
    let dir = if path.is_empty() {
        crate::release::manifests_dir().map_err(MeshFailure)?
    } else {
        PathBuf::from(path)
    };
    Ok(version_of_package(&dir).unwrap_or_else(|| "unknown".to_string()))
}

fn version_of_package(manifests: &Path) -> Option<String> {
    let from_file = manifests
        .parent()
        .and_then(|p| std::fs::read_to_string(p.join("VERSION")).ok())
        .map(|v| v.trim().to_string());
    let from_chart = || {
        let chart = std::fs::read_to_string(manifests.join("charts/base/Chart.yaml")).ok()?;
        chart.lines().find_map(|l| {
            l.strip_prefix("appVersion:")
                .map(|v| v.trim().trim_matches(['"', '\'']).to_string())
        })
    };
    from_file
        .filter(|v| is_label_value(v))
        .or_else(|| from_chart().filter(|v| is_label_value(v)))
}

/// A Kubernetes label value: at most 63 characters, alphanumerics and `-_.`, starting and
/// ending with an alphanumeric.
fn is_label_value(v: &str) -> bool {
    let ends_ok = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    !v.is_empty()
        && v.len() <= 63
        && ends_ok(v.chars().next())
        && ends_ok(v.chars().last())
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// Labels `objects` of component `component` (istioctl's name: `Base`, `Pilot`, …) as
/// istioctl's installer does.
pub fn label_objects(merged: &Value, version: &str, component: &str, objects: &mut [Value]) {
    let labels = manifest::ownership::owner_labels(merged, version, Some(component));
    for object in objects {
        manifest::ownership::set_labels(object, &labels);
    }
}

/// What prune compares the cluster with: the installation's shared labels, and for every
/// component istioctl knows the objects rendered for it now (none for disabled ones).
pub fn installation(
    merged: &Value,
    version: &str,
    rendered: &[(&str, &[Value])],
) -> cluster::Installation {
    let components = iop::component::ALL
        .iter()
        .map(|c| {
            let objects = rendered
                .iter()
                .filter(|(name, _)| *name == c.name)
                .flat_map(|(_, objects)| objects.iter().cloned())
                .collect::<Vec<_>>();
            cluster::RenderedComponent::from_objects(c.name, &objects)
        })
        .collect();
    cluster::Installation {
        owner_labels: manifest::ownership::owner_labels(merged, version, None),
        components,
    }
}

/// After a successful apply: prunes what the installation no longer renders, printing each
/// removed object. Returns the pruned objects.
pub async fn prune(
    client: &cluster::Client,
    installation: &cluster::Installation,
    installed: &cluster::InstallReport,
) -> Result<Vec<cluster::Deleted>, MeshFailure> {
    client
        .prune_after_install(installation, installed, &mut print_deleted)
        .await
        .map_err(|e| MeshFailure(format!("pruning: {e}")))
}

/// One line per deleted object, as istioctl words it (`  Removed Deployment ns/name.`).
pub fn print_deleted(d: &cluster::Deleted) {
    let mut stdout = std::io::stdout().lock();
    let _ = match d.outcome {
        cluster::DeleteOutcome::Deleted => writeln!(stdout, "  Removed {}.", d.object),
        cluster::DeleteOutcome::AlreadyGone => {
            writeln!(stdout, "  {} was already gone.", d.object)
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_names_agree_between_manifest_and_cluster() {
        use manifest::ownership as own;
        assert_eq!(own::COMPONENT_LABEL, cluster::COMPONENT_LABEL);
        assert_eq!(own::NOT_PRUNED_LABEL, cluster::NOT_PRUNED_LABEL);
        assert_eq!(own::INSTALLED_STATE_LABEL, cluster::INSTALLED_STATE_LABEL);
    }

    #[test]
    fn label_values() {
        for ok in ["1.31", "1.23.0-beta.1", "unknown", "a"] {
            assert!(is_label_value(ok), "{ok}");
        }
        for bad in ["", "1.31\n", "-1", "1.", "a b", &"x".repeat(64)] {
            assert!(!is_label_value(bad), "{bad:?}");
        }
    }

    #[test]
    fn version_from_the_version_file_else_the_base_chart() {
        let dir = std::env::temp_dir().join(format!("bosun-version-{}", std::process::id()));
        let manifests = dir.join("manifests");
        std::fs::create_dir_all(manifests.join("charts/base")).unwrap();
        assert_eq!(version_of_package(&manifests), None);
        std::fs::write(
            manifests.join("charts/base/Chart.yaml"),
            "apiVersion: v2\nappVersion: \"1.23.2\"\nname: base\n",
        )
        .unwrap();
        assert_eq!(version_of_package(&manifests).as_deref(), Some("1.23.2"));
        std::fs::write(dir.join("VERSION"), "1.31\n").unwrap();
        assert_eq!(version_of_package(&manifests).as_deref(), Some("1.31"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn installation_lists_every_component() {
        let merged = serde_json::json!({"metadata": {"namespace": "ns"}, "spec": {"values": {}}});
        let pilot = [
            serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "istiod", "namespace": "ns"}}),
        ];
        let got = installation(&merged, "1.31", &[("Pilot", &pilot)]);
        let names: Vec<&str> = got.components.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "Base",
                "Pilot",
                "IngressGateways",
                "EgressGateways",
                "Cni",
                "Ztunnel"
            ]
        );
        assert_eq!(got.components[1].objects.len(), 1);
        assert!(got.components[2].objects.is_empty());
        assert!(!got.owner_labels.contains_key(cluster::COMPONENT_LABEL));
    }
}
