//! The vocabulary bosun's crates share, with no behaviour of its own: the names of the labels
//! and annotations Istio (and istioctl's installer) defines, each named once ([`labels`]), and
//! the plain data an install hands a cluster: an object's identity ([`ObjectRef`]), a rendered
//! component ([`Component`]), what an installation owns ([`Installation`],
//! [`RenderedComponent`]) and what a cluster says about itself ([`ClusterFacts`]).
//!
//! It sits below `cluster` and `pipeline` so that the render side can describe an install
//! without depending on the crate that talks to the API server. It must not do I/O, render,
//! or judge: types, names and their display only.

pub mod labels;

/// The namespace Istio is installed into when nothing names one (istioctl's
/// `constants.IstioSystemNamespace`).
pub const DEFAULT_ISTIO_NAMESPACE: &str = "istio-system";

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

/// Which object, as a person reads it: `ConfigMap istio-system/istio`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ObjectRef {
    pub api_version: String,
    pub kind: String,
    /// `None` for cluster-scoped objects (and for namespaced ones that name none before the
    /// kind is resolved).
    pub namespace: Option<String>,
    pub name: String,
}

impl fmt::Display for ObjectRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.namespace {
            Some(ns) => write!(f, "{} {}/{}", self.kind, ns, self.name),
            None => write!(f, "{} {}", self.kind, self.name),
        }
    }
}

/// One component's objects, as rendered.
#[derive(Debug, Clone)]
pub struct Component {
    /// The component's name as dependencies name it (istioctl's: `Base`, `Pilot`, …). Several
    /// components may share one (gateways).
    pub name: String,
    /// How people call it (`Istio core`, `Istiod`): the progress line's words.
    pub display_name: String,
    /// The names of the components that must be installed (and ready, when waiting) before
    /// this one starts. Those must come earlier in the list an install is handed; a name no
    /// earlier component has is no reason to wait.
    pub after: Vec<String>,
    pub objects: Vec<Value>,
}

/// A component as prune compares it with the cluster: its name and the objects it renders now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedComponent {
    /// istioctl's component name (`Base`, `Pilot`, `IngressGateways`, …): the value of
    /// [`labels::COMPONENT_LABEL`] on its objects.
    pub name: String,
    pub objects: Vec<ObjectRef>,
}

impl RenderedComponent {
    /// The component `name` with the rendered objects `objects` (JSON objects; those without a
    /// kind or name are left out, as nothing in the cluster can match them).
    pub fn from_objects(name: &str, objects: &[Value]) -> RenderedComponent {
        let objects = objects
            .iter()
            .filter_map(|o| {
                let field = |p: &str| o.pointer(p).and_then(Value::as_str).unwrap_or("");
                let (kind, name) = (field("/kind"), field("/metadata/name"));
                (!kind.is_empty() && !name.is_empty()).then(|| ObjectRef {
                    api_version: field("/apiVersion").to_string(),
                    kind: kind.to_string(),
                    namespace: Some(field("/metadata/namespace"))
                        .filter(|n| !n.is_empty())
                        .map(str::to_string),
                    name: name.to_string(),
                })
            })
            .collect();
        RenderedComponent {
            name: name.to_string(),
            objects,
        }
    }
}

/// What prune compares the cluster with: who the installation is, and what it renders now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installation {
    /// The labels every object of the installation carries (the owner labels without the
    /// component label): only objects with all of them are candidates.
    pub owner_labels: BTreeMap<String, String>,
    /// Every component the installer knows, rendered now or not (a disabled component with no
    /// objects is how its leftovers get pruned). Objects labelled with a component not in this
    /// list are left alone.
    pub components: Vec<RenderedComponent>,
}

/// What a cluster says about itself that istioctl's rendering looks at: the Kubernetes version
/// (`.Capabilities.KubeVersion`, and GKE detection) and the CNI's configuration.
#[derive(Debug, Clone)]
pub struct ClusterFacts {
    /// The API server's `/version`.
    pub version: k8s_openapi::apimachinery::pkg::version::Info,
    /// Calico's FelixConfiguration `default` (`projectcalico.org/v3`), when the cluster has it.
    pub calico_felix: Option<Value>,
    /// ConfigMap `kube-system/cilium-config`'s data, when the cluster has it.
    pub cilium_config: Option<BTreeMap<String, String>>,
}
