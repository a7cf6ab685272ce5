//! Gemini CLI: an `AfterTool` hook that hands the model the compacted result through a
//! tail call. Gemini (0.31+) documents `hookSpecificOutput.tailToolCallRequest` on AfterTool:
//! the tail call's result replaces the tool's response, under the original call's name and id.
//! The hook writes the compacted result, in Gemini's own envelope, to a file in Gemini's project
//! temp folder and asks for `read_file` of it. The shell command itself ran exactly as without
//! us: no rewrite (a BeforeTool rewrite is checked by Gemini's policy engine as the rewritten
//! command, so deny rules stopped matching), arguments untouched.
//!
//! The hook answers `{}` (Gemini's own result) whenever it is not sure: another tool, an
//! error, a background or cancelled command, an envelope it does not recognise, a result
//! that would not shrink, or settings that could stop `read_file` (excluded, not in
//! `tools.core`, needing confirmation, named in a policy file, or watched by another
//! BeforeTool hook).

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use tokenjuice_core::budget::{self, HostCut};
use tokenjuice_core::compact::{compact_decoded_text, Finish, Request};
use tokenjuice_core::host_view::{self, ForHost};
use tokenjuice_core::rules::loader::FileRule;

/// Gemini's cut and `read_file`'s line limit: the host table's row.
fn cut() -> HostCut {
    crate::registry::by_id("gemini-cli")
        .expect("gemini-cli is a host")
        .cut
}
const MAX_LINE_CHARS: usize = 2_000;

/// Gemini's shell result: `<untrusted_context>\nOutput: BODY` then trailer lines.
#[derive(Debug, PartialEq, Eq)]
pub struct Envelope<'a> {
    pub body: &'a str,
    /// `Error: …`, `Exit Code: N`, `Signal: …`, `Background PIDs: …`, `Process Group PGID: …`.
    pub trailer: Vec<&'a str>,
    pub exit_code: i32,
}

const OPEN: &str = "<untrusted_context>\nOutput: ";
const CLOSE: &str = "\n</untrusted_context>";
const TRAILER_KEYS: [&str; 5] = [
    "Error: ",
    "Exit Code: ",
    "Signal: ",
    "Background PIDs: ",
    "Process Group PGID: ",
];

/// Reads the envelope from the end: the trailer lines are Gemini's, everything before them
/// is the command's output.
pub fn parse(text: &str) -> Option<Envelope<'_>> {
    let inner = text.strip_prefix(OPEN)?.strip_suffix(CLOSE)?;
    let mut end = inner.len();
    let mut trailer = Vec::new();
    while let Some(line_start) = inner[..end].rfind('\n') {
        let line = &inner[line_start + 1..end];
        if !TRAILER_KEYS.iter().any(|k| line.starts_with(k)) {
            break;
        }
        trailer.push(line);
        end = line_start;
    }
    trailer.reverse();
    if !trailer.last()?.starts_with("Process Group PGID: ") {
        return None;
    }
    let exit_code = trailer
        .iter()
        .find_map(|l| l.strip_prefix("Exit Code: "))
        .map(|c| c.trim().parse().ok())
        .unwrap_or(Some(0))?;
    Some(Envelope {
        body: &inner[..end],
        trailer,
        exit_code,
    })
}

fn rebuild(body: &str, trailer: &[&str]) -> String {
    let mut s = String::with_capacity(body.len() + 200);
    s.push_str(OPEN);
    s.push_str(body);
    for t in trailer {
        s.push('\n');
        s.push_str(t);
    }
    s.push_str(CLOSE);
    s
}

