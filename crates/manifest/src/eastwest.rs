//! A multi-network mesh's east-west gateway, as Istio's samples make it: the IstioOperator that
//! `samples/multicluster/gen-eastwest-gateway.sh --network NET [--revision REV]` prints (an
//! ingress gateway named `istio-eastwestgateway` labelled with the network, ports 15021, 15443,
//! 15012 and 15017, `ISTIO_META_REQUESTED_NETWORK_VIEW`), and the Gateway of
//! `samples/multicluster/expose-services.yaml` (`cross-network-gateway`: every `*.local` service
//! on 15443 with `AUTO_PASSTHROUGH`), applied in the Istio namespace as Istio's docs apply it
//! (`kubectl apply -n istio-system`). Pure: the IstioOperator is rendered like any other.

use serde_json::{Value, json};

/// The IstioOperator's name (`metadata.name: eastwest`), which its objects' owner labels carry.
pub const IOP_NAME: &str = "eastwest";
/// The gateway's name, its Deployment's and Service's.
pub const GATEWAY_NAME: &str = "istio-eastwestgateway";
/// The name of the Gateway that exposes the network's services.
pub const EXPOSE_SERVICES_NAME: &str = "cross-network-gateway";

/// The IstioOperator `gen-eastwest-gateway.sh --network NETWORK --revision REVISION` prints
/// (`revision: ""` when there is none, as the script writes it), field for field.
pub fn iop(network: &str, revision: Option<&str>) -> String {
    let revision = revision.unwrap_or("");
    format!(
        r#"apiVersion: install.istio.io/v1alpha1
kind: IstioOperator
metadata:
  name: {IOP_NAME}
spec:
  revision: "{revision}"
  profile: empty
  components:
    ingressGateways:
      - name: {GATEWAY_NAME}
        label:
          istio: eastwestgateway
          app: {GATEWAY_NAME}
          topology.istio.io/network: {network}
        enabled: true
        k8s:
          env:
            # traffic through this gateway should be routed inside the network
            - name: ISTIO_META_REQUESTED_NETWORK_VIEW
              value: {network}
          service:
            ports:
              - name: status-port
                port: 15021
                targetPort: 15021
              - name: tls
                port: 15443
                targetPort: 15443
              - name: tls-istiod
                port: 15012
                targetPort: 15012
              - name: tls-webhook
                port: 15017
                targetPort: 15017
  values:
    gateways:
      istio-ingressgateway:
        injectionTemplate: gateway
    global:
      network: {network}
"#
    )
}

/// `samples/multicluster/expose-services.yaml`'s Gateway, in `namespace`.
pub fn expose_services(namespace: &str) -> Value {
    json!({
        "apiVersion": "networking.istio.io/v1",
        "kind": "Gateway",
        "metadata": {"name": EXPOSE_SERVICES_NAME, "namespace": namespace},
        "spec": {
            "selector": {"istio": "eastwestgateway"},
            "servers": [{
                "port": {"number": 15443, "name": "tls", "protocol": "TLS"},
                "tls": {"mode": "AUTO_PASSTHROUGH"},
                "hosts": ["*.local"]
            }]
        }
    })
}
