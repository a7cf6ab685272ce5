//! pytest and `python -m unittest`.
//!
//! pytest: the FAILURES/ERRORS sections stay (test header, the failing `>` line, every
//! `E` line with the assertion and its values, the `file:line: Error` location, locals,
//! captured output), as do the short test summary and the final `N failed, M passed`
//! line. Dropped: the session banner, progress lines (`tests/x.py ..F.  [ 40%]`, and
//! `-q`'s marks alone), verbose PASSED/SKIPPED lines, the function source above the
//! failing line, caret lines, framework frames. Verbose FAILED lines are dropped when the short summary
//! lists the same tests. A short-summary line whose test has its own failure block above
//! (one block by that name) goes, its test id moving into the block's header
//! (`__ tests/test_cart.py::test_remove_missing __`): the block holds the message whole,
//! the summary line a clipped copy of it.
//!
//! unittest: `FAIL:`/`ERROR:` blocks with their tracebacks, `Ran N tests`, and the
//! `FAILED (failures=1, errors=1)` / `OK` line; `... ok` lines and separators go.

use super::test_common::{count_pairs, is_foreign_frame, Cx};
use super::{Structured, StructuredOutput};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Section {
    #[default]
    None,
    /// FAILURES / ERRORS: tracebacks in pytest's long or short format.
    Failures,
    ShortSummary,
    /// warnings summary, captured logs at session level: kept as is.
    Other,
}

#[derive(Default)]
pub struct Pytest {
    cx: Cx,
    section: Section,
    /// The previous kept line was a `path:NN: in func` location (short tracebacks).
    after_location: bool,
    /// Verbose `path::test FAILED` lines, dropped at the end when the short summary has them.
    verbose_failed: Vec<String>,
    short_summary: bool,
    summary_seen: bool,
    /// unittest: inside a traceback, dropping framework frames.
    unittest: bool,
    skip_frame_source: bool,
}

fn banner_rule(t: &str, word: &str) -> bool {
    t.starts_with('=') && t.ends_with('=') && t.contains(word)
}

fn is_progress(t: &str) -> bool {
    // `tests/test_cart.py ...FF    [ 31%]`
    if !t.ends_with("%]") {
        return false;
    }
    let Some((left, _)) = t.rsplit_once('[') else {
        return false;
    };
    let marks_only = |m: &str| !m.is_empty() && m.chars().all(|c| ".FEsxXp".contains(c));
    // `-q`: the marks alone (`........................   [100%]`)
    if marks_only(left.trim()) {
        return true;
    }
    let mut parts = left.split_whitespace();
    let file = parts.next().unwrap_or("");
    let marks = parts.next().unwrap_or("");
    file.contains(".py") && parts.next().is_none() && marks_only(marks)
}

fn verbose_status(t: &str) -> Option<&'static str> {
    // `tests/test_cart.py::test_add_one PASSED       [  6%]`
    if !t.contains("::") {
        return None;
    }
    for w in ["PASSED", "FAILED", "ERROR", "SKIPPED", "XFAIL", "XPASS"] {
        let pat = format!(" {w}");
        if let Some(i) = t.find(&pat) {
            let rest = t[i + pat.len()..].trim();
            if rest.is_empty() || rest.starts_with('[') || rest.starts_with('(') {
                return Some(w);
            }
        }
    }
    None
}

/// `test_x.py::test_y SKIPPED (not on linux)   [ 97%]` → the line without its padding and
/// progress, when the status comes with a reason (SKIPPED, XFAIL).
fn with_reason(t: &str, w: &str) -> Option<String> {
    if w != "SKIPPED" && w != "XFAIL" {
        return None;
    }
    let pat = format!(" {w}");
    let i = t.find(&pat)?;
    let rest = t[i + pat.len()..].trim_start();
    if !rest.starts_with('(') {
        return None;
    }
    let reason = match rest.rfind(')') {
        Some(end) => &rest[..=end],
        None => rest.trim_end(),
    };
    Some(format!("{} {w} {reason}", t[..i].trim_end()))
}

