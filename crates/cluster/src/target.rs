//! Which cluster a command talks to, found as kubectl finds it (client-go's loading rules):
//! the `--kubeconfig` file if given, else the files `KUBECONFIG` lists (merged: the first file
//! to name a cluster, user or context wins, and the first `current-context` wins), else
//! `~/.kube/config`; the context `--context` names, else the merged `current-context`. Only
//! when no flag is given and no kubeconfig file exists is the in-cluster service account used.
//!
//! Where this differs from kubectl, on purpose: an unknown context lists the contexts there
//! are, and having no configuration at all says where it looked instead of falling back to
//! `localhost:8080`.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

use kube::config::{KubeConfigOptions, Kubeconfig, KubeconfigError};

use crate::timeout::RequestTimeout;

/// The cluster a command is pointed at: kubectl's `--kubeconfig`, `--context` and
/// `--request-timeout`. The default (none) is what kubectl uses without flags, but for the
/// bound on each request ([`RequestTimeout::DEFAULT`]; kubectl has none).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Target {
    /// A kubeconfig file that replaces `KUBECONFIG` and `~/.kube/config`; it must exist.
    pub kubeconfig: Option<PathBuf>,
    /// The context to use instead of the kubeconfig's `current-context`.
    pub context: Option<String>,
    /// How long each request waits for the API server's answer.
    pub request_timeout: RequestTimeout,
}

/// Why no configuration for the [`Target`] could be made. Each is one line.
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("kubeconfig {} given by --kubeconfig does not exist", path.display())]
    KubeconfigMissing { path: PathBuf },
    #[error("reading kubeconfig {}: {}", path.display(), describe(source))]
    Read {
        path: PathBuf,
        #[source]
        source: KubeconfigError,
    },
    #[error("merging kubeconfig {files}: {source}")]
    Merge {
        files: KubeconfigFiles,
        #[source]
        source: KubeconfigError,
    },
    /// kubectl says `context was not found for specified context: X`.
    #[error(
        "context {context:?} was not found in kubeconfig {files} ({})",
        known("contexts", available)
    )]
    ContextNotFound {
        context: String,
        files: KubeconfigFiles,
        available: Vec<String>,
    },
    #[error("context {context:?} was not found: {searched}")]
    NoKubeconfigForContext { context: String, searched: Searched },
    #[error(
        "kubeconfig {files} sets no current-context; pick one with --context ({})",
        known("contexts", available)
    )]
    NoCurrentContext {
        files: KubeconfigFiles,
        available: Vec<String>,
    },
    /// client-go's wording: `cluster "C" was not found for context "X"`.
    #[error("cluster {cluster:?} was not found for context {context:?} in kubeconfig {files}")]
    ClusterNotFound {
        cluster: String,
        context: String,
        files: KubeconfigFiles,
    },
    #[error("kubeconfig {files}, context {context:?}: {}", describe(source))]
    Context {
        context: String,
        files: KubeconfigFiles,
        #[source]
        source: KubeconfigError,
    },
    #[error(
        "no cluster configuration: {searched}, and not running inside a cluster; pass --kubeconfig or set KUBECONFIG"
    )]
    NoConfiguration { searched: Searched },
    #[error("in-cluster configuration: {0}")]
    InCluster(#[source] kube::config::InClusterError),
}

/// The kubeconfig files a configuration was read from, as `a, b`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubeconfigFiles(pub Vec<PathBuf>);

impl fmt::Display for KubeconfigFiles {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, path) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}", path.display())?;
        }
        Ok(())
    }
}

/// Where kubeconfig files were looked for and none was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Searched {
    /// `KUBECONFIG` listed these files; none exists.
    KubeconfigVariable(Vec<PathBuf>),
    /// `KUBECONFIG` was not set and this file (`~/.kube/config`) does not exist.
    Home(PathBuf),
    /// `KUBECONFIG` was not set and there is no home directory.
    NoHome,
}

