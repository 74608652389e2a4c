//! Pure judgements on what bosun reads from a cluster; no I/O (the `cluster` crate reads, the
//! `bosun` crate prints). Each module owns one question:
//!
//! - [`revisions`]: which control-plane revisions exist, with their versions and components,
//!   the tags pointing at each, the namespaces selecting each and the pods running its proxy
//!   (`bosun revision list`, and what `uninstall --revision` refuses over).
//! - [`crds`]: whether an install would replace live CustomResourceDefinitions with older ones.
//! - [`precheck`]: `bosun precheck`'s findings (stable codes, levels, one-line fixes) from the
//!   facts read, the permissions an install needs, and the exit status.
//! - [`proxies`]: which revision injected each workload's proxies, which it asks for now, the
//!   stale ones, and what `bosun proxy restart` restarts.
//! - [`version`]: Istio and Kubernetes version strings, parsed and ordered.
//!
//! Each module's rules have data-driven cases under `tests/cases/assess/`.

pub mod crds;
pub mod precheck;
pub mod proxies;
pub mod revisions;
pub mod version;
