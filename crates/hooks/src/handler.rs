//! Handlers: what runs when a hook matches.
//!
//! `command` handlers are processes. `prompt` and `agent` handlers ask a model; the model is
//! pluggable through [`PromptEvaluator`]. Without one the engine answers `allow`, as the
//! hosts do when no model is configured, and says so in the trace.

use std::time::Duration;

use serde_json::Value;

/// The kind of a handler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HandlerKind {
    /// A shell command, run with `sh -c`.
    Command { command: String },
    /// A single-turn model prompt.
    Prompt { prompt: String },
    /// A multi-turn model agent.
    Agent { prompt: String },
}

impl HandlerKind {
    pub fn type_name(&self) -> &'static str {
        match self {
            HandlerKind::Command { .. } => "command",
            HandlerKind::Prompt { .. } => "prompt",
            HandlerKind::Agent { .. } => "agent",
        }
    }

    /// The command or prompt text.
    pub fn text(&self) -> &str {
        match self {
            HandlerKind::Command { command } => command,
            HandlerKind::Prompt { prompt } | HandlerKind::Agent { prompt } => prompt,
        }
    }
}

/// A handler with its options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handler {
    pub kind: HandlerKind,
    /// `None` = the dialect's default timeout.
    pub timeout: Option<Duration>,
    /// Turn a failure or timeout into a deny (Cursor `failClosed`).
    pub fail_closed: bool,
}

impl Handler {
    pub fn command(command: impl Into<String>) -> Handler {
        Handler {
            kind: HandlerKind::Command {
                command: command.into(),
            },
            timeout: None,
            fail_closed: false,
        }
    }

    pub fn with_timeout(mut self, timeout: Duration) -> Handler {
        self.timeout = Some(timeout);
        self
    }
}

/// The verdict of a model-backed handler, in hook-output form.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelVerdict {
    /// A hook output object (same fields a command hook prints on stdout).
    pub output: Value,
    /// Where the verdict came from, for the trace.
    pub note: String,
}

/// Evaluates `prompt`/`agent` handlers with a model.
pub trait PromptEvaluator: Send + Sync {
    /// Returns the handler's output for `payload`, or an error message (a non-blocking
    /// failure, like a command hook exiting 1).
    fn evaluate(&self, handler: &HandlerKind, payload: &Value) -> Result<ModelVerdict, String>;
}

/// The evaluator used when no model is configured: always `allow`.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoModel;

impl PromptEvaluator for NoModel {
    fn evaluate(&self, handler: &HandlerKind, _payload: &Value) -> Result<ModelVerdict, String> {
        Ok(ModelVerdict {
            output: serde_json::json!({"continue": true}),
            note: format!(
                "no model configured: {} hook answers allow",
                handler.type_name()
            ),
        })
    }
}
