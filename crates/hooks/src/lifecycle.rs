//! Lifecycle hooks: commands or in-process handlers that run at fixed points of
//! an agent's workflow — before/after an edit, a shell command, a commit, a prompt, a
//! response, an error or a tool call.
//!
//! - Hooks run **in registration order**, one after another; only enabled ones.
//! - `filePatterns` are real globs (globset): a pattern without `/` matches the file's
//!   name (`*.ts`), a pattern with `/` matches the path relative to the project
//!   (`src/**/*.rs`). A hook with file patterns is skipped when the context has no file.
//! - `commandPatterns` match whole words at the start of any command in a shell line:
//!   `git commit` matches `cd x && git commit -m y`, not `echo git commit`.
//! - A command sees the context as JSON on stdin, plus `TOKENJUICE_FILE` and
//!   `TOKENJUICE_COMMAND` in its environment. `${file}` and `${command}` in the command
//!   text expand to those variables **quoted**, so a file named `a; rm -rf ~` is one
//!   argument, never shell code.
//! - A failing hook with `failOnError` stops the chain; a handler can also ask to abort.
//! - Five built-in recipes (lint-on-edit, format-on-edit, test-on-edit, pre-commit-lint,
//!   pre-commit-test) are registered disabled; enabling one is saved to
//!   `.codebuddy/lifecycle-hooks.json` and restored next time.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use globset::{Glob, GlobBuilder, GlobMatcher};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::engine::command_runner::{run_command, CommandRequest, RunLimits};
use crate::sessions::atomic_write;

/// Where in the workflow a hook runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LifecycleType {
    PreEdit,
    PostEdit,
    PreBash,
    PostBash,
    PreCommit,
    PostCommit,
    PrePrompt,
    PostResponse,
    OnError,
    OnToolCall,
}

impl LifecycleType {
    pub const ALL: &'static [LifecycleType] = &[
        LifecycleType::PreEdit,
        LifecycleType::PostEdit,
        LifecycleType::PreBash,
        LifecycleType::PostBash,
        LifecycleType::PreCommit,
        LifecycleType::PostCommit,
        LifecycleType::PrePrompt,
        LifecycleType::PostResponse,
        LifecycleType::OnError,
        LifecycleType::OnToolCall,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            LifecycleType::PreEdit => "pre-edit",
            LifecycleType::PostEdit => "post-edit",
            LifecycleType::PreBash => "pre-bash",
            LifecycleType::PostBash => "post-bash",
            LifecycleType::PreCommit => "pre-commit",
            LifecycleType::PostCommit => "post-commit",
            LifecycleType::PrePrompt => "pre-prompt",
            LifecycleType::PostResponse => "post-response",
            LifecycleType::OnError => "on-error",
            LifecycleType::OnToolCall => "on-tool-call",
        }
    }

    pub fn parse(s: &str) -> Option<LifecycleType> {
        LifecycleType::ALL.iter().copied().find(|t| t.as_str() == s)
    }
}

/// What a hook is told.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LifecycleContext {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_args: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

/// What an in-process handler returns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HandlerResult {
    pub success: bool,
    pub output: Option<String>,
    pub error: Option<String>,
    /// Stop the chain after this hook.
    pub abort: bool,
    /// Replacement content/command/prompt proposed by the hook.
    pub modified: Option<Map<String, Value>>,
}

/// An in-process handler.
pub type LifecycleHandler = Arc<dyn Fn(&LifecycleContext) -> HandlerResult + Send + Sync>;

/// A lifecycle hook definition (serializable part plus an optional handler).
#[derive(Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LifecycleHook {
    pub name: String,
    #[serde(rename = "type")]
    pub hook_type: LifecycleType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// A script run by its interpreter (by extension: .js node, .py python3, .sh sh,
    /// otherwise executed directly).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<PathBuf>,
    #[serde(default = "yes")]
    pub enabled: bool,
    #[serde(default = "default_timeout_ms", rename = "timeoutMs")]
    pub timeout_ms: u64,
    #[serde(default)]
    pub fail_on_error: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub file_patterns: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub command_patterns: Vec<String>,
    #[serde(skip)]
    pub handler: Option<LifecycleHandler>,
}

