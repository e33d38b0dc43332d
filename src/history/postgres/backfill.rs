//! A schema step's backfill: a new value for each row of a page, set in one
//! statement (a round trip per page, not per row). A leaf: the driver's
//! error goes back to the step as it is.

use postgres::Transaction;

/// Sets `column` (BYTEA) of `table` to `values[i]` in the row whose id is
/// `ids[i]`. `table` and `column` are the schema's own names, never input.
pub(super) fn set_by_id(
    transaction: &mut Transaction<'_>,
    table: &str,
    column: &str,
    ids: &[i64],
    values: &[Vec<u8>],
) -> Result<(), postgres::Error> {
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
