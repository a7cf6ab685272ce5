//! cargo build / check / clippy / doc and rustc: every diagnostic kept whole.
//!
//! rustc prints each diagnostic as a block: a header (`error[E0308]: mismatched types`,
//! `warning: unused variable: `x``), then its location (` --> src/main.rs:7:49`), the
//! labelled source lines, `= note:`/`= help:` lines and sub-diagnostics, up to a blank line.
//! Line rules keep such blocks only while the engine's kept-line budget lasts; this reducer
//! keeps *every* diagnostic: whole while a line budget lasts, and after that as its header
//! plus its `-->` location (the lines left out are counted). Identical diagnostics
//! (same block text) are shown once with a count. A lint said again at other places (same
//! header, notes and help: clippy's `needless_return` in seven functions) is shown whole
//! once, followed by the other places (`src/lib.rs:21:5, 31:5`). So is a lint whose
//! header differs only in the names it quotes (rustc's `unused variable: `a``, then `b` and
//! `c`): each later place carries its names (`` `b` src/main.rs:3:9, `c` 4:9 ``). Errors
//! with a code (`error[E0308]`) are grouped only when all but their place and source lines
//! is the same, labels included (where they point and what they say), since their labels
//! usually say what differs.
//!
//! Noise (counted, not shown): `Compiling`/`Checking`/`Downloading`… progress, the clippy
//! documentation-link and `-D warnings` override lines, `Some errors have detailed
//! explanations` and `For more information…`. Kept: summaries (`could not compile … due to
//! N previous errors`, `generated N warnings`, `aborting due to`), `Finished`, `Generated`,
//! and any other line (build-script output, cargo's own errors), capped.
//!
//! Facts: `error` and `warning` from cargo's and rustc's own summary lines, or, when a
//! build printed no summary, from the diagnostic headers.
//!
//! Not this shape (no cargo progress, no diagnostic, no summary): `None`.

use super::diagnostics::{name_template, quoted_names};
use super::{Structured, StructuredOutput};
use crate::reduce::text::clip_line;

/// Lines of diagnostics shown whole; later diagnostics are shown as header + location.
const FULL_LINES_BUDGET: usize = 400;
/// Lines of one diagnostic shown whole.
const MAX_BLOCK_LINES: usize = 60;
/// Distinct diagnostics remembered (the rest are counted).
const MAX_DIAGNOSTICS: usize = 2000;
/// Other lines (build-script output, cargo errors) kept.
const MAX_OTHER_LINES: usize = 200;

