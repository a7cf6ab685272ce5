//! Blocks of lines that come again: a group of two to [`MAX_PERIOD`] lines repeated at least
//! three times in a row (a group of [`MIN_LONE`] or more: twice), line for line of the same
//! shape (numbers, hashes and times aside) — a connection pool's shutdown messages once per
//! pool, a retry's log lines and traceback once per attempt. The line engine folds runs of similar lines; a block of unlike lines that
//! comes again is not such a run, so it used to be shown every time.
//!
//! The block is shown once, then one marker stands for its repeats and names, for each
//! repeat, the words that differ from the first (`HikariPool-3 5008ms | HikariPool-4
//! 5009ms`): only its times of day go, as in a fold of similar lines. A block is folded only
//! when every repeat's lines have as many words as the first's and the words listed fit in
//! [`MAX_LISTED`] characters, so nothing but times is left out; the repeats past that start
//! a block of their own.

use super::render::{is_marker, Body};
use super::shape::{shape, without_times, Fold};

/// No folding: a line's shape is its very text.
const EXACT: Fold = Fold {
    numbers: false,
    hashes: false,
    paths: false,
};

/// Most lines in a block (a C compiler's warnings for one file, each with its source
/// line and caret, run past 16).
pub const MAX_PERIOD: usize = 32;
/// Most characters of words listed for one folded block.
pub const MAX_LISTED: usize = 2000;
/// The fewest lines of a block folded when it comes only twice.
const MIN_LONE: usize = 4;
/// A repeat whose words are all the first block's.
const SAME: &str = "the same";
/// Most lines one marker's block and repeats span.
const MAX_SCAN: usize = 3200;

/// `lines` with each block that comes again (see [`enough`]) shown once and a marker for
/// its repeats; and how many lines the markers stand for.
pub fn fold_blocks(lines: Vec<String>, fold: Fold) -> (Vec<String>, u64) {
    if lines.len() < 6 || !may_fold(&lines, fold) {
        return (lines, 0);
    }
    fold_found_blocks(lines, fold)
}

/// [`fold_blocks`] without the cheap look first.
fn fold_found_blocks(lines: Vec<String>, fold: Fold) -> (Vec<String>, u64) {
    let n = lines.len();
    // an omission marker (`... 3 lines omitted ...`) matches only the very same marker; a
    // fold's marker (`... 88 similar lines ...`) stands for lines of its own and matches
    // nothing
    let shapes: Vec<u64> = lines
        .iter()
        .enumerate()
        .map(|(k, l)| {
            if !is_marker(l) {
                shape(l, fold)
            } else if l.contains(" omitted") {
                shape(l, EXACT)
            } else {
                !(k as u64)
            }
        })
        .collect();
    let mut out = Vec::with_capacity(n);
    let mut folded = 0u64;
    let mut i = 0;
    // where the lines shown as they are since the last marker start
    let mut plain_from = 0;
    while i < n {
        match best_block(&lines, &shapes, i, plain_from) {
            Some((start, period, repeats, marker)) => {
                out.truncate(out.len() - (i - start));
                out.extend(lines[start..start + period].iter().cloned());
                out.push(marker);
                folded += (period * repeats) as u64;
                i = start + period * (repeats + 1);
                plain_from = i;
            }
            None => {
                out.push(lines[i].clone());
                i += 1;
            }
        }
    }
    (out, folded)
}

/// Whether some block of `lines` may come again, judged by a key that lines of one shape
/// always share: the hash of their bytes that no folded token can hold (a number or a hash
/// is made of digits, hex letters, `.` and `-`; a path, when paths fold, of anything but a
/// space, so then only the spaces count). Most outputs have no such block, and this costs a
/// fraction of hashing every line's shape. It never says no where [`fold_blocks`] folds.
fn may_fold(lines: &[String], fold: Fold) -> bool {
    const PRIME: u64 = 0x0100_0000_01b3;
    let keys: Vec<u64> = lines
        .iter()
        .map(|l| {
            l.bytes()
                .filter(|&b| {
                    if fold.paths {
                        b == b' '
                    } else {
                        !(b.is_ascii_hexdigit() || b == b'.' || b == b'-')
                    }
                })
                .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                    (h ^ u64::from(b)).wrapping_mul(PRIME)
                })
        })
        .collect();
    let n = keys.len();
    (0..n).any(|i| {
        (2..=MAX_PERIOD).any(|period| {
            let times = if period >= MIN_LONE { 2 } else { 3 };
            i + times * period <= n
                && keys[i + period] == keys[i]
                && (1..times)
                    .all(|r| keys[i + r * period..i + (r + 1) * period] == keys[i..i + period])
        })
    })
}

