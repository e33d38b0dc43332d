//! The inventory answered through indexes of the workspace, so a page costs
//! about what it shows and skips, not a sort of the whole workspace:
//!
//! - each sort order is the workspace's projects in that order (a cursor is
//!   found in it by binary search);
//! - each set of filters at rest (all but the text query and the activity
//!   groups, which move with the clock) is a bit set over the projects, with
//!   its count;
//! - the text query goes through a trigram index of the case-folded fields it
//!   searches: the projects holding every trigram of every term are the
//!   candidates, and the matcher confirms and scores them;
//! - with a text query, the order is the confirmed matches in the order of the
//!   sort (relevance by default), so a search walks only its matches;
//! - each project's item is kept as JSON (`item.rs`), so a page is spliced.
//!
//! All of it is one [`InventoryIndex`] per workspace in the store's
//! [`IndexCache`](crate::server::store::IndexCache): built on first use, then
//! maintained on write (a changed project moves within each order, flips its
//! bits, is rescored, its JSON serialized again), never rebuilt on read. The
//! order, ties, cursors and totals are those of the full scan they replaced
//! (`full_scan`, the oracle of `index_tests`, which also writes).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use time::OffsetDateTime;

use super::item::{self, ItemJson};
use super::{
    Filters, InventoryRequest, NAME_WEIGHT, OWNER_WEIGHT, Sort, activity_group_at, last_activity,
};
use crate::api::model::Pagination;
use crate::server::catalog::FindingKind;
use crate::server::errors::HttpError;
use crate::server::paging::PageRequest;
use crate::server::paging::compact::{CompactKey, paginate_in_order};
use crate::server::search::{Field, TextQuery};
use crate::server::store::{Data, MaintainedIndex, ProjectRec};

/// The name of the inventory's index in the cache.
const INDEX_NAME: &str = "inventory";
/// Most sort orders, filter sets or text matches kept per workspace; past it
/// that kind starts afresh (a bound for clients that send many filters).
const MAX_KEPT: usize = 64;

/// Slots in list order, each with its relevance score (0 outside `relevance`).
type Order = Vec<(u32, u32)>;

/// A set of slots.
#[derive(Debug, Default)]
struct SlotSet {
    words: Vec<u64>,
    count: usize,
}

impl SlotSet {
    fn from_slots(slots: impl Iterator<Item = u32>) -> Self {
        let mut set = Self::default();
        for slot in slots {
            set.set(slot, true);
        }
        set
    }

    fn contains(&self, slot: u32) -> bool {
        self.words
            .get(slot as usize / 64)
            .is_some_and(|word| word & (1 << (slot % 64)) != 0)
    }

    fn set(&mut self, slot: u32, member: bool) {
        if self.contains(slot) == member {
            return;
        }
        let word = slot as usize / 64;
        if word >= self.words.len() {
            self.words.resize(word + 1, 0);
        }
        self.words[word] ^= 1 << (slot % 64);
        if member {
            self.count += 1;
        } else {
            self.count -= 1;
        }
    }
}

/// The fields a text query searches, case-folded, with their weights.
pub(super) fn search_fields(project: &ProjectRec) -> [Field<'_>; 2] {
    [
        Field::folded(project.derived.name_folded.as_deref(), NAME_WEIGHT),
        Field::folded(project.derived.owner_name_folded.as_deref(), OWNER_WEIGHT),
    ]
}

/// One workspace's projects, numbered, with every index the inventory keeps.
pub(super) struct InventoryIndex {
    workspace: String,
    /// Slot `n`'s project (a deleted project's slot stays, and finds nothing).
    ids: Vec<Arc<str>>,
    slot_of: HashMap<Arc<str>, u32>,
    last_activity: Vec<OffsetDateTime>,
    items: Vec<Option<ItemJson>>,
    /// Each trigram of the case-folded searched fields: its slots, ascending.
    /// A rename only adds: a stale slot is a candidate the matcher turns down.
    trigrams: HashMap<[char; 3], Vec<u32>>,
    sorts: Kept<SortIndex>,
    filters: Kept<FilterIndex>,
    texts: Kept<TextIndex>,
}

