//! The hooks toolkit's command line, `tokenjuice hooks …` (the `tokenjuice` binary parses
//! and dispatches it): load, validate and run Claude-Code-style hooks the way each host
//! does, plus the agent-side helpers of the toolkit (command log, sessions, lifecycle
//! hooks, intro, `#` instructions). It lives here, with the toolkit, and is built for size
//! as the rest of this crate: it runs once per process.

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use serde_json::{json, Map, Value};

use crate::command_log::{CommandLogConfig, CommandLogger, EditKind};
use crate::dialects::{ConfigFile, FileShape};
use crate::events::{MatcherTarget, ToolClass};
use crate::input::{parse_hash_instruction, save_instruction, SaveOutcome};
use crate::intro::{IntroConfig, IntroLoader};
use crate::lifecycle::{HooksManager, LifecycleContext, LifecycleType};
use crate::sessions::{SessionConfig, SessionStore};
use crate::{
    build_payload, Dialect, Engine, EventKind, EventRequest, FileStatus, HookSettings, Host,
    HostEnv, Outcome, Severity,
};

const RUN_LONG_ABOUT: &str = "\
Runs every hook that matches EVENT for real — same settings files, payload, environment, \
timeouts, process-group handling and exit-code rules as the host — and prints the merged \
outcome plus one trace entry per hook.

EVENT is the canonical name (PreToolUse, SessionStart, …, or the views PreBash/PostBash/\
PreEdit/PostEdit) or the host's own spelling (BeforeTool for gemini, preToolUse for cursor).

The payload is built as the host would (session_id, transcript_path, cwd, hook_event_name, \
tool_name, tool_input, event fields with their defaults, and the fields a host adds to a tool \
event, such as tool_use_id and permission_mode); --field sets one, --payload replaces it entirely.
JSON arguments accept a literal, @FILE, or - for standard input.

Exit status: 0 when the operation may proceed (allow, ask, or no decision), 2 when it is \
blocked (deny, exit code 2, or continue:false), 1 on a usage error.";

/// Arguments of `tokenjuice hooks`.
#[derive(Args, Debug)]
#[command(
    about = "Load, validate and run Claude-Code-style hooks exactly as a host would",
    long_about = "Load, validate and run Claude-Code-style hooks exactly as a host would.\n\n\
Hosts (--host): codebuddy (default), codebuddy-cli, claude, cursor, codex, gemini. Settings are read from \
the host's user and project files; HOME and each host's own variable (CLAUDE_CONFIG_DIR, CODEBUDDY_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME) are honoured."
)]
pub struct HooksArgs {
    #[command(subcommand)]
    pub command: HooksCommand,
}

#[derive(Subcommand, Debug)]
pub enum HooksCommand {
    /// List the hooks a host loads for a project, with the file and entry each comes from
    List(ListArgs),
    /// Check hook settings files (syntax with line:column, shape, events, matchers)
    Validate(ValidateArgs),
    /// Run the hooks of an event for real and print the merged outcome and a trace
    #[command(long_about = RUN_LONG_ABOUT)]
    Run(RunArgs),
    /// List the events a host fires, how it spells them and what their matchers test
    Events(EventsArgs),
    /// Inspect or append to the command log (JSONL of tool calls, commands, file edits)
    Log(LogArgs),
    /// List, show and clean up persisted agent sessions
    Sessions(SessionsArgs),
    /// Manage lifecycle hooks: built-in recipes, enable/disable, run, explain
    Lifecycle(LifecycleArgs),
    /// Print the intro (role and rules text) an agent gets at session start
    Intro(IntroArgs),
    /// Save a '# instruction' into the project's .codebuddyrules
    Remember(RememberArgs),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Args, Debug, Clone)]
