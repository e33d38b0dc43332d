//! Each state's validity as a range of snapshots, the way temporal tables
//! keep it: a range row says "this subject had this state, at this place in
//! the list, from snapshot `valid_from` until (not including) `valid_until`"
//! (open while the newest snapshot holds it). A snapshot in which nothing
//! changed costs its own row only; the changes between two snapshots are the
//! ranges that start or end between them.
//!
//! What is decided here, and nowhere else, is how a new list meets the open
//! ranges ([`plan`]): which go on, which end, which begin and with which sort
//! key. Both stores apply the plan with their own SQL.

use std::collections::HashMap;
use std::hash::Hash;

use super::HistoryError;
use super::document::StoredDocument;
use super::model::{MemberState, ProjectState};

/// The range tables and the snapshot's posture column, as both stores'
/// schema step adds them, in no dialect yet ([`range_tables`]).
const RANGE_TABLES: &str = "
CREATE TABLE project_range (
    id {KEY},
    workspace_id TEXT NOT NULL,
    subject TEXT NOT NULL,
    state_id {INTEGER} NOT NULL,
    -- Orders a snapshot's list: rising in the order the service listed it.
    sort_key {INTEGER} NOT NULL,
    -- The first snapshot that holds it.
    valid_from {INTEGER} NOT NULL,
    -- The first snapshot that no longer holds it; NULL while the newest does.
    valid_until {INTEGER}
);
CREATE INDEX project_range_by_subject ON project_range (workspace_id, subject, valid_from);
CREATE INDEX project_range_by_start ON project_range (workspace_id, valid_from);
CREATE INDEX project_range_by_end ON project_range (workspace_id, valid_until);

CREATE TABLE member_range (
    id {KEY},
    workspace_id TEXT NOT NULL,
    subject TEXT NOT NULL,
    state_id {INTEGER} NOT NULL,
    sort_key {INTEGER} NOT NULL,
    valid_from {INTEGER} NOT NULL,
    valid_until {INTEGER}
);
CREATE INDEX member_range_by_subject ON member_range (workspace_id, subject, valid_from);
CREATE INDEX member_range_by_start ON member_range (workspace_id, valid_from);
CREATE INDEX member_range_by_end ON member_range (workspace_id, valid_until);

-- The snapshot's counts (history/posture.rs) as JSON.
ALTER TABLE snapshot ADD COLUMN posture TEXT;
";

/// [`RANGE_TABLES`] in a store's dialect: `key` its numbered primary key,
/// `integer` its 64-bit integer.
pub(super) fn range_tables(key: &str, integer: &str) -> String {
    RANGE_TABLES
        .replace("{KEY}", key)
        .replace("{INTEGER}", integer)
}

/// A stored state's digest as the ranges compare it: 16 bytes, or the
/// history is damaged (a digest of another length never matches, and would
/// end and begin ranges that did not change).
pub fn stored_digest(raw: Vec<u8>) -> Result<[u8; 16], HistoryError> {
    let length = raw.len();
    raw.try_into().map_err(|_| {
        HistoryError::Corrupt(format!(
            "a stored state's digest is {length} bytes, not 16: the history was changed outside vantage"
        ))
    })
}

/// A state a snapshot lists, with the subject its range follows.
pub trait Subject: super::document::Document {
    /// The project's id, the member's user id.
    fn subject(&self) -> &str;
}

impl Subject for ProjectState {
    fn subject(&self) -> &str {
        &self.id
    }
}

impl Subject for MemberState {
    fn subject(&self) -> &str {
        &self.user_id
    }
}

/// The states of two snapshots that differ: each side holds only the states
/// whose range starts or ends between them ([`crate::history::diff`] pairs
/// them by key, as it would the whole lists).
#[derive(Debug, Clone, Default)]
pub struct Turnover {
    pub projects: (Vec<ProjectState>, Vec<ProjectState>),
    pub members: (Vec<MemberState>, Vec<MemberState>),
}

