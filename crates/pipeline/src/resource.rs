//! An IstioOperator resource (as the operator reads it from the cluster) through the same
//! [`crate::render()`] as `bosun install -f FILE [--manifests DIR]`, the resource layered as
//! the object it is, and what comes back worded for its status.

use serde_json::Value;

use crate::install::{OwnerLabels, cluster_components};
use crate::{Detected, Diagnostic, Inputs, InstallPackages};

/// A rendered IstioOperator resource.
pub struct ResourceRender {
    /// In istioctl's component order, each one's objects in apply order with the owner labels
    /// (CRDs left unlabelled: see [`OwnerLabels::NotCrds`]).
    pub components: Vec<vocab::Component>,
    /// The CNI, validation and charts' warnings, as a person reads them.
    pub warnings: Vec<String>,
    /// The Istio version of the install package that rendered it (what the owner labels
    /// carry, and what the release policy judges).
    pub version: String,
    /// The merged, validated IstioOperator and the render per component and instance before
    /// the owner labels: what Helm release records are made from
    /// (`installer::helm_releases::drafts`).
    pub merged: iop::IstioOperator,
    pub generated: manifest::generate::Generated,
}

/// Why a resource did not render.
#[derive(Debug, thiserror::Error)]
pub enum ResourceError {
    /// The spec is at fault (it does not merge or does not validate): each problem.
    #[error("the IstioOperator is invalid: {}", .0.join("; "))]
    Invalid(Vec<String>),
    /// Rendering failed for another reason (charts missing, a template failed).
    #[error(transparent)]
    Failed(#[from] crate::Error),
}

/// Renders `iop` (apiVersion, kind, metadata, spec) for the cluster `detected` describes,
/// with the install package `manifests` (the pinned release when `None`): [`crate::render()`]
/// with the resource as its one input, layered as the object it is (no text in between).
pub fn render_resource(
    iop: &Value,
    manifests: Option<&str>,
    detected: &Detected,
    packages: &InstallPackages,
) -> Result<ResourceRender, ResourceError> {
    let name = format!(
        "IstioOperator {}/{}",
        iop.pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .unwrap_or(""),
        iop.pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("")
    );
    let inputs = Inputs {
        files: vec![iop::merge::InputFile::object(name, iop)],
        manifests: manifests.map(str::to_string),
        ..Inputs::default()
    };
    let detect = || Ok(detected.clone());
    let rendering = crate::render(&inputs, packages, false, Some(&detect));
    let issues = |error: bool| {
        rendering.diagnostics.iter().filter_map(move |d| match d {
            Diagnostic::Error { issue, .. } if error => Some(issue_text(issue)),
            Diagnostic::Warning { issue, .. } if !error => Some(issue_text(issue)),
            Diagnostic::Notice(text) if !error => Some(text.clone()),
            _ => None,
        })
    };
    let rendered = match rendering.result {
        Ok(rendered) => rendered,
        Err(crate::Error::Invalid { .. }) => {
            return Err(ResourceError::Invalid(issues(true).collect()));
        }
        // A merge failure (an unknown profile, a malformed field) is the spec's fault too.
        Err(e @ crate::Error::Merge(_)) => return Err(ResourceError::Invalid(vec![e.to_string()])),
        Err(e) => return Err(ResourceError::Failed(e)),
    };
    let warnings = issues(false).collect();
    let merged = rendered.merged;
    let generated = rendered.generated;
    let version = packages
        .istio_version(&merged)
        .map_err(crate::Error::Package)?;
    let components = cluster_components(&generated, &merged, &version, OwnerLabels::NotCrds);
    Ok(ResourceRender {
        components,
        warnings,
        version,
        merged,
        generated,
    })
}

/// A validation issue as the status shows it: the field and the message (positions point
/// into a file the user never wrote, so they are left out).
fn issue_text(issue: &iop::validate::Issue) -> String {
    if issue.field.is_empty() {
        issue.message.clone()
    } else {
        format!("{}: {}", issue.field, issue.message)
    }
}
