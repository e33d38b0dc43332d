//! The Analytics screen's traffic over time: visitors and pageviews as a chart
//! with y-axis labels and a time axis, and pageviews per visit, session
//! duration and bounce rate as tiles. Hourly buckets for ranges up to 31
//! days, daily ones beyond.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::symbols;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Borders, Chart, Dataset, GraphType, Paragraph, Wrap};
use time::{Date, OffsetDateTime};

use super::error_text;
use crate::api::model::{Granularity, MAX_HOURLY_RANGE_DAYS, SeriesValue, TimeSeries, Traffic};
use crate::text::{fit, sanitize_line};
use crate::tui::effect::{Cx, ErrorInfo, Slot};
use crate::tui::ops::GetTraffic;
use crate::tui::request::{Message, Operation};
use crate::tui::theme::Theme;
use crate::tui::widgets::display::utc_datetime;

/// What the chart on screen was loaded for: project, first and last date.
pub type TrafficKey = (String, Date, Date);

/// The answer kept for a key (project and dates): one request at a time, a
/// newer key's request replacing an older one's, a stale reply dropped by
/// its token. The breakdowns and the traffic chart each keep one.
#[derive(Debug)]
pub struct Fetched<D> {
    pub data: Option<D>,
    pub error: Option<ErrorInfo>,
    loaded_for: Option<TrafficKey>,
    pending: Option<(u64, TrafficKey)>,
}

impl<D> Default for Fetched<D> {
    fn default() -> Self {
        Self {
            data: None,
            error: None,
            loaded_for: None,
            pending: None,
        }
    }
}

impl<D> Fetched<D> {
    /// Forgets what is shown; a reply in flight is dropped by its token.
    pub fn reset(&mut self) {
        *self = Self::default();
    }

    pub fn is_loading(&self) -> bool {
        self.pending.is_some()
    }

    /// Whether `key` wants a request: neither shown nor asked for, or `force`.
    fn wants(&self, key: &TrafficKey, force: bool) -> bool {
        let asked = self.pending.as_ref().is_some_and(|(_, k)| k == key);
        force || !(asked || self.loaded_for.as_ref() == Some(key))
    }

    /// Asks for `key` in `slot` unless it is shown or asked for already
    /// (`force` asks anyway); `request` is made of the project and the
    /// midnights (UTC) that start the first and the last day.
    pub fn fetch<O: Operation<Output = D>, M: Message>(
        &mut self,
        cx: &mut Cx,
        slot: Slot,
        key: &TrafficKey,
        force: bool,
        request: impl FnOnce(String, OffsetDateTime, OffsetDateTime) -> O,
        message: fn(Result<D, ErrorInfo>) -> M,
    ) {
        if !self.wants(key, force) {
            return;
        }
        let (project_id, first, last) = key.clone();
        let request = request(
            project_id,
            first.midnight().assume_utc(),
            last.midnight().assume_utc(),
        );
        let token = cx.request(slot, request, message);
        self.pending = Some((token, key.clone()));
    }

    /// Keeps the reply to the request in flight; false for a stale reply.
    pub fn accept_reply(&mut self, token: u64, reply: Result<D, ErrorInfo>) -> bool {
        if self.pending.as_ref().is_none_or(|(t, _)| *t != token) {
            return false;
        }
        let Some((_, key)) = self.pending.take() else {
            return false;
        };
        match reply {
            Ok(data) => {
                self.data = Some(data);
                self.error = None;
            }
            Err(error) => {
                self.data = None;
                self.error = Some(error);
            }
        }
        self.loaded_for = Some(key);
        true
    }
}

/// The traffic chart beside the tiles.
pub type TrafficPanel = Fetched<Traffic>;

/// Hourly up to 31 days (the service's hourly limit), daily beyond.
pub fn granularity_for(first: Date, last: Date) -> Granularity {
    if (last - first).whole_days() <= MAX_HOURLY_RANGE_DAYS {
        Granularity::Hour
    } else {
        Granularity::Day
    }
}

