//! Session persistence: chat sessions as one JSON file each, per project.
//!
//! `session-<id>.json` files in a storage directory (default `~/.codebuddy/sessions`).
//! Writes are atomic (temp file + rename) so a crash never leaves half a session. Sessions
//! are trimmed to the newest `max_messages` on save, and [`SessionStore::cleanup`] deletes
//! this project's oldest sessions beyond `max_sessions`. A corrupt file is skipped with a
//! warning by `list`, never fatal, and never overwritten by a new session.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::clock;

const FORMAT_VERSION: u32 = 1;

/// Errors of the session store.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("no session is active: call start() first")]
    NoSession,
    #[error("invalid session id {0:?}: use letters, digits, '.', '_' and '-' only")]
    InvalidId(String),
    #[error("session {id} not found in {dir}")]
    NotFound { id: String, dir: PathBuf },
    #[error("session file {path} is corrupt ({message}); move it away or delete it")]
    Corrupt { path: PathBuf, message: String },
    #[error("no assistant message to attach the tool call to: add an assistant message first")]
    NoAssistantMessage,
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Who wrote a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
    System,
    Tool,
}

/// A tool call made by the assistant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub name: String,
    #[serde(default)]
    pub arguments: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
}

/// One message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    pub id: String,
    pub role: Role,
    pub content: String,
    pub timestamp: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
}

/// A stored session.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    pub version: u32,
    pub id: String,
    pub project_path: PathBuf,
    pub created_at: String,
    pub updated_at: String,
    pub messages: Vec<Message>,
    #[serde(default)]
    pub metadata: Map<String, Value>,
}

/// A session in a listing.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    pub id: String,
    pub path: PathBuf,
    pub created_at: String,
    pub updated_at: String,
    pub messages: usize,
}

/// A listing plus the files that could not be read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SessionList {
    /// Newest `updatedAt` first.
    pub sessions: Vec<SessionSummary>,
    pub warnings: Vec<String>,
}

/// Store settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionConfig {
    pub dir: PathBuf,
    pub max_sessions: usize,
    pub max_messages: usize,
}

impl SessionConfig {
    /// `~/.codebuddy/sessions`, 50 sessions, 500 messages per session.
    pub fn in_home(home: &Path) -> SessionConfig {
        SessionConfig::in_dir(home.join(".codebuddy").join("sessions"))
    }

    pub fn in_dir(dir: impl Into<PathBuf>) -> SessionConfig {
        SessionConfig {
            dir: dir.into(),
            max_sessions: 50,
            max_messages: 500,
        }
    }
}

/// Whether `start` created or resumed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Started {
    New,
    Resumed,
}

/// Sessions of one project.
#[derive(Debug)]
pub struct SessionStore {
    config: SessionConfig,
    project: PathBuf,
    current: Option<Session>,
    counter: u64,
}

/// FNV-1a, stable across runs and platforms: groups sessions by project.
fn project_key(project: &Path) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in project.to_string_lossy().as_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{:08x}", (h >> 32) as u32 ^ h as u32)
}

fn base36(mut n: u128) -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    if n == 0 {
        return "0".into();
    }
    let mut out = Vec::new();
    while n > 0 {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && !id.starts_with('.')
}

fn io<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(std::io::Error) -> SessionError + 'a {
    move |source| SessionError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// Writes `bytes` to `path` atomically (temp file in the same directory, then rename).
pub(crate) fn atomic_write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

impl SessionStore {
    pub fn new(project: impl Into<PathBuf>, config: SessionConfig) -> SessionStore {
        SessionStore {
            config,
            project: project.into(),
            current: None,
            counter: 0,
        }
    }

    pub fn config(&self) -> &SessionConfig {
        &self.config
    }

    pub fn update_config(&mut self, config: SessionConfig) {
        self.config = config;
    }

    fn path_of(&self, id: &str) -> PathBuf {
        self.config.dir.join(format!("session-{id}.json"))
    }

    fn now() -> String {
        clock::rfc3339(SystemTime::now())
    }

    fn next_id(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!(
            "{prefix}-{}-{}",
            base36(clock::epoch_millis(SystemTime::now())),
            self.counter
        )
    }

    /// Resumes session `id` when its file exists, else starts a new one (with `id` when
    /// given). Returns whether it resumed.
    pub fn start(&mut self, id: Option<&str>) -> Result<Started, SessionError> {
        if let Some(id) = id {
            if !valid_id(id) {
                return Err(SessionError::InvalidId(id.to_string()));
            }
            let path = self.path_of(id);
            if path.exists() {
                self.current = Some(self.read(&path)?);
                return Ok(Started::Resumed);
            }
        }
        let id = match id {
            Some(i) => i.to_string(),
            None => {
                let key = project_key(&self.project);
                self.next_id(&key)
            }
        };
        let now = Self::now();
        self.current = Some(Session {
            version: FORMAT_VERSION,
            id,
            project_path: self.project.clone(),
            created_at: now.clone(),
            updated_at: now,
            messages: Vec::new(),
            metadata: Map::new(),
        });
        Ok(Started::New)
    }

