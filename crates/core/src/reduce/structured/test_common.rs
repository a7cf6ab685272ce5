//! Shared machinery of the test-runner reducers (`cargo_test`, `pytest`, `js_test`,
//! `go_test`, `xunit`).
//!
//! A runner dialect sees every cleaned line and tells the [`Cx`] what to do with it:
//! keep it (failures, assertions, locations, summaries, anything it does not know),
//! drop it as noise (passing tests, progress, banners, code frames, runtime stack
//! frames — counted, never silent), or read counts from the runner's own summary line.
//! Unknown lines are kept: the reducers remove what they know is noise and nothing else.
//! Memory is bounded: the first [`HEAD`] kept lines and the last [`TAIL`] are held,
//! the ones between are counted and replaced by a marker.

use std::collections::VecDeque;

use super::StructuredOutput;
use crate::reduce::blocks::fold_blocks;
use crate::reduce::render::omission_marker;
use crate::reduce::shape::Fold;
use crate::reduce::text::clip_line;

/// Kept lines held from the start of the output.
pub const HEAD: usize = 400;
/// Kept lines held from the end (the summary is always there).
pub const TAIL: usize = 150;
/// Longest kept line.
const MAX_LINE: usize = 1000;
/// The held head's size past which its blocks are not folded again to make room: a few
/// markers. Past it, more folding would describe more failures in markers of up to 2,000
/// characters each, and an output that is cut anyway would come out larger than the cut
/// alone (20,000 alike failures: 14,137 tokens against 6,442).
const HEAD_BYTES: usize = 6 << 10;

/// What a runner dialect does with the lines it sees.
#[derive(Debug, Default)]
pub struct Cx {
    head: Vec<String>,
    tail: VecDeque<String>,
    omitted: u64,
    filtered: u64,
    /// Lines that show the text is this runner's output.
    pub recognized: u64,
    facts: Vec<(String, u64)>,
    last_blank: bool,
    /// Names of failing tests, listed at the end when kept lines had to be cut
    /// (so every failing test's name survives a very long run).
    failures: Vec<String>,
    failures_more: u64,
    /// Folding the held head's blocks no longer makes room (see [`Cx::keep`]).
    head_folded_out: bool,
}

/// A banner drawn to the terminal's width (`====== FAILURES ======`, `____ test_x ____`,
/// `------ Captured stdout call ------`, pytest's `!!!!!! Interrupted: 1 error during
/// collection !!!!!!`) keeps its title and two of its rule characters on
/// each side: the width is layout, not a fact, and costs a dozen tokens a line.
pub fn shorten_banner(line: &str) -> std::borrow::Cow<'_, str> {
    use std::borrow::Cow;
    let t = line.trim_end();
    let Some(c) = t.chars().next().filter(|c| "=_-*#~!".contains(*c)) else {
        return Cow::Borrowed(line);
    };
    let lead = t.chars().take_while(|x| *x == c).count();
    let trail = t.chars().rev().take_while(|x| *x == c).count();
    if lead == t.len() {
        // a bare rule line: three characters say as much
        return if lead > 6 {
            Cow::Owned(c.to_string().repeat(3))
        } else {
            Cow::Borrowed(line)
        };
    }
    // short fixed markers (`---- name stdout ----`) are the tool's own words, not layout
    if lead < 6 || trail < 6 {
        return Cow::Borrowed(line);
    }
    let title = t[lead..t.len() - trail].trim();
    if title.is_empty() || !t[lead..].starts_with(' ') {
        return Cow::Borrowed(line);
    }
    let rule = c.to_string().repeat(2);
    Cow::Owned(format!("{rule} {title} {rule}"))
}

/// Failing test names remembered for the closing list.
const MAX_FAILURE_NAMES: usize = 2000;

