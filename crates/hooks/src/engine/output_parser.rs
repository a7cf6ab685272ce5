//! Turns a hook's stdout into an effect, per dialect.
//!
//! Rules (the CodeBuddy and Claude Code hook references): stdout is JSON only when, after trimming
//! whitespace and a UTF-8 BOM, it starts with `{` and parses as exactly one JSON object.
//! Text that looks like JSON but is not (a second document, a truncated object) is treated
//! as plain text **and** reported, so a hook author learns why the decision was ignored.
//! Plain text becomes context only for events where the host does that (SessionStart,
//! UserPromptSubmit, PreCompact); Gemini shows it as a system message.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::dialects::{Dialect, OutputStyle, Placement, RewriteStyle};
use crate::events::EventKind;

/// A permission decision. Ordered by precedence: `Deny` > `Ask` > `Allow`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Allow,
    Ask,
    Deny,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Ask => "ask",
            Decision::Deny => "deny",
        }
    }
}

/// An input rewrite produced by one hook.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Rewrite {
    pub input: Map<String, Value>,
    pub style: RewriteStyle,
    /// The output field it came from (`modifiedInput`, `updatedInput`, …).
    pub field: String,
}

/// What one hook asks for, in canonical form.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookEffect {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<Decision>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewrite: Option<Rewrite>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub additional_context: Vec<String>,
    /// `Some(false)` stops the agent.
    #[serde(rename = "continue", skip_serializing_if = "Option::is_none")]
    pub continue_: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_message: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub suppress_output: bool,
    /// Text fed back to the agent without blocking (exit 2 on PostToolUse).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feedback: Option<String>,
    /// Problems with the hook's output or run, shown to the user.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Result of parsing stdout.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParsedStdout {
    /// The JSON object, when stdout was one.
    pub json: Option<Value>,
    pub effect: HookEffect,
    /// The host counts the hook as failed (non-blocking) because of what it printed (Codex:
    /// a PreToolUse answer outside its schema); `effect` then holds only warnings.
    pub failed: bool,
}

fn preview(s: &str) -> String {
    let one_line: String = s
        .chars()
        .take(80)
        .map(|c| if c == '\n' { ' ' } else { c })
        .collect();
    if s.chars().count() > 80 {
        format!("{one_line}…")
    } else {
        one_line
    }
}

/// Parses a hook's stdout (exit code 0) for `event` under `dialect`.
pub fn parse_stdout(dialect: &Dialect, event: EventKind, stdout: &str) -> ParsedStdout {
    let text = stdout.strip_prefix('\u{feff}').unwrap_or(stdout).trim();
    if text.is_empty() {
        return ParsedStdout::default();
    }
    if text.starts_with('{') {
        match serde_json::from_str::<Value>(text) {
            Ok(v @ Value::Object(_)) => {
                if dialect.strict_tool_output {
                    let refused = match event.base() {
                        EventKind::PreToolUse => strict_pre_tool_use_problem(&v),
                        EventKind::PostToolUse => match strict_post_tool_use(&v) {
                            StrictPost::Refused(problem) => Some(problem),
                            StrictPost::Stops(effect) => {
                                return ParsedStdout {
                                    effect: *effect,
                                    json: Some(v),
                                    failed: false,
                                }
                            }
                            StrictPost::Read => None,
                        },
                        _ => None,
                    };
                    if let Some(problem) = refused {
                        return ParsedStdout {
                            effect: failed_answer(dialect, &v, &problem),
                            json: Some(v),
                            failed: true,
                        };
                    }
                }
                let effect = effect_from_json(dialect, event, &v);
                return ParsedStdout {
                    json: Some(v),
                    effect,
                    failed: false,
                };
            }
            Ok(_) => return plain_text(dialect, event, text),
            Err(e) => {
                let mut parsed = plain_text(dialect, event, text);
                parsed.effect.warnings.insert(
                    0,
                    format!(
                        "stdout looks like JSON but is not valid JSON ({e}); it was treated as plain text and its fields were ignored. Print exactly one JSON object and nothing else on stdout (debug output belongs on stderr)"
                    ),
                );
                return parsed;
            }
        }
    }
    if dialect.output == OutputStyle::Gemini && text.starts_with('"') {
        // Gemini tolerates a JSON object encoded as a JSON string.
        if let Ok(Value::String(inner)) = serde_json::from_str::<Value>(text) {
            if let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(inner.trim()) {
                let effect = effect_from_json(dialect, event, &v);
                return ParsedStdout {
                    json: Some(v),
                    effect,
                    failed: false,
                };
            }
        }
    }
    plain_text(dialect, event, text)
}

