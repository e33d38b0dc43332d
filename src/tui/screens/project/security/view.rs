//! Drawing the Security part: the scans table, the findings table and the
//! selected finding's description. Every string from the service goes through
//! the sanitizers (`fit`, `sanitize_line`, `sanitize_multiline`).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell, Paragraph, Row, Table, TableState, Wrap};

use super::{Focus, SecurityPart};
use crate::api::model::{FindingLevel, FindingStatus, ScanFinding, ScanStatus};
use crate::text::{fit, sanitize_line, sanitize_multiline};
use crate::tui::screens::ScreenView;
use crate::tui::screens::error_text;
use crate::tui::screens::paged::draw_placeholder;
use crate::tui::theme::Theme;
use crate::tui::widgets::display::utc_datetime;
use crate::tui::widgets::rule;

/// Scan rows shown at most; the list scrolls past them.
const SCAN_ROWS: u16 = 5;

impl SecurityPart {
    pub fn draw(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let scan_rows = (self.scans.len() as u16).clamp(1, SCAN_ROWS);
        let [scans_area, rest] =
            Layout::vertical([Constraint::Length(scan_rows + 2), Constraint::Min(4)]).areas(area);
        self.draw_scans(frame, scans_area, view.theme);
        let (findings_area, detail_area) = if rest.width >= 110 {
            let [left, right] =
                Layout::horizontal([Constraint::Percentage(60), Constraint::Percentage(40)])
                    .spacing(1)
                    .areas(rest);
            (left, right)
        } else {
            let detail_rows = (rest.height / 2).max(4);
            let [top, bottom] =
                Layout::vertical([Constraint::Min(3), Constraint::Length(detail_rows)]).areas(rest);
            (top, bottom)
        };
        self.draw_findings(frame, findings_area, view.theme);
        self.draw_description(frame, detail_area, view.theme);
        if let Some(menu) = &self.filter_menu {
            menu.draw(frame, area, view.theme, view.keymap);
        }
        if let Some(field) = &self.search_field {
            let line = Rect {
                y: findings_area.y,
                height: 1,
                ..findings_area
            };
            frame.render_widget(ratatui::widgets::Clear, line);
            field.draw(frame, line, view.theme, "search findings", None);
        }
    }

