//! `--help` / `help` output: every subcommand and option with its one-line description.
//!
//! Kept: the first line (what the program is), usage lines, section headers, and every
//! option or command entry with its whole description. Dropped (counted): prose
//! paragraphs after their first sentence (its wrapped lines, the ones going on in lower
//! case, are joined). Text that does not look like help (too few entries) is left to the
//! rule's line reduction. An entry may be unindented (node's environment variables,
//! `NODE_PATH   ':'-separated list …`). A diagnostic boxed before the help (terraform's
//! `│ Warning: …`) is kept line by line, without its box.
//!
//! Layout goes: an entry is written `name: description` on one line, its wrapped
//! description lines joined on (indentation and the padding that aligned the description
//! column cost ~15% of a help text's tokens). An entry line is cut at 600 characters,
//! with a marker.

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
    /// The first sentence of the current prose paragraph goes on on the next line.
    sentence_open: bool,
}

/// A line of prose that ends a sentence (or holds the end of one).
fn ends_sentence(t: &str) -> bool {
    t.ends_with(['.', '!', '?', ':']) || t.contains(". ")
}

/// Longest entry line (an entry with its whole description joined).
const MAX_ENTRY: usize = 600;

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
        // unindented, one name and its description in a column: node's environment
        // variables (`NODE_PATH        ':'-separated list …`)
        if let Some(gap) = t.find("  ") {
            let head = &t[..gap];
            let name = head.len() >= 2
                && head
                    .bytes()
                    .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-');
            if name && !t[gap..].trim_start().is_empty() {
                return Some(true);
            }
        }
        // or a `name   : description` table row (python's)
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
        // an example with its `# comment` column (`tar -cf archive.tar foo bar  # Create …`)
        // may have more words than a command name
        if head.split_whitespace().count() <= 4 || t[gap..].trim_start().starts_with("# ") {
            return Some(true);
        }
    }
    if wordy && !t.contains(' ') && first.len() <= 40 {
        return Some(false); // a bare command name, description on the next line
    }
    None
}

/// An entry without its layout: `name: description` (a `name : description` table row and
/// a bare name stay as they are).
fn entry_line(t: &str) -> String {
    let gap = match (t.find("  "), t.find('\t')) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => match a.or(b) {
            Some(g) => g,
            None => return t.to_string(),
        },
    };
    let (head, desc) = (t[..gap].trim_end(), t[gap..].trim());
    // python's `-b     : issue warnings …` column
    let desc = desc.strip_prefix(": ").map_or(desc, str::trim_start);
    // an example's `# comment` column (`tar -xf a.tar   # Extract …`) stays a comment
    if desc.starts_with('#') {
        return format!("{head} {desc}");
    }
    if desc.is_empty() || desc.starts_with(':') || head.ends_with(':') {
        return t.to_string();
    }
    format!("{head}: {desc}")
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

