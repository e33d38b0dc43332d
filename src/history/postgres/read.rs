//! Reading the shared history back: the same questions as the file's
//! `read.rs` and `marks.rs`, in PostgreSQL's words. Text is sorted bytewise
//! (`COLLATE "C"`), as the file sorts it, whatever the database's locale.

use postgres::Client;
use postgres::Row;
use postgres::types::ToSql;

use super::column::column;
use super::packed::PackedBody;
use super::ranges::HELD_BY_SNAP;
use super::{Failure, Step};
use crate::api::model::{Insights, InventoryItem};
use crate::history::HistoryError;
use crate::history::backend::{EachItem, LogQuery};
use crate::history::chain::{ChainFields, ChainRow, WaiverTerms};
use crate::history::document::Document;
use crate::history::marks::{MARK_ROWS, MarkRow};
use crate::history::model::{
    LogRead, MarkScope, ProjectState, ReviewAction, ReviewEntry, ReviewMark, SnapshotInfo,
    StoredState,
};
use crate::history::read::{SHOWN_TEXT_CHARS, SnapshotRef, cut_shown, from_ms, parse_body, to_ms};

const INFO_COLUMNS: &str = "id, workspace_id, taken_at_ms, project_count, member_count";

fn info(row: &Row) -> Step<SnapshotInfo> {
    Ok(SnapshotInfo {
        id: column(row, "snapshot", 0)?,
        workspace_id: column(row, "snapshot", 1)?,
        taken_at: from_ms(column(row, "snapshot", 2)?, "snapshot.taken_at_ms")?,
        projects: column(row, "snapshot", 3)?,
        members: column(row, "snapshot", 4)?,
    })
}

pub(super) fn list(client: &mut Client, workspace_id: &str) -> Step<Vec<SnapshotInfo>> {
    client
        .query(
            &format!("SELECT {INFO_COLUMNS} FROM snapshot WHERE workspace_id = $1 ORDER BY id"),
            &[&workspace_id],
        )?
        .iter()
        .map(info)
        .collect()
}

pub(super) fn workspaces(client: &mut Client) -> Step<Vec<String>> {
    client
        .query(
            "SELECT workspace_id FROM (SELECT workspace_id FROM snapshot
                 UNION SELECT workspace_id FROM review) AS held
             ORDER BY workspace_id COLLATE \"C\"",
            &[],
        )?
        .iter()
        .map(|row| column(row, "snapshot or review", 0))
        .collect()
}

pub(super) fn resolve(
    client: &mut Client,
    workspace_id: &str,
    reference: &SnapshotRef,
) -> Step<Option<SnapshotInfo>> {
    let (sql, value): (String, i64) = match reference {
        SnapshotRef::Last | SnapshotRef::Previous => (
            format!(
                "SELECT {INFO_COLUMNS} FROM snapshot WHERE workspace_id = $1 ORDER BY id DESC LIMIT 1 OFFSET $2"
            ),
            i64::from(*reference == SnapshotRef::Previous),
        ),
        SnapshotRef::Id(id) => (
            format!("SELECT {INFO_COLUMNS} FROM snapshot WHERE workspace_id = $1 AND id = $2"),
            *id,
        ),
        SnapshotRef::At(at) => (
            format!(
                "SELECT {INFO_COLUMNS} FROM snapshot WHERE workspace_id = $1 AND taken_at_ms <= $2 ORDER BY taken_at_ms DESC, id DESC LIMIT 1"
            ),
            to_ms(*at),
        ),
    };
    client
        .query_opt(&sql, &[&workspace_id, &value])?
        .map(|row| info(&row))
        .transpose()
}

pub(super) fn insights(client: &mut Client, snapshot_id: i64) -> Step<Option<Insights>> {
    let raw: Option<String> = client
        .query_opt(
            "SELECT s.body FROM snapshot JOIN state s ON s.id = snapshot.insights_state
             WHERE snapshot.id = $1",
            &[&snapshot_id],
        )?
        .map(|row| column(&row, "state", 0).map(|body: PackedBody| body.0))
        .transpose()?;
    // Insights this build cannot read are as none: the rest of the snapshot stands.
    Ok(raw.and_then(|text| serde_json::from_str(&text).ok()))
}

pub(super) fn listed<T: Document>(client: &mut Client, snapshot_id: i64) -> Step<Vec<T>> {
    let kind = T::KIND;
    let rows = client.query(
        &format!(
            "SELECT s.body FROM snapshot snap JOIN {kind}_range r ON {HELD_BY_SNAP}
             JOIN state s ON s.id = r.state_id
             WHERE snap.id = $1 ORDER BY r.sort_key, r.id"
        ),
        &[&snapshot_id],
    )?;
    let mut states = Vec::with_capacity(rows.len());
    for row in &rows {
        states.push(parse_body(kind, &column::<PackedBody>(row, "state", 0)?.0)?);
    }
    Ok(states)
}

