//! `pip install` / `pip uninstall` (and `python -m pip …`).
//!
//! What was installed stays verbatim (`Successfully installed a-1.0 b-2.0`), as do
//! errors, warnings and the resolver's explanations. `Requirement already satisfied:`
//! lines (one per requirement, each with a site-packages path) fold into one line
//! listing every `name version`. Collecting/Downloading/progress/build-step lines
//! are dropped and counted, and so is `Installing collected packages: a, b` when the
//! `Successfully installed a-1.0 b-2.0` line names every one of them. A long output (a
//! package built from source) keeps its first 300 and last 200 lines, where a failed build
//! says why, and up to 100 error and warning lines between them, the rest counted where
//! it was.

use super::kept::Kept;
use super::{Structured, StructuredOutput};
use crate::reduce::text::clip_line;

/// Lines kept from the start (besides the already-satisfied summary).
const MAX_HEAD: usize = 300;
/// Lines kept from the end: where a failed build says why (`ERROR: Failed building wheel`).
const MAX_TAIL: usize = 200;
/// Error and warning lines kept from between the two (a compiler's `error:` in a build log).
const MAX_MIDDLE: usize = 100;
/// Already-satisfied requirements listed at most; the rest are counted.
const MAX_SATISFIED: usize = 1000;

pub struct Pip {
    /// The lines kept: the first [`MAX_HEAD`], the last [`MAX_TAIL`], errors between.
    lines: Kept,
    /// Index in the head where the already-satisfied summary goes.
    satisfied_at: Option<usize>,
    satisfied: Vec<String>,
    satisfied_count: u64,
    filtered: u64,
    recognized: u64,
    installed: u64,
    /// The last line kept was blank (or none was kept yet): blank lines are kept one at a time.
    last_blank: bool,
}

impl Default for Pip {
    fn default() -> Self {
        Pip {
            lines: Kept::new(MAX_HEAD, MAX_TAIL, MAX_MIDDLE),
            satisfied_at: None,
            satisfied: Vec::new(),
            satisfied_count: 0,
            filtered: 0,
            recognized: 0,
            installed: 0,
            last_blank: true,
        }
    }
}

const NOISE_PREFIXES: &[&str] = &[
    "Looking in indexes: ",
    "Looking in links: ",
    "Collecting ",
    "Obtaining ",
    "Processing ",
    "Building wheels for collected packages: ",
    "[notice] ",
    "INFO: pip is looking at multiple versions of ",
    "INFO: This is taking longer than usual.",
];

const NOISE_INDENTED: &[&str] = &[
    "Downloading ",
    "Using cached ",
    "Obtaining dependency information",
    "Preparing metadata",
    "Getting requirements to build",
    "Installing build dependencies",
    "Installing backend dependencies",
    "Building wheel for ",
    "Created wheel for ",
    "Stored in directory: ",
    "Attempting uninstall: ",
    "Found existing installation: ",
    "Uninstalling ",
    "Running setup.py ",
    "File was already downloaded ",
];

fn is_progress(t: &str) -> bool {
    let mut chars = t.chars();
    matches!(chars.next(), Some('━' | '╸' | '╺' | '─' | '|' | '█'))
        && (t.contains(" eta ") || t.contains('%') || t.contains("/s"))
}

/// `Requirement already satisfied: idna<4,>=2.5 in ./venv/… (from requests) (3.20)`
/// → `idna 3.20`.
fn satisfied_entry(rest: &str) -> String {
    let name_end = rest
        .find(|c: char| "<>=!~[;( ".contains(c))
        .unwrap_or(rest.len());
    let name = &rest[..name_end];
    let version = rest
        .trim_end()
        .strip_suffix(')')
        .and_then(|s| s.rfind('(').map(|k| &s[k + 1..]))
        .filter(|v| v.chars().next().is_some_and(|c| c.is_ascii_digit()));
    match version {
        Some(v) => format!("{name} {v}"),
        None => name.to_string(),
    }
}