    fn block(&self, title: String, focused: bool, theme: &Theme) -> Block<'static> {
        rule(theme).title(Span::styled(
            title,
            if focused { theme.accent } else { theme.title },
        ))
    }

    fn draw_scans(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let more = if self.scans_more { "+" } else { "" };
        let title = format!(
            " Security scans ({}{more}, newest first) ",
            self.scans.len()
        );
        let block = self.block(title, self.focus == Focus::Scans, theme);
        if self.scans.is_empty() {
            let text = match (&self.scans_error, self.scans_pending) {
                (Some(error), _) => error_text(error, theme),
                (None, Some(_)) => vec![Line::from(Span::styled("Loading scans…", theme.dim))],
                (None, None) => vec![Line::from(Span::styled(
                    "This project has no security scans.",
                    theme.dim,
                ))],
            };
            frame.render_widget(
                Paragraph::new(text).wrap(Wrap { trim: true }).block(block),
                area,
            );
            return;
        }
        let height = area.height.saturating_sub(2).max(1) as usize;
        let offset = self.selected_scan.saturating_sub(height - 1);
        let hashes: Vec<&str> = self
            .scans
            .iter()
            .filter_map(|scan| scan.commit_sha.as_deref())
            .collect();
        let skip = shared_hash_prefix(&hashes);
        let scanners_width = area.width.saturating_sub(11 + 12 + 16 + 16 + 4).max(8) as usize;
        let rows: Vec<Row> = self.scans[offset..]
            .iter()
            .take(height)
            .map(|scan| {
                Row::new(vec![
                    Cell::from(scan_status(&scan.status, theme)),
                    Cell::from(
                        scan.commit_sha
                            .as_deref()
                            .map_or_else(|| "-".to_owned(), |sha| short_hash(sha, skip, 12)),
                    ),
                    Cell::from(scan.started_at.map_or("-".into(), utc_datetime)),
                    Cell::from(scan.finished_at.map_or("-".into(), utc_datetime)),
                    Cell::from(fit(&scan.requested_scanners.join(", "), scanners_width)),
                ])
            })
            .collect();
        let focus = (self.focus == Focus::Scans, self.selected_scan - offset);
        let (table, mut state) = focus_table(rows, &SCAN_COLUMNS, block, focus, theme);
        frame.render_stateful_widget(table, area, &mut state);
    }

    fn draw_findings(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let more = if self.findings.has_more { "+" } else { "" };
        let title = match &self.findings_of {
            Some(scan_id) => format!(
                " Findings of {} ({}{more}) · {} ",
                fit(scan_id, 24),
                self.findings.rows.len(),
                self.filter_summary()
            ),
            None => format!(" Findings · {} ", self.filter_summary()),
        };
        let block = self.block(title, self.focus == Focus::Findings, theme);
        if self.findings_of.is_none() {
            frame.render_widget(
                Paragraph::new(Span::styled(
                    "Enter on a scan shows its findings.",
                    theme.dim,
                ))
                .block(block),
                area,
            );
            return;
        }
        if self.findings.rows.is_empty() {
            let empty = Line::from(Span::styled(
                "No finding of this scan passes the filters.",
                theme.dim,
            ));
            let text = self.findings.placeholder(theme, "Loading findings…", empty);
            frame.render_widget(Paragraph::new("").block(block), area);
            let inner = Rect {
                y: area.y + 1,
                height: area.height.saturating_sub(1),
                ..area
            };
            draw_placeholder(frame, inner, text, theme);
            return;
        }
        let height = area.height.saturating_sub(2).max(1) as usize;
        let range = self.findings.layout(height);
        let offset = range.start;
        let name_width = area.width.saturating_sub(9 + 9 + 15 + 15 + 4).max(8) as usize;
        let rows: Vec<Row> = self.findings.rows[range]
            .iter()
            .map(|finding| {
                Row::new(vec![
                    Cell::from(level_label(&finding.level, theme)),
                    Cell::from(status_label(&finding.status, theme)),
                    Cell::from(fit(&finding.category, 15)),
                    Cell::from(fit(&finding.name, name_width)),
                    Cell::from(fit(&finding.scanner_name, 15)),
                ])
            })
            .collect();
        let focus = (
            self.focus == Focus::Findings,
            self.findings.selected - offset,
        );
        let (table, mut state) = focus_table(rows, &FINDING_COLUMNS, block, focus, theme);
        frame.render_stateful_widget(table, area, &mut state);
    }

    fn draw_description(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let block = rule(theme).title(Span::styled(" Description ", theme.title));
        let Some(finding) = self.selected_finding() else {
            frame.render_widget(Paragraph::new("").block(block), area);
            return;
        };
        let lines = description_lines(finding, theme);
        // Never scroll past the text: at most to its last line.
        let scroll = self.description_scroll.min(
            u16::try_from(lines.len())
                .unwrap_or(u16::MAX)
                .saturating_sub(1),
        );
        frame.render_widget(
            Paragraph::new(lines)
                .wrap(Wrap { trim: false })
                .scroll((scroll, 0))
                .block(block),
            area,
        );
    }
}

/// How many leading characters every listed commit hash shares (and so tell
/// none of them apart): a shared prefix when there are several, the leading
/// zeros of a lone one (a padded hash). At most what leaves 7 characters, a
/// short hash's length.
pub(super) fn shared_hash_prefix(hashes: &[&str]) -> usize {
    let Some((first, rest)) = hashes.split_first() else {
        return 0;
    };
    let first: Vec<char> = first.chars().collect();
    let shared = if rest
        .iter()
        .all(|hash| hash.chars().eq(first.iter().copied()))
    {
        first.iter().take_while(|ch| **ch == '0').count()
    } else {
        rest.iter()
            .map(|hash| {
                hash.chars()
                    .zip(first.iter())
                    .take_while(|(a, b)| a == *b)
                    .count()
            })
            .min()
            .unwrap_or(0)
    };
    shared.min(first.len().saturating_sub(7))
}

/// A commit hash in `width` cells, from the part that tells it apart: the
/// `skip` shared characters left out (marked `…`), as git's short hash is
/// its distinguishing head.
pub(super) fn short_hash(hash: &str, skip: usize, width: usize) -> String {
    let skip = skip.min(hash.chars().count().saturating_sub(7));
    if skip == 0 {
        return fit(hash, width);
    }
    let rest: String = hash.chars().skip(skip).collect();
    let shown = fit(&rest, width.saturating_sub(1));
    format!("…{shown}")
}

/// The scans table's columns: width and header.
const SCAN_COLUMNS: [(Constraint, &str); 5] = [
    (Constraint::Length(11), "Status"),
    (Constraint::Length(12), "Commit"),
    (Constraint::Length(16), "Started (UTC)"),
    (Constraint::Length(16), "Finished (UTC)"),
    (Constraint::Min(8), "Scanners"),
];

