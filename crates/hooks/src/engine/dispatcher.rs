//! Selecting, running and merging the hooks of one event.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use super::command_runner::{run_command, CommandRequest, RawRun, RunLimits};
use super::discovery::{ConfiguredHook, HookSettings};
use super::merge::{merge_finished_as, MergeItem};
use super::outcome::{HookStatus, HookTrace, Outcome};
use super::output_parser::{effect_from_json, parse_stdout, Decision, HookEffect};
use crate::dialects::{Dialect, Host, HostEnv, RewriteStyle};
use crate::events::{EventKind, MatcherTarget};
use crate::handler::{Handler, HandlerKind, NoModel, PromptEvaluator};
use crate::matcher::Matcher;

/// Runner options shared by all hooks of an engine.
#[derive(Clone)]
pub struct EngineOptions {
    /// SIGTERM → SIGKILL grace period.
    pub grace: Duration,
    /// Bytes of stdout and of stderr kept per hook.
    pub output_cap: usize,
    /// How long to keep reading after a hook exits while a child holds its pipes.
    pub drain_after_exit: Duration,
    /// Answers `prompt`/`agent` handlers. Default: [`NoModel`] (allow).
    pub evaluator: Arc<dyn PromptEvaluator>,
    /// Extra environment for every hook.
    pub extra_env: Vec<(String, String)>,
}

impl Default for EngineOptions {
    fn default() -> EngineOptions {
        let l = RunLimits::default();
        EngineOptions {
            grace: l.grace,
            output_cap: l.output_cap,
            drain_after_exit: l.drain_after_exit,
            evaluator: Arc::new(NoModel),
            extra_env: Vec::new(),
        }
    }
}

impl std::fmt::Debug for EngineOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineOptions")
            .field("grace", &self.grace)
            .field("output_cap", &self.output_cap)
            .field("drain_after_exit", &self.drain_after_exit)
            .finish_non_exhaustive()
    }
}

/// A hook selected for an event.
#[derive(Clone, Debug)]
pub struct PlannedHook<'a> {
    pub hook: &'a ConfiguredHook,
    /// Why it matched.
    pub why: String,
    /// Other configured copies of the same command (they do not run again).
    pub duplicates: Vec<&'a ConfiguredHook>,
}

/// A hook that was not selected, and why.
#[derive(Clone, Debug)]
pub struct SkippedHook<'a> {
    pub hook: &'a ConfiguredHook,
    pub why: String,
}

/// Which hooks an event would run.
#[derive(Clone, Debug, Default)]
pub struct Plan<'a> {
    pub selected: Vec<PlannedHook<'a>>,
    pub skipped: Vec<SkippedHook<'a>>,
}

/// The engine: a dialect's settings for one project, ready to run events.
#[derive(Debug)]
pub struct Engine {
    settings: HookSettings,
    project_dir: PathBuf,
    env: HostEnv,
    options: EngineOptions,
}

/// The same context a host gives every hook.
struct RunContext<'a> {
    dialect: &'static Dialect,
    project_dir: &'a Path,
    options: &'a EngineOptions,
}

impl Engine {
    /// Loads `host`'s settings for `project_dir`.
    pub fn load(host: Host, project_dir: impl Into<PathBuf>, env: HostEnv) -> Engine {
        let project_dir = project_dir.into();
        let settings = HookSettings::load(host, &project_dir, &env);
        Engine {
            settings,
            project_dir,
            env,
            options: EngineOptions::default(),
        }
    }

    /// An engine over settings loaded elsewhere.
    pub fn new(settings: HookSettings, project_dir: impl Into<PathBuf>, env: HostEnv) -> Engine {
        Engine {
            settings,
            project_dir: project_dir.into(),
            env,
            options: EngineOptions::default(),
        }
    }

    pub fn with_options(mut self, options: EngineOptions) -> Engine {
        self.options = options;
        self
    }

    pub fn settings(&self) -> &HookSettings {
        &self.settings
    }

