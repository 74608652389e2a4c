//! Helm-compatible chart rendering on top of `gotemplate`: loading charts, values (files,
//! `--set`, coalescing), Helm's rendering rules (template order, shared root, `include`/`tpl`,
//! `<no value>` clean-up, error reformatting), and `helm template`'s output framing.
//!
//! Pure logic apart from [`chart::load_dir`], which reads a chart from disk. It knows nothing of
//! Istio; it must not talk to a cluster (`lookup` returns empty, as in `helm template`).

pub mod chart;
pub mod deps;
pub mod engine;
pub mod funcs;
pub mod glob;
pub mod gotime;
pub mod ignore;
pub mod json_read;
pub mod json_value;
pub mod log;
pub mod manifest;
pub mod objects;
pub mod schema;
pub mod sprig;
pub mod strvals;
pub mod template;
pub mod values;
pub mod yaml;