fn yes() -> bool {
    true
}
fn default_timeout_ms() -> u64 {
    30_000
}

impl std::fmt::Debug for LifecycleHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LifecycleHook")
            .field("name", &self.name)
            .field("type", &self.hook_type)
            .field("command", &self.command)
            .field("enabled", &self.enabled)
            .field("handler", &self.handler.is_some())
            .finish_non_exhaustive()
    }
}

impl LifecycleHook {
    pub fn command(name: &str, hook_type: LifecycleType, command: &str) -> LifecycleHook {
        LifecycleHook {
            name: name.into(),
            hook_type,
            command: Some(command.into()),
            script: None,
            enabled: true,
            timeout_ms: default_timeout_ms(),
            fail_on_error: false,
            file_patterns: Vec::new(),
            command_patterns: Vec::new(),
            handler: None,
        }
    }

    pub fn handler(
        name: &str,
        hook_type: LifecycleType,
        f: impl Fn(&LifecycleContext) -> HandlerResult + Send + Sync + 'static,
    ) -> LifecycleHook {
        LifecycleHook {
            command: None,
            handler: Some(Arc::new(f)),
            ..LifecycleHook::command(name, hook_type, "")
        }
    }
}

/// The built-in recipes, all disabled.
pub fn builtin_hooks() -> Vec<LifecycleHook> {
    let js = || {
        vec![
            "*.ts".to_string(),
            "*.tsx".into(),
            "*.js".into(),
            "*.jsx".into(),
        ]
    };
    let mk = |name: &str, t, cmd: &str, timeout_ms, fail, patterns: Vec<String>| LifecycleHook {
        enabled: false,
        timeout_ms,
        fail_on_error: fail,
        file_patterns: patterns,
        ..LifecycleHook::command(name, t, cmd)
    };
    let mut fmt = js();
    fmt.extend(["*.json".to_string(), "*.md".into(), "*.css".into()]);
    vec![
        mk(
            "lint-on-edit",
            LifecycleType::PostEdit,
            "npx eslint --fix ${file}",
            10_000,
            false,
            js(),
        ),
        mk(
            "format-on-edit",
            LifecycleType::PostEdit,
            "npx prettier --write ${file}",
            5_000,
            false,
            fmt,
        ),
        mk(
            "test-on-edit",
            LifecycleType::PostEdit,
            "npm test -- --findRelatedTests ${file}",
            60_000,
            false,
            js(),
        ),
        mk(
            "pre-commit-lint",
            LifecycleType::PreCommit,
            "npm run lint",
            30_000,
            true,
            vec![],
        ),
        mk(
            "pre-commit-test",
            LifecycleType::PreCommit,
            "npm test",
            120_000,
            true,
            vec![],
        ),
    ]
}

fn is_builtin(name: &str) -> bool {
    matches!(
        name,
        "lint-on-edit" | "format-on-edit" | "test-on-edit" | "pre-commit-lint" | "pre-commit-test"
    )
}

/// Result of one hook.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LifecycleResult {
    pub name: String,
    pub success: bool,
    pub output: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub duration_ms: u64,
    pub timed_out: bool,
    pub aborted: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified: Option<Map<String, Value>>,
}

/// Events emitted by the manager.
#[derive(Clone, Debug, PartialEq)]
pub enum LifecycleEvent {
    Registered(String),
    Unregistered(String),
    Toggled { name: String, enabled: bool },
    Executing { name: String },
    Executed { name: String, success: bool },
    Failed { name: String, error: String },
    Aborted { name: String },
}

