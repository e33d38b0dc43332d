//! Visitor analytics of the selected project over a range of whole UTC dates:
//! traffic over time (`analytics_traffic.rs`), and countries, devices, pages
//! and sources as bar lists with counts.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use time::{Date, Duration, OffsetDateTime};
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler;

use super::actions::{ScreenAction, copy_project_id, pick_project};
use super::analytics_traffic::{Fetched, TrafficPanel};
use super::paged::draw_placeholder;
use super::{ProjectRef, Screen, ScreenView, draw_no_project, error_text};
use crate::api::model::Traffic;
use crate::api::model::{BreakdownItem, Breakdowns};
use crate::tui::action::Action;
use crate::tui::effect::{Cx, ErrorInfo, Slot};
use crate::tui::focus::GoneProject;
use crate::tui::nav::{Nav, Tab};
use crate::tui::ops::GetBreakdowns;
use crate::tui::theme::Theme;
use crate::tui::widgets::display::{bar_lines, date_label};
use crate::tui::widgets::menu::{Menu, MenuOutcome};

/// The longest range the service answers, in UTC dates, both ends included.
pub const MAX_RANGE_DAYS: i64 = 365;
/// Some projects keep analytics this many days (contract, Limits).
pub const RETENTION_DAYS: i64 = 90;

/// A date range as the user chose it; presets end today and move with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeChoice {
    Today,
    /// The last `n` UTC dates, today included.
    LastDays(u16),
    Custom {
        first: Date,
        last: Date,
    },
}

/// The choices of the range menu, in order; the custom range comes last.
const PRESETS: [RangeChoice; 5] = [
    RangeChoice::Today,
    RangeChoice::LastDays(7),
    RangeChoice::LastDays(30),
    RangeChoice::LastDays(90),
    RangeChoice::LastDays(365),
];

impl RangeChoice {
    /// The first and last UTC date, both included.
    pub fn dates(&self, now: OffsetDateTime) -> (Date, Date) {
        let today = now.to_offset(time::UtcOffset::UTC).date();
        match *self {
            RangeChoice::Today => (today, today),
            RangeChoice::LastDays(days) => {
                (today - Duration::days(i64::from(days.max(1)) - 1), today)
            }
            RangeChoice::Custom { first, last } => (first, last),
        }
    }

    pub fn label(&self) -> String {
        match self {
            RangeChoice::Today => "today".into(),
            RangeChoice::LastDays(days) => format!("last {days} days"),
            RangeChoice::Custom { .. } => "custom dates".into(),
        }
    }
}

/// Reads `YYYY-MM-DD..YYYY-MM-DD` (a single date means that one day).
pub fn parse_range(text: &str) -> Result<(Date, Date), String> {
    let parse = |part: &str| {
        crate::timefmt::parse_date(part.trim())
            .map_err(|_| format!("{:?} is not a date like 2026-11-01", part.trim()))
    };
    let (first, last) = match text.split_once("..") {
        Some((first, last)) => (parse(first)?, parse(last)?),
        None => {
            let day = parse(text)?;
            (day, day)
        }
    };
    if last < first {
        return Err("the range ends before it starts".into());
    }
    let days = (last - first).whole_days() + 1;
    if days > MAX_RANGE_DAYS {
        return Err(format!(
            "the range spans {days} days; the service answers at most {MAX_RANGE_DAYS}"
        ));
    }
    Ok((first, last))
}

/// What the data on screen was loaded for.
type LoadKey = super::analytics_traffic::TrafficKey;

/// The screen's requests: the breakdowns, and the traffic over time.
pub const BREAKDOWNS: Slot = Slot::new("analytics", "breakdowns");
pub const TRAFFIC: Slot = Slot::new("analytics", "traffic");

/// The answers the screen gets.
#[derive(Debug)]
pub enum Msg {
    Breakdowns(Result<Breakdowns, ErrorInfo>),
    Traffic(Result<Traffic, ErrorInfo>),
}

