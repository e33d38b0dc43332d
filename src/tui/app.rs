//! The dashboard's state: tabs, overlays and the status line. Pure: it turns
//! messages into state changes and effects, and draws (`app/draw.rs`); the
//! runtime does the I/O. A message marks the screen dirty only when a handler
//! says it changed something (gitui's `NeedsUpdate`): a stale reply, a key that
//! means nothing here, a wake with nothing due redraw nothing.

mod answers;
mod commands;
mod contexts;
mod draw;
mod export;
mod focus;
mod notices;
mod policy;
mod report;
mod review;
mod screens;
mod trail;
mod views;
mod wake;

pub use contexts::{CONTEXT, ContextMsg, Contexts};
pub use export::{LIST_EXPORT, ListExported};
pub use policy::{EVALUATE_POLICIES, PolicyMsg};
pub use report::{REPORT, ReportWritten};
pub use review::{HISTORY_VERSION, REVIEW_MARK, REVIEW_MARKS, TAKE_SNAPSHOT};
pub use review::{HistoryMsg, ReviewState};
pub use views::{SAVE_VIEW, SavedViews, ViewWritten};

/// The client's notices, named where the App takes them in.
pub use crate::tui::vocab::{ClientNotice, SnapshotSeed};

use trail::Way;

use crossterm::event::{KeyEvent, KeyEventKind};
use time::OffsetDateTime;

use super::action::Action;
use super::effect::{Cx, Effect, ErrorInfo, Turn};
use super::nav::{Nav, ProjectNav, Tab};
use super::ops::GetWorkspace;
use super::palette::Palette;
use super::request::Answer;
use super::screens::Screen;
use super::screens::actions::find;
use super::screens::analytics::AnalyticsScreen;
use super::screens::changes::ChangesScreen;
use super::screens::insights::InsightsScreen;
use super::screens::inventory::InventoryScreen;
use super::screens::members::MembersScreen;
use super::screens::monitor::MonitorScreen;
use super::screens::pii::PiiScreen;
use super::screens::policy::PolicyScreen;
use super::screens::project::{ProjectScreen, WriteAccess};
use super::settings::AppSettings;
use super::theme::Theme;
use super::widgets::next_age_change;
use super::widgets::scroll::ScrollPane;
use crate::text::fit;
pub use answers::{AppMsg, WORKSPACE};
pub use commands::{PALETTE_HISTORY, PALETTE_JUMP};

/// Below this size the dashboard shows a notice instead of a cramped layout.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 16;

/// Something that happened.
#[derive(Debug)]
pub enum Msg {
    Key(KeyEvent),
    Resize,
    /// The answer to a request.
    Answer(Answer),
    /// Reported by the client: rate limit, retries.
    Client(ClientNotice),
    /// A deadline a screen asked for has passed.
    Wake,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Overlay {
    Help,
    ErrorLog,
}

/// Facts for the header.
#[derive(Debug, Clone, Default)]
pub struct Identity {
    /// The header's name for the workspace (the id, and how it was found).
    pub workspace: String,
    /// The workspace's id: what the screens' requests name.
    pub workspace_id: String,
    pub plan: Option<String>,
    pub api_version: String,
    pub read_only: bool,
}

pub struct App {
    pub identity: Identity,
    /// What the App was built from; a context switch builds the next from it.
    pub settings: AppSettings,
    /// Built from `settings` for the terminal's depth (`AppSettings::theme`).
    pub theme: Theme,
    pub insights: InsightsScreen,
    pub inventory: InventoryScreen,
    /// The project detail view, open over the inventory tab.
    pub project: Option<ProjectScreen>,
    /// Learned from a write's 403 `insufficient_scope`: the scopes it asked for.
    pub missing_write_scope: Option<Vec<String>>,
    /// A list's export in flight (`app/export.rs`): its token, what a row is.
    list_export: Option<(u64, &'static str)>,
    /// The report in flight (`app/report.rs`): its token.
    report_pending: Option<u64>,
    pub members: MembersScreen,
    pub monitor: MonitorScreen,
    pub analytics: AnalyticsScreen,
    pub pii: PiiScreen,
    pub changes: ChangesScreen,
    /// The policies, each with its counts (the eighth tab).
    pub policy: PolicyScreen,
    /// The policies' evaluation: its input, the one in flight (`app/policy.rs`).
    policies: policy::PolicyState,
    /// The review history: instant start, background snapshot, reviewed marks.
    pub review: ReviewState,
    pub tab: Tab,
    /// The config file's contexts, the one on screen, the picker (`app/contexts.rs`).
    pub contexts: Contexts,
    /// The command palette on `:` (`app/commands.rs`).
    pub palette: Palette,
    /// Back and forward across screens and projects (`app/trail.rs`).
    trail: trail::Trail,
    /// The project in focus (`app/focus.rs`).
    focus: focus::FocusState,
    /// The `?` overlay's scrolling.
    help_pane: ScrollPane,
    overlay: Option<Overlay>,
    pub errors: Vec<ErrorInfo>,
    /// What the status line says (`app/notices.rs`).
    status: notices::StatusLine,
    /// The next time a relative time on screen ("updated 3 min ago") reads
    /// differently: the once-a-minute wake-up, only while one is shown.
    age_wake: Option<OffsetDateTime>,
    next_token: u64,
    pub should_quit: bool,
    /// Whether anything on screen changed since the last draw.
    pub dirty: bool,
}

impl App {
    /// The App, every screen fresh, for the service `identity` names.
    pub fn new(identity: Identity, settings: AppSettings) -> Self {
        let mut inventory = InventoryScreen::new(settings.export_dir.clone());
        inventory.bulk.read_only = identity.read_only;
        Self {
            identity,
            theme: settings.theme(),
            monitor: MonitorScreen::new(settings.tui.refresh_secs.get()),
            settings,
            insights: InsightsScreen::default(),
            inventory,
            project: None,
            missing_write_scope: None,
            list_export: None,
            report_pending: None,
            members: MembersScreen::default(),
            analytics: AnalyticsScreen::default(),
            pii: PiiScreen::default(),
            changes: ChangesScreen::default(),
            policy: PolicyScreen::default(),
            policies: policy::PolicyState::default(),
            review: ReviewState::default(),
            tab: Tab::default(),
            contexts: Contexts::default(),
            palette: Palette::default(),
            trail: trail::Trail::default(),
            focus: focus::FocusState::default(),
            help_pane: ScrollPane::default(),
            overlay: None,
            errors: Vec::new(),
            status: notices::StatusLine::default(),
            age_wake: None,
            next_token: 0,
            should_quit: false,
            dirty: true,
        }
    }

