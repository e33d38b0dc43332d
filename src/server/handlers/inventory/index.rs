//! The inventory answered through indexes of the workspace, so a page costs
//! about what it shows and skips, not a sort of the whole workspace:
//!
//! - each sort order is the workspace's projects in that order (built once,
//!   then a cursor is found by binary search);
//! - each set of filters at rest (all but the text query and the activity
//!   groups, which move with the clock) is a bit set over the projects, with
//!   its count;
//! - the text query goes through a trigram index of the case-folded fields it
//!   searches: the projects holding every trigram of every term are the
//!   candidates, and the matcher confirms and scores them;
//! - under `relevance`, the confirmed matches in relevance order are the order.
//!
//! The indexes live in the store's [`IndexCache`](crate::server::store::IndexCache),
//! which drops a workspace's indexes on every write to it. The order, ties,
//! cursors and totals are those of the full scan they replaced (`full_scan`,
//! the oracle of `index_tests`).

use std::collections::HashMap;
use std::sync::Arc;

use time::OffsetDateTime;

use super::{Filters, InventoryRequest, NAME_WEIGHT, OWNER_WEIGHT, Sort, last_activity};
use crate::api::model::{InventorySortBy, Pagination};
use crate::server::errors::HttpError;
use crate::server::paging::PageRequest;
use crate::server::paging::compact::{CompactKey, paginate_compact};
use crate::server::search::{Field, TextQuery};
use crate::server::store::{Data, ProjectRec};

/// The projects of a workspace, numbered: slot `n` is the `n`th in id order.
struct Base {
    ids: Vec<Arc<str>>,
    last_activity: Vec<OffsetDateTime>,
}

/// Slots in list order, each with its relevance score (0 outside `relevance`).
type Order = Vec<(u32, u32)>;

/// A set of slots.
struct SlotSet {
    words: Vec<u64>,
    count: usize,
}

impl SlotSet {
    fn from_slots(len: usize, slots: impl Iterator<Item = u32>) -> Self {
        let mut set = Self {
            words: vec![0; len.div_ceil(64)],
            count: 0,
        };
        for slot in slots {
            set.words[slot as usize / 64] |= 1 << (slot % 64);
            set.count += 1;
        }
        set
    }

    fn contains(&self, slot: u32) -> bool {
        self.words
            .get(slot as usize / 64)
            .is_some_and(|word| word & (1 << (slot % 64)) != 0)
    }
}

/// The confirmed matches of a text query, in slot order, with their scores.
struct Matches {
    scored: Vec<(u32, u32)>,
    set: SlotSet,
}

/// Trigrams of the case-folded searched fields: each trigram's slots, ascending.
struct Trigrams(HashMap<[char; 3], Vec<u32>>);

/// One workspace's inventory view of the data, with its indexes.
struct View<'d> {
    data: &'d Data,
    workspace: &'d str,
    base: Arc<Base>,
}

impl<'d> View<'d> {
    fn new(data: &'d Data, workspace: &'d str) -> Self {
        let base = data.indexes.get_or_build(workspace, "base", || {
            let projects: Vec<&ProjectRec> = data.workspace_projects(workspace).collect();
            Base {
                ids: projects.iter().map(|p| Arc::from(p.id.as_str())).collect(),
                last_activity: projects.iter().map(|p| last_activity(p)).collect(),
            }
        });
        Self {
            data,
            workspace,
            base,
        }
    }

