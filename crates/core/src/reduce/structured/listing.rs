//! Listings: `ls` (plain and `-l`), `find`, `fd`, `git ls-files`, `rg --files`, and the
//! entry lists of `tar`, `zip`, `unzip`, `rsync -v` and `npm pack`/`npm publish` (each
//! file with its size).
//!
//! Every entry's name is kept. Entries are grouped by directory, in the order the
//! directories first appear: `src/api/ (5): cart.ts orders.ts …` (a directory with one
//! entry keeps its full path). In `ls -l` style lines the type, size, date and name stay;
//! the link count goes, and owner, group and permissions that are the same for every
//! entry (of a type) are said once in a note, and so is a modification time most entries
//! share, or else a day most of them share (those entries show the time alone), or else,
//! when entries share few dates (a system directory filled by a few package installs),
//! each date once over its entries (`Sep 20 2022 (105): cat 44016, chmod 64496, …`). Tool
//! messages (`find: …: Permission denied`, `tar: …: Cannot stat`, summaries) are kept as
//! they are. Progress lines go (counted); one `total N` of `ls -l` joins the header
//! (`33 items, 552 total blocks`), several (`ls -lR`) go, counted. A very large listing is
//! cut with an explicit count per directory, or, past 40 such directories, per the deepest
//! folders that hold them in 40 lines (`vendor/alpha/** (60 entries in 30 directories not
//! shown)`).

use std::collections::HashMap;

use super::{Structured, StructuredOutput};
use crate::normalize::{basename, Normalized};
use crate::reduce::text::{clip_line, numbered};

/// What produced the listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Paths,
    Ls,
    Tar,
    Zip,
    Unzip,
    Rsync,
    /// `git add -v`, `git rm`, `git commit` (its `create mode 100644 path` lines).
    Git,
    /// `npm pack`, `npm publish`: the tarball's contents, `npm notice 1.4kB lib/a.js`.
    NpmPack,
}

/// Entries held in memory; more are only counted (per directory when it is known).
const MAX_STORED: usize = 50_000;
const MAX_GROUPS: usize = 10_000;
const MAX_OTHER: usize = 400;
/// Rendered characters after which the remaining directories are only counted.
const BUDGET_CHARS: usize = 40_000;
/// The same for a package's tarball (`npm pack`): what is read there is which folders
/// went in, and each file's name matters less than in a search for files.
const PACK_BUDGET_CHARS: usize = 12_000;
/// Wrap grouped name lists at about this width.
const WRAP: usize = 160;
const MAX_NAME_CHARS: usize = 300;

/// npm's size of a file in a tarball: `157B`, `1.4kB`, `2.1MB`.
fn is_npm_size(word: &str) -> bool {
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = &word[digits.len()..];
    !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && matches!(unit, "B" | "kB" | "MB" | "GB")
}

/// The columns of one `ls -l`-style line.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Long {
    mode: String,
    owner: String,
    size: String,
    date: String,
}

#[derive(Debug, Clone)]
struct Item {
    name: String,
    note: Option<String>,
    long: Option<Long>,
}

/// Fewer symlinks whose size is their target's length than this keep their sizes.
const MIN_LINK_SIZES: usize = 8;

impl Item {
    /// A symbolic link whose size ls gives is its target's length, said by the name
    /// already (`28 … FileCheck-14 -> ../lib/llvm-14/bin/FileCheck`).
    fn link_size_is_target(&self) -> bool {
        self.long.as_ref().is_some_and(|l| {
            l.mode.starts_with('l')
                && self
                    .name
                    .split_once(" -> ")
                    .is_some_and(|(_, target)| target.len().to_string() == l.size)
        })
    }
}

#[derive(Debug, Default)]
struct Group {
    /// The action of zip/unzip/rsync for these entries (`adding: `), or empty.
    prefix: String,
    dir: String,
    items: Vec<Item>,
    /// Entries in this directory, stored or not.
    count: u64,
}

pub struct Listing {
    mode: Mode,
    /// The command prints something else than paths (`find -exec`, `-printf`).
    not_paths: bool,
    /// Bare entries holding a space: many of them means this is prose, not a listing.
    spacey: u64,
    fact: &'static str,
    tools: Vec<String>,
    groups: Vec<Group>,
    index: HashMap<String, usize>,
    before: Vec<String>,
    after: Vec<String>,
    other_dropped: u64,
    entries: u64,
    stored: usize,
    /// Entries that fit in no group (too many directories).
    ungrouped: u64,
    noise: u64,
    /// The blocks of `ls -l`'s `total N` lines (a fact of the header when there is one).
    totals: Vec<u64>,
    cur_dir: String,
    prev_blank: bool,
    last_was_message: bool,
    /// The current entry's action (`adding`, `inflating`, …).
    verb: Option<&'static str>,
    lines: u64,
    /// Each name is followed by `:count` (`grep -c`).
    counted: bool,
    /// `npm pack`: between `Tarball Contents` and `Tarball Details`.
    in_contents: bool,
}

impl Listing {
    pub fn new(norm: &Normalized) -> Self {
        let a0 = norm.argv.first().map_or("", |a| basename(a)).to_string();
        let mode = match a0.as_str() {
            "ls" | "exa" | "eza" | "gls" | "dir" | "vdir" => Mode::Ls,
            "tar" | "gtar" | "bsdtar" => Mode::Tar,
            "zip" => Mode::Zip,
            "unzip" => Mode::Unzip,
            "rsync" => Mode::Rsync,
            // `git add`/`rm`/`stage`/`commit` name the files they change; `git ls-files` and
            // the like print bare paths
            "git"
                if matches!(
                    crate::normalize::git_subcommand(&norm.argv),
                    Some("add" | "rm" | "stage" | "commit")
                ) =>
            {
                Mode::Git
            }
            "npm"
                if norm
                    .argv
                    .iter()
                    .skip(1)
                    .any(|a| a == "pack" || a == "publish") =>
            {
                Mode::NpmPack
            }
            _ => Mode::Paths,
        };
        let fact = match mode {
            Mode::Ls => "item",
            Mode::Tar | Mode::Zip | Mode::Unzip => "entry",
            Mode::Rsync => "entry",
            Mode::Git | Mode::NpmPack => "file",
            Mode::Paths if a0 == "find" || a0 == "gfind" => "match",
            Mode::Paths => "path",
        };
        let mut tools: Vec<String> = [
            "find", "fd", "fdfind", "ls", "tar", "zip", "unzip", "rsync", "rg", "git", "grep",
        ]
        .iter()
        .map(|s| (*s).to_string())
        .collect();
        if !a0.is_empty() && !tools.contains(&a0) {
            tools.push(a0.clone());
        }
        // `find -exec grep …`, `find -printf …`, `fd -x …`: the output is not a path list
        let not_paths = mode == Mode::Paths
            && norm.argv.iter().skip(1).any(|a| {
                matches!(
                    a.as_str(),
                    "-exec"
                        | "-execdir"
                        | "-ok"
                        | "-okdir"
                        | "-printf"
                        | "-fprintf"
                        | "-print0"
                        | "-x"
                        | "--exec"
                        | "-X"
                        | "--exec-batch"
                        | "-0"
                        | "--print0"
                        | "-z"
                )
            });
        Listing {
            mode,
            not_paths,
            spacey: 0,
            fact,
            tools,
            groups: Vec::new(),
            index: HashMap::new(),
            before: Vec::new(),
            after: Vec::new(),
            other_dropped: 0,
            entries: 0,
            stored: 0,
            ungrouped: 0,
            noise: 0,
            totals: Vec::new(),
            cur_dir: String::new(),
            prev_blank: true,
            last_was_message: false,
            verb: None,
            lines: 0,
            counted: false,
            in_contents: false,
        }
    }

    /// A listing of `grep -c`'s `name:count` lines.
    pub fn counted(norm: &Normalized) -> Self {
        Self {
            counted: true,
            ..Self::new(norm)
        }
    }

    /// A message from the tool rather than an entry.
    fn is_message(&self, t: &str) -> bool {
        let lower = t.to_ascii_lowercase();
        if lower.starts_with("[fd error]")
            || lower.starts_with("fatal:")
            || lower.starts_with("error:")
            || lower.starts_with("warning:")
            || lower.starts_with("usage:")
            || lower.starts_with("try '")
            || lower.starts_with("zip warning:")
            || lower.starts_with("zip error:")
            || lower.starts_with("zip i/o error:")
            || lower.starts_with("rsync error:")
            || lower.starts_with("rsync warning:")
            || lower.starts_with("hint:")
            || t.ends_with(')') && t.contains("(os error ")
            || [
                ": No such file or directory",
                ": Permission denied",
                ": Not a directory",
            ]
            .iter()
            .any(|m| t.contains(m))
            || (t.ends_with('?') && t.contains(' '))
        {
            return true;
        }
        self.tools.iter().any(|tool| {
            t.strip_prefix(tool.as_str())
                .is_some_and(|r| r.starts_with(": ") || r.starts_with(":\t"))
        })
    }

    fn other(&mut self, line: &str) {
        self.last_was_message = true;
        let target = if self.entries == 0 {
            &mut self.before
        } else {
            &mut self.after
        };
        if target.len() < MAX_OTHER {
            target.push(clip_line(line, 2000).into_owned());
        } else {
            self.other_dropped += 1;
        }
    }

    /// Add one entry given by its path (a name inside the current `ls DIR:` section).
    fn entry(&mut self, path: &str, note: Option<String>, long: Option<Long>) {
        self.entries += 1;
        if long.is_none() && note.is_none() && path.contains(' ') {
            self.spacey += 1;
        }
        if self.mode == Mode::Ls && !self.cur_dir.is_empty() {
            return self.add(self.cur_dir.clone(), path.to_string(), note, long);
        }
        let (dir, name) = split_path(path);
        self.add(dir.to_string(), name.to_string(), note, long);
    }

