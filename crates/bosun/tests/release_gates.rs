//! The catalog's gates through the real binary, on the test control plane (`scripts/testenv`,
//! Kubernetes v1.36.3): `precheck`'s findings and exit status for an end-of-life release and a
//! Kubernetes version outside the release's range; `install` refusing an end-of-life release
//! until `--force`; Istio's upgrade rules (an in-place downgrade and an in-place skip of a minor
//! refused before anything is written, a canary two minors up let through). `plan`,
//! `install --plan` and `install --dry-run` refuse what `install` refuses, with its words and
//! exit status 1, and plan with `--force`; `verify-install` tells the end of life and the
//! Kubernetes range (`releasePolicy` in `-o json`) without changing its exit status.
//!
//! The catalogs are test files laid over the built-in one with `BOSUN_CATALOG` (end of life in
//! 2020 or 2099, so the clock never moves a verdict); the older control plane is the pinned
//! charts under another version (a package whose `VERSION` says `1.29.0`). One test, in
//! order: each step starts from what the one before left.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use cluster::testenv;
use common::{manifests, release_version, run, stderr, stdout, text};
use k8s_openapi::api::apps::v1::Deployment;
use kube::Api;

/// Runs `bosun ARGS` against the test control plane with `BOSUN_CATALOG=catalog`.
async fn bosun(catalog: &Path, args: &[&str]) -> Output {
    let mut command = common::bosun_command(testenv::kubeconfig(), args);
    command.env("BOSUN_CATALOG", catalog);
    testkit::output(command).await
}

fn args(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// A catalog file holding `releases` (JSON), laid over the built-in one.
fn catalog(name: &str, releases: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("{}.json", testenv::unique_name(name)));
    std::fs::write(&path, format!("{{\"releases\": [{releases}]}}")).unwrap();
    path
}

/// The pinned charts as an install package of Istio `version` (its `VERSION` file).
fn package_as_version(version: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(testenv::unique_name("istio-pkg"));
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(manifests(), dir.join("manifests")).unwrap();
    std::fs::write(dir.join("VERSION"), format!("{version}\n")).unwrap();
    dir.join("manifests")
}

fn lines(out: &Output) -> Vec<String> {
    stdout(out).lines().map(str::to_string).collect()
}

/// The `operator.istio.io/version` of istiod `name` in `ns`, none when it does not exist.
async fn istiod_version(ns: &str, name: &str) -> Option<String> {
    let client = testenv::client().await;
    let deployments: Api<Deployment> = Api::namespaced(client.kube().clone(), ns);
    let found = deployments.get_opt(name).await.unwrap()?;
    Some(found.metadata.labels.unwrap_or_default()["operator.istio.io/version"].clone())
}

/// `plan` given `inputs`, and with `also_install`, `install --plan` and `install --dry-run` too
/// (the same check: `Prepared::check_refusals`).
fn planning(inputs: &[&str], also_install: bool) -> Vec<Vec<String>> {
    let mut commands = vec![vec!["plan"]];
    if also_install {
        commands.push(vec!["install", "-y", "--plan"]);
        commands.push(vec!["install", "-y", "--dry-run"]);
    }
    commands
        .into_iter()
        .map(|mut command| {
            command.extend(inputs);
            command.into_iter().map(str::to_string).collect()
        })
        .collect()
}

/// Each of [`planning`] fails as `install` does (exit 1, `refusal` in its error, nothing on
/// stdout); `plan --force` warns, plans and exits 0.
async fn plans_refuse(catalog: &Path, inputs: &[&str], also_install: bool, refusal: &str) {
    for command in planning(inputs, also_install) {
        let out = bosun(catalog, &args(&command)).await;
        assert_eq!(out.status.code(), Some(1), "{command:?}: {}", text(&out));
        assert!(
            stderr(&out).contains(refusal),
            "{command:?}: {}",
            text(&out)
        );
        assert!(stdout(&out).is_empty(), "{command:?}: {}", text(&out));
    }
    let mut forced = planning(inputs, false).remove(0);
    forced.push("--force".into());
    let out = bosun(catalog, &args(&forced)).await;
    assert!(out.status.success(), "{forced:?}: {}", text(&out));
    assert!(
        stderr(&out).contains("continuing because of --force"),
        "{forced:?}: {}",
        text(&out)
    );
    assert!(
        stdout(&out).contains("Deployment"),
        "{forced:?}: no plan: {}",
        text(&out)
    );
}

