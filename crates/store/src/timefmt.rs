//! Time zones, day buckets and `--since` values.
//!
//! Zones come from the system's tz database (`/usr/share/zoneinfo`, `TZ`,
//! `/etc/localtime`) through `jiff`, so no zone tables are embedded in the binary.

use jiff::civil::Date;
use jiff::tz::Offset;
pub use jiff::tz::TimeZone;
use jiff::{Timestamp, ToSpan};

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
    TimeZone::get(s).map_err(|e| {
        bad(
            "--timezone",
            format!("unknown time zone `{s}` ({e}); use local, utc, an IANA name such as Europe/Paris (from the system tz database, package tzdata) or an offset such as +02:00"),
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

/// A short name for a zone: its IANA name, or its offset.
pub fn zone_name(tz: &TimeZone) -> String {
    match tz.iana_name() {
        Some(n) => n.to_string(),
        None => {
            let off = tz.to_offset(Timestamp::now());
            if off == Offset::UTC {
                "UTC".into()
            } else {
                off.to_string()
            }
        }
    }
}

/// The calendar day of a moment in a zone.
pub fn day_of(ts_ms: i64, tz: &TimeZone) -> Date {
    match Timestamp::from_millisecond(ts_ms) {
        Ok(t) => t.to_zoned(tz.clone()).date(),
        Err(_) => Date::default(),
    }
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
        Ok(t) => t
            .to_zoned(tz.clone())
            .strftime("%Y-%m-%d %H:%M")
            .to_string(),
        Err(_) => "?".into(),
    }
}

/// A `--since` value as a moment: a span back from now (`30m`, `24h`, `7d`, `2w`),
/// `today`, `yesterday`, a date (`2026-05-01`, the start of that day in `tz`) or an
/// RFC 3339 time (`2026-05-01T08:00:00Z`).
pub fn parse_since(s: &str, now_ms: i64, tz: &TimeZone) -> Result<i64, StoreError> {
    let s = s.trim();
    let today = day_of(now_ms, tz);
    match s {
        "today" => return Ok(start_of_day(today, tz)),
        "yesterday" => {
            let y = today.checked_sub(1.day()).unwrap_or(today);
            return Ok(start_of_day(y, tz));
        }
        _ => {}
    }
    if let Some(unit) = s.chars().last() {
        let num = &s[..s.len() - unit.len_utf8()];
        if !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit()) {
            let n: i64 = num
                .parse()
                .map_err(|_| bad("--since", format!("`{s}` is too large")))?;
            let ms = match unit {
                'm' => 60_000,
                'h' => 3_600_000,
                'd' => 86_400_000,
                'w' => 7 * 86_400_000,
                _ => 0,
            };
            if ms > 0 {
                return Ok(now_ms.saturating_sub(n.saturating_mul(ms)));
            }
        }
    }
    if let Ok(d) = s.parse::<Date>() {
        return Ok(start_of_day(d, tz));
    }
    if let Ok(t) = s.parse::<Timestamp>() {
        return Ok(t.as_millisecond());
    }
    Err(bad(
        "--since",
        format!("`{s}` is not understood; use 30m, 24h, 7d, 2w, today, yesterday, a date (2026-05-01) or a time (2026-05-01T08:00:00Z)"),
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
        assert_eq!(day_of(ms, &zone("utc").unwrap()).to_string(), "2026-03-14");
        assert_eq!(
            day_of(ms, &zone("+02:00").unwrap()).to_string(),
            "2026-03-15"
        );
        assert_eq!(
            day_of(ms, &zone("-0500").unwrap()).to_string(),
            "2026-03-14"
        );
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
            day_of(t.as_millisecond(), &zone("Europe/Berlin").unwrap()).to_string(),
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
        assert!(parse_since("last tuesday", now, &tz).is_err());
        assert!(parse_since("5y", now, &tz).is_err());
    }
}
