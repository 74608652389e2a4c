//! Whether two sidecar injectors would both inject the same pod: a pure decision over the
//! webhooks' label selectors, no I/O ([`Client::webhook_overlaps`](crate::Client) fetches the
//! live side and calls [`find_overlaps`]).
//!
//! istioctl (`CheckWebhooks`) tries nine fixed namespace label sets against nine pod label sets
//! and so misses overlaps on any other label. This decides exactly: two webhooks overlap when
//! some namespace's labels satisfy both namespace selectors *and* some pod's labels satisfy both
//! object selectors. A selector is a conjunction of per-key requirements, so the question splits
//! by key: for each key, is there one value (or absence) that every requirement on that key
//! accepts? Each requirement accepts "absent" or not, plus either a finite set of values
//! (`In`, `matchLabels`, `DoesNotExist` = none) or all values but a finite set (`NotIn`,
//! `Exists` = all); intersections of those stay in that form, so satisfiability is decided and a
//! witness (the smallest label set) falls out.
//!
//! The API server's semantics (k8s.io/apimachinery `labels.Selector`, as admission uses it):
//! a missing selector is the empty one and matches everything; `matchLabels: {k: v}` needs `k`
//! present with value `v`; `In` needs the key present with a listed value; `NotIn` matches when
//! the key is absent or its value is not listed; `Exists`/`DoesNotExist` test presence only.
//! `In`/`NotIn` with no values and `Exists`/`DoesNotExist` with values are invalid, as the server
//! says. Every namespace carries `kubernetes.io/metadata.name` (the API server sets it), so a
//! namespace witness always has it and a selector demanding its absence matches no namespace.
//!
//! Only webhooks that can mutate pod creation count (their rules cover `CREATE` of core `v1`
//! `pods`), and only in MutatingWebhookConfigurations of sidecar injectors (label
//! `app: sidecar-injector`, or a webhook named `…sidecar-injector.istio.io`); the revision is the
//! configuration's `istio.io/rev` label (`default` when missing), as Istio's charts and revision
//! tags set it. `matchConditions` (CEL) can only narrow a match and are not evaluated; an
//! overlap involving them says so. A webhook istioctl deactivated (when it moves the default
//! tag, `DeactivateIstioInjectionWebhook` sets its selectors to `NeverMatch`,
//! `matchLabels: {istio.io/deactivated: never-match}`) injects nothing and is skipped: the
//! label is Istio's reserved marker, which no namespace or pod is meant to carry.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::Value;
use vocab::labels::{DEACTIVATED_LABEL, DEACTIVATED_VALUE, NAMESPACE_NAME_LABEL};

/// Labels as a sorted map (the order people read them in).
pub type Labels = BTreeMap<String, String>;

/// A label selector that the API server would reject, or a webhook configuration that is not
/// one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{context}: {reason}")]
pub struct SelectorError {
    /// Where: `MutatingWebhookConfiguration NAME webhook W namespaceSelector`.
    pub context: String,
    pub reason: String,
}

/// One requirement of a selector, as the API server evaluates it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Requirement {
    /// `In` (and `matchLabels`, which is `In` with one value).
    In(String, BTreeSet<String>),
    NotIn(String, BTreeSet<String>),
    Exists(String),
    DoesNotExist(String),
}

impl Requirement {
    fn key(&self) -> &str {
        match self {
            Requirement::In(k, _)
            | Requirement::NotIn(k, _)
            | Requirement::Exists(k)
            | Requirement::DoesNotExist(k) => k,
        }
    }

    fn matches(&self, labels: &Labels) -> bool {
        let value = labels.get(self.key());
        match self {
            Requirement::In(_, values) => value.is_some_and(|v| values.contains(v)),
            Requirement::NotIn(_, values) => value.is_none_or(|v| !values.contains(v)),
            Requirement::Exists(_) => value.is_some(),
            Requirement::DoesNotExist(_) => value.is_none(),
        }
    }
}

/// A parsed label selector: all requirements must hold. No requirements match everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selector {
    pub requirements: Vec<Requirement>,
}