/// The effect of a PreToolUse answer the host refuses: nothing applies (no decision, no
/// context, no rewrite), the tool runs; the host still shows a well-formed `systemMessage`.
fn failed_answer(dialect: &Dialect, v: &Value, problem: &str) -> HookEffect {
    HookEffect {
        system_message: v
            .get("systemMessage")
            .and_then(Value::as_str)
            .map(str::to_string),
        warnings: vec![format!(
            "{} counts this hook as failed and ignores its whole answer, so the tool runs (non-blocking): {problem}",
            dialect.display_name
        )],
        ..HookEffect::default()
    }
}

/// What a field of a Codex hook answer may hold.
#[derive(Clone, Copy)]
enum Field {
    Bool,
    /// A string, or null.
    Text,
    /// One of these strings, or null.
    OneOf(&'static [&'static str]),
    /// An object, or null.
    Object,
    /// A string (`hookEventName`).
    Name,
    Any,
}

impl Field {
    fn holds(self, v: &Value) -> bool {
        match self {
            Field::Bool => v.is_boolean(),
            Field::Text => v.is_string() || v.is_null(),
            Field::OneOf(allowed) => {
                v.is_null() || v.as_str().is_some_and(|s| allowed.contains(&s))
            }
            Field::Object => v.is_object() || v.is_null(),
            Field::Name => v.is_string(),
            Field::Any => true,
        }
    }
}

/// The fields every Codex hook answer may have (`HookUniversalOutputWire`).
const UNIVERSAL: [(&str, Field); 4] = [
    ("continue", Field::Bool),
    ("suppressOutput", Field::Bool),
    ("stopReason", Field::Text),
    ("systemMessage", Field::Text),
];

/// Codex parses a tool event's answer into closed structs: an unknown field, a wrong type
/// or an unknown value fails, and `hookSpecificOutput.hookEventName` is required
/// (openai/codex `codex-rs/hooks/src/schema.rs`, the `…CommandOutputWire` structs). `what`
/// names the event as Codex's message does (`pre-tool-use`).
fn codex_schema_problem(
    obj: &Map<String, Value>,
    what: &str,
    top: &[(&str, Field)],
    specific: &[(&str, Field)],
) -> Option<String> {
    let invalid = |why: String| Some(format!("invalid {what} JSON output: {why}"));
    let kind = |fields: &[(&str, Field)], key: &str| {
        UNIVERSAL
            .iter()
            .chain(fields)
            .find(|(k, _)| *k == key)
            .map(|(_, f)| *f)
    };
    for (key, value) in obj {
        match kind(top, key) {
            None => return invalid(format!("unknown field `{key}`")),
            Some(f) if !f.holds(value) => {
                return invalid(format!("`{key}` has an unexpected value {value}"))
            }
            Some(_) => {}
        }
    }
    if let Some(h) = obj.get("hookSpecificOutput").and_then(Value::as_object) {
        for (key, value) in h {
            let f = if key == "hookEventName" {
                Some(Field::Name)
            } else {
                specific.iter().find(|(k, _)| k == key).map(|(_, f)| *f)
            };
            match f {
                None => return invalid(format!("unknown field `hookSpecificOutput.{key}`")),
                Some(f) if !f.holds(value) => {
                    return invalid(format!(
                        "`hookSpecificOutput.{key}` has an unexpected value {value}"
                    ))
                }
                Some(_) => {}
            }
        }
        if !h.contains_key("hookEventName") {
            return invalid("`hookSpecificOutput.hookEventName` is missing".into());
        }
    }
    None
}