    fn add(&mut self, dir: String, name: String, note: Option<String>, long: Option<Long>) {
        let prefix = self
            .verb
            .take()
            .map(|v| format!("{v}: "))
            .unwrap_or_default();
        let key = format!("{prefix}\u{0}{dir}");
        let gi = match self.index.get(&key) {
            Some(&i) => i,
            None => {
                if self.groups.len() >= MAX_GROUPS {
                    self.ungrouped += 1;
                    return;
                }
                self.groups.push(Group {
                    prefix,
                    dir,
                    ..Group::default()
                });
                self.index.insert(key, self.groups.len() - 1);
                self.groups.len() - 1
            }
        };
        let g = &mut self.groups[gi];
        g.count += 1;
        if self.stored < MAX_STORED {
            self.stored += 1;
            g.items.push(Item {
                name: clip_line(&name, MAX_NAME_CHARS).into_owned(),
                note,
                long,
            });
        }
    }

    fn push_ls(&mut self, line: &str) {
        let t = line.trim_end();
        if t.is_empty() {
            return;
        }
        if t.starts_with("total ")
            && t[6..]
                .trim()
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == ',')
        {
            match t[6..].trim().parse::<u64>() {
                Ok(n) => self.totals.push(n),
                Err(_) => self.noise += 1,
            }
            return;
        }
        if self.is_message(t) {
            self.other(t);
            return;
        }
        if self.prev_blank && t.ends_with(':') && t.len() > 1 && parse_long(t).is_none() {
            let mut d = t[..t.len() - 1].to_string();
            if !d.ends_with('/') {
                d.push('/');
            }
            self.cur_dir = d;
            // an empty directory still shows up
            let key = format!("\u{0}{}", self.cur_dir);
            if !self.index.contains_key(&key) && self.groups.len() < MAX_GROUPS {
                self.groups.push(Group {
                    dir: self.cur_dir.clone(),
                    ..Group::default()
                });
                self.index.insert(key, self.groups.len() - 1);
            }
            return;
        }
        if let Some((long, name)) = parse_long(t) {
            return self.entry(&name, None, Some(long));
        }
        self.entry(t, None, None);
    }

    fn push_line(&mut self, line: &str) {
        let t = line.trim_end();
        let lead = line.trim_start();
        match self.mode {
            Mode::Ls => self.push_ls(line),
            Mode::Paths | Mode::Tar => {
                if t.is_empty() {
                    return;
                }
                if self.is_message(t) {
                    return self.other(t);
                }
                if let Some((long, name)) = parse_long(t) {
                    return self.entry(&name, None, Some(long));
                }
                self.entry(t, None, None);
            }
            Mode::Zip => {
                for verb in ["adding", "updating", "freshening", "deleting"] {
                    if let Some(rest) = lead.strip_prefix(verb).and_then(|r| r.strip_prefix(": ")) {
                        let path = strip_zip_method(rest.trim_end());
                        self.verb = Some(verb);
                        return self.entry(path, None, None);
                    }
                }
                if t.is_empty() {
                    return;
                }
                self.other(t);
            }
            Mode::Unzip => {
                for verb in [
                    "inflating",
                    "extracting",
                    "creating",
                    "linking",
                    "exploding",
                    "unshrinking",
                    "unreducing",
                ] {
                    if let Some(rest) = lead.strip_prefix(verb).and_then(|r| r.strip_prefix(": ")) {
                        // a stored entry is "extracting", a compressed one "inflating"
                        self.verb = Some(if verb == "extracting" {
                            "inflating"
                        } else {
                            verb
                        });
                        return self.entry(rest.trim(), None, None);
                    }
                }
                if t.is_empty() {
                    return;
                }
                // `unzip -l` table
                let cols: Vec<&str> = lead.split_whitespace().collect();
                if cols.len() >= 2 && cols.iter().all(|c| c.chars().all(|x| x == '-')) {
                    self.noise += 1;
                    return;
                }
                if cols.len() >= 4 && cols[0] == "Length" && cols[1] == "Date" {
                    self.noise += 1;
                    return;
                }
                if cols.len() >= 4
                    && cols[0].chars().all(|c| c.is_ascii_digit())
                    && is_date(cols[1])
                    && cols[2].contains(':')
                {
                    let name = after_fields(lead, 3);
                    let long = Long {
                        mode: if name.ends_with('/') { "d" } else { "-" }.into(),
                        owner: String::new(),
                        size: cols[0].to_string(),
                        date: format!("{} {}", cols[1], cols[2]),
                    };
                    return self.entry(name, None, Some(long));
                }
                self.other(t);
            }
            Mode::Git => {
                if t.is_empty() {
                    return;
                }
                // `git add -v`: `add 'path'`; `git rm`: `rm 'path'`
                for (word, verb) in [("add '", "add"), ("remove '", "remove"), ("rm '", "rm")] {
                    if let Some(path) = lead.strip_prefix(word).and_then(|r| r.strip_suffix('\'')) {
                        self.verb = Some(verb);
                        return self.entry(path, None, None);
                    }
                }
                // `git commit`: ` create mode 100644 path`, ` delete mode 100755 path`
                for (word, created) in [("create mode ", true), ("delete mode ", false)] {
                    if let Some((mode, path)) =
                        lead.strip_prefix(word).and_then(|r| r.split_once(' '))
                    {
                        if let Some(verb) = git_mode_verb(created, mode) {
                            self.verb = Some(verb);
                            return self.entry(path, None, None);
                        }
                    }
                }
                self.other(t);
            }
            Mode::NpmPack => {
                // npm's notices: the header, the contents (a size and a path each), the
                // tarball's details; a bare `npm notice` is a blank line
                let Some(rest) = t.strip_prefix("npm notice") else {
                    if !t.is_empty() {
                        self.other(t);
                    }
                    return;
                };
                let rest = rest.trim_start();
                if rest.is_empty() {
                    self.noise += 1;
                    return;
                }
                match rest.split_once(' ') {
                    Some((size, path)) if self.in_contents && is_npm_size(size) => {
                        self.entry(path.trim(), Some(size.to_string()), None)
                    }
                    _ => {
                        self.in_contents = match rest {
                            "Tarball Contents" => true,
                            "Tarball Details" => false,
                            _ => self.in_contents,
                        };
                        self.other(rest)
                    }
                }
            }
            Mode::Rsync => {
                if t.is_empty() {
                    return;
                }
                if is_rsync_progress(lead) {
                    self.noise += 1;
                    return;
                }
                if self.is_message(t)
                    || t.starts_with("sending incremental file list")
                    || t.starts_with("receiving incremental file list")
                    || t.starts_with("sent ")
                    || t.starts_with("total size is ")
                    || t.starts_with("created directory ")
                    || t.starts_with("building file list")
                    || t.starts_with("receiving file list")
                    || t.starts_with("Number of ")
                    || t.starts_with("Total ")
                    || t.starts_with("Literal data")
                    || t.starts_with("Matched data")
                    || t.starts_with("File list ")
                    || t.starts_with("skipping ")
                    || t.starts_with("IO error")
                {
                    return self.other(t);
                }
                if let Some(rest) = t.strip_prefix("deleting ") {
                    self.verb = Some("deleting");
                    return self.entry(rest, None, None);
                }
                // itemized changes: `>f+++++++++ path`
                if let Some((code, rest)) = t.split_once(' ') {
                    let b = code.as_bytes();
                    if (code.len() == 11 || code.len() == 12)
                        && b"<>ch.*".contains(&b[0])
                        && b"fdLDS".contains(&b[1])
                    {
                        return self.entry(rest, Some(code.to_string()), None);
                    }
                }
                self.entry(t, None, None);
            }
        }
    }

    fn render(mut self) -> (Vec<String>, u64) {
        let mut out: Vec<String> = Vec::new();
        let mut omitted = 0u64;
        out.append(&mut self.before);
        self.split_compound_extensions();

        // long-format notes: owner and per-type modes said once
        let longs: Vec<&Long> = self
            .groups
            .iter()
            .flat_map(|g| g.items.iter())
            .filter_map(|i| i.long.as_ref())
            .collect();
        let mut common_owner: Option<String> = None;
        let mut common_modes: Vec<(char, String)> = Vec::new();
        let mut common_date: Option<String> = None;
        let mut common_day: Option<String> = None;
        let mut drop_link_sizes = false;
        let mut by_date = false;
        if longs.len() >= 2 {
            // the owner most entries share is said once; the others show theirs
            let owners = super::tally(longs.iter().map(|l| l.owner.as_str()));
            if let Some((o, n)) = owners.iter().max_by_key(|(_, n)| *n) {
                if !o.is_empty() && *n * 10 >= longs.len() * 6 {
                    common_owner = Some((*o).to_string());
                }
            }
            let counts = super::tally(longs.iter().map(|l| l.mode.as_str()));
            for ty in ['-', 'd'] {
                if let Some(best) = counts
                    .iter()
                    .filter(|(m, _)| m.chars().next().unwrap_or('-') == ty)
                    .max_by_key(|(_, n)| *n)
                {
                    if best.1 >= 2 {
                        common_modes.push((ty, best.0.to_string()));
                    }
                }
            }
            // a modification time most entries share (a fresh clone or checkout)
            let dates = super::tally(longs.iter().map(|l| l.date.as_str()));
            if let Some((d, n)) = dates.iter().max_by_key(|(_, n)| *n) {
                if *n >= 3 && *n * 10 >= longs.len() * 6 {
                    common_date = Some((*d).to_string());
                }
            }
            // else a day most entries share, at different times (`Nov 26 11:00`, `Nov 26
            // 14:38`: ls shows a time for this half-year): those show the time alone
            if common_date.is_none() {
                let days = super::tally(
                    longs
                        .iter()
                        .filter_map(|l| day_and_time(&l.date).map(|(day, _)| day)),
                );
                if let Some((d, n)) = days.iter().max_by_key(|(_, n)| *n) {
                    if *n >= 3 && *n * 10 >= longs.len() * 6 {
                        common_day = Some((*d).to_string());
                    }
                }
            }
            let mut note = Vec::new();
            // the note saying so costs about as much as seven sizes
            drop_link_sizes = self
                .groups
                .iter()
                .flat_map(|g| &g.items)
                .filter(|it| it.link_size_is_target())
                .count()
                >= MIN_LINK_SIZES;
            if let Some(o) = &common_owner {
                match o.split_once(' ') {
                    Some((u, g)) if !g.contains(' ') => note.push(format!("owner {u}, group {g}")),
                    _ => note.push(format!("owner {o}")),
                }
            }
            let modes: Vec<String> = common_modes
                .iter()
                .filter(|(_, m)| m.len() > 1)
                .map(|(t, m)| format!("{m} {}", if *t == 'd' { "dirs" } else { "files" }))
                .collect();
            if !modes.is_empty() {
                note.push(format!("mode {}", modes.join(", ")));
            }
            if let Some(d) = &common_date {
                note.push(format!("modified {d}"));
            }
            // else, where entries share few dates (a system directory: its files come
            // from a few package installs), each date is said once over its entries
            if common_date.is_none() && common_day.is_none() && longs.len() >= BY_DATE_MIN {
                let mut keys: Vec<&str> = longs.iter().map(|l| date_key(&l.date)).collect();
                keys.sort_unstable();
                keys.dedup();
                by_date = keys.len() * BY_DATE_RATIO <= longs.len();
            }
            let day = common_day
                .as_ref()
                .map(|d| format!("; a time alone is on {d}"))
                .unwrap_or_default();
            if !note.is_empty() {
                // ls -l has link counts; tar -tv and unzip -l have none
                let mut links = if matches!(self.mode, Mode::Ls | Mode::Paths) {
                    "; link counts dropped".to_string()
                } else {
                    String::new()
                };
                if drop_link_sizes {
                    links.push_str("; a symlink's size (its target's length) dropped");
                }
                out.push(format!(
                    "[{} unless shown{day}{links}{}]",
                    note.join("; "),
                    by_date_note(by_date)
                ));
            } else if !day.is_empty() {
                out.push(format!("[{}]", &day[2..]));
            } else if by_date {
                out.push(format!("[{}]", &by_date_note(true)[2..]));
            }
        }

        let dirs: std::collections::HashSet<String> =
            self.groups.iter().map(|g| g.dir.clone()).collect();
        let single = self.groups.len() == 1;
        let budget = if self.mode == Mode::NpmPack {
            PACK_BUDGET_CHARS
        } else {
            BUDGET_CHARS
        };
        let mut used = 0usize;
        // the directories past the budget: only counted
        let mut unshown: Vec<&Group> = Vec::new();
        for g in &self.groups {
            let unstored = g.count - g.items.len() as u64;
            if used > budget {
                omitted += g.count;
                unshown.push(g);
                continue;
            }
            let names: Vec<String> = g
                .items
                .iter()
                .map(|it| {
                    let mut n = quote(&it.name);
                    let is_dir = it.long.as_ref().is_some_and(|l| l.mode.starts_with('d'))
                        || dirs.contains(&format!("{}{}/", g.dir, it.name));
                    if is_dir && !n.ends_with('/') {
                        n.push('/');
                    }
                    n
                })
                .collect();
            let detailed = g.items.iter().any(|i| i.long.is_some() || i.note.is_some());
            if detailed {
                // one group, or a directory with a single entry: no header, full paths
                let inline = (single && (self.mode != Mode::Ls || g.dir.is_empty()))
                    || (g.count == 1 && g.items.len() == 1);
                let indent = if inline { "" } else { "  " };
                if !indent.is_empty() {
                    out.push(format!("{}{} ({}):", g.prefix, label(&g.dir), g.count));
                }
                let mut shown = 0u64;
                // (line without the name, name) of each entry, then numbered runs folded
                let mut rows: Vec<(String, String)> = Vec::new();
                // by date: (date, (name, what follows it)) of each entry
                let mut dated: Vec<(&str, (String, String))> = Vec::new();
                for (it, name) in g.items.iter().zip(&names) {
                    let mut parts: Vec<String> = Vec::new();
                    let mut date: Option<(&str, Option<&str>)> = None;
                    if let Some(l) = &it.long {
                        let ty = l.mode.chars().next().unwrap_or('-');
                        let common = common_modes.iter().find(|(t, _)| *t == ty).map(|(_, m)| m);
                        if ty != 'l' && common != Some(&l.mode) && l.mode.len() > 1 {
                            parts.push(l.mode.clone());
                        }
                        if common_owner.as_ref() != Some(&l.owner) && !l.owner.is_empty() {
                            parts.push(l.owner.clone());
                        }
                        if ty != 'd' && !(drop_link_sizes && it.link_size_is_target()) {
                            parts.push(l.size.clone());
                        }
                        match day_and_time(&l.date) {
                            _ if by_date => {
                                let key = date_key(&l.date);
                                date =
                                    Some((key, (key != l.date).then(|| &l.date[key.len() + 1..])));
                            }
                            _ if common_date.as_ref() == Some(&l.date) => {}
                            Some((day, time)) if common_day.as_deref() == Some(day) => {
                                parts.push(time.to_string())
                            }
                            _ => parts.push(l.date.clone()),
                        }
                    }
                    if let Some(n) = &it.note {
                        parts.push(n.clone());
                    }
                    let display = if indent.is_empty() && !single_root(&g.dir) {
                        format!("{}{}{name}", g.prefix, g.dir)
                    } else if indent.is_empty() {
                        format!("{}{name}", g.prefix)
                    } else {
                        name.clone()
                    };
                    match date {
                        Some((key, time)) => {
                            parts.extend(time.map(str::to_string));
                            dated.push((key, (display, parts.join(" "))));
                        }
                        None => rows.push((format!("{indent}{}", parts.join(" ")), display)),
                    }
                }
                if !dated.is_empty() {
                    for (line, n) in date_groups(&dated, indent) {
                        if used > budget {
                            break;
                        }
                        used += line.len() + 1;
                        out.push(line);
                        shown += n;
                    }
                }
                for (line, n) in fold_numbered_runs(&rows) {
                    if used > budget {
                        break;
                    }
                    used += line.len() + 1;
                    out.push(line);
                    shown += n;
                }
                let rest = g.count - shown;
                if rest > 0 {
                    omitted += rest;
                    out.push(format!("{indent}… +{rest} more not shown"));
                }
                continue;
            }
            if g.count == 1 && !names.is_empty() {
                // `shop/` alone, followed by `shop/ (9): …`: the group says it
                let name = g.items[0].name.trim_end_matches('/');
                if dirs.contains(&format!("{}{name}/", g.dir)) {
                    continue;
                }
                let line = format!("{}{}{}", g.prefix, g.dir, names[0]);
                used += line.len() + 1;
                out.push(line);
                continue;
            }
            let headed = !(g.dir.is_empty() && single);
            // names that all end in one extension, or all start with one prefix ending in a
            // separator, are written without it, said once as a glob (not where numbered
            // names fold to a few items anyway)
            // `grep -c`'s `name:count`: the affixes are the names', each count stays after
            // its name
            let split: Vec<(&str, &str)> = names
                .iter()
                .map(|n| {
                    let at = self.counted.then(|| count_at(n)).flatten();
                    n.split_at(at.unwrap_or(n.len()))
                })
                .collect();
            let bases: Vec<String> = split.iter().map(|(b, _)| b.to_string()).collect();
            let (pre, ext) = if headed && unstored == 0 {
                shared_affixes(&bases)
            } else {
                (None, None)
            };
            let stripped: Vec<String> = split
                .iter()
                .map(|(n, count)| {
                    let end = n.len() - ext.map_or(0, |e| e.len() + 1);
                    format!("{}{count}", &n[pre.map_or(0, str::len)..end])
                })
                .collect();
            let (pre, ext, names) =
                if (pre.is_some() || ext.is_some()) && fold_numbered_set(&stripped).len() >= 4 {
                    (pre.map(str::to_string), ext.map(str::to_string), stripped)
                } else {
                    (None, None, names)
                };
            let head = match (&pre, &ext) {
                (None, None) if headed => {
                    format!("{}{} ({}): ", g.prefix, label(&g.dir), g.count)
                }
                (None, None) => g.prefix.clone(),
                (p, e) => format!(
                    "{}{} ({}, all {}*{}): ",
                    g.prefix,
                    label(&g.dir),
                    g.count,
                    p.as_deref().unwrap_or(""),
                    e.as_ref().map(|e| format!(".{e}")).unwrap_or_default()
                ),
            };
            let mut line = head.clone();
            let mut shown = 0u64;
            for (n, count) in fold_numbered_set(&names) {
                if used + line.len() > budget {
                    break;
                }
                if line.len() + n.len() + 1 > WRAP && line.len() > head.len().max(2) {
                    used += line.len() + 1;
                    out.push(std::mem::take(&mut line).trim_end().to_string());
                    line = "  ".into();
                }
                line.push_str(&n);
                line.push(' ');
                shown += count;
            }
            let rest = g.count - shown;
            if rest > 0 {
                omitted += rest;
                line.push_str(&format!("… +{rest} more not shown"));
            }
            let _ = unstored;
            used += line.len() + 1;
            out.push(line.trim_end().to_string());
        }
        out.extend(unshown_lines(&unshown));
        if self.ungrouped > 0 {
            omitted += self.ungrouped;
            out.push(format!(
                "… {} entries in further directories not shown",
                self.ungrouped
            ));
        }
        out.append(&mut self.after);
        if self.other_dropped > 0 {
            omitted += self.other_dropped;
            out.push(format!(
                "… {} more message lines not shown",
                self.other_dropped
            ));
        }
        (out, omitted)
    }
}

