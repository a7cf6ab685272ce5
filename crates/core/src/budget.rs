//! Fitting a reduction under a host's own output limit, so the host never truncates it.
//!
//! Agents cut long tool output themselves (Claude Code keeps a 2 KB preview of outputs over
//! 30,000 characters and the first and last 5,000 characters of a failure over 10,000;
//! Droid a summary of keyword lines). A reduction that stays above such a cut would be cut
//! again by the host, blindly. [`fit`] keeps whole lines from the start and the end of the
//! reduction (where the summary, the facts line and the last errors are) and puts one marker
//! line between them saying how much was cut and how to get it back. [`HostCut::view`] says
//! which lines of an output the host itself would show, so that a reduction can be made of
//! them (see `crate::host_view`).

/// A host's limits, in characters (the unit hosts count in) or lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostCut {
    /// Outputs longer than this are cut by the host.
    pub cut_chars: usize,
    /// What the model reads of an output over `cut_chars` (a preview), in characters.
    pub over_cut_keeps: usize,
    /// The same two numbers for failing commands, when the host treats them apart.
    pub fail_cut_chars: usize,
    pub fail_over_cut_keeps: usize,
    /// A line budget (Gemini's `read_file` reads 2,000 lines); `usize::MAX` when none.
    pub max_lines: usize,
    /// What the host shows of an output over the cut, for a success and for a failure.
    pub shape: CutShape,
    pub fail_shape: CutShape,
}

/// What a host shows of an output over its cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CutShape {
    /// Not known exactly (the host keeps some of its start and end, in tokens): its first
    /// `over_cut_keeps` characters stand for what it shows, when counting tokens.
    Approx,
    /// Its first `over_cut_keeps` characters (a preview: Claude Code and CodeBuddy over
    /// 30,000 characters).
    Start,
    /// Its first `head` and last `tail` characters; when `capped`, of its first `cut_chars`
    /// only (Claude Code 2.1.330 keeps the first 30,000 characters of a failure, then shows
    /// the first and last 5,000 of them when over 10,000).
    Ends {
        head: usize,
        tail: usize,
        capped: bool,
    },
    /// Droid's summary of a command's output (as its 0.225 bundle does it): an output over
    /// 16 KiB is first cut to its first and last 8 KiB; what is left, when over 12,000
    /// characters, becomes the lines holding a keyword with 10 lines around each and the
    /// first and last 30 lines (a broad keyword list; else error words only, when that is
    /// what fits in 12,000 characters), else lines taken from both ends in turn up to
    /// 12,000 characters.
    DroidSummary,
    /// Its last lines: as many of its last `lines` lines as fit in `over_cut_keeps` bytes,
    /// the lines counted as the host splits at `\n` (a final newline makes an empty last
    /// line, one of the `lines`); it cuts an output over `cut_chars` bytes or `lines` lines.
    /// pi 0.73 and opencode 1.18 both cut so, at 2,000 lines and 51,200 bytes (their
    /// `truncateTail` and the bash tool's tail cut), and add a path to the saved output.
    Tail { lines: usize },
}

/// How much of an output a host shows whole: up to `chars` characters of a success and
/// `fail_chars` of a failure (used as bytes: the lower bound), and, where the host also
/// stops at a number of lines (pi and opencode: 2,000), at most `lines` lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Whole {
    pub chars: u64,
    pub fail_chars: u64,
    pub lines: Option<u64>,
}

impl Whole {
    /// A host that counts characters only.
    pub const fn chars(chars: u64, fail_chars: u64) -> Whole {
        Whole {
            chars,
            fail_chars,
            lines: None,
        }
    }
}

/// Droid 0.225's cut: an output up to 12,000 characters whole, a longer one as its summary
/// ([`CutShape::DroidSummary`]).
pub const DROID_SUMMARY: HostCut = HostCut {
    cut_chars: 12_000,
    over_cut_keeps: 12_000,
    fail_cut_chars: 12_000,
    fail_over_cut_keeps: 12_000,
    max_lines: usize::MAX,
    shape: CutShape::DroidSummary,
    fail_shape: CutShape::DroidSummary,
};

