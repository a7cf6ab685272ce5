//! Dependency trees drawn with box or ASCII characters (`cargo tree`, `gradle dependencies`,
//! `pnpm why`, …): every entry stays, the drawing goes.
//!
//! - Each entry keeps its text whole (name, version, features, `(*)` / `(c)` / `-> 1.2`
//!   marks) and is indented two spaces per level: `│   ├── ` and `|    +--- ` cost several
//!   tokens each and say nothing the indentation does not. The level is measured from the
//!   drawing's own column width (4 for cargo, 5 for Gradle, 2 for npm).
//! - Every top-level section (Gradle's `compileClasspath - …` configurations, cargo's
//!   `[dev-dependencies]`) stays. A section whose tree is exactly the tree of an earlier
//!   section is written once, as `(the same N entries as <earlier section>)`, and one that
//!   starts with an earlier section's whole tree as `(the same N entries as <earlier
//!   section>, then:)` and the rest: Gradle prints the same tree for several
//!   configurations, the test ones with the test libraries after it.
//! - Lines that are not tree lines (errors, notes, legends) stay as they are.
//! - `cargo tree`: a crate with one version in the whole tree has it at its first entry
//!   only (see [`versions_once`]); a note says so.

use super::{Structured, StructuredOutput};
use crate::reduce::text::clip_line;

/// Tree entries kept at most; the rest are counted (bounded memory).
const MAX_ENTRIES: usize = 20_000;
/// Other lines kept at most.
const MAX_OTHER: usize = 400;

enum Line {
    /// (drawing width in columns, text)
    Entry(usize, String),
    Other(String),
}

#[derive(Default)]
pub struct Tree {
    lines: Vec<Line>,
    entries: u64,
    repeats: u64,
    other: usize,
    omitted: u64,
    /// `cargo tree`: entries are `name vX.Y.Z …`, whose repeated versions are said once
    cargo: bool,
}

impl Tree {
    pub fn new(cargo: bool) -> Self {
        Tree {
            cargo,
            ..Tree::default()
        }
    }
}

/// A tree entry's package name and the byte range of its version, `None` when the entry
/// names the package but must stay whole.
pub(super) type Versioned<'a> = Option<(&'a str, Option<std::ops::Range<usize>>)>;

/// `serde v1.0.200 (*)` → the name and the byte range of ` v1.0.200`.
fn cargo_version(text: &str) -> Versioned<'_> {
    let (name, rest) = text.split_once(' ')?;
    let plain = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    if name.is_empty() || !name.chars().all(plain) {
        return None;
    }
    let v = rest.strip_prefix('v')?;
    if !v.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let end = name.len() + 2 + v.find(' ').unwrap_or(v.len());
    Some((name, Some(name.len()..end)))
}

/// Says each package's version once, where it is first listed, when the tree holds one
/// version of that package: `memchr v2.8.3` listed under five crates, or npm's `ms@2.1.3
/// deduped`, is written `memchr` / `ms deduped` after its first entry (four tokens or so
/// each). A package with two versions in the tree (`debug@2.6.9` and `debug@4.4.3`), or
/// named by an entry that `parse` will not fold (a problem mark, a link), keeps its version
/// everywhere. `parse` gives an entry's package name and the byte range of its version
/// (`None`: the entry names the package but must stay whole). Returns how many entries were
/// shortened: none when fewer than [`MIN_VERSIONS_ONCE`] would be.
pub(super) fn versions_once(texts: &mut [&mut String], parse: fn(&str) -> Versioned<'_>) -> usize {
    use std::collections::{HashMap, HashSet};
    // name -> its one version, or None once a second version (or a whole-kept entry) is seen
    let mut versions: HashMap<String, Option<String>> = HashMap::new();
    for t in texts.iter() {
        let Some((name, range)) = parse(t) else {
            continue;
        };
        let version = range.map(|r| t[r].to_string());
        versions
            .entry(name.to_string())
            .and_modify(|v| {
                if *v != version {
                    *v = None;
                }
            })
            .or_insert(version);
    }
    let mut seen: HashSet<String> = HashSet::new();
    let mut fold: Vec<(usize, std::ops::Range<usize>)> = Vec::new();
    for (i, t) in texts.iter().enumerate() {
        let Some((name, Some(range))) = parse(t) else {
            continue;
        };
        if matches!(versions.get(name), Some(Some(_))) && !seen.insert(name.to_string()) {
            fold.push((i, range));
        }
    }
    // the note that says so costs about as much as five versions
    if fold.len() < MIN_VERSIONS_ONCE {
        return 0;
    }
    for (i, range) in &fold {
        texts[*i].replace_range(range.clone(), "");
    }
    fold.len()
}

