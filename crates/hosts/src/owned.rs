//! Files tokenjuice owns outright: the pi extension, the opencode plugin. The first line
//! carries an ownership marker; a file without it is never overwritten or removed.

use serde_json::Value;

use crate::launcher::Launcher;

pub const MARKER: &str = "tokenjuice-managed";

/// The file's text for `launcher`.
pub fn render(template: &str, host: &str, launcher: &Launcher) -> String {
    let quoted = Value::String(launcher.path.clone()).to_string();
    template
        .replace("__TOKENJUICE_HOST__", host)
        .replace("\"__TOKENJUICE_LAUNCHER__\"", &quoted)
}

pub fn is_ours(text: &str) -> bool {
    text.lines().next().is_some_and(|l| l.contains(MARKER))
}

/// The launcher a rendered file points at.
pub fn launcher_of(text: &str) -> Option<String> {
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("const LAUNCHER ="))?;
    let lit = line.split_once('=')?.1.trim().trim_end_matches(';');
    serde_json::from_str::<String>(lit).ok()
}