/// pi 0.73 and opencode 1.18 cut a bash output over 2,000 lines or 51,200 bytes to its last
/// lines (pi's `truncateTail`, opencode's bash tool: the same cut), with a note and the path
/// of the saved output ([`CutShape::Tail`]). Their hooks get the whole output and replace the
/// text, which the host does not cut again.
pub const TAIL_2000: HostCut = HostCut {
    cut_chars: 51_200,
    over_cut_keeps: 51_200,
    fail_cut_chars: 51_200,
    fail_over_cut_keeps: 51_200,
    max_lines: usize::MAX,
    shape: CutShape::Tail { lines: 2_000 },
    fail_shape: CutShape::Tail { lines: 2_000 },
};

impl HostCut {
    /// No limit.
    pub const NONE: HostCut = HostCut {
        cut_chars: usize::MAX,
        over_cut_keeps: usize::MAX,
        fail_cut_chars: usize::MAX,
        fail_over_cut_keeps: usize::MAX,
        max_lines: usize::MAX,
        shape: CutShape::Approx,
        fail_shape: CutShape::Approx,
    };

    /// How many characters of an output of `raw_chars` the host shows when it cuts it (its
    /// preview); `None` when it shows the output whole.
    pub fn preview_chars(&self, raw_chars: usize, failed: bool) -> Option<usize> {
        let (cut, keeps) = if failed {
            (self.fail_cut_chars, self.fail_over_cut_keeps)
        } else {
            (self.cut_chars, self.over_cut_keeps)
        };
        (raw_chars > cut).then_some(keeps.min(cut))
    }

    /// The sizes (in characters, used as bytes: the lower bound) up to which the host shows
    /// an output whole, for a success and for a failure, when it cuts at all: nothing it
    /// would show should be cut by us.
    pub fn shows_whole(&self) -> Option<Whole> {
        let lines = match self.shape {
            CutShape::Tail { lines } => Some(lines as u64),
            _ => None,
        };
        (self.cut_chars != usize::MAX).then_some(Whole {
            chars: self.cut_chars as u64,
            fail_chars: self.fail_cut_chars.min(self.cut_chars) as u64,
            lines,
        })
    }

    /// How much of `raw` (the whole output, of `raw_chars` characters) the host keeps when
    /// it cuts it; `None` when it shows it whole. [`CutShape::Tail`] hosts count bytes and
    /// lines, the others characters.
    fn keeps(&self, raw: &str, raw_chars: usize, failed: bool) -> Option<usize> {
        match self.shape_for(failed) {
            CutShape::Tail { lines } => {
                let (cut, keeps) = if failed {
                    (self.fail_cut_chars, self.fail_over_cut_keeps)
                } else {
                    (self.cut_chars, self.over_cut_keeps)
                };
                let host_lines = raw.bytes().filter(|&b| b == b'\n').count() + 1;
                (raw.len() > cut || host_lines > lines).then_some(keeps)
            }
            _ => self.preview_chars(raw_chars, failed),
        }
    }

    /// What the model reads of an output of `raw_chars` characters when the host cuts it
    /// (its preview, taken from `raw`: the output, or as much of its start as was kept);
    /// `None` when the host shows it whole.
    pub fn preview(&self, raw: &str, raw_chars: usize, failed: bool) -> Option<String> {
        let keep = self.keeps(raw, raw_chars, failed)?;
        if matches!(self.shape_for(failed), CutShape::Start | CutShape::Approx) {
            return Some(raw.chars().take(keep).collect());
        }
        let lines = split_lines(raw);
        let view = self.view_of(
            &lines,
            raw.chars().count(),
            keep,
            raw.ends_with('\n'),
            failed,
        );
        let mut out: Vec<&str> = Vec::new();
        let mut at = 0;
        for r in &view {
            if r.start > at {
                out.push("[...]");
            }
            out.extend_from_slice(&lines[r.clone()]);
            at = r.end;
        }
        if at < lines.len() {
            out.push("[...]");
        }
        Some(out.join("\n"))
    }

