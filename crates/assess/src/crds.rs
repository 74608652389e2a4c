//! Whether an install would replace CustomResourceDefinitions with older ones (a downgrade):
//! a pure comparison of the rendered CRDs with the live ones ([`downgrades`]).
//!
//! What version a CRD carries (checked in the pinned Istio and in
//! `istio.io/istio@v0.0.0-20260423205519-b01690e6db7d`): the base chart's
//! `files/crd-all.gen.yaml` itself has no version, only the static labels `app: istio-pilot`,
//! `chart: istio`, `heritage: Tiller`, `release: istio`; its `crds.yaml` template replaces them
//! with `istio.labels`, whose `app.kubernetes.io/version` is the chart's `appVersion` (`1.0.0`
//! in both module snapshots: Istio's release builder stamps the real one into released charts)
//! and `helm.sh/chart: base-<chart version>`. istioctl and bosun add their owner label
//! `operator.istio.io/version`: the installing Istio's version (the package's `VERSION` file for
//! bosun, `1.31` in both snapshots). So a CRD's version is its `operator.istio.io/version`, else
//! (installed by Helm) its `app.kubernetes.io/version`. The rendered side is read the same way;
//! bosun's install labels what it renders, so it always has the first.
//!
//! A rendered CRD replaces a live one with an older one when both versions parse and the live
//! one is newer, or when the live CRD serves API versions the rendered one does not (objects
//! stored in those versions would stop being served) unless the rendered CRD is the newer one,
//! which may drop a version on purpose. CRDs with no comparable version and no dropped API
//! version pass: nothing says they are older.

use std::borrow::Borrow;
use std::collections::BTreeSet;
use std::fmt;

use serde::Serialize;
use serde_json::Value;
use vocab::labels::{HELM_VERSION_LABEL, VERSION_LABEL};

use crate::version::Version;

/// One CRD the install would replace with an older one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CrdDowngrade {
    pub name: String,
    /// The live CRD's version label value (see the module docs), if any.
    pub live_version: Option<String>,
    /// The rendered CRD's, if any.
    pub rendered_version: Option<String>,
    /// API versions the live CRD serves and the rendered one does not.
    pub dropped_api_versions: Vec<String>,
}

impl fmt::Display for CrdDowngrade {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "unknown".to_string());
        write!(
            f,
            "{}: in the cluster from Istio {}, the install's from Istio {}",
            self.name,
            show(&self.live_version),
            show(&self.rendered_version)
        )?;
        if !self.dropped_api_versions.is_empty() {
            write!(
                f,
                " (would stop serving {})",
                self.dropped_api_versions.join(", ")
            )?;
        }
        Ok(())
    }
}

/// The refusal `install` gives (without `--force`) when [`downgrades`] finds any.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the install would replace {} with older {} (a downgrade):{}\ninstall with charts at least as new as the cluster's (-d/--manifests), or pass --force to downgrade them",
    if downgrades.len() == 1 { "a CustomResourceDefinition".to_string() } else { format!("{} CustomResourceDefinitions", downgrades.len()) },
    if downgrades.len() == 1 { "one" } else { "ones" },
    downgrades.iter().map(|d| format!("\n  {d}")).collect::<String>()
)]
pub struct DowngradeRefused {
    pub downgrades: Vec<CrdDowngrade>,
}

fn label<'a>(crd: &'a Value, key: &str) -> Option<&'a str> {
    crd.pointer("/metadata/labels")
        .and_then(|l| l.get(key))
        .and_then(Value::as_str)
        .filter(|v| !v.is_empty())
}

/// A CRD's version label value (see the module docs).
pub fn crd_version(crd: &Value) -> Option<&str> {
    label(crd, VERSION_LABEL).or_else(|| label(crd, HELM_VERSION_LABEL))
}

/// The API versions a CRD serves (`spec.versions[]` with `served: true`).
pub fn served_versions(crd: &Value) -> BTreeSet<String> {
    crd.pointer("/spec/versions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|v| v.get("served").and_then(Value::as_bool) == Some(true))
        .filter_map(|v| v.get("name").and_then(Value::as_str))
        .map(str::to_string)
        .collect()
}

fn is_crd(object: &Value) -> bool {
    object.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition")
}

fn name(object: &Value) -> Option<&str> {
    object.pointer("/metadata/name").and_then(Value::as_str)
}

/// Each rendered CRD that would replace a live one of the same name with an older one (see the
/// module docs), in the rendered order. Objects of other kinds are ignored.
/// `live` is the cluster's CRDs, owned or shared (`Arc<Value>`: the install's list of them).
pub fn downgrades<L: Borrow<Value>>(rendered: &[Value], live: &[L]) -> Vec<CrdDowngrade> {
    let mut out = Vec::new();
    for r in rendered.iter().filter(|o| is_crd(o)) {
        let Some(crd_name) = name(r) else { continue };
        let Some(l) = live
            .iter()
            .map(Borrow::borrow)
            .find(|l| is_crd(l) && name(l) == Some(crd_name))
        else {
            continue;
        };
        let live_version = crd_version(l);
        let rendered_version = crd_version(r);
        let parsed = (
            live_version.and_then(Version::parse),
            rendered_version.and_then(Version::parse),
        );
        let (older, rendered_newer) = match &parsed {
            (Some(l), Some(r)) => (l > r, r > l),
            _ => (false, false),
        };
        let rendered_served = served_versions(r);
        let dropped: Vec<String> = served_versions(l)
            .into_iter()
            .filter(|v| !rendered_served.contains(v))
            .collect();
        let dropped_counts = !dropped.is_empty() && !rendered_newer;
        if older || dropped_counts {
            out.push(CrdDowngrade {
                name: crd_name.to_string(),
                live_version: live_version.map(str::to_string),
                rendered_version: rendered_version.map(str::to_string),
                dropped_api_versions: if dropped_counts { dropped } else { Vec::new() },
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every case in `tests/cases/assess/crd-downgrade`: `rendered` and `live` objects and the
    /// expected `downgrades` (as JSON), and optionally the refusal's `message`.
    #[test]
    fn downgrade_cases() {
        let mut failures = Vec::new();
        for (name, case) in crate::cases::yaml_cases("crd-downgrade", 8) {
            let list = |key: &str| {
                case.get(key)
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default()
            };
            let got = downgrades(&list("rendered"), &list("live"));
            let got_json = serde_json::to_value(&got).unwrap();
            let want = case
                .get("downgrades")
                .cloned()
                .unwrap_or(serde_json::json!([]));
            if got_json != want {
                failures.push(format!("{name}:\n got: {got_json}\nwant: {want}"));
            }
            if let Some(message) = case.get("message").and_then(Value::as_str) {
                let text = DowngradeRefused { downgrades: got }.to_string();
                if text.trim_end() != message.trim_end() {
                    failures.push(format!("{name}: message\n got: {text}\nwant: {message}"));
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    }
}
