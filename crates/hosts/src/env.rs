//! The environment a command runs in: home directory, variables, working directory. Tests
//! build one over temp directories; [`Env::from_process`] reads the real one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, Default)]
pub struct Env {
    pub home: Option<PathBuf>,
    pub vars: BTreeMap<String, String>,
    pub cwd: PathBuf,
}

impl Env {
    pub fn from_process() -> Env {
        let vars: BTreeMap<String, String> = std::env::vars().collect();
        let home = vars
            .get("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from);
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        Env { home, vars, cwd }
    }

    /// A non-empty variable.
    pub fn var(&self, key: &str) -> Option<&str> {
        self.vars
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// Looks a bare program name up on `PATH`; a name with a `/` is checked as it is.
    pub fn which(&self, name: &str) -> Option<PathBuf> {
        if name.contains('/') {
            let p = PathBuf::from(name);
            return is_executable(&p).then_some(p);
        }
        let path = self.var("PATH")?;
        std::env::split_paths(path)
            .filter(|d| !d.as_os_str().is_empty())
            .map(|d| d.join(name))
            .find(|p| is_executable(p))
    }

    /// The project directory for project-local files: the first of `env_vars` that is set,
    /// `TOKENJUICE_PROJECT_DIR`, the git root above the working directory, or the working
    /// directory itself.
    pub fn project_dir(&self, env_vars: &[&str]) -> PathBuf {
        for v in env_vars
            .iter()
            .chain(std::iter::once(&"TOKENJUICE_PROJECT_DIR"))
        {
            if let Some(d) = self.var(v) {
                return PathBuf::from(d);
            }
        }
        let mut dir: &Path = &self.cwd;
        loop {
            if dir.join(".git").exists() {
                return dir.to_path_buf();
            }
            match dir.parent() {
                Some(p) => dir = p,
                None => return self.cwd.clone(),
            }
        }
    }
}

/// A regular file with an execute bit.
pub fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::metadata(p) {
        Ok(m) => m.is_file() && m.permissions().mode() & 0o111 != 0,
        Err(_) => false,
    }
}