const PROGRESS: &[&str] = &[
    "Compiling",
    "Checking",
    "Documenting",
    "Downloading",
    "Downloaded",
    "Updating",
    "Locking",
    "Adding",
    "Blocking",
    "Fresh",
    "Packaging",
    "Verifying",
    "Archiving",
    "Unpacking",
    "Installing",
    "Installed",
    "Replacing",
    "Removing",
    "Scraping",
    "Dirty",
    "Updated",
    "Unchanged",
    "Building",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Level {
    Error,
    Warning,
}

#[derive(Debug)]
struct Diag {
    level: Level,
    lines: Vec<String>,
    /// Lines of the block beyond what was stored.
    extra: u64,
    count: u64,
}

#[derive(Debug)]
enum Item {
    Diag(usize),
    Line(String),
}

#[derive(Default)]
pub struct Cargo {
    items: Vec<Item>,
    diags: Vec<Diag>,
    current: Option<Diag>,
    recognized: bool,
    noise: u64,
    other_lines: usize,
    other_dropped: u64,
    diags_dropped: u64,
    summary_errors: Option<u64>,
    summary_warnings: Option<u64>,
    header_errors: u64,
    header_warnings: u64,
    /// The diagnostics kept, by a hash of their level and lines (a build that warns
    /// thousands of times is not compared line by line with every diagnostic before).
    by_text: std::collections::HashMap<u64, Vec<usize>>,
}

fn is_progress(line: &str) -> bool {
    let t = line.trim_start();
    if t.len() == line.len() {
        return false; // cargo indents its status words
    }
    let word = t.split(' ').next().unwrap_or("");
    PROGRESS.contains(&word) && t.len() > word.len()
}

fn is_boilerplate(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("= help: for further information visit https://rust-lang.github.io/rust-clippy/")
        || t.starts_with("= help: to override `-D warnings` add")
        || line.starts_with("Some errors have detailed explanations: ")
        || line.starts_with("For more information about this error, try `rustc --explain")
        || line.starts_with("For more information about an error, try `rustc --explain")
}

/// `error[E0308]: …`, `warning: …`, `error: …` at column 0.
fn header_level(line: &str) -> Option<Level> {
    let (word, rest) = if let Some(r) = line.strip_prefix("error") {
        (Level::Error, r)
    } else if let Some(r) = line.strip_prefix("warning") {
        (Level::Warning, r)
    } else {
        return None;
    };
    let rest = if let Some(r) = rest.strip_prefix('[') {
        let end = r.find(']')?;
        if end == 0
            || !r[..end]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_:-".contains(c))
        {
            return None;
        }
        &r[end + 1..]
    } else {
        rest
    };
    rest.starts_with(": ").then_some(word)
}

/// A number right before `word` (`2 warnings`, `3 previous errors`).
fn number_before(line: &str, word: &str) -> Option<u64> {
    let k = line.find(word)?;
    line[..k].trim_end().rsplit(' ').next()?.parse().ok()
}

/// Summary lines: `(errors, warnings)` they report.
fn summary(line: &str) -> Option<(u64, u64)> {
    let failed_unit = line.starts_with("error: could not compile ")
        || line.starts_with("error: could not document ");
    let errs = if failed_unit || line.starts_with("error: aborting due to") {
        number_before(line, " previous error").unwrap_or(1)
    } else {
        0
    };
    let warns = if (line.starts_with("warning: ") || line.starts_with("error: "))
        && (line.contains(" generated ") || line.contains(" emitted"))
    {
        let w = number_before(line, " warning");
        if w.is_none() && errs == 0 {
            return None;
        }
        w.unwrap_or(0)
    } else {
        0
    };
    if errs == 0 && warns == 0 {
        if failed_unit || line == "warning: build failed, waiting for other jobs to finish..." {
            return Some((0, 0));
        }
        return None;
    }
    Some((errs, warns))
}

impl Cargo {
    fn close(&mut self) {
        let Some(d) = self.current.take() else {
            return;
        };
        // identical diagnostic already seen (e.g. the same warning in lib and test targets)
        let key = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            (d.level, &d.lines).hash(&mut h);
            h.finish()
        };
        let same = self.by_text.get(&key).and_then(|at| {
            at.iter()
                .copied()
                .find(|&i| self.diags[i].level == d.level && self.diags[i].lines == d.lines)
        });
        if let Some(i) = same {
            self.diags[i].count += 1;
            return;
        }
        if self.diags.len() >= MAX_DIAGNOSTICS {
            self.diags_dropped += 1;
            return;
        }
        self.by_text.entry(key).or_default().push(self.diags.len());
        self.diags.push(d);
        self.items.push(Item::Diag(self.diags.len() - 1));
    }

    fn other(&mut self, line: &str) {
        if self.other_lines >= MAX_OTHER_LINES {
            self.other_dropped += 1;
            return;
        }
        self.other_lines += 1;
        self.items
            .push(Item::Line(clip_line(line, 2000).into_owned()));
    }
}

/// Lints said again: the same header, notes and help at another place (clippy's
/// `needless_raw_string_hashes` at 39 places). Errors with a code (`error[E0308]`) fold only
/// with the same labels (see [`lint_kind`]). A diagnostic without a `-->` location never does.
#[derive(Default)]
struct Repeats {
    /// the first of each kind -> the later ones
    more: std::collections::HashMap<usize, Vec<usize>>,
    folded: std::collections::HashSet<usize>,
    /// the first of a kind whose headers quote other names -> which of its names differ
    vary: std::collections::HashMap<usize, Vec<bool>>,
}

