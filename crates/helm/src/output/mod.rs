//! Output: rendered files split into documents with Helm's rules (hooks apart, sorted) and
//! `helm template`'s stdout framed from them.

pub mod manifest;
pub mod printed;