/// Errors of the manager.
#[derive(Debug, thiserror::Error)]
pub enum LifecycleError {
    #[error("hook {name}: invalid file pattern {pattern:?}: {message}")]
    BadPattern {
        name: String,
        pattern: String,
        message: String,
    },
    #[error("hook {name} has neither a command, a script nor a handler")]
    Empty { name: String },
    #[error("no lifecycle hook named {0:?}; see `tokenjuice hooks lifecycle list`")]
    Unknown(String),
    #[error("{path} is not a valid lifecycle config ({message}); it was left untouched")]
    BadConfig { path: PathBuf, message: String },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

struct Entry {
    hook: LifecycleHook,
    name_globs: Vec<GlobMatcher>,
    path_globs: Vec<GlobMatcher>,
}

type Listener = Box<dyn Fn(&LifecycleEvent) + Send + Sync>;

/// The persisted part of the configuration.
#[derive(Debug, Default, Serialize, Deserialize)]
struct SavedConfig {
    #[serde(default)]
    hooks: Vec<LifecycleHook>,
    #[serde(default)]
    builtins: std::collections::BTreeMap<String, BuiltinState>,
}

#[derive(Debug, Serialize, Deserialize)]
struct BuiltinState {
    enabled: bool,
}

/// Manages and runs lifecycle hooks for one project.
pub struct HooksManager {
    project: PathBuf,
    entries: Vec<Entry>,
    listeners: Vec<Listener>,
    grace: Duration,
}

impl std::fmt::Debug for HooksManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HooksManager")
            .field("project", &self.project)
            .field("hooks", &self.entries.len())
            .finish()
    }
}

fn compile(hook: &LifecycleHook) -> Result<(Vec<GlobMatcher>, Vec<GlobMatcher>), LifecycleError> {
    let mut names = Vec::new();
    let mut paths = Vec::new();
    for p in &hook.file_patterns {
        let bad = |e: globset::Error| LifecycleError::BadPattern {
            name: hook.name.clone(),
            pattern: p.clone(),
            message: e.to_string(),
        };
        if p.contains('/') {
            paths.push(
                GlobBuilder::new(p.trim_start_matches("./"))
                    .literal_separator(true)
                    .build()
                    .map_err(bad)?
                    .compile_matcher(),
            );
        } else {
            names.push(Glob::new(p).map_err(bad)?.compile_matcher());
        }
    }
    Ok((names, paths))
}

/// True when `pattern`'s words start one of the commands of `line` (split at `&&`, `||`,
/// `;`, `|` and newlines).
pub fn command_matches(line: &str, pattern: &str) -> bool {
    let want: Vec<&str> = pattern.split_whitespace().collect();
    if want.is_empty() {
        return false;
    }
    line.split(['&', '|', ';', '\n', '(', ')'])
        .map(|seg| seg.split_whitespace().collect::<Vec<_>>())
        .any(|words| words.len() >= want.len() && words[..want.len()] == want[..])
}

impl HooksManager {
    /// A manager with the built-ins (disabled) and the saved configuration applied.
    pub fn new(project: impl Into<PathBuf>) -> Result<HooksManager, LifecycleError> {
        let mut m = HooksManager {
            project: project.into(),
            entries: Vec::new(),
            listeners: Vec::new(),
            grace: Duration::from_millis(500),
        };
        for b in builtin_hooks() {
            m.insert(b)?;
        }
        m.load()?;
        Ok(m)
    }

    /// `.codebuddy/lifecycle-hooks.json` in the project.
    pub fn config_path(&self) -> PathBuf {
        self.project.join(".codebuddy").join("lifecycle-hooks.json")
    }

