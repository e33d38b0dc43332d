//! How the inventory draws: the head and filter lines, the table (only the
//! visible rows, columns dropped by priority when narrow) and the detail pane.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell as TableCell, Paragraph, Row, Table};

use super::InventoryScreen;
use crate::api::model::{ActivityGroup, InventoryItem, InventorySortBy, SortOrder};
use crate::text::{fit, sanitize_line, sanitize_multiline};
use crate::tui::screens::ScreenView;
use crate::tui::screens::paged::titled_pane;
use crate::tui::theme::{Theme, priority_label};
use crate::tui::widgets::{ago, count, thousands};

/// A column of the table: what it needs and how it is filled.
pub(super) struct Column {
    title: &'static str,
    width: u16,
    /// Lower goes first when the terminal is narrow.
    keep: u8,
}

pub(super) const COLUMNS: &[Column] = &[
    Column {
        title: "Priority",
        width: 15,
        keep: 9,
    },
    Column {
        title: "Name",
        width: 0,
        keep: 10,
    },
    Column {
        title: "Owner",
        width: 14,
        keep: 7,
    },
    Column {
        title: "Audience",
        width: 9,
        keep: 8,
    },
    Column {
        title: "Visibility",
        width: 14,
        keep: 2,
    },
    Column {
        title: "Activity",
        width: 8,
        keep: 3,
    },
    Column {
        title: "Edits 7d",
        width: 8,
        keep: 5,
    },
    Column {
        title: "Visit 7d",
        width: 8,
        keep: 6,
    },
    Column {
        title: "PII",
        width: 4,
        keep: 6,
    },
    Column {
        title: "Last scan",
        width: 10,
        keep: 4,
    },
];

/// Minimum width of the name column.
pub(super) const NAME_MIN: u16 = 18;

/// The most a sorted column widens for its arrow and longer title.
const SORT_ARROW_ROOM: u16 = 3;

/// The columns that fit `width`, dropped by priority; `keep` (the sorted
/// column) is never dropped, so a sort is always visible.
pub(super) fn visible_columns(width: u16, keep: Option<usize>) -> Vec<usize> {
    let mut shown: Vec<usize> = (0..COLUMNS.len()).collect();
    let needed = |shown: &[usize]| -> u16 {
        // Room for the sorted column's arrow.
        let arrow = keep
            .filter(|&k| COLUMNS[k].width > 0)
            .map_or(0, |_| SORT_ARROW_ROOM);
        shown.iter().map(|&i| COLUMNS[i].width + 1).sum::<u16>() + NAME_MIN + 2 + arrow
    };
    while needed(&shown) > width {
        let Some((pos, _)) = shown
            .iter()
            .enumerate()
            .filter(|(_, i)| COLUMNS[**i].width > 0 && Some(**i) != keep)
            .min_by_key(|(_, i)| COLUMNS[**i].keep)
        else {
            break;
        };
        if COLUMNS[shown[pos]].keep >= 9 {
            break;
        }
        shown.remove(pos);
    }
    shown
}

/// The column that shows a sort, and its title then: a sort by a window the
/// table does not show (edits in 30 days, say) turns that family's column to it.
pub(super) fn sorted_column(sort: Option<&InventorySortBy>) -> Option<(usize, &'static str)> {
    let by_title = |title: &str| COLUMNS.iter().position(|c| c.title == title);
    let (column, title) = match sort? {
        InventorySortBy::ReviewPriority | InventorySortBy::RiskFactorCount => {
            ("Priority", "Priority")
        }
        InventorySortBy::Name => ("Name", "Name"),
        InventorySortBy::PublishAudience | InventorySortBy::ExternalAccessRank => {
            ("Audience", "Audience")
        }
        InventorySortBy::LastEditedAt => ("Activity", "Edited"),
        InventorySortBy::OpenPiiFindingCount => ("PII", "PII"),
        InventorySortBy::Edits24h => ("Edits 7d", "Edits 24h"),
        InventorySortBy::Edits7d => ("Edits 7d", "Edits 7d"),
        InventorySortBy::Edits30d => ("Edits 7d", "Edits 30d"),
        InventorySortBy::Visitors24h => ("Visit 7d", "Visit 24h"),
        InventorySortBy::Visitors7d => ("Visit 7d", "Visit 7d"),
        InventorySortBy::Visitors30d => ("Visit 7d", "Visit 30d"),
        InventorySortBy::LastSecurityScanAt => ("Last scan", "Last scan"),
        InventorySortBy::Relevance | InventorySortBy::Unknown(_) => return None,
    };
    Some((by_title(column)?, title))
}

pub(super) fn audience_label(item: &InventoryItem) -> String {
    match (&item.publish_audience, item.is_published) {
        (Some(audience), true) => sanitize_line(audience.as_str()).into_owned(),
        _ => "offline".to_owned(),
    }
}

