//! Is this line an error, a warning, or neither?
//!
//! A line is a *signal* when it holds a failure word as a word of its own
//! (`error`, `FAILED`, `panicked`, `Traceback`, `ValueError`, `npm ERR!`, …),
//! not as part of an identifier or a file name (`error_handler`, `src/error.rs`,
//! `error-chain`) and not negated (`0 errors`, `no warnings`, `failed: 0`).

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use std::sync::OnceLock;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    None,
    Warning,
    Error,
}

struct Stem {
    text: &'static str,
    level: Level,
    /// Allowed endings of the word after the stem ("" = the stem alone).
    suffixes: &'static [&'static str],
}

const STEMS: &[Stem] = &[
    Stem {
        text: "error",
        level: Level::Error,
        suffixes: &["", "s"],
    },
    Stem {
        text: "err!",
        level: Level::Error,
        suffixes: &[""],
    },
    Stem {
        text: "err",
        level: Level::Error,
        suffixes: &[""],
    },
    Stem {
        text: "fatal",
        level: Level::Error,
        suffixes: &[""],
    },
    Stem {
        text: "fail",
        level: Level::Error,
        suffixes: &["", "s", "ed", "ure", "ures", "ing"],
    },
    Stem {
        text: "panic",
        level: Level::Error,
        suffixes: &["", "ked", "s"],
    },
    Stem {
        text: "exception",
        level: Level::Error,
        suffixes: &["", "s"],
    },
    Stem {
        text: "traceback",
        level: Level::Error,
        suffixes: &[""],
    },
    Stem {
        text: "critical",
        level: Level::Error,
        suffixes: &[""],
    },
    Stem {
        text: "segfault",
        level: Level::Error,
        suffixes: &["", "ed"],
    },
    Stem {
        text: "segmentation fault",
        level: Level::Error,
        suffixes: &[""],
    },
    Stem {
        text: "abort",
        level: Level::Error,
        suffixes: &["", "ed", "ing"],
    },
    Stem {
        text: "denied",
        level: Level::Error,
        suffixes: &[""],
    },
    Stem {
        text: "refused",
        level: Level::Error,
        suffixes: &[""],
    },
    Stem {
        text: "cannot",
        level: Level::Error,
        suffixes: &[""],
    },
    Stem {
        text: "unable to",
        level: Level::Error,
        suffixes: &[""],
    },
    Stem {
        text: "not found",
        level: Level::Error,
        suffixes: &[""],
    },
    Stem {
        text: "no such file",
        level: Level::Error,
        suffixes: &[""],
    },
    Stem {
        text: "timed out",
        level: Level::Error,
        suffixes: &[""],
    },
    Stem {
        text: "undefined reference",
        level: Level::Error,
        suffixes: &[""],
    },
    Stem {
        text: "assertionerror",
        level: Level::Error,
        suffixes: &[""],
    },
    Stem {
        text: "warn",
        level: Level::Warning,
        suffixes: &["", "s", "ing", "ings"],
    },
    Stem {
        text: "vulnerabilit",
        level: Level::Warning,
        suffixes: &["y", "ies"],
    },
    Stem {
        text: "deprecat",
        level: Level::Warning,
        suffixes: &["ed", "ion", "ions"],
    },
];

/// Case-sensitive over lowercased text, so the SIMD literal prefilter applies. A contiguous
/// NFA, not the DFA the builder would pick: building the DFA cost 0.8 million instructions
/// (a quarter of a millisecond) in every process that reads any output, and the search
/// runs mostly in the prefilter either way.
fn automaton() -> &'static AhoCorasick {
    static AC: OnceLock<AhoCorasick> = OnceLock::new();
    AC.get_or_init(|| {
        AhoCorasickBuilder::new()
            .kind(Some(AhoCorasickKind::ContiguousNFA))
            .match_kind(MatchKind::LeftmostLongest)
            .build(STEMS.iter().map(|s| s.text))
            .expect("static keyword list compiles")
    })
}