/// Derived indexes of one kind, by the parameters they answer for.
type Kept<T> = Mutex<HashMap<String, Arc<T>>>;

/// Every project in the order of `sort` (scored 0), or with a `query` its
/// matches in that order (scored).
struct SortIndex {
    sort: Sort,
    query: Option<TextQuery>,
    order: Order,
}

/// The projects the filters at rest admit.
struct FilterIndex {
    filters: Filters,
    set: SlotSet,
}

/// The projects that match every term of `query`, in slot order, with their scores.
struct TextIndex {
    query: TextQuery,
    scored: Vec<(u32, u32)>,
}

impl InventoryIndex {
    /// The index of `workspace`, built when the workspace has none yet.
    fn of(data: &Data, workspace: &str) -> Arc<Self> {
        data.indexes
            .get_or_build(workspace, INDEX_NAME, || Self::build(data, workspace))
    }

    fn build(data: &Data, workspace: &str) -> Self {
        let mut index = Self {
            workspace: workspace.to_owned(),
            ids: Vec::new(),
            slot_of: HashMap::new(),
            last_activity: Vec::new(),
            items: Vec::new(),
            trigrams: HashMap::new(),
            sorts: Kept::default(),
            filters: Kept::default(),
            texts: Kept::default(),
        };
        for project in data.workspace_projects(workspace) {
            let slot = index.add_slot(&project.wire.id);
            index.refresh_slot(slot, Some(project));
        }
        index
    }

    fn add_slot(&mut self, id: &str) -> u32 {
        let slot = self.ids.len() as u32;
        let id: Arc<str> = Arc::from(id);
        self.ids.push(id.clone());
        self.slot_of.insert(id, slot);
        self.last_activity.push(OffsetDateTime::UNIX_EPOCH);
        self.items.push(None);
        slot
    }

    /// What the slot itself keeps: the last activity, the JSON, the trigrams.
    fn refresh_slot(&mut self, slot: u32, project: Option<&ProjectRec>) {
        let at = slot as usize;
        self.items[at] = project.and_then(ItemJson::of);
        let Some(project) = project else {
            return;
        };
        self.last_activity[at] = last_activity(project);
        let mut chars = Vec::new();
        let fields = [
            &project.derived.name_folded,
            &project.derived.owner_name_folded,
        ];
        for text in fields.into_iter().flatten() {
            chars.clear();
            chars.extend(text.chars());
            for gram in chars.windows(3) {
                let slots = self
                    .trigrams
                    .entry([gram[0], gram[1], gram[2]])
                    .or_default();
                if let Err(at) = slots.binary_search(&slot) {
                    slots.insert(at, slot);
                }
            }
        }
    }

