//! Raw artifacts: a command's exact output, gzip-compressed as it streams in.
//!
//! Layout, in `<home>/artifacts/` (mode 0700):
//! - `<id>.raw.gz`: the bytes (mode 0600), written as `.<id>.part` and renamed when
//!   complete, so a half-written artifact is never listed;
//! - `<id>.json`: what it is (time, sizes, rule, exit code), so `ls` and `cat` work
//!   even when the run history cannot be read.
//!
//! Ids are `tj_` + 12 lowercase hex digits and are checked strictly before any path is
//! built from one: `../x`, `/etc/passwd` or `tj_../../x` never reach the filesystem.

use std::fs::File;
use std::hash::{BuildHasher, Hasher};
use std::io::{BufWriter, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::thread::JoinHandle;

use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;
use serde::{Deserialize, Serialize};

use crate::{Home, StoreError};

pub const RAW_SUFFIX: &str = ".raw.gz";
pub const META_SUFFIX: &str = ".json";

/// A validated artifact id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ArtifactId(String);

impl ArtifactId {
    /// Accept exactly `tj_` followed by 12 lowercase hex digits.
    pub fn parse(s: &str) -> Result<ArtifactId, StoreError> {
        let ok = s.len() == 15
            && s.starts_with("tj_")
            && s.as_bytes()[3..]
                .iter()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b));
        if ok {
            Ok(ArtifactId(s.to_string()))
        } else {
            // escaped, so a newline or a control character cannot forge output lines
            Err(StoreError::BadId(
                s.chars().take(80).flat_map(char::escape_debug).collect(),
            ))
        }
    }

    /// A fresh random id (48 bits from the OS-seeded hasher keys, the time and the pid).
    pub fn generate() -> ArtifactId {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0),
        );
        h.write_u32(std::process::id());
        ArtifactId(format!("tj_{:012x}", h.finish() & 0xffff_ffff_ffff))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for ArtifactId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn raw_path(dir: &Path, id: &ArtifactId) -> PathBuf {
    dir.join(format!("{id}{RAW_SUFFIX}"))
}

fn meta_path(dir: &Path, id: &ArtifactId) -> PathBuf {
    dir.join(format!("{id}{META_SUFFIX}"))
}

fn part_path(dir: &Path, id: &ArtifactId) -> PathBuf {
    dir.join(format!(".{id}.part"))
}

/// What is known about an artifact (its `.json` file).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactMeta {
    pub id: String,
    pub created_ms: i64,
    /// Bytes the command printed.
    pub raw_bytes: u64,
    /// Bytes kept in the artifact (less than `raw_bytes` past the per-artifact cap).
    pub kept_bytes: u64,
    /// Compressed size on disk.
    pub stored_bytes: u64,
    pub truncated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// `program subcommand` (never arguments).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The redacted command line, only when the user opted in to keeping commands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_line: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
}

/// A finished artifact.
#[derive(Debug, Clone)]
pub struct Stored {
    pub id: ArtifactId,
    pub path: PathBuf,
    pub meta: ArtifactMeta,
}

/// Writes one artifact, compressing as bytes arrive (constant memory).
pub struct ArtifactWriter {
    id: ArtifactId,
    dir: PathBuf,
    part: PathBuf,
    enc: GzEncoder<BufWriter<File>>,
    seen: u64,
    kept: u64,
    cap: u64,
    created_ms: i64,
}

