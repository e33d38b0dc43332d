//! The history file's schema, versioned with `PRAGMA user_version`: each entry
//! of [`MIGRATIONS`] takes the file one version up. A file is brought up to
//! date in one write transaction, taken at once (`BEGIN IMMEDIATE`), so two
//! processes opening an old file migrate it once, one after the other.

use std::collections::HashMap;

use rusqlite::{Connection, Transaction, TransactionBehavior, params};

use super::guard::update_trigger;
use super::states::store_document;
use crate::api::model::Insights;
use crate::history::HistoryError;
use crate::history::chain::{ChainFields, Chainer};
use crate::history::document::{Document, StoredDocument};
use crate::history::model::{MemberState, ProjectState};

/// Version 1: snapshots, project and member states stored once per distinct
/// content in a column each (a snapshot lists which states it holds), and
/// reviewed marks.
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

/// Version 2: every state (project, member, insights) is one document in
/// `state` (its kind, subject, shape, digest and JSON body), and `review` keeps
/// every mark and unmark (the newest row of a project is its mark), with who
/// marked it and the state that was reviewed.
const V2: &str = "
CREATE TABLE state (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    -- The project's id, the member's user id, the workspace's id.
    subject TEXT NOT NULL,
    shape INTEGER NOT NULL,
    digest BLOB NOT NULL UNIQUE,
    body TEXT NOT NULL
);

CREATE TABLE review (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    -- mark or unmark
    action TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    reviewer TEXT,
    note TEXT,
    -- The state that was reviewed (NULL until a snapshot holds the project).
    state_id INTEGER,
    -- When that state was read.
    state_at_ms INTEGER
);
CREATE INDEX review_by_project ON review (workspace_id, project_id, id);

ALTER TABLE snapshot ADD COLUMN insights_state INTEGER;
";

