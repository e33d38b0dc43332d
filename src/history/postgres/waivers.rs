//! Waivers in the shared database: entries of the review log (`action =
//! 'waive'`, the reason its note, with the policy and the end), chained,
//! append-only and stamped with the role that wrote each, as marks are (the
//! database's own guard refuses UPDATE, DELETE and TRUNCATE, and an entry
//! claiming another role). Schema step 4 kept them in a table of their own
//! (`schema.rs`, `WAIVERS`); step 5 moves them into the log ([`move_into_log`]).

use postgres::{Client, Transaction};
use time::OffsetDateTime;

use super::Step;
use super::column::column;
use super::guard::review_guard;
use super::write::{append_entry, bump_revision, insert_review};
use crate::history::HistoryError;
use crate::history::chain::{ChainFields, WaiverTerms};
use crate::history::marks::WAIVER_COLUMNS;
use crate::history::model::ReviewAction;
use crate::history::read::{from_ms, to_ms};
use crate::history::waivers::{NewWaiver, Waiver};

pub(super) fn add(
    transaction: &mut Transaction<'_>,
    workspace_id: &str,
    waiver: &NewWaiver,
    now: OffsetDateTime,
) -> Step<Waiver> {
    let fields = ChainFields::waive(workspace_id, waiver, to_ms(now));
    insert_review(transaction, fields, (None, None))?;
    let role = transaction.query_one("SELECT session_user::TEXT", &[])?;
    bump_revision(transaction)?;
    Ok(waiver.given(now, Some(column(&role, "review", 0)?))?)
}

pub(super) fn all(client: &mut Client, workspace_id: &str) -> Step<Vec<Waiver>> {
    let rows = client.query(
        "SELECT policy_id, project_id, note, until_ms, at_ms, COALESCE(db_role, reviewer) FROM review
         WHERE workspace_id = $1 AND action = 'waive' ORDER BY id",
        &[&workspace_id],
    )?;
    rows.iter()
        .map(|row| {
            let policy_id: Option<String> = column(row, "review", 0)?;
            let reason: Option<String> = column(row, "review", 2)?;
            let until_ms: Option<i64> = column(row, "review", 3)?;
            let (Some(policy_id), Some(reason), Some(until_ms)) = (policy_id, reason, until_ms)
            else {
                return Err(HistoryError::Corrupt(
                    "a waive entry of the review log without its policy, reason or end".into(),
                )
                .into());
            };
            Ok(Waiver {
                policy_id,
                project_id: column(row, "review", 1)?,
                reason,
                until: from_ms(until_ms, "review.until_ms")?,
                waived_at: from_ms(column(row, "review", 4)?, "review.at_ms")?,
                waived_by: column(row, "review", 5)?,
            })
        })
        .collect()
}

/// Version 5: the log holds a waiver's policy and end, and its guard covers
/// them; a later snapshot may give a reviewed state to a mark only.
const LOG_COLUMNS: &str = "
ALTER TABLE review ADD COLUMN policy_id TEXT;
ALTER TABLE review ADD COLUMN until_ms BIGINT;
CREATE INDEX review_waivers ON review (workspace_id, id) WHERE action = 'waive';
";

/// Version 5 to 6: the columns and the guard, then each waiver given, in
/// the order given, appended to its workspace's chain as it was (who, with
/// the role that wrote it, when, why, until): the guard, which would refuse
/// another role's entry, is off for those inserts only, in this transaction.
/// The waiver table goes.
pub(super) fn move_into_log(transaction: &mut Transaction<'_>) -> Step<()> {
    transaction.batch_execute(LOG_COLUMNS)?;
    let guard = review_guard(
        "OLD.state_id IS NULL AND OLD.action = 'mark'",
        WAIVER_COLUMNS,
    );
    transaction.batch_execute(&guard)?;
    let rows = transaction.query(
        "SELECT workspace_id, policy_id, project_id, reason, until_ms, at_ms, reviewer, db_role
         FROM waiver ORDER BY id",
        &[],
    )?;
    transaction.batch_execute("ALTER TABLE review DISABLE TRIGGER review_append_only")?;
    for row in &rows {
        let fields = ChainFields {
            workspace_id: column(row, "waiver", 0)?,
            project_id: column(row, "waiver", 2)?,
            action: ReviewAction::Waive.as_str().to_owned(),
            at_ms: column(row, "waiver", 5)?,
            reviewer: column(row, "waiver", 6)?,
            role: Some(column(row, "waiver", 7)?),
            note: Some(column(row, "waiver", 3)?),
            waiver: Some(WaiverTerms {
                policy_id: column(row, "waiver", 1)?,
                until_ms: column(row, "waiver", 4)?,
            }),
        };
        append_entry(transaction, &fields, (None, None))?;
    }
    transaction.batch_execute(
        "ALTER TABLE review ENABLE TRIGGER review_append_only;
         DROP TABLE waiver;
         DROP FUNCTION vantage_waiver_guard();",
    )?;
    Ok(())
}