/// Fewer repeated versions than this are left as they are.
const MIN_VERSIONS_ONCE: usize = 5;

/// The line that says what [`versions_once`] did.
pub(super) fn versions_once_note(folded: usize) -> Option<String> {
    (folded > 0).then(|| {
        format!("({folded} repeated entries name the package alone: it has one version here, given at its first entry)")
    })
}

/// (columns of drawing, the text after it) when the line starts with tree drawing.
pub(super) fn tree_entry(line: &str) -> Option<(usize, &str)> {
    let mut cols = 0usize;
    let mut end = 0usize;
    let mut branch = false;
    for (i, c) in line.char_indices() {
        match c {
            '├' | '└' | '+' | '`' | '\\' => branch = true,
            // GNU tree pads with no-break spaces
            '│' | '|' | '─' | '┬' | '-' | ' ' | '\u{a0}' => {}
            _ => {
                end = i;
                break;
            }
        }
        cols += 1;
        end = i + c.len_utf8();
    }
    if !branch || end >= line.len() || cols < 3 {
        return None;
    }
    Some((cols, &line[end..]))
}

/// A leading run of drawing without a branch (`│   [dev-dependencies]`): (columns, text).
fn drawn_section(line: &str) -> Option<(usize, &str)> {
    let cols = line
        .chars()
        .take_while(|c| matches!(c, '│' | '|' | ' ' | '\u{a0}'))
        .count();
    if cols == 0 || !line.chars().any(|c| c == '│' || c == '|') {
        return None;
    }
    let bytes: usize = line.chars().take(cols).map(char::len_utf8).sum();
    let rest = &line[bytes..];
    (!rest.is_empty()).then_some((cols, rest))
}

impl Structured for Tree {
    fn push(&mut self, line: &str) {
        let line = line.trim_end();
        if let Some((cols, rest)) = tree_entry(line) {
            self.entries += 1;
            if rest.ends_with(" (*)") || rest.ends_with(" deduped") {
                self.repeats += 1;
            }
            if self.lines.len() >= MAX_ENTRIES + MAX_OTHER {
                self.omitted += 1;
                return;
            }
            self.lines
                .push(Line::Entry(cols, clip_line(rest, 1000).into_owned()));
            return;
        }
        if line.is_empty() {
            self.lines.push(Line::Other(String::new()));
            return;
        }
        if self.other >= MAX_OTHER {
            self.omitted += 1;
            return;
        }
        self.other += 1;
        // `│   [dev-dependencies]` under an entry: a section of that entry's children
        let text = match drawn_section(line) {
            Some((cols, rest)) => {
                self.lines.push(Line::Entry(cols + 4, rest.to_string()));
                return;
            }
            None => clip_line(line, 2000).into_owned(),
        };
        self.lines.push(Line::Other(text));
    }

