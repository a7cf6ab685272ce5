//! The compaction pipeline: plan (normalize, classify, compile the winning rule),
//! then stream bytes through a [`Session`] and finish into a [`CompactResult`].

use crate::budget::Whole;
use crate::classify::{self, Choice, RuleRef, FALLBACK_ID};
use crate::normalize::{normalize, Normalized};
use crate::reduce::engine::{EngineOptions, LineEngine, Seen};
use crate::reduce::render::{pluralize, render_track, Body};
use crate::reduce::structured::{self, Structured, StructuredOutput};
use crate::reduce::text::count_chars;
use crate::result::{
    has_kind, structured_kind, Classification, CompactResult, Compaction, Kind, Stats, Trace,
    TraceCandidate, TraceLines,
};
use crate::rules::builtin;
use crate::rules::compiled::CompiledRule;
use crate::rules::loader::{FileRule, Layer};
use crate::rules::model::Rule;
use crate::tokens;

/// Passes over the lines a line rule shows, in order, each saying once what many lines
/// repeat: a long folder (a build tool's absolute paths), the date a log stamps on every
/// line, the class Gradle names each test with, a run of lines said again (Maven's errors
/// under the failed goal: a pointer above), an ending many lines share (an access log's
/// user agent), the words every line starts with (valgrind's process id; where no pass
/// before it wrote a note). Each returns None when it finds nothing worth saying once.
type LinesPass = fn(&[String]) -> Option<Vec<String>>;
const SAID_ONCE: [LinesPass; 6] = [
    crate::reduce::paths::factor_folder,
    crate::reduce::dates::factor_date,
    crate::reduce::events::group_test_events,
    crate::reduce::again::point_to_repeats,
    crate::reduce::suffix::factor_suffix,
    crate::reduce::leading::factor_beginning,
];

/// What to compact and how.
#[derive(Debug, Clone, Default)]
pub struct Request<'a> {
    /// The host's tool name (`exec` for the CLI).
    pub tool_name: &'a str,
    pub command: Option<&'a str>,
    pub argv: Option<&'a [String]>,
    /// Force a rule by id.
    pub classifier: Option<&'a str>,
    /// Pass the output through unchanged.
    pub raw: bool,
    /// Filters and dedupe only; nothing is cut.
    pub no_omit: bool,
    /// How much the host shows whole (a success's, a failure's size, and its line limit):
    /// nothing the host would have shown is cut (folding and noise filters still apply);
    /// past it, the usual cuts.
    pub host_shows_whole: Option<Whole>,
}

/// How the output will be produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Byte-identical passthrough (`--raw`, or an exact file read).
    Raw,
    Reduce,
}

/// A planned compaction: the command understood and the rule chosen.
pub struct Plan {
    pub norm: Normalized,
    pub mode: Mode,
    pub rule: CompiledRule,
    pub rule_layer: Layer,
    pub confidence: f64,
    pub reason: String,
    pub score: f64,
    pub others: Vec<(String, f64)>,
    pub no_omit: bool,
    /// See [`Request::host_shows_whole`].
    pub host_shows_whole: Option<Whole>,
    /// Problems met while planning (a broken rule was replaced by the fallback, …).
    pub warnings: Vec<String>,
    pub forced: bool,
    /// The structured reducer that reads the output beside the rule's line engine.
    pub reducer: Option<&'static str>,
}

/// Plan a compaction. `file_rules` are the loaded user and project rules.
pub fn plan(req: &Request<'_>, file_rules: &[FileRule]) -> Plan {
    let mut norm = normalize(req.command, req.argv);
    let mut warnings = Vec::new();
    let tool = if req.tool_name.is_empty() {
        "exec"
    } else {
        req.tool_name
    };
    let (choice, forced) = match req.classifier {
        Some(id) => match classify::by_id(id, file_rules) {
            Some(rule) => (
                Choice {
                    rule,
                    score: 0.0,
                    reason: format!("forced with --classifier {id}"),
                    others: Vec::new(),
                },
                true,
            ),
            None => {
                warnings.push(format!(
                    "unknown rule id `{id}` given to --classifier; classifying normally"
                ));
                (classify::classify(tool, &norm, file_rules), false)
            }
        },
        None => (classify::classify(tool, &norm, file_rules), false),
    };
    let (rule, layer) = match compile_ref(choice.rule) {
        Ok(r) => (r, choice.rule.layer()),
        Err(msg) => {
            warnings.push(format!(
                "rule `{}` cannot be used ({msg}); using {FALLBACK_ID}",
                choice.rule.id()
            ));
            (fallback_rule(), Layer::Builtin)
        }
    };
    let is_fallback = rule.id == FALLBACK_ID;
    // a read of a file whose own rule names it (`tail -n 200 /var/log/dpkg.log`): that
    // rule was written for the file's format, so it is reduced, not passed through
    if norm.exact_read && !forced && !is_fallback {
        if let Some(name) = choice.rule.names_file_of(&norm.argv) {
            norm.exact_read = false;
            norm.notes.push(format!(
                "a read of `{name}`, whose rule `{}` is written for that file: reduced, not passed through",
                rule.id
            ));
        }
    }
    // `… | head -n 300` of a command no rule knows: the agent sized the output itself, so
    // up to that many lines are shown whole, similar lines with their own values
    let mut rule = rule;
    if let Some(n) = norm.sized_by_pipe().filter(|_| is_fallback && !forced) {
        rule.settings.whole_under = rule.settings.whole_under.max(n as usize);
        rule.settings.collapse_similar = false;
        norm.notes.push(format!(
            "the pipeline ends in a {n}-line head/tail: up to {n} lines are shown whole"
        ));
    }
    let confidence = if forced {
        1.0
    } else if is_fallback {
        0.2
    } else {
        0.9
    };
    // A read of package-lock.json is summarized instead of passed through (virtual rule).
    let (rule, mode) = if !req.raw && norm.exact_read && !forced && reads_package_lock(&norm) {
        let mut r = fallback_rule();
        r.id = PACKAGE_LOCK_ID.into();
        r.family = "structured-summary".into();
        r.reducer = Some("package-lock".into());
        (r, Mode::Reduce)
    } else if req.raw || (norm.exact_read && !forced) {
        (rule, Mode::Raw)
    } else {
        (rule, Mode::Reduce)
    };
    let reducer = match &rule.reducer {
        Some(name) if !req.no_omit => structured::for_command(name, &norm),
        _ => None,
    };
    Plan {
        reducer,
        norm,
        mode,
        rule,
        rule_layer: layer,
        confidence,
        reason: choice.reason,
        score: choice.score,
        others: choice.others,
        no_omit: req.no_omit,
        host_shows_whole: req.host_shows_whole,
        warnings,
        forced,
    }
}

/// Virtual rules: produced in code, not in rule files (the original's ids).
pub const PACKAGE_LOCK_ID: &str = "generic/package-lock-summary";
pub const JSON_ID: &str = "generic/json";
pub const ACTIONS_LOG_ID: &str = "generic/github-actions-log";
pub const NAMES_ID: &str = "generic/names";
pub const PATHS_ID: &str = "generic/paths";
pub const DIFF_ID: &str = "generic/diff";
pub const JSON_LINES_ID: &str = "generic/json-lines";

/// A unified diff: its first line starts one (`diff …` or `--- `), and a `+++ ` and an
/// `@@ ` line follow within its first lines.
fn looks_like_unified_diff(text: &str) -> bool {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let Some(first) = lines.next() else {
        return false;
    };
    if !(first.starts_with("diff ") || first.starts_with("--- ")) {
        return false;
    }
    let head: Vec<&str> = lines.take(8).collect();
    head.iter().any(|l| l.starts_with("+++ ")) && head.iter().any(|l| l.starts_with("@@ "))
}

fn reads_package_lock(norm: &Normalized) -> bool {
    norm.argv
        .iter()
        .skip(1)
        .any(|a| a == "package-lock.json" || a.ends_with("/package-lock.json"))
}

fn compile_ref(r: RuleRef<'_>) -> Result<CompiledRule, String> {
    let rule: Rule = match r {
        RuleRef::Builtin(b) => b.rule().map_err(|d| format!("{}: {}", d.path, d.message))?,
        RuleRef::File(f) => f.rule.clone(),
    };
    CompiledRule::compile(&rule).map_err(|ds| {
        ds.iter()
            .map(|d| format!("{}: {}", d.path, d.message))
            .collect::<Vec<_>>()
            .join("; ")
    })
}

/// The built-in fallback rule, compiled. Built-in rules are checked by the test suite.
pub fn fallback_rule() -> CompiledRule {
    let b = builtin::find(FALLBACK_ID).expect("generic/fallback is embedded");
    let rule = b.rule().expect("built-in generic/fallback parses");
    CompiledRule::compile(&rule).expect("built-in generic/fallback compiles")
}

/// How long the raw output is as text, for "never longer than the raw output".
struct RawSize {
    /// Characters, a `\r\n` counted once (tokenizers read it as one).
    chars: usize,
    /// Estimated tokens (an invalid byte reads as one replacement character, as any host
    /// shows it); at least the count made while streaming.
    tokens: u64,
}

