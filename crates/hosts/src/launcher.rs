//! The program a hook runs: the `tokenjuice` binary (or a `.js` entry point run by node).

use std::path::PathBuf;

use tokenjuice_core::shell::quote;

use crate::env::Env;
use crate::error::{HostsError, Result};

/// An absolute launcher path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launcher {
    pub path: String,
}

impl Launcher {
    pub fn new(path: impl Into<String>) -> Launcher {
        Launcher { path: path.into() }
    }

    /// A `.js` entry point is run by node so it needs no execute bit.
    pub fn is_node_script(&self) -> bool {
        is_node_script(&self.path)
    }

    /// How to invoke the launcher in a shell command: `'/p/tokenjuice'` or `node '/p/main.js'`.
    pub fn prefix(&self) -> String {
        prefix_for(&self.path)
    }

    /// The hook command a host config holds.
    pub fn hook_command(&self, entry_subcommand: &str) -> String {
        format!("{} {entry_subcommand}", self.prefix())
    }
}

pub fn is_node_script(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.ends_with(".js") || lower.ends_with(".mjs") || lower.ends_with(".cjs")
}

pub fn prefix_for(path: &str) -> String {
    if is_node_script(path) {
        format!("node {}", quote(path))
    } else {
        quote(path)
    }
}

/// `--local`: this very binary. Otherwise the first `tokenjuice` on `PATH` (kept as found,
/// so a package manager's stable shim is used rather than a versioned target), falling back
/// to this binary.
pub fn resolve(local: bool, env: &Env) -> Result<(Launcher, &'static str)> {
    if !local {
        if let Some(p) = env.which("tokenjuice") {
            let abs = if p.is_absolute() { p } else { env.cwd.join(p) };
            return Ok((
                Launcher::new(abs.to_string_lossy().into_owned()),
                "tokenjuice found on PATH",
            ));
        }
    }
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| {
            HostsError::NoLauncher(format!("the running binary's path is unknown ({e})"))
        })?;
    let why = if local {
        "--local: this build"
    } else {
        "tokenjuice is not on PATH; using this binary"
    };
    Ok((Launcher::new(path_string(exe)), why))
}

fn path_string(p: PathBuf) -> String {
    p.to_string_lossy().into_owned()
}
