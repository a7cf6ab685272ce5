//! A tool that says its errors twice: Maven lists a compilation's errors, then repeats them
//! under `Failed to execute goal …: Compilation failure:`, each line now behind `[ERROR]`;
//! `docker build` ends with the failed step's last lines again, without their `#6 ` step
//! number. A run of two or more lines that repeats, in order, a run shown earlier (the same
//! text, indentation too, once a leading `[ERROR] `/`[WARNING] `/`[INFO] ` tag or a `#6 `
//! step number is set aside) becomes one line that says so and quotes the run's first
//! line, only when that reads fewer tokens: nothing is lost, since every line of it is on
//! the screen above.

use std::collections::HashMap;

/// Fewest lines in a run worth a pointer.
const MIN_RUN: usize = 2;
/// Earlier places remembered per line text.
const MAX_PLACES: usize = 8;
/// Most characters of the first line quoted in the pointer.
const QUOTE_CHARS: usize = 60;

/// The level tag a line starts with and the space after it (`[ERROR] `), if any: kept on
/// the pointer.
fn tag(line: &str) -> &str {
    for tag in ["[ERROR] ", "[WARNING] ", "[WARN] ", "[INFO] "] {
        if line.starts_with(tag) {
            return tag;
        }
    }
    ""
}

/// What a line says: the line without its level tag or BuildKit step number, indentation
/// kept (Maven repeats `  symbol: …` as `[ERROR]   symbol: …`). Empty for a blank line and
/// for tokenjuice's own markers (`... 3 lines omitted ...`), which no run crosses.
fn text(line: &str) -> &str {
    let t = line[tag(line).len()..].trim_end();
    // BuildKit's step number: `#6 1.903 npm error …` is said again as `1.903 npm error …`
    // in the failed step's summary
    let t = match t.strip_prefix('#').and_then(|r| r.split_once(' ')) {
        Some((n, rest)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => rest,
        _ => t,
    };
    if t.trim_start().is_empty() || t.starts_with("... ") {
        ""
    } else {
        t
    }
}

/// `lines` with each run that repeats an earlier one said as a pointer to it (see the
/// module note). None when nothing repeats.
pub fn point_to_repeats(lines: &[String]) -> Option<Vec<String>> {
    let texts: Vec<&str> = lines.iter().map(|l| text(l)).collect();
    let mut places: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut out = Vec::with_capacity(lines.len());
    let mut pointed = false;
    let mut i = 0;
    while i < lines.len() {
        let t = texts[i];
        if !t.is_empty() {
            // the longest earlier run this one repeats (ending before it starts)
            let mut best = 0;
            for &p in places.get(t).into_iter().flatten() {
                let mut len = 0;
                while i + len < lines.len()
                    && p + len < i
                    && !texts[i + len].is_empty()
                    && texts[p + len] == texts[i + len]
                {
                    len += 1;
                }
                best = best.max(len);
            }
            if best >= MIN_RUN {
                let t = t.trim_start();
                let quote: String = if t.chars().count() > QUOTE_CHARS {
                    t.chars().take(QUOTE_CHARS).collect::<String>() + "…"
                } else {
                    t.to_string()
                };
                let pointer = format!(
                    "{}(again the {best} lines above from \"{quote}\")",
                    tag(&lines[i])
                );
                let run = lines[i..i + best].join("\n");
                if crate::tokens::estimate(&pointer) < crate::tokens::estimate(&run) {
                    out.push(pointer);
                    pointed = true;
                    i += best;
                    continue;
                }
            }
            let at = places.entry(t).or_default();
            if at.len() < MAX_PLACES {
                at.push(i);
            }
        }
        out.push(lines[i].clone());
        i += 1;
    }
    pointed.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::paths::tests::lines;

    #[test]
    fn maven_s_errors_said_again_under_the_failed_goal_point_above() {
        let text = "\
[ERROR] COMPILATION ERROR :
[ERROR] …/App.java:[4,21] incompatible types: java.lang.String cannot be converted to int
[ERROR] …/App.java:[5,28] cannot find symbol
  symbol:   method missing(int)
  location: class com.example.App
[INFO] 2 errors
[INFO] BUILD FAILURE
[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.13.0:compile (default-compile) on project inventory: Compilation failure: Compilation failure:
[ERROR] …/App.java:[4,21] incompatible types: java.lang.String cannot be converted to int
[ERROR] …/App.java:[5,28] cannot find symbol
[ERROR]   symbol:   method missing(int)
[ERROR]   location: class com.example.App";
        let out = point_to_repeats(&lines(text)).unwrap();
        assert_eq!(out.len(), 9, "{out:#?}");
        assert_eq!(
            out[8],
            "[ERROR] (again the 4 lines above from \"…/App.java:[4,21] incompatible types: java.lang.String canno…\")"
        );
        assert_eq!(out[..8], lines(text)[..8]);
    }

    #[test]
    fn docker_s_failed_step_said_again_without_its_step_number_points_above() {
        let text = "\
#6 [4/5] RUN npm ci --omit=dev
#6 1.903 npm error Missing: zod@3.23.8 from lock file
#6 1.903 npm error
#6 1.912 npm error A complete log of this run can be found in: /root/.npm/_logs/2026-11-22T09_12_01_123Z-debug-0.log
#6 ERROR: process \"/bin/sh -c npm ci --omit=dev\" did not complete successfully: exit code: 1
------
 > [4/5] RUN npm ci --omit=dev:
1.903 npm error Missing: zod@3.23.8 from lock file
1.903 npm error
1.912 npm error A complete log of this run can be found in: /root/.npm/_logs/2026-11-22T09_12_01_123Z-debug-0.log
------";
        let out = point_to_repeats(&lines(text)).unwrap();
        assert_eq!(
            out[7],
            "(again the 3 lines above from \"1.903 npm error Missing: zod@3.23.8 from lock file\")"
        );
        assert_eq!(out[8], "------");
        // `#` and a word is no step number
        assert_eq!(text_of("#include <stdio.h>"), "#include <stdio.h>");
    }

    fn text_of(line: &str) -> &str {
        text(line)
    }

    #[test]
    fn one_line_said_again_or_lines_in_another_order_stay() {
        // a single line repeated is no run; a blank line or a marker ends one
        let e = "error: connection to db.internal:5432 refused (is the server running?)";
        let r = "retrying in 1000ms with exponential backoff, 5 attempts left";
        let text = format!("{e}\n{r}\n{e}\n\n{r}\n... 3 lines omitted ...\n{e}\n{r}\nx\n{r}\nx");
        // lines 7-8 repeat lines 1-2
        let out = point_to_repeats(&lines(&text)).unwrap();
        assert_eq!(
            out[6],
            "(again the 2 lines above from \"error: connection to db.internal:5432 refused (is the server…\")"
        );
        assert_eq!(out.len(), 10);
        assert_eq!(out[7..], lines(&text)[8..]);
        let swapped = "a one\nb two\nc three\nb two\na one";
        assert!(point_to_repeats(&lines(swapped)).is_none());
        // the same words at another depth of a tree are not the same lines
        let deeper = format!("{e}\n  {r}\nx\n{e}\n    {r}");
        assert!(point_to_repeats(&lines(&deeper)).is_none());
        // a pointer that would not be shorter than the run is not made
        let short = "a\nb\nc\na\nb";
        assert!(point_to_repeats(&lines(short)).is_none());
    }
}
