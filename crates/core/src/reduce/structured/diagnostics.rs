//! Line diagnostics of linters and type checkers that print one `path:line[:col]: message`
//! per finding (mypy, flake8, pylint, ruff's concise format), tsc's `path(line,col): message`, or
//! eslint's stylish format (a file line, its findings indented under it), or ruff's full format
//! (`CODE message`, ` --> path:line:col`, frames, `help:`; the frames go), or javac's (a
//! finding, its source line and caret, `symbol:`/`location:`; the caret gives the column), or
//! gcc's and clang's (`In function ‘f’:` said with each finding under it, the source and caret
//! lines dropped, labels and fix-it hints under the caret joined on).
//!
//! Every finding is kept, grouped by file as search results are: the path is said once,
//! and one message on several lines of a file is written once with all its positions
//! (`app.py (6):` then `  14:0,21:0,25:0: C0116: Missing function or method docstring
//! (missing-function-docstring)`); a message found in several files is said once with every
//! place it is at, when that reads fewer tokens. Lines that are not findings (the `Found N errors`
//! summary, a score line) are kept before or after the findings as they came; pylint's
//! `************* Module x` headers (the module is in every path under them) and
//! separator rules go (counted). An output with indented lines under its findings (source
//! frames, `--pretty`) or fewer than two findings is left to the rule's line reduction.

use super::search::{render_results, Around, File, Hit};
use super::{Structured, StructuredOutput};
use std::collections::HashMap;

#[derive(Default)]
pub struct Diagnostics {
    files: Vec<File>,
    index: HashMap<String, usize>,
    around: Around,
    findings: u64,
    dropped: u64,
    /// An indented line followed a finding: a format with source frames, not ours.
    framed: bool,
    /// eslint's stylish format: the file whose findings the indented lines are.
    file: Option<String>,
    /// A line that may be such a file (it is one when a finding follows).
    maybe_file: Option<String>,
    /// ruff's full format: a `CODE message` heading waiting for its ` --> path:line:col`.
    heading: Option<String>,
    /// Inside a ruff finding's block (after its location, up to the blank line): source
    /// frames and fix previews go, `help:`/`note:` lines join the finding.
    in_block: bool,
    /// javac's frame: the source line under a finding, waiting for its caret line.
    source: Option<String>,
    /// gcc's function context (`In function ‘f0’`) for the findings of a file after it.
    context: Option<(String, String)>,
    /// Right after a finding or inside its javac frame.
    in_frame: bool,
    /// The finding's source line and caret were seen.
    framed_once: bool,
}

/// ruff's heading of a finding: `F401 [*] \`os\` imported but unused` (a rule code: capitals,
/// then digits).
fn is_code_heading(t: &str) -> bool {
    let Some((code, rest)) = t.split_once(' ') else {
        return false;
    };
    let letters = code.bytes().take_while(u8::is_ascii_uppercase).count();
    (1..=5).contains(&letters)
        && code.len() - letters >= 3
        && code[letters..].bytes().all(|b| b.is_ascii_digit())
        && !rest.trim().is_empty()
}

/// An entry of eslint's stylish format under its file: `  12:5  error  message  rule-id`
/// → ("12:5", "error message (rule-id)").
fn stylish(line: &str) -> Option<(String, String)> {
    let t = line.trim_start();
    if t.len() == line.len() {
        return None;
    }
    let (pos, rest) = t.split_once(char::is_whitespace)?;
    let (l, c) = pos.split_once(':')?;
    let (severity, rest) = rest.trim_start().split_once(char::is_whitespace)?;
    if !(number(l) && number(c) && matches!(severity, "error" | "warning")) {
        return None;
    }
    let rest = rest.trim();
    // the rule id is the last column, after a run of spaces (a parse error has none)
    let text = match rest.rfind("  ") {
        Some(k) if !rest[k..].trim().contains(' ') => {
            format!("{severity} {} ({})", rest[..k].trim_end(), rest[k..].trim())
        }
        _ => format!("{severity} {rest}"),
    };
    Some((pos.to_string(), text))
}

