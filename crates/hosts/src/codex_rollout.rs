//! The `yield_time_ms` the model gave one Codex `exec_command` call, read from Codex's
//! rollout file.
//!
//! Codex 0.169 hands the model what a running command printed by the call's
//! `yield_time_ms` (10 s when the model does not set it). The BASH_ENV filter holds the
//! output to compact it and shows what it holds after a second of quiet or 4 s of steady
//! output, so a call that yields sooner would get less than without tokenjuice. The call's
//! arguments do not reach the shell, but Codex writes the call to the session's rollout
//! (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`, one JSON object per
//! line; the call as `{"type":"function_call","arguments":"<JSON>","call_id":…}` inside a
//! `response_item`) before the command starts, and names the thread and the call in the
//! command's environment (`CODEX_THREAD_ID`, `CODEX_TOOL_CALL_ID`), as the e2e suite saw.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::env::Env;

/// How much of the rollout's end is read: the running call is among its last lines.
const TAIL: u64 = 256 * 1024;

/// Day folders looked through, newest first, for the thread's rollout.
const MAX_DAYS: usize = 40;

/// The `yield_time_ms` of the running call (`CODEX_TOOL_CALL_ID`) in the thread's rollout;
/// `None` when the call has none or the rollout cannot be found or read.
pub fn call_yield_ms(env: &Env) -> Option<u64> {
    let thread = env.var("CODEX_THREAD_ID").filter(|s| is_plain(s))?;
    let call = env.var("CODEX_TOOL_CALL_ID").filter(|s| !s.is_empty())?;
    let home = tokenjuice_hooks::homes::CODEX.resolve(env.home.as_deref(), |k| env.var(k))?;
    let path = rollout(&home.join("sessions"), thread)?;
    call_yield(&crate::files::read_tail(&path, TAIL)?, call)
}

/// A thread id names a file: no separators, no `..`.
fn is_plain(s: &str) -> bool {
    !s.is_empty() && s.len() <= 200 && !s.contains('/') && !s.contains("..")
}

/// `sessions/YYYY/MM/DD/rollout-*-<thread>.jsonl`, the newest day folders first.
fn rollout(sessions: &Path, thread: &str) -> Option<PathBuf> {
    let suffix = format!("-{thread}.jsonl");
    let sorted_dirs = |dir: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        v.sort_unstable_by(|a, b| b.cmp(a));
        v
    };
    sorted_dirs(sessions)
        .iter()
        .flat_map(|y| sorted_dirs(y))
        .flat_map(|m| sorted_dirs(&m))
        .take(MAX_DAYS)
        .find_map(|day| {
            std::fs::read_dir(day)
                .ok()?
                .flatten()
                .map(|e| e.path())
                .find(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("rollout-") && n.ends_with(&suffix))
                        // a regular file: opening anything else could block
                        && p.is_file()
                })
        })
}

/// The `yield_time_ms` in the arguments of the function call `call` among the rollout
/// lines `text`.
fn call_yield(text: &str, call: &str) -> Option<u64> {
    let needle = format!("\"call_id\":\"{call}\"");
    text.lines()
        .rev()
        .filter(|l| l.contains(&needle) && l.contains("\"function_call\""))
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find_map(|v| {
            let item = if v["payload"].is_object() {
                &v["payload"]
            } else {
                &v
            };
            if item["type"] != "function_call" || item["call_id"] != call {
                return None;
            }
            let args: Value = serde_json::from_str(item["arguments"].as_str()?).ok()?;
            Some(args["yield_time_ms"].as_u64())
        })
        .flatten()
        .filter(|ms| *ms > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(call: &str, args: Value) -> String {
        serde_json::json!({"timestamp": "2026-11-27T04:52:52.000Z", "type": "response_item",
            "payload": {"type": "function_call", "name": "exec_command",
                "arguments": args.to_string(), "call_id": call}})
        .to_string()
    }

    #[test]
    fn the_running_call_gives_its_yield() {
        let text = [
            item("c1", serde_json::json!({"cmd": "a", "yield_time_ms": 300})),
            r#"{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"x"}}"#.to_string(),
            item("c2", serde_json::json!({"cmd": "b"})),
            item("c3", serde_json::json!({"cmd": "c", "yield_time_ms": 2500})),
        ]
        .join("\n");
        assert_eq!(call_yield(&text, "c3"), Some(2500));
        assert_eq!(call_yield(&text, "c1"), Some(300));
        assert_eq!(call_yield(&text, "c2"), None);
        assert_eq!(call_yield(&text, "c9"), None);
    }

    #[test]
    fn the_rollout_is_found_by_thread_in_the_newest_day_folders() {
        let d = tempfile::tempdir().unwrap();
        let home = d.path().join("codex-home");
        let old = home.join("sessions/2026/10/01");
        let day = home.join("sessions/2026/11/27");
        std::fs::create_dir_all(&old).unwrap();
        std::fs::create_dir_all(&day).unwrap();
        std::fs::write(
            old.join("rollout-2026-10-01T00-00-00-other.jsonl"),
            item("c1", serde_json::json!({"cmd": "x", "yield_time_ms": 9})),
        )
        .unwrap();
        std::fs::write(
            day.join("rollout-2026-11-27T04-52-52-t-1.jsonl"),
            item("c1", serde_json::json!({"cmd": "x", "yield_time_ms": 700})),
        )
        .unwrap();
        let env = |thread: &str| Env {
            home: None,
            vars: [
                ("CODEX_HOME", home.display().to_string()),
                ("CODEX_THREAD_ID", thread.to_string()),
                ("CODEX_TOOL_CALL_ID", "c1".to_string()),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
            cwd: PathBuf::from("/"),
        };
        assert_eq!(call_yield_ms(&env("t-1")), Some(700));
        assert_eq!(call_yield_ms(&env("other")), Some(9));
        assert_eq!(call_yield_ms(&env("t-2")), None);
        assert_eq!(call_yield_ms(&env("../t-1")), None);
    }
}
