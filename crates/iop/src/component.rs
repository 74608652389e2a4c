//! Istio's components as istioctl knows them (`operator/pkg/component`): which chart renders
//! each, where its values live, which object its `k8s` settings patch, and how the merged
//! IstioOperator turns into the list of component instances to render (gateways may have many,
//! components may be enabled through values).

use serde_json::{Map, Value};

use crate::tree;

/// What kind of workload a component's `k8s` settings patch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceType {
    /// Base has none.
    None,
    Deployment,
    DaemonSet,
}

impl ResourceType {
    pub fn kind(self) -> Option<&'static str> {
        match self {
            ResourceType::None => None,
            ResourceType::Deployment => Some("Deployment"),
            ResourceType::DaemonSet => Some("DaemonSet"),
        }
    }
}

/// One of Istio's components.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Component {
    /// istioctl's component name (`Base`, `Pilot`, `IngressGateways`, …).
    pub name: &'static str,
    /// The key under `spec.components`.
    pub spec_name: &'static str,
    /// Rendered when the IstioOperator says nothing about it.
    pub default: bool,
    /// A list of instances (gateways) rather than one.
    pub multi: bool,
    pub resource_type: ResourceType,
    /// The name of the patched workload (gateways may rename it).
    pub resource_name: &'static str,
    /// The container that `env`, `resources`, … patch.
    pub container_name: &'static str,
    /// The chart, relative to the install package's `charts/`.
    pub chart_dir: &'static str,
    /// Where the component's own values live under `spec.values`.
    pub values_root: &'static str,
    /// The chart expects its values at the top (`resources`), not under `values_root`.
    pub flatten_values: bool,
    /// A values path that enables the component too.
    pub alt_enablement_path: Option<&'static str>,
    /// The chart's release name in Istio's Helm repository, where it has one.
    pub release_name: Option<&'static str>,
    /// How people call it (progress output).
    pub display_name: &'static str,
    /// The components (by [`Component::name`]) that must be installed and ready before this
    /// one is applied: istioctl's install dependencies (`componentDependencies`). A dependency
    /// that is not rendered is no reason to wait.
    pub installed_after: &'static [&'static str],
}

impl Component {
    pub fn is_gateway(&self) -> bool {
        self.multi
    }
}

/// Every component, in istioctl's order (the order they are rendered and installed in).
pub const ALL: &[Component] = &[
    Component {
        name: "Base",
        spec_name: "base",
        default: true,
        multi: false,
        resource_type: ResourceType::None,
        resource_name: "",
        container_name: "",
        chart_dir: "base",
        values_root: "global",
        flatten_values: false,
        alt_enablement_path: None,
        release_name: Some("base"),
        display_name: "Istio core",
        installed_after: &[],
    },
    Component {
        name: "Pilot",
        spec_name: "pilot",
        default: true,
        multi: false,
        resource_type: ResourceType::Deployment,
        resource_name: "istiod",
        container_name: "discovery",
        chart_dir: "istio-control/istio-discovery",
        values_root: "pilot",
        flatten_values: false,
        alt_enablement_path: None,
        release_name: Some("istiod"),
        display_name: "Istiod",
        installed_after: &["Base"],
    },
    Component {
        name: "IngressGateways",
        spec_name: "ingressGateways",
        default: true,
        multi: true,
        resource_type: ResourceType::Deployment,
        resource_name: "istio-ingressgateway",
        container_name: "istio-proxy",
        chart_dir: "gateways/istio-ingress",
        values_root: "gateways.istio-ingressgateway",
        flatten_values: false,
        alt_enablement_path: Some("spec.values.gateways.istio-ingressgateway.enabled"),
        release_name: None,
        display_name: "Ingress gateways",
        installed_after: &["Pilot"],
    },
    Component {
        name: "EgressGateways",
        spec_name: "egressGateways",
        default: false,
        multi: true,
        resource_type: ResourceType::Deployment,
        resource_name: "istio-egressgateway",
        container_name: "istio-proxy",
        chart_dir: "gateways/istio-egress",
        values_root: "gateways.istio-egressgateway",
        flatten_values: false,
        alt_enablement_path: Some("spec.values.gateways.istio-egressgateway.enabled"),
        release_name: None,
        display_name: "Egress gateways",
        installed_after: &["Pilot"],
    },
    Component {
        name: "Cni",
        spec_name: "cni",
        default: false,
        multi: false,
        resource_type: ResourceType::DaemonSet,
        resource_name: "istio-cni-node",
        container_name: "install-cni",
        chart_dir: "istio-cni",
        values_root: "cni",
        flatten_values: false,
        alt_enablement_path: None,
        release_name: Some("cni"),
        display_name: "CNI",
        installed_after: &["Base"],
    },
    Component {
        name: "Ztunnel",
        spec_name: "ztunnel",
        default: false,
        multi: false,
        resource_type: ResourceType::DaemonSet,
        resource_name: "ztunnel",
        container_name: "istio-proxy",
        chart_dir: "ztunnel",
        values_root: "ztunnel",
        flatten_values: true,
        alt_enablement_path: None,
        release_name: Some("ztunnel"),
        display_name: "Ztunnel",
        installed_after: &["Cni"],
    },
];

