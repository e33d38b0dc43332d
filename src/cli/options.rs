//! The options every script command shares: the output format, the list
//! options, the enum value parsers and the date parser. A leaf of `cli`: the
//! commands' own argument types import it, and it imports none of them.

use clap::{Args, ValueEnum};
use time::OffsetDateTime;

use crate::api::PageParams;

// The enum value parsers live with the flags the dashboard shares.
pub use crate::flags::{wire, wire_subset};

/// `json`, `jsonl`, `csv` or `table`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One JSON document; lists are one array of every item.
    Json,
    /// One JSON object per line, written as pages arrive.
    Jsonl,
    /// A header row, then one row per item; nested fields become dotted columns.
    Csv,
    /// Aligned columns fitted to the terminal, for people.
    Table,
}

impl From<Format> for crate::formats::list::ListFormat {
    fn from(format: Format) -> Self {
        match format {
            Format::Json => Self::Json,
            Format::Jsonl => Self::Jsonl,
            Format::Csv => Self::Csv,
            Format::Table => Self::Table,
        }
    }
}

#[derive(Args, Debug, Clone, Default)]
pub struct OutputArgs {
    /// Output format [default: table on a terminal, json otherwise].
    #[arg(long, short = 'o', value_enum, value_name = "FORMAT")]
    pub format: Option<Format>,
    /// CSV: write cells that start with = + - @ tab or CR as they are, without
    /// the leading ' that keeps a spreadsheet from running them as formulas.
    #[arg(long)]
    pub csv_raw_formulas: bool,
}

#[derive(Args, Debug, Clone, Default)]
pub struct ListArgs {
    /// Stop after N items.
    #[arg(long, value_name = "N", value_parser = parse_max)]
    pub max: Option<u64>,
    /// Items per request (1 to 100).
    #[arg(long, value_name = "N", default_value_t = 100,
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub page_size: u32,
    // How the items are written: every list command has both.
    #[command(flatten)]
    pub output: OutputArgs,
}

impl ListArgs {
    /// `--page-size` as the client's paging parameters.
    pub fn page_params(&self) -> PageParams {
        PageParams {
            limit: Some(self.page_size),
        }
    }
}

/// `YYYY-MM-DD` (midnight UTC) or an RFC 3339 timestamp.
pub fn parse_instant(raw: &str) -> Result<OffsetDateTime, String> {
    if let Some(at) = crate::api::model::parse_timestamp(raw) {
        return Ok(at);
    }
    let format = time::macros::format_description!("[year]-[month]-[day]");
    time::Date::parse(raw, format)
        .map(|date| date.midnight().assume_utc())
        .map_err(|_| "expected YYYY-MM-DD or an RFC 3339 timestamp".to_owned())
}

/// A duration as kubectl's `--timeout` takes it: `90s`, `10m`, `1h30m`; a
/// bare number is seconds. Zero is refused: it could never be waited.
pub fn parse_duration(raw: &str) -> Result<std::time::Duration, String> {
    let invalid = || format!("{raw:?} is not a duration (e.g. 30s, 10m, 1h30m)");
    let text = raw.trim();
    if let Ok(secs) = text.parse::<u64>() {
        return (secs > 0)
            .then(|| std::time::Duration::from_secs(secs))
            .ok_or_else(invalid);
    }
    let mut total: u64 = 0;
    let mut number = String::new();
    for ch in text.chars() {
        if ch.is_ascii_digit() {
            number.push(ch);
            continue;
        }
        let unit = match ch {
            'h' => 3600,
            'm' => 60,
            's' => 1,
            _ => return Err(invalid()),
        };
        let value: u64 = number.parse().map_err(|_| invalid())?;
        total = value
            .checked_mul(unit)
            .and_then(|secs| total.checked_add(secs))
            .ok_or_else(invalid)?;
        number.clear();
    }
    if !number.is_empty() || total == 0 {
        return Err(invalid());
    }
    Ok(std::time::Duration::from_secs(total))
}

/// `--max N`: a whole number of items, 1 or more.
fn parse_max(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(0) => Err("must be 1 or more (leave --max out to get every item)".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "{text:?} is not a whole number of items (1 or more)"
        )),
    }
}

#[cfg(test)]
mod max_tests {
    #[test]
    fn durations_read_as_kubectl_writes_them() {
        use std::time::Duration;
        assert_eq!(super::parse_duration("90"), Ok(Duration::from_secs(90)));
        assert_eq!(super::parse_duration("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(
            super::parse_duration("1h30m5s"),
            Ok(Duration::from_secs(5405))
        );
        for bad in ["0", "0s", "m", "10x", "1.5m", ""] {
            assert!(super::parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn max_says_a_sane_range() {
        assert_eq!(super::parse_max("5"), Ok(5));
        let zero = super::parse_max("0").unwrap_err();
        assert!(zero.contains("1 or more"), "{zero}");
        assert!(!zero.contains("18446744073709551615"));
        assert!(super::parse_max("x").is_err());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_timestamps_parse() {
        assert_eq!(
            parse_instant("2026-11-01").unwrap(),
            time::macros::datetime!(2026-11-01 00:00 UTC)
        );
        assert_eq!(
            parse_instant("2026-11-01T23:30:00-02:00").unwrap(),
            time::macros::datetime!(2026-11-02 01:30 UTC)
        );
        assert!(parse_instant("yesterday").is_err());
    }
}
