//! `bosun helm template`'s command line against real helm 4.1.4 (`scripts/fetch-helm`, or the
//! binary `BOSUN_HELM` names): inputs that are not files. The rendering itself is compared
//! case by case in `gotemplate_conformance` and on whole charts in `istio_chart_parity` and
//! `public_chart_parity`.

mod common;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use common::{fetched, repo_root, text};

/// Runs `program args` with `stdin` written to its standard input.
fn run_with_stdin(program: &std::path::Path, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(program)
        .args(args)
        .current_dir(repo_root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("running {}: {e}", program.display()));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// `-f -` reads a values file from stdin, between other values files, as helm does; a values
/// file on stdin that is not YAML fails in helm's words, naming it `-`.
#[test]
fn values_file_from_stdin() {
    let helm = fetched("BOSUN_HELM", "fetch-helm");
    let bosun = std::path::PathBuf::from(env!("CARGO_BIN_EXE_bosun"));
    let chart = "examples/charts/hello";
    for (args, stdin) in [
        (
            vec!["template", "r", chart, "-f", "-"],
            "replicas: 3\nimage:\n  tag: from-stdin\n",
        ),
        (
            vec!["template", "r", chart, "--set", "replicas=5", "-f", "-"],
            "replicas: 3\n",
        ),
        (vec!["template", "r", chart, "-f", "-"], "replicas: [\n"),
    ] {
        let want = run_with_stdin(&helm, &args, stdin);
        let mut bosun_args = vec!["helm"];
        bosun_args.extend(&args);
        let got = run_with_stdin(&bosun, &bosun_args, stdin);
        assert_eq!(
            (got.status.code(), &got.stdout, &got.stderr),
            (want.status.code(), &want.stdout, &want.stderr),
            "{args:?} with stdin {stdin:?}\nbosun:\n{}\nhelm:\n{}",
            text(&got),
            text(&want)
        );
    }
}
