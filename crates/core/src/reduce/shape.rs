//! The "shape" of a line: its text with numbers, hashes, times and (optionally) paths
//! folded away, hashed to 64 bits. Two lines of the same shape are "similar".

pub use crate::rules::compiled::Fold;

const SEED: u64 = 0xcbf2_9ce4_8422_2325;
const MIX: u64 = 0x9e37_79b9_7f4a_7c15;

/// One word into the hash: one multiply.
#[inline]
fn step(h: u64, w: u64) -> u64 {
    (h ^ w).wrapping_mul(MIX).rotate_left(29)
}

/// A span of text into the hash, eight bytes at a time, its length with its last bytes.
#[inline]
fn span(mut h: u64, s: &[u8]) -> u64 {
    let mut words = s.chunks_exact(8);
    for w in &mut words {
        h = step(h, u64::from_le_bytes(w.try_into().expect("8 bytes")));
    }
    let mut last = (s.len() as u64 & 0xff) << 56;
    for (k, &x) in words.remainder().iter().enumerate() {
        last |= u64::from(x) << (8 * k);
    }
    step(h, last)
}

/// Hash of the line's shape: each span of text between folded tokens, then the token's
/// kind (a word no span ends with: its length byte is 0 and a byte above it is set).
pub fn shape(line: &str, fold: Fold) -> u64 {
    let b = line.as_bytes();
    let mut h = SEED;
    let (mut i, mut text) = (0, 0);
    while i < b.len() {
        let c = b[i];
        // most bytes start no folded token (see `folded_token`): only a digit, a hex letter
        // at the start of a word, or with path folding any byte can
        let may_start = fold.paths
            || c.is_ascii_digit()
            || (c.is_ascii_hexdigit()
                && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'-')));
        if may_start {
            if let Some((kind, end)) = folded_token(b, i, fold) {
                h = span(h, &b[text..i]);
                h = step(h, 0x1_0000_0000 | u64::from(kind));
                i = end;
                text = end;
                continue;
            }
        }
        i += 1;
    }
    span(h, &b[text..])
}

/// The end of the token starting at `i` that `shape` folds into one placeholder, if any:
/// a number (digits with decimal points), a hash (≥7 hex chars mixing digits and letters,
/// or `0x` and hex digits), or with `paths`, a whitespace-delimited token holding a `/`.
#[inline(always)]
fn folded_token(b: &[u8], i: usize, fold: Fold) -> Option<(u8, usize)> {
    let c = b[i];
    if fold.paths && (i == 0 || b[i - 1] == b' ') && c != b' ' {
        let end = b[i..]
            .iter()
            .position(|&x| x == b' ')
            .map_or(b.len(), |k| i + k);
        if end - i > 1 && b[i..end].contains(&b'/') {
            return Some((2, end));
        }
    }
    // a hash starts a token (not after a letter, digit or `-`) and is hex to its end
    let hash_start = fold.hashes
        && c.is_ascii_hexdigit()
        && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'-'));
    // `0x7f87382d85d0`: an address or a hex number, as a hash
    if c == b'0' && hash_start && matches!(b.get(i + 1), Some(b'x' | b'X')) {
        let end = i
            + 2
            + b[i + 2..]
                .iter()
                .take_while(|x| x.is_ascii_hexdigit())
                .count();
        if end > i + 2 && b.get(end).is_none_or(|x| !x.is_ascii_alphanumeric()) {
            return Some((3, end));
        }
    }
    if c.is_ascii_digit() {
        let mut j = i + 1;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        // digits alone are no hash: only a hex letter or `-` after them can make one
        if hash_start && j < b.len() && matches!(b[j], b'a'..=b'f' | b'A'..=b'F' | b'-') {
            if let Some(end) = hash_end(b, i) {
                return Some((3, end));
            }
        }
        if !fold.numbers {
            return None;
        }
        while j < b.len()
            && (b[j].is_ascii_digit()
                || (b[j] == b'.' && b.get(j + 1).is_some_and(u8::is_ascii_digit)))
        {
            j += 1;
        }
        return Some((1, j));
    }
    if hash_start {
        return hash_end(b, i).map(|end| (3, end));
    }
    None
}

