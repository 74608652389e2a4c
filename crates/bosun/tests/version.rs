//! `bosun version`: bosun's version and the pinned Istio release, in each output form, checked
//! against the pin (scripts/istio-pin) and the fetched release's VERSION file.

mod common;

use std::process::{Command, Output};

use common::{release_version, repo_root, stdout, succeeded, text};

fn version(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bosun"))
        .arg("version")
        .args(args)
        .output()
        .expect("running bosun")
}

/// `NAME=value` (quotes taken off) from scripts/istio-pin.
fn pin(name: &str) -> String {
    let path = repo_root().join("scripts/istio-pin");
    let pin = std::fs::read_to_string(&path).expect("read scripts/istio-pin");
    pin.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}=")))
        .unwrap_or_else(|| panic!("scripts/istio-pin sets no {name}"))
        .trim_matches('\'')
        .to_string()
}

#[test]
fn short_by_default_as_in_istioctl() {
    let expected = format!(
        "client version: {}\ndefault Istio version: {}\n",
        env!("CARGO_PKG_VERSION"),
        release_version()
    );
    for args in [&[][..], &["--short"], &["-s"], &["--short=true"]] {
        let out = version(args);
        succeeded(&out);
        assert_eq!(stdout(&out), expected, "bosun version {args:?}");
    }
}

#[test]
fn long_form_names_the_pinned_module() {
    let out = version(&["--short=false"]);
    succeeded(&out);
    assert_eq!(
        stdout(&out),
        format!(
            "client version: {}\ndefault Istio version: {} (istio.io/istio@{}, {})\n",
            env!("CARGO_PKG_VERSION"),
            release_version(),
            pin("ISTIO_VERSION"),
            pin("ISTIO_SUM")
        )
    );
}

#[test]
fn json_keeps_istioctls_field_order() {
    let out = version(&["-o", "json"]);
    succeeded(&out);
    let expected = format!(
        r#"{{
  "clientVersion": {{
    "version": "{}"
  }},
  "defaultIstioVersion": {{
    "version": "{}",
    "module": "istio.io/istio",
    "moduleVersion": "{}",
    "moduleSum": "{}"
  }}
}}
"#,
        env!("CARGO_PKG_VERSION"),
        release_version(),
        pin("ISTIO_VERSION"),
        pin("ISTIO_SUM")
    );
    assert_eq!(stdout(&out), expected);
    // `--short` changes only the text form.
    let short = version(&["--output", "json", "--short"]);
    assert_eq!(stdout(&short), expected, "{}", text(&short));
}

#[test]
fn yaml_sorts_keys_and_quotes_what_would_read_as_a_number() {
    let out = version(&["-o", "yaml"]);
    succeeded(&out);
    let release = release_version();
    // A release such as 1.31 would read back as a float unquoted.
    let quoted = if release.parse::<f64>().is_ok() {
        format!("\"{release}\"")
    } else {
        release
    };
    assert_eq!(
        stdout(&out),
        format!(
            "clientVersion:\n  version: {}\ndefaultIstioVersion:\n  module: istio.io/istio\n  moduleSum: {}\n  moduleVersion: {}\n  version: {quoted}\n",
            env!("CARGO_PKG_VERSION"),
            pin("ISTIO_SUM"),
            pin("ISTIO_VERSION"),
        )
    );
}

#[test]
fn unknown_output_format_is_refused() {
    let out = version(&["-o", "xml"]);
    assert!(!out.status.success(), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("json") && err.contains("yaml"),
        "the error names the formats:\n{err}"
    );
    assert!(out.stdout.is_empty(), "{}", text(&out));
}