/// `k` is in `m` and not null.
fn given(m: Option<&Map<String, Value>>, k: &str) -> bool {
    m.and_then(|m| m.get(k)).is_some_and(|v| !v.is_null())
}

/// `k` is in `m` and a string with more than whitespace.
fn has_text(m: Option<&Map<String, Value>>, k: &str) -> bool {
    m.and_then(|m| m.get(k))
        .and_then(Value::as_str)
        .is_some_and(|r| !r.trim().is_empty())
}

/// Why Codex refuses a PreToolUse answer, or `None` when it reads it: outside its schema
/// ([`codex_schema_problem`]), or a field it does not support on PreToolUse
/// (`codex-rs/hooks/src/engine/output_parser.rs`, `parse_pre_tool_use`; the messages are the
/// Codex 0.169 binary's). Either way the hook counts as failed and the tool runs (measured
/// in Codex 0.169 and 0.171: crates/e2e/tests/hooks_differential_codex.rs).
fn strict_pre_tool_use_problem(v: &Value) -> Option<String> {
    let obj = v.as_object()?;
    if let Some(problem) = codex_schema_problem(
        obj,
        "pre-tool-use",
        &[
            ("reason", Field::Text),
            ("decision", Field::OneOf(&["approve", "block"])),
            ("hookSpecificOutput", Field::Object),
        ],
        &[
            (
                "permissionDecision",
                Field::OneOf(&["allow", "deny", "ask"]),
            ),
            ("permissionDecisionReason", Field::Text),
            ("additionalContext", Field::Text),
            ("updatedInput", Field::Any),
        ],
    ) {
        return Some(problem);
    }
    let hso = obj.get("hookSpecificOutput").and_then(Value::as_object);
    let unsupported = |what: &str| Some(format!("PreToolUse hook returned {what}"));
    if obj.get("continue") == Some(&Value::Bool(false)) {
        return unsupported("unsupported continue:false");
    }
    if obj.get("stopReason").is_some_and(|v| !v.is_null()) {
        return unsupported("unsupported stopReason");
    }
    if obj.get("suppressOutput") == Some(&Value::Bool(true)) {
        return unsupported("unsupported suppressOutput");
    }
    let hso_decides = [
        "permissionDecision",
        "permissionDecisionReason",
        "updatedInput",
    ]
    .iter()
    .any(|k| given(hso, k));
    if hso_decides {
        let decision = hso
            .and_then(|h| h.get("permissionDecision"))
            .and_then(Value::as_str);
        if given(hso, "updatedInput") && decision != Some("allow") {
            return unsupported(
                "updatedInput without permissionDecision:allow (Codex reads updatedInput only with permissionDecision \"allow\")",
            );
        }
        match decision {
            Some("allow") if !given(hso, "updatedInput") => {
                unsupported("unsupported permissionDecision:allow")
            }
            Some("ask") => unsupported("unsupported permissionDecision:ask"),
            Some("deny") if !has_text(hso, "permissionDecisionReason") => {
                unsupported("permissionDecision:deny without a non-empty permissionDecisionReason")
            }
            None => unsupported("permissionDecisionReason without permissionDecision"),
            _ => None,
        }
    } else {
        match obj.get("decision").and_then(Value::as_str) {
            Some("approve") => unsupported("unsupported decision:approve"),
            Some("block") if !has_text(Some(obj), "reason") => {
                unsupported("decision:block without a non-empty reason")
            }
            None if given(Some(obj), "reason") => unsupported("reason without decision"),
            _ => None,
        }
    }
}

/// How Codex reads a PostToolUse answer.
enum StrictPost {
    /// It counts the hook as failed and reads nothing of the answer but its `systemMessage`.
    Refused(String),
    /// `continue: false`: the text stands in place of the command's output, and the turn
    /// goes on (the effect).
    Stops(Box<HookEffect>),
    /// As every host reads it.
    Read,
}

