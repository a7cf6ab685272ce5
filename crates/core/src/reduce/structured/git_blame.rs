//! `git blame`: every line stays (with its number and text); the commit, author and date
//! that repeat on every line of a block are said once per block of consecutive lines
//! from the same commit: `a1b2c3d4 Ann Lee 2026-11-20 (lines 10-25)`. A line is its number,
//! a tab and its text.

use super::{Structured, StructuredOutput};
use crate::reduce::text::clip_line;

const MAX_LINES: usize = 20_000;

#[derive(Default)]
pub struct GitBlame {
    out: Vec<String>,
    current: Option<String>,
    block_start: usize,
    last_line: usize,
    header_at: usize,
    recognized: u64,
    other: u64,
    dropped: u64,
}

/// `^?abc1234 (Author Name 2026-11-20 10:00:00 +0100 12) code` (also with a file column).
fn parse(line: &str) -> Option<(&str, &str, &str, usize, &str)> {
    let (sha, rest) = line.split_once(' ')?;
    let sha = sha.trim_start_matches('^');
    if sha.len() < 7 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let open = rest.find('(')?;
    let close = rest
        .find(") ")
        .or_else(|| rest.strip_suffix(')').map(|r| r.len()))?;
    if close < open {
        return None;
    }
    let meta = &rest[open + 1..close];
    let code = rest.get(close + 2..).unwrap_or("");
    // meta: Author… date time zone lineno
    let mut parts: Vec<&str> = meta.split_whitespace().collect();
    let lineno: usize = parts.pop()?.parse().ok()?;
    let date_at = parts
        .iter()
        .position(|p| p.len() == 10 && p.as_bytes()[4] == b'-' && p.as_bytes()[7] == b'-')?;
    let author_end = meta.find(parts[date_at])?;
    let author = meta[..author_end].trim();
    Some((sha, author, parts[date_at], lineno, code))
}

impl GitBlame {
    fn close_block(&mut self, last_line: usize) {
        if let Some(h) = self.out.get_mut(self.header_at) {
            if self.current.is_some() {
                let range = if last_line > self.block_start {
                    format!("lines {}-{}", self.block_start, last_line)
                } else {
                    format!("line {}", self.block_start)
                };
                h.push_str(&format!(" ({range})"));
            }
        }
    }
}

impl Structured for GitBlame {
    fn push(&mut self, line: &str) {
        let Some((sha, author, date, n, code)) = parse(line) else {
            if !line.trim().is_empty() {
                self.other += 1;
                if self.out.len() < MAX_LINES {
                    self.out.push(line.to_string());
                }
            }
            return;
        };
        self.recognized += 1;
        if self.out.len() >= MAX_LINES {
            self.dropped += 1;
            return;
        }
        let key = format!("{sha} {author} {date}");
        if self.current.as_deref() != Some(key.as_str()) || n != self.last_line + 1 {
            let last = self.last_line;
            self.close_block(last);
            self.header_at = self.out.len();
            self.out.push(key.clone());
            self.current = Some(key);
            self.block_start = n;
        }
        self.last_line = n;
        // `12<TAB>code`: one tab after the number, so the code's own indentation reads as
        // it is (padding the numbers into a column cost 12% of a blame's tokens)
        self.out.push(format!("{n}\t{}", clip_line(code, 400)));
    }

    fn finish(mut self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        if self.recognized == 0 || self.other > self.recognized {
            return None;
        }
        let last = self.last_line;
        self.close_block(last);
        if self.dropped > 0 {
            self.out
                .push(format!("... {} more lines not shown ...", self.dropped));
        }
        Some(StructuredOutput {
            name: "git-blame",
            lines: self.out,
            facts: vec![("line".into(), self.recognized)],
            omitted: self.dropped,
            filtered: 0,
            facts_line: false,
            json_cut: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_consecutive_lines_by_commit() {
        let text = "\
5f74589b (Dana Dev 2026-11-20 10:00:00 +0100 1) fn main() {
5f74589b (Dana Dev 2026-11-20 10:00:00 +0100 2)     run();
^3d5fb78 (Ann Lee  2026-11-18 09:00:00 +0100 3) }";
        let out = crate::reduce::structured::feed(Box::new(GitBlame::default()), text, 0).unwrap();
        assert_eq!(
            out.lines,
            vec![
                "5f74589b Dana Dev 2026-11-20 (lines 1-2)",
                "1\tfn main() {",
                "2\t    run();",
                "3d5fb78 Ann Lee 2026-11-18 (line 3)",
                "3\t}",
            ]
        );
    }

    #[test]
    fn not_blame() {
        let mut b = Box::new(GitBlame::default());
        b.push("fatal: no such path 'x' in HEAD");
        assert!(b.finish(128).is_none());
    }
}
