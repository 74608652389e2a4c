//! The Helm values each component instance is rendered with (istioctl's
//! `applyComponentValuesToHelmValues`): gateway name, labels and ports, HPA and replica
//! settings and CPU resources copied from `k8s` into values (so chart guards see them), the
//! instance's hub and tag, and the flattening that charts such as ztunnel expect.

use serde_json::{Map, Value};

use crate::component::{Component, ComponentSpec, ResourceType};
use crate::quantity;
use crate::tree::{self, TreeError};

/// The merged IstioOperator as this instance's chart must see it (a modified copy).
pub fn component_values(
    comp: &Component,
    spec: &ComponentSpec,
    merged: &Value,
) -> Result<Value, TreeError> {
    let root = comp.values_root;
    let mut merged = merged.clone();
    let k8s = spec.k8s();

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
        if let Some(ports) = k8s
            .and_then(|k| k.get("service"))
            .and_then(|s| s.get("ports"))
            .and_then(Value::as_array)
            .filter(|p| !p.is_empty())
        {
            let typed: Vec<Value> = ports.iter().map(service_port_round_trip).collect();
            tree::set_path(
                &mut merged,
                &format!("spec.values.{root}.ports"),
                Value::Array(typed),
            )?;
        }
    }
    if comp.resource_type == ResourceType::Deployment
        && let Some(k8s) = k8s
    {
        if let Some(hpa) = k8s.get("hpaSpec").and_then(Value::as_object) {
            if let Some(min) = hpa.get("minReplicas").and_then(as_integer) {
                tree::set_path(
                    &mut merged,
                    &format!("spec.values.{root}.autoscaleMin"),
                    Value::from(min),
                )?;
            }
            if let Some(max) = hpa
                .get("maxReplicas")
                .and_then(as_integer)
                .filter(|m| *m > 0)
            {
                tree::set_path(
                    &mut merged,
                    &format!("spec.values.{root}.autoscaleMax"),
                    Value::from(max),
                )?;
            }
        }
        if let Some(n) = k8s
            .get("replicaCount")
            .and_then(as_integer)
            .filter(|n| *n > 0)
        {
            tree::set_path(
                &mut merged,
                &format!("spec.values.{root}.replicaCount"),
                Value::from(n),
            )?;
        }
    }
    if let Some(resources) = k8s
        .and_then(|k| k.get("resources"))
        .and_then(Value::as_object)
    {
        for side in ["limits", "requests"] {
            let cpu = resources
                .get(side)
                .and_then(|s| s.get("cpu"))
                .and_then(quantity::canonical_from_json);
            if let Some(cpu) = cpu.filter(|c| c != "0") {
                tree::set_path(
                    &mut merged,
                    &format!("spec.values.{root}.resources.{side}.cpu"),
                    Value::String(cpu),
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

/// A JSON number that is a whole number (as Go's decode into an integer field would accept).
fn as_integer(v: &Value) -> Option<i64> {
    v.as_i64().or_else(|| {
        v.as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
            .map(|f| f as i64)
    })
}

/// A service port as istioctl passes it to the gateway chart: decoded into Kubernetes'
/// `ServicePort` and encoded again, so unknown fields vanish, empty ones are omitted, and
/// `targetPort` (a struct, never omitted) is always present.
fn service_port_round_trip(port: &Value) -> Value {
    let mut out = Map::new();
    let empty = Map::new();
    let p = port.as_object().unwrap_or(&empty);
    for key in ["name", "protocol", "appProtocol"] {
        if let Some(s) = p.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()) {
            out.insert(key.to_string(), Value::String(s.to_string()));
        }
    }
    out.insert(
        "port".to_string(),
        Value::from(p.get("port").and_then(as_integer).unwrap_or(0)),
    );
    let target = match p.get("targetPort") {
        Some(Value::String(s)) => Value::String(s.clone()),
        Some(v) => Value::from(as_integer(v).unwrap_or(0)),
        None => Value::from(0),
    };
    out.insert("targetPort".to_string(), target);
    if let Some(n) = p.get("nodePort").and_then(as_integer).filter(|n| *n != 0) {
        out.insert("nodePort".to_string(), Value::from(n));
    }
    // Decoded into map[string]any, numbers are float64 again.
    Value::Object(
        out.into_iter()
            .map(|(k, v)| {
                let v = match v.as_i64() {
                    Some(i) => serde_json::Number::from_f64(i as f64)
                        .map(Value::Number)
                        .unwrap_or(v),
                    None => v,
                };
                (k, v)
            })
            .collect(),
    )
}
