//! The SQLite schema and its migrations, keyed by `PRAGMA user_version`.
//!
//! Identity and relation columns are real columns; the rest of each record is a
//! JSON document (`doc`), readable with SQLite's `json_extract`.

use rusqlite::Connection;

use super::StoreError;

/// Each entry migrates from `user_version = index` to `index + 1`.
const MIGRATIONS: &[&str] = &[r#"
CREATE TABLE workspaces (
    id   TEXT PRIMARY KEY,
    doc  TEXT NOT NULL
);
CREATE TABLE users (
    id   TEXT PRIMARY KEY,
    doc  TEXT NOT NULL
);
CREATE TABLE memberships (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    user_id      TEXT NOT NULL REFERENCES users(id),
    doc          TEXT NOT NULL
);
CREATE INDEX memberships_by_workspace ON memberships(workspace_id);
CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    label        TEXT NOT NULL,
    key_hash     TEXT NOT NULL UNIQUE,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    scopes       TEXT NOT NULL
);
CREATE TABLE projects (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    deleted_at   TEXT,
    doc          TEXT NOT NULL
);
CREATE INDEX projects_by_workspace ON projects(workspace_id);
CREATE TABLE deployments (
    id         TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    doc        TEXT NOT NULL
);
CREATE TABLE pii_findings (
    id         TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    doc        TEXT NOT NULL
);
CREATE INDEX pii_by_project ON pii_findings(project_id);
CREATE TABLE security_scans (
    id         TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    doc        TEXT NOT NULL
);
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"#];

/// Brings the schema up to date, one transaction per step.
pub fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    let current: i64 = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    let current = usize::try_from(current).unwrap_or(0);
    if current > MIGRATIONS.len() {
        return Err(StoreError::Corrupt(format!(
            "the database has schema version {current}, newer than this build knows ({})",
            MIGRATIONS.len()
        )));
    }
    for (step, sql) in MIGRATIONS.iter().enumerate().skip(current) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", (step + 1) as i64)?;
        tx.commit()?;
    }
    Ok(())
}
