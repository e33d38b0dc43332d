//! One project: every field of the Project resource, the inventory facts of the
//! row it was opened from, and the actions on it (rename, visibility, unpublish,
//! publish with deployment polling, the published app's audience, an embed URL,
//! delete). Opened with enter from the inventory; esc goes back.

mod actions;
mod answers;
mod audience;
mod deploy;
mod gone;
mod modes;
mod policies;
pub mod security;
mod seen;
mod view;
mod writes;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use time::OffsetDateTime;

pub use self::audience::{AudienceEditor, EmbedPrompt, PublishConfirm};
pub use self::deploy::DeploymentWatch;
use super::{ProjectRef, Screen, ScreenView};
use crate::api::model::validate_project_name;
use crate::api::model::{AudienceSettings, Deployment, EmbedUrl, Project};
use crate::tui::action::Action;
use crate::tui::effect::{Cx, ErrorInfo, Slot};
use crate::tui::facts::{Facts, FactsMsg};
use crate::tui::nav::{Nav, ProjectNav};
use crate::tui::ops::{CreateEmbedUrl, GetProject, Publish, UpdatePublishSettings};
use crate::tui::screens::actions::ScreenAction;
use crate::tui::widgets::confirm::Confirm;
use crate::tui::widgets::input::TextField;
use crate::tui::widgets::menu::Menu;
use crate::tui::widgets::rule;
use crate::tui::widgets::scroll::ScrollPane;

/// The screen's requests: the project's read, the search for its inventory
/// facts (`facts.rs`), a write (one at a time), a deployment's poll; the
/// Security part's are in `security/`.
pub const PROJECT: Slot = Slot::new("project", "project");
pub use crate::tui::facts::FACTS;
pub const WRITE: Slot = Slot::new("project", "write");
pub const DEPLOYMENT: Slot = Slot::new("project", "deployment");

/// The answers the screen gets.
#[derive(Debug)]
pub enum Msg {
    /// The read of the project.
    Loaded(Result<Project, ErrorInfo>),
    /// A write's answer.
    Wrote(Result<Written, ErrorInfo>),
    /// A poll of the deployment.
    Deployment(Result<Deployment, ErrorInfo>),
    Facts(FactsMsg),
    Security(security::Msg),
}

impl From<FactsMsg> for Msg {
    fn from(msg: FactsMsg) -> Self {
        Msg::Facts(msg)
    }
}

/// What a write answered.
#[derive(Debug)]
pub enum Written {
    /// A rename or a visibility change: the project as it is now.
    Project(Box<Project>),
    Unpublished,
    /// A publish: the deployment it started.
    Deployment(Box<Deployment>),
    /// `PATCH /publish`: the resolved settings, not the project.
    Audience(Box<AudienceSettings>),
    EmbedUrl(Box<EmbedUrl>),
    Deleted,
}

/// Whether this session may change projects.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum WriteAccess {
    #[default]
    Allowed,
    /// `--read-only` or `read_only = true`: actions are hidden.
    ReadOnly,
    /// A write answered 403 `insufficient_scope`: actions are shown disabled.
    MissingScope(Vec<String>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteKind {
    Rename,
    Visibility,
    Unpublish,
    Publish,
    Delete,
    Audience,
    EmbedUrl,
}

impl WriteKind {
    fn doing(self) -> &'static str {
        match self {
            WriteKind::Rename => "renaming…",
            WriteKind::Visibility => "changing visibility…",
            WriteKind::Unpublish => "unpublishing…",
            WriteKind::Publish => "starting a deployment…",
            WriteKind::Delete => "deleting…",
            WriteKind::Audience => "changing the audience…",
            WriteKind::EmbedUrl => "creating an embed URL…",
        }
    }
}

#[derive(Debug)]
struct RenameField {
    field: TextField,
    /// The contract's name rule, checked as the person types.
    problem: Option<String>,
    /// The server's refusal of `body.name`, until the text changes.
    refused: Option<String>,
}

#[derive(Debug)]
enum Mode {
    View,
    Rename(RenameField),
    Visibility(Menu),
    Confirm(Box<Confirm>, WriteKind),
    Publish(PublishConfirm),
    Audience(Box<AudienceEditor>),
    Embed(EmbedPrompt),
}