#[derive(Debug)]
pub struct AnalyticsScreen {
    project: Option<ProjectRef>,
    pub range: RangeChoice,
    pub breakdowns: Fetched<Breakdowns>,
    menu: Option<Menu>,
    input: Option<Input>,
    pub input_error: Option<String>,
    loaded_at: Option<OffsetDateTime>,
    pub traffic: TrafficPanel,
}

impl Default for AnalyticsScreen {
    fn default() -> Self {
        Self {
            project: None,
            range: RangeChoice::LastDays(30),
            breakdowns: Fetched::default(),
            menu: None,
            input: None,
            input_error: None,
            loaded_at: None,
            traffic: TrafficPanel::default(),
        }
    }
}

impl AnalyticsScreen {
    /// The project selected in the inventory changed (or not).
    fn set_project(&mut self, project: Option<ProjectRef>) {
        if self.project != project {
            self.project = project;
            // A reply for the previous project is dropped by its token, and
            // the age of its data goes with it.
            self.breakdowns.reset();
            self.traffic.reset();
            self.loaded_at = None;
        }
    }

    pub fn project(&self) -> Option<&ProjectRef> {
        self.project.as_ref()
    }

    pub fn is_loading(&self) -> bool {
        self.breakdowns.is_loading() || self.traffic.is_loading()
    }

    fn key(&self, now: OffsetDateTime) -> Option<LoadKey> {
        let project = self.project.as_ref()?;
        let (first, last) = self.range.dates(now);
        Some((project.id.clone(), first, last))
    }

    /// Loads unless what is shown (or asked for) already matches; `force` reloads.
    fn load(&mut self, cx: &mut Cx, force: bool) {
        let Some(key) = self.key(cx.now) else {
            return;
        };
        self.traffic.load(cx, TRAFFIC, &key, force, Msg::Traffic);
        self.breakdowns.fetch(
            cx,
            BREAKDOWNS,
            &key,
            force,
            |project_id, starts_at, ends_at| GetBreakdowns {
                project_id,
                starts_at,
                ends_at,
            },
            Msg::Breakdowns,
        );
    }

    /// An answer to one of the screen's requests; true when anything changed.
    pub fn update(&mut self, token: u64, msg: Msg, cx: &mut Cx) -> bool {
        match msg {
            Msg::Traffic(traffic) => self.traffic.accept_reply(token, traffic),
            Msg::Breakdowns(breakdowns) => {
                let answered = breakdowns.is_ok();
                let accepted = self.breakdowns.accept_reply(token, breakdowns);
                if accepted {
                    // An error replaces the data: no age is left to show.
                    self.loaded_at = answered.then_some(cx.now);
                }
                accepted
            }
        }
    }

    fn choose(&mut self, range: RangeChoice, cx: &mut Cx) {
        self.range = range;
        self.load(cx, false);
    }

    /// Whether the range reaches further back than some projects keep data.
    pub fn past_retention(&self, now: OffsetDateTime) -> bool {
        let (first, _) = self.range.dates(now);
        let today = now.to_offset(time::UtcOffset::UTC).date();
        (today - first).whole_days() + 1 > RETENTION_DAYS
    }
}

