//! The install gates (`release::support::judge`): the cases in tests/cases/release/gates.txt
//! against the fixed catalog beside them, so they do not move when bosun's catalog is updated
//! or the clock does.

use std::path::PathBuf;

use release::catalog::Catalog;
use release::support::{Date, judge};

fn cases_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/cases/release")
}

#[test]
fn gate_cases() {
    let text = std::fs::read_to_string(cases_dir().join("catalog.json")).unwrap();
    let catalog = Catalog::parse(&text).expect("the fixture catalog parses");
    let text = std::fs::read_to_string(cases_dir().join("gates.txt")).unwrap();
    let mut failures = Vec::new();
    let mut count = 0;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = format!("gates.txt:{}", n + 1);
        let (input, want) = line
            .split_once("=>")
            .unwrap_or_else(|| panic!("{at}: no =>"));
        let fields: Vec<&str> = input.split('|').map(str::trim).collect();
        let [version, kubernetes, today, revision, installed] = fields[..] else {
            panic!("{at}: want 5 fields, got {}", fields.len());
        };
        let today = Date::parse(today).unwrap_or_else(|| panic!("{at}: bad date {today}"));
        let kubernetes = (kubernetes != "-").then_some(kubernetes);
        let installed: Vec<(String, String)> = installed
            .split_whitespace()
            .filter(|i| *i != "-")
            .map(|i| {
                let (r, v) = i.split_once('=').unwrap_or_else(|| panic!("{at}: {i}"));
                (r.to_string(), v.to_string())
            })
            .collect();
        count += 1;
        let got = judge(&catalog, version, revision, kubernetes, &installed, today);
        let kinds: Vec<&str> = got.iter().map(|c| c.kind()).collect();
        let got = if kinds.is_empty() {
            "none".to_string()
        } else {
            kinds.join(", ")
        };
        if got != want.trim() {
            failures.push(format!("{at}: {input}=> {got}, want {}", want.trim()));
        }
    }
    assert!(count >= 20, "too few cases: {count}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn messages_name_both_versions_and_the_way_out() {
    let text = std::fs::read_to_string(cases_dir().join("catalog.json")).unwrap();
    let catalog = Catalog::parse(&text).unwrap();
    let today = Date::parse("2022-02-01").unwrap();
    let got = judge(&catalog, "1.10.2", "default", Some("v1.17.0"), &[], today);
    let lines: Vec<String> = got.iter().map(|c| format!("{c} | {}", c.fix())).collect();
    assert_eq!(
        lines,
        [
            "Istio 1.10.2 is end of life: support for 1.10 ended 2022-01 | install a supported release (`bosun version --list` shows them), or pass --force to install it anyway",
            "The Kubernetes Version \"v1.17.0\" is lower than the minimum version: 1.18 | upgrade the cluster to Kubernetes 1.18 or newer, or install an Istio release that supports it (`bosun version --list`)",
        ]
    );
    let skip = judge(
        &catalog,
        "1.11.0",
        "default",
        None,
        &[("default".into(), "1.9.9".into())],
        today,
    );
    assert_eq!(
        skip.iter().map(ToString::to_string).collect::<Vec<_>>(),
        [
            "The install replaces revision default of Istio 1.9.9 in place with Istio 1.11.0: an in-place upgrade may move one minor version only"
        ]
    );
    assert_eq!(
        skip[0].fix(),
        "use a canary: install Istio 1.11.0 as a new revision (--revision R) beside default, or upgrade to 1.10 first; --force replaces it anyway"
    );
    assert!(skip[0].refuses());
}
