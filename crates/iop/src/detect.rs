//! What istioctl concludes from the cluster it installs into (`install`, and `manifest generate
//! --cluster-specific`): settings for the platform the cluster runs on, laid over the profile
//! before the user's inputs (istioctl's `clusterSpecificSettings`), and CNI configurations that
//! break Istio's traffic capture, reported as warnings (its `detectCniIncompatibility`). Pure:
//! the caller reads the cluster and passes what it found.

use std::collections::BTreeMap;

use serde_json::Value;

/// The `--set` paths laid over the profile for a cluster whose `/version` says `git_version`.
/// GKE (a `-gke` version) wants the CNI node agent in `kube-system` and its bin directory;
/// `gke_auto_detection` is istioctl's `AUTO_GKE_DETECTION` (on unless turned off).
pub fn platform_settings(git_version: &str, gke_auto_detection: bool) -> Vec<String> {
    if gke_auto_detection && git_version.contains("-gke") {
        return [
            "components.cni.namespace=kube-system",
            "values.global.platform=gke",
            "values.cni.resourceQuotas.enabled=false",
        ]
        .map(String::from)
        .to_vec();
    }
    Vec::new()
}

/// What the cluster's CNI configuration says, as far as Istio cares.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CniConfig {
    /// Calico's FelixConfiguration `default` (`projectcalico.org/v3`), if there is one.
    pub calico_felix: Option<Value>,
    /// The data of ConfigMap `kube-system/cilium-config`, if there is one.
    pub cilium: Option<BTreeMap<String, String>>,
}

/// istioctl's warnings about `cni`'s settings that defeat Istio, in its order and words, for
/// an IstioOperator with the CNI and ztunnel components enabled or not.
pub fn cni_incompatibilities(
    config: &CniConfig,
    cni_enabled: bool,
    ztunnel_enabled: bool,
) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(felix) = &config.calico_felix {
        let spec = felix.get("spec");
        // Go's NestedString/NestedBool: found only when the field has that type.
        if let Some(mode) = spec
            .and_then(|s| s.get("bpfConnectTimeLoadBalancing"))
            .and_then(Value::as_str)
            .filter(|m| *m != "Disabled")
        {
            out.push(format!("detected Calico CNI with 'bpfConnectTimeLoadBalancing={mode}'; this must be set to 'bpfConnectTimeLoadBalancing=Disabled' in the Calico configuration"));
        }
        if spec
            .and_then(|s| s.get("bpfConnectTimeLoadBalancingEnabled"))
            .and_then(Value::as_bool)
            == Some(true)
        {
            out.push("detected Calico CNI with 'bpfConnectTimeLoadBalancingEnabled=true'; this must be set to 'bpfConnectTimeLoadBalancingEnabled=false' in the Calico configuration".to_string());
        }
    }
    if let Some(cilium) = &config.cilium {
        let is_true = |key: &str| cilium.get(key).map(String::as_str) == Some("true");
        if cni_enabled && is_true("cni-exclusive") {
            out.push("detected Cilium CNI with 'cni-exclusive=true'; this must be set to 'cni-exclusive=false' in the Cilium configuration".to_string());
        }
        if ztunnel_enabled && is_true("enable-bpf-masquerade") {
            out.push("detected Cilium CNI with 'enable-bpf-masquerade=true'; this must be set to 'false' when using ambient mode".to_string());
        }
        let hostns_only = is_true("bpf-lb-sock-hostns-only");
        if is_true("bpf-lb-sock") && !hostns_only {
            out.push("detected Cilium CNI with 'bpf-lb-sock=true'; this requires 'bpf-lb-sock-hostns-only=true' to be set".to_string());
        }
        if cilium.get("kube-proxy-replacement").map(String::as_str) == Some("strict")
            && !hostns_only
        {
            out.push("detected Cilium CNI with 'kube-proxy-replacement=strict' and 'bpf-lb-sock-hostns-only=false'; please set 'bpf-lb-sock-hostns-only=true' to avoid conflicts with Istio".to_string());
        }
    }
    out
}

