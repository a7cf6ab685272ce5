//! # tokenjuice-hosts
//!
//! Puts tokenjuice into AI coding agents and takes it out again, proves an install works,
//! and answers the agents' hook calls.
//!
//! - [`registry`]: every host as a row of data (config path and its environment overrides,
//!   shape, event, matcher, timeout, answer style, shell order) — hook hosts
//!   ([`registry::HOOK_HOSTS`]) and guidance-only agents ([`registry::GUIDANCE_HOSTS`]).
//! - [`install`] / [`uninstall`]: edit the host's file keeping everything that is not ours
//!   ([`edit`], [`files`]: atomic, one-time `.bak`, symlink-safe, refuses malformed files).
//! - [`doctor`]: health with reasons and fixes, proven by running the installed hook through
//!   the hooks engine (`tokenjuice_hooks::run_handler`).
//! - [`entry`]: the `<host>-pre-tool-use` / `<host>-post-tool-use` entrypoints.
//!
//! Layering: this crate uses `tokenjuice-core` (shell quoting and parsing, compaction for
//! post-tool hosts) and `tokenjuice-hooks` (dialects, payloads, the runner); the CLI uses it.

pub mod claude_settings;
pub mod codebuddy_transcript;
pub mod codex_env;
pub mod codex_rollout;
pub mod doctor;
pub mod droid_env;
pub mod edit;
pub mod entry;
pub mod env;
pub mod error;
pub mod files;
pub mod gemini_tail;
pub mod guidance;
pub mod json_keep;
pub mod launcher;
pub mod owned;
pub mod paths;
pub mod payload;
pub mod prefix_env;
pub mod registry;
pub mod rewrite;
pub mod streaming;

use std::path::PathBuf;

pub use doctor::{diagnose, Diagnosis, Health};
pub use env::Env;
pub use error::{HostsError, Result};
pub use registry::{find, HookSpec, Mechanism, Target};

use files::Written;
use registry::Shape;

/// What install or uninstall did, for the user.
#[derive(Debug, Clone)]
pub struct Report {
    pub host: &'static str,
    pub path: PathBuf,
    pub changed: bool,
    pub lines: Vec<String>,
}

fn written_line(w: &Written, path: &std::path::Path) -> Option<String> {
    match w {
        Written::Unchanged => None,
        Written::Created => Some(format!("created {}", path.display())),
        Written::Updated { backup } => Some(match backup {
            Some(b) => format!(
                "updated {} (original kept as {})",
                path.display(),
                b.display()
            ),
            None => format!("updated {}", path.display()),
        }),
        Written::Removed { backup } => Some(match backup {
            Some(b) => format!(
                "removed {} (original kept as {})",
                path.display(),
                b.display()
            ),
            None => format!("removed {}", path.display()),
        }),
    }
}

/// `tokenjuice install <host> [--local]`.
pub fn install(target: Target, local: bool, env: &Env) -> Result<Report> {
    match target {
        Target::Hook(spec) => install_hook(spec, local, env),
        Target::Guidance(spec) => {
            let path = paths::config_path(&spec.anchor, spec.file, env)?;
            let loaded = files::load(&path)?;
            let new = guidance::installed(spec, loaded.text.as_deref()).map_err(|what| {
                HostsError::Shape {
                    path: path.clone(),
                    what,
                    fix: format!(
                        "fix or move the file aside, then run `tokenjuice install {}` again",
                        spec.id
                    ),
                }
            })?;
            let w = match spec.style {
                registry::GuidanceStyle::OwnedFile { .. } => {
                    files::store_owned(&loaded, Some(&new))?
                }
                registry::GuidanceStyle::MarkdownBlock => files::store(&loaded, Some(&new))?,
            };
            let mut lines: Vec<String> = written_line(&w, &path).into_iter().collect();
            if w == Written::Unchanged {
                lines.push(format!(
                    "{} already holds the current tokenjuice guidance",
                    path.display()
                ));
            }
            lines.push(
                "guidance only: the model is asked to run noisy commands through `tokenjuice wrap`"
                    .into(),
            );
            Ok(Report {
                host: spec.id,
                path,
                changed: w != Written::Unchanged,
                lines,
            })
        }
    }
}

