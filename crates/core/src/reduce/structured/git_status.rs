//! `git status` (long, short and porcelain forms).
//!
//! Keeps every path with its state, staged vs unstaged vs untracked vs conflicted kept
//! apart, the branch with ahead/behind, and operation states (rebase, merge, detached
//! HEAD). Drops the `(use "git …")` hints. Paths sharing a directory and a state are
//! folded into `dir/{a,b,c}`.

use super::{Structured, StructuredOutput};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Section {
    Conflicts,
    Staged,
    Unstaged,
    Untracked,
    Ignored,
}

impl Section {
    fn title(self) -> &'static str {
        match self {
            Section::Conflicts => "conflicts (unmerged)",
            Section::Staged => "staged",
            Section::Unstaged => "not staged",
            Section::Untracked => "untracked",
            Section::Ignored => "ignored",
        }
    }
}

const MAX_PATHS: usize = 20_000;

#[derive(Default)]
pub struct GitStatus {
    branch: Vec<String>,
    /// (section, state letter, path)
    entries: Vec<(Section, String, String)>,
    section: Option<Section>,
    hints: u64,
    unknown: Vec<String>,
    recognized: u64,
    dropped: u64,
    clean: bool,
}

fn long_state(word: &str) -> Option<&'static str> {
    Some(match word {
        "modified" => "M",
        "new file" => "A",
        "deleted" => "D",
        "renamed" => "R",
        "copied" => "C",
        "typechange" => "T",
        "both modified" => "UU",
        "both added" => "AA",
        "both deleted" => "DD",
        "added by us" => "AU",
        "added by them" => "UA",
        "deleted by us" => "DU",
        "deleted by them" => "UD",
        _ => return None,
    })
}

impl GitStatus {
    fn add(&mut self, section: Section, state: &str, path: &str) {
        self.recognized += 1;
        if self.entries.len() < MAX_PATHS {
            self.entries
                .push((section, state.to_string(), path.to_string()));
        } else {
            self.dropped += 1;
        }
    }

    fn porcelain(&mut self, line: &str) -> bool {
        let b = line.as_bytes();
        if b.len() < 4 || b[2] != b' ' {
            return false;
        }
        let (x, y) = (b[0] as char, b[1] as char);
        let valid = |c: char| " MADRCUT?!".contains(c);
        if !valid(x) || !valid(y) {
            return false;
        }
        let path = line[3..].trim_matches('"');
        match (x, y) {
            ('?', '?') => self.add(Section::Untracked, "??", path),
            ('!', '!') => self.add(Section::Ignored, "!!", path),
            _ if x == 'U' || y == 'U' || (x == 'A' && y == 'A') || (x == 'D' && y == 'D') => {
                self.add(Section::Conflicts, &format!("{x}{y}"), path)
            }
            _ => {
                if x != ' ' {
                    self.add(Section::Staged, &x.to_string(), path);
                }
                if y != ' ' {
                    self.add(Section::Unstaged, &y.to_string(), path);
                }
            }
        }
        true
    }
}

