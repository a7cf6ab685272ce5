//! Fitting a reduction under a host's own output limit, so the host never truncates it.
//!
//! Agents cut long tool output themselves (Claude Code keeps a 2 KB preview of outputs over
//! 30,000 characters; Codex keeps ~10 k; Droid 30 head + 30 tail lines). A reduction that
//! stays above such a cut would be cut again by the host, blindly. [`fit`] keeps whole lines
//! from the start and the end of the reduction (where the summary, the facts line and the
//! last errors are) and puts one marker line between them saying how much was cut and how
//! to get it back.

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
    /// A line budget (Droid keeps 30 head + 30 tail lines); `usize::MAX` when none.
    pub max_lines: usize,
}

impl HostCut {
    /// No limit.
    pub const NONE: HostCut = HostCut {
        cut_chars: usize::MAX,
        over_cut_keeps: usize::MAX,
        fail_cut_chars: usize::MAX,
        fail_over_cut_keeps: usize::MAX,
        max_lines: usize::MAX,
    };

    /// How many characters of an output of `raw_chars` the host shows when it cuts it (its
    /// preview); `None` when it shows the output whole.
    pub fn preview_chars(&self, raw_chars: usize, failed: bool) -> Option<usize> {
        let (cut, keeps) = if failed {
            (self.fail_cut_chars, self.fail_over_cut_keeps)
        } else {
            (self.cut_chars, self.over_cut_keeps)
        };
        (raw_chars > cut).then_some(keeps)
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
        };
        assert_eq!(c.budget(500, false), 500);
        assert_eq!(c.budget(30_000, false), 29_999);
        assert_eq!(c.budget(90_000, false), 2_000);
        assert_eq!(HostCut::NONE.budget(7, true), 7);
    }
}
