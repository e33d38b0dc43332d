//! How the monitor draws: the head line, one project large, or the grid of pinned
//! projects, and the state of the data (fresh, stale, frozen).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Bar, BarChart, BarGroup, Block, BorderType, Borders, Paragraph, Sparkline, Wrap,
};

use super::live::never_published;
use super::{GridFit, Live, MonitorScreen, TILE_HEIGHT, TILE_MIN_WIDTH, axis};
use crate::text::fit;
use crate::tui::action::Action;
use crate::tui::effect::ErrorInfo;
use crate::tui::focus::GoneProject;
use crate::tui::screens::{ProjectRef, ScreenView, error_text};
use crate::tui::theme::Theme;
use crate::tui::widgets::display::{big_number, utc_hm, utc_hms};
use crate::tui::widgets::{ago, rule, thousands};

/// What a project without analytics shows: what the 404 may mean, never one
/// cause picked for it (a deleted project answers the same). It is asked
/// again only every few minutes (`NEVER_PUBLISHED_RECHECK`).
const NEVER_PUBLISHED: &str =
    "404 analytics_not_found: not published, or gone. Checked every 5 min; r checks now.";

/// A project's 404 `analytics_not_found`: its going when a read found it
/// gone (no other cause then), else what the 404 may mean.
fn not_found_words(error: &ErrorInfo, project_id: &str, view: &ScreenView) -> String {
    match view.gone.filter(|gone| gone.id == project_id) {
        Some(_) => GoneProject::went_with_it("live visitors", error),
        None => NEVER_PUBLISHED.to_owned(),
    }
}

impl MonitorScreen {
    pub(super) fn draw_head(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let theme = view.theme;
        let mode = if self.watch.is_empty() {
            "selected project".to_owned()
        } else if self.zoom {
            "one pinned project".to_owned()
        } else if self.shared_scale {
            format!("{} pinned · one shared scale", self.watch.len())
        } else {
            format!("{} pinned · each tile its own scale", self.watch.len())
        };
        let mut spans = vec![
            Span::styled("Live visitors", theme.title),
            Span::styled(
                format!(
                    " · {mode} · refresh every {} s",
                    self.refresh.whole_seconds()
                ),
                theme.dim,
            ),
        ];
        let refresh = self.effective_refresh();
        if refresh > self.refresh {
            // Said, never silent: the budget is why the refresh is slower.
            spans[1] = Span::styled(
                format!(" · {mode} · refresh every {} s", refresh.whole_seconds()),
                theme.dim,
            );
            spans.push(Span::styled(
                format!(
                    " (stretched from {} s to fit the rate limit)",
                    self.refresh.whole_seconds()
                ),
                theme.warn,
            ));
        }
        if self.frozen {
            spans.push(Span::raw(" "));
            spans.push(Span::styled(
                " FROZEN ",
                theme.warn.add_modifier(Modifier::REVERSED | Modifier::BOLD),
            ));
            if let Some(since) = self.frozen_for(view.now) {
                spans.push(Span::styled(format!(" {since}"), theme.warn));
            }
        }
        frame.render_widget(Paragraph::new(Line::from(spans)), area);
    }

