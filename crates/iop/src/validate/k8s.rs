//! Kubernetes' own field rules for what a component's `k8s` block sets. istioctl only checks
//! that these decode; the API server rejects the rest mid-install. Rules and wording follow
//! k8s.io/apimachinery (pkg/util/validation, pkg/apis/meta/v1/validation, pkg/api/resource)
//! and the API server's core/apps/policy/autoscaling validation, with field errors worded as
//! its `field.Error`s are: `Invalid value: "x": …`, `Unsupported value: …`, `Required value`.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::{Ctx, child, key, num};
use crate::source::PathSeg;

const COMPONENTS: [&str; 5] = ["base", "pilot", "cni", "ztunnel", "istiodRemote"];

/// Every `components.*.k8s` block, gateways' included.
pub(crate) fn check_components(cx: &mut Ctx, spec: &Value, sp: &[PathSeg]) {
    let Some(comps) = spec.get("components").filter(|c| c.is_object()) else {
        return;
    };
    let cp = key(sp, "components");
    for c in COMPONENTS {
        if let Some(k) = comps.get(c).and_then(|c| c.get("k8s")) {
            check_k8s(cx, k, &key(&key(&cp, c), "k8s"));
        }
    }
    for list in ["ingressGateways", "egressGateways"] {
        let Some(gws) = comps.get(list).and_then(Value::as_array) else {
            continue;
        };
        let lp = key(&cp, list);
        for (i, g) in gws.iter().enumerate() {
            let gp = child(&lp, PathSeg::Index(i));
            if let Some(labels) = g.get("label").and_then(Value::as_object) {
                labels_map(cx, labels, &key(&gp, "label"));
            }
            if let Some(k) = g.get("k8s") {
                check_k8s(cx, k, &key(&gp, "k8s"));
            }
        }
    }
}

/// Rules for a value of a Kubernetes type found elsewhere (istioctl's strictly decoded values).
pub(crate) fn check_typed(cx: &mut Ctx, v: &Value, ty: &str, p: &[PathSeg]) {
    match ty {
        "core/v1.Toleration" => toleration(cx, v, p),
        "core/v1.Affinity" => affinity(cx, v, p),
        "meta/v1.LabelSelector" => label_selector(cx, v, p),
        "core/v1.NodeSelector" => node_selector(cx, v, p),
        _ => {}
    }
}

fn s<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

fn arr<'a>(v: &'a Value, k: &str) -> &'a [Value] {
    v.get(k)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

fn quote(s: &str) -> String {
    format!("{s:?}")
}

fn unsupported(cx: &mut Ctx, p: &[PathSeg], got: &str, allowed: &[&str]) {
    let list: Vec<String> = allowed.iter().map(|a| quote(a)).collect();
    cx.error(
        p,
        format!(
            "Unsupported value: {}: supported values: {}",
            quote(got),
            list.join(", ")
        ),
    );
}

fn invalid(cx: &mut Ctx, p: &[PathSeg], got: &str, msg: &str) {
    cx.error(p, format!("Invalid value: {}: {msg}", quote(got)));
}

fn invalid_num(cx: &mut Ctx, p: &[PathSeg], got: &Value, msg: &str) {
    cx.error(p, format!("Invalid value: {}: {msg}", num(got)));
}

