//! What an install refuses to do before its first write, as istioctl's installer does: sidecar
//! injectors that would inject the same pods as another revision's (istioctl's
//! `CheckWebhooks`), CustomResourceDefinitions that would be replaced by older ones, and what
//! bosun's catalog forbids (an end-of-life release, a skipped minor, an in-place downgrade).
//! Judged by `cluster::overlap`, `assess::crds` and `release::support`; only reads the cluster.

use serde_json::Value;

use crate::{Error, Install};

/// A reason not to write: the command line fails on it (or, with `--force`, warns and goes
/// on); the operator records it in the IstioOperator's status and applies nothing.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Refusal {
    /// Rendered sidecar injectors that would inject the same pods as a live injector of
    /// another revision (pods would be injected twice).
    #[error("{}", cluster::Error::WebhookOverlap { overlaps: overlaps.clone() })]
    OverlappingInjectors {
        overlaps: Vec<cluster::overlap::Overlap>,
    },
    /// Rendered CustomResourceDefinitions that would replace newer live ones.
    #[error("{}", assess::crds::DowngradeRefused { downgrades: downgrades.clone() })]
    CrdDowngrade {
        downgrades: Vec<assess::crds::CrdDowngrade>,
    },
    /// What the catalog forbids (each [`release::support::Concern::refuses`]): an end-of-life
    /// release, an upgrade across more minors than Istio supports, an in-place downgrade.
    #[error("{}", unsupported_text(concerns))]
    Unsupported {
        concerns: Vec<release::support::Concern>,
    },
}

/// Each concern on a line of its own with what to do about it.
fn unsupported_text(concerns: &[release::support::Concern]) -> String {
    let mut out = String::from("the install is not supported by Istio's release policy:");
    for c in concerns {
        out.push_str(&format!("\n  {c}\n    fix: {}", c.fix()));
    }
    out
}

impl Refusal {
    /// A short, stable name for the kind of refusal (a status condition's reason).
    pub fn reason(&self) -> &'static str {
        match self {
            Refusal::OverlappingInjectors { .. } => "OverlappingInjectors",
            Refusal::CrdDowngrade { .. } => "CrdDowngrade",
            Refusal::Unsupported { .. } => "UnsupportedRelease",
        }
    }

    /// What was found, one item a line after a heading line, without the command line's advice
    /// (`--force`, `-d`), for readers that cannot pass flags (an IstioOperator's status).
    pub fn findings(&self) -> String {
        let (heading, items): (String, Vec<String>) = match self {
            Refusal::OverlappingInjectors { overlaps } => (
                format!(
                    "{} would inject sidecars into the same pods as {} of another revision already in the cluster (pods would be injected twice)",
                    plural(
                        overlaps.len(),
                        "a sidecar injector webhook",
                        "sidecar injector webhooks"
                    ),
                    plural(overlaps.len(), "one", "ones"),
                ),
                overlaps.iter().map(ToString::to_string).collect(),
            ),
            Refusal::CrdDowngrade { downgrades } => (
                format!(
                    "the install would replace {} with older {} (a downgrade)",
                    plural(
                        downgrades.len(),
                        "a CustomResourceDefinition",
                        &format!("{} CustomResourceDefinitions", downgrades.len())
                    ),
                    plural(downgrades.len(), "one", "ones"),
                ),
                downgrades.iter().map(ToString::to_string).collect(),
            ),
            Refusal::Unsupported { concerns } => (
                "the install is not supported by Istio's release policy".to_string(),
                concerns.iter().map(ToString::to_string).collect(),
            ),
        };
        format!("{heading}: {}", items.join("; "))
    }
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

impl Install {
    /// What the overlap check judges: the rendered objects, plus the default tag's injector
    /// when the install will make it; and whether the live injector of the revision `default`
    /// counts as deactivated (it will be, once the tag exists).
    pub fn overlap_candidates(&self) -> (Vec<Value>, bool) {
        let mut rendered: Vec<Value> = self.objects().cloned().collect();
        rendered.extend(self.default_tag.preview.iter().cloned());
        (rendered, self.default_tag.preview.is_some())
    }