/// The end of the hash starting at `i`: hex digits and `-` to the end of the word, at
/// least 7 of them, digits and letters both.
#[inline]
fn hash_end(b: &[u8], i: usize) -> Option<usize> {
    let (mut j, mut digit, mut alpha) = (i, false, false);
    while j < b.len() {
        match b[j] {
            b'0'..=b'9' => digit = true,
            b'a'..=b'f' | b'A'..=b'F' => alpha = true,
            b'-' => {}
            _ => break,
        }
        j += 1;
    }
    (j - i >= 7 && digit && alpha && (j == b.len() || !b[j].is_ascii_alphanumeric())).then_some(j)
}

/// Do two lines have the same shape? Skips runs of equal bytes at once and looks at
/// folding only where the lines differ, so unrelated lines are rejected quickly.
/// Agrees with `shape` equality.
pub fn same_shape(a: &str, b: &str, fold: Fold) -> bool {
    // the usual folding gets a copy of its own with the choices made at compile time (a
    // long log compares every line with the one before)
    const USUAL: Fold = Fold {
        numbers: true,
        hashes: true,
        paths: false,
    };
    if fold == USUAL {
        same_shape_with(a, b, USUAL)
    } else {
        same_shape_with(a, b, fold)
    }
}

#[inline(always)]
fn same_shape_with(a: &str, b: &str, fold: Fold) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    loop {
        let n = common_prefix(&a[i..], &b[j..]);
        i += n;
        j += n;
        if i == a.len() && j == b.len() {
            return true;
        }
        // The bytes just skipped are equal in both: back up to the start of the token
        // the difference is in, so a number or hash is judged whole.
        let mut k = 0;
        while k < n && k < 256 && is_token_byte(a[i - k - 1], fold) {
            k += 1;
        }
        if k > 0 {
            match (folded_token(a, i - k, fold), folded_token(b, j - k, fold)) {
                (Some((ka, ea)), Some((kb, eb))) => {
                    if ka != kb {
                        return false;
                    }
                    i = ea;
                    j = eb;
                    continue;
                }
                (None, None) => {}
                _ => return false,
            }
        }
        if i == a.len() || j == b.len() {
            return false; // one line is a prefix of the other, beyond any fold
        }
        // both must fold, alike
        let Some((ka, ea)) = folded_token(a, i, fold) else {
            return false;
        };
        match folded_token(b, j, fold) {
            Some((kb, eb)) if kb == ka => {
                i = ea;
                j = eb;
            }
            _ => return false,
        }
    }
}