impl Pytest {
    fn final_summary(&mut self, t: &str) {
        // `==== 6 failed, 8 passed, 2 skipped in 0.50s ====`, `1 passed in 0.01s`
        let inner = t.trim_matches(|c| c == '=' || c == ' ');
        let body = inner.rsplit_once(" in ").map_or(inner, |x| x.0);
        for (w, n) in count_pairs(body) {
            let name = match w.as_str() {
                "failed" => "failed test",
                "passed" => "passed test",
                "skipped" => "skipped test",
                "error" | "errors" => "error",
                "xfailed" => "xfailed test",
                "xpassed" => "xpassed test",
                "deselected" => "deselected test",
                "warning" | "warnings" => "warning",
                _ => continue,
            };
            self.cx.set_fact(name, n);
        }
        self.summary_seen = true;
        self.cx.seen();
        self.cx.keep(t);
    }

    fn unittest_line(&mut self, t: &str) -> bool {
        if t.chars().all(|c| c == '=') && t.len() >= 20
            || t.chars().all(|c| c == '-') && t.len() >= 20
        {
            self.cx.drop(1);
            return true;
        }
        if t.starts_with("FAIL: ") || t.starts_with("ERROR: ") {
            self.unittest = true;
            self.cx.failure(t.split_once(": ").map_or(t, |x| x.1));
            self.cx.seen();
            self.cx.keep(t);
            return true;
        }
        if let Some(rest) = t.strip_prefix("Ran ") {
            if rest.contains(" test") {
                self.unittest = true;
                self.cx.seen();
                if let Some(n) = rest.split_whitespace().next().and_then(|n| n.parse().ok()) {
                    self.cx.set_fact("test", n);
                }
                self.cx.keep(t);
                return true;
            }
        }
        if self.unittest && (t == "OK" || t.starts_with("OK (") || t.starts_with("FAILED (")) {
            let inner = t.split_once('(').map_or("", |x| x.1.trim_end_matches(')'));
            for part in inner.split(',') {
                if let Some((k, v)) = part.trim().split_once('=') {
                    if let Ok(n) = v.parse() {
                        let name = match k {
                            "failures" => "failed test",
                            "errors" => "error",
                            "skipped" => "skipped test",
                            "expected failures" => "xfailed test",
                            _ => continue,
                        };
                        self.cx.set_fact(name, n);
                    }
                }
            }
            self.summary_seen = true;
            self.cx.keep(t);
            return true;
        }
        // `test_add (tests.test_unit.CartTest.test_add) ... ok`
        if let Some((_, status)) = t.rsplit_once(" ... ") {
            if t.starts_with("test") {
                self.unittest = true;
                self.cx.seen();
                if status == "ok" || status.starts_with("skipped") || status == "expected failure" {
                    self.cx.drop(1);
                } else {
                    self.cx.keep(t);
                }
                return true;
            }
        }
        // dots line of a non-verbose run: `.sEF`
        if !t.is_empty()
            && t.len() < 500
            && t.chars().all(|c| ".sEFxu".contains(c))
            && t.contains('.')
        {
            self.cx.drop(1);
            return true;
        }
        false
    }
}

