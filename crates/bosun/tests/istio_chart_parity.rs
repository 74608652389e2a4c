//! Parity with real helm on Istio's own charts: every chart under `manifests/charts` of the
//! pinned Istio module, with its default values and with every profile it carries
//! (`--set profile=NAME` for each `files/profile-*.yaml`), and with a few value overrides, must
//! render byte-identically (stdout, and success or failure alike).
//!
//! Needs `scripts/fetch-helm` and `scripts/fetch-istio` (the Go toolchain and the module proxy);
//! `BOSUN_HELM` and `BOSUN_ISTIO` may point at already fetched copies.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

mod common;
use common::fetched;

fn chart_dirs(root: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(root)
        .expect("read charts dir")
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if path.join("Chart.yaml").is_file() {
                out.push(path.clone());
            }
            chart_dirs(&path, out);
        }
    }
}

fn profiles(chart: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(chart.join("files"))
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    let profile = name.strip_prefix("profile-")?.strip_suffix(".yaml")?;
                    Some(profile.to_string())
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn istio_charts_render_like_helm() {
    let helm = fetched("BOSUN_HELM", "fetch-helm");
    let istio = fetched("BOSUN_ISTIO", "fetch-istio");
    let bosun = PathBuf::from(env!("CARGO_BIN_EXE_bosun"));
    let mut charts = Vec::new();
    chart_dirs(&istio.join("manifests/charts"), &mut charts);
    assert!(
        charts.len() >= 8,
        "expected Istio's charts under {}",
        istio.display()
    );

    // Overrides that reach most of the charts' templates: images, revisions, namespaces,
    // resources, lists and maps, and a release namespace.
    let overrides: &[&[&str]] = &[
        &[
            "--set",
            "global.hub=registry.example.com/istio,global.tag=1.2.3-distroless",
        ],
        &["--set", "revision=canary", "-n", "istio-system"],
        &[
            "--set",
            "global.istioNamespace=mesh,global.imagePullPolicy=Always,global.logAsJson=true",
        ],
        &[
            "--set",
            "profile=ambient",
            "--set-string",
            "global.proxy.resources.requests.cpu=250m",
        ],
        &[
            "--set",
            "defaults.replicaCount=3,replicaCount=2,autoscaleEnabled=false",
        ],
        &[
            "--set",
            "global.imagePullSecrets={a,b},podAnnotations.x=y,nodeSelector.zone=z1",
        ],
    ];
    let mut jobs: Vec<(PathBuf, Vec<String>)> = Vec::new();
    for chart in &charts {
        jobs.push((chart.clone(), vec![]));
        for args in overrides {
            jobs.push((chart.clone(), args.iter().map(|a| a.to_string()).collect()));
        }
        for profile in profiles(chart) {
            jobs.push((
                chart.clone(),
                vec!["--set".into(), format!("profile={profile}")],
            ));
        }
    }
    let total = jobs.len();
    let jobs = Mutex::new(jobs);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..3 {
            scope.spawn(|| {
                loop {
                    let Some((chart, args)) = jobs.lock().unwrap().pop() else {
                        break;
                    };
                    let run = |program: &Path, prefix: &[&str]| {
                        Command::new(program)
                            .args(prefix)
                            .arg("template")
                            .arg("parity")
                            .arg(&chart)
                            .args(&args)
                            .output()
                            .expect("run renderer")
                    };
                    let h = run(&helm, &[]);
                    let b = run(&bosun, &["helm"]);
                    if h.status.success() != b.status.success() || h.stdout != b.stdout {
                        let first_line = |bytes: &[u8]| {
                            String::from_utf8_lossy(bytes)
                                .lines()
                                .next()
                                .unwrap_or("")
                                .to_string()
                        };
                        failures.lock().unwrap().push(format!(
                            "{} {:?}: helm ok={} {:?}, bosun ok={} {:?}",
                            chart.strip_prefix(&istio).unwrap_or(&chart).display(),
                            args,
                            h.status.success(),
                            first_line(&h.stderr),
                            b.status.success(),
                            first_line(&b.stderr),
                        ));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    for f in &failures {
        println!("DIFF {f}");
    }
    println!(
        "{} passed, {} failed",
        total - failures.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {total} Istio chart renders differ from helm",
        failures.len()
    );
}
