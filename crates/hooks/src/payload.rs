//! Building the stdin payload the way each host does.

use std::path::PathBuf;
use std::time::SystemTime;

use serde_json::{Map, Value};

use crate::dialects::{Dialect, FieldValue, PayloadField, PayloadStyle};
use crate::error::HookError;
use crate::events::{EventKind, ToolClass};

/// What the caller knows about an event. Everything is optional except the working
/// directory; the builder fills in what the host would.
#[derive(Clone, Debug, Default)]
pub struct EventRequest {
    pub session_id: Option<String>,
    pub transcript_path: Option<String>,
    /// The session's working directory (`cwd` in the payload).
    pub cwd: PathBuf,
    pub tool_name: Option<String>,
    pub tool_input: Option<Value>,
    pub tool_response: Option<Value>,
    /// Event fields (`source`, `reason`, `trigger`, `prompt`, …) overriding the defaults,
    /// and any extra field to pass through.
    pub fields: Map<String, Value>,
}

/// A session id for runs that were not given one.
pub fn generated_session_id() -> String {
    format!(
        "tokenjuice-{}-{}",
        std::process::id(),
        crate::clock::epoch_millis(SystemTime::now())
    )
}

/// The tool a tool event uses when the caller named none: the first tool of the view's
/// class, or the shell tool.
pub fn default_tool(dialect: &Dialect, event: EventKind) -> &'static str {
    let class = event.view().map(|(_, c)| c).unwrap_or(ToolClass::Shell);
    let tools = dialect.tools_of(class);
    tools.first().copied().unwrap_or("Bash")
}

/// Builds the payload of `event` for `dialect`.
pub fn build_payload(
    dialect: &Dialect,
    event: EventKind,
    req: &EventRequest,
) -> Result<Value, HookError> {
    let spec = event.spec();
    let host_name = dialect
        .event_name(event)
        .or_else(|| dialect.event_name(event.base()))
        .unwrap_or(event.base().name());
    let native_view = event.view().is_some() && dialect.event_name(event).is_some();
    let session_id = req.session_id.clone().unwrap_or_else(generated_session_id);
    let cwd = req.cwd.to_string_lossy().into_owned();
    let mut p = Map::new();
    match dialect.payload {
        PayloadStyle::Claude | PayloadStyle::Gemini => {
            p.insert("session_id".into(), Value::String(session_id.clone()));
            p.insert(
                "transcript_path".into(),
                Value::String(req.transcript_path.clone().unwrap_or_default()),
            );
            p.insert("cwd".into(), Value::String(cwd.clone()));
            p.insert(
                "hook_event_name".into(),
                Value::String(host_name.to_string()),
            );
            if dialect.payload == PayloadStyle::Gemini {
                p.insert(
                    "timestamp".into(),
                    Value::String(crate::clock::rfc3339(SystemTime::now())),
                );
            }
        }
        PayloadStyle::Cursor => {
            p.insert("conversation_id".into(), Value::String(session_id.clone()));
            p.insert(
                "generation_id".into(),
                Value::String(format!("{session_id}-gen")),
            );
            p.insert("session_id".into(), Value::String(session_id.clone()));
            p.insert(
                "hook_event_name".into(),
                Value::String(host_name.to_string()),
            );
            p.insert(
                "workspace_roots".into(),
                Value::Array(vec![Value::String(cwd.clone())]),
            );
            p.insert(
                "transcript_path".into(),
                Value::String(req.transcript_path.clone().unwrap_or_default()),
            );
        }
    }
    for f in spec.fields {
        p.insert(f.name.into(), f.value.to_json());
    }
    if spec.tool_event {
        let tool = match &req.tool_name {
            Some(t) => dialect.canonical_tool_name(t),
            None => default_tool(dialect, event).to_string(),
        };
        let input = match &req.tool_input {
            None => Value::Object(Map::new()),
            Some(v @ Value::Object(_)) => v.clone(),
            Some(other) => {
                return Err(HookError::NotAnObject {
                    what: "tool_input",
                    got: other.to_string(),
                })
            }
        };
        if native_view && dialect.payload == PayloadStyle::Cursor {
            // Cursor's shell/file events carry the command (or file) directly.
            let command = input
                .get("command")
                .cloned()
                .unwrap_or(Value::String(String::new()));
            match event {
                EventKind::PreBash | EventKind::PostBash => {
                    p.insert("command".into(), command);
                    p.insert("cwd".into(), Value::String(cwd));
                    if event == EventKind::PostBash {
                        p.insert(
                            "output".into(),
                            req.tool_response
                                .clone()
                                .unwrap_or(Value::String(String::new())),
                        );
                    }
                }
                _ => {
                    let file = input
                        .get("file_path")
                        .or_else(|| input.get("filePath"))
                        .cloned()
                        .unwrap_or(Value::String(String::new()));
                    p.insert("file_path".into(), file);
                    p.insert("edits".into(), Value::Array(vec![]));
                }
            }
        } else {
            p.insert("tool_name".into(), Value::String(tool));
            p.insert("tool_input".into(), input);
            if event.base() == EventKind::PostToolUse {
                p.insert(
                    "tool_response".into(),
                    req.tool_response
                        .clone()
                        .unwrap_or(Value::Object(Map::new())),
                );
            }
        }
    }
    if dialect.payload != PayloadStyle::Cursor {
        let fields: Vec<PayloadField> = dialect
            .payload_fields
            .iter()
            .filter(|f| f.on.applies(event, spec.tool_event))
            .copied()
            .collect();
        p = with_host_fields(p, &fields);
    }
    for (k, v) in &req.fields {
        p.insert(k.clone(), v.clone());
    }
    Ok(Value::Object(p))
}

