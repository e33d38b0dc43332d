//! The inventory's side of the policies: the Policy column's cell (the
//! project's violations, the waived ones in dim: `2 +1w`) and the
//! `--violates ID` filter. The service knows nothing of policies, so the
//! filter keeps the loaded rows the dashboard's evaluation names (and the
//! list keeps loading pages, as under the review filter).

use std::collections::HashSet;
use std::sync::Arc;

use ratatui::text::{Line, Span};
use ratatui::widgets::Cell as TableCell;

use super::InventoryScreen;
use crate::api::model::InventoryItem;
use crate::tui::effect::Cx;
use crate::tui::policies::PolicyShown;
use crate::tui::screens::filtered::FilteredList;
use crate::tui::theme::Theme;

/// The evaluation as the inventory last saw it, and `--violates`.
#[derive(Debug, Clone, Default)]
pub struct PolicyFilter {
    pub shown: Arc<PolicyShown>,
    /// `--violates`: only projects that violate one of these policies.
    pub violates: Vec<String>,
    /// The loaded rows the filter dropped since the first page was read:
    /// a newer evaluation that keeps one of them reads the list again.
    pub hidden: HashSet<String>,
}

impl PolicyFilter {
    pub fn filtering(&self) -> bool {
        !self.violates.is_empty()
    }

    /// Whether the filter keeps the project: none while no evaluation is
    /// known (the list then waits, it does not guess).
    pub fn keeps(&self, project_id: &str) -> bool {
        self.violates.is_empty()
            || self
                .shown
                .violates(project_id, &self.violates)
                .unwrap_or(false)
    }

    /// Whether rows wait for the first evaluation (no page walk meanwhile).
    pub fn waiting(&self) -> bool {
        self.filtering() && self.shown.evaluation.is_none()
    }

    /// The projects the filter keeps under the evaluation shown.
    fn kept(&self) -> Option<HashSet<String>> {
        let evaluation = self.shown.evaluation.as_ref()?;
        Some(
            evaluation
                .violating(&self.violates)
                .into_iter()
                .map(str::to_owned)
                .collect(),
        )
    }

    /// Refuses a policy id the evaluation does not know, naming the known.
    pub fn check(&self, ids: &[String]) -> Result<(), String> {
        match &self.shown.evaluation {
            Some(evaluation) => evaluation
                .check_ids(ids)
                .map_err(|error| format!("--violates: {error}")),
            // Not evaluated yet: taken as given, checked when it answers.
            None => Ok(()),
        }
    }
}

/// The Policy column's cell: failing violations, then the waived ones in
/// dim; `·` for none, `?` (dim) for none found while some policy could not
/// judge the project, `…` while the project is not evaluated yet.
pub fn policy_cell(shown: &PolicyShown, item: &InventoryItem, theme: &Theme) -> TableCell<'static> {
    let spans = match shown.counts_of(&item.id) {
        None => vec![Span::styled("…", theme.dim)],
        Some(counts) if counts.total() == 0 && counts.unknown > 0 => {
            vec![Span::styled("?", theme.dim)]
        }
        Some(counts) if counts.total() == 0 => vec![Span::styled("·", theme.dim)],
        Some(counts) => {
            let mut spans = Vec::new();
            if counts.failing > 0 {
                spans.push(Span::styled(counts.failing.to_string(), theme.warn));
            }
            if counts.waived > 0 {
                let gap = if counts.failing > 0 { " " } else { "" };
                spans.push(Span::styled(format!("{gap}+{}w", counts.waived), theme.dim));
            }
            spans
        }
    };
    TableCell::from(Line::from(spans).right_aligned())
}

impl InventoryScreen {
    /// A new evaluation: the filter applies to it; rows it hid before that
    /// it keeps now come back with the first page read again.
    pub fn set_policies(&mut self, shown: Arc<PolicyShown>, cx: &mut Cx) {
        let before = self.policy.kept();
        self.policy.shown = shown;
        if !self.policy.filtering() {
            return;
        }
        let after = self.policy.kept();
        if after.is_none() || before == after {
            return;
        }
        // A project the filter now keeps that it dropped before comes back
        // with the list read again; one not loaded yet comes with its page.
        let gained = after.as_ref().is_some_and(|after| {
            after.iter().any(|id| {
                self.policy.hidden.contains(id)
                    && before.as_ref().is_none_or(|before| !before.contains(id))
            })
        });
        if gained && self.list.started {
            self.reload(cx);
        } else {
            self.apply_review_filter(cx);
        }
    }

    /// The Policy screen's enter: exactly the projects that violate
    /// `policy_id`, from clean filters and the default sort (`[` goes back).
    pub fn filter_by_policy(&mut self, policy_id: String, cx: &mut Cx) {
        self.restore_view(
            super::InventoryView {
                query: crate::api::InventoryParams::default(),
                review_filter: super::reviewed::ReviewFilter::All,
                reviewer: None,
                violates: vec![policy_id],
            },
            cx,
        );
    }
}