/// One instance of a component to render: istioctl's `GatewayComponentSpec`.
#[derive(Debug, Clone, PartialEq)]
pub struct ComponentSpec {
    pub namespace: String,
    /// Gateways only: overrides the workload's name.
    pub name: String,
    /// Gateways only: the pod labels (an empty map when unset, as istioctl makes it).
    pub label: Map<String, Value>,
    pub hub: String,
    /// Any JSON value; istioctl formats it with `%v`.
    pub tag: Option<Value>,
    /// The entry's `k8s` block, when it has one.
    pub k8s: Option<K8sSettings>,
}

/// Why a component's spec could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("fail to convert {component}: {message}")]
pub struct SpecError {
    pub component: String,
    pub message: String,
}

fn string_field(m: &Map<String, Value>, key: &str, component: &str) -> Result<String, SpecError> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(SpecError {
            component: component.to_string(),
            message: format!(
                "json: cannot unmarshal {} into Go struct field GatewayComponentSpec.{key} of type string",
                json_type(other)
            ),
        }),
    }
}

use crate::k8s::K8sSettings;
use crate::tree::json_type;

impl Component {
    /// istioctl's `Component.Get`: the instances of this component the merged IstioOperator
    /// asks for, each with its namespace defaulted.
    pub fn instances(&self, merged: &Value) -> Result<Vec<ComponentSpec>, SpecError> {
        let default_namespace = tree::get_path_string(merged, "metadata.namespace");
        let alt_enabled = self
            .alt_enablement_path
            .is_some_and(|p| tree::get_path_bool(merged, p));
        let default_response = if self.default || alt_enabled {
            vec![ComponentSpec {
                namespace: default_namespace.clone(),
                name: String::new(),
                label: Map::new(),
                hub: String::new(),
                tag: None,
                k8s: None,
            }]
        } else {
            Vec::new()
        };
        let build = |m: &Map<String, Value>| -> Result<(ComponentSpec, bool), SpecError> {
            let enabled = match m.get("enabled") {
                None | Some(Value::Null) => true,
                Some(Value::Bool(b)) => *b,
                Some(other) => {
                    return Err(SpecError {
                        component: self.spec_name.to_string(),
                        message: format!(
                            "json: cannot unmarshal {} into Go value of type bool",
                            json_type(other)
                        ),
                    });
                }
            };
            let mut namespace = string_field(m, "namespace", self.spec_name)?;
            if namespace.is_empty() {
                namespace = default_namespace.clone();
            }
            if namespace.is_empty() {
                namespace = vocab::DEFAULT_ISTIO_NAMESPACE.to_string();
            }
            let label = match m.get("label") {
                Some(Value::Object(l)) => l.clone(),
                _ => Map::new(),
            };
            let tag = m.get("tag").filter(|t| !t.is_null()).cloned();
            Ok((
                ComponentSpec {
                    namespace,
                    name: string_field(m, "name", self.spec_name)?,
                    label,
                    hub: string_field(m, "hub", self.spec_name)?,
                    tag,
                    k8s: m
                        .get("k8s")
                        .and_then(Value::as_object)
                        .map(K8sSettings::read),
                },
                enabled,
            ))
        };
        let path = format!("spec.components.{}", self.spec_name);
        if self.multi {
            let Some(list) = tree::get_path(merged, &path) else {
                return Ok(default_response);
            };
            let Some(items) = list.as_array() else {
                return Err(SpecError {
                    component: self.spec_name.to_string(),
                    message: format!("expected a list, got {}", json_type(list)),
                });
            };
            let mut specs = Vec::new();
            for item in items {
                let empty = Map::new();
                let m = item.as_object().unwrap_or(&empty);
                let (spec, enabled) = build(m)?;
                if enabled || alt_enabled {
                    specs.push(spec);
                }
            }
            return Ok(specs);
        }
        let Some(m) = tree::get_path_map(merged, &path) else {
            return Ok(default_response);
        };
        let (spec, enabled) = build(m)?;
        if !(enabled || alt_enabled) {
            return Ok(Vec::new());
        }
        Ok(vec![spec])
    }
}