impl Selector {
    /// Parses a `metav1.LabelSelector` as JSON; `None` (or `null`) is a missing selector, which
    /// matches everything.
    pub fn parse(selector: Option<&Value>, context: &str) -> Result<Selector, SelectorError> {
        let invalid = |reason: String| SelectorError {
            context: context.to_string(),
            reason,
        };
        let Some(selector) = selector.filter(|s| !s.is_null()) else {
            return Ok(Selector::default());
        };
        let map = selector
            .as_object()
            .ok_or_else(|| invalid("not a label selector (an object)".into()))?;
        let mut requirements = Vec::new();
        if let Some(labels) = map.get("matchLabels").filter(|v| !v.is_null()) {
            let labels = labels
                .as_object()
                .ok_or_else(|| invalid("matchLabels is not a map".into()))?;
            for (key, value) in labels {
                let value = value
                    .as_str()
                    .ok_or_else(|| invalid(format!("matchLabels.{key} is not a string")))?;
                requirements.push(Requirement::In(key.clone(), [value.to_string()].into()));
            }
        }
        if let Some(expressions) = map.get("matchExpressions").filter(|v| !v.is_null()) {
            let expressions = expressions
                .as_array()
                .ok_or_else(|| invalid("matchExpressions is not a list".into()))?;
            for (i, e) in expressions.iter().enumerate() {
                let field = |name: &str| e.get(name).and_then(Value::as_str).unwrap_or("");
                let key = field("key").to_string();
                if key.is_empty() {
                    return Err(invalid(format!("matchExpressions[{i}] has no key")));
                }
                let values: BTreeSet<String> = match e.get("values") {
                    None | Some(Value::Null) => BTreeSet::new(),
                    Some(Value::Array(items)) => items
                        .iter()
                        .map(|v| {
                            v.as_str().map(str::to_string).ok_or_else(|| {
                                invalid(format!("matchExpressions[{i}].values holds a non-string"))
                            })
                        })
                        .collect::<Result<_, _>>()?,
                    Some(_) => {
                        return Err(invalid(format!(
                            "matchExpressions[{i}].values is not a list"
                        )));
                    }
                };
                let operator = field("operator");
                let requirement = match operator {
                    "In" | "NotIn" if values.is_empty() => {
                        return Err(invalid(format!(
                            "matchExpressions[{i}] ({key} {operator}): values set can't be empty for 'in', 'notin' operators"
                        )));
                    }
                    "Exists" | "DoesNotExist" if !values.is_empty() => {
                        return Err(invalid(format!(
                            "matchExpressions[{i}] ({key} {operator}): values set must be empty for 'exists', 'doesnotexist' operators"
                        )));
                    }
                    "In" => Requirement::In(key, values),
                    "NotIn" => Requirement::NotIn(key, values),
                    "Exists" => Requirement::Exists(key),
                    "DoesNotExist" => Requirement::DoesNotExist(key),
                    other => {
                        return Err(invalid(format!(
                            "matchExpressions[{i}]: {other:?} is not a valid label selector operator"
                        )));
                    }
                };
                requirements.push(requirement);
            }
        }
        Ok(Selector { requirements })
    }

    /// Whether `labels` satisfy every requirement (the API server's `Selector.Matches`).
    pub fn matches(&self, labels: &Labels) -> bool {
        self.requirements.iter().all(|r| r.matches(labels))
    }

    /// Whether it requires istioctl's deactivation marker (see the module docs).
    pub fn is_deactivated(&self) -> bool {
        let (key, value) = (DEACTIVATED_LABEL, DEACTIVATED_VALUE);
        self.requirements.iter().any(|r| {
            matches!(r, Requirement::In(k, values) if k == key && values.len() == 1 && values.contains(value))
        })
    }
}

/// The values one key may take: a finite set, or anything but a finite set.
#[derive(Debug, Clone)]
enum Values {
    Only(BTreeSet<String>),
    AllBut(BTreeSet<String>),
}

/// What every requirement on one key accepts together.
#[derive(Debug, Clone)]
struct KeyConstraint {
    absent_ok: bool,
    values: Values,
}

impl KeyConstraint {
    fn anything() -> KeyConstraint {
        KeyConstraint {
            absent_ok: true,
            values: Values::AllBut(BTreeSet::new()),
        }
    }