    fn load(&mut self) -> Result<(), LifecycleError> {
        let path = self.config_path();
        let text = match tokenjuice_untrusted::read_to_string(
            &path,
            tokenjuice_untrusted::MAX_SETTINGS_FILE,
        ) {
            Ok(t) => t,
            Err(e) if e.is_not_found() => return Ok(()),
            Err(e) => {
                return Err(LifecycleError::BadConfig {
                    path,
                    message: e.to_string(),
                })
            }
        };
        let saved: SavedConfig =
            serde_json::from_str(&text).map_err(|e| LifecycleError::BadConfig {
                path: path.clone(),
                message: e.to_string(),
            })?;
        for (name, state) in saved.builtins {
            if let Some(e) = self.entries.iter_mut().find(|e| e.hook.name == name) {
                e.hook.enabled = state.enabled;
            }
        }
        for h in saved.hooks {
            self.insert(h)?;
        }
        Ok(())
    }

    /// Writes user hooks and built-in states atomically.
    pub fn save(&self) -> Result<PathBuf, LifecycleError> {
        let path = self.config_path();
        let saved = SavedConfig {
            hooks: self
                .entries
                .iter()
                .filter(|e| !is_builtin(&e.hook.name) && e.hook.handler.is_none())
                .map(|e| e.hook.clone())
                .collect(),
            builtins: self
                .entries
                .iter()
                .filter(|e| is_builtin(&e.hook.name))
                .map(|e| {
                    (
                        e.hook.name.clone(),
                        BuiltinState {
                            enabled: e.hook.enabled,
                        },
                    )
                })
                .collect(),
        };
        let text = serde_json::to_string_pretty(&saved).unwrap_or_default();
        atomic_write(&path, text.as_bytes()).map_err(|source| LifecycleError::Write {
            path: path.clone(),
            source,
        })?;
        Ok(path)
    }

    fn insert(&mut self, hook: LifecycleHook) -> Result<(), LifecycleError> {
        if hook.command.as_deref().is_none_or(|c| c.trim().is_empty())
            && hook.script.is_none()
            && hook.handler.is_none()
        {
            return Err(LifecycleError::Empty { name: hook.name });
        }
        let (name_globs, path_globs) = compile(&hook)?;
        let entry = Entry {
            hook,
            name_globs,
            path_globs,
        };
        match self
            .entries
            .iter_mut()
            .find(|e| e.hook.name == entry.hook.name)
        {
            Some(slot) => *slot = entry,
            None => self.entries.push(entry),
        }
        Ok(())
    }

    /// Subscribes to manager events.
    pub fn on_event(&mut self, f: impl Fn(&LifecycleEvent) + Send + Sync + 'static) {
        self.listeners.push(Box::new(f));
    }

    fn emit(&self, e: LifecycleEvent) {
        for l in &self.listeners {
            l(&e);
        }
    }

    /// Registers (or replaces, keeping its position) a hook.
    pub fn register(&mut self, hook: LifecycleHook) -> Result<(), LifecycleError> {
        let name = hook.name.clone();
        self.insert(hook)?;
        self.emit(LifecycleEvent::Registered(name));
        Ok(())
    }

    pub fn unregister(&mut self, name: &str) -> bool {
        let before = self.entries.len();
        self.entries.retain(|e| e.hook.name != name);
        let removed = before != self.entries.len();
        if removed {
            self.emit(LifecycleEvent::Unregistered(name.to_string()));
        }
        removed
    }

    /// Enables or disables a hook and saves the configuration.
    pub fn set_enabled(&mut self, name: &str, enabled: bool) -> Result<(), LifecycleError> {
        let e = self
            .entries
            .iter_mut()
            .find(|e| e.hook.name == name)
            .ok_or_else(|| LifecycleError::Unknown(name.to_string()))?;
        e.hook.enabled = enabled;
        self.emit(LifecycleEvent::Toggled {
            name: name.to_string(),
            enabled,
        });
        self.save()?;
        Ok(())
    }

    pub fn has(&self, name: &str) -> bool {
        self.entries.iter().any(|e| e.hook.name == name)
    }

    pub fn get(&self, name: &str) -> Option<&LifecycleHook> {
        self.entries
            .iter()
            .find(|e| e.hook.name == name)
            .map(|e| &e.hook)
    }

