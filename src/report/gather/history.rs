//! The report's reads of the review history: the posture of every snapshot
//! (for the charts over time), the changes since `--since`, the marks that
//! stand and the review log's entries in the period.

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use time::OffsetDateTime;

use super::{ChangesSince, HistoryPart, Origin, Part, SnapshotPosture, Source};
use crate::history::{
    HistoryError, LogRead, ReviewAction, ReviewEntry, SnapshotInfo, SnapshotRef, Store,
};

/// Which snapshot "what changed" starts from, and why that one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SincePick {
    /// Named with `--since`.
    Given,
    /// The last snapshot before the newest during which someone reviewed
    /// (a mark was made between it and the next one).
    LastReviewed,
    /// No snapshot was reviewed: the one before the newest.
    Previous,
}

/// What the history part reads.
pub struct HistoryInput<'a> {
    pub store: &'a Store,
    pub workspace_id: &'a str,
    /// `--since`; `None`: the default rule ([`SincePick`]).
    pub since: Option<SnapshotRef>,
}

/// Reads the history's part of the report. A history without snapshots is a
/// part with what it has (marks, log) and the changes said missing.
pub fn gather_history(
    input: &HistoryInput<'_>,
    now: OffsetDateTime,
) -> Result<Part<HistoryPart>, HistoryError> {
    let store = input.store;
    let workspace = input.workspace_id;
    let snapshots = store.list(workspace)?;
    let log = store.review_log(workspace, None, LogRead::Shown)?;
    let marks = store.reviewed_marks(workspace)?;
    let posture = posture_over_time(store, &snapshots, &log)?;
    let changes = match pick_since(&snapshots, &log, input.since.as_ref())? {
        Ok((since, picked)) => {
            let until = snapshots
                .last()
                .cloned()
                .ok_or_else(|| HistoryError::Corrupt("no newest snapshot".into()))?;
            let changes = store.changes(&since, &until)?;
            Part::Present {
                source: Source {
                    origin: Origin::History {
                        store: store.describe(),
                    },
                    as_of: Some(until.taken_at),
                    read_at: now,
                },
                value: ChangesSince {
                    since,
                    until,
                    picked,
                    changes,
                },
            }
        }
        Err(reason) => Part::missing(reason),
    };
    let log_since = changes.value().map(|changes| changes.since.taken_at);
    let log = log
        .into_iter()
        .filter(|entry| log_since.is_none_or(|since| entry.at >= since))
        .collect();
    Ok(Part::Present {
        source: Source {
            origin: Origin::History {
                store: store.describe(),
            },
            as_of: snapshots.last().map(|newest| newest.taken_at),
            read_at: now,
        },
        value: HistoryPart {
            posture,
            changes,
            marks,
            log,
            log_since,
        },
    })
}

/// The snapshot to compare the newest with: `--since`, else the last one
/// before the newest that someone reviewed, else the previous one. `Err`
/// holds why there is none, for the report to say.
fn pick_since(
    snapshots: &[SnapshotInfo],
    log: &[ReviewEntry],
    given: Option<&SnapshotRef>,
) -> Result<Result<(SnapshotInfo, SincePick), String>, HistoryError> {
    let Some(newest) = snapshots.last() else {
        return Ok(Err(
            "no snapshot in the history yet: run `vantage snapshot`, then again later".into(),
        ));
    };
    let earlier = &snapshots[..snapshots.len() - 1];
    if let Some(given) = given {
        let found = match given {
            SnapshotRef::Last | SnapshotRef::Previous => earlier.last(),
            SnapshotRef::Id(id) => snapshots.iter().find(|s| s.id == *id),
            SnapshotRef::At(at) => snapshots.iter().rev().find(|s| s.taken_at <= *at),
        };
        return Ok(match found {
            Some(found) => Ok((found.clone(), SincePick::Given)),
            None => Err(format!(
                "--since names no snapshot of this workspace (see `vantage snapshot list`; the newest is {})",
                newest.id
            )),
        });
    }
    let marked: Vec<OffsetDateTime> = log
        .iter()
        .filter(|entry| entry.action == ReviewAction::Mark)
        .map(|entry| entry.at)
        .collect();
    let reviewed = earlier.iter().enumerate().rev().find(|(index, snapshot)| {
        let next = &snapshots[index + 1];
        marked
            .iter()
            .any(|at| *at >= snapshot.taken_at && *at < next.taken_at)
    });
    Ok(match (reviewed, earlier.last()) {
        (Some((_, snapshot)), _) => Ok((snapshot.clone(), SincePick::LastReviewed)),
        (None, Some(previous)) => Ok((previous.clone(), SincePick::Previous)),
        (None, None) => Err(format!(
            "one snapshot only ({} UTC): nothing to compare it with yet",
            crate::timefmt::date_time(newest.taken_at)
        )),
    })
}