impl fmt::Display for Searched {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Searched::KubeconfigVariable(paths) => write!(
                f,
                "none of the files KUBECONFIG lists exists ({})",
                KubeconfigFiles(paths.clone())
            ),
            Searched::Home(path) => write!(
                f,
                "KUBECONFIG is not set and {} does not exist",
                path.display()
            ),
            Searched::NoHome => f.write_str("KUBECONFIG is not set and there is no home directory"),
        }
    }
}

fn known(what: &str, names: &[String]) -> String {
    if names.is_empty() {
        format!("it has no {what}")
    } else {
        format!("{what}: {}", names.join(", "))
    }
}

/// kube-rs's text for `e` on one line: without what the error around it says already (the
/// path, in Rust's debug quoting), Rust's `(os error N)`, or the YAML parser's source excerpt
/// below its message.
fn describe(e: &KubeconfigError) -> String {
    match e {
        KubeconfigError::ReadConfig(io, _) => io_text(io),
        KubeconfigError::Parse(parse) => {
            let text = parse.to_string();
            let first = text.lines().next().unwrap_or_default();
            format!(
                "failed to parse kubeconfig YAML: {}",
                first.strip_prefix("error: ").unwrap_or(first)
            )
        }
        other => other.to_string().lines().collect::<Vec<_>>().join(" "),
    }
}

fn io_text(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        std::io::ErrorKind::IsADirectory => "is a directory".to_string(),
        _ => {
            let text = e.to_string();
            match text.find(" (os error ") {
                Some(at) => text[..at].to_string(),
                None => text,
            }
        }
    }
}

/// What the resolution reads of the process's environment, gathered in one place so that
/// tests can give their own instead of changing the process's.
#[derive(Debug, Clone, Default)]
pub(crate) struct Environment {
    /// `KUBECONFIG`, when set.
    pub kubeconfig: Option<OsString>,
    /// The home directory, for `~/.kube/config`.
    pub home: Option<PathBuf>,
    /// Whether `KUBERNETES_SERVICE_HOST` is set, which is how a pod knows it runs in a cluster.
    pub in_cluster: bool,
}

impl Environment {
    pub(crate) fn current() -> Environment {
        Environment {
            kubeconfig: std::env::var_os("KUBECONFIG"),
            home: std::env::home_dir(),
            in_cluster: std::env::var_os("KUBERNETES_SERVICE_HOST").is_some_and(|h| !h.is_empty()),
        }
    }

    /// The kubeconfig files to merge without `--kubeconfig`, in order, and where that
    /// looked.
    fn candidates(&self) -> (Vec<PathBuf>, Searched) {
        // An empty KUBECONFIG, or one of only separators, counts as unset (client-go's
        // `len(os.Getenv(...)) != 0`, after which empty entries are skipped).
        let listed: Vec<PathBuf> = self
            .kubeconfig
            .iter()
            .flat_map(std::env::split_paths)
            .filter(|p| !p.as_os_str().is_empty())
            .collect();
        if !listed.is_empty() {
            let mut unique: Vec<PathBuf> = Vec::new();
            for path in listed {
                if !unique.contains(&path) {
                    unique.push(path);
                }
            }
            let searched = Searched::KubeconfigVariable(unique.clone());
            return (unique, searched);
        }
        match &self.home {
            Some(home) => {
                let path = home.join(".kube").join("config");
                (vec![path.clone()], Searched::Home(path))
            }
            None => (Vec::new(), Searched::NoHome),
        }
    }
}

/// The merged kubeconfig of the files that exist, and those files; where it looked when
/// none does. A `--kubeconfig` file must exist; files `KUBECONFIG` lists that do not are
/// skipped, as kubectl skips them.
fn read_kubeconfig(
    target: &Target,
    env: &Environment,
) -> Result<Result<(Kubeconfig, KubeconfigFiles), Searched>, TargetError> {
    let read = |path: &Path| {
        Kubeconfig::read_from(path).map_err(|source| TargetError::Read {
            path: path.to_path_buf(),
            source,
        })
    };
    if let Some(path) = &target.kubeconfig {
        if !exists(path) {
            return Err(TargetError::KubeconfigMissing { path: path.clone() });
        }
        return Ok(Ok((read(path)?, KubeconfigFiles(vec![path.clone()]))));
    }
    let (candidates, searched) = env.candidates();
    let mut merged: Option<Kubeconfig> = None;
    let mut files = Vec::new();
    for path in candidates.into_iter().filter(|p| exists(p)) {
        let config = read(&path)?;
        files.push(path);
        merged = Some(match merged {
            None => config,
            Some(earlier) => earlier.merge(config).map_err(|source| TargetError::Merge {
                files: KubeconfigFiles(files.clone()),
                source,
            })?,
        });
    }
    Ok(merged
        .map(|config| (config, KubeconfigFiles(files)))
        .ok_or(searched))
}

