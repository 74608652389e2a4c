//! `bosun precheck`'s judgements (istioctl's `x precheck`, `istioctl/pkg/precheck`): pure
//! functions from what the cluster crate read ([`Facts`]) to [`Finding`]s, each with a stable
//! code, a level, where it comes from, a message and a one-line fix.
//!
//! Codes: where istioctl (or the Istio analyzer it borrows from) has a message, its `IST0xxx`
//! code, level and message template are kept; bosun's own checks have `BOSUN-PRExxx` codes.
//!
//! | code | level | what |
//! |---|---|---|
//! | IST0142 | Error | Kubernetes older than the installed release supports (the catalog's minimum; istioctl's `k8sversion.MinK8SVersion`, 1.32, when the release is not in the catalog) |
//! | IST0141 | Error | a permission the install needs is missing (SelfSubjectAccessReview) |
//! | IST0156 | Error | a Gateway API CRD (Gateway, GatewayClass, HTTPRoute, ReferenceGrant) does not serve `v1beta1` |
//! | IST0172 | Warning | a Gateway API CRD (Gateway, GatewayClass, HTTPRoute, GRPCRoute) does not serve `v1` |
//! | IST0176 | Warning | a Gateway API CRD's bundle version is below what this Istio processes |
//! | IST0139 | Error | sidecar injectors of different revisions would both inject some pod |
//! | IST0169 | Warning | `--from-version` ≤ 1.21 and Service `istio-system/zipkin` exists (istioctl's only check) |
//! | BOSUN-PRE001 | Info | a control plane revision found (its version, components, namespaces) |
//! | BOSUN-PRE002 | Error | the install breaks Istio's upgrade rules: in place more than one minor up or to an older minor, a canary more than two minors up (`release::support::upgrade`) |
//! | BOSUN-PRE003 | Error | the install would replace CRDs with older ones (see [`crate::crds`]) |
//! | BOSUN-PRE004 | Warning | a check could not run (for example, listing a kind is forbidden) |
//! | BOSUN-PRE005 | Warning | tags, namespaces or pods use a revision that has no istiod or injector |
//! | BOSUN-PRE006 | Info | the Istio version installed is not in bosun's catalog: no end-of-life or Kubernetes range check |
//! | BOSUN-PRE007 | Error | the Istio release installed is past its end of life (the catalog, on the day given) |
//! | BOSUN-PRE008 | Warning | Kubernetes newer than the newest the installed release supports (the catalog's maximum) |
//! | BOSUN-PRE009 | Warning | Istio was installed by helm: a release of Istio's charts holds objects the install renders (`install` refuses them without `--adopt`) |
//!
//! The install's permissions: [`required_access`] lists, for each kind the render writes, the
//! verbs bosun's install sends for it (see [`WAITED_KINDS`] for which), in each namespace it
//! writes to.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::crds::{CrdDowngrade, served_versions};
use crate::revisions::Inventory;
use crate::version::Version;

/// istioctl's `k8sversion.MinK8SVersion`: the oldest Kubernetes minor version this Istio
/// supports (1.32). `manifest::render::ISTIOCTL_KUBE_VERSION` renders against the same version.
pub const MIN_KUBERNETES_MINOR: u64 = 32;

/// The Gateway API version the pinned Istio is built against (`sigs.k8s.io/gateway-api` in its
/// go.mod), named in fixes.
pub const GATEWAY_API_VERSION: &str = "v1.6.0";

/// `pkg/config/schema/gatewayapi.MinimumCRDVersions`: the oldest bundle version of each Gateway
/// API CRD whose resources this Istio processes.
pub const GATEWAY_API_MINIMUM_BUNDLE_VERSIONS: &[(&str, &str)] = &[
    ("grpcroutes.gateway.networking.k8s.io", "1.1.0"),
    ("backendtlspolicies.gateway.networking.k8s.io", "1.4.0"),
    ("tlsroutes.gateway.networking.k8s.io", "1.5.0"),
    ("tcproutes.gateway.networking.k8s.io", "1.6.0"),
];

/// The Istio analyzer messages precheck reuses: code and level as `pkg/config/analysis/msg/
/// messages.yaml` of the pinned Istio defines them (a test checks them against it).
pub const ISTIO_MESSAGES: &[(&str, &str, Level)] = &[
    ("IST0139", "InvalidWebhook", Level::Error),
    ("IST0141", "InsufficientPermissions", Level::Error),
    ("IST0142", "UnsupportedKubernetesVersion", Level::Error),
    ("IST0156", "UnsupportedGatewayAPIVersion", Level::Error),
    ("IST0169", "UpdateIncompatibility", Level::Warning),
    (
        "IST0172",
        "FutureUnsupportedGatewayAPIVersion",
        Level::Warning,
    ),
    (
        "IST0176",
        "GatewayAPICRDVersionBelowMinimum",
        Level::Warning,
    ),
];

/// The Gateway API's CRD annotation holding its release (`consts.BundleVersionAnnotation`).
pub const BUNDLE_VERSION_ANNOTATION: &str = "gateway.networking.k8s.io/bundle-version";

const GATEWAY_API_GROUP: &str = "gateway.networking.k8s.io";

/// A finding's severity, as Istio's analyzers grade them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Level {
    Info,
    Warning,
    Error,
}

