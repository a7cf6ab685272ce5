//! `git diff --stat` / `--numstat` / `--compact-summary` (also `git show --stat`, `git log
//! --stat` bodies are left to their own rules): every file with its change count, grouped by
//! folder.
//!
//! `--stat` pads every path to the longest one so the `|` columns line up; the padding and
//! the folder repeated on each line are most of the tokens. Each file is written
//! `name count graph` (`compact.rs 41 ++-`; the graph of `+`/`-` is git's, scaled as git
//! scaled it), the files of a folder holding two or more on one line after the folder
//! (`crates/core/src/ (4): classify.rs 16 +-, compact.rs 41 ++, …`). `--numstat` lines
//! (`12<TAB>3<TAB>path`) read `name +12 -3`, binary files `name binary`. The summary line
//! (`62 files changed, …`) and any other line are kept as they are. A renamed path
//! (`a => b`, `{x => y}`) and one git cut to its width (`...ures/a.snap`) keep their line.

use super::{Structured, StructuredOutput};

/// Files kept; the rest are counted.
const MAX_FILES: usize = 20_000;
/// Width at which a folder's line continues on the next.
const WRAP: usize = 160;

struct File {
    dir: String,
    name: String,
    /// `41 ++-`, `+12 -3`, `Bin 0 -> 120 bytes`, `binary`
    change: String,
}

#[derive(Default)]
pub struct DiffStat {
    /// Files and other lines, in order (other lines: None).
    items: Vec<Result<File, String>>,
    files: u64,
    stored: usize,
}

/// ` path/to/x.rs      |  41 ++-` → (path with any `(new)`-like mark, change).
fn stat_line(line: &str) -> Option<(&str, &str)> {
    let (path, change) = line.rsplit_once(" | ")?;
    let path = path.trim();
    let change = change.trim();
    let ok_change = change
        .split_whitespace()
        .next()
        .is_some_and(|w| w.bytes().all(|b| b.is_ascii_digit()) || w == "Bin");
    (!path.is_empty() && ok_change && line.starts_with(' ')).then_some((path, change))
}

/// `12<TAB>3<TAB>path` (`-<TAB>-<TAB>path` for a binary file) → (path, change).
fn numstat_line(line: &str) -> Option<(&str, String)> {
    let mut parts = line.splitn(3, '\t');
    let (add, del, path) = (parts.next()?, parts.next()?, parts.next()?);
    let num = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if add == "-" && del == "-" {
        return Some((path, "binary".into()));
    }
    (num(add) && num(del) && !path.is_empty()).then(|| (path, format!("+{add} -{del}")))
}

fn split_path(path: &str) -> (String, String) {
    match path.rfind('/') {
        Some(i) => (path[..=i].to_string(), path[i + 1..].to_string()),
        None => (String::new(), path.to_string()),
    }
}

impl Structured for DiffStat {
    fn push(&mut self, line: &str) {
        let t = line.trim_end();
        if t.is_empty() {
            return;
        }
        let parsed = stat_line(t)
            .map(|(p, c)| (p, c.to_string()))
            .or_else(|| numstat_line(t));
        let Some((path, change)) = parsed else {
            // the summary line (` 7 files changed, …`) loses the stat's indentation
            self.items.push(Err(t.trim_start().to_string()));
            return;
        };
        self.files += 1;
        if self.stored >= MAX_FILES {
            return;
        }
        self.stored += 1;
        if path.contains(" => ") || path.starts_with("...") {
            // a rename keeps its own line (the braces belong to the path), and so does a
            // path git cut to fit its width (`...ures/a.snap`: its folder is not known)
            self.items.push(Err(format!("{path} {change}")));
            return;
        }
        let (dir, name) = split_path(path);
        self.items.push(Ok(File { dir, name, change }));
    }

