//! Search results: `grep -rn`, `rg`, `git grep` (with or without line numbers,
//! context lines, `rg --heading`).
//!
//! Every match is kept, grouped by file: a file with one match stays one line
//! (`src/a.rs:12: text`), and so does a file whose matches are all one text
//! (`src/a.rs:12,40,88: text`); a file with more gets a `path (N):` header and one indented
//! `  line: text` per match (context lines as `  line- text`). A folder holding three or
//! more of the files is written once as a `folder/` line with its files indented under
//! it by name (`  a.rs:12: text`). Leading indentation of
//! matched text goes; a very long line (minified code) is clipped around the match with
//! a marker. `--` separators go (counted). Tool messages (`grep: x: No such file …`,
//! `Binary file … matches`) are kept. A very large result is cut with per-file counts.

use std::collections::HashMap;

use super::{Structured, StructuredOutput};
use crate::normalize::{basename, Normalized};

const MAX_STORED: usize = 20_000;
const MAX_FILES: usize = 5_000;
const MAX_OTHER: usize = 400;
/// Rendered characters after which further files are only counted.
const BUDGET_CHARS: usize = 40_000;
/// Longest matched text shown whole.
const MAX_TEXT: usize = 300;
/// Characters kept around the match in a clipped line.
const WINDOW: usize = 120;
const MAX_PENDING: usize = 64;

#[derive(Debug, Clone)]
pub(super) struct Hit {
    pub(super) line: Option<String>,
    pub(super) context: bool,
    pub(super) text: String,
}

/// One file's hits, in the order seen.
#[derive(Debug, Default, Clone)]
pub(super) struct File {
    pub(super) path: String,
    pub(super) hits: Vec<Hit>,
    pub(super) matches: u64,
    pub(super) context: u64,
}

pub struct Search {
    tool: String,
    files: Vec<File>,
    index: HashMap<String, usize>,
    around: Around,
    matches: u64,
    stored: usize,
    unfiled: u64,
    separators: u64,
    /// `rg --heading` style: the current file.
    heading: Option<String>,
    prev_blank: bool,
    /// Lines that may be context lines of a file not seen yet (`path-12-text`).
    pending: Vec<String>,
    pattern: Option<regex::Regex>,
    with_filename: bool,
    /// Line numbers were asked for (`-n`): every match line has one.
    numbered: bool,
    /// `grep -c` over several files (`path:count` lines): a listing of them, grouped by
    /// directory, every file with its count.
    counts: Option<Box<super::listing::Listing>>,
}

/// What the argv says about the search: the pattern, and whether file names are printed.
fn inspect(norm: &Normalized) -> (String, Option<String>, bool, bool, bool, bool) {
    let argv = &norm.argv;
    let a0 = argv.first().map_or("", |a| basename(a)).to_string();
    let is_git = a0 == "git";
    let args: Vec<&str> = argv
        .iter()
        .skip(if is_git { 2 } else { 1 })
        .map(String::as_str)
        .collect();
    let takes_value = crate::normalize::SEARCH_VALUE_OPTIONS;
    let mut pattern: Option<String> = None;
    let mut operands: Vec<&str> = Vec::new();
    let mut recursive = a0 == "rg" || is_git || a0 == "ag" || a0 == "ack";
    let mut force_name = None;
    let mut ignore_case = false;
    let mut numbered = false;
    let mut counting = false;
    // `-c`: one `path:count` line per file
    let mut counts = false;
    let mut i = 0;
    let mut only_operands = false;
    while i < args.len() {
        let a = args[i];
        if only_operands {
            operands.push(a);
        } else if a == "--" {
            only_operands = true;
        } else if a == "-e" || a == "--regexp" {
            if pattern.is_none() {
                pattern = args.get(i + 1).map(|s| (*s).to_string());
            }
            i += 1;
        } else if let Some(p) = a.strip_prefix("--regexp=") {
            pattern.get_or_insert_with(|| p.to_string());
        } else if a == "-E" && a0 != "rg" {
            // grep -E takes no value
        } else if takes_value.contains(&a) && !(a == "-E" && a0 != "rg") {
            i += 1;
        } else if a.starts_with("--") {
            match a {
                "--recursive" | "--dereference-recursive" => recursive = true,
                "--with-filename" => force_name = Some(true),
                "--no-filename" => force_name = Some(false),
                "--ignore-case" => ignore_case = true,
                "--line-number" | "--vimgrep" => numbered = true,
                // `rg --json`: JSON lines, `--null`: NUL after names; not path:line:text
                "--count" | "--count-matches" => (counting, counts) = (true, true),
                "--json" | "--null" => counting = true,
                "--no-line-number" => numbered = false,
                _ => {}
            }
        } else if a.starts_with('-') && a.len() > 1 {
            let flags = &a[1..];
            if flags.contains('r') || flags.contains('R') {
                recursive = a0 != "rg" || recursive;
            }
            if flags.contains('H') {
                force_name = Some(true);
            }
            if flags.contains('h') && a0 != "rg" {
                force_name = Some(false);
            }
            if flags.contains('I') && a0 == "rg" {
                force_name = Some(false);
            }
            if flags.contains('i') {
                ignore_case = true;
            }
            if flags.contains('n') {
                numbered = true;
            }
            if flags.contains('c') {
                (counting, counts) = (true, true);
            }
            if flags.contains('N') && a0 == "rg" {
                numbered = false;
            }
        } else {
            operands.push(a);
        }
        i += 1;
    }
    if pattern.is_none() && !operands.is_empty() {
        pattern = Some(operands.remove(0).to_string());
    }
    let with_filename = force_name.unwrap_or(if is_git {
        true
    } else if a0 == "rg" || a0 == "ag" || a0 == "ack" {
        // a single file operand prints no file name
        !(operands.len() == 1 && !operands[0].ends_with('/') && operands[0].contains('.'))
    } else {
        // a glob the shell expands (`rules/*/*.json`) names several files
        recursive || operands.len() > 1 || operands.iter().any(|o| o.contains(['*', '?', '[']))
    });
    // `grep -c` prints `path:count` lines: no matches to group (a listing when there are
    // file names)
    (
        a0,
        pattern,
        with_filename && !counting,
        ignore_case,
        numbered,
        with_filename && counts,
    )
}