    fn finish(self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        if self.entries < 3 {
            return None;
        }
        // the drawing's unit: the smallest step between two entry widths, and the width of a
        // first-level entry
        let mut widths: Vec<usize> = self
            .lines
            .iter()
            .filter_map(|l| match l {
                Line::Entry(w, _) => Some(*w),
                Line::Other(_) => None,
            })
            .collect();
        widths.sort_unstable();
        widths.dedup();
        let base = widths.first().copied().unwrap_or(4);
        let unit = widths
            .windows(2)
            .map(|w| w[1] - w[0])
            .min()
            .unwrap_or(4)
            .max(1);
        let depth = |w: usize| w.saturating_sub(base) / unit + 1;
        let mut lines = fold_numbered_leaves(self.lines, depth);
        let folded = if self.cargo {
            let mut texts: Vec<&mut String> = lines
                .iter_mut()
                .filter_map(|l| match l {
                    Line::Entry(_, t) => Some(t),
                    Line::Other(_) => None,
                })
                .collect();
            versions_once(&mut texts, cargo_version)
        } else {
            0
        };

        // sections: runs of entries under one header line
        let mut out: Vec<String> = Vec::new();
        let mut written = Written::default();
        let mut header: Option<String> = None;
        let mut body: Vec<(usize, String)> = Vec::new();
        for l in lines {
            match l {
                Line::Entry(d, text) => body.push((d, text)),
                Line::Other(text) => {
                    written.flush(&mut header, &mut body, &mut out);
                    if !text.is_empty() {
                        header = Some(text.clone());
                    }
                    if !(text.is_empty() && out.last().is_some_and(String::is_empty)) {
                        out.push(text);
                    }
                }
            }
        }
        written.flush(&mut header, &mut body, &mut out);
        let mut out = group_empty_sections(out);
        while out.last().is_some_and(String::is_empty) {
            out.pop();
        }
        out.extend(versions_once_note(folded));
        if self.omitted > 0 {
            out.push(format!(
                "... {} more lines not listed (tree cut at {MAX_ENTRIES} entries) ...",
                self.omitted
            ));
        }
        let mut facts = vec![("entry".to_string(), self.entries)];
        if self.repeats > 0 {
            facts.push(("repeated subtree".to_string(), self.repeats));
        }
        Some(StructuredOutput {
            name: "tree",
            lines: out,
            facts,
            omitted: self.omitted,
            filtered: 0,
            facts_line: false,
            json_cut: false,
        })
    }
}

/// Entries with their drawing width turned into a depth, and every run of four or more
/// sibling leaves numbered without a gap (`img_001.png` … `img_300.png` under one folder of
/// a `tree`) written once, as the listings do: `img_001.png … img_300.png (300, numbered
/// without a gap)`.
fn fold_numbered_leaves(lines: Vec<Line>, depth: impl Fn(usize) -> usize) -> Vec<Line> {
    let lines: Vec<Line> = lines
        .into_iter()
        .map(|l| match l {
            Line::Entry(w, t) => Line::Entry(depth(w), t),
            other => other,
        })
        .collect();
    let depth_at = |i: usize| match lines.get(i) {
        Some(Line::Entry(d, _)) => Some(*d),
        _ => None,
    };
    let mut out: Vec<Line> = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let Some(d) = depth_at(i) else {
            out.push(clone_line(&lines[i]));
            i += 1;
            continue;
        };
        // siblings at depth d with no children of their own
        let mut j = i;
        while depth_at(j) == Some(d) && depth_at(j + 1).is_none_or(|n| n <= d) {
            j += 1;
        }
        if j - i >= 4 {
            let names: Vec<String> = lines[i..j]
                .iter()
                .map(|l| match l {
                    Line::Entry(_, t) => t.clone(),
                    Line::Other(t) => t.clone(),
                })
                .collect();
            out.extend(
                super::listing::fold_numbered_set(&names)
                    .into_iter()
                    .map(|(t, _)| Line::Entry(d, t)),
            );
            i = j;
        } else {
            let end = j.max(i + 1);
            out.extend(lines[i..end].iter().map(clone_line));
            i = end;
        }
    }
    out
}

fn clone_line(l: &Line) -> Line {
    match l {
        Line::Entry(d, t) => Line::Entry(*d, t.clone()),
        Line::Other(t) => Line::Other(t.clone()),
    }
}

/// A subtree with fewer entries under its root than this is written out again.
const MIN_SUBTREE: usize = 3;

/// What a subtree folded as a repeat of an earlier section's says after its root entry.
const SUBTREE_NOTE: &str = " (and the ";

/// The sections written so far, and every subtree written out in them, so that a later
/// section can name an earlier one instead of repeating it.
#[derive(Default)]
struct Written {
    /// (header, every entry of the section)
    sections: Vec<(String, Vec<(usize, String)>)>,
    /// hash of a subtree's entries (depth below its root, text) -> (section, start, end)
    subtrees: std::collections::HashMap<u64, Vec<(usize, usize, usize)>>,
}