    pub fn dialect(&self) -> &'static Dialect {
        self.settings.dialect
    }

    pub fn project_dir(&self) -> &Path {
        &self.project_dir
    }

    pub fn env(&self) -> &HostEnv {
        &self.env
    }

    /// Which hooks `event` would run for `payload`, with reasons, duplicates folded.
    pub fn plan(&self, event: EventKind, payload: &Value) -> Plan<'_> {
        plan(self.settings.dialect, &self.settings.hooks, event, payload)
    }

    /// Runs every matching hook of `event` (in parallel) and merges the results in
    /// configuration order.
    pub fn run(&self, event: EventKind, payload: &Value) -> Outcome {
        let plan = self.plan(event, payload);
        let ctx = RunContext {
            dialect: self.settings.dialect,
            project_dir: &self.project_dir,
            options: &self.options,
        };
        run_plan(&ctx, event, payload, &plan)
    }
}

fn field_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// Selects the hooks of `event` among `hooks`.
pub fn plan<'a>(
    dialect: &'static Dialect,
    hooks: &'a [ConfiguredHook],
    event: EventKind,
    payload: &Value,
) -> Plan<'a> {
    let mut out = Plan::default();
    // The host event whose hooks run: the event itself, or the base of a view the host
    // does not fire natively (then restricted to the view's tools).
    let (host_kind, class) = if dialect.host_event(event).is_some() {
        (event, None)
    } else if let Some((base, class)) = event.view() {
        (base, Some(class))
    } else {
        (event, None)
    };
    let target = dialect.matcher_target(host_kind);
    let tool = payload
        .get("tool_name")
        .and_then(Value::as_str)
        .unwrap_or("");
    if let Some(class) = class {
        if !dialect.tool_in_class(tool, class) {
            for h in hooks.iter().filter(|h| h.event == host_kind) {
                out.skipped.push(SkippedHook {
                    hook: h,
                    why: format!(
                        "{event} covers only {} tools; `{tool}` is not one",
                        dialect.tools_of(class).join("/")
                    ),
                });
            }
            return out;
        }
    }
    let mut seen: HashMap<(&'static str, &str), usize> = HashMap::new();
    for h in hooks.iter().filter(|h| h.event == host_kind) {
        let (matched, why) = match target {
            MatcherTarget::Ignored => (true, format!("{} has no matcher", host_kind)),
            MatcherTarget::ToolName => {
                let names = dialect.tool_names_for_matching(tool);
                let ok = h.matcher.matches_any(&names);
                let shown = if names.len() > 1 {
                    format!("`{tool}` (aliases {})", names[1..].join(", "))
                } else {
                    format!("`{tool}`")
                };
                (ok, format!("tool {shown} vs {}", h.matcher.describe()))
            }
            MatcherTarget::Field(f) => {
                let value = field_text(payload.get(f));
                (
                    h.matcher.matches_any(&[value.as_str()]),
                    format!("{f} `{value}` vs {}", h.matcher.describe()),
                )
            }
        };
        if !matched {
            out.skipped.push(SkippedHook {
                hook: h,
                why: format!("no match: {why}"),
            });
            continue;
        }
        let key = (h.handler.kind.type_name(), h.handler.kind.text());
        if dialect.dedupes_identical_commands {
            if let Some(&i) = seen.get(&key) {
                out.selected[i].duplicates.push(h);
                continue;
            }
            seen.insert(key, out.selected.len());
        }
        let why = if matches!(h.matcher, Matcher::All) && target != MatcherTarget::Ignored {
            format!("matcher matches all ({why})")
        } else {
            why
        };
        out.selected.push(PlannedHook {
            hook: h,
            why,
            duplicates: Vec::new(),
        });
    }
    out
}

