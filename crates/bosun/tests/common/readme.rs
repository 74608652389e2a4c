//! README.md's fenced blocks and their shown output, for the tests that run them as written:
//! `readme.rs` (the `# offline` blocks) and `readme_cluster.rs` (the `# cluster` block).
//!
//! A block's `#> ` lines (comments to the shell) are what it prints: each must be a whole line
//! of the output, in order. In a shown line, `…` stands for any text, for what differs from
//! run to run or cluster to cluster (a pod's name, a proxy's version).

/// One fenced block: its info string (`sh`), its first line in README.md (1-based) and its text.
pub struct Block {
    pub info: String,
    pub line: usize,
    pub text: String,
}

impl Block {
    /// The first line of the block (`# offline`, `# cluster`), or "".
    pub fn first(&self) -> &str {
        self.text.lines().next().unwrap_or("")
    }
}

pub fn fenced_blocks(readme: &str) -> Vec<Block> {
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

/// README.md's blocks.
pub fn readme_blocks() -> Vec<Block> {
    let readme =
        std::fs::read_to_string(super::repo_root().join("README.md")).expect("read README.md");
    fenced_blocks(&readme)
}

pub fn calls_bosun(text: &str) -> bool {
    text.lines()
        .any(|l| l.trim_start().starts_with("bosun ") || l.contains("| bosun "))
}

/// The `#> ` lines of a block, in order.
pub fn shown_output(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| l.strip_prefix("#> ").or((l == "#>").then_some("")))
        .map(str::trim_end)
        .collect()
}

/// Whether `got` is the shown line `want`, where each `…` in `want` stands for any text.
pub fn line_matches(want: &str, got: &str) -> bool {
    let mut parts = want.split('…');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = got.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// The first shown line that is not in `output` (searched in order), if any.
pub fn first_missing<'a>(shown: &[&'a str], output: &str) -> Option<&'a str> {
    let mut lines = output.lines().map(str::trim_end);
    shown
        .iter()
        .find(|want| !lines.any(|got| line_matches(want, got)))
        .copied()
}
