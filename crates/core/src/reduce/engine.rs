//! The streaming, rule-driven line reducer.
//!
//! Lines arrive one at a time; memory stays bounded whatever the input size:
//! a head of the first entries, a ring of the last entries, and a capped list of
//! entries kept from the middle (error/warning lines with context, keep-blocks).
//! Runs of identical or similar lines fold into one entry with a count. An error or
//! warning line whose shape (the line but for its numbers) came before is shown again,
//! alone, a few times (unless it is the very same line), and after that only counted on
//! its first occurrence. Every
//! omitted or filtered line is accounted for, so the rendering can say exactly
//! what was left out and where.

use std::borrow::Cow;
use std::collections::HashMap;

use super::shape::{same_shape, shape, without_times, Fold};
use super::signal::{self, Level};
use super::text::{clip_line, looks_like_a_blob, resolve_cr, strip_ansi};
use crate::rules::compiled::CompiledRule;
use crate::rules::model::{CounterSource, FactMode};

/// Most entries kept from the middle of the output (beyond head and tail).
pub const MAX_KEPT_ENTRIES: usize = 250;
/// Most bytes of kept middle entries.
pub const MAX_KEPT_BYTES: usize = 256 * 1024;
/// A hash of a line's exact text.
fn text_hash(line: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    line.hash(&mut h);
    h.finish()
}

/// Lines between the first and the last of a similar run of error/warning lines shown
/// before the rest are only counted: with them, a run shows as many lines as a repeated
/// shape does ([`REPEATS_SHOWN`] after the first).
pub const SIGNAL_RUN_MIDDLE: usize = REPEATS_SHOWN - 1;
/// Most characters of those middle lines (long lines: fewer of them).
pub const SIGNAL_RUN_MIDDLE_CHARS: usize = 1000;
/// Later repeats of an error/warning line's shape (the same line but for its numbers)
/// shown in full before the rest are only counted.
const REPEATS_SHOWN: usize = 8;
/// Most lines of indented continuation kept after a signal line (tracebacks).
const MAX_CONTINUATION: usize = 30;

/// One shown line, or a run of identical/similar lines folded into one.
#[derive(Debug, Clone)]
pub struct Entry {
    pub first: u64,
    pub last: u64,
    pub text: String,
    pub last_text: Option<String>,
    /// The second line of a similar run (shown when the run has exactly three lines).
    pub second_text: Option<String>,
    /// A similar run of error/warning lines: its lines between the first and the last,
    /// up to [`SIGNAL_RUN_MIDDLE`] (each a fact of its own: `Defect3.scala: L5 [E3]`).
    pub middle: Vec<String>,
    /// Every line of this run is its first line but for times of day (a retry logged
    /// again and again): its middle lines say nothing new and stay folded.
    pub times_only: bool,
    /// What differs along a similar run, when it is one word.
    pub vary: super::vary::Vary,
    pub count: u64,
    pub identical: bool,
    pub keep: bool,
    pub level: Level,
    pub shape: u64,
    /// This is the first occurrence of a signal line that repeats later (group id).
    pub group: Option<u32>,
    /// This is a later repeat of the signal line of that group.
    pub repeat_of: Option<u32>,
    /// Lines cut for size just before this entry.
    pub omitted_before: u64,
    /// Some of `omitted_before` held text (not all blank).
    pub omitted_text_before: bool,
    /// Signal lines among `omitted_before`.
    pub omitted_signals_before: u64,
    /// Noise lines dropped by filters just before this entry.
    pub filtered_before: u64,
    /// Starts a keep-block (no folding across a block start).
    pub block_start: bool,
}

/// A line about to become an entry; its text is only copied if it does not fold.
pub struct Pending<'a> {
    pub line_no: u64,
    pub text: std::borrow::Cow<'a, str>,
    pub shape: u64,
    pub keep: bool,
    pub level: Level,
    pub group: Option<u32>,
    pub repeat_of: Option<u32>,
    pub block_start: bool,
}

/// The last entries of a track, oldest first. Once full, the oldest entry's slot takes
/// the next entry in place (its text buffer reused): a line of a long log that is not kept
/// costs no allocation and no move of a whole entry.
#[derive(Debug, Default)]
pub struct Ring {
    slots: Vec<Entry>,
    /// Where the oldest entry is, once the ring has been full.
    start: usize,
}

impl Ring {
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    fn slot(&self, i: usize) -> usize {
        let j = self.start + i;
        if j >= self.slots.len() {
            j - self.slots.len()
        } else {
            j
        }
    }

    /// Oldest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Entry> {
        let (a, b) = self.slots.split_at(self.start);
        b.iter().chain(a)
    }

    fn iter_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut Entry> {
        let (a, b) = self.slots.split_at_mut(self.start);
        b.iter_mut().chain(a)
    }

    pub fn back(&self) -> Option<&Entry> {
        let n = self.slots.len().checked_sub(1)?;
        self.slots.get(self.slot(n))
    }

    fn back_mut(&mut self) -> Option<&mut Entry> {
        let n = self.slots.len().checked_sub(1)?;
        let i = self.slot(n);
        self.slots.get_mut(i)
    }

    fn front(&self) -> Option<&Entry> {
        self.slots.get(self.start)
    }

    fn front_mut(&mut self) -> Option<&mut Entry> {
        let i = self.start;
        self.slots.get_mut(i)
    }

    /// Appends to a ring that has never been full.
    fn push(&mut self, e: Entry) {
        debug_assert_eq!(self.start, 0);
        self.slots.push(e);
    }

    /// The oldest entry's slot becomes the newest: the caller has refilled it.
    fn rotate(&mut self) {
        self.start = self.slot(1);
    }
}

