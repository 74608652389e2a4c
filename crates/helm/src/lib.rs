//! Helm-compatible chart loading and rendering on top of gotemplate.

pub mod yaml;
