use super::*;
use crate::dialects::Host;
use proptest::prelude::*;
use serde_json::json;

fn cb(event: EventKind, out: &str) -> ParsedStdout {
    parse_stdout(Host::CodeBuddy.dialect(), event, out)
}

#[test]
fn seed_002_pre_tool_use_outputs() {
    let allow = cb(
        EventKind::PreToolUse,
        r#"{"continue": true,"hookSpecificOutput": {"hookEventName": "PreToolUse","permissionDecision": "allow"}}"#,
    );
    assert_eq!(allow.effect.decision, Some(Decision::Allow));
    assert_eq!(allow.effect.continue_, Some(true));
    assert!(allow.effect.warnings.is_empty());

    let modify = cb(
        EventKind::PreToolUse,
        r#"{"continue": true,"hookSpecificOutput": {"hookEventName": "PreToolUse","permissionDecision": "allow","permissionDecisionReason": "Added --legacy-peer-deps parameter","modifiedInput": {"command": "npm install --legacy-peer-deps","requires_approval": false}}}"#,
    );
    let rw = modify.effect.rewrite.clone().unwrap();
    assert_eq!(rw.field, "modifiedInput");
    assert_eq!(
        Value::Object(rw.input),
        json!({"command": "npm install --legacy-peer-deps","requires_approval": false})
    );
    assert_eq!(
        modify.effect.reason.as_deref(),
        Some("Added --legacy-peer-deps parameter")
    );

    let deny = cb(
        EventKind::PreToolUse,
        r#"{"continue": false,"hookSpecificOutput": {"hookEventName": "PreToolUse","permissionDecision": "deny","permissionDecisionReason": "Dangerous command detected: rm -rf /"}}"#,
    );
    assert_eq!(deny.effect.decision, Some(Decision::Deny));
    assert_eq!(deny.effect.continue_, Some(false));

    let ask = cb(
        EventKind::PreToolUse,
        r#"{"continue": true,"hookSpecificOutput": {"hookEventName": "PreToolUse","permissionDecision": "ask","permissionDecisionReason": "Detected git push --force, do you want to continue?"}}"#,
    );
    assert_eq!(ask.effect.decision, Some(Decision::Ask));
}

#[test]
fn codebuddy_accepts_top_level_modified_input_and_decision() {
    let p = cb(
        EventKind::PreToolUse,
        r#"{"permissionDecision":"allow","modifiedInput":{"command":"ls -la"}}"#,
    );
    assert_eq!(p.effect.decision, Some(Decision::Allow));
    assert_eq!(
        p.effect.rewrite.unwrap().input.get("command"),
        Some(&json!("ls -la"))
    );
}

#[test]
fn codebuddy_ignores_claude_spelling_with_a_warning_and_claude_vice_versa() {
    let p = cb(
        EventKind::PreToolUse,
        r#"{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"x"}}}"#,
    );
    assert!(p.effect.rewrite.is_none());
    assert!(
        p.effect.warnings[0].contains("modifiedInput"),
        "{:?}",
        p.effect.warnings
    );
    let c = parse_stdout(
        Host::Claude.dialect(),
        EventKind::PreToolUse,
        r#"{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"x"}}}"#,
    );
    assert_eq!(c.effect.rewrite.unwrap().field, "updatedInput");
    let c = parse_stdout(
        Host::Claude.dialect(),
        EventKind::PreToolUse,
        r#"{"hookSpecificOutput":{"modifiedInput":{"command":"x"}}}"#,
    );
    assert!(c.effect.rewrite.is_none());
    assert!(!c.effect.warnings.is_empty());
}

#[test]
fn plain_text_is_context_only_where_the_host_uses_it() {
    let s = cb(EventKind::SessionStart, "Project uses TypeScript\n");
    assert!(s.json.is_none());
    assert_eq!(s.effect.additional_context, vec!["Project uses TypeScript"]);
    let p = cb(EventKind::PreToolUse, "just chatter");
    assert_eq!(p.effect, HookEffect::default());
    let g = parse_stdout(Host::Gemini.dialect(), EventKind::PreToolUse, "hello");
    assert_eq!(g.effect.system_message.as_deref(), Some("hello"));
}