    fn of(r: &Requirement) -> KeyConstraint {
        let (absent_ok, values) = match r {
            Requirement::In(_, v) => (false, Values::Only(v.clone())),
            Requirement::NotIn(_, v) => (true, Values::AllBut(v.clone())),
            Requirement::Exists(_) => (false, Values::AllBut(BTreeSet::new())),
            Requirement::DoesNotExist(_) => (true, Values::Only(BTreeSet::new())),
        };
        KeyConstraint { absent_ok, values }
    }

    fn and(self, other: KeyConstraint) -> KeyConstraint {
        use Values::*;
        let values = match (self.values, other.values) {
            (Only(a), Only(b)) => Only(a.intersection(&b).cloned().collect()),
            (Only(a), AllBut(b)) | (AllBut(b), Only(a)) => {
                Only(a.difference(&b).cloned().collect())
            }
            (AllBut(a), AllBut(b)) => AllBut(a.union(&b).cloned().collect()),
        };
        KeyConstraint {
            absent_ok: self.absent_ok && other.absent_ok,
            values,
        }
    }

    /// The simplest assignment this accepts: absence when allowed (a witness with fewer
    /// labels reads better), else the first allowed value; `None` when nothing is accepted.
    fn pick(&self, placeholder: &str) -> Option<Option<String>> {
        if self.absent_ok {
            return Some(None);
        }
        match &self.values {
            Values::Only(set) => set.iter().next().map(|v| Some(v.clone())),
            Values::AllBut(excluded) => (0..)
                .map(|n| match n {
                    0 => placeholder.to_string(),
                    n => format!("{placeholder}-{n}"),
                })
                .find(|v| !excluded.contains(v))
                .map(Some),
        }
    }
}

/// A label set satisfying all `selectors` at once, with `present` keys (labels the object is
/// known to carry) present; `None` when no label set does. `placeholder` is the value a key
/// gets when any value would do.
pub fn joint_labels(
    selectors: &[&Selector],
    present: &[&str],
    placeholder: &str,
) -> Option<Labels> {
    let mut by_key: BTreeMap<&str, KeyConstraint> = BTreeMap::new();
    for key in present {
        by_key.insert(
            key,
            KeyConstraint::of(&Requirement::Exists(key.to_string())),
        );
    }
    for r in selectors.iter().flat_map(|s| &s.requirements) {
        let c = by_key
            .remove(r.key())
            .unwrap_or_else(KeyConstraint::anything)
            .and(KeyConstraint::of(r));
        by_key.insert(r.key(), c);
    }
    let mut labels = Labels::new();
    for (key, constraint) in by_key {
        if let Some(value) = constraint.pick(placeholder)? {
            labels.insert(key.to_string(), value);
        }
    }
    Some(labels)
}

/// A namespace and a pod that two webhooks would both inject.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Witness {
    /// The namespace's labels (with [`NAMESPACE_NAME_LABEL`], whose value is its name).
    pub namespace: Labels,
    pub pod: Labels,
}

/// A namespace + pod that both webhooks match, or `None` when no pod is matched by both.
pub fn witness(
    (a_namespace, a_object): (&Selector, &Selector),
    (b_namespace, b_object): (&Selector, &Selector),
) -> Option<Witness> {
    Some(Witness {
        namespace: joint_labels(
            &[a_namespace, b_namespace],
            &[NAMESPACE_NAME_LABEL],
            "example",
        )?,
        pod: joint_labels(&[a_object, b_object], &[], "example")?,
    })
}

/// One injecting webhook of a sidecar-injector MutatingWebhookConfiguration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InjectorWebhook {
    /// The MutatingWebhookConfiguration's name.
    pub configuration: String,
    /// The webhook's name inside it.
    pub webhook: String,
    /// The configuration's `istio.io/rev` label (`default` when missing).
    pub revision: String,
    pub namespace_selector: Selector,
    pub object_selector: Selector,
    /// Whether it has `matchConditions` (CEL expressions, which this check does not evaluate:
    /// they can only narrow what the selectors match).
    pub has_match_conditions: bool,
}

impl fmt::Display for InjectorWebhook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "MutatingWebhookConfiguration {} webhook {} (revision {})",
            self.configuration, self.webhook, self.revision
        )
    }
}

