//! The catalog: version requests resolved against a fixed catalog (the cases in
//! tests/cases/release/resolve.txt), what an unknown version's error lists, catalog files that
//! are refused, laying one catalog over another, and the compiled-in catalog against
//! scripts/istio-pin and issue 31's list of releases.

use std::path::PathBuf;

use release::catalog::{Catalog, Resolved, Unknown};

fn cases_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/cases/release")
}

fn fixture() -> Catalog {
    let text = std::fs::read_to_string(cases_dir().join("catalog.json")).unwrap();
    Catalog::parse(&text).expect("the fixture catalog parses")
}

#[test]
fn resolve_cases() {
    let catalog = fixture();
    let text = std::fs::read_to_string(cases_dir().join("resolve.txt")).unwrap();
    let mut failures = Vec::new();
    let mut count = 0;
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let (request, want) = line
            .split_once("=>")
            .unwrap_or_else(|| panic!("resolve.txt:{}: no =>", n + 1));
        let want = want.trim();
        count += 1;
        let got = match catalog.resolve(request) {
            Ok(resolved) => resolved.version().to_string(),
            Err(e) => format!(
                "error {}",
                match e.reason {
                    Unknown::Syntax => "syntax",
                    Unknown::Release => "release",
                    Unknown::Minor => "minor",
                    Unknown::Module => "module",
                }
            ),
        };
        if got != want {
            failures.push(format!(
                "resolve.txt:{}: {request:?}: got {got}, want {want}",
                n + 1
            ));
        }
    }
    assert!(count >= 20, "only {count} cases read");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_release_resolves_with_its_minor_and_a_module_with_its_hash() {
    let catalog = fixture();
    match catalog.resolve("1.10").unwrap() {
        Resolved::Release { minor, patch } => {
            assert_eq!(
                (minor.minor.as_str(), patch.version.as_str()),
                ("1.10", "1.10.10")
            );
        }
        other => panic!("{other:?}"),
    }
    match catalog.resolve("v1.10.3").unwrap() {
        Resolved::Module(m) => assert!(m.sum.starts_with("h1:AAAA"), "{m:?}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_unknown_version_lists_every_known_one() {
    let e = fixture().resolve("1.13.0").unwrap_err().to_string();
    assert_eq!(
        e,
        "Istio release 1.13.0 is not in bosun's catalog; known releases: 1.9 (1.9.0, 1.9.9); \
         1.10 (1.10.0-rc.1, 1.10.2, 1.10.10, 1.10.0); 1.11 (1.11.0-alpha.2, 1.11.0-beta.1, \
         1.11.0-alpha.10); 1.12 (); known module versions: v0.0.0-20260827124520-eed52ebb66ad \
         (the default), v1.10.3 (a newer catalog can be named with BOSUN_CATALOG=FILE, see \
         docs/versions.md)"
    );
    let e = fixture().resolve("v0.0.1").unwrap_err().to_string();
    assert!(
        e.starts_with("istio.io/istio module version v0.0.1 is not in bosun's catalog (bosun needs its go.sum hash to verify it); known releases: 1.9 (1.9.0, 1.9.9);"),
        "{e}"
    );
    let e = fixture().resolve("v1.10.2").unwrap_err().to_string();
    assert!(
        e.starts_with("istio.io/istio module version v1.10.2 is not in bosun's catalog (bosun needs its go.sum hash to verify it); an Istio release is named without the v: 1.10.2; known releases:"),
        "{e}"
    );
    let e = fixture().resolve("latest").unwrap_err().to_string();
    assert!(
        e.starts_with("\"latest\" is not an Istio version: give a release (1.30.3), a minor (1.30) or an istio.io/istio module version (v0.0.0-…); known releases:"),
        "{e}"
    );
}

#[test]
fn bad_catalogs_are_refused_naming_the_entry() {
    let base = |releases: &str, modules: &str| {
        format!(r#"{{"releases": [{releases}], "modules": [{modules}]}}"#)
    };
    let minor = |minor: &str, eol: &str, patches: &str| {
        format!(
            r#"{{"minor": "{minor}", "status": "supported", "end_of_life": {eol}, "kubernetes": {{"min": "1.30"}}, "patches": [{patches}]}}"#
        )
    };
    let module = r#"{"version": "v0.0.0-20260827124520-eed52ebb66ad", "sum": "h1:x=", "istio": "1.31", "default": true}"#;
    let cases = [
        (
            base(&minor("1.x", "null", ""), module),
            "minor \"1.x\": not MAJOR.MINOR",
        ),
        (
            base(&minor("1.30", "null", r#"{"version": "1.29.1"}"#), module),
            "release \"1.29.1\": not MAJOR.MINOR.PATCH[-PRERELEASE] of minor 1.30",
        ),
        (
            base(&minor("1.30", r#""Feb 2027""#, ""), module),
            "minor 1.30: end_of_life \"Feb 2027\" is not YYYY-MM-DD or YYYY-MM",
        ),
        (
            base(
                &minor("1.30", "null", r#"{"version": "1.30.1", "sha256": "abc"}"#),
                module,
            ),
            "release \"1.30.1\": sha256 \"abc\" is not 64 hex digits",
        ),
        (
            base(
                "",
                r#"{"version": "0.0.0-x", "sum": "h1:x=", "istio": "1.31"}"#,
            ),
            "module version \"0.0.0-x\": not a Go module version (vX.Y.Z[-…]) with an h1: sum",
        ),
        (
            base(
                "",
                r#"{"version": "v0.0.0-x", "sum": "sha256:x", "istio": "1.31"}"#,
            ),
            "module version \"v0.0.0-x\": not a Go module version (vX.Y.Z[-…]) with an h1: sum",
        ),
        (
            base(
                &minor("1.30", "null", ""),
                r#"{"version": "v0.0.0-x", "istio": "1.31"}"#,
            ),
            "not a catalog: missing field `sum` at line 1 column 176",
        ),
    ];
    for (text, want) in cases {
        let got = Catalog::parse(&text).err().map(|e| e.to_string());
        assert_eq!(got.as_deref(), Some(want), "{text}");
    }
}

#[test]
fn a_catalog_file_adds_and_replaces_entries() {
    let extra = Catalog::parse(
        r#"{
          "releases": [
            {"minor": "1.10", "status": "end-of-life", "end_of_life": "2022-01-05",
             "kubernetes": {"min": "1.18", "max": "1.21"}, "patches": [{"version": "1.10.11"}]},
            {"minor": "1.8", "status": "end-of-life", "kubernetes": {"min": "1.16"},
             "patches": [{"version": "1.8.6"}]}
          ],
          "modules": [{"version": "v0.0.0-20270101000000-abcdefabcdef", "sum": "h1:y=",
                       "istio": "1.12", "default": true}]
        }"#,
    )
    .unwrap();
    let merged = fixture().merge(extra).unwrap();
    let minors: Vec<&str> = merged.releases.iter().map(|m| m.minor.as_str()).collect();
    assert_eq!(minors, ["1.8", "1.9", "1.10", "1.11", "1.12"]);
    // 1.10 is replaced whole: its old patches are gone.
    assert_eq!(merged.resolve("1.10").unwrap().version(), "1.10.11");
    assert!(merged.resolve("1.10.2").is_err());
    assert_eq!(merged.resolve("1.8").unwrap().version(), "1.8.6");
    assert_eq!(
        merged.default_module().unwrap().version,
        "v0.0.0-20270101000000-abcdefabcdef"
    );
    assert!(merged.resolve("v0.0.0-20260827124520-eed52ebb66ad").is_ok());
}

/// `NAME=value` (quotes taken off) from scripts/istio-pin.
fn pin(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/istio-pin");
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}=")))
        .unwrap_or_else(|| panic!("scripts/istio-pin sets no {name}"))
        .trim_matches('\'')
        .to_string()
}

#[test]
fn the_builtin_catalog_knows_the_pin_and_the_previous_snapshot() {
    let catalog = Catalog::builtin();
    let default = catalog.default_module().unwrap();
    assert_eq!(
        (default.version.clone(), default.sum.clone()),
        (pin("ISTIO_VERSION"), pin("ISTIO_SUM")),
        "crates/release/catalog.json and scripts/istio-pin disagree on the pin"
    );
    let previous = pin("ISTIO_PREVIOUS_VERSION");
    match catalog.resolve(&previous).unwrap() {
        Resolved::Module(m) => assert_eq!(m.sum, pin("ISTIO_PREVIOUS_SUM")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_builtin_catalog_has_the_releases_of_issue_31() {
    let catalog = Catalog::builtin();
    let cases = [
        ("1.28", "1.28.10", "end-of-life"),
        ("1.29", "1.29.6", "supported"),
        ("1.30", "1.30.3", "supported"),
        ("1.31", "1.31.0-beta.1", "pre-release"),
    ];
    for (minor, newest, status) in cases {
        match catalog.resolve(minor).unwrap() {
            Resolved::Release { minor: m, patch } => {
                assert_eq!(
                    (patch.version.as_str(), m.status.to_string().as_str()),
                    (newest, status)
                );
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(catalog.resolve("1.30.0").is_ok());
    assert!(catalog.resolve("1.27").is_err());
}