impl Level {
    /// Parses istioctl's `--output-threshold` values (`Info`, `Warning`, `Error`; any case).
    pub fn parse(text: &str) -> Option<Level> {
        match text.to_ascii_lowercase().as_str() {
            "info" => Some(Level::Info),
            "warning" => Some(Level::Warning),
            "error" => Some(Level::Error),
            _ => None,
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Level::Info => "Info",
            Level::Warning => "Warning",
            Level::Error => "Error",
        })
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// `IST0141`, `BOSUN-PRE003`, … (see the module docs).
    pub code: &'static str,
    pub level: Level,
    /// What it is about: `Cluster`, or `Kind name` / `Kind namespace/name` (istioctl's origins).
    pub origin: String,
    pub message: String,
    /// One line saying what to do about it.
    pub fix: String,
}

impl Finding {
    fn new(
        code: &'static str,
        level: Level,
        origin: impl Into<String>,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) -> Finding {
        Finding {
            code,
            level,
            origin: origin.into(),
            message: message.into(),
            fix: fix.into(),
        }
    }

    /// istioctl's log line: `Error [IST0141] (Cluster) Missing required permission …`.
    pub fn log_line(&self) -> String {
        format!(
            "{} [{}] ({}) {}",
            self.level, self.code, self.origin, self.message
        )
    }

    /// The istio.io page of an `IST` code for Istio `version` (istioctl's `documentationUrl`:
    /// `https://istio.io/v1.31/docs/reference/config/analysis/ist0141/`); `None` for bosun's codes
    /// or an unparsable version.
    pub fn documentation_url(&self, version: &str) -> Option<String> {
        let v = Version::parse(version)?;
        self.code.starts_with("IST").then(|| {
            format!(
                "https://istio.io/v{}.{}/docs/reference/config/analysis/{}/",
                v.major(),
                v.minor(),
                self.code.to_ascii_lowercase()
            )
        })
    }
}

/// Sorts as istioctl's `SortedDedupedCopy` (worst level first, then code, origin, message)
/// and drops repeats.
pub fn sort_findings(findings: &mut Vec<Finding>) {
    findings.sort_by(|a, b| {
        b.level
            .cmp(&a.level)
            .then_with(|| a.code.cmp(b.code))
            .then_with(|| a.origin.cmp(&b.origin))
            .then_with(|| a.message.cmp(&b.message))
    });
    findings.dedup_by(|a, b| a.log_line() == b.log_line());
}

/// A permission to check: `verb` on `resource` of API group `group` (`""` for core), in
/// `namespace` or cluster-wide.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Access {
    pub verb: String,
    pub group: String,
    pub resource: String,
    pub namespace: Option<String>,
}

/// The answer of a SelfSubjectAccessReview for an [`Access`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AccessAnswer {
    pub access: Access,
    pub allowed: bool,
    /// The authorizer's reason (often empty when denied).
    pub reason: String,
}

/// What `install` sends, by kind (read from the test API server's audit log of `bosun install`
/// and checked in the `cluster` crate):
/// - every object is server-side applied: `patch`, which the API server authorizes as `create`
///   too when the object does not exist yet (both checked, in the object's namespace);
/// - each namespace it writes to is created first (`create namespaces`, sent even when it
///   exists);
/// - CRDs are waited for until Established (`list` and `watch`);
/// - before applying, every applied kind and every kind prune looks at is listed by label in all
///   namespaces at once (cluster-wide `list`: an earlier install may have put objects anywhere);
/// - prune deletes objects of the pruned kinds (`delete`, checked where the render puts them);
/// - the readiness wait reads Deployments, StatefulSets, DaemonSets, Jobs and the webhook
///   configurations (`get`) and lists the EndpointSlices of the Services webhooks call.
///
/// (Listing pods and events to say why a workload is not ready is best effort, so not required.)
pub const WAITED_KINDS: &[(&str, &str)] = &[
    ("apps", "Deployment"),
    ("apps", "StatefulSet"),
    ("apps", "DaemonSet"),
    ("batch", "Job"),
    (
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
    ),
];

fn group_kind(object: &Value) -> (String, String) {
    let api_version = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    let group = api_version
        .split_once('/')
        .map_or("", |(g, _)| g)
        .to_string();
    let kind = object
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    (group, kind)
}

