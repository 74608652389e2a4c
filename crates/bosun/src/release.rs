//! The Istio release bosun is pinned to, and where its install package (charts and profiles)
//! is cached. The pin must equal scripts/istio-pin (a test checks it).

use std::path::PathBuf;

/// The `istio.io/istio` module version whose `manifests/` bosun renders by default.
pub const ISTIO_VERSION: &str = "v0.0.0-20260827124520-eed52ebb66ad";

/// bosun's cache: `$BOSUN_CACHE`, else `$HOME/.cache/bosun`.
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("BOSUN_CACHE").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("bosun"))
}

/// The pinned release's `manifests/` directory, when it is in the cache.
pub fn default_manifests_dir() -> Option<PathBuf> {
    let dir = cache_dir()?
        .join(format!("istio-{ISTIO_VERSION}"))
        .join("manifests");
    dir.is_dir().then_some(dir)
}

#[cfg(test)]
mod tests {
    #[test]
    fn pin_matches_the_scripts() {
        let pin = include_str!("../../../scripts/istio-pin");
        assert!(
            pin.contains(&format!("ISTIO_VERSION={}", super::ISTIO_VERSION)),
            "crates/bosun/src/release.rs and scripts/istio-pin disagree on the Istio version"
        );
    }
}
