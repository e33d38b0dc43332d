//! The history at launch: the newest snapshot's insights and first inventory
//! page for the first frame (read before it, from a local file: milliseconds),
//! and whether a background snapshot is due. A history that cannot be read is
//! one line in the error log (`App::apply_history_start`); the dashboard
//! starts without it, or, when a shared history is out of reach, starts live
//! and tries it again.

use time::OffsetDateTime;

use crate::history::{HistoryConfig, HistoryError, HistoryLocation, Store};
use crate::tui::vocab::{HistoryStart, SnapshotSeed};

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