#[derive(Debug)]
pub struct ProjectScreen {
    /// The project on screen: its id, and its name as known when opened.
    pub target: ProjectRef,
    /// Its inventory facts and where they come from, or why they are missing.
    pub facts: Facts,
    pub project: Option<Project>,
    pub error: Option<ErrorInfo>,
    load_pending: Option<u64>,
    loaded_at: Option<OffsetDateTime>,
    pub access: WriteAccess,
    mode: Mode,
    write: Option<(u64, WriteKind)>,
    /// The last write's outcome in words, or its refusal.
    pub last_write: Option<String>,
    pub write_error: Option<ErrorInfo>,
    /// A re-read after a write: its answer goes to the inventory too.
    reread_after_write: bool,
    pub deployment: Option<DeploymentWatch>,
    /// The Security part (`d`), in place of the project's fields while open.
    pub security: Option<security::SecurityPart>,
    /// The last embed URL created, shown with its expiry.
    pub embed: Option<EmbedUrl>,
    /// The project and inventory panes scroll together (j/k, ctrl-d/ctrl-u).
    panes: [ScrollPane; 2],
    /// The project's reviewed mark, kept current by the App.
    pub review: Option<crate::history::ReviewMark>,
    /// The service said the project is gone (`gone.rs`).
    pub gone: Option<crate::tui::focus::GoneProject>,
    /// The policies' evaluation, kept current by the App (`policies.rs`).
    pub policies: std::sync::Arc<crate::tui::policies::PolicyShown>,
}

impl ProjectScreen {
    pub fn new(target: ProjectRef, facts: Facts, access: WriteAccess) -> Self {
        Self {
            target,
            facts,
            project: None,
            error: None,
            load_pending: None,
            loaded_at: None,
            access,
            mode: Mode::View,
            write: None,
            last_write: None,
            write_error: None,
            reread_after_write: false,
            deployment: None,
            security: None,
            embed: None,
            panes: Default::default(),
            review: None,
            gone: None,
            policies: Default::default(),
        }
    }

    pub fn project_id(&self) -> &str {
        &self.target.id
    }

    fn load(&mut self, cx: &mut Cx) {
        let read = GetProject {
            project_id: self.target.id.clone(),
        };
        self.load_pending = Some(cx.request(PROJECT, read, Msg::Loaded));
    }

    /// Looks for the inventory facts when the screen has none (`facts.rs`).
    fn find_facts(&mut self, force: bool, cx: &mut Cx) {
        let name = self.current_name().map(str::to_owned);
        self.facts
            .find::<Msg>(&self.target.id, name.as_deref(), force, cx);
    }

    /// The project as the monitor's watch list names it: `w` here pins it,
    /// whichever inventory row is selected (it may have been opened from the
    /// palette or the changes).
    pub fn project_ref(&self) -> ProjectRef {
        ProjectRef {
            id: self.target.id.clone(),
            name: self
                .current_name()
                .map(str::to_owned)
                .or_else(|| self.known_name().map(|(name, _)| name)),
        }
    }

    /// The name as the project has it now (the response of the last write wins).
    fn current_name(&self) -> Option<&str> {
        match &self.project {
            Some(project) => project.name.as_deref(),
            None => self.target.name.as_deref(),
        }
    }

    /// Why actions are off, if they are.
    fn refusal(&self) -> Option<String> {
        match &self.access {
            WriteAccess::Allowed => None,
            WriteAccess::ReadOnly => Some("read-only mode: changes are turned off".into()),
            WriteAccess::MissingScope(scopes) => Some(format!(
                "changes are disabled: the API key lacks {}",
                scopes.join(" or ")
            )),
        }
    }
}

