//! Coverage tables in test runs (read by the test rules: jest, vitest, bun test, pytest):
//! istanbul's text reporter and bun's, `file | % Stmts | … | Uncovered Line #s` rows, and
//! coverage.py's (pytest-cov), `Name  Stmts  Miss  Cover  Missing` columns; one row per
//! file.
//!
//! The rows of a directory (the same indentation, one after another) that have the same
//! values are written once: `75 | 50 | 100 | 75 | 3 (26): m1.js m10.js …`, every file
//! named. Separator rows and the padding that aligned the columns go. Rows of a
//! different indentation (`All files`, a directory) and `TOTAL` stay rows of their own.

/// Rows sharing their values that are written as one (fewer stay rows).
const MIN_SHARED: usize = 3;
/// A table with fewer file rows than this is left as it is.
const MIN_ROWS: usize = 6;

/// A `|` row's cells (trimmed) and the indentation of its first cell; None for a line that
/// is not a row of at least three cells.
fn cells(line: &str) -> Option<(usize, Vec<&str>)> {
    if line.matches('|').count() < 2 {
        return None;
    }
    let indent = line.len() - line.trim_start().len();
    let mut c: Vec<&str> = line.split('|').map(str::trim).collect();
    if c.last() == Some(&"") && line.trim_end().ends_with('|') {
        // `All files |   78.33 |` closes on a bar
        c.pop();
    }
    Some((indent, c))
}

fn is_separator(line: &str) -> bool {
    let t = line.trim();
    t.contains('|')
        && t.chars()
            .all(|c| matches!(c, '-' | '|' | '+' | ':' | '=' | ' '))
}

/// `lines` with every coverage table in them written as the module says.
pub fn fold_coverage_tables(lines: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        if let Some(end) = coverage_py(&lines, i, &mut out) {
            i = end;
            continue;
        }
        // a table: a header row holding `%`, then rows and separators
        let header = cells(&lines[i]).filter(|(_, c)| c.iter().skip(1).any(|h| h.contains('%')));
        let Some((_, head)) = header else {
            out.push(lines[i].clone());
            i += 1;
            continue;
        };
        let mut j = i + 1;
        while j < lines.len() && (is_separator(&lines[j]) || cells(&lines[j]).is_some()) {
            j += 1;
        }
        let rows: Vec<(usize, Vec<&str>)> = lines[i + 1..j]
            .iter()
            .filter(|l| !is_separator(l))
            .filter_map(|l| cells(l))
            .collect();
        if rows.len() < MIN_ROWS {
            out.extend(lines[i..j].iter().cloned());
            i = j;
            continue;
        }
        // a separator right above the header belongs to the table's layout too
        if out.last().is_some_and(|l: &String| is_separator(l)) {
            out.pop();
        }
        out.push(head.join(" | ").trim_end().to_string());
        let mut k = 0;
        while k < rows.len() {
            let indent = rows[k].0;
            let end = (k..rows.len())
                .find(|&m| rows[m].0 != indent)
                .unwrap_or(rows.len());
            out.extend(fold_run(&rows[k..end]));
            k = end;
        }
        i = j;
    }
    out
}

/// coverage.py's table starting at `lines[i]` (`Name  Stmts  Miss  Cover …`), written to
/// `out`; where it ends. None when `lines[i]` is not such a header or the table is small.
fn coverage_py(lines: &[String], i: usize, out: &mut Vec<String>) -> Option<usize> {
    let head: Vec<&str> = lines[i].split_whitespace().collect();
    if head.first() != Some(&"Name") || !head.contains(&"Stmts") || !head.contains(&"Cover") {
        return None;
    }
    let dashes = |l: &str| !l.trim().is_empty() && l.trim().chars().all(|c| c == '-');
    let mut j = i + 1;
    let mut rows: Vec<(usize, Vec<&str>)> = Vec::new();
    let mut total = None;
    while let Some(l) = lines.get(j) {
        if dashes(l) {
            j += 1;
            continue;
        }
        let c: Vec<&str> = l.split_whitespace().collect();
        if c.len() < 2 {
            break;
        }
        j += 1;
        if c[0] == "TOTAL" {
            total = Some(c.join(" "));
            break;
        }
        // (a name, then its values: `pkg/m1.py 5 1 80% 3, 7-9`)
        let name = c[0];
        let values = l.trim_start()[name.len()..]
            .split_whitespace()
            .collect::<Vec<_>>();
        rows.push((0, std::iter::once(name).chain(values).collect()));
    }
    if rows.len() < MIN_ROWS {
        return None;
    }
    out.push(head.join(" "));
    out.extend(fold_run(&rows).into_iter().map(|l| l.replace(" | ", " ")));
    out.extend(total);
    Some(j)
}

