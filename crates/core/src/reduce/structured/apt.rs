//! `apt`/`apt-get` install, remove and upgrade.
//!
//! Kept verbatim: the package lists (`The following NEW packages will be installed:`
//! and the indented names under it), the counts line, download and disk sizes,
//! `E:`/`W:` messages, dpkg errors, config-file notes and every error/warning line.
//! `Setting up pkg:arch (version) ...` lines fold into one `Set up (N): pkg version, …`
//! line (likewise `Removing`, and the simulated `Inst`/`Remv` lines of `-s`); names that
//! share a version (a source package's binaries) are listed together, the version said once
//! after them, when that saves more than its note costs. A list of
//! eight or more names that all appear in such a line is not written twice: its header
//! gives the count and points there.
//! Download (`Get:`), unpack, database progress, trigger lines and the chatter of
//! maintainer scripts are dropped and counted. A very long output keeps its first 600
//! and last 200 lines (where dpkg says what failed) and the error lines between them.

use super::kept::Kept;
use super::{Structured, StructuredOutput};
use crate::reduce::signal::{self, Level};
use crate::reduce::text::clip_line;

/// Lines kept (besides the folded lists) from the start of a long output, from its end
/// (`E: Sub-process /usr/bin/dpkg returned an error code`), and error and warning lines
/// between them.
const MAX_HEAD: usize = 600;
const MAX_TAIL: usize = 200;
const MAX_MIDDLE: usize = 100;
/// Entries per folded list at most; the rest are counted.
const MAX_ITEMS: usize = 5000;

#[derive(Default)]
struct Folded {
    at: Option<usize>,
    items: Vec<String>,
    count: u64,
}

impl Folded {
    fn add(&mut self, at: usize, item: String) {
        self.at.get_or_insert(at);
        self.count += 1;
        if self.items.len() < MAX_ITEMS {
            self.items.push(item);
        }
    }

    fn line(&self, label: &str) -> String {
        let mut s = match by_version(&self.items) {
            Some(groups) => format!(
                "{label} ({}; names sharing a version are listed together, the version after them): {}",
                self.count,
                groups.join(", ")
            ),
            None => format!("{label} ({}): {}", self.count, self.items.join(", ")),
        };
        let more = self.count - self.items.len() as u64;
        if more > 0 {
            s.push_str(&format!(", … (+{more} more)"));
        }
        s
    }
}

/// `name version` items grouped by version, in the order each version first comes, each
/// group's names in their own order: `libpam0g libpam-modules 1.5.2-6+deb12u2` (a source
/// package's binaries share its version). `None` when an item is not `name version` (an
/// upgrade `old -> new`, a name alone) or when grouping would save less than the note that
/// explains it costs.
fn by_version(items: &[String]) -> Option<Vec<String>> {
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for it in items {
        let (name, ver) = it.split_once(' ')?;
        if ver.contains(' ') {
            return None;
        }
        match groups.iter_mut().find(|(v, _)| *v == ver) {
            Some((_, names)) => names.push(name),
            None => groups.push((ver, vec![name])),
        }
    }
    // each folded version saves about four tokens; the note costs about fifteen
    if items.len() < groups.len() + 5 {
        return None;
    }
    Some(
        groups
            .into_iter()
            .map(|(v, names)| format!("{} {v}", names.join(" ")))
            .collect(),
    )
}

pub struct Apt {
    /// The lines kept; a fold's summary goes at the place in the head recorded for it.
    lines: Kept,
    set_up: Folded,
    removed: Folded,
    inst: Folded,
    remv: Folded,
    in_list: bool,
    in_dpkg: bool,
    filtered: u64,
    recognized: u64,
}

impl Default for Apt {
    fn default() -> Self {
        Apt {
            lines: Kept::new(MAX_HEAD, MAX_TAIL, MAX_MIDDLE),
            set_up: Folded::default(),
            removed: Folded::default(),
            inst: Folded::default(),
            remv: Folded::default(),
            in_list: false,
            in_dpkg: false,
            filtered: 0,
            recognized: 0,
        }
    }
}

const NOISE: &[&str] = &[
    "Reading package lists",
    "Building dependency tree",
    "Reading state information",
    "Calculating upgrade",
    "Get:",
    "Hit:",
    "Ign:",
    "Fetched ",
    "Selecting previously unselected package ",
    "(Reading database ...",
    "Preparing to unpack ",
    "Unpacking ",
    "Processing triggers for ",
    "debconf: ",
    "WARNING: apt does not have a stable CLI interface",
    "invoke-rc.d: could not determine current runlevel",
    "invoke-rc.d: policy-rc.d denied execution",
    "update-alternatives: using ",
    "Leaving 'diversion of ",
    "Conf ",
];

