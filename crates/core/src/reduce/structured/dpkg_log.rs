//! dpkg's log (`/var/log/dpkg.log`, read with `tail`, `head` or `grep`).
//!
//! Each line is `DATE TIME KIND …` (dpkg(1), "dpkg.log"): `startup archives|packages ACTION`
//! opens a run; `install|upgrade|remove|purge|configure|trigproc PKG OLD NEW` says what was
//! done; `status STATE PKG VERSION` follows a package through dpkg's states
//! (half-installed, unpacked, half-configured, …); `conffile FILE DECISION` records a
//! configuration-file decision.
//!
//! Every package of a run is said once, grouped with the others that had the same actions
//! and ended in the same state: `remove → not-installed (6): a 1.0, b c 2.1`. The states it
//! passed through on the way are dropped (counted); a package left in a state other than the
//! ends of dpkg's work (installed, config-files, not-installed) shows that state, so a
//! broken install stands out. Each run keeps its start line and the time it ended; the
//! second at which each package moved within a run is dropped. Conffile decisions and lines
//! in no known form stay as they are, in place.

use super::{Structured, StructuredOutput};

/// Lines kept at most; the rest are counted.
const MAX_LINES: usize = 2_000;

#[derive(Default)]
pub struct DpkgLog {
    runs: Vec<Run>,
    recognized: u64,
    other: u64,
    lines: u64,
    filtered: u64,
}

#[derive(Default)]
struct Run {
    /// `DATE TIME startup …`, or the first line's time when the output has no start line for
    /// it (it starts inside a run, or `grep` left the start lines out).
    start: String,
    started_inside: bool,
    date: String,
    end_time: String,
    /// Packages and kept lines, in order of first appearance.
    items: Vec<Item>,
}

enum Item {
    Package(Package),
    Line(String),
}

struct Package {
    name: String,
    actions: Vec<String>,
    /// Versions named by install/upgrade (`old`, `new`), else by the first action or status.
    from: Option<String>,
    to: Option<String>,
    state: Option<String>,
    state_version: Option<String>,
}

impl Package {
    fn version(&self) -> String {
        match (&self.from, &self.to) {
            (Some(f), Some(t)) if f != t => format!("{f} -> {t}"),
            (_, Some(t)) => t.clone(),
            (Some(f), None) => f.clone(),
            (None, None) => self.state_version.clone().unwrap_or_default(),
        }
    }

    fn key(&self) -> String {
        let mut k = if self.actions.is_empty() {
            "status".to_string()
        } else {
            self.actions.join(" + ")
        };
        if let Some(s) = &self.state {
            k.push_str(" → ");
            k.push_str(s);
        }
        k
    }
}

const ACTIONS: &[&str] = &[
    "install",
    "upgrade",
    "remove",
    "purge",
    "configure",
    "trigproc",
];

/// `s` has the shape of `pattern`, where each `0` stands for a digit (`0000-00-00`).
fn shaped(s: &str, pattern: &str) -> bool {
    s.len() == pattern.len()
        && s.bytes().zip(pattern.bytes()).all(|(c, p)| match p {
            b'0' => c.is_ascii_digit(),
            _ => c == p,
        })
}

fn is_date(s: &str) -> bool {
    shaped(s, "0000-00-00")
}

fn is_time(s: &str) -> bool {
    shaped(s, "00:00:00")
}

/// Lines without a run start more than this apart belong to different runs.
const GAP_SECONDS: u32 = 300;

/// `HH:MM:SS` as seconds of the day (0 for anything else).
fn seconds(t: &str) -> u32 {
    let mut it = t.split(':').map(|p| p.parse::<u32>().unwrap_or(0));
    let (h, m, s) = (
        it.next().unwrap_or(0),
        it.next().unwrap_or(0),
        it.next().unwrap_or(0),
    );
    h * 3600 + m * 60 + s
}

fn version(v: &str) -> Option<String> {
    (v != "<none>" && !v.is_empty()).then(|| v.to_string())
}

impl DpkgLog {
    /// The run a line of `date` `time` belongs to: the current one, or a new one without a
    /// start line when there is none, the date changed, or (in such a run: `grep` output)
    /// more than five minutes passed.
    fn run(&mut self, date: &str, time: &str) -> &mut Run {
        let new = match self.runs.last() {
            None => true,
            Some(r) => {
                r.date != date
                    || r.started_inside
                        && seconds(time).saturating_sub(seconds(&r.end_time)) > GAP_SECONDS
            }
        };
        if new {
            self.runs.push(Run {
                start: format!("{date} {time}"),
                started_inside: true,
                date: date.to_string(),
                ..Run::default()
            });
        }
        let run = self.runs.last_mut().expect("a run was just made");
        run.end_time = time.to_string();
        run
    }

