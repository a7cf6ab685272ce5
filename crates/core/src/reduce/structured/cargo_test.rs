//! `cargo test` (libtest) and `cargo nextest run`.
//!
//! Kept: every failing test (`test x ... FAILED`, nextest's `FAIL [..] crate test`), its
//! captured output with the panic message, assertion values and location, the
//! backtrace frames in project code, `test result: FAILED` lines, the `error: test
//! failed, to rerun pass …` hints, and compile errors whole (a test run that does not
//! build). Dropped: `Compiling`/`Running` progress, passing and ignored tests, `ok`
//! result lines, libtest's repeated name lists and nextest's list of the failed tests after
//! its `Summary` (each line already shown above it), standard-library backtrace frames,
//! warning snippets (the warning line and its location stay), `cargo test -q`'s marks.
//! Facts: passed/failed/ignored tests summed over every test binary (libtest), or
//! nextest's own `Summary` line. A libtest run of several binaries also keeps one line per
//! binary with its own counts (binaries that ran no test are counted on one line), so a
//! workspace run's per-binary results are not summed away. Tests a name filter left out
//! (`8 filtered out`) are counted with them: `cargo test NAME` that passes says so.

use super::test_common::{is_foreign_frame, Cx};
use super::{Structured, StructuredOutput};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Diag {
    Error,
    Warning,
}

#[derive(Default)]
pub struct CargoTest {
    cx: Cx,
    nextest: bool,
    nextest_summary: bool,
    /// `Running unittests src/lib.rs (…)`: shown before the binary's first kept line.
    header: Option<String>,
    diag: Option<Diag>,
    in_name_list: bool,
    in_backtrace: bool,
    frame: Option<String>,
    failed_lines: u64,
    compile_errors: u64,
    /// `test result: ok.` lines dropped (one per passing test binary).
    ok_results: u64,
    /// Tests that failed (`test x ... FAILED`) and those with a `---- x stdout ----` block.
    failed_names: Vec<String>,
    detailed: std::collections::HashSet<String>,
    /// Inside nextest's `stdout ───`/`stderr ───` capture (indented by 4).
    in_capture: bool,
    /// nextest's FAIL lines kept before its `Summary` (which lists them again).
    nextest_failed: std::collections::HashSet<String>,
    /// The libtest binary running now (from its `Running …`/`Doc-tests …` line).
    binary: Option<String>,
    /// Each libtest binary's counts: name, then passed, failed, ignored and filtered out
    /// (`cargo test NAME` runs only the tests whose names hold NAME: how many it left out
    /// says whether the run covered what was asked).
    binaries: Vec<(String, [u64; 4])>,
    /// Tests left out by a name filter, over every libtest binary.
    filtered_out: u64,
    /// The line before was `running N tests` or a line of `cargo test -q`'s marks.
    marks_may_follow: bool,
}

/// A line of `cargo test -q`'s marks: `....i..F` or `........ 88/200`.
fn is_terse_progress(s: &str) -> bool {
    let marks = s.split_once(' ').map_or(s, |(marks, count)| {
        let count_ok = count
            .split_once('/')
            .is_some_and(|(a, b)| a.parse::<u64>().is_ok() && b.parse::<u64>().is_ok());
        if count_ok {
            marks
        } else {
            ""
        }
    });
    !marks.is_empty() && marks.bytes().all(|c| matches!(c, b'.' | b'i' | b'F'))
}

/// The name a libtest binary is shown by: `calc src/lib.rs` for
/// `unittests src/lib.rs (target/debug/deps/calc-1f2e)`, `tests/api.rs` for an integration
/// test, `calc doc-tests` for `Doc-tests calc`.
fn binary_name(running: &str) -> String {
    if let Some(krate) = running.strip_prefix("Doc-tests ") {
        return format!("{} doc-tests", krate.trim());
    }
    let rest = running.strip_prefix("Running ").unwrap_or(running);
    let (what, path) = match rest.rsplit_once(" (") {
        Some((w, p)) => (w.trim(), p.trim_end_matches(')')),
        None => (rest.trim(), ""),
    };
    match what.strip_prefix("unittests ") {
        Some(src) => {
            let stem = path.rsplit('/').next().unwrap_or(path);
            let krate = match stem.rsplit_once('-') {
                Some((k, hash)) if hash.bytes().all(|b| b.is_ascii_hexdigit()) => k,
                _ => stem,
            };
            if krate.is_empty() {
                what.to_string()
            } else {
                format!("{krate} {src}")
            }
        }
        None => what.to_string(),
    }
}

