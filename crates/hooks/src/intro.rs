//! Intro loading: the role/rules text an agent gets at session start.
//!
//! Sources are inline strings or files, each with a priority (lower first) and an
//! `enabled` flag. The defaults are `.codebuddy/intro_hook.txt` (1) and
//! `.codebuddy/README.md` (2) in the project, and `~/.codebuddy/intro_hook.txt` (3).
//! Missing or empty files are skipped; unreadable ones are skipped with a warning.
//! Contents are joined with a `---` separator and capped at `max_length` characters
//! **including** the truncation marker. The result is cached until the configuration
//! changes or [`IntroLoader::reload`] is called.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Separator between sources.
pub const SEPARATOR: &str = "\n\n---\n\n";
/// Appended when the text was cut.
pub const TRUNCATION_MARKER: &str = "\n\n[... truncated ...]";

/// Where an intro part comes from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "lowercase")]
pub enum IntroSourceKind {
    Inline(String),
    /// Relative to the project; `~/` means the home directory.
    File(String),
}

/// One intro source.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IntroSource {
    pub id: String,
    pub kind: IntroSourceKind,
    pub priority: i32,
    pub enabled: bool,
}

impl IntroSource {
    pub fn file(id: &str, path: &str, priority: i32) -> IntroSource {
        IntroSource {
            id: id.into(),
            kind: IntroSourceKind::File(path.into()),
            priority,
            enabled: true,
        }
    }
    pub fn inline(id: &str, text: &str, priority: i32) -> IntroSource {
        IntroSource {
            id: id.into(),
            kind: IntroSourceKind::Inline(text.into()),
            priority,
            enabled: true,
        }
    }
}

/// Intro settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IntroConfig {
    pub enabled: bool,
    pub sources: Vec<IntroSource>,
    pub max_length: usize,
}

impl Default for IntroConfig {
    fn default() -> IntroConfig {
        IntroConfig {
            enabled: true,
            sources: vec![
                IntroSource::file("project-intro", ".codebuddy/intro_hook.txt", 1),
                IntroSource::file("project-readme", ".codebuddy/README.md", 2),
                IntroSource::file("global-intro", "~/.codebuddy/intro_hook.txt", 3),
            ],
            max_length: 8000,
        }
    }
}

/// The loaded intro.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Intro {
    pub content: String,
    /// Ids of the sources used, in order.
    pub sources: Vec<String>,
    pub truncated: bool,
    pub warnings: Vec<String>,
}

/// Loads and caches the intro of a project.
#[derive(Debug)]
pub struct IntroLoader {
    project: PathBuf,
    home: Option<PathBuf>,
    config: IntroConfig,
    cache: Option<Intro>,
}

impl IntroLoader {
    pub fn new(
        project: impl Into<PathBuf>,
        home: Option<PathBuf>,
        config: IntroConfig,
    ) -> IntroLoader {
        IntroLoader {
            project: project.into(),
            home,
            config,
            cache: None,
        }
    }

    pub fn config(&self) -> &IntroConfig {
        &self.config
    }

    /// Replaces the configuration and clears the cache.
    pub fn update_config(&mut self, config: IntroConfig) {
        self.config = config;
        self.cache = None;
    }

    pub fn add_source(&mut self, source: IntroSource) {
        self.config.sources.retain(|s| s.id != source.id);
        self.config.sources.push(source);
        self.cache = None;
    }

    pub fn remove_source(&mut self, id: &str) -> bool {
        let before = self.config.sources.len();
        self.config.sources.retain(|s| s.id != id);
        self.cache = None;
        before != self.config.sources.len()
    }

    pub fn cached(&self) -> Option<&Intro> {
        self.cache.as_ref()
    }

    pub fn clear_cache(&mut self) {
        self.cache = None;
    }

    /// The intro, from the cache when loaded before.
    pub fn load(&mut self) -> &Intro {
        if self.cache.is_none() {
            self.cache = Some(self.read());
        }
        self.cache.get_or_insert_with(Intro::default)
    }

    /// Reads the sources again.
    pub fn reload(&mut self) -> &Intro {
        self.cache = None;
        self.load()
    }

