//! `--version V`: another Istio's charts and profiles, fetched, verified, cached and rendered,
//! with no network (issue 31). Everything is served from 127.0.0.1 by a server the test starts
//! (`common::http`), into a cache of the test's own (`BOSUN_CACHE`):
//! - a module version from a module proxy (`GOPROXY`) holding the older snapshot's module zip
//!   (from Go's module cache, where `scripts/fetch-istio --previous` left it): the same objects
//!   as `--manifests` of that snapshot, on default, demo, minimal and ambient; a zip with
//!   another hash is refused;
//! - releases from a mirror laid out as Istio's release downloads, built by the test from the
//!   two snapshots (`9.0.1` the older, `9.0.2` the pin; a catalog file named by
//!   `BOSUN_CATALOG` lists them): by release number and by minor, over HTTP and from a
//!   directory; a corrupted archive, a wrong checksum and an archive that is not one are
//!   refused with nothing cached; a second run works with the server stopped;
//! - each version's own `values` API (its `values_types.proto`, kept with its package): a value
//!   only the pin knows is refused with the older snapshot's package; likewise its MeshConfig
//!   protos and its IstioOperator types (`types.go`: a package whose file declares one more
//!   field takes it, the one it was copied from refuses it);
//! - releases from an OCI registry (`--mirror oci://…`): a real one (`crane registry serve`)
//!   with the archives pushed by `oras push`, by release number and by minor, an artifact the
//!   catalog's SHA-256 refuses, one that is no archive, an unknown tag, a second run with the
//!   registry stopped; and a fake one behind a bearer-token challenge (asked anonymously, and
//!   with the login of docker's `config.json`) that serves a corrupted
//!   blob, a manifest under another digest, a blob longer than its manifest says and a layer
//!   over the download limit, each refused with nothing cached (crane and oras from
//!   `BOSUN_OCI_TOOLS`, else `scripts/fetch-oci-tools` builds them);
//! - bad input: an unknown version, `--version` with another install package;
//! - against real oracles: istioctl built from the older snapshot (`scripts/fetch-istioctl
//!   --previous`, or `BOSUN_ISTIOCTL_PREVIOUS`) and from the pin (`BOSUN_ISTIOCTL`), each with
//!   its compiled-in charts: `--version` of the older snapshot renders the same objects as the
//!   first, bosun's default (the pin) as the second, on default, demo, ambient and minimal.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use std::collections::BTreeMap;

use common::http::FileServer;
use common::manifests::{Run, compare, first_difference, objects};
use common::mirror::{Scratch, previous_manifests, publish, release_archive};
use common::oci::{self, Artifact, FakeRegistry, Registry};
use common::{fetched, fetched_with, stderr, stdout, succeeded, text};

use common::mirror::PREVIOUS;

/// `bosun ARGS` with bosun's cache at `cache` and `env` set; nothing else of the caller's
/// environment that would point bosun at a network source.
fn bosun(cache: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_bosun"));
    c.args(args)
        .env("BOSUN_CACHE", cache)
        .env_remove("BOSUN_CATALOG")
        .env_remove("BOSUN_ISTIO_MIRROR")
        // A proxy nothing listens on: no test may reach the network, and Go's fallback
        // (`go mod download`) fails at once too.
        .env("GOPROXY", "http://127.0.0.1:9")
        .env("GOSUMDB", "off")
        .env("GOFLAGS", "-mod=mod");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("running bosun")
}

/// Asserts that two manifests hold the same objects with the same content (identical text
/// holds them, and is the common case: both are bosun's renders of the same charts).
fn same_objects(got: &str, want: &str, what: &str) {
    if got == want {
        return;
    }
    let (got, want) = (objects(got).unwrap(), objects(want).unwrap());
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "{what}: the objects differ"
    );
    for (key, objs) in &want {
        for (a, b) in objs.iter().zip(&got[key]) {
            if let Some(d) = first_difference(a, b, "") {
                panic!("{what}: {key}: {d} (istioctl: --manifests, bosun: --version)");
            }
        }
    }
}

