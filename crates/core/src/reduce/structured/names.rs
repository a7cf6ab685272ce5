//! A plain list of names, one per line (`git tag`, `rustc --print target-list`,
//! `rustup target list`, `locale -a`): every name stays, in its order. A run of names that
//! share their first part (up to and including the first `-`, `.`, `/` or `:`) is written
//! once as `part (count): rest rest …`, and four or more in a row that differ only by a
//! number counting up without a gap as `first … last (count)` (the first line says so).
//! A line that is not one word (`x86_64-unknown-linux-gnu (installed)`) stays on its own,
//! as it is.
//!
//! Not a list of names (under 20 names, more than one line in ten that is not one word) or
//! not made shorter by a fifth of its tokens: `None`, and the rule's line reduction stands.

use super::listing::counting_run_end;
use super::{Structured, StructuredOutput};

#[derive(Default)]
pub struct Names {
    lines: Vec<String>,
    names: usize,
    other: usize,
}

/// More lines than this are not held: the rule's line reduction stands.
const MAX_LINES: usize = 50_000;
const MIN_NAMES: usize = 20;

fn is_name(t: &str) -> bool {
    !t.is_empty() && !t.contains(char::is_whitespace)
}

/// The first part of a name, separator included (`aarch64-` of `aarch64-apple-darwin`),
/// when something of the name's own is left after it.
fn first_part(name: &str) -> Option<&str> {
    let at = name.find(['-', '.', '/', ':'])?;
    (at > 0 && at + 1 < name.len()).then(|| &name[..=at])
}

/// `rest` items of one group: runs of four or more names counting up by one without a gap
/// (same text around the number, same width) folded to `first … last (N)`.
fn fold_runs(rest: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        let j = counting_run_end(rest, i, |_| true);
        if j - i >= 4 {
            out.push(format!("{} … {} ({})", rest[i], rest[j - 1], j - i));
            i = j;
        } else {
            out.push(rest[i].to_string());
            i += 1;
        }
    }
    out
}

impl Structured for Names {
    fn push(&mut self, line: &str) {
        if self.lines.len() > MAX_LINES {
            return;
        }
        let t = line.trim_end();
        if t.is_empty() {
            return;
        }
        if is_name(t) {
            self.names += 1;
        } else {
            self.other += 1;
        }
        self.lines.push(t.to_string());
    }

    fn finish(self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        if self.lines.len() > MAX_LINES
            || self.names < MIN_NAMES
            || self.other * 10 > self.lines.len()
        {
            return None;
        }
        let mut out = vec![String::new()];
        let mut numbered = false;
        let mut i = 0;
        let lines = &self.lines;
        while i < lines.len() {
            let line = lines[i].as_str();
            let part = is_name(line).then(|| first_part(line)).flatten();
            let Some(part) = part else {
                out.push(line.to_string());
                i += 1;
                continue;
            };
            let mut j = i + 1;
            while j < lines.len() && is_name(&lines[j]) && first_part(&lines[j]) == Some(part) {
                j += 1;
            }
            if j - i >= 2 {
                let rest: Vec<&str> = lines[i..j].iter().map(|n| &n[part.len()..]).collect();
                let items = fold_runs(&rest);
                numbered |= items.len() < rest.len();
                out.push(format!("{part} ({}): {}", j - i, items.join(" ")));
            } else {
                out.push(line.to_string());
            }
            i = j;
        }
        out[0] = format!(
            "{} names in their order; a run sharing its first part is written `part (count): rest rest …`{}",
            self.names,
            if numbered {
                ", one numbered without a gap `first … last (count)`"
            } else {
                ""
            }
        );
        let tokens = |lines: &[String]| crate::tokens::estimate(&lines.join("\n"));
        if tokens(&out) * 5 > tokens(&self.lines) * 4 {
            return None;
        }
        Some(StructuredOutput {
            name: "names",
            lines: out,
            facts: vec![("name".into(), self.names as u64)],
            ..StructuredOutput::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::structured::feed;

    fn names(text: &str) -> Option<Vec<String>> {
        feed(Box::<Names>::default(), text, 0).map(|o| o.lines)
    }

    #[test]
    fn groups_runs_by_first_part_and_keeps_every_name_in_order() {
        let arm: Vec<String> = (0..30)
            .map(|i| {
                format!(
                    "{}-v{i}",
                    ["apple-darwin", "linux-android", "unknown-linux-gnu"][i % 3]
                )
            })
            .collect();
        let mut text: String = arm.iter().map(|t| format!("aarch64-{t}\n")).collect();
        text.push_str("amdgcn-amd-amdhsa\n");
        for t in ["unknown-linux-gnu (installed)", "unknown-none"] {
            text.push_str(&format!("x86_64-{t}\n"));
        }
        text.push_str("release/v1.0\nrelease/v1.1\n");
        let out = names(&text).expect("a list of names");
        assert_eq!(
            out[1..],
            [
                format!("aarch64- (30): {}", arm.join(" ")),
                "amdgcn-amd-amdhsa".into(),
                "x86_64-unknown-linux-gnu (installed)".into(),
                "x86_64-unknown-none".into(),
                "release/ (2): v1.0 v1.1".into(),
            ]
        );
        assert!(out[0].starts_with("34 names in their order"), "{}", out[0]);
    }

    #[test]
    fn numbered_runs_fold_within_a_group() {
        let text: String = (1..=30).map(|i| format!("build-{i:03}\n")).collect();
        let out = names(&text).expect("a list of names");
        assert_eq!(out[1], "build- (30): 001 … 030 (30)");
    }

    #[test]
    fn not_a_list_of_names() {
        // too few
        assert!(names("a-1\na-2\na-3\n").is_none());
        // sentences
        let prose: String = (0..30).map(|i| format!("line {i} of some log\n")).collect();
        assert!(names(&prose).is_none());
        // names that share nothing: grouping would not make it shorter
        let words: String = (0..40)
            .map(|i| format!("w{}x\n", i * 7919 % 1000))
            .collect();
        assert!(names(&words).is_none());
    }
}
