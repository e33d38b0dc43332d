//! Reading snapshots back from the file: the list, one snapshot's parts, and
//! what the dashboard's instant start draws (insights and the first page).

use rusqlite::{OptionalExtension, Row, params};

use super::SqliteStore;
use super::ranges::HELD_BY_SNAP;
use crate::api::model::{Insights, InventoryItem};
use crate::history::HistoryError;
use crate::history::document::Document;
use crate::history::model::{MemberState, ProjectState, SnapshotInfo};
use crate::history::posture::{Posture, PostureAt};
use crate::history::ranges::Turnover;
use crate::history::read::{SnapshotRef, from_ms, parse_body, to_ms};

const INFO_COLUMNS: &str = "id, workspace_id, taken_at_ms, project_count, member_count";

/// A snapshot's row, then its time checked (a rusqlite closure returns
/// rusqlite's errors only).
fn info(row: &Row<'_>) -> rusqlite::Result<Result<SnapshotInfo, HistoryError>> {
    let (id, workspace_id, taken_at_ms, projects, members) = (
        row.get(0)?,
        row.get(1)?,
        row.get(2)?,
        row.get(3)?,
        row.get(4)?,
    );
    Ok(
        from_ms(taken_at_ms, "snapshot.taken_at_ms").map(|taken_at| SnapshotInfo {
            id,
            workspace_id,
            taken_at,
            projects,
            members,
        }),
    )
}

impl SqliteStore {
    /// The workspace's snapshots, oldest first.
    pub(super) fn list(&self, workspace_id: &str) -> Result<Vec<SnapshotInfo>, HistoryError> {
        let mut statement = self.connection.prepare(&format!(
            "SELECT {INFO_COLUMNS} FROM snapshot WHERE workspace_id = ?1 ORDER BY id"
        ))?;
        let rows = statement.query_map([workspace_id], info)?;
        rows.map(|row| row.map_err(HistoryError::from).and_then(|info| info))
            .collect()
    }

