//! Which snapshots a `snapshot prune --keep-*` keeps, as restic and borg
//! decide it: walking from the newest, `--keep-last N` keeps the N newest,
//! `--keep-daily N` the newest of each of the N newest days that hold a
//! snapshot, `--keep-weekly` of ISO weeks, `--keep-monthly` of months (days,
//! weeks and months in UTC). A snapshot any rule keeps is kept, and so is one
//! that a standing mark or a waiver needs, whatever the rules say.

use std::collections::BTreeMap;

use time::OffsetDateTime;

use super::model::SnapshotInfo;

/// How many of each to keep.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KeepPolicy {
    pub last: u32,
    pub daily: u32,
    pub weekly: u32,
    pub monthly: u32,
}

impl KeepPolicy {
    /// Whether no rule keeps anything: a prune would remove every snapshot
    /// no mark needs, so it is refused.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// Why a snapshot stays.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum KeepReason {
    Last,
    Daily,
    Weekly,
    Monthly,
    /// A standing reviewed mark of this project holds the state it reviewed
    /// from this snapshot.
    Marked(String),
    /// A standing waiver refers to it (what it is called: [`waiver_name`]).
    Waived(String),
}

/// What a waiver holds, on both stores: while it stands (the newest of its
/// policy and project, and its `until` not passed), the snapshot it was given
/// against — the newest taken by then that held its project, the state whose
/// violation it accepted. A waiver given before any snapshot held its project
/// holds none; one that ran out, or that a newer waiver stands in for, no
/// longer holds its own.
pub fn waiver_name(policy_id: &str, project_id: &str) -> String {
    format!("{policy_id} for project {project_id}")
}

impl KeepReason {
    /// As `snapshot prune` says it.
    pub fn describe(&self) -> String {
        match self {
            Self::Last => "last".into(),
            Self::Daily => "daily".into(),
            Self::Weekly => "weekly".into(),
            Self::Monthly => "monthly".into(),
            Self::Marked(project) => format!(
                "the reviewed mark of project {}",
                crate::text::escape_invisible(project)
            ),
            Self::Waived(waiver) => format!("waiver {}", crate::text::escape_invisible(waiver)),
        }
    }

    /// Kept by a rule of the policy, not by what refers to it.
    pub fn is_rule(&self) -> bool {
        matches!(
            self,
            Self::Last | Self::Daily | Self::Weekly | Self::Monthly
        )
    }
}

/// A snapshot and whether it stays: removed when `kept` is empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub snapshot: SnapshotInfo,
    pub kept: Vec<KeepReason>,
}

/// What a prune did, or would do (`--dry-run`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PruneOutcome {
    /// Oldest first.
    pub verdicts: Vec<Verdict>,
    /// Whether the removals were made.
    pub applied: bool,
}

impl PruneOutcome {
    pub fn removed(&self) -> impl Iterator<Item = &SnapshotInfo> {
        self.verdicts
            .iter()
            .filter(|verdict| verdict.kept.is_empty())
            .map(|verdict| &verdict.snapshot)
    }
}

/// The bucket a rule sorts a snapshot into.
type Bucket = fn(OffsetDateTime) -> (i32, u32);

/// A rule as the walk applies it: how many buckets are left to keep, its
/// bucket, why it keeps, and the bucket it kept last.
struct Rule {
    left: u32,
    bucket: Bucket,
    reason: KeepReason,
    seen: Option<(i32, u32)>,
}

fn day(at: OffsetDateTime) -> (i32, u32) {
    (at.year(), u32::from(at.ordinal()))
}

fn week(at: OffsetDateTime) -> (i32, u32) {
    let (year, week, _) = at.to_iso_week_date();
    (year, u32::from(week))
}

fn month(at: OffsetDateTime) -> (i32, u32) {
    (at.year(), u32::from(u8::from(at.month())))
}

