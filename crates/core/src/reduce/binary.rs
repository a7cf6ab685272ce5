//! Binary data in an output: `curl` of an image, an archive or a compiled file sent
//! through a pipe. Its bytes split at newlines make "lines" of garbage that no model can
//! read (a 100 KB PNG is some 50,000 tokens of it). A run of such lines is shown as one
//! note saying what it was — `[binary data: 100000 bytes in 390 lines, not shown as text
//! (a PNG image)]` — and the text around it stays (the HTTP headers `curl -v` printed
//! before the body, a `done` echoed after it). Only the lines of chunks that are not valid
//! UTF-8 are looked at, so a text output costs nothing more.

use std::fmt::Write as _;

/// A line starts binary data when at least this share (in percent) of its bytes are
/// control characters text does not use (tab, the line-ending and form-feed family,
/// backspace and escape are text; a NUL next to another NUL is not)…
const CONTROL_PERCENT: usize = 5;
/// …or it holds one and at least this share is not UTF-8 (random data: about half).
const INVALID_PERCENT: usize = 20;
/// Shorter lines never start binary data (they may continue it).
const MIN_START: usize = 4;
/// A line of clean text shorter than this, right after binary data, may be part of it
/// (random bytes hold such stretches between newlines): the next line decides.
pub const SHORT: usize = 16;
/// Most short lines held at once.
pub const HELD: usize = 4;
/// First bytes kept to name the format.
const HEAD: usize = 16;

fn control(c: u8) -> bool {
    matches!(c, 0x01..=0x07 | 0x0e..=0x1a | 0x1c..=0x1f | 0x7f)
}

/// Whether `line` (not valid UTF-8, or with control characters) starts binary data.
pub fn starts(line: &[u8]) -> bool {
    if line.len() < MIN_START {
        return false;
    }
    let mut odd = 0;
    let mut prev_nul = false;
    for &c in line {
        if c == 0 {
            odd += usize::from(prev_nul);
            prev_nul = true;
        } else {
            odd += usize::from(control(c));
            prev_nul = false;
        }
    }
    if odd * 100 >= line.len() * CONTROL_PERCENT {
        return true;
    }
    // (text in a legacy encoding, Latin-1 or Windows-1251, is not UTF-8 either, but holds
    // no control character; text decoded already has `\u{FFFD}` for such bytes)
    let invalid: usize = line
        .utf8_chunks()
        .map(|c| c.invalid().len() + REPLACED.len() * c.valid().matches('\u{FFFD}').count())
        .sum();
    odd > 0 && invalid * 100 >= line.len() * INVALID_PERCENT
}

/// Whether `line`, right after binary data, goes on with it: anything but clean text (valid
/// UTF-8 without control characters), and an empty line.
pub fn continues(line: &[u8]) -> bool {
    line.is_empty()
        || std::str::from_utf8(line).is_err()
        || line.iter().any(|&c| c == 0 || control(c))
        || replaced(line)
}

/// `\u{FFFD}`, what decoding puts for bytes that are not UTF-8.
const REPLACED: &[u8] = "\u{FFFD}".as_bytes();

fn replaced(line: &[u8]) -> bool {
    memchr::memmem::find(line, REPLACED).is_some()
}

/// One run of binary lines.
#[derive(Debug, Default)]
pub struct Run {
    pub bytes: u64,
    pub lines: u64,
    head: Vec<u8>,
    /// Decoded already (`\u{FFFD}` for bytes): its size in bytes is not the data's.
    decoded: bool,
}

impl Run {
    /// Adds a line (and the newline that ended it, when `ended`).
    pub fn push(&mut self, line: &[u8], ended: bool) {
        self.bytes += line.len() as u64 + u64::from(ended);
        self.lines += 1;
        self.decoded |= replaced(line);
        if self.head.len() < HEAD {
            let take = line.len().min(HEAD - self.head.len());
            self.head.extend_from_slice(&line[..take]);
            if ended && self.head.len() < HEAD {
                self.head.push(b'\n');
            }
        }
    }

    /// The note that stands for the run.
    pub fn note(&self) -> String {
        let lines = if self.lines == 1 {
            "1 line".to_string()
        } else {
            format!("{} lines", self.lines)
        };
        let what = match format_of(&self.head) {
            Some(name) => name.to_string(),
            None => {
                let mut hex = String::from("starting");
                for b in &self.head {
                    let _ = write!(hex, " {b:02x}");
                }
                hex
            }
        };
        if self.decoded {
            return format!("[binary data in {lines}, not shown as text ({what})]");
        }
        format!(
            "[binary data: {} bytes in {lines}, not shown as text ({what})]",
            self.bytes
        )
    }
}

