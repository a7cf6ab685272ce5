//! Turning tracks of entries into text, with honest omission markers.

use super::engine::{Entry, Track};
use super::signal::Level;

/// Rendered body lines and what was left out.
#[derive(Debug, Default)]
pub struct Body {
    pub lines: Vec<String>,
    /// Lines cut for size (counted in markers).
    pub omitted: u64,
    /// Error/warning lines among the omitted ones.
    pub omitted_signals: u64,
    /// Noise lines dropped by filters.
    pub filtered: u64,
    /// Lines folded into similar/identical runs (shown as counts).
    pub folded: u64,
    /// Middle lines kept for being errors, warnings, blocks or context.
    pub kept_middle: u64,
    /// Number of lines clipped for length.
    pub clipped: u64,
    /// Error/warning lines seen again later and counted on a shown one (`(+N similar
    /// later, not shown)`).
    pub later_repeats: u64,
}

/// Render a track, showing the first `head` and last `tail` entries plus every kept one.
pub fn render_track(track: &Track, head: usize, tail: usize, trim_edges: bool) -> Body {
    // entry, omitted_before, omitted_signals_before (u64::MAX: only blank lines omitted)
    let mut visible: Vec<(&Entry, u64, u64)> = Vec::new();
    let mut carry_omitted = 0u64;
    let mut carry_signals = 0u64;
    // the lines omitted since the last visible entry are all blank
    let mut carry_blank = true;
    let mut filtered = 0u64;
    let mut kept_middle = 0u64;
    let mut hidden_repeats = track.hidden_repeats.clone();
    let ring_len = track.ring.len();
    let head_len = track.head.len();
    // The head buffer may hold more entries than this run shows from the start (it is
    // sized for the failure head): those near the end still belong to the tail window.
    let all = track
        .head
        .iter()
        .enumerate()
        .map(|(i, e)| (e, i < head || i + tail >= head_len + ring_len, false))
        .chain(track.kept.iter().map(|e| (e, false, true)))
        .chain(
            track
                .ring
                .iter()
                .enumerate()
                .map(|(i, e)| (e, i + tail >= ring_len, false)),
        );
    for (e, in_window, from_kept) in all {
        carry_omitted += e.omitted_before;
        carry_signals += e.omitted_signals_before;
        carry_blank &= !e.omitted_text_before;
        filtered += e.filtered_before;
        if in_window || e.keep || from_kept {
            if !in_window {
                kept_middle += e.count;
            }
            let signals = if carry_omitted > 0 && carry_blank {
                BLANK_ONLY
            } else {
                carry_signals
            };
            visible.push((e, carry_omitted, signals));
            carry_omitted = 0;
            carry_signals = 0;
            carry_blank = true;
        } else {
            carry_blank &= e.text.is_empty();
            carry_omitted += e.count;
            if e.level > Level::None {
                carry_signals += e.count;
            }
            if let Some(g) = e.repeat_of {
                let g = g as usize;
                if hidden_repeats.len() <= g {
                    hidden_repeats.resize(g + 1, 0);
                }
                hidden_repeats[g] += e.count;
            }
        }
    }
    filtered += track.trailing_filtered();

    // trim blank entries at the edges
    if trim_edges {
        while visible
            .first()
            .is_some_and(|(e, o, _)| e.text.is_empty() && *o == 0)
        {
            visible.remove(0);
        }
        while visible.last().is_some_and(|(e, _, _)| e.text.is_empty()) && carry_omitted == 0 {
            visible.pop();
        }
    }

    let mut body = Body {
        filtered,
        kept_middle,
        ..Body::default()
    };
    for (e, omitted, signals) in visible {
        if omitted > 0 && signals == BLANK_ONLY {
            // blank lines alone between kept ones: one blank line says as much as a marker
            body.lines.push(String::new());
        } else if omitted > 0 {
            body.omitted += omitted;
            body.omitted_signals += signals;
            body.lines.push(omission_marker(omitted, signals));
        }
        push_entry(&mut body, e, &hidden_repeats);
    }
    if carry_omitted > 0 {
        body.omitted += carry_omitted;
        body.omitted_signals += carry_signals;
        body.lines
            .push(omission_marker(carry_omitted, carry_signals));
    }
    body
}

/// Stands for "the omitted lines were all blank" where a count of signal lines goes.
const BLANK_ONLY: u64 = u64::MAX;

pub fn omission_marker(n: u64, signals: u64) -> String {
    let lines = if n == 1 { "line" } else { "lines" };
    if signals > 0 {
        format!("... {n} {lines} omitted ({signals} of them error/warning lines) ...")
    } else {
        format!("... {n} {lines} omitted ...")
    }
}