impl Written {
    /// Writes the section being collected and remembers it. A section whose tree is an
    /// earlier section's tree, or starts with one, names that section; a subtree of at
    /// least [`MIN_SUBTREE`] entries below its root that an earlier section wrote out the
    /// same (Gradle repeats the whole `spring-boot-starter` tree in every classpath) is its
    /// root entry and where to read the rest.
    fn flush(
        &mut self,
        header: &mut Option<String>,
        body: &mut Vec<(usize, String)>,
        out: &mut Vec<String>,
    ) {
        if body.is_empty() {
            return;
        }
        // the longest earlier tree this one repeats whole, or starts with
        let earlier = header.as_ref().and(
            // (the first of equals: the one written out)
            self.sections
                .iter()
                .rev()
                .filter(|(_, b)| b.len() >= 3 && body.starts_with(b))
                .max_by_key(|(_, b)| b.len()),
        );
        let from = match earlier {
            Some((name, b)) if b.len() == body.len() => {
                out.push(format!(
                    "  (the same {} entries as {})",
                    b.len(),
                    section_name(name)
                ));
                body.len()
            }
            Some((name, b)) => {
                out.push(format!(
                    "  (the same {} entries as {}, then:)",
                    b.len(),
                    section_name(name)
                ));
                b.len()
            }
            None => 0,
        };
        let mut shown: Vec<(usize, String)> = Vec::new();
        let mut kept: Vec<(usize, usize)> = Vec::new();
        let mut i = from;
        while i < body.len() {
            let end = subtree_end(body, i);
            if end - i > MIN_SUBTREE {
                if let Some(s) = self.find(&body[i..end]) {
                    shown.push((
                        body[i].0,
                        format!(
                            "{}{SUBTREE_NOTE}{} entries under it as in {})",
                            body[i].1,
                            end - i - 1,
                            section_name(&self.sections[s].0)
                        ),
                    ));
                    i = end;
                    continue;
                }
                kept.push((i, end));
            }
            shown.push(body[i].clone());
            i += 1;
        }
        write_entries(&shown, out);
        match header.take() {
            Some(h) => {
                let s = self.sections.len();
                for (start, end) in kept {
                    let key = subtree_hash(&body[start..end]);
                    self.subtrees.entry(key).or_default().push((s, start, end));
                }
                self.sections.push((h, std::mem::take(body)));
            }
            None => body.clear(),
        }
    }

    /// The earlier section that wrote out this same subtree.
    fn find(&self, tree: &[(usize, String)]) -> Option<usize> {
        self.subtrees
            .get(&subtree_hash(tree))?
            .iter()
            .find(|(s, start, end)| same_subtree(&self.sections[*s].1[*start..*end], tree))
            .map(|(s, _, _)| *s)
    }
}

/// The end of the subtree rooted at entry `i`: the next entry at its depth or above.
fn subtree_end(entries: &[(usize, String)], i: usize) -> usize {
    let depth = entries[i].0;
    let mut j = i + 1;
    while j < entries.len() && entries[j].0 > depth {
        j += 1;
    }
    j
}

fn subtree_hash(tree: &[(usize, String)]) -> u64 {
    use std::hash::{Hash, Hasher};
    let base = tree[0].0;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for (d, t) in tree {
        (d - base).hash(&mut h);
        t.hash(&mut h);
    }
    h.finish()
}

fn same_subtree(a: &[(usize, String)], b: &[(usize, String)]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((da, ta), (db, tb))| da - a[0].0 == db - b[0].0 && ta == tb)
}

/// Gradle's configurations with `No dependencies` (often half of them), said on one line
/// where the first of them stood: `No dependencies: annotationProcessor, api, …`. Their
/// descriptions are Gradle's own text for that kind of configuration. Fewer than three are
/// left as they are.
fn group_empty_sections(out: Vec<String>) -> Vec<String> {
    let empty = |i: usize| {
        out.get(i + 1).is_some_and(|n| n == "No dependencies")
            && !out[i].is_empty()
            && !out[i].starts_with(' ')
    };
    let names: Vec<&str> = (0..out.len())
        .filter(|&i| empty(i))
        .map(|i| section_name(&out[i]))
        .collect();
    if names.len() < 3 {
        return out;
    }
    let summary = format!(
        "No dependencies ({} configurations): {}",
        names.len(),
        names.join(", ")
    );
    let mut grouped: Vec<String> = Vec::with_capacity(out.len());
    let mut summary = Some(summary);
    let mut i = 0;
    while i < out.len() {
        if empty(i) {
            if let Some(s) = summary.take() {
                grouped.push(s);
            }
            i += 2;
            continue;
        }
        if !(out[i].is_empty() && grouped.last().is_some_and(String::is_empty)) {
            grouped.push(out[i].clone());
        }
        i += 1;
    }
    grouped
}