impl InventoryScreen {
    pub(super) fn draw_head(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let total = self
            .total
            .map_or("… projects".to_owned(), |total| count(total, "project"));
        let mut spans = vec![
            Span::styled(total, theme.title),
            Span::styled(
                format!(" · {} loaded", thousands(self.list.rows.len() as i64)),
                theme.dim,
            ),
        ];
        spans.extend(self.list.head_spans(self.total, theme));
        if self.list.is_loading() {
            spans.push(Span::styled(" · loading…", theme.dim));
        } else if self.list.error.is_some() && !self.list.rows.is_empty() {
            spans.push(Span::styled(
                " · not refreshed: these rows are from before the error (r retries)",
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
                " · the list has not caught up with a change yet (r reloads)",
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
        let sorted = sorted_column(self.query.sort_by.as_ref());
        let columns = visible_columns(area.width, sorted.map(|(column, _)| column));
        // Header, plus the table's own top border line.
        let body_height = area.height.saturating_sub(2).max(1) as usize;
        let range = self.list.layout(body_height);
        let offset = range.start;
        // The sorted column widens for its title and arrow when it must.
        let extra = |i: usize| match sorted {
            Some((column, title)) if column == i && COLUMNS[i].width > 0 => {
                (title.chars().count() as u16 + 2).saturating_sub(COLUMNS[i].width)
            }
            _ => 0,
        };
        let fixed: u16 = columns
            .iter()
            .map(|&i| COLUMNS[i].width + extra(i) + 1)
            .sum();
        let name_width = area.width.saturating_sub(fixed + 4).max(NAME_MIN) as usize;
        let title = |i: usize| match sorted {
            Some((column, title)) if column == i => title,
            _ => COLUMNS[i].title,
        };
        // Only the visible rows are built.
        let rows: Vec<Row> = self.list.rows[range]
            .iter()
            .map(|item| {
                // The first column carries the mark glyph.
                let mark = TableCell::from(Span::styled(self.list.mark_glyph(item), theme.accent));
                Row::new(
                    std::iter::once(mark)
                        .chain(
                            columns
                                .iter()
                                .map(|&i| self.cell(title(i), item, name_width, view)),
                        )
                        .collect::<Vec<_>>(),
                )
            })
            .collect();
        let widths: Vec<Constraint> = std::iter::once(Constraint::Length(1))
            .chain(columns.iter().map(|&i| match COLUMNS[i].width {
                0 => Constraint::Min(NAME_MIN),
                w => Constraint::Length(w + extra(i)),
            }))
            .collect();
        let arrow = match self.sort_order() {
            SortOrder::Asc => "↑",
            _ => "↓",
        };
        let header = Row::new(
            std::iter::once(TableCell::from(""))
                .chain(columns.iter().map(|&i| match sorted {
                    Some((column, title)) if column == i => {
                        TableCell::from(Span::styled(format!("{title} {arrow}"), theme.accent))
                    }
                    _ => TableCell::from(COLUMNS[i].title),
                }))
                .collect::<Vec<_>>(),
        )
        .style(theme.title);
        let table = Table::new(rows, widths).header(header);
        self.list.draw_table(frame, area, table, offset, theme);
    }

    pub(super) fn cell(
        &self,
        title: &str,
        item: &InventoryItem,
        name_width: usize,
        view: &ScreenView,
    ) -> TableCell<'static> {
        let theme = view.theme;
        let number = |value: i64| TableCell::from(Line::from(thousands(value)).right_aligned());
        match title {
            "Priority" => TableCell::from(Span::styled(
                priority_label(&item.review_priority),
                theme.priority(&item.review_priority),
            )),
            "Name" => {
                let mark = self.reviewed.glyph(&item.id);
                // Who marked it, beside the name, while the name keeps most of the cell.
                let by = self
                    .reviewed
                    .reviewer(&item.id)
                    .filter(|_| !mark.is_empty() && name_width >= 16)
                    .map(|name| format!(" · {}", fit(name, (name_width / 3).min(12))))
                    .unwrap_or_default();
                let width = name_width
                    .saturating_sub(mark.chars().count() + crate::text::display_width(&by));
                TableCell::from(Line::from(vec![
                    Span::styled(mark, if mark == "Δ " { theme.warn } else { theme.ok }),
                    match &item.name {
                        Some(name) => Span::raw(fit(name, width)),
                        None => Span::styled("(unnamed)", theme.dim),
                    },
                    Span::styled(by, theme.dim),
                ]))
            }
            "Owner" => TableCell::from(fit(item.owner.display_name.as_deref().unwrap_or("—"), 14)),
            "Audience" => TableCell::from(audience_label(item)),
            "Visibility" => TableCell::from(fit(
                item.visibility.as_ref().map_or("—", |v| v.as_str()),
                14,
            )),
            "Activity" => TableCell::from(match &item.activity_group {
                ActivityGroup::Last14Days => "14 d".to_owned(),
                ActivityGroup::Last60Days => "60 d".to_owned(),
                ActivityGroup::Older => "older".to_owned(),
                ActivityGroup::Unknown(raw) => fit(raw, 8),
            }),
            "Edits 24h" => number(item.edits_24h),
            "Edits 7d" => number(item.edits_7d),
            "Edits 30d" => number(item.edits_30d),
            "Visit 24h" => number(item.visitors_24h),
            "Visit 7d" => number(item.visitors_7d),
            "Visit 30d" => number(item.visitors_30d),
            "Edited" => TableCell::from(match item.last_edited_at {
                Some(at) => ago((view.now - at).whole_seconds()),
                None => "—".to_owned(),
            }),
            "PII" => {
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
            "Last scan" => TableCell::from(match item.last_security_scan_at {
                Some(at) => ago((view.now - at).whole_seconds()),
                None => "never".to_owned(),
            }),
            _ => TableCell::from(""),
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
            self.reviewed.get(&item.id),
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
