//! Dialects: each host's hook contract as data.
//!
//! A [`Dialect`] says where a host keeps its hook settings and in what shape, how it spells
//! events and tools, which output field rewrites the tool input, its default timeout and
//! unit, its matcher syntax and the environment variables it gives a hook. The engine is
//! the same for every host; only this table differs.

mod claude;
mod codebuddy;
mod codebuddy_cli;
pub(crate) mod codex;
mod cursor;
mod gemini;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use crate::error::HookError;
use crate::events::{EventKind, MatcherTarget, ToolClass};
use crate::matcher::MatcherSyntax;

/// The hosts we emulate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Host {
    CodeBuddy,
    /// CodeBuddy Code, the command-line agent (measured; differs from the IDE's reference).
    CodeBuddyCli,
    Claude,
    Cursor,
    Codex,
    Gemini,
}

impl Host {
    pub const ALL: &'static [Host] = &[
        Host::CodeBuddy,
        Host::CodeBuddyCli,
        Host::Claude,
        Host::Cursor,
        Host::Codex,
        Host::Gemini,
    ];

    /// The host's id as used on the command line (`codebuddy`, `claude`, …).
    pub fn id(self) -> &'static str {
        self.dialect().id
    }

    /// The dialect table of this host.
    pub fn dialect(self) -> &'static Dialect {
        match self {
            Host::CodeBuddy => &codebuddy::DIALECT,
            Host::CodeBuddyCli => &codebuddy_cli::DIALECT,
            Host::Claude => &claude::DIALECT,
            Host::Cursor => &cursor::DIALECT,
            Host::Codex => &codex::DIALECT,
            Host::Gemini => &gemini::DIALECT,
        }
    }
}

impl FromStr for Host {
    type Err = HookError;
    fn from_str(s: &str) -> Result<Host, HookError> {
        let lower = s.to_ascii_lowercase();
        let alias = match lower.as_str() {
            "claude-code" | "claudecode" => "claude",
            "code-buddy" => "codebuddy",
            "codebuddy-code" => "codebuddy-cli",
            "gemini-cli" => "gemini",
            "codex-cli" => "codex",
            other => other,
        };
        Host::ALL
            .iter()
            .copied()
            .find(|h| h.id() == alias)
            .ok_or_else(|| HookError::UnknownHost(s.to_string()))
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// Where a settings file sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    User,
    Project,
    Local,
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Scope::User => "user",
            Scope::Project => "project",
            Scope::Local => "local",
        })
    }
}

/// The directory a settings file is relative to.
#[derive(Clone, Copy, Debug)]
pub enum Anchor {
    /// The host's user configuration directory (one row of [`crate::homes`], the table the
    /// installers use too).
    User(&'static crate::homes::UserHome),
    /// `<project>/<dir>`.
    Project(&'static str),
}

/// Shape of a settings file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileShape {
    /// `{"hooks": {Event: [{matcher, hooks: [handler…]}]}}` (Claude, CodeBuddy, Codex, Gemini).
    MatcherGroupsJson,
    /// Codex `config.toml` with `[[hooks.Event]]` / `[[hooks.Event.hooks]]` tables.
    MatcherGroupsToml,
    /// Cursor `{"version": 1, "hooks": {event: [{command, matcher?, timeout?}]}}`.
    FlatJson,
}

/// One settings file location of a host.
#[derive(Clone, Copy, Debug)]
pub struct ConfigLocation {
    pub scope: Scope,
    pub anchor: Anchor,
    pub file: &'static str,
    pub shape: FileShape,
}

/// A resolved settings file path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigFile {
    pub path: PathBuf,
    pub scope: Scope,
    pub shape: FileShape,
}

/// A host event name and, where the host differs from the canonical event, its own matcher
/// target.
#[derive(Clone, Copy, Debug)]
pub struct HostEvent {
    pub kind: EventKind,
    pub name: &'static str,
    pub matcher_target: Option<MatcherTarget>,
}

pub(crate) const fn ev(kind: EventKind, name: &'static str) -> HostEvent {
    HostEvent {
        kind,
        name,
        matcher_target: None,
    }
}