impl Cx {
    /// Keep a line (blank runs fold into one blank line).
    pub fn keep(&mut self, line: &str) {
        let blank = line.trim().is_empty();
        if blank && (self.last_blank || self.is_empty()) {
            self.filtered += 1;
            return;
        }
        self.last_blank = blank;
        let l = if blank {
            String::new()
        } else {
            clip_line(&shorten_banner(line), MAX_LINE).into_owned()
        };
        if self.head.len() < HEAD {
            self.head.push(l);
            return;
        }
        // the head is full: blocks of it that come again (a test with parameters failing
        // alike for each) are said once, which may leave room for the rest uncut
        if !self.head_folded_out {
            let before = self.head.len();
            self.head = fold_blocks(std::mem::take(&mut self.head), Fold::default()).0;
            // folding again only while it makes room and the head is small (see HEAD_BYTES)
            let bytes: usize = self.head.iter().map(String::len).sum();
            self.head_folded_out = before - self.head.len() < HEAD / 8 || bytes > HEAD_BYTES;
            if self.head.len() < HEAD {
                self.head.push(l);
                return;
            }
        }
        self.tail.push_back(l);
        if self.tail.len() > TAIL {
            self.tail.pop_front();
            self.omitted += 1;
        }
    }

    /// Remember a failing test's name (shown again only if the middle gets cut).
    pub fn failure(&mut self, name: &str) {
        let name = name.trim();
        if name.is_empty() || self.failures.iter().any(|n| n == name) {
            return;
        }
        if self.failures.len() < MAX_FAILURE_NAMES {
            self.failures.push(clip_line(name, 300).into_owned());
        } else {
            self.failures_more += 1;
        }
    }

    /// Drop `n` noise lines (counted).
    pub fn drop(&mut self, n: u64) {
        self.filtered += n;
    }

    /// Lines counted as dropped that are shown after all.
    pub fn undrop(&mut self, n: u64) {
        self.filtered = self.filtered.saturating_sub(n);
    }

    pub fn is_empty(&self) -> bool {
        self.head.is_empty() && self.tail.is_empty()
    }

    /// The runner's own line: counts as evidence of the format.
    pub fn seen(&mut self) {
        self.recognized += 1;
    }

    /// Add to a fact (several binaries or suites each print a summary).
    pub fn add_fact(&mut self, name: &str, v: u64) {
        match self.facts.iter_mut().find(|(n, _)| n == name) {
            Some(f) => f.1 += v,
            None => self.facts.push((name.to_string(), v)),
        }
    }

    /// Set a fact (a grand total that replaces partial counts).
    pub fn set_fact(&mut self, name: &str, v: u64) {
        match self.facts.iter_mut().find(|(n, _)| n == name) {
            Some(f) => f.1 = v,
            None => self.facts.push((name.to_string(), v)),
        }
    }

    pub fn fact(&self, name: &str) -> Option<u64> {
        self.facts.iter().find(|(n, _)| n == name).map(|f| f.1)
    }

    pub fn has_facts(&self) -> bool {
        !self.facts.is_empty()
    }

    pub fn clear_facts(&mut self) {
        self.facts.clear();
    }

    /// Remove kept lines for which `f` is false (counted as noise). Only the held
    /// lines are looked at.
    pub fn retain(&mut self, mut f: impl FnMut(&str) -> bool) {
        let before = self.head.len() + self.tail.len();
        self.head.retain(|l| f(l));
        self.tail.retain(|l| f(l));
        self.filtered += (before - self.head.len() - self.tail.len()) as u64;
    }

    /// Lets `f` edit the kept lines, in order, when none were cut (a reducer's last pass;
    /// lines it removes are counted as noise). Does nothing once the middle was dropped.
    pub fn rewrite_whole(&mut self, f: impl FnOnce(&mut Vec<String>)) {
        if self.omitted > 0 {
            return;
        }
        let mut lines = std::mem::take(&mut self.head);
        lines.extend(self.tail.drain(..));
        let before = lines.len();
        f(&mut lines);
        self.filtered += before.saturating_sub(lines.len()) as u64;
        self.head = lines;
    }

    /// The reducer's output, or None when the text was not this runner's.
    pub fn finish(mut self, name: &'static str) -> Option<StructuredOutput> {
        if self.recognized == 0 {
            return None;
        }
        while self.tail.back().is_some_and(String::is_empty) {
            self.tail.pop_back();
        }
        if self.tail.is_empty() {
            while self.head.last().is_some_and(String::is_empty) {
                self.head.pop();
            }
        }
        let mut lines = self.head;
        if self.omitted > 0 {
            lines.push(omission_marker(self.omitted, 0));
        }
        lines.extend(self.tail);
        if self.omitted > 0 && !self.failures.is_empty() {
            let total = self.failures.len() as u64 + self.failures_more;
            lines.push(format!(
                "failing tests ({total}, listed because lines were cut above):"
            ));
            for n in &self.failures {
                lines.push(format!("  {n}"));
            }
            if self.failures_more > 0 {
                lines.push(format!("  ... and {} more", self.failures_more));
            }
        }
        Some(StructuredOutput {
            name,
            // a coverage table's rows fold first; then blocks that come again are said
            // once, with what differs in each repeat
            lines: fold_blocks(
                super::coverage::fold_coverage_tables(lines),
                Fold::default(),
            )
            .0,
            facts: self.facts,
            omitted: self.omitted,
            filtered: self.filtered,
            facts_line: true,
            json_cut: false,
        })
    }
}