/// Whether something is at `path`. One that cannot be looked at (no permission on a
/// directory above it) counts as existing, so that reading it says why it cannot be read.
fn exists(path: &Path) -> bool {
    match std::fs::metadata(path) {
        Ok(_) => true,
        Err(e) => e.kind() != std::io::ErrorKind::NotFound,
    }
}

/// What the chosen context says that kube-rs's configuration does not keep as written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ContextDetails {
    /// The cluster's `server`, as written (None in a cluster, without a kubeconfig).
    pub server: Option<String>,
    /// The context's `namespace`, when it sets one.
    pub namespace: Option<String>,
}

/// The kube-rs configuration for `target`, reading `env` instead of the process's
/// environment (see [`Environment::current`]).
#[cfg(test)]
pub(crate) async fn config(
    target: &Target,
    env: &Environment,
) -> Result<kube::Config, TargetError> {
    resolve(target, env).await.map(|(config, _)| config)
}

/// [`config`], with what the context says as written.
pub(crate) async fn resolve(
    target: &Target,
    env: &Environment,
) -> Result<(kube::Config, ContextDetails), TargetError> {
    let (kubeconfig, files) = match read_kubeconfig(target, env)? {
        Ok(found) => found,
        Err(searched) => {
            if let Some(context) = &target.context {
                return Err(TargetError::NoKubeconfigForContext {
                    context: context.clone(),
                    searched,
                });
            }
            if !env.in_cluster {
                return Err(TargetError::NoConfiguration { searched });
            }
            return kube::Config::incluster()
                .map(|config| (config, ContextDetails::default()))
                .map_err(TargetError::InCluster);
        }
    };
    let available: Vec<String> = kubeconfig.contexts.iter().map(|c| c.name.clone()).collect();
    let context = match target
        .context
        .clone()
        .or_else(|| kubeconfig.current_context.clone().filter(|c| !c.is_empty()))
    {
        Some(context) => context,
        None => return Err(TargetError::NoCurrentContext { files, available }),
    };
    let Some(named) = kubeconfig.contexts.iter().find(|c| c.name == context) else {
        return Err(TargetError::ContextNotFound {
            context,
            files,
            available,
        });
    };
    // Said here in client-go's words: kube-rs names only the cluster.
    let cluster = named
        .context
        .as_ref()
        .map(|c| c.cluster.clone())
        .unwrap_or_default();
    let Some(named_cluster) = kubeconfig.clusters.iter().find(|c| c.name == cluster) else {
        return Err(TargetError::ClusterNotFound {
            cluster,
            context,
            files,
        });
    };
    let details = ContextDetails {
        server: named_cluster
            .cluster
            .as_ref()
            .and_then(|c| c.server.clone())
            .filter(|s| !s.is_empty()),
        namespace: named
            .context
            .as_ref()
            .and_then(|c| c.namespace.clone())
            .filter(|n| !n.is_empty()),
    };
    let options = KubeConfigOptions {
        context: Some(context.clone()),
        ..KubeConfigOptions::default()
    };
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .map_err(|source| TargetError::Context {
            context,
            files,
            source,
        })?;
    Ok((config, details))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory of its own under the system's temporary directory, removed when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(name: &str) -> TempDir {
            let dir = std::env::temp_dir().join(format!(
                "bosun-target-{name}-{}-{}",
                std::process::id(),
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos())
                    .unwrap_or(0)
            ));
            std::fs::create_dir_all(&dir).expect("a temporary directory");
            TempDir(dir)
        }

        fn write(&self, name: &str, text: &str) -> PathBuf {
            let path = self.0.join(name);
            std::fs::write(&path, text).expect("writing a kubeconfig");
            path
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A kubeconfig with one context per `(context, cluster, server)`, the first current.
    fn kubeconfig(entries: &[(&str, &str, &str)], current: Option<&str>) -> String {
        let mut text = String::from("apiVersion: v1\nkind: Config\nclusters:\n");
        for (_, cluster, server) in entries {
            text += &format!("- name: {cluster}\n  cluster:\n    server: {server}\n");
        }
        text += "users:\n";
        for (context, _, _) in entries {
            text += &format!("- name: {context}-user\n  user:\n    token: t-{context}\n");
        }
        text += "contexts:\n";
        for (context, cluster, _) in entries {
            text += &format!(
                "- name: {context}\n  context:\n    cluster: {cluster}\n    user: {context}-user\n    namespace: ns-{context}\n"
            );
        }
        if let Some(current) = current {
            text += &format!("current-context: {current}\n");
        }
        text
    }

    fn run<T>(future: impl std::future::Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime")
            .block_on(future)
    }

    fn resolve(target: &Target, env: &Environment) -> Result<kube::Config, TargetError> {
        run(config(target, env))
    }

    fn server(config: &kube::Config) -> String {
        config.cluster_url.to_string()
    }

    fn no_env() -> Environment {
        Environment::default()
    }

    fn two_contexts(dir: &TempDir) -> PathBuf {
        dir.write(
            "two",
            &kubeconfig(
                &[
                    ("red", "red-cluster", "https://red.example:6443"),
                    ("blue", "blue-cluster", "https://blue.example:6443"),
                ],
                Some("red"),
            ),
        )
    }

    /// The server as written (no `/` added) and the namespace only when the context sets one.
    #[test]
    fn details_are_the_contexts_own_words() {
        let dir = TempDir::new("details");
        let path = two_contexts(&dir);
        let target = Target {
            kubeconfig: Some(path),
            context: Some("blue".into()),
            ..Target::default()
        };
        let (_, details) = run(super::resolve(&target, &no_env())).expect("context blue");
        assert_eq!(
            details,
            ContextDetails {
                server: Some("https://blue.example:6443".into()),
                namespace: Some("ns-blue".into()),
            }
        );
        let bare = dir.write(
            "bare",
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://c.example\ncontexts:\n- name: x\n  context:\n    cluster: c\ncurrent-context: x\n",
        );
        let target = Target {
            kubeconfig: Some(bare),
            context: None,
            ..Target::default()
        };
        let (config, details) = run(super::resolve(&target, &no_env())).expect("context x");
        assert_eq!(details.namespace, None);
        assert_eq!(config.default_namespace, "default");
    }

    #[test]
    fn context_flag_picks_the_named_context() {
        let dir = TempDir::new("pick");
        let path = two_contexts(&dir);
        let flag = |context: Option<&str>| Target {
            kubeconfig: Some(path.clone()),
            context: context.map(str::to_string),
            ..Target::default()
        };
        let current = resolve(&flag(None), &no_env()).expect("current context");
        assert_eq!(server(&current), "https://red.example:6443/");
        assert_eq!(current.default_namespace, "ns-red");
        let blue = resolve(&flag(Some("blue")), &no_env()).expect("context blue");
        assert_eq!(server(&blue), "https://blue.example:6443/");
        assert_eq!(blue.default_namespace, "ns-blue");
    }

    #[test]
    fn unknown_context_names_it_and_the_ones_there_are() {
        let dir = TempDir::new("unknown");
        let path = two_contexts(&dir);
        let target = Target {
            kubeconfig: Some(path.clone()),
            context: Some("green".into()),
            ..Target::default()
        };
        let error = resolve(&target, &no_env()).expect_err("no context green");
        assert_eq!(
            error.to_string(),
            format!(
                "context \"green\" was not found in kubeconfig {} (contexts: red, blue)",
                path.display()
            )
        );
    }

    #[test]
    fn missing_kubeconfig_flag_file_names_the_path() {
        let dir = TempDir::new("missing");
        let path = dir.0.join("nope");
        let target = Target {
            kubeconfig: Some(path.clone()),
            context: None,
            ..Target::default()
        };
        // Even with a usable KUBECONFIG: the flag replaces it.
        let env = Environment {
            kubeconfig: Some(two_contexts(&dir).into_os_string()),
            ..no_env()
        };
        let error = resolve(&target, &env).expect_err("the file is missing");
        assert_eq!(
            error.to_string(),
            format!(
                "kubeconfig {} given by --kubeconfig does not exist",
                path.display()
            )
        );
    }

    #[test]
    fn kubeconfig_flag_wins_over_the_variable() {
        let dir = TempDir::new("flag");
        let flag = dir.write(
            "flag",
            &kubeconfig(&[("f", "f", "https://flag.example")], Some("f")),
        );
        let env = Environment {
            kubeconfig: Some(two_contexts(&dir).into_os_string()),
            ..no_env()
        };
        let target = Target {
            kubeconfig: Some(flag),
            context: None,
            ..Target::default()
        };
        assert_eq!(
            server(&resolve(&target, &env).expect("the flag's")),
            "https://flag.example/"
        );
    }

    #[test]
    fn kubeconfig_list_merges_first_file_first() {
        let dir = TempDir::new("merge");
        // Both name the context `shared` and the cluster `c`; each has one of its own, and
        // only the second sets a current-context until the first does too.
        let first = dir.write(
            "first",
            &kubeconfig(
                &[
                    ("shared", "c", "https://first.example"),
                    ("only-first", "c1", "https://one.example"),
                ],
                None,
            ),
        );
        let second = dir.write(
            "second",
            &kubeconfig(
                &[
                    ("shared", "c", "https://second.example"),
                    ("only-second", "c2", "https://two.example"),
                ],
                Some("only-second"),
            ),
        );
        let missing = dir.0.join("missing");
        let list = |paths: &[&Path]| Environment {
            kubeconfig: Some(std::env::join_paths(paths).expect("a path list")),
            ..no_env()
        };
        let env = list(&[&missing, &first, &second]);
        let named = |context: &str| Target {
            context: Some(context.into()),
            ..Target::default()
        };
        // The first file's `shared` (and its cluster `c`) wins; a missing file is skipped.
        assert_eq!(
            server(&resolve(&named("shared"), &env).expect("shared")),
            "https://first.example/"
        );
        assert_eq!(
            server(&resolve(&named("only-second"), &env).expect("only-second")),
            "https://two.example/"
        );
        // The only current-context set is the second file's.
        assert_eq!(
            server(&resolve(&Target::default(), &env).expect("current")),
            "https://two.example/"
        );
        // In the other order, the second file's `shared` wins.
        let env = list(&[&second, &first]);
        assert_eq!(
            server(&resolve(&named("shared"), &env).expect("shared")),
            "https://second.example/"
        );
        // The first file to set current-context wins.
        let first_current = dir.write(
            "first-current",
            &kubeconfig(
                &[("only-first", "c1", "https://one.example")],
                Some("only-first"),
            ),
        );
        let env = list(&[&first_current, &second]);
        assert_eq!(
            server(&resolve(&Target::default(), &env).expect("current")),
            "https://one.example/"
        );
        let error = resolve(&named("nope"), &env).expect_err("no context nope");
        assert_eq!(
            error.to_string(),
            format!(
                "context \"nope\" was not found in kubeconfig {}, {} (contexts: only-first, shared, only-second)",
                first_current.display(),
                second.display()
            )
        );
    }

    #[test]
    fn home_config_when_the_variable_is_unset_or_empty() {
        let dir = TempDir::new("home");
        std::fs::create_dir_all(dir.0.join(".kube")).expect(".kube");
        dir.write(
            ".kube/config",
            &kubeconfig(&[("h", "h", "https://home.example")], Some("h")),
        );
        for kubeconfig in [None, Some(OsString::new()), Some(OsString::from(":"))] {
            let env = Environment {
                kubeconfig,
                home: Some(dir.0.clone()),
                in_cluster: false,
            };
            assert_eq!(
                server(&resolve(&Target::default(), &env).expect("the home config")),
                "https://home.example/"
            );
        }
    }

    #[test]
    fn no_configuration_says_where_it_looked() {
        let dir = TempDir::new("none");
        let env = Environment {
            kubeconfig: None,
            home: Some(dir.0.clone()),
            in_cluster: false,
        };
        let error = resolve(&Target::default(), &env).expect_err("nothing to use");
        assert_eq!(
            error.to_string(),
            format!(
                "no cluster configuration: KUBECONFIG is not set and {} does not exist, and not running inside a cluster; pass --kubeconfig or set KUBECONFIG",
                dir.0.join(".kube/config").display()
            )
        );
        let listed = dir.0.join("a");
        let env = Environment {
            kubeconfig: Some(listed.clone().into_os_string()),
            ..env
        };
        let error = resolve(&Target::default(), &env).expect_err("nothing to use");
        assert_eq!(
            error.to_string(),
            format!(
                "no cluster configuration: none of the files KUBECONFIG lists exists ({}), and not running inside a cluster; pass --kubeconfig or set KUBECONFIG",
                listed.display()
            )
        );
        // A context asked for is never looked for in the cluster's service account.
        let env = Environment {
            in_cluster: true,
            ..env
        };
        let target = Target {
            context: Some("red".into()),
            ..Target::default()
        };
        let error = resolve(&target, &env).expect_err("no kubeconfig for the context");
        assert_eq!(
            error.to_string(),
            format!(
                "context \"red\" was not found: none of the files KUBECONFIG lists exists ({})",
                listed.display()
            )
        );
    }

    #[test]
    fn other_problems_name_the_file_and_context() {
        let dir = TempDir::new("problems");
        let no_current = dir.write(
            "no-current",
            &kubeconfig(&[("a", "ca", "https://a.example")], None),
        );
        let flag = |path: &Path| Target {
            kubeconfig: Some(path.to_path_buf()),
            context: None,
            ..Target::default()
        };
        assert_eq!(
            resolve(&flag(&no_current), &no_env())
                .expect_err("no current context")
                .to_string(),
            format!(
                "kubeconfig {} sets no current-context; pick one with --context (contexts: a)",
                no_current.display()
            )
        );
        let dangling = dir.write(
            "dangling",
            "apiVersion: v1\nkind: Config\ncontexts:\n- name: x\n  context:\n    cluster: gone\ncurrent-context: x\n",
        );
        assert_eq!(
            resolve(&flag(&dangling), &no_env())
                .expect_err("no cluster")
                .to_string(),
            format!(
                "cluster \"gone\" was not found for context \"x\" in kubeconfig {}",
                dangling.display()
            )
        );
        let no_server = dir.write(
            "no-server",
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {}\ncontexts:\n- name: x\n  context:\n    cluster: c\ncurrent-context: x\n",
        );
        assert_eq!(
            resolve(&flag(&no_server), &no_env())
                .expect_err("no server")
                .to_string(),
            format!(
                "kubeconfig {}, context \"x\": cluster url is missing on selected cluster",
                no_server.display()
            )
        );
        let unreadable = dir.write("bad", "clusters: [\n");
        assert_eq!(
            resolve(&flag(&unreadable), &no_env())
                .expect_err("not YAML")
                .to_string(),
            format!(
                "reading kubeconfig {}: failed to parse kubeconfig YAML: line 1 column 11: unclosed bracket '['",
                unreadable.display()
            )
        );
        let directory = Target {
            kubeconfig: Some(dir.0.clone()),
            context: None,
            ..Target::default()
        };
        assert_eq!(
            resolve(&directory, &no_env())
                .expect_err("a directory")
                .to_string(),
            format!("reading kubeconfig {}: is a directory", dir.0.display())
        );
    }
}