    /// Resumes this project's most recently updated session, if any.
    pub fn resume_last(&mut self) -> Result<Option<String>, SessionError> {
        let Some(recent) = self.most_recent() else {
            return Ok(None);
        };
        self.start(Some(&recent.id))?;
        Ok(Some(recent.id))
    }

    pub fn current(&self) -> Option<&Session> {
        self.current.as_ref()
    }

    /// Appends a message and returns its id.
    pub fn add_message(
        &mut self,
        role: Role,
        content: impl Into<String>,
    ) -> Result<String, SessionError> {
        let n = self
            .current
            .as_ref()
            .map(|s| s.messages.len())
            .ok_or(SessionError::NoSession)?;
        let id = self.next_id(&format!("msg{n}"));
        let s = self.current.as_mut().ok_or(SessionError::NoSession)?;
        s.messages.push(Message {
            id: id.clone(),
            role,
            content: content.into(),
            timestamp: Self::now(),
            tool_calls: Vec::new(),
        });
        s.updated_at = Self::now();
        Ok(id)
    }

    /// Attaches a tool call to the last assistant message.
    pub fn add_tool_call(&mut self, call: ToolCall) -> Result<(), SessionError> {
        let s = self.current.as_mut().ok_or(SessionError::NoSession)?;
        let msg = s
            .messages
            .iter_mut()
            .rev()
            .find(|m| m.role == Role::Assistant)
            .ok_or(SessionError::NoAssistantMessage)?;
        msg.tool_calls.push(call);
        s.updated_at = Self::now();
        Ok(())
    }

    /// Trims to the newest `max_messages` and writes the session atomically.
    pub fn save(&mut self) -> Result<PathBuf, SessionError> {
        let max = self.config.max_messages;
        let path = {
            let s = self.current.as_mut().ok_or(SessionError::NoSession)?;
            if s.messages.len() > max {
                let drop = s.messages.len() - max;
                s.messages.drain(..drop);
            }
            s.updated_at = Self::now();
            self.config.dir.join(format!("session-{}.json", s.id))
        };
        let s = self.current.as_ref().ok_or(SessionError::NoSession)?;
        let bytes = serde_json::to_vec_pretty(s).unwrap_or_default();
        atomic_write(&path, &bytes).map_err(io("write session", &path))?;
        Ok(path)
    }

    /// Saves and closes the current session.
    pub fn end(&mut self) -> Result<Option<PathBuf>, SessionError> {
        if self.current.is_none() {
            return Ok(None);
        }
        let p = self.save()?;
        self.current = None;
        Ok(Some(p))
    }

