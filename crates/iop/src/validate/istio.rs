//! istioctl's own checks (operator/pkg/apis/validation/validation.go at the pin), with its
//! message texts: hub, tag, revision, gateway names, gateway service ports that need root,
//! replica counts next to autoscaling, `values.global.proxy` IP ranges and ports, and the
//! Kubernetes-typed `values` fields it decodes strictly.

use serde_json::Value;

use super::schema::check_struct;
use super::{Ctx, child, key, num};
use crate::source::PathSeg;

pub(crate) fn check(cx: &mut Ctx, spec: &Value, sp: &[PathSeg]) {
    let values = spec.get("values").filter(|v| v.is_object());
    let get = |p: &[&str]| -> Option<&Value> {
        let mut v = values?;
        for k in p {
            v = v.get(*k)?;
        }
        Some(v)
    };
    let vp = key(sp, "values");
    let vpath = |p: &str| -> Vec<PathSeg> {
        let mut out = vp.clone();
        out.extend(p.split('.').map(|s| PathSeg::Key(s.to_string())));
        out
    };

    // validateFeatures: checkServicePorts.
    let comps = spec.get("components").filter(|c| c.is_object());
    for (list, gw, ty) in [
        ("ingressGateways", "istio-ingressgateway", "ingress"),
        ("egressGateways", "istio-egressgateway", "egress"),
    ] {
        let run_as_root = get(&["gateways", gw, "runAsRoot"]) == Some(&Value::Bool(true));
        let autoscale = get(&["gateways", gw, "autoscaleEnabled"]) == Some(&Value::Bool(true));
        let Some(gws) = comps.and_then(|c| c.get(list)).and_then(Value::as_array) else {
            continue;
        };
        let lp = key(&key(sp, "components"), list);
        for (i, g) in gws.iter().enumerate() {
            let gp = child(&lp, PathSeg::Index(i));
            let name = g.get("name").and_then(Value::as_str).unwrap_or_default();
            let k8s = g.get("k8s");
            if !run_as_root
                && let Some(ports) = k8s
                    .and_then(|k| k.get("service"))
                    .and_then(|s| s.get("ports"))
                    .and_then(Value::as_array)
            {
                for (j, p) in ports.iter().enumerate() {
                    check_root_port(
                        cx,
                        p,
                        name,
                        gw,
                        &key(&key(&key(&gp, "k8s"), "service"), "ports"),
                        j,
                    );
                }
            }
            // checkAutoScaleAndReplicaCount (a warning).
            if autoscale
                && let Some(rc) = k8s.and_then(|k| k.get("replicaCount"))
                && rc.as_f64().is_some_and(|n| n != 0.0)
            {
                cx.warn(
                    &key(&key(&gp, "k8s"), "replicaCount"),
                    format!(
                        "components.{ty}Gateways[name={name}].k8s.replicaCount should not be set when values.gateways.istio-{ty}gateway.autoscaleEnabled is true"
                    ),
                );
            }
            // validateComponentNames: `[a-z0-9.-]{1,254}` must match the whole name.
            if !name.is_empty() && !object_name_ok(name) {
                // istioctl's context strings, typo included.
                let ctx = if list == "egressGateways" {
                    "egressGateways.name"
                } else {
                    "inressGateways.name"
                };
                cx.error(&key(&gp, "name"), format!("invalid value {ctx}: {name}"));
            }
        }
    }
    if let Some(ports) =
        get(&["gateways", "istio-ingressgateway", "ingressPorts"]).and_then(Value::as_array)
        && get(&["gateways", "istio-ingressgateway", "runAsRoot"]) != Some(&Value::Bool(true))
    {
        // istioctl reads this list whatever runAsRoot says; it exists only as values.
        for (j, p) in ports.iter().enumerate() {
            let tp = match p.get("targetPort") {
                None | Some(Value::Null) => Some(0),
                Some(v) => v.as_f64().map(|f| f as i64),
            };
            let (Some(tp), Some(port)) = (tp, p.get("port").and_then(Value::as_f64)) else {
                continue;
            };
            let port = port as i64;
            if tp == 0 && port > 1024 {
                continue;
            }
            if tp < 1024 {
                cx.error(
                    &child(&vpath("gateways.istio-ingressgateway.ingressPorts"), PathSeg::Index(j)),
                    format!("port {port} is invalid: targetPort is set to {tp}, which requires root. Set targetPort to be greater than 1024 or configure values.gateways.istio-ingressgateway.runAsRoot=true"),
                );
            }
        }
    }
    if get(&["pilot", "autoscaleEnabled"]) == Some(&Value::Bool(true))
        && let Some(rc) = comps
            .and_then(|c| c.get("pilot"))
            .and_then(|p| p.get("k8s"))
            .and_then(|k| k.get("replicaCount"))
        && rc.as_f64().is_some_and(|n| n > 1.0)
    {
        cx.warn(
            &key(&key(&key(&key(sp, "components"), "pilot"), "k8s"), "replicaCount"),
            "components.pilot.k8s.replicaCount should not be set when values.pilot.autoscaleEnabled is true",
        );
    }

    // The proxy's interception settings.
    for f in ["includeIPRanges", "excludeIPRanges"] {
        if let Some(v) = get(&["global", "proxy", f]) {
            let p = vpath(&format!("global.proxy.{f}"));
            ip_ranges(cx, v, &p, &format!("global.proxy.{f}"));
        }
    }
    for f in ["includeInboundPorts", "excludeInboundPorts"] {
        if let Some(v) = get(&["global", "proxy", f]) {
            let p = vpath(&format!("global.proxy.{f}"));
            port_list(cx, v, &p, &format!("global.proxy.{f}"));
        }
    }

    // Kubernetes types istioctl decodes strictly out of `values` (validateValues' runKube).
    for (field, ty, list) in [
        ("cni.affinity", "core/v1.Affinity", false),
        ("cni.seccompProfile", "core/v1.SeccompProfile", false),
        (
            "gateways.istio-egressgateway.podAntiAffinityLabelSelector",
            "meta/v1.LabelSelector",
            true,
        ),
        (
            "gateways.istio-egressgateway.podAntiAffinityTermLabelSelector",
            "meta/v1.LabelSelector",
            true,
        ),
        (
            "gateways.istio-egressgateway.tolerations",
            "core/v1.Toleration",
            true,
        ),
        ("global.defaultTolerations", "core/v1.Toleration", true),
        (
            "gateways.istio-ingressgateway.podAntiAffinityLabelSelector",
            "meta/v1.LabelSelector",
            true,
        ),
        (
            "gateways.istio-ingressgateway.podAntiAffinityTermLabelSelector",
            "meta/v1.LabelSelector",
            true,
        ),
        (
            "gateways.istio-ingressgateway.tolerations",
            "core/v1.Toleration",
            true,
        ),
        ("pilot.tolerations", "core/v1.Toleration", true),
        ("pilot.affinity", "core/v1.Affinity", false),
        ("pilot.seccompProfile", "core/v1.SeccompProfile", false),
        ("pilot.volumeMounts", "core/v1.VolumeMount", true),
        ("pilot.volumes", "core/v1.Volume", true),
        (
            "global.proxy.seccompProfile",
            "core/v1.SeccompProfile",
            false,
        ),
        (
            "sidecarInjectorWebhook.neverInjectSelector",
            "meta/v1.LabelSelector",
            true,
        ),
        (
            "sidecarInjectorWebhook.alwaysInjectSelector",
            "meta/v1.LabelSelector",
            true,
        ),
        ("global.waypoint.affinity", "core/v1.Affinity", false),
        (
            "global.waypoint.nodeSelector",
            "core/v1.NodeSelector",
            false,
        ),
        ("global.waypoint.toleration", "core/v1.Toleration", true),
    ] {
        let parts: Vec<&str> = field.split('.').collect();
        let Some(v) = get(&parts) else { continue };
        let p = vpath(field);
        match (list, v) {
            (true, Value::Array(items)) => {
                for (i, it) in items.iter().enumerate() {
                    let ip = child(&p, PathSeg::Index(i));
                    check_struct(cx, it, ty, &ip);
                    super::k8s::check_typed(cx, it, ty, &ip);
                }
            }
            (false, v) if v.is_object() => {
                check_struct(cx, v, ty, &p);
                super::k8s::check_typed(cx, v, ty, &p);
            }
            _ => {}
        }
    }

    hub_and_tag(cx, spec, sp);
    if let Some(rev) = spec.get("revision").and_then(Value::as_str)
        && !rev.is_empty()
        && !super::k8s::is_dns1123_label(rev)
    {
        cx.error(
            &key(sp, "revision"),
            format!("invalid revision specified: {rev}"),
        );
    }
}