/// [`fold_blocks`] on a rendered body, its folded count kept.
pub fn fold_body(body: &mut Body, fold: Fold) {
    let (lines, folded) = fold_blocks(std::mem::take(&mut body.lines), fold);
    body.lines = lines;
    body.folded += folded;
}

/// About how many of `lines` the repeats of blocks would stand for: a cheap look before
/// reducing an output a second time to fold them. Lines are compared by [`rough_shape`], not
/// by the rule's folding: far cheaper, and a block it sees is checked again properly by the
/// second reduction.
pub fn foldable_lines(lines: &[&str]) -> usize {
    let shapes: Vec<u64> = lines.iter().map(|l| rough_shape(l)).collect();
    let mut covered = 0;
    let mut i = 0;
    while i < shapes.len() {
        match longest_run(&shapes, i) {
            Some((period, repeats)) => {
                covered += period * repeats;
                i += period * (repeats + 1);
            }
            None => i += 1,
        }
    }
    covered
}

/// A rough shape: the line's first 64 bytes with each word holding a digit (a number, a
/// time, a hex id) taken as one and the same word, and its number of spaces. Lines of one
/// shape have the same rough shape (but for a hex id without a digit); it costs a fraction
/// of [`shape`].
fn rough_shape(line: &str) -> u64 {
    const PRIME: u64 = 0x0100_0000_01b3;
    let all = line.as_bytes();
    let b = &all[..all.len().min(64)];
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < b.len() {
        let end = b[i..]
            .iter()
            .position(|c| !c.is_ascii_alphanumeric())
            .map_or(b.len(), |k| i + k);
        if end == i {
            h = (h ^ u64::from(b[i])).wrapping_mul(PRIME);
            i += 1;
            continue;
        }
        let word = &b[i..end];
        if word.iter().any(u8::is_ascii_digit) {
            h = (h ^ 0x100).wrapping_mul(PRIME);
        } else {
            for &c in word {
                h = (h ^ u64::from(c)).wrapping_mul(PRIME);
            }
        }
        i = end;
    }
    let spaces = all.iter().filter(|&&c| c == b' ').count() as u64;
    (h ^ spaces).wrapping_mul(PRIME)
}

/// The block starting at `i` whose repeats cover the most lines, by shape: its length and
/// how many times it comes again.
fn longest_run(shapes: &[u64], i: usize) -> Option<(usize, usize)> {
    let n = shapes.len();
    let mut best: Option<(usize, usize)> = None;
    for period in 2..=MAX_PERIOD {
        if i + 2 * period > n {
            break;
        }
        let block = &shapes[i..i + period];
        // the first line must come again a period later (most lines: no block)
        if shapes[i + period] != block[0] {
            continue;
        }
        // lines all of one shape are a run of similar lines, the engine's to fold; and a block
        // of few shapes is most likely such a run whose lines differ by chance in a way
        // that repeats (`✕ name (1 ms)` or without the time): a block worth saying once is
        // mostly lines unlike each other
        let distinct = (0..period)
            .filter(|&k| !block[..k].contains(&block[k]))
            .count();
        if distinct * 2 < period || distinct == 1 {
            continue;
        }
        // the same number of lines looked at for every length, so that a block twice or
        // three times as long (the same block taken twice) never seems to fold more
        let mut repeats = 0;
        while (repeats + 2) * period <= MAX_SCAN
            && i + (repeats + 2) * period <= n
            && shapes[i + (repeats + 1) * period..i + (repeats + 2) * period] == *block
        {
            repeats += 1;
        }
        if enough(period, repeats) && best.is_none_or(|(p, r)| period * repeats > p * r) {
            best = Some((period, repeats));
        }
    }
    best
}

