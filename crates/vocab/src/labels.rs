//! The label and annotation names bosun reads and writes, each named once. Most are Istio's
//! (istioctl's installer, the sidecar injector, revision tags); the few that are Kubernetes',
//! Helm's or bosun's own say so.

// The control plane, its revisions and tags.

/// `istio.io/rev`: the control plane revision of an object, the revision a namespace or pod
/// asks to be injected by, and the injected pod's annotation naming who injected it.
pub const REVISION_LABEL: &str = "istio.io/rev";
/// `istio.io/tag`: marks a revision tag's objects (its webhooks and Service).
pub const TAG_LABEL: &str = "istio.io/tag";
/// The name with a meaning of its own, as a revision and as a tag: the tag `default` also
/// answers `istio-injection=enabled` and validates config without an `istio.io/rev` label.
pub const DEFAULT_REVISION: &str = "default";
/// `istio-injection`: the namespace label of the default revision (`enabled`, `disabled`).
pub const INJECTION_LABEL: &str = "istio-injection";
/// `sidecar.istio.io/inject`: a pod's own say on injection.
pub const SIDECAR_INJECT_LABEL: &str = "sidecar.istio.io/inject";
/// `sidecar.istio.io/status`: the injected pod's status annotation (JSON with a `revision`).
pub const SIDECAR_STATUS_ANNOTATION: &str = "sidecar.istio.io/status";
/// `istio.io/deactivated`: the label istioctl's never-matching selectors ask for, so that a
/// deactivated injector injects nothing (no namespace or pod carries it).
pub const DEACTIVATED_LABEL: &str = "istio.io/deactivated";
/// The value of [`DEACTIVATED_LABEL`] in those selectors.
pub const DEACTIVATED_VALUE: &str = "never-match";

// istioctl's installer: who installed an object, and what it may prune.

/// `operator.istio.io/component`: which component (`Base`, `Pilot`, …) an object belongs to.
pub const COMPONENT_LABEL: &str = "operator.istio.io/component";
/// `operator.istio.io/version`: the Istio version of the installation.
pub const VERSION_LABEL: &str = "operator.istio.io/version";
/// `operator.istio.io/managed`: the installer (or the operator) manages the object.
pub const MANAGED_LABEL: &str = "operator.istio.io/managed";
/// istioctl's value of [`MANAGED_LABEL`].
pub const MANAGED_VALUE: &str = "Reconcile";
/// `install.operator.istio.io/owning-resource`: the IstioOperator's `metadata.name`.
pub const OWNING_RESOURCE_LABEL: &str = "install.operator.istio.io/owning-resource";
/// `install.operator.istio.io/owning-resource-namespace`: the IstioOperator's namespace.
pub const OWNING_RESOURCE_NAMESPACE_LABEL: &str =
    "install.operator.istio.io/owning-resource-namespace";
/// `install.operator.istio.io/owning-resource-not-pruned`: `"true"` keeps an object from prune
/// (uninstall still removes it).
pub const NOT_PRUNED_LABEL: &str = "install.operator.istio.io/owning-resource-not-pruned";
/// `install.istio.io/ignoreReconcile` (the old Istio operator's annotation): `"true"` stops
/// every reconcile of an IstioOperator but its uninstall; removing it resumes.
pub const PAUSE_ANNOTATION: &str = "install.istio.io/ignoreReconcile";
/// `bosun.io/istio-version`: on an IstioOperator, the Istio version bosun's operator installs
/// (a release `1.30.3`, a minor `1.30`, or an `istio.io/istio` module version), as `--version`
/// takes it. Not part of Istio's API: istioctl ignores it.
pub const ISTIO_VERSION_ANNOTATION: &str = "bosun.io/istio-version";
/// `bosun.io/ignore-release-policy`: `"true"` on an IstioOperator lets bosun's operator apply
/// what the release policy refuses (an end-of-life release, a skipped minor, a downgrade), as
/// `install --force` does; the refusal is still logged.
pub const IGNORE_RELEASE_POLICY_ANNOTATION: &str = "bosun.io/ignore-release-policy";
/// `bosun.io/helm-releases`: `"true"` on an IstioOperator makes bosun's operator record each
/// component instance as a Helm release, as `install --helm-releases` does.
pub const HELM_RELEASES_ANNOTATION: &str = "bosun.io/helm-releases";
/// `bosun.io/override-helm-changes`: `"true"` on an IstioOperator with Helm release records
/// lets bosun's operator apply its render over what a `helm upgrade` changed (the operator's
/// `--force`); without it, a release helm changed is left alone.
pub const OVERRIDE_HELM_CHANGES_ANNOTATION: &str = "bosun.io/override-helm-changes";

