//! The shared database's schema, versioned in `vantage_meta`: each entry of
//! [`MIGRATIONS`] takes it one version up. The first vantage that connects
//! migrates, in one transaction under an advisory lock on a fixed key, so two
//! connecting at once migrate once, one after the other; a database a newer
//! vantage wrote is refused with both versions named.

use postgres::{Client, Transaction};

use super::Step;
use super::backfill::set_by_id;
use super::column::column;
use super::guard::{review_guard, triggers, waiver_guard};
use super::locks::{LOCK_CLASS, MIGRATION_LOCK};
use crate::history::HistoryError;
use crate::history::chain::{ChainFields, Chainer};

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

/// Version 2: the review log is the database's to guard. Each entry holds the
/// role that wrote it (`db_role`, `session_user`, checked by the database:
/// a client cannot claim another) beside the name the client gave
/// (`reviewer`), and `hash`, chained to the entry before it in its workspace
/// (`history/chain.rs`; the entries already there get theirs here, in their
/// order). A trigger refuses UPDATE, DELETE and TRUNCATE of the log, whoever
/// asks, the table's owner too: only a mark's reviewed state may be given,
/// by a later snapshot, while it has none. Entries written before
/// this version keep no role: they were self-declared.
const V2_COLUMNS: &str = "
ALTER TABLE review ADD COLUMN db_role TEXT;
ALTER TABLE review ADD COLUMN hash BYTEA;
CREATE INDEX review_chain ON review (workspace_id, id);
";

/// A step up: SQL, or code where the step needs Rust (the chain's hashes).
enum Migration {
    Sql(&'static str),
    Code(fn(&mut Transaction<'_>) -> Step<()>),
}

/// Version 4: waivers, kept apart from the snapshot and state tables (version
/// 5 moves them into the log: `waivers.rs`).
const WAIVERS: &str = "
CREATE TABLE waiver (
    id BIGSERIAL PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    policy_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    reason TEXT NOT NULL,
    until_ms BIGINT NOT NULL,
    at_ms BIGINT NOT NULL,
    -- The name the reviewer gave, beside the role that wrote it.
    reviewer TEXT,
    db_role TEXT NOT NULL
);
CREATE INDEX waiver_by_workspace ON waiver (workspace_id, id);
";

const MIGRATIONS: &[Migration] = &[
    Migration::Sql(V1),
    Migration::Code(to_chain),
    Migration::Code(super::ranges::to_ranges),
    Migration::Code(add_waivers),
    Migration::Code(to_packed),
    Migration::Code(super::waivers::move_into_log),
    Migration::Sql(super::ranges::V7),
];

/// Version 3 to 4: the waiver table and its guard.
fn add_waivers(transaction: &mut Transaction<'_>) -> Step<()> {
    transaction.batch_execute(WAIVERS)?;
    transaction.batch_execute(&waiver_guard())?;
    transaction.batch_execute(&triggers("waiver", "vantage_waiver_guard"))?;
    Ok(())
}

/// Version 4 to 5: a year of history within its budget (issue 39): the
/// states' bodies packed (`packed.rs`), the ranges' indexes narrowed
/// (`ranges.rs`, `V5`).
fn to_packed(transaction: &mut Transaction<'_>) -> Step<()> {
    super::packed::pack_states(transaction)?;
    transaction.batch_execute(super::ranges::V5)?;
    Ok(())
}

/// Rows the chain's migration reads at a time.
const CHAIN_PAGE: i64 = 1000;

/// Version 1 to 2: the columns, every entry's hash in its workspace's order
/// (a page at a time: memory stays flat), then the guard.
fn to_chain(transaction: &mut Transaction<'_>) -> Step<()> {
    transaction.batch_execute(V2_COLUMNS)?;
    let mut after: (String, i64) = (String::new(), i64::MIN);
    let mut chainer = Chainer::default();
    loop {
        let rows = transaction.query(
            "SELECT id, workspace_id, project_id, action, at_ms, reviewer, note FROM review
             WHERE (workspace_id COLLATE \"C\", id) > ($1 COLLATE \"C\", $2)
             ORDER BY workspace_id COLLATE \"C\", id LIMIT $3",
            &[&after.0, &after.1, &CHAIN_PAGE],
        )?;
        if rows.is_empty() {
            break;
        }
        let mut ids = Vec::with_capacity(rows.len());
        let mut hashes = Vec::with_capacity(rows.len());
        for row in &rows {
            let id: i64 = column(row, "review", 0)?;
            let fields = ChainFields {
                workspace_id: column(row, "review", 1)?,
                project_id: column(row, "review", 2)?,
                action: column(row, "review", 3)?,
                at_ms: column(row, "review", 4)?,
                reviewer: column(row, "review", 5)?,
                role: None,
                note: column(row, "review", 6)?,
                waiver: None,
            };
            hashes.push(chainer.next(&fields));
            after = (fields.workspace_id, id);
            ids.push(id);
        }
        set_by_id(transaction, "review", "hash", &ids, &hashes)?;
    }
    transaction.batch_execute(&review_guard("OLD.state_id IS NULL", &[]))?;
    transaction.batch_execute(&triggers("review", "vantage_review_guard"))?;
    Ok(())
}

/// The schema version this build writes.
pub const VERSION: i64 = MIGRATIONS.len() as i64;

/// What each step of [`MIGRATIONS`] does, for `history migrate --dry-run`.
pub const STEPS: [&str; MIGRATIONS.len()] = [
    "version 1: the tables of snapshots, states, marks and the review log",
    "version 2: the review log append-only (a trigger refuses UPDATE, DELETE and TRUNCATE), each entry chained by sha256 to the one before (existing entries chained in place) and stamped with the database role that wrote it",
    "version 3: each state's validity as a range of snapshots (project_range, member_range: a snapshot costs what changed; each snapshot's list rewritten as ranges, read back the same) and each snapshot's posture counted",
    "version 4: waivers of policy violations, append-only and stamped with the database role that wrote each (who, when, why, until when)",
    "version 5: each state's body deflated against a dictionary of the keys states share (a year of history in a third of the space), the ranges' indexes narrowed to what the reads use (tables rewritten in place: grants stay)",
    "version 6: waivers become entries of the review log, chained, append-only and stamped with their role as marks (each waiver given so far appended, in order, as it was)",
    "version 7: each range keeps its state's digest (a new snapshot compares the open ranges without reading every state the history keeps; the range tables rewritten in place: grants stay)",
];

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
        match migration {
            Migration::Sql(sql) => transaction.batch_execute(sql)?,
            Migration::Code(step) => step(&mut transaction)?,
        }
    }
    transaction.execute(
        "INSERT INTO vantage_meta (key, value) VALUES ('schema_version', $1)
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
        &[&VERSION],
    )?;
    transaction.commit()?;
    Ok(())
}