impl CargoTest {
    pub fn new(nextest: bool) -> Self {
        CargoTest {
            nextest,
            ..Self::default()
        }
    }

    fn keep(&mut self, line: &str) {
        if let Some(h) = self.header.take() {
            self.cx.keep(&h);
        }
        self.cx.keep(line);
    }

    fn result_line(&mut self, t: &str) -> bool {
        let Some(rest) = t.strip_prefix("test result: ") else {
            return false;
        };
        self.cx.seen();
        if !self.nextest {
            let (mut passed, mut failed, mut ignored, mut filtered) = (0, 0, 0, 0);
            for (word, n) in
                super::test_common::count_pairs(rest.split_once(". ").map_or(rest, |x| x.1))
            {
                match word.as_str() {
                    "passed" => passed = n,
                    "failed" => failed = n,
                    "ignored" => ignored = n,
                    "filtered" => filtered = n,
                    _ => {}
                }
            }
            self.cx.add_fact("passed test", passed);
            self.cx.add_fact("failed test", failed);
            self.cx.add_fact("ignored test", ignored);
            self.filtered_out += filtered;
            if self.binaries.len() < 5000 {
                let name = self.binary.take().unwrap_or_else(|| "tests".into());
                self.binaries
                    .push((name, [passed, failed, ignored, filtered]));
            }
        }
        if rest.starts_with("ok") || self.nextest {
            self.cx.drop(1);
            self.ok_results += 1;
            self.header = None;
        } else {
            self.keep(t);
        }
        true
    }

    fn nextest_status(&mut self, t: &str) -> bool {
        // `PASS [   0.007s] ( 1/13) calc tests::add`, `FAIL [ …`, `SIGSEGV [ …`
        let s = t.trim_start();
        let Some((word, rest)) = s.split_once(' ') else {
            return false;
        };
        let rest = rest.trim_start();
        if !rest.starts_with('[') || !word.chars().all(|c| c.is_ascii_uppercase()) {
            return false;
        }
        self.nextest = true;
        self.cx.seen();
        self.in_capture = false;
        self.header = None;
        match word {
            "PASS" | "SKIP" | "START" | "RETRY" | "SLOW" => self.cx.drop(1),
            // after the Summary, the failed tests again: each shown above already
            _ if self.nextest_summary && self.nextest_failed.contains(s) => self.cx.drop(1),
            _ => {
                // `FAIL [   0.012s] ( 3/13) calc tests::divide_by_zero`
                if let Some((_, name)) = rest.split_once(") ") {
                    self.cx.failure(name);
                }
                if !self.nextest_summary {
                    self.nextest_failed.insert(s.to_string());
                }
                self.keep(s)
            }
        }
        true
    }

    fn nextest_summary(&mut self, t: &str) -> bool {
        let s = t.trim_start();
        let Some(rest) = s.strip_prefix("Summary [") else {
            return false;
        };
        self.nextest = true;
        self.nextest_summary = true;
        self.cx.seen();
        self.in_capture = false;
        if let Some((_, counts)) = rest.split_once(" run: ") {
            for (word, n) in super::test_common::count_pairs(counts) {
                let name = match word.as_str() {
                    "passed" => "passed test",
                    "failed" => "failed test",
                    "skipped" => "skipped test",
                    "flaky" => "flaky test",
                    "leaky" => "leaky test",
                    "timed" => "timed out test",
                    _ => continue,
                };
                self.cx.set_fact(name, n);
            }
        }
        self.keep(s);
        true
    }
}

fn progress(t: &str) -> bool {
    const WORDS: &[&str] = &[
        "Compiling ",
        "Checking ",
        "Finished ",
        "Downloaded ",
        "Downloading ",
        "Updating ",
        "Locking ",
        "Adding ",
        "Blocking ",
        "Fresh ",
        "Building ",
        "Documenting ",
        "Packaging ",
        "Unpacking ",
    ];
    t.starts_with(' ') && {
        let s = t.trim_start();
        WORDS.iter().any(|w| s.starts_with(w))
    }
}