pub struct HostArgs {
    /// Host whose hook contract to follow: codebuddy, codebuddy-cli, claude, cursor, codex, gemini
    #[arg(long, default_value = "codebuddy", value_name = "HOST")]
    pub host: String,
    /// Project directory (default: the current directory)
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct ListArgs {
    #[command(flatten)]
    pub host: HostArgs,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Args, Debug)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub host: HostArgs,
    /// Files to check (default: every settings file of the host for the project)
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// Event to fire (canonical or host spelling)
    #[arg(value_name = "EVENT")]
    pub event: String,
    #[command(flatten)]
    pub host: HostArgs,
    /// Tool name for tool events (host name or an alias such as Bash; default: the shell tool)
    #[arg(long, value_name = "NAME")]
    pub tool: Option<String>,
    /// tool_input as JSON, @FILE or - (stdin)
    #[arg(long, value_name = "JSON|@FILE|-")]
    pub input: Option<String>,
    /// tool_response for PostToolUse, as JSON, @FILE or -
    #[arg(long, value_name = "JSON|@FILE|-")]
    pub tool_response: Option<String>,
    /// The whole payload instead of building one (JSON, @FILE or -)
    #[arg(long, value_name = "JSON|@FILE|-", conflicts_with_all = ["tool", "input", "tool_response", "prompt", "fields"])]
    pub payload: Option<String>,
    /// The prompt (UserPromptSubmit)
    #[arg(long)]
    pub prompt: Option<String>,
    /// Set a payload field, e.g. --field source=resume or --field stop_hook_active=true
    /// (VALUE is parsed as JSON when it is valid JSON, else taken as a string)
    #[arg(long = "field", value_name = "KEY=VALUE")]
    pub fields: Vec<String>,
    /// session_id to send (default: a generated one)
    #[arg(long, value_name = "ID")]
    pub session_id: Option<String>,
    /// transcript_path to send
    #[arg(long, value_name = "PATH")]
    pub transcript: Option<String>,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Args, Debug)]
pub struct EventsArgs {
    /// Host whose events to list
    #[arg(long, default_value = "codebuddy", value_name = "HOST")]
    pub host: String,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Args, Debug)]