/// Longest line that sibling leaves are joined on.
const JOIN_WIDTH: usize = 160;

/// Tree entries (depth, text) written with two spaces of indentation per level, where
/// sibling leaves (entries with no children, one after another at one level) share a line,
/// comma-separated, up to [`JOIN_WIDTH`] characters: a line break and its indentation cost
/// two tokens where `, ` costs one. An entry whose own text holds `, ` keeps a line of its
/// own, so every comma-separated part of a line is one entry, and so does a section label
/// (cargo's `[build-dependencies]`: the entries after it are in that section).
pub(super) fn write_entries(entries: &[(usize, String)], out: &mut Vec<String>) {
    let joinable = |k: usize| {
        let (d, t) = &entries[k];
        let label = t.starts_with('[') && t.ends_with(']');
        !label
            && !t.contains(", ")
            && !t.contains(SUBTREE_NOTE)
            && entries.get(k + 1).is_none_or(|(next, _)| next <= d)
    };
    let mut i = 0;
    while i < entries.len() {
        let (d, t) = &entries[i];
        let mut line = format!("{}{t}", "  ".repeat(*d));
        i += 1;
        if joinable(i - 1) {
            while i < entries.len()
                && entries[i].0 == *d
                && joinable(i)
                && line.len() + 2 + entries[i].1.len() <= JOIN_WIDTH
            {
                line.push_str(", ");
                line.push_str(&entries[i].1);
                i += 1;
            }
        }
        out.push(line);
    }
}

