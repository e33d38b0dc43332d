//! How the inventory draws: the head and filter lines, the table (only the
//! visible rows, columns dropped by priority when narrow) and the detail pane.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell as TableCell, Paragraph, Row, Table};

use super::InventoryScreen;
use super::columns::{self, Column, Wants};
use crate::api::model::{InventoryItem, SortOrder};
use crate::text::{display_width, fit, sanitize_multiline};
use crate::tui::action::Action;
use crate::tui::screens::ScreenView;
use crate::tui::screens::paged::titled_pane;
use crate::tui::theme::priority_label;
use crate::tui::widgets::cell::{CellView, table_cell};
use crate::tui::widgets::{count, thousands};

impl InventoryScreen {
    pub(super) fn draw_head(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let theme = view.theme;
        let refresh = view.keymap.key_for(Action::Refresh);
        let total = self
            .total
            .map_or("… projects".to_owned(), |total| count(total, "project"));
        let loaded = if self.reviewed.filtering() {
            self.reviewed.kept_of_read(self.list.rows.len())
        } else {
            format!("{} loaded", thousands(self.list.rows.len() as i64))
        };
        let mut spans = vec![
            Span::styled(total, theme.title),
            Span::styled(format!(" · {loaded}"), theme.dim),
        ];
        spans.extend(self.list.head_spans(self.total, theme));
        if self.list.is_loading() {
            spans.push(Span::styled(" · loading…", theme.dim));
        } else if self.list.error.is_some() && !self.list.rows.is_empty() {
            spans.push(Span::styled(
                format!(
                    " · not refreshed: these rows are from before the error ({refresh} retries)"
                ),
                theme.warn,
            ));
        }
        if self.policy.waiting() {
            spans.push(Span::styled(
                " · --violates waits for the policies' evaluation",
                theme.warn,
            ));
        }
        if self.catch_up.waiting() {
            spans.push(Span::styled(
                " · waiting for the list to catch up",
                theme.warn,
            ));
        } else if self.catch_up.gave_up {
            spans.push(Span::styled(
                format!(" · the list has not caught up with a change yet ({refresh} reloads)"),
                theme.warn,
            ));
        }
        // The PII column's legend, while a count it shows is not a number.
        if self
            .list
            .rows
            .iter()
            .any(|item| item.matched_reason.is_none())
        {
            let (mark, meaning) = self.unknown_pii();
            spans.push(Span::styled(format!(" · PII {mark} {meaning}"), theme.dim));
        }
        if let Some(finding) = &self.applied_finding {
            spans.push(Span::styled("  finding: ", theme.dim));
            spans.push(Span::styled(
                format!(
                    "{} ({})",
                    fit(&finding.title, 48),
                    priority_label(&finding.review_priority)
                ),
                theme.priority(&finding.review_priority),
            ));
        }
        frame.render_widget(Paragraph::new(Line::from(spans)), area);
    }

    /// What the PII column shows for a row whose count the service did not
    /// send (no `matched_reason`): unknown, never zero; at least one when the
    /// `has_pii` filter proves it. With its meaning, for the legend.
    fn unknown_pii(&self) -> (&'static str, &'static str) {
        match self.query.has_pii {
            Some(true) => ("≥1", "not sent, the filter proves one"),
            _ => ("?", "not sent"),
        }
    }

    pub(super) fn draw_table(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let theme = view.theme;
        // Header, plus the table's own top border line.
        let body_height = area.height.saturating_sub(2).max(1) as usize;
        let range = self.list.layout(body_height);
        let offset = range.start;
        let on_screen = &self.list.rows[range];
        let widest = |text: Option<&str>| text.map_or(0, |text| display_width(text) as u16);
        let wants = Wants {
            // The name's column also holds the reviewed glyph.
            name: on_screen
                .iter()
                .map(|item| widest(item.name.as_deref()) + 2)
                .max()
                .unwrap_or(0),
            owner: on_screen
                .iter()
                .map(|item| widest(item.owner.display_name.as_deref()))
                .max()
                .unwrap_or(0),
        };
        let layout = columns::layout(
            area.width,
            self.columns(),
            self.query.sort_by.as_ref(),
            wants,
        );
        // Only the visible rows are built.
        let rows: Vec<Row> = on_screen
            .iter()
            .map(|item| {
                // The first column carries the mark glyph.
                let mark = TableCell::from(Span::styled(self.list.mark_glyph(item), theme.accent));
                Row::new(
                    std::iter::once(mark)
                        .chain(
                            layout
                                .columns
                                .iter()
                                .map(|&(column, width)| self.cell(column, item, width, view)),
                        )
                        .collect::<Vec<_>>(),
                )
            })
            .collect();
        let widths: Vec<Constraint> = std::iter::once(Constraint::Length(1))
            .chain(layout.columns.iter().map(|&(column, width)| {
                if column == Column::NAME {
                    Constraint::Min(width)
                } else {
                    Constraint::Length(width)
                }
            }))
            .collect();
        let arrow = match self.sort_order() {
            SortOrder::Asc => "↑",
            _ => "↓",
        };
        let header = Row::new(
            std::iter::once(TableCell::from(""))
                .chain(layout.columns.iter().map(|&(column, _)| {
                    if layout.sorted == Some(column) {
                        let title = format!("{} {arrow}", column.title());
                        TableCell::from(Span::styled(title, theme.accent))
                    } else {
                        TableCell::from(column.title())
                    }
                }))
                .collect::<Vec<_>>(),
        )
        .style(theme.title);
        let table = Table::new(rows, widths).header(header);
        self.list.draw_table(frame, area, table, offset, theme);
    }

