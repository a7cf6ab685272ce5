//! Command log: one JSON line per tool call, shell command or file edit, with secrets
//! redacted, rotated daily and by size, and old files pruned to a retention count.
//!
//! Files live in one directory: `commands-YYYY-MM-DD.log` (UTC date) with daily rotation,
//! else `commands.log`. When a write would push the active file past `max_file_size`, the
//! file is renamed `commands-YYYY-MM-DD.N.log` (`commands.N.log`) and a new one started.
//! After a rotation, only the newest `max_files` log files are kept. Files are created
//! with mode 0600: even redacted, command lines are private.

use std::collections::BTreeMap;
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::clock;
use crate::error::HookError;
use crate::redact::{redact_text, redact_value};

/// How much is recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Names, commands, paths, exit codes.
    Minimal,
    /// Plus tool arguments and output sizes.
    Standard,
    /// Plus tool results and command output (capped at 64 KiB).
    Verbose,
}

/// Command log settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandLogConfig {
    pub enabled: bool,
    pub dir: PathBuf,
    pub level: LogLevel,
    pub redact_secrets: bool,
    pub rotate_daily: bool,
    pub max_file_size: u64,
    pub max_files: usize,
    /// Record whole command lines (redacted). Off by default: a command line can carry a
    /// secret no pattern knows, so only the program is recorded unless the user asks.
    #[serde(default)]
    pub record_command_lines: bool,
}

impl CommandLogConfig {
    /// Defaults under `~/.codebuddy/logs`: standard level, redaction on, daily rotation,
    /// 10 MiB per file, 30 files kept.
    pub fn in_home(home: &Path) -> CommandLogConfig {
        CommandLogConfig::in_dir(home.join(".codebuddy").join("logs"))
    }

    pub fn in_dir(dir: impl Into<PathBuf>) -> CommandLogConfig {
        CommandLogConfig {
            enabled: true,
            dir: dir.into(),
            level: LogLevel::Standard,
            redact_secrets: true,
            rotate_daily: true,
            max_file_size: 10 * 1024 * 1024,
            max_files: 30,
            record_command_lines: false,
        }
    }
}

/// Kind of a log record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    ToolCall,
    BashCommand,
    FileCreate,
    FileEdit,
    FileDelete,
}

/// What happened to a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EditKind {
    Create,
    Edit,
    Delete,
}

/// One JSONL record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LogEntry {
    pub timestamp: String,
    pub kind: EntryKind,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub session_id: Option<String>,
    /// Tool name, command line or file path.
    pub subject: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub success: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub duration_ms: Option<u64>,
    #[serde(skip_serializing_if = "Value::is_null", default)]
    pub details: Value,
}

/// Totals over all log files.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LogStats {
    pub files: usize,
    pub total_entries: usize,
    pub total_bytes: u64,
    pub by_kind: BTreeMap<String, usize>,
    /// Lines that are not valid records.
    pub unreadable_lines: usize,
}

/// The logger.
pub struct CommandLogger {
    config: CommandLogConfig,
    session_id: Option<String>,
    clock: Box<dyn Fn() -> SystemTime + Send + Sync>,
}

impl std::fmt::Debug for CommandLogger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandLogger")
            .field("config", &self.config)
            .field("session_id", &self.session_id)
            .finish()
    }
}

const VERBOSE_CAP: usize = 64 * 1024;

fn cap_text(s: &str, cap: usize) -> String {
    if s.len() <= cap {
        return s.to_string();
    }
    let mut end = cap;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… [{} more bytes]", &s[..end], s.len() - end)
}

impl CommandLogger {
    pub fn new(config: CommandLogConfig) -> CommandLogger {
        CommandLogger {
            config,
            session_id: None,
            clock: Box::new(SystemTime::now),
        }
    }

    /// Replaces the clock (tests of daily rotation).
    pub fn with_clock(
        mut self,
        clock: impl Fn() -> SystemTime + Send + Sync + 'static,
    ) -> CommandLogger {
        self.clock = Box::new(clock);
        self
    }

    pub fn config(&self) -> &CommandLogConfig {
        &self.config
    }

    pub fn update_config(&mut self, config: CommandLogConfig) {
        self.config = config;
    }

    /// Tags following records with a session id.
    pub fn set_session_id(&mut self, id: Option<String>) {
        self.session_id = id;
    }

    fn redact_s(&self, s: &str) -> String {
        if self.config.redact_secrets {
            redact_text(s)
        } else {
            s.to_string()
        }
    }

