//! What differs along a run of similar lines: one word at one place, or a few words of a
//! run of error/warning lines.
//!
//! A run of similar lines is shown as its first line, `... N similar lines ...` and its last
//! line. When every line of the run is the first line with one word changed (`downloading
//! chunk 7 of 300`, `warning: unused variable x17`), that word is the only fact the fold
//! would drop, and it is cheap to keep: the marker then names it, as a number running
//! without a gap (`the number running 2…299`) or as the list of the words in between
//! (`the part that differs: x2, x3, …`), up to [`MAX_LISTED`] characters. A run of
//! error/warning lines may differ in up to [`MAX_PARTS`] words: the marker then lists those
//! words of each line it stands for ([`Parts`]), or, when each of those words holds a
//! number one more than the line before's (`8 /proc/1/fd/8`, `9 /proc/1/fd/9`), says the
//! range of each (`18…99, /proc/1/fd/18…99`), however long the run.

use super::text::{numbered, one_more};

/// Most characters of words listed for one run; past it only a counter is said.
pub const MAX_LISTED: usize = 600;

/// The state of one run.
#[derive(Debug, Clone)]
pub enum Vary {
    /// Only lines equal to the first so far: how many after it.
    Unknown(u64),
    /// The lines differ in more than one word: nothing more is said than the count.
    Gone,
    Word(Box<Word>),
    /// A run of error/warning lines that differ in a few words ([`Parts`]).
    Parts(Box<Parts>),
}

/// Most words (by position) a run of error/warning lines may differ in and have them
/// listed.
pub const MAX_PARTS: usize = 4;
/// Most characters of words listed for such a run.
pub const MAX_PARTS_LISTED: usize = 2000;

/// What differs along a run of error/warning lines, word by word (words are what single
/// spaces separate, so every line of the run has the same number of them): the positions
/// that differ from the first line, and each later line's words there.
#[derive(Debug, Clone)]
pub struct Parts {
    /// Positions (0-based) of the words that differ from the first line's, ascending.
    at: Vec<usize>,
    /// Each line after the first: its words that differ, by position (emptied when they
    /// no longer fit and `count` says them).
    lines: Vec<Vec<(usize, String)>>,
    chars: usize,
    /// Lines after the first.
    pushed: usize,
    /// While the words that differ each count up by one, line after line.
    count: Option<Count>,
    /// `lines` went over [`MAX_PARTS_LISTED`]: only `count` can say the run.
    unlisted: bool,
    /// A run of plain lines: said only while its numbers count up.
    counting_only: bool,
}

/// The words at [`Parts::at`] of the lines after the first, in runs where each is one more
/// than the line before's: each run's first words and length; and the last line's words.
#[derive(Debug, Clone)]
struct Count {
    runs: Vec<(Vec<String>, usize)>,
    last: Vec<String>,
}

/// Most runs of counting numbers a marker says.
const MAX_RUNS: usize = 16;

/// The same word but for its last number.
fn same_but_number(a: &str, b: &str) -> bool {
    matches!((numbered(a), numbered(b)), (Some((h1, _, _, t1)), Some((h2, _, _, t2))) if h1 == h2 && t1 == t2)
}

/// Whether `line` differs from `first` only in words that are the same but for their
/// number, in at most [`MAX_PARTS`] of them: a cheap look (nothing allocated) before a run
/// of plain lines is followed word by word.
fn may_count(first: &str, line: &str) -> bool {
    let (mut a, mut b) = (first.split(' '), line.split(' '));
    let mut differ = 0;
    loop {
        match (a.next(), b.next()) {
            (None, None) => return differ > 0,
            (Some(x), Some(y)) if x == y => {}
            (Some(x), Some(y)) if differ < MAX_PARTS && same_but_number(x, y) => differ += 1,
            _ => return false,
        }
    }
}

/// `word` with its last number made `skip` more (the same width).
fn counted_on(word: &str, skip: usize) -> String {
    match numbered(word) {
        Some((head, n, width, tail)) => format!("{head}{:0width$}{tail}", n + skip as u64),
        None => word.to_string(),
    }
}

