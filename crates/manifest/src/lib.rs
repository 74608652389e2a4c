//! Rendered Kubernetes objects and what istioctl does to them after Helm: the `k8s` settings of
//! each component applied as strategic merge patches, `overlays` patches, istioctl's output
//! order and YAML form, and object-level diffs.
//!
//! Pure logic: it renders through the `helm` crate from charts already loaded by the caller and
//! must not talk to a cluster.

pub mod generate;
pub mod object;
pub mod order;
pub mod overlay;
pub mod postprocess;
pub mod render;
pub mod smp;
