//! The engine: discovery (settings files), dispatcher (select, run in parallel, merge),
//! command runner (processes), output parser (stdout → effect) and merge (pure).

pub mod codex_trust;
pub mod command_runner;
pub mod discovery;
pub mod dispatcher;
pub mod gemini_trust;
pub mod merge;
pub mod outcome;
pub mod output_parser;