/// Every permission installing `rendered` (every object the install applies, Namespaces and
/// CRDs included) needs, per [`WAITED_KINDS`]'s description. `pruned` are the `(group, kind)`s
/// prune and uninstall look at (`cluster::PRUNED_KINDS` without the purge-only ones);
/// `resources` maps `(group, kind)` to the plural resource name the server serves it under
/// (discovery); kinds it lacks are resolved through the rendered CRDs, else guessed as
/// Kubernetes guesses. Sorted, without repeats.
pub fn required_access(
    rendered: &[Value],
    pruned: &[(String, String)],
    resources: &BTreeMap<(String, String), String>,
) -> Vec<Access> {
    let resource_of = |group: &str, kind: &str| {
        resources
            .get(&(group.to_string(), kind.to_string()))
            .cloned()
            .or_else(|| crd_resource(rendered, group, kind))
            .unwrap_or_else(|| guess_resource(kind))
    };
    let mut out = BTreeSet::new();
    let mut add = |verbs: &[&str], group: &str, resource: &str, namespace: Option<&str>| {
        for verb in verbs {
            out.insert(Access {
                verb: verb.to_string(),
                group: group.to_string(),
                resource: resource.to_string(),
                namespace: namespace.map(str::to_string),
            });
        }
    };
    let mut listed: BTreeSet<(String, String)> = pruned.iter().cloned().collect();
    for object in rendered {
        let (group, kind) = group_kind(object);
        if kind.is_empty() {
            continue;
        }
        let namespace = object
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty());
        let resource = resource_of(&group, &kind);
        if namespace.is_some() {
            // The install creates each target namespace first (a plain create, even when it
            // exists: "already exists" is fine, "forbidden" is not).
            add(&["create"], "", "namespaces", None);
        }
        match (group.as_str(), kind.as_str()) {
            ("", "Namespace") => add(&["create"], "", "namespaces", None),
            ("apiextensions.k8s.io", "CustomResourceDefinition") => add(
                &["create", "patch", "list", "watch"],
                &group,
                &resource,
                None,
            ),
            _ => {
                add(&["create", "patch"], &group, &resource, namespace);
                listed.insert((group.clone(), kind.clone()));
            }
        }
        if pruned.iter().any(|(g, k)| *g == group && *k == kind) {
            add(&["delete"], &group, &resource, namespace);
        }
        if WAITED_KINDS.iter().any(|(g, k)| *g == group && *k == kind) {
            add(&["get"], &group, &resource, namespace);
        }
        for webhook in object
            .get("webhooks")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(ns) = webhook
                .pointer("/clientConfig/service/namespace")
                .and_then(Value::as_str)
            {
                add(&["list"], "discovery.k8s.io", "endpointslices", Some(ns));
            }
        }
    }
    for (group, kind) in &listed {
        add(&["list"], group, &resource_of(group, kind), None);
    }
    out.into_iter().collect()
}

/// The resource name Kubernetes guesses for a kind it has not seen
/// (`meta.UnsafeGuessKindToResource`): lower case; `…endpoints` stays; `s` → `+es`;
/// `y` → `ies`; else `+s`. Used for kinds the render defines in its own CRDs when their
/// `spec.names.plural` is not at hand.
pub fn guess_resource(kind: &str) -> String {
    let lower = kind.to_ascii_lowercase();
    if lower.is_empty() || lower.ends_with("endpoints") {
        return lower;
    }
    if lower.ends_with('s') {
        return format!("{lower}es");
    }
    if let Some(stem) = lower.strip_suffix('y') {
        return format!("{stem}ies");
    }
    format!("{lower}s")
}

/// The plural resource name of `group`/`kind` as one of `crds` (CustomResourceDefinitions, a
/// render's own) defines it.
pub fn crd_resource(crds: &[Value], group: &str, kind: &str) -> Option<String> {
    crds.iter()
        .filter(|c| c.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition"))
        .find(|c| {
            c.pointer("/spec/group").and_then(Value::as_str) == Some(group)
                && c.pointer("/spec/names/kind").and_then(Value::as_str) == Some(kind)
        })
        .and_then(|c| c.pointer("/spec/names/plural").and_then(Value::as_str))
        .map(str::to_string)
}

/// IST0141: one finding per resource (and namespace) with the verbs denied.
pub fn permissions(answers: &[AccessAnswer]) -> Vec<Finding> {
    // (group, resource, namespace) → (verbs denied, the first reason given).
    type Place = (String, String, Option<String>);
    let mut denied: BTreeMap<Place, (Vec<String>, String)> = BTreeMap::new();
    for a in answers.iter().filter(|a| !a.allowed) {
        let key = (
            a.access.group.clone(),
            a.access.resource.clone(),
            a.access.namespace.clone(),
        );
        let entry = denied.entry(key).or_default();
        entry.0.push(a.access.verb.clone());
        if entry.1.is_empty() {
            entry.1 = a.reason.clone();
        }
    }
    denied
        .into_iter()
        .map(|((group, resource, namespace), (verbs, reason))| {
            let reason = if reason.is_empty() {
                "permission denied".to_string()
            } else {
                reason
            };
            let place = match &namespace {
                Some(ns) => format!(" in namespace {ns}"),
                None => String::new(),
            };
            let qualified = if group.is_empty() {
                resource.clone()
            } else {
                format!("{resource}.{group}")
            };
            let scope = match &namespace {
                Some(ns) => format!("a Role in {ns} (or a ClusterRole)"),
                None => "a ClusterRole".to_string(),
            };
            Finding::new(
                "IST0141",
                Level::Error,
                "Cluster",
                format!(
                    "Missing required permission to {} resource {resource}{place} ({reason})",
                    verbs.join(", ")
                ),
                format!(
                    "grant {} on {qualified}{place} to the user running the install: {scope} rule {{apiGroups: [\"{group}\"], resources: [\"{resource}\"], verbs: [{}]}}",
                    verbs.join(", "),
                    verbs.iter().map(|v| format!("\"{v}\"")).collect::<Vec<_>>().join(", ")
                ),
            )
        })
        .collect()
}

/// The API server's `/version`, the fields precheck reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KubernetesVersion {
    pub git_version: String,
    /// `major` and `minor` (`"1"`, `"36"`; some providers write `"36+"`).
    pub major: String,
    pub minor: String,
}

