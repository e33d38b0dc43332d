//! The watched projects that cannot be reported: not found, or never
//! published (no analytics). Each is said once, then asked again only every
//! few minutes, as the dashboard's monitor does, instead of two failed
//! requests and two warnings a minute forever.

use std::collections::BTreeMap;

use time::OffsetDateTime;

use crate::api::ApiError;
use crate::api::model::ErrorType;

/// How often a watched project with a problem is asked again: the dashboard's
/// `NEVER_PUBLISHED_RECHECK` (tui/screens/monitor/live.rs), five minutes.
pub const RECHECK: time::Duration = time::Duration::minutes(5);

/// Why a watched project has nothing to report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    NotFound,
    NeverPublished,
}

impl Problem {
    /// The problem an answer names, if it is one of the project's own (the
    /// service answered: the source itself is fine).
    pub fn of(error: &ApiError) -> Option<Self> {
        match error.kind()? {
            ErrorType::ProjectNotFound => Some(Self::NotFound),
            ErrorType::AnalyticsNotFound => Some(Self::NeverPublished),
            _ => None,
        }
    }

    /// The `problem` label of `vantage_watched_project_problem`.
    pub fn label(self) -> &'static str {
        match self {
            Self::NotFound => "not_found",
            Self::NeverPublished => "never_published",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Self::NotFound => "not found: the key does not reach it, or it was deleted",
            Self::NeverPublished => "never published: it has no visitors to report",
        }
    }
}

/// Each watched project with a problem, and when it was last asked.
#[derive(Debug, Clone, Default)]
pub struct Standing {
    problems: BTreeMap<String, (Problem, OffsetDateTime)>,
}

impl Standing {
    /// Whether `id` sits out the polls at `now`: asked less than [`RECHECK`] ago
    /// and it had a problem then.
    pub fn resting(&self, id: &str, now: OffsetDateTime) -> bool {
        self.problems
            .get(id)
            .is_some_and(|(_, asked_at)| now - *asked_at < RECHECK)
    }

    /// Records `problem` for `id` asked at `now`; true when it is news (a
    /// problem the id did not have), so it is said once.
    pub fn failed(&mut self, id: &str, problem: Problem, now: OffsetDateTime) -> bool {
        let known = self.problems.get(id).map(|(known, _)| *known);
        // The realtime view answers `analytics_not_found` for a project it
        // does not know too: only the project read tells the two apart.
        let problem = match (known, problem) {
            (Some(Problem::NotFound), Problem::NeverPublished) => Problem::NotFound,
            _ => problem,
        };
        self.problems.insert(id.to_owned(), (problem, now));
        known != Some(problem)
    }

    /// `id` answered: its problem, if it had one, is over.
    pub fn answered(&mut self, id: &str) -> Option<Problem> {
        self.problems.remove(id).map(|(problem, _)| problem)
    }

    /// The projects with a problem, by id.
    pub fn problems(&self) -> BTreeMap<String, Problem> {
        self.problems
            .iter()
            .map(|(id, (problem, _))| (id.clone(), *problem))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn a_problem_is_news_once_and_rests_five_minutes() {
        let t0 = datetime!(2026-11-22 12:00 UTC);
        let mut standing = Standing::default();
        assert!(!standing.resting("prj_1", t0));
        assert!(standing.failed("prj_1", Problem::NotFound, t0));
        assert!(standing.resting("prj_1", t0 + time::Duration::minutes(4)));
        assert!(!standing.resting("prj_1", t0 + RECHECK));
        assert!(!standing.failed("prj_1", Problem::NotFound, t0 + RECHECK));
        // The realtime view cannot tell a missing project from an unpublished one.
        assert!(!standing.failed("prj_1", Problem::NeverPublished, t0 + RECHECK));
        assert_eq!(standing.answered("prj_1"), Some(Problem::NotFound));
        // A project published no more, then deleted: news again.
        assert!(standing.failed("prj_1", Problem::NeverPublished, t0 + RECHECK));
        assert!(standing.failed("prj_1", Problem::NotFound, t0 + RECHECK));
        assert!(standing.resting("prj_1", t0 + RECHECK));
        standing.answered("prj_1");
        assert!(!standing.resting("prj_1", t0 + RECHECK));
    }
}
