//! GitHub CLI outputs.
//!
//! - `gh-json`: `gh … --json` records (an array, or one object per line from `--jq`) become
//!   one line each: `#123 title [OPEN] {label, label} (author, 2 comments, updated 2026-04-16) url`
//!   plus the other fields as `key=value`; failing status checks are listed first.
//! - `gh-run-log`: `gh run view --log` / `--log-failed`: `job<TAB>step<TAB>time line`. Each step
//!   with an error keeps its error lines with a little context and the
//!   `Process completed with exit code N` line; timestamps and `##[group]` markers go; steps
//!   without errors are named on one line.
//! - `gh-pr-checks`: `gh pr checks`: failing and pending checks in full, passing and skipped
//!   ones by name; the tallies line kept.

use serde_json::Value;

use super::{Structured, StructuredOutput, WholeText};
use crate::reduce::signal::{self, Level};
use crate::reduce::text::clip_line;

/// Most input kept for whole-output JSON parsing.
const MAX_JSON_BYTES: usize = 8 << 20;
/// Most records rendered.
const MAX_RECORDS: usize = 300;

// ---------------------------------------------------------------- gh-json

#[derive(Default)]
pub struct GhJson {
    text: WholeText<MAX_JSON_BYTES>,
}

impl Structured for GhJson {
    fn push(&mut self, line: &str) {
        self.text.push(line);
    }

    fn finish(self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        let t = self.text.get()?;
        if !(t.starts_with('{') || t.starts_with('[')) {
            return None;
        }
        let records: Vec<Value> = match serde_json::from_str::<Value>(t) {
            Ok(Value::Array(a)) => a,
            Ok(v @ Value::Object(_)) => vec![v],
            Ok(_) => return None,
            Err(_) => {
                // JSON lines (`--jq '.[] | {…}'`)
                let mut v = Vec::new();
                for l in t.lines().filter(|l| !l.trim().is_empty()) {
                    v.push(serde_json::from_str::<Value>(l).ok()?);
                }
                v
            }
        };
        if records.is_empty() || !records.iter().all(Value::is_object) {
            return None;
        }
        let mut lines = Vec::new();
        let n = records.len();
        let record_like = |r: &Value| {
            ["number", "title", "name", "login", "databaseId"]
                .iter()
                .any(|k| r.get(k).is_some())
        };
        if n == 1 && !record_like(&records[0]) {
            // one API object (`gh api …`): a line per top-level key
            if let Some(o) = records[0].as_object() {
                let mut omitted = 0;
                for (k, v) in o {
                    match v {
                        Value::String(t) if t.contains('\n') => {
                            let mut block = Vec::new();
                            push_text_block(k, t, &mut block, &mut omitted);
                            lines.extend(block.into_iter().map(|l| l[2..].to_string()));
                        }
                        _ => {
                            let s = scalar(v)
                                .unwrap_or_else(|| serde_json::to_string(v).unwrap_or_default());
                            lines.push(format!("{k}: {}", clip_line(&s, 400)));
                        }
                    }
                }
                return Some(StructuredOutput {
                    name: "gh-json",
                    lines,
                    facts: Vec::new(),
                    omitted,
                    filtered: 0,
                    facts_line: false,
                    json_cut: false,
                });
            }
            return Some(StructuredOutput {
                name: "gh-json",
                lines,
                facts: Vec::new(),
                omitted: 0,
                filtered: 0,
                facts_line: false,
                json_cut: false,
            });
        }
        let mut omitted = 0;
        for r in records.iter().take(MAX_RECORDS) {
            let (head, extra) = render_record(r, &mut omitted);
            lines.push(clip_line(&head, 1500).into_owned());
            lines.extend(extra);
        }
        if n > MAX_RECORDS {
            omitted += (n - MAX_RECORDS) as u64;
            lines.push(format!("... {omitted} more records omitted ..."));
        }
        Some(StructuredOutput {
            name: "gh-json",
            lines,
            facts: vec![("record".into(), n as u64)],
            omitted,
            filtered: 0,
            facts_line: false,
            json_cut: false,
        })
    }
}