/// `compileClasspath - Compile classpath for source set 'main'.` → `compileClasspath`.
fn section_name(header: &str) -> &str {
    header.split(" - ").next().unwrap_or(header).trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Option<StructuredOutput> {
        crate::reduce::structured::feed(Box::new(Tree::default()), text, 0)
    }

    #[test]
    fn cargo_drawing_becomes_indentation() {
        let text = "app v0.1.0 (/src/app)
├── anyhow v1.0.100
├── clap v4.5.0
│   ├── clap_builder v4.5.0
│   │   └── anstyle v1.0.0
│   └── clap_derive v4.5.0 (proc-macro)
└── serde v1.0.200 (*)
[dev-dependencies]
└── tempfile v3.10.0
";
        let out = run(text).unwrap();
        assert_eq!(
            out.lines.join("\n"),
            "app v0.1.0 (/src/app)
  anyhow v1.0.100
  clap v4.5.0
    clap_builder v4.5.0
      anstyle v1.0.0
    clap_derive v4.5.0 (proc-macro)
  serde v1.0.200 (*)
[dev-dependencies]
  tempfile v3.10.0"
        );
        assert_eq!(out.facts[0], ("entry".to_string(), 7));
    }

    #[test]
    fn gradle_configurations_all_stay_and_repeats_are_said_once() {
        let tree = "+--- org.springframework.boot:spring-boot-starter-web -> 3.1.0
|    +--- org.springframework.boot:spring-boot-starter:3.1.0
|    |    \\--- org.yaml:snakeyaml:1.33
|    \\--- org.springframework:spring-webmvc:6.0.9 (*)
\\--- com.google.guava:guava:32.0.1-jre
";
        let text = format!(
            "compileClasspath - Compile classpath for source set 'main'.\n{tree}\nruntimeClasspath - Runtime classpath of source set 'main'.\n{tree}\ntestRuntimeClasspath - Runtime classpath of source set 'test'.\n{tree}\\--- junit:junit:4.13.2\n\n(*) - Indicates repeated occurrences of a transitive dependency subtree.\n"
        );
        let out = run(&text).unwrap();
        let t = out.lines.join("\n");
        assert!(t.contains("compileClasspath - Compile classpath"), "{t}");
        assert!(
            t.contains(
                "  org.springframework.boot:spring-boot-starter-web -> 3.1.0\n    org.springframework.boot:spring-boot-starter:3.1.0\n      org.yaml:snakeyaml:1.33"
            ),
            "{t}"
        );
        assert!(
            t.contains("runtimeClasspath - Runtime classpath of source set 'main'.\n  (the same 5 entries as compileClasspath)"),
            "{t}"
        );
        // a tree that differs is written out
        assert!(t.contains("  junit:junit:4.13.2"), "{t}");
        assert!(t.contains("(*) - Indicates repeated"), "{t}");
        assert!(!t.contains("+---") && !t.contains("|    "), "{t}");
    }

    #[test]
    fn a_subtree_an_earlier_configuration_wrote_out_is_named_not_repeated() {
        let starter = "+--- org.example:starter -> 3.5.3
|    +--- org.example:core:3.5.3
|    |    \\--- org.example:jcl:3.5.3
|    +--- org.example:logging:3.5.3
|    \\--- org.yaml:snakeyaml:2.4
";
        let text = format!(
            "compileClasspath - Compile classpath for 'main'.\n{starter}\\--- com.google.code.gson:gson -> 2.13.1\n\nruntimeClasspath - Runtime classpath of 'main'.\n+--- org.postgresql:postgresql -> 42.7.7\n{starter}\\--- org.example:small -> 1.0\n     \\--- org.example:leaf:1.0\n\ntestRuntimeClasspath - Runtime classpath of 'test'.\n+--- org.example:small -> 1.0\n|    \\--- org.example:leaf:1.0\n\\--- org.example:starter -> 3.5.3\n     +--- org.example:core:3.5.3\n     |    \\--- org.example:jcl:3.5.3\n     \\--- org.example:logging:3.5.3\n"
        );
        let t = run(&text).unwrap().lines.join("\n");
        // written out once, then named with the count of what is under it
        assert!(
            t.contains("compileClasspath - Compile classpath for 'main'.\n  org.example:starter -> 3.5.3\n    org.example:core:3.5.3\n      org.example:jcl:3.5.3\n    org.example:logging:3.5.3, org.yaml:snakeyaml:2.4\n"),
            "{t}"
        );
        assert!(
            t.contains("runtimeClasspath - Runtime classpath of 'main'.\n  org.postgresql:postgresql -> 42.7.7\n  org.example:starter -> 3.5.3 (and the 4 entries under it as in compileClasspath)\n"),
            "{t}"
        );
        // one entry under it: cheaper to write than to name
        assert!(
            t.contains("  org.example:small -> 1.0\n    org.example:leaf:1.0"),
            "{t}"
        );
        // a subtree that differs (no snakeyaml) is written out whole
        assert!(
            t.ends_with("  org.example:starter -> 3.5.3\n    org.example:core:3.5.3\n      org.example:jcl:3.5.3\n    org.example:logging:3.5.3"),
            "{t}"
        );
        assert_eq!(t.matches("(and the").count(), 1, "{t}");
    }

    #[test]
    fn gradle_configurations_with_no_dependencies_are_named_on_one_line() {
        let mut text = String::new();
        for (name, deps) in [
            (
                "annotationProcessor - Annotation processors for source set 'main'.",
                false,
            ),
            ("api - API dependencies for the 'main' feature. (n)", false),
            ("compileClasspath - Compile classpath for 'main'.", true),
            ("apiElements-published (n)", false),
            ("testApi - API dependencies for 'test'. (n)", false),
        ] {
            text.push_str(name);
            text.push('\n');
            if deps {
                text.push_str("+--- a:b:1.0\n+--- a:c:1.0\n\\--- a:d:1.0\n");
            } else {
                text.push_str("No dependencies\n");
            }
            text.push('\n');
        }
        text.push_str(
            "A web-based, searchable dependency report is available by adding the --scan option.\n",
        );
        let t = run(&text).unwrap().lines.join("\n");
        assert_eq!(
            t,
            "No dependencies (4 configurations): annotationProcessor, api, apiElements-published (n), testApi

compileClasspath - Compile classpath for 'main'.
  a:b:1.0, a:c:1.0, a:d:1.0

A web-based, searchable dependency report is available by adding the --scan option."
        );
        // two are left as they are
        let two = text
            .replace(
                "testApi - API dependencies for 'test'. (n)\nNo dependencies\n\n",
                "",
            )
            .replace("apiElements-published (n)\nNo dependencies\n\n", "");
        let t = run(&two).unwrap().lines.join("\n");
        assert!(t.starts_with("annotationProcessor - Annotation processors for source set 'main'.\nNo dependencies\n\napi - "), "{t}");
    }

    #[test]
    fn a_directory_tree_folds_numbered_leaves_and_keeps_every_other_entry() {
        let mut text = String::from(".\n├── README.md\n├── assets\n");
        for i in 1..=40 {
            let mark = if i == 40 { "└──" } else { "├──" };
            text.push_str(&format!("│   {mark} img_{i:03}.png\n"));
        }
        text.push_str("├── docs\n│   ├── a.md\n│   └── b.md\n└── src\n    ├── page1.rs\n    ├── page2.rs\n    └── page3.rs\n\n4 directories, 46 files\n");
        let out = run(&text).unwrap();
        assert_eq!(
            out.lines.join("\n"),
            ".
  README.md
  assets
    img_001.png … img_040.png (40, numbered without a gap)
  docs
    a.md, b.md
  src
    page1.rs, page2.rs, page3.rs

4 directories, 46 files"
        );
    }

    #[test]
    fn sibling_leaves_share_a_line_up_to_a_width_and_an_entry_with_a_comma_or_a_label_keeps_its_own(
    ) {
        let entries: Vec<(usize, String)> = [
            (1, "a v1"),
            (1, "b v1"),
            (2, "c v1"),
            (2, "d v1 (features: x, y)"),
            (2, "e v1"),
            (2, "[build-dependencies]"),
            (2, "g v1"),
            (2, "h v1"),
            (1, "f v1"),
        ]
        .iter()
        .map(|(d, t)| (*d, t.to_string()))
        .collect();
        let mut out = Vec::new();
        write_entries(&entries, &mut out);
        // `a` is a leaf but `b` has children; `d` holds `, `; `f` is alone at its level
        assert_eq!(
            out,
            [
                "  a v1",
                "  b v1",
                "    c v1",
                "    d v1 (features: x, y)",
                "    e v1",
                "    [build-dependencies]",
                "    g v1, h v1",
                "  f v1"
            ]
        );

        let many: Vec<(usize, String)> = (0..100).map(|i| (1, format!("leaf{i:03}"))).collect();
        let mut out = Vec::new();
        write_entries(&many, &mut out);
        assert!(
            out.len() > 1 && out.iter().all(|l| l.len() <= JOIN_WIDTH),
            "{out:?}"
        );
        let parts: Vec<&str> = out.iter().flat_map(|l| l.trim().split(", ")).collect();
        let want: Vec<String> = (0..100).map(|i| format!("leaf{i:03}")).collect();
        assert_eq!(parts, want);
    }

    #[test]
    fn cargo_says_a_crate_version_once_when_the_tree_holds_one_version_of_it() {
        let mut text = String::from("app v0.1.0 (/src/app)\n");
        for c in ["a", "b", "c", "d", "e", "f"] {
            text.push_str(&format!(
                "├── {c} v1.0.0\n│   ├── memchr v2.8.3\n│   ├── syn v{} (*)\n│   └── serde_derive v1.0.200 (proc-macro) (*)\n",
                if c == "a" { "1.0.109" } else { "2.0.0" }
            ));
        }
        text.push_str("[build-dependencies]\n└── cc v1.2.0\n");
        let cargo = |t: &str| {
            crate::reduce::structured::feed(Box::new(Tree::new(true)), t, 0)
                .unwrap()
                .lines
                .join("\n")
        };
        let t = cargo(&text);
        assert!(t.starts_with("app v0.1.0 (/src/app)\n  a v1.0.0\n    memchr v2.8.3, syn v1.0.109 (*), serde_derive v1.0.200 (proc-macro) (*)\n  b v1.0.0\n    memchr, syn v2.0.0 (*), serde_derive (proc-macro) (*)\n"), "{t}");
        assert!(t.ends_with("[build-dependencies]\n  cc v1.2.0\n(10 repeated entries name the package alone: it has one version here, given at its first entry)"), "{t}");
        // a file tree is never read as crates
        let plain = run(&text).unwrap().lines.join("\n");
        assert!(
            plain.contains("  b v1.0.0\n    memchr v2.8.3, syn v2.0.0 (*)"),
            "{plain}"
        );
        // under five, the note would cost more than it saves: nothing is folded
        let few =
            cargo("app v0.1.0\n├── a v1.0.0\n│   └── m v2.0.0\n└── b v1.0.0\n    └── m v2.0.0\n");
        assert!(few.ends_with("  b v1.0.0\n    m v2.0.0"), "{few}");
    }

    #[test]
    fn not_a_tree() {
        assert!(run("error: package `nope` not found\n").is_none());
    }
}
