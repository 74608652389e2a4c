//! The Go objects Helm puts in front of templates: `.Capabilities` (with `KubeVersion`,
//! `APIVersions`, `HelmVersion`) and `.Files`, with the fields, methods and printing that Go gives
//! them. `.Release`, `.Chart` and `.Template` are plain maps in Helm 4 and built in `engine`.

use std::rc::Rc;

use gotemplate::{ArgType, Field, Func, FuncError, List, Map, Object, Value};

use crate::chart::FileData;

/// Helm 4.1.4's identity, as `.Capabilities.HelmVersion` shows it.
pub const HELM_VERSION: &str = "v4.1.4";
const HELM_GIT_COMMIT: &str = "05fa37973dc9e42b76e1d2883494c87174b6074f";
const HELM_GO_VERSION: &str = "go1.25.9";
const HELM_KUBE_CLIENT_VERSION: &str = "v1.35";

/// Helm's default kube version for `helm template`.
pub const DEFAULT_KUBE_VERSION: &str = "v1.35.0";

/// The API versions `helm template` reports by default (Helm 4.1.4's built-in list, in its order).
pub const DEFAULT_API_VERSIONS: &[&str] = &[
    "v1",
    "admissionregistration.k8s.io/v1",
    "admissionregistration.k8s.io/v1alpha1",
    "admissionregistration.k8s.io/v1beta1",
    "internal.apiserver.k8s.io/v1alpha1",
    "apps/v1",
    "apps/v1beta1",
    "apps/v1beta2",
    "authentication.k8s.io/v1",
    "authentication.k8s.io/v1alpha1",
    "authentication.k8s.io/v1beta1",
    "authorization.k8s.io/v1",
    "authorization.k8s.io/v1beta1",
    "autoscaling/v1",
    "autoscaling/v2",
    "autoscaling/v2beta1",
    "autoscaling/v2beta2",
    "batch/v1",
    "batch/v1beta1",
    "certificates.k8s.io/v1",
    "certificates.k8s.io/v1beta1",
    "certificates.k8s.io/v1alpha1",
    "coordination.k8s.io/v1alpha2",
    "coordination.k8s.io/v1beta1",
    "coordination.k8s.io/v1",
    "discovery.k8s.io/v1",
    "discovery.k8s.io/v1beta1",
    "events.k8s.io/v1",
    "events.k8s.io/v1beta1",
    "extensions/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1",
    "flowcontrol.apiserver.k8s.io/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1beta2",
    "flowcontrol.apiserver.k8s.io/v1beta3",
    "networking.k8s.io/v1",
    "networking.k8s.io/v1beta1",
    "node.k8s.io/v1",
    "node.k8s.io/v1alpha1",
    "node.k8s.io/v1beta1",
    "policy/v1",
    "policy/v1beta1",
    "rbac.authorization.k8s.io/v1",
    "rbac.authorization.k8s.io/v1beta1",
    "rbac.authorization.k8s.io/v1alpha1",
    "resource.k8s.io/v1",
    "resource.k8s.io/v1beta2",
    "resource.k8s.io/v1beta1",
    "resource.k8s.io/v1alpha3",
    "scheduling.k8s.io/v1alpha1",
    "scheduling.k8s.io/v1beta1",
    "scheduling.k8s.io/v1",
    "storage.k8s.io/v1beta1",
    "storage.k8s.io/v1",
    "storage.k8s.io/v1alpha1",
    "storagemigration.k8s.io/v1beta1",
    "apiextensions.k8s.io/v1beta1",
    "apiextensions.k8s.io/v1",
];

/// A `--kube-version` that is not a semantic version (Helm's words, the text as given).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid kube version {text:?}: Invalid Semantic Version")]
pub struct KubeVersionError {
    pub text: String,
}

/// `common.KubeVersion`: `{Version, normalizedVersion, Major, Minor}`; `{{ . }}` prints its
/// pointer's `String()` (the normalized version: no pre-release or build suffix), `%v` prints
/// the struct.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubeVersion {
    pub version: String,
    pub major: String,
    pub minor: String,
}

