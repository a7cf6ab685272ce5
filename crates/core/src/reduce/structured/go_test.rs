//! `go test`, plain and `-json`.
//!
//! Kept: `--- FAIL:` lines (subtests too) with the test's own output (`file_test.go:27:
//! got …, want …`), panics with the goroutine frames in project code, build errors
//! (`# pkg` + `file.go:6:17: …`), `FAIL pkg` lines, coverage lines. Dropped: `=== RUN`,
//! `--- PASS/SKIP`, `ok pkg`, `? pkg [no test files]`, runtime and testing frames.
//! With `-json`, each test's output is held until its result: a passing test's output
//! is dropped, a failing test's is printed as the plain format would show it.
//! Facts: failed/passed tests (top level), failed subtests, failed/passed packages.

use std::collections::HashMap;

use super::test_common::Cx;
use super::{Structured, StructuredOutput};

/// Output lines held for running tests (`-json`), at most.
const MAX_HELD: usize = 20_000;

#[derive(Default)]
pub struct GoTest {
    cx: Cx,
    /// A goroutine frame's function line, waiting for its file line.
    frame: Option<String>,
    in_goroutine: bool,
    held: HashMap<(String, String), Vec<String>>,
    held_lines: usize,
    json_lines: u64,
    failed_tests: u64,
    failed_subtests: u64,
    passed_tests: u64,
    failed_packages: u64,
    passed_packages: u64,
    /// `ok pkg 0.01s` lines, shown when nothing failed.
    ok_lines: Vec<String>,
}

fn go_root_file(f: &str) -> bool {
    f.contains("/usr/lib/go")
        || f.contains("/usr/local/go/")
        || f.contains("/go/pkg/mod/")
        || f.contains("/src/testing/")
        || f.contains("/src/runtime/")
}

impl GoTest {
    fn text(&mut self, line: &str) {
        let s = line.trim_start();
        // goroutine traces: `pkg.Func(...)` then `\t/path/file.go:25 +0x1b`
        if self.in_goroutine {
            if line.starts_with('\t') {
                match self.frame.take() {
                    Some(f) if !go_root_file(s) => {
                        self.cx.keep(&f);
                        self.cx.keep(line);
                    }
                    Some(_) => self.cx.drop(2),
                    None => self.cx.keep(line),
                }
                return;
            }
            if let Some(f) = self.frame.take() {
                self.cx.keep(&f);
            }
            if !line.is_empty()
                && !s.starts_with("FAIL")
                && !s.starts_with("ok ")
                && !s.starts_with("---")
                && !s.starts_with("===")
            {
                self.frame = Some(line.to_string());
                return;
            }
            self.in_goroutine = false;
        }
        if s.starts_with("goroutine ") && s.ends_with(':') {
            self.in_goroutine = true;
            self.cx.keep(line);
            return;
        }
        if s.starts_with("=== RUN")
            || s.starts_with("=== PAUSE")
            || s.starts_with("=== CONT")
            || s.starts_with("=== NAME")
        {
            self.cx.seen();
            self.cx.drop(1);
            return;
        }
        if let Some(rest) = s.strip_prefix("--- ") {
            self.cx.seen();
            let top = !line.starts_with(' ') && !line.starts_with('\t');
            if let Some(name) = rest.strip_prefix("FAIL:") {
                let name = name.trim();
                self.cx.failure(name.split(" (").next().unwrap_or(name));
                if top {
                    self.failed_tests += 1;
                } else {
                    self.failed_subtests += 1;
                }
                self.cx.keep(line);
            } else {
                if top && rest.starts_with("PASS:") {
                    self.passed_tests += 1;
                }
                self.cx.drop(1);
            }
            return;
        }
        let mut words = s.split_whitespace();
        let first = words.next().unwrap_or("");
        let second = words.next();
        match (first, second) {
            ("ok", Some(_)) => {
                self.cx.seen();
                self.passed_packages += 1;
                if self.ok_lines.len() < 20 {
                    self.ok_lines.push(line.to_string());
                }
                self.cx.drop(1);
                return;
            }
            ("?", Some(_)) if s.ends_with("[no test files]") => {
                self.cx.seen();
                self.cx.drop(1);
                return;
            }
            ("FAIL", Some(_)) => {
                self.cx.seen();
                self.failed_packages += 1;
                self.cx.keep(line);
                return;
            }
            ("PASS", None) => {
                self.cx.seen();
                self.cx.drop(1);
                return;
            }
            ("FAIL", None) => {
                self.cx.seen();
                self.cx.keep(line);
                return;
            }
            _ => {}
        }
        if line.trim().is_empty() {
            self.cx.drop(1);
            return;
        }
        self.cx.keep(line);
    }

