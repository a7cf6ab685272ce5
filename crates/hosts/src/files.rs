//! Reading and writing a user's config files safely: a malformed file is refused with its
//! line and column; writes go to a temp file in the same directory and are renamed over the
//! target (atomic); the file mode is kept; a symlinked file is written through to its target
//! (the link stays); the first write keeps a one-time `<file>.bak` that is never
//! overwritten; and a file that changed since it was read is not clobbered.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::error::{HostsError, Result};

/// A file as read: where it really is and what it held.
#[derive(Debug)]
pub struct Loaded {
    /// The path that was asked for.
    pub path: PathBuf,
    /// Where writes go: the symlink's target, or `path`.
    pub target: PathBuf,
    /// `None` when the file does not exist.
    pub text: Option<String>,
}

pub fn load(path: &Path) -> Result<Loaded> {
    let target = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => resolve_link(path)?,
        _ => path.to_path_buf(),
    };
    let text = match std::fs::read(&target) {
        Ok(bytes) => Some(String::from_utf8(bytes).map_err(|e| HostsError::Malformed {
            path: path.to_path_buf(),
            line: 1,
            column: 1,
            what: format!("the file is not UTF-8 text ({e})"),
        })?),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            return Err(HostsError::Read {
                path: path.to_path_buf(),
                source: e,
            })
        }
    };
    Ok(Loaded {
        path: path.to_path_buf(),
        target,
        text,
    })
}

/// Follows a symlink chain to the file it names (which may not exist yet).
fn resolve_link(path: &Path) -> Result<PathBuf> {
    let mut cur = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&cur) {
            Ok(m) if m.file_type().is_symlink() => {
                let dest = std::fs::read_link(&cur).map_err(|e| HostsError::Read {
                    path: cur.clone(),
                    source: e,
                })?;
                cur = if dest.is_absolute() {
                    dest
                } else {
                    cur.parent().unwrap_or(Path::new("/")).join(dest)
                };
            }
            _ => return Ok(cur),
        }
    }
    Err(HostsError::Shape {
        path: path.to_path_buf(),
        what: "the symlink chain is too long (a loop?)".into(),
        fix: "point the link at a real file".into(),
    })
}

/// Parses a JSON object; a missing or blank file is an empty object.
pub fn parse_object(loaded: &Loaded) -> Result<Map<String, Value>> {
    parse_object_in(loaded, false)
}

/// [`parse_object`], with `//` and `/* */` comments allowed when `comments` (the host reads
/// its file so: see the registry's `comments`).
pub fn parse_object_in(loaded: &Loaded, comments: bool) -> Result<Map<String, Value>> {
    let Some(text) = loaded.text.as_deref() else {
        return Ok(Map::new());
    };
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let blanked = blank_comments(body);
    if blanked.trim().is_empty() && (comments || !has_comments(body)) {
        return Ok(Map::new());
    }
    let parsed = if comments {
        serde_json::from_str::<Value>(&blanked)
    } else {
        serde_json::from_str::<Value>(body)
    };
    if let (Err(e), false) = (&parsed, comments) {
        if has_comments(body)
            && (blanked.trim().is_empty() || serde_json::from_str::<Value>(&blanked).is_ok())
        {
            return Err(HostsError::Malformed {
                path: loaded.path.clone(),
                line: e.line(),
                column: e.column(),
                what: "the file has comments (`//` or `/* */`), which are not JSON and which \
                       this agent does not read in this file"
                    .into(),
            });
        }
    }
    match parsed {
        Ok(Value::Object(m)) => Ok(m),
        Ok(other) => Err(HostsError::Malformed {
            path: loaded.path.clone(),
            line: 1,
            column: 1,
            what: format!(
                "expected a JSON object at the top level, found {}",
                kind(&other)
            ),
        }),
        Err(e) => Err(HostsError::Malformed {
            path: loaded.path.clone(),
            line: e.line(),
            column: e.column(),
            what: format!("invalid JSON: {e}"),
        }),
    }
}

pub use tokenjuice_hooks::jsonc::{blank_comments, comment_spans, has_comments};

/// The last `max` bytes of a regular file, from its first whole line (a transcript's last
/// entries); opened without blocking, so a FIFO put there cannot hang the caller.
pub fn read_tail(path: &Path, max: u64) -> Option<String> {
    let buf = tokenjuice_untrusted::read_tail(path, max).ok()?;
    let whole = std::fs::metadata(path).is_ok_and(|m| m.len() <= max);
    let from = if whole {
        0
    } else {
        buf.iter().position(|&b| b == b'\n')? + 1
    };
    Some(String::from_utf8_lossy(&buf[from..]).into_owned())
}

pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Pretty JSON with a trailing newline, indented with two spaces.
pub fn render_json(obj: &Map<String, Value>) -> String {
    render_json_like(obj, None)
}

/// `obj` written over `original`: every byte the edit did not touch stays as the user wrote
/// it (see [`crate::json_keep`]); what changed is indented the way the file is (tabs or N
/// spaces; two spaces when it cannot tell). Without an original, or one that cannot be
/// followed, plain pretty JSON with a trailing newline.
pub fn render_json_like(obj: &Map<String, Value>, original: Option<&str>) -> String {
    let indent = original
        .and_then(detect_indent)
        .unwrap_or_else(|| "  ".to_string());
    if let Some(kept) = original
        .filter(|t| !t.trim_start_matches('\u{feff}').trim().is_empty())
        .and_then(|t| crate::json_keep::render_keeping(t, obj, &indent))
    {
        return kept;
    }
    let mut s = crate::json_keep::pretty(&Value::Object(obj.clone()), &indent);
    s.push('\n');
    s
}

/// `obj` written over the loaded file ([`render_json_like`]). A file with comments must
/// keep every one of them where it was, or nothing is written.
pub fn render_over(loaded: &Loaded, obj: &Map<String, Value>) -> Result<String> {
    match loaded.text.as_deref().filter(|t| has_comments(t)) {
        // only comments so far: they stay, the document comes after them
        Some(original)
            if blank_comments(original)
                .trim_matches(['\u{feff}', ' ', '\t', '\n', '\r'])
                .is_empty() =>
        {
            let mut out = original.trim_end().to_string();
            out.push('\n');
            out.push_str(&crate::json_keep::pretty(&Value::Object(obj.clone()), "  "));
            out.push('\n');
            Ok(out)
        }
        Some(original) => {
            let indent = detect_indent(original).unwrap_or_else(|| "  ".to_string());
            crate::json_keep::render_keeping(original, obj, &indent).ok_or_else(|| {
                HostsError::Shape {
                    path: loaded.path.clone(),
                    what: "tokenjuice could not make its change and keep every comment of the \
                           file where it was"
                        .into(),
                    fix: "move the comment that sits in the value tokenjuice changes (its \
                          hook entry, or the `env` entry of its shell prefix) out of it, and \
                          run the command again"
                        .into(),
                }
            })
        }
        None => Ok(render_json_like(obj, loaded.text.as_deref())),
    }
}

/// The indentation of the first indented line of a JSON text.
fn detect_indent(text: &str) -> Option<String> {
    text.lines().skip(1).find_map(|l| {
        let ws: String = l.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
        (!ws.is_empty() && ws.len() <= 8 && !l.trim().is_empty()).then_some(ws)
    })
}

/// What a write did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    Unchanged,
    Created,
    Updated { backup: Option<PathBuf> },
    Removed { backup: Option<PathBuf> },
}

/// Replaces the file's content with `new` (or removes the file when `new` is `None`),
/// keeping a one-time backup of what was there.
pub fn store(loaded: &Loaded, new: Option<&str>) -> Result<Written> {
    store_inner(loaded, new, true)
}

/// Like [`store`] for a file tokenjuice owns whole (nothing of the user's to back up).
pub fn store_owned(loaded: &Loaded, new: Option<&str>) -> Result<Written> {
    store_inner(loaded, new, false)
}

fn store_inner(loaded: &Loaded, new: Option<&str>, keep_backup: bool) -> Result<Written> {
    if loaded.text.as_deref() == new {
        return Ok(Written::Unchanged);
    }
    let target = &loaded.target;
    // A file the user made read-only is theirs to keep as it is (root could write anyway).
    if let Ok(m) = std::fs::metadata(target) {
        let mode = m.permissions().mode() & 0o7777;
        if mode & 0o222 == 0 {
            return Err(HostsError::ReadOnly {
                path: loaded.path.clone(),
                mode,
            });
        }
    }
    // Compare-and-swap: the file must still hold what we read (checked again right before
    // the rename, so a write by another program in between is refused, not lost).
    still_as_read(loaded)?;
    let backup = match &loaded.text {
        Some(old) if keep_backup => backup_once(target, old)?,
        _ => None,
    };
    let Some(new) = new else {
        still_as_read(loaded)?;
        std::fs::remove_file(target).map_err(|e| HostsError::Write {
            path: target.clone(),
            source: e,
        })?;
        return Ok(Written::Removed { backup });
    };
    write_atomic(
        target,
        new.as_bytes(),
        loaded.text.as_deref().map(str::as_bytes),
        || still_as_read(loaded),
    )?;
    Ok(if loaded.text.is_some() {
        Written::Updated { backup }
    } else {
        Written::Created
    })
}