/// Most lines of one multi-line text field (a PR body, a comment) shown.
const MAX_TEXT_LINES: usize = 60;

/// `key:` and the text's lines indented below it, cut after [`MAX_TEXT_LINES`] with a count.
fn push_text_block(label: &str, text: &str, out: &mut Vec<String>, omitted: &mut u64) {
    out.push(format!("  {label}:"));
    let lines: Vec<&str> = text.lines().collect();
    for l in lines.iter().take(MAX_TEXT_LINES) {
        let l = l.trim_end();
        out.push(if l.is_empty() {
            String::new()
        } else {
            format!("    {}", clip_line(l, 600))
        });
    }
    if lines.len() > MAX_TEXT_LINES {
        let n = lines.len() - MAX_TEXT_LINES;
        *omitted += n as u64;
        out.push(format!("    ... {n} more lines omitted ..."));
    }
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null => Some("null".into()),
        _ => None,
    }
}

/// A name for a nested value: `{login}`, `{name}`, a scalar, or compact JSON.
fn short(v: &Value) -> String {
    if let Some(s) = scalar(v) {
        return s;
    }
    if let Value::Object(o) = v {
        for k in ["login", "name", "title", "context", "number"] {
            if let Some(s) = o.get(k).and_then(scalar) {
                return s;
            }
        }
    }
    serde_json::to_string(v).unwrap_or_default()
}

fn date(s: &str) -> &str {
    if s.len() >= 10 && s.as_bytes()[4] == b'-' && s.as_bytes()[7] == b'-' {
        &s[..10]
    } else {
        s
    }
}

fn check_state(c: &Value) -> String {
    let g = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or("");
    let concl = g("conclusion");
    if !concl.is_empty() {
        return concl.to_ascii_lowercase();
    }
    let st = g("state");
    if !st.is_empty() {
        return st.to_ascii_lowercase();
    }
    g("status").to_ascii_lowercase()
}

