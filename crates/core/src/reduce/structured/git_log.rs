//! `git log` and `git show` in their default (medium) format, with or without
//! `-p`/`--stat`.
//!
//! Every commit stays, as `<short hash> <date> <author>: <subject>` (refs and merge
//! parents kept; an author shared by all of three or more commits is said once, above
//! them); bodies are condensed to their first lines with a count of the rest; patches go
//! through the diff reducer; `--stat` lines stay.

use super::git_diff::DiffReducer;
use super::{Structured, StructuredOutput};
use crate::reduce::text::clip_line;

/// Body lines kept per commit.
const BODY_LINES: usize = 3;
/// Commits listed at most; more are counted (bounded memory on huge histories).
const MAX_COMMITS: usize = 5000;

#[derive(Default)]
struct Commit {
    hash: String,
    refs: String,
    merge: Option<String>,
    author: String,
    date: String,
    subject: Option<String>,
    body: Vec<String>,
    body_more: u64,
    emitted: bool,
}

/// A commit's header line in parts: `{id} {date} {author}{merge}: {subject}`, `id` being
/// the short hash and refs.
struct Header {
    at: usize,
    id: String,
    date: String,
    author: String,
    tail: String,
}

impl Header {
    fn line(&self, date: bool, author: bool) -> String {
        let mut l = self.id.clone();
        if date {
            l.push(' ');
            l.push_str(&self.date);
        }
        if author {
            l.push(' ');
            l.push_str(&self.author);
        }
        l.push_str(&self.tail);
        l
    }
}

#[derive(Default)]
pub struct GitLog {
    out: Vec<String>,
    cur: Option<Commit>,
    in_message: bool,
    diff: DiffReducer,
    in_diff: bool,
    commits: u64,
    dropped_commits: u64,
    body_hidden: u64,
    other: Vec<String>,
    other_count: u64,
    recognized: u64,
    stat_lines: u64,
    /// Each header line as written: its place in `out` and its parts.
    headers: Vec<Header>,
}

/// `Mon Nov 20 10:00:00 2026 +0100` → `2026-11-20`; other formats are kept.
fn short_date(d: &str) -> String {
    let parts: Vec<&str> = d.split_whitespace().collect();
    if parts.len() >= 5 {
        let month = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ]
        .iter()
        .position(|m| *m == parts[1]);
        if let (Some(m), Ok(day), Ok(year)) =
            (month, parts[2].parse::<u32>(), parts[4].parse::<u32>())
        {
            return format!("{year:04}-{:02}-{day:02}", m + 1);
        }
    }
    d.to_string()
}

impl GitLog {
    /// Print the current commit's header and condensed body (once).
    fn emit_header(&mut self) {
        let dropped = self.commits as usize > MAX_COMMITS;
        let Some(c) = self.cur.as_mut() else { return };
        if c.emitted {
            return;
        }
        c.emitted = true;
        if dropped {
            self.dropped_commits += 1;
            return;
        }
        let short: String = c.hash.chars().take(10).collect();
        let refs = if c.refs.is_empty() {
            String::new()
        } else {
            format!(" {}", c.refs)
        };
        let merge = c
            .merge
            .as_ref()
            .map(|m| format!(" [merge {m}]"))
            .unwrap_or_default();
        let subject = c.subject.clone().unwrap_or_default();
        let h = Header {
            at: self.out.len(),
            id: format!("{short}{refs}"),
            date: c.date.clone(),
            author: c.author.clone(),
            tail: format!("{merge}: {subject}"),
        };
        self.out.push(h.line(true, true));
        self.headers.push(h);
        for b in &c.body {
            self.out.push(format!("    {b}"));
        }
        if c.body_more > 0 {
            self.out
                .push(format!("    (+{} more message lines)", c.body_more));
            self.body_hidden += c.body_more;
        }
    }

    fn flush_commit(&mut self) {
        self.emit_header();
        if self.in_diff {
            self.diff.end_file();
            self.out.append(&mut self.diff.lines);
            self.in_diff = false;
        }
        self.cur = None;
    }