fn repeats(diags: &[Diag]) -> Repeats {
    let mut first: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut r = Repeats::default();
    for (i, d) in diags.iter().enumerate() {
        let Some(key) = lint_kind(d) else {
            continue;
        };
        match first.get(&key) {
            Some(&f) => {
                r.more.entry(f).or_default().push(i);
                r.folded.insert(i);
            }
            None => {
                first.insert(key, i);
            }
        }
    }
    // which quoted names differ between the diagnostics of one kind
    let names = |i: usize| {
        let h = &diags[i].lines[0];
        quoted_names(h).map_or_else(Vec::new, |spans| {
            spans.into_iter().map(|(a, b)| &h[a..b]).collect()
        })
    };
    for (&f, later) in &r.more {
        let first = names(f);
        let mut vary = vec![false; first.len()];
        for &j in later {
            for (v, (a, b)) in vary.iter_mut().zip(first.iter().zip(names(j))) {
                *v |= *a != b;
            }
        }
        if vary.contains(&true) {
            r.vary.insert(f, vary);
        }
    }
    r
}

/// What makes two lints the same kind: the header, up to the names it quotes (rustc's
/// `unused variable: `a`` and `unused variable: `b``), and every note and help line (rustc
/// says "implied by `-D warnings`" and "on by default" at the first one only).
///
/// An error with a code is of one kind with another only when everything but its place
/// and its source lines is the same: its labels, where they point and what they say
/// (`expected `u32`, found `&str``, `expected due to this`), and its notes and help.
fn lint_kind(d: &Diag) -> Option<String> {
    let header = &d.lines[0];
    if d.extra > 0 || location(d).is_none() {
        return None;
    }
    let mut key = name_template(header, None).map_or_else(|| header.clone(), |(t, _)| t);
    if header.contains("[E") {
        for l in &d.lines[1..] {
            let t = l.trim_start();
            // the place, and a source line (`7 |     let v0: u32 = "s0";`)
            let numbered = t.split_once('|').is_some_and(|(n, _)| {
                !n.trim().is_empty() && n.trim().bytes().all(|b| b.is_ascii_digit())
            });
            if t.starts_with("--> ") || numbered || t.starts_with("...") {
                continue;
            }
            // a label line, from its gutter on (the gutter widens with the line number)
            key.push('\n');
            key.push_str(t);
        }
        return Some(key);
    }
    for l in &d.lines[1..] {
        let t = l.trim_start();
        let note = t.starts_with("= ") || t.starts_with("help:") || t.starts_with("note:");
        if note && !t.contains("implied by") && !t.contains("on by default") {
            key.push('\n');
            key.push_str(t);
        }
    }
    Some(key)
}

/// `src/a.rs:7:49` from the diagnostic's ` --> src/a.rs:7:49`.
fn location(d: &Diag) -> Option<&str> {
    d.lines
        .iter()
        .find_map(|l| l.trim_start().strip_prefix("--> "))
        .map(str::trim)
}

/// `src/a.rs:3:1, 9:5; src/b.rs:1:1`: the file once for places in a row in one file.
fn join_places(places: &[&str]) -> String {
    let labelled: Vec<(&str, &str)> = places.iter().map(|p| ("", *p)).collect();
    join_labelled_places(&labelled)
}

/// [`join_places`] with a label before each place (`` `b` src/a.rs:3:9, `c` 4:9 ``).
fn join_labelled_places(places: &[(&str, &str)]) -> String {
    let mut out = String::new();
    let mut last_file: Option<&str> = None;
    for &(label, p) in places {
        // the file is what precedes `:line:col`
        let split = p
            .rmatch_indices(':')
            .nth(1)
            .map(|(i, _)| i)
            .filter(|i| p[i + 1..].split(':').all(|n| n.parse::<u32>().is_ok()));
        let (file, pos) = match split {
            Some(i) => (&p[..i], &p[i + 1..]),
            None => (p, ""),
        };
        if !out.is_empty() {
            out.push_str(if last_file == Some(file) && !pos.is_empty() {
                ", "
            } else {
                "; "
            });
        }
        if !label.is_empty() {
            out.push_str(label);
            out.push(' ');
        }
        if last_file == Some(file) && !pos.is_empty() {
            out.push_str(pos);
        } else {
            out.push_str(p);
        }
        last_file = Some(file);
    }
    out
}

