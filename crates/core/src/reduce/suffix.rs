//! One line ending said once: a web server's access log ends every request with the same
//! referrer and user agent (`"-" "Mozilla/5.0 (X11; Linux x86_64) … Safari/537.36"`, thirty
//! tokens), msbuild every diagnostic with its project (`[C:\src\Shop\Shop.Web.csproj]`).
//! When four or more lines of a reduced output end with one such text of 24 characters or
//! more (after a space, and no more than two thirds of the line), it is written once in a
//! note above them and ` …` stands for it at the end of those lines, when that reads fewer
//! tokens: every line can still be read whole.

use std::collections::HashMap;

/// Fewest lines ending with the text.
const MIN_LINES: usize = 4;
/// Shortest ending said once (shorter ones cost about what the note does).
const MIN_CHARS: usize = 24;
/// Endings looked at per line: the text after each of its last spaces, up to this many,
/// and none longer than `MAX_CHARS` (a user agent is about 110), so that a long line costs
/// a few short hashes.
const MAX_CUTS: usize = 16;
const MAX_CHARS: usize = 240;
/// What stands for the ending on a line.
pub const MARK: &str = " …";

/// The endings of `line` worth saying once: the text after each of its last spaces, from
/// the shortest one long enough on.
fn endings(line: &str) -> impl Iterator<Item = &str> {
    line.rmatch_indices(' ')
        .take(MAX_CUTS)
        .map(move |(at, _)| &line[at + 1..])
        .take_while(|e| e.len() <= MAX_CHARS)
        .filter(|e| e.len() >= MIN_CHARS && !e.trim().is_empty())
}

/// `lines` with the ending that four or more of them share said once (see the module
/// note), the note above the first line it is left off. None when no ending is worth it, or
/// when a line already ends with the mark.
pub fn factor_suffix(lines: &[String]) -> Option<Vec<String>> {
    if lines.iter().any(|l| l.ends_with('…')) {
        return None;
    }
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for line in lines {
        for e in endings(line) {
            // an ending, not most of the line: a third of it stays to tell the lines apart
            // (a line said again whole is pointed to instead, see `again`)
            if (e.len() + 1) * 3 <= line.len() * 2 {
                *counts.entry(e).or_default() += 1;
            }
        }
    }
    // the ending that saves the most characters (the lexically first wins a tie, whatever
    // order the map holds them in)
    let (ending, _) = counts
        .into_iter()
        .filter(|(_, n)| *n >= MIN_LINES)
        .map(|(e, n)| (e, (e.len() - MARK.len()) * n))
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(a.0)))?;
    let ending = ending.to_string();
    let tail = format!(" {ending}");
    let note = format!(
        "[{} at the end of a line below stands for: {ending}]",
        MARK.trim()
    );
    let n = lines
        .iter()
        .filter(|l| l.len() > tail.len() && l.ends_with(&tail))
        .count() as u64;
    let (est, mark) = (crate::tokens::estimate, crate::tokens::estimate(MARK));
    if n * est(&tail) <= est(&note) + n * mark {
        return None;
    }
    let mut note = Some(note);
    let mut out = Vec::with_capacity(lines.len() + 1);
    for line in lines {
        match line.strip_suffix(&tail) {
            Some(head) if !head.is_empty() => {
                out.extend(note.take());
                out.push(format!("{head}{MARK}"));
            }
            _ => out.push(line.clone()),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::paths::tests::lines;

    const UA: &str = "\"-\" \"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0\"";

    #[test]
    fn an_access_log_s_user_agent_is_said_once() {
        let mut text = String::from("nginx: ready\n");
        for (i, path) in ["/", "/api/cart", "/health", "/api/orders", "/x"]
            .iter()
            .enumerate()
        {
            text.push_str(&format!(
                "10.0.0.{i} - - \"GET {path} HTTP/1.1\" 200 61{i} {UA}\n"
            ));
        }
        text.push_str("10.0.0.9 - - \"GET / HTTP/1.1\" 200 12 \"-\" \"curl/8.5.0\"\n");
        let out = factor_suffix(&lines(&text)).unwrap();
        assert_eq!(out[0], "nginx: ready");
        assert_eq!(
            out[1],
            format!("[… at the end of a line below stands for: {UA}]")
        );
        assert_eq!(out[2], "10.0.0.0 - - \"GET / HTTP/1.1\" 200 610 …");
        assert_eq!(out[6], "10.0.0.4 - - \"GET /x HTTP/1.1\" 200 614 …");
        assert_eq!(
            out[7],
            "10.0.0.9 - - \"GET / HTTP/1.1\" 200 12 \"-\" \"curl/8.5.0\""
        );
    }

    #[test]
    fn short_rare_or_whole_line_endings_stay() {
        // three lines are too few
        let few: String = (0..3).map(|i| format!("GET /{i} {UA}\n")).collect();
        assert!(factor_suffix(&lines(&few)).is_none());
        // an ending shorter than 24 characters costs what the note would
        let short: String = (0..8)
            .map(|i| format!("main.c:{i}: w [-Wunused-variable]\n"))
            .collect();
        assert!(factor_suffix(&lines(&short)).is_none());
        // a line that ends with the mark already: nothing is said once
        let marked = format!("{few}{few}tail …\n");
        assert!(factor_suffix(&lines(&marked)).is_none());
        // most of a line is not its ending
        let most: String = (0..6)
            .map(|i| format!("GET{i} /static/app.0123456789abcdef.bundle.js\n"))
            .collect();
        assert!(factor_suffix(&lines(&most)).is_none());
    }
}
