//! Rendered Kubernetes objects and what istioctl does to them after Helm: the `k8s` settings of
//! each component applied as strategic merge patches ([`smp`]), `overlays` patches
//! ([`overlay`]), istioctl's output order and YAML form, object-level diffs, and the ownership
//! labels and installed-state record that `install` adds ([`ownership`]); and the objects
//! istioctl builds itself rather than renders: revision tags ([`tag`]) and remote secrets
//! ([`remote_secret`]: `create-remote-secret`'s kubeconfig, Secret and printed form); and a
//! mesh's shared root of trust ([`cacerts`]: a root CA and per-cluster intermediates, made in
//! memory with `gox509`); and a multi-network mesh's east-west gateway as Istio's samples
//! make it ([`eastwest`]).
//!
//! Pure logic: it renders through the `helm` crate from charts already loaded by the caller and
//! must not talk to a cluster.
//!
//! Both transformations are checked against real Go (`tests/gogen`, cases under
//! `tests/cases/manifest/`). Numbers: objects use istioctl's typing (an integral value that fits
//! is an `i64`, others `f64`), and results follow the JSON/YAML round trips istioctl does, so an
//! integral float comes back as an integer. Known differences from Go, all on inputs istioctl's
//! own patches do not produce: where Go iterates a map in random order (a patch with both
//! `$deleteFromPrimitiveList/x` and `x`; a YAML string value with several root keys) one fixed
//! order is used; where Go panics (nulls or maps where it compares values, a list starting
//! with null, deleting an index past a list's end) an error is returned; Go's slice aliasing is
//! not reproduced (it shows only for primitive merge lists holding duplicates, and for writes
//! below a list of lists); regexes in `[value]` selectors are Rust's `regex`, not Go's RE2
//! (`\d` and friends are Unicode-aware here).

pub mod cacerts;
pub mod diff;
pub mod eastwest;
pub mod generate;
mod gofmt;
pub mod object;
pub mod order;
pub mod overlay;
pub mod ownership;
pub mod postprocess;
pub mod primary_remote;
pub mod remote_secret;
pub mod render;
pub mod runtime;
pub mod smp;
pub mod tag;

pub use overlay::{Overlaid, OverlayError, OverlayPatch, apply_overlay};
pub use smp::{ObjectKind, SmpError, strategic_merge};
