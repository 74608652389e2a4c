//! Rendered Kubernetes objects and what istioctl does to them after Helm: the `k8s` settings of
//! each component applied as strategic merge patches ([`smp`]), `overlays` patches
//! ([`overlay`]), istioctl's output order and YAML form, and object-level diffs.
//!
//! Pure logic: it renders through the `helm` crate from charts already loaded by the caller and
//! must not talk to a cluster.

mod gofmt;
pub mod overlay;
pub mod smp;

pub use overlay::{Overlaid, OverlayError, OverlayPatch, apply_overlay};
pub use smp::{ObjectKind, SmpError, strategic_merge};
