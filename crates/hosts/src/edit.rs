//! Adding and removing our entry in a host's hook file, keeping everything else: other keys,
//! other events, other groups, other handlers in our matcher group, their order.

use std::path::Path;

use serde_json::{Map, Value};

use crate::error::{HostsError, Result};
use crate::files::kind;
use crate::registry::{HookSpec, Shape, LEGACY_STATUS};

/// One of our handlers found in a file.
#[derive(Debug, Clone)]
pub struct Found {
    pub event: String,
    pub matcher: Option<String>,
    /// JSON path of the handler, e.g. `hooks.PreToolUse[0].hooks[1]`.
    pub location: String,
    pub handler: Map<String, Value>,
    /// An entry an older tokenjuice wrote (a PostToolUse hook, another event or matcher).
    pub legacy: bool,
}

impl Found {
    pub fn command(&self, spec: &HookSpec) -> String {
        handler_command(spec, &self.handler).unwrap_or_default()
    }
}

fn handler_command(spec: &HookSpec, h: &Map<String, Value>) -> Option<String> {
    [spec.command_key, "command", "bash"]
        .iter()
        .find_map(|k| h.get(*k).and_then(Value::as_str))
        .map(str::to_string)
}

/// True for a handler tokenjuice wrote for this host (any version).
pub fn is_ours(spec: &HookSpec, h: &Map<String, Value>) -> bool {
    let cmd = handler_command(spec, h).unwrap_or_default();
    let status = h.get("statusMessage").and_then(Value::as_str);
    cmd.contains(&format!("{}-pre-tool-use", spec.id))
        || cmd.contains(&format!("{}-post-tool-use", spec.id))
        || cmd.contains(&spec.entry_subcommand())
        || status == Some(LEGACY_STATUS)
        || (status == spec.status_message && status.is_some() && cmd.contains("tokenjuice"))
}

/// The handler install writes.
pub fn our_handler(spec: &HookSpec, command: &str) -> Map<String, Value> {
    let mut h = Map::new();
    h.insert("type".into(), "command".into());
    if spec.named {
        h.insert("name".into(), "tokenjuice".into());
    }
    h.insert(spec.command_key.into(), command.into());
    if spec.shape == Shape::Flat {
        if let Some(m) = spec.matcher {
            h.insert("matcher".into(), m.into());
        }
    }
    if let Some(s) = spec.status_message {
        h.insert("statusMessage".into(), s.into());
    }
    if let Some((k, v)) = spec.timeout {
        h.insert(k.into(), v.into());
    }
    if spec.named {
        h.insert(
            "description".into(),
            "Runs shell commands through tokenjuice wrap so the output the model reads is compacted"
                .into(),
        );
    }
    h
}

/// Where the events map sits in the file.
fn events_key(spec: &HookSpec) -> Option<&'static str> {
    match spec.shape {
        Shape::Groups { root } => root,
        Shape::Flat => Some("hooks"),
        Shape::OwnedFile { .. } => None,
    }
}

fn shape_error(path: &Path, what: String) -> HostsError {
    HostsError::Shape {
        path: path.to_path_buf(),
        what,
        fix: "fix that key by hand (or move the file aside) and run the command again".into(),
    }
}

/// Borrows the events map, creating it when `create`.
fn events_mut<'a>(
    spec: &HookSpec,
    root: &'a mut Map<String, Value>,
    path: &Path,
    create: bool,
) -> Result<Option<&'a mut Map<String, Value>>> {
    let Some(key) = events_key(spec) else {
        return Ok(Some(root));
    };
    if !root.contains_key(key) {
        if !create {
            return Ok(None);
        }
        root.insert(key.into(), Value::Object(Map::new()));
    }
    match root.get_mut(key) {
        Some(Value::Object(m)) => Ok(Some(m)),
        Some(other) => Err(shape_error(
            path,
            format!("`{key}` is {}, expected an object of events", kind(other)),
        )),
        None => Ok(None),
    }
}

/// Lists our handlers.
pub fn find(spec: &HookSpec, root: &Map<String, Value>) -> Vec<Found> {
    let mut out = Vec::new();
    let (events, prefix) = match events_key(spec) {
        Some(k) => match root.get(k).and_then(Value::as_object) {
            Some(m) => (m, format!("{k}.")),
            None => return out,
        },
        None => (root, String::new()),
    };
    let flat = spec.shape == Shape::Flat;
    for (event, list) in events {
        let Some(list) = list.as_array() else {
            continue;
        };
        for (gi, group) in list.iter().enumerate() {
            let Some(g) = group.as_object() else { continue };
            if flat {
                if is_ours(spec, g) {
                    let matcher = g.get("matcher").and_then(Value::as_str).map(str::to_string);
                    out.push(Found {
                        legacy: !is_current(spec, event, matcher.as_deref(), g),
                        event: event.clone(),
                        matcher,
                        location: format!("{prefix}{event}[{gi}]"),
                        handler: g.clone(),
                    });
                }
                continue;
            }
            let matcher = g.get("matcher").and_then(Value::as_str).map(str::to_string);
            let Some(hs) = g.get("hooks").and_then(Value::as_array) else {
                continue;
            };
            for (hi, h) in hs.iter().enumerate() {
                let Some(h) = h.as_object() else { continue };
                if is_ours(spec, h) {
                    out.push(Found {
                        legacy: !is_current(spec, event, matcher.as_deref(), h),
                        event: event.clone(),
                        matcher: matcher.clone(),
                        location: format!("{prefix}{event}[{gi}].hooks[{hi}]"),
                        handler: h.clone(),
                    });
                }
            }
        }
    }
    out
}

