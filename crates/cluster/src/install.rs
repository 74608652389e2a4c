//! Installing a rendered mesh: objects applied in dependency order, component by component.
//!
//! The order is istioctl's: first every Namespace (the rendered ones, and the namespaces the
//! objects go to when they do not exist yet), then every CustomResourceDefinition, waiting until
//! each is Established, then each component's remaining objects in the order given (istioctl's:
//! Base, Pilot, then the rest), each component's workloads waited for until ready (see
//! [`crate::readiness`]) before the next is applied, unless the options say not to. Nothing here renders; the caller hands over the objects.

use std::collections::BTreeSet;
use std::time::Duration;

use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, ObjectMeta, PostParams};
use serde_json::Value;

use crate::{Applied, ApplyReport, Client, Error, ObjectRef, Outcome};

/// One component's objects, as rendered.
#[derive(Debug, Clone)]
pub struct Component {
    /// How people call it (`Istio core`, `Istiod`): the progress line's words.
    pub display_name: String,
    pub objects: Vec<Value>,
}

/// How [`Client::install`] applies.
#[derive(Debug, Clone)]
pub struct InstallOptions {
    pub field_manager: String,
    /// Take over fields other field managers own instead of failing with [`Error::Conflict`].
    pub force: bool,
    /// How long each CustomResourceDefinition may take to become Established.
    pub crd_timeout: Duration,
    /// After each component is applied, wait this long at most for its workloads
    /// (Deployments, StatefulSets, DaemonSets, Jobs) to be ready; `None` does not wait.
    pub readiness_timeout: Option<Duration>,
}

/// What one component's install did: every object of it, Namespaces and CRDs included.
#[derive(Debug, Clone)]
pub struct ComponentReport {
    pub display_name: String,
    pub report: ApplyReport,
}

/// What [`Client::install`] did.
#[derive(Debug, Clone, Default)]
pub struct InstallReport {
    /// The namespaces objects go to that nothing rendered: `Created` when the install made
    /// them, `Unchanged` when they existed.
    pub namespaces: ApplyReport,
    pub components: Vec<ComponentReport>,
}

impl InstallReport {
    /// How many objects (target namespaces included) had this outcome.
    pub fn count(&self, outcome: Outcome) -> usize {
        self.namespaces.count(outcome)
            + self
                .components
                .iter()
                .map(|c| c.report.count(outcome))
                .sum::<usize>()
    }
}

fn kind_of(obj: &Value) -> &str {
    obj.get("kind").and_then(Value::as_str).unwrap_or("")
}

fn name_of(obj: &Value) -> &str {
    obj.pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("")
}

fn is_crd(obj: &Value) -> bool {
    kind_of(obj) == "CustomResourceDefinition"
        && obj
            .get("apiVersion")
            .and_then(Value::as_str)
            .is_some_and(|v| v.starts_with("apiextensions.k8s.io/"))
}

fn is_namespace(obj: &Value) -> bool {
    kind_of(obj) == "Namespace" && obj.get("apiVersion").and_then(Value::as_str) == Some("v1")
}

impl Client {
    /// Creates namespace `name` unless it exists (a plain create, so that a second install
    /// finds it and changes nothing).
    async fn ensure_namespace(&self, name: &str, field_manager: &str) -> Result<Applied, Error> {
        let api: Api<Namespace> = Api::all(self.kube.clone());
        let object = ObjectRef {
            api_version: "v1".into(),
            kind: "Namespace".into(),
            namespace: None,
            name: name.into(),
        };
        let api_error = |action: &'static str| {
            let object = object.clone();
            move |source| Error::Api {
                object: Box::new(object),
                action,
                source,
            }
        };
        if let Some(ns) = api.get_opt(name).await.map_err(api_error("reading it"))? {
            return Ok(Applied {
                object,
                outcome: Outcome::Unchanged,
                resource_version: ns.metadata.resource_version.unwrap_or_default(),
            });
        }
        let ns = Namespace {
            metadata: ObjectMeta {
                name: Some(name.into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let params = PostParams {
            field_manager: Some(field_manager.into()),
            ..Default::default()
        };
        let created = api
            .create(&params, &ns)
            .await
            .map_err(api_error("creating it"))?;
        Ok(Applied {
            object,
            outcome: Outcome::Created,
            resource_version: created.metadata.resource_version.unwrap_or_default(),
        })
    }

    /// Installs `components` in dependency order (see the module docs), calling `progress`
    /// after each component is applied. Stops at the first failure; what was applied before it
    /// stays, and running the same install again converges.
    pub async fn install(
        &self,
        components: &[Component],
        options: &InstallOptions,
        progress: &mut (dyn FnMut(&ComponentReport) + Send),
    ) -> Result<InstallReport, Error> {
        let manager = options.field_manager.as_str();
        let mut per_component: Vec<ApplyReport> = vec![ApplyReport::default(); components.len()];
        let mut report = InstallReport::default();

        // 1. Namespaces: the rendered ones, then those objects go to that nothing renders.
        let rendered: BTreeSet<&str> = components
            .iter()
            .flat_map(|c| c.objects.iter())
            .filter(|o| is_namespace(o))
            .map(name_of)
            .collect();
        for (i, c) in components.iter().enumerate() {
            let namespaces: Vec<Value> = c
                .objects
                .iter()
                .filter(|o| is_namespace(o))
                .cloned()
                .collect();
            let applied = self.apply(&namespaces, manager, options.force).await?;
            per_component[i].objects.extend(applied.objects);
        }
        let targets: BTreeSet<&str> = components
            .iter()
            .flat_map(|c| c.objects.iter())
            .filter_map(|o| o.pointer("/metadata/namespace").and_then(Value::as_str))
            .filter(|ns| !ns.is_empty() && !rendered.contains(ns))
            .collect();
        for ns in targets {
            report
                .namespaces
                .objects
                .push(self.ensure_namespace(ns, manager).await?);
        }

        // 2. CustomResourceDefinitions, then wait until every one is served.
        let mut crd_names = Vec::new();
        for (i, c) in components.iter().enumerate() {
            let crds: Vec<Value> = c.objects.iter().filter(|o| is_crd(o)).cloned().collect();
            crd_names.extend(crds.iter().map(|o| name_of(o).to_string()));
            let applied = self.apply(&crds, manager, options.force).await?;
            per_component[i].objects.extend(applied.objects);
        }
        for name in &crd_names {
            self.wait_crd_established(name, options.crd_timeout).await?;
        }

        // 3. Everything else, component by component.
        for (c, mut done) in components.iter().zip(per_component) {
            let rest: Vec<Value> = c
                .objects
                .iter()
                .filter(|o| !is_namespace(o) && !is_crd(o))
                .cloned()
                .collect();
            done.objects
                .extend(self.apply(&rest, manager, options.force).await?.objects);
            if let Some(timeout) = options.readiness_timeout {
                let applied: Vec<ObjectRef> =
                    done.objects.iter().map(|a| a.object.clone()).collect();
                self.wait_ready(&c.display_name, &applied, timeout).await?;
            }
            let component = ComponentReport {
                display_name: c.display_name.clone(),
                report: done,
            };
            progress(&component);
            report.components.push(component);
        }
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn recognises_namespaces_and_crds() {
        let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "a.b"}});
        let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"}});
        let other =
            json!({"apiVersion": "other.io/v1", "kind": "Namespace", "metadata": {"name": "n"}});
        assert!(is_crd(&crd) && !is_namespace(&crd));
        assert!(is_namespace(&ns) && !is_crd(&ns));
        assert!(!is_namespace(&other));
        assert_eq!(name_of(&crd), "a.b");
    }
}