impl Structured for Pip {
    fn push(&mut self, line: &str) {
        let t = line.trim_start();
        if let Some(rest) = line.strip_prefix("Requirement already satisfied: ") {
            self.recognized += 1;
            self.satisfied_count += 1;
            if self.satisfied_at.is_none() {
                self.satisfied_at = Some(self.lines.head.len());
            }
            if self.satisfied.len() < MAX_SATISFIED {
                let e = satisfied_entry(rest);
                if !self.satisfied.contains(&e) {
                    self.satisfied.push(e);
                }
            }
            return;
        }
        let indented = line.len() != t.len();
        if NOISE_PREFIXES.iter().any(|p| line.starts_with(p))
            || (indented && NOISE_INDENTED.iter().any(|p| t.starts_with(p)))
            || is_progress(t)
        {
            self.recognized += 1;
            self.filtered += 1;
            return;
        }
        if line.starts_with("Successfully installed ") {
            self.recognized += 1;
            self.installed += line.split_whitespace().count().saturating_sub(2) as u64;
        } else if line.starts_with("Installing collected packages: ")
            || line.starts_with("ERROR: ")
            || line.starts_with("WARNING: ")
            || line.starts_with("Successfully ")
        {
            self.recognized += 1;
        }
        if line.trim().is_empty() && self.last_blank {
            return;
        }
        self.last_blank = line.trim().is_empty();
        self.lines.push(clip_line(line, 2000).into_owned());
    }

    fn finish(self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        if self.recognized == 0 {
            return None;
        }
        let (mut lines, omitted) = self.lines.finish();
        while lines.last().is_some_and(|l| l.is_empty()) {
            lines.pop();
        }
        let mut filtered = self.filtered;
        if drop_installing_line(&mut lines) {
            filtered += 1;
        }
        if let Some(at) = self.satisfied_at {
            let listed = self.satisfied.len() as u64;
            let mut s = format!(
                "Requirement already satisfied ({}): {}",
                self.satisfied_count,
                self.satisfied.join(", ")
            );
            if self.satisfied_count > listed && listed as usize >= MAX_SATISFIED {
                s.push_str(&format!(", … (+{} more)", self.satisfied_count - listed));
            }
            lines.insert(at.min(lines.len()), s);
        }
        let mut facts = Vec::new();
        if self.installed > 0 {
            facts.push(("installed package".to_string(), self.installed));
        }
        if self.satisfied_count > 0 {
            facts.push(("already satisfied".to_string(), self.satisfied_count));
        }
        // the folded already-satisfied lines are summarized, not lost
        let folded = self.satisfied_count.saturating_sub(1);
        Some(StructuredOutput {
            name: "pip",
            lines,
            facts,
            omitted,
            filtered: filtered + folded,
            facts_line: false,
            json_cut: false,
        })
    }
}

