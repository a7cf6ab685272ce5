//! Loading hook settings: every file of a dialect, merged in configuration order, with
//! provenance for each handler and diagnostics that name the file, the line/column (syntax
//! errors) or the entry (shape errors). A broken file is reported and skipped; the other
//! files still load. Within a good file, a broken entry is skipped and the rest loads.

use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::dialects::{ConfigFile, Dialect, FileShape, Host, HostEnv, Scope};
use crate::events::{EventKind, MatcherTarget};
use crate::handler::{Handler, HandlerKind};
use crate::matcher::Matcher;

/// Where a handler was configured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Provenance {
    pub path: PathBuf,
    pub scope: Scope,
    /// Path of the entry inside the file, e.g. `hooks.PreToolUse[0].hooks[1]`.
    pub entry: String,
}

impl fmt::Display for Provenance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}) {}", self.path.display(), self.scope, self.entry)
    }
}

/// One handler from the settings, with its matcher and provenance.
#[derive(Clone, Debug)]
pub struct ConfiguredHook {
    /// The event key as spelled in the file.
    pub event_name: String,
    pub event: EventKind,
    /// The matcher string as written (None when absent).
    pub matcher_source: Option<String>,
    pub matcher: Matcher,
    /// Index of the matcher group in configuration order (across all files).
    pub group: usize,
    /// Gemini `sequential: true` group.
    pub sequential: bool,
    pub handler: Handler,
    pub provenance: Provenance,
    /// Codex: where its trust is recorded and the hash it must have (see
    /// [`super::codex_trust`]).
    pub codex_trust: Option<super::codex_trust::TrustId>,
}

/// Severity of a settings diagnostic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// A problem found while loading settings.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    pub path: PathBuf,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry: Option<String>,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let (Some(l), Some(c)) = (self.line, self.column) {
            write!(f, ":{l}:{c}")?;
        }
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, ": {sev}: ")?;
        if let Some(e) = &self.entry {
            write!(f, "{e}: ")?;
        }
        f.write_str(&self.message)
    }
}

/// What happened to one settings file.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileStatus {
    /// The file does not exist (normal).
    Missing,
    /// Loaded; number of handlers taken from it.
    Loaded { hooks: usize },
    /// Unreadable or not parseable: skipped entirely (see diagnostics).
    Broken,
}

/// A settings file the dialect looked at.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LoadedFile {
    pub path: PathBuf,
    pub scope: Scope,
    pub status: FileStatus,
}

/// All hooks of a dialect for one project, in configuration order.
#[derive(Clone, Debug)]
pub struct HookSettings {
    pub dialect: &'static Dialect,
    pub hooks: Vec<ConfiguredHook>,
    pub files: Vec<LoadedFile>,
    pub diagnostics: Vec<Diagnostic>,
}

impl HookSettings {
    /// Loads every settings file `host` reads for `project`.
    pub fn load(host: Host, project: &Path, env: &HostEnv) -> HookSettings {
        let dialect = host.dialect();
        let files = dialect.config_files(env, project);
        let mut s = HookSettings::load_files(dialect, &files);
        if host == Host::Gemini {
            s.keep_gemini_project_hooks_of_trusted_folders(project, env);
        }
        s
    }

