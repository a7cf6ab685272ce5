//! JavaScript/TypeScript test runners: jest, vitest, mocha, bun test, deno test,
//! playwright, and node's test runner (TAP, as it prints when piped). Used directly
//! and under `npm test` / `pnpm test` / `yarn test`, whichever of them runs below.
//!
//! Kept: failing tests (`FAIL file`, `● suite › test`, `×`, `(fail)`, `not ok`, `✘`,
//! `1) suite test:`), the assertion with its expected/received values and diff, the
//! failing source line, project stack frames (`at fn (src/x.js:6:30)`), uncaught
//! errors, and the runner's summary. Dropped: passing and skipped tests, banners,
//! timings, code-frame context lines, runtime and node_modules frames, TAP's YAML
//! noise (durations, failure types).
//! Facts: the runner's own counts (`Tests: 3 failed, 5 passed`, `3 failing`,
//! ` 3 fail`, `# fail 3`, `FAILED | 2 passed | 3 failed`).

use super::test_common::{count_pairs, is_caret_line, is_foreign_frame, Cx, Frames};
use super::{Structured, StructuredOutput};

#[derive(Default)]
pub struct JsTest {
    cx: Cx,
    frames: Frames,
    /// TAP: inside the YAML block of a test (`---` … `...`); true when the test failed.
    tap_yaml: Option<bool>,
    /// TAP: inside a multi-line YAML value we keep (`error: |-`, `stack: |-`).
    tap_key_indent: Option<(usize, bool)>,
    last_tap_failed: bool,
    /// node's spec reporter: the closing `✖ failing tests:` recap (details were shown
    /// inline); Some(true) right after a `✖ name` line, whose first detail line stays.
    node_recap: Option<bool>,
    /// deno: inside the closing ` FAILURES ` list (the same names as the ERRORS headers).
    in_deno_failures: bool,
    /// jest --verbose: the test tree under a `PASS file` line (dropped up to the blank line).
    in_pass_suite: bool,
    failed_markers: u64,
    failed_files: u64,
    passed_files: u64,
    summary: bool,
}

/// Lines that say a single test passed or was skipped.
fn is_pass_line(s: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "✓ ",
        "✔ ",
        "√ ",
        "(pass) ",
        "(skip) ",
        "(todo) ",
        "○ skipped ",
        "○ ",
        "↓ ",
        "✓  ",
        "﹣ ",
    ];
    if PREFIXES.iter().any(|p| s.starts_with(p)) {
        return true;
    }
    // deno: `name ... ok (28ms)` / `... ignored (0ms)`
    if let Some((_, st)) = s.rsplit_once(" ... ") {
        return st.starts_with("ok") || st.starts_with("ignored");
    }
    false
}

fn is_noise(s: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "RUN  v",
        "Start at ",
        "Duration ",
        "Snapshots:",
        "Time:",
        "Ran all test suites",
        "bun test v",
        "Check file:",
        "TAP version",
        "# Subtest: ",
        "Stack backtrace:",
        "0: <unknown>",
    ];
    if PREFIXES.iter().any(|p| s.starts_with(p)) {
        return true;
    }
    // npm's own log below `error` (`npm test --loglevel verbose`): `npm verbose cwd …`,
    // `npm info using node@v20`, `npm timing …`; its `npm error` lines stay
    if let Some(rest) = s.strip_prefix("npm ") {
        let level = rest.split(' ').next().unwrap_or("");
        if matches!(
            level,
            "verbose" | "verb" | "info" | "timing" | "http" | "sill" | "silly" | "notice"
        ) {
            return true;
        }
    }
    // deno `Check deno-test/a_test.ts`, `running 6 tests from ./a_test.ts`;
    // playwright `Running 3 tests using 1 worker`
    if let Some(rest) = s.strip_prefix("Check ") {
        return !rest.contains(' ') && (rest.contains('/') || rest.contains('.'));
    }
    if s.starts_with("running ") && s.contains(" tests from ")
        || s.starts_with("running 1 test from ")
    {
        return true;
    }
    if s.starts_with("Running ") && s.contains(" using ") && s.contains(" worker") {
        return true;
    }
    if s.ends_with(" expect() calls") {
        return true;
    }
    // vitest's failure separator `⎯⎯⎯[1/3]⎯`
    if s.starts_with('⎯') && s.ends_with('⎯') && !s.contains("Failed") && !s.contains("Unhandled")
    {
        return true;
    }
    // TAP plan `1..5`
    if let Some((a, b)) = s.split_once("..") {
        if a.bytes().all(|c| c.is_ascii_digit())
            && b.bytes().all(|c| c.is_ascii_digit())
            && !a.is_empty()
        {
            return true;
        }
    }
    false
}