fn install_hook(spec: &'static HookSpec, local: bool, env: &Env) -> Result<Report> {
    if spec.mechanism == Mechanism::BashEnv {
        return install_bash_env(spec, local, env);
    }
    if spec.mechanism == Mechanism::Unsupported {
        return Err(HostsError::Unsupported {
            host: spec.id,
            why: spec.note.unwrap_or("no mechanism changes only the output"),
            fix: format!(
                "`tokenjuice install {}` adds guidance asking the model to use `tokenjuice wrap` for noisy commands; `tokenjuice uninstall {}` removes an earlier tokenjuice hook",
                spec.guidance, spec.id
            ),
        });
    }
    let path = paths::config_path(&spec.anchor, spec.file, env)?;
    let (launcher, why) = launcher::resolve(local, env)?;
    let loaded = files::load(&path)?;
    let mut lines = Vec::new();
    let new_text = match spec.shape {
        Shape::OwnedFile { template } => {
            if let Some(t) = &loaded.text {
                if !owned::is_ours(t) {
                    return Err(HostsError::Shape {
                        path,
                        what: "the file exists and was not written by tokenjuice".into(),
                        fix: format!(
                            "move it aside, then run `tokenjuice install {}` again",
                            spec.id
                        ),
                    });
                }
            }
            owned::render(template, spec.id, &launcher)
        }
        Shape::Groups { .. } | Shape::Flat => {
            let root = files::parse_object_in(&loaded, spec.comments)?;
            let command = launcher.hook_command(&spec.entry_subcommand());
            let (mut root, removed) = if spec.hook_entry {
                edit::install(spec, root, &command, &path)?
            } else {
                edit::uninstall(spec, root, &path)?
            };
            if let Some(p) = registry::prefix_host(spec.id) {
                if let Some(l) = prefix_env::install(p, &mut root, &launcher.path, &path)? {
                    lines.push(l);
                }
                lines.push(format!(
                    "env.{} = {}",
                    p.prefix_env,
                    prefix_env::value(p, &launcher.path)
                ));
            }
            if removed > 0 {
                lines.push(format!(
                    "removed {removed} older tokenjuice entr{} (migrated in place)",
                    if removed == 1 { "y" } else { "ies" }
                ));
            }
            if let Some(f) = edit::find(spec, &root).into_iter().find(|f| !f.legacy) {
                lines.push(format!("entry {}: {}", f.location, f.command(spec)));
            }
            files::render_over(&loaded, &root)?
        }
    };
    if spec.mechanism == Mechanism::SessionBashEnv {
        // the script first: the hook never points at a missing one
        lines.splice(0..0, droid_env::install_script(&launcher.path, env)?);
    }
    let w = match spec.shape {
        Shape::OwnedFile { .. } => files::store_owned(&loaded, Some(&new_text))?,
        _ => files::store(&loaded, Some(&new_text))?,
    };
    let mut out: Vec<String> = written_line(&w, &path).into_iter().collect();
    if w == Written::Unchanged {
        out.push(format!(
            "{} already holds the current tokenjuice entry",
            path.display()
        ));
    }
    out.push(format!("launcher: {} ({why})", launcher.path));
    out.extend(lines);
    if let Some(n) = spec.note {
        out.push(format!("note: {n}"));
    }
    out.push(format!("check it with `tokenjuice doctor {}`", spec.id));
    Ok(Report {
        host: spec.id,
        path,
        changed: w != Written::Unchanged,
        lines: out,
    })
}

fn install_bash_env(spec: &'static HookSpec, local: bool, env: &Env) -> Result<Report> {
    let (launcher, why) = launcher::resolve(local, env)?;
    let mut lines = codex_env::install(&launcher.path, env)?;
    // an older tokenjuice PreToolUse rewrite changed what Codex allowed: take it out
    let hooks = paths::config_path(&spec.anchor, spec.file, env)?;
    let loaded = files::load(&hooks)?;
    if loaded.text.is_some() {
        let root = files::parse_object(&loaded)?;
        let (root, removed) = edit::uninstall(spec, root, &hooks)?;
        if removed > 0 {
            files::store(&loaded, Some(&files::render_over(&loaded, &root)?))?;
            lines.push(format!(
                "removed the older tokenjuice PreToolUse hook from {}",
                hooks.display()
            ));
        }
    }
    lines.push(format!("launcher: {} ({why})", launcher.path));
    if let Some(n) = spec.note {
        lines.push(format!("note: {n}"));
    }
    lines.push(format!("check it with `tokenjuice doctor {}`", spec.id));
    Ok(Report {
        host: spec.id,
        path: codex_env::paths(env)?.config,
        changed: true,
        lines,
    })
}