impl RawSize {
    fn of(raw_text: &str, streamed_tokens: u64) -> RawSize {
        RawSize {
            chars: raw_text.chars().count() - raw_text.matches("\r\n").count(),
            tokens: streamed_tokens.max(tokens::estimate(raw_text)),
        }
    }

    /// `text` is no longer than the raw output in characters and in estimated tokens.
    /// Both, because the estimate is off by a few percent either way: an `exit 1` line the
    /// estimate says fits could still cost the model more than the raw output.
    fn fits(&self, text: &str) -> bool {
        text.chars().count() <= self.chars && tokens::estimate(text) <= self.tokens
    }
}

/// What [`Session::choose_body`] decided stands for the output.
struct Chosen {
    body: Body,
    decision: String,
    kinds: Vec<String>,
    structured: Option<StructuredOutput>,
    /// A `matchOutput` message: the rule author's wording for the whole output.
    summarized: bool,
}

/// Raw output statistics, gathered as bytes stream in.
#[derive(Debug, Default, Clone, Copy)]
pub struct RawStats {
    pub bytes: u64,
    pub chars: u64,
    pub tokens: u64,
    pub lines: u64,
}

/// The estimate's weight of a line break.
const NEWLINE_MILLI: u64 = tokens::WEIGHTS[5];
/// Raw output up to this size has its tokens estimated line by line; beyond it, from a sample.
const EXACT_TOKEN_BYTES: u64 = 4 << 20;
/// A reduction that saves fewer tokens than this passes the output through instead.
const MIN_GAIN_TOKENS: u64 = 12;
/// A reduction that saves less than a tenth passes the output through, unless it saves at
/// least this many tokens and left no line out (a long help text whose layout goes, a big
/// listing).
const SURE_GAIN_TOKENS: u64 = 150;
/// Longest line handed to the reducer; longer lines are split.
const MAX_LINE_BYTES: usize = 1 << 20;
/// Largest output looked at again whole when its blocks may fold ([`Session::every_line_folded`]).
const WHOLE_FOLD_BYTES: u64 = 64 << 10;
/// Raw bytes kept for passthrough decisions and whole-output formats.
const PREFIX_CAP: usize = 1 << 20;
/// An output bigger than [`PREFIX_CAP`] is still kept up to this size while it is one JSON
/// document, so that it is summarized as JSON too (a `kubectl get -o json` of a few thousand
/// pods; a log is let go at its first line). Memory: parsed, a document takes up to about
/// twenty times its size for a moment at the end (~80 MB at 4 MiB of minified JSON).
const JSON_DOC_CAP: usize = 4 << 20;

/// Streams one command's output through the planned rule.
pub struct Session<'p> {
    plan: &'p Plan,
    engine: LineEngine<'p>,
    structured: Option<Box<dyn Structured + 'p>>,
    partial: Vec<u8>,
    /// The search of the current chunk (see `push`), its buffers reused.
    scan: ChunkScan,
    /// Rust backtraces' library frames, held to be said as one line a run.
    backtraces: crate::reduce::backtrace::Backtraces,
    /// The chunk lowercased, for that search.
    lower: Vec<u8>,
    raw: RawStats,
    prefix: Vec<u8>,
    prefix_complete: bool,
    raw_chunks: u64,
    /// Raw token estimate in milli-tokens (rounded once, at the end).
    raw_milli: u64,
    /// A virtual rule (id, family) chosen at the end from the whole output.
    virtual_rule: Option<(&'static str, &'static str)>,
    /// Inside a line longer than [`MAX_LINE_BYTES`]: its first MiB was taken as the line,
    /// the rest up to its newline is counted here and not shown (one 200 MB line is one
    /// cut line, not 200 identical ones).
    overlong: bool,
    overlong_dropped: u64,
    /// Past [`PREFIX_CAP`]: the whole output while it is one JSON document (up to
    /// [`JSON_DOC_CAP`]).
    big_doc: Option<(Vec<u8>, crate::reduce::json::DocScan)>,
    /// Binary data being read (lines that are not text), said as one note when it ends.
    binary: Option<crate::reduce::binary::Run>,
    /// Lines of binary data hidden so far (each run stands as its note).
    binary_hidden: u64,
    /// Short lines held until the next line tells what they are: clean text right after
    /// binary data (random bytes make such lines too), or bytes that are not clean text
    /// right before what may start it (a PNG's signature is `\x89PNG\r`, `\x1a`).
    binary_pending: Vec<Vec<u8>>,
    /// The line being read is the output's last and no newline ended it.
    unended: bool,
    /// The output came as text whose bytes that were not UTF-8 are already replaced (a
    /// host's JSON): binary data is looked for in the chunks holding a replacement character.
    replaced: bool,
}

/// How a session's chunks are searched ([`Session::scan_kind`]).
#[derive(Debug, Clone, Copy)]
pub struct ScanKind {
    /// The output is read as lines (not passed through raw).
    lines: bool,
    /// The rule looks for error and warning lines.
    classify: bool,
    /// The text's bytes that were not UTF-8 are already replaced (see `Session::replaced`).
    replaced: bool,
}

/// What one search of a whole chunk finds before its lines are read. [`Session::push`]
/// searches each chunk itself; a caller reading a large input on another thread can search
/// there, ahead of the lines ([`Session::push_scanned`]).
#[derive(Debug, Default)]
pub struct ChunkScan {
    /// Bytes in the chunk searched.
    len: usize,
    /// Characters in the chunk.
    chars: u64,
    /// The chunk is text as it is: one validation for it all, then every line inside it
    /// is text (a line ends at a newline byte, which never splits a character).
    text: bool,
    /// Keywords were looked for in it (`keywords` holds where they start): a line with
    /// none is not searched again.
    searched: bool,
    keywords: Vec<usize>,
    /// Where the chunk holds a byte that cleaning acts on (a carriage return, an escape
    /// code or an 8-bit CSI lead byte): a line without one is only trimmed, and a line
    /// with one is searched again, as cleaning could join its text into a keyword.
    cleaned_at: Vec<usize>,
}

impl ChunkScan {
    /// Searches `chunk`, the output's bytes up to `through` (its end); `lower` is scratch.
    /// (One copy of the search in the binary, wherever it runs.)
    #[inline(never)]
    pub fn scan(&mut self, chunk: &[u8], kind: ScanKind, through: u64, lower: &mut Vec<u8>) {
        self.len = chunk.len();
        self.chars = count_chars(chunk) as u64;
        self.text = false;
        self.searched = false;
        if !kind.lines {
            return;
        }
        self.text = std::str::from_utf8(chunk).is_ok()
            && !(kind.replaced && memchr::memmem::find(chunk, "\u{FFFD}".as_bytes()).is_some());
        if !self.text {
            return;
        }
        self.searched = kind.classify;
        if self.searched {
            // lowercased in one pass (the buffer is only zeroed where it grows)
            lower.resize(chunk.len(), 0);
            for (l, &c) in lower.iter_mut().zip(chunk) {
                *l = c.to_ascii_lowercase();
            }
            crate::reduce::signal::keyword_starts(lower, through, &mut self.keywords);
        }
        self.cleaned_at.clear();
        self.cleaned_at
            .extend(memchr::memchr3_iter(b'\r', 0x1b, 0xc2, chunk));
    }
}

/// Extra facts the caller knows at the end.
#[derive(Debug, Clone, Default)]
pub struct Finish {
    /// How to get the full output back, e.g. "tokenjuice cat tj_1a2b3c4d5e6f".
    pub recover_hint: Option<String>,
    /// The capture was cut (bytes past a cap were not kept).
    pub capture_truncated: bool,
    pub trace: bool,
    pub source: Option<String>,
    /// The host prints the exit status itself (Claude Code's `Exit code N`): no `exit N`
    /// line of ours, so the model never reads it twice.
    pub host_prints_exit: bool,
}

impl Plan {
    pub fn session(&self) -> Session<'_> {
        let engine = LineEngine::new(
            &self.rule,
            EngineOptions {
                no_omit: self.no_omit,
                whole_bytes: self.host_shows_whole.map(|w| w.chars.max(w.fail_chars)),
                whole_lines: self.host_shows_whole.and_then(|w| w.lines),
            },
        );
        let structured = self
            .reducer
            .and_then(|name| structured::create(name, &self.norm));
        Session {
            plan: self,
            engine,
            structured,
            partial: Vec::new(),
            scan: ChunkScan::default(),
            backtraces: Default::default(),
            lower: Vec::new(),
            raw: RawStats::default(),
            prefix: Vec::new(),
            prefix_complete: true,
            raw_chunks: 0,
            raw_milli: 0,
            virtual_rule: None,
            overlong: false,
            overlong_dropped: 0,
            big_doc: None,
            binary: None,
            binary_hidden: 0,
            binary_pending: Vec::new(),
            unended: false,
            replaced: false,
        }
    }

    pub fn family(&self) -> &str {
        &self.rule.family
    }
}

impl<'p> Session<'p> {
    /// Feed output bytes as they arrive (any chunking).
    pub fn push(&mut self, chunk: &[u8]) {
        let mut scan = std::mem::take(&mut self.scan);
        scan.scan(
            chunk,
            self.scan_kind(),
            self.raw.bytes + chunk.len() as u64,
            &mut self.lower,
        );
        self.push_scanned(chunk, &scan);
        self.scan = scan;
    }

