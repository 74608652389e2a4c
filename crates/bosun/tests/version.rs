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

/// `bosun version --list ARGS` with bosun's cache at `cache`.
fn list(cache: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bosun"))
        .args(["version", "--list"])
        .args(args)
        .env("BOSUN_CACHE", cache)
        .env_remove("BOSUN_CATALOG")
        .output()
        .expect("running bosun")
}

#[test]
fn list_shows_the_catalog_and_what_is_cached() {
    let cache = std::env::temp_dir().join(format!("bosun-version-list-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    std::fs::create_dir_all(cache.join("istio-1.30.3/manifests/profiles")).unwrap();
    // A leftover without profiles is not a cached package.
    std::fs::create_dir_all(cache.join("istio-1.30.2/manifests")).unwrap();

    let out = list(&cache, &["-o", "json"]);
    succeeded(&out);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    let minors: Vec<&str> = v["releases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["minor"].as_str().unwrap())
        .collect();
    assert_eq!(minors, ["1.28", "1.29", "1.30", "1.31"]);
    let r130 = &v["releases"][2];
    assert_eq!(r130["status"], "supported");
    assert_eq!(r130["kubernetes"]["min"], "1.32");
    let cached: Vec<(&str, bool)> = r130["patches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["version"].as_str().unwrap(),
                p["cached"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        cached,
        [
            ("1.30.0", false),
            ("1.30.1", false),
            ("1.30.2", false),
            ("1.30.3", true)
        ]
    );
    assert_eq!(v["releases"][0]["status"], "end-of-life");
    assert_eq!(v["modules"][0]["version"], pin("ISTIO_VERSION"));
    assert_eq!(v["modules"][0]["default"], true);
    assert_eq!(v["modules"][0]["cached"], false);

    let yaml = list(&cache, &["-o", "yaml"]);
    succeeded(&yaml);
    let from_yaml =
        goyaml::json_value::to_json_value(&goyaml::documents(&stdout(&yaml)).unwrap()[0]).unwrap();
    assert_eq!(from_yaml, v);

    let table = list(&cache, &[]);
    succeeded(&table);
    let table = stdout(&table);
    let lines: Vec<Vec<&str>> = table
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        lines[0],
        [
            "VERSION",
            "ISTIO",
            "STATUS",
            "END",
            "OF",
            "LIFE",
            "KUBERNETES",
            "CACHED"
        ]
    );
    // Releases newest first, then the module versions.
    assert_eq!(lines[1][0], "1.31.0-beta.1");
    assert!(
        lines.contains(&vec![
            "1.30.3",
            "1.30",
            "supported",
            "2027-02",
            "1.32+",
            "yes"
        ]),
        "{table}"
    );
    assert!(
        lines.contains(&vec![
            "1.30.2",
            "1.30",
            "supported",
            "2027-02",
            "1.32+",
            "no"
        ]),
        "{table}"
    );
    let pinned = pin("ISTIO_VERSION");
    assert!(
        lines.contains(&vec![
            pinned.as_str(),
            "1.31",
            "module",
            "(default)",
            "-",
            "-",
            "no"
        ]),
        "{table}"
    );
    let _ = std::fs::remove_dir_all(&cache);
}
