//! `.helmignore`: which files of a chart directory Helm's loader skips.
//!
//! Facts (Helm 4's `pkg/ignore`): one pattern per line, blank lines and `#` comments skipped,
//! surrounding white space trimmed; `**` is refused; a pattern is Go's `filepath.Match` syntax;
//! a trailing `/` matches directories only; a leading `/` anchors the pattern at the chart root;
//! a pattern holding a `/` matches the whole relative path, one without matches the base name;
//! `templates/.?*` is always added. A `!` pattern is Helm's odd negation: a path it does NOT
//! match is ignored (and a file is ignored by a `!dir/` pattern). The first pattern that decides
//! wins.

use crate::pathmatch::glob_match;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IgnoreError {
    #[error("double-star (**) syntax is not supported")]
    DoubleStar,
    #[error("syntax error in pattern")]
    BadPattern,
}

#[derive(Debug, Clone)]
struct Pattern {
    glob: String,
    negate: bool,
    must_dir: bool,
    /// Matched against the base name only.
    base_only: bool,
}

#[derive(Debug, Clone, Default)]
pub struct Rules {
    patterns: Vec<Pattern>,
}

impl Rules {
    /// Parses the text of a `.helmignore` file (a UTF-8 BOM at the start is dropped).
    pub fn parse(text: &str) -> Result<Rules, IgnoreError> {
        let mut rules = Rules::default();
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        for line in text.lines() {
            rules.add(line)?;
        }
        Ok(rules)
    }

    /// Adds Helm's default rule (`templates/.?*`).
    pub fn add_defaults(&mut self) {
        self.add("templates/.?*")
            .expect("the default rule is a valid pattern");
    }

    fn add(&mut self, rule: &str) -> Result<(), IgnoreError> {
        let rule = rule.trim();
        if rule.is_empty() || rule.starts_with('#') {
            return Ok(());
        }
        if rule.contains("**") {
            return Err(IgnoreError::DoubleStar);
        }
        if !valid_pattern(rule) {
            return Err(IgnoreError::BadPattern);
        }
        let (negate, rule) = match rule.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, rule),
        };
        let (must_dir, rule) = match rule.strip_suffix('/') {
            Some(rest) => (true, rest),
            None => (false, rule),
        };
        let (glob, base_only) = match rule.strip_prefix('/') {
            Some(rest) => (rest, false),
            None => (rule, !rule.contains('/')),
        };
        self.patterns.push(Pattern {
            glob: glob.to_string(),
            negate,
            must_dir,
            base_only,
        });
        Ok(())
    }

    /// Whether `path` (relative to the chart root, `/`-separated) is ignored.
    pub fn ignore(&self, path: &str, is_dir: bool) -> bool {
        if path.is_empty() || path == "." || path == "./" {
            return false;
        }
        for p in &self.patterns {
            let name = if p.base_only {
                path.rsplit('/').next().unwrap_or(path)
            } else {
                path
            };
            let matched = glob_match(&p.glob, name);
            if p.negate {
                if (p.must_dir && !is_dir) || !matched {
                    return true;
                }
                continue;
            }
            if p.must_dir && !is_dir {
                continue;
            }
            if matched {
                return true;
            }
        }
        false
    }
}

/// Whether Go's `filepath.Match` accepts `pattern` (unterminated classes and a trailing `\`
/// are `ErrBadPattern`).
fn valid_pattern(pattern: &str) -> bool {
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                if i + 1 >= chars.len() {
                    return false;
                }
                i += 2;
            }
            '[' => {
                i += 1;
                if chars.get(i) == Some(&'^') {
                    i += 1;
                }
                let mut first = true;
                loop {
                    let Some(&c) = chars.get(i) else {
                        return false;
                    };
                    if c == ']' && !first {
                        i += 1;
                        break;
                    }
                    if c == '-' && first {
                        return false;
                    }
                    first = false;
                    let lo = if c == '\\' {
                        i += 1;
                        match chars.get(i) {
                            Some(&x) => x,
                            None => return false,
                        }
                    } else {
                        c
                    };
                    i += 1;
                    if chars.get(i) == Some(&'-') {
                        i += 1;
                        let hi = match chars.get(i) {
                            Some('\\') => {
                                i += 1;
                                chars.get(i).copied()
                            }
                            Some(']') | None => None,
                            Some(&x) => Some(x),
                        };
                        match hi {
                            Some(hi) if hi >= lo => i += 1,
                            _ => return false,
                        }
                    }
                }
            }
            _ => i += 1,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helm_rules() {
        let mut r = Rules::parse("# c\n*.bak\n/top.txt\ndocs/*.md\nsecret/\n").unwrap();
        r.add_defaults();
        assert!(r.ignore("a/b/x.bak", false));
        assert!(r.ignore("top.txt", false));
        assert!(!r.ignore("a/top.txt", false));
        assert!(r.ignore("docs/a.md", false));
        assert!(!r.ignore("x/docs/a.md", false));
        assert!(r.ignore("secret", true));
        assert!(!r.ignore("secret", false));
        assert!(r.ignore("templates/.hidden", false));
        assert!(!r.ignore("templates/shown", false));
        assert_eq!(Rules::parse("a/**").unwrap_err(), IgnoreError::DoubleStar);
        assert_eq!(Rules::parse("[a").unwrap_err(), IgnoreError::BadPattern);
    }

    #[test]
    fn negation_ignores_what_it_does_not_match() {
        let r = Rules::parse("!keep.txt\n").unwrap();
        assert!(!r.ignore("keep.txt", false));
        assert!(r.ignore("other.txt", false));
    }
}
