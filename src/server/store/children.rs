//! The records that belong to a project (its personal-data findings, its
//! scans, its deployments): one table shape, `(id, project_id, doc)`, served
//! by one generic table, so each list is declared once, beside its record.

use std::collections::HashMap;

use rusqlite::{Connection, params};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::StoreError;
use super::records::{DeploymentRec, PiiRec, ScanRec};

/// A record kept in a table of its own, `(id, project_id, doc)`.
pub trait ChildRecord: Serialize + DeserializeOwned {
    /// Its table: a constant, never input.
    const TABLE: &'static str;
    /// What a person calls one, in a fixture's error.
    const WHAT: &'static str;
    fn id(&self) -> &str;
    fn project_id(&self) -> &str;
}

impl ChildRecord for PiiRec {
    const TABLE: &'static str = "pii_findings";
    const WHAT: &'static str = "PII finding";
    fn id(&self) -> &str {
        &self.finding.id
    }
    fn project_id(&self) -> &str {
        &self.project_id
    }
}

impl ChildRecord for ScanRec {
    const TABLE: &'static str = "security_scans";
    const WHAT: &'static str = "scan";
    fn id(&self) -> &str {
        &self.scan.id
    }
    fn project_id(&self) -> &str {
        &self.project_id
    }
}

impl ChildRecord for DeploymentRec {
    const TABLE: &'static str = "deployments";
    const WHAT: &'static str = "deployment";
    fn id(&self) -> &str {
        &self.id
    }
    fn project_id(&self) -> &str {
        &self.project_id
    }
}

/// Inserts `records` (new ones: a fixture's).
pub fn insert_all<T: ChildRecord>(tx: &Connection, records: &[T]) -> Result<(), StoreError> {
    let mut insert = tx.prepare(&format!(
        "INSERT INTO {} (id, project_id, doc) VALUES (?1, ?2, ?3)",
        T::TABLE
    ))?;
    for record in records {
        insert.execute(params![
            record.id(),
            record.project_id(),
            serde_json::to_string(record)?
        ])?;
    }
    Ok(())
}

/// Writes `record`, replacing the one of the same id.
pub fn upsert<T: ChildRecord>(tx: &Connection, record: &T) -> Result<(), StoreError> {
    tx.execute(
        &format!(
            "INSERT INTO {} (id, project_id, doc) VALUES (?1, ?2, ?3)
             ON CONFLICT(id) DO UPDATE SET doc = excluded.doc",
            T::TABLE
        ),
        params![
            record.id(),
            record.project_id(),
            serde_json::to_string(record)?
        ],
    )?;
    Ok(())
}

/// Removes every record of the project.
pub fn delete_of<T: ChildRecord>(tx: &Connection, project_id: &str) -> Result<(), StoreError> {
    tx.execute(
        &format!("DELETE FROM {} WHERE project_id = ?1", T::TABLE),
        [project_id],
    )?;
    Ok(())
}

/// Every record, in the table's order.
pub fn load_all<T: ChildRecord>(conn: &Connection) -> Result<Vec<T>, StoreError> {
    let mut stmt = conn.prepare(&format!("SELECT doc FROM {}", T::TABLE))?;
    let rows = stmt.query_map([], |row| row.get::<_, String>(0))?;
    let mut out = Vec::new();
    for row in rows {
        out.push(serde_json::from_str(&row?)?);
    }
    Ok(out)
}

/// Every record of a project that `keep` holds, by project.
pub fn load_by_project<T: ChildRecord>(
    conn: &Connection,
    keep: impl Fn(&str) -> bool,
) -> Result<HashMap<String, Vec<T>>, StoreError> {
    let mut by_project: HashMap<String, Vec<T>> = HashMap::new();
    for record in load_all::<T>(conn)? {
        if keep(record.project_id()) {
            by_project
                .entry(record.project_id().to_owned())
                .or_default()
                .push(record);
        }
    }
    Ok(by_project)
}
