//! Rendering for revision tags (`manifest::tag`): the same pipeline as an install, and the one
//! way an install sets up its default revision tag.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use manifest::tag::TagRenderError;

use crate::InstallPackages;

/// Why [`ChartRender`] refused to render a tag's objects itself (its other failures are the
/// pipeline's, passed on as they are).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChartRenderError {
    /// The IstioOperator the tag's flags make does not validate: its first error.
    #[error("rendering the tag's objects: {message}")]
    Invalid { message: String },
}

/// Renders for `manifest::tag` with the pipeline `manifest generate` uses, from the install
/// package the tag options name (the pinned release when none).
pub struct ChartRender<'a> {
    pub packages: &'a InstallPackages,
}

fn objects_json(objects: Vec<manifest::object::Object>) -> Vec<Value> {
    objects.into_iter().map(|o| o.into_value()).collect()
}

impl manifest::tag::TagRender for ChartRender<'_> {
    fn render_flags(&self, flags: &[String]) -> Result<Vec<Value>, TagRenderError> {
        let validated =
            crate::merge_and_validate(&[], flags, self.packages).map_err(TagRenderError::new)?;
        if let Some(first) = validated.report.errors.first() {
            return Err(TagRenderError::new(ChartRenderError::Invalid {
                message: first.message.clone(),
            }));
        }
        let generated =
            crate::generate(&validated.merged, None, self.packages).map_err(TagRenderError::new)?;
        Ok(generated
            .components
            .into_iter()
            .flat_map(|c| objects_json(c.objects))
            .collect())
    }

    fn render_chart(
        &self,
        dir: &str,
        namespace: &str,
        values: &Map<String, Value>,
    ) -> Result<Vec<Value>, TagRenderError> {
        let load = self.packages.chart_loader();
        let chart = load("", dir).map_err(TagRenderError::new)?;
        let rendered = manifest::render::render_chart(&chart, values, namespace, None)
            .map_err(TagRenderError::new)?;
        Ok(objects_json(rendered.objects))
    }
}

/// How an install of `merged` makes its default revision tag, as istioctl's installer does:
/// the tag's options (carrying the install's `owner_labels`, naming its install package) and
/// the renderer for them. Install, its plan and the decision before either all start here.
pub fn default_tag_setup<'a>(
    merged: &iop::IstioOperator,
    owner_labels: &BTreeMap<String, String>,
    packages: &'a InstallPackages,
) -> (manifest::tag::TagOptions, ChartRender<'a>) {
    let options = manifest::tag::default_tag_options(merged, owner_labels);
    (options, ChartRender { packages })
}