impl Structured for Cargo {
    fn push(&mut self, line: &str) {
        if let Some(d) = &mut self.current {
            if line.trim().is_empty() {
                self.close();
                return;
            }
            if header_level(line).is_none() && !is_progress(line) {
                if is_boilerplate(line) {
                    self.noise += 1;
                } else if d.lines.len() < MAX_BLOCK_LINES {
                    d.lines.push(clip_line(line, 2000).into_owned());
                } else {
                    d.extra += 1;
                }
                return;
            }
            self.close();
        }
        if is_progress(line) || is_boilerplate(line) {
            self.recognized = true;
            self.noise += 1;
            return;
        }
        if let Some((e, w)) = summary(line) {
            self.recognized = true;
            *self.summary_errors.get_or_insert(0) += e;
            *self.summary_warnings.get_or_insert(0) += w;
            self.items.push(Item::Line(line.to_string()));
            return;
        }
        if let Some(level) = header_level(line) {
            self.recognized = true;
            match level {
                Level::Error => self.header_errors += 1,
                Level::Warning => self.header_warnings += 1,
            }
            self.current = Some(Diag {
                level,
                lines: vec![clip_line(line, 2000).into_owned()],
                extra: 0,
                count: 1,
            });
            return;
        }
        let t = line.trim_start();
        if t.starts_with("Finished `") || t.starts_with("Generated ") {
            self.recognized = true;
            self.items.push(Item::Line(line.to_string()));
            return;
        }
        if line.trim().is_empty() {
            self.noise += 1;
            return;
        }
        self.other(line);
    }

