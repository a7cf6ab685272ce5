//! Errors of the hooks library. Each message says what went wrong, where, and how to fix it.

use std::io;
use std::path::PathBuf;

/// Errors returned by the engine's public API.
#[derive(Debug, thiserror::Error)]
pub enum HookError {
    #[error(
        "unknown host {0:?}: use one of codebuddy, codebuddy-cli, claude, cursor, codex, gemini"
    )]
    UnknownHost(String),

    #[error("unknown event {event:?} for host {host}: use one of {known}")]
    UnknownEvent {
        host: &'static str,
        event: String,
        known: String,
    },

    #[error("host {host} does not fire {event}: it fires {known}")]
    EventNotSupported {
        host: &'static str,
        event: String,
        known: String,
    },

    #[error("{what} must be a JSON object, got {got}: pass e.g. '{{\"command\": \"ls\"}}'")]
    NotAnObject { what: &'static str, got: String },

    #[error("hook {name}: invalid matcher {pattern:?}: {message}; use a plain name, an `A|B` list or a valid regex")]
    InvalidMatcher {
        name: String,
        pattern: String,
        message: String,
    },

    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    #[error("cannot start hook `{command}`: {source}")]
    Spawn {
        command: String,
        #[source]
        source: io::Error,
    },
}

impl HookError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
        source: io::Error,
    ) -> HookError {
        HookError::Io {
            action,
            path: path.into(),
            source,
        }
    }
}
