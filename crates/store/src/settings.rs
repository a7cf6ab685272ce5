//! Settings: defaults < `config.toml` `[history]` table < environment variables.
//!
//! ```toml
//! # $XDG_CONFIG_HOME/tokenjuice/config.toml (default ~/.config/tokenjuice/config.toml)
//! [history]
//! enabled = true          # TOKENJUICE_STATS=0|false|no|off turns it off
//! keep_commands = false   # TOKENJUICE_STATS_COMMANDS=1 keeps command lines (secrets redacted)
//! retention_days = 30     # TOKENJUICE_RETENTION_DAYS
//! max_size_mb = 64        # TOKENJUICE_RETENTION_MB: history + artifacts together
//! artifact_max_mb = 256   # TOKENJUICE_ARTIFACT_MAX_MB: raw bytes kept per artifact
//! batch_kb = 32           # TOKENJUICE_STATS_BATCH_KB: records move from the spool to the
//!                         # database every this many KiB (0: every run writes the database)
//! ```
//!
//! A bad value never stops a run: it is ignored (the default stays) and listed in
//! [`Settings::problems`], which `tokenjuice doctor` shows.

use std::path::{Path, PathBuf};

use crate::Home;

pub const DEFAULT_RETENTION_DAYS: u32 = 30;
pub const DEFAULT_BATCH_KB: u64 = 32;
pub const DEFAULT_MAX_SIZE_MB: u64 = 64;
pub const DEFAULT_ARTIFACT_MAX_MB: u64 = 256;
/// How long a writer waits for a busy database before parking its record in the spool.
pub const DEFAULT_BUSY_MS: u32 = 5;

#[derive(Debug, Clone)]
pub struct Settings {
    /// The data directory, when one could be found.
    pub home: Option<Home>,
    /// Record run history.
    pub history: bool,
    /// Keep (redacted) command lines in the history.
    pub keep_commands: bool,
    pub retention_days: u32,
    /// Size budget for history and artifacts together, in bytes.
    pub max_bytes: u64,
    /// Raw bytes kept per artifact; the rest is counted but not kept.
    pub artifact_max_bytes: u64,
    pub busy_ms: u32,
    /// Spool bytes between moves into the database (0: write the database every run).
    pub batch_bytes: u64,
    /// The config file read, if any.
    pub config_file: Option<PathBuf>,
    /// Values that were ignored, with why.
    pub problems: Vec<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            home: None,
            history: true,
            keep_commands: false,
            retention_days: DEFAULT_RETENTION_DAYS,
            max_bytes: DEFAULT_MAX_SIZE_MB << 20,
            artifact_max_bytes: DEFAULT_ARTIFACT_MAX_MB << 20,
            busy_ms: DEFAULT_BUSY_MS,
            batch_bytes: DEFAULT_BATCH_KB << 10,
            config_file: None,
            problems: Vec::new(),
        }
    }
}

/// The config file: `$XDG_CONFIG_HOME/tokenjuice/config.toml`, else `~/.config/tokenjuice/config.toml`.
pub fn config_path(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let abs = |name: &str| {
        env(name)
            .filter(|v| !v.trim().is_empty() && Path::new(v.trim()).is_absolute())
            .map(|v| PathBuf::from(v.trim()))
    };
    abs("XDG_CONFIG_HOME")
        .map(|d| d.join("tokenjuice/config.toml"))
        .or_else(|| abs("HOME").map(|h| h.join(".config/tokenjuice/config.toml")))
}

