//! Reading snapshots back from the file: the list, one snapshot's parts, and
//! what the dashboard's instant start draws (insights and the first page).

use rusqlite::{OptionalExtension, Row, params};

use super::SqliteStore;
use crate::api::model::{Insights, InventoryItem};
use crate::history::HistoryError;
use crate::history::document::Document;
use crate::history::model::{MemberState, ProjectState, SnapshotInfo};
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

    /// The states a snapshot lists in `snapshot_KIND`, in their order.
    fn listed<T: Document>(&self, snapshot_id: i64) -> Result<Vec<T>, HistoryError> {
        let kind = T::KIND;
        let mut statement = self.connection.prepare_cached(&format!(
            "SELECT s.body FROM snapshot_{kind} link JOIN state s ON s.id = link.state_id
             WHERE link.snapshot_id = ?1 ORDER BY link.position"
        ))?;
        let mut rows = statement.query([snapshot_id])?;
        let mut states = Vec::new();
        while let Some(row) = rows.next()? {
            let body: String = row.get(0)?;
            states.push(parse_body(kind, &body)?);
        }
        Ok(states)
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
                    "SELECT s.body FROM snapshot_{kind} link JOIN state s ON s.id = link.state_id
                     WHERE link.snapshot_id = ?1 AND s.kind = ?2 AND s.subject = ?3 LIMIT 1"
                ),
                params![snapshot_id, kind, project_id],
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
