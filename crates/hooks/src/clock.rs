//! Wall-clock formatting without a date crate: RFC 3339 UTC timestamps and `YYYY-MM-DD`
//! dates, from the proleptic Gregorian calendar (Howard Hinnant's days-to-civil algorithm).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// `(year, month, day)` of a day count since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn since_epoch(t: SystemTime) -> Duration {
    t.duration_since(UNIX_EPOCH).unwrap_or_default()
}

/// `2026-11-22T07:52:21.123Z`.
pub fn rfc3339(t: SystemTime) -> String {
    let d = since_epoch(t);
    let secs = d.as_secs() as i64;
    let (y, mo, da) = civil_from_days(secs.div_euclid(86_400));
    let rem = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{mo:02}-{da:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60,
        d.subsec_millis()
    )
}

/// `2026-11-22` (UTC).
pub fn ymd(t: SystemTime) -> String {
    let secs = since_epoch(t).as_secs() as i64;
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    format!("{y:04}-{m:02}-{d:02}")
}

/// Milliseconds since the epoch.
pub fn epoch_millis(t: SystemTime) -> u128 {
    since_epoch(t).as_millis()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        let t = UNIX_EPOCH + Duration::from_millis(1_795_305_600_123 + 3_661_000);
        assert_eq!(rfc3339(t), "2026-11-22T01:01:01.123Z");
        assert_eq!(ymd(t), "2026-11-22");
    }
}
