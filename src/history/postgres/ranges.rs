//! The database's validity ranges (`history/ranges.rs`), as the file's
//! `sqlite/ranges.rs` keeps them, in PostgreSQL's words: recording a list
//! against the open ranges (the states that begin a range copied in with
//! `COPY`), the posture counted with it, the step from schema 2, reading the
//! turnover between two snapshots, and removing snapshots with the ranges and
//! states only they held.

use std::collections::{HashMap, HashSet};

use postgres::binary_copy::BinaryCopyInWriter;
use postgres::types::Type;
use postgres::{GenericClient, Transaction};

use super::Step;
use super::column::column;
use super::packed::{PackedBody, pack};
use crate::history::document::{Document, ShapedBody};
use crate::history::marks::MARK_ROWS;
use crate::history::model::{MemberState, ProjectState};
use crate::history::posture::{Posture, PostureAt, shaped};
use crate::history::ranges::{
    OpenRange, Subject, Turnover, drop_closed, plan_documents, plan_ids, range_tables,
};
use crate::history::read::{from_ms, parse_body};
use crate::history::retention::{KeepReason, waiver_name};

/// Version 5: the ranges' indexes narrowed to what the reads use. A subject
/// (a project's or a user's id) is one workspace's: its ranges are found by
/// it alone, a few each, which PostgreSQL keeps deduplicated; a range is
/// closed while open, found through `by_end`, so it needs no key of its own.
/// A range's row is written twice (begun, then ended): pages kept 15 % free
/// take the second version beside the first.
pub(super) const V5: &str = "
DROP INDEX project_range_by_subject;
CREATE INDEX project_range_by_subject ON project_range (subject);
ALTER TABLE project_range DROP CONSTRAINT project_range_pkey;
ALTER TABLE project_range SET (fillfactor = 85);
CLUSTER project_range USING project_range_by_start;
DROP INDEX member_range_by_subject;
CREATE INDEX member_range_by_subject ON member_range (subject);
ALTER TABLE member_range DROP CONSTRAINT member_range_pkey;
ALTER TABLE member_range SET (fillfactor = 85);
CLUSTER member_range USING member_range_by_start;
";

/// Version 7: each range keeps its state's digest, so a new snapshot compares
/// the open ranges (found through `by_end`) without reading `state`: that
/// join read every state the history kept (a hash of the whole table, or a
/// row scattered across it for each open range), longer each day. The table
/// is written anew in `by_start`'s order once filled. A range whose state is
/// missing (damage) gets an empty digest, which recording names.
pub(super) const V7: &str = "
ALTER TABLE project_range ADD COLUMN digest BYTEA;
UPDATE project_range r SET digest = coalesce(
    (SELECT s.digest FROM state s WHERE s.id = r.state_id), '');
ALTER TABLE project_range ALTER COLUMN digest SET NOT NULL;
CLUSTER project_range;
ALTER TABLE member_range ADD COLUMN digest BYTEA;
UPDATE member_range r SET digest = coalesce(
    (SELECT s.digest FROM state s WHERE s.id = r.state_id), '');
ALTER TABLE member_range ALTER COLUMN digest SET NOT NULL;
CLUSTER member_range;
";

/// The ranges a snapshot holds, in `{kind}_range r` joined to `snapshot snap`.
pub(super) const HELD_BY_SNAP: &str =
    "r.workspace_id = snap.workspace_id AND r.valid_from <= snap.id
     AND (r.valid_until IS NULL OR r.valid_until > snap.id)";

/// The open ranges of `kind` in workspace `$1`, with their states' digests,
/// from the ranges alone ([`V7`]).
fn open_ranges(kind: &str) -> String {
    format!(
        "SELECT id, subject, digest, sort_key FROM {kind}_range
         WHERE workspace_id = $1 AND valid_until IS NULL"
    )
}