/// Tool names of a host.
#[derive(Clone, Copy, Debug)]
pub struct ToolTable {
    /// Tool names the host sends in `tool_name`.
    pub names: &'static [&'static str],
    pub shell: &'static [&'static str],
    pub edit: &'static [&'static str],
    /// `(host tool name, aliases that match it)`. Matching is bidirectional.
    pub aliases: &'static [(&'static str, &'static [&'static str])],
}

/// How an input rewrite replaces the tool input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RewriteStyle {
    /// The object is the whole new input (keys left out are removed).
    Replace,
    /// The object is merged over the input (Gemini `tool_input`).
    Patch,
}

/// Where the rewrite field may appear in a hook's JSON output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Inside `hookSpecificOutput`.
    Nested,
    /// At the top level of the output object.
    TopLevel,
}

/// Which output fields a host reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputStyle {
    /// `continue`, `stopReason`, `systemMessage`, `suppressOutput`, `hookSpecificOutput{…}`.
    Claude,
    /// Cursor's snake_case: `permission`, `user_message`, `agent_message`, `updated_input`.
    Cursor,
    /// Claude fields plus top-level `decision`/`reason`; plain stdout is a systemMessage.
    Gemini,
}

/// How a dialect builds the stdin payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PayloadStyle {
    Claude,
    Cursor,
    Gemini,
}

/// Unit of `timeout` in the settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeoutUnit {
    Seconds,
    Milliseconds,
}

/// The input-rewrite contract of a host.
#[derive(Clone, Copy, Debug)]
pub struct RewriteSpec {
    pub fields: &'static [(&'static str, Placement)],
    pub style: RewriteStyle,
    /// The rewrite counts only when the same hook says `allow` (CodeBuddy, Codex).
    pub requires_allow: bool,
    /// Other hosts' spellings that this host ignores; reported as a warning.
    pub foreign_fields: &'static [&'static str],
    /// Which of several hooks' rewrites of one call the host applies.
    pub competing: CompetingRewrites,
}

/// A field a host adds to a payload.
#[derive(Clone, Copy, Debug)]
pub struct PayloadField {
    /// The events whose payload has it.
    pub on: On,
    pub name: &'static str,
    /// The field it comes after; when the payload has none such (`tool_response` before
    /// the tool ran), it is left out.
    pub after: &'static str,
    pub value: FieldValue,
}

/// A [`PayloadField`] (for the dialect tables).
pub(super) const fn field(
    on: On,
    name: &'static str,
    after: &'static str,
    value: FieldValue,
) -> PayloadField {
    PayloadField {
        on,
        name,
        after,
        value,
    }
}

