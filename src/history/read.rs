//! Reading snapshots back: the list, one snapshot whole, and what the
//! dashboard's instant start draws (the newest insights and first page).

use rusqlite::{OptionalExtension, Row, params};
use time::OffsetDateTime;

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

fn list_column(raw: Option<String>) -> Result<Vec<String>, HistoryError> {
    match raw {
        None => Ok(Vec::new()),
        Some(text) => serde_json::from_str(&text)
            .map_err(|error| HistoryError::Corrupt(format!("a stored list: {error}"))),
    }
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
                "SELECT insights FROM snapshot WHERE id = ?1",
                [snapshot_id],
                |row| row.get(0),
            )
            .optional()?
            .flatten();
        Ok(raw.and_then(|text| serde_json::from_str(&text).ok()))
    }

    /// The projects of a snapshot, in the inventory's order.
    pub fn projects(&self, snapshot_id: i64) -> Result<Vec<ProjectState>, HistoryError> {
        let mut statement = self.connection.prepare_cached(
            "SELECT ps.project_id, ps.name, ps.is_published, ps.audience, ps.audience_targets,
                    ps.visibility, ps.review_priority, ps.finding_types, ps.pii_open,
                    ps.connectors, ps.edge_functions, ps.owner
             FROM snapshot_project sp JOIN project_state ps ON ps.id = sp.state_id
             WHERE sp.snapshot_id = ?1 ORDER BY sp.position",
        )?;
        let mut rows = statement.query([snapshot_id])?;
        let mut projects = Vec::new();
        while let Some(row) = rows.next()? {
            let targets: Option<String> = row.get(4)?;
            projects.push(ProjectState {
                id: row.get(0)?,
                name: row.get(1)?,
                is_published: row.get(2)?,
                audience: row.get(3)?,
                audience_targets: match targets {
                    Some(text) => Some(list_column(Some(text))?),
                    None => None,
                },
                visibility: row.get(5)?,
                review_priority: row.get(6)?,
                finding_types: list_column(row.get(7)?)?,
                pii_open: row.get(8)?,
                connectors: list_column(row.get(9)?)?,
                edge_functions: list_column(row.get(10)?)?,
                owner: row.get(11)?,
            });
        }
        Ok(projects)
    }

    /// The members of a snapshot, in the order they were listed.
    pub fn members(&self, snapshot_id: i64) -> Result<Vec<MemberState>, HistoryError> {
        let mut statement = self.connection.prepare_cached(
            "SELECT ms.user_id, ms.kind, ms.role, ms.name
             FROM snapshot_member sm JOIN member_state ms ON ms.id = sm.state_id
             WHERE sm.snapshot_id = ?1 ORDER BY sm.position",
        )?;
        let rows = statement.query_map([snapshot_id], |row| {
            Ok(MemberState {
                user_id: row.get(0)?,
                kind: row.get(1)?,
                role: row.get(2)?,
                name: row.get(3)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
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
