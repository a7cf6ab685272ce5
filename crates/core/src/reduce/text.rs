//! Line-level text helpers used on the hot path.

use std::borrow::Cow;

/// Remove ANSI escape sequences: CSI (`ESC [ … final`), OSC (`ESC ] … BEL|ST`),
/// other two-byte `ESC x` sequences, incomplete trailing sequences and stray ESC bytes.
pub fn strip_ansi(line: &str) -> Cow<'_, str> {
    // ESC, or the first byte of U+009B (8-bit CSI)
    if memchr::memchr2(0x1b, 0xc2, line.as_bytes()).is_none() {
        return Cow::Borrowed(line);
    }
    let b = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    let mut last = 0;
    while i < b.len() {
        let c = b[i];
        // 8-bit CSI (U+009B encoded as C2 9B)
        let csi8 = c == 0xc2 && b.get(i + 1) == Some(&0x9b);
        if c != 0x1b && !csi8 {
            i += 1;
            continue;
        }
        out.push_str(&line[last..i]);
        if csi8 {
            i = skip_csi(b, i + 2);
        } else {
            match b.get(i + 1) {
                Some(b'[') => i = skip_csi(b, i + 2),
                Some(b']' | b'P' | b'X' | b'^' | b'_') => {
                    // OSC / DCS / SOS / PM / APC: until BEL or ESC \
                    let mut j = i + 2;
                    while j < b.len() {
                        if b[j] == 0x07 {
                            j += 1;
                            break;
                        }
                        if b[j] == 0x1b && b.get(j + 1) == Some(&b'\\') {
                            j += 2;
                            break;
                        }
                        j += 1;
                    }
                    i = j;
                }
                Some(&n) if (0x20..0x7f).contains(&n) => {
                    // ESC ( B and friends take one more byte
                    i += if matches!(n, b'(' | b')' | b'*' | b'+' | b'#' | b'%') {
                        3
                    } else {
                        2
                    };
                }
                _ => i += 1,
            }
        }
        i = i.min(b.len());
        // never split a UTF-8 character
        while i < b.len() && !line.is_char_boundary(i) {
            i += 1;
        }
        last = i;
    }
    out.push_str(&line[last..]);
    Cow::Owned(out)
}

fn skip_csi(b: &[u8], mut j: usize) -> usize {
    while j < b.len() && (0x20..=0x3f).contains(&b[j]) {
        j += 1;
    }
    if j < b.len() && (0x40..=0x7e).contains(&b[j]) {
        j += 1;
    }
    j
}

/// Resolve carriage returns the way a terminal shows them: `a\rb` keeps what was
/// written last. A trailing `\r` (CRLF) is dropped.
pub fn resolve_cr(line: &str) -> &str {
    let line = line.strip_suffix('\r').unwrap_or(line);
    match memchr::memrchr(b'\r', line.as_bytes()) {
        // Progress bars redraw the whole line; the last segment is the final state.
        Some(k) => {
            let last = &line[k + 1..];
            if last.trim().is_empty() {
                // `text\r   ` (clear) — keep the last non-blank segment
                line[..k]
                    .rsplit('\r')
                    .find(|s| !s.trim().is_empty())
                    .unwrap_or("")
            } else {
                last
            }
        }
        None => line,
    }
}

/// Segments of `line` that a carriage return overwrote (a terminal no longer shows them;
/// `shown` is what it shows) and that read like an error or a warning: those must not
/// vanish with the progress they were mixed into.
pub fn overwritten_errors<'a>(line: &'a str, shown: &str) -> Vec<&'a str> {
    const WORDS: [&str; 9] = [
        "error",
        "fail",
        "fatal",
        "panic",
        "exception",
        "denied",
        "abort",
        "warning",
        "refused",
    ];
    let line = line.strip_suffix('\r').unwrap_or(line);
    if memchr::memchr(b'\r', line.as_bytes()).is_none() {
        return Vec::new();
    }
    line.split('\r')
        .map(str::trim_end)
        .filter(|s| !s.trim().is_empty() && *s != shown.trim_end())
        .filter(|s| {
            let lower = s.to_ascii_lowercase();
            WORDS.iter().any(|w| lower.contains(w))
        })
        .collect()
}