    fn package<'a>(run: &'a mut Run, name: &str) -> &'a mut Package {
        let at = run
            .items
            .iter()
            .rposition(|i| matches!(i, Item::Package(p) if p.name == name));
        let at = match at {
            Some(at) => at,
            None => {
                run.items.push(Item::Package(Package {
                    name: name.to_string(),
                    actions: Vec::new(),
                    from: None,
                    to: None,
                    state: None,
                    state_version: None,
                }));
                run.items.len() - 1
            }
        };
        match &mut run.items[at] {
            Item::Package(p) => p,
            Item::Line(_) => unreachable!("position found a package"),
        }
    }
}

impl Structured for DpkgLog {
    fn push(&mut self, line: &str) {
        self.lines += 1;
        let mut parts = line.splitn(4, ' ');
        let (Some(date), Some(time), Some(kind)) = (parts.next(), parts.next(), parts.next())
        else {
            self.keep_other(line);
            return;
        };
        let rest = parts.next().unwrap_or("");
        if !is_date(date) || !is_time(time) {
            self.keep_other(line);
            return;
        }
        let words: Vec<&str> = rest.split(' ').collect();
        match kind {
            "startup" => {
                self.recognized += 1;
                self.runs.push(Run {
                    start: line.to_string(),
                    date: date.to_string(),
                    end_time: time.to_string(),
                    ..Run::default()
                });
            }
            "status" if words.len() == 3 => {
                self.recognized += 1;
                // the states on the way are dropped; the last one is kept
                let run = self.run(date, time);
                let p = Self::package(run, words[1]);
                let replaced = p.state.is_some();
                p.state = Some(words[0].to_string());
                if p.state_version.is_none() {
                    p.state_version = version(words[2]);
                }
                if replaced {
                    self.filtered += 1;
                }
            }
            k if ACTIONS.contains(&k) && words.len() == 3 => {
                self.recognized += 1;
                let run = self.run(date, time);
                let p = Self::package(run, words[0]);
                if p.actions.last().map(String::as_str) != Some(k) {
                    p.actions.push(k.to_string());
                }
                let (old, new) = (version(words[1]), version(words[2]));
                match k {
                    "install" | "upgrade" => {
                        if p.from.is_none() && p.to.is_none() {
                            p.from = old;
                        }
                        p.to = new.or(p.to.take());
                    }
                    _ => {
                        if p.from.is_none() && p.to.is_none() {
                            p.from = old.or(new);
                        }
                    }
                }
            }
            "conffile" => {
                self.recognized += 1;
                let run = self.run(date, time);
                run.items.push(Item::Line(format!("{kind} {rest}")));
            }
            _ => self.keep_other(line),
        }
    }

    fn finish(self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        // a dpkg log: most lines in its form
        if self.recognized < 4 || self.recognized * 10 < self.lines * 8 {
            return None;
        }
        let mut out: Vec<String> = Vec::new();
        // the architecture most packages have is said once, not after each name
        let mut archs: Vec<(&str, usize)> = Vec::new();
        let mut packages = 0;
        for run in &self.runs {
            for item in &run.items {
                if let Item::Package(p) = item {
                    packages += 1;
                    if let Some((_, a)) = p.name.rsplit_once(':') {
                        match archs.iter_mut().find(|(n, _)| *n == a) {
                            Some(c) => c.1 += 1,
                            None => archs.push((a, 1)),
                        }
                    }
                }
            }
        }
        let arch = archs
            .iter()
            .max_by_key(|(_, n)| *n)
            .filter(|(_, n)| *n * 2 > packages && packages >= 4)
            .map(|(a, _)| format!(":{a}"));
        if let Some(a) = &arch {
            out.push(format!(
                "(packages are {a} unless another architecture is shown)"
            ));
        }
        let arch = arch.as_deref();
        let mut counts: Vec<(String, u64)> = Vec::new();
        for run in &self.runs {
            let ended = if run.end_time.is_empty() || run.start.contains(&run.end_time) {
                String::new()
            } else {
                format!(" (to {})", run.end_time)
            };
            if run.started_inside {
                out.push(format!("{}{ended} (no run start line here)", run.start));
            } else {
                out.push(format!("{}{ended}", run.start));
            }
            // groups by actions and final state, in order of first appearance; a kept line
            // ends the groups before it (so it stays in place)
            let mut groups: Vec<(String, Vec<&Package>)> = Vec::new();
            let flush = |groups: &mut Vec<(String, Vec<&Package>)>, out: &mut Vec<String>| {
                for (key, pkgs) in groups.drain(..) {
                    out.push(format!(
                        "  {key} ({}): {}",
                        pkgs.len(),
                        names_with_versions(&pkgs, arch)
                    ));
                }
            };
            for item in &run.items {
                match item {
                    Item::Package(p) => {
                        for a in &p.actions {
                            match counts.iter_mut().find(|(n, _)| n == a) {
                                Some(c) => c.1 += 1,
                                None => counts.push((a.clone(), 1)),
                            }
                        }
                        let key = p.key();
                        match groups.iter_mut().find(|(k, _)| *k == key) {
                            Some(g) => g.1.push(p),
                            None => groups.push((key, vec![p])),
                        }
                    }
                    Item::Line(l) => {
                        flush(&mut groups, &mut out);
                        out.push(format!("  {l}"));
                    }
                }
            }
            flush(&mut groups, &mut out);
        }
        let mut omitted = 0;
        // a log's latest runs matter most: the cut is in the middle, a quarter kept before it
        if out.len() > MAX_LINES {
            omitted = (out.len() - MAX_LINES) as u64;
            let from = MAX_LINES / 4;
            out.splice(
                from..from + omitted as usize,
                [format!("... {omitted} more lines not shown ...")],
            );
        }
        let facts = counts
            .into_iter()
            .map(|(a, n)| (format!("package {a}"), n))
            .collect();
        Some(StructuredOutput {
            name: "dpkg-log",
            lines: out,
            facts,
            omitted,
            filtered: self.filtered,
            facts_line: false,
            json_cut: false,
        })
    }
}