/// One or more ASCII digits, nothing else.
fn number(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// A line that is a file name alone (eslint's stylish file heading).
fn is_file_line(t: &str) -> bool {
    !t.starts_with(char::is_whitespace)
        && !t.contains(char::is_whitespace)
        && t.contains('.')
        && !t.ends_with(':')
}

/// `path:12: text`, `path:12:5: text` or tsc's `path(12,5): text` → (path, "12", "12:5" or
/// "12:5", text).
fn split(line: &str) -> Option<(&str, std::borrow::Cow<'_, str>, &str)> {
    if let Some(found) = split_parens(line) {
        return Some(found);
    }
    let k = line.find(':')?;
    let path = &line[..k];
    if path.is_empty()
        || path.contains(char::is_whitespace)
        || !(path.contains('.') || path.contains('/'))
    {
        return None;
    }
    let rest = &line[k + 1..];
    let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
    let n = digits(rest);
    if n == 0 || rest.as_bytes().get(n) != Some(&b':') {
        return None;
    }
    let after_line = &rest[n + 1..];
    let c = digits(after_line);
    let (pos_len, text) = if c > 0 && after_line.as_bytes().get(c) == Some(&b':') {
        (n + 1 + c, &after_line[c + 1..])
    } else {
        (n, after_line)
    };
    let text = text.trim();
    (!text.is_empty()).then(|| (path, rest[..pos_len].into(), text))
}

/// tsc's `src/a.ts(12,5): error TS2339: …`.
fn split_parens(line: &str) -> Option<(&str, std::borrow::Cow<'_, str>, &str)> {
    let open = line.find('(')?;
    let path = &line[..open];
    if path.is_empty() || path.contains(char::is_whitespace) || !path.contains('.') {
        return None;
    }
    let (pos, rest) = line[open + 1..].split_once("):")?;
    let (l, c) = pos.split_once(',')?;
    let text = rest.trim();
    (number(l) && number(c) && !text.is_empty()).then(|| (path, format!("{l}:{c}").into(), text))
}

/// pylint's module header and the rule above its score; nothing is lost without them.
fn is_chatter(line: &str) -> bool {
    line.starts_with("************* Module ")
        || (line.len() >= 10 && line.bytes().all(|b| b == b'-' || b == b'='))
}

impl Diagnostics {
    fn other(&mut self, line: &str) {
        if let Some(m) = self.maybe_file.take() {
            self.around.push(&m, self.findings > 0);
        }
        self.around.push(line, self.findings > 0);
    }

    fn finding(&mut self, path: &str, pos: &str, text: &str) {
        if self.around.after_any() {
            // findings after other lines: the order matters, keep the text as it is
            self.framed = true;
        }
        self.findings += 1;
        let i = match self.index.get(path) {
            Some(&i) => i,
            None => {
                self.files.push(File {
                    path: path.to_string(),
                    ..File::default()
                });
                self.index.insert(path.to_string(), self.files.len() - 1);
                self.files.len() - 1
            }
        };
        let f = &mut self.files[i];
        f.matches += 1;
        f.hits.push(Hit {
            line: Some(pos.to_string()),
            context: false,
            text: crate::reduce::text::clip_line(text, 2000).into_owned(),
        });
    }

    /// ruff's full format: `CODE message`, ` --> path:line:col`, a source frame and fix
    /// preview, `help:`/`note:` lines, a blank line. The finding is the heading at its
    /// place, with the help and note joined on; the frames go (counted).
    fn ruff_line(&mut self, t: &str) -> bool {
        // a line of words at the margin (`Found 3 errors.`) ends a block that had no blank
        // line after it; frames start with a number, a space or `|`
        let prose = t.starts_with(char::is_alphabetic)
            && !t.starts_with("help: ")
            && !t.starts_with("note: ");
        if self.in_block && prose {
            self.in_block = false;
        }
        if self.in_block {
            if t.trim().is_empty() {
                self.in_block = false;
                return true;
            }
            if t.starts_with("help: ") || t.starts_with("note: ") {
                if let Some(hit) = self.files.last_mut().and_then(|f| f.hits.last_mut()) {
                    hit.text.push_str("; ");
                    hit.text.push_str(t);
                    return true;
                }
            }
            self.dropped += 1;
            return true;
        }
        if let Some(heading) = self.heading.take() {
            if let Some(loc) = t.trim_start().strip_prefix("--> ") {
                // `path:line:col` is a finding's place without its text
                if let Some((path, pos, _)) = split(&format!("{loc}: -")) {
                    let (path, pos) = (path.to_string(), pos.into_owned());
                    self.finding(&path, &pos, &heading);
                    self.in_block = true;
                    return true;
                }
            }
            self.other(&heading);
        }
        if is_code_heading(t) && !self.framed {
            self.heading = Some(t.to_string());
            return true;
        }
        false
    }

    /// javac's frame under a finding: the source line and a caret line under it (the
    /// caret gives the column, written into the finding's place: `Main.java:2:21`), then
    /// `symbol:`/`location:` lines, joined onto the finding. The source line goes (it is the
    /// file's own line). Anything else is not this format.
    fn frame_line(&mut self, t: &str) -> bool {
        let body = t.trim_start();
        let hit = self.files.last_mut().and_then(|f| f.hits.last_mut());
        let Some(hit) = hit.filter(|_| self.in_frame) else {
            return false;
        };
        if self.source.is_some() {
            // javac's `   ^`, gcc's and clang's `   |    ^~~~`
            let marks = body.strip_prefix('|').unwrap_or(body).trim();
            if !marks.contains('^') || !marks.chars().all(|c| matches!(c, '^' | '~' | ' ')) {
                return false;
            }
            self.source = None;
            self.framed_once = true;
            if let Some(line) = hit.line.as_mut().filter(|l| !l.contains(':')) {
                line.push_str(&format!(":{}", t.find('^').unwrap_or(0) + 1));
            }
            self.dropped += 2;
            return true;
        }
        if let Some((key, rest)) = ["symbol:", "location:"]
            .iter()
            .find_map(|k| body.strip_prefix(k).map(|r| (k, r.trim())))
        {
            hit.text.push_str(&format!("; {key} {rest}"));
            return true;
        }
        if !self.framed_once {
            self.source = Some(t.to_string());
            return true;
        }
        // gcc's and clang's lines under the caret: labels and fix-it hints, joined on
        if let Some(more) = body.strip_prefix('|') {
            let words: Vec<&str> = more.split_whitespace().filter(|w| *w != "|").collect();
            if !words.is_empty() {
                hit.text.push_str("; ");
                hit.text.push_str(&words.join(" "));
            }
            self.dropped += 1;
            return true;
        }
        false
    }

    /// gcc's `m.c: In function ‘f0’:` (also member functions, constructors, `At top
    /// level:`): the function the next findings of that file are in.
    fn context_line(&mut self, t: &str) -> bool {
        let Some((path, what)) = t.split_once(": ") else {
            return false;
        };
        let known = [
            "In function ",
            "In member function ",
            "In static member function ",
            "In constructor ",
            "In destructor ",
            "In lambda function",
            "In instantiation of ",
            "At top level",
        ];
        if path.contains(char::is_whitespace)
            || !t.ends_with(':')
            || !known.iter().any(|k| what.starts_with(k))
        {
            return false;
        }
        let what = what.trim_end_matches(':');
        self.context = (!what.starts_with("At top level"))
            .then(|| (path.to_string(), format!("in {}", &what["In ".len()..])));
        self.dropped += 1;
        true
    }

    /// eslint's stylish format: a file line, then its findings indented under it.
    fn stylish_line(&mut self, t: &str) -> bool {
        if let Some((pos, text)) = stylish(t) {
            if let Some(f) = self.maybe_file.take() {
                self.file = Some(f);
            }
            if let Some(f) = self.file.clone() {
                self.finding(&f, &pos, &text);
                return true;
            }
            return false;
        }
        self.file = None;
        if is_file_line(t) && split(t).is_none() {
            if let Some(m) = self.maybe_file.replace(t.to_string()) {
                self.around.push(&m, self.findings > 0);
            }
            return true;
        }
        false
    }
}

impl Structured for Diagnostics {
    fn push(&mut self, line: &str) {
        let t = line.trim_end();
        if self.ruff_line(t) {
            return;
        }
        if t.trim().is_empty() {
            self.file = None;
            if let Some(m) = self.maybe_file.take() {
                self.other(&m);
            }
            return;
        }
        if self.stylish_line(t) {
            return;
        }
        if let Some(m) = self.maybe_file.take() {
            self.around.push(&m, self.findings > 0);
        }
        if t.starts_with(char::is_whitespace) && self.frame_line(t) {
            return;
        }
        if self.source.take().is_some() {
            // a source line without its caret: a format of its own
            self.framed = true;
        }
        self.in_frame = false;
        if t.starts_with(char::is_whitespace) {
            if self.findings > 0 && !self.around.after_any() {
                self.framed = true;
            }
            return self.other(t);
        }
        if is_chatter(t) {
            self.dropped += 1;
            return;
        }
        if self.context_line(t) {
            return;
        }
        let Some((path, pos, text)) = split(t) else {
            return self.other(t);
        };
        match self.context.as_ref().filter(|(file, _)| file == path) {
            Some((_, ctx)) => {
                let text = format!("{text} ({ctx})");
                self.finding(path, &pos, &text);
            }
            None => self.finding(path, &pos, text),
        }
        (self.in_frame, self.framed_once) = (true, false);
    }

    fn finish(mut self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        if self.source.is_some() {
            self.framed = true;
        }
        if let Some(h) = self.heading.take() {
            self.other(&h);
        }
        if let Some(m) = self.maybe_file.take() {
            self.around.push(&m, self.findings > 0);
        }
        if self.framed || self.findings < 2 {
            return None;
        }
        // messages about several names written once each, when that reads fewer tokens
        let mut named = Vec::new();
        let mut files = self.files.clone();
        if name_templates(&mut files) {
            let mut plain = Vec::new();
            render_results(&self.files, &mut plain);
            render_results(&files, &mut named);
            let tokens = |l: &[String]| crate::tokens::estimate(&l.join("\n"));
            if tokens(&named) < tokens(&plain) {
                self.files = files;
            }
        }
        let around = std::mem::take(&mut self.around);
        let (lines, omitted) = around.wrap(|out| render_results(&self.files, out));
        Some(StructuredOutput {
            name: "diagnostics",
            lines,
            facts: Vec::new(),
            omitted,
            filtered: self.dropped,
            facts_line: false,
            json_cut: false,
        })
    }
}

/// Fewest findings of one message that differ only in the name they quote, to be written
/// once with the names at their positions.
const MIN_NAMED: usize = 3;

/// Most names a message may quote and still be written once for several findings.
const MAX_NAMES: usize = 3;

/// The names a message quotes (`'a4'`, `` `os` ``, `"x"`, `‘f’`): where each starts and
/// ends, quotes included. None when it quotes none, or more than [`MAX_NAMES`].
pub(super) fn quoted_names(text: &str) -> Option<Vec<(usize, usize)>> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let Some(open) = rest.find(['\'', '`', '"', '‘']) else {
            break;
        };
        let q = rest[open..].chars().next().expect("found");
        let close_q = if q == '‘' { '’' } else { q };
        let from = i + open + q.len_utf8();
        // a quote inside a word (`don't`) opens nothing
        let after_word = text[..i + open]
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric);
        if after_word && q == '\'' {
            i = from;
            continue;
        }
        let Some(len) = text[from..].find(close_q) else {
            break;
        };
        let name = &text[from..from + len];
        if name.is_empty() || name.len() > 80 || found.len() == MAX_NAMES {
            return None;
        }
        found.push((i + open, from + len + close_q.len_utf8()));
        i = from + len + close_q.len_utf8();
    }
    (!found.is_empty()).then_some(found)
}

