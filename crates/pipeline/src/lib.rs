//! The render pipeline, as one API for every caller: an IstioOperator's inputs (files' text,
//! `--set` flags, revision) → the merged and validated IstioOperator → per-component values →
//! rendered, post-processed objects, and what an install makes of them (owner labels, apply
//! order, what it owns for prune, the default revision tag's options). `bosun manifest
//! generate`, `install`, `plan`, `verify-install`, `tag` and the operator all start here, so
//! they cannot render differently.
//!
//! It is its own crate, not part of `iop` or `manifest`, because it joins them (and the
//! install package on disk) and neither may know the other's callers; and not part of the
//! CLI, so the operator can render without depending on the binary.
//!
//! Owns: loading the install package ([`package`], the only file reads here), inputs as data
//! ([`Inputs`]), merge and validation with their reports as data ([`Diagnostic`]; the caller
//! prints them), rendering ([`render()`]), and what install and the operator share
//! ([`install`], [`tag`], [`resource`]).
//!
//! Must not: read the user's files, stdin or the environment (the CLI does, and hands in their
//! text and settings), print, or talk to a cluster (what a cluster says about itself comes in
//! as [`Detected`]).

pub mod install;
pub mod package;
mod render;
pub mod resource;
pub mod tag;
mod validate;

pub use package::{InstallPackages, LocateDefault, LocateError, NoProfiles, io_error_text};
pub use render::{DetectError, Detected, Rendered, Rendering, generate, migrate, render};
pub use validate::{
    Diagnostic, Validated, diagnostics, merge_and_validate, merge_inputs, validate,
};

/// Why the pipeline stopped. The texts are istioctl's (the CLI adds `Error: `).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The inputs could not be layered (a file that is not YAML, an unknown profile, a bad
    /// `--set`).
    #[error("merge inputs: {0}")]
    Merge(#[source] iop::merge::MergeError),
    /// Validation found errors (they are in the diagnostics) and `force` was not given.
    #[error("{summary}; fix it, or pass --force to proceed")]
    Invalid { summary: String },
    /// Reading what the cluster says about itself failed.
    #[error(transparent)]
    Detect(#[from] DetectError),
    /// The install package could not be located.
    #[error(transparent)]
    Package(#[from] LocateError),
    /// The install package's own `values` or MeshConfig schema could not be read.
    #[error(transparent)]
    Schema(#[from] package::SchemaError),
    /// Rendering the charts failed.
    #[error(transparent)]
    Generate(#[from] manifest::generate::GenerateError),
}

/// An IstioOperator's inputs as data: what `-f`, `--set`, `--manifests` and `--revision` say.
/// The caller reads the files.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// The IstioOperator files, in layering order (name as given, text).
    pub files: Vec<iop::merge::InputFile>,
    /// istioctl `--set` paths (`components.pilot.k8s.replicaCount=2`, `profile=demo`).
    pub set: Vec<String>,
    /// The install package directory (`--manifests`).
    pub manifests: Option<String>,
    /// The control plane revision (`--revision`).
    pub revision: Option<String>,
}

impl Inputs {
    /// The `--set` flags with istioctl's aliases: `--manifests` and `--revision` are `--set`
    /// flags in disguise (a revision `default` is none).
    pub fn flags(&self) -> Vec<String> {
        let mut flags = self.set.clone();
        if let Some(m) = &self.manifests {
            flags.push(format!("installPackagePath={m}"));
        }
        if let Some(r) = self
            .revision
            .as_deref()
            .filter(|r| !r.is_empty() && *r != "default")
        {
            flags.push(format!("revision={r}"));
        }
        flags
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unlocated_package_fails_the_merge_with_its_profile_and_the_locator_words() {
        let packages = InstallPackages::new(std::sync::Arc::new(|| {
            Err(LocateError::from("no release cached".to_string()))
        }));
        let e = merge_inputs(&[], &[], &packages).unwrap_err();
        assert_eq!(
            e.to_string(),
            "merge inputs: profile \"default\" not found: no release cached"
        );
        assert!(matches!(
            e,
            Error::Merge(iop::merge::MergeError::ProfileNotFound {
                source: iop::merge::ReadProfileError::Package { .. },
                ..
            })
        ));
        let e = packages.chart_loader()("", "base").err().unwrap();
        assert!(matches!(e, manifest::generate::LoadChartError::Package(_)));
        assert_eq!(e.to_string(), "no release cached");
        let e = packages.chart_loader()("/nowhere", "base").err().unwrap();
        assert_eq!(e.to_string(), "component does not exist");
    }

    #[test]
    fn manifests_and_revision_are_set_flags_in_disguise() {
        let inputs = Inputs {
            set: vec!["profile=demo".into()],
            manifests: Some("/m".into()),
            revision: Some("canary".into()),
            ..Inputs::default()
        };
        assert_eq!(
            inputs.flags(),
            ["profile=demo", "installPackagePath=/m", "revision=canary"]
        );
        for none in ["", "default"] {
            let inputs = Inputs {
                revision: Some(none.into()),
                ..Inputs::default()
            };
            assert!(inputs.flags().is_empty(), "{none:?}");
        }
    }

    #[test]
    fn diagnostics_read_as_istioctl_prints_them() {
        let notice = Diagnostic::Notice("cni is off".into());
        assert_eq!(notice.to_string(), "❗ cni is off\n");
        let forced = Diagnostic::Forced {
            summary: "the IstioOperator is invalid (1 error)".into(),
        };
        assert_eq!(
            forced.to_string(),
            "spec invalid; continuing because of --force: the IstioOperator is invalid (1 error)\n"
        );
        let invalid = Error::Invalid {
            summary: "the IstioOperator is invalid (2 errors)".into(),
        };
        assert_eq!(
            invalid.to_string(),
            "the IstioOperator is invalid (2 errors); fix it, or pass --force to proceed"
        );
    }
}