fn check_k8s(cx: &mut Ctx, k: &Value, p: &[PathSeg]) {
    if !k.is_object() {
        return;
    }
    if let Some(a) = k.get("affinity") {
        affinity(cx, a, &key(p, "affinity"));
    }
    for (i, e) in arr(k, "env").iter().enumerate() {
        env_var(cx, e, &child(&key(p, "env"), PathSeg::Index(i)));
    }
    if let Some(h) = k.get("hpaSpec") {
        hpa(cx, h, &key(p, "hpaSpec"));
    }
    if let Some(pol) = s(k, "imagePullPolicy")
        && !pol.is_empty()
    {
        let allowed = ["Always", "IfNotPresent", "Never"];
        if !allowed.contains(&pol) {
            unsupported(cx, &key(p, "imagePullPolicy"), pol, &allowed);
        }
    }
    if let Some(ns) = k.get("nodeSelector").and_then(Value::as_object) {
        labels_map(cx, ns, &key(p, "nodeSelector"));
    }
    for f in ["podAnnotations", "serviceAnnotations"] {
        if let Some(a) = k.get(f).and_then(Value::as_object) {
            for name in a.keys() {
                // ValidateAnnotations checks keys lowercased.
                for msg in qualified_name(&name.to_lowercase()) {
                    invalid(cx, &key(&key(p, f), name), name, &msg);
                }
            }
        }
    }
    if let Some(pdb) = k.get("podDisruptionBudget") {
        pdb_spec(cx, pdb, &key(p, "podDisruptionBudget"));
    }
    if let Some(pr) = k.get("readinessProbe") {
        probe(cx, pr, &key(p, "readinessProbe"));
    }
    if let Some(r) = k.get("resources") {
        resources(cx, r, &key(p, "resources"));
    }
    if let Some(svc) = k.get("service") {
        service(cx, svc, &key(p, "service"));
    }
    if let Some(st) = k.get("strategy") {
        strategy(cx, st, &key(p, "strategy"));
    }
    for (i, t) in arr(k, "tolerations").iter().enumerate() {
        toleration(cx, t, &child(&key(p, "tolerations"), PathSeg::Index(i)));
    }
    let mut names = Vec::new();
    for (i, v) in arr(k, "volumes").iter().enumerate() {
        let vp = child(&key(p, "volumes"), PathSeg::Index(i));
        match s(v, "name") {
            None | Some("") => cx.error(&key(&vp, "name"), "Required value"),
            Some(n) => {
                for msg in dns1123_label(n) {
                    invalid(cx, &key(&vp, "name"), n, &msg);
                }
                if names.contains(&n) {
                    cx.error(&key(&vp, "name"), format!("Duplicate value: {}", quote(n)));
                }
                names.push(n);
            }
        }
    }
    for (i, m) in arr(k, "volumeMounts").iter().enumerate() {
        let mp = child(&key(p, "volumeMounts"), PathSeg::Index(i));
        if s(m, "name").unwrap_or_default().is_empty() {
            cx.error(&key(&mp, "name"), "Required value");
        }
        if s(m, "mountPath").unwrap_or_default().is_empty() {
            cx.error(&key(&mp, "mountPath"), "Required value");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Names (k8s.io/apimachinery/pkg/util/validation and api/validate/content).

const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const LABEL_KEY_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
static DNS1123_LABEL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!("^{DNS1123_LABEL_FMT}$")).expect("regex"));
static DNS1123_SUBDOMAIN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!("^{DNS1123_LABEL_FMT}(\\.{DNS1123_LABEL_FMT})*$")).expect("regex")
});
static LABEL_KEY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!("^{LABEL_KEY_FMT}$")).expect("regex"));
static LABEL_VALUE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!("^({LABEL_KEY_FMT})?$")).expect("regex"));

fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    // As RegexError builds it: "'a', " items joined by " or " (two spaces, as it prints).
    let ex: Vec<String> = examples.iter().map(|e| format!("'{e}', ")).collect();
    format!(
        "{msg} (e.g. {}regex used for validation is '{fmt}')",
        ex.join(" or ")
    )
}

pub(crate) fn is_dns1123_label(v: &str) -> bool {
    dns1123_label(v).is_empty()
}

fn dns1123_label(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if v.len() > 63 {
        errs.push("must be no more than 63 characters".to_string());
    }
    if !DNS1123_LABEL.is_match(v) {
        if DNS1123_SUBDOMAIN.is_match(v) {
            errs.push("must not contain dots".to_string());
        } else {
            errs.push(regex_error(
                "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
                DNS1123_LABEL_FMT,
                &["my-name", "123-abc"],
            ));
        }
    }
    errs
}

fn dns1123_subdomain(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if v.len() > 253 {
        errs.push("must be no more than 253 characters".to_string());
    }
    if !DNS1123_SUBDOMAIN.is_match(v) {
        errs.push(regex_error(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
            &format!("{DNS1123_LABEL_FMT}(\\.{DNS1123_LABEL_FMT})*"),
            &["example.com"],
        ));
    }
    errs
}

/// IsQualifiedName (label keys).
fn qualified_name(v: &str) -> Vec<String> {
    let key_err = |what: &str| {
        format!(
            "{what}{}",
            regex_error(
                "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
                LABEL_KEY_FMT,
                &["MyName", "my.name", "123-abc"],
            )
        )
    };
    let parts: Vec<&str> = v.split('/').collect();
    let mut errs = Vec::new();
    let name = match parts.as_slice() {
        [n] => *n,
        [prefix, n] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                errs.extend(
                    dns1123_subdomain(prefix)
                        .into_iter()
                        .map(|m| format!("prefix part {m}")),
                );
            }
            *n
        }
        _ => {
            return vec![format!(
                "{} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                key_err("a valid label key ")
            )];
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push("name part must be no more than 63 characters".to_string());
    }
    if !LABEL_KEY.is_match(name) {
        errs.push(key_err("name part "));
    }
    errs
}

