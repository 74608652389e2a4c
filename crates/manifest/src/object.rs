//! One rendered Kubernetes object, held as istioctl holds it (an `unstructured.Unstructured`:
//! JSON with integers as int64 and other numbers as float64), and its YAML form as istioctl
//! prints it (`sigs.k8s.io/yaml.Marshal` of the object).

use serde_json::{Map, Value};

/// A rendered object.
#[derive(Debug, Clone, PartialEq)]
pub struct Object {
    pub value: Value,
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
    /// Reads one YAML document as istioctl's `manifest.FromYaml` does. `Ok(None)` for a
    /// document that holds no object (empty, comments only, `null`).
    pub fn from_yaml(text: &str) -> Result<Option<Object>, ObjectError> {
        let v = helm::yaml::from_yaml(text).map_err(|e| ObjectError::Yaml(e.message))?;
        let json =
            helm::json_value::to_json_value(&v).map_err(|e| ObjectError::NotJson(e.to_string()))?;
        let json = integers_as_int64(json);
        match &json {
            Value::Null => Ok(None),
            Value::Object(m) if m.is_empty() => Ok(None),
            Value::Object(m) => match m.get("kind") {
                Some(Value::String(k)) if !k.is_empty() => Ok(Some(Object { value: json })),
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
        helm::yaml::to_yaml(&helm::json_value::from_json_value(&self.value))
            .expect("a JSON tree always has a YAML form")
    }
}

/// What unstructured JSON decoding does to numbers: whole ones become int64.
pub fn integers_as_int64(v: Value) -> Value {
    match v {
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.as_i64().is_none() && f.fract() == 0.0 && f.abs() < 9.2e18 => {
                Value::from(f as i64)
            }
            _ => Value::Number(n),
        },
        Value::Array(items) => Value::Array(items.into_iter().map(integers_as_int64).collect()),
        Value::Object(m) => Value::Object(
            m.into_iter()
                .map(|(k, v)| (k, integers_as_int64(v)))
                .collect::<Map<_, _>>(),
        ),
        other => other,
    }
}
