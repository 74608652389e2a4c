//! Installing a rendered mesh: objects applied in dependency order, components side by side
//! where their dependencies allow.
//!
//! The order is istioctl's: first every Namespace (the rendered ones, and the namespaces the
//! objects go to when they do not exist yet), then every CustomResourceDefinition, waiting until
//! each is Established, then each component's remaining objects. A component starts once every
//! component it is installed after ([`Component::after`]; istioctl's dependencies: Istiod and
//! CNI after Base, gateways after Istiod, ztunnel after CNI) is applied and its workloads are
//! ready (see [`crate::readiness`]), unless the options say not to wait. Before the first
//! component, an installation's own objects are read once by its labels ([`crate::snapshot`]),
//! for the applies' outcomes and the prune after the install. Components with no
//! dependency between them (CNI and Istiod; ztunnel and the gateways) are applied at the same
//! time. A failed component fails the components installed after it (they are skipped) but
//! not the others, and the install reports every failure at the end. Nothing here renders; the
//! caller hands over the objects.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, ObjectMeta, PostParams};
use serde_json::Value;
use tokio::sync::watch;
use vocab::{Component, ObjectRef};

use crate::snapshot::{Read, Snapshot};
use crate::{Applied, ApplyReport, Client, Error, NotReadyWorkload, Outcome};