    fn finish(self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        if self.files < 2 {
            return None;
        }
        // folders in the order first seen, each with its files
        let mut dirs: Vec<(&str, Vec<&File>)> = Vec::new();
        let mut lines: Vec<String> = Vec::new();
        let mut order: Vec<Result<usize, &str>> = Vec::new();
        // where each folder is in `dirs` (a stat of many folders is not searched folder by
        // folder for each file)
        let mut at: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for item in &self.items {
            match item {
                Ok(f) => match at.get(f.dir.as_str()) {
                    Some(&i) => dirs[i].1.push(f),
                    None => {
                        at.insert(&f.dir, dirs.len());
                        order.push(Ok(dirs.len()));
                        dirs.push((&f.dir, vec![f]));
                    }
                },
                Err(l) => order.push(Err(l)),
            }
        }
        for o in order {
            let (dir, files) = match o {
                Err(l) => {
                    lines.push(l.to_string());
                    continue;
                }
                Ok(i) => &dirs[i],
            };
            if files.len() == 1 {
                let f = files[0];
                lines.push(format!("{dir}{} {}", f.name, f.change));
                continue;
            }
            let label = if dir.is_empty() { "./" } else { dir };
            let head = format!("{label} ({}): ", files.len());
            let mut line = head.clone();
            for (k, f) in files.iter().enumerate() {
                let e = format!("{} {}", f.name, f.change);
                if line.len() > head.len() && line.len() + e.len() > WRAP {
                    lines.push(line.trim_end_matches(' ').to_string());
                    line = "  ".to_string();
                }
                line.push_str(&e);
                if k + 1 < files.len() {
                    line.push_str(", ");
                }
            }
            lines.push(line);
        }
        let omitted = self.files - self.stored as u64;
        if omitted > 0 {
            lines.push(format!("… {omitted} more files not shown"));
        }
        Some(StructuredOutput {
            name: "diff-stat",
            lines,
            facts: Vec::new(),
            omitted,
            filtered: 0,
            facts_line: false,
            json_cut: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Option<StructuredOutput> {
        crate::reduce::structured::feed(Box::<DiffStat>::default(), text, 0)
    }

    #[test]
    fn files_group_by_folder_without_the_padding() {
        let out = run(" README.md                    |  28 +-
 Cargo.toml                   |   3 +
 crates/core/src/classify.rs  |  16 +-
 crates/core/src/compact.rs   |  41 ++
 crates/core/src/reduce/x.rs  |   2 +-
 crates/core/src/zz.rs        |   1 -
 docs/{old.md => new.md}      |   0
 ...ixtures__archive__a.snap  |   6 +-
 img/logo.png                 | Bin 0 -> 1200 bytes
 9 files changed, 95 insertions(+), 14 deletions(-)
")
        .unwrap();
        assert_eq!(
            out.lines,
            vec![
                "./ (2): README.md 28 +-, Cargo.toml 3 +",
                "crates/core/src/ (3): classify.rs 16 +-, compact.rs 41 ++, zz.rs 1 -",
                "crates/core/src/reduce/x.rs 2 +-",
                "docs/{old.md => new.md} 0",
                "...ixtures__archive__a.snap 6 +-",
                "img/logo.png Bin 0 -> 1200 bytes",
                "9 files changed, 95 insertions(+), 14 deletions(-)",
            ]
        );
    }

    #[test]
    fn numstat_and_compact_summary() {
        let out = run("12\t3\tsrc/a.rs\n0\t1\tsrc/b.rs\n-\t-\tsrc/logo.png\n").unwrap();
        assert_eq!(
            out.lines,
            vec!["src/ (3): a.rs +12 -3, b.rs +0 -1, logo.png binary"]
        );
        let out = run(" src/new.rs (new)  | 10 ++++++++++\n src/old.rs (gone) |  4 ----\n 2 files changed, 10 insertions(+), 4 deletions(-)\n").unwrap();
        assert_eq!(
            out.lines[0],
            "src/ (2): new.rs (new) 10 ++++++++++, old.rs (gone) 4 ----"
        );
    }

    #[test]
    fn long_folders_wrap_and_keep_every_file() {
        let text: String = (0..80)
            .map(|i| format!(" src/module_{i:02}.rs | {i} +\n"))
            .collect();
        let out = run(&text).unwrap();
        assert!(out.lines.len() > 2);
        let all = out.lines.join("\n");
        for i in 0..80 {
            assert!(all.contains(&format!("module_{i:02}.rs {i} +")), "{i}");
        }
    }

    #[test]
    fn not_a_stat() {
        assert!(run("fatal: bad revision 'nope'\n").is_none());
        assert!(run(" one.rs | 2 +-\n 1 file changed\n").is_none());
    }
}
