//! The store: SQLite is the record; an in-memory model answers reads.
//!
//! Every write runs in one SQLite transaction that commits (WAL, `synchronous =
//! FULL`) before the in-memory model changes and before the 2xx is sent, so an
//! answered write survives a kill. Reads come from memory: the primary view for
//! strongly consistent reads (get project), and a lagged view for the reads the
//! contract calls eventually consistent (lists, insights, members), which sees each
//! write only `consistency_lag` later.

mod children;
mod data;
mod file;
mod index_cache;
pub mod records;
mod schema;
mod settle;

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::Path;
use std::sync::{Mutex, RwLock};

use rusqlite::{Connection, OptionalExtension, params};
use time::{Duration, OffsetDateTime};

pub use file::{exists_with_data, read_existing};
pub use index_cache::{IndexCache, MaintainedIndex};
pub use records::*;
pub use settle::settle_deployments;

use crate::clock::Clock;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("SQLite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("a stored record is not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("{0}")]
    Corrupt(String),
    #[error("fixture: {0}")]
    Fixture(String),
    #[error(
        "the database file {} is read-only; every write would fail (give a writable file, or leave out --db to keep the data in memory)",
        .0.display()
    )]
    ReadOnly(std::path::PathBuf),
    #[error(
        "the database file {} is in use by another server (each server keeps its own copy in memory, so two would undo each other's writes); stop the other one, or give another --db",
        .0.display()
    )]
    InUse(std::path::PathBuf),
    #[error("cannot lock the database through {}: {source}", .path.display())]
    LockFile {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error(
        "the database file {} is damaged ({detail}); restore it from a backup, or give a new file to --db",
        .path.display()
    )]
    Damaged {
        path: std::path::PathBuf,
        detail: String,
    },
}

/// Everything the API reads, in memory.
#[derive(Debug, Clone, Default)]
pub struct Data {
    pub workspaces: BTreeMap<String, WorkspaceRec>,
    pub users: HashMap<String, UserRec>,
    pub memberships: Vec<MembershipRec>,
    pub keys: Vec<KeyRec>,
    pub projects: BTreeMap<String, ProjectRec>,
    pub deployments: HashMap<String, DeploymentRec>,
    /// Personal-data findings by project.
    pub pii: HashMap<String, Vec<PiiRec>>,
    /// Security scans by project.
    pub scans: HashMap<String, Vec<ScanRec>>,
    /// Read-side indexes, maintained by every write to their workspace.
    pub indexes: IndexCache<Data>,
}

/// One write.
#[derive(Debug, Clone)]
pub enum Change {
    PutProject(Box<ProjectRec>),
    /// `soft` keeps the row (trash) but hides it from every read.
    DeleteProject {
        id: String,
        soft: bool,
        at: OffsetDateTime,
    },
    PutDeployment(DeploymentRec),
}

struct Lagged {
    view: Data,
    pending: VecDeque<(OffsetDateTime, Change)>,
}

pub struct Store {
    /// The one writer; holding it makes a read-modify-write atomic.
    conn: Mutex<Connection>,
    primary: RwLock<Data>,
    lagged: Option<Mutex<Lagged>>,
    lag: Duration,
    clock: Clock,
    /// The database file's lock, held while the store is open (`None` in memory).
    _lock: Option<file::FileLock>,
}

impl Store {
    /// Opens (and migrates) a database file, or an in-memory one for `None`.
    pub fn open(path: Option<&Path>, clock: Clock, lag: Duration) -> Result<Self, StoreError> {
        let lock = path.map(file::lock).transpose()?;
        let mut conn = match path {
            Some(path) => {
                let existing = file::exists_with_data(path);
                let conn = Connection::open(path)?;
                if existing {
                    file::check_integrity(&conn, path)?;
                }
                // SQLite falls back to read-only when the file cannot be written;
                // refuse at start rather than answer every write with a 500.
                if conn.is_readonly(rusqlite::MAIN_DB)? {
                    return Err(StoreError::ReadOnly(path.to_owned()));
                }
                conn
            }
            None => Connection::open_in_memory()?,
        };
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        schema::migrate(&mut conn)?;
        let data = load(&conn)?;
        let lagged = (lag > Duration::ZERO).then(|| {
            Mutex::new(Lagged {
                view: data.clone(),
                pending: VecDeque::new(),
            })
        });
        Ok(Self {
            conn: Mutex::new(conn),
            primary: RwLock::new(data),
            lagged,
            lag,
            clock,
            _lock: lock,
        })
    }

    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// Whether the store holds no workspace yet (a new database).
    pub fn is_empty(&self) -> bool {
        self.read(|data| data.workspaces.is_empty())
    }