impl ArtifactWriter {
    /// Start an artifact in `home`'s artifact directory; at most `cap` raw bytes are kept.
    pub fn create(home: &Home, cap: u64) -> Result<ArtifactWriter, StoreError> {
        let dir = home.ensure_artifact_dir()?;
        let mut last_err = None;
        for _ in 0..8 {
            let id = ArtifactId::generate();
            if raw_path(&dir, &id).exists() {
                continue;
            }
            let part = part_path(&dir, &id);
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .custom_flags(nix::libc::O_NOFOLLOW)
                .open(&part)
            {
                Ok(f) => {
                    return Ok(ArtifactWriter {
                        id,
                        dir,
                        part,
                        enc: GzEncoder::new(
                            BufWriter::with_capacity(64 << 10, f),
                            Compression::fast(),
                        ),
                        seen: 0,
                        kept: 0,
                        cap,
                        created_ms: crate::now_ms(),
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => last_err = Some(StoreError::io("create an artifact in", &dir, e)),
            }
        }
        Err(last_err.unwrap_or_else(|| {
            StoreError::io(
                "find a free artifact id in",
                &dir,
                std::io::Error::other("8 random ids were taken"),
            )
        }))
    }

    pub fn id(&self) -> &ArtifactId {
        &self.id
    }

    /// Add output bytes; past the cap they are counted, not kept.
    pub fn write(&mut self, chunk: &[u8]) -> Result<(), StoreError> {
        self.seen += chunk.len() as u64;
        let room = self.cap.saturating_sub(self.kept);
        let take = chunk.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        if take == 0 {
            return Ok(());
        }
        self.enc
            .write_all(&chunk[..take])
            .map_err(|e| StoreError::io("write", self.part.clone(), e))?;
        self.kept += take as u64;
        Ok(())
    }

    /// Complete the artifact: flush, rename into place, write its description.
    pub fn finish(self) -> Result<Stored, StoreError> {
        let part = self.part.clone();
        let fail = |e: std::io::Error| {
            let _ = std::fs::remove_file(&part);
            StoreError::io("write", part.clone(), e)
        };
        let buf = self.enc.finish().map_err(fail)?;
        let file = buf.into_inner().map_err(|e| fail(e.into_error()))?;
        let stored_bytes = file.metadata().map(|m| m.len()).unwrap_or(0);
        drop(file);
        let path = raw_path(&self.dir, &self.id);
        std::fs::rename(&self.part, &path).map_err(fail)?;
        let meta = ArtifactMeta {
            id: self.id.to_string(),
            created_ms: self.created_ms,
            raw_bytes: self.seen,
            kept_bytes: self.kept,
            stored_bytes,
            truncated: self.seen > self.kept,
            ..ArtifactMeta::default()
        };
        let stored = Stored {
            id: self.id,
            path,
            meta,
        };
        // Describe it now; the caller adds rule and exit code later with `describe`.
        let _ = describe(&self.dir, &stored.meta);
        Ok(stored)
    }

    /// Abandon: remove the partial file.
    pub fn abandon(self) {
        let _ = std::fs::remove_file(&self.part);
    }
}

/// Write (or rewrite) an artifact's `.json` description, atomically.
pub fn describe(dir: &Path, meta: &ArtifactMeta) -> Result<(), StoreError> {
    let id = ArtifactId::parse(&meta.id)?;
    let path = meta_path(dir, &id);
    let tmp = dir.join(format!(".{id}.json.part"));
    let text = serde_json::to_vec_pretty(meta)
        .map_err(|e| StoreError::io("describe", &path, std::io::Error::other(e)))?;
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .custom_flags(nix::libc::O_NOFOLLOW)
            .open(&tmp)?;
        f.write_all(&text)?;
        std::fs::rename(&tmp, &path)
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        StoreError::io("describe", path.clone(), e)
    })
}

/// Compresses on its own thread so storing does not slow the reduction: chunks are
/// handed over through a bounded queue (at most [`QUEUE_CHUNKS`] chunks in flight,
/// so memory stays bounded; a slow disk slows the pipe, as it should).
pub struct BackgroundWriter {
    id: ArtifactId,
    tx: Option<SyncSender<Vec<u8>>>,
    handle: Option<JoinHandle<Result<Stored, StoreError>>>,
}

pub const QUEUE_CHUNKS: usize = 16;

impl BackgroundWriter {
    pub fn start(home: &Home, cap: u64) -> Result<BackgroundWriter, StoreError> {
        let mut w = ArtifactWriter::create(home, cap)?;
        let id = w.id().clone();
        let (tx, rx) = sync_channel::<Vec<u8>>(QUEUE_CHUNKS);
        let handle = std::thread::Builder::new()
            .name("tokenjuice-artifact".into())
            .spawn(move || {
                let mut err = None;
                for chunk in rx {
                    if err.is_none() {
                        if let Err(e) = w.write(&chunk) {
                            err = Some(e);
                        }
                    }
                }
                match err {
                    Some(e) => {
                        w.abandon();
                        Err(e)
                    }
                    None => w.finish(),
                }
            })
            .map_err(|e| StoreError::io("start the artifact writer for", home.artifact_dir(), e))?;
        Ok(BackgroundWriter {
            id,
            tx: Some(tx),
            handle: Some(handle),
        })
    }

    pub fn id(&self) -> &ArtifactId {
        &self.id
    }

    /// Hand over a chunk (copied). Blocks only while the queue is full.
    pub fn push(&mut self, chunk: &[u8]) {
        if let Some(tx) = &self.tx {
            if tx.send(chunk.to_vec()).is_err() {
                self.tx = None; // the writer stopped; finish() reports why
            }
        }
    }