/// A step up: SQL, or code where the step needs Rust (digests of documents).
enum Migration {
    Sql(&'static str),
    Code(fn(&Transaction<'_>) -> Result<(), HistoryError>),
}

/// Version 3: the review log is chained and append-only. Each entry holds
/// `hash`, chained to the one before it in its workspace (`history/chain.rs`;
/// the entries already there get theirs here, in their order), and triggers
/// refuse to change or remove an entry: only a mark's reviewed state may be
/// given, by a later snapshot, while it has none.
const V3_COLUMNS: &str = "
ALTER TABLE review ADD COLUMN hash BLOB;
CREATE INDEX review_chain ON review (workspace_id, id);
";

const V3_TRIGGERS: &str = "
CREATE TRIGGER review_append_only_delete BEFORE DELETE ON review
BEGIN
    SELECT RAISE(ABORT, 'the review log is append-only: an entry cannot be removed');
END;
";

const MIGRATIONS: &[Migration] = &[
    Migration::Sql(V1),
    Migration::Code(to_documents),
    Migration::Code(to_chain),
    Migration::Code(super::ranges::to_ranges),
    Migration::Sql(super::waivers::SCHEMA),
    Migration::Code(super::waivers::move_into_log),
    Migration::Sql(super::ranges::OPEN_RANGES),
];

/// The schema version this build writes.
pub const VERSION: i64 = MIGRATIONS.len() as i64;

/// What each step of [`MIGRATIONS`] does, for `history migrate --dry-run`.
pub const STEPS: [&str; MIGRATIONS.len()] = [
    "version 1: the tables of snapshots, marks and the review log",
    "version 2: every state kept once, as a document with its digest (each snapshot's projects and members rewritten; the review log gains reviewers and notes)",
    "version 3: the review log append-only (triggers refuse UPDATE and DELETE), each entry chained by sha256 to the one before (existing entries chained in place)",
    "version 4: each state's validity as a range of snapshots (project_range, member_range: a snapshot costs what changed; each snapshot's list rewritten as ranges, read back the same) and each snapshot's posture counted",
    "version 5: waivers of policy violations, append-only (who, when, why, until when)",
    "version 6: waivers become entries of the review log, chained and append-only as marks (each waiver given so far appended, in order, as it was)",
    "version 7: each range keeps its state's digest, the open ranges an index of their own (a new snapshot reads what the newest one holds, not the whole history)",
];

/// The file's schema version, read without changing it: `None` when there
/// is no file yet (the first write creates it at [`VERSION`]).
pub fn version_of(path: &std::path::Path) -> Result<Option<i64>, HistoryError> {
    if !path.exists() {
        return Ok(None);
    }
    let connection = Connection::open_with_flags(
        path,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NOFOLLOW,
    )
    .map_err(|source| HistoryError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    user_version(&connection).map(Some)
}

fn user_version(connection: &Connection) -> Result<i64, HistoryError> {
    let found: i64 = connection.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    // Below 0 no migration would run, yet the version would be raised.
    if found < 0 {
        return Err(HistoryError::Corrupt(format!(
            "the schema version is {found}, below 0 (PRAGMA user_version)"
        )));
    }
    Ok(found)
}

fn refuse_newer(found: i64) -> Result<(), HistoryError> {
    if found > VERSION {
        return Err(HistoryError::NewerSchema {
            store: "the history file".into(),
            found,
            known: VERSION,
        });
    }
    Ok(())
}

/// Brings the file up to [`VERSION`]; refuses a file from a newer build.
pub fn migrate(connection: &mut Connection) -> Result<(), HistoryError> {
    let current = user_version(connection)?;
    refuse_newer(current)?;
    if current == VERSION {
        return Ok(());
    }
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    // Another process may have migrated it while this one waited for the lock.
    let current = user_version(&transaction)?;
    refuse_newer(current)?;
    for migration in MIGRATIONS.iter().skip(current as usize) {
        match migration {
            Migration::Sql(sql) => transaction.execute_batch(sql)?,
            Migration::Code(step) => step(&transaction)?,
        }
    }
    transaction.pragma_update(None, "user_version", VERSION)?;
    transaction.commit()?;
    Ok(())
}

fn corrupt(what: &str) -> impl Fn(serde_json::Error) -> HistoryError + '_ {
    move |error| HistoryError::Corrupt(format!("{what}: {error}"))
}

/// A version-1 list column: a JSON array, or NULL.
fn v1_list(raw: Option<String>) -> Result<Option<Vec<String>>, HistoryError> {
    raw.map(|text| serde_json::from_str(&text).map_err(corrupt("a stored list")))
        .transpose()
}

/// Version 1 to 2: each row of the per-column state tables becomes a document
/// (the snapshots' links follow it), insights move into documents, marks into
/// the review log. Reading version 1 by position lives here only.
fn to_documents(transaction: &Transaction<'_>) -> Result<(), HistoryError> {
    transaction.execute_batch(V2)?;
    let mut projects: HashMap<i64, i64> = HashMap::new();
    {
        let mut statement = transaction.prepare(
            "SELECT id, project_id, name, is_published, audience, audience_targets, visibility,
                    review_priority, finding_types, pii_open, connectors, edge_functions, owner
             FROM project_state",
        )?;
        let mut rows = statement.query([])?;
        while let Some(row) = rows.next()? {
            // A field a later shape added is absent (`None`), and the state is
            // stored as what it is: a shape-1 document.
            #[allow(
                clippy::needless_update,
                reason = "the fields a later shape adds are absent from version 1"
            )]
            let state = ProjectState {
                id: row.get(1)?,
                name: row.get(2)?,
                is_published: row.get(3)?,
                audience: row.get(4)?,
                audience_targets: v1_list(row.get(5)?)?,
                visibility: row.get(6)?,
                review_priority: row.get(7)?,
                finding_types: v1_list(row.get(8)?)?.unwrap_or_default(),
                pii_open: row.get(9)?,
                connectors: v1_list(row.get(10)?)?.unwrap_or_default(),
                edge_functions: v1_list(row.get(11)?)?.unwrap_or_default(),
                owner: row.get(12)?,
                ..ProjectState::default()
            };
            let body = serde_json::to_string(&state).map_err(corrupt("a project state"))?;
            let document = StoredDocument::from_body(ProjectState::KIND, 1, body);
            let id = store_document(transaction, &state.id, &document)?;
            projects.insert(row.get(0)?, id);
        }
    }
    let mut members: HashMap<i64, i64> = HashMap::new();
    {
        let mut statement =
            transaction.prepare("SELECT id, user_id, kind, role, name FROM member_state")?;
        let mut rows = statement.query([])?;
        while let Some(row) = rows.next()? {
            let state = MemberState {
                user_id: row.get(1)?,
                kind: row.get(2)?,
                role: row.get(3)?,
                name: row.get(4)?,
                name_read: false,
            };
            let id = store_document(transaction, &state.user_id, &StoredDocument::of(&state))?;
            members.insert(row.get(0)?, id);
        }
    }
    transaction.execute_batch(
        "CREATE TEMP TABLE remap (kind TEXT NOT NULL, old_id INTEGER NOT NULL,
             new_id INTEGER NOT NULL, PRIMARY KEY (kind, old_id)) WITHOUT ROWID",
    )?;
    {
        let mut remap = transaction
            .prepare("INSERT INTO temp.remap (kind, old_id, new_id) VALUES (?1, ?2, ?3)")?;
        for (kind, ids) in [("project", &projects), ("member", &members)] {
            for (old, new) in ids {
                remap.execute(params![kind, old, new])?;
            }
        }
    }
    transaction.execute_batch(
        "UPDATE snapshot_project SET state_id = (SELECT new_id FROM temp.remap
             WHERE kind = 'project' AND old_id = snapshot_project.state_id);
         UPDATE snapshot_member SET state_id = (SELECT new_id FROM temp.remap
             WHERE kind = 'member' AND old_id = snapshot_member.state_id);
         INSERT INTO review (workspace_id, project_id, action, at_ms, note, state_id)
             SELECT workspace_id, project_id, 'mark', marked_at_ms, note,
                    (SELECT new_id FROM temp.remap WHERE kind = 'project' AND old_id = review_mark.state_id)
             FROM review_mark ORDER BY marked_at_ms;",
    )?;
    let insights: Vec<(i64, String, String)> = {
        let mut statement = transaction.prepare(
            "SELECT id, workspace_id, insights FROM snapshot WHERE insights IS NOT NULL",
        )?;
        statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
            .collect::<Result<_, _>>()?
    };
    for (snapshot_id, workspace_id, raw) in insights {
        // Insights this build cannot read are left out, as a snapshot without them.
        let Ok(parsed) = serde_json::from_str::<Insights>(&raw) else {
            continue;
        };
        let id = store_document(transaction, &workspace_id, &StoredDocument::of(&parsed))?;
        transaction.execute(
            "UPDATE snapshot SET insights_state = ?1 WHERE id = ?2",
            params![id, snapshot_id],
        )?;
    }
    transaction.execute_batch(
        "DROP TABLE temp.remap;
         DROP TABLE project_state;
         DROP TABLE member_state;
         DROP TABLE review_mark;
         ALTER TABLE snapshot DROP COLUMN insights;",
    )?;
    Ok(())
}

