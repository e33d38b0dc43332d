//! The project's violations on its screen: each with its severity, the
//! policy's message and remediation; a waived one with its reason, who and
//! until when; a policy that could not judge the project dim, with why.
//! From the dashboard's evaluation (`tui/policies/`).

use ratatui::text::{Line, Span};

use super::ProjectScreen;
use super::view::wrap_words;
use crate::policy::FindingStatus;
use crate::text::{fit, sanitize_line};
use crate::tui::policies::{severity_style, waiver_words};
use crate::tui::screens::ScreenView;

impl ProjectScreen {
    /// The lines of the project's policies, for a pane `width` cells wide.
    pub(super) fn policy_lines(&self, view: &ScreenView, width: usize) -> Vec<Line<'static>> {
        let theme = view.theme;
        let shown = &self.policies;
        let mut lines = vec![Line::from(Span::styled("Policies", theme.title))];
        if let Some(error) = &shown.error {
            for line in wrap_words(&sanitize_line(&error.summary), width, 3) {
                lines.push(Line::from(Span::styled(line, theme.error)));
            }
        }
        let Some(evaluation) = &shown.evaluation else {
            if shown.error.is_none() {
                lines.push(Line::from(Span::styled("evaluating…", theme.dim)));
            }
            return lines;
        };
        let findings: Vec<_> = evaluation.of_project(&self.target.id).collect();
        if !findings.iter().any(|finding| finding.status.is_violation()) {
            let not_judged: std::collections::HashSet<&str> = findings
                .iter()
                .map(|finding| finding.policy.as_str())
                .collect();
            let judged = evaluation.policies.len().saturating_sub(not_judged.len());
            let words = if not_judged.is_empty() {
                format!("✓ violates none of the {judged} policies")
            } else {
                format!("✓ violates none of the {judged} policies that could judge it")
            };
            lines.push(Line::from(Span::styled(fit(&words, width), theme.ok)));
        }
        let indent = "    ";
        let inner = width.saturating_sub(indent.len()).max(10);
        // Violations first; the policies that could not judge it after them.
        let (violations, not_judged): (Vec<_>, Vec<_>) = findings
            .into_iter()
            .partition(|finding| finding.status.is_violation());
        for finding in violations.into_iter().chain(not_judged) {
            if finding.status == FindingStatus::Unknown {
                let head = format!(
                    "? {} {}: not judged: {}",
                    finding.severity.as_str(),
                    sanitize_line(&finding.policy),
                    sanitize_line(&finding.message),
                );
                lines.extend(
                    wrap_words(&head, width, 3)
                        .into_iter()
                        .map(|line| Line::from(Span::styled(line, theme.dim))),
                );
                continue;
            }
            let waived = finding.status == FindingStatus::Waived;
            let style = if waived {
                theme.dim
            } else {
                severity_style(theme, finding.severity)
            };
            let head = format!(
                "{} {} {}: {}",
                if waived { "~" } else { "✗" },
                finding.severity.as_str(),
                sanitize_line(&finding.policy),
                sanitize_line(&finding.message),
            );
            lines.extend(
                wrap_words(&head, width, 3)
                    .into_iter()
                    .map(|line| Line::from(Span::styled(line, style))),
            );
            if waived {
                for line in wrap_words(&sanitize_line(&waiver_words(finding)), inner, 3) {
                    lines.push(Line::from(Span::styled(
                        format!("{indent}{line}"),
                        theme.dim,
                    )));
                }
            }
            let remediation = format!("fix: {}", sanitize_line(&finding.remediation));
            for line in wrap_words(&remediation, inner, 4) {
                lines.push(Line::from(Span::styled(
                    format!("{indent}{line}"),
                    theme.dim,
                )));
            }
        }
        lines
    }
}