pub struct LogArgs {
    #[command(subcommand)]
    pub command: LogCommand,
    /// Log directory (default: ~/.codebuddy/logs)
    #[arg(long, global = true, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum LogCommand {
    /// Totals: files, records by kind, bytes
    Stats {
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Print the newest records (JSON lines)
    Tail {
        /// Number of records
        #[arg(short = 'n', long, default_value_t = 20)]
        lines: usize,
    },
    /// Record a hook payload read from stdin (use as a PostToolUse hook command):
    /// shell tools become bash_command records, write/edit tools file edits, others tool calls
    Record {
        /// Host whose tool names the payload uses
        #[arg(long, default_value = "codebuddy", value_name = "HOST")]
        host: String,
        /// Record whole command lines (secrets redacted); by default only the program is
        /// recorded, since a command line can carry a secret no pattern knows
        #[arg(long)]
        command_lines: bool,
    },
}

#[derive(Args, Debug)]
pub struct SessionsArgs {
    #[command(subcommand)]
    pub command: SessionsCommand,
    /// Session directory (default: ~/.codebuddy/sessions)
    #[arg(long, global = true, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Project the sessions belong to (default: the current directory)
    #[arg(long, global = true, value_name = "DIR")]
    pub project: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum SessionsCommand {
    /// List this project's sessions, newest first
    List {
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Print one session as JSON
    Show {
        /// Session id
        id: String,
    },
    /// Delete this project's sessions beyond the newest MAX
    Cleanup {
        /// Sessions to keep
        #[arg(long, default_value_t = 50)]
        max: usize,
    },
}

#[derive(Args, Debug)]
pub struct LifecycleArgs {
    #[command(subcommand)]
    pub command: LifecycleCommand,
    /// Project directory (default: the current directory)
    #[arg(long, global = true, value_name = "DIR")]
    pub project: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum LifecycleCommand {
    /// Show every lifecycle hook and whether it is enabled
    List,
    /// Enable a hook (saved to .codebuddy/lifecycle-hooks.json)
    Enable { name: String },
    /// Disable a hook (saved)
    Disable { name: String },
    /// Run the enabled hooks of a type, e.g. `run post-edit --file src/a.ts`
    Run {
        /// pre-edit, post-edit, pre-bash, post-bash, pre-commit, post-commit, pre-prompt,
        /// post-response, on-error, on-tool-call
        #[arg(value_name = "TYPE")]
        hook_type: String,
        /// The edited file
        #[arg(long)]
        file: Option<PathBuf>,
        /// The shell command
        #[arg(long)]
        command: Option<String>,
        /// Only say which hooks would run and why
        #[arg(long)]
        explain: bool,
    },
}

#[derive(Args, Debug)]
pub struct IntroArgs {
    /// Project directory (default: the current directory)
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Maximum length in characters
    #[arg(long, default_value_t = 8000)]
    pub max_length: usize,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Args, Debug)]
pub struct RememberArgs {
    /// The instruction, with or without the leading '#'
    #[arg(value_name = "INSTRUCTION")]
    pub text: String,
    /// Project directory (default: the current directory)
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
}

/// Runs a `tokenjuice hooks` subcommand and returns the process exit code.
pub fn run(args: HooksArgs) -> Result<i32> {
    match args.command {
        HooksCommand::List(a) => list(a),
        HooksCommand::Validate(a) => validate(a),
        HooksCommand::Run(a) => run_event(a),
        HooksCommand::Events(a) => events(a),
        HooksCommand::Log(a) => log(a),
        HooksCommand::Sessions(a) => sessions(a),
        HooksCommand::Lifecycle(a) => lifecycle(a),
        HooksCommand::Intro(a) => intro(a),
        HooksCommand::Remember(a) => remember(a),
    }
}

fn parse_host(s: &str) -> Result<Host> {
    Ok(s.parse::<Host>()?)
}

fn project_dir(p: Option<&PathBuf>) -> Result<PathBuf> {
    let dir = match p {
        Some(p) => p.clone(),
        None => std::env::current_dir()
            .context("cannot determine the current directory; pass --project DIR")?,
    };
    std::fs::canonicalize(&dir).with_context(|| {
        format!(
            "project directory {} does not exist; pass an existing --project DIR",
            dir.display()
        )
    })
}

fn home() -> Result<PathBuf> {
    HostEnv::from_process()
        .home
        .ok_or_else(|| anyhow!("HOME is not set; pass --dir DIR"))
}

fn print_json(v: &Value) {
    println!(
        "{}",
        serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
    );
}

/// Reads a JSON argument: a literal, `@FILE`, or `-` for stdin.
fn read_json_arg(what: &str, arg: &str) -> Result<Value> {
    let text = if arg == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .with_context(|| format!("cannot read {what} from stdin"))?;
        s
    } else if let Some(path) = arg.strip_prefix('@') {
        std::fs::read_to_string(path).with_context(|| format!("cannot read {what} from {path}"))?
    } else {
        arg.to_string()
    };
    serde_json::from_str(&text)
        .map_err(|e| anyhow!("{what} is not valid JSON ({e}); pass a JSON object, @FILE or -"))
}

fn read_json_object(what: &str, arg: &str) -> Result<Value> {
    let v = read_json_arg(what, arg)?;
    if !v.is_object() {
        bail!("{what} must be a JSON object, got {v}");
    }
    Ok(v)
}

fn parse_field(s: &str) -> Result<(String, Value)> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| anyhow!("--field {s:?} must look like KEY=VALUE"))?;
    if k.is_empty() {
        bail!("--field {s:?} has an empty key");
    }
    let value = serde_json::from_str(v).unwrap_or_else(|_| Value::String(v.to_string()));
    Ok((k.to_string(), value))
}

fn target_text(t: MatcherTarget) -> String {
    match t {
        MatcherTarget::ToolName => "tool_name".into(),
        MatcherTarget::Field(f) => f.into(),
        MatcherTarget::Ignored => "(no matcher)".into(),
    }
}

fn host_event_name(d: &Dialect, e: EventKind) -> &'static str {
    d.event_name(e).unwrap_or(e.name())
}

// ---------------------------------------------------------------- list / validate / events