/// Whether the merged IstioOperator enables `component` (`cni`, `ztunnel`): istioctl reads
/// `spec.components.NAME.enabled` as a bool, absent meaning false.
pub fn component_enabled(merged: &Value, component: &str) -> bool {
    merged
        .pointer(&format!("/spec/components/{component}/enabled"))
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

/// Go's `strconv.ParseBool`, for istioctl's boolean environment variables: `None` for text
/// it does not accept (istioctl then keeps the default).
pub fn go_parse_bool(text: &str) -> Option<bool> {
    match text {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn gke_is_detected_from_the_version_unless_turned_off() {
        assert_eq!(
            platform_settings("v1.30.5-gke.1014001", true),
            [
                "components.cni.namespace=kube-system",
                "values.global.platform=gke",
                "values.cni.resourceQuotas.enabled=false"
            ]
        );
        assert!(platform_settings("v1.30.5-gke.1014001", false).is_empty());
        assert!(platform_settings("v1.36.3", true).is_empty());
        assert!(platform_settings("v1.31.2-eks-7f9249a", true).is_empty());
    }

    fn cilium(pairs: &[(&str, &str)]) -> CniConfig {
        CniConfig {
            calico_felix: None,
            cilium: Some(
                pairs
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            ),
        }
    }

    #[test]
    fn cilium_settings_that_break_istio() {
        let all = cilium(&[
            ("cni-exclusive", "true"),
            ("enable-bpf-masquerade", "true"),
            ("bpf-lb-sock", "true"),
            ("kube-proxy-replacement", "strict"),
        ]);
        let got = cni_incompatibilities(&all, true, true);
        assert_eq!(got.len(), 4, "{got:#?}");
        assert!(got[0].contains("'cni-exclusive=true'"));
        assert!(got[1].contains("'enable-bpf-masquerade=true'"));
        assert!(got[2].contains("'bpf-lb-sock=true'"));
        assert!(got[3].contains("'kube-proxy-replacement=strict'"));
        // cni-exclusive matters only with Istio's CNI, masquerade only with ztunnel.
        assert_eq!(cni_incompatibilities(&all, false, false).len(), 2);
        let fine = cilium(&[
            ("cni-exclusive", "false"),
            ("bpf-lb-sock", "true"),
            ("bpf-lb-sock-hostns-only", "true"),
            ("kube-proxy-replacement", "strict"),
        ]);
        assert!(cni_incompatibilities(&fine, true, true).is_empty());
    }

    #[test]
    fn calico_connect_time_load_balancing() {
        let felix = |spec: Value| CniConfig {
            calico_felix: Some(json!({"spec": spec})),
            cilium: None,
        };
        let got = cni_incompatibilities(
            &felix(json!({"bpfConnectTimeLoadBalancing": "TCP"})),
            false,
            false,
        );
        assert_eq!(
            got,
            [
                "detected Calico CNI with 'bpfConnectTimeLoadBalancing=TCP'; this must be set to 'bpfConnectTimeLoadBalancing=Disabled' in the Calico configuration"
            ]
        );
        assert!(
            cni_incompatibilities(
                &felix(json!({"bpfConnectTimeLoadBalancing": "Disabled"})),
                false,
                false
            )
            .is_empty()
        );
        assert_eq!(
            cni_incompatibilities(
                &felix(json!({"bpfConnectTimeLoadBalancingEnabled": true})),
                false,
                false
            )
            .len(),
            1
        );
        // A field of another type is not found, as with Go's NestedString/NestedBool.
        assert!(
            cni_incompatibilities(
                &felix(json!({"bpfConnectTimeLoadBalancingEnabled": "true"})),
                false,
                false
            )
            .is_empty()
        );
    }

    #[test]
    fn go_bools() {
        assert_eq!(go_parse_bool("False"), Some(false));
        assert_eq!(go_parse_bool("1"), Some(true));
        assert_eq!(go_parse_bool("yes"), None);
    }
}
