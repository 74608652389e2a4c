//! Reading YAML: every case under `tests/cases/yaml/read/` against the Go oracle's output.

mod common;

use common::{case_files, dump, parse_cases};
use gotemplate::Value;
use goyaml as yaml;

fn show<T>(r: Result<T, yaml::YamlError>, f: impl Fn(T) -> String) -> String {
    match r {
        Ok(v) => f(v),
        Err(e) => format!("error: {e}"),
    }
}

#[test]
fn read_cases() {
    let mut total = 0;
    let mut failures = Vec::new();
    let mut gaps = Vec::new();
    for path in case_files("yaml/read") {
        for case in parse_cases(&path) {
            total += 1;
            let failures = if case.gap { &mut gaps } else { &mut failures };
            let got = show(yaml::from_yaml_bytes(&case.input), |v| dump(&v));
            let want = case.section("from_yaml").expect("from_yaml section");
            if got != want {
                failures.push(format!(
                    "{}/{} from_yaml:\n  want: {want}\n  got:  {got}",
                    case.file, case.name
                ));
            }
            let got_values = show(yaml::values_from_yaml_bytes(&case.input), |m| {
                dump(&Value::Map(m))
            });
            let want_values = case.section("values").unwrap_or(want);
            if got_values != want_values {
                failures.push(format!(
                    "{}/{} values:\n  want: {want_values}\n  got:  {got_values}",
                    case.file, case.name
                ));
            }
            let got_read = show(yaml::read_values_bytes(&case.input), |m| {
                dump(&Value::Map(m))
            });
            let want_read = case.section("read_values").unwrap_or(want_values);
            if got_read != want_read {
                failures.push(format!(
                    "{}/{} read_values:\n  want: {want_read}\n  got:  {got_read}",
                    case.file, case.name
                ));
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
        "yaml read: {total} cases, {} mismatches, {} known-gap mismatches",
        failures.len(),
        gaps.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {total} read cases failed",
        failures.len()
    );
}

#[test]
fn document_cases() {
    let mut total = 0;
    let mut failures = Vec::new();
    for path in case_files("yaml/docs") {
        for case in parse_cases(&path) {
            total += 1;
            let text = std::str::from_utf8(&case.input).unwrap();
            let got = show(yaml::documents(text), |docs| {
                let parts: Vec<String> = docs.iter().map(dump).collect();
                format!("[{}]", parts.join(", "))
            });
            let want = case.section("documents").expect("documents section");
            if got != want {
                failures.push(format!(
                    "{}/{}:\n  want: {want}\n  got:  {got}",
                    case.file, case.name
                ));
            }
        }
    }
    for f in &failures {
        eprintln!("{f}");
    }
    eprintln!(
        "yaml documents: {total} cases, {} mismatches",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {total} document cases failed",
        failures.len()
    );
}
