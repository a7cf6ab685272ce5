//! Runners whose reports are a list of numbered or marked failures and a count line:
//! RSpec, PHPUnit, `dotnet test`, `swift test` (XCTest and Swift Testing), Maven
//! Surefire (`mvn test`) and Gradle (`gradle test`). One driver, one small dialect
//! each: what is noise (banners, progress, passing tests, build steps, framework
//! frames), and how the summary line reads. Everything else is kept, so failure
//! details (names, messages, expected/actual, file:line, stack frames in project code)
//! survive whatever their layout. Surefire's line per test class stays for a class that
//! failed or skipped tests (its total only counts them); a class that passed whole goes.

use super::test_common::{count_pairs, is_foreign_frame, Cx};
use super::{Structured, StructuredOutput};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Rspec,
    Phpunit,
    Dotnet,
    Swift,
    Maven,
    Gradle,
    Minitest,
    Ctest,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Act {
    Keep,
    Drop,
    /// The runner's own line, dropped.
    SeenDrop,
    /// The runner's own line, kept.
    SeenKeep,
}

pub struct Xunit {
    kind: Kind,
    cx: Cx,
    /// rspec: inside the `Pending:` section (dropped; the count stays).
    in_pending: bool,
    /// rspec: a section header has been seen (doc-format listing is over).
    sections: bool,
    /// gradle: inside `* Try:` (advice, dropped).
    in_try: bool,
    failed_marks: u64,
    passed_marks: u64,
    skipped_marks: u64,
    errors: u64,
    /// swift: the last `Executed N tests` line (the grand total).
    last_executed: Option<String>,
}

impl Xunit {
    pub fn new(kind: Kind) -> Self {
        Xunit {
            kind,
            cx: Cx::default(),
            in_pending: false,
            sections: false,
            in_try: false,
            failed_marks: 0,
            passed_marks: 0,
            skipped_marks: 0,
            errors: 0,
            last_executed: None,
        }
    }

    fn facts_from(&mut self, body: &str, map: &[(&str, &str)]) {
        for (w, n) in count_pairs(body) {
            if let Some((_, name)) = map.iter().find(|(k, _)| *k == w) {
                self.cx.set_fact(name, n);
            }
        }
    }

    fn rspec(&mut self, line: &str, s: &str) -> Act {
        if !s.is_empty() && s.chars().all(|c| ".FE*".contains(c)) && !self.sections {
            return Act::SeenDrop;
        }
        match s {
            "Failures:" | "Failed examples:" => {
                self.sections = true;
                self.in_pending = false;
                return Act::SeenKeep;
            }
            _ if s.starts_with("Pending:") => {
                self.sections = true;
                self.in_pending = true;
                return Act::SeenDrop;
            }
            _ => {}
        }
        if s.starts_with("Finished in ") {
            self.in_pending = false;
            self.sections = true;
            return Act::SeenDrop;
        }
        if let Some(i) = s.find(" example") {
            if s[..i].bytes().all(|b| b.is_ascii_digit()) && !s[..i].is_empty() {
                self.in_pending = false;
                self.facts_from(
                    s,
                    &[
                        ("examples", "example"),
                        ("example", "example"),
                        ("failures", "failed example"),
                        ("failure", "failed example"),
                        ("pending", "pending example"),
                        ("errors", "error"),
                    ],
                );
                return Act::SeenKeep;
            }
        }
        if self.in_pending {
            return Act::Drop;
        }
        if let Some(f) = s.strip_prefix("# ") {
            return if is_foreign_frame(f) {
                Act::Drop
            } else {
                Act::Keep
            };
        }
        if !self.sections {
            // documentation-format listing: passing examples and group names go
            if s.contains("(FAILED") {
                self.failed_marks += 1;
                return Act::SeenKeep;
            }
            if s.contains("(PENDING") {
                return Act::SeenDrop;
            }
            let plain = line.starts_with(' ') || s.chars().next().is_some_and(char::is_uppercase);
            if plain
                && !s.contains("rror")
                && !s.contains("ailure")
                && !s.contains("warn")
                && !s.is_empty()
            {
                return Act::Drop;
            }
        }
        if s.starts_with("rspec ./") {
            return Act::SeenKeep;
        }
        Act::Keep
    }

