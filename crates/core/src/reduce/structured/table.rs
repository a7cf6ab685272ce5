//! Column-aligned listings: `kubectl get`, `docker ps`/`images`, `docker compose ps`,
//! gcloud/az/helm lists, `lsof`, `ss`, `netstat`, pm2's box tables, launchctl's tab lists.
//!
//! Every row is said (up to [`MAX_ROWS`] per table, the rest counted). Columns whose value
//! is the same in every row (three rows or more) are folded into one note line above the
//! table; three or more rows alike but for a name column are one line naming them all
//! (`kubectl get pods`: a deployment's replicas); four or more rows each the row above
//! with the same few cells one more (`lsof`'s `8 /proc/1/fd/8`, `9 /proc/1/fd/9`) are
//! their first and last row with the count between; box-drawing borders go. Lines around
//! the tables (warnings, titles, footers) are kept as they are. Output with no
//! recognizable table is left to the rule's line reduction (`None`).

use super::json_records::JsonRecords;
use super::{Structured, StructuredOutput};
use crate::reduce::render::pluralize;
use crate::reduce::text::clip_line;

/// Lines stored; past this the rest is counted, not kept.
const MAX_LINES: usize = 20_000;
/// Rows shown per table; the rest are counted in a marker.
const MAX_ROWS: usize = 400;
/// Longest cell shown whole.
const MAX_CELL: usize = 200;

#[derive(Default)]
pub struct Table {
    lines: Vec<String>,
    overflow: u64,
}

impl Structured for Table {
    fn push(&mut self, line: &str) {
        if self.lines.len() < MAX_LINES {
            self.lines.push(line.to_string());
        } else {
            self.overflow += 1;
        }
    }

    fn finish(self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        // cloud CLIs print JSON as often as tables
        let first = self.lines.iter().find(|l| !l.trim().is_empty());
        if first.is_some_and(|l| l.starts_with('{') || l.starts_with('[')) && self.overflow == 0 {
            let mut j = JsonRecords::default();
            for l in &self.lines {
                j.push_line(l);
            }
            if let Some(out) = j.render() {
                return Some(out);
            }
        }
        let mut out = Render::default();
        let mut tables = 0;
        let blocks = split_blocks(&self.lines);
        for (bi, block) in blocks.iter().enumerate() {
            if bi > 0 {
                out.lines.push(String::new());
            }
            if render_block(block, &mut out) {
                tables += 1;
            }
        }
        if tables == 0 {
            return None;
        }
        while out.lines.last().is_some_and(String::is_empty) {
            out.lines.pop();
        }
        while out.lines.first().is_some_and(String::is_empty) {
            out.lines.remove(0);
        }
        if self.overflow > 0 {
            out.lines.push(format!(
                "... {} more lines not read (output too long) ...",
                self.overflow
            ));
            out.omitted += self.overflow;
        }
        Some(StructuredOutput {
            name: "table",
            lines: out.lines,
            facts: Vec::new(),
            omitted: out.omitted,
            filtered: out.filtered,
            facts_line: false,
            json_cut: false,
        })
    }
}

#[derive(Default)]
struct Render {
    lines: Vec<String>,
    omitted: u64,
    filtered: u64,
}

/// Blocks of lines separated by blank lines; a title line directly above a new header
/// (netstat's `Active UNIX domain sockets …`) also starts a block.
fn split_blocks(lines: &[String]) -> Vec<Vec<&str>> {
    let mut blocks: Vec<Vec<&str>> = vec![Vec::new()];
    for (i, l) in lines.iter().enumerate() {
        if l.trim().is_empty() {
            if blocks.last().is_some_and(|b| !b.is_empty()) {
                blocks.push(Vec::new());
            }
            continue;
        }
        let cur = blocks.last().expect("never empty");
        let starts_section = cur.len() >= 2
            && l.starts_with("Active ")
            && lines.get(i + 1).is_some_and(|n| looks_like_header(n));
        if starts_section {
            blocks.push(Vec::new());
        }
        blocks.last_mut().expect("never empty").push(l);
    }
    blocks.retain(|b| !b.is_empty());
    blocks
}

fn is_border(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty()
        && t.chars().all(|c| {
            matches!(
                c,
                '─' | '━' | '═' | '┌' | '┐' | '└' | '┘' | '├' | '┤' | '┬' | '┴' | '┼'
            ) || matches!(
                c,
                '╔' | '╗' | '╚' | '╝' | '╠' | '╣' | '╦' | '╩' | '╬' | '+' | '-' | ' '
            )
        })
}

/// A header: at least two words, each starting with an upper-case letter or a symbol,
/// with a column gap (two spaces or a tab) somewhere, so a capitalized sentence is not one.
fn looks_like_header(line: &str) -> bool {
    let t = line.trim();
    if t.is_empty() || !(t.contains("  ") || t.contains('\t')) {
        return false;
    }
    let words: Vec<&str> = t.split_whitespace().collect();
    if words.len() < 2 {
        return false;
    }
    let mut lettered = 0;
    for w in &words {
        match w.chars().find(|c| c.is_alphabetic()) {
            Some(c) if c.is_lowercase() => return false,
            Some(_) if w.chars().filter(|c| c.is_alphabetic()).count() >= 2 => lettered += 1,
            _ => {}
        }
    }
    lettered >= 2
}