impl KubeVersion {
    /// Parses `v1.35.0` / `1.35` the way Helm's `--kube-version` does (a leading `v` added).
    pub fn parse(text: &str) -> Result<KubeVersion, KubeVersionError> {
        let trimmed = text.strip_prefix('v').unwrap_or(text);
        let mut parts = trimmed.splitn(3, '.');
        let major = parts.next().unwrap_or_default();
        let minor = parts.next().unwrap_or("0");
        let patch = parts.next().unwrap_or("0");
        let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        let patch_core = patch.split(['-', '+']).next().unwrap_or_default();
        if !numeric(major) || !numeric(minor) || !numeric(patch_core) {
            return Err(KubeVersionError {
                text: text.to_string(),
            });
        }
        Ok(KubeVersion {
            version: format!("v{major}.{minor}.{patch}"),
            major: major.to_string(),
            minor: minor.to_string(),
        })
    }
}

impl KubeVersion {
    /// Its unexported `normalizedVersion`: the version without pre-release or build suffix.
    fn normalized(&self) -> String {
        let end = self.version[1..]
            .find(['-', '+'])
            .map_or(self.version.len(), |i| i + 1);
        self.version[..end].to_string()
    }

    /// A method `func() string` answering `text`: `(*KubeVersion).String()`
    /// (`normalizedVersion`, or `Version` when that is empty) or `GitVersion()`.
    fn string_method(text: String) -> Rc<Func> {
        let mut f = Func::new(vec![], None, "string", move |_, _| Ok(Value::str(&text)));
        f.returns_error = false;
        Rc::new(f)
    }

    /// Its fields, `normalizedVersion` as given.
    fn fields_with(&self, normalized: String) -> Vec<Field> {
        vec![
            Field::new("Version", Value::str(&self.version)),
            Field::new("normalizedVersion", Value::from(normalized)),
            Field::new("Major", Value::str(&self.major)),
            Field::new("Minor", Value::str(&self.minor)),
        ]
    }
}

impl Object for KubeVersion {
    fn type_name(&self) -> &str {
        "common.KubeVersion"
    }

    fn fields(&self) -> Option<Vec<Field>> {
        Some(self.fields_with(self.normalized()))
    }

    fn deep_copy(&self) -> Option<Value> {
        Some(Value::Object(Rc::new(KubeVersionCopy {
            kv: self.clone(),
            addressable: false,
        })))
    }

    fn field(&self, name: &str) -> Option<Value> {
        match name {
            "Version" => Some(Value::str(&self.version)),
            "Major" => Some(Value::str(&self.major)),
            "Minor" => Some(Value::str(&self.minor)),
            _ => None,
        }
    }

    /// The pointer's `String()` and `GitVersion()` (deprecated, `Version`).
    fn method(&self, name: &str) -> Option<Rc<Func>> {
        match name {
            "String" => Some(Self::string_method(self.normalized())),
            "GitVersion" => Some(Self::string_method(self.version.clone())),
            _ => None,
        }
    }

    fn format(&self) -> String {
        format!(
            "{{{} {} {} {}}}",
            self.version,
            self.normalized(),
            self.major,
            self.minor
        )
    }

    /// Through its pointer's `String()`: the normalized version.
    fn print(&self) -> String {
        self.normalized()
    }
}

/// A `common.KubeVersion` as `deepCopy` leaves it: copystructure copies exported fields only,
/// so `normalizedVersion` is empty. A copied `KubeVersion` itself is a value in an interface,
/// not addressable: the pointer's methods (`String`, `GitVersion`) are out of reach and
/// `{{ . }}` prints its fields. The one inside a copied `*Capabilities` is addressable: its
/// `String()` falls back to `Version`.
struct KubeVersionCopy {
    kv: KubeVersion,
    addressable: bool,
}

impl Object for KubeVersionCopy {
    fn type_name(&self) -> &str {
        self.kv.type_name()
    }

    fn field(&self, name: &str) -> Option<Value> {
        self.kv.field(name)
    }

    fn method(&self, name: &str) -> Option<Rc<Func>> {
        (self.addressable && matches!(name, "String" | "GitVersion"))
            .then(|| KubeVersion::string_method(self.kv.version.clone()))
    }

    fn format(&self) -> String {
        format!(
            "{{{}  {} {}}}",
            self.kv.version, self.kv.major, self.kv.minor
        )
    }

    fn print(&self) -> String {
        if self.addressable {
            self.kv.version.clone()
        } else {
            self.format()
        }
    }

    fn fields(&self) -> Option<Vec<Field>> {
        Some(self.kv.fields_with(String::new()))
    }
}