impl TrafficPanel {
    /// Loads unless what is shown (or asked for) already matches; `force` reloads.
    pub fn load<M: Message>(
        &mut self,
        cx: &mut Cx,
        slot: Slot,
        key: &TrafficKey,
        force: bool,
        message: fn(Result<Traffic, ErrorInfo>) -> M,
    ) {
        let (_, first, last) = key;
        let granularity = granularity_for(*first, *last);
        self.fetch(
            cx,
            slot,
            key,
            force,
            |project_id, starts_at, ends_at| GetTraffic {
                project_id,
                starts_at,
                ends_at,
                granularity,
            },
            message,
        );
    }

    /// The chart beside the tiles; an error or "loading" in their place.
    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let Some(data) = &self.data else {
            let text = match &self.error {
                // The breakdowns below say why there are no analytics at all.
                Some(error)
                    if error.is_service(crate::api::model::ErrorType::AnalyticsNotFound) =>
                {
                    vec![Line::from(Span::styled("No traffic over time.", theme.dim))]
                }
                Some(error) => error_text(error, theme),
                None => vec![Line::from(Span::styled("Loading traffic…", theme.dim))],
            };
            frame.render_widget(
                Paragraph::new(text).wrap(Wrap { trim: true }).block(
                    Block::default()
                        .borders(Borders::ALL)
                        .border_style(theme.border)
                        .title(Span::styled(" Traffic ", theme.title)),
                ),
                area,
            );
            return;
        };
        let tiles_width = if area.width >= 100 { 26 } else { 22 };
        let [chart_area, tiles_area] =
            Layout::horizontal([Constraint::Min(20), Constraint::Length(tiles_width)]).areas(area);
        draw_chart(frame, chart_area, data, theme);
        draw_tiles(frame, tiles_area, data, theme);
    }
}

/// Visitors and pageviews against the bucket index, with labelled axes.
fn draw_chart(frame: &mut Frame, area: Rect, data: &Traffic, theme: &Theme) {
    let series = &data.time_series;
    let points = |one: &TimeSeries| -> Vec<(f64, f64)> {
        one.data
            .iter()
            .enumerate()
            .map(|(index, point)| (index as f64, point.value.0.max(0.0)))
            .collect()
    };
    let visitors = points(&series.visitors);
    let pageviews = points(&series.pageviews);
    let peak = visitors
        .iter()
        .chain(&pageviews)
        .map(|(_, y)| *y)
        .fold(0.0_f64, f64::max);
    let top = nice_ceiling(peak);
    let last_index = visitors.len().saturating_sub(1).max(1) as f64;
    let times: Vec<OffsetDateTime> = series.visitors.data.iter().map(|p| p.timestamp).collect();
    let x_labels: Vec<Line> = match (times.first(), times.get(times.len() / 2), times.last()) {
        (Some(first), Some(middle), Some(last)) => [first, middle, last]
            .into_iter()
            .map(|at| Line::from(Span::styled(time_label(*at, times.len()), theme.dim)))
            .collect(),
        _ => Vec::new(),
    };
    let y_labels: Vec<Line> = [0.0, top / 2.0, top]
        .into_iter()
        .map(|value| Line::from(Span::styled(compact(value), theme.dim)))
        .collect();
    let label = |one: &TimeSeries, fallback: &str| {
        let text = if one.label.is_empty() {
            fallback
        } else {
            one.label.as_str()
        };
        format!("{} {}", fit(&sanitize_line(text), 24), compact(one.total.0))
    };
    let datasets = vec![
        Dataset::default()
            .name(label(&series.visitors, "Visitors"))
            .marker(symbols::Marker::Braille)
            .graph_type(GraphType::Line)
            .style(theme.accent)
            .data(&visitors),
        Dataset::default()
            .name(label(&series.pageviews, "Pageviews"))
            .marker(symbols::Marker::Dot)
            .graph_type(GraphType::Line)
            .style(theme.ok)
            .data(&pageviews),
    ];
    let chart = Chart::new(datasets)
        .block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(theme.border)
                // The markers say which line is which without colour, and
                // when the legend has no room.
                .title(Span::styled(
                    " Visitors ⠿ · pageviews • (UTC) ",
                    theme.title,
                )),
        )
        .x_axis(
            Axis::default()
                .style(theme.border)
                .bounds([0.0, last_index])
                .labels(x_labels),
        )
        .y_axis(
            Axis::default()
                .style(theme.border)
                .bounds([0.0, top])
                .labels(y_labels),
        )
        .legend_position(Some(ratatui::widgets::LegendPosition::TopLeft))
        .hidden_legend_constraints((Constraint::Ratio(1, 2), Constraint::Ratio(1, 2)));
    frame.render_widget(chart, area);
}

