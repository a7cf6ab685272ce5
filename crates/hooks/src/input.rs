//! Input helpers: `#` instruction capture into `.codebuddyrules`, double-escape
//! detection, and the last user message of a chat history.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_yaml_ng::{Mapping, Value as Yaml};

/// If `input` starts with `#`, the instruction after it (trimmed). `"#"` alone gives an
/// empty instruction; `"## x"` gives `"# x"`; text with `#` later is not an instruction.
pub fn parse_hash_instruction(input: &str) -> Option<String> {
    input.strip_prefix('#').map(|rest| rest.trim().to_string())
}

/// What saving did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SaveOutcome {
    Added,
    AlreadyPresent,
}

/// Why an instruction was not saved. The file is never modified in these cases.
#[derive(Debug, thiserror::Error)]
pub enum InstructionError {
    #[error("the instruction is empty: write it after the '#', e.g. '# Always use TypeScript'")]
    Empty,
    #[error("{path} is not valid YAML ({message}); it was left untouched: fix it, then try again")]
    Unparsable { path: PathBuf, message: String },
    #[error("{path} must be a YAML mapping (key: value) at the top level; it was left untouched")]
    NotAMapping { path: PathBuf },
    #[error("`instructions` in {path} must be a list; it was left untouched")]
    InstructionsNotAList { path: PathBuf },
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Adds `instruction` to the `instructions` list of the YAML file at `path` (created when
/// missing). Exact duplicates are not added; other keys are kept; the write is atomic. An
/// unparsable file is never overwritten. (YAML comments are not preserved on rewrite.)
pub fn save_instruction(path: &Path, instruction: &str) -> Result<SaveOutcome, InstructionError> {
    let instruction = instruction.trim();
    if instruction.is_empty() {
        return Err(InstructionError::Empty);
    }
    let existing = match std::fs::read_to_string(path) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            return Err(InstructionError::Io {
                action: "read",
                path: path.to_path_buf(),
                source: e,
            })
        }
    };
    let mut root = match existing.as_deref() {
        None => Mapping::new(),
        Some(t) if t.trim().is_empty() => Mapping::new(),
        Some(t) => match serde_yaml_ng::from_str::<Yaml>(t) {
            Ok(Yaml::Mapping(m)) => m,
            Ok(Yaml::Null) => Mapping::new(),
            Ok(_) => {
                return Err(InstructionError::NotAMapping {
                    path: path.to_path_buf(),
                })
            }
            Err(e) => {
                return Err(InstructionError::Unparsable {
                    path: path.to_path_buf(),
                    message: e.to_string(),
                })
            }
        },
    };
    let key = Yaml::String("instructions".into());
    let list = root
        .entry(key)
        .or_insert_with(|| Yaml::Sequence(Vec::new()));
    if list.is_null() {
        *list = Yaml::Sequence(Vec::new());
    }
    let Yaml::Sequence(items) = list else {
        return Err(InstructionError::InstructionsNotAList {
            path: path.to_path_buf(),
        });
    };
    if items
        .iter()
        .any(|i| i.as_str().map(str::trim) == Some(instruction))
    {
        return Ok(SaveOutcome::AlreadyPresent);
    }
    items.push(Yaml::String(instruction.to_string()));
    let text = serde_yaml_ng::to_string(&Yaml::Mapping(root)).map_err(|e| {
        InstructionError::Unparsable {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    })?;
    crate::sessions::atomic_write(path, text.as_bytes()).map_err(|e| InstructionError::Io {
        action: "write",
        path: path.to_path_buf(),
        source: e,
    })?;
    Ok(SaveOutcome::Added)
}

/// The window within which a second Escape counts as a double escape.
pub const DOUBLE_ESCAPE_THRESHOLD: Duration = Duration::from_millis(500);

/// Detects two Escape presses less than 500 ms apart. The window slides: each press is
/// compared with the one before it.
#[derive(Clone, Debug)]
pub struct DoubleEscapeDetector {
    last: Option<Instant>,
    threshold: Duration,
}

impl Default for DoubleEscapeDetector {
    fn default() -> DoubleEscapeDetector {
        DoubleEscapeDetector {
            last: None,
            threshold: DOUBLE_ESCAPE_THRESHOLD,
        }
    }
}

impl DoubleEscapeDetector {
    pub fn new() -> DoubleEscapeDetector {
        DoubleEscapeDetector::default()
    }

    /// Records a press now; true when it completes a double escape.
    pub fn press(&mut self) -> bool {
        self.press_at(Instant::now())
    }

    /// Records a press at `at`; true when less than the threshold after the previous one.
    pub fn press_at(&mut self, at: Instant) -> bool {
        let double = self
            .last
            .is_some_and(|prev| at.saturating_duration_since(prev) < self.threshold);
        self.last = Some(at);
        double
    }

