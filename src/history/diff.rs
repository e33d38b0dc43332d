//! The changes between two snapshots: one item per change, each of a kind
//! from a fixed list, ordered by seriousness.

use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap, HashSet};

use serde::Serialize;
use serde_json::{Value, json};
use time::OffsetDateTime;

pub use super::model::{ChangeKind, Severity};
use super::model::{FieldOf, MemberState, PROJECT_TEXTS, ProjectState, Snapshot};
use crate::api::model::ReviewPriority;

/// One change between two snapshots.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub kind: ChangeKind,
    /// The project's id, or the member's user id.
    pub id: String,
    /// The project's or member's name (the newer one when both are known).
    pub name: Option<String>,
    pub before: Value,
    pub after: Value,
    pub before_snapshot: i64,
    #[serde(with = "crate::timefmt::serde_rfc3339")]
    pub before_at: OffsetDateTime,
    pub after_snapshot: i64,
    #[serde(with = "crate::timefmt::serde_rfc3339")]
    pub after_at: OffsetDateTime,
}

/// Seriousness of a review priority: higher needs review more.
fn priority_level(raw: &str) -> u8 {
    match ReviewPriority::parse(raw) {
        ReviewPriority::NeedsReview => 3,
        ReviewPriority::ReviewRecommended => 2,
        ReviewPriority::NoReviewNeeded => 1,
        ReviewPriority::Unscored | ReviewPriority::Unknown(_) => 0,
    }
}

fn text(value: &Option<String>) -> Value {
    value.as_ref().map_or(Value::Null, |text| json!(text))
}

/// `up` when `after` stands above `before`, `down` when below.
fn direction<T: Ord>(before: T, after: T, up: ChangeKind, down: ChangeKind) -> Option<ChangeKind> {
    match after.cmp(&before) {
        Ordering::Greater => Some(up),
        Ordering::Less => Some(down),
        Ordering::Equal => None,
    }
}

/// A project's set: a change for each value added, and for each value
/// removed where `removed` names a kind.
struct ProjectSet {
    added: ChangeKind,
    removed: Option<ChangeKind>,
    values: FieldOf<[String]>,
}

const PROJECT_SETS: &[ProjectSet] = &[
    ProjectSet {
        added: ChangeKind::FindingTypeAdded,
        removed: Some(ChangeKind::FindingTypeRemoved),
        values: |project| &project.finding_types,
    },
    ProjectSet {
        added: ChangeKind::ConnectorAdded,
        removed: None,
        values: |project| &project.connectors,
    },
    ProjectSet {
        added: ChangeKind::EdgeFunctionAdded,
        removed: None,
        values: |project| &project.edge_functions,
    },
];

/// Values of `values` that `other` lacks.
fn missing_from<'v>(values: &'v [String], other: &[String]) -> impl Iterator<Item = &'v String> {
    let other: BTreeSet<&String> = other.iter().collect();
    values.iter().filter(move |value| !other.contains(value))
}

/// Who a change is about: a project or a member, by id and name.
#[derive(Clone, Copy)]
struct Subject<'s> {
    id: &'s str,
    name: Option<&'s String>,
}

impl<'s> Subject<'s> {
    fn project(project: &'s ProjectState) -> Self {
        Self {
            id: &project.id,
            name: project.name.as_ref(),
        }
    }

    fn member(member: &'s MemberState) -> Self {
        Self {
            id: &member.user_id,
            name: member.name.as_ref(),
        }
    }

    /// The newer state's id, and its name, else the older one's.
    fn kept(self, older: Self) -> Self {
        Self {
            id: self.id,
            name: self.name.or(older.name),
        }
    }
}

struct Builder<'a> {
    before: &'a Snapshot,
    after: &'a Snapshot,
    changes: Vec<Change>,
}

