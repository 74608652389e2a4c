//! The offline commands beside `manifest generate`, data-driven:
//! - `profile list|dump|diff` (tests/cases/profile/cases.txt): compared with istioctl when the
//!   istioctl at hand has the `profile` command (Istio removed it in 1.24, so the pinned one does
//!   not; `BOSUN_ISTIOCTL` may point at an older build), otherwise with the expected outputs
//!   under tests/cases/profile/expected/ (`BOSUN_BLESS=1` rewrites them);
//! - `manifest diff` (tests/cases/manifest-diff/NAME/{a.yaml,b.yaml,args,expected});
//! - `validate` (tests/cases/validate/NAME.yaml → NAME.expected: stdout, stderr, exit status).
//!
//! `BOSUN_ISTIO` may point at an already fetched Istio module (its `manifests/` is used).

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn bosun() -> Command {
    Command::new(env!("CARGO_BIN_EXE_bosun"))
}

fn fetched(env: &str, script: &str) -> Option<PathBuf> {
    if let Ok(path) = std::env::var(env) {
        return Some(PathBuf::from(path));
    }
    let out = Command::new(repo_root().join("scripts").join(script))
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

fn blessing() -> bool {
    std::env::var("BOSUN_BLESS").is_ok_and(|v| v == "1")
}

/// Exit status and stdout, as the expected files hold them.
fn outcome(out: &std::process::Output) -> String {
    format!(
        "exit: {}\n{}",
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout)
    )
}

fn check_expected(path: &Path, got: &str, failures: &mut Vec<String>, name: &str) {
    if blessing() {
        std::fs::write(path, got).expect("write expected");
        return;
    }
    match std::fs::read_to_string(path) {
        Ok(want) if want == got => {}
        Ok(want) => failures.push(format!(
            "{name}: output differs from {}\n--- want\n{want}\n--- got\n{got}",
            path.display()
        )),
        Err(_) => failures.push(format!(
            "{name}: no {} (run with BOSUN_BLESS=1 to write it)",
            path.display()
        )),
    }
}

#[test]
fn profile_commands() {
    let istio = fetched("BOSUN_ISTIO", "fetch-istio").expect("scripts/fetch-istio");
    let manifests = istio.join("manifests");
    let manifests_text = manifests.display().to_string();
    let dir = repo_root().join("tests/cases/profile");
    let inputs = dir.join("inputs").display().to_string();
    // istioctl as an oracle only when it has the command.
    let istioctl = fetched("BOSUN_ISTIOCTL", "fetch-istioctl").filter(|bin| {
        Command::new(bin)
            .args(["profile", "list", "--help"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    let text = std::fs::read_to_string(dir.join("cases.txt")).expect("cases.txt");
    let mut failures = Vec::new();
    let mut ran = 0;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (name, args) = line.split_once('|').expect("NAME | ARGS");
        let name = name.trim();
        let args: Vec<String> = args
            .split_whitespace()
            .map(|a| a.replace("$M", &manifests_text).replace("$IN", &inputs))
            .collect();
        let mut cmd = bosun();
        cmd.arg("profile").args(&args);
        let ours = cmd.output().expect("run bosun");
        ran += 1;
        match &istioctl {
            Some(bin) => {
                let theirs = Command::new(bin)
                    .arg("profile")
                    .args(&args)
                    .output()
                    .expect("run istioctl");
                if outcome(&ours) != outcome(&theirs) {
                    failures.push(format!(
                        "{name}: bosun and istioctl differ\n--- istioctl\n{}\n--- bosun\n{}",
                        outcome(&theirs),
                        outcome(&ours)
                    ));
                }
            }
            None => {
                let got = format!(
                    "{}--- stderr\n{}",
                    outcome(&ours),
                    String::from_utf8_lossy(&ours.stderr)
                )
                .replace(&manifests_text, "$M")
                .replace(&inputs, "$IN");
                check_expected(
                    &dir.join("expected").join(format!("{name}.out")),
                    &got,
                    &mut failures,
                    name,
                );
            }
        }
    }
    eprintln!(
        "profile: {ran} cases, {} failing, compared with {}",
        failures.len(),
        if istioctl.is_some() {
            "istioctl"
        } else {
            "expected outputs (this istioctl has no `profile` command)"
        }
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn manifest_diff_cases() {
    let dir = repo_root().join("tests/cases/manifest-diff");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/cases/manifest-diff")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    names.sort();
    assert!(names.len() >= 5, "too few manifest-diff cases");
    let mut failures = Vec::new();
    for case in &names {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let extra = std::fs::read_to_string(case.join("args")).unwrap_or_default();
        let out = bosun()
            .current_dir(case)
            .args(["manifest", "diff", "a", "b"])
            .args(extra.split_whitespace())
            .output()
            .expect("run bosun");
        let got = format!("{}{}", outcome(&out), String::from_utf8_lossy(&out.stderr));
        check_expected(&case.join("expected"), &got, &mut failures, &name);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn validate_cases() {
    // The profiles come from bosun's cache, which fetch-istio fills.
    fetched("BOSUN_ISTIO", "fetch-istio").expect("scripts/fetch-istio");
    let dir = repo_root().join("tests/cases/validate");
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/cases/validate")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 4, "too few validate cases");
    let mut failures = Vec::new();
    for input in &inputs {
        let file = input.file_name().unwrap().to_string_lossy().into_owned();
        let out = bosun()
            .current_dir(&dir)
            .args(["validate", "-f", &file])
            .output()
            .expect("run bosun");
        let got = format!(
            "{}--- stderr\n{}",
            outcome(&out),
            String::from_utf8_lossy(&out.stderr)
        );
        check_expected(
            &input.with_extension("expected"),
            &got,
            &mut failures,
            &file,
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
