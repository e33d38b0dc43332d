//! The `state` table: each state kept once, by the digest of its document.

use rusqlite::{Transaction, params};

use super::super::HistoryError;
use crate::history::document::StoredDocument;

/// Stores `document` unless a state with its digest is stored; its id.
pub(super) fn store_document(
    transaction: &Transaction<'_>,
    subject: &str,
    document: &StoredDocument,
) -> Result<i64, HistoryError> {
    let mut insert = transaction.prepare_cached(
        "INSERT INTO state (kind, subject, shape, digest, body) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (digest) DO NOTHING",
    )?;
    if insert.execute(params![
        document.kind,
        subject,
        document.shape,
        document.digest.as_slice(),
        document.body
    ])? == 1
    {
        return Ok(transaction.last_insert_rowid());
    }
    let mut find = transaction.prepare_cached("SELECT id FROM state WHERE digest = ?1")?;
    Ok(find.query_row([document.digest.as_slice()], |row| row.get(0))?)
}