/// What the hook decided, for the answer and for tests.
#[derive(Debug, PartialEq)]
pub enum Tail {
    Replace { file: PathBuf, text: String },
    Keep(&'static str),
}

/// Decide on one AfterTool payload. `settings` lists the settings files to check.
pub fn decide(payload: &Value, rules: &[FileRule], settings: &[PathBuf]) -> Tail {
    if payload["tool_name"] != "run_shell_command" {
        return Tail::Keep("not the shell tool");
    }
    if payload["tool_input"]["is_background"] == true {
        return Tail::Keep("background command");
    }
    let resp = &payload["tool_response"];
    if !resp["error"].is_null() {
        return Tail::Keep("the tool reported an error");
    }
    let Some(content) = resp["llmContent"].as_str() else {
        return Tail::Keep("no text result");
    };
    let Some(env) = parse(content) else {
        return Tail::Keep("not a shell result envelope");
    };
    let Some(command) = payload["tool_input"]["command"].as_str() else {
        return Tail::Keep("no command");
    };
    let Some(transcript) = payload["transcript_path"].as_str() else {
        return Tail::Keep("no transcript_path to place the result beside");
    };
    if let Some(why) = read_file_blocked(settings) {
        return Tail::Keep(why);
    }
    let req = Request {
        tool_name: "exec",
        command: Some(command),
        host_shows_whole: cut().shows_whole(),
        ..Request::default()
    };
    let fin = Finish {
        source: Some("gemini-cli".into()),
        host_prints_exit: true,
        ..Finish::default()
    };
    // (Gemini's JSON carried text: bytes that were not UTF-8 are `\u{FFFD}` already)
    let (plan, result) = compact_decoded_text(&req, rules, env.body, env.exit_code, &fin);
    let raw_chars = env.body.chars().count();
    let how = "rerun the command through `tokenjuice wrap --raw --` for all";
    // a line reduction of an output Gemini cuts (its first 8,000 and last 32,000
    // characters) is made of the lines Gemini would show
    let body = match host_view::for_host(&plan, &result, env.body, &cut(), env.exit_code, true, how)
    {
        // made of Gemini's own lines: never cut further (past read_file's lines it is kept
        // out below, and Gemini's own text stays)
        Some(ForHost::Text(t)) => t,
        Some(ForHost::Raw) => return Tail::Keep("nothing smaller holds what Gemini shows of it"),
        None => {
            let budget = cut().budget(raw_chars, env.exit_code != 0);
            let body = result.inline_text;
            if body.chars().count() > budget || body.lines().count() > cut().max_lines {
                budget::fit(&body, budget.saturating_sub(300), cut().max_lines - 10, how)
            } else {
                body
            }
        }
    };
    let text = rebuild(&body, &env.trailer);
    if text.chars().count() >= content.chars().count() {
        return Tail::Keep("compaction would not shrink it");
    }
    if text.lines().any(|l| l.chars().count() > MAX_LINE_CHARS)
        || text.lines().count() > cut().max_lines
        || text.contains('\0')
    {
        return Tail::Keep("read_file would not return it whole");
    }
    let dir = Path::new(transcript)
        .parent()
        .and_then(Path::parent)
        .map(|p| p.join("tokenjuice"));
    let Some(dir) = dir else {
        return Tail::Keep("transcript_path has no project folder");
    };
    Tail::Replace {
        file: dir.join(format!("{}.txt", unique_name())),
        text,
    }
}

fn unique_name() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{:x}-{:x}", std::process::id(), nanos)
}

/// A reason `read_file` might not run our tail as a plain read, from the settings files.
pub fn read_file_blocked(settings: &[PathBuf]) -> Option<&'static str> {
    for path in settings {
        let Some(v) = read_json(path) else { continue };
        let tools = &v["tools"];
        let names = |k: &str| -> Vec<String> {
            tools[k]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        };
        let is_read = |n: &String| {
            n == "read_file" || n.starts_with("ReadFile") || n.starts_with("read_file(")
        };
        if names("exclude").iter().any(is_read) {
            return Some("read_file is excluded in the settings");
        }
        if tools["core"].is_array() && !names("core").iter().any(is_read) {
            return Some("tools.core does not list read_file");
        }
        if names("confirmationRequired").iter().any(is_read) {
            return Some("read_file needs confirmation in the settings");
        }
        for group in v["hooks"]["BeforeTool"].as_array().into_iter().flatten() {
            let m = group["matcher"].as_str().unwrap_or("");
            let ours = group["hooks"].as_array().into_iter().flatten().all(|h| {
                h["command"]
                    .as_str()
                    .is_some_and(|c| c.contains("gemini-cli-"))
            });
            if !ours && (m.is_empty() || m == "*" || m.contains("read") || m.contains(".*")) {
                return Some("another BeforeTool hook may see read_file");
            }
        }
        if let Some(dir) = path.parent().map(|d| d.join("policies")) {
            if policies_mention_read_file(&dir) {
                return Some("a policy file names read_file");
            }
        }
    }
    None
}

fn read_json(path: &Path) -> Option<Value> {
    // the project's settings come with a cloned repository: regular files only, never blocking
    let bytes = tokenjuice_untrusted::read(path, tokenjuice_untrusted::MAX_SETTINGS_FILE).ok()?;
    // Gemini reads its settings with comments allowed
    let text = String::from_utf8(bytes).ok()?;
    serde_json::from_str(&crate::files::blank_comments(&text)).ok()
}

fn policies_mention_read_file(dir: &Path) -> bool {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return false;
    };
    rd.flatten().take(200).any(|e| {
        let p = e.path();
        p.extension().is_some_and(|x| x == "toml")
            && tokenjuice_untrusted::read_to_string(&p, tokenjuice_untrusted::MAX_SETTINGS_FILE)
                .is_ok_and(|t| t.contains("read_file"))
    })
}

/// The settings files Gemini reads for this payload: system, user, project.
pub fn settings_files(payload: &Value, env: &crate::Env) -> Vec<PathBuf> {
    let mut out = vec![PathBuf::from(
        env.var("GEMINI_CLI_SYSTEM_SETTINGS_PATH")
            .unwrap_or("/etc/gemini-cli/settings.json"),
    )];
    if let Ok(p) = crate::paths::config_path(
        &crate::registry::Anchor::User(&tokenjuice_hooks::homes::GEMINI),
        "settings.json",
        env,
    ) {
        out.push(p);
    }
    if let Some(cwd) = payload["cwd"].as_str() {
        out.push(Path::new(cwd).join(".gemini/settings.json"));
    }
    out
}