    /// How this session's chunks are searched: for [`ChunkScan::scan`] on another thread,
    /// ahead of [`push_scanned`](Self::push_scanned).
    pub fn scan_kind(&self) -> ScanKind {
        ScanKind {
            lines: self.plan.mode != Mode::Raw,
            classify: self.engine.classifies(),
            replaced: self.replaced,
        }
    }

    /// [`push`](Self::push) of a chunk already searched with this session's
    /// [`scan_kind`](Self::scan_kind). (One copy of the line loop in the binary.)
    #[inline(never)]
    pub fn push_scanned(&mut self, chunk: &[u8], scan: &ChunkScan) {
        debug_assert_eq!(scan.len, chunk.len(), "the search of another chunk");
        self.raw.bytes += chunk.len() as u64;
        self.raw.chars += scan.chars;
        if self.prefix_complete {
            if self.prefix.len() + chunk.len() <= PREFIX_CAP {
                self.prefix.extend_from_slice(chunk);
            } else {
                self.prefix_complete = false;
                let held = std::mem::take(&mut self.prefix);
                // (only a reduction that may cut reads whole-output formats)
                if self.plan.mode != Mode::Raw && !self.plan.no_omit {
                    let mut scan = crate::reduce::json::DocScan::default();
                    if scan.feed(&held) {
                        self.big_doc = Some((held, scan));
                    }
                }
            }
        }
        if !self.prefix_complete {
            if let Some((held, scan)) = &mut self.big_doc {
                if held.len() + chunk.len() <= JSON_DOC_CAP && scan.feed(chunk) {
                    held.extend_from_slice(chunk);
                } else {
                    self.big_doc = None;
                }
            }
        }
        if self.plan.mode == Mode::Raw {
            self.raw_chunks += 1;
            if self.raw.bytes <= EXACT_TOKEN_BYTES {
                self.raw_milli += tokens::estimate_milli(chunk);
            } else if self.raw_chunks.is_multiple_of(16) {
                self.raw_milli += 16 * tokens::estimate_milli(chunk);
            }
            return;
        }
        let (chunk_text, checked) = (scan.text, scan.searched);
        let (mut next_keyword, mut next_cleaned) = (0, 0);
        let mut rest = chunk;
        while let Some(nl) = memchr::memchr(b'\n', rest) {
            if self.overlong {
                // the end of an over-long line whose first MiB was already taken
                self.overlong_dropped += (self.partial.len() + nl) as u64;
                self.partial.clear();
                self.overlong = false;
            } else if self.partial.is_empty() {
                if chunk_text {
                    // SAFETY: a prefix of a valid UTF-8 chunk ending before a newline byte
                    let line = unsafe { std::str::from_utf8_unchecked(&rest[..nl]) };
                    let (start, end) = (chunk.len() - rest.len(), chunk.len() - rest.len() + nl);
                    let plain = !any_in(&scan.cleaned_at, &mut next_cleaned, start, end);
                    let seen = Seen {
                        plain,
                        keyword_free: checked
                            && plain
                            && !any_in(&scan.keywords, &mut next_keyword, start, end),
                    };
                    self.line_text(&rest[..nl], line, seen);
                } else {
                    self.line(&rest[..nl]);
                }
            } else {
                self.partial.extend_from_slice(&rest[..nl]);
                let line = std::mem::take(&mut self.partial);
                self.line(&line);
            }
            rest = &rest[nl + 1..];
        }
        self.partial.extend_from_slice(rest);
        if self.overlong {
            self.overlong_dropped += self.partial.len() as u64;
            self.partial.clear();
        } else if self.partial.len() > MAX_LINE_BYTES {
            // split at a character boundary so valid UTF-8 stays valid; the line's first MiB
            // stands for it, the rest is counted until its newline
            let mut cut = MAX_LINE_BYTES;
            while cut > 0 && (self.partial[cut] as i8) < -0x40 {
                cut -= 1;
            }
            let tail = self.partial.split_off(cut.max(1));
            let head = std::mem::take(&mut self.partial);
            self.overlong_dropped += tail.len() as u64;
            self.overlong = true;
            self.line(&head);
        }
    }

    /// A line from a chunk that is not all text (or one joined across chunks): binary
    /// data is taken apart here, the rest goes on as text.
    fn line(&mut self, bytes: &[u8]) {
        if self.took_as_binary(bytes) {
            return;
        }
        let text = match std::str::from_utf8(bytes) {
            Ok(s) => std::borrow::Cow::Borrowed(s),
            Err(_) => String::from_utf8_lossy(bytes),
        };
        self.line_text(bytes, &text, Seen::default());
    }

    /// Whether `bytes` was taken as binary data (or held until the next line tells).
    #[inline(never)]
    fn took_as_binary(&mut self, bytes: &[u8]) -> bool {
        use crate::reduce::binary;
        let in_run = self.binary.is_some();
        // (`--no-omit` shows every line as it came)
        let joins = if in_run {
            binary::continues(bytes)
        } else {
            !self.plan.no_omit && binary::starts(bytes)
        };
        if joins {
            let run = self.binary.get_or_insert_default();
            for held in self.binary_pending.drain(..) {
                run.push(&held, true);
            }
            run.push(bytes, !self.unended);
        } else {
            // short clean text after binary data, or short bytes that are not clean text
            // before what may start it
            let holdable = bytes.len() < binary::SHORT
                && self.binary_pending.len() < binary::HELD
                && !self.unended
                && (in_run || !self.plan.no_omit && !bytes.is_empty() && binary::continues(bytes));
            if !holdable {
                return false;
            }
            self.binary_pending.push(bytes.to_vec());
        }
        self.count_raw_line(bytes);
        true
    }

    /// The end of a run of binary data: its note takes its place among the lines, then
    /// the short lines held, as text.
    fn end_binary(&mut self) {
        if let Some(run) = self.binary.take() {
            self.binary_hidden += run.lines;
            self.feed_line(&run.note(), Seen::default());
        }
        for held in std::mem::take(&mut self.binary_pending) {
            let text = String::from_utf8_lossy(&held).into_owned();
            self.feed_line(&text, Seen::default());
        }
    }

    /// The raw line count and token estimate: every line of the first 4 MiB, then a
    /// 1-in-16 sample scaled up.
    fn count_raw_line(&mut self, bytes: &[u8]) {
        self.raw.lines += 1;
        if self.raw.bytes <= EXACT_TOKEN_BYTES {
            self.raw_milli += tokens::estimate_milli(bytes) + NEWLINE_MILLI;
        } else if self.raw.lines.is_multiple_of(16) {
            self.raw_milli += 16 * (tokens::estimate_milli(bytes) + NEWLINE_MILLI);
        }
    }

    /// One line: `bytes` as they came, `text` the same as text.
    /// `seen`: what the chunk's search found out about it.
    fn line_text(&mut self, bytes: &[u8], text: &str, seen: Seen) {
        if self.binary.is_some() || !self.binary_pending.is_empty() {
            self.end_binary();
        }
        self.count_raw_line(bytes);
        self.feed_line(text, seen);
    }

    /// A line to the rule's engine and structured reducer.
    fn feed_line(&mut self, text: &str, seen: Seen) {
        if self.backtraces.inside() {
            // the engine gets a Rust backtrace's library frames as one line a run (a
            // structured reducer reads backtraces its own way)
            let mut bt = std::mem::take(&mut self.backtraces);
            bt.push_inside(text, &mut |l| {
                let seen = if std::ptr::eq(l, text) {
                    seen
                } else {
                    Seen::default()
                };
                self.engine.push_line_checked(l, seen);
            });
            self.backtraces = bt;
        } else {
            self.engine.push_line_checked(text, seen);
            if !self.plan.no_omit {
                self.backtraces.look(text);
            }
        }
        if let Some(s) = &mut self.structured {
            let clean = self.engine.clean(text);
            s.push(&clean);
        }
    }