/// The block starting at `i` that folds the most lines: where it starts, its length, how
/// many times it comes again, and the marker for those repeats.
///
/// The first time a block is printed may differ in shape from its repeats in its first
/// lines (`expected +0 to be 1`, then `expected 1 to be 2`): the block is then found a few
/// lines into it, and shown from there it would start in the middle of one record and end
/// in the next. So it starts earlier, at most back to `plain_from`, over the lines before
/// `i` that have as many words as the line a block later, the same first word and most
/// others the same (a blank line is never such a line): the marker lists what differs in
/// them, as in the others.
fn best_block(
    lines: &[String],
    shapes: &[u64],
    i: usize,
    plain_from: usize,
) -> Option<(usize, usize, usize, String)> {
    let (period, repeats) = longest_run(shapes, i)?;
    // as many words, most of them the same, the first one too; a marker only ever matches
    // the very same marker (see `shapes`)
    let alike = |a: &str, b: &str| {
        if is_marker(a) || is_marker(b) {
            return false;
        }
        let (wa, wb) = (words(a).0, words(b).0);
        let said = wa.iter().filter(|w| !w.is_empty()).count();
        let differ = wa.iter().zip(&wb).filter(|(x, y)| x != y).count();
        wa.len() == wb.len()
            && wa.iter().find(|w| !w.is_empty()) == wb.iter().find(|w| !w.is_empty())
            && differ * 2 < said
    };
    let mut back = 0;
    while back + 1 < period
        && i > plain_from + back
        && alike(&lines[i - back - 1], &lines[i - back - 1 + period])
    {
        back += 1;
    }
    if back > 0 {
        // the repeats, counted again from there: each like the first one
        let start = i - back;
        let first = &shapes[start + period..start + 2 * period];
        let mut again = 1;
        while (again + 2) * period <= MAX_SCAN
            && start + (again + 2) * period <= shapes.len()
            && shapes[start + (again + 1) * period..start + (again + 2) * period] == *first
        {
            again += 1;
        }
        if let Some((again, marker)) = block_marker(lines, start, period, again) {
            return Some((start, period, again, marker));
        }
    }
    let (repeats, marker) = block_marker(lines, i, period, repeats)?;
    Some((i, period, repeats, marker))
}

/// The marker for the block of `period` lines at `i` and (at most) `repeats` repeats after
/// it, by their words: how many repeats it stands for, and its text.
fn block_marker(
    lines: &[String],
    i: usize,
    period: usize,
    repeats: usize,
) -> Option<(usize, String)> {
    let first: Vec<Vec<String>> = lines[i..i + period].iter().map(|l| words(l).0).collect();
    let mut said: Vec<String> = Vec::new();
    let mut chars = 0;
    let mut times = false;
    for r in 1..=repeats {
        let mut differ: Vec<String> = Vec::new();
        let mut fits = true;
        let mut timed_here = false;
        for (j, first_words) in first.iter().enumerate() {
            let (w, timed) = words(&lines[i + r * period + j]);
            timed_here |= timed;
            if w.len() != first_words.len() {
                fits = false;
                break;
            }
            for (a, b) in first_words.iter().zip(w) {
                // a word said once per repeat (a pool's name on each of its lines, or in
                // brackets on one)
                if *a != b && !differ.iter().any(|d| same_word(d, &b)) {
                    differ.push(b);
                }
            }
        }
        let text = if differ.is_empty() {
            SAME.to_string()
        } else {
            differ.join(" ")
        };
        chars += text.len() + 3;
        // repeats that are all "the same" list nothing: any number of them is one marker
        let lists = !differ.is_empty() || said.iter().any(|w| w != SAME);
        if !fits || chars > MAX_LISTED && lists {
            break;
        }
        times |= timed_here;
        said.push(text);
    }
    let repeats = said.len();
    if !enough(period, repeats) {
        return None;
    }
    let again = if repeats == 1 {
        "once".to_string()
    } else {
        format!("{repeats} times")
    };
    let marker = match (times, said.iter().all(|w| w == SAME)) {
        (false, true) => {
            format!("... the {period} lines above again {again}, the same ...")
        }
        (true, true) => {
            format!("... the {period} lines above again {again}, the same but for the times ...")
        }
        (aside, false) => format!(
            "... the {period} lines above again {again}; {}what differs: {} ...",
            if aside { "besides the times, " } else { "" },
            said.join(" | ")
        ),
    };
    Some((repeats, marker))
}

