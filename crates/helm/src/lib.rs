//! Helm-compatible chart rendering on top of `gotemplate`: loading charts, values (files,
//! `--set`, coalescing), Helm's rendering rules (template order, shared root, `include`/`tpl`,
//! `<no value>` clean-up, error reformatting), and `helm template`'s output framing.
//!
//! Pure logic apart from [`chart::load_dir`], which reads a chart from disk, and the
//! [`schema::Loader`], which reads the `file:` documents a `values.schema.json` `$ref`s (network
//! fetches are the caller's, through [`schema::FetchUrl`]). It knows nothing of Istio; it must
//! not talk to a cluster (`lookup` returns empty, as in `helm template`).

pub mod chart;
pub mod deps;
pub mod engine;
pub mod funcs;
pub mod glob;
pub mod goregexp;
pub mod gotime;
pub(crate) mod gourl;
pub mod ignore;
pub mod json_read;
pub mod json_value;
pub mod log;
pub mod manifest;
mod mapped;
pub mod objects;
pub mod printed;
pub mod schema;
pub mod sprig;
pub mod strvals;
pub mod template;
pub mod values;
pub mod yaml;

/// Set by [`skip_freeing`].
static SKIP_FREEING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// For processes that end right after rendering (the command line): what a render builds in
/// many small allocations (the memos' trees, megabytes of nodes for Istio's CRDs; the parsed
/// templates) is left to the process's exit instead of being freed piece by piece. A
/// long-running process (the operator) must not call this.
pub fn skip_freeing() {
    SKIP_FREEING.store(true, std::sync::atomic::Ordering::Relaxed);
}

pub(crate) fn freeing_skipped() -> bool {
    SKIP_FREEING.load(std::sync::atomic::Ordering::Relaxed)
}

/// `String::from_utf8_lossy`, with `str::from_utf8`'s fast check first: nearly every text is
/// valid, and the lossy scan is byte by byte.
pub(crate) fn utf8_lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}
