//! Workload readiness: which rendered objects are workloads, when each is ready (a pure
//! function of its live JSON, [`readiness`]), and [`Client::wait_ready`], which polls them.
//!
//! The rules, decided on purpose (istioctl's, with the reason spelled out):
//! - Deployment: `status.observedGeneration >= metadata.generation`, and `updatedReplicas`,
//!   `readyReplicas` and `availableReplicas` each at least `spec.replicas` (default 1). Old pods
//!   still terminating are not waited for: istioctl waits only for its newest ReplicaSet's
//!   ready replicas, and so the installed version serves once this holds (`kubectl rollout
//!   status` also waits for `status.replicas` to come down to `updatedReplicas`).
//! - StatefulSet: observed generation current, `updatedReplicas` and `readyReplicas` (and
//!   `availableReplicas` when the server reports it) at least `spec.replicas` (default 1).
//! - DaemonSet: observed generation current, `desiredNumberScheduled > 0`, and `numberReady`
//!   and `updatedNumberScheduled` equal to it. A DaemonSet that no node is scheduled for is
//!   *not* ready, as istioctl decides: a mesh component that runs nowhere (a node selector or
//!   taint matching no node) is a broken install, not a finished one.
//! - Job: condition `Complete=True`. `Failed=True` is reported with its reason.
//! - MutatingWebhookConfiguration, ValidatingWebhookConfiguration: every Service its webhooks
//!   call has a ready endpoint (an EndpointSlice labelled with the Service's name, holding an
//!   endpoint whose `ready` condition is not false): until then the API server cannot reach
//!   the webhook, and what the next component creates would be refused or not injected.
//!   Webhooks called by URL are ready.
//! - Service of type LoadBalancer, only when asked ([`Client::wait_ready_reporting`]'s
//!   `load_balancers`): `status.loadBalancer.ingress` has an address. Off by default, as in
//!   istioctl: a cluster without a load-balancer controller never gives one.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use kube::api::{Api, DynamicObject};
use kube::core::{ApiResource, GroupVersionKind};
use serde_json::Value;
use vocab::ObjectRef;

use crate::{Client, Error};

/// A workload that is not ready, and why (as [`Readiness::NotReady`] says).
pub type NotReadyWorkload = (ObjectRef, String);

/// What [`readiness`] decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Readiness {
    Ready,
    /// Not ready, and why, as a person reads it (`0/1 replicas ready (…)`).
    NotReady(String),
}

/// The workload kinds readiness waits for, with their resource plurals.
fn workload_plural(api_version: &str, kind: &str) -> Option<&'static str> {
    match (api_version, kind) {
        ("apps/v1", "Deployment") => Some("deployments"),
        ("apps/v1", "DaemonSet") => Some("daemonsets"),
        ("apps/v1", "StatefulSet") => Some("statefulsets"),
        ("batch/v1", "Job") => Some("jobs"),
        _ => None,
    }
}

/// Whether readiness waits for objects of this kind.
pub fn is_workload(object: &ObjectRef) -> bool {
    workload_plural(&object.api_version, &object.kind).is_some()
}

/// The plural of a webhook configuration kind.
fn webhook_plural(object: &ObjectRef) -> Option<&'static str> {
    match (object.api_version.as_str(), object.kind.as_str()) {
        ("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration") => {
            Some("mutatingwebhookconfigurations")
        }
        ("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration") => {
            Some("validatingwebhookconfigurations")
        }
        _ => None,
    }
}

/// The Services (namespace, name) the webhooks of configuration `obj` call, each once.
pub(crate) fn webhook_services(obj: &Value) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for webhook in obj
        .get("webhooks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(service) = webhook.pointer("/clientConfig/service") else {
            continue;
        };
        let field = |k: &str| {
            service
                .get(k)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let called = (field("namespace"), field("name"));
        if !called.1.is_empty() && !out.contains(&called) {
            out.push(called);
        }
    }
    out
}

