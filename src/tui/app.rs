//! The dashboard's state: tabs, overlays and the status line. Pure: it turns
//! messages into state changes and effects, and draws; the runtime does the I/O.

use crossterm::event::{KeyEvent, KeyEventKind};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Tabs, Wrap};
use time::OffsetDateTime;

use super::action::Action;
use super::effect::{Cx, Effect, ErrorInfo, Reply, Slot};
use super::keymap::Keymap;
use super::screens::analytics::AnalyticsScreen;
use super::screens::insights::InsightsScreen;
use super::screens::inventory::InventoryScreen;
use super::screens::members::MembersScreen;
use super::screens::monitor::MonitorScreen;
use super::screens::pii::PiiScreen;
use super::screens::project::{ProjectNav, ProjectScreen, WriteAccess};
use super::screens::{ProjectRef, Screen, ScreenView, error_text};
use super::theme::Theme;
use super::widgets::{ago, centered};
use crate::text::{fit, sanitize_line};

/// Below this size the dashboard shows a notice instead of a cramped layout.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 16;
/// Errors kept for the `!` log.
const ERROR_LOG_LIMIT: usize = 200;

/// Something that happened.
#[derive(Debug)]
pub enum Msg {
    Key(KeyEvent),
    Resize,
    Reply {
        slot: Slot,
        token: u64,
        reply: Result<Reply, ErrorInfo>,
    },
    /// Reported by the client: rate limit, retries.
    Client(ClientNotice),
    /// A deadline a screen asked for has passed.
    Wake,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientNotice {
    RateLimit { remaining: u32, limit: u32 },
    Retrying { reason: String, delay_ms: u64 },
    Recovered,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Overlay {
    Help,
    ErrorLog,
}

/// Facts for the header.
#[derive(Debug, Clone, Default)]
pub struct Identity {
    pub workspace: String,
    pub plan: Option<String>,
    pub api_version: String,
    pub read_only: bool,
}

pub struct App {
    pub identity: Identity,
    pub theme: Theme,
    pub keymap: Keymap,
    pub insights: InsightsScreen,
    pub inventory: InventoryScreen,
    /// The project detail view, open over the inventory tab.
    pub project: Option<ProjectScreen>,
    /// Learned from a write's 403 `insufficient_scope`: the scopes it asked for.
    pub missing_write_scope: Option<Vec<String>>,
    pub members: MembersScreen,
    pub monitor: MonitorScreen,
    pub analytics: AnalyticsScreen,
    pub pii: PiiScreen,
    pub tab: usize,
    overlay: Option<Overlay>,
    pub errors: Vec<ErrorInfo>,
    notice: Option<(String, OffsetDateTime)>,
    rate: Option<(u32, u32)>,
    retrying: Option<(String, u64)>,
    /// Whether the newest reply failed: the status line shows the last error
    /// only until a later request succeeds (the `!` log keeps them all).
    failing: bool,
    next_token: u64,
    pub should_quit: bool,
    /// Whether anything on screen changed since the last draw.
    pub dirty: bool,
}

pub const TAB_TITLES: [&str; 6] = [
    "Insights",
    "Inventory",
    "Members",
    "Monitor",
    "Analytics",
    "Personal data",
];
/// The same, for terminals narrower than [`WIDE`].
const SHORT_TAB_TITLES: [&str; 6] = [
    "Insights",
    "Inventory",
    "Members",
    "Monitor",
    "Analytics",
    "PII",
];
/// Width from which the full tab titles fit.
const WIDE: u16 = 96;

impl App {
    pub fn new(
        identity: Identity,
        theme: Theme,
        keymap: Keymap,
        export_dir: std::path::PathBuf,
    ) -> Self {
        Self {
            identity,
            theme,
            keymap,
            insights: InsightsScreen::default(),
            inventory: InventoryScreen::new(export_dir),
            project: None,
            missing_write_scope: None,
            members: MembersScreen::default(),
            monitor: MonitorScreen::default(),
            analytics: AnalyticsScreen::default(),
            pii: PiiScreen::default(),
            tab: 0,
            overlay: None,
            errors: Vec::new(),
            notice: None,
            rate: None,
            retrying: None,
            failing: false,
            next_token: 0,
            should_quit: false,
            dirty: true,
        }
    }

    /// The first effects: load the first screen.
    pub fn start(&mut self, now: OffsetDateTime) -> Vec<Effect> {
        let mut effects = Vec::new();
        let mut cx = Cx::new(now, &mut effects, &mut self.next_token);
        self.insights.activate(&mut cx);
        effects
    }

    fn screen(&self) -> &dyn Screen {
        if self.tab == 1
            && let Some(project) = &self.project
        {
            return project;
        }
        match self.tab {
            0 => &self.insights,
            1 => &self.inventory,
            2 => &self.members,
            3 => &self.monitor,
            4 => &self.analytics,
            _ => &self.pii,
        }
    }

    /// Runs `f` on the current screen with a context that collects effects.
    fn with_screen<R>(
        &mut self,
        now: OffsetDateTime,
        effects: &mut Vec<Effect>,
        f: impl FnOnce(&mut dyn Screen, &mut Cx) -> R,
    ) -> R {
        let mut cx = Cx::new(now, effects, &mut self.next_token);
        if self.tab == 1
            && let Some(project) = &mut self.project
        {
            return f(project, &mut cx);
        }
        let screen: &mut dyn Screen = match self.tab {
            0 => &mut self.insights,
            1 => &mut self.inventory,
            2 => &mut self.members,
            3 => &mut self.monitor,
            4 => &mut self.analytics,
            _ => &mut self.pii,
        };
        f(screen, &mut cx)
    }

    /// The earliest deadline any screen waits for.
    pub fn wake_at(&self) -> Option<OffsetDateTime> {
        [
            self.insights.wake_at(),
            self.inventory.wake_at(),
            self.project.as_ref().and_then(|p| p.wake_at()),
            self.members.wake_at(),
            self.monitor.wake_at(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    pub fn handle(&mut self, msg: Msg, now: OffsetDateTime) -> Vec<Effect> {
        let mut effects = Vec::new();
        self.monitor.observe_clock(now);
        match msg {
            Msg::Key(key) => {
                if key.kind != KeyEventKind::Release {
                    self.handle_key(key, now, &mut effects);
                }
            }
            Msg::Resize => {}
            Msg::Reply { slot, token, reply } => {
                self.failing = reply.is_err();
                if let Err(error) = &reply
                    && !expected_absence(slot, error)
                {
                    self.record_error(error.clone());
                }
                let insights_loaded = matches!(reply, Ok(Reply::Insights(_)));
                self.note_plan(&reply);
                let mut cx = Cx::new(now, &mut effects, &mut self.next_token);
                match slot {
                    Slot::Insights => self.insights.handle_reply(slot, token, reply, &mut cx),
                    Slot::InventoryPage | Slot::InventoryExport | Slot::InventoryRecheck => {
                        self.inventory.handle_reply(slot, token, reply, &mut cx)
                    }
                    Slot::Project | Slot::ProjectWrite | Slot::Deployment => {
                        // A reply for a project screen that was left is dropped.
                        if let Some(project) = &mut self.project {
                            project.handle_reply(slot, token, reply, &mut cx);
                            if let WriteAccess::MissingScope(scopes) = &project.access {
                                self.missing_write_scope = Some(scopes.clone());
                            }
                        }
                    }
                    Slot::MemberPage | Slot::MemberDetail(_) => {
                        self.members.handle_reply(slot, token, reply, &mut cx)
                    }
                    Slot::Realtime(_) | Slot::WatchlistSave => {
                        self.monitor.handle_reply(slot, token, reply, &mut cx)
                    }
                    Slot::Breakdowns => self.analytics.handle_reply(slot, token, reply, &mut cx),
                    Slot::PiiPage => self.pii.handle_reply(slot, token, reply, &mut cx),
                }
                if insights_loaded && let Some(data) = &self.insights.data {
                    self.inventory.finding_types = data.findings.clone();
                }
                self.retrying = None;
            }
            Msg::Client(notice) => match notice {
                ClientNotice::RateLimit { remaining, limit } => {
                    self.rate = Some((remaining, limit))
                }
                ClientNotice::Retrying { reason, delay_ms } => {
                    self.retrying = Some((reason, delay_ms))
                }
                ClientNotice::Recovered => self.retrying = None,
            },
            Msg::Wake => {
                let mut cx = Cx::new(now, &mut effects, &mut self.next_token);
                self.inventory.wake(&mut cx);
                self.insights.wake(&mut cx);
                if let Some(project) = &mut self.project {
                    project.wake(&mut cx);
                }
                self.members.wake(&mut cx);
                self.monitor.wake(&mut cx);
            }
        }
        effects = self.apply_app_effects(effects, now);
        self.dirty = true;
        effects
    }

    /// Effects the app handles itself; the rest go to the runtime.
    fn apply_app_effects(&mut self, effects: Vec<Effect>, now: OffsetDateTime) -> Vec<Effect> {
        let mut out = Vec::new();
        for effect in effects {
            match effect {
                Effect::OpenInventoryForFinding(id) => {
                    self.tab = 1;
                    let mut more = Vec::new();
                    let mut cx = Cx::new(now, &mut more, &mut self.next_token);
                    self.inventory.filter_by_finding(id, &mut cx);
                    out.extend(more);
                }
                Effect::Notify(text) => self.notice = Some((text, now)),
                Effect::ProjectView(nav) => {
                    let mut more = Vec::new();
                    self.navigate_project(nav, now, &mut more);
                    out.extend(self.apply_app_effects(more, now));
                }
                Effect::ShowTab(tab) if tab < TAB_TITLES.len() => {
                    let mut more = Vec::new();
                    self.switch_tab(tab, now, &mut more);
                    out.extend(more);
                }
                Effect::Quit => {
                    self.should_quit = true;
                    out.push(Effect::Quit);
                }
                Effect::Copy(text) => {
                    self.notice = Some((format!("copied {}", fit(&text, 40)), now));
                    out.push(Effect::Copy(text));
                }
                other => out.push(other),
            }
        }
        out
    }

    fn handle_key(&mut self, key: KeyEvent, now: OffsetDateTime, effects: &mut Vec<Effect>) {
        let action = self.keymap.action(&key);
        if let Some(overlay) = self.overlay {
            match action {
                Some(Action::Back | Action::Quit) => self.overlay = None,
                Some(Action::Help) if overlay == Overlay::Help => self.overlay = None,
                Some(Action::ErrorLog) if overlay == Overlay::ErrorLog => self.overlay = None,
                _ => {}
            }
            return;
        }
        // A key may mean several actions; the screen takes the first it knows.
        let actions = self.keymap.actions(&key).to_vec();
        let consumed = self.with_screen(now, effects, |screen, cx| {
            if screen.captures_keys() {
                // A text field takes raw keys; a popup menu takes actions.
                if !screen.handle_text_key(&key, cx)
                    && let Some(action) = action
                {
                    screen.handle_action(action, cx);
                }
                return true;
            }
            actions
                .iter()
                .any(|action| screen.handle_action(*action, cx))
        });
        let Some(action) = action else { return };
        if consumed {
            return;
        }
        match action {
            Action::Quit => {
                self.should_quit = true;
                effects.push(Effect::Quit);
            }
            Action::Help => self.overlay = Some(Overlay::Help),
            Action::ErrorLog => self.overlay = Some(Overlay::ErrorLog),
            Action::Back => self.notice = None,
            Action::NextTab => self.switch_tab((self.tab + 1) % TAB_TITLES.len(), now, effects),
            Action::PrevTab => self.switch_tab(
                (self.tab + TAB_TITLES.len() - 1) % TAB_TITLES.len(),
                now,
                effects,
            ),
            Action::Tab1 => self.switch_tab(0, now, effects),
            Action::Tab2 => self.switch_tab(1, now, effects),
            Action::Tab3 => self.switch_tab(2, now, effects),
            Action::Tab4 => self.switch_tab(3, now, effects),
            Action::Tab5 => self.switch_tab(4, now, effects),
            Action::Tab6 => self.switch_tab(5, now, effects),
            Action::Watch => self.watch_selected(now, effects),
            _ => {}
        }
    }

    /// Opens or leaves the project view, or shows a write in the inventory.
    fn navigate_project(
        &mut self,
        nav: ProjectNav,
        now: OffsetDateTime,
        effects: &mut Vec<Effect>,
    ) {
        match nav {
            ProjectNav::Open(item) => {
                let access = if self.identity.read_only {
                    WriteAccess::ReadOnly
                } else if let Some(scopes) = &self.missing_write_scope {
                    WriteAccess::MissingScope(scopes.clone())
                } else {
                    WriteAccess::Allowed
                };
                self.tab = 1;
                self.project = Some(ProjectScreen::new(*item, access));
                self.with_screen(now, effects, |screen, cx| screen.activate(cx));
            }
            ProjectNav::Close => self.project = None,
            ProjectNav::Wrote(write) => {
                let mut cx = Cx::new(now, effects, &mut self.next_token);
                self.inventory.apply_project_write(&write, &mut cx);
            }
        }
    }

    fn switch_tab(&mut self, tab: usize, now: OffsetDateTime, effects: &mut Vec<Effect>) {
        if tab != self.tab {
            self.with_screen(now, effects, |screen, _| screen.deactivate());
        }
        self.tab = tab;
        let project = self.selected_project();
        self.monitor.set_project(project.clone());
        self.analytics.set_project(project.clone());
        self.pii.set_project(project);
        self.with_screen(now, effects, |screen, cx| screen.activate(cx));
    }

    /// The project the monitor, analytics and personal-data tabs show: the one
    /// selected in the inventory.
    pub fn selected_project(&self) -> Option<ProjectRef> {
        self.inventory.selected_item().map(|item| ProjectRef {
            id: item.id.clone(),
            name: item.name.clone(),
        })
    }

    /// `w` outside the monitor: pins or unpins the inventory's selection.
    fn watch_selected(&mut self, now: OffsetDateTime, effects: &mut Vec<Effect>) {
        let selected = self.selected_project();
        let mut cx = Cx::new(now, effects, &mut self.next_token);
        match selected {
            Some(project) => self.monitor.toggle_watch(project, &mut cx),
            None => cx.emit(Effect::Notify(
                "select a project in the inventory (2) to pin it".into(),
            )),
        }
    }

    fn record_error(&mut self, error: ErrorInfo) {
        self.errors.push(error);
        if self.errors.len() > ERROR_LOG_LIMIT {
            self.errors.remove(0);
        }
    }

    /// The API does not say which plan a workspace has; what it allows tells.
    fn note_plan(&mut self, reply: &Result<Reply, ErrorInfo>) {
        use super::effect::Gate;
        match reply {
            Ok(Reply::InventoryPage(_) | Reply::PiiPage(_)) => {
                self.identity.plan = Some("enterprise".into())
            }
            Ok(Reply::Insights(_)) if self.identity.plan.is_none() => {
                self.identity.plan = Some("business or higher".into())
            }
            Err(ErrorInfo {
                gate: Some(Gate::Plan(needed)),
                ..
            }) => {
                let below = match needed.as_str() {
                    "enterprise" => "business",
                    "business" => "pro",
                    _ => "below requirement",
                };
                if self.identity.plan.as_deref() != Some("enterprise") {
                    self.identity.plan = Some(below.into());
                }
            }
            _ => {}
        }
    }

    pub fn draw(&self, frame: &mut Frame, now: OffsetDateTime) {
        let area = frame.area();
        if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
            self.draw_too_small(frame, area);
            return;
        }
        let [header, tabs, body, status, footer] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Length(1),
            Constraint::Min(5),
            Constraint::Length(1),
            Constraint::Length(1),
        ])
        .areas(area);
        self.draw_header(frame, header);
        self.draw_tabs(frame, tabs);
        let view = ScreenView {
            theme: &self.theme,
            keymap: &self.keymap,
            now,
        };
        self.screen().draw(frame, body, &view);
        self.draw_status(frame, status, now);
        self.draw_footer(frame, footer);
        match self.overlay {
            Some(Overlay::Help) => self.draw_help(frame, body),
            Some(Overlay::ErrorLog) => self.draw_error_log(frame, body, now),
            None => {}
        }
    }

    fn draw_too_small(&self, frame: &mut Frame, area: Rect) {
        let text = format!(
            "Terminal too small: {}x{}. vantage needs at least {MIN_WIDTH}x{MIN_HEIGHT}. Resize, or press q to quit.",
            area.width, area.height
        );
        frame.render_widget(
            Paragraph::new(text)
                .wrap(Wrap { trim: true })
                .style(self.theme.warn),
            area,
        );
    }

    fn draw_header(&self, frame: &mut Frame, area: Rect) {
        let id = &self.identity;
        let mut spans = vec![
            Span::styled(" vantage ", self.theme.tab_active),
            Span::styled(
                format!(" workspace {} ", fit(&id.workspace, 40)),
                self.theme.header,
            ),
            Span::styled(
                format!(" plan {} ", id.plan.as_deref().unwrap_or("…")),
                self.theme.header,
            ),
            Span::styled(
                format!(" API {} ", fit(&id.api_version, 12)),
                self.theme.header,
            ),
        ];
        if id.read_only {
            spans.push(Span::styled(" READ-ONLY ", self.theme.warn));
        }
        frame.render_widget(
            Paragraph::new(Line::from(spans)).style(self.theme.header),
            area,
        );
    }

    fn draw_tabs(&self, frame: &mut Frame, area: Rect) {
        let names = if area.width >= WIDE {
            TAB_TITLES
        } else {
            SHORT_TAB_TITLES
        };
        let titles: Vec<Line> = names
            .iter()
            .enumerate()
            .map(|(index, title)| Line::from(format!("{} {title}", index + 1)))
            .collect();
        let tabs = Tabs::new(titles)
            .select(self.tab)
            .style(self.theme.tab)
            .highlight_style(self.theme.tab_active)
            .divider("│");
        frame.render_widget(tabs, area);
    }

    fn draw_status(&self, frame: &mut Frame, area: Rect, now: OffsetDateTime) {
        let theme = &self.theme;
        let mut spans = Vec::new();
        if let Some((remaining, limit)) = self.rate {
            let style = if remaining * 10 < limit {
                theme.warn
            } else {
                theme.dim
            };
            spans.push(Span::styled(format!("rate {remaining}/{limit}"), style));
            spans.push(Span::styled(" · ", theme.dim));
        }
        match self.screen().last_loaded() {
            Some(at) => spans.push(Span::styled(
                format!("updated {}", ago((now - at).whole_seconds())),
                theme.dim,
            )),
            None => spans.push(Span::styled("not loaded yet", theme.dim)),
        }
        if let Some((reason, delay_ms)) = &self.retrying {
            spans.push(Span::styled(" · ", theme.dim));
            spans.push(Span::styled(
                format!(
                    "{}, retrying in {} s",
                    fit(reason, 40),
                    delay_ms.div_ceil(1000)
                ),
                theme.warn,
            ));
        }
        if let Some((text, _)) = &self.notice {
            spans.push(Span::styled(" · ", theme.dim));
            spans.push(Span::styled(fit(text, 80), theme.accent));
        } else if let Some(error) = self.errors.last().filter(|_| self.failing) {
            spans.push(Span::styled(" · ", theme.dim));
            let kind = error.kind.as_deref().unwrap_or("error");
            let id = error.request_id.as_deref().unwrap_or("-");
            spans.push(Span::styled(
                fit(
                    &format!("{kind}: {} [{id}] (! for log)", error.summary),
                    area.width as usize / 2,
                ),
                theme.error,
            ));
        }
        frame.render_widget(Paragraph::new(Line::from(spans)), area);
    }

    /// Key hints: the screen's first, then refresh, help and quit, which always
    /// stay; screen hints are dropped from the end when the line is too narrow.
    fn draw_footer(&self, frame: &mut Frame, area: Rect) {
        let hint = |action: Action, label: &str| -> [Span<'static>; 2] {
            [
                Span::styled(self.keymap.key_for(action), self.theme.key),
                Span::styled(format!(" {label}  "), self.theme.dim),
            ]
        };
        let fixed: Vec<[Span; 2]> = vec![
            hint(Action::Refresh, "refresh"),
            hint(Action::Help, "help"),
            hint(Action::Quit, "quit"),
        ];
        let mut screen: Vec<[Span; 2]> = self
            .screen()
            .hints()
            .into_iter()
            .map(|(action, label)| hint(action, label))
            .collect();
        let width = |hints: &[[Span; 2]]| -> usize {
            hints
                .iter()
                .flatten()
                .map(|span| crate::text::display_width(&span.content))
                .sum()
        };
        let warning = self.screen().actions_disabled();
        let warning_width = warning.as_deref().map_or(0, crate::text::display_width);
        while !screen.is_empty()
            && width(&screen) + width(&fixed) + warning_width > area.width as usize
        {
            screen.pop();
        }
        let mut spans: Vec<Span> = screen.into_iter().chain(fixed).flatten().collect();
        if let Some(why) = warning {
            spans.push(Span::styled(why, self.theme.warn));
        }
        frame.render_widget(Paragraph::new(Line::from(spans)), area);
    }

    fn draw_help(&self, frame: &mut Frame, area: Rect) {
        let mut lines = vec![Line::from(Span::styled(
            format!("{} — keys", self.screen().title()),
            self.theme.title,
        ))];
        let mut row = |action: Action, text: &str| {
            lines.push(Line::from(vec![
                Span::styled(
                    format!("{:>12}  ", self.keymap.keys_for(action).join(" ")),
                    self.theme.key,
                ),
                Span::raw(text.to_owned()),
            ]));
        };
        for (action, text) in self.screen().help() {
            row(action, text);
        }
        row(Action::NextTab, "next tab (1-6 jump to a tab)");
        row(Action::ErrorLog, "error log");
        row(Action::Help, "close this help");
        row(Action::Quit, "quit");
        if let Some(why) = self.screen().actions_disabled() {
            lines.push(Line::from(Span::styled(why, self.theme.warn)));
        }
        let height = lines.len() as u16 + 2;
        let popup = centered(area, area.width.saturating_sub(4).min(100), height);
        frame.render_widget(Clear, popup);
        frame.render_widget(
            Paragraph::new(lines).wrap(Wrap { trim: false }).block(
                Block::default()
                    .borders(Borders::ALL)
                    .border_style(self.theme.accent),
            ),
            popup,
        );
    }

    fn draw_error_log(&self, frame: &mut Frame, area: Rect, now: OffsetDateTime) {
        let popup = centered(
            area,
            area.width.saturating_sub(4),
            area.height.saturating_sub(2),
        );
        frame.render_widget(Clear, popup);
        let mut lines = Vec::new();
        if self.errors.is_empty() {
            lines.push(Line::from(Span::styled(
                "No errors so far.",
                self.theme.dim,
            )));
        }
        for error in self.errors.iter().rev() {
            lines.push(Line::from(Span::styled(
                ago((now - error.at).whole_seconds()),
                self.theme.dim,
            )));
            lines.extend(error_text(error, &self.theme));
            if let Some(detail) = &error.detail {
                lines.push(Line::from(Span::styled(
                    sanitize_line(detail).into_owned(),
                    self.theme.dim,
                )));
            }
            lines.push(Line::from(""));
        }
        frame.render_widget(
            Paragraph::new(lines).wrap(Wrap { trim: true }).block(
                Block::default()
                    .borders(Borders::ALL)
                    .border_style(self.theme.accent)
                    .title(Span::styled(
                        " Error log (newest first) — esc closes ",
                        self.theme.title,
                    )),
            ),
            popup,
        );
    }
}

/// Answers a screen expects as data, not as errors for the log: a member whose
/// membership is not active.
fn expected_absence(slot: Slot, error: &ErrorInfo) -> bool {
    matches!(slot, Slot::MemberDetail(_)) && error.kind.as_deref() == Some("member_not_found")
}