/// `common.VersionSet`: a `[]string` with a `Has` method.
pub struct VersionSet {
    versions: Vec<String>,
}

impl VersionSet {
    pub fn new(versions: Vec<String>) -> VersionSet {
        VersionSet { versions }
    }
}

impl Object for VersionSet {
    fn type_name(&self) -> &str {
        "common.VersionSet"
    }

    fn method(&self, name: &str) -> Option<Rc<Func>> {
        let versions = self.versions.clone();
        (name == "Has").then(|| {
            let mut f = Func::new(vec![ArgType::String], None, "bool", move |_, args| {
                let wanted = args[0].as_str().unwrap_or_default();
                Ok(Value::Bool(versions.iter().any(|v| v == wanted)))
            });
            f.returns_error = false;
            Rc::new(f)
        })
    }

    fn format(&self) -> String {
        format!("[{}]", self.versions.join(" "))
    }

    fn len(&self) -> Option<usize> {
        Some(self.versions.len())
    }

    fn as_value(&self) -> Option<Value> {
        let items = self.versions.iter().map(|v| Value::str(v)).collect();
        Some(Value::List(List::typed(items, "string")))
    }
}

/// `common.Capabilities`, seen through a pointer (`*common.Capabilities`).
pub struct Capabilities {
    pub kube_version: Rc<KubeVersion>,
    pub api_versions: Rc<VersionSet>,
}

impl Capabilities {
    fn helm_version_fields() -> [(&'static str, &'static str); 5] {
        [
            ("Version", HELM_VERSION),
            ("GitCommit", HELM_GIT_COMMIT),
            ("GitTreeState", "clean"),
            ("GoVersion", HELM_GO_VERSION),
            ("KubeClientVersion", HELM_KUBE_CLIENT_VERSION),
        ]
    }
}

/// `.Capabilities.HelmVersion`, a plain struct.
struct HelmVersion;

/// `version.BuildInfo`'s struct tags, field by field.
const HELM_VERSION_TAGS: [&str; 5] = [
    r#"json:"version,omitempty""#,
    r#"json:"git_commit,omitempty""#,
    r#"json:"git_tree_state,omitempty""#,
    r#"json:"go_version,omitempty""#,
    r#"json:"kube_client_version""#,
];

impl Object for HelmVersion {
    fn type_name(&self) -> &str {
        "version.BuildInfo"
    }

    fn fields(&self) -> Option<Vec<Field>> {
        Some(
            Capabilities::helm_version_fields()
                .iter()
                .zip(HELM_VERSION_TAGS)
                .map(|(&(name, value), tag)| Field {
                    name,
                    tag,
                    value: Value::str(value),
                })
                .collect(),
        )
    }

    fn field(&self, name: &str) -> Option<Value> {
        Capabilities::helm_version_fields()
            .iter()
            .find(|(field, _)| *field == name)
            .map(|(_, value)| Value::str(value))
    }

    fn format(&self) -> String {
        let values: Vec<&str> = Capabilities::helm_version_fields()
            .iter()
            .map(|(_, value)| *value)
            .collect();
        format!("{{{}}}", values.join(" "))
    }
}

impl Object for Capabilities {
    fn type_name(&self) -> &str {
        "*common.Capabilities"
    }

    fn fields(&self) -> Option<Vec<Field>> {
        Some(capabilities_fields(
            Value::Object(self.kube_version.clone()),
            &self.api_versions,
        ))
    }

    fn field(&self, name: &str) -> Option<Value> {
        capabilities_field(
            name,
            Value::Object(self.kube_version.clone()),
            &self.api_versions,
        )
    }

    fn format(&self) -> String {
        capabilities_format(self.kube_version.as_ref(), &self.api_versions)
    }

    fn print(&self) -> String {
        capabilities_print(self.kube_version.as_ref(), &self.api_versions)
    }

    /// `Copy()`: a new `*Capabilities` with the same fields.
    fn method(&self, name: &str) -> Option<Rc<Func>> {
        let copy = Capabilities {
            kube_version: self.kube_version.clone(),
            api_versions: self.api_versions.clone(),
        };
        (name == "Copy").then(|| copy_method(Value::Object(Rc::new(copy))))
    }

    fn deep_copy(&self) -> Option<Value> {
        Some(Value::Object(Rc::new(CapabilitiesCopy {
            kube_version: Rc::new(KubeVersionCopy {
                kv: (*self.kube_version).clone(),
                addressable: true,
            }),
            api_versions: self.api_versions.clone(),
        })))
    }
}

