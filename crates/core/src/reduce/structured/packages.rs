//! Lists of installed packages: `apt list`, `dpkg -l`, `pip list` / `pip freeze`.
//!
//! Every package is kept, as `name version`, grouped by what the list says about it (apt's
//! state and architecture `[installed,automatic] amd64`, dpkg's status `ii installed amd64`,
//! pip's distribution type for `--outdated`). A run of packages in a row that share one
//! version (the binary packages of one source: `libc6 libc6-dev libc-bin 2.36-9`) is written
//! with the version once, after the last name. An upgradable package reads `name old -> new`.
//!
//! What goes: apt's `Listing...` and its unstable-CLI warning; dpkg's column legend (the
//! status codes present are spelled out in the group names instead), the `:arch` qualifier
//! of a name (its group names the architecture) and, past [`MAX_DESCRIBED`] packages,
//! dpkg's descriptions (said in the header); pip's table header and update notices are
//! counted by the rule. Any other line is kept as it is.

use super::{Structured, StructuredOutput};

/// Packages kept; past this the rest are counted.
const MAX_PACKAGES: usize = 20_000;
/// Width at which a group's list continues on the next line.
const WRAP: usize = 160;
/// dpkg -l: descriptions are kept for a list of up to this many packages.
const MAX_DESCRIBED: usize = 40;

/// Which tool printed the list.
#[derive(Clone, Copy, Default, PartialEq)]
pub enum Source {
    #[default]
    Apt,
    Dpkg,
    Pip,
}

/// One package line, parsed.
struct Package {
    name: String,
    suite: String,
    version: String,
    /// The version it is upgradable from (apt) or the one installed (pip --outdated).
    from: Option<String>,
    /// dpkg's description; pip's editable project location.
    note: Option<String>,
}

impl Package {
    /// Packages that can share one written version (a shown note is the package's own).
    fn same_version(&self, other: &Package, notes_shown: bool) -> bool {
        self.version == other.version
            && self.from == other.from
            && self.suite == other.suite
            && !(notes_shown && (self.note.is_some() || other.note.is_some()))
    }
}

/// pip list's columns, from its header line.
#[derive(Clone, Copy, PartialEq)]
enum PipColumns {
    /// `Package Version`
    Plain,
    /// `Package Version Latest Type` (--outdated)
    Outdated,
    /// `Package Version Editable project location`
    Editable,
}

#[derive(Default)]
pub struct Packages {
    source: Source,
    /// (group, packages) in the order first seen.
    groups: Vec<(String, Vec<Package>)>,
    other: Vec<String>,
    packages: u64,
    stored: usize,
    filtered: u64,
    pip_columns: Option<PipColumns>,
}

/// `name/suite version arch [state]` → (name, suite, version, arch, state).
fn parse_apt(line: &str) -> Option<(&str, &str, &str, &str, &str)> {
    let mut words = line.splitn(4, ' ');
    let (name, suite) = words.next()?.split_once('/')?;
    let version = words.next()?;
    let arch = words.next()?;
    let state = words.next().unwrap_or("").trim();
    let ok = !name.is_empty()
        && !version.is_empty()
        && !arch.is_empty()
        && (state.is_empty() || (state.starts_with('[') && state.ends_with(']')));
    ok.then_some((name, suite, version, arch, state))
}