/// The record's one-line summary, and the multi-line texts (body, comments) below it.
fn render_record(r: &Value, omitted: &mut u64) -> (String, Vec<String>) {
    let o = r.as_object().expect("checked objects");
    let mut extra: Vec<String> = Vec::new();
    let mut comments: Vec<String> = Vec::new();
    let mut parts: Vec<String> = Vec::new();
    let mut used: Vec<&str> = Vec::new();
    let take = |k: &'static str, used: &mut Vec<&str>| -> Option<&Value> {
        let v = o.get(k)?;
        used.push(k);
        Some(v)
    };
    if let Some(n) = take("number", &mut used).and_then(scalar) {
        parts.push(format!("#{n}"));
    }
    for k in ["title", "name", "displayTitle", "workflowName"] {
        if let Some(v) = take(k, &mut used).and_then(scalar) {
            parts.push(v);
        }
    }
    for k in ["state", "status", "conclusion"] {
        if let Some(v) = take(k, &mut used).and_then(scalar) {
            if !v.is_empty() {
                parts.push(format!("[{v}]"));
            }
        }
    }
    if let Some(Value::Array(ls)) = take("labels", &mut used) {
        if !ls.is_empty() {
            parts.push(format!(
                "{{{}}}",
                ls.iter().map(short).collect::<Vec<_>>().join(", ")
            ));
        }
    }
    let mut paren: Vec<String> = Vec::new();
    if let Some(a) = take("author", &mut used) {
        paren.push(short(a));
    }
    if let Some(c) = take("comments", &mut used) {
        let n = match c {
            Value::Array(a) => a.len() as u64,
            v => v.as_u64().unwrap_or(0),
        };
        paren.push(format!("{n} comment{}", if n == 1 { "" } else { "s" }));
        if let Value::Array(a) = c {
            for cm in a {
                if let Some(body) = cm.get("body").and_then(Value::as_str) {
                    let who = cm.get("author").map(short).unwrap_or_default();
                    let when = cm
                        .get("createdAt")
                        .and_then(Value::as_str)
                        .map(date)
                        .unwrap_or("");
                    push_text_block(
                        format!("comment by {who} {when}").trim_end(),
                        body,
                        &mut comments,
                        omitted,
                    );
                }
            }
        }
    }
    for (k, label) in [
        ("createdAt", "created"),
        ("updatedAt", "updated"),
        ("closedAt", "closed"),
        ("mergedAt", "merged"),
    ] {
        if let Some(v) = take(k, &mut used).and_then(scalar) {
            if v != "null" && !v.is_empty() {
                paren.push(format!("{label} {}", date(&v)));
            }
        }
    }
    if !paren.is_empty() {
        parts.push(format!("({})", paren.join(", ")));
    }
    if let Some(Value::Array(checks)) = take("statusCheckRollup", &mut used) {
        let bad = |s: &str| {
            matches!(
                s,
                "failure" | "error" | "cancelled" | "timed_out" | "action_required"
            )
        };
        let mut sorted: Vec<&Value> = checks.iter().collect();
        sorted.sort_by_key(|c| !bad(&check_state(c)));
        let failing = sorted.iter().filter(|c| bad(&check_state(c))).count();
        let shown: Vec<String> = sorted
            .iter()
            .take(12)
            .map(|c| format!("{}={}", short(c), check_state(c)))
            .collect();
        let more = checks.len().saturating_sub(12);
        parts.push(format!(
            "checks: {} of {} failing [{}{}]",
            failing,
            checks.len(),
            shown.join(", "),
            if more > 0 {
                format!(", +{more} more")
            } else {
                String::new()
            }
        ));
    }
    let url = take("url", &mut used).and_then(scalar);
    for (k, v) in o {
        if used.contains(&k.as_str()) {
            continue;
        }
        if let Value::String(t) = v {
            if t.contains('\n') {
                push_text_block(k, t, &mut extra, omitted);
                continue;
            }
        }
        let s = match v {
            Value::Array(a) if a.iter().all(|x| scalar(x).is_some() || x.is_object()) => {
                format!("[{}]", a.iter().map(short).collect::<Vec<_>>().join(", "))
            }
            Value::Object(_) => short(v),
            v => scalar(v).unwrap_or_default(),
        };
        parts.push(format!("{k}={s}"));
    }
    if let Some(u) = url {
        parts.push(u);
    }
    extra.append(&mut comments);
    (parts.join(" "), extra)
}

// ---------------------------------------------------------------- gh-run-log

/// Lines kept from a run log; past it the rest is counted.
const MAX_LOG_KEPT: usize = 800;
const CONTEXT_BEFORE: usize = 2;
const CONTEXT_AFTER: usize = 6;

#[derive(Default)]
pub struct GhRunLog {
    parsed: u64,
    unparsed: u64,
    out: Vec<String>,
    omitted: u64,
    filtered: u64,
    step: Option<(String, String)>,
    /// Steps (job / step) seen, in order, and whether they had errors.
    steps: Vec<(String, bool)>,
    step_header_done: bool,
    before: std::collections::VecDeque<String>,
    after_left: usize,
    /// Lines of the current step not shown.
    step_hidden: u64,
    errors: u64,
}

/// `job\tstep\t2024-05-01T10:00:00.1234567Z text` → (job, step, text).
fn split_log_line(line: &str) -> Option<(&str, &str, &str)> {
    let mut it = line.splitn(3, '\t');
    let job = it.next()?;
    let step = it.next()?;
    let rest = it.next()?;
    let rest = rest.trim_start_matches('\u{feff}');
    let (ts, text) = rest.split_once(' ').unwrap_or((rest, ""));
    let b = ts.as_bytes();
    let is_ts = b.len() >= 20 && b[4] == b'-' && b[10] == b'T' && ts.ends_with('Z');
    is_ts.then_some((job, step, text))
}

fn is_log_signal(text: &str) -> bool {
    text.starts_with("##[error]")
        || text.starts_with("##[warning]")
        || text.contains("Process completed with exit code")
        || signal::classify(text) != Level::None
}