fn name_for(word: &str) -> Option<&'static str> {
    Some(match word {
        "failed" | "fail" | "failing" | "failures" | "failure" => "failed test",
        "passed" | "pass" | "passing" => "passed test",
        "skipped" | "skip" | "pending" | "ignored" | "todo" => "skipped test",
        "flaky" => "flaky test",
        "cancelled" => "cancelled test",
        _ => return None,
    })
}

impl JsTest {
    /// The runner's summary lines; true when `s` was one (kept, counted).
    fn summary(&mut self, s: &str) -> bool {
        // jest `Tests:       3 failed, 1 skipped, 5 passed, 9 total`
        if let Some(rest) = s.strip_prefix("Tests:") {
            self.set_counts(rest, "");
            self.keep_summary(s);
            return true;
        }
        if let Some(rest) = s.strip_prefix("Test Suites:") {
            self.set_counts(rest, " test suite");
            self.keep_summary(s);
            return true;
        }
        // vitest `Test Files  1 failed | 1 passed (2)` / `Tests  3 failed | 5 passed | 1 skipped (9)`
        if let Some(rest) = s.strip_prefix("Test Files ") {
            self.set_counts(rest.split(" (").next().unwrap_or(rest), " suite");
            self.keep_summary(s);
            return true;
        }
        if let Some(rest) = s.strip_prefix("Tests ") {
            if rest.contains(" passed") || rest.contains(" failed") || rest.contains(" skipped") {
                self.set_counts(rest.split(" (").next().unwrap_or(rest), "");
                self.keep_summary(s);
                return true;
            }
        }
        // deno `FAILED | 2 passed | 3 failed | 1 ignored (44ms)` / `ok | 5 passed | 0 failed (3ms)`
        if (s.starts_with("FAILED | ") || s.starts_with("ok | ")) && s.contains(" passed") {
            let body = s.split_once(" | ").map_or(s, |x| x.1);
            let body = body.rsplit_once(" (").map_or(body, |x| x.0);
            self.set_counts(body, "");
            self.keep_summary(s);
            return true;
        }
        // TAP `# pass 3`, `# fail 3`, `# tests 7`, `# skipped 1`; node's spec reporter `ℹ pass 3`
        if s.starts_with("# duration_ms ") || s.starts_with("ℹ duration_ms ") {
            self.cx.drop(1);
            return true;
        }
        if let Some(rest) = s.strip_prefix("# ").or_else(|| s.strip_prefix("ℹ ")) {
            let mut it = rest.split_whitespace();
            if let (Some(w), Some(n), None) = (it.next(), it.next(), it.next()) {
                if let Ok(n) = n.parse::<u64>() {
                    if let Some(name) = name_for(w) {
                        self.summary = true;
                        self.cx.seen();
                        self.cx.set_fact(name, n);
                        if n > 0 || w == "fail" || w == "pass" {
                            self.cx.keep(s);
                        } else {
                            self.cx.drop(1);
                        }
                        return true;
                    }
                    if w == "tests" || w == "suites" || w == "todo" || w == "duration_ms" {
                        self.cx.seen();
                        self.cx.drop(1);
                        return true;
                    }
                }
            }
        }
        // mocha `4 passing (45ms)`, `3 failing`, `1 pending`; bun ` 3 pass`, ` 3 fail`;
        // playwright `  1 failed`, `  2 passed (3.1s)`, `  1 flaky`
        let mut it = s.split_whitespace();
        if let (Some(n), Some(w)) = (it.next(), it.next()) {
            if let (Ok(n), Some(name)) = (n.parse::<u64>(), name_for(w)) {
                let rest: Vec<&str> = it.collect();
                let ok_rest = rest.is_empty()
                    || (rest.len() == 1 && rest[0].starts_with('(') && rest[0].ends_with(')'));
                if ok_rest {
                    self.summary = true;
                    self.cx.seen();
                    self.cx.set_fact(name, n);
                    self.cx.keep(s);
                    return true;
                }
            }
        }
        // bun `Ran 7 tests across 1 file. [127.00ms]`
        if s.starts_with("Ran ") && s.contains(" across ") {
            self.cx.seen();
            self.cx.keep(s);
            return true;
        }
        false
    }

