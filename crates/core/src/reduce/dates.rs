//! One date said once: a log stamps every line with the full date and often its zone
//! (`2026-02-19T19:04:40.000+01:00  WARN …`, `[2026-11-22 09:00:00,381] INFO …`), and
//! syslog with who logged it (`Nov 22 09:00:00 web-1 shop-api[4121]: …`): ten to twenty
//! tokens that are the same on every line of a run. When six or more shown lines start with
//! a time on one date (in one zone, logged by one process), that is written once in a note
//! above them and left off those lines; the time stays. A line stamped on another day, in
//! another zone or by another process keeps its whole stamp, so every time can still be
//! read with its date.

/// Fewest lines stamped on the date (the note costs about what four lines save).
const MIN_LINES: usize = 6;

/// A stamp a line starts with: `[`? `YYYY-MM-DD` (or `YYYY/MM/DD`) (`T`|` `)
/// `HH:MM[:SS[.,fraction]]` zone?,
/// or syslog's `Mmm dd HH:MM:SS host ident[pid]:` (`journalctl`, `/var/log/syslog`).
struct Stamp<'a> {
    /// where the date starts (after an opening bracket)
    at: usize,
    /// what the note says once: the date, the zone (`Z`, `+01:00`, `-0500` or empty) and,
    /// for syslog, who logged the line (`web-1 shop-api[4121]`, or empty)
    key: (&'a str, &'a str, &'a str),
    /// where the time starts and ends
    time: (usize, usize),
    /// where the line goes on after the stamp's parts the note says
    resume: usize,
}

fn digits(b: &[u8], from: usize, n: usize) -> bool {
    b.len() >= from + n && b[from..from + n].iter().all(u8::is_ascii_digit)
}

fn stamp(line: &str) -> Option<Stamp<'_>> {
    iso(line).or_else(|| syslog(line))
}

fn iso(line: &str) -> Option<Stamp<'_>> {
    let b = line.as_bytes();
    let at = usize::from(b.first() == Some(&b'['));
    let d = at;
    // `-` between the parts, or `/` as Go's log package writes them (`2026/11/28 09:00:00`)
    let sep = b.get(d + 4).copied().filter(|c| matches!(c, b'-' | b'/'));
    let date_ok = digits(b, d, 4)
        && sep.is_some()
        && digits(b, d + 5, 2)
        && b.get(d + 7).copied() == sep
        && digits(b, d + 8, 2)
        && matches!(b.get(d + 10), Some(b'T' | b' '));
    let t = d + 11;
    let time_ok = digits(b, t, 2) && b.get(t + 2) == Some(&b':') && digits(b, t + 3, 2);
    if !(date_ok && time_ok) {
        return None;
    }
    let mut end = t + 5;
    if b.get(end) == Some(&b':') && digits(b, end + 1, 2) {
        end += 3;
        if matches!(b.get(end), Some(b'.' | b',')) && digits(b, end + 1, 1) {
            end += 1;
            while b.get(end).is_some_and(u8::is_ascii_digit) {
                end += 1;
            }
        }
    }
    let zone_len = match b.get(end) {
        Some(b'Z') => 1,
        Some(b'+' | b'-') if digits(b, end + 1, 2) => {
            if b.get(end + 3) == Some(&b':') && digits(b, end + 4, 2) {
                6
            } else if digits(b, end + 3, 2) {
                5
            } else {
                0
            }
        }
        _ => 0,
    };
    let after = end + zone_len;
    // the stamp ends there: not inside a longer word or number
    if b.get(after).is_some_and(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    Some(Stamp {
        at,
        key: (&line[d..d + 10], &line[end..after], ""),
        time: (t, end),
        resume: after,
    })
}