    pub(super) fn draw_large(
        &self,
        frame: &mut Frame,
        area: Rect,
        project: &ProjectRef,
        view: &ScreenView,
    ) {
        let theme = view.theme;
        let live = self.live.get(&project.id);
        let [top, chart_area] =
            Layout::vertical([Constraint::Length(7), Constraint::Min(4)]).areas(area);
        let digits = live.map_or(1, |l| l.current_visitors.to_string().len()) as u16;
        let number_width = (digits * 4 + 3).max(17).min(top.width / 2);
        let [number_area, info_area] =
            Layout::horizontal([Constraint::Length(number_width), Constraint::Min(10)]).areas(top);
        let number_block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border)
            .title(Span::styled(" Visitors now ", theme.title));
        let inner_width = number_width.saturating_sub(2) as usize;
        let number = match live {
            Some(live) if live.error.is_none() && live.loaded => big_number(
                live.current_visitors,
                inner_width,
                theme.accent.add_modifier(Modifier::BOLD),
            ),
            _ => vec![Line::from(Span::styled("…", theme.dim))],
        };
        frame.render_widget(Paragraph::new(number).block(number_block), number_area);
        let mut info = vec![
            Line::from(Span::styled(
                project.label(info_area.width.saturating_sub(2) as usize),
                theme.title,
            )),
            Line::from(Span::styled(fit(&project.id, 40), theme.dim)),
        ];
        if let Some(live) = live.filter(|live| live.error.is_none() && live.loaded) {
            info.push(Line::from(format!(
                "{} visitors active in the last 5 minutes",
                thousands(live.current_visitors)
            )));
            if let Some(peak) = live
                .buckets
                .iter()
                .max_by_key(|b| (b.visitors, b.timestamp))
            {
                let total: i64 = live.buckets.iter().map(|b| b.visitors).sum();
                info.push(Line::from(Span::styled(
                    format!(
                        "peak {} at {} UTC · {} visits in {} min",
                        thousands(peak.visitors),
                        utc_hm(peak.timestamp),
                        thousands(total),
                        live.buckets.len()
                    ),
                    theme.dim,
                )));
            }
        }
        if self.watch.is_empty() {
            info.push(watch_key_line(view, "", " pins it to the watch list"));
        }
        frame.render_widget(
            Paragraph::new(info).block(Block::default().borders(Borders::NONE)),
            info_area.inner(ratatui::layout::Margin::new(1, 0)),
        );
        match live {
            Some(Live {
                error: Some(error), ..
            }) => frame.render_widget(
                Paragraph::new(if never_published(error) {
                    vec![Line::from(Span::styled(
                        not_found_words(error, &project.id, view),
                        theme.warn,
                    ))]
                } else {
                    error_text(error, theme)
                })
                .wrap(Wrap { trim: true })
                .block(rule(theme)),
                chart_area,
            ),
            Some(live) if live.loaded => self.draw_chart(frame, chart_area, live, theme),
            _ => frame.render_widget(
                Paragraph::new(Span::styled(
                    if self.frozen {
                        "Frozen before data arrived."
                    } else {
                        "Loading…"
                    },
                    theme.dim,
                ))
                .block(rule(theme)),
                chart_area,
            ),
        }
    }

    pub(super) fn draw_chart(&self, frame: &mut Frame, area: Rect, live: &Live, theme: &Theme) {
        let max = live.buckets.iter().map(|b| b.visitors).max().unwrap_or(0);
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border)
            .title(Span::styled(
                format!(
                    " Visitors per minute, last 30 minutes (UTC) · peak {} ",
                    thousands(max)
                ),
                theme.title,
            ));
        let inner = block.inner(area);
        frame.render_widget(block, area);
        let scale = max.max(1) as u64;
        let [gutter, plot] = Layout::horizontal([
            Constraint::Length(axis::gutter_width(scale)),
            Constraint::Min(1),
        ])
        .areas(inner);
        let [bars_area, axis_area] =
            Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(plot);
        axis::draw_y_axis(
            frame,
            Rect {
                height: bars_area.height,
                ..gutter
            },
            scale,
            theme.dim,
        );
        let count = live.buckets.len().max(1) as u16;
        let (bar_width, gap) = if bars_area.width >= count * 3 {
            ((bars_area.width + 1) / count - 1, 1)
        } else if bars_area.width >= count * 2 {
            (1, 1)
        } else {
            ((bars_area.width / count).max(1), 0)
        };
        // Centred: the bars rarely fill the width exactly.
        let used = ((bar_width + gap) * count).saturating_sub(gap);
        let [_, bars_area, _] = Layout::horizontal([
            Constraint::Fill(1),
            Constraint::Length(used),
            Constraint::Fill(1),
        ])
        .areas(bars_area);
        let axis_area = Rect {
            x: bars_area.x,
            width: bars_area.width,
            ..axis_area
        };
        let bars: Vec<Bar> = live
            .buckets
            .iter()
            .map(|bucket| {
                Bar::default()
                    .value(bucket.visitors.max(0) as u64)
                    .text_value(String::new())
            })
            .collect();
        let chart = BarChart::default()
            .data(BarGroup::default().bars(&bars))
            .bar_width(bar_width)
            .bar_gap(gap)
            .max(scale)
            .bar_style(theme.accent);
        frame.render_widget(chart, bars_area);
        // Labels from the server's timestamps: right across midnight, whatever
        // the local clock says.
        let timestamps: Vec<_> = live.buckets.iter().map(|b| b.timestamp).collect();
        let step = usize::from(bar_width + gap);
        let starts: Vec<usize> = (0..timestamps.len()).map(|i| i * step).collect();
        frame.render_widget(
            Paragraph::new(Span::styled(
                axis::time_axis(&timestamps, &starts, used as usize),
                theme.dim,
            )),
            axis_area,
        );
    }

    pub(super) fn draw_grid(
        &self,
        frame: &mut Frame,
        area: Rect,
        shown: &[ProjectRef],
        view: &ScreenView,
    ) {
        let (columns, tile_height) = grid_shape(shown.len(), area);
        let rows_fit = (area.height / tile_height).max(1) as usize;
        let cursor = self.cursor.min(shown.len().saturating_sub(1));
        let fit = GridFit {
            columns,
            rows: rows_fit,
        };
        self.grid_fit.set(Some(fit));
        let first_row = fit.first_row(cursor);
        let scale = self.shared_scale.then(|| self.shared_max(shown));
        let rows = Layout::vertical(vec![Constraint::Length(tile_height); rows_fit]).split(area);
        for (row_index, row_area) in rows.iter().enumerate() {
            let cells = Layout::horizontal(vec![Constraint::Ratio(1, columns as u32); columns])
                .split(*row_area);
            for (column, cell) in cells.iter().enumerate() {
                let index = (first_row + row_index) * columns + column;
                if let Some(project) = shown.get(index) {
                    let tile = Tile {
                        project,
                        focused: index == cursor,
                        scale,
                    };
                    self.draw_tile(frame, *cell, &tile, view);
                }
            }
        }
        let hidden = shown.len().saturating_sub((first_row + rows_fit) * columns);
        if hidden > 0 {
            let last = Rect {
                y: area.bottom().saturating_sub(1),
                height: 1,
                ..area
            };
            frame.render_widget(
                Paragraph::new(Span::styled(
                    format!("+{hidden} more below (j)"),
                    view.theme.dim,
                ))
                .right_aligned(),
                last,
            );
        }
    }

    /// The highest minute among the shown projects: the one scale of every tile
    /// while the scale is shared.
    fn shared_max(&self, shown: &[ProjectRef]) -> u64 {
        shown
            .iter()
            .filter_map(|project| self.live.get(&project.id))
            .filter(|live| live.error.is_none())
            .flat_map(|live| live.buckets.iter().map(|b| b.visitors.max(0) as u64))
            .max()
            .unwrap_or(0)
    }

    fn draw_tile(&self, frame: &mut Frame, area: Rect, tile: &Tile, view: &ScreenView) {
        let theme = view.theme;
        let Tile {
            project, focused, ..
        } = *tile;
        let pinned = self.is_pinned(&project.id);
        let title_width = area.width.saturating_sub(8) as usize;
        // The focus shows without colour too: a marker and a thick border.
        let marker = if focused { "▶ " } else { "" };
        let title = if pinned {
            format!(" {marker}{} ", project.label(title_width))
        } else {
            format!(
                " {marker}{} (selected) ",
                project.label(title_width.saturating_sub(11))
            )
        };
        let block = Block::default()
            .borders(Borders::ALL)
            .border_type(if focused {
                BorderType::Thick
            } else {
                BorderType::Plain
            })
            .border_style(if focused { theme.accent } else { theme.border })
            .title(Span::styled(
                title,
                if focused { theme.title } else { theme.base },
            ));
        let inner = block.inner(area);
        frame.render_widget(block, area);
        let [line_area, chart_area] =
            Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(inner);
        let live = self.live.get(&project.id);
        let line = match live {
            Some(Live {
                error: Some(error), ..
            }) => {
                let why = if never_published(error) {
                    not_found_words(error, &project.id, view)
                } else {
                    error
                        .gate
                        .as_ref()
                        .map_or_else(|| error.summary.clone(), |gate| gate.explain())
                };
                // Wrapped over the tile: it has no chart to show.
                frame.render_widget(
                    Paragraph::new(Span::styled(
                        crate::text::sanitize_line(&why).into_owned(),
                        theme.warn,
                    ))
                    .wrap(Wrap { trim: true }),
                    inner,
                );
                return;
            }
            Some(live) if live.loaded => {
                let mut spans = vec![
                    Span::styled(
                        thousands(live.current_visitors),
                        theme.accent.add_modifier(Modifier::BOLD),
                    ),
                    Span::styled(" now", theme.dim),
                ];
                if let Some(at) = live.updated_at {
                    spans.push(Span::styled(
                        format!(
                            " · at {} ({})",
                            utc_hms(at),
                            ago((view.now - at).whole_seconds())
                        ),
                        theme.dim,
                    ));
                }
                if !pinned {
                    spans.push(Span::styled(" · w pins", theme.dim));
                }
                Line::from(spans)
            }
            _ => Line::from(Span::styled("…", theme.dim)),
        };
        frame.render_widget(Paragraph::new(line), line_area);
        if let Some(live) = live.filter(|live| live.loaded) {
            self.draw_sparkline(frame, chart_area, live, tile, theme);
        }
    }

    /// A tile's chart: the y axis on the left, the minutes stretched to the
    /// width, and the time axis below when there is room.
    fn draw_sparkline(
        &self,
        frame: &mut Frame,
        area: Rect,
        live: &Live,
        tile: &Tile,
        theme: &Theme,
    ) {
        let own_max = live
            .buckets
            .iter()
            .map(|b| b.visitors.max(0) as u64)
            .max()
            .unwrap_or(0);
        let scale = tile.scale.unwrap_or(own_max).max(1);
        let with_time_axis = area.height >= 3;
        let [spark_rows, axis_row] = Layout::vertical([
            Constraint::Min(1),
            Constraint::Length(u16::from(with_time_axis)),
        ])
        .areas(area);
        let [gutter, spark_area] = Layout::horizontal([
            Constraint::Length(axis::gutter_width(scale)),
            Constraint::Min(1),
        ])
        .areas(spark_rows);
        axis::draw_y_axis(frame, gutter, scale, theme.dim);
        // The newest minutes that fit, spread over the tile's width.
        let width = spark_area.width as usize;
        let shown = &live.buckets[live.buckets.len().saturating_sub(width)..];
        let starts = axis::spread(shown.len(), width);
        let data: Vec<u64> = (0..width)
            .map(|column| {
                let bucket = starts
                    .partition_point(|start| *start <= column)
                    .saturating_sub(1);
                shown.get(bucket).map_or(0, |b| b.visitors.max(0) as u64)
            })
            .collect();
        frame.render_widget(
            Sparkline::default()
                .data(&data)
                .max(scale)
                .style(theme.accent),
            spark_area,
        );
        if with_time_axis {
            let timestamps: Vec<_> = shown.iter().map(|b| b.timestamp).collect();
            let axis_area = Rect {
                x: spark_area.x,
                width: spark_area.width,
                ..axis_row
            };
            frame.render_widget(
                Paragraph::new(Span::styled(
                    axis::time_axis(&timestamps, &starts, width),
                    theme.dim,
                )),
                axis_area,
            );
        }
    }
}