fn list(a: ListArgs) -> Result<i32> {
    let host = parse_host(&a.host.host)?;
    let project = project_dir(a.host.project.as_ref())?;
    let s = HookSettings::load(host, &project, &HostEnv::from_process());
    let d = s.dialect;
    if a.format == Format::Json {
        let hooks: Vec<Value> = s
            .hooks
            .iter()
            .map(|h| {
                json!({
                    "event": h.event_name,
                    "canonicalEvent": h.event.name(),
                    "matcher": h.matcher_source,
                    "type": h.handler.kind.type_name(),
                    "command": h.handler.kind.text(),
                    "timeoutMs": h.handler.timeout.unwrap_or(d.default_timeout).as_millis() as u64,
                    "timeoutIsDefault": h.handler.timeout.is_none(),
                    "sequential": h.sequential,
                    "source": h.provenance.path,
                    "scope": h.provenance.scope,
                    "entry": h.provenance.entry,
                })
            })
            .collect();
        print_json(
            &json!({"host": d.id, "project": project, "files": s.files, "hooks": hooks, "diagnostics": s.diagnostics}),
        );
        return Ok(0);
    }
    println!("{} hooks for {}", d.display_name, project.display());
    for f in &s.files {
        let status = match &f.status {
            FileStatus::Missing => "not present".to_string(),
            FileStatus::Loaded { hooks } => format!("{hooks} hook(s)"),
            FileStatus::Broken => "BROKEN (skipped)".to_string(),
        };
        println!(
            "  {:<8} {}  {status}",
            f.scope.to_string(),
            f.path.display()
        );
    }
    if s.hooks.is_empty() {
        println!("\nno hooks configured");
    }
    let mut last_event = String::new();
    for h in &s.hooks {
        if h.event_name != last_event {
            println!("\n{}", h.event_name);
            last_event = h.event_name.clone();
        }
        let timeout = h.handler.timeout.unwrap_or(d.default_timeout);
        println!(
            "  [{}] {}  ({}, timeout {}s{})",
            h.matcher_source.as_deref().unwrap_or("*"),
            h.handler.kind.text(),
            h.handler.kind.type_name(),
            timeout.as_secs_f64(),
            if h.handler.timeout.is_none() {
                " default"
            } else {
                ""
            }
        );
        println!(
            "      from {} {} ({})",
            h.provenance.path.display(),
            h.provenance.entry,
            h.provenance.scope
        );
    }
    if !s.diagnostics.is_empty() {
        println!();
        for diag in &s.diagnostics {
            eprintln!("{diag}");
        }
    }
    Ok(0)
}

fn shape_for(d: &Dialect, path: &Path) -> FileShape {
    if path.extension().and_then(|e| e.to_str()) == Some("toml") {
        if let Some(l) = d
            .locations
            .iter()
            .find(|l| l.shape == FileShape::MatcherGroupsToml)
        {
            return l.shape;
        }
    }
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    d.locations
        .iter()
        .find(|l| l.file == name && l.shape != FileShape::MatcherGroupsToml)
        .or_else(|| {
            d.locations
                .iter()
                .find(|l| l.shape != FileShape::MatcherGroupsToml)
        })
        .map(|l| l.shape)
        .unwrap_or(FileShape::MatcherGroupsJson)
}

fn validate(a: ValidateArgs) -> Result<i32> {
    let host = parse_host(&a.host.host)?;
    let d = host.dialect();
    let env = HostEnv::from_process();
    let settings = if a.files.is_empty() {
        let project = project_dir(a.host.project.as_ref())?;
        HookSettings::load(host, &project, &env)
    } else {
        let files: Vec<ConfigFile> = a
            .files
            .iter()
            .map(|p| ConfigFile {
                path: p.clone(),
                scope: crate::Scope::Project,
                shape: shape_for(d, p),
            })
            .collect();
        let mut s = HookSettings::load_files(d, &files);
        for f in &s.files.clone() {
            if f.status == FileStatus::Missing {
                s.diagnostics.push(crate::Diagnostic {
                    severity: Severity::Error,
                    path: f.path.clone(),
                    line: None,
                    column: None,
                    entry: None,
                    message: "file not found".into(),
                });
            }
        }
        s
    };
    let errors = settings
        .diagnostics
        .iter()
        .filter(|x| x.severity == Severity::Error)
        .count();
    let warnings = settings.diagnostics.len() - errors;
    if a.format == Format::Json {
        print_json(&json!({
            "host": d.id,
            "valid": errors == 0,
            "errors": errors,
            "warnings": warnings,
            "files": settings.files,
            "hooks": settings.hooks.len(),
            "diagnostics": settings.diagnostics,
        }));
    } else {
        for f in &settings.files {
            match &f.status {
                FileStatus::Loaded { hooks } => println!("{}: {hooks} hook(s)", f.path.display()),
                FileStatus::Missing if a.files.is_empty() => {
                    println!("{}: not present", f.path.display())
                }
                FileStatus::Missing => {}
                FileStatus::Broken => println!("{}: broken", f.path.display()),
            }
        }
        for diag in &settings.diagnostics {
            println!("{diag}");
        }
        println!(
            "{}: {errors} error(s), {warnings} warning(s) ({} rules)",
            if errors == 0 { "valid" } else { "invalid" },
            d.display_name
        );
    }
    Ok(if errors == 0 { 0 } else { 1 })
}