/// Each snapshot's posture: needs review, published, public with open
/// personal data, and how many of its projects had a standing mark then.
/// Read in one query from the summaries written with the snapshots; a
/// snapshot recorded before its summary counted public with personal data
/// has its states counted instead.
fn posture_over_time(
    store: &Store,
    snapshots: &[SnapshotInfo],
    log: &[ReviewEntry],
) -> Result<Vec<SnapshotPosture>, HistoryError> {
    let workspace = snapshots.first().map(|first| first.workspace_id.as_str());
    let summaries: HashMap<i64, crate::history::posture::Posture> = match workspace {
        Some(workspace) => store
            .posture(workspace)?
            .into_iter()
            .map(|at| (at.snapshot, at.posture))
            .collect(),
        None => HashMap::new(),
    };
    let mut posture = Vec::with_capacity(snapshots.len());
    let mut standing: HashSet<&str> = HashSet::new();
    let mut entries = log.iter().peekable();
    for snapshot in snapshots {
        // Replay the log up to the snapshot's time: the marks standing then.
        while let Some(entry) = entries.next_if(|entry| entry.at <= snapshot.taken_at) {
            match entry.action {
                ReviewAction::Mark => standing.insert(entry.project_id.as_str()),
                ReviewAction::Unmark => standing.remove(entry.project_id.as_str()),
                // A waiver never touches a mark.
                ReviewAction::Waive => false,
            };
        }
        if let Some(summary) = summaries.get(&snapshot.id)
            && let Some(public_with_pii) = summary.public_with_pii
        {
            let count = |value: i64| u64::try_from(value).unwrap_or(0);
            posture.push(SnapshotPosture {
                snapshot: snapshot.clone(),
                needs_review: count(
                    summary
                        .by_priority
                        .get("needs_review")
                        .copied()
                        .unwrap_or(0),
                ),
                published: count(summary.published),
                public_with_pii: count(public_with_pii),
                reviewed: count(summary.reviewed),
            });
            continue;
        }
        let projects = store.projects(snapshot.id)?;
        let mut counts = HashMap::<&str, u64>::new();
        let mut reviewed = 0;
        for project in &projects {
            let mut count = |what| *counts.entry(what).or_default() += 1;
            if project.review_priority == "needs_review" {
                count("needs_review");
            }
            if project.is_published {
                count("published");
                if project.audience.as_deref() == Some("public")
                    && project.pii_open.is_some_and(|open| open > 0)
                {
                    count("public_with_pii");
                }
            }
            if standing.contains(project.id.as_str()) {
                reviewed += 1;
            }
        }
        let get = |what| counts.get(what).copied().unwrap_or(0);
        posture.push(SnapshotPosture {
            snapshot: snapshot.clone(),
            needs_review: get("needs_review"),
            published: get("published"),
            public_with_pii: get("public_with_pii"),
            reviewed,
        });
    }
    Ok(posture)
}
