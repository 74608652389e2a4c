//! What `install`, `plan`, `precheck` and `verify-install` start from: the inputs rendered
//! exactly as `manifest generate` renders them (so everything that can fail without the cluster
//! fails before the first request), made into an `installer::Install` for the cluster (each
//! component's objects in apply order with istioctl's owner labels, what the installation owns
//! for prune, the default revision tag's decision), and the cluster client; plus the command
//! line's side of the installer's refusals: fail, or warn with `--force`.

use std::io::Write;

use crate::mesh::MeshFailure;

/// The rendered install and a client for the cluster: what install, plan and verify-install
/// start from. Only reads have gone to the cluster (its version and CNI configuration, what
/// the default tag's decision reads).
pub(crate) struct Prepared<'r> {
    pub install: installer::Install,
    /// The process's runtime (see [`crate::runtime`]), which the client's requests run on.
    pub runtime: &'r tokio::runtime::Runtime,
    pub client: cluster::Client,
    /// The API server's version, read with the cluster's facts.
    pub kubernetes: assess::precheck::KubernetesVersion,
}

/// The inputs rendered for the cluster (its facts read), not yet made into an install: what
/// `install` takes the install lock with (the render names the Istio namespace) before the
/// reads of [`Rendered::prepare`] and the checks.
pub(crate) struct Rendered<'r> {
    rendered: pipeline::Rendered,
    packages: pipeline::InstallPackages,
    pub runtime: &'r tokio::runtime::Runtime,
    pub client: cluster::Client,
    version: k8s_openapi::apimachinery::pkg::version::Info,
}

/// Renders `input` as `manifest generate --cluster-specific` does (invalid input fails before
/// the cluster is read), each component's objects in apply order, and makes the client for the
/// cluster the `cluster` flags name.
pub(crate) fn prepare<'r>(
    input: &crate::mesh::InputArgs,
    force: bool,
    cluster: &crate::target::ClusterArgs,
    runtime: &'r crate::runtime::Runtime,
) -> Result<Prepared<'r>, MeshFailure> {
    render(input, force, cluster, runtime)?.prepare()
}

/// [`prepare`]'s first half: the render for the cluster, whose facts (version, CNI) are the
/// only reads so far.
pub(crate) fn render<'r>(
    input: &crate::mesh::InputArgs,
    force: bool,
    cluster: &crate::target::ClusterArgs,
    runtime: &'r crate::runtime::Runtime,
) -> Result<Rendered<'r>, MeshFailure> {
    let runtime = runtime.get()?;
    // The cluster is read (its version and CNI, as istioctl reads them) only once the input
    // is known to be valid; the client made for that is the one returned.
    let made = std::cell::RefCell::new(None);
    let detect = || -> Result<pipeline::Detected, String> {
        let client = cluster.connect(runtime).map_err(|e| e.0)?;
        let facts = runtime
            .block_on(client.cluster_facts())
            .map_err(|e| e.to_string())?;
        let detected = crate::mesh::detected(&facts);
        *made.borrow_mut() = Some((client, facts.version));
        Ok(detected)
    };
    let packages = crate::mesh::packages();
    let rendered = crate::mesh::render(input, &packages, force, Some(&detect))?;
    let (client, version) = match made.into_inner() {
        Some(made) => made,
        None => {
            let client = cluster.connect(runtime)?;
            let facts = runtime.block_on(client.cluster_facts())?;
            (client, facts.version)
        }
    };
    Ok(Rendered {
        rendered,
        packages,
        runtime,
        client,
        version,
    })
}

impl<'r> Rendered<'r> {
    /// The Istio namespace the install writes into (whose install lock it takes).
    pub fn istio_namespace(&self) -> &str {
        self.rendered.merged.istio_namespace()
    }

    /// [`prepare`]'s second half: the install for the cluster (the default tag's decision
    /// reads the cluster's webhooks).
    pub fn prepare(self) -> Result<Prepared<'r>, MeshFailure> {
        let Rendered {
            rendered,
            packages,
            runtime,
            client,
            version,
        } = self;
        let install = runtime.block_on(installer::Install::prepare(&client, rendered, packages))?;
        Ok(Prepared {
            install,
            runtime,
            client,
            kubernetes: assess::precheck::KubernetesVersion {
                git_version: version.git_version,
                major: version.major,
                minor: version.minor,
            },
        })
    }
}