/// Long listings with at least this many entries, sharing at most one date per this many
/// entries, say each date once over its entries.
const BY_DATE_MIN: usize = 12;
const BY_DATE_RATIO: usize = 4;

/// The note's words for a listing grouped by date, or nothing.
fn by_date_note(on: bool) -> &'static str {
    if on {
        "; entries grouped under their date modified as `name [mode] [owner] size [time]`"
    } else {
        ""
    }
}

/// The date an entry is grouped under: the day of `Nov 26 11:00` (its time stays with the
/// entry), a dated `Sep 20 2022` whole.
fn date_key(date: &str) -> &str {
    day_and_time(date).map_or(date, |(day, _)| day)
}

/// Entries as `DATE (N): name size, name size, …` lines (`DATE: name size` for one), one
/// date each in the order the dates first come, wrapped; a numbered run (same attributes)
/// folds to its first and last name. Each line comes with how many entries it holds.
fn date_groups(dated: &[(&str, (String, String))], indent: &str) -> Vec<(String, u64)> {
    let mut order: Vec<&str> = Vec::new();
    let mut members: HashMap<&str, Vec<&(String, String)>> = HashMap::new();
    for (key, entry) in dated {
        let m = members.entry(key).or_default();
        if m.is_empty() {
            order.push(key);
        }
        m.push(entry);
    }
    let mut out = Vec::new();
    for key in order {
        let m = &members[key];
        let head = match m.len() {
            1 => format!("{indent}{key}: "),
            n => format!("{indent}{key} ({n}): "),
        };
        let names: Vec<&str> = m.iter().map(|(n, _)| n.as_str()).collect();
        let mut lines = Wrapped::new(head, format!("{indent}  "));
        let mut i = 0;
        while i < m.len() {
            let (name, rest) = m[i];
            if let Some((j, dir, suffix)) = link_farm_end(&names, i, |k| m[k].1 == *rest) {
                // what every one shows besides its name follows, as after a numbered run
                let mut entries = link_farm_entries(&names[i..j], dir, suffix);
                if let Some(last) = entries.last_mut().filter(|_| !rest.is_empty()) {
                    last.push(' ');
                    last.push_str(rest);
                }
                for entry in entries {
                    lines.push(&entry, 1);
                }
                i = j;
                continue;
            }
            let j = counting_run_end(&names, i, |k| m[k].1 == *rest);
            let name = if j - i >= 3 {
                numbered_run(name, &m[j - 1].0, j - i)
            } else {
                name.clone()
            };
            let n = if j - i >= 3 { j - i } else { 1 };
            if rest.is_empty() {
                lines.push(&name, n as u64);
            } else {
                lines.push(&format!("{name} {rest}"), n as u64);
            }
            i += n;
        }
        out.extend(lines.finish());
    }
    out
}