    fn shape_for(&self, failed: bool) -> CutShape {
        if failed {
            self.fail_shape
        } else {
            self.shape
        }
    }

    /// The lines of `raw` (the whole output) the host shows when it cuts it, as ranges of
    /// line indexes (lines split at `\n`, a final newline ending the last line), in order;
    /// a line the host shows only part of counts as shown. `None` when the host shows the
    /// output whole, or what it shows is not known exactly ([`CutShape::Approx`]).
    pub fn view(&self, raw: &str, failed: bool) -> Option<Vec<std::ops::Range<usize>>> {
        if self.shape_for(failed) == CutShape::Approx {
            return None;
        }
        let raw_chars = raw.chars().count();
        // shown whole: nothing to split
        let keep = self.keeps(raw, raw_chars, failed)?;
        let lines = split_lines(raw);
        Some(self.view_of(&lines, raw_chars, keep, raw.ends_with('\n'), failed))
    }

    /// The ranges of `lines` shown when the host keeps `keep` of the output (`ends_nl`: the
    /// output ends with a newline).
    fn view_of(
        &self,
        lines: &[&str],
        raw_chars: usize,
        keep: usize,
        ends_nl: bool,
        failed: bool,
    ) -> Vec<std::ops::Range<usize>> {
        let char_lens = || lines.iter().map(|l| l.chars().count() + 1);
        match self.shape_for(failed) {
            CutShape::Start | CutShape::Approx => within_start(lines, keep),
            CutShape::Ends {
                head: first,
                tail: last,
                capped,
            } => {
                // the characters the host cuts from: all, or its first `cut_chars`
                let len = if capped {
                    raw_chars.min(self.cut_chars)
                } else {
                    raw_chars
                };
                let mut at = 0;
                let mut head = 0;
                let mut tail_from = lines.len();
                let mut tail_to = lines.len();
                for (i, c) in char_lens().enumerate() {
                    if at < first {
                        head = i + 1;
                    }
                    if at + c > len.saturating_sub(last) && tail_from == lines.len() {
                        tail_from = i;
                    }
                    if at >= len && tail_to == lines.len() {
                        tail_to = i;
                    }
                    at += c;
                }
                if tail_from <= head {
                    std::iter::once(0..tail_to.max(head)).collect()
                } else {
                    vec![0..head, tail_from..tail_to]
                }
            }
            CutShape::DroidSummary => droid::view(lines),
            CutShape::Tail { lines: max } => {
                // as the host does: from the end, whole lines (a newline between two) while
                // they fit in `keep` bytes, at most `max`; a last line longer than `keep`
                // shows its end
                let mut shown = 0;
                let mut bytes = 0;
                let entries = lines.iter().rev().map(|l| l.len());
                for len in std::iter::repeat_n(0, usize::from(ends_nl)).chain(entries) {
                    if shown == max {
                        break;
                    }
                    let add = len + usize::from(shown > 0);
                    if bytes + add > keep {
                        shown += usize::from(shown == 0);
                        break;
                    }
                    bytes += add;
                    shown += 1;
                }
                let shown_lines = shown.saturating_sub(usize::from(ends_nl)).max(1);
                std::iter::once(lines.len().saturating_sub(shown_lines)..lines.len()).collect()
            }
        }
    }

    /// How many characters our text for this output may have: never more than the raw
    /// output had, and under the host's cut; when the raw output was over the cut, no more
    /// than what the host would have shown of it.
    pub fn budget(&self, raw_chars: usize, failed: bool) -> usize {
        let (cut, keeps) = if failed {
            (self.fail_cut_chars, self.fail_over_cut_keeps)
        } else {
            (self.cut_chars, self.over_cut_keeps)
        };
        if raw_chars > cut {
            keeps.min(cut.saturating_sub(1))
        } else {
            raw_chars.min(cut.saturating_sub(1))
        }
    }
}