/// `grep -l`, `rg -l`, `git grep -l` and friends print file names only: a listing.
pub fn lists_files(norm: &Normalized) -> bool {
    norm.argv.iter().skip(1).any(|a| {
        matches!(
            a.as_str(),
            "--files-with-matches" | "--files-without-match" | "--name-only" | "--files"
        ) || (a.starts_with('-')
            && !a.starts_with("--")
            && (a.contains('l') || a.contains('L'))
            && a.len() <= 6)
    })
}

impl Search {
    pub fn new(norm: &Normalized) -> Self {
        let (tool, pattern, with_filename, ignore_case, numbered, counts) = inspect(norm);
        let pattern = pattern.and_then(|p| {
            regex::RegexBuilder::new(&p)
                .case_insensitive(ignore_case)
                .size_limit(1 << 20)
                .build()
                .or_else(|_| {
                    regex::RegexBuilder::new(&regex::escape(&p))
                        .case_insensitive(ignore_case)
                        .build()
                })
                .ok()
        });
        Search {
            tool,
            files: Vec::new(),
            index: HashMap::new(),
            around: Around::default(),
            matches: 0,
            stored: 0,
            unfiled: 0,
            separators: 0,
            heading: None,
            prev_blank: true,
            pending: Vec::new(),
            pattern,
            with_filename,
            numbered,
            counts: counts.then(|| Box::new(super::listing::Listing::counted(norm))),
        }
    }

    fn is_message(&self, t: &str) -> bool {
        let lower = t.to_ascii_lowercase();
        // ripgrep prints `path: No such file or directory (os error 2)` without its name
        (t.ends_with(')') && t.contains(" (os error "))
            || lower.starts_with("binary file ")
            || lower.starts_with("fatal:")
            || lower.starts_with("error:")
            || lower.starts_with("warning:")
            || lower.starts_with("usage:")
            || [
                "grep",
                "egrep",
                "fgrep",
                "rg",
                "git",
                "ag",
                "ack",
                self.tool.as_str(),
            ]
            .iter()
            .any(|tool| {
                t.strip_prefix(tool)
                    .is_some_and(|r| r.starts_with(": ") || r.starts_with(":\t"))
            })
    }

    fn other(&mut self, line: &str) {
        self.around.push(line, self.matches > 0);
    }

    fn file(&mut self, path: &str) -> Option<usize> {
        if let Some(&i) = self.index.get(path) {
            return Some(i);
        }
        if self.files.len() >= MAX_FILES {
            return None;
        }
        self.files.push(File {
            path: path.to_string(),
            ..File::default()
        });
        self.index.insert(path.to_string(), self.files.len() - 1);
        Some(self.files.len() - 1)
    }

    fn hit(&mut self, path: &str, line: Option<&str>, context: bool, text: &str) {
        if !context {
            self.matches += 1;
        }
        let Some(fi) = self.file(path) else {
            self.unfiled += 1;
            return;
        };
        let text = self.clip(text.trim_start());
        let f = &mut self.files[fi];
        if context {
            f.context += 1;
        } else {
            f.matches += 1;
        }
        if self.stored < MAX_STORED {
            self.stored += 1;
            f.hits.push(Hit {
                line: line.map(str::to_string),
                context,
                text,
            });
        }
    }