fn push_entry(body: &mut Body, e: &Entry, hidden_repeats: &[u64]) {
    if e.text.contains("chars clipped]") {
        body.clipped += 1;
    }
    let repeats = e
        .group
        .and_then(|g| hidden_repeats.get(g as usize))
        .copied()
        .unwrap_or(0);
    body.later_repeats += repeats;
    let suffix = if repeats > 0 {
        format!("  (+{repeats} similar later, not shown)")
    } else {
        String::new()
    };
    if e.count == 1 {
        body.lines.push(format!("{}{suffix}", e.text));
        return;
    }
    if e.identical || e.text.is_empty() {
        body.folded += e.count - 1;
        if e.text.is_empty() {
            body.lines.push(String::new());
        } else {
            body.lines.push(format!("{} ×{}{suffix}", e.text, e.count));
        }
        return;
    }
    body.lines.push(format!("{}{suffix}", e.text));
    if !e.middle.is_empty() && !e.times_only {
        // a run of error/warning lines: its first lines each, then the rest counted
        body.lines.extend(e.middle.iter().cloned());
        let hidden = e.count - 2 - e.middle.len() as u64;
        // one line left: that line, not a marker longer than it
        let alone = (hidden == 1)
            .then(|| e.vary.line_after(&e.text, e.middle.len()))
            .flatten();
        if let Some(line) = alone {
            body.lines.push(line);
        } else if hidden > 0 {
            body.folded += hidden;
            let what = e
                .vary
                .said_after(&e.text, e.count, e.middle.len())
                .unwrap_or_default();
            body.lines.push(format!(
                "... {}{what} ...",
                pluralize(hidden, "more similar line")
            ));
        }
    } else if e.count == 3 {
        if let Some(second) = &e.second_text {
            body.lines.push(second.clone());
        }
    } else if e.count > 3 {
        body.folded += e.count - 2;
        let what = e.vary.said_after(&e.text, e.count, 0).unwrap_or_default();
        body.lines
            .push(format!("... {} similar lines{what} ...", e.count - 2));
    }
    if let Some(last) = &e.last_text {
        body.lines.push(last.clone());
    }
}

/// Whether a line is one of tokenjuice's markers (`... 3 lines omitted ...`, `... 88
/// similar lines ...`, `... the 6 lines above again 39 times, the same ...`), not the
/// command's.
pub fn is_marker(line: &str) -> bool {
    line.starts_with("... ") && line.ends_with(" ...")
}

/// `1 failed test`, `3 failed tests`, `2 matches`, `4 entries`.
pub fn pluralize(count: u64, name: &str) -> String {
    if count == 1 {
        return format!("{count} {name}");
    }
    let (head, last) = match name.rfind(' ') {
        Some(k) => (&name[..=k], &name[k + 1..]),
        None => ("", name),
    };
    let plural = if last.ends_with('s')
        || last.ends_with('x')
        || last.ends_with("ch")
        || last.ends_with("sh")
    {
        if last.ends_with("ss")
            || last.ends_with('x')
            || last.ends_with("ch")
            || last.ends_with("sh")
        {
            format!("{last}es")
        } else {
            last.to_string()
        }
    } else if last.ends_with('y')
        && !last.ends_with("ay")
        && !last.ends_with("ey")
        && !last.ends_with("oy")
    {
        format!("{}ies", &last[..last.len() - 1])
    } else {
        format!("{last}s")
    };
    format!("{count} {head}{plural}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(n: u64) -> Entry {
        Entry {
            first: n,
            last: n,
            text: format!("line {n}"),
            last_text: None,
            second_text: None,
            middle: Vec::new(),
            times_only: true,
            vary: crate::reduce::vary::Vary::Unknown(0),
            count: 1,
            identical: true,
            keep: false,
            level: Level::None,
            shape: n,
            group: None,
            repeat_of: None,
            omitted_before: 0,
            omitted_text_before: false,
            omitted_signals_before: 0,
            filtered_before: 0,
            block_start: false,
        }
    }

    #[test]
    fn tail_window_reaches_into_the_head_buffer() {
        // head buffer sized 15 (failure head), success shows head 3 + tail 4 of 12 lines
        let mut t = Track::new(15, 40, false);
        for n in 1..=12 {
            t.push_for_test(entry(n));
        }
        let body = render_track(&t, 3, 4, true);
        assert_eq!(
            body.lines,
            vec![
                "line 1",
                "line 2",
                "line 3",
                "... 5 lines omitted ...",
                "line 9",
                "line 10",
                "line 11",
                "line 12"
            ]
        );
        assert_eq!(body.omitted, 5);
    }

    #[test]
    fn plurals() {
        assert_eq!(pluralize(1, "failed test"), "1 failed test");
        assert_eq!(pluralize(3, "failed test"), "3 failed tests");
        assert_eq!(pluralize(2, "match"), "2 matches");
        assert_eq!(pluralize(4, "entry"), "4 entries");
        assert_eq!(pluralize(0, "key"), "0 keys");
        assert_eq!(pluralize(5, "process"), "5 processes");
    }
}