/// dpkg's status letters spelled out: desired action, package state, error flag.
fn dpkg_status(code: &str) -> Option<String> {
    let mut c = code.chars();
    let desired = match c.next()? {
        'u' => "unknown",
        'i' => "install",
        'h' => "hold",
        'r' => "remove",
        'p' => "purge",
        _ => return None,
    };
    // an uppercase state letter marks a bad state (dpkg's legend: "uppercase=bad")
    let state = match c.next()?.to_ascii_lowercase() {
        'n' => "not installed",
        'i' => "installed",
        'c' => "config-files",
        'u' => "unpacked",
        'f' => "half-configured",
        'h' => "half-installed",
        'w' => "triggers-awaited",
        't' => "triggers-pending",
        _ => return None,
    };
    let error = match c.next() {
        None => "",
        Some('R') => ", reinst-required",
        Some(_) => return None,
    };
    if c.next().is_some() {
        return None;
    }
    // the usual pairs read as one word
    Some(match (desired, state, error) {
        ("install", "installed", "") => "installed".to_string(),
        ("remove", "config-files", "") => "removed, config-files".to_string(),
        ("hold", "installed", "") => "held".to_string(),
        ("unknown", "not installed", "") => "not installed".to_string(),
        _ => format!("{desired}, {state}{error}"),
    })
}

/// The first whitespace-separated word of `text` and the text after it.
fn next_word(text: &str) -> Option<(&str, &str)> {
    let t = text.trim_start();
    let end = t.find(char::is_whitespace).unwrap_or(t.len());
    (end > 0).then(|| t.split_at(end))
}

/// `ii  name[:arch]  version  arch  description` → (status, name, version, arch, description).
fn parse_dpkg(line: &str) -> Option<(String, &str, &str, &str, &str)> {
    let (code, rest) = next_word(line)?;
    let status = dpkg_status(code)?;
    let (name, rest) = next_word(rest)?;
    let (version, rest) = next_word(rest)?;
    let (arch, rest) = next_word(rest)?;
    let name = name
        .strip_suffix(arch)
        .and_then(|n| n.strip_suffix(':'))
        .unwrap_or(name);
    Some((format!("{code} {status}"), name, version, arch, rest.trim()))
}

/// dpkg's legend above the table.
fn is_dpkg_legend(t: &str) -> bool {
    t.starts_with("Desired=")
        || t.starts_with("| Status=")
        || t.starts_with("|/ Err?=")
        || t.starts_with("||/ Name")
        || t.starts_with("+++-")
}

impl Packages {
    pub fn new(source: Source) -> Self {
        Self {
            source,
            ..Self::default()
        }
    }

    fn add(&mut self, group: String, p: Package) {
        self.packages += 1;
        if self.stored >= MAX_PACKAGES {
            return;
        }
        self.stored += 1;
        match self.groups.iter_mut().find(|(g, _)| *g == group) {
            Some((_, list)) => list.push(p),
            None => self.groups.push((group, vec![p])),
        }
    }

    fn push_apt(&mut self, t: &str) -> bool {
        if t == "Listing..." || t == "Listing... Done" {
            return false;
        }
        if t.starts_with("WARNING: apt does not have a stable CLI interface") {
            return false;
        }
        let Some((name, suite, version, arch, state)) = parse_apt(t) else {
            self.other.push(t.to_string());
            return true;
        };
        // `[upgradable from: OLD]` (--upgradable) and `[installed,upgradable to: NEW]`
        // (--installed): the versions go into the entry, the state keeps only the word
        let from = state
            .strip_prefix("[upgradable from: ")
            .and_then(|s| s.strip_suffix(']'));
        let to = state.find(",upgradable to: ").map(|k| {
            (
                &state[..k],
                state[k + ",upgradable to: ".len()..].trim_end_matches(']'),
            )
        });
        let (state, version, from) = match (from, to) {
            (Some(old), _) => ("[upgradable]".to_string(), version, Some(old)),
            (None, Some((head, new))) => (format!("{head},upgradable]"), new, Some(version)),
            (None, None) => (state.to_string(), version, None),
        };
        let group = if state.is_empty() {
            arch.to_string()
        } else {
            format!("{state} {arch}")
        };
        let p = Package {
            name: name.to_string(),
            suite: suite.to_string(),
            version: version.to_string(),
            from: from.map(str::to_string),
            note: None,
        };
        self.add(group, p);
        true
    }

