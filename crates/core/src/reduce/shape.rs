//! The "shape" of a line: its text with numbers, hashes, times and (optionally) paths
//! folded away, hashed to 64 bits. Two lines of the same shape are "similar".

/// What may differ between similar lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fold {
    pub numbers: bool,
    pub hashes: bool,
    pub paths: bool,
}

impl Default for Fold {
    fn default() -> Self {
        Fold {
            numbers: true,
            hashes: true,
            paths: false,
        }
    }
}

impl Fold {
    pub fn from_names(names: &[String]) -> Fold {
        let has = |n: &str| names.iter().any(|x| x == n);
        Fold {
            // times are runs of digits and separators, so they fold with numbers
            numbers: has("numbers") || has("times"),
            hashes: has("hashes"),
            paths: has("paths"),
        }
    }
}

const SEED: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0100_0000_01b3;

#[inline]
fn mix(h: u64, b: u8) -> u64 {
    (h ^ u64::from(b)).wrapping_mul(PRIME)
}

/// Hash of the line's shape.
pub fn shape(line: &str, fold: Fold) -> u64 {
    let b = line.as_bytes();
    let mut h = SEED;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let word_start = i == 0 || !b[i - 1].is_ascii_alphanumeric();
        if fold.paths && (i == 0 || b[i - 1] == b' ') && c != b' ' {
            // a whitespace-delimited token holding a `/` is a path
            let end = b[i..]
                .iter()
                .position(|&x| x == b' ')
                .map_or(b.len(), |k| i + k);
            if b[i..end].contains(&b'/') && end - i > 1 {
                h = mix(h, 0x02);
                i = end;
                continue;
            }
        }
        if fold.hashes && word_start && c.is_ascii_hexdigit() {
            let end = b[i..]
                .iter()
                .position(|x| !x.is_ascii_alphanumeric() && *x != b'-')
                .map_or(b.len(), |k| i + k);
            let tok = &b[i..end];
            let hexish = tok.iter().all(|x| x.is_ascii_hexdigit() || *x == b'-');
            if hexish
                && tok.len() >= 7
                && tok.iter().any(u8::is_ascii_digit)
                && tok.iter().any(u8::is_ascii_alphabetic)
            {
                h = mix(h, 0x03);
                i = end;
                continue;
            }
        }
        if fold.numbers && c.is_ascii_digit() {
            while i < b.len()
                && (b[i].is_ascii_digit()
                    || (b[i] == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)))
            {
                i += 1;
            }
            h = mix(h, 0x01);
            continue;
        }
        h = mix(h, c);
        i += 1;
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(a: &str, b: &str, f: Fold) -> bool {
        shape(a, f) == shape(b, f)
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
