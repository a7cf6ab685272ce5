//! The hooks toolkit's `gemini` dialect against the real Gemini CLI, same settings, same
//! call: which BeforeTool answers stop the shell tool (exit 2 with a message on stderr, a
//! `decision: "deny"` with its reason), which let it run (exit 1, a hook for another tool),
//! and whether the model reads the reason. `tokenjuice hooks run BeforeTool --host gemini`
//! must say what Gemini does.

mod support;

use std::path::Path;

use serde_json::{json, Value};

/// One `gemini -p` session whose model runs `command` once, with `hooks` in the user's
/// settings (and `touch` allowed, so only the hook can stop it): the model's tool result.
fn gemini_session(agent: &support::Agent, work: &Path, hooks: Value, command: &str) -> String {
    let p = support::drive::Paths::under(work);
    std::fs::create_dir_all(p.home.join(".gemini")).unwrap();
    std::fs::create_dir_all(&p.project).unwrap();
    std::fs::write(
        p.home.join(".gemini/settings.json"),
        json!({
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "tools": {"allowed": ["run_shell_command(touch)"]},
            "hooks": hooks,
        })
        .to_string(),
    )
    .unwrap();
    let calls = vec![json!({"command": command, "description": "probe"})];
    let o = support::run(&support::gemini_spec(agent, &p, "go", calls), work);
    o.results
        .first()
        .map(|r| r.text.clone())
        .unwrap_or_else(|| panic!("no tool result from Gemini: {o:?}"))
}

#[test]
fn the_hooks_toolkit_decides_as_the_real_gemini_cli_does() {
    let Some(agent) = support::agent_or_skip("gemini-cli") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let deny = "{\"decision\":\"deny\",\"reason\":\"not-this-one\"}";
    // (name, matcher, hook command, reason the model reads when blocked; None: runs)
    let cases: Vec<(&str, &str, String, Option<&str>)> = vec![
        (
            "exit 2",
            "run_shell_command",
            "cat >/dev/null; echo not-this-one >&2; exit 2".into(),
            Some("not-this-one"),
        ),
        (
            "exit 1",
            "run_shell_command",
            "cat >/dev/null; echo a-warning >&2; exit 1".into(),
            None,
        ),
        (
            "deny",
            "run_shell_command",
            format!("cat >/dev/null; printf '%s' '{deny}'"),
            Some("not-this-one"),
        ),
        (
            "other tool",
            "read_file",
            "cat >/dev/null; exit 2".into(),
            None,
        ),
    ];
    for (name, matcher, hook, blocked_because) in cases {
        let work = tmp.path().join(name.replace(' ', "-"));
        std::fs::create_dir_all(&work).unwrap();
        let hooks = json!({"BeforeTool": [{"matcher": matcher, "hooks": [{"type": "command", "command": hook}]}]});
        let marker = work.join("ran.txt");
        let cmd = format!("touch {}", marker.display());
        let result = gemini_session(&agent, &work, hooks.clone(), &cmd);
        let v = support::toolkit_run(
            &work,
            "gemini",
            ".gemini",
            hooks,
            &cmd,
            "BeforeTool",
            "run_shell_command",
        );
        support::assert_same_decision(
            name,
            "Gemini",
            marker.exists(),
            &result,
            &v,
            blocked_because,
        );
    }
}
