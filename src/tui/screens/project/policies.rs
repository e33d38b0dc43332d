//! The project's violations on its screen: each with its severity, the
//! policy's message and remediation; a waived one with its reason, who and
//! until when. From the dashboard's evaluation (`tui/policies/`).

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
        if findings.is_empty() {
            lines.push(Line::from(Span::styled(
                fit(
                    &format!(
                        "✓ violates none of the {} policies",
                        evaluation.policies.len()
                    ),
                    width,
                ),
                theme.ok,
            )));
            return lines;
        }
        let indent = "    ";
        let inner = width.saturating_sub(indent.len()).max(10);
        for finding in findings {
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