/// Length of the common prefix of `a` and `b`, eight bytes at a time.
#[inline]
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let len = a.len().min(b.len());
    let mut n = 0;
    while n + 8 <= len {
        let x = u64::from_le_bytes(a[n..n + 8].try_into().expect("8 bytes"));
        let y = u64::from_le_bytes(b[n..n + 8].try_into().expect("8 bytes"));
        let d = x ^ y;
        if d != 0 {
            return n + (d.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    while n < len && a[n] == b[n] {
        n += 1;
    }
    n
}

/// Bytes that can be inside a folded token (with path folding: anything but a space).
#[inline]
fn is_token_byte(c: u8, fold: Fold) -> bool {
    if fold.paths {
        c != b' '
    } else {
        c.is_ascii_alphanumeric() || c == b'-' || c == b'.'
    }
}

/// `line` with every time of day (`09:00:28`, `2026-11-22T09:00:28.222Z`,
/// `08:31:13.569808`: a token holding `HH:MM:SS`) replaced by `T`.
pub fn without_times(line: &str) -> std::borrow::Cow<'_, str> {
    let b = line.as_bytes();
    let d = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let is_time_at = |i: usize| {
        d(i) && d(i + 1)
            && b.get(i + 2) == Some(&b':')
            && d(i + 3)
            && d(i + 4)
            && b.get(i + 5) == Some(&b':')
            && d(i + 6)
            && d(i + 7)
    };
    let Some(first) = (0..b.len()).find(|&i| is_time_at(i)) else {
        return std::borrow::Cow::Borrowed(line);
    };
    let in_token =
        |c: u8| c.is_ascii_digit() || matches!(c, b':' | b'.' | b',' | b'-' | b'T' | b'Z' | b'+');
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    let mut next = Some(first);
    while let Some(t) = next {
        // the whole token around the time: its date before, its fraction and zone after
        let mut start = t;
        while start > i && in_token(b[start - 1]) {
            start -= 1;
        }
        let mut end = t + 8;
        while end < b.len() && in_token(b[end]) {
            end += 1;
        }
        out.push_str(&line[i..start]);
        out.push('T');
        i = end;
        next = (i..b.len()).find(|&k| is_time_at(k));
    }
    out.push_str(&line[i..]);
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(a: &str, b: &str, f: Fold) -> bool {
        shape(a, f) == shape(b, f)
    }

    #[test]
    fn common_prefix_agrees_with_a_byte_loop() {
        let cases: [(&[u8], &[u8]); 6] = [
            (b"", b""),
            (b"abc", b""),
            (b"abcdefgh", b"abcdefgh"),
            (b"abcdefghij", b"abcdefghiX"),
            (b"abcdefgXij", b"abcdefghij"),
            (b"0123456789abcdefghij", b"0123456789abcdefghi"),
        ];
        for (a, b) in cases {
            let slow = a.iter().zip(b).take_while(|(x, y)| x == y).count();
            assert_eq!(common_prefix(a, b), slow, "{a:?} {b:?}");
            assert_eq!(common_prefix(b, a), slow, "{b:?} {a:?}");
        }
    }

    #[test]
    fn folds_numbers_and_times() {
        let f = Fold::default();
        assert!(same(
            "Downloading 1/100 (3.5 MB)",
            "Downloading 99/100 (12.25 MB)",
            f
        ));
        assert!(same(
            "2026-01-01T10:00:00.123Z INFO ok",
            "2026-11-22T23:59:59.999Z INFO ok",
            f
        ));
        assert!(!same("INFO ok", "WARN ok", f));
        assert!(!same("test a ... ok", "test b ... ok", f));
    }

    #[test]
    fn folds_hashes() {
        let f = Fold::default();
        assert!(same("commit 3f2a9c1d", "commit 9b8e7d6c", f));
        // an address: `0x` and hex digits, as long as it comes
        let (x, y) = (
            "where count = <app.Cart object at 0x7f87382d85d0>.count",
            "where count = <app.Cart object at 0x7f8736e7599>.count",
        );
        assert!(same(x, y, f));
        assert!(same_shape(x, y, f));
        assert!(!same("at 0x7f8 ok", "at 0xzz ok", f));
        // a hash that starts with digits is a hash, not a number and a word
        assert!(same("id 1234567abc ok", "id 7654321fed ok", f));
        assert!(!same("id 1234567abc ok", "id 1234567 ok", f));
        assert!(same_shape("id 1234567abc ok", "id 7654321fed ok", f));
        assert!(!same_shape("id 1234567abc ok", "id 1234567 ok", f));
        assert!(same(
            "id 550e8400-e29b-41d4-a716-446655440000",
            "id 123e4567-e89b-12d3-a456-426614174000",
            f
        ));
        assert!(
            !same(
                "deadbeef",
                "cafebabe",
                Fold {
                    hashes: true,
                    numbers: false,
                    paths: false
                }
            ),
            "no digit: a word"
        );
    }

    #[test]
    fn same_shape_agrees_with_the_hash() {
        let lines = [
            "Downloading 1/100 (3.5 MB)",
            "Downloading 99/100 (12.25 MB)",
            "commit 3f2a9c1d done",
            "commit 9b8e7d6c done",
            "INFO ok",
            "WARN ok",
            "compiling src/a.rs",
            "compiling lib/b/c.rs",
            "",
            "x",
        ];
        for fold in [
            Fold::default(),
            Fold {
                paths: true,
                ..Fold::default()
            },
        ] {
            for a in lines {
                for b in lines {
                    assert_eq!(
                        same_shape(a, b, fold),
                        shape(a, fold) == shape(b, fold),
                        "{a:?} vs {b:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn same_shape_handles_tokens_that_differ_late() {
        let f = Fold::default();
        assert!(same_shape("x 12 y", "x 123 y", f));
        assert!(same_shape("took 12ms", "took 12345ms", f));
        assert!(same_shape("commit abc1234 ok", "commit abd5678 ok", f));
        assert!(!same_shape("x 1234567abc", "x 1234567abz", f));
        assert!(!same_shape("abc", "abcd", f));
        assert!(!same_shape("run a", "run b", f));
        assert!(same_shape("", "", f));
    }

    #[test]
    fn folds_paths_only_when_asked() {
        let with = Fold {
            paths: true,
            ..Fold::default()
        };
        assert!(same("compiling src/a.rs", "compiling lib/b/c.rs", with));
        assert!(!same(
            "compiling src/a.rs",
            "compiling lib/b/c.rs",
            Fold::default()
        ));
    }
}