/// Entries separated by `, `, wrapped at [`WRAP`] onto indented lines, each line with how
/// many entries it holds.
struct Wrapped {
    out: Vec<(String, u64)>,
    line: String,
    cont: String,
    held: u64,
}

impl Wrapped {
    fn new(head: String, cont: String) -> Wrapped {
        Wrapped {
            out: Vec::new(),
            line: head,
            cont,
            held: 0,
        }
    }

    /// One entry standing for `n` of the listing's.
    fn push(&mut self, entry: &str, n: u64) {
        if self.line.len() + entry.len() + 2 > WRAP && self.held > 0 {
            let line = std::mem::replace(&mut self.line, self.cont.clone());
            self.out.push((line, self.held));
            self.held = 0;
        } else if self.held > 0 {
            self.line.push_str(", ");
        }
        self.line.push_str(entry);
        self.held += n;
    }

    fn finish(mut self) -> Vec<(String, u64)> {
        self.out.push((self.line, self.held));
        self.out
    }
}

impl Listing {
    /// A folder whose names are of two kinds told by a two-part extension (`x.fixture.json`
    /// beside `x.json`, `a.test.ts` beside `a.ts`) is shown as two groups, each with its own
    /// extension said once, the kind that comes first in the folder first. Only where four or
    /// more names have the two-part extension, and every entry of the folder is held.
    fn split_compound_extensions(&mut self) {
        let counted = self.counted;
        // a name without `grep -c`'s `:count`
        let base =
            |n: &str| -> usize { if counted { count_at(n) } else { None }.unwrap_or(n.len()) };
        let mut i = 0;
        while i < self.groups.len() {
            let g = &mut self.groups[i];
            i += 1;
            if g.count != g.items.len() as u64
                || g.items.len() < 6
                || g.items
                    .iter()
                    .any(|it| it.long.is_some() || it.note.is_some())
            {
                continue;
            }
            // the two-part extension most names have (among the first sixteen kinds seen)
            let mut kinds: Vec<(&str, usize)> = Vec::new();
            for it in &g.items {
                if let Some(e) = compound_ext(&it.name[..base(&it.name)]) {
                    if let Some(k) = kinds.iter_mut().find(|(k, _)| *k == e) {
                        k.1 += 1;
                    } else if kinds.len() < 16 {
                        kinds.push((e, 1));
                    }
                }
            }
            let Some(&(ext, n)) = kinds.iter().rev().max_by_key(|(_, n)| *n) else {
                continue;
            };
            if n < 4 || n == g.items.len() {
                continue;
            }
            let ext = format!(".{ext}");
            let is = |it: &Item| it.name[..base(&it.name)].ends_with(&ext);
            let first = is(&g.items[0]);
            let (same, other): (Vec<Item>, Vec<Item>) = std::mem::take(&mut g.items)
                .into_iter()
                .partition(|it| is(it) == first);
            g.items = same;
            g.count = g.items.len() as u64;
            let other = Group {
                prefix: g.prefix.clone(),
                dir: g.dir.clone(),
                count: other.len() as u64,
                items: other,
            };
            self.groups.insert(i, other);
            i += 1;
        }
    }
}

/// A name's two-part extension (`fixture.json` of `tar.list.fixture.json`, `test.ts`,
/// `tar.gz`), when the name has more before it.
fn compound_ext(name: &str) -> Option<&str> {
    let last = name.rfind('.')?;
    let dot = name[..last].rfind('.')?;
    let part =
        |p: &str| (1..=12).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphanumeric());
    // (the first part a word: `1.5.0.txt` is a version, not a kind of file)
    let first = &name[dot + 1..last];
    let word = first.bytes().any(|b| b.is_ascii_alphabetic());
    (dot > 0 && !name.starts_with('.') && word && part(first) && part(&name[last + 1..]))
        .then(|| &name[dot + 1..])
}

/// Where `grep -c`'s `:count` starts in `name:count`.
fn count_at(n: &str) -> Option<usize> {
    let (name, count) = n.rsplit_once(':')?;
    (!name.is_empty() && !count.is_empty() && count.bytes().all(|b| b.is_ascii_digit()))
        .then_some(name.len())
}

/// What four or more names share: the prefix all of them start with, cut back to end in a
/// separator (`_`, `-`, `.`) and 3+ characters long (`builtin_fixtures__` for
/// `builtin_fixtures__a.snap …`), and the extension all of them end in ([`shared_extension`]);
/// every name keeps something of its own between the two.
fn shared_affixes(names: &[String]) -> (Option<&str>, Option<&str>) {
    let ext = shared_extension(names);
    if names.len() < 4 {
        return (None, ext);
    }
    let first = names[0].as_str();
    let mut pre = &first[..crate::reduce::text::common_prefix_len(first, &names[1..])];
    while let Some(c) = pre.chars().last() {
        if matches!(c, '_' | '-' | '.') {
            break;
        }
        pre = &pre[..pre.len() - c.len_utf8()];
    }
    let tail = ext.map_or(0, |e| e.len() + 1);
    let own = |n: &String| n.len() > pre.len() + tail;
    let pre = (pre.len() >= 3 && !pre.ends_with('/') && names.iter().all(own)).then_some(pre);
    (pre, ext)
}

/// The extension every one of four or more names ends in (`py` for `a.py b.py …`), where
/// no name is a folder (`x/`), a dotfile or the extension alone.
fn shared_extension(names: &[String]) -> Option<&str> {
    if names.len() < 4 {
        return None;
    }
    let ext_of = |n: &str| -> Option<usize> {
        let dot = n.rfind('.')?;
        let ext = &n[dot + 1..];
        (dot > 0
            && !n.starts_with('.')
            && (1..=8).contains(&ext.len())
            && ext.bytes().all(|b| b.is_ascii_alphanumeric()))
        .then_some(dot)
    };
    let first = &names[0];
    // a two-part extension all of them have (`*.fixture.json`, `*.test.ts`, `*.tar.gz`)
    if let Some(two) = compound_ext(first) {
        if names.iter().all(|n| compound_ext(n) == Some(two)) {
            return Some(two);
        }
    }
    let ext = &first[ext_of(first)? + 1..];
    names
        .iter()
        .all(|n| ext_of(n).is_some_and(|d| &n[d + 1..] == ext))
        .then_some(ext)
}

/// Where the run of names counting up by one from `names[i]` ends (exclusive): the same text
/// around the number, the same width, each one more than the one before, and `also(k)` for
/// every name `k` after the first (a listing's other columns). `i + 1` when `names[i]` has
/// no number.
pub(super) fn counting_run_end(names: &[&str], i: usize, also: impl Fn(usize) -> bool) -> usize {
    let Some((head, first, width, tail)) = numbered(names[i]) else {
        return i + 1;
    };
    let mut j = i + 1;
    while let Some((h, v, w, t)) = names.get(j).and_then(|n| numbered(n)) {
        if h != head || t != tail || w != width || v != first + (j - i) as u64 || !also(j) {
            break;
        }
        j += 1;
    }
    j
}

/// `img_0001.png … img_0180.png (180, numbered without a gap)`.
fn numbered_run(first: &str, last: &str, n: usize) -> String {
    format!("{first} … {last} ({n}, numbered without a gap)")
}

/// Fewer links in a row than this keep their targets.
const MIN_LINK_FARM: usize = 4;