/// A dimmed line that names the watch key between `before` and `after`.
pub(super) fn watch_key_line(view: &ScreenView, before: &str, after: &str) -> Line<'static> {
    let key = view.keymap.key_for(Action::Watch);
    Line::from(Span::styled(
        format!("{before}{key}{after}"),
        view.theme.dim,
    ))
}

/// One tile of the grid: which project, whether it has the focus, and the
/// shared scale when one is on (`None`: the tile's own peak).
struct Tile<'a> {
    project: &'a ProjectRef,
    focused: bool,
    scale: Option<u64>,
}

/// Columns and tile height for `count` tiles in `area`: the tiles grow with
/// the terminal. Of the shapes whose rows all fit, the one with the largest
/// tiles (width capped at four times the height, so none is a thin strip);
/// when none fits, the narrowest tiles at the smallest height, scrolled.
fn grid_shape(count: usize, area: Rect) -> (usize, u16) {
    let count = count.max(1);
    let max_columns = ((area.width / TILE_MIN_WIDTH).max(1) as usize).min(count);
    let mut best: Option<(u16, usize, u16)> = None;
    for columns in 1..=max_columns {
        let rows = count.div_ceil(columns) as u16;
        let height = area.height / rows;
        if height < TILE_HEIGHT {
            continue;
        }
        let width = area.width / columns as u16;
        let size = width.min(height.saturating_mul(4));
        if best.is_none_or(|(best_size, ..)| size >= best_size) {
            best = Some((size, columns, height));
        }
    }
    match best {
        Some((_, columns, height)) => (columns, height),
        None => (max_columns, TILE_HEIGHT),
    }
}