    /// All hooks in registration order.
    pub fn hooks(&self) -> Vec<&LifecycleHook> {
        self.entries.iter().map(|e| &e.hook).collect()
    }

    pub fn by_type(&self, t: LifecycleType) -> Vec<&LifecycleHook> {
        self.entries
            .iter()
            .filter(|e| e.hook.hook_type == t)
            .map(|e| &e.hook)
            .collect()
    }

    /// Why `entry` does not apply to `ctx`, if it does not.
    fn skip_reason(&self, e: &Entry, ctx: &LifecycleContext) -> Option<String> {
        if !e.hook.file_patterns.is_empty() {
            let Some(file) = &ctx.file else {
                return Some("no file in the context".into());
            };
            let name = file.file_name().map(Path::new).unwrap_or(file);
            let rel = file.strip_prefix(&self.project).unwrap_or(file);
            let hit = e.name_globs.iter().any(|g| g.is_match(name))
                || e.path_globs.iter().any(|g| g.is_match(rel));
            if !hit {
                return Some(format!(
                    "{} does not match {}",
                    file.display(),
                    e.hook.file_patterns.join(", ")
                ));
            }
        }
        if !e.hook.command_patterns.is_empty() {
            let Some(cmd) = &ctx.command else {
                return Some("no command in the context".into());
            };
            if !e
                .hook
                .command_patterns
                .iter()
                .any(|p| command_matches(cmd, p))
            {
                return Some(format!(
                    "command does not match {}",
                    e.hook.command_patterns.join(", ")
                ));
            }
        }
        None
    }

    /// Runs the enabled hooks of `t` that apply to `ctx`, in registration order.
    pub fn execute(&self, t: LifecycleType, ctx: &LifecycleContext) -> Vec<LifecycleResult> {
        let mut results = Vec::new();
        for e in self
            .entries
            .iter()
            .filter(|e| e.hook.hook_type == t && e.hook.enabled)
        {
            if self.skip_reason(e, ctx).is_some() {
                continue;
            }
            let name = e.hook.name.clone();
            self.emit(LifecycleEvent::Executing { name: name.clone() });
            let r = self.run_hook(&e.hook, t, ctx);
            self.emit(LifecycleEvent::Executed {
                name: name.clone(),
                success: r.success,
            });
            let stop_fail = !r.success && e.hook.fail_on_error;
            let stop_abort = r.aborted;
            if stop_fail {
                self.emit(LifecycleEvent::Failed {
                    name: name.clone(),
                    error: r.error.clone().unwrap_or_default(),
                });
            }
            if stop_abort {
                self.emit(LifecycleEvent::Aborted { name });
            }
            results.push(r);
            if stop_fail || stop_abort {
                break;
            }
        }
        results
    }

    /// Explains which hooks of `t` would run for `ctx` and why others would not.
    pub fn explain(
        &self,
        t: LifecycleType,
        ctx: &LifecycleContext,
    ) -> Vec<(String, Option<String>)> {
        self.entries
            .iter()
            .filter(|e| e.hook.hook_type == t)
            .map(|e| {
                let why = if e.hook.enabled {
                    self.skip_reason(e, ctx)
                } else {
                    Some("disabled".into())
                };
                (e.hook.name.clone(), why)
            })
            .collect()
    }

