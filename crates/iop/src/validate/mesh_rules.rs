//! The semantic checks istioctl runs on a decoded meshConfig (Istio's
//! pkg/config/validation/agent ValidateMeshConfig and ValidateMeshConfigProxyConfig), over the
//! *effective* config: Istio's defaults (pkg/config/mesh DefaultMeshConfig) with the user's
//! fields laid over them the way ApplyMeshConfig does (top-level fields replace, defaultConfig
//! merges field by field, its proxyMetadata key by key).
//!
//! The input is the canonical JSON of the user's meshConfig (field JSON names only, unknown
//! fields and nulls dropped; see `mesh::canonical`), so a finding's path, relative to
//! meshConfig, can be mapped back to where the user wrote the field. The messages are Istio's.
//!
//! Left out, because they never fire through istioctl: the extension-provider checks (Istio
//! only logs them), nil custom tags (impossible from JSON) and "missing default config"
//! (always defaulted).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};
use thiserror::Error;

use crate::source::PathSeg;
use gotime::{self, HOUR, MILLISECOND, Nanos, SECOND};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Severity {
    Error,
    Warning,
}

/// One broken rule: where (relative to meshConfig, by JSON names) and Istio's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finding {
    pub path: Vec<PathSeg>,
    pub message: String,
    pub severity: Severity,
}

/// Istio's network address check (ValidateProxyAddress): `host:port`, the port in range, the
/// host a DNS name or an IP address.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum AddressError {
    #[error("unable to split {}: address {addr}: {why}", gotime::go_quote(.addr))]
    Split { addr: String, why: &'static str },
    #[error("port ({port}) is not a number: strconv.Atoi: parsing {}: {why}", gotime::go_quote(.port))]
    PortNotNumber { port: String, why: &'static str },
    #[error(transparent)]
    Port(#[from] PortError),
    #[error("{} is not a valid hostname or an IP address", gotime::go_quote(.0))]
    Host(String),
}

/// Istio's ValidatePort.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("port number {0} must be in the range 1..65535")]
pub(crate) struct PortError(pub i64);

pub(crate) fn validate_port(port: i64) -> Result<(), PortError> {
    if (1..=65535).contains(&port) {
        Ok(())
    } else {
        Err(PortError(port))
    }
}

/// Istio's DNS label (pkg/config/labels): note it admits upper case letters.
fn is_dns1123_label(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
}

/// `*`, or a DNS label optionally led by `*` or `*-`.
fn is_wildcard_dns1123_label(s: &str) -> bool {
    if s == "*" {
        return true;
    }
    let rest = s
        .strip_prefix("*-")
        .or_else(|| s.strip_prefix('*'))
        .unwrap_or(s);
    s.len() <= 63 && is_dns1123_label(rest)
}

fn dns1123_labels(domain: &str) -> Result<(), String> {
    let parts: Vec<&str> = domain.split('.').collect();
    let tld = parts[parts.len() - 1];
    if !tld.is_empty() && go_atoi(tld).is_ok() {
        return Err(format!(
            "domain name {} invalid (top level domain {} cannot be all-numeric)",
            gotime::go_quote(domain),
            gotime::go_quote(tld)
        ));
    }
    for (i, label) in parts.iter().enumerate() {
        if i == parts.len() - 1 && label.is_empty() {
            return Ok(());
        }
        if !is_dns1123_label(label) {
            return Err(format!(
                "domain name {} invalid (label {} invalid)",
                gotime::go_quote(domain),
                gotime::go_quote(label)
            ));
        }
    }
    Ok(())
}

fn dns1123_preconditions(name: &str) -> Result<(), String> {
    if name.len() > 255 {
        return Err(format!(
            "domain name {} too long (max 255)",
            gotime::go_quote(name)
        ));
    }
    if name.is_empty() {
        return Err("empty domain name not allowed".to_string());
    }
    Ok(())
}

/// Istio's ValidateFQDN.
pub(crate) fn validate_fqdn(fqdn: &str) -> Result<(), String> {
    dns1123_preconditions(fqdn)?;
    dns1123_labels(fqdn)
}

/// Istio's ValidateWildcardDomain: a wildcard only in the first label.
pub(crate) fn validate_wildcard_domain(domain: &str) -> Result<(), String> {
    dns1123_preconditions(domain)?;
    let (first, rest) = match domain.split_once('.') {
        Some((a, b)) => (a, Some(b)),
        None => (domain, None),
    };
    if !is_wildcard_dns1123_label(first) {
        return Err(format!(
            "domain name {} invalid (label {} invalid)",
            gotime::go_quote(domain),
            gotime::go_quote(first)
        ));
    }
    match rest {
        Some(r) => dns1123_labels(r),
        None => Ok(()),
    }
}

/// Istio's ValidateTrustDomain.
pub(crate) fn validate_trust_domain(domain: &str) -> Result<(), String> {
    if domain.is_empty() {
        return Err("empty domain name not allowed".to_string());
    }
    let parts: Vec<&str> = domain.split('.').collect();
    for (i, label) in parts.iter().enumerate() {
        if i == parts.len() - 1 && label.is_empty() {
            return Ok(());
        }
        if !is_dns1123_label(label) {
            return Err(format!(
                "trust domain name {} invalid",
                gotime::go_quote(domain)
            ));
        }
    }
    Ok(())
}

/// Go's strconv.Atoi, with its error words.
fn go_atoi(s: &str) -> Result<i64, &'static str> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err("invalid syntax");
    }
    s.parse::<i64>().map_err(|_| "value out of range")
}

