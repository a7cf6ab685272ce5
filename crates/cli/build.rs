//! Names the build in `tokenjuice --version`: the commit it was built from (with `-dirty`
//! when tracked files had changes; `TOKENJUICE_COMMIT` for builds outside git, e.g. from a
//! source tarball; else "unknown commit"), whether the C runtime is linked in statically
//! (`-C target-feature=+crt-static`), and the target.

use std::path::Path;
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let dir = Path::new(&manifest);
    println!("cargo:rerun-if-env-changed=TOKENJUICE_COMMIT");
    let commit = match std::env::var("TOKENJUICE_COMMIT") {
        Ok(c) if !c.trim().is_empty() => c.trim().to_string(),
        _ => match git(dir, &["rev-parse", "--short=12", "HEAD"]) {
            Some(c) => {
                let dirty = git(dir, &["status", "--porcelain", "--untracked-files=no"])
                    .is_some_and(|s| !s.is_empty());
                // a new commit, a checkout, or any change to the sources reruns this
                for key in ["--git-dir", "--git-common-dir"] {
                    if let Some(g) = git(dir, &["rev-parse", key]) {
                        let g = dir.join(g);
                        println!("cargo:rerun-if-changed={}", g.join("HEAD").display());
                        println!("cargo:rerun-if-changed={}", g.join("refs/heads").display());
                        println!("cargo:rerun-if-changed={}", g.join("packed-refs").display());
                    }
                }
                if let Some(top) = git(dir, &["rev-parse", "--show-toplevel"]) {
                    println!("cargo:rerun-if-changed={top}/crates");
                    println!("cargo:rerun-if-changed={top}/Cargo.toml");
                }
                if dirty {
                    format!("{c}-dirty")
                } else {
                    c
                }
            }
            None => "unknown commit".to_string(),
        },
    };
    let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let linking = if features.split(',').any(|f| f == "crt-static") {
        "static"
    } else {
        "dynamic"
    };
    let target = std::env::var("TARGET").unwrap_or_default();
    println!("cargo:rustc-env=TOKENJUICE_BUILD={commit}, {linking} build, {target}");
}