    fn set_counts(&mut self, body: &str, suffix: &str) {
        self.summary = true;
        for (w, n) in count_pairs(body) {
            if let Some(name) = name_for(&w) {
                let name = if suffix.is_empty() {
                    name.to_string()
                } else {
                    // `failed suite`, `passed suite`
                    format!("{}{suffix}", name.split(' ').next().unwrap_or(name))
                };
                self.cx.set_fact(&name, n);
            }
        }
    }

    fn keep_summary(&mut self, s: &str) {
        self.cx.seen();
        self.cx.keep(s);
    }

    /// node's TAP output: `ok`/`not ok` lines and their YAML blocks.
    fn tap(&mut self, line: &str, s: &str) -> bool {
        if let Some(failed) = self.tap_yaml {
            if s == "..." {
                self.tap_yaml = None;
                self.tap_key_indent = None;
                self.cx.drop(1);
                return true;
            }
            let indent = line.len() - line.trim_start().len();
            if let Some((key_indent, keep)) = self.tap_key_indent {
                if indent > key_indent || s.is_empty() {
                    if keep
                        && !(s.starts_with("at ") && is_foreign_frame(s))
                        && !is_foreign_frame(s)
                    {
                        self.cx.keep(line);
                    } else {
                        self.cx.drop(1);
                    }
                    return true;
                }
                self.tap_key_indent = None;
            }
            if !failed {
                self.cx.drop(1);
                return true;
            }
            let key = s.split(':').next().unwrap_or("");
            let keep = matches!(
                key,
                "location" | "error" | "name" | "expected" | "actual" | "stack" | "cause"
            );
            if keep {
                self.cx.keep(line);
            } else {
                self.cx.drop(1);
            }
            if s.ends_with('|') || s.ends_with("|-") || s.ends_with(':') {
                self.tap_key_indent = Some((indent, keep));
            }
            return true;
        }
        if s == "---" {
            // the YAML block of the test just seen: kept only for a failure
            let failed = self.last_tap_failed;
            self.tap_yaml = Some(failed);
            self.cx.drop(1);
            return true;
        }
        if let Some(rest) = s.strip_prefix("not ok ") {
            self.cx.seen();
            self.last_tap_failed = !rest.contains("# SKIP") && !rest.contains("# TODO");
            if self.last_tap_failed {
                self.failed_markers += 1;
                self.cx.failure(s);
                self.cx.keep(line);
            } else {
                self.cx.drop(1);
            }
            return true;
        }
        if s.starts_with("ok ") && s[3..].starts_with(|c: char| c.is_ascii_digit()) {
            self.cx.seen();
            self.last_tap_failed = false;
            self.cx.drop(1);
            return true;
        }
        false
    }
}

impl Structured for JsTest {
    fn push(&mut self, line: &str) {
        // playwright pads failure titles with a rule: `1) a.spec.js:3:1 › title ─────`
        let line = if line.ends_with('─')
            && line
                .trim_start()
                .starts_with(|c: char| !matches!(c, '─' | '⎯'))
        {
            line.trim_end_matches(['─', ' '])
        } else {
            line
        };
        let s = line.trim();
        if self.tap(line, s) {
            return;
        }
        if self.frames.offer(line, &mut self.cx) {
            return;
        }
        if s.is_empty() {
            self.in_pass_suite = false;
            self.cx.keep("");
            return;
        }
        if s == "✖ failing tests:" {
            self.node_recap = Some(false);
            self.cx.keep(line);
            return;
        }
        if let Some(first) = self.node_recap {
            if s.starts_with("test at ") {
                self.cx.keep(line);
            } else if s.starts_with("✖ ") {
                self.node_recap = Some(true);
                self.cx.keep(line);
            } else if first && !s.is_empty() {
                self.node_recap = Some(false);
                self.cx.keep(line);
            } else {
                self.cx.drop(1);
            }
            return;
        }
        if s == "FAILURES" {
            self.in_deno_failures = true;
            self.cx.drop(1);
            return;
        }
        if self.in_deno_failures && (s.contains(" => ") || s.ends_with("(uncaught error)")) {
            self.cx.drop(1);
            return;
        }
        self.in_deno_failures = false;
        if self.in_pass_suite && line.starts_with("  ") {
            self.cx.drop(1);
            return;
        }
        self.in_pass_suite = false;
        if is_caret_line(line) {
            self.cx.drop(1);
            return;
        }
        if self.summary(s) {
            return;
        }
        if is_pass_line(s) {
            self.cx.seen();
            self.cx.drop(1);
            return;
        }
        if is_noise(s) {
            self.cx.drop(1);
            return;
        }
        // jest `PASS test/a.test.js`, vitest `✓ spec/price.test.js (2 tests) 3ms`
        if s.starts_with("PASS ") {
            self.cx.seen();
            self.in_pass_suite = true;
            self.passed_files += 1;
            self.cx.drop(1);
            return;
        }
        if s.starts_with("FAIL ") {
            self.cx.seen();
            self.failed_files += 1;
            self.cx.keep(line);
            return;
        }
        // stack frames: project frames stay
        if let Some(f) = s.strip_prefix("at ") {
            if is_foreign_frame(s) || f.starts_with("<anonymous>") && !f.contains('/') {
                self.cx.drop(1);
            } else {
                self.cx.keep(line);
            }
            return;
        }
        // failure markers of the different runners
        let failed = s.starts_with("× ")
            || s.starts_with("✕ ")
            || s.starts_with("✘ ")
            || (s.starts_with("✖ ") && s != "✖ failing tests:")
            || s.starts_with("(fail) ")
            || s.starts_with("● ")
            || s.ends_with(" ... FAILED")
            || s.contains(" ... FAILED (");
        if failed {
            self.cx.seen();
            self.failed_markers += 1;
            self.cx.failure(s);
        }
        if s.starts_with("❯ ") && s.contains(" tests") && s.contains(" failed") {
            self.cx.seen();
            self.failed_files += 1;
        }
        self.cx.keep(line);
    }