    fn phpunit(&mut self, s: &str) -> Act {
        if s.starts_with("PHPUnit ") && s.contains(" by Sebastian Bergmann") {
            return Act::SeenDrop;
        }
        if s.starts_with("Runtime:")
            || s.starts_with("Configuration:")
            || s.starts_with("Time: ")
            || s == "--"
        {
            return Act::Drop;
        }
        // progress `...EFFS     7 / 7 (100%)`
        if s.ends_with("%)") && s.contains(" / ") {
            let marks = s.split_whitespace().next().unwrap_or("");
            if marks.chars().all(|c| ".EFSRWIDN".contains(c)) {
                return Act::SeenDrop;
            }
        }
        if let Some(rest) = s.strip_prefix("Tests: ") {
            let _ = rest;
            self.facts_from(
                s,
                &[
                    ("tests", "test"),
                    ("failures", "failed test"),
                    ("errors", "error"),
                    ("skipped", "skipped test"),
                    ("incomplete", "incomplete test"),
                    ("risky", "risky test"),
                    ("warnings", "warning"),
                ],
            );
            return Act::SeenKeep;
        }
        if let Some(rest) = s.strip_prefix("OK (") {
            self.facts_from(
                rest.trim_end_matches(')'),
                &[("tests", "test"), ("test", "test")],
            );
            return Act::SeenKeep;
        }
        if s.starts_with("There was ") || s.starts_with("There were ") {
            return Act::SeenKeep;
        }
        if s.contains("/vendor/phpunit/") || s.starts_with("/usr/share/php/PHPUnit/") {
            return Act::Drop;
        }
        Act::Keep
    }

    fn dotnet(&mut self, s: &str) -> Act {
        const NOISE: &[&str] = &[
            "Determining projects to restore",
            "All projects are up-to-date for restore",
            "Restored ",
            "Test run for ",
            "Microsoft (R) Test Execution",
            "Copyright (c) Microsoft",
            "Starting test execution",
            "A total of ",
            "Build succeeded",
            "Time Elapsed ",
            "Results File:",
            "MSBuild version",
        ];
        if NOISE.iter().any(|p| s.starts_with(p)) {
            return Act::SeenDrop;
        }
        if s.contains(" -> ") && (s.ends_with(".dll") || s.ends_with(".exe")) {
            return Act::Drop;
        }
        if s.starts_with("Passed ") && s.ends_with(']') {
            return Act::SeenDrop;
        }
        if s.starts_with("Skipped ") && s.ends_with(']') {
            return Act::SeenDrop;
        }
        if s.starts_with("Failed ") && s.ends_with(']') {
            self.failed_marks += 1;
            return Act::SeenKeep;
        }
        if s.starts_with("Failed!") || s.starts_with("Passed!") {
            let body = s.split_once('-').map_or(s, |x| x.1);
            let body = body.rsplit_once(" - ").map_or(body, |x| x.0);
            for (w, n) in count_pairs(body) {
                let name = match w.as_str() {
                    "failed" => "failed test",
                    "passed" => "passed test",
                    "skipped" => "skipped test",
                    _ => continue,
                };
                let prev = self.cx.fact(name).unwrap_or(0);
                self.cx.set_fact(name, prev + n);
            }
            return Act::SeenKeep;
        }
        if s.starts_with("at ") {
            return if is_foreign_frame(s) {
                Act::Drop
            } else {
                Act::Keep
            };
        }
        if s.contains(": error ") {
            self.errors += 1;
        }
        Act::Keep
    }