/// Rows the chain's migration reads at a time.
const CHAIN_PAGE: i64 = 1000;

/// Version 2 to 3: the columns, every entry's hash in its workspace's order
/// (a page at a time: memory stays flat), then the triggers.
fn to_chain(transaction: &Transaction<'_>) -> Result<(), HistoryError> {
    transaction.execute_batch(V3_COLUMNS)?;
    let mut after: (String, i64) = (String::new(), i64::MIN);
    let mut chainer = Chainer::default();
    let mut read = transaction.prepare(
        "SELECT id, workspace_id, project_id, action, at_ms, reviewer, note FROM review
         WHERE (workspace_id, id) > (?1, ?2) ORDER BY workspace_id, id LIMIT ?3",
    )?;
    let mut write = transaction.prepare("UPDATE review SET hash = ?1 WHERE id = ?2")?;
    loop {
        let page: Vec<(i64, ChainFields)> = read
            .query_map(params![after.0, after.1, CHAIN_PAGE], |row| {
                Ok((
                    row.get(0)?,
                    ChainFields {
                        workspace_id: row.get(1)?,
                        project_id: row.get(2)?,
                        action: row.get(3)?,
                        at_ms: row.get(4)?,
                        reviewer: row.get(5)?,
                        role: None,
                        note: row.get(6)?,
                        waiver: None,
                    },
                ))
            })?
            .collect::<Result<_, _>>()?;
        let Some((last_id, last)) = page.last() else {
            break;
        };
        after = (last.workspace_id.clone(), *last_id);
        for (id, fields) in &page {
            write.execute(params![chainer.next(fields), id])?;
        }
    }
    transaction.execute_batch(V3_TRIGGERS)?;
    transaction.execute_batch(&update_trigger("OLD.state_id IS NULL", &[]))?;
    Ok(())
}