/// Ends the open ranges `states` does not go on in and begins the others at
/// `snapshot_id`; the states no row holds yet are copied in first.
pub(super) fn record_ranges<T: Subject>(
    transaction: &mut Transaction<'_>,
    workspace_id: &str,
    snapshot_id: i64,
    states: &[T],
) -> Step<()> {
    let kind = T::KIND;
    let mut open = Vec::new();
    for row in transaction.query(&open_ranges(kind), &[&workspace_id])? {
        open.push(OpenRange {
            handle: column::<i64>(&row, "range", 0)?,
            subject: column(&row, "range", 1)?,
            identity: crate::history::ranges::stored_digest(column(&row, "range", 2)?)?,
            sort_key: column(&row, "range", 3)?,
        });
    }
    let (documents, plan) = plan_documents(&open, states);
    transaction.execute(
        &format!(
            "UPDATE {kind}_range SET valid_until = $1
             WHERE workspace_id = $3 AND valid_until IS NULL AND id = ANY($2)"
        ),
        &[&snapshot_id, &plan.close, &workspace_id],
    )?;
    if plan.open.is_empty() {
        return Ok(());
    }
    transaction.batch_execute(
        "CREATE TEMP TABLE IF NOT EXISTS incoming_state
             (kind TEXT, subject TEXT, shape INTEGER, digest BYTEA, body BYTEA) ON COMMIT DROP;
         TRUNCATE incoming_state;",
    )?;
    {
        let sink = transaction.copy_in(
            "COPY incoming_state (kind, subject, shape, digest, body) FROM STDIN BINARY",
        )?;
        let mut writer = BinaryCopyInWriter::new(
            sink,
            &[Type::TEXT, Type::TEXT, Type::INT4, Type::BYTEA, Type::BYTEA],
        );
        let mut seen = HashSet::new();
        for (at, _) in &plan.open {
            let document = &documents[*at];
            if !seen.insert(document.digest) {
                continue;
            }
            let shape = document.shape as i32;
            writer.write(&[
                &document.kind,
                &states[*at].subject(),
                &shape,
                &document.digest.as_slice(),
                &pack(&document.body),
            ])?;
        }
        writer.finish()?;
    }
    transaction.batch_execute(
        "INSERT INTO state (kind, subject, shape, digest, body)
             SELECT kind, subject, shape, digest, body FROM incoming_state
             ON CONFLICT (digest) DO NOTHING",
    )?;
    let subjects: Vec<&str> = plan
        .open
        .iter()
        .map(|(at, _)| states[*at].subject())
        .collect();
    let digests: Vec<&[u8]> = plan
        .open
        .iter()
        .map(|(at, _)| documents[*at].digest.as_slice())
        .collect();
    let keys: Vec<i64> = plan.open.iter().map(|(_, key)| *key).collect();
    transaction.execute(
        &format!(
            "INSERT INTO {kind}_range (workspace_id, subject, state_id, digest, sort_key, valid_from)
             SELECT $1, given.subject, s.id, given.digest, given.sort_key, $2
             FROM unnest($3::TEXT[], $4::BYTEA[], $5::BIGINT[]) AS given (subject, digest, sort_key)
             JOIN state s ON s.digest = given.digest"
        ),
        &[&workspace_id, &snapshot_id, &subjects, &digests, &keys],
    )?;
    Ok(())
}

/// The marks that stood at `at_ms` (all that stand: `i64::MAX`), by project,
/// each with its reviewed state.
fn standing_marks(
    client: &mut impl GenericClient,
    workspace_id: &str,
    at_ms: i64,
) -> Step<HashMap<String, Option<ShapedBody>>> {
    let mut marks = HashMap::new();
    for row in client.query(
        &format!(
            "SELECT n.project_id, s.shape, s.body FROM (
                 SELECT DISTINCT ON (project_id) * FROM review
                 WHERE workspace_id = $1 AND at_ms <= $2 AND {MARK_ROWS}
                 ORDER BY project_id, id DESC) n
             LEFT JOIN state s ON s.id = n.state_id
             WHERE n.action = 'mark'"
        ),
        &[&workspace_id, &at_ms],
    )? {
        let shape: Option<i32> = column(&row, "state", 1)?;
        let body: Option<PackedBody> = column(&row, "state", 2)?;
        marks.insert(
            column(&row, "review", 0)?,
            shaped(
                shape.map(|shape| shape as u32),
                body.as_ref().map(|body| body.0.as_str()),
            ),
        );
    }
    Ok(marks)
}