/// Which events' payloads a [`PayloadField`] belongs to.
#[derive(Clone, Copy, Debug)]
pub enum On {
    /// Every tool event (PreToolUse, PostToolUse, …).
    ToolEvents,
    /// These events (canonical kinds).
    Events(&'static [crate::events::EventKind]),
}

impl On {
    pub fn applies(self, event: crate::events::EventKind, tool_event: bool) -> bool {
        match self {
            On::ToolEvents => tool_event,
            On::Events(kinds) => kinds.contains(&event) || kinds.contains(&event.base()),
        }
    }
}

/// How the toolkit fills a [`PayloadField`] (`--field` sets any other value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldValue {
    /// This string, as the host sent it in the measured run.
    Text(&'static str),
    /// This JSON value.
    Json(&'static str),
    /// A new random UUID.
    Uuid,
    /// 32 new random hex digits.
    Hex32,
    /// The call's id: this prefix and random hex digits, the same for every such field of
    /// one payload.
    CallId(&'static str),
    /// The value of this variable in the toolkit's environment, else the empty string (what
    /// the host takes it from is not known to the toolkit).
    Var(&'static str),
    /// The host sends no such field: it is taken out (`after` is then the field itself).
    Absent,
}

/// How a host resolves two hooks that both rewrite the same call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompetingRewrites {
    /// Change sets applied in configuration order (the later hook wins a shared key).
    ConfigOrder,
    /// The rewrite of the hook that finished last replaces the input whole (Claude Code
    /// 2.1 and Codex 0.171, measured in the real CLIs). Which hook that is depends on
    /// timing, as in the host.
    LastToFinish,
}

/// One host's hook contract.
#[derive(Debug)]
pub struct Dialect {
    pub host: Host,
    pub id: &'static str,
    pub display_name: &'static str,
    pub locations: &'static [ConfigLocation],
    pub events: &'static [HostEvent],
    pub tools: ToolTable,
    pub rewrite: RewriteSpec,
    pub output: OutputStyle,
    pub payload: PayloadStyle,
    pub default_timeout: Duration,
    pub timeout_unit: TimeoutUnit,
    pub matcher: MatcherSyntax,
    /// Variables set to the project directory for every hook.
    pub project_dir_env: &'static [&'static str],
    /// Variable set to the session id, if the host sets one.
    pub session_id_env: Option<&'static str>,
    /// Variables the host sets to a fixed value for every hook.
    pub constant_env: &'static [(&'static str, &'static str)],
    /// Fields the host adds to (or leaves out of) a payload beyond the documented ones
    /// (session_id, transcript_path, cwd, hook_event_name, the event's own fields, tool_name,
    /// tool_input), each placed after the field it follows in the host's payload.
    pub payload_fields: &'static [PayloadField],
    /// Handler key that turns failures and timeouts into a deny (Cursor `failClosed`).
    pub fail_closed_key: Option<&'static str>,
    /// The same command configured twice for an event runs once.
    pub dedupes_identical_commands: bool,
    /// Handler `type`s the host accepts.
    pub handler_types: &'static [&'static str],
    /// PreToolUse `continue: false` lets the tool run and ends the session after it
    /// (Claude Code 2.1, measured in the real CLI) instead of blocking the tool.
    pub pre_tool_stop_runs_tool: bool,
    /// Exit 2 blocks (or feeds stderr back) only when stderr holds a message; exit 2 with
    /// nothing on stderr is a failed, non-blocking hook (Codex).
    pub exit2_needs_stderr: bool,
    /// A PreToolUse or PostToolUse answer on stdout is read against the host's closed
    /// schema: an unknown field, a wrong type, a missing `hookEventName`, or a field the host
    /// does not support there (PreToolUse `continue: false`, `ask`, a `deny` without a
    /// reason; PostToolUse `suppressOutput`, a block without a reason, …) makes the whole
    /// answer a failed, non-blocking hook (Codex). PostToolUse `continue: false` then puts
    /// its reason in place of the tool's output, and the turn goes on.
    pub strict_tool_output: bool,
    /// Project files are read in every folder from the project root (the nearest folder up
    /// holding `.git`, or what the user's config.toml names in `project_root_markers`) down
    /// to the project directory, the root's first; a folder whose settings folder is the
    /// user's own is skipped (Codex). Otherwise only the project directory's.
    pub project_layers_from_root: bool,
    /// A PreToolUse hook that runs past its timeout stops the tool, and the model reads
    /// `Hook timed out after <N>ms` (the CodeBuddy CLI 2.117, measured); elsewhere the tool
    /// runs.
    pub pre_tool_timeout_blocks: bool,
    /// Source of the facts in this row.
    pub sources: &'static str,
}

/// The home directory and environment a host would see. Tests build one over temp dirs;
/// [`HostEnv::from_process`] reads the real environment.
#[derive(Clone, Debug, Default)]
pub struct HostEnv {
    pub home: Option<PathBuf>,
    pub vars: BTreeMap<String, String>,
}

impl HostEnv {
    /// `HOME` and the variables dialects read (see [`crate::homes`]) from the
    /// current process.
    pub fn from_process() -> HostEnv {
        let mut vars = BTreeMap::new();
        for (k, v) in std::env::vars() {
            vars.insert(k, v);
        }
        let home = vars
            .get("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from);
        HostEnv { home, vars }
    }

    /// An environment with only a home directory.
    pub fn with_home(home: impl Into<PathBuf>) -> HostEnv {
        HostEnv {
            home: Some(home.into()),
            vars: BTreeMap::new(),
        }
    }

    /// Adds or replaces a variable.
    pub fn set(mut self, key: &str, value: impl Into<String>) -> HostEnv {
        self.vars.insert(key.to_string(), value.into());
        self
    }

    pub fn var(&self, key: &str) -> Option<&str> {
        self.vars
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }
}

impl Dialect {
    /// The settings files this host reads for `project`, in configuration order.
    /// User files are skipped when no home directory is known.
    pub fn config_files(&self, env: &HostEnv, project: &Path) -> Vec<ConfigFile> {
        let file = |dir: PathBuf, loc: &ConfigLocation| ConfigFile {
            path: dir.join(loc.file),
            scope: loc.scope,
            shape: loc.shape,
        };
        let user_dir = |loc: &ConfigLocation| match loc.anchor {
            Anchor::User(home) => home.resolve(env.home.as_deref(), |k| env.var(k)),
            Anchor::Project(_) => None,
        };
        if !self.project_layers_from_root {
            return self
                .locations
                .iter()
                .filter_map(|loc| {
                    let dir = match loc.anchor {
                        Anchor::User(_) => user_dir(loc)?,
                        Anchor::Project(dir) => project.join(dir),
                    };
                    Some(file(dir, loc))
                })
                .collect();
        }
        // the user's files, then each project folder's, the root's first
        let mut files: Vec<ConfigFile> = self
            .locations
            .iter()
            .filter_map(|loc| Some(file(user_dir(loc)?, loc)))
            .collect();
        let user_dirs: Vec<PathBuf> = self.locations.iter().filter_map(user_dir).collect();
        // the markers come from the user's TOML settings (Codex's config.toml)
        let config = files
            .iter()
            .filter(|f| f.scope == Scope::User && f.shape == FileShape::MatcherGroupsToml)
            .find_map(|f| {
                let bytes =
                    tokenjuice_untrusted::read(&f.path, tokenjuice_untrusted::MAX_SETTINGS_FILE)
                        .ok()?;
                toml::from_str::<serde_json::Value>(std::str::from_utf8(&bytes).ok()?).ok()
            });
        let root = codex::project_root(project, &codex::root_markers(config.as_ref()));
        let mut dirs: Vec<&Path> = project.ancestors().take_while(|d| *d != root).collect();
        dirs.push(root);
        dirs.reverse();
        for base in dirs {
            for loc in self.locations {
                if let Anchor::Project(sub) = loc.anchor {
                    let dir = base.join(sub);
                    if !user_dirs.contains(&dir) {
                        files.push(file(dir, loc));
                    }
                }
            }
        }
        files
    }

