//! The chart loader on arbitrary input: a `.tgz` archive, a tar gzipped by the harness, or a
//! folder made from a small tar-like layout (files, folders, symbolic links, FIFOs), through
//! `helm::fuzzing::load_input`, the function helm's own bounded test run calls. Must never
//! panic, hang or allocate beyond Helm's limits.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    thread_local! {
        static SCRATCH: std::path::PathBuf =
            std::env::temp_dir().join(format!("bosun-fuzz-chart-loader-{}", std::process::id()));
    }
    SCRATCH.with(|scratch| helm::fuzzing::load_input(input, scratch));
});
