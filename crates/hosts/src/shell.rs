//! Which shell a rewritten command runs in, per host: `tool_input.shell`,
//! `TOKENJUICE_<HOST>_SHELL`, `SHELL`, then the host's fallbacks (`bash`, `sh` or just `sh`).
//! A path must be an executable file; a bare name is looked up on `PATH`. Only a real shell
//! counts: a service account's `SHELL=/usr/sbin/nologin` or `/bin/false` would make every
//! rewritten command silently do nothing, so those (and anything that is neither a known
//! shell nor listed in `/etc/shells`) are passed over. Nothing usable: `None`, and the
//! command is left unchanged.

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

/// Shells that run `-c '<command>'` as a POSIX shell would.
const KNOWN_SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash"];
/// Login shells of accounts that must not run anything.
const NOT_SHELLS: &[&str] = &["nologin", "false", "true"];

fn usable(candidate: &str, env: &Env) -> Option<String> {
    if candidate.is_empty() || candidate.chars().any(char::is_whitespace) {
        return None;
    }
    let path = if candidate.contains('/') {
        let p = std::path::Path::new(candidate);
        (p.is_absolute() && is_executable(p)).then(|| candidate.to_string())?
    } else {
        env.which(candidate)
            .map(|p| p.to_string_lossy().into_owned())?
    };
    is_real_shell(&path).then_some(path)
}

fn is_real_shell(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    if NOT_SHELLS.contains(&name) {
        return false;
    }
    KNOWN_SHELLS.contains(&name)
        || tokenjuice_untrusted::read_to_string(std::path::Path::new("/etc/shells"), 1 << 16)
            .is_ok_and(|t| t.lines().any(|l| l.trim() == path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_account_shells_are_passed_over() {
        assert!(!is_real_shell("/usr/sbin/nologin"));
        assert!(!is_real_shell("/bin/false"));
        assert!(is_real_shell("/bin/bash") && is_real_shell("/usr/bin/zsh"));
        assert!(!is_real_shell("/usr/bin/python3"));
    }
}