/// psql's rule under the header: `----+-------+---` with one `+` per column gap.
fn is_psql_rule(line: &str, columns: usize) -> bool {
    let t = line.trim();
    !t.is_empty()
        && t.starts_with('-')
        && t.bytes().all(|b| b == b'-' || b == b'+')
        && t.bytes().filter(|&b| b == b'+').count() + 1 == columns
}

fn psql_cells(line: &str) -> Vec<String> {
    line.split('|').map(|c| c.trim().to_string()).collect()
}

/// mysql's border: `+------+-----+`.
fn is_mysql_border(line: &str) -> bool {
    let t = line.trim();
    t.len() > 2
        && t.starts_with("+-")
        && t.ends_with('+')
        && t.bytes().all(|b| b == b'-' || b == b'+')
}

/// `| a | b |` → `a`, `b`.
fn mysql_cells(line: &str) -> Option<Vec<String>> {
    let t = line.trim();
    let inner = t.strip_prefix('|')?.strip_suffix('|')?;
    Some(psql_cells(inner))
}

/// A psql result (`a | b` header, `---+---` rule, rows, `(N rows)`) or a mysql one (the
/// same between `+---+---+` borders): the rows written `a | b` without the padding that
/// aligned them; lines before and after stay. None when the block holds no such table.
fn render_psql(block: &[&str], out: &mut Render) -> Option<()> {
    let (h, header, first_row, mysql) = if let Some(b) =
        (0..block.len().saturating_sub(2)).find(|&i| {
            is_mysql_border(block[i])
                && mysql_cells(block[i + 1]).is_some()
                && is_mysql_border(block[i + 2])
        }) {
        (b, mysql_cells(block[b + 1])?, b + 3, true)
    } else {
        let h = (0..block.len().saturating_sub(1)).find(|&i| {
            block[i].contains(" | ") && is_psql_rule(block[i + 1], psql_cells(block[i]).len())
        })?;
        (h, psql_cells(block[h]), h + 2, false)
    };
    let mut end = first_row;
    let mut rows = Vec::new();
    while end < block.len() {
        let cells = if mysql {
            match mysql_cells(block[end]) {
                Some(c) => c,
                None => break,
            }
        } else {
            psql_cells(block[end])
        };
        if cells.len() != header.len() || (!mysql && block[end].trim_start().starts_with('(')) {
            break;
        }
        rows.push(cells);
        end += 1;
    }
    if rows.is_empty() {
        return None;
    }
    // the rule (psql) or the three borders (mysql) go
    let mut rules = 1;
    if mysql && end < block.len() && is_mysql_border(block[end]) {
        end += 1;
        rules = 3;
    }
    out.lines.extend(block[..h].iter().map(|l| l.to_string()));
    out.filtered += rules;
    emit_grid(
        Grid {
            header,
            rows,
            piped: true,
        },
        &[],
        true,
        out,
    );
    out.lines.extend(block[end..].iter().map(|l| l.to_string()));
    Some(())
}

/// Render one block. Returns true when it held a table.
fn render_block(block: &[&str], out: &mut Render) -> bool {
    // box-drawing table (pm2)
    if block.iter().any(|l| l.trim_start().starts_with('│')) {
        return render_box(block, out);
    }
    if render_psql(block, out).is_some() {
        return true;
    }
    let Some(h) = block.iter().position(|l| looks_like_header(l)) else {
        out.lines.extend(block.iter().map(|l| l.to_string()));
        return false;
    };
    if h + 1 >= block.len() {
        out.lines.extend(block.iter().map(|l| l.to_string()));
        return false;
    }
    out.lines.extend(block[..h].iter().map(|l| l.to_string()));
    let mut body: Vec<&str> = block[h..].to_vec();
    // a dashes line under the header (az, psql-like): dropped
    let mut dashes = false;
    if body.len() > 1 && is_border(body[1]) {
        body.remove(1);
        dashes = true;
        out.filtered += 1;
    }
    if body.len() < 2 {
        out.lines.extend(block[h..].iter().map(|l| l.to_string()));
        return false;
    }
    let grid = if body.iter().all(|l| l.contains('\t')) {
        tab_grid(&body)
    } else {
        None
    }
    .or_else(|| aligned_grid(&body));
    let Some(grid) = grid else {
        out.lines.extend(block[h..].iter().map(|l| l.to_string()));
        return false;
    };
    emit_grid(grid, &body, dashes || grid_is_tabbed(&body), out);
    true
}

fn grid_is_tabbed(body: &[&str]) -> bool {
    body.iter().all(|l| l.contains('\t'))
}

