//! The dashboard's policies: the evaluation it runs off the UI thread
//! (`ops.rs`, the same loading and evaluation as `vantage check`) and what
//! the screens show of it ([`PolicyShown`]): the inventory's Policy column
//! and `--violates` filter, the project screen's violations, the Policy tab.

pub mod ops;

use std::sync::Arc;

use time::OffsetDateTime;

use crate::policy::Evaluation;
use crate::tui::vocab::ErrorInfo;

pub use ops::{EvaluatePolicies, Evaluated, LiveRow, SnapshotBase};

/// What the screens show of the policies: the last evaluation that
/// succeeded, and why the newest failed (a policy that does not compile is
/// said, never a silent pass).
#[derive(Debug, Clone, Default)]
pub struct PolicyShown {
    /// `None` until the first evaluation answers.
    pub evaluation: Option<Arc<Evaluation>>,
    /// When it ran, over how many projects, and from where.
    pub over: Option<Coverage>,
    /// The newest evaluation's failure: a policy's `file:line`, the history
    /// out of reach.
    pub error: Option<ErrorInfo>,
    /// An evaluation is under way (a newer input waits for it).
    pub evaluating: bool,
}

/// What an evaluation read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coverage {
    pub at: OffsetDateTime,
    pub projects: usize,
    /// The snapshot it started from (id, taken at), when one was recorded.
    pub snapshot: Option<(i64, OffsetDateTime)>,
    /// How many of its projects are live rows the inventory loaded.
    pub live_rows: usize,
    /// The projects it read: a row loaded since is not known yet, never clean.
    pub ids: Arc<std::collections::HashSet<String>>,
}

impl PolicyShown {
    /// The project's counts, when the evaluation read it.
    pub fn counts_of(&self, project_id: &str) -> Option<crate::policy::Counts> {
        let evaluation = self.evaluation.as_ref()?;
        let over = self.over.as_ref()?;
        over.ids
            .contains(project_id)
            .then(|| evaluation.project_counts(project_id))
    }

    /// Whether the project violates one of `ids`; `None` while no
    /// evaluation is known (a filter then shows nothing rather than guess).
    pub fn violates(&self, project_id: &str, ids: &[String]) -> Option<bool> {
        Some(self.evaluation.as_ref()?.violates(project_id, ids))
    }
}

/// How a severity is drawn: the worst in the theme's strongest colours.
pub fn severity_style(
    theme: &crate::tui::theme::Theme,
    severity: crate::policy::Severity,
) -> ratatui::style::Style {
    use crate::policy::Severity;
    match severity {
        Severity::Critical => theme.critical,
        Severity::High => theme.error,
        Severity::Medium => theme.warn,
        Severity::Low | Severity::Info => theme.base,
    }
}

/// A waiver as said beside a waived violation: who, until when, why.
pub fn waiver_words(finding: &crate::policy::Finding) -> String {
    let who = finding.waived_by.as_deref().unwrap_or("someone");
    let until = finding
        .waived_until
        .map(|until| format!(" until {} UTC", crate::timefmt::date_time(until)))
        .unwrap_or_default();
    let reason = finding.waiver_reason.as_deref().unwrap_or("");
    format!("waived by {who}{until}: {reason}")
}
