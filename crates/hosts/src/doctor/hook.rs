//! Hook hosts: the entry, its matcher, its launchers, host checks, and the probe that runs
//! the installed hook through the hooks engine and then the command it wrote.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::{json, Value};
use tokenjuice_core::normalize::basename;
use tokenjuice_core::shell;
use tokenjuice_hooks::{run_handler, EngineOptions, EventKind, Handler};

use super::{install_fix, prefix, probe_dir_or_warn, Diagnosis, Health, PROBE_TIMEOUT};
use crate::edit;
use crate::env::{is_executable, Env};
use crate::files;
use crate::launcher::is_node_script;
use crate::registry::{Answer, HookSpec, Mechanism, Shape};

pub(super) fn diagnose(spec: &'static HookSpec, env: &Env) -> Diagnosis {
    let (mut d, path) = match Diagnosis::for_spec(spec, env) {
        Ok(started) => started,
        Err(d) => return d,
    };
    if spec.mechanism == Mechanism::Unsupported {
        let why = spec.note.unwrap_or("no mechanism changes only the output");
        let found = files::load(&path)
            .ok()
            .and_then(|l| files::parse_object_in(&l, spec.comments).ok())
            .map(|root| !edit::find(spec, &root).is_empty())
            .unwrap_or(false);
        if found {
            d.problem(
                Health::Broken,
                format!("an earlier tokenjuice hook is installed, and it changes what the agent does: {why}"),
                format!("run `tokenjuice uninstall {}`", spec.id),
            );
        } else {
            d.problem(
                Health::Disabled,
                format!("not supported: {why}"),
                format!(
                    "nothing to do; `tokenjuice install {}` adds guidance instead",
                    spec.guidance
                ),
            );
        }
        return d;
    }
    let loaded = match files::load(&path) {
        Ok(l) => l,
        Err(e) => {
            d.problem(Health::Broken, e.to_string(), "make the file readable");
            return d;
        }
    };
    if loaded.text.is_none() {
        d.problem(
            Health::Disabled,
            format!(
                "{} does not exist, so no tokenjuice hook is installed",
                path.display()
            ),
            install_fix(spec.id),
        );
        return d;
    }
    let root = match files::parse_object_in(&loaded, spec.comments) {
        Ok(r) => r,
        Err(e) => {
            d.problem(
                Health::Broken,
                e.to_string(),
                format!("repair the file, then {}", install_fix(spec.id)),
            );
            return d;
        }
    };
    let found = edit::find(spec, &root);
    if !spec.hook_entry {
        for f in &found {
            // the background-marking entry of the previous install answers `{}`: it only
            // costs time; any older one rewrote commands or results
            let marking = f.event == spec.event
                && f.matcher.as_deref() == spec.matcher
                && !f.command(spec).contains("--wrap-launcher")
                && f.command(spec).contains(&spec.entry_subcommand());
            let (health, what) = if marking {
                (
                    Health::Warn,
                    "the host runs it before every shell command, and it is no longer needed",
                )
            } else {
                (
                    Health::Broken,
                    "it changes the commands or results the host runs and shows",
                )
            };
            d.problem(
                health,
                format!(
                    "an older tokenjuice hook entry is still at {}: {what}",
                    f.location
                ),
                format!("{} (it removes it)", install_fix(spec.id)),
            );
        }
        if let Some(p) = crate::registry::prefix_host(spec.id) {
            super::prefix::check(&mut d, p, &root);
        }
        version(&mut d, spec, env);
        return d;
    }
    if found.is_empty() {
        d.problem(
            Health::Disabled,
            "no tokenjuice entry in the file",
            install_fix(spec.id),
        );
        return d;
    }
    let legacy: Vec<&edit::Found> = found.iter().filter(|f| f.legacy).collect();
    let current: Vec<&edit::Found> = found.iter().filter(|f| !f.legacy).collect();
    if !legacy.is_empty() {
        let locs: Vec<&str> = legacy.iter().map(|f| f.location.as_str()).collect();
        let health = if current.is_empty() {
            Health::Broken
        } else {
            Health::Warn
        };
        d.problem(
            health,
            format!(
                "tokenjuice entries in an older shape (another event, matcher or subcommand, e.g. a PostToolUse compaction hook) at {}",
                locs.join(", ")
            ),
            format!("{} (it migrates them in place)", install_fix(spec.id)),
        );
    }
    let Some(entry) = current.first() else {
        return d;
    };
    if current.len() > 1 {
        d.problem(
            Health::Warn,
            format!(
                "{} tokenjuice entries for {}; the host runs each one",
                current.len(),
                spec.event
            ),
            format!("{} (it keeps exactly one)", install_fix(spec.id)),
        );
    }
    let command = entry.command(spec);
    d.fact(format!("entry {}: {command}", entry.location));
    if spec.shape == Shape::Flat && root.get("version").and_then(Value::as_i64) != Some(1) {
        d.problem(
            Health::Broken,
            "the file has no `\"version\": 1`; the host ignores it",
            install_fix(spec.id),
        );
    }
    if let Some((key, _)) = spec.timeout {
        if !entry.handler.contains_key(key) {
            d.problem(
                Health::Warn,
                format!("the entry has no `{key}`; a hung hook would stall every shell command"),
                install_fix(spec.id),
            );
        }
    }
    if spec.mechanism != Mechanism::SessionBashEnv
        && !matcher_selects_shell_tool(&mut d, spec, entry)
    {
        return d;
    }
    if !check_launchers(&mut d, spec, &command, env) {
        return d;
    }
    host_specific(&mut d, spec);
    if spec.mechanism == Mechanism::SessionBashEnv {
        super::droid::check(&mut d, spec, &command, env);
    } else {
        probe_hook(&mut d, spec, &command);
    }
    if spec.answer == Answer::CopilotResult {
        probe_copilot_preview(&mut d, spec, &command);
    }
    if let Some(p) = crate::registry::prefix_host(spec.id) {
        super::prefix::check(&mut d, p, &root);
    }
    version(&mut d, spec, env);
    d
}