    /// The project of `slot`, while it still belongs to this workspace: a
    /// slot outlives a project that left, and must never show it here.
    fn project<'d>(&self, data: &'d Data, slot: u32) -> Option<&'d ProjectRec> {
        let id = self.ids.get(slot as usize)?;
        data.projects
            .get(id.as_ref())
            .filter(|project| project.wire.workspace_id == self.workspace)
    }

    fn projects<'s, 'd>(
        &'s self,
        data: &'d Data,
    ) -> impl Iterator<Item = (u32, &'d ProjectRec)> + use<'s, 'd> {
        (0..self.ids.len() as u32)
            .filter_map(move |slot| self.project(data, slot).map(|project| (slot, project)))
    }

    /// Whether the project of `slot` is in the workspace. A slot keeps JSON
    /// only while it is (each write refreshes it): only a project kept
    /// without JSON is looked up.
    fn is_live(&self, data: &Data, slot: u32) -> bool {
        self.item(slot).is_some() || self.project(data, slot).is_some()
    }

    /// The kept JSON of the item in `slot`.
    pub(super) fn item(&self, slot: u32) -> Option<&ItemJson> {
        self.items.get(slot as usize)?.as_ref()
    }

    /// Every project in the order of `sort`, scored 0.
    fn sort_order(&self, data: &Data, sort: &Sort) -> Arc<SortIndex> {
        kept(&self.sorts, sort_name(sort), || {
            let mut keyed: Vec<(CompactKey<'_>, u32)> = self
                .projects(data)
                .map(|(slot, p)| (sort.key(p, 0, p.derived.open_pii), slot))
                .collect();
            // Keys end with the unique id: no two are equal.
            keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            SortIndex {
                sort: sort.clone(),
                query: None,
                order: keyed.into_iter().map(|(_, slot)| (slot, 0)).collect(),
            }
        })
    }

    /// The matches of `query` in the order of `sort` (scored under
    /// `relevance`): a text search walks only its matches.
    fn matches_order(
        &self,
        data: &Data,
        sort: &Sort,
        query: &TextQuery,
        matches: &TextIndex,
    ) -> Arc<SortIndex> {
        kept(&self.sorts, matches_name(sort, query), || {
            let mut keyed: Vec<(CompactKey<'_>, (u32, u32))> = matches
                .scored
                .iter()
                .filter_map(|&(slot, score)| {
                    let p = self.project(data, slot)?;
                    Some((sort.key(p, score, p.derived.open_pii), (slot, score)))
                })
                .collect();
            keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            SortIndex {
                sort: sort.clone(),
                query: Some(query.clone()),
                order: keyed.into_iter().map(|(_, entry)| entry).collect(),
            }
        })
    }

    /// The projects the filters at rest admit.
    fn admitted(&self, data: &Data, filters: &Filters) -> Arc<FilterIndex> {
        kept(&self.filters, filters_name(filters), || {
            let admitted = self
                .projects(data)
                .filter(|(_, p)| filters.admits_at_rest(p, p.derived.open_pii))
                .map(|(slot, _)| slot);
            FilterIndex {
                filters: filters.clone(),
                set: SlotSet::from_slots(admitted),
            }
        })
    }

    /// The projects that match every term of `query`, with their scores.
    fn matches(&self, data: &Data, query: &TextQuery) -> Arc<TextIndex> {
        kept(&self.texts, text_name(query), || {
            let mut candidates: Option<Vec<u32>> = None;
            for term in query.terms() {
                let chars: Vec<char> = term.chars().collect();
                for gram in chars.windows(3) {
                    let slots = self
                        .trigrams
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
                    let p = self.project(data, slot)?;
                    matcher.score(&search_fields(p)).map(|score| (slot, score))
                })
                .collect();
            TextIndex {
                query: query.clone(),
                scored,
            }
        })
    }

    /// Whether every index a page of `filters` and `sort` reads is built, so
    /// the page costs about what it shows and skips, with nothing to build.
    fn is_warm(&self, filters: &Filters, sort: &Sort) -> bool {
        let has_filter = lock(&self.filters).contains_key(&filters_name(filters));
        let order = match filters.query.as_ref().filter(|query| !query.is_blank()) {
            Some(query) => {
                lock(&self.texts).contains_key(&text_name(query))
                    && lock(&self.sorts).contains_key(&matches_name(sort, query))
            }
            None => lock(&self.sorts).contains_key(&sort_name(sort)),
        };
        has_filter && order
    }
}

/// The names the derived indexes are kept by.
fn sort_name(sort: &Sort) -> String {
    format!("{:?}:{}", sort.by, sort.descending)
}

fn matches_name(sort: &Sort, query: &TextQuery) -> String {
    format!("{:?}:{}:{:?}", sort.by, sort.descending, query.terms())
}

fn text_name(query: &TextQuery) -> String {
    format!("{:?}", query.terms())
}

fn filters_name(filters: &Filters) -> String {
    let kinds: Vec<&str> = filters.finding_types.iter().map(|kind| kind.id).collect();
    format!(
        "{:?}:{:?}:{:?}:{:?}:{:?}:{:?}:{kinds:?}",
        filters.is_published,
        filters.visibility,
        filters.has_pii,
        filters.has_connectors,
        filters.publish_audience,
        filters.review_priority,
    )
}

/// Whether a page of `params` in `workspace_id` reads only indexes already
/// built (see [`InventoryIndex::is_warm`]).
pub(super) fn is_warm(data: &Data, workspace_id: &str, params: &InventoryRequest) -> bool {
    data.indexes
        .get::<InventoryIndex>(workspace_id, INDEX_NAME)
        .is_some_and(|index| index.is_warm(&params.filters, &params.sort))
}

/// The index `name` of one kind, built by `build` when missing.
fn kept<T>(kind: &Kept<T>, name: String, build: impl FnOnce() -> T) -> Arc<T> {
    let mut all = lock(kind);
    if let Some(found) = all.get(&name) {
        return Arc::clone(found);
    }
    if all.len() >= MAX_KEPT {
        all.clear();
    }
    Arc::clone(all.entry(name).or_insert_with(|| Arc::new(build())))
}

fn lock<T>(kind: &Kept<T>) -> MutexGuard<'_, HashMap<String, Arc<T>>> {
    kind.lock().unwrap_or_else(|p| p.into_inner())
}