impl DpkgLog {
    fn keep_other(&mut self, line: &str) {
        self.other += 1;
        if line.trim().is_empty() {
            self.filtered += 1;
            return;
        }
        match self.runs.last_mut() {
            Some(run) => run.items.push(Item::Line(line.to_string())),
            None => self.runs.push(Run {
                start: line.to_string(),
                ..Run::default()
            }),
        }
    }
}

/// `a b 1.0, c 2.0`: names in a row with the same version have it once, after the last.
fn names_with_versions(pkgs: &[&Package], arch: Option<&str>) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    let mut current: Option<String> = None;
    for p in pkgs {
        let v = p.version();
        if current.as_ref().is_some_and(|c| *c != v) {
            parts.push(join(&names, current.as_deref()));
            names.clear();
        }
        names.push(arch.and_then(|a| p.name.strip_suffix(a)).unwrap_or(&p.name));
        current = Some(v);
    }
    if !names.is_empty() {
        parts.push(join(&names, current.as_deref()));
    }
    parts.join(", ")
}

fn join(names: &[&str], version: Option<&str>) -> String {
    match version.filter(|v| !v.is_empty()) {
        Some(v) => format!("{} {v}", names.join(" ")),
        None => names.join(" "),
    }
}

#[cfg(test)]
mod tests {
    use super::super::feed;
    use super::*;

    const LOG: &str = "\
2026-09-22 04:51:07 startup packages remove
2026-09-22 04:51:07 status installed libobjc4:amd64 12.2.0-14+deb12u1
2026-09-22 04:51:07 remove libobjc4:amd64 12.2.0-14+deb12u1 <none>
2026-09-22 04:51:07 status half-configured libobjc4:amd64 12.2.0-14+deb12u1
2026-09-22 04:51:07 status half-installed libobjc4:amd64 12.2.0-14+deb12u1
2026-09-22 04:51:08 status config-files libobjc4:amd64 12.2.0-14+deb12u1
2026-09-22 04:51:08 status not-installed libobjc4:amd64 <none>
2026-09-22 04:51:08 status installed libgc1:amd64 1:8.2.2-3
2026-09-22 04:51:08 remove libgc1:amd64 1:8.2.2-3 <none>
2026-09-22 04:51:08 status not-installed libgc1:amd64 <none>
2026-09-22 04:51:09 startup archives unpack
2026-09-22 04:51:09 upgrade libc6:amd64 2.36-9+deb12u13 2.36-9+deb12u14
2026-09-22 04:51:09 status half-configured libc6:amd64 2.36-9+deb12u13
2026-09-22 04:51:09 status unpacked libc6:amd64 2.36-9+deb12u14
2026-09-22 04:51:09 install jq:amd64 <none> 1.6-2.1
2026-09-22 04:51:09 status half-installed jq:amd64 1.6-2.1
2026-09-22 04:51:09 status unpacked jq:amd64 1.6-2.1
2026-09-22 04:51:10 conffile /etc/ld.so.conf keep
2026-09-22 04:51:11 startup packages configure
2026-09-22 04:51:11 configure libc6:amd64 2.36-9+deb12u14 <none>
2026-09-22 04:51:11 status half-configured libc6:amd64 2.36-9+deb12u14
2026-09-22 04:51:11 status installed libc6:amd64 2.36-9+deb12u14
2026-09-22 04:51:11 configure jq:amd64 1.6-2.1 <none>
2026-09-22 04:51:12 status half-configured jq:amd64 1.6-2.1
";