/// Codex's PostToolUse reading (openai/codex `codex-rs/hooks/src/engine/output_parser.rs`
/// `parse_post_tool_use` and `events/post_tool_use.rs` `parse_completed`; the messages are
/// the Codex 0.171 binary's; measured in Codex 0.171 by
/// crates/e2e/tests/hooks_differential_codex.rs). An answer outside the schema is refused.
/// `continue: false` comes first: its `reason`, else its `stopReason`, else a fixed text
/// takes the place of the command's output. Then `suppressOutput: true`,
/// `updatedMCPToolOutput` (for the shell tool), a block without a reason, or a reason
/// without a decision, are refused too; an answer refused for those adds no context.
fn strict_post_tool_use(v: &Value) -> StrictPost {
    let Some(obj) = v.as_object() else {
        return StrictPost::Read;
    };
    if let Some(problem) = codex_schema_problem(
        obj,
        "post-tool-use",
        &[
            ("reason", Field::Text),
            ("decision", Field::OneOf(&["block"])),
            ("hookSpecificOutput", Field::Object),
        ],
        &[
            ("additionalContext", Field::Text),
            ("updatedMCPToolOutput", Field::Any),
        ],
    ) {
        return StrictPost::Refused(problem);
    }
    let hso = obj.get("hookSpecificOutput").and_then(Value::as_object);
    let unsupported = |what: &str| Some(format!("PostToolUse hook returned {what}"));
    let blocks = obj.get("decision").and_then(Value::as_str) == Some("block");
    let stops = obj.get("continue") == Some(&Value::Bool(false));
    let refused = if obj.get("suppressOutput") == Some(&Value::Bool(true)) {
        unsupported("unsupported suppressOutput")
    } else if given(hso, "updatedMCPToolOutput") {
        unsupported("unsupported updatedMCPToolOutput")
    } else if blocks && !has_text(Some(obj), "reason") {
        unsupported("decision:block without a non-empty reason")
    } else if !blocks && !stops && given(Some(obj), "reason") {
        unsupported("reason without decision")
    } else {
        None
    };
    if stops {
        let text = |k: &str| {
            obj.get(k)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_string)
        };
        let mut effect = HookEffect {
            feedback: Some(
                text("reason")
                    .or_else(|| {
                        obj.get("stopReason")
                            .and_then(Value::as_str)
                            .map(str::to_string)
                    })
                    .unwrap_or_else(|| "PostToolUse hook stopped execution".into()),
            ),
            system_message: obj
                .get("systemMessage")
                .and_then(Value::as_str)
                .map(str::to_string),
            ..HookEffect::default()
        };
        match (
            refused,
            hso.and_then(|h| h.get("additionalContext"))
                .and_then(Value::as_str),
        ) {
            (None, Some(c)) => effect.additional_context.push(c.to_string()),
            (Some(problem), _) => effect.warnings.push(format!(
                "Codex adds none of this answer's context: {problem}"
            )),
            _ => {}
        }
        return StrictPost::Stops(Box::new(effect));
    }
    match refused {
        Some(problem) => StrictPost::Refused(problem),
        None => StrictPost::Read,
    }
}

fn plain_text(dialect: &Dialect, event: EventKind, text: &str) -> ParsedStdout {
    let mut effect = HookEffect::default();
    if dialect.output == OutputStyle::Gemini {
        effect.system_message = Some(text.to_string());
    } else if event.spec().plain_stdout_is_context {
        effect.additional_context.push(text.to_string());
    }
    ParsedStdout {
        json: None,
        effect,
        failed: false,
    }
}

fn get_str(obj: &Map<String, Value>, key: &str, effect: &mut HookEffect) -> Option<String> {
    match obj.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => {
            effect.warnings.push(format!(
                "`{key}` must be a string, found {}; ignored",
                preview(&other.to_string())
            ));
            None
        }
    }
}