/// Counts the snapshot's posture against the marks that stand now and keeps it.
pub(super) fn record_posture(
    transaction: &mut Transaction<'_>,
    workspace_id: &str,
    snapshot_id: i64,
    projects: &[ProjectState],
) -> Step<()> {
    let marks = standing_marks(transaction, workspace_id, i64::MAX)?;
    let posture = Posture::count(projects, &marks).to_json();
    transaction.execute(
        "UPDATE snapshot SET posture = $1 WHERE id = $2",
        &[&posture, &snapshot_id],
    )?;
    Ok(())
}

/// The snapshots standing waivers refer to (`retention.rs`, [`WAIVER_HOLDS`]),
/// each with the waiver's name; the clock is the database's, as a snapshot's.
fn waived_snapshots(
    client: &mut impl GenericClient,
    workspace_id: &str,
) -> Step<Vec<(i64, String)>> {
    let mut held = Vec::new();
    for row in client.query(
        &format!(
            "WITH standing AS (
                 SELECT * FROM (
                     SELECT DISTINCT ON (policy_id, project_id) * FROM review
                     WHERE workspace_id = $1 AND action = 'waive'
                     ORDER BY policy_id, project_id, id DESC) newest_waiver
                 WHERE until_ms > (extract(epoch FROM clock_timestamp()) * 1000)::BIGINT)
             SELECT held.id, held.policy_id, held.project_id FROM (
                 SELECT w.policy_id, w.project_id,
                        (SELECT MAX(snap.id) FROM project_range r
                         JOIN snapshot snap ON {HELD_BY_SNAP}
                         WHERE r.workspace_id = $1 AND r.subject = w.project_id
                           AND snap.taken_at_ms <= w.at_ms) AS id
                 FROM standing w) AS held
             WHERE held.id IS NOT NULL
             ORDER BY held.id, held.policy_id COLLATE \"C\", held.project_id COLLATE \"C\""
        ),
        &[&workspace_id],
    )? {
        let policy: String = column(&row, "waiver", 1)?;
        let project: String = column(&row, "waiver", 2)?;
        held.push((column(&row, "snapshot", 0)?, waiver_name(&policy, &project)));
    }
    Ok(held)
}

/// What `snapshot prune` keeps whatever its rules say: the snapshot each
/// standing mark refers to (the newest taken when, or before, its reviewed
/// state was read that holds that state), and those waivers refer to.
pub(super) fn held_snapshots(
    client: &mut impl GenericClient,
    workspace_id: &str,
) -> Step<Vec<(i64, KeepReason)>> {
    let mut held = Vec::new();
    for row in client.query(
        &format!(
            "WITH current AS (
                 SELECT * FROM (
                     SELECT DISTINCT ON (project_id) * FROM review
                     WHERE workspace_id = $1 AND {MARK_ROWS}
                     ORDER BY project_id, id DESC) newest_entry
                 WHERE action = 'mark' AND state_id IS NOT NULL)
             SELECT held.id, held.project_id FROM (
                 SELECT c.project_id,
                        (SELECT MAX(snap.id) FROM project_range r
                         JOIN snapshot snap ON {HELD_BY_SNAP}
                         WHERE r.workspace_id = $1 AND r.subject = c.project_id
                           AND r.state_id = c.state_id
                           AND snap.taken_at_ms <= coalesce(c.state_at_ms, c.at_ms)) AS id
                 FROM current c) AS held
             WHERE held.id IS NOT NULL ORDER BY held.id, held.project_id COLLATE \"C\""
        ),
        &[&workspace_id],
    )? {
        held.push((
            column(&row, "snapshot", 0)?,
            KeepReason::Marked(column(&row, "review", 1)?),
        ));
    }
    for (id, waiver) in waived_snapshots(client, workspace_id)? {
        held.push((id, KeepReason::Waived(waiver)));
    }
    Ok(held)
}

