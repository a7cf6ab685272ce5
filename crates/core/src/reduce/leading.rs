//! One line beginning said once: some tools start every line of a report with the same
//! words — valgrind its process id (`==875== `), npm its level (`npm error `). When every
//! line of a reduced output but blank lines, tokenjuice's own markers and the notes of the
//! passes before this one (six or more) starts with one such text and a space, it is
//! written once in a note above them and left
//! off the lines: every line can still be read whole. A line that is the text alone keeps
//! it, so a blank line stays a blank line of the output.

/// Fewest lines starting with the text.
const MIN_LINES: usize = 6;
/// Fewest characters of text said once (without the space after it).
const MIN_CHARS: usize = 4;
/// Fewest characters the lines give up in all: below it the note costs about as much.
const MIN_SAVED: usize = 48;

/// A marker of the line engine's (`... 3 similar lines ...`) or a note of the passes
/// before this one (`[…/ stands for …]`, `[… at the end of a line below stands for: …]`,
/// `[times below are on …]`): not the tool's.
fn is_ours(line: &str) -> bool {
    super::render::is_marker(line)
        || line.ends_with(']') && (line.starts_with("[…") || line.starts_with("[times below "))
}

/// The text every line worth looking at starts with, ending where a word ends, when it is
/// worth saying once.
fn common_beginning(lines: &[String]) -> Option<&str> {
    let looked: Vec<&str> = lines
        .iter()
        .map(String::as_str)
        .filter(|l| !l.trim().is_empty() && !is_ours(l))
        .collect();
    if looked.len() < MIN_LINES {
        return None;
    }
    let first = looked[0];
    let mut len = super::text::common_prefix_len(first, &looked[1..]);
    // where a word ends: before a space (or the end) on every line
    if !looked
        .iter()
        .all(|l| matches!(l.as_bytes().get(len), None | Some(b' ')))
    {
        len = first[..len].rfind(' ')?;
    }
    let text = first[..len].trim_end();
    let visible = text.chars().filter(|c| !c.is_whitespace()).count();
    let starts_lines = looked.iter().filter(|l| l.len() > text.len()).count();
    (visible >= MIN_CHARS
        && !text.starts_with(char::is_whitespace)
        && starts_lines >= MIN_LINES
        && (text.len() + 1) * starts_lines >= MIN_SAVED)
        .then_some(text)
}

/// `lines` with the text every one of them starts with said once (see the module note):
/// the note line first. None when no such text is worth it.
pub fn factor_beginning(lines: &[String]) -> Option<Vec<String>> {
    let text = common_beginning(lines)?;
    let mut out = Vec::with_capacity(lines.len() + 1);
    out.push(format!("[each line below starts with: {text}]"));
    for l in lines {
        // the text alone said again (`==875== ×2`) stays whole too
        let again = |r: &str| {
            r.strip_prefix('×')
                .is_some_and(|n| n.parse::<u64>().is_ok())
        };
        match l.strip_prefix(text).and_then(|r| r.strip_prefix(' ')) {
            Some(rest) if !is_ours(l) && !again(rest) => out.push(rest.to_string()),
            _ => out.push(l.clone()),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::paths::tests::lines;

    #[test]
    fn a_beginning_on_every_line_is_said_once() {
        let text = "==875== Memcheck, a memory error detector\n==875== Command: ./a\n==875== ×2\n==875==\n\
                    [… at the end of a line below stands for: gnu.so)]\n==875==    at 0x1: f (in …\n\
                    ==875== Invalid write of size 4\n==875==    at 0x109167: main (a.c:2)\n\
                    ... 3 similar lines ...\n\
                    ==875==  Address 0x4a40068 is 0 bytes after a block of size 40 alloc'd\n\
                    ==875==    by 0x10915A: main (a.c:2)\n==875== ERROR SUMMARY: 2 errors\n\n";
        let out = factor_beginning(&lines(text)).unwrap();
        assert_eq!(
            out,
            lines(
                "[each line below starts with: ==875==]\nMemcheck, a memory error detector\n\
                 Command: ./a\n==875== ×2\n==875==\n\
                 [… at the end of a line below stands for: gnu.so)]\n   at 0x1: f (in …\n\
                 Invalid write of size 4\n   at 0x109167: main (a.c:2)\n\
                 ... 3 similar lines ...\n \
                 Address 0x4a40068 is 0 bytes after a block of size 40 alloc'd\n   \
                 by 0x10915A: main (a.c:2)\nERROR SUMMARY: 2 errors\n\n"
            )
        );
        // two words, cut where a word ends
        let npm: String = (0..8)
            .map(|i| format!("npm error 404 part {i} not found\n"))
            .collect::<String>()
            + "npm error A complete log of this run can be found in: /root/.npm/x.log\n";
        let out = factor_beginning(&lines(&npm)).unwrap();
        assert_eq!(out[0], "[each line below starts with: npm error]");
        assert_eq!(out[1], "404 part 0 not found");
    }

    #[test]
    fn one_line_without_it_or_a_short_or_indented_one_leaves_the_lines() {
        let mut l: Vec<String> = (0..10).map(|i| format!("==875== line {i}")).collect();
        l.push("program output".into());
        assert_eq!(factor_beginning(&l), None);
        let l: Vec<String> = (0..40).map(|i| format!("ab {i}")).collect();
        assert_eq!(factor_beginning(&l), None, "too short to be worth a note");
        let l: Vec<String> = (0..40).map(|i| format!("    indented {i}")).collect();
        assert_eq!(factor_beginning(&l), None);
        let l: Vec<String> = (0..5)
            .map(|i| format!("==875== a long line number {i}"))
            .collect();
        assert_eq!(factor_beginning(&l), None, "too few lines");
        // the text must end where a word ends on every line
        let l: Vec<String> = (0..10).map(|i| format!("process{i} started")).collect();
        assert_eq!(factor_beginning(&l), None);
    }
}