/// The file still holds what was read (or is still absent).
fn still_as_read(loaded: &Loaded) -> Result<()> {
    let now = match std::fs::read(&loaded.target) {
        Ok(b) => Some(b),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            return Err(HostsError::Read {
                path: loaded.target.clone(),
                source: e,
            })
        }
    };
    if now.as_deref() != loaded.text.as_deref().map(str::as_bytes) {
        return Err(HostsError::Changed {
            path: loaded.path.clone(),
        });
    }
    Ok(())
}

/// The text of `<file>.bak` (the file as it was before tokenjuice first wrote it) when it
/// holds exactly `without_ours` — the current file with tokenjuice's entries taken out — so
/// that uninstall can give the user's file back byte for byte rather than re-rendered.
pub fn original_if_only_ours_changed(
    loaded: &Loaded,
    without_ours: &Map<String, Value>,
) -> Option<String> {
    let mut name = loaded.target.file_name()?.to_os_string();
    name.push(".bak");
    let bak = loaded.target.with_file_name(name);
    let bytes = tokenjuice_untrusted::read(&bak, tokenjuice_untrusted::MAX_SETTINGS_FILE).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let body = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let blanked = blank_comments(body);
    let parsed: Value = if blanked.trim().is_empty() {
        Value::Object(Map::new())
    } else {
        serde_json::from_str(&blanked).ok()?
    };
    (parsed.as_object()? == without_ours).then_some(text)
}

/// Copies the original to `<file>.bak` unless a `.bak` already exists.
fn backup_once(target: &Path, old: &str) -> Result<Option<PathBuf>> {
    let mut name = target.file_name().unwrap_or_default().to_os_string();
    name.push(".bak");
    let bak = target.with_file_name(name);
    if std::fs::symlink_metadata(&bak).is_ok() {
        return Ok(None);
    }
    let mode = std::fs::metadata(target)
        .map(|m| m.permissions().mode() & 0o7777)
        .unwrap_or(0o600);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&bak)
        .map_err(|e| HostsError::Write {
            path: bak.clone(),
            source: e,
        })?;
    f.write_all(old.as_bytes())
        .and_then(|_| f.set_permissions(std::fs::Permissions::from_mode(mode)))
        .map_err(|e| HostsError::Write {
            path: bak.clone(),
            source: e,
        })?;
    Ok(Some(bak))
}

