//! A registry of hooks an agent defines in code ("advanced hooks": handlers registered in
//! code rather than in settings), run by the same engine as settings-file hooks.
//!
//! - `add` with an existing name replaces that hook in place; `remove` also forgets
//!   whether a `once` hook fired, so re-adding it arms it again.
//! - [`HookRegistry::for_event`] honours the event views: a `PreBash` hook fires for a
//!   `PreToolUse` of a shell tool, and a `PreToolUse` hook fires for `PreBash`.
//! - [`HookRegistry::fire`] runs the synchronous hooks in parallel and merges them in
//!   registration order; `once` hooks are marked fired automatically; `async` hooks run
//!   in the background and can never affect the outcome or return an error.

use std::collections::HashSet;
use std::path::Path;
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::dialects::Dialect;
use crate::engine::dispatcher::{run_handler, EngineOptions};
use crate::engine::merge::{merge_finished, MergeItem};
use crate::engine::outcome::{HookTrace, Outcome};
use crate::error::HookError;
use crate::events::EventKind;
use crate::handler::{Handler, HandlerKind};
use crate::matcher::Matcher;

/// A hook defined in code.
#[derive(Clone, Debug)]
pub struct RegisteredHook {
    pub name: String,
    pub event: EventKind,
    pub handler: Handler,
    /// Tool-name matcher (source, compiled). None = every tool.
    pub matcher: Option<(String, Matcher)>,
    /// Run in the background; never affects the outcome.
    pub is_async: bool,
    /// Fire at most once (until removed).
    pub once: bool,
}

impl RegisteredHook {
    pub fn new(name: impl Into<String>, event: EventKind, kind: HandlerKind) -> RegisteredHook {
        RegisteredHook {
            name: name.into(),
            event,
            handler: Handler {
                kind,
                timeout: None,
                fail_closed: false,
            },
            matcher: None,
            is_async: false,
            once: false,
        }
    }

    pub fn command(
        name: impl Into<String>,
        event: EventKind,
        command: impl Into<String>,
    ) -> RegisteredHook {
        RegisteredHook::new(
            name,
            event,
            HandlerKind::Command {
                command: command.into(),
            },
        )
    }

    /// Restricts the hook to tools matching `pattern` (JavaScript regex semantics, or a
    /// plain name / `A|B` list). Errors when the pattern is not a valid regex.
    pub fn with_matcher(mut self, pattern: &str) -> Result<RegisteredHook, HookError> {
        let m = Matcher::parse(Some(pattern), crate::matcher::MatcherSyntax::CLAUDE_FAMILY)
            .map_err(|message| HookError::InvalidMatcher {
                name: self.name.clone(),
                pattern: pattern.to_string(),
                message,
            })?;
        self.matcher = Some((pattern.to_string(), m));
        Ok(self)
    }

    pub fn with_timeout(mut self, t: Duration) -> RegisteredHook {
        self.handler.timeout = Some(t);
        self
    }

    pub fn once(mut self) -> RegisteredHook {
        self.once = true;
        self
    }

    pub fn background(mut self) -> RegisteredHook {
        self.is_async = true;
        self
    }
}

/// Background hook runs started by [`HookRegistry::fire`].
#[derive(Debug, Default)]
pub struct BackgroundRuns {
    handles: Vec<(String, JoinHandle<HookTrace>)>,
}

impl BackgroundRuns {
    pub fn len(&self) -> usize {
        self.handles.len()
    }

    pub fn is_empty(&self) -> bool {
        self.handles.is_empty()
    }

    /// Waits for every background hook. A hook that panicked is left out; nothing here
    /// can fail.
    pub fn wait(self) -> Vec<(String, HookTrace)> {
        self.handles
            .into_iter()
            .filter_map(|(name, h)| h.join().ok().map(|t| (name, t)))
            .collect()
    }
}