fn events(a: EventsArgs) -> Result<i32> {
    let d = parse_host(&a.host)?.dialect();
    let rows: Vec<Value> = d
        .events
        .iter()
        .map(|e| {
            let spec = e.kind.spec();
            json!({
                "event": e.kind.name(),
                "hostName": e.name,
                "matcher": target_text(d.matcher_target(e.kind)),
                "exit2Blocks": spec.exit2_blocks,
                "summary": spec.summary,
            })
        })
        .collect();
    if a.format == Format::Json {
        print_json(
            &json!({"host": d.id, "defaultTimeoutMs": d.default_timeout.as_millis() as u64, "events": rows}),
        );
        return Ok(0);
    }
    println!(
        "{} events (default timeout {} s)",
        d.display_name,
        d.default_timeout.as_secs_f64()
    );
    println!(
        "  {:<18} {:<22} {:<20} blocks  what",
        "canonical", "host name", "matcher tests"
    );
    for r in &rows {
        println!(
            "  {:<18} {:<22} {:<20} {:<7} {}",
            r["event"].as_str().unwrap_or(""),
            r["hostName"].as_str().unwrap_or(""),
            r["matcher"].as_str().unwrap_or(""),
            if r["exit2Blocks"] == true {
                "yes"
            } else {
                "no"
            },
            r["summary"].as_str().unwrap_or("")
        );
    }
    let views: Vec<&str> = [
        EventKind::PreBash,
        EventKind::PostBash,
        EventKind::PreEdit,
        EventKind::PostEdit,
    ]
    .iter()
    .filter(|v| d.host_event(**v).is_none())
    .map(|v| v.name())
    .collect();
    if !views.is_empty() {
        println!(
            "  views: {} (PreToolUse/PostToolUse on shell tools {} or edit tools {})",
            views.join(", "),
            d.tools_of(ToolClass::Shell).join("/"),
            d.tools_of(ToolClass::Edit).join("/")
        );
    }
    Ok(0)
}

// ---------------------------------------------------------------- run

fn run_event(a: RunArgs) -> Result<i32> {
    let host = parse_host(&a.host.host)?;
    let d = host.dialect();
    let event = d.resolve_event(&a.event)?;
    let project = project_dir(a.host.project.as_ref())?;
    let engine = Engine::load(host, &project, HostEnv::from_process());

    let payload = match &a.payload {
        Some(p) => read_json_object("--payload", p)?,
        None => {
            let mut req = EventRequest {
                session_id: a.session_id.clone(),
                transcript_path: a.transcript.clone(),
                cwd: project.clone(),
                tool_name: a.tool.clone(),
                ..Default::default()
            };
            if let Some(i) = &a.input {
                req.tool_input = Some(read_json_object("--input", i)?);
            }
            if let Some(r) = &a.tool_response {
                req.tool_response = Some(read_json_arg("--tool-response", r)?);
            }
            if let Some(p) = &a.prompt {
                req.fields.insert("prompt".into(), Value::String(p.clone()));
            }
            for f in &a.fields {
                let (k, v) = parse_field(f)?;
                req.fields.insert(k, v);
            }
            if a.tool.is_some() && !event.spec().tool_event {
                bail!("--tool only applies to tool events; {} has no tool", event);
            }
            build_payload(d, event, &req)?
        }
    };
    let outcome = engine.run(event, &payload);
    let unknown_tool = a.tool.as_deref().and_then(|t| unknown_tool_hint(d, t));
    let skipped: Vec<Value> = if outcome.hooks.is_empty() {
        engine
            .plan(event, &payload)
            .skipped
            .iter()
            .map(|s| json!({"command": s.hook.handler.kind.text(), "source": s.hook.provenance.path, "entry": s.hook.provenance.entry, "why": s.why}))
            .collect()
    } else {
        Vec::new()
    };
    let diagnostics = &engine.settings().diagnostics;
    if a.format == Format::Json {
        let mut v = outcome.to_json();
        if let (Some(hint), Some(w)) = (&unknown_tool, v["warnings"].as_array_mut()) {
            w.push(Value::String(hint.clone()));
        }
        if let Value::Object(m) = &mut v {
            m.insert("skipped".into(), Value::Array(skipped));
            m.insert(
                "settingsDiagnostics".into(),
                serde_json::to_value(diagnostics).unwrap_or(Value::Null),
            );
        }
        print_json(&v);
    } else {
        for diag in diagnostics {
            eprintln!("{diag}");
        }
        if let Some(hint) = &unknown_tool {
            eprintln!("warning: {hint}");
        }
        print_outcome(d, &outcome, &skipped);
    }
    Ok(outcome.exit_code())
}

