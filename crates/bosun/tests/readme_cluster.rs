//! The README's `# cluster` block, run as written on the living cluster
//! (`testenv::living_kubeconfig()`): one bash script (`set -euo pipefail`, stderr into
//! stdout) in the repository's root, with the `bosun` built by cargo and the living cluster's
//! `kubectl` first on PATH and `KUBECONFIG` naming the living cluster. Every command must exit 0
//! unless the block says otherwise (`|| echo …`); a failing one is named by its README line. Its
//! `#> ` lines must be whole lines of the output, in order (`common::readme`, as for the
//! offline blocks in `readme.rs`; `…` stands for any text).
//!
//! The block takes two variables, which the README explains:
//! - `ISTIO_FLAGS`: here the images built for the living cluster (`--set hub=… --set tag=…`) and
//!   what lets the pause image stand in for Istio's proxy, which cannot be built here (as in
//!   `canary_procedure.rs`, but install-wide instead of per pod): `values.global.proxy.image`
//!   the pause image, no traffic interception (`meshConfig.defaultConfig.interceptionMode=NONE`:
//!   no init container) and no status port (`values.global.proxy.statusPort=0`: no probes), so
//!   injected pods run and turn Ready and the rollouts the block waits for finish.
//! - `APP_IMAGE`: the pause image, for the block's workload.
//!
//! Its two chart sets come from `scripts/fetch-istio --previous` and `scripts/fetch-istio`, as
//! the block says (both cached by CI before the tests run).
//!
//! The block ends with `uninstall --purge`; whatever happens, the test purges again and deletes
//! the block's `apps` namespace and `istio-system` before and after, so the next living test
//! starts from a cluster without Istio. After the block it also checks that nothing of
//! Istio's is left: no CRD of an Istio group, no Istio webhook, no `istio-system`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use cluster::testenv;
use common::readme::{first_missing, readme_blocks, shown_output};
use common::succeeded;
use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Api;
use kube::api::{DeleteParams, ListParams};

/// The namespace the block makes its workload in.
const APPS: &str = "apps";
const ISTIO_NS: &str = "istio-system";

/// bosun's cache (where scripts/fetch-istio put the pin): the parent of what it prints.
fn cache_dir() -> PathBuf {
    common::fetched("BOSUN_ISTIO", "fetch-istio")
        .parent()
        .expect("the fetched Istio lies in a cache directory")
        .to_path_buf()
}

/// The directory of a `kubectl` for the living cluster: `BOSUN_KUBECTL`'s, else the one
/// scripts/testenv-living built into bosun's cache (`living-k8s-<version>/kubectl`).
fn kubectl_dir(cache: &Path) -> PathBuf {
    if let Some(k) = std::env::var_os("BOSUN_KUBECTL") {
        return Path::new(&k)
            .parent()
            .expect("BOSUN_KUBECTL names a file")
            .to_path_buf();
    }
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(cache)
        .unwrap_or_else(|e| panic!("{}: {e}", cache.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("living-k8s-"))
                && p.join("kubectl").is_file()
        })
        .collect();
    dirs.sort();
    dirs.pop().unwrap_or_else(|| {
        panic!(
            "no kubectl: set BOSUN_KUBECTL, or start the living cluster once (scripts/testenv up --living builds {}/living-k8s-<version>/kubectl)",
            cache.display()
        )
    })
}

fn bosun(args: &[&str]) -> std::process::Output {
    common::bosun_command(testenv::living_kubeconfig(), args)
        .output()
        .expect("running bosun")
}

/// No installation, no revision tag (purge removes them), and neither the block's `apps`
/// namespace nor `istio-system` (what istiod wrote itself is left by the purge), waited for
/// until both are gone, so that the next install does not meet a terminating namespace.
async fn clean(kube: &kube::Client) {
    succeeded(&bosun(&["uninstall", "--purge", "-y"]));
    let namespaces: Api<Namespace> = Api::all(kube.clone());
    for ns in [APPS, ISTIO_NS] {
        let _ = namespaces.delete(ns, &DeleteParams::default()).await;
    }
    testkit::wait_until(
        "namespaces apps and istio-system gone",
        Duration::from_secs(120),
        Duration::from_millis(500),
        || async {
            for ns in [APPS, ISTIO_NS] {
                if namespaces.get_opt(ns).await.unwrap().is_some() {
                    return None;
                }
            }
            Some(())
        },
    )
    .await
    .unwrap_or_else(|e| panic!("{e}"));
}

/// Cleans up when dropped, also when the test panics midway.
struct Cleanup;

impl Drop for Cleanup {
    fn drop(&mut self) {
        // A thread of its own: this may run while a runtime unwinds.
        std::thread::spawn(|| {
            common::run(async { clean(testenv::living_client().await.kube()).await });
        })
        .join()
        .expect("cleaning up after the README's cluster block");
    }
}