    #[test]
    fn each_package_once_per_run_with_its_actions_versions_and_last_state() {
        let out = feed(Box::<DpkgLog>::default(), LOG, 0).unwrap();
        assert_eq!(
            out.lines,
            vec![
                "(packages are :amd64 unless another architecture is shown)",
                "2026-09-22 04:51:07 startup packages remove (to 04:51:08)",
                "  remove → not-installed (2): libobjc4 12.2.0-14+deb12u1, libgc1 1:8.2.2-3",
                "2026-09-22 04:51:09 startup archives unpack (to 04:51:10)",
                "  upgrade → unpacked (1): libc6 2.36-9+deb12u13 -> 2.36-9+deb12u14",
                "  install → unpacked (1): jq 1.6-2.1",
                "  conffile /etc/ld.so.conf keep",
                "2026-09-22 04:51:11 startup packages configure (to 04:51:12)",
                // a package left half-configured says so
                "  configure → installed (1): libc6 2.36-9+deb12u14",
                "  configure → half-configured (1): jq 1.6-2.1",
            ]
        );
        // every status line but each package's last in its run is counted as dropped
        assert_eq!(out.filtered, 8);
        assert!(out.facts.contains(&("package remove".into(), 2)));
        assert!(out.facts.contains(&("package configure".into(), 2)));
    }

    #[test]
    fn a_tail_that_starts_inside_a_run_says_so_and_other_lines_stay() {
        let text = "\
2026-09-22 04:51:08 status config-files libobjc4:amd64 12.2.0-14+deb12u1
2026-09-22 04:51:08 status not-installed libobjc4:amd64 <none>
2026-09-22 04:51:08 status installed libgc1:amd64 1:8.2.2-3
2026-09-22 04:51:08 remove libgc1:amd64 1:8.2.2-3 <none>
2026-09-22 04:51:08 status not-installed libgc1:amd64 <none>
dpkg: warning: something odd
";
        let out = feed(Box::<DpkgLog>::default(), text, 0).unwrap();
        assert_eq!(
            out.lines,
            vec![
                "2026-09-22 04:51:08 (no run start line here)",
                "  status → not-installed (1): libobjc4:amd64 12.2.0-14+deb12u1",
                "  remove → not-installed (1): libgc1:amd64 1:8.2.2-3",
                "  dpkg: warning: something odd",
            ]
        );
    }

    #[test]
    fn grep_output_without_run_starts_is_split_by_day_and_by_pauses() {
        let text = "\
2026-09-20 10:00:01 install jq:amd64 <none> 1.6-2.1
2026-09-20 10:00:02 install curl:amd64 <none> 7.88.1-10
2026-09-20 14:30:00 install git:amd64 <none> 1:2.39.5-0
2026-09-21 09:00:00 install make:all <none> 4.3-4.1
";
        let out = feed(Box::<DpkgLog>::default(), text, 0).unwrap();
        assert_eq!(
            out.lines,
            vec![
                "(packages are :amd64 unless another architecture is shown)",
                "2026-09-20 10:00:01 (to 10:00:02) (no run start line here)",
                "  install (2): jq 1.6-2.1, curl 7.88.1-10",
                "2026-09-20 14:30:00 (no run start line here)",
                "  install (1): git 1:2.39.5-0",
                "2026-09-21 09:00:00 (no run start line here)",
                "  install (1): make:all 4.3-4.1",
            ]
        );
    }

    #[test]
    fn a_long_log_is_cut_in_the_middle_so_its_latest_runs_stay() {
        // 1,200 runs of one package each: two lines said per run, more than the 2,000 kept
        let mut text = String::new();
        for i in 0..1200 {
            let (day, hour, min) = (1 + i / 48, (i % 48) / 2, (i % 2) * 30);
            let at = format!(
                "2026-{:02}-{:02} {hour:02}:{min:02}",
                1 + day / 28,
                1 + day % 28
            );
            text.push_str(&format!("{at}:00 startup archives unpack\n"));
            text.push_str(&format!("{at}:01 install pkg{i}:amd64 <none> 1.{i}\n"));
            text.push_str(&format!("{at}:02 status installed pkg{i}:amd64 1.{i}\n"));
        }
        let out = feed(Box::<DpkgLog>::default(), &text, 0).unwrap();
        let t = out.lines.join("\n");
        assert!(out.omitted > 0, "{t}");
        assert!(t.contains("pkg0 1.0"), "{t}");
        assert!(
            t.contains(&format!("... {} more lines not shown ...", out.omitted)),
            "{t}"
        );
        assert!(t.ends_with("pkg1199 1.1199"), "{t}");
    }

    #[test]
    fn other_text_is_not_taken_for_a_log() {
        assert!(feed(
            Box::<DpkgLog>::default(),
            "hello\nworld\nfoo\nbar\nbaz\n",
            0
        )
        .is_none());
    }
}