/// Go's net.SplitHostPort.
fn split_host_port(hostport: &str) -> Result<(&str, &str), AddressError> {
    let err = |why| AddressError::Split {
        addr: hostport.to_string(),
        why,
    };
    let Some(i) = hostport.rfind(':') else {
        return Err(err("missing port in address"));
    };
    let (host, j, k);
    if hostport.starts_with('[') {
        let Some(end) = hostport.find(']') else {
            return Err(err("missing ']' in address"));
        };
        if end + 1 == hostport.len() {
            return Err(err("missing port in address"));
        } else if end + 1 != i {
            if hostport.as_bytes()[end + 1] == b':' {
                return Err(err("too many colons in address"));
            }
            return Err(err("missing port in address"));
        }
        host = &hostport[1..end];
        j = 1;
        k = end + 1;
    } else {
        host = &hostport[..i];
        if host.contains(':') {
            return Err(err("too many colons in address"));
        }
        j = 0;
        k = 0;
    }
    if hostport[j..].contains('[') {
        return Err(err("unexpected '[' in address"));
    }
    if hostport[k..].contains(']') {
        return Err(err("unexpected ']' in address"));
    }
    Ok((host, &hostport[i + 1..]))
}

/// Istio's ValidateProxyAddress.
pub(crate) fn validate_proxy_address(addr: &str) -> Result<(), AddressError> {
    let (host, port) = split_host_port(addr)?;
    let port = go_atoi(port).map_err(|why| AddressError::PortNotNumber {
        port: port.to_string(),
        why,
    })?;
    validate_port(port)?;
    // Go's netip.ParseAddr also takes IPv6 zones (fe80::1%eth0), which std does not.
    if validate_fqdn(host).is_err() && host.parse::<std::net::IpAddr>().is_err() {
        return Err(AddressError::Host(host.to_string()));
    }
    Ok(())
}

/// Istio's ValidateDuration: at least 1ms, whole milliseconds.
fn validate_duration(d: Nanos) -> Result<(), &'static str> {
    if d < MILLISECOND {
        return Err("duration must be greater than 1ms");
    }
    if d % MILLISECOND != 0 {
        return Err("only durations to ms precision are supported");
    }
    Ok(())
}

/// The defaults ApplyMeshConfigDefaults starts from, as far as the rules read them.
fn defaults() -> Value {
    json!({
        "proxyListenPort": 15001,
        "connectTimeout": "10s",
        "protocolDetectionTimeout": "0s",
        "trustDomain": "cluster.local",
        "localityLbSetting": {"enabled": true},
        "defaultConfig": {
            "configPath": "./etc/istio/proxy",
            "binaryPath": "/usr/local/bin/envoy",
            "serviceCluster": "istio-proxy",
            "drainDuration": "45s",
            "terminationDrainDuration": "5s",
            "proxyAdminPort": 15000,
            "controlPlaneAuthPolicy": "MUTUAL_TLS",
            "discoveryAddress": "istiod.istio-system.svc:15012",
            "statNameLength": 189,
            "statusPort": 15020,
        },
    })
}

/// The user's (canonical) meshConfig over Istio's defaults, as ApplyMeshConfig lays it.
pub(crate) fn effective(user: &Value) -> Value {
    let mut eff = defaults();
    let Some(user) = user.as_object() else {
        return eff;
    };
    let out = eff.as_object_mut().expect("defaults are an object");
    for (k, v) in user {
        if k == "defaultConfig"
            && let (Some(pc), Some(Value::Object(base))) = (v.as_object(), out.get_mut(k))
        {
            for (pk, pv) in pc {
                match (pk.as_str(), base.get_mut(pk), pv) {
                    ("proxyMetadata", Some(Value::Object(old)), Value::Object(new)) => {
                        old.extend(new.clone())
                    }
                    _ => {
                        base.insert(pk.clone(), pv.clone());
                    }
                }
            }
            continue;
        }
        out.insert(k.clone(), v.clone());
    }
    eff
}

fn key(p: &[PathSeg], k: &str) -> Vec<PathSeg> {
    let mut p = p.to_vec();
    p.push(PathSeg::Key(k.to_string()));
    p
}

fn idx(p: &[PathSeg], i: usize) -> Vec<PathSeg> {
    let mut p = p.to_vec();
    p.push(PathSeg::Index(i));
    p
}

/// An integer field: jsonpb takes a number or a quoted one (decoding already checked which).
fn int(v: Option<&Value>) -> Option<i64> {
    match v? {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        Value::String(s) => s.parse::<f64>().ok().map(|f| f as i64),
        _ => None,
    }
}

fn text(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str)
}

