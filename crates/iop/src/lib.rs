//! The IstioOperator API (`install.istio.io/v1alpha1`) as istioctl reads it: profiles, istioctl's
//! tree paths and `--set` syntax, layering of profile ← files ← flags, validation (values schema
//! and Kubernetes' field rules, with the file:line:column of each value), and the translation of
//! the merged IstioOperator into each component's Helm values.
//!
//! The merged IstioOperator is an untyped JSON tree (`serde_json::Value`), as istioctl keeps it
//! (`values.Map`), so that layering and path access never lose fields; typed views are taken
//! where a rule needs them. Pure logic: callers read files and pass their text. It must not
//! render charts or talk to a cluster.

pub mod component;
pub mod merge;
pub mod profile;
pub mod quantity;
pub mod source;
pub mod translate;
pub mod tree;
pub mod validate;
