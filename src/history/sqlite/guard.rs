//! The file's guard of its review log, as the schema's steps install it: a
//! trigger that refuses every update but the one the log allows. A leaf:
//! `schema.rs` (step 3) and `waivers.rs` (step 6) both write it with it.

use crate::history::marks::KEPT_COLUMNS;

/// The update trigger of the review log: an update only of an entry for
/// which `changeable` holds (a mark without a reviewed state, which a later
/// snapshot gives one), and then with none of [`KEPT_COLUMNS`] and `added`
/// changed.
pub(super) fn update_trigger(changeable: &str, added: &[&str]) -> String {
    let unchanged = KEPT_COLUMNS
        .iter()
        .chain(added)
        .map(|column| format!("NEW.{column} IS OLD.{column}"))
        .collect::<Vec<_>>()
        .join("\n          AND ");
    format!(
        "
CREATE TRIGGER review_append_only_update BEFORE UPDATE ON review
WHEN NOT ({changeable}
          AND {unchanged})
BEGIN
    SELECT RAISE(ABORT, 'the review log is append-only: an entry cannot be changed');
END;
"
    )
}