/// What an entry leaving the ring hands to the one after it: its omitted and filtered lines
/// and itself, counted.
struct Handed {
    omitted: u64,
    text: bool,
    signals: u64,
    filtered: u64,
}

/// Head, tail ring and kept middle for one sequence of entries.
#[derive(Debug, Default)]
pub struct Track {
    pub head: Vec<Entry>,
    pub ring: Ring,
    pub kept: Vec<Entry>,
    head_cap: usize,
    ring_cap: usize,
    kept_bytes: usize,
    /// Filtered lines since the last entry was created.
    pending_filtered: u64,
    /// Middle entries that could not be kept because the kept list was full.
    pub dropped_kept: u64,
    pub dropped_kept_signals: u64,
    pub entries: u64,
    /// Repeats of each signal group that were cut.
    pub hidden_repeats: Vec<u64>,
    unlimited: bool,
}

impl Track {
    pub fn new(head_cap: usize, ring_cap: usize, unlimited: bool) -> Self {
        Track {
            head_cap,
            ring_cap: ring_cap.max(1),
            unlimited,
            ..Track::default()
        }
    }

    pub fn is_empty(&self) -> bool {
        self.head.is_empty() && self.ring.is_empty() && self.kept.is_empty()
    }

    /// Every entry is still held (no-omit mode, or an output the host shows whole): the
    /// render shows them all.
    pub fn holds_all(&self) -> bool {
        self.unlimited
    }

    fn last_mut(&mut self) -> Option<&mut Entry> {
        if !self.ring.is_empty() {
            return self.ring.back_mut();
        }
        self.head.last_mut()
    }

    pub fn last(&self) -> Option<&Entry> {
        self.ring.back().or_else(|| self.head.last())
    }

    pub fn filtered(&mut self, n: u64) {
        self.pending_filtered += n;
    }

    pub fn trailing_filtered(&self) -> u64 {
        self.pending_filtered
    }

    /// Mark the last `n` entries as kept (context before a signal).
    fn keep_last(&mut self, n: usize) {
        let mut left = n;
        for e in self.ring.iter_mut().rev() {
            if left == 0 {
                return;
            }
            e.keep = true;
            left -= 1;
        }
        for e in self.head.iter_mut().rev() {
            if left == 0 {
                return;
            }
            e.keep = true;
            left -= 1;
        }
    }

    /// A new entry for the line `e`.
    fn push(&mut self, e: Pending<'_>) {
        let filtered = std::mem::take(&mut self.pending_filtered);
        self.entries += 1;
        if self.unlimited || self.head.len() < self.head_cap {
            let mut entry = Entry::new(e);
            entry.filtered_before = filtered;
            self.head.push(entry);
            return;
        }
        if self.ring.len() < self.ring_cap || self.keeps(self.ring.front()) {
            let mut entry = Entry::new(e);
            entry.filtered_before = filtered;
            self.ring_push(entry);
            return;
        }
        // the oldest entry leaves, counted, and its slot takes the line
        let slot = self.ring.front_mut().expect("a full ring has a front");
        let handed = Self::counted(
            slot,
            &mut self.dropped_kept,
            &mut self.dropped_kept_signals,
            &mut self.hidden_repeats,
        );
        slot.refill(e);
        slot.filtered_before = filtered;
        self.ring.rotate();
        self.hand_on(handed);
    }

    /// Whether the entry leaving the ring goes to the kept list.
    fn keeps(&self, leaving: Option<&Entry>) -> bool {
        leaving.is_some_and(|old| {
            old.keep && self.kept.len() < MAX_KEPT_ENTRIES && self.kept_bytes < MAX_KEPT_BYTES
        })
    }

    /// An unlimited track becomes a bounded one from here on: what it holds past its head
    /// goes through the ring as it would have (evicted entries kept or counted as cut).
    pub fn limit(&mut self) {
        if !self.unlimited {
            return;
        }
        self.unlimited = false;
        let rest: Vec<Entry> = self
            .head
            .drain(self.head_cap.min(self.head.len())..)
            .collect();
        for e in rest {
            self.ring_push(e);
        }
    }

    fn ring_push(&mut self, e: Entry) {
        if self.ring.len() < self.ring_cap {
            self.ring.push(e);
            return;
        }
        let slot = self.ring.front_mut().expect("a full ring has a front");
        let old = std::mem::replace(slot, e);
        self.ring.rotate();
        if old.keep && self.kept.len() < MAX_KEPT_ENTRIES && self.kept_bytes < MAX_KEPT_BYTES {
            self.kept_bytes += old.text.len()
                + old.last_text.as_ref().map_or(0, String::len)
                + old.middle.iter().map(String::len).sum::<usize>();
            self.kept.push(old);
            return;
        }
        let handed = Self::counted(
            &old,
            &mut self.dropped_kept,
            &mut self.dropped_kept_signals,
            &mut self.hidden_repeats,
        );
        self.hand_on(handed);
    }

