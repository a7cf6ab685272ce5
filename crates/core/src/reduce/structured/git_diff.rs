//! Unified diffs (`git diff`, `git show`, `git log -p`, `diff -u`).
//!
//! Keeps every file name, every hunk header (line numbers and function context) and
//! every added or removed line; unchanged context shrinks to one line on each side of a
//! change, and the number of hidden context lines is counted. Where context is hidden, the
//! hunk is told as `git diff -U1` would: each run of shown lines gets its own header with
//! its exact line numbers (the first keeps the hunk's function context), so a line's
//! number can be counted from its header as in the raw diff. A hunk's body ends where
//! its header's line counts say, so the `--- `/`+++ ` pairs of plain `diff -u` output
//! start the next file (shown without the files' modification times). Lockfiles and
//! minified or generated files are clipped to their first changed lines, saying how
//! many were hidden. Index/mode lines are dropped.

use crate::reduce::text::clip_line;

/// Most changed lines shown for a lockfile or generated file.
const GENERATED_LINES: usize = 12;
/// Most removed lines shown for a deleted file (its content is in the repository).
const DELETED_LINES: usize = 3;
/// Most changed lines shown for one ordinary file.
const FILE_LINES: usize = 600;
/// Most changed lines shown in all.
const TOTAL_LINES: usize = 6000;
const LINE_CHARS: usize = 400;

fn is_generated(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    matches!(
        name,
        "package-lock.json"
            | "yarn.lock"
            | "pnpm-lock.yaml"
            | "Cargo.lock"
            | "poetry.lock"
            | "Gemfile.lock"
            | "composer.lock"
            | "go.sum"
            | "uv.lock"
            | "bun.lockb"
            | "Pipfile.lock"
            | "flake.lock"
    ) || name.ends_with(".min.js")
        || name.ends_with(".min.css")
        || name.ends_with(".map")
        || name.ends_with(".snap")
}

#[derive(Default)]
struct FileState {
    path: String,
    added: u64,
    removed: u64,
    shown: usize,
    clipped: u64,
    generated: bool,
    deleted: bool,
}

/// Streaming diff reducer, used on its own and inside `git log -p` / `git show`.
#[derive(Default)]
pub struct DiffReducer {
    pub lines: Vec<String>,
    file: Option<FileState>,
    in_hunk: bool,
    /// The last context line, held back in case a change follows, with its place.
    held: Option<(String, (u64, u64))>,
    /// Context lines to show after a change.
    after_change: u8,
    pub context_hidden: u64,
    pub changed_clipped: u64,
    pub files: u64,
    pub added: u64,
    pub removed: u64,
    total_shown: usize,
    pub recognized: u64,
    pub hunks: u64,
    /// A `diff -u` without a `diff` line: the ---/+++ pair is shown.
    plain: bool,
    /// Old and new lines the current hunk's header announced and its body has not given
    /// yet (`None`: not counted, a combined diff's `@@@`). When both reach 0 the body has
    /// ended: a `--- ` line after it starts the next file, not a removed line.
    left: Option<(u64, u64)>,
    /// The current file's last hunk has ended by its count.
    hunk_done: bool,
    binary_patch: bool,
    /// The current hunk's header, its old and new start and count, and its function
    /// context (`None`: a combined diff's `@@@`, told as it came).
    hunk: Option<Hunk>,
    /// The old and new line numbers the next body line of the hunk takes.
    next: (u64, u64),
    /// The run of shown lines being written, under the header at `lines[group.at]`.
    group: Option<Group>,
}

/// A hunk header's start line and line count on one side.
type Range = (u64, u64);

struct Hunk {
    old: Range,
    new: Range,
    context: String,
    /// Changed lines of this hunk were clipped (a lockfile's, a deleted file's).
    clipped: bool,
}

/// Shown lines of a hunk that follow each other in the file: one header tells them.
struct Group {
    at: usize,
    start: (u64, u64),
    end: (u64, u64),
    /// The first run of the hunk: it keeps the function context.
    first: bool,
}

