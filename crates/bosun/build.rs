//! Links the `bosun` executable as a fixed-address (non-PIE) program on Linux. A PIE binary of
//! this size has about 30,000 relocations for the dynamic loader to apply at every start, which
//! is a millisecond a command, a tenth of a small `helm template`.

fn main() {
    let linux_gnu = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux")
        && std::env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu");
    if linux_gnu {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