/// A clip that would cut fewer characters than this is not made: its marker costs about
/// as much as what it saves, and what it cuts is lost.
const MIN_CLIP: usize = 64;

/// Clip a line longer than `max` characters in the middle, saying how much was cut; a line
/// only a little longer (under [`MIN_CLIP`] more) is kept whole.
pub fn clip_line(line: &str, max: usize) -> Cow<'_, str> {
    if max == 0 || line.len() <= max + MIN_CLIP {
        return Cow::Borrowed(line);
    }
    let n = line.chars().count();
    if n <= max + MIN_CLIP {
        return Cow::Borrowed(line);
    }
    let keep_head = max * 2 / 3;
    let keep_tail = max - keep_head;
    let head: String = line.chars().take(keep_head).collect();
    let tail_start = line
        .char_indices()
        .nth(n - keep_tail)
        .map_or(line.len(), |(i, _)| i);
    Cow::Owned(format!(
        "{head}…[{} chars clipped]…{}",
        n - keep_head - keep_tail,
        &line[tail_start..]
    ))
}

/// A line of words longer than this is data all the same (a JSON document dumped on one
/// line with spaces after its commas, a table flattened by a tool): no one reads it whole.
pub const LONGEST_LINE_OF_WORDS: usize = 32 << 10;

/// A line with few spaces (fewer than one per 20 characters): minified code, encoded or
/// minified data; or one longer than [`LONGEST_LINE_OF_WORDS`]. A long line of words (a
/// list of options, a log line with a payload) is facts, and is not one.
pub fn looks_like_a_blob(line: &str) -> bool {
    if line.len() > LONGEST_LINE_OF_WORDS {
        return true;
    }
    let spaces = line.bytes().filter(u8::is_ascii_whitespace).count();
    spaces * 20 < line.len()
}

/// The length of the start `first` shares with every one of `rest`, in bytes, at a character
/// boundary (names that differ inside a character, `é` and `è`, share only what is before it).
pub fn common_prefix_len<S: AsRef<str>>(first: &str, rest: &[S]) -> usize {
    let mut len = first.len();
    for s in rest {
        len = len.min(
            first
                .bytes()
                .zip(s.as_ref().bytes())
                .take_while(|(a, b)| a == b)
                .count(),
        );
    }
    while !first.is_char_boundary(len) {
        len -= 1;
    }
    len
}

/// Number of Unicode scalar values in `s` (what `rawChars` counts).
pub fn count_chars(s: &[u8]) -> usize {
    // byte counters per block of 255 so the compiler can count 32 bytes at a time
    s.chunks(255)
        .map(|block| {
            block
                .iter()
                .fold(0u8, |n, &b| n + u8::from((b as i8) >= -0x40)) as usize
        })
        .sum()
}

/// Splits `img_0042.png` into (`img_`, 42, width 4, `.png`): the last run of digits.
pub fn numbered(name: &str) -> Option<(&str, u64, usize, &str)> {
    // digits are one byte each, so these are character boundaries; the character before the
    // digits may be several bytes
    let end = name.rfind(|c: char| c.is_ascii_digit())? + 1;
    let start = name[..end]
        .char_indices()
        .rev()
        .find(|(_, c)| !c.is_ascii_digit())
        .map_or(0, |(i, c)| i + c.len_utf8());
    let digits = &name[start..end];
    if digits.len() > 18 {
        return None;
    }
    Some((
        &name[..start],
        digits.parse().ok()?,
        digits.len(),
        &name[end..],
    ))
}

