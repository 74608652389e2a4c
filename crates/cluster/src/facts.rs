//! What the cluster says about itself that istioctl's rendering looks at: the Kubernetes
//! version (`.Capabilities.KubeVersion`, and GKE detection) and the CNI's configuration (Calico's
//! FelixConfiguration `default`, ConfigMap `kube-system/cilium-config`). Read-only; what follows
//! from it is `iop::detect`'s business.

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DynamicObject};
use kube::core::{ApiResource, GroupVersionKind};
use vocab::ClusterFacts;

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
        // Read straight away, not looked up in discovery first: a server without Calico's
        // group answers 404, which is "absent" as any failure to read it is. Discovery would
        // cost two requests here, before `install` takes its lock, and again under the lock
        // (taking it forgets what discovery found missing).
        let gvk = GroupVersionKind::gvk("projectcalico.org", "v3", "FelixConfiguration");
        let ar = ApiResource::from_gvk_with_plural(&gvk, "felixconfigurations");
        let felix: Api<DynamicObject> = Api::all_with(self.kube.clone(), &ar);
        let calico_felix = match felix.get("default").await {
            Ok(found) => serde_json::to_value(found).ok(),
            Err(_) => None,
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