/// A `*common.Capabilities` as `deepCopy` leaves it: its `KubeVersion` without
/// `normalizedVersion`.
struct CapabilitiesCopy {
    kube_version: Rc<KubeVersionCopy>,
    api_versions: Rc<VersionSet>,
}

impl Object for CapabilitiesCopy {
    fn type_name(&self) -> &str {
        "*common.Capabilities"
    }

    fn fields(&self) -> Option<Vec<Field>> {
        Some(capabilities_fields(
            Value::Object(self.kube_version.clone()),
            &self.api_versions,
        ))
    }

    fn field(&self, name: &str) -> Option<Value> {
        capabilities_field(
            name,
            Value::Object(self.kube_version.clone()),
            &self.api_versions,
        )
    }

    fn format(&self) -> String {
        capabilities_format(self.kube_version.as_ref(), &self.api_versions)
    }

    fn print(&self) -> String {
        capabilities_print(self.kube_version.as_ref(), &self.api_versions)
    }

    fn method(&self, name: &str) -> Option<Rc<Func>> {
        let copy = CapabilitiesCopy {
            kube_version: self.kube_version.clone(),
            api_versions: self.api_versions.clone(),
        };
        (name == "Copy").then(|| copy_method(Value::Object(Rc::new(copy))))
    }
}

/// `(*Capabilities).Copy`, answering `copy`.
fn copy_method(copy: Value) -> Rc<Func> {
    let mut f = Func::new(vec![], None, "*common.Capabilities", move |_, _| {
        Ok(copy.clone())
    });
    f.returns_error = false;
    Rc::new(f)
}

/// `{{ .Capabilities }}`: text/template prints what a pointer points to, a struct without
/// `String` method, so without `%v`'s `&`.
fn capabilities_print(kube_version: &dyn Object, api_versions: &VersionSet) -> String {
    let text = capabilities_format(kube_version, api_versions);
    text.strip_prefix('&').unwrap_or(&text).to_string()
}

fn capabilities_fields(kube_version: Value, api_versions: &Rc<VersionSet>) -> Vec<Field> {
    vec![
        Field::new("KubeVersion", kube_version),
        Field::new("APIVersions", Value::Object(api_versions.clone())),
        Field::new("HelmVersion", Value::Object(Rc::new(HelmVersion))),
    ]
}

fn capabilities_field(
    name: &str,
    kube_version: Value,
    api_versions: &Rc<VersionSet>,
) -> Option<Value> {
    match name {
        "KubeVersion" => Some(kube_version),
        "APIVersions" => Some(Value::Object(api_versions.clone())),
        "HelmVersion" => Some(Value::Object(Rc::new(HelmVersion))),
        _ => None,
    }
}

fn capabilities_format(kube_version: &dyn Object, api_versions: &VersionSet) -> String {
    format!(
        "&{{{} {} {}}}",
        kube_version.format(),
        api_versions.format(),
        HelmVersion.format()
    )
}

/// `engine.files`: the chart's non-template files, with Helm's accessors.
pub struct Files {
    // Shared, because every method lookup (`.Files.Get`) hands the accessor its own handle.
    files: Rc<[(String, FileData)]>,
}

impl Files {
    pub fn new(mut files: Vec<(String, FileData)>) -> Files {
        files.sort_by(|a, b| a.0.cmp(&b.0));
        Files {
            files: files.into(),
        }
    }

    fn get(&self, name: &str) -> Option<&FileData> {
        self.files
            .iter()
            .find(|(path, _)| path == name)
            .map(|(_, data)| data)
    }

    fn accessor(
        imp: impl Fn(&Files, &str) -> Result<Value, FuncError> + 'static,
        files: Rc<Files>,
        result: &'static str,
    ) -> Rc<Func> {
        let mut f = Func::new(vec![ArgType::String], None, result, move |_, args| {
            imp(&files, args[0].as_str().unwrap_or_default())
        });
        f.returns_error = false;
        Rc::new(f)
    }

    /// A method without arguments.
    fn getter(
        imp: impl Fn(&Files) -> Result<Value, FuncError> + 'static,
        files: Rc<Files>,
    ) -> Rc<Func> {
        let mut f = Func::new(vec![], None, "string", move |_, _| imp(&files));
        f.returns_error = false;
        Rc::new(f)
    }

