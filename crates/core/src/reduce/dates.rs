//! One date said once: a log stamps every line with the full date and often its zone
//! (`2026-02-19T19:04:40.000+01:00  WARN …`, `[2026-11-22 09:00:00,381] INFO …`), and
//! syslog with who logged it (`Nov 22 09:00:00 web-1 shop-api[4121]: …`), Spring Boot
//! its process (`… INFO 67191 --- [main] …`, `… INFO 67191 --- [shop] [main] …` with the
//! application's name): ten to twenty tokens that are the same on every line of a run. When six or more shown lines start with
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
    /// what the note says once: the date, the zone (`Z`, `+01:00`, `-0500` or empty) and
    /// who logged the line (syslog's `web-1 shop-api[4121]`, Spring Boot's `67191 --- ` or
    /// `67191 --- [shop] `, or empty)
    key: (&'a str, &'a str, &'a str),
    /// where the time starts and ends
    time: (usize, usize),
    /// where the line goes on after the stamp's parts the note says
    resume: usize,
    /// a part further on that the note says too (Spring Boot's process), or an empty range
    cut: (usize, usize),
}

/// Spring Boot's ` LEVEL PID --- [app] [thread]` after a stamp that ends at `from`: where
/// the process part (`PID --- `, with `[app] ` when the application is named) starts and
/// ends. The thread stays on the line.
fn spring_process(line: &str, from: usize) -> Option<(usize, usize)> {
    let rest = &line[from..];
    let level = rest.trim_start_matches(' ');
    if level.len() == rest.len() {
        return None;
    }
    let word = level.find(' ')?;
    if !matches!(
        &level[..word],
        "TRACE" | "DEBUG" | "INFO" | "WARN" | "ERROR" | "FATAL"
    ) {
        return None;
    }
    let pid_at = line.len() - level[word..].trim_start_matches(' ').len();
    let b = line.as_bytes();
    let mut end = pid_at;
    while b.get(end).is_some_and(u8::is_ascii_digit) {
        end += 1;
    }
    if end == pid_at || !line[end..].starts_with(" --- [") {
        return None;
    }
    end += 5;
    // `[app] [thread]`: the first bracket names the application
    if let Some(close) = line[end..].find(']') {
        if line[end + close..].starts_with("] [") {
            end += close + 2;
        }
    }
    Some((pid_at, end))
}

fn digits(b: &[u8], from: usize, n: usize) -> bool {
    b.len() >= from + n && b[from..from + n].iter().all(u8::is_ascii_digit)
}

fn stamp(line: &str) -> Option<Stamp<'_>> {
    iso(line)
        .or_else(|| syslog(line))
        .or_else(|| clf(line))
        .or_else(|| {
            // after the container a line came from: `docker compose logs`' `api-1     | `,
            // `kubectl logs --prefix`'s `[pod/api-7d9f/api] `
            let p = source_prefix(line)?;
            let s = iso(&line[p..])?;
            Some(Stamp {
                at: p + s.at,
                key: s.key,
                time: (p + s.time.0, p + s.time.1),
                resume: p + s.resume,
                cut: (p + s.cut.0, p + s.cut.1),
            })
        })
}

/// The length of a `name   | ` (docker compose) or `[pod/name/container] ` (kubectl)
/// prefix a line starts with.
fn source_prefix(line: &str) -> Option<usize> {
    let b = line.as_bytes();
    if b.first() == Some(&b'[') {
        let close = line.find("] ")?;
        return line[1..close].contains('/').then_some(close + 2);
    }
    let name = b
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
        .count();
    let spaces = b[name..].iter().take_while(|c| **c == b' ').count();
    (name > 0 && spaces > 0 && line[name + spaces..].starts_with("| ")).then_some(name + spaces + 2)
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
        // PostgreSQL's `%m` writes the zone's name after a space: UTC is Z
        Some(b' ') if line[end..].starts_with(" UTC") => 4,
        _ => 0,
    };
    let after = end + zone_len;
    // the stamp ends there: not inside a longer word or number
    if b.get(after).is_some_and(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let (source, cut) = match spring_process(line, after) {
        Some((from, to)) => (&line[from..to], (from, to)),
        None => ("", (after, after)),
    };
    Some(Stamp {
        at,
        key: (
            &line[d..d + 10],
            match &line[end..after] {
                " UTC" => "Z",
                zone => zone,
            },
            source,
        ),
        time: (t, end),
        resume: after,
        cut,
    })
}