/// validateGateways: a gateway Service port below 1024 needs a root gateway.
fn check_root_port(cx: &mut Ctx, p: &Value, gw_name: &str, gw: &str, ports: &[PathSeg], j: usize) {
    let port = p.get("port").and_then(Value::as_f64).unwrap_or(0.0) as i64;
    let tp = match p.get("targetPort") {
        // Named ports are not checked.
        Some(Value::String(_)) => return,
        Some(v) => v.as_f64().unwrap_or(0.0) as i64,
        None => 0,
    };
    if tp == 0 && port > 1024 {
        return;
    }
    if tp < 1024 {
        let name = p.get("name").and_then(Value::as_str).unwrap_or_default();
        cx.error(
            &child(ports, PathSeg::Index(j)),
            format!("port {name}/{port} in gateway {gw_name} invalid: targetPort is set to {tp}, which requires root. Set targetPort to be greater than 1024 or configure values.gateways.{gw}.runAsRoot=true"),
        );
    }
}

fn object_name_ok(name: &str) -> bool {
    // Go's FindString returns the leftmost match; istioctl compares its length with the name's,
    // so the whole name must be made of these characters (and at most 254 of them).
    let n = name.len();
    n <= 254
        && name
            .bytes()
            .all(|c| matches!(c, b'a'..=b'z' | b'0'..=b'9' | b'.' | b'-'))
}