/// Write the tail file and answer; `{}` on any failure.
pub fn answer(t: Tail) -> Value {
    let Tail::Replace { file, text } = t else {
        return json!({});
    };
    let written = (|| -> std::io::Result<()> {
        use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
        let dir = file
            .parent()
            .ok_or_else(|| std::io::Error::other("no parent"))?;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
        prune(dir);
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&file)?;
        std::io::Write::write_all(&mut f, text.as_bytes())
    })();
    if written.is_err() {
        return json!({});
    }
    json!({"hookSpecificOutput": {
        "hookEventName": "AfterTool",
        "tailToolCallRequest": {"name": "read_file", "args": {"file_path": file.display().to_string()}},
    }})
}

/// Remove tail files older than a day (never the one being written: it does not exist yet).
fn prune(dir: &Path) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let day = std::time::Duration::from_secs(86_400);
    for e in rd.flatten().take(1000) {
        let old = e
            .metadata()
            .ok()
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > day);
        if old && e.path().extension().is_some_and(|x| x == "txt") {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn envelope(body: &str, trailer: &str) -> String {
        format!("{OPEN}{body}\n{trailer}{CLOSE}")
    }

    #[test]
    fn parses_the_trailer_from_the_end() {
        let t = envelope(
            "a\nExit Code: looks like a trailer\nb",
            "Exit Code: 3\nProcess Group PGID: 12",
        );
        let e = parse(&t).unwrap();
        assert_eq!(e.body, "a\nExit Code: looks like a trailer\nb");
        assert_eq!(e.exit_code, 3);
        assert_eq!(e.trailer, vec!["Exit Code: 3", "Process Group PGID: 12"]);
        let ok = envelope("x", "Process Group PGID: 9");
        assert_eq!(parse(&ok).unwrap().exit_code, 0);
        assert!(parse("Output: x").is_none());
        assert!(parse(&envelope("x", "Exit Code: 1")).is_none());
    }

    fn payload(body: &str, trailer: &str, dir: &Path) -> Value {
        json!({"tool_name": "run_shell_command", "tool_input": {"command": "seq 1 3000"},
            "transcript_path": dir.join("chats/session.json").display().to_string(),
            "tool_response": {"llmContent": envelope(body, trailer)}})
    }

    #[test]
    fn a_noisy_result_becomes_a_read_of_the_compacted_envelope() {
        let dir = tempfile::tempdir().unwrap();
        let body: Vec<String> = (1..=3000).map(|i| i.to_string()).collect();
        let p = payload(
            &body.join("\n"),
            "Exit Code: 3\nProcess Group PGID: 7",
            dir.path(),
        );
        let Tail::Replace { file, text } = decide(&p, &[], &[]) else {
            panic!("kept")
        };
        assert!(file.starts_with(dir.path().join("tokenjuice")));
        assert!(
            text.starts_with(OPEN)
                && text.ends_with("Exit Code: 3\nProcess Group PGID: 7\n</untrusted_context>"),
            "{text}"
        );
        assert!(!text.contains("exit 3"), "a second exit line: {text}");
        assert!(text.contains("3000"));
        let a = answer(Tail::Replace {
            file: file.clone(),
            text: text.clone(),
        });
        assert_eq!(
            a["hookSpecificOutput"]["tailToolCallRequest"]["name"],
            "read_file"
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    }

    #[test]
    fn keeps_the_hosts_result_when_unsure() {
        let dir = tempfile::tempdir().unwrap();
        let small = payload("hi", "Process Group PGID: 7", dir.path());
        assert!(matches!(decide(&small, &[], &[]), Tail::Keep(_)));
        let mut bg = payload("x", "Process Group PGID: 7", dir.path());
        bg["tool_input"]["is_background"] = json!(true);
        assert_eq!(decide(&bg, &[], &[]), Tail::Keep("background command"));
        let settings = dir.path().join("settings.json");
        let big: Vec<String> = (1..=3000).map(|i| i.to_string()).collect();
        let noisy = payload(&big.join("\n"), "Process Group PGID: 7", dir.path());
        for s in [
            json!({"tools": {"exclude": ["read_file"]}}),
            json!({"tools": {"core": ["run_shell_command"]}}),
            json!({"hooks": {"BeforeTool": [{"matcher": "*", "hooks": [{"type": "command", "command": "audit"}]}]}}),
        ] {
            std::fs::write(&settings, s.to_string()).unwrap();
            assert!(
                matches!(
                    decide(&noisy, &[], std::slice::from_ref(&settings)),
                    Tail::Keep(_)
                ),
                "{s}"
            );
        }
    }
}
