//! The history at launch: the newest snapshot's insights and first inventory
//! page for the first frame (read before it, from a local file: milliseconds),
//! and whether a background snapshot is due. A history that cannot be read is
//! one line in the error log; the dashboard starts without it, or, when a
//! shared history is out of reach, starts live and tries it again.

use time::OffsetDateTime;

use crate::history::{HistoryConfig, HistoryError, HistoryLocation, Store};
use crate::tui::app::{App, SnapshotSeed};
use crate::tui::effect::{ErrorInfo, ErrorKind};

/// Prepares `app` to draw the snapshot's data at once (blocking: off the
/// runtime, or in a test); true when the history
/// file opened (the App then asks it for marks, changes and snapshots).
pub fn prepare(
    app: &mut App,
    location: &HistoryLocation,
    config: &HistoryConfig,
    workspace_id: &str,
    now: OffsetDateTime,
) -> bool {
    apply(app, read_start(location, config, workspace_id, now), now)
}

/// The history as read for a context's first frame (at launch, or on a
/// switch, off the event loop), before the App it goes to exists.
#[derive(Debug, Clone)]
pub enum HistoryStart {
    Read {
        seed: Option<SnapshotSeed>,
        /// The newest snapshot is older than `snapshot_max_age`.
        due: bool,
    },
    /// Not read: why, and whether the history is out of reach (the
    /// dashboard then runs live and tries it again).
    Failed { reason: String, unreachable: bool },
}

/// Reads what the first frame draws from the history at `location` (blocking).
pub fn read_start(
    location: &HistoryLocation,
    config: &HistoryConfig,
    workspace_id: &str,
    now: OffsetDateTime,
) -> HistoryStart {
    match read(location, config, workspace_id, now) {
        Ok((seed, due)) => HistoryStart::Read { seed, due },
        Err(error) => {
            tracing::warn!(%error, "the review history is not available");
            HistoryStart::Failed {
                reason: format!("history: {error}"),
                unreachable: error.is_unreachable(),
            }
        }
    }
}

/// Gives `app` what `start` read; true when the history opened (or is out
/// of reach and tried again).
pub fn apply(app: &mut App, start: HistoryStart, now: OffsetDateTime) -> bool {
    match start {
        HistoryStart::Read { seed, due } => {
            app.history.enabled = true;
            app.history.seed = seed;
            app.history.snapshot_due = due;
            true
        }
        HistoryStart::Failed {
            reason,
            unreachable,
        } => {
            app.errors.push(ErrorInfo {
                status: None,
                kind: unreachable.then_some(ErrorKind::HistoryAway),
                detail: None,
                request_id: None,
                summary: reason.clone(),
                gate: None,
                at: now,
            });
            if unreachable {
                // The dashboard runs live, says so, and tries again.
                app.start_away(reason, now);
                return true;
            }
            false
        }
    }
}

fn read(
    location: &HistoryLocation,
    config: &HistoryConfig,
    workspace_id: &str,
    now: OffsetDateTime,
) -> Result<(Option<SnapshotSeed>, bool), HistoryError> {
    let store = Store::open_at(location)?;
    // `snapshot_max_age = "off"`: never in the background.
    let due = match config.snapshot_max_age() {
        Some(max_age) => store.snapshot_due(workspace_id, max_age, now)?,
        None => false,
    };
    let insights = store.latest_insights(workspace_id)?;
    let first_page = store.first_inventory_page(workspace_id)?;
    let taken_at = insights
        .as_ref()
        .map(|(info, _)| info.taken_at)
        .or_else(|| first_page.as_ref().map(|(info, _)| info.taken_at));
    let seed = taken_at.map(|taken_at| SnapshotSeed {
        taken_at,
        insights: insights.map(|(_, insights)| insights),
        first_page: first_page.map(|(_, items)| items),
    });
    Ok((seed, due))
}