impl DiffReducer {
    /// Is this line part of a diff? (Returns false for lines it does not understand.)
    pub fn push(&mut self, line: &str) -> bool {
        if let Some(rest) = line.strip_prefix("diff --git ") {
            self.start_file(path_from_git_header(rest), line);
            return true;
        }
        if line.starts_with("diff -")
            || line.starts_with("diff --cc ")
            || line.starts_with("diff --combined ")
        {
            self.start_file(line.rsplit(' ').next().unwrap_or("").to_string(), line);
            return true;
        }
        if line.starts_with("--- ") && !self.in_hunk_body() {
            if self.file.is_none() || self.plain {
                // plain `diff -u`: the ---/+++ pair is the header (without the files'
                // modification times)
                self.start_file(String::new(), without_time(line));
                self.plain = true;
            }
            return true;
        }
        if let Some(p) = line.strip_prefix("+++ ") {
            if !self.in_hunk_body() {
                if self.plain {
                    self.lines.push(without_time(line).to_string());
                }
                let p = p
                    .trim_start_matches("b/")
                    .split('\t')
                    .next()
                    .unwrap_or("")
                    .to_string();
                if let Some(f) = &mut self.file {
                    // `+++ /dev/null` (a deleted file) keeps the `---` path
                    if p != "/dev/null" && f.path != p {
                        f.path = p;
                        f.generated = is_generated(&f.path);
                    }
                }
                self.recognized += 1;
                return true;
            }
        }
        if line.starts_with("@@") && self.file.is_some() {
            self.flush_context_count();
            self.hunks += 1;
            self.in_hunk = true;
            self.hunk_done = false;
            self.held = None;
            self.after_change = 0;
            self.recognized += 1;
            self.hunk = hunk_ranges(line).map(|(old, new, context)| Hunk {
                old,
                new,
                context: context.to_string(),
                clipped: false,
            });
            self.left = self.hunk.as_ref().map(|h| (h.old.1, h.new.1));
            if let Some(h) = &self.hunk {
                self.next = (first_line(h.old), first_line(h.new));
            }
            self.group = Some(Group {
                at: self.lines.len(),
                start: self.next,
                end: self.next,
                first: true,
            });
            self.lines.push(line.to_string());
            return true;
        }
        if self.file.is_none() {
            return false;
        }
        if !self.in_hunk {
            // extended header lines
            let keep = line.starts_with("new file mode")
                || line.starts_with("deleted file mode")
                || line.starts_with("rename from")
                || line.starts_with("rename to")
                || line.starts_with("similarity index")
                || line.starts_with("old mode")
                || line.starts_with("new mode")
                || line.starts_with("copy from")
                || line.starts_with("copy to");
            if line.starts_with("Binary files") {
                self.lines.push(line.to_string());
                self.recognized += 1;
                return true;
            }
            if line.starts_with("GIT binary patch") || (self.binary_patch && !line.is_empty()) {
                self.binary_patch = true;
                self.recognized += 1;
                return true;
            }
            if keep {
                if line.starts_with("deleted file mode") {
                    if let Some(f) = &mut self.file {
                        f.deleted = true;
                    }
                }
                self.lines.push(line.to_string());
                self.recognized += 1;
                return true;
            }
            if line.starts_with("index ") || (self.hunk_done && line.starts_with("\\ ")) {
                self.recognized += 1;
                return true;
            }
            if self.hunk_done {
                // the diff is over (the next commit of `git log -p`, a tool's summary)
                self.end_file();
            }
            return false;
        }
        match line.as_bytes().first() {
            Some(b'+') | Some(b'-') => {
                self.recognized += 1;
                let added = line.starts_with('+');
                let at = self.take_place(!added, added);
                self.count_body_line(!added, added);
                let Some(f) = &mut self.file else {
                    return false;
                };
                if added {
                    f.added += 1;
                    self.added += 1;
                } else {
                    f.removed += 1;
                    self.removed += 1;
                }
                let cap = if f.deleted {
                    DELETED_LINES
                } else if f.generated {
                    GENERATED_LINES
                } else {
                    FILE_LINES
                };
                if f.shown >= cap || self.total_shown >= TOTAL_LINES {
                    f.clipped += 1;
                    self.changed_clipped += 1;
                    self.held = None;
                    if let Some(h) = &mut self.hunk {
                        h.clipped = true;
                    }
                    return true;
                }
                f.shown += 1;
                self.total_shown += 1;
                if let Some((h, held_at)) = self.held.take() {
                    self.show(h, held_at, (true, true));
                }
                self.show(
                    clip_line(line, LINE_CHARS).into_owned(),
                    at,
                    (!added, added),
                );
                self.after_change = 1;
                true
            }
            Some(b' ') | None => {
                self.recognized += 1;
                let at = self.take_place(true, true);
                self.count_body_line(true, true);
                let line = clip_line(line, LINE_CHARS).into_owned();
                if self.after_change > 0 {
                    self.after_change -= 1;
                    if self.file.as_ref().is_some_and(|f| f.clipped == 0) {
                        self.show(line, at, (true, true));
                        return true;
                    }
                }
                if self.held.replace((line, at)).is_some() {
                    self.context_hidden += 1;
                }
                true
            }
            Some(b'\\') => {
                self.recognized += 1;
                true // "\ No newline at end of file"
            }
            _ => {
                // end of the diff body (e.g. the next commit in `git log -p`)
                self.end_file();
                false
            }
        }
    }

