//! A reduction made of what a host would show of an output it cuts itself.
//!
//! Claude Code shows the first and last 5,000 characters of a failure over 10,000; Droid a
//! summary of keyword lines; Claude and CodeBuddy a 2 KB preview of an output over 30,000
//! characters. A reduction of the whole output that is then fitted under such a cut keeps
//! the rule's head, tail and error lines, and can leave out lines the host's own cut would
//! have shown the model. For line reductions (not the structured reducers, which summarize
//! by meaning), the text is made instead from the lines the host would show
//! ([`HostCut::view`]), filtered and folded as the rule says but nothing cut, with a marker
//! for each part the host would not show (how many lines, how many of them error or warning
//! lines). It is used when it is under the host's cut and reads fewer tokens than the host's
//! own text; otherwise the raw output is given and the host cuts it as without us.

use crate::budget::{split_lines, HostCut};
use crate::compact::Plan;
use crate::reduce::engine::{EngineOptions, LineEngine};
use crate::reduce::render::{pluralize, render_track};
use crate::reduce::signal::{self, Level};
use crate::reduce::text::strip_ansi;
use crate::result::{CompactResult, Kind};
use crate::tokens::estimate;

/// What to give a host that cuts the output itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ForHost {
    /// This text: the host shows it whole.
    Text(String),
    /// The raw output: nothing smaller holds what the host would show.
    Raw,
}

/// The text for a host that would cut this output (`raw`, the whole output), made of the
/// lines it would show; `None` when the host shows the output whole, what it shows is not
/// known exactly, or the result is not a line reduction (a structured reducer's, a summary,
/// a passthrough): then the result is fitted as it is.
///
/// Past the lines the host shows, room left under its cut and under the tokens of its own
/// text goes to the output's last lines, then (in an output up to 1 MiB) to error and
/// warning lines from the parts the host would cut, in order.
pub fn for_host(
    plan: &Plan,
    result: &CompactResult,
    raw: &str,
    cut: &HostCut,
    exit_code: i32,
    host_prints_exit: bool,
    how: &str,
) -> Option<ForHost> {
    if !is_line_reduction(result) {
        return None;
    }
    let failed = exit_code != 0;
    let view = cut.view(raw, failed)?;
    let raw_chars = raw.chars().count();
    let preview = cut.preview(raw, raw_chars, failed)?;
    let lines = split_lines(raw);
    Some(for_view(
        plan,
        result,
        &lines,
        &view,
        Room {
            // room for the host's own lines around it (`Exit code 1`)
            chars: cut
                .budget(raw_chars, failed)
                .saturating_sub(HOST_LINES_ROOM),
            tokens: estimate(&preview),
        },
        exit_code,
        host_prints_exit,
        how,
    ))
}

/// Whether `result` is the rule's line reduction (not a structured reducer's text, a
/// summary or a passthrough): only those are made again from a host's view. One that holds
/// a note for binary data is not: the lines a host would show of that data are no text to
/// keep (a 2 KB preview of a PNG's bytes), and the note says what they were.
pub fn is_line_reduction(result: &CompactResult) -> bool {
    !result.compaction.passed_through()
        && !is_summary(result)
        && !result.compaction.has(Kind::BinaryData)
}

/// Whether `result`'s text is a summary (the rule's `matchOutput` message or a structured
/// reducer's text), not the output's own lines.
pub fn is_summary(result: &CompactResult) -> bool {
    let kinds = &result.compaction;
    kinds.has(Kind::MatchOutputSummary) || kinds.kinds.iter().any(|k| k.starts_with("structured:"))
}

/// What a text for the host may hold: fewer characters than `chars` (it stays under the
/// host's cut) and fewer tokens than `tokens` (the host's own text).
#[derive(Debug, Clone, Copy)]
pub struct Room {
    pub chars: usize,
    pub tokens: u64,
}

