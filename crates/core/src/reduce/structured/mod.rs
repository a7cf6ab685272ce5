//! Structured reducers: code for formats that line rules cannot do justice to.
//!
//! A structured reducer sees every cleaned line (ANSI stripped, carriage returns
//! resolved) alongside the rule's line engine. At the end it either returns its
//! output, or `None` when the text was not in the shape it expects, in which case
//! the rule's generic line reduction is used instead. It never returns nothing.

use crate::normalize::Normalized;
use crate::reduce::render::Body;

/// A structured reducer's result.
#[derive(Debug, Clone, Default)]
pub struct StructuredOutput {
    pub name: &'static str,
    pub lines: Vec<String>,
    pub facts: Vec<(String, u64)>,
    /// Lines left out (cut), counted in the final note.
    pub omitted: u64,
    /// Noise lines dropped (hints, progress).
    pub filtered: u64,
    /// Show the facts line above the body.
    pub facts_line: bool,
}

impl StructuredOutput {
    pub fn body_as_body(&self) -> Body {
        Body {
            lines: self.lines.clone(),
            omitted: self.omitted,
            filtered: self.filtered,
            ..Body::default()
        }
    }
}

pub trait Structured {
    fn push(&mut self, line: &str);
    fn finish(self: Box<Self>, exit_code: i32) -> Option<StructuredOutput>;
}

pub mod gh;
pub mod git_diff;
pub mod git_log;
pub mod git_status;
pub mod help;
pub mod json_records;
pub mod kubectl_describe;
pub mod openclaw;
pub mod table;
pub mod terraform;

/// Names usable in a rule's `reducer` key.
pub const NAMES: &[&str] = &[
    "git-status",
    "git-diff",
    "git-log",
    "help",
    "table",
    "terraform",
    "kubectl-describe",
    "gh-json",
    "gh-run-log",
    "gh-pr-checks",
    "openclaw-sessions",
    "json-records",
];

pub fn is_known(name: &str) -> bool {
    NAMES.contains(&name)
}

/// A fresh reducer for `name`, or None for an unknown name.
pub fn create(name: &str, norm: &Normalized) -> Option<Box<dyn Structured>> {
    let _ = norm;
    Some(match name {
        "git-status" => Box::<git_status::GitStatus>::default(),
        "git-diff" => Box::<git_diff::GitDiff>::default(),
        "git-log" => Box::<git_log::GitLog>::default(),
        "help" => Box::<help::Help>::default(),
        "table" => Box::<table::Table>::default(),
        "terraform" => Box::<terraform::Terraform>::default(),
        "kubectl-describe" => Box::<kubectl_describe::KubectlDescribe>::default(),
        "gh-json" => Box::<gh::GhJson>::default(),
        "gh-run-log" => Box::<gh::GhRunLog>::default(),
        "gh-pr-checks" => Box::<gh::GhPrChecks>::default(),
        "openclaw-sessions" => Box::<openclaw::SessionsHistory>::default(),
        "json-records" => Box::<json_records::JsonRecords>::default(),
        _ => return None,
    })
}