/// The findings table's columns: width and header.
const FINDING_COLUMNS: [(Constraint, &str); 5] = [
    (Constraint::Length(9), "Level"),
    (Constraint::Length(9), "Status"),
    (Constraint::Length(15), "Category"),
    (Constraint::Min(8), "Name"),
    (Constraint::Length(15), "Scanner"),
];

/// A table of `rows` under `columns` and the state that selects a row;
/// `(focused, selected)`: the selected row is highlighted while the pane has
/// the focus.
fn focus_table<'a>(
    rows: Vec<Row<'a>>,
    columns: &[(Constraint, &'static str)],
    block: Block<'a>,
    (focused, selected): (bool, usize),
    theme: &Theme,
) -> (Table<'a>, TableState) {
    let table = Table::new(rows, columns.iter().map(|(width, _)| *width))
        .header(Row::new(columns.iter().map(|(_, header)| *header)).style(theme.title))
        .block(block)
        .row_highlight_style(if focused { theme.selected } else { theme.base });
    (table, TableState::default().with_selected(Some(selected)))
}

fn description_lines(finding: &ScanFinding, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = vec![
        Line::from(Span::styled(
            sanitize_line(&finding.name).into_owned(),
            theme.title,
        )),
        Line::from(vec![
            level_label(&finding.level, theme),
            Span::raw(" · "),
            status_label(&finding.status, theme),
            Span::styled(
                format!(
                    " · {} · {} · updated {} UTC",
                    fit(&finding.category, 20),
                    fit(&finding.scanner_name, 20),
                    utc_datetime(finding.updated_at)
                ),
                theme.dim,
            ),
        ]),
        Line::from(Span::styled(fit(&finding.id, 60), theme.dim)),
        Line::from(""),
    ];
    match &finding.description {
        Some(text) => lines.extend(
            sanitize_multiline(text)
                .lines()
                .map(|line| Line::from(line.to_owned())),
        ),
        None => lines.push(Line::from(Span::styled("no description", theme.dim))),
    }
    lines
}

/// The level as a symbol and a word, so colour is never the only sign.
fn level_label(level: &FindingLevel, theme: &Theme) -> Span<'static> {
    let (text, style): (String, Style) = match level {
        FindingLevel::Error => ("✖ error".into(), theme.critical),
        FindingLevel::Warn => ("▲ warn".into(), theme.warn),
        FindingLevel::Info => ("· info".into(), theme.dim),
        FindingLevel::Unknown(raw) => (format!("? {}", fit(raw, 6)), theme.base),
    };
    Span::styled(text, style)
}

fn status_label(status: &FindingStatus, theme: &Theme) -> Span<'static> {
    let style = match status {
        FindingStatus::Open => theme.warn,
        FindingStatus::Fixed => theme.ok,
        FindingStatus::Ignored | FindingStatus::Unknown(_) => theme.dim,
    };
    Span::styled(fit(status.as_str(), 8), style)
}

fn scan_status(status: &ScanStatus, theme: &Theme) -> Span<'static> {
    let style = match status {
        ScanStatus::Completed => theme.ok,
        ScanStatus::Failed => theme.error,
        ScanStatus::Running | ScanStatus::Unknown(_) => theme.warn,
    };
    Span::styled(fit(status.as_str(), 11), style)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 35, item 22: padded hashes ("00000000…") are told apart by the
    /// part where they differ.
    #[test]
    fn a_commit_shows_the_part_that_tells_it_apart() {
        let padded = [
            "000000004f1a2b3c4d5e6f7000000000000000000",
            "00000000a9b8c7d6e5f40312000000000000000000",
        ];
        let skip = shared_hash_prefix(&padded);
        assert_eq!(skip, 8);
        let shown: Vec<String> = padded.iter().map(|h| short_hash(h, skip, 12)).collect();
        assert_eq!(shown, ["…4f1a2b3c4d…", "…a9b8c7d6e5…"]);
        assert_ne!(shown[0], shown[1]);

        let lone = ["00000000c0ffee12345600000000"];
        assert_eq!(
            short_hash(lone[0], shared_hash_prefix(&lone), 12),
            "…c0ffee1234…"
        );

        let real = ["3f2a9c1d4e5b6a79", "8e1b2c3d4e5f6071"];
        let skip = shared_hash_prefix(&real);
        assert_eq!(skip, 0);
        assert_eq!(short_hash(real[0], skip, 12), "3f2a9c1d4e5…");
        assert_eq!(short_hash("abc", 5, 12), "abc");
        assert_eq!(shared_hash_prefix(&[]), 0);
    }
}
