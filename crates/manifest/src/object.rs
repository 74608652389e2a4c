//! One rendered Kubernetes object, held as istioctl holds it (an `unstructured.Unstructured`:
//! JSON with integers as int64 and other numbers as float64), and its YAML form as istioctl
//! prints it (`sigs.k8s.io/yaml.Marshal` of the object).

use std::ops::Range;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

/// A rendered object. It does not change once made (a changed object is a new one), so the
/// YAML it was read from can stand for it when printed, and the tree need not be built until
/// something reads it: istioctl's post-processing patches a few objects of a component, and
/// Istio's CRDs are 1 MB of YAML that is only printed.
#[derive(Debug, Clone)]
pub struct Object {
    /// The fields that ordering, identity and patch targeting read.
    head: Head,
    /// The object as JSON; empty until first read when `canonical` is there to read it from.
    value: OnceLock<Value>,
    /// The object's YAML form, when it is known: the document it was read from when a
    /// `toYaml` of this render wrote it, or what [`Object::keep_yaml`] wrote.
    canonical: OnceLock<Kept>,
}

/// An object's YAML form (its last newline included), kept as a slice of the file it was
/// rendered in when it is one: for Istio's CRDs a copy would be another 1 MB to write.
#[derive(Clone)]
struct Kept {
    file: Arc<String>,
    range: Range<usize>,
}

impl Kept {
    /// `body` and a newline: the slice of `file` when `body` lies in it followed by one,
    /// else a copy.
    fn of(file: Option<&Arc<String>>, body: &str) -> Kept {
        if let Some(file) = file {
            let start = (body.as_ptr() as usize).wrapping_sub(file.as_ptr() as usize);
            let end = start.wrapping_add(body.len());
            // Within the file's bytes, `body` is that slice of it (no need to compare).
            if start <= end && end < file.len() && file.as_bytes()[end] == b'\n' {
                debug_assert_eq!(&file[start..end], body);
                return Kept {
                    file: Arc::clone(file),
                    range: start..end + 1,
                };
            }
        }
        Kept::owned(format!("{body}\n"))
    }

    fn owned(yaml: String) -> Kept {
        Kept {
            range: 0..yaml.len(),
            file: Arc::new(yaml),
        }
    }

    fn as_str(&self) -> &str {
        &self.file[self.range.clone()]
    }
}

impl std::fmt::Debug for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_str().fmt(f)
    }
}

/// An object's `apiVersion`, `kind`, `metadata.name` and `metadata.namespace` (empty where the
/// object has no such string).
#[derive(Debug, Clone, PartialEq)]
struct Head {
    api_version: String,
    kind: String,
    name: String,
    namespace: String,
}

/// Where [`Head`]'s fields are.
const HEAD_PATHS: [&[&str]; 4] = [
    &["apiVersion"],
    &["kind"],
    &["metadata", "name"],
    &["metadata", "namespace"],
];

impl Head {
    fn of(value: &Value) -> Head {
        let [api_version, kind, name, namespace] = HEAD_PATHS.map(|path| {
            let mut cur = value;
            for key in path {
                match cur.get(key) {
                    Some(v) => cur = v,
                    None => return String::new(),
                }
            }
            cur.as_str().unwrap_or_default().to_string()
        });
        Head {
            api_version,
            kind,
            name,
            namespace,
        }
    }
}

impl PartialEq for Object {
    fn eq(&self, other: &Object) -> bool {
        self.value() == other.value()
    }
}

/// Why a rendered document is not an object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ObjectError {
    #[error(transparent)]
    Yaml(goyaml::YamlError),
    /// The document is a scalar or a list (its JSON type named as Go names it).
    #[error(
        "error unmarshaling JSON: json: cannot unmarshal {json_type} into Go value of type map[string]interface {{}}"
    )]
    NotMap { json_type: String },
    #[error("Object 'Kind' is missing in '{0}'")]
    MissingKind(String),
    #[error(transparent)]
    NotJson(#[from] goyaml::json_value::NotJson),
}