fn is_current(spec: &HookSpec, event: &str, matcher: Option<&str>, h: &Map<String, Value>) -> bool {
    spec.hook_entry
        && event == spec.event
        && matcher == spec.matcher
        && handler_command(spec, h).is_some_and(|c| c.contains(&spec.entry_subcommand()))
}

/// Removes every handler of ours except the one at `keep` (event, group, handler), dropping
/// groups and events that only held ours. Returns how many were removed.
fn remove_ours(
    spec: &HookSpec,
    events: &mut Map<String, Value>,
    keep: Option<(&str, usize, usize)>,
) -> usize {
    let flat = spec.shape == Shape::Flat;
    let mut removed = 0;
    let mut empty_events = Vec::new();
    for (event, list) in events.iter_mut() {
        let Some(list) = list.as_array_mut() else {
            continue;
        };
        let before = list.len();
        let mut gi = 0;
        let mut touched = false;
        list.retain_mut(|group| {
            let this_g = gi;
            gi += 1;
            let Some(g) = group.as_object_mut() else {
                return true;
            };
            if flat {
                let kept = keep == Some((event.as_str(), this_g, 0));
                if is_ours(spec, g) && !kept {
                    removed += 1;
                    touched = true;
                    return false;
                }
                return true;
            }
            let Some(hs) = g.get_mut("hooks").and_then(Value::as_array_mut) else {
                return true;
            };
            let n = hs.len();
            let mut hi = 0;
            hs.retain(|h| {
                let this_h = hi;
                hi += 1;
                let kept = keep == Some((event.as_str(), this_g, this_h));
                !h.as_object().is_some_and(|h| is_ours(spec, h)) || kept
            });
            if hs.len() < n {
                removed += n - hs.len();
                touched = true;
            }
            !(hs.is_empty() && n > 0)
        });
        if touched && list.is_empty() && before > 0 {
            empty_events.push(event.clone());
        }
    }
    for e in empty_events {
        events.remove(&e);
    }
    removed
}

/// Installs our handler with `command`; returns the new root and how many stale entries
/// (legacy or duplicate) were removed.
pub fn install(
    spec: &HookSpec,
    mut root: Map<String, Value>,
    command: &str,
    path: &Path,
) -> Result<(Map<String, Value>, usize)> {
    let handler = our_handler(spec, command);
    if spec.shape == Shape::Flat {
        if root.is_empty() {
            root.insert("version".into(), 1.into());
        } else if !root.contains_key("version") {
            let mut with = Map::new();
            with.insert("version".into(), 1.into());
            with.extend(root);
            root = with;
        }
    }
    // An existing current entry is replaced where it stands.
    let current = find(spec, &root).into_iter().find(|f| {
        // In a flat file the matcher is a field of the handler we overwrite anyway.
        !f.legacy
            || (f.event == spec.event
                && (spec.shape == Shape::Flat || f.matcher.as_deref() == spec.matcher))
    });
    let keep = current.as_ref().and_then(|f| indices(&f.location));
    let events = events_mut(spec, &mut root, path, true)?
        .ok_or_else(|| shape_error(path, "no events map".into()))?;
    if let Some(v) = events.get(spec.event) {
        if !v.is_array() {
            return Err(shape_error(
                path,
                format!("`{}` is {}, expected a list", spec.event, kind(v)),
            ));
        }
    }
    if let Some((g, h)) = keep {
        let slot = events
            .get_mut(spec.event)
            .and_then(Value::as_array_mut)
            .and_then(|l| l.get_mut(g));
        let slot = if spec.shape == Shape::Flat {
            slot
        } else {
            slot.and_then(|g| g.get_mut("hooks"))
                .and_then(Value::as_array_mut)
                .and_then(|hs| hs.get_mut(h))
        };
        if let Some(s) = slot {
            *s = Value::Object(handler);
            let removed = remove_ours(spec, events, Some((spec.event, g, h)));
            return Ok((root, removed));
        }
    }
    let removed = remove_ours(spec, events, None);
    let list = events
        .entry(spec.event)
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()
        .ok_or_else(|| shape_error(path, format!("`{}` is not a list", spec.event)))?;
    if spec.shape == Shape::Flat {
        list.push(Value::Object(handler));
        return Ok((root, removed));
    }
    let same_matcher = list.iter_mut().find(|g| {
        g.as_object().is_some_and(|g| {
            g.get("matcher").and_then(Value::as_str) == spec.matcher
                && g.get("hooks").is_some_and(Value::is_array)
        })
    });
    match same_matcher
        .and_then(|g| g.get_mut("hooks"))
        .and_then(Value::as_array_mut)
    {
        Some(hs) => hs.push(Value::Object(handler)),
        None => {
            let mut g = Map::new();
            if let Some(m) = spec.matcher {
                g.insert("matcher".into(), m.into());
            }
            g.insert("hooks".into(), Value::Array(vec![Value::Object(handler)]));
            list.push(Value::Object(g));
        }
    }
    Ok((root, removed))
}