    /// Whole-output formats recognized when no structured reducer took the output: one
    /// JSON document; under the fallback only, JSON lines, a unified diff (`isort --diff`,
    /// `gofmt -d`), a list of paths or of names one per line; and a GitHub Actions run log.
    /// Under the fallback they are reported as the virtual rules `generic/json`,
    /// `generic/diff`, `generic/json-lines`, `generic/paths`, `generic/names` and
    /// `generic/github-actions-log`.
    fn whole_output_special(
        &self,
        exit_code: i32,
    ) -> Option<(StructuredOutput, &'static str, &'static str)> {
        let json = |v: serde_json::Value| {
            let (lines, cut) = crate::reduce::json::summarize(&v, "JSON output");
            let out = StructuredOutput {
                name: "json",
                lines,
                omitted: cut,
                json_cut: cut > 0,
                ..StructuredOutput::default()
            };
            (out, JSON_ID, "structured-json")
        };
        let Some(raw) = self.raw_bytes() else {
            // too big for the other formats; one JSON document is read still
            let (held, scan) = self.big_doc.as_ref()?;
            let text = std::str::from_utf8(held).ok().filter(|_| scan.complete())?;
            return crate::reduce::json::parse_whole(text).map(json);
        };
        let text = String::from_utf8_lossy(raw);
        if let Some(v) = crate::reduce::json::parse_whole(&text) {
            return Some(json(v));
        }
        // a list of names has (almost) no line with a space inside, a list of paths a `/`
        // in (almost) every line: the first lines tell
        let list = || -> Option<bool> {
            let first: Vec<&str> = text.lines().take(64).collect();
            let count = |f: &dyn Fn(&str) -> bool| first.iter().filter(|l| f(l.trim())).count();
            let spaced = count(&|l| l.contains(char::is_whitespace));
            let paths = count(&|l| l.contains('/'));
            (first.len() >= 20 && spaced * 10 <= first.len())
                .then_some(paths * 10 >= first.len() * 9)
        };
        let fallback = self.plan.rule.id == FALLBACK_ID;
        // (a log rule's own folding serves JSON log lines better than a table of them all)
        if let Some(out) = fallback
            .then(|| crate::reduce::json::json_lines(&text))
            .flatten()
        {
            return Some((out, JSON_LINES_ID, "structured-json"));
        }
        if fallback && looks_like_unified_diff(&text) {
            let r = Box::<crate::reduce::structured::git_diff::GitDiff>::default();
            if let Some(out) = self.read_whole(r, &text, exit_code) {
                return Some((out, DIFF_ID, "git-diff"));
            }
        }
        let list = fallback.then(list).flatten();
        if let Some(paths) = list {
            use crate::reduce::structured::{listing::Listing, names::Names};
            let r: Box<dyn Structured> = if paths {
                Box::new(Listing::new(&self.plan.norm))
            } else {
                Box::<Names>::default()
            };
            if let Some(out) = self.read_whole(r, &text, exit_code) {
                return Some(if paths {
                    (out, PATHS_ID, "file-listing")
                } else {
                    (out, NAMES_ID, "name-list")
                });
            }
        }
        if text.contains("Process completed with exit code") {
            let r = Box::<crate::reduce::structured::gh::GhRunLog>::default();
            let out = self.read_whole(r, &text, exit_code)?;
            return Some((out, ACTIONS_LOG_ID, "ci-log"));
        }
        None
    }

    /// A structured reducer run over the whole output at the end, line by line, cleaned.
    fn read_whole(
        &self,
        mut r: Box<dyn Structured>,
        text: &str,
        exit_code: i32,
    ) -> Option<StructuredOutput> {
        for line in text.lines() {
            r.push(&self.engine.clean(line));
        }
        r.finish(exit_code)
    }

    /// The raw output cleaned (carriage-return redraws resolved, ANSI stripped, trailing
    /// blank lines trimmed), headed by `exit N` when `exit_line`, with the empty marker when
    /// nothing is left. When those two lines would make it longer than what the command
    /// printed, they are left out: an output is never longer than the raw one (the exit
    /// code is the process's anyway, and a host shows its own).
    fn cleaned_raw(&self, raw: &[u8], exit_code: i32, exit_line: bool) -> String {
        let raw_text = String::from_utf8_lossy(raw);
        let mut cleaned: Vec<String> = raw_text
            .split('\n')
            .map(|l| self.engine.clean(l).into_owned())
            .collect();
        while cleaned.last().is_some_and(String::is_empty) {
            cleaned.pop();
        }
        let body = cleaned.join("\n");
        let size = RawSize::of(&raw_text, self.raw.tokens);
        // the exit line first, then the empty marker, as long as they fit
        let exit = (exit_code != 0 && exit_line).then(|| format!("exit {exit_code}"));
        let marker = body.is_empty().then(|| {
            self.plan
                .rule
                .on_empty
                .clone()
                .unwrap_or_else(|| "(no output)".into())
        });
        for m in [&marker, &None] {
            let text = exit
                .iter()
                .chain(m)
                .map(String::as_str)
                .chain((!body.is_empty()).then_some(body.as_str()))
                .collect::<Vec<_>>()
                .join("\n");
            if size.fits(&text) {
                return text;
            }
        }
        body
    }

    pub fn raw_stats(&self) -> RawStats {
        RawStats {
            tokens: tokens::from_milli(self.raw_milli),
            ..self.raw
        }
    }

    /// The raw bytes seen so far, when all of them are still held (≤ 1 MiB).
    pub fn raw_bytes(&self) -> Option<&[u8]> {
        self.prefix_complete.then_some(self.prefix.as_slice())
    }

    /// Finish with the command's exit code. Each step below decides one thing: the raw
    /// plan passes through; otherwise [`Session::choose_body`] picks what stands for the
    /// output, [`Session::collect_facts`] the counts, [`Session::render`] the text, and
    /// [`Session::keep_smaller`] whether the raw output is given instead.
    pub fn finish(mut self, exit_code: i32, fin: &Finish) -> CompactResult {
        if !self.partial.is_empty() {
            let line = std::mem::take(&mut self.partial);
            if self.plan.mode == Mode::Raw {
                self.raw.lines += 1;
            } else {
                self.unended = true;
                self.line(&line);
            }
        }
        self.end_binary();
        let engine = &mut self.engine;
        self.backtraces
            .finish(&mut |l| engine.push_line_checked(l, Seen::default()));
        self.raw.tokens = tokens::from_milli(self.raw_milli);
        if self.plan.mode == Mode::Raw {
            return self.finish_raw(exit_code, fin);
        }
        if let Some(Whole {
            fail_chars: failed, ..
        }) = self.plan.host_shows_whole.filter(|_| exit_code != 0)
        {
            // a failure the host would cut (Claude Code: over 10,000 characters): the usual
            // cuts after all
            self.engine.cut_past(failed);
        }
        let chosen = self.choose_body(exit_code);
        let facts = self.collect_facts(&chosen);
        let mut kinds = chosen.kinds.clone();
        let body = &chosen.body;
        for (n, kind) in [
            (body.omitted, Kind::HeadTailOmission),
            (body.kept_middle, Kind::SignalRetention),
            (body.folded, Kind::SimilarLineCollapse),
            (body.filtered, Kind::NoiseFilter),
            (body.clipped, Kind::LineClip),
            (self.binary_hidden, Kind::BinaryData),
        ] {
            if n > 0 {
                kinds.push(kind.into());
            }
        }
        let text = self.render(&chosen, &facts, &mut kinds, exit_code, fin);
        let trace_lines = TraceLines {
            raw: self.raw.lines,
            shown: body.lines.len() as u64,
            omitted: body.omitted,
            filtered: body.filtered,
            folded: body.folded,
            kept_from_middle: body.kept_middle,
            error_lines: self.engine.error_lines,
            warning_lines: self.engine.warning_lines,
        };
        let cut = body.omitted > 0;
        let (text, kinds, decision) =
            self.keep_smaller(text, kinds, chosen.decision.clone(), exit_code, fin, cut);
        self.result(
            text,
            facts,
            kinds,
            decision,
            trace_lines,
            fin,
            false,
            exit_code,
        )
    }

    /// A raw plan: the output as it came, byte for byte.
    fn finish_raw(mut self, exit_code: i32, fin: &Finish) -> CompactResult {
        self.raw.lines += self.prefix.iter().filter(|&&b| b == b'\n').count() as u64;
        let text = String::from_utf8_lossy(&self.prefix).into_owned();
        let decision = if self.plan.norm.exact_read && !self.plan.forced {
            "exact file read: passed through byte-identical"
        } else {
            "raw: passed through byte-identical"
        };
        let kind = if self.plan.norm.exact_read {
            Kind::ExactReadPassthrough
        } else {
            Kind::RawPassthrough
        };
        self.result(
            text,
            Vec::new(),
            vec![kind.into()],
            decision.into(),
            TraceLines::default(),
            fin,
            true,
            exit_code,
        )
    }