    /// The first effects: load the first screen and the monitor's watch list.
    pub fn start(&mut self, now: OffsetDateTime) -> Vec<Effect> {
        let (mut effects, mut navs) = (Vec::new(), Vec::new());
        let mut cx = Cx::new(
            now,
            &self.identity.workspace_id,
            self.settings.max_walk_items,
            &mut effects,
            &mut navs,
            &mut self.next_token,
        );
        // The header's plan: known already when the workspace was discovered.
        if self.identity.plan.is_none() {
            cx.request(WORKSPACE, GetWorkspace {}, AppMsg::Workspace);
        }
        self.insights.activate(&mut cx);
        self.monitor.load_watchlist(&mut cx);
        let mut turn = self.turn(now, &mut effects, &mut navs);
        self.with_app_cx(&mut turn, App::start_history);
        // The first evaluation: the newest snapshot's, before any page lands.
        self.policy_input_changed();
        self.with_app_cx(&mut turn, App::evaluate_policies);
        self.apply_navs(navs, now, &mut effects);
        effects
    }

    /// The screen on show: the tab's, or the project screen open over the inventory.
    fn screen(&self) -> &dyn Screen {
        if self.tab == Tab::Inventory
            && let Some(project) = &self.project
        {
            return project;
        }
        self.tab_screen(self.tab)
    }

    /// Runs `f` on the current screen with a context that collects effects and navigation.
    fn with_screen<R>(
        &mut self,
        turn: &mut Turn<'_>,
        f: impl FnOnce(&mut dyn Screen, &mut Cx) -> R,
    ) -> R {
        let mut next_token = self.next_token;
        let mut cx = turn.cx(&mut next_token);
        let result = if self.tab == Tab::Inventory
            && let Some(project) = &mut self.project
        {
            f(project, &mut cx)
        } else {
            f(self.tab_screen_mut(self.tab), &mut cx)
        };
        self.next_token = next_token;
        result
    }

    /// A turn at `now` on the workspace on screen, collecting into
    /// `effects` and `navs`.
    fn turn<'a>(
        &self,
        now: OffsetDateTime,
        effects: &'a mut Vec<Effect>,
        navs: &'a mut Vec<Nav>,
    ) -> Turn<'a> {
        Turn {
            now,
            workspace: self.identity.workspace_id.clone(),
            walk_limit: self.settings.max_walk_items,
            effects,
            navs,
        }
    }

