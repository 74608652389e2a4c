//! The README's offline commands run as written.
//!
//! Every fenced block of README.md that calls `bosun` is a ```` ```sh ```` block whose first
//! line marks it: `# offline` (no cluster needed: this test runs it) or `# cluster` (not run
//! here; docs/install.md names the tests that cover those steps). An offline block runs as one
//! bash script (`set -euo pipefail`, stderr into stdout) in an empty directory, with the
//! `bosun` built by cargo first on PATH, so every command must exit 0 unless the block says
//! otherwise (`|| echo …`). Its `#> ` lines (comments to the shell) are what it prints: each
//! must be a whole line of the output, in order.
//!
//! The charts come from the pinned release in bosun's cache, which scripts/fetch-istio fills
//! (or `BOSUN_ISTIO` names); the module proxy is pointed at a closed port so that a missing
//! cache fails here instead of downloading.

use std::path::PathBuf;
use std::process::Command;

mod common;
use common::{fetched, repo_root};

/// One fenced block: its info string (`sh`), its first line in README.md (1-based) and its text.
struct Block {
    info: String,
    line: usize,
    text: String,
}

fn fenced_blocks(readme: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in readme.lines().enumerate() {
        match open.as_mut() {
            None => {
                if let Some(info) = line.trim_end().strip_prefix("```") {
                    open = Some(Block {
                        info: info.trim().to_string(),
                        line: i + 2,
                        text: String::new(),
                    });
                }
            }
            Some(_) if line.trim_end() == "```" => blocks.extend(open.take()),
            Some(block) => {
                block.text.push_str(line);
                block.text.push('\n');
            }
        }
    }
    assert!(open.is_none(), "README.md: a fenced block is not closed");
    blocks
}

fn calls_bosun(text: &str) -> bool {
    text.lines()
        .any(|l| l.trim_start().starts_with("bosun ") || l.contains("| bosun "))
}

/// The `#> ` lines of a block, in order.
fn shown_output(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| l.strip_prefix("#> ").or((l == "#>").then_some("")))
        .map(str::trim_end)
        .collect()
}

/// The first shown line that is not in `output` (searched in order), if any.
fn first_missing<'a>(shown: &[&'a str], output: &str) -> Option<&'a str> {
    let mut lines = output.lines().map(str::trim_end);
    shown
        .iter()
        .find(|want| !lines.any(|got| got == **want))
        .copied()
}

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
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    let blocks = fenced_blocks(&readme);

    let bin = PathBuf::from(env!("CARGO_BIN_EXE_bosun"));
    let path = std::env::join_paths(std::iter::once(bin.parent().unwrap().to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let cache = bosun_cache();

    let mut failures = Vec::new();
    let mut ran = 0;
    for block in &blocks {
        let first = block.text.lines().next().unwrap_or("");
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
}
