//! The operator's render in its own process: [`pipeline::resource::render_resource`], the
//! same path `bosun install` takes.

use serde_json::Value;

use crate::{Render, RenderError, Rendered};

/// Renders each IstioOperator with the pipeline library, in this process.
pub struct InlineRender {
    /// The install package directory (`--manifests`); the pinned release when `None`.
    pub manifests: Option<String>,
    /// How to find the pinned release.
    pub locate: pipeline::LocateDefault,
    /// What the cluster said about itself when the operator started (its version, GKE, CNI).
    pub detected: pipeline::Detected,
}

impl Render for InlineRender {
    fn render(
        &self,
        iop: &Value,
        package: Option<&std::path::Path>,
        helm_releases: bool,
    ) -> Result<Rendered, RenderError> {
        let package = package.map(|p| p.display().to_string());
        // A package of its own per render: a pinned release that could not be located is
        // looked for again next time.
        let packages = pipeline::InstallPackages::new(self.locate.clone());
        let rendered = pipeline::resource::render_resource(
            iop,
            package.as_deref().or(self.manifests.as_deref()),
            &self.detected,
            &packages,
        )
        .map_err(|e| match e {
            pipeline::resource::ResourceError::Invalid(messages) => RenderError::Invalid(messages),
            pipeline::resource::ResourceError::Failed(e) => RenderError::Failed(e.to_string()),
        })?;
        // The drafts come from the render itself (its merged IstioOperator, each instance's
        // objects and values) and the charts of the same package: no text goes back and forth.
        let helm_releases = match helm_releases {
            false => None,
            true => Some(
                installer::helm_releases::drafts(&rendered.merged, &packages, &rendered.generated)
                    .map_err(|e| RenderError::Failed(e.to_string()))?,
            ),
        };
        Ok(Rendered {
            namespace_labels: installer::created_namespace_labels(&rendered.merged),
            components: rendered.components,
            warnings: rendered.warnings,
            version: rendered.version,
            helm_releases,
        })
    }
}