    pub fn finish(mut self) -> Result<Stored, StoreError> {
        self.tx = None;
        match self.handle.take().map(JoinHandle::join) {
            Some(Ok(r)) => r,
            _ => Err(StoreError::io(
                "write artifact",
                PathBuf::from(self.id.as_str()),
                std::io::Error::other("the writer thread stopped"),
            )),
        }
    }
}

/// Open an artifact's raw bytes for reading (decompressing).
pub fn open(home: &Home, id: &str) -> Result<(ArtifactId, Reader), StoreError> {
    let id = ArtifactId::parse(id)?;
    let dir = home.artifact_dir();
    let path = raw_path(&dir, &id);
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NOFOLLOW)
        .open(&path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => StoreError::NotFound {
                id: id.to_string(),
                dir: dir.clone(),
            },
            _ => StoreError::io("open", path.clone(), e),
        })?;
    Ok((
        id.clone(),
        Reader {
            id,
            inner: MultiGzDecoder::new(std::io::BufReader::with_capacity(64 << 10, f)),
        },
    ))
}

/// Decompressed bytes of an artifact.
pub struct Reader {
    id: ArtifactId,
    inner: MultiGzDecoder<std::io::BufReader<File>>,
}

impl Reader {
    /// Copy every byte to `out`, in constant memory. Returns the byte count.
    pub fn copy_to(&mut self, out: &mut dyn Write) -> Result<u64, CopyError> {
        let mut buf = vec![0u8; 64 << 10];
        let mut n = 0u64;
        loop {
            let got = match self.inner.read(&mut buf) {
                Ok(0) => return Ok(n),
                Ok(k) => k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(CopyError::Read(StoreError::DamagedArtifact {
                        id: self.id.to_string(),
                        detail: e.to_string(),
                    }))
                }
            };
            out.write_all(&buf[..got]).map_err(CopyError::Write)?;
            n += got as u64;
        }
    }
}

impl Read for Reader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.inner.read(buf)
    }
}

/// Reading the artifact failed, or writing it out did (a closed pipe, say).
#[derive(Debug)]
pub enum CopyError {
    Read(StoreError),
    Write(std::io::Error),
}

/// Read an artifact's description, if it has one.
pub fn meta(home: &Home, id: &ArtifactId) -> Option<ArtifactMeta> {
    let text = std::fs::read(meta_path(&home.artifact_dir(), id)).ok()?;
    serde_json::from_slice(&text).ok()
}

/// One listed artifact.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Listed {
    /// The same as `meta.id` (which is what JSON shows, once).
    #[serde(skip_serializing)]
    pub id: String,
    pub path: PathBuf,
    #[serde(flatten)]
    pub meta: ArtifactMeta,
}

/// Every complete artifact, newest first. Files that are not artifacts are ignored.
pub fn list(home: &Home) -> Result<Vec<Listed>, StoreError> {
    let dir = home.artifact_dir();
    let rd = match std::fs::read_dir(&dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(StoreError::io("list", dir, e)),
    };
    let mut out = Vec::new();
    for entry in rd.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(stem) = name.strip_suffix(RAW_SUFFIX) else {
            continue;
        };
        let Ok(id) = ArtifactId::parse(stem) else {
            continue;
        };
        let fs_meta = entry.metadata().ok();
        let mut m = meta(home, &id).unwrap_or_else(|| ArtifactMeta {
            id: id.to_string(),
            created_ms: fs_meta
                .as_ref()
                .and_then(|m| m.modified().ok())
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| d.as_millis() as i64)
                .unwrap_or(0),
            ..ArtifactMeta::default()
        });
        m.id = id.to_string();
        if let Some(fm) = &fs_meta {
            m.stored_bytes = fm.len();
        }
        out.push(Listed {
            id: id.to_string(),
            path: entry.path(),
            meta: m,
        });
    }
    out.sort_by(|a, b| {
        b.meta
            .created_ms
            .cmp(&a.meta.created_ms)
            .then_with(|| b.id.cmp(&a.id))
    });
    Ok(out)
}