    #[cfg(test)]
    pub(crate) fn push_for_test(&mut self, mut e: Entry) {
        e.filtered_before += std::mem::take(&mut self.pending_filtered);
        self.entries += 1;
        if self.head.len() < self.head_cap {
            self.head.push(e);
        } else {
            self.ring_push(e);
        }
    }

    /// Counts an entry cut from the middle: as a kept entry that found no room, as a hidden
    /// repeat, and what it hands to the entry after it.
    fn counted(
        old: &Entry,
        dropped_kept: &mut u64,
        dropped_kept_signals: &mut u64,
        hidden_repeats: &mut Vec<u64>,
    ) -> Handed {
        if old.keep {
            *dropped_kept += old.count;
            if old.level > Level::None {
                *dropped_kept_signals += old.count;
            }
        }
        if let Some(g) = old.repeat_of {
            let g = g as usize;
            if hidden_repeats.len() <= g {
                hidden_repeats.resize(g + 1, 0);
            }
            hidden_repeats[g] += old.count;
        }
        let signals = if old.level > Level::None {
            old.count
        } else {
            0
        };
        Handed {
            omitted: old.omitted_before + old.count,
            text: old.omitted_text_before || !old.text.is_empty(),
            signals: old.omitted_signals_before + signals,
            filtered: old.filtered_before,
        }
    }

    /// The cut entry's accounting goes to the oldest entry left.
    fn hand_on(&mut self, h: Handed) {
        let next = self
            .ring
            .front_mut()
            .expect("ring holds at least one entry after a push");
        next.omitted_before += h.omitted;
        next.omitted_text_before |= h.text;
        next.omitted_signals_before += h.signals;
        next.filtered_before += h.filtered;
    }
}

impl Entry {
    fn new(e: Pending<'_>) -> Entry {
        Entry {
            first: e.line_no,
            last: e.line_no,
            text: e.text.into_owned(),
            last_text: None,
            second_text: None,
            middle: Vec::new(),
            times_only: true,
            vary: super::vary::Vary::Unknown(0),
            count: 1,
            identical: true,
            keep: e.keep,
            level: e.level,
            shape: e.shape,
            group: e.group,
            repeat_of: e.repeat_of,
            omitted_before: 0,
            omitted_text_before: false,
            omitted_signals_before: 0,
            filtered_before: 0,
            block_start: e.block_start,
        }
    }

    /// This entry becomes a new one for `e`, its text buffer reused (unless a long line
    /// made it large: the ring does not keep such buffers for every line after).
    fn refill(&mut self, e: Pending<'_>) {
        if self.text.capacity() <= TEXT_REUSE_MAX {
            self.text.clear();
            self.text.push_str(&e.text);
        } else {
            self.text = e.text.into_owned();
        }
        self.first = e.line_no;
        self.last = e.line_no;
        self.last_text = None;
        self.second_text = None;
        self.middle.clear();
        self.times_only = true;
        self.vary = super::vary::Vary::Unknown(0);
        self.count = 1;
        self.identical = true;
        self.keep = e.keep;
        self.level = e.level;
        self.shape = e.shape;
        self.group = e.group;
        self.repeat_of = e.repeat_of;
        self.omitted_before = 0;
        self.omitted_text_before = false;
        self.omitted_signals_before = 0;
        self.filtered_before = 0;
        self.block_start = e.block_start;
    }
}

/// Largest text buffer a ring slot keeps for the next line.
const TEXT_REUSE_MAX: usize = 4096;

/// What a caller that searched a whole chunk of output at once knows of one of its lines.
#[derive(Debug, Clone, Copy, Default)]
pub struct Seen {
    /// No carriage return, escape code or 8-bit CSI lead byte (`0xC2`): cleaning the line
    /// is trimming it.
    pub plain: bool,
    /// Plain, and no keyword of [`signal`] starts in it: it is neither an error nor a
    /// warning, and is not searched again.
    pub keyword_free: bool,
}

/// Options that do not come from the rule.
#[derive(Debug, Clone, Copy, Default)]
pub struct EngineOptions {
    /// Filters and dedupe only: nothing is cut.
    pub no_omit: bool,
    /// Nothing is cut while the output stays within this many bytes (a host that shows an
    /// output up to that size whole); past it the usual head, tail and kept lines apply.
    pub whole_bytes: Option<u64>,
    /// … and within this many lines (pi and opencode stop at 2,000).
    pub whole_lines: Option<u64>,
}

#[derive(Debug, Default)]
struct FactState {
    value: u64,
    seen: bool,
}

/// The streaming reducer for one rule.
pub struct LineEngine<'r> {
    rule: &'r CompiledRule,
    pub line_no: u64,
    pub main: Track,
    /// Lines matching keepPatterns (plus signals), when the rule has keepPatterns.
    pub keep_track: Option<Track>,
    pub keep_matched_any: bool,
    /// Counter hits over all surviving lines and over keep-matched lines.
    pub counters_pre: Vec<u64>,
    pub counters_post: Vec<u64>,
    facts: Vec<Vec<FactState>>,
    pub match_output_hits: Vec<bool>,
    pub error_lines: u64,
    pub warning_lines: u64,
    pub filtered_lines: u64,
    /// The last line was dropped as noise (see `push_clean_checked`).
    after_noise: bool,
    in_block: Option<(usize, usize)>, // (block index, lines so far)
    context_after_left: usize,
    continuation_left: usize,
    groups: HashMap<u64, u32>,
    /// Later repeats of each group shown in full so far (see [`REPEATS_SHOWN`]).
    repeats_shown: Vec<u8>,
    /// A hash of each group's first line, exactly as it was.
    group_texts: Vec<u64>,
    /// Reused buffer for the signal scan.
    lower: Vec<u8>,
    /// Bytes of raw lines seen, and the size up to which nothing is cut.
    raw_bytes: u64,
    whole_bytes: Option<u64>,
    whole_lines: Option<u64>,
    /// Whether the line being pushed is kept, decided by the caller (see
    /// [`LineEngine::push_line_kept`]).
    forced: Option<bool>,
}

