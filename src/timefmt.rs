//! The one way vantage writes a time for people: UTC, `2026-11-22 14:03`, and the
//! parts of it (date, clock). A leaf: the dashboard and the commands both use it,
//! so every screen and table spells a time the same way.

use time::format_description::BorrowedFormatItem;
use time::macros::format_description;
use time::{Date, OffsetDateTime, UtcOffset};

/// `2026-11-22`.
pub const DATE: &[BorrowedFormatItem<'static>] = format_description!("[year]-[month]-[day]");
/// `14:03`.
pub const HOUR_MINUTE: &[BorrowedFormatItem<'static>] = format_description!("[hour]:[minute]");
/// `14:03:09`.
pub const CLOCK: &[BorrowedFormatItem<'static>] = format_description!("[hour]:[minute]:[second]");
/// `2026-11-22 14:03`.
pub const DATE_TIME: &[BorrowedFormatItem<'static>] =
    format_description!("[year]-[month]-[day] [hour]:[minute]");
/// `20261122-140309`, for file names.
pub const FILE_STAMP: &[BorrowedFormatItem<'static>] =
    format_description!("[year][month][day]-[hour][minute][second]");

/// `at` in UTC with `format`. A time the format cannot hold (a year past 9999)
/// falls back to its Unix timestamp rather than to nothing.
pub fn utc(at: OffsetDateTime, format: &[BorrowedFormatItem<'_>]) -> String {
    at.to_offset(UtcOffset::UTC)
        .format(format)
        .unwrap_or_else(|_| at.unix_timestamp().to_string())
}

/// `2026-11-22 14:03`, in UTC.
pub fn date_time(at: OffsetDateTime) -> String {
    utc(at, DATE_TIME)
}

/// `2026-11-22`.
pub fn date(date: Date) -> String {
    date.format(DATE)
        .unwrap_or_else(|_| format!("{}-{}", date.year(), date.ordinal()))
}

/// Reads `2026-11-22`.
pub fn parse_date(text: &str) -> Result<Date, time::error::Parse> {
    Date::parse(text, DATE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn one_spelling_of_utc() {
        let at = datetime!(2026-11-22 15:03:09 +01:00);
        assert_eq!(date_time(at), "2026-11-22 14:03");
        assert_eq!(utc(at, HOUR_MINUTE), "14:03");
        assert_eq!(utc(at, CLOCK), "14:03:09");
        assert_eq!(utc(at, FILE_STAMP), "20261122-140309");
        assert_eq!(date(at.date()), "2026-11-22");
        assert_eq!(
            parse_date("2026-11-02").map(date).as_deref(),
            Ok("2026-11-02")
        );
        assert!(parse_date("2026-13-02").is_err());
    }
}
