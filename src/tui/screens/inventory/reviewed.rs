//! Reviewed marks as the inventory shows them: `✓` for a project marked
//! reviewed and unchanged since, `Δ` for one that changed since its review
//! (as the newest snapshot shows it, or the live row at once). Marks live in the history store; the
//! App loads them through the executor and hands them here.

use std::borrow::Cow;
use std::collections::HashMap;

use time::OffsetDateTime;

use crate::api::model::InventoryItem;
use crate::history::{ProjectState, ReviewMark};
use crate::tui::screens::filtered::FilteredList;

#[derive(Debug, Clone, Default)]
pub struct ReviewedMarks {
    by_project: HashMap<String, ReviewMark>,
    /// Which rows the inventory shows.
    pub filter: ReviewFilter,
    /// `:reviewer NAME`: only the projects whose mark is by this reviewer.
    pub reviewer: Option<String>,
    /// Whether the filter's walk over the pages stopped for the budget (said
    /// once).
    pub walk_stopped: bool,
    /// The rows the pages under the current query brought, before the
    /// review filters hid any: what "N of M read match" counts.
    pub rows_read: usize,
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

    /// The mark of a row's project as the row shows it: a row read (at
    /// `read_at`) after the reviewed state that differs from it is "changed
    /// since review" at once, naming the fields, without waiting for a
    /// snapshot. Rows of unknown age (the snapshot's) leave the mark as is.
    pub fn of_row(
        &self,
        item: &InventoryItem,
        read_at: Option<OffsetDateTime>,
    ) -> Option<Cow<'_, ReviewMark>> {
        let mark = self.by_project.get(&item.id)?;
        Some(match read_at {
            Some(at) => Cow::Owned(mark.against_live(&ProjectState::from_item(item), at)),
            None => Cow::Borrowed(mark),
        })
    }

    /// What the inventory says about a row's project.
    pub fn state(&self, item: &InventoryItem, read_at: Option<OffsetDateTime>) -> ReviewState {
        match self.of_row(item, read_at) {
            None => ReviewState::NotReviewed,
            Some(mark) if mark.changed_since_review == Some(true) => {
                ReviewState::ChangedSinceReview
            }
            Some(_) => ReviewState::Reviewed,
        }
    }

    /// Two cells before the name: the glyph and a space, or nothing.
    pub fn glyph(&self, item: &InventoryItem, read_at: Option<OffsetDateTime>) -> &'static str {
        match self.state(item, read_at) {
            ReviewState::NotReviewed => "",
            ReviewState::Reviewed => "✓ ",
            ReviewState::ChangedSinceReview => "Δ ",
        }
    }

    /// Who marked the project, when it is marked and that is known.
    pub fn reviewer(&self, project_id: &str) -> Option<&str> {
        self.by_project.get(project_id)?.reviewer.as_deref()
    }

    /// Whether the review filters keep the row.
    fn keeps(&self, item: &InventoryItem, read_at: Option<OffsetDateTime>) -> bool {
        self.filter.keeps(self.state(item, read_at))
            && self.reviewer.as_deref().is_none_or(|wanted| {
                // The role that marked it, or (a shared history) the name it gave.
                self.by_project.get(&item.id).is_some_and(|mark| {
                    [&mark.reviewer, &mark.display_name]
                        .into_iter()
                        .flatten()
                        .any(|by| by.trim().eq_ignore_ascii_case(wanted.trim()))
                })
            })
    }

    /// `c`: every review filter off, as the service's filters are.
    pub fn clear_filters(&mut self) {
        self.filter = ReviewFilter::All;
        self.reviewer = None;
    }

    /// Whether a review filter hides rows.
    pub fn filtering(&self) -> bool {
        self.filter != ReviewFilter::All || self.reviewer.is_some()
    }

    /// A page under the current query landed (the first one starts the count).
    pub fn count_read(&mut self, first: bool, rows: usize) {
        if first {
            self.rows_read = 0;
        }
        self.rows_read += rows;
    }

    /// The head's count under a review filter: how many of the rows read it
    /// keeps, so a list it emptied does not read as one never loaded.
    pub fn kept_of_read(&self, kept: usize) -> String {
        format!(
            "{} of {} read match",
            crate::tui::widgets::thousands(kept as i64),
            crate::tui::widgets::thousands(self.rows_read.max(kept) as i64)
        )
    }
}

/// The inventory's filter on reviewed marks. The service knows nothing of
/// them, so it filters the rows loaded so far (and keeps loading pages as the
/// selection nears the end, as any list does).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ReviewFilter {
    #[default]
    All,
    NotReviewed,
    ChangedSinceReview,
}

impl ReviewFilter {
    pub fn next(self) -> Self {
        match self {
            Self::All => Self::NotReviewed,
            Self::NotReviewed => Self::ChangedSinceReview,
            Self::ChangedSinceReview => Self::All,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Self::All => "all projects",
            Self::NotReviewed => "not reviewed",
            Self::ChangedSinceReview => "changed since review",
        }
    }

    fn keeps(self, state: ReviewState) -> bool {
        match self {
            Self::All => true,
            Self::NotReviewed => state == ReviewState::NotReviewed,
            Self::ChangedSinceReview => state == ReviewState::ChangedSinceReview,
        }
    }
}

impl super::InventoryScreen {
    /// `M`: all → not reviewed → changed since review → all. Leaving a
    /// filter reads the first page again (the rows it hid were dropped); the
    /// new filter applies to it as it lands.
    pub fn cycle_review_filter(&mut self, cx: &mut crate::tui::effect::Cx) {
        let previous = self.reviewed.filter;
        self.reviewed.filter = previous.next();
        if previous == ReviewFilter::All {
            self.apply_review_filter(cx);
        } else {
            self.reload(cx);
        }
    }

    /// `:reviewer NAME` keeps the projects marked by NAME; `:reviewer` alone
    /// shows every project again (the rows it hid are read again).
    pub fn filter_by_reviewer(&mut self, name: Option<String>, cx: &mut crate::tui::effect::Cx) {
        let name = name.filter(|name| !name.trim().is_empty());
        let was_hiding = self.reviewed.reviewer.is_some();
        self.reviewed.reviewer = name;
        if was_hiding {
            self.reload(cx);
        } else {
            self.apply_review_filter(cx);
        }
    }

    /// Drops the loaded rows the review filters hide (a page that lands, or
    /// marks that change, call it again).
    pub fn apply_review_filter(&mut self, cx: &mut crate::tui::effect::Cx) {
        if !self.reviewed.filtering() && !self.policy.filtering() {
            return;
        }
        // `--violates` hides rows the same way (`policy.rs`), and notes them.
        let mut hidden = Vec::new();
        let keep: Vec<bool> = self
            .list
            .rows
            .iter()
            .map(|item| {
                let violates = self.policy.keeps(&item.id);
                if !violates {
                    hidden.push(item.id.clone());
                }
                self.reviewed.keeps(item, self.list.loaded_at) && violates
            })
            .collect();
        self.policy.hidden.extend(hidden);
        let mut flags = keep.iter();
        self.list.rows.retain(|_| *flags.next().unwrap_or(&true));
        if self.row_pages.len() == keep.len() {
            let mut flags = keep.iter();
            self.row_pages.retain(|_| *flags.next().unwrap_or(&true));
        }
        let selected = self.list.selected;
        self.list.select(selected);
        self.prefetch(cx);
    }
}