/// Parse a yes/no word: 1/true/yes/on and 0/false/no/off, any case.
pub fn parse_flag(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

impl Settings {
    /// Load from the process environment and the config file.
    pub fn from_env() -> Settings {
        Settings::load(&|k| std::env::var(k).ok())
    }

    pub fn load(env: &dyn Fn(&str) -> Option<String>) -> Settings {
        let mut s = Settings {
            home: Home::resolve(env).ok(),
            ..Settings::default()
        };
        if let Some(path) = config_path(env) {
            match std::fs::read_to_string(&path) {
                Ok(text) => {
                    s.apply_file(&path, &text);
                    s.config_file = Some(path);
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => s
                    .problems
                    .push(format!("{}: cannot read: {e}", path.display())),
            }
        }
        s.apply_env(env);
        s
    }

    fn apply_file(&mut self, path: &Path, text: &str) {
        let origin = path.display().to_string();
        let doc: toml::Table = match toml::from_str(text) {
            Ok(t) => t,
            Err(e) => {
                // where: the line the parser stopped at, when it says
                let at = e
                    .span()
                    .map(|r| {
                        let before = &text.as_bytes()[..r.start.min(text.len())];
                        format!(":{}", before.iter().filter(|&&b| b == b'\n').count() + 1)
                    })
                    .unwrap_or_default();
                self.problems.push(format!(
                    "{origin}{at}: not valid TOML ({}); its [history] settings were ignored",
                    e.message()
                ));
                return;
            }
        };
        let Some(table) = doc.get("history") else {
            return;
        };
        let Some(table) = table.as_table() else {
            self.problems
                .push(format!("{origin}: `history` must be a table ([history])"));
            return;
        };
        for (key, value) in table {
            let at = format!("{origin}: history.{key}");
            let int = |v: &toml::Value| v.as_integer().filter(|n| *n >= 0);
            match key.as_str() {
                "enabled" => match value.as_bool() {
                    Some(b) => self.history = b,
                    None => self.problems.push(format!("{at} must be true or false")),
                },
                "keep_commands" => match value.as_bool() {
                    Some(b) => self.keep_commands = b,
                    None => self.problems.push(format!("{at} must be true or false")),
                },
                "retention_days" => match int(value).and_then(|n| u32::try_from(n).ok()) {
                    Some(n) => self.retention_days = n,
                    None => self.problems.push(format!("{at} must be a whole number of days")),
                },
                "max_size_mb" => match int(value) {
                    Some(n) => self.max_bytes = (n as u64) << 20,
                    None => self.problems.push(format!("{at} must be a whole number of MiB")),
                },
                "artifact_max_mb" => match int(value) {
                    Some(n) => self.artifact_max_bytes = (n as u64) << 20,
                    None => self.problems.push(format!("{at} must be a whole number of MiB")),
                },
                "batch_kb" => match int(value) {
                    Some(n) => self.batch_bytes = (n as u64).min(512) << 10,
                    None => self.problems.push(format!("{at} must be a whole number of KiB")),
                },
                _ => self.problems.push(format!(
                    "{at} is not a setting (known: enabled, keep_commands, retention_days, max_size_mb, artifact_max_mb, batch_kb)"
                )),
            }
        }
    }

    fn apply_env(&mut self, env: &dyn Fn(&str) -> Option<String>) {
        let flag = |name: &str, slot: &mut bool, problems: &mut Vec<String>| {
            if let Some(v) = env(name) {
                match parse_flag(&v) {
                    Some(b) => *slot = b,
                    None => problems.push(format!(
                        "{name}={v:?} is not understood (use 1/true/yes/on or 0/false/no/off)"
                    )),
                }
            }
        };
        flag("TOKENJUICE_STATS", &mut self.history, &mut self.problems);
        flag(
            "TOKENJUICE_STATS_COMMANDS",
            &mut self.keep_commands,
            &mut self.problems,
        );
        let number = |name: &str, problems: &mut Vec<String>| -> Option<u64> {
            let v = env(name)?;
            match v.trim().parse::<u64>() {
                Ok(n) => Some(n),
                Err(_) => {
                    problems.push(format!("{name}={v:?} is not a whole number"));
                    None
                }
            }
        };
        if let Some(n) = number("TOKENJUICE_RETENTION_DAYS", &mut self.problems) {
            self.retention_days = u32::try_from(n).unwrap_or(u32::MAX);
        }
        if let Some(n) = number("TOKENJUICE_RETENTION_MB", &mut self.problems) {
            self.max_bytes = n.saturating_mul(1 << 20);
        }
        if let Some(n) = number("TOKENJUICE_ARTIFACT_MAX_MB", &mut self.problems) {
            self.artifact_max_bytes = n.saturating_mul(1 << 20);
        }
        if let Some(n) = number("TOKENJUICE_STATS_BATCH_KB", &mut self.problems) {
            self.batch_bytes = n.min(512).saturating_mul(1 << 10);
        }
        if let Some(n) = number("TOKENJUICE_STATS_BUSY_MS", &mut self.problems) {
            self.busy_ms = u32::try_from(n.min(10_000)).unwrap_or(DEFAULT_BUSY_MS);
        }
    }

    /// Retention by age in milliseconds (0 = keep forever).
    pub fn max_age_ms(&self) -> i64 {
        i64::from(self.retention_days) * 86_400_000
    }
}

/// Should the raw output be stored for a call from `source`?
/// `TOKENJUICE_<HOST>_STORE=1` (HOST = the source upper-cased, `-` → `_`) or
/// `TOKENJUICE_STORE=1`.
pub fn store_requested(env: &dyn Fn(&str) -> Option<String>, source: Option<&str>) -> bool {
    if let Some(src) = source {
        let host: String = src
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_uppercase()
                } else {
                    '_'
                }
            })
            .collect();
        if !host.is_empty() {
            if let Some(v) = env(&format!("TOKENJUICE_{host}_STORE")) {
                return parse_flag(&v).unwrap_or(false);
            }
        }
    }
    env("TOKENJUICE_STORE")
        .and_then(|v| parse_flag(&v))
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn load(vars: &[(&str, &str)]) -> Settings {
        let m: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Settings::load(&move |k| m.get(k).cloned())
    }

    #[test]
    fn defaults() {
        let s = load(&[("HOME", "/nonexistent-home-for-test")]);
        assert!(s.history);
        assert!(!s.keep_commands);
        assert_eq!(s.retention_days, 30);
        assert_eq!(s.max_bytes, 64 << 20);
        assert!(s.problems.is_empty(), "{:?}", s.problems);
    }

    #[test]
    fn stats_off_words() {
        for w in ["0", "false", "no", "off", "OFF", " False "] {
            assert!(!load(&[("TOKENJUICE_STATS", w)]).history, "{w}");
        }
        let s = load(&[("TOKENJUICE_STATS", "maybe")]);
        assert!(s.history);
        assert_eq!(s.problems.len(), 1);
    }

    #[test]
    fn config_file_then_env() {
        let t = tempfile::tempdir().unwrap();
        let cfg = t.path().join("tokenjuice/config.toml");
        std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
        std::fs::write(
            &cfg,
            "[history]\nretention_days = 7\nmax_size_mb = 8\nkeep_commands = true\nbogus = 1\n",
        )
        .unwrap();
        let x = t.path().to_str().unwrap();
        let s = load(&[("XDG_CONFIG_HOME", x)]);
        assert_eq!(s.retention_days, 7);
        assert_eq!(s.max_bytes, 8 << 20);
        assert!(s.keep_commands);
        assert_eq!(s.problems.len(), 1, "{:?}", s.problems);
        assert!(s.problems[0].contains("history.bogus"));
        let s = load(&[
            ("XDG_CONFIG_HOME", x),
            ("TOKENJUICE_RETENTION_DAYS", "2"),
            ("TOKENJUICE_STATS_COMMANDS", "0"),
        ]);
        assert_eq!(s.retention_days, 2);
        assert!(!s.keep_commands);
    }

    #[test]
    fn broken_config_is_a_problem_not_a_failure() {
        let t = tempfile::tempdir().unwrap();
        let cfg = t.path().join("tokenjuice/config.toml");
        std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
        std::fs::write(&cfg, "# mine\n[history]\nretention_days = \"7\n").unwrap();
        let s = load(&[("XDG_CONFIG_HOME", t.path().to_str().unwrap())]);
        assert_eq!(s.retention_days, 30);
        // what and where: the file and the line the parser stopped at
        let want = format!("{}:3: not valid TOML (", cfg.display());
        assert!(s.problems[0].starts_with(&want), "{:?}", s.problems);
    }

    #[test]
    fn per_host_store_switch() {
        let m: HashMap<&str, &str> = [
            ("TOKENJUICE_CODEBUDDY_STORE", "1"),
            ("TOKENJUICE_CLAUDE_CODE_STORE", "yes"),
            ("TOKENJUICE_CURSOR_STORE", "0"),
        ]
        .into_iter()
        .collect();
        let env = |k: &str| m.get(k).map(|v| v.to_string());
        assert!(store_requested(&env, Some("codebuddy")));
        assert!(store_requested(&env, Some("claude-code")));
        assert!(!store_requested(&env, Some("cursor")));
        assert!(!store_requested(&env, Some("codex")));
        assert!(!store_requested(&env, None));
        let all = |k: &str| (k == "TOKENJUICE_STORE").then(|| "1".to_string());
        assert!(store_requested(&all, None));
        assert!(store_requested(&all, Some("codex")));
    }
}
