//! A schema step's backfill: a new value for each row of a page, set in one
//! statement (a round trip per page, not per row).

use postgres::Transaction;

use super::Step;

/// Sets `column` (BYTEA) of `table` to `values[i]` in the row whose id is
/// `ids[i]`. `table` and `column` are the schema's own names, never input.
pub(super) fn set_by_id(
    transaction: &mut Transaction<'_>,
    table: &str,
    column: &str,
    ids: &[i64],
    values: &[Vec<u8>],
) -> Step<()> {
    transaction.execute(
        &format!(
            "UPDATE {table} SET {column} = given.value
             FROM unnest($1::BIGINT[], $2::BYTEA[]) AS given (id, value)
             WHERE {table}.id = given.id"
        ),
        &[&ids, &values],
    )?;
    Ok(())
}