    /// Gemini runs a project's hooks only in a folder it trusts (see
    /// [`super::gemini_trust`]); otherwise they are left out, with a warning.
    fn keep_gemini_project_hooks_of_trusted_folders(&mut self, project: &Path, env: &HostEnv) {
        use super::gemini_trust::{folder_trust, FolderTrust};
        let project_files: Vec<PathBuf> = self
            .files
            .iter()
            .filter(|f| {
                f.scope == Scope::Project
                    && matches!(f.status, FileStatus::Loaded { hooks } if hooks > 0)
            })
            .map(|f| f.path.clone())
            .collect();
        if project_files.is_empty() {
            return;
        }
        let user_settings = self
            .files
            .iter()
            .find(|f| f.scope == Scope::User)
            .and_then(|f| {
                let bytes =
                    tokenjuice_untrusted::read(&f.path, tokenjuice_untrusted::MAX_SETTINGS_FILE)
                        .ok()?;
                serde_json::from_slice::<Value>(&bytes).ok()
            });
        let trusted_folders = env
            .var("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
            .map(PathBuf::from)
            .or_else(|| {
                crate::homes::GEMINI
                    .resolve(env.home.as_deref(), |k| env.var(k))
                    .map(|d| d.join("trustedFolders.json"))
            });
        let Some(trusted_folders) = trusted_folders else {
            return;
        };
        let why = match folder_trust(
            |k| env.var(k).map(str::to_string),
            user_settings.as_ref(),
            &trusted_folders,
            project,
        ) {
            FolderTrust::Trusted => return,
            FolderTrust::Untrusted(why) => why,
        };
        for f in &mut self.files {
            if let FileStatus::Loaded { hooks } = &mut f.status {
                if project_files.contains(&f.path) {
                    self.diagnostics.push(warning(
                        &f.path,
                        None,
                        format!(
                            "{} is not a trusted folder ({why}): Gemini CLI does not run this project's {hooks} hook(s) there (`--skip-trust` does not change that); trust the folder (a TRUST_FOLDER rule in {}, or GEMINI_CLI_TRUST_WORKSPACE=true) to run them",
                            project.display(),
                            trusted_folders.display()
                        ),
                    ));
                    *hooks = 0;
                }
            }
        }
        self.hooks
            .retain(|h| !project_files.contains(&h.provenance.path));
    }

    /// Loads the given files (in this order) under `dialect`'s rules.
    pub fn load_files(dialect: &'static Dialect, files: &[ConfigFile]) -> HookSettings {
        let mut s = HookSettings {
            dialect,
            hooks: Vec::new(),
            files: Vec::new(),
            diagnostics: Vec::new(),
        };
        let mut group = 0usize;
        // Codex: the user's config.toml, which holds the hooks' trust records
        let mut codex_state: Option<Value> = None;
        for file in files {
            // a project's settings may come with a cloned repository: regular files only,
            // never blocking, size-capped
            let read =
                tokenjuice_untrusted::read(&file.path, tokenjuice_untrusted::MAX_SETTINGS_FILE);
            let text = match read {
                Ok(bytes) => bytes,
                Err(e) if e.is_not_found() => {
                    s.files.push(LoadedFile {
                        path: file.path.clone(),
                        scope: file.scope,
                        status: FileStatus::Missing,
                    });
                    continue;
                }
                Err(e) => {
                    s.diagnostics.push(error(
                        &file.path,
                        None,
                        format!("cannot read the file: {e}; check its permissions"),
                    ));
                    s.files.push(LoadedFile {
                        path: file.path.clone(),
                        scope: file.scope,
                        status: FileStatus::Broken,
                    });
                    continue;
                }
            };
            let text = match String::from_utf8(text) {
                Ok(t) => t,
                Err(_) => {
                    s.diagnostics.push(error(
                        &file.path,
                        None,
                        "the file is not valid UTF-8; save it as UTF-8".into(),
                    ));
                    s.files.push(LoadedFile {
                        path: file.path.clone(),
                        scope: file.scope,
                        status: FileStatus::Broken,
                    });
                    continue;
                }
            };
            if dialect.host == Host::Codex
                && file.scope == Scope::User
                && file.shape == FileShape::MatcherGroupsToml
            {
                codex_state = toml::from_str::<Value>(&text).ok();
            }
            let before = s.hooks.len();
            let ok = parse_into(
                dialect,
                &text,
                file,
                &mut group,
                &mut s.hooks,
                &mut s.diagnostics,
            );
            let status = if ok {
                FileStatus::Loaded {
                    hooks: s.hooks.len() - before,
                }
            } else {
                FileStatus::Broken
            };
            s.files.push(LoadedFile {
                path: file.path.clone(),
                scope: file.scope,
                status,
            });
        }
        if dialect.host == Host::Codex {
            s.keep_codex_hooks_of_trusted_projects(codex_state.as_ref());
            s.keep_trusted_codex_hooks(codex_state.as_ref());
        }
        s
    }

    /// Codex loads a project's `.codex` folder only when the user's config.toml marks the
    /// project trusted (see [`super::codex_trust::project_trust`]); the hooks of another
    /// project's files are left out, with a warning for each such file.
    fn keep_codex_hooks_of_trusted_projects(&mut self, config: Option<&Value>) {
        use super::codex_trust::{project_trust, ProjectTrust};
        let config_file = self
            .files
            .iter()
            .find(|f| f.scope == Scope::User && f.path.ends_with("config.toml"))
            .map(|f| f.path.display().to_string())
            .unwrap_or_else(|| "the user's config.toml".into());
        let mut left_out: Vec<PathBuf> = Vec::new();
        for f in &mut self.files {
            let FileStatus::Loaded { hooks } = &mut f.status else {
                continue;
            };
            if f.scope != Scope::Project || *hooks == 0 {
                continue;
            }
            // <folder>/.codex/<file>
            let Some(layer_dir) = f.path.parent().and_then(Path::parent) else {
                continue;
            };
            let why = match project_trust(config, layer_dir) {
                ProjectTrust::Trusted => continue,
                ProjectTrust::Untrusted { key } => format!(
                    "{key} is not a trusted project in {config_file} (its `[projects.\"{key}\"] trust_level` is not \"trusted\"): Codex does not load this project's .codex folder, so none of its {hooks} hook(s) run; mark the project trusted to run them"
                ),
                ProjectTrust::Unset => format!(
                    "{} is not a trusted project ({config_file} has no `[projects.\"{}\"] trust_level = \"trusted\"`, nor for its project or repository root): Codex does not load this project's .codex folder, so none of its {hooks} hook(s) run; mark the project trusted to run them",
                    layer_dir.display(),
                    layer_dir.display()
                ),
            };
            self.diagnostics.push(warning(&f.path, None, why));
            left_out.push(f.path.clone());
            *hooks = 0;
        }
        self.hooks
            .retain(|h| !left_out.contains(&h.provenance.path));
    }

    /// Codex runs a hook from these files only when the user's config.toml trusts it as it
    /// is now (see [`super::codex_trust`]); the others are left out, each with a warning
    /// that says why and how to trust it.
    fn keep_trusted_codex_hooks(&mut self, config: Option<&Value>) {
        use super::codex_trust::{records, trust, Trust};
        let records = config.map(records).unwrap_or_default();
        let mut dropped: Vec<PathBuf> = Vec::new();
        let diagnostics = &mut self.diagnostics;
        self.hooks.retain(|h| {
            let Some(id) = &h.codex_trust else {
                return true;
            };
            let why = match trust(id, &records) {
                Trust::Trusted => return true,
                Trust::Disabled => format!("turned off in the user's config.toml (`[hooks.state.\"{}\"] enabled = false`): Codex does not run it", id.key),
                Trust::Untrusted { changed: true } => format!("changed since it was trusted (its `[hooks.state.\"{}\"] trusted_hash` in the user's config.toml is another): Codex skips it until the user trusts it again (Codex offers to review new or changed hooks when it starts)", id.key),
                Trust::Untrusted { changed: false } if id.hash.is_none() => "an async hook, which Codex never trusts: Codex skips it".to_string(),
                Trust::Untrusted { changed: false } => format!("not trusted (no `[hooks.state.\"{}\"]` record in the user's config.toml): Codex skips it without a word until the user trusts it (Codex offers to review new or changed hooks when it starts)", id.key),
            };
            diagnostics.push(warning(
                &h.provenance.path,
                Some(h.provenance.entry.clone()),
                why,
            ));
            dropped.push(h.provenance.path.clone());
            false
        });
        for f in &mut self.files {
            if let FileStatus::Loaded { hooks } = &mut f.status {
                *hooks -= dropped.iter().filter(|p| **p == f.path).count();
            }
        }
    }

    /// Parses one settings text (e.g. for `hooks validate FILE`).
    pub fn parse_text(dialect: &'static Dialect, text: &str, file: &ConfigFile) -> HookSettings {
        let mut s = HookSettings {
            dialect,
            hooks: Vec::new(),
            files: Vec::new(),
            diagnostics: Vec::new(),
        };
        let mut group = 0;
        let ok = parse_into(
            dialect,
            text,
            file,
            &mut group,
            &mut s.hooks,
            &mut s.diagnostics,
        );
        let status = if ok {
            FileStatus::Loaded {
                hooks: s.hooks.len(),
            }
        } else {
            FileStatus::Broken
        };
        s.files.push(LoadedFile {
            path: file.path.clone(),
            scope: file.scope,
            status,
        });
        s
    }

    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }

    /// Handlers configured for the host event that `kind` fires, in configuration order.
    pub fn for_event(&self, kind: EventKind) -> impl Iterator<Item = &ConfiguredHook> {
        self.hooks.iter().filter(move |h| h.event == kind)
    }
}

fn error(path: &Path, entry: Option<String>, message: String) -> Diagnostic {
    Diagnostic {
        severity: Severity::Error,
        path: path.to_path_buf(),
        line: None,
        column: None,
        entry,
        message,
    }
}

fn warning(path: &Path, entry: Option<String>, message: String) -> Diagnostic {
    Diagnostic {
        severity: Severity::Warning,
        path: path.to_path_buf(),
        line: None,
        column: None,
        entry,
        message,
    }
}

fn line_col(text: &str, byte: usize) -> (usize, usize) {
    let mut end = byte.min(text.len());
    while end > 0 && !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let line = before.matches('\n').count() + 1;
    let col = before
        .rsplit('\n')
        .next()
        .map(|l| l.chars().count())
        .unwrap_or(0)
        + 1;
    (line, col)
}

/// Parses `text` and appends its hooks. Returns false when the whole file is unusable.
fn parse_into(
    dialect: &'static Dialect,
    text: &str,
    file: &ConfigFile,
    group: &mut usize,
    hooks: &mut Vec<ConfiguredHook>,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let path = &file.path;
    let root: Value = match file.shape {
        FileShape::MatcherGroupsJson | FileShape::FlatJson => {
            let trimmed = text.strip_prefix('\u{feff}').unwrap_or(text);
            if trimmed.trim().is_empty() {
                diags.push(warning(
                    path,
                    None,
                    "the file is empty; it defines no hooks".into(),
                ));
                return true;
            }
            match serde_json::from_str(trimmed) {
                Ok(v) => v,
                Err(e) => {
                    diags.push(Diagnostic {
                        severity: Severity::Error,
                        path: path.clone(),
                        line: Some(e.line()),
                        column: Some(e.column()),
                        entry: None,
                        message: format!("invalid JSON: {e}; fix the syntax (this file is skipped, other settings files still load)"),
                    });
                    return false;
                }
            }
        }
        FileShape::MatcherGroupsToml => match toml::from_str::<Value>(text) {
            Ok(v) => v,
            Err(e) => {
                let (line, column) = match e.span() {
                    Some(span) => {
                        let (l, c) = line_col(text, span.start);
                        (Some(l), Some(c))
                    }
                    None => (None, None),
                };
                let msg = e.message().trim().to_string();
                diags.push(Diagnostic {
                    severity: Severity::Error,
                    path: path.clone(),
                    line,
                    column,
                    entry: None,
                    message: format!("invalid TOML: {msg}; fix the syntax (this file is skipped, other settings files still load)"),
                });
                return false;
            }
        },
    };
    let Value::Object(root) = root else {
        diags.push(error(
            path,
            None,
            "the top level must be an object (`{\"hooks\": {...}}`)".into(),
        ));
        return false;
    };
    if file.shape == FileShape::FlatJson {
        match root.get("version") {
            Some(Value::Number(n)) if n.as_u64() == Some(1) => {}
            Some(other) => {
                diags.push(error(
                    path,
                    Some("version".into()),
                    format!("must be 1, found {other}; Cursor refuses other versions"),
                ));
                return false;
            }
            None => {
                diags.push(error(
                    path,
                    Some("version".into()),
                    "missing `\"version\": 1`; Cursor requires it".into(),
                ));
                return false;
            }
        }
    }
    let Some(hooks_value) = root.get("hooks") else {
        return true; // a settings file without hooks is fine
    };
    let Value::Object(events) = hooks_value else {
        diags.push(error(
            path,
            Some("hooks".into()),
            "must be an object mapping event names to lists".into(),
        ));
        return false;
    };
    let known = dialect
        .events
        .iter()
        .map(|e| e.name)
        .collect::<Vec<_>>()
        .join(", ");
    for (event_name, groups) in events {
        // Codex's config.toml keeps its record of each hook under `[hooks.state."<key>"]`
        // (`enabled`, `trusted_hash`), beside the events (openai/codex
        // codex-rs/config/src/hook_config.rs, `HooksToml.state`): not an event
        if file.shape == FileShape::MatcherGroupsToml && event_name == "state" {
            continue;
        }
        let entry = format!("hooks.{event_name}");
        let Some(kind) = dialect.event_from_host_name(event_name) else {
            let hint = EventKind::from_name(event_name)
                .and_then(|k| dialect.event_name(k))
                .map(|n| format!(" ({} spells it `{n}`)", dialect.display_name))
                .unwrap_or_default();
            diags.push(warning(path, Some(entry), format!("unknown event `{event_name}` for {}{hint}; its hooks never run. Known events: {known}", dialect.id)));
            continue;
        };
        let Value::Array(groups) = groups else {
            diags.push(error(path, Some(entry), "must be a list".into()));
            continue;
        };
        for (gi, g) in groups.iter().enumerate() {
            let gentry = format!("{entry}[{gi}]");
            let Value::Object(g) = g else {
                diags.push(error(path, Some(gentry), "must be an object".into()));
                continue;
            };
            if file.shape == FileShape::FlatJson {
                // Cursor: each entry is its own handler with an optional matcher.
                let Some((matcher_src, matcher)) =
                    group_matcher(dialect, kind, g, path, &gentry, diags)
                else {
                    continue;
                };
                if let Some(handler) = parse_handler(dialect, g, path, &gentry, true, diags) {
                    hooks.push(ConfiguredHook {
                        codex_trust: None,
                        event_name: event_name.clone(),
                        event: kind,
                        matcher_source: matcher_src,
                        matcher,
                        group: *group,
                        sequential: false,
                        handler,
                        provenance: Provenance {
                            path: path.clone(),
                            scope: file.scope,
                            entry: gentry,
                        },
                    });
                }
                *group += 1;
                continue;
            }
            let Some((matcher_src, matcher)) =
                group_matcher(dialect, kind, g, path, &gentry, diags)
            else {
                continue;
            };
            let sequential = match g.get("sequential") {
                None => false,
                Some(Value::Bool(b)) => {
                    if dialect.host != Host::Gemini {
                        diags.push(warning(
                            path,
                            Some(format!("{gentry}.sequential")),
                            format!(
                                "`sequential` is a Gemini CLI option; {} ignores it",
                                dialect.display_name
                            ),
                        ));
                        false
                    } else {
                        *b
                    }
                }
                Some(_) => {
                    diags.push(error(
                        path,
                        Some(format!("{gentry}.sequential")),
                        "must be true or false".into(),
                    ));
                    false
                }
            };
            let list = match g.get("hooks") {
                Some(Value::Array(list)) => list,
                Some(_) => {
                    diags.push(error(
                        path,
                        Some(format!("{gentry}.hooks")),
                        "must be a list of handlers".into(),
                    ));
                    continue;
                }
                None => {
                    diags.push(error(path, Some(gentry), "missing `hooks` list (expected {\"matcher\": …, \"hooks\": [{\"type\": \"command\", \"command\": …}]})".into()));
                    continue;
                }
            };
            for (hi, h) in list.iter().enumerate() {
                let hentry = format!("{gentry}.hooks[{hi}]");
                let Value::Object(h) = h else {
                    diags.push(error(path, Some(hentry), "must be an object".into()));
                    continue;
                };
                if let Some(handler) = parse_handler(dialect, h, path, &hentry, false, diags) {
                    let codex_trust = (dialect.host == Host::Codex).then(|| {
                        let abs = std::path::absolute(path).unwrap_or_else(|_| path.clone());
                        super::codex_trust::identity(
                            &abs,
                            event_name,
                            gi,
                            hi,
                            matcher_src.as_deref(),
                            h,
                        )
                    });
                    hooks.push(ConfiguredHook {
                        codex_trust,
                        event_name: event_name.clone(),
                        event: kind,
                        matcher_source: matcher_src.clone(),
                        matcher: matcher.clone(),
                        group: *group,
                        sequential,
                        handler,
                        provenance: Provenance {
                            path: path.clone(),
                            scope: file.scope,
                            entry: hentry,
                        },
                    });
                }
            }
            *group += 1;
        }
    }
    true
}