/// What firing an event produced.
#[derive(Debug)]
pub struct Fired {
    /// Merged outcome of the synchronous hooks.
    pub outcome: Outcome,
    /// Names of the hooks that ran synchronously, in registration order.
    pub ran: Vec<String>,
    pub background: BackgroundRuns,
}

/// The registry.
#[derive(Debug)]
pub struct HookRegistry {
    dialect: &'static Dialect,
    hooks: Vec<RegisteredHook>,
    fired: HashSet<String>,
}

impl HookRegistry {
    /// A registry whose tool names and output fields follow `dialect`.
    pub fn new(dialect: &'static Dialect) -> HookRegistry {
        HookRegistry {
            dialect,
            hooks: Vec::new(),
            fired: HashSet::new(),
        }
    }

    /// Adds a hook; a hook with the same name is replaced in place and returned.
    pub fn add(&mut self, hook: RegisteredHook) -> Option<RegisteredHook> {
        match self.hooks.iter_mut().find(|h| h.name == hook.name) {
            Some(slot) => Some(std::mem::replace(slot, hook)),
            None => {
                self.hooks.push(hook);
                None
            }
        }
    }

    /// Removes a hook (and its fired state). True when it existed.
    pub fn remove(&mut self, name: &str) -> bool {
        self.fired.remove(name);
        let before = self.hooks.len();
        self.hooks.retain(|h| h.name != name);
        before != self.hooks.len()
    }

    pub fn get(&self, name: &str) -> Option<&RegisteredHook> {
        self.hooks.iter().find(|h| h.name == name)
    }

    /// All hooks in registration order.
    pub fn list(&self) -> &[RegisteredHook] {
        &self.hooks
    }

    pub fn len(&self) -> usize {
        self.hooks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hooks.is_empty()
    }

    pub fn clear(&mut self) {
        self.hooks.clear();
        self.fired.clear();
    }

    /// Marks a `once` hook as fired (ignored for other hooks).
    pub fn mark_fired(&mut self, name: &str) {
        if self.get(name).is_some_and(|h| h.once) {
            self.fired.insert(name.to_string());
        }
    }

    pub fn has_fired(&self, name: &str) -> bool {
        self.fired.contains(name)
    }

    fn event_applies(&self, hook: EventKind, query: EventKind, tool: Option<&str>) -> bool {
        if hook == query {
            return true;
        }
        let tool_in = |class| tool.is_some_and(|t| self.dialect.tool_in_class(t, class));
        match (hook.view(), query.view()) {
            // A view hook fires for its base event when the tool is of its class.
            (Some((base, class)), None) => base == query && tool_in(class),
            // A base hook fires for a view query.
            (None, Some((base, _))) => hook == base,
            // Two different views of the same base: the tool must be in the hook's class.
            (Some((hb, class)), Some((qb, _))) => hb == qb && tool_in(class),
            (None, None) => false,
        }
    }

    /// Hooks that apply to `event` (and `tool`), in registration order, without fired
    /// `once` hooks. A hook with a matcher never matches when no tool is given.
    pub fn for_event(&self, event: EventKind, tool: Option<&str>) -> Vec<&RegisteredHook> {
        self.hooks
            .iter()
            .filter(|h| !(h.once && self.fired.contains(&h.name)))
            .filter(|h| self.event_applies(h.event, event, tool))
            .filter(|h| match (&h.matcher, tool) {
                (None, _) => true,
                (Some(_), None) => false,
                (Some((_, m)), Some(t)) => m.matches_any(&self.dialect.tool_names_for_matching(t)),
            })
            .collect()
    }