/// The lines that hold the first `chars` characters of `lines` (one range; a line cut
/// through counts as shown).
pub fn within_start(lines: &[&str], chars: usize) -> Vec<std::ops::Range<usize>> {
    let mut at = 0;
    let n = lines
        .iter()
        .take_while(|l| {
            let starts = at;
            at += l.chars().count() + 1;
            starts < chars
        })
        .count();
    std::iter::once(0..n).collect()
}

/// `raw` split into lines at `\n`; a final newline ends the last line (no empty line after).
pub fn split_lines(raw: &str) -> Vec<&str> {
    let mut v: Vec<&str> = raw.split('\n').collect();
    if v.len() > 1 && v.last() == Some(&"") {
        v.pop();
    }
    v
}

/// Droid's summary of a command's output, as its 0.225 bundle makes it (the rules and the
/// keyword lists are facts about that host; see [`CutShape::DroidSummary`]).
mod droid {
    use std::ops::Range;

    /// Past this many bytes the output is cut to its two ends first.
    const BYTES: usize = 16_384;
    /// Characters up to which the (cut) output is shown whole.
    const CHARS: usize = 12_000;
    /// Longer lines are shown with their middle cut.
    const LINE_CHARS: usize = 600;
    const CONTEXT: usize = 10;
    const ENDS: usize = 30;
    const ERROR_WORDS: &[&str] = &[
        "error",
        "fail",
        "exception",
        "crash",
        "fatal",
        "panic",
        "critical",
        "test failed",
        "build failed",
        "compilation error",
    ];
    const MORE_WORDS: &[&str] = &[
        "warning",
        "warn",
        "test passed",
        "passing",
        "failing",
        "assertions",
        "expect",
        "cannot compile",
        "undefined reference",
        "success",
        "succeeded",
        "completed successfully",
        "passed",
        "status:",
        "exit code",
        "terminated",
        "killed",
        "lint error",
        "style error",
        "format error",
        "prettier",
        "listening on",
        "server started",
        "connected to",
        "connection refused",
        "port",
        "endpoint",
        "api",
        "request",
        "response",
        "status code",
        "debug",
        "trace",
        "info",
        "npm",
        "yarn",
        "webpack",
        "babel",
        "eslint",
        "jest",
        "mocha",
        "pytest",
        "go test",
        "cargo test",
        "rspec",
        "gradle",
        "maven",
    ];

    /// One line Droid works on: an index into the output's lines, or its own marker.
    type Seen = Option<usize>;

    fn shown_chars(line: &str) -> usize {
        line.chars().count().min(LINE_CHARS)
    }

    pub fn view(lines: &[&str]) -> Vec<Range<usize>> {
        let bytes: usize = lines.iter().map(|l| l.len() + 1).sum();
        // the lines Droid reads: all, or those of its first and last 8 KiB with its marker
        let seen: Vec<Seen> = if bytes > BYTES {
            let half = BYTES / 2;
            let mut v = Vec::new();
            let mut at = 0;
            let mut starts = Vec::with_capacity(lines.len());
            for l in lines {
                starts.push(at);
                at += l.len() + 1;
            }
            v.extend((0..lines.len()).filter(|&i| starts[i] < half).map(Some));
            // its marker, with a blank line before and after
            v.extend([None, None, None]);
            v.extend(
                (0..lines.len())
                    .filter(|&i| starts[i] > bytes - half)
                    .map(Some),
            );
            v
        } else {
            (0..lines.len()).map(Some).collect()
        };
        // Droid measures and searches the text with its colour codes removed
        let texts: Vec<std::borrow::Cow<'_, str>> = seen
            .iter()
            .enumerate()
            .map(|(k, s)| match s {
                Some(i) => crate::reduce::text::strip_ansi(lines[*i]),
                None if seen.get(k + 1) == Some(&None) && k > 0 && seen[k - 1].is_none() => {
                    "[... truncated bytes from middle section ...]".into()
                }
                None => "".into(),
            })
            .collect();
        let texts: Vec<&str> = texts.iter().map(|t| t.as_ref()).collect();
        let total: usize = texts.iter().map(|t| shown_chars(t) + 1).sum();
        if total <= CHARS {
            return ranges(&seen);
        }
        for words in [&[ERROR_WORDS, MORE_WORDS][..], &[ERROR_WORDS][..]] {
            let picked = pick(&texts, words);
            if length(&texts, &picked) <= CHARS {
                let chosen: Vec<Seen> = seen
                    .iter()
                    .zip(&picked)
                    .filter(|(_, p)| **p)
                    .map(|(s, _)| *s)
                    .collect();
                return ranges(&chosen);
            }
        }
        // lines from both ends in turn
        let room = CHARS.saturating_sub(40);
        let (mut lo, mut hi) = (0usize, seen.len());
        let mut used = 0;
        let mut take_head = true;
        while lo < hi {
            let i = if take_head { lo } else { hi - 1 };
            let c = texts[i].chars().count() + 1;
            if used + c > room {
                break;
            }
            used += c;
            if take_head {
                lo += 1;
            } else {
                hi -= 1;
            }
            take_head = !take_head;
        }
        let chosen: Vec<Seen> = seen[..lo].iter().chain(&seen[hi..]).copied().collect();
        ranges(&chosen)
    }