/// A run of symbolic links from `names[i]` whose targets are one folder plus the link's own
/// name less a suffix they share (`FileCheck-14 -> ../lib/llvm-14/bin/FileCheck`,
/// `llc-14 -> ../lib/llvm-14/bin/llc`, …; or the same name in another folder): its end
/// (exclusive), the folder and the suffix, when [`MIN_LINK_FARM`] or more in a row share
/// them and `also(k)` holds for every name `k` after the first.
fn link_farm_end<'a>(
    names: &[&'a str],
    i: usize,
    also: impl Fn(usize) -> bool,
) -> Option<(usize, &'a str, &'a str)> {
    let parts = |n: &'a str| -> Option<(&'a str, &'a str)> {
        let (name, target) = n.split_once(" -> ")?;
        let (dir, base) = target.split_at(target.rfind('/')? + 1);
        let suffix = name.strip_prefix(base)?;
        (!base.is_empty() && !name.contains('/') && !target.contains(" -> "))
            .then_some((dir, suffix))
    };
    let (dir, suffix) = parts(names[i])?;
    let mut j = i + 1;
    while j < names.len() && parts(names[j]) == Some((dir, suffix)) && also(j) {
        j += 1;
    }
    (j - i >= MIN_LINK_FARM).then_some((j, dir, suffix))
}

/// The entries of a run of links [`link_farm_end`] found, by name alone, the first saying
/// what every target is and the last closing it: `(79 links, each to ../lib/llvm-14/bin/
/// plus its name without the "-14" at its end: FileCheck-14`, `bugpoint-14`, …,
/// `yaml2obj-14)`.
fn link_farm_entries(names: &[&str], dir: &str, suffix: &str) -> Vec<String> {
    let less = if suffix.is_empty() {
        String::new()
    } else {
        format!(" without the \"{suffix}\" at its end")
    };
    let n = names.len();
    names
        .iter()
        .enumerate()
        .map(|(k, full)| {
            let name = full.split_once(" -> ").map_or(*full, |(name, _)| name);
            match k {
                0 => format!("({n} links, each to {dir} plus its name{less}: {name}"),
                _ if k + 1 == n => format!("{name})"),
                _ => name.to_string(),
            }
        })
        .collect()
}

/// Lines of a listing, with runs of three or more entries that differ only by a contiguous
/// number in their name (same width, same everything else) folded to one line naming the
/// first and the last: `0 img_0001.png … img_0180.png (180, numbered without a gap)`. A gap
/// or any other difference breaks the run; a run of links into one folder by their own name
/// is written by name alone ([`link_farm_end`]). Each line comes with how many entries it
/// stands for.
fn fold_numbered_runs(rows: &[(String, String)]) -> Vec<(String, u64)> {
    let join = |rest: &str, name: &str| {
        if rest.is_empty() || rest.ends_with(' ') {
            format!("{rest}{name}")
        } else {
            format!("{rest} {name}")
        }
    };
    let names: Vec<&str> = rows.iter().map(|(_, n)| n.as_str()).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < rows.len() {
        let (rest, name) = &rows[i];
        if let Some((j, dir, suffix)) = link_farm_end(&names, i, |k| rows[k].0 == *rest) {
            // what every one shows besides its name comes first, as for one entry
            let indent = &rest[..rest.len() - rest.trim_start().len()];
            let mut lines = Wrapped::new(join(rest, ""), format!("{indent}  "));
            for entry in link_farm_entries(&names[i..j], dir, suffix) {
                lines.push(&entry, 1);
            }
            out.extend(lines.finish());
            i = j;
            continue;
        }
        let j = counting_run_end(&names, i, |k| rows[k].0 == *rest);
        if j - i >= 3 {
            let last = &rows[j - 1].1;
            out.push((join(rest, &numbered_run(name, last, j - i)), (j - i) as u64));
            i = j;
            continue;
        }
        out.push((join(rest, name), 1));
        i += 1;
    }
    out
}

/// Names of a plain listing with every set of four or more that differ only by a number
/// covering a range without a gap (same text around it, same zero-padding) written once as
/// `img_001.png … img_300.png (300, numbered without a gap)`, whatever order they came in
/// (`find` gives directory order). The folded ranges come first, then the other names in
/// their order; each item comes with how many names it stands for.
pub(super) fn fold_numbered_set(names: &[String]) -> Vec<(String, u64)> {
    use std::collections::HashMap;
    // (text before, text after, digits when zero-padded or 0 when natural) -> members
    // (number, position)
    type Family<'a> = (&'a str, &'a str, usize);
    type Members = Vec<(u64, usize)>;
    let mut families: HashMap<Family<'_>, Members> = HashMap::new();
    for (i, n) in names.iter().enumerate() {
        if let Some((head, v, width, tail)) = numbered(n) {
            let padded = width > 1 && n[head.len()..].starts_with('0');
            families
                .entry((head, tail, if padded { width } else { 0 }))
                .or_default()
                .push((v, i));
        }
    }
    // a padded family (`img_001` …) also takes the same-width numbers without a leading
    // zero (`img_100`): they belong to the same sequence
    let padded_keys: Vec<(&str, &str, usize)> =
        families.keys().filter(|k| k.2 > 0).copied().collect();
    for (head, tail, width) in padded_keys {
        if let Some(natural) = families.get_mut(&(head, tail, 0)) {
            let (same, other): (Members, Members) = natural
                .drain(..)
                .partition(|(v, _)| v.to_string().len() == width);
            *natural = other;
            families
                .entry((head, tail, width))
                .or_default()
                .extend(same);
        }
    }
    let mut folded: Vec<(usize, String, u64)> = Vec::new();
    let mut used = vec![false; names.len()];
    for members in families.values_mut() {
        if members.len() < 3 {
            continue;
        }
        members.sort_unstable();
        members.dedup_by_key(|m| m.0);
        let mut start = 0;
        while start < members.len() {
            let mut end = start + 1;
            while end < members.len() && members[end].0 == members[end - 1].0 + 1 {
                end += 1;
            }
            // a run of three says no more than the three names
            if end - start >= 4 {
                let run = &members[start..end];
                for (_, i) in run {
                    used[*i] = true;
                }
                let first_pos = run.iter().map(|(_, i)| *i).min().unwrap_or(0);
                folded.push((
                    first_pos,
                    numbered_run(&names[run[0].1], &names[run[run.len() - 1].1], run.len()),
                    run.len() as u64,
                ));
            }
            start = end;
        }
    }
    folded.sort();
    let mut out: Vec<(String, u64)> = folded.into_iter().map(|(_, t, n)| (t, n)).collect();
    out.extend(
        names
            .iter()
            .zip(&used)
            .filter(|(_, u)| !**u)
            .map(|(n, _)| (n.clone(), 1)),
    );
    out
}

/// The group a `git commit` file line goes to, by what happened and the file's mode
/// (`None` for a mode git does not write, which stays a line of its own).
fn git_mode_verb(created: bool, mode: &str) -> Option<&'static str> {
    Some(match (created, mode) {
        (true, "100644") => "created (mode 100644)",
        (true, "100755") => "created (mode 100755, executable)",
        (true, "120000") => "created (symlink)",
        (true, "160000") => "created (submodule)",
        (false, "100644") => "deleted (mode 100644)",
        (false, "100755") => "deleted (mode 100755, executable)",
        (false, "120000") => "deleted (symlink)",
        (false, "160000") => "deleted (submodule)",
        _ => return None,
    })
}

fn single_root(dir: &str) -> bool {
    dir.is_empty()
}

/// Most lines saying the directories past the budget.
const MAX_UNSHOWN_LINES: usize = 40;

/// The directories past the budget, counted: one line each (`src/api/ (12 entries not
/// shown)`) when they are few; else rolled up to the deepest folders that keep them within
/// [`MAX_UNSHOWN_LINES`] lines (`v/lib/python3.11/site-packages/** (3412 entries in 560
/// directories not shown)`), in the order they first come.
fn unshown_lines(groups: &[&Group]) -> Vec<String> {
    let one = |g: &Group| {
        format!(
            "{}{} ({} {} not shown)",
            g.prefix,
            label(&g.dir),
            g.count,
            plural(g.count, "entry", "entries")
        )
    };
    if groups.len() <= MAX_UNSHOWN_LINES {
        return groups.iter().map(|g| one(g)).collect();
    }
    // a folder `depth` components deep (the whole folder when it is not as deep)
    let folder = |dir: &str, depth: usize| -> usize {
        dir.match_indices('/')
            .nth(depth.wrapping_sub(1))
            .map_or(if depth == 0 { 0 } else { dir.len() }, |(k, _)| k + 1)
    };
    let deepest = groups
        .iter()
        .map(|g| g.dir.matches('/').count())
        .max()
        .unwrap_or(0);
    // the folders `depth` deep, in the order they first come: None past the lines allowed
    // (so a look at a depth with thousands of folders stops early)
    let keys = |depth: usize, limit: usize| -> Option<Vec<(&str, &str)>> {
        let mut seen: Vec<(&str, &str)> = Vec::new();
        for g in groups {
            let key = (g.prefix.as_str(), &g.dir[..folder(&g.dir, depth)]);
            if !seen.contains(&key) {
                if seen.len() == limit {
                    return None;
                }
                seen.push(key);
            }
        }
        Some(seen)
    };
    let (depth, tops) = (0..=deepest)
        .rev()
        .find_map(|d| keys(d, MAX_UNSHOWN_LINES).map(|k| (d, k)))
        .unwrap_or_else(|| (0, keys(0, usize::MAX).unwrap_or_default()));
    tops.into_iter()
        .map(|(prefix, top)| {
            let under: Vec<&&Group> = groups
                .iter()
                .filter(|g| g.prefix == prefix && g.dir[..folder(&g.dir, depth)] == *top)
                .collect();
            let entries: u64 = under.iter().map(|g| g.count).sum();
            match under.as_slice() {
                [g] if g.dir == top => one(g),
                _ => format!(
                    "{prefix}{}** ({entries} {} in {} directories not shown)",
                    if top.is_empty() { "./" } else { top },
                    plural(entries, "entry", "entries"),
                    under.len()
                ),
            }
        })
        .collect()
}

fn label(dir: &str) -> String {
    if dir.is_empty() {
        "./".into()
    } else {
        dir.to_string()
    }
}