    fn swift(&mut self, s: &str) -> Act {
        // build progress `[3/6] Compiling …`, `Building for debugging...`
        if s.starts_with('[')
            && s.split_once(']').is_some_and(|(n, _)| {
                n[1..].contains('/') && n[1..].replace('/', "").bytes().all(|b| b.is_ascii_digit())
            })
        {
            return Act::Drop;
        }
        if s.starts_with("Building for ")
            || s.starts_with("Build complete!")
            || s.starts_with("Compiling ")
            || s.starts_with("Fetching ")
            || s.starts_with("Computing version")
        {
            return Act::Drop;
        }
        if s.starts_with("Test Suite '") {
            return if s.contains("' failed at ") {
                Act::SeenKeep
            } else {
                Act::SeenDrop
            };
        }
        if s.starts_with("Test Case '") {
            if s.contains("' failed (") {
                self.failed_marks += 1;
                return Act::SeenKeep;
            }
            return Act::SeenDrop;
        }
        if s.starts_with("↳ Testing Library Version") {
            return Act::Drop;
        }
        if let Some(rest) = s.strip_prefix("Executed ") {
            // one per suite level, the same numbers: only the last (All tests) is shown
            self.last_executed = Some(s.to_string());
            // the last one is the grand total (`All tests`)
            if let Some((tests, rest)) = rest.split_once(" test") {
                if let Ok(n) = tests.parse::<u64>() {
                    self.cx.set_fact("test", n);
                }
                let fails = rest
                    .split_once("with ")
                    .and_then(|(_, r)| r.split_whitespace().next())
                    .and_then(|n| n.parse::<u64>().ok());
                if let Some(f) = fails {
                    self.cx.set_fact("failed test", f);
                }
            }
            return Act::SeenDrop;
        }
        // Swift Testing: `✔ Test add() passed after 0.001 seconds.`, `◇ Test x() started.`
        if (s.contains("Test ") || s.contains("Suite "))
            && (s.ends_with(" started.") || s.contains(" passed after "))
        {
            return Act::SeenDrop;
        }
        if s.contains("Test run with ")
            || s.contains(" recorded an issue")
            || (s.contains("Test ") && s.contains(" failed after "))
        {
            if s.contains(" recorded an issue") {
                self.failed_marks += 1;
            }
            return Act::SeenKeep;
        }
        if s.contains(": error: ") {
            self.errors += 1;
        }
        Act::Keep
    }

    fn maven(&mut self, s: &str) -> Act {
        let (level, msg) = if let Some(m) = s.strip_prefix("[INFO]") {
            ("INFO", m.trim())
        } else if let Some(m) = s.strip_prefix("[ERROR]") {
            ("ERROR", m.trim())
        } else if let Some(m) = s.strip_prefix("[WARNING]") {
            ("WARNING", m.trim())
        } else {
            ("", s)
        };
        if s.starts_with("Downloading from ")
            || s.starts_with("Downloaded from ")
            || s.starts_with("Progress (")
        {
            return Act::Drop;
        }
        if msg.starts_with("Tests run:") {
            let in_class = msg.contains(" -- in ") || msg.contains("Time elapsed");
            if !in_class {
                // the Results total (one per module; summed)
                for (w, n) in count_pairs(&msg.replacen("Tests run:", "Tests:", 1)) {
                    let name = match w.as_str() {
                        "tests" => "test",
                        "failures" => "failed test",
                        "errors" => "error",
                        "skipped" => "skipped test",
                        _ => continue,
                    };
                    let prev = self.cx.fact(name).unwrap_or(0);
                    self.cx.set_fact(name, prev + n);
                }
                return Act::SeenKeep;
            }
            // a class that skipped tests says which (the total only counts them)
            let skipped = count_pairs(msg)
                .iter()
                .any(|(w, n)| w == "skipped" && *n > 0);
            return if msg.contains("FAILURE") || msg.contains("ERROR") || skipped {
                Act::SeenKeep
            } else {
                Act::SeenDrop
            };
        }
        if level == "INFO" {
            if msg.is_empty()
                || msg.starts_with("---")
                || msg.starts_with("Running ")
                || msg.starts_with("T E S T S")
                || msg.starts_with("Scanning for projects")
                || msg.starts_with("Building ")
                || msg.starts_with("Compiling ")
                || msg.starts_with("Nothing to compile")
                || msg.starts_with("Copying ")
                || msg.starts_with("Using ")
                || msg.starts_with("skip non existing")
                || msg.starts_with("Changes detected")
                || msg.starts_with("Total time")
                || msg.starts_with("Finished at")
                || msg.starts_with("Results:")
                || msg.starts_with("Recompiling")
                || msg.starts_with("from pom.xml")
                || msg.starts_with("Surefire report directory")
                || (msg.starts_with('[') && msg.ends_with(']'))
            {
                if msg.starts_with("T E S T S") || msg.starts_with("Running ") {
                    return Act::SeenDrop;
                }
                return Act::Drop;
            }
            return Act::Keep;
        }
        if level == "ERROR" {
            if msg.is_empty()
                || msg.starts_with("-> [Help")
                || msg.starts_with("To see the full stack trace")
                || msg.starts_with("Re-run Maven using")
                || msg.starts_with("For more information about the errors")
                || msg.starts_with("[Help ")
                || msg.starts_with("Please refer to ")
            {
                return Act::Drop;
            }
            if msg.contains("<<< FAILURE!") || msg.contains("<<< ERROR!") {
                self.failed_marks += 1;
                return Act::SeenKeep;
            }
            return Act::Keep;
        }
        if s.starts_with("at ") || s.starts_with("\tat ") {
            return if is_foreign_frame(s) {
                Act::Drop
            } else {
                Act::Keep
            };
        }
        Act::Keep
    }