    fn push_dpkg(&mut self, t: &str) -> bool {
        if is_dpkg_legend(t) {
            return false;
        }
        let Some((status, name, version, arch, description)) = parse_dpkg(t) else {
            self.other.push(t.to_string());
            return true;
        };
        let p = Package {
            name: name.to_string(),
            suite: String::new(),
            version: version.to_string(),
            from: None,
            note: (!description.is_empty() && description != "(no description available)")
                .then(|| description.to_string()),
        };
        // a package dpkg knows of but never installed has `<none>` for both
        let group = match arch {
            "<none>" => status,
            _ => format!("{status} {arch}"),
        };
        self.add(group, p);
        true
    }

    fn push_pip(&mut self, t: &str) -> bool {
        let words: Vec<&str> = t.split_whitespace().collect();
        if words.first() == Some(&"Package") && words.get(1) == Some(&"Version") {
            self.pip_columns = match &words[2..] {
                [] => Some(PipColumns::Plain),
                ["Latest", "Type"] => Some(PipColumns::Outdated),
                ["Editable", "project", "location"] => Some(PipColumns::Editable),
                _ => None,
            };
            if self.pip_columns.is_some() {
                return false;
            }
        }
        if self.pip_columns.is_some() && !t.is_empty() && t.chars().all(|c| c == '-' || c == ' ') {
            return false;
        }
        let package = |name: &str, version: &str| Package {
            name: name.to_string(),
            suite: String::new(),
            version: version.to_string(),
            from: None,
            note: None,
        };
        // `pip freeze`: `name==version`
        if let [one] = words[..] {
            if let Some((name, version)) = one.split_once("==") {
                if !name.is_empty() && !version.is_empty() {
                    self.add(String::new(), package(name, version));
                    return true;
                }
            }
        }
        match (self.pip_columns, &words[..]) {
            (Some(_), [name, version]) => self.add(String::new(), package(name, version)),
            (Some(PipColumns::Outdated), [name, version, latest, kind]) => {
                let mut p = package(name, latest);
                p.from = Some(version.to_string());
                self.add(format!("outdated {kind}"), p);
            }
            (Some(PipColumns::Editable), [name, version, ..]) => {
                let mut p = package(name, version);
                let location = next_word(t)
                    .and_then(|(_, rest)| next_word(rest))
                    .map_or("", |(_, rest)| rest.trim());
                p.note = Some(format!("editable {location}"));
                self.add(String::new(), p);
            }
            _ => self.other.push(t.to_string()),
        }
        true
    }

    /// The header line: what the list holds and how it is written.
    fn header(&self, base_suite: &str, many_suites: bool, described: bool) -> String {
        let mut h = format!(
            "{} packages (name version; names in a row that share a version have it once, after the last)",
            self.packages
        );
        match self.source {
            Source::Apt => {
                h.push_str(", by state and architecture; suite ");
                h.push_str(base_suite);
                h.push_str(if many_suites {
                    " unless shown"
                } else {
                    " for all"
                });
            }
            Source::Dpkg => {
                h.push_str(", by dpkg status and architecture");
                if !described {
                    h.push_str("; descriptions not shown (`dpkg -l NAME` shows one)");
                }
            }
            Source::Pip => {}
        }
        h
    }
}

impl Structured for Packages {
    fn push(&mut self, line: &str) {
        let t = line.trim_end();
        if t.is_empty() {
            return;
        }
        let kept = match self.source {
            Source::Apt => self.push_apt(t),
            Source::Dpkg => self.push_dpkg(t),
            Source::Pip => self.push_pip(t),
        };
        self.filtered += u64::from(!kept);
    }