fn label_value(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if v.len() > 63 {
        errs.push("must be no more than 63 characters".to_string());
    }
    if !LABEL_VALUE.is_match(v) {
        errs.push(regex_error(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
            &format!("({LABEL_KEY_FMT})?"),
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

/// ValidateLabels: keys and values. Kubernetes names the map; the entry is named here, so the
/// error points at the offending line.
fn labels_map(cx: &mut Ctx, m: &serde_json::Map<String, Value>, p: &[PathSeg]) {
    for (k, v) in m {
        let kp = key(p, k);
        for msg in qualified_name(k) {
            invalid(cx, &kp, k, &msg);
        }
        if let Some(v) = v.as_str() {
            for msg in label_value(v) {
                invalid(cx, &kp, v, &msg);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Scheduling.

fn toleration(cx: &mut Ctx, t: &Value, p: &[PathSeg]) {
    if !t.is_object() {
        return;
    }
    let k = s(t, "key").unwrap_or_default();
    let op = s(t, "operator").unwrap_or_default();
    let value = s(t, "value").unwrap_or_default();
    let effect = s(t, "effect").unwrap_or_default();
    if !k.is_empty() {
        for msg in qualified_name(k) {
            invalid(cx, &key(p, "key"), k, &msg);
        }
    }
    // An empty key matches every key, which only makes sense with Exists.
    if k.is_empty() && op != "Exists" {
        invalid(
            cx,
            &key(p, "operator"),
            op,
            "operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
        );
    }
    if t.get("tolerationSeconds").is_some_and(|v| !v.is_null()) && effect != "NoExecute" {
        invalid(
            cx,
            &key(p, "effect"),
            effect,
            "effect must be 'NoExecute' when `tolerationSeconds` is set",
        );
    }
    match op {
        "Equal" | "" => {
            for msg in label_value(value) {
                invalid(cx, &key(p, "operator"), value, &msg);
            }
        }
        "Exists" => {
            if !value.is_empty() {
                invalid(
                    cx,
                    &key(p, "operator"),
                    value,
                    "value must be empty when `operator` is 'Exists'",
                );
            }
        }
        other => unsupported(cx, &key(p, "operator"), other, &["Equal", "Exists"]),
    }
    if !effect.is_empty() {
        let allowed = ["NoSchedule", "PreferNoSchedule", "NoExecute"];
        if !allowed.contains(&effect) {
            unsupported(cx, &key(p, "effect"), effect, &allowed);
        }
    }
}

fn label_selector(cx: &mut Ctx, sel: &Value, p: &[PathSeg]) {
    if let Some(m) = sel.get("matchLabels").and_then(Value::as_object) {
        labels_map(cx, m, &key(p, "matchLabels"));
    }
    for (i, r) in arr(sel, "matchExpressions").iter().enumerate() {
        let rp = child(&key(p, "matchExpressions"), PathSeg::Index(i));
        let op = s(r, "operator").unwrap_or_default();
        let values = arr(r, "values");
        match op {
            "In" | "NotIn" => {
                if values.is_empty() {
                    cx.error(
                        &key(&rp, "values"),
                        "Required value: must be specified when `operator` is 'In' or 'NotIn'",
                    );
                }
            }
            "Exists" | "DoesNotExist" => {
                if !values.is_empty() {
                    cx.error(
                        &key(&rp, "values"),
                        "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                    );
                }
            }
            _ => invalid(
                cx,
                &key(&rp, "operator"),
                op,
                "not a valid selector operator",
            ),
        }
        let k = s(r, "key").unwrap_or_default();
        for msg in qualified_name(k) {
            invalid(cx, &key(&rp, "key"), k, &msg);
        }
        for (j, v) in values.iter().enumerate() {
            if let Some(v) = v.as_str() {
                for msg in label_value(v) {
                    invalid(cx, &child(&key(&rp, "values"), PathSeg::Index(j)), v, &msg);
                }
            }
        }
    }
}

fn node_selector_requirement(cx: &mut Ctx, r: &Value, rp: &[PathSeg], is_field: bool) {
    let op = s(r, "operator").unwrap_or_default();
    let values = arr(r, "values");
    match op {
        "In" | "NotIn" => {
            if values.is_empty() {
                cx.error(
                    &key(rp, "values"),
                    "Required value: must be specified when `operator` is 'In' or 'NotIn'",
                );
            }
        }
        "Exists" | "DoesNotExist" if !is_field => {
            if !values.is_empty() {
                cx.error(
                    &key(rp, "values"),
                    "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                );
            }
        }
        "Gt" | "Lt" if !is_field => {
            if values.len() != 1 {
                cx.error(
                    &key(rp, "values"),
                    "Required value: must be specified single value when `operator` is 'Lt' or 'Gt'",
                );
            }
        }
        _ => invalid(
            cx,
            &key(rp, "operator"),
            op,
            "not a valid selector operator",
        ),
    }
    let k = s(r, "key").unwrap_or_default();
    if is_field {
        // Only metadata.name may be selected on nodes.
        if k != "metadata.name" {
            cx.error(
                &key(rp, "key"),
                format!(
                    "Invalid value: {}: not a valid field selector key",
                    quote(k)
                ),
            );
        }
    } else {
        for msg in qualified_name(k) {
            invalid(cx, &key(rp, "key"), k, &msg);
        }
    }
}

fn node_selector_term(cx: &mut Ctx, t: &Value, tp: &[PathSeg]) {
    for (j, r) in arr(t, "matchExpressions").iter().enumerate() {
        node_selector_requirement(
            cx,
            r,
            &child(&key(tp, "matchExpressions"), PathSeg::Index(j)),
            false,
        );
    }
    for (j, r) in arr(t, "matchFields").iter().enumerate() {
        node_selector_requirement(
            cx,
            r,
            &child(&key(tp, "matchFields"), PathSeg::Index(j)),
            true,
        );
    }
}

fn node_selector(cx: &mut Ctx, ns: &Value, p: &[PathSeg]) {
    let terms = arr(ns, "nodeSelectorTerms");
    if ns.is_object() && terms.is_empty() {
        cx.error(
            &key(p, "nodeSelectorTerms"),
            "Required value: must have at least one node selector term",
        );
    }
    for (i, t) in terms.iter().enumerate() {
        node_selector_term(
            cx,
            t,
            &child(&key(p, "nodeSelectorTerms"), PathSeg::Index(i)),
        );
    }
}

fn weight(cx: &mut Ctx, t: &Value, p: &[PathSeg]) {
    let w = t.get("weight").cloned().unwrap_or(Value::from(0));
    if !w.as_f64().is_some_and(|w| (1.0..=100.0).contains(&w)) {
        invalid_num(cx, &key(p, "weight"), &w, "must be in the range 1-100");
    }
}

fn pod_affinity_term(cx: &mut Ctx, t: &Value, p: &[PathSeg]) {
    if let Some(sel) = t.get("labelSelector") {
        label_selector(cx, sel, &key(p, "labelSelector"));
    }
    if let Some(sel) = t.get("namespaceSelector") {
        label_selector(cx, sel, &key(p, "namespaceSelector"));
    }
    for (i, n) in arr(t, "namespaces").iter().enumerate() {
        if let Some(n) = n.as_str() {
            for msg in dns1123_label(n) {
                invalid(
                    cx,
                    &child(&key(p, "namespaces"), PathSeg::Index(i)),
                    n,
                    &msg,
                );
            }
        }
    }
    let tk = s(t, "topologyKey").unwrap_or_default();
    if tk.is_empty() {
        cx.error(&key(p, "topologyKey"), "Required value: can not be empty");
    } else {
        for msg in qualified_name(tk) {
            invalid(cx, &key(p, "topologyKey"), tk, &msg);
        }
    }
}

fn affinity(cx: &mut Ctx, a: &Value, p: &[PathSeg]) {
    if let Some(na) = a.get("nodeAffinity") {
        let np = key(p, "nodeAffinity");
        if let Some(req) = na.get("requiredDuringSchedulingIgnoredDuringExecution") {
            node_selector(
                cx,
                req,
                &key(&np, "requiredDuringSchedulingIgnoredDuringExecution"),
            );
        }
        let pp = key(&np, "preferredDuringSchedulingIgnoredDuringExecution");
        for (i, t) in arr(na, "preferredDuringSchedulingIgnoredDuringExecution")
            .iter()
            .enumerate()
        {
            let tp = child(&pp, PathSeg::Index(i));
            weight(cx, t, &tp);
            if let Some(pref) = t.get("preference") {
                node_selector_term(cx, pref, &key(&tp, "preference"));
            }
        }
    }
    for f in ["podAffinity", "podAntiAffinity"] {
        let Some(pa) = a.get(f) else { continue };
        let fp = key(p, f);
        let rp = key(&fp, "requiredDuringSchedulingIgnoredDuringExecution");
        for (i, t) in arr(pa, "requiredDuringSchedulingIgnoredDuringExecution")
            .iter()
            .enumerate()
        {
            pod_affinity_term(cx, t, &child(&rp, PathSeg::Index(i)));
        }
        let pp = key(&fp, "preferredDuringSchedulingIgnoredDuringExecution");
        for (i, t) in arr(pa, "preferredDuringSchedulingIgnoredDuringExecution")
            .iter()
            .enumerate()
        {
            let tp = child(&pp, PathSeg::Index(i));
            weight(cx, t, &tp);
            if let Some(term) = t.get("podAffinityTerm") {
                pod_affinity_term(cx, term, &key(&tp, "podAffinityTerm"));
            } else {
                cx.error(&key(&tp, "podAffinityTerm"), "Required value");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Containers.

fn env_var(cx: &mut Ctx, e: &Value, p: &[PathSeg]) {
    if !e.is_object() {
        return;
    }
    match s(e, "name") {
        None | Some("") => cx.error(&key(p, "name"), "Required value"),
        Some(n) => {
            // Relaxed environment variable names (GA since Kubernetes 1.34).
            if n.bytes().any(|c| !(b' '..=b'~').contains(&c) || c == b'=') {
                invalid(
                    cx,
                    &key(p, "name"),
                    n,
                    "a valid environment variable name must consist only of printable ASCII characters other than '='",
                );
            }
        }
    }
    let Some(from) = e.get("valueFrom").filter(|v| !v.is_null()) else {
        return;
    };
    let fp = key(p, "valueFrom");
    if !s(e, "value").unwrap_or_default().is_empty() {
        cx.error(
            &fp,
            "Invalid value: \"\": may not be specified when `value` is not empty",
        );
    }
    let sources = [
        "fieldRef",
        "resourceFieldRef",
        "configMapKeyRef",
        "secretKeyRef",
        "fileKeyRef",
    ];
    let set: Vec<&str> = sources
        .iter()
        .copied()
        .filter(|k| from.get(*k).is_some_and(|v| !v.is_null()))
        .collect();
    match set.len() {
        0 => cx.error(
            &fp,
            "Invalid value: \"\": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`",
        ),
        1 => {
            let src = &from[set[0]];
            let sp = key(&fp, set[0]);
            match set[0] {
                "fieldRef" if s(src, "fieldPath").unwrap_or_default().is_empty() => cx.error(&key(&sp, "fieldPath"), "Required value"),
                "resourceFieldRef" if s(src, "resource").unwrap_or_default().is_empty() => cx.error(&key(&sp, "resource"), "Required value"),
                // Set: nothing more to check (and not the `key` of the selectors below).
                "fieldRef" | "resourceFieldRef" => {}
                _ => {
                    if s(src, "key").unwrap_or_default().is_empty() {
                        cx.error(&key(&sp, "key"), "Required value");
                    }
                }
            }
        }
        _ => cx.error(&fp, "Invalid value: \"\": may not have more than one field specified at a time"),
    }
}

fn non_negative(cx: &mut Ctx, v: &Value, f: &str, p: &[PathSeg]) {
    if let Some(n) = v.get(f)
        && n.as_f64().is_some_and(|x| x < 0.0)
    {
        invalid_num(cx, &key(p, f), n, "must be greater than or equal to 0");
    }
}

fn port_value(cx: &mut Ctx, v: Option<&Value>, p: &[PathSeg]) {
    match v {
        None | Some(Value::Null) => cx.error(p, "Required value"),
        Some(Value::String(name)) => {
            for msg in port_name(name) {
                invalid(cx, p, name, &msg);
            }
        }
        Some(n) => {
            if !n.as_f64().is_some_and(|x| (1.0..=65535.0).contains(&x)) {
                invalid_num(cx, p, n, "must be between 1 and 65535, inclusive");
            }
        }
    }
}

fn probe(cx: &mut Ctx, pr: &Value, p: &[PathSeg]) {
    if !pr.is_object() {
        return;
    }
    let handlers = ["exec", "httpGet", "tcpSocket", "grpc"];
    let set: Vec<&str> = handlers
        .iter()
        .copied()
        .filter(|h| pr.get(*h).is_some_and(|v| !v.is_null()))
        .collect();
    match set.len() {
        0 => cx.error(p, "Required value: must specify a handler type"),
        1 => {}
        _ => {
            for extra in &set[1..] {
                cx.error(
                    &key(p, extra),
                    "Forbidden: may not specify more than 1 handler type",
                );
            }
        }
    }
    for f in [
        "initialDelaySeconds",
        "timeoutSeconds",
        "periodSeconds",
        "successThreshold",
        "failureThreshold",
        "terminationGracePeriodSeconds",
    ] {
        non_negative(cx, pr, f, p);
    }
    if let Some(h) = pr.get("httpGet").filter(|v| v.is_object()) {
        port_value(cx, h.get("port"), &key(&key(p, "httpGet"), "port"));
        if let Some(sch) = s(h, "scheme")
            && !sch.is_empty()
            && !["HTTP", "HTTPS"].contains(&sch)
        {
            unsupported(
                cx,
                &key(&key(p, "httpGet"), "scheme"),
                sch,
                &["HTTP", "HTTPS"],
            );
        }
    }
    if let Some(t) = pr.get("tcpSocket").filter(|v| v.is_object()) {
        port_value(cx, t.get("port"), &key(&key(p, "tcpSocket"), "port"));
    }
    if let Some(g) = pr.get("grpc").filter(|v| v.is_object()) {
        let gp = key(&key(p, "grpc"), "port");
        match g.get("port") {
            Some(n) if n.as_f64().is_some_and(|x| (1.0..=65535.0).contains(&x)) => {}
            Some(n) => invalid_num(cx, &gp, n, "must be between 1 and 65535, inclusive"),
            None => cx.error(&gp, "Required value"),
        }
    }
    if let Some(e) = pr.get("exec").filter(|v| v.is_object())
        && arr(e, "command").is_empty()
    {
        cx.error(&key(&key(p, "exec"), "command"), "Required value");
    }
}

fn port_name(n: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if n.len() > 15 {
        errs.push("must be no more than 15 characters".to_string());
    }
    if n.is_empty()
        || !n
            .bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
    {
        errs.push(
            "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)".to_string(),
        );
    }
    if !n.bytes().any(|c| c.is_ascii_lowercase()) {
        errs.push("must contain at least one letter (a-z)".to_string());
    }
    if n.contains("--") {
        errs.push("must not contain consecutive hyphens".to_string());
    }
    if n.starts_with('-') || n.ends_with('-') {
        errs.push("must not begin or end with a hyphen".to_string());
    }
    errs
}

// ---------------------------------------------------------------------------------------------
// Resources (k8s.io/apimachinery/pkg/api/resource).

/// A quantity's value as a float (enough to compare requests with limits), or the error
/// `resource.ParseQuantity` gives.
pub(crate) fn parse_quantity(s: &str) -> Result<f64, &'static str> {
    const FORMAT: &str = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
    if s.is_empty() {
        return Err(FORMAT);
    }
    let b = s.as_bytes();
    let mut pos = 0;
    if matches!(b[0], b'+' | b'-') {
        pos = 1;
    }
    let digits = |from: usize| from + b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut end = digits(pos);
    if end < b.len() && b[end] == b'.' {
        end = digits(end + 1);
    }
    let number = &s[..end];
    let suffix = &s[end..];
    // The suffix: letters from the set, then an optional sign and digits, then nothing.
    let letters = suffix
        .bytes()
        .take_while(|c| b"eEinumkKMGTP".contains(c))
        .count();
    let mut rest = &suffix[letters..];
    if let Some(r) = rest.strip_prefix(['+', '-']) {
        rest = r;
    }
    if !rest.bytes().all(|c| c.is_ascii_digit()) {
        return Err(FORMAT);
    }
    let mantissa: f64 = match number.trim_start_matches(['+', '-']) {
        "" | "." => 0.0,
        n => n
            .parse::<f64>()
            .map_err(|_| "unable to parse numeric part of quantity")?,
    } * if number.starts_with('-') { -1.0 } else { 1.0 };
    let scale = match suffix {
        "" => 1.0,
        "n" => 1e-9,
        "u" => 1e-6,
        "m" => 1e-3,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "E" => 1e18,
        "Ki" => 1024f64,
        "Mi" => 1024f64.powi(2),
        "Gi" => 1024f64.powi(3),
        "Ti" => 1024f64.powi(4),
        "Pi" => 1024f64.powi(5),
        "Ei" => 1024f64.powi(6),
        e if e.starts_with(['e', 'E']) => match e[1..].parse::<i32>() {
            Ok(x) => 10f64.powi(x),
            Err(_) => return Err("unable to parse quantity's suffix"),
        },
        _ => return Err("unable to parse quantity's suffix"),
    };
    Ok(mantissa * scale)
}

pub(crate) fn check_quantity(cx: &mut Ctx, s: &str, p: &[PathSeg]) {
    if let Err(e) = parse_quantity(s) {
        cx.error(p, format!("Invalid value: {}: {e}", quote(s)));
    }
}

fn quantity_of(v: &Value) -> Option<(String, f64)> {
    let text = match v {
        Value::String(s) => s.trim().to_string(),
        Value::Number(_) => num(v),
        _ => return None,
    };
    parse_quantity(&text).ok().map(|q| (text, q))
}

fn resources(cx: &mut Ctx, r: &Value, p: &[PathSeg]) {
    let limits = r.get("limits").and_then(Value::as_object);
    let requests = r.get("requests").and_then(Value::as_object);
    for (f, m) in [("limits", limits), ("requests", requests)] {
        let Some(m) = m else { continue };
        for (name, q) in m {
            let qp = key(&key(p, f), name);
            if let Some((text, val)) = quantity_of(q)
                && val < 0.0
            {
                invalid(cx, &qp, &text, "must be greater than or equal to 0");
            }
            if !name.contains('/')
                && !matches!(
                    name.as_str(),
                    "cpu" | "memory" | "ephemeral-storage" | "storage"
                )
                && !name.starts_with("hugepages-")
            {
                // A resource name without a domain must be one Kubernetes defines.
                invalid(
                    cx,
                    &qp,
                    name,
                    "must be a standard resource type or fully qualified",
                );
            }
        }
    }
    if let (Some(l), Some(rq)) = (limits, requests) {
        for (name, q) in rq {
            let (Some((rt, rv)), Some((lt, lv))) =
                (quantity_of(q), l.get(name).and_then(quantity_of))
            else {
                continue;
            };
            if rv > lv {
                invalid(
                    cx,
                    &key(&key(p, "requests"), name),
                    &rt,
                    &format!("must be less than or equal to {name} limit of {lt}"),
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Workload controllers.

fn int_or_percent(cx: &mut Ctx, v: &Value, p: &[PathSeg], max_100: bool) {
    match v {
        Value::String(s) => match s.strip_suffix('%').map(str::parse::<i64>) {
            Some(Ok(n)) => {
                if max_100 && n > 100 {
                    invalid(cx, p, s, "must not be greater than 100%");
                }
            }
            _ => invalid(
                cx,
                p,
                s,
                "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
            ),
        },
        Value::Number(_) if v.as_f64().is_some_and(|x| x < 0.0) => {
            invalid_num(cx, p, v, "must be greater than or equal to 0")
        }
        _ => {}
    }
}

fn pdb_spec(cx: &mut Ctx, pdb: &Value, p: &[PathSeg]) {
    let min = pdb.get("minAvailable").filter(|v| !v.is_null());
    let max = pdb.get("maxUnavailable").filter(|v| !v.is_null());
    if let (Some(min), Some(_)) = (min, max) {
        let shown = match min {
            Value::String(s) => quote(s),
            v => num(v),
        };
        cx.error(
            &key(p, "minAvailable"),
            format!("Invalid value: {shown}: minAvailable and maxUnavailable cannot be both set"),
        );
    }
    if let Some(min) = min {
        int_or_percent(cx, min, &key(p, "minAvailable"), true);
    }
    if let Some(max) = max {
        int_or_percent(cx, max, &key(p, "maxUnavailable"), true);
    }
    if let Some(sel) = pdb.get("selector") {
        label_selector(cx, sel, &key(p, "selector"));
    }
    if let Some(pol) = s(pdb, "unhealthyPodEvictionPolicy") {
        let allowed = ["IfHealthyBudget", "AlwaysAllow"];
        if !allowed.contains(&pol) {
            unsupported(cx, &key(p, "unhealthyPodEvictionPolicy"), pol, &allowed);
        }
    }
}

fn hpa(cx: &mut Ctx, h: &Value, p: &[PathSeg]) {
    let min = h.get("minReplicas").filter(|v| !v.is_null());
    let max = h.get("maxReplicas").filter(|v| !v.is_null());
    if let Some(m) = min
        && m.as_f64().is_some_and(|x| x < 1.0)
    {
        invalid_num(
            cx,
            &key(p, "minReplicas"),
            m,
            "must be greater than or equal to 1",
        );
    }
    if let Some(m) = max {
        if m.as_f64().is_some_and(|x| x < 1.0) {
            invalid_num(cx, &key(p, "maxReplicas"), m, "must be greater than 0");
        } else if let (Some(lo), Some(hi)) = (min.and_then(Value::as_f64), m.as_f64())
            && hi < lo
        {
            invalid_num(
                cx,
                &key(p, "maxReplicas"),
                m,
                "must be greater than or equal to `minReplicas`",
            );
        }
    }
}

fn strategy(cx: &mut Ctx, st: &Value, p: &[PathSeg]) {
    let ty = s(st, "type").unwrap_or_default();
    let ru = st.get("rollingUpdate").filter(|v| !v.is_null());
    match ty {
        "" | "RollingUpdate" => {}
        "Recreate" => {
            if ru.is_some() {
                cx.error(
                    &key(p, "rollingUpdate"),
                    "Forbidden: may not be specified when strategy `type` is 'Recreate'",
                );
            }
        }
        other => unsupported(cx, &key(p, "type"), other, &["Recreate", "RollingUpdate"]),
    }
    if let Some(ru) = ru {
        let rp = key(p, "rollingUpdate");
        let mu = ru.get("maxUnavailable").filter(|v| !v.is_null());
        let ms = ru.get("maxSurge").filter(|v| !v.is_null());
        if let Some(v) = mu {
            int_or_percent(cx, v, &key(&rp, "maxUnavailable"), true);
        }
        if let Some(v) = ms {
            int_or_percent(cx, v, &key(&rp, "maxSurge"), false);
        }
        let zero = |v: Option<&Value>| match v {
            Some(Value::Number(n)) => n.as_f64() == Some(0.0),
            Some(Value::String(s)) => s == "0%",
            _ => false,
        };
        if zero(mu) && zero(ms) {
            let shown = match mu {
                Some(Value::String(s)) => quote(s),
                Some(v) => num(v),
                None => String::new(),
            };
            cx.error(
                &key(&rp, "maxUnavailable"),
                format!("Invalid value: {shown}: may not be 0 when `maxSurge` is 0"),
            );
        }
    }
}

fn service(cx: &mut Ctx, svc: &Value, p: &[PathSeg]) {
    if !svc.is_object() {
        return;
    }
    let ty = s(svc, "type").unwrap_or_default();
    let types = ["ClusterIP", "NodePort", "LoadBalancer", "ExternalName"];
    if !ty.is_empty() && !types.contains(&ty) {
        unsupported(cx, &key(p, "type"), ty, &types);
    }
    for (f, allowed) in [
        ("externalTrafficPolicy", &["Cluster", "Local"][..]),
        ("internalTrafficPolicy", &["Cluster", "Local"][..]),
        ("sessionAffinity", &["None", "ClientIP"][..]),
        (
            "ipFamilyPolicy",
            &["SingleStack", "PreferDualStack", "RequireDualStack"][..],
        ),
    ] {
        if let Some(v) = s(svc, f)
            && !v.is_empty()
            && !allowed.contains(&v)
        {
            unsupported(cx, &key(p, f), v, allowed);
        }
    }
    let ports = arr(svc, "ports");
    let pp = key(p, "ports");
    let mut names: Vec<&str> = Vec::new();
    for (i, port) in ports.iter().enumerate() {
        let ip = child(&pp, PathSeg::Index(i));
        let name = s(port, "name").unwrap_or_default();
        if name.is_empty() {
            if ports.len() > 1 {
                cx.error(&key(&ip, "name"), "Required value");
            }
        } else {
            for msg in dns1123_label(name) {
                invalid(cx, &key(&ip, "name"), name, &msg);
            }
            if names.contains(&name) {
                cx.error(
                    &key(&ip, "name"),
                    format!("Duplicate value: {}", quote(name)),
                );
            }
            names.push(name);
        }
        match port.get("port") {
            Some(n) if n.as_f64().is_some_and(|x| (1.0..=65535.0).contains(&x)) => {}
            Some(n) if !n.is_null() => invalid_num(
                cx,
                &key(&ip, "port"),
                n,
                "must be between 1 and 65535, inclusive",
            ),
            _ => cx.error(&key(&ip, "port"), "Required value"),
        }
        if let Some(proto) = s(port, "protocol")
            && !proto.is_empty()
            && !["TCP", "UDP", "SCTP"].contains(&proto)
        {
            unsupported(cx, &key(&ip, "protocol"), proto, &["SCTP", "TCP", "UDP"]);
        }
        match port.get("targetPort") {
            None | Some(Value::Null) => {}
            Some(Value::String(tp)) => {
                for msg in port_name(tp) {
                    invalid(cx, &key(&ip, "targetPort"), tp, &msg);
                }
            }
            Some(n) => {
                if !n.as_f64().is_some_and(|x| (1.0..=65535.0).contains(&x)) {
                    invalid_num(
                        cx,
                        &key(&ip, "targetPort"),
                        n,
                        "must be between 1 and 65535, inclusive",
                    );
                }
            }
        }
        if let Some(np) = port
            .get("nodePort")
            .filter(|v| v.as_f64().is_some_and(|x| x != 0.0))
        {
            if matches!(ty, "ClusterIP" | "ExternalName") {
                cx.error(
                    &key(&ip, "nodePort"),
                    format!("Forbidden: may not be used when `type` is '{ty}'"),
                );
            } else if !np.as_f64().is_some_and(|x| (1.0..=65535.0).contains(&x)) {
                invalid_num(
                    cx,
                    &key(&ip, "nodePort"),
                    np,
                    "must be between 1 and 65535, inclusive",
                );
            }
        }
    }
}

/// Go's time.ParseDuration grammar: `[-+]?` then one or more `<decimal><unit>`, or `0`.
pub(crate) fn go_duration(s: &str) -> bool {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^[-+]?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$")
            .expect("regex")
    });
    RE.is_match(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_follow_apimachinery() {
        for ok in [
            "1", "100m", "1.5Gi", "0.5", "1e3", "2E-3", "+1", ".5", "1.", "500Mi", "0",
        ] {
            assert!(parse_quantity(ok).is_ok(), "{ok}");
        }
        assert_eq!(parse_quantity("1Gi").unwrap(), 1073741824.0);
        assert_eq!(parse_quantity("100m").unwrap(), 0.1);
        assert!(
            parse_quantity("1x")
                .unwrap_err()
                .starts_with("quantities must match")
        );
        assert!(
            parse_quantity("1Gb")
                .unwrap_err()
                .starts_with("quantities must match")
        );
        assert_eq!(
            parse_quantity("1mi").unwrap_err(),
            "unable to parse quantity's suffix"
        );
        assert!(parse_quantity("").is_err());
    }

    #[test]
    fn names_follow_apimachinery() {
        assert!(qualified_name("app").is_empty());
        assert!(qualified_name("example.com/app-1").is_empty());
        assert_eq!(
            qualified_name("/app"),
            vec!["prefix part must be non-empty".to_string()]
        );
        assert_eq!(qualified_name("a/b/c").len(), 1);
        assert_eq!(
            qualified_name("-app")[0],
            "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
        );
        assert!(label_value("").is_empty());
        assert_eq!(
            label_value(&"a".repeat(64))[0],
            "must be no more than 63 characters"
        );
        assert_eq!(
            dns1123_label("a.b"),
            vec!["must not contain dots".to_string()]
        );
        assert!(
            go_duration("1h30m") && go_duration("0") && !go_duration("1") && !go_duration("1d")
        );
    }
}
