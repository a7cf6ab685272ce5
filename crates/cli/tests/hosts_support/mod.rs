//! Shared helpers for the host-integration tests: a temp HOME, TMPDIR, TOKENJUICE_HOME and
//! project, a command runner with a scrubbed environment and history off (so nothing reads or
//! writes the machine's own agent configs, temp marks or tokenjuice store), and JSON helpers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use serde_json::Value;

pub const BIN: &str = env!("CARGO_BIN_EXE_tokenjuice");

pub struct World {
    pub tmp: tempfile::TempDir,
    pub home: PathBuf,
    pub project: PathBuf,
    pub vars: Vec<(String, String)>,
}

/// The system PATH for shells, without any user directory that might hold a tokenjuice.
pub fn system_path() -> String {
    "/usr/local/bin:/usr/bin:/bin".to_string()
}

impl World {
    /// Fresh temp dirs; `TMPDIR` and `TOKENJUICE_HOME` point inside them and history is off
    /// (`TOKENJUICE_STATS=0`). `set` can override any of these.
    pub fn new() -> World {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let home = root.join("home");
        let project = root.join("project");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(project.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("tmpdir")).unwrap();
        let vars = vec![
            (
                "TMPDIR".to_string(),
                root.join("tmpdir").display().to_string(),
            ),
            (
                "TOKENJUICE_HOME".to_string(),
                root.join("tokenjuice-home").display().to_string(),
            ),
            ("TOKENJUICE_STATS".to_string(), "0".to_string()),
        ];
        World {
            tmp,
            home,
            project,
            vars,
        }
    }

    /// The temp directory `TMPDIR` points at (streaming marks land here).
    pub fn tmpdir(&self) -> PathBuf {
        std::fs::canonicalize(self.tmp.path())
            .unwrap()
            .join("tmpdir")
    }

    pub fn set(&mut self, k: &str, v: impl Into<String>) -> &mut World {
        self.vars.push((k.to_string(), v.into()));
        self
    }

    /// `tokenjuice <args>` with only HOME, PATH, SHELL, the project dir and the vars set.
    pub fn cmd(&self, args: &[&str]) -> Command {
        Command::from_std(self.std_cmd(args))
    }

    /// [`World::cmd`] as a `std` command, for a test that spawns it with its own stdio.
    pub fn std_cmd(&self, args: &[&str]) -> std::process::Command {
        let mut c = std::process::Command::new(BIN);
        c.env_clear()
            .env("HOME", &self.home)
            .env("PATH", system_path())
            .env("SHELL", "/bin/bash")
            .env("TOKENJUICE_PROJECT_DIR", &self.project)
            .current_dir(&self.project)
            .args(args);
        for (k, v) in &self.vars {
            c.env(k, v);
        }
        c
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().expect("run tokenjuice")
    }

    pub fn run_stdin(&self, args: &[&str], stdin: &str) -> Output {
        self.cmd(args)
            .write_stdin(stdin.to_string())
            .output()
            .expect("run tokenjuice")
    }

    pub fn write(&self, path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    pub fn read(&self, path: &Path) -> String {
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
    }

    pub fn json(&self, path: &Path) -> Value {
        serde_json::from_str(&self.read(path))
            .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
    }
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The one JSON object a hook printed.
pub fn answer(o: &Output) -> Value {
    assert_eq!(
        o.status.code(),
        Some(0),
        "hooks always exit 0: {}",
        stderr(o)
    );
    let s = stdout(o);
    assert_eq!(s.lines().count(), 1, "one line of JSON: {s:?}");
    serde_json::from_str(s.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {s}"))
}

/// The launcher path tests install: the binary under test.
pub fn launcher() -> String {
    std::fs::canonicalize(BIN)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// Runs a shell command line (as a host would) and returns (stdout+stderr, exit code). The
/// temp directory and tokenjuice's store are under `home`, and history is off.
pub fn run_shell(line: &str, home: &Path) -> (String, i32) {
    let out = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(format!("{{ {line}\n}} 2>&1"))
        .env_clear()
        .env("HOME", home)
        .env("PATH", system_path())
        .env("TMPDIR", home)
        .env("TOKENJUICE_HOME", home.join(".tokenjuice-test"))
        .env("TOKENJUICE_STATS", "0")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run shell");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// Every file under `dir`, recursively (the streaming marks live in
/// `$TMPDIR/tokenjuice-<uid>/stream`).
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// With `host` installed (`--local`) and its route script at `script`: the script as an older
/// tokenjuice wrote it (`older` of the current text) makes doctor warn and name the fix;
/// installing again writes the current script back and doctor is ok.
pub fn doctor_warns_of_an_older_script(
    w: &World,
    host: &str,
    script: &Path,
    older: impl Fn(&str) -> String,
) {
    let text = w.read(script);
    let old = older(&text);
    assert_ne!(old, text, "the older script must differ");
    std::fs::write(script, &old).unwrap();
    let report = stdout(&w.run(&["doctor", host]));
    assert!(
        report.contains("was written by an older tokenjuice")
            && report.contains(&format!("run `tokenjuice install {host}`"))
            && !report.contains("health: ok"),
        "{report}"
    );
    assert!(w.run(&["install", host, "--local"]).status.success());
    assert_eq!(w.read(script), text, "install writes the current script");
    let report = stdout(&w.run(&["doctor", host]));
    assert!(
        !report.contains("older tokenjuice") && report.contains("health: ok"),
        "{report}"
    );
}
