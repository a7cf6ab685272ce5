//! Where each agent keeps its user configuration: the one table that both the hooks toolkit
//! (which reads a host's settings to run its hooks) and the installers (which write them)
//! use, so the two can never disagree about a host's directory.
//!
//! Each row names the variable the host itself reads, as found in the host's published
//! source or shipped bundle, and what that variable means there: some hosts take it as
//! their configuration directory, Gemini CLI takes it as a replacement home directory.

use std::path::{Path, PathBuf};

/// What a host's override variable stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnvMeans {
    /// The variable is the configuration directory itself (`$CLAUDE_CONFIG_DIR/settings.json`).
    ConfigDir,
    /// The variable replaces the home directory (`$GEMINI_CLI_HOME/.gemini/settings.json`).
    Home,
}

/// A host's user configuration directory: `dir` under the home directory unless the host's
/// own variable says otherwise.
#[derive(Debug)]
pub struct UserHome {
    /// The host's override variable and its meaning.
    pub env: Option<(&'static str, EnvMeans)>,
    /// The directory under the home directory (`.claude`).
    pub dir: &'static str,
    /// Where the fact comes from.
    pub source: &'static str,
}

impl UserHome {
    /// The directory, given the home directory and a reader for non-empty variables. `None`
    /// when it depends on a home directory that is unknown.
    pub fn resolve<'a>(
        &self,
        home: Option<&Path>,
        var: impl Fn(&str) -> Option<&'a str>,
    ) -> Option<PathBuf> {
        match self
            .env
            .and_then(|(name, means)| var(name).map(|v| (v, means)))
        {
            Some((v, EnvMeans::ConfigDir)) => Some(PathBuf::from(v)),
            Some((v, EnvMeans::Home)) => Some(Path::new(v).join(self.dir)),
            None => home.map(|h| h.join(self.dir)),
        }
    }

    /// What to set when no home directory is known.
    pub fn hint(&self) -> &'static str {
        self.env.map_or("HOME", |(name, _)| name)
    }
}

pub static CLAUDE: UserHome = UserHome {
    env: Some(("CLAUDE_CONFIG_DIR", EnvMeans::ConfigDir)),
    dir: ".claude",
    source: "Claude Code settings docs; the 2.1 binary reads CLAUDE_CONFIG_DIR and no other",
};

pub static CODEBUDDY: UserHome = UserHome {
    env: Some(("CODEBUDDY_CONFIG_DIR", EnvMeans::ConfigDir)),
    dir: ".codebuddy",
    source: "CodeBuddy Code 2.117 bundle: getHomeDir() = CODEBUDDY_CONFIG_DIR or ~/.codebuddy",
};

pub static CODEX: UserHome = UserHome {
    env: Some(("CODEX_HOME", EnvMeans::ConfigDir)),
    dir: ".codex",
    source: "openai/codex codex-rs/core config: CODEX_HOME or ~/.codex",
};

pub static GEMINI: UserHome = UserHome {
    env: Some(("GEMINI_CLI_HOME", EnvMeans::Home)),
    dir: ".gemini",
    source: "gemini-cli 0.61 bundle: homedir() = GEMINI_CLI_HOME or os.homedir(), settings in <home>/.gemini",
};

pub static CURSOR: UserHome = UserHome {
    env: None,
    dir: ".cursor",
    source: "cursor.com/docs/hooks: ~/.cursor/hooks.json",
};

pub static PI: UserHome = UserHome {
    env: Some(("PI_CODING_AGENT_DIR", EnvMeans::ConfigDir)),
    dir: ".pi/agent",
    source: "badlogic/pi-mono coding-agent config: PI_CODING_AGENT_DIR or ~/.pi/agent",
};

pub static COPILOT: UserHome = UserHome {
    env: Some(("COPILOT_HOME", EnvMeans::ConfigDir)),
    dir: ".copilot",
    source: "Copilot CLI 1.0 bundle: COPILOT_HOME or ~/.copilot",
};

pub static VSCODE_COPILOT: UserHome = UserHome {
    env: None,
    dir: ".copilot",
    source: "VS Code agent hooks docs: ~/.copilot/hooks",
};

pub static QWEN: UserHome = UserHome {
    env: None,
    dir: ".qwen",
    source: "QwenLM/qwen-code settings: ~/.qwen/settings.json",
};

pub static DROID: UserHome = UserHome {
    env: Some(("FACTORY_HOME_OVERRIDE", EnvMeans::Home)),
    dir: ".factory",
    source: "Droid 0.225 binary: home = FACTORY_HOME_OVERRIDE or HOME; settings in <home>/.factory",
};

#[cfg(test)]
mod tests {
    use super::*;

    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<&'a str> + 'a {
        move |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| *v)
    }

    #[test]
    fn config_dir_variable_is_the_directory_and_home_variable_replaces_home() {
        let home = Some(Path::new("/h"));
        assert_eq!(
            CLAUDE.resolve(home, vars(&[("CLAUDE_CONFIG_DIR", "/c")])),
            Some(PathBuf::from("/c"))
        );
        assert_eq!(
            GEMINI.resolve(home, vars(&[("GEMINI_CLI_HOME", "/g")])),
            Some(PathBuf::from("/g/.gemini"))
        );
        assert_eq!(
            GEMINI.resolve(home, vars(&[])),
            Some(PathBuf::from("/h/.gemini"))
        );
        assert_eq!(CURSOR.resolve(None, vars(&[])), None);
        assert_eq!(CODEX.hint(), "CODEX_HOME");
        assert_eq!(CURSOR.hint(), "HOME");
    }

    #[test]
    fn variables_the_hosts_do_not_read_are_ignored() {
        // Claude Code, CodeBuddy and Gemini CLI read no CLAUDE_HOME, CODEBUDDY_HOME or
        // GEMINI_HOME; an installer that honoured them wrote where the host never looks.
        let home = Some(Path::new("/h"));
        let set = [
            ("CLAUDE_HOME", "/x"),
            ("CODEBUDDY_HOME", "/x"),
            ("GEMINI_HOME", "/x"),
            ("FACTORY_HOME", "/x"),
        ];
        assert_eq!(
            CLAUDE.resolve(home, vars(&set)),
            Some(PathBuf::from("/h/.claude"))
        );
        assert_eq!(
            CODEBUDDY.resolve(home, vars(&set)),
            Some(PathBuf::from("/h/.codebuddy"))
        );
        assert_eq!(
            GEMINI.resolve(home, vars(&set)),
            Some(PathBuf::from("/h/.gemini"))
        );
        assert_eq!(
            DROID.resolve(home, vars(&set)),
            Some(PathBuf::from("/h/.factory"))
        );
    }
}
