//! Writing YAML and JSON: every case under `tests/cases/yaml/emit/` against the Go oracle.

mod common;

use common::{case_files, parse_cases};
use helm::yaml;

#[test]
fn emit_cases() {
    let mut total = 0;
    let mut failures = Vec::new();
    let mut gaps = Vec::new();
    for path in case_files("yaml/emit") {
        for case in parse_cases(&path) {
            total += 1;
            let failures = if case.gap { &mut gaps } else { &mut failures };
            let want_yaml = case.section("to_yaml").expect("to_yaml section");
            let value = match yaml::from_yaml_bytes(&case.input) {
                Ok(v) => v,
                Err(e) => {
                    let got = format!("input error: {e}");
                    if got != want_yaml {
                        failures.push(format!(
                            "{}/{}: input: want {want_yaml}, got {got}",
                            case.file, case.name
                        ));
                    }
                    continue;
                }
            };
            let got_yaml = match yaml::to_yaml(&value) {
                Ok(s) => s,
                Err(e) => format!("error: {e}"),
            };
            if got_yaml != want_yaml {
                failures.push(format!(
                    "{}/{} to_yaml:\n--- want\n{want_yaml}\n--- got\n{got_yaml}",
                    case.file, case.name
                ));
            }
            if let Some(want_json) = case.section("to_json") {
                let got_json = match yaml::to_json(&value) {
                    Ok(s) => s,
                    Err(e) => format!("error: {e}"),
                };
                if got_json != want_json {
                    failures.push(format!(
                        "{}/{} to_json:\n  want: {want_json}\n  got:  {got_json}",
                        case.file, case.name
                    ));
                }
            }
        }
    }
    for g in &gaps {
        eprintln!("known gap: {g}");
    }
    for f in &failures {
        eprintln!("{f}");
    }
    eprintln!(
        "yaml emit: {total} cases, {} mismatches, {} known-gap mismatches",
        failures.len(),
        gaps.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {total} emit cases failed",
        failures.len()
    );
}
