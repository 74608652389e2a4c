//! Putting a mesh CA into a cluster: its `cacerts` Secret (made before istiod starts, which
//! reads it only then). A `cacerts` whose root differs is another mesh's trust: replacing it
//! would cut the cluster off from every peer that trusts the old root, so it is refused unless
//! forced, before anything is written.

use manifest::cacerts::{SECRET_NAME, same_root};

use crate::{Error, FIELD_MANAGER};

/// What [`apply_cacerts`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacertsOutcome {
    Created,
    /// The same root was there; the Secret now holds the given files.
    Updated,
    /// Another root was there and `force` replaced it.
    Replaced,
}

/// Creates or updates `namespace/cacerts` with `files` (name, PEM text; `root-cert.pem`
/// among them), refusing to replace another root unless `force`.
pub async fn apply_cacerts(
    client: &cluster::Client,
    namespace: &str,
    files: &[(&str, &str)],
    force: bool,
) -> Result<CacertsOutcome, Error> {
    let root = files
        .iter()
        .find(|(name, _)| *name == "root-cert.pem")
        .map(|(_, text)| *text)
        .unwrap_or_default();
    let existing = client.secret(namespace, SECRET_NAME).await?;
    let outcome = match &existing {
        None => CacertsOutcome::Created,
        Some(secret) => {
            let live_root = secret
                .data
                .as_ref()
                .and_then(|d| d.get("root-cert.pem"))
                .map(|b| String::from_utf8_lossy(&b.0).into_owned())
                .unwrap_or_default();
            if same_root(&live_root, root) {
                CacertsOutcome::Updated
            } else if force {
                CacertsOutcome::Replaced
            } else {
                return Err(Error::ForeignRoot {
                    namespace: namespace.to_string(),
                });
            }
        }
    };
    client.ensure_namespace(namespace, FIELD_MANAGER).await?;
    let secret = manifest::cacerts::secret(namespace, files);
    client.apply(&[secret], FIELD_MANAGER, true).await?;
    Ok(outcome)
}
