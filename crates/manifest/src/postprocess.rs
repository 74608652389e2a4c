//! istioctl's post-processing of a component's rendered objects (`render/postprocess.go`):
//! each `k8s` setting becomes a strategic merge patch on the component's workload, service,
//! autoscaler or disruption budget; then `overlays` patch objects by kind and name.

use iop::component::{Component, ComponentSpec};
use iop::k8s::K8sSettings;
use serde_json::{Value, json};

use crate::object::Object;
use crate::smp::ObjectKind;

/// Why post-processing failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PostProcessError {
    /// A `k8s` setting's strategic merge patch failed (printed as istioctl's Go code words it).
    #[error("patch: {}", .0.go_message())]
    Patch(#[source] crate::smp::SmpError),
    #[error("{}", .0.go_message())]
    Overlay(#[source] crate::overlay::OverlayError),
    #[error("{0}")]
    Object(#[from] crate::object::ObjectError),
}

/// Where a `k8s` field lands: the object it patches and the patch that wraps its value.
struct PatchTarget {
    /// The setting's name in the `k8s` block.
    field: &'static str,
    setting: fn(&K8sSettings) -> Option<&Value>,
    kind: Option<&'static str>,
    wrap: fn(&str, Value) -> Value,
}

fn pod_spec(key: &str, v: Value) -> Value {
    json!({"spec": {"template": {"spec": {key: v}}}})
}

fn container(container: &str, key: &str, v: Value) -> Value {
    json!({"spec": {"template": {"spec": {"containers": [{"name": container, key: v}]}}}})
}

/// The patch table; `None` kind means the component's workload kind.
const TARGETS: &[PatchTarget] = &[
    PatchTarget {
        field: "affinity",
        setting: |k| k.affinity.as_ref(),
        kind: None,
        wrap: |_, v| pod_spec("affinity", v),
    },
    PatchTarget {
        field: "env",
        setting: |k| k.env.as_ref(),
        kind: None,
        wrap: |c, v| container(c, "env", v),
    },
    PatchTarget {
        field: "hpaSpec",
        setting: |k| k.hpa_spec.as_ref(),
        kind: Some("HorizontalPodAutoscaler"),
        wrap: |_, v| json!({"spec": v}),
    },
    PatchTarget {
        field: "imagePullPolicy",
        setting: |k| k.image_pull_policy.as_ref(),
        kind: None,
        wrap: |c, v| container(c, "imagePullPolicy", v),
    },
    PatchTarget {
        field: "nodeSelector",
        setting: |k| k.node_selector.as_ref(),
        kind: None,
        wrap: |_, v| pod_spec("nodeSelector", v),
    },
    PatchTarget {
        field: "podDisruptionBudget",
        setting: |k| k.pod_disruption_budget.as_ref(),
        kind: Some("PodDisruptionBudget"),
        wrap: |_, v| json!({"spec": v}),
    },
    PatchTarget {
        field: "podAnnotations",
        setting: |k| k.pod_annotations.as_ref(),
        kind: None,
        wrap: |_, v| json!({"spec": {"template": {"metadata": {"annotations": v}}}}),
    },
    PatchTarget {
        field: "priorityClassName",
        setting: |k| k.priority_class_name.as_ref(),
        kind: None,
        wrap: |_, v| pod_spec("priorityClassName", v),
    },
    PatchTarget {
        field: "readinessProbe",
        setting: |k| k.readiness_probe.as_ref(),
        kind: None,
        wrap: |c, v| container(c, "readinessProbe", v),
    },
    PatchTarget {
        field: "replicaCount",
        setting: |k| k.replica_count.as_ref(),
        kind: None,
        wrap: |_, v| json!({"spec": {"replicas": v}}),
    },
    PatchTarget {
        field: "resources",
        setting: |k| k.resources.as_ref(),
        kind: None,
        wrap: |c, v| container(c, "resources", v),
    },
    PatchTarget {
        field: "strategy",
        setting: |k| k.strategy.as_ref(),
        kind: None,
        wrap: |_, v| json!({"spec": {"strategy": v}}),
    },
    PatchTarget {
        field: "tolerations",
        setting: |k| k.tolerations.as_ref(),
        kind: None,
        wrap: |_, v| pod_spec("tolerations", v),
    },
    PatchTarget {
        field: "serviceAnnotations",
        setting: |k| k.service_annotations.as_ref(),
        kind: Some("Service"),
        wrap: |_, v| json!({"metadata": {"annotations": v}}),
    },
    PatchTarget {
        field: "service",
        setting: |k| k.service.as_ref(),
        kind: Some("Service"),
        wrap: |_, v| json!({"spec": v}),
    },
    PatchTarget {
        field: "securityContext",
        setting: |k| k.security_context.as_ref(),
        kind: None,
        wrap: |_, v| pod_spec("securityContext", v),
    },
];

/// Applies the instance's `k8s` settings and overlays to its rendered objects.
pub fn post_process(
    comp: &Component,
    spec: &ComponentSpec,
    mut objects: Vec<Object>,
    values: &Value,
) -> Result<Vec<Object>, PostProcessError> {
    let Some(k8s) = &spec.k8s else {
        return Ok(objects);
    };
    let mut k8s = k8s.clone();
    if comp.is_gateway() {
        // Service ports of gateways are passed as Helm values instead, because strategic merge
        // of service ports is broken (kubernetes#103544); istioctl blanks them here, which also
        // makes `service` present for every gateway with a `k8s` block.
        let service = k8s
            .service
            .get_or_insert_with(|| Value::Object(Default::default()));
        if !service.is_object() {
            *service = Value::Object(Default::default());
        }
        service
            .as_object_mut()
            .expect("just made a map")
            .insert("ports".to_string(), Value::Array(Vec::new()));
    }
    let mut resource_name = if spec.name.is_empty() {
        comp.resource_name.to_string()
    } else {
        spec.name.clone()
    };
    if comp.name == "Pilot" {
        let revision = iop::tree::get_path(values, "spec.values.revision")
            .and_then(Value::as_str)
            .filter(|r| !r.is_empty())
            .unwrap_or("default");
        if revision != "default" {
            resource_name = format!("{resource_name}-{revision}");
        }
    }
    let workload_kind = comp.resource_type.kind();

    // Patches per object, in table order (istioctl walks a Go map, so its order is random;
    // the patches touch distinct fields, so any order gives the same object).
    let mut pending: Vec<Vec<(Value, bool)>> = vec![Vec::new(); objects.len()];
    for target in TARGETS {
        let Some(v) = (target.setting)(&k8s) else {
            continue;
        };
        let Some(kind) = target.kind.or(workload_kind) else {
            continue;
        };
        let patch = (target.wrap)(comp.container_name, v.clone());
        for (i, obj) in objects.iter().enumerate() {
            if obj.kind() == kind && obj.name() == resource_name {
                pending[i].push((patch.clone(), target.field == "podDisruptionBudget"));
            }
        }
    }
    for (i, patches) in pending.into_iter().enumerate() {
        if patches.is_empty() {
            continue;
        }
        let mut value = objects[i].value().clone();
        let kind = object_kind(&objects[i]);
        for (patch, is_pdb) in patches {
            value = crate::smp::strategic_merge(&kind, &value, &patch)
                .map_err(PostProcessError::Patch)?;
            if is_pdb {
                value = only_one_pdb_bound(value);
            }
        }
        objects[i] = Object::new(crate::object::integers_as_int64(value));
    }

    for overlay in &k8s.overlays {
        for obj in objects.iter_mut() {
            if obj.kind() != overlay.kind || obj.name() != overlay.name {
                continue;
            }
            // istioctl collects the errors of single patches and then drops them, so a
            // patch whose path does not resolve is skipped silently; so is it here.
            let patched = crate::overlay::apply_overlay(obj.value(), &overlay.patches)
                .map_err(PostProcessError::Overlay)?;
            *obj = Object::new(crate::object::integers_as_int64(patched.object));
        }
    }
    Ok(objects)
}

fn object_kind(obj: &Object) -> ObjectKind {
    let version = obj
        .api_version()
        .rsplit_once('/')
        .map(|(_, v)| v)
        .unwrap_or(obj.api_version());
    ObjectKind::new(obj.group(), version, obj.kind())
}

/// A disruption budget may not have both bounds; Istio defaults `minAvailable`, so a user's
/// `maxUnavailable` must drop it.
fn only_one_pdb_bound(mut value: Value) -> Value {
    if let Some(spec) = value.get_mut("spec").and_then(Value::as_object_mut)
        && spec.contains_key("maxUnavailable")
        && spec.contains_key("minAvailable")
    {
        spec.insert("minAvailable".to_string(), Value::Null);
    }
    value
}
