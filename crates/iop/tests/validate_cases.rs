//! The data-driven validation cases in tests/cases/iop/validate/: each `.yaml` file is an
//! IstioOperator whose leading comments say what bosun reports (`# expect: valid`, or one
//! `# expect: error|warning LINE:COL FIELD: MESSAGE` line per finding) and what istioctl did
//! with it (`# istioctl: accepts` or `# istioctl: rejects: FIRST LINE OF ITS ERROR`).
//!
//! `BOSUN_BLESS=1` rewrites the `# expect:` lines from bosun's output (review the diff).
//! `istioctl_records` runs istioctl on every case when `BOSUN_ISTIOCTL` names the binary and
//! checks the `# istioctl:` records (`BOSUN_BLESS=1` rewrites them); it is skipped otherwise.

use std::path::{Path, PathBuf};
use std::process::Command;

use iop::source::{Layer, SourceMap};
use iop::validate::{Report, validate};

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/cases/iop/validate")
}

fn cases() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(cases_dir())
        .expect("case folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    out.sort();
    out
}

fn bless() -> bool {
    std::env::var_os("BOSUN_BLESS").is_some_and(|v| v == "1")
}

/// The header's lines starting with `# {tag}: `, and the rest of the file.
fn header(text: &str, tag: &str) -> Vec<String> {
    let prefix = format!("# {tag}: ");
    text.lines()
        .take_while(|l| l.starts_with('#'))
        .filter_map(|l| l.strip_prefix(&prefix).map(str::to_string))
        .collect()
}

/// Rewrites the header lines of `tag`, keeping the others (in a fixed order) and the body.
fn rewrite(path: &Path, text: &str, tag: &str, lines: &[String]) {
    let mut head: Vec<String> = text
        .lines()
        .take_while(|l| l.starts_with('#'))
        .filter(|l| !l.starts_with(&format!("# {tag}: ")))
        .map(str::to_string)
        .collect();
    head.extend(lines.iter().map(|l| format!("# {tag}: {l}")));
    head.sort_by_key(|l| !l.starts_with("# expect: "));
    let body: Vec<&str> = text.lines().skip_while(|l| l.starts_with('#')).collect();
    std::fs::write(path, format!("{}\n{}\n", head.join("\n"), body.join("\n"))).expect("write");
}

fn run(path: &Path, text: &str) -> Report {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let v = goyaml::from_yaml(text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let json = goyaml::to_json(&v).expect("to_json");
    let iop: serde_json::Value = serde_json::from_str(&json).expect("json");
    let mut sm = SourceMap::new();
    sm.push(Layer::file(&name, text).expect("positions"));
    validate(&iop, &sm)
}

fn describe(r: &Report) -> Vec<String> {
    let line = |kind: &str, i: &iop::validate::Issue| {
        let at = match i.origin.as_ref().and_then(|o| o.location()) {
            Some((_, l, c)) => format!("{l}:{c}"),
            None => "-".to_string(),
        };
        format!("{kind} {at} {}: {}", i.field, i.message)
    };
    let mut out: Vec<String> = r.errors.iter().map(|i| line("error", i)).collect();
    out.extend(r.warnings.iter().map(|i| line("warning", i)));
    if out.is_empty() {
        out.push("valid".to_string());
    }
    out
}

#[test]
fn validation_cases() {
    let all = cases();
    assert!(all.len() >= 100, "only {} cases", all.len());
    let mut failures = Vec::new();
    for path in &all {
        if bless() {
            // The header's length moves the body's lines: rewrite until the positions settle.
            for _ in 0..3 {
                let text = std::fs::read_to_string(path).expect("read");
                let got = describe(&run(path, &text));
                if got == header(&text, "expect") {
                    break;
                }
                rewrite(path, &text, "expect", &got);
            }
            continue;
        }
        let text = std::fs::read_to_string(path).expect("read");
        let got = describe(&run(path, &text));
        let want = header(&text, "expect");
        if got != want {
            failures.push(format!(
                "{}:\n  want: {want:#?}\n  got:  {got:#?}",
                path.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every error of every case renders with its source line and a caret.
#[test]
fn errors_render_with_a_caret_under_the_column() {
    for path in cases() {
        let text = std::fs::read_to_string(&path).expect("read");
        for e in run(&path, &text).errors {
            let r = iop::validate::render(&e, &text);
            let (_, line, col) = e
                .origin
                .as_ref()
                .and_then(|o| o.location())
                .expect("origin");
            let lines: Vec<&str> = r.lines().collect();
            assert!(lines[0].contains(&e.message), "{r}");
            let src = text.lines().nth(line - 1).unwrap();
            assert!(lines[3].ends_with(src), "{r}");
            let caret = lines[4].find('^').expect("caret");
            let gutter = lines[3].find(" | ").unwrap() + 3;
            assert_eq!(caret - gutter, col - 1, "{}\n{r}", path.display());
        }
    }
}

fn manifests() -> PathBuf {
    if let Some(d) = std::env::var_os("BOSUN_ISTIO_MANIFESTS") {
        return PathBuf::from(d);
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/fetch-istio");
    let out = Command::new(script).output().expect("scripts/fetch-istio");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim()).join("manifests")
}

/// What istioctl did: `accepts`, or `rejects: ` and the first line of its error.
fn istioctl_verdict(bin: &Path, manifests: &Path, case: &Path) -> String {
    let out = Command::new(bin)
        .args(["manifest", "generate", "-f"])
        .arg(case)
        .arg("--manifests")
        .arg(manifests)
        .output()
        .expect("run istioctl");
    if out.status.success() {
        return "accepts".to_string();
    }
    let err = String::from_utf8_lossy(&out.stderr);
    let first = err
        .lines()
        .find(|l| l.starts_with("Error: "))
        .or_else(|| err.lines().next())
        .unwrap_or_default();
    format!("rejects: {}", first.trim_start_matches("Error: "))
}

#[test]
fn istioctl_records() {
    let Some(bin) = std::env::var_os("BOSUN_ISTIOCTL").map(PathBuf::from) else {
        eprintln!("skipped: BOSUN_ISTIOCTL is not set");
        return;
    };
    let manifests = manifests();
    let mut failures = Vec::new();
    for path in cases() {
        let text = std::fs::read_to_string(&path).expect("read");
        let got = istioctl_verdict(&bin, &manifests, &path);
        let want = header(&text, "istioctl");
        if bless() {
            if want != [got.clone()] {
                rewrite(&path, &text, "istioctl", &[got]);
            }
            continue;
        }
        if want != [got.clone()] {
            failures.push(format!(
                "{}: recorded {want:?}, istioctl now: {got}",
                path.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every case records istioctl's verdict, and a case istioctl rejects is one bosun rejects too
/// (bosun may reject more: Kubernetes' rules; it must not let through what istioctl refuses).
#[test]
fn records_are_complete_and_bosun_rejects_what_istioctl_rejects() {
    for path in cases() {
        let text = std::fs::read_to_string(&path).expect("read");
        let rec = header(&text, "istioctl");
        assert_eq!(rec.len(), 1, "{}: no `# istioctl:` record", path.display());
        if rec[0].starts_with("rejects") {
            assert!(
                !run(&path, &text).is_ok(),
                "{}: istioctl rejects it, bosun does not",
                path.display()
            );
        }
    }
}