    /// The cell of `column` for `item`, `width` cells wide.
    pub(super) fn cell(
        &self,
        column: Column,
        item: &InventoryItem,
        width: u16,
        view: &ScreenView,
    ) -> TableCell<'static> {
        let theme = view.theme;
        let width = width as usize;
        match column {
            Column::NAME => {
                let mark = self.reviewed.glyph(item, self.list.loaded_at);
                // Who marked it, beside the name, while the name keeps most of the cell.
                let by = self
                    .reviewed
                    .reviewer(&item.id)
                    .filter(|_| !mark.is_empty() && width >= 16)
                    .map(|name| format!(" · {}", fit(name, (width / 3).min(12))))
                    .unwrap_or_default();
                let width =
                    width.saturating_sub(mark.chars().count() + crate::text::display_width(&by));
                TableCell::from(Line::from(vec![
                    Span::styled(mark, if mark == "Δ " { theme.warn } else { theme.ok }),
                    match &item.name {
                        Some(name) => Span::raw(fit(name, width)),
                        None => Span::styled("(unnamed)", theme.dim),
                    },
                    Span::styled(by, theme.dim),
                ]))
            }
            Column::PII => {
                // A null `matched_reason` means the count is unknown, never zero.
                let cell = match item.matched_reason.as_ref() {
                    Some(reason) => {
                        let open = reason.values.open_pii_finding_count;
                        Span::styled(
                            thousands(open),
                            if open > 0 { theme.warn } else { theme.dim },
                        )
                    }
                    None => Span::styled(self.unknown_pii().0, theme.dim),
                };
                TableCell::from(Line::from(cell).right_aligned())
            }
            Column::POLICY => super::policy::policy_cell(&self.policy.shown, item, theme),
            other => table_cell(
                other.field().list_cell(item),
                &CellView {
                    theme,
                    width,
                    now: view.now,
                },
            ),
        }
    }

    pub(super) fn draw_detail(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let theme = view.theme;
        let Some(item) = self.selected_item() else {
            return;
        };
        let width = area.width.saturating_sub(4) as usize;
        let mut left = vec![Line::from(vec![
            Span::styled(
                fit(item.name.as_deref().unwrap_or("(unnamed)"), width / 2),
                theme.title,
            ),
            Span::styled(format!("  {}", fit(&item.id, 40)), theme.dim),
        ])];
        left.extend(crate::tui::review::shown::review_block(
            self.reviewed.of_row(item, self.list.loaded_at).as_deref(),
            theme,
            width,
            view.now,
        ));
        let description = item
            .description
            .as_deref()
            .map(|d| sanitize_multiline(d).replace('\n', " "))
            .unwrap_or_else(|| "no description".to_owned());
        left.push(Line::from(Span::raw(fit(
            &description,
            width.saturating_sub(2) / 2 * 2,
        ))));
        if let Some(url) = &item.url {
            left.push(Line::from(Span::styled(fit(url, width), theme.accent)));
        }
        left.push(Line::from(vec![
            Span::styled(
                priority_label(&item.review_priority),
                theme.priority(&item.review_priority),
            ),
            Span::styled(
                format!(
                    "  edits 24h/7d/30d {}/{}/{}  visitors {}/{}/{}  edits {} messages {}",
                    item.edits_24h,
                    item.edits_7d,
                    item.edits_30d,
                    item.visitors_24h,
                    item.visitors_7d,
                    item.visitors_30d,
                    item.edit_count,
                    item.message_count
                ),
                theme.dim,
            ),
        ]));
        for reason in item.review_priority_explanation.iter().take(3) {
            left.push(Line::from(vec![
                Span::styled(
                    format!("  {} ", priority_label(&reason.review_priority)),
                    theme.priority(&reason.review_priority),
                ),
                Span::raw(fit(
                    &format!("{}: {}", reason.label, reason.detail),
                    width.saturating_sub(18),
                )),
            ]));
        }
        if let Some(reason) = &item.matched_reason {
            let v = &reason.values;
            left.push(Line::from(Span::styled(
                fit(
                    &format!(
                        "matched: {} · errors {} warnings {} info {} secrets {} open PII {} shared users {} connectors {} functions {}",
                        reason.label, v.error_count, v.warning_count, v.info_count, v.secret_count,
                        v.open_pii_finding_count, v.shared_user_count, v.connector_count, v.edge_function_count
                    ),
                    width,
                ),
                theme.dim,
            )));
        }
        let connectors = if item.connectors.is_empty() {
            "none".to_owned()
        } else {
            item.connectors.join(", ")
        };
        let functions = if item.edge_functions.is_empty() {
            "none".to_owned()
        } else {
            item.edge_functions
                .iter()
                .map(|f| f.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        left.push(Line::from(Span::styled(
            fit(
                &format!("connectors: {connectors} · edge functions: {functions}"),
                width,
            ),
            theme.dim,
        )));
        frame.render_widget(
            Paragraph::new(left).block(titled_pane(" Detail ", theme)),
            area,
        );
    }
}