/// What every mirror must give: `--version` by release number (9.0.1, the older snapshot's
/// charts; default and ambient, with `--mirror`) and by minor (9.0: its newest patch, 9.0.2,
/// the pin's charts, with `BOSUN_ISTIO_MIRROR`) render the objects `--manifests` of those
/// packages renders, and the package is cached. Returns both default renders by `--manifests`
/// (the older snapshot's, the pin's), for the offline runs.
fn renders_by_release_and_minor(
    cache: &Path,
    env: &[(&str, &str); 1],
    mirror: &str,
    previous: &Path,
    pinned: &Path,
) -> (String, String) {
    let by_dir = |dir: &Path, profile: &str| {
        let set = format!("profile={profile}");
        generate(
            cache,
            &[],
            &["--set", &set, "--manifests", dir.to_str().unwrap()],
        )
    };
    let previous_default = by_dir(previous, "default");
    for profile in ["default", "ambient"] {
        let set = format!("profile={profile}");
        let got = generate(
            cache,
            env,
            &["--set", &set, "--version", "9.0.1", "--mirror", mirror],
        );
        let want = if profile == "default" {
            previous_default.clone()
        } else {
            by_dir(previous, profile)
        };
        same_objects(&got, &want, profile);
    }
    let pinned_default = by_dir(pinned, "default");
    let env_mirror = [env[0], ("BOSUN_ISTIO_MIRROR", mirror)];
    let got = generate(cache, &env_mirror, &["--version", "9.0"]);
    same_objects(&got, &pinned_default, "9.0");
    assert!(cache.join("istio-9.0.2/manifests/profiles").is_dir());
    (previous_default, pinned_default)
}

fn generate(cache: &Path, env: &[(&str, &str)], args: &[&str]) -> String {
    let mut all = vec!["manifest", "generate"];
    all.extend_from_slice(args);
    let out = bosun(cache, env, &all);
    succeeded(&out);
    stdout(&out)
}

/// A module proxy on 127.0.0.1 serving the older snapshot's module zip (from Go's module cache,
/// where `scripts/fetch-istio --previous` left it), in `scratch`.
fn module_proxy(previous: &Path, scratch: &Scratch) -> FileServer {
    let zip = previous
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .join(format!(
            "gomod/cache/download/istio.io/istio/@v/{PREVIOUS}.zip"
        ));
    assert!(
        zip.is_file(),
        "{} is missing: run scripts/fetch-istio --previous",
        zip.display()
    );
    let proxy = scratch.0.join("proxy");
    common::mirror::module_proxy_dir(&proxy, &[(&zip, &format!("{PREVIOUS}.zip"))]);
    FileServer::start(&proxy)
}

