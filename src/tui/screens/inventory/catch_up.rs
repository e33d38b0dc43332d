//! Lists are eventually consistent (contract, Limits): after our own write the
//! inventory may still show the old row. The inventory patches its rows from the
//! write's response at once, and re-reads the page the row came from, backing
//! off, until the server agrees; meanwhile every page that arrives gets the same
//! patch, so a stale value never flashes back.

use time::{Duration, OffsetDateTime};

use super::msg::{Msg, RECHECK};
use crate::api::InventoryParams;
use crate::api::model::{InventoryItem, InventoryPage, Project, PublishAudience, Visibility};
use crate::tui::effect::Cx;
use crate::tui::ops::ListInventory;

/// Waits before each re-read: 1 s, 2 s, 4 s, then 8 s.
const FIRST_WAIT: Duration = Duration::seconds(1);
const MAX_WAIT: Duration = Duration::seconds(8);
/// Re-reads before the note "not caught up yet" replaces the waiting.
const MAX_ATTEMPTS: u32 = 8;

/// What our write changed in a row.
#[derive(Debug, Clone, PartialEq)]
pub struct RowPatch {
    pub name: Option<String>,
    pub visibility: Option<Visibility>,
    pub is_published: bool,
    pub publish_audience: Option<PublishAudience>,
}

impl RowPatch {
    pub fn from_project(project: &Project) -> Self {
        Self {
            name: project.name.clone(),
            visibility: project.visibility.clone(),
            is_published: project.is_published,
            publish_audience: project.publish_audience.clone(),
        }
    }

    pub fn apply(&self, row: &mut InventoryItem) {
        row.name = self.name.clone();
        row.visibility = self.visibility.clone();
        row.is_published = self.is_published;
        row.publish_audience = self.publish_audience.clone();
    }

    pub fn agrees(&self, row: &InventoryItem) -> bool {
        row.name == self.name
            && row.visibility == self.visibility
            && row.is_published == self.is_published
            && row.publish_audience == self.publish_audience
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    Patch(RowPatch),
    Deleted,
}

/// A write the list has not shown yet, and the page to re-read for it: the
/// query and cursor it was loaded with (a cursor is bound to its query).
#[derive(Debug, Clone, PartialEq)]
pub struct Expectation {
    pub id: String,
    pub change: Change,
    query: InventoryParams,
    cursor: Option<String>,
}

#[derive(Debug, Default)]
pub struct CatchUp {
    expectations: Vec<Expectation>,
    next_at: Option<OffsetDateTime>,
    /// The re-read in flight: its token and the page it reads.
    pending: Option<(u64, InventoryParams, Option<String>)>,
    attempt: u32,
    /// Re-reads stopped before the server agreed.
    pub gave_up: bool,
}

impl CatchUp {
    /// Remembers a write; the newest write of a row replaces older ones.
    pub fn expect(
        &mut self,
        id: String,
        change: Change,
        query: InventoryParams,
        cursor: Option<String>,
        now: OffsetDateTime,
    ) {
        self.expectations.retain(|e| e.id != id);
        self.expectations.push(Expectation {
            id,
            change,
            query,
            cursor,
        });
        self.attempt = 0;
        self.gave_up = false;
        if self.pending.is_none() {
            self.next_at = Some(now + FIRST_WAIT);
        }
    }

    pub fn waiting(&self) -> bool {
        !self.expectations.is_empty() && !self.gave_up
    }

    pub fn expectations(&self) -> &[Expectation] {
        &self.expectations
    }

    /// Our writes laid over rows that just arrived: patched rows, deleted ones dropped.
    pub fn overlay(&self, rows: &mut Vec<InventoryItem>) {
        for expectation in &self.expectations {
            match &expectation.change {
                Change::Patch(patch) => rows
                    .iter_mut()
                    .filter(|row| row.id == expectation.id)
                    .for_each(|row| patch.apply(row)),
                Change::Deleted => rows.retain(|row| row.id != expectation.id),
            }
        }
    }

    /// Deletes of rows under `query` the server may still count.
    pub fn unconfirmed_deletes(&self, query: &InventoryParams) -> i64 {
        self.expectations
            .iter()
            .filter(|e| e.change == Change::Deleted && &e.query == query)
            .count() as i64
    }

    pub fn wake_at(&self) -> Option<OffsetDateTime> {
        if self.pending.is_some() || self.gave_up {
            return None;
        }
        self.next_at
    }

    /// Re-reads the page of the oldest expectation when its time has come.
    pub fn wake(&mut self, cx: &mut Cx) {
        if self.wake_at().is_none_or(|at| at > cx.now) {
            return;
        }
        self.next_at = None;
        let Some(first) = self.expectations.first() else {
            return;
        };
        let (query, cursor) = (first.query.clone(), first.cursor.clone());
        let reread = ListInventory {
            workspace_id: cx.workspace.to_owned(),
            params: query.clone(),
            cursor: cursor.clone(),
        };
        let token = cx.request(RECHECK, reread, Msg::Recheck);
        self.pending = Some((token, query, cursor));
    }

    /// Takes a re-read page. Returns the rows the server now agrees on (to replace
    /// ours) and, when the page was read under `current`, the total to show.
    pub fn on_page(
        &mut self,
        token: u64,
        page: Option<&InventoryPage>,
        current: &InventoryParams,
        now: OffsetDateTime,
    ) -> Option<Confirmed> {
        let (pending_token, query, cursor) = self.pending.take()?;
        if pending_token != token {
            self.pending = Some((pending_token, query, cursor));
            return None;
        }
        let mut confirmed = Confirmed::default();
        if let Some(page) = page {
            self.expectations.retain(|e| {
                if e.query != query || e.cursor != cursor {
                    return true;
                }
                let row = page.data.iter().find(|row| row.id == e.id);
                let agrees = match (&e.change, row) {
                    (Change::Deleted, None) => true,
                    (Change::Deleted, Some(_)) => false,
                    (Change::Patch(patch), Some(row)) => {
                        if patch.agrees(row) {
                            confirmed.rows.push(row.clone());
                        }
                        patch.agrees(row)
                    }
                    // A stale list keeps the row where it was; a row that moved
                    // off its page means the list has changed.
                    (Change::Patch(_), None) => true,
                };
                !agrees
            });
            if &query == current {
                confirmed.total = Some(page.total - self.unconfirmed_deletes(current));
            }
        }
        if !self.expectations.is_empty() {
            self.attempt += 1;
            if self.attempt >= MAX_ATTEMPTS {
                self.gave_up = true;
            } else {
                self.next_at = Some(now + backoff(self.attempt));
            }
        }
        Some(confirmed)
    }
}

/// The wait before re-read number `attempt` (0-based): 1, 2, 4, 8, 8, ... seconds.
pub fn backoff(attempt: u32) -> Duration {
    let factor = 1_i32 << attempt.min(4);
    (FIRST_WAIT * factor).min(MAX_WAIT)
}

/// What a re-read settled.
#[derive(Debug, Default)]
pub struct Confirmed {
    pub rows: Vec<InventoryItem>,
    pub total: Option<i64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_to_a_cap() {
        let secs: Vec<i64> = (0..6).map(|a| backoff(a).whole_seconds()).collect();
        assert_eq!(secs, [1, 2, 4, 8, 8, 8]);
    }
}