impl Structured for Pytest {
    fn push(&mut self, line: &str) {
        let t = line;
        // section banners
        if t.starts_with("====")
            || t.starts_with("____")
            || t.starts_with("----")
            || t.starts_with("!!!!")
        {
            if banner_rule(t, "test session starts") {
                self.cx.seen();
                self.cx.drop(1);
                self.section = Section::None;
                return;
            }
            if banner_rule(t, " FAILURES ") || banner_rule(t, " ERRORS ") {
                self.cx.seen();
                self.section = Section::Failures;
                self.cx.keep(t);
                return;
            }
            if banner_rule(t, "short test summary info") {
                self.cx.seen();
                self.section = Section::ShortSummary;
                self.short_summary = true;
                self.cx.keep(t);
                return;
            }
            if t.starts_with('=')
                && t.ends_with('=')
                && t.contains(" in ")
                && t.chars().any(|c| c.is_ascii_digit())
            {
                self.final_summary(t);
                self.section = Section::None;
                return;
            }
            if t.starts_with('=') && t.ends_with('=') && t.len() > 20 && t.contains(' ') {
                self.section = Section::Other;
                self.cx.keep(t);
                return;
            }
            if t.starts_with("!!!!") {
                self.cx.keep(t);
                return;
            }
            if (t.starts_with("____") || t.starts_with("----")) && t.contains(' ') {
                // test header `____ test_x ____`, `---- Captured stdout call ----`
                self.cx.keep(t);
                self.after_location = false;
                return;
            }
        }
        if self.unittest_line(t) {
            return;
        }
        if self.section == Section::None {
            for p in [
                "platform ",
                "rootdir:",
                "cachedir:",
                "configfile:",
                "plugins:",
                "collecting ",
                "collected ",
                "testpaths:",
                "cacheprovider",
            ] {
                if t.starts_with(p) {
                    self.cx.seen();
                    self.cx.drop(1);
                    return;
                }
            }
            if is_progress(t) {
                self.cx.seen();
                self.cx.drop(1);
                return;
            }
            if let Some(w) = verbose_status(t) {
                self.cx.seen();
                if w == "FAILED" || w == "ERROR" || w == "XPASS" {
                    if self.verbose_failed.len() < 1000 {
                        self.verbose_failed.push(t.to_string());
                    }
                    self.cx.keep(t);
                } else if let Some(line) = with_reason(t, w) {
                    // a skip or an expected failure that says why: the reason is a fact
                    self.cx.keep(&line);
                } else {
                    self.cx.drop(1);
                }
                return;
            }
            // a bare final summary without banners (`-q`): `3 failed, 1 passed in 0.1s`
            if t.contains(" in ")
                && (t.contains(" passed") || t.contains(" failed") || t.contains(" error"))
                && t.chars().next().is_some_and(|c| c.is_ascii_digit())
            {
                self.final_summary(t);
                return;
            }
        }
        if t.starts_with("-- Docs: https://docs.pytest.org") {
            self.cx.drop(1);
            return;
        }
        if self.section == Section::Failures {
            if t.starts_with("_ _ _") {
                self.cx.drop(1);
                self.after_location = false;
                return;
            }
            if t.starts_with("E ") || t == "E" || t.starts_with('>') {
                if t.trim_end() == "E" {
                    self.cx.drop(1);
                    return;
                }
                self.cx.keep(t);
                self.after_location = false;
                return;
            }
            if t.starts_with("    ") {
                let s = t.trim();
                if s.chars().all(|c| c == '^' || c == '~' || c == ' ') {
                    self.cx.drop(1);
                    return;
                }
                // short format: the source line right after `path:NN: in func` is the failing line
                if self.after_location && !self.skip_frame_source {
                    self.after_location = false;
                    self.cx.keep(t);
                    return;
                }
                // long format: the function's source above the failing line
                self.cx.drop(1);
                return;
            }
            // `path.py:26: in test_x` / `path.py:18: KeyError` / `path.py:26: `
            let loc = t.split_once(':').is_some_and(|(p, rest)| {
                p.ends_with(".py")
                    && rest
                        .split(':')
                        .next()
                        .is_some_and(|n| n.parse::<u32>().is_ok())
            });
            if loc {
                self.after_location = t.contains(": in ");
                self.skip_frame_source = is_foreign_frame(t);
                if self.skip_frame_source {
                    self.cx.drop(1);
                } else {
                    self.cx.keep(t);
                }
                return;
            }
        }
        if self.section == Section::ShortSummary {
            if let Some(name) = t
                .strip_prefix("FAILED ")
                .or_else(|| t.strip_prefix("ERROR "))
            {
                self.cx.failure(name.split(" - ").next().unwrap_or(name));
            }
            self.cx.keep(t);
            return;
        }
        // unittest tracebacks: framework frames go
        if self.unittest && t.starts_with("  File \"") && is_foreign_frame(t) {
            self.skip_frame_source = true;
            self.cx.drop(1);
            return;
        }
        if self.unittest && self.skip_frame_source && t.starts_with("    ") {
            self.cx.drop(1);
            return;
        }
        self.skip_frame_source = false;
        if self.unittest && super::test_common::is_caret_line(t) {
            self.cx.drop(1);
            return;
        }
        if t.trim().is_empty() {
            self.cx.drop(1);
            return;
        }
        self.cx.keep(t);
    }

    fn finish(self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        let mut me = *self;
        if me.short_summary && !me.verbose_failed.is_empty() {
            let dup = std::mem::take(&mut me.verbose_failed);
            me.cx.retain(|l| !dup.iter().any(|d| d == l));
        }
        if !me.summary_seen && !me.verbose_failed.is_empty() && me.cx.fact("failed test").is_none()
        {
            let n = me
                .verbose_failed
                .iter()
                .filter(|l| l.contains(" FAILED"))
                .count() as u64;
            me.cx.set_fact("failed test", n);
        }
        if me.short_summary {
            ids_into_headers(&mut me.cx);
        }
        me.cx
            .finish(if me.unittest { "unittest" } else { "pytest" })
    }
}