#[test]
fn a_module_version_from_the_module_proxy_renders_as_its_manifests() {
    let previous = previous_manifests();
    let scratch = Scratch::new("versions-module");
    let cache = scratch.0.join("cache");
    let server = module_proxy(&previous, &scratch);
    let url = server.url.clone();
    let env = [("GOPROXY", url.as_str())];

    let pinned = common::manifests();
    let pinned = generate(&cache, &env, &["--manifests", &pinned]);
    for profile in ["default", "demo", "minimal", "ambient"] {
        let set = format!("profile={profile}");
        let by_version = generate(&cache, &env, &["--set", &set, "--version", PREVIOUS]);
        let by_dir = generate(
            &cache,
            &env,
            &["--set", &set, "--manifests", previous.to_str().unwrap()],
        );
        same_objects(&by_version, &by_dir, profile);
        if profile == "default" {
            // The test could not tell the versions apart if they rendered alike.
            assert!(
                by_version != pinned,
                "the older snapshot renders as the pin"
            );
        }
    }
    assert_eq!(
        server.requests(),
        2,
        "the older module and the istio.io/api it requires were fetched once"
    );
    assert!(
        cache
            .join(format!("istio-{PREVIOUS}/manifests/profiles"))
            .is_dir()
    );

    // Each version's own values API: `global.readerServiceAccount` came after the older
    // snapshot, so only the pin takes it (by --version and by its manifests).
    let newer_value = ["--set", "values.global.readerServiceAccount.name=reader"];
    let refused = |args: &[&str]| {
        let out = bosun(&cache, &env, args);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        assert!(
            stderr(&out).contains(
                "values.global.readerServiceAccount: unknown field \"readerServiceAccount\" in istio.operator.v1alpha1.GlobalConfig"
            ),
            "{}",
            text(&out)
        );
    };
    let previous_dir = previous.to_str().unwrap();
    refused(
        &[
            &["manifest", "generate", "--version", PREVIOUS][..],
            &newer_value,
        ]
        .concat(),
    );
    refused(
        &[
            &["manifest", "generate", "--manifests", previous_dir][..],
            &newer_value,
        ]
        .concat(),
    );
    let pinned_dir = common::manifests();
    let with_pin = generate(
        &cache,
        &env,
        &[&["--manifests", &pinned_dir][..], &newer_value].concat(),
    );
    assert!(
        with_pin.contains("reader"),
        "the pin's render ignores readerServiceAccount"
    );

    // And its own MeshConfig API (istio.io/api at the version its go.mod requires):
    // `serviceEntryVisibility` came after the older snapshot. That version's istioctl reads
    // MeshConfig with unknown fields ignored, so it takes any value there (bosun warns); the
    // pin's istioctl refuses a value its enum does not have, and so does bosun with the pin.
    let newer_mesh = [
        "--set",
        "meshConfig.serviceEntryVisibility.defaultVisibility=BOGUS",
    ];
    // `manifest generate` of the older snapshot's package, by version and by its manifests.
    let with_older = |extra: &[&str]| {
        [
            &["--version", PREVIOUS][..],
            &["--manifests", previous_dir][..],
        ]
        .map(|package| {
            let args = [&["manifest", "generate"][..], package, extra].concat();
            (package.join(" "), bosun(&cache, &env, &args))
        })
    };
    for (package, out) in with_older(&newer_mesh) {
        succeeded(&out);
        assert!(
            stderr(&out).contains(
                "meshConfig.serviceEntryVisibility: unknown field \"serviceEntryVisibility\" in istio.mesh.v1alpha1.MeshConfig: istioctl ignores it"
            ),
            "{package}: {}",
            text(&out)
        );
    }
    let out = bosun(
        &cache,
        &env,
        &[
            &["manifest", "generate", "--manifests", &pinned_dir][..],
            &newer_mesh,
        ]
        .concat(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        stderr(&out).contains(
            "meshConfig.serviceEntryVisibility.defaultVisibility: unknown value \"BOGUS\" for enum istio.mesh.v1alpha1.ServiceEntryVisibility.Visibility"
        ),
        "{}",
        text(&out)
    );
    assert!(
        cache
            .join(format!(
                "istio-{PREVIOUS}/istio.io/api/mesh/v1alpha1/config.proto"
            ))
            .is_file(),
        "the MeshConfig protos are kept with the fetched package"
    );

    // And its own IstioOperator types (operator/pkg/apis/types.go, kept with the package): a
    // package whose types.go declares one more field takes it, where the package it was copied
    // from (the same file as the pin's) refuses it as istioctl would.
    let types = "operator/pkg/apis/types.go";
    let fetched_types = cache.join(format!("istio-{PREVIOUS}/{types}"));
    let original = std::fs::read_to_string(&fetched_types)
        .expect("the IstioOperator types are kept with the fetched package");
    let copy = scratch.0.join("edited-package");
    std::fs::create_dir_all(copy.join("operator/pkg/apis")).unwrap();
    let copied = Command::new("cp")
        .args(["-r", previous_dir])
        .arg(copy.join("manifests"))
        .status()
        .unwrap();
    assert!(copied.success());
    let declared = "\tProfile string `json:\"profile,omitempty\"`";
    assert!(original.contains(declared), "types.go changed its shape");
    std::fs::write(
        copy.join(types),
        original.replacen(
            declared,
            &format!("{declared}\n\tGreeting string `json:\"greeting,omitempty\"`"),
            1,
        ),
    )
    .unwrap();
    let greeting = ["--set", "greeting=hello"];
    let copy_dir = copy.join("manifests");
    generate(
        &cache,
        &env,
        &[&["--manifests", copy_dir.to_str().unwrap()][..], &greeting].concat(),
    );
    for (package, out) in with_older(&greeting) {
        assert_eq!(out.status.code(), Some(1), "{package}: {}", text(&out));
        assert!(
            stderr(&out).contains("greeting: unknown field \"greeting\""),
            "{package}: {}",
            text(&out)
        );
    }
    // A types.go the reader cannot read is an error naming the file, not a silent guess.
    std::fs::write(
        copy.join(types),
        original.replacen(declared, "\tProfile, string", 1),
    )
    .unwrap();
    let out = bosun(
        &cache,
        &env,
        &[
            "manifest",
            "generate",
            "--manifests",
            copy_dir.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        stderr(&out).contains(&format!("{}: line ", copy.join(types).display()))
            && stderr(&out).contains("cannot read this field of struct IstioOperatorSpec"),
        "{}",
        text(&out)
    );

    drop(server);
    let offline = generate(&cache, &env, &["--version", PREVIOUS]);
    same_objects(
        &offline,
        &generate(&cache, &env, &["--manifests", previous.to_str().unwrap()]),
        "offline",
    );
}

/// `BIN manifest generate ARGS`: an istioctl rendering the charts compiled into it (no
/// `--manifests`).
fn istioctl(bin: &Path, args: &[&str]) -> Run {
    let out = Command::new(bin)
        .args(["manifest", "generate"])
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", bin.display()));
    Run::of(&out)
}

/// The oracle for `--version`: istioctl built from the older snapshot itself
/// (`scripts/fetch-istioctl --previous`, or `BOSUN_ISTIOCTL_PREVIOUS`), rendering the charts
/// compiled into it, against `bosun manifest generate --version <that snapshot>` fetched from
/// the module proxy; and the pinned istioctl (`BOSUN_ISTIOCTL`) against bosun's default Istio,
/// the pin (read from the cache `scripts/fetch-istio` filled).
/// The same objects with the same content, as `istioctl_parity` compares them.
#[test]
fn a_module_version_renders_as_the_istioctl_built_from_it() {
    let old_istioctl = fetched_with("BOSUN_ISTIOCTL_PREVIOUS", "fetch-istioctl", &["--previous"]);
    let pinned_istioctl = fetched("BOSUN_ISTIOCTL", "fetch-istioctl");
    let previous = previous_manifests();
    let scratch = Scratch::new("versions-oracle");
    let cache = scratch.0.join("cache");
    let server = module_proxy(&previous, &scratch);
    let env = [("GOPROXY", server.url.as_str())];
    // bosun's default Istio (the pin) from the cache scripts/fetch-istio filled: no fetch.
    let pin_cache = common::manifests_dir()
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .to_path_buf();

    let mut failures = Vec::new();
    let mut report = Vec::new();
    for profile in ["default", "demo", "ambient", "minimal"] {
        let set = format!("profile={profile}");
        let old_want = istioctl(&old_istioctl, &["--set", &set]);
        let pin_want = istioctl(&pinned_istioctl, &["--set", &set]);
        assert!(
            old_want.ok,
            "{profile}: the older istioctl failed: {}",
            old_want.stderr
        );
        assert!(
            pin_want.ok,
            "{profile}: the pinned istioctl failed: {}",
            pin_want.stderr
        );
        // The two oracles must tell the versions apart, or the comparison shows nothing.
        assert!(
            old_want.stdout != pin_want.stdout,
            "{profile}: istioctl of the older snapshot renders as the pinned one"
        );
        let cases = [
            (
                "--version of the older snapshot vs its istioctl",
                &old_want,
                &cache,
                &["manifest", "generate", "--set", &set, "--version", PREVIOUS][..],
            ),
            (
                "the default (the pin) vs the pinned istioctl",
                &pin_want,
                &pin_cache,
                &["manifest", "generate", "--set", &set][..],
            ),
        ];
        for (what, want, cache, args) in cases {
            let got = Run::of(&bosun(cache, &env, args));
            match compare(want, &got) {
                Ok(identical) => report.push(format!(
                    "{profile}, {what}: equal objects{}",
                    if identical { ", byte-identical" } else { "" }
                )),
                Err(e) => failures.push(format!("{profile}, {what}:\n    {e}")),
            }
        }
    }
    eprintln!("{}", report.join("\n"));
    assert!(
        failures.is_empty(),
        "bosun differs from istioctl:\n  {}",
        failures.join("\n  ")
    );
    assert_eq!(
        server.requests(),
        2,
        "the older module and the istio.io/api it requires were fetched once"
    );
}

#[test]
fn a_module_zip_with_another_hash_is_refused() {
    let previous = previous_manifests();
    let gomod = previous
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .join("gomod/cache/download/istio.io/istio/@v");
    let scratch = Scratch::new("versions-module-bad");
    let (proxy, cache) = (scratch.0.join("proxy"), scratch.0.join("cache"));
    // The pin's zip under the older version's name: a good zip, not the one go.sum names.
    let pin = std::fs::read_dir(&gomod)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.extension().is_some_and(|e| e == "zip") && !p.to_string_lossy().contains(PREVIOUS)
        })
        .expect("the pin's module zip in Go's module cache (scripts/fetch-istio)");
    common::mirror::module_proxy_dir(&proxy, &[(&pin, &format!("{PREVIOUS}.zip"))]);
    let server = FileServer::start(&proxy);
    let out = bosun(
        &cache,
        &[("GOPROXY", server.url.as_str())],
        &["profile", "list", "--version", PREVIOUS],
    );
    assert!(!out.status.success());
    assert_eq!(
        stderr(&out),
        format!(
            "Error: istio.io/istio@{PREVIOUS} has hash h1:ui9TJjRMAV/hb5ehQaZDq7IUGxuQP6dra9lapT/VjHI=, but bosun's catalog says h1:A+Us0Ium1V2WFsOJYZAfeNfWmPQULLUVdgwNm7KjLF8=; refusing it (nothing was cached)\n"
        )
    );
    assert!(!cache.join(format!("istio-{PREVIOUS}")).exists());

    // The proxy down: the error names it (and Go's fallback, which fails against it too).
    let url = server.url.clone();
    drop(server);
    let out = bosun(
        &cache,
        &[("GOPROXY", url.as_str())],
        &["profile", "list", "--version", PREVIOUS],
    );
    assert!(!out.status.success());
    let want = format!(
        "Error: could not fetch istio.io/istio@{PREVIOUS}: from the module proxy: GET {url}/istio.io/istio/@v/{PREVIOUS}.zip: Connection Failed: "
    );
    assert!(stderr(&out).starts_with(&want), "{}", stderr(&out));
    assert!(!cache.join(format!("istio-{PREVIOUS}")).exists());
}