    fn finish(mut self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        self.close();
        if !self.recognized {
            return None;
        }
        let mut out = StructuredOutput {
            name: "cargo",
            facts_line: true,
            filtered: self.noise,
            ..StructuredOutput::default()
        };
        let mut budget = FULL_LINES_BUDGET;
        let mut compacted = 0u64;
        let again = repeats(&self.diags);
        for item in &self.items {
            match item {
                Item::Line(l) => out.lines.push(l.clone()),
                Item::Diag(i) if again.folded.contains(i) => {}
                Item::Diag(i) => {
                    let d = &self.diags[*i];
                    let times = if d.count > 1 {
                        format!("  (×{})", d.count)
                    } else {
                        String::new()
                    };
                    if d.lines.len() <= budget {
                        budget -= d.lines.len();
                        out.lines.push(format!("{}{times}", d.lines[0]));
                        // a gutter with nothing on it (`   |`) only spaces the drawing out
                        out.lines.extend(
                            d.lines[1..]
                                .iter()
                                .filter(|l| l.trim_start() != "|")
                                .cloned(),
                        );
                        if d.extra > 0 {
                            out.lines
                                .push(format!("   ... {} more lines of this diagnostic", d.extra));
                            out.omitted += d.extra;
                        }
                    } else {
                        // header and location only
                        budget = 0;
                        out.lines.push(format!("{}{times}", d.lines[0]));
                        let mut shown = 1;
                        if let Some(loc) =
                            d.lines.iter().find(|l| l.trim_start().starts_with("--> "))
                        {
                            out.lines.push(loc.clone());
                            shown += 1;
                        }
                        let hidden = (d.lines.len() - shown) as u64 + d.extra;
                        out.omitted += hidden;
                        compacted += 1;
                    }
                    if let Some(later) = again.more.get(i) {
                        let n: u64 = later.iter().map(|j| self.diags[*j].count).sum();
                        let (kind, same) = if d.lines[0].contains("[E") {
                            ("error", "same labels, notes and help")
                        } else {
                            ("lint", "same message and help")
                        };
                        if let Some(vary) = again.vary.get(i) {
                            // the names that differ ride on the places
                            let named: Vec<(String, &str)> = later
                                .iter()
                                .filter_map(|j| {
                                    let d = &self.diags[*j];
                                    let names = name_template(&d.lines[0], Some(vary))
                                        .map(|(_, names)| names)
                                        .unwrap_or_default();
                                    Some((names, location(d)?))
                                })
                                .collect();
                            let named: Vec<(&str, &str)> =
                                named.iter().map(|(n, p)| (n.as_str(), *p)).collect();
                            out.lines.push(format!(
                                "   ... and {n} more of this {kind}, for the names given (source lines not repeated): {}",
                                join_labelled_places(&named)
                            ));
                        } else {
                            let places: Vec<&str> = later
                                .iter()
                                .filter_map(|j| location(&self.diags[*j]))
                                .collect();
                            out.lines.push(format!(
                                "   ... and {n} more of this {kind} ({same}; source lines not repeated) at: {}",
                                join_places(&places)
                            ));
                        }
                        out.filtered += later
                            .iter()
                            .map(|j| self.diags[*j].lines.len() as u64 - 1 + self.diags[*j].extra)
                            .sum::<u64>();
                    }
                    out.lines.push(String::new());
                }
            }
        }
        while out.lines.last().is_some_and(String::is_empty) {
            out.lines.pop();
        }
        if compacted > 0 {
            out.lines.push(format!(
                "... {compacted} later diagnostics shown as header and location only ..."
            ));
        }
        if self.diags_dropped > 0 {
            out.lines.push(format!(
                "... {} more diagnostics not shown ...",
                self.diags_dropped
            ));
            out.omitted += self.diags_dropped;
        }
        if self.other_dropped > 0 {
            out.lines.push(format!(
                "... {} more output lines not shown ...",
                self.other_dropped
            ));
            out.omitted += self.other_dropped;
        }
        let errors = self
            .summary_errors
            .filter(|e| *e > 0)
            .unwrap_or(self.header_errors);
        let warnings = match self.summary_warnings {
            Some(w) if w > 0 => w,
            _ => self.header_warnings,
        };
        out.facts.push(("error".into(), errors));
        out.facts.push(("warning".into(), warnings));
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Option<StructuredOutput> {
        crate::reduce::structured::feed(Box::<Cargo>::default(), text, 101)
    }

    const FAIL: &str = "   Compiling itoa v1.0.18
   Compiling demo v0.1.0 (/tmp/demo)
error[E0308]: mismatched types
 --> src/main.rs:7:49
  |
7 |     Config { retries: \"3\" }
  |                       ^^^ expected `u32`, found `&str`

warning: unused variable: `x`
 --> src/main.rs:2:9
  |
2 |     let x = 5;
  |         ^ help: if this is intentional, prefix it with an underscore: `_x`

Some errors have detailed explanations: E0308.
For more information about an error, try `rustc --explain E0308`.
error: could not compile `demo` (bin \"demo\") due to 1 previous error; 1 warning emitted
";

    #[test]
    fn keeps_whole_diagnostics_and_reads_the_summary() {
        let o = run(FAIL).expect("cargo shape");
        let text = o.lines.join("\n");
        assert!(text.contains("error[E0308]: mismatched types"));
        assert!(text.contains(" --> src/main.rs:7:49"));
        assert!(text.contains("expected `u32`, found `&str`"));
        assert!(text.contains("warning: unused variable: `x`"));
        assert!(text.contains("due to 1 previous error; 1 warning emitted"));
        assert!(!text.contains("Compiling"));
        assert!(!text.contains("rustc --explain"));
        assert_eq!(o.filtered, 4); // 2 progress lines, 2 explanation hints
        assert_eq!(
            o.facts,
            vec![("error".to_string(), 1), ("warning".to_string(), 1)]
        );
    }

    #[test]
    fn success_with_generated_warnings() {
        let text = "   Compiling demo v0.1.0 (/tmp/demo)
warning: function `helper` is never used
 --> src/main.rs:1:4
  |
1 | fn helper() {}
  |    ^^^^^^

warning: `demo` (bin \"demo\") generated 1 warning
    Finished `dev` profile [unoptimized + debuginfo] target(s) in 0.64s
";
        let o = run(text).unwrap();
        assert_eq!(o.facts[1], ("warning".to_string(), 1));
        assert_eq!(o.facts[0], ("error".to_string(), 0));
        assert!(o.lines.last().unwrap().contains("Finished"));
    }

    #[test]
    fn identical_diagnostics_fold_and_many_get_compact() {
        let mut text = String::new();
        for _ in 0..2 {
            text.push_str("warning: same\n --> src/a.rs:1:1\n  |\n\n");
        }
        for i in 0..200 {
            text.push_str(&format!(
                "warning: unused import m{i}\n --> src/b.rs:{i}:5\n  |\n{i} | use m{i};\n  |     ^^\n\n"
            ));
        }
        let o = run(&text).unwrap();
        let t = o.lines.join("\n");
        assert!(t.contains("warning: same  (×2)"));
        // every diagnostic keeps its header and location
        for i in 0..200 {
            assert!(t.contains(&format!("warning: unused import m{i}")));
            assert!(t.contains(&format!(" --> src/b.rs:{i}:5")));
        }
        assert!(t.contains("later diagnostics shown as header and location only"));
        assert!(o.omitted > 0);
        assert_eq!(o.facts[1], ("warning".to_string(), 202));
    }

    #[test]
    fn errors_with_a_code_and_the_same_labels_are_said_once_with_their_places() {
        // rustc, 12 `let vN: u32 = "sN";`: the labels point at the same columns and say the
        // same; only the place and the source line differ
        let e0308 = |line: u32| {
            let w = line.to_string().len();
            let pad = " ".repeat(w);
            format!(
                "error[E0308]: mismatched types\n{pad}--> src/main.rs:{line}:19\n{pad} |\n{line} |     let v{line}: u32 = \"s{line}\";\n{pad} |             ---   ^^^^ expected `u32`, found `&str`\n{pad} |             |\n{pad} |             expected due to this\n\n"
            )
        };
        let text: String = (2..=9).map(e0308).collect::<String>()
            + "error[E0308]: mismatched types\n --> src/main.rs:30:9\n  |\n30 |     f(true);\n  |       ^^^^ expected `u32`, found `bool`\n\n"
            + "error: could not compile `demo` (bin \"demo\") due to 9 previous errors\n";
        let o = run(&text).unwrap();
        let t = o.lines.join("\n");
        assert_eq!(t.matches("error[E0308]").count(), 2, "{t}");
        assert!(
            t.contains("2 |     let v2: u32 = \"s2\";\n  |             ---   ^^^^ expected `u32`, found `&str`\n  |             |\n  |             expected due to this\n   ... and 7 more of this error (same labels, notes and help; source lines not repeated) at: src/main.rs:3:19, 4:19, 5:19, 6:19, 7:19, 8:19, 9:19\n"),
            "{t}"
        );
        assert!(t.contains("expected `u32`, found `bool`"), "{t}");
        assert_eq!(o.facts[0], ("error".to_string(), 9));
    }

    #[test]
    fn a_lint_said_again_is_its_place_and_errors_with_other_labels_never_fold() {
        let lint = |line: u32, first: bool| {
            format!(
                "error: unneeded `return` statement\n  --> src/lib.rs:{line}:5\n   |\n{line} |     return x;\n   |     ^^^^^^^^\n   |\n{}help: remove `return`\n   |\n{line} -     return x;\n{line} +     x\n   |\n\n",
                if first { "   = note: `-D clippy::needless-return` implied by `-D warnings`\n" } else { "" }
            )
        };
        let e0308 = |line: u32, found: &str| {
            format!("error[E0308]: mismatched types\n --> src/main.rs:{line}:9\n  |\n{line} |     f({found});\n  |       ^^^ expected `u32`, found `{found}`\n\n")
        };
        let text = format!(
            "{}{}{}{}{}{}error: could not compile `demo` (lib) due to 5 previous errors\n",
            lint(11, true),
            e0308(3, "&str"),
            lint(21, false),
            e0308(4, "bool"),
            lint(31, false),
            "warning: unused variable: `y`\n --> src/lib.rs:40:9\n  |\n40 |     let y = 1;\n  |         ^\n\n",
        );
        let o = run(&text).unwrap();
        let t = o.lines.join("\n");
        assert_eq!(
            t.matches("error: unneeded `return` statement").count(),
            1,
            "{t}"
        );
        assert!(
            t.contains("help: remove `return`\n11 -     return x;"),
            "{t}"
        );
        // gutters with nothing on them go; the drawing's lines stay
        assert!(t.lines().all(|l| l.trim() != "|"), "{t}");
        assert!(t.contains("11 |     return x;\n   |     ^^^^^^^^\n"), "{t}");
        assert!(
            t.contains("   ... and 2 more of this lint (same message and help; source lines not repeated) at: src/lib.rs:21:5, 31:5\n"),
            "{t}"
        );
        // the same code, other labels: both whole
        assert!(
            t.contains("expected `u32`, found `&str`")
                && t.contains("expected `u32`, found `bool`"),
            "{t}"
        );
        assert!(t.contains("warning: unused variable: `y`"), "{t}");
        assert_eq!(o.facts[0], ("error".to_string(), 5));
    }

    #[test]
    fn a_lint_about_other_names_is_its_names_and_places() {
        let unused = |name: &str, line: u32, first: bool| {
            format!(
                "warning: unused variable: `{name}`\n --> src/main.rs:{line}:9\n  |\n{line} |     let {name} = 1;\n  |         ^ help: if this is intentional, prefix it with an underscore: `_{name}`\n{}\n",
                if first { "  |\n  = note: `#[warn(unused_variables)]` (part of `#[warn(unused)]`) on by default\n" } else { "" }
            )
        };
        // names the same everywhere stay in the message; only those that differ are listed
        let cast = |from: &str, line: u32| {
            format!("warning: casting `{from}` to `f64` may lose precision\n --> src/lib.rs:{line}:5\n  |\n{line} |     x as f64\n  |     ^^^^^^^^\n  = help: use `f64::from`\n\n")
        };
        let text = format!(
            "{}{}{}{}{}{}warning: `demo` (bin \"demo\") generated 5 warnings\n",
            unused("a", 2, true),
            unused("b", 3, false),
            cast("u32", 7),
            unused("c", 4, false),
            cast("i32", 9),
            unused("c", 12, false),
        );
        let o = run(&text).unwrap();
        let t = o.lines.join("\n");
        assert!(
            t.contains("warning: unused variable: `a`\n --> src/main.rs:2:9\n2 |     let a = 1;\n"),
            "{t}"
        );
        assert!(
            t.contains("   ... and 3 more of this lint, for the names given (source lines not repeated): `b` src/main.rs:3:9, `c` 4:9, `c` 12:9\n"),
            "{t}"
        );
        assert!(!t.contains("unused variable: `b`"), "{t}");
        assert!(
            t.contains("warning: casting `u32` to `f64` may lose precision\n"),
            "{t}"
        );
        assert!(
            t.contains("   ... and 1 more of this lint, for the names given (source lines not repeated): `i32` src/lib.rs:9:5"),
            "{t}"
        );
        // the same names everywhere: the places alone, as before
        let same = format!("{}{}", cast("u32", 7), cast("u32", 9));
        let t = run(&same).unwrap().lines.join("\n");
        assert!(
            t.contains("(same message and help; source lines not repeated) at: src/lib.rs:9:5"),
            "{t}"
        );
    }

    #[test]
    fn places_in_one_file_name_it_once() {
        assert_eq!(
            join_places(&[
                "src/a.rs:3:1",
                "src/a.rs:9:5",
                "src/b.rs:1:1",
                "src/a.rs:12:2",
                "weird"
            ]),
            "src/a.rs:3:1, 9:5; src/b.rs:1:1; src/a.rs:12:2; weird"
        );
    }

    #[test]
    fn not_cargo_output() {
        assert!(run("hello\nworld\n").is_none());
        assert!(run("").is_none());
    }

    #[test]
    fn headers() {
        assert_eq!(
            header_level("error[E0425]: cannot find"),
            Some(Level::Error)
        );
        assert_eq!(header_level("warning: unused"), Some(Level::Warning));
        assert_eq!(
            header_level("error: could not find `Cargo.toml`"),
            Some(Level::Error)
        );
        assert_eq!(header_level("errors: 3"), None);
        assert_eq!(header_level("warning[clippy::x]: y"), Some(Level::Warning));
        assert!(is_progress("   Compiling foo v1.0.0"));
        assert!(!is_progress("Compiling foo"));
    }
}
