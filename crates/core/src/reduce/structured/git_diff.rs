//! Unified diffs (`git diff`, `git show`, `git log -p`, `diff -u`).
//!
//! Keeps every file name, every hunk header (line numbers and function context) and
//! every added or removed line; unchanged context shrinks to one line on each side of a
//! change, and the number of hidden context lines is counted. A hunk's body ends where
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
    /// The last context line, held back in case a change follows.
    held: Option<String>,
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
            self.left = hunk_counts(line);
            self.held = None;
            self.after_change = 0;
            self.recognized += 1;
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
                    return true;
                }
                if let Some(h) = self.held.take() {
                    self.lines.push(h);
                }
                f.shown += 1;
                self.total_shown += 1;
                self.lines.push(clip_line(line, LINE_CHARS).into_owned());
                self.after_change = 1;
                true
            }
            Some(b' ') | None => {
                self.recognized += 1;
                self.count_body_line(true, true);
                if self.after_change > 0 {
                    self.after_change -= 1;
                    if self.file.as_ref().is_some_and(|f| f.clipped == 0) {
                        self.lines.push(clip_line(line, LINE_CHARS).into_owned());
                        return true;
                    }
                }
                if self
                    .held
                    .replace(clip_line(line, LINE_CHARS).into_owned())
                    .is_some()
                {
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

/// `--- a/x.txt<TAB>2026-11-27 02:00:48.66 +0000` → `--- a/x.txt`: diff's header names a
/// file, then its modification time after a tab.
fn without_time(line: &str) -> &str {
    line.split_once('\t').map_or(line, |(head, _)| head)
}

/// The old and new line counts of a hunk header `@@ -a,b +c,d @@` (a count left out is
/// 1); None for anything else (a combined diff's `@@@ … @@@`).
fn hunk_counts(line: &str) -> Option<(u64, u64)> {
    let rest = line.strip_prefix("@@ -")?;
    let (old, rest) = rest.split_once(" +")?;
    let (new, _) = rest.split_once(" @@")?;
    let count = |r: &str| match r.split_once(',') {
        Some((_, n)) => n.parse().ok(),
        None => r.parse::<u64>().ok().map(|_| 1),
    };
    Some((count(old)?, count(new)?))
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
        assert!(t.contains("--- a/one.py:before\n+++ a/one.py:after\n@@ -1,3 +1,3 @@\n--- x\n+import os\n keep\n"), "{t}");
        assert!(
            t.contains("\n--- a/two.py:before\n+++ a/two.py:after\n@@ -1 +1 @@\n-old\n+new"),
            "{t}"
        );
        assert!(!t.contains("2026-11-27"), "{t}");
        assert_eq!(hunk_counts("@@ -1,8 +1,9 @@ fn x"), Some((8, 9)));
        assert_eq!(hunk_counts("@@ -3 +0,0 @@"), Some((1, 0)));
        assert_eq!(hunk_counts("@@@ -1,2 -1,2 +1,3 @@@"), None);
    }

    #[test]
    fn keeps_changes_and_counts_hidden_context() {
        let mut d = Box::new(GitDiff::default());
        for l in DIFF.lines() {
            d.push(l);
        }
        let out = d.finish(0).unwrap();
        let t = out.lines.join("\n");
        assert!(t.starts_with("diff --git a/src/a.rs b/src/a.rs\n@@ -1,7 +1,7 @@ fn main() {\n three\n-four\n+FOUR\n five"), "{t}");
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