    /// What stands for the output: a structured reducer's result (the rule's, or a
    /// whole-output one such as JSON or a CI log for the fallback), a rule's `matchOutput`
    /// summary on a clean success, or the rule's line reduction.
    fn choose_body(&mut self, exit_code: i32) -> Chosen {
        let plan = self.plan;
        let rule = &plan.rule;
        let s = &rule.settings;
        let failed = exit_code != 0;
        let (head, tail) = if failed {
            (s.fail_head, s.fail_tail)
        } else {
            (s.head, s.tail)
        };
        let mut structured: Option<StructuredOutput> =
            self.structured.take().and_then(|s| s.finish(exit_code));
        // (an output holding binary data is no JSON document, list or diff)
        if structured.is_none() && !plan.no_omit && self.binary_hidden == 0 {
            if let Some((out, id, family)) = self.whole_output_special(exit_code) {
                structured = Some(out);
                if rule.id == FALLBACK_ID {
                    self.virtual_rule = Some((id, family));
                }
            }
        }
        let errors = self.engine.error_lines;
        let warnings = self.engine.warning_lines;
        if let Some(so) = structured {
            return Chosen {
                body: so.body_as_body(),
                decision: format!("reduced by structured reducer `{}`", so.name),
                kinds: vec![structured_kind(so.name)],
                structured: Some(so),
                summarized: false,
            };
        }
        if let Some(msg) = self
            .engine
            .match_output_message()
            .filter(|_| !failed && errors == 0 && warnings == 0)
        {
            return Chosen {
                body: Body {
                    lines: vec![msg.to_string()],
                    filtered: self.raw.lines,
                    ..Body::default()
                },
                decision: "summarized by matchOutput".into(),
                kinds: vec![Kind::MatchOutputSummary.into()],
                structured: None,
                summarized: true,
            };
        }
        let use_keep = self.engine.keep_matched_any && self.engine.keep_track.is_some();
        let track = if use_keep {
            self.engine.keep_track.as_ref().expect("checked above")
        } else {
            &self.engine.main
        };
        // a short output is shown whole (every entry is still in the head buffer), and so
        // is one the track held whole (no-omit, or within what the host shows whole)
        let head =
            if track.holds_all() || s.whole_under > 0 && track.entries <= s.whole_under as u64 {
                usize::MAX
            } else {
                head
            };
        let mut body = render_track(track, head, tail, s.trim_edges);
        let mut whole = false;
        // a block of unlike lines that comes again is said once, with the words that differ
        // in each repeat; a rule that keeps like lines apart too (`make -k` compiling files
        // that fail alike), unless nothing may be folded
        if s.collapse_similar || !plan.no_omit {
            crate::reduce::blocks::fold_body(&mut body, s.fold);
        }
        if s.collapse_similar {
            // lines were cut to fit: every line, with the blocks that come again folded, may
            // read fewer tokens still (a retry loop's tracebacks, a recursion's frames); then
            // nothing is cut
            if body.omitted > 0 && !use_keep && self.raw.bytes <= WHOLE_FOLD_BYTES {
                if let Some(all) = self.every_line_folded() {
                    let size = |b: &Body| tokens::estimate(&b.lines.join("\n"));
                    if size(&all) < size(&body) {
                        body = all;
                        whole = true;
                    }
                }
            }
        }
        // what many shown lines repeat is said once (see `SAID_ONCE`); with nothing to be
        // cut the lines stay as they came
        if !plan.no_omit {
            for pass in SAID_ONCE {
                if let Some(lines) = pass(&body.lines) {
                    body.lines = lines;
                }
            }
        }
        Chosen {
            body,
            decision: if use_keep {
                "reduced (keepPatterns)".into()
            } else if whole {
                "reduced: every line, repeated blocks folded (smaller than the cut)".into()
            } else {
                "reduced".into()
            },
            kinds: Vec::new(),
            structured: None,
            summarized: false,
        }
    }

    /// The whole output (when all of it was kept) through the rule's line engine with
    /// nothing cut, and the blocks that come again folded; None when too few lines would
    /// fold (judged by shape first, which is cheap).
    fn every_line_folded(&self) -> Option<Body> {
        let raw = self.raw_bytes()?;
        let text = std::str::from_utf8(raw)
            .map(std::borrow::Cow::Borrowed)
            .unwrap_or_else(|_| String::from_utf8_lossy(raw));
        let text = text.strip_suffix('\n').unwrap_or(&text);
        let lines: Vec<&str> = text.split('\n').collect();
        let rule = &self.plan.rule;
        let s = &rule.settings;
        // a second pass only when a third of the lines would fold
        if crate::reduce::blocks::foldable_lines(&lines) * 3 < lines.len() {
            return None;
        }
        let mut engine = LineEngine::new(
            rule,
            EngineOptions {
                no_omit: true,
                ..EngineOptions::default()
            },
        );
        for line in lines {
            engine.push_line(line);
        }
        let mut body = render_track(&engine.main, usize::MAX, 0, s.trim_edges);
        crate::reduce::blocks::fold_body(&mut body, s.fold);
        (body.omitted == 0).then_some(body)
    }

    /// The facts: a structured reducer's, then counters, then facts parsed from summary
    /// lines (which win by name), added under names the structured reducer did not report;
    /// the fallback counts error and warning lines.
    fn collect_facts(&self, chosen: &Chosen) -> Vec<(String, u64)> {
        let mut facts: Vec<(String, u64)> = chosen
            .structured
            .as_ref()
            .map(|so| so.facts.clone())
            .unwrap_or_default();
        let structured_names: Vec<String> = facts.iter().map(|(n, _)| n.clone()).collect();
        let mut line_facts: Vec<(String, u64)> = self.engine.counter_values();
        for (name, v) in self.engine.extracted_facts() {
            if let Some(f) = line_facts.iter_mut().find(|(n, _)| *n == name) {
                f.1 = v;
            } else {
                line_facts.push((name, v));
            }
        }
        facts.extend(
            line_facts
                .into_iter()
                .filter(|(n, _)| !structured_names.contains(n)),
        );
        let (errors, warnings) = (self.engine.error_lines, self.engine.warning_lines);
        if chosen.structured.is_none()
            && self.plan.rule.id == FALLBACK_ID
            && (errors > 0 || warnings > 0)
        {
            facts.push(("error line".into(), errors));
            facts.push(("warning line".into(), warnings));
        }
        facts
    }

    /// The text: the exit line (unless the host prints one), the facts line, the body, and
    /// the markers saying what was cut and how to see it.
    fn render(
        &self,
        chosen: &Chosen,
        facts: &[(String, u64)],
        kinds: &mut Vec<String>,
        exit_code: i32,
        fin: &Finish,
    ) -> String {
        let failed = exit_code != 0;
        let body = &chosen.body;
        let structured_out = &chosen.structured;
        let rule = &self.plan.rule;
        let mut lines: Vec<String> = Vec::new();
        if failed && !fin.host_prints_exit {
            lines.push(format!("exit {exit_code}"));
        }
        let left_out = body.omitted + body.filtered + self.binary_hidden;
        let shown_facts: Vec<String> = facts
            .iter()
            .filter(|(_, v)| *v > 0)
            .map(|(n, v)| pluralize(*v, n))
            .collect();
        let facts_first = structured_out.as_ref().is_none_or(|so| so.facts_line);
        if facts_first
            && !shown_facts.is_empty()
            && (left_out > 0 || failed || structured_out.is_some())
        {
            lines.push(shown_facts.join(", "));
        }
        if body.lines.is_empty() {
            // a command that printed lines which were all hidden did not print nothing:
            // the marker below says how many were hidden and how to see them; a rule's own
            // `onEmpty` wording (`pnpm build: ok`) is its summary of such an output
            if left_out == 0 || self.raw.lines == 0 {
                let empty = rule
                    .on_empty
                    .clone()
                    .unwrap_or_else(|| "(no output)".into());
                lines.push(empty);
            } else if let Some(summary) = rule.on_empty.as_ref().filter(|_| !failed) {
                lines.push(summary.clone());
            }
        } else {
            lines.extend(body.lines.iter().cloned());
        }
        // (whole-output JSON read every byte: no line of it was cut)
        let read_whole = structured_out.as_ref().is_some_and(|so| so.name == "json");
        if self.overlong_dropped > 0 && !read_whole {
            let how = fin
                .recover_hint
                .clone()
                .unwrap_or_else(|| "--raw shows all".into());
            lines.push(format!(
                "[tokenjuice: a line longer than 1 MiB was cut after its first MiB ({} bytes not shown); {how}]",
                self.overlong_dropped
            ));
            kinds.push(Kind::OverlongLineCut.into());
        }
        // A matchOutput message stands for the whole output by the rule's design
        // ("npm install: up to date"): no marker after it.
        let summarized = chosen.summarized;
        if left_out > 0 && !summarized {
            let total = self.raw.lines;
            let how = fin
                .recover_hint
                .clone()
                .unwrap_or_else(|| "--raw shows all".into());
            // each part counted, unless it is the only one
            let (o, f, b) = (body.omitted, body.filtered, self.binary_hidden);
            let alone = |n: u64| n == left_out;
            let parts: Vec<String> = [(o, "cut"), (f, "noise"), (b, "binary data")]
                .into_iter()
                .filter(|&(n, _)| n > 0)
                .map(|(n, what)| {
                    if alone(n) && what != "cut" {
                        what.to_string()
                    } else {
                        format!("{n} {what}")
                    }
                })
                .collect();
            let json_summary = structured_out.as_ref().is_some_and(|so| so.json_cut);
            lines.push(if json_summary {
                // the cut is counted in JSON items, records and strings, not lines
                format!("[tokenjuice: JSON shortened as noted above; {how}]")
            } else {
                format!(
                    "[tokenjuice: {} of {total} lines hidden ({}); {how}]",
                    left_out,
                    parts.join(", ")
                )
            });
        }
        lines.join("\n")
    }