/// The message with `…` inside the quotes of the names `vary` marks (all when None), and
/// those names, quotes kept, as a position shows them (`'a4' 'b4'`). None when it quotes no
/// name or more than [`MAX_NAMES`].
pub(super) fn name_template(text: &str, vary: Option<&[bool]>) -> Option<(String, String)> {
    let spans = quoted_names(text)?;
    if vary.is_some_and(|v| v.len() != spans.len()) {
        return None;
    }
    let mut template = String::with_capacity(text.len());
    let mut names = Vec::with_capacity(spans.len());
    let mut at = 0;
    for (k, (a, b)) in spans.into_iter().enumerate() {
        if vary.is_some_and(|v| !v[k]) {
            continue;
        }
        let open = text[a..].chars().next().map_or(1, char::len_utf8);
        let close = text[..b].chars().next_back().map_or(1, char::len_utf8);
        template.push_str(&text[at..a + open]);
        template.push('…');
        template.push_str(&text[b - close..b]);
        names.push(&text[a..b]);
        at = b;
    }
    template.push_str(&text[at..]);
    Some((template, names.join(" ")))
}

/// Findings of one message that differ only in the names it quotes (eslint's `'a4' is not
/// defined`, tsc's `Type 'string' is not assignable to type 'number'.`, ruff's `` `os`
/// imported but unused ``, gcc's `unused variable ‘x’ (in function ‘f’)`), three or more in
/// the output and not all about the same names: the message is written with `…` for each
/// name that differs between them (one the same in all stays), and each position carries
/// those names (`5:5 'a4',5:31 'b4': error '…' is not defined
/// (no-undef)` once the positions of one message are joined). Every name stays at its
/// place. False when no message is about several names.
fn name_templates(files: &mut [File]) -> bool {
    // each message (every name a `…`): its findings, the first one's names, and which of
    // them differ in another finding (a name the same everywhere stays in the message)
    type Seen<'a> = (usize, Vec<&'a str>, Vec<bool>);
    let mut counts: HashMap<String, Seen<'_>> = HashMap::new();
    for h in files.iter().flat_map(|f| &f.hits) {
        let Some(spans) = quoted_names(&h.text) else {
            continue;
        };
        let Some((t, _)) = name_template(&h.text, None) else {
            continue;
        };
        let names: Vec<&str> = spans.iter().map(|&(a, b)| &h.text[a..b]).collect();
        let (n, first, vary) = counts
            .entry(t)
            .or_insert_with(|| (0, names.clone(), vec![false; names.len()]));
        *n += 1;
        for (k, name) in names.iter().enumerate() {
            vary[k] |= first[k] != *name;
        }
    }
    let counts: HashMap<String, Vec<bool>> = counts
        .into_iter()
        .filter(|(_, (n, _, vary))| *n >= MIN_NAMED && vary.contains(&true))
        .map(|(t, (_, _, vary))| (t, vary))
        .collect();
    if counts.is_empty() {
        return false;
    }
    for h in files.iter_mut().flat_map(|f| &mut f.hits) {
        let Some((t, _)) = name_template(&h.text, None) else {
            continue;
        };
        let Some(vary) = counts.get(&t) else {
            continue;
        };
        let (Some(pos), Some((t, names))) = (h.line.as_deref(), name_template(&h.text, Some(vary)))
        else {
            continue;
        };
        h.line = Some(format!("{pos} {names}"));
        h.text = t;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Option<String> {
        crate::reduce::structured::feed(Box::<Diagnostics>::default(), text, 1)
            .map(|o| o.lines.join("\n"))
    }

    #[test]
    fn one_message_on_several_lines_is_written_once_with_every_position() {
        let out = run("************* Module app.orders\n\
             app/orders.py:1:0: C0114: Missing module docstring (missing-module-docstring)\n\
             app/orders.py:14:0: C0116: Missing function or method docstring (missing-function-docstring)\n\
             app/orders.py:21:0: C0116: Missing function or method docstring (missing-function-docstring)\n\
             app/orders.py:38:9: W1514: Using open without explicitly specifying an encoding (unspecified-encoding)\n\
             \n\
             -----------------------------------\n\
             Your code has been rated at 5.71/10\n")
        .unwrap();
        assert_eq!(
            out,
            "app/orders.py (4):\n\
             \x20 1:0: C0114: Missing module docstring (missing-module-docstring)\n\
             \x20 14:0,21:0: C0116: Missing function or method docstring (missing-function-docstring)\n\
             \x20 38:9: W1514: Using open without explicitly specifying an encoding (unspecified-encoding)\n\
             Your code has been rated at 5.71/10"
        );
    }

    #[test]
    fn mypy_errors_and_notes_keep_their_lines_and_the_summary() {
        let out = run("app/a.py:22: error: Unsupported operand types for - (\"float\" and \"None\")  [operator]\n\
             app/a.py:22: note: Right operand is of type \"float | None\"\n\
             tests/t.py:5: error: Function is missing a return type annotation  [no-untyped-def]\n\
             tests/t.py:5: note: Use \"-> None\" if function does not return a value\n\
             tests/t.py:10: error: Function is missing a return type annotation  [no-untyped-def]\n\
             tests/t.py:10: note: Use \"-> None\" if function does not return a value\n\
             Found 3 errors in 2 files (checked 3 source files)\n")
        .unwrap();
        assert_eq!(
            out,
            "app/a.py (2):\n\
             \x20 22: error: Unsupported operand types for - (\"float\" and \"None\")  [operator]\n\
             \x20 22: note: Right operand is of type \"float | None\"\n\
             tests/t.py (4):\n\
             \x20 5,10: error: Function is missing a return type annotation  [no-untyped-def]\n\
             \x20 5,10: note: Use \"-> None\" if function does not return a value\n\
             Found 3 errors in 2 files (checked 3 source files)"
        );
    }

    #[test]
    fn source_frames_or_a_single_finding_are_left_to_the_line_rules() {
        let framed = "a.go:3:2: Error return value is not checked (errcheck)\n\
                      \tdefer f.Close()\n\
                      a.go:9:2: ineffectual assignment (ineffassign)\n";
        assert_eq!(run(framed), None);
        assert_eq!(run("a.py:1:1: F401 'os' imported but unused\n"), None);
        assert_eq!(run("Success: no issues found in 2 source files\n"), None);
    }

    #[test]
    fn what_is_not_a_finding_is_kept_in_place() {
        let out = run("checking 2 files\n\
             a.py:1:1: E302 expected 2 blank lines, found 0\n\
             b.py:2:1: E302 expected 2 blank lines, found 0\n\
             2 violations\n")
        .unwrap();
        // (one message in both files: said once, with both places)
        assert_eq!(
            out,
            "checking 2 files\n\
             in 2 files: E302 expected 2 blank lines, found 0\n  a.py:1:1\n  b.py:2:1\n\
             2 violations"
        );
    }

    #[test]
    fn one_message_about_several_names_is_written_once_with_each_name_at_its_place() {
        let out = run("\n/app/src/a.js\n   \
             5:5   error  'a4' is not defined  no-undef\n   \
             5:31  error  'b4' is not defined  no-undef\n   \
             7:1   error  Unexpected var, use let or const instead  no-var\n   \
             9:2   error  Expected '===' and instead saw '=='  eqeqeq\n\n\
             /app/src/b.js\n   \
             2:5   error  'a1' is not defined  no-undef\n   \
             3:9   warning  Don't use 'x' here  no-x\n\n\
             ✖ 6 problems (5 errors, 1 warning)\n")
        .unwrap();
        assert_eq!(
            out,
            "/app/src/a.js (4):\n  \
             5:5 'a4',5:31 'b4': error '…' is not defined (no-undef)\n  \
             7:1: error Unexpected var, use let or const instead (no-var)\n  \
             9:2: error Expected '===' and instead saw '==' (eqeqeq)\n\
             /app/src/b.js (2):\n  \
             2:5 'a1': error '…' is not defined (no-undef)\n  \
             3:9: warning Don't use 'x' here (no-x)\n\
             ✖ 6 problems (5 errors, 1 warning)"
        );
        assert_eq!(
            quoted_names("Cannot find name 'foo'."),
            Some(vec![(17, 22)])
        );
        assert_eq!(quoted_names("`os` imported but unused"), Some(vec![(0, 4)]));
        assert_eq!(quoted_names("‘x’ undeclared"), Some(vec![(0, 7)]));
        assert_eq!(quoted_names("Don't use 'x' here"), Some(vec![(10, 13)]));
        assert_eq!(
            quoted_names("Expected '===' and instead saw '=='"),
            Some(vec![(9, 14), (31, 35)])
        );
        assert_eq!(quoted_names("'a' 'b' 'c' 'd'"), None);
        assert_eq!(quoted_names("no quotes"), None);
    }

    #[test]
    fn a_message_about_two_names_carries_both_at_each_position() {
        let out = run(
            "src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.\n\
             src/a.ts(7,9): error TS2322: Type 'boolean' is not assignable to type 'string'.\n\
             src/a.ts(9,1): error TS2322: Type 'string' is not assignable to type 'number'.\n\
             src/a.ts(12,3): error TS2367: This comparison appears to be unintentional.\n\
             src/a.ts(14,3): error TS2367: Expected '===' and instead saw '=='.\n\
             src/a.ts(15,3): error TS2367: Expected '===' and instead saw '=='.\n\
             src/a.ts(16,3): error TS2367: Expected '===' and instead saw '=='.\n",
        )
        .unwrap();
        assert_eq!(
            out,
            "src/a.ts (7):\n  \
             3:5 'string' 'number',7:9 'boolean' 'string',9:1 'string' 'number': error TS2322: Type '…' is not assignable to type '…'.\n  \
             12:3: error TS2367: This comparison appears to be unintentional.\n  \
             14:3,15:3,16:3: error TS2367: Expected '===' and instead saw '=='."
        );
    }

    #[test]
    fn eslint_stylish_findings_are_grouped_under_their_file() {
        let out = run("\n/app/src/a.js\n   1:1   error    Unexpected var, use let or const instead  no-var\n   \
             4:9   warning  Expected '===' and instead saw '=='     eqeqeq\n   \
             9:1   error    Unexpected var, use let or const instead  no-var\n\n\
             /app/src/b.js\n  2:10  error  Parsing error: Unexpected token\n\n\
             ✖ 4 problems (3 errors, 1 warning)\n  \
             2 errors and 0 warnings potentially fixable with the `--fix` option.\n")
        .unwrap();
        assert_eq!(
            out,
            "/app/src/a.js (3):\n  1:1,9:1: error Unexpected var, use let or const instead (no-var)\n  \
             4:9: warning Expected '===' and instead saw '==' (eqeqeq)\n\
             /app/src/b.js:2:10: error Parsing error: Unexpected token\n\
             ✖ 4 problems (3 errors, 1 warning)\n  \
             2 errors and 0 warnings potentially fixable with the `--fix` option."
        );
        // a file-like line with no finding under it stays where it was
        let out = run("build.log\na.py:1:1: E302 x\nb.py:2:1: E303 y\n").unwrap();
        assert!(out.starts_with("build.log\n"), "{out}");
    }

    #[test]
    fn ruff_full_format_is_a_finding_per_heading_without_its_frames() {
        let out = run("F401 [*] `os` imported but unused\n --> a.py:1:8\n  |\n1 | import os\n  |        ^^\n  |\n\
             help: Remove unused import: `os`\n\n\
             F841 Local variable `x` is assigned to but never used\n  --> a.py:10:5\n   |\n\
             10 |     x = 1\n   |     ^\n   |\nhelp: Remove assignment to unused variable `x`\n\
             note: This is an unsafe fix and may change runtime behavior\n\n\
             F401 [*] `os` imported but unused\n --> b.py:1:8\n  |\n1 | import os\n  |\n\
             help: Remove unused import: `os`\nFound 3 errors.\n")
        .unwrap();
        assert_eq!(
            out,
            "a.py:10:5: F841 Local variable `x` is assigned to but never used; help: Remove \
             assignment to unused variable `x`; note: This is an unsafe fix and may change \
             runtime behavior\n\
             in 2 files: F401 [*] `os` imported but unused; help: Remove unused import: `os`\n  \
             a.py:1:8\n  b.py:1:8\n\
             Found 3 errors."
        );
    }

    #[test]
    fn javac_frames_give_the_column_and_join_symbol_and_location() {
        let out = run("Main.java:2: error: cannot find symbol\n  int f() { return x0; }\n                   ^\n  \
             symbol:   variable x0\n  location: class Main\n\
             Main.java:3: error: incompatible types: int cannot be converted to String\n  \
             String g() { return 1; }\n                      ^\n2 errors\n")
        .unwrap();
        assert_eq!(
            out,
            "Main.java (2):\n  2:20: error: cannot find symbol; symbol: variable x0; location: class Main\n  \
             3:23: error: incompatible types: int cannot be converted to String\n2 errors"
        );
        // a source line without a caret under it is some other format
        assert_eq!(
            run("A.java:2: error: x\n  code\nA.java:3: error: y\n"),
            None
        );
    }

    #[test]
    fn gcc_frames_go_and_the_function_and_labels_stay() {
        let out = run("m.c: In function ‘f0’:\n\
             m.c:2:20: warning: unused variable ‘u0’ [-Wunused-variable]\n    2 | int f0(void) { int u0; return 0; }\n      |                    ^~\n\
             m.c: In function ‘h2’:\n\
             m.c:4:26: warning: format ‘%d’ expects argument of type ‘int’, but argument 2 has type ‘char *’ [-Wformat=]\n    \
             4 | void h2(void) { printf(\"%d\\n\", \"s\"); }\n      |                         ~^     ~~~\n      \
             |                          |     |\n      |                          int   char *\n      |                         %s\n")
        .unwrap();
        assert_eq!(
            out,
            "m.c (2):\n  2:20: warning: unused variable ‘u0’ [-Wunused-variable] (in function ‘f0’)\n  \
             4:26: warning: format ‘%d’ expects argument of type ‘int’, but argument 2 has type \
             ‘char *’ [-Wformat=] (in function ‘h2’); int char *; %s"
        );
    }

    #[test]
    fn positions_need_a_path_and_a_number() {
        assert_eq!(
            split("app/a.py:3:4: x"),
            Some(("app/a.py", "3:4".into(), "x"))
        );
        assert_eq!(
            split("a.py:3: error: x"),
            Some(("a.py", "3".into(), "error: x"))
        );
        assert_eq!(
            split("src/a.ts(12,5): error TS2339: x"),
            Some(("src/a.ts", "12:5".into(), "error TS2339: x"))
        );
        assert_eq!(split("f(a,b): x"), None);
        assert_eq!(split("Error:3: x"), None);
        assert_eq!(split("a b.py:3: x"), None);
        assert_eq!(split("a.py:x:3: x"), None);
        assert_eq!(split("a.py:3:"), None);
    }
}