    /// `AsConfig`/`AsSecrets`: the files by base name (a later path wins), as YAML.
    fn as_yaml(&self, encode: impl Fn(&[u8]) -> String) -> Result<Value, FuncError> {
        let map = Map::named("map[string]string");
        for (path, data) in self.files.iter() {
            let base = path.rsplit('/').next().unwrap_or(path);
            map.insert(base, Value::str(&encode(data)));
        }
        let text = goyaml::to_yaml(&Value::Map(map)).map_err(|e| FuncError::new(e.message))?;
        Ok(Value::str(text.strip_suffix('\n').unwrap_or(&text)))
    }
}

impl Object for Files {
    fn type_name(&self) -> &str {
        "engine.files"
    }

    /// `engine.files` is a `map[string][]byte`.
    fn kind(&self) -> &'static str {
        "map"
    }

    fn method(&self, name: &str) -> Option<Rc<Func>> {
        let this = Rc::new(Files {
            files: self.files.clone(),
        });
        match name {
            "Get" => Some(Files::accessor(
                |files, name| {
                    let data = files.get(name).map(|d| Value::String(d.text()));
                    Ok(data.unwrap_or_else(|| Value::str("")))
                },
                this,
                "string",
            )),
            "GetBytes" => Some(Files::accessor(
                |files, name| {
                    Ok(Value::Bytes(
                        files
                            .get(name)
                            .map(FileData::bytes)
                            .unwrap_or_else(|| Rc::from(&[][..])),
                    ))
                },
                this,
                "[]uint8",
            )),
            "Lines" => Some(Files::accessor(
                |files, name| {
                    let Some(data) = files.get(name) else {
                        return Ok(Value::List(List::typed(vec![], "string")));
                    };
                    let text = goyaml::utf8_lossy(data);
                    if text.is_empty() {
                        // Helm indexes the last byte of the file without a check.
                        return Err(FuncError::new("runtime error: index out of range [-1]"));
                    }
                    let text = text.strip_suffix('\n').unwrap_or(&text);
                    let lines = text.split('\n').map(Value::str).collect();
                    Ok(Value::List(List::typed(lines, "string")))
                },
                this,
                "[]string",
            )),
            "Glob" => Some(Files::accessor(
                |files, pattern| {
                    let matcher = crate::glob::Glob::compile(pattern);
                    let subset = files
                        .files
                        .iter()
                        .filter(|(path, _)| matcher.matches(path))
                        .cloned()
                        .collect();
                    Ok(Value::Object(Rc::new(Files::new(subset))))
                },
                this,
                "engine.files",
            )),
            "AsConfig" => Some(Files::getter(
                |files| files.as_yaml(|data| goyaml::utf8_lossy(data).into_owned()),
                this,
            )),
            "AsSecrets" => Some(Files::getter(
                |files| files.as_yaml(goyaml::json_value::b64_encode),
                this,
            )),
            _ => None,
        }
    }

    fn format(&self) -> String {
        let entries: Vec<String> = self
            .files
            .iter()
            .map(|(path, data)| {
                let bytes: Vec<String> = data.iter().map(|b| b.to_string()).collect();
                format!("{path}:[{}]", bytes.join(" "))
            })
            .collect();
        format!("map[{}]", entries.join(" "))
    }

    fn is_true(&self) -> bool {
        !self.files.is_empty()
    }

    /// The `map[string][]byte` itself, for `range` and `index`.
    fn as_value(&self) -> Option<Value> {
        let map = Map::named("engine.files");
        for (path, data) in self.files.iter() {
            map.insert(path.as_str(), Value::Bytes(data.bytes()));
        }
        Some(Value::Map(map))
    }

    fn len(&self) -> Option<usize> {
        Some(self.files.len())
    }
}

/// The Go type of Helm's values tables (`.Values`, `.` itself and `.Template`).
pub const VALUES_TYPE: &str = "common.Values";