    fn in_hunk_body(&self) -> bool {
        self.in_hunk
    }

    /// The old and new line numbers of a body line taken from the old and/or new side.
    fn take_place(&mut self, old: bool, new: bool) -> (u64, u64) {
        let at = self.next;
        self.next.0 += u64::from(old);
        self.next.1 += u64::from(new);
        at
    }

    /// Write a hunk's body line that stays, at its place in the old and new file: a line
    /// that does not follow the last one shown starts a run under a header of its own.
    fn show(&mut self, line: String, at: (u64, u64), sides: (bool, bool)) {
        if self.hunk.is_some() {
            match &mut self.group {
                Some(g) if g.end == at => {}
                Some(g) if g.end == g.start && g.first => {
                    // nothing shown under the hunk's header yet: it moves to this line
                    g.start = at;
                    g.end = at;
                }
                _ => {
                    self.close_group();
                    self.group = Some(Group {
                        at: self.lines.len(),
                        start: at,
                        end: at,
                        first: false,
                    });
                    self.lines.push(String::new());
                }
            }
            if let Some(g) = &mut self.group {
                g.end.0 += u64::from(sides.0);
                g.end.1 += u64::from(sides.1);
            }
        }
        self.lines.push(line);
    }

    /// Give the run of shown lines its header: the hunk's own when the run is the whole
    /// hunk, nothing of it was shown, or it starts the hunk and the rest was clipped (the
    /// file's marker counts those lines), else `@@ -a,b +c,d @@` for the run.
    fn close_group(&mut self) {
        let (Some(g), Some(h)) = (self.group.take(), &self.hunk) else {
            return;
        };
        let old = (g.start.0, g.end.0 - g.start.0);
        let new = (g.start.1, g.end.1 - g.start.1);
        let starts = (old.0, new.0) == (first_line(h.old), first_line(h.new));
        let whole = starts && (old.1, new.1) == (h.old.1, h.new.1);
        if g.end == g.start || whole || (starts && g.first && h.clipped) {
            // the hunk's header, written when it was read
            return;
        }
        let side = |(start, count): (u64, u64)| match count {
            0 => format!("{},0", start.saturating_sub(1)),
            1 => start.to_string(),
            n => format!("{start},{n}"),
        };
        let context = if g.first { h.context.as_str() } else { "" };
        self.lines[g.at] = format!("@@ -{} +{} @@{context}", side(old), side(new));
    }

    /// One line of a hunk's body taken from its old and/or new side; the body ends when
    /// both sides are used up.
    fn count_body_line(&mut self, old: bool, new: bool) {
        if let Some((o, n)) = &mut self.left {
            *o = o.saturating_sub(u64::from(old));
            *n = n.saturating_sub(u64::from(new));
            if (*o, *n) == (0, 0) {
                self.in_hunk = false;
                self.hunk_done = true;
                self.left = None;
            }
        }
    }

    fn flush_context_count(&mut self) {
        self.close_group();
        if self.held.take().is_some() {
            self.context_hidden += 1;
        }
    }

    fn start_file(&mut self, path: String, header: &str) {
        self.end_file();
        self.recognized += 1;
        self.files += 1;
        self.plain = false;
        self.binary_patch = false;
        self.hunk_done = false;
        self.left = None;
        self.lines.push(header.to_string());
        self.file = Some(FileState {
            generated: is_generated(&path),
            path,
            ..FileState::default()
        });
        self.in_hunk = false;
    }