    fn has_word(line: &str, words: &[&[&str]]) -> bool {
        let lower = line.to_lowercase();
        words.iter().any(|ws| ws.iter().any(|w| lower.contains(w)))
    }

    /// Which seen lines Droid keeps for `words`: each with one, 10 lines around it, and the
    /// first and last 30.
    fn pick(texts: &[&str], words: &[&[&str]]) -> Vec<bool> {
        let n = texts.len();
        let mut keep = vec![false; n];
        for (i, t) in texts.iter().enumerate() {
            if has_word(t, words) {
                for k in keep
                    .iter_mut()
                    .take((i + CONTEXT).min(n - 1) + 1)
                    .skip(i.saturating_sub(CONTEXT))
                {
                    *k = true;
                }
            }
        }
        for k in keep.iter_mut().take(ENDS) {
            *k = true;
        }
        for k in keep.iter_mut().skip(n.saturating_sub(ENDS)) {
            *k = true;
        }
        keep
    }

    /// The length of Droid's text for the picked lines, with its `[... N lines skipped ...]`
    /// markers.
    fn length(texts: &[&str], picked: &[bool]) -> usize {
        let mut len = 0;
        let mut gap = false;
        for (t, p) in texts.iter().zip(picked) {
            if *p {
                if gap {
                    len += 28;
                }
                gap = false;
                len += shown_chars(t) + 1;
            } else {
                gap = true;
            }
        }
        len + if gap { 28 } else { 0 }
    }

    /// Output line indexes as ranges (Droid's own marker left out).
    fn ranges(seen: &[Seen]) -> Vec<Range<usize>> {
        let mut out: Vec<Range<usize>> = Vec::new();
        for i in seen.iter().flatten() {
            match out.last_mut() {
                Some(r) if r.end == *i => r.end += 1,
                _ => out.push(*i..*i + 1),
            }
        }
        out
    }
}

/// A reduction made to fit what the host shows, or `None` when the raw output should be
/// given instead (the reduction is no smaller than what the model would read without us).
/// The text stays under the host's cut and its line budget, and never holds more tokens than
/// the host's own result: the whole output (`raw_tokens`), or its preview when the host would
/// have cut it (`raw` is the output, or as much of its start as was kept); dense text is cut
/// further. `how` says how to see everything.
pub fn fit_to_host(
    text: &str,
    raw: &str,
    raw_chars: usize,
    raw_tokens: u64,
    cut: &HostCut,
    failed: bool,
    how: &str,
) -> Option<String> {
    use crate::tokens::estimate;
    let preview = cut.preview(raw, raw_chars, failed);
    let host_tokens = preview.as_deref().map_or(raw_tokens, estimate);
    if preview.is_none() && (text.chars().count() >= raw_chars || estimate(text) >= host_tokens) {
        return None;
    }
    let mut budget = cut.budget(raw_chars, failed);
    if let Some(p) = &preview {
        budget = budget.min(p.chars().count());
    }
    let mut out = text.to_string();
    for _ in 0..8 {
        out = fit(text, budget, cut.max_lines, how);
        let tokens = estimate(&out);
        if tokens < host_tokens.max(1) || budget < 64 {
            break;
        }
        // dense text: shrink by the overshoot, with room
        let shrink = (host_tokens as f64 / tokens as f64 * 0.9).clamp(0.1, 0.95);
        budget = (budget as f64 * shrink) as usize;
    }
    Some(out)
}