    pub fn reset(&mut self) {
        self.last = None;
    }
}

/// A chat history entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatEntry {
    pub kind: ChatEntryKind,
    pub content: String,
}

/// Kind of a chat entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChatEntryKind {
    User,
    Assistant,
    ToolCall,
    ToolResult,
    System,
}

/// The content of the most recent user entry.
pub fn last_user_message(history: &[ChatEntry]) -> Option<&str> {
    history
        .iter()
        .rev()
        .find(|e| e.kind == ChatEntryKind::User)
        .map(|e| e.content.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn hash_parsing() {
        assert_eq!(
            parse_hash_instruction("# Always use TypeScript").as_deref(),
            Some("Always use TypeScript")
        );
        assert_eq!(
            parse_hash_instruction("#   spaced  ").as_deref(),
            Some("spaced")
        );
        assert_eq!(parse_hash_instruction("#").as_deref(), Some(""));
        assert_eq!(
            parse_hash_instruction("## heading").as_deref(),
            Some("# heading")
        );
        assert_eq!(parse_hash_instruction("use # later"), None);
        assert_eq!(parse_hash_instruction(""), None);
        assert_eq!(
            parse_hash_instruction("# key: \"quoted\"").as_deref(),
            Some("key: \"quoted\"")
        );
    }

    #[test]
    fn instructions_are_appended_without_duplicates_and_other_keys_kept() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join(".codebuddyrules");
        assert_eq!(
            save_instruction(&p, "Use TypeScript").unwrap(),
            SaveOutcome::Added
        );
        fs::write(
            &p,
            "model: fast\nstyle:\n  indent: 2\ninstructions:\n  - Use TypeScript\n",
        )
        .unwrap();
        assert_eq!(
            save_instruction(&p, "Use TypeScript").unwrap(),
            SaveOutcome::AlreadyPresent
        );
        assert_eq!(
            save_instruction(&p, "Prefer: colons & 'quotes'").unwrap(),
            SaveOutcome::Added
        );
        let v: Yaml = serde_yaml_ng::from_str(&fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(v["model"], Yaml::String("fast".into()));
        assert_eq!(v["style"]["indent"], Yaml::Number(2.into()));
        let list: Vec<&str> = v["instructions"]
            .as_sequence()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap())
            .collect();
        assert_eq!(list, ["Use TypeScript", "Prefer: colons & 'quotes'"]);
        // key order is preserved
        let text = fs::read_to_string(&p).unwrap();
        assert!(text.find("model").unwrap() < text.find("style").unwrap());
    }

    #[test]
    fn unparsable_or_odd_files_are_never_overwritten() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join(".codebuddyrules");
        for (content, want) in [
            ("key: [unclosed\n", "Unparsable"),
            ("- a\n- b\n", "NotAMapping"),
            ("instructions: just text\n", "InstructionsNotAList"),
        ] {
            fs::write(&p, content).unwrap();
            let err = save_instruction(&p, "new").unwrap_err();
            assert!(format!("{err:?}").starts_with(want), "{content}: {err:?}");
            assert_eq!(
                fs::read_to_string(&p).unwrap(),
                content,
                "file must be untouched"
            );
            assert!(err.to_string().contains("untouched"), "{err}");
        }
        assert!(matches!(
            save_instruction(&p, "  "),
            Err(InstructionError::Empty)
        ));
    }

    #[test]
    fn double_escape_window() {
        let mut d = DoubleEscapeDetector::new();
        let t0 = Instant::now();
        assert!(!d.press_at(t0));
        assert!(d.press_at(t0 + Duration::from_millis(200)));
        assert!(
            d.press_at(t0 + Duration::from_millis(300)),
            "sliding window"
        );
        assert!(!d.press_at(t0 + Duration::from_millis(900)));
        assert!(
            d.press_at(t0 + Duration::from_millis(1399)),
            "499 ms is double"
        );
        assert!(
            !d.press_at(t0 + Duration::from_millis(1899)),
            "500 ms is not"
        );
        d.reset();
        assert!(!d.press_at(t0 + Duration::from_millis(1950)));
    }

    #[test]
    fn last_user_message_skips_other_entries() {
        let e = |kind, c: &str| ChatEntry {
            kind,
            content: c.into(),
        };
        assert_eq!(last_user_message(&[]), None);
        let h = vec![
            e(ChatEntryKind::User, "first"),
            e(ChatEntryKind::Assistant, "reply"),
            e(ChatEntryKind::User, "second"),
            e(ChatEntryKind::ToolResult, "out"),
            e(ChatEntryKind::Assistant, "done"),
        ];
        assert_eq!(last_user_message(&h), Some("second"));
        assert_eq!(last_user_message(&h[1..2]), None);
    }
}
