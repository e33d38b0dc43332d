//! The project as the reviewer sees it on this screen: the inventory facts'
//! state (a loaded row, or the newest snapshot's) with the project's own read
//! laid over it, so a mark holds the project as it is after the reviewer's
//! own write, and a live change shows against the review at once.

use time::OffsetDateTime;

use super::ProjectScreen;
use crate::history::{ProjectState, ReviewMark, SeenState};

impl ProjectScreen {
    /// What the screen shows of the project, and when it was read: `None`
    /// without a row or a snapshot's state to hold the inventory's fields.
    /// `row_read_at` dates a row whose page time is not known.
    pub fn seen_state(&self, row_read_at: OffsetDateTime) -> Option<SeenState> {
        let (state, facts_at) = match (&self.facts.row, &self.facts.snapshot) {
            (Some((item, source)), _) => (
                ProjectState::from_item(item),
                source.read_at().unwrap_or(row_read_at),
            ),
            (None, Some((state, taken_at))) => (state.clone(), *taken_at),
            (None, None) => return None,
        };
        Some(match (&self.project, self.loaded_at) {
            // The project's read (or a write's answer) is newer: it wins.
            (Some(project), Some(read_at)) if read_at >= facts_at => SeenState {
                state: state.with_project(project),
                read_at,
            },
            _ => SeenState {
                state,
                read_at: facts_at,
            },
        })
    }

    /// The project's mark as this screen shows the project now.
    pub fn review_as_seen(&self, mark: &ReviewMark, row_read_at: OffsetDateTime) -> ReviewMark {
        match self.seen_state(row_read_at) {
            Some(seen) => mark.against_live(&seen.state, seen.read_at),
            None => mark.clone(),
        }
    }
}
