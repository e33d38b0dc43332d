//! The history tests run on both stores: the local file and a shared
//! PostgreSQL database (a fresh one per test, on the test binary's server:
//! `tests/it/common/postgres.rs`).

use vantage::history::{HistoryLocation, PgTarget, Store};

use crate::common::postgres;

/// One store to run a test body on, with what keeps it alive.
pub struct TestStore {
    pub location: HistoryLocation,
    /// The file's directory, or the database's URL.
    pub url: Option<String>,
    _dir: Option<tempfile::TempDir>,
}

/// The file, then a fresh shared database.
pub fn each_store() -> Vec<TestStore> {
    vec![file_store(), database_store()]
}

pub fn file_store() -> TestStore {
    let dir = tempfile::tempdir().unwrap();
    TestStore {
        location: HistoryLocation::File(dir.path().join("history.sqlite3")),
        url: None,
        _dir: Some(dir),
    }
}

pub fn database_store() -> TestStore {
    let url = off_runtime(postgres::fresh_database);
    TestStore {
        location: HistoryLocation::Database(PgTarget::parse(&url, None).unwrap()),
        url: Some(url),
        _dir: None,
    }
}

/// Runs `op` off any tokio runtime (the blocking driver runs its own).
pub fn off_runtime<R: Send>(op: impl FnOnce() -> R + Send) -> R {
    std::thread::scope(|scope| scope.spawn(op).join().unwrap())
}

impl TestStore {
    pub fn name(&self) -> &'static str {
        match self.location {
            HistoryLocation::File(_) => "file",
            HistoryLocation::Database(_) => "database",
        }
    }

    pub fn open(&self) -> Store {
        Store::open_at(&self.location)
            .unwrap_or_else(|error| panic!("open the {} store: {error}", self.name()))
    }

    /// `SELECT COUNT(*) FROM {table}` on the store's own tables.
    pub fn count(&self, table: &str) -> i64 {
        let sql = format!("SELECT COUNT(*) FROM {table}");
        match &self.location {
            HistoryLocation::File(path) => rusqlite::Connection::open(path)
                .unwrap()
                .query_row(&sql, [], |row| row.get(0))
                .unwrap(),
            HistoryLocation::Database(_) => {
                let url = self.url.clone().unwrap();
                off_runtime(move || {
                    let mut client = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap();
                    client.query_one(&sql, &[]).unwrap().get(0)
                })
            }
        }
    }

    /// Runs `sqlite` on the file, or `postgres` on the database.
    pub fn execute(&self, sqlite: &str, postgres: &str) {
        match &self.location {
            HistoryLocation::File(path) => rusqlite::Connection::open(path)
                .unwrap()
                .execute_batch(sqlite)
                .unwrap(),
            HistoryLocation::Database(_) => {
                let url = self.url.clone().unwrap();
                let sql = postgres.to_owned();
                off_runtime(move || {
                    let mut client = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap();
                    client.batch_execute(&sql).unwrap();
                })
            }
        }
    }
}