    /// Loads a fixture into an empty store, in one transaction.
    pub fn seed(&self, fixture: &Fixture) -> Result<(), StoreError> {
        validate_fixture(fixture)?;
        let mut conn = self.lock_conn();
        let tx = conn.transaction()?;
        for ws in &fixture.workspaces {
            tx.execute(
                "INSERT INTO workspaces (id, doc) VALUES (?1, ?2)",
                params![ws.id, serde_json::to_string(ws)?],
            )?;
        }
        for user in &fixture.users {
            tx.execute(
                "INSERT INTO users (id, doc) VALUES (?1, ?2)",
                params![user.id, serde_json::to_string(user)?],
            )?;
        }
        for m in &fixture.memberships {
            tx.execute(
                "INSERT INTO memberships (id, workspace_id, user_id, doc) VALUES (?1, ?2, ?3, ?4)",
                params![m.id, m.workspace_id, m.user_id, serde_json::to_string(m)?],
            )?;
        }
        for (index, key) in fixture.keys.iter().enumerate() {
            let rec = KeyRec {
                id: format!("key_{:04}", index + 1),
                label: key.label.clone(),
                key_hash: hex::encode(crate::server::key_hash::hash_key(&key.key)),
                workspace_id: key.workspace_id.clone(),
                scopes: key.scopes.clone(),
            };
            tx.execute(
                "INSERT INTO api_keys (id, label, key_hash, workspace_id, scopes) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![rec.id, rec.label, rec.key_hash, rec.workspace_id, serde_json::to_string(&rec.scopes)?],
            )?;
        }
        {
            let mut insert =
                tx.prepare("INSERT INTO projects (id, workspace_id, doc) VALUES (?1, ?2, ?3)")?;
            for p in &fixture.projects {
                insert.execute(params![
                    p.wire.id,
                    p.wire.workspace_id,
                    serde_json::to_string(p)?
                ])?;
            }
            children::insert_all(&tx, &fixture.pii_findings)?;
            children::insert_all(&tx, &fixture.scans)?;
        }
        tx.commit()?;
        let data = load(&conn)?;
        if let Some(lagged) = &self.lagged {
            let mut lagged = lagged.lock().unwrap_or_else(|p| p.into_inner());
            lagged.view = data.clone();
            lagged.pending.clear();
        }
        *self.primary.write().unwrap_or_else(|p| p.into_inner()) = data;
        Ok(())
    }

    /// Reads the primary (strongly consistent) view.
    pub fn read<R>(&self, f: impl FnOnce(&Data) -> R) -> R {
        let data = self.primary.read().unwrap_or_else(|p| p.into_inner());
        f(&data)
    }

    /// Reads the view of eventually consistent operations.
    pub fn read_eventual<R>(&self, f: impl FnOnce(&Data) -> R) -> R {
        let Some(lagged) = &self.lagged else {
            return self.read(f);
        };
        let mut lagged = lagged.lock().unwrap_or_else(|p| p.into_inner());
        let now = self.clock.now();
        while lagged
            .pending
            .front()
            .is_some_and(|(visible_at, _)| *visible_at <= now)
        {
            if let Some((_, change)) = lagged.pending.pop_front() {
                lagged.view.apply(&change);
            }
        }
        f(&lagged.view)
    }

    /// A read-modify-write: `plan` sees the primary view under the writer lock and
    /// returns the changes to commit and its result. Changes are durable before
    /// they are visible.
    pub fn write<R, E>(
        &self,
        plan: impl FnOnce(&Data) -> Result<(Vec<Change>, R), E>,
    ) -> Result<R, E>
    where
        E: From<StoreError>,
    {
        let mut conn = self.lock_conn();
        let (changes, result) = self.read(plan)?;
        if changes.is_empty() {
            return Ok(result);
        }
        persist(&mut conn, &changes).map_err(E::from)?;
        {
            let mut primary = self.primary.write().unwrap_or_else(|p| p.into_inner());
            for change in &changes {
                primary.apply(change);
            }
        }
        if let Some(lagged) = &self.lagged {
            let visible_at = self.clock.now() + self.lag;
            let mut lagged = lagged.lock().unwrap_or_else(|p| p.into_inner());
            lagged
                .pending
                .extend(changes.into_iter().map(|change| (visible_at, change)));
        }
        Ok(result)
    }

