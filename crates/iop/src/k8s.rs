//! A component's `k8s` block (istioctl's `KubernetesResources`), read once when the component's
//! instances are read ([`crate::component::Component::instances`]), after validation.
//!
//! Two kinds of setting, kept apart on purpose:
//! - the ones that only become strategic merge patches on the rendered objects (`affinity`,
//!   `env`, `tolerations`, …) stay the JSON the user wrote: the patch is that JSON, so keeping it
//!   whole is what keeps the render byte-identical to istioctl's (which marshals its Go field
//!   back into the patch);
//! - the ones bosun reads itself are decoded into types, as istioctl's Go decode would read them:
//!   the replica count, the autoscaler's bounds and the CPU quantities (copied into Helm values
//!   by [`crate::translate`]), a gateway's service ports (passed to its chart as values), and the
//!   overlays.
//!
//! Decoding is lenient: a value of the wrong type reads as unset, because validation
//! ([`crate::validate`]) has already named it with its file:line:column, and with `--force`
//! istioctl renders past it the same way.

use serde_json::{Map, Value};

use crate::quantity;

/// One component instance's `k8s` settings.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct K8sSettings {
    pub affinity: Option<Value>,
    pub env: Option<Value>,
    pub hpa_spec: Option<Value>,
    pub image_pull_policy: Option<Value>,
    pub node_selector: Option<Value>,
    pub pod_disruption_budget: Option<Value>,
    pub pod_annotations: Option<Value>,
    pub priority_class_name: Option<Value>,
    pub readiness_probe: Option<Value>,
    pub replica_count: Option<Value>,
    pub resources: Option<Value>,
    pub strategy: Option<Value>,
    pub tolerations: Option<Value>,
    pub service_annotations: Option<Value>,
    pub service: Option<Value>,
    pub security_context: Option<Value>,
    /// `replicaCount` as a whole number.
    pub replicas: Option<i64>,
    /// `hpaSpec.minReplicas` and `hpaSpec.maxReplicas`, each as a whole number.
    pub autoscale: AutoscaleBounds,
    /// The canonical CPU quantities of `resources.limits.cpu` and `resources.requests.cpu`.
    pub cpu: CpuQuantities,
    /// `service.ports`, as Kubernetes' `ServicePort` decodes them.
    pub service_ports: Vec<ServicePort>,
    /// `overlays`, in the order written.
    pub overlays: Vec<Overlay>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AutoscaleBounds {
    pub min: Option<i64>,
    pub max: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CpuQuantities {
    pub limits: Option<String>,
    pub requests: Option<String>,
}

/// A service port as Kubernetes' `ServicePort` holds it: unknown fields gone, unset strings
/// empty, unset numbers zero.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ServicePort {
    pub name: String,
    pub protocol: String,
    pub app_protocol: String,
    pub port: i64,
    pub target_port: IntOrString,
    pub node_port: i64,
}

/// Kubernetes' `IntOrString` (a `targetPort`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IntOrString {
    Int(i64),
    String(String),
}

impl Default for IntOrString {
    fn default() -> IntOrString {
        IntOrString::Int(0)
    }
}

/// One overlay: the objects it patches (by kind and name; istioctl ignores `apiVersion`) and
/// its patches in order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Overlay {
    pub kind: String,
    pub name: String,
    pub patches: Vec<OverlayPatch>,
}

/// One `{path, value}` overlay patch; a `None` (or JSON `null`) value deletes the node.
#[derive(Debug, Clone, PartialEq)]
pub struct OverlayPatch {
    pub path: String,
    pub value: Option<Value>,
}

impl K8sSettings {
    /// Reads a `k8s` block (a component's entry's `k8s` map).
    pub fn read(block: &Map<String, Value>) -> K8sSettings {
        let field = |name: &str| block.get(name).cloned();
        let replica_count = field("replicaCount");
        let hpa_spec = field("hpaSpec");
        let resources = field("resources");
        let service = field("service");
        let hpa = hpa_spec.as_ref().and_then(Value::as_object);
        let cpu = |side: &str| {
            resources
                .as_ref()
                .and_then(Value::as_object)
                .and_then(|r| r.get(side))
                .and_then(|s| s.get("cpu"))
                .and_then(quantity::canonical_from_json)
        };
        K8sSettings {
            replicas: replica_count.as_ref().and_then(whole_number),
            autoscale: AutoscaleBounds {
                min: hpa
                    .and_then(|h| h.get("minReplicas"))
                    .and_then(whole_number),
                max: hpa
                    .and_then(|h| h.get("maxReplicas"))
                    .and_then(whole_number),
            },
            cpu: CpuQuantities {
                limits: cpu("limits"),
                requests: cpu("requests"),
            },
            service_ports: service
                .as_ref()
                .and_then(|s| s.get("ports"))
                .and_then(Value::as_array)
                .map(|ports| ports.iter().map(ServicePort::read).collect())
                .unwrap_or_default(),
            overlays: block
                .get("overlays")
                .and_then(Value::as_array)
                .map(|list| list.iter().map(Overlay::read).collect())
                .unwrap_or_default(),
            affinity: field("affinity"),
            env: field("env"),
            hpa_spec,
            image_pull_policy: field("imagePullPolicy"),
            node_selector: field("nodeSelector"),
            pod_disruption_budget: field("podDisruptionBudget"),
            pod_annotations: field("podAnnotations"),
            priority_class_name: field("priorityClassName"),
            readiness_probe: field("readinessProbe"),
            replica_count,
            resources,
            strategy: field("strategy"),
            tolerations: field("tolerations"),
            service_annotations: field("serviceAnnotations"),
            service,
            security_context: field("securityContext"),
        }
    }
}

