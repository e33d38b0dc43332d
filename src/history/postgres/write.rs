//! Writing the shared history. Each write is one transaction and moves the
//! revision last (its row lock is held for an instant only). A snapshot is
//! recorded with two `COPY`s into temporary tables and a few statements, so
//! 20,000 projects and 5,000 members take seconds, not a round trip each.
//! States are shared by every workspace: recording and pruning take the states
//! lock (exclusive), a mark takes it shared, so a prune never removes a state
//! that a write in flight is about to hold.

use postgres::{GenericClient, Transaction};
use time::OffsetDateTime;

use super::Step;
use super::column::column;
use super::locks::{CHAIN_LOCK, LOCK_CLASS, STATES_LOCK};
use super::packed::pack;
use super::ranges;
use crate::history::HistoryError;
use crate::history::backend::Retention;
use crate::history::chain::{ChainFields, link};
use crate::history::document::{Document, StoredDocument};
use crate::history::marks::{MARK_ROWS, Reviewed, reviewed};
use crate::history::model::{
    CLOCK_SKEW, Capture, NewMark, ProjectState, ReviewEntry, SnapshotInfo,
};
use crate::history::read::{from_ms, to_ms};
use crate::history::retention::unheld;

pub(super) fn bump_revision(transaction: &mut Transaction<'_>) -> Step<()> {
    transaction.execute(
        "UPDATE vantage_meta SET value = value + 1 WHERE key = 'revision'",
        &[],
    )?;
    Ok(())
}

fn lock_states(transaction: &mut Transaction<'_>, shared: bool) -> Step<()> {
    let sql = if shared {
        "SELECT pg_advisory_xact_lock_shared($1, $2)"
    } else {
        "SELECT pg_advisory_xact_lock($1, $2)"
    };
    transaction.execute(sql, &[&LOCK_CLASS, &STATES_LOCK])?;
    Ok(())
}

/// Stores `document` unless a state with its digest is stored; its id.
fn store_document(
    client: &mut impl GenericClient,
    subject: &str,
    document: &StoredDocument,
) -> Step<i64> {
    let shape = document.shape as i32;
    let digest = document.digest.as_slice();
    if let Some(row) = client.query_opt(
        "INSERT INTO state (kind, subject, shape, digest, body) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (digest) DO NOTHING RETURNING id",
        &[
            &document.kind,
            &subject,
            &shape,
            &digest,
            &pack(&document.body),
        ],
    )? {
        return column(&row, "state", 0);
    }
    let row = client.query_one("SELECT id FROM state WHERE digest = $1", &[&digest])?;
    column(&row, "state", 0)
}

pub(super) fn record(
    transaction: &mut Transaction<'_>,
    capture: &Capture,
    retention: Retention,
) -> Step<SnapshotInfo> {
    lock_states(transaction, false)?;
    // The team's clock is the database's: a teammate whose clock runs ahead
    // would otherwise record a snapshot that stays "newest" for good and,
    // retention being measured from it, prune everyone's older ones.
    let database_now_ms: i64 = column(
        &transaction.query_one(
            "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint",
            &[],
        )?,
        "clock_timestamp()",
        0,
    )?;
    let database_now = from_ms(database_now_ms, "clock_timestamp()")?;
    if capture.taken_at > database_now + CLOCK_SKEW {
        return Err(HistoryError::ClockAhead {
            taken_at: capture.taken_at,
            database_now,
        }
        .into());
    }
    let insights = store_document(
        transaction,
        &capture.workspace_id,
        &StoredDocument::of(&capture.insights),
    )?;
    let first_page = serde_json::to_string(&capture.first_page).ok();
    // Only the newest snapshot's first page is kept (the instant start).
    transaction.execute(
        "UPDATE snapshot SET first_page = NULL WHERE workspace_id = $1 AND first_page IS NOT NULL",
        &[&capture.workspace_id],
    )?;
    let taken_at_ms = to_ms(capture.taken_at);
    let projects = capture.projects.len() as i64;
    let members = capture.members.len() as i64;
    let inserted = transaction.query_one(
        "INSERT INTO snapshot (workspace_id, taken_at_ms, project_count, member_count, insights_state, first_page)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
        &[
            &capture.workspace_id,
            &taken_at_ms,
            &projects,
            &members,
            &insights,
            &first_page,
        ],
    )?;
    let snapshot_id: i64 = column(&inserted, "snapshot", 0)?;
    ranges::record_ranges(
        transaction,
        &capture.workspace_id,
        snapshot_id,
        &capture.projects,
    )?;
    ranges::record_ranges(
        transaction,
        &capture.workspace_id,
        snapshot_id,
        &capture.members,
    )?;
    // Marks made before any snapshot (or loaded row) held their project are
    // held against this snapshot's state.
    transaction.execute(
        &format!(
            "UPDATE review SET
                 state_id = (SELECT r.state_id FROM project_range r
                             WHERE r.workspace_id = $1 AND r.valid_until IS NULL
                               AND r.subject = review.project_id ORDER BY r.sort_key LIMIT 1),
                 state_at_ms = $2
             WHERE workspace_id = $1 AND action = 'mark' AND state_id IS NULL
               AND id IN (SELECT MAX(id) FROM review WHERE workspace_id = $1 AND {MARK_ROWS}
                          GROUP BY project_id)"
        ),
        &[&capture.workspace_id, &taken_at_ms],
    )?;
    ranges::record_posture(
        transaction,
        &capture.workspace_id,
        snapshot_id,
        &capture.projects,
    )?;
    prune_in(
        transaction,
        &capture.workspace_id,
        retention,
        capture.taken_at,
    )?;
    bump_revision(transaction)?;
    Ok(SnapshotInfo {
        id: snapshot_id,
        workspace_id: capture.workspace_id.clone(),
        taken_at: from_ms(taken_at_ms, "snapshot.taken_at_ms")?,
        projects,
        members,
    })
}

