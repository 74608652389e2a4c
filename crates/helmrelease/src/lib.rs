//! Helm's release records, as helm v4 (`helm.sh/helm/v4`, storage driver `Secret`) reads and
//! writes them: one Secret per release revision, named `sh.helm.release.v1.<release>.v<N>`, of
//! type `helm.sh/release.v1`, labelled `name`, `owner: helm`, `status`, `version` (and
//! `createdAt` / `modifiedAt`, Unix seconds), whose `release` data is base64 of the gzipped
//! JSON of the release (`pkg/release/v1.Release`: name, namespace, version, info, chart,
//! config, manifest, hooks, `apply_method`).
//!
//! Owns: the record's format, both ways ([`Release`] to a [`Secret`](k8s_openapi::api::core::v1::Secret)
//! with [`Release::to_secret`]; a Secret back to a [`Record`] with [`Record::from_secret`],
//! lossless, so that a record helm wrote can be re-labelled `superseded` without dropping what
//! bosun does not model), a chart as helm stores it inside a release ([`chart_json`]), and
//! the manifest text ([`manifest_text`]).
//!
//! Must not: do I/O (reading and writing Secrets is `cluster`'s), or decide which releases an
//! install makes and when a new revision is due (`installer`'s).

use std::collections::BTreeMap;
use std::io::{Read, Write};

use base64::Engine;
use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde_json::{Map, Value, json};

/// The Secret type helm gives its release records.
pub const SECRET_TYPE: &str = "helm.sh/release.v1";
/// The `owner` label's value on every record.
pub const OWNER: &str = "helm";
/// The labels helm's Secret driver sets itself (and filters out of a release's own labels).
pub const SYSTEM_LABELS: [&str; 6] = [
    "name",
    "owner",
    "status",
    "version",
    "createdAt",
    "modifiedAt",
];
/// helm's default `--history-max`: revisions kept per release.
pub const DEFAULT_MAX_HISTORY: usize = 10;
/// helm v4's `apply_method` for server-side apply (its install default).
pub const APPLY_METHOD_SERVER_SIDE: &str = "ssa";

/// A release's status, as helm's `common.Status` spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Deployed,
    Superseded,
    Failed,
    Uninstalled,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Deployed => "deployed",
            Status::Superseded => "superseded",
            Status::Failed => "failed",
            Status::Uninstalled => "uninstalled",
        }
    }
}

/// Why a Secret is not a helm release record.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error(
        "Secret {namespace}/{name} is not a helm release record: its type is {found:?}, not {SECRET_TYPE:?}"
    )]
    Type {
        namespace: String,
        name: String,
        found: String,
    },
    #[error("Secret {namespace}/{name} is not a helm release record: it has no `release` data")]
    NoData { namespace: String, name: String },
    #[error(
        "Secret {namespace}/{name} is not a helm release record: its `release` data is not base64: {source}"
    )]
    Base64 {
        namespace: String,
        name: String,
        #[source]
        source: base64::DecodeError,
    },
    #[error(
        "Secret {namespace}/{name} is not a helm release record: its `release` data does not unzip: {source}"
    )]
    Gzip {
        namespace: String,
        name: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "Secret {namespace}/{name} is not a helm release record: its release is not JSON: {source}"
    )]
    Json {
        namespace: String,
        name: String,
        #[source]
        source: serde_json::Error,
    },
    #[error("Secret {namespace}/{name} is not a helm release record: its release has no {field}")]
    Missing {
        namespace: String,
        name: String,
        field: &'static str,
    },
}

/// A chart that cannot be stored in a release (its values are not JSON).
#[derive(Debug, thiserror::Error)]
#[error("chart {chart}: its default values cannot be stored as JSON: {source}")]
pub struct ChartJsonError {
    pub chart: String,
    #[source]
    pub source: goyaml::json_value::NotJson,
}