    /// Header lines without what they share: an author common to every one of 3+ commits
    /// is said once above them (in `lines`), and a date common to a run of commits heads
    /// that run (`2026-11-26:`) when runs are on average two commits or longer.
    fn fold_headers(&mut self, lines: &mut Vec<String>) {
        let heads = std::mem::take(&mut self.headers);
        if heads.len() < 3 {
            return;
        }
        let one_author =
            !heads[0].author.is_empty() && heads.iter().all(|h| h.author == heads[0].author);
        let runs = 1 + heads.windows(2).filter(|w| w[0].date != w[1].date).count();
        let by_date = runs * 2 <= heads.len();
        if !one_author && !by_date {
            return;
        }
        if one_author {
            lines.push(format!("(author of every commit: {})", heads[0].author));
        }
        let mut out = Vec::with_capacity(self.out.len() + runs);
        let mut next = heads.iter().peekable();
        let mut last_date: Option<&str> = None;
        for (i, l) in std::mem::take(&mut self.out).into_iter().enumerate() {
            match next.peek() {
                Some(h) if h.at == i => {
                    if by_date && last_date != Some(h.date.as_str()) {
                        out.push(format!("{}:", h.date));
                        last_date = Some(&h.date);
                    }
                    out.push(h.line(!by_date, !one_author));
                    next.next();
                }
                _ => out.push(l),
            }
        }
        self.out = out;
    }

    /// Commits are printed when the next one starts, so output order is kept.
    fn start_commit(&mut self, rest: &str) {
        self.flush_commit();
        self.commits += 1;
        let (hash, refs) = match rest.split_once(' ') {
            Some((h, r)) => (h.to_string(), r.trim().to_string()),
            None => (rest.trim().to_string(), String::new()),
        };
        self.cur = Some(Commit {
            hash,
            refs,
            ..Commit::default()
        });
        self.in_message = false;
    }
}

impl Structured for GitLog {
    fn push(&mut self, line: &str) {
        if let Some(rest) = line.strip_prefix("commit ") {
            if rest.len() >= 7 && rest.as_bytes()[..7].iter().all(u8::is_ascii_hexdigit) {
                self.recognized += 1;
                self.start_commit(rest);
                return;
            }
        }
        if self.in_diff {
            if self.diff.push(line) {
                return;
            }
            self.diff.end_file();
            self.out.append(&mut self.diff.lines);
            self.in_diff = false;
        }
        if line.starts_with("diff --git ") || (line.starts_with("diff -") && self.cur.is_some()) {
            self.emit_header();
            self.in_diff = true;
            self.in_message = false;
            self.diff.push(line);
            return;
        }
        let Some(c) = self.cur.as_mut() else {
            self.other_count += 1;
            if self.other.len() < 100 {
                self.other.push(line.to_string());
            }
            return;
        };
        self.recognized += 1;
        if !self.in_message {
            if let Some(a) = line.strip_prefix("Author:") {
                let a = a.trim();
                c.author = a.split(" <").next().unwrap_or(a).to_string();
                return;
            }
            if let Some(d) = line
                .strip_prefix("Date:")
                .or_else(|| line.strip_prefix("AuthorDate:"))
            {
                c.date = short_date(d.trim());
                return;
            }
            if let Some(m) = line.strip_prefix("Merge:") {
                c.merge = Some(m.trim().to_string());
                return;
            }
            if line.starts_with("Commit:") || line.starts_with("CommitDate:") {
                return;
            }
            if line.is_empty() {
                self.in_message = true;
                return;
            }
        }
        if let Some(msg) = line.strip_prefix("    ") {
            let msg = msg.trim_end();
            if c.subject.is_none() {
                c.subject = Some(clip_line(msg, 300).into_owned());
            } else if msg.is_empty() {
            } else if c.body.len() < BODY_LINES {
                c.body.push(clip_line(msg, 200).into_owned());
            } else {
                c.body_more += 1;
            }
            return;
        }
        if line.is_empty() {
            return;
        }
        // `--stat` lines and summaries (` 3 files changed, …`), `--name-status` lines
        self.in_message = false;
        self.emit_header();
        self.stat_lines += 1;
        if self.stat_lines <= 400 {
            self.out.push(line.to_string());
        } else {
            self.body_hidden += 1;
        }
    }