impl GhRunLog {
    fn keep(&mut self, s: String) {
        if self.out.len() < MAX_LOG_KEPT {
            self.out.push(s);
        } else {
            self.omitted += 1;
        }
    }

    fn flush_hidden(&mut self) {
        if self.step_hidden > 0 && self.step_header_done {
            let n = self.step_hidden;
            self.keep(format!("    ... {n} lines omitted ..."));
            self.omitted += n;
        } else {
            self.filtered += self.step_hidden;
        }
        self.step_hidden = 0;
    }

    fn end_step(&mut self) {
        self.flush_hidden();
        self.filtered += self.before.len() as u64;
        self.before.clear();
        self.after_left = 0;
    }
}

impl Structured for GhRunLog {
    fn push(&mut self, line: &str) {
        let Some((job, step, text)) = split_log_line(line) else {
            if !line.trim().is_empty() {
                self.unparsed += 1;
                self.keep(line.to_string());
            }
            return;
        };
        self.parsed += 1;
        let key = (job.to_string(), step.to_string());
        if self.step.as_ref() != Some(&key) {
            self.end_step();
            if self.steps.len() < 2000 {
                self.steps.push((format!("{job} / {step}"), false));
            }
            self.step = Some(key);
            self.step_header_done = false;
        }
        if text.starts_with("##[group]") || text.starts_with("##[endgroup]") {
            // the group title of a `Run` step is the command: keep it as context
            if let Some(cmd) = text.strip_prefix("##[group]") {
                if cmd.starts_with("Run ") {
                    self.before.clear();
                    self.before.push_back(cmd.to_string());
                    return;
                }
            }
            self.filtered += 1;
            return;
        }
        let text = text.trim_end();
        if is_log_signal(text) {
            if !self.step_header_done {
                let title = self.steps.last().map(|s| s.0.clone()).unwrap_or_default();
                self.keep(format!("== {title} =="));
                self.step_header_done = true;
            }
            if let Some(s) = self.steps.last_mut() {
                s.1 = true;
            }
            self.flush_hidden();
            let ctx: Vec<String> = self.before.drain(..).collect();
            for c in ctx {
                self.keep(format!("  {c}"));
            }
            self.errors += 1;
            self.keep(format!("  {}", clip_line(text, 600)));
            self.after_left = CONTEXT_AFTER;
            return;
        }
        if self.after_left > 0 {
            self.after_left -= 1;
            self.keep(format!("  {}", clip_line(text, 600)));
            return;
        }
        self.before.push_back(clip_line(text, 600).into_owned());
        if self.before.len() > CONTEXT_BEFORE {
            self.before.pop_front();
            self.step_hidden += 1;
        }
    }

    fn finish(mut self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        if self.parsed == 0 || self.unparsed > self.parsed {
            return None;
        }
        self.end_step();
        let quiet: Vec<String> = self
            .steps
            .iter()
            .filter(|s| !s.1)
            .map(|s| s.0.clone())
            .collect();
        let mut lines = Vec::new();
        let failing = self.steps.iter().filter(|s| s.1).count();
        if failing == 0 {
            lines.push(format!(
                "no error lines in {} step{}",
                self.steps.len(),
                if self.steps.len() == 1 { "" } else { "s" }
            ));
        }
        lines.append(&mut self.out);
        if !quiet.is_empty() {
            lines.push(format!(
                "steps without errors ({}): {}",
                quiet.len(),
                clip_line(&quiet.join(", "), 1500)
            ));
        }
        Some(StructuredOutput {
            name: "gh-run-log",
            lines,
            facts: vec![
                ("step".into(), self.steps.len() as u64),
                ("failing step".into(), failing as u64),
            ],
            omitted: self.omitted,
            filtered: self.filtered,
            facts_line: false,
            json_cut: false,
        })
    }
}

// ---------------------------------------------------------------- gh-pr-checks

#[derive(Default)]
pub struct GhPrChecks {
    head: Vec<String>,
    bad: Vec<String>,
    passed: Vec<String>,
    skipped: Vec<String>,
    rows: u64,
    other: u64,
    counts: [u64; 4], // fail, pending, pass, skip
}