/// The lines of `lower` (many lines lowercased at once) that hold a keyword: where the
/// first keyword of each such line starts, in order. A line with no start inside it
/// classifies as [`Level::None`] (no keyword holds a newline, so a search over many lines
/// finds in each line exactly what a search of the line alone finds): one search per chunk
/// instead of one per line. Once an output has passed [`SIMD_SEARCH_AFTER`] bytes
/// (`seen`, this chunk's included), its chunks are searched by a SIMD searcher of its own,
/// asked for any match rather than the longest (whether a line holds one is all that is
/// asked), going on at the next line after a match; before, by the automaton, which
/// classifying a line needs anyway (building the searcher costs ~80,000 instructions, more
/// than it saves on a small output).
pub fn keyword_starts(lower: &[u8], seen: u64, out: &mut Vec<usize>) {
    out.clear();
    let searcher = if seen >= SIMD_SEARCH_AFTER {
        packed()
    } else {
        None
    };
    let Some(searcher) = searcher else {
        out.extend(automaton().find_iter(lower).map(|m| m.start()));
        return;
    };
    let mut at = 0;
    while let Some(m) = searcher.find_in(lower, aho_corasick::Span::from(at..lower.len())) {
        out.push(m.start());
        at = match memchr::memchr(b'\n', &lower[m.end()..]) {
            Some(k) => m.end() + k + 1,
            None => break,
        };
    }
}

/// Bytes of an output after which its chunks are searched by [`packed`].
pub const SIMD_SEARCH_AFTER: u64 = 1 << 20;

/// The keywords' SIMD searcher, where this processor has one.
fn packed() -> Option<&'static aho_corasick::packed::Searcher> {
    static PACKED: OnceLock<Option<aho_corasick::packed::Searcher>> = OnceLock::new();
    PACKED
        .get_or_init(|| {
            aho_corasick::packed::Config::new()
                .match_kind(aho_corasick::packed::MatchKind::LeftmostFirst)
                .builder()
                .extend(STEMS.iter().map(|s| s.text))
                .build()
        })
        .as_ref()
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The strongest signal level of a line.
pub fn classify(line: &str) -> Level {
    classify_with(line, &mut Vec::new())
}

/// `classify` with a reusable buffer for the lowercased copy (the hot path).
pub fn classify_with(line: &str, lower: &mut Vec<u8>) -> Level {
    // a plain copy lowercased in place: the compiler vectorizes this loop (a mapped
    // `extend` went a byte or two at a time)
    lower.clear();
    lower.extend_from_slice(line.as_bytes());
    lower.make_ascii_lowercase();
    classify_lowered(line.as_bytes(), lower)
}

fn classify_lowered(b: &[u8], lower: &[u8]) -> Level {
    let mut best = Level::None;
    for m in automaton().find_iter(lower) {
        let stem = &STEMS[m.pattern().as_usize()];
        if stem.level <= best {
            continue;
        }
        if is_signal_at(b, m.start(), m.end(), stem) {
            best = stem.level;
            if best == Level::Error {
                break;
            }
        }
    }
    best
}

fn is_signal_at(b: &[u8], start: usize, end: usize, stem: &Stem) -> bool {
    // Left edge: start of a word, or a camelCase hump (`ValueError`, `UserWarning`).
    if start > 0 {
        let prev = b[start - 1];
        let camel = prev.is_ascii_lowercase() && b[start].is_ascii_uppercase();
        if is_word(prev) && !camel {
            return false;
        }
        // part of a path or a name: `src/error.rs`, `.error`, `no-error`
        if matches!(prev, b'/' | b'\\' | b'.' | b'-' | b'$' | b'@' | b'#' | b'%') {
            return false;
        }
    }
    // Right edge: the rest of the word must be an allowed ending.
    let mut j = end;
    if stem.text.ends_with(|c: char| c.is_ascii_alphanumeric()) {
        while j < b.len() && b[j].is_ascii_alphabetic() && j - end < 5 {
            j += 1;
        }
        let rest = &b[end..j];
        let camel_next = j < b.len() && b[j].is_ascii_uppercase() && rest.is_empty();
        let ok = stem
            .suffixes
            .iter()
            .any(|s| s.as_bytes().eq_ignore_ascii_case(rest));
        if !ok && !camel_next {
            return false;
        }
        if j < b.len() && (b[j].is_ascii_digit() || b[j] == b'_') {
            return false;
        }
        // a file or module name: `error.rs`, `errors.go`, `error-chain`
        if j + 1 < b.len() && matches!(b[j], b'.' | b'-') && is_word(b[j + 1]) {
            return false;
        }
    }
    !negated(b, start, j)
}