    /// The workspaces the file holds snapshots or marks of, sorted.
    pub(super) fn workspaces(&self) -> Result<Vec<String>, HistoryError> {
        let mut statement = self.connection.prepare(
            "SELECT workspace_id FROM snapshot UNION SELECT workspace_id FROM review ORDER BY 1",
        )?;
        let rows = statement.query_map([], |row| row.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The snapshot `reference` names, if it exists (in this workspace).
    pub(super) fn resolve(
        &self,
        workspace_id: &str,
        reference: &SnapshotRef,
    ) -> Result<Option<SnapshotInfo>, HistoryError> {
        let (sql, value): (String, i64) = match reference {
            SnapshotRef::Last | SnapshotRef::Previous => (
                format!(
                    "SELECT {INFO_COLUMNS} FROM snapshot WHERE workspace_id = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2"
                ),
                i64::from(*reference == SnapshotRef::Previous),
            ),
            SnapshotRef::Id(id) => (
                format!("SELECT {INFO_COLUMNS} FROM snapshot WHERE workspace_id = ?1 AND id = ?2"),
                *id,
            ),
            SnapshotRef::At(at) => (
                format!(
                    "SELECT {INFO_COLUMNS} FROM snapshot WHERE workspace_id = ?1 AND taken_at_ms <= ?2 ORDER BY taken_at_ms DESC, id DESC LIMIT 1"
                ),
                to_ms(*at),
            ),
        };
        self.connection
            .query_row(&sql, params![workspace_id, value], info)
            .optional()?
            .transpose()
    }

    pub(super) fn insights(&self, snapshot_id: i64) -> Result<Option<Insights>, HistoryError> {
        let raw: Option<String> = self
            .connection
            .query_row(
                "SELECT s.body FROM snapshot JOIN state s ON s.id = snapshot.insights_state
                 WHERE snapshot.id = ?1",
                [snapshot_id],
                |row| row.get(0),
            )
            .optional()?;
        // Insights this build cannot read are as none: the rest of the snapshot stands.
        Ok(raw.and_then(|text| serde_json::from_str(&text).ok()))
    }

    /// The states whose ranges hold the snapshot, in their order.
    fn listed<T: Document>(&self, snapshot_id: i64) -> Result<Vec<T>, HistoryError> {
        let kind = T::KIND;
        let mut statement = self.connection.prepare_cached(&format!(
            "SELECT s.body FROM snapshot snap JOIN {kind}_range r ON {HELD_BY_SNAP}
             JOIN state s ON s.id = r.state_id
             WHERE snap.id = ?1 ORDER BY r.sort_key, r.id"
        ))?;
        let mut rows = statement.query([snapshot_id])?;
        let mut states = Vec::new();
        while let Some(row) = rows.next()? {
            let body: String = row.get(0)?;
            states.push(parse_body(kind, &body)?);
        }
        Ok(states)
    }

    /// The states of `kind` that differ between snapshots `low` and `high`
    /// (`low` < `high`) of the workspace: those held at `low` whose range
    /// ends by `high`, and those held at `high` whose range began after `low`.
    fn turned<T: Document>(
        &self,
        workspace_id: &str,
        low: i64,
        high: i64,
    ) -> Result<(Vec<T>, Vec<T>), HistoryError> {
        let kind = T::KIND;
        let mut sides = (Vec::new(), Vec::new());
        for (ended, sql) in [
            (
                true,
                format!(
                    "SELECT s.body FROM {kind}_range r JOIN state s ON s.id = r.state_id
                     WHERE r.workspace_id = ?1 AND r.valid_until > ?2 AND r.valid_until <= ?3
                       AND r.valid_from <= ?2"
                ),
            ),
            (
                false,
                format!(
                    "SELECT s.body FROM {kind}_range r JOIN state s ON s.id = r.state_id
                     WHERE r.workspace_id = ?1 AND r.valid_from > ?2 AND r.valid_from <= ?3
                       AND (r.valid_until IS NULL OR r.valid_until > ?3)"
                ),
            ),
        ] {
            let mut statement = self.connection.prepare_cached(&sql)?;
            let mut rows = statement.query(params![workspace_id, low, high])?;
            let side = if ended { &mut sides.0 } else { &mut sides.1 };
            while let Some(row) = rows.next()? {
                let body: String = row.get(0)?;
                side.push(parse_body(kind, &body)?);
            }
        }
        Ok(sides)
    }

    /// What differs between two snapshots of the workspace, either way round.
    pub(super) fn turnover(
        &self,
        workspace_id: &str,
        before: i64,
        after: i64,
    ) -> Result<Turnover, HistoryError> {
        let (low, high) = (before.min(after), before.max(after));
        let mut projects = self.turned::<ProjectState>(workspace_id, low, high)?;
        let mut members = self.turned::<MemberState>(workspace_id, low, high)?;
        if before > after {
            projects = (projects.1, projects.0);
            members = (members.1, members.0);
        }
        Ok(Turnover { projects, members })
    }

    /// Every snapshot's posture, oldest first: one query.
    pub(super) fn posture(&self, workspace_id: &str) -> Result<Vec<PostureAt>, HistoryError> {
        let mut statement = self.connection.prepare_cached(
            "SELECT id, taken_at_ms, posture FROM snapshot WHERE workspace_id = ?1 ORDER BY id",
        )?;
        let mut rows = statement.query([workspace_id])?;
        let mut postures = Vec::new();
        while let Some(row) = rows.next()? {
            let raw: Option<String> = row.get(2)?;
            // A snapshot recorded without one has none to chart.
            let Some(posture) = Posture::from_json(raw.as_deref())? else {
                continue;
            };
            postures.push(PostureAt {
                snapshot: row.get(0)?,
                taken_at: from_ms(row.get(1)?, "snapshot.taken_at_ms")?,
                posture,
            });
        }
        Ok(postures)
    }

    /// The projects of a snapshot, in the inventory's order.
    pub(super) fn projects(&self, snapshot_id: i64) -> Result<Vec<ProjectState>, HistoryError> {
        self.listed(snapshot_id)
    }

    /// The members of a snapshot, in the order they were listed.
    pub(super) fn members(&self, snapshot_id: i64) -> Result<Vec<MemberState>, HistoryError> {
        self.listed(snapshot_id)
    }

    /// One project's state in a snapshot, if it holds it.
    pub(super) fn project_in(
        &self,
        snapshot_id: i64,
        project_id: &str,
    ) -> Result<Option<ProjectState>, HistoryError> {
        let kind = ProjectState::KIND;
        let body: Option<String> = self
            .connection
            .query_row(
                &format!(
                    "SELECT s.body FROM snapshot snap JOIN {kind}_range r ON {HELD_BY_SNAP}
                     JOIN state s ON s.id = r.state_id
                     WHERE snap.id = ?1 AND r.subject = ?2 ORDER BY r.sort_key LIMIT 1"
                ),
                params![snapshot_id, project_id],
                |row| row.get(0),
            )
            .optional()?;
        body.map(|body| parse_body(kind, &body)).transpose()
    }

    /// The first inventory page kept with a snapshot (the newest only).
    pub(super) fn first_page(
        &self,
        snapshot_id: i64,
    ) -> Result<Option<Vec<InventoryItem>>, HistoryError> {
        let raw: Option<String> = self
            .connection
            .query_row(
                "SELECT first_page FROM snapshot WHERE id = ?1",
                [snapshot_id],
                |row| row.get(0),
            )
            .optional()?
            .flatten();
        raw.map(|raw| {
            serde_json::from_str(&raw)
                .map_err(|error| HistoryError::Corrupt(format!("the first page: {error}")))
        })
        .transpose()
    }
}