    /// Runs `f` on the whole App with a context on `turn`, for the methods
    /// that need the App beside the context (the review history's).
    fn with_app_cx<R>(&mut self, turn: &mut Turn<'_>, f: impl FnOnce(&mut App, &mut Cx) -> R) -> R {
        let mut next_token = self.next_token;
        let result = f(self, &mut turn.cx(&mut next_token));
        self.next_token = next_token;
        result
    }

    /// Handles one message; returns what the runtime must carry out. Sets
    /// `dirty` only when something on screen changed.
    pub fn handle(&mut self, msg: Msg, now: OffsetDateTime) -> Vec<Effect> {
        let (mut effects, mut navs) = (Vec::new(), Vec::new());
        let before = self.location();
        let tab_before = self.tab;
        let notice_before = self.status.notice.clone();
        let context_before = self.notice_context();
        let screen_before = (self.tab, self.project.is_some());
        self.monitor.observe_clock(now);
        let mut turn = self.turn(now, &mut effects, &mut navs);
        let changed = match msg {
            Msg::Key(key) => key.kind != KeyEventKind::Release && self.handle_key(key, &mut turn),
            Msg::Resize => true,
            Msg::Answer(answer) => self.handle_answer(answer, &mut turn),
            Msg::Client(notice) => self.handle_notice(notice, now),
            Msg::Wake => {
                let aged = self.age_wake.is_some_and(|at| at <= now);
                self.wake_screens(&mut turn) | aged | self.expire_notice(now)
            }
        };
        self.with_app_cx(&mut turn, App::check_history_version);
        // Whatever changed the policies' input in this message: one evaluation.
        self.with_app_cx(&mut turn, App::evaluate_policies);
        let navigated = !navs.is_empty();
        self.apply_navs(navs, now, &mut effects);
        self.follow_focus(tab_before);
        // A notice of the screen left (its export, its refusal) goes with it.
        let screen_changed = (self.tab, self.project.is_some()) != screen_before;
        if screen_changed && self.status.notice == notice_before {
            self.status.notice = None;
        }
        self.drop_stale_notice(context_before, notice_before);
        self.trail.record(before, self.location());
        for effect in &effects {
            match effect {
                Effect::Quit => self.should_quit = true,
                Effect::Copy(text) => {
                    // OSC 52 has no answer: whether the terminal took it is unknown.
                    self.status.notice = Some((
                        format!(
                            "copy sent to the terminal (OSC 52): {}",
                            fit(text.as_str(), 40)
                        ),
                        now,
                    ));
                    self.dirty = true;
                }
                Effect::Fetch { .. } => {}
            }
        }
        if changed || navigated {
            self.dirty = true;
        }
        self.age_wake = self
            .shown_ages()
            .into_iter()
            .map(|at| next_age_change(at, now))
            .min();
        effects
    }

    /// Carries out what screens asked of the App; navigation may ask for more
    /// (a screen that opens loads), until none is left.
    fn apply_navs(&mut self, mut navs: Vec<Nav>, now: OffsetDateTime, effects: &mut Vec<Effect>) {
        while !navs.is_empty() {
            let mut more = Vec::new();
            let mut turn = self.turn(now, effects, &mut more);
            for nav in navs {
                match nav {
                    Nav::OpenInventoryForFinding(id) => {
                        // The list's own query first, so opening the tab
                        // asks for no page of the earlier one.
                        let mut cx = turn.cx(&mut self.next_token);
                        self.inventory.filter_by_finding(id, &mut cx);
                        self.show_tab(Tab::Inventory, &mut turn);
                    }
                    Nav::OpenInventoryForPolicy(id) => {
                        let mut cx = turn.cx(&mut self.next_token);
                        self.inventory.filter_by_policy(id, &mut cx);
                        self.show_tab(Tab::Inventory, &mut turn);
                    }
                    Nav::EvaluatePolicies => {
                        self.policy_input_changed();
                        self.with_app_cx(&mut turn, App::evaluate_policies);
                    }
                    Nav::Notify(text) => {
                        self.status.notice = Some((self.settings.keymap.fill(&text), now))
                    }
                    Nav::Project(nav) => self.navigate_project(nav, &mut turn),
                    Nav::ShowTab(tab) => self.switch_tab(tab, &mut turn),
                    Nav::Failed(error) => {
                        // The error replaces a walk's progress notice.
                        self.status.notice = None;
                        self.status.failing = true;
                        self.record_error(*error);
                    }
                }
            }
            navs = more;
        }
    }