    /// What a log line shows of a command: the whole (redacted) line when the user asked
    /// for command lines, else only its program (after any `NAME=value` assignments).
    fn command_subject(&self, command: &str) -> String {
        if self.config.record_command_lines {
            return self.redact_s(command);
        }
        let program = command
            .split_whitespace()
            .find(|w| !w.contains('='))
            .unwrap_or("")
            .rsplit('/')
            .next()
            .unwrap_or("");
        format!("{} (command line not recorded)", self.redact_s(program))
    }

    /// Tool arguments as logged: a `command` argument follows [`Self::command_subject`].
    fn tool_args(&self, args: &Value) -> Value {
        let mut v = self.redact_v(args);
        if let Some(c) = v.get("command").and_then(Value::as_str).map(str::to_string) {
            v["command"] = Value::String(self.command_subject(&c));
        }
        v
    }

    fn redact_v(&self, v: &Value) -> Value {
        if self.config.redact_secrets {
            redact_value(v)
        } else {
            v.clone()
        }
    }

    /// Records a tool call.
    pub fn log_tool_call(
        &self,
        name: &str,
        args: &Value,
        result: &Value,
        duration: Option<Duration>,
    ) -> Result<(), HookError> {
        let details = match self.config.level {
            LogLevel::Minimal => Value::Null,
            LogLevel::Standard => json!({"args": self.tool_args(args)}),
            LogLevel::Verbose => {
                let r = self.redact_v(result);
                let text = r.to_string();
                let r = if text.len() > VERBOSE_CAP {
                    Value::String(cap_text(&text, VERBOSE_CAP))
                } else {
                    r
                };
                json!({"args": self.tool_args(args), "result": r})
            }
        };
        self.write(
            EntryKind::ToolCall,
            name.to_string(),
            None,
            duration,
            details,
        )
    }

    /// Records a shell command; the command line itself is redacted.
    pub fn log_bash_command(
        &self,
        command: &str,
        exit_code: Option<i32>,
        output: &str,
        duration: Option<Duration>,
    ) -> Result<(), HookError> {
        let details = match self.config.level {
            LogLevel::Minimal => json!({"exitCode": exit_code}),
            LogLevel::Standard => json!({"exitCode": exit_code, "outputBytes": output.len()}),
            LogLevel::Verbose => {
                json!({"exitCode": exit_code, "outputBytes": output.len(), "output": cap_text(&self.redact_s(output), VERBOSE_CAP)})
            }
        };
        self.write(
            EntryKind::BashCommand,
            self.command_subject(command),
            Some(exit_code == Some(0)),
            duration,
            details,
        )
    }

    /// Records a file creation, edit or deletion.
    pub fn log_file_edit(
        &self,
        path: &Path,
        kind: EditKind,
        success: bool,
    ) -> Result<(), HookError> {
        let k = match kind {
            EditKind::Create => EntryKind::FileCreate,
            EditKind::Edit => EntryKind::FileEdit,
            EditKind::Delete => EntryKind::FileDelete,
        };
        self.write(
            k,
            path.to_string_lossy().into_owned(),
            Some(success),
            None,
            Value::Null,
        )
    }

    /// The file records are appended to now.
    pub fn current_file(&self) -> PathBuf {
        if self.config.rotate_daily {
            self.config
                .dir
                .join(format!("commands-{}.log", clock::ymd((self.clock)())))
        } else {
            self.config.dir.join("commands.log")
        }
    }

    fn write(
        &self,
        kind: EntryKind,
        subject: String,
        success: Option<bool>,
        duration: Option<Duration>,
        details: Value,
    ) -> Result<(), HookError> {
        if !self.config.enabled {
            return Ok(());
        }
        let entry = LogEntry {
            timestamp: clock::rfc3339((self.clock)()),
            kind,
            session_id: self.session_id.clone(),
            subject,
            success,
            duration_ms: duration.map(|d| d.as_millis() as u64),
            details,
        };
        let mut line = serde_json::to_string(&entry).unwrap_or_default();
        line.push('\n');
        fs::create_dir_all(&self.config.dir)
            .map_err(|e| HookError::io("create log directory", &self.config.dir, e))?;
        let file = self.current_file();
        let size = fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
        if size > 0 && size + line.len() as u64 > self.config.max_file_size {
            self.rotate(&file)?;
        }
        let mut f = OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(&file)
            .map_err(|e| HookError::io("open log file", &file, e))?;
        f.write_all(line.as_bytes())
            .map_err(|e| HookError::io("append to log file", &file, e))
    }