/// The host's version against the versions the mechanism was proven in.
pub(super) fn version(d: &mut Diagnosis, spec: &HookSpec, env: &Env) {
    let Some((program_name, proven)) = spec.proven else {
        return;
    };
    let Some(program) = env.which(program_name) else {
        d.notes.push(format!(
            "`{}` is not on PATH here, so its version was not checked (the mechanism is proven in {} {})",
            program_name,
            program_name,
            proven.join(", ")
        ));
        return;
    };
    let out = prefix::run(
        Command::new(&program).arg("--version"),
        Duration::from_secs(10),
    );
    // some print it on stderr (pi)
    let text = out
        .as_ref()
        .map(|o| {
            let stdout = String::from_utf8_lossy(&o.stdout);
            if stdout.trim().is_empty() {
                String::from_utf8_lossy(&o.stderr).into_owned()
            } else {
                stdout.into_owned()
            }
        })
        .unwrap_or_default();
    let Some(v) = text
        .split_whitespace()
        .find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()))
    else {
        d.problem(
            Health::Warn,
            format!(
                "could not read the version of {} (`--version` said {:?})",
                program.display(),
                text.trim()
            ),
            "check that the agent runs",
        );
        return;
    };
    let major_minor: String = v.split('.').take(2).collect::<Vec<_>>().join(".");
    if proven.contains(&major_minor.as_str()) {
        d.fact(format!(
            "{} {v}: the mechanism is proven in {major_minor}.x by tokenjuice's end-to-end suite",
            program_name
        ));
    } else {
        d.problem(
            Health::Warn,
            format!(
                "{} {v} is a version the mechanism was not proven in (proven: {}); it may run commands differently",
                program_name,
                proven.join(", ")
            ),
            format!("use a proven version, or check the output by hand; `tokenjuice uninstall {}` removes it", spec.id),
        );
    }
}