impl Object {
    pub fn new(value: Value) -> Object {
        Object {
            head: Head::of(&value),
            value: OnceLock::from(value),
            canonical: OnceLock::new(),
        }
    }

    /// Reads one YAML document as istioctl's `manifest.FromYaml` does. `Ok(None)` for a
    /// document that holds no object (empty, comments only, `null`).
    pub fn from_yaml(text: &str) -> Result<Option<Object>, ObjectError> {
        Object::from_yaml_memo(text, None)
    }

    /// [`Object::from_yaml`] of a rendered document: when its YAML (after leading comment
    /// lines) is exactly a `toYaml` output that `memo` remembers, the tree behind it is taken
    /// instead of reading the text again.
    pub fn from_yaml_memo(
        text: &str,
        memo: Option<&goyaml::YamlMemo>,
    ) -> Result<Option<Object>, ObjectError> {
        Object::from_yaml_in(None, text, memo)
    }

    /// [`Object::from_yaml_memo`] of `doc`, a slice of the rendered `file`: a YAML form kept
    /// from it is that slice, not a copy.
    pub fn from_rendered(
        file: &Arc<String>,
        doc: &str,
        memo: &goyaml::YamlMemo,
    ) -> Result<Option<Object>, ObjectError> {
        Object::from_yaml_in(Some(file), doc, Some(memo))
    }

    fn from_yaml_in(
        file: Option<&Arc<String>>,
        text: &str,
        memo: Option<&goyaml::YamlMemo>,
    ) -> Result<Option<Object>, ObjectError> {
        let body = goyaml::skip_comment_lines(text);
        // A remembered map with a kind: its head now, its tree when something reads it.
        if let Some([api_version, Some(kind), name, namespace]) =
            memo.and_then(|m| m.emitted_strings(body, HEAD_PATHS))
            && !kind.is_empty()
        {
            let head = Head {
                api_version: api_version.unwrap_or_default(),
                kind,
                name: name.unwrap_or_default(),
                namespace: namespace.unwrap_or_default(),
            };
            let object = Object {
                head,
                value: OnceLock::new(),
                canonical: OnceLock::from(Kept::of(file, body)),
            };
            // Debug builds (all the tests) check the deferred read against the eager one.
            #[cfg(debug_assertions)]
            {
                let eager = Object::from_yaml_memo(text, None)
                    .expect("a remembered document reads")
                    .expect("a remembered document is an object");
                assert_eq!(eager.value(), object.value(), "deferred read differs");
                assert_eq!(eager.head, object.head, "deferred head differs");
            }
            return Ok(Some(object));
        }
        let remembered = memo.and_then(|m| m.emitted_json(body));
        let hit = remembered.is_some();
        let mut json = match remembered {
            Some(json) => json,
            None => match goyaml::from_yaml_json(text) {
                Ok(json) => json,
                Err(_) => {
                    // The general path, for its exact error.
                    let v = goyaml::from_yaml(text).map_err(ObjectError::Yaml)?;
                    goyaml::json_value::to_json_value(&v)?
                }
            },
        };
        integers_to_int64(&mut json);
        match &json {
            Value::Null => Ok(None),
            Value::Object(m) if m.is_empty() => Ok(None),
            Value::Object(m) => match m.get("kind") {
                Some(Value::String(k)) if !k.is_empty() => {
                    let canonical = if hit {
                        // The memo holds only trees that read back as written, so printing
                        // the object as read writes the same text again.
                        let yaml = Kept::of(file, body);
                        debug_assert_eq!(goyaml::json_to_yaml(&json).as_deref(), Ok(yaml.as_str()));
                        OnceLock::from(yaml)
                    } else {
                        OnceLock::new()
                    };
                    Ok(Some(Object {
                        head: Head::of(&json),
                        value: OnceLock::from(json),
                        canonical,
                    }))
                }
                _ => Err(ObjectError::MissingKind(
                    goyaml::to_json(&goyaml::json_value::from_json_value(&json))
                        .unwrap_or_default(),
                )),
            },
            other => Err(ObjectError::NotMap {
                json_type: iop::tree::json_type(other).to_string(),
            }),
        }
    }

