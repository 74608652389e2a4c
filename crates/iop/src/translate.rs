//! The Helm values each component instance is rendered with (istioctl's
//! `applyComponentValuesToHelmValues`): gateway name, labels and ports, HPA and replica
//! settings and CPU resources copied from `k8s` into values (so chart guards see them), the
//! instance's hub and tag, and the flattening that charts such as ztunnel expect.

use serde_json::{Map, Value};

use crate::component::{Component, ComponentSpec, ResourceType};
use crate::k8s::{IntOrString, ServicePort};
use crate::tree::{self, TreeError};

/// The merged IstioOperator as this instance's chart must see it (a modified copy).
pub fn component_values(
    comp: &Component,
    spec: &ComponentSpec,
    merged: &Value,
) -> Result<Value, TreeError> {
    let root = comp.values_root;
    let mut merged = merged.clone();
    let k8s = spec.k8s.as_ref();

    if comp.is_gateway() {
        tree::set_path(
            &mut merged,
            &format!("spec.values.{root}.name"),
            Value::String(spec.name.clone()),
        )?;
        tree::set_path(
            &mut merged,
            &format!("spec.values.{root}.labels"),
            Value::Object(spec.label.clone()),
        )?;
        if let Some(ports) = k8s.map(|k| &k.service_ports).filter(|p| !p.is_empty()) {
            tree::set_path(
                &mut merged,
                &format!("spec.values.{root}.ports"),
                Value::Array(ports.iter().map(service_port_value).collect()),
            )?;
        }
    }
    if comp.resource_type == ResourceType::Deployment
        && let Some(k8s) = k8s
    {
        if let Some(min) = k8s.autoscale.min {
            tree::set_path(
                &mut merged,
                &format!("spec.values.{root}.autoscaleMin"),
                Value::from(min),
            )?;
        }
        if let Some(max) = k8s.autoscale.max.filter(|m| *m > 0) {
            tree::set_path(
                &mut merged,
                &format!("spec.values.{root}.autoscaleMax"),
                Value::from(max),
            )?;
        }
        if let Some(n) = k8s.replicas.filter(|n| *n > 0) {
            tree::set_path(
                &mut merged,
                &format!("spec.values.{root}.replicaCount"),
                Value::from(n),
            )?;
        }
    }
    if let Some(k8s) = k8s {
        for (side, cpu) in [("limits", &k8s.cpu.limits), ("requests", &k8s.cpu.requests)] {
            if let Some(cpu) = cpu.as_ref().filter(|c| *c != "0") {
                tree::set_path(
                    &mut merged,
                    &format!("spec.values.{root}.resources.{side}.cpu"),
                    Value::String(cpu.clone()),
                )?;
            }
        }
    }

    if !spec.hub.is_empty() {
        tree::set_spec_paths(&mut merged, &[format!("values.{root}.hub={}", spec.hub)])?;
    }
    if let Some(tag) = &spec.tag {
        let text = crate::merge::go_sprint(tag);
        tree::set_spec_paths(&mut merged, &[format!("values.{root}.tag={text}")])?;
    }
    if comp.flatten_values
        && let Some(component_values) = tree::get_path_map(&merged, &format!("spec.values.{root}"))
    {
        let component_values = component_values.clone();
        let values = tree::get_path_map(&merged, "spec.values")
            .cloned()
            .unwrap_or_default();
        let mut flat = Map::new();
        flat.insert(
            "global".to_string(),
            values.get("global").cloned().unwrap_or(Value::Null),
        );
        for (k, v) in &values {
            if !v.is_object() {
                flat.insert(k.clone(), v.clone());
            }
        }
        for (k, v) in component_values {
            flat.insert(k, v);
        }
        if let Some(spec) = merged.get_mut("spec").and_then(Value::as_object_mut) {
            spec.insert("values".to_string(), Value::Object(flat));
        }
    }
    Ok(merged)
}

/// A service port as istioctl passes it to the gateway chart: Kubernetes' `ServicePort`
/// encoded again (empty fields omitted, `targetPort`, a struct, always present) and decoded into
/// `map[string]any`, so every number is a float64.
fn service_port_value(port: &ServicePort) -> Value {
    let mut out = Map::new();
    for (key, text) in [
        ("name", &port.name),
        ("protocol", &port.protocol),
        ("appProtocol", &port.app_protocol),
    ] {
        if !text.is_empty() {
            out.insert(key.to_string(), Value::String(text.clone()));
        }
    }
    out.insert("port".to_string(), float(port.port));
    let target = match &port.target_port {
        IntOrString::String(s) => Value::String(s.clone()),
        IntOrString::Int(n) => float(*n),
    };
    out.insert("targetPort".to_string(), target);
    if port.node_port != 0 {
        out.insert("nodePort".to_string(), float(port.node_port));
    }
    Value::Object(out)
}

fn float(n: i64) -> Value {
    serde_json::Number::from_f64(n as f64)
        .map(Value::Number)
        .unwrap_or_else(|| Value::from(n))
}