/// validateIPRangesOrStar: `*`, empty, or comma-separated CIDRs (Go's netip.ParsePrefix).
fn ip_ranges(cx: &mut Ctx, v: &Value, p: &[PathSeg], name: &str) {
    let Some(s) = v.as_str() else {
        cx.error(
            p,
            format!(
                "validateIPRangesOrStar {name} got {}, want string",
                go_type(v)
            ),
        );
        return;
    };
    if s == "*" || s.is_empty() {
        return;
    }
    for part in s.split(',') {
        if let Err(e) = parse_prefix(part) {
            cx.error(
                p,
                format!("{name} netip.ParsePrefix({}): {e}", go_quote(part)),
            );
        }
    }
}

/// validateStringList(validatePortNumberString).
fn port_list(cx: &mut Ctx, v: &Value, p: &[PathSeg], name: &str) {
    let Some(s) = v.as_str() else {
        cx.error(
            p,
            format!("validateStringList {name} got {}, want string", go_type(v)),
        );
        return;
    };
    for part in s.split(',') {
        if part == "*" || part.is_empty() {
            continue;
        }
        match part.parse::<i64>() {
            Ok(n) if i32::try_from(n).is_ok() => {
                if !(0..=65535).contains(&n) {
                    cx.error(
                        p,
                        format!("value {name}:{n} falls outside range [0, 65535]"),
                    );
                }
            }
            Ok(_) => cx.error(
                p,
                format!(
                    "{name} : strconv.ParseInt: parsing {}: value out of range",
                    go_quote(part)
                ),
            ),
            Err(_) => cx.error(
                p,
                format!(
                    "{name} : strconv.ParseInt: parsing {}: invalid syntax",
                    go_quote(part)
                ),
            ),
        }
    }
}

/// Go's `%T` of a JSON value decoded into interface{}.
fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

fn go_quote(s: &str) -> String {
    format!("{s:?}")
}

/// net/netip's ParsePrefix, with its error texts.
fn parse_prefix(s: &str) -> Result<(), String> {
    let Some((addr, bits)) = s.rsplit_once('/') else {
        return Err("no '/'".to_string());
    };
    let max = if addr.contains(':') {
        if addr.contains('%') {
            return Err("IPv6 zones cannot be present in a prefix".to_string());
        }
        match addr.parse::<std::net::Ipv6Addr>() {
            Ok(_) => 128,
            Err(_) => return Err(format!("ParseAddr({}): unable to parse IP", go_quote(addr))),
        }
    } else {
        match addr.parse::<std::net::Ipv4Addr>() {
            Ok(_) => 32,
            Err(_) => return Err(format!("ParseAddr({}): unable to parse IP", go_quote(addr))),
        }
    };
    let digits_ok = !bits.is_empty()
        && bits.bytes().all(|c| c.is_ascii_digit())
        && (bits.len() == 1 || !bits.starts_with('0'));
    if !digits_ok {
        return Err(format!("bad bits after slash: {}", go_quote(bits)));
    }
    match bits.parse::<u32>() {
        Ok(n) if n <= max => Ok(()),
        _ => Err("prefix length out of range".to_string()),
    }
}