/// `p` with `fields` filled in and placed as the host places them.
fn with_host_fields(p: Map<String, Value>, fields: &[PayloadField]) -> Map<String, Value> {
    if fields.is_empty() {
        return p;
    }
    let call_id = random_hex(24);
    let value = |f: &PayloadField| match f.value {
        FieldValue::Text(t) => Value::String(t.to_string()),
        FieldValue::Json(j) => serde_json::from_str(j).unwrap_or(Value::Null),
        FieldValue::Uuid => {
            let h = random_hex(32);
            // version 4, variant 10xx
            let variant = ["8", "9", "a", "b"][usize::from(h.as_bytes()[16] % 4)];
            Value::String(format!(
                "{}-{}-4{}-{variant}{}-{}",
                &h[..8],
                &h[8..12],
                &h[13..16],
                &h[17..20],
                &h[20..32]
            ))
        }
        FieldValue::Hex32 => Value::String(random_hex(32)),
        FieldValue::CallId(prefix) => Value::String(format!("{prefix}{call_id}")),
        FieldValue::Var(name) => Value::String(std::env::var(name).unwrap_or_default()),
        FieldValue::Absent => Value::Null,
    };
    // a field of the table named like one the payload has (after one it has) replaces it,
    // with the host's value at the host's place
    let replaced: Vec<&str> = fields
        .iter()
        .filter(|f| {
            f.value != FieldValue::Absent && p.contains_key(f.name) && p.contains_key(f.after)
        })
        .map(|f| f.name)
        .collect();
    let mut out = Map::new();
    let mut placed = vec![false; fields.len()];
    // a field may follow one that is itself added; one whose field is not in this payload
    // (`tool_response` in a PreToolUse one) is left out
    let mut pending: Vec<(String, Value, bool)> =
        p.into_iter().map(|(k, v)| (k, v, false)).collect();
    pending.reverse();
    while let Some((k, v, added)) = pending.pop() {
        if fields
            .iter()
            .any(|f| f.value == FieldValue::Absent && f.name == k)
            || (!added && replaced.contains(&k.as_str()))
        {
            continue;
        }
        out.insert(k.clone(), v);
        for (i, f) in fields.iter().enumerate() {
            if !placed[i] && f.after == k {
                placed[i] = true;
                pending.push((f.name.to_string(), value(f), true));
            }
        }
    }
    out
}