/// `--tool` names none of the host's own tools (nor an alias of one): say so, since hooks
/// matching the host's tools will not see it (`--tool Bash` for Gemini, whose shell tool is
/// `run_shell_command`). An MCP tool's name is taken as given.
fn unknown_tool_hint(d: &Dialect, tool: &str) -> Option<String> {
    let names = d.tools.names;
    let known = names.is_empty()
        || names.contains(&d.canonical_tool_name(tool).as_str())
        || tool.starts_with("mcp__")
        || tool.starts_with("mcp_");
    (!known).then(|| {
        format!(
            "`{tool}` is not one of {}'s tools ({}); hooks matching them do not see it (the \
             shell tool here is {}; the PreBash/PostBash events pick it for you)",
            d.id,
            names.join(", "),
            d.tools_of(ToolClass::Shell).join("/")
        )
    })
}

fn indent(s: &str, prefix: &str, max_lines: usize) -> String {
    let lines: Vec<&str> = s.trim_end().lines().collect();
    let mut out: Vec<String> = lines
        .iter()
        .take(max_lines)
        .map(|l| format!("{prefix}{l}"))
        .collect();
    if lines.len() > max_lines {
        out.push(format!(
            "{prefix}… ({} more lines; use --format json for everything)",
            lines.len() - max_lines
        ));
    }
    out.join("\n")
}

fn print_outcome(d: &Dialect, o: &Outcome, skipped: &[Value]) {
    let event = host_event_name(d, o.event);
    println!("{event} ({}): {} hook(s) ran", d.id, o.hooks.len());
    let verdict = if o.blocked() {
        "BLOCKED"
    } else {
        "may proceed"
    };
    match &o.reason {
        Some(r) => println!("decision: {} — {r}  [{verdict}]", o.decision_str()),
        None => println!("decision: {}  [{verdict}]", o.decision_str()),
    }
    if !o.continue_ {
        println!(
            "continue: false{}",
            o.stop_reason
                .as_ref()
                .map(|r| format!(" — stopReason: {r}"))
                .unwrap_or_default()
        );
    }
    if let Some(m) = &o.system_message {
        println!("systemMessage: {m}");
    }
    if o.suppress_output {
        println!("suppressOutput: true");
    }
    if let Some(u) = &o.updated_input {
        println!("updatedInput: {}", Value::Object(u.clone()));
    }
    if !o.additional_context.is_empty() {
        println!("additionalContext:");
        for c in &o.additional_context {
            println!("{}", indent(c, "  | ", 20));
        }
    }
    for f in &o.feedback {
        println!("feedback to agent: {f}");
    }
    for w in &o.warnings {
        println!("warning: {w}");
    }
    if o.hooks.is_empty() {
        println!("no hooks matched");
        for s in skipped {
            println!(
                "  skipped {}: {}",
                s["command"].as_str().unwrap_or(""),
                s["why"].as_str().unwrap_or("")
            );
        }
    }
    for (n, h) in o.hooks.iter().enumerate() {
        let exit = match (h.exit_code, h.signal) {
            (Some(c), _) => format!("exit {c}"),
            (None, Some(s)) => format!("signal {s}"),
            _ => "no exit".into(),
        };
        println!(
            "\n[{}] {}  {}  {} ms  {}",
            n + 1,
            h.outcome.as_str(),
            exit,
            h.duration_ms,
            h.command
        );
        if let (Some(src), Some(entry)) = (&h.source, &h.entry) {
            println!("    from {} {}", src.display(), entry);
        }
        println!("    matched: {}", h.matched);
        if h.timed_out {
            println!(
                "    timed out after {} ms (process group killed)",
                h.timeout_ms
            );
        }
        if !h.stdout.trim().is_empty() {
            println!("    stdout:\n{}", indent(&h.stdout, "      ", 10));
        }
        if !h.stderr.trim().is_empty() {
            println!("    stderr:\n{}", indent(&h.stderr, "      ", 10));
        }
        for note in &h.notes {
            println!("    note: {note}");
        }
        for dup in &h.duplicates {
            println!("    also configured at {dup} (run once)");
        }
    }
}

