//! The whole of istioctl's `GenerateManifest` after the inputs are merged and validated: each
//! component instance gets its values, its chart is rendered, its `k8s` settings and overlays
//! are applied, and the objects are collected per component.

use helm::chart::Chart;
use helm::objects::KubeVersion;
use iop::component::{self, Component, ComponentSpec};
use serde_json::Value;

use crate::object::Object;
use crate::render::{self, RenderError};

/// Loads `charts/DIR` of the install package at the given path ("" for the default one). The
/// caller does the I/O; it is called from the rendering threads.
pub type LoadChart<'a> = &'a (dyn Fn(&str, &str) -> Result<Chart, String> + Sync);

/// The objects of one component (all its instances, for gateways).
#[derive(Debug, Clone)]
pub struct ComponentObjects {
    pub component: &'static Component,
    pub objects: Vec<Object>,
}

/// What `manifest generate` produced.
#[derive(Debug, Clone)]
pub struct Generated {
    /// In istioctl's component order; components with no instance are absent.
    pub components: Vec<ComponentObjects>,
    /// The charts' `WARNING:` lines.
    pub warnings: Vec<String>,
}

impl Generated {
    /// Every object, in istioctl's output order.
    pub fn sorted_objects(&self) -> Vec<&Object> {
        let mut all: Vec<&Object> = self
            .components
            .iter()
            .flat_map(|c| c.objects.iter())
            .collect();
        crate::order::sort_objects(&mut all);
        all
    }
}

/// Why generation failed; messages are istioctl's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GenerateError {
    #[error("get component {component}: {source}")]
    Component {
        component: &'static str,
        source: component::SpecError,
    },
    #[error("{0}")]
    Values(#[from] iop::tree::TreeError),
    #[error("helm render: load chart: {0}")]
    LoadChart(String),
    #[error("helm render: {0}")]
    Render(#[from] RenderError),
    #[error("post processing: {0}")]
    PostProcess(#[from] crate::postprocess::PostProcessError),
}

/// Renders every component of the merged (and validated) IstioOperator. Components render
/// in parallel, one thread each (their charts are independent; each thread loads its own chart,
/// as template values are not shared across threads); results and the first error are taken
/// in istioctl's component order, so the output does not depend on scheduling.
/// `kube_version` is the cluster's when there is one (`.Capabilities.KubeVersion`).
pub fn generate(
    merged: &Value,
    kube_version: Option<&KubeVersion>,
    load_chart: LoadChart<'_>,
) -> Result<Generated, GenerateError> {
    let merged = with_unvalidated_values(merged);
    let install_package_path = iop::tree::get_path_string(&merged, "spec.installPackagePath");
    let mut work: Vec<(&'static Component, Vec<ComponentSpec>)> = Vec::new();
    for comp in component::ALL {
        let specs = comp
            .instances(&merged)
            .map_err(|source| GenerateError::Component {
                component: comp.name,
                source,
            })?;
        if !specs.is_empty() {
            work.push((comp, specs));
        }
    }
    type Done = Result<(Vec<Object>, Vec<String>), GenerateError>;
    let render_component = |comp: &'static Component, specs: &[ComponentSpec]| -> Done {
        let chart =
            load_chart(&install_package_path, comp.chart_dir).map_err(GenerateError::LoadChart)?;
        let mut objects = Vec::new();
        let mut warnings = Vec::new();
        for spec in specs {
            objects.extend(render_instance(
                comp,
                spec,
                &merged,
                &chart,
                kube_version,
                &mut warnings,
            )?);
        }
        Ok((objects, warnings))
    };
    let results: Vec<Done> = std::thread::scope(|scope| {
        let handles: Vec<_> = work
            .iter()
            .map(|(comp, specs)| {
                let render = &render_component;
                scope.spawn(move || render(comp, specs))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    let mut out = Generated {
        components: Vec::new(),
        warnings: Vec::new(),
    };
    for ((comp, _), result) in work.iter().zip(results) {
        let (objects, warnings) = result?;
        out.warnings.extend(warnings);
        out.components.push(ComponentObjects {
            component: comp,
            objects,
        });
    }
    Ok(out)
}

/// One component instance as `manifest translate` needs it: the Helm values istioctl computes
/// for it, and the chart's objects as Helm alone renders them (before `k8s` settings and
/// overlays).
#[derive(Debug, Clone)]
pub struct Migration {
    pub component: &'static Component,
    pub spec: ComponentSpec,
    /// The component's `spec.values` (what `helm install -f` would take); `None` when the
    /// IstioOperator has none (istioctl then writes `null`).
    pub values: Option<serde_json::Map<String, Value>>,
    /// In the order the chart rendered them.
    pub helm_objects: Vec<Object>,
}

/// istioctl's `render.Migrate`: every component instance of the merged IstioOperator with its
/// values and plain Helm rendering, in istioctl's component order. Nothing is post-processed;
/// compare with [`generate`] to see what istioctl adds on top of Helm.
pub fn migrate(
    merged: &Value,
    kube_version: Option<&KubeVersion>,
    load_chart: LoadChart<'_>,
) -> Result<Vec<Migration>, GenerateError> {
    let merged = with_unvalidated_values(merged);
    let install_package_path = iop::tree::get_path_string(&merged, "spec.installPackagePath");
    let mut out = Vec::new();
    for comp in component::ALL {
        let specs = comp
            .instances(&merged)
            .map_err(|source| GenerateError::Component {
                component: comp.name,
                source,
            })?;
        if specs.is_empty() {
            continue;
        }
        let chart =
            load_chart(&install_package_path, comp.chart_dir).map_err(GenerateError::LoadChart)?;
        for spec in specs {
            let values_tree = iop::translate::component_values(comp, &spec, &merged)?;
            let values = iop::tree::get_path_map(&values_tree, "spec.values").cloned();
            let empty = serde_json::Map::new();
            let rendered = render::render_chart(
                &chart,
                values.as_ref().unwrap_or(&empty),
                &spec.namespace,
                kube_version,
            )?;
            out.push(Migration {
                component: comp,
                spec,
                values,
                helm_objects: rendered.objects,
            });
        }
    }
    Ok(out)
}

/// The merged IstioOperator with `spec.unvalidatedValues` applied on top of `spec.values`, as
/// istioctl does after validation.
fn with_unvalidated_values(merged: &Value) -> Value {
    let mut merged = merged.clone();
    if let Some(unvalidated) = iop::tree::get_path_map(&merged, "spec.unvalidatedValues").cloned() {
        let layer = iop::tree::make_map(Value::Object(unvalidated), &["spec", "values"]);
        if let Some(m) = merged.as_object_mut() {
            iop::tree::merge_from(m, &layer);
        }
    }
    merged
}

fn render_instance(
    comp: &'static Component,
    spec: &ComponentSpec,
    merged: &Value,
    chart: &Chart,
    kube_version: Option<&KubeVersion>,
    warnings: &mut Vec<String>,
) -> Result<Vec<Object>, GenerateError> {
    let values_tree = iop::translate::component_values(comp, spec, merged)?;
    let empty = serde_json::Map::new();
    let values = iop::tree::get_path_map(&values_tree, "spec.values").unwrap_or(&empty);
    let rendered = render::render_chart(chart, values, &spec.namespace, kube_version)?;
    warnings.extend(rendered.warnings);
    Ok(crate::postprocess::post_process(
        comp,
        spec,
        rendered.objects,
        &values_tree,
    )?)
}
