//! Verifying an install (`verify-install`): is every rendered object in the cluster, does it
//! match what was rendered, and is every workload ready?
//!
//! "Matches" is decided by the API server, not guessed: each live object is server-side applied
//! again with `dryRun=All` (forced, so fields someone else took over come back as rendered),
//! and the result compared with the live object as [`crate::plan`] does. Defaulted fields,
//! canonical quantities (`2048Mi` is stored as `2Gi`) and fields other managers own that the
//! rendering does not set therefore never count as differences; a rendered field someone
//! changed does. This needs permission to patch (a dry run writes nothing). Readiness is
//! [`crate::readiness`] of the live object.

use serde_json::Value;
use vocab::ObjectRef;

use crate::apply::Target;
use crate::plan::field_changes;
use crate::{Client, Error, Readiness, readiness};
use kube::api::{Patch, PatchParams};
use manifest::diff::Change;

/// How one rendered object compares with the cluster.
#[derive(Debug, Clone, PartialEq)]
pub enum Presence {
    /// Not in the cluster (why: not found, or its kind is not served).
    Missing(String),
    /// In the cluster, with these rendered fields different (live → rendered).
    Differs(Vec<Change>),
    /// In the cluster as rendered.
    Matches,
}

/// One rendered object, verified.
#[derive(Debug, Clone, PartialEq)]
pub struct VerifiedObject {
    pub object: ObjectRef,
    pub presence: Presence,
    /// For workloads that exist: whether they are ready (`None` for other kinds).
    pub readiness: Option<Readiness>,
}

impl VerifiedObject {
    /// Present, as rendered, and ready if it is a workload.
    pub fn ok(&self) -> bool {
        self.presence == Presence::Matches
            && !matches!(self.readiness, Some(Readiness::NotReady(_)))
    }
}

/// What [`Client::verify`] found, one entry per rendered object in the order given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VerifyReport {
    pub objects: Vec<VerifiedObject>,
}

impl VerifyReport {
    /// Whether every object is present, as rendered, and ready.
    pub fn ok(&self) -> bool {
        self.objects.iter().all(VerifiedObject::ok)
    }
}

impl Client {
    /// Compares every rendered object in `objects` with the live one (see the module docs),
    /// dry-running with `field_manager`. Writes nothing.
    pub async fn verify(
        &self,
        objects: &[Value],
        field_manager: &str,
    ) -> Result<VerifyReport, Error> {
        let mut report = VerifyReport::default();
        let params = PatchParams::apply(field_manager).dry_run().force();
        for (index, obj) in objects.iter().enumerate() {
            let Target {
                api,
                object,
                mut body,
            } = match self.target(index, obj).await {
                Ok(target) => target,
                Err(Error::UnknownKind {
                    object,
                    api_version,
                    kind,
                }) => {
                    report.objects.push(VerifiedObject {
                        object: *object,
                        presence: Presence::Missing(format!(
                            "the API server serves no kind {kind} in {api_version}"
                        )),
                        readiness: None,
                    });
                    continue;
                }
                Err(e) => return Err(e),
            };
            let live = api
                .get_opt(&object.name)
                .await
                .map_err(|source| Error::Api {
                    object: Box::new(object.clone()),
                    action: "reading it to verify it",
                    source,
                })?;
            let Some(live) = live else {
                report.objects.push(VerifiedObject {
                    object,
                    presence: Presence::Missing("not found".into()),
                    readiness: None,
                });
                continue;
            };
            // What istiod writes at run time is istiod's, not a difference from the render.
            manifest::runtime::drop_foreign_runtime_fields(
                &mut body,
                &serde_json::to_value(&live).unwrap_or(Value::Null),
                field_manager,
            );
            let applied = api
                .patch(&object.name, &params, &Patch::Apply(&body))
                .await
                .map_err(|source| Error::Api {
                    object: Box::new(object.clone()),
                    action: "server-side apply dry run (to compare it with the rendered object)",
                    source,
                })?;
            let mut live = serde_json::to_value(&live).unwrap_or(Value::Null);
            if let Some(map) = live.as_object_mut() {
                // What readiness reads; a GET's response carries them, set them regardless.
                map.insert("apiVersion".into(), object.api_version.clone().into());
                map.insert("kind".into(), object.kind.clone().into());
            }
            let applied = serde_json::to_value(&applied).unwrap_or(Value::Null);
            let changes = field_changes(&live, &applied);
            report.objects.push(VerifiedObject {
                readiness: readiness(&live),
                presence: if changes.is_empty() {
                    Presence::Matches
                } else {
                    Presence::Differs(changes)
                },
                object,
            });
        }
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verified(presence: Presence, readiness: Option<Readiness>) -> VerifiedObject {
        VerifiedObject {
            object: ObjectRef {
                api_version: "apps/v1".into(),
                kind: "Deployment".into(),
                namespace: Some("n".into()),
                name: "d".into(),
            },
            presence,
            readiness,
        }
    }

    #[test]
    fn ok_needs_presence_equality_and_readiness() {
        assert!(verified(Presence::Matches, None).ok());
        assert!(verified(Presence::Matches, Some(Readiness::Ready)).ok());
        assert!(!verified(Presence::Matches, Some(Readiness::NotReady("x".into()))).ok());
        assert!(!verified(Presence::Missing("not found".into()), None).ok());
        let differs = Presence::Differs(vec![Change::Added {
            path: "a".into(),
            new: Value::Null,
        }]);
        assert!(!verified(differs, Some(Readiness::Ready)).ok());
        let report = VerifyReport {
            objects: vec![
                verified(Presence::Matches, None),
                verified(Presence::Missing("not found".into()), None),
            ],
        };
        assert!(!report.ok());
    }
}