const TEST_CATALOG: &str = r#"{
  "releases": [
    {"minor": "9.0", "status": "supported", "end_of_life": null,
     "kubernetes": {"min": "1.30"},
     "patches": [{"version": "9.0.1"}, {"version": "9.0.2"}]},
    {"minor": "9.1", "status": "supported", "end_of_life": null,
     "kubernetes": {"min": "1.30"},
     "patches": [{"version": "9.1.0"}, {"version": "9.1.1"}, {"version": "9.1.2"},
                 {"version": "9.1.3"}]}
  ]
}"#;

#[test]
fn releases_from_a_mirror() {
    let previous = previous_manifests();
    let pinned = common::manifests_dir();
    let scratch = Scratch::new("versions-mirror");
    let (mirror, cache) = (scratch.0.join("mirror"), scratch.0.join("cache"));
    let catalog = scratch.0.join("catalog.json");
    std::fs::write(&catalog, TEST_CATALOG).unwrap();

    publish(&mirror, "9.0.1", &release_archive("9.0.1", &previous), None);
    publish(&mirror, "9.0.2", &release_archive("9.0.2", &pinned), None);
    // 9.1.0: the archive corrupted after its checksum was published.
    let mut corrupted = release_archive("9.1.0", &previous);
    let middle = corrupted.len() / 2;
    corrupted[middle] ^= 0xff;
    let good = release_archive("9.1.0", &previous);
    publish(&mirror, "9.1.0", &good, None);
    std::fs::write(
        mirror.join("9.1.0/istio-9.1.0-linux-amd64.tar.gz"),
        &corrupted,
    )
    .unwrap();
    // 9.1.1: a checksum file that names another digest.
    publish(
        &mirror,
        "9.1.1",
        &release_archive("9.1.1", &previous),
        Some(&"0".repeat(64)),
    );
    // 9.1.2: its checksum matches, but it is no gzipped tar.
    publish(&mirror, "9.1.2", b"<html>a proxy's error page</html>", None);
    // 9.1.3 is not on the mirror.

    let server = FileServer::start(&mirror);
    let url = server.url.clone();
    let env = [("BOSUN_CATALOG", catalog.to_str().unwrap())];
    let (previous_default, pinned_default) =
        renders_by_release_and_minor(&cache, &env, &url, &previous, &pinned);
    // Only manifests/ is kept.
    let kept: Vec<String> = std::fs::read_dir(cache.join("istio-9.0.1"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(kept, ["manifests"]);

    // Refused, with nothing cached.
    let refused = |version: &str| {
        let out = bosun(
            &cache,
            &env,
            &[
                "manifest",
                "generate",
                "--version",
                version,
                "--mirror",
                &url,
            ],
        );
        assert!(!out.status.success(), "{version}: {}", text(&out));
        assert!(
            !cache.join(format!("istio-{version}")).exists(),
            "{version} was cached"
        );
        stderr(&out)
    };
    let archive_url = |v: &str| format!("{url}/{v}/istio-{v}-linux-amd64.tar.gz");
    let e = refused("9.1.0");
    let want_prefix = format!(
        "Error: {} has SHA-256 {}, but {}.sha256 says ",
        archive_url("9.1.0"),
        release::archive::sha256_hex(&corrupted),
        archive_url("9.1.0")
    );
    assert!(
        e.starts_with(&want_prefix) && e.ends_with("; refusing it (nothing was cached)\n"),
        "{e}"
    );
    let e = refused("9.1.1");
    assert!(
        e.contains(&format!(
            ".sha256 says {}; refusing it (nothing was cached)",
            "0".repeat(64)
        )),
        "{e}"
    );
    let e = refused("9.1.2");
    assert_eq!(
        e,
        format!(
            "Error: {}: not a readable tar.gz archive; refusing it (nothing was cached)\n",
            archive_url("9.1.2")
        )
    );
    let e = refused("9.1.3");
    assert_eq!(
        e,
        format!(
            "Error: could not fetch Istio 9.1.3 from the release mirror: GET {}.sha256: the server answered 404 Not Found\n",
            archive_url("9.1.3")
        )
    );

    // The mirror stopped: what is cached still renders; what is not names the mirror.
    drop(server);
    let got = generate(&cache, &env, &["--version", "9.0.1", "--mirror", &url]);
    same_objects(&got, &previous_default, "9.0.1 offline");
    let got = generate(&cache, &env, &["--version", "9.0"]);
    same_objects(&got, &pinned_default, "9.0 offline");
    let out = bosun(&cache, &env, &["profile", "list", "--version", "9.0.1"]);
    succeeded(&out);
    assert!(stdout(&out).contains("    ambient\n"), "{}", text(&out));
    let e = refused("9.1.3");
    assert!(
        e.starts_with(&format!(
            "Error: could not fetch Istio 9.1.3 from the release mirror: GET {}.sha256: ",
            archive_url("9.1.3")
        )),
        "{e}"
    );

    // A directory mirror, into another cache.
    let cache2 = scratch.0.join("cache2");
    let got = generate(
        &cache2,
        &env,
        &["--version", "9.0.1", "--mirror", mirror.to_str().unwrap()],
    );
    same_objects(&got, &previous_default, "directory mirror");
    assert!(cache2.join("istio-9.0.1/manifests/profiles").is_dir());
}

#[test]
fn bad_version_input_is_refused_before_anything_is_fetched() {
    let scratch = Scratch::new("versions-bad");
    let cache = scratch.0.join("cache");
    let iop = scratch.0.join("iop.yaml");
    std::fs::write(
        &iop,
        "apiVersion: install.istio.io/v1alpha1\nkind: IstioOperator\nspec:\n  installPackagePath: /somewhere\n",
    )
    .unwrap();
    let cases: [(&[&str], &str); 5] = [
        (
            &["manifest", "generate", "--version", "1.27.2"],
            "Error: Istio release 1.27.2 is not in bosun's catalog; known releases: 1.28 (1.28.0,",
        ),
        (
            &["profile", "dump", "--version", "latest"],
            "Error: \"latest\" is not an Istio version: give a release (1.30.3), a minor (1.30) or an istio.io/istio module version (v0.0.0-…); known releases:",
        ),
        (
            &["manifest", "generate", "--version", "1.30.3", "-d", "/x"],
            "error: the argument '--version <VERSION>' cannot be used with '--manifests <MANIFESTS>'",
        ),
        (
            &[
                "manifest",
                "generate",
                "--version",
                "1.30.3",
                "--set",
                "installPackagePath=/x",
            ],
            "Error: --version and --set installPackagePath=/x both name the install package; give one",
        ),
        (
            &[
                "manifest",
                "generate",
                "--version",
                "1.30.3",
                "-f",
                iop.to_str().unwrap(),
            ],
            "Error: --version and spec.installPackagePath in ",
        ),
    ];
    for (args, want) in cases {
        let out = bosun(&cache, &[], args);
        assert!(!out.status.success(), "{args:?}");
        assert!(stderr(&out).starts_with(want), "{args:?}: {}", stderr(&out));
    }
    assert!(!cache.exists(), "nothing may be written for bad input");
}

/// The releases of the OCI registry tests: `9.1.0` with a catalog SHA-256 that no archive has.
const OCI_CATALOG: &str = r#"{
  "releases": [
    {"minor": "9.0", "status": "supported", "end_of_life": null,
     "kubernetes": {"min": "1.30"},
     "patches": [{"version": "9.0.1"}, {"version": "9.0.2"}]},
    {"minor": "9.1", "status": "supported", "end_of_life": null,
     "kubernetes": {"min": "1.30"},
     "patches": [{"version": "9.1.0", "sha256": "0000000000000000000000000000000000000000000000000000000000000000"},
                 {"version": "9.1.1"}, {"version": "9.1.2"}, {"version": "9.1.3"}]}
  ]
}"#;

/// Writes `istio-V-linux-amd64.tar.gz` of `manifests` into `dir` and returns its path.
fn archive_file(dir: &Path, version: &str, manifests: &Path) -> std::path::PathBuf {
    let path = dir.join(format!("istio-{version}-linux-amd64.tar.gz"));
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(&path, release_archive(version, manifests)).unwrap();
    path
}

#[test]
fn releases_from_an_oci_registry() {
    let previous = previous_manifests();
    let pinned = common::manifests_dir();
    let scratch = Scratch::new("versions-oci");
    let (files, cache) = (scratch.0.join("files"), scratch.0.join("cache"));
    let catalog = scratch.0.join("catalog.json");
    std::fs::write(&catalog, OCI_CATALOG).unwrap();

    // A real registry, the archives pushed by oras as an air-gapped site pushes them.
    let registry = Registry::start();
    let repo = "mirror/istio/releases";
    let mirror = format!("oci://{}/{repo}", registry.address);
    let older = archive_file(&files.join("a"), "9.0.1", &previous);
    registry.push(repo, "9.0.1", &older);
    registry.push(
        repo,
        "9.0.2",
        &archive_file(&files.join("b"), "9.0.2", &pinned),
    );
    // 9.1.0: a good artifact whose archive is not the one the catalog names.
    let other = archive_file(&files.join("c"), "9.1.0", &previous);
    registry.push(repo, "9.1.0", &other);
    // 9.1.2: an artifact whose layer is not a gzipped tar.
    let not_tar = files.join("d/istio-9.1.2-linux-amd64.tar.gz");
    std::fs::create_dir_all(not_tar.parent().unwrap()).unwrap();
    std::fs::write(&not_tar, "<html>a proxy's error page</html>").unwrap();
    registry.push(repo, "9.1.2", &not_tar);
    // 9.1.1 is not pushed.

    let env = [("BOSUN_CATALOG", catalog.to_str().unwrap())];
    let (previous_default, pinned_default) =
        renders_by_release_and_minor(&cache, &env, &mirror, &previous, &pinned);
    let env_mirror = [env[0], ("BOSUN_ISTIO_MIRROR", mirror.as_str())];

    // Refused, with nothing cached.
    let refused = |version: &str| {
        let out = bosun(
            &cache,
            &env,
            &["profile", "list", "--version", version, "--mirror", &mirror],
        );
        assert!(!out.status.success(), "{version}: {}", text(&out));
        assert!(
            !cache.join(format!("istio-{version}")).exists(),
            "{version} was cached"
        );
        stderr(&out)
    };
    let artifact = |v: &str| format!("{}/{repo}:{v}", registry.address);
    let layer = |path: &Path| format!("sha256:{}", oci::sha256(&std::fs::read(path).unwrap()));
    assert_eq!(
        refused("9.1.0"),
        format!(
            "Error: oci://{} (layer {}) has SHA-256 {}, but bosun's catalog says {}; refusing it (nothing was cached)\n",
            artifact("9.1.0"),
            layer(&other),
            oci::sha256(&std::fs::read(&other).unwrap()),
            "0".repeat(64)
        )
    );
    assert_eq!(
        refused("9.1.2"),
        format!(
            "Error: oci://{} (layer {}): not a readable tar.gz archive; refusing it (nothing was cached)\n",
            artifact("9.1.2"),
            layer(&not_tar)
        )
    );
    let api = format!("http://{}/v2/{repo}", registry.address);
    assert_eq!(
        refused("9.1.1"),
        format!(
            "Error: could not fetch Istio 9.1.1 from the OCI registry {}: {}: the registry has no tag 9.1.1 (GET {api}/manifests/9.1.1: 404 Not Found: MANIFEST_UNKNOWN Unknown manifest) (nothing was cached)\n",
            registry.address,
            artifact("9.1.1")
        )
    );

    // The registry stopped: what is cached still renders; what is not names the registry.
    let address = registry.address.clone();
    drop(registry);
    let got = generate(&cache, &env, &["--version", "9.0.1", "--mirror", &mirror]);
    same_objects(&got, &previous_default, "9.0.1 offline");
    let got = generate(&cache, &env_mirror, &["--version", "9.0"]);
    same_objects(&got, &pinned_default, "9.0 offline");
    let e = refused("9.1.1");
    assert!(
        e.starts_with(&format!(
            "Error: could not fetch Istio 9.1.1 from the OCI registry {address}: {address}/{repo}:9.1.1: GET {api}/manifests/9.1.1: Connection Failed: "
        )),
        "{e}"
    );

    // Bad mirror names, before anything is fetched.
    for (bad, want) in [
        (
            format!("oci://{address}"),
            format!(
                "Error: \"oci://{address}\": an OCI mirror is oci://HOST[:PORT]/REPOSITORY (the tag is the release)\n"
            ),
        ),
        (
            format!("oci://{address}/{repo}:9.0.1"),
            format!(
                "Error: \"oci://{address}/{repo}:9.0.1\": \"{repo}:9.0.1\" is not a repository name (lower-case letters, digits and . _ - between them, / between components); name the repository only: bosun adds the release as the tag\n"
            ),
        ),
    ] {
        let out = bosun(
            &cache,
            &env,
            &["profile", "list", "--version", "9.1.1", "--mirror", &bad],
        );
        assert_eq!(stderr(&out), want);
    }
}

#[test]
fn a_registry_that_lies_is_refused() {
    let previous = previous_manifests();
    let scratch = Scratch::new("versions-oci-fake");
    let cache = scratch.0.join("cache");
    let catalog = scratch.0.join("catalog.json");
    std::fs::write(&catalog, OCI_CATALOG).unwrap();
    let name = |v: &str| format!("istio-{v}-linux-amd64.tar.gz");
    // Each tag its own archive: the registry finds a blob by its digest alone.
    let archive = |v: &str| release_archive(v, &previous);
    let mut tags = BTreeMap::new();
    // 9.0.1: honest.
    tags.insert(
        "9.0.1".to_string(),
        Artifact::oras(&name("9.0.1"), &archive("9.0.1"), None),
    );
    // 9.1.1: the blob served is not the one its digest names (a byte flipped, same size).
    let mut corrupted = Artifact::oras(&name("9.1.1"), &archive("9.1.1"), None);
    let blob = corrupted.blobs.values_mut().next().unwrap();
    let middle = blob.len() / 2;
    blob[middle] ^= 0xff;
    let corrupted_digest = corrupted.layer_digest();
    let corrupted_got = oci::sha256(&corrupted.blobs[&corrupted_digest]);
    tags.insert("9.1.1".to_string(), corrupted);
    // 9.1.2: the manifest is named by another digest than its bytes'.
    let mut renamed = Artifact::oras(&name("9.1.2"), &archive("9.1.2"), None);
    let renamed_got = oci::sha256(&renamed.manifest);
    renamed.named = format!("sha256:{}", "1".repeat(64));
    tags.insert("9.1.2".to_string(), renamed);
    // 9.1.3: the blob is longer than the manifest says.
    let short_archive = archive("9.1.3");
    let short_size = short_archive.len() as u64 - 1;
    let short = Artifact::oras(&name("9.1.3"), &short_archive, Some(short_size));
    let short_digest = short.layer_digest();
    tags.insert("9.1.3".to_string(), short);
    // 9.1.0: a layer over bosun's download limit: refused before it is fetched.
    let huge = Artifact::oras(&name("9.1.0"), b"small", Some(600 << 20));
    let huge_digest = huge.layer_digest();
    tags.insert("9.1.0".to_string(), huge);

    // 9.0.2: honest, fetched with a login.
    tags.insert(
        "9.0.2".to_string(),
        Artifact::oras(&name("9.0.2"), &archive("9.0.2"), None),
    );

    let registry = FakeRegistry::start("istio", tags);
    let mirror = format!("oci://{}/istio", registry.address);
    // No login: docker's config names none for this registry.
    let docker = scratch.0.join("docker");
    std::fs::create_dir_all(&docker).unwrap();
    std::fs::write(docker.join("config.json"), r#"{"auths":{}}"#).unwrap();
    let env = [
        ("BOSUN_CATALOG", catalog.to_str().unwrap()),
        ("BOSUN_ISTIO_MIRROR", mirror.as_str()),
        ("DOCKER_CONFIG", docker.to_str().unwrap()),
    ];
    // Through the registry's bearer-token challenge.
    let got = generate(&cache, &env, &["--version", "9.0.1"]);
    same_objects(
        &got,
        &generate(&cache, &[], &["--manifests", previous.to_str().unwrap()]),
        "9.0.1 through a token",
    );
    let requests = registry.requests();
    assert_eq!(
        requests[..3],
        [
            "GET /v2/istio/manifests/9.0.1".to_string(),
            "GET /token?service=fake-registry&scope=repository%3Aistio%3Apull".to_string(),
            "GET /v2/istio/manifests/9.0.1".to_string(),
        ],
        "{requests:?}"
    );

    // With a login in docker's config.json, the token is asked for with it.
    std::fs::write(
        docker.join("config.json"),
        format!(
            r#"{{"auths":{{"https://{}":{{"auth":"cHVsbGVyOnMzY3JldA=="}}}}}}"#,
            registry.address
        ),
    )
    .unwrap();
    let out = bosun(&cache, &env, &["profile", "list", "--version", "9.0.2"]);
    succeeded(&out);
    assert!(
        registry.requests().contains(
            &"GET /token?service=fake-registry&scope=repository%3Aistio%3Apull [Basic cHVsbGVyOnMzY3JldA==]"
                .to_string()
        ),
        "{:?}",
        registry.requests()
    );
    assert!(cache.join("istio-9.0.2/manifests/profiles").is_dir());

    let prefix = |v: &str| {
        format!(
            "Error: could not fetch Istio {v} from the OCI registry {0}: {0}/istio:{v}: ",
            registry.address
        )
    };
    for (version, want) in [
        (
            "9.1.1",
            format!(
                "blob {corrupted_digest}: the bytes the registry sent have digest sha256:{corrupted_got}, not the one they are named by (corrupted or tampered with)"
            ),
        ),
        (
            "9.1.2",
            format!(
                "the manifest the registry sent has digest sha256:{renamed_got}, but the registry names it sha256:{} (Docker-Content-Digest): refusing it",
                "1".repeat(64)
            ),
        ),
        (
            "9.1.3",
            format!(
                "blob {short_digest}: the registry sent more than {short_size} bytes, but the manifest says {short_size}"
            ),
        ),
        (
            "9.1.0",
            format!(
                "the layer {huge_digest} is 629145600 bytes, more than the 536870912 bytes bosun takes: refusing it"
            ),
        ),
    ] {
        let out = bosun(&cache, &env, &["profile", "list", "--version", version]);
        assert_eq!(
            stderr(&out),
            format!("{}{want} (nothing was cached)\n", prefix(version)),
            "{version}"
        );
        assert!(
            !cache.join(format!("istio-{version}")).exists(),
            "{version}"
        );
    }
    assert!(
        !registry
            .requests()
            .contains(&format!("GET /v2/istio/blobs/{huge_digest}")),
        "the layer over the limit was fetched"
    );
}
