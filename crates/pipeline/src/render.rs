//! From inputs to rendered objects: merge, validate, take in what the cluster said, render.

use iop::IstioOperator;

use crate::validate::{diagnostics, judge, merge_and_validate, merge_inputs};
use crate::{Diagnostic, Error, Inputs, InstallPackages};

/// What istioctl takes from the cluster it renders for (see `iop::detect`): data the caller
/// read from the cluster.
#[derive(Debug, Clone)]
pub struct Detected {
    /// `--set` paths laid over the profile (GKE's).
    pub settings: Vec<String>,
    /// The cluster's version, as the charts' `.Capabilities.KubeVersion`.
    pub kube_version: helm::objects::KubeVersion,
    /// API versions the cluster serves beyond Helm's defaults, for `.Capabilities.APIVersions`
    /// (istioctl reads none from a cluster; an offline render for a target names them).
    pub api_versions: Vec<String>,
    pub cni: iop::detect::CniConfig,
}

impl Detected {
    /// From the facts a cluster gave; `gke_detection` is istioctl's `AUTO_GKE_DETECTION`.
    pub fn from_facts(facts: &vocab::ClusterFacts, gke_detection: bool) -> Detected {
        let v = &facts.version;
        Detected {
            settings: iop::detect::platform_settings(&v.git_version, gke_detection),
            kube_version: helm::objects::KubeVersion {
                version: v.git_version.clone(),
                major: v.major.clone(),
                minor: v.minor.clone(),
            },
            api_versions: Vec::new(),
            cni: iop::detect::CniConfig {
                calico_felix: facts.calico_felix.clone(),
                cilium: facts.cilium_config.clone(),
            },
        }
    }

    /// What istioctl would take from a cluster of `kube_version` that it cannot read (a GitOps
    /// render for a target cluster): the version's own implications (GKE's settings for a
    /// `-gke` version, with `gke_detection`), no CNI configuration, and the API versions given.
    pub fn offline(
        kube_version: helm::objects::KubeVersion,
        api_versions: Vec<String>,
        gke_detection: bool,
    ) -> Detected {
        Detected {
            settings: iop::detect::platform_settings(&kube_version.version, gke_detection),
            kube_version,
            api_versions,
            cni: iop::detect::CniConfig::default(),
        }
    }

    /// The cluster as the charts see it.
    pub fn target(&self) -> manifest::render::Target {
        manifest::render::Target {
            kube_version: self.kube_version.clone(),
            api_versions: self.api_versions.clone(),
        }
    }

    /// The inputs' `merged` IstioOperator for this cluster: merged again with the detected
    /// settings over the profile (when there are any), and istioctl's CNI warnings for it.
    pub fn apply(
        &self,
        merged: IstioOperator,
        files: &[iop::merge::InputFile],
        flags: &[String],
        packages: &InstallPackages,
    ) -> Result<(IstioOperator, Vec<String>), Error> {
        let merged = if self.settings.is_empty() {
            merged
        } else {
            let read = |path: &str, profile: &str| packages.read_profile(path, profile);
            IstioOperator::from_tree(
                iop::merge::merge_inputs_detected(files, flags, &self.settings, &read)
                    .map_err(Error::Merge)?,
            )
        };
        let enabled = |c: &str| iop::detect::component_enabled(merged.tree(), c);
        let warnings =
            iop::detect::cni_incompatibilities(&self.cni, enabled("cni"), enabled("ztunnel"));
        Ok((merged, warnings))
    }
}

/// A rendered install.
pub struct Rendered {
    /// The merged, validated IstioOperator (for the cluster, when one was read).
    pub merged: IstioOperator,
    /// What the cluster said, when it was asked.
    pub detected: Option<Detected>,
    pub generated: manifest::generate::Generated,
}

/// What [`render()`] has to say, in order, and how it ended: the diagnostics are told
/// whether or not it failed.
pub struct Rendering {
    pub diagnostics: Vec<Diagnostic>,
    pub result: Result<Rendered, Error>,
}

/// Why the caller could not read what the cluster says about itself: its own error, kept whole
/// (how it asks, and so how that fails, is the caller's).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct DetectError(Box<dyn std::error::Error + Send + Sync>);

