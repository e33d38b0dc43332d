//! The one way vantage writes a time: for people, UTC, `2026-11-22 14:03`, and the
//! parts of it (date, clock); for scripts (JSON, CSV, the wire),
//! `2026-11-22T14:03:09.550Z`, always with three fractional digits, so times sort
//! as text. A leaf: the dashboard, the commands, the client and the server all
//! use it, so every output spells a time the same way.

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

/// `2026-11-22T14:03:09.550Z`: RFC 3339 in UTC with whole milliseconds, never
/// fewer digits (`time`'s own RFC 3339 writes `.55Z` beside `.559Z`, which do
/// not sort as text). Finer digits are cut, not rounded, so the order holds.
pub const RFC3339_MILLIS: &[BorrowedFormatItem<'static>] =
    format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z");

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

/// `2026-11-22T14:03:09.550Z`, or `None` for a year RFC 3339 cannot hold
/// (before 0000 or after 9999).
pub fn rfc3339(at: OffsetDateTime) -> Option<String> {
    let utc = at.to_offset(UtcOffset::UTC);
    if !(0..=9999).contains(&utc.year()) {
        return None;
    }
    utc.format(RFC3339_MILLIS).ok()
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

/// Serde for a timestamp field: written with [`rfc3339`], read as any RFC 3339
/// time (any offset, any number of fractional digits).
/// `#[serde(with = "crate::timefmt::serde_rfc3339")]`, or `::option`.
pub mod serde_rfc3339 {
    use serde::{Deserializer, Serializer, ser::Error as _};
    use time::OffsetDateTime;

    pub fn serialize<S: Serializer>(at: &OffsetDateTime, serializer: S) -> Result<S::Ok, S::Error> {
        let text = super::rfc3339(*at).ok_or_else(|| {
            S::Error::custom(format!(
                "{} lies outside the years 0000 to 9999 that RFC 3339 can write",
                at.unix_timestamp()
            ))
        })?;
        serializer.serialize_str(&text)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<OffsetDateTime, D::Error> {
        time::serde::rfc3339::deserialize(deserializer)
    }

    /// The same for `Option<OffsetDateTime>`: `null` for `None`.
    pub mod option {
        use serde::{Deserializer, Serializer};
        use time::OffsetDateTime;

        pub fn serialize<S: Serializer>(
            at: &Option<OffsetDateTime>,
            serializer: S,
        ) -> Result<S::Ok, S::Error> {
            /// One time, written as [`super::serialize`] writes it.
            struct Written<'a>(&'a OffsetDateTime);
            impl serde::Serialize for Written<'_> {
                fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                    super::serialize(self.0, serializer)
                }
            }
            match at {
                Some(at) => serializer.serialize_some(&Written(at)),
                None => serializer.serialize_none(),
            }
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(
            deserializer: D,
        ) -> Result<Option<OffsetDateTime>, D::Error> {
            time::serde::rfc3339::option::deserialize(deserializer)
        }
    }
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

    /// Scripts sort JSON lines as text: `.55Z` sorted after `.559Z` before.
    #[test]
    fn machine_times_always_have_three_fractional_digits() {
        let written = |at| rfc3339(at).unwrap();
        assert_eq!(
            written(datetime!(2026-11-22 17:17:14.55 UTC)),
            "2026-11-22T17:17:14.550Z"
        );
        assert_eq!(
            written(datetime!(2026-11-22 17:17:14 UTC)),
            "2026-11-22T17:17:14.000Z"
        );
        assert_eq!(
            written(datetime!(2026-11-22 18:17:14.999_999_999 +01:00)),
            "2026-11-22T17:17:14.999Z",
            "cut, not rounded into the next second"
        );
        let times = [
            datetime!(2026-11-22 17:17:14.559 UTC),
            datetime!(2026-11-22 17:17:14 UTC),
            datetime!(2026-11-22 17:17:14.55 UTC),
            datetime!(2026-11-22 17:17:14.5 UTC),
        ];
        let mut as_text: Vec<String> = times.iter().map(|&at| written(at)).collect();
        as_text.sort();
        let mut in_time = times.to_vec();
        in_time.sort();
        assert_eq!(
            as_text,
            in_time.into_iter().map(written).collect::<Vec<_>>()
        );
        assert_eq!(rfc3339(datetime!(-0001-01-01 00:00 UTC)), None);
        assert_eq!(
            rfc3339(datetime!(9999-12-31 23:59:59.9 UTC)).as_deref(),
            Some("9999-12-31T23:59:59.900Z")
        );
    }

    /// `time`'s own RFC 3339 writer trims the fraction (`.55Z`); a field that
    /// names it would write times that do not sort, so only this file may.
    #[test]
    fn every_serialized_time_goes_through_this_module() {
        fn sources(dir: &std::path::Path, found: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    sources(&path, found);
                } else if path.extension().is_some_and(|ext| ext == "rs") {
                    found.push(path);
                }
            }
        }
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        sources(&src, &mut files);
        let this = src.join("timefmt.rs");
        let offenders: Vec<_> = files
            .iter()
            .filter(|path| **path != this)
            .filter(|path| {
                let text = std::fs::read_to_string(path).unwrap();
                text.contains(concat!("time::serde::", "rfc3339"))
            })
            .collect();
        assert!(
            offenders.is_empty(),
            "use crate::timefmt::serde_rfc3339 (or api::model::rfc3339), not time's own: {offenders:?}"
        );
    }

    #[test]
    fn serde_writes_milliseconds_and_reads_any_rfc3339() {
        #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
        struct Stamped {
            #[serde(with = "serde_rfc3339")]
            at: OffsetDateTime,
            #[serde(with = "serde_rfc3339::option")]
            seen: Option<OffsetDateTime>,
        }
        let stamped = Stamped {
            at: datetime!(2026-11-22 17:17:14.55 UTC),
            seen: None,
        };
        let json = serde_json::to_string(&stamped).unwrap();
        assert_eq!(json, r#"{"at":"2026-11-22T17:17:14.550Z","seen":null}"#);
        assert_eq!(serde_json::from_str::<Stamped>(&json).unwrap(), stamped);
        let read: Stamped = serde_json::from_str(
            r#"{"at":"2026-11-22T18:17:14.5+01:00","seen":"2026-11-22T17:17:14Z"}"#,
        )
        .unwrap();
        assert_eq!(read.at, datetime!(2026-11-22 17:17:14.5 UTC));
        assert_eq!(read.seen, Some(datetime!(2026-11-22 17:17:14 UTC)));
        let far = Stamped {
            at: datetime!(-0001-01-01 00:00 UTC),
            seen: None,
        };
        assert!(serde_json::to_string(&far).is_err());
    }
}