    /// Clip a long line around the (first) match.
    fn clip(&self, text: &str) -> String {
        let n = text.chars().count();
        if n <= MAX_TEXT {
            return text.to_string();
        }
        let (ms, me) = self
            .pattern
            .as_ref()
            .and_then(|re| re.find(text))
            .map_or((0, 0), |m| (m.start(), m.end()));
        let start = floor(text, ms.saturating_sub(WINDOW));
        let end = floor(text, (me + WINDOW).min(text.len()));
        let end = if end <= start {
            floor(text, (start + 2 * WINDOW).min(text.len()))
        } else {
            end
        };
        let before = text[..start].chars().count();
        let after = text[end..].chars().count();
        let mut out = String::new();
        if before > 0 {
            out.push_str(&format!("…[{before} chars clipped]…"));
        }
        out.push_str(&text[start..end]);
        if after > 0 {
            out.push_str(&format!("…[{after} chars clipped]…"));
        }
        out
    }

    /// `path:12:text`, `path-12-text`, `path:text`; None when the line has no such prefix.
    fn split<'a>(&self, t: &'a str) -> Option<(&'a str, Option<&'a str>, bool, &'a str)> {
        // path:NUM:text
        let mut from = 0;
        while let Some(k) = t[from..].find(':').map(|k| k + from) {
            let rest = &t[k + 1..];
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            if k > 0 && digits > 0 && rest.as_bytes().get(digits) == Some(&b':') {
                return Some((&t[..k], Some(&rest[..digits]), false, &rest[digits + 1..]));
            }
            from = k + 1;
            if from > 4096 {
                break;
            }
        }
        // path-NUM-text for a known file (context line)
        let mut from = 0;
        while let Some(k) = t[from..].find('-').map(|k| k + from) {
            let rest = &t[k + 1..];
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            if k > 0
                && digits > 0
                && rest.as_bytes().get(digits) == Some(&b'-')
                && self.index.contains_key(&t[..k])
            {
                return Some((&t[..k], Some(&rest[..digits]), true, &rest[digits + 1..]));
            }
            from = k + 1;
            if from > 4096 {
                break;
            }
        }
        // path:text (no line numbers)
        if self.numbered {
            return None;
        }
        if let Some(k) = t.find(':') {
            if k > 0 && !t[..k].contains("  ") {
                return Some((&t[..k], None, false, &t[k + 1..]));
            }
        }
        None
    }

    fn push_line(&mut self, line: &str) {
        let t = line.trim_end();
        if t.is_empty() {
            self.heading = None;
            return;
        }
        if t == "--" {
            self.separators += 1;
            return;
        }
        if self.is_message(t) {
            return self.other(t);
        }
        // rg --heading: a path line, then `12:text` lines
        if let Some(h) = self.heading.clone() {
            if let Some((num, ctx, text)) = numbered(t) {
                if self.pending.last() == Some(&h) {
                    self.pending.pop();
                }
                return self.hit(&h, Some(num), ctx, text);
            }
        }
        if self.with_filename {
            if let Some((path, num, ctx, text)) = self.split(t) {
                let (path, num, text) =
                    (path.to_string(), num.map(str::to_string), text.to_string());
                if !ctx && !self.pending.is_empty() {
                    self.flush_pending(Some(&path));
                }
                return self.hit(&path, num.as_deref(), ctx, &text);
            }
            // a context line of a file not seen yet (`path-12-text`): held until its file shows up
            let maybe_context = has_dash_number(t);
            if maybe_context && self.pending.len() < MAX_PENDING {
                self.pending.push(t.to_string());
            }
            if self.prev_blank || self.matches == 0 {
                // maybe a heading (`rg --heading`)
                self.heading = Some(t.to_string());
                if !maybe_context {
                    self.pending.push(t.to_string());
                }
                return;
            }
            if maybe_context {
                return;
            }
        }
        self.other(t);
    }

    /// Lines held back as possible context of `path`: assign them, or keep them as they are.
    fn flush_pending(&mut self, path: Option<&str>) {
        let pending = std::mem::take(&mut self.pending);
        for p in pending {
            let assigned = path.and_then(|path| {
                let rest = p.strip_prefix(path)?.strip_prefix('-')?;
                let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
                (digits > 0 && rest.as_bytes().get(digits) == Some(&b'-'))
                    .then(|| (rest[..digits].to_string(), rest[digits + 1..].to_string()))
            });
            match (assigned, path) {
                (Some((num, text)), Some(path)) => self.hit(path, Some(&num), true, &text),
                _ => self.other(&p),
            }
        }
    }

    fn render(mut self) -> (Vec<String>, u64) {
        let around = std::mem::take(&mut self.around);
        around.wrap(|out| {
            let mut omitted = render_results(&self.files, out);
            if self.unfiled > 0 {
                omitted += self.unfiled;
                out.push(format!(
                    "… {} matches in further files not shown",
                    self.unfiled
                ));
            }
            omitted
        })
    }
}