/// [`for_host`] for a view the caller knows (Copilot CLI's preview, read from its result):
/// `view` are ranges of `lines`, the whole output's lines.
#[allow(clippy::too_many_arguments)]
pub fn for_view(
    plan: &Plan,
    result: &CompactResult,
    lines: &[&str],
    view: &[std::ops::Range<usize>],
    room: Room,
    exit_code: i32,
    host_prints_exit: bool,
    how: &str,
) -> ForHost {
    let failed = exit_code != 0;
    let raw_len: usize = lines.iter().map(|l| l.len() + 1).sum();
    let r = Renderer {
        plan,
        result,
        lines,
        exit_code,
        host_prints_exit,
        how,
        budget: room.chars,
        host_tokens: room.tokens,
    };
    let mut keep = vec![false; lines.len()];
    for range in view {
        keep[range.clone()].fill(true);
    }
    let Some(mut text) = r.fitting(&keep) else {
        return ForHost::Raw;
    };
    // the output's last lines
    let s = &plan.rule.settings;
    let tail = if failed { s.fail_tail } else { s.tail };
    let mut with_tail = keep.clone();
    with_tail[lines.len().saturating_sub(tail)..].fill(true);
    if with_tail != keep {
        if let Some(t) = r.fitting(&with_tail) {
            keep = with_tail;
            text = t;
        }
    }
    if raw_len > MAX_EXTRA_BYTES {
        return ForHost::Text(text);
    }
    // error and warning lines the host would cut, as many as fit, in order
    let mut lower = Vec::new();
    let signals: Vec<usize> = (0..lines.len())
        .filter(|&i| {
            !keep[i] && signal::classify_with(&strip_ansi(lines[i]), &mut lower) > Level::None
        })
        .collect();
    let with_signals = |n: usize| {
        let mut k = keep.clone();
        for &i in &signals[..n] {
            k[i] = true;
        }
        k
    };
    // `text` is always the render of the last count that fitted (`lo`)
    let (mut lo, mut hi) = (0, signals.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        match r.fitting(&with_signals(mid)) {
            Some(t) => {
                lo = mid;
                text = t;
            }
            None => hi = mid - 1,
        }
    }
    ForHost::Text(text)
}

/// Characters left under the host's cut for the lines it adds itself.
const HOST_LINES_ROOM: usize = 64;

/// Past this many bytes no error lines are added past the host's lines and the output's end:
/// each try reads the whole output again (for a 4.7 MB failure the search took 206 ms, the
/// reduction 14 ms).
const MAX_EXTRA_BYTES: usize = 1 << 20;

struct Renderer<'a> {
    plan: &'a Plan,
    result: &'a CompactResult,
    lines: &'a [&'a str],
    exit_code: i32,
    host_prints_exit: bool,
    how: &'a str,
    budget: usize,
    host_tokens: u64,
}