fn duration(v: Option<&Value>) -> Option<Nanos> {
    text(v).and_then(|s| gotime::parse_duration(s).ok())
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|s| s.as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

struct Rules {
    out: Vec<Finding>,
}

impl Rules {
    fn error(&mut self, path: Vec<PathSeg>, message: impl Into<String>) {
        self.out.push(Finding {
            path,
            message: message.into(),
            severity: Severity::Error,
        });
    }

    fn warn(&mut self, path: Vec<PathSeg>, message: impl Into<String>) {
        self.out.push(Finding {
            path,
            message: message.into(),
            severity: Severity::Warning,
        });
    }
}

/// ValidateMeshConfig over the effective config `eff` (see [`effective`]), in Istio's order.
pub(crate) fn check(eff: &Value) -> Vec<Finding> {
    let mut r = Rules { out: Vec::new() };
    let root: Vec<PathSeg> = Vec::new();
    let port = int(eff.get("proxyListenPort")).unwrap_or(0);
    if let Err(e) = validate_port(port) {
        r.error(
            key(&root, "proxyListenPort"),
            format!("invalid proxy listen port: {e}"),
        );
    }
    let ct = duration(eff.get("connectTimeout")).unwrap_or(0);
    let ct_err = validate_duration(ct)
        .map_err(str::to_string)
        .and_then(|()| {
            if !(MILLISECOND..=HOUR).contains(&ct) {
                Err(format!(
                    "time {} must be >{} and <{}",
                    gotime::format_duration(ct),
                    gotime::format_duration(MILLISECOND),
                    gotime::format_duration(HOUR)
                ))
            } else {
                Ok(())
            }
        });
    if let Err(e) = ct_err {
        r.error(
            key(&root, "connectTimeout"),
            format!("invalid connect timeout: {e}"),
        );
    }
    let pdt = duration(eff.get("protocolDetectionTimeout")).unwrap_or(0);
    if pdt != 0 && pdt % MILLISECOND != 0 {
        r.error(
            key(&root, "protocolDetectionTimeout"),
            "invalid protocol detection timeout: only durations to ms precision are supported",
        );
    }
    if let Some(pc) = eff.get("defaultConfig") {
        proxy_config(&mut r, pc, &key(&root, "defaultConfig"));
    }
    if let Some(lb) = eff.get("localityLbSetting") {
        locality_lb(&mut r, lb, &key(&root, "localityLbSetting"));
    }
    if let Some(lb) = eff.get("zoneAwareLbSetting") {
        zone_aware_lb(&mut r, lb, &key(&root, "zoneAwareLbSetting"));
    }
    service_settings(&mut r, eff);
    trust_domains(&mut r, eff);
    let mtls_curves = eff
        .get("meshMTLS")
        .and_then(|m| m.get("ecdhCurves"))
        .and_then(Value::as_array);
    // An empty list decodes to a nil slice, which Istio's `!= nil` lets through.
    if mtls_curves.is_some_and(|c| !c.is_empty()) {
        r.error(
            key(&key(&root, "meshMTLS"), "ecdhCurves"),
            "mesh TLS does not support ECDH curves configuration",
        );
    }
    tls_defaults(&mut r, eff);
    if let Some(dtp) = eff.get("defaultTrafficPolicy") {
        default_traffic_policy(&mut r, dtp, &key(&root, "defaultTrafficPolicy"));
    }
    r.out
}

/// ValidateMeshConfigProxyConfig.
fn proxy_config(r: &mut Rules, pc: &Value, at: &[PathSeg]) {
    for (field, what) in [("configPath", "config path"), ("binaryPath", "binary path")] {
        if text(pc.get(field)).unwrap_or_default().is_empty() {
            r.error(key(at, field), format!("{what} must be set"));
        }
    }
    // clusterName is a oneof; tracingServiceName is declared later, so it wins when both are set.
    if pc.get("tracingServiceName").is_none()
        && text(pc.get("serviceCluster"))
            .unwrap_or_default()
            .is_empty()
    {
        r.error(
            key(at, "serviceCluster"),
            "service cluster must be specified",
        );
    }
    let drain = duration(pc.get("drainDuration")).unwrap_or(0);
    match validate_duration(drain) {
        Err(e) => r.error(
            key(at, "drainDuration"),
            format!("invalid drain duration: {e}"),
        ),
        Ok(()) if drain % SECOND != 0 => r.error(
            key(at, "drainDuration"),
            "drain time only supports durations to seconds precision",
        ),
        Ok(()) => {}
    }
    match text(pc.get("discoveryAddress")).unwrap_or_default() {
        "" => r.error(
            key(at, "discoveryAddress"),
            "discovery address must be set to the proxy discovery service",
        ),
        a => {
            if let Err(e) = validate_proxy_address(a) {
                r.error(
                    key(at, "discoveryAddress"),
                    format!("invalid discovery address: {e}"),
                );
            }
        }
    }
    if let Some(tr) = pc.get("tracing") {
        tracing(r, tr, &key(at, "tracing"));
    }
    if let Some(a) = text(pc.get("statsdUdpAddress")).filter(|a| !a.is_empty())
        && let Err(e) = validate_proxy_address(a)
    {
        r.error(
            key(at, "statsdUdpAddress"),
            format!("invalid statsd udp address {}: {e}", gotime::go_quote(a)),
        );
    }
    if let Some(a) = text(pc.get("envoyMetricsServiceAddress")).filter(|a| !a.is_empty())
        && let Err(e) = validate_proxy_address(a)
    {
        r.error(
            key(at, "envoyMetricsServiceAddress"),
            format!(
                "invalid envoy metrics service address {}: {e}",
                gotime::go_quote(a)
            ),
        );
    }
    if pc
        .get("proxyMetadata")
        .and_then(|m| m.get("ISTIO_META_DNS_AUTO_ALLOCATE"))
        .is_some()
    {
        r.warn(
            key(&key(at, "proxyMetadata"), "ISTIO_META_DNS_AUTO_ALLOCATE"),
            "'ISTIO_META_DNS_AUTO_ALLOCATE' is deprecated; review https://istio.io/latest/docs/ops/configuration/traffic-management/dns-proxy/#dns-auto-allocation-v2 for information about replacement functionality",
        );
    }
    for (field, what) in [
        ("envoyMetricsService", "envoy metrics service"),
        ("envoyAccessLogService", "envoy access log service"),
    ] {
        let svc = key(at, field);
        if let Some(a) = pc
            .get(field)
            .and_then(|s| text(s.get("address")))
            .filter(|a| !a.is_empty())
            && let Err(e) = validate_proxy_address(a)
        {
            r.error(
                key(&svc, "address"),
                format!("invalid {what} address {}: {e}", gotime::go_quote(a)),
            );
        }
    }
    let admin = int(pc.get("proxyAdminPort")).unwrap_or(0);
    if let Err(e) = validate_port(admin) {
        r.error(
            key(at, "proxyAdminPort"),
            format!("invalid proxy admin port: {e}"),
        );
    }
    // AuthenticationPolicy: NONE = 0, MUTUAL_TLS = 1, INHERIT = 1000; Go prints the enum's
    // name, or its number when it has none.
    let policy = match pc.get("controlPlaneAuthPolicy") {
        Some(Value::String(s)) => s.clone(),
        Some(v) => match int(Some(v)) {
            Some(0) => "NONE".to_string(),
            Some(1) => "MUTUAL_TLS".to_string(),
            Some(1000) => "INHERIT".to_string(),
            Some(n) => n.to_string(),
            None => "MUTUAL_TLS".to_string(),
        },
        None => "NONE".to_string(),
    };
    if policy != "NONE" && policy != "MUTUAL_TLS" {
        r.error(
            key(at, "controlPlaneAuthPolicy"),
            format!(
                "invalid authentication policy: unrecognized control plane auth policy {}",
                gotime::go_quote(&policy)
            ),
        );
    }
    let status = int(pc.get("statusPort")).unwrap_or(0);
    if let Err(e) = validate_port(status) {
        r.error(key(at, "statusPort"), format!("invalid status port: {e}"));
    }
    if let Some(pkp) = pc.get("privateKeyProvider") {
        private_key_provider(r, pkp, &key(at, "privateKeyProvider"));
    }
    if let Some(cs) = pc.get("connectionSettings") {
        connection_settings(r, cs, &key(at, "connectionSettings"));
    }
}

fn tracing(r: &mut Rules, tr: &Value, at: &[PathSeg]) {
    if let Some(ls) = tr.get("lightstep") {
        let p = key(at, "lightstep");
        let addr = text(ls.get("address")).unwrap_or_default();
        let prefix = "invalid lightstep config:";
        if addr.is_empty() {
            r.error(key(&p, "address"), format!("{prefix} address is required"));
        }
        if let Err(e) = validate_proxy_address(addr) {
            r.error(
                key(&p, "address"),
                format!("{prefix} invalid lightstep address: {e}"),
            );
        }
        if text(ls.get("accessToken")).unwrap_or_default().is_empty() {
            r.error(
                key(&p, "accessToken"),
                format!("{prefix} access token is required"),
            );
        }
    }
    for (field, what) in [("zipkin", "zipkin"), ("datadog", "datadog")] {
        if let Some(t) = tr.get(field) {
            // $(HOST_IP) stands for the node's address, filled in at runtime.
            let addr =
                text(t.get("address"))
                    .unwrap_or_default()
                    .replacen("$(HOST_IP)", "127.0.0.1", 1);
            if let Err(e) = validate_proxy_address(&addr) {
                r.error(
                    key(&key(at, field), "address"),
                    format!("invalid {what} config: {e}"),
                );
            }
        }
    }
    if let Some(tls) = tr.get("tlsSettings") {
        client_tls(r, tls, &key(at, "tlsSettings"));
    }
}

/// ValidateTLS for the tracer's ClientTLSSettings (Istio passes no config namespace, so any
/// `configmap://` credential is refused).
fn client_tls(r: &mut Rules, tls: &Value, at: &[PathSeg]) {
    let prefix = "invalid tracing TLS config:";
    let s = |f: &str| text(tls.get(f)).unwrap_or_default();
    let cred = s("credentialName");
    if let Some(res) = cred.strip_prefix("configmap://") {
        let parts: Vec<&str> = res.split('/').collect();
        let why = if parts.len() <= 1 {
            format!(
                "invalid resource name {}. Expected namespace and name",
                gotime::go_quote(cred)
            )
        } else if parts[0].is_empty() {
            format!(
                "invalid resource name {}. Expected namespace",
                gotime::go_quote(cred)
            )
        } else if parts[1].is_empty() {
            format!(
                "invalid resource name {}. Expected name",
                gotime::go_quote(cred)
            )
        } else {
            "namespace must match the configuration namespace \"\"".to_string()
        };
        r.error(
            key(at, "credentialName"),
            format!("{prefix} invalid configmap:// credentialName: {why}"),
        );
    }
    // TLSmode: DISABLE = 0, SIMPLE = 1, MUTUAL = 2, ISTIO_MUTUAL = 3.
    let mode = match tls.get("mode") {
        Some(Value::String(m)) => m.clone(),
        v => match int(v) {
            Some(1) => "SIMPLE".into(),
            Some(2) => "MUTUAL".into(),
            _ => String::new(),
        },
    };
    // A repeated field is "set" once it has an element.
    let sans = tls
        .get("subjectAltNames")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty());
    if tls.get("insecureSkipVerify") == Some(&Value::Bool(true)) {
        if mode == "SIMPLE" && (!s("caCertificates").is_empty() || !cred.is_empty() || sans) {
            r.error(
                at.to_vec(),
                format!("{prefix} cannot specify CaCertificates or CredentialName or SubjectAltNames when InsecureSkipVerify is set true"),
            );
        }
        if mode == "MUTUAL" && (!s("caCertificates").is_empty() || sans) {
            r.error(
                at.to_vec(),
                format!("{prefix} cannot specify CaCertificates or SubjectAltNames when InsecureSkipVerify is set true"),
            );
        }
    }
    if (mode == "SIMPLE" || mode == "MUTUAL") && !cred.is_empty() {
        if ["clientCertificate", "caCertificates", "privateKey", "caCrl"]
            .iter()
            .any(|f| !s(f).is_empty())
        {
            r.error(
                at.to_vec(),
                format!("{prefix} cannot specify client certificates or CA certificate or CA CRL If credentialName is set"),
            );
        }
        return;
    }
    if mode == "MUTUAL" {
        if s("clientCertificate").is_empty() {
            r.error(
                at.to_vec(),
                format!("{prefix} client certificate required for mutual tls"),
            );
        }
        if s("privateKey").is_empty() {
            r.error(
                at.to_vec(),
                format!("{prefix} private key required for mutual tls"),
            );
        }
    }
}

