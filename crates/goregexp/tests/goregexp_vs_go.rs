//! Differential test of `goregexp` against Go's `regexp` itself, on generated patterns
//! and texts: compile errors, `MatchString`, `FindAllString`, `ReplaceAllString`,
//! `ReplaceAllLiteralString` and `Split` must agree.
//!
//! Needs a Go toolchain, so it is ignored by default:
//!
//! ```sh
//! GOTOOLCHAIN=go1.25.9 cargo test -p goregexp --test goregexp_vs_go -- --ignored
//! ```
//!
//! (`GO` names the go binary, `GOREGEXP_CASES` the number of patterns, 3000 by default.)
//! Go 1.25 is Helm 4.1.4's Go; its Unicode tables are 15.0.

use std::fmt::Write as _;
use std::process::Command;

use testkit::Xorshift as Rng;

const GO_PROGRAM: &str = r#"package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		var c [3]string
		if err := json.Unmarshal(in.Bytes(), &c); err != nil {
			panic(err)
		}
		re, err := regexp.Compile(c[0])
		var r []any
		if err != nil {
			r = []any{err.Error()}
		} else {
			r = []any{"", re.MatchString(c[1]), re.FindAllString(c[1], -1), re.ReplaceAllString(c[1], c[2]), re.ReplaceAllLiteralString(c[1], c[2]), re.Split(c[1], -1), re.FindAllString(c[1], 2), re.Split(c[1], 2)}
		}
		b, _ := json.Marshal(r)
		fmt.Fprintln(out, string(b))
	}
}
"#;

const ATOMS: &[&str] = &[
    "a",
    "b",
    "A",
    "K",
    "k",
    "é",
    "É",
    "ſ",
    "\u{212a}",
    "σ",
    "Σ",
    "ς",
    ".",
    "-",
    "_",
    "1",
    " ",
    "\\.",
    "\\-",
    "\\w",
    "\\W",
    "\\d",
    "\\s",
    "\\S",
    "\\b",
    "\\B",
    "^",
    "$",
    "\\A",
    "\\z",
    "[a-c]",
    "[^a]",
    "[\\w-\\.]",
    "[[:alpha:]]",
    "[[:^space:]]",
    "[\\d\\s]",
    "[^\\W]",
    "\\pL",
    "\\p{Greek}",
    "\\PL",
    "\\p{Lu}",
    "\\p{^Ll}",
    "[\\p{Lu}k]",
    "\\p{Letter}",
    "\\p{ascii}",
    "[-a]",
    "[a-]",
    "[]a]",
    "[^]a]",
    "\\Qa.b\\E",
    "\\x41",
    "\\x{212A}",
    "\\101",
    "\\n",
    "\\t",
    "(?i)",
    "(?-i)",
    "(?s)",
    "(?m)",
    "(?U)",
    "{,2}",
    "x{",
    "\\pN",
    "\\p{Zs}",
    "[\\pLé-ë]",
    "[^\\n]",
    "(?i)[k-l]",
    "(?i)[^k]",
    "(?i)\\W",
    "\\p{Common}",
    "\\p{Assigned}",
];
/// Pieces that are often errors in Go.
const BAD: &[&str] = &[
    "{2}",
    "{1,}",
    "\\",
    "(",
    ")",
    "[",
    "]",
    "*",
    "+",
    "?",
    "|",
    "{1,2}",
    "\\1",
    "\\8",
    "\\Z",
    "\\p{Foo}",
    "[z-a]",
    "[[:foo:]]",
    "\\p{Old_Italic}",
    "(?P<n>",
    "(?<n>",
    "(?:",
    "(?i:",
    "(?P=n)",
    "(?<=a)",
    "\\C",
    "(?x)",
    "[a-\\d]",
    "\\x{110000}",
    "a{1001}",
];
const REPEATS: &[&str] = &[
    "", "", "", "*", "+", "?", "*?", "+?", "??", "{2}", "{0,1}", "{1,3}?",
];
const TEXT: &[&str] = &[
    "a", "b", "A", "B", "k", "K", "\u{212a}", "é", "É", "ſ", "s", "S", "σ", "Σ", "ς", "-", ".",
    "_", "1", " ", "\n", "x", "ab", "aa",
];
const TEMPLATES: &[&str] = &[
    "<$0>", "[$1]", "${1}x", "$1x", "$n|${n}", "$$", "$", "${", "$01", "<$2$1>", "",
];

fn pattern(rng: &mut Rng) -> String {
    let mut p = String::new();
    let mut open = 0;
    for _ in 0..1 + rng.next() % 6 {
        match rng.next() % 10 {
            0 if open > 0 => {
                p.push(')');
                open -= 1;
            }
            1 => {
                p.push_str(rng.pick(&["(", "(?:", "(?P<n>", "(?i:", "(?<m>"]));
                open += 1;
            }
            2 => p.push('|'),
            3 if rng.next().is_multiple_of(3) => p.push_str(rng.pick(BAD)),
            _ => p.push_str(rng.pick(ATOMS)),
        }
        p.push_str(rng.pick(REPEATS));
    }
    // Mostly well-formed.
    if !rng.next().is_multiple_of(4) {
        for _ in 0..open {
            p.push(')');
        }
    }
    p
}