impl Renderer<'_> {
    /// The text showing the lines marked in `keep`, when it fits the host: under its cut
    /// and fewer tokens than its own text.
    fn fitting(&self, keep: &[bool]) -> Option<String> {
        let text = self.render(keep);
        (text.chars().count() <= self.budget && estimate(&text) < self.host_tokens).then_some(text)
    }

    fn render(&self, keep: &[bool]) -> String {
        let rule = &self.plan.rule;
        let mut out: Vec<String> = Vec::new();
        if self.exit_code != 0 && !self.host_prints_exit {
            out.push(format!("exit {}", self.exit_code));
        }
        let facts: Vec<String> = self
            .result
            .facts
            .iter()
            .filter_map(|(name, v)| v.as_u64().filter(|v| *v > 0).map(|v| pluralize(v, name)))
            .collect();
        if !facts.is_empty() {
            out.push(facts.join(", "));
        }
        let mut engine = LineEngine::new(
            rule,
            EngineOptions {
                no_omit: true,
                ..EngineOptions::default()
            },
        );
        for (l, k) in self.lines.iter().zip(keep) {
            engine.push_line_kept(l, *k);
        }
        let body = render_track(&engine.main, 0, 0, rule.settings.trim_edges);
        out.extend(body.lines);
        // every line shown (folded): no marker
        if body.omitted + body.filtered > 0 {
            let parts = match (body.omitted, body.filtered) {
                (c, 0) => format!("{c} cut"),
                (0, f) => format!("{f} noise"),
                (c, f) => format!("{c} cut, {f} noise"),
            };
            out.push(format!(
                "[tokenjuice: {} of {} lines hidden ({parts}); {}]",
                body.omitted + body.filtered,
                self.lines.len(),
                self.how
            ));
        }
        out.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::CutShape;
    use crate::compact::{compact_text, Finish, Request};

    const CLAUDE: HostCut = HostCut {
        cut_chars: 30_000,
        over_cut_keeps: 2_000,
        fail_cut_chars: 10_000,
        fail_over_cut_keeps: 10_000,
        max_lines: usize::MAX,
        shape: CutShape::Start,
        fail_shape: CutShape::Ends {
            head: 5_000,
            tail: 5_000,
            capped: true,
        },
    };

    fn run(raw: &str, code: i32, cut: &HostCut) -> (CompactResult, Option<ForHost>) {
        let req = Request {
            tool_name: "exec",
            command: Some("./build.sh"),
            ..Request::default()
        };
        let (plan, result) = compact_text(&req, &[], raw.as_bytes(), code, &Finish::default());
        let text = for_host(&plan, &result, raw, cut, code, true, "tokenjuice cat tj_1");
        (result, text)
    }

    /// 40 letters that differ from line to line.
    fn word(i: usize, salt: usize) -> String {
        let mut x = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ salt as u64;
        (0..40)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (b'a' + (x % 16) as u8) as char
            })
            .collect()
    }

    /// 200 distinct plain lines, 200 distinct error lines (no two alike, none noise).
    fn notes_then_errors() -> String {
        (0..400)
            .map(|i| {
                if i < 200 {
                    format!("note {} {i}\n", word(i, 3))
                } else {
                    format!("error: {} {i}\n", word(i, 11))
                }
            })
            .collect()
    }

    #[test]
    fn a_failure_claude_cuts_keeps_every_line_of_its_two_ends() {
        // 400 distinct lines of a failing command, more than the first and last 5,000
        // characters Claude shows: every line of those two ends must be in our text, which is
        // smaller than Claude's own
        let raw = notes_then_errors();
        let lines = split_lines(&raw);
        let view = CLAUDE.view(&raw, true).unwrap();
        assert_eq!(view.len(), 2, "{view:?}");
        assert_eq!(view[0].start, 0);
        assert_eq!(view[1].end, 400);
        // the two ends hold about 5,000 characters each
        let chars = |r: &std::ops::Range<usize>| -> usize {
            lines[r.clone()].iter().map(|l| l.len() + 1).sum()
        };
        assert!(
            (5_000..5_200).contains(&chars(&view[0])),
            "{}",
            chars(&view[0])
        );
        assert!(
            (5_000..5_200).contains(&chars(&view[1])),
            "{}",
            chars(&view[1])
        );
        let (_, got) = run(&raw, 1, &CLAUDE);
        // distinct lines do not fold: the same lines as Claude's are not fewer tokens
        assert_eq!(got, Some(ForHost::Raw));
    }

    #[test]
    fn folded_noise_in_the_view_makes_a_smaller_text_with_the_same_lines() {
        // a failing build: 150 distinct steps, 300 progress lines that fold, then 120 errors
        let mut raw = String::new();
        for i in 0..150 {
            raw.push_str(&format!("{} {}\n", word(i, 5), word(i, 9)));
        }
        for i in 0..300 {
            raw.push_str(&format!("progress {i} of 300\n"));
        }
        for i in 0..120 {
            raw.push_str(&format!("error: undefined reference to `symbol_{i}'\n"));
        }
        let (result, got) = run(&raw, 2, &CLAUDE);
        let Some(ForHost::Text(text)) = got else {
            panic!("{got:?}")
        };
        let lines = split_lines(&raw);
        let view = CLAUDE.view(&raw, true).unwrap();
        let preview = CLAUDE.preview(&raw, raw.chars().count(), true).unwrap();
        assert!(estimate(&text) < estimate(&preview));
        assert!(text.chars().count() < 10_000);
        // every distinct line Claude would show is in it; the progress lines are folded
        for r in &view {
            for l in &lines[r.clone()] {
                if !l.starts_with("progress") && !l.starts_with("error") {
                    assert!(text.contains(l), "lost {l:?}:\n{text}");
                }
            }
        }
        assert!(text.contains("similar lines"), "{text}");
        // the middle Claude would cut is named, with its error lines counted
        assert!(text.contains("lines omitted"), "{text}");
        assert!(text.contains("tokenjuice cat tj_1"));
        // the whole output's reduction fitted under Claude's cut (before: the only way)
        // left lines out that Claude shows
        let old = crate::budget::fit_to_host(
            &result.inline_text,
            &raw,
            raw.chars().count(),
            result.stats.raw_tokens,
            &CLAUDE,
            true,
            "x",
        )
        .unwrap();
        let step = format!("{} {}", word(60, 5), word(60, 9));
        assert!(!old.contains(&step), "{old}");
        assert!(text.contains(&step));
    }

    #[test]
    fn claude_shows_a_failure_from_its_first_30000_characters_only() {
        // 700 lines of 50 characters (35,000): Claude keeps the first 30,000, then shows the
        // first and last 5,000 of those
        let raw: String = (0..700)
            .map(|i| format!("{i:04} {}\n", "x".repeat(44)))
            .collect();
        assert_eq!(CLAUDE.view(&raw, true).unwrap(), vec![0..100, 500..600]);
        // what is past its 30,000 is then room for the output's last lines: the rule's
        // tail is added when it fits
        let (_, got) = run(&raw, 1, &CLAUDE);
        let Some(ForHost::Text(text)) = got else {
            panic!("{got:?}")
        };
        assert!(text.contains("0699 xxx"), "{text}");
    }

    #[test]
    fn lines_that_fold_across_the_cut_part_are_all_shown_with_no_marker() {
        // Codex shows the first and last 20,000 bytes of 108,894 (from the middle of 4222
        // and of 16667: measured in 0.169); the numbers fold into one
        // run through the part it cuts, so every line is accounted for
        const ENDS: CutShape = CutShape::Ends {
            head: 20_000,
            tail: 20_000,
            capped: false,
        };
        const CODEX: HostCut = HostCut {
            cut_chars: 30_000,
            over_cut_keeps: 40_000,
            fail_cut_chars: 30_000,
            fail_over_cut_keeps: 40_000,
            max_lines: usize::MAX,
            shape: ENDS,
            fail_shape: ENDS,
        };
        let raw: String = (1..=20_000).map(|i| format!("{i}\n")).collect();
        assert_eq!(
            CODEX.view(&raw, false).unwrap(),
            vec![0..4222, 16666..20_000]
        );
        assert_eq!(
            run(&raw, 0, &CODEX).1,
            Some(ForHost::Text(
                "1\n... 19998 similar lines, the number running 2…19999 ...\n20000".into()
            ))
        );
    }

    #[test]
    fn under_the_cut_or_for_a_success_under_30k_nothing_changes() {
        let raw = "error: one\n".repeat(50);
        assert_eq!(run(&raw, 1, &CLAUDE).1, None);
        let raw = notes_then_errors();
        assert_eq!(run(&raw, 0, &CLAUDE).1, None);
    }

    #[test]
    fn droid_keeps_keyword_lines_with_ten_around_each_and_thirty_at_each_end() {
        const DROID: HostCut = crate::budget::DROID_SUMMARY;
        // 300 lines of 45 characters (13.8 KB: under 16 KiB, over 12,000 characters), one
        // with a keyword in the middle
        let raw: String = (0..300)
            .map(|i| {
                if i == 150 {
                    format!("line {i:03} the build failed here, see above......\n")
                } else {
                    format!("line {i:03} nothing to see in this line at all..\n")
                }
            })
            .collect();
        let view = DROID.view(&raw, false).unwrap();
        assert_eq!(view, vec![0..30, 140..161, 270..300]);
    }
}