/// One directory's rows: those sharing their values at least [`MIN_SHARED`] times as one
/// line naming them all, in the order the values first come; the others as rows.
fn fold_run(rows: &[(usize, Vec<&str>)]) -> Vec<String> {
    let values = |r: &(usize, Vec<&str>)| r.1[1..].join(" | ");
    let mut order: Vec<String> = Vec::new();
    let mut names: std::collections::HashMap<String, Vec<&str>> = Default::default();
    for r in rows {
        let v = values(r);
        let e = names.entry(v.clone()).or_default();
        if e.is_empty() {
            order.push(v);
        }
        e.push(r.1[0]);
    }
    let pad = " ".repeat(rows.first().map_or(0, |r| r.0));
    let mut out = Vec::new();
    for v in order {
        let n = &names[&v];
        if n.len() >= MIN_SHARED {
            out.push(format!(
                "{pad}{} ({}): {}",
                v.trim_end(),
                n.len(),
                n.join(" ")
            ));
        } else {
            for name in n {
                out.push(format!("{pad}{name} | {v}").trim_end().to_string());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(t: &str) -> Vec<String> {
        t.lines().map(str::to_string).collect()
    }

    #[test]
    fn files_with_the_same_values_are_one_line_naming_them_all() {
        let mut t = String::from(
            "PASS test/all.test.js
----------|---------|----------|---------|---------|-------------------
File      | % Stmts | % Branch | % Funcs | % Lines | Uncovered Line #s 
----------|---------|----------|---------|---------|-------------------
All files |   78.33 |    56.66 |     100 |   78.33 |                   
",
        );
        for i in 1..=8 {
            if i % 4 == 0 {
                t.push_str(&format!(
                    " m{i}.js    |     100 |      100 |     100 |     100 |                   \n"
                ));
            } else {
                t.push_str(&format!(
                    " m{i}.js    |      75 |       50 |     100 |      75 | 3                 \n"
                ));
            }
        }
        t.push_str("----------|---------|----------|---------|---------|-------------------\nTests: 1 passed\n");
        let out = fold_coverage_tables(lines(&t));
        assert_eq!(
            out,
            vec![
                "PASS test/all.test.js",
                "File | % Stmts | % Branch | % Funcs | % Lines | Uncovered Line #s",
                "All files | 78.33 | 56.66 | 100 | 78.33",
                " 75 | 50 | 100 | 75 | 3 (6): m1.js m2.js m3.js m5.js m6.js m7.js",
                " m4.js | 100 | 100 | 100 | 100",
                " m8.js | 100 | 100 | 100 | 100",
                "Tests: 1 passed",
            ],
            "{out:#?}"
        );
        // coverage.py's columns (pytest-cov)
        let mut py = String::from("Name               Stmts   Miss  Cover   Missing\n------------------------------------------------\n");
        for i in 1..=7 {
            let (miss, cover, missing) = if i == 5 {
                (0, "100%", "")
            } else {
                (1, "75%", "3")
            };
            py.push_str(&format!(
                "shop/item{i}.py          4      {miss}    {cover}   {missing}\n"
            ));
        }
        py.push_str("------------------------------------------------\nTOTAL                 28      6    79%\n\n7 passed in 0.06s\n");
        assert_eq!(
            fold_coverage_tables(lines(&py)),
            vec![
                "Name Stmts Miss Cover Missing",
                "4 1 75% 3 (6): shop/item1.py shop/item2.py shop/item3.py shop/item4.py shop/item6.py shop/item7.py",
                "shop/item5.py 4 0 100%",
                "TOTAL 28 6 79%",
                "",
                "7 passed in 0.06s",
            ]
        );
        // a small table, and a table that is not coverage, stay as they are
        let small = "File | % Lines\n a.js | 10\n b.js | 10\n";
        assert_eq!(fold_coverage_tables(lines(small)), lines(small));
        let other: String = (0..8).map(|i| format!("| row{i} | x | y |\n")).collect();
        let other = format!("| name | a | b |\n{other}");
        assert_eq!(fold_coverage_tables(lines(&other)), lines(&other));
    }
}