/// Remove an artifact (both files). Missing files are fine.
pub fn remove(home: &Home, id: &ArtifactId) {
    let dir = home.artifact_dir();
    let _ = std::fs::remove_file(raw_path(&dir, id));
    let _ = std::fs::remove_file(meta_path(&dir, id));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn ids_are_strict() {
        assert!(ArtifactId::parse("tj_0123456789ab").is_ok());
        for bad in [
            "",
            "../x",
            "/etc/passwd",
            "tj_../../etc/x",
            "tj_0123456789AB",
            "tj_0123456789a",
            "tj_0123456789abc",
            "tj_0123456789a/",
            "xx_0123456789ab",
            "tj_01234567-9ab",
            "tj_０123456789a",
            "tj_0123456789ab\0",
        ] {
            assert!(
                matches!(ArtifactId::parse(bad), Err(StoreError::BadId(_))),
                "{bad:?} was accepted"
            );
        }
        for _ in 0..100 {
            let id = ArtifactId::generate();
            assert_eq!(ArtifactId::parse(id.as_str()).unwrap(), id);
        }
    }

    #[test]
    fn round_trip_any_bytes_in_any_chunking() {
        let t = tempfile::tempdir().unwrap();
        let home = Home::at(t.path().join("tj"));
        let mut data: Vec<u8> = (0..=255u8).cycle().take(300_000).collect();
        data.extend_from_slice("é中🦀\r\n\0\x1b[31m".as_bytes());
        let mut w = ArtifactWriter::create(&home, u64::MAX).unwrap();
        for c in data.chunks(4097) {
            w.write(c).unwrap();
        }
        let stored = w.finish().unwrap();
        assert_eq!(stored.meta.raw_bytes, data.len() as u64);
        assert!(!stored.meta.truncated);
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&stored.path), 0o600);
        assert_eq!(mode(&home.artifact_dir()), 0o700);
        let (_, mut r) = open(&home, stored.id.as_str()).unwrap();
        let mut back = Vec::new();
        r.copy_to(&mut back).unwrap();
        assert_eq!(back, data);
        let listed = list(&home).unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].id, stored.id.as_str());
        assert_eq!(listed[0].meta.raw_bytes, data.len() as u64);
    }

    #[test]
    fn cap_keeps_the_first_bytes_and_says_so() {
        let t = tempfile::tempdir().unwrap();
        let home = Home::at(t.path());
        let mut w = ArtifactWriter::create(&home, 10).unwrap();
        w.write(b"0123456").unwrap();
        w.write(b"789abcdef").unwrap();
        let s = w.finish().unwrap();
        assert!(s.meta.truncated);
        assert_eq!((s.meta.raw_bytes, s.meta.kept_bytes), (16, 10));
        let (_, mut r) = open(&home, s.id.as_str()).unwrap();
        let mut back = Vec::new();
        r.copy_to(&mut back).unwrap();
        assert_eq!(back, b"0123456789");
    }

    #[test]
    fn background_writer_round_trip() {
        let t = tempfile::tempdir().unwrap();
        let home = Home::at(t.path());
        let mut w = BackgroundWriter::start(&home, u64::MAX).unwrap();
        let line = b"line of output that repeats\n";
        for _ in 0..50_000 {
            w.push(line);
        }
        let s = w.finish().unwrap();
        assert_eq!(s.meta.raw_bytes, 50_000 * line.len() as u64);
        assert!(s.meta.stored_bytes < s.meta.raw_bytes / 20, "compressed");
    }

    #[test]
    fn bad_and_missing_ids() {
        let t = tempfile::tempdir().unwrap();
        let home = Home::at(t.path());
        assert!(matches!(
            open(&home, "../../etc/passwd"),
            Err(StoreError::BadId(_))
        ));
        assert!(matches!(
            open(&home, "tj_000000000000"),
            Err(StoreError::NotFound { .. })
        ));
    }

    #[test]
    fn damage_is_reported() {
        let t = tempfile::tempdir().unwrap();
        let home = Home::at(t.path());
        let mut w = ArtifactWriter::create(&home, u64::MAX).unwrap();
        let data: Vec<u8> = (0..200_000u32).flat_map(|i| i.to_le_bytes()).collect();
        w.write(&data).unwrap();
        let s = w.finish().unwrap();
        let mut bytes = std::fs::read(&s.path).unwrap();
        let n = bytes.len();
        bytes.truncate(n / 2);
        std::fs::write(&s.path, &bytes).unwrap();
        let (_, mut r) = open(&home, s.id.as_str()).unwrap();
        let mut back = Vec::new();
        assert!(matches!(
            r.copy_to(&mut back),
            Err(CopyError::Read(StoreError::DamagedArtifact { .. }))
        ));
    }
}
