//! The README's offline commands run as written.
//!
//! Every fenced block of README.md that calls `bosun` is a ```` ```sh ```` block whose first
//! line marks it: `# offline` (no cluster needed: this test runs it) or `# cluster` (not run
//! here: `readme_cluster.rs` runs it on the living cluster). An offline block runs as one
//! bash script (`set -euo pipefail`, stderr into stdout) in an empty directory, with the
//! `bosun` built by cargo first on PATH, so every command must exit 0 unless the block says
//! otherwise (`|| echo …`). Its `#> ` lines (comments to the shell) are what it prints: each
//! must be a whole line of the output, in order (`common::readme`, shared with
//! `readme_cluster.rs`; `…` in a shown line stands for any text).
//!
//! The charts come from the pinned release in bosun's cache, which scripts/fetch-istio fills
//! (or `BOSUN_ISTIO` names); the module proxy is pointed at a closed port so that a missing
//! cache fails here instead of downloading.

use std::path::PathBuf;
use std::process::Command;

mod common;
use common::fetched;
use common::readme::{calls_bosun, first_missing, readme_blocks, shown_output};

/// The cache directory bosun reads the pinned release from: the parent of what
/// scripts/fetch-istio prints (`$BOSUN_CACHE/istio-<pin>`).
fn bosun_cache() -> PathBuf {
    fetched("BOSUN_ISTIO", "fetch-istio")
        .parent()
        .expect("the fetched Istio lies in a cache directory")
        .to_path_buf()
}

#[test]
fn readme_offline_blocks_run_as_written() {
    let blocks = readme_blocks();

    let bin = PathBuf::from(env!("CARGO_BIN_EXE_bosun"));
    let path = std::env::join_paths(std::iter::once(bin.parent().unwrap().to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let cache = bosun_cache();

    let mut failures = Vec::new();
    let mut ran = 0;
    for block in &blocks {
        let first = block.first();
        let offline = first.starts_with("# offline");
        let marked = offline || first.starts_with("# cluster");
        if calls_bosun(&block.text) && (block.info != "sh" || !marked) {
            failures.push(format!(
                "README.md:{}: a block that calls bosun must be a ```sh block that begins with `# offline` or `# cluster`",
                block.line
            ));
            continue;
        }
        if !offline {
            continue;
        }
        let shown = shown_output(&block.text);
        if shown.is_empty() {
            failures.push(format!(
                "README.md:{}: an offline block shows no output (`#> ` lines) to check",
                block.line
            ));
            continue;
        }
        let dir = scratch_dir(block.line);
        let out = Command::new("bash")
            .arg("-c")
            .arg(format!("exec 2>&1\nset -euo pipefail\n{}", block.text))
            .current_dir(&dir)
            .env("PATH", &path)
            .env("BOSUN_CACHE", &cache)
            // Offline means offline: no cluster to reach, no module proxy to fetch from.
            .env("KUBECONFIG", dir.join("no-such-kubeconfig"))
            .env("GOPROXY", "http://127.0.0.1:9")
            .output()
            .expect("run bash");
        ran += 1;
        let output = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            failures.push(format!(
                "README.md:{}: the block failed ({})\n--- block\n{}--- output\n{output}",
                block.line, out.status, block.text
            ));
        } else if let Some(want) = first_missing(&shown, &output) {
            failures.push(format!(
                "README.md:{}: the block did not print (in order) the line\n  {want}\n--- output\n{output}",
                block.line
            ));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(ran > 0, "README.md has no `# offline` block");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// An empty directory of its own for one block (tests run in parallel processes too).
fn scratch_dir(line: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bosun-readme-{}-{line}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a scratch directory");
    dir
}

#[test]
fn shown_lines_are_matched_in_order() {
    let out = "a\nb  \nc\n";
    assert_eq!(first_missing(&["a", "c"], out), None);
    assert_eq!(first_missing(&["b"], out), None);
    assert_eq!(first_missing(&["c", "a"], out), Some("a"));
    assert_eq!(first_missing(&["d"], out), Some("d"));
    // `…` stands for any text, none included.
    let out = "apps   Deployment/app 1  blue   1.31-dev green stale\npod apps/app-7d9c-x2 runs\n";
    assert_eq!(
        first_missing(&["apps   Deployment/app 1  blue   …green stale"], out),
        None
    );
    assert_eq!(first_missing(&["…", "pod apps/app-… runs"], out), None);
    assert_eq!(first_missing(&["apps…blue…green…"], out), None);
    assert_eq!(first_missing(&["…stale"], out), None);
    assert_eq!(first_missing(&["apps…red…"], out), Some("apps…red…"));
    assert_eq!(first_missing(&["pod…runs…x"], out), Some("pod…runs…x"));
    assert_eq!(first_missing(&["runs…"], out), Some("runs…"));
    // The text around `…` does not overlap.
    assert_eq!(first_missing(&["ab…ba"], "aba\n"), Some("ab…ba"));
}