impl Structured for GhPrChecks {
    fn push(&mut self, line: &str) {
        let t = line.trim_end();
        if t.is_empty() {
            return;
        }
        // non-terminal: name \t status \t elapsed \t url \t description
        let cells: Vec<&str> = t.split('\t').collect();
        if cells.len() >= 4 {
            self.rows += 1;
            let (name, status) = (cells[0].trim(), cells[1].trim());
            match status {
                "pass" => {
                    self.counts[2] += 1;
                    self.passed.push(name.to_string());
                }
                "skipping" => {
                    self.counts[3] += 1;
                    self.skipped.push(name.to_string());
                }
                _ => {
                    self.counts[if status == "pending" { 1 } else { 0 }] += 1;
                    let rest: Vec<&str> = cells[2..]
                        .iter()
                        .map(|c| c.trim())
                        .filter(|c| !c.is_empty() && *c != "0")
                        .collect();
                    self.bad.push(
                        format!("{status}  {name}  {}", rest.join("  "))
                            .trim_end()
                            .to_string(),
                    );
                }
            }
            return;
        }
        // terminal: `X  name  description  elapsed  url`
        let mark = t.chars().next().unwrap_or(' ');
        if matches!(mark, '✓' | 'X' | '*' | '-') && t.chars().nth(1) == Some(' ') {
            self.rows += 1;
            let rest = t[mark.len_utf8()..].trim();
            let name = rest.split("  ").next().unwrap_or(rest).trim().to_string();
            match mark {
                '✓' => {
                    self.counts[2] += 1;
                    self.passed.push(name);
                }
                '-' => {
                    self.counts[3] += 1;
                    self.skipped.push(name);
                }
                _ => {
                    self.counts[if mark == '*' { 1 } else { 0 }] += 1;
                    self.bad.push(clip_line(t, 600).into_owned());
                }
            }
            return;
        }
        if t.trim_start().starts_with("NAME ") {
            return;
        }
        self.other += 1;
        if self.head.len() < 20 {
            self.head.push(t.to_string());
        }
    }

