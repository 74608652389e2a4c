//! GitOps entry points (issue 33), offline: `manifest generate --kube-version / --api-versions`
//! (a render for a target cluster bosun cannot reach), the Argo CD plugin's `generate` run as
//! Argo's `argocd-cmp-server` runs it, and bosun as a kubectl plugin with its krew manifest.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bosun() -> &'static str {
    env!("CARGO_BIN_EXE_bosun")
}

fn run(args: &[&str], dir: &Path, env: &[(&str, &str)]) -> Output {
    Command::new(bosun())
        .args(args)
        .current_dir(dir)
        .envs(env.iter().copied())
        .env_remove("KUBE_VERSION")
        .env_remove("KUBE_API_VERSIONS")
        .stdin(Stdio::null())
        .output()
        .expect("running bosun")
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bosun-gitops-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn stdout_of(out: &Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// The object `kind`/`name` of a rendered manifest, as text.
fn object<'a>(manifest: &'a str, kind: &str, name: &str) -> Option<&'a str> {
    manifest.split("\n---\n").find(|doc| {
        doc.lines().any(|l| l == format!("kind: {kind}"))
            && doc.lines().any(|l| l == format!("  name: {name}"))
    })
}

/// `--kube-version` is what `--cluster-specific` reads from a cluster's version, without the
/// cluster: the charts' `.Capabilities.KubeVersion` and istioctl's GKE settings for a `-gke`
/// version (the CNI in kube-system, GKE's binary folder). Each case: the flags, then what the
/// istio-cni DaemonSet must and must not hold.
#[test]
fn kube_version_renders_for_a_target_cluster() {
    let dir = temp("kube-version");
    let cni = ["--set", "components.cni.enabled=true"];
    let cases: &[(&[&str], &[&str], &[&str])] = &[
        (
            &["--kube-version", "v1.33.4-gke.1245000"],
            &["namespace: kube-system", "/home/kubernetes/bin"],
            &["namespace: istio-system"],
        ),
        (
            &["--kube-version", "1.33.4"],
            &["namespace: istio-system"],
            &["/home/kubernetes/bin", "namespace: kube-system"],
        ),
        (
            &[
                "--kube-version",
                "v1.34.0-eks-1",
                "--api-versions",
                "monitoring.coreos.com/v1,gateway.networking.k8s.io/v1",
            ],
            &["namespace: istio-system"],
            &["/home/kubernetes/bin"],
        ),
    ];
    for (flags, want, unwanted) in cases {
        let mut args = vec!["manifest", "generate"];
        args.extend(cni);
        args.extend(flags.iter());
        let out = stdout_of(&run(&args, &dir, &[]), &format!("{flags:?}"));
        let daemonset = object(&out, "DaemonSet", "istio-cni-node")
            .unwrap_or_else(|| panic!("{flags:?}: no istio-cni-node DaemonSet"));
        for w in *want {
            assert!(daemonset.contains(w), "{flags:?}: no {w:?} in\n{daemonset}");
        }
        for u in *unwanted {
            assert!(!daemonset.contains(u), "{flags:?}: {u:?} in\n{daemonset}");
        }
    }
    // Without a GKE version the render is the offline one, API versions or not (Istio's charts
    // ask for none).
    let plain = stdout_of(&run(&["manifest", "generate"], &dir, &[]), "plain");
    let with_apis = stdout_of(
        &run(
            &["manifest", "generate", "-a", "monitoring.coreos.com/v1"],
            &dir,
            &[],
        ),
        "api versions",
    );
    assert_eq!(plain, with_apis);
    // Bad input.
    let bad: &[(&[&str], &str)] = &[
        (&["--kube-version", "one.two"], "--kube-version"),
        (
            &["--kube-version", "1.33", "--cluster-specific"],
            "cannot be used with",
        ),
    ];
    for (flags, words) in bad {
        let mut args = vec!["manifest", "generate"];
        args.extend(flags.iter());
        let out = run(&args, &dir, &[]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(words),
            "{flags:?}: {err}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The plugin's `generate` command, exactly as `deploy/argocd/plugin.yaml` writes it, run as
/// `argocd-cmp-server` runs it (`command` then `args`, executed without a shell, in the
/// application's folder, with Argo's build environment and the Application's `plugin.env` as
/// `ARGOCD_ENV_*`), prints what `manifest generate` prints for the same inputs as flags.
#[test]
fn the_argocd_plugin_generates_what_manifest_generate_prints() {
    let plugin =
        std::fs::read_to_string(common::repo_root().join("deploy/argocd/plugin.yaml")).unwrap();
    let plugin = goyaml::from_yaml_json(&plugin).unwrap();
    assert_eq!(plugin["kind"], "ConfigManagementPlugin");
    let words = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .map(|a| a.iter().map(|w| w.as_str().unwrap().to_string()).collect())
            .unwrap_or_default()
    };
    let generate = &plugin["spec"]["generate"];
    let mut command = words(&generate["command"]);
    command.extend(words(&generate["args"]));
    assert!(!command.is_empty(), "plugin.yaml has no generate command");

    // The application's folder: two IstioOperator files and a file that is none.
    let repo = temp("argocd-repo");
    std::fs::write(
        repo.join("b-mesh.yaml"),
        "apiVersion: install.istio.io/v1alpha1\nkind: IstioOperator\nspec:\n  meshConfig:\n    accessLogFile: /dev/stdout\n",
    )
    .unwrap();
    std::fs::write(
        repo.join("a-profile.yml"),
        "apiVersion: install.istio.io/v1alpha1\nkind: IstioOperator\nspec:\n  profile: minimal\n",
    )
    .unwrap();
    std::fs::write(
        repo.join("README.yaml"),
        "kind: ConfigMap\nnote: not an IstioOperator\n",
    )
    .unwrap();
    // `bosun` on the PATH, as in the sidecar image.
    let bin = temp("argocd-bin");
    std::os::unix::fs::symlink(bosun(), bin.join("bosun")).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // Where bosun finds its cached Istio release (the sidecar's HOME is an emptyDir).
    let home = std::env::var("HOME").unwrap_or_default();
    let cache = std::env::var("BOSUN_CACHE").unwrap_or_else(|_| format!("{home}/.cache/bosun"));
    let argo_env = [
        ("PATH", path.as_str()),
        ("HOME", home.as_str()),
        ("BOSUN_CACHE", cache.as_str()),
        ("KUBE_VERSION", "1.33.4"),
        (
            "KUBE_API_VERSIONS",
            "v1,apps/v1,monitoring.coreos.com/v1,monitoring.coreos.com/v1/ServiceMonitor",
        ),
        ("ARGOCD_APP_NAME", "istio"),
        ("ARGOCD_APP_NAMESPACE", "istio-system"),
        ("ARGOCD_APP_SOURCE_PATH", "istio"),
        (
            "ARGOCD_ENV_BOSUN_SET",
            "components.pilot.k8s.replicaCount=2\nvalues.global.logging.level=default:debug\n",
        ),
    ];
    let out = Command::new(&command[0])
        .args(&command[1..])
        .current_dir(&repo)
        .env_clear()
        .envs(argo_env)
        .stdin(Stdio::null())
        .output()
        .expect("running the plugin's generate command");
    let generated = stdout_of(&out, "the plugin's generate");

    let direct = run(
        &[
            "manifest",
            "generate",
            "-f",
            "a-profile.yml,b-mesh.yaml",
            "--set",
            "components.pilot.k8s.replicaCount=2",
            "--set",
            "values.global.logging.level=default:debug",
            "--kube-version",
            "1.33.4",
            "--api-versions",
            "v1,apps/v1,monitoring.coreos.com/v1,monitoring.coreos.com/v1/ServiceMonitor",
        ],
        &repo,
        &[],
    );
    let direct = stdout_of(&direct, "manifest generate");
    assert!(direct.contains("replicas: 2") && direct.contains("accessLogFile: /dev/stdout"));
    assert_eq!(
        generated, direct,
        "the plugin's output differs from manifest generate's"
    );

    // ARGOCD_ENV_BOSUN_FILES names the files instead (the minimal profile alone here).
    let mut env = argo_env.to_vec();
    env.push(("ARGOCD_ENV_BOSUN_FILES", "a-profile.yml"));
    let out = Command::new(&command[0])
        .args(&command[1..])
        .current_dir(&repo)
        .env_clear()
        .envs(env)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let only_profile = stdout_of(&out, "the plugin with BOSUN_FILES");
    assert!(!only_profile.contains("accessLogFile: /dev/stdout"));
    assert!(only_profile.contains("replicas: 2"));
    std::fs::remove_dir_all(&repo).unwrap();
    std::fs::remove_dir_all(&bin).unwrap();
}

/// Run as `kubectl-bosun` (what krew installs, and what kubectl runs for `kubectl bosun`),
/// bosun is bosun, naming itself `kubectl bosun` in usage and errors; the krew manifest parses
/// and installs the binary by that name.
#[test]
fn kubectl_bosun_is_bosun_by_kubectls_name() {
    let bin = temp("kubectl");
    let plugin = bin.join("kubectl-bosun");
    std::os::unix::fs::symlink(bosun(), &plugin).unwrap();
    let cases: &[(&[&str], bool, &str)] = &[
        (&["--help"], true, "Usage: kubectl bosun <COMMAND>"),
        (
            &["manifest", "generate", "--help"],
            true,
            "Usage: kubectl bosun manifest generate",
        ),
        (
            &["helm", "template", "--help"],
            true,
            "Usage: kubectl bosun helm template",
        ),
        (&["--no-such-flag"], false, "Usage: kubectl bosun"),
        (&["profile", "list"], true, "minimal"),
    ];
    for (args, ok, words) in cases {
        let out = Command::new(&plugin)
            .args(*args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.success(), *ok, "{args:?}: {text}");
        assert!(text.contains(words), "{args:?}: no {words:?} in\n{text}");
    }
    // By its own name it is still `bosun`.
    let out = Command::new(bosun()).arg("--help").output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("Usage: bosun <COMMAND>"));
    std::fs::remove_dir_all(&bin).unwrap();

    let krew = std::fs::read_to_string(common::repo_root().join("deploy/krew/bosun.yaml")).unwrap();
    let krew = goyaml::from_yaml_json(&krew).unwrap();
    assert_eq!(
        krew["apiVersion"],
        "krew.googlecontainertools.github.com/v1alpha2"
    );
    assert_eq!(krew["kind"], "Plugin");
    assert_eq!(krew["metadata"]["name"], "bosun");
    let platforms = krew["spec"]["platforms"].as_array().unwrap();
    assert!(!platforms.is_empty());
    for p in platforms {
        assert_eq!(p["bin"], "kubectl-bosun", "{p}");
        assert!(
            p["files"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["from"] == "bosun" && f["to"] == "kubectl-bosun"),
            "{p}"
        );
        for field in ["uri", "sha256"] {
            assert!(p[field].is_string(), "{p}: no {field}");
        }
    }
}
