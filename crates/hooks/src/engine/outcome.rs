//! The result of running an event: the merged outcome and a trace of every hook.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::{json, Map, Value};

use super::merge::Merged;
use super::output_parser::{Decision, HookEffect};
use crate::dialects::{Host, Scope};
use crate::events::EventKind;

/// How one hook ended, in one word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HookStatus {
    /// Exit 0 without a decision.
    Ok,
    Allow,
    Ask,
    Deny,
    /// Exit 2 on an event that blocks.
    Blocked,
    /// Exit 2 on an event that only feeds stderr back (PostToolUse).
    Feedback,
    /// Non-zero exit other than 2 (or exit 2 where it means nothing): a warning.
    Error,
    /// Killed at its timeout.
    Timeout,
    /// Could not be started.
    FailedToStart,
}

impl HookStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            HookStatus::Ok => "ok",
            HookStatus::Allow => "allow",
            HookStatus::Ask => "ask",
            HookStatus::Deny => "deny",
            HookStatus::Blocked => "blocked",
            HookStatus::Feedback => "feedback",
            HookStatus::Error => "error",
            HookStatus::Timeout => "timeout",
            HookStatus::FailedToStart => "failed-to-start",
        }
    }
}

/// Everything observable about one hook run.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookTrace {
    /// Index in configuration order.
    pub index: usize,
    #[serde(rename = "type")]
    pub handler_type: &'static str,
    /// The command (or prompt) text.
    pub command: String,
    /// Settings file it came from (None for handlers given directly).
    pub source: Option<PathBuf>,
    pub scope: Option<Scope>,
    pub entry: Option<String>,
    /// The matcher as written.
    pub matcher: Option<String>,
    /// Why the hook was selected.
    pub matched: String,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub timed_out: bool,
    pub timeout_ms: u64,
    pub duration_ms: u64,
    pub pid: Option<u32>,
    pub stdout: String,
    pub stderr: String,
    pub stdout_truncated: bool,
    pub stderr_truncated: bool,
    /// Parsed JSON output (None when stdout was not a JSON object).
    pub output: Option<Value>,
    pub outcome: HookStatus,
    pub effect: HookEffect,
    /// Other places the same command was configured (run once).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub duplicates: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The merged outcome of one event.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub host: Host,
    pub event: EventKind,
    pub decision: Option<Decision>,
    pub reason: Option<String>,
    pub continue_: bool,
    pub stop_reason: Option<String>,
    /// `continue: false` on PreToolUse in a host that still runs the tool and ends the
    /// session after it (Claude Code): not a block of the tool.
    pub tool_runs_before_stop: bool,
    pub system_message: Option<String>,
    pub additional_context: Vec<String>,
    pub updated_input: Option<Map<String, Value>>,
    pub suppress_output: bool,
    pub feedback: Vec<String>,
    pub warnings: Vec<String>,
    /// One entry per hook run, in configuration order.
    pub hooks: Vec<HookTrace>,
    /// The payload that was sent.
    pub payload: Value,
}

impl Outcome {
    pub(crate) fn from_merged(
        host: Host,
        event: EventKind,
        payload: Value,
        m: Merged,
        hooks: Vec<HookTrace>,
    ) -> Outcome {
        Outcome {
            host,
            event,
            decision: m.decision,
            reason: m.reason,
            continue_: m.continue_,
            stop_reason: m.stop_reason,
            tool_runs_before_stop: false,
            system_message: m.system_message,
            additional_context: m.additional_context,
            updated_input: m.updated_input,
            suppress_output: m.suppress_output,
            feedback: m.feedback,
            warnings: m.warnings,
            hooks,
            payload,
        }
    }

    /// The operation must not go ahead (deny, exit 2 block, or `continue: false` where the
    /// host stops before the tool).
    pub fn blocked(&self) -> bool {
        self.decision == Some(Decision::Deny) || (!self.continue_ && !self.tool_runs_before_stop)
    }

    /// `0` when the operation may proceed, `2` when it is blocked.
    pub fn exit_code(&self) -> i32 {
        if self.blocked() {
            2
        } else {
            0
        }
    }

    /// `allow|deny|ask|none`.
    pub fn decision_str(&self) -> &'static str {
        self.decision.map(Decision::as_str).unwrap_or("none")
    }

    /// The JSON report (`tokenjuice hooks run --format json`).
    pub fn to_json(&self) -> Value {
        json!({
            "host": self.host.id(),
            "event": self.event.name(),
            "decision": self.decision_str(),
            "reason": self.reason,
            "continue": self.continue_,
            "stopReason": self.stop_reason,
            "toolRunsBeforeStop": self.tool_runs_before_stop,
            "systemMessage": self.system_message,
            "additionalContext": self.additional_context,
            "updatedInput": self.updated_input.clone().map(Value::Object),
            "suppressOutput": self.suppress_output,
            "feedback": self.feedback,
            "warnings": self.warnings,
            "blocked": self.blocked(),
            "payload": self.payload,
            "hooks": self.hooks.iter().map(|h| serde_json::to_value(h).unwrap_or(Value::Null)).collect::<Vec<_>>(),
        })
    }
}