    fn gradle(&mut self, s: &str) -> Act {
        if s.starts_with("* Try:") {
            self.in_try = true;
            return Act::Drop;
        }
        if self.in_try {
            if s.starts_with("> ") || s.is_empty() {
                return Act::Drop;
            }
            self.in_try = false;
        }
        if let Some(task) = s.strip_prefix("> Task ") {
            return if task.contains("FAILED") {
                Act::SeenKeep
            } else {
                Act::SeenDrop
            };
        }
        const NOISE: &[&str] = &[
            "Starting a Gradle Daemon",
            "Deprecated Gradle features",
            "You can use '--warning-mode all'",
            "For more on this, please refer to",
            "* Get more help at",
            "> Configure project",
            "Reusing configuration cache",
            "Configuration cache entry",
        ];
        if NOISE.iter().any(|p| s.starts_with(p)) {
            return Act::Drop;
        }
        if s.contains(" actionable task") {
            return Act::Drop;
        }
        if s.contains(" > ") && (s.ends_with(" PASSED") || s.ends_with(" SKIPPED")) {
            if s.ends_with(" PASSED") {
                self.passed_marks += 1;
            } else {
                self.skipped_marks += 1;
            }
            return Act::SeenDrop;
        }
        if s.contains(" > ") && s.ends_with(" FAILED") {
            self.failed_marks += 1;
            return Act::SeenKeep;
        }
        // `3 tests completed, 1 failed, 1 skipped`
        if s.contains(" tests completed") || s.contains(" test completed") {
            self.facts_from(
                s,
                &[
                    ("tests", "test"),
                    ("test", "test"),
                    ("failed", "failed test"),
                    ("skipped", "skipped test"),
                ],
            );
            return Act::SeenKeep;
        }
        if s.starts_with("at ") {
            return if is_foreign_frame(s) {
                Act::Drop
            } else {
                Act::Keep
            };
        }
        Act::Keep
    }
}

impl Xunit {
    fn minitest(&mut self, s: &str) -> Act {
        if s.starts_with("Run options:") || s == "# Running:" || s.starts_with("Finished in ") {
            return Act::SeenDrop;
        }
        if !s.is_empty() && s.chars().all(|c| ".FESN".contains(c)) {
            return Act::SeenDrop;
        }
        if s.starts_with("You have skipped tests.") {
            return Act::Drop;
        }
        // `6 runs, 4 assertions, 1 failures, 1 errors, 1 skips`
        if s.contains(" runs, ") && s.contains(" assertions") {
            self.facts_from(
                s,
                &[
                    ("runs", "test"),
                    ("failures", "failed test"),
                    ("errors", "error"),
                    ("skips", "skipped test"),
                ],
            );
            return Act::SeenKeep;
        }
        if s.ends_with(") Failure:") || s.ends_with(") Error:") {
            return Act::SeenKeep;
        }
        if s.starts_with('/') && is_foreign_frame(s) {
            return Act::Drop;
        }
        // rake's own trailer after a failed run
        if s == "(See full trace by running task with --trace)" {
            return Act::Drop;
        }
        Act::Keep
    }

    fn ctest(&mut self, s: &str) -> Act {
        if s.starts_with("Test project ") {
            return Act::SeenDrop;
        }
        if s.starts_with("Start ") && s.contains(": ") {
            return Act::SeenDrop;
        }
        // `1/4 Test #1: add ........   Passed    0.00 sec`
        if s.contains(" Test #") || s.starts_with("Test #") {
            if s.contains("   Passed ") || s.contains(" Not Run") && s.contains("Disabled") {
                return Act::SeenDrop;
            }
            self.failed_marks += 1;
            return Act::SeenKeep;
        }
        // `75% tests passed, 1 tests failed out of 4`
        if s.contains("% tests passed") {
            if let Some((_, rest)) = s.split_once(", ") {
                let mut w = rest.split_whitespace();
                if let Some(n) = w.next().and_then(|n| n.parse::<u64>().ok()) {
                    self.cx.set_fact("failed test", n);
                }
                if let Some(total) = rest.rsplit(' ').next().and_then(|n| n.parse::<u64>().ok()) {
                    self.cx.set_fact("test", total);
                }
            }
            return Act::SeenKeep;
        }
        if s.starts_with("Total Test time") {
            return Act::Drop;
        }
        Act::Keep
    }