impl CargoTest {
    /// One line per binary that ran tests, with its own counts; those that ran none are
    /// counted together.
    fn per_binary_table(&mut self) {
        let ran = |c: &[u64; 4]| c[0] + c[1] + c[2] > 0;
        let idle: Vec<u64> = self
            .binaries
            .iter()
            .filter(|(_, c)| !ran(c))
            .map(|(_, c)| c[3])
            .collect();
        let mut lines = vec![format!("per test binary ({}):", self.binaries.len())];
        for (name, counts) in self.binaries.iter().filter(|(_, c)| ran(c)) {
            let mut parts = Vec::new();
            for (n, word) in counts
                .iter()
                .zip(["passed", "failed", "ignored", "filtered out"])
            {
                if *n > 0 {
                    parts.push(format!("{n} {word}"));
                }
            }
            lines.push(format!("  {name}: {}", parts.join(", ")));
        }
        if !idle.is_empty() {
            let filtered: u64 = idle.iter().sum();
            lines.push(format!(
                "  {} more binar{} ran no tests{}",
                idle.len(),
                if idle.len() == 1 { "y" } else { "ies" },
                if filtered > 0 {
                    format!(" ({filtered} filtered out)")
                } else {
                    String::new()
                }
            ));
        }
        for l in lines {
            self.cx.keep(&l);
        }
    }
}