impl Parts {
    /// Takes `line`; false when it does not fit (another number of words, more positions
    /// than [`MAX_PARTS`], or past [`MAX_PARTS_LISTED`]).
    fn push(&mut self, first: &str, line: &str) -> bool {
        let (a, b): (Vec<&str>, Vec<&str>) =
            (first.split(' ').collect(), line.split(' ').collect());
        if a.len() != b.len() {
            return false;
        }
        let differ: Vec<(usize, String)> = (0..a.len())
            .filter(|&i| a[i] != b[i])
            .map(|i| (i, b[i].to_string()))
            .collect();
        let words: Vec<String> = differ.iter().map(|(_, w)| w.clone()).collect();
        let mut count = if self.pushed == 0 {
            Some(Count {
                runs: Vec::new(),
                last: differ.iter().map(|(i, _)| a[*i].to_string()).collect(),
            })
        } else {
            self.count
                .take()
                .filter(|_| differ.iter().map(|(i, _)| *i).eq(self.at.iter().copied()))
        };
        // each word the one before but for its number: one more, or a new run
        if let Some(c) = &mut count {
            let pairs = || c.last.iter().zip(&words);
            let alike = !words.is_empty() && pairs().all(|(x, y)| same_but_number(x, y));
            let up = !c.runs.is_empty() && pairs().all(|(x, y)| one_more(x, y));
            if !alike || !up && c.runs.len() >= MAX_RUNS {
                count = None;
            } else if let Some(run) = c.runs.last_mut().filter(|_| up) {
                run.1 += 1;
            } else {
                c.runs.push((words.clone(), 1));
            }
        }
        self.count = count.map(|mut c| {
            c.last = words;
            c
        });
        self.pushed += 1;
        for (i, w) in &differ {
            if !self.at.contains(i) {
                self.at.push(*i);
                self.at.sort_unstable();
            }
            self.chars += w.len() + 1;
        }
        self.chars += 2;
        if !self.unlisted {
            self.lines.push(differ);
        }
        self.fits()
    }

    /// Whether the run can still be said: few enough places, and its words listed within
    /// the budget or counting up. Past the budget the list goes.
    fn fits(&mut self) -> bool {
        if self.chars > MAX_PARTS_LISTED && self.count.is_some() && !self.unlisted {
            self.unlisted = true;
            self.lines = Vec::new();
        }
        self.at.len() <= MAX_PARTS && (self.chars <= MAX_PARTS_LISTED || self.count.is_some())
    }