fn syslog(line: &str) -> Option<Stamp<'_>> {
    const MONTHS: [&[u8]; 12] = [
        b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov",
        b"Dec",
    ];
    let b = line.as_bytes();
    let day_ok = (b.get(4) == Some(&b' ') || digits(b, 4, 1)) && digits(b, 5, 1);
    let time_ok = digits(b, 7, 2)
        && b.get(9) == Some(&b':')
        && digits(b, 10, 2)
        && b.get(12) == Some(&b':')
        && digits(b, 13, 2);
    if !(b.len() > 15
        && MONTHS.contains(&&b[..3])
        && b[3] == b' '
        && day_ok
        && b[6] == b' '
        && time_ok
        && b[15] == b' ')
    {
        return None;
    }
    // `host ident[pid]:` (or `host ident:`) after the time: who logged the line
    let rest = &line[16..];
    let source = rest.find(' ').and_then(|sp| {
        let host = &rest[..sp];
        let colon = sp + 1 + rest[sp + 1..].find(':')?;
        let ident = &rest[sp + 1..colon];
        let ends = matches!(rest.as_bytes().get(colon + 1), None | Some(b' '));
        (!host.is_empty() && !ident.is_empty() && !ident.contains(' ') && ends).then_some(colon)
    });
    Some(match source {
        Some(colon) => Stamp {
            at: 0,
            key: (&line[..6], "", &line[16..16 + colon]),
            time: (7, 15),
            resume: 16 + colon + 1,
        },
        None => Stamp {
            at: 0,
            key: (&line[..6], "", ""),
            time: (7, 15),
            resume: 15,
        },
    })
}