/// Header cells and row cells.
struct Grid {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    /// psql's `a | b` cells: written `a | b` again, without the padding.
    piped: bool,
}

fn tab_grid(body: &[&str]) -> Option<Grid> {
    let split = |l: &str| -> Vec<String> { l.split('\t').map(|c| c.trim().to_string()).collect() };
    let header = split(body[0]);
    let rows: Vec<Vec<String>> = body[1..].iter().map(|l| split(l)).collect();
    if header.len() < 2 || rows.iter().any(|r| r.len() != header.len()) {
        return None;
    }
    Some(Grid {
        header,
        rows,
        piped: false,
    })
}

/// Columns from character positions that are blank in the header and every row.
fn aligned_grid(body: &[&str]) -> Option<Grid> {
    let chars: Vec<Vec<char>> = body.iter().map(|l| l.chars().collect()).collect();
    let width = chars.iter().map(Vec::len).max()?;
    let blank: Vec<bool> = (0..width)
        .map(|p| chars.iter().all(|l| l.get(p).is_none_or(|c| *c == ' ')))
        .collect();
    let mut starts: Vec<usize> = (0..width)
        .filter(|&p| !blank[p] && (p == 0 || blank[p - 1]))
        .collect();
    if starts.len() < 2 {
        return None;
    }
    starts[0] = 0;
    let cell = |l: &[char], a: usize, b: Option<usize>| -> String {
        let end = b.unwrap_or(l.len()).min(l.len());
        if a >= end {
            return String::new();
        }
        l[a..end].iter().collect::<String>().trim().to_string()
    };
    // merge: columns without a header go to the previous column; a header word whose
    // cells are all empty and that sits one space after the previous word is part of it
    let mut cols: Vec<usize> = Vec::new();
    for (i, &s) in starts.iter().enumerate() {
        let next = starts.get(i + 1).copied();
        let head = cell(&chars[0], s, next);
        if i > 0 && head.is_empty() {
            continue;
        }
        if i > 0 {
            let all_empty = chars[1..].iter().all(|l| cell(l, s, next).is_empty());
            let one_space = s >= 2
                && chars[0].get(s - 1) == Some(&' ')
                && chars[0].get(s - 2).is_some_and(|c| *c != ' ');
            if all_empty && one_space {
                continue;
            }
        }
        cols.push(s);
    }
    if cols.len() < 2 {
        return None;
    }
    let split = |l: &[char]| -> Vec<String> {
        (0..cols.len())
            .map(|i| cell(l, cols[i], cols.get(i + 1).copied()))
            .collect()
    };
    let header = split(&chars[0]);
    if header.iter().any(String::is_empty) {
        return None;
    }
    let rows = chars[1..].iter().map(|l| split(l)).collect();
    Some(Grid {
        header,
        rows,
        piped: false,
    })
}

fn render_box(block: &[&str], out: &mut Render) -> bool {
    let mut rows: Vec<Vec<String>> = Vec::new();
    for l in block {
        let t = l.trim();
        if is_border(t) {
            out.filtered += 1;
            continue;
        }
        if !t.starts_with('│') {
            continue;
        }
        let cells: Vec<String> = t
            .trim_matches('│')
            .split('│')
            .map(|c| c.trim().to_string())
            .collect();
        rows.push(cells);
    }
    if rows.len() < 2 || rows.iter().any(|r| r.len() != rows[0].len()) {
        out.lines.extend(block.iter().map(|l| l.to_string()));
        return false;
    }
    let header = rows.remove(0);
    // text lines outside the box (before it) are kept
    for l in block {
        let t = l.trim();
        if !t.starts_with('│') && !is_border(t) {
            out.lines.push(l.to_string());
        }
    }
    emit_grid(
        Grid {
            header,
            rows,
            piped: false,
        },
        &[],
        true,
        out,
    );
    true
}

