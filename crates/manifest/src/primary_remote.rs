//! Primary-remote, as Istio's "Install Primary-Remote" docs make it: the objects and values a
//! remote cluster (no istiod of its own, the `remote` profile) and its primary need besides
//! their installs. Pure: names, paths and objects; the installer applies them.
//!
//! - [`injection_path`]: `values.istiodRemote.injectionPath` of a remote
//!   (`/inject/cluster/<cluster>/net/<network>`: istiod's injector reads the segments as the
//!   injected proxy's `ISTIO_META_CLUSTER_ID` and `ISTIO_META_NETWORK`).
//! - [`CONTROL_PLANE_CLUSTERS`]: the annotation on the remote's Istio namespace naming the
//!   cluster whose istiod leads it (patches its injector's `caBundle`, writes its namespaces'
//!   `istio-ca-root-cert`).
//! - [`expose_istiod`]: `samples/multicluster/expose-istiod.yaml` (or, with a revision,
//!   `expose-istiod-rev.yaml.tmpl`): the Gateway and VirtualService that pass 15012 and 15017
//!   through the primary's east-west gateway to istiod, for remotes on another network.
//! - [`exposed_istiod_service`]: on one network, istiod's xDS (15012) and injection webhook
//!   (15017) ports as a Service with the primary's node address as its external IP, so the
//!   remote's `istiod` Service (an EndpointSlice of `global.remotePilotAddress` on 15012 and
//!   15017) reaches it on the flat node network without a load balancer.

use serde_json::{Value, json};

/// The annotation on a remote's Istio namespace naming the clusters whose istiod leads it.
pub const CONTROL_PLANE_CLUSTERS: &str = "topology.istio.io/controlPlaneClusters";
/// The Gateway of `expose-istiod.yaml`.
pub const ISTIOD_GATEWAY_NAME: &str = "istiod-gateway";
/// The Service [`exposed_istiod_service`] makes.
pub const EXPOSED_ISTIOD_SERVICE: &str = "istiod-exposed";
/// istiod's xDS port (TLS), the remote's proxies' discovery address.
pub const XDS_PORT: u16 = 15012;
/// istiod's injection webhook port (the `istiod` Service's 443 targets it).
pub const WEBHOOK_PORT: u16 = 15017;

/// `values.istiodRemote.injectionPath` of the remote named `cluster` on `network` (Istio's docs
/// write `/inject/cluster/cluster2/net/network1`; without a network the `net` pair is left
/// out, so the injector leaves the proxy's network unset).
pub fn injection_path(cluster: &str, network: Option<&str>) -> String {
    match network {
        Some(net) if !net.is_empty() => format!("/inject/cluster/{cluster}/net/{net}"),
        _ => format!("/inject/cluster/{cluster}"),
    }
}

/// istiod's Service name for `revision`.
fn istiod_service(revision: Option<&str>) -> String {
    match revision {
        Some(r) if !r.is_empty() && r != "default" => format!("istiod-{r}"),
        _ => "istiod".to_string(),
    }
}