/// The Common Log Format's stamp inside its brackets, after the client and user (nginx's and
/// Apache's access logs): `10.0.0.7 - - [28/Nov/2026:09:00:00 +0000] "GET / HTTP/1.1" …`.
fn clf(line: &str) -> Option<Stamp<'_>> {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let open = line.get(..line.len().min(120))?.find(" [")? + 2;
    let b = line.as_bytes();
    let d = open;
    let ok = digits(b, d, 2)
        && b.get(d + 2) == Some(&b'/')
        && line.get(d + 3..d + 6).is_some_and(|m| MONTHS.contains(&m))
        && b.get(d + 6) == Some(&b'/')
        && digits(b, d + 7, 4)
        && b.get(d + 11) == Some(&b':')
        && digits(b, d + 12, 2)
        && b.get(d + 14) == Some(&b':')
        && digits(b, d + 15, 2)
        && b.get(d + 17) == Some(&b':')
        && digits(b, d + 18, 2)
        && b.get(d + 20) == Some(&b' ')
        && matches!(b.get(d + 21), Some(b'+' | b'-'))
        && digits(b, d + 22, 4)
        && b.get(d + 26) == Some(&b']');
    if !ok {
        return None;
    }
    let zone = match &line[d + 20..d + 26] {
        " +0000" => "Z",
        _ => &line[d + 21..d + 26],
    };
    Some(Stamp {
        at: d,
        key: (&line[d..d + 11], zone, ""),
        time: (d + 12, d + 20),
        resume: d + 26,
        cut: (d + 26, d + 26),
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
            cut: (16 + colon + 1, 16 + colon + 1),
        },
        None => Stamp {
            at: 0,
            key: (&line[..6], "", ""),
            time: (7, 15),
            resume: 15,
            cut: (15, 15),
        },
    })
}