/// `libssl3:amd64 (3.0.22-1~deb12u2) ...` → `libssl3 3.0.22-1~deb12u2`.
fn name_version(rest: &str) -> String {
    let rest = rest.trim_end().trim_end_matches("...").trim_end();
    let (name, ver) = match rest.split_once(' ') {
        Some((n, v)) => (n, v.trim()),
        None => (rest, ""),
    };
    let name = name.split(':').next().unwrap_or(name);
    let ver = ver.trim_start_matches('(');
    let ver = ver.split(')').next().unwrap_or(ver).trim();
    if ver.is_empty() {
        name.to_string()
    } else {
        format!("{name} {ver}")
    }
}

/// `Inst jq [1.6-2.1+deb12u1] (1.6-2.1+deb12u3 Debian-Security:12/… [amd64]) []`
/// → `jq 1.6-2.1+deb12u1 -> 1.6-2.1+deb12u3` (or `jq 1.6-2.1+deb12u3` when new).
fn inst_entry(rest: &str) -> String {
    let mut words = rest.split_whitespace();
    let name = words.next().unwrap_or("");
    let tail: Vec<&str> = words.collect();
    let old = tail
        .first()
        .filter(|w| w.starts_with('[') && w.ends_with(']'))
        .map(|w| w.trim_matches(|c| c == '[' || c == ']'));
    let new = tail
        .iter()
        .find(|w| w.starts_with('('))
        .map(|w| w.trim_start_matches('('));
    match (old, new) {
        (Some(o), Some(n)) => format!("{name} {o} -> {n}"),
        (None, Some(n)) => format!("{name} {n}"),
        (Some(o), None) => format!("{name} {o}"),
        (None, None) => name.to_string(),
    }
}

/// A `The following packages will be upgraded:` (or installed / removed) list of eight or
/// more names that are all also in the folded `label` list, which gives each with its
/// version: the names are not written twice; the header says how many and where they are.
/// Returns the lines saved.
fn said_in_fold(lines: &mut Vec<String>, f: &Folded, label: &str, upgraded: bool) -> u64 {
    if f.count == 0 || f.count != f.items.len() as u64 {
        return 0;
    }
    let folded: std::collections::HashSet<&str> = f
        .items
        .iter()
        .filter_map(|i| i.split_whitespace().next())
        .collect();
    let mut saved = 0;
    let mut i = 0;
    while i < lines.len() {
        let h = &lines[i];
        let ours = h.starts_with("The following ")
            && h.ends_with(':')
            && if upgraded {
                h.ends_with("will be upgraded:") || h.ends_with("will be installed:")
            } else {
                h.ends_with("will be REMOVED:")
            };
        let end = i
            + 1
            + lines[i + 1..]
                .iter()
                .take_while(|l| l.starts_with(' '))
                .count();
        let names: Vec<&str> = lines[i + 1..end]
            .iter()
            .flat_map(|l| l.split_whitespace())
            .collect();
        // (a short list costs less than saying where it is)
        if ours && names.len() >= 8 && names.iter().all(|n| folded.contains(n)) {
            lines[i] = format!(
                "{h} {} (each in {label} below, with its version)",
                names.len()
            );
            lines.drain(i + 1..end);
            saved += (end - i - 1) as u64;
        }
        i += 1;
    }
    saved
}

impl Apt {
    fn keep(&mut self, line: &str) {
        self.lines.push(clip_line(line, 2000).into_owned());
    }
}

impl Structured for Apt {
    fn push(&mut self, line: &str) {
        if line.trim().is_empty() {
            self.in_list = false;
            return;
        }
        let at = self.lines.head.len();
        // indented package names under a list header, and dpkg's error list
        if (self.in_list || self.in_dpkg) && line.starts_with(' ') {
            self.keep(line);
            return;
        }
        self.in_list = false;
        self.in_dpkg = false;
        if NOISE.iter().any(|p| line.starts_with(p)) {
            self.recognized += 1;
            self.filtered += 1;
            return;
        }
        if let Some(rest) = line.strip_prefix("Setting up ") {
            self.recognized += 1;
            self.set_up.add(at, name_version(rest));
            return;
        }
        if let Some(rest) = line
            .strip_prefix("Removing ")
            .or_else(|| line.strip_prefix("Purging configuration files for "))
        {
            self.recognized += 1;
            self.removed.add(at, name_version(rest));
            return;
        }
        if let Some(rest) = line.strip_prefix("Inst ") {
            self.recognized += 1;
            self.inst.add(at, inst_entry(rest));
            return;
        }
        if let Some(rest) = line.strip_prefix("Remv ") {
            self.recognized += 1;
            self.remv.add(at, inst_entry(rest));
            return;
        }
        let header = line.ends_with(':')
            && (line.starts_with("The following ")
                || line.starts_with("Suggested packages")
                || line.starts_with("Recommended packages"));
        if header {
            self.recognized += 1;
            self.in_list = true;
            self.keep(line);
            return;
        }
        if line.starts_with("Errors were encountered while processing:") {
            self.in_dpkg = true;
            self.keep(line);
            return;
        }
        let known = line.starts_with("E: ")
            || line.starts_with("W: ")
            || line.starts_with("N: ")
            || line.starts_with("dpkg: ")
            || line.starts_with("Need to get ")
            || line.starts_with("After this operation")
            || line.starts_with("Installing new version of config file ")
            || line.contains(" is already the newest version")
            || (line.contains(" upgraded, ") && line.contains(" newly installed"));
        if known {
            self.recognized += 1;
            self.keep(line);
            return;
        }
        // Once packages are being configured, other output is maintainer-script chatter:
        // only its error and warning lines stay.
        let configuring = self.set_up.count > 0 || self.removed.count > 0;
        if configuring && signal::classify(line) == Level::None {
            self.filtered += 1;
            return;
        }
        self.keep(line);
    }

