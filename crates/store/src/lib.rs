//! tokenjuice-store: what tokenjuice keeps on disk.
//!
//! - **Artifacts** ([`artifact`]): the raw output of a command, compressed as it streams
//!   in, so an agent can get back what a reduction left out (`tokenjuice cat <id>`).
//! - **Run history** ([`history`]): one SQLite row per `wrap`/`reduce`/`reduce-json`/hook
//!   call with sizes, tokens, the rule used and the exit code, but not the command line
//!   unless asked for. Writing never blocks a run for more than a few milliseconds and
//!   never fails one: a busy database parks the record in a small spool file
//!   ([`spool`]); a broken one costs only the record.
//! - **Reports** ([`report`], [`discover`], [`doctor`]): savings, reducer weak spots and
//!   health, computed from the history.
//! - **Retention** ([`retention`]): history and artifacts are bounded by age and size.
//!
//! Everything lives under one directory ([`Home`]): `$TOKENJUICE_HOME`, else
//! `$XDG_DATA_HOME/tokenjuice`, else `~/.local/share/tokenjuice`.

pub mod artifact;
pub mod discover;
pub mod doctor;
mod error;
pub mod history;
pub mod home;
pub mod record;
pub mod report;
pub mod retention;
pub mod settings;
pub mod signature;
pub mod spool;
pub mod timefmt;

pub use error::StoreError;
pub use home::Home;
pub use record::{RunKind, RunRecord};
pub use settings::Settings;

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
        Err(_) => 0,
    }
}