/// Decides for each of `snapshots` (of one workspace, any order); `held`:
/// the snapshots something refers to, with why. Returned oldest first.
pub fn decide(
    snapshots: &[SnapshotInfo],
    policy: KeepPolicy,
    held: &[(i64, KeepReason)],
) -> Vec<Verdict> {
    let mut newest_first: Vec<&SnapshotInfo> = snapshots.iter().collect();
    newest_first.sort_by(|a, b| b.taken_at.cmp(&a.taken_at).then(b.id.cmp(&a.id)));
    let mut kept: BTreeMap<i64, Vec<KeepReason>> = BTreeMap::new();
    let mut last_left = policy.last;
    let rule = |left, bucket, reason| Rule {
        left,
        bucket,
        reason,
        seen: None,
    };
    let mut rules = [
        rule(policy.daily, day as Bucket, KeepReason::Daily),
        rule(policy.weekly, week, KeepReason::Weekly),
        rule(policy.monthly, month, KeepReason::Monthly),
    ];
    for snapshot in &newest_first {
        let reasons = kept.entry(snapshot.id).or_default();
        if last_left > 0 {
            last_left -= 1;
            reasons.push(KeepReason::Last);
        }
        let at = snapshot.taken_at.to_offset(time::UtcOffset::UTC);
        for rule in &mut rules {
            let this = (rule.bucket)(at);
            if rule.left > 0 && rule.seen != Some(this) {
                rule.left -= 1;
                rule.seen = Some(this);
                reasons.push(rule.reason.clone());
            }
        }
    }
    for (id, reason) in held {
        if let Some(reasons) = kept.get_mut(id) {
            reasons.push(reason.clone());
        }
    }
    newest_first
        .into_iter()
        .rev()
        .map(|snapshot| Verdict {
            snapshot: snapshot.clone(),
            kept: kept.remove(&snapshot.id).unwrap_or_default(),
        })
        .collect()
}

/// `doomed` without the snapshots in `held` (what a mark or a waiver refers
/// to stays): what a prune or a forget removes, in both stores.
pub(crate) fn unheld(
    doomed: impl IntoIterator<Item = i64>,
    held: &[(i64, KeepReason)],
) -> Vec<i64> {
    let held: std::collections::HashSet<i64> = held.iter().map(|(id, _)| *id).collect();
    doomed.into_iter().filter(|id| !held.contains(id)).collect()
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    fn at(taken_at: OffsetDateTime, id: i64) -> SnapshotInfo {
        SnapshotInfo {
            id,
            workspace_id: "ws".into(),
            taken_at,
            projects: 0,
            members: 0,
        }
    }

    /// Two snapshots a day for 70 days from Monday 2026-01-05.
    fn twice_daily() -> Vec<SnapshotInfo> {
        let start = datetime!(2026-01-05 06:00 UTC);
        (0..140)
            .map(|n| at(start + time::Duration::hours(12 * n), n + 1))
            .collect()
    }

    fn kept_ids(verdicts: &[Verdict], reason: &KeepReason) -> Vec<i64> {
        verdicts
            .iter()
            .filter(|v| v.kept.contains(reason))
            .map(|v| v.snapshot.id)
            .collect()
    }

    #[test]
    fn each_rule_keeps_the_newest_of_its_buckets() {
        let snapshots = twice_daily();
        let policy = KeepPolicy {
            last: 3,
            daily: 4,
            weekly: 2,
            monthly: 2,
        };
        let verdicts = decide(&snapshots, policy, &[]);
        assert_eq!(kept_ids(&verdicts, &KeepReason::Last), [138, 139, 140]);
        // The evening snapshot of each of the four newest days.
        assert_eq!(
            kept_ids(&verdicts, &KeepReason::Daily),
            [134, 136, 138, 140]
        );
        // Day 70 is Sunday 2026-03-15: its week's newest, and the week before's.
        assert_eq!(kept_ids(&verdicts, &KeepReason::Weekly), [126, 140]);
        // March's newest, February's newest (the evening of 2026-02-28).
        assert_eq!(kept_ids(&verdicts, &KeepReason::Monthly), [110, 140]);
        let kept = verdicts.iter().filter(|v| !v.kept.is_empty()).count();
        assert_eq!(kept, 7);
        assert_eq!(verdicts.len(), 140);
        assert_eq!(verdicts[0].snapshot.id, 1, "oldest first");
    }

    #[test]
    fn a_snapshot_something_refers_to_stays_with_its_reason() {
        let snapshots = twice_daily();
        let policy = KeepPolicy {
            last: 1,
            ..KeepPolicy::default()
        };
        let held = [
            (5, KeepReason::Marked("p1".into())),
            (9, KeepReason::Waived("w1".into())),
        ];
        let verdicts = decide(&snapshots, policy, &held);
        let kept: Vec<(i64, Vec<KeepReason>)> = verdicts
            .iter()
            .filter(|v| !v.kept.is_empty())
            .map(|v| (v.snapshot.id, v.kept.clone()))
            .collect();
        assert_eq!(
            kept,
            [
                (5, vec![KeepReason::Marked("p1".into())]),
                (9, vec![KeepReason::Waived("w1".into())]),
                (140, vec![KeepReason::Last]),
            ]
        );
    }
}