#[test]
fn end_of_life_kubernetes_range_and_upgrade_rules() {
    let pin = release_version();
    let minor = {
        let mut parts = pin.split('.');
        format!("{}.{}", parts.next().unwrap(), parts.next().unwrap())
    };
    let release = |eol: &str, min: &str, max: &str| {
        format!(
            r#"{{"minor": "{minor}", "status": "supported", "end_of_life": "{eol}", "kubernetes": {{"min": "{min}", "max": {max}}}, "patches": [{{"version": "{minor}.0"}}]}}"#
        )
    };
    let ended = catalog("eol", &release("2020-01-01", "1.32", "\"1.35\""));
    let too_old = catalog("k8s-min", &release("2099-01", "1.37", "null"));
    let supported = catalog("supported", &release("2099-01", "1.32", "null"));
    // 1.29 supported for the upgrade steps, whatever the built-in catalog says of it today.
    let older = catalog(
        "older",
        r#"{"minor": "1.29", "status": "supported", "end_of_life": "2099-01", "kubernetes": {"min": "1.30", "max": null}, "patches": [{"version": "1.29.0"}]}"#,
    );
    let ns = testenv::unique_name("istio-gates");
    let rev = testenv::unique_name("gates");
    let istiod = format!("istiod-{rev}");
    let m = manifests();
    let set_ns = format!("values.global.istioNamespace={ns}");
    let base = [
        "-d",
        &m,
        "--set",
        "profile=minimal",
        "--set",
        &set_ns,
        "-r",
        &rev,
    ];
    let install = |extra: &[&str]| {
        let mut args = vec!["install", "-y", "--no-wait"];
        args.extend(base);
        args.extend(extra);
        args.into_iter().map(str::to_string).collect::<Vec<_>>()
    };

    run(async {
        // precheck: end of life is an Error (exit 1); Kubernetes 1.36 past the release's 1.35
        // a Warning.
        let mut precheck = vec!["precheck"];
        precheck.extend(base);
        let out = bosun(&ended, &precheck).await;
        let found = lines(&out);
        assert!(
            found.contains(&format!(
                "Error [BOSUN-PRE007] (Cluster) Istio {pin} is end of life: support for {minor} ended 2020-01-01"
            )),
            "{}",
            text(&out)
        );
        assert!(
            found.iter().any(|l| l
                .starts_with("Warning [BOSUN-PRE008] (Cluster) The Kubernetes Version ")
                && l.ends_with(&format!(
                    " is newer than the newest Istio {pin} supports: 1.35"
                ))),
            "{}",
            text(&out)
        );
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));

        // Below the release's minimum: IST0142, an Error as in istioctl's precheck.
        let out = bosun(&too_old, &precheck).await;
        assert!(
            lines(&out).iter().any(|l| l
                .starts_with("Error [IST0142] (Cluster) The Kubernetes Version ")
                && l.ends_with(" is lower than the minimum version: 1.37")),
            "{}",
            text(&out)
        );
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));

        // install refuses the end-of-life release before writing anything…
        let out = bosun(&ended, &args(&install(&[]))).await;
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        let refusal = format!(
            "Error: the install is not supported by Istio's release policy:\n  Istio {pin} is end of life: support for {minor} ended 2020-01-01\n    fix: install a supported release"
        );
        assert!(stderr(&out).contains(&refusal), "{}", text(&out));
        // …and so do the plans, with the same words; with --force they plan.
        plans_refuse(&ended, &base, true, &refusal).await;
        assert_eq!(istiod_version(&ns, &istiod).await, None);
        // …and installs it with --force, saying so (--precheck too: its BOSUN-PRE007 is printed,
        // not fatal); the Kubernetes range only warns.
        let out = bosun(&ended, &args(&install(&["--force", "--precheck"]))).await;
        assert!(out.status.success(), "{}", text(&out));
        let err = stderr(&out);
        assert!(
            err.contains("continuing because of --force")
                && err.contains("Error [BOSUN-PRE007] (Cluster) Istio ")
                && err.contains(&format!(
                    "is newer than the newest Istio {pin} supports: 1.35"
                )),
            "{}",
            text(&out)
        );
        assert_eq!(
            istiod_version(&ns, &istiod).await.as_deref(),
            Some(pin.as_str())
        );

        // verify-install tells what the catalog says of the verified release (end of life,
        // Kubernetes past its range) on stderr and in -o json, and its exit status is the
        // objects' alone: the same as with a catalog that has nothing to say (the test
        // control plane runs no pods, so both fail on readiness).
        let mut verify = vec!["verify-install"];
        verify.extend(base);
        let out = bosun(&ended, &verify).await;
        let err = stderr(&out);
        assert!(
            err.contains(&format!(
                "❗ Istio {pin} is end of life: support for {minor} ended 2020-01-01\n    fix: upgrade to a supported release"
            )) && err.contains(&format!(
                "is newer than the newest Istio {pin} supports: 1.35\n    fix: install an Istio release that supports this Kubernetes version"
            )),
            "{}",
            text(&out)
        );
        let quiet = bosun(&supported, &verify).await;
        assert!(!stderr(&quiet).contains('❗'), "{}", text(&quiet));
        assert_eq!(out.status.code(), quiet.status.code(), "{}", text(&out));
        assert_eq!(stdout(&out), stdout(&quiet));
        verify.extend(["-o", "json"]);
        let out = bosun(&ended, &verify).await;
        let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        let kinds: Vec<&str> = report["releasePolicy"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["kind"].as_str().unwrap())
            .collect();
        assert_eq!(
            kinds,
            ["end-of-life", "kubernetes-too-new"],
            "{}",
            text(&out)
        );

        // An older minor in place is a downgrade: refused, then forced.
        let old = package_as_version("1.29.0");
        let old_dir = old.display().to_string();
        let mut downgrade = install(&[]);
        let at = downgrade.iter().position(|a| a == &m).unwrap();
        downgrade[at] = old_dir.clone();
        let out = bosun(&older, &args(&downgrade)).await;
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        assert!(
            stderr(&out).contains(&format!(
                "The install replaces revision {rev} of Istio {pin} in place with an older minor, Istio 1.29.0 (a downgrade)"
            )),
            "{}",
            text(&out)
        );
        assert_eq!(
            istiod_version(&ns, &istiod).await.as_deref(),
            Some(pin.as_str())
        );
        downgrade.push("--force".into());
        let out = bosun(&older, &args(&downgrade)).await;
        assert!(out.status.success(), "{}", text(&out));
        assert_eq!(
            istiod_version(&ns, &istiod).await.as_deref(),
            Some("1.29.0")
        );

        // The pin in place over 1.29.0 skips a minor: refused, naming both versions and the
        // two ways on; nothing changed.
        let out = bosun(&older, &args(&install(&[]))).await;
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        let err = stderr(&out);
        assert!(
            err.contains(&format!(
                "The install replaces revision {rev} of Istio 1.29.0 in place with Istio {pin}: an in-place upgrade may move one minor version only"
            )) && err.contains("(--revision R)")
                && err.contains("or upgrade to 1.30 first"),
            "{}",
            text(&out)
        );
        // The plans refuse the skip with install's words, and plan it with --force.
        plans_refuse(
            &older,
            &base,
            false,
            &format!("The install replaces revision {rev} of Istio 1.29.0 in place with Istio {pin}: an in-place upgrade may move one minor version only"),
        )
        .await;
        assert_eq!(
            istiod_version(&ns, &istiod).await.as_deref(),
            Some("1.29.0")
        );
        // The same pin as a canary beside it (two minors) passes the policy (a dry run).
        let canary = testenv::unique_name("gates-canary");
        let out = bosun(
            &older,
            &[
                "install",
                "-y",
                "--dry-run",
                "-d",
                &m,
                "--set",
                "profile=minimal",
                "--set",
                &set_ns,
                "-r",
                &canary,
            ],
        )
        .await;
        assert!(!stderr(&out).contains("release policy"), "{}", text(&out));
        // …and plan shows it, exit 0.
        let set_rev = [
            "-d",
            &m,
            "--set",
            "profile=minimal",
            "--set",
            &set_ns,
            "-r",
            &canary,
        ];
        let mut plan = vec!["plan"];
        plan.extend(set_rev);
        let out = bosun(&older, &plan).await;
        assert!(out.status.success(), "{}", text(&out));
        assert!(!stderr(&out).contains("release policy"), "{}", text(&out));

        // Put the pin back in place (its CRDs' labels too) and remove the revision.
        let out = bosun(&older, &args(&install(&["--force"]))).await;
        assert!(out.status.success(), "{}", text(&out));
        let out = bosun(
            &older,
            &["uninstall", "--revision", &rev, "--set", &set_ns, "-y"],
        )
        .await;
        assert!(out.status.success(), "{}", text(&out));
        let _ = std::fs::remove_dir_all(old.parent().unwrap());
    });
    for file in [ended, too_old, older, supported] {
        let _ = std::fs::remove_file(file);
    }
}