/// `lines` with the date (and zone) that six or more of them start with said once (see the
/// module note): the note first, then the lines with the date left off. None when no date
/// is stamped on enough lines.
pub fn factor_date(lines: &[String]) -> Option<Vec<String>> {
    // the stamp most lines share (first seen wins a tie)
    type Key<'a> = (&'a str, &'a str, &'a str);
    let mut counts: Vec<(Key<'_>, usize)> = Vec::new();
    let mut stamped = 0;
    for line in lines {
        if let Some(s) = stamp(line) {
            stamped += 1;
            if let Some((_, n)) = counts.iter_mut().find(|(k, _)| *k == s.key) {
                *n += 1;
            } else if counts.len() < 8 {
                counts.push((s.key, 1));
            }
        }
    }
    // max_by_key keeps the last of equals: reversed, the first seen
    let &(key, n) = counts.iter().rev().max_by_key(|(_, n)| *n)?;
    if n < MIN_LINES {
        return None;
    }
    let (date, zone, source) = key;
    let mut note = format!("[times below are on {}", date.replace("  ", " "));
    match zone {
        "" => {}
        "Z" => note.push_str(" UTC"),
        z => {
            note.push_str(" UTC");
            note.push_str(z);
        }
    }
    if !source.is_empty() {
        note.push_str(", logged by ");
        note.push_str(source);
        note.push(',');
    }
    if stamped > n {
        note.push_str(" unless a date is shown");
    }
    let note = note.trim_end_matches(',').to_string() + "]";
    let mut out = Vec::with_capacity(lines.len() + 1);
    out.push(note);
    out.extend(lines.iter().map(|line| match stamp(line) {
        Some(s) if s.key == key => format!(
            "{}{}{}",
            &line[..s.at],
            &line[s.time.0..s.time.1],
            &line[s.resume..]
        ),
        _ => line.clone(),
    }));
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::paths::tests::lines;

    #[test]
    fn the_date_on_every_line_is_said_once() {
        let text = "\
2026-02-19T19:04:40.000+01:00  WARN 1 --- [hook] o.h.SqlExceptionHelper : SQL Error: 0
2026-02-19T19:04:40.001+01:00 ERROR 1 --- [hook] o.h.SqlExceptionHelper : timed out after 5004ms
Caused by: java.net.ConnectException: refused
... 2 lines omitted ...
2026-02-19T19:04:41.000+01:00  INFO 1 --- [hook] c.z.h.HikariDataSource : Shutdown initiated...
2026-02-19T19:04:41.150+01:00  INFO 1 --- [hook] c.z.h.HikariDataSource : Shutdown completed.
2026-02-19T19:04:42+01:00  INFO 1 --- [hook] j.LocalContainerEntityManagerFactoryBean : Closing
2026-02-19T19:04:43.5+01:00  WARN 1 --- [hook] c.z.h.p.PoolBase : Failed to validate connection
BUILD SUCCESSFUL in 1m 35s";
        let out = factor_date(&lines(text)).unwrap();
        assert_eq!(out[0], "[times below are on 2026-02-19 UTC+01:00]");
        assert_eq!(
            out[1],
            "19:04:40.000  WARN 1 --- [hook] o.h.SqlExceptionHelper : SQL Error: 0"
        );
        assert_eq!(out[3], "Caused by: java.net.ConnectException: refused");
        assert_eq!(
            out[7],
            "19:04:42  INFO 1 --- [hook] j.LocalContainerEntityManagerFactoryBean : Closing"
        );
        assert_eq!(
            out[8],
            "19:04:43.5  WARN 1 --- [hook] c.z.h.p.PoolBase : Failed to validate connection"
        );
        assert_eq!(out[9], "BUILD SUCCESSFUL in 1m 35s");
    }

    #[test]
    fn a_line_of_another_day_or_zone_keeps_its_whole_stamp() {
        let mut text = String::new();
        for s in 0..6 {
            text.push_str(&format!(
                "[2026-11-22 23:59:5{s},381] INFO [http] GET /health 200\n"
            ));
        }
        text.push_str("[2026-11-23 00:00:01,002] ERROR [db] connection lost\n");
        text.push_str("2026-11-22T23:59:59Z WARN elsewhere\n");
        let out = factor_date(&lines(&text)).unwrap();
        assert_eq!(
            out[0],
            "[times below are on 2026-11-22 unless a date is shown]"
        );
        assert_eq!(out[1], "[23:59:50,381] INFO [http] GET /health 200");
        assert_eq!(
            out[7],
            "[2026-11-23 00:00:01,002] ERROR [db] connection lost"
        );
        assert_eq!(out[8], "2026-11-22T23:59:59Z WARN elsewhere");
    }

    #[test]
    fn syslog_says_the_day_and_who_logged_once() {
        let mut text =
            String::from("Nov  2 09:00:00 web-1 systemd[1]: Started shop-api.service.\n");
        for s in 0..6 {
            text.push_str(&format!(
                "Nov  2 09:00:0{s} web-1 shop-api[4121]: INFO  GET /health 200 {s}ms\n"
            ));
        }
        text.push_str("Nov  2 09:00:09 web-1 shop-api[4121]:     at computeCart (cart.js:42:18)\n");
        let out = factor_date(&lines(&text)).unwrap();
        assert_eq!(
            out[0],
            "[times below are on Nov 2, logged by web-1 shop-api[4121], unless a date is shown]"
        );
        assert_eq!(
            out[1],
            "Nov  2 09:00:00 web-1 systemd[1]: Started shop-api.service."
        );
        assert_eq!(out[2], "09:00:00 INFO  GET /health 200 0ms");
        assert_eq!(out[8], "09:00:09     at computeCart (cart.js:42:18)");
        // a month word that is no syslog stamp
        let words: String = (0..8).map(|_| "Nov 22 was a Sunday\n").collect();
        assert!(factor_date(&lines(&words)).is_none());
    }

    #[test]
    fn few_stamps_or_no_time_leave_the_lines_as_they_came() {
        // five stamped lines are too few
        let five: String = (0..5)
            .map(|s| format!("2026-11-22 10:00:0{s} INFO tick\n"))
            .collect();
        assert!(factor_date(&lines(&five)).is_none());
        // a date with no time after it, or a stamp running into a word, is no log stamp
        let dates: String = (0..8)
            .map(|s| format!("2026-11-2{s} release notes\n2026-11-22T10:00:00Zulu x\n"))
            .collect();
        assert!(factor_date(&lines(&dates)).is_none());
        // Go's log package
        let go: String = (0..6)
            .map(|s| format!("2026/11/28 09:00:0{s} listening on :8080\n"))
            .collect();
        let out = factor_date(&lines(&go)).unwrap();
        assert_eq!(out[0], "[times below are on 2026/11/28]");
        assert_eq!(out[1], "09:00:00 listening on :8080");
        let mixed: String = (0..6)
            .map(|s| format!("2026/11-28 09:00:0{s} x\n"))
            .collect();
        assert!(factor_date(&lines(&mixed)).is_none());
        // UTC, said as such
        let utc: String = (0..6)
            .map(|s| format!("2026-03-04T10:00:0{s}.123456789Z GET /\n"))
            .collect();
        let out = factor_date(&lines(&utc)).unwrap();
        assert_eq!(out[0], "[times below are on 2026-03-04 UTC]");
        assert_eq!(out[1], "10:00:00.123456789 GET /");
    }
}
