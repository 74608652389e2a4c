//! An IstioOperator as the controller reads it from the API server.
//!
//! kube-rs decodes a whole list (or watch event) at once, and serde_json gives up at 128
//! levels of nesting, so a single IstioOperator whose `spec.unvalidatedValues` nests ~123
//! arrays (the API server accepts it: that field keeps unknown fields) made every list of
//! IstioOperators fail, and the operator stopped reconciling all of them. Here each object is
//! first taken as raw JSON (serde_json skips over nested values with a loop, not recursion, so
//! depth costs nothing there) and then decoded on its own; one that cannot be decoded keeps
//! its metadata and status and the reason, so the controller reports it on that object and
//! goes on with the others.

use std::borrow::Cow;
use std::ops::Deref;

use kube::Resource;
use kube::api::{DynamicObject, ObjectMeta};
use kube::core::ApiResource;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// An IstioOperator resource: the decoded object, or its metadata and status alone with
/// [`IstioOperatorObject::undecodable`] saying why the rest could not be read.
#[derive(Clone, Debug)]
pub struct IstioOperatorObject {
    object: DynamicObject,
    undecodable: Option<Undecodable>,
}

/// Why an object could not be decoded, and its JSON as read (written back as is when the
/// object is serialized, so nothing of it is lost).
#[derive(Clone, Debug)]
struct Undecodable {
    reason: String,
    raw: Box<RawValue>,
}

impl IstioOperatorObject {
    /// Why the object's body could not be decoded (`None`: it was).
    pub fn undecodable(&self) -> Option<&str> {
        self.undecodable.as_ref().map(|u| u.reason.as_str())
    }
}

impl Deref for IstioOperatorObject {
    type Target = DynamicObject;
    fn deref(&self) -> &DynamicObject {
        &self.object
    }
}

/// What can be read of any object however deep its spec: serde_json skips `spec` without
/// recursing.
#[derive(Deserialize)]
struct Outline {
    #[serde(rename = "apiVersion", default)]
    api_version: String,
    #[serde(default)]
    kind: String,
    #[serde(default)]
    metadata: ObjectMeta,
    #[serde(default)]
    status: Option<Value>,
}

impl IstioOperatorObject {
    fn from_raw(raw: Box<RawValue>) -> Result<IstioOperatorObject, serde_json::Error> {
        match serde_json::from_str::<DynamicObject>(raw.get()) {
            Ok(object) => Ok(IstioOperatorObject {
                object,
                undecodable: None,
            }),
            Err(reason) => {
                let outline: Outline = serde_json::from_str(raw.get())?;
                let mut data = serde_json::Map::new();
                if let Some(status) = outline.status {
                    data.insert("status".into(), status);
                }
                Ok(IstioOperatorObject {
                    object: DynamicObject {
                        types: Some(kube::core::TypeMeta {
                            api_version: outline.api_version,
                            kind: outline.kind,
                        }),
                        metadata: outline.metadata,
                        data: Value::Object(data),
                    },
                    undecodable: Some(Undecodable {
                        reason: reason.to_string(),
                        raw,
                    }),
                })
            }
        }
    }
}

impl<'de> Deserialize<'de> for IstioOperatorObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        IstioOperatorObject::from_raw(raw).map_err(serde::de::Error::custom)
    }
}

impl Serialize for IstioOperatorObject {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.undecodable {
            Some(undecodable) => undecodable.raw.serialize(serializer),
            None => self.object.serialize(serializer),
        }
    }
}

impl Resource for IstioOperatorObject {
    type DynamicType = ApiResource;
    type Scope = <DynamicObject as Resource>::Scope;

    fn kind(dt: &ApiResource) -> Cow<'_, str> {
        DynamicObject::kind(dt)
    }
    fn group(dt: &ApiResource) -> Cow<'_, str> {
        DynamicObject::group(dt)
    }
    fn version(dt: &ApiResource) -> Cow<'_, str> {
        DynamicObject::version(dt)
    }
    fn api_version(dt: &ApiResource) -> Cow<'_, str> {
        DynamicObject::api_version(dt)
    }
    fn plural(dt: &ApiResource) -> Cow<'_, str> {
        DynamicObject::plural(dt)
    }
    fn meta(&self) -> &ObjectMeta {
        &self.object.metadata
    }
    fn meta_mut(&mut self) -> &mut ObjectMeta {
        &mut self.object.metadata
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(depth: usize) -> String {
        "[".repeat(depth) + &"]".repeat(depth)
    }

    fn object(name: &str, unvalidated: &str) -> String {
        format!(
            r#"{{"apiVersion":"install.istio.io/v1alpha1","kind":"IstioOperator","metadata":{{"name":"{name}","namespace":"ns","generation":3}},"spec":{{"profile":"minimal","unvalidatedValues":{{"x":{unvalidated}}}}},"status":{{"status":"HEALTHY"}}}}"#
        )
    }

    #[derive(Deserialize)]
    struct List {
        items: Vec<IstioOperatorObject>,
    }

    #[test]
    fn one_deep_object_does_not_fail_the_list() {
        // Decoded alone, the object's 3 levels above `x` leave room for 124 more; within the
        // list (5 levels) 122 was the most that worked.
        for depth in [123, 124, 125, 200, 10_000] {
            let list = format!(
                r#"{{"kind":"IstioOperatorList","items":[{},{}]}}"#,
                object("deep", &nested(depth)),
                object("plain", "1")
            );
            let list: List = serde_json::from_str(&list).unwrap_or_else(|e| panic!("{depth}: {e}"));
            let [deep, plain] = &list.items[..] else {
                panic!("two items")
            };
            assert_eq!(plain.undecodable(), None);
            assert_eq!(plain.data["spec"]["profile"], "minimal");
            assert_eq!(deep.metadata.name.as_deref(), Some("deep"));
            assert_eq!(deep.metadata.generation, Some(3));
            assert_eq!(deep.data["status"]["status"], "HEALTHY");
            if depth > 124 {
                let reason = deep.undecodable().expect("undecodable");
                assert!(reason.contains("recursion limit exceeded"), "{reason}");
                assert!(deep.data.get("spec").is_none());
                // Written back whole: nothing of the spec is lost.
                assert_eq!(
                    serde_json::to_string(deep).unwrap(),
                    object("deep", &nested(depth))
                );
            } else {
                assert_eq!(deep.undecodable(), None, "{depth}");
            }
        }
    }

    #[test]
    fn a_watch_event_carries_the_object_too() {
        let line = format!(
            r#"{{"type":"ADDED","object":{}}}"#,
            object("deep", &nested(300))
        );
        let event: kube::api::WatchEvent<IstioOperatorObject> =
            serde_json::from_str(&line).unwrap();
        let kube::api::WatchEvent::Added(deep) = event else {
            panic!("an ADDED event")
        };
        assert!(deep.undecodable().is_some());
    }
}