/// Fold constant columns and print the grid. `realign` re-renders even when nothing
/// was folded (tabs, boxes); otherwise unchanged tables keep their own layout.
fn emit_grid(grid: Grid, original: &[&str], realign: bool, out: &mut Render) {
    let n = grid.rows.len();
    let ncols = grid.header.len();
    let mut keep = vec![true; ncols];
    let mut notes: Vec<String> = Vec::new();
    if n >= 3 {
        for c in 1..ncols {
            let first = &grid.rows[0][c];
            if grid.rows.iter().all(|r| r[c] == *first) {
                keep[c] = false;
                if first.is_empty() {
                    notes.push(format!("{}=(empty)", grid.header[c]));
                } else {
                    notes.push(format!("{}={first}", grid.header[c]));
                }
            }
        }
        // never fold every column but the first
        if keep.iter().filter(|k| **k).count() < 2 {
            keep = vec![true; ncols];
            notes.clear();
        }
    }
    // process tables (top, htop): idle processes past the first rows keep only PID and command
    let idle = idle_processes(&grid);
    if !notes.is_empty() {
        out.lines
            .push(format!("(same in all {n} rows: {})", notes.join(", ")));
    }
    let counted = counting_runs(&grid, &keep, &idle.rows);
    let cut = counted.iter().filter(|c| c.is_none()).count() > MAX_ROWS;
    if !cut && idle.count == 0 && group_rows(&grid, &keep, out) {
        return;
    }
    let items = shown_rows(&grid, &idle.rows, &counted);
    let marker = |item: &Item, out: &mut Render| match item {
        Item::Row(_) => {}
        Item::Cut(k) => {
            out.lines.push(format!("... {k} rows omitted ..."));
            out.omitted += *k as u64;
        }
        Item::Counted(said) => out.lines.push(said.clone()),
    };
    if notes.is_empty() && !realign {
        out.lines.push(original[0].to_string());
        for item in &items {
            if let Item::Row(i) = item {
                out.lines
                    .push(clip_line(original[i + 1], 2000).into_owned());
            } else {
                marker(item, out);
            }
        }
        idle.summary(&grid, out);
        return;
    }
    let cols: Vec<usize> = (0..ncols).filter(|&c| keep[c]).collect();
    let clip = |s: &str| clip_line(s, MAX_CELL).into_owned();
    let mut widths: Vec<usize> = cols
        .iter()
        .map(|&c| grid.header[c].chars().count())
        .collect();
    for item in &items {
        if let Item::Row(i) = item {
            for (k, &c) in cols.iter().enumerate() {
                widths[k] = widths[k].max(clip(&grid.rows[*i][c]).chars().count().min(60));
            }
        }
    }
    let fmt = |cells: Vec<String>| -> String {
        if grid.piped {
            return cells.join(" | ");
        }
        let mut s = String::new();
        for (k, cell) in cells.iter().enumerate() {
            if k > 0 {
                s.push_str("  ");
            }
            s.push_str(cell);
            if k + 1 < cells.len() {
                let w = cell.chars().count();
                for _ in w..widths[k] {
                    s.push(' ');
                }
            }
        }
        s.trim_end().to_string()
    };
    out.lines
        .push(fmt(cols.iter().map(|&c| grid.header[c].clone()).collect()));
    for item in &items {
        if let Item::Row(i) = item {
            out.lines
                .push(fmt(cols.iter().map(|&c| clip(&grid.rows[*i][c])).collect()));
        } else {
            marker(item, out);
        }
    }
    idle.summary(&grid, out);
}

/// Fewest rows a run counting up is folded from.
const MIN_COUNTED: usize = 4;

/// Runs of [`MIN_COUNTED`]+ rows (not folded as idle) where each row is the row above
/// but for a few cells, the same ones each time, whose number is one more
/// (`lsof`'s `8  /proc/1/fd/8`, `9  /proc/1/fd/9`, …): for each row inside such a run
/// (neither its first nor its last), the marker said in place of the rows in between,
/// given at the run's second row; None for every other row.
fn counting_runs(grid: &Grid, keep: &[bool], idle: &[bool]) -> Vec<Option<String>> {
    let n = grid.rows.len();
    let mut inside: Vec<Option<String>> = vec![None; n];
    // the kept cells that count up from row i-1 to row i, when every other kept cell is the same
    let step = |i: usize| -> Option<Vec<usize>> {
        let (a, b) = (&grid.rows[i - 1], &grid.rows[i]);
        let mut up = Vec::new();
        for c in (0..a.len()).filter(|&c| keep[c]) {
            if a[c] != b[c] {
                if !crate::reduce::text::one_more(&a[c], &b[c]) {
                    return None;
                }
                up.push(c);
            }
        }
        (!up.is_empty()).then_some(up)
    };
    let mut s = 0;
    while s < n {
        let mut e = s;
        let mut cols: Option<Vec<usize>> = None;
        while e + 1 < n && !idle[s] && !idle[e + 1] {
            match step(e + 1) {
                Some(up) if cols.as_ref().is_none_or(|c| *c == up) => {
                    cols = Some(up);
                    e += 1;
                }
                _ => break,
            }
        }
        if e + 1 - s >= MIN_COUNTED {
            let names: Vec<&str> = cols
                .iter()
                .flatten()
                .map(|&c| grid.header[c].as_str())
                .collect();
            let said = format!(
                "... {} rows between, each the row above with {} one more ...",
                e - s - 1,
                names.join(", ")
            );
            for slot in &mut inside[s + 1..e] {
                *slot = Some(String::new());
            }
            inside[s + 1] = Some(said);
        }
        s = e + 1;
    }
    inside
}

/// A table's body as written: a row, rows omitted past [`MAX_ROWS`], or a run counting up.
enum Item {
    Row(usize),
    Cut(usize),
    Counted(String),
}

