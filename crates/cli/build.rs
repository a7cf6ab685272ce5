//! Link the `tokenjuice` executable as non-PIE on Linux (glibc).
//!
//! Every agent command pays tokenjuice's start-up twice (hook entrypoint, then `wrap`). A
//! position-independent executable makes the dynamic loader apply ~18,000 relocations
//! (the embedded rule tables, Unicode tables, vtables) on every start; a fixed-address
//! executable needs ~140. That is ~0.3 ms per start on the development machine (see the
//! README). Only the executable is affected (libraries and the objects stay PIC); the
//! cost is that the executable's own code is not address-randomized.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
