//! The store's own thread. The driver blocks, and runs a small runtime of its
//! own that may neither block nor end on a tokio thread; so the connection
//! (`link.rs`) lives on one thread for the store's life, and each call is a
//! job sent to it whose answer comes back. A read hands its rows back as they
//! come, through a short queue: the reader's callback runs on the caller's
//! thread, and memory stays flat. Dropping the store closes the queue; the
//! thread then closes the connection by itself, and nobody waits for it.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc;

use super::link::Link;
use super::{PgTarget, Step};
use crate::history::HistoryError;
use crate::history::backend::EachItem;

/// How many read rows may wait for the caller: one page of the portal.
const RELAY_DEPTH: usize = 256;

type Job = Box<dyn FnOnce(&mut Link) + Send>;

pub(super) struct Worker {
    jobs: mpsc::Sender<Job>,
    /// `the history database host:port/db`, for an error of the thread itself.
    store: String,
}

impl Worker {
    /// Starts the thread, not yet connected (the first job connects).
    pub(super) fn start(target: &PgTarget) -> Result<Self, HistoryError> {
        let link = Link::new(target);
        let store = link.describe().to_owned();
        let (jobs, queue) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("history-db".into())
            .spawn(move || serve(link, &queue))
            .map_err(|error| HistoryError::Database {
                store: store.clone(),
                cause: format!("cannot start the connection's thread: {error}"),
            })?;
        Ok(Self { jobs, store })
    }

    /// Runs `job` on the thread and waits for its answer.
    pub(super) fn call<R: Send + 'static>(
        &self,
        job: impl FnOnce(&mut Link) -> Result<R, HistoryError> + Send + 'static,
    ) -> Result<R, HistoryError> {
        let (answer, answered) = mpsc::sync_channel(1);
        let sent = self.jobs.send(Box::new(move |link: &mut Link| {
            // The caller may be gone (its thread ended): nobody to tell.
            let _ = answer.send(job(link));
        }));
        if sent.is_err() {
            return Err(self.stopped());
        }
        answered.recv().unwrap_or_else(|_| Err(self.stopped()))
    }

    /// Runs `read` on the connection, handing each item it reads to `each`
    /// here as it comes; `each`'s error stops the read and is returned.
    pub(super) fn stream<T: Send + 'static>(
        &self,
        read: impl FnOnce(&mut postgres::Client, &mut EachItem<'_, T>) -> Step<()> + Send + 'static,
        each: &mut EachItem<'_, T>,
    ) -> Result<(), HistoryError> {
        let (relay, items) = mpsc::sync_channel::<T>(RELAY_DEPTH);
        let (answer, answered) = mpsc::sync_channel(1);
        let sent = self.jobs.send(Box::new(move |link: &mut Link| {
            let result = link.run(|client| {
                read(client, &mut |item| {
                    relay.send(item).map_err(|_| HistoryError::Stopped)
                })
            });
            // The items end here, before the answer: the caller reads both in turn.
            drop(relay);
            let _ = answer.send(result);
        }));
        if sent.is_err() {
            return Err(self.stopped());
        }
        let mut refused = None;
        for item in &items {
            if let Err(error) = each(item) {
                refused = Some(error);
                break;
            }
        }
        // A reader that stopped closes the relay: the read ends at its next row.
        drop(items);
        let result = answered.recv().unwrap_or_else(|_| Err(self.stopped()));
        match refused {
            Some(error) => Err(error),
            None => result,
        }
    }

    fn stopped(&self) -> HistoryError {
        HistoryError::Database {
            store: self.store.clone(),
            cause: "the connection's thread stopped (see the log)".into(),
        }
    }
}

/// The thread: one job at a time, until the store is dropped; then the
/// connection is closed here, on the thread that made it.
fn serve(mut link: Link, queue: &mpsc::Receiver<Job>) {
    for job in queue {
        if catch_unwind(AssertUnwindSafe(|| job(&mut link))).is_err() {
            tracing::error!(
                store = link.describe(),
                "a history job panicked; reconnecting"
            );
            link.forget();
        }
    }
}