fn private_key_provider(r: &mut Rules, pkp: &Value, at: &[PathSeg]) {
    let prefix = "invalid private key provider configuration:";
    // The oneof: qat is declared after cryptomb, so it wins when both are set.
    let provider = ["qat", "cryptomb"]
        .into_iter()
        .find(|p| pkp.get(*p).is_some());
    let Some(name) = provider else {
        r.error(
            at.to_vec(),
            format!("{prefix} private key provider configuration is required"),
        );
        r.error(
            at.to_vec(),
            format!("{prefix} unknown private key provider"),
        );
        return;
    };
    let conf = &pkp[name];
    let p = key(at, name);
    match conf.get("pollDelay") {
        None => r.error(p, format!("{prefix} pollDelay is required")),
        Some(d) if duration(Some(d)) == Some(0) => r.error(
            key(&p, "pollDelay"),
            format!("{prefix} pollDelay must be non zero"),
        ),
        Some(_) => {}
    }
}

/// A wrapper integer's check: JSON name, Istio's (proto) name, the failing test, the message.
type IntRule = (&'static str, &'static str, fn(i64) -> bool, &'static str);

fn connection_settings(r: &mut Rules, cs: &Value, at: &[PathSeg]) {
    let prefix = "invalid connection settings:";
    // Wrappers: a check applies when the field is present, whatever its value.
    let ints: [IntRule; 6] = [
        (
            "listenerPerConnectionBufferLimitBytes",
            "listener_per_connection_buffer_limit_bytes",
            |v| v < 0,
            "must be non-negative",
        ),
        (
            "clusterPerConnectionBufferLimitBytes",
            "cluster_per_connection_buffer_limit_bytes",
            |v| v < 0,
            "must be non-negative",
        ),
        (
            "httpMaxConcurrentStreams",
            "http_max_concurrent_streams",
            |v| v <= 0,
            "must be positive",
        ),
        (
            "http2InitialStreamWindowSize",
            "http2_initial_stream_window_size",
            |v| v < 65535,
            "must be at least 65535",
        ),
        (
            "http2InitialConnectionWindowSize",
            "http2_initial_connection_window_size",
            |v| v < 65535,
            "must be at least 65535",
        ),
        (
            "listenerConnectionLimit",
            "listener_connection_limit",
            |v| v <= 0,
            "must be positive",
        ),
    ];
    let durations = [
        ("httpIdleTimeout", "http_idle_timeout"),
        ("httpMaxConnectionDuration", "http_max_connection_duration"),
        ("httpDrainTimeout", "http_drain_timeout"),
        ("httpRequestTimeout", "http_request_timeout"),
        ("httpRequestHeadersTimeout", "http_request_headers_timeout"),
        ("httpStreamIdleTimeout", "http_stream_idle_timeout"),
        ("httpMaxStreamDuration", "http_max_stream_duration"),
    ];
    // Istio's order: the two buffer limits, the durations, then the rest.
    for (field, name, bad, what) in &ints[..2] {
        if let Some(v) = int(cs.get(*field))
            && bad(v)
        {
            r.error(key(at, field), format!("{prefix} {name} {what}"));
        }
    }
    for (field, name) in durations {
        if duration(cs.get(field)).is_some_and(|d| d < 0) {
            r.error(
                key(at, field),
                format!("{prefix} {name} must be non-negative"),
            );
        }
    }
    for (field, name, bad, what) in &ints[2..] {
        if let Some(v) = int(cs.get(*field))
            && bad(v)
        {
            r.error(key(at, field), format!("{prefix} {name} {what}"));
        }
    }
    if let Some(v) = int(cs.get("globalDownstreamConnectionLimit"))
        && v <= 0
    {
        r.error(
            key(at, "globalDownstreamConnectionLimit"),
            format!("{prefix} global_downstream_connection_limit must be positive"),
        );
    }
}

const TOPOLOGY_LABELS: [&str; 3] = [
    "topology.kubernetes.io/region",
    "topology.kubernetes.io/zone",
    "topology.istio.io/subzone",
];

/// ValidateLocalityLbSetting (its early returns kept).
fn locality_lb(r: &mut Rules, lb: &Value, at: &[PathSeg]) {
    let distribute = lb
        .get("distribute")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let failover = lb
        .get("failover")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let priority = strings(lb.get("failoverPriority"));
    if !distribute.is_empty() && !failover.is_empty() {
        r.error(
            at.to_vec(),
            "can not simultaneously specify 'distribute' and 'failover'",
        );
        return;
    }
    if !failover.is_empty()
        && let Some(l) = priority
            .iter()
            .find(|l| TOPOLOGY_LABELS.contains(&l.as_str()))
    {
        r.error(
            key(at, "failoverPriority"),
            format!(
                "can not simultaneously set 'failover' and topology label '{l}' in 'failover_priority'"
            ),
        );
        return;
    }
    let mut sources = Vec::new();
    for (i, d) in distribute.iter().enumerate() {
        let p = idx(&key(at, "distribute"), i);
        sources.push(text(d.get("from")).unwrap_or_default().to_string());
        // Go walks the `to` map in random order; sorted keys make bosun's choice stable.
        let to: BTreeMap<String, i64> = d
            .get("to")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), int(Some(v)).unwrap_or(0)))
                    .collect()
            })
            .unwrap_or_default();
        if to.values().any(|w| *w <= 0 || *w > 100) {
            r.error(key(&p, "to"), "locality weight must be in range [1, 100]");
            return;
        }
        let total: i64 = to.values().sum();
        if total != 100 {
            r.error(
                key(&p, "to"),
                format!("total locality weight {total} != 100"),
            );
            return;
        }
        let dests: Vec<String> = to.keys().cloned().collect();
        if let Err(e) = validate_localities(&dests) {
            r.error(key(&p, "to"), e);
        }
    }
    if let Err(e) = validate_localities(&sources) {
        r.error(key(at, "distribute"), e);
    }
    for (i, f) in failover.iter().enumerate() {
        let p = idx(&key(at, "failover"), i);
        let from = text(f.get("from")).unwrap_or_default();
        let to = text(f.get("to")).unwrap_or_default();
        if from == to {
            r.error(
                p.clone(),
                "locality lb failover settings must specify different regions",
            );
        }
        if from.contains('/') || to.contains('/') {
            r.error(p.clone(), "locality lb failover only specify region");
        }
        if from.contains('*') || to.contains('*') {
            r.error(
                p,
                "locality lb failover region should not contain '*' wildcard",
            );
        }
    }
}

