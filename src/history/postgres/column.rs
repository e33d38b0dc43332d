//! A row's columns read back, each fallibly: a column of another type than
//! the schema made it, or NULL where a value must be (a hand-edited database,
//! a teammate's tool that altered a column), is the damage named, never a
//! panic (`Row::get` panics on both).

use postgres::Row;
use postgres::types::{FromSql, Type, WasNull};

use super::Step;
use crate::history::HistoryError;

/// The database types vantage reads its columns as: the one a Rust type
/// accepts names what was expected.
const READ_AS: [Type; 5] = [Type::INT8, Type::INT4, Type::BYTEA, Type::TEXT, Type::BOOL];

/// Column `index` of `row`, read from `table` (empty for a computed value).
pub(super) fn column<'a, T: FromSql<'a>>(row: &'a Row, table: &str, index: usize) -> Step<T> {
    row.try_get(index)
        .map_err(|error| damaged(row, table, index, &error, T::accepts).into())
}

/// What is wrong with column `index`, with its table, its name, the type it
/// has and the type vantage reads (`accepts`).
fn damaged(
    row: &Row,
    table: &str,
    index: usize,
    error: &postgres::Error,
    accepts: fn(&Type) -> bool,
) -> HistoryError {
    let Some(found) = row.columns().get(index) else {
        return HistoryError::Corrupt(format!("{table} has no column {index}"));
    };
    let name = match table {
        "" => found.name().to_owned(),
        table => format!("{table}.{}", found.name()),
    };
    let expected = READ_AS
        .iter()
        .find(|read_as| accepts(read_as))
        .map_or_else(|| "another type".to_owned(), Type::to_string);
    let was_null = std::error::Error::source(error).is_some_and(|cause| cause.is::<WasNull>());
    let what = if !accepts(found.type_()) {
        format!(
            "{name} is of type {}, where vantage reads {expected}",
            found.type_()
        )
    } else if was_null {
        format!("{name} is NULL, where vantage reads {expected}")
    } else {
        // The driver's words name the column; the cause says what was wrong.
        match std::error::Error::source(error) {
            Some(cause) => format!("{name} cannot be read as {expected}: {cause}"),
            None => format!("{name} cannot be read as {expected}: {error}"),
        }
    };
    // Names and types are the database's words.
    HistoryError::Corrupt(crate::text::escape_invisible(&what).into_owned())
}