    /// A key: the screen first, then the app's own keys. True when it changed anything.
    fn handle_key(&mut self, key: KeyEvent, turn: &mut Turn<'_>) -> bool {
        if self.palette.is_open() {
            return self.palette_key(&key, turn);
        }
        let action = self.settings.keymap.action(&key);
        if self.contexts.picker_open() {
            return self.context_picker_key(action, turn.now, turn.effects);
        }
        if let Some(overlay) = self.overlay {
            match action {
                Some(Action::Back | Action::Quit) => self.overlay = None,
                Some(Action::Help) if overlay == Overlay::Help => self.overlay = None,
                Some(Action::ErrorLog) if overlay == Overlay::ErrorLog => self.overlay = None,
                Some(action) if overlay == Overlay::Help => return self.help_pane.handle(action),
                _ => return false,
            }
            return true;
        }
        if self.review.note.is_some() {
            self.with_app_cx(turn, |app, cx| app.note_key(&key, cx));
            return true;
        }
        // A key may mean several actions; the screen takes the first it
        // offers, or knows. One it offers disabled says why, and does nothing.
        let actions = self.settings.keymap.actions(&key).to_vec();
        let offered = self.screen().actions();
        let consumed = self.with_screen(turn, |screen, cx| {
            if screen.captures_keys() {
                // A text field takes raw keys; a popup menu takes actions.
                if !screen.handle_text_key(&key, cx)
                    && let Some(action) = action
                {
                    screen.handle_action(action, cx);
                }
                return true;
            }
            actions.iter().any(|action| {
                match find(&offered, *action).and_then(|it| it.disabled.clone()) {
                    Some(why) => cx.notify(why),
                    None => return screen.handle_action(*action, cx),
                }
                true
            })
        });
        if consumed {
            return true;
        }
        let Some(action) = action else { return false };
        self.app_action(action, turn)
    }

    /// The App's own actions, when the screen did not take the key.
    fn app_action(&mut self, action: Action, turn: &mut Turn<'_>) -> bool {
        match action {
            Action::Quit => {
                self.should_quit = true;
                turn.effects.push(Effect::Quit);
            }
            Action::Help => {
                self.help_pane.reset();
                self.overlay = Some(Overlay::Help);
            }
            Action::ErrorLog => self.overlay = Some(Overlay::ErrorLog),
            Action::Back => return self.status.notice.take().is_some(),
            Action::NextTab => self.switch_tab(self.tab.next(), turn),
            Action::PrevTab => self.switch_tab(self.tab.prev(), turn),
            // The inventory's tab is its list (its cursor on the project in
            // focus), as the palette's `inventory` is: never a project's pane.
            Action::ShowTab(tab) => self.show_tab(tab, turn),
            Action::MarkReviewed => self.with_app_cx(turn, App::begin_mark),
            Action::ReviewFilter if self.tab == Tab::Inventory && self.project.is_none() => {
                let mut cx = turn.cx(&mut self.next_token);
                self.inventory.cycle_review_filter(&mut cx);
            }
            Action::Watch => self.watch_selected(turn),
            Action::Contexts => return self.open_context_picker(turn.now),
            Action::Palette => self.palette.open(),
            Action::Export => return self.export_list(turn),
            Action::NavBack => return self.travel(Way::Back, turn),
            Action::NavForward => return self.travel(Way::Forward, turn),
            _ => return false,
        }
        true
    }

    /// Opens or leaves the project view, or shows a write in the inventory.
    fn navigate_project(&mut self, nav: ProjectNav, turn: &mut Turn<'_>) {
        match nav {
            ProjectNav::Open(open) => self.open_project(*open, turn),
            ProjectNav::Close => self.close_project(turn),
            ProjectNav::Wrote(write) => {
                let mut cx = turn.cx(&mut self.next_token);
                self.inventory.apply_project_write(&write, &mut cx);
                match &write {
                    crate::tui::nav::ProjectWrite::Deleted(id) => self.forget_policy_row(id),
                    crate::tui::nav::ProjectWrite::Updated(_) => self.take_inventory_rows(),
                }
            }
            ProjectNav::Gone(gone) => {
                self.focus.gone.insert(gone.id.clone(), gone);
            }
            ProjectNav::Found(id) => {
                self.focus.gone.remove(&id);
            }
        }
    }

    fn switch_tab(&mut self, tab: Tab, turn: &mut Turn<'_>) {
        if tab != self.tab {
            self.with_screen(turn, |screen, _| screen.deactivate());
        }
        self.tab = tab;
        if tab == Tab::Inventory && self.project.is_none() {
            // The list's cursor goes to the project in focus (a monitor tile's).
            self.select_focus_in_inventory();
        }
        let project = self.focused_project().cloned();
        for tab in Tab::ALL {
            self.tab_screen_mut(*tab).follow_focus(project.as_ref());
        }
        self.with_screen(turn, |screen, cx| screen.activate(cx));
    }
}