fn run_plan(ctx: &RunContext<'_>, event: EventKind, payload: &Value, plan: &Plan<'_>) -> Outcome {
    // Execution units: a Gemini sequential group is one chain; every other hook is alone.
    let mut units: Vec<Vec<(usize, &PlannedHook<'_>)>> = Vec::new();
    for (i, p) in plan.selected.iter().enumerate() {
        if p.hook.sequential {
            if let Some(last) = units.last_mut() {
                if last
                    .last()
                    .is_some_and(|(_, q)| q.hook.sequential && q.hook.group == p.hook.group)
                {
                    last.push((i, p));
                    continue;
                }
            }
        }
        units.push(vec![(i, p)]);
    }
    let mut finished: Vec<(usize, HookTrace, std::time::Instant)> = Vec::new();
    std::thread::scope(|scope| {
        let handles: Vec<_> = units
            .iter()
            .map(|unit| scope.spawn(move || run_unit(ctx, event, payload, unit)))
            .collect();
        for h in handles {
            // A panicking hook thread is a bug in this crate; its hooks are simply missing
            // from the trace rather than taking the caller down.
            if let Ok(results) = h.join() {
                finished.extend(results);
            }
        }
    });
    let original = payload.get("tool_input").and_then(Value::as_object);
    // completion order: a host may resolve competing rewrites by it
    finished.sort_by_key(|(_, _, done)| *done);
    let items: Vec<(usize, MergeItem)> = finished
        .iter()
        .map(|(i, t, _)| {
            (
                *i,
                MergeItem {
                    label: t.command.clone(),
                    effect: t.effect.clone(),
                },
            )
        })
        .collect();
    let merged = merge_finished_as(items, original, &ctx.dialect.rewrite);
    finished.sort_by_key(|(i, _, _)| *i);
    let traces = finished.into_iter().map(|(_, t, _)| t).collect();
    let mut outcome =
        Outcome::from_merged(ctx.dialect.host, event, payload.clone(), merged, traces);
    outcome.tool_runs_before_stop =
        event == EventKind::PreToolUse && ctx.dialect.pre_tool_stop_runs_tool && !outcome.continue_;
    outcome
}

fn run_unit(
    ctx: &RunContext<'_>,
    event: EventKind,
    payload: &Value,
    unit: &[(usize, &PlannedHook<'_>)],
) -> Vec<(usize, HookTrace, std::time::Instant)> {
    let mut out = Vec::with_capacity(unit.len());
    let mut current = payload.clone();
    for (i, p) in unit {
        let mut trace = run_one(ctx, event, &p.hook.handler, &current);
        trace.index = *i;
        trace.source = Some(p.hook.provenance.path.clone());
        trace.scope = Some(p.hook.provenance.scope);
        trace.entry = Some(p.hook.provenance.entry.clone());
        trace.matcher = p.hook.matcher_source.clone();
        trace.matched = p.why.clone();
        trace.duplicates = p
            .duplicates
            .iter()
            .map(|d| d.provenance.to_string())
            .collect();
        if unit.len() > 1 {
            // Chain: the next hook sees the input as rewritten so far.
            if let (Some(rw), Some(Value::Object(obj))) =
                (&trace.effect.rewrite, current.get_mut("tool_input"))
            {
                match rw.style {
                    RewriteStyle::Patch => {
                        for (k, v) in &rw.input {
                            obj.insert(k.clone(), v.clone());
                        }
                    }
                    RewriteStyle::Replace => *obj = rw.input.clone(),
                }
            }
            trace
                .notes
                .push("sequential group: ran after the previous hook of its group".into());
        }
        out.push((*i, trace, std::time::Instant::now()));
    }
    out
}

/// The environment a dialect gives every hook.
pub fn hook_env(dialect: &Dialect, project_dir: &Path, payload: &Value) -> Vec<(String, String)> {
    let dir = project_dir.to_string_lossy().into_owned();
    let mut env: Vec<(String, String)> = dialect
        .project_dir_env
        .iter()
        .map(|k| ((*k).to_string(), dir.clone()))
        .collect();
    if let (Some(k), Some(sid)) = (
        dialect.session_id_env,
        payload.get("session_id").and_then(Value::as_str),
    ) {
        env.push((k.to_string(), sid.to_string()));
    }
    env.extend(
        dialect
            .constant_env
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string())),
    );
    env
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn first_line(s: &str) -> &str {
    s.trim().lines().next().unwrap_or("")
}

/// Runs one handler with `payload` under `dialect` — what `doctor` uses to prove that an
/// installed hook works. `project_dir` is the hook's working directory and the value of
/// the dialect's project-dir variables.
pub fn run_handler(
    dialect: &'static Dialect,
    event: EventKind,
    handler: &Handler,
    payload: &Value,
    project_dir: &Path,
    options: &EngineOptions,
) -> HookTrace {
    let ctx = RunContext {
        dialect,
        project_dir,
        options,
    };
    run_one(&ctx, event, handler, payload)
}

fn run_one(
    ctx: &RunContext<'_>,
    event: EventKind,
    handler: &Handler,
    payload: &Value,
) -> HookTrace {
    let dialect = ctx.dialect;
    let spec = event.spec();
    let timeout = handler.timeout.unwrap_or(dialect.default_timeout);
    let mut trace = HookTrace {
        index: 0,
        handler_type: handler.kind.type_name(),
        command: handler.kind.text().to_string(),
        source: None,
        scope: None,
        entry: None,
        matcher: None,
        matched: String::new(),
        exit_code: None,
        signal: None,
        timed_out: false,
        timeout_ms: timeout.as_millis() as u64,
        duration_ms: 0,
        pid: None,
        stdout: String::new(),
        stderr: String::new(),
        stdout_truncated: false,
        stderr_truncated: false,
        output: None,
        outcome: HookStatus::Ok,
        effect: HookEffect::default(),
        duplicates: Vec::new(),
        notes: Vec::new(),
    };
    let command = match &handler.kind {
        HandlerKind::Command { command } => command.clone(),
        other => {
            let started = std::time::Instant::now();
            match ctx.options.evaluator.evaluate(other, payload) {
                Ok(verdict) => {
                    trace.effect = effect_from_json(dialect, event, &verdict.output);
                    trace.output = Some(verdict.output);
                    trace.notes.push(verdict.note);
                }
                Err(msg) => {
                    trace
                        .effect
                        .warnings
                        .push(format!("{} hook failed: {msg}", other.type_name()));
                    trace.outcome = HookStatus::Error;
                }
            }
            trace.duration_ms = started.elapsed().as_millis() as u64;
            if trace.outcome == HookStatus::Ok {
                trace.outcome = status_of(&trace.effect);
            }
            return trace;
        }
    };
    let cwd = payload
        .get("cwd")
        .and_then(Value::as_str)
        .map(PathBuf::from)
        .filter(|p| p.is_dir())
        .unwrap_or_else(|| ctx.project_dir.to_path_buf());
    let mut env = hook_env(dialect, ctx.project_dir, payload);
    env.extend(ctx.options.extra_env.iter().cloned());
    let stdin = serde_json::to_vec(payload).unwrap_or_default();
    let limits = RunLimits {
        timeout,
        grace: ctx.options.grace,
        output_cap: ctx.options.output_cap,
        drain_after_exit: ctx.options.drain_after_exit,
    };
    let req = CommandRequest {
        command: command.clone(),
        cwd,
        env,
        stdin,
    };
    let raw = match run_command(&req, &limits) {
        Ok(raw) => raw,
        Err(e) => {
            trace.outcome = HookStatus::FailedToStart;
            trace
                .effect
                .warnings
                .push(format!("cannot start the hook: {e}"));
            if handler.fail_closed {
                fail_closed(&mut trace.effect, "the hook could not be started");
                trace.outcome = HookStatus::Deny;
            }
            return trace;
        }
    };
    fill_from_raw(&mut trace, &raw);
    interpret(dialect, event, spec, handler, &raw, &mut trace);
    trace
}

fn fill_from_raw(trace: &mut HookTrace, raw: &RawRun) {
    trace.exit_code = raw.exit_code;
    trace.signal = raw.signal;
    trace.timed_out = raw.timed_out;
    trace.duration_ms = raw.duration.as_millis() as u64;
    trace.pid = Some(raw.pid);
    trace.stdout = lossy(&raw.stdout);
    trace.stderr = lossy(&raw.stderr);
    trace.stdout_truncated = raw.stdout_truncated();
    trace.stderr_truncated = raw.stderr_truncated();
    if raw.stdout_truncated() {
        trace.notes.push(format!(
            "stdout was {} bytes; kept the first {}",
            raw.stdout_total,
            raw.stdout.len()
        ));
    }
    if raw.stderr_truncated() {
        trace.notes.push(format!(
            "stderr was {} bytes; kept the first {}",
            raw.stderr_total,
            raw.stderr.len()
        ));
    }
    if raw.stdin_closed_early {
        trace
            .notes
            .push("the hook did not read all of stdin (harmless)".into());
    }
    if raw.pipes_held_open {
        trace.notes.push("the hook exited while a background process it started still held stdout/stderr; stopped reading".into());
    }
}

fn fail_closed(effect: &mut HookEffect, why: &str) {
    effect.decision = Some(Decision::Deny);
    effect.reason = Some(format!("{why} and the hook is failClosed"));
}

fn status_of(effect: &HookEffect) -> HookStatus {
    match effect.decision {
        Some(Decision::Allow) => HookStatus::Allow,
        Some(Decision::Ask) => HookStatus::Ask,
        Some(Decision::Deny) => HookStatus::Deny,
        None => HookStatus::Ok,
    }
}

fn interpret(
    dialect: &Dialect,
    event: EventKind,
    spec: crate::events::EventSpec,
    handler: &Handler,
    raw: &RawRun,
    trace: &mut HookTrace,
) {
    if raw.timed_out {
        trace.outcome = HookStatus::Timeout;
        let secs = trace.timeout_ms as f64 / 1000.0;
        trace.effect.warnings.push(format!(
            "timed out after {secs} s; the hook's process group was killed{} and its output ignored",
            if raw.killed { " (SIGKILL after SIGTERM was ignored)" } else { "" }
        ));
        if handler.fail_closed {
            fail_closed(&mut trace.effect, "the hook timed out");
            trace.outcome = HookStatus::Deny;
        } else if dialect.pre_tool_timeout_blocks && event.base() == EventKind::PreToolUse {
            trace.effect.decision = Some(Decision::Deny);
            trace.effect.reason = Some(format!("Hook timed out after {}ms", trace.timeout_ms));
            trace.effect.warnings.push(format!(
                "{} stops the tool when a PreToolUse hook runs past its timeout",
                dialect.display_name
            ));
            trace.outcome = HookStatus::Deny;
        }
        return;
    }
    match raw.exit_code {
        Some(0) => {
            let parsed = parse_stdout(dialect, event, &trace.stdout);
            let failed = parsed.failed;
            trace.output = parsed.json;
            trace.effect = parsed.effect;
            if trace.stdout_truncated
                && trace.output.is_none()
                && trace.stdout.trim_start().starts_with('{')
            {
                trace.effect.warnings.push(
                    "stdout exceeded the capture limit, so its JSON could not be read".into(),
                );
            }
            trace.outcome = if failed {
                HookStatus::Error
            } else {
                status_of(&trace.effect)
            };
        }
        Some(2)
            if dialect.exit2_needs_stderr
                && trace.stderr.trim().is_empty()
                && (spec.exit2_blocks || spec.exit2_feedback) =>
        {
            trace.effect.warnings.push(format!(
                "exit code 2 with nothing on stderr: {} counts this {event} hook as failed, not as a block (non-blocking); write the reason on stderr",
                dialect.display_name
            ));
            trace.outcome = HookStatus::Error;
        }
        Some(2) => {
            let msg = trace.stderr.trim().to_string();
            let reason = if msg.is_empty() {
                "blocked by hook (exit code 2, no message on stderr)".to_string()
            } else {
                msg
            };
            if spec.exit2_blocks {
                trace.effect.decision = Some(Decision::Deny);
                trace.effect.reason = Some(reason);
                trace.outcome = HookStatus::Blocked;
            } else if spec.exit2_feedback {
                trace.effect.feedback = Some(reason);
                trace.outcome = HookStatus::Feedback;
            } else {
                trace.effect.warnings.push(format!(
                    "exit code 2 does not block {event}; stderr: {}",
                    first_line(&reason)
                ));
                trace.outcome = HookStatus::Error;
            }
        }
        code => {
            let what = match (code, raw.signal) {
                (Some(c), _) => format!("exit code {c}"),
                (None, Some(s)) => format!("killed by signal {s}"),
                (None, None) => "unknown exit status".to_string(),
            };
            let detail = first_line(&trace.stderr);
            trace.effect.warnings.push(if detail.is_empty() {
                format!("hook failed with {what} (non-blocking)")
            } else {
                format!("hook failed with {what} (non-blocking): {detail}")
            });
            trace.outcome = HookStatus::Error;
            if handler.fail_closed {
                fail_closed(&mut trace.effect, &format!("the hook failed with {what}"));
                trace.outcome = HookStatus::Deny;
            }
        }
    }
}

/// Applies a merged rewrite to a payload's `tool_input` (helper for hosts).
pub fn apply_updated_input(payload: &mut Value, updated: &Map<String, Value>) {
    if let Some(obj) = payload.as_object_mut() {
        obj.insert("tool_input".into(), Value::Object(updated.clone()));
    }
}

#[cfg(test)]
#[path = "dispatcher_tests.rs"]
mod tests;