#[test]
fn json_looking_garbage_is_plain_text_with_a_warning() {
    for garbage in [
        r#"{"continue": false"#,
        r#"{"a":1}{"b":2}"#,
        "{not json}",
        "{\"decision\": \"deny\"} trailing",
    ] {
        let p = cb(EventKind::PreToolUse, garbage);
        assert!(p.json.is_none(), "{garbage}");
        assert_eq!(p.effect.decision, None, "{garbage}");
        assert!(
            p.effect.warnings[0].contains("looks like JSON"),
            "{garbage}: {:?}",
            p.effect.warnings
        );
    }
    // a BOM and surrounding whitespace are fine
    let p = cb(
        EventKind::PreToolUse,
        "\u{feff}  {\"continue\": false, \"stopReason\": \"x\"}\n\n",
    );
    assert_eq!(p.effect.continue_, Some(false));
    assert_eq!(p.effect.stop_reason.as_deref(), Some("x"));
}

#[test]
fn wrong_types_are_reported_not_fatal() {
    let p = cb(
        EventKind::PreToolUse,
        r#"{"continue":"no","systemMessage":5,"hookSpecificOutput":{"permissionDecision":"maybe","modifiedInput":"rm"}}"#,
    );
    assert_eq!(p.effect.continue_, None);
    assert_eq!(p.effect.decision, None);
    assert!(p.effect.rewrite.is_none());
    assert_eq!(p.effect.warnings.len(), 4, "{:?}", p.effect.warnings);
}

#[test]
fn block_on_prompt_and_stop_events_and_feedback_on_post_tool_use() {
    let u = cb(
        EventKind::UserPromptSubmit,
        r#"{"continue": false,"stopReason": "Input contains sensitive information, blocked"}"#,
    );
    assert_eq!(u.effect.continue_, Some(false));
    let s = parse_stdout(
        Host::Claude.dialect(),
        EventKind::Stop,
        r#"{"decision":"block","reason":"run the tests first"}"#,
    );
    assert_eq!(s.effect.decision, Some(Decision::Deny));
    assert_eq!(s.effect.reason.as_deref(), Some("run the tests first"));
    let p = parse_stdout(
        Host::Claude.dialect(),
        EventKind::PostToolUse,
        r#"{"decision":"block","reason":"lint failed"}"#,
    );
    assert_eq!(p.effect.decision, None);
    assert_eq!(p.effect.feedback.as_deref(), Some("lint failed"));
    let ss = cb(
        EventKind::SessionStart,
        r#"{"hookSpecificOutput":{"permissionDecision":"deny"}}"#,
    );
    assert_eq!(ss.effect.decision, None);
    assert!(
        ss.effect.warnings[0].contains("cannot be denyed")
            || ss.effect.warnings[0].contains("cannot be")
    );
}

#[test]
fn cursor_snake_case_output() {
    let d = Host::Cursor.dialect();
    let p = parse_stdout(
        d,
        EventKind::PreToolUse,
        r#"{"permission":"deny","user_message":"blocked for you","agent_message":"do not push","updated_input":{"command":"x"}}"#,
    );
    assert_eq!(p.effect.decision, Some(Decision::Deny));
    assert_eq!(p.effect.reason.as_deref(), Some("do not push"));
    assert_eq!(p.effect.system_message.as_deref(), Some("blocked for you"));
    assert_eq!(p.effect.rewrite.unwrap().field, "updated_input");
    let p = parse_stdout(
        d,
        EventKind::PreToolUse,
        r#"{"permission":"allow","userMessage":"x"}"#,
    );
    assert!(p.effect.warnings[0].contains("user_message"));
    let s = parse_stdout(
        d,
        EventKind::SessionStart,
        r#"{"additional_context":"ctx"}"#,
    );
    assert_eq!(s.effect.additional_context, vec!["ctx"]);
}

