//! Time zones, day buckets and `--since` values.
//!
//! Zones come from the system's tz database (`/usr/share/zoneinfo`, `TZ`,
//! `/etc/localtime`) through `jiff`, so no zone tables are embedded in the binary.
//! Dates are printed and parsed here (fixed formats), not with jiff's general
//! strftime/parser, which would add ~0.3 MB to the binary for no gain.

pub use jiff::civil::Date;
use jiff::tz::Offset;
pub use jiff::tz::TimeZone;
use jiff::Timestamp;

use crate::StoreError;

fn bad(origin: &str, message: String) -> StoreError {
    StoreError::Config {
        origin: origin.into(),
        message,
    }
}

/// The system's zone (`TZ`, `/etc/localtime`), UTC when it cannot be told.
pub fn local_zone() -> TimeZone {
    TimeZone::try_system().unwrap_or(TimeZone::UTC)
}

/// `local`, `utc`, an IANA name (`Europe/Paris`) or a fixed offset (`+02:00`, `-0530`).
pub fn zone(spec: &str) -> Result<TimeZone, StoreError> {
    let s = spec.trim();
    match s.to_ascii_lowercase().as_str() {
        "local" => return Ok(local_zone()),
        "utc" | "z" | "gmt" => return Ok(TimeZone::UTC),
        _ => {}
    }
    if let Some(off) = parse_offset(s) {
        return Ok(TimeZone::fixed(off));
    }
    TimeZone::get(s).map_err(|_| {
        bad(
            "--timezone",
            format!("unknown time zone `{s}`; use local, utc, an IANA name such as Europe/Paris (read from the system tz database in /usr/share/zoneinfo, package tzdata) or an offset such as +02:00"),
        )
    })
}

fn parse_offset(s: &str) -> Option<Offset> {
    let (sign, rest) = match s.as_bytes().first()? {
        b'+' => (1, &s[1..]),
        b'-' => (-1, &s[1..]),
        _ => return None,
    };
    let digits: String = rest.chars().filter(|c| *c != ':').collect();
    if !(digits.len() == 2 || digits.len() == 4) || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let h: i32 = digits[..2].parse().ok()?;
    let m: i32 = if digits.len() == 4 {
        digits[2..].parse().ok()?
    } else {
        0
    };
    if h > 18 || m > 59 {
        return None;
    }
    Offset::from_seconds(sign * (h * 3600 + m * 60)).ok()
}

/// `+02:00`, `-05:30`, `UTC`.
fn offset_name(seconds: i32) -> String {
    if seconds == 0 {
        return "UTC".into();
    }
    let sign = if seconds < 0 { '-' } else { '+' };
    let a = seconds.unsigned_abs();
    format!("{sign}{:02}:{:02}", a / 3600, (a % 3600) / 60)
}

/// A short name for a zone: its IANA name, or its offset now.
pub fn zone_name(tz: &TimeZone) -> String {
    match tz.iana_name() {
        Some(n) => n.to_string(),
        None => offset_name(tz.to_offset(Timestamp::now()).seconds()),
    }
}

/// `YYYY-MM-DD`.
pub fn date_key(d: Date) -> String {
    format!("{:04}-{:02}-{:02}", d.year(), d.month(), d.day())
}

/// `Mon`… for a `YYYY-MM-DD` key; three blanks when it is not a date.
pub fn weekday_short(key: &str) -> &'static str {
    use jiff::civil::Weekday::*;
    key.parse::<Date>()
        .map(|d| match d.weekday() {
            Monday => "Mon",
            Tuesday => "Tue",
            Wednesday => "Wed",
            Thursday => "Thu",
            Friday => "Fri",
            Saturday => "Sat",
            Sunday => "Sun",
        })
        .unwrap_or("   ")
}

/// The calendar day of a moment in a zone.
pub fn day_of(ts_ms: i64, tz: &TimeZone) -> Date {
    match Timestamp::from_millisecond(ts_ms) {
        Ok(t) => t.to_zoned(tz.clone()).date(),
        Err(_) => Date::default(),
    }
}

/// The day after (saturating at the end of jiff's range).
pub fn next_day(d: Date) -> Option<Date> {
    d.tomorrow().ok()
}

/// The first millisecond of a day in a zone.
pub fn start_of_day(d: Date, tz: &TimeZone) -> i64 {
    d.to_zoned(tz.clone())
        .map(|z| z.timestamp().as_millisecond())
        .unwrap_or(0)
}

/// `YYYY-MM-DD HH:MM` in a zone.
pub fn format_ms(ts_ms: i64, tz: &TimeZone) -> String {
    match Timestamp::from_millisecond(ts_ms) {
        Ok(t) => {
            let z = t.to_zoned(tz.clone());
            format!("{} {:02}:{:02}", date_key(z.date()), z.hour(), z.minute())
        }
        Err(_) => "?".into(),
    }
}

