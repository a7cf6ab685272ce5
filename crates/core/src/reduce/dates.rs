//! One date said once: a log stamps every line with the full date and often its zone
//! (`2026-02-19T19:04:40.000+01:00  WARN …`, `[2026-11-22 09:00:00,381] INFO …`), about ten
//! tokens that are the same on every line of a run. When six or more shown lines start with
//! a time on one date (in one zone), the date is written once in a note above them and left
//! off those lines; the time stays. A line stamped on another day, or in another zone, keeps
//! its whole stamp, so every time can still be read with its date.

/// Fewest lines stamped on the date (the note costs about what four lines save).
const MIN_LINES: usize = 6;

/// A stamp a line starts with: `[`? `YYYY-MM-DD` (`T`|` `) `HH:MM[:SS[.,fraction]]` zone?
struct Stamp<'a> {
    /// where the date starts (after an opening bracket)
    at: usize,
    date: &'a str,
    /// where the time starts and ends
    time: (usize, usize),
    /// `Z`, `+01:00`, `-0500` or empty, right after the time
    zone: &'a str,
}

fn digits(b: &[u8], from: usize, n: usize) -> bool {
    b.len() >= from + n && b[from..from + n].iter().all(u8::is_ascii_digit)
}

fn stamp(line: &str) -> Option<Stamp<'_>> {
    let b = line.as_bytes();
    let at = usize::from(b.first() == Some(&b'['));
    let d = at;
    let date_ok = digits(b, d, 4)
        && b.get(d + 4) == Some(&b'-')
        && digits(b, d + 5, 2)
        && b.get(d + 7) == Some(&b'-')
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
        date: &line[d..d + 10],
        time: (t, end),
        zone: &line[end..after],
    })
}

/// `lines` with the date (and zone) that six or more of them start with said once (see the
/// module note): the note first, then the lines with the date left off. None when no date
/// is stamped on enough lines.
pub fn factor_date(lines: &[String]) -> Option<Vec<String>> {
    // the date and zone most lines are stamped with (first seen wins a tie)
    let mut counts: Vec<((&str, &str), usize)> = Vec::new();
    let mut stamped = 0;
    for line in lines {
        if let Some(s) = stamp(line) {
            stamped += 1;
            let key = (s.date, s.zone);
            if let Some((_, n)) = counts.iter_mut().find(|(k, _)| *k == key) {
                *n += 1;
            } else if counts.len() < 8 {
                counts.push((key, 1));
            }
        }
    }
    // max_by_key keeps the last of equals: reversed, the first seen
    let &((date, zone), n) = counts.iter().rev().max_by_key(|(_, n)| *n)?;
    if n < MIN_LINES {
        return None;
    }
    let zone_said = match zone {
        "" => String::new(),
        "Z" => " UTC".to_string(),
        z => format!(" UTC{z}"),
    };
    let unless = if stamped > n {
        " unless a date is shown"
    } else {
        ""
    };
    let mut out = Vec::with_capacity(lines.len() + 1);
    out.push(format!("[times below are on {date}{zone_said}{unless}]"));
    out.extend(lines.iter().map(|line| match stamp(line) {
        Some(s) if s.date == date && s.zone == zone => {
            let after = s.time.1 + s.zone.len();
            format!(
                "{}{}{}",
                &line[..s.at],
                &line[s.time.0..s.time.1],
                &line[after..]
            )
        }
        _ => line.clone(),
    }));
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

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
        // UTC, said as such
        let utc: String = (0..6)
            .map(|s| format!("2026-03-04T10:00:0{s}.123456789Z GET /\n"))
            .collect();
        let out = factor_date(&lines(&utc)).unwrap();
        assert_eq!(out[0], "[times below are on 2026-03-04 UTC]");
        assert_eq!(out[1], "10:00:00.123456789 GET /");
    }
}
