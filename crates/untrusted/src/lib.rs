//! Reading files that may come from a cloned repository: project rule files, a project's
//! agent settings. A repository can carry a symlink to `/dev/zero` (git stores symlinks), a
//! named pipe, or a huge file; reading any of those the ordinary way fills memory or hangs
//! every command run in that folder. Here a file is read only when it is a regular file
//! (after following links), opened without blocking (opening a FIFO does not wait for a
//! writer), and no bigger than the caller's cap; anything else is an error that names what
//! the file is, for one short warning.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// Cap for rule files (the largest built-in rule is a few KB).
pub const MAX_RULE_FILE: u64 = 1 << 20;
/// Cap for an agent's settings file.
pub const MAX_SETTINGS_FILE: u64 = 4 << 20;

#[derive(Debug)]
pub enum ReadError {
    /// Not a regular file: what it is instead.
    NotRegular(&'static str),
    /// Over the cap.
    TooLarge {
        size: u64,
        max: u64,
    },
    Io(std::io::Error),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NotRegular(what) => write!(f, "it is {what}, not a regular file"),
            ReadError::TooLarge { size, max } => write!(
                f,
                "it is {} bytes, over the {} bytes such a file may have",
                size, max
            ),
            ReadError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ReadError {}

impl ReadError {
    /// The file does not exist (or a link in the path dangles).
    pub fn is_not_found(&self) -> bool {
        matches!(self, ReadError::Io(e) if e.kind() == std::io::ErrorKind::NotFound)
    }
}

fn kind_of(t: std::fs::FileType) -> &'static str {
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a named pipe (FIFO)"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a plain file"
    }
}

/// Opens `path` for reading without blocking and checks it is a regular file within `max`.
fn open(path: &Path, max: u64) -> Result<(File, u64), ReadError> {
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(ReadError::Io)?;
    let meta = f.metadata().map_err(ReadError::Io)?;
    if !meta.file_type().is_file() {
        return Err(ReadError::NotRegular(kind_of(meta.file_type())));
    }
    if meta.len() > max {
        return Err(ReadError::TooLarge {
            size: meta.len(),
            max,
        });
    }
    Ok((f, meta.len()))
}

/// The bytes of a regular file of at most `max` bytes.
pub fn read(path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
    let (f, len) = open(path, max)?;
    let mut buf = Vec::with_capacity(len as usize);
    // a file that grows while read is still held to the cap
    f.take(max + 1)
        .read_to_end(&mut buf)
        .map_err(ReadError::Io)?;
    if buf.len() as u64 > max {
        return Err(ReadError::TooLarge {
            size: buf.len() as u64,
            max,
        });
    }
    Ok(buf)
}

/// The last `max` bytes of a regular file of any size (a transcript's newest entries).
pub fn read_tail(path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
    use std::io::{Seek, SeekFrom};
    let (mut f, len) = open(path, u64::MAX)?;
    let start = len.saturating_sub(max);
    f.seek(SeekFrom::Start(start)).map_err(ReadError::Io)?;
    let mut buf = Vec::with_capacity((len - start) as usize);
    f.take(max).read_to_end(&mut buf).map_err(ReadError::Io)?;
    Ok(buf)
}

/// [`read`] as UTF-8 text.
pub fn read_to_string(path: &Path, max: u64) -> Result<String, ReadError> {
    String::from_utf8(read(path, max)?)
        .map_err(|e| ReadError::Io(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn a_tail_is_the_last_bytes_of_a_regular_file_only() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("t.jsonl");
        std::fs::write(&p, "one\ntwo\nthree\n").unwrap();
        assert_eq!(read_tail(&p, 6).unwrap(), b"three\n");
        assert_eq!(read_tail(&p, 100).unwrap(), b"one\ntwo\nthree\n");
        assert!(read_tail(d.path(), 10).is_err());
    }

    #[test]
    fn a_regular_file_and_a_link_to_one_are_read() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.json");
        std::fs::write(&p, "{}").unwrap();
        std::os::unix::fs::symlink(&p, d.path().join("l.json")).unwrap();
        assert_eq!(read_to_string(&p, 10).unwrap(), "{}");
        assert_eq!(read_to_string(&d.path().join("l.json"), 10).unwrap(), "{}");
        assert!(read(&d.path().join("missing"), 10)
            .unwrap_err()
            .is_not_found());
    }

    #[test]
    fn devices_pipes_folders_and_big_files_are_refused_at_once() {
        let d = tempfile::tempdir().unwrap();
        let zero = d.path().join("zero.json");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let fifo = d.path().join("fifo.json");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let big = d.path().join("big.json");
        std::fs::write(&big, vec![b' '; 2048]).unwrap();
        let t = Instant::now();
        let e = read(&zero, 1 << 20).unwrap_err();
        assert_eq!(
            e.to_string(),
            "it is a character device, not a regular file"
        );
        let e = read(&fifo, 1 << 20).unwrap_err();
        assert_eq!(
            e.to_string(),
            "it is a named pipe (FIFO), not a regular file"
        );
        let e = read(d.path(), 1 << 20).unwrap_err();
        assert_eq!(e.to_string(), "it is a directory, not a regular file");
        let e = read(&big, 1024).unwrap_err();
        assert_eq!(
            e.to_string(),
            "it is 2048 bytes, over the 1024 bytes such a file may have"
        );
        assert!(t.elapsed() < Duration::from_secs(2), "nothing blocked");
    }
}
