//! Process tables: `ps aux`, `ps -ef`, `ps` and `ps -o …`.
//!
//! Every process stays with its PID and command. Columns agents rarely need go
//! (VSZ, RSS, TTY, START/STIME, TIME, C, F, PRI, NI, ADDR, SZ, WCHAN); STAT stays only
//! when some process is a zombie, stopped or in uninterruptible sleep; a USER/UID column
//! with one value for every row is said once. Very long command lines are clipped in the
//! middle with a marker. Kernel threads (`[kworker/0:1]`, `[rcu_gp]` … with no memory of
//! their own) are half of a `ps aux` on Linux: they fold to one counted line naming their
//! kinds, unless they are all there is (the user asked for them), under kthreadd in a
//! forest (`ps auxf`) too, where the other processes keep the tree drawn before their
//! command. Output that has no ps header is left to the line rule.

use super::{Structured, StructuredOutput};
use crate::reduce::text::clip_line;

const MAX_ROWS: usize = 20_000;
const MAX_COMMAND: usize = 240;
const DROP: &[&str] = &[
    "VSZ", "RSS", "TTY", "TT", "START", "STIME", "TIME", "C", "F", "PRI", "NI", "ADDR", "SZ",
    "WCHAN", "LWP", "NLWP", "PSR", "STARTED", "ELAPSED",
];
const COMMAND: &[&str] = &["COMMAND", "CMD", "ARGS", "COMM", "UCOMM"];

#[derive(Default)]
pub struct Ps {
    header: Option<Vec<String>>,
    rows: Vec<Vec<String>>,
    extra: u64,
    other: Vec<String>,
    before: Vec<String>,
}

impl Ps {
    fn parse_row(&self, line: &str) -> Option<Vec<String>> {
        let header = self.header.as_ref()?;
        let n = header.len();
        let last_is_cmd = header.last().is_some_and(|h| COMMAND.contains(&h.as_str()));
        let mut cols = Vec::with_capacity(n);
        let mut rest = line.trim_start();
        // what follows the column before, its blanks included
        let mut after = rest;
        for i in 0..n {
            if i + 1 == n && last_is_cmd {
                if rest.is_empty() {
                    return None;
                }
                // a forest (`ps auxf`, `ps -H`): the tree's indentation says whose child a
                // process is, so it stays (all but the blank between the columns)
                let command = if rest.starts_with('|') || rest.starts_with("\\_") {
                    after.strip_prefix(' ').unwrap_or(after)
                } else {
                    rest
                };
                // held clipped: a java classpath can be 100 KB
                cols.push(clip_line(command, MAX_COMMAND).into_owned());
                rest = "";
                break;
            }
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            if end == 0 {
                return None;
            }
            cols.push(rest[..end].to_string());
            after = &rest[end..];
            rest = after.trim_start();
        }
        if !rest.is_empty() || cols.len() != n {
            return None;
        }
        Some(cols)
    }
}

impl Structured for Ps {
    fn push(&mut self, line: &str) {
        let t = line.trim_end();
        if t.trim().is_empty() {
            return;
        }
        if self.header.is_none() {
            let cols: Vec<String> = t.split_whitespace().map(str::to_string).collect();
            if cols.iter().any(|c| c == "PID") && cols.len() >= 2 {
                self.header = Some(cols);
            } else if self.before.len() < 50 {
                self.before.push(t.to_string());
            }
            return;
        }
        match self.parse_row(t) {
            Some(row) if self.rows.len() < MAX_ROWS => self.rows.push(row),
            Some(_) => self.extra += 1,
            None => {
                if self.other.len() < 200 {
                    self.other.push(clip_line(t, 2000).into_owned());
                } else {
                    self.extra += 1;
                }
            }
        }
    }

