//! Where tokenjuice keeps its data, and creating it privately.

use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::StoreError;

/// The data directory and the files in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Home {
    pub dir: PathBuf,
}

/// File names inside the data directory.
pub const HISTORY_FILE: &str = "history.sqlite3";
pub const SPOOL_FILE: &str = "history.pending";
pub const ARTIFACT_DIR: &str = "artifacts";

impl Home {
    /// `$TOKENJUICE_HOME`, else `$XDG_DATA_HOME/tokenjuice`, else
    /// `$HOME/.local/share/tokenjuice`. Empty and relative values are ignored, as the XDG
    /// specification asks.
    pub fn resolve(env: &dyn Fn(&str) -> Option<String>) -> Result<Home, StoreError> {
        let abs = |name: &str| {
            env(name)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty() && Path::new(v).is_absolute())
                .map(PathBuf::from)
        };
        if let Some(d) = abs("TOKENJUICE_HOME") {
            return Ok(Home { dir: d });
        }
        if let Some(d) = abs("XDG_DATA_HOME") {
            return Ok(Home {
                dir: d.join("tokenjuice"),
            });
        }
        if let Some(h) = abs("HOME") {
            return Ok(Home {
                dir: h.join(".local/share/tokenjuice"),
            });
        }
        Err(StoreError::NoHome)
    }

    pub fn at(dir: impl Into<PathBuf>) -> Home {
        Home { dir: dir.into() }
    }

    pub fn history_path(&self) -> PathBuf {
        self.dir.join(HISTORY_FILE)
    }

    pub fn spool_path(&self) -> PathBuf {
        self.dir.join(SPOOL_FILE)
    }

    pub fn artifact_dir(&self) -> PathBuf {
        self.dir.join(ARTIFACT_DIR)
    }

    /// Create the data directory (mode 0700) if it is missing. An existing directory
    /// is left as it is: it may be one the user chose and shares.
    /// Create the data folder with mode 0700; one that already exists open to others is
    /// tightened when it is tokenjuice's own (named `…tokenjuice…`, ours, not a shared sticky
    /// folder like /tmp): it holds the run history and raw outputs.
    pub fn ensure(&self) -> Result<(), StoreError> {
        create_private_dir(&self.dir)?;
        let ours_by_name = self
            .dir
            .file_name()
            .is_some_and(|n| n.to_string_lossy().contains("tokenjuice"));
        if let Ok(meta) = std::fs::metadata(&self.dir) {
            use std::os::unix::fs::MetadataExt;
            let mode = meta.permissions().mode();
            let sticky = mode & 0o1000 != 0;
            let mine = meta.uid() == nix::unistd::getuid().as_raw();
            if ours_by_name && mine && !sticky && mode & 0o077 != 0 {
                std::fs::set_permissions(&self.dir, std::fs::Permissions::from_mode(0o700))
                    .map_err(|e| StoreError::io("restrict to 0700", self.dir.clone(), e))?;
            }
        }
        Ok(())
    }

    /// Create the artifact directory with mode 0700, and tighten it if someone loosened it.
    pub fn ensure_artifact_dir(&self) -> Result<PathBuf, StoreError> {
        self.ensure()?;
        let dir = self.artifact_dir();
        create_private_dir(&dir)?;
        let meta = std::fs::metadata(&dir).map_err(|e| StoreError::io("read", dir.clone(), e))?;
        if meta.permissions().mode() & 0o777 != 0o700 {
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
                .map_err(|e| StoreError::io("restrict to 0700", dir.clone(), e))?;
        }
        Ok(dir)
    }
}

fn create_private_dir(dir: &Path) -> Result<(), StoreError> {
    match std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
    {
        Ok(()) => Ok(()),
        Err(e) => Err(StoreError::io("create the directory", dir, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn tokenjuice_home_wins_then_xdg_then_home() {
        let all = [
            ("TOKENJUICE_HOME", "/a"),
            ("XDG_DATA_HOME", "/b"),
            ("HOME", "/c"),
        ];
        assert_eq!(Home::resolve(&env(&all)).unwrap().dir, PathBuf::from("/a"));
        assert_eq!(
            Home::resolve(&env(&all[1..])).unwrap().dir,
            PathBuf::from("/b/tokenjuice")
        );
        assert_eq!(
            Home::resolve(&env(&all[2..])).unwrap().dir,
            PathBuf::from("/c/.local/share/tokenjuice")
        );
        assert!(matches!(Home::resolve(&env(&[])), Err(StoreError::NoHome)));
    }

    #[test]
    fn relative_and_empty_values_are_ignored() {
        let e = [
            ("TOKENJUICE_HOME", " "),
            ("XDG_DATA_HOME", "relative/dir"),
            ("HOME", "/h"),
        ];
        assert_eq!(
            Home::resolve(&env(&e)).unwrap().dir,
            PathBuf::from("/h/.local/share/tokenjuice")
        );
    }

    #[test]
    fn artifact_dir_is_private_even_if_loosened() {
        let t = tempfile::tempdir().unwrap();
        let home = Home::at(t.path().join("tj"));
        let dir = home.ensure_artifact_dir().unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&home.dir), 0o700);
        assert_eq!(mode(&dir), 0o700);
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        home.ensure_artifact_dir().unwrap();
        assert_eq!(mode(&dir), 0o700);
    }
}
