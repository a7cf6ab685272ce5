//! The lines a reducer keeps of a long output: its first ones, its last ones (where a
//! failed build or a plan says how it ended) and the error and warning lines between them,
//! each run of lines left out counted where it was (with the error and warning lines among
//! them, once the ones kept between reach their cap).

use std::collections::VecDeque;

use crate::reduce::render::omission_marker;
use crate::reduce::signal::{classify, Level};

#[derive(Debug, Default)]
pub struct Kept {
    head_max: usize,
    tail_max: usize,
    middle_max: usize,
    /// The first lines.
    pub head: Vec<String>,
    /// Past the head: error and warning lines, each with how many lines were left out
    /// before it, and how many of those were error and warning lines.
    middle: Vec<(u64, u64, String)>,
    /// Lines left out since the last line kept in `middle`, and the error and warning
    /// lines among them.
    gap: u64,
    gap_signals: u64,
    tail: VecDeque<String>,
    /// Lines left out in all.
    pub omitted: u64,
}

impl Kept {
    /// At most `head` first lines, `tail` last lines and `middle` error and warning lines
    /// between them.
    pub fn new(head: usize, tail: usize, middle: usize) -> Self {
        Kept {
            head_max: head,
            tail_max: tail,
            middle_max: middle,
            ..Kept::default()
        }
    }

    pub fn push(&mut self, line: String) {
        if self.head.len() < self.head_max {
            self.head.push(line);
            return;
        }
        self.tail.push_back(line);
        if self.tail.len() <= self.tail_max {
            return;
        }
        let Some(out) = self.tail.pop_front() else {
            return;
        };
        let signal = classify(&out) > Level::None;
        if signal && self.middle.len() < self.middle_max {
            self.middle.push((self.gap, self.gap_signals, out));
            (self.gap, self.gap_signals) = (0, 0);
        } else {
            self.gap += 1;
            self.gap_signals += u64::from(signal);
            self.omitted += 1;
        }
    }

    /// The last line pushed, when it is still kept.
    pub fn last(&self) -> Option<&String> {
        match self.tail.back() {
            Some(l) => Some(l),
            None if self.omitted == 0 && self.middle.is_empty() => self.head.last(),
            None => None,
        }
    }

    /// The last line pushed, to be added to, when it is still kept.
    pub fn last_mut(&mut self) -> Option<&mut String> {
        if !self.tail.is_empty() {
            return self.tail.back_mut();
        }
        if self.omitted == 0 && self.middle.is_empty() {
            return self.head.last_mut();
        }
        None
    }

    /// The lines kept, in order, with the omission marker where lines were left out
    /// (`... 4 lines omitted (1 of them error/warning lines) ...`); and how many were.
    pub fn finish(self) -> (Vec<String>, u64) {
        let mut lines = self.head;
        for (gap, signals, l) in self.middle {
            if gap > 0 {
                lines.push(omission_marker(gap, signals));
            }
            lines.push(l);
        }
        if self.gap > 0 {
            lines.push(omission_marker(self.gap, self.gap_signals));
        }
        lines.extend(self.tail);
        (lines, self.omitted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_and_last_lines_and_the_errors_between_with_every_gap_counted() {
        let mut k = Kept::new(2, 2, 1);
        for l in [
            "a",
            "b",
            "c",
            "error: one",
            "d",
            "e",
            "error: two",
            "f",
            "y",
            "z",
        ] {
            k.push(l.to_string());
        }
        let (lines, omitted) = k.finish();
        assert_eq!(
            lines,
            [
                "a",
                "b",
                "... 1 line omitted ...",
                "error: one",
                "... 4 lines omitted (1 of them error/warning lines) ...",
                "y",
                "z"
            ]
        );
        assert_eq!(omitted, 5);
    }

    #[test]
    fn a_short_output_is_kept_whole() {
        let mut k = Kept::new(3, 2, 1);
        for l in ["a", "b", "c", "d"] {
            k.push(l.to_string());
        }
        assert_eq!(
            k.finish(),
            (
                vec!["a", "b", "c", "d"]
                    .into_iter()
                    .map(String::from)
                    .collect(),
                0
            )
        );
    }
}
