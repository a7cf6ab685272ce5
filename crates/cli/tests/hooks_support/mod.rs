//! Shared helpers for the `tokenjuice hooks` CLI tests: a temp HOME and project, settings
//! writers per host, and a runner that returns the exit code and parsed JSON report.
//! Nothing here touches the real home directory.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use serde_json::Value;

pub struct World {
    pub tmp: tempfile::TempDir,
    pub home: PathBuf,
    pub project: PathBuf,
}

pub fn fixture(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hooks")
        .join(name);
    assert!(p.exists(), "missing fixture {}", p.display());
    p.display().to_string()
}

/// `python3 '<fixture>'` / `sh '<fixture>'` with optional extra args.
pub fn py(name: &str) -> String {
    format!("python3 '{}'", fixture(name))
}

pub fn sh(name: &str, args: &[&str]) -> String {
    let mut s = format!("sh '{}'", fixture(name));
    for a in args {
        s.push_str(&format!(" '{a}'"));
    }
    s
}

impl World {
    pub fn new() -> World {
        let tmp = tempfile::tempdir().expect("tempdir");
        let home = tmp.path().join("home");
        let project = tmp.path().join("project");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        // Canonical paths: the CLI canonicalizes --project.
        let project = std::fs::canonicalize(&project).unwrap();
        let home = std::fs::canonicalize(&home).unwrap();
        World { tmp, home, project }
    }

    pub fn write(&self, path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    pub fn write_json(&self, path: &Path, v: &Value) {
        self.write(path, &serde_json::to_string_pretty(v).unwrap());
    }

    /// Codex runs a hook only once the user trusted it: the records Codex writes then, for
    /// every command hook of `hooks` (the `hooks` object of `file`, as JSON), added to the
    /// `config.toml` in `codex_home` (`None`: `~/.codex`).
    #[allow(dead_code)]
    pub fn trust_codex_hooks(&self, codex_home: Option<&Path>, file: &Path, hooks: &Value) {
        let dir = codex_home.map_or_else(|| self.home.join(".codex"), Path::to_path_buf);
        let config = dir.join("config.toml");
        let mut text = std::fs::read_to_string(&config).unwrap_or_default();
        text.push_str(&tokenjuice_hooks::engine::codex_trust::trust_records_toml(
            file, hooks,
        ));
        self.write(&config, &text);
    }

    /// Codex loads a project's `.codex` folder only once the user trusted the project: its
    /// `[projects."<path>"] trust_level = "trusted"`, added to the `config.toml` in
    /// `codex_home` (`None`: `~/.codex`).
    #[allow(dead_code)]
    pub fn trust_codex_project(&self, codex_home: Option<&Path>) {
        let dir = codex_home.map_or_else(|| self.home.join(".codex"), Path::to_path_buf);
        let config = dir.join("config.toml");
        let mut text = std::fs::read_to_string(&config).unwrap_or_default();
        text.push_str(&format!(
            "\n[projects.{}]\ntrust_level = \"trusted\"\n",
            Value::from(self.project.display().to_string())
        ));
        self.write(&config, &text);
    }

    /// Gemini runs a project's hooks only in a folder it trusts: a `TRUST_FOLDER` rule for
    /// the project in `~/.gemini/trustedFolders.json`, as Gemini writes when the user
    /// trusts it.
    #[allow(dead_code)]
    pub fn trust_gemini_folder(&self) {
        self.write_json(
            &self.home.join(".gemini/trustedFolders.json"),
            &serde_json::json!({ self.project.display().to_string(): "TRUST_FOLDER" }),
        );
    }

    pub fn cmd(&self) -> Command {
        let mut c = Command::cargo_bin("tokenjuice").unwrap();
        c.env("HOME", &self.home)
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env_remove("CODEBUDDY_PROJECT_DIR")
            .env_remove("CLAUDE_PROJECT_DIR")
            .env_remove("CURSOR_PROJECT_DIR")
            .env_remove("GEMINI_PROJECT_DIR")
            .env_remove("GEMINI_CLI_HOME")
            .env_remove("GEMINI_CLI_TRUST_WORKSPACE")
            .env_remove("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
            .env_remove("GEMINI_RESTRICTED_MODE")
            .current_dir(&self.project)
            .timeout(Duration::from_secs(60));
        c
    }

    /// `tokenjuice hooks run EVENT --host HOST --project P --format json ARGS…`
    pub fn run(&self, host: &str, event: &str, args: &[&str]) -> (i32, Value) {
        let out = self
            .cmd()
            .args([
                "hooks",
                "run",
                event,
                "--host",
                host,
                "--format",
                "json",
                "--session-id",
                "sess-1",
            ])
            .arg("--project")
            .arg(&self.project)
            .args(args)
            .output()
            .unwrap();
        let code = out.status.code().unwrap_or(-1);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let v: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}); exit {code}\nstdout:\n{stdout}\nstderr:\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (code, v)
    }
}

/// A matcher group with one command handler.
pub fn group(matcher: Option<&str>, command: &str, timeout: Option<f64>) -> Value {
    let mut h = serde_json::json!({"type": "command", "command": command});
    if let Some(t) = timeout {
        h["timeout"] = serde_json::json!(t);
    }
    match matcher {
        Some(m) => serde_json::json!({"matcher": m, "hooks": [h]}),
        None => serde_json::json!({"hooks": [h]}),
    }
}

pub fn pid_alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => !s
            .rsplit_once(") ")
            .map(|(_, r)| r.starts_with('Z'))
            .unwrap_or(false),
        Err(_) => false,
    }
}

pub fn read_pid(path: &Path) -> i32 {
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        if let Ok(s) = std::fs::read_to_string(path) {
            if let Ok(p) = s.trim().parse() {
                return p;
            }
        }
        assert!(
            std::time::Instant::now() < deadline,
            "pid file {} never written",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub fn wait_gone(pid: i32) -> bool {
    let deadline = std::time::Instant::now() + Duration::from_secs(3);
    while pid_alive(pid) && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    !pid_alive(pid)
}
