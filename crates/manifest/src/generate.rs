//! The whole of istioctl's `GenerateManifest` after the inputs are merged and validated: each
//! component instance gets its values, its chart is rendered, its `k8s` settings and overlays
//! are applied, and the objects are collected per component.

use helm::chart::Chart;
use iop::IstioOperator;
use iop::component::{Component, ComponentSpec};
use serde_json::Value;

use crate::object::Object;
use crate::render::{self, RenderError, Target};

/// Loads `charts/DIR` of the install package at the given path ("" for the default one). The
/// caller does the I/O; it is called from the rendering threads.
pub type LoadChart<'a> = &'a (dyn Fn(&str, &str) -> Result<Chart, LoadChartError> + Sync);

/// Why a [`LoadChart`] could not load a chart.
#[derive(Debug, thiserror::Error)]
pub enum LoadChartError {
    /// The install package has no `charts/DIR` (istioctl's words).
    #[error("component does not exist")]
    NoComponent,
    /// The install package itself could not be located; how it is located is the caller's
    /// (a download cache, an image's directory), and so is this error.
    #[error(transparent)]
    Package(Box<dyn std::error::Error + Send + Sync>),
    #[error(transparent)]
    Chart(#[from] helm::chart::ChartError),
}

/// The objects of one component (all its instances, for gateways).
#[derive(Debug, Clone)]
pub struct ComponentObjects {
    pub component: &'static Component,
    pub objects: Vec<Object>,
    /// How many of `objects` each instance rendered, in order (one entry per instance of
    /// `IstioOperator::components`; gateways may have several).
    pub instance_sizes: Vec<usize>,
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
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    #[error(transparent)]
    Component(#[from] iop::operator::ComponentsError),
    #[error("{0}")]
    Values(#[from] iop::tree::TreeError),
    #[error("helm render: load chart: {0}")]
    LoadChart(#[source] LoadChartError),
    #[error("helm render: {0}")]
    Render(#[from] RenderError),
    #[error("post processing: {0}")]
    PostProcess(#[from] crate::postprocess::PostProcessError),
}

/// Renders every component of the merged (and validated) IstioOperator. Components render
/// in parallel on as many threads as there are cores, the calling one included (their charts
/// are independent; each thread loads its own charts, as template values are not shared
/// across threads); results and the first error are taken in istioctl's component order, so
/// the output does not depend on scheduling.
/// `target` is the cluster rendered for, when there is one (`.Capabilities`).
pub fn generate(
    merged: &IstioOperator,
    target: Option<&Target>,
    load_chart: LoadChart<'_>,
) -> Result<Generated, GenerateError> {
    generate_beside(merged, target, load_chart, false, || ()).0
}

/// [`generate`] for printing: each object's YAML is written (see [`Object::keep_yaml`]) on
/// the thread that rendered it, and `beside` runs meanwhile on a thread that would otherwise
/// wait, the one rendering the cheaper components, so that it does not slow the costliest
/// (the critical path, which renders on the calling thread and starts at once).
pub fn generate_printable<R: Send>(
    merged: &IstioOperator,
    target: Option<&Target>,
    load_chart: LoadChart<'_>,
    beside: impl FnOnce() -> R + Send,
) -> (Result<Generated, GenerateError>, R) {
    generate_beside(merged, target, load_chart, true, beside)
}

fn generate_beside<R: Send>(
    merged: &IstioOperator,
    target: Option<&Target>,
    load_chart: LoadChart<'_>,
    keep_yaml: bool,
    beside: impl FnOnce() -> R + Send,
) -> (Result<Generated, GenerateError>, R) {
    let install_package_path = merged.install_package_path().unwrap_or_default();
    let (merged, work) = match merged.components() {
        Ok(c) => (c.tree, c.instances),
        Err(e) => return (Err(e.into()), beside()),
    };
    // The costliest chart (Istio's base: its CRDs) offers its large documents here; a thread
    // that has rendered its own share prepares them for it.
    let ahead = goyaml::Ahead::new();
    type Done = Result<(Vec<Object>, Vec<String>, Vec<usize>), GenerateError>;
    let render_component = |comp: &'static Component, specs: &[ComponentSpec]| -> Done {
        let chart =
            load_chart(install_package_path, comp.chart_dir).map_err(GenerateError::LoadChart)?;
        let mut objects = Vec::new();
        let mut warnings = Vec::new();
        let mut sizes = Vec::new();
        for spec in specs {
            let before = objects.len();
            objects.extend(render_instance(
                comp,
                spec,
                &merged,
                &chart,
                target,
                &ahead,
                &mut warnings,
            )?);
            sizes.push(objects.len() - before);
        }
        if keep_yaml {
            objects.iter().for_each(Object::keep_yaml);
        }
        Ok((objects, warnings, sizes))
    };
    let render_share = |indices: Vec<usize>| -> Vec<(usize, Done)> {
        indices
            .into_iter()
            .map(|i| (i, render_component(work[i].0, &work[i].1)))
            .collect()
    };
    let cores = cores::available();
    let mut shares = share_out(&work, cores).into_iter();
    // The first share holds the costliest component.
    let mine = shares.next().unwrap_or_default();
    let mut beside = Some(beside);
    let mut results: Vec<Option<Done>> = work.iter().map(|_| None).collect();
    let beside_result = std::thread::scope(|scope| {
        let last = shares.len();
        let handles: Vec<_> = shares
            .enumerate()
            .map(|(k, indices)| {
                let job = if k + 1 == last { beside.take() } else { None };
                let (render_share, ahead) = (&render_share, &ahead);
                std::thread::Builder::new()
                    .stack_size(cores::MAIN_THREAD_STACK)
                    .spawn_scoped(scope, move || {
                        let done = render_share(indices);
                        ahead.help();
                        let result = job.map(|job| job());
                        ahead.help_until_closed();
                        (done, result)
                    })
                    .expect("failed to spawn a render thread")
            })
            .collect();
        if !handles.is_empty() {
            // The new threads would otherwise wait for this busy core (see the `cores` crate).
            cores::step_aside();
        }
        let mut done = {
            // Closed however the share ends (a panic included): the helpers wait for it.
            let _close = CloseOnDrop(&ahead);
            render_share(mine)
        };
        let mut beside_result = beside.take().map(|job| job());
        for handle in handles {
            let (share, result) = handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            done.extend(share);
            beside_result = beside_result.or(result);
        }
        for (i, result) in done {
            results[i] = Some(result);
        }
        beside_result.expect("`beside` ran on one of the threads")
    });
    let mut out = Generated {
        components: Vec::new(),
        warnings: Vec::new(),
    };
    for ((comp, _), result) in work.iter().zip(results) {
        let (objects, warnings, instance_sizes) =
            match result.expect("every component is given to a thread") {
                Ok(done) => done,
                Err(e) => return (Err(e), beside_result),
            };
        out.warnings.extend(warnings);
        out.components.push(ComponentObjects {
            component: comp,
            objects,
            instance_sizes,
        });
    }
    (Ok(out), beside_result)
}

/// Closes an [`goyaml::Ahead`] when dropped.
struct CloseOnDrop<'a>(&'a goyaml::Ahead);

impl Drop for CloseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// Rough rendering cost of a component's instances, for sharing them out among threads.
fn render_cost(comp: &Component, instances: usize) -> usize {
    let per_instance = match comp.name {
        // Istio's CRDs: 1 MB of YAML read and written again by the chart's templates.
        "Base" => 5,
        // istiod's chart has the sidecar injection templates and many objects.
        "Pilot" => 3,
        _ => 1,
    };
    per_instance * instances
}

/// The components' indices in `work` shared out among at most `threads` threads, costliest
/// first, each to the thread with the least cost so far; a thread's list is in istioctl's
/// order. More threads than cores would only make the costliest component (the critical
/// path) share its core.
fn share_out(work: &[(&'static Component, Vec<ComponentSpec>)], threads: usize) -> Vec<Vec<usize>> {
    let threads = threads.clamp(1, work.len().max(1));
    let mut by_cost: Vec<usize> = (0..work.len()).collect();
    by_cost.sort_by_key(|&i| std::cmp::Reverse(render_cost(work[i].0, work[i].1.len())));
    let mut shares: Vec<(usize, Vec<usize>)> = vec![(0, Vec::new()); threads];
    for i in by_cost {
        let least = shares
            .iter_mut()
            .min_by_key(|(cost, _)| *cost)
            .expect("at least one thread");
        least.0 += render_cost(work[i].0, work[i].1.len());
        least.1.push(i);
    }
    shares
        .into_iter()
        .map(|(_, mut indices)| {
            indices.sort_unstable();
            indices
        })
        .filter(|indices| !indices.is_empty())
        .collect()
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
    merged: &IstioOperator,
    target: Option<&Target>,
    load_chart: LoadChart<'_>,
) -> Result<Vec<Migration>, GenerateError> {
    let install_package_path = merged.install_package_path().unwrap_or_default();
    let components = merged.components()?;
    let merged = components.tree;
    let mut out = Vec::new();
    for (comp, specs) in components.instances {
        let chart =
            load_chart(install_package_path, comp.chart_dir).map_err(GenerateError::LoadChart)?;
        for spec in specs {
            let values_tree = iop::translate::component_values(comp, &spec, &merged)?;
            let values = iop::tree::get_path_map(&values_tree, "spec.values").cloned();
            let empty = serde_json::Map::new();
            let rendered = render::render_chart(
                &chart,
                values.as_ref().unwrap_or(&empty),
                &spec.namespace,
                target,
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

fn render_instance(
    comp: &'static Component,
    spec: &ComponentSpec,
    merged: &Value,
    chart: &Chart,
    target: Option<&Target>,
    ahead: &goyaml::Ahead,
    warnings: &mut Vec<String>,
) -> Result<Vec<Object>, GenerateError> {
    let values_tree = iop::translate::component_values(comp, spec, merged)?;
    let empty = serde_json::Map::new();
    let values = iop::tree::get_path_map(&values_tree, "spec.values").unwrap_or(&empty);
    let rendered = render::render_chart_ahead(chart, values, &spec.namespace, target, Some(ahead))?;
    warnings.extend(rendered.warnings);
    Ok(crate::postprocess::post_process(
        comp,
        spec,
        rendered.objects,
        &values_tree,
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> ComponentSpec {
        ComponentSpec {
            namespace: "istio-system".into(),
            name: String::new(),
            label: Default::default(),
            hub: String::new(),
            tag: None,
            k8s: None,
        }
    }

    #[test]
    fn share_out_gives_the_costliest_component_a_thread_of_its_own() {
        let by_name = |name: &str| iop::component::ALL.iter().find(|c| c.name == name).unwrap();
        let work: Vec<(&'static Component, Vec<ComponentSpec>)> =
            ["Base", "Pilot", "IngressGateways", "EgressGateways"]
                .into_iter()
                .map(|n| (by_name(n), vec![spec()]))
                .collect();
        let cases: [(usize, &[&[usize]]); 5] = [
            (0, &[&[0, 1, 2, 3]]),
            (1, &[&[0, 1, 2, 3]]),
            (2, &[&[0], &[1, 2, 3]]),
            (3, &[&[0], &[1], &[2, 3]]),
            (8, &[&[0], &[1], &[2], &[3]]),
        ];
        for (threads, want) in cases {
            assert_eq!(share_out(&work, threads), want, "{threads} threads");
        }
        assert!(share_out(&[], 2).is_empty());
    }
}