    fn finish(self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        let mut me = *self;
        me.frames.flush(&mut me.cx);
        if !me.summary {
            if me.failed_markers > 0 {
                me.cx.set_fact("failed test", me.failed_markers);
            }
            if me.failed_files > 0 {
                me.cx.set_fact("failed suite", me.failed_files);
            }
        }
        me.cx.finish("js-test")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Option<StructuredOutput> {
        crate::reduce::structured::feed(Box::<JsTest>::default(), text, 1)
    }

    #[test]
    fn jest_failure_kept() {
        let text = "PASS test/ok.test.js
FAIL test/price.test.js
  ● parses commas

    TypeError: not a price: 4,00

      4 | function parsePrice(text) {
    > 6 |   if (Number.isNaN(v)) throw new TypeError(`not a price: ${text}`);
        |                              ^
      7 |   return v;

      at parsePrice (src/cart.js:6:30)
      at Object.<anonymous> (node_modules/jest-circus/build/x.js:1:1)

Tests:       1 failed, 5 passed, 6 total
Time:        2.55 s
";
        let out = run(text).unwrap();
        let t = out.lines.join("\n");
        assert!(t.contains("FAIL test/price.test.js"), "{t}");
        assert!(t.contains("● parses commas"), "{t}");
        assert!(t.contains("TypeError: not a price: 4,00"), "{t}");
        assert!(t.contains("> 6 |"), "{t}");
        assert!(!t.contains("  7 |"), "{t}");
        assert!(t.contains("at parsePrice (src/cart.js:6:30)"), "{t}");
        assert!(!t.contains("jest-circus"), "{t}");
        assert!(!t.contains("PASS"), "{t}");
        assert_eq!(
            out.facts,
            vec![("failed test".into(), 1), ("passed test".into(), 5)]
        );
    }

    #[test]
    fn tap_failure_kept() {
        let text = "TAP version 13
# Subtest: a
ok 1 - a
  ---
  duration_ms: 0.7
  ...
# Subtest: b
not ok 2 - b
  ---
  duration_ms: 1.5
  location: '/p/t.js:6:3'
  error: |-
    14 !== 13.95
  expected: 13.95
  actual: 14
  stack: |-
    TestContext.<anonymous> (/p/t.js:6:45)
    Test.run (node:internal/test_runner/test:796:25)
  ...
1..2
# tests 2
# pass 1
# fail 1
";
        let out = run(text).unwrap();
        let t = out.lines.join("\n");
        assert!(t.contains("not ok 2 - b"), "{t}");
        assert!(t.contains("location: '/p/t.js:6:3'"), "{t}");
        assert!(t.contains("14 !== 13.95"), "{t}");
        assert!(
            t.contains("expected: 13.95") && t.contains("actual: 14"),
            "{t}"
        );
        assert!(t.contains("(/p/t.js:6:45)"), "{t}");
        assert!(
            !t.contains("node:internal") && !t.contains("duration_ms") && !t.contains("ok 1 - a"),
            "{t}"
        );
        assert_eq!(
            out.facts,
            vec![("passed test".into(), 1), ("failed test".into(), 1)]
        );
    }

    #[test]
    fn not_a_test_run() {
        assert!(run("added 120 packages in 3s\n\n20 packages are looking for funding\n").is_none());
    }
}