/// The lines of a result listing that are not results (tool messages, summaries), kept
/// where they came: before the first result or after it. Past `MAX_OTHER` on a side they
/// are only counted.
#[derive(Debug, Default)]
pub(super) struct Around {
    before: Vec<String>,
    after: Vec<String>,
    dropped: u64,
}

impl Around {
    /// A line that is not a result; `after` once a result was seen.
    pub(super) fn push(&mut self, line: &str, after: bool) {
        let side = if after {
            &mut self.after
        } else {
            &mut self.before
        };
        if side.len() < MAX_OTHER {
            side.push(crate::reduce::text::clip_line(line, 2000).into_owned());
        } else {
            self.dropped += 1;
        }
    }

    /// Lines kept after the first result.
    pub(super) fn after_any(&self) -> bool {
        !self.after.is_empty()
    }

    /// The lines before, then what `body` writes (returning what it left out), then the
    /// lines after; returns them and everything left out.
    pub(super) fn wrap(mut self, body: impl FnOnce(&mut Vec<String>) -> u64) -> (Vec<String>, u64) {
        let mut out = std::mem::take(&mut self.before);
        let mut omitted = body(&mut out);
        out.append(&mut self.after);
        if self.dropped > 0 {
            omitted += self.dropped;
            out.push(format!("… {} more message lines not shown", self.dropped));
        }
        (out, omitted)
    }
}

/// Every file's hits, appended to `out`; returns the hits not shown (past the budget).
/// Files that share their folder with another file are written under one `folder/`
/// line by their names: the folder is said once, every path stays whole when read
/// as folder + name. Files come in the order their folder was first seen.
pub(super) fn render_files(files: &[File], out: &mut Vec<String>) -> u64 {
    render_files_from(files, out, &mut 0)
}

/// Shortest hit text said once for several files (shorter ones cost about what they save).
const SHARED_MIN_CHARS: usize = 20;

/// Hit texts found in two files or more (each at least [`SHARED_MIN_CHARS`] long, and
/// saving more characters than the header and the file names said twice cost), to be said
/// once with every place they are at: the files' other hits, and each such text with its
/// places (files holding only its hits, the text left empty), in the order first seen.
/// `None` when there is no such text, or not every hit is a numbered match line that was
/// kept (context lines shown, hits dropped for memory).
#[allow(clippy::type_complexity)]
fn shared_texts(files: &[File]) -> Option<(Vec<File>, Vec<(String, Vec<File>)>)> {
    let plain = files.iter().all(|f| {
        f.context == 0
            && f.hits.len() as u64 == f.matches
            && f.hits.iter().all(|h| h.line.is_some() && !h.context)
    });
    if !plain {
        return None;
    }
    // per text: the files it is in, and the characters its places add (a file that keeps
    // other hits is named twice)
    let mut in_files: HashMap<&str, (usize, usize)> = HashMap::new();
    for f in files {
        let mut seen = std::collections::HashSet::new();
        for h in &f.hits {
            if h.text.chars().count() >= SHARED_MIN_CHARS && seen.insert(h.text.as_str()) {
                let others = f.hits.iter().any(|o| o.text != h.text);
                let e = in_files.entry(h.text.as_str()).or_default();
                e.0 += 1;
                e.1 += if others { f.path.len() } else { 0 };
            }
        }
    }
    // said once when the text saved outweighs the header and the names said twice
    let is_shared = |t: &str| {
        in_files
            .get(t)
            .is_some_and(|&(n, named)| n >= 2 && (n - 1) * t.len() > 12 + named)
    };
    if !files
        .iter()
        .any(|f| f.hits.iter().any(|h| is_shared(&h.text)))
    {
        return None;
    }
    let mut shared: Vec<(String, Vec<File>)> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::new();
    let mut rest = Vec::new();
    for f in files {
        let mut own = File {
            path: f.path.clone(),
            ..File::default()
        };
        for h in &f.hits {
            if !is_shared(&h.text) {
                own.hits.push(h.clone());
                own.matches += 1;
                continue;
            }
            let k = *at.entry(h.text.as_str()).or_insert_with(|| {
                shared.push((h.text.clone(), Vec::new()));
                shared.len() - 1
            });
            let places = &mut shared[k].1;
            if places.last().is_none_or(|p| p.path != f.path) {
                places.push(File {
                    path: f.path.clone(),
                    ..File::default()
                });
            }
            let p = places.last_mut().expect("pushed");
            p.hits.push(Hit {
                text: String::new(),
                ..h.clone()
            });
            p.matches += 1;
        }
        if own.matches > 0 {
            rest.push(own);
        }
    }
    Some((rest, shared))
}