/// The space left between two neighbours' sort keys when a list is laid out
/// anew: room for about twenty arrivals at one place before a layout anew.
pub const KEY_GAP: i64 = 1 << 20;

/// A range that the newest snapshot holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenRange<H, I> {
    /// The store's handle on the row (its id).
    pub handle: H,
    pub subject: String,
    /// What the state is: its digest, or its id.
    pub identity: I,
    pub sort_key: i64,
}

/// One entry of the new list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed<'a, I> {
    pub subject: &'a str,
    pub identity: I,
}

/// What to write for a new list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan<H> {
    /// The open ranges that end at the new snapshot.
    pub close: Vec<H>,
    /// The ranges that begin at it: the entry's index in the list, its sort key.
    pub open: Vec<(usize, i64)>,
}

/// A new list of states as the store keeps them (`documents[at]` is
/// `states[at]`), and how it meets `open` ([`plan`]), states compared by digest.
pub fn plan_documents<H: Clone, T: Subject>(
    open: &[OpenRange<H, [u8; 16]>],
    states: &[T],
) -> (Vec<StoredDocument>, Plan<H>) {
    let documents: Vec<StoredDocument> = states.iter().map(StoredDocument::of).collect();
    let listed: Vec<Listed<'_, [u8; 16]>> = states
        .iter()
        .zip(&documents)
        .map(|(state, document)| Listed {
            subject: state.subject(),
            identity: document.digest,
        })
        .collect();
    let plan = plan(open, &listed);
    (documents, plan)
}

/// How a list kept as `(subject, state id)` pairs meets `open`, states
/// compared by id: the step from an older schema's lists to ranges.
pub fn plan_ids<H: Clone>(open: &[OpenRange<H, i64>], listed: &[(String, i64)]) -> Plan<H> {
    let entries: Vec<Listed<'_, i64>> = listed
        .iter()
        .map(|(subject, state_id)| Listed {
            subject,
            identity: *state_id,
        })
        .collect();
    plan(open, &entries)
}

/// Forgets the ranges of `open` that `closed` ended.
pub fn drop_closed<H: Eq + Hash, I>(open: &mut Vec<OpenRange<H, I>>, closed: &[H]) {
    let closed: std::collections::HashSet<&H> = closed.iter().collect();
    open.retain(|range| !closed.contains(&range.handle));
}

