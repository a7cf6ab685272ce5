//! Where each host keeps its config, honouring the host's own variables and `HOME`.

use std::path::PathBuf;

use crate::env::Env;
use crate::error::{HostsError, Result};
use crate::registry::Anchor;

/// The directory `anchor` points at.
pub fn anchor_dir(anchor: &Anchor, env: &Env) -> Result<PathBuf> {
    match *anchor {
        Anchor::User(home) => home
            .resolve(env.home.as_deref(), |k| env.var(k))
            .ok_or(HostsError::NoHome { hint: home.hint() }),
        Anchor::XdgConfig { env: vars, sub } => {
            if let Some(v) = vars.iter().find_map(|v| env.var(v)) {
                return Ok(PathBuf::from(v));
            }
            if let Some(x) = env.var("XDG_CONFIG_HOME") {
                return Ok(PathBuf::from(x).join(sub));
            }
            let home = env.home.as_ref().ok_or(HostsError::NoHome {
                hint: vars.first().copied().unwrap_or("XDG_CONFIG_HOME"),
            })?;
            Ok(home.join(".config").join(sub))
        }
        Anchor::Project { env: vars, dir } => {
            let project = env.project_dir(vars);
            Ok(if dir.is_empty() {
                project
            } else {
                project.join(dir)
            })
        }
    }
}

pub fn config_path(anchor: &Anchor, file: &str, env: &Env) -> Result<PathBuf> {
    Ok(anchor_dir(anchor, env)?.join(file))
}