/// Results by file ([`render_files`]), or, when that reads fewer tokens, with each text
/// found in several files said once with its places ([`shared_texts`]); returns the hits
/// not shown.
pub(super) fn render_results(files: &[File], out: &mut Vec<String>) -> u64 {
    let Some((rest, shared)) = shared_texts(files) else {
        return render_files(files, out);
    };
    let mut by_file = Vec::new();
    let plain = render_files(files, &mut by_file);
    let mut by_text = Vec::new();
    let grouped = render_shared(&rest, &shared, &mut by_text);
    let tokens = |l: &[String]| crate::tokens::estimate(&l.join("\n"));
    if tokens(&by_text) < tokens(&by_file) {
        out.extend(by_text);
        grouped
    } else {
        out.extend(by_file);
        plain
    }
}

/// The files' other hits by file, then each shared text once with its places (see
/// [`shared_texts`]); returns the hits not shown.
fn render_shared(rest: &[File], shared: &[(String, Vec<File>)], out: &mut Vec<String>) -> u64 {
    let mut used = 0;
    let mut omitted = render_files_from(rest, out, &mut used);
    for (text, places) in shared {
        if used > BUDGET_CHARS {
            omitted += places.iter().map(|f| f.matches).sum::<u64>();
            continue;
        }
        let head = format!("in {} files: {text}", places.len());
        used += head.len() + 1;
        out.push(head);
        let mut lines = Vec::new();
        omitted += render_files_from(places, &mut lines, &mut used);
        // each place is `name:12,40:` (its text is the one above)
        out.extend(lines.into_iter().map(|l| {
            let l = l.strip_suffix(':').unwrap_or(&l).to_string();
            format!("  {l}")
        }));
    }
    omitted
}

/// [`render_files`], adding to `used` (characters written so far, against the budget).
fn render_files_from(files: &[File], out: &mut Vec<String>, used: &mut usize) -> u64 {
    let mut omitted = 0u64;
    let mut counted_only = 0u64;
    let mut folders: Vec<(&str, Vec<usize>)> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::new();
    for (i, f) in files.iter().enumerate() {
        let dir = f.path.rfind('/').map_or("", |k| &f.path[..=k]);
        match at.get(dir) {
            Some(&k) => folders[k].1.push(i),
            None => {
                at.insert(dir, folders.len());
                folders.push((dir, vec![i]));
            }
        }
    }
    for (dir, members) in &folders {
        // three files or more: the folder line then costs fewer tokens than it saves
        // (deeper indentation costs none: a run of spaces is one token)
        let grouped = !dir.is_empty() && members.len() >= 3 && *used <= BUDGET_CHARS;
        if grouped {
            *used += dir.len() + 1;
            out.push(dir.to_string());
        }
        let (cut, ind) = if grouped { (dir.len(), "  ") } else { (0, "") };
        for &i in members {
            let f = &files[i];
            let name = &f.path[cut..];
            if *used > BUDGET_CHARS {
                omitted += f.matches + f.context;
                if counted_only < 2000 {
                    out.push(format!(
                        "{ind}{name}: {} {} not shown",
                        f.matches,
                        if f.matches == 1 { "match" } else { "matches" }
                    ));
                }
                counted_only += 1;
                continue;
            }
            omitted += render_file(f, name, ind, out, used);
        }
    }
    if counted_only > 2000 {
        out.push(format!("… {} more files not shown", counted_only - 2000));
    }
    omitted
}

/// Without context lines, a file's hits by text, each with all its line numbers, in the
/// order first seen; `None` when context lines are shown or a hit has no line number.
fn by_text(f: &File) -> Option<Vec<(Vec<&str>, &Hit)>> {
    if f.context > 0 || !f.hits.iter().all(|h| h.line.is_some() && !h.context) {
        return None;
    }
    let mut groups: Vec<(Vec<&str>, &Hit)> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::new();
    for h in &f.hits {
        let n = h.line.as_deref().unwrap_or("");
        match at.get(h.text.as_str()) {
            Some(&i) => groups[i].0.push(n),
            None => {
                at.insert(h.text.as_str(), groups.len());
                groups.push((vec![n], h));
            }
        }
    }
    Some(groups)
}