// Kubernetes', Helm's and bosun's own.

/// `kubernetes.io/metadata.name`: set by the API server on every namespace to its name.
pub const NAMESPACE_NAME_LABEL: &str = "kubernetes.io/metadata.name";
/// `app.kubernetes.io/version`: the Helm charts' version label (a chart's `appVersion`).
pub const HELM_VERSION_LABEL: &str = "app.kubernetes.io/version";
/// `app.kubernetes.io/managed-by`: on everything bosun's operator applies, so one label
/// selector finds all of it.
pub const MANAGED_BY_LABEL: &str = "app.kubernetes.io/managed-by";
/// bosun's own: the mark (`"true"`) earlier bosun versions put on the installed-state records
/// they wrote (istioctl stopped writing such records in 1.21), by which uninstall still finds
/// and removes them.
pub const INSTALLED_STATE_LABEL: &str = "bosun.io/installed-state";

/// The network of a namespace's workloads (`values.global.network` for the Istio namespace:
/// istioctl's install sets it on the namespace it creates, and multi-network meshes read it).
pub const NETWORK_LABEL: &str = "topology.istio.io/network";
/// The label istiod's secret controller selects remote-cluster Secrets by (`"true"`).
pub const MULTICLUSTER_SECRET_LABEL: &str = "istio/multiCluster";
/// The annotation on a remote-cluster Secret naming the cluster its kubeconfig reaches.
pub const CLUSTER_NAME_ANNOTATION: &str = "networking.istio.io/cluster";
/// Kubernetes' annotation tying a `kubernetes.io/service-account-token` Secret to its
/// ServiceAccount (the token controller fills the Secret for that account).
pub const SERVICE_ACCOUNT_NAME_ANNOTATION: &str = "kubernetes.io/service-account.name";

// Helm's ownership markers (helm puts them on every object of a release), and bosun's mark on
// the Helm release records it writes.

/// [`MANAGED_BY_LABEL`]'s value on the objects of a Helm release.
pub const HELM_MANAGED_BY_VALUE: &str = "Helm";
/// `meta.helm.sh/release-name`: the Helm release an object belongs to.
pub const HELM_RELEASE_NAME_ANNOTATION: &str = "meta.helm.sh/release-name";
/// `meta.helm.sh/release-namespace`: the namespace of that release.
pub const HELM_RELEASE_NAMESPACE_ANNOTATION: &str = "meta.helm.sh/release-namespace";
/// bosun's own: `"true"` on the Helm release records `install --helm-releases` wrote (a
/// release label, which helm carries over to the revisions it makes), by which `uninstall
/// --helm-releases` finds them.
pub const HELM_RELEASE_RECORD_LABEL: &str = "bosun.io/helm-release";
/// bosun's own: on each Helm release record `install --helm-releases` writes, the revision
/// it wrote (`"3"` on `sh.helm.release.v1.istiod.v3`). helm carries release labels over to
/// the revisions it makes, so a newest revision whose number is not this label's value was
/// written by helm (or another tool) after bosun's, and the value names bosun's last one.
pub const HELM_RECORDED_REVISION_LABEL: &str = "bosun.io/helm-revision";