/// The format binary data starting with `head` is in, by its first bytes.
fn format_of(head: &[u8]) -> Option<&'static str> {
    const MAGIC: &[(&[u8], &str)] = &[
        (b"\x89PNG\r\n\x1a\n", "a PNG image"),
        (b"\xef\xbf\xbdPNG\r\n\x1a\n", "a PNG image"),
        (b"\xff\xd8\xff", "a JPEG image"),
        (b"GIF87a", "a GIF image"),
        (b"GIF89a", "a GIF image"),
        (b"%PDF-", "a PDF document"),
        (b"PK\x03\x04", "a ZIP archive: zip, jar, wheel, docx …"),
        (b"\x1f\x8b", "gzip data"),
        (b"BZh", "bzip2 data"),
        (b"\xfd7zXZ\x00", "xz data"),
        (b"\x28\xb5\x2f\xfd", "zstd data"),
        (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
        (b"\x7fELF", "an ELF executable or library"),
        (b"\xcf\xfa\xed\xfe", "a Mach-O executable"),
        (
            b"\xca\xfe\xba\xbe",
            "a Java class or Mach-O universal binary",
        ),
        (b"\x00asm", "a WebAssembly module"),
        (b"SQLite format 3\x00", "an SQLite database"),
        (b"MZ", "a Windows executable"),
        (b"OggS", "Ogg audio or video"),
        (b"ID3", "an MP3 file"),
        (b"fLaC", "FLAC audio"),
        (b"\x1a\x45\xdf\xa3", "a Matroska or WebM video"),
    ];
    if let Some((_, name)) = MAGIC.iter().find(|(m, _)| head.starts_with(m)) {
        return Some(name);
    }
    if head.len() >= 12 && head.starts_with(b"RIFF") && &head[8..12] == b"WEBP" {
        return Some("a WebP image");
    }
    (head.len() >= 8 && &head[4..8] == b"ftyp").then_some("an MP4 or QuickTime video")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Bytes that look random (a fixed xorshift), as compressed data does.
    pub(crate) fn noise(n: usize, seed: u64) -> Vec<u8> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect()
    }

    #[test]
    fn random_bytes_start_binary_data_and_text_does_not() {
        for line in noise(40_000, 7)
            .split(|&b| b == b'\n')
            .filter(|l| l.len() >= 64)
        {
            assert!(starts(line), "{line:?}");
        }
        // Latin-1 text (a few bytes that are not UTF-8), escape codes, tabs, backspaces
        assert!(!starts(
            b"Le caf\xe9 est pr\xeat, la cr\xe8me aussi, \xe0 la maison"
        ));
        // Windows-1251: every letter a byte that is not UTF-8
        assert!(!starts(
            b"2024-01-01 ERROR \xce\xf8\xe8\xe1\xea\xe0 \xef\xee\xe4\xea\xeb"
        ));
        assert!(!starts(b"\x1b[31merror\x1b[0m:\tbuild failed\r"));
        assert!(!starts(
            b"N\x08NA\x08AM\x08ME\x08E ls - list directory contents"
        ));
        // NUL-separated names (`find -print0`) and UTF-16 text
        assert!(!starts(b"./src/main.rs\0./src/lib.rs\0./README.md\0"));
        assert!(!starts(b"h\0e\0l\0l\0o\0 \0w\0o\0r\0l\0d\0"));
        // zeros and control bytes
        assert!(starts(b"\x00\x00\x00\x00\x00\x00\x00\x00"));
        assert!(starts(b"\x01\x02\x03\x04 some text"));
    }

    #[test]
    fn binary_data_decoded_already_is_told_by_its_replacement_characters() {
        let decoded = String::from_utf8_lossy(&noise(4_000, 11)).into_owned();
        let lines: Vec<&str> = decoded.split('\n').filter(|l| l.len() >= 64).collect();
        assert!(lines.iter().all(|l| starts(l.as_bytes())), "{lines:?}");
        assert!(continues("ab\u{FFFD}c".as_bytes()));
        let mut r = Run::default();
        r.push(b"PK\x03\x04\x14\x00", true);
        r.push(lines[0].as_bytes(), true);
        assert!(r
            .note()
            .starts_with("[binary data in 2 lines, not shown as text (a ZIP"));
    }

    #[test]
    fn clean_text_ends_a_run() {
        assert!(continues(b""));
        assert!(continues(b"\x9a\x01"));
        assert!(continues(b"ab\x05"));
        assert!(!continues(b"done"));
        assert!(!continues(b"HTTP/1.1 200 OK\r"));
    }

    #[test]
    fn a_run_says_its_size_and_format() {
        let mut r = Run::default();
        r.push(b"\x89PNG\r", true);
        r.push(b"\x1a", true);
        r.push(&noise(300, 3), false);
        assert_eq!(
            r.note(),
            "[binary data: 308 bytes in 3 lines, not shown as text (a PNG image)]"
        );
        let mut r = Run::default();
        r.push(b"\x01\x02\x03\x04\x05", true);
        assert_eq!(
            r.note(),
            "[binary data: 6 bytes in 1 line, not shown as text (starting 01 02 03 04 05 0a)]"
        );
        let mut mp4 = b"\x00\x00\x00\x20ftypisom".to_vec();
        mp4.extend(noise(50, 9));
        let mut r = Run::default();
        r.push(&mp4, true);
        assert!(
            r.note().contains("(an MP4 or QuickTime video)"),
            "{}",
            r.note()
        );
    }
}