/// A stack frame that belongs to the runtime, the test framework or a dependency,
/// not to the project: `node:internal/…`, `node_modules/`, `site-packages/`,
/// Rust's `/rustc/…` standard library, Go's `testing/` and `runtime/`, JVM and .NET
/// framework frames.
pub fn is_foreign_frame(frame: &str) -> bool {
    const MARKERS: &[&str] = &[
        "node:internal",
        "node:async_hooks",
        "(node:",
        "(ext:",
        "node_modules/",
        "(native)",
        "<node_internals>",
        "site-packages/",
        "dist-packages/",
        "/lib/python3",
        "/rustc/",
        "/.cargo/registry/",
        "/.rustup/toolchains/",
        "/usr/lib/go/src/",
        "/usr/local/go/src/",
        "/gems/",
        "/ruby/3.",
        "/rubygems/",
        "org.junit.",
        "junit.framework.",
        "at org.apache.maven.",
        "at sun.reflect.",
        "at jdk.internal.",
        "at java.base/",
        "at java.lang.reflect.",
        "at org.gradle.",
        "at System.",
        "at Microsoft.",
        "at Xunit.",
        "at NUnit.",
        "/vendor/phpunit/",
        "processTicksAndRejections",
        "async Promise.all (index",
        "process.processImmediate",
    ];
    MARKERS.iter().any(|m| frame.contains(m))
}

/// Parse `3 failed, 1 skipped, 5 passed, 9 total` / `3 failed | 5 passed (9)` into
/// (word, number) pairs.
pub fn count_pairs(s: &str) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    for part in s.split([',', '|', ';']) {
        let part = part.trim();
        let mut words = part.split_whitespace();
        let (Some(a), Some(b)) = (words.next(), words.next()) else {
            continue;
        };
        if let Ok(n) = a.parse::<u64>() {
            out.push((b.trim_end_matches(['.', ':']).to_ascii_lowercase(), n));
        } else if let Ok(n) = b.trim_end_matches(['.', ',']).parse::<u64>() {
            // `Failures: 1` style
            out.push((a.trim_end_matches(':').to_ascii_lowercase(), n));
        }
    }
    out
}

/// A line of a source code frame: `  4 | code`, `> 4 | code`, `   4| code`, `4 | code`.
pub fn is_code_frame(line: &str) -> bool {
    let t = line.trim_start();
    let t = t.strip_prefix('>').map(str::trim_start).unwrap_or(t);
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return false;
    }
    let rest = t[digits..].trim_start_matches(' ');
    rest.starts_with('|')
}

/// The caret line under a code frame: `    |   ^`, `      ^`.
pub fn is_caret_line(line: &str) -> bool {
    let t = line.trim();
    let t = t.strip_prefix('|').map(str::trim).unwrap_or(t);
    !t.is_empty() && t.chars().all(|c| c == '^' || c == '~' || c == ' ')
}

/// Code frames: hold the frame lines; when the caret comes, keep only the line it
/// points at (the failing line). A frame with no caret is dropped whole.
#[derive(Debug, Default)]
pub struct Frames {
    held: Vec<String>,
}

impl Frames {
    /// Offer a line; true when it was a frame or caret line (and handled).
    pub fn offer(&mut self, line: &str, cx: &mut Cx) -> bool {
        if is_code_frame(line) {
            if self.held.len() >= 40 {
                self.held.remove(0);
                cx.drop(1);
            }
            self.held.push(line.to_string());
            return true;
        }
        if !self.held.is_empty() && is_caret_line(line) {
            let last = self.held.pop();
            cx.drop(self.held.len() as u64 + 1);
            self.held.clear();
            if let Some(l) = last {
                cx.keep(&l);
            }
            return true;
        }
        self.flush(cx);
        false
    }