/// `(group, handler)` from a location such as `hooks.PreToolUse[2].hooks[0]` (flat: `[2]`).
fn indices(location: &str) -> Option<(usize, usize)> {
    let nums: Vec<usize> = location
        .split('[')
        .skip(1)
        .filter_map(|s| s.split(']').next()?.parse().ok())
        .collect();
    match nums.as_slice() {
        [g] => Some((*g, 0)),
        [g, h] => Some((*g, *h)),
        _ => None,
    }
}

/// Removes all our handlers; returns the new root and how many were removed.
pub fn uninstall(
    spec: &HookSpec,
    mut root: Map<String, Value>,
    path: &Path,
) -> Result<(Map<String, Value>, usize)> {
    let key = events_key(spec);
    let Some(events) = events_mut(spec, &mut root, path, false)? else {
        return Ok((root, 0));
    };
    let removed = remove_ours(spec, events, None);
    let now_empty = events.is_empty();
    if removed > 0 && now_empty && spec.shape != Shape::Flat {
        if let Some(k) = key {
            root.remove(k);
        }
    }
    Ok((root, removed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::HOOK_HOSTS;
    use serde_json::json;

    fn spec(id: &str) -> &'static HookSpec {
        HOOK_HOSTS.iter().find(|h| h.id == id).unwrap()
    }

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn ours_is_recognised_by_subcommand_or_status_message() {
        let cb = spec("codebuddy");
        let marking = "tokenjuice: marking background commands so their output streams";
        assert_eq!(cb.status_message, Some(marking));
        for h in [
            // the current entry, and the rewrite entry an older tokenjuice wrote
            json!({"command": "/x/tokenjuice codebuddy-pre-tool-use"}),
            json!({"command": "/x/tokenjuice codebuddy-pre-tool-use --wrap-launcher /x/tokenjuice"}),
            json!({"command": "node /a/main.js codebuddy-post-tool-use"}),
            json!({"command": "anything", "statusMessage": LEGACY_STATUS}),
            json!({"command": "tokenjuice something", "statusMessage": marking}),
        ] {
            assert!(is_ours(cb, &obj(h.clone())), "{h}");
        }
        for h in [
            json!({"command": "python3 guard.py"}),
            json!({"command": "tokenjuice cursor-pre-tool-use"}),
            json!({"command": "tokenjuice claude-code-pre-tool-use", "statusMessage": "x"}),
            json!({"command": "my-wrapper", "statusMessage": marking}),
            // another host's status message is not this host's
            json!({"command": "tokenjuice something", "statusMessage": "wrapping bash through tokenjuice for compaction"}),
        ] {
            assert!(!is_ours(cb, &obj(h.clone())), "{h}");
        }
        // A host that still carries the rewrite status message (an older codex install).
        let cx = spec("codex");
        assert!(is_ours(
            cx,
            &obj(
                json!({"command": "tokenjuice something", "statusMessage": "wrapping bash through tokenjuice for compaction"})
            )
        ));
    }

    #[test]
    fn replacing_in_place_survives_groups_removed_before_it() {
        let cb = spec("codebuddy");
        let root = obj(json!({"hooks": {"PreToolUse": [
            {"matcher": "execute_command", "hooks": [{"type": "command", "command": "tokenjuice codebuddy-pre-tool-use --wrap-launcher tokenjuice"}]},
            {"matcher": "Bash", "hooks": [
                {"type": "command", "command": "user.sh"},
                {"type": "command", "command": "/old/tokenjuice codebuddy-pre-tool-use --wrap-launcher /old/tokenjuice"},
                {"type": "command", "command": "after.sh"}
            ]}
        ]}}));
        let (out, removed) = install(
            cb,
            root,
            "NEW codebuddy-pre-tool-use --wrap-launcher NEW",
            Path::new("/s.json"),
        )
        .unwrap();
        assert_eq!(removed, 1);
        let groups = out["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(groups.len(), 1, "{out:?}");
        let hooks = groups[0]["hooks"].as_array().unwrap();
        let cmds: Vec<&str> = hooks
            .iter()
            .map(|h| h["command"].as_str().unwrap())
            .collect();
        assert_eq!(
            cmds,
            [
                "user.sh",
                "NEW codebuddy-pre-tool-use --wrap-launcher NEW",
                "after.sh"
            ]
        );
    }

    #[test]
    fn wrong_types_are_refused_not_replaced() {
        let cb = spec("codebuddy");
        let err = install(
            cb,
            obj(json!({"hooks": {"PreToolUse": {"x": 1}}})),
            "c",
            Path::new("/s.json"),
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("`PreToolUse` is an object, expected a list"),
            "{err}"
        );
    }
}