impl Structured for CargoTest {
    fn push(&mut self, line: &str) {
        let marks_may_follow = std::mem::take(&mut self.marks_may_follow);
        // nextest indents captured output by four spaces
        let t = if self.in_capture {
            line.strip_prefix("    ").unwrap_or(line)
        } else {
            line
        };
        let s = t.trim_start();

        // backtraces: keep frames in project code, drop the rest
        if self.in_backtrace {
            if crate::reduce::backtrace::frame_name(s).is_some() {
                if self.frame.take().is_some() {
                    self.cx.drop(1);
                }
                self.frame = Some(s.to_string());
                return;
            }
            if let Some(at) = s.strip_prefix("at ") {
                match self.frame.take() {
                    // (the C runtime's thread start has a source file of its own)
                    Some(f)
                        if !is_foreign_frame(at)
                            && !crate::reduce::backtrace::is_library_frame(&f) =>
                    {
                        self.keep(&format!("   {f} at {at}"))
                    }
                    Some(_) => self.cx.drop(2),
                    None => self.cx.drop(1),
                }
                return;
            }
            if self.frame.take().is_some() {
                self.cx.drop(1);
            }
            self.in_backtrace = false;
        }
        if s == "stack backtrace:" || s == "Stack backtrace:" {
            self.in_backtrace = true;
            self.cx.drop(1);
            return;
        }
        if s.starts_with("note: Some details are omitted")
            || s.starts_with("note: run with `RUST_BACKTRACE=")
        {
            self.cx.drop(1);
            return;
        }

        // compiler diagnostics around the run
        if let Some(d) = self.diag {
            if t.is_empty() {
                self.diag = None;
                self.cx.drop(1);
                return;
            }
            let cont = t.starts_with(' ')
                || t.starts_with('|')
                || t.starts_with("...")
                || super::test_common::is_code_frame(t);
            let status = progress(t) || s.starts_with("Running ") || s.starts_with("Doc-tests ");
            if cont && !status {
                if d == Diag::Error || s.starts_with("--> ") {
                    self.keep(t);
                } else {
                    self.cx.drop(1);
                }
                return;
            }
            self.diag = None;
        }
        if progress(t) {
            self.cx.drop(1);
            return;
        }
        if let Some(rest) = s.strip_prefix("Running ").filter(|_| t.starts_with(' ')) {
            self.cx.seen();
            self.cx.drop(1);
            self.header = Some(format!("Running {rest}"));
            self.binary = Some(binary_name(s));
            return;
        }
        if let Some(rest) = s.strip_prefix("Doc-tests ").filter(|_| t.starts_with(' ')) {
            self.cx.seen();
            self.cx.drop(1);
            self.header = Some(format!("Doc-tests {rest}"));
            self.binary = Some(binary_name(s));
            return;
        }
        if t.starts_with("error[") || t.starts_with("error: ") || t.starts_with("error:") {
            let test_failure = t.starts_with("error: test failed")
                || t.starts_with("error: test run failed")
                || (t.starts_with("error: ") && t.contains(" targets failed"));
            if !test_failure && !t.starts_with("error: could not compile") {
                self.compile_errors += 1;
            }
            if t.starts_with("error: could not compile") || test_failure {
                self.cx.seen();
            }
            self.diag = Some(Diag::Error);
            self.keep(t);
            return;
        }
        if t.starts_with("warning: ") || t.starts_with("warning[") {
            let summary = t.contains(" generated ") && t.contains(" warning");
            if !summary && !t.contains("tests were not run") {
                self.diag = Some(Diag::Warning);
            }
            self.keep(t);
            return;
        }

        if self.nextest_status(t) || self.nextest_summary(t) {
            return;
        }
        if s.starts_with("Nextest run ID ")
            || (s.starts_with("Starting ") && s.contains(" across "))
            || (!s.is_empty() && s.chars().all(|c| c == '─'))
        {
            self.nextest = true;
            self.cx.seen();
            self.cx.drop(1);
            return;
        }
        // `stdout ───`, also drawn with a rule before it (`── stdout ───`)
        let capture = s.trim_start_matches(['─', ' ']);
        if self.nextest && (capture.starts_with("stdout ─") || capture.starts_with("stderr ─"))
        {
            self.in_capture = true;
            // shown only when something of the capture is kept
            self.header = Some(s.to_string());
            return;
        }

        // libtest
        if s.starts_with("running ") && (s.ends_with(" tests") || s.ends_with(" test")) {
            self.cx.seen();
            self.cx.drop(1);
            self.marks_may_follow = true;
            return;
        }
        // `cargo test -q`: a mark per test (`.` passed, `i` ignored, `F` failed: its name and
        // output follow under `failures:`), 88 to a line with the count so far, right under
        // `running N tests` (a test's own output of dots, further on, stays)
        if marks_may_follow && is_terse_progress(s) {
            self.cx.drop(1);
            self.marks_may_follow = true;
            return;
        }
        if let Some(rest) = t.strip_prefix("test ") {
            if let Some((_, status)) = rest.rsplit_once(" ... ") {
                self.cx.seen();
                if status.starts_with("FAILED") && !self.nextest {
                    // shown by its `---- name stdout ----` block; listed at the end if it has none
                    self.failed_lines += 1;
                    let name = rest.rsplit_once(" ... ").map_or(rest, |x| x.0).to_string();
                    self.cx.failure(&name);
                    if self.failed_names.len() < 2000 {
                        self.failed_names.push(name);
                    }
                    self.cx.drop(1);
                } else {
                    self.cx.drop(1);
                }
                return;
            }
        }
        if self.result_line(t) {
            return;
        }
        if t == "failures:" {
            self.cx.seen();
            self.in_name_list = true;
            self.cx.drop(1);
            return;
        }
        if self.in_name_list {
            // indented as it came (a capture nextest did not indent loses none to `t`)
            if line.starts_with("    ") && !t.trim().is_empty() && !t.trim().contains(' ') {
                self.cx.drop(1);
                return;
            }
            if !t.is_empty() {
                self.in_name_list = false;
            }
        }
        if s.starts_with("---- ") && s.ends_with(" ----") {
            self.cx.seen();
            let name = s[5..s.len() - 5]
                .trim_end_matches(" stdout")
                .trim_end_matches(" stderr");
            if self.detailed.len() < 2000 {
                self.detailed.insert(name.to_string());
            }
            self.keep(s);
            return;
        }
        if t.is_empty() {
            self.cx.drop(1);
            return;
        }
        self.keep(t);
    }

