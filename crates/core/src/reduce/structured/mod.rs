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

/// The whole output kept as one text, for reducers that parse it at the end (JSON).
/// Past `CAP` bytes it gives up, so the rule's line reduction stands.
#[derive(Default)]
pub struct WholeText<const CAP: usize> {
    text: String,
    too_big: bool,
    /// Every line pushed, kept or not.
    pub lines: u64,
}

impl<const CAP: usize> WholeText<CAP> {
    pub fn push(&mut self, line: &str) {
        self.lines += 1;
        if self.too_big || self.text.len() + line.len() > CAP {
            self.too_big = true;
            return;
        }
        self.text.push_str(line);
        self.text.push('\n');
    }

    /// The text, trimmed; `None` when it was too big to keep.
    pub fn get(&self) -> Option<&str> {
        (!self.too_big).then(|| self.text.trim())
    }
}

/// Tests: feed `text` to a reducer line by line and finish it with `exit_code`.
#[cfg(test)]
pub(crate) fn feed(
    mut s: Box<dyn Structured>,
    text: &str,
    exit_code: i32,
) -> Option<StructuredOutput> {
    for line in text.lines() {
        s.push(line);
    }
    s.finish(exit_code)
}

pub trait Structured {
    fn push(&mut self, line: &str);
    fn finish(self: Box<Self>, exit_code: i32) -> Option<StructuredOutput>;
}

pub mod apt;
pub mod cargo;
pub mod cargo_test;
pub mod gh;
pub mod git_blame;
pub mod git_diff;
pub mod git_log;
pub mod git_status;
pub mod go_test;
pub mod help;
pub mod http;
pub mod js_test;
pub mod json_records;
pub mod kubectl_describe;
pub mod listing;
pub mod npm_ls;
pub mod openclaw;
pub mod package_lock;
pub mod pip;
pub mod ps;
pub mod pytest;
pub mod search;
pub mod table;
pub mod terraform;
pub mod test_common;
pub mod xunit;

/// Names usable in a rule's `reducer` key.
pub const NAMES: &[&str] = &[
    "git-status",
    "git-diff",
    "git-log",
    "git-blame",
    "help",
    "npm-ls",
    "pip",
    "apt",
    "cargo",
    "cargo-test",
    "pytest",
    "js-test",
    "go-test",
    "rspec",
    "phpunit",
    "dotnet-test",
    "swift-test",
    "maven-test",
    "gradle-test",
    "minitest",
    "ctest",
    "listing",
    "search",
    "ps",
    "http",
    "table",
    "terraform",
    "kubectl-describe",
    "gh-json",
    "gh-run-log",
    "gh-pr-checks",
    "openclaw-sessions",
    "package-lock",
    "json-records",
];

pub fn is_known(name: &str) -> bool {
    NAMES.contains(&name)
}

/// A fresh reducer for `name`, or None for an unknown name.
pub fn create(name: &str, norm: &Normalized) -> Option<Box<dyn Structured>> {
    let has = |w: &str| norm.argv.iter().any(|a| a == w);
    Some(match name {
        "git-status" => Box::<git_status::GitStatus>::default(),
        "git-diff" => Box::<git_diff::GitDiff>::default(),
        "git-log" => Box::<git_log::GitLog>::default(),
        "git-blame" => Box::<git_blame::GitBlame>::default(),
        "help" => Box::<help::Help>::default(),
        "npm-ls" => Box::<npm_ls::NpmLs>::default(),
        "pip" => Box::<pip::Pip>::default(),
        "apt" => Box::<apt::Apt>::default(),
        "cargo" => Box::<cargo::Cargo>::default(),
        "rspec" => Box::new(xunit::Xunit::new(xunit::Kind::Rspec)),
        "phpunit" => Box::new(xunit::Xunit::new(xunit::Kind::Phpunit)),
        "dotnet-test" => Box::new(xunit::Xunit::new(xunit::Kind::Dotnet)),
        "swift-test" => Box::new(xunit::Xunit::new(xunit::Kind::Swift)),
        "maven-test" => Box::new(xunit::Xunit::new(xunit::Kind::Maven)),
        "gradle-test" => Box::new(xunit::Xunit::new(xunit::Kind::Gradle)),
        "minitest" => Box::new(xunit::Xunit::new(xunit::Kind::Minitest)),
        "ctest" => Box::new(xunit::Xunit::new(xunit::Kind::Ctest)),
        "go-test" => Box::<go_test::GoTest>::default(),
        "js-test" => Box::<js_test::JsTest>::default(),
        "pytest" => Box::<pytest::Pytest>::default(),
        "cargo-test" => Box::new(cargo_test::CargoTest::new(has("nextest"))),
        "listing" => Box::new(listing::Listing::new(norm)),
        "search" if search::lists_files(norm) => Box::new(listing::Listing::new(norm)),
        "search" => Box::new(search::Search::new(norm)),
        "ps" => Box::<ps::Ps>::default(),
        "http" => Box::<http::Http>::default(),
        "table" => Box::<table::Table>::default(),
        "terraform" => Box::<terraform::Terraform>::default(),
        "kubectl-describe" => Box::<kubectl_describe::KubectlDescribe>::default(),
        "gh-json" => Box::<gh::GhJson>::default(),
        "gh-run-log" => Box::<gh::GhRunLog>::default(),
        "gh-pr-checks" => Box::<gh::GhPrChecks>::default(),
        "openclaw-sessions" => Box::<openclaw::SessionsHistory>::default(),
        "package-lock" => Box::<package_lock::PackageLock>::default(),
        "json-records" => Box::<json_records::JsonRecords>::default(),
        _ => return None,
    })
}