pub(super) fn project_in(
    client: &mut Client,
    snapshot_id: i64,
    project_id: &str,
) -> Step<Option<ProjectState>> {
    let kind = ProjectState::KIND;
    let row = client.query_opt(
        &format!(
            "SELECT s.body FROM snapshot snap JOIN {kind}_range r ON {HELD_BY_SNAP}
             JOIN state s ON s.id = r.state_id
             WHERE snap.id = $1 AND r.subject = $2 ORDER BY r.sort_key LIMIT 1"
        ),
        &[&snapshot_id, &project_id],
    )?;
    match row {
        Some(row) => Ok(Some(parse_body(
            kind,
            &column::<PackedBody>(&row, "state", 0)?.0,
        )?)),
        None => Ok(None),
    }
}

pub(super) fn first_page(
    client: &mut Client,
    snapshot_id: i64,
) -> Step<Option<Vec<InventoryItem>>> {
    let raw: Option<String> = client
        .query_opt(
            "SELECT first_page FROM snapshot WHERE id = $1",
            &[&snapshot_id],
        )?
        .map(|row| column(&row, "snapshot", 0))
        .transpose()?
        .flatten();
    Ok(raw
        .map(|raw| {
            serde_json::from_str(&raw)
                .map_err(|error| HistoryError::Corrupt(format!("the first page: {error}")))
        })
        .transpose()?)
}

/// Rows a portal hands over at a time: a page of the result in memory, never all of it.
const PAGE_ROWS: i32 = 500;

/// Runs `sql` through a server-side portal in a read-only transaction of its
/// own, handing `each` the rows a page at a time, as the database reads
/// them, until it answers `false`.
fn each_row(
    client: &mut Client,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
    each: &mut dyn FnMut(&Row) -> Step<bool>,
) -> Step<()> {
    let mut transaction = client.build_transaction().read_only(true).start()?;
    let portal = transaction.bind(sql, params)?;
    'pages: loop {
        let rows = transaction.query_portal(&portal, PAGE_ROWS)?;
        for row in &rows {
            if !each(row)? {
                break 'pages;
            }
        }
        if rows.len() < PAGE_ROWS as usize {
            break;
        }
    }
    transaction.commit()?;
    Ok(())
}

/// What `each` of the backend returned, carried through a step: go on, or stop.
fn handed(result: Result<(), HistoryError>) -> Step<bool> {
    result.map(|()| true).map_err(Failure::History)
}

/// The marks that stand in `scope`, newest first, a page at a time.
pub(super) fn each_mark(
    client: &mut Client,
    workspace_id: &str,
    scope: MarkScope<'_>,
    each: &mut EachItem<'_, ReviewMark>,
) -> Step<()> {
    let only: Option<Vec<&str>> = match scope {
        MarkScope::Projects(ids) => Some(ids.iter().map(String::as_str).collect()),
        _ => None,
    };
    let shown = scope == MarkScope::Shown;
    each_row(
        client,
        &format!(
            "WITH current AS (
                 SELECT * FROM (
                     SELECT DISTINCT ON (project_id) * FROM review
                     WHERE workspace_id = $1 AND ($2::TEXT[] IS NULL OR project_id = ANY($2))
                       AND {MARK_ROWS}
                     ORDER BY project_id, id DESC) newest_entry
                 WHERE action = 'mark'),
             newest AS (SELECT id, taken_at_ms FROM snapshot WHERE workspace_id = $1
                        ORDER BY id DESC LIMIT 1),
             latest AS (
                 SELECT s.subject, s.shape, s.body, newest.taken_at_ms
                 FROM newest JOIN project_range r ON r.workspace_id = $1 AND r.valid_until IS NULL
                 JOIN state s ON s.id = r.state_id)
             SELECT c.project_id, c.at_ms, left(COALESCE(c.db_role, c.reviewer), {SHOWN_TEXT_CHARS}),
                    left(CASE WHEN c.db_role IS NOT NULL THEN c.reviewer END, {SHOWN_TEXT_CHARS}),
                    left(c.note, {SHOWN_TEXT_CHARS}), c.state_at_ms,
                    marked.shape, marked.body, latest.shape, latest.body, latest.taken_at_ms
             FROM current c
             LEFT JOIN latest ON latest.subject = c.project_id
             LEFT JOIN state marked ON marked.id = c.state_id
             WHERE NOT $3 OR latest.subject IS NOT NULL
                OR NOT EXISTS (SELECT 1 FROM newest)
                -- Cast: a column of another type is named as damage when read, not here.
                OR c.at_ms::BIGINT >= (SELECT taken_at_ms::BIGINT FROM newest)
             ORDER BY c.at_ms DESC, c.project_id COLLATE \"C\""
        ),
        &[&workspace_id, &only, &shown],
        &mut |row| {
            let mark = MarkRow {
                project_id: column(row, "review", 0)?,
                at_ms: column(row, "review", 1)?,
                reviewer: column(row, "review", 2)?,
                display_name: column(row, "review", 3)?,
                note: column(row, "review", 4)?,
                state_at_ms: column(row, "review", 5)?,
                marked: stored_state(row, 6)?,
                latest: stored_state(row, 8)?,
                latest_at_ms: column(row, "snapshot", 10)?,
            }
            .into_mark()?;
            handed(each(mark))
        },
    )
}