    fn finish(self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        if self.packages == 0 {
            return None;
        }
        // the suite most packages come from is said once; the others' follow their package
        let mut suites: Vec<(&str, usize)> = Vec::new();
        for p in self.groups.iter().flat_map(|(_, l)| l) {
            match suites.iter_mut().find(|(s, _)| *s == p.suite) {
                Some(s) => s.1 += 1,
                None => suites.push((&p.suite, 1)),
            }
        }
        let base = suites
            .iter()
            .max_by_key(|(_, n)| *n)
            .map_or("", |(s, _)| *s);
        let described = self.source != Source::Dpkg || self.stored <= MAX_DESCRIBED;
        let mut lines = self.other.clone();
        lines.push(self.header(base, suites.len() > 1, described));
        for (group, list) in &self.groups {
            // a continued line is indented under a group's name
            let indent = if group.is_empty() { "" } else { "  " };
            let mut line = if group.is_empty() {
                String::new()
            } else {
                format!("{group} ({}):", list.len())
            };
            let mut has_entries = false;
            let mut i = 0;
            while i < list.len() {
                let p = &list[i];
                if let (true, Some(note)) = (described, &p.note) {
                    // a described package has a line of its own
                    if !line.trim().is_empty() {
                        lines.push(line);
                    }
                    lines.push(match p.version.as_str() {
                        "<none>" => format!("  {}: {note}", p.name),
                        v => format!("  {} {v}: {note}", p.name),
                    });
                    (line, has_entries) = (indent.to_string(), false);
                    i += 1;
                    continue;
                }
                let mut run = i + 1;
                while run < list.len() && list[run].same_version(p, described) {
                    run += 1;
                }
                let mut e = list[i..run]
                    .iter()
                    .map(|q| q.name.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                match &p.from {
                    Some(old) => e.push_str(&format!(" {old} -> {}", p.version)),
                    None if p.version == "<none>" => {}
                    None => e.push_str(&format!(" {}", p.version)),
                }
                if p.suite != base {
                    e.push_str(&format!(" ({})", p.suite));
                }
                if has_entries && line.len() + e.len() > WRAP {
                    lines.push(line);
                    (line, has_entries) = (indent.to_string(), false);
                }
                if has_entries {
                    line.push_str(", ");
                } else if line.ends_with(':') {
                    line.push(' ');
                }
                line.push_str(&e);
                has_entries = true;
                i = run;
            }
            if has_entries {
                lines.push(line);
            }
        }
        let omitted = self.packages - self.stored as u64;
        if omitted > 0 {
            lines.push(format!("… {omitted} more packages not shown"));
        }
        let name = match self.source {
            Source::Apt => "apt-list",
            Source::Dpkg => "dpkg-list",
            Source::Pip => "pip-list",
        };
        Some(StructuredOutput {
            name,
            lines,
            facts: vec![("package".into(), self.packages)],
            omitted,
            filtered: self.filtered,
            facts_line: false,
            json_cut: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(source: Source, text: &str) -> Option<StructuredOutput> {
        crate::reduce::structured::feed(Box::new(Packages::new(source)), text, 0)
    }

    const RUN_NOTE: &str =
        "(name version; names in a row that share a version have it once, after the last)";

    #[test]
    fn apt_every_package_grouped_by_state() {
        let out = run(
            Source::Apt,
            "Listing...\n\
            adduser/oldstable,now 3.134 all [installed,automatic]\n\
            apt/oldstable,now 2.6.1 amd64 [installed]\n\
            bash/oldstable,now 5.2.15-2+b8 amd64 [installed,upgradable to: 5.2.15-2+b13]\n\
            bash/oldstable,now 5.2.15-2+b8 amd64 [installed,automatic]\n\
            \n\
            WARNING: apt does not have a stable CLI interface. Use with caution in scripts.\n",
        )
        .unwrap();
        assert_eq!(
            out.lines,
            vec![
                format!(
                    "4 packages {RUN_NOTE}, by state and architecture; suite oldstable,now for all"
                ),
                "[installed,automatic] all (1): adduser 3.134".into(),
                "[installed] amd64 (1): apt 2.6.1".into(),
                "[installed,upgradable] amd64 (1): bash 5.2.15-2+b8 -> 5.2.15-2+b13".into(),
                "[installed,automatic] amd64 (1): bash 5.2.15-2+b8".into(),
            ]
        );
        assert_eq!(out.facts, vec![("package".to_string(), 4)]);
        assert_eq!(out.filtered, 2);
    }

    #[test]
    fn apt_upgradable_and_mixed_suites() {
        let out = run(
            Source::Apt,
            "base-files/oldstable 12.4+deb12u15 amd64 [upgradable from: 12.4+deb12u11]\n\
            jq/oldstable-security 1.6-2.1+deb12u3 amd64 [upgradable from: 1.6-2.1+deb12u1]\n\
            libjq1/oldstable-security 1.6-2.1+deb12u3 amd64 [upgradable from: 1.6-2.1+deb12u1]\n\
            sed/oldstable 4.9-1+deb12u1 amd64 [upgradable from: 4.9-1]\n\
            zlib1g/oldstable 1:1.2.13 amd64 [upgradable from: 1:1.2.12]\n",
        )
        .unwrap();
        assert_eq!(
            out.lines,
            vec![
                format!("5 packages {RUN_NOTE}, by state and architecture; suite oldstable unless shown"),
                "[upgradable] amd64 (5): base-files 12.4+deb12u11 -> 12.4+deb12u15, jq libjq1 1.6-2.1+deb12u1 -> 1.6-2.1+deb12u3 (oldstable-security), sed 4.9-1 -> 4.9-1+deb12u1".into(),
                "  zlib1g 1:1.2.12 -> 1:1.2.13".into(),
            ]
        );
    }

    #[test]
    fn a_run_sharing_a_version_writes_it_once_and_only_adjacent_names_join() {
        let out = run(
            Source::Apt,
            "libc-bin/now 2.36-9 amd64 [installed]\n\
            libc6/now 2.36-9 amd64 [installed]\n\
            libcap2/now 1:2.66-4 amd64 [installed]\n\
            libc6-dev/now 2.36-9 amd64 [installed]\n",
        )
        .unwrap();
        assert_eq!(
            out.lines[1],
            "[installed] amd64 (4): libc-bin libc6 2.36-9, libcap2 1:2.66-4, libc6-dev 2.36-9"
        );
    }

    #[test]
    fn apt_long_groups_wrap_and_keep_every_name() {
        let text: String = (0..60)
            .map(|i| format!("pkg{i}/now 1.{i} amd64 [installed]\n"))
            .collect();
        let out = run(Source::Apt, &text).unwrap();
        assert!(out.lines.len() > 3, "{:?}", out.lines);
        assert!(out.lines.iter().all(|l| l.len() <= WRAP + 20));
        let all = out.lines.join("\n");
        for i in 0..60 {
            assert!(all.contains(&format!("pkg{i} 1.{i}")), "pkg{i}");
        }
    }

    #[test]
    fn not_a_package_list() {
        assert!(run(Source::Apt, "E: Invalid operation lst\n").is_none());
        assert!(run(
            Source::Dpkg,
            "dpkg-query: no packages found matching nope\n"
        )
        .is_none());
        assert!(run(Source::Pip, "ERROR: unknown command \"lst\"\n").is_none());
    }

    const DPKG_HEAD: &str = "Desired=Unknown/Install/Remove/Purge/Hold\n\
        | Status=Not/Inst/Conf-files/Unpacked/halF-conf/Half-inst/trig-aWait/Trig-pend\n\
        |/ Err?=(none)/Reinst-required (Status,Err: uppercase=bad)\n\
        ||/ Name           Version      Architecture Description\n\
        +++-==============-============-============-=================================\n";

    #[test]
    fn dpkg_small_list_keeps_descriptions_and_spells_out_the_status() {
        let text = format!(
            "{DPKG_HEAD}\
            ii  adduser        3.134        all          add and remove users and groups\n\
            ii  libc6:amd64    2.36-9       amd64        GNU C Library: Shared libraries\n\
            rc  oldpkg         1.0-1        amd64        a removed package\n\
            hi  pinned         2.0          amd64        held at this version\n\
            un  ghost          <none>       <none>       (no description available)\n"
        );
        let out = run(Source::Dpkg, &text).unwrap();
        assert_eq!(
            out.lines,
            vec![
                format!("5 packages {RUN_NOTE}, by dpkg status and architecture"),
                "ii installed all (1):".into(),
                "  adduser 3.134: add and remove users and groups".into(),
                "ii installed amd64 (1):".into(),
                "  libc6 2.36-9: GNU C Library: Shared libraries".into(),
                "rc removed, config-files amd64 (1):".into(),
                "  oldpkg 1.0-1: a removed package".into(),
                "hi held amd64 (1):".into(),
                "  pinned 2.0: held at this version".into(),
                "un not installed (1): ghost".into(),
            ]
        );
        assert_eq!(out.filtered, 5);
    }

    #[test]
    fn dpkg_long_list_says_its_descriptions_are_not_shown() {
        let mut text = DPKG_HEAD.to_string();
        for i in 0..50 {
            text.push_str(&format!(
                "ii  lib{i}:amd64  1.{}  amd64  library {i}\n",
                i / 2
            ));
        }
        let out = run(Source::Dpkg, &text).unwrap();
        assert!(out.lines[0].ends_with("; descriptions not shown (`dpkg -l NAME` shows one)"));
        assert!(out.lines[1].starts_with("ii installed amd64 (50): lib0 lib1 1.0, lib2 lib3 1.1"));
        let all = out.lines.join("\n");
        assert!(!all.contains("library"));
        for i in 0..50 {
            assert!(all.contains(&format!("lib{i} ")), "lib{i}");
        }
    }

    #[test]
    fn dpkg_unknown_status_letters_are_kept_as_lines() {
        let out = run(
            Source::Dpkg,
            "ii  a  1  all  x\nzz  b  2  all  y\niUR  c  3  amd64  z\n",
        )
        .unwrap();
        assert_eq!(out.lines[0], "zz  b  2  all  y");
        assert!(
            out.lines
                .contains(&"iUR install, unpacked, reinst-required amd64 (1):".to_string()),
            "{:?}",
            out.lines
        );
    }

    #[test]
    fn pip_list_freeze_and_outdated() {
        let out = run(
            Source::Pip,
            "Package    Version\n---------- -------\nattrs      26.1.0\nboto3      1.43.11\nbotocore   1.43.11\n",
        )
        .unwrap();
        assert_eq!(
            out.lines,
            vec![
                format!("3 packages {RUN_NOTE}"),
                "attrs 26.1.0, boto3 botocore 1.43.11".into()
            ]
        );
        assert_eq!(out.filtered, 2);

        let out = run(
            Source::Pip,
            "attrs==26.1.0\n-e git+https://x/y#egg=y\nsix==1.17.0\n",
        )
        .unwrap();
        assert_eq!(
            out.lines,
            vec![
                "-e git+https://x/y#egg=y".to_string(),
                format!("2 packages {RUN_NOTE}"),
                "attrs 26.1.0, six 1.17.0".into()
            ]
        );

        let out = run(
            Source::Pip,
            "Package  Version Latest Type\n-------- ------- ------ -----\nattrs    25.0    26.1.0 wheel\nfoo      1.0     2.0    sdist\n",
        )
        .unwrap();
        assert_eq!(
            out.lines[1..],
            [
                "outdated wheel (1): attrs 25.0 -> 26.1.0",
                "outdated sdist (1): foo 1.0 -> 2.0"
            ]
        );
    }

    #[test]
    fn pip_editable_location_is_kept() {
        let out = run(
            Source::Pip,
            "Package Version Editable project location\n------- ------- -------------------------\nmine    0.1.0   /home/me/src/my project\nsix     1.17.0\n",
        )
        .unwrap();
        assert_eq!(
            out.lines[1..],
            [
                "  mine 0.1.0: editable /home/me/src/my project",
                "six 1.17.0"
            ]
        );
    }
}
