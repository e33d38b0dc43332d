//! Where the client's notices and the background snapshot's progress wait for
//! the event loop: coalesced, never queued without bound. Each kind of notice
//! keeps only its newest, in the order the newest of each came, so a flood
//! (a retry storm, a snapshot counting 100,000 items while the screen is busy)
//! holds at most one notice per kind, and the status line still ends on the
//! newest word.

use std::collections::VecDeque;
use std::mem::discriminant;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::Notify;

use super::vocab::ClientNotice;

struct Shared {
    pending: Mutex<VecDeque<ClientNotice>>,
    ready: Notify,
    senders: AtomicUsize,
}

impl Shared {
    fn pending(&self) -> std::sync::MutexGuard<'_, VecDeque<ClientNotice>> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Says a notice; never waits, never fails (no one listening drops it).
pub struct NoticeSender(Arc<Shared>);

/// Where the event loop takes them.
pub struct NoticeReceiver(Arc<Shared>);

/// A mailbox for notices, its one receiver and a sender to clone.
pub fn notice_box() -> (NoticeSender, NoticeReceiver) {
    let shared = Arc::new(Shared {
        pending: Mutex::new(VecDeque::new()),
        ready: Notify::new(),
        senders: AtomicUsize::new(1),
    });
    (NoticeSender(shared.clone()), NoticeReceiver(shared))
}

impl NoticeSender {
    /// Puts `notice` in, in place of a waiting one of its kind.
    pub fn send(&self, notice: ClientNotice) {
        let mut pending = self.0.pending();
        let kind = discriminant(&notice);
        pending.retain(|waiting| discriminant(waiting) != kind);
        pending.push_back(notice);
        drop(pending);
        self.0.ready.notify_one();
    }
}

impl Clone for NoticeSender {
    fn clone(&self) -> Self {
        self.0.senders.fetch_add(1, Ordering::AcqRel);
        Self(self.0.clone())
    }
}

impl Drop for NoticeSender {
    fn drop(&mut self) {
        if self.0.senders.fetch_sub(1, Ordering::AcqRel) == 1 {
            // The last one: a receiver waiting learns there will be no more.
            self.0.ready.notify_one();
        }
    }
}

impl NoticeReceiver {
    /// The oldest waiting notice; `None` once every sender is gone and none waits.
    pub async fn recv(&mut self) -> Option<ClientNotice> {
        loop {
            if let Some(notice) = self.try_recv() {
                return Some(notice);
            }
            if self.0.senders.load(Ordering::Acquire) == 0 {
                return self.try_recv();
            }
            self.0.ready.notified().await;
        }
    }

    /// The oldest waiting notice, if one waits.
    pub fn try_recv(&mut self) -> Option<ClientNotice> {
        self.0.pending().pop_front()
    }

    /// How many wait: at most one of each kind.
    pub fn waiting(&self) -> usize {
        self.0.pending().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_of_notices_waits_as_one_of_each_kind_the_newest_last() {
        let (sender, mut receiver) = notice_box();
        let progress = sender.clone();
        for n in 0..100_000u32 {
            sender.send(ClientNotice::RateLimit {
                remaining: n,
                limit: 100_000,
            });
            progress.send(ClientNotice::Snapshot(format!("snapshot: inventory {n}")));
            if n % 1000 == 0 {
                sender.send(ClientNotice::Retrying {
                    reason: format!("try {n}"),
                    delay_ms: 5,
                });
            }
            assert!(receiver.waiting() <= 3, "{} wait", receiver.waiting());
        }
        sender.send(ClientNotice::Recovered);
        let drained: Vec<ClientNotice> = std::iter::from_fn(|| receiver.try_recv()).collect();
        assert_eq!(
            drained,
            [
                ClientNotice::Retrying {
                    reason: "try 99000".into(),
                    delay_ms: 5
                },
                ClientNotice::RateLimit {
                    remaining: 99_999,
                    limit: 100_000
                },
                ClientNotice::Snapshot("snapshot: inventory 99999".into()),
                ClientNotice::Recovered,
            ]
        );
    }

    #[test]
    fn the_receiver_wakes_for_a_notice_and_ends_with_the_last_sender() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let (sender, mut receiver) = notice_box();
            let said = tokio::spawn(async move {
                tokio::task::yield_now().await;
                sender.send(ClientNotice::Recovered);
            });
            assert_eq!(receiver.recv().await, Some(ClientNotice::Recovered));
            said.await.unwrap();
            assert_eq!(receiver.recv().await, None, "no sender is left");
        });
    }
}
