//! Extension hosts (pi, opencode): the file is ours and current, and its launcher's
//! `reduce-json` compacts a sample result as the extension calls it.

use std::path::Path;

use serde_json::{json, Value};
use tokenjuice_core::shell::quote;

use super::{install_fix, run_with_deadline, Diagnosis, Health, PROBE_TIMEOUT};
use crate::env::{is_executable, Env};
use crate::launcher::is_node_script;
use crate::owned;
use crate::registry::HookSpec;

pub(super) fn diagnose(spec: &'static HookSpec, template: &str, env: &Env) -> Diagnosis {
    let (mut d, path) = match Diagnosis::for_spec(spec, env) {
        Ok(started) => started,
        Err(d) => return d,
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            d.problem(
                Health::Disabled,
                format!("{} does not exist", path.display()),
                install_fix(spec.id),
            );
            return d;
        }
        Err(e) => {
            d.problem(
                Health::Broken,
                format!("cannot read {}: {e}", path.display()),
                "make the file readable",
            );
            return d;
        }
    };
    if !owned::is_ours(&text) {
        d.problem(
            Health::Disabled,
            format!(
                "{} exists but was not written by tokenjuice",
                path.display()
            ),
            format!("move it aside, then {}", install_fix(spec.id)),
        );
        return d;
    }
    let Some(launcher) = owned::launcher_of(&text) else {
        d.problem(
            Health::Broken,
            "the file names no launcher (it was edited)",
            install_fix(spec.id),
        );
        return d;
    };
    let lpath = Path::new(&launcher);
    let ok = if is_node_script(&launcher) {
        lpath.is_file()
    } else {
        is_executable(lpath)
    };
    if !ok {
        d.problem(
            Health::Broken,
            format!("launcher `{launcher}` does not exist or is not executable"),
            format!(
                "{}, or `tokenjuice install {} --local`",
                install_fix(spec.id),
                spec.id
            ),
        );
        return d;
    }
    d.fact(format!("launcher {launcher} is executable"));
    if text
        != owned::render(
            template,
            spec.id,
            &crate::launcher::Launcher::new(launcher.clone()),
        )
    {
        d.problem(Health::Warn, "the file differs from what this tokenjuice writes (edited, or written by another version)", install_fix(spec.id));
    } else {
        d.fact("the file is exactly what this tokenjuice version writes");
    }
    let prefix = crate::launcher::prefix_for(&launcher);
    // pi and opencode both hand the result to `reduce-json --source <host>`
    probe_reduce_json(&mut d, &prefix, spec.id);
    super::hook::version(&mut d, spec, env);
    d
}

fn probe_reduce_json(d: &mut Diagnosis, prefix: &str, source: &str) {
    let text: String = (1..=200)
        .map(|i| format!("downloading chunk {i:03} of 200\n"))
        .collect();
    let request = json!({"toolName": "bash", "command": "./fetch-all.sh", "combinedText": text, "exitCode": 0}).to_string();
    let script = format!(
        "printf '%s' {} | {prefix} reduce-json --source {}",
        quote(&request),
        quote(source)
    );
    match run_with_deadline(&script, &std::env::temp_dir()) {
        Ok(None) => d.problem(
            Health::Broken,
            format!(
                "`reduce-json` did not finish within {} s",
                PROBE_TIMEOUT.as_secs()
            ),
            "reinstall tokenjuice",
        ),
        Ok(Some(out)) if out.status.success() => {
            let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
            match v.get("inlineText").and_then(Value::as_str) {
                Some(t) if t.len() < text.len() => d.fact(format!("`reduce-json`, as the extension calls it, compacted a sample bash result ({} → {} bytes)", text.len(), t.len())),
                _ => d.problem(Health::Broken, format!("`reduce-json` did not compact a sample result: {}", String::from_utf8_lossy(&out.stdout).trim()), "reinstall tokenjuice"),
            }
        }
        Ok(Some(out)) => d.problem(
            Health::Broken,
            format!(
                "`reduce-json` failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ),
            "reinstall tokenjuice",
        ),
        Err(e) => d.problem(
            Health::Broken,
            format!("could not run the launcher: {e}"),
            "reinstall tokenjuice",
        ),
    }
}
