//! The entrypoints hosts call: read the payload, decide, print the host's answer. They never
//! fail: any problem gives the host's "no change" answer (fail open). No entrypoint rewrites
//! a command: every host where a rewrite would have been judged by the host's permission
//! rules in place of the model's command is reached another way or refused. The pre-tool
//! path loads no rules and spawns nothing.

use serde_json::{json, Value};

use tokenjuice_core::budget::{split_lines, within_start};
use tokenjuice_core::compact::{compact_decoded_text, Finish, Request};
use tokenjuice_core::host_view;
use tokenjuice_core::rules::loader::FileRule;
use tokenjuice_core::tokens::estimate;

use crate::env::Env;
use crate::payload::{self, ToolCall};
use crate::registry::{Answer, HookSpec};
use crate::rewrite::is_already_wrapped;

/// Some hosts (Cursor on Windows) start the payload with a UTF-8 byte-order mark.
fn strip_bom(s: &str) -> &str {
    s.strip_prefix('\u{feff}').unwrap_or(s)
}

/// What the pre-tool hook did with a payload; the answer is "no change" whatever it says.
pub fn decide(spec: &HookSpec, stdin: &str) -> &'static str {
    let Ok(root) = serde_json::from_str::<Value>(strip_bom(stdin)) else {
        return "payload is not JSON";
    };
    let Some(call) = payload::parse(&root) else {
        return "payload is not a JSON object";
    };
    decide_call(spec, &call)
}

fn decide_call(spec: &HookSpec, call: &ToolCall) -> &'static str {
    if let Some(ev) = &call.event {
        if !ev.eq_ignore_ascii_case(spec.event) {
            return "not the pre-tool event";
        }
    }
    if let Some(tool) = &call.tool_name {
        if !spec.tools.contains(&tool.as_str()) {
            return "not the shell tool";
        }
    }
    let Some(command) = call.input.get("command").and_then(Value::as_str) else {
        return "no command";
    };
    if command.trim().is_empty() {
        return "empty command";
    }
    if spec.answer != Answer::MarkStreaming {
        return "this hook is retired: it changes nothing";
    }
    if call.input.get("run_in_background").and_then(Value::as_bool) != Some(true) {
        return "foreground command: the shell prefix compacts it";
    }
    match crate::streaming::mark(command) {
        Ok(()) => "marked to stream: output passes through",
        Err(_) => "could not mark the command to stream",
    }
}

/// Every host's "no change" answer (what a failing hook prints, too).
pub const NO_CHANGE: &str = "{}";

/// `tokenjuice <host>-pre-tool-use`: marks a background command for the shell prefix where
/// an older install's marking hook still runs (Claude Code, CodeBuddy); changes nothing.
pub fn pre_tool_use(spec: &HookSpec, stdin: &str) -> String {
    decide(spec, stdin);
    NO_CHANGE.to_string()
}

/// Shortest saving worth replacing a host's output for.
const MIN_SAVED_CHARS: usize = 8;

