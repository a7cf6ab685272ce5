//! Commands whose output must stream to the host as it comes (Claude Code's background
//! commands: the host shows their output while they run). The host's pre-tool hook marks such
//! a command; the shell prefix takes the mark and passes that command through untouched.
//!
//! A mark is an empty file named after a hash of the command, in a private directory under
//! the temporary directory (`$TMPDIR/tokenjuice-<uid>/stream`, mode 0700). A mark older than
//! ten minutes is ignored (and removed): the command it stood for never ran.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

const MAX_AGE: Duration = Duration::from_secs(600);

fn dir() -> PathBuf {
    let uid = nix::unistd::getuid().as_raw();
    std::env::temp_dir()
        .join(format!("tokenjuice-{uid}"))
        .join("stream")
}

/// FNV-1a, 64 bits: stable across builds (the hook and the prefix may be different builds).
fn key(command: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    // hosts trim the command before they run it (CodeBuddy); the hook sees it untrimmed
    for b in command.trim().as_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Mark `command` as one to stream. Best effort: a failure only costs compaction staying on.
pub fn mark(command: &str) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    let d = dir();
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&d)?;
    // the directory must be ours and private: another user could otherwise plant marks
    for p in [d.parent().unwrap_or(&d), d.as_path()] {
        let m = std::fs::symlink_metadata(p)?;
        if !m.is_dir() || m.uid() != nix::unistd::getuid().as_raw() {
            return Err(std::io::Error::other(format!(
                "{} is not a directory of ours",
                p.display()
            )));
        }
        if m.permissions().mode() & 0o077 != 0 {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o700))?;
        }
    }
    std::fs::write(d.join(key(command)), b"")
}

/// True (and the mark removed) when `command` was marked in the last ten minutes.
pub fn take_mark(command: &str) -> bool {
    let p = dir().join(key(command));
    let Ok(meta) = std::fs::symlink_metadata(&p) else {
        return false;
    };
    let _ = std::fs::remove_file(&p);
    let fresh = meta
        .modified()
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .is_some_and(|age| age <= MAX_AGE);
    meta.is_file() && fresh
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_is_taken_once() {
        let cmd = format!("npm run dev # {}", std::process::id());
        assert!(!take_mark(&cmd));
        mark(&cmd).unwrap();
        assert!(take_mark(&cmd));
        assert!(!take_mark(&cmd));
    }

    #[test]
    fn keys_differ_per_command_and_are_stable() {
        assert_ne!(key("a"), key("b"));
        assert_eq!(key(""), "cbf29ce484222325");
    }
}
