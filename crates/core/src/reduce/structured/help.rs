//! `--help` / `help` output: every subcommand and option with its one-line description.
//!
//! Kept: the first line (what the program is), usage lines, section headers, every
//! option or command entry, and for an entry whose description starts on the next line,
//! that first description line. Dropped (counted): wrapped continuation lines of
//! descriptions and long prose paragraphs. Text that does not look like help (too few
//! entries) is left to the rule's line reduction.

use super::{Structured, StructuredOutput};
use crate::reduce::text::clip_line;

#[derive(Default)]
pub struct Help {
    lines: Vec<String>,
    entries: u64,
    dropped: u64,
    total: u64,
    /// Indentation of the last entry, and whether it still needs its description.
    last_entry: Option<(usize, bool)>,
    in_usage: bool,
    first_seen: bool,
    prose_in_paragraph: u32,
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// `-x, --long <V>   text`, `--flag`, `build    text`, `  add [options] <pkg>   text`.
fn is_entry(line: &str) -> Option<bool> {
    let ind = indent(line);
    let t = line.trim_start();
    if ind > 16 || t.is_empty() {
        return None;
    }
    if ind == 0 && !t.starts_with('-') {
        // `name   : description` (python-style tables) is the only unindented entry form
        let colon = t.find(": ")?;
        let head = &t[..colon];
        return (colon <= 30 && head.ends_with(' ') || head.ends_with('.')).then_some(true);
    }
    let has_desc = t.contains("  ") || t.contains('\t');
    if t.starts_with('-') && t.len() > 1 && !t.starts_with("--- ") {
        return Some(has_desc);
    }
    let first = t.split_whitespace().next().unwrap_or("");
    let wordy = first
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '<' || c == '[')
        && first
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_:.,<>[]|/@".contains(c));
    if wordy && has_desc {
        // command with a description in a column: `build    Compile …`
        let gap = t.find("  ").or_else(|| t.find('\t')).unwrap_or(t.len());
        let head = &t[..gap];
        if head.split_whitespace().count() <= 4 {
            return Some(true);
        }
    }
    if wordy && !t.contains(' ') && first.len() <= 40 {
        return Some(false); // a bare command name, description on the next line
    }
    None
}

fn is_header(line: &str) -> bool {
    let t = line.trim();
    if t.is_empty() || indent(line) > 2 || t.len() > 60 {
        return false;
    }
    (t.ends_with(':') && !t.contains(". "))
        || (t.chars().any(|c| c.is_ascii_uppercase())
            && t.chars()
                .all(|c| c.is_ascii_uppercase() || c == ' ' || c == '-'))
}

impl Structured for Help {
    fn push(&mut self, line: &str) {
        self.total += 1;
        let t = line.trim();
        if t.is_empty() {
            self.in_usage = false;
            self.prose_in_paragraph = 0;
            if self.lines.last().is_some_and(|l| !l.is_empty()) {
                self.lines.push(String::new());
            }
            return;
        }
        if !self.first_seen {
            self.first_seen = true;
            self.lines.push(clip_line(line, 300).into_owned());
            return;
        }
        let lower = t.to_ascii_lowercase();
        if lower.starts_with("usage:") || lower.starts_with("usage ") {
            self.in_usage = true;
            self.last_entry = None;
            self.lines.push(line.to_string());
            return;
        }
        if self.in_usage && indent(line) > 0 {
            self.lines.push(line.to_string());
            return;
        }
        if is_header(line) {
            self.last_entry = None;
            self.prose_in_paragraph = 0;
            self.lines.push(line.to_string());
            return;
        }
        if let Some(has_desc) = is_entry(line) {
            // deeper than the previous entry and that entry had its description: a
            // continuation that happens to look like a word
            if let Some((ind, needs)) = self.last_entry {
                if indent(line) > ind + 2 && !t.starts_with('-') && !needs {
                    self.dropped += 1;
                    return;
                }
            }
            self.entries += 1;
            self.prose_in_paragraph = 0;
            self.last_entry = Some((indent(line), !has_desc));
            self.lines.push(clip_line(line, 300).into_owned());
            return;
        }
        if let Some((ind, needs)) = self.last_entry {
            if indent(line) > ind {
                if needs {
                    self.lines.push(clip_line(line, 300).into_owned());
                    self.last_entry = Some((ind, false));
                } else {
                    self.dropped += 1;
                }
                return;
            }
        }
        // prose: keep the first line of each paragraph
        self.last_entry = None;
        self.prose_in_paragraph += 1;
        if self.prose_in_paragraph == 1 {
            self.lines.push(clip_line(line, 300).into_owned());
        } else {
            self.dropped += 1;
        }
    }

    fn finish(mut self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        if self.entries < 3 {
            return None;
        }
        while self.lines.last().is_some_and(String::is_empty) {
            self.lines.pop();
        }
        Some(StructuredOutput {
            name: "help",
            lines: self.lines,
            facts: vec![("entry".into(), self.entries)],
            omitted: 0,
            filtered: self.dropped,
            facts_line: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_entries_drops_wrapped_descriptions() {
        let text = "tool 1.0 - does things
Usage: tool [OPTIONS] <COMMAND>

Commands:
  build    Compile the project
  test     Run the tests
           and report failures in detail
  help     Print this message

Options:
  -v, --verbose
          Print more output
          Can be repeated for even more
  -q, --quiet  Print less
";
        let out = crate::reduce::structured::feed(Box::new(Help::default()), text, 0).unwrap();
        let t = out.lines.join("\n");
        for want in [
            "tool 1.0",
            "Usage: tool",
            "build    Compile",
            "test     Run the tests",
            "help     Print",
            "-v, --verbose",
            "Print more output",
            "-q, --quiet  Print less",
        ] {
            assert!(t.contains(want), "{want} missing in\n{t}");
        }
        assert!(
            !t.contains("and report failures") && !t.contains("Can be repeated"),
            "{t}"
        );
        assert_eq!(out.filtered, 2);
    }

    #[test]
    fn not_help() {
        let mut h = Box::new(Help::default());
        h.push("error: unexpected argument '--helpx'");
        assert!(h.finish(2).is_none());
    }
}
