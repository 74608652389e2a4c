//! The process's one async runtime, for every command that talks to a cluster.

use std::sync::OnceLock;
use std::time::Duration;

use crate::mesh::MeshFailure;

/// The async runtime, built the first time a command asks for it and then the same one: main
/// makes one of these and hands it down. Commands that never touch a cluster (`manifest
/// generate`, `helm template`) never build it, so their start stays as short as it is.
#[derive(Default)]
pub struct Runtime(OnceLock<tokio::runtime::Runtime>);

impl Runtime {
    /// The runtime, built now if it was not yet.
    pub fn get(&self) -> Result<&tokio::runtime::Runtime, MeshFailure> {
        if let Some(runtime) = self.0.get() {
            return Ok(runtime);
        }
        let built = build().map_err(|e| MeshFailure(format!("starting the async runtime: {e}")))?;
        Ok(self.0.get_or_init(|| built))
    }
}

/// One thread drives everything (every command's work is I/O; the operator's renders go to
/// tokio's blocking pool), which keeps the idle operator small. The blocking pool is what the
/// operator needs, and harmless to the other commands, which block on nothing but the
/// resolver's occasional DNS lookup.
fn build() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        // One blocking thread (renders, one at a time), kept for good: a new thread per
        // render would leave its allocator heap behind each time (mimalloc abandons a
        // finished thread's pages that another thread still frees into), and the operator's
        // memory would creep up with every reconcile (BENCHMARKS.md).
        .max_blocking_threads(1)
        .thread_keep_alive(Duration::from_secs(24 * 3600))
        .build()
}
