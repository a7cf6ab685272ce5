//! Guidance targets: one complete, current block.

use super::{install_fix, Diagnosis, Health};
use crate::env::Env;
use crate::guidance;
use crate::paths::config_path;
use crate::registry::{GuidanceSpec, Mechanism};

pub(super) fn diagnose(spec: &'static GuidanceSpec, env: &Env) -> Diagnosis {
    let mut d = Diagnosis::new(spec.id, Mechanism::Guidance);
    d.notes.push("guidance only: the model is asked to use `tokenjuice wrap`; nothing intercepts its commands".into());
    let path = match config_path(&spec.anchor, spec.file, env) {
        Ok(p) => p,
        Err(e) => {
            d.problem(Health::Broken, e.to_string(), "set HOME");
            return d;
        }
    };
    d.path = Some(path.clone());
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            d.problem(
                Health::Broken,
                format!("cannot read {}: {e}", path.display()),
                "make the file readable",
            );
            return d;
        }
    };
    match guidance::state(spec, text.as_deref()) {
        guidance::State::Absent => d.problem(
            Health::Disabled,
            "no tokenjuice guidance block",
            install_fix(spec.id),
        ),
        guidance::State::Present { current: true } => {
            d.fact("the guidance block is present and current")
        }
        guidance::State::Present { current: false } => d.problem(
            Health::Warn,
            "the guidance block differs from what this tokenjuice writes (edited or older)",
            install_fix(spec.id),
        ),
        guidance::State::Damaged(why) => d.problem(
            Health::Broken,
            why,
            format!(
                "remove the partial tokenjuice block from {} by hand, then {}",
                path.display(),
                install_fix(spec.id)
            ),
        ),
    }
    d
}