/// `text` cut to at most `max_chars` characters and `max_lines` lines, keeping whole lines
/// from both ends. `how` says how to see everything (`tokenjuice cat <id>`). Returns the text
/// unchanged when it fits. The marker line is counted in the budget; a budget too small
/// for any line keeps just the marker (cut to the budget).
pub fn fit(text: &str, max_chars: usize, max_lines: usize, how: &str) -> String {
    let total_chars = text.chars().count();
    let lines: Vec<&str> = text.split('\n').collect();
    if total_chars <= max_chars && lines.len() <= max_lines {
        return text.to_string();
    }
    let marker = |cut_lines: usize| {
        format!("[tokenjuice: {cut_lines} more lines cut to fit the agent's output limit; {how}]")
    };
    // room for the marker with a generous count, and its line break
    let reserve = marker(lines.len()).chars().count() + 1;
    let room = max_chars.saturating_sub(reserve);
    let line_room = max_lines.saturating_sub(1);
    // the end gets 45% (final summaries, last errors), the start the rest
    let tail_room = room / 100 * 45;
    let mut tail: Vec<&str> = Vec::new();
    let mut used = 0usize;
    for l in lines.iter().rev() {
        let c = l.chars().count() + 1;
        if used + c > tail_room || tail.len() >= line_room / 2 {
            break;
        }
        used += c;
        tail.push(l);
    }
    tail.reverse();
    let mut head: Vec<&str> = Vec::new();
    let head_room = room.saturating_sub(used);
    let mut head_used = 0usize;
    for l in lines.iter().take(lines.len() - tail.len()) {
        let c = l.chars().count() + 1;
        if head_used + c > head_room || head.len() + tail.len() >= line_room {
            break;
        }
        head_used += c;
        head.push(l);
    }
    let cut = lines.len() - head.len() - tail.len();
    let mut out: Vec<String> = head.iter().map(|s| s.to_string()).collect();
    out.push(marker(cut));
    out.extend(tail.iter().map(|s| s.to_string()));
    let joined = out.join("\n");
    if joined.chars().count() > max_chars {
        return marker(lines.len()).chars().take(max_chars).collect();
    }
    joined
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(n: usize) -> String {
        (1..=n)
            .map(|i| format!("line {i}"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn a_text_that_fits_is_unchanged() {
        let t = numbered(10);
        assert_eq!(fit(&t, 1000, usize::MAX, "x"), t);
    }

    #[test]
    fn keeps_both_ends_and_says_how_much_was_cut() {
        let t = numbered(1000);
        let out = fit(&t, 500, usize::MAX, "tokenjuice cat tj_1");
        assert!(out.chars().count() <= 500, "{}", out.len());
        assert!(out.starts_with("line 1\n"));
        assert!(out.ends_with("line 1000"));
        let marker = out.lines().find(|l| l.starts_with("[tokenjuice:")).unwrap();
        let kept = out.lines().count() - 1;
        assert!(
            marker.contains(&format!("{} more lines cut", 1000 - kept)),
            "{marker}"
        );
        assert!(marker.contains("tokenjuice cat tj_1"));
    }

    #[test]
    fn honours_a_line_budget() {
        let out = fit(&numbered(200), usize::MAX, 61, "x");
        assert!(out.lines().count() <= 61);
        assert!(out.contains("line 200") && out.contains("line 1\n"));
    }

    #[test]
    fn a_tiny_budget_keeps_only_the_marker_cut_to_size() {
        let out = fit(&numbered(50), 20, usize::MAX, "x");
        assert!(out.chars().count() <= 20);
    }

    #[test]
    fn budget_is_never_above_raw_nor_the_hosts_cut() {
        let c = HostCut {
            cut_chars: 30_000,
            over_cut_keeps: 2_000,
            fail_cut_chars: 30_000,
            fail_over_cut_keeps: 2_000,
            max_lines: usize::MAX,
            shape: CutShape::Start,
            fail_shape: CutShape::Start,
        };
        assert_eq!(c.budget(500, false), 500);
        assert_eq!(c.budget(30_000, false), 29_999);
        assert_eq!(c.budget(90_000, false), 2_000);
        assert_eq!(HostCut::NONE.budget(7, true), 7);
    }

    #[test]
    fn a_tail_host_shows_its_last_lines_counted_as_it_splits() {
        // 2,000 lines and a final newline are 2,001 of the host's lines: it shows the last
        // 1,999 and the empty one
        let raw = format!("{}\n", numbered(2_000));
        assert_eq!(
            TAIL_2000.view(&raw, false),
            Some(std::iter::once(1..2_000).collect())
        );
        // without the final newline, 2,000 are shown whole
        let raw = numbered(2_000);
        assert_eq!(TAIL_2000.view(&raw, false), None);
        assert_eq!(TAIL_2000.shows_whole().unwrap().lines, Some(2_000));
        // past 51,200 bytes, the lines whose bytes (and the newlines between them) fit
        let long: String = (0..1_000).map(|i| format!("{i:099}\n")).collect();
        let view = TAIL_2000.view(&long, true).unwrap();
        // 100 bytes a line with its newline: the empty last line and 512 more (51,200 bytes)
        assert_eq!(view, std::iter::once(488..1_000).collect::<Vec<_>>());
        let p = TAIL_2000
            .preview(&long, long.chars().count(), true)
            .unwrap();
        assert!(p.starts_with("[...]\n") && p.ends_with(&format!("{:099}", 999)));
        // a last line over the limit shows its end: it counts as shown
        let huge = format!("a\n{}", "x".repeat(60_000));
        assert_eq!(
            TAIL_2000.view(&huge, false),
            Some(std::iter::once(1..2).collect())
        );
        assert_eq!(TAIL_2000.view("small\n", false), None);
    }

    /// Droid's shape: whole up to 12,000 characters, else its summary.
    const LINES: HostCut = DROID_SUMMARY;

    #[test]
    fn a_line_preview_is_the_first_and_last_lines() {
        let raw = numbered(5000);
        let p = LINES.preview(&raw, raw.chars().count(), false).unwrap();
        assert_eq!(p.lines().count(), 61);
        assert!(p.starts_with("line 1\n") && p.ends_with("line 5000"));
        assert!(p.contains("line 30\n[...]\nline 4971\n"));
        let small = numbered(100);
        assert_eq!(LINES.preview(&small, small.chars().count(), false), None);
    }

    #[test]
    fn over_a_line_preview_the_text_never_reads_more_tokens_than_it() {
        use crate::tokens::estimate;
        // 300 distinct long lines: the reduction (here: all of them) is far over the 60 the
        // host would have shown
        let raw: String = (0..300)
            .map(|i| format!("commit {i:040x} change {i}: adjust the pricing rules\n"))
            .collect();
        let preview = LINES.preview(&raw, raw.chars().count(), false).unwrap();
        let out = fit_to_host(
            &raw,
            &raw,
            raw.chars().count(),
            estimate(&raw),
            &LINES,
            false,
            "x",
        )
        .unwrap();
        assert!(
            estimate(&out) < estimate(&preview),
            "{} vs {}",
            estimate(&out),
            estimate(&preview)
        );
        assert!(out.contains("[tokenjuice:"), "{out}");
        // under the cut a reduction that is no smaller is not used
        let small = numbered(20);
        assert_eq!(
            fit_to_host(
                &small,
                &small,
                small.chars().count(),
                estimate(&small),
                &LINES,
                false,
                "x"
            ),
            None
        );
    }
}
