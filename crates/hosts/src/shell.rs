//! Which shell a rewritten command runs in, per host: `tool_input.shell`,
//! `TOKENJUICE_<HOST>_SHELL`, `SHELL`, then the host's fallbacks (`bash`, `sh` or just `sh`).
//! A path must be an executable file; a bare name is looked up on `PATH`. Nothing usable:
//! `None`, and the command is left unchanged.

use serde_json::{Map, Value};

use crate::env::{is_executable, Env};
use crate::registry::HookSpec;

pub fn resolve(spec: &HookSpec, tool_input: &Map<String, Value>, env: &Env) -> Option<String> {
    let from_input = tool_input.get("shell").and_then(Value::as_str);
    let from_env = if spec.shell_env.is_empty() {
        None
    } else {
        env.var(spec.shell_env)
    };
    from_input
        .into_iter()
        .chain(from_env)
        .chain(env.var("SHELL"))
        .chain(spec.shell_fallbacks.iter().copied())
        .find_map(|c| usable(c.trim(), env))
}

fn usable(candidate: &str, env: &Env) -> Option<String> {
    if candidate.is_empty() || candidate.chars().any(char::is_whitespace) {
        return None;
    }
    if candidate.contains('/') {
        let p = std::path::Path::new(candidate);
        return (p.is_absolute() && is_executable(p)).then(|| candidate.to_string());
    }
    env.which(candidate)
        .map(|p| p.to_string_lossy().into_owned())
}