/// `n` random hex digits (the standard library's per-process random hash keys).
fn random_hex(n: usize) -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut out = String::with_capacity(n + 16);
    let mut i = 0u64;
    while out.len() < n {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(i);
        out.push_str(&format!("{:016x}", h.finish()));
        i += 1;
    }
    out.truncate(n);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialects::Host;
    use serde_json::json;

    fn req() -> EventRequest {
        EventRequest {
            session_id: Some("abc123".into()),
            transcript_path: Some("/t.txt".into()),
            cwd: "/project/path".into(),
            ..Default::default()
        }
    }

    #[test]
    fn seed_002_session_start_payload() {
        let p = build_payload(Host::CodeBuddy.dialect(), EventKind::SessionStart, &req()).unwrap();
        assert_eq!(
            p,
            json!({"session_id": "abc123","transcript_path": "/t.txt","cwd": "/project/path","hook_event_name": "SessionStart","source": "startup"})
        );
    }

    #[test]
    fn seed_002_pre_tool_use_payload_uses_host_tool_names() {
        let mut r = req();
        r.tool_name = Some("Bash".into());
        r.tool_input = Some(json!({"command": "npm install", "requires_approval": false}));
        let p = build_payload(Host::CodeBuddy.dialect(), EventKind::PreToolUse, &r).unwrap();
        assert_eq!(p["tool_name"], "execute_command");
        assert_eq!(p["tool_input"]["command"], "npm install");
        assert_eq!(p["hook_event_name"], "PreToolUse");
        assert!(p.get("tool_response").is_none());
    }

    #[test]
    fn event_defaults_and_overrides() {
        let mut r = req();
        r.fields.insert("trigger".into(), json!("auto"));
        let p = build_payload(Host::CodeBuddy.dialect(), EventKind::PreCompact, &r).unwrap();
        assert_eq!(p["trigger"], "auto");
        assert_eq!(p["custom_instructions"], "");
        let p = build_payload(Host::CodeBuddy.dialect(), EventKind::Stop, &req()).unwrap();
        assert_eq!(p["stop_hook_active"], false);
        let p = build_payload(Host::CodeBuddy.dialect(), EventKind::SessionEnd, &req()).unwrap();
        assert_eq!(p["reason"], "other");
        let p = build_payload(Host::CodeBuddy.dialect(), EventKind::PostToolUse, &req()).unwrap();
        assert_eq!(p["tool_name"], "execute_command");
        assert_eq!(p["tool_response"], json!({}));
    }

    #[test]
    fn claude_code_sends_its_pre_compact_fields_as_it_does() {
        let p = build_payload(Host::Claude.dialect(), EventKind::PreCompact, &req()).unwrap();
        let keys: Vec<&str> = p.as_object().unwrap().keys().map(String::as_str).collect();
        // the order and values Claude Code 2.1.332 gave a hook on `/compact`
        assert_eq!(
            keys,
            [
                "session_id",
                "transcript_path",
                "cwd",
                "prompt_id",
                "hook_event_name",
                "trigger",
                "custom_instructions"
            ]
        );
        assert_eq!(p["custom_instructions"], Value::Null);
        // what the caller sets still wins
        let mut r = req();
        r.fields
            .insert("custom_instructions".into(), json!("keep the API notes"));
        let p = build_payload(Host::Claude.dialect(), EventKind::PreCompact, &r).unwrap();
        assert_eq!(p["custom_instructions"], "keep the API notes");
    }

    #[test]
    fn views_default_to_their_tool_class() {
        let p = build_payload(Host::CodeBuddy.dialect(), EventKind::PreEdit, &req()).unwrap();
        assert_eq!(p["tool_name"], "write_to_file");
        assert_eq!(p["hook_event_name"], "PreToolUse");
        let p = build_payload(Host::Claude.dialect(), EventKind::PreBash, &req()).unwrap();
        assert_eq!(p["tool_name"], "Bash");
    }

    #[test]
    fn host_spellings_and_extra_fields() {
        let g = build_payload(Host::Gemini.dialect(), EventKind::PreToolUse, &req()).unwrap();
        assert_eq!(g["hook_event_name"], "BeforeTool");
        assert_eq!(g["tool_name"], "run_shell_command");
        assert!(g["timestamp"].as_str().unwrap().ends_with('Z'));
        let mut r = req();
        r.tool_input = Some(json!({"command": "git push"}));
        let c = build_payload(Host::Cursor.dialect(), EventKind::PreBash, &r).unwrap();
        assert_eq!(c["hook_event_name"], "beforeShellExecution");
        assert_eq!(c["command"], "git push");
        assert_eq!(c["conversation_id"], "abc123");
        assert_eq!(c["workspace_roots"], json!(["/project/path"]));
    }

    #[test]
    fn tool_input_must_be_an_object() {
        let mut r = req();
        r.tool_input = Some(json!("ls"));
        let e = build_payload(Host::Claude.dialect(), EventKind::PreToolUse, &r).unwrap_err();
        assert!(e.to_string().contains("tool_input must be a JSON object"));
    }

    #[test]
    fn generated_session_ids_are_present() {
        let mut r = req();
        r.session_id = None;
        let p = build_payload(Host::Claude.dialect(), EventKind::Stop, &r).unwrap();
        assert!(p["session_id"].as_str().unwrap().starts_with("tokenjuice-"));
    }

    #[test]
    fn tool_events_carry_the_fields_each_host_adds_where_it_puts_them() {
        // as the real hosts gave them (crates/e2e/tests/hooks_differential*.rs)
        let mut r = EventRequest {
            cwd: "/p".into(),
            tool_name: Some("Bash".into()),
            tool_input: Some(json!({"command": "ls"})),
            ..EventRequest::default()
        };
        let keys_of = |host: Host, r: &EventRequest| -> (Vec<String>, Value) {
            let p = build_payload(host.dialect(), EventKind::PreToolUse, r).unwrap();
            (p.as_object().unwrap().keys().cloned().collect(), p)
        };
        let keys = |host: Host| keys_of(host, &r);
        let (k, p) = keys(Host::Claude);
        assert_eq!(
            k,
            [
                "session_id",
                "transcript_path",
                "cwd",
                "prompt_id",
                "permission_mode",
                "effort",
                "hook_event_name",
                "tool_name",
                "tool_input",
                "tool_use_id"
            ]
        );
        assert!(p["tool_use_id"].as_str().unwrap().starts_with("toolu_"));
        let uuid = p["prompt_id"].as_str().unwrap();
        assert_eq!(
            uuid.split('-').map(str::len).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12]
        );
        assert_eq!(&uuid[14..15], "4");
        assert_eq!(p["effort"], json!({"level": "medium"}));
        let (k, _) = keys(Host::Codex);
        assert_eq!(
            k,
            [
                "session_id",
                "turn_id",
                "transcript_path",
                "cwd",
                "hook_event_name",
                "model",
                "permission_mode",
                "tool_name",
                "tool_input",
                "tool_use_id"
            ]
        );
        let (_, p) = keys(Host::CodeBuddyCli);
        assert_eq!(p["call_id"], p["tool_use_id"]);
        assert_eq!(p["generation_id"].as_str().unwrap().len(), 32);
        // the IDE's reference and Gemini add none; --field still sets any
        let (k, _) = keys(Host::CodeBuddy);
        assert_eq!(k.len(), 6);
        r.fields.insert("permission_mode".into(), json!("plan"));
        let (_, p) = keys_of(Host::Claude, &r);
        assert_eq!(p["permission_mode"], "plan");
        // other events are as before
        let p = build_payload(Host::Claude.dialect(), EventKind::Stop, &r).unwrap();
        assert!(p.get("tool_use_id").is_none());
        // a field that follows tool_response comes only after the tool ran
        assert!(keys_of(Host::Claude, &r).1.get("duration_ms").is_none());
        let p = build_payload(Host::Claude.dialect(), EventKind::PostToolUse, &r).unwrap();
        assert_eq!(p["duration_ms"], 0);
    }
}