    fn finish(self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        let header = self.header?;
        if self.rows.is_empty() {
            return None;
        }
        let upper: Vec<String> = header.iter().map(|h| h.to_ascii_uppercase()).collect();
        // kernel threads: a bracketed command and, where ps shows it, no virtual memory
        let cmd_col = upper.len() - 1;
        let vsz_col = upper.iter().position(|h| h == "VSZ");
        let is_kthread = |r: &Vec<String>| {
            let c = without_tree(&r[cmd_col]);
            COMMAND.contains(&upper[cmd_col].as_str())
                && c.starts_with('[')
                && c.ends_with(']')
                && vsz_col.is_none_or(|v| r[v] == "0")
        };
        let kthreads = self.rows.iter().filter(|r| is_kthread(r)).count();
        let fold_kthreads = kthreads > 0 && kthreads < self.rows.len();
        let mut keep: Vec<usize> = Vec::new();
        let mut notes: Vec<String> = Vec::new();
        let mut dropped: Vec<&str> = Vec::new();
        for (i, h) in upper.iter().enumerate() {
            let is_last = i + 1 == upper.len();
            if !is_last && DROP.contains(&h.as_str()) {
                dropped.push(&header[i]);
                continue;
            }
            if h == "STAT" || h == "S" {
                let odd = self.rows.iter().any(|r| r[i].contains(['Z', 'D', 'T']));
                if !odd {
                    dropped.push(&header[i]);
                    continue;
                }
            }
            if (h == "USER" || h == "UID" || h == "RUSER" || h == "EUSER") && self.rows.len() > 1 {
                let first = &self.rows[0][i];
                if self.rows.iter().all(|r| &r[i] == first) {
                    notes.push(format!("{} {first} for every process", header[i]));
                    continue;
                }
            }
            keep.push(i);
        }
        let mut lines = Vec::new();
        lines.extend(self.before.iter().cloned());
        let mut note = notes;
        if !dropped.is_empty() {
            note.push(format!("columns {} dropped", dropped.join(" ")));
        }
        if !note.is_empty() {
            lines.push(format!("[{}]", note.join("; ")));
        }
        lines.push(
            keep.iter()
                .map(|&i| header[i].as_str())
                .collect::<Vec<_>>()
                .join(" "),
        );
        for r in self
            .rows
            .iter()
            .filter(|r| !(fold_kthreads && is_kthread(r)))
        {
            let cells: Vec<&str> = keep.iter().map(|&i| r[i].as_str()).collect();
            lines.push(cells.join(" "));
        }
        if fold_kthreads {
            let names = self
                .rows
                .iter()
                .filter(|r| is_kthread(r))
                .map(|r| without_tree(&r[cmd_col]).trim_matches(['[', ']']));
            lines.push(format!(
                "[{} folded: {}; --raw shows {}]",
                crate::reduce::render::pluralize(kthreads as u64, "kernel thread"),
                kernel_thread_kinds(names),
                if kthreads == 1 { "it" } else { "them" }
            ));
        }
        lines.extend(self.other.iter().cloned());
        if self.extra > 0 {
            lines.push(format!("… {} more lines not shown", self.extra));
        }
        Some(StructuredOutput {
            name: "ps",
            lines,
            facts: vec![("process".into(), self.rows.len() as u64 + self.extra)],
            omitted: self.extra,
            filtered: 0,
            facts_line: true,
            json_cut: false,
        })
    }
}

/// A command without the tree `ps f` (forest) and `ps -H` draw before it: `|   \_ [kworker/0:1]`
/// is `[kworker/0:1]`.
fn without_tree(command: &str) -> &str {
    let mut c = command.trim_start();
    loop {
        let next = c
            .strip_prefix('|')
            .or_else(|| c.strip_prefix("\\_"))
            .map(str::trim_start);
        match next {
            Some(rest) => c = rest,
            None => return c,
        }
    }
}