/// The rows shown, in order, with the markers between them: rows inside a run counting
/// up are its marker; past [`MAX_ROWS`] of the rest, the middle ones (from the first
/// three quarters on) are counted as omitted; idle rows go (said by [`Idle::summary`]).
fn shown_rows(grid: &Grid, idle: &[bool], counted: &[Option<String>]) -> Vec<Item> {
    let n = grid.rows.len();
    let rest: Vec<usize> = (0..n).filter(|&i| counted[i].is_none()).collect();
    let (cut_from, cut_to) = if rest.len() > MAX_ROWS {
        let from = MAX_ROWS * 3 / 4;
        (from, from + rest.len() - MAX_ROWS)
    } else {
        (rest.len(), rest.len())
    };
    // the rest's rows that are cut, and each row's place among the rest
    let mut cut_row = vec![false; n];
    for &i in &rest[cut_from..cut_to] {
        cut_row[i] = true;
    }
    let mut items = Vec::new();
    let mut omitted = 0;
    let mut i = 0;
    while i < n {
        match &counted[i] {
            Some(said) if !said.is_empty() => {
                // the run's rows in between, from here to the next row of the rest
                let end = (i..n).find(|&k| counted[k].is_none()).unwrap_or(n);
                let ends_shown = !cut_row[i - 1] && end < n && !cut_row[end];
                if ends_shown {
                    items.push(Item::Counted(said.clone()));
                } else {
                    omitted += end - i;
                }
                i = end;
                continue;
            }
            Some(_) => omitted += 1,
            None if cut_row[i] => {
                if !idle[i] {
                    omitted += 1;
                }
            }
            None => {
                if !idle[i] {
                    if omitted > 0 {
                        items.push(Item::Cut(omitted));
                        omitted = 0;
                    }
                    items.push(Item::Row(i));
                }
            }
        }
        i += 1;
    }
    if omitted > 0 {
        items.push(Item::Cut(omitted));
    }
    items
}

/// Rows that share every value but their name are written once naming them all.
const MIN_GROUP: usize = 3;

/// A table of [`MIN_GROUP`]+ rows alike but for one column whose values are all different
/// (`kubectl get pods`: the replicas of a deployment, `1/1 Running 0 2d3h` each): the
/// header, then each set of rows sharing the other (kept) columns as one line,
/// `[READY 1/1, STATUS Running, RESTARTS 0, AGE 2d3h] (12): api-7d9f-x2x8q api-7d9f-k9m2p …`,
/// the other rows as rows, in the order their values first come. False (nothing written)
/// when no set has [`MIN_GROUP`] rows or the table has no such name column.
fn group_rows(grid: &Grid, keep: &[bool], out: &mut Render) -> bool {
    let n = grid.rows.len();
    let cols: Vec<usize> = (0..grid.header.len()).filter(|&c| keep[c]).collect();
    if n < 2 * MIN_GROUP || cols.len() < 3 {
        return false;
    }
    // the name: the first kept column with a different value in every row
    let Some(&name) = cols.iter().find(|&&c| {
        let mut v: Vec<&str> = grid.rows.iter().map(|r| r[c].as_str()).collect();
        v.sort_unstable();
        v.dedup();
        v.len() == n && v.iter().all(|x| !x.is_empty() && !x.contains(' '))
    }) else {
        return false;
    };
    let others: Vec<usize> = cols.iter().copied().filter(|&c| c != name).collect();
    let key = |r: &Vec<String>| -> Vec<String> { others.iter().map(|&c| r[c].clone()).collect() };
    let mut order: Vec<Vec<String>> = Vec::new();
    let mut members: std::collections::HashMap<Vec<String>, Vec<usize>> = Default::default();
    for (i, r) in grid.rows.iter().enumerate() {
        let k = key(r);
        let m = members.entry(k.clone()).or_default();
        if m.is_empty() {
            order.push(k);
        }
        m.push(i);
    }
    if !members.values().any(|m| m.len() >= MIN_GROUP) {
        return false;
    }
    out.lines.push(
        cols.iter()
            .map(|&c| grid.header[c].as_str())
            .collect::<Vec<_>>()
            .join("  "),
    );
    let clip = |s: &str| clip_line(s, MAX_CELL).into_owned();
    for k in order {
        let m = &members[&k];
        if m.len() >= MIN_GROUP {
            let said: Vec<String> = others
                .iter()
                .zip(&k)
                .map(|(&c, v)| {
                    format!(
                        "{} {}",
                        grid.header[c],
                        if v.is_empty() { "(empty)" } else { v }
                    )
                })
                .collect();
            let names: Vec<&str> = m.iter().map(|&i| grid.rows[i][name].as_str()).collect();
            out.lines.push(format!(
                "[{}] ({}): {}",
                said.join(", "),
                m.len(),
                names.join(" ")
            ));
        } else {
            for &i in m {
                let cells: Vec<String> = cols.iter().map(|&c| clip(&grid.rows[i][c])).collect();
                out.lines.push(cells.join("  "));
            }
        }
    }
    true
}

