//! Waivers in the shared database: the `waiver` table, append-only and
//! stamped with the database role that wrote each one, as the review log is
//! (the database's own trigger refuses UPDATE, DELETE and TRUNCATE, and an
//! entry claiming another role). Its table is schema step 4 (`schema.rs`,
//! `WAIVERS`).

use postgres::{Client, Transaction};
use time::OffsetDateTime;

use super::Step;
use super::column::column;
use super::write::bump_revision;
use crate::history::read::{from_ms, to_ms};
use crate::history::waivers::{NewWaiver, Waiver};

pub(super) fn add(
    transaction: &mut Transaction<'_>,
    workspace_id: &str,
    waiver: &NewWaiver,
    now: OffsetDateTime,
) -> Step<Waiver> {
    let row = transaction.query_one(
        "INSERT INTO waiver (workspace_id, policy_id, project_id, reason, until_ms, at_ms, reviewer, db_role)
         VALUES ($1, $2, $3, $4, $5, $6, $7, session_user) RETURNING db_role",
        &[
            &workspace_id,
            &waiver.policy_id,
            &waiver.project_id,
            &waiver.reason,
            &to_ms(waiver.until),
            &to_ms(now),
            &waiver.by,
        ],
    )?;
    let role: String = column(&row, "waiver", 0)?;
    bump_revision(transaction)?;
    Ok(Waiver {
        policy_id: waiver.policy_id.clone(),
        project_id: waiver.project_id.clone(),
        reason: waiver.reason.clone(),
        until: from_ms(to_ms(waiver.until), "waiver.until_ms")?,
        waived_at: from_ms(to_ms(now), "waiver.at_ms")?,
        waived_by: Some(role),
    })
}

pub(super) fn all(client: &mut Client, workspace_id: &str) -> Step<Vec<Waiver>> {
    let rows = client.query(
        "SELECT policy_id, project_id, reason, until_ms, at_ms, db_role FROM waiver
         WHERE workspace_id = $1 ORDER BY id",
        &[&workspace_id],
    )?;
    rows.iter()
        .map(|row| {
            Ok(Waiver {
                policy_id: column(row, "waiver", 0)?,
                project_id: column(row, "waiver", 1)?,
                reason: column(row, "waiver", 2)?,
                until: from_ms(column(row, "waiver", 3)?, "waiver.until_ms")?,
                waived_at: from_ms(column(row, "waiver", 4)?, "waiver.at_ms")?,
                waived_by: Some(column(row, "waiver", 5)?),
            })
        })
        .collect()
}