impl Prepared<'_> {
    /// Refuses (or with `force` warns about) rendered sidecar injectors that would inject the
    /// same pods as a live injector of another revision, as istioctl's `CheckWebhooks` does.
    /// Only reads the cluster.
    pub fn check_webhook_overlaps(&self, force: bool) -> Result<(), MeshFailure> {
        let refusal = self
            .runtime
            .block_on(self.install.webhook_overlaps(&self.client))?;
        refuse_unless_forced(refusal, force, |refusal| {
            format!("❗ invalid webhook configs; continuing because of --force: {refusal}")
        })
    }

    /// Refuses (or with `force` warns about) what bosun's catalog forbids (an end-of-life
    /// release, a skipped minor, an in-place downgrade), and warns about the rest it says (the
    /// cluster's Kubernetes outside the release's range, as istioctl's installer only warns;
    /// a version not in the catalog). Today is the clock's. Only reads the cluster.
    pub fn check_release_policy(&self, force: bool) -> Result<(), MeshFailure> {
        let catalog = crate::release::catalog()?;
        let kubernetes = self.kubernetes.judged();
        let (refusal, told) = self.runtime.block_on(self.install.release_policy(
            &self.client,
            &catalog,
            kubernetes.as_deref(),
            crate::release::today(),
        ))?;
        for concern in told {
            let mark = match concern {
                release::support::Concern::NotInCatalog { .. } => "ℹ",
                _ => "❗",
            };
            let _ = writeln!(std::io::stderr().lock(), "{mark} {concern}");
        }
        refuse_unless_forced(refusal, force, |refusal| {
            format!("❗ {refusal}\ncontinuing because of --force")
        })
    }

    /// Every refusal `install` checks before it writes, in its order: the release policy,
    /// overlapping injectors, CRD downgrades. The first refusal fails (with `install`'s words
    /// and fix); with `force` each is printed as a warning and the command goes on. `install`,
    /// `install --plan|--dry-run` and `plan` all check through this, so a plan fails exactly
    /// when the install would. Only reads the cluster.
    pub fn check_refusals(&self, force: bool) -> Result<(), MeshFailure> {
        self.check_release_policy(force)?;
        self.check_webhook_overlaps(force)?;
        self.check_crd_downgrades(force)
    }

    /// What the catalog says of the Istio these inputs render as installed, for
    /// `verify-install`: its end of life and the cluster's Kubernetes version against its
    /// range ([`release::support::lifecycle`]; not the upgrade rules, which judge a new install
    /// against the installed ones). Today is the clock's. Reads nothing.
    pub fn release_lifecycle(&self) -> Result<Vec<release::support::Concern>, MeshFailure> {
        let catalog = crate::release::catalog()?;
        Ok(release::support::lifecycle(
            &catalog,
            &self.install.version,
            self.kubernetes.judged().as_deref(),
            crate::release::today(),
        ))
    }

    /// Refuses (or with `force` warns about) rendered CRDs that would replace newer live ones.
    /// Only reads the cluster.
    pub fn check_crd_downgrades(&self, force: bool) -> Result<(), MeshFailure> {
        let refusal = self
            .runtime
            .block_on(self.install.crd_downgrades(&self.client))?;
        refuse_unless_forced(refusal, force, |refusal| {
            format!(
                "❗ {}; continuing because of --force",
                refusal
                    .to_string()
                    .lines()
                    .filter(|l| !l.starts_with("install with charts"))
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        })
    }

    /// What installing would do (server-side dry runs; writes nothing), as helm's field
    /// manager when it records `helm_releases` (taking bosun's own fields over), else bosun's,
    /// with `force`.
    pub fn plan(&self, force: bool, helm_releases: bool) -> Result<cluster::Plan, MeshFailure> {
        Ok(self.runtime.block_on(self.install.plan(
            &self.client,
            installer::helm_releases::field_manager(helm_releases),
            force,
            &installer::helm_releases::taken_over_from(helm_releases),
        ))?)
    }
}

/// The command line's answer to a refusal: fail, or with `force` print `warning` and go on.
fn refuse_unless_forced(
    refusal: Option<installer::Refusal>,
    force: bool,
    warning: impl Fn(&installer::Refusal) -> String,
) -> Result<(), MeshFailure> {
    match refusal {
        None => Ok(()),
        Some(refusal) if !force => Err(refusal.into()),
        Some(refusal) => {
            let _ = writeln!(std::io::stderr().lock(), "{}", warning(&refusal));
            Ok(())
        }
    }
}
