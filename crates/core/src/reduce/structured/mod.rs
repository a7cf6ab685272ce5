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
    /// `omitted` counts JSON items, records and clipped strings (the output says which),
    /// not lines.
    pub json_cut: bool,
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

/// How many times each value comes, in the order first seen (so that of values that come
/// equally often, `max_by_key` picks the same one whatever the map's order), each found
/// by a map (a listing may hold thousands of owners and dates).
pub(super) fn tally<'a>(values: impl Iterator<Item = &'a str>) -> Vec<(&'a str, usize)> {
    let mut order: Vec<(&str, usize)> = Vec::new();
    let mut at: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for v in values {
        match at.get(v) {
            Some(&i) => order[i].1 += 1,
            None => {
                at.insert(v, order.len());
                order.push((v, 1));
            }
        }
    }
    order
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
pub mod coverage;
pub mod diagnostics;
pub mod diff_stat;
pub mod dpkg_log;
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
pub mod kept;
pub mod kubectl_describe;
pub mod listing;
pub mod names;
pub mod npm_ls;
pub mod openclaw;
pub mod package_lock;
pub mod packages;
pub mod pip;
pub mod ps;
pub mod pytest;
pub mod search;
pub mod table;
pub mod terraform;
pub mod test_common;
pub mod tree;
pub mod xunit;

/// Makes a fresh reducer for a command.
type Make = fn(&Normalized) -> Box<dyn Structured>;

/// Every structured reducer, by the name a rule's `reducer` key uses: adding one is one row
/// here (a test checks that every row makes a reducer and that the names are unique).
pub const REGISTRY: &[(&str, Make)] = &[
    ("git-status", |_| Box::<git_status::GitStatus>::default()),
    ("git-diff", |_| Box::<git_diff::GitDiff>::default()),
    ("diff-stat", |_| Box::<diff_stat::DiffStat>::default()),
    ("git-log", |_| Box::<git_log::GitLog>::default()),
    ("git-blame", |_| Box::<git_blame::GitBlame>::default()),
    ("help", |_| Box::<help::Help>::default()),
    ("npm-ls", |_| Box::<npm_ls::NpmLs>::default()),
    ("tree", |n| {
        let cargo = n.argv.first().is_some_and(|a| a == "cargo");
        Box::new(tree::Tree::new(cargo))
    }),
    ("pip", |_| Box::<pip::Pip>::default()),
    ("apt", |_| Box::<apt::Apt>::default()),
    ("apt-list", |_| {
        Box::new(packages::Packages::new(packages::Source::Apt))
    }),
    ("dpkg-list", |_| {
        Box::new(packages::Packages::new(packages::Source::Dpkg))
    }),
    ("pip-list", |_| {
        Box::new(packages::Packages::new(packages::Source::Pip))
    }),
    ("dpkg-log", |_| Box::<dpkg_log::DpkgLog>::default()),
    ("cargo", |_| Box::<cargo::Cargo>::default()),
    ("cargo-test", |n| {
        let nextest = n.argv.iter().any(|a| a == "nextest");
        Box::new(cargo_test::CargoTest::new(nextest))
    }),
    ("pytest", |_| Box::<pytest::Pytest>::default()),
    ("js-test", |_| Box::<js_test::JsTest>::default()),
    ("go-test", |_| Box::<go_test::GoTest>::default()),
    ("rspec", |_| Box::new(xunit::Xunit::new(xunit::Kind::Rspec))),
    ("phpunit", |_| {
        Box::new(xunit::Xunit::new(xunit::Kind::Phpunit))
    }),
    ("dotnet-test", |_| {
        Box::new(xunit::Xunit::new(xunit::Kind::Dotnet))
    }),
    ("swift-test", |_| {
        Box::new(xunit::Xunit::new(xunit::Kind::Swift))
    }),
    ("maven-test", |_| {
        Box::new(xunit::Xunit::new(xunit::Kind::Maven))
    }),
    ("gradle-test", |_| {
        Box::new(xunit::Xunit::new(xunit::Kind::Gradle))
    }),
    ("minitest", |_| {
        Box::new(xunit::Xunit::new(xunit::Kind::Minitest))
    }),
    ("ctest", |_| Box::new(xunit::Xunit::new(xunit::Kind::Ctest))),
    ("listing", |n| Box::new(listing::Listing::new(n))),
    ("names", |_| Box::<names::Names>::default()),
    ("search", |n| Box::new(search::Search::new(n))),
    ("diagnostics", |_| {
        Box::<diagnostics::Diagnostics>::default()
    }),
    ("ps", |_| Box::<ps::Ps>::default()),
    ("http", |_| Box::<http::Http>::default()),
    ("table", |_| Box::<table::Table>::default()),
    ("terraform", |_| Box::<terraform::Terraform>::default()),
    ("kubectl-describe", |_| {
        Box::<kubectl_describe::KubectlDescribe>::default()
    }),
    ("gh-json", |_| Box::<gh::GhJson>::default()),
    ("gh-run-log", |_| Box::<gh::GhRunLog>::default()),
    ("gh-pr-checks", |_| Box::<gh::GhPrChecks>::default()),
    ("openclaw-sessions", |_| {
        Box::<openclaw::SessionsHistory>::default()
    }),
    ("package-lock", |_| {
        Box::<package_lock::PackageLock>::default()
    }),
    ("json-records", |_| {
        Box::<json_records::JsonRecords>::default()
    }),
];

/// The names usable in a rule's `reducer` key.
pub fn names() -> impl Iterator<Item = &'static str> {
    REGISTRY.iter().map(|(n, _)| *n)
}

pub fn is_known(name: &str) -> bool {
    REGISTRY.iter().any(|(n, _)| *n == name)
}

/// The reducer that reads this command's output when its rule names `name`: the name
/// itself, except where the command's own flags change what it prints (`rg -l`,
/// `grep -rl`: a list of files, not of hits, so `listing`). None for an unknown name.
/// Decided once, when the command is planned (and shown by `--trace`).
pub fn for_command(name: &str, norm: &Normalized) -> Option<&'static str> {
    let known = REGISTRY.iter().find(|(n, _)| *n == name).map(|(n, _)| *n)?;
    Some(if known == "search" && search::lists_files(norm) {
        "listing"
    } else {
        known
    })
}

/// A fresh reducer for `name`, or None for an unknown name.
pub fn create(name: &str, norm: &Normalized) -> Option<Box<dyn Structured>> {
    REGISTRY
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, make)| make(norm))
}

#[cfg(test)]
mod registry_tests {
    use super::*;

    #[test]
    fn every_name_in_the_registry_makes_a_reducer_once() {
        let norm = crate::normalize::normalize(Some("tool --flag"), None);
        let mut seen = std::collections::HashSet::new();
        for (name, _) in REGISTRY {
            assert!(seen.insert(*name), "{name} is in the registry twice");
            let r = create(name, &norm).unwrap_or_else(|| panic!("{name} makes no reducer"));
            // a fresh reducer with no input never claims a result out of nothing
            assert!(r.finish(0).is_none(), "{name} reduced an empty output");
        }
        assert!(create("no-such-reducer", &norm).is_none());
    }

    #[test]
    fn every_reducer_a_builtin_rule_names_is_in_the_registry() {
        for r in crate::rules::builtin::BUILTIN_RULES {
            let rule = r.rule().unwrap();
            if let Some(name) = rule.reducer.as_deref() {
                assert!(is_known(name), "{}: unknown reducer {name}", r.id);
            }
        }
    }
}