impl Screen for AnalyticsScreen {
    fn title(&self) -> &'static str {
        "Analytics"
    }

    fn follow_focus(&mut self, project: Option<&ProjectRef>) {
        self.set_project(project.cloned());
    }

    fn about_focused_project(&self) -> bool {
        true
    }

    fn activate(&mut self, cx: &mut Cx) {
        self.load(cx, false);
    }

    fn captures_keys(&self) -> bool {
        self.input.is_some() || self.menu.is_some()
    }

    fn handle_text_key(&mut self, key: &KeyEvent, cx: &mut Cx) -> bool {
        let Some(input) = &mut self.input else {
            return false;
        };
        match key.code {
            KeyCode::Esc => {
                self.input = None;
                self.input_error = None;
            }
            KeyCode::Enter => match parse_range(input.value()) {
                Ok((first, last)) => {
                    self.input = None;
                    self.input_error = None;
                    self.choose(RangeChoice::Custom { first, last }, cx);
                }
                Err(message) => self.input_error = Some(message),
            },
            _ => {
                input.handle_event(&crossterm::event::Event::Key(*key));
                self.input_error = None;
            }
        }
        true
    }

    fn handle_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        if let Some(menu) = &mut self.menu {
            match menu.handle(action) {
                MenuOutcome::Open => {}
                MenuOutcome::Closed => self.menu = None,
                MenuOutcome::Chosen(choice) => {
                    self.menu = None;
                    match PRESETS.get(choice) {
                        Some(range) => self.choose(*range, cx),
                        None => {
                            let (first, last) = self.range.dates(cx.now);
                            self.input = Some(Input::new(format!(
                                "{}..{}",
                                date_label(first),
                                date_label(last)
                            )));
                        }
                    }
                }
            }
            return true;
        }
        match action {
            Action::Range => {
                let mut items: Vec<String> = PRESETS.iter().map(RangeChoice::label).collect();
                items.push("custom dates… (YYYY-MM-DD..YYYY-MM-DD)".into());
                let selected = PRESETS
                    .iter()
                    .position(|preset| *preset == self.range)
                    .unwrap_or(PRESETS.len());
                self.menu = Some(Menu::new("Date range (UTC)", items, selected));
            }
            Action::Refresh => self.load(cx, true),
            Action::Open if self.project.is_none() => cx.navigate(Nav::ShowTab(Tab::Inventory)),
            Action::Copy => cx.copy(self.project.as_ref().map(|p| p.id.as_str())),
            _ => return false,
        }
        true
    }

    fn last_loaded(&self) -> Option<OffsetDateTime> {
        self.loaded_at
    }

    fn actions(&self) -> Vec<ScreenAction> {
        vec![
            ScreenAction::new(
                Action::Range,
                "date range",
                "date range: today, 7, 30, 90 or 365 days, or custom dates YYYY-MM-DD..YYYY-MM-DD",
            ),
            ScreenAction::help_only(Action::Refresh, "reload"),
            copy_project_id(),
            pick_project(),
        ]
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let theme = view.theme;
        let Some(project) = &self.project else {
            let what = "Analytics shows countries, devices, pages and sources";
            return draw_no_project(frame, area, view, what);
        };
        let [head_area, note_area, body] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Length(1),
            Constraint::Min(3),
        ])
        .areas(area);
        let (first, last) = self.range.dates(view.now);
        let days = (last - first).whole_days() + 1;
        let facts = format!(
            " · {}..{} ({} UTC date{}, {})",
            date_label(first),
            date_label(last),
            days,
            if days == 1 { "" } else { "s" },
            self.range.label()
        );
        let width = area.width.saturating_sub(50) as usize;
        let mut head = project.head("Visitors of", width, facts, theme);
        if self.is_loading() {
            head.push(Span::styled(" · loading…", theme.dim));
        }
        frame.render_widget(Paragraph::new(Line::from(head)), head_area);
        self.draw_note(frame, note_area, view);
        // The chart takes the upper part when the screen has room for both.
        let body = if body.height >= 16 && self.breakdowns.error.is_none() {
            let [traffic_area, rest] =
                Layout::vertical([Constraint::Percentage(50), Constraint::Min(8)]).areas(body);
            self.traffic.draw(frame, traffic_area, theme);
            rest
        } else {
            body
        };
        match (&self.breakdowns.data, &self.breakdowns.error) {
            (_, Some(error)) => {
                let not_found = error.is_service(crate::api::model::ErrorType::AnalyticsNotFound);
                let text = if not_found && view.gone.is_some() {
                    // The project is gone: no other cause is given.
                    vec![Line::from(Span::styled(
                        GoneProject::went_with_it("analytics", error),
                        theme.warn,
                    ))]
                } else if not_found {
                    vec![
                        Line::from(Span::styled(
                            crate::tui::vocab::ANALYTICS_NOT_FOUND,
                            theme.warn,
                        )),
                        Line::from(""),
                        Line::from("A published project's analytics start once it is visited."),
                    ]
                } else {
                    error_text(error, theme)
                };
                draw_placeholder(frame, body, text, theme);
            }
            (Some(data), None) => draw_breakdowns(frame, body, data, theme),
            (None, None) => frame.render_widget(
                Paragraph::new(Span::styled("Loading analytics…", theme.dim)),
                body,
            ),
        }
        if let Some(menu) = &self.menu {
            menu.draw_keyed(frame, area, theme, view.keymap, ["choose", "close"]);
        }
    }
}

