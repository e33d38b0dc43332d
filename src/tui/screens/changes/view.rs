//! How the Changes screen draws: a line naming the two snapshots, then the
//! changes grouped by kind (the kind spelled on the first row of its group),
//! each with its name and before → after. Every value from the history came
//! from the service once, so every one is sanitized.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell as TableCell, Paragraph, Row, Table};
use serde_json::Value;

use super::ChangesScreen;
use crate::history::{ChangeKind, Severity, SnapshotInfo};
use crate::text::fit;
use crate::tui::screens::ScreenView;
use crate::tui::screens::paged::draw_placeholder;
use crate::tui::theme::Theme;
use crate::tui::widgets::display::utc_datetime;

/// A value before or after, in a few words: lists joined, null as a dash.
pub fn value_text(value: &Value) -> String {
    match value {
        Value::Null => "—".into(),
        Value::Bool(true) => "yes".into(),
        Value::Bool(false) => "no".into(),
        Value::Number(number) => number.to_string(),
        Value::String(text) => text.clone(),
        Value::Array(items) if items.is_empty() => "none".into(),
        Value::Array(items) => items.iter().map(value_text).collect::<Vec<_>>().join(", "),
        Value::Object(_) => value.to_string(),
    }
}

/// The kinds that widen exposure are drawn as critical, their reversals calm.
fn kind_style(kind: &ChangeKind, theme: &Theme) -> ratatui::style::Style {
    match kind.severity() {
        Severity::Exposure => theme.critical,
        Severity::Notable => theme.warn,
        Severity::Routine => theme.base,
    }
}

fn snapshot_label(info: &SnapshotInfo) -> String {
    format!("#{} ({} UTC)", info.id, utc_datetime(info.taken_at))
}

pub fn draw(screen: &ChangesScreen, frame: &mut Frame, area: Rect, view: &ScreenView) {
    let theme = view.theme;
    let [head_area, table_area] =
        Layout::vertical([Constraint::Length(2), Constraint::Min(3)]).areas(area);
    let width = area.width as usize;
    let mut first = vec![Span::styled("Changes", theme.title)];
    if let (Some(before), Some(after)) = (&screen.before, &screen.after) {
        first.push(Span::styled(
            fit(
                &format!(
                    " from {} to {}{}",
                    snapshot_label(before),
                    snapshot_label(after),
                    if screen.between.is_none() {
                        " · newest two"
                    } else {
                        ""
                    }
                ),
                width.saturating_sub(8),
            ),
            theme.dim,
        ));
    }
    if screen.list.is_loading() {
        first.push(Span::styled(" · loading…", theme.dim));
    }
    let counts = screen.kind_counts();
    let total: usize = counts.iter().map(|(_, count)| count).sum();
    let kind = match &screen.kind_filter {
        Some(kind) => format!("kind {}", kind.as_str()),
        None => "all kinds".into(),
    };
    // Counts only once the history answered: before, or when it could not be
    // read, there is nothing to count, and a zero would be made up.
    let counted = match screen.list.loaded_at {
        // Fewer than two snapshots: nothing was compared, so nothing counted.
        Some(_) if screen.after.is_none() => format!("no two snapshots to compare yet · {kind}"),
        Some(_) => format!(
            "{} shown of {total} · {kind} · {} changed",
            screen.list.rows.len(),
            crate::tui::widgets::count(counts.len() as i64, "kind")
        ),
        None => format!("changes not read from the history yet · {kind}"),
    };
    let second = Line::from(vec![Span::styled(fit(&counted, width), theme.dim)]);
    frame.render_widget(Paragraph::new(vec![Line::from(first), second]), head_area);

    if screen.list.rows.is_empty() {
        let empty = if screen.after.is_none() && screen.list.loaded_at.is_some() {
            Line::from(Span::styled(
                "The history holds fewer than two snapshots. One is taken in the background when the newest is older than snapshot_max_age, or run `vantage snapshot`.",
                theme.dim,
            ))
        } else {
            Line::from(Span::styled(
                "Nothing changed between these snapshots.",
                theme.ok,
            ))
        };
        let lines = screen
            .list
            .placeholder(theme, "Reading the history…", empty);
        draw_placeholder(frame, table_area, lines, theme);
    } else {
        draw_table(screen, frame, table_area, theme);
    }
    if let Some((_, menu)) = &screen.picker {
        menu.draw_keyed(frame, area, theme, view.keymap, ["pick", "close"]);
    }
}

fn draw_table(screen: &ChangesScreen, frame: &mut Frame, area: Rect, theme: &Theme) {
    let height = area.height.saturating_sub(2).max(1) as usize;
    let range = screen.list.layout(height);
    let offset = range.start;
    let kind_width: usize = if area.width >= 100 { 26 } else { 20 };
    let name_width = ((area.width as usize).saturating_sub(kind_width + 3) * 2 / 5).max(8);
    let change_width = (area.width as usize)
        .saturating_sub(kind_width + name_width + 3)
        .max(8);
    let rows: Vec<Row> = screen.list.rows[range.clone()]
        .iter()
        .enumerate()
        .map(|(index, change)| {
            let position = range.start + index;
            let group_start = position == 0 || screen.list.rows[position - 1].kind != change.kind;
            let kind = if group_start {
                Span::styled(
                    fit(change.kind.as_str(), kind_width),
                    kind_style(&change.kind, theme),
                )
            } else {
                Span::styled(
                    fit(&format!("  {}", change.kind.as_str()), kind_width),
                    theme.dim,
                )
            };
            let name = change.name.as_deref().unwrap_or(&change.id);
            let before = value_text(&change.before);
            let after = value_text(&change.after);
            let what = if before == "—" && after == "—" {
                String::new()
            } else {
                format!("{before} → {after}")
            };
            Row::new(vec![
                TableCell::from(kind),
                TableCell::from(fit(name, name_width)),
                TableCell::from(fit(&what, change_width)),
            ])
        })
        .collect();
    let table = Table::new(
        rows,
        [
            Constraint::Length(kind_width as u16),
            Constraint::Length(name_width as u16),
            Constraint::Min(8),
        ],
    )
    .header(Row::new(["Kind", "Name", "Before → after"]).style(theme.title));
    screen.list.draw_table(frame, area, table, offset, theme);
}
