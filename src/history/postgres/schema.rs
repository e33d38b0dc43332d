//! The shared database's schema, versioned in `vantage_meta`: each entry of
//! [`MIGRATIONS`] takes it one version up. The first vantage that connects
//! migrates, in one transaction under an advisory lock on a fixed key, so two
//! connecting at once migrate once, one after the other; a database a newer
//! vantage wrote is refused with both versions named.

use postgres::Client;

use super::Step;
use super::column::column;
use crate::history::HistoryError;

/// The fixed advisory lock keys (the two-key form, which never meets a
/// workspace's one-key lock): migrations, and the states that snapshots share.
pub(super) const LOCK_CLASS: i32 = 0x7661_6e74; // "vant"
pub(super) const MIGRATION_LOCK: i32 = 1;
pub(super) const STATES_LOCK: i32 = 2;

/// Version 1: what the file's version 2 holds. Every state (project, member,
/// insights) is one document in `state`; `review` keeps every mark and unmark;
/// `vantage_meta` holds the schema version and a revision that each write
/// moves (what the dashboard polls).
const V1: &str = "
CREATE TABLE snapshot (
    id BIGSERIAL PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    taken_at_ms BIGINT NOT NULL,
    project_count BIGINT NOT NULL,
    member_count BIGINT NOT NULL,
    insights_state BIGINT,
    -- The first inventory page as JSON; kept on the newest snapshot only.
    first_page TEXT
);
CREATE INDEX snapshot_by_workspace ON snapshot (workspace_id, id);

CREATE TABLE state (
    id BIGSERIAL PRIMARY KEY,
    kind TEXT NOT NULL,
    -- The project's id, the member's user id, the workspace's id.
    subject TEXT NOT NULL,
    shape INTEGER NOT NULL,
    digest BYTEA NOT NULL UNIQUE,
    body TEXT NOT NULL
);

CREATE TABLE snapshot_project (
    snapshot_id BIGINT NOT NULL,
    position INTEGER NOT NULL,
    state_id BIGINT NOT NULL,
    PRIMARY KEY (snapshot_id, position)
);

CREATE TABLE snapshot_member (
    snapshot_id BIGINT NOT NULL,
    position INTEGER NOT NULL,
    state_id BIGINT NOT NULL,
    PRIMARY KEY (snapshot_id, position)
);

CREATE TABLE review (
    id BIGSERIAL PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    -- mark or unmark
    action TEXT NOT NULL,
    at_ms BIGINT NOT NULL,
    reviewer TEXT,
    note TEXT,
    -- The state that was reviewed (NULL until a snapshot holds the project).
    state_id BIGINT,
    state_at_ms BIGINT
);
CREATE INDEX review_by_project ON review (workspace_id, project_id, id);

INSERT INTO vantage_meta (key, value) VALUES ('revision', 0);
";

const MIGRATIONS: &[&str] = &[V1];

/// The schema version this build writes.
pub const VERSION: i64 = MIGRATIONS.len() as i64;

/// What each step of [`MIGRATIONS`] does, for `history migrate --dry-run`.
pub const STEPS: [&str; MIGRATIONS.len()] =
    ["version 1: the tables of snapshots, states, marks and the review log"];

pub(super) fn version(client: &mut impl postgres::GenericClient) -> Step<i64> {
    let row = client.query_one(
        "SELECT to_regclass('vantage_meta') IS NOT NULL AS vantage_meta_exists",
        &[],
    )?;
    let exists: bool = column(&row, "", 0)?;
    if !exists {
        return Ok(0);
    }
    let row = client.query_opt(
        "SELECT value FROM vantage_meta WHERE key = 'schema_version'",
        &[],
    )?;
    let found = row.map_or(Ok(0), |row| column(&row, "vantage_meta", 0))?;
    // Below 0 no migration would run, yet the version would be raised.
    if found < 0 {
        return Err(
            HistoryError::Corrupt(format!("the schema version is {found}, below 0")).into(),
        );
    }
    Ok(found)
}

fn refuse_newer(found: i64, store: &str) -> Step<()> {
    if found > VERSION {
        return Err(HistoryError::NewerSchema {
            store: store.to_owned(),
            found,
            known: VERSION,
        }
        .into());
    }
    Ok(())
}

/// Brings the database up to [`VERSION`]; refuses one from a newer build.
pub(super) fn migrate(client: &mut Client, store: &str) -> Step<()> {
    let current = version(client)?;
    refuse_newer(current, store)?;
    if current == VERSION {
        return Ok(());
    }
    let mut transaction = client.transaction()?;
    transaction.execute(
        "SELECT pg_advisory_xact_lock($1, $2)",
        &[&LOCK_CLASS, &MIGRATION_LOCK],
    )?;
    // Another vantage may have migrated it while this one waited for the lock.
    transaction.batch_execute(
        "CREATE TABLE IF NOT EXISTS vantage_meta (key TEXT PRIMARY KEY, value BIGINT NOT NULL)",
    )?;
    let current = version(&mut transaction)?;
    refuse_newer(current, store)?;
    for migration in MIGRATIONS.iter().skip(current as usize) {
        transaction.batch_execute(migration)?;
    }
    transaction.execute(
        "INSERT INTO vantage_meta (key, value) VALUES ('schema_version', $1)
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
        &[&VERSION],
    )?;
    transaction.commit()?;
    Ok(())
}