    fn read(&self, path: &Path) -> Result<Session, SessionError> {
        let text = fs::read_to_string(path).map_err(io("read session", path))?;
        serde_json::from_str(&text).map_err(|e| SessionError::Corrupt {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
    }

    /// Loads a stored session without making it current.
    pub fn load(&self, id: &str) -> Result<Session, SessionError> {
        if !valid_id(id) {
            return Err(SessionError::InvalidId(id.to_string()));
        }
        let path = self.path_of(id);
        if !path.exists() {
            return Err(SessionError::NotFound {
                id: id.to_string(),
                dir: self.config.dir.clone(),
            });
        }
        self.read(&path)
    }

    /// This project's sessions, newest first; unreadable files become warnings.
    pub fn list(&self) -> SessionList {
        let mut out = SessionList::default();
        let Ok(rd) = fs::read_dir(&self.config.dir) else {
            return out;
        };
        let mut paths: Vec<PathBuf> = rd
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("session-") && n.ends_with(".json"))
            })
            .collect();
        paths.sort();
        for p in paths {
            match self.read(&p) {
                Ok(s) if s.project_path == self.project => out.sessions.push(SessionSummary {
                    id: s.id,
                    path: p,
                    created_at: s.created_at,
                    updated_at: s.updated_at,
                    messages: s.messages.len(),
                }),
                Ok(_) => {}
                Err(e) => out.warnings.push(format!("skipped {e}")),
            }
        }
        out.sessions.sort_by(|a, b| {
            b.updated_at
                .cmp(&a.updated_at)
                .then_with(|| b.id.cmp(&a.id))
        });
        out
    }

    pub fn most_recent(&self) -> Option<SessionSummary> {
        self.list().sessions.into_iter().next()
    }

    /// Deletes this project's sessions beyond `max_sessions` (oldest first); returns their ids.
    pub fn cleanup(&self) -> Result<Vec<String>, SessionError> {
        let list = self.list();
        let mut deleted = Vec::new();
        for s in list.sessions.into_iter().skip(self.config.max_sessions) {
            if self.current.as_ref().is_some_and(|c| c.id == s.id) {
                continue;
            }
            fs::remove_file(&s.path).map_err(io("delete session", &s.path))?;
            deleted.push(s.id);
        }
        Ok(deleted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(dir: &Path, project: &str) -> SessionStore {
        SessionStore::new(project, SessionConfig::in_dir(dir))
    }

    #[test]
    fn start_save_and_resume_in_a_new_store() {
        let t = tempfile::tempdir().unwrap();
        let mut a = store(t.path(), "/p");
        assert_eq!(a.start(None).unwrap(), Started::New);
        a.add_message(Role::User, "hello").unwrap();
        a.add_message(Role::Assistant, "hi").unwrap();
        a.add_tool_call(ToolCall {
            name: "read_file".into(),
            arguments: serde_json::json!({"path": "a"}),
            result: None,
        })
        .unwrap();
        let id = a.current().unwrap().id.clone();
        let path = a.end().unwrap().unwrap();
        assert!(path.ends_with(format!("session-{id}.json")));
        assert!(a.current().is_none());

        let mut b = store(t.path(), "/p");
        assert_eq!(b.resume_last().unwrap().as_deref(), Some(id.as_str()));
        let s = b.current().unwrap();
        assert_eq!(s.messages.len(), 2);
        assert_eq!(s.messages[1].tool_calls[0].name, "read_file");
        assert_ne!(s.messages[0].id, s.messages[1].id);
    }

    #[test]
    fn errors_without_a_session_or_assistant_message() {
        let t = tempfile::tempdir().unwrap();
        let mut s = store(t.path(), "/p");
        assert!(matches!(
            s.add_message(Role::User, "x"),
            Err(SessionError::NoSession)
        ));
        s.start(None).unwrap();
        s.add_message(Role::User, "x").unwrap();
        assert!(matches!(
            s.add_tool_call(ToolCall {
                name: "t".into(),
                arguments: Value::Null,
                result: None
            }),
            Err(SessionError::NoAssistantMessage)
        ));
        assert!(matches!(
            s.start(Some("../etc/passwd")),
            Err(SessionError::InvalidId(_))
        ));
        assert!(matches!(s.load("nope"), Err(SessionError::NotFound { .. })));
    }

    #[test]
    fn message_cap_keeps_the_newest() {
        let t = tempfile::tempdir().unwrap();
        let mut s = store(t.path(), "/p");
        s.update_config(SessionConfig {
            max_messages: 3,
            ..SessionConfig::in_dir(t.path())
        });
        s.start(Some("capped")).unwrap();
        for i in 0..5 {
            s.add_message(Role::User, format!("Message {i}")).unwrap();
        }
        s.save().unwrap();
        let loaded = s.load("capped").unwrap();
        let contents: Vec<_> = loaded.messages.iter().map(|m| m.content.as_str()).collect();
        assert_eq!(contents, ["Message 2", "Message 3", "Message 4"]);
    }

    #[test]
    fn list_is_per_project_newest_first_and_skips_corrupt_files() {
        let t = tempfile::tempdir().unwrap();
        let mut s = store(t.path(), "/p");
        for id in ["one", "two", "three"] {
            s.start(Some(id)).unwrap();
            s.add_message(Role::User, id).unwrap();
            s.end().unwrap();
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let mut other = store(t.path(), "/other");
        other.start(Some("elsewhere")).unwrap();
        other.end().unwrap();
        fs::write(t.path().join("session-broken.json"), "{not json").unwrap();
        let list = s.list();
        let ids: Vec<_> = list.sessions.iter().map(|x| x.id.as_str()).collect();
        assert_eq!(ids, ["three", "two", "one"]);
        assert_eq!(list.warnings.len(), 1);
        assert!(
            list.warnings[0].contains("session-broken.json"),
            "{:?}",
            list.warnings
        );
        assert_eq!(s.most_recent().unwrap().id, "three");
        // resuming a corrupt session is an error and leaves the file alone
        assert!(matches!(
            s.start(Some("broken")),
            Err(SessionError::Corrupt { .. })
        ));
        assert_eq!(
            fs::read_to_string(t.path().join("session-broken.json")).unwrap(),
            "{not json"
        );
    }

    #[test]
    fn cleanup_deletes_beyond_max_for_this_project_only() {
        let t = tempfile::tempdir().unwrap();
        let mut s = store(t.path(), "/p");
        for i in 0..4 {
            s.start(Some(&format!("s{i}"))).unwrap();
            s.end().unwrap();
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let mut other = store(t.path(), "/q");
        other.start(Some("q0")).unwrap();
        other.end().unwrap();
        s.update_config(SessionConfig {
            max_sessions: 2,
            ..SessionConfig::in_dir(t.path())
        });
        let mut deleted = s.cleanup().unwrap();
        deleted.sort();
        assert_eq!(deleted, ["s0", "s1"]);
        assert!(t.path().join("session-q0.json").exists());
        assert_eq!(s.list().sessions.len(), 2);
    }

    #[test]
    fn writes_are_atomic_no_temp_files_left() {
        let t = tempfile::tempdir().unwrap();
        let mut s = store(t.path(), "/p");
        s.start(Some("a")).unwrap();
        for _ in 0..3 {
            s.save().unwrap();
        }
        let names: Vec<_> = fs::read_dir(t.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, ["session-a.json"]);
    }
}
