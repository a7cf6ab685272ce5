//! Guidance-only agents: one generic mechanism for all of them. A marked block (or a whole
//! owned file) tells the model to run noisy commands through `tokenjuice wrap`.

use crate::registry::{GuidanceSpec, GuidanceStyle};

pub const BEGIN: &str = "<!-- tokenjuice:begin";
pub const END: &str = "<!-- tokenjuice:end -->";

/// The guidance text (the same for every agent).
pub fn body() -> &'static str {
    "## Shell output: use tokenjuice\n\n\
Run commands whose output can be long or noisy (builds, tests, package installs, linters, \
`git log`/`git diff`, logs) as `tokenjuice wrap -- <command>`. It prints a compacted output \
that keeps every error, failing test, file:line location and summary count, and it exits with \
the command's own exit code. Treat that output as complete: do not re-run the command to look \
for more. When you really need the exact bytes, run `tokenjuice wrap --raw -- <command>`. \
Read files directly (`cat`, `sed -n`, `head`): exact reads are never compacted.\n"
}

/// The marked block for `spec`.
pub fn block(spec: &GuidanceSpec) -> String {
    format!(
        "{BEGIN} (managed by `tokenjuice install {id}`; `tokenjuice uninstall {id}` removes it) -->\n{}{END}\n",
        body(),
        id = spec.id
    )
}

/// The whole file for an owned-file target.
pub fn owned_file(spec: &GuidanceSpec, header: &str) -> String {
    format!("{header}{}", block(spec))
}

/// What is in a file now.
#[derive(Debug, PartialEq, Eq)]
pub enum State {
    Absent,
    /// One complete block; `current` when it is exactly what install writes.
    Present {
        current: bool,
    },
    /// A begin marker without an end, or more than one block.
    Damaged(String),
}

/// Byte range of the one block (begin marker through the end marker's line end).
fn block_range(text: &str) -> Result<Option<(usize, usize)>, String> {
    let begins: Vec<usize> = text.match_indices(BEGIN).map(|(i, _)| i).collect();
    let ends: Vec<usize> = text.match_indices(END).map(|(i, _)| i).collect();
    match (begins.as_slice(), ends.as_slice()) {
        ([], []) => Ok(None),
        ([b], [e]) if e > b => {
            let mut stop = e + END.len();
            if text[stop..].starts_with('\n') {
                stop += 1;
            }
            Ok(Some((*b, stop)))
        }
        ([_], []) => Err("the tokenjuice begin marker has no end marker".into()),
        ([], [_]) => Err("a tokenjuice end marker has no begin marker".into()),
        _ => Err(format!(
            "{} tokenjuice blocks found (begin markers: {}, end markers: {})",
            begins.len().max(ends.len()),
            begins.len(),
            ends.len()
        )),
    }
}

pub fn state(spec: &GuidanceSpec, text: Option<&str>) -> State {
    let Some(text) = text else {
        return State::Absent;
    };
    match block_range(text) {
        Ok(None) => State::Absent,
        Ok(Some((b, e))) => State::Present {
            current: text[b..e] == block(spec)
                && match spec.style {
                    GuidanceStyle::OwnedFile { header } => text == owned_file(spec, header),
                    GuidanceStyle::MarkdownBlock => true,
                },
        },
        Err(why) => State::Damaged(why),
    }
}

/// The file's new text after install, or an error saying why the file is refused.
pub fn installed(spec: &GuidanceSpec, text: Option<&str>) -> Result<String, String> {
    match spec.style {
        GuidanceStyle::OwnedFile { header } => match text {
            Some(t) if !t.trim().is_empty() && block_range(t).ok().flatten().is_none() => {
                Err("the file exists and was not written by tokenjuice".into())
            }
            Some(t) => block_range(t).map(|_| owned_file(spec, header)),
            None => Ok(owned_file(spec, header)),
        },
        GuidanceStyle::MarkdownBlock => {
            let text = text.unwrap_or("");
            match block_range(text)? {
                Some((b, e)) => Ok(format!("{}{}{}", &text[..b], block(spec), &text[e..])),
                None if text.trim().is_empty() => Ok(block(spec)),
                None => {
                    let sep = if text.ends_with("\n\n") {
                        ""
                    } else if text.ends_with('\n') {
                        "\n"
                    } else {
                        "\n\n"
                    };
                    Ok(format!("{text}{sep}{}", block(spec)))
                }
            }
        }
    }
}

/// The file's text after uninstall: `None` when nothing but our block was in it.
pub fn removed(text: &str) -> Result<Option<String>, String> {
    let Some((b, e)) = block_range(text)? else {
        return Ok(Some(text.to_string()));
    };
    let mut head = text[..b].to_string();
    let tail = &text[e..];
    // The blank line install put before the block goes with it.
    if head.ends_with("\n\n") && (tail.is_empty() || tail.starts_with('\n')) {
        head.pop();
    }
    let out = format!("{head}{tail}");
    let only_front_matter = out.trim().is_empty()
        || (out.starts_with("---\n")
            && out.trim_end().ends_with("---")
            && out.matches("---").count() == 2);
    Ok((!only_front_matter).then_some(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::GUIDANCE_HOSTS;

    fn agents() -> &'static GuidanceSpec {
        GUIDANCE_HOSTS.iter().find(|g| g.id == "agents-md").unwrap()
    }

    #[test]
    fn block_round_trip_keeps_the_users_text() {
        let user = "# Project\n\nUse pnpm.\n";
        let with = installed(agents(), Some(user)).unwrap();
        assert!(with.starts_with(user));
        assert_eq!(
            installed(agents(), Some(&with)).unwrap(),
            with,
            "idempotent"
        );
        assert_eq!(
            state(agents(), Some(&with)),
            State::Present { current: true }
        );
        assert_eq!(removed(&with).unwrap().as_deref(), Some(user));
    }

    #[test]
    fn damaged_markers_are_refused() {
        let t = format!("x\n{BEGIN} -->\nhalf\n");
        assert!(installed(agents(), Some(&t)).is_err());
        assert!(matches!(state(agents(), Some(&t)), State::Damaged(_)));
    }
}