pub(super) fn prune(
    transaction: &mut Transaction<'_>,
    workspace_id: &str,
    retention: Retention,
    now: OffsetDateTime,
) -> Step<usize> {
    lock_states(transaction, false)?;
    let removed = prune_in(transaction, workspace_id, retention, now)?;
    bump_revision(transaction)?;
    Ok(removed)
}

fn prune_in(
    transaction: &mut Transaction<'_>,
    workspace_id: &str,
    retention: Retention,
    now: OffsetDateTime,
) -> Step<usize> {
    let oldest_kept = to_ms(now - retention.max_age);
    let keep = i64::from(retention.max_snapshots);
    let doomed: Vec<i64> = transaction
        .query(
            "SELECT id FROM snapshot WHERE workspace_id = $1 AND
                 (taken_at_ms < $2 OR id NOT IN (
                     SELECT id FROM snapshot WHERE workspace_id = $1 ORDER BY id DESC LIMIT $3))",
            &[&workspace_id, &oldest_kept, &keep],
        )?
        .iter()
        .map(|row| column(row, "snapshot", 0))
        .collect::<Step<_>>()?;
    // What a mark or waiver refers to stays, as `snapshot prune --keep-*` keeps it.
    let doomed = unheld(doomed, &ranges::held_snapshots(transaction, workspace_id)?);
    if doomed.is_empty() {
        return Ok(0);
    }
    ranges::remove_snapshots(transaction, workspace_id, &doomed)?;
    Ok(doomed.len())
}

/// Removes `doomed` except what a mark or waiver refers to by now
/// (`Backend::forget`); the ids removed.
pub(super) fn forget(
    transaction: &mut Transaction<'_>,
    workspace_id: &str,
    doomed: &[i64],
) -> Step<Vec<i64>> {
    lock_states(transaction, false)?;
    let going = unheld(
        doomed.iter().copied(),
        &ranges::held_snapshots(transaction, workspace_id)?,
    );
    ranges::remove_snapshots(transaction, workspace_id, &going)?;
    bump_revision(transaction)?;
    Ok(going)
}

/// Appends `fields` to the log as the role this session logged in as (the
/// database checks it), chained to the workspace's newest entry.
/// `state`: the reviewed state's id and when it was read (marks only).
pub(super) fn insert_review(
    transaction: &mut Transaction<'_>,
    fields: ChainFields,
    state: (Option<i64>, Option<i64>),
) -> Step<()> {
    let role = transaction.query_one("SELECT session_user::TEXT AS role", &[])?;
    let fields = ChainFields {
        role: Some(column(&role, "review", 0)?),
        ..fields
    };
    append_entry(transaction, &fields, state)
}

/// Appends `fields` to its workspace's chain: the chain's lock, held to the
/// transaction's end, keeps another entry from coming between.
pub(super) fn append_entry(
    transaction: &mut Transaction<'_>,
    fields: &ChainFields,
    state: (Option<i64>, Option<i64>),
) -> Step<()> {
    transaction.execute(
        "SELECT pg_advisory_xact_lock($1, $2)",
        &[&LOCK_CLASS, &CHAIN_LOCK],
    )?;
    let head = transaction.query_opt(
        "SELECT hash FROM review WHERE workspace_id = $1 ORDER BY id DESC LIMIT 1",
        &[&fields.workspace_id],
    )?;
    let previous: Option<Vec<u8>> = match head {
        Some(row) => column(&row, "review", 0)?,
        None => None,
    };
    let hash = link(previous.as_deref(), fields);
    let terms = fields.waiver.as_ref();
    transaction.execute(
        "INSERT INTO review (workspace_id, project_id, action, at_ms, reviewer, note, state_id, state_at_ms,
                             db_role, hash, policy_id, until_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
        &[
            &fields.workspace_id,
            &fields.project_id,
            &fields.action,
            &fields.at_ms,
            &fields.reviewer,
            &fields.note,
            &state.0,
            &state.1,
            &fields.role,
            &hash,
            &terms.map(|terms| terms.policy_id.as_str()),
            &terms.map(|terms| terms.until_ms),
        ],
    )?;
    Ok(())
}