    /// A line naming one failing test (remembered for the closing list).
    fn is_failure_line(&self, s: &str) -> bool {
        match self.kind {
            Kind::Rspec => s.starts_with("rspec ./") || s.contains("(FAILED"),
            Kind::Phpunit => false,
            Kind::Dotnet => s.starts_with("Failed ") && s.ends_with(']'),
            Kind::Swift => s.starts_with("Test Case '") || s.contains(" recorded an issue"),
            Kind::Maven => s.contains("<<< FAILURE!") || s.contains("<<< ERROR!"),
            Kind::Gradle => s.ends_with(" FAILED") && s.contains(" > "),
            Kind::Minitest => false,
            Kind::Ctest => s.contains("***") || s.contains(" (Failed)") || s.contains(" (Timeout)"),
        }
    }
}

impl Structured for Xunit {
    fn push(&mut self, line: &str) {
        let s = line.trim();
        let act = match self.kind {
            Kind::Rspec => self.rspec(line, s),
            Kind::Phpunit => self.phpunit(s),
            Kind::Dotnet => self.dotnet(s),
            Kind::Swift => self.swift(s),
            Kind::Maven => self.maven(s),
            Kind::Gradle => self.gradle(s),
            Kind::Minitest => self.minitest(s),
            Kind::Ctest => self.ctest(s),
        };
        if matches!(act, Act::SeenDrop | Act::SeenKeep) {
            self.cx.seen();
        }
        if act == Act::SeenKeep && self.is_failure_line(s) {
            self.cx.failure(s);
        }
        match act {
            Act::Keep | Act::SeenKeep => self.cx.keep(line),
            Act::Drop | Act::SeenDrop => self.cx.drop(1),
        }
    }

