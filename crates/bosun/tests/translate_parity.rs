//! Parity of `bosun manifest translate` with `istioctl manifest translate` (istioctl built from
//! the pinned Istio): for every case of tests/cases/manifest-generate/parity.txt both write an
//! output directory, and the directories must hold the same files (names, bytes, executable
//! bits) and the tools must say the same, or both must fail.
//!
//! `BOSUN_ISTIOCTL` and `BOSUN_ISTIO` may point at already fetched copies.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{fetched, parity_cases};

struct Run {
    ok: bool,
    stdout: String,
    stderr: String,
    /// File name → (contents, executable).
    files: BTreeMap<String, (Vec<u8>, bool)>,
}

fn run(bin: &Path, args: &[String], manifests: &Path, out: &Path) -> Run {
    std::fs::create_dir_all(out).unwrap();
    let result = Command::new(bin)
        .args(["manifest", "translate"])
        .args(args)
        .arg("--manifests")
        .arg(manifests)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", bin.display()));
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(out).unwrap() {
        let entry = entry.unwrap();
        let meta = entry.metadata().unwrap();
        let executable = meta.permissions().mode() & 0o111 != 0;
        files.insert(
            entry.file_name().to_string_lossy().into_owned(),
            (std::fs::read(entry.path()).unwrap(), executable),
        );
    }
    Run {
        ok: result.status.success(),
        stdout: String::from_utf8_lossy(&result.stdout).replace(&out.display().to_string(), "OUT"),
        stderr: String::from_utf8_lossy(&result.stderr).into_owned(),
        files,
    }
}

fn compare(want: &Run, got: &Run) -> Result<(), String> {
    match (want.ok, got.ok) {
        (false, false) => return Ok(()),
        (true, false) => return Err(format!("bosun failed: {}", got.stderr.trim())),
        (false, true) => return Err(format!("istioctl failed: {}", want.stderr.trim())),
        (true, true) => {}
    }
    let mut problems = Vec::new();
    if want.stdout != got.stdout {
        problems.push(format!(
            "stdout: istioctl {:?}, bosun {:?}",
            want.stdout, got.stdout
        ));
    }
    for (name, (bytes, exec)) in &want.files {
        match got.files.get(name) {
            None => problems.push(format!("missing {name}")),
            Some((b, e)) if b != bytes => {
                let (w, g) = (String::from_utf8_lossy(bytes), String::from_utf8_lossy(b));
                let line = w
                    .lines()
                    .zip(g.lines())
                    .position(|(x, y)| x != y)
                    .unwrap_or(w.lines().count().min(g.lines().count()));
                problems.push(format!(
                    "{name} differs at line {}: istioctl {:?}, bosun {:?}",
                    line + 1,
                    w.lines().nth(line),
                    g.lines().nth(line)
                ));
                let _ = e;
            }
            Some((_, e)) if e != exec => {
                problems.push(format!("{name}: executable {e}, want {exec}"))
            }
            Some(_) => {}
        }
    }
    for name in got.files.keys() {
        if !want.files.contains_key(name) {
            problems.push(format!("unexpected {name}"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        problems.truncate(6);
        Err(problems.join("\n    "))
    }
}

#[test]
fn manifest_translate_matches_istioctl() {
    let istioctl = fetched("BOSUN_ISTIOCTL", "fetch-istioctl");
    let istio = fetched("BOSUN_ISTIO", "fetch-istio");
    let bosun = PathBuf::from(env!("CARGO_BIN_EXE_bosun"));
    let manifests = istio.join("manifests");
    let cases = parity_cases(&istio.join("operator/cmd/mesh/testdata/manifest-generate/input"));
    let scratch =
        std::env::temp_dir().join(format!("bosun-translate-parity-{}", std::process::id()));
    let (mut equal, mut failed_alike, mut with_diffs) = (0, 0, 0);
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        if case.gap.is_some() {
            continue;
        }
        let want = run(
            &istioctl,
            &case.args,
            &manifests,
            &scratch.join(format!("{i}-istioctl")),
        );
        let got = run(
            &bosun,
            &case.args,
            &manifests,
            &scratch.join(format!("{i}-bosun")),
        );
        match compare(&want, &got) {
            Ok(()) if want.ok => {
                equal += 1;
                if want.files.keys().any(|f| f.starts_with("diff-")) {
                    with_diffs += 1;
                }
            }
            Ok(()) => failed_alike += 1,
            Err(e) => failures.push(format!("{}: {e}", case.name)),
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    eprintln!(
        "translate parity: {} cases: {equal} identical output directories ({with_diffs} with Helm/istioctl diff files), {failed_alike} failing in both, {} differing",
        cases.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} cases differ from istioctl:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}
