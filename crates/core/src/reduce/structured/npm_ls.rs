//! `npm ls` / `npm list`: the dependency tree with its drawing folded to indentation.
//!
//! Every package and version stays, indented two spaces per level (`├─┬ `, `│ └── `,
//! `+--`, `` `-- `` cost several tokens each and say nothing the indentation does not);
//! packages with no dependencies listed under one parent share a line, comma-separated. Problem marks (`UNMET DEPENDENCY`, `invalid`, `extraneous`,
//! `missing`) and every `npm error` line stay as they are.
//! A package with one version in the whole tree has it at its first entry only
//! (`ms deduped` after `ms@2.1.3`; see `tree::versions_once`), and a note says so.

use super::{Structured, StructuredOutput};
use crate::reduce::text::clip_line;

/// Tree lines listed at most; the rest are counted (bounded memory).
const MAX_ENTRIES: usize = 5000;
/// Other lines (errors, notes) kept at most.
const MAX_OTHER: usize = 400;

#[derive(Default)]
pub struct NpmLs {
    /// (depth for a tree entry, text)
    lines: Vec<(Option<usize>, String)>,
    entries: u64,
    problems: u64,
    deduped: u64,
    other: u64,
    omitted: u64,
    roots: u64,
}

/// Split a tree line into (depth, rest) when it starts with tree drawing.
fn tree_entry(line: &str) -> Option<(usize, &str)> {
    // `├── name@1.0.0`: the branch mark is the last 4 columns of the prefix, 2 a level
    super::tree::tree_entry(line)
        .filter(|(cols, _)| *cols >= 4)
        .map(|(cols, rest)| ((cols - 4) / 2, rest))
}

/// `ms@2.1.3 deduped` → `ms` and the byte range of `@2.1.3`; a problem entry, a link or an
/// entry with any other mark names its package but stays whole.
fn npm_version(text: &str) -> super::tree::Versioned<'_> {
    let body = ["UNMET OPTIONAL DEPENDENCY ", "UNMET DEPENDENCY "]
        .iter()
        .find_map(|p| text.strip_prefix(p));
    let entry = body.unwrap_or(text);
    let spec = entry.split(' ').next()?;
    let at = spec.rfind('@').filter(|&i| i > 0)?;
    let name = &spec[..at];
    let tail = &entry[spec.len()..];
    let foldable = body.is_none()
        && (tail.is_empty() || tail == " deduped")
        && spec[at + 1..].starts_with(|c: char| c.is_ascii_digit());
    let start = text.len() - entry.len();
    Some((name, foldable.then(|| start + at..start + spec.len())))
}

fn is_problem(s: &str) -> bool {
    s.contains("UNMET ")
        || s.ends_with(" invalid")
        || s.contains(" invalid:")
        || s.contains(" invalid ")
        || s.ends_with(" extraneous")
        || s.contains("extraneous")
        || s.starts_with("missing")
}

impl Structured for NpmLs {
    fn push(&mut self, line: &str) {
        if let Some((depth, rest)) = tree_entry(line) {
            self.entries += 1;
            if is_problem(rest) {
                self.problems += 1;
            }
            if rest.ends_with(" deduped") {
                self.deduped += 1;
            }
            if self.lines.len() >= MAX_ENTRIES + MAX_OTHER {
                self.omitted += 1;
                return;
            }
            self.lines
                .push((Some(depth + 1), clip_line(rest, 1000).into_owned()));
            return;
        }
        if line.trim().is_empty() {
            return;
        }
        // the root line: `name@1.0.0 /path/to/project` (or a workspace root)
        let root_like = !line.starts_with(' ')
            && !line.starts_with("npm ")
            && line
                .split_whitespace()
                .next()
                .is_some_and(|w| w.contains('@'));
        if root_like {
            self.roots += 1;
        } else {
            self.other += 1;
        }
        if self.lines.len() >= MAX_ENTRIES + MAX_OTHER {
            self.omitted += 1;
            return;
        }
        self.lines.push((None, clip_line(line, 2000).into_owned()));
    }

