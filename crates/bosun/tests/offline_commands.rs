//! The offline commands beside `manifest generate`, data-driven:
//! - `profile list|dump|diff` (tests/cases/profile/cases.txt): compared with the expected outputs
//!   under tests/cases/profile/expected/ (`BOSUN_BLESS=1` rewrites them) and, when the profile
//!   oracle is at hand, with it: our Go program that runs the pinned Istio's own profile and
//!   merge code with istioctl 1.23's command shapes and output formats
//!   (scripts/profile-oracle/main.go, built by scripts/fetch-profile-oracle, or the binary
//!   `BOSUN_PROFILE_ORACLE` names). Istio removed the command in 1.24, so the pinned istioctl
//!   has none;
//! - `manifest diff` (tests/cases/manifest-diff/NAME/{a.yaml,b.yaml,args,expected});
//! - `validate` (tests/cases/validate/NAME.yaml [+ NAME.args, flags one a line] → NAME.expected:
//!   stdout, stderr, exit status);
//! - output into a pipe closed early (`bosun … | head`).
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

/// The message of the last `Error: ` line of a failed command's stderr.
fn error_line(out: &std::process::Output) -> Option<String> {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("Error: ").map(str::to_string))
}

/// Where bosun and the oracle part, or None: stdout and exit status must be identical, and an
/// error must say (at least) what the oracle's says; bosun may add where.
fn oracle_mismatch(ours: &std::process::Output, theirs: &std::process::Output) -> Option<String> {
    if outcome(ours) != outcome(theirs) {
        return Some(format!(
            "--- oracle\n{}\n--- bosun\n{}",
            outcome(theirs),
            outcome(ours)
        ));
    }
    if ours.status.success() {
        return None;
    }
    match (error_line(theirs), error_line(ours)) {
        (None, None) => None,
        (Some(want), Some(got)) if got.contains(&want) => None,
        (want, got) => Some(format!(
            "error messages differ\n--- oracle\n{}\n--- bosun\n{}",
            want.unwrap_or_else(|| String::from_utf8_lossy(&theirs.stderr).into_owned()),
            got.unwrap_or_else(|| String::from_utf8_lossy(&ours.stderr).into_owned())
        )),
    }
}

#[test]
fn profile_commands() {
    let istio = fetched("BOSUN_ISTIO", "fetch-istio").expect("scripts/fetch-istio");
    let manifests = istio.join("manifests");
    let manifests_text = manifests.display().to_string();
    // Canonical, as the paths in messages are, so that every one is written back as `$IN`.
    let dir = std::fs::canonicalize(repo_root().join("tests/cases/profile")).expect("cases dir");
    let inputs = dir.join("inputs").display().to_string();
    let oracle = fetched("BOSUN_PROFILE_ORACLE", "fetch-profile-oracle");
    let text = std::fs::read_to_string(dir.join("cases.txt")).expect("cases.txt");
    let mut failures = Vec::new();
    let (mut ran, mut compared) = (0, 0);
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
        let ours = bosun()
            .arg("profile")
            .args(&args)
            .output()
            .expect("run bosun");
        ran += 1;
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
        // `--explain` is bosun's own.
        let Some(bin) = oracle
            .as_ref()
            .filter(|_| !args.iter().any(|a| a == "--explain"))
        else {
            continue;
        };
        let theirs = Command::new(bin)
            .arg("profile")
            .args(&args)
            .output()
            .expect("run the profile oracle");
        compared += 1;
        if let Some(why) = oracle_mismatch(&ours, &theirs) {
            failures.push(format!("{name}: bosun and the oracle differ: {why}"));
        }
    }
    eprintln!(
        "profile: {ran} cases, {compared} compared with the oracle{}, {} failing",
        if oracle.is_none() {
            " (none at hand: scripts/fetch-profile-oracle failed and BOSUN_PROFILE_ORACLE is unset)"
        } else {
            ""
        },
        failures.len()
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
        // NAME.args, when present: more flags, one a line (the `--set` cases).
        let extra: Vec<String> = std::fs::read_to_string(input.with_extension("args"))
            .map(|text| text.lines().map(str::to_string).collect())
            .unwrap_or_default();
        let out = bosun()
            .current_dir(&dir)
            .args(["validate", "-f", &file])
            .args(&extra)
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

/// `bosun manifest generate | head -1`: when the reader closes the pipe, bosun ends as istioctl
/// (a Go program) does, killed by SIGPIPE with nothing on stderr, not with an error message.
#[test]
fn a_closed_pipe_ends_bosun_quietly_by_sigpipe() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    let istio = fetched("BOSUN_ISTIO", "fetch-istio").expect("scripts/fetch-istio");
    let manifests = istio.join("manifests");
    // The demo profile's manifest is far larger than a pipe holds, so bosun is still writing
    // when the pipe closes.
    let mut child = bosun()
        .args(["manifest", "generate", "--set", "profile=demo", "-d"])
        .arg(&manifests)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 1];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.signal(), Some(13), "{:?}", out.status);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}