impl ServicePort {
    fn read(port: &Value) -> ServicePort {
        let empty = Map::new();
        let p = port.as_object().unwrap_or(&empty);
        let text = |key: &str| {
            p.get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let number = |key: &str| p.get(key).and_then(whole_number).unwrap_or(0);
        ServicePort {
            name: text("name"),
            protocol: text("protocol"),
            app_protocol: text("appProtocol"),
            port: number("port"),
            target_port: match p.get("targetPort") {
                Some(Value::String(s)) => IntOrString::String(s.clone()),
                Some(v) => IntOrString::Int(whole_number(v).unwrap_or(0)),
                None => IntOrString::Int(0),
            },
            node_port: number("nodePort"),
        }
    }
}

impl Overlay {
    fn read(overlay: &Value) -> Overlay {
        let text = |key: &str| {
            overlay
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        Overlay {
            kind: text("kind"),
            name: text("name"),
            patches: overlay
                .get("patches")
                .and_then(Value::as_array)
                .map(|list| list.iter().map(OverlayPatch::read).collect())
                .unwrap_or_default(),
        }
    }
}

impl OverlayPatch {
    /// As istioctl decodes it: a missing or null `value` deletes.
    fn read(patch: &Value) -> OverlayPatch {
        OverlayPatch {
            path: patch
                .get("path")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            value: patch.get("value").filter(|v| !v.is_null()).cloned(),
        }
    }
}

/// A JSON number that is a whole number (as Go's decode into an integer field accepts it).
pub fn whole_number(v: &Value) -> Option<i64> {
    v.as_i64().or_else(|| {
        v.as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
            .map(|f| f as i64)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(block: Value) -> K8sSettings {
        K8sSettings::read(block.as_object().unwrap())
    }

    #[test]
    fn the_settings_bosun_reads_are_decoded_and_the_rest_kept_as_written() {
        let k = read(json!({
            "replicaCount": 3.0,
            "hpaSpec": {"minReplicas": 2, "maxReplicas": 5},
            "resources": {"requests": {"cpu": "0.5"}, "limits": {"cpu": 2}},
            "service": {"ports": [
                {"name": "http", "port": 80, "targetPort": "http", "extra": true},
                {"port": 443.0, "targetPort": 8443, "nodePort": 30443}
            ]},
            "overlays": [{"apiVersion": "v1", "kind": "Service", "name": "gw",
                          "patches": [{"path": "spec.x", "value": 1}, {"path": "spec.y", "value": null}]}],
            "tolerations": [{"operator": "Exists"}],
            "env": null
        }));
        assert_eq!(k.replicas, Some(3));
        assert_eq!(
            k.autoscale,
            AutoscaleBounds {
                min: Some(2),
                max: Some(5)
            }
        );
        assert_eq!(k.cpu.requests.as_deref(), Some("500m"));
        assert_eq!(k.cpu.limits.as_deref(), Some("2"));
        assert_eq!(k.service_ports.len(), 2);
        assert_eq!(k.service_ports[0].name, "http");
        assert_eq!(
            k.service_ports[0].target_port,
            IntOrString::String("http".into())
        );
        assert_eq!(k.service_ports[1].port, 443);
        assert_eq!(k.service_ports[1].target_port, IntOrString::Int(8443));
        assert_eq!(k.service_ports[1].node_port, 30443);
        assert_eq!(k.overlays[0].kind, "Service");
        assert_eq!(k.overlays[0].patches[0].value, Some(json!(1)));
        assert_eq!(k.overlays[0].patches[1].value, None);
        // Patched fields keep what was written, a null included (it patches to null).
        assert_eq!(k.tolerations, Some(json!([{"operator": "Exists"}])));
        assert_eq!(k.env, Some(Value::Null));
        assert_eq!(k.affinity, None);
    }

    #[test]
    fn values_of_the_wrong_type_read_as_unset() {
        let k = read(json!({
            "replicaCount": "three",
            "hpaSpec": "big",
            "resources": {"requests": {"cpu": "lots"}},
            "service": {"ports": "80"},
            "overlays": {"kind": "Service"}
        }));
        assert_eq!(k.replicas, None);
        assert_eq!(k.autoscale, AutoscaleBounds::default());
        assert_eq!(k.cpu, CpuQuantities::default());
        assert!(k.service_ports.is_empty());
        assert!(k.overlays.is_empty());
        assert_eq!(k.replica_count, Some(json!("three")));
    }
}