    /// `, the parts that differ (words 3, 9): a b; c d` for the lines after the first
    /// `skip` of the middle ones (the last line is shown whole).
    fn said(&self, first: &str, skip: usize) -> Option<String> {
        let words: Vec<&str> = first.split(' ').collect();
        let middle = self.pushed.checked_sub(1)?;
        if skip >= middle {
            return None;
        }
        let places: Vec<String> = self.at.iter().map(|i| (i + 1).to_string()).collect();
        if let Some(c) = &self.count {
            // the runs of the middle lines past the first `skip`
            let mut runs: Vec<(&[String], usize, usize)> = Vec::new();
            let mut at = 0;
            for (words, len) in &c.runs {
                let from = skip.max(at);
                let to = (at + len).min(middle);
                if from < to {
                    runs.push((words, from - at, to - from));
                }
                at += len;
            }
            let counts = runs.len() * 3 <= middle - skip;
            if self.counting_only && !counts {
                return None;
            }
            if self.unlisted || counts {
                let mut said = format!(
                    ", the numbers running together (words {}): ",
                    places.join(", ")
                );
                for (r, (words, from, len)) in runs.iter().enumerate() {
                    for (k, w) in words.iter().enumerate() {
                        said.push_str(if k > 0 {
                            ", "
                        } else if r > 0 {
                            "; "
                        } else {
                            ""
                        });
                        match numbered(w) {
                            Some((head, n, width, tail)) if *len > 1 => {
                                let (a, b) = (n + *from as u64, n + (from + len - 1) as u64);
                                said.push_str(&format!("{head}{a:0width$}…{b:0width$}{tail}"));
                            }
                            _ => said.push_str(&counted_on(w, *from)),
                        }
                    }
                }
                return Some(said);
            }
        }
        let listed: Vec<String> = self.lines[skip..middle]
            .iter()
            .map(|l| {
                self.at
                    .iter()
                    .map(|&i| {
                        l.iter()
                            .find(|(k, _)| *k == i)
                            .map_or(words[i], |(_, w)| w.as_str())
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        Some(format!(
            ", the parts that differ (words {}): {}",
            places.join(", "),
            listed.join("; ")
        ))
    }
}

#[derive(Debug, Clone)]
pub struct Word {
    /// Bytes of the first line before and after the word.
    prefix: usize,
    suffix: usize,
    /// The words of the second line on, comma-separated, while under [`MAX_LISTED`].
    listed: Option<String>,
    /// Where the last word starts in `listed` (the last line is shown whole).
    last_start: usize,
    /// The word of the second line, and of the line before the last one seen.
    second: String,
    before_last: String,
    last: String,
    /// The last word as a number, while every word is one more than the one before.
    counting: Option<u64>,
}

impl Default for Vary {
    fn default() -> Self {
        Vary::Unknown(0)
    }
}

/// Bytes that make up a word with `at`, the first byte that differs: a difference inside a
/// number is a difference of the number (`module7` and `module8` differ in `7` and `8`),
/// any other one of the whole word.
fn word_byte(at: u8) -> fn(u8) -> bool {
    if at.is_ascii_digit() {
        |b: u8| b.is_ascii_digit()
    } else {
        |b: u8| b.is_ascii_alphanumeric()
    }
}

/// `(prefix, suffix)`: the bytes `a` and `b` share at the start and at the end, widened to
/// whole words, when what is left in each is one word (no space), and not empty.
fn one_word_apart(a: &str, b: &str) -> Option<(usize, usize)> {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    let mut p = x.iter().zip(y).take_while(|(m, n)| m == n).count();
    let digits = |t: &[u8], i: usize| t.get(i).is_some_and(u8::is_ascii_digit);
    // both sides differ in a digit: the number is the word
    let within = word_byte(if digits(x, p) && digits(y, p) {
        b'0'
    } else {
        b'a'
    });
    while p > 0 && (within(x[p - 1]) || !a.is_char_boundary(p) || !b.is_char_boundary(p)) {
        p -= 1;
    }
    let room = x.len().min(y.len()) - p;
    let mut s = x
        .iter()
        .rev()
        .zip(y.iter().rev())
        .take(room)
        .take_while(|(m, n)| m == n)
        .count();
    let end_digits = s < room && digits(x, x.len() - s - 1) && digits(y, y.len() - s - 1);
    let within = word_byte(if end_digits { b'0' } else { b'a' });
    while s > 0
        && (within(x[x.len() - s])
            || !a.is_char_boundary(x.len() - s)
            || !b.is_char_boundary(y.len() - s))
    {
        s -= 1;
    }
    let ok = |t: &str, p: usize, s: usize| {
        let w = &t[p..t.len() - s];
        !w.is_empty() && !w.contains(char::is_whitespace)
    };
    (ok(a, p, s) && ok(b, p, s)).then_some((p, s))
}

impl Vary {
    /// Takes the next line of a run of error/warning lines: as [`Vary::push`], and where
    /// that would give up because the lines differ in more than one word, their words are
    /// followed by position ([`Parts`]).
    pub fn push_signal(&mut self, first: &str, line: &str) {
        match self {
            Vary::Parts(p) => {
                if !p.push(first, line) || p.counting_only && p.count.is_none() {
                    *self = Vary::Gone;
                }
            }
            Vary::Unknown(same) if one_word_apart(first, line).is_none() => {
                // lines equal to the first came before: each is listed too (within the
                // characters' budget, checked before anything is held for them)
                let same = usize::try_from(*same).unwrap_or(usize::MAX);
                if same.saturating_mul(2) > MAX_PARTS_LISTED {
                    *self = Vary::Gone;
                    return;
                }
                *self = Vary::parts(first, line, same, false);
            }
            _ => self.push(first, line),
        }
    }

    /// A run followed word by word from its second line, `same` lines equal to the first
    /// before it; `counting_only` for plain lines (see [`Parts::counting_only`]).
    fn parts(first: &str, line: &str, same: usize, counting_only: bool) -> Vary {
        let mut p = Parts {
            at: Vec::new(),
            lines: vec![Vec::new(); same],
            chars: 2 * same,
            pushed: same,
            count: None,
            unlisted: false,
            counting_only,
        };
        if p.push(first, line) && (!counting_only || p.count.is_some()) {
            Vary::Parts(Box::new(p))
        } else {
            Vary::Gone
        }
    }

    /// What the marker of a run of `count` lines whose first `shown` middle lines are shown
    /// says (see [`Vary::said`]).
    pub fn said_after(&self, first: &str, count: u64, shown: usize) -> Option<String> {
        match self {
            Vary::Parts(p) => p.said(first, shown),
            _ => self.said(count),
        }
    }

    /// The line `index` places after the first (0-based among the lines after it) of a
    /// run of error/warning lines, rebuilt from the words listed for it: for a marker that
    /// would stand for that one line alone (and be longer than it).
    pub fn line_after(&self, first: &str, index: usize) -> Option<String> {
        let Vary::Parts(p) = self else {
            return None;
        };
        let differ = p.lines.get(index).filter(|_| !p.unlisted)?;
        let mut words: Vec<&str> = first.split(' ').collect();
        for (at, w) in differ {
            *words.get_mut(*at)? = w;
        }
        Some(words.join(" "))
    }

    /// Takes a line equal to the one before it.
    pub fn again(&mut self, first: &str) {
        match self {
            Vary::Unknown(n) => *n += 1,
            Vary::Gone => {}
            Vary::Parts(p) => {
                p.count = None;
                p.pushed += 1;
                p.chars += 2;
                if p.unlisted || p.counting_only || !p.fits() {
                    *self = Vary::Gone;
                } else {
                    p.lines.push(Vec::new());
                }
            }
            Vary::Word(w) => {
                let last = w.last.clone();
                let line = format!(
                    "{}{last}{}",
                    &first[..w.prefix],
                    &first[first.len() - w.suffix..]
                );
                self.push(first, &line);
            }
        }
    }

    /// Takes the next line of a run whose first line is `first`.
    pub fn push(&mut self, first: &str, line: &str) {
        match self {
            Vary::Gone => {}
            Vary::Parts(_) => self.push_signal(first, line),
            Vary::Unknown(same) => {
                let same = *same;
                *self = match one_word_apart(first, line) {
                    // several words apart: followed only while their numbers count up
                    None if same == 0 && may_count(first, line) => {
                        Vary::parts(first, line, 0, true)
                    }
                    Some((prefix, suffix)) => {
                        let w0 = &first[prefix..first.len() - suffix];
                        let w1 = &line[prefix..line.len() - suffix];
                        let counting = match (w0.parse::<u64>(), w1.parse::<u64>()) {
                            (Ok(a), Ok(b)) if same == 0 && a.checked_add(1) == Some(b) => Some(b),
                            _ => None,
                        };
                        // the lines equal to the first one come first
                        let mut listed = String::new();
                        for _ in 0..same.min(MAX_LISTED as u64) {
                            listed.push_str(w0);
                            listed.push_str(", ");
                        }
                        let last_start = listed.len();
                        listed.push_str(w1);
                        let listed = (listed.len() <= MAX_LISTED).then_some(listed);
                        if listed.is_none() && counting.is_none() {
                            *self = Vary::Gone;
                            return;
                        }
                        Vary::Word(Box::new(Word {
                            prefix,
                            suffix,
                            listed,
                            last_start,
                            second: if same > 0 { w0 } else { w1 }.to_string(),
                            before_last: w0.to_string(),
                            last: w1.to_string(),
                            counting,
                        }))
                    }
                    None => Vary::Gone,
                }
            }
            Vary::Word(w) => {
                let fits = line.len() > w.prefix + w.suffix
                    && line.as_bytes()[..w.prefix] == first.as_bytes()[..w.prefix]
                    && line.as_bytes()[line.len() - w.suffix..]
                        == first.as_bytes()[first.len() - w.suffix..]
                    && line.is_char_boundary(w.prefix)
                    && line.is_char_boundary(line.len() - w.suffix);
                let word = fits.then(|| &line[w.prefix..line.len() - w.suffix]);
                let Some(word) = word.filter(|t| !t.contains(char::is_whitespace)) else {
                    *self = Vary::Gone;
                    return;
                };
                w.counting = w
                    .counting
                    .filter(|n| word.parse::<u64>().ok() == n.checked_add(1))
                    .map(|n| n + 1);
                if let Some(l) = &mut w.listed {
                    if l.len() + word.len() + 2 > MAX_LISTED {
                        w.listed = None;
                    } else {
                        w.last_start = l.len() + 2;
                        l.push_str(", ");
                        l.push_str(word);
                    }
                }
                w.before_last = std::mem::replace(&mut w.last, word.to_string());
                if w.listed.is_none() && w.counting.is_none() {
                    *self = Vary::Gone;
                }
            }
        }
    }

    /// What the marker of a run of `count` lines says after `N similar lines` (the first and
    /// the last line are shown), when one word is all that differs.
    pub fn said(&self, count: u64) -> Option<String> {
        let Vary::Word(w) = self else {
            return None;
        };
        if count < 4 {
            return None;
        }
        if w.counting.is_some() {
            return Some(format!(
                ", the number running {}…{}",
                w.second, w.before_last
            ));
        }
        let listed = w.listed.as_ref()?;
        // a word said several times in a row: `29 ×4`
        let mut parts: Vec<(&str, u64)> = Vec::new();
        for word in listed[..w.last_start.saturating_sub(2)].split(", ") {
            match parts.last_mut() {
                Some((last, n)) if *last == word => *n += 1,
                _ => parts.push((word, 1)),
            }
        }
        let said: Vec<String> = parts
            .iter()
            .map(|(word, n)| match n {
                1 => (*word).to_string(),
                n => format!("{word} ×{n}"),
            })
            .collect();
        Some(format!(", the part that differs: {}", said.join(", ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run<S: AsRef<str>>(lines: &[S]) -> Option<String> {
        let first = lines[0].as_ref();
        let mut v = Vary::default();
        for l in &lines[1..] {
            v.push(first, l.as_ref());
        }
        v.said_after(first, lines.len() as u64, 0)
    }

    /// A run of error/warning lines: `first`, then `rest`.
    fn signals<S: AsRef<str>>(first: &str, rest: &[S]) -> Vary {
        let mut v = Vary::default();
        for l in rest {
            v.push_signal(first, l.as_ref());
        }
        v
    }

    #[test]
    fn a_counter_is_said_as_a_range() {
        let lines: Vec<String> = (1..=300)
            .map(|i| format!("downloading chunk {i} of 300"))
            .collect();
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        assert_eq!(run(&refs).as_deref(), Some(", the number running 2…299"));
        // zero-padded numbers keep their form
        let lines: Vec<String> = (7..=20).map(|i| format!("img_{i:04}.png ok")).collect();
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        assert_eq!(
            run(&refs).as_deref(),
            Some(", the number running 0008…0019")
        );
    }

    #[test]
    fn other_words_are_listed_between_the_first_and_the_last() {
        let said = run(&[
            "warning: unused variable `x1`",
            "warning: unused variable `y`",
            "warning: unused variable `total_7`",
            "warning: unused variable `z`",
        ]);
        assert_eq!(said.as_deref(), Some(", the part that differs: y, total_7"));
        // a gap in a counter: listed
        assert_eq!(
            run(&["step 1 done", "step 2 done", "step 4 done", "step 5 done"]).as_deref(),
            Some(", the part that differs: 2, 4")
        );
    }

    #[test]
    fn lines_equal_to_the_first_count_and_a_word_repeated_is_said_once() {
        let mut v = Vary::default();
        let first = "09:00:28 ERROR redis: connect refused";
        v.again(first);
        v.again(first);
        for l in [
            "09:00:29 ERROR redis: connect refused",
            "09:00:29 ERROR redis: connect refused",
            "09:00:30 ERROR redis: connect refused",
        ] {
            v.push(first, l);
        }
        assert_eq!(
            v.said(6).as_deref(),
            Some(", the part that differs: 28 ×2, 29 ×2")
        );
    }

    #[test]
    fn a_number_inside_a_word_counts() {
        let lines: Vec<String> = (1..=29).map(|i| format!("  module{i} ok")).collect();
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        assert_eq!(run(&refs).as_deref(), Some(", the number running 2…28"));
        // a letter that differs still takes the whole word
        assert_eq!(
            run(&["use ab1", "use ac1", "use ad1", "use ae1"]).as_deref(),
            Some(", the part that differs: ac1, ad1")
        );
    }

    #[test]
    fn two_places_or_spaces_say_nothing_more() {
        assert_eq!(
            run(&[
                "GET /a 200 10ms",
                "GET /b 200 12ms",
                "GET /c 200 9ms",
                "GET /d 200 1ms"
            ]),
            None
        );
        assert_eq!(run(&["copy a b", "copy a b c", "copy a", "copy a d"]), None);
        // a third line that differs elsewhere ends it
        assert_eq!(
            run(&["unit 1 ok", "unit 2 ok", "unit 3 FAILED", "unit 4 ok"]),
            None
        );
        // three lines are shown whole anyway
        assert_eq!(run(&["n 1", "n 2", "n 3"]), None);
    }

    #[test]
    fn error_lines_that_differ_in_a_few_words_list_them() {
        let first = "src/a.rs:3:5: warning: unused variable `x`";
        let v = signals(
            first,
            &[
                "src/b.rs:7:9: warning: unused variable `y`",
                "src/b.rs:7:9: warning: unused variable `y`",
                "src/c.rs:1:1: warning: unused variable `x`",
                "src/d.rs:2:2: warning: unused variable `zz`",
            ],
        );
        // the last line is shown whole; the two before it are listed, none skipped
        assert_eq!(
            v.said_after(first, 5, 0).as_deref(),
            Some(", the parts that differ (words 1, 5): src/b.rs:7:9: `y`; src/b.rs:7:9: `y`; src/c.rs:1:1: `x`")
        );
        assert_eq!(
            v.said_after(first, 5, 2).as_deref(),
            Some(", the parts that differ (words 1, 5): src/c.rs:1:1: `x`")
        );
        // another number of words, or more than four places: nothing more is said
        let mut v = Vary::default();
        v.push_signal("a b c", "x y c");
        v.push_signal("a b c", "x y c d");
        assert_eq!(v.said_after("a b c", 4, 0), None);
        let mut v = Vary::default();
        v.push_signal("a b c d e f", "1 2 3 4 5 f");
        assert_eq!(v.said_after("a b c d e f", 3, 0), None);
        // a run that began with many lines equal to its first lists nothing (and holds
        // nothing for them)
        let mut v = Vary::default();
        for _ in 0..5000 {
            v.again("a b c");
        }
        v.push_signal("a b c", "x y c");
        assert!(matches!(v, Vary::Gone));
        // lines that are not errors keep the one-word rule
        let mut v = Vary::default();
        v.push("a b c", "x y c");
        assert!(matches!(v, Vary::Gone));
    }

    #[test]
    fn error_lines_whose_numbers_count_up_together_say_their_ranges() {
        let line =
            |fd: u32| format!("ls: cannot access /proc/1/fd/{fd}: fd {fd} Permission denied");
        // 100 to 400, 250 missing: far past the list's budget
        let lines: Vec<String> = (100..=400).filter(|&fd| fd != 250).map(line).collect();
        let v = signals(&lines[0], &lines[1..]);
        // the last line is shown whole, and so are the first three after the first
        assert_eq!(
            v.said_after(&lines[0], lines.len() as u64, 3).as_deref(),
            Some(", the numbers running together (words 4, 6): /proc/1/fd/104…249:, 104…249; /proc/1/fd/251…399:, 251…399")
        );
        // a number padded with zeros keeps its width
        let lines: Vec<String> = (7..=30)
            .map(|i| format!("E: part_{i:03} lost {i}"))
            .collect();
        let v = signals(&lines[0], &lines[1..]);
        assert_eq!(
            v.said_after(&lines[0], lines.len() as u64, 0).as_deref(),
            Some(", the numbers running together (words 2, 4): part_008…029, 8…29")
        );
        // a line equal to the one before ends the count: within the budget the words are
        // listed, past it nothing more is said
        let first = "error 1 at x1";
        let mut v = signals(
            first,
            &[
                "error 2 at x2",
                "error 3 at x3",
                "error 4 at x4",
                "error 5 at x5",
            ],
        );
        v.again(first);
        assert_eq!(
            v.said_after(first, 6, 0).as_deref(),
            Some(", the parts that differ (words 2, 4): 2 x2; 3 x3; 4 x4; 5 x5")
        );
        let many: Vec<String> = (0..900)
            .map(|i| format!("E: part_{i:03} lost {i}"))
            .collect();
        let mut long = signals(&many[0], &many[1..]);
        assert!(long.said_after(&many[0], 900, 0).is_some());
        long.again(&many[0]);
        assert!(matches!(long, Vary::Gone));
        // numbers that do not count up (and so many runs) are listed, not ranged
        let first = "error 10 at x10";
        let v = signals(
            first,
            &[
                "error 30 at x30",
                "error 20 at x20",
                "error 50 at x50",
                "error 40 at x40",
            ],
        );
        assert_eq!(
            v.said_after(first, 5, 0).as_deref(),
            Some(", the parts that differ (words 2, 4): 30 x30; 20 x20; 50 x50")
        );
    }

    #[test]
    fn plain_lines_say_their_words_only_while_their_numbers_count_up() {
        let lines: Vec<String> = (1..=40)
            .map(|i| format!("  compiled src/module{i}.js -> dist/module{i}.js"))
            .collect();
        assert_eq!(
            run(&lines).as_deref(),
            Some(", the numbers running together (words 4, 6): src/module2…39.js, dist/module2…39.js")
        );
        // numbers in the same words that do not count up: nothing more is said
        assert_eq!(
            run(&[
                "worker 3 took 15 ms",
                "worker 7 took 9 ms",
                "worker 1 took 22 ms",
                "worker 4 took 8 ms"
            ]),
            None
        );
        // a count that stops: nothing more
        assert_eq!(
            run(&[
                "copy a1 b1",
                "copy a2 b2",
                "copy a3 b3",
                "copy a3 b3",
                "copy a4 b4"
            ]),
            None
        );
    }

    #[test]
    fn a_long_list_becomes_a_count_and_a_counter_survives_it() {
        let words: Vec<String> = (0..400)
            .map(|i| format!("item {}x ok", i * 37 % 1000))
            .collect();
        let refs: Vec<&str> = words.iter().map(String::as_str).collect();
        assert_eq!(run(&refs), None);
        let nums: Vec<String> = (0..5000).map(|i| format!("line {i}")).collect();
        let refs: Vec<&str> = nums.iter().map(String::as_str).collect();
        assert_eq!(run(&refs).as_deref(), Some(", the number running 1…4998"));
    }

    #[test]
    fn multibyte_text_never_splits_a_character() {
        assert_eq!(
            run(&["café 1 é", "café 2 é", "café 3 é", "café 4 é"]).as_deref(),
            Some(", the number running 2…3")
        );
        // lines that differ inside a two-byte character: the whole character is the word's
        assert_eq!(
            run(&["é1", "è2", "ê3", "ë4"]).as_deref(),
            Some(", the part that differs: è2, ê3")
        );
        assert_eq!(
            run(&["aé", "aè", "aê", "aë"]).as_deref(),
            Some(", the part that differs: aè, aê")
        );
    }
}