fn plural(n: u64, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// Quote a name that holds spaces (the names of a group are separated by spaces).
fn quote(name: &str) -> String {
    if name.contains(' ') && !name.contains(" -> ") {
        format!("\"{}\"", name.replace('"', "\\\""))
    } else {
        name.to_string()
    }
}

/// `a/b/c.rs` → (`a/b/`, `c.rs`); `a/b/` → (`a/`, `b/`); `c.rs` → (``, `c.rs`).
fn split_path(p: &str) -> (&str, &str) {
    let body = p.strip_suffix('/').unwrap_or(p);
    // a symlink line `name -> target`: split the name only
    let name_part = body.split(" -> ").next().unwrap_or(body);
    match name_part.rfind('/') {
        Some(k) if k + 1 < p.len() => (&p[..=k], &p[k + 1..]),
        _ => ("", p),
    }
}

/// `path (deflated 72%)` → `path`.
fn strip_zip_method(s: &str) -> &str {
    if let Some(k) = s.rfind(" (") {
        let tail = &s[k + 2..];
        if tail.ends_with(')')
            && ["stored", "deflated", "bzipped", "lzma", "zstd", "xz", "in="]
                .iter()
                .any(|m| tail.starts_with(m))
        {
            return &s[..k];
        }
    }
    s
}

fn is_rsync_progress(t: &str) -> bool {
    // `   1,234 100%    1.18MB/s    0:00:00 (xfr#1, to-chk=2/4)` and `to-check=` lines
    let mut it = t.split_whitespace();
    let (Some(a), Some(b)) = (it.next(), it.next()) else {
        return false;
    };
    a.chars()
        .all(|c| c.is_ascii_digit() || c == ',' || c == '.')
        && b.ends_with('%')
        && b[..b.len() - 1].chars().all(|c| c.is_ascii_digit())
}

/// `Nov 26 11:00` → (`Nov 26`, `11:00`): ls's date of the last half-year, with a time.
fn day_and_time(date: &str) -> Option<(&str, &str)> {
    let (day, time) = date.rsplit_once(' ')?;
    let (h, m) = time.split_once(':')?;
    let digits = |s: &str| !s.is_empty() && s.len() <= 2 && s.bytes().all(|b| b.is_ascii_digit());
    (digits(h) && digits(m) && day.split(' ').filter(|w| !w.is_empty()).count() == 2)
        .then_some((day, time))
}

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    (b.len() == 10 && b[4] == b'-' && b[7] == b'-')
        || (b.len() == 8 && b[2] == b'-' && b[5] == b'-')
        || (b.len() == 10 && b[2] == b'-' && b[5] == b'-')
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

fn is_mode(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 10 || b.len() > 11 {
        return false;
    }
    if !b"-dlcbpsD".contains(&b[0]) {
        return false;
    }
    if !b[1..10].iter().all(|c| b"rwxsStTl-".contains(c)) {
        return false;
    }
    b.len() == 10 || b"+.@".contains(&b[10])
}

/// The text after the first `n` whitespace-separated fields (internal spaces kept).
fn after_fields(s: &str, n: usize) -> &str {
    let mut rest = s.trim_start();
    for _ in 0..n {
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        rest = rest[end..].trim_start();
    }
    rest
}

/// Parse an `ls -l`, `find -ls`, `fd -l` or `tar -tv` line into its columns and name.
fn parse_long(line: &str) -> Option<(Long, String)> {
    let toks: Vec<&str> = line.split_whitespace().collect();
    if toks.len() < 5 {
        return None;
    }
    let k = (0..3.min(toks.len())).find(|&i| is_mode(toks[i]))?;
    // the date: `Mon DD HH:MM|YYYY`, or `YYYY-MM-DD HH:MM[:SS[.f]] [+zzzz]`
    let mut date_at = None;
    for i in k + 2..toks.len().saturating_sub(1) {
        if MONTHS.contains(&toks[i]) && i + 2 < toks.len() {
            date_at = Some((i, 3));
            break;
        }
        if is_date(toks[i]) && toks[i].as_bytes()[4] == b'-' {
            let mut n = 1;
            if toks.get(i + 1).is_some_and(|t| t.contains(':')) {
                n = 2;
                if toks
                    .get(i + 2)
                    .is_some_and(|t| (t.starts_with('+') || t.starts_with('-')) && t.len() == 5)
                {
                    n = 3;
                }
            }
            date_at = Some((i, n));
            break;
        }
    }
    let (di, dn) = date_at?;
    if di + dn >= toks.len() {
        return None;
    }
    let mid = &toks[k + 1..di];
    if mid.is_empty() {
        return None;
    }
    let (size, rest) = if mid.len() >= 2 && mid[mid.len() - 2].ends_with(',') {
        (
            format!("{} {}", mid[mid.len() - 2], mid[mid.len() - 1]),
            &mid[..mid.len() - 2],
        )
    } else {
        (mid[mid.len() - 1].to_string(), &mid[..mid.len() - 1])
    };
    let rest = if rest.len() >= 2 && rest[0].chars().all(|c| c.is_ascii_digit()) {
        &rest[1..] // link count
    } else {
        rest
    };
    let name = after_fields(line, di + dn).to_string();
    if name.is_empty() {
        return None;
    }
    Some((
        Long {
            mode: toks[k].to_string(),
            owner: rest.join(" "),
            size,
            date: toks[di..di + dn].join(" "),
        },
        name,
    ))
}

impl Structured for Listing {
    fn push(&mut self, line: &str) {
        self.lines += 1;
        self.push_line(line);
        // a header follows a blank line, or a message (`ls: cannot access …` on stderr)
        self.prev_blank = line.trim().is_empty() || self.last_was_message;
        self.last_was_message = false;
    }

    fn finish(self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        // `find --version`, a usage text, a message we do not know: not a listing
        if self.entries == 0 || self.not_paths || self.spacey * 2 > self.entries {
            return None;
        }
        let entries = self.entries;
        let fact = self.fact;
        let mut noise = self.noise;
        let mut facts = vec![(fact.to_string(), entries)];
        // `ls -l`'s `total N` (blocks): one of them is a fact of the header; several (one
        // per folder of `ls -lR`) are dropped as noise, counted
        match self.totals.as_slice() {
            [] => {}
            [n] => facts.push(("total block".to_string(), *n)),
            many => noise += many.len() as u64,
        }
        let (lines, omitted) = self.render();
        Some(StructuredOutput {
            name: "listing",
            lines,
            facts,
            omitted,
            filtered: noise,
            facts_line: true,
            json_cut: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::normalize;

    fn run(cmd: &str, text: &str) -> Option<StructuredOutput> {
        let norm = normalize(Some(cmd), None);
        crate::reduce::structured::feed(Box::new(Listing::new(&norm)), text, 0)
    }

    #[test]
    fn groups_paths_by_directory() {
        let out = run(
            "find . -type f",
            "./README.md\n./src/a.rs\n./src/b.rs\n./src/c d.rs\n./docs/guide.md\n./Cargo.toml\n",
        )
        .unwrap();
        let t = out.lines.join("\n");
        assert!(t.contains("./ (2): README.md Cargo.toml"), "{t}");
        assert!(t.contains("./src/ (3): a.rs b.rs \"c d.rs\""), "{t}");
        assert!(t.contains("./docs/guide.md"), "{t}");
        assert_eq!(out.facts[0], ("match".to_string(), 6));
    }

    #[test]
    fn names_that_differ_inside_a_character_are_grouped() {
        // `é`, `è`, `ê`, `ë` share their first byte: the shared start ends before them (it
        // used to be cut inside `é`, and the reducer gave up on an internal error)
        let text =
            "./d/café_1.txt\n./d/cafè_2.txt\n./d/cafê_3.txt\n./d/cafë_4.txt\n./d/café_5.txt\n";
        let t = run("find .", text).unwrap().lines.join("\n");
        for name in ["café_1", "cafè_2", "cafê_3", "cafë_4", "café_5"] {
            assert!(t.contains(name), "{t}");
        }
    }

    #[test]
    fn marks_directories_listed_as_entries() {
        let out = run("find src", "src\nsrc/a\nsrc/a/x.rs\nsrc/a/y.rs\nsrc/b.rs\n").unwrap();
        let t = out.lines.join("\n");
        assert!(t.contains("src/ (2): a/ b.rs"), "{t}");
        assert!(t.contains("src/a/ (2): x.rs y.rs"), "{t}");
    }

    #[test]
    fn ls_long_folds_owner_and_modes() {
        let text = "total 16
drwxr-xr-x 2 dev staff 4096 Nov 20 10:00 docs
drwxr-xr-x 5 dev staff 4096 Nov 20 10:00 src
-rw-r--r-- 1 dev staff  120 Nov 20 10:00 README.md
-rw-r--r-- 1 dev staff   88 Nov 20 10:00 package.json
-rwxr-xr-x 1 dev staff   60 Nov 20 10:00 deploy.sh
lrwxrwxrwx 1 dev staff   12 Nov 20 10:00 main.ts -> src/index.ts
lrwxrwxrwx 1 dev staff   99 Nov 20 10:00 odd -> a
";
        // seven more links, so the sizes go (fewer keep them: the note would cost more)
        let links: String = (1..=7)
            .map(|i| format!("lrwxrwxrwx 1 dev staff    9 Nov 20 10:00 v{i} -> lib/v{i}.so\n"))
            .collect();
        let text = format!("{text}{links}");
        let text = text.as_str();
        let out = run("ls -l", text).unwrap();
        let t = out.lines.join("\n");
        assert!(t.contains("[owner dev, group staff; mode -rw-r--r-- files, drwxr-xr-x dirs; modified Nov 20 10:00 unless shown; link counts dropped; a symlink's size (its target's length) dropped]"), "{t}");
        // a size that is not the target's length stays
        assert!(
            t.contains("\nmain.ts -> src/index.ts") && t.contains("\n99 odd -> a"),
            "{t}"
        );
        assert!(t.contains("\ndocs/\n"), "{t}");
        assert!(t.contains("\n120 README.md"), "{t}");
        assert!(t.contains("-rwxr-xr-x 60 deploy.sh"), "{t}");
        assert!(t.contains("main.ts -> src/index.ts"), "{t}");
        assert!(!t.contains("total 16"), "{t}");
        // the one `total` is a fact of the header, not hidden noise
        assert_eq!(out.filtered, 0);
        assert_eq!(out.facts[0], ("item".to_string(), 14));
        assert_eq!(out.facts[1], ("total block".to_string(), 16));
        let few = run(
            "ls -l",
            &text[..text.find("lrwxrwxrwx 1 dev staff    9").unwrap()],
        )
        .unwrap();
        let t = few.lines.join("\n");
        assert!(
            t.contains("\n12 main.ts -> src/index.ts") && !t.contains("symlink"),
            "{t}"
        );
    }

    #[test]
    fn a_day_most_entries_share_leaves_their_times_alone() {
        let text = "total 24
drwxr-xr-x 2 dev staff 4096 Nov 26 14:38 .
-rw-r--r-- 1 dev staff  120 Nov 26 11:00 a.rs
-rw-r--r-- 1 dev staff   88 Nov 26 06:19 b.rs
-rw-r--r-- 1 dev staff   60 Nov 25 23:59 c.rs
-rw-r--r-- 1 dev staff   61 Mar  3  2024 d.rs
-rw-r--r-- 1 dev staff   62 Nov 26 09:30 e.rs
";
        let out = run("ls -la", text).unwrap();
        let t = out.lines.join("\n");
        assert!(
            t.contains("; a time alone is on Nov 26; link counts dropped]"),
            "{t}"
        );
        assert!(t.contains("\n120 11:00 a.rs\n88 06:19 b.rs\n60 Nov 25 23:59 c.rs\n61 Mar 3 2024 d.rs\n62 09:30 e.rs"), "{t}");
        // ls -lR: one total per folder, dropped as noise and counted
        let many = run(
            "ls -lR",
            &format!("{text}\n./sub:\ntotal 8\n-rw-r--r-- 1 dev staff 5 Nov 26 09:31 f.rs\n"),
        )
        .unwrap();
        assert_eq!(many.filtered, 2);
        assert_eq!(many.facts.len(), 1);
    }

    #[test]
    fn entries_sharing_few_dates_are_grouped_under_them() {
        let mut text = String::from("total 99\n");
        // 20 tools of two installs, 3 numbered logs of another, two of this half-year
        for i in 0..20 {
            text.push_str(&format!(
                "-rwxr-xr-x 1 root root {} {} a-longer-tool-name-{}\n",
                1000 + i,
                if i < 12 {
                    "Sep 20  2022"
                } else {
                    "May 25  2023"
                },
                (b'a' + i as u8) as char
            ));
        }
        for i in 1..=3 {
            text.push_str(&format!("-rw-r--r-- 1 root root 5 Jan  1  2024 log{i}\n"));
        }
        text.push_str("drwxr-xr-x 2 root root 4096 Nov 26 07:30 cache\n");
        text.push_str("-rw-r----- 1 root adm 77 Nov 26 06:19 secret\n");
        let out = run("ls -l /opt/bin", &text).unwrap();
        let t = out.lines.join("\n");
        assert!(
            t.contains(
                "; entries grouped under their date modified as `name [mode] [owner] size [time]`]"
            ),
            "{t}"
        );
        let tool = |c: char| format!("a-longer-tool-name-{c} {}", 1000 + (c as u8 - b'a') as u32);
        assert!(
            t.contains(&format!(
                "\nSep 20 2022 (12): {}, {}, ",
                tool('a'),
                tool('b')
            )),
            "{t}"
        );
        assert!(
            t.contains(&format!("\nMay 25 2023 (8): {}, ", tool('m'))),
            "{t}"
        );
        // a wrapped group goes on indented, every entry still separated
        assert!(t.contains("\n  a-longer"), "{t}");
        let pairs = ('a'..'t').zip('b'..='t').filter(|p| *p != ('l', 'm'));
        for (a, b) in pairs.map(|(a, b)| (tool(a), tool(b))) {
            assert!(
                t.contains(&format!("{a}, {b}")) || t.contains(&format!("{a}\n  {b}")),
                "{t}"
            );
        }
        assert!(
            t.contains("\nJan 1 2024 (3): log1 … log3 (3, numbered without a gap) -rw-r--r-- 5"),
            "{t}"
        );
        assert!(
            t.contains(
                "\nNov 26 (2): cache/ drwxr-xr-x 07:30, secret -rw-r----- root adm 77 06:19"
            ),
            "{t}"
        );
        // every entry is held by one line
        assert_eq!(out.facts[0], ("item".to_string(), 25));
        // dates that are mostly different keep one line per entry
        let spread: String = (1..=13)
            .map(|d| format!("-rw-r--r-- 1 root root 9 Mar {d:>2}  2021 f{d}\n"))
            .collect();
        let t = run("ls -l", &spread).unwrap().lines.join("\n");
        assert!(t.contains("\n9 Mar 1 2021 f1\n"), "{t}");
    }

    #[test]
    fn links_into_one_folder_by_their_own_name_are_listed_by_name() {
        // dated long ago (grouped by date), with a suffix the targets lack
        let mut text = String::from("total 0\n");
        // (eight or more links whose size is their target's length: the sizes go)
        let tools = [
            "FileCheck",
            "llc",
            "lli",
            "llvm-ar",
            "llvm-as",
            "llvm-nm",
            "opt",
            "sancov",
        ];
        for t in tools {
            let target = format!("../lib/llvm-14/bin/{t}");
            text.push_str(&format!(
                "lrwxrwxrwx 1 root root {} Feb 17  2023 {t}-14 -> {target}\n",
                target.len()
            ));
        }
        // one into another folder ends the run and keeps its target
        text.push_str("lrwxrwxrwx 1 root root 8 Feb 17  2023 zz-14 -> ../zz/zz\n");
        for i in 0..11 {
            text.push_str(&format!(
                "-rwxr-xr-x 1 root root 10{i} {} tool{}\n",
                if i < 6 {
                    "Sep 20  2022"
                } else {
                    "May 25  2023"
                },
                (b'a' + i) as char
            ));
        }
        let out = run("ls -l /usr/bin", &text).unwrap();
        let t = out.lines.join("\n");
        assert!(
            t.contains(
                "\nFeb 17 2023 (9): (8 links, each to ../lib/llvm-14/bin/ plus its name without \
                 the \"-14\" at its end: FileCheck-14, llc-14, lli-14, llvm-ar-14, llvm-as-14\n  \
                 llvm-nm-14, opt-14, sancov-14), zz-14 -> ../zz/zz\n"
            ),
            "{t}"
        );
        assert!(!t.contains("llc-14 ->"), "{t}");
        assert_eq!(out.facts[0], ("item".to_string(), 20));

        // one line per entry, the same name in another folder; three are not enough
        let links = |n: usize| -> String {
            (0..n)
                .map(|i| {
                    format!("lrwxrwxrwx 1 u g 20 Nov 24 02:00 x{i}.gz -> /usr/share/man/x{i}.gz\n")
                })
                .collect()
        };
        let t = run("ls -l", &links(4)).unwrap().lines.join("\n");
        assert!(
            t.contains(
                "\n20 (4 links, each to /usr/share/man/ plus its name: x0.gz, x1.gz, x2.gz, x3.gz)"
            ),
            "{t}"
        );
        let t = run("ls -l", &links(3)).unwrap().lines.join("\n");
        assert!(t.contains("x2.gz -> /usr/share/man/x2.gz"), "{t}");
    }

    #[test]
    fn numbered_runs_fold_to_their_first_and_last_name_and_gaps_break_them() {
        let mut text = String::from("total 0\n");
        for n in (1..=5).chain(7..=9) {
            text.push_str(&format!("-rw-r--r-- 1 u g 0 Nov 24 02:00 img_{n:04}.png\n"));
        }
        text.push_str("-rw-r--r-- 1 u g 9 Nov 24 02:00 img_0010.png\n");
        text.push_str("-rw-r--r-- 1 u g 0 Nov 24 02:00 notes.txt\n");
        let out = run("ls -la assets", &text).unwrap();
        let t = out.lines.join("\n");
        assert!(
            t.contains("0 img_0001.png … img_0005.png (5, numbered without a gap)"),
            "{t}"
        );
        assert!(
            t.contains("0 img_0007.png … img_0009.png (3, numbered without a gap)"),
            "{t}"
        );
        // another size breaks the run; other names stay as they are
        assert!(
            t.contains("9 img_0010.png") && t.contains("0 notes.txt"),
            "{t}"
        );
        assert_eq!(out.omitted, 0, "{t}");
    }

    #[test]
    fn plain_names_fold_numbered_sets_in_any_order() {
        let names: Vec<String> = [
            "img_003.png",
            "a.txt",
            "img_001.png",
            "img_100.png",
            "img_002.png",
            "page2.md",
            "page10.md",
            "page1.md",
            "page3.md",
            "img_099.png",
            "img_004.png",
            "b.txt",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut padded: Vec<String> = names.clone();
        // img_005 … img_098 as well: 001 … 100 without a gap
        padded.extend((5..=98).map(|i| format!("img_{i:03}.png")));
        let out = fold_numbered_set(&padded);
        let texts: Vec<&str> = out.iter().map(|(t, _)| t.as_str()).collect();
        assert!(
            texts.contains(&"img_001.png … img_100.png (100, numbered without a gap)"),
            "{texts:?}"
        );
        // page1, 2, 3 stay as they are (three names say as much); page10 is after a gap
        assert!(
            texts.contains(&"page1.md") && texts.contains(&"page3.md"),
            "{texts:?}"
        );
        assert!(
            texts.contains(&"page10.md") && texts.contains(&"a.txt"),
            "{texts:?}"
        );
        // nothing lost: the counts add up to every name
        assert_eq!(out.iter().map(|(_, n)| n).sum::<u64>(), padded.len() as u64);
        // a gap breaks the run
        let gap: Vec<String> = [
            "f1", "f2", "f3", "f4", "f6", "f7", "f8", "f9", "g1", "g2", "g3",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let texts: Vec<String> = fold_numbered_set(&gap).into_iter().map(|x| x.0).collect();
        assert_eq!(
            texts,
            [
                "f1 … f4 (4, numbered without a gap)",
                "f6 … f9 (4, numbered without a gap)",
                "g1",
                "g2",
                "g3"
            ]
        );
    }

    #[test]
    fn ls_keeps_errors_and_headers() {
        let text = "ls: cannot access 'nope': No such file or directory\nsrc:\na.rs\nb.rs\n\ndocs:\nguide.md\n";
        let out = run("ls nope src docs", text).unwrap();
        let t = out.lines.join("\n");
        assert!(t.starts_with("ls: cannot access 'nope'"), "{t}");
        assert!(t.contains("src/ (2): a.rs b.rs"), "{t}");
        assert!(t.contains("docs/guide.md"), "{t}");
    }

    #[test]
    fn zip_and_unzip_verbs() {
        let out = run(
            "zip -r out.zip dist",
            "  adding: dist/ (stored 0%)\n  adding: dist/a.js (deflated 60%)\n  adding: dist/b.js (deflated 61%)\n",
        )
        .unwrap();
        let t = out.lines.join("\n");
        // the `dist/` entry itself is said by its group
        assert_eq!(t, "adding: dist/ (2): a.js b.js");
        assert_eq!(out.facts[0], ("entry".to_string(), 3));
        let out = run(
            "unzip x.zip",
            "Archive:  x.zip\n   creating: d/\n  inflating: d/a.js\n  inflating: d/b.js\n",
        )
        .unwrap();
        let t = out.lines.join("\n");
        assert_eq!(t, "Archive:  x.zip\ninflating: d/ (2): a.js b.js");
    }

    #[test]
    fn names_of_two_kinds_told_by_a_two_part_extension_are_two_groups() {
        let text = "rules/tar.json\nrules/tar.list.fixture.json\nrules/tar.create.fixture.json\n\
                    rules/zip.json\nrules/zip.add.fixture.json\nrules/zip.empty.fixture.json\n\
                    rules/unzip.json\n";
        let t = run("find rules -type f", text).unwrap().lines.join("\n");
        assert!(
            t.contains("rules/ (4, all *.fixture.json): tar.list tar.create zip.add zip.empty"),
            "{t}"
        );
        assert!(
            t.contains("rules/ (3): tar.json zip.json unzip.json"),
            "{t}"
        );
        // versions are no kind of file
        let notes: String = ["1.5.0", "1.5.0.1", "1.5.0.2", "1.5.0.3", "1.5.0.4", "1.6.0"]
            .iter()
            .map(|v| format!("RelNotes/{v}.txt\n"))
            .collect();
        let t = run("find RelNotes", &notes).unwrap().lines.join("\n");
        assert_eq!(t.matches("RelNotes/ (").count(), 1, "{t}");
        assert_eq!(compound_ext("a.test.ts"), Some("test.ts"));
        assert_eq!(compound_ext("libc.so.6"), Some("so.6"));
        assert_eq!(compound_ext("1.5.0.txt"), None);
        assert_eq!(compound_ext(".eslintrc.json"), None);
    }

    #[test]
    fn an_extension_all_names_share_is_said_once() {
        let out = run(
            "find src",
            "src/a.py\nsrc/b.py\nsrc/c.py\nsrc/d.py\nlib/a.py\nlib/b.py\nlib/c.txt\nlib/d.py\n",
        )
        .unwrap();
        let t = out.lines.join("\n");
        assert!(t.contains("src/ (4, all *.py): a b c d"), "{t}");
        assert!(t.contains("lib/ (4): a.py b.py c.txt d.py"), "{t}");
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            shared_extension(&names(&["a.rs", "b.rs", "c.rs", "d.rs"])),
            Some("rs")
        );
        // three names, a folder, a dotfile, a bare `.rs`, a long or odd extension: kept whole
        assert_eq!(shared_extension(&names(&["a.rs", "b.rs", "c.rs"])), None);
        assert_eq!(
            shared_extension(&names(&["a.rs", "b.rs", "c.rs", "d.rs/"])),
            None
        );
        assert_eq!(
            shared_extension(&names(&["a.rs", "b.rs", "c.rs", ".rs"])),
            None
        );
        assert_eq!(
            shared_extension(&names(&["a.rs", "b.rs", "c.rs", "d"])),
            None
        );
        assert_eq!(
            shared_extension(&names(&["a.x-y", "b.x-y", "c.x-y", "d.x-y"])),
            None
        );
        assert_eq!(
            shared_extension(&names(&[
                "a.abcdefghi",
                "b.abcdefghi",
                "c.abcdefghi",
                "d.abcdefghi"
            ])),
            None
        );
    }

    #[test]
    fn a_prefix_every_name_shares_up_to_a_separator_is_said_once() {
        let v = |xs: &[&str]| xs.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let names = v(&[
            "snap__a.snap",
            "snap__b.snap",
            "snap__cc.snap",
            "snap__d.snap",
        ]);
        assert_eq!(shared_affixes(&names), (Some("snap__"), Some("snap")));
        // cut back to the separator: `test_alpha`, `test_beta` … share `test_`
        let names = v(&["test_alpha", "test_beta", "test_al", "test_b"]);
        assert_eq!(shared_affixes(&names), (Some("test_"), None));
        // a name that is the prefix alone, or no separator: nothing
        let names = v(&[
            "journal",
            "journal.a.json",
            "journal.b.json",
            "journal.c.json",
        ]);
        assert_eq!(shared_affixes(&names).0, None);
        let names = v(&["abcx", "abcy", "abcz", "abcw"]);
        assert_eq!(shared_affixes(&names), (None, None));
        // too short to be worth saying
        let names = v(&["a_1x", "a_2y", "a_3z", "a_4w"]);
        assert_eq!(shared_affixes(&names), (None, None));
    }

    #[test]
    fn huge_listing_is_cut_with_counts() {
        let mut text = String::new();
        for d in 0..300 {
            for f in 0..40 {
                // not numbered runs (those fold): the last number is the module's
                text.push_str(&format!("src/module_{d:03}/file_{f:03}_m{d}.rs\n"));
            }
        }
        let out = run("fd . src", &text).unwrap();
        assert!(out.omitted > 0);
        let t = out.lines.join("\n");
        assert!(
            t.contains("src/module_000/ (40, all file_*.rs): 000_m0 001_m0"),
            "{t}"
        );
        // the ~270 folders past the budget: more than 40, so said by the folder above them
        let last = out.lines.last().unwrap();
        let (_, rest) = last.split_once("src/** (").expect(&t);
        let (entries, folders) = rest.split_once(" entries in ").expect(&t);
        let folders: u64 = folders
            .trim_end_matches(" directories not shown)")
            .parse()
            .expect(&t);
        assert_eq!(entries.parse::<u64>().unwrap(), folders * 40, "{t}");
        assert!(out.omitted >= folders * 40, "{t}");
        assert!(!t.contains("src/module_299/"), "{t}");
        assert_eq!(out.facts[0], ("path".to_string(), 12_000));
    }

    #[test]
    fn folders_past_the_budget_are_said_by_the_deepest_folders_that_fit_forty_lines() {
        let mut text = String::new();
        // shown: enough to fill the budget
        for f in 0..3000 {
            text.push_str(&format!(
                "app/src/component_{:05}_variant{}.ts\n",
                f * 7,
                f % 3
            ));
        }
        // past it: three packages of 30 folders each, and one lone folder
        for pkg in ["alpha", "beta", "gamma"] {
            for d in 0..30 {
                for f in 0..2 {
                    text.push_str(&format!("vendor/{pkg}/mod_{d:02}/f{f}.go\n"));
                }
            }
        }
        text.push_str("docs/readme.md\n");
        let out = run("find .", &text).unwrap();
        let t = out.lines.join("\n");
        assert!(
            t.ends_with(
                "vendor/alpha/** (60 entries in 30 directories not shown)
vendor/beta/** (60 entries in 30 directories not shown)
vendor/gamma/** (60 entries in 30 directories not shown)
docs/ (1 entry not shown)"
            ),
            "{t}"
        );
    }

    #[test]
    fn not_a_listing() {
        assert!(run("find x", "").is_none());
        assert!(run(
            "find --version",
            "find (GNU findutils) 4.9.0\nCopyright (C) 2022 Free Software Foundation, Inc.\nLicense GPLv3+: GNU GPL version 3 or later\n"
        )
        .is_none());
        assert!(run(
            "find . -name '*.ts' -exec grep -Hn TODO {} +",
            "./a.ts:3:// TODO x\n./b/c.ts:1:TODO y\n"
        )
        .is_none());
        assert!(run(
            "tar -czf x.tgz d",
            "tar: d: Cannot stat: No such file or directory\n"
        )
        .is_none());
    }

    #[test]
    fn long_line_parser() {
        let (l, n) =
            parse_long("-rw-r--r-- root/root       123 2026-11-20 10:00 shop/src/a.ts").unwrap();
        assert_eq!(
            (
                l.owner.as_str(),
                l.size.as_str(),
                l.date.as_str(),
                n.as_str()
            ),
            ("root/root", "123", "2026-11-20 10:00", "shop/src/a.ts")
        );
        let (l, n) = parse_long(
            "  1234      4 -rw-r--r--   1 dev      dev           33 Nov 20 10:00 ./my file.txt",
        )
        .unwrap();
        assert_eq!((l.size.as_str(), n.as_str()), ("33", "./my file.txt"));
        let (l, _) = parse_long("crw-rw-rw- 1 root root 1, 3 Nov 20 10:00 null").unwrap();
        assert_eq!(l.size, "1, 3");
        assert!(parse_long("src/index.ts").is_none());
    }
}