impl KubernetesVersion {
    /// The version compared: `major.minor` when both are numbers (a trailing `+` dropped),
    /// else `gitVersion`. An API server built without release stamping says `v0.0.0-master+…`
    /// in `gitVersion` but its true `major`/`minor`; istioctl reads only `gitVersion` and fails
    /// on such a server ("could not parse malformed version").
    pub fn compared(&self) -> Option<Version> {
        let number = |s: &str| {
            let s = s.trim_end_matches('+');
            (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())).then_some(s.to_string())
        };
        match (number(&self.major), number(&self.minor)) {
            (Some(major), Some(minor)) => Version::parse(&format!("{major}.{minor}")),
            _ => Version::parse(&self.git_version),
        }
    }
}

impl KubernetesVersion {
    /// The version as the catalog's range is judged and messages name it: `gitVersion` when it
    /// says the same minor as [`KubernetesVersion::compared`] (as istioctl names it), else
    /// `major.minor` (an unstamped `v0.0.0-master+…`); none when unreadable.
    pub fn judged(&self) -> Option<String> {
        let v = self.compared()?;
        let same = release::support::minor_of(&self.git_version) == Some((v.major(), v.minor()));
        Some(if same {
            self.git_version.clone()
        } else {
            format!("{}.{}", v.major(), v.minor())
        })
    }
}

/// Why precheck cannot run where istioctl's cannot either, in istioctl's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PrecheckError {
    /// The API server's version reads as no version.
    #[error("could not parse Kubernetes version {git_version:?}")]
    KubernetesVersion { git_version: String },
    /// `--from-version` is not `MAJOR.MINOR`.
    #[error("invalid version {from}, expected format like '1.0'")]
    FromVersionFormat { from: String },
    #[error("expected major version 1, got {from}")]
    FromVersionMajor { from: String },
    #[error("minor version is not a number: {minor}")]
    FromVersionMinor { minor: String },
}

/// IST0142 when the API server is older than [`MIN_KUBERNETES_MINOR`] (the message names its
/// `gitVersion`, as istioctl's does); an error when no version can be read from it.
pub fn kubernetes_version(version: &KubernetesVersion) -> Result<Option<Finding>, PrecheckError> {
    let v = version
        .compared()
        .ok_or_else(|| PrecheckError::KubernetesVersion {
            git_version: version.git_version.clone(),
        })?;
    if v.major() > 1 || v.minor() >= MIN_KUBERNETES_MINOR {
        return Ok(None);
    }
    let git_version = &version.git_version;
    Ok(Some(Finding::new(
        "IST0142",
        Level::Error,
        "Cluster",
        format!(
            "The Kubernetes Version {git_version:?} is lower than the minimum version: 1.{MIN_KUBERNETES_MINOR}"
        ),
        format!(
            "upgrade the cluster to Kubernetes 1.{MIN_KUBERNETES_MINOR} or newer, or install an Istio release that supports {git_version}"
        ),
    )))
}

/// IST0156 and IST0172 (istioctl's `checkGatewayAPIs`) and IST0176 (the analyzer's
/// `CRDVersionAnalyzer`) for the live CRDs `crds`.
pub fn gateway_api(crds: &[Value]) -> Vec<Finding> {
    let mut out = Vec::new();
    let stable = ["Gateway", "GatewayClass", "HTTPRoute", "GRPCRoute"];
    let beta = ["Gateway", "GatewayClass", "HTTPRoute", "ReferenceGrant"];
    let fix = format!(
        "install the Gateway API CRDs of release {GATEWAY_API_VERSION} (standard-install.yaml of sigs.k8s.io/gateway-api), or remove the old ones"
    );
    for crd in crds {
        if crd.pointer("/spec/group").and_then(Value::as_str) != Some(GATEWAY_API_GROUP) {
            continue;
        }
        let name = crd
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        let kind = crd
            .pointer("/spec/names/kind")
            .and_then(Value::as_str)
            .unwrap_or("");
        let origin = format!("CustomResourceDefinition {name}");
        let served = served_versions(crd);
        let has = if served.is_empty() {
            "none".to_string()
        } else {
            served.iter().cloned().collect::<Vec<_>>().join(",")
        };
        if beta.contains(&kind) && !served.contains("v1beta1") {
            out.push(Finding::new(
                "IST0156",
                Level::Error,
                &origin,
                format!(
                    "The Gateway API CRD version {has} is lower than the minimum version: v1beta1"
                ),
                &fix,
            ));
        }
        if stable.contains(&kind) && !served.contains("v1") {
            out.push(Finding::new(
                "IST0172",
                Level::Warning,
                &origin,
                format!("The Gateway API CRD version {has} is lower than the minimum version: v1"),
                &fix,
            ));
        }
        let minimum = GATEWAY_API_MINIMUM_BUNDLE_VERSIONS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v);
        let bundle = crd
            .pointer("/metadata/annotations")
            .and_then(|a| a.get(BUNDLE_VERSION_ANNOTATION))
            .and_then(Value::as_str);
        if let (Some(minimum), Some(bundle)) = (minimum, bundle)
            && let (Some(installed), Some(min)) = (Version::parse(bundle), Version::parse(minimum))
        {
            // The analyzer compares with the pre-release dropped (v1.5.0-rc.1 counts as 1.5.0)
            // and prints the installed version without its `v`.
            let release = bundle.trim_start_matches('v');
            let release = release.split(['-', '+']).next().unwrap_or(release);
            let stripped = Version::parse(release).unwrap_or(installed);
            if stripped < min {
                out.push(Finding::new(
                    "IST0176",
                    Level::Warning,
                    &origin,
                    format!(
                        "Gateway API CRD {name:?} is at version {:?} but Istio requires at least {minimum:?}; resources of this kind will not be processed. Upgrade the Gateway API CRDs to satisfy the minimum version.",
                        bundle.trim_start_matches('v').split('+').next().unwrap_or(bundle)
                    ),
                    &fix,
                ));
            }
        }
    }
    out
}

