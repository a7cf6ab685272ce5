//! The shell-prefix setting in a host's settings `env` (Claude Code:
//! `env.CLAUDE_CODE_SHELL_PREFIX`). Install points it at `<launcher> --shell-prefix=<host>`;
//! a prefix the user had is moved to `env.<next_env>` and still runs every line (tokenjuice
//! calls it); uninstall puts it back.

use std::path::Path;

use serde_json::{Map, Value};

use crate::error::{HostsError, Result};
use crate::files::kind;
use crate::registry::{PrefixSpec, PrefixStyle};

/// What the prefix setting must hold for this launcher.
pub fn value(spec: &PrefixSpec, launcher: &str) -> String {
    match spec.style {
        // Claude quotes the part before the last " -" itself
        PrefixStyle::Claude => format!("{launcher} --shell-prefix={}", spec.id),
        // CodeBuddy pastes the value into a shell line as it is
        PrefixStyle::CodeBuddy => format!(
            "{} --shell-prefix={}",
            tokenjuice_core::shell::quote(launcher),
            spec.id
        ),
    }
}

/// The launcher a prefix value of ours names.
pub fn launcher_of(spec: &PrefixSpec, v: &str) -> String {
    let path = v
        .trim_end()
        .trim_end_matches(&format!(" --shell-prefix={}", spec.id));
    match spec.style {
        PrefixStyle::Claude => path.to_string(),
        PrefixStyle::CodeBuddy => {
            let script = tokenjuice_core::shell::parse(path);
            match script
                .items
                .first()
                .and_then(|i| i.pipeline.commands.first())
            {
                Some(tokenjuice_core::shell::Command::Simple(c)) if c.words.len() == 1 => {
                    c.words[0].text.clone()
                }
                _ => path.to_string(),
            }
        }
    }
}

/// True when a prefix value is one of ours (any launcher).
pub fn is_ours(spec: &PrefixSpec, v: &str) -> bool {
    v.trim_end()
        .ends_with(&format!(" --shell-prefix={}", spec.id))
}

fn env_mut<'a>(
    root: &'a mut Map<String, Value>,
    path: &Path,
) -> Result<&'a mut Map<String, Value>> {
    let env = root
        .entry("env")
        .or_insert_with(|| Value::Object(Map::new()));
    let k = kind(env);
    env.as_object_mut().ok_or_else(|| HostsError::Shape {
        path: path.to_path_buf(),
        what: format!("`env` is {k}, expected an object of variables"),
        fix: "fix `env` by hand (or move the file aside) and run the command again".into(),
    })
}

/// Point the prefix at us. Returns a line for the user when an existing prefix was kept.
pub fn install(
    spec: &PrefixSpec,
    root: &mut Map<String, Value>,
    launcher: &str,
    path: &Path,
) -> Result<Option<String>> {
    // The host quotes the part before the prefix's last " -" as one word: a launcher path
    // holding " -" itself, or a launcher run by node, would be split wrongly.
    let bad_for_claude = spec.style == PrefixStyle::Claude && launcher.contains(" -");
    if bad_for_claude || crate::launcher::is_node_script(launcher) {
        return Err(HostsError::Shape {
            path: path.to_path_buf(),
            what: format!("the launcher `{launcher}` cannot be a {} value (it must be one executable path without \" -\" in it)", spec.prefix_env),
            fix: "install the tokenjuice binary to a plain path (e.g. cargo install) and run the command again".into(),
        });
    }
    let ours = value(spec, launcher);
    let env = env_mut(root, path)?;
    let mut line = None;
    match env.get(spec.prefix_env) {
        Some(Value::String(v)) if is_ours(spec, v) => {}
        Some(Value::String(v)) if !v.trim().is_empty() => {
            if env.contains_key(spec.next_env) {
                return Err(HostsError::Shape {
                    path: path.to_path_buf(),
                    what: format!(
                        "both `env.{}` ({v}) and `env.{}` are set and neither is tokenjuice's",
                        spec.prefix_env, spec.next_env
                    ),
                    fix: format!(
                        "remove `env.{}` by hand and run the command again",
                        spec.next_env
                    ),
                });
            }
            line = Some(format!(
                "your {} `{v}` is kept in env.{} and still runs every command (tokenjuice calls it)",
                spec.prefix_env, spec.next_env
            ));
            let v = v.clone();
            env.insert(spec.next_env.into(), Value::String(v));
        }
        Some(Value::String(_)) | None => {}
        Some(other) => {
            return Err(HostsError::Shape {
                path: path.to_path_buf(),
                what: format!(
                    "`env.{}` is {}, expected a string",
                    spec.prefix_env,
                    kind(other)
                ),
                fix: format!(
                    "fix `env.{}` by hand and run the command again",
                    spec.prefix_env
                ),
            })
        }
    }
    env.insert(spec.prefix_env.into(), Value::String(ours));
    Ok(line)
}