/// The log (of one project, when given), oldest first, a page at a time.
pub(super) fn each_entry(
    client: &mut Client,
    query: &LogQuery,
    each: &mut EachItem<'_, ReviewEntry>,
) -> Step<()> {
    let whole = query.read == LogRead::Whole;
    let text = |sql: &str| {
        if whole {
            sql.to_owned()
        } else {
            format!("left({sql}, {SHOWN_TEXT_CHARS})")
        }
    };
    // What is shown never needs the reviewed state's body.
    let state = if whole {
        "s.shape, s.body FROM review r LEFT JOIN state s ON s.id = r.state_id"
    } else {
        "NULL::INTEGER, NULL::BYTEA FROM review r"
    };
    // Whole, the name is as the client gave it (what a copy moves); shown,
    // the role comes first.
    let (who, name) = if whole {
        ("r.reviewer".to_owned(), "NULL::TEXT".to_owned())
    } else {
        (
            text("COALESCE(r.db_role, r.reviewer)"),
            text("CASE WHEN r.db_role IS NOT NULL THEN r.reviewer END"),
        )
    };
    each_row(
        client,
        &format!(
            "SELECT r.id, r.project_id, r.action, r.at_ms, {who}, {name}, {}, r.state_at_ms,
                    r.policy_id, r.until_ms, {state}
             WHERE r.workspace_id = $1 AND ($2::TEXT IS NULL OR r.project_id = $2)
             ORDER BY r.id",
            text("r.note"),
        ),
        &[&query.workspace_id, &query.project_id],
        &mut |row| {
            let action: String = column(row, "review", 2)?;
            let state_at: Option<i64> = column(row, "review", 7)?;
            let shown = |text: Option<String>| if whole { text } else { cut_shown(text) };
            let entry = ReviewEntry {
                id: column(row, "review", 0)?,
                project_id: column(row, "review", 1)?,
                action: ReviewAction::parse(&action).ok_or_else(|| {
                    HistoryError::Corrupt(format!("a review log action {action:?}"))
                })?,
                at: from_ms(column(row, "review", 3)?, "review.at_ms")?,
                reviewer: shown(column(row, "review", 4)?),
                display_name: shown(column(row, "review", 5)?),
                note: shown(column(row, "review", 6)?),
                reviewed_state_at: state_at
                    .map(|ms| from_ms(ms, "review.state_at_ms"))
                    .transpose()?,
                reviewed_state: stored_state(row, 10)?
                    .map(|(shape, body)| StoredState { shape, body }),
                policy_id: column(row, "review", 8)?,
                until: column::<Option<i64>>(row, "review", 9)?
                    .map(|ms| from_ms(ms, "review.until_ms"))
                    .transpose()?,
            };
            handed(each(entry))
        },
    )
}

/// The workspace's chain, oldest first, until `each` says stop.
pub(super) fn each_chain_row(
    client: &mut Client,
    workspace_id: &str,
    each: &mut (dyn FnMut(ChainRow) -> bool + Send),
) -> Step<()> {
    each_row(
        client,
        "SELECT id, project_id, action, at_ms, reviewer, db_role, note, hash, policy_id, until_ms
         FROM review WHERE workspace_id = $1 ORDER BY id",
        &[&workspace_id],
        &mut |row| {
            let chained = ChainRow {
                id: column(row, "review", 0)?,
                fields: ChainFields {
                    workspace_id: workspace_id.to_owned(),
                    project_id: column(row, "review", 1)?,
                    action: column(row, "review", 2)?,
                    at_ms: column(row, "review", 3)?,
                    reviewer: column(row, "review", 4)?,
                    role: column(row, "review", 5)?,
                    note: column(row, "review", 6)?,
                    waiver: column::<Option<String>>(row, "review", 8)?
                        .zip(column::<Option<i64>>(row, "review", 9)?)
                        .map(|(policy_id, until_ms)| WaiverTerms {
                            policy_id,
                            until_ms,
                        }),
                },
                hash: column(row, "review", 7)?,
            };
            Ok(each(chained))
        },
    )
}

/// A joined state's shape and body (columns `index` and `index + 1`), when
/// the row has one; a negative shape is damage, as in the file.
fn stored_state(row: &Row, index: usize) -> Step<Option<(u32, String)>> {
    let shape: Option<i32> = column(row, "state", index)?;
    let body: Option<PackedBody> = column(row, "state", index + 1)?;
    let Some((shape, PackedBody(body))) = shape.zip(body) else {
        return Ok(None);
    };
    let shape = u32::try_from(shape)
        .map_err(|_| HistoryError::Corrupt(format!("state.shape is {shape}, below 0")))?;
    Ok(Some((shape, body)))
}