/// `FAILED tests/test_a.py::Cls::test_x[p] - msg` → (`tests/test_a.py::Cls::test_x[p]`,
/// the failure block title `Cls.test_x[p]`).
fn summary_id(line: &str) -> Option<(&str, String)> {
    let rest = line.strip_prefix("FAILED ")?;
    let id = rest.split(" - ").next()?.trim();
    let (_, name) = id.split_once("::")?;
    Some((id, name.replace("::", ".")))
}

/// Short-summary lines whose test has exactly one failure block: the block's header takes
/// the test id and the summary line goes (the banner too, when no line is left under it).
/// Nothing changes when kept lines were cut (a block may be gone).
fn ids_into_headers(cx: &mut Cx) {
    cx.rewrite_whole(|lines| {
        let title = |l: &str| {
            l.strip_prefix("__ ")
                .and_then(|t| t.strip_suffix(" __"))
                .map(str::to_string)
        };
        let titles: Vec<Option<String>> = lines.iter().map(|l| title(l)).collect();
        let mut gone = vec![false; lines.len()];
        for i in 0..lines.len() {
            let Some((id, name)) = summary_id(&lines[i]) else {
                continue;
            };
            let id = id.to_string();
            let blocks: Vec<usize> = (0..i)
                .filter(|&k| titles[k].as_deref() == Some(name.as_str()))
                .collect();
            if let [k] = blocks[..] {
                lines[k] = format!("__ {id} __");
                gone[i] = true;
            }
        }
        // the banner goes when every line under it went
        if let Some(b) = lines
            .iter()
            .position(|l| banner_rule(l, "short test summary info"))
        {
            let under = (b + 1..lines.len())
                .take_while(|&k| !lines[k].starts_with("==") && !lines[k].is_empty());
            let mut any = false;
            let mut all = true;
            for k in under {
                any = true;
                all &= gone[k];
            }
            gone[b] = any && all;
        }
        let mut k = 0;
        lines.retain(|_| {
            k += 1;
            !gone[k - 1]
        });
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Option<StructuredOutput> {
        crate::reduce::structured::feed(Box::<Pytest>::default(), text, 1)
    }

    #[test]
    fn a_test_failing_alike_for_many_parameters_is_one_block_and_nothing_is_cut() {
        let mut text = String::from(
            "============================= test session starts ==============================\n\
             collected 90 items\n\n\
             tests/test_many.py FFFF                                                   [100%]\n\n\
             =================================== FAILURES ===================================\n",
        );
        for n in 0..90 {
            text.push_str(&format!(
                "____________________________ test_count_grows[{n}] _____________________________\n\n\
                 n = {n}\n\n    def test_count_grows(n):\n>       assert count() == n\n\
                 E       assert {} == {n}\n\
                 E        +  where count = <app.cart.Cart object at 0x7f1eb{:07x}>.count\n\n\
                 tests/test_many.py:9: AssertionError\n",
                n + 1,
                n * 4099
            ));
        }
        text.push_str(
            "============================== 90 failed in 0.21s ==============================\n",
        );
        let out = run(&text).unwrap();
        let t = out.lines.join("\n");
        assert_eq!(out.omitted, 0, "{t}");
        assert!(!t.contains("listed because lines were cut"), "{t}");
        assert!(t.contains("E       assert 1 == 0\n"), "{t}");
        // the repeats' own words: the parameter, the values, the address
        assert!(
            t.contains("test_count_grows[1] 1 2 1 0x7f1eb0001003>.count |"),
            "{t}"
        );
        assert!(t.contains("test_count_grows[89] 89 90 89 0x7f1eb"), "{t}");
        assert!(t.lines().count() < 40, "{t}");

        // thousands of them: folding makes no room for all, and the output stays about the
        // size of the cut it would have been (each marker lists up to 2,000 characters)
        let mut many = String::from("collected 3000 items\n\n=================================== FAILURES ===================================\n");
        for n in 0..3000 {
            many.push_str(&format!(
                "____________________________ test_count_grows[{n}] _____________________________\n\n\
                 n = {n}\n\n>       assert count() == n\nE       assert {} == {n}\n\n\
                 tests/test_many.py:9: AssertionError\n",
                n + 1
            ));
        }
        many.push_str(
            "============================== 3000 failed in 2.10s ==============================\n",
        );
        let out = run(&many).unwrap();
        let bytes: usize = out.lines.iter().map(|l| l.len() + 1).sum();
        assert!(out.omitted > 0);
        assert!(bytes < 24 << 10, "{bytes} bytes");
    }

    #[test]
    fn failures_kept_noise_dropped() {
        let text =
            "============================= test session starts ==============================
platform linux -- Python 3.11.7, pytest-9.2.0, pluggy-1.7.0
rootdir: /tmp/p
collected 3 items

tests/test_a.py .F.                                                      [100%]

=================================== FAILURES ===================================
_________________________________ test_total __________________________________

    def test_total():
        x = 1
>       assert total([10.0, 5.5], discount=0.1) == 13.95
E       assert 13 == 13.95
E        +  where 13 = total([10.0, 5.5], discount=0.1)

tests/test_a.py:10: AssertionError
=========================== short test summary info ============================
FAILED tests/test_a.py::test_total - assert 13 == 13.95
========================= 1 failed, 2 passed in 0.05s ==========================
";
        let out = run(text).unwrap();
        let t = out.lines.join("\n");
        // the block's header carries the test id; the summary's copy of it goes
        assert!(t.contains("__ tests/test_a.py::test_total __"), "{t}");
        assert!(t.contains(">       assert total"), "{t}");
        assert!(t.contains("E       assert 13 == 13.95"), "{t}");
        assert!(t.contains("tests/test_a.py:10: AssertionError"), "{t}");
        assert!(!t.contains("FAILED tests/test_a.py"), "{t}");
        assert!(!t.contains("short test summary"), "{t}");
        assert!(!t.contains("x = 1"), "{t}");
        assert!(!t.contains("platform"), "{t}");
        assert!(!t.contains("[100%]"), "{t}");
        assert_eq!(
            out.facts,
            vec![("failed test".into(), 1), ("passed test".into(), 2)]
        );
    }

    #[test]
    fn a_summary_line_without_one_block_of_its_name_stays() {
        let text =
            "=================================== FAILURES ===================================
_________________________________ test_x __________________________________
E       assert 1 == 2
tests/a/test_m.py:3: AssertionError
_________________________________ test_x __________________________________
E       assert 3 == 4
tests/b/test_m.py:3: AssertionError
_________________________________ test_y __________________________________
E       assert 5 == 6
tests/b/test_m.py:9: AssertionError
=========================== short test summary info ============================
FAILED tests/a/test_m.py::test_x - assert 1 == 2
FAILED tests/b/test_m.py::test_x - assert 3 == 4
FAILED tests/b/test_m.py::test_y - assert 5 == 6
ERROR tests/c/test_n.py - ImportError: no module named n
========================= 3 failed, 1 error in 0.05s ==========================
";
        let t = run(text).unwrap().lines.join("\n");
        // two blocks named test_x: which is which is only in the summary
        assert!(
            t.contains("FAILED tests/a/test_m.py::test_x - assert 1 == 2"),
            "{t}"
        );
        assert!(
            t.contains("FAILED tests/b/test_m.py::test_x - assert 3 == 4"),
            "{t}"
        );
        assert!(t.contains("__ tests/b/test_m.py::test_y __"), "{t}");
        assert!(!t.contains("FAILED tests/b/test_m.py::test_y"), "{t}");
        assert!(t.contains("== short test summary info =="), "{t}");
        assert!(t.contains("ERROR tests/c/test_n.py - ImportError"), "{t}");
    }

    #[test]
    fn unittest_blocks() {
        let text = "test_add (t.CartTest.test_add) ... ok
test_total (t.CartTest.test_total) ... FAIL

======================================================================
FAIL: test_total (t.CartTest.test_total)
----------------------------------------------------------------------
Traceback (most recent call last):
  File \"/p/t.py\", line 12, in test_total
    self.assertEqual(total([10.0]), 13.95)
AssertionError: 13 != 13.95

----------------------------------------------------------------------
Ran 2 tests in 0.001s

FAILED (failures=1)
";
        let out = run(text).unwrap();
        let t = out.lines.join("\n");
        assert!(t.contains("FAIL: test_total"), "{t}");
        assert!(t.contains("AssertionError: 13 != 13.95"), "{t}");
        assert!(t.contains("File \"/p/t.py\", line 12"), "{t}");
        assert!(!t.contains("... ok"), "{t}");
        assert_eq!(out.name, "unittest");
        assert_eq!(
            out.facts,
            vec![("test".into(), 2), ("failed test".into(), 1)]
        );
    }

    #[test]
    fn not_pytest() {
        assert!(run(
            "Collecting pytest\n  Downloading pytest-9.0.whl\nSuccessfully installed pytest-9.0\n"
        )
        .is_none());
    }
}