/// The same word said again in a repeat, maybe with other punctuation around it
/// (`HikariPool-3`, `[HikariPool-3`): listed once. Short words (`3`, `ok`) are listed each
/// time, as they may well be different facts (an attempt's number and its delay).
fn same_word(a: &str, b: &str) -> bool {
    let core = |w: &'_ str| w.trim_matches(|c: char| !c.is_alphanumeric()).to_owned();
    core(a).chars().count() >= 4 && core(a) == core(b)
}

/// Worth a marker: a block seen three times, or a long one ([`MIN_LONE`] lines) twice.
fn enough(period: usize, repeats: usize) -> bool {
    repeats >= 2 || repeats == 1 && period >= MIN_LONE
}

/// The words of a line with its times of day taken out, and whether it held any.
fn words(line: &str) -> (Vec<String>, bool) {
    let text = without_times(line);
    let timed = matches!(text, std::borrow::Cow::Owned(_));
    (text.split(' ').map(str::to_string).collect(), timed)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FOLD: Fold = Fold {
        numbers: true,
        hashes: true,
        paths: false,
    };

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    /// A pool's three shutdown lines, for pool `n`.
    fn pool(n: u32) -> String {
        format!(
            "10:00:0{d}.120 WARN pool-{n}: connection c@{h:08x} is closed\n\
             10:00:0{d}.340 ERROR pool-{n}: no connection within {ms}ms\n\
             10:00:0{d}.350 INFO pool-{n}: shut down\n",
            d = n % 10,
            h = 0x5f00_0000u32 + n * 977,
            ms = 5000 + n
        )
    }

    #[test]
    fn a_block_that_comes_again_is_shown_once_with_what_differs_in_each_repeat() {
        let text: String = (1..=5).map(pool).collect::<String>() + "done\n";
        let (out, folded) = fold_blocks(lines(&text), FOLD);
        assert_eq!(folded, 12);
        assert_eq!(out.len(), 5, "{out:#?}");
        assert_eq!(out[..3], lines(&pool(1))[..]);
        assert_eq!(
            out[3],
            format!(
                "... the 3 lines above again 4 times; besides the times, what differs: \
                 pool-2: c@{:08x} 5002ms | pool-3: c@{:08x} 5003ms | pool-4: c@{:08x} 5004ms | \
                 pool-5: c@{:08x} 5005ms ...",
                0x5f00_0000u32 + 2 * 977,
                0x5f00_0000u32 + 3 * 977,
                0x5f00_0000u32 + 4 * 977,
                0x5f00_0000u32 + 5 * 977
            )
        );
        assert_eq!(out[4], "done");
    }

    #[test]
    fn a_compiler_s_diagnostics_for_each_of_several_files_alike_fold_as_one_long_block() {
        // `make -k` over files failing alike: a 20-line block of warnings, notes and carets
        let file = |n: u32| -> String {
            let mut t = format!("f{n}.c: In function 'f{n}':\n");
            for (col, what) in [
                (25, "suggest parentheses around assignment"),
                (51, "implicit declaration of function 'sprintf'"),
                (51, "incompatible implicit declaration of 'sprintf'"),
                (37, "'y' is used uninitialized"),
                (19, "unused variable 'z'"),
                (9, "control reaches end of non-void function"),
            ] {
                t.push_str(&format!("f{n}.c:1:{col}: warning: {what}\n"));
                t.push_str(&format!(
                    "    1 | int f{n}(int x) {{ if (x = 1) return y; }}\n"
                ));
                t.push_str(&format!("      |{:>col$}\n", "^"));
            }
            t.push_str("... 1 line omitted ...\n");
            t
        };
        let text: String = (1..=4).map(file).collect();
        assert_eq!(lines(&file(1)).len(), 20);
        let (out, folded) = fold_blocks(lines(&text), FOLD);
        assert_eq!(folded, 60, "{out:#?}");
        assert_eq!(out[..20], lines(&file(1))[..]);
        assert!(
            out[20].starts_with(
                "... the 20 lines above again 3 times; what differs: f2.c: 'f2': f2.c:1:25: f2(int"
            ),
            "{out:#?}"
        );
    }

    #[test]
    fn a_block_whose_first_showing_differs_in_shape_starts_where_its_first_showing_does() {
        // vitest: the first failure's `+0` has a sign the others' numbers lack
        let fail = |n: u32, got: &str| {
            format!(
                " FAIL  t.test.mjs > subtotal of {n} items\n\
                 AssertionError: expected {got} to be {}\n\
                 \n- Expected\n+ Received\n\n ❯ t.test.mjs:7:27\n\n",
                n + 1
            )
        };
        let mut text = String::from("Failed Tests 6\n\n");
        text += &fail(0, "+0");
        for n in 1..6 {
            text += &fail(n, &n.to_string());
        }
        let (out, folded) = fold_blocks(lines(&text), FOLD);
        assert_eq!(folded, 40, "{out:#?}");
        assert_eq!(
            out[2], " FAIL  t.test.mjs > subtotal of 0 items",
            "{out:#?}"
        );
        assert_eq!(out[3], "AssertionError: expected +0 to be 1", "{out:#?}");
        assert_eq!(
            out[10],
            "... the 8 lines above again 5 times; what differs: 1 1 2 | 2 2 3 | 3 3 4 | 4 4 5 | 5 5 6 ...",
            "{out:#?}"
        );
        assert_eq!(out.len(), 11, "{out:#?}");
    }

    #[test]
    fn a_block_never_reaches_back_into_an_unlike_line_of_as_many_words() {
        // jest: the list's last line has as many words (and leading spaces) as the
        // block's last line, and nothing else in common
        let mut text = String::from("  ✕ subtotal of 5 items (1 ms)\n");
        for n in 0..5 {
            text += &format!(
                "\n  ● subtotal of {n} items\n\n    Expected: {}\n    Received: {n}\n\n      at toBe (t.test.js:4:27)\n",
                n + 1
            );
        }
        let (out, folded) = fold_blocks(lines(&text), FOLD);
        assert_eq!(folded, 28, "{out:#?}");
        assert_eq!(
            out[..3],
            lines("  ✕ subtotal of 5 items (1 ms)\n\n  ● subtotal of 0 items")[..],
            "{out:#?}"
        );
    }

    #[test]
    fn only_a_block_seen_three_times_line_for_line_folds() {
        // twice is not enough
        let two: String = (1..=2).map(pool).collect();
        assert_eq!(fold_blocks(lines(&two), FOLD), (lines(&two), 0));
        // a repeat with a word more on one line ends the run (and so nothing folds)
        let odd = pool(1) + &pool(2) + &pool(3).replace("is closed", "is now closed");
        assert_eq!(fold_blocks(lines(&odd), FOLD).1, 0);
        // lines all of one shape are a run of similar lines: the engine's, not a block
        let similar: String = (0..12).map(|i| format!("fetched chunk {i}\n")).collect();
        assert_eq!(fold_blocks(lines(&similar), FOLD).1, 0);
        // an omission marker matches only the very same marker
        let marked = |n: u32, cut: u32| format!("step {n} began\n... {cut} lines omitted ...\n");
        let same: String = (1..=4).map(|n| marked(n, 3)).collect();
        let (out, folded) = fold_blocks(lines(&same), FOLD);
        assert_eq!(folded, 6);
        assert_eq!(
            out[2],
            "... the 2 lines above again 3 times; what differs: 2 | 3 | 4 ..."
        );
        let differ: String = (1..=4).map(|n| marked(n, n)).collect();
        assert_eq!(fold_blocks(lines(&differ), FOLD).1, 0);
        // a fold's marker stands for lines of its own: no block holds one
        let run = |n: u32| {
            format!("GET /a 200 {n}ms\n... 88 similar lines ...\nGET /b 200 {n}ms\nWARN slow query: {n}ms\n")
        };
        let runs: String = (1..=4).map(run).collect();
        assert_eq!(fold_blocks(lines(&runs), FOLD).1, 0);
        // a block of four lines or more folds when it comes twice
        let long =
            |n: u32| format!("try {n}\nError: refused\n  at connect (net.js:{n})\nretry in {n}s\n");
        let (out, folded) = fold_blocks(lines(&(long(1) + &long(2))), FOLD);
        assert_eq!(folded, 4);
        assert_eq!(
            out[4],
            "... the 4 lines above again once; what differs: 2 (net.js:2) 2s ..."
        );
        let short = "a 1\nb\na 2\nb\n";
        assert_eq!(fold_blocks(lines(short), FOLD).1, 0);
        // the block is the shortest that repeats (not two or three of it taken together),
        // and a short word is listed each time it differs (attempt 3, delay 3)
        let attempt = |n: u32| {
            format!(
                "attempt {n} begins\nattempt {n} failed\nretry in {} s\n",
                n % 4
            )
        };
        let text: String = (0..300).map(attempt).collect();
        let (out, _) = fold_blocks(lines(&text), FOLD);
        assert!(
            out[3].starts_with("... the 3 lines above again "),
            "{}",
            out[3]
        );
        assert!(out[3].contains(" | 3 3 3 | 4 4 | 5 5 1 | "), "{}", out[3]);
    }

    #[test]
    fn the_rough_look_finds_blocks_with_ids_and_nothing_in_unrelated_lines() {
        let ids = ["3f9c2a71", "c27a9f53", "a94c7e28", "1d6f3b90"];
        let text: String = ids
            .iter()
            .enumerate()
            .map(|(n, id)| {
                format!("attempt {n}: request {id}\nTraceback (most recent call last):\nretrying {id} in {n}00 ms\n")
            })
            .collect();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(foldable_lines(&lines), 9);
        // 40 lines of distinct words
        let other: Vec<String> = (0..40u8)
            .map(|i| {
                format!(
                    "line {}{}",
                    (b'a' + i % 26) as char,
                    (b'a' + i / 26) as char
                )
            })
            .collect();
        let other: Vec<&str> = other.iter().map(String::as_str).collect();
        assert_eq!(foldable_lines(&other), 0);
    }

    #[test]
    fn repeats_whose_words_do_not_fit_the_list_start_a_block_of_their_own() {
        let block = |n: u32| format!("job {n:0>200} started\njob {n:0>200} finished\n");
        let text: String = (1..=30).map(block).collect();
        let (out, folded) = fold_blocks(lines(&text), FOLD);
        let markers: Vec<&String> = out.iter().filter(|l| l.starts_with("... ")).collect();
        assert!(markers.len() >= 2, "{out:#?}");
        for m in &markers {
            assert!(m.len() <= MAX_LISTED + 120, "{}", m.len());
        }
        // every job's number is either shown or listed
        for n in 1..=30u32 {
            let w = format!("{n:0>200}");
            assert!(out.iter().any(|l| l.contains(&w)), "job {n} lost");
        }
        assert_eq!(folded as usize + out.len() - markers.len(), 60);
    }

    #[test]
    fn identical_blocks_fold_and_other_lines_pass_unchanged() {
        let text = "a\nb c\nd\n".repeat(50);
        let (out, folded) = fold_blocks(lines(&text), FOLD);
        assert_eq!(
            out,
            vec![
                "a",
                "b c",
                "d",
                "... the 3 lines above again 49 times, the same ..."
            ]
        );
        // a list of like lines, some with a time after them in a pattern that happens to
        // repeat (jest's `✕ name (1 ms)`): no block, the engine's to fold if it can
        let list: String = (0..40)
            .map(|i| {
                let ms = if i % 5 < 2 { " (1 ms)" } else { "" };
                format!("  ✕ subtotal of {i} items{ms}\n")
            })
            .collect();
        assert_eq!(fold_blocks(lines(&list), FOLD).1, 0);
        // a recursion's frames (Java's StackOverflowError prints 1,024): however many repeats
        // that list nothing, one marker
        let frames = "\tat Main.g(Main.java:3)\n\tat Main.f(Main.java:2)\n".repeat(512);
        assert_eq!(
            fold_blocks(lines(&frames), FOLD).0,
            vec![
                "\tat Main.g(Main.java:3)",
                "\tat Main.f(Main.java:2)",
                "... the 2 lines above again 511 times, the same ..."
            ]
        );
        let timed = "10:00:01 a\nb c\n"
            .repeat(3)
            .replace("01 a\nb c\n10:00:01", "01 a\nb c\n10:00:02");
        assert_eq!(
            fold_blocks(lines(&timed), FOLD).0,
            vec![
                "10:00:01 a",
                "b c",
                "... the 2 lines above again 2 times, the same but for the times ..."
            ]
        );
        assert_eq!(folded, 147);
        // lines of words that never come again in order: unchanged
        let word = |mut i: usize| {
            let mut w = String::new();
            loop {
                w.push((b'a' + (i % 26) as u8) as char);
                i /= 26;
                if i == 0 {
                    return w;
                }
            }
        };
        let text: String = (0..5000)
            .map(|i| format!("{} {}\n", word(i), word(i * 7)))
            .collect();
        let (out, folded) = fold_blocks(lines(&text), FOLD);
        assert_eq!(folded, 0);
        assert_eq!(out, lines(&text));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
        /// Whatever the lines, every word of every line (times aside) is still in the
        /// output: on a line kept as it was, or listed by a marker for its repeat.
        #[test]
        fn no_word_is_lost(
            picks in proptest::collection::vec((0usize..7, 0u32..40), 1..120),
            period in 2usize..6,
        ) {
            let templates = [
                "10:00:01 conn {n} failed",
                "retry in {n} ms",
                "... 3 lines omitted ...",
                "ok",
                "id 7f3a{n}b9 done",
                "... {n} similar lines ...",
                "",
            ];
            // mostly a pattern of `period` templates, with numbers and a few changes
            let lines: Vec<String> = picks
                .iter()
                .enumerate()
                .map(|(k, (t, n))| {
                    let t = if *t < 5 { k % period } else { *t };
                    templates[t].replace("{n}", &n.to_string())
                })
                .collect();
            let (out, folded) = fold_blocks(lines.clone(), FOLD);
            let text = out.join("\n");
            let has = |w: &str| {
                text.split([' ', '\n'])
                    .any(|o| o == w || same_word(o, w))
            };
            for l in &lines {
                for w in words(l).0 {
                    proptest::prop_assert!(w.is_empty() || w == "T" || has(&w), "lost `{w}` of `{l}`:\n{text}");
                }
            }
            let markers = out.iter().filter(|l| l.contains(" lines above again ")).count();
            proptest::prop_assert_eq!(out.len() as u64 + folded, (lines.len() + markers) as u64);
        }

        /// The cheap look never keeps a block from folding: lines of one shape share its
        /// key whatever their numbers, hashes (one ending in `-`) or paths.
        #[test]
        fn the_cheap_look_misses_no_block(
            picks in proptest::collection::vec((0usize..10, 0u32..400), 6..90),
            period in 2usize..6,
            paths in proptest::bool::ANY,
        ) {
            let templates = [
                "{n} requests in {n}ms",
                "conn {n} to /srv/{n}/db failed",
                "id {h} done",
                "{h} cached",
                "retry {n} in {f}s",
                "abc{n} ok: {h}",
                "... 3 lines omitted ...",
                "{p} rotated to {p}",
                "ok",
                "",
            ];
            let lines: Vec<String> = picks
                .iter()
                .enumerate()
                .map(|(k, (t, n))| {
                    let t = if *t < 7 { k % period } else { *t };
                    let secs = if n % 2 == 0 { format!("{n}.5") } else { n.to_string() };
                    let path = if n % 2 == 0 { format!("/srv/{n}") } else { format!("srv/{n}.{n}") };
                    let hash = if n % 3 == 0 { format!("{n:x}e9a0f1-") } else { format!("f{n:x}c0ffee9") };
                    templates[t].replace("{n}", &n.to_string()).replace("{h}", &hash).replace("{p}", &path).replace("{f}", &secs)
                })
                .collect();
            let fold = Fold { paths, ..FOLD };
            let found = fold_found_blocks(lines.clone(), fold);
            proptest::prop_assert_eq!(fold_blocks(lines, fold), found);
        }
    }
}
