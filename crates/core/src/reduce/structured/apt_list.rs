//! `apt list` (`--installed`, `--upgradable`, patterns): every package kept, as
//! `name version`, grouped by its state and architecture (`[installed,automatic] amd64`,
//! `[installed] all`, …); the suite most packages come from (`oldstable,now`) is said once,
//! any other follows its package. An upgradable package reads `name old -> new`. `Listing...` and apt's warning that its CLI is not
//! stable go; any other line is kept.

use super::{Structured, StructuredOutput};

/// Packages kept; past this the rest are counted.
const MAX_PACKAGES: usize = 20_000;
/// Width at which a group's list continues on the next line.
const WRAP: usize = 160;

/// One package line, parsed.
struct Package {
    name: String,
    suite: String,
    version: String,
    /// `[upgradable from: X]`: X.
    from: Option<String>,
}

#[derive(Default)]
pub struct AptList {
    /// (state and architecture, packages) in the order first seen.
    groups: Vec<(String, Vec<Package>)>,
    other: Vec<String>,
    packages: u64,
    stored: usize,
    filtered: u64,
}

/// `name/suite version arch [state]` → (name, suite, version, arch, state).
fn parse(line: &str) -> Option<(&str, &str, &str, &str, &str)> {
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

impl Structured for AptList {
    fn push(&mut self, line: &str) {
        let t = line.trim_end();
        if t.is_empty() || t == "Listing..." || t == "Listing... Done" {
            self.filtered += u64::from(!t.is_empty());
            return;
        }
        if t.starts_with("WARNING: apt does not have a stable CLI interface") {
            self.filtered += 1;
            return;
        }
        let Some((name, suite, version, arch, state)) = parse(t) else {
            self.other.push(t.to_string());
            return;
        };
        self.packages += 1;
        if self.stored >= MAX_PACKAGES {
            return;
        }
        self.stored += 1;
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
            (Some(old), _) => ("[upgradable]".to_string(), version.to_string(), Some(old)),
            (None, Some((head, new))) => (
                format!("{head},upgradable]"),
                new.to_string(),
                Some(version),
            ),
            (None, None) => (state.to_string(), version.to_string(), None),
        };
        let group = if state.is_empty() {
            arch.to_string()
        } else {
            format!("{state} {arch}")
        };
        let p = Package {
            name: name.to_string(),
            suite: suite.to_string(),
            version,
            from: from.map(str::to_string),
        };
        match self.groups.iter_mut().find(|(g, _)| *g == group) {
            Some((_, list)) => list.push(p),
            None => self.groups.push((group, vec![p])),
        }
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
        let mut lines = self.other.clone();
        lines.push(format!(
            "{} packages (name version), by state and architecture; suite {base}{}",
            self.packages,
            if suites.len() > 1 {
                " unless shown"
            } else {
                " for all"
            }
        ));
        for (group, list) in &self.groups {
            let mut line = format!("{group} ({}): ", list.len());
            for (i, p) in list.iter().enumerate() {
                let mut e = match &p.from {
                    Some(old) => format!("{} {old} -> {}", p.name, p.version),
                    None => format!("{} {}", p.name, p.version),
                };
                if p.suite != base {
                    e.push_str(&format!(" ({})", p.suite));
                }
                if line.len() + e.len() > WRAP && !line.ends_with(": ") {
                    lines.push(line.trim_end().to_string());
                    line = "  ".to_string();
                }
                line.push_str(&e);
                if i + 1 < list.len() {
                    line.push_str(", ");
                }
            }
            lines.push(line);
        }
        let omitted = self.packages - self.stored as u64;
        if omitted > 0 {
            lines.push(format!("… {omitted} more packages not shown"));
        }
        Some(StructuredOutput {
            name: "apt-list",
            lines,
            facts: vec![("package".into(), self.packages)],
            omitted,
            filtered: self.filtered,
            facts_line: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Option<StructuredOutput> {
        crate::reduce::structured::feed(Box::<AptList>::default(), text, 0)
    }

    #[test]
    fn every_package_grouped_by_state() {
        let out = run("Listing...\n\
            adduser/oldstable,now 3.134 all [installed,automatic]\n\
            apt/oldstable,now 2.6.1 amd64 [installed]\n\
            bash/oldstable,now 5.2.15-2+b8 amd64 [installed,upgradable to: 5.2.15-2+b13]\n\
            bash/oldstable,now 5.2.15-2+b8 amd64 [installed,automatic]\n\
            \n\
            WARNING: apt does not have a stable CLI interface. Use with caution in scripts.\n")
        .unwrap();
        assert_eq!(
            out.lines,
            vec![
                "4 packages (name version), by state and architecture; suite oldstable,now for all",
                "[installed,automatic] all (1): adduser 3.134",
                "[installed] amd64 (1): apt 2.6.1",
                "[installed,upgradable] amd64 (1): bash 5.2.15-2+b8 -> 5.2.15-2+b13",
                "[installed,automatic] amd64 (1): bash 5.2.15-2+b8",
            ]
        );
        assert_eq!(out.facts, vec![("package".to_string(), 4)]);
        assert_eq!(out.filtered, 2);
    }

    #[test]
    fn upgradable_and_mixed_suites() {
        let out = run(
            "base-files/oldstable 12.4+deb12u15 amd64 [upgradable from: 12.4+deb12u11]\n\
            jq/oldstable-security 1.6-2.1+deb12u3 amd64 [upgradable from: 1.6-2.1+deb12u1]\n\
            sed/oldstable 4.9-1+deb12u1 amd64 [upgradable from: 4.9-1]\n",
        )
        .unwrap();
        assert_eq!(
            out.lines,
            vec![
                "3 packages (name version), by state and architecture; suite oldstable unless shown",
                "[upgradable] amd64 (3): base-files 12.4+deb12u11 -> 12.4+deb12u15, jq 1.6-2.1+deb12u1 -> 1.6-2.1+deb12u3 (oldstable-security), sed 4.9-1 -> 4.9-1+deb12u1",
            ]
        );
    }

    #[test]
    fn not_a_package_list() {
        assert!(run("E: Invalid operation lst\n").is_none());
    }
}