/// Whether any of a Service's EndpointSlices `slices` holds an endpoint that is ready (a
/// missing `ready` condition counts as ready, as the API says consumers should read it).
pub(crate) fn has_ready_endpoint(slices: &[Value]) -> bool {
    slices.iter().any(|slice| {
        slice
            .get("endpoints")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|e| e.pointer("/conditions/ready").and_then(Value::as_bool) != Some(false))
    })
}

fn is_service(object: &ObjectRef) -> bool {
    object.api_version == "v1" && object.kind == "Service"
}

/// Whether the live Service `obj` has the address its load balancer gives, if it is of type
/// LoadBalancer (`None` for any other object).
pub(crate) fn load_balancer_readiness(obj: &Value) -> Option<Readiness> {
    let is_lb = obj.get("kind").and_then(Value::as_str) == Some("Service")
        && obj.pointer("/spec/type").and_then(Value::as_str) == Some("LoadBalancer");
    if !is_lb {
        return None;
    }
    let addressed = obj
        .pointer("/status/loadBalancer/ingress")
        .and_then(Value::as_array)
        .is_some_and(|ingress| {
            ingress.iter().any(|i| {
                ["ip", "hostname"].iter().any(|k| {
                    i.get(k)
                        .and_then(Value::as_str)
                        .is_some_and(|v| !v.is_empty())
                })
            })
        });
    Some(if addressed {
        Readiness::Ready
    } else {
        Readiness::NotReady(
            "no load balancer address yet (status.loadBalancer.ingress is empty)".to_string(),
        )
    })
}

fn int(obj: &Value, pointer: &str) -> Option<i64> {
    obj.pointer(pointer).and_then(Value::as_i64)
}

/// `observedGeneration X < generation Y` when the controller has not seen the latest spec.
fn generation_lag(obj: &Value) -> Option<String> {
    let generation = int(obj, "/metadata/generation").unwrap_or(0);
    let observed = int(obj, "/status/observedGeneration").unwrap_or(0);
    (observed < generation)
        .then(|| format!("observedGeneration {observed} < generation {generation}"))
}

/// The conditions with `status` among `types`, as `Type: Reason: message`.
fn conditions(obj: &Value, wanted: &[(&str, &str)]) -> Vec<String> {
    obj.pointer("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|c| {
            let t = c.get("type").and_then(Value::as_str).unwrap_or("");
            let s = c.get("status").and_then(Value::as_str).unwrap_or("");
            wanted.iter().any(|(wt, ws)| *wt == t && *ws == s)
        })
        .map(|c| {
            let field = |n: &str| c.get(n).and_then(Value::as_str).unwrap_or("");
            let mut text = format!("{}={}", field("type"), field("status"));
            for part in [field("reason"), field("message")] {
                if !part.is_empty() {
                    text.push_str(": ");
                    text.push_str(part);
                }
            }
            text
        })
        .collect()
}

fn verdict(headline: String, mut reasons: Vec<String>, extra: Vec<String>) -> Readiness {
    if reasons.is_empty() {
        return Readiness::Ready;
    }
    reasons.retain(|r| !r.is_empty());
    reasons.extend(extra);
    if reasons.is_empty() {
        Readiness::NotReady(headline)
    } else {
        Readiness::NotReady(format!("{headline} ({})", reasons.join(", ")))
    }
}

fn replicated(obj: &Value, counts: &[&str], extra: Vec<String>) -> Readiness {
    let want = int(obj, "/spec/replicas").unwrap_or(1);
    let ready = int(obj, "/status/readyReplicas").unwrap_or(0);
    let mut reasons: Vec<String> = generation_lag(obj).into_iter().collect();
    let mut short = ready < want;
    for field in counts {
        let have = int(obj, &format!("/status/{field}")).unwrap_or(0);
        if have < want {
            short = true;
            let word = field.trim_end_matches("Replicas");
            reasons.push(format!("{have}/{want} {word}"));
        }
    }
    if short && reasons.is_empty() {
        // Only readyReplicas is short: the headline says it all.
        reasons.push(String::new());
    }
    verdict(format!("{ready}/{want} replicas ready"), reasons, extra)
}

