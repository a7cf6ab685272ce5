//! The timeout the model gave one CodeBuddy Bash call, read from CodeBuddy's session
//! transcript.
//!
//! CodeBuddy Code 2.117 moves a foreground command still running at its timeout to the
//! background and shows the model what it printed so far. The timeout is the call's own
//! `timeout` argument when the model gave one, else `BASH_DEFAULT_TIMEOUT_MS`. The shell
//! prefix holds the output to compact it and must let go before that moment, but the call's
//! arguments do not reach the shell: CodeBuddy writes the call to the session transcript
//! (`<config dir>/projects/<folder>/<session id>.jsonl`, one JSON object per line: `"name":
//! "Bash"`, `"arguments"` as a JSON string) before the command starts, and names the session
//! in the command's environment (`CODEBUDDY_SESSION_ID`). The call is the latest Bash call
//! whose command is the one running (seen in the real CLI by the e2e suite).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::env::Env;

/// How much of the transcript's end is read: the running call is among its last lines.
const TAIL: u64 = 256 * 1024;

/// The `timeout` (ms) of the latest Bash call in the session's transcript whose command is
/// `command`; `None` when there is no such call, it has no timeout, or the transcript
/// cannot be found or read.
pub fn call_timeout_ms(env: &Env, command: &str) -> Option<u64> {
    let session = env
        .var("CODEBUDDY_SESSION_ID")
        .filter(|s| is_plain_name(s))?;
    let dir = tokenjuice_hooks::homes::CODEBUDDY.resolve(env.home.as_deref(), |k| env.var(k))?;
    let path = transcript(&dir.join("projects"), &env.cwd, session)?;
    latest_call_timeout(&crate::files::read_tail(&path, TAIL)?, command)
}

/// A session id names a file: no separators, no `..`.
fn is_plain_name(s: &str) -> bool {
    !s.is_empty() && s.len() <= 200 && !s.contains('/') && s != "." && s != ".."
}

/// `<projects>/<folder>/<session>.jsonl`: the folder named after the working directory
/// (`/tmp/.x/project` → `tmp-.x-project`, as seen in 2.117; with the leading `-` too) is
/// tried first, then every one (the command may have changed directory).
fn transcript(projects: &Path, cwd: &Path, session: &str) -> Option<PathBuf> {
    let file = format!("{session}.jsonl");
    let slug = cwd.to_string_lossy().replace('/', "-");
    for name in [slug.trim_start_matches('-'), slug.as_str()] {
        let p = projects.join(name).join(&file);
        if p.is_file() {
            return Some(p);
        }
    }
    std::fs::read_dir(projects)
        .ok()?
        .flatten()
        .take(10_000)
        .map(|e| e.path().join(&file))
        .find(|p| p.is_file())
}

/// The timeout of the latest Bash call for `command` among the transcript lines `text`.
fn latest_call_timeout(text: &str, command: &str) -> Option<u64> {
    text.lines()
        .rev()
        .filter(|l| l.contains("\"Bash\"") && l.contains("\"arguments\""))
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["name"] == "Bash")
        .filter_map(|v| {
            let args = v["arguments"].as_str()?;
            serde_json::from_str::<Value>(args).ok()
        })
        .find(|args| args["command"] == command)
        .and_then(|args| args["timeout"].as_u64())
        .filter(|ms| *ms > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str, command: &str, timeout: Option<u64>) -> String {
        let mut args = serde_json::json!({"command": command, "description": "d"});
        if let Some(t) = timeout {
            args["timeout"] = t.into();
        }
        serde_json::json!({"type": "function_call", "callId": id, "name": "Bash",
            "arguments": args.to_string(), "sessionId": "s1"})
        .to_string()
    }

    #[test]
    fn the_latest_call_for_the_running_command_gives_the_timeout() {
        let text = [
            call("c1", "sleep 9", Some(1000)),
            r#"{"type":"function_call_result","callId":"c1","output":"x"}"#.to_string(),
            call("c2", "echo other", Some(2000)),
            call("c3", "sleep 9", Some(4000)),
            r#"{"type":"file-history-snapshot","snapshot":{}}"#.to_string(),
        ]
        .join("\n");
        assert_eq!(latest_call_timeout(&text, "sleep 9"), Some(4000));
        assert_eq!(latest_call_timeout(&text, "echo other"), Some(2000));
        assert_eq!(latest_call_timeout(&text, "ls"), None);
        // a call without a timeout has none, even when an earlier one for it had one
        let text = [call("c1", "ls", Some(1000)), call("c2", "ls", None)].join("\n");
        assert_eq!(latest_call_timeout(&text, "ls"), None);
    }

    #[test]
    fn the_transcript_is_found_by_session_under_the_config_dir() {
        let d = tempfile::tempdir().unwrap();
        let home = d.path().join("home");
        let folder = home.join(".codebuddy/projects/tmp-work-my.project");
        std::fs::create_dir_all(&folder).unwrap();
        let mut text = "x".repeat(300 * 1024);
        text.push('\n');
        text.push_str(&call("c9", "make test", Some(7000)));
        text.push('\n');
        std::fs::write(folder.join("abc-123.jsonl"), text).unwrap();
        let env = |session: &str, cwd: &str| Env {
            home: Some(home.clone()),
            vars: [("CODEBUDDY_SESSION_ID".to_string(), session.to_string())]
                .into_iter()
                .collect(),
            cwd: PathBuf::from(cwd),
        };
        // the working directory's folder, or (after a `cd`) any project folder
        assert_eq!(
            call_timeout_ms(&env("abc-123", "/tmp/work/my.project"), "make test"),
            Some(7000)
        );
        assert_eq!(
            call_timeout_ms(&env("abc-123", "/elsewhere"), "make test"),
            Some(7000)
        );
        assert_eq!(
            call_timeout_ms(&env("other", "/tmp/work"), "make test"),
            None
        );
        assert_eq!(
            call_timeout_ms(&env("../x", "/tmp/work"), "make test"),
            None
        );
    }
}