    pub fn kind(&self) -> &str {
        &self.head.kind
    }

    pub fn api_version(&self) -> &str {
        &self.head.api_version
    }

    /// The API group (`apps` for `apps/v1`, empty for `v1`).
    pub fn group(&self) -> &str {
        match self.api_version().rsplit_once('/') {
            Some((group, _)) => group,
            None => "",
        }
    }

    pub fn name(&self) -> &str {
        &self.head.name
    }

    pub fn namespace(&self) -> &str {
        &self.head.namespace
    }

    /// `kind:namespace:name` (cluster-scoped RBAC kinds without the namespace), istioctl's
    /// object identity.
    pub fn hash(&self) -> String {
        match self.kind() {
            "ClusterRole" | "ClusterRoleBinding" => format!("{}:{}", self.kind(), self.name()),
            k => format!("{k}:{}:{}", self.namespace(), self.name()),
        }
    }

    /// The object as istioctl prints it.
    pub fn to_yaml(&self) -> String {
        match self.canonical.get() {
            Some(yaml) => yaml.as_str().to_string(),
            None => goyaml::json_to_yaml(self.value()).expect("a JSON tree always has a YAML form"),
        }
    }

    /// The object's YAML when it is kept as text (see [`Object::keep_yaml`]).
    pub fn kept_yaml(&self) -> Option<&str> {
        self.canonical.get().map(Kept::as_str)
    }

    /// [`Object::to_yaml`], appended to `out` (without copying a kept text first).
    pub fn write_yaml(&self, out: &mut String) {
        match self.kept_yaml() {
            Some(yaml) => out.push_str(yaml),
            None => out.push_str(&self.to_yaml()),
        }
    }

    /// Writes the object's YAML form now, to be kept: where objects are rendered on several
    /// threads and printed on one, each thread can write its own.
    pub fn keep_yaml(&self) {
        self.canonical.get_or_init(|| Kept::owned(self.to_yaml()));
    }

    /// The object as JSON (integers int64, other numbers float64).
    pub fn value(&self) -> &Value {
        self.value.get_or_init(|| self.read_canonical())
    }

    pub fn into_value(mut self) -> Value {
        match self.value.take() {
            Some(value) => value,
            None => self.read_canonical(),
        }
    }

    /// The tree of an object made from its remembered YAML: that text read back, which gives
    /// the tree `toYaml` wrote it from (the memo keeps only texts that read back so).
    fn read_canonical(&self) -> Value {
        let yaml = self
            .canonical
            .get()
            .map(Kept::as_str)
            .expect("an object without a tree has its YAML");
        let mut json = goyaml::from_yaml_json(yaml).expect("a remembered toYaml output reads back");
        integers_to_int64(&mut json);
        json
    }
}

/// [`integers_as_int64`] in place.
pub fn integers_to_int64(v: &mut Value) {
    match v {
        Value::Number(n) => {
            if let Some(f) = n.as_f64()
                && n.as_i64().is_none()
                && f.fract() == 0.0
                && f.abs() < 9.2e18
            {
                *v = Value::from(f as i64);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integers_to_int64),
        Value::Object(m) => m.values_mut().for_each(integers_to_int64),
        _ => {}
    }
}

/// What unstructured JSON decoding does to numbers: whole ones become int64.
pub fn integers_as_int64(mut v: Value) -> Value {
    integers_to_int64(&mut v);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_that_is_no_object_says_so_in_go_words() {
        let e = Object::from_yaml("- a\n").err().unwrap();
        assert_eq!(
            e,
            ObjectError::NotMap {
                json_type: "array".into()
            }
        );
        assert_eq!(
            e.to_string(),
            "error unmarshaling JSON: json: cannot unmarshal array into Go value of type map[string]interface {}"
        );
        assert!(matches!(
            Object::from_yaml("a: [\n").err().unwrap(),
            ObjectError::Yaml(_)
        ));
    }
}