/// Whether the live object `obj` (a workload, as the API server returns it) is ready, and if
/// not, why. `None` for kinds readiness does not wait for.
pub fn readiness(obj: &Value) -> Option<Readiness> {
    let api_version = obj.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = obj.get("kind").and_then(Value::as_str).unwrap_or("");
    workload_plural(api_version, kind)?;
    Some(match kind {
        "Deployment" => replicated(
            obj,
            &["updatedReplicas", "availableReplicas"],
            conditions(obj, &[("Progressing", "False"), ("ReplicaFailure", "True")]),
        ),
        "StatefulSet" => {
            let mut counts = vec!["updatedReplicas"];
            if obj.pointer("/status/availableReplicas").is_some() {
                counts.push("availableReplicas");
            }
            replicated(obj, &counts, Vec::new())
        }
        "DaemonSet" => {
            let desired = int(obj, "/status/desiredNumberScheduled").unwrap_or(0);
            let ready = int(obj, "/status/numberReady").unwrap_or(0);
            let updated = int(obj, "/status/updatedNumberScheduled").unwrap_or(0);
            let mut reasons: Vec<String> = generation_lag(obj).into_iter().collect();
            if desired <= 0 {
                reasons.push(
                    "no node is scheduled to run it (desiredNumberScheduled 0): check its node selector, affinity and tolerations"
                        .to_string(),
                );
            } else {
                if ready != desired {
                    reasons.push(String::new());
                }
                if updated != desired {
                    reasons.push(format!("{updated}/{desired} updated"));
                }
            }
            verdict(format!("{ready}/{desired} pods ready"), reasons, Vec::new())
        }
        _ => {
            // Job
            let complete = !conditions(obj, &[("Complete", "True")]).is_empty();
            if complete {
                Readiness::Ready
            } else {
                let failed = conditions(obj, &[("Failed", "True")]);
                let succeeded = int(obj, "/status/succeeded").unwrap_or(0);
                let completions = int(obj, "/spec/completions").unwrap_or(1);
                let active = int(obj, "/status/active").unwrap_or(0);
                let failures = int(obj, "/status/failed").unwrap_or(0);
                let headline = if failed.is_empty() {
                    format!(
                        "not complete ({succeeded}/{completions} succeeded, {active} active, {failures} failed)"
                    )
                } else {
                    format!("failed ({})", failed.join(", "))
                };
                Readiness::NotReady(headline)
            }
        }
    })
}

/// How long a workload is waited for before its pods and events are read to say why it is
/// not ready, and how often they are read again after that.
const EVIDENCE_AFTER: Duration = Duration::from_secs(2);
const EVIDENCE_EVERY: Duration = Duration::from_secs(4);

/// The poll interval after `polls` polls: 200ms, doubling, at most 2s.
fn interval(polls: u32) -> Duration {
    Duration::from_millis(200u64.saturating_mul(1 << polls.min(4))).min(Duration::from_secs(2))
}

impl Client {
    /// Whether the workload `object` is ready now (one GET; a missing object is not ready).
    /// Kinds readiness does not judge (see [`is_workload`]) are ready.
    pub async fn readiness_of(&self, object: &ObjectRef) -> Result<Readiness, Error> {
        Ok(self
            .readiness_and_live(object, &mut HashMap::new())
            .await?
            .0)
    }

