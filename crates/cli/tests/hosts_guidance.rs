//! Guidance-only agents through the one generic mechanism: a marked block (or a whole owned
//! file) telling the model to use `tokenjuice wrap`; install / uninstall / doctor.

mod hosts_support;

use hosts_support::*;

const TARGETS: &[(&str, &str, bool)] = &[
    ("agents-md", "AGENTS.md", false),
    ("claude-md", "CLAUDE.md", false),
    ("gemini-md", "GEMINI.md", false),
    (
        "copilot-instructions",
        ".github/copilot-instructions.md",
        false,
    ),
    ("cursor-rules", ".cursor/rules/tokenjuice.mdc", true),
    ("windsurf", ".windsurf/rules/tokenjuice.md", true),
    ("cline", ".clinerules/tokenjuice.md", true),
    ("roo", ".roo/rules/tokenjuice.md", true),
    ("kiro", ".kiro/steering/tokenjuice.md", true),
    ("continue", ".continue/rules/tokenjuice.md", true),
    ("amazon-q", ".amazonq/rules/tokenjuice.md", true),
    ("augment", ".augment/rules/tokenjuice.md", true),
    ("junie", ".junie/guidelines.md", false),
    ("goose", ".goosehints", false),
    ("zed", ".rules", false),
    ("trae", ".trae/rules/project_rules.md", false),
    ("aider", "CONVENTIONS.md", false),
];

fn health(r: &str) -> &str {
    r.lines()
        .rev()
        .find_map(|l| l.strip_prefix("health: "))
        .unwrap_or("?")
}

#[test]
fn every_target_installs_checks_and_uninstalls() {
    for (id, rel, owned) in TARGETS {
        let w = World::new();
        let path = w.project.join(rel);
        assert_eq!(health(&stdout(&w.run(&["doctor", id]))), "disabled", "{id}");
        let o = w.run(&["install", id]);
        assert!(o.status.success(), "{id}: {}", stderr(&o));
        let text = w.read(&path);
        assert!(
            text.contains("tokenjuice wrap -- <command>")
                && text.contains("tokenjuice wrap --raw -- <command>"),
            "{id}: {text}"
        );
        assert!(
            text.contains("<!-- tokenjuice:begin") && text.contains("<!-- tokenjuice:end -->"),
            "{id}"
        );
        if id == &"cursor-rules" {
            assert!(
                text.starts_with("---\n") && text.contains("alwaysApply: true"),
                "{text}"
            );
        }
        assert_eq!(health(&stdout(&w.run(&["doctor", id]))), "ok", "{id}");
        assert!(w.run(&["install", id]).status.success());
        assert_eq!(w.read(&path), text, "{id}: idempotent");
        assert!(w.run(&["uninstall", id]).status.success());
        assert!(
            !path.exists(),
            "{id}: a file holding only our block is removed (owned: {owned})"
        );
    }
}

#[test]
fn a_users_instruction_file_keeps_its_text() {
    let w = World::new();
    let path = w.project.join("AGENTS.md");
    let user = "# Project rules\n\n- Use pnpm, never npm.\n- Run tests with `pnpm test`.\n";
    w.write(&path, user);
    assert!(w.run(&["install", "agents-md"]).status.success());
    let with = w.read(&path);
    assert!(with.starts_with(user), "{with}");
    assert!(w.tmp.path().join("project/AGENTS.md.bak").exists());
    // The user edits around the block; reinstall keeps the edit.
    w.write(&path, &format!("{with}\n## More\n\nmine\n"));
    assert!(w.run(&["install", "agents-md"]).status.success());
    assert!(w.read(&path).ends_with("## More\n\nmine\n"));
    // An edited block warns.
    w.write(
        &path,
        &w.read(&path)
            .replace("Treat that output as complete", "Treat it as gospel"),
    );
    let r = stdout(&w.run(&["doctor", "agents-md"]));
    assert_eq!(health(&r), "warn", "{r}");
    assert!(w.run(&["uninstall", "agents-md"]).status.success());
    assert_eq!(w.read(&path), format!("{user}\n## More\n\nmine\n"));
}

#[test]
fn damaged_markers_are_broken_and_refused_untouched() {
    let w = World::new();
    let path = w.project.join("CLAUDE.md");
    let damaged = "# Notes\n<!-- tokenjuice:begin (managed) -->\nhalf a block\n";
    w.write(&path, damaged);
    let o = w.run(&["doctor", "claude-md"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(health(&stdout(&o)), "broken");
    assert!(stdout(&o).contains("no end marker"), "{}", stdout(&o));
    for args in [["install", "claude-md"], ["uninstall", "claude-md"]] {
        let o = w.run(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(stderr(&o).contains("untouched"), "{}", stderr(&o));
        assert_eq!(w.read(&path), damaged);
    }
}

#[test]
fn an_owned_rule_file_the_user_wrote_is_refused() {
    let w = World::new();
    let path = w.project.join(".windsurf/rules/tokenjuice.md");
    w.write(&path, "my own rule\n");
    let o = w.run(&["install", "windsurf"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("not written by tokenjuice"));
    assert_eq!(w.read(&path), "my own rule\n");
}

#[test]
fn the_project_is_the_git_root_above_the_working_directory() {
    let w = World::new();
    let sub = w.project.join("src/deep");
    std::fs::create_dir_all(&sub).unwrap();
    let o = w
        .cmd(&["install", "agents-md"])
        .env_remove("TOKENJUICE_PROJECT_DIR")
        .current_dir(&sub)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(w.project.join("AGENTS.md").exists());
    assert!(!sub.join("AGENTS.md").exists());
}
