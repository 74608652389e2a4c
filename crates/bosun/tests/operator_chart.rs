//! The operator's install outside a cluster: its permissions are the ones derived from the
//! pinned Istio's charts (`charts/bosun-operator/files/rbac.json` is not stale), and its Helm
//! chart (`charts/bosun-operator`) renders byte-identically with real helm and with
//! `bosun helm template`, and the same objects as `bosun operator dump` with matching settings.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::{fetched, manifests, repo_root, text};
use serde_json::Value;

fn objects_of(yaml: &str) -> Vec<Value> {
    yaml.split("\n---")
        .filter_map(|doc| manifest::object::Object::from_yaml(doc).unwrap())
        .map(|o| o.value().clone())
        .collect()
}

fn bosun(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_bosun"))
        .args(args)
        .output()
        .expect("running bosun");
    assert!(out.status.success(), "bosun {args:?}: {}", text(&out));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn rbac_is_derived_from_the_pinned_charts() {
    let manifests = manifests();
    let rendered: Vec<(String, Vec<Value>)> = operator::rbac::SUPPORTED_PROFILES
        .iter()
        .map(|p| {
            let yaml = bosun(&[
                "manifest",
                "generate",
                "--set",
                &format!("profile={p}"),
                "-d",
                &manifests,
            ]);
            (p.to_string(), objects_of(&yaml))
        })
        .collect();
    let derived = operator::rbac::derive(&rendered);
    // Every Role and ClusterRole each profile renders is covered: the operator can create them
    // without `escalate`.
    for (profile, objects) in &rendered {
        for o in objects {
            let held = match o["kind"].as_str() {
                Some("ClusterRole") => &derived.cluster_rules,
                Some("Role") => &derived.namespace_rules,
                _ => continue,
            };
            let rules: Vec<Value> = o["rules"].as_array().cloned().unwrap_or_default();
            let missing = operator::rbac::covers(held, &rules);
            assert!(
                missing.is_empty(),
                "{profile}: {} {} needs {missing:?}",
                o["kind"],
                o["metadata"]["name"]
            );
        }
    }
    let path = repo_root().join("charts/bosun-operator/files/rbac.json");
    let text = serde_json::to_string_pretty(&derived).unwrap() + "\n";
    if std::env::var_os("BOSUN_BLESS").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    assert_eq!(
        operator::rbac::committed(),
        derived,
        "{} is stale (the pinned charts changed?); regenerate it with BOSUN_BLESS=1 cargo test -p bosun --test operator_chart",
        path.display()
    );
    // Wildcards only where Istio's own ClusterRoles have them.
    let istio_wildcards: Vec<String> = rendered
        .iter()
        .flat_map(|(_, objects)| objects)
        .filter(|o| o["kind"] == "ClusterRole")
        .flat_map(|o| {
            operator::rbac::wildcards(o["rules"].as_array().map(Vec::as_slice).unwrap_or(&[]))
        })
        .collect();
    for w in operator::rbac::wildcards(&derived.cluster_rules) {
        assert!(istio_wildcards.contains(&w), "{w} is not Istio's");
    }
}

fn chart_dir() -> PathBuf {
    repo_root().join("charts/bosun-operator")
}

/// The value variants the chart is rendered with, and the `operator dump` flags that say the
/// same.
fn variants() -> Vec<(&'static str, Vec<&'static str>, Vec<&'static str>)> {
    vec![
        ("defaults", vec![], vec![]),
        (
            "namespaces and image",
            vec![
                "--set",
                "namespace=ops",
                "--set",
                "image=example.com/mesh/op:1.2",
                "--set",
                "watchNamespace=team-a",
                "--set",
                "istioNamespaces={istio-system,gateways}",
            ],
            vec![
                "--operator-namespace",
                "ops",
                "--image",
                "example.com/mesh/op:1.2",
                "--watch-namespace",
                "team-a",
                "--istio-namespace",
                "istio-system",
                "--istio-namespace",
                "gateways",
            ],
        ),
        (
            "hub, tag, replicas",
            vec![
                "--set",
                "hub=registry.example.com/bosun",
                "--set",
                "tag=7.0",
                "--set",
                "replicas=2",
            ],
            vec![
                "--hub",
                "registry.example.com/bosun",
                "--tag",
                "7.0",
                "--replicas",
                "2",
            ],
        ),
        (
            "an OCI mirror with its login, and a module proxy",
            vec![
                "--set",
                "mirror=oci://registry.corp:5000/istio/releases",
                "--set",
                "mirrorPlainHttp=true",
                "--set",
                "mirrorSecret=mirror-login",
                "--set",
                "goproxy=https://goproxy.corp/go",
            ],
            vec![
                "--mirror",
                "oci://registry.corp:5000/istio/releases",
                "--mirror-plain-http",
                "--mirror-secret",
                "mirror-login",
                "--goproxy",
                "https://goproxy.corp/go",
            ],
        ),
        (
            "a file mirror",
            vec!["--set", "mirror=https://downloads.corp/istio"],
            vec!["--mirror", "https://downloads.corp/istio"],
        ),
    ]
}

#[test]
fn chart_renders_identically_with_helm_and_bosun() {
    let helm = fetched("BOSUN_HELM", "fetch-helm");
    let chart = chart_dir().display().to_string();
    let mut variants = variants();
    variants.push((
        "resources",
        vec![
            "--set",
            "resources.limits.memory=128Mi",
            "--set",
            "resources.requests.cpu=10m",
        ],
        vec![],
    ));
    for (name, set, _) in variants {
        let mut args = vec![
            "template",
            "bosun-operator",
            chart.as_str(),
            "--include-crds",
        ];
        args.extend(&set);
        let theirs = Command::new(&helm).args(&args).output().unwrap();
        assert!(theirs.status.success(), "{name}: helm: {}", text(&theirs));
        let mut ours_args = vec!["helm"];
        ours_args.extend(&args);
        let ours = bosun(&ours_args);
        assert_eq!(
            ours,
            String::from_utf8(theirs.stdout).unwrap(),
            "{name}: bosun helm template differs from helm template"
        );
    }
}

#[test]
fn chart_renders_the_objects_operator_dump_prints() {
    let chart = chart_dir().display().to_string();
    // The chart's CRD is `operator dump`'s (in `crds/`, so Helm installs it once and never
    // deletes it with every IstioOperator in it).
    let crd_path = chart_dir().join("crds/istiooperators.yaml");
    if std::env::var_os("BOSUN_BLESS").is_some() {
        let crd = manifest::object::Object::new(operator::crd::istio_operator_crd());
        std::fs::write(&crd_path, manifest::order::print_objects(&[crd])).unwrap();
    }
    let chart_yaml = std::fs::read_to_string(chart_dir().join("Chart.yaml")).unwrap();
    assert!(
        chart_yaml.contains(&format!("appVersion: \"{}\"", env!("CARGO_PKG_VERSION"))),
        "the chart's appVersion is not bosun's version {}",
        env!("CARGO_PKG_VERSION")
    );
    for (name, set, flags) in variants() {
        let mut args = vec![
            "helm",
            "template",
            "bosun-operator",
            chart.as_str(),
            "--include-crds",
        ];
        args.extend(&set);
        let mut from_chart = objects_of(&bosun(&args));
        let mut dump_args = vec!["operator", "dump"];
        dump_args.extend(&flags);
        let mut dumped = objects_of(&bosun(&dump_args));
        // The dump also makes the Istio namespaces (unlabelled), so that `kubectl apply` of it
        // works on a fresh cluster; the chart leaves them to the user (its values say they
        // must exist), since a release owning istio-system would delete it on uninstall.
        dumped.retain(|o| o["kind"] != "Namespace" || o["metadata"].get("labels").is_some());
        let key = |o: &Value| {
            format!(
                "{} {} {}",
                o["kind"],
                o["metadata"]["namespace"].as_str().unwrap_or(""),
                o["metadata"]["name"]
            )
        };
        from_chart.sort_by_key(key);
        dumped.sort_by_key(key);
        let names = |v: &[Value]| v.iter().map(key).collect::<Vec<_>>();
        assert_eq!(names(&from_chart), names(&dumped), "{name}");
        for (a, b) in from_chart.iter().zip(&dumped) {
            assert_eq!(a, b, "{name}: {} differs", key(a));
        }
    }
}

/// The mirror settings of `operator dump` / `operator init`, data-driven: each good set of
/// flags and the environment it puts into the operator's Deployment (after the operator's own
/// four variables), each bad one and the error naming its flag (exit status 2 for what flag
/// parsing refuses, 1 for combinations), with nothing printed. `init` refuses before it reads
/// the kubeconfig (which does not exist).
#[test]
fn operator_mirror_flags_set_the_deployment_environment_or_are_refused() {
    // Flags, and the variables they add (name, value).
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)]);
    let good: &[Case] = &[
        (&[], &[]),
        (
            &["--mirror", "https://downloads.corp/istio/"],
            &[("BOSUN_ISTIO_MIRROR", "https://downloads.corp/istio/")],
        ),
        (
            &["--mirror", "/srv/istio-releases"],
            &[("BOSUN_ISTIO_MIRROR", "/srv/istio-releases")],
        ),
        (
            &["--mirror", "oci://127.0.0.1:5000/istio/releases"],
            &[("BOSUN_ISTIO_MIRROR", "oci://127.0.0.1:5000/istio/releases")],
        ),
        (
            &[
                "--mirror",
                "oci://harbor.corp/istio/releases",
                "--mirror-plain-http",
                "--mirror-secret",
                "harbor-login",
            ],
            &[
                ("BOSUN_ISTIO_MIRROR", "oci://harbor.corp/istio/releases"),
                ("BOSUN_ISTIO_MIRROR_PLAIN_HTTP", "true"),
                ("DOCKER_CONFIG", "/etc/bosun/docker"),
            ],
        ),
        (
            &["--goproxy", "https://goproxy.corp,direct"],
            &[("GOPROXY", "https://goproxy.corp,direct")],
        ),
    ];
    for (flags, want) in good {
        let mut args = vec!["operator", "dump"];
        args.extend(*flags);
        let objects = objects_of(&bosun(&args));
        let deployment = objects
            .iter()
            .find(|o| o["kind"] == "Deployment")
            .expect("a Deployment");
        let env: Vec<(String, String)> =
            deployment["spec"]["template"]["spec"]["containers"][0]["env"]
                .as_array()
                .unwrap()
                .iter()
                .skip(4)
                .map(|e| {
                    (
                        e["name"].as_str().unwrap().to_string(),
                        e["value"].as_str().unwrap().to_string(),
                    )
                })
                .collect();
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
        assert_eq!(env, want, "{flags:?}");
    }

    let bad: &[(&[&str], i32, &str)] = &[
        (
            &["--mirror", " "],
            2,
            "for '--mirror <URL|oci://HOST/REPO|DIR>': empty",
        ),
        (
            &["--mirror", "oci://harbor.corp"],
            2,
            "for '--mirror <URL|oci://HOST/REPO|DIR>': \"oci://harbor.corp\": an OCI mirror is oci://HOST[:PORT]/REPOSITORY",
        ),
        (
            &["--mirror", "oci://harbor.corp/istio/releases:1.30.3"],
            2,
            "name the repository only: bosun adds the release as the tag",
        ),
        (
            &["--mirror", "releases"],
            2,
            "for '--mirror <URL|oci://HOST/REPO|DIR>': \"releases\" is neither an http(s):// URL, an oci:// registry nor an absolute directory",
        ),
        (
            &["--mirror", "https:///istio"],
            2,
            "an http(s):// URL needs a host",
        ),
        (
            &["--goproxy", "direct"],
            2,
            "for '--goproxy <URL>': \"direct\" names no http(s):// module proxy",
        ),
        (
            &["--goproxy", "ftp://goproxy.corp"],
            2,
            "for '--goproxy <URL>': \"ftp://goproxy.corp\" is not a module proxy",
        ),
        (
            &["--mirror-plain-http"],
            2,
            "the following required arguments were not provided:\n  --mirror <URL|oci://HOST/REPO|DIR>",
        ),
        (
            &[
                "--mirror",
                "https://downloads.corp/istio",
                "--mirror-plain-http",
            ],
            1,
            "Error: --mirror-plain-http is for an OCI registry mirror: --mirror \"https://downloads.corp/istio\" is not oci://HOST/REPO",
        ),
        (
            &["--mirror", "/srv/istio", "--mirror-secret", "login"],
            1,
            "Error: --mirror-secret is for an OCI registry mirror",
        ),
        (
            &[
                "--mirror",
                "oci://harbor.corp/istio",
                "--mirror-secret",
                "Harbor_Login",
            ],
            2,
            "for '--mirror-secret <SECRET>': \"Harbor_Login\" is not a Secret name",
        ),
    ];
    for command in ["dump", "init"] {
        for (flags, code, want) in bad {
            let mut args = vec!["operator", command];
            args.extend(*flags);
            if command == "init" {
                args.extend(["--kubeconfig", "/nonexistent/kubeconfig"]);
            }
            let out = Command::new(env!("CARGO_BIN_EXE_bosun"))
                .args(&args)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(*code), "{args:?}: {}", text(&out));
            assert!(out.stdout.is_empty(), "{args:?}: {}", text(&out));
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains(want), "{args:?}: want {want:?} in\n{err}");
        }
    }
}