/// How [`Client::install`] applies.
#[derive(Debug, Clone)]
pub struct InstallOptions {
    pub field_manager: String,
    /// Take over fields other field managers own instead of failing with [`Error::Conflict`].
    pub force: bool,
    /// Without `force`, field managers whose fields the install takes over when they are the
    /// only ones an object conflicts with (the installer's own earlier manager, when it moves
    /// its objects to another one); a conflict with any other manager still fails.
    pub take_over_from: Vec<String>,
    /// How long each CustomResourceDefinition may take to become Established.
    pub crd_timeout: Duration,
    /// After each component is applied, wait this long at most for its workloads
    /// (Deployments, StatefulSets, DaemonSets, Jobs) to be ready; `None` does not wait.
    pub readiness_timeout: Option<Duration>,
    /// When waiting, also wait until each Service of type LoadBalancer has an address.
    pub wait_for_load_balancers: bool,
    /// The installation's owner labels (`vocab::Installation::owner_labels`), when the
    /// objects are an installation's: its objects are then read once, by label, before
    /// anything is applied, and [`Client::prune_after_install`] reuses that read (see
    /// [`crate::snapshot`]). `None` reads each kind and namespace the objects go to instead.
    pub owner_labels: Option<BTreeMap<String, String>>,
    /// Labels for the namespaces the install creates (those the objects go to that nothing
    /// renders), by namespace: as istioctl creates the Istio namespace labelled with
    /// `values.global.network`. A namespace that exists is left as it is.
    pub created_namespace_labels: BTreeMap<String, BTreeMap<String, String>>,
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
    /// The kinds (group, kind) of the CustomResourceDefinitions this install created: none of
    /// their objects can exist yet.
    pub created_kinds: BTreeSet<(String, String)>,
    /// The installation's objects as they were before the install applied anything (with
    /// [`InstallOptions::owner_labels`]).
    pub(crate) owned_before: Option<Snapshot>,
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

/// What [`Client::install`] tells its progress callback about component number `index` (of
/// the slice it was given).
#[derive(Debug)]
pub enum InstallEvent<'a> {
    /// Its dependencies are done; its objects are being applied.
    Applying,
    /// Applied; these workloads are not ready yet, for these reasons.
    Waiting(&'a [NotReadyWorkload]),
    /// Applied, and ready when the install waits.
    Installed(&'a ComponentReport),
    Failed(&'a Error),
    /// Not applied because a component it is installed after failed (that one's display name).
    Skipped {
        because: &'a str,
    },
}

/// Where each component stands, shared between the components' tasks: `None` while it runs,
/// then whether it succeeded.
type Done = Option<bool>;

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
    /// Creates namespace `name` unless it exists: a plain create (one request), so that a
    /// second install finds it and changes nothing; "already exists" is `Unchanged`.
    pub async fn ensure_namespace(
        &self,
        name: &str,
        field_manager: &str,
    ) -> Result<Applied, Error> {
        self.ensure_namespace_labelled(name, &BTreeMap::new(), field_manager)
            .await
    }

    /// [`Client::ensure_namespace`], created with `labels` (not added when it exists).
    pub async fn ensure_namespace_labelled(
        &self,
        name: &str,
        labels: &BTreeMap<String, String>,
        field_manager: &str,
    ) -> Result<Applied, Error> {
        let api: Api<Namespace> = Api::all(self.kube.clone());
        let object = crate::plan::namespace_ref(name);
        let ns = Namespace {
            metadata: ObjectMeta {
                name: Some(name.into()),
                labels: (!labels.is_empty()).then(|| labels.clone()),
                ..Default::default()
            },
            ..Default::default()
        };
        let params = PostParams {
            field_manager: Some(field_manager.into()),
            ..Default::default()
        };
        let mut result = api.create(&params, &ns).await;
        if let Err(e) = &result
            && crate::timeout::cut_mid_request(e)
        {
            // The server went away mid-create (a restart): the namespace may exist now or not.
            // A create is not retried below this (see `timeout`), but this one is safe to send
            // again: if the first made it, the second answers 409 and it counts as there.
            result = api.create(&params, &ns).await;
        }
        match result {
            Ok(created) => Ok(Applied {
                object,
                outcome: Outcome::Created,
                resource_version: created.metadata.resource_version.unwrap_or_default(),
            }),
            Err(kube::Error::Api(status)) if status.code == 409 => Ok(Applied {
                object,
                outcome: Outcome::Unchanged,
                resource_version: String::new(),
            }),
            Err(source) => Err(Error::Api {
                object: Box::new(object),
                action: "creating it",
                source,
            }),
        }
    }

    /// Sets `labels` on namespace `name` (a merge patch, as `kubectl label --overwrite`
    /// does: other labels stay, and an install's later apply of the namespace does not own
    /// them, so it does not take them away).
    pub async fn label_namespace(
        &self,
        name: &str,
        labels: &BTreeMap<String, String>,
        field_manager: &str,
    ) -> Result<(), Error> {
        self.merge_namespace_metadata(name, "labels", labels, field_manager, "labelling it")
            .await
    }

    /// Merges `values` into `metadata.<field>` (`labels` or `annotations`) of namespace `name`:
    /// a merge patch, so other keys stay and a later apply of the namespace does not own them.
    pub(crate) async fn merge_namespace_metadata(
        &self,
        name: &str,
        field: &str,
        values: &BTreeMap<String, String>,
        field_manager: &str,
        action: &'static str,
    ) -> Result<(), Error> {
        let api: Api<Namespace> = Api::all(self.kube.clone());
        let patch = serde_json::json!({ "metadata": { field: values } });
        let params = kube::api::PatchParams {
            field_manager: Some(field_manager.into()),
            ..Default::default()
        };
        api.patch(name, &params, &kube::api::Patch::Merge(&patch))
            .await
            .map(|_| ())
            .map_err(|source| Error::Api {
                object: Box::new(ObjectRef {
                    api_version: "v1".into(),
                    kind: "Namespace".into(),
                    namespace: None,
                    name: name.into(),
                }),
                action,
                source,
            })
    }

    /// Installs `components` in dependency order (see the module docs), telling `progress`
    /// what each component is doing. Namespaces and CRDs come first and stop the install at
    /// the first failure; after that, every component that can be installed is, and the error
    /// ([`Error::Install`]) lists each failed or skipped component. What was applied stays, and
    /// running the same install again converges.
    pub async fn install(
        &self,
        components: &[Component],
        options: &InstallOptions,
        progress: &(dyn Fn(usize, InstallEvent<'_>) + Sync),
    ) -> Result<InstallReport, Error> {
        let manager = options.field_manager.as_str();
        let dependencies = dependency_indices(components)?;
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
            let applied = self
                .apply_known(
                    &namespaces,
                    manager,
                    options.force,
                    &options.take_over_from,
                    None,
                )
                .await?;
            per_component[i]
                .objects
                .extend(applied.into_iter().map(|(applied, _)| applied));
        }
        let targets: BTreeSet<&str> = components
            .iter()
            .flat_map(|c| c.objects.iter())
            .filter_map(|o| o.pointer("/metadata/namespace").and_then(Value::as_str))
            .filter(|ns| !ns.is_empty() && !rendered.contains(ns))
            .collect();
        for ns in targets {
            let labels = options
                .created_namespace_labels
                .get(ns)
                .cloned()
                .unwrap_or_default();
            report
                .namespaces
                .objects
                .push(self.ensure_namespace_labelled(ns, &labels, manager).await?);
        }

        // 2. CustomResourceDefinitions, then wait until every one is served.
        // The apply's answer says which are served already (all of them, on a reinstall).
        // The watch for the others starts at the earliest of their resource versions.
        let mut crd_names = Vec::new();
        let mut earliest: Option<u64> = None;
        for (i, c) in components.iter().enumerate() {
            let crds: Vec<Value> = c.objects.iter().filter(|o| is_crd(o)).cloned().collect();
            let crds = self
                .apply_known(&crds, manager, options.force, &options.take_over_from, None)
                .await?;
            for (applied, live) in crds {
                if applied.outcome == Outcome::Created {
                    let field = |p: &str| live.data.pointer(p).and_then(Value::as_str);
                    if let (Some(group), Some(kind)) =
                        (field("/spec/group"), field("/spec/names/kind"))
                    {
                        report
                            .created_kinds
                            .insert((group.to_string(), kind.to_string()));
                    }
                }
                if !crate::wait::is_established(&live.data) {
                    crd_names.push(applied.object.name.clone());
                    if let Ok(rv) = applied.resource_version.parse::<u64>() {
                        earliest = Some(earliest.map_or(rv, |e| e.min(rv)));
                    }
                }
                per_component[i].objects.push(applied);
            }
        }
        // One before the earliest creation, so that its own events are seen too.
        let since = earliest.map(|rv| rv.saturating_sub(1).to_string());
        self.wait_crds_established(&crd_names, since.as_deref(), options.crd_timeout)
            .await?;
        // New kinds are served now: the next lookup of a kind not known yet asks again.
        if !report.created_kinds.is_empty() || !crd_names.is_empty() {
            self.invalidate_discovery().await;
        }
        if let Some(owner) = &options.owner_labels {
            let kinds = snapshot_kinds(components, &report.created_kinds);
            report.owned_before = Some(self.snapshot_owned(&kinds, owner).await?);
        }
        let snapshot = report.owned_before.as_ref();

        // 3. Everything else: each component once those it is installed after are done.
        let (senders, receivers): (Vec<watch::Sender<Done>>, Vec<watch::Receiver<Done>>) =
            components.iter().map(|_| watch::channel(None)).unzip();
        let tasks = components
            .iter()
            .zip(per_component)
            .enumerate()
            .map(|(i, (c, done))| {
                let waits_for: Vec<(usize, watch::Receiver<Done>)> = dependencies[i]
                    .iter()
                    .map(|&d| (d, receivers[d].clone()))
                    .collect();
                let sender = &senders[i];
                async move {
                    for (d, mut rx) in waits_for {
                        let ok = match rx.wait_for(Option::is_some).await {
                            Ok(state) => *state == Some(true),
                            Err(_) => false,
                        };
                        if !ok {
                            let because = components[d].display_name.as_str();
                            progress(i, InstallEvent::Skipped { because });
                            let _ = sender.send(Some(false));
                            return Err(Error::Skipped {
                                because: because.to_string(),
                            });
                        }
                    }
                    progress(i, InstallEvent::Applying);
                    let result = self
                        .install_component(c, done, options, snapshot, i, progress)
                        .await;
                    match &result {
                        Ok(report) => progress(i, InstallEvent::Installed(report)),
                        Err(e) => progress(i, InstallEvent::Failed(e)),
                    }
                    let _ = sender.send(Some(result.is_ok()));
                    result
                }
            });
        let results = futures::future::join_all(tasks).await;
        let mut failures = Vec::new();
        for (c, result) in components.iter().zip(results) {
            match result {
                Ok(done) => report.components.push(done),
                Err(e) => failures.push((c.display_name.clone(), e)),
            }
        }
        if failures.is_empty() {
            Ok(report)
        } else {
            Err(Error::Install { failures })
        }
    }

    /// Applies one component's objects other than Namespaces and CRDs (those are in `done`
    /// already), then waits for its workloads when the options say so.
    async fn install_component(
        &self,
        c: &Component,
        mut done: ApplyReport,
        options: &InstallOptions,
        snapshot: Option<&Snapshot>,
        index: usize,
        progress: &(dyn Fn(usize, InstallEvent<'_>) + Sync),
    ) -> Result<ComponentReport, Error> {
        let rest: Vec<Value> = c
            .objects
            .iter()
            .filter(|o| !is_namespace(o) && !is_crd(o))
            .cloned()
            .collect();
        done.objects.extend(
            self.apply_known(
                &rest,
                &options.field_manager,
                options.force,
                &options.take_over_from,
                snapshot,
            )
            .await?
            .into_iter()
            .map(|(applied, _)| applied),
        );
        if let Some(timeout) = options.readiness_timeout {
            let applied: Vec<ObjectRef> = done.objects.iter().map(|a| a.object.clone()).collect();
            let on_poll =
                |not_ready: &[NotReadyWorkload]| progress(index, InstallEvent::Waiting(not_ready));
            let load_balancers = options.wait_for_load_balancers;
            self.wait_ready_reporting(&c.display_name, &applied, timeout, load_balancers, &on_poll)
                .await?;
        }
        Ok(ComponentReport {
            display_name: c.display_name.clone(),
            report: done,
        })
    }
}

/// What the snapshot before applying lists: every kind the components apply (Namespaces and
/// CRDs aside, which are applied before it) and every kind a prune looks at, each once. Kinds
/// whose CRD the components render are read without a selector, those whose CRD this install
/// created not at all (see [`crate::snapshot`]).
fn snapshot_kinds(
    components: &[Component],
    created: &BTreeSet<(String, String)>,
) -> Vec<(String, String, String, Read)> {
    let field = |o: &Value, p: &str| {
        o.pointer(p)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let objects = || components.iter().flat_map(|c| c.objects.iter());
    let custom: BTreeSet<(String, String)> = objects()
        .filter(|o| is_crd(o))
        .map(|o| (field(o, "/spec/group"), field(o, "/spec/names/kind")))
        .collect();
    let applied = objects()
        .filter(|o| !is_namespace(o) && !is_crd(o))
        .filter_map(|o| {
            let api_version = o.get("apiVersion").and_then(Value::as_str)?;
            let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
            Some((
                group.to_string(),
                version.to_string(),
                kind_of(o).to_string(),
            ))
        });
    let pruned = crate::PRUNED_KINDS
        .iter()
        .filter(|k| !k.purge_only)
        .map(|k| {
            (
                k.group.to_string(),
                k.version.to_string(),
                k.kind.to_string(),
            )
        });
    let mut seen = BTreeSet::new();
    applied
        .chain(pruned)
        .filter(|(group, _, kind)| !kind.is_empty() && seen.insert((group.clone(), kind.clone())))
        .map(|(group, version, kind)| {
            let group_kind = (group.clone(), kind.clone());
            let read = if created.contains(&group_kind) {
                Read::Nothing
            } else if custom.contains(&group_kind) {
                Read::Unselected
            } else {
                Read::Selected
            };
            (group, version, kind, read)
        })
        .collect()
}

/// For each component, the earlier components it is installed after (by name).
fn dependency_indices(components: &[Component]) -> Result<Vec<Vec<usize>>, Error> {
    let mut out = Vec::with_capacity(components.len());
    for (i, c) in components.iter().enumerate() {
        if let Some(later) = components[i + 1..]
            .iter()
            .find(|l| c.after.contains(&l.name))
        {
            return Err(Error::InstallOrder {
                component: c.display_name.clone(),
                after: later.display_name.clone(),
            });
        }
        out.push(
            (0..i)
                .filter(|&d| c.after.contains(&components[d].name))
                .collect(),
        );
    }
    Ok(out)
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

    fn component(name: &str, after: &[&str]) -> Component {
        Component {
            name: name.into(),
            display_name: format!("the {name}"),
            after: after.iter().map(|s| s.to_string()).collect(),
            objects: Vec::new(),
        }
    }

    #[test]
    fn dependencies_are_earlier_components_by_name() {
        let components = [
            component("Base", &[]),
            component("Pilot", &["Base"]),
            component("Gateway", &["Pilot"]),
            component("Gateway", &["Pilot"]),
            component("Ztunnel", &["Cni"]),
        ];
        assert_eq!(
            dependency_indices(&components).unwrap(),
            [vec![], vec![0], vec![1], vec![1], vec![]]
        );
        let backwards = [component("Pilot", &["Base"]), component("Base", &[])];
        assert_eq!(
            dependency_indices(&backwards).unwrap_err().to_string(),
            "the Pilot is installed after the Base, which comes later in the list"
        );
    }
}