    fn project(&self, slot: u32) -> Option<&'d ProjectRec> {
        let id = self.base.ids.get(slot as usize)?;
        self.data.projects.get(id.as_ref())
    }

    fn projects(&self) -> impl Iterator<Item = (u32, &'d ProjectRec)> + '_ {
        (0..self.base.ids.len() as u32)
            .filter_map(|slot| self.project(slot).map(|project| (slot, project)))
    }

    /// Every project in the order of `sort`, scored 0.
    fn sort_order(&self, sort: &Sort) -> Arc<Order> {
        let name = format!("sort:{:?}:{}", sort.by, sort.descending);
        self.data.indexes.get_or_build(self.workspace, &name, || {
            let mut keyed: Vec<(CompactKey<'_>, u32)> = self
                .projects()
                .map(|(slot, p)| (sort.key(p, 0, p.derived.open_pii), slot))
                .collect();
            // Keys end with the unique id: no two are equal.
            keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            keyed.into_iter().map(|(_, slot)| (slot, 0)).collect()
        })
    }

    /// The confirmed matches of `query` in the order of `sort` (`relevance`).
    fn relevance_order(&self, sort: &Sort, query: &TextQuery, matches: &Matches) -> Arc<Order> {
        let name = format!("relevance:{}:{:?}", sort.descending, query.terms());
        self.data.indexes.get_or_build(self.workspace, &name, || {
            let mut keyed: Vec<(CompactKey<'_>, (u32, u32))> = matches
                .scored
                .iter()
                .filter_map(|&(slot, score)| {
                    let p = self.project(slot)?;
                    Some((sort.key(p, score, p.derived.open_pii), (slot, score)))
                })
                .collect();
            keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            keyed.into_iter().map(|(_, entry)| entry).collect()
        })
    }

    /// The projects the filters at rest admit.
    fn admitted(&self, filters: &Filters) -> Arc<SlotSet> {
        let kinds: Vec<&str> = filters.finding_types.iter().map(|kind| kind.id).collect();
        let name = format!(
            "filters:{:?}:{:?}:{:?}:{:?}:{:?}:{:?}:{kinds:?}",
            filters.is_published,
            filters.visibility,
            filters.has_pii,
            filters.has_connectors,
            filters.publish_audience,
            filters.review_priority,
        );
        self.data.indexes.get_or_build(self.workspace, &name, || {
            let admitted = self
                .projects()
                .filter(|(_, p)| filters.admits_at_rest(p, p.derived.open_pii))
                .map(|(slot, _)| slot);
            SlotSet::from_slots(self.base.ids.len(), admitted)
        })
    }

    fn trigrams(&self) -> Arc<Trigrams> {
        self.data
            .indexes
            .get_or_build(self.workspace, "trigrams", || {
                let mut grams: HashMap<[char; 3], Vec<u32>> = HashMap::new();
                let mut chars = Vec::new();
                for (slot, p) in self.projects() {
                    let fields = [&p.derived.name_folded, &p.derived.owner_name_folded];
                    for text in fields.into_iter().flatten() {
                        chars.clear();
                        chars.extend(text.chars());
                        for gram in chars.windows(3) {
                            let slots = grams.entry([gram[0], gram[1], gram[2]]).or_default();
                            if slots.last() != Some(&slot) {
                                slots.push(slot);
                            }
                        }
                    }
                }
                Trigrams(grams)
            })
    }

    /// The projects that match every term of `query`, with their scores.
    fn matches(&self, query: &TextQuery) -> Arc<Matches> {
        let name = format!("text:{:?}", query.terms());
        self.data.indexes.get_or_build(self.workspace, &name, || {
            let trigrams = self.trigrams();
            let mut candidates: Option<Vec<u32>> = None;
            for term in query.terms() {
                let chars: Vec<char> = term.chars().collect();
                for gram in chars.windows(3) {
                    let slots = trigrams
                        .0
                        .get(&[gram[0], gram[1], gram[2]])
                        .map_or(&[][..], Vec::as_slice);
                    candidates = Some(match candidates {
                        None => slots.to_vec(),
                        Some(kept) => intersect(&kept, slots),
                    });
                }
            }
            let mut matcher = query.matcher();
            let scored: Vec<(u32, u32)> = candidates
                .unwrap_or_default()
                .into_iter()
                .filter_map(|slot| {
                    let p = self.project(slot)?;
                    let fields = [
                        Field::folded(p.derived.name_folded.as_deref(), NAME_WEIGHT),
                        Field::folded(p.derived.owner_name_folded.as_deref(), OWNER_WEIGHT),
                    ];
                    matcher.score(&fields).map(|score| (slot, score))
                })
                .collect();
            let set = SlotSet::from_slots(self.base.ids.len(), scored.iter().map(|m| m.0));
            Matches { scored, set }
        })
    }
}

/// The slots in both ascending lists.
fn intersect(a: &[u32], b: &[u32]) -> Vec<u32> {
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    small
        .iter()
        .copied()
        .filter(|slot| large.binary_search(slot).is_ok())
        .collect()
}

/// The page of `params` after the cursor of `request`, its pagination and the
/// number of projects the filters admit.
pub(super) fn select<'d>(
    data: &'d Data,
    workspace_id: &'d str,
    params: &InventoryRequest,
    now: OffsetDateTime,
    request: &PageRequest,
    secret: &[u8],
    binding: &str,
) -> Result<(Vec<&'d ProjectRec>, Pagination, i64), HttpError> {
    let view = View::new(data, workspace_id);
    let filters = &params.filters;
    let sort = &params.sort;
    // A query whose terms are all too short filters nothing and scores 0.
    let query = filters.query.as_ref().filter(|query| !query.is_blank());
    let matches = query.map(|query| view.matches(query));
    let admitted = view.admitted(filters);
    let by_relevance = sort.by == InventorySortBy::Relevance;
    let order = match (query, &matches) {
        (Some(query), Some(matches)) if by_relevance => view.relevance_order(sort, query, matches),
        _ => view.sort_order(sort),
    };
    let text_filter = matches.as_deref().filter(|_| !by_relevance);
    let admits = |slot: u32| {
        admitted.contains(slot)
            && text_filter.is_none_or(|matches| matches.set.contains(slot))
            && view
                .base
                .last_activity
                .get(slot as usize)
                .is_some_and(|last| filters.admits_activity(*last, now))
    };
    let key = |&(slot, score): &(u32, u32)| {
        view.project(slot)
            .map(|p| sort.key(p, score, p.derived.open_pii))
    };
    let start = match &request.after {
        None => 0,
        Some(after) => {
            let after = CompactKey::from_sort_key(after).ok_or_else(|| {
                HttpError::invalid("query.cursor", "the cursor is not one this server issued")
            })?;
            order.partition_point(|entry| key(entry).is_some_and(|key| key <= after))
        }
    };
    let mut picked: Vec<(CompactKey<'d>, &'d ProjectRec)> = Vec::new();
    for &(slot, score) in &order[start..] {
        if picked.len() > request.limit {
            break;
        }
        if !admits(slot) {
            continue;
        }
        if let Some(p) = view.project(slot) {
            picked.push((sort.key(p, score, p.derived.open_pii), p));
        }
    }
    let total = match &matches {
        Some(matches) => matches
            .scored
            .iter()
            .filter(|(slot, _)| admits(*slot))
            .count(),
        None if filters.activity_groups.is_empty() => admitted.count,
        None => (0..view.base.ids.len() as u32)
            .filter(|&slot| admits(slot))
            .count(),
    };
    let (page, pagination) = paginate_compact(picked, request, secret, binding)?;
    Ok((page, pagination, total as i64))
}