/// One file's hits, as `name`, each line indented by `ind`; returns the hits not shown.
/// One hit stays one line (`name:12: text`); one text on several lines, and nothing else,
/// is one line too (`name:12,40,88: text`); otherwise a `name (N):` header and one
/// indented line per hit, where a text on several lines is printed once with all its
/// line numbers (`  12,40,88: text`) unless context lines are shown.
fn render_file(f: &File, name: &str, ind: &str, out: &mut Vec<String>, used: &mut usize) -> u64 {
    let mut push = |line: String, used: &mut usize| {
        let line = line.trim_end().to_string();
        *used += line.len() + 1;
        out.push(line);
    };
    if f.hits.len() == 1 && f.matches + f.context == 1 {
        let h = &f.hits[0];
        match &h.line {
            Some(n) => push(format!("{ind}{name}:{n}: {}", h.text), used),
            None => push(format!("{ind}{name}: {}", h.text), used),
        }
        return 0;
    }
    let groups = by_text(f);
    let merge = groups.is_some();
    let groups = groups.unwrap_or_default();
    let total = f.matches + f.context;
    if merge && groups.len() == 1 && f.hits.len() as u64 == total {
        let (lines, h) = &groups[0];
        push(format!("{ind}{name}:{}: {}", lines.join(","), h.text), used);
        return 0;
    }
    let count = if f.context > 0 {
        format!(
            "{} {}",
            f.matches,
            if f.matches == 1 { "match" } else { "matches" }
        )
    } else {
        f.matches.to_string()
    };
    push(format!("{ind}{name} ({count}):"), used);
    let mut shown = 0u64;
    if merge && groups.len() < f.hits.len() {
        for (lines, h) in &groups {
            if *used > BUDGET_CHARS {
                break;
            }
            push(format!("{ind}  {}: {}", lines.join(","), h.text), used);
            shown += lines.len() as u64;
        }
    } else {
        for h in &f.hits {
            if *used > BUDGET_CHARS {
                break;
            }
            let sep = if h.context { '-' } else { ':' };
            let line = match &h.line {
                Some(n) => format!("{ind}  {n}{sep} {}", h.text),
                None if h.context => format!("{ind}  - {}", h.text),
                None => format!("{ind}  {}", h.text),
            };
            push(line, used);
            shown += 1;
        }
    }
    let rest = total - shown;
    if rest > 0 {
        out.push(format!("{ind}  … +{rest} more lines not shown"));
    }
    rest
}

/// Holds `-NUM-` somewhere after its start (a context line `path-12-text`).
fn has_dash_number(t: &str) -> bool {
    let b = t.as_bytes();
    let mut i = 1;
    while i < b.len() {
        if b[i] == b'-' {
            let d = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
            if d > 0 && b.get(i + 1 + d) == Some(&b'-') {
                return true;
            }
        }
        i += 1;
    }
    false
}

/// `12:text` / `12-text` (rg --heading body lines).
fn numbered(t: &str) -> Option<(&str, bool, &str)> {
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    match t.as_bytes().get(digits) {
        Some(b':') => Some((&t[..digits], false, &t[digits + 1..])),
        Some(b'-') => Some((&t[..digits], true, &t[digits + 1..])),
        _ => None,
    }
}