impl Help {
    /// Joins a description line onto the entry above it (the words stay, the wrapping
    /// goes); past [`MAX_ENTRY`] characters the rest is counted as left out.
    fn join_description(&mut self, t: &str, sep: &str) {
        match self.lines.last_mut() {
            Some(last) if !last.is_empty() && last.len() < MAX_ENTRY => {
                last.push_str(sep);
                last.push_str(t);
                if last.len() > MAX_ENTRY {
                    *last = clip_line(last, MAX_ENTRY).into_owned();
                }
            }
            Some(last) if !last.is_empty() => self.dropped += 1,
            _ => self.lines.push(clip_line(t, MAX_ENTRY).into_owned()),
        }
    }
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
        // usage goes on over indented lines, up to a blank line or the first option (curl
        // lists its options right under its one usage line)
        if self.in_usage && indent(line) > 0 && !t.starts_with('-') {
            self.lines.push(line.to_string());
            return;
        }
        self.in_usage = false;
        // a diagnostic printed before the help, in a box (terraform's `╷`, `│ Warning: …`,
        // `╵`): every line of it stays, the box goes
        if let Some(inside) = t.strip_prefix('│') {
            self.last_entry = None;
            self.prose_in_paragraph = 0;
            let inside = inside.trim();
            if inside.is_empty() {
                self.dropped += 1;
            } else {
                self.lines.push(clip_line(inside, 300).into_owned());
            }
            return;
        }
        if t == "╷" || t == "╵" {
            self.dropped += 1;
            return;
        }
        if is_header(line) {
            self.last_entry = None;
            self.prose_in_paragraph = 0;
            // (entries lose their indentation: so does a header, ` Main operation mode:`)
            self.lines.push(t.to_string());
            return;
        }
        if let Some(has_desc) = is_entry(line) {
            // deeper than the previous entry and that entry had its description: a
            // continuation that happens to look like a word
            if let Some((ind, needs)) = self.last_entry {
                if indent(line) > ind + 2 && !t.starts_with('-') && !needs {
                    self.join_description(t, " ");
                    return;
                }
            }
            self.entries += 1;
            self.prose_in_paragraph = 0;
            self.last_entry = Some((indent(line), !has_desc));
            self.lines.push(clip_line(&entry_line(t), 300).into_owned());
            return;
        }
        if let Some((ind, needs)) = self.last_entry {
            if indent(line) > ind {
                // the description of the entry above, or its next wrapped line: joined onto
                // the entry's line (the words stay, the wrapping goes)
                self.join_description(t, if needs { ": " } else { " " });
                self.last_entry = Some((ind, false));
                return;
            }
        }
        // prose: keep the first sentence of each paragraph (its wrapped lines joined)
        self.last_entry = None;
        self.prose_in_paragraph += 1;
        if self.prose_in_paragraph == 1 {
            self.lines.push(clip_line(line, 300).into_owned());
            self.sentence_open = !ends_sentence(t);
        } else if self.sentence_open && t.starts_with(|c: char| c.is_lowercase()) {
            self.join_description(t, " ");
            self.sentence_open = !ends_sentence(t);
        } else {
            self.sentence_open = false;
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
            json_cut: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_paragraph_keeps_its_first_sentence_whole() {
        let text = "Usage: tar [OPTION...] [FILE]...
GNU 'tar' saves many files together into a single tape or disk archive, and can
restore individual files from the archive.

  -c, --create               create a new archive
  -t, --list                 list the contents of an archive
  -x, --extract, --get       extract files from an archive

The backup suffix is '~', unless set with --suffix or SIMPLE_BACKUP_SUFFIX.
The version control may be set with --backup or VERSION_CONTROL, values are:
Report bugs to <bug-tar@gnu.org>.
";
        let out = crate::reduce::structured::feed(Box::new(Help::default()), text, 0).unwrap();
        let t = out.lines.join("\n");
        assert!(t.contains("GNU 'tar' saves many files together into a single tape or disk archive, and can restore individual files from the archive.\n"), "{t}");
        // a sentence that ended: the paragraph's next lines are left out, counted
        assert!(
            t.ends_with(
                "\nThe backup suffix is '~', unless set with --suffix or SIMPLE_BACKUP_SUFFIX."
            ),
            "{t}"
        );
        assert!(
            !t.contains("VERSION_CONTROL") && !t.contains("Report bugs"),
            "{t}"
        );
        assert_eq!(out.filtered, 2);
    }

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
            "\nbuild: Compile the project\n",
            "\ntest: Run the tests",
            "\nhelp: Print this message\n",
            "\n-v, --verbose: Print more output",
            "\n-q, --quiet: Print less",
        ] {
            assert!(t.contains(want), "{want} missing in\n{t}");
        }
        // wrapped description lines are joined on, not lost
        assert!(
            t.contains("\ntest: Run the tests and report failures in detail\n")
                && t.contains("\n-v, --verbose: Print more output Can be repeated for even more\n"),
            "{t}"
        );
        assert_eq!(out.filtered, 0);
    }

    #[test]
    fn options_right_under_usage_and_example_comments() {
        // curl lists its options under its one usage line, with no blank line between
        let text = "Usage: curl [options...] <url>
     --anyauth            Pick any authentication method
 -a, --append             Append to target file when uploading
     --cert-status        Verify the status of the server cert via OCSP-staple
Examples:
  tar -cf archive.tar foo bar  # Create archive.tar from files foo and bar.
  tar -xf archive.tar          # Extract all files from archive.tar.

 Main operation mode:
  -c, --create               create a new archive
";
        let out = crate::reduce::structured::feed(Box::new(Help::default()), text, 0).unwrap();
        let t = out.lines.join("\n");
        assert!(
            t.contains("\n--anyauth: Pick any authentication method\n-a, --append: Append to target file when uploading\n"),
            "{t}"
        );
        // every example alike, whatever its number of words; a header without its indent
        assert!(
            t.ends_with(
                "\ntar -cf archive.tar foo bar # Create archive.tar from files foo and bar.\n\
                 tar -xf archive.tar # Extract all files from archive.tar.\n\n\
                 Main operation mode:\n-c, --create: create a new archive"
            ),
            "{t}"
        );
    }

    #[test]
    fn unindented_names_with_a_description_column_and_a_boxed_warning() {
        let text = "There are some problems with the CLI configuration:
╷
│ Warning: Unable to open CLI configuration file
│
│ The CLI configuration file at \"/root/.terraformrc\" does not exist.
╵

Usage: node [options] [ script.js ] [arguments]

Options:
  -c, --check                 syntax check script without executing
  -e, --eval script           evaluate script
  -h, --help                  print node command line options

Environment variables:
FORCE_COLOR                 when set to 'true', 1, 2, 3, or an
                            empty string causes NO_COLOR and
                            NODE_DISABLE_COLORS to be ignored.
NO_COLOR                    Alias for NODE_DISABLE_COLORS
NODE_NO_WARNINGS            set to 1 to silence process warnings

Documentation can be found at https://nodejs.org/
";
        let o = crate::reduce::structured::feed(Box::<Help>::default(), text, 0).unwrap();
        let t = o.lines.join("\n");
        assert!(t.contains("\nWarning: Unable to open CLI configuration file\nThe CLI configuration file at \"/root/.terraformrc\" does not exist.\n"), "{t}");
        assert!(!t.contains('│') && !t.contains('╷'), "{t}");
        assert!(t.contains("FORCE_COLOR: when set to 'true', 1, 2, 3, or an empty string causes NO_COLOR and NODE_DISABLE_COLORS to be ignored.\n"), "{t}");
        assert!(t.contains("NO_COLOR: Alias for NODE_DISABLE_COLORS\nNODE_NO_WARNINGS: set to 1 to silence process warnings"), "{t}");
        assert!(
            t.contains("Documentation can be found at https://nodejs.org/"),
            "{t}"
        );
    }

    #[test]
    fn not_help() {
        let mut h = Box::new(Help::default());
        h.push("error: unexpected argument '--helpx'");
        assert!(h.finish(2).is_none());
    }
}