    fn finish(self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        let mut me = *self;
        for n in std::mem::take(&mut me.failed_names) {
            if !me.detailed.contains(&n) {
                me.cx.undrop(1);
                me.cx.keep(&format!("test {n} ... FAILED"));
            }
        }
        if !me.cx.has_facts() && me.failed_lines > 0 {
            me.cx.set_fact("failed test", me.failed_lines);
        }
        if me.cx.is_empty() && me.ok_results > 0 && !me.nextest {
            // an all-green run: one line instead of one per binary
            let f = |n: &str| me.cx.fact(n).unwrap_or(0);
            let filtered = if me.filtered_out > 0 {
                format!("; {} filtered out", me.filtered_out)
            } else {
                String::new()
            };
            let line = format!(
                "test result: ok. {} passed; {} failed; {} ignored{filtered} (all {} test binaries ok)",
                f("passed test"),
                f("failed test"),
                f("ignored test"),
                me.ok_results
            );
            me.cx.keep(&line);
        }
        if me.binaries.len() > 1 {
            me.per_binary_table();
        }
        if me.compile_errors > 0 {
            me.cx.set_fact("compile error", me.compile_errors);
        }
        me.cx.finish("cargo-test")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binaries_are_named_by_crate_and_target() {
        assert_eq!(
            binary_name(
                "Running unittests src/lib.rs (target/debug/deps/tokenjuice_core-1f2e3d4c5b6a7980)"
            ),
            "tokenjuice_core src/lib.rs"
        );
        assert_eq!(
            binary_name("Running tests/api.rs (target/debug/deps/api-0a1b)"),
            "tests/api.rs"
        );
        assert_eq!(binary_name("Doc-tests calc"), "calc doc-tests");
    }

    fn run(text: &str, nextest: bool) -> StructuredOutput {
        crate::reduce::structured::feed(Box::new(CargoTest::new(nextest)), text, 101)
            .expect("recognized")
    }

    #[test]
    fn libtest_failures_kept_passes_dropped_counts_summed() {
        let text = "   Compiling calc v0.1.0 (/tmp/calc)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.5s
     Running unittests src/lib.rs (target/debug/deps/calc-1)

running 3 tests
test a ... ok
test b ... FAILED
test c ... ignored

failures:

---- b stdout ----

thread 'b' (7) panicked at src/lib.rs:3:5:
assertion `left == right` failed
  left: 1
 right: 2
stack backtrace:
   0: __rustc::rust_begin_unwind
             at /rustc/abc/library/std/src/panicking.rs:689:5
   1: calc::b
             at ./src/lib.rs:3:5
   2: start_thread
             at ./nptl/pthread_create.c:442:8
note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.


failures:
    b

test result: FAILED. 1 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.01s

error: test failed, to rerun pass `--lib`
     Running tests/api.rs (target/debug/deps/api-2)

running 1 test
test d ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s
";
        let out = run(text, false);
        let t = out.lines.join("\n");
        assert!(t.contains("Running unittests src/lib.rs"), "{t}");
        assert!(t.contains("---- b stdout ----"), "{t}");
        assert!(!t.contains("test b ... FAILED"), "{t}");
        assert!(t.contains("panicked at src/lib.rs:3:5"), "{t}");
        assert!(t.contains("  left: 1\n right: 2"), "{t}");
        assert!(t.contains("1: calc::b at ./src/lib.rs:3:5"), "{t}");
        assert!(!t.contains("rust_begin_unwind"), "{t}");
        // the C runtime's thread start has a source file, but is no frame of the project's
        assert!(!t.contains("start_thread"), "{t}");
        assert!(!t.contains("test a ... ok"), "{t}");
        assert!(!t.contains("Running tests/api.rs"), "{t}");
        // each binary keeps its own counts
        assert!(
            t.ends_with(
                "per test binary (2):\n  calc src/lib.rs: 1 passed, 1 failed, 1 ignored\n  tests/api.rs: 1 passed"
            ),
            "{t}"
        );
        assert!(
            t.contains("error: test failed, to rerun pass `--lib`"),
            "{t}"
        );
        assert_eq!(
            out.facts,
            vec![
                ("passed test".into(), 2),
                ("failed test".into(), 1),
                ("ignored test".into(), 1)
            ]
        );
    }

    #[test]
    fn a_name_filter_s_left_out_tests_are_counted_and_quiet_marks_go() {
        // `cargo test -q history` in a workspace: one binary ran a test, one ran none
        let text = "
running 0 tests

test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 24 filtered out; finished in 0.00s


running 2 tests
..
test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 14 filtered out; finished in 0.00s

";
        let t = run(text, false).lines.join("\n");
        assert_eq!(
            t,
            "test result: ok. 2 passed; 0 failed; 0 ignored; 38 filtered out (all 2 test binaries ok)\n\
             per test binary (2):\n  tests: 2 passed, 14 filtered out\n  1 more binary ran no tests (24 filtered out)"
        );
        // a test's own output of dots is no mark
        let failing = "
running 1 test
F
failures:

---- t stdout ----
...
thread 't' panicked at src/lib.rs:3:5:
boom

failures:
    t

test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s
";
        let t = run(failing, false).lines.join("\n");
        assert!(t.contains("---- t stdout ----\n...\n"), "{t}");
        assert!(!t.contains("\nF\n"), "{t}");
        assert!(is_terse_progress("....i..F"));
        assert!(is_terse_progress("........ 88/200"));
        assert!(!is_terse_progress("... 3 more"));
        assert!(!is_terse_progress(""));
    }

    #[test]
    fn compile_error_kept_whole() {
        let text = "   Compiling calc v0.1.0
error[E0308]: mismatched types
 --> tests/api.rs:4:35
  |
4 | fn t() { let n: String = calc::add(1, 2); }
  |                 ------   ^^^^^^^^^^^^^^^ expected `String`, found `i64`

For more information about this error, try `rustc --explain E0308`.
error: could not compile `calc` (test \"api\") due to 1 previous error
";
        let out = run(text, false);
        let t = out.lines.join("\n");
        assert!(
            t.contains("error[E0308]: mismatched types\n --> tests/api.rs:4:35"),
            "{t}"
        );
        assert!(t.contains("expected `String`, found `i64`"), "{t}");
        assert!(t.contains("error: could not compile"), "{t}");
        assert_eq!(out.facts, vec![("compile error".into(), 1)]);
    }

    #[test]
    fn nextest_s_closing_list_of_failed_tests_is_not_said_twice() {
        let text = "\
    Starting 3 tests across 1 binary
        PASS [   0.004s] (1/3) calc tests::add
        FAIL [   0.012s] (2/3) calc tests::divide
  stderr ───
    thread 'tests::divide' panicked at src/lib.rs:20:40:
    attempt to divide by zero
        FAIL [   0.006s] (3/3) calc tests::round
  stderr ───
    thread 'tests::round' panicked at src/lib.rs:32:35:
    left: -2
────────────
     Summary [   0.020s] 3 tests run: 1 passed, 2 failed, 0 skipped
        FAIL [   0.012s] (2/3) calc tests::divide
        FAIL [   0.006s] (3/3) calc tests::round
     SIGSEGV [   0.001s] (4/3) calc tests::only_here
error: test run failed
";
        let t = run(text, true).lines.join("\n");
        assert_eq!(
            t.matches("FAIL [   0.012s] (2/3) calc tests::divide")
                .count(),
            1,
            "{t}"
        );
        assert_eq!(t.matches("calc tests::round").count(), 1, "{t}");
        // a line the list alone holds stays
        assert!(
            t.contains("SIGSEGV [   0.001s] (4/3) calc tests::only_here"),
            "{t}"
        );
        assert!(t.contains("Summary [   0.020s] 3 tests run"), "{t}");
    }

    #[test]
    fn nextest_s_capture_headers_drawn_with_a_rule_before_them() {
        // libtest's own report of the one test nextest ran in the process says nothing the
        // FAIL line does not: its stdout section goes when nothing of it is kept
        let text = "\
    Starting 2 tests across 1 binary
        FAIL [   0.015s] (1/2) app db::tests::pool
── stdout ───
running 1 test
test db::tests::pool ... FAILED

failures:

failures:
    db::tests::pool

test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 50 filtered out; finished in 0.01s

── stderr ───
thread 'db::tests::pool' panicked at src/db.rs:45:9:
  left: 5000
     Summary [   0.020s] 2 tests run: 1 passed, 1 failed, 0 skipped
";
        let t = run(text, true).lines.join("\n");
        assert_eq!(
            t,
            "FAIL [   0.015s] (1/2) app db::tests::pool\n── stderr ───\n\
             thread 'db::tests::pool' panicked at src/db.rs:45:9:\n  left: 5000\n\
             Summary [   0.020s] 2 tests run: 1 passed, 1 failed, 0 skipped"
        );
    }

    #[test]
    fn not_a_test_run() {
        let mut r: Box<dyn Structured> = Box::new(CargoTest::new(false));
        r.push("hello");
        r.push("world");
        assert!(r.finish(0).is_none());
    }
}