impl DetectError {
    pub fn new(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> DetectError {
        DetectError(error.into())
    }
}

/// The inputs merged, validated and rendered, as `manifest generate` renders them. Validation
/// errors fail, or with `force` are told and passed over, as istioctl does. With `detect`, the
/// cluster is read once the input is known to be valid (or forced), so that bad input fails
/// before any request; the inputs are then merged again over what it implies for the profile.
pub fn render(
    inputs: &Inputs,
    packages: &InstallPackages,
    force: bool,
    detect: Option<&dyn Fn() -> Result<Detected, DetectError>>,
) -> Rendering {
    let mut diagnostics = Vec::new();
    let result = match detect {
        Some(detect) => render_detected(inputs, packages, force, detect, &mut diagnostics),
        None => render_offline(inputs, packages, force, &mut diagnostics),
    };
    if let Ok(rendered) = &result {
        let warnings = &rendered.generated.warnings;
        diagnostics.extend(warnings.iter().cloned().map(Diagnostic::Notice));
    }
    Rendering {
        diagnostics,
        result,
    }
}

fn render_detected(
    inputs: &Inputs,
    packages: &InstallPackages,
    force: bool,
    detect: &dyn Fn() -> Result<Detected, DetectError>,
    out: &mut Vec<Diagnostic>,
) -> Result<Rendered, Error> {
    let files = &inputs.files;
    let flags = inputs.flags();
    let validated = merge_and_validate(files, &flags, packages)?;
    let (mut merged, report) = (validated.merged, validated.report);
    let proceed = report.errors.is_empty() || force;
    let mut detected = None;
    if proceed {
        let d = detect()?;
        let cni_warnings;
        (merged, cni_warnings) = d.apply(merged, files, &flags, packages)?;
        out.extend(cni_warnings.into_iter().map(Diagnostic::Notice));
        detected = Some(d);
    }
    out.extend(diagnostics(&report, files, &merged, packages, false));
    judge(&report, files, &merged, packages, force, out)?;
    let target = detected.as_ref().map(Detected::target);
    let generated = generate(&merged, target.as_ref(), packages)?;
    Ok(Rendered {
        merged,
        detected,
        generated,
    })
}

fn render_offline(
    inputs: &Inputs,
    packages: &InstallPackages,
    force: bool,
    out: &mut Vec<Diagnostic>,
) -> Result<Rendered, Error> {
    // Without a cluster to ask, validation does not change the merged input, so it runs
    // beside the rendering; what the report says is told, and decides, before anything
    // rendered is used.
    let files = &inputs.files;
    let (merged, sources) = merge_inputs(files, &inputs.flags(), packages)?;
    let load = packages.chart_loader();
    // The install package's own schemas are read and parsed beside the rendering too (its
    // protos cost about 2 ms of CPU in a release build): off the render's path.
    let validate = || -> Result<iop::validate::Report, Error> {
        let own = packages.schemas(&merged)?;
        let schemas = own.for_validation();
        Ok(iop::validate::validate_with(
            merged.tree(),
            &sources,
            schemas,
        ))
    };
    let (rendered, report) = manifest::generate::generate_printable(&merged, None, &load, validate);
    let report = report?;
    out.extend(diagnostics(&report, files, &merged, packages, false));
    judge(&report, files, &merged, packages, force, out)?;
    Ok(Rendered {
        generated: rendered?,
        merged,
        detected: None,
    })
}

/// The merged IstioOperator rendered with the charts of its install package (the charts'
/// warnings are in the result), for the cluster `target` when there is one.
pub fn generate(
    merged: &IstioOperator,
    target: Option<&manifest::render::Target>,
    packages: &InstallPackages,
) -> Result<manifest::generate::Generated, Error> {
    let load = packages.chart_loader();
    Ok(manifest::generate::generate(merged, target, &load)?)
}

/// The merged (validated) IstioOperator's component instances with their Helm values and plain
/// Helm rendering (see [`manifest::generate::migrate`]).
pub fn migrate(
    merged: &IstioOperator,
    packages: &InstallPackages,
) -> Result<Vec<manifest::generate::Migration>, Error> {
    let load = packages.chart_loader();
    Ok(manifest::generate::migrate(merged, None, &load)?)
}