    fn resolve(&self, path: &str) -> Option<PathBuf> {
        if let Some(rest) = path.strip_prefix("~/") {
            return self.home.as_ref().map(|h| h.join(rest));
        }
        let p = Path::new(path);
        Some(if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.project.join(p)
        })
    }

    fn read(&self) -> Intro {
        let mut intro = Intro::default();
        if !self.config.enabled {
            return intro;
        }
        let mut sources: Vec<&IntroSource> =
            self.config.sources.iter().filter(|s| s.enabled).collect();
        sources.sort_by_key(|s| s.priority); // stable: equal priorities keep their order
        let mut parts = Vec::new();
        for s in sources {
            let text = match &s.kind {
                IntroSourceKind::Inline(t) => t.clone(),
                IntroSourceKind::File(f) => {
                    let Some(path) = self.resolve(f) else {
                        continue;
                    };
                    match tokenjuice_untrusted::read(&path, tokenjuice_untrusted::MAX_SETTINGS_FILE)
                    {
                        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                        Err(e) if e.is_not_found() => continue,
                        Err(e) => {
                            intro.warnings.push(format!(
                                "intro source {} ({}) skipped: {e}",
                                s.id,
                                path.display()
                            ));
                            continue;
                        }
                    }
                }
            };
            let text = text.trim();
            if text.is_empty() {
                continue;
            }
            parts.push(text.to_string());
            intro.sources.push(s.id.clone());
        }
        let joined = parts.join(SEPARATOR);
        let max = self.config.max_length;
        if joined.chars().count() > max {
            let marker_len = TRUNCATION_MARKER.chars().count();
            let keep = max.saturating_sub(marker_len);
            let mut cut: String = joined.chars().take(keep).collect();
            if max >= marker_len {
                cut.push_str(TRUNCATION_MARKER);
            }
            intro.content = cut;
            intro.truncated = true;
        } else {
            intro.content = joined;
        }
        intro
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let project = t.path().join("p");
        let home = t.path().join("h");
        fs::create_dir_all(project.join(".codebuddy")).unwrap();
        fs::create_dir_all(home.join(".codebuddy")).unwrap();
        (t, project, home)
    }

    #[test]
    fn default_sources_in_priority_order() {
        let (_t, project, home) = setup();
        fs::write(home.join(".codebuddy/intro_hook.txt"), "global rules").unwrap();
        fs::write(project.join(".codebuddy/README.md"), "readme\n").unwrap();
        fs::write(
            project.join(".codebuddy/intro_hook.txt"),
            "You are a careful engineer.",
        )
        .unwrap();
        let mut l = IntroLoader::new(&project, Some(home), IntroConfig::default());
        let intro = l.load().clone();
        assert_eq!(
            intro.sources,
            ["project-intro", "project-readme", "global-intro"]
        );
        assert_eq!(
            intro.content,
            format!("You are a careful engineer.{SEPARATOR}readme{SEPARATOR}global rules")
        );
        assert!(!intro.truncated);
    }

    #[test]
    fn missing_empty_and_disabled_sources_are_skipped() {
        let (_t, project, home) = setup();
        fs::write(project.join(".codebuddy/README.md"), "   \n").unwrap();
        let mut cfg = IntroConfig::default();
        cfg.sources
            .push(IntroSource::inline("inline", "inline text", 0));
        cfg.sources.push(IntroSource {
            enabled: false,
            ..IntroSource::inline("off", "hidden", -1)
        });
        let mut l = IntroLoader::new(&project, Some(home), cfg);
        let intro = l.load();
        assert_eq!(intro.sources, ["inline"]);
        assert_eq!(intro.content, "inline text");
        let mut off = IntroLoader::new(
            &project,
            None,
            IntroConfig {
                enabled: false,
                ..IntroConfig::default()
            },
        );
        assert_eq!(off.load().content, "");
    }

    #[test]
    fn truncation_respects_the_cap_including_the_marker() {
        let (_t, project, _home) = setup();
        let cfg = IntroConfig {
            enabled: true,
            sources: vec![IntroSource::inline("big", &"é".repeat(10_000), 1)],
            max_length: 100,
        };
        let mut l = IntroLoader::new(&project, None, cfg);
        let intro = l.load();
        assert!(intro.truncated);
        assert_eq!(intro.content.chars().count(), 100);
        assert!(intro.content.ends_with(TRUNCATION_MARKER));
    }

    #[test]
    fn cache_until_config_changes_or_reload() {
        let (_t, project, _home) = setup();
        let f = project.join(".codebuddy/intro_hook.txt");
        fs::write(&f, "v1").unwrap();
        let mut l = IntroLoader::new(&project, None, IntroConfig::default());
        assert_eq!(l.load().content, "v1");
        fs::write(&f, "v2").unwrap();
        assert_eq!(l.load().content, "v1", "cached");
        assert_eq!(l.reload().content, "v2");
        fs::write(&f, "v3").unwrap();
        l.add_source(IntroSource::inline("extra", "x", 9));
        assert!(l.cached().is_none());
        assert_eq!(l.load().content, format!("v3{SEPARATOR}x"));
        assert!(l.remove_source("extra"));
        assert!(!l.remove_source("extra"));
        assert_eq!(l.load().content, "v3");
    }
}