/// Checks, with the host's matcher rules, that our entry's matcher selects the host's shell
/// tool under every name the host sends it by; false when it never would.
fn matcher_selects_shell_tool(d: &mut Diagnosis, spec: &HookSpec, entry: &edit::Found) -> bool {
    let dialect = spec.dialect.dialect();
    let matcher = match tokenjuice_hooks::matcher::Matcher::parse(
        entry.matcher.as_deref(),
        dialect.matcher,
    ) {
        Ok(m) => m,
        Err(e) => {
            d.problem(
                Health::Broken,
                format!(
                    "the entry's matcher {:?} is not a valid pattern: {e}",
                    entry.matcher
                ),
                install_fix(spec.id),
            );
            return false;
        }
    };
    let missed: Vec<&str> = spec
        .tools
        .iter()
        .copied()
        .filter(|tool| !matcher.matches_any(&dialect.tool_names_for_matching(tool)))
        .collect();
    if !missed.is_empty() {
        d.problem(Health::Broken, format!("the entry's matcher ({}) never selects the shell tool {}, so the host never runs the hook", matcher.describe(), missed.join(", ")), install_fix(spec.id));
        return false;
    }
    d.fact(format!(
        "matcher {} selects the shell tool ({})",
        matcher.describe(),
        spec.tools.join(", ")
    ));
    true
}

/// Checks every program the hook command names; false when one is missing.
fn check_launchers(d: &mut Diagnosis, spec: &HookSpec, command: &str, env: &Env) -> bool {
    let script = shell::parse(command);
    let Some(shell::Command::Simple(simple)) = script
        .items
        .first()
        .and_then(|i| i.pipeline.commands.first())
    else {
        d.problem(
            Health::Broken,
            format!("cannot read the hook command `{command}`"),
            install_fix(spec.id),
        );
        return false;
    };
    let argv = simple.argv();
    let mut programs: Vec<String> = Vec::new();
    match argv.first() {
        Some(a0) if matches!(basename(a0), "node" | "nodejs") => {
            if env.which(a0).is_none() {
                d.problem(
                    Health::Broken,
                    format!("`{a0}` is not on PATH, and the hook runs a .js launcher with it"),
                    "install Node.js, or reinstall with a tokenjuice binary on PATH",
                );
                return false;
            }
            if let Some(script) = argv.get(1) {
                programs.push(script.clone());
            }
        }
        Some(a0) => programs.push(a0.clone()),
        None => {}
    }
    programs.dedup();
    let mut all_ok = true;
    for p in programs {
        let path = Path::new(&p);
        let ok = if is_node_script(&p) {
            path.is_file()
        } else if p.contains('/') {
            is_executable(path)
        } else {
            env.which(&p).is_some()
        };
        if !ok {
            all_ok = false;
            d.problem(
                Health::Broken,
                format!("launcher `{p}` does not exist or is not executable"),
                format!(
                    "{}, or `tokenjuice install {} --local` to point at this build",
                    install_fix(spec.id),
                    spec.id
                ),
            );
        } else if p.contains("/Cellar/") {
            d.problem(Health::Warn, format!("launcher `{p}` is pinned to a Homebrew Cellar version; it breaks at the next upgrade"), format!("{} with the stable Homebrew path on PATH", install_fix(spec.id)));
        } else {
            d.fact(format!("launcher {p} is executable"));
        }
    }
    all_ok
}

fn host_specific(d: &mut Diagnosis, spec: &HookSpec) {
    if spec.answer == Answer::GeminiTail {
        let payload = json!({"cwd": std::env::current_dir().unwrap_or_default()});
        let files = crate::gemini_tail::settings_files(&payload, &Env::from_process());
        match crate::gemini_tail::read_file_blocked(&files) {
            Some(why) => d.problem(
                Health::Disabled,
                format!("{why}: the hook leaves every result as Gemini made it, so nothing is compacted"),
                "let read_file run unasked (the tail reads the compacted result with it)",
            ),
            None => d.fact("read_file is available and unasked in the settings read (system, user, this folder)"),
        }
        gemini_folder_trust(d, &Env::from_process());
    }
}

