//! The history file's schema, versioned with `PRAGMA user_version`: each entry
//! of [`MIGRATIONS`] takes the file one version up, in one transaction.

use rusqlite::Connection;

use super::HistoryError;

/// Version 1: snapshots, project and member states stored once per distinct
/// content (a snapshot lists which states it holds), and reviewed marks.
const V1: &str = "
CREATE TABLE snapshot (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id TEXT NOT NULL,
    taken_at_ms INTEGER NOT NULL,
    project_count INTEGER NOT NULL,
    member_count INTEGER NOT NULL,
    -- The insights response as JSON.
    insights TEXT,
    -- The first inventory page as JSON; kept on the newest snapshot only.
    first_page TEXT
);
CREATE INDEX snapshot_by_workspace ON snapshot (workspace_id, id);

CREATE TABLE project_state (
    id INTEGER PRIMARY KEY,
    digest BLOB NOT NULL UNIQUE,
    project_id TEXT NOT NULL,
    name TEXT,
    is_published INTEGER NOT NULL,
    audience TEXT,
    -- JSON array of type:id, or NULL when not known.
    audience_targets TEXT,
    visibility TEXT,
    review_priority TEXT NOT NULL,
    finding_types TEXT NOT NULL,
    pii_open INTEGER,
    connectors TEXT NOT NULL,
    edge_functions TEXT NOT NULL,
    owner TEXT
);

CREATE TABLE snapshot_project (
    snapshot_id INTEGER NOT NULL,
    position INTEGER NOT NULL,
    state_id INTEGER NOT NULL,
    PRIMARY KEY (snapshot_id, position)
) WITHOUT ROWID;

CREATE TABLE member_state (
    id INTEGER PRIMARY KEY,
    digest BLOB NOT NULL UNIQUE,
    user_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    role TEXT,
    name TEXT
);

CREATE TABLE snapshot_member (
    snapshot_id INTEGER NOT NULL,
    position INTEGER NOT NULL,
    state_id INTEGER NOT NULL,
    PRIMARY KEY (snapshot_id, position)
) WITHOUT ROWID;

CREATE TABLE review_mark (
    workspace_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    marked_at_ms INTEGER NOT NULL,
    note TEXT,
    -- The project's state when marked (NULL until a snapshot holds it).
    state_id INTEGER,
    PRIMARY KEY (workspace_id, project_id)
) WITHOUT ROWID;
";

const MIGRATIONS: &[&str] = &[V1];

/// The schema version this build writes.
pub const VERSION: i64 = MIGRATIONS.len() as i64;

/// Brings the file up to [`VERSION`]; refuses a file from a newer build.
pub fn migrate(connection: &mut Connection) -> Result<(), HistoryError> {
    let current: i64 = connection.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    if current > VERSION {
        return Err(HistoryError::NewerSchema {
            found: current,
            known: VERSION,
        });
    }
    for (index, migration) in MIGRATIONS.iter().enumerate().skip(current as usize) {
        let transaction = connection.transaction()?;
        transaction.execute_batch(migration)?;
        transaction.pragma_update(None, "user_version", index as i64 + 1)?;
        transaction.commit()?;
    }
    Ok(())
}