    /// A frame that ended without a caret: keep the `>`-marked line if there is one.
    pub fn flush(&mut self, cx: &mut Cx) {
        if self.held.is_empty() {
            return;
        }
        let marked = self
            .held
            .iter()
            .position(|l| l.trim_start().starts_with('>'));
        let n = self.held.len() as u64;
        match marked {
            Some(i) => {
                let l = self.held[i].clone();
                cx.keep(&l);
                cx.drop(n - 1);
            }
            None => cx.drop(n),
        }
        self.held.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn banners_keep_their_title_not_their_width() {
        assert_eq!(
            shorten_banner(
                "=================================== FAILURES ==================================="
            ),
            "== FAILURES =="
        );
        assert_eq!(
            shorten_banner(
                "_________________________________ test_broken __________________________________"
            ),
            "__ test_broken __"
        );
        assert_eq!(
            shorten_banner(
                "!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!"
            ),
            "!! Interrupted: 1 error during collection !!"
        );
        assert_eq!(
            shorten_banner(
                "=================== 1 failed, 42 passed, 1 skipped in 0.03s ===================="
            ),
            "== 1 failed, 42 passed, 1 skipped in 0.03s =="
        );
        assert_eq!(shorten_banner("------------------------------"), "---");
        // not banners
        for l in [
            "--- a/x",
            "== x",
            "-----BEGIN KEY-----x",
            "E       assert 4 == 5",
            "_private_name",
            "---- tests::add stdout ----",
        ] {
            assert_eq!(shorten_banner(l), l);
        }
    }

    #[test]
    fn counts_and_frames() {
        assert_eq!(
            count_pairs("3 failed, 1 skipped, 5 passed, 9 total"),
            vec![
                ("failed".into(), 3),
                ("skipped".into(), 1),
                ("passed".into(), 5),
                ("total".into(), 9)
            ]
        );
        assert_eq!(
            count_pairs("Tests: 7, Assertions: 6, Failures: 1."),
            vec![
                ("tests".into(), 7),
                ("assertions".into(), 6),
                ("failures".into(), 1)
            ]
        );
        assert!(is_code_frame("    > 4 |   test(\"x\")"));
        assert!(is_code_frame("      5|   test"));
        assert!(!is_code_frame("  4 passing (45ms)"));
        assert!(is_caret_line("        |        ^"));
        assert!(!is_caret_line("  |"));
        assert!(is_foreign_frame(
            "    at Test.run (node:internal/test_runner/test:796:25)"
        ));
        assert!(!is_foreign_frame("    at parsePrice (src/cart.js:6:30)"));
    }

    #[test]
    fn cx_bounds_and_markers() {
        let mut cx = Cx::default();
        cx.seen();
        for i in 0..(HEAD + TAIL + 10) {
            cx.keep(&format!("line {i}"));
        }
        let out = cx.finish("t").unwrap();
        assert_eq!(out.omitted, 10);
        assert!(out.lines.contains(&"... 10 lines omitted ...".to_string()));
        assert_eq!(
            out.lines.last().unwrap(),
            &format!("line {}", HEAD + TAIL + 9)
        );
        assert!(Cx::default().finish("t").is_none());
    }

    #[test]
    fn failing_names_listed_when_cut() {
        let mut cx = Cx::default();
        cx.seen();
        cx.failure("tests::a");
        for i in 0..(HEAD + TAIL + 1) {
            cx.keep(&format!("line {i}"));
        }
        cx.failure("tests::b");
        let out = cx.finish("t").unwrap();
        let t = out.lines.join("\n");
        assert!(
            t.ends_with(
                "failing tests (2, listed because lines were cut above):\n  tests::a\n  tests::b"
            ),
            "{t}"
        );
    }

    #[test]
    fn frame_keeps_the_pointed_line() {
        let mut cx = Cx::default();
        let mut f = Frames::default();
        for l in ["  3 | a", "> 4 | b", "    |   ^", "  5 | c"] {
            if !f.offer(l, &mut cx) {
                cx.keep(l);
            }
        }
        f.flush(&mut cx);
        cx.seen();
        let out = cx.finish("t").unwrap();
        assert_eq!(out.lines, vec!["> 4 | b".to_string()]);
        assert_eq!(out.filtered, 3);
    }
}