    /// The host's name for a canonical event, if the host fires it.
    pub fn event_name(&self, kind: EventKind) -> Option<&'static str> {
        self.host_event(kind).map(|e| e.name)
    }

    pub fn host_event(&self, kind: EventKind) -> Option<&HostEvent> {
        self.events.iter().find(|e| e.kind == kind)
    }

    /// The canonical event for a host event name (exact spelling).
    pub fn event_from_host_name(&self, name: &str) -> Option<EventKind> {
        self.events.iter().find(|e| e.name == name).map(|e| e.kind)
    }

    /// Resolves a user-given event name: the host's spelling or the canonical one.
    pub fn resolve_event(&self, name: &str) -> Result<EventKind, HookError> {
        if let Some(kind) = self.event_from_host_name(name) {
            return Ok(kind);
        }
        if let Some(kind) = EventKind::from_name(name) {
            if self.host_event(kind).is_some()
                || kind
                    .view()
                    .is_some_and(|(b, _)| self.host_event(b).is_some())
            {
                return Ok(kind);
            }
            return Err(HookError::EventNotSupported {
                host: self.id,
                event: name.to_string(),
                known: self.event_list(),
            });
        }
        Err(HookError::UnknownEvent {
            host: self.id,
            event: name.to_string(),
            known: self.event_list(),
        })
    }

    fn event_list(&self) -> String {
        self.events
            .iter()
            .map(|e| e.name)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Where the matcher of `kind` looks, for this host.
    pub fn matcher_target(&self, kind: EventKind) -> MatcherTarget {
        self.host_event(kind)
            .and_then(|e| e.matcher_target)
            .unwrap_or_else(|| kind.spec().matcher_target)
    }

    /// A tool's name plus every alias that should match it (bidirectional).
    pub fn tool_names_for_matching<'a>(&self, tool: &'a str) -> Vec<&'a str>
    where
        'static: 'a,
    {
        let mut out: Vec<&'a str> = vec![tool];
        for (host_name, aliases) in self.tools.aliases {
            if *host_name == tool || aliases.contains(&tool) {
                for n in std::iter::once(host_name).chain(aliases.iter()) {
                    if !out.contains(n) {
                        out.push(n);
                    }
                }
            }
        }
        out
    }