/// The three ratios over the whole range, one tile each.
fn draw_tiles(frame: &mut Frame, area: Rect, data: &Traffic, theme: &Theme) {
    let series = &data.time_series;
    let tiles = [
        (
            &series.pageviews_per_visit,
            "Pageviews per visit",
            decimal(series.pageviews_per_visit.total),
        ),
        (
            &series.session_duration,
            "Session duration",
            duration(series.session_duration.total),
        ),
        (
            &series.bounce_rate,
            "Bounce rate",
            format!("{} %", decimal(series.bounce_rate.total)),
        ),
    ];
    let areas = Layout::vertical([Constraint::Ratio(1, 3); 3]).split(area);
    for ((one, fallback, value), tile) in tiles.into_iter().zip(areas.iter()) {
        let title = if one.label.is_empty() {
            fallback.to_owned()
        } else {
            sanitize_line(&one.label).into_owned()
        };
        let inner_width = tile.width.saturating_sub(4) as usize;
        frame.render_widget(
            Paragraph::new(Line::from(Span::styled(value, theme.title))).block(
                Block::default()
                    .borders(Borders::ALL)
                    .border_style(theme.border)
                    .title(Span::styled(
                        format!(" {} ", fit(&title, inner_width)),
                        Style::default(),
                    )),
            ),
            *tile,
        );
    }
}

/// A round number at or above `value`, so the top label reads well.
fn nice_ceiling(value: f64) -> f64 {
    if value <= 0.0 {
        return 1.0;
    }
    let magnitude = 10f64.powf(value.log10().floor());
    for step in [1.0, 2.0, 2.5, 5.0, 10.0] {
        if step * magnitude >= value {
            return step * magnitude;
        }
    }
    10.0 * magnitude
}

/// `950`, `12.5k`, `3.2M`.
fn compact(value: f64) -> String {
    if value >= 1_000_000.0 {
        format!("{:.1}M", value / 1_000_000.0)
    } else if value >= 10_000.0 {
        format!("{:.0}k", value / 1_000.0)
    } else if value >= 1_000.0 {
        format!("{:.1}k", value / 1_000.0)
    } else {
        format!("{}", value.round() as i64)
    }
}

/// `2.4`, `37.15`, `3`: at most two decimals, no trailing zeros.
fn decimal(value: SeriesValue) -> String {
    let text = format!("{:.2}", value.0);
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// Seconds as `4m 25s`.
fn duration(value: SeriesValue) -> String {
    let seconds = value.0.max(0.0).round() as i64;
    if seconds >= 60 {
        format!("{}m {:02}s", seconds / 60, seconds % 60)
    } else {
        format!("{seconds}s")
    }
}

/// A bucket's start: the date for daily buckets, date and hour for hourly ones.
fn time_label(at: OffsetDateTime, buckets: usize) -> String {
    let full = utc_datetime(at);
    // Hourly buckets of one or two days: the hour says enough.
    if buckets <= 48 {
        full.get(5..).unwrap_or(&full).to_owned()
    } else {
        full.get(..10).unwrap_or(&full).to_owned()
    }
}