impl AnalyticsScreen {
    /// Under the head: the custom-range box, or the retention note.
    fn draw_note(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let theme = view.theme;
        let line = if let Some(input) = &self.input {
            let mut spans = vec![
                Span::styled("range: ", theme.key),
                Span::raw(crate::text::sanitize_line(input.value()).into_owned()),
                Span::styled("▏", theme.accent),
            ];
            match &self.input_error {
                Some(message) => spans.push(Span::styled(
                    format!("  {}", crate::text::fit(message, 60)),
                    theme.error,
                )),
                None => spans.push(Span::styled(
                    "  YYYY-MM-DD..YYYY-MM-DD · enter applies · esc cancels",
                    theme.dim,
                )),
            }
            let cursor_x = area.x + 7 + input.visual_cursor() as u16;
            frame.set_cursor_position((cursor_x.min(area.right().saturating_sub(1)), area.y));
            Line::from(spans)
        } else if self.past_retention(view.now) {
            Line::from(Span::styled(
                "Note: some projects keep analytics only 90 days; older days count no visitors.",
                theme.warn,
            ))
        } else {
            Line::from("")
        };
        frame.render_widget(Paragraph::new(line), area);
    }
}

fn draw_breakdowns(frame: &mut Frame, area: Rect, data: &Breakdowns, theme: &Theme) {
    let [top, bottom] =
        Layout::vertical([Constraint::Ratio(1, 2), Constraint::Ratio(1, 2)]).areas(area);
    let [countries, devices] =
        Layout::horizontal([Constraint::Ratio(1, 2), Constraint::Ratio(1, 2)]).areas(top);
    let [pages, sources] =
        Layout::horizontal([Constraint::Ratio(1, 2), Constraint::Ratio(1, 2)]).areas(bottom);
    for (title, items, area) in [
        ("Countries", &data.countries, countries),
        ("Devices", &data.devices, devices),
        ("Pages", &data.pages, pages),
        ("Sources", &data.sources, sources),
    ] {
        draw_list(frame, area, title, items, theme);
    }
}

/// One breakdown as bars; labels (`Unknown`, `Direct`, paths) shown as sent.
fn draw_list(frame: &mut Frame, area: Rect, title: &str, items: &[BreakdownItem], theme: &Theme) {
    let fits = area.height.saturating_sub(2) as usize;
    let shown = items.len().min(fits);
    let title = if shown < items.len() {
        format!(" {title} (top {shown} of {}) ", items.len())
    } else {
        format!(" {title} ")
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border)
        .title(Span::styled(title, theme.title));
    let inner = block.inner(area);
    let lines = if items.is_empty() {
        vec![Line::from(Span::styled(
            "no visitors in this range",
            theme.dim,
        ))]
    } else {
        let pairs: Vec<(&str, i64)> = items[..shown]
            .iter()
            .map(|item| (item.label.as_str(), item.visitors))
            .collect();
        bar_lines(&pairs, inner.width as usize, theme.base, theme.accent)
    };
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