/// What of Istio's is still there: CRDs of Istio's groups, Istio's webhooks (named `istio…`
/// or labelled with an `istio.io` key) and the `istio-system` namespace (each once its
/// deletion finished).
async fn istio_leftovers(kube: &kube::Client) -> Vec<String> {
    let mut left = Vec::new();
    let lp = ListParams::default();
    let crds: Api<CustomResourceDefinition> = Api::all(kube.clone());
    for crd in crds.list(&lp).await.unwrap().items {
        if crd.spec.group.ends_with("istio.io") {
            left.push(format!(
                "CustomResourceDefinition {}",
                crd.metadata.name.unwrap_or_default()
            ));
        }
    }
    let istio = |meta: &kube::api::ObjectMeta| {
        meta.name.as_deref().is_some_and(|n| n.contains("istio"))
            || meta
                .labels
                .iter()
                .flatten()
                .any(|(k, _)| k.contains("istio.io"))
    };
    let injectors: Api<MutatingWebhookConfiguration> = Api::all(kube.clone());
    for w in injectors.list(&lp).await.unwrap().items {
        if istio(&w.metadata) {
            left.push(format!(
                "MutatingWebhookConfiguration {}",
                w.metadata.name.unwrap_or_default()
            ));
        }
    }
    let validators: Api<ValidatingWebhookConfiguration> = Api::all(kube.clone());
    for w in validators.list(&lp).await.unwrap().items {
        if istio(&w.metadata) {
            left.push(format!(
                "ValidatingWebhookConfiguration {}",
                w.metadata.name.unwrap_or_default()
            ));
        }
    }
    let namespaces: Api<Namespace> = Api::all(kube.clone());
    if namespaces.get_opt(ISTIO_NS).await.unwrap().is_some() {
        left.push(format!("Namespace {ISTIO_NS}"));
    }
    left
}

#[test]
fn readme_cluster_block_runs_as_written_on_the_living_cluster() {
    let blocks = readme_blocks();
    let cluster: Vec<_> = blocks
        .iter()
        .filter(|b| b.first().starts_with("# cluster"))
        .collect();
    assert_eq!(
        cluster.len(),
        1,
        "README.md has {} `# cluster` blocks; this test runs exactly one",
        cluster.len()
    );
    let block = cluster[0];
    assert_eq!(
        block.info, "sh",
        "README.md:{}: not a ```sh block",
        block.line
    );
    let shown = shown_output(&block.text);
    assert!(
        !shown.is_empty(),
        "README.md:{}: the cluster block shows no output (`#> ` lines) to check",
        block.line
    );

    let living = testenv::living();
    let cache = cache_dir();
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_bosun"));
    let path = std::env::join_paths(
        [bin.parent().unwrap().to_path_buf(), kubectl_dir(&cache)]
            .into_iter()
            .chain(std::env::split_paths(
                &std::env::var_os("PATH").unwrap_or_default(),
            )),
    )
    .unwrap();
    let istio_flags = [
        format!("--set hub={}", living.hub),
        format!("--set tag={}", living.tag),
        format!("--set values.global.proxy.image={}", living.pause_image),
        "--set meshConfig.defaultConfig.interceptionMode=NONE".to_string(),
        "--set values.global.proxy.statusPort=0".to_string(),
    ]
    .join(" ");

    common::run(async { clean(testenv::living_client().await.kube()).await });
    let _cleanup = Cleanup;
    // The block's own lines keep their numbers: the ERR trap names README.md's line.
    let script = format!(
        "exec 2>&1; set -euo pipefail; trap 'echo \"README.md:$((LINENO + {})): exit status $?\"' ERR\n{}",
        block.line - 2,
        block.text
    );
    let started = std::time::Instant::now();
    let out = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .current_dir(common::repo_root())
        .env("PATH", &path)
        .env("KUBECONFIG", testenv::living_kubeconfig())
        .env("BOSUN_CACHE", &cache)
        .env("ISTIO_FLAGS", &istio_flags)
        .env("APP_IMAGE", &living.pause_image)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run bash");
    let output = String::from_utf8_lossy(&out.stdout);
    eprintln!(
        "README.md:{}: the cluster block ran in {:.0?}",
        block.line,
        started.elapsed()
    );
    assert!(
        out.status.success(),
        "README.md:{}: the block failed ({})\n--- output\n{output}",
        block.line,
        out.status
    );
    if let Some(want) = first_missing(&shown, &output) {
        panic!(
            "README.md:{}: the block did not print (in order) the line\n  {want}\n--- output\n{output}",
            block.line
        );
    }

    // `--purge` left nothing of Istio's (a CRD's deletion finishes after purge returns).
    common::run(async {
        let client = testenv::living_client().await;
        let kube = client.kube();
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        let mut left = istio_leftovers(kube).await;
        while !left.is_empty() && std::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(500)).await;
            left = istio_leftovers(kube).await;
        }
        assert!(
            left.is_empty(),
            "uninstall --purge left: {left:?}\n--- output\n{output}"
        );
    });
}