/// `word` with its last number one more than in `before`, the rest the same (the same
/// width when `before`'s number is padded with zeros).
pub fn one_more(before: &str, word: &str) -> bool {
    let (Some((h1, n, w1, t1)), Some((h2, m, w2, t2))) = (numbered(before), numbered(word)) else {
        return false;
    };
    let padded = w1 > n.checked_ilog10().map_or(1, |l| l as usize + 1);
    h1 == h2 && t1 == t2 && n.checked_add(1) == Some(m) && (!padded || w1 == w2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_common_sequences() {
        assert_eq!(strip_ansi("\x1b[31merror\x1b[0m: x"), "error: x");
        assert_eq!(strip_ansi("\x1b]8;;http://x\x07link\x1b]8;;\x07"), "link");
        assert_eq!(strip_ansi("\x1b]0;title\x1b\\ok"), "ok");
        assert_eq!(strip_ansi("a\x1b(Bb"), "ab");
        assert_eq!(strip_ansi("tail\x1b["), "tail");
        assert_eq!(strip_ansi("é\x1b[1mü"), "éü");
        assert_eq!(strip_ansi("plain"), "plain");
        assert!(matches!(strip_ansi("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn an_error_a_carriage_return_overwrote_is_found() {
        let raw = "error: disk full while writing out.bin\rOK";
        assert_eq!(resolve_cr(raw), "OK");
        assert_eq!(
            overwritten_errors(raw, "OK"),
            vec!["error: disk full while writing out.bin"]
        );
        // plain progress is not
        assert!(overwritten_errors("10%\r50%\r100%", "100%").is_empty());
        assert!(overwritten_errors("line\r", "line").is_empty());
    }

    #[test]
    fn carriage_returns() {
        assert_eq!(resolve_cr("10%\r50%\r100%"), "100%");
        assert_eq!(resolve_cr("line\r"), "line");
        assert_eq!(resolve_cr("done\r    "), "done");
        assert_eq!(resolve_cr("no cr"), "no cr");
    }

    #[test]
    fn clipping() {
        let long = "x".repeat(200);
        let c = clip_line(&long, 30);
        assert!(c.contains("[170 chars clipped]"), "{c}");
        assert_eq!(clip_line("short", 30), "short");
        let uni = "é".repeat(150);
        assert!(clip_line(&uni, 10).contains("[140 chars clipped]"));
        // cutting a few characters would save nothing: the line stays whole
        let a_bit_over = "y".repeat(30 + MIN_CLIP);
        assert_eq!(clip_line(&a_bit_over, 30), a_bit_over);
        assert!(clip_line(&format!("{a_bit_over}z"), 30).contains("chars clipped"));
    }

    #[test]
    fn a_long_line_of_words_is_not_a_blob() {
        let words = "noaliases off aliasfuncdef off allexport off ".repeat(80);
        assert!(!looks_like_a_blob(&words));
        assert!(looks_like_a_blob(&"function(a){return a+b};".repeat(100)));
        assert!(looks_like_a_blob(&"QUJD".repeat(600)));
        // past 32 KiB a line of words is data too
        let words = "\"name\": \"pod-1\", \"phase\": \"Running\", ".repeat(1000);
        assert!(words.len() > LONGEST_LINE_OF_WORDS);
        assert!(looks_like_a_blob(&words));
        assert!(!looks_like_a_blob(&words[..LONGEST_LINE_OF_WORDS]));
    }

    #[test]
    fn a_common_prefix_ends_at_a_character() {
        assert_eq!(common_prefix_len("src/app.rs", &["src/api.rs", "src/a"]), 5);
        assert_eq!(common_prefix_len("café_1", &["cafè_2"]), 3);
        assert_eq!(common_prefix_len("same", &[] as &[&str]), 4);
    }

    #[test]
    fn counts_chars_not_bytes() {
        assert_eq!(count_chars("héllo".as_bytes()), 5);
        assert_eq!(count_chars(b"\xff\xfe"), 2);
    }
}
