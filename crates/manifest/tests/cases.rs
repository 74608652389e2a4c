//! Runs every case under tests/cases/manifest/{smp,overlay}: inputs and the outputs real Go
//! produced for them (tests/gogen). Objects compare as JSON values; numbers compare with their
//! type, since both sides follow the same JSON round trip (integral values that fit are
//! integers, others floats; see the crate's number notes).

use std::fs;
use std::path::{Path, PathBuf};

use manifest::{ObjectKind, OverlayPatch, apply_overlay, strategic_merge};
use serde_json::Value;

fn case_dir(kind: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/cases/manifest")
        .join(kind)
}

fn load(kind: &str) -> Vec<(String, Value)> {
    let mut files: Vec<PathBuf> = fs::read_dir(case_dir(kind))
        .expect("case directory")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = fs::read_to_string(&p).expect("case file");
            let v: Value =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p.file_stem().unwrap().to_string_lossy().into_owned(), v)
        })
        .collect()
}

fn report(kind: &str, total: usize, failures: Vec<String>) {
    assert!(total > 0, "no {kind} cases found");
    assert!(
        failures.is_empty(),
        "{} of {total} {kind} cases fail:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn smp_cases() {
    let cases = load("smp");
    let mut failures = Vec::new();
    for (name, c) in &cases {
        let k = &c["kind"];
        let s = |v: &Value| v.as_str().unwrap_or_default().to_string();
        let kind = ObjectKind::new(&s(&k["group"]), &s(&k["version"]), &s(&k["kind"]));
        let got = strategic_merge(&kind, &c["original"], &c["patch"]);
        match (c.get("expected"), c.get("error"), got) {
            (Some(want), _, Ok(got)) if *want == got => {}
            (_, Some(Value::String(want)), Err(e)) if *want == e.go_message() => {}
            (want, want_err, got) => failures.push(format!(
                "{name}:\n  want {}\n  got  {}",
                want.map_or_else(|| format!("error {want_err:?}"), Value::to_string),
                match got {
                    Ok(v) => v.to_string(),
                    Err(e) => format!("error {:?} ({e})", e.go_message()),
                }
            )),
        }
    }
    report("smp", cases.len(), failures);
}

#[test]
fn overlay_cases() {
    let cases = load("overlay");
    let mut failures = Vec::new();
    for (name, c) in &cases {
        let patches: Vec<OverlayPatch> = c["patches"]
            .as_array()
            .expect("patches")
            .iter()
            .map(|p| OverlayPatch {
                path: p["path"].as_str().unwrap_or_default().to_string(),
                value: p.get("value").cloned(),
            })
            .collect();
        let got = apply_overlay(&c["original"], &patches);
        let want_skipped: Vec<String> = c
            .get("skipped")
            .and_then(Value::as_array)
            .map(|l| {
                l.iter()
                    .map(|s| s.as_str().unwrap_or_default().to_string())
                    .collect()
            })
            .unwrap_or_default();
        let ok = match (&got, c.get("expected"), c.get("error")) {
            (Ok(o), Some(want), _) => {
                let skipped: Vec<&str> = o.skipped.iter().map(|e| e.go_message()).collect();
                *want == o.object && skipped == want_skipped
            }
            (Err(e), _, Some(Value::String(want))) => e.go_message() == want,
            _ => false,
        };
        if !ok {
            failures.push(format!(
                "{name}:\n  want {} skipped {want_skipped:?} error {:?}\n  got  {}",
                c.get("expected").map_or_else(String::new, Value::to_string),
                c.get("error"),
                match &got {
                    Ok(o) => format!(
                        "{} skipped {:?}",
                        o.object,
                        o.skipped.iter().map(|e| e.go_message()).collect::<Vec<_>>()
                    ),
                    Err(e) => format!("error {:?}", e.go_message()),
                }
            ));
        }
    }
    report("overlay", cases.len(), failures);
}