// ---------------------------------------------------------------- log

fn log(a: LogArgs) -> Result<i32> {
    let dir = match a.dir {
        Some(d) => d,
        None => home()?.join(".codebuddy").join("logs"),
    };
    let mut config = CommandLogConfig::in_dir(&dir);
    if let LogCommand::Record { command_lines, .. } = &a.command {
        config.record_command_lines = *command_lines;
    }
    let logger = CommandLogger::new(config);
    match a.command {
        LogCommand::Stats { format } => {
            let s = logger.stats();
            if format == Format::Json {
                print_json(&serde_json::to_value(&s)?);
            } else {
                println!(
                    "{}: {} file(s), {} record(s), {} bytes",
                    dir.display(),
                    s.files,
                    s.total_entries,
                    s.total_bytes
                );
                for (k, n) in &s.by_kind {
                    println!("  {k:<14} {n}");
                }
                if s.unreadable_lines > 0 {
                    println!("  {} unreadable line(s)", s.unreadable_lines);
                }
            }
        }
        LogCommand::Tail { lines } => {
            for e in logger.recent(lines) {
                println!("{}", serde_json::to_string(&e)?);
            }
        }
        LogCommand::Record { host, .. } => {
            let d = parse_host(&host)?.dialect();
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .context("cannot read the hook payload from stdin")?;
            let p: Value =
                serde_json::from_str(&text).context("the hook payload on stdin is not JSON")?;
            let mut logger = logger;
            logger.set_session_id(
                p.get("session_id")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            );
            record_payload(d, &logger, &p)?;
        }
    }
    Ok(0)
}

fn record_payload(d: &Dialect, logger: &CommandLogger, p: &Value) -> Result<()> {
    let tool = p.get("tool_name").and_then(Value::as_str).unwrap_or("");
    let input = p
        .get("tool_input")
        .cloned()
        .unwrap_or(Value::Object(Map::new()));
    let response = p.get("tool_response").cloned().unwrap_or(Value::Null);
    if d.tool_in_class(tool, ToolClass::Shell) {
        let command = input.get("command").and_then(Value::as_str).unwrap_or("");
        let code = response
            .get("exitCode")
            .or_else(|| response.get("exit_code"))
            .and_then(Value::as_i64)
            .map(|c| c as i32);
        let out = response.get("stdout").and_then(Value::as_str).unwrap_or("");
        logger.log_bash_command(command, code, out, None)?;
    } else if d.tool_in_class(tool, ToolClass::Edit) || tool == "delete_files" {
        let file = ["file_path", "filePath", "path", "target_file"]
            .iter()
            .find_map(|k| input.get(*k).and_then(Value::as_str))
            .unwrap_or("");
        // Whole-file writes may create or overwrite; only a delete tool is known to delete.
        let kind = if tool == "delete_files" {
            EditKind::Delete
        } else {
            EditKind::Edit
        };
        let ok = response
            .get("success")
            .and_then(Value::as_bool)
            .unwrap_or(true);
        logger.log_file_edit(Path::new(file), kind, ok)?;
    } else {
        logger.log_tool_call(
            if tool.is_empty() { "(unknown)" } else { tool },
            &input,
            &response,
            None,
        )?;
    }
    Ok(())
}

// ---------------------------------------------------------------- sessions

