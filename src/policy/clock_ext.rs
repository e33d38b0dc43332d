//! Rego's time built-ins a policy needs, on the evaluation's own clock:
//! `time.now_ns()` answers the instant the input document names
//! (`evaluated_at`), so a check is repeatable and tests move time instead of
//! waiting. Written here rather than taking regorus's `time` feature (chrono
//! and a time-zone database) for the three a policy over this input uses.

use regorus::{Engine, Value};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::PolicyError;

const NS_PER_SECOND: i128 = 1_000_000_000;

/// Nanoseconds since the Unix epoch, as Rego's time built-ins count them.
pub fn to_ns(at: OffsetDateTime) -> i64 {
    i64::try_from(at.unix_timestamp_nanos()).unwrap_or(i64::MAX)
}

/// `time.parse_rfc3339_ns`: undefined (not an error) for text that is not RFC 3339.
fn parse_rfc3339_ns(raw: &str) -> Value {
    OffsetDateTime::parse(raw, &Rfc3339)
        .map(|at| Value::from(to_ns(at)))
        .unwrap_or(Value::Undefined)
}

/// `time.parse_duration_ns`: Go's duration text (`336h`, `90m`, `1h30m`, `10s`).
fn parse_duration_ns(raw: &str) -> Value {
    let mut total: i128 = 0;
    let mut rest = raw;
    if rest.is_empty() {
        return Value::Undefined;
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let Ok(amount) = rest[..digits].parse::<i128>() else {
            return Value::Undefined;
        };
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let per_unit = match &rest[..unit_len] {
            "ns" => 1,
            "us" | "µs" => 1_000,
            "ms" => 1_000_000,
            "s" => NS_PER_SECOND,
            "m" => 60 * NS_PER_SECOND,
            "h" => 3600 * NS_PER_SECOND,
            _ => return Value::Undefined,
        };
        rest = &rest[unit_len..];
        total += amount * per_unit;
    }
    i64::try_from(total).map_or(Value::Undefined, Value::from)
}

fn string_arg(args: &[Value]) -> Option<String> {
    args.first()
        .and_then(|value| value.as_string().ok())
        .map(|text| text.to_string())
}

/// Registers `time.now_ns`, `time.parse_rfc3339_ns` and `time.parse_duration_ns`.
pub fn install(engine: &mut Engine, now_ns: i64) -> Result<(), PolicyError> {
    let failed = |error: &dyn std::fmt::Display| PolicyError::Engine(format!("{error:#}"));
    engine
        .add_extension(
            "time.now_ns".into(),
            0,
            Box::new(move |_: Vec<Value>| Ok(Value::from(now_ns))),
        )
        .map_err(|error| failed(&error))?;
    engine
        .add_extension(
            "time.parse_rfc3339_ns".into(),
            1,
            Box::new(|args: Vec<Value>| {
                Ok(string_arg(&args).map_or(Value::Undefined, |raw| parse_rfc3339_ns(&raw)))
            }),
        )
        .map_err(|error| failed(&error))?;
    engine
        .add_extension(
            "time.parse_duration_ns".into(),
            1,
            Box::new(|args: Vec<Value>| {
                Ok(string_arg(&args).map_or(Value::Undefined, |raw| parse_duration_ns(&raw)))
            }),
        )
        .map_err(|error| failed(&error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_go_writes_them() {
        assert_eq!(
            parse_duration_ns("336h"),
            Value::from(336 * 3600 * 1_000_000_000_i64)
        );
        assert_eq!(
            parse_duration_ns("1h30m"),
            Value::from(5400 * 1_000_000_000_i64)
        );
        assert_eq!(parse_duration_ns("10x"), Value::Undefined);
        assert_eq!(parse_duration_ns(""), Value::Undefined);
    }

    #[test]
    fn rfc3339_reads_to_nanoseconds() {
        assert_eq!(
            parse_rfc3339_ns("1970-01-01T00:00:01.500Z"),
            Value::from(1_500_000_000_i64)
        );
        assert_eq!(parse_rfc3339_ns("yesterday"), Value::Undefined);
    }
}