#[test]
fn gemini_decision_and_tool_input_patch() {
    let d = Host::Gemini.dialect();
    let p = parse_stdout(
        d,
        EventKind::PreToolUse,
        r#"{"decision":"block","reason":"nope"}"#,
    );
    assert_eq!(p.effect.decision, Some(Decision::Deny));
    assert_eq!(p.effect.reason.as_deref(), Some("nope"));
    let p = parse_stdout(
        d,
        EventKind::PreToolUse,
        r#"{"hookSpecificOutput":{"tool_input":{"timeout":5}}}"#,
    );
    let rw = p.effect.rewrite.unwrap();
    assert_eq!(rw.style, RewriteStyle::Patch);
    // double-encoded JSON is tolerated by Gemini
    let p = parse_stdout(d, EventKind::PreToolUse, r#""{\"decision\":\"deny\"}""#);
    assert_eq!(p.effect.decision, Some(Decision::Deny));
}

#[test]
fn hook_event_name_mismatch_is_a_warning() {
    let p = cb(
        EventKind::PreToolUse,
        r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"allow"}}"#,
    );
    assert_eq!(p.effect.decision, Some(Decision::Allow));
    assert!(p.effect.warnings[0].contains("hookEventName"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    // The parser never panics on arbitrary text, and anything it accepts as JSON is an object.
    #[test]
    fn parser_total_on_arbitrary_text(s in ".{0,300}") {
        for host in Host::ALL {
            for &ev in EventKind::ALL {
                let p = parse_stdout(host.dialect(), ev, &s);
                if let Some(j) = &p.json { prop_assert!(j.is_object()); }
            }
        }
    }

    // Arbitrary JSON-ish objects built from hook-output keys never panic, and a decision
    // appears only if the text held a decision field.
    #[test]
    fn parser_total_on_structured_outputs(
        keys in proptest::collection::vec(prop_oneof![
            Just("continue"), Just("stopReason"), Just("systemMessage"), Just("suppressOutput"),
            Just("decision"), Just("reason"), Just("permissionDecision"), Just("modifiedInput"),
            Just("hookSpecificOutput"), Just("permission"), Just("updated_input")
        ], 0..6),
        vals in proptest::collection::vec(prop_oneof![
            Just(json!(true)), Just(json!(false)), Just(json!("deny")), Just(json!("allow")),
            Just(json!("ask")), Just(json!(null)), Just(json!(3)), Just(json!({"command":"x"})),
            Just(json!({"permissionDecision":"deny","modifiedInput":{"a":1}})), Just(json!([1]))
        ], 6),
    ) {
        let mut obj = Map::new();
        for (k, v) in keys.iter().zip(vals.iter()) { obj.insert((*k).to_string(), v.clone()); }
        let text = Value::Object(obj).to_string();
        for host in Host::ALL {
            let p = parse_stdout(host.dialect(), EventKind::PreToolUse, &text);
            prop_assert!(p.json.is_some());
            if p.effect.decision.is_some() {
                prop_assert!(text.contains("deny") || text.contains("allow") || text.contains("ask"));
            }
        }
    }
}

fn codex(out: &str) -> ParsedStdout {
    parse_stdout(Host::Codex.dialect(), EventKind::PreToolUse, out)
}

#[test]
fn codex_reads_pre_tool_use_answers_against_its_closed_schema() {
    // refused answers: the hook failed, nothing of the answer applies, the tool runs
    // (openai/codex codex-rs/hooks/src/schema.rs and engine/output_parser.rs; each of the
    // first five measured in Codex 0.169 by crates/e2e/tests/hooks_differential_codex.rs)
    let refused = [
        (
            r#"{"continue":false,"stopReason":"enough"}"#,
            "continue:false",
        ),
        (
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}"#,
            "without a non-empty permissionDecisionReason",
        ),
        (
            r#"{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}"#,
            "hookEventName",
        ),
        (
            r#"{"decision":"block","reason":"no","note":1}"#,
            "unknown field `note`",
        ),
        (r#"{"decision":"deny","reason":"no"}"#, "`decision`"),
        (
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?"}}"#,
            "permissionDecision:ask",
        ),
        (
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#,
            "permissionDecision:allow",
        ),
        (
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no","updatedInput":{"command":"ls"}}}"#,
            "updatedInput without permissionDecision:allow",
        ),
        (
            r#"{"decision":"block","reason":"  "}"#,
            "decision:block without",
        ),
        (r#"{"decision":"approve"}"#, "decision:approve"),
        (r#"{"reason":"why"}"#, "reason without decision"),
        (r#"{"suppressOutput":true}"#, "suppressOutput"),
        (r#"{"continue":"no"}"#, "`continue`"),
        (
            r#"{"systemMessage":"careful","hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"x","extra":true}}"#,
            "hookSpecificOutput.extra",
        ),
    ];
    for (out, why) in refused {
        let p = codex(out);
        assert!(p.failed, "{out}");
        assert_eq!(p.effect.decision, None, "{out}");
        assert!(p.effect.additional_context.is_empty(), "{out}");
        assert!(p.effect.rewrite.is_none(), "{out}");
        assert_eq!(p.effect.continue_, None, "{out}");
        assert!(
            p.effect.warnings.iter().any(|w| w.contains(why)),
            "{out}: {:?}",
            p.effect.warnings
        );
    }
    // the systemMessage of a refused but well-formed answer is still shown
    assert_eq!(
        codex(r#"{"systemMessage":"careful","continue":false}"#)
            .effect
            .system_message
            .as_deref(),
        Some("careful")
    );

    // read answers
    let deny = codex(
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}"#,
    );
    assert!(!deny.failed);
    assert_eq!(deny.effect.decision, Some(Decision::Deny));
    let block = codex(r#"{"decision":"block","reason":"no","systemMessage":null}"#);
    assert!(!block.failed);
    assert_eq!(block.effect.decision, Some(Decision::Deny));
    assert_eq!(block.effect.reason.as_deref(), Some("no"));
    let rewrite = codex(
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls -a"}}}"#,
    );
    assert!(!rewrite.failed);
    assert!(rewrite.effect.rewrite.is_some());
    let context = codex(
        r#"{"continue":true,"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"note"}}"#,
    );
    assert!(!context.failed);
    assert_eq!(context.effect.additional_context, vec!["note"]);

    // other hosts read the same answers as before
    let claude = parse_stdout(
        Host::Claude.dialect(),
        EventKind::PreToolUse,
        r#"{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}"#,
    );
    assert!(!claude.failed);
    assert_eq!(claude.effect.decision, Some(Decision::Deny));
}

fn codex_post(out: &str) -> ParsedStdout {
    parse_stdout(Host::Codex.dialect(), EventKind::PostToolUse, out)
}

#[test]
fn codex_reads_post_tool_use_answers_against_its_closed_schema() {
    // refused: a failed hook, nothing of the answer reaches the model (each measured in
    // Codex 0.171 by crates/e2e/tests/hooks_differential_codex.rs, but the type errors)
    let ctx = r#""hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"c"}"#;
    let refused = [
        (format!(r#"{{"decision":"block",{ctx}}}"#), "decision:block without"),
        (r#"{"decision":"block","reason":" "}"#.to_string(), "decision:block without"),
        (r#"{"reason":"why"}"#.to_string(), "reason without decision"),
        (format!(r#"{{"suppressOutput":true,{ctx}}}"#), "suppressOutput"),
        (format!(r#"{{"extra":1,{ctx}}}"#), "unknown field `extra`"),
        (
            r#"{"hookSpecificOutput":{"additionalContext":"c"}}"#.to_string(),
            "hookEventName` is missing",
        ),
        (
            r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"c","updatedMCPToolOutput":{"a":1}}}"#.to_string(),
            "updatedMCPToolOutput",
        ),
        (
            r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedInput":{}}}"#.to_string(),
            "hookSpecificOutput.updatedInput",
        ),
        (r#"{"decision":"deny","reason":"no"}"#.to_string(), "`decision`"),
        (r#"{"decision":"approve"}"#.to_string(), "`decision`"),
        (r#"{"continue":"no"}"#.to_string(), "`continue`"),
        (r#"{"systemMessage":1}"#.to_string(), "`systemMessage`"),
    ];
    for (out, why) in &refused {
        let p = codex_post(out);
        assert!(p.failed, "{out}");
        assert_eq!(p.effect.feedback, None, "{out}");
        assert!(p.effect.additional_context.is_empty(), "{out}");
        assert_eq!(p.effect.continue_, None, "{out}");
        assert!(
            p.effect.warnings.iter().any(|w| w.contains(why)),
            "{out}: {:?}",
            p.effect.warnings
        );
    }

    // continue: false: its reason, else its stopReason, else a fixed text stands in place of
    // the output; the turn goes on; context only from an answer not refused otherwise
    let stops = codex_post(&format!(
        r#"{{"continue":false,"stopReason":"enough",{ctx}}}"#
    ));
    assert!(!stops.failed);
    assert_eq!(stops.effect.feedback.as_deref(), Some("enough"));
    assert_eq!(stops.effect.additional_context, vec!["c"]);
    assert_eq!(stops.effect.continue_, None);
    let with_reason =
        codex_post(r#"{"continue":false,"stopReason":"enough","decision":"block","reason":"r"}"#);
    assert_eq!(with_reason.effect.feedback.as_deref(), Some("r"));
    let bare = codex_post(&format!(
        r#"{{"continue":false,"suppressOutput":true,{ctx}}}"#
    ));
    assert!(!bare.failed);
    assert_eq!(
        bare.effect.feedback.as_deref(),
        Some("PostToolUse hook stopped execution")
    );
    assert!(bare.effect.additional_context.is_empty());

    // read as every host reads them
    let block = codex_post(r#"{"decision":"block","reason":"no"}"#);
    assert!(!block.failed);
    assert_eq!(block.effect.feedback.as_deref(), Some("no"));
    let context = codex_post(&format!(r#"{{"continue":true,{ctx}}}"#));
    assert!(!context.failed);
    assert_eq!(context.effect.additional_context, vec!["c"]);

    // Claude Code reads them as before
    let claude = parse_stdout(
        Host::Claude.dialect(),
        EventKind::PostToolUse,
        r#"{"decision":"block","reason":"no","extra":1}"#,
    );
    assert!(!claude.failed);
    assert_eq!(claude.effect.feedback.as_deref(), Some("no"));
}

#[test]
fn permission_request_answers_decide_through_decision_behavior() {
    // Claude Code's shape; an `allow` let the command run in the real Claude Code 2.1.332
    // (crates/e2e/tests/hooks_differential.rs)
    let parse = |out: &str| parse_stdout(Host::Claude.dialect(), EventKind::PermissionRequest, out);
    let allow = parse(
        r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"ls -a"}}}}"#,
    );
    assert_eq!(allow.effect.decision, Some(Decision::Allow));
    assert_eq!(
        allow.effect.rewrite.as_ref().map(|r| r.input.clone()),
        Some(
            serde_json::json!({"command": "ls -a"})
                .as_object()
                .unwrap()
                .clone()
        )
    );
    let deny = parse(
        r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not here"}}}"#,
    );
    assert_eq!(deny.effect.decision, Some(Decision::Deny));
    assert_eq!(deny.effect.reason.as_deref(), Some("not here"));
    // on another event the field means nothing
    let pre = parse_stdout(
        Host::Claude.dialect(),
        EventKind::PreToolUse,
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","decision":{"behavior":"deny"}}}"#,
    );
    assert_eq!(pre.effect.decision, None);
}