    /// [`Client::readiness_of`], and the object's live JSON (when it exists). `endpoints`
    /// remembers, within one poll, which Services have a ready endpoint (an injector and a
    /// validator call the same istiod).
    async fn readiness_and_live(
        &self,
        object: &ObjectRef,
        endpoints: &mut HashMap<(String, String), bool>,
    ) -> Result<(Readiness, Option<Value>), Error> {
        if let Some(plural) = webhook_plural(object) {
            return self.webhook_readiness(object, plural, endpoints).await;
        }
        let plural = if is_service(object) {
            "services"
        } else {
            workload_plural(&object.api_version, &object.kind).unwrap_or("")
        };
        let (group, version) = object
            .api_version
            .split_once('/')
            .unwrap_or(("", &object.api_version));
        let ar = ApiResource::from_gvk_with_plural(
            &GroupVersionKind::gvk(group, version, &object.kind),
            plural,
        );
        let ns = object
            .namespace
            .clone()
            .unwrap_or_else(|| self.default_namespace().to_string());
        let api: Api<DynamicObject> = Api::namespaced_with(self.kube.clone(), &ns, &ar);
        let live = api
            .get_opt(&object.name)
            .await
            .map_err(|source| Error::Api {
                object: Box::new(object.clone()),
                action: "reading it while waiting until ready",
                source,
            })?;
        let Some(live) = live else {
            return Ok((Readiness::NotReady("it does not exist".to_string()), None));
        };
        let mut json = serde_json::to_value(&live).unwrap_or(Value::Null);
        if let Some(map) = json.as_object_mut() {
            map.insert("apiVersion".into(), object.api_version.clone().into());
            map.insert("kind".into(), object.kind.clone().into());
        }
        let state = readiness(&json)
            .or_else(|| load_balancer_readiness(&json))
            .unwrap_or(Readiness::Ready);
        Ok((state, Some(json)))
    }

    /// Whether the Services the webhook configuration `object` calls have ready endpoints:
    /// one GET, and one EndpointSlice list per Service.
    async fn webhook_readiness(
        &self,
        object: &ObjectRef,
        plural: &str,
        endpoints: &mut HashMap<(String, String), bool>,
    ) -> Result<(Readiness, Option<Value>), Error> {
        let gvk = GroupVersionKind::gvk("admissionregistration.k8s.io", "v1", &object.kind);
        let ar = ApiResource::from_gvk_with_plural(&gvk, plural);
        let api: Api<DynamicObject> = Api::all_with(self.kube.clone(), &ar);
        let read_error = |source| Error::Api {
            object: Box::new(object.clone()),
            action: "reading it while waiting until ready",
            source,
        };
        let Some(live) = api.get_opt(&object.name).await.map_err(read_error)? else {
            return Ok((Readiness::NotReady("it does not exist".to_string()), None));
        };
        let json = serde_json::to_value(&live).unwrap_or(Value::Null);
        for (ns, name) in webhook_services(&json) {
            let ready = match endpoints.get(&(ns.clone(), name.clone())) {
                Some(ready) => *ready,
                None => {
                    let slices: Api<k8s_openapi::api::discovery::v1::EndpointSlice> =
                        Api::namespaced(self.kube.clone(), &ns);
                    let params = kube::api::ListParams::default()
                        .labels(&format!("kubernetes.io/service-name={name}"));
                    let listed = slices.list(&params).await.map_err(read_error)?;
                    let listed: Vec<Value> = listed
                        .items
                        .iter()
                        .filter_map(|s| serde_json::to_value(s).ok())
                        .collect();
                    let ready = has_ready_endpoint(&listed);
                    endpoints.insert((ns.clone(), name.clone()), ready);
                    ready
                }
            };
            if !ready {
                let why =
                    format!("no ready endpoint for Service {ns}/{name}, which its webhooks call");
                return Ok((Readiness::NotReady(why), Some(json)));
            }
        }
        Ok((Readiness::Ready, Some(json)))
    }

    /// Waits until every workload among `objects` (see [`is_workload`]; other kinds are
    /// skipped) is ready, polling every 200ms growing to 2s. On timeout the error names each
    /// workload still not ready and why. `what` names the objects' owner in that message.
    pub async fn wait_ready(
        &self,
        what: &str,
        objects: &[ObjectRef],
        timeout: Duration,
    ) -> Result<(), Error> {
        self.wait_ready_reporting(what, objects, timeout, false, &|_| {})
            .await
    }