/// Patterns at Go's limits (nesting depth, size, repeat counts) and other corners.
fn fixed_patterns() -> Vec<String> {
    let nest = |open: &str, n: usize| format!("{}a{}", open.repeat(n), ")".repeat(n));
    let mut p = vec![
        nest("(", 999),
        nest("(", 1000),
        nest("(?:", 3000),
        nest("(?:a", 1000),
        nest("(a|", 500),
        format!("{}", "a*".repeat(1200)),
        "a{1000}".repeat(3),
        "(?:a{1000}){1000}".to_string(),
        "((a{100}){10}){2}".to_string(),
        "\\pL{1000}".to_string(),
        "[\\x{0}-\\x{10FFFF}]{1000}".to_string(),
        "(?i)[\\x{0}-\\x{1E943}]".to_string(),
        "(?i)[a-\\x{1E000}]x".to_string(),
        "(?:(?:a{20}){20}){3}".to_string(),
        "(?:a{1000}|b{1000}){3}".to_string(),
        "x{2}{3}".to_string(),
        "(?i)ſ|S|k|\\x{212A}".to_string(),
        "abc|abd|aef|bcx|bcy".to_string(),
        "(?i:A)b|A(c)".to_string(),
        "A(c)|(?i:A)b".to_string(),
        "[a]|[b]|c|[^d]|.".to_string(),
        "(a){0}(b)".to_string(),
        "(a*)*".to_string(),
        "(a|)+".to_string(),
        "(|a)*".to_string(),
        "(a*?)*b".to_string(),
        "\\b|\\B".to_string(),
        "(?m)^|$".to_string(),
    ];
    let alternation: Vec<String> = (0..1200).map(|i| format!("x{i}")).collect();
    p.push(alternation.join("|"));
    p.push(format!("({})", "a".repeat(4_000_000)));
    p
}

fn text(rng: &mut Rng) -> String {
    (0..rng.next() % 8).map(|_| rng.pick(TEXT)).collect()
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

fn json_list(items: &[&str]) -> String {
    // Go's json.Marshal of a nil slice is null: FindAllString and Split of nothing.
    if items.is_empty() {
        return "null".to_string();
    }
    serde_json::to_string(items).unwrap()
}

fn ours(p: &str, t: &str, tmpl: &str) -> String {
    match goregexp::compile(p) {
        Err(e) => format!("[{}]", json_str(&e.to_string())),
        Ok(re) => {
            let split = |n| {
                let parts = re.split(t, n);
                // Go's Split returns a non-nil empty slice for "" only when n == 0.
                serde_json::to_string(&parts).unwrap()
            };
            format!(
                "[\"\",{},{},{},{},{},{},{}]",
                re.is_match(t),
                json_list(&re.find_all(t, -1)),
                json_str(&re.replace_all(t, tmpl, false)),
                json_str(&re.replace_all(t, tmpl, true)),
                split(-1),
                json_list(&re.find_all(t, 2)),
                split(2),
            )
        }
    }
}

#[test]
#[ignore = "needs a Go toolchain (GOTOOLCHAIN=go1.25.9 for Helm 4.1.4's Go)"]
fn goregexp_agrees_with_go() {
    let n: usize = std::env::var("GOREGEXP_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut cases = Vec::new();
    let mut input = String::new();
    let fixed = fixed_patterns();
    let n = n + fixed.len();
    for i in 0..n {
        let p = match fixed.get(i) {
            Some(p) => p.clone(),
            None => pattern(&mut rng),
        };
        let t = text(&mut rng);
        let tmpl = rng.pick(TEMPLATES).to_string();
        writeln!(
            input,
            "[{},{},{}]",
            json_str(&p),
            json_str(&t),
            json_str(&tmpl)
        )
        .unwrap();
        cases.push((p, t, tmpl));
    }
    let dir = std::env::temp_dir().join(format!("goregexp-vs-go-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("main.go"), GO_PROGRAM).unwrap();
    std::fs::write(dir.join("go.mod"), "module goregexpvsgo\n\ngo 1.25\n").unwrap();
    std::fs::write(dir.join("cases.jsonl"), &input).unwrap();
    let go = std::env::var("GO").unwrap_or_else(|_| "go".to_string());
    let out = Command::new(go)
        .args(["run", "."])
        .current_dir(&dir)
        .stdin(std::fs::File::open(dir.join("cases.jsonl")).unwrap())
        .output()
        .expect("go runs");
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs = String::from_utf8(out.stdout).unwrap();
    let mut failures = Vec::new();
    let mut compiled = 0;
    for ((p, t, tmpl), go) in cases.iter().zip(theirs.lines()) {
        let go: serde_json::Value = serde_json::from_str(go).unwrap();
        compiled += usize::from(go[0] == "");
        let mine: serde_json::Value = serde_json::from_str(&ours(p, t, tmpl)).unwrap();
        if go != mine {
            failures.push(format!(
                "{p:?} on {t:?} with {tmpl:?}:\n  go   {go}\n  ours {mine}"
            ));
        }
    }
    eprintln!("{n} patterns, {compiled} compiled by Go");
    assert_eq!(theirs.lines().count(), n);
    assert!(
        failures.is_empty(),
        "{} of {n} differ:\n{}",
        failures.len(),
        failures[..failures.len().min(30)].join("\n")
    );
}