impl Builder<'_> {
    fn push(&mut self, kind: ChangeKind, subject: Subject<'_>, before: Value, after: Value) {
        self.changes.push(Change {
            kind,
            id: subject.id.to_owned(),
            name: subject.name.cloned(),
            before,
            after,
            before_snapshot: self.before.info.id,
            before_at: self.before.info.taken_at,
            after_snapshot: self.after.info.id,
            after_at: self.after.info.taken_at,
        });
    }

    fn project(&mut self, old: &ProjectState, new: &ProjectState) {
        let subject = Subject::project(new).kept(Subject::project(old));
        for (kind, field) in PROJECT_TEXTS {
            let (before, after) = (field(old), field(new));
            if before != after {
                self.push(kind.clone(), subject, text(before), text(after));
            }
        }
        match (old.is_published, new.is_published) {
            (false, true) => self.push(
                ChangeKind::Published,
                subject,
                Value::Null,
                text(&new.audience),
            ),
            (true, false) => self.push(
                ChangeKind::Unpublished,
                subject,
                text(&old.audience),
                Value::Null,
            ),
            (true, true) => {
                if old.audience != new.audience {
                    self.push(
                        ChangeKind::AudienceChanged,
                        subject,
                        text(&old.audience),
                        text(&new.audience),
                    );
                } else if let (Some(before), Some(after)) =
                    (&old.audience_targets, &new.audience_targets)
                    && before != after
                {
                    self.push(
                        ChangeKind::AudienceTargetsChanged,
                        subject,
                        json!(before),
                        json!(after),
                    );
                }
            }
            (false, false) => {}
        }
        if let Some(kind) = direction(
            priority_level(&old.review_priority),
            priority_level(&new.review_priority),
            ChangeKind::PriorityRaised,
            ChangeKind::PriorityLowered,
        ) {
            let (before, after) = (&old.review_priority, &new.review_priority);
            self.push(kind, subject, json!(before), json!(after));
        }
        if let (Some(before), Some(after)) = (old.pii_open, new.pii_open)
            && let Some(kind) = direction(
                before,
                after,
                ChangeKind::PiiOpenIncreased,
                ChangeKind::PiiOpenDecreased,
            )
        {
            self.push(kind, subject, json!(before), json!(after));
        }
        for set in PROJECT_SETS {
            let (before, after) = ((set.values)(old), (set.values)(new));
            for value in missing_from(after, before) {
                self.push(set.added.clone(), subject, Value::Null, json!(value));
            }
            if let Some(removed) = &set.removed {
                for value in missing_from(before, after) {
                    self.push(removed.clone(), subject, json!(value), Value::Null);
                }
            }
        }
    }

    fn member(&mut self, old: &MemberState, new: &MemberState) {
        if let (Some(before), Some(after)) = (&old.role, &new.role)
            && before != after
        {
            let subject = Subject::member(new).kept(Subject::member(old));
            self.push(
                ChangeKind::RoleChanged,
                subject,
                json!(before),
                json!(after),
            );
        }
    }

    /// The changes between two lists: arrivals, departures, and `kept`'s
    /// changes of each item both hold with a difference.
    fn lists<T: Tracked>(&mut self, before: &[T], after: &[T], kept: fn(&mut Self, &T, &T)) {
        for pairing in pair_by_key(before, after) {
            match pairing {
                Pairing::Kept { old, new } if old == new => {}
                Pairing::Kept { old, new } => kept(self, old, new),
                Pairing::Added(item) => {
                    self.push(T::ADDED, item.subject(), Value::Null, item.shown())
                }
                Pairing::Removed(item) => {
                    self.push(T::REMOVED, item.subject(), item.shown(), Value::Null)
                }
            }
        }
    }
}

/// A project or a member, as a list of a snapshot holds it.
trait Tracked: PartialEq {
    /// What its arrival and its departure are called.
    const ADDED: ChangeKind;
    const REMOVED: ChangeKind;
    fn key(&self) -> &str;
    fn subject(&self) -> Subject<'_>;
    /// The value shown after an arrival, and before a departure.
    fn shown(&self) -> Value;
}

impl Tracked for ProjectState {
    const ADDED: ChangeKind = ChangeKind::ProjectAdded;
    const REMOVED: ChangeKind = ChangeKind::ProjectRemoved;

    fn key(&self) -> &str {
        &self.id
    }

    fn subject(&self) -> Subject<'_> {
        Subject::project(self)
    }

    fn shown(&self) -> Value {
        text(&self.name)
    }
}

impl Tracked for MemberState {
    const ADDED: ChangeKind = ChangeKind::MemberJoined;
    const REMOVED: ChangeKind = ChangeKind::MemberLeft;

    fn key(&self) -> &str {
        &self.user_id
    }

    fn subject(&self) -> Subject<'_> {
        Subject::member(self)
    }

    fn shown(&self) -> Value {
        text(&self.role)
    }
}

/// An item of two lists matched by its key.
enum Pairing<'a, T> {
    Kept { old: &'a T, new: &'a T },
    Added(&'a T),
    Removed(&'a T),
}

/// The items of `after` (kept or added), then those only `before` holds.
fn pair_by_key<'a, T: Tracked>(before: &'a [T], after: &'a [T]) -> Vec<Pairing<'a, T>> {
    let key = T::key;
    let old: HashMap<&str, &T> = before.iter().map(|item| (key(item), item)).collect();
    let new: HashSet<&str> = after.iter().map(key).collect();
    let mut pairs: Vec<Pairing<'a, T>> = after
        .iter()
        .map(|item| match old.get(key(item)) {
            Some(&old) => Pairing::Kept { old, new: item },
            None => Pairing::Added(item),
        })
        .collect();
    pairs.extend(
        before
            .iter()
            .filter(|item| !new.contains(key(item)))
            .map(Pairing::Removed),
    );
    pairs
}

/// Every change from `before` to `after`, the most serious kinds first, then
/// by name and id.
pub fn diff(before: &Snapshot, after: &Snapshot) -> Vec<Change> {
    let mut builder = Builder {
        before,
        after,
        changes: Vec::new(),
    };
    builder.lists(&before.projects, &after.projects, Builder::project);
    builder.lists(&before.members, &after.members, Builder::member);
    let mut changes = builder.changes;
    changes.sort_by(|a, b| {
        a.kind
            .seriousness_rank()
            .cmp(&b.kind.seriousness_rank())
            .then_with(|| a.name.cmp(&b.name))
            .then_with(|| a.id.cmp(&b.id))
    });
    changes
}

#[cfg(test)]
mod severity_tests {
    use super::{ChangeKind, Severity};

    /// The table groups kinds most serious first: no kind is more severe
    /// than one declared before it.
    #[test]
    fn severity_never_rises_down_the_declared_order() {
        for pair in ChangeKind::KNOWN.windows(2) {
            assert!(
                pair[0].severity() <= pair[1].severity(),
                "{} is declared before {} but is less severe",
                pair[0].as_str(),
                pair[1].as_str()
            );
        }
        assert_eq!(ChangeKind::Published.severity(), Severity::Exposure);
        assert_eq!(ChangeKind::OwnerChanged.severity(), Severity::Notable);
        assert_eq!(ChangeKind::Unpublished.severity(), Severity::Routine);
        let unknown = ChangeKind::parse("made_up_kind");
        assert_eq!(unknown.severity(), Severity::Routine);
    }
}