/// Istio's validateLocalities: `region[/zone[/subzone]]`, one trailing `*` at most, no overlap.
pub(crate) fn validate_localities(localities: &[String]) -> Result<(), String> {
    // region → zone → subzones; "*" marks "all below".
    let mut seen: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    let overlap = |l: &str| format!("locality {l} overlap with previous specified ones");
    for l in localities {
        let stars = l.matches('*').count();
        if stars > 0 && (stars > 1 || !l.ends_with('*')) {
            return Err(format!(
                "locality {l} wildcard '*' number can not exceed 1 and must be in the end"
            ));
        }
        if seen.contains_key("*") {
            return Err(overlap(l));
        }
        let items: Vec<&str> = l.splitn(3, '/').collect();
        if items.iter().any(|i| i.is_empty()) {
            return Err(format!(
                "locality {l} must not contain empty region/zone/subzone info"
            ));
        }
        let region = items[0].to_string();
        match items.len() {
            1 => {
                if seen.contains_key(&region) {
                    return Err(overlap(l));
                }
                seen.insert(
                    region,
                    BTreeMap::from([("*".to_string(), BTreeSet::from(["*".to_string()]))]),
                );
            }
            2 => {
                let zone = items[1].to_string();
                let zones = seen.entry(region).or_default();
                if zones.contains_key("*") || zones.contains_key(&zone) {
                    return Err(overlap(l));
                }
                zones.insert(zone, BTreeSet::from(["*".to_string()]));
            }
            _ => {
                let (zone, sub) = (items[1].to_string(), items[2].to_string());
                let zones = seen.entry(region).or_default();
                if zones.contains_key("*") {
                    return Err(overlap(l));
                }
                let subs = zones.entry(zone).or_default();
                if subs.contains("*") || subs.contains(&sub) {
                    return Err(overlap(l));
                }
                subs.insert(sub);
            }
        }
    }
    Ok(())
}