/// Writes `bytes` to a temp file beside `target`, then, when `unchanged` still holds, swaps
/// it in. The swap is an atomic exchange (Linux `renameat2(RENAME_EXCHANGE)`), which hands
/// back exactly what the target held at that instant: when that is not `expected` (another
/// program wrote in between), the exchange is undone, so their write stays and ours is
/// refused. A target that must not exist yet is created with `RENAME_NOREPLACE`. Where the
/// filesystem cannot exchange, a plain rename is used.
fn write_atomic(
    target: &Path,
    bytes: &[u8],
    expected: Option<&[u8]>,
    unchanged: impl Fn() -> Result<()>,
) -> Result<()> {
    let dir = target.parent().unwrap_or(Path::new("."));
    let werr = |e: std::io::Error| HostsError::Write {
        path: target.to_path_buf(),
        source: e,
    };
    std::fs::create_dir_all(dir).map_err(werr)?;
    let mode = std::fs::metadata(target)
        .map(|m| m.permissions().mode() & 0o7777)
        .ok();
    let mut tmp = tempfile::Builder::new()
        .prefix(".tokenjuice-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(werr)?;
    tmp.write_all(bytes).map_err(werr)?;
    let mode = mode.unwrap_or(0o644);
    tmp.as_file()
        .set_permissions(std::fs::Permissions::from_mode(mode))
        .map_err(werr)?;
    tmp.as_file().sync_all().map_err(werr)?;
    // the last moment before the swap: a foreign change is refused (the temp file goes)
    unchanged()?;
    let tmp = tmp.into_temp_path();
    use nix::fcntl::{renameat2, RenameFlags};
    let changed = || HostsError::Changed {
        path: target.to_path_buf(),
    };
    match expected {
        Some(expected) => {
            match renameat2(None, &*tmp, None, target, RenameFlags::RENAME_EXCHANGE) {
                Ok(()) => {
                    // `tmp` now holds what the target held just before the swap
                    if std::fs::read(&tmp).ok().as_deref() != Some(expected) {
                        let _ = renameat2(None, &*tmp, None, target, RenameFlags::RENAME_EXCHANGE);
                        return Err(changed());
                    }
                    Ok(())
                }
                Err(nix::errno::Errno::ENOENT) => Err(changed()),
                Err(nix::errno::Errno::EINVAL | nix::errno::Errno::ENOSYS) => {
                    tmp.persist(target).map_err(|e| werr(e.error))
                }
                Err(e) => Err(werr(std::io::Error::from(e))),
            }
        }
        None => match renameat2(None, &*tmp, None, target, RenameFlags::RENAME_NOREPLACE) {
            Ok(()) => Ok(()),
            Err(nix::errno::Errno::EEXIST) => Err(changed()),
            Err(nix::errno::Errno::EINVAL | nix::errno::Errno::ENOSYS) => {
                tmp.persist(target).map_err(|e| werr(e.error))
            }
            Err(e) => Err(werr(std::io::Error::from(e))),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_json_reports_line_and_column() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("s.json");
        std::fs::write(&p, "{\n  \"a\": 1,\n  \"b\": ,\n}\n").unwrap();
        let err = parse_object(&load(&p).unwrap()).unwrap_err().to_string();
        assert!(err.contains("s.json:3:"), "{err}");
        assert!(err.contains("untouched"), "{err}");
    }

    #[test]
    fn comments_are_blanked_where_they_are_and_only_outside_strings() {
        let t = "{\n  // a note: \"x\"\n  \"url\": \"http://a/*b*/\", /* é */ \"n\": 1 // end\n}";
        let b = blank_comments(t);
        assert_eq!(b.len(), t.len());
        assert_eq!(
            b,
            "{\n                \n  \"url\": \"http://a/*b*/\",          \"n\": 1       \n}"
        );
        assert_eq!(comment_spans(t).len(), 3);
        assert!(has_comments(t) && !has_comments("{\"a\": \"//\"}"));
        // an unterminated block comment stays for the parser to point at
        assert!(!has_comments("{\"a\": 1 /* open\n}"));
        assert!(matches!(
            blank_comments("{\"a\": \"\\\"//\"}"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn comments_parse_only_where_the_host_reads_them() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("settings.json");
        std::fs::write(&p, "{\n  // theme\n  \"theme\": \"Dracula\"\n}\n").unwrap();
        let l = load(&p).unwrap();
        assert_eq!(parse_object_in(&l, true).unwrap()["theme"], "Dracula");
        let err = parse_object(&l).unwrap_err().to_string();
        assert!(
            err.contains("settings.json:2:3: the file has comments"),
            "{err}"
        );
        assert!(err.contains("untouched"), "{err}");
        // a file that is only a comment is an empty object where comments are read
        std::fs::write(&p, "// nothing yet\n").unwrap();
        assert!(parse_object_in(&load(&p).unwrap(), true)
            .unwrap()
            .is_empty());
        let err = parse_object(&load(&p).unwrap()).unwrap_err().to_string();
        assert!(err.contains("the file has comments"), "{err}");
    }

    #[test]
    fn a_commented_file_keeps_every_comment_or_is_not_written() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("settings.json");
        let original = "{\n  // the theme\n  \"theme\": \"Dracula\", /* why */\n  \"hooks\": {} // none yet\n}\n";
        std::fs::write(&p, original).unwrap();
        let l = load(&p).unwrap();
        let mut m = parse_object_in(&l, true).unwrap();
        m["hooks"] = serde_json::json!({"AfterTool": [{"matcher": "x"}]});
        m.insert("extra".into(), serde_json::json!(1));
        let out = render_over(&l, &m).unwrap();
        assert_eq!(
            out,
            "{\n  // the theme\n  \"theme\": \"Dracula\", /* why */\n  \"hooks\": {\n    \"AfterTool\": [\n      {\n        \"matcher\": \"x\"\n      }\n    ]\n  }, // none yet\n  \"extra\": 1\n}\n"
        );
        // a change that would drop a comment (the member it sits in goes) is refused
        std::fs::write(&p, "{\n  \"a\": 1,\n  \"b\": [1, /* keep */ 2]\n}\n").unwrap();
        let l = load(&p).unwrap();
        let mut m = parse_object_in(&l, true).unwrap();
        m.remove("b");
        let err = render_over(&l, &m).unwrap_err().to_string();
        assert!(err.contains("keep every comment"), "{err}");
        // a file of comments alone keeps them, the document after them
        std::fs::write(&p, "// settings come here\n").unwrap();
        let l = load(&p).unwrap();
        let mut m = parse_object_in(&l, true).unwrap();
        m.insert("a".into(), serde_json::json!(1));
        assert_eq!(
            render_over(&l, &m).unwrap(),
            "// settings come here\n{\n  \"a\": 1\n}\n"
        );
    }

    #[test]
    fn indentation_of_the_users_file_is_kept() {
        let mut m = Map::new();
        m.insert("a".into(), serde_json::json!({"b": 1}));
        assert_eq!(
            render_json_like(&m, Some("{\n    \"x\": 1\n}\n")),
            "{\n    \"a\": {\n        \"b\": 1\n    }\n}\n"
        );
        assert_eq!(
            render_json_like(&m, Some("{\n\t\"x\": 1\n}\n")),
            "{\n\t\"a\": {\n\t\t\"b\": 1\n\t}\n}\n"
        );
        // a file on one line stays on one line; no final newline is added
        assert_eq!(render_json_like(&m, Some("{\"x\":1}")), "{\"a\":{\"b\":1}}");
        assert_eq!(render_json_like(&m, None), render_json(&m));
    }

    #[test]
    fn backup_is_made_once_and_never_overwritten() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("s.json");
        std::fs::write(&p, "first").unwrap();
        store(&load(&p).unwrap(), Some("second")).unwrap();
        store(&load(&p).unwrap(), Some("third")).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "third");
        assert_eq!(
            std::fs::read_to_string(d.path().join("s.json.bak")).unwrap(),
            "first"
        );
    }

    #[test]
    fn symlinked_file_is_written_through_and_mode_kept() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("dotfiles/settings.json");
        std::fs::create_dir_all(real.parent().unwrap()).unwrap();
        std::fs::write(&real, "{}").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
        let link = d.path().join("settings.json");
        std::os::unix::fs::symlink("dotfiles/settings.json", &link).unwrap();
        store(&load(&link).unwrap(), Some("{\"a\":1}")).unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "{\"a\":1}");
        let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    #[test]
    fn a_file_changed_since_reading_is_not_clobbered() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("s.json");
        std::fs::write(&p, "one").unwrap();
        let loaded = load(&p).unwrap();
        std::fs::write(&p, "two").unwrap();
        assert!(matches!(
            store(&loaded, Some("three")),
            Err(HostsError::Changed { .. })
        ));
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two");
    }

    #[test]
    fn a_write_by_another_program_just_before_the_swap_is_refused_not_lost() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("s.json");
        std::fs::write(&p, "{\"a\":1}").unwrap();
        let loaded = load(&p).unwrap();
        // another program writes after our first check, while our temp file is written
        let r = write_atomic(&loaded.target, b"{\"ours\":1}", Some(b"{\"a\":1}"), || {
            std::fs::write(&p, "{\"a\":1,\"theirs\":2}").unwrap();
            still_as_read(&loaded)
        });
        assert!(matches!(r, Err(HostsError::Changed { .. })), "{r:?}");
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "{\"a\":1,\"theirs\":2}"
        );
        let leftovers = std::fs::read_dir(d.path()).unwrap().count();
        assert_eq!(leftovers, 1, "no temp file left");
    }

    #[test]
    fn a_write_landing_between_the_last_check_and_the_swap_is_put_back() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("s.json");
        std::fs::write(&p, "{\"a\":1}").unwrap();
        let loaded = load(&p).unwrap();
        // the check passes, then another program writes before our swap
        let r = write_atomic(&loaded.target, b"{\"ours\":1}", Some(b"{\"a\":1}"), || {
            let ok = still_as_read(&loaded);
            std::fs::write(&p, "{\"a\":1,\"late\":3}").unwrap();
            ok
        });
        assert!(matches!(r, Err(HostsError::Changed { .. })), "{r:?}");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "{\"a\":1,\"late\":3}");
        assert_eq!(
            std::fs::read_dir(d.path()).unwrap().count(),
            1,
            "no temp file left"
        );
    }

    #[test]
    fn a_read_only_file_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("s.json");
        std::fs::write(&p, "{}").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o444)).unwrap();
        let loaded = load(&p).unwrap();
        let e = store(&loaded, Some("{\"x\":1}")).unwrap_err().to_string();
        assert!(
            e.contains("is read-only (mode 0444)") && e.contains("chmod u+w"),
            "{e}"
        );
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "{}");
    }
}