fn floor(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

impl Structured for Search {
    fn push(&mut self, line: &str) {
        if let Some(l) = &mut self.counts {
            if let Some(n) = line
                .trim_end()
                .rsplit_once(':')
                .and_then(|(_, n)| n.parse::<u64>().ok())
            {
                self.matches += n;
            }
            return l.push(line);
        }
        let blank = line.trim().is_empty();
        self.push_line(line);
        self.prev_blank = blank;
    }

    fn finish(mut self: Box<Self>, exit_code: i32) -> Option<StructuredOutput> {
        if let Some(l) = self.counts {
            // the listing counts files; the matches are the counts' sum
            let mut out = l.finish(exit_code)?;
            for (name, _) in out.facts.iter_mut().filter(|(n, _)| n == "path") {
                *name = "file".into();
            }
            out.facts.push(("match".into(), self.matches));
            return Some(out);
        }
        if !self.pending.is_empty() {
            self.flush_pending(None);
        }
        if self.matches == 0 || !self.with_filename {
            return None;
        }
        let matches = self.matches;
        let files = self.files.len() as u64;
        let separators = self.separators;
        let (lines, omitted) = self.render();
        Some(StructuredOutput {
            name: "search",
            lines,
            facts: vec![("match".into(), matches), ("file".into(), files)],
            omitted,
            filtered: separators,
            facts_line: true,
            json_cut: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::normalize;

    fn run(cmd: &str, text: &str) -> Option<StructuredOutput> {
        let norm = normalize(Some(cmd), None);
        crate::reduce::structured::feed(Box::new(Search::new(&norm)), text, 0)
    }

    #[test]
    fn groups_matches_by_file() {
        let out = run(
            "grep -rn TODO src",
            "src/a.ts:3:// TODO: one\nsrc/a.ts:10:    // TODO: two\nsrc/b.ts:1:TODO three\n",
        )
        .unwrap();
        let t = out.lines.join("\n");
        assert_eq!(
            t,
            "src/a.ts (2):\n  3: // TODO: one\n  10: // TODO: two\nsrc/b.ts:1: TODO three"
        );
        assert_eq!(out.facts[0], ("match".to_string(), 3));
        assert_eq!(out.facts[1], ("file".to_string(), 2));
    }

    #[test]
    fn the_same_hit_text_on_many_lines_is_printed_once_with_every_line_number() {
        let mut text = String::new();
        for n in [3, 17, 40, 88] {
            text.push_str(&format!("src/a.rs:{n}:    use crate::error::Result;\n"));
        }
        text.push_str("src/a.rs:90:    let r: Result<()> = run();\n");
        text.push_str("src/b.rs:1:use crate::error::Result;\n");
        let out = run("grep -rn Result src", &text).unwrap();
        // the text is in two files too: said once, with every place
        assert_eq!(
            out.lines.join("\n"),
            "src/a.rs:90: let r: Result<()> = run();\nin 2 files: use crate::error::Result;\n  src/a.rs:3,17,40,88\n  src/b.rs:1"
        );
        assert_eq!(out.facts[0], ("match".to_string(), 6));
        assert_eq!(out.omitted, 0);
        // in one file only, or short: by file as before
        let one = run(
            "grep -rn Result src",
            &text.replace("src/b.rs:1:use crate::error::Result;\n", ""),
        )
        .unwrap();
        assert_eq!(
            one.lines.join("\n"),
            "src/a.rs (5):\n  3,17,40,88: use crate::error::Result;\n  90: let r: Result<()> = run();"
        );
        let short = run(
            "grep -rn x src",
            "src/a.rs:1:let x = 1;\nsrc/b.rs:2:let x = 1;\n",
        )
        .unwrap();
        assert_eq!(
            short.lines.join("\n"),
            "src/a.rs:1: let x = 1;\nsrc/b.rs:2: let x = 1;"
        );
    }

    #[test]
    fn a_text_found_in_many_files_is_said_once_with_every_place() {
        let mut text = String::new();
        for f in ["a", "b", "c", "d"] {
            text.push_str(&format!(
                "src/structured/{f}.rs:10:    fn finish(self: Box<Self>) -> Option<Output> {{\n"
            ));
            text.push_str(&format!(
                "src/structured/{f}.rs:20:    fn push_{f}(&mut self) {{\n"
            ));
        }
        text.push_str("src/lib.rs:5:fn finish(self: Box<Self>) -> Option<Output> {\n");
        let out = run("grep -rn fn src", &text).unwrap();
        assert_eq!(
            out.lines.join("\n"),
            "src/structured/\n  a.rs:20: fn push_a(&mut self) {\n  b.rs:20: fn push_b(&mut self) {\n  c.rs:20: fn push_c(&mut self) {\n  d.rs:20: fn push_d(&mut self) {\nin 5 files: fn finish(self: Box<Self>) -> Option<Output> {\n  src/structured/\n    a.rs:10\n    b.rs:10\n    c.rs:10\n    d.rs:10\n  src/lib.rs:5"
        );
        assert_eq!(out.facts[0], ("match".to_string(), 9));
        assert_eq!(out.omitted, 0);
        // with context lines shown, by file as before (the same two hits without them are
        // said once)
        let plain = run(
            "grep -rn fn src",
            "src/a.rs:10:fn finish(self: Box<Self>) -> Option<Output> {\nsrc/b.rs:10:fn finish(self: Box<Self>) -> Option<Output> {\n",
        )
        .unwrap();
        assert!(
            plain.lines.join("\n").contains("in 2 files"),
            "{:?}",
            plain.lines
        );
        let ctx = run(
            "grep -rn -C1 fn src",
            "src/a.rs-9-// one\nsrc/a.rs:10:fn finish(self: Box<Self>) -> Option<Output> {\n--\nsrc/b.rs-9-// two\nsrc/b.rs:10:fn finish(self: Box<Self>) -> Option<Output> {\n",
        )
        .unwrap();
        assert!(
            !ctx.lines.join("\n").contains("in 2 files"),
            "{:?}",
            ctx.lines
        );
    }

    #[test]
    fn a_folder_of_three_files_or_more_is_written_once() {
        let text = "src/api/a.ts:3:TODO x\nsrc/api/b.ts:9:TODO y\nsrc/api/b.ts:12:TODO y\n\
                    lib/one.ts:1:TODO z\nsrc/api/c.ts:4:TODO w\nsrc/api/c.ts:5:TODO v\n\
                    lib/two.ts:2:TODO u\n";
        let out = run("grep -rn TODO .", text).unwrap();
        assert_eq!(
            out.lines.join("\n"),
            "src/api/\n  a.ts:3: TODO x\n  b.ts:9,12: TODO y\n  c.ts (2):\n    4: TODO w\n    5: TODO v\n\
             lib/one.ts:1: TODO z\nlib/two.ts:2: TODO u"
        );
        assert_eq!(out.facts[0], ("match".to_string(), 7));
        assert_eq!(out.omitted, 0);
    }

    #[test]
    fn context_lines_and_separators() {
        let text = "src/a.ts-2-before\nsrc/a.ts:3:TODO x\nsrc/a.ts-4-after\n--\nsrc/b.ts-9-ctx\nsrc/b.ts:10:TODO y\n";
        let out = run("grep -rn -C1 TODO src", text).unwrap();
        let t = out.lines.join("\n");
        assert!(
            t.contains("src/a.ts (1 match):\n  2- before\n  3: TODO x\n  4- after"),
            "{t}"
        );
        assert!(
            t.contains("src/b.ts (1 match):\n  9- ctx\n  10: TODO y"),
            "{t}"
        );
        assert_eq!(out.filtered, 1);
    }

    #[test]
    fn rg_heading_form() {
        let text = "src/a.ts\n3:TODO x\n7:TODO y\n\nsrc/b.ts\n1:TODO z\n";
        let out = run("rg -n --heading TODO", text).unwrap();
        let t = out.lines.join("\n");
        assert!(t.contains("src/a.ts (2):\n  3: TODO x\n  7: TODO y"), "{t}");
        assert!(t.contains("src/b.ts:1: TODO z"), "{t}");
    }

    #[test]
    fn clips_long_lines_around_the_match() {
        let long = format!("{}TODO: here{}", "a".repeat(5000), "b".repeat(5000));
        let text = format!("dist/app.js:1:{long}\nsrc/x.ts:2:TODO ok\n");
        let out = run("grep -rn TODO .", &text).unwrap();
        let t = out.lines.join("\n");
        assert!(t.contains("TODO: here"), "{t}");
        assert!(t.contains("chars clipped]"), "{t}");
        assert!(t.len() < 600, "{t}");
    }

    #[test]
    fn keeps_messages() {
        let out = run(
            "grep -rn TODO src nope",
            "src/a.ts:3:TODO\ngrep: nope: No such file or directory\n",
        )
        .unwrap();
        let t = out.lines.join("\n");
        assert!(t.contains("grep: nope: No such file or directory"), "{t}");
    }

    #[test]
    fn counts_per_file_read_as_a_listing_with_every_count() {
        let text: String = (0..30)
            .map(|i| format!("src/mod{}/file{i}.rs:{}\n", i % 2, i % 4))
            .collect();
        let out = run("grep -rc TODO src", &text).unwrap();
        let t = out.lines.join("\n");
        // the extension every file has is said once, each count stays after its name
        let words: Vec<&str> = t.split_whitespace().collect();
        for i in 0..30 {
            assert!(
                words.contains(&format!("file{i}:{}", i % 4).as_str()),
                "{i}: {t}"
            );
        }
        assert!(t.contains("src/mod0/ (15, all *.rs): "), "{t}");
        assert!(t.contains("src/mod1/ (15, all *.rs): "), "{t}");
        assert_eq!(out.omitted, 0);
        // files and the sum of the counts, not one match per line
        assert!(out.facts.contains(&("file".into(), 30)), "{:?}", out.facts);
        assert!(out.facts.contains(&("match".into(), 43)), "{:?}", out.facts);
        // a glob the shell expands names several files too
        assert!(run("grep -c TODO src/*.rs", &text).is_some());
        assert!(run("grep -c TODO src/a.rs", "3\n").is_none());
        // names of different extensions keep theirs
        let mixed = "src/a.rs:1\nsrc/b.py:2\nsrc/c.rs:3\nsrc/d.go:4\nsrc/e.rs:0\n";
        let t = run("grep -rc TODO src", mixed).unwrap().lines.join("\n");
        assert!(t.contains("a.rs:1 b.py:2 c.rs:3 d.go:4 e.rs:0"), "{t}");
    }

    #[test]
    fn single_file_search_is_not_grouped() {
        assert!(run("grep -n TODO src/a.ts", "3:TODO x\n").is_none());
        assert!(run(
            "rg --json TODO",
            "{\"type\":\"begin\",\"data\":{\"path\":{\"text\":\"a.ts\"}}}\n"
        )
        .is_none());
        assert!(run(
            "grep -rn TODO src",
            "grep: src: No such file or directory\n"
        )
        .is_none());
    }
}