/// ValidateZoneAwareLbSetting (mesh-wide: the outlier-detection warning never fires there).
fn zone_aware_lb(r: &mut Rules, lb: &Value, at: &[PathSeg]) {
    for (i, l) in strings(lb.get("failoverPriority")).iter().enumerate() {
        if TOPOLOGY_LABELS.contains(&l.as_str()) {
            r.error(
                idx(&key(at, "failoverPriority"), i),
                format!(
                    "'failover_priority' for zone aware lb must not use topology label '{l}'; region- and zone-level routing are handled automatically"
                ),
            );
        }
    }
    let failover = lb
        .get("failover")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for (i, f) in failover.iter().enumerate() {
        let p = idx(&key(at, "failover"), i);
        let from = text(f.get("from")).unwrap_or_default();
        let to = text(f.get("to")).unwrap_or_default();
        if from == to {
            r.error(
                p.clone(),
                "zone aware lb failover settings must specify different regions",
            );
        }
        if from.contains('/') || to.contains('/') {
            r.error(
                p.clone(),
                "zone aware lb failover only specifies region; zone and subzone failover are handled automatically",
            );
        }
        if from.contains('*') || to.contains('*') {
            r.error(
                p,
                "zone aware lb failover region should not contain '*' wildcard",
            );
        }
    }
}

fn service_settings(r: &mut Rules, eff: &Value) {
    let Some(list) = eff.get("serviceSettings").and_then(Value::as_array) else {
        return;
    };
    for (i, s) in list.iter().enumerate() {
        for (j, h) in strings(s.get("hosts")).iter().enumerate() {
            if let Err(e) = validate_wildcard_domain(h) {
                r.error(
                    idx(&key(&idx(&key(&[], "serviceSettings"), i), "hosts"), j),
                    format!("serviceSettings[{i}], host `{h}`: {e}"),
                );
            }
        }
    }
}

fn trust_domains(r: &mut Rules, eff: &Value) {
    let td = text(eff.get("trustDomain")).unwrap_or_default();
    if let Err(e) = validate_trust_domain(td) {
        r.error(key(&[], "trustDomain"), format!("trustDomain: {e}"));
    }
    // ApplyMeshConfig sorts and dedups the aliases before checking, so Istio's index is
    // into that list; the path points at the user's first entry with the name.
    let aliases = strings(eff.get("trustDomainAliases"));
    let sorted: BTreeSet<&String> = aliases.iter().collect();
    for (i, a) in sorted.iter().enumerate() {
        if let Err(e) = validate_trust_domain(a) {
            let at = aliases.iter().position(|x| x == *a).unwrap_or(0);
            r.error(
                idx(&key(&[], "trustDomainAliases"), at),
                format!("trustDomainAliases[{i}], domain `{a}` : {e}"),
            );
        }
    }
}

const ECDH_CURVES: [&str; 7] = [
    "P-224",
    "P-256",
    "P-521",
    "P-384",
    "X25519",
    "X25519Kyber768Draft00",
    "X25519MLKEM768",
];

/// ValidateMeshTLSDefaults: unknown or repeated curves are warnings, listed sorted as Go does.
fn tls_defaults(r: &mut Rules, eff: &Value) {
    let curves = strings(eff.get("tlsDefaults").and_then(|t| t.get("ecdhCurves")));
    let (mut unknown, mut valid, mut dup) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    for c in &curves {
        if !c.is_empty() && !ECDH_CURVES.contains(&c.as_str()) {
            unknown.insert(c.as_str());
        } else if !valid.insert(c.as_str()) {
            dup.insert(c.as_str());
        }
    }
    let at = key(&key(&[], "tlsDefaults"), "ecdhCurves");
    let list = |s: &BTreeSet<&str>| s.iter().copied().collect::<Vec<_>>().join(" ");
    if !unknown.is_empty() {
        r.warn(
            at.clone(),
            format!("detected unrecognized ECDH curves: [{}]", list(&unknown)),
        );
    }
    if !dup.is_empty() {
        r.warn(
            at,
            format!("detected duplicate ECDH curves: [{}]", list(&dup)),
        );
    }
}