/// `tokenjuice uninstall <host>`.
pub fn uninstall(target: Target, env: &Env) -> Result<Report> {
    if let Target::Hook(spec) = target {
        if spec.mechanism == Mechanism::BashEnv {
            let changed = codex_env::uninstall(env)?;
            let mut report = uninstall_entries(target, env)?;
            let config = codex_env::paths(env)?.config;
            if changed {
                report.lines.insert(
                    0,
                    format!(
                        "removed BASH_ENV and ZDOTDIR (and their scripts) from {}",
                        config.display()
                    ),
                );
            }
            report.changed |= changed;
            return Ok(report);
        }
        if spec.mechanism == Mechanism::SessionBashEnv {
            let mut report = uninstall_entries(target, env)?;
            if droid_env::uninstall_script(env)? {
                report.lines.push(format!(
                    "removed {}",
                    droid_env::script_path(env)?.display()
                ));
                report.changed = true;
            }
            return Ok(report);
        }
    }
    uninstall_entries(target, env)
}

fn uninstall_entries(target: Target, env: &Env) -> Result<Report> {
    let (id, path) = match target {
        Target::Hook(s) => (s.id, paths::config_path(&s.anchor, s.file, env)?),
        Target::Guidance(s) => (s.id, paths::config_path(&s.anchor, s.file, env)?),
    };
    let loaded = files::load(&path)?;
    let Some(text) = loaded.text.clone() else {
        return Ok(Report {
            host: id,
            lines: vec![format!(
                "nothing to remove: {} does not exist",
                path.display()
            )],
            path,
            changed: false,
        });
    };
    let new: Option<String> = match target {
        Target::Guidance(_) => guidance::removed(&text).map_err(|what| HostsError::Shape {
            path: path.clone(),
            what,
            fix: "remove the partial tokenjuice block by hand".into(),
        })?,
        Target::Hook(spec) => match spec.shape {
            Shape::OwnedFile { .. } => {
                if !owned::is_ours(&text) {
                    return Ok(Report {
                        host: id,
                        lines: vec![format!(
                            "left {} alone: it was not written by tokenjuice",
                            path.display()
                        )],
                        path,
                        changed: false,
                    });
                }
                None
            }
            _ => {
                let root = files::parse_object_in(&loaded, spec.comments)?;
                let (mut root, mut removed) = edit::uninstall(spec, root, &path)?;
                if let Some(p) = registry::prefix_host(spec.id) {
                    removed += usize::from(prefix_env::uninstall(p, &mut root));
                }
                if removed == 0 {
                    return Ok(Report {
                        host: id,
                        lines: vec![format!(
                            "nothing to remove: no tokenjuice entry in {}",
                            path.display()
                        )],
                        path,
                        changed: false,
                    });
                }
                let only_shell = spec.shape == Shape::Flat
                    && root.iter().all(|(k, v)| {
                        k == "version"
                            || (k == "hooks" && v.as_object().is_some_and(|m| m.is_empty()))
                    });
                if only_shell {
                    None
                } else if let Some(original) = files::original_if_only_ours_changed(&loaded, &root)
                {
                    // nothing but our entries changed since the first install: the user's
                    // file comes back byte for byte (escapes, number forms, a BOM, layout)
                    Some(original)
                } else {
                    Some(files::render_over(&loaded, &root)?)
                }
            }
        },
    };
    let owned = match target {
        Target::Hook(s) => matches!(s.shape, Shape::OwnedFile { .. }),
        Target::Guidance(g) => matches!(g.style, registry::GuidanceStyle::OwnedFile { .. }),
    };
    let w = if owned {
        files::store_owned(&loaded, new.as_deref())?
    } else {
        files::store(&loaded, new.as_deref())?
    };
    let lines = written_line(&w, &path).into_iter().collect::<Vec<_>>();
    let lines = if lines.is_empty() {
        vec![format!("nothing to remove in {}", path.display())]
    } else {
        lines
    };
    Ok(Report {
        host: id,
        path,
        changed: w != Written::Unchanged,
        lines,
    })
}