    fn run_hook(
        &self,
        hook: &LifecycleHook,
        t: LifecycleType,
        ctx: &LifecycleContext,
    ) -> LifecycleResult {
        let start = Instant::now();
        let mut r = LifecycleResult {
            name: hook.name.clone(),
            success: false,
            output: String::new(),
            error: None,
            duration_ms: 0,
            timed_out: false,
            aborted: false,
            modified: None,
        };
        if let Some(h) = &hook.handler {
            let out = h(ctx);
            r.success = out.success;
            r.output = out.output.unwrap_or_default();
            r.error = out.error;
            r.aborted = out.abort;
            r.modified = out.modified;
            r.duration_ms = start.elapsed().as_millis() as u64;
            return r;
        }
        let command = match (&hook.command, &hook.script) {
            (Some(c), _) if !c.trim().is_empty() => c
                .replace("${file}", "\"$TOKENJUICE_FILE\"")
                .replace("${command}", "\"$TOKENJUICE_COMMAND\""),
            (_, Some(script)) => {
                let interp = match script.extension().and_then(|e| e.to_str()) {
                    Some("js" | "mjs" | "cjs") => "node ",
                    Some("py") => "python3 ",
                    Some("sh") => "sh ",
                    _ => "",
                };
                format!("{interp}\"$TOKENJUICE_SCRIPT\"")
            }
            _ => {
                r.error = Some("no command".into());
                return r;
            }
        };
        let mut env = vec![("TOKENJUICE_HOOK_TYPE".to_string(), t.as_str().to_string())];
        if let Some(f) = &ctx.file {
            env.push(("TOKENJUICE_FILE".into(), f.to_string_lossy().into_owned()));
        }
        if let Some(c) = &ctx.command {
            env.push(("TOKENJUICE_COMMAND".into(), c.clone()));
        }
        if let Some(s) = &hook.script {
            let abs = if s.is_absolute() {
                s.clone()
            } else {
                self.project.join(s)
            };
            env.push((
                "TOKENJUICE_SCRIPT".into(),
                abs.to_string_lossy().into_owned(),
            ));
        }
        let mut payload = serde_json::to_value(ctx).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut payload {
            m.insert("type".into(), Value::String(t.as_str().into()));
            m.insert(
                "workingDirectory".into(),
                Value::String(self.project.to_string_lossy().into_owned()),
            );
        }
        let req = CommandRequest {
            command,
            cwd: self.project.clone(),
            env,
            stdin: serde_json::to_vec(&payload).unwrap_or_default(),
        };
        let limits = RunLimits {
            timeout: Duration::from_millis(hook.timeout_ms.max(1)),
            grace: self.grace,
            ..RunLimits::default()
        };
        match run_command(&req, &limits) {
            Ok(raw) => {
                r.timed_out = raw.timed_out;
                r.success = raw.exit_code == Some(0) && !raw.timed_out;
                r.output = String::from_utf8_lossy(&raw.stdout).into_owned();
                if !r.success {
                    let stderr = String::from_utf8_lossy(&raw.stderr).trim().to_string();
                    r.error = Some(if raw.timed_out {
                        format!("timed out after {} ms", hook.timeout_ms)
                    } else if stderr.is_empty() {
                        format!(
                            "exit code {}",
                            raw.exit_code
                                .map(|c| c.to_string())
                                .unwrap_or_else(|| "none (signal)".into())
                        )
                    } else {
                        stderr
                    });
                }
            }
            Err(e) => r.error = Some(format!("cannot start: {e}")),
        }
        r.duration_ms = start.elapsed().as_millis() as u64;
        r
    }

    /// A human-readable status table.
    pub fn format_status(&self) -> String {
        let mut s = String::from("Lifecycle Hooks\n");
        for t in LifecycleType::ALL {
            let hooks = self.by_type(*t);
            if hooks.is_empty() {
                continue;
            }
            s.push_str(&format!("  {}:\n", t.as_str()));
            for h in hooks {
                let state = if h.enabled { "Enabled " } else { "Disabled" };
                let what = h
                    .command
                    .clone()
                    .or_else(|| h.script.as_ref().map(|p| p.display().to_string()))
                    .unwrap_or_else(|| "(handler)".into());
                let builtin = if is_builtin(&h.name) {
                    " [built-in]"
                } else {
                    ""
                };
                s.push_str(&format!("    [{state}] {}{builtin}: {what}\n", h.name));
            }
        }
        s
    }
}

#[cfg(test)]
#[path = "lifecycle_tests.rs"]
mod tests;