    fn finish(self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        if self.recognized == 0 {
            return None;
        }
        let (mut lines, omitted) = self.lines.finish();
        let mut folded: Vec<(usize, String)> = Vec::new();
        for (f, label) in [
            (&self.inst, "Inst (simulated)"),
            (&self.remv, "Remv (simulated)"),
            (&self.removed, "Removed"),
            (&self.set_up, "Set up"),
        ] {
            if let Some(at) = f.at {
                folded.push((at, f.line(label)));
            }
        }
        // insert from the back so earlier positions stay valid
        folded.sort_by_key(|(at, _)| std::cmp::Reverse(*at));
        for (at, l) in folded {
            lines.insert(at.min(lines.len()), l);
        }
        let mut said_below = 0u64;
        for (f, label, upgraded) in [
            (&self.set_up, "Set up", true),
            (&self.inst, "Inst (simulated)", true),
            (&self.removed, "Removed", false),
            (&self.remv, "Remv (simulated)", false),
        ] {
            said_below += said_in_fold(&mut lines, f, label, upgraded);
        }
        let mut facts = Vec::new();
        if self.set_up.count > 0 {
            facts.push(("package set up".to_string(), self.set_up.count));
        }
        if self.removed.count > 0 {
            facts.push(("package removed".to_string(), self.removed.count));
        }
        // folded lines are summarized (one line per list), not lost
        let folded_lines = [&self.set_up, &self.removed, &self.inst, &self.remv]
            .iter()
            .map(|f| f.count.saturating_sub(1))
            .sum::<u64>();
        Some(StructuredOutput {
            name: "apt",
            lines,
            facts,
            omitted,
            filtered: self.filtered + folded_lines + said_below,
            facts_line: false,
            json_cut: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Option<StructuredOutput> {
        crate::reduce::structured::feed(Box::<Apt>::default(), text, 0)
    }

    #[test]
    fn install_lists_and_versions() {
        let out = run("Reading package lists...
Building dependency tree...
The following NEW packages will be installed:
  figlet sl
0 upgraded, 2 newly installed, 0 to remove and 3 not upgraded.
Need to get 150 kB of archives.
Get:1 http://deb.debian.org/debian bookworm/main amd64 figlet amd64 2.2.5-3+b1 [137 kB]
Selecting previously unselected package figlet.
Preparing to unpack .../figlet_2.2.5-3+b1_amd64.deb ...
Unpacking figlet (2.2.5-3+b1) ...
Setting up sl (5.02-1+b1) ...
Setting up figlet:amd64 (2.2.5-3+b1) ...
update-alternatives: using /usr/bin/figlet-figlet to provide /usr/bin/figlet (figlet) in auto mode
Processing triggers for man-db (2.11.2-2) ...
")
        .unwrap();
        assert_eq!(
            out.lines,
            vec![
                "The following NEW packages will be installed:",
                "  figlet sl",
                "0 upgraded, 2 newly installed, 0 to remove and 3 not upgraded.",
                "Need to get 150 kB of archives.",
                "Set up (2): sl 5.02-1+b1, figlet 2.2.5-3+b1",
            ]
        );
        assert!(out.facts.contains(&("package set up".into(), 2)));
    }

    #[test]
    fn a_long_output_keeps_its_end_where_dpkg_says_it_failed() {
        let mut text = String::from(
            "Reading package lists...\nThe following NEW packages will be installed:\n",
        );
        for i in 0..900 {
            text.push_str(&format!("  libpkg{i}\n"));
        }
        for i in 0..40 {
            text.push_str(&format!("Setting up libpkg{i} (1.{i}) ...\n"));
        }
        text.push_str("dpkg: error processing package libpkg40 (--configure):\n installed libpkg40 package post-installation script subprocess returned error exit status 1\n");
        text.push_str("Errors were encountered while processing:\n libpkg40\nE: Sub-process /usr/bin/dpkg returned an error code (1)\n");
        let out = run(&text).unwrap();
        let t = out.lines.join("\n");
        assert!(out.omitted > 0, "{t}");
        assert!(t.contains(" lines omitted ..."), "{t}");
        assert!(
            t.contains("dpkg: error processing package libpkg40 (--configure):"),
            "{t}"
        );
        assert!(
            t.ends_with("E: Sub-process /usr/bin/dpkg returned an error code (1)"),
            "{t}"
        );
        assert!(t.contains("Set up (40)"), "{t}");
    }

    #[test]
    fn errors_and_script_warnings_stay() {
        let out = run("Setting up ca-certificates (20250419) ...
Updating certificates in /etc/ssl/certs...
rehash: warning: skipping ca-certificates.crt,it does not contain exactly one certificate or CRL
E: Sub-process /usr/bin/dpkg returned an error code (1)
")
        .unwrap();
        assert_eq!(
            out.lines,
            vec![
                "Set up (1): ca-certificates 20250419",
                "rehash: warning: skipping ca-certificates.crt,it does not contain exactly one certificate or CRL",
                "E: Sub-process /usr/bin/dpkg returned an error code (1)",
            ]
        );
    }

    #[test]
    fn a_long_list_is_not_written_twice() {
        let names = ["a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8"];
        let mut text = format!(
            "The following packages will be upgraded:\n  {}\n  {}\n8 upgraded, 0 newly installed, 0 to remove and 0 not upgraded.\n",
            names[..5].join(" "),
            names[5..].join(" ")
        );
        for n in names {
            text.push_str(&format!("Setting up {n}:amd64 (2.0-1) ...\n"));
        }
        let out = run(&text).unwrap();
        assert_eq!(
            out.lines[0],
            "The following packages will be upgraded: 8 (each in Set up below, with its version)"
        );
        // the eight share a version: said once, after them
        assert_eq!(
            out.lines[2],
            "Set up (8; names sharing a version are listed together, the version after them): a1 b2 c3 d4 e5 f6 g7 h8 2.0-1",
        );
        // one name that was not set up (a held package, a failed one): the list stays
        let text = text.replace("Setting up h8:amd64 (2.0-1) ...\n", "");
        let out = run(&text).unwrap();
        assert_eq!(out.lines[0], "The following packages will be upgraded:");
        assert_eq!(out.lines[2], "  f6 g7 h8");
    }

    #[test]
    fn set_up_names_are_grouped_by_version_only_when_that_pays() {
        let mut text = String::new();
        for (n, v) in [
            ("libpam0g", "1.5.2-6+deb12u2"),
            ("bash", "5.2.15-2+b13"),
            ("libpam-modules", "1.5.2-6+deb12u2"),
            ("libpam-runtime", "1.5.2-6+deb12u2"),
            ("libssl3", "3.0.22-1~deb12u2"),
            ("libpam-modules-bin", "1.5.2-6+deb12u2"),
            ("openssl", "3.0.22-1~deb12u2"),
            ("libssl-dev", "3.0.22-1~deb12u2"),
            ("libpam-cap", "1.5.2-6+deb12u2"),
        ] {
            text.push_str(&format!("Setting up {n}:amd64 ({v}) ...\n"));
        }
        let out = run(&text).unwrap();
        assert_eq!(
            out.lines,
            ["Set up (9; names sharing a version are listed together, the version after them): libpam0g libpam-modules libpam-runtime libpam-modules-bin libpam-cap 1.5.2-6+deb12u2, bash 5.2.15-2+b13, libssl3 openssl libssl-dev 3.0.22-1~deb12u2"]
        );
        // all versions distinct: as they came
        let out = run(
            "Setting up a:amd64 (1) ...\nSetting up b:amd64 (2) ...\nSetting up c:amd64 (3) ...\n",
        )
        .unwrap();
        assert_eq!(out.lines, ["Set up (3): a 1, b 2, c 3"]);
    }

    #[test]
    fn simulated_upgrade() {
        let out = run("Inst jq [1.6-2.1+deb12u1] (1.6-2.1+deb12u3 Debian-Security:12/oldstable-security [amd64]) []
Conf jq (1.6-2.1+deb12u3 Debian-Security:12/oldstable-security [amd64])
").unwrap();
        assert_eq!(
            out.lines,
            vec!["Inst (simulated) (1): jq 1.6-2.1+deb12u1 -> 1.6-2.1+deb12u3"]
        );
    }

    #[test]
    fn not_apt_output() {
        assert!(run("hello\nworld\n").is_none());
    }
}