    fn json(&mut self, v: &serde_json::Value) {
        let get = |k: &str| v.get(k).and_then(|x| x.as_str()).unwrap_or("");
        let action = get("Action");
        let key = (get("Package").to_string(), get("Test").to_string());
        self.cx.seen();
        match action {
            "output" => {
                let out = get("Output").trim_end_matches('\n').to_string();
                if key.1.is_empty() {
                    self.text(&out);
                } else if self.held_lines < MAX_HELD {
                    self.held_lines += 1;
                    self.held.entry(key).or_default().push(out);
                } else {
                    self.cx.drop(1);
                }
            }
            "pass" | "skip" => {
                if let Some(lines) = self.held.remove(&key) {
                    self.held_lines -= lines.len();
                    for l in &lines {
                        // still count what the plain format would show
                        if l.starts_with("--- PASS") {
                            self.passed_tests += 1;
                        }
                    }
                    self.cx.drop(lines.len() as u64);
                }
            }
            "fail" => {
                if let Some(lines) = self.held.remove(&key) {
                    self.held_lines -= lines.len();
                    for l in lines {
                        self.text(&l);
                    }
                }
            }
            _ => {}
        }
    }
}

impl Structured for GoTest {
    fn push(&mut self, line: &str) {
        if line.starts_with('{') && line.contains("\"Action\"") {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(line) {
                self.json_lines += 1;
                self.json(&v);
                return;
            }
        }
        self.text(line);
    }

    fn finish(self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        let mut me = *self;
        if let Some(f) = me.frame.take() {
            me.cx.keep(&f);
        }
        // tests still running when the output ended (a timeout, a crash)
        let mut left: Vec<_> = me.held.drain().collect();
        left.sort();
        for (_, lines) in left {
            for l in lines {
                me.text(&l);
            }
        }
        if me.cx.is_empty() && !me.ok_lines.is_empty() {
            // an all-green run: the packages that passed
            for l in std::mem::take(&mut me.ok_lines) {
                me.cx.undrop(1);
                me.cx.keep(&l);
            }
            if me.passed_packages > 20 {
                me.cx.keep(&format!(
                    "... and {} more packages ok",
                    me.passed_packages - 20
                ));
            }
        }
        for (name, v) in [
            ("failed test", me.failed_tests),
            ("failed subtest", me.failed_subtests),
            ("passed test", me.passed_tests),
            ("failed package", me.failed_packages),
            ("passed package", me.passed_packages),
        ] {
            if v > 0 || name == "failed package" && me.passed_packages > 0 {
                me.cx.set_fact(name, v);
            }
        }
        me.cx.finish("go-test")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Option<StructuredOutput> {
        crate::reduce::structured::feed(Box::<GoTest>::default(), text, 1)
    }

    #[test]
    fn plain_failures_and_panics() {
        let text = "--- FAIL: TestTotal (0.00s)
    --- FAIL: TestTotal/discount (0.00s)
        cart_test.go:27: Total = 13, want 13.95
panic: runtime error: index out of range [2] with length 2 [recovered]

goroutine 25 [running]:
testing.tRunner.func1()
\t/usr/lib/go-1.19/src/testing/testing.go:1399 +0x39f
example.com/shop/cart.Nth(...)
\t/tmp/go-shop/cart/cart.go:25
FAIL\texample.com/shop/cart\t0.005s
ok  \texample.com/shop/price\t0.004s
FAIL
";
        let out = run(text).unwrap();
        let t = out.lines.join("\n");
        assert!(t.contains("cart_test.go:27: Total = 13, want 13.95"), "{t}");
        assert!(
            t.contains("example.com/shop/cart.Nth(...)\n\t/tmp/go-shop/cart/cart.go:25"),
            "{t}"
        );
        assert!(!t.contains("testing.go"), "{t}");
        assert!(!t.contains("shop/price"), "{t}");
        assert!(out.facts.contains(&("failed package".into(), 1)));
        assert!(out.facts.contains(&("failed test".into(), 1)));
    }

    #[test]
    fn json_passes_dropped_failures_shown() {
        let text = r#"{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"--- PASS: TestA (0.00s)\n"}
{"Action":"pass","Package":"p","Test":"TestA","Elapsed":0}
{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:9: got 1, want 2\n"}
{"Action":"output","Package":"p","Test":"TestB","Output":"--- FAIL: TestB (0.00s)\n"}
{"Action":"fail","Package":"p","Test":"TestB","Elapsed":0}
{"Action":"output","Package":"p","Output":"FAIL\tp\t0.01s\n"}
{"Action":"fail","Package":"p","Elapsed":0.01}
"#;
        let out = run(text).unwrap();
        let t = out.lines.join("\n");
        assert!(
            t.contains("b_test.go:9: got 1, want 2\n--- FAIL: TestB"),
            "{t}"
        );
        assert!(!t.contains("TestA"), "{t}");
        assert!(out.facts.contains(&("passed test".into(), 1)));
    }

    #[test]
    fn not_go_test() {
        assert!(run("hello\nworld\n").is_none());
    }
}
