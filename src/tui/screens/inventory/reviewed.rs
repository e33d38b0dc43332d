//! Reviewed marks as the inventory shows them: `✓` for a project marked
//! reviewed and unchanged since, `Δ` for one that changed since its review
//! (as the newest snapshot shows it). Marks live in the history store; the
//! App loads them through the executor and hands them here.

use std::collections::HashMap;

use crate::history::ReviewMark;

#[derive(Debug, Clone, Default)]
pub struct ReviewedMarks {
    by_project: HashMap<String, ReviewMark>,
}

/// What the inventory says about one project.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReviewState {
    NotReviewed,
    Reviewed,
    ChangedSinceReview,
}

impl ReviewedMarks {
    pub fn set(&mut self, marks: Vec<ReviewMark>) {
        self.by_project = marks
            .into_iter()
            .map(|mark| (mark.project_id.clone(), mark))
            .collect();
    }

    pub fn insert(&mut self, mark: ReviewMark) {
        self.by_project.insert(mark.project_id.clone(), mark);
    }

    pub fn get(&self, project_id: &str) -> Option<&ReviewMark> {
        self.by_project.get(project_id)
    }

    pub fn state(&self, project_id: &str) -> ReviewState {
        match self.by_project.get(project_id) {
            None => ReviewState::NotReviewed,
            Some(mark) if mark.changed_since_review == Some(true) => {
                ReviewState::ChangedSinceReview
            }
            Some(_) => ReviewState::Reviewed,
        }
    }

    /// Two cells before the name: the glyph and a space, or nothing.
    pub fn glyph(&self, project_id: &str) -> &'static str {
        match self.state(project_id) {
            ReviewState::NotReviewed => "",
            ReviewState::Reviewed => "✓ ",
            ReviewState::ChangedSinceReview => "Δ ",
        }
    }

    /// The words for the detail pane.
    pub fn label(&self, project_id: &str) -> Option<&'static str> {
        match self.state(project_id) {
            ReviewState::NotReviewed => None,
            ReviewState::Reviewed => Some("✓ reviewed"),
            ReviewState::ChangedSinceReview => Some("Δ changed since review"),
        }
    }
}
