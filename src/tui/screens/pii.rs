//! Personal-data findings of the selected project, newest first, pages loaded as
//! the cursor nears the end, the whole quote in a detail pane. Without detection
//! or without Enterprise the screen says what is needed instead of an error.
//! A [`ListScreen`]: this file declares the list, its rows and its quote.

use ratatui::layout::Constraint;
use ratatui::text::{Line, Span};
use ratatui::widgets::Cell as TableCell;
use time::OffsetDateTime;

use super::actions::{RowWords, ScreenAction, pick_project};
use super::list_screen::{ListMsg, ListResource, ListScreen};
use super::paged::RowKey;
use crate::api::PageParams;
use crate::api::model::{PiiFinding, PiiStatus};
use crate::text::{fit, sanitize_line, sanitize_multiline};
use crate::tui::action::Action;
use crate::tui::effect::{ErrorInfo, Slot};
use crate::tui::export::ExportNames;
use crate::tui::ops::ListPii;
use crate::tui::theme::Theme;
use crate::tui::widgets::ago;
use crate::tui::widgets::display::utc_datetime;

/// The screen's one request: a page of findings.
pub const PAGE: Slot = Slot::new("pii", "page");

/// The answers the screen gets.
pub type Msg = ListMsg<PiiFinding>;

/// Findings per page: the contract's maximum.
pub const PAGE_SIZE: u32 = 100;

/// The Personal data tab.
pub type PiiScreen = ListScreen<PersonalData>;

/// The personal-data findings of a project, as a [`ListScreen`] lists them.
#[derive(Debug)]
pub struct PersonalData;

/// A status as symbol and word, so it reads without colour.
fn status_label(status: &PiiStatus, theme: &Theme) -> Span<'static> {
    match status {
        PiiStatus::Open => Span::styled("● open", theme.warn),
        PiiStatus::Ignored => Span::styled("○ ignored", theme.dim),
        PiiStatus::Fixed => Span::styled("✓ fixed", theme.ok),
        PiiStatus::Unknown(raw) => Span::raw(format!("? {}", fit(raw, 8))),
    }
}

/// A finding's id: what `y` copies.
impl RowKey for PiiFinding {
    fn row_key(&self) -> &str {
        &self.id
    }
}

impl ListResource for PersonalData {
    type Item = PiiFinding;
    type Call = ListPii;

    const PAGE: Slot = PAGE;
    const TITLE: &'static str = "Personal data";
    const HEAD: &'static str = "Personal data in";
    const NOUN: &'static str = "finding";
    const WITHOUT_PROJECT: &'static str = "This tab lists the personal-data findings";
    const DETAIL_HEIGHT: u16 = 9;
    const DETAIL_TITLES: (&'static str, &'static str) =
        (" Quote — enter reads it whole ", " Quote — esc back ");
    const EXPORT: ExportNames = ExportNames {
        file: "pii",
        noun: "personal-data finding",
    };

    fn call(project_id: String, cursor: Option<String>) -> ListPii {
        ListPii {
            project_id,
            params: PageParams {
                limit: Some(PAGE_SIZE),
            },
            cursor,
        }
    }

    fn columns() -> Vec<(&'static str, Constraint)> {
        vec![
            ("Found (UTC) ↓", Constraint::Length(17)),
            ("Status", Constraint::Length(10)),
            ("Source", Constraint::Length(9)),
            ("Quote", Constraint::Min(10)),
        ]
    }

    fn cells(finding: &PiiFinding, width: u16, theme: &Theme) -> Vec<TableCell<'static>> {
        let quote_width = width.saturating_sub(17 + 10 + 9 + 4).max(10) as usize;
        vec![
            TableCell::from(utc_datetime(finding.found_at)),
            TableCell::from(status_label(&finding.status, theme)),
            TableCell::from(fit(finding.source.as_str(), 9)),
            TableCell::from(fit(&finding.quote, quote_width)),
        ]
    }

    fn detail(finding: &PiiFinding, now: OffsetDateTime, theme: &Theme) -> Vec<Line<'static>> {
        let mut lines = vec![Line::from(vec![
            status_label(&finding.status, theme),
            Span::styled(
                format!(
                    " · found {} UTC ({}) · source {} · {}",
                    utc_datetime(finding.found_at),
                    ago((now - finding.found_at).whole_seconds()),
                    fit(finding.source.as_str(), 12),
                    fit(&finding.id, 40)
                ),
                theme.dim,
            ),
        ])];
        lines.extend(
            sanitize_multiline(&finding.quote)
                .lines()
                .map(|line| Line::from(line.to_owned())),
        );
        lines
    }

    fn movement() -> RowWords {
        RowWords {
            next: "next finding (pages load as you near the end)",
            previous: "previous finding",
            first: "newest finding",
            last: "oldest finding: loads the remaining pages within the request budget",
        }
    }

    fn actions() -> Vec<ScreenAction> {
        vec![
            ScreenAction::new(Action::ToggleDetail, "quote", "show or hide the quote pane"),
            ScreenAction::help_only(
                Action::Open,
                "read the whole quote (it scrolls; back closes it)",
            ),
            ScreenAction::new(Action::Copy, "copy id", "copy the finding id (OSC 52)"),
            ScreenAction::help_only(
                Action::Export,
                "export every finding to CSV, as `vantage pii ID` writes it",
            ),
            ScreenAction::help_only(Action::Refresh, "reload from the newest"),
            pick_project(),
        ]
    }

    fn loading() -> &'static str {
        "Loading findings…"
    }

    fn empty(theme: &Theme) -> Line<'static> {
        Line::from(Span::styled(
            "No personal data was found in this project.",
            theme.ok,
        ))
    }

    fn gate(error: &ErrorInfo, theme: &Theme) -> Option<Vec<Line<'static>>> {
        error.gate.as_ref().map(|_| gate_text(error, theme))
    }
}

/// What a gate needs, as guidance rather than as an error.
fn gate_text(error: &ErrorInfo, theme: &Theme) -> Vec<Line<'static>> {
    let needed = match error.status {
        Some(402) => {
            "Personal-data findings need the Enterprise plan with personal-data detection."
        }
        _ => crate::tui::vocab::PII_NOT_FOUND,
    };
    let mut lines = vec![
        Line::from(Span::styled(needed, theme.title)),
        Line::from(""),
    ];
    // The 404's own words are the line above; another gate says what it needs.
    if let Some(gate) = error.gate.as_ref().filter(|_| error.status != Some(404)) {
        lines.push(Line::from(Span::raw(gate.explain())));
    }
    lines.push(Line::from(Span::raw(
        "If detection is off, a workspace owner can turn it on in the workspace's security settings.",
    )));
    let mut facts = Vec::new();
    if let Some(kind) = &error.kind {
        facts.push(format!("type {}", sanitize_line(kind.as_str())));
    }
    if let Some(id) = &error.request_id {
        facts.push(format!("request {}", sanitize_line(id)));
    }
    if !facts.is_empty() {
        lines.push(Line::from(""));
        lines.push(Line::from(Span::styled(facts.join(" · "), theme.dim)));
    }
    lines
}
