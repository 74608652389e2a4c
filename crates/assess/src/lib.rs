//! Pure judgements on what bosun reads from a cluster; no I/O (the `cluster` crate reads, the
//! `bosun` crate prints). Each module owns one question:
//!
//! - [`revisions`]: which control-plane revisions exist, with their versions and components,
//!   the tags pointing at each, the namespaces selecting each and the pods running its proxy
//!   (`bosun revision list`, and what `uninstall --revision` refuses over).
//! - [`crds`]: whether an install would replace live CustomResourceDefinitions with older ones.
//! - [`mesh`]: `bosun mesh check`'s findings on several clusters of one mesh (remote secrets,
//!   roots of trust, networks, istiod's view of the other clusters).
//! - [`precheck`]: `bosun precheck`'s findings (stable codes, levels, one-line fixes) from the
//!   facts read, the permissions an install needs, and the exit status.
//! - [`proxies`]: which revision injected each workload's proxies, which it asks for now, the
//!   stale ones, and what `bosun proxy restart` restarts.
//! - [`version`]: Istio and Kubernetes version strings, parsed and ordered.
//!
//! Each module's rules have data-driven cases under `tests/cases/assess/`.

pub mod crds;
pub mod mesh;
pub mod precheck;
pub mod proxies;
pub mod revisions;
pub mod version;

/// The case folders of this crate's data-driven tests, read one way for all of them.
#[cfg(test)]
pub(crate) mod cases {
    use std::path::Path;

    /// Every `*.yaml` case under `tests/cases/assess/FOLDER`, sorted by file name, each as its
    /// file name and its JSON tree; at least `at_least` of them, so that a folder emptied by
    /// mistake fails.
    pub(crate) fn yaml_cases(folder: &str, at_least: usize) -> Vec<(String, serde_json::Value)> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/cases/assess")
            .join(folder);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
            .collect();
        files.sort();
        assert!(
            files.len() >= at_least,
            "too few cases in {}",
            dir.display()
        );
        files
            .iter()
            .map(|file| {
                let name = file.file_name().unwrap().to_string_lossy().to_string();
                let text = std::fs::read_to_string(file).unwrap();
                let case = goyaml::from_yaml_json(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
                (name, case)
            })
            .collect()
    }
}