impl Screen for ProjectScreen {
    fn title(&self) -> &'static str {
        "Project"
    }

    fn observe_rate(&mut self, remaining: u32, limit: u32, _now: OffsetDateTime) {
        if let Some(security) = &mut self.security {
            security.findings.set_rate(remaining, limit);
        }
    }

    fn activate(&mut self, cx: &mut Cx) {
        if self.project.is_none() && self.load_pending.is_none() {
            self.load(cx);
        }
        // A known name is searched for at once, the history asked by id; an
        // id alone waits for the read before a search.
        if self.current_name().is_some() || self.facts.asks_by_id() {
            self.find_facts(false, cx);
        }
    }

    fn captures_keys(&self) -> bool {
        !matches!(self.mode, Mode::View)
            || self.security.as_ref().is_some_and(|p| p.captures_keys())
    }

    fn handle_text_key(&mut self, key: &KeyEvent, cx: &mut Cx) -> bool {
        if let Some(part) = &mut self.security
            && matches!(self.mode, Mode::View)
        {
            return part.handle_text_key(key, cx);
        }
        let project_id = self.target.id.clone();
        // Each dialog's answer, as the write it asks for.
        match &mut self.mode {
            Mode::View => return false,
            Mode::Visibility(menu) => {
                let Some(outcome) = menu.key(key) else {
                    return false;
                };
                self.visibility_outcome(outcome, cx);
            }
            Mode::Rename(rename) => match key.code {
                KeyCode::Esc => self.mode = Mode::View,
                KeyCode::Enter => self.submit_rename(cx),
                _ => {
                    if rename.field.handle_key(key) {
                        rename.problem = validate_project_name(rename.field.value())
                            .err()
                            .map(|e| e.to_string());
                        rename.refused = None;
                    }
                }
            },
            Mode::Confirm(confirm, kind) => {
                let kind = *kind;
                let outcome = confirm.handle_key(key);
                if self.settle(outcome).is_some() {
                    self.send_confirmed(kind, project_id, cx);
                }
            }
            Mode::Publish(confirm) => {
                let outcome = confirm.handle_key(key);
                // `None` keeps the saved audience.
                if let Some(audience) = self.settle(outcome) {
                    let publish = Publish {
                        project_id,
                        audience,
                    };
                    self.send(WriteKind::Publish, publish, writes::wrote_publish, cx);
                }
            }
            Mode::Audience(editor) => {
                let outcome = editor.handle_key(key);
                if let Some(settings) = self.settle(outcome) {
                    let update = UpdatePublishSettings {
                        project_id,
                        settings,
                    };
                    self.send(WriteKind::Audience, update, writes::wrote_audience, cx);
                }
            }
            Mode::Embed(prompt) => {
                let outcome = prompt.handle_key(key);
                if let Some(parent_origin) = self.settle(outcome) {
                    let create = CreateEmbedUrl {
                        project_id,
                        parent_origin,
                    };
                    self.send(WriteKind::EmbedUrl, create, writes::wrote_embed, cx);
                }
            }
        }
        true
    }

    fn handle_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        if let Mode::Visibility(menu) = &mut self.mode {
            let outcome = menu.handle(action);
            self.visibility_outcome(outcome, cx);
            return true;
        }
        if let Some(part) = &mut self.security {
            match part.handle_action(action, cx) {
                security::Outcome::Handled => return true,
                security::Outcome::Close => {
                    self.security = None;
                    return true;
                }
                security::Outcome::Ignored => {}
            }
        }
        match action {
            Action::Scans => {
                self.security = Some(security::SecurityPart::open(&self.target.id, cx));
            }
            Action::Back => {
                if let Some(kind) = self.write_pending() {
                    cx.notify(format!(
                        "wait: {} is still in progress",
                        kind.doing().trim_end_matches('…')
                    ));
                } else {
                    cx.navigate(Nav::Project(ProjectNav::Close));
                }
            }
            Action::Refresh => {
                self.load(cx);
                if self.facts.row.is_none() {
                    self.find_facts(true, cx);
                }
            }
            Action::Copy => cx.copy(Some(&self.target.id)),
            Action::Rename => self.begin(WriteKind::Rename, cx),
            Action::Visibility => self.begin(WriteKind::Visibility, cx),
            Action::Unpublish => self.begin(WriteKind::Unpublish, cx),
            Action::Publish => self.begin(WriteKind::Publish, cx),
            Action::Delete => self.begin(WriteKind::Delete, cx),
            Action::Audience => self.begin(WriteKind::Audience, cx),
            Action::EmbedUrl => self.begin(WriteKind::EmbedUrl, cx),
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom => {
                for pane in &mut self.panes {
                    pane.handle(action);
                }
            }
            _ => return false,
        }
        true
    }

    fn wake_at(&self) -> Option<OffsetDateTime> {
        self.deployment
            .as_ref()
            .filter(|watch| watch.poll_pending.is_none())
            .and_then(|watch| watch.next_poll)
    }

    fn wake(&mut self, cx: &mut Cx) -> bool {
        self.deployment.as_mut().is_some_and(|watch| watch.poll(cx))
    }

    fn last_loaded(&self) -> Option<OffsetDateTime> {
        self.loaded_at
    }

    fn export_rows(&self) -> Option<crate::tui::export::ExportRows> {
        self.security.as_ref().and_then(|part| part.export_rows())
    }

    fn actions(&self) -> Vec<ScreenAction> {
        self.offered()
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let theme = view.theme;
        let activity = self.activity_lines(view);
        let rename_rows = if self.is_renaming() { 3 } else { 0 };
        let activity_rows =
            (activity.len() as u16 + rename_rows).min(area.height.saturating_sub(6) / 2);
        let [head_area, main_area, activity_area] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Min(3),
            Constraint::Length(activity_rows),
        ])
        .areas(area);
        self.draw_head(frame, head_area, view);
        if let Some(part) = &self.security {
            let [part_area, status_area] =
                Layout::vertical([Constraint::Min(3), Constraint::Length(activity_rows)]).areas(
                    Rect {
                        height: area.height.saturating_sub(1),
                        y: area.y + 1,
                        ..area
                    },
                );
            part.draw(frame, part_area, view);
            frame.render_widget(Paragraph::new(activity), status_area);
            return;
        }
        let wide = main_area.width >= 110;
        let left_width = if wide {
            main_area.width * 58 / 100
        } else {
            main_area.width
        };
        let mut project_lines = self.project_lines(view, left_width as usize);
        if let Some(mark) = &self.review {
            let mark = self.review_as_seen(mark, view.now);
            project_lines.push(Line::default());
            project_lines.extend(crate::tui::review::shown::review_block(
                Some(&mark),
                theme,
                left_width as usize,
                view.now,
            ));
        }
        project_lines.push(Line::default());
        project_lines.extend(self.policy_lines(view, left_width as usize));
        let facts = self.fact_lines(view);

        let block = |title: &'static str| rule(theme).title(Span::styled(title, theme.title));
        if wide {
            let [left, right] =
                Layout::horizontal([Constraint::Percentage(58), Constraint::Percentage(42)])
                    .spacing(1)
                    .areas(main_area);
            self.panes[0].draw(
                frame,
                left,
                block(" Project "),
                project_lines,
                theme,
                view.keymap,
            );
            self.panes[1].draw(
                frame,
                right,
                block(" From the inventory "),
                facts,
                theme,
                view.keymap,
            );
        } else {
            let mut lines = project_lines;
            lines.push(Line::from(Span::styled("From the inventory", theme.title)));
            lines.extend(facts);
            self.panes[0].draw(
                frame,
                main_area,
                block(" Project "),
                lines,
                theme,
                view.keymap,
            );
        }
        let [rename_area, status_area] = Layout::vertical([
            Constraint::Length(rename_rows.min(activity_rows)),
            Constraint::Min(0),
        ])
        .areas(activity_area);
        if let Mode::Rename(rename) = &self.mode {
            let message = match (&rename.problem, &rename.refused, self.write_pending()) {
                (Some(problem), _, _) => (problem.as_str(), theme.error),
                (None, Some(refused), _) => (refused.as_str(), theme.error),
                (None, None, Some(_)) => ("saving…", theme.dim),
                (None, None, None) => ("enter saves · esc cancels", theme.dim),
            };
            let [_, field_area] =
                Layout::vertical([Constraint::Length(1), Constraint::Length(2)]).areas(rename_area);
            rename
                .field
                .draw(frame, field_area, theme, "new name", Some(message));
        }
        frame.render_widget(Paragraph::new(activity), status_area);
        match &self.mode {
            Mode::Visibility(menu) => {
                menu.draw_keyed(frame, area, theme, view.keymap, ["choose", "close"])
            }
            Mode::Confirm(confirm, _) => confirm.draw(frame, area, theme),
            Mode::Publish(confirm) => confirm.draw(frame, area, theme),
            Mode::Audience(editor) => editor.draw(frame, area, theme),
            Mode::Embed(prompt) => prompt.draw(frame, area, theme),
            Mode::View | Mode::Rename(_) => {}
        }
    }
}
