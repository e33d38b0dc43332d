//! Fixture files: reading them (with their timestamps moved to the anchor),
//! the built-in demo, and writing a fixture back out.

use serde_json::Value;
use time::{Duration, OffsetDateTime};

use super::{DEMO_FIXTURE, SeedError};
use crate::server::store::Fixture;

/// A fixture's top-level document: the data, and optionally the time it was
/// written against.
#[derive(serde::Deserialize)]
struct FixtureFile {
    #[serde(default, with = "crate::api::model::rfc3339::option")]
    reference_time: Option<OffsetDateTime>,
    #[serde(flatten)]
    data: Value,
}

/// Parses a fixture document, moving its timestamps to `anchor` when it names a
/// `reference_time`.
pub fn parse_fixture(
    text: &str,
    origin: &str,
    anchor: OffsetDateTime,
) -> Result<Fixture, SeedError> {
    let parse_err = |error: serde_path_to_error::Error<serde_json::Error>| SeedError::Parse {
        origin: origin.to_owned(),
        path: match error.path().to_string().as_str() {
            "." => "top level".to_owned(),
            path => path.to_owned(),
        },
        message: error.inner().to_string(),
    };
    let file: FixtureFile =
        serde_path_to_error::deserialize(&mut serde_json::Deserializer::from_str(text))
            .map_err(parse_err)?;
    let mut data = file.data;
    if let Some(reference) = file.reference_time {
        shift_timestamps(&mut data, anchor - reference).map_err(|what| SeedError::OutOfRange {
            origin: origin.to_owned(),
            what,
        })?;
    }
    serde_path_to_error::deserialize(data).map_err(parse_err)
}

pub fn load_fixture_file(
    path: &std::path::Path,
    anchor: OffsetDateTime,
) -> Result<Fixture, SeedError> {
    let text = std::fs::read_to_string(path).map_err(|source| SeedError::Read {
        path: path.display().to_string(),
        source,
    })?;
    parse_fixture(&text, &path.display().to_string(), anchor)
}

pub fn demo_fixture(anchor: OffsetDateTime) -> Result<Fixture, SeedError> {
    parse_fixture(DEMO_FIXTURE, "assets/demo-fixture.json", anchor)
}

/// Serializes a fixture with `reference_time`, the format `parse_fixture` reads.
pub fn fixture_to_json(fixture: &Fixture, reference_time: OffsetDateTime) -> String {
    let mut value = serde_json::to_value(fixture).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut value {
        let mut ordered = serde_json::Map::new();
        ordered.insert(
            "reference_time".into(),
            Value::String(crate::api::model::format_timestamp(reference_time)),
        );
        ordered.append(map);
        value = Value::Object(ordered);
    }
    serde_json::to_string_pretty(&value).unwrap_or_default()
}

/// Moves every timestamp field (`*_at`, `*_as_of`, `as_of`) by `delta`; a
/// timestamp pushed out of the calendar's range is returned as `Err`.
fn shift_timestamps(value: &mut Value, delta: Duration) -> Result<(), String> {
    match value {
        Value::Object(map) => {
            for (key, field) in map.iter_mut() {
                let is_time = key.ends_with("_at") || key.ends_with("as_of");
                match field {
                    Value::String(text) if is_time => {
                        if let Some(at) = crate::api::model::parse_timestamp(text) {
                            let moved = at
                                .checked_add(delta)
                                .ok_or_else(|| format!("{key} {text} moved by reference_time"))?;
                            *text = crate::api::model::format_timestamp(moved);
                        }
                    }
                    other => shift_timestamps(other, delta)?,
                }
            }
            Ok(())
        }
        Value::Array(items) => items
            .iter_mut()
            .try_for_each(|item| shift_timestamps(item, delta)),
        _ => Ok(()),
    }
}
