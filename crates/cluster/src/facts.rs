//! What the cluster says about itself that istioctl's rendering looks at: the Kubernetes
//! version (`.Capabilities.KubeVersion`, and GKE detection) and the CNI's configuration (Calico's
//! FelixConfiguration `default`, ConfigMap `kube-system/cilium-config`). Read-only; what follows
//! from it is `iop::detect`'s business.

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DynamicObject};
use kube::core::GroupVersionKind;
use vocab::{ClusterFacts, ObjectRef};

use crate::{Client, Error};

impl Client {
    /// Reads the facts. Only the version must be readable; the CNI objects count as absent
    /// when they cannot be read, as istioctl counts them.
    pub async fn cluster_facts(&self) -> Result<ClusterFacts, Error> {
        let version = self
            .kube
            .apiserver_version()
            .await
            .map_err(Error::Version)?;
        let felix = ObjectRef {
            api_version: "projectcalico.org/v3".into(),
            kind: "FelixConfiguration".into(),
            namespace: None,
            name: "default".into(),
        };
        let gvk = GroupVersionKind::gvk("projectcalico.org", "v3", "FelixConfiguration");
        let calico_felix = match self.served(&gvk, &felix).await {
            Ok(Some((ar, _))) => {
                let api: Api<DynamicObject> = Api::all_with(self.kube.clone(), &ar);
                match api.get_opt("default").await {
                    Ok(found) => found.and_then(|o| serde_json::to_value(o).ok()),
                    Err(_) => None,
                }
            }
            _ => None,
        };
        let config_maps: Api<ConfigMap> = Api::namespaced(self.kube.clone(), "kube-system");
        let cilium_config = match config_maps.get_opt("cilium-config").await {
            Ok(found) => found.map(|cm| cm.data.unwrap_or_default()),
            Err(_) => None,
        };
        Ok(ClusterFacts {
            version,
            calico_felix,
            cilium_config,
        })
    }
}