impl<'r> LineEngine<'r> {
    pub fn new(rule: &'r CompiledRule, opts: EngineOptions) -> Self {
        let s = &rule.settings;
        let head_cap = s.head.max(s.fail_head).max(s.whole_under);
        let ring_cap = s.tail.max(s.fail_tail).max(s.context_before + 1);
        let unlimited = opts.no_omit || opts.whole_bytes.is_some();
        let keep_track = (!rule.keep.is_empty()).then(|| Track::new(head_cap, ring_cap, unlimited));
        LineEngine {
            rule,
            line_no: 0,
            main: Track::new(head_cap, ring_cap, unlimited),
            keep_track,
            keep_matched_any: false,
            counters_pre: vec![0; rule.counters.len()],
            counters_post: vec![0; rule.counters.len()],
            facts: rule
                .facts
                .iter()
                .map(|f| f.values.iter().map(|_| FactState::default()).collect())
                .collect(),
            match_output_hits: vec![false; rule.match_output.len()],
            error_lines: 0,
            warning_lines: 0,
            filtered_lines: 0,
            after_noise: false,
            in_block: None,
            context_after_left: 0,
            continuation_left: 0,
            groups: HashMap::new(),
            repeats_shown: Vec::new(),
            group_texts: Vec::new(),
            lower: Vec::new(),
            raw_bytes: 0,
            whole_bytes: opts.whole_bytes.filter(|_| !opts.no_omit),
            whole_lines: opts.whole_lines,
            forced: None,
        }
    }