/// A release revision bosun writes (the fields helm v4 reads; helm's other fields are left out
/// as helm leaves them out when empty).
#[derive(Debug, Clone, PartialEq)]
pub struct Release {
    pub name: String,
    pub namespace: String,
    pub version: u32,
    pub status: Status,
    pub description: String,
    /// RFC 3339 times, as Go writes a `time.Time` ([`go_time`]).
    pub first_deployed: String,
    pub last_deployed: String,
    /// The chart, as [`chart_json`] makes it.
    pub chart: Value,
    /// The values the user gave (helm's `config`; `helm get values` prints them).
    pub config: Map<String, Value>,
    /// The rendered objects ([`manifest_text`]).
    pub manifest: String,
    /// Labels of the release's own (not helm's system labels), kept on the Secret; helm carries
    /// them over to the revisions it makes.
    pub labels: BTreeMap<String, String>,
    /// helm v4's `apply_method`: `ssa` or `csa`.
    pub apply_method: String,
}

impl Release {
    /// The release as helm's JSON (`json.Marshal` of `release.Release`, keys in its field
    /// order as Go writes them).
    pub fn to_json(&self) -> Value {
        let mut info = Map::new();
        info.insert(
            "first_deployed".into(),
            Value::String(self.first_deployed.clone()),
        );
        info.insert(
            "last_deployed".into(),
            Value::String(self.last_deployed.clone()),
        );
        if !self.description.is_empty() {
            info.insert(
                "description".into(),
                Value::String(self.description.clone()),
            );
        }
        info.insert("status".into(), Value::String(self.status.as_str().into()));
        let mut out = Map::new();
        out.insert("name".into(), Value::String(self.name.clone()));
        out.insert("info".into(), Value::Object(info));
        out.insert("chart".into(), self.chart.clone());
        if !self.config.is_empty() {
            out.insert("config".into(), Value::Object(self.config.clone()));
        }
        if !self.manifest.is_empty() {
            out.insert("manifest".into(), Value::String(self.manifest.clone()));
        }
        out.insert("version".into(), json!(self.version));
        out.insert("namespace".into(), Value::String(self.namespace.clone()));
        if !self.apply_method.is_empty() {
            out.insert(
                "apply_method".into(),
                Value::String(self.apply_method.clone()),
            );
        }
        Value::Object(out)
    }

    /// The Secret helm would write for this revision; `now` (Unix seconds) is its `createdAt`.
    pub fn to_secret(&self, now: i64) -> Secret {
        let mut labels = self.labels.clone();
        labels.insert("createdAt".into(), now.to_string());
        secret(
            &self.name,
            &self.namespace,
            self.version,
            self.status,
            labels,
            &self.to_json(),
        )
    }
}

/// `sh.helm.release.v1.<release>.v<version>`: the Secret of one revision.
pub fn secret_name(release: &str, version: u32) -> String {
    format!("sh.helm.release.v1.{release}.v{version}")
}

/// The label selector of every revision of `release`.
pub fn selector(release: &str) -> String {
    format!("owner={OWNER},name={release}")
}

fn secret(
    release: &str,
    namespace: &str,
    version: u32,
    status: Status,
    mut labels: BTreeMap<String, String>,
    body: &Value,
) -> Secret {
    labels.insert("name".into(), release.to_string());
    labels.insert("owner".into(), OWNER.into());
    labels.insert("status".into(), status.as_str().into());
    labels.insert("version".into(), version.to_string());
    Secret {
        metadata: ObjectMeta {
            name: Some(secret_name(release, version)),
            namespace: Some(namespace.to_string()),
            labels: Some(labels),
            ..Default::default()
        },
        type_: Some(SECRET_TYPE.into()),
        data: Some(BTreeMap::from([(
            "release".to_string(),
            ByteString(encode(body).into_bytes()),
        )])),
        ..Default::default()
    }
}

/// base64 of the gzipped JSON (best compression, as helm writes it).
pub fn encode(body: &Value) -> String {
    let json = serde_json::to_vec(body).expect("a JSON value serializes");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(&json).expect("writing to memory");
    let zipped = gz.finish().expect("writing to memory");
    base64::engine::general_purpose::STANDARD.encode(zipped)
}