    /// [`webhook_overlaps`] for this install, judging the default tag the install makes as it
    /// will be (istioctl leaves its own injectors out of the check instead, and misses what
    /// the tag then injects twice).
    pub async fn webhook_overlaps(
        &self,
        client: &cluster::Client,
    ) -> Result<Option<Refusal>, Error> {
        let (rendered, default_deactivated) = self.overlap_candidates();
        webhook_overlaps(client, &rendered, default_deactivated).await
    }

    /// What bosun's catalog says of this install on day `today` ([`release::support::judge`]:
    /// the release's end of life, the cluster's Kubernetes version against its range, Istio's
    /// upgrade rules against every installed revision's version), with the ones that refuse
    /// as one [`Refusal::Unsupported`] and the others (Kubernetes range, not in the catalog) to
    /// tell. `kubernetes` is the API server's version; only the revisions are read here.
    pub async fn release_policy(
        &self,
        client: &cluster::Client,
        catalog: &release::Catalog,
        kubernetes: Option<&str>,
        today: release::support::Date,
    ) -> Result<(Option<Refusal>, Vec<release::support::Concern>), Error> {
        release_policy(
            client,
            catalog,
            &self.version,
            self.revision(),
            kubernetes,
            today,
        )
        .await
    }

    /// [`crd_downgrades`] for this install.
    pub async fn crd_downgrades(&self, client: &cluster::Client) -> Result<Option<Refusal>, Error> {
        let rendered: Vec<&Value> = self.objects().collect();
        crd_downgrades(client, &rendered).await
    }
}

/// What bosun's catalog says of installing Istio `version` as `revision` on day `today`
/// ([`release::support::judge`]: the release's end of life, the cluster's Kubernetes version
/// against its range, Istio's upgrade rules against every installed revision's version), with
/// the ones that refuse as one [`Refusal::Unsupported`] and the others (Kubernetes range, not
/// in the catalog) to tell. `kubernetes` is the API server's version; only the revisions are
/// read here. [`Install::release_policy`] and the operator both judge through this.
pub async fn release_policy(
    client: &cluster::Client,
    catalog: &release::Catalog,
    version: &str,
    revision: &str,
    kubernetes: Option<&str>,
    today: release::support::Date,
) -> Result<(Option<Refusal>, Vec<release::support::Concern>), Error> {
    let inventory = client.revisions().await?;
    let installed: Vec<(String, String)> = inventory
        .revisions
        .iter()
        // A control plane: istiod or an injector. `uninstall --revision` leaves a
        // revision's Base objects (CRDs, the reader account), which upgrade nothing.
        .filter(|r| !r.istiod_namespaces.is_empty() || !r.injectors.is_empty())
        .flat_map(|r| r.versions.iter().map(|v| (r.revision.clone(), v.clone())))
        .collect();
    let concerns =
        release::support::judge(catalog, version, revision, kubernetes, &installed, today);
    let (refusing, told): (Vec<_>, Vec<_>) = concerns.into_iter().partition(|c| c.refuses());
    let refusal = (!refusing.is_empty()).then_some(Refusal::Unsupported { concerns: refusing });
    Ok((refusal, told))
}

/// Rendered sidecar injectors that would inject the same pods as a live injector of another
/// revision (the live injector of the revision `default` judged as deactivated when
/// `default_deactivated`: what making the default tag does to it first).
pub async fn webhook_overlaps(
    client: &cluster::Client,
    rendered: &[Value],
    default_deactivated: bool,
) -> Result<Option<Refusal>, Error> {
    let overlaps = client
        .webhook_overlaps_after(rendered, default_deactivated)
        .await?;
    Ok((!overlaps.is_empty()).then_some(Refusal::OverlappingInjectors { overlaps }))
}

