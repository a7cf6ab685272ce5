//! OpenClaw `sessions_history` tool results (JSON): the session key, the flags about
//! truncation, and every message with its role, timestamp, provenance and text. Provider
//! bookkeeping (`api`, `provider`, `model`, `stopReason`, `responseId`, `usage`,
//! `__openclaw`) and `thinking` blocks are dropped and counted.

use serde_json::{Map, Value};

use super::{Structured, StructuredOutput, WholeText};
use crate::reduce::text::clip_line;

const MAX_BYTES: usize = 8 << 20;
/// Longest text shown per content item.
const MAX_TEXT: usize = 2000;

const DROPPED_KEYS: &[&str] = &[
    "api",
    "provider",
    "model",
    "stopReason",
    "responseId",
    "usage",
    "__openclaw",
    "cost",
];

#[derive(Default)]
pub struct SessionsHistory {
    text: WholeText<MAX_BYTES>,
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Object(o) => format!(
            "{{{}}}",
            o.iter()
                .map(|(k, v)| format!("{k}: {}", scalar(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => other.to_string(),
    }
}

fn render_message(m: &Map<String, Value>, out: &mut Vec<String>, dropped: &mut u64) {
    let mut head: Vec<String> = Vec::new();
    for k in ["role", "timestamp"] {
        if let Some(v) = m.get(k) {
            head.push(format!("{k}: {}", scalar(v)));
        }
    }
    for (k, v) in m {
        if matches!(k.as_str(), "role" | "timestamp" | "content") {
            continue;
        }
        if DROPPED_KEYS.contains(&k.as_str()) {
            *dropped += 1;
            continue;
        }
        head.push(format!("{k}: {}", clip_line(&scalar(v), 600)));
    }
    out.push(format!("- {}", head.join(", ")));
    match m.get("content") {
        Some(Value::String(s)) => push_text(s, out),
        Some(Value::Array(items)) => {
            for it in items {
                let ty = it.get("type").and_then(Value::as_str).unwrap_or("");
                match ty {
                    "thinking" | "reasoning" => *dropped += 1,
                    "text" => {
                        if let Some(s) = it.get("text").and_then(Value::as_str) {
                            push_text(s, out);
                        }
                    }
                    _ => {
                        let s = serde_json::to_string(it).unwrap_or_default();
                        out.push(format!("  [{ty}] {}", clip_line(&s, 600)));
                    }
                }
            }
        }
        Some(other) => out.push(format!("  {}", clip_line(&other.to_string(), 600))),
        None => {}
    }
}

fn push_text(s: &str, out: &mut Vec<String>) {
    let s = clip_line(s, MAX_TEXT);
    for l in s.lines() {
        out.push(format!("  {l}"));
    }
}

impl Structured for SessionsHistory {
    fn push(&mut self, line: &str) {
        self.text.push(line);
    }

    fn finish(self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        let t = self.text.get()?;
        let v: Value = serde_json::from_str(t).ok()?;
        let o = v.as_object()?;
        let msgs = o.get("messages")?.as_array()?;
        let mut lines = Vec::new();
        let mut dropped = 0u64;
        let mut flags = Vec::new();
        for (k, v) in o {
            if k == "messages" {
                continue;
            }
            if k == "sessionKey" {
                lines.insert(0, format!("sessionKey: {}", scalar(v)));
            } else {
                flags.push(format!("{k}: {}", clip_line(&scalar(v), 300)));
            }
        }
        if !flags.is_empty() {
            lines.push(flags.join(", "));
        }
        lines.push(format!("messages: {}", msgs.len()));
        for m in msgs {
            match m.as_object() {
                Some(m) => render_message(m, &mut lines, &mut dropped),
                None => lines.push(format!("- {}", clip_line(&m.to_string(), 600))),
            }
        }
        Some(StructuredOutput {
            name: "openclaw-sessions",
            lines,
            facts: vec![("message".into(), msgs.len() as u64)],
            omitted: 0,
            filtered: dropped,
            facts_line: false,
            json_cut: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_bookkeeping_keeps_messages() {
        let text = r#"{"sessionKey":"agent:a:main","messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"Done."}],"model":"m-1","__openclaw":{"id":"x1","seq":3},"timestamp":5},{"role":"user","content":"hi","provenance":{"kind":"inter_session","sourceTool":"sessions_send"}}],"truncated":false}"#;
        let mut s = Box::new(SessionsHistory::default());
        s.push(text);
        let out = s.finish(0).unwrap();
        let t = out.lines.join("\n");
        assert!(t.starts_with("sessionKey: agent:a:main"), "{t}");
        assert!(
            t.contains("- role: assistant, timestamp: 5\n  Done."),
            "{t}"
        );
        assert!(
            t.contains("provenance: {kind: inter_session, sourceTool: sessions_send}"),
            "{t}"
        );
        assert!(
            !t.contains("hmm") && !t.contains("m-1") && !t.contains("x1"),
            "{t}"
        );
        assert_eq!(out.filtered, 3);
    }

    #[test]
    fn not_history() {
        let mut s = Box::new(SessionsHistory::default());
        s.push(r#"{"error":"session not found"}"#);
        assert!(s.finish(1).is_none());
    }
}