/// A release record read back: the release's JSON as helm wrote it (every field kept), and
/// the Secret's own labels.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The Secret's name.
    pub secret: String,
    pub namespace: String,
    pub labels: BTreeMap<String, String>,
    pub body: Value,
}

impl Record {
    /// Reads a release record from its Secret (helm's `decodeRelease`: base64, gunzip when
    /// the gzip magic is there, JSON), checking that it is one.
    pub fn from_secret(secret: &Secret) -> Result<Record, RecordError> {
        let name = secret.metadata.name.clone().unwrap_or_default();
        let namespace = secret.metadata.namespace.clone().unwrap_or_default();
        let found = secret.type_.clone().unwrap_or_default();
        if found != SECRET_TYPE {
            return Err(RecordError::Type {
                namespace,
                name,
                found,
            });
        }
        let Some(data) = secret.data.as_ref().and_then(|d| d.get("release")) else {
            return Err(RecordError::NoData { namespace, name });
        };
        let body = match decode(&data.0) {
            Ok(body) => body,
            Err(Decode::Base64(source)) => {
                return Err(RecordError::Base64 {
                    namespace,
                    name,
                    source,
                });
            }
            Err(Decode::Gzip(source)) => {
                return Err(RecordError::Gzip {
                    namespace,
                    name,
                    source,
                });
            }
            Err(Decode::Json(source)) => {
                return Err(RecordError::Json {
                    namespace,
                    name,
                    source,
                });
            }
        };
        let record = Record {
            secret: name.clone(),
            namespace: namespace.clone(),
            labels: secret.metadata.labels.clone().unwrap_or_default(),
            body,
        };
        for (field, ok) in [
            ("name", record.name().is_some()),
            ("version", record.version().is_some()),
            ("chart metadata name", record.chart_name().is_some()),
        ] {
            if !ok {
                return Err(RecordError::Missing {
                    namespace,
                    name,
                    field,
                });
            }
        }
        Ok(record)
    }

    fn str_at(&self, pointer: &str) -> Option<&str> {
        self.body.pointer(pointer).and_then(Value::as_str)
    }

    pub fn name(&self) -> Option<&str> {
        self.str_at("/name")
    }

    pub fn version(&self) -> Option<u32> {
        self.body
            .get("version")
            .and_then(Value::as_u64)
            .and_then(|v| u32::try_from(v).ok())
    }

    pub fn status(&self) -> &str {
        self.str_at("/info/status").unwrap_or("")
    }

    pub fn chart_name(&self) -> Option<&str> {
        self.str_at("/chart/metadata/name")
    }

    pub fn chart_version(&self) -> &str {
        self.str_at("/chart/metadata/version").unwrap_or("")
    }

    pub fn first_deployed(&self) -> Option<&str> {
        self.str_at("/info/first_deployed")
    }

    pub fn config(&self) -> Map<String, Value> {
        self.body
            .get("config")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    }

    pub fn manifest(&self) -> &str {
        self.str_at("/manifest").unwrap_or("")
    }

