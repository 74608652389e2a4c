//! Helm (`helm.sh/helm/v4`) on top of `gotemplate`: loading charts, values (files, `--set`,
//! coalescing), dependencies, Helm's rendering rules (template order, shared root,
//! `include`/`tpl`, `<no value>` clean-up, error reformatting), Helm's own template functions
//! and objects, and `helm template`'s output framing.
//!
//! Built on the Go-library crates below it: `goyaml` (YAML and JSON with Go's semantics),
//! `sprig` (the function library Helm registers first) and `jsonschema` (the schema engine
//! for `values.schema.json`, which [`values_schema`] runs over a chart and its subcharts).
//!
//! Pure logic apart from [`chart::load_dir`] and [`chart::load_path`], which read a chart from
//! disk within Helm's limits (`chart::MAX_FILE_SIZE`, `MAX_CHART_SIZE`), and the schema
//! loader, which reads the `file:` documents a `values.schema.json` `$ref`s (network fetches
//! are the caller's, through `jsonschema::FetchUrl`). It knows nothing of Istio; it must not
//! talk to a cluster (`lookup` returns empty, as in `helm template`). `fuzzing` (tests and the
//! `fuzzing` feature only) writes the chart folders its fuzz harness loads.

// Grouped by phase: `loader` (chart, values), `engine` (templates run), `output` (documents
// and stdout); `template` joins them into `helm template`. The modules keep their paths
// (`helm::chart`, `helm::engine`, …) through the re-exports below.
pub mod engine;
#[cfg(any(test, feature = "fuzzing"))]
pub mod fuzzing;
pub mod loader;
pub mod output;
pub mod pathmatch;
pub mod template;

pub use engine::{funcs, glob, log, objects};
pub use loader::{chart, deps, ignore, strvals, values, values_schema};
pub use output::{manifest, printed};

/// For processes that end right after rendering (the command line): what a render builds in
/// many small allocations (the memos' trees, megabytes of nodes for Istio's CRDs; the parsed
/// templates) is left to the process's exit instead of being freed piece by piece. A
/// long-running process (the operator) must not call this. One switch with `goyaml`'s, whose
/// memos it also covers.
pub fn skip_freeing() {
    goyaml::skip_freeing();
}

#[inline]
pub(crate) fn freeing_skipped() -> bool {
    goyaml::freeing_skipped()
}