fn sessions(a: SessionsArgs) -> Result<i32> {
    let dir = match a.dir {
        Some(d) => d,
        None => home()?.join(".codebuddy").join("sessions"),
    };
    let project = project_dir(a.project.as_ref())?;
    let mut config = SessionConfig::in_dir(&dir);
    if let SessionsCommand::Cleanup { max } = &a.command {
        config.max_sessions = *max;
    }
    let store = SessionStore::new(&project, config);
    match a.command {
        SessionsCommand::List { format } => {
            let list = store.list();
            for w in &list.warnings {
                eprintln!("warning: {w}");
            }
            if format == Format::Json {
                print_json(&json!({"sessions": list.sessions, "warnings": list.warnings}));
            } else if list.sessions.is_empty() {
                println!("no sessions for {} in {}", project.display(), dir.display());
            } else {
                for s in &list.sessions {
                    println!(
                        "{}  updated {}  {} message(s)",
                        s.id, s.updated_at, s.messages
                    );
                }
            }
        }
        SessionsCommand::Show { id } => {
            let s = store.load(&id)?;
            print_json(&serde_json::to_value(&s)?);
        }
        SessionsCommand::Cleanup { .. } => {
            let deleted = store.cleanup()?;
            println!(
                "deleted {} session(s){}",
                deleted.len(),
                if deleted.is_empty() {
                    String::new()
                } else {
                    format!(": {}", deleted.join(", "))
                }
            );
        }
    }
    Ok(0)
}

// ---------------------------------------------------------------- lifecycle / intro / remember

fn lifecycle(a: LifecycleArgs) -> Result<i32> {
    let project = project_dir(a.project.as_ref())?;
    let mut m = HooksManager::new(&project)?;
    match a.command {
        LifecycleCommand::List => print!("{}", m.format_status()),
        LifecycleCommand::Enable { name } => {
            m.set_enabled(&name, true)?;
            println!("enabled {name} (saved to {})", m.config_path().display());
        }
        LifecycleCommand::Disable { name } => {
            m.set_enabled(&name, false)?;
            println!("disabled {name} (saved to {})", m.config_path().display());
        }
        LifecycleCommand::Run {
            hook_type,
            file,
            command,
            explain,
        } => {
            let t = LifecycleType::parse(&hook_type).ok_or_else(|| {
                let all: Vec<&str> = LifecycleType::ALL.iter().map(|t| t.as_str()).collect();
                anyhow!(
                    "unknown lifecycle type {hook_type:?}; use one of {}",
                    all.join(", ")
                )
            })?;
            let file = file.map(|f| if f.is_absolute() { f } else { project.join(f) });
            let ctx = LifecycleContext {
                file,
                command,
                ..Default::default()
            };
            if explain {
                for (name, why) in m.explain(t, &ctx) {
                    println!("{name}: {}", why.unwrap_or_else(|| "would run".into()));
                }
                return Ok(0);
            }
            let results = m.execute(t, &ctx);
            if results.is_empty() {
                println!("no enabled {} hook applies", t.as_str());
            }
            let mut failed = false;
            for r in &results {
                println!(
                    "{} {} ({} ms){}",
                    if r.success { "ok  " } else { "FAIL" },
                    r.name,
                    r.duration_ms,
                    r.error
                        .as_ref()
                        .map(|e| format!(": {e}"))
                        .unwrap_or_default()
                );
                if !r.output.trim().is_empty() {
                    println!("{}", indent(&r.output, "    ", 20));
                }
                failed |= !r.success;
            }
            return Ok(if failed { 1 } else { 0 });
        }
    }
    Ok(0)
}

fn intro(a: IntroArgs) -> Result<i32> {
    let project = project_dir(a.project.as_ref())?;
    let config = IntroConfig {
        max_length: a.max_length,
        ..IntroConfig::default()
    };
    let mut loader = IntroLoader::new(&project, HostEnv::from_process().home, config);
    let intro = loader.load().clone();
    for w in &intro.warnings {
        eprintln!("warning: {w}");
    }
    if a.format == Format::Json {
        print_json(&serde_json::to_value(&intro)?);
    } else if intro.content.is_empty() {
        eprintln!("no intro: create .codebuddy/intro_hook.txt, .codebuddy/README.md or ~/.codebuddy/intro_hook.txt");
    } else {
        println!("{}", intro.content);
    }
    Ok(0)
}

fn remember(a: RememberArgs) -> Result<i32> {
    let project = project_dir(a.project.as_ref())?;
    let text = parse_hash_instruction(a.text.trim()).unwrap_or_else(|| a.text.trim().to_string());
    let path = project.join(".codebuddyrules");
    match save_instruction(&path, &text)? {
        SaveOutcome::Added => println!("Instruction saved to {}:\n  \"{text}\"", path.display()),
        SaveOutcome::AlreadyPresent => println!("Already in {}: \"{text}\"", path.display()),
    }
    Ok(0)
}