    /// Close the current file, with a marker when its changed lines were clipped.
    pub fn end_file(&mut self) {
        self.flush_context_count();
        self.in_hunk = false;
        let Some(f) = self.file.take() else { return };
        if f.clipped > 0 {
            let why = if f.deleted {
                "file deleted"
            } else if f.generated {
                "generated or lock file"
            } else {
                "diff too long"
            };
            self.lines.push(format!(
                "... {} more changed lines in {} not shown ({why}) ...",
                f.clipped, f.path
            ));
        }
    }

    pub fn facts(&self) -> Vec<(String, u64)> {
        vec![
            ("changed file".into(), self.files),
            ("hunk".into(), self.hunks),
            ("added line".into(), self.added),
            ("removed line".into(), self.removed),
        ]
    }
}

/// The old and new start and count of a hunk header `@@ -a,b +c,d @@ context` (a count
/// left out is 1), and its function context (with the space before it); None for
/// anything else (a combined diff's `@@@ … @@@`).
fn hunk_ranges(line: &str) -> Option<(Range, Range, &str)> {
    let rest = line.strip_prefix("@@ -")?;
    let (old, rest) = rest.split_once(" +")?;
    let (new, context) = rest.split_once(" @@")?;
    let range = |r: &str| -> Option<Range> {
        match r.split_once(',') {
            Some((s, n)) => Some((s.parse().ok()?, n.parse().ok()?)),
            None => Some((r.parse().ok()?, 1)),
        }
    };
    Some((range(old)?, range(new)?, context))
}

/// `--- a/x.txt<TAB>2026-11-27 02:00:48.66 +0000` → `--- a/x.txt`: diff's header names a
/// file, then its modification time after a tab.
fn without_time(line: &str) -> &str {
    line.split_once('\t').map_or(line, |(head, _)| head)
}

/// The number of a range's first line: a count of 0 names the line before the range.
fn first_line((start, count): Range) -> u64 {
    start + u64::from(count == 0)
}

fn path_from_git_header(rest: &str) -> String {
    // `a/x b/x` (quoted when names have spaces); take the b/ side
    if let Some(k) = rest.rfind(" b/") {
        return rest[k + 3..].trim_matches('"').to_string();
    }
    rest.split(' ')
        .next_back()
        .unwrap_or("")
        .trim_start_matches("b/")
        .to_string()
}

/// `git diff` as a structured reducer.
#[derive(Default)]
pub struct GitDiff {
    diff: DiffReducer,
    /// Lines that are not part of a diff (kept in place, the first 200).
    other_count: u64,
}

impl super::Structured for GitDiff {
    fn push(&mut self, line: &str) {
        if !self.diff.push(line) {
            // in its place among the files (`Only in a: x` of `diff -r` after the files
            // before it)
            self.other_count += 1;
            if self.other_count <= 200 {
                self.diff.lines.push(line.to_string());
            }
        }
    }