    fn finish(mut self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        self.flush_commit();
        if self.commits == 0 || self.other_count > self.recognized {
            return None;
        }
        let mut lines = std::mem::take(&mut self.other);
        self.fold_headers(&mut lines);
        lines.append(&mut self.out);
        if self.dropped_commits > 0 {
            lines.push(format!(
                "... {} more commits not listed ...",
                self.dropped_commits
            ));
        }
        let mut facts = vec![("commit".to_string(), self.commits)];
        if self.diff.files > 0 {
            facts.extend(self.diff.facts());
        }
        Some(StructuredOutput {
            name: "git-log",
            lines,
            facts,
            omitted: self.dropped_commits + self.diff.changed_clipped,
            filtered: self.body_hidden + self.diff.context_hidden,
            facts_line: false,
            json_cut: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_commit_one_line_bodies_condensed() {
        let text = "commit 0123456789abcdef0123456789abcdef01234567 (HEAD -> main, origin/main)
Author: Ann Lee <ann@example.com>
Date:   Thu Nov 20 10:00:00 2026 +0100

    Fix the parser

    The tokenizer dropped quotes.
    Second line.
    Third line.
    Fourth line.

commit 89abcdef0123456789abcdef0123456789abcdef
Merge: 0123456 fedcba9
Author: Bob <bob@example.com>
Date:   Wed Nov 19 09:00:00 2026 +0000

    Merge branch 'x'
";
        let out = crate::reduce::structured::feed(Box::new(GitLog::default()), text, 0).unwrap();
        let t = out.lines.join("\n");
        assert!(
            t.contains("0123456789 (HEAD -> main, origin/main) 2026-11-20 Ann Lee: Fix the parser"),
            "{t}"
        );
        assert!(t.contains("    The tokenizer dropped quotes.\n    Second line.\n    Third line.\n    (+1 more message lines)"), "{t}");
        assert!(
            t.contains("89abcdef01 2026-11-19 Bob [merge 0123456 fedcba9]: Merge branch 'x'"),
            "{t}"
        );
        assert_eq!(out.facts[0], ("commit".into(), 2));
    }

    #[test]
    fn one_author_of_every_commit_is_said_once() {
        let commit = |h: char, day: u32, subject: &str| {
            format!(
                "commit {}\nAuthor: Ann Lee <ann@example.com>\nDate:   Thu Nov {day} 10:00:00 2026 +0100\n\n    {subject}\n\n",
                h.to_string().repeat(40)
            )
        };
        let text = [
            commit('a', 20, "One"),
            commit('b', 19, "Two"),
            commit('c', 18, "Three"),
        ]
        .concat();
        let out = crate::reduce::structured::feed(Box::new(GitLog::default()), &text, 0).unwrap();
        assert_eq!(
            out.lines,
            vec![
                "(author of every commit: Ann Lee)",
                "aaaaaaaaaa 2026-11-20: One",
                "bbbbbbbbbb 2026-11-19: Two",
                "cccccccccc 2026-11-18: Three",
            ]
        );
        // commits of one day under that day, when days hold two or more on average
        let text = [
            commit('a', 20, "One"),
            commit('b', 20, "Two"),
            commit('c', 19, "Three"),
            commit('d', 19, "Four").replace("Ann Lee", "Bob"),
        ]
        .concat();
        let out = crate::reduce::structured::feed(Box::new(GitLog::default()), &text, 0).unwrap();
        assert_eq!(
            out.lines,
            vec![
                "2026-11-20:",
                "aaaaaaaaaa Ann Lee: One",
                "bbbbbbbbbb Ann Lee: Two",
                "2026-11-19:",
                "cccccccccc Ann Lee: Three",
                "dddddddddd Bob: Four",
            ]
        );
        // a second author: every line keeps its own
        let text = [
            commit('a', 20, "One"),
            commit('b', 19, "Two").replace("Ann Lee", "Bob"),
            commit('c', 18, "Three"),
        ]
        .concat();
        let out = crate::reduce::structured::feed(Box::new(GitLog::default()), &text, 0).unwrap();
        assert_eq!(out.lines[1], "bbbbbbbbbb 2026-11-19 Bob: Two");
        assert_eq!(out.lines[0], "aaaaaaaaaa 2026-11-20 Ann Lee: One");
    }

    #[test]
    fn show_with_patch() {
        let text = "commit 0123456789abcdef0123456789abcdef01234567
Author: Ann <a@x>
Date:   Thu Nov 20 10:00:00 2026 +0100

    Change a

diff --git a/a.txt b/a.txt
index 1..2 100644
--- a/a.txt
+++ b/a.txt
@@ -1 +1 @@
-old
+new
";
        let t = crate::reduce::structured::feed(Box::new(GitLog::default()), text, 0)
            .unwrap()
            .lines
            .join("\n");
        assert!(
            t.contains(
                "2026-11-20 Ann: Change a\ndiff --git a/a.txt b/a.txt\n@@ -1 +1 @@\n-old\n+new"
            ),
            "{t}"
        );
    }
}