fn num(s: &str) -> Option<i64> {
    (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// `YYYY-MM-DD`.
fn parse_date(s: &str) -> Option<Date> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let y = i16::try_from(num(&s[..4])?).ok()?;
    let m = i8::try_from(num(&s[5..7])?).ok()?;
    let d = i8::try_from(num(&s[8..10])?).ok()?;
    Date::new(y, m, d).ok()
}

/// `YYYY-MM-DDTHH:MM[:SS]` followed by `Z`, an offset, or nothing (then in `tz`).
fn parse_time(s: &str, tz: &TimeZone) -> Option<i64> {
    if s.len() < 16 || !matches!(s.as_bytes()[10], b'T' | b't' | b' ') {
        return None;
    }
    let date = parse_date(&s[..10])?;
    let rest = &s[11..];
    let (clock, zone_part) = match rest.find(['Z', 'z', '+', '-']) {
        Some(i) => (&rest[..i], Some(&rest[i..])),
        None => (rest, None),
    };
    let parts: Vec<&str> = clock.split(':').collect();
    if !(2..=3).contains(&parts.len()) {
        return None;
    }
    let h = i8::try_from(num(parts[0])?).ok()?;
    let mi = i8::try_from(num(parts[1])?).ok()?;
    let sec = match parts.get(2) {
        Some(p) => i8::try_from(num(p)?).ok()?,
        None => 0,
    };
    let dt = date.at(h, mi, sec, 0);
    let zone = match zone_part {
        None => tz.clone(),
        Some(z) if z.eq_ignore_ascii_case("z") => TimeZone::UTC,
        Some(z) => TimeZone::fixed(parse_offset(z)?),
    };
    dt.to_zoned(zone)
        .ok()
        .map(|z| z.timestamp().as_millisecond())
}

/// A `--since` value as a moment: a span back from now (`30m`, `24h`, `7d`, `2w`),
/// `today`, `yesterday`, a date (`2026-05-01`, the start of that day in `tz`) or a
/// time (`2026-05-01T08:00`, in `tz`, or with `Z`/an offset).
pub fn parse_since(s: &str, now_ms: i64, tz: &TimeZone) -> Result<i64, StoreError> {
    let s = s.trim();
    let today = day_of(now_ms, tz);
    match s {
        "today" => return Ok(start_of_day(today, tz)),
        "yesterday" => {
            let y = today.yesterday().unwrap_or(today);
            return Ok(start_of_day(y, tz));
        }
        _ => {}
    }
    if let Some(unit) = s.chars().last() {
        let n = num(&s[..s.len() - unit.len_utf8()]);
        let ms = match unit {
            'm' => 60_000,
            'h' => 3_600_000,
            'd' => 86_400_000,
            'w' => 7 * 86_400_000,
            _ => 0,
        };
        if let (Some(n), true) = (n, ms > 0) {
            return Ok(now_ms.saturating_sub(n.saturating_mul(ms)));
        }
    }
    if let Some(d) = parse_date(s) {
        return Ok(start_of_day(d, tz));
    }
    if let Some(t) = parse_time(s, tz) {
        return Ok(t);
    }
    Err(bad(
        "--since",
        format!("`{s}` is not understood; use 30m, 24h, 7d, 2w, today, yesterday, a date (2026-05-01) or a time (2026-05-01T08:00, 2026-05-01T08:00Z)"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn late_utc_evening_is_the_next_day_two_hours_east() {
        // 2026-03-14 23:30 UTC
        let t: Timestamp = "2026-03-14T23:30:00Z".parse().unwrap();
        let ms = t.as_millisecond();
        assert_eq!(date_key(day_of(ms, &zone("utc").unwrap())), "2026-03-14");
        assert_eq!(date_key(day_of(ms, &zone("+02:00").unwrap())), "2026-03-15");
        assert_eq!(date_key(day_of(ms, &zone("-0500").unwrap())), "2026-03-14");
    }

    #[test]
    fn iana_zones_come_from_the_system_database() {
        if !std::path::Path::new("/usr/share/zoneinfo/Europe/Berlin").exists() {
            eprintln!("no system tz database here; skipping");
            return;
        }
        let t: Timestamp = "2026-07-01T22:30:00Z".parse().unwrap();
        // Berlin is UTC+2 in summer
        assert_eq!(
            date_key(day_of(t.as_millisecond(), &zone("Europe/Berlin").unwrap())),
            "2026-07-02"
        );
        assert!(zone("Mars/Olympus_Mons").is_err());
    }

    #[test]
    fn since_values() {
        let tz = zone("utc").unwrap();
        let now: Timestamp = "2026-05-10T12:00:00Z".parse().unwrap();
        let now = now.as_millisecond();
        assert_eq!(parse_since("2h", now, &tz).unwrap(), now - 7_200_000);
        assert_eq!(parse_since("7d", now, &tz).unwrap(), now - 7 * 86_400_000);
        let day: Timestamp = "2026-05-10T00:00:00Z".parse().unwrap();
        assert_eq!(
            parse_since("today", now, &tz).unwrap(),
            day.as_millisecond()
        );
        assert_eq!(
            parse_since("2026-05-10", now, &tz).unwrap(),
            day.as_millisecond()
        );
        let plus2 = zone("+02:00").unwrap();
        let day2: Timestamp = "2026-05-09T22:00:00Z".parse().unwrap();
        assert_eq!(
            parse_since("2026-05-10", now, &plus2).unwrap(),
            day2.as_millisecond()
        );
        assert_eq!(
            parse_since("2026-05-10T10:30Z", now, &tz).unwrap(),
            now - 90 * 60_000
        );
        assert_eq!(
            parse_since("2026-05-10T12:30+02:00", now, &tz).unwrap(),
            now - 90 * 60_000
        );
        assert_eq!(
            parse_since("2026-05-10T12:30", now, &plus2).unwrap(),
            now - 90 * 60_000
        );
        assert!(parse_since("2026-02-30", now, &tz).is_err());
        assert!(parse_since("last tuesday", now, &tz).is_err());
        assert!(parse_since("5y", now, &tz).is_err());
    }
}