/// Removes `doomed` (snapshots of the workspace), the ranges no snapshot
/// holds any more and the states nothing refers to, in `transaction`.
pub(super) fn remove_snapshots(
    transaction: &mut Transaction<'_>,
    workspace_id: &str,
    doomed: &[i64],
) -> Step<()> {
    if doomed.is_empty() {
        return Ok(());
    }
    transaction.execute(
        "DELETE FROM snapshot WHERE workspace_id = $1 AND id = ANY($2)",
        &[&workspace_id, &doomed],
    )?;
    for kind in [ProjectState::KIND, MemberState::KIND] {
        transaction.execute(
            &format!(
                "DELETE FROM {kind}_range r WHERE r.workspace_id = $1 AND NOT EXISTS (
                     SELECT 1 FROM snapshot snap WHERE snap.workspace_id = $1
                         AND snap.id >= r.valid_from
                         AND (r.valid_until IS NULL OR snap.id < r.valid_until))"
            ),
            &[&workspace_id],
        )?;
    }
    transaction.execute(
        "DELETE FROM state s WHERE NOT EXISTS (SELECT 1 FROM project_range l WHERE l.state_id = s.id)
             AND NOT EXISTS (SELECT 1 FROM member_range l WHERE l.state_id = s.id)
             AND NOT EXISTS (SELECT 1 FROM snapshot sn WHERE sn.insights_state = s.id)
             AND NOT EXISTS (SELECT 1 FROM review r WHERE r.state_id = s.id)",
        &[],
    )?;
    Ok(())
}

/// The states of `kind` that differ between snapshots `low` < `high`.
fn turned<T: Document>(
    client: &mut impl GenericClient,
    workspace_id: &str,
    low: i64,
    high: i64,
) -> Step<(Vec<T>, Vec<T>)> {
    let kind = T::KIND;
    let mut sides = (Vec::new(), Vec::new());
    let rows = client.query(
        &format!(
            "SELECT true AS ended, s.body FROM {kind}_range r JOIN state s ON s.id = r.state_id
             WHERE r.workspace_id = $1 AND r.valid_until > $2 AND r.valid_until <= $3
               AND r.valid_from <= $2
             UNION ALL
             SELECT false, s.body FROM {kind}_range r JOIN state s ON s.id = r.state_id
             WHERE r.workspace_id = $1 AND r.valid_from > $2 AND r.valid_from <= $3
               AND (r.valid_until IS NULL OR r.valid_until > $3)"
        ),
        &[&workspace_id, &low, &high],
    )?;
    for row in &rows {
        let ended: bool = column(row, "range", 0)?;
        let state = parse_body(kind, &column::<PackedBody>(row, "state", 1)?.0)?;
        if ended {
            sides.0.push(state);
        } else {
            sides.1.push(state);
        }
    }
    Ok(sides)
}

/// What differs between two snapshots of the workspace, either way round.
pub(super) fn turnover(
    client: &mut impl GenericClient,
    workspace_id: &str,
    before: i64,
    after: i64,
) -> Step<Turnover> {
    let (low, high) = (before.min(after), before.max(after));
    let mut projects = turned::<ProjectState>(client, workspace_id, low, high)?;
    let mut members = turned::<MemberState>(client, workspace_id, low, high)?;
    if before > after {
        projects = (projects.1, projects.0);
        members = (members.1, members.0);
    }
    Ok(Turnover { projects, members })
}

/// Every snapshot's posture, oldest first: one query.
pub(super) fn posture(client: &mut impl GenericClient, workspace_id: &str) -> Step<Vec<PostureAt>> {
    let mut postures = Vec::new();
    for row in client.query(
        "SELECT id, taken_at_ms, posture FROM snapshot WHERE workspace_id = $1 ORDER BY id",
        &[&workspace_id],
    )? {
        let raw: Option<String> = column(&row, "snapshot", 2)?;
        // A snapshot recorded without one has none to chart.
        let Some(posture) = Posture::from_json(raw.as_deref())? else {
            continue;
        };
        postures.push(PostureAt {
            snapshot: column(&row, "snapshot", 0)?,
            taken_at: from_ms(column(&row, "snapshot", 1)?, "snapshot.taken_at_ms")?,
            posture,
        });
    }
    Ok(postures)
}

