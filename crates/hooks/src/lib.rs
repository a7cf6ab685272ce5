//! # tokenjuice-hooks
//!
//! Runs Claude-Code-style hooks exactly as the hosts do, for any Rust agent or tool.
//!
//! - [`dialects`]: each host's contract as data — CodeBuddy (default, per its hook
//!   reference), Claude Code, Cursor, Codex CLI, Gemini CLI: settings files, event and tool
//!   names, output fields, timeouts, environment.
//! - [`events`]: the canonical events, one file each, plus the PreBash/PostBash/PreEdit/
//!   PostEdit views.
//! - [`engine`]: settings discovery with provenance ([`HookSettings`]), the dispatcher
//!   ([`Engine`]), the process-group command runner, the stdout parser and the pure,
//!   configuration-ordered merge.
//! - Modules beside the engine: [`registry`] (programmatic hooks with
//!   `once`/`async`), [`lifecycle`] (pre/post edit/bash/commit hooks with globs and
//!   built-in recipes), [`command_log`] (JSONL with secret redaction and rotation),
//!   [`sessions`] (session persistence), [`intro`] (intro/instruction loading) and
//!   [`input`] (`#` instruction capture, double-escape, last user message).
//!
//! ## Run an event as the host would
//!
//! ```no_run
//! use tokenjuice_hooks::{build_payload, Engine, EventKind, EventRequest, Host, HostEnv};
//! use serde_json::json;
//!
//! let project = std::path::PathBuf::from("/path/to/project");
//! // Loads ~/.codebuddy/settings.json and <project>/.codebuddy/settings.json.
//! let engine = Engine::load(Host::CodeBuddy, &project, HostEnv::from_process());
//! for d in &engine.settings().diagnostics {
//!     eprintln!("{d}"); // file:line:column: error: … (broken files are skipped)
//! }
//! let request = EventRequest {
//!     cwd: project.clone(),
//!     tool_name: Some("Bash".into()), // sent as `execute_command` for CodeBuddy
//!     tool_input: Some(json!({"command": "npm install"})),
//!     ..Default::default()
//! };
//! let payload = build_payload(engine.dialect(), EventKind::PreToolUse, &request)?;
//! let outcome = engine.run(EventKind::PreToolUse, &payload);
//! if outcome.blocked() {
//!     println!("blocked: {}", outcome.reason.as_deref().unwrap_or(""));
//! } else if let Some(input) = &outcome.updated_input {
//!     println!("run with rewritten input {input:?}");
//! }
//! for hook in &outcome.hooks {
//!     println!("{} -> {} in {} ms", hook.command, hook.outcome.as_str(), hook.duration_ms);
//! }
//! # Ok::<(), tokenjuice_hooks::HookError>(())
//! ```
//!
//! ## Run one handler (what `doctor` needs)
//!
//! ```no_run
//! use tokenjuice_hooks::{build_payload, run_handler, EngineOptions, EventKind, EventRequest, Handler, Host};
//!
//! let project = std::path::Path::new("/path/to/project");
//! let dialect = Host::Claude.dialect();
//! let payload = build_payload(dialect, EventKind::PreToolUse, &EventRequest {
//!     cwd: project.to_path_buf(),
//!     tool_input: Some(serde_json::json!({"command": "git status"})),
//!     ..Default::default()
//! })?;
//! let trace = run_handler(dialect, EventKind::PreToolUse, &Handler::command("my-hook --check"),
//!                         &payload, project, &EngineOptions::default());
//! assert!(trace.exit_code == Some(0), "hook failed: {}", trace.stderr);
//! # Ok::<(), tokenjuice_hooks::HookError>(())
//! ```
//!
//! Merge rules, exit codes and the dialect table are documented in `docs/hooks.md` and on
//! [`engine::merge`].

pub mod cli;
pub mod clock;
pub mod command_log;
pub mod dialects;
pub mod engine;
pub mod error;
pub mod events;
pub mod handler;
pub mod homes;
pub mod input;
pub mod intro;
pub mod jsonc;
pub mod lifecycle;
pub mod matcher;
pub mod payload;
pub mod redact;
pub mod registry;
pub mod sessions;
pub(crate) mod sha256;

pub use dialects::{Dialect, Host, HostEnv, Scope};
pub use engine::discovery::{
    ConfiguredHook, Diagnostic, FileStatus, HookSettings, Provenance, Severity,
};
pub use engine::dispatcher::{run_handler, Engine, EngineOptions, Plan};
pub use engine::outcome::{HookStatus, HookTrace, Outcome};
pub use engine::output_parser::{Decision, HookEffect};
pub use error::HookError;
pub use events::EventKind;
pub use handler::{Handler, HandlerKind, ModelVerdict, NoModel, PromptEvaluator};
pub use payload::{build_payload, EventRequest};