/// validateHub and validateTag (go-containerregistry's name checks, as istioctl calls them).
fn hub_and_tag(cx: &mut Ctx, spec: &Value, sp: &[PathSeg]) {
    if let Some(hub) = spec.get("hub").and_then(Value::as_str)
        && !hub.is_empty()
        && let Err(e) = check_repository(&format!("{hub}/pilot"))
    {
        cx.error(&key(sp, "hub"), format!("bad hub: {e}"));
    }
    if let Some(tag) = spec.get("tag")
        && !tag.is_null()
    {
        let text = match tag {
            Value::String(s) => s.clone(),
            Value::Number(_) => num(tag),
            other => other.to_string(),
        };
        if let Err(e) = check_tag(&format!("istio/pilot:{text}")) {
            cx.error(&key(sp, "tag"), format!("bad tag: {e}"));
        }
    }
}

const REPOSITORY_CHARS: &str = "abcdefghijklmnopqrstuvwxyz0123456789_-./";
const TAG_CHARS: &str = "abcdefghijklmnopqrstuvwxyz0123456789_-.ABCDEFGHIJKLMNOPQRSTUVWXYZ";

fn check_element(
    what: &str,
    element: &str,
    allowed: &str,
    min: usize,
    max: usize,
) -> Result<(), String> {
    let n = element.chars().count();
    if n < min || n > max {
        return Err(format!(
            "{what} must be between {min} and {max} characters in length: {element}"
        ));
    }
    if element.chars().any(|c| !allowed.contains(c)) {
        return Err(format!(
            "{what} can only contain the characters `{allowed}`: {element}"
        ));
    }
    Ok(())
}

/// name.NewRepository: an optional registry (a first part with `.` or `:`), then the path.
fn check_repository(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("a repository name must be specified".to_string());
    }
    let (registry, repo) = match name.split_once('/') {
        Some((r, rest)) if r.contains('.') || r.contains(':') => (r, rest),
        _ => ("", name),
    };
    check_element("repository", repo, REPOSITORY_CHARS, 2, 255)?;
    // Go's url.Parse("//" + registry) must give back the same host: a URI authority.
    let authority_ok = registry
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']' | '_'));
    if !authority_ok {
        return Err(format!(
            "registries must be valid RFC 3986 URI authorities: {registry}"
        ));
    }
    Ok(())
}

/// name.NewTag for `istio/pilot:TAG`.
fn check_tag(name: &str) -> Result<(), String> {
    let parts: Vec<&str> = name.split(':').collect();
    let mut base = name.to_string();
    if parts.len() > 1 && !parts[parts.len() - 1].contains('/') {
        let tag = parts[parts.len() - 1];
        base = parts[..parts.len() - 1].join(":");
        if tag.is_empty() {
            return Err(format!("{name} must specify a tag name after the colon"));
        }
        check_element("tag", tag, TAG_CHARS, 1, 128)?;
    }
    check_repository(&base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn netip_prefixes() {
        assert!(parse_prefix("10.0.0.0/8").is_ok());
        assert!(parse_prefix("::1/128").is_ok());
        assert_eq!(parse_prefix("10.0.0.1").unwrap_err(), "no '/'");
        assert_eq!(
            parse_prefix("10.0.0.1/33").unwrap_err(),
            "prefix length out of range"
        );
        assert_eq!(
            parse_prefix("10.0.0.1/08").unwrap_err(),
            "bad bits after slash: \"08\""
        );
        assert_eq!(
            parse_prefix("10.0.0/8").unwrap_err(),
            "ParseAddr(\"10.0.0\"): unable to parse IP"
        );
    }

    #[test]
    fn image_names() {
        assert!(check_repository("docker.io/istio/pilot").is_ok());
        assert!(check_repository("localhost:5000/pilot").is_ok());
        assert!(check_repository("Docker.io/Istio/pilot").is_err());
        assert!(check_tag("istio/pilot:1.2.3").is_ok());
        assert!(check_tag("istio/pilot:bad tag").is_err());
        assert_eq!(
            check_tag("istio/pilot:").unwrap_err(),
            "istio/pilot: must specify a tag name after the colon"
        );
    }
}