/// Gemini runs no hook, ours included, in a folder it does not trust (read in the 0.61
/// bundle, `processHooksFromConfig`): said of the folder doctor runs in, as a note (the
/// user decides which folders to trust).
fn gemini_folder_trust(d: &mut Diagnosis, env: &Env) {
    use tokenjuice_hooks::engine::gemini_trust::{folder_trust, FolderTrust};
    let Ok(user) = crate::paths::config_path(
        &crate::registry::Anchor::User(&tokenjuice_hooks::homes::GEMINI),
        "settings.json",
        env,
    ) else {
        return;
    };
    let trusted_folders = env
        .var("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| user.with_file_name("trustedFolders.json"));
    let settings = std::fs::read(&user)
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok());
    match folder_trust(
        |k| env.var(k).map(str::to_string),
        settings.as_ref(),
        &trusted_folders,
        &env.cwd,
    ) {
        FolderTrust::Trusted => d.fact(format!(
            "Gemini trusts this folder ({}), so it runs hooks here",
            env.cwd.display()
        )),
        FolderTrust::Untrusted(why) => d.notes.push(format!(
            "Gemini does not trust this folder ({}; {why}): by Gemini 0.61's code it runs no hooks in a folder it does not trust, tokenjuice's included, so nothing would be compacted here (headless, it refuses to start in such a folder)",
            env.cwd.display()
        )),
    }
}

fn probe_hook(d: &mut Diagnosis, spec: &'static HookSpec, command: &str) {
    let Some(dir) = probe_dir_or_warn(d) else {
        return;
    };
    let dialect = spec.dialect.dialect();
    let (event, payload) = match sample_payload(spec, dir.path()) {
        Ok(p) => p,
        Err(e) => {
            d.problem(
                Health::Broken,
                format!("cannot build the sample payload: {e}"),
                "report this as a tokenjuice bug",
            );
            return;
        }
    };
    let handler = Handler {
        timeout: Some(PROBE_TIMEOUT),
        ..Handler::command(command)
    };
    let trace = run_handler(
        dialect,
        event,
        &handler,
        &payload,
        dir.path(),
        &EngineOptions::default(),
    );
    if trace.timed_out || trace.exit_code != Some(0) {
        let why = if trace.timed_out {
            "timed out".to_string()
        } else {
            format!(
                "exited with {:?}; stderr: {}",
                trace.exit_code,
                trace.stderr.trim()
            )
        };
        d.problem(
            Health::Broken,
            format!("the hook failed on a sample payload: {why}"),
            install_fix(spec.id),
        );
        return;
    }
    let Some(output) = trace.output.clone() else {
        d.problem(
            Health::Broken,
            format!(
                "the hook printed no JSON object for a sample payload (stdout: {:?})",
                trace.stdout.trim()
            ),
            install_fix(spec.id),
        );
        return;
    };
    if spec.answer == Answer::GeminiTail {
        let file = output
            .pointer("/hookSpecificOutput/tailToolCallRequest/args/file_path")
            .and_then(Value::as_str);
        let tool = output.pointer("/hookSpecificOutput/tailToolCallRequest/name");
        let text = file.and_then(|f| std::fs::read_to_string(f).ok());
        let sent = sample_post_text().len();
        match (tool.and_then(Value::as_str), text) {
            (Some("read_file"), Some(t)) if t.len() < sent && t.contains("Exit Code: 3") => d.fact(format!(
                "a sample failing {} payload was answered with a read_file tail of the compacted result ({sent} → {} bytes, Gemini's exit line kept)",
                spec.event,
                t.len()
            )),
            _ => d.problem(
                Health::Broken,
                format!("the hook did not hand back a compacted sample result; it answered {output}"),
                install_fix(spec.id),
            ),
        }
        return;
    }
    if spec.mechanism == Mechanism::PostToolReplace {
        let replaced = output
            .pointer("/modifiedResult/textResultForLlm")
            .and_then(Value::as_str);
        let sent = sample_post_text().len();
        match replaced {
            Some(t) if t.len() < sent => d.fact(format!(
                "a sample {} payload was answered with a compacted result ({sent} → {} bytes)",
                spec.event,
                t.len()
            )),
            _ => d.problem(
                Health::Broken,
                format!("the hook did not replace a noisy sample result; it answered {output}"),
                install_fix(spec.id),
            ),
        }
        return;
    }
    d.problem(
        Health::Broken,
        format!(
            "tokenjuice has no probe for a {} hook",
            spec.mechanism.as_str()
        ),
        "report this as a tokenjuice bug",
    );
}

