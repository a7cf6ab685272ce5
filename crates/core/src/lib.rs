//! tokenjuice-core: pure compaction logic — command parsing, classification, rules,
//! streaming reducers and rendering. It spawns no processes and writes no files.
//!
//! ```
//! use tokenjuice_core::compact::{compact_text, Finish, Request};
//! let req = Request { tool_name: "exec", command: Some("git status --short"), ..Request::default() };
//! let (_plan, result) = compact_text(&req, &[], b" M src/main.rs\n?? notes.txt\n", 0, &Finish::default());
//! assert_eq!(result.classification.matched_reducer, "git/status");
//! ```

pub mod budget;
pub mod classify;
pub mod compact;
pub mod fixture;
pub mod host_view;
pub mod input;
pub mod normalize;
pub mod reduce;
pub mod result;
pub mod rules;
pub mod shell;
pub mod tokens;