/// Rows of a process table folded to `PID COMMAND`: those after the first
/// [`BUSY_ROWS`] whose CPU share is zero. Kernel threads at zero CPU (no memory at all:
/// VIRT, RES and SHR 0, and not a zombie) are folded wherever they are, counted by kind.
struct Idle {
    rows: Vec<bool>,
    pid: usize,
    cmd: usize,
    count: usize,
    kernel: Vec<bool>,
}

const BUSY_ROWS: usize = 20;
const MIN_PROCESS_ROWS: usize = 30;

fn idle_processes(grid: &Grid) -> Idle {
    let n = grid.rows.len();
    let find = |names: &[&str]| grid.header.iter().position(|h| names.contains(&h.as_str()));
    let mut idle = Idle {
        rows: vec![false; n],
        pid: 0,
        cmd: 0,
        count: 0,
        kernel: vec![false; n],
    };
    let (Some(cpu), Some(pid), Some(cmd)) = (
        find(&["%CPU", "CPU%"]),
        find(&["PID"]),
        find(&["COMMAND", "Command", "CMD"]),
    ) else {
        return idle;
    };
    if n < MIN_PROCESS_ROWS {
        return idle;
    }
    idle.pid = pid;
    idle.cmd = cmd;
    let zero_cpu = |r: &Vec<String>| r[cpu].parse::<f64>().is_ok_and(|v| v == 0.0);
    let memory: Vec<usize> = ["VIRT", "RES", "SHR"]
        .iter()
        .filter_map(|h| find(&[h]))
        .collect();
    let state = find(&["S"]);
    let kernel = |r: &Vec<String>| {
        memory.len() == 3
            && memory.iter().all(|&c| r[c] == "0")
            && state.is_none_or(|s| r[s] != "Z")
            && zero_cpu(r)
    };
    let kernel_rows: Vec<bool> = grid.rows.iter().map(kernel).collect();
    if kernel_rows.iter().any(|k| !k) {
        idle.kernel = kernel_rows;
    }
    for (i, r) in grid.rows.iter().enumerate() {
        if idle.kernel[i] {
            idle.rows[i] = true;
        } else if i >= BUSY_ROWS && zero_cpu(r) {
            idle.rows[i] = true;
            idle.count += 1;
        }
    }
    idle
}