/// Copilot CLI cuts a shell result over ~20 KB to a 500-character preview naming the file that
/// holds it, before postToolUse hooks run. The hook must read that file: a preview-shaped
/// sample (its file in the private probe folder) must come back compacted, shorter than the
/// preview, with the file's path, its first error line and Copilot's exit line kept.
fn probe_copilot_preview(d: &mut Diagnosis, spec: &'static HookSpec, command: &str) {
    let Some(dir) = probe_dir_or_warn(d) else {
        return;
    };
    let saved = dir.path().join("1-copilot-tool-output-doctor.txt");
    let full = format!(
        "error: checksum mismatch in chunk 7\n{}",
        sample_post_text().repeat(3)
    );
    if std::fs::write(&saved, &full).is_err() {
        d.notes
            .push("could not write the large-output sample; that path was not probed".into());
        return;
    }
    let preview = format!(
        "Output too large to read at once ({:.1} KB). Saved to: {}\nConsider using tools like grep to examine portions of the output.\n\nPreview (first 500 chars):\n{}\n<shellId: 0 completed with exit code 0>",
        full.len() as f64 / 1024.0,
        saved.display(),
        full.chars().take(500).collect::<String>()
    );
    let payload = json!({
        "sessionId": "tokenjuice-doctor",
        "timestamp": 0,
        "cwd": dir.path().to_string_lossy(),
        "toolName": spec.tools[0],
        "toolArgs": json!({"command": "./fetch-all.sh"}).to_string(),
        "toolResult": {"resultType": "success", "textResultForLlm": preview},
    });
    let handler = Handler {
        timeout: Some(PROBE_TIMEOUT),
        ..Handler::command(command)
    };
    let trace = run_handler(
        spec.dialect.dialect(),
        EventKind::PostToolUse,
        &handler,
        &payload,
        dir.path(),
        &EngineOptions::default(),
    );
    let text = trace
        .output
        .as_ref()
        .and_then(|o| o.pointer("/modifiedResult/textResultForLlm"))
        .and_then(Value::as_str);
    let path = saved.display().to_string();
    match text {
        Some(t)
            if t.len() < preview.len()
                && t.contains(&path)
                && t.contains("error: checksum mismatch in chunk 7")
                && t.ends_with("<shellId: 0 completed with exit code 0>") =>
        {
            d.fact(format!(
                "a sample over Copilot's ~20 KB preview threshold was compacted from the saved full output ({} → {} bytes, its path kept)",
                full.len(),
                t.len()
            ))
        }
        _ => d.problem(
            Health::Broken,
            format!(
                "the hook did not compact a large-output preview from its saved file; it answered {}",
                trace.output.map(|o| o.to_string()).unwrap_or_else(|| trace.stdout.trim().to_string())
            ),
            install_fix(spec.id),
        ),
    }
}

fn sample_post_text() -> String {
    (1..=300)
        .map(|i| format!("downloading chunk {i:03} of 300\n"))
        .collect()
}

fn sample_payload(spec: &HookSpec, cwd: &Path) -> Result<(EventKind, Value), String> {
    if spec.answer == Answer::GeminiTail {
        let body = sample_post_text();
        return Ok((
            EventKind::PostToolUse,
            json!({
                "session_id": "tokenjuice-doctor",
                "hook_event_name": spec.event,
                "cwd": cwd.to_string_lossy(),
                "transcript_path": cwd.join("project/chats/session.json").to_string_lossy(),
                "tool_name": spec.tools[0],
                "tool_input": {"command": "./fetch-all.sh"},
                "tool_response": {"llmContent": format!(
                    "<untrusted_context>\nOutput: {}\nExit Code: 3\nProcess Group PGID: 1\n</untrusted_context>",
                    body.trim_end()
                )},
            }),
        ));
    }
    if spec.mechanism == Mechanism::PostToolReplace {
        let text = sample_post_text();
        let args = json!({"command": "./fetch-all.sh"}).to_string();
        return Ok((
            EventKind::PostToolUse,
            json!({
                "sessionId": "tokenjuice-doctor",
                "timestamp": 0,
                "cwd": cwd.to_string_lossy(),
                "toolName": spec.tools[0],
                "toolArgs": args,
                "toolResult": {"resultType": "success", "textResultForLlm": format!("{text}\n<shellId: 0 completed with exit code 0>")},
            }),
        ));
    }
    Err(format!(
        "no sample payload for a {} hook",
        spec.mechanism.as_str()
    ))
}