    /// The raw output instead of the reduction when the reduction would not save enough
    /// (cleaned: redraws resolved, ANSI stripped), and never a text longer than the raw one.
    fn keep_smaller(
        &self,
        mut text: String,
        mut kinds: Vec<String>,
        mut decision: String,
        exit_code: i32,
        fin: &Finish,
        cut: bool,
    ) -> (String, Vec<String>, String) {
        let plan = self.plan;
        let failed = exit_code != 0;
        let summarized = has_kind(&kinds, Kind::MatchOutputSummary);
        // Outputs that compaction does not shrink meaningfully pass through, cleaned
        // (carriage-return redraws resolved, ANSI stripped, trailing blanks trimmed).
        // A matchOutput summary is the rule author's chosen wording; it stands even when
        // the output was short.
        if !plan.no_omit && !summarized {
            if let Some(raw) = self.raw_bytes() {
                let reduced_tokens = tokens::estimate(&text);
                let raw_tokens = self.raw.tokens;
                let gain = raw_tokens.saturating_sub(reduced_tokens);
                // (a reduction that cut lines away is worth it only past the tenth)
                let sure = gain >= SURE_GAIN_TOKENS && !cut;
                let weak =
                    (reduced_tokens * 10 >= raw_tokens * 9 && !sure) || gain < MIN_GAIN_TOKENS;
                if weak {
                    text = self.cleaned_raw(raw, exit_code, !fin.host_prints_exit);
                    kinds = vec![Kind::Passthrough.into()];
                    decision = "passed through: compaction would not save enough".into();
                }
            }
        } else {
            kinds.push(Kind::NoOmitPassthrough.into());
        }
        // Never longer than what the command printed: when the reduction (or the cleaned
        // text, or a rule's summary line) would cost more tokens than the raw output, the raw
        // output itself is given (it holds the same facts).
        if !plan.no_omit {
            if let Some(raw) = self.raw_bytes() {
                let reduced = tokens::estimate(&text);
                let raw_text = (reduced > self.raw.tokens).then(|| String::from_utf8_lossy(raw));
                let size = raw_text
                    .as_deref()
                    .map(|t| RawSize::of(t, self.raw.tokens))
                    .filter(|size| reduced > size.tokens);
                if let (Some(size), Some(raw_text)) = (size, raw_text.as_deref()) {
                    let raw_text = raw_text.trim_end_matches('\n');
                    let with_exit = format!("exit {exit_code}\n{raw_text}");
                    text = if failed && !fin.host_prints_exit && size.fits(&with_exit) {
                        with_exit
                    } else {
                        raw_text.to_string()
                    };
                    kinds = vec![Kind::Passthrough.into()];
                    decision =
                        "passed through: the reduction would be longer than the output".into();
                }
            }
        }
        (text, kinds, decision)
    }

    #[allow(clippy::too_many_arguments)]
    fn result(
        &self,
        text: String,
        facts: Vec<(String, u64)>,
        kinds: Vec<String>,
        decision: String,
        lines: TraceLines,
        fin: &Finish,
        raw_mode: bool,
        _exit_code: i32,
    ) -> CompactResult {
        let plan = self.plan;
        let (rule_id, family) = match self.virtual_rule {
            Some((id, family)) => (id.to_string(), family.to_string()),
            None => (plan.rule.id.clone(), plan.rule.family.clone()),
        };
        let reduced_chars = text.chars().count() as u64;
        let reduced_tokens = if raw_mode {
            self.raw.tokens
        } else {
            tokens::estimate(&text)
        };
        let ratio = if raw_mode || self.raw.chars == 0 {
            1.0
        } else {
            reduced_chars as f64 / self.raw.chars as f64
        };
        let mut facts_map = serde_json::Map::new();
        for (k, v) in facts {
            facts_map.insert(k, serde_json::Value::from(v));
        }
        let trace = fin.trace.then(|| Trace {
            normalized_command: plan.norm.command.clone(),
            normalized_argv: plan.norm.argv.clone(),
            shell_body: plan.norm.shell_body.clone(),
            matched_reducer: rule_id.clone(),
            family: family.clone(),
            rule_layer: plan.rule_layer.name().into(),
            reason: plan.reason.clone(),
            score: plan.score,
            candidates: plan
                .others
                .iter()
                .map(|(id, score)| TraceCandidate {
                    id: id.clone(),
                    score: *score,
                })
                .collect(),
            compound: plan.norm.compound,
            exact_read: plan.norm.exact_read,
            decision,
            notes: plan
                .norm
                .notes
                .iter()
                .chain(plan.warnings.iter())
                .cloned()
                .collect(),
            structured_reducer: plan.reducer.map(str::to_string),
            lines,
        });
        CompactResult {
            inline_text: text,
            facts: facts_map,
            compaction: Compaction {
                authoritative: !fin.capture_truncated
                    && !plan.no_omit
                    && !has_kind(&kinds, Kind::OverlongLineCut),
                kinds,
            },
            trace,
            raw_ref: None,
            stats: Stats {
                raw_chars: self.raw.chars,
                reduced_chars: if raw_mode {
                    self.raw.chars
                } else {
                    reduced_chars
                },
                ratio,
                raw_tokens: self.raw.tokens,
                reduced_tokens,
                token_method: "estimate-o200k",
                raw_bytes: self.raw.bytes,
                raw_lines: self.raw.lines,
            },
            classification: Classification {
                family,
                confidence: plan.confidence,
                matched_reducer: rule_id,
                matched_via: plan.norm.via.as_str().into(),
            },
        }
    }
}

/// Convenience: compact a whole text at once.
pub fn compact_text(
    req: &Request<'_>,
    file_rules: &[FileRule],
    text: &[u8],
    exit_code: i32,
    fin: &Finish,
) -> (Plan, CompactResult) {
    compact_whole(req, file_rules, text, false, exit_code, fin)
}

/// One output at once; `decoded`: it came as text in which bytes that were not UTF-8 were
/// already replaced by `\u{FFFD}` (a host's JSON payload), and binary data is told by those.
fn compact_whole(
    req: &Request<'_>,
    file_rules: &[FileRule],
    text: &[u8],
    decoded: bool,
    exit_code: i32,
    fin: &Finish,
) -> (Plan, CompactResult) {
    let plan = plan(req, file_rules);
    let result = {
        let mut s = plan.session();
        s.replaced = decoded;
        s.push(text);
        s.finish(exit_code, fin)
    };
    (plan, result)
}

/// [`compact_text`] for an output that came as text (a host's JSON payload), in which bytes
/// that were not UTF-8 were already replaced by `\u{FFFD}`: binary data is told by those.
pub fn compact_decoded_text(
    req: &Request<'_>,
    file_rules: &[FileRule],
    text: &str,
    exit_code: i32,
    fin: &Finish,
) -> (Plan, CompactResult) {
    compact_whole(req, file_rules, text.as_bytes(), true, exit_code, fin)
}