/// Kernel thread names counted by kind, most first: `kworker/0:1H-kblockd`, `kworker/u8:2`
/// → `kworker ×2`; `migration/0`, `migration/1` → `migration ×2`.
pub(super) fn kernel_thread_kinds<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let mut kinds = super::tally(names.map(|name| {
        name.split(['/', ':'])
            .next()
            .unwrap_or(name)
            .trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '-')
    }));
    kinds.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    kinds
        .iter()
        .map(|(k, n)| match n {
            1 => k.to_string(),
            n => format!("{k} ×{n}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Option<StructuredOutput> {
        crate::reduce::structured::feed(Box::<Ps>::default(), text, 0)
    }

    #[test]
    fn aux_keeps_pid_and_command() {
        let text = "USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND
root           1  0.0  0.0   2480   516 ?        Ss   08:07   0:00 /sbin/init
root          42  1.5  2.0 112000 40000 pts/0    Sl   08:09   0:03 node server.js --port 3000
root          77  0.0  0.0      0     0 ?        Z    08:10   0:00 [sh] <defunct>
"
        .to_string()
            + &format!(
                "root          90  9.0 20.0 900000 400000 ?      Sl   08:11   1:00 java -cp {} Main\n",
                "/opt/lib/a.jar:".repeat(500)
            );
        let out = run(&text).unwrap();
        let t = out.lines.join("\n");
        assert!(t.contains("USER root for every process"), "{t}");
        assert!(t.contains("PID %CPU %MEM STAT COMMAND"), "{t}");
        assert!(
            t.contains("42 1.5 2.0 Sl node server.js --port 3000"),
            "{t}"
        );
        assert!(t.contains("77 0.0 0.0 Z [sh] <defunct>"), "{t}");
        assert!(!t.contains("112000"), "{t}");
        assert_eq!(out.facts[0], ("process".to_string(), 4));
    }

    #[test]
    fn kernel_threads_under_kthreadd_in_a_forest_fold_too() {
        // `ps auxf`: the threads kthreadd started are drawn under it
        let text = r"USER       PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND
root         2  0.0  0.0      0     0 ?        S    08:03   0:00 [kthreadd]
root         3  0.0  0.0      0     0 ?        S    08:03   0:00  \_ [pool_workqueue_release]
root         4  0.0  0.0      0     0 ?        I<   08:03   0:00  \_ [kworker/R-rcu_gp]
root        14  0.0  0.0      0     0 ?        S    08:03   0:08  \_ [ksoftirqd/0]
root         1  0.3  0.0  12345  2345 ?        S<Ll 08:03   1:02 /sbin/init
root      9189  0.0  0.0   5268  4120 ?        Ss   16:24   0:00  \_ bash /dev/fd/3
root       825  0.0  0.0   2400  1200 ?        S    16:50   0:00      \_ timeout 1200 python3 x.py
root       827  1.9  0.0  80000 40000 ?        S    16:50   0:01      |   \_ python3 x.py
root      1027  0.0  0.0      0     0 ?        Z    16:51   0:00      \_ [lsof] <defunct>
";
        let out = run(text).unwrap();
        let t = out.lines.join("\n");
        assert!(!t.contains("kworker/R-rcu_gp]"), "{t}");
        assert!(
            t.ends_with(
                "1 0.3 0.0 S<Ll /sbin/init
9189 0.0 0.0 Ss  \\_ bash /dev/fd/3
825 0.0 0.0 S      \\_ timeout 1200 python3 x.py
827 1.9 0.0 S      |   \\_ python3 x.py
1027 0.0 0.0 Z      \\_ [lsof] <defunct>
[4 kernel threads folded: ksoftirqd, kthreadd, kworker, pool_workqueue_release; --raw shows them]"
            ),
            "{t}"
        );
        assert_eq!(out.facts[0], ("process".to_string(), 9));
    }

    #[test]
    fn ef_form() {
        let text = "UID          PID    PPID  C STIME TTY          TIME CMD
root           1       0  0 08:07 ?        00:00:00 sleep infinity
dev          300       1  0 08:08 ?        00:00:00 python3 -m http.server
";
        let out = run(text).unwrap();
        let t = out.lines.join("\n");
        assert!(t.contains("UID PID PPID CMD"), "{t}");
        assert!(t.contains("dev 300 1 python3 -m http.server"), "{t}");
    }

    #[test]
    fn kernel_threads_fold_to_one_counted_line_unless_they_are_all_there_is() {
        let text = "USER PID %CPU %MEM VSZ RSS TTY STAT START TIME COMMAND
root 1 0.0 0.1 167000 11000 ? Ss 10:00 0:01 /sbin/init
root 2 0.0 0.0 0 0 ? S 10:00 0:00 [kthreadd]
root 10 0.0 0.0 0 0 ? I< 10:00 0:00 [kworker/0:0H-events_highpri]
root 11 0.0 0.0 0 0 ? I 10:00 0:00 [kworker/u8:0-events_unbound]
root 12 0.0 0.0 0 0 ? I 10:00 0:00 [rcu_preempt]
app 900 1.0 2.0 900000 90000 ? Sl 10:01 0:10 node server.js [worker]
";
        let out = run(text).unwrap();
        let joined = out.lines.join("\n");
        assert!(!joined.contains("kworker/0:0H"), "{joined}");
        assert!(
            joined.contains(
                "[4 kernel threads folded: kworker ×2, kthreadd, rcu_preempt; --raw shows them]"
            ),
            "{joined}"
        );
        assert!(
            joined.contains("root 1 0.0 0.1 /sbin/init")
                && joined.contains("app 900 1.0 2.0 node server.js [worker]"),
            "{joined}"
        );
        assert_eq!(out.facts, vec![("process".to_string(), 6)]);
        // ps aux | grep kworker: only kernel threads, so nothing folds
        let only = "USER PID %CPU %MEM VSZ RSS TTY STAT START TIME COMMAND
root 10 0.0 0.0 0 0 ? I< 10:00 0:00 [kworker/0:0H-events_highpri]
root 11 0.0 0.0 0 0 ? I 10:00 0:00 [kworker/u8:0-events_unbound]
";
        let joined = run(only).unwrap().lines.join("\n");
        assert!(joined.contains("[kworker/0:0H-events_highpri]"), "{joined}");
    }

    #[test]
    fn not_ps() {
        assert!(run("error: unsupported option (BSD syntax)\n").is_none());
        assert!(run("    PID TTY          TIME CMD\n").is_none());
    }
}
