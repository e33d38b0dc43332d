//! Waivers in the shared database: the `waiver` table, append-only and
//! stamped with the database role that wrote each one, as the review log is
//! (the database's own trigger refuses UPDATE, DELETE and TRUNCATE, and an
//! entry claiming another role). Schema step 3 (`schema.rs`).

use postgres::{Client, Transaction};
use time::OffsetDateTime;

use super::Step;
use super::column::column;
use super::write::bump_revision;
use crate::history::read::{from_ms, to_ms};
use crate::history::waivers::{NewWaiver, Waiver};

/// Version 3: waivers, kept apart from the snapshot and state tables.
pub(super) const SCHEMA: &str = "
CREATE TABLE waiver (
    id BIGSERIAL PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    policy_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    reason TEXT NOT NULL,
    until_ms BIGINT NOT NULL,
    at_ms BIGINT NOT NULL,
    -- The name the reviewer gave, beside the role that wrote it.
    reviewer TEXT,
    db_role TEXT NOT NULL
);
CREATE INDEX waiver_by_workspace ON waiver (workspace_id, id);
CREATE FUNCTION vantage_waiver_guard() RETURNS trigger LANGUAGE plpgsql AS $guard$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.db_role IS DISTINCT FROM session_user::text THEN
            RAISE EXCEPTION 'a waiver records the role that writes it: % cannot write one as %',
                session_user, coalesce(NEW.db_role, 'no role')
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'waivers are append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$guard$;
CREATE TRIGGER waiver_append_only BEFORE INSERT OR UPDATE OR DELETE ON waiver
    FOR EACH ROW EXECUTE FUNCTION vantage_waiver_guard();
CREATE TRIGGER waiver_no_truncate BEFORE TRUNCATE ON waiver
    FOR EACH STATEMENT EXECUTE FUNCTION vantage_waiver_guard();
REVOKE UPDATE, DELETE, TRUNCATE ON waiver FROM PUBLIC;
";

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
