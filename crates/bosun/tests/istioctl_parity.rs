//! Parity with istioctl built from the pinned Istio (`scripts/fetch-istioctl`): for every case
//! in tests/cases/manifest-generate/parity.txt (every built-in profile, every input of
//! istioctl's own manifest-generate tests with the flags they use, and more), `bosun manifest
//! generate` and `istioctl manifest generate` must produce the same set of objects with the
//! same content, or fail alike. The test also reports how many outputs are byte-identical.
//!
//! `BOSUN_ISTIOCTL` and `BOSUN_ISTIO` may point at already fetched copies.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::manifests::{Run, compare};
use common::{fetched, parity_cases};

fn run(bin: &Path, args: &[String], manifests: &Path) -> Run {
    let out = Command::new(bin)
        .arg("manifest")
        .arg("generate")
        .args(args)
        .arg("--manifests")
        .arg(manifests)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", bin.display()));
    Run::of(&out)
}

#[test]
fn manifest_generate_matches_istioctl() {
    let istioctl = fetched("BOSUN_ISTIOCTL", "fetch-istioctl");
    let istio = fetched("BOSUN_ISTIO", "fetch-istio");
    let bosun = PathBuf::from(env!("CARGO_BIN_EXE_bosun"));
    let manifests = istio.join("manifests");
    let input = istio.join("operator/cmd/mesh/testdata/manifest-generate/input");
    let cases = parity_cases(&input);
    assert!(cases.len() >= 50, "expected the parity cases");

    let (mut equal, mut identical, mut failed_alike, mut gaps) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    let mut reworded = Vec::new();
    for case in &cases {
        let want = run(&istioctl, &case.args, &manifests);
        let got = run(&bosun, &case.args, &manifests);
        let result = compare(&want, &got);
        match (&case.gap, result) {
            (None, Ok(same_bytes)) => {
                if want.ok {
                    equal += 1;
                    if same_bytes {
                        identical += 1;
                    }
                } else {
                    failed_alike += 1;
                    if !same_bytes {
                        reworded.push(format!(
                            "{}:\n    istioctl: {}\n    bosun:    {}",
                            case.name,
                            want.stderr.trim(),
                            got.stderr.trim()
                        ));
                    }
                }
            }
            (None, Err(e)) => failures.push(format!("{}: {e}", case.name)),
            (Some(_), Err(_)) => gaps += 1,
            (Some(why), Ok(_)) => failures.push(format!(
                "{}: recorded as a gap ({why}) but now matches; remove the gap line",
                case.name
            )),
        }
    }
    eprintln!(
        "istioctl parity: {} cases: {equal} with equal objects ({identical} byte-identical), {failed_alike} failing in both, {gaps} known gaps, {} differing",
        cases.len(),
        failures.len()
    );
    for r in &reworded {
        eprintln!("  error worded differently: {r}");
    }
    assert!(
        failures.is_empty(),
        "{} cases differ from istioctl:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}
