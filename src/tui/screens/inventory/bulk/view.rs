//! How the bulk flow draws: the confirm (how many, which, what it costs),
//! the progress, and the report, in one popup over the inventory.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::{BulkOp, RowOutcome, Stage, estimate, tally_text};
use crate::text::fit;
use crate::tui::action::Action;
use crate::tui::screens::ScreenView;
use crate::tui::screens::inventory::InventoryScreen;
use crate::tui::widgets::centered;
use crate::tui::widgets::scroll::wrap_lines;
use crate::tui::widgets::thousands;

impl InventoryScreen {
    /// Draws the flow's popup over `area`.
    pub(in crate::tui::screens::inventory) fn draw_bulk(
        &self,
        frame: &mut Frame,
        area: Rect,
        view: &ScreenView,
    ) {
        let theme = view.theme;
        let Some(flow) = &self.bulk.flow else {
            return;
        };
        let width = area.width.saturating_sub(6).min(90);
        let inner_width = width.saturating_sub(4) as usize;
        let list_height = area.height.saturating_sub(8).max(1) as usize;
        let count = flow.targets.len();
        let (op, title, mut lines, scroll, footer) = match &flow.stage {
            Stage::ChooseVisibility(menu) => {
                menu.draw_keyed(frame, area, theme, view.keymap, ["choose", "cancel"]);
                return;
            }
            Stage::Confirm { op, scroll } => {
                let mut lines = vec![Line::from(Span::styled(op.question(count), theme.warn))];
                if flow.cursor_row {
                    lines.push(Line::from(Span::styled(
                        "Nothing is marked: this changes the row under the cursor (space marks rows).",
                        theme.warn,
                    )));
                }
                if let Some(total) = flow.of_total {
                    lines.push(Line::from(Span::styled(
                        format!(
                            "{count} of {}: only loaded rows are marked (A loads and marks the rest).",
                            thousands(total)
                        ),
                        theme.warn,
                    )));
                }
                lines.push(Line::from(Span::styled(
                    match op {
                        BulkOp::Unpublish => {
                            "They go offline; audience and visibility are kept."
                        }
                        BulkOp::Visibility(_) => {
                            "Visibility is who may open the project in the editor, not the published app's audience."
                        }
                    },
                    theme.dim,
                )));
                lines.push(Line::from(Span::styled(
                    estimate(count, self.list.rate()),
                    theme.dim,
                )));
                let which = if flow.cursor_row {
                    "the cursor's row".to_owned()
                } else {
                    format!("{count} marked")
                };
                (
                    op,
                    format!(" {} — {which} ", op.describe()),
                    lines,
                    *scroll,
                    "y or enter: apply to all · n or esc: cancel · j/k scroll",
                )
            }
            Stage::Running {
                op,
                stop,
                resume_at,
                ..
            } => {
                let done = flow.results.len();
                let (_, failed, _) = flow.tally();
                let bar_width = inner_width.saturating_sub(12).max(1);
                let filled = bar_width * done / count.max(1);
                let reserve_note = if resume_at.is_some() {
                    " · at the budget's reserve: paced to the limit, the rest kept for you"
                } else {
                    ""
                };
                let lines = vec![
                    Line::from(format!(
                        "{done}/{count} done · {failed} failed{reserve_note}"
                    )),
                    Line::from(Span::styled(
                        format!("[{}{}]", "█".repeat(filled), "░".repeat(bar_width - filled)),
                        theme.accent,
                    )),
                ];
                let footer = if *stop {
                    "stopping after the change in flight"
                } else {
                    "paced by the rate limit · esc stops after the change in flight"
                };
                (
                    op,
                    format!(" {} ", op.describe()),
                    lines,
                    done.saturating_sub(list_height / 2),
                    footer,
                )
            }
            Stage::Report { op, scroll } => {
                let mut lines = vec![Line::from(Span::styled(
                    tally_text(flow.tally()),
                    theme.title,
                ))];
                if let Some(scopes) = &self.bulk.missing_scope {
                    lines.push(Line::from(Span::styled(
                        format!(
                            "Stopped: the API key lacks {}. Changes are off for this session.",
                            scopes.join(" or ")
                        ),
                        theme.error,
                    )));
                }
                (
                    op,
                    format!(" {} — report ", op.describe()),
                    lines,
                    *scroll,
                    "esc or enter: close · j/k scroll",
                )
            }
        };
        // The head lines wrap (never cut); the rows get what they, the
        // borders and the "more" line leave.
        lines = wrap_lines(lines, inner_width);
        let head = lines.len();
        let rows_room = (area.height as usize).saturating_sub(head + 5).max(1);
        let shown = rows_room.min(count);
        let scroll = scroll.min(count.saturating_sub(shown));
        for (index, target) in flow.targets.iter().enumerate().skip(scroll).take(shown) {
            let (mark, style) = match flow.results.get(index) {
                Some(RowOutcome::Ok) => ("✓".to_owned(), theme.ok),
                Some(RowOutcome::Failed(kind)) => (format!("✗ failed: {kind}"), theme.error),
                Some(RowOutcome::Skipped) => ("- not run".to_owned(), theme.dim),
                None => ("·".to_owned(), theme.dim),
            };
            let mark = fit(&mark, 32);
            let label_width = inner_width.saturating_sub(crate::text::display_width(&mark) + 1);
            lines.push(Line::from(vec![
                Span::styled(mark, style),
                Span::raw(" "),
                Span::raw(target.label(op, label_width)),
            ]));
        }
        if scroll + shown < count {
            lines.push(Line::from(Span::styled(
                format!(
                    "… {} more ({} scrolls)",
                    count - scroll - shown,
                    view.keymap.key_for(Action::Down)
                ),
                theme.dim,
            )));
        }
        let height = (lines.len() + 2).min(area.height as usize) as u16;
        let popup = centered(area, width, height);
        frame.render_widget(Clear, popup);
        frame.render_widget(
            Paragraph::new(lines).block(
                Block::default()
                    .borders(Borders::ALL)
                    .border_style(theme.accent)
                    .title(Span::styled(title, theme.title))
                    .title_bottom(Span::styled(format!(" {footer} "), theme.dim)),
            ),
            popup,
        );
    }
}