    /// A value kept across restarts (e.g. the cursor signing secret), created by
    /// `make` the first time.
    pub fn meta_or_insert(
        &self,
        key: &str,
        make: impl FnOnce() -> String,
    ) -> Result<String, StoreError> {
        let conn = self.lock_conn();
        let existing: Option<String> = conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |row| {
                row.get(0)
            })
            .optional()?;
        if let Some(value) = existing {
            return Ok(value);
        }
        let value = make();
        conn.execute(
            "INSERT INTO meta (key, value) VALUES (?1, ?2)",
            params![key, value],
        )?;
        Ok(value)
    }

    fn lock_conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn persist(conn: &mut Connection, changes: &[Change]) -> Result<(), StoreError> {
    let tx = conn.transaction()?;
    for change in changes {
        match change {
            Change::PutProject(p) => {
                upsert_doc(&tx, UPSERT_PROJECT, &p.wire.id, &p.wire.workspace_id, p)?
            }
            Change::DeleteProject { id, soft: true, at } => {
                tx.execute(
                    "UPDATE projects SET deleted_at = ?2 WHERE id = ?1",
                    params![id, crate::api::model::format_timestamp(*at)],
                )?;
            }
            Change::DeleteProject {
                id, soft: false, ..
            } => {
                children::delete_of::<PiiRec>(&tx, id)?;
                children::delete_of::<ScanRec>(&tx, id)?;
                tx.execute("DELETE FROM projects WHERE id = ?1", [id])?;
            }
            Change::PutDeployment(d) => children::upsert(&tx, d)?,
        }
    }
    tx.commit()?;
    Ok(())
}

const UPSERT_PROJECT: &str = "INSERT INTO projects (id, workspace_id, doc) VALUES (?1, ?2, ?3)
     ON CONFLICT(id) DO UPDATE SET doc = excluded.doc";

/// Writes a record's JSON document, replacing the one of the same id: `sql`
/// takes the id, the id of what owns the record, and the document.
fn upsert_doc(
    tx: &Connection,
    sql: &str,
    id: &str,
    owner: &str,
    doc: &impl serde::Serialize,
) -> Result<(), StoreError> {
    tx.execute(sql, params![id, owner, serde_json::to_string(doc)?])?;
    Ok(())
}

fn load(conn: &Connection) -> Result<Data, StoreError> {
    fn docs<T: serde::de::DeserializeOwned>(
        conn: &Connection,
        sql: &str,
    ) -> Result<Vec<T>, StoreError> {
        let mut stmt = conn.prepare(sql)?;
        let rows = stmt.query_map([], |row| row.get::<_, String>(0))?;
        let mut out = Vec::new();
        for row in rows {
            out.push(serde_json::from_str(&row?)?);
        }
        Ok(out)
    }

    let mut data = Data::default();
    for ws in docs::<WorkspaceRec>(conn, "SELECT doc FROM workspaces")? {
        data.workspaces.insert(ws.id.clone(), ws);
    }
    for user in docs::<UserRec>(conn, "SELECT doc FROM users")? {
        data.users.insert(user.id.clone(), user);
    }
    data.memberships = docs(conn, "SELECT doc FROM memberships ORDER BY id")?;
    {
        let mut stmt = conn.prepare(
            "SELECT id, label, key_hash, workspace_id, scopes FROM api_keys ORDER BY id",
        )?;
        let rows = stmt.query_map([], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, String>(3)?,
                row.get::<_, String>(4)?,
            ))
        })?;
        for row in rows {
            let (id, label, key_hash, workspace_id, scopes) = row?;
            data.keys.push(KeyRec {
                id,
                label,
                key_hash,
                workspace_id,
                scopes: serde_json::from_str(&scopes)?,
            });
        }
    }
    for p in docs::<ProjectRec>(conn, "SELECT doc FROM projects WHERE deleted_at IS NULL")? {
        data.projects.insert(p.wire.id.clone(), p);
    }
    for d in children::load_all::<DeploymentRec>(conn)? {
        data.deployments.insert(d.id.clone(), d);
    }
    let live = |project_id: &str| data.projects.contains_key(project_id);
    data.pii = children::load_by_project(conn, live)?;
    data.scans = children::load_by_project(conn, live)?;
    data.derive();
    Ok(data)
}