    /// The release's own labels (the Secret's, helm's system labels left out).
    pub fn own_labels(&self) -> BTreeMap<String, String> {
        self.labels
            .iter()
            .filter(|(k, _)| !SYSTEM_LABELS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// This record with another status, as helm's Update writes it (`modifiedAt` set to `now`,
    /// Unix seconds; everything else in the release kept).
    pub fn with_status(&self, status: Status, now: i64) -> Secret {
        let mut body = self.body.clone();
        if let Some(info) = body.get_mut("info").and_then(Value::as_object_mut) {
            info.insert("status".into(), Value::String(status.as_str().into()));
        }
        let mut labels = self.own_labels();
        if let Some(created) = self.labels.get("createdAt") {
            labels.insert("createdAt".into(), created.clone());
        }
        labels.insert("modifiedAt".into(), now.to_string());
        secret(
            self.name().unwrap_or_default(),
            &self.namespace,
            self.version().unwrap_or_default(),
            status,
            labels,
            &body,
        )
    }
}

enum Decode {
    Base64(base64::DecodeError),
    Gzip(std::io::Error),
    Json(serde_json::Error),
}

fn decode(data: &[u8]) -> Result<Value, Decode> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(Decode::Base64)?;
    let json = if bytes.len() > 3 && bytes[..3] == [0x1f, 0x8b, 0x08] {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(bytes.as_slice())
            .read_to_end(&mut out)
            .map_err(Decode::Gzip)?;
        out
    } else {
        bytes
    };
    serde_json::from_slice(&json).map_err(Decode::Json)
}

/// The files of a chart as helm stores it in a release ([`chart_json`]'s shape), by their
/// path in the chart: each of `templates` and `files` (its base64 `data`) and
/// `values.schema.json` (`schema`) when there is one. What two revisions' charts differ in,
/// file by file, when their names and versions agree.
///
/// The chart's `values` (its values.yaml) are not among them: `helm upgrade --reuse-values`
/// stores there the chart's values merged with the previous revision's, not the file.
pub fn chart_files(chart: &Value) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for list in ["templates", "files"] {
        for file in chart
            .get(list)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(name) = file.get("name").and_then(Value::as_str) {
                out.insert(
                    name.to_string(),
                    file.get("data").cloned().unwrap_or(Value::Null),
                );
            }
        }
    }
    if let Some(schema) = chart.get("schema").filter(|v| !v.is_null()) {
        out.insert("values.schema.json".into(), schema.clone());
    }
    out
}

/// The chart as helm stores it in a release (`chart.Chart`'s JSON): `metadata` (Chart.yaml),
/// `lock` (null: Istio's charts have no Chart.lock), `templates` and `files` (each `name` and
/// base64 `data`), `values` (values.yaml) and `schema` (values.schema.json, base64, or null).
pub fn chart_json(chart: &helm::chart::Chart) -> Result<Value, ChartJsonError> {
    let m = &chart.metadata;
    let mut meta = Map::new();
    let mut put = |key: &str, v: &str| {
        if !v.is_empty() {
            meta.insert(key.into(), Value::String(v.into()));
        }
    };
    put("name", &m.name);
    put("home", &m.home);
    let mut meta_lists = Vec::new();
    if !m.sources.is_empty() {
        meta_lists.push(("sources", json!(m.sources)));
    }
    put("version", &m.version);
    put("description", &m.description);
    if !m.keywords.is_empty() {
        meta_lists.push(("keywords", json!(m.keywords)));
    }
    put("icon", &m.icon);
    put("apiVersion", &m.api_version);
    put("condition", &m.condition);
    put("tags", &m.tags);
    put("appVersion", &m.app_version);
    put("kubeVersion", &m.kube_version);
    put("type", &m.chart_type);
    for (k, v) in meta_lists {
        meta.insert(k.into(), v);
    }
    if m.deprecated {
        meta.insert("deprecated".into(), Value::Bool(true));
    }
    if !m.maintainers.is_empty() {
        let list = m
            .maintainers
            .iter()
            .map(|x| {
                let mut o = Map::new();
                for (k, v) in [("name", &x.name), ("email", &x.email), ("url", &x.url)] {
                    if !v.is_empty() {
                        o.insert(k.into(), Value::String(v.clone()));
                    }
                }
                Value::Object(o)
            })
            .collect();
        meta.insert("maintainers".into(), Value::Array(list));
    }
    if !m.annotations.is_empty() {
        let o: Map<String, Value> = m
            .annotations
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        meta.insert("annotations".into(), Value::Object(o));
    }
    if !m.dependencies.is_empty() {
        let list = m
            .dependencies
            .iter()
            .map(|d| {
                let mut o = Map::new();
                o.insert("name".into(), Value::String(d.name.clone()));
                for (k, v) in [
                    ("version", &d.version),
                    ("repository", &d.repository),
                    ("condition", &d.condition),
                ] {
                    if !v.is_empty() {
                        o.insert(k.into(), Value::String(v.clone()));
                    }
                }
                if d.enabled {
                    o.insert("enabled".into(), Value::Bool(true));
                }
                Value::Object(o)
            })
            .collect();
        meta.insert("dependencies".into(), Value::Array(list));
    }
    let files = |files: &[helm::chart::ChartFile]| -> Value {
        Value::Array(
            files
                .iter()
                .map(|f| {
                    json!({
                        "name": f.path,
                        "data": base64::engine::general_purpose::STANDARD.encode(f.data.bytes()),
                    })
                })
                .collect(),
        )
    };
    let values =
        goyaml::json_value::to_json_value(&gotemplate_map(&chart.values)).map_err(|source| {
            ChartJsonError {
                chart: m.name.clone(),
                source,
            }
        })?;
    let schema = match &chart.schema {
        Some(s) => Value::String(base64::engine::general_purpose::STANDARD.encode(s)),
        None => Value::Null,
    };
    Ok(json!({
        "metadata": Value::Object(meta),
        "lock": Value::Null,
        "templates": files(&chart.templates),
        "values": values,
        "schema": schema,
        "files": files(&chart.files),
    }))
}