/// Copilot CLI's shell result text: the output (or, over ~20 KB, a preview naming the file
/// that holds it), then `<shellId: N completed with exit code N>`.
mod copilot {
    pub struct Shown<'a> {
        pub body: &'a str,
        /// The separator and the `<shellId: …>` line, as Copilot wrote them.
        pub trailer: &'a str,
        pub exit_code: i32,
        /// `Saved to: <file>` of a large-output preview.
        pub saved_file: Option<&'a str>,
    }

    pub fn parse(text: &str) -> Option<Shown<'_>> {
        let t = text.trim_end_matches('\n');
        let start = t.rfind("<shellId: ")?;
        let line = &t[start..];
        let code = line
            .strip_suffix('>')?
            .rsplit_once("with exit code ")?
            .1
            .trim()
            .parse()
            .ok()?;
        let body_end = t[..start].trim_end_matches('\n').len();
        let body = &t[..body_end];
        let saved_file = body
            .strip_prefix("Output too large to read at once")
            .and_then(|rest| rest.split_once("Saved to: "))
            .and_then(|(_, r)| r.split(|c: char| c.is_whitespace()).next())
            .filter(|p| p.contains("copilot-tool-output-") && p.ends_with(".txt"));
        Some(Shown {
            body,
            trailer: &text[body_end..],
            exit_code: code,
            saved_file,
        })
    }

    /// How many characters of the output its large-output preview shows (`Preview (first
    /// N chars):`; 500 when not said).
    pub fn preview_chars(body: &str) -> usize {
        body.split_once("Preview (first ")
            .and_then(|(_, r)| r.split_once(" chars)"))
            .and_then(|(n, _)| n.trim().parse().ok())
            .unwrap_or(500)
    }

    /// The full output Copilot saved, when it is a regular file of sane size.
    pub fn read_saved(path: &str) -> Option<String> {
        let meta = std::fs::metadata(path).ok()?;
        if !meta.is_file() || meta.len() > (64 << 20) {
            return None;
        }
        let bytes = std::fs::read(path).ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// `tokenjuice copilot-cli-post-tool-use`: replaces a successful shell result's
/// `textResultForLlm` with the compacted text; `{}` when there is nothing to gain.
pub fn post_tool_use(spec: &HookSpec, stdin: &str, rules: &[FileRule]) -> String {
    if spec.answer == Answer::GeminiTail {
        let Ok(payload) = serde_json::from_str::<Value>(strip_bom(stdin)) else {
            return NO_CHANGE.to_string();
        };
        let settings = crate::gemini_tail::settings_files(&payload, &Env::from_process());
        let tail = crate::gemini_tail::decide(&payload, rules, &settings);
        return crate::gemini_tail::answer(tail).to_string();
    }
    post_tool_use_value(spec, stdin, rules)
        .map(|v| v.to_string())
        .unwrap_or_else(|| NO_CHANGE.to_string())
}

fn post_tool_use_value(spec: &HookSpec, stdin: &str, rules: &[FileRule]) -> Option<Value> {
    let root: Value = serde_json::from_str(strip_bom(stdin)).ok()?;
    let call = payload::parse(&root)?;
    if let Some(tool) = &call.tool_name {
        if !spec.tools.contains(&tool.as_str()) {
            return None;
        }
    }
    let command = call.input.get("command").and_then(Value::as_str)?;
    if is_already_wrapped(command) {
        return None;
    }
    let obj = root.as_object()?;
    let result = ["toolResult", "tool_result"]
        .iter()
        .find_map(|k| obj.get(*k).and_then(Value::as_object))?;
    let kind = ["resultType", "result_type"]
        .iter()
        .find_map(|k| result.get(*k).and_then(Value::as_str))?;
    if kind != "success" {
        return None;
    }
    let (text_key, text) = ["textResultForLlm", "text_result_for_llm"]
        .iter()
        .find_map(|k| result.get(*k).and_then(Value::as_str).map(|t| (*k, t)))?;
    if text.trim().is_empty() {
        return None;
    }
    let shown = copilot::parse(text)?;
    let saved;
    let body = match shown.saved_file.and_then(copilot::read_saved) {
        Some(full) => {
            saved = full;
            saved.as_str()
        }
        None if shown.saved_file.is_some() => return None,
        None => shown.body,
    };
    let req = Request {
        tool_name: "exec",
        command: Some(command),
        host_shows_whole: spec.shows_whole(),
        ..Request::default()
    };
    let fin = Finish {
        source: Some(spec.id.to_string()),
        // Copilot ends the text with its own `<shellId: N completed with exit code N>`
        host_prints_exit: true,
        ..Finish::default()
    };
    // (Copilot's JSON carried text: bytes that were not UTF-8 are `\u{FFFD}` already)
    let (plan, compacted) = compact_decoded_text(&req, rules, body, shown.exit_code, &fin);
    let mut new_text = compacted.inline_text.trim_end_matches('\n').to_string();
    if let Some(path) = shown.saved_file {
        let header = format!("Full output saved to: {path}\n");
        // a line reduction is made again from the lines of Copilot's preview (its first N
        // characters), so that it holds every line the preview showed
        if host_view::is_line_reduction(&compacted) {
            let lines = split_lines(body);
            let view = within_start(&lines, copilot::preview_chars(shown.body));
            let own = |t: &str| t.chars().count();
            let room = host_view::Room {
                chars: own(text)
                    .saturating_sub(own(&header) + own(shown.trailer) + MIN_SAVED_CHARS),
                tokens: estimate(text).saturating_sub(estimate(&header) + estimate(shown.trailer)),
            };
            let how = "its whole output is in the file named above";
            match host_view::for_view(
                &plan,
                &compacted,
                &lines,
                &view,
                room,
                shown.exit_code,
                true,
                how,
            ) {
                host_view::ForHost::Text(t) => new_text = t,
                host_view::ForHost::Raw => return None,
            }
        }
        new_text = format!("{header}{new_text}");
    }
    new_text.push_str(shown.trailer);
    // never more for the model to read than Copilot's own text (its preview, when it cut)
    let fewer_tokens = estimate(&new_text) < estimate(text);
    if !fewer_tokens || new_text.chars().count() + MIN_SAVED_CHARS > text.chars().count() {
        return None;
    }
    let mut modified = result.clone();
    modified.insert(text_key.to_string(), Value::String(new_text));
    Some(json!({ "modifiedResult": modified }))
}