/// Checks that a fixture's references hold, naming the first one that does not.
fn validate_fixture(fixture: &Fixture) -> Result<(), StoreError> {
    let mut workspaces = Known::new("workspace");
    for ws in &fixture.workspaces {
        workspaces.add(&ws.id)?;
    }
    let mut users = Known::new("user");
    for user in &fixture.users {
        let nonzero_uuid = uuid::Uuid::parse_str(&user.id).is_ok_and(|id| !id.is_nil());
        ensure(nonzero_uuid, || {
            format!("user id {:?} is not a nonzero UUID", user.id)
        })?;
        users.add(&user.id)?;
    }
    let mut memberships = Known::new("membership");
    for m in &fixture.memberships {
        memberships.add(&m.id)?;
        workspaces.named_by("membership", &m.id, &m.workspace_id)?;
        users.named_by("membership", &m.id, &m.user_id)?;
    }
    let mut keys = HashSet::new();
    for key in &fixture.keys {
        ensure(!key.key.trim().is_empty(), || {
            format!("key {:?} is empty", key.label)
        })?;
        ensure(keys.insert(key.key.as_str()), || {
            format!("key {:?} appears twice", key.label)
        })?;
        workspaces.named_by("key", &key.label, &key.workspace_id)?;
        ensure(!key.scopes.is_empty(), || {
            format!("key {:?} has no scope", key.label)
        })?;
    }
    let mut projects = Known::new("project");
    for p in &fixture.projects {
        projects.add(&p.wire.id)?;
        workspaces.named_by("project", &p.wire.id, &p.wire.workspace_id)?;
    }
    projects.children_named(&fixture.pii_findings)?;
    projects.children_named(&fixture.scans)?;
    Ok(())
}

/// `Ok` when the fixture's rule `holds`, else the error that `message` words.
fn ensure(holds: bool, message: impl FnOnce() -> String) -> Result<(), StoreError> {
    if holds {
        Ok(())
    } else {
        Err(StoreError::Fixture(message()))
    }
}

/// The ids of one kind of fixture record (the kind, then the ids), as the
/// checks meet them.
struct Known<'a>(&'static str, HashSet<&'a str>);

impl<'a> Known<'a> {
    fn new(kind: &'static str) -> Self {
        Self(kind, HashSet::new())
    }

    /// Notes `id`, which must not appear twice.
    fn add(&mut self, id: &'a str) -> Result<(), StoreError> {
        ensure(self.1.insert(id), || {
            format!("{} id {id:?} appears twice", self.0)
        })
    }

    /// `id`, as the record `record` of kind `what` names it, must be known.
    fn named_by(&self, what: &str, record: &str, id: &str) -> Result<(), StoreError> {
        ensure(self.1.contains(id), || {
            format!("{what} {record:?} names unknown {} {id:?}", self.0)
        })
    }

    /// Every one of `records` names a known project.
    fn children_named<T: children::ChildRecord>(&self, records: &[T]) -> Result<(), StoreError> {
        records
            .iter()
            .try_for_each(|record| self.named_by(T::WHAT, record.id(), record.project_id()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn a_fixture_is_refused_for_its_first_broken_reference() {
        let fixture = crate::server::seed::demo_fixture(datetime!(2026-11-22 00:00 UTC)).unwrap();
        assert!(validate_fixture(&fixture).is_ok());
        let refusal = |break_it: &dyn Fn(&mut Fixture)| {
            let mut broken = fixture.clone();
            break_it(&mut broken);
            match validate_fixture(&broken) {
                Err(StoreError::Fixture(message)) => message,
                other => panic!("{other:?}"),
            }
        };
        let project = &fixture.projects[0].wire.id;
        assert_eq!(
            refusal(&|f| f.projects.push(f.projects[0].clone())),
            format!("project id {project:?} appears twice")
        );
        let membership = &fixture.memberships[0].id;
        assert_eq!(
            refusal(&|f| f.memberships[0].user_id = "nobody".into()),
            format!("membership {membership:?} names unknown user \"nobody\"")
        );
        let key = &fixture.keys[0].label;
        assert_eq!(
            refusal(&|f| f.keys[0].workspace_id = "ws_gone".into()),
            format!("key {key:?} names unknown workspace \"ws_gone\"")
        );
        assert_eq!(
            refusal(&|f| f.users[0].id = "not-a-uuid".into()),
            "user id \"not-a-uuid\" is not a nonzero UUID"
        );
    }
}