    fn finish(self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        if self.roots == 0 && self.entries == 0 {
            return None;
        }
        let mut all = self.lines;
        let folded = {
            let mut texts: Vec<&mut String> = all
                .iter_mut()
                .filter(|(d, _)| d.is_some())
                .map(|(_, t)| t)
                .collect();
            super::tree::versions_once(&mut texts, npm_version)
        };
        let mut lines = Vec::with_capacity(all.len());
        let mut entries: Vec<(usize, String)> = Vec::new();
        for (depth, text) in all {
            match depth {
                Some(d) => entries.push((d, text)),
                None => {
                    super::tree::write_entries(&entries, &mut lines);
                    entries.clear();
                    lines.push(text);
                }
            }
        }
        super::tree::write_entries(&entries, &mut lines);
        lines.extend(super::tree::versions_once_note(folded));
        if self.omitted > 0 {
            lines.push(format!(
                "... {} more lines not listed (tree cut at {MAX_ENTRIES} entries) ...",
                self.omitted
            ));
        }
        let mut facts = vec![("package".to_string(), self.entries)];
        if self.deduped > 0 {
            facts.push(("deduped entry".to_string(), self.deduped));
        }
        facts.push(("problem".to_string(), self.problems));
        Some(StructuredOutput {
            name: "npm-ls",
            lines,
            facts,
            omitted: self.omitted,
            filtered: 0,
            facts_line: self.problems > 0,
            json_cut: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Option<StructuredOutput> {
        crate::reduce::structured::feed(Box::<NpmLs>::default(), text, 0)
    }

    #[test]
    fn tree_folds_to_indentation() {
        let out = run("app@1.0.0 /repo\n├─┬ debug@4.4.3\n│ └── ms@2.1.3 deduped\n├── ms@2.1.3\n└─┬ express@4.22.1\n  ├─┬ body-parser@1.20.3\n  │ └── bytes@3.1.2\n  └── UNMET DEPENDENCY qs@^6\n\nnpm error missing: qs@^6, required by express@4.22.1\n").unwrap();
        assert_eq!(
            out.lines,
            vec![
                "app@1.0.0 /repo",
                "  debug@4.4.3",
                "    ms@2.1.3 deduped",
                // one repeated version is not worth the note that would explain its fold
                "  ms@2.1.3",
                "  express@4.22.1",
                "    body-parser@1.20.3",
                "      bytes@3.1.2",
                "    UNMET DEPENDENCY qs@^6",
                "npm error missing: qs@^6, required by express@4.22.1",
            ]
        );
        assert!(out.facts.contains(&("package".into(), 7)));
        assert!(out.facts.contains(&("problem".into(), 1)));
    }

    #[test]
    fn packages_without_dependencies_under_one_parent_share_a_line() {
        let out = run("app@1.0.0 /repo\n├── a@1.0.0\n├── b@2.0.0 deduped\n├─┬ c@3.0.0\n│ ├── d@1.0.0\n│ └── e@1.0.0\n└── UNMET DEPENDENCY f@^1\n").unwrap();
        assert_eq!(
            out.lines,
            vec![
                "app@1.0.0 /repo",
                "  a@1.0.0, b@2.0.0 deduped",
                "  c@3.0.0",
                "    d@1.0.0, e@1.0.0",
                "  UNMET DEPENDENCY f@^1",
            ]
        );
        assert!(out.facts.contains(&("package".into(), 6)));
    }

    #[test]
    fn a_repeated_package_with_one_version_in_the_tree_is_named_alone_after_its_first_entry() {
        let mut text = String::from("app@1.0.0 /repo\n");
        // `ms` has one version: later entries drop it; `debug` has two: both keep theirs;
        // `qs` is also named by a problem entry: it stays whole everywhere
        for p in ["a", "b", "c", "d", "e", "f"] {
            text.push_str(&format!("├─┬ {p}@1.0.0\n│ ├── ms@2.1.3 deduped\n│ ├── qs@6.0.0 deduped\n│ └── debug@{}.0.0 deduped\n", if p == "a" { 2 } else { 4 }));
        }
        text.push_str("├── @scope/x@3.0.0\n├── @scope/x@3.0.0 deduped\n├── UNMET DEPENDENCY qs@^7\n└── ms@2.1.3\n");
        let out = run(&text).unwrap();
        let t = out.lines.join("\n");
        assert!(t.starts_with("app@1.0.0 /repo\n  a@1.0.0\n    ms@2.1.3 deduped, qs@6.0.0 deduped, debug@2.0.0 deduped\n  b@1.0.0\n    ms deduped, qs@6.0.0 deduped, debug@4.0.0 deduped\n"), "{t}");
        assert!(
            t.contains("\n  @scope/x@3.0.0, @scope/x deduped, UNMET DEPENDENCY qs@^7, ms\n"),
            "{t}"
        );
        assert!(t.ends_with("(7 repeated entries name the package alone: it has one version here, given at its first entry)"), "{t}");
        // counts are of the tree as npm printed it
        assert!(
            out.facts.contains(&("package".into(), 28)),
            "{:?}",
            out.facts
        );
    }

    #[test]
    fn ascii_tree() {
        let out =
            run("app@1.0.0 /repo\n+-- a@1.0.0\n| `-- b@2.0.0 invalid\n`-- c@3.0.0 extraneous\n")
                .unwrap();
        assert_eq!(
            out.lines,
            vec![
                "app@1.0.0 /repo",
                "  a@1.0.0",
                "    b@2.0.0 invalid",
                "  c@3.0.0 extraneous"
            ]
        );
        assert!(out.facts.contains(&("problem".into(), 2)));
    }

    #[test]
    fn not_a_tree() {
        assert!(run("npm error code ENOENT\nnpm error syscall open\n").is_none());
    }

    #[test]
    fn bounded() {
        let mut text = String::from("app@1.0.0 /repo\n");
        for i in 0..(MAX_ENTRIES + MAX_OTHER + 10) {
            text.push_str(&format!("├── p{i}@1.0.0\n"));
        }
        let out = run(&text).unwrap();
        assert!(out.lines.len() <= MAX_ENTRIES + MAX_OTHER + 1);
        assert_eq!(out.omitted, 11);
    }
}