pub(super) fn mark_all(
    transaction: &mut Transaction<'_>,
    workspace_id: &str,
    marks: &[NewMark],
    now: OffsetDateTime,
) -> Step<()> {
    lock_states(transaction, true)?;
    for mark in marks {
        let in_snapshot: Option<(i64, i64)> = transaction
            .query_opt(
                "SELECT r.state_id, snap.taken_at_ms FROM snapshot snap
                 JOIN project_range r ON r.workspace_id = $1 AND r.valid_until IS NULL
                 WHERE snap.id = (SELECT MAX(id) FROM snapshot WHERE workspace_id = $1)
                   AND r.subject = $2 ORDER BY r.sort_key LIMIT 1",
                &[&workspace_id, &mark.project_id],
            )?
            .map(|row| Step::Ok((column(&row, "state", 0)?, column(&row, "snapshot", 1)?)))
            .transpose()?;
        let seen_at = mark.seen.as_ref().map(|seen| to_ms(seen.read_at));
        let state = match (reviewed(seen_at, in_snapshot.map(|(_, at)| at)), &mark.seen) {
            (Reviewed::Seen, Some(seen)) => {
                let document = StoredDocument::of(&seen.state);
                let id = store_document(transaction, &mark.project_id, &document)?;
                (Some(id), seen_at)
            }
            (Reviewed::Snapshot, _) => {
                (in_snapshot.map(|(id, _)| id), in_snapshot.map(|(_, at)| at))
            }
            _ => (None, None),
        };
        insert_review(
            transaction,
            ChainFields::mark(workspace_id, mark, now),
            state,
        )?;
    }
    bump_revision(transaction)?;
    Ok(())
}

/// Appends `unmark` when the project's mark stands; `false` when it did not.
pub(super) fn unmark(transaction: &mut Transaction<'_>, unmark: ChainFields) -> Step<bool> {
    let marked = transaction
        .query_opt(
            &format!(
                "SELECT action = 'mark' AS marked FROM review
                 WHERE workspace_id = $1 AND project_id = $2 AND {MARK_ROWS}
                 ORDER BY id DESC LIMIT 1"
            ),
            &[&unmark.workspace_id, &unmark.project_id],
        )?
        .map(|row| column(&row, "review", 0))
        .transpose()?
        .unwrap_or(false);
    if marked {
        insert_review(transaction, unmark, (None, None))?;
        bump_revision(transaction)?;
    }
    Ok(marked)
}

pub(super) fn import_log(
    transaction: &mut Transaction<'_>,
    workspace_id: &str,
    entries: &[ReviewEntry],
) -> Step<usize> {
    lock_states(transaction, true)?;
    let mut added = 0;
    for entry in entries {
        let at_ms = to_ms(entry.at);
        // The name the entry's reviewer gave; the role is whoever copies it.
        let name = entry.display_name.as_ref().or(entry.reviewer.as_ref());
        let found = transaction.query_one(
            "SELECT EXISTS (SELECT 1 FROM review WHERE workspace_id = $1 AND project_id = $2
                 AND action = $3 AND at_ms = $4 AND reviewer IS NOT DISTINCT FROM $5
                 AND note IS NOT DISTINCT FROM $6) AS held",
            &[
                &workspace_id,
                &entry.project_id,
                &entry.action.as_str(),
                &at_ms,
                &name,
                &entry.note,
            ],
        )?;
        let held: bool = column(&found, "", 0)?;
        if held {
            continue;
        }
        let state_id = match &entry.reviewed_state {
            Some(state) => {
                let document =
                    StoredDocument::from_body(ProjectState::KIND, state.shape, state.body.clone());
                Some(store_document(transaction, &entry.project_id, &document)?)
            }
            None => None,
        };
        let fields = ChainFields::copied(workspace_id, entry, name.map(String::as_str));
        insert_review(
            transaction,
            fields,
            (state_id, entry.reviewed_state_at.map(to_ms)),
        )?;
        added += 1;
    }
    bump_revision(transaction)?;
    Ok(added)
}