/// How `listed` (in its order) meets `open`: an entry whose subject has an
/// open range of the same state goes on in it when its place in the list
/// still sorts among its neighbours; every other entry begins a range, with a
/// sort key between those of its neighbours. So a changed state, an arrival,
/// a departure or a move costs a row or two, and reading a snapshot ordered
/// by sort key gives the list in its order.
pub fn plan<H: Clone, I: Eq + Hash + Clone>(
    open: &[OpenRange<H, I>],
    listed: &[Listed<'_, I>],
) -> Plan<H> {
    // The open ranges by subject and state (a list may hold a subject twice).
    let mut waiting: HashMap<(&str, &I), Vec<usize>> = HashMap::new();
    for (index, range) in open.iter().enumerate().rev() {
        waiting
            .entry((range.subject.as_str(), &range.identity))
            .or_default()
            .push(index);
    }
    let mut going_on: Vec<Option<usize>> = listed
        .iter()
        .map(|entry| {
            waiting
                .get_mut(&(entry.subject, &entry.identity))
                .and_then(Vec::pop)
        })
        .collect();
    // Of the entries that could go on, the longest run whose keys rise in
    // list order keeps its ranges; the others moved, and begin anew.
    let candidates: Vec<(usize, i64)> = going_on
        .iter()
        .enumerate()
        .filter_map(|(at, range)| range.map(|range| (at, open[range].sort_key)))
        .collect();
    let rising = longest_rising(&candidates);
    for (at, _) in &candidates {
        if !rising.contains(at) {
            going_on[*at] = None;
        }
    }
    let keys = match fill_keys(&going_on, open) {
        Some(keys) => keys,
        None => {
            // No room left at some place: the whole list laid out anew.
            going_on.iter_mut().for_each(|range| *range = None);
            (1..=listed.len() as i64).map(|n| n * KEY_GAP).collect()
        }
    };
    let kept: std::collections::HashSet<usize> = going_on.iter().flatten().copied().collect();
    Plan {
        close: open
            .iter()
            .enumerate()
            .filter(|(index, _)| !kept.contains(index))
            .map(|(_, range)| range.handle.clone())
            .collect(),
        open: going_on
            .iter()
            .enumerate()
            .filter(|(_, range)| range.is_none())
            .map(|(at, _)| (at, keys[at]))
            .collect(),
    }
}

/// The list positions (of `candidates`, in list order) whose keys form the
/// longest strictly rising run: patience sorting, n log n.
fn longest_rising(candidates: &[(usize, i64)]) -> std::collections::HashSet<usize> {
    // tails[k]: the index in `candidates` ending the best run of length k + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut before: Vec<Option<usize>> = vec![None; candidates.len()];
    for (index, &(_, key)) in candidates.iter().enumerate() {
        let length = tails.partition_point(|&tail| candidates[tail].1 < key);
        before[index] = length.checked_sub(1).map(|previous| tails[previous]);
        if length == tails.len() {
            tails.push(index);
        } else {
            tails[length] = index;
        }
    }
    let mut run = std::collections::HashSet::new();
    let mut at = tails.last().copied();
    while let Some(index) = at {
        run.insert(candidates[index].0);
        at = before[index];
    }
    run
}

/// Every entry's sort key: its range's when it goes on, else evenly between
/// the keys of the nearest neighbours that go on. `None` when two neighbours
/// leave no room.
fn fill_keys<H, I>(going_on: &[Option<usize>], open: &[OpenRange<H, I>]) -> Option<Vec<i64>> {
    let mut keys = vec![0; going_on.len()];
    let mut at = 0;
    let mut low: Option<i64> = None;
    while at < going_on.len() {
        if let Some(range) = going_on[at] {
            keys[at] = open[range].sort_key;
            low = Some(keys[at]);
            at += 1;
            continue;
        }
        let end = (at..going_on.len())
            .find(|&next| going_on[next].is_some())
            .unwrap_or(going_on.len());
        let high = going_on
            .get(end)
            .copied()
            .flatten()
            .map(|r| open[r].sort_key);
        let count = (end - at) as i64;
        let (from, step) = match (low, high) {
            (Some(low), Some(high)) => (low, (high - low) / (count + 1)),
            (Some(low), None) => (low, KEY_GAP),
            (None, Some(high)) => (high.checked_sub((count + 1) * KEY_GAP)?, KEY_GAP),
            (None, None) => (0, KEY_GAP),
        };
        if step < 1 {
            return None;
        }
        for (offset, key) in keys[at..end].iter_mut().enumerate() {
            *key = from.checked_add(step.checked_mul(offset as i64 + 1)?)?;
        }
        low = Some(keys[end - 1]);
        at = end;
    }
    Some(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_range_tables_read_in_each_dialect_with_nothing_left_to_fill() {
        let file = range_tables("INTEGER PRIMARY KEY", "INTEGER");
        let database = range_tables("BIGSERIAL PRIMARY KEY", "BIGINT");
        for sql in [&file, &database] {
            assert!(!sql.contains('{'), "{sql}");
            assert_eq!(sql.matches("CREATE TABLE").count(), 2);
        }
        assert!(file.contains("    valid_until INTEGER\n"));
        assert!(database.contains("    id BIGSERIAL PRIMARY KEY,\n"));
    }

    /// Applies plans list after list, as a store would; each snapshot's list
    /// read back by sort key must be the list recorded.
    struct Ranges {
        rows: Vec<(String, char, i64, usize, Option<usize>)>,
        snapshot: usize,
    }

    impl Ranges {
        fn record(&mut self, list: &str) -> usize {
            self.snapshot += 1;
            let open: Vec<OpenRange<usize, char>> = self
                .rows
                .iter()
                .enumerate()
                .filter(|(_, row)| row.4.is_none())
                .map(|(handle, row)| OpenRange {
                    handle,
                    subject: row.0.clone(),
                    identity: row.1,
                    sort_key: row.2,
                })
                .collect();
            // "a1": subject a in state 1.
            let entries: Vec<(String, char)> = list
                .split_whitespace()
                .map(|word| (word[..1].to_owned(), word.chars().nth(1).unwrap()))
                .collect();
            let listed: Vec<Listed<'_, char>> = entries
                .iter()
                .map(|(subject, state)| Listed {
                    subject,
                    identity: *state,
                })
                .collect();
            let plan = plan(&open, &listed);
            for handle in &plan.close {
                self.rows[*handle].4 = Some(self.snapshot);
            }
            for (at, key) in &plan.open {
                let (subject, state) = &entries[*at];
                self.rows
                    .push((subject.clone(), *state, *key, self.snapshot, None));
            }
            plan.open.len() + plan.close.len()
        }

        fn read(&self, snapshot: usize) -> String {
            let mut held: Vec<_> = self
                .rows
                .iter()
                .filter(|row| row.3 <= snapshot && row.4.is_none_or(|until| until > snapshot))
                .collect();
            held.sort_by_key(|row| row.2);
            held.iter()
                .map(|row| format!("{}{}", row.0, row.1))
                .collect::<Vec<_>>()
                .join(" ")
        }
    }

    #[test]
    fn a_stored_digest_of_another_length_is_damage_not_a_state() {
        assert_eq!(super::stored_digest(vec![7; 16]).ok(), Some([7; 16]));
        let damaged = super::stored_digest(vec![7; 15]).expect_err("15 bytes");
        assert!(damaged.to_string().contains("15 bytes"), "{damaged}");
    }

    #[test]
    fn each_list_reads_back_in_its_order_and_costs_what_changed() {
        let mut ranges = Ranges {
            rows: Vec::new(),
            snapshot: 0,
        };
        let lists = [
            ("a1 b1 c1 d1", 4),
            // Nothing changed: nothing written.
            ("a1 b1 c1 d1", 0),
            // b changed: one ends, one begins.
            ("a1 b2 c1 d1", 2),
            // An arrival at the top, one in the middle, a departure.
            ("e1 a1 b2 f1 d1", 3),
            // d moved to the top (most recently edited first): one row each way.
            ("d1 e1 a1 b2 f1", 2),
            // A subject twice.
            ("d1 e1 a1 b2 f1 a1", 1),
            ("", 6),
            ("a1 b1", 2),
        ];
        for (list, cost) in lists {
            assert_eq!(ranges.record(list), cost, "recording {list:?}");
        }
        for (snapshot, (list, _)) in lists.iter().enumerate() {
            assert_eq!(
                ranges.read(snapshot + 1),
                *list,
                "snapshot {}",
                snapshot + 1
            );
        }
    }

    #[test]
    fn arrivals_at_one_place_past_the_room_lay_the_list_out_anew() {
        let mut ranges = Ranges {
            rows: Vec::new(),
            snapshot: 0,
        };
        let mut list = vec!["a1".to_owned(), "z1".to_owned()];
        ranges.record(&list.join(" "));
        for round in 0..40 {
            // Always just after the first.
            let subject = char::from_u32('b' as u32 + (round % 24)).unwrap();
            let state = char::from_digit(round / 24 + 2, 10).unwrap();
            list.insert(1, format!("{subject}{state}"));
            ranges.record(&list.join(" "));
            assert_eq!(ranges.read(ranges.snapshot), list.join(" "));
        }
    }
}