    fn finish(self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        if self.rows == 0 || self.other > self.rows + 4 {
            return None;
        }
        let mut lines = self.head;
        lines.extend(self.bad);
        let list = |label: &str, v: &[String]| -> Option<String> {
            (!v.is_empty())
                .then(|| format!("{label} ({}): {}", v.len(), clip_line(&v.join(", "), 3000)))
        };
        lines.extend(list("passed", &self.passed));
        lines.extend(list("skipped", &self.skipped));
        let [f, p, s, k] = self.counts;
        Some(StructuredOutput {
            name: "gh-pr-checks",
            lines,
            facts: vec![
                ("failing check".into(), f),
                ("pending check".into(), p),
                ("passing check".into(), s),
                ("skipped check".into(), k),
            ],
            omitted: 0,
            filtered: 0,
            facts_line: false,
            json_cut: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run<S: Structured + Default + 'static>(text: &str) -> Option<StructuredOutput> {
        crate::reduce::structured::feed(Box::<S>::default(), text, 0)
    }

    #[test]
    fn json_records() {
        let text = r#"[{"number":12,"title":"Fix parser","state":"OPEN","labels":[{"name":"bug"},{"name":"p1"}],"author":{"login":"dana"},"comments":[{"body":"x"}],"updatedAt":"2026-04-16T01:52:50Z","url":"https://github.com/o/r/pull/12","statusCheckRollup":[{"name":"lint","conclusion":"SUCCESS"},{"name":"test","conclusion":"FAILURE"}]}]"#;
        let out = run::<GhJson>(text).unwrap();
        let l = &out.lines[0];
        for want in [
            "#12 Fix parser [OPEN] {bug, p1} (dana, 1 comment, updated 2026-04-16)",
            "checks: 1 of 2 failing [test=failure, lint=success]",
            "https://github.com/o/r/pull/12",
        ] {
            assert!(l.contains(want), "{want} missing: {l}");
        }
        let jl = "{\"number\":1,\"title\":\"a\"}\n{\"number\":2,\"title\":\"b\",\"extra\":true}\n";
        let out = run::<GhJson>(jl).unwrap();
        assert_eq!(out.lines, vec!["#1 a", "#2 b extra=true"]);
        assert!(run::<GhJson>("no json here").is_none());
        let api = r#"{"full_name":"o/r","private":false,"owner":{"login":"o","id":1}}"#;
        let view = "{\"number\":7,\"title\":\"t\",\"body\":\"line one\\nline two\",\"comments\":[{\"author\":{\"login\":\"ann\"},\"body\":\"LGTM\\nship it\"}]}";
        let out = run::<GhJson>(view).unwrap();
        assert_eq!(
            out.lines,
            vec![
                "#7 t (1 comment)",
                "  body:",
                "    line one",
                "    line two",
                "  comment by ann:",
                "    LGTM",
                "    ship it"
            ]
        );
        let out = run::<GhJson>(api).unwrap();
        assert_eq!(
            out.lines,
            vec![
                "full_name: o/r",
                "private: false",
                "owner: {\"login\":\"o\",\"id\":1}"
            ]
        );
    }

    #[test]
    fn run_log_keeps_failing_step() {
        let text =
            "build\tSet up job\t2026-05-01T10:00:00.1000000Z Current runner version: '2.316.0'
build\tSet up job\t2026-05-01T10:00:00.2000000Z Operating System
build\tRun npm test\t2026-05-01T10:01:00.0000000Z ##[group]Run npm test
build\tRun npm test\t2026-05-01T10:01:00.0000000Z npm test
build\tRun npm test\t2026-05-01T10:01:00.0000000Z ##[endgroup]
build\tRun npm test\t2026-05-01T10:01:01.0000000Z > demo@1.0.0 test
build\tRun npm test\t2026-05-01T10:01:01.0000000Z > node --test
build\tRun npm test\t2026-05-01T10:01:02.0000000Z ok 1 - adds
build\tRun npm test\t2026-05-01T10:01:03.0000000Z not ok 2 - subtracts
build\tRun npm test\t2026-05-01T10:01:03.0000000Z   error: 'Expected values to be strictly equal'
build\tRun npm test\t2026-05-01T10:01:03.0000000Z   expected: 1
build\tRun npm test\t2026-05-01T10:01:03.0000000Z   actual: 2
build\tRun npm test\t2026-05-01T10:01:04.0000000Z ##[error]Process completed with exit code 1.
build\tPost Run actions/checkout@v4\t2026-05-01T10:01:05.0000000Z Cleaning up orphan processes
";
        let out = run::<GhRunLog>(text).unwrap();
        let t = out.lines.join("\n");
        for want in [
            "== build / Run npm test ==",
            "error: 'Expected values to be strictly equal'",
            "expected: 1",
            "actual: 2",
            "##[error]Process completed with exit code 1.",
            "steps without errors (2): build / Set up job, build / Post Run actions/checkout@v4",
        ] {
            assert!(t.contains(want), "{want} missing:\n{t}");
        }
        assert!(!t.contains("2026-05-01T"), "{t}");
        assert!(!t.contains("Current runner version"), "{t}");
        assert!(run::<GhRunLog>("not a log\n").is_none());
    }

    #[test]
    fn pr_checks() {
        let text = "lint\tpass\t12s\thttps://x/1\t\ntest\tfail\t1m3s\thttps://x/2\t\ndeploy\tpending\t0\thttps://x/3\t\n";
        let out = run::<GhPrChecks>(text).unwrap();
        let t = out.lines.join("\n");
        assert!(t.contains("fail  test  1m3s  https://x/2"), "{t}");
        assert!(t.contains("pending  deploy  https://x/3"), "{t}");
        assert!(t.contains("passed (1): lint"), "{t}");
        assert!(run::<GhPrChecks>("no pull requests found for branch \"main\"\n").is_none());
    }
}