    fn finish(mut self: Box<Self>, _exit_code: i32) -> Option<super::StructuredOutput> {
        self.diff.end_file();
        if self.diff.files == 0 || self.other_count > self.diff.recognized {
            return None;
        }
        let lines = std::mem::take(&mut self.diff.lines);
        Some(super::StructuredOutput {
            name: "git-diff",
            facts: self.diff.facts(),
            lines,
            omitted: self.diff.changed_clipped,
            filtered: self.diff.context_hidden,
            facts_line: true,
            json_cut: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::Structured;
    use super::*;

    const DIFF: &str = "diff --git a/src/a.rs b/src/a.rs
index 1111111..2222222 100644
--- a/src/a.rs
+++ b/src/a.rs
@@ -1,7 +1,7 @@ fn main() {
 one
 two
 three
-four
+FOUR
 five
 six
 seven
diff --git a/new.txt b/new.txt
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/new.txt
@@ -0,0 +1,2 @@
+hello
+world
";

    #[test]
    fn plain_unified_diffs_of_several_files_split_where_each_hunk_ends() {
        // isort --diff style: no `diff` line between files, and a removed line that looks
        // like a header (`-- x` removed is `--- x`)
        let text = "--- a/one.py:before\t2026-11-27 02:03:33.246916
+++ a/one.py:after\t2026-11-27 02:03:33.341778
@@ -1,3 +1,3 @@
--- x
+import os
 keep
 keep2
--- a/two.py:before\t2026-11-27 02:03:33.246916
+++ a/two.py:after\t2026-11-27 02:03:33.341778
@@ -1 +1 @@
-old
+new
\\ No newline at end of file
";
        let out = super::super::feed(Box::new(GitDiff::default()), text, 1).unwrap();
        let t = out.lines.join("\n");
        assert_eq!(out.facts[0], ("changed file".to_string(), 2), "{t}");
        assert_eq!(out.facts[2], ("added line".to_string(), 2), "{t}");
        assert_eq!(out.facts[3], ("removed line".to_string(), 2), "{t}");
        // the second context line is hidden: the header counts the lines shown
        assert!(t.contains("--- a/one.py:before\n+++ a/one.py:after\n@@ -1,2 +1,2 @@\n--- x\n+import os\n keep\n"), "{t}");
        assert!(
            t.contains("\n--- a/two.py:before\n+++ a/two.py:after\n@@ -1 +1 @@\n-old\n+new"),
            "{t}"
        );
        assert!(!t.contains("2026-11-27"), "{t}");
        assert_eq!(
            hunk_ranges("@@ -1,8 +1,9 @@ fn x"),
            Some(((1, 8), (1, 9), " fn x"))
        );
        assert_eq!(hunk_ranges("@@ -3 +0,0 @@"), Some(((3, 1), (0, 0), "")));
        assert_eq!(hunk_ranges("@@@ -1,2 -1,2 +1,3 @@@"), None);
    }

    #[test]
    fn keeps_changes_and_counts_hidden_context() {
        let mut d = Box::new(GitDiff::default());
        for l in DIFF.lines() {
            d.push(l);
        }
        let out = d.finish(0).unwrap();
        let t = out.lines.join("\n");
        // the header names the first line shown, keeping the function context
        assert!(t.starts_with("diff --git a/src/a.rs b/src/a.rs\n@@ -3,3 +3,3 @@ fn main() {\n three\n-four\n+FOUR\n five\n"), "{t}");
        assert!(t.contains("diff --git a/new.txt b/new.txt\nnew file mode 100644\n@@ -0,0 +1,2 @@\n+hello\n+world"), "{t}");
        assert!(!t.contains("index ") && !t.contains("+++ b/"));
        assert_eq!(out.filtered, 4, "one, two, six, seven hidden");
        assert_eq!(
            out.facts,
            vec![
                ("changed file".into(), 2),
                ("hunk".into(), 2),
                ("added line".into(), 3),
                ("removed line".into(), 1)
            ]
        );
    }

    #[test]
    fn context_hidden_inside_a_hunk_starts_a_run_with_its_own_numbers() {
        let mut text =
            String::from("diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -2,16 +2,17 @@ fn f() {\n");
        for i in 2..=17 {
            match i {
                5 => text.push_str("-5\n+FIVE\n"),
                11 => text.push_str("-11\n+ELEVEN\n+ELEVEN AND A HALF\n"),
                _ => text.push_str(&format!(" {i}\n")),
            }
        }
        let out = super::super::feed(Box::new(GitDiff::default()), &text, 0).unwrap();
        let t = out.lines.join("\n");
        assert_eq!(
            t,
            "diff --git a/f b/f\n@@ -4,3 +4,3 @@ fn f() {\n 4\n-5\n+FIVE\n 6\n\
             @@ -10,3 +10,4 @@\n 10\n-11\n+ELEVEN\n+ELEVEN AND A HALF\n 12"
        );
        assert_eq!(out.filtered, 10, "2, 3, 7, 8, 9, 13 to 17");
    }

    #[test]
    fn lockfiles_are_clipped_with_a_count() {
        let mut d = Box::new(GitDiff::default());
        d.push("diff --git a/Cargo.lock b/Cargo.lock");
        d.push("--- a/Cargo.lock");
        d.push("+++ b/Cargo.lock");
        d.push("@@ -1,0 +1,100 @@");
        for i in 0..100 {
            d.push(&format!("+line {i}"));
        }
        let out = d.finish(0).unwrap();
        let t = out.lines.join("\n");
        assert!(
            t.contains(
                "... 88 more changed lines in Cargo.lock not shown (generated or lock file) ..."
            ),
            "{t}"
        );
        assert_eq!(out.omitted, 88);
    }

    #[test]
    fn not_a_diff() {
        let mut d = Box::new(GitDiff::default());
        d.push("fatal: bad revision 'nope'");
        assert!(d.finish(128).is_none());
    }
}