    /// The host's own spelling of a tool name given in any alias (`Bash` → `execute_command`
    /// for CodeBuddy). Unknown names are returned unchanged.
    pub fn canonical_tool_name(&self, tool: &str) -> String {
        if self.tools.names.contains(&tool) {
            return tool.to_string();
        }
        for (host_name, aliases) in self.tools.aliases {
            if aliases.contains(&tool) {
                return (*host_name).to_string();
            }
        }
        tool.to_string()
    }

    /// Tools of a class (shell tools for PreBash …).
    pub fn tools_of(&self, class: ToolClass) -> &'static [&'static str] {
        match class {
            ToolClass::Shell => self.tools.shell,
            ToolClass::Edit => self.tools.edit,
        }
    }

    /// True when `tool` (or an alias of it) belongs to `class`.
    pub fn tool_in_class(&self, tool: &str, class: ToolClass) -> bool {
        let members = self.tools_of(class);
        self.tool_names_for_matching(tool)
            .iter()
            .any(|n| members.contains(n))
    }

    /// Converts a settings `timeout` number to a duration in the host's unit.
    pub fn timeout_from_number(&self, n: f64) -> Option<Duration> {
        if !n.is_finite() || n <= 0.0 {
            return None;
        }
        let secs = match self.timeout_unit {
            TimeoutUnit::Seconds => n,
            TimeoutUnit::Milliseconds => n / 1000.0,
        };
        Duration::try_from_secs_f64(secs).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_ids_parse_and_default_aliases() {
        for &h in Host::ALL {
            assert_eq!(h.id().parse::<Host>().unwrap(), h);
            assert_eq!(h.dialect().host, h);
        }
        assert_eq!("Claude-Code".parse::<Host>().unwrap(), Host::Claude);
        let err = "vim".parse::<Host>().unwrap_err().to_string();
        assert!(err.contains("codebuddy") && err.contains("vim"), "{err}");
    }

    #[test]
    fn every_dialect_maps_session_and_tool_events() {
        for &h in Host::ALL {
            let d = h.dialect();
            assert!(
                d.event_name(EventKind::PreToolUse).is_some(),
                "{h} PreToolUse"
            );
            assert!(
                d.event_name(EventKind::SessionStart).is_some(),
                "{h} SessionStart"
            );
            assert!(!d.tools.shell.is_empty(), "{h} shell tool");
            for e in d.events {
                assert_eq!(d.event_from_host_name(e.name), Some(e.kind));
            }
        }
    }

    #[test]
    fn resolve_event_accepts_host_and_canonical_spelling() {
        let g = Host::Gemini.dialect();
        assert_eq!(
            g.resolve_event("BeforeTool").unwrap(),
            EventKind::PreToolUse
        );
        assert_eq!(
            g.resolve_event("PreToolUse").unwrap(),
            EventKind::PreToolUse
        );
        assert_eq!(g.resolve_event("PreBash").unwrap(), EventKind::PreBash);
        let err = Host::CodeBuddy
            .dialect()
            .resolve_event("Notification")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("codebuddy") && err.contains("SessionStart"),
            "{err}"
        );
        let err = g.resolve_event("Nope").unwrap_err().to_string();
        assert!(err.contains("Nope"), "{err}");
    }

    #[test]
    fn timeouts_convert_in_the_host_unit() {
        assert_eq!(
            Host::CodeBuddy.dialect().timeout_from_number(10.0),
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            Host::Gemini.dialect().timeout_from_number(1500.0),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(Host::Claude.dialect().timeout_from_number(0.0), None);
        assert_eq!(Host::Claude.dialect().timeout_from_number(-3.0), None);
    }

    #[test]
    fn config_dir_env_overrides_home() {
        let env = HostEnv::with_home("/h").set("CLAUDE_CONFIG_DIR", "/cfg");
        let files = Host::Claude.dialect().config_files(&env, Path::new("/p"));
        assert_eq!(files[0].path, PathBuf::from("/cfg/settings.json"));
        let env = HostEnv::with_home("/h");
        let files = Host::Claude.dialect().config_files(&env, Path::new("/p"));
        assert_eq!(files[0].path, PathBuf::from("/h/.claude/settings.json"));
        // no home: user files are skipped, project files remain
        let files = Host::Claude
            .dialect()
            .config_files(&HostEnv::default(), Path::new("/p"));
        assert!(files.iter().all(|f| f.scope != Scope::User));
        assert_eq!(files.len(), 2);
    }
}