fn gotemplate_map(m: &gotemplate::Map) -> gotemplate::Value {
    gotemplate::Value::Map(m.clone())
}

/// A release's manifest from its objects' YAML documents (each ending in a newline), as helm
/// joins rendered documents: `---\n` before each.
pub fn manifest_text<'a>(documents: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for doc in documents {
        out.push_str("---\n");
        out.push_str(doc);
        if !doc.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// The documents of a manifest as [`manifest_text`] wrote it (or helm: a `# Source:` comment
/// line after each `---` is part of its document).
pub fn manifest_documents(manifest: &str) -> Vec<&str> {
    manifest
        .split("---\n")
        .filter(|d| !d.trim().is_empty())
        .collect()
}

/// A time as Go's `encoding/json` writes a `time.Time` in UTC (RFC 3339 with nanoseconds,
/// trailing zeros trimmed): `secs` and `nanos` since the Unix epoch.
pub fn go_time(secs: i64, nanos: u32) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let mut out = format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    );
    if nanos > 0 {
        let frac = format!("{nanos:09}");
        out.push('.');
        out.push_str(frac.trim_end_matches('0'));
    }
    out.push('Z');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_times() {
        assert_eq!(go_time(0, 0), "1970-01-01T00:00:00Z");
        assert_eq!(
            go_time(1_796_600_430, 120_000_000),
            "2026-12-06T23:40:30.12Z"
        );
        assert_eq!(go_time(951_782_400, 1), "2000-02-29T00:00:00.000000001Z");
    }

    #[test]
    fn manifest_documents_round_trip() {
        let docs = ["a: 1\n", "b: 2\n"];
        let text = manifest_text(docs);
        assert_eq!(text, "---\na: 1\n---\nb: 2\n");
        assert_eq!(manifest_documents(&text), docs);
    }

    #[test]
    fn chart_files_by_path() {
        let chart = json!({"metadata": {"name": "c", "version": "1"},
            "templates": [{"name": "templates/a.yaml", "data": "YQ==", "modtime": "t"}],
            "files": [{"name": "files/f.yaml", "data": "Zg=="}],
            "values": {"x": 1}, "schema": "e30="});
        let files = chart_files(&chart);
        assert_eq!(
            files.keys().map(String::as_str).collect::<Vec<_>>(),
            ["files/f.yaml", "templates/a.yaml", "values.schema.json"]
        );
        assert_eq!(files["templates/a.yaml"], "YQ==");
        let bare = json!({"metadata": {"name": "c"}, "schema": null});
        assert!(chart_files(&bare).is_empty());
    }
}