fn strings(v: Option<&Value>) -> impl Iterator<Item = &str> {
    v.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

/// Whether a webhook's rules cover creating core pods (the only thing injection does): a rule
/// with `CREATE`, group `""`, version `v1`, resource `pods` (or wildcards) and a scope that
/// includes namespaced objects.
fn intercepts_pod_creation(webhook: &Value) -> bool {
    pod_rules(webhook).any(|rule| {
        let has = |field: &str, wanted: &[&str]| {
            strings(rule.get(field)).any(|s| s == "*" || wanted.contains(&s))
        };
        let scope = rule.get("scope").and_then(Value::as_str).unwrap_or("*");
        has("operations", &["CREATE"])
            && has("apiGroups", &[""])
            && has("apiVersions", &["v1"])
            && has("resources", &["pods", "*/*"])
            && matches!(scope, "*" | "Namespaced")
    })
}

fn pod_rules(webhook: &Value) -> impl Iterator<Item = &Value> {
    webhook
        .get("rules")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// The pod-injecting webhooks of `mwc`, when it is a sidecar injector's
/// MutatingWebhookConfiguration (see the module docs); empty for anything else.
pub fn injector_webhooks(mwc: &Value) -> Result<Vec<InjectorWebhook>, SelectorError> {
    if mwc.get("kind").and_then(Value::as_str) != Some("MutatingWebhookConfiguration") {
        return Ok(Vec::new());
    }
    let configuration = mwc
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let label = |name: &str| {
        mwc.pointer("/metadata/labels")
            .and_then(|l| l.get(name))
            .and_then(Value::as_str)
    };
    let webhooks: Vec<&Value> = mwc
        .get("webhooks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .collect();
    let name_of = |w: &Value| {
        w.get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let is_injector = label("app") == Some("sidecar-injector")
        || webhooks
            .iter()
            .any(|w| name_of(w).ends_with("sidecar-injector.istio.io"));
    if !is_injector {
        return Ok(Vec::new());
    }
    let revision = label(vocab::labels::REVISION_LABEL)
        .filter(|r| !r.is_empty())
        .unwrap_or(vocab::labels::DEFAULT_REVISION)
        .to_string();
    let mut out = Vec::new();
    for w in webhooks {
        if !intercepts_pod_creation(w) {
            continue;
        }
        let webhook = name_of(w);
        let context = |field: &str| {
            format!("MutatingWebhookConfiguration {configuration} webhook {webhook} {field}")
        };
        let namespace_selector =
            Selector::parse(w.get("namespaceSelector"), &context("namespaceSelector"))?;
        let object_selector = Selector::parse(w.get("objectSelector"), &context("objectSelector"))?;
        if namespace_selector.is_deactivated() || object_selector.is_deactivated() {
            continue;
        }
        out.push(InjectorWebhook {
            namespace_selector,
            object_selector,
            configuration: configuration.clone(),
            webhook,
            revision: revision.clone(),
            has_match_conditions: w
                .get("matchConditions")
                .and_then(Value::as_array)
                .is_some_and(|c| !c.is_empty()),
        });
    }
    Ok(out)
}

/// Two webhooks of different revisions that would both inject the witness's pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overlap {
    /// The webhook about to be installed.
    pub rendered: InjectorWebhook,
    /// The one already in the cluster.
    pub live: InjectorWebhook,
    pub witness: Witness,
}

fn show_labels(labels: &Labels) -> String {
    if labels.is_empty() {
        return "{} (no labels)".to_string();
    }
    let pairs: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{{{}}}", pairs.join(", "))
}

impl fmt::Display for Overlap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns_name = self
            .witness
            .namespace
            .get(NAMESPACE_NAME_LABEL)
            .map(String::as_str)
            .unwrap_or("example");
        write!(
            f,
            "{} (to install) and {} (in the cluster) would both inject a pod with labels {} created in a namespace {ns_name} with labels {}",
            self.rendered,
            self.live,
            show_labels(&self.witness.pod),
            show_labels(&self.witness.namespace),
        )?;
        if self.rendered.has_match_conditions || self.live.has_match_conditions {
            f.write_str(
                " (unless their matchConditions, which are not evaluated here, exclude it)",
            )?;
        }
        Ok(())
    }
}

/// Every pair of a rendered and a live injector webhook of different revisions that both
/// match some namespace + pod. Live configurations that a rendered one replaces (same name)
/// are skipped; so are pairs of the same revision (one control plane's own webhooks, or a
/// revision tag pointing at it).
pub fn find_overlaps(rendered: &[Value], live: &[Value]) -> Result<Vec<Overlap>, SelectorError> {
    let mut mine = Vec::new();
    for mwc in rendered {
        mine.extend(injector_webhooks(mwc)?);
    }
    let replaced: BTreeSet<&str> = mine.iter().map(|w| w.configuration.as_str()).collect();
    let mut theirs = Vec::new();
    for mwc in live {
        for w in injector_webhooks(mwc)? {
            if !replaced.contains(w.configuration.as_str()) {
                theirs.push(w);
            }
        }
    }
    let mut out = Vec::new();
    for a in &mine {
        for b in theirs.iter().filter(|b| b.revision != a.revision) {
            if let Some(witness) = witness(
                (&a.namespace_selector, &a.object_selector),
                (&b.namespace_selector, &b.object_selector),
            ) {
                out.push(Overlap {
                    rendered: a.clone(),
                    live: b.clone(),
                    witness,
                });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::Path;

    fn labels(v: Option<&Value>) -> Labels {
        v.and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.as_str().expect("label value").to_string()))
            .collect()
    }

    fn selectors(case: &Value, side: &str) -> Result<(Selector, Selector), SelectorError> {
        let side = case.get(side).unwrap_or(&Value::Null);
        Ok((
            Selector::parse(side.get("namespaceSelector"), "namespaceSelector")?,
            Selector::parse(side.get("objectSelector"), "objectSelector")?,
        ))
    }

    /// Every case in `tests/cases/cluster/overlap`: two webhooks' selectors (`a`, `b`; a side's
    /// selector left out is a missing selector) and either `overlap: false`, `overlap: true`
    /// with the expected `witness` (`namespace`, `pod` labels), or `error` (a substring). Every
    /// witness found is also checked against all four selectors with the plain evaluator.
    #[test]
    fn overlap_cases() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/cases/cluster/overlap");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
            .collect();
        files.sort();
        assert!(files.len() >= 10, "too few cases in {}", dir.display());
        let mut failures = Vec::new();
        for file in &files {
            let name = file.file_name().unwrap().to_string_lossy().to_string();
            let text = std::fs::read_to_string(file).unwrap();
            let case = goyaml::from_yaml_json(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            let parsed = selectors(&case, "a").and_then(|a| Ok((a, selectors(&case, "b")?)));
            if let Some(want) = case.get("error").and_then(Value::as_str) {
                match parsed {
                    Err(e) if e.to_string().contains(want) => {}
                    other => failures.push(format!("{name}: want error {want:?}, got {other:?}")),
                }
                continue;
            }
            let ((ans, aos), (bns, bos)) = match parsed {
                Ok(p) => p,
                Err(e) => {
                    failures.push(format!("{name}: {e}"));
                    continue;
                }
            };
            let got = witness((&ans, &aos), (&bns, &bos));
            if let Some(w) = &got {
                let all_match = ans.matches(&w.namespace)
                    && bns.matches(&w.namespace)
                    && aos.matches(&w.pod)
                    && bos.matches(&w.pod)
                    && w.namespace.contains_key(NAMESPACE_NAME_LABEL);
                if !all_match {
                    failures.push(format!(
                        "{name}: witness {w:?} does not satisfy the selectors"
                    ));
                }
            }
            let want_overlap = case
                .get("overlap")
                .and_then(Value::as_bool)
                .expect("overlap");
            match (&got, want_overlap) {
                (None, false) => {}
                (Some(w), true) => {
                    let want = case.get("witness").expect("witness");
                    let want = Witness {
                        namespace: labels(want.get("namespace")),
                        pod: labels(want.get("pod")),
                    };
                    if *w != want {
                        failures.push(format!("{name}: witness {w:?}, want {want:?}"));
                    }
                }
                (got, want) => {
                    failures.push(format!("{name}: overlap {}, want {want}", got.is_some()))
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    fn injector(name: &str, rev: &str, webhooks: Value) -> Value {
        json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration",
               "metadata": {"name": name, "labels": {"app": "sidecar-injector", "istio.io/rev": rev}},
               "webhooks": webhooks})
    }

    fn pod_rule() -> Value {
        json!([{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}])
    }

    /// Istio's charts' webhooks for `rev` (as `manifest generate` renders them).
    fn revision_webhooks(rev: &str) -> Value {
        json!([
            {"name": "rev.namespace.sidecar-injector.istio.io", "rules": pod_rule(),
             "namespaceSelector": {"matchExpressions": [{"key": "istio.io/rev", "operator": "In", "values": [rev]}, {"key": "istio-injection", "operator": "DoesNotExist"}]},
             "objectSelector": {"matchExpressions": [{"key": "sidecar.istio.io/inject", "operator": "NotIn", "values": ["false"]}]}},
            {"name": "rev.object.sidecar-injector.istio.io", "rules": pod_rule(),
             "namespaceSelector": {"matchExpressions": [{"key": "istio.io/rev", "operator": "DoesNotExist"}, {"key": "istio-injection", "operator": "DoesNotExist"}]},
             "objectSelector": {"matchExpressions": [{"key": "sidecar.istio.io/inject", "operator": "NotIn", "values": ["false"]}, {"key": "istio.io/rev", "operator": "In", "values": [rev]}]}}
        ])
    }

    fn default_webhooks() -> Value {
        let mut hooks = revision_webhooks("default").as_array().unwrap().clone();
        hooks.push(json!({"name": "namespace.sidecar-injector.istio.io", "rules": pod_rule(),
            "namespaceSelector": {"matchExpressions": [{"key": "istio-injection", "operator": "In", "values": ["enabled"]}]},
            "objectSelector": {"matchExpressions": [{"key": "sidecar.istio.io/inject", "operator": "NotIn", "values": ["false"]}]}}));
        hooks.push(json!({"name": "object.sidecar-injector.istio.io", "rules": pod_rule(),
            "namespaceSelector": {"matchExpressions": [{"key": "istio-injection", "operator": "DoesNotExist"}, {"key": "istio.io/rev", "operator": "DoesNotExist"}]},
            "objectSelector": {"matchExpressions": [{"key": "sidecar.istio.io/inject", "operator": "In", "values": ["true"]}, {"key": "istio.io/rev", "operator": "DoesNotExist"}]}}));
        Value::Array(hooks)
    }

    #[test]
    fn istio_revisions_do_not_overlap() {
        let default = injector("istio-sidecar-injector", "default", default_webhooks());
        let canary = injector(
            "istio-sidecar-injector-canary",
            "canary",
            revision_webhooks("canary"),
        );
        assert_eq!(
            find_overlaps(
                std::slice::from_ref(&default),
                std::slice::from_ref(&canary)
            ),
            Ok(vec![])
        );
        assert_eq!(find_overlaps(&[canary], &[default]), Ok(vec![]));
    }

    #[test]
    fn an_old_style_injector_of_another_revision_overlaps() {
        let default = injector("istio-sidecar-injector", "default", default_webhooks());
        let old = injector(
            "istio-sidecar-injector-old",
            "old",
            json!([{"name": "sidecar-injector.istio.io", "rules": pod_rule(),
                    "namespaceSelector": {"matchLabels": {"istio-injection": "enabled"}}}]),
        );
        let found = find_overlaps(&[default], &[old]).unwrap();
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            found[0].rendered.webhook,
            "namespace.sidecar-injector.istio.io"
        );
        assert_eq!(found[0].live.revision, "old");
        let error = crate::Error::WebhookOverlap {
            overlaps: found.clone(),
        }
        .to_string();
        assert!(
            error.contains(&format!("twice):\n  {}\n", found[0])),
            "{error}"
        );
        assert_eq!(
            found[0].to_string(),
            "MutatingWebhookConfiguration istio-sidecar-injector webhook namespace.sidecar-injector.istio.io (revision default) (to install) and MutatingWebhookConfiguration istio-sidecar-injector-old webhook sidecar-injector.istio.io (revision old) (in the cluster) would both inject a pod with labels {} (no labels) created in a namespace example with labels {istio-injection=enabled, kubernetes.io/metadata.name=example}"
        );
    }

    #[test]
    fn same_name_same_revision_and_non_injectors_are_skipped() {
        let rendered = injector("istio-sidecar-injector", "default", default_webhooks());
        let same_name = injector("istio-sidecar-injector", "other", default_webhooks());
        let same_rev = injector("istio-revision-tag-default", "default", default_webhooks());
        let mut other_app = injector("not-istio", "x", default_webhooks());
        other_app["metadata"]["labels"] = json!({});
        for w in other_app["webhooks"].as_array_mut().unwrap() {
            w["name"] = json!("hook.example.com");
        }
        let mut configmaps_only = injector("cm", "x", default_webhooks());
        for w in configmaps_only["webhooks"].as_array_mut().unwrap() {
            w["rules"] =
                json!([{"apiGroups": [""], "operations": ["CREATE"], "resources": ["configmaps"]}]);
        }
        let mut cluster_scoped = injector("cs", "x", default_webhooks());
        for w in cluster_scoped["webhooks"].as_array_mut().unwrap() {
            w["rules"][0]["scope"] = json!("Cluster");
        }
        let live = [
            same_name,
            same_rev,
            other_app,
            configmaps_only,
            cluster_scoped,
        ];
        assert_eq!(find_overlaps(&[rendered], &live), Ok(vec![]));
    }

    #[test]
    fn webhooks_deactivated_by_istioctl_are_skipped() {
        let canary = injector(
            "istio-sidecar-injector-canary",
            "canary",
            revision_webhooks("canary"),
        );
        let mut deactivated = injector("istio-sidecar-injector", "default", default_webhooks());
        for w in deactivated["webhooks"].as_array_mut().unwrap() {
            w["namespaceSelector"] =
                json!({"matchLabels": {"istio.io/deactivated": "never-match"}});
            w["objectSelector"] = json!({"matchLabels": {"istio.io/deactivated": "never-match"}});
        }
        assert_eq!(injector_webhooks(&deactivated), Ok(vec![]));
        assert_eq!(
            find_overlaps(
                std::slice::from_ref(&canary),
                std::slice::from_ref(&deactivated)
            ),
            Ok(vec![])
        );
        // Without the marker the same selectors overlap the canary's (some namespace and pod
        // could carry any other label).
        for w in deactivated["webhooks"].as_array_mut().unwrap() {
            w["namespaceSelector"] = json!({"matchLabels": {"istio.io/other": "never-match"}});
            w["objectSelector"] = json!({"matchLabels": {"istio.io/other": "never-match"}});
        }
        assert!(!find_overlaps(&[canary], &[deactivated]).unwrap().is_empty());
    }

    #[test]
    fn match_conditions_are_named_as_unevaluated() {
        let default = injector("istio-sidecar-injector", "default", default_webhooks());
        let mut old = injector(
            "old",
            "old",
            json!([{"name": "sidecar-injector.istio.io", "rules": pod_rule(),
                    "matchConditions": [{"name": "c", "expression": "true"}]}]),
        );
        let found =
            find_overlaps(std::slice::from_ref(&default), std::slice::from_ref(&old)).unwrap();
        assert!(!found.is_empty());
        assert!(
            found[0].to_string().ends_with(
                "(unless their matchConditions, which are not evaluated here, exclude it)"
            )
        );
        old["webhooks"][0]["matchConditions"] = json!([]);
        let found = find_overlaps(&[default], &[old]).unwrap();
        assert!(!found[0].to_string().contains("matchConditions"));
    }

    #[test]
    fn invalid_live_selectors_are_errors_with_context() {
        let bad = injector(
            "bad",
            "x",
            json!([{"name": "a.sidecar-injector.istio.io", "rules": pod_rule(),
                    "objectSelector": {"matchExpressions": [{"key": "k", "operator": "Near"}]}}]),
        );
        let err = find_overlaps(&[], &[bad]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "MutatingWebhookConfiguration bad webhook a.sidecar-injector.istio.io objectSelector: matchExpressions[0]: \"Near\" is not a valid label selector operator"
        );
    }
}
