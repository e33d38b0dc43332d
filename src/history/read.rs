//! Reading snapshots back: the list, one snapshot whole, and what the
//! dashboard's instant start draws (the newest insights and first page).

use rusqlite::{OptionalExtension, Row, params};
use serde::de::DeserializeOwned;
use time::OffsetDateTime;

use super::document::Document;
use super::model::{MemberState, ProjectState, Snapshot, SnapshotInfo};
use super::store::{from_ms, to_ms};
use super::{HistoryError, Store};
use crate::api::model::{Insights, InventoryItem};

const INFO_COLUMNS: &str = "id, workspace_id, taken_at_ms, project_count, member_count";

fn info(row: &Row<'_>) -> rusqlite::Result<SnapshotInfo> {
    Ok(SnapshotInfo {
        id: row.get(0)?,
        workspace_id: row.get(1)?,
        taken_at: from_ms(row.get(2)?),
        projects: row.get(3)?,
        members: row.get(4)?,
    })
}

/// A stored document's body read back; fields a newer shape added default
/// when an older document lacks them.
pub(super) fn parse_body<T: DeserializeOwned>(kind: &str, body: &str) -> Result<T, HistoryError> {
    serde_json::from_str(body)
        .map_err(|error| HistoryError::Corrupt(format!("a stored {kind} state: {error}")))
}

/// Which snapshot `--since`/`--until` name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotRef {
    /// The newest one.
    Last,
    /// The one before the newest.
    Previous,
    Id(i64),
    /// The newest one taken at or before this instant.
    At(OffsetDateTime),
}

impl Store {
    /// The workspace's snapshots, oldest first.
    pub fn list(&self, workspace_id: &str) -> Result<Vec<SnapshotInfo>, HistoryError> {
        let mut statement = self.connection.prepare(&format!(
            "SELECT {INFO_COLUMNS} FROM snapshot WHERE workspace_id = ?1 ORDER BY id"
        ))?;
        let rows = statement.query_map([workspace_id], info)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The workspaces the file holds snapshots or marks of, sorted.
    pub fn workspaces(&self) -> Result<Vec<String>, HistoryError> {
        let mut statement = self.connection.prepare(
            "SELECT workspace_id FROM snapshot UNION SELECT workspace_id FROM review ORDER BY 1",
        )?;
        let rows = statement.query_map([], |row| row.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The newest snapshot of the workspace, if any.
    pub fn latest_snapshot(
        &self,
        workspace_id: &str,
    ) -> Result<Option<SnapshotInfo>, HistoryError> {
        Ok(self
            .connection
            .query_row(
                &format!(
                    "SELECT {INFO_COLUMNS} FROM snapshot WHERE workspace_id = ?1 ORDER BY id DESC LIMIT 1"
                ),
                [workspace_id],
                info,
            )
            .optional()?)
    }

    /// Whether the workspace's newest snapshot is older than `max_age` (or
    /// there is none): the dashboard then takes one in the background.
    pub fn snapshot_due(
        &self,
        workspace_id: &str,
        max_age: time::Duration,
        now: OffsetDateTime,
    ) -> Result<bool, HistoryError> {
        Ok(self
            .latest_snapshot(workspace_id)?
            .is_none_or(|latest| now - latest.taken_at > max_age))
    }

    /// The snapshot `reference` names, if it exists (in this workspace).
    pub fn resolve(
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
        Ok(self
            .connection
            .query_row(&sql, params![workspace_id, value], info)
            .optional()?)
    }

    /// One snapshot whole: its projects in inventory order, its members.
    pub fn load(&self, info: &SnapshotInfo) -> Result<Snapshot, HistoryError> {
        Ok(Snapshot {
            info: info.clone(),
            insights: self.insights(info.id)?,
            projects: self.projects(info.id)?,
            members: self.members(info.id)?,
        })
    }

    fn insights(&self, snapshot_id: i64) -> Result<Option<Insights>, HistoryError> {
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
    pub fn projects(&self, snapshot_id: i64) -> Result<Vec<ProjectState>, HistoryError> {
        self.listed(snapshot_id)
    }

    /// The members of a snapshot, in the order they were listed.
    pub fn members(&self, snapshot_id: i64) -> Result<Vec<MemberState>, HistoryError> {
        self.listed(snapshot_id)
    }

    /// The newest snapshot's state of one project, with the snapshot (for its
    /// age): `None` when there is no snapshot or the newest does not hold it
    /// (an older one may, but its facts would be older than the newest's list).
    pub fn latest_project_state(
        &self,
        workspace_id: &str,
        project_id: &str,
    ) -> Result<Option<(SnapshotInfo, ProjectState)>, HistoryError> {
        let Some(latest) = self.latest_snapshot(workspace_id)? else {
            return Ok(None);
        };
        let kind = ProjectState::KIND;
        let body: Option<String> = self
            .connection
            .query_row(
                &format!(
                    "SELECT s.body FROM snapshot_{kind} link JOIN state s ON s.id = link.state_id
                     WHERE link.snapshot_id = ?1 AND s.kind = ?2 AND s.subject = ?3 LIMIT 1"
                ),
                params![latest.id, kind, project_id],
                |row| row.get(0),
            )
            .optional()?;
        body.map(|body| Ok((latest, parse_body(kind, &body)?)))
            .transpose()
    }

    /// The newest snapshot's insights, with the snapshot (for its age).
    pub fn latest_insights(
        &self,
        workspace_id: &str,
    ) -> Result<Option<(SnapshotInfo, Insights)>, HistoryError> {
        let Some(latest) = self.latest_snapshot(workspace_id)? else {
            return Ok(None);
        };
        Ok(self.insights(latest.id)?.map(|insights| (latest, insights)))
    }

    /// The newest snapshot's first inventory page as the service sent it (the
    /// default order), with the snapshot (for its age): what an instant start draws.
    pub fn first_inventory_page(
        &self,
        workspace_id: &str,
    ) -> Result<Option<(SnapshotInfo, Vec<InventoryItem>)>, HistoryError> {
        let Some(latest) = self.latest_snapshot(workspace_id)? else {
            return Ok(None);
        };
        let raw: Option<String> = self
            .connection
            .query_row(
                "SELECT first_page FROM snapshot WHERE id = ?1",
                [latest.id],
                |row| row.get(0),
            )
            .optional()?
            .flatten();
        let Some(raw) = raw else {
            return Ok(None);
        };
        let items = serde_json::from_str(&raw)
            .map_err(|error| HistoryError::Corrupt(format!("the first page: {error}")))?;
        Ok(Some((latest, items)))
    }
}
