//! bosun's cache of install packages: `<root>/istio-<version>/manifests/` for each version
//! (a module version or a release number; the layout `scripts/fetch-istio` shares). A package
//! is written into a scratch directory and renamed into place, so a version's directory is
//! either complete or absent: a failed fetch leaves nothing behind.

use std::path::{Path, PathBuf};

use crate::archive::File;

/// The cache under `root` (the CLI passes `$BOSUN_CACHE`, else `~/.cache/bosun`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cache {
    pub root: PathBuf,
}

/// A write into the cache failed.
#[derive(Debug, thiserror::Error)]
#[error("writing bosun's cache at {}: {source}", path.display())]
pub struct CacheError {
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

impl Cache {
    /// The directory of `version`'s package (which may not exist yet).
    pub fn package_dir(&self, version: &str) -> PathBuf {
        self.root.join(format!("istio-{version}"))
    }

    /// `version`'s `manifests/`, when the cache holds it.
    pub fn manifests(&self, version: &str) -> Option<PathBuf> {
        let dir = self.package_dir(version).join("manifests");
        dir.join("profiles").is_dir().then_some(dir)
    }

    /// Writes `files` as `version`'s package and returns its `manifests/`. When another
    /// process put the version there first, its copy is kept (it was verified as this one was).
    pub fn store(&self, version: &str, files: &[File]) -> Result<PathBuf, CacheError> {
        let dest = self.package_dir(version);
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| CacheError { path, source }
        };
        std::fs::create_dir_all(&self.root).map_err(io(&self.root))?;
        let stage = self
            .root
            .join(format!(".istio-stage-{version}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&stage);
        let written = (|| {
            for file in files {
                let target = stage.join(&file.path);
                if let Some(dir) = target.parent() {
                    std::fs::create_dir_all(dir).map_err(io(dir))?;
                }
                std::fs::write(&target, &file.data).map_err(io(&target))?;
            }
            Ok(())
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_dir_all(&stage);
            return Err(e);
        }
        if let Some(dir) = self.manifests(version) {
            let _ = std::fs::remove_dir_all(&stage);
            return Ok(dir);
        }
        // A directory without manifests/profiles is a broken leftover: replace it.
        let _ = std::fs::remove_dir_all(&dest);
        if let Err(source) = std::fs::rename(&stage, &dest) {
            let _ = std::fs::remove_dir_all(&stage);
            if let Some(dir) = self.manifests(version) {
                return Ok(dir);
            }
            return Err(CacheError { path: dest, source });
        }
        Ok(dest.join("manifests"))
    }
}