/// What the install about to happen would be (precheck renders the same inputs).
#[derive(Debug, Clone, Default)]
pub struct Install {
    /// Its revision (`default` without one).
    pub revision: String,
    /// The Istio version of the charts it renders.
    pub version: String,
    /// Its sidecar injectors' overlaps with live injectors of other revisions (each
    /// `cluster::overlap::Overlap`, as text), by the rendered configuration's name.
    pub overlaps: Vec<(String, String)>,
    /// The CRDs it would downgrade.
    pub crd_downgrades: Vec<CrdDowngrade>,
}

/// BOSUN-PRE001 for each installed revision, BOSUN-PRE002 when the install breaks Istio's
/// upgrade rules against it (`release::support::upgrade`), BOSUN-PRE005 for revisions in use that have
/// no istiod or injector (never installed, or only their Base objects left).
pub fn control_planes(inventory: &Inventory, install: Option<&Install>) -> Vec<Finding> {
    let mut out = Vec::new();
    for r in &inventory.revisions {
        let origin = format!("Revision {}", r.revision);
        if r.installed {
            let versions = if r.versions.is_empty() {
                "unknown".to_string()
            } else {
                r.versions.join(", ")
            };
            let place = if r.istiod_namespaces.is_empty() {
                String::new()
            } else {
                format!(" in {}", r.istiod_namespaces.join(", "))
            };
            out.push(Finding::new(
                "BOSUN-PRE001",
                Level::Info,
                &origin,
                format!(
                    "Control plane revision {} (Istio {versions}) is installed{place} with components {}",
                    r.revision,
                    if r.components.is_empty() { "none".to_string() } else { r.components.join(", ") }
                ),
                "nothing to do; `bosun revision list` shows what uses it",
            ));
            // Only a control plane (istiod or an injector) is upgraded: Base objects that
            // `uninstall --revision` leaves behind are not.
            let control_plane = !r.istiod_namespaces.is_empty() || !r.injectors.is_empty();
            if let Some(install) = install.filter(|_| control_plane) {
                for live in &r.versions {
                    if let Some(concern) = release::support::upgrade(
                        &r.revision,
                        live,
                        &install.revision,
                        &install.version,
                    ) {
                        out.push(Finding::new(
                            "BOSUN-PRE002",
                            Level::Error,
                            &origin,
                            concern.to_string(),
                            concern.fix(),
                        ));
                    }
                }
            }
        }
        if r.in_use() && r.istiod_namespaces.is_empty() && r.injectors.is_empty() {
            let mut users = Vec::new();
            if !r.tags.is_empty() {
                users.push(format!("tags {}", r.tags.join(", ")));
            }
            if !r.namespaces.is_empty() {
                users.push(format!(
                    "namespaces {}",
                    r.namespaces
                        .iter()
                        .map(|n| n.namespace.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            if !r.pods.is_empty() {
                users.push(format!("{} pods' proxies", r.pods.len()));
            }
            out.push(Finding::new(
                "BOSUN-PRE005",
                Level::Warning,
                &origin,
                format!(
                    "Revision {} has no istiod or sidecar injector, but {} use it",
                    r.revision,
                    users.join(", ")
                ),
                format!(
                    "install revision {} again, or point the tags and namespaces at an installed revision and restart the pods",
                    r.revision
                ),
            ));
        }
    }
    out
}

/// IST0139 for each rendered injector configuration that overlaps live ones (istioctl's
/// webhook analyzer's message, with bosun's exact witness).
pub fn injector_overlaps(overlaps: &[(String, String)]) -> Vec<Finding> {
    overlaps
        .iter()
        .map(|(configuration, description)| {
            Finding::new(
                "IST0139",
                Level::Error,
                format!("MutatingWebhookConfiguration {configuration}"),
                format!(
                    "Webhook overlaps with others: {description}. This may cause injection to occur twice."
                ),
                "give the new revision injectors that select other namespaces and pods (its own istio.io/rev), or remove or relabel the other revision's webhooks",
            )
        })
        .collect()
}

/// BOSUN-PRE003 for each CRD the install would downgrade.
pub fn crd_downgrades(downgrades: &[CrdDowngrade]) -> Vec<Finding> {
    downgrades
        .iter()
        .map(|d| {
            Finding::new(
                "BOSUN-PRE003",
                Level::Error,
                format!("CustomResourceDefinition {}", d.name),
                format!("The install would replace this CRD with an older one: {d}"),
                "install with charts at least as new as the cluster's (-d/--manifests), or pass --force to install to downgrade the CRDs",
            )
        })
        .collect()
}

/// BOSUN-PRE004: `check` could not run because of `error`.
pub fn skipped(check: &str, error: &str) -> Finding {
    Finding::new(
        "BOSUN-PRE004",
        Level::Warning,
        "Cluster",
        format!("Could not check {check}: {error}"),
        "run precheck as a user who can read these objects, or check this by hand",
    )
}

/// BOSUN-PRE009 for each Helm release of Istio's charts that holds objects the install
/// renders: `origin` is the release (`Helm release istio-system/istiod`), `described` what it
/// is (chart, revision, status).
pub fn helm_installed(releases: &[(String, String)]) -> Vec<Finding> {
    releases
        .iter()
        .map(|(origin, described)| {
            Finding::new(
                "BOSUN-PRE009",
                Level::Warning,
                origin.clone(),
                format!("Istio was installed by helm here ({described}); an install over it is refused unless it adopts it"),
                "install with --adopt to hand its objects to bosun (bosun install --plan --adopt shows what changes), or keep upgrading it with helm",
            )
        })
        .collect()
}

/// istioctl's `--from-version` check: IST0169 when `from` is 1.21 or older and the Service
/// `istio-system/zipkin` exists. An error when `from` is not `1.<minor>`, in istioctl's words.
pub fn from_version(from: &str, zipkin_exists: bool) -> Result<Vec<Finding>, PrecheckError> {
    let (major, minor) = from
        .split_once('.')
        .ok_or_else(|| PrecheckError::FromVersionFormat {
            from: from.to_string(),
        })?;
    if major != "1" {
        return Err(PrecheckError::FromVersionMajor {
            from: from.to_string(),
        });
    }
    let minor: i64 = minor.parse().map_err(|_| PrecheckError::FromVersionMinor {
        minor: minor.to_string(),
    })?;
    if minor > 21 || !zipkin_exists {
        return Ok(Vec::new());
    }
    Ok(vec![Finding::new(
        "IST0169",
        Level::Warning,
        "Service istio-system/zipkin",
        "The configuration \"meshConfig.defaultConfig.tracer\" changed in release 1.21: tracing is no longer by default enabled to send to 'zipkin.istio-system.svc'; follow https://istio.io/latest/docs/tasks/observability/distributed-tracing/telemetry-api/. Or, install with `--set compatibilityVersion=1.21` to retain the old default.",
        "configure tracing with the Telemetry API, or install with --set compatibilityVersion=1.21",
    )])
}

/// Everything precheck read, for [`precheck`].
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// The API server's version.
    pub kubernetes_version: KubernetesVersion,
    pub access: Vec<AccessAnswer>,
    /// The live CRDs (all of them, for the Gateway API checks).
    pub crds: Vec<Value>,
    pub inventory: Option<Inventory>,
    pub install: Option<Install>,
    /// `--from-version` and whether `istio-system/zipkin` exists.
    pub from_version: Option<(String, bool)>,
    /// Checks that could not run: (what, why).
    pub skipped: Vec<(String, String)>,
    /// What the catalog says of the release installed on this cluster, on the day precheck
    /// runs (`release::support::lifecycle`); none when not judged (the pinned minimum
    /// Kubernetes version is checked then).
    pub lifecycle: Option<Vec<release::support::Concern>>,
}

/// BOSUN-PRE006, BOSUN-PRE007, IST0142 and BOSUN-PRE008 for what the catalog says of the
/// release installed.
pub fn lifecycle(concerns: &[release::support::Concern]) -> Vec<Finding> {
    use release::support::Concern;
    concerns
        .iter()
        .filter_map(|c| {
            let (code, level) = match c {
                Concern::NotInCatalog { .. } => ("BOSUN-PRE006", Level::Info),
                Concern::EndOfLife { .. } => ("BOSUN-PRE007", Level::Error),
                Concern::KubernetesTooOld { .. } => ("IST0142", Level::Error),
                Concern::KubernetesTooNew { .. } => ("BOSUN-PRE008", Level::Warning),
                // The upgrade rules are judged per revision (`control_planes`).
                _ => return None,
            };
            Some(Finding::new(code, level, "Cluster", c.to_string(), c.fix()))
        })
        .collect()
}

/// Every finding for `facts`, sorted (see [`sort_findings`]). An error only where istioctl
/// fails too: an unreadable Kubernetes version or `--from-version`.
pub fn precheck(facts: &Facts) -> Result<Vec<Finding>, PrecheckError> {
    let mut out = Vec::new();
    // The catalog's range replaces the pinned minimum when it knows the release; the version
    // must be readable either way.
    let pinned = kubernetes_version(&facts.kubernetes_version)?;
    let judged = facts.lifecycle.as_ref().is_some_and(|concerns| {
        !concerns
            .iter()
            .any(|c| matches!(c, release::support::Concern::NotInCatalog { .. }))
    });
    if !judged {
        out.extend(pinned);
    }
    out.extend(lifecycle(facts.lifecycle.as_deref().unwrap_or_default()));
    out.extend(permissions(&facts.access));
    out.extend(gateway_api(&facts.crds));
    if let Some(inventory) = &facts.inventory {
        out.extend(control_planes(inventory, facts.install.as_ref()));
    }
    if let Some(install) = &facts.install {
        out.extend(injector_overlaps(&install.overlaps));
        out.extend(crd_downgrades(&install.crd_downgrades));
    }
    if let Some((from, zipkin)) = &facts.from_version {
        out.extend(from_version(from, *zipkin)?);
    }
    for (check, error) in &facts.skipped {
        out.push(skipped(check, error));
    }
    sort_findings(&mut out);
    Ok(out)
}

/// What precheck's exit status is for `findings` (documented in `bosun precheck --help`):
/// 1 when any is an Error, or a Warning with `fail_on_warning`; else 0. (2, "could not run",
/// is the command's.)
pub fn exit_code(findings: &[Finding], fail_on_warning: bool) -> u8 {
    let worst = findings.iter().map(|f| f.level).max();
    match worst {
        Some(Level::Error) => 1,
        Some(Level::Warning) if fail_on_warning => 1,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::revisions::{LiveObject, inventory};

    fn answer(v: &Value) -> AccessAnswer {
        let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        AccessAnswer {
            access: Access {
                verb: s("verb"),
                group: s("group"),
                resource: s("resource"),
                namespace: v
                    .get("namespace")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            },
            allowed: v.get("allowed").and_then(Value::as_bool).unwrap_or(false),
            reason: s("reason"),
        }
    }

    fn facts(case: &Value) -> Facts {
        let list = |key: &str| {
            case.get(key)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        };
        let install = case.get("install").map(|i| Install {
            revision: i
                .get("revision")
                .and_then(Value::as_str)
                .unwrap_or("default")
                .to_string(),
            version: i
                .get("version")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            overlaps: i
                .get("overlaps")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|o| {
                    (
                        o["configuration"].as_str().unwrap().to_string(),
                        o["description"].as_str().unwrap().to_string(),
                    )
                })
                .collect(),
            crd_downgrades: crate::crds::downgrades(
                &i.get("rendered_crds")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default(),
                &list("crds"),
            ),
        });
        let objects: Option<Vec<LiveObject>> = case
            .get("objects")
            .map(|o| serde_json::from_value(o.clone()).expect("objects"));
        Facts {
            kubernetes_version: {
                let v = case.get("kubernetes_version");
                let field = |k: &str, default: &str| {
                    v.and_then(|v| v.get(k))
                        .and_then(Value::as_str)
                        .unwrap_or(default)
                        .to_string()
                };
                KubernetesVersion {
                    git_version: field("gitVersion", "v1.36.3"),
                    major: field("major", ""),
                    minor: field("minor", ""),
                }
            },
            access: list("access").iter().map(answer).collect(),
            crds: list("crds"),
            inventory: objects.as_deref().map(inventory),
            install,
            from_version: case.get("from_version").map(|f| {
                (
                    f["version"].as_str().unwrap().to_string(),
                    f["zipkin"].as_bool().unwrap_or(false),
                )
            }),
            skipped: list("skipped")
                .iter()
                .map(|s| {
                    (
                        s["check"].as_str().unwrap().to_string(),
                        s["error"].as_str().unwrap().to_string(),
                    )
                })
                .collect(),
            // `today` and `catalog` (a catalog of the shape of release's catalog.json, fixed in
            // the case so it does not move when bosun's is updated): the catalog's judgement.
            lifecycle: case.get("today").map(|today| {
                let today = release::support::Date::parse(today.as_str().unwrap()).expect("today");
                let catalog =
                    release::Catalog::parse(&case["catalog"].to_string()).expect("catalog");
                let version = case["install"]["version"].as_str().unwrap();
                let kubernetes = case
                    .pointer("/kubernetes_version/gitVersion")
                    .and_then(Value::as_str)
                    .unwrap_or("v1.36.3");
                release::support::lifecycle(&catalog, version, Some(kubernetes), today)
            }),
        }
    }

    #[test]
    fn from_version_errors_keep_what_was_given() {
        assert_eq!(
            from_version("2.0", false).unwrap_err(),
            PrecheckError::FromVersionMajor { from: "2.0".into() }
        );
        assert_eq!(
            from_version("1.x", false).unwrap_err().to_string(),
            "minor version is not a number: x"
        );
        assert_eq!(
            from_version("1", false).unwrap_err().to_string(),
            "invalid version 1, expected format like '1.0'"
        );
    }

    /// Every case in `tests/cases/assess/precheck`: the facts precheck read (see [`facts`]
    /// above for the keys) and either the expected `findings` (each `code`, `level`, `origin`,
    /// `message`, `fix`; a `fix` left out is not compared) and `exit` (and `exit_fail_on_warning`),
    /// or the expected `error`.
    #[test]
    fn precheck_cases() {
        let mut failures = Vec::new();
        for (name, case) in crate::cases::yaml_cases("precheck", 10) {
            let got = precheck(&facts(&case));
            if let Some(want) = case.get("error").and_then(Value::as_str) {
                match got {
                    Err(e) if e.to_string() == want => {}
                    other => failures.push(format!("{name}: want error {want:?}, got {other:?}")),
                }
                continue;
            }
            let got = match got {
                Ok(f) => f,
                Err(e) => {
                    failures.push(format!("{name}: {e}"));
                    continue;
                }
            };
            let want = case
                .get("findings")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let mut got_json: Vec<Value> = got
                .iter()
                .map(|f| serde_json::to_value(f).unwrap())
                .collect();
            for (g, w) in got_json.iter_mut().zip(&want) {
                if w.get("fix").is_none() {
                    g.as_object_mut().unwrap().remove("fix");
                }
            }
            for f in &got {
                let known = f.code.starts_with("BOSUN-PRE")
                    || ISTIO_MESSAGES
                        .iter()
                        .any(|(code, _, level)| *code == f.code && *level == f.level);
                if !known {
                    failures.push(format!(
                        "{name}: {} at level {} is not in ISTIO_MESSAGES",
                        f.code, f.level
                    ));
                }
            }
            if got_json != want {
                failures.push(format!(
                    "{name}: findings\n got: {}\nwant: {}",
                    serde_json::to_string_pretty(&got_json).unwrap(),
                    serde_json::to_string_pretty(&want).unwrap()
                ));
            }
            for (key, fail_on_warning) in [("exit", false), ("exit_fail_on_warning", true)] {
                if let Some(code) = case.get(key).and_then(Value::as_u64) {
                    let got = exit_code(&got, fail_on_warning);
                    if u64::from(got) != code {
                        failures.push(format!("{name}: {key} {got}, want {code}"));
                    }
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    }

    #[test]
    fn required_access_follows_what_install_sends() {
        let rendered = [
            serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "istio-system"}}),
            serde_json::json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "metadata": {"name": "envoyfilters.networking.istio.io"},
                "spec": {"group": "networking.istio.io", "names": {"kind": "EnvoyFilter", "plural": "envoyfilters"}}}),
            serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "istiod", "namespace": "istio-system"}}),
            serde_json::json!({"apiVersion": "networking.istio.io/v1alpha3", "kind": "EnvoyFilter", "metadata": {"name": "f", "namespace": "istio-system"}}),
            serde_json::json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration",
                "metadata": {"name": "istio-sidecar-injector"},
                "webhooks": [{"clientConfig": {"service": {"name": "istiod", "namespace": "istio-system"}}}]}),
        ];
        let pruned = [
            ("apps", "Deployment"),
            ("", "Secret"),
            (
                "admissionregistration.k8s.io",
                "MutatingWebhookConfiguration",
            ),
        ]
        .map(|(g, k)| (g.to_string(), k.to_string()));
        let resources: BTreeMap<(String, String), String> = [
            (("apps", "Deployment"), "deployments"),
            (("", "Secret"), "secrets"),
            (
                (
                    "admissionregistration.k8s.io",
                    "MutatingWebhookConfiguration",
                ),
                "mutatingwebhookconfigurations",
            ),
            (
                ("apiextensions.k8s.io", "CustomResourceDefinition"),
                "customresourcedefinitions",
            ),
        ]
        .into_iter()
        .map(|((g, k), r)| ((g.to_string(), k.to_string()), r.to_string()))
        .collect();
        let got = required_access(&rendered, &pruned, &resources);
        let show: Vec<String> = got
            .iter()
            .map(|a| {
                format!(
                    "{} {}/{} {}",
                    a.verb,
                    a.group,
                    a.resource,
                    a.namespace.as_deref().unwrap_or("*")
                )
            })
            .collect();
        assert_eq!(
            show,
            [
                "create /namespaces *",
                "create admissionregistration.k8s.io/mutatingwebhookconfigurations *",
                "create apiextensions.k8s.io/customresourcedefinitions *",
                "create apps/deployments istio-system",
                "create networking.istio.io/envoyfilters istio-system",
                "delete admissionregistration.k8s.io/mutatingwebhookconfigurations *",
                "delete apps/deployments istio-system",
                "get admissionregistration.k8s.io/mutatingwebhookconfigurations *",
                "get apps/deployments istio-system",
                "list /secrets *",
                "list admissionregistration.k8s.io/mutatingwebhookconfigurations *",
                "list apiextensions.k8s.io/customresourcedefinitions *",
                "list apps/deployments *",
                "list discovery.k8s.io/endpointslices istio-system",
                "list networking.istio.io/envoyfilters *",
                "patch admissionregistration.k8s.io/mutatingwebhookconfigurations *",
                "patch apiextensions.k8s.io/customresourcedefinitions *",
                "patch apps/deployments istio-system",
                "patch networking.istio.io/envoyfilters istio-system",
                "watch apiextensions.k8s.io/customresourcedefinitions *",
            ]
        );
    }

    #[test]
    fn guesses_resources_as_kubernetes_does() {
        // Kubernetes' guess is naive ("gatewaies"): kinds of the render's own CRDs are
        // resolved through `spec.names.plural` first (`crd_resource`).
        for (kind, resource) in [
            ("Gateway", "gatewaies"),
            ("EnvoyFilter", "envoyfilters"),
            ("NetworkPolicy", "networkpolicies"),
            ("Ingress", "ingresses"),
            ("Endpoints", "endpoints"),
            ("Mesh", "meshs"),
        ] {
            assert_eq!(guess_resource(kind), resource);
        }
    }

    #[test]
    fn resources_of_rendered_crds() {
        let crds = [serde_json::json!({"kind": "CustomResourceDefinition",
            "spec": {"group": "networking.istio.io", "names": {"kind": "Gateway", "plural": "gateways"}}})];
        assert_eq!(
            crd_resource(&crds, "networking.istio.io", "Gateway").as_deref(),
            Some("gateways")
        );
        assert_eq!(
            crd_resource(&crds, "gateway.networking.k8s.io", "Gateway"),
            None
        );
    }

    #[test]
    fn documentation_urls_follow_istioctl() {
        let f = Finding::new("IST0141", Level::Error, "Cluster", "m", "f");
        assert_eq!(
            f.documentation_url("1.31").as_deref(),
            Some("https://istio.io/v1.31/docs/reference/config/analysis/ist0141/")
        );
        let b = Finding::new("BOSUN-PRE001", Level::Info, "Cluster", "m", "f");
        assert_eq!(b.documentation_url("1.31"), None);
        assert_eq!(f.documentation_url("unknown"), None);
    }
}