fn get_bool(obj: &Map<String, Value>, key: &str, effect: &mut HookEffect) -> Option<bool> {
    match obj.get(key)? {
        Value::Bool(b) => Some(*b),
        Value::Null => None,
        other => {
            effect.warnings.push(format!(
                "`{key}` must be true or false, found {}; ignored",
                preview(&other.to_string())
            ));
            None
        }
    }
}

fn parse_decision(raw: &str, key: &str, effect: &mut HookEffect) -> Option<Decision> {
    match raw {
        "allow" | "approve" => Some(Decision::Allow),
        "deny" | "block" => Some(Decision::Deny),
        "ask" => Some(Decision::Ask),
        other => {
            effect.warnings.push(format!(
                "`{key}` has unknown value {other:?} (expected allow, deny or ask); ignored"
            ));
            None
        }
    }
}

/// Builds the effect of a parsed JSON object. Also used for model-backed handlers.
pub fn effect_from_json(dialect: &Dialect, event: EventKind, v: &Value) -> HookEffect {
    let mut e = HookEffect::default();
    let Value::Object(obj) = v else {
        e.warnings
            .push("hook output must be a JSON object; ignored".into());
        return e;
    };
    let spec = event.spec();
    let base = event.base();
    let permission_event = matches!(base, EventKind::PreToolUse | EventKind::PermissionRequest);

    // Universal fields.
    e.continue_ = get_bool(obj, "continue", &mut e);
    e.stop_reason = get_str(obj, "stopReason", &mut e);
    e.system_message = get_str(obj, "systemMessage", &mut e);
    e.suppress_output = get_bool(obj, "suppressOutput", &mut e).unwrap_or(false);

    let mut decision: Option<Decision> = None;
    let mut reason: Option<String> = None;
    let mut rewrite: Option<Rewrite> = None;

    match dialect.output {
        OutputStyle::Cursor => {
            if let Some(p) = get_str(obj, "permission", &mut e) {
                decision = parse_decision(&p, "permission", &mut e);
            }
            reason = get_str(obj, "agent_message", &mut e);
            if let Some(um) = get_str(obj, "user_message", &mut e) {
                e.system_message = Some(um);
            }
            if let Some(c) = get_str(obj, "additional_context", &mut e) {
                e.additional_context.push(c);
            }
            if let Some(f) = get_str(obj, "followup_message", &mut e) {
                e.additional_context.push(f);
            }
            for camel in ["userMessage", "agentMessage"] {
                if obj.contains_key(camel) {
                    e.warnings.push(format!(
                        "Cursor reads snake_case fields; `{camel}` is ignored (use `{}`)",
                        if camel == "userMessage" {
                            "user_message"
                        } else {
                            "agent_message"
                        }
                    ));
                }
            }
        }
        OutputStyle::Claude | OutputStyle::Gemini => {
            // Top-level `decision`/`reason` (Gemini; Claude's legacy approve/block form).
            if let Some(d) = get_str(obj, "decision", &mut e) {
                decision = parse_decision(&d, "decision", &mut e);
                reason = get_str(obj, "reason", &mut e);
            }
            if let Some(hso) = obj.get("hookSpecificOutput") {
                match hso {
                    Value::Object(h) => {
                        if let Some(name) = get_str(h, "hookEventName", &mut e) {
                            let expected = dialect
                                .event_name(event)
                                .or_else(|| dialect.event_name(base));
                            if expected.is_some_and(|x| x != name)
                                && name != base.name()
                                && name != event.name()
                            {
                                e.warnings.push(format!("hookSpecificOutput.hookEventName is {name:?} but the event is {}; fields were read anyway", expected.unwrap_or(event.name())));
                            }
                        }
                        if let Some(d) = get_str(h, "permissionDecision", &mut e) {
                            decision = parse_decision(&d, "permissionDecision", &mut e);
                            reason = get_str(h, "permissionDecisionReason", &mut e).or(reason);
                        }
                        if let Some(c) = get_str(h, "additionalContext", &mut e) {
                            e.additional_context.push(c);
                        }
                        // PermissionRequest: `decision: {behavior, message, updatedInput}`
                        // (Claude Code's hook reference; an `allow` let the command run in
                        // the real Claude Code 2.1.332: crates/e2e/tests/hooks_differential.rs)
                        if base == EventKind::PermissionRequest {
                            if let Some(d) = h.get("decision").and_then(Value::as_object) {
                                if let Some(b) = get_str(d, "behavior", &mut e) {
                                    decision = parse_decision(&b, "decision.behavior", &mut e);
                                    reason = get_str(d, "message", &mut e).or(reason);
                                }
                                if let Some(Value::Object(m)) = d.get("updatedInput") {
                                    rewrite = Some(Rewrite {
                                        input: m.clone(),
                                        style: RewriteStyle::Replace,
                                        field: "decision.updatedInput".into(),
                                    });
                                }
                            }
                        }
                    }
                    Value::Null => {}
                    other => e.warnings.push(format!(
                        "`hookSpecificOutput` must be an object, found {}; ignored",
                        preview(&other.to_string())
                    )),
                }
            }
            // Some CodeBuddy adapters also put permissionDecision at the top level.
            if decision.is_none() {
                if let Some(d) = get_str(obj, "permissionDecision", &mut e) {
                    decision = parse_decision(&d, "permissionDecision", &mut e);
                    reason = get_str(obj, "permissionDecisionReason", &mut e).or(reason);
                }
            }
            if dialect.output == OutputStyle::Gemini {
                if let Some(c) = get_str(obj, "additionalContext", &mut e) {
                    e.additional_context.push(c);
                }
            }
        }
    }

    // Input rewrite.
    for (field, placement) in dialect.rewrite.fields {
        let container = match placement {
            Placement::TopLevel => Some(obj),
            Placement::Nested => obj.get("hookSpecificOutput").and_then(Value::as_object),
        };
        match container.and_then(|c| c.get(*field)) {
            None | Some(Value::Null) => {}
            Some(Value::Object(m)) => {
                if rewrite.is_none() {
                    rewrite = Some(Rewrite {
                        input: m.clone(),
                        style: dialect.rewrite.style,
                        field: (*field).to_string(),
                    });
                }
            }
            Some(other) => e.warnings.push(format!(
                "`{field}` must be an object with the tool's parameters, found {}; ignored",
                preview(&other.to_string())
            )),
        }
    }
    for foreign in dialect.rewrite.foreign_fields {
        let nested = obj
            .get("hookSpecificOutput")
            .and_then(Value::as_object)
            .is_some_and(|h| h.contains_key(*foreign));
        if nested || obj.contains_key(*foreign) {
            let ours: Vec<&str> = dialect.rewrite.fields.iter().map(|(f, _)| *f).collect();
            e.warnings.push(format!(
                "{} does not read `{foreign}`; the rewrite was ignored (use `{}`)",
                dialect.display_name, ours[0]
            ));
        }
    }

    // Fit the generic fields to what the event supports.
    if let Some(d) = decision {
        if permission_event {
            e.decision = Some(d);
            e.reason = reason;
        } else if d == Decision::Deny && spec.exit2_blocks {
            // `decision: "block"` on UserPromptSubmit / Stop / SubagentStop …
            e.decision = Some(Decision::Deny);
            e.reason = reason;
        } else if d == Decision::Deny && spec.exit2_feedback {
            e.feedback = Some(reason.unwrap_or_else(|| "blocked by hook".to_string()));
        } else if d != Decision::Allow {
            e.warnings.push(format!(
                "{event} cannot be {}ed; the decision was ignored",
                d.as_str()
            ));
        }
    }
    if let Some(r) = rewrite {
        if permission_event {
            e.rewrite = Some(r);
        } else {
            e.warnings.push(format!(
                "`{}` only applies to tool events; ignored for {event}",
                r.field
            ));
        }
    }
    e
}

#[cfg(test)]
#[path = "output_parser_tests.rs"]
mod tests;