/// validateMeshConfigDefaultTrafficPolicy: DestinationRule's connection pool and outlier
/// detection checks, mesh-wide.
fn default_traffic_policy(r: &mut Rules, dtp: &Value, at: &[PathSeg]) {
    let dur_check = |r: &mut Rules, v: Option<&Value>, p: Vec<PathSeg>| {
        if let Some(d) = duration(v)
            && let Err(e) = validate_duration(d)
        {
            r.error(p, e);
        }
    };
    if let Some(cp) = dtp.get("connectionPool") {
        let p = key(at, "connectionPool");
        if cp.get("http").is_none() && cp.get("tcp").is_none() {
            r.error(p.clone(), "connection pool must have at least one field");
        }
        if let Some(http) = cp.get("http") {
            let hp = key(&p, "http");
            for (field, what) in [
                ("http1MaxPendingRequests", "http1 max pending requests"),
                ("http2MaxRequests", "http2 max requests"),
                ("maxRequestsPerConnection", "max requests per connection"),
                ("maxRetries", "max retries"),
                ("maxConcurrentStreams", "max concurrent streams"),
            ] {
                if int(http.get(field)).is_some_and(|v| v < 0) {
                    r.error(key(&hp, field), format!("{what} must be non-negative"));
                }
            }
            dur_check(r, http.get("idleTimeout"), key(&hp, "idleTimeout"));
            let upgrade = match http.get("h2UpgradePolicy") {
                Some(Value::String(s)) => s == "UPGRADE",
                v => int(v) == Some(2),
            };
            if upgrade && http.get("useClientProtocol") == Some(&Value::Bool(true)) {
                r.error(
                    key(&hp, "useClientProtocol"),
                    "use client protocol must not be true when H2UpgradePolicy is UPGRADE",
                );
            }
        }
        if let Some(tcp) = cp.get("tcp") {
            let tp = key(&p, "tcp");
            if int(tcp.get("maxConnections")).is_some_and(|v| v < 0) {
                r.error(
                    key(&tp, "maxConnections"),
                    "max connections must be non-negative",
                );
            }
            dur_check(r, tcp.get("connectTimeout"), key(&tp, "connectTimeout"));
            dur_check(
                r,
                tcp.get("maxConnectionDuration"),
                key(&tp, "maxConnectionDuration"),
            );
            // A zero idle timeout means "none" here.
            if duration(tcp.get("idleTimeout")).is_some_and(|d| d / MILLISECOND != 0) {
                dur_check(r, tcp.get("idleTimeout"), key(&tp, "idleTimeout"));
            }
            if let Some(ka) = tcp.get("tcpKeepalive") {
                let kp = key(&tp, "tcpKeepalive");
                dur_check(r, ka.get("time"), key(&kp, "time"));
                dur_check(r, ka.get("interval"), key(&kp, "interval"));
            }
        }
    }
    if let Some(od) = dtp.get("outlierDetection") {
        let p = key(at, "outlierDetection");
        dur_check(r, od.get("baseEjectionTime"), key(&p, "baseEjectionTime"));
        dur_check(r, od.get("interval"), key(&p, "interval"));
        let split = od.get("splitExternalLocalOriginErrors") == Some(&Value::Bool(true));
        if !split && int(od.get("consecutiveLocalOriginFailures")).is_some_and(|v| v > 0) {
            r.error(
                key(&p, "consecutiveLocalOriginFailures"),
                "outlier detection consecutive local origin failures is specified, but split external local origin errors is set to false",
            );
        }
        for field in ["maxEjectionPercent", "minHealthPercent"] {
            let v = int(od.get(field)).unwrap_or(0);
            if !(0..=100).contains(&v) {
                r.error(
                    key(&p, field),
                    format!("percentage {v} is not in range 0..100"),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(user: Value) -> Vec<String> {
        check(&effective(&user))
            .into_iter()
            .map(|f| f.message)
            .collect()
    }

    #[test]
    fn defaults_are_valid() {
        assert!(messages(json!({})).is_empty());
        assert!(messages(json!({"defaultConfig": {"concurrency": -1}})).is_empty());
    }

    #[test]
    fn ports_and_timeouts() {
        assert_eq!(
            messages(json!({"proxyListenPort": 99999})),
            ["invalid proxy listen port: port number 99999 must be in the range 1..65535"]
        );
        assert_eq!(
            messages(json!({"connectTimeout": "0s"})),
            ["invalid connect timeout: duration must be greater than 1ms"]
        );
        assert_eq!(
            messages(json!({"connectTimeout": "2h"})),
            ["invalid connect timeout: time 2h0m0s must be >1ms and <1h0m0s"]
        );
        assert_eq!(
            messages(json!({"protocolDetectionTimeout": "1500us"})),
            ["invalid protocol detection timeout: only durations to ms precision are supported"]
        );
        assert!(messages(json!({"protocolDetectionTimeout": "0s"})).is_empty());
    }

    #[test]
    fn proxy_config_merges_over_defaults() {
        assert!(messages(json!({"defaultConfig": {"proxyMetadata": {"A": "b"}}})).is_empty());
        assert_eq!(
            messages(json!({"defaultConfig": {"discoveryAddress": "istiod:abc"}})),
            [
                "invalid discovery address: port (abc) is not a number: strconv.Atoi: parsing \"abc\": invalid syntax"
            ]
        );
        assert_eq!(
            messages(json!({"defaultConfig": {"drainDuration": "1500ms"}})),
            ["drain time only supports durations to seconds precision"]
        );
        assert_eq!(
            messages(json!({"defaultConfig": {"serviceCluster": ""}})),
            ["service cluster must be specified"]
        );
        assert!(
            messages(json!({"defaultConfig": {"serviceCluster": "", "tracingServiceName": "APP_LABEL_AND_NAMESPACE"}}))
                .is_empty()
        );
        assert_eq!(
            messages(json!({"defaultConfig": {"controlPlaneAuthPolicy": "INHERIT"}})),
            ["invalid authentication policy: unrecognized control plane auth policy \"INHERIT\""]
        );
    }

    #[test]
    fn addresses_follow_go() {
        assert!(validate_proxy_address("istiod.istio-system.svc:15012").is_ok());
        assert!(validate_proxy_address("[::1]:80").is_ok());
        assert!(validate_proxy_address("10.0.0.1:80").is_ok());
        assert_eq!(
            validate_proxy_address("istiod").unwrap_err().to_string(),
            "unable to split \"istiod\": address istiod: missing port in address"
        );
        assert_eq!(
            validate_proxy_address("a:b:1").unwrap_err().to_string(),
            "unable to split \"a:b:1\": address a:b:1: too many colons in address"
        );
        assert_eq!(
            validate_proxy_address("host:0").unwrap_err().to_string(),
            "port number 0 must be in the range 1..65535"
        );
        assert_eq!(
            validate_proxy_address("bad_host:80")
                .unwrap_err()
                .to_string(),
            "\"bad_host\" is not a valid hostname or an IP address"
        );
    }

    #[test]
    fn domains() {
        assert!(validate_trust_domain("cluster.local").is_ok());
        assert!(validate_trust_domain("Example.COM").is_ok());
        assert!(validate_trust_domain("istio.io.").is_ok());
        assert!(validate_trust_domain("a_b").is_err());
        assert!(validate_trust_domain("a..b").is_err());
        assert!(validate_wildcard_domain("*.example.com").is_ok());
        assert!(validate_wildcard_domain("*-x.example.com").is_ok());
        assert_eq!(
            validate_wildcard_domain("a.*.com").unwrap_err(),
            "domain name \"*.com\" invalid (label \"*\" invalid)"
        );
        assert_eq!(
            validate_fqdn("a.123").unwrap_err(),
            "domain name \"a.123\" invalid (top level domain \"123\" cannot be all-numeric)"
        );
    }

    #[test]
    fn aliases_are_indexed_sorted() {
        assert_eq!(
            messages(json!({"trustDomainAliases": ["z_z", "a.b"]})),
            ["trustDomainAliases[1], domain `z_z` : trust domain name \"z_z\" invalid"]
        );
    }

    #[test]
    fn localities() {
        let l =
            |v: &[&str]| validate_localities(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert!(l(&["us", "eu/west", "eu/east/1"]).is_ok());
        assert_eq!(
            l(&["us", "us/west"]).unwrap_err(),
            "locality us/west overlap with previous specified ones"
        );
        assert_eq!(
            l(&["u*s"]).unwrap_err(),
            "locality u*s wildcard '*' number can not exceed 1 and must be in the end"
        );
        assert_eq!(
            l(&["us//a"]).unwrap_err(),
            "locality us//a must not contain empty region/zone/subzone info"
        );
        assert_eq!(
            messages(
                json!({"localityLbSetting": {"distribute": [{"from": "a", "to": {"b": 50}}]}})
            ),
            ["total locality weight 50 != 100"]
        );
        assert_eq!(
            messages(
                json!({"localityLbSetting": {"distribute": [{"from": "a", "to": {"b": 100}}], "failover": [{"from": "a", "to": "b"}]}})
            ),
            ["can not simultaneously specify 'distribute' and 'failover'"]
        );
    }

    #[test]
    fn tracing_tls() {
        let tls = |t: Value| messages(json!({"defaultConfig": {"tracing": {"tlsSettings": t}}}));
        assert!(tls(json!({"mode": "SIMPLE"})).is_empty());
        assert_eq!(
            tls(json!({"mode": "MUTUAL"})),
            [
                "invalid tracing TLS config: client certificate required for mutual tls",
                "invalid tracing TLS config: private key required for mutual tls"
            ]
        );
        assert_eq!(
            tls(json!({"mode": "SIMPLE", "credentialName": "configmap://ns/name"})),
            [
                "invalid tracing TLS config: invalid configmap:// credentialName: namespace must match the configuration namespace \"\""
            ]
        );
        assert_eq!(
            tls(json!({"mode": "SIMPLE", "insecureSkipVerify": true, "subjectAltNames": ["a"]})),
            [
                "invalid tracing TLS config: cannot specify CaCertificates or CredentialName or SubjectAltNames when InsecureSkipVerify is set true"
            ]
        );
    }

    #[test]
    fn tls_and_traffic_policy() {
        assert_eq!(
            messages(json!({"tlsDefaults": {"ecdhCurves": ["P-256", "P-256", "bogus"]}})),
            [
                "detected unrecognized ECDH curves: [bogus]",
                "detected duplicate ECDH curves: [P-256]"
            ]
        );
        assert!(messages(json!({"meshMTLS": {"ecdhCurves": []}})).is_empty());
        assert_eq!(
            messages(json!({"meshMTLS": {"ecdhCurves": ["P-256"]}})),
            ["mesh TLS does not support ECDH curves configuration"]
        );
        assert_eq!(
            messages(json!({"defaultTrafficPolicy": {"connectionPool": {}}})),
            ["connection pool must have at least one field"]
        );
        assert_eq!(
            messages(
                json!({"defaultTrafficPolicy": {"outlierDetection": {"maxEjectionPercent": 101}}})
            ),
            ["percentage 101 is not in range 0..100"]
        );
    }
}