impl Idle {
    fn summary(&self, grid: &Grid, out: &mut Render) {
        let folded = |kernel: bool| {
            grid.rows
                .iter()
                .enumerate()
                .filter(move |(i, _)| self.rows[*i] && self.kernel[*i] == kernel)
                .map(|(_, r)| r)
        };
        if self.count > 0 {
            let list: Vec<String> = folded(false)
                .map(|r| format!("{} {}", r[self.pid], clip_line(&r[self.cmd], 60)))
                .collect();
            out.lines.push(format!(
                "{} at 0.0% CPU (PID COMMAND): {}",
                pluralize(self.count as u64, "more process"),
                list.join(", ")
            ));
        }
        let kernel = self.kernel.iter().filter(|k| **k).count();
        if kernel > 0 {
            let kinds = super::ps::kernel_thread_kinds(folded(true).map(|r| r[self.cmd].as_str()));
            out.lines.push(format!(
                "[{} at 0.0% CPU folded: {kinds}; --raw shows {}]",
                pluralize(kernel as u64, "kernel thread"),
                if kernel == 1 { "it" } else { "them" }
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Option<StructuredOutput> {
        crate::reduce::structured::feed(Box::new(Table::default()), text, 0)
    }

    #[test]
    fn folds_constant_columns_and_keeps_every_row() {
        let text = "NAME                     READY   STATUS             RESTARTS   AGE
api-7d9f8b6c5-abcde      1/1     Running            0          2d
api-7d9f8b6c5-fghij      1/1     Running            0          2d
worker-5c4b3a2-klmno     1/1     CrashLoopBackOff   0          3h
";
        let out = run(text).unwrap();
        let t = out.lines.join("\n");
        assert!(
            t.contains("(same in all 3 rows: READY=1/1, RESTARTS=0)"),
            "{t}"
        );
        for want in [
            "api-7d9f8b6c5-abcde",
            "api-7d9f8b6c5-fghij",
            "worker-5c4b3a2-klmno  CrashLoopBackOff  3h",
        ] {
            assert!(t.contains(want), "{want} missing:\n{t}");
        }
    }

    #[test]
    fn multi_word_headers_and_empty_columns() {
        let text = "CONTAINER ID   IMAGE     COMMAND   STATUS
abc123         api       \"node\"    Up 2 hours
def456         db        \"pg\"      Exited (1) 3 minutes ago
";
        let out = run(text).unwrap();
        assert_eq!(out.lines[0], "CONTAINER ID   IMAGE     COMMAND   STATUS");
        assert_eq!(out.lines.len(), 3);
        let gc = "NAME    ZONE   PREEMPTIBLE  STATUS
a       z1                  RUNNING
b       z1                  RUNNING
c       z2                  STOPPED
";
        let t = run(gc).unwrap().lines.join("\n");
        assert!(t.contains("PREEMPTIBLE=(empty)"), "{t}");
        assert!(
            t.contains("c     z2    STOPPED") || t.contains("c  z2    STOPPED"),
            "{t}"
        );
    }

    #[test]
    fn idle_kernel_threads_of_a_process_table_fold_by_kind_wherever_they_are() {
        let mut text = String::from(
            "  PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND\n",
        );
        text.push_str(
            " 4227 root      20   0   63176  42632  23452 R  58.8   0.2   0:00.16 mypy\n",
        );
        text.push_str(
            "   12 root      20   0       0      0      0 S   3.1   0.0   0:00.50 kworker/u8:1\n",
        );
        for i in 0..20 {
            text.push_str(&format!(
                "  {:>3} root      20   0       0      0      0 I   0.0   0.0   0:00.00 kworker/{i}:0H\n",
                100 + i
            ));
        }
        text.push_str(
            "  200 root      20   0       0      0      0 Z   0.0   0.0   0:00.00 defunct\n",
        );
        for i in 0..10 {
            text.push_str(&format!(
                "  {:>3} root      20   0   10000   5000   3000 S   0.0   0.0   0:00.00 sleep{i}\n",
                300 + i
            ));
        }
        text.push_str(
            "  400 root      20   0       0      0      0 S   0.0   0.0   0:00.00 migration/0\n",
        );
        let out = run(&text).unwrap();
        let t = out.lines.join("\n");
        // a busy kernel thread and a zombie stay rows; idle ones fold, counted by kind
        assert!(t.contains("kworker/u8:1"), "{t}");
        assert!(t.contains("defunct"), "{t}");
        assert!(!t.contains("kworker/3:0H"), "{t}");
        assert!(
            t.contains(
                "[21 kernel threads at 0.0% CPU folded: kworker ×20, migration; --raw shows them]"
            ),
            "{t}"
        );
        // the other idle processes past the first rows are listed by PID
        assert!(
            t.contains("more processes at 0.0% CPU (PID COMMAND): "),
            "{t}"
        );
        assert!(t.contains("309 sleep9"), "{t}");
    }

    #[test]
    fn psql_results_keep_every_row_without_the_padding() {
        let mut text = String::from(
            "       name        | country | total |  status\n-------------------+---------+-------+-----------\n",
        );
        for i in 0..40 {
            text.push_str(&format!(
                " Customer {i:<8} | GB      | {:>5} | shipped\n",
                i * 3
            ));
        }
        text.push_str(" Grace Hopper      | US      |  5.00 | pending\n(41 rows)\n\nINSERT 0 1\n");
        let out = run(&text).unwrap();
        assert_eq!(out.lines[0], "name | country | total | status");
        assert_eq!(out.lines[1], "Customer 0 | GB | 0 | shipped");
        assert_eq!(out.lines[41], "Grace Hopper | US | 5.00 | pending");
        assert_eq!(out.lines[42], "(41 rows)");
        assert!(out.lines.contains(&"INSERT 0 1".to_string()));
        // a row whose cells do not line up ends the table; what follows is kept as it is
        let odd = "a | b\n---+---\n1 | 2\n3 | 4 | 5\n(2 rows)\n";
        let out = run(odd).unwrap();
        assert_eq!(out.lines, vec!["a | b", "1 | 2", "3 | 4 | 5", "(2 rows)"]);
        // mysql draws the same table between borders
        let my = "+--------------+-----+\n| name         | id  |\n+--------------+-----+\n| Ada Lovelace | 101 |\n| Grace Hopper | 102 |\n+--------------+-----+\n2 rows in set (0.00 sec)\n";
        let out = run(my).unwrap();
        assert_eq!(
            out.lines,
            vec![
                "name | id",
                "Ada Lovelace | 101",
                "Grace Hopper | 102",
                "2 rows in set (0.00 sec)"
            ]
        );
        assert_eq!(out.filtered, 3);
    }

    #[test]
    fn box_tables_lose_their_borders() {
        let text = "┌────┬────────┬─────────┐
│ id │ name   │ status  │
├────┼────────┼─────────┤
│ 0  │ api    │ online  │
│ 1  │ worker │ errored │
└────┴────────┴─────────┘
";
        let out = run(text).unwrap();
        let t = out.lines.join("\n");
        assert!(!t.contains('│') && !t.contains('─'), "{t}");
        assert!(t.contains("1   worker  errored"), "{t}");
        assert_eq!(out.filtered, 3);
    }

    #[test]
    fn many_rows_are_cut_with_a_count() {
        let mut text = String::from("NAME     STATUS\n");
        for i in 0..450 {
            text.push_str(&format!("pod-{:04}  Running\n", i * 3));
        }
        let out = run(&text).unwrap();
        assert_eq!(out.omitted, 50);
        assert!(out.lines.iter().any(|l| l == "... 50 rows omitted ..."));
        assert!(out.lines.iter().any(|l| l.starts_with("pod-1347")));
    }

    #[test]
    fn rows_counting_up_are_their_first_and_last_with_the_count_between() {
        let mut text = String::from("COMMAND  PID  FD   NAME\n");
        text.push_str("init     1    cwd  /proc/1/cwd (denied)\n");
        for fd in (0..300).chain(302..306) {
            text.push_str(&format!("init     1    {fd:<4} /proc/1/fd/{fd} (denied)\n"));
        }
        // two cells changing, but not together: no run
        for (fd, name) in [(7, 1), (8, 1), (9, 2), (10, 2)] {
            text.push_str(&format!("sh       9    {fd:<4} /dev/pts/{name}\n"));
        }
        let out = run(&text).unwrap();
        let t = out.lines.join("\n");
        assert_eq!(out.omitted, 0);
        assert!(
            t.contains(
                "init     1    0    /proc/1/fd/0 (denied)
... 298 rows between, each the row above with FD, NAME one more ...
init     1    299  /proc/1/fd/299 (denied)
init     1    302  /proc/1/fd/302 (denied)
... 2 rows between, each the row above with FD, NAME one more ...
init     1    305  /proc/1/fd/305 (denied)
sh       9    7    /dev/pts/1
sh       9    8    /dev/pts/1
sh       9    9    /dev/pts/2
sh       9    10   /dev/pts/2"
            ),
            "{t}"
        );
    }

    #[test]
    fn a_run_counting_up_across_the_cut_is_counted_with_it() {
        let mut text = String::from("NAME     STATUS\n");
        for i in 0..500 {
            text.push_str(&format!("pod-{:04}  Running\n", i * 3));
        }
        for i in 0..100 {
            text.push_str(&format!("job-{i:03}  Done\n"));
        }
        let out = run(&text).unwrap();
        let t = out.lines.join("\n");
        // the job run is two rows and a marker: 502 rows are left, 102 past the 400 shown
        assert_eq!(out.omitted, 102, "{t}");
        assert!(t.contains("job-000  Done\n... 98 rows between"), "{t}");
        assert!(t.ends_with("job-099  Done"), "{t}");
    }

    #[test]
    fn rows_alike_but_for_their_name_are_one_line_naming_them_all() {
        let mut text = String::from("NAME                     READY   STATUS    RESTARTS   AGE\n");
        for i in 0..5 {
            text.push_str(&format!(
                "api-7d9f8b6c5-pod{i}       1/1     Running   0          2d3h\n"
            ));
        }
        text.push_str("worker-6b7c8d9e0-m4n7q   0/1     Error     3          2d3h\n");
        text.push_str("db-0                     1/1     Running   0          9d\n");
        let t = run(&text).unwrap().lines.join("\n");
        assert_eq!(
            t,
            "NAME  READY  STATUS  RESTARTS  AGE
[READY 1/1, STATUS Running, RESTARTS 0, AGE 2d3h] (5): api-7d9f8b6c5-pod0 api-7d9f8b6c5-pod1 api-7d9f8b6c5-pod2 api-7d9f8b6c5-pod3 api-7d9f8b6c5-pod4
worker-6b7c8d9e0-m4n7q  0/1  Error  3  2d3h
db-0  1/1  Running  0  9d"
        );
        // no three rows alike: the table stays as it was
        let few = "NAME    READY   STATUS    AGE\na-1     1/1     Running   1d\nb-1     1/1     Running   1d\nc-1     0/1     Error     1d\nd-1     1/1     Pending   2d\ne-1     0/1     Running   3d\nf-1     1/1     Error     4d\n";
        let t = run(few).unwrap().lines.join("\n");
        assert!(t.contains("a-1     1/1     Running   1d"), "{t}");
    }

    #[test]
    fn idle_processes_keep_pid_and_command() {
        let mut text = String::from("    PID USER      %CPU COMMAND\n");
        for i in 0..40 {
            let cpu = if i < 3 { "12.5" } else { " 0.0" };
            let user = if i % 2 == 0 { "root" } else { "dana" };
            text.push_str(&format!("{:>7} {user}      {cpu} proc{i}\n", 100 + i));
        }
        let out = run(&text).unwrap();
        let t = out.lines.join("\n");
        assert!(t.contains("    102 root      12.5 proc2"), "{t}");
        assert!(t.contains("    119 dana       0.0 proc19"), "{t}");
        assert!(
            t.contains("20 more processes at 0.0% CPU (PID COMMAND): 120 proc20, 121 proc21"),
            "{t}"
        );
        assert!(t.ends_with("139 proc39"), "{t}");
        assert!(!t.contains("0.0 proc20"), "{t}");
    }

    #[test]
    fn not_a_table() {
        assert!(run("error: the server doesn't have a resource type \"podz\"\n").is_none());
        assert!(
            run("Cannot connect to the Docker daemon at unix:///var/run/docker.sock.\n").is_none()
        );
        let prose = "Error: Unable To Connect\nretrying in 1s\nretrying in 2s\nretrying in 4s\n";
        assert!(run(prose).is_none());
    }
}