    fn finish(self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        let mut me = *self;
        if let Some(l) = me.last_executed.take() {
            me.cx.undrop(1);
            me.cx.keep(&l);
        }
        if me.cx.fact("failed test").is_none()
            && me.cx.fact("failed example").is_none()
            && me.failed_marks > 0
        {
            me.cx.set_fact("failed test", me.failed_marks);
        }
        if me.passed_marks > 0 && me.cx.fact("test").is_none() {
            me.cx.set_fact("passed test", me.passed_marks);
        }
        if me.skipped_marks > 0 && me.cx.fact("skipped test").is_none() {
            me.cx.set_fact("skipped test", me.skipped_marks);
        }
        if me.errors > 0 && me.cx.fact("error").is_none() {
            me.cx.set_fact("error", me.errors);
        }
        let name = match me.kind {
            Kind::Rspec => "rspec",
            Kind::Phpunit => "phpunit",
            Kind::Dotnet => "dotnet-test",
            Kind::Swift => "swift-test",
            Kind::Maven => "maven-test",
            Kind::Gradle => "gradle-test",
            Kind::Minitest => "minitest",
            Kind::Ctest => "ctest",
        };
        // the lines kept because they are not the runner's own (a Spring application's
        // log: its connection pools shut down one by one) may come again block by block
        // (`Cx::finish` folds them), and stamp one date on every line
        let mut out = me.cx.finish(name)?;
        if let Some(lines) = crate::reduce::dates::factor_date(&out.lines) {
            out.lines = lines;
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(kind: Kind, text: &str) -> Option<StructuredOutput> {
        crate::reduce::structured::feed(Box::new(Xunit::new(kind)), text, 1)
    }

    #[test]
    fn rspec_failures_kept() {
        let text = "..F

Failures:

  1) Cart#total applies a discount
     Failure/Error: expect(cart.total).to eq(13.95)

       expected: 13.95
            got: 14
     # ./spec/cart_spec.rb:28:in `block (3 levels)'
     # /usr/lib/ruby/gems/3.1.0/gems/rspec-core/lib/x.rb:1

Finished in 0.05 seconds
3 examples, 1 failure
";
        let out = run(Kind::Rspec, text).unwrap();
        let t = out.lines.join("\n");
        assert!(t.contains("expected: 13.95\n            got: 14"), "{t}");
        assert!(t.contains("./spec/cart_spec.rb:28"), "{t}");
        assert!(
            !t.contains("rspec-core") && !t.contains("..F") && !t.contains("Finished"),
            "{t}"
        );
        assert_eq!(
            out.facts,
            vec![("example".into(), 3), ("failed example".into(), 1)]
        );
    }

    #[test]
    fn gradle_counts_the_passing_and_skipped_tests_it_drops() {
        let text = "> Task :test

ParserTest > parses() PASSED

ParserTest > rejects() PASSED

LegacyTest > old() SKIPPED

ParserTest > reports() FAILED
    java.lang.AssertionError at ParserTest.kt:12

BUILD FAILED in 3s
";
        let out = run(Kind::Gradle, text).unwrap();
        let t = out.lines.join("\n");
        assert!(t.contains("ParserTest > reports() FAILED"), "{t}");
        assert!(!t.contains("PASSED") && !t.contains("SKIPPED"), "{t}");
        let fact = |n: &str| out.facts.iter().find(|(k, _)| k == n).map(|f| f.1);
        assert_eq!(fact("passed test"), Some(2));
        assert_eq!(fact("skipped test"), Some(1));
        assert_eq!(fact("failed test"), Some(1));
    }

    #[test]
    fn an_application_log_block_that_comes_again_is_shown_once() {
        let mut text = String::from(
            "> Task :test\n\n\
             2026-02-19T19:03:58.114+01:00  INFO Starting RepoTest using Java 21\n\
             2026-02-19T19:03:59.802+01:00  INFO HikariPool-1 - Starting...\n\
             2026-02-19T19:04:00.032+01:00  INFO Started RepoTest in 2.1 seconds\n\
             RepoTest > saves() PASSED\n\n",
        );
        for pool in 1..=4 {
            let at = format!("2026-02-19T19:04:{:02}", pool * 5);
            text.push_str(&format!(
                "{at}.001+01:00  WARN HikariPool-{pool} - Failed to validate connection c@{:x}\n\
                 {at}.002+01:00 ERROR HikariPool-{pool} - Connection is not available after {}ms\n\
                 {at}.150+01:00  INFO HikariPool-{pool} - Shutdown completed.\n",
                0x5f00_0000u32 + pool * 977,
                5000 + pool
            ));
        }
        text.push_str("\nBUILD SUCCESSFUL in 9s\n");
        let out = run(Kind::Gradle, &text).unwrap();
        let t = out.lines.join("\n");
        assert_eq!(t.matches("Shutdown completed.").count(), 1, "{t}");
        assert!(
            t.contains(
                "... the 3 lines above again 3 times; besides the times, what differs: HikariPool-2"
            ),
            "{t}"
        );
        // the date the log stamps on every line is said once; the times stay
        assert!(
            t.starts_with("[times below are on 2026-02-19 UTC+01:00]\n"),
            "{t}"
        );
        assert!(
            t.contains("\n19:04:05.001  WARN HikariPool-1 - Failed to validate connection"),
            "{t}"
        );
        assert!(
            t.contains("5004ms") && t.contains("BUILD SUCCESSFUL in 9s"),
            "{t}"
        );
    }

    #[test]
    fn swift_xctest() {
        let text = "[3/6] Compiling TokenTests ParserTests.swift
Test Case '-[T.P testA]' started.
Test Case '-[T.P testA]' passed (0.001 seconds).
/repo/P.swift:12: error: P.testB : XCTAssertEqual failed: (\"41\") is not equal to (\"42\")
Test Case '-[T.P testB]' failed (0.014 seconds).
\t Executed 2 tests, with 1 failure (0 unexpected) in 0.014 (0.015) seconds
";
        let out = run(Kind::Swift, text).unwrap();
        let t = out.lines.join("\n");
        assert!(t.contains("XCTAssertEqual failed"), "{t}");
        assert!(!t.contains("testA") && !t.contains("Compiling"), "{t}");
        assert_eq!(
            out.facts,
            vec![
                ("test".into(), 2),
                ("failed test".into(), 1),
                ("error".into(), 1)
            ]
        );
    }

    #[test]
    fn not_a_report() {
        assert!(run(Kind::Maven, "hello\nworld\n").is_none());
        assert!(run(Kind::Phpunit, "hello\n").is_none());
    }
}