/// `0 errors`, `no warnings`, `without errors`, `errors: 0`, `failed=0`, `0 failed`.
fn negated(b: &[u8], start: usize, end: usize) -> bool {
    // previous word
    let mut k = start;
    while k > 0 && b[k - 1] == b' ' {
        k -= 1;
    }
    let word_end = k;
    while k > 0 && is_word(b[k - 1]) {
        k -= 1;
    }
    let prev = &b[k..word_end];
    if word_end < start
        && (prev == b"0"
            || prev.eq_ignore_ascii_case(b"no")
            || prev.eq_ignore_ascii_case(b"zero")
            || prev.eq_ignore_ascii_case(b"without")
            || prev.eq_ignore_ascii_case(b"non"))
    {
        return true;
    }
    // next: `: 0`, `=0`, ` 0` followed by a non-digit
    let mut j = end;
    while j < b.len() && b[j] == b' ' {
        j += 1;
    }
    if j < b.len() && (b[j] == b':' || b[j] == b'=') {
        j += 1;
        while j < b.len() && b[j] == b' ' {
            j += 1;
        }
    }
    j > end && j < b.len() && b[j] == b'0' && (j + 1 == b.len() || !b[j + 1].is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines of a chunk that hold a keyword start, as `keyword_starts` says.
    fn lines_with_starts(chunk: &[u8]) -> Vec<usize> {
        let mut starts = Vec::new();
        keyword_starts(chunk, SIMD_SEARCH_AFTER, &mut starts);
        let newlines: Vec<usize> = memchr::memchr_iter(b'\n', chunk).collect();
        let mut lines: Vec<usize> = starts
            .iter()
            .map(|&k| newlines.partition_point(|&n| n < k))
            .collect();
        lines.dedup();
        lines
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
        #[test]
        fn a_large_chunk_marks_the_lines_the_automaton_finds_a_keyword_in(
            words in proptest::collection::vec(
                proptest::sample::select(vec![
                    "error", "errors", "err!", "warning", "warn", "failed", "not found", "not",
                    "found", "unable to", "timed out", "segmentation fault", "deprecated",
                    "ok", "get /api/x 200", "é", "\n", "\n", "\n", "xerr", "errorless",
                ]),
                1..200,
            ),
            seps in proptest::collection::vec(proptest::sample::select(vec![" ", "", "-"]), 200),
        ) {
            let mut piece = String::new();
            for (i, w) in words.iter().enumerate() {
                piece.push_str(w);
                piece.push_str(seps[i]);
            }
            piece.push('\n');
            // a chunk of some size (of an output past the size from which the SIMD
            // searcher is used)
            let mut chunk = String::new();
            while chunk.len() < 64 * 1024 {
                chunk.push_str(&piece);
            }
            let per_line: Vec<usize> = chunk
                .split('\n')
                .enumerate()
                .filter(|(_, l)| automaton().find_iter(l.as_bytes()).next().is_some())
                .map(|(i, _)| i)
                .collect();
            proptest::prop_assert_eq!(lines_with_starts(chunk.as_bytes()), per_line);
        }
    }

    #[test]
    fn errors() {
        for l in [
            "error: could not compile `foo`",
            "error[E0308]: mismatched types",
            "ERROR: something broke",
            "npm ERR! code ENOENT",
            "test foo ... FAILED",
            "thread 'main' panicked at src/main.rs:3:5:",
            "Traceback (most recent call last):",
            "ValueError: bad input",
            "FATAL: out of memory",
            "Segmentation fault (core dumped)",
            "bash: foo: command not found",
            "ls: cannot access 'x': No such file or directory",
            "Permission denied (publickey).",
            "1 failed, 2 passed",
            "Error:",
            "[ERR] x",
            "java.lang.NullPointerException: boom",
            "AssertionError: expected 1",
        ] {
            assert_eq!(classify(l), Level::Error, "{l}");
        }
    }

    #[test]
    fn warnings() {
        for l in [
            "warning: unused variable: `x`",
            "WARN slow",
            "DeprecationWarning: old",
            "npm warn deprecated x@1",
            "3 vulnerabilities (1 low, 2 high)",
            "1 high severity vulnerability",
        ] {
            assert_eq!(classify(l), Level::Warning, "{l}");
        }
    }

    #[test]
    fn not_signals() {
        for l in [
            "0 errors, 0 warnings",
            "no errors found",
            "Errors: 0",
            "failed=0 passed=3",
            "src/error.rs",
            "Compiling error-chain v0.12.4",
            "fn error_handler()",
            "terrors of the deep",
            "warnings.py",
            "test result: ok. 3 passed; 0 failed",
            "all good",
            "mirror of failsafe",
            "found 0 vulnerabilities",
        ] {
            assert_eq!(classify(l), Level::None, "{l}");
        }
    }
}