/// The `matcher` of a group (or of a flat entry), read and compiled; `None` after an error
/// diagnostic, so the caller skips the entry.
fn group_matcher(
    dialect: &Dialect,
    kind: EventKind,
    g: &serde_json::Map<String, Value>,
    path: &Path,
    gentry: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<(Option<String>, Matcher)> {
    let src = match g.get("matcher") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            diags.push(error(
                path,
                Some(format!("{gentry}.matcher")),
                "must be a string: a tool name, an `A|B` list or a regular expression".into(),
            ));
            return None;
        }
    };
    let matcher = compile_matcher(dialect, kind, src.as_deref(), path, gentry, diags)?;
    Some((src, matcher))
}

fn compile_matcher(
    dialect: &Dialect,
    kind: EventKind,
    src: Option<&str>,
    path: &Path,
    entry: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<Matcher> {
    if dialect.matcher_target(kind) == MatcherTarget::Ignored {
        if let Some(s) = src.filter(|s| !s.is_empty() && *s != "*") {
            diags.push(warning(
                path,
                Some(format!("{entry}.matcher")),
                format!(
                    "{} has no matcher; `{s}` is ignored and the hooks run for every {}",
                    kind, kind
                ),
            ));
        }
        return Some(Matcher::All);
    }
    match Matcher::parse(src, dialect.matcher) {
        Ok(m) => Some(m),
        Err(msg) => {
            let pattern = src.unwrap_or_default();
            diags.push(error(
                path,
                Some(format!("{entry}.matcher")),
                format!("invalid matcher regex `{pattern}`: {msg}; escape special characters or use a plain name / `A|B` list (this matcher group is skipped)"),
            ));
            None
        }
    }
}

fn parse_handler(
    dialect: &Dialect,
    h: &Map<String, Value>,
    path: &Path,
    entry: &str,
    flat: bool,
    diags: &mut Vec<Diagnostic>,
) -> Option<Handler> {
    let ty = match h.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(_) => {
            diags.push(error(
                path,
                Some(format!("{entry}.type")),
                "must be a string (\"command\")".into(),
            ));
            return None;
        }
        None => {
            if !flat {
                diags.push(warning(
                    path,
                    Some(entry.to_string()),
                    "missing `type`; treated as \"command\" (write \"type\": \"command\")".into(),
                ));
            }
            "command"
        }
    };
    if !dialect.handler_types.contains(&ty) {
        diags.push(error(
            path,
            Some(format!("{entry}.type")),
            format!("handler type `{ty}` is not supported by {} (supported: {}); this handler is skipped", dialect.display_name, dialect.handler_types.join(", ")),
        ));
        return None;
    }
    let text_field = if ty == "command" { "command" } else { "prompt" };
    let text = match h.get(text_field) {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(Value::String(_)) => {
            diags.push(error(
                path,
                Some(format!("{entry}.{text_field}")),
                format!("`{text_field}` is empty; this handler is skipped"),
            ));
            return None;
        }
        Some(_) => {
            diags.push(error(
                path,
                Some(format!("{entry}.{text_field}")),
                format!("`{text_field}` must be a string"),
            ));
            return None;
        }
        None => {
            diags.push(error(
                path,
                Some(entry.to_string()),
                format!("missing `{text_field}`; this handler is skipped"),
            ));
            return None;
        }
    };
    let kind = match ty {
        "command" => HandlerKind::Command { command: text },
        "prompt" => HandlerKind::Prompt { prompt: text },
        _ => HandlerKind::Agent { prompt: text },
    };
    let timeout = match h.get("timeout") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => match n.as_f64().and_then(|f| dialect.timeout_from_number(f)) {
            Some(d) => Some(d),
            None => {
                diags.push(warning(
                    path,
                    Some(format!("{entry}.timeout")),
                    format!(
                        "timeout {n} is not a positive number; the default {} s is used",
                        dialect.default_timeout.as_secs_f64()
                    ),
                ));
                None
            }
        },
        Some(other) => {
            diags.push(warning(
                path,
                Some(format!("{entry}.timeout")),
                format!(
                    "timeout must be a number, found {other}; the default {} s is used",
                    dialect.default_timeout.as_secs_f64()
                ),
            ));
            None
        }
    };
    let fail_closed = match dialect.fail_closed_key.and_then(|k| h.get(k)) {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            diags.push(warning(
                path,
                Some(entry.to_string()),
                "failClosed must be true or false; false is used".into(),
            ));
            false
        }
    };
    Some(Handler {
        kind,
        timeout,
        fail_closed,
    })
}

#[cfg(test)]
#[path = "discovery_tests.rs"]
mod tests;
