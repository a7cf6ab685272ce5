//! Conformance of the `codex` dialect: hooks.json and [hooks] tables in config.toml.

mod hooks_support;

use hooks_support::*;
use serde_json::{json, Value};

#[test]
fn toml_and_json_layers_both_load_under_codex_home() {
    let w = World::new();
    let ch = w.tmp.path().join("codex-home");
    let json_hooks = json!({"PreToolUse": [group(Some("Bash"), &py("guard_dangerous.py"), None)]});
    w.write_json(&ch.join("hooks.json"), &json!({ "hooks": json_hooks }));
    let toml = format!(
        "model = \"gpt\"\n\n[[hooks.PreToolUse]]\nmatcher = \"^Bash$\"\n\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"{}\"\ntimeout = 30\n",
        py("npm_legacy_peers.py").replace('\'', "")
    );
    let project_toml = w.project.join(".codex/config.toml");
    w.write(&project_toml, &toml);
    w.trust_codex_hooks(Some(&ch), &ch.join("hooks.json"), &json_hooks);
    let toml_hooks = toml::from_str::<Value>(&toml).unwrap()["hooks"].clone();
    w.trust_codex_hooks(Some(&ch), &project_toml, &toml_hooks);
    w.trust_codex_project(Some(&ch));
    let out = w
        .cmd()
        .env("CODEX_HOME", &ch)
        .args([
            "hooks",
            "run",
            "PreToolUse",
            "--host",
            "codex",
            "--format",
            "json",
            "--input",
            r#"{"command":"npm install"}"#,
        ])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{v:#}");
    assert_eq!(v["hooks"].as_array().unwrap().len(), 2);
    assert!(v["hooks"][1]["source"]
        .as_str()
        .unwrap()
        .ends_with(".codex/config.toml"));
    assert_eq!(v["hooks"][1]["timeoutMs"], 30_000);
    assert_eq!(
        v["updatedInput"],
        json!({"command": "npm install --legacy-peer-deps"})
    );
    assert_eq!(v["payload"]["tool_name"], "Bash");
}

#[test]
fn updated_input_needs_allow_and_duplicates_both_run() {
    let w = World::new();
    let no_allow = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"ls -la"}}}"#;
    let marker = w.tmp.path().join("runs");
    let count = format!("echo run >> '{}'", marker.display());
    let hooks = json!({
        "PreToolUse": [group(None, &sh("print.sh", &[no_allow]), None)],
        "Stop": [group(None, &count, None), group(None, &count, None)]
    });
    let file = w.project.join(".codex/hooks.json");
    w.write_json(&file, &json!({ "hooks": hooks }));
    w.trust_codex_hooks(None, &file, &hooks);
    w.trust_codex_project(None);
    let (_, v) = w.run("codex", "PreToolUse", &["--input", r#"{"command":"ls"}"#]);
    assert_eq!(v["updatedInput"], Value::Null);
    assert!(
        v["warnings"]
            .to_string()
            .contains("only with permissionDecision"),
        "{v:#}"
    );
    let (_, v) = w.run("codex", "Stop", &[]);
    assert_eq!(
        v["hooks"].as_array().unwrap().len(),
        2,
        "codex runs identical handlers twice"
    );
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "run\nrun\n");
}

#[test]
fn codex_matchers_use_rust_regex_so_look_around_is_a_load_error() {
    let w = World::new();
    w.write_json(
        &w.project.join(".codex/hooks.json"),
        &json!({"hooks": {"PreToolUse": [group(Some("^(?!Bash).*"), "true", None)]}}),
    );
    let out = w
        .cmd()
        .args(["hooks", "validate", "--host", "codex", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["diagnostics"][0]["entry"], "hooks.PreToolUse[0].matcher");
    // the same matcher is valid JavaScript for claude
    w.write_json(
        &w.project.join(".claude/settings.json"),
        &json!({"hooks": {"PreToolUse": [group(Some("^(?!Bash).*"), "true", None)]}}),
    );
    let out = w
        .cmd()
        .args(["hooks", "validate", "--host", "claude"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn apply_patch_is_matched_by_write_and_edit_aliases() {
    let w = World::new();
    let hooks = json!({"PreToolUse": [group(Some("Edit"), &sh("print.sh", &[r#"{"systemMessage":"patch seen"}"#]), None)]});
    let file = w.project.join(".codex/hooks.json");
    w.write_json(&file, &json!({ "hooks": hooks }));
    w.trust_codex_hooks(None, &file, &hooks);
    w.trust_codex_project(None);
    let (_, v) = w.run(
        "codex",
        "PreToolUse",
        &[
            "--tool",
            "apply_patch",
            "--input",
            r#"{"command":"*** Begin Patch"}"#,
        ],
    );
    assert_eq!(v["systemMessage"], "patch seen");
}

#[test]
fn a_hook_codex_was_not_told_to_trust_is_skipped_with_a_warning() {
    // Codex (0.169, 0.171) skips it without a word (crates/e2e/tests/hooks_differential_codex.rs)
    let w = World::new();
    let marker = w.tmp.path().join("ran");
    let hooks = json!({"PreToolUse": [group(None, &format!("touch '{}'; echo no >&2; exit 2", marker.display()), None)]});
    let file = w.project.join(".codex/hooks.json");
    w.write_json(&file, &json!({ "hooks": hooks }));
    // the project itself is not trusted: Codex does not load its .codex folder (Codex 0.171)
    w.trust_codex_hooks(None, &file, &hooks);
    let (code, v) = w.run("codex", "PreToolUse", &["--input", r#"{"command":"ls"}"#]);
    assert_eq!(code, 0, "{v:#}");
    assert!(!marker.exists(), "a hook of an untrusted project ran");
    assert!(
        v["settingsDiagnostics"]
            .to_string()
            .contains("is not a trusted project"),
        "{v:#}"
    );
    // the project trusted, but not the hook
    w.write(&w.home.join(".codex/config.toml"), "");
    w.trust_codex_project(None);
    let (code, v) = w.run("codex", "PreToolUse", &["--input", r#"{"command":"ls"}"#]);
    assert_eq!(code, 0, "{v:#}");
    assert!(!marker.exists(), "an untrusted hook ran");
    assert!(
        v["settingsDiagnostics"].to_string().contains("not trusted"),
        "{v:#}"
    );
    // both trusted, it runs and blocks
    w.trust_codex_hooks(None, &file, &hooks);
    let (code, v) = w.run("codex", "PreToolUse", &["--input", r#"{"command":"ls"}"#]);
    assert_eq!(code, 2, "{v:#}");
    assert!(marker.exists());
}