impl Structured for GitStatus {
    fn push(&mut self, line: &str) {
        let t = line.trim();
        if t.is_empty() {
            return;
        }
        if let Some(b) = t.strip_prefix("## ") {
            self.recognized += 1;
            self.branch.push(format!("branch {b}"));
            return;
        }
        if t.starts_with("On branch ")
            || t.starts_with("HEAD detached ")
            || t.starts_with("Not currently on any branch")
            || t == "No commits yet"
            || t.starts_with("Initial commit")
        {
            self.recognized += 1;
            self.branch.push(t.to_string());
            return;
        }
        if t.starts_with("Your branch ") || t.starts_with("and have ") {
            self.recognized += 1;
            self.branch.push(t.trim_end_matches(',').to_string());
            return;
        }
        if t.starts_with("(use \"git")
            || t.starts_with("(fix conflicts")
            || t.starts_with("(all conflicts fixed")
            || t.starts_with("(commit or discard")
        {
            self.hints += 1;
            self.recognized += 1;
            return;
        }
        if t.starts_with("no changes added to commit")
            || t.starts_with("nothing added to commit but untracked")
        {
            self.hints += 1;
            self.recognized += 1;
            return;
        }
        if t.starts_with("nothing to commit") {
            self.recognized += 1;
            self.clean = true;
            return;
        }
        let header = match t.trim_end_matches(':') {
            "Changes to be committed" => Some(Section::Staged),
            "Changes not staged for commit" => Some(Section::Unstaged),
            "Untracked files" => Some(Section::Untracked),
            "Ignored files" => Some(Section::Ignored),
            "Unmerged paths" => Some(Section::Conflicts),
            _ => None,
        };
        if let Some(s) = header {
            self.recognized += 1;
            self.section = Some(s);
            return;
        }
        // operation states: rebase, merge, cherry-pick, bisect …
        if t.starts_with("You are currently")
            || t.starts_with("You have unmerged paths")
            || t.contains("rebase in progress")
            || t.starts_with("All conflicts fixed")
            || t.starts_with("Last command")
            || t.starts_with("Next command")
            || t.starts_with("interactive rebase")
        {
            self.recognized += 1;
            self.branch.push(t.to_string());
            return;
        }
        if self.section.is_none() && self.porcelain(line) {
            return;
        }
        if let Some(sec) = self.section {
            if sec == Section::Untracked || sec == Section::Ignored {
                let st = if sec == Section::Untracked {
                    "??"
                } else {
                    "!!"
                };
                self.add(sec, st, t);
                return;
            }
            if let Some((word, rest)) = t.split_once(':') {
                if let Some(state) = long_state(word.trim()) {
                    self.add(sec, state, rest.trim());
                    return;
                }
            }
        }
        if self.unknown.len() < 200 {
            self.unknown.push(line.to_string());
        }
    }

    fn finish(self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        // Not a status listing (an error, or something else): let the rule's lines handle it.
        if self.recognized == 0 || self.unknown.len() as u64 > self.recognized {
            return None;
        }
        let mut lines: Vec<String> = self.branch.clone();
        let mut facts: Vec<(String, u64)> = Vec::new();
        let count = |sec: Section, states: &[&str]| -> u64 {
            self.entries
                .iter()
                .filter(|(s, st, _)| {
                    *s == sec && (states.is_empty() || states.contains(&st.as_str()))
                })
                .count() as u64
        };
        facts.push(("staged file".into(), count(Section::Staged, &[])));
        facts.push((
            "modified file".into(),
            count(Section::Unstaged, &["M", "T"]),
        ));
        facts.push((
            "deleted file".into(),
            count(Section::Unstaged, &["D"]) + count(Section::Staged, &["D"]),
        ));
        facts.push(("new file".into(), count(Section::Staged, &["A"])));
        facts.push(("untracked file".into(), count(Section::Untracked, &[])));
        facts.push(("conflicted file".into(), count(Section::Conflicts, &[])));
        for sec in [
            Section::Conflicts,
            Section::Staged,
            Section::Unstaged,
            Section::Untracked,
            Section::Ignored,
        ] {
            let items: Vec<(&str, &str)> = self
                .entries
                .iter()
                .filter(|(s, _, _)| *s == sec)
                .map(|(_, st, p)| (st.as_str(), p.as_str()))
                .collect();
            if items.is_empty() {
                continue;
            }
            lines.push(format!("{} ({}):", sec.title(), items.len()));
            let show_state = !matches!(sec, Section::Untracked | Section::Ignored);
            for l in fold_paths(&items, show_state) {
                lines.push(format!("  {l}"));
            }
        }
        if self.entries.is_empty() && self.clean {
            lines.push("nothing to commit, working tree clean".into());
        }
        for u in &self.unknown {
            lines.push(u.clone());
        }
        let mut omitted = 0;
        if self.dropped > 0 {
            lines.push(format!("... {} more paths not shown ...", self.dropped));
            omitted = self.dropped;
        }
        Some(StructuredOutput {
            name: "git-status",
            lines,
            facts,
            omitted,
            filtered: self.hints,
            facts_line: false,
            json_cut: false,
        })
    }
}

