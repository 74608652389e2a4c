//! `bosun mesh ca`: a shared root of trust for a multi-cluster mesh, written as Istio's cert
//! tooling writes it (`make -f Makefile.selfsigned.mk root-ca <cluster>-cacerts`): `DIR/root-
//! cert.pem` and `DIR/root-key.pem`, and per cluster `DIR/<cluster>/{ca-cert.pem, ca-key.pem,
//! cert-chain.pem, root-cert.pem}`, ready for `kubectl create secret generic cacerts
//! --from-file=DIR/<cluster>`. The certificates are `manifest::cacerts`'s. Private keys are
//! written with mode 0600 and never printed.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use manifest::cacerts::{self, KeyType};

use crate::mesh::MeshFailure;

#[derive(Args, Debug)]
pub struct CaArgs {
    /// A cluster to make an intermediate CA for (repeat for each; a DNS-1123 label, used as
    /// the certificate's L= and the directory's name).
    #[arg(long = "cluster", required = true)]
    pub clusters: Vec<String>,
    /// The directory to write to; it must not hold files of an earlier CA (nothing is
    /// replaced).
    #[arg(long = "out", value_name = "DIR")]
    pub out: PathBuf,
    /// The key type of the new keys: p256 (ECDSA P-256, fast) or rsa4096 (Istio's Makefiles'
    /// choice; seconds per key).
    #[arg(long = "key-type", default_value = "p256", value_parser = ["p256", "rsa4096"])]
    pub key_type: String,
}

fn write_new(path: &Path, text: &str, private: bool) -> Result<(), MeshFailure> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    if private {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    #[cfg(not(unix))]
    let _ = private;
    let mut file = options.open(path).map_err(|e| {
        MeshFailure(format!(
            "writing {}: {}",
            path.display(),
            crate::io_error_text(&e)
        ))
    })?;
    file.write_all(text.as_bytes()).map_err(|e| {
        MeshFailure(format!(
            "writing {}: {}",
            path.display(),
            crate::io_error_text(&e)
        ))
    })
}

pub fn mesh_ca(args: CaArgs) -> Result<(), MeshFailure> {
    // Every name is checked, and every path found free, before anything is written.
    let mut seen = Vec::new();
    for cluster in &args.clusters {
        manifest::remote_secret::validate_name(cluster).map_err(|_| {
            MeshFailure(format!("cluster name {cluster:?} is not a DNS-1123 label"))
        })?;
        if seen.contains(cluster) {
            return Err(MeshFailure(format!("cluster {cluster:?} is given twice")));
        }
        seen.push(cluster.clone());
    }
    let mut paths = vec![
        args.out.join("root-cert.pem"),
        args.out.join("root-key.pem"),
    ];
    for cluster in &args.clusters {
        paths.push(args.out.join(cluster));
    }
    if let Some(taken) = paths.iter().find(|p| p.exists()) {
        return Err(MeshFailure(format!(
            "{} exists; bosun mesh ca writes a new CA into a directory without one",
            taken.display()
        )));
    }
    let key_type = match args.key_type.as_str() {
        "rsa4096" => KeyType::Rsa4096,
        _ => KeyType::P256,
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or_default();
    // A minute back, so that a cluster whose clock is a little behind accepts them at once.
    let not_before = now - 60;
    let root = cacerts::root(key_type, not_before)?;
    let mut made = Vec::new();
    for cluster in &args.clusters {
        made.push(cacerts::cluster_ca(&root, cluster, key_type, not_before)?);
    }
    std::fs::create_dir_all(&args.out).map_err(|e| {
        MeshFailure(format!(
            "creating {}: {}",
            args.out.display(),
            crate::io_error_text(&e)
        ))
    })?;
    write_new(&args.out.join("root-cert.pem"), &root.cert_pem, false)?;
    write_new(&args.out.join("root-key.pem"), &root.key_pem(), true)?;
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(
        stdout,
        "wrote {} (the root's key: keep it offline, it signs every cluster's CA)",
        args.out.join("root-key.pem").display()
    );
    for ca in &made {
        let dir = args.out.join(&ca.cluster);
        std::fs::create_dir(&dir).map_err(|e| {
            MeshFailure(format!(
                "creating {}: {}",
                dir.display(),
                crate::io_error_text(&e)
            ))
        })?;
        for (name, text) in ca.files() {
            write_new(&dir.join(name), text, name == "ca-key.pem")?;
        }
        let _ = writeln!(
            stdout,
            "wrote {}/{{ca-cert.pem,ca-key.pem,cert-chain.pem,root-cert.pem}} for cluster {}",
            dir.display(),
            ca.cluster
        );
    }
    Ok(())
}

#[derive(Args, Debug)]
pub struct CacertsArgs {
    /// A cluster's directory from `bosun mesh ca` (or Istio's Makefiles): ca-cert.pem,
    /// ca-key.pem, cert-chain.pem and root-cert.pem.
    #[arg(long = "dir", value_name = "DIR")]
    pub dir: PathBuf,
    /// The namespace of istiod (and of the Secret).
    #[arg(short = 'n', long = "namespace", default_value = "istio-system")]
    pub namespace: String,
    /// Replace a `cacerts` that holds another root CA.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub cluster: crate::target::ClusterArgs,
}

/// `bosun mesh cacerts`: the cluster's `cacerts` Secret from a directory of CA files.
pub fn mesh_cacerts(
    args: CacertsArgs,
    runtime: &crate::runtime::Runtime,
) -> Result<(), MeshFailure> {
    let mut files = Vec::new();
    for name in cacerts::FILES {
        let path = args.dir.join(name);
        let text = crate::input::read_text(&path)
            .map_err(|e| MeshFailure(format!("reading {}: {e}", path.display())))?;
        if !text.contains("-----BEGIN ") {
            return Err(MeshFailure(format!(
                "{} holds no PEM block",
                path.display()
            )));
        }
        files.push((name, text));
    }
    let files: Vec<(&str, &str)> = files.iter().map(|(n, t)| (*n, t.as_str())).collect();
    let runtime = runtime.get()?;
    let client = args.cluster.connect(runtime)?;
    let outcome = runtime.block_on(installer::cacerts::apply_cacerts(
        &client,
        &args.namespace,
        &files,
        args.force,
    ))?;
    let said = match outcome {
        installer::cacerts::CacertsOutcome::Created => "created",
        installer::cacerts::CacertsOutcome::Updated => "updated (same root)",
        installer::cacerts::CacertsOutcome::Replaced => "replaced (another root, --force)",
    };
    let _ = writeln!(
        std::io::stdout().lock(),
        "Secret {}/cacerts {said}",
        args.namespace
    );
    Ok(())
}