/// Rendered CustomResourceDefinitions that would replace newer live ones (`assess::crds`:
/// their Istio versions, and API versions they would stop serving). A rendered CRD without
/// the owner labels' version (the operator leaves CRDs unlabelled) is judged at the version
/// the install's other objects carry, which is what it is. Only the CRDs are copied.
pub async fn crd_downgrades(
    client: &cluster::Client,
    rendered: &[&Value],
) -> Result<Option<Refusal>, Error> {
    let is_crd = |o: &&&Value| o["kind"] == "CustomResourceDefinition";
    let version = rendered
        .iter()
        .filter(|o| !is_crd(o))
        .find_map(|o| version_label(o));
    let crds: Vec<Value> = rendered
        .iter()
        .filter(is_crd)
        .map(|crd| match (&version, version_label(crd)) {
            (Some(version), None) => labelled(crd, version),
            _ => (*crd).clone(),
        })
        .collect();
    let downgrades = client.crd_downgrades(&crds).await?;
    Ok((!downgrades.is_empty()).then_some(Refusal::CrdDowngrade { downgrades }))
}

/// Every refusal of an install that makes no default tag (the operator's), overlaps first.
/// Only the webhook configurations and CRDs among `rendered` are copied.
pub async fn refusals(
    client: &cluster::Client,
    rendered: &[&Value],
) -> Result<Vec<Refusal>, Error> {
    let injectors: Vec<Value> = rendered
        .iter()
        .filter(|o| o["kind"] == "MutatingWebhookConfiguration")
        .map(|o| (*o).clone())
        .collect();
    let overlaps = webhook_overlaps(client, &injectors, false).await?;
    let downgrades = crd_downgrades(client, rendered).await?;
    Ok(overlaps.into_iter().chain(downgrades).collect())
}

fn version_label(object: &Value) -> Option<String> {
    object
        .pointer("/metadata/labels")
        .and_then(|l| l.get(vocab::labels::VERSION_LABEL))
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// `crd` with the version label set to `version`.
fn labelled(crd: &Value, version: &str) -> Value {
    let mut crd = crd.clone();
    if let Some(metadata) = crd.get_mut("metadata").and_then(Value::as_object_mut) {
        let labels = metadata
            .entry("labels")
            .or_insert_with(|| Value::Object(Default::default()));
        if let Some(labels) = labels.as_object_mut() {
            labels.insert(
                vocab::labels::VERSION_LABEL.into(),
                Value::String(version.into()),
            );
        }
    }
    crd
}

#[cfg(test)]
mod tests {
    use super::*;

    fn downgrade(name: &str) -> assess::crds::CrdDowngrade {
        assess::crds::CrdDowngrade {
            name: name.into(),
            live_version: Some("1.32".into()),
            rendered_version: Some("1.31".into()),
            dropped_api_versions: vec![],
        }
    }

    #[test]
    fn the_command_lines_text_is_the_refusals_display() {
        let downgrades = vec![downgrade("gateways.networking.istio.io")];
        let refusal = Refusal::CrdDowngrade {
            downgrades: downgrades.clone(),
        };
        assert_eq!(
            refusal.to_string(),
            assess::crds::DowngradeRefused { downgrades }.to_string()
        );
        assert!(refusal.to_string().contains("--force"));
    }

    #[test]
    fn findings_name_each_item_without_the_command_lines_advice() {
        let refusal = Refusal::CrdDowngrade {
            downgrades: vec![downgrade("a.istio.io"), downgrade("b.istio.io")],
        };
        let findings = refusal.findings();
        assert_eq!(
            findings,
            "the install would replace 2 CustomResourceDefinitions with older ones (a downgrade): \
             a.istio.io: in the cluster from Istio 1.32, the install's from Istio 1.31; \
             b.istio.io: in the cluster from Istio 1.32, the install's from Istio 1.31"
        );
        assert!(!findings.contains("--force") && !findings.contains('\n'));
        assert_eq!(refusal.reason(), "CrdDowngrade");
    }
}
