//! Loading: a chart from a directory or archive as Helm's loader reads it (`.helmignore`,
//! limits, sparse tar entries, large files mapped), its dependencies resolved, and the values
//! a render starts from (files, `--set`, coalescing, `values.schema.json`).

pub mod chart;
pub mod deps;
pub mod ignore;
mod mapped;
mod sparse;
pub mod strvals;
pub mod values;
pub mod values_schema;