    /// [`Client::wait_ready`], telling `on_poll` after each poll that finds workloads not
    /// ready which ones and why (what a progress display shows while it waits). With
    /// `load_balancers`, Services of type LoadBalancer are waited for too (see the module docs).
    pub async fn wait_ready_reporting(
        &self,
        what: &str,
        objects: &[ObjectRef],
        timeout: Duration,
        load_balancers: bool,
        on_poll: &(dyn Fn(&[NotReadyWorkload]) + Sync),
    ) -> Result<(), Error> {
        let mut pending: Vec<ObjectRef> = objects
            .iter()
            .filter(|o| {
                is_workload(o) || webhook_plural(o).is_some() || (load_balancers && is_service(o))
            })
            .cloned()
            .collect();
        if !pending.is_empty() {
            // A wait: it adds its own time to the command's deadline.
            self.extend_deadline(timeout);
        }
        let start = Instant::now();
        let mut polls = 0;
        // What the pods and events said, and when it was read, per workload.
        let mut evidence: HashMap<ObjectRef, (Instant, Option<String>)> = HashMap::new();
        // What a webhook configuration was last found waiting for.
        let mut webhook_state: HashMap<ObjectRef, String> = HashMap::new();
        loop {
            let mut not_ready = Vec::new();
            let out_of_time = start.elapsed() >= timeout;
            let mut endpoints = HashMap::new();
            // Workloads first: the Services that webhooks call get ready endpoints only once
            // the pods behind them are ready, so webhook configurations are read (a GET, and
            // an EndpointSlice list per Service) only when no workload is left waiting, or
            // when giving up.
            let (webhooks, workloads): (Vec<ObjectRef>, Vec<ObjectRef>) = pending
                .into_iter()
                .partition(|o| webhook_plural(o).is_some());
            let mut waiting_workloads = false;
            for object in workloads.into_iter().chain(webhooks) {
                if webhook_plural(&object).is_some() && waiting_workloads && !out_of_time {
                    let why = webhook_state.get(&object).cloned().unwrap_or_else(|| {
                        "not read yet: waits until the workloads are ready".to_string()
                    });
                    not_ready.push((object, why));
                    continue;
                }
                let (state, live) = self.readiness_and_live(&object, &mut endpoints).await?;
                let Readiness::NotReady(mut why) = state else {
                    continue;
                };
                if webhook_plural(&object).is_some() {
                    webhook_state.insert(object.clone(), why.clone());
                } else {
                    waiting_workloads = true;
                }
                // Past the first seconds, and when giving up, say what the pods and events say
                // (two more requests, so not on every poll).
                let stale = evidence
                    .get(&object)
                    .is_none_or(|(read, _)| read.elapsed() >= EVIDENCE_EVERY);
                if let Some(live) = &live
                    && (out_of_time || (start.elapsed() >= EVIDENCE_AFTER && stale))
                {
                    let found = self.workload_evidence(&object, live).await;
                    evidence.insert(object.clone(), (Instant::now(), found));
                }
                if let Some((_, Some(found))) = evidence.get(&object) {
                    why.push_str(": ");
                    why.push_str(found);
                }
                not_ready.push((object, why));
            }
            if not_ready.is_empty() {
                return Ok(());
            }
            on_poll(&not_ready);
            if out_of_time {
                return Err(Error::NotReady {
                    what: what.to_string(),
                    waited: start.elapsed(),
                    objects: not_ready,
                });
            }
            pending = not_ready.into_iter().map(|(o, _)| o).collect();
            let left = timeout.saturating_sub(start.elapsed());
            tokio::time::sleep(interval(polls).min(left)).await;
            polls += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn webhooks_are_ready_when_the_services_they_call_have_ready_endpoints() {
        let config = json!({"webhooks": [
            {"name": "a", "clientConfig": {"service": {"namespace": "istio-system", "name": "istiod"}}},
            {"name": "b", "clientConfig": {"service": {"namespace": "istio-system", "name": "istiod"}}},
            {"name": "c", "clientConfig": {"url": "https://example.com/hook"}},
            {"name": "d", "clientConfig": {"service": {"namespace": "other", "name": "hook"}}}]});
        assert_eq!(
            webhook_services(&config),
            [
                ("istio-system".to_string(), "istiod".to_string()),
                ("other".to_string(), "hook".to_string())
            ]
        );
        let slice = |endpoints: Value| json!({"endpoints": endpoints});
        assert!(!has_ready_endpoint(&[]));
        assert!(!has_ready_endpoint(&[slice(json!(null))]));
        assert!(!has_ready_endpoint(&[slice(
            json!([{"conditions": {"ready": false}}])
        )]));
        assert!(has_ready_endpoint(&[slice(json!([{"conditions": {}}]))]));
        assert!(has_ready_endpoint(&[
            slice(json!([{"conditions": {"ready": false}}])),
            slice(json!([{"conditions": {"ready": true}}]))
        ]));
    }

    #[test]
    fn load_balancers_are_ready_with_an_address() {
        let svc = |kind: &str, status: Value| {
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "gw"},
                   "spec": {"type": kind}, "status": status})
        };
        assert_eq!(load_balancer_readiness(&svc("ClusterIP", json!({}))), None);
        assert_eq!(
            load_balancer_readiness(&svc("LoadBalancer", json!({"loadBalancer": {}}))),
            Some(Readiness::NotReady(
                "no load balancer address yet (status.loadBalancer.ingress is empty)".into()
            ))
        );
        for address in [json!({"ip": "10.1.2.3"}), json!({"hostname": "lb.example"})] {
            let status = json!({"loadBalancer": {"ingress": [address]}});
            assert_eq!(
                load_balancer_readiness(&svc("LoadBalancer", status)),
                Some(Readiness::Ready)
            );
        }
        // Workload readiness does not judge Services (verify-install's readiness column).
        assert_eq!(readiness(&svc("LoadBalancer", json!({}))), None);
    }

    fn deployment(generation: i64, spec: Value, status: Value) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": "istiod", "generation": generation},
               "spec": spec, "status": status})
    }

    fn daemonset(status: Value) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
               "metadata": {"name": "cni", "generation": 1}, "status": status})
    }

    fn statefulset(status: Value) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
               "metadata": {"name": "s", "generation": 2}, "spec": {"replicas": 2}, "status": status})
    }

    fn job(status: Value) -> Value {
        json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "generation": 1}, "status": status})
    }

    fn not(why: &str) -> Option<Readiness> {
        Some(Readiness::NotReady(why.to_string()))
    }

    #[test]
    fn readiness_table() {
        let ready = Some(Readiness::Ready);
        let full = json!({"observedGeneration": 1, "replicas": 1, "readyReplicas": 1, "updatedReplicas": 1, "availableReplicas": 1});
        let cases: Vec<(&str, Value, Option<Readiness>)> = vec![
            (
                "deployment fresh, no status",
                deployment(1, json!({}), json!({})),
                not(
                    "0/1 replicas ready (observedGeneration 0 < generation 1, 0/1 updated, 0/1 available)",
                ),
            ),
            (
                "deployment ready, replicas defaulted to 1",
                deployment(1, json!({}), full.clone()),
                ready.clone(),
            ),
            (
                "deployment ready",
                deployment(1, json!({"replicas": 1}), full.clone()),
                ready.clone(),
            ),
            (
                "deployment spec changed, not yet observed",
                deployment(2, json!({"replicas": 1}), full.clone()),
                not("1/1 replicas ready (observedGeneration 1 < generation 2)"),
            ),
            (
                "deployment scaled up",
                deployment(1, json!({"replicas": 3}), full.clone()),
                not("1/3 replicas ready (1/3 updated, 1/3 available)"),
            ),
            (
                "deployment ready but not available",
                deployment(
                    1,
                    json!({}),
                    json!({"observedGeneration": 1, "readyReplicas": 1, "updatedReplicas": 1, "availableReplicas": 0}),
                ),
                not("1/1 replicas ready (0/1 available)"),
            ),
            (
                "deployment only readyReplicas short",
                deployment(
                    1,
                    json!({}),
                    json!({"observedGeneration": 1, "readyReplicas": 0, "updatedReplicas": 1, "availableReplicas": 1}),
                ),
                not("0/1 replicas ready"),
            ),
            (
                "deployment scaled to zero",
                deployment(1, json!({"replicas": 0}), json!({"observedGeneration": 1})),
                ready.clone(),
            ),
            (
                "deployment progress deadline exceeded",
                deployment(
                    1,
                    json!({}),
                    json!({"observedGeneration": 1, "conditions": [
                 {"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded", "message": "too slow"}]}),
                ),
                not(
                    "0/1 replicas ready (0/1 updated, 0/1 available, Progressing=False: ProgressDeadlineExceeded: too slow)",
                ),
            ),
            (
                "daemonset ready",
                daemonset(
                    json!({"observedGeneration": 1, "desiredNumberScheduled": 2, "numberReady": 2, "updatedNumberScheduled": 2}),
                ),
                ready.clone(),
            ),
            (
                "daemonset desired 0 is not ready",
                daemonset(
                    json!({"observedGeneration": 1, "desiredNumberScheduled": 0, "numberReady": 0, "updatedNumberScheduled": 0}),
                ),
                not(
                    "0/0 pods ready (no node is scheduled to run it (desiredNumberScheduled 0): check its node selector, affinity and tolerations)",
                ),
            ),
            (
                "daemonset partly ready",
                daemonset(
                    json!({"observedGeneration": 1, "desiredNumberScheduled": 3, "numberReady": 2, "updatedNumberScheduled": 3}),
                ),
                not("2/3 pods ready"),
            ),
            (
                "daemonset rolling",
                daemonset(
                    json!({"observedGeneration": 1, "desiredNumberScheduled": 3, "numberReady": 3, "updatedNumberScheduled": 1}),
                ),
                not("3/3 pods ready (1/3 updated)"),
            ),
            (
                "daemonset not observed",
                daemonset(
                    json!({"observedGeneration": 0, "desiredNumberScheduled": 1, "numberReady": 1, "updatedNumberScheduled": 1}),
                ),
                not("1/1 pods ready (observedGeneration 0 < generation 1)"),
            ),
            (
                "statefulset ready",
                statefulset(
                    json!({"observedGeneration": 2, "readyReplicas": 2, "updatedReplicas": 2}),
                ),
                ready.clone(),
            ),
            (
                "statefulset with availableReplicas short",
                statefulset(
                    json!({"observedGeneration": 2, "readyReplicas": 2, "updatedReplicas": 2, "availableReplicas": 1}),
                ),
                not("2/2 replicas ready (1/2 available)"),
            ),
            (
                "statefulset not updated",
                statefulset(
                    json!({"observedGeneration": 2, "readyReplicas": 1, "updatedReplicas": 0}),
                ),
                not("1/2 replicas ready (0/2 updated)"),
            ),
            (
                "job complete",
                job(
                    json!({"succeeded": 1, "conditions": [{"type": "Complete", "status": "True"}]}),
                ),
                ready.clone(),
            ),
            (
                "job running",
                job(json!({"active": 1})),
                not("not complete (0/1 succeeded, 1 active, 0 failed)"),
            ),
            (
                "job failed",
                job(
                    json!({"failed": 6, "conditions": [{"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded", "message": "Job has reached the specified backoff limit"}]}),
                ),
                not(
                    "failed (Failed=True: BackoffLimitExceeded: Job has reached the specified backoff limit)",
                ),
            ),
            (
                "other kinds are not waited for",
                json!({"apiVersion": "v1", "kind": "Service"}),
                None,
            ),
            (
                "deployment of another group",
                json!({"apiVersion": "example.io/v1", "kind": "Deployment"}),
                None,
            ),
        ];
        for (name, obj, want) in cases {
            assert_eq!(readiness(&obj), want, "{name}");
        }
    }

    #[test]
    fn interval_grows_to_two_seconds() {
        let ms: Vec<u128> = (0..7).map(|p| interval(p).as_millis()).collect();
        assert_eq!(ms, [200, 400, 800, 1600, 2000, 2000, 2000]);
    }
}
