//! The poller's own health, per source: `vantage_up` (as `mysql_up` and
//! blackbox's `probe_success`), when each source last answered (a timestamp,
//! not an age, so the series do not change between polls), and its failed and
//! deferred polls.

use std::collections::BTreeMap;

use time::OffsetDateTime;

use super::Scope;
use super::families::{Families, Family, Floats};
use crate::exporter::cache::{Snapshot, Source};

const UP: (&str, &str) = (
    "up",
    "1 if the source's last poll of the API answered, 0 if it failed or never answered",
);
const LAST_SUCCESS: (&str, &str) = (
    "last_success_timestamp_seconds",
    "When the source's poll of the API last answered, in seconds since the Unix epoch",
);
const WALK_PAGES: (&str, &str) = (
    "inventory_walk_pages",
    "Pages of the inventory walk in progress answered so far; absent when no walk runs",
);
const WALK_STARTED: (&str, &str) = (
    "inventory_walk_start_timestamp_seconds",
    "When the inventory walk in progress started, in seconds since the Unix epoch; absent when no walk runs",
);
const WALK_COMPLETED: (&str, &str) = (
    "inventory_walk_completed_timestamp_seconds",
    "When the inventory walk whose tally is on show completed, in seconds since the Unix epoch",
);

/// A time as the timestamps write it: whole milliseconds (the clocks are no
/// finer, and the text stays short).
fn seconds(at: OffsetDateTime) -> f64 {
    (at.unix_timestamp_nanos() / 1_000_000) as f64 / 1000.0
}

/// The inventory walk: its progress while one runs (pages, started at), and
/// when the tally on show was completed. Timestamps, not ages, as the
/// Prometheus guides ask, so a walk's series change only with its pages.
fn add_walk(families: &mut Families, scopes: &[Scope<'_>]) {
    for scope in scopes {
        if let Some(walk) = scope.snapshot.walk {
            let pages = i64::try_from(walk.pages).unwrap_or(i64::MAX);
            families.gauge(WALK_PAGES.0, WALK_PAGES.1, scope.labels(&[]), pages);
        }
    }
    for scope in scopes {
        if let Some(walk) = scope.snapshot.walk {
            let started = seconds(walk.started_at);
            families.float(WALK_STARTED.0, WALK_STARTED.1, scope.labels(&[]), started);
        }
    }
    for scope in scopes {
        if let Some(at) = scope.snapshot.walk_completed_at {
            let labels = scope.labels(&[]);
            families.float(WALK_COMPLETED.0, WALK_COMPLETED.1, labels, seconds(at));
        }
    }
}

/// A snapshot's counts by source, of one counter family.
type CountsOf = fn(&Snapshot) -> &BTreeMap<Source, u64>;

/// Family by family, so each family's samples stay together whatever the
/// number of contexts.
pub(super) fn add_poll(families: &mut Families, scopes: &[Scope<'_>]) {
    for scope in scopes {
        let snapshot = scope.snapshot;
        for source in snapshot.polled.keys() {
            families.gauge(
                UP.0,
                UP.1,
                scope.labels(&[("source", source.as_str())]),
                i64::from(snapshot.up(*source)),
            );
        }
    }
    for scope in scopes {
        families.family(LAST_SUCCESS.0, LAST_SUCCESS.1, || {
            Family::Floats(Floats::default())
        });
        for (source, at) in &scope.snapshot.fetched_at {
            families.float(
                LAST_SUCCESS.0,
                LAST_SUCCESS.1,
                scope.labels(&[("source", source.as_str())]),
                seconds(*at),
            );
        }
    }
    add_walk(families, scopes);
    // Every source, 0 for one that never failed or waited.
    let counted: [(&str, &str, CountsOf); 2] = [
        (
            "poll_errors",
            "Polls of the API that failed, by source",
            |snapshot| &snapshot.poll_errors,
        ),
        (
            "polls_deferred",
            "Polls left for a later cycle to keep the rate-limit reserve, by source",
            |snapshot| &snapshot.polls_deferred,
        ),
    ];
    for (name, help, counts_of) in counted {
        for scope in scopes {
            let counts = counts_of(scope.snapshot);
            let every_source = Source::ALL
                .map(|source| (source.as_str(), counts.get(&source).copied().unwrap_or(0)));
            families.samples(
                name,
                help,
                scope.each("source", every_source),
                Families::counter,
            );
        }
    }
}