    pub fn rule(&self) -> &'r CompiledRule {
        self.rule
    }

    /// Clean a raw line the way the rule's transforms say: carriage returns resolved,
    /// ANSI stripped, trailing whitespace trimmed.
    pub fn clean<'a>(&self, raw: &'a str) -> std::borrow::Cow<'a, str> {
        if raw.is_empty() {
            // nothing to search: a command that printed nothing then asks for no CPU feature
            // detection (7 `cpuid` instructions, ~30 µs in a virtual machine)
            return std::borrow::Cow::Borrowed(raw);
        }
        // the cursor sent back to the first column (`ESC[1G`, a spinner's or progress
        // line's redraw in a terminal) is a carriage return as far as what stays shown
        let b = raw.as_bytes();
        if memchr::memchr_iter(0x1b, b).any(|k| {
            let after = &b[k + 1..];
            after.starts_with(b"[1G") || after.starts_with(b"[G")
        }) {
            let redrawn = raw.replace("\x1b[1G", "\r").replace("\x1b[G", "\r");
            return std::borrow::Cow::Owned(self.clean(&redrawn).into_owned());
        }
        let line = resolve_cr(raw);
        // an error a carriage return overwrote (`error: disk full\rOK`) stays visible
        let hidden = super::text::overwritten_errors(raw, line);
        if !hidden.is_empty() {
            // what overwrote it may be nothing visible (a colour code alone): then the error
            // is simply what the line says
            let joined = if strip_ansi(line).trim().is_empty() {
                hidden.join(" | ")
            } else {
                format!(
                    "{} [then overwritten on the terminal by: {line}]",
                    hidden.join(" | ")
                )
            };
            let cleaned = if self.rule.settings.strip_ansi {
                strip_ansi(&joined).into_owned()
            } else {
                joined
            };
            return std::borrow::Cow::Owned(cleaned.trim_end().to_string());
        }
        let line = if self.rule.settings.strip_ansi {
            strip_ansi(line)
        } else {
            std::borrow::Cow::Borrowed(line)
        };
        match line {
            std::borrow::Cow::Borrowed(s) => std::borrow::Cow::Borrowed(s.trim_end()),
            std::borrow::Cow::Owned(mut s) => {
                s.truncate(s.trim_end().len());
                std::borrow::Cow::Owned(s)
            }
        }
    }

    /// When more than `bytes` came, the usual cuts after all (a host shows less whole than
    /// the engine was told at the start: Claude Code's failures).
    pub fn cut_past(&mut self, bytes: u64) {
        if self.raw_bytes > bytes {
            self.whole_bytes = None;
            self.main.limit();
            if let Some(k) = self.keep_track.as_mut() {
                k.limit();
            }
        }
    }

    /// Feed one raw line (without its newline).
    pub fn push_line(&mut self, raw: &str) {
        self.push_line_checked(raw, Seen::default());
    }

    /// Feed one raw line whose keeping the caller decides: kept lines are shown (folded
    /// with their neighbours as usual), the others only counted; no error context is
    /// pulled in. Rendered with no head and no tail, the track shows exactly the kept lines
    /// with a counted marker for each run of the others.
    pub fn push_line_kept(&mut self, raw: &str, keep: bool) {
        self.forced = Some(keep);
        self.push_line_checked(raw, Seen::default());
        self.forced = None;
    }

    /// Whether lines are classified as error/warning at all.
    pub fn classifies(&self) -> bool {
        self.rule.settings.signals
    }

    /// [`push_line`](Self::push_line), with what the caller's search of `raw` found
    /// ([`Seen`]): a plain line is only trimmed, a keyword-free one is not searched again.
    pub fn push_line_checked(&mut self, raw: &str, seen: Seen) {
        self.line_no += 1;
        if let Some(cap) = self.whole_bytes {
            self.raw_bytes += raw.len() as u64 + 1;
            if self.raw_bytes > cap {
                // too big for the host to show whole: cut as usual from here on
                self.cut_past(cap);
            } else if self.whole_lines.is_some_and(|n| self.line_no > n) {
                // too many lines for it
                self.cut_past(0);
            }
        }
        if seen.plain {
            // nothing for cleaning to resolve or strip
            self.push_clean_checked(raw.trim_end(), seen.keyword_free);
        } else {
            let cleaned = self.clean(raw);
            self.push_clean_checked(&cleaned, false);
        }
    }

    /// Feed one already-cleaned line.
    pub fn push_clean(&mut self, line: &str) {
        self.push_clean_checked(line, false);
    }

    fn push_clean_checked(&mut self, line: &str, keyword_free: bool) {
        let rule = self.rule;
        let s = &rule.settings;

        for (i, mo) in rule.match_output.iter().enumerate() {
            if !self.match_output_hits[i] && mo.0.is_match(line) {
                self.match_output_hits[i] = true;
            }
        }

        let count_all = s.counter_source == CounterSource::All;
        let mut counter_hits: u64 = 0; // bitmask of the first 64 counters
        if count_all {
            counter_hits = self.count(line);
        }
        // a blank line after noise (Gradle prints one after each passing test) is its
        // layout and goes with it, so that a cut never counts it as text left out
        let blank_after_noise = self.after_noise && line.trim().is_empty();
        if blank_after_noise || rule.skip.iter().any(|re| re.is_match(line)) {
            self.after_noise = true;
            self.filtered_lines += 1;
            self.main.filtered(1);
            if let Some(k) = &mut self.keep_track {
                k.filtered(1);
            }
            return;
        }
        self.after_noise = false;

        if !count_all {
            counter_hits = self.count(line);
        }
        for (i, fx) in rule.facts.iter().enumerate() {
            if let Some(caps) = fx.re.captures(line) {
                for (j, (_, group)) in fx.values.iter().enumerate() {
                    let Some(v) = caps
                        .iter()
                        .find(|(k, _)| k == group)
                        .and_then(|(_, v)| v.parse::<u64>().ok())
                    else {
                        continue;
                    };
                    let st = &mut self.facts[i][j];
                    st.value = match fx.mode {
                        FactMode::Sum => st.value + v,
                        FactMode::Last => v,
                        FactMode::Max => st.value.max(v),
                    };
                    st.seen = true;
                }
            }
        }

        let level = if s.signals && !keyword_free {
            signal::classify_with(line, &mut self.lower)
        } else {
            Level::None
        };
        match level {
            Level::Error => self.error_lines += 1,
            Level::Warning => self.warning_lines += 1,
            Level::None => {}
        }

        // keepPatterns track
        if self.keep_track.is_some() {
            let matched = rule.keep.iter().any(|re| re.is_match(line));
            if matched {
                self.keep_matched_any = true;
                for (i, _) in rule.counters.iter().enumerate().take(64) {
                    if counter_hits & (1 << i) != 0 {
                        self.counters_post[i] += 1;
                    }
                }
            }
            let e = (matched || level > Level::None)
                .then(|| self.make_entry(line, level, level > Level::None, false));
            if let Some(track) = &mut self.keep_track {
                match e {
                    Some(e) => Self::fold_or_push(
                        track,
                        e,
                        s.dedupe,
                        s.collapse_similar,
                        s.collapse_repeats,
                        s.fold,
                    ),
                    None => track.filtered(1),
                }
            }
        }

        if let Some(keep) = self.forced {
            let e = self.make_entry(line, level, keep, false);
            self.push_main(e);
            return;
        }

        // A later repeat of a signal line seen before (not adjacent): counted, not kept again,
        // and it pulls in no context.
        let mut e = self.make_entry(line, level, level > Level::None, false);
        let mut repeat = false;
        // a repeat shown in full: kept, but it pulls in no context (that of its first
        // occurrence said it)
        let mut shown_repeat = false;
        if level > Level::None && s.collapse_repeats {
            match self.groups.get(&e.shape) {
                Some(&g) => {
                    // A run right after the first occurrence folds into it (and stays kept);
                    // anything later is a repeat: counted, not kept again.
                    let continues_first = self
                        .main
                        .last()
                        .is_some_and(|l| l.group == Some(g) && l.level == level);
                    // the first few repeats are shown in full: lines of one shape that
                    // differ by a number are often different facts (`Suite2`, `Suite3`
                    // failing), and a few more lines cost little; a log repeating an
                    // error hundreds of times still shows it a few times, then counts it
                    // (the very line again, as a build's closing summary repeats its
                    // errors, says nothing new: counted)
                    let shown = self.repeats_shown.get(g as usize).copied().unwrap_or(0);
                    let same_text = self.group_texts.get(g as usize) == Some(&text_hash(line));
                    if !continues_first && !same_text && usize::from(shown) < REPEATS_SHOWN {
                        if self.repeats_shown.len() <= g as usize {
                            self.repeats_shown.resize(g as usize + 1, 0);
                        }
                        self.repeats_shown[g as usize] += 1;
                        shown_repeat = true;
                    } else if !continues_first {
                        repeat = true;
                        e.keep = false;
                        e.repeat_of = Some(g);
                    }
                }
                None if self.groups.len() < 4096 => {
                    let g = self.groups.len() as u32;
                    self.groups.insert(e.shape, g);
                    self.group_texts.push(text_hash(line));
                    e.group = Some(g);
                }
                None => {}
            }
        }
        let signal = level > Level::None && !repeat && !shown_repeat;

        // keep-blocks, context and continuation
        let mut keep = signal || shown_repeat;
        if let Some((bi, n)) = self.in_block {
            keep = true;
            let b = &rule.blocks[bi];
            let ended = match &b.end {
                Some(end) => end.is_match(line),
                None => line.trim().is_empty(),
            };
            if ended || n + 1 >= b.max_lines {
                self.in_block = None;
            } else {
                self.in_block = Some((bi, n + 1));
            }
        } else if let Some(bi) = rule.blocks.iter().position(|b| b.start.is_match(line)) {
            keep = true;
            e.block_start = true;
            self.in_block = Some((bi, 1));
        }
        if signal {
            if s.context_before > 0 {
                self.main.keep_last(s.context_before);
            }
            self.context_after_left = s.context_after;
            self.continuation_left = MAX_CONTINUATION;
        } else if repeat || shown_repeat {
            self.context_after_left = 0;
            self.continuation_left = 0;
        } else if self.context_after_left > 0 {
            keep = true;
            self.context_after_left -= 1;
        } else if self.continuation_left > 0 {
            let indented = line.starts_with([' ', '\t']) && !line.trim().is_empty();
            let trace = line.starts_with("at ") || line.starts_with("Caused by");
            if indented || trace {
                keep = true;
                self.continuation_left -= 1;
            } else {
                self.continuation_left = 0;
            }
        }
        e.keep = keep;
        self.push_main(e);
    }

    /// Fold `e` into the main track's last entry, or push it, as the rule's settings say.
    fn push_main(&mut self, e: Pending<'_>) {
        let s = &self.rule.settings;
        Self::fold_or_push(
            &mut self.main,
            e,
            s.dedupe,
            s.collapse_similar,
            s.collapse_repeats,
            s.fold,
        );
    }

    fn make_entry<'a>(
        &self,
        line: &'a str,
        level: Level,
        keep: bool,
        block_start: bool,
    ) -> Pending<'a> {
        let s = &self.rule.settings;
        Pending {
            line_no: self.line_no,
            // hashed only where repeat groups need it; runs compare shapes directly
            // error/warning lines that differ in a path are different facts
            shape: if s.collapse_repeats && level > Level::None {
                shape(
                    line,
                    Fold {
                        paths: false,
                        ..s.fold
                    },
                )
            } else {
                0
            },
            // the blob test reads the whole line: only a long one is asked
            text: if line.len() > s.max_line_chars
                && (s.clip_every_long_line || looks_like_a_blob(line))
            {
                clip_line(line, s.max_line_chars)
            } else {
                Cow::Borrowed(line)
            },
            keep,
            level,
            group: None,
            repeat_of: None,
            block_start,
        }
    }

    fn fold_or_push(
        track: &mut Track,
        e: Pending<'_>,
        dedupe: bool,
        similar: bool,
        similar_signals: bool,
        fold: Fold,
    ) {
        if let Some(prev) = track.last_mut() {
            if prev.level == e.level && !e.block_start {
                let prev_text = prev.last_text.as_deref().unwrap_or(&prev.text);
                let identical = prev.identical && prev_text == e.text;
                let blank = e.text.is_empty() && prev.text.is_empty();
                let may_fold_similar = if e.level > Level::None {
                    similar_signals
                } else {
                    similar
                };
                let similar_shape = may_fold_similar
                    && !e.text.is_empty()
                    && if e.shape != 0 && prev.shape != 0 {
                        prev.shape == e.shape
                    } else {
                        same_shape(prev_text, &e.text, fold)
                    };
                if (dedupe && (identical || blank)) || similar_shape {
                    prev.count += 1;
                    prev.last = e.line_no;
                    prev.keep |= e.keep;
                    if !identical && !blank {
                        if prev.level > Level::None {
                            prev.vary.push_signal(&prev.text, &e.text);
                        } else {
                            prev.vary.push(&prev.text, &e.text);
                        }
                        prev.identical = false;
                        if prev.count == 2 {
                            prev.second_text = Some(e.text.to_string());
                        }
                        if prev.level > Level::None && prev.times_only {
                            prev.times_only = without_times(&prev.text) == without_times(&e.text);
                        }
                        let room = prev.middle.len() < SIGNAL_RUN_MIDDLE
                            && prev.middle.iter().map(String::len).sum::<usize>()
                                + prev.last_text.as_ref().map_or(0, String::len)
                                <= SIGNAL_RUN_MIDDLE_CHARS;
                        if prev.level > Level::None && room {
                            if let Some(last) = prev.last_text.take() {
                                prev.middle.push(last);
                            }
                        }
                        // reuse the buffer of the previous last line
                        let last = prev.last_text.get_or_insert_with(String::new);
                        last.clear();
                        last.push_str(&e.text);
                    } else {
                        if !blank {
                            prev.vary.again(&prev.text);
                        }
                        if prev.count == 2 {
                            prev.second_text = Some(e.text.to_string());
                        }
                    }
                    return;
                }
            }
        }
        track.push(e);
    }

    /// Count `line` into every counter whose pattern it matches; the bitmask of the first 64.
    fn count(&mut self, line: &str) -> u64 {
        let mut hits: u64 = 0;
        for (i, c) in self.rule.counters.iter().enumerate() {
            if c.1.is_match(line) {
                self.counters_pre[i] += 1;
                if i < 64 {
                    hits |= 1 << i;
                }
            }
        }
        hits
    }

    /// Counter values as the rule's `counterSource` says.
    pub fn counter_values(&self) -> Vec<(String, u64)> {
        let post = self.rule.settings.counter_source == CounterSource::PostKeep
            && self.keep_track.is_some()
            && self.keep_matched_any;
        self.rule
            .counters
            .iter()
            .enumerate()
            .map(|(i, c)| {
                (
                    c.0.clone(),
                    if post {
                        self.counters_post[i]
                    } else {
                        self.counters_pre[i]
                    },
                )
            })
            .collect()
    }

    /// Facts read from summary lines (only those that were seen).
    pub fn extracted_facts(&self) -> Vec<(String, u64)> {
        let mut out = Vec::new();
        for (i, fx) in self.rule.facts.iter().enumerate() {
            for (j, (name, _)) in fx.values.iter().enumerate() {
                let st = &self.facts[i][j];
                if st.seen {
                    out.push((name.clone(), st.value));
                }
            }
        }
        out
    }

    /// The first matchOutput message whose pattern matched, in rule order.
    pub fn match_output_message(&self) -> Option<&'r str> {
        self.rule
            .match_output
            .iter()
            .zip(&self.match_output_hits)
            .find(|(_, hit)| **hit)
            .map(|(mo, _)| mo.1.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::render::render_track;
    use crate::rules::model::Rule;

    fn engine_text(rule_json: &str, lines: &[&str]) -> Vec<String> {
        engine_window(rule_json, lines, 50)
    }

    /// The lines rendered with `edge` entries shown at the head and at the tail.
    fn engine_window(rule_json: &str, lines: &[&str], edge: usize) -> Vec<String> {
        let rule = Rule::from_json(rule_json).unwrap();
        let rule = CompiledRule::compile(&rule).unwrap();
        let mut e = LineEngine::new(&rule, EngineOptions::default());
        for l in lines {
            e.push_line(l);
        }
        render_track(&e.main, edge, edge, true).lines
    }

    #[test]
    fn a_blank_line_after_noise_goes_with_it() {
        let rule = r#"{"id": "t/x", "family": "t", "match": {"argv0": ["x"]},
            "filters": {"skipPatterns": [" PASSED$"]}}"#;
        let mut lines = vec!["> Task :test", ""];
        for _ in 0..40 {
            lines.extend(["T > ok() PASSED", ""]);
        }
        lines.extend(["T > bad() FAILED", "", "BUILD FAILED"]);
        // every blank line after a passing test is layout of the noise and goes with it;
        // those after kept lines stay
        assert_eq!(
            engine_window(rule, &lines, 2),
            vec!["> Task :test", "", "T > bad() FAILED", "", "BUILD FAILED"]
        );
        let compiled = CompiledRule::compile(&Rule::from_json(rule).unwrap()).unwrap();
        let mut e = LineEngine::new(&compiled, EngineOptions::default());
        for l in &lines {
            e.push_line(l);
        }
        assert_eq!(e.filtered_lines, 80);
        // so a cut among kept lines counts no blank line as text left out
        let pools: Vec<String> = (0..30).map(|i| format!("INFO pool {i} closed")).collect();
        let mut lines = vec!["start"];
        for p in &pools {
            lines.extend(["T > ok() PASSED", "", p.as_str()]);
        }
        let out = engine_window(rule, &lines, 2).join("\n");
        assert!(out.contains("... 27 lines omitted ..."), "{out}");
    }

    #[test]
    fn folding_paths_never_merges_distinct_errors() {
        let rule = r#"{"id": "t/x", "family": "t", "match": {"argv0": ["x"]},
            "collapse": {"similar": true, "fold": ["numbers", "paths"], "repeats": true}}"#;
        let out = engine_text(
            rule,
            &[
                "GET /health 200 3ms",
                "GET /api/cart 200 12ms",
                "GET /api/orders 200 7ms",
                "GET /health 200 4ms",
                "error: cannot open /etc/app/a.conf",
                "error: cannot open /etc/app/b.conf",
                "GET /health 200 5ms",
            ],
        );
        assert_eq!(out[0], "GET /health 200 3ms");
        assert_eq!(out[1], "... 2 similar lines ...");
        assert_eq!(out[2], "GET /health 200 4ms");
        assert!(out.contains(&"error: cannot open /etc/app/a.conf".to_string()));
        assert!(out.contains(&"error: cannot open /etc/app/b.conf".to_string()));
    }

    #[test]
    fn the_very_same_error_line_again_is_counted_not_shown() {
        let rule = r#"{"id": "t/x", "family": "t", "match": {"argv0": ["x"]},
            "collapse": {"similar": true, "fold": ["numbers"], "repeats": true}}"#;
        let mut lines: Vec<String> = vec!["src/a.cpp(42): error C2065: 'foo' undeclared".into()];
        let word = |i: usize| ["alpha", "beta", "gamma", "delta", "epsilon"][i % 5];
        lines.extend((0..200).map(|i| format!("compiling {} unit {i}", word(i))));
        lines.push("src/a.cpp(42): error C2065: 'foo' undeclared".into());
        lines.push("src/b.cpp(7): error C2065: 'bar' undeclared".into());
        lines.extend((0..200).map(|i| format!("linking {} unit {i}", word(i))));
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let out = engine_window(rule, &lines, 3);
        // the same line again: counted on the first; the other file's error: shown
        assert_eq!(
            out.iter()
                .filter(|l| l.contains("'foo' undeclared"))
                .collect::<Vec<_>>(),
            vec!["src/a.cpp(42): error C2065: 'foo' undeclared  (+1 similar later, not shown)"],
            "{out:#?}"
        );
        assert!(
            out.contains(&"src/b.cpp(7): error C2065: 'bar' undeclared".to_string()),
            "{out:#?}"
        );
    }

    /// A rule folding similar lines, and `n` errors alike but for their numbers.
    const SIMILAR_RULE: &str = r#"{"id": "t/x", "family": "t", "match": {"argv0": ["x"]},
            "collapse": {"similar": true, "fold": ["numbers"], "repeats": true}}"#;

    fn similar_errors(n: u32) -> (Vec<String>, Vec<String>) {
        let errors: Vec<String> = (1..=n)
            .map(|i| format!("error: src/Defect{i}.scala:5: type mismatch [E{i}]"))
            .collect();
        let lines: Vec<&str> = errors.iter().map(String::as_str).collect();
        let out = engine_text(SIMILAR_RULE, &lines);
        (errors, out)
    }

    #[test]
    fn one_similar_error_left_is_shown_not_said_by_a_longer_marker() {
        // the first, seven more, one left, the last: the one left is itself
        let (errors, out) = similar_errors(10);
        assert_eq!(out, errors, "{out:#?}");
    }

    #[test]
    fn a_run_of_similar_errors_shows_its_first_lines_unless_only_their_times_differ() {
        let rule = SIMILAR_RULE;
        let (errors, out) = similar_errors(12);
        // the first, seven more, the rest counted, the last
        for i in 1..=8 {
            assert!(out.contains(&errors[i - 1]), "{i}: {out:#?}");
        }
        // the rest: the words that differ, each line's
        assert!(
            out.contains(&"... 3 more similar lines, the parts that differ (words 2, 5): src/Defect9.scala:5: [E9]; src/Defect10.scala:5: [E10]; src/Defect11.scala:5: [E11] ...".to_string()),
            "{out:#?}"
        );
        assert!(!out.contains(&errors[8]), "{out:#?}");
        assert_eq!(out.last(), Some(&errors[11]));
        // a retry logged again and again: only its time differs, it stays folded
        let retries: Vec<String> = (0..10)
            .map(|i| {
                format!(
                    "2026-11-22T09:00:{:02}.{i}22Z ERROR redis: connect ECONNREFUSED",
                    20 + i
                )
            })
            .collect();
        let lines: Vec<&str> = retries.iter().map(String::as_str).collect();
        let out = engine_text(rule, &lines);
        assert_eq!(out.len(), 3, "{out:#?}");
        assert!(out[1].starts_with("... 8 similar lines"), "{out:#?}");
        assert_eq!(
            without_times(
                "E1122 08:31:13.569808 11654 memcache.go:265] err at 2026-11-22T09:00:28.222Z"
            ),
            "E1122 T 11654 memcache.go:265] err at T"
        );
        assert_eq!(
            without_times("src/a.rs:12:15: error"),
            "src/a.rs:12:15: error"
        );
    }

    #[test]
    fn a_repeated_error_shape_is_shown_a_few_times_without_context_then_counted() {
        let rule = r#"{"id": "t/x", "family": "t", "match": {"argv0": ["x"]},
            "collapse": {"similar": true, "fold": ["numbers"], "repeats": true},
            "context": {"after": 1}}"#;
        let lines: Vec<String> = (0..300)
            .map(|i| {
                if i % 20 == 10 {
                    format!("ERROR job {i} failed")
                } else {
                    format!("step {i} of the loop went fine, word{}", i % 7)
                }
            })
            .collect();
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let out = engine_window(rule, &lines, 3);
        let has = |s: &str| out.iter().any(|l| l.starts_with(s));
        // the first occurrence and eight repeats in full, the next five counted on the
        // first (the last one is in the tail)
        assert!(
            out.contains(&"ERROR job 10 failed  (+5 similar later, not shown)".to_string()),
            "{out:#?}"
        );
        for i in (30..=170).step_by(20) {
            assert!(has(&format!("ERROR job {i} failed")), "{i}: {out:#?}");
        }
        for i in (190..=270).step_by(20) {
            assert!(!has(&format!("ERROR job {i} failed")), "{i}: {out:#?}");
        }
        // the first occurrence brings its context; the repeats shown do not
        assert!(has("step 11 of the loop"), "{out:#?}");
        assert!(!has("step 31 of the loop"), "{out:#?}");
    }
}
