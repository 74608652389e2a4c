//! Rendering one component's chart as istioctl's `helm.Render` does: release `istio`, the
//! component's namespace, the cluster's Kubernetes version as `.Capabilities` (1.32, istioctl's
//! minimum, without a cluster), a release
//! that is neither install nor upgrade, the chart's values coalesced under the component's,
//! every rendered file split at `---` lines in file-name order, `NOTES.txt` read for
//! `WARNING:` lines only.

use std::rc::Rc;

use gotemplate::{Map, Value};
use helm::chart::Chart;
use helm::engine::{self, RenderContext};
use helm::objects::{Capabilities, DEFAULT_API_VERSIONS, KubeVersion, VersionSet};

use crate::object::{Object, ObjectError};

/// istioctl renders against its minimum supported Kubernetes version (`k8sversion.MinK8SVersion`).
pub const ISTIOCTL_KUBE_VERSION: &str = "1.32.0";

/// Why a chart could not be rendered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    #[error("render chart: {0}")]
    Helm(#[from] helm::engine::RenderError),
    #[error("{0}")]
    Object(#[from] ObjectError),
    #[error("converting values: {0}")]
    Values(#[source] helm::values::ValuesError),
    #[error("converting values: {0}")]
    KubeVersion(#[source] helm::objects::KubeVersionError),
}

/// What a chart rendered: its objects in istioctl's order, and the chart's warnings.
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    pub objects: Vec<Object>,
    pub warnings: Vec<String>,
}

/// The cluster a render is for, as the charts see it (`.Capabilities`): its Kubernetes
/// version, and the API versions it serves beyond Helm's defaults (istioctl passes none; a
/// GitOps render for a cluster it cannot reach names them, as `helm template --api-versions`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub kube_version: KubeVersion,
    pub api_versions: Vec<String>,
}

/// Renders `chart` with the user's `values` (the component's `spec.values`).
/// `target` is the cluster's, when istioctl has one; otherwise [`ISTIOCTL_KUBE_VERSION`] and
/// Helm's default API versions.
pub fn render_chart(
    chart: &Chart,
    values: &serde_json::Map<String, serde_json::Value>,
    namespace: &str,
    target: Option<&Target>,
) -> Result<Rendered, RenderError> {
    render_chart_ahead(chart, values, namespace, target, None)
}

/// [`render_chart`], with the large documents the templates split off offered to `ahead`
/// (see [`goyaml::Ahead`]), whose helpers prepare them for `fromYaml`.
pub fn render_chart_ahead(
    chart: &Chart,
    values: &serde_json::Map<String, serde_json::Value>,
    namespace: &str,
    target: Option<&Target>,
    ahead: Option<&goyaml::Ahead>,
) -> Result<Rendered, RenderError> {
    let user = goyaml::json_value::from_json_map(values);
    let (coalesced, _) = helm::values::coalesce_chart(chart, &user).map_err(RenderError::Values)?;
    let kube_version = match target {
        Some(t) => t.kube_version.clone(),
        None => KubeVersion::parse(ISTIOCTL_KUBE_VERSION).map_err(RenderError::KubeVersion)?,
    };
    let mut api_versions: Vec<String> =
        DEFAULT_API_VERSIONS.iter().map(|s| s.to_string()).collect();
    api_versions.extend(target.iter().flat_map(|t| t.api_versions.iter().cloned()));
    let capabilities = Capabilities {
        kube_version: Rc::new(kube_version),
        api_versions: Rc::new(VersionSet::new(api_versions)),
    };
    let release = Map::from_entries([
        ("Name", Value::str("istio")),
        ("Namespace", Value::str(namespace)),
        ("IsUpgrade", Value::Bool(false)),
        ("IsInstall", Value::Bool(false)),
        ("Revision", Value::int(0)),
        ("Service", Value::str("Helm")),
    ]);
    let context = RenderContext {
        release,
        capabilities: Value::Object(Rc::new(capabilities)),
    };
    // The memo lets documents that are a large `toYaml` output (Istio's CRDs) skip a re-read.
    let memo = match ahead {
        Some(ahead) => goyaml::YamlMemo::with_ahead(ahead.clone()),
        None => goyaml::YamlMemo::new(),
    };
    let files = engine::render_with(
        chart,
        &coalesced.retyped(Some("common.Values")),
        &context,
        &memo,
        // The components render on their own threads, which keep the cores busy.
        None,
    )?;

    let mut out = Rendered::default();
    // The engine's map is ordered by name, which is the order istioctl sorts them in.
    for (name, text) in files {
        if name.ends_with(".txt") {
            out.warnings.extend(
                text.lines()
                    .filter_map(|l| l.strip_prefix("WARNING: "))
                    .map(str::to_string),
            );
            continue;
        }
        let text = std::sync::Arc::new(text);
        for doc in iop::merge::split_yaml_documents(&text) {
            if let Some(obj) = Object::from_rendered(&text, doc, &memo)? {
                out.objects.push(obj);
            }
        }
    }
    let mut crds: Vec<_> = chart.crd_objects(&chart.metadata.name);
    crds.sort_by(|a, b| a.1.path.cmp(&b.1.path));
    for (_, crd) in crds {
        for doc in iop::merge::split_yaml_documents(&crd.text()) {
            if let Some(obj) = Object::from_yaml(doc)? {
                out.objects.push(obj);
            }
        }
    }
    Ok(out)
}