/// `M src/a.rs`, or `M src/reduce/{a.rs,b.rs,c.rs}` when three or more share state and directory.
pub fn fold_paths(items: &[(&str, &str)], show_state: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < items.len() {
        let (st, p) = items[i];
        let dir = dir_of(p);
        let mut j = i + 1;
        while j < items.len()
            && items[j].0 == st
            && dir_of(items[j].1) == dir
            && !dir.is_empty()
            && !items[j].1.ends_with('/')
        {
            j += 1;
        }
        let prefix = if show_state {
            format!("{st} ")
        } else {
            String::new()
        };
        if j - i >= 3 && !p.ends_with('/') {
            let names: Vec<&str> = items[i..j].iter().map(|(_, p)| &p[dir.len()..]).collect();
            out.push(format!("{prefix}{dir}{{{}}}", names.join(",")));
            i = j;
        } else {
            out.push(format!("{prefix}{p}"));
            i += 1;
        }
    }
    out
}

fn dir_of(p: &str) -> &str {
    if p.contains(" -> ") {
        return "";
    }
    match p.trim_end_matches('/').rfind('/') {
        Some(k) => &p[..=k],
        None => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Option<StructuredOutput> {
        crate::reduce::structured::feed(Box::new(GitStatus::default()), text, 0)
    }

    #[test]
    fn long_form_keeps_sections_apart() {
        let out = run("On branch main\nYour branch is ahead of 'origin/main' by 2 commits.\n  (use \"git push\" to publish your local commits)\n\nChanges to be committed:\n  (use \"git restore --staged <file>...\" to unstage)\n\tmodified:   src/a.rs\n\tnew file:   src/n.rs\n\nChanges not staged for commit:\n\tmodified:   src/a.rs\n\tdeleted:    old.txt\n\nUntracked files:\n\tnotes.txt\n\nno changes added to commit\n").unwrap();
        let t = out.lines.join("\n");
        assert!(t.contains("On branch main"));
        assert!(t.contains("ahead of 'origin/main' by 2 commits"));
        assert!(t.contains("staged (2):\n  M src/a.rs\n  A src/n.rs"), "{t}");
        assert!(
            t.contains("not staged (2):\n  M src/a.rs\n  D old.txt"),
            "{t}"
        );
        assert!(t.contains("untracked (1):\n  notes.txt"));
        assert!(!t.contains("use \"git"));
        assert_eq!(out.filtered, 3);
    }

    #[test]
    fn porcelain_splits_index_and_worktree() {
        let out = run("## main...origin/main [ahead 1, behind 2]\nMM both.rs\nM  staged.rs\n M unstaged.rs\nUU conflict.rs\n?? new.txt\n").unwrap();
        let t = out.lines.join("\n");
        assert!(t.contains("branch main...origin/main [ahead 1, behind 2]"));
        assert!(t.contains("conflicts (unmerged) (1):\n  UU conflict.rs"));
        assert!(t.contains("staged (2):\n  M both.rs\n  M staged.rs"), "{t}");
        assert!(
            t.contains("not staged (2):\n  M both.rs\n  M unstaged.rs"),
            "{t}"
        );
    }

    #[test]
    fn folds_shared_directories() {
        let items = [
            ("M", "src/a.rs"),
            ("M", "src/b.rs"),
            ("M", "src/c.rs"),
            ("D", "src/d.rs"),
            ("M", "x.rs"),
        ];
        assert_eq!(
            fold_paths(&items, true),
            vec!["M src/{a.rs,b.rs,c.rs}", "D src/d.rs", "M x.rs"]
        );
    }

    #[test]
    fn errors_are_not_status() {
        assert!(
            run("fatal: not a git repository (or any of the parent directories): .git\n").is_none()
        );
    }
}
