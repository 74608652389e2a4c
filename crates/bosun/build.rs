//! Links the `bosun` executable as a fixed-address (non-PIE) program on Linux. A PIE binary of
//! this size has about 30,000 relocations for the dynamic loader to apply at every start, which
//! is a millisecond a command, a tenth of a small `helm template`.
//!
//! It also links GCC's unwinder into the executable instead of loading `libgcc_s.so` at every
//! start, as `-static-libgcc` does for a C program: loading that library cost 0.17 ms a
//! command on the VM we measure (1.98 vs 1.81 ms for `bosun --version`), most of it its
//! constructor asking the CPU for its features, a trap to the hypervisor there.

use std::path::{Path, PathBuf};

fn main() {
    let linux_gnu = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux")
        && std::env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu");
    if linux_gnu {
        println!("cargo:rustc-link-arg-bins=-no-pie");
        if let Some(dir) = static_unwinder() {
            println!("cargo:rustc-link-search=native={}", dir.display());
        }
    }
}

/// A directory that holds GCC's static unwinder (`libgcc_eh.a`) as `libgcc_s.a`. Rust's
/// standard library asks the linker for `-lgcc_s` by name; searched first, this directory
/// answers with the archive. `None` (the executable loads libgcc_s as before) when the C
/// compiler has no `libgcc_eh.a`.
fn static_unwinder() -> Option<PathBuf> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let found = std::process::Command::new(cc)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .ok()?;
    // The compiler prints the bare name when it has no such file.
    let archive = PathBuf::from(String::from_utf8(found.stdout).ok()?.trim());
    if !found.status.success() || !archive.is_absolute() || !archive.is_file() {
        return None;
    }
    let dir = Path::new(&std::env::var("OUT_DIR").ok()?).join("static-unwinder");
    std::fs::create_dir_all(&dir).ok()?;
    std::fs::copy(&archive, dir.join("libgcc_s.a")).ok()?;
    Some(dir)
}
