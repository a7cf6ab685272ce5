//! Helpers for CLI tests: the real binary with an isolated HOME and config dirs.
#![allow(dead_code)]

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// A sandbox: temp HOME, XDG dirs and a working directory.
pub struct Sandbox {
    pub dir: TempDir,
}

impl Sandbox {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        for d in ["home", "config", "data", "work"] {
            std::fs::create_dir_all(dir.path().join(d)).expect("mkdir");
        }
        Sandbox { dir }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    pub fn work(&self) -> PathBuf {
        self.path("work")
    }

    /// `tokenjuice` with HOME/XDG pointing into the sandbox, run in `work/`.
    pub fn cmd(&self) -> Command {
        let mut c = Command::cargo_bin("tokenjuice").expect("binary built");
        c.current_dir(self.work())
            .env("HOME", self.path("home"))
            .env("XDG_CONFIG_HOME", self.path("config"))
            .env("XDG_DATA_HOME", self.path("data"))
            .env("TOKENJUICE_HOME", self.path("data/tokenjuice"))
            .env_remove("TOKENJUICE_NO_OMISSION")
            .env_remove("TOKENJUICE_DEBUG_PANIC");
        c
    }

    /// `cmd()` with no history/store settings inherited from the caller, and history written
    /// straight to the database (no batching through the spool), so tests can read it after
    /// each run.
    pub fn store_cmd(&self) -> Command {
        let mut c = self.cmd();
        for v in [
            "TOKENJUICE_STATS",
            "TOKENJUICE_STORE",
            "TOKENJUICE_STATS_COMMANDS",
            "TOKENJUICE_STATS_BUSY_MS",
            "TOKENJUICE_RETENTION_DAYS",
            "TOKENJUICE_RETENTION_MB",
            "TOKENJUICE_ARTIFACT_MAX_MB",
            "TOKENJUICE_CODEBUDDY_STORE",
            "NO_COLOR",
        ] {
            c.env_remove(v);
        }
        c.env("TOKENJUICE_STATS_BATCH_KB", "0");
        c
    }

    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.path(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&p, text).expect("write");
        p
    }
}

pub fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("tokenjuice")
}

pub fn exists(p: &Path) -> bool {
    p.exists()
}

/// Is a process with this pid still alive (and not a zombie)?
pub fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => !s
            .split(") ")
            .nth(1)
            .is_some_and(|rest| rest.starts_with('Z')),
        Err(_) => false,
    }
}