/// Does sorted `at` hold an offset in `start..end`? `next` walks forward through `at`
/// across calls with increasing ranges.
fn any_in(at: &[usize], next: &mut usize, start: usize, end: usize) -> bool {
    while *next < at.len() && at[*next] < start {
        *next += 1;
    }
    at.get(*next).is_some_and(|&k| k < end)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` as the output of `cmd` (exit 0), compacted.
    fn compacted(cmd: &str, text: &str) -> CompactResult {
        let req = Request {
            tool_name: "exec",
            command: Some(cmd),
            ..Request::default()
        };
        compact_text(&req, &[], text.as_bytes(), 0, &Finish::default()).1
    }

    #[test]
    fn binary_data_is_one_note_and_the_text_around_it_stays() {
        let mut out = b"HTTP/1.1 200 OK\r\ncontent-type: image/png\r\n\r\n".to_vec();
        out.extend_from_slice(b"\x89PNG\r\n\x1a\n");
        out.extend(crate::reduce::binary::tests::noise(
            20_000,
            0x2545_f491_4f6c_dd1d,
        ));
        out.extend_from_slice(b"\ndone\n");
        let req = Request {
            tool_name: "exec",
            command: Some("curl -si https://example.com/logo.png"),
            ..Request::default()
        };
        // fed in small chunks too: lines joined across chunks are read the same way
        for chunk in [out.len(), 7] {
            let plan = plan(&req, &[]);
            let mut s = plan.session();
            for c in out.chunks(chunk) {
                s.push(c);
            }
            let r = s.finish(3, &Finish::default());
            let t = &r.inline_text;
            assert!(
                t.starts_with("exit 3\nHTTP/1.1 200 OK\ncontent-type: image/png\n"),
                "{t}"
            );
            assert!(
                t.contains(&format!(
                    "\n[binary data: {} bytes in ",
                    out.len() - 44 - 5 // the headers before (44 bytes), `done` after
                )),
                "{t}"
            );
            assert!(
                t.contains(" lines, not shown as text (a PNG image)]\ndone\n"),
                "{t}"
            );
            assert!(
                t.ends_with("lines hidden (binary data); --raw shows all]"),
                "{t}"
            );
            assert_eq!(t.matches("[binary data").count(), 1, "{t}");
            assert!(r.compaction.has(Kind::BinaryData));
        }
        // `--no-omit` shows it as it came
        let whole = compact_text(
            &Request {
                no_omit: true,
                ..req
            },
            &[],
            &out,
            0,
            &Finish::default(),
        )
        .1;
        assert!(!whole.inline_text.contains("[binary data"));
        assert!(whole.inline_text.contains('\u{fffd}'));
    }

    #[test]
    fn text_in_a_legacy_encoding_is_not_binary_data() {
        // Latin-1 and Windows-1251 lines: not UTF-8, but text
        let mut out = Vec::new();
        for i in 0..40 {
            out.extend_from_slice(format!("2024-01-0{} ", i % 9 + 1).as_bytes());
            out.extend_from_slice(b"ERROR \xce\xf8\xe8\xe1\xea\xe0 caf\xe9 cr\xe8me\n");
        }
        let r = compact_text(
            &Request {
                tool_name: "exec",
                command: Some("legacy-tool"),
                ..Request::default()
            },
            &[],
            &out,
            1,
            &Finish::default(),
        )
        .1;
        assert!(!r.inline_text.contains("[binary data"), "{}", r.inline_text);
        assert!(r.inline_text.contains("ERROR"), "{}", r.inline_text);
    }

    #[test]
    fn a_unified_diff_is_told_by_its_first_lines() {
        assert!(looks_like_unified_diff(
            "--- a.py:before\t2026\n+++ a.py:after\t2026\n@@ -1 +1 @@\n-a\n+b\n"
        ));
        assert!(looks_like_unified_diff(
            "diff -ru old/x new/x\n--- old/x\n+++ new/x\n@@ -1 +1 @@\n-a\n+b\n"
        ));
        // normal diff output, and a list that merely starts with dashes
        assert!(!looks_like_unified_diff("5c5\n< 5\n---\n> five\n"));
        assert!(!looks_like_unified_diff(
            "--- summary ---\nall good\n+++ done\n"
        ));
    }

    #[test]
    fn a_cut_that_saves_less_than_a_tenth_is_not_made_even_when_it_saves_many_tokens() {
        // long first and last lines, 120 short ones between: the fallback's cut of the short
        // ones saves some 350 tokens, under a tenth of the whole
        // distinct words everywhere, so that no line folds with another
        let word = |n: usize| -> String {
            let mut n = n.wrapping_mul(2_654_435_761) % 1_000_003;
            (0..6)
                .map(|_| {
                    let c = (b'a' + (n % 26) as u8) as char;
                    n /= 26;
                    c
                })
                .collect()
        };
        let long = |i: usize| {
            let words: Vec<String> = (0..200).map(|k| word(i * 1000 + k)).collect();
            format!("{}\n", words.join(" "))
        };
        let mut text: String = (0..10).map(long).collect();
        text.extend((0..120).map(|i| format!("{}\n", word(77_777 + i))));
        text.extend((10..20).map(long));
        let r = compacted("some-tool --verbose", &text);
        let mid = format!("\n{}\n", word(77_777 + 25));
        assert!(r.inline_text.contains(&mid), "{}", r.inline_text);
    }

    #[test]
    fn a_sized_read_is_passed_through_unless_a_rule_is_written_for_that_file() {
        let mut text = String::from("2026-11-27 18:34:38 startup archives unpack\n");
        for (i, p) in ["m4", "bison", "flex", "gawk"].iter().enumerate() {
            let t = format!("2026-11-27 18:34:4{i}");
            text += &format!("{t} install {p}:amd64 <none> 1.{i}\n");
            text += &format!("{t} status half-installed {p}:amd64 1.{i}\n");
            text += &format!("{t} status unpacked {p}:amd64 1.{i}\n");
        }
        let run = |cmd: &str| compacted(cmd, &text);
        // dpkg's log, or its rotated copy
        for cmd in [
            "tail -n 200 /var/log/dpkg.log",
            "head -n 50 /var/log/dpkg.log.1",
        ] {
            let r = run(cmd).inline_text;
            let run_line = "2026-11-27 18:34:38 startup archives unpack (to 18:34:43)\n";
            let packages = "install → unpacked (4): m4 1.0, bison 1.1, flex 1.2, gawk 1.3";
            assert!(r.contains(run_line) && r.contains(packages), "{cmd}: {r}");
            assert!(!r.contains("half-installed"), "{cmd}: {r}");
        }
        // the same lines in a log no rule names: the agent sized its read, it gets it whole
        assert_eq!(run("tail -n 200 /var/log/apt/term.log").inline_text, text);
    }

    #[test]
    fn a_sized_pipe_of_an_unknown_command_is_shown_whole() {
        let text: String = (0..300)
            .map(|i| format!("00000000000{:05x} T sym_{}\n", i * 48, i * 7919 % 1000))
            .collect();
        let run = |cmd: &str| compacted(cmd, &text);
        let sized = run("nm -D libfoo.so | head -300");
        for i in [0, 150, 299] {
            let sym = format!(" T sym_{}", i * 7919 % 1000);
            assert!(
                sized.inline_text.lines().any(|l| l.ends_with(&sym)),
                "{sym} in {}",
                sized.inline_text
            );
        }
        // the same output without the head: the fallback's cut
        let cut = run("nm -D libfoo.so");
        assert!(
            cut.inline_text.len() < text.len() / 4,
            "{}",
            cut.inline_text
        );
    }

    #[test]
    fn output_that_is_all_noise_says_what_was_dropped() {
        let rule = Rule::from_json(
            r#"{"id": "test/quiet", "family": "t", "match": {"argv0": ["quiet-tool"]},
                "filters": {"skipPatterns": ["^notice: "]}}"#,
        )
        .expect("test rule parses");
        let rules = vec![FileRule {
            rule,
            layer: Layer::Project,
            path: "quiet.json".into(),
        }];
        let argv: Vec<String> = vec!["quiet-tool".into()];
        let req = Request {
            tool_name: "exec",
            argv: Some(&argv),
            ..Request::default()
        };
        let text =
            "notice: connected to the build host, all activity is logged and reviewed\n".repeat(6);
        let (_, r) = compact_text(&req, &rules, text.as_bytes(), 0, &Finish::default());
        // the command printed six lines: not "(no output)", but what was hidden
        assert!(!r.inline_text.contains("(no output)"), "{}", r.inline_text);
        assert!(
            r.inline_text.contains("6 of 6 lines hidden (noise)"),
            "{}",
            r.inline_text
        );
        // a rule's own onEmpty wording is its summary of an all-noise success, kept beside
        // the marker; after a failure it would claim too much
        let rule = Rule::from_json(
            r#"{"id": "test/quiet", "family": "t", "match": {"argv0": ["quiet-tool"]},
                "onEmpty": "quiet-tool: ok", "filters": {"skipPatterns": ["^notice: "]}}"#,
        )
        .expect("test rule parses");
        let rules = vec![FileRule {
            rule,
            layer: Layer::Project,
            path: "quiet.json".into(),
        }];
        let (_, r) = compact_text(&req, &rules, text.as_bytes(), 0, &Finish::default());
        assert!(
            r.inline_text
                .starts_with("quiet-tool: ok\n[tokenjuice: 6 of 6 lines hidden"),
            "{}",
            r.inline_text
        );
        let (_, r) = compact_text(&req, &rules, text.as_bytes(), 1, &Finish::default());
        assert!(
            !r.inline_text.contains("quiet-tool: ok"),
            "{}",
            r.inline_text
        );
    }

    #[test]
    fn counter_sources_count_the_lines_they_say() {
        // six passing tests dropped as noise, one failing kept, one kept line mentioning ok
        let text = "t1 ok\nt2 ok\nt3 ok\nt4 ok\nt5 ok\nt6 ok\nt7 FAILED\nsummary: ok 6\n";
        let argv: Vec<String> = vec!["count-tool".into()];
        let req = Request {
            tool_name: "exec",
            argv: Some(&argv),
            ..Request::default()
        };
        let count = |source: &str| {
            let rule = Rule::from_json(&format!(
                r#"{{"id": "test/count", "family": "t", "match": {{"argv0": ["count-tool"]}},
                    {source}
                    "filters": {{"skipPatterns": ["^t\\d+ ok$"], "keepPatterns": ["FAILED"]}},
                    "counters": [{{"name": "ok line", "pattern": " ok"}}]}}"#
            ))
            .expect("test rule parses");
            let rules = vec![FileRule {
                rule,
                layer: Layer::Project,
                path: "count.json".into(),
            }];
            let (_, r) = compact_text(&req, &rules, text.as_bytes(), 1, &Finish::default());
            r.facts.get("ok line").cloned()
        };
        // postKeep: lines kept by keepPatterns (none mention ok); preKeep: lines that
        // survived skipPatterns (the summary); all: every line, the skipped ones too
        assert_eq!(count(""), Some(serde_json::Value::from(0)));
        assert_eq!(
            count(r#""counterSource": "preKeep","#),
            Some(serde_json::Value::from(1))
        );
        assert_eq!(
            count(r#""counterSource": "all","#),
            Some(serde_json::Value::from(7))
        );
    }

    #[test]
    fn one_giant_line_is_one_cut_line_not_many_identical_ones() {
        let plan = plan(
            &Request {
                tool_name: "exec",
                command: Some("./gen-data"),
                ..Request::default()
            },
            &[],
        );
        let mut s = plan.session();
        s.push(b"start\n");
        let chunk = vec![b'x'; 64 * 1024];
        for _ in 0..48 {
            s.push(&chunk); // 3 MiB, no newline
        }
        s.push(b"\nend\n");
        let r = s.finish(0, &Finish::default());
        let text = &r.inline_text;
        assert!(
            !text.contains('×'),
            "not folded as repeats: {}",
            &text[..text.len().min(500)]
        );
        assert_eq!(text.matches("a line longer than 1 MiB was cut").count(), 1);
        assert!(text.contains("(2097152 bytes not shown); --raw shows all"));
        assert!(text.contains("start") && text.contains("end"));
        assert!(!r.compaction.authoritative);
    }

    #[test]
    fn a_json_document_past_one_mib_is_read_as_json() {
        // 6,000 records, one failing among them, on one minified line (~1.4 MiB) or
        // pretty-printed (~2.7 MiB), fed in 64 KiB chunks
        let records: Vec<serde_json::Value> = (0..6000)
            .map(|i| {
                serde_json::json!({"name": format!("pod-{i}"), "phase":
                    if i == 3333 { "Failed" } else { "Running" },
                    "node": format!("node-{}", i % 7), "note": "x".repeat(150)})
            })
            .collect();
        let doc = serde_json::json!({"kind": "List", "items": records});
        let run = |text: &[u8]| {
            let plan = plan(
                &Request {
                    tool_name: "exec",
                    command: Some("./api-dump"),
                    ..Request::default()
                },
                &[],
            );
            let mut s = plan.session();
            for chunk in text.chunks(64 * 1024) {
                s.push(chunk);
            }
            s.finish(0, &Finish::default()).inline_text
        };
        for text in [
            serde_json::to_vec(&doc).unwrap(),
            serde_json::to_vec_pretty(&doc).unwrap(),
        ] {
            assert!(text.len() > PREFIX_CAP && text.len() < JSON_DOC_CAP);
            let out = run(&text);
            assert!(
                out.contains("items: 6000 records of name, phase, node"),
                "{}",
                &out[..out.len().min(600)]
            );
            // a field that is not the same in every record is not said to be
            assert!(!out.contains("phase=\"Running\""), "{out}");
            assert!(!out.contains("longer than 1 MiB"), "{out}");
        }
        // past the cap, or not one document (JSON lines), it is read line by line
        let mut big = serde_json::to_vec(&doc).unwrap();
        while big.len() <= JSON_DOC_CAP {
            big = [b"[".as_slice(), &big, b",", &big, b"]"].concat();
        }
        assert!(!run(&big).contains("records of"));
        let lines: Vec<u8> = (0..12_000)
            .flat_map(|i| {
                format!("{{\"n\": {i}, \"pad\": \"{}\"}}\n", "y".repeat(100)).into_bytes()
            })
            .collect();
        assert!(lines.len() > PREFIX_CAP);
        assert!(!run(&lines).contains("records of"));
    }

    #[test]
    fn an_error_overwritten_by_a_carriage_return_stays_visible() {
        let argv: Vec<String> = vec!["make".into()];
        let req = Request {
            tool_name: "exec",
            argv: Some(&argv),
            ..Request::default()
        };
        let mut text = String::new();
        for i in 0..300 {
            text.push_str(&format!("compiling unit {i}\n"));
        }
        text.push_str("error: disk full while writing out.bin\rOK\n");
        for i in 0..300 {
            text.push_str(&format!("linking part {i}\n"));
        }
        let (_, r) = compact_text(&req, &[], text.as_bytes(), 0, &Finish::default());
        assert!(
            r.inline_text.contains(
                "error: disk full while writing out.bin [then overwritten on the terminal by: OK]"
            ),
            "{}",
            r.inline_text
        );
        // the cursor sent to the first column redraws the line as a carriage return does:
        // a spinner's frame goes, an error it overwrote stays
        let text = "\u{2819}\x1b[1G\x1b[0Kbuilding for production...\n\
                    error: no space left\x1b[G\x1b[2Kdone in 3s\n\u{2819}\x1b[1G\x1b[0K\n";
        let (_, r) = compact_text(&req, &[], text.as_bytes(), 0, &Finish::default());
        assert_eq!(
            r.inline_text,
            "building for production...\n\
             error: no space left [then overwritten on the terminal by: done in 3s]"
        );
    }

    #[test]
    fn rule_counters_are_reported_beside_a_structured_reducer() {
        let argv: Vec<String> = vec!["docker".into(), "ps".into()];
        let req = Request {
            tool_name: "exec",
            command: Some("docker ps"),
            argv: Some(&argv),
            ..Request::default()
        };
        let text = "CONTAINER ID   IMAGE     STATUS\n\
                    4f2a9c1d8e7b   api       Up 2 hours\n\
                    9b8e7d6c5a43   worker    Exited (1) 3 minutes ago\n";
        let (_, r) = compact_text(&req, &[], text.as_bytes(), 0, &Finish::default());
        assert_eq!(r.classification.matched_reducer, "devops/docker-ps");
        assert_eq!(r.facts.get("container"), Some(&serde_json::Value::from(2)));
    }

    #[test]
    fn a_short_output_of_an_unknown_command_is_not_cut() {
        let run = |n: usize, exit: i32| {
            // distinct lines, nothing to fold: only the size decides
            let text: String = (0..n)
                .map(|i| {
                    format!(
                        "{}: value {}\n",
                        ["alpha", "beta", "gamma"][i % 3],
                        "x".repeat(i)
                    )
                })
                .collect();
            let req = Request {
                tool_name: "exec",
                command: Some("some-tool show"),
                ..Request::default()
            };
            compact_text(&req, &[], text.as_bytes(), exit, &Finish::default()).1
        };
        for exit in [0, 1] {
            let short = run(60, exit);
            assert!(short
                .inline_text
                .contains(&format!("beta: value {}", "x".repeat(31))));
            assert!(
                !short.inline_text.contains("omitted"),
                "{}",
                short.inline_text
            );
            let long = run(61, exit);
            assert!(long.inline_text.contains("omitted"), "{}", long.inline_text);
        }
    }

    #[test]
    fn nothing_a_host_shows_whole_is_cut_and_past_that_the_usual_cuts_apply() {
        // 400 distinct error lines: more than the head, tail and kept middle hold
        let mut seed = 7u64;
        let mut word = || {
            (0..40)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (b'a' + (seed >> 59) as u8 % 16) as char
                })
                .collect::<String>()
        };
        // and as many plain lines, which are no signal: the host shows them too
        let text: String = (0..400)
            .map(|i| format!("error: {i:03} {}\nnote {i:03} {}\n", word(), word()))
            .collect();
        let run = |whole: Option<Whole>, exit: i32| {
            let req = Request {
                tool_name: "exec",
                command: Some("some-tool check"),
                host_shows_whole: whole,
                ..Request::default()
            };
            let fin = Finish {
                host_prints_exit: true,
                ..Finish::default()
            };
            compact_text(&req, &[], text.as_bytes(), exit, &fin)
                .1
                .inline_text
        };
        for exit in [0, 1] {
            let cut = run(None, exit);
            assert!(
                cut.contains("lines hidden") && cut.contains(" cut)"),
                "{cut}"
            );
            // a host that shows 60,000 characters whole (the text is ~41 KB): every line stays
            let whole = run(Some(Whole::chars(60_000, 60_000)), exit);
            for i in [0, 150, 250, 399] {
                assert!(whole.contains(&format!("error: {i:03} ")), "{i}: {whole}");
                assert!(whole.contains(&format!("note {i:03} ")), "{i}: {whole}");
            }
            assert!(!whole.contains(" cut)"), "{whole}");
            // a host that shows 5,000 whole: the output is past it, so the usual cuts apply
            assert_eq!(run(Some(Whole::chars(5_000, 5_000)), exit), cut);
            // a host that also stops at 500 lines (the text has 800): the usual cuts
            let lines = Whole {
                lines: Some(500),
                ..Whole::chars(60_000, 60_000)
            };
            assert_eq!(run(Some(lines), exit), cut);
            let lines = Whole {
                lines: Some(800),
                ..Whole::chars(60_000, 60_000)
            };
            assert_eq!(run(Some(lines), exit), whole);
            // Claude Code: 60,000 whole here, but a failure only 10,000
            let claude = run(Some(Whole::chars(60_000, 10_000)), exit);
            if exit == 0 {
                assert_eq!(claude, whole);
            } else {
                assert_eq!(claude, cut);
            }
        }
    }

    #[test]
    fn the_plan_names_the_structured_reducer_the_trace_shows() {
        let reducer_of = |cmd: &str, no_omit: bool| {
            let req = Request {
                tool_name: "exec",
                command: Some(cmd),
                no_omit,
                ..Request::default()
            };
            let p = plan(&req, &[]);
            let fin = Finish {
                trace: true,
                ..Finish::default()
            };
            let traced = compact_text(&req, &[], b"src/a.rs\n", 0, &fin)
                .1
                .trace
                .and_then(|t| t.structured_reducer);
            assert_eq!(traced.as_deref(), p.reducer, "{cmd}");
            p.reducer
        };
        assert_eq!(reducer_of("rg -n TODO src", false), Some("search"));
        // a list of files, not of hits
        assert_eq!(reducer_of("rg -l TODO src", false), Some("listing"));
        assert_eq!(reducer_of("grep -rl TODO src", false), Some("listing"));
        assert_eq!(reducer_of("rg -l TODO src", true), None);
        assert_eq!(reducer_of("some-tool run", false), None);
    }
}