/// The methods of `common.Values` (`pkg/chart/common/values.go`), bound to `map`: `AsMap`,
/// `Encode`, `PathValue`, `Table`, `YAML`. Go looks them up before the map's keys, so a key of
/// one of these names is out of reach as a field.
pub fn values_method(map: &Map, name: &str) -> Option<Rc<Func>> {
    if map.type_name() != VALUES_TYPE
        || !matches!(name, "AsMap" | "YAML" | "Table" | "PathValue" | "Encode")
    {
        return None;
    }
    let this = map.clone();
    let method = match name {
        // Its own map (now a plain one), or a new empty map when it has no entries.
        "AsMap" => {
            let mut f = Func::new(vec![], None, "map[string]interface {}", move |_, _| {
                Ok(Value::Map(if this.is_empty() {
                    Map::new()
                } else {
                    this.retyped(None)
                }))
            });
            f.returns_error = false;
            f
        }
        // sigs.k8s.io/yaml's Marshal, final newline kept.
        "YAML" => Func::new(vec![], None, "string", move |_, _| {
            goyaml::to_yaml(&Value::Map(this.clone()))
                .map(Value::from)
                .map_err(|e| FuncError::new(e.message))
        }),
        "Table" => Func::new(vec![ArgType::String], None, VALUES_TYPE, move |_, args| {
            table(&this, args[0].as_str().unwrap_or_default())
                .map(|t| Value::Map(t.retyped(Some(VALUES_TYPE))))
                .map_err(FuncError::new)
        }),
        "PathValue" => Func::new(
            vec![ArgType::String],
            None,
            "interface {}",
            move |_, args| {
                path_value(&this, args[0].as_str().unwrap_or_default()).map_err(FuncError::new)
            },
        ),
        // `Encode(w io.Writer) error`: templates can pass no writer but nil, which Encode
        // writes to once the YAML is made (a nil pointer dereference, recovered as the
        // call's error). Its only result is an `error`, which Go hands back as a value.
        "Encode" => {
            let mut f = Func::new(
                vec![ArgType::Interface("io.Writer")],
                None,
                "error",
                move |_, _| match goyaml::to_yaml(&Value::Map(this.clone())) {
                    Ok(_) => Err(FuncError::new(
                        "runtime error: invalid memory address or nil pointer dereference",
                    )),
                    Err(e) => Ok(Value::Object(Rc::new(GoError(e.message)))),
                },
            );
            f.returns_error = false;
            f
        }
        _ => return None,
    };
    Some(Rc::new(method))
}

/// `common.ErrNoTable`.
fn no_table(key: &str) -> String {
    format!("{} is not a table", gotemplate::fmt::quote(key))
}

/// `common.ErrNoValue`.
fn no_value(key: &str) -> String {
    format!("{} is not a value", gotemplate::fmt::quote(key))
}

/// `Values.Table`: the table at a dotted path. A table is a `map[string]interface{}` or a
/// `common.Values`.
fn table(values: &Map, name: &str) -> Result<Map, String> {
    let mut table = values.clone();
    for key in name.split('.') {
        table = match table.get(key) {
            Some(Value::Map(m))
                if matches!(m.type_name(), "map[string]interface {}" | VALUES_TYPE) =>
            {
                m
            }
            _ => return Err(no_table(key)),
        };
    }
    Ok(table)
}

/// Helm's `istable`: only a plain `map[string]interface{}` (not a `common.Values`).
fn is_table(value: &Value) -> bool {
    matches!(value, Value::Map(m) if !m.is_named())
}

/// `Values.PathValue`: the value (not a table) at a dotted path.
fn path_value(values: &Map, path: &str) -> Result<Value, String> {
    if path.is_empty() {
        return Err("YAML path cannot be empty".into());
    }
    let (tables, key) = match path.rsplit_once('.') {
        Some((tables, key)) => (Some(tables), key),
        None => (None, path),
    };
    let table = match tables {
        None => values.clone(),
        Some(tables) => table(values, tables).map_err(|_| no_value(key))?,
    };
    match table.get(key) {
        Some(v) if !is_table(&v) => Ok(v),
        _ => Err(no_value(key)),
    }
}

/// The `error` sigs.k8s.io/yaml's Marshal returns (a `*fmt.wrapError`), as a template sees it:
/// printed as its message. (Its wrapped error is a pointer, which `%+v` would print as an
/// address: not modelled.)
struct GoError(String);

impl Object for GoError {
    fn type_name(&self) -> &str {
        "*fmt.wrapError"
    }

    fn fields(&self) -> Option<Vec<Field>> {
        Some(vec![
            Field::new("msg", Value::str(&self.0)),
            Field::new("err", Value::Nil),
        ])
    }

    fn stringer(&self) -> Option<String> {
        Some(self.0.clone())
    }

    fn format(&self) -> String {
        self.0.clone()
    }
}