/// Take our prefix out (and give back the user's). Returns true when something changed.
pub fn uninstall(spec: &PrefixSpec, root: &mut Map<String, Value>) -> bool {
    let Some(env) = root.get_mut("env").and_then(Value::as_object_mut) else {
        return false;
    };
    let ours = env
        .get(spec.prefix_env)
        .and_then(Value::as_str)
        .is_some_and(|v| is_ours(spec, v));
    if !ours {
        return false;
    }
    match env.remove(spec.next_env) {
        Some(Value::String(prev)) => {
            env.insert(spec.prefix_env.into(), Value::String(prev));
        }
        _ => {
            env.remove(spec.prefix_env);
        }
    }
    if env.is_empty() {
        root.remove("env");
    }
    true
}

/// The prefix value installed, if any (ours or not).
pub fn current(spec: &PrefixSpec, root: &Map<String, Value>) -> Option<String> {
    root.get("env")?
        .get(spec.prefix_env)?
        .as_str()
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec() -> &'static PrefixSpec {
        crate::registry::prefix_host("claude-code").unwrap()
    }

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn install_then_uninstall_gives_back_the_users_prefix() {
        let p = Path::new("settings.json");
        let mut root =
            obj(json!({"env": {"CLAUDE_CODE_SHELL_PREFIX": "/usr/local/bin/audit -q", "X": "1"}}));
        let line = install(spec(), &mut root, "/usr/bin/tokenjuice", p).unwrap();
        assert!(line.unwrap().contains("/usr/local/bin/audit -q"));
        assert_eq!(
            root["env"]["CLAUDE_CODE_SHELL_PREFIX"],
            "/usr/bin/tokenjuice --shell-prefix=claude-code"
        );
        assert_eq!(
            root["env"]["TOKENJUICE_CLAUDE_CODE_NEXT_PREFIX"],
            "/usr/local/bin/audit -q"
        );
        // twice = once
        install(spec(), &mut root, "/usr/bin/tokenjuice", p).unwrap();
        assert_eq!(
            root["env"]["TOKENJUICE_CLAUDE_CODE_NEXT_PREFIX"],
            "/usr/local/bin/audit -q"
        );
        assert!(uninstall(spec(), &mut root));
        assert_eq!(
            root,
            obj(json!({"env": {"CLAUDE_CODE_SHELL_PREFIX": "/usr/local/bin/audit -q", "X": "1"}}))
        );
    }

    #[test]
    fn uninstall_removes_an_env_it_created() {
        let p = Path::new("settings.json");
        let mut root = obj(json!({"model": "x"}));
        install(spec(), &mut root, "/opt/tj/tokenjuice", p).unwrap();
        assert!(uninstall(spec(), &mut root));
        assert_eq!(root, obj(json!({"model": "x"})));
        assert!(!uninstall(spec(), &mut root));
    }

    #[test]
    fn refuses_what_the_host_would_split_wrongly_and_odd_shapes() {
        let p = Path::new("settings.json");
        let mut root = obj(json!({}));
        assert!(install(spec(), &mut root, "/home/a -b/tokenjuice", p).is_err());
        assert!(install(spec(), &mut root, "/x/main.js", p).is_err());
        let mut bad = obj(json!({"env": []}));
        assert!(install(spec(), &mut bad, "/usr/bin/tokenjuice", p).is_err());
        let mut bad = obj(json!({"env": {"CLAUDE_CODE_SHELL_PREFIX": 3}}));
        assert!(install(spec(), &mut bad, "/usr/bin/tokenjuice", p).is_err());
    }
}