/// Version 2 to 3: each workspace's snapshots, oldest first, become ranges
/// as if recorded now (one snapshot's list in memory at a time), each
/// snapshot's posture counted against the marks that stood when it was
/// taken; then the lists go.
pub(super) fn to_ranges(transaction: &mut Transaction<'_>) -> Step<()> {
    // Version 3: what the file's version 4 holds.
    transaction.batch_execute(&range_tables("BIGSERIAL PRIMARY KEY", "BIGINT"))?;
    let snapshots: Vec<(i64, String, i64)> = transaction
        .query(
            "SELECT id, workspace_id, taken_at_ms FROM snapshot ORDER BY workspace_id COLLATE \"C\", id",
            &[],
        )?
        .iter()
        .map(|row| {
            Ok((
                column(row, "snapshot", 0)?,
                column(row, "snapshot", 1)?,
                column(row, "snapshot", 2)?,
            ))
        })
        .collect::<Step<_>>()?;
    let mut open: HashMap<(String, &str), Vec<OpenRange<i64, i64>>> = HashMap::new();
    // Parsed once: a state stays the same across many snapshots.
    let mut parsed: HashMap<i64, ProjectState> = HashMap::new();
    for (snapshot_id, workspace_id, taken_at_ms) in &snapshots {
        for kind in [ProjectState::KIND, MemberState::KIND] {
            let mut listed: Vec<(String, i64)> = Vec::new();
            for row in transaction.query(
                &format!(
                    "SELECT s.subject, l.state_id FROM snapshot_{kind} l JOIN state s ON s.id = l.state_id
                     WHERE l.snapshot_id = $1 ORDER BY l.position"
                ),
                &[snapshot_id],
            )? {
                listed.push((column(&row, "state", 0)?, column(&row, "state", 1)?));
            }
            let ranges = open.entry((workspace_id.clone(), kind)).or_default();
            let plan = plan_ids(ranges, &listed);
            transaction.execute(
                &format!("UPDATE {kind}_range SET valid_until = $1 WHERE id = ANY($2)"),
                &[snapshot_id, &plan.close],
            )?;
            drop_closed(ranges, &plan.close);
            let subjects: Vec<&str> = plan
                .open
                .iter()
                .map(|(at, _)| listed[*at].0.as_str())
                .collect();
            let states: Vec<i64> = plan.open.iter().map(|(at, _)| listed[*at].1).collect();
            let keys: Vec<i64> = plan.open.iter().map(|(_, key)| *key).collect();
            for row in transaction.query(
                &format!(
                    "INSERT INTO {kind}_range (workspace_id, subject, state_id, sort_key, valid_from)
                     SELECT $1, given.subject, given.state_id, given.sort_key, $2
                     FROM unnest($3::TEXT[], $4::BIGINT[], $5::BIGINT[])
                         AS given (subject, state_id, sort_key)
                     RETURNING id, subject, state_id, sort_key"
                ),
                &[workspace_id, snapshot_id, &subjects, &states, &keys],
            )? {
                ranges.push(OpenRange {
                    handle: column(&row, "range", 0)?,
                    subject: column(&row, "range", 1)?,
                    identity: column(&row, "range", 2)?,
                    sort_key: column(&row, "range", 3)?,
                });
            }
            if kind != ProjectState::KIND {
                continue;
            }
            let missing: Vec<i64> = listed
                .iter()
                .map(|(_, state_id)| *state_id)
                .filter(|state_id| !parsed.contains_key(state_id))
                .collect();
            for row in
                transaction.query("SELECT id, body FROM state WHERE id = ANY($1)", &[&missing])?
            {
                let body: String = column(&row, "state", 1)?;
                parsed.insert(column(&row, "state", 0)?, parse_body(kind, &body)?);
            }
            let projects = listed
                .iter()
                .filter_map(|(_, state_id)| parsed.get(state_id));
            let marks = standing_marks(transaction, workspace_id, *taken_at_ms)?;
            let posture = Posture::count(projects, &marks).to_json();
            transaction.execute(
                "UPDATE snapshot SET posture = $1 WHERE id = $2",
                &[&posture, snapshot_id],
            )?;
        }
    }
    transaction.batch_execute("DROP TABLE snapshot_project; DROP TABLE snapshot_member;")?;
    Ok(())
}

#[cfg(test)]
mod tests;