/// Drops `Installing collected packages: …` when the `Successfully installed …` line after
/// it names every one of those packages (with its version); true when it did.
fn drop_installing_line(lines: &mut Vec<String>) -> bool {
    let norm = |n: &str| n.to_ascii_lowercase().replace('_', "-");
    let Some(i) = lines
        .iter()
        .position(|l| l.starts_with("Installing collected packages: "))
    else {
        return false;
    };
    let Some(done) = lines[i..]
        .iter()
        .find_map(|l| l.strip_prefix("Successfully installed "))
    else {
        return false;
    };
    let installed: Vec<String> = done
        .split_whitespace()
        .filter_map(|w| w.rsplit_once('-').map(|(name, _)| norm(name)))
        .collect();
    let all = lines[i]["Installing collected packages: ".len()..]
        .split(", ")
        .all(|n| installed.contains(&norm(n.trim())));
    if all {
        lines.remove(i);
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Option<StructuredOutput> {
        crate::reduce::structured::feed(Box::<Pip>::default(), text, 0)
    }

    #[test]
    fn keeps_installed_folds_noise() {
        let out = run("Collecting requests==2.32.3 (from -r requirements.txt (line 1))
  Downloading requests-2.32.3-py3-none-any.whl (64 kB)
     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 64.9/64.9 kB 81.0 MB/s eta 0:00:00
Requirement already satisfied: idna<4,>=2.5 in ./venv/lib/python3.11/site-packages (from requests) (3.20)
Requirement already satisfied: six in ./venv/lib/python3.11/site-packages (1.17.0)
Installing collected packages: requests
Successfully installed requests-2.32.3
").unwrap();
        assert_eq!(
            out.lines,
            vec![
                "Requirement already satisfied (2): idna 3.20, six 1.17.0",
                "Successfully installed requests-2.32.3",
            ]
        );
        assert!(out.facts.contains(&("installed package".into(), 1)));
        assert_eq!(out.filtered, 5);
    }

    #[test]
    fn the_installing_line_stays_unless_every_package_was_installed() {
        let done = "Installing collected packages: charset_normalizer, Idna\nSuccessfully installed Idna-3.20 charset-normalizer-3.5.3\n";
        assert_eq!(
            run(done).unwrap().lines,
            vec!["Successfully installed Idna-3.20 charset-normalizer-3.5.3"]
        );
        // a failure midway: what pip was installing is the fact
        let failed = "Installing collected packages: a, b\nERROR: Could not install packages due to an OSError: [Errno 13] Permission denied\n";
        assert_eq!(
            run(failed).unwrap().lines[0],
            "Installing collected packages: a, b"
        );
        let partial = "Installing collected packages: a, b\nSuccessfully installed a-1.0\n";
        assert_eq!(run(partial).unwrap().lines.len(), 2);
    }

    #[test]
    fn a_long_failed_build_keeps_its_end_and_its_errors() {
        let mut text = String::from(
            "Collecting numpy==1.21.0\n  error: subprocess-exited-with-error\n\n  × Building wheel for numpy (pyproject.toml) did not run successfully.\n",
        );
        for i in 0..1500 {
            text.push_str(&format!(
                "      copying numpy/lib/m{i}.py -> build/lib/numpy/lib\n"
            ));
            if i == 700 {
                text.push_str("      numpy/core/src/x.c:12:3: error: unknown type name 'npy_x'\n");
            }
        }
        text.push_str("      [end of output]\n\n  note: This error originates from a subprocess, and is likely not a problem with pip.\n  ERROR: Failed building wheel for numpy\nFailed to build numpy\nERROR: Could not build wheels for numpy, which is required to install pyproject.toml-based projects\n");
        let out = run(&text).unwrap();
        let t = out.lines.join("\n");
        assert!(t.contains("× Building wheel for numpy"), "{t}");
        assert!(t.contains("error: unknown type name 'npy_x'"), "{t}");
        assert!(
            t.ends_with("  ERROR: Failed building wheel for numpy\nFailed to build numpy\nERROR: Could not build wheels for numpy, which is required to install pyproject.toml-based projects"),
            "{t}"
        );
        // every line is shown or counted where it was
        let markers: Vec<u64> = out
            .lines
            .iter()
            .filter_map(|l| {
                l.strip_prefix("... ")?
                    .split(' ')
                    .next()?
                    .parse::<u64>()
                    .ok()
            })
            .collect();
        assert_eq!(markers.iter().sum::<u64>(), out.omitted, "{t}");
        // (`Collecting …` is dropped as noise)
        assert_eq!(
            (out.lines.len() - markers.len()) as u64 + out.omitted,
            text.lines().count() as u64 - 1,
            "{t}"
        );
    }

    #[test]
    fn errors_stay() {
        let out = run("ERROR: Could not find a version that satisfies the requirement nope==1.0 (from versions: none)\nERROR: No matching distribution found for nope==1.0\n").unwrap();
        assert_eq!(out.lines.len(), 2);
        assert!(out.lines[1].contains("No matching distribution found for nope==1.0"));
    }

    #[test]
    fn not_pip_output() {
        assert!(run("Usage: pip <command>\nsomething else\n").is_none());
    }
}