/// Brings each index of one kind up to date with `update`; one a reader still
/// holds is dropped (it is built again on its next use).
fn maintain<T>(kind: &mut Kept<T>, mut update: impl FnMut(&mut T)) {
    let all = kind.get_mut().unwrap_or_else(|p| p.into_inner());
    all.retain(|_, index| match Arc::get_mut(index) {
        Some(index) => {
            update(index);
            true
        }
        None => false,
    });
}

impl MaintainedIndex<Data> for InventoryIndex {
    fn project_changed(&mut self, data: &Data, project_id: &str) -> bool {
        let project = data
            .projects
            .get(project_id)
            .filter(|p| p.wire.workspace_id == self.workspace);
        let slot = match (self.slot_of.get(project_id), project) {
            (Some(&slot), _) => slot,
            (None, Some(_)) => self.add_slot(project_id),
            (None, None) => return true,
        };
        self.refresh_slot(slot, project);
        // Texts first: a relevance order reads the new score.
        maintain(&mut self.texts, |text| {
            let score = project.and_then(|p| text.query.matcher().score(&search_fields(p)));
            match (text.scored.binary_search_by_key(&slot, |m| m.0), score) {
                (Ok(at), Some(score)) => text.scored[at].1 = score,
                (Ok(at), None) => {
                    text.scored.remove(at);
                }
                (Err(at), Some(score)) => text.scored.insert(at, (slot, score)),
                (Err(_), None) => {}
            }
        });
        maintain(&mut self.filters, |filter| {
            let admitted =
                project.is_some_and(|p| filter.filters.admits_at_rest(p, p.derived.open_pii));
            filter.set.set(slot, admitted);
        });
        let ids = &self.ids;
        let by_slot = |slot: u32| data.projects.get(ids.get(slot as usize)?.as_ref());
        maintain(&mut self.sorts, |index| {
            if let Some(at) = index.order.iter().position(|entry| entry.0 == slot) {
                index.order.remove(at);
            }
            let score = match &index.query {
                None => project.map(|_| 0),
                Some(query) => project.and_then(|p| query.matcher().score(&search_fields(p))),
            };
            let (Some(p), Some(score)) = (project, score) else {
                return;
            };
            let sort = &index.sort;
            let key = sort.key(p, score, p.derived.open_pii);
            let at = index.order.partition_point(|&(other, other_score)| {
                by_slot(other).is_some_and(|o| sort.key(o, other_score, o.derived.open_pii) < key)
            });
            index.order.insert(at, (slot, score));
        });
        true
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

/// A page of the inventory: the index it came from, the slots of its items
/// in list order, the pagination and the number of projects the filters admit.
pub(super) struct Selected<'d> {
    index: Arc<InventoryIndex>,
    data: &'d Data,
    pub slots: Vec<u32>,
    pub pagination: Pagination,
    pub total: i64,
}

impl Selected<'_> {
    /// About how long the page's items are: what the page reserves.
    pub(super) fn items_len(&self) -> usize {
        let len = |slot: &u32| self.index.item(*slot).map_or(2048, ItemJson::len);
        self.slots.iter().map(len).sum()
    }