/// `samples/multicluster/expose-istiod.yaml` (no revision) or `expose-istiod-rev.yaml.tmpl`
/// (with one), in `namespace`: the Gateway `istiod-gateway` on the east-west gateway, TLS
/// passthrough on 15012 and 15017, and the VirtualService routing them to istiod (15017 to
/// the Service's 443).
pub fn expose_istiod(namespace: &str, revision: Option<&str>) -> Vec<Value> {
    let service = istiod_service(revision);
    let host = format!("{service}.{namespace}.svc.cluster.local");
    let passthrough = |name: &str, number: u16| {
        json!({
            "port": {"name": name, "number": number, "protocol": "tls"},
            "tls": {"mode": "PASSTHROUGH"},
            "hosts": ["*"]
        })
    };
    let gateway = json!({
        "apiVersion": "networking.istio.io/v1",
        "kind": "Gateway",
        "metadata": {"name": ISTIOD_GATEWAY_NAME, "namespace": namespace},
        "spec": {
            "selector": {"istio": "eastwestgateway"},
            "servers": [
                passthrough("tls-istiod", XDS_PORT),
                passthrough("tls-istiodwebhook", WEBHOOK_PORT)
            ]
        }
    });
    let (name, sni) = match revision {
        Some(r) if !r.is_empty() && r != "default" => (
            format!("istiod-vs-{r}"),
            json!([format!("{service}.{namespace}.svc"), host.clone()]),
        ),
        _ => ("istiod-vs".to_string(), json!(["*"])),
    };
    let route = |port: u16, to: u16| {
        json!({
            "match": [{"port": port, "sniHosts": sni.clone()}],
            "route": [{"destination": {"host": host.clone(), "port": {"number": to}}}]
        })
    };
    let virtual_service = json!({
        "apiVersion": "networking.istio.io/v1",
        "kind": "VirtualService",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "hosts": ["*"],
            "gateways": [ISTIOD_GATEWAY_NAME],
            "tls": [route(XDS_PORT, XDS_PORT), route(WEBHOOK_PORT, 443)]
        }
    });
    vec![gateway, virtual_service]
}

/// The Service that exposes istiod of `revision` in `namespace` at `address` (a node's
/// address: kube-proxy on that node forwards its 15012 and 15017 to istiod's pods) for the
/// remotes of a one-network mesh. It carries istiod's component label (`Pilot`) and revision
/// but none of an installation's owner labels: `uninstall --purge` and `uninstall --revision`
/// remove it with istiod, and no install prunes it (it is not in any install's render).
pub fn exposed_istiod_service(namespace: &str, revision: Option<&str>, address: &str) -> Value {
    let rev = match revision {
        Some(r) if !r.is_empty() => r,
        _ => "default",
    };
    json!({
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": EXPOSED_ISTIOD_SERVICE,
            "namespace": namespace,
            "labels": {
                "app": "istiod",
                "istio.io/rev": rev,
                (vocab::labels::COMPONENT_LABEL): "Pilot"
            }
        },
        "spec": {
            "selector": {"app": "istiod", "istio.io/rev": rev},
            "externalIPs": [address],
            "ports": [
                {"name": "tcp-istiod", "port": XDS_PORT, "targetPort": XDS_PORT, "protocol": "TCP"},
                {"name": "tcp-webhook", "port": WEBHOOK_PORT, "targetPort": WEBHOOK_PORT, "protocol": "TCP"}
            ]
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn injection_paths_are_the_docs() {
        assert_eq!(
            injection_path("cluster2", Some("network1")),
            "/inject/cluster/cluster2/net/network1"
        );
        assert_eq!(injection_path("rpb", None), "/inject/cluster/rpb");
        assert_eq!(injection_path("rpb", Some("")), "/inject/cluster/rpb");
    }

    #[test]
    fn the_exposed_service_selects_istiod_of_its_revision() {
        let s = exposed_istiod_service("istio-system", Some("canary"), "10.250.1.2");
        assert_eq!(s["spec"]["selector"]["istio.io/rev"], "canary");
        assert_eq!(
            s["metadata"]["labels"]["operator.istio.io/component"],
            "Pilot"
        );
        assert!(
            s["metadata"]["labels"]
                .get("install.operator.istio.io/owning-resource")
                .is_none(),
            "no install owns it, so none prunes it"
        );
        assert_eq!(s["spec"]["externalIPs"], json!(["10.250.1.2"]));
        let ports: Vec<u64> = s["spec"]["ports"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["port"].as_u64().unwrap())
            .collect();
        assert_eq!(ports, vec![15012, 15017]);
        let s = exposed_istiod_service("istio-system", None, "10.250.1.2");
        assert_eq!(s["spec"]["selector"]["istio.io/rev"], "default");
    }
}
