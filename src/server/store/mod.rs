//! The store: SQLite is the record; an in-memory model answers reads.
//!
//! Every write runs in one SQLite transaction that commits (WAL, `synchronous =
//! FULL`) before the in-memory model changes and before the 2xx is sent, so an
//! answered write survives a kill. Reads come from memory: the primary view for
//! strongly consistent reads (get project), and a lagged view for the reads the
//! contract calls eventually consistent (lists, insights, members), which sees each
//! write only `consistency_lag` later.

mod data;
mod file;
mod index_cache;
pub mod records;
mod schema;
mod settle;

use std::collections::{BTreeMap, HashMap, VecDeque};
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
                insert.execute(params![p.id, p.workspace_id, serde_json::to_string(p)?])?;
            }
            let mut insert =
                tx.prepare("INSERT INTO pii_findings (id, project_id, doc) VALUES (?1, ?2, ?3)")?;
            for f in &fixture.pii_findings {
                insert.execute(params![
                    f.finding.id,
                    f.project_id,
                    serde_json::to_string(f)?
                ])?;
            }
            let mut insert =
                tx.prepare("INSERT INTO security_scans (id, project_id, doc) VALUES (?1, ?2, ?3)")?;
            for s in &fixture.scans {
                insert.execute(params![s.scan.id, s.project_id, serde_json::to_string(s)?])?;
            }
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
                tx.execute(
                    "INSERT INTO projects (id, workspace_id, doc) VALUES (?1, ?2, ?3)
                     ON CONFLICT(id) DO UPDATE SET doc = excluded.doc",
                    params![p.id, p.workspace_id, serde_json::to_string(p)?],
                )?;
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
                tx.execute("DELETE FROM pii_findings WHERE project_id = ?1", [id])?;
                tx.execute("DELETE FROM security_scans WHERE project_id = ?1", [id])?;
                tx.execute("DELETE FROM projects WHERE id = ?1", [id])?;
            }
            Change::PutDeployment(d) => {
                tx.execute(
                    "INSERT INTO deployments (id, project_id, doc) VALUES (?1, ?2, ?3)
                     ON CONFLICT(id) DO UPDATE SET doc = excluded.doc",
                    params![d.id, d.project_id, serde_json::to_string(d)?],
                )?;
            }
        }
    }
    tx.commit()?;
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
        data.projects.insert(p.id.clone(), p);
    }
    for d in docs::<DeploymentRec>(conn, "SELECT doc FROM deployments")? {
        data.deployments.insert(d.id.clone(), d);
    }
    for f in docs::<PiiRec>(conn, "SELECT doc FROM pii_findings")? {
        if data.projects.contains_key(&f.project_id) {
            data.pii.entry(f.project_id.clone()).or_default().push(f);
        }
    }
    for s in docs::<ScanRec>(conn, "SELECT doc FROM security_scans")? {
        if data.projects.contains_key(&s.project_id) {
            data.scans.entry(s.project_id.clone()).or_default().push(s);
        }
    }
    data.derive();
    Ok(data)
}

/// Checks that a fixture's references hold, naming the first one that does not.
fn validate_fixture(fixture: &Fixture) -> Result<(), StoreError> {
    use std::collections::HashSet;
    let bad = |msg: String| Err(StoreError::Fixture(msg));
    let mut workspaces = HashSet::new();
    for ws in &fixture.workspaces {
        if !workspaces.insert(ws.id.as_str()) {
            return bad(format!("workspace id {:?} appears twice", ws.id));
        }
    }
    let mut users = HashSet::new();
    for user in &fixture.users {
        match uuid::Uuid::parse_str(&user.id) {
            Ok(id) if !id.is_nil() => {}
            _ => return bad(format!("user id {:?} is not a nonzero UUID", user.id)),
        }
        if !users.insert(user.id.as_str()) {
            return bad(format!("user id {:?} appears twice", user.id));
        }
    }
    let mut memberships = HashSet::new();
    for m in &fixture.memberships {
        if !memberships.insert(m.id.as_str()) {
            return bad(format!("membership id {:?} appears twice", m.id));
        }
        if !workspaces.contains(m.workspace_id.as_str()) {
            return bad(format!(
                "membership {:?} names unknown workspace {:?}",
                m.id, m.workspace_id
            ));
        }
        if !users.contains(m.user_id.as_str()) {
            return bad(format!(
                "membership {:?} names unknown user {:?}",
                m.id, m.user_id
            ));
        }
    }
    let mut keys = HashSet::new();
    for key in &fixture.keys {
        if key.key.trim().is_empty() {
            return bad(format!("key {:?} is empty", key.label));
        }
        if !keys.insert(key.key.as_str()) {
            return bad(format!("key {:?} appears twice", key.label));
        }
        if !workspaces.contains(key.workspace_id.as_str()) {
            return bad(format!(
                "key {:?} names unknown workspace {:?}",
                key.label, key.workspace_id
            ));
        }
        if key.scopes.is_empty() {
            return bad(format!("key {:?} has no scope", key.label));
        }
    }
    let mut projects = HashSet::new();
    for p in &fixture.projects {
        if !projects.insert(p.id.as_str()) {
            return bad(format!("project id {:?} appears twice", p.id));
        }
        if !workspaces.contains(p.workspace_id.as_str()) {
            return bad(format!(
                "project {:?} names unknown workspace {:?}",
                p.id, p.workspace_id
            ));
        }
    }
    for f in &fixture.pii_findings {
        if !projects.contains(f.project_id.as_str()) {
            return bad(format!(
                "PII finding {:?} names unknown project {:?}",
                f.finding.id, f.project_id
            ));
        }
    }
    for s in &fixture.scans {
        if !projects.contains(s.project_id.as_str()) {
            return bad(format!(
                "scan {:?} names unknown project {:?}",
                s.scan.id, s.project_id
            ));
        }
    }
    Ok(())
}