    /// Writes the item of `slot` from its kept JSON and the kept last
    /// activity: the project itself is read only for the reason of an applied
    /// finding type, or for an item kept without JSON.
    pub(super) fn write_item(
        &self,
        out: &mut Vec<u8>,
        slot: u32,
        now: OffsetDateTime,
        applied: Option<&FindingKind>,
    ) -> Result<(), HttpError> {
        let unserializable = |_| HttpError::internal("the inventory page did not serialize");
        let kept = self.index.item(slot);
        let last = self.index.last_activity.get(slot as usize);
        if let (Some(kept), Some(last), None) = (kept, last, applied) {
            let group = activity_group_at(*last, now);
            return item::write_kept(out, kept, &group, None).map_err(unserializable);
        }
        let project = self
            .index
            .project(self.data, slot)
            .ok_or_else(|| HttpError::internal("an inventory item's project is gone"))?;
        item::write_item(out, kept, project, now, applied).map_err(unserializable)
    }

    #[cfg(test)]
    pub(super) fn index(&self) -> &InventoryIndex {
        &self.index
    }

    /// The page's projects, in order.
    #[cfg(test)]
    pub(super) fn projects(&self) -> Vec<(u32, &ProjectRec)> {
        let project = |&slot: &u32| Some((slot, self.index.project(self.data, slot)?));
        self.slots.iter().filter_map(project).collect()
    }
}

/// The page of `params` after the cursor of `request`: the order walked from
/// the cursor, each project admitted read from the index alone, so a page
/// costs about what it shows and skips (a project's record is read only for
/// the cursor's key and the binary search that finds it).
pub(super) fn select<'d>(
    data: &'d Data,
    workspace_id: &str,
    params: &InventoryRequest,
    now: OffsetDateTime,
    request: &PageRequest,
    secret: &[u8],
    binding: &str,
) -> Result<Selected<'d>, HttpError> {
    let index = InventoryIndex::of(data, workspace_id);
    let filters = &params.filters;
    let sort = &params.sort;
    // A query whose terms are all too short filters nothing and scores 0.
    let query = filters.query.as_ref().filter(|query| !query.is_blank());
    let matches = query.map(|query| index.matches(data, query));
    let admitted = index.admitted(data, filters);
    let order = match (query, &matches) {
        (Some(query), Some(matches)) => index.matches_order(data, sort, query, matches),
        _ => index.sort_order(data, sort),
    };
    let order = &order.order;
    let admits = |slot: u32| {
        admitted.set.contains(slot)
            && index
                .last_activity
                .get(slot as usize)
                .is_some_and(|last| filters.admits_activity(*last, now))
            && index.is_live(data, slot)
    };
    let key = |&(slot, score): &(u32, u32)| {
        index
            .project(data, slot)
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
    let picked: Vec<(u32, u32)> = order[start..]
        .iter()
        .copied()
        .filter(|&(slot, _)| admits(slot))
        .take(request.limit + 1)
        .collect();
    let total = match &matches {
        Some(matches) => matches
            .scored
            .iter()
            .filter(|(slot, _)| admits(*slot))
            .count(),
        None if filters.activity_groups.is_empty() => admitted.set.count,
        None => (0..index.ids.len() as u32)
            .filter(|&slot| admits(slot))
            .count(),
    };
    let (page, pagination) = paginate_in_order(picked, request.limit, key, secret, binding)?;
    Ok(Selected {
        slots: page.into_iter().map(|(slot, _)| slot).collect(),
        index,
        data,
        pagination,
        total: total as i64,
    })
}