/// `lines` with the date (and zone) that six or more of them start with said once (see the
/// module note): the note above the first stamped line, the lines with the date left off. None when no date
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
    // Spring Boot's thread (`[ionShutdownHook] `) when it is one on every line the note
    // speaks for: said there too
    fn thread(line: &str, from: usize) -> Option<&str> {
        let rest = &line[from..];
        let close = rest.strip_prefix('[')?.find("] ")? + 1;
        Some(&rest[..close + 2])
    }
    let mut threads = lines.iter().filter_map(|line| {
        stamp(line)
            .filter(|s| s.key == key)
            .map(|s| thread(line, s.cut.1))
    });
    let one_thread = match threads.next() {
        Some(Some(first)) if source.contains(" --- ") && threads.all(|t| t == Some(first)) => {
            Some(first)
        }
        _ => None,
    };
    let mut note = format!("[times below are on {}", date.replace("  ", " "));
    match zone {
        "" => {}
        "Z" => note.push_str(" UTC"),
        z => {
            note.push_str(" UTC");
            note.push_str(z);
        }
    }
    if let Some((pid, app)) = source.split_once(" --- ") {
        // Spring Boot: `67191 --- ` or `67191 --- [shop] `
        note.push_str(", logged by process ");
        note.push_str(pid);
        let app = app.trim_end().trim_start_matches('[').trim_end_matches(']');
        if !app.is_empty() {
            note.push_str(" (");
            note.push_str(app);
            note.push(')');
        }
        if let Some(t) = one_thread {
            note.push_str(", thread ");
            note.push_str(
                t.trim_end()
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .trim(),
            );
        }
        note.push(',');
    } else if !source.is_empty() {
        note.push_str(", logged by ");
        note.push_str(source);
        note.push(',');
    }
    if stamped > n {
        note.push_str(" unless a date is shown");
    }
    let note = note.trim_end_matches(',').to_string() + "]";
    // the note goes above the first stamped line, the first it speaks for
    let mut note = Some(note);
    let mut out = Vec::with_capacity(lines.len() + 1);
    for line in lines {
        let s = stamp(line);
        if s.is_some() {
            out.extend(note.take());
        }
        out.push(match s {
            Some(s) if s.key == key => format!(
                "{}{}{}{}",
                &line[..s.at],
                &line[s.time.0..s.time.1],
                &line[s.resume..s.cut.0],
                &line[s.cut.1 + one_thread.map_or(0, str::len)..]
            ),
            _ => line.clone(),
        });
    }
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
        assert_eq!(
            out[0],
            "[times below are on 2026-02-19 UTC+01:00, logged by process 1, thread hook]"
        );
        assert_eq!(
            out[1],
            "19:04:40.000  WARN o.h.SqlExceptionHelper : SQL Error: 0"
        );
        assert_eq!(out[3], "Caused by: java.net.ConnectException: refused");
        assert_eq!(
            out[7],
            "19:04:42  INFO j.LocalContainerEntityManagerFactoryBean : Closing"
        );
        assert_eq!(
            out[8],
            "19:04:43.5  WARN c.z.h.p.PoolBase : Failed to validate connection"
        );
        assert_eq!(out[9], "BUILD SUCCESSFUL in 1m 35s");
    }

    #[test]
    fn spring_boot_says_its_process_and_application_once() {
        // Spring Boot 3 names the application before the thread
        let mut text = String::new();
        for s in 0..6 {
            text.push_str(&format!(
                "2026-11-28T09:00:0{s}.120Z  INFO 4242 --- [shop] [nio-8080-exec-{s}] \
                 c.e.shop.CartController   : GET /cart [200] [a] [b]\n"
            ));
        }
        // another process of the same day keeps its whole stamp
        text.push_str("2026-11-28T09:00:09.000Z ERROR 77 --- [main] c.e.Other : down\n");
        let out = factor_date(&lines(&text)).unwrap();
        assert_eq!(
            out[0],
            "[times below are on 2026-11-28 UTC, logged by process 4242 (shop), \
             unless a date is shown]"
        );
        assert_eq!(
            out[1],
            "09:00:00.120  INFO [nio-8080-exec-0] c.e.shop.CartController   : GET /cart [200] [a] [b]"
        );
        assert_eq!(
            out[7],
            "2026-11-28T09:00:09.000Z ERROR 77 --- [main] c.e.Other : down"
        );
        // Spring Boot 2: the thread comes first, and brackets in the message are no name; one
        // thread on every line is said once too
        let two: String = (0..6)
            .map(|s| {
                format!("2026-11-28 09:00:0{s}.5  WARN 9 --- [  main] o.Pool : slow [x] [y]\n")
            })
            .collect();
        let out = factor_date(&lines(&two)).unwrap();
        assert_eq!(
            out[0],
            "[times below are on 2026-11-28, logged by process 9, thread main]"
        );
        assert_eq!(out[1], "09:00:00.5  WARN o.Pool : slow [x] [y]");
        // a level and a number with no `---` is no process
        let plain: String = (0..6)
            .map(|s| format!("2026-11-28 09:00:0{s} INFO 200 requests\n"))
            .collect();
        let out = factor_date(&lines(&plain)).unwrap();
        assert_eq!(out[0], "[times below are on 2026-11-28]");
        assert_eq!(out[1], "09:00:00 INFO 200 requests");
    }

    #[test]
    fn an_access_log_s_date_inside_its_brackets_is_said_once() {
        let text: String = (0..6)
            .map(|s| {
                format!("10.0.0.{s} - - [28/Nov/2026:09:00:0{s} +0000] \"GET / HTTP/1.1\" 200 61\n")
            })
            .chain([
                "10.0.0.9 - bob [27/Nov/2026:23:59:59 +0100] \"GET /x HTTP/1.1\" 404 9\n".into(),
            ])
            .collect();
        let out = factor_date(&lines(&text)).unwrap();
        assert_eq!(
            out[0],
            "[times below are on 28/Nov/2026 UTC unless a date is shown]"
        );
        assert_eq!(out[1], "10.0.0.0 - - [09:00:00] \"GET / HTTP/1.1\" 200 61");
        assert_eq!(
            out[7],
            "10.0.0.9 - bob [27/Nov/2026:23:59:59 +0100] \"GET /x HTTP/1.1\" 404 9"
        );
        // a bracket that holds no such stamp
        assert!(clf("10.0.0.1 - - [28/Nov/2026] x").is_none());
        assert!(clf("a [28/Nox/2026:09:00:00 +0000] x").is_none());
    }

    #[test]
    fn a_container_s_name_before_the_stamp_stays() {
        let mut text = String::new();
        for s in 0..6 {
            text.push_str(&format!(
                "api-1     | 2026-11-22T09:00:0{s}.137Z INFO  GET /api/cart 200\n"
            ));
        }
        text.push_str("db-1      | 2026-11-22 09:00:07.118 UTC [27] LOG:  checkpoint starting\n");
        text.push_str("[pod/api-7d9f/api] 2026-11-22T09:00:08.000Z WARN slow\n");
        text.push_str("api-1     | plain line\n");
        let out = factor_date(&lines(&text)).unwrap();
        assert_eq!(out[0], "[times below are on 2026-11-22 UTC]");
        assert_eq!(out[1], "api-1     | 09:00:00.137 INFO  GET /api/cart 200");
        // PostgreSQL's ` UTC` is the same zone
        assert_eq!(
            out[7],
            "db-1      | 09:00:07.118 [27] LOG:  checkpoint starting"
        );
        assert_eq!(out[8], "[pod/api-7d9f/api] 09:00:08.000 WARN slow");
        assert_eq!(out[9], "api-1     | plain line");
        // a bracket with no slash is no pod, a bar with no name before it no container
        assert!(source_prefix("[INFO] 2026-11-22T09:00:00Z x").is_none());
        assert!(source_prefix("| 2026-11-22T09:00:00Z x").is_none());
        assert!(source_prefix("api-1| 2026-11-22T09:00:00Z x").is_none());
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