    /// Runs the hooks of `event` with `payload` (tool taken from `tool_name`).
    pub fn fire(
        &mut self,
        event: EventKind,
        payload: &Value,
        project_dir: &Path,
        options: &EngineOptions,
    ) -> Fired {
        let tool = payload
            .get("tool_name")
            .and_then(Value::as_str)
            .map(str::to_string);
        let selected: Vec<RegisteredHook> = self
            .for_event(event, tool.as_deref())
            .into_iter()
            .cloned()
            .collect();
        for h in selected.iter().filter(|h| h.once) {
            self.fired.insert(h.name.clone());
        }
        let dialect = self.dialect;
        let mut background = BackgroundRuns::default();
        for h in selected.iter().filter(|h| h.is_async) {
            let (handler, payload, dir, opts) = (
                h.handler.clone(),
                payload.clone(),
                project_dir.to_path_buf(),
                options.clone(),
            );
            let handle = std::thread::spawn(move || {
                run_handler(dialect, event, &handler, &payload, &dir, &opts)
            });
            background.handles.push((h.name.clone(), handle));
        }
        let sync: Vec<&RegisteredHook> = selected.iter().filter(|h| !h.is_async).collect();
        let mut finished: Vec<(usize, HookTrace)> = Vec::new();
        std::thread::scope(|scope| {
            let handles: Vec<_> = sync
                .iter()
                .enumerate()
                .map(|(i, h)| {
                    scope.spawn(move || {
                        (
                            i,
                            run_handler(dialect, event, &h.handler, payload, project_dir, options),
                        )
                    })
                })
                .collect();
            for h in handles {
                if let Ok(r) = h.join() {
                    finished.push(r);
                }
            }
        });
        let items = finished
            .iter()
            .map(|(i, t)| {
                (
                    *i,
                    MergeItem {
                        label: sync[*i].name.clone(),
                        effect: t.effect.clone(),
                    },
                )
            })
            .collect();
        let original: Option<&Map<String, Value>> =
            payload.get("tool_input").and_then(Value::as_object);
        let merged = merge_finished(items, original, dialect.rewrite.requires_allow);
        finished.sort_by_key(|(i, _)| *i);
        let traces: Vec<HookTrace> = finished
            .into_iter()
            .map(|(i, mut t)| {
                t.index = i;
                t.matched = format!("registered hook {}", sync[i].name);
                t.matcher = sync[i].matcher.as_ref().map(|(s, _)| s.clone());
                t
            })
            .collect();
        Fired {
            outcome: Outcome::from_merged(dialect.host, event, payload.clone(), merged, traces),
            ran: sync.iter().map(|h| h.name.clone()).collect(),
            background,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialects::Host;
    use crate::engine::output_parser::Decision;
    use serde_json::json;
    use std::time::Instant;

    fn reg() -> HookRegistry {
        HookRegistry::new(Host::CodeBuddy.dialect())
    }

    #[test]
    fn add_replaces_by_name_and_remove_get_list_clear() {
        let mut r = reg();
        assert!(r
            .add(RegisteredHook::command(
                "a",
                EventKind::PreToolUse,
                "echo 1"
            ))
            .is_none());
        r.add(RegisteredHook::command("b", EventKind::Stop, "echo 2"));
        let old = r
            .add(RegisteredHook::command(
                "a",
                EventKind::PreToolUse,
                "echo 3",
            ))
            .unwrap();
        assert_eq!(old.handler.kind.text(), "echo 1");
        assert_eq!(r.len(), 2);
        assert_eq!(r.list()[0].name, "a", "replacement keeps the position");
        assert_eq!(r.get("a").unwrap().handler.kind.text(), "echo 3");
        assert!(r.remove("a"));
        assert!(!r.remove("a"));
        assert!(r.get("a").is_none());
        r.clear();
        assert!(r.is_empty());
    }

    #[test]
    fn for_event_filters_by_event_matcher_and_views() {
        let mut r = reg();
        r.add(
            RegisteredHook::command("bash-only", EventKind::PreToolUse, "x")
                .with_matcher("^execute_command$")
                .unwrap(),
        );
        r.add(RegisteredHook::command(
            "all-tools",
            EventKind::PreToolUse,
            "x",
        ));
        r.add(RegisteredHook::command("pre-bash", EventKind::PreBash, "x"));
        r.add(RegisteredHook::command("pre-edit", EventKind::PreEdit, "x"));
        r.add(RegisteredHook::command("stop", EventKind::Stop, "x"));
        let names =
            |v: Vec<&RegisteredHook>| v.into_iter().map(|h| h.name.clone()).collect::<Vec<_>>();
        assert_eq!(
            names(r.for_event(EventKind::PreToolUse, Some("execute_command"))),
            ["bash-only", "all-tools", "pre-bash"]
        );
        assert_eq!(
            names(r.for_event(EventKind::PreToolUse, Some("Bash"))),
            ["bash-only", "all-tools", "pre-bash"],
            "alias"
        );
        assert_eq!(
            names(r.for_event(EventKind::PreToolUse, Some("write_to_file"))),
            ["all-tools", "pre-edit"]
        );
        assert_eq!(
            names(r.for_event(EventKind::PreBash, Some("execute_command"))),
            ["bash-only", "all-tools", "pre-bash"]
        );
        assert_eq!(
            names(r.for_event(EventKind::PreToolUse, None)),
            ["all-tools"],
            "a matcher needs a tool"
        );
        assert_eq!(names(r.for_event(EventKind::Stop, None)), ["stop"]);
        assert!(RegisteredHook::command("bad", EventKind::PreToolUse, "x")
            .with_matcher("([")
            .is_err());
    }

    #[test]
    fn once_hooks_fire_once_until_removed() {
        let t = tempfile::tempdir().unwrap();
        let mut r = reg();
        r.add(RegisteredHook::command("greet", EventKind::SessionStart, "echo hello").once());
        r.add(RegisteredHook::command(
            "always",
            EventKind::SessionStart,
            "echo again",
        ));
        let p = json!({"hook_event_name": "SessionStart", "source": "startup"});
        let f = r.fire(
            EventKind::SessionStart,
            &p,
            t.path(),
            &EngineOptions::default(),
        );
        assert_eq!(f.ran, ["greet", "always"]);
        assert_eq!(f.outcome.additional_context, ["hello", "again"]);
        assert!(r.has_fired("greet"));
        let f = r.fire(
            EventKind::SessionStart,
            &p,
            t.path(),
            &EngineOptions::default(),
        );
        assert_eq!(f.ran, ["always"]);
        r.mark_fired("always");
        assert!(!r.has_fired("always"), "mark_fired ignores non-once hooks");
        r.remove("greet");
        r.add(RegisteredHook::command("greet", EventKind::SessionStart, "echo hello").once());
        assert_eq!(r.for_event(EventKind::SessionStart, None).len(), 2);
    }

    #[test]
    fn sync_hooks_decide_and_async_hooks_never_do() {
        let t = tempfile::tempdir().unwrap();
        let marker = t.path().join("async-ran");
        let mut r = reg();
        r.add(RegisteredHook::command("deny", EventKind::PreToolUse, r#"echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"nope"}}'"#));
        r.add(
            RegisteredHook::command(
                "bg",
                EventKind::PreToolUse,
                format!("sleep 2; touch '{}'; exit 1", marker.display()),
            )
            .background(),
        );
        r.add(
            RegisteredHook::command(
                "bg-crash",
                EventKind::PreToolUse,
                "exec /nonexistent/binary",
            )
            .background(),
        );
        let p = json!({"tool_name": "execute_command", "tool_input": {"command": "ls"}});
        let start = Instant::now();
        let f = r.fire(
            EventKind::PreToolUse,
            &p,
            t.path(),
            &EngineOptions::default(),
        );
        assert!(
            start.elapsed() < Duration::from_millis(1500),
            "fire waited for the async hook"
        );
        assert_eq!(f.outcome.decision, Some(Decision::Deny));
        assert_eq!(f.outcome.reason.as_deref(), Some("nope"));
        assert_eq!(f.ran, ["deny"]);
        assert_eq!(f.background.len(), 2);
        let done = f.background.wait();
        assert_eq!(done.len(), 2);
        assert!(marker.exists());
        assert_eq!(done[0].1.exit_code, Some(1));
    }
}
