//! One rendered Kubernetes object, held as istioctl holds it (an `unstructured.Unstructured`:
//! JSON with integers as int64 and other numbers as float64), and its YAML form as istioctl
//! prints it (`sigs.k8s.io/yaml.Marshal` of the object).

use std::sync::Arc;

use serde_json::Value;

/// A rendered object. It does not change once made (a changed object is a new one), so the
/// YAML it was read from can stand for it when printed.
#[derive(Debug, Clone)]
pub struct Object {
    value: Value,
    /// When the object was read from a document that a `toYaml` of this render wrote: the
    /// object's YAML form, so that printing it need not write it again.
    canonical: Option<Arc<str>>,
}

impl PartialEq for Object {
    fn eq(&self, other: &Object) -> bool {
        self.value == other.value
    }
}

/// Why a rendered document is not an object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ObjectError {
    #[error("{0}")]
    Yaml(String),
    #[error("Object 'Kind' is missing in '{0}'")]
    MissingKind(String),
    #[error("{0}")]
    NotJson(String),
}

impl Object {
    pub fn new(value: Value) -> Object {
        Object {
            value,
            canonical: None,
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
        memo: Option<&helm::yaml::YamlMemo>,
    ) -> Result<Option<Object>, ObjectError> {
        let remembered = memo.and_then(|m| m.emitted_json(helm::yaml::skip_comment_lines(text)));
        let hit = remembered.is_some();
        let mut json = match remembered {
            Some(json) => json,
            None => match helm::yaml::from_yaml_json(text) {
                Ok(json) => json,
                Err(_) => {
                    // The general path, for its exact error.
                    let v =
                        helm::yaml::from_yaml(text).map_err(|e| ObjectError::Yaml(e.message))?;
                    helm::json_value::to_json_value(&v)
                        .map_err(|e| ObjectError::NotJson(e.to_string()))?
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
                        let yaml = format!("{}\n", helm::yaml::skip_comment_lines(text));
                        debug_assert_eq!(helm::yaml::json_to_yaml(&json).as_ref(), Ok(&yaml));
                        Some(Arc::from(yaml))
                    } else {
                        None
                    };
                    Ok(Some(Object {
                        value: json,
                        canonical,
                    }))
                }
                _ => Err(ObjectError::MissingKind(
                    helm::yaml::to_json(&helm::json_value::from_json_value(&json))
                        .unwrap_or_default(),
                )),
            },
            other => Err(ObjectError::Yaml(format!(
                "error unmarshaling JSON: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                iop::tree::json_type(other)
            ))),
        }
    }

    pub fn kind(&self) -> &str {
        self.str_at(&["kind"])
    }

    pub fn api_version(&self) -> &str {
        self.str_at(&["apiVersion"])
    }

    /// The API group (`apps` for `apps/v1`, empty for `v1`).
    pub fn group(&self) -> &str {
        match self.api_version().rsplit_once('/') {
            Some((group, _)) => group,
            None => "",
        }
    }

    pub fn name(&self) -> &str {
        self.str_at(&["metadata", "name"])
    }

    pub fn namespace(&self) -> &str {
        self.str_at(&["metadata", "namespace"])
    }

    fn str_at(&self, path: &[&str]) -> &str {
        let mut cur = &self.value;
        for key in path {
            match cur.get(key) {
                Some(v) => cur = v,
                None => return "",
            }
        }
        cur.as_str().unwrap_or_default()
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
        match &self.canonical {
            Some(yaml) => yaml.to_string(),
            None => {
                helm::yaml::json_to_yaml(&self.value).expect("a JSON tree always has a YAML form")
            }
        }
    }

    /// [`Object::to_yaml`], appended to `out` (without copying a remembered text first).
    pub fn write_yaml(&self, out: &mut String) {
        match &self.canonical {
            Some(yaml) => out.push_str(yaml),
            None => out.push_str(&self.to_yaml()),
        }
    }

    /// The object as JSON (integers int64, other numbers float64).
    pub fn value(&self) -> &Value {
        &self.value
    }

    pub fn into_value(self) -> Value {
        self.value
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
