//! Token estimates.
//!
//! tokenjuice reports sizes in tokens as an **estimate** of what an o200k-style BPE
//! tokenizer (the one GPT-4o-class models use) would count. The estimate splits text
//! the way that tokenizer pre-splits it (letter runs, case humps, digit groups of
//! three, punctuation runs, whitespace) and charges each piece by its length. It costs
//! about one pass over the bytes, so it never threatens the latency budget; its error
//! against the real tokenizer is measured by `scripts/token-calibration` (see README).

/// Estimated tokens of `text`.
pub fn estimate(text: &str) -> u64 {
    estimate_bytes(text.as_bytes())
}

/// Estimated tokens of (possibly invalid UTF-8) bytes.
pub fn estimate_bytes(b: &[u8]) -> u64 {
    let mut tokens: u64 = 0;
    let mut i = 0;
    let n = b.len();
    while i < n {
        let c = b[i];
        if c.is_ascii_alphabetic() {
            // letters, split at lower→upper humps: each hump is a word piece
            let start = i;
            i += 1;
            while i < n && b[i].is_ascii_alphabetic() {
                if b[i].is_ascii_uppercase() && b[i - 1].is_ascii_lowercase() {
                    break;
                }
                i += 1;
            }
            let len = (i - start) as u64;
            tokens += word_cost(len);
        } else if c.is_ascii_digit() {
            let start = i;
            while i < n && b[i].is_ascii_digit() {
                i += 1;
            }
            tokens += ((i - start) as u64).div_ceil(3);
        } else if c == b' ' {
            // a single space usually merges into the next word
            let start = i;
            while i < n && b[i] == b' ' {
                i += 1;
            }
            let run = i - start;
            if run > 1 {
                tokens += 1 + (run as u64 - 1) / 16;
            } else if i >= n || !b[i].is_ascii_alphanumeric() {
                tokens += 1;
            }
        } else if c == b'\n' || c == b'\t' || c == b'\r' {
            let start = i;
            while i < n && (b[i] == b'\n' || b[i] == b'\t' || b[i] == b'\r') {
                i += 1;
            }
            tokens += 1 + (i - start) as u64 / 8;
        } else if c < 0x80 {
            // punctuation runs merge in pairs on average; the first byte always counts
            // (a form feed is ASCII whitespace but none of the cases above)
            let start = i;
            i += 1;
            while i < n
                && b[i] < 0x80
                && !b[i].is_ascii_alphanumeric()
                && !b[i].is_ascii_whitespace()
            {
                i += 1;
            }
            tokens += ((i - start) as u64).div_ceil(2);
        } else {
            // non-ASCII: count characters; CJK ≈ 1 token each, accented Latin less
            let start = i;
            let mut chars = 0u64;
            let mut wide = 0u64;
            while i < n && b[i] >= 0x80 {
                if (b[i] as i8) >= -0x40 {
                    chars += 1;
                    if b[i] >= 0xe3 {
                        wide += 1;
                    }
                }
                i += 1;
            }
            let _ = start;
            tokens += wide + (chars - wide).div_ceil(2);
        }
    }
    tokens
}

#[inline]
fn word_cost(len: u64) -> u64 {
    match len {
        0..=7 => 1,
        8..=12 => 2,
        _ => 2 + (len - 12).div_ceil(5),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rough_magnitudes() {
        assert_eq!(estimate(""), 0);
        assert_eq!(estimate("hello world"), 2);
        assert!((3..=5).contains(&estimate("getUserName()")));
        assert_eq!(estimate("123456"), 2);
        let line = "   Compiling serde v1.0.219\n";
        assert!((6..=11).contains(&estimate(line)), "{}", estimate(line));
        assert_eq!(estimate("日本語"), 3);
    }

    #[test]
    fn every_control_byte_is_consumed() {
        // a form feed used to stop the scan from advancing (an endless loop in wrap)
        let all: Vec<u8> = (0..=255u8).collect();
        assert!(estimate_bytes(&all) > 0);
        assert_eq!(estimate_bytes(b"\x0c"), 1);
        assert_eq!(estimate_bytes(b"a\x0c\x0cb"), 4);
    }

    #[test]
    fn grows_linearly() {
        let one = estimate("error: mismatched types at src/main.rs:10:5\n");
        let many = estimate(&"error: mismatched types at src/main.rs:10:5\n".repeat(100));
        assert_eq!(many, one * 100);
    }
}