    fn rotate(&self, file: &Path) -> Result<(), HookError> {
        let stem = file
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("commands")
            .to_string();
        let mut n = 1;
        let target = loop {
            let candidate = self.config.dir.join(format!("{stem}.{n}.log"));
            if !candidate.exists() {
                break candidate;
            }
            n += 1;
        };
        fs::rename(file, &target).map_err(|e| HookError::io("rotate log file", file, e))?;
        self.prune()
    }

    /// All log files, newest first.
    pub fn log_files(&self) -> Vec<PathBuf> {
        let Ok(rd) = fs::read_dir(&self.config.dir) else {
            return Vec::new();
        };
        let mut files: Vec<(SystemTime, String, PathBuf)> = rd
            .filter_map(Result::ok)
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let is_log = name.starts_with("commands") && name.ends_with(".log");
                let mtime = e.metadata().ok()?.modified().ok()?;
                is_log.then(|| (mtime, name, e.path()))
            })
            .collect();
        files.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| b.1.cmp(&a.1)));
        files.into_iter().map(|(_, _, p)| p).collect()
    }

    /// Deletes log files beyond the retention count (never the active file).
    pub fn prune(&self) -> Result<(), HookError> {
        let active = self.current_file();
        let files: Vec<PathBuf> = self
            .log_files()
            .into_iter()
            .filter(|p| *p != active)
            .collect();
        let keep = self.config.max_files.saturating_sub(1);
        for old in files.into_iter().skip(keep) {
            fs::remove_file(&old).map_err(|e| HookError::io("delete old log file", &old, e))?;
        }
        Ok(())
    }

    /// Totals over every log file.
    pub fn stats(&self) -> LogStats {
        let mut s = LogStats::default();
        for f in self.log_files() {
            s.files += 1;
            s.total_bytes += fs::metadata(&f).map(|m| m.len()).unwrap_or(0);
            let Ok(text) = fs::read_to_string(&f) else {
                continue;
            };
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                match serde_json::from_str::<LogEntry>(line) {
                    Ok(e) => {
                        s.total_entries += 1;
                        let k = serde_json::to_value(e.kind)
                            .ok()
                            .and_then(|v| v.as_str().map(str::to_string))
                            .unwrap_or_default();
                        *s.by_kind.entry(k).or_default() += 1;
                    }
                    Err(_) => s.unreadable_lines += 1,
                }
            }
        }
        s
    }

    /// The newest `n` records, oldest first.
    pub fn recent(&self, n: usize) -> Vec<LogEntry> {
        let mut out: Vec<LogEntry> = Vec::new();
        for f in self.log_files() {
            let Ok(text) = fs::read_to_string(&f) else {
                continue;
            };
            let mut entries: Vec<LogEntry> = text
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect();
            entries.append(&mut out);
            out = entries;
            if out.len() >= n {
                break;
            }
        }
        let skip = out.len().saturating_sub(n);
        out.split_off(skip)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    fn logger(dir: &Path) -> CommandLogger {
        CommandLogger::new(CommandLogConfig::in_dir(dir))
    }

    #[test]
    fn records_are_jsonl_with_session_ids_and_redaction() {
        let t = tempfile::tempdir().unwrap();
        let mut l = logger(t.path());
        l.set_session_id(Some("sess-1".into()));
        l.log_bash_command(
            "API_KEY=sk-abcdefghijklmnopqrstuvwx npm publish",
            Some(0),
            "ok",
            Some(Duration::from_millis(12)),
        )
        .unwrap();
        l.log_tool_call(
            "write_to_file",
            &json!({"filePath": "a.txt", "password": "hunter2"}),
            &json!({"ok": true}),
            None,
        )
        .unwrap();
        l.log_file_edit(Path::new("src/a.rs"), EditKind::Edit, true)
            .unwrap();
        let text = fs::read_to_string(l.current_file()).unwrap();
        assert!(l
            .current_file()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("commands-"));
        assert!(!text.contains("sk-abcdefghijklmnopqrstuvwx"), "{text}");
        assert!(!text.contains("hunter2"), "{text}");
        let entries: Vec<LogEntry> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(entries.len(), 3);
        assert_eq!(entries[0].kind, EntryKind::BashCommand);
        // by default the program only; the whole (redacted) line when asked for
        assert_eq!(entries[0].subject, "npm (command line not recorded)");
        assert_eq!(entries[0].session_id.as_deref(), Some("sess-1"));
        assert_eq!(entries[0].duration_ms, Some(12));
        assert_eq!(entries[1].details["args"]["password"], "[REDACTED]");
        assert_eq!(entries[1].details["args"]["filePath"], "a.txt");
        let t2 = tempfile::tempdir().unwrap();
        let mut config = CommandLogConfig::in_dir(t2.path());
        config.record_command_lines = true;
        let l2 = CommandLogger::new(config);
        l2.log_bash_command(
            "API_KEY=sk-abcdefghijklmnopqrstuvwx npm publish",
            Some(0),
            "",
            None,
        )
        .unwrap();
        let text = fs::read_to_string(l2.current_file()).unwrap();
        assert!(text.contains("API_KEY=[REDACTED] npm publish"), "{text}");
        assert_eq!(entries[2].kind, EntryKind::FileEdit);
        let mode = fs::metadata(l.current_file()).unwrap().permissions();
        assert_eq!(
            std::os::unix::fs::PermissionsExt::mode(&mode) & 0o777,
            0o600
        );
        let s = l.stats();
        assert_eq!(s.total_entries, 3);
        assert_eq!(s.by_kind["bash_command"], 1);
        assert!(s.total_bytes > 0);
        assert_eq!(l.recent(2).len(), 2);
        assert_eq!(l.recent(2)[1].kind, EntryKind::FileEdit);
    }

    #[test]
    fn disabled_logger_writes_nothing_and_levels_differ() {
        let t = tempfile::tempdir().unwrap();
        let mut cfg = CommandLogConfig::in_dir(t.path().join("logs"));
        cfg.enabled = false;
        let l = CommandLogger::new(cfg.clone());
        l.log_bash_command("ls", Some(0), "", None).unwrap();
        assert!(!t.path().join("logs").exists());
        cfg.enabled = true;
        cfg.level = LogLevel::Verbose;
        let l = CommandLogger::new(cfg.clone());
        l.log_bash_command("cat .env", Some(0), "TOKEN=abcdef123456", None)
            .unwrap();
        let e = &l.recent(1)[0];
        assert_eq!(e.details["output"], "TOKEN=[REDACTED]");
        cfg.level = LogLevel::Minimal;
        let l = CommandLogger::new(cfg);
        l.log_tool_call("read_file", &json!({"path": "x"}), &json!("contents"), None)
            .unwrap();
        assert_eq!(l.recent(1)[0].details, Value::Null);
    }

    #[test]
    fn daily_rotation_uses_the_utc_date() {
        let t = tempfile::tempdir().unwrap();
        let now = Arc::new(AtomicU64::new(1_795_305_600)); // 2026-11-22T00:00:00Z
        let n2 = now.clone();
        let l = logger(t.path()).with_clock(move || {
            SystemTime::UNIX_EPOCH + Duration::from_secs(n2.load(Ordering::SeqCst))
        });
        l.log_bash_command("a", Some(0), "", None).unwrap();
        now.fetch_add(86_400, Ordering::SeqCst);
        l.log_bash_command("b", Some(0), "", None).unwrap();
        assert!(t.path().join("commands-2026-11-22.log").exists());
        assert!(t.path().join("commands-2026-11-23.log").exists());
        assert_eq!(l.stats().total_entries, 2);
        assert_eq!(l.stats().files, 2);
    }

    #[test]
    fn size_rotation_and_retention() {
        let t = tempfile::tempdir().unwrap();
        let mut cfg = CommandLogConfig::in_dir(t.path());
        cfg.rotate_daily = false;
        cfg.max_file_size = 400;
        cfg.max_files = 3;
        cfg.record_command_lines = true;
        let l = CommandLogger::new(cfg);
        for i in 0..40 {
            l.log_bash_command(
                &format!("echo {i:04} padding padding padding"),
                Some(0),
                "",
                None,
            )
            .unwrap();
            std::thread::sleep(Duration::from_millis(2));
        }
        let files = l.log_files();
        assert_eq!(files.len(), 3, "{files:?}");
        assert!(files.contains(&t.path().join("commands.log")));
        for f in &files {
            assert!(fs::metadata(f).unwrap().len() <= 400, "{f:?} too big");
        }
        // the newest record survived, the oldest were pruned
        let recent = l.recent(1);
        assert!(recent[0].subject.contains("0039"));
        assert!(l.stats().total_entries < 40);
    }
}
