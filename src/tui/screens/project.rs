//! One project: every field of the Project resource, the inventory facts of the
//! row it was opened from, and the actions on it (rename, visibility, unpublish,
//! publish with deployment polling, delete). Opened with enter from the inventory;
//! esc goes back.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use time::{Duration, OffsetDateTime};

use super::{Screen, ScreenView, error_text};
use crate::api::PollPolicy;
use crate::api::model::{
    ActivityGroup, Deployment, DeploymentStatus, ErrorType, InventoryItem, Project, ProjectUpdate,
    Visibility, validate_project_name,
};
use crate::text::{display_width, fit, sanitize_line, sanitize_multiline};
use crate::tui::action::Action;
use crate::tui::effect::{Answer, Cx, ErrorInfo, Gate, Reply, Request, Slot};
use crate::tui::nav::{Nav, ProjectNav, ProjectWrite};
use crate::tui::theme::priority_label;
use crate::tui::widgets::confirm::{Confirm, ConfirmOutcome, Confirmation};
use crate::tui::widgets::input::TextField;
use crate::tui::widgets::menu::Menu;
use crate::tui::widgets::{ago, thousands};

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

/// The write actions, in the order hints list them.
/// Each: the action, its hint, its hint while disabled, its help line.
const WRITE_ACTIONS: &[(Action, &str, &str, &str)] = &[
    (Action::Rename, "rename", "rename ✗", "rename the project"),
    (
        Action::Visibility,
        "visibility",
        "visibility ✗",
        "who may open it in the editor",
    ),
    (
        Action::Publish,
        "publish",
        "publish ✗",
        "publish, then follow the deployment",
    ),
    (
        Action::Unpublish,
        "unpublish",
        "unpublish ✗",
        "take the published app offline",
    ),
    (
        Action::Delete,
        "delete",
        "delete ✗",
        "delete the project (type its name)",
    ),
];

/// Who each visibility lets in, for the menu.
const VISIBILITY_CHOICES: &[(Visibility, &str)] = &[
    (
        Visibility::Restricted,
        "owner, invited collaborators, workspace owner",
    ),
    (
        Visibility::WorkspaceEdit,
        "every member, at their role's level",
    ),
    (
        Visibility::WorkspaceView,
        "every member, role access capped at read",
    ),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteKind {
    Rename,
    Visibility,
    Unpublish,
    Publish,
    Delete,
}

impl WriteKind {
    fn doing(self) -> &'static str {
        match self {
            WriteKind::Rename => "renaming…",
            WriteKind::Visibility => "changing visibility…",
            WriteKind::Unpublish => "unpublishing…",
            WriteKind::Publish => "starting a deployment…",
            WriteKind::Delete => "deleting…",
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
}

/// A deployment being followed, polled on a clock-driven schedule within the
/// contract's limits: the first poll 2 s after the 202, then backing off toward
/// 10 s, never more often than every 2 s.
#[derive(Debug, Clone, PartialEq)]
pub struct DeploymentWatch {
    pub project_id: String,
    pub deployment: Deployment,
    /// When the next poll is due; None while one is in flight or when terminal.
    pub next_poll: Option<OffsetDateTime>,
    pub interval: Duration,
    poll_pending: Option<u64>,
    pub polls: u32,
    pub last_error: Option<ErrorInfo>,
}

impl DeploymentWatch {
    fn policy() -> (Duration, Duration, f64) {
        let policy = PollPolicy::default();
        let floor = Duration::try_from(crate::api::client::MIN_POLL_INTERVAL)
            .unwrap_or(Duration::seconds(2));
        let first = Duration::try_from(policy.first).unwrap_or(floor).max(floor);
        let max = Duration::try_from(policy.max).unwrap_or(first).max(first);
        (first, max, policy.factor.max(1.0))
    }

    fn start(project_id: String, deployment: Deployment, now: OffsetDateTime) -> Self {
        let (first, _, _) = Self::policy();
        let terminal = deployment.status.is_terminal();
        Self {
            project_id,
            deployment,
            next_poll: (!terminal).then_some(now + first),
            interval: first,
            poll_pending: None,
            polls: 0,
            last_error: None,
        }
    }

    fn backoff(&mut self, now: OffsetDateTime) {
        let (first, max, factor) = Self::policy();
        self.interval = (self.interval * factor).clamp(first, max);
        self.next_poll = Some(now + self.interval);
    }

    pub fn is_terminal(&self) -> bool {
        self.deployment.status.is_terminal()
    }
}

#[derive(Debug)]
pub struct ProjectScreen {
    /// The inventory row this screen was opened from.
    pub item: InventoryItem,
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
}

impl ProjectScreen {
    pub fn new(item: InventoryItem, access: WriteAccess) -> Self {
        Self {
            item,
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
        }
    }

    pub fn project_id(&self) -> &str {
        &self.item.id
    }

    fn load(&mut self, cx: &mut Cx) {
        self.load_pending = Some(cx.fetch(
            Slot::Project,
            Request::GetProject {
                project_id: self.item.id.clone(),
            },
        ));
    }

    /// The name as the project has it now (the response of the last write wins).
    fn current_name(&self) -> Option<&str> {
        match &self.project {
            Some(project) => project.name.as_deref(),
            None => self.item.name.as_deref(),
        }
    }

    pub fn write_pending(&self) -> Option<WriteKind> {
        self.write.map(|(_, kind)| kind)
    }

    pub fn is_renaming(&self) -> bool {
        matches!(self.mode, Mode::Rename(_))
    }

    /// What is wrong with the name being typed: the contract's rule first, then
    /// the server's refusal.
    pub fn rename_error(&self) -> Option<String> {
        match &self.mode {
            Mode::Rename(rename) => rename.problem.clone().or_else(|| rename.refused.clone()),
            _ => None,
        }
    }

    pub fn confirm(&self) -> Option<&Confirm> {
        match &self.mode {
            Mode::Confirm(confirm, _) => Some(confirm),
            _ => None,
        }
    }

    pub fn menu_open(&self) -> bool {
        matches!(self.mode, Mode::Visibility(_))
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

    /// Starts a write action, or says why it cannot start.
    fn begin(&mut self, kind: WriteKind, cx: &mut Cx) {
        if let Some(why) = self.refusal() {
            cx.notify(why);
            return;
        }
        if let Some(pending) = self.write_pending() {
            cx.notify(format!(
                "wait: {} is still in progress",
                pending.doing().trim_end_matches('…')
            ));
            return;
        }
        let Some(project) = &self.project else {
            cx.notify("wait for the project to load".into());
            return;
        };
        let name = project
            .name
            .as_deref()
            .map_or_else(|| "(unnamed)".to_owned(), |n| fit(n, 60));
        self.mode = match kind {
            WriteKind::Rename => {
                let field = TextField::new(project.name.clone().unwrap_or_default());
                let problem = validate_project_name(field.value())
                    .err()
                    .map(|e| e.to_string());
                Mode::Rename(RenameField {
                    field,
                    problem,
                    refused: None,
                })
            }
            WriteKind::Visibility => {
                let items = VISIBILITY_CHOICES
                    .iter()
                    .map(|(v, what)| format!("{:<15} {what}", v.as_str()))
                    .collect();
                let selected = VISIBILITY_CHOICES
                    .iter()
                    .position(|(v, _)| Some(v) == project.visibility.as_ref())
                    .unwrap_or(0);
                Mode::Visibility(Menu::new("Visibility in the editor", items, selected))
            }
            WriteKind::Unpublish => {
                let mut lines = vec![format!("Take {name} offline?")];
                lines.push(if project.is_published {
                    "Its audience and visibility are kept for the next publish.".into()
                } else {
                    "It is not published now; this changes nothing.".into()
                });
                Mode::Confirm(
                    Box::new(Confirm::new("Unpublish", lines, Confirmation::Yes)),
                    kind,
                )
            }
            WriteKind::Publish => {
                let lines = vec![
                    format!("Publish {name}?"),
                    "A deployment starts; this screen follows it until it ends.".into(),
                ];
                Mode::Confirm(
                    Box::new(Confirm::new("Publish", lines, Confirmation::Yes)),
                    kind,
                )
            }
            WriteKind::Delete => {
                // The name must be typed; a project without a printable name is
                // confirmed by its id instead.
                let expected = match project.name.as_deref() {
                    Some(n) if !n.trim().is_empty() && sanitize_line(n) == n => n.to_owned(),
                    _ => project.id.clone(),
                };
                let lines = vec![
                    format!("Delete {name} ({})?", fit(&project.id, 40)),
                    "Where the workspace has trash it can be restored from the editor;".into(),
                    "otherwise it is gone for good and custom domains disconnect at once.".into(),
                ];
                Mode::Confirm(
                    Box::new(Confirm::new(
                        "Delete project",
                        lines,
                        Confirmation::Type(expected),
                    )),
                    kind,
                )
            }
        };
    }

    fn send(&mut self, kind: WriteKind, request: Request, cx: &mut Cx) {
        self.write_error = None;
        let token = cx.fetch(Slot::ProjectWrite, request);
        self.write = Some((token, kind));
    }

    fn submit_rename(&mut self, cx: &mut Cx) {
        let Mode::Rename(rename) = &mut self.mode else {
            return;
        };
        if self.write.is_some() {
            return;
        }
        let name = rename.field.value().to_owned();
        if let Err(problem) = validate_project_name(&name) {
            rename.problem = Some(problem.to_string());
            return;
        }
        if self.project.as_ref().and_then(|p| p.name.as_deref()) == Some(name.as_str()) {
            self.mode = Mode::View;
            cx.notify("the name is unchanged".into());
            return;
        }
        let request = Request::UpdateProject {
            project_id: self.item.id.clone(),
            update: ProjectUpdate {
                name: Some(name),
                visibility: None,
            },
        };
        self.send(WriteKind::Rename, request, cx);
    }

    fn confirmed(&mut self, kind: WriteKind, cx: &mut Cx) {
        self.mode = Mode::View;
        let project_id = self.item.id.clone();
        let request = match kind {
            WriteKind::Unpublish => Request::Unpublish { project_id },
            WriteKind::Publish => Request::Publish { project_id },
            WriteKind::Delete => Request::DeleteProject { project_id },
            WriteKind::Rename | WriteKind::Visibility => return,
        };
        self.send(kind, request, cx);
    }

    /// Polls the deployment when a poll is due; true when it did (the poll count shows).
    fn poll_deployment(&mut self, cx: &mut Cx) -> bool {
        let Some(watch) = &mut self.deployment else {
            return false;
        };
        if watch.poll_pending.is_some() || watch.next_poll.is_none_or(|at| at > cx.now) {
            return false;
        }
        watch.next_poll = None;
        watch.polls += 1;
        watch.poll_pending = Some(cx.fetch(
            Slot::Deployment,
            Request::GetDeployment {
                project_id: watch.project_id.clone(),
                deployment_id: watch.deployment.id.clone(),
            },
        ));
        true
    }

    fn on_write_reply(&mut self, kind: WriteKind, reply: Result<Reply, ErrorInfo>, cx: &mut Cx) {
        let label = self.current_name().map_or_else(
            || fit(&self.item.id, 40),
            |name| format!("\u{201c}{}\u{201d}", fit(name, 40)),
        );
        match (kind, reply) {
            (WriteKind::Rename | WriteKind::Visibility, Ok(Reply::Project(project))) => {
                // The PATCH answers the project: show it at once.
                self.last_write = Some(match kind {
                    WriteKind::Rename => format!(
                        "renamed to \u{201c}{}\u{201d}",
                        fit(project.name.as_deref().unwrap_or(""), 50)
                    ),
                    _ => format!(
                        "visibility is now {}",
                        project
                            .visibility
                            .as_ref()
                            .map_or("not set", |v| v.as_str())
                    ),
                });
                self.project = Some((*project).clone());
                self.loaded_at = Some(cx.now);
                if kind == WriteKind::Rename {
                    self.mode = Mode::View;
                }
                cx.navigate(Nav::Project(ProjectNav::Wrote(ProjectWrite::Updated(
                    project,
                ))));
            }
            (WriteKind::Unpublish, Ok(_)) => {
                // 204 without a body: the contract says what changed; read it back.
                self.last_write = Some(format!("unpublished {label}"));
                if let Some(project) = &mut self.project {
                    project.is_published = false;
                    project.publish_audience = None;
                    project.publish_audience_targets.clear();
                    cx.navigate(Nav::Project(ProjectNav::Wrote(ProjectWrite::Updated(
                        Box::new(project.clone()),
                    ))));
                }
                self.reread_after_write = true;
                self.load(cx);
            }
            (WriteKind::Publish, Ok(Reply::Deployment(deployment))) => {
                self.last_write = Some(format!("deployment {} accepted", fit(&deployment.id, 40)));
                let terminal = deployment.status.is_terminal();
                self.deployment = Some(DeploymentWatch::start(
                    self.item.id.clone(),
                    *deployment,
                    cx.now,
                ));
                if terminal {
                    self.reread_after_write = true;
                    self.load(cx);
                }
            }
            (WriteKind::Delete, Ok(_)) => self.deleted(format!("deleted {label}"), cx),
            (WriteKind::Delete, Err(error))
                if error.kind.as_deref() == Some(ErrorType::ProjectNotFound.as_str()) =>
            {
                // Already gone (deleted elsewhere): what the person wanted.
                self.deleted(format!("{label} was already deleted"), cx)
            }
            (_, Ok(_)) => {}
            (_, Err(error)) => self.write_refused(error),
        }
    }

    fn deleted(&mut self, notice: String, cx: &mut Cx) {
        cx.navigate(Nav::Project(ProjectNav::Wrote(ProjectWrite::Deleted(
            self.item.id.clone(),
        ))));
        cx.navigate(Nav::Project(ProjectNav::Close));
        cx.notify(notice);
    }

    fn write_refused(&mut self, error: ErrorInfo) {
        if let Some(Gate::Scopes(scopes)) = &error.gate {
            // A credential without the write scope: every action is disabled.
            self.access = WriteAccess::MissingScope(scopes.clone());
        }
        if let (Mode::Rename(rename), Some(Gate::Fields(fields))) = (&mut self.mode, &error.gate) {
            let on_name: Vec<&str> = fields
                .iter()
                .filter(|f| f.location.as_deref() == Some("body.name"))
                .map(|f| f.message.as_str())
                .collect();
            if !on_name.is_empty() {
                rename.refused = Some(sanitize_line(&on_name.join("; ")).into_owned());
            }
        }
        self.last_write = None;
        self.write_error = Some(error);
    }

    fn on_deployment_reply(&mut self, token: u64, reply: Result<Reply, ErrorInfo>, cx: &mut Cx) {
        let Some(watch) = &mut self.deployment else {
            return;
        };
        if watch.poll_pending != Some(token) {
            return;
        }
        watch.poll_pending = None;
        match reply {
            Ok(Reply::Deployment(deployment)) => {
                watch.deployment = *deployment;
                watch.last_error = None;
                if watch.is_terminal() {
                    watch.next_poll = None;
                    self.reread_after_write = true;
                    self.load(cx);
                } else {
                    watch.backoff(cx.now);
                }
            }
            Ok(_) => watch.backoff(cx.now),
            Err(error) => {
                // A rate limit or a timeout is worth another poll, later; anything
                // else (the deployment is unknown, the key lacks a scope) is not.
                let transient = matches!(error.status, None | Some(429) | Some(503));
                watch.last_error = Some(error);
                if transient {
                    watch.backoff(cx.now);
                } else {
                    watch.next_poll = None;
                }
            }
        }
    }
}

impl Screen for ProjectScreen {
    fn title(&self) -> &'static str {
        "Project"
    }

    fn activate(&mut self, cx: &mut Cx) {
        if self.project.is_none() && self.load_pending.is_none() {
            self.load(cx);
        }
    }

    fn captures_keys(&self) -> bool {
        !matches!(self.mode, Mode::View)
    }

    fn handle_text_key(&mut self, key: &KeyEvent, cx: &mut Cx) -> bool {
        match &mut self.mode {
            Mode::View | Mode::Visibility(_) => false,
            Mode::Rename(rename) => {
                match key.code {
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
                }
                true
            }
            Mode::Confirm(confirm, kind) => {
                let kind = *kind;
                match confirm.handle_key(key) {
                    ConfirmOutcome::Open => {}
                    ConfirmOutcome::Cancelled => self.mode = Mode::View,
                    ConfirmOutcome::Confirmed => self.confirmed(kind, cx),
                }
                true
            }
        }
    }

    fn handle_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        if let Mode::Visibility(menu) = &mut self.mode {
            match action {
                Action::Up => menu.up(),
                Action::Down => menu.down(),
                Action::Back | Action::Quit => self.mode = Mode::View,
                Action::Open => {
                    let choice = VISIBILITY_CHOICES
                        [menu.selected.min(VISIBILITY_CHOICES.len() - 1)]
                    .0
                    .clone();
                    self.mode = Mode::View;
                    if self.project.as_ref().and_then(|p| p.visibility.as_ref()) == Some(&choice) {
                        cx.notify("the visibility is unchanged".into());
                    } else {
                        let request = Request::UpdateProject {
                            project_id: self.item.id.clone(),
                            update: ProjectUpdate {
                                name: None,
                                visibility: Some(choice),
                            },
                        };
                        self.send(WriteKind::Visibility, request, cx);
                    }
                }
                _ => {}
            }
            return true;
        }
        match action {
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
            Action::Refresh => self.load(cx),
            Action::Copy => cx.copy(Some(&self.item.id)),
            Action::Rename => self.begin(WriteKind::Rename, cx),
            Action::Visibility => self.begin(WriteKind::Visibility, cx),
            Action::Unpublish => self.begin(WriteKind::Unpublish, cx),
            Action::Publish => self.begin(WriteKind::Publish, cx),
            Action::Delete => self.begin(WriteKind::Delete, cx),
            _ => return false,
        }
        true
    }

    fn handle_reply(&mut self, answer: Answer, cx: &mut Cx) -> bool {
        let Answer { slot, token, reply } = answer;
        match slot {
            Slot::Project if self.load_pending == Some(token) => {
                self.load_pending = None;
                match reply {
                    Ok(Reply::Project(project)) => {
                        if std::mem::take(&mut self.reread_after_write) {
                            cx.navigate(Nav::Project(ProjectNav::Wrote(ProjectWrite::Updated(
                                project.clone(),
                            ))));
                        }
                        self.project = Some(*project);
                        self.error = None;
                        self.loaded_at = Some(cx.now);
                    }
                    Ok(_) => {}
                    Err(error) => self.error = Some(error),
                }
            }
            Slot::ProjectWrite => {
                let Some((pending, kind)) = self.write else {
                    return false;
                };
                if pending != token {
                    return false;
                }
                self.write = None;
                self.on_write_reply(kind, reply, cx);
            }
            Slot::Deployment => self.on_deployment_reply(token, reply, cx),
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
        self.poll_deployment(cx)
    }

    fn last_loaded(&self) -> Option<OffsetDateTime> {
        self.loaded_at
    }

    fn actions_disabled(&self) -> Option<String> {
        match &self.access {
            WriteAccess::MissingScope(_) => self.refusal(),
            _ => None,
        }
    }

    fn hints(&self) -> Vec<(Action, &'static str)> {
        let mut hints = vec![(Action::Back, "back")];
        match self.access {
            WriteAccess::ReadOnly => {}
            WriteAccess::Allowed => hints.extend(
                WRITE_ACTIONS
                    .iter()
                    .map(|(action, short, _, _)| (*action, *short)),
            ),
            WriteAccess::MissingScope(_) => hints.extend(
                WRITE_ACTIONS
                    .iter()
                    .map(|(action, _, disabled, _)| (*action, *disabled)),
            ),
        }
        hints
    }

    fn help(&self) -> Vec<(Action, &'static str)> {
        let mut help = vec![(Action::Back, "back to the inventory")];
        match self.access {
            WriteAccess::ReadOnly => {}
            WriteAccess::Allowed => help.extend(
                WRITE_ACTIONS
                    .iter()
                    .map(|(action, _, _, long)| (*action, *long)),
            ),
            WriteAccess::MissingScope(_) => {
                help.extend(WRITE_ACTIONS.iter().map(|(action, _, _, _)| {
                    (*action, "disabled: the API key lacks the write scope")
                }))
            }
        }
        help.push((Action::Copy, "copy the project id (OSC 52)"));
        help.push((Action::Refresh, "read the project again"));
        help
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
        let wide = main_area.width >= 110;
        let left_width = if wide {
            main_area.width * 58 / 100
        } else {
            main_area.width
        };
        let project_lines = self.project_lines(view, left_width as usize);
        let facts = self.fact_lines(view);
        let block = |title: &'static str| {
            Block::default()
                .borders(Borders::TOP)
                .border_style(theme.border)
                .title(Span::styled(title, theme.title))
        };
        if wide {
            let [left, right] =
                Layout::horizontal([Constraint::Percentage(58), Constraint::Percentage(42)])
                    .spacing(1)
                    .areas(main_area);
            frame.render_widget(
                Paragraph::new(project_lines).block(block(" Project ")),
                left,
            );
            frame.render_widget(
                Paragraph::new(facts).block(block(" From the inventory ")),
                right,
            );
        } else {
            let mut lines = project_lines;
            lines.push(Line::from(Span::styled("From the inventory", theme.title)));
            lines.extend(facts);
            frame.render_widget(Paragraph::new(lines).block(block(" Project ")), main_area);
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
            Mode::Visibility(menu) => menu.draw(frame, area, theme, "enter choose · esc close"),
            Mode::Confirm(confirm, _) => confirm.draw(frame, area, theme),
            Mode::View | Mode::Rename(_) => {}
        }
    }
}

/// "2026-11-20 09:30 UTC · 2 d ago", or "—".
fn when(at: Option<OffsetDateTime>, now: OffsetDateTime) -> String {
    let Some(at) = at else {
        return "—".into();
    };
    let stamp = at
        .format(time::macros::format_description!(
            "[year]-[month]-[day] [hour]:[minute] UTC"
        ))
        .unwrap_or_else(|_| at.unix_timestamp().to_string());
    format!("{stamp} · {}", ago((now - at).whole_seconds()))
}

/// Words to lines of at most `width` cells, at most `max_lines` of them.
fn wrap_words(text: &str, width: usize, max_lines: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    for word in text.split_whitespace() {
        let needed =
            display_width(&current) + usize::from(!current.is_empty()) + display_width(word);
        if needed > width && !current.is_empty() {
            lines.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    if !current.is_empty() {
        lines.push(current);
    }
    if lines.len() > max_lines {
        let rest = lines[max_lines - 1..].join(" ");
        lines.truncate(max_lines - 1);
        lines.push(rest);
    }
    lines.into_iter().map(|line| fit(&line, width)).collect()
}

impl ProjectScreen {
    fn draw_head(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let theme = view.theme;
        let name = self.current_name().unwrap_or("(unnamed)");
        let mut spans = vec![
            Span::styled(fit(name, area.width as usize / 2), theme.title),
            Span::styled(format!("  {}", fit(&self.item.id, 40)), theme.dim),
        ];
        if self.load_pending.is_some() {
            spans.push(Span::styled(" · loading…", theme.dim));
        }
        if let Some(kind) = self.write_pending() {
            spans.push(Span::styled(format!(" · {}", kind.doing()), theme.warn));
        }
        if self.access == WriteAccess::ReadOnly {
            spans.push(Span::styled(" · read-only", theme.dim));
        }
        frame.render_widget(Paragraph::new(Line::from(spans)), area);
    }

    /// The Project's fields, values cut to `width` cells with their labels.
    fn project_lines(&self, view: &ScreenView, width: usize) -> Vec<Line<'static>> {
        let theme = view.theme;
        let Some(project) = &self.project else {
            return match &self.error {
                Some(error) => error_text(error, theme),
                None => vec![Line::from(Span::styled("Loading the project…", theme.dim))],
            };
        };
        const LABEL: usize = 15;
        let width = width.saturating_sub(LABEL).max(10);
        let row = |label: &str, value: String, style: Style| {
            Line::from(vec![
                Span::styled(format!("{label:<LABEL$}"), theme.dim),
                Span::styled(value, style),
            ])
        };
        let text = |value: Option<&str>| value.map_or_else(|| "—".to_owned(), |v| fit(v, width));
        let mut lines = vec![row(
            "Name",
            project
                .name
                .as_deref()
                .map_or_else(|| "(unnamed)".into(), |n| fit(n, width)),
            theme.title,
        )];
        let description = project
            .description
            .as_deref()
            .map(|d| sanitize_multiline(d).replace('\n', " "));
        match description {
            Some(description) => {
                for (index, line) in wrap_words(&description, width, 3).into_iter().enumerate() {
                    let label = if index == 0 { "Description" } else { "" };
                    lines.push(row(label, line, theme.base));
                }
            }
            None => lines.push(row(
                "Description",
                "none yet (the agent writes it)".into(),
                theme.dim,
            )),
        }
        let owner = match (&self.item.owner.display_name, &project.owner_id) {
            (Some(name), Some(id)) => format!("{} · {}", fit(name, 30), fit(id, 40)),
            (Some(name), None) => fit(name, 30),
            (None, Some(id)) => fit(id, 40),
            (None, None) => "—".into(),
        };
        lines.push(row("Owner", fit(&owner, width), theme.base));
        lines.push(row("Workspace", fit(&project.workspace_id, 40), theme.base));
        lines.push(row(
            "Created",
            when(project.created_at, view.now),
            theme.base,
        ));
        lines.push(row(
            "Last edited",
            when(project.last_edited_at, view.now),
            theme.base,
        ));
        lines.push(row(
            "Latest commit",
            text(project.latest_commit_sha.as_deref()),
            theme.base,
        ));
        lines.push(row(
            "Screenshot",
            text(project.latest_screenshot_url.as_deref()),
            theme.accent,
        ));
        lines.push(row(
            "Preview",
            text(project.preview_url.as_deref()),
            theme.accent,
        ));
        lines.push(row(
            "Visibility",
            project
                .visibility
                .as_ref()
                .map_or_else(|| "not set".into(), |v| fit(v.as_str(), 30)),
            theme.base,
        ));
        let published = if project.is_published {
            match &project.publish_audience {
                Some(audience) => format!("yes · audience {}", fit(audience.as_str(), 30)),
                None => "yes".into(),
            }
        } else {
            "no (offline)".into()
        };
        lines.push(row(
            "Published",
            published,
            if project.is_published {
                theme.ok
            } else {
                theme.base
            },
        ));
        let targets = if project.publish_audience_targets.is_empty() {
            "none".to_owned()
        } else {
            project
                .publish_audience_targets
                .iter()
                .map(|t| format!("{} {}", fit(&t.kind, 12), fit(&t.id, 40)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        lines.push(row("Audience for", fit(&targets, width), theme.base));
        lines
    }

    fn fact_lines(&self, view: &ScreenView) -> Vec<Line<'static>> {
        let theme = view.theme;
        let item = &self.item;
        const LABEL: usize = 15;
        let row = |label: &str, value: String| {
            Line::from(vec![
                Span::styled(format!("{label:<LABEL$}"), theme.dim),
                Span::raw(value),
            ])
        };
        let mut lines = vec![Line::from(vec![
            Span::styled(format!("{:<LABEL$}", "Review"), theme.dim),
            Span::styled(
                priority_label(&item.review_priority),
                theme.priority(&item.review_priority),
            ),
        ])];
        let activity = match &item.activity_group {
            ActivityGroup::Last14Days => "edited in the last 14 days".to_owned(),
            ActivityGroup::Last60Days => "edited in the last 60 days".to_owned(),
            ActivityGroup::Older => "older".to_owned(),
            ActivityGroup::Unknown(raw) => fit(raw, 30),
        };
        lines.push(row("Activity", activity));
        lines.push(row(
            "Edits",
            format!(
                "{} / {} / {} (24h/7d/30d) · {} total",
                thousands(item.edits_24h),
                thousands(item.edits_7d),
                thousands(item.edits_30d),
                thousands(item.edit_count)
            ),
        ));
        lines.push(row(
            "Visitors",
            format!(
                "{} / {} / {} (24h/7d/30d)",
                thousands(item.visitors_24h),
                thousands(item.visitors_7d),
                thousands(item.visitors_30d)
            ),
        ));
        lines.push(row("Messages", thousands(item.message_count)));
        lines.push(row(
            "Last scan",
            match item.last_security_scan_at {
                Some(at) => ago((view.now - at).whole_seconds()),
                None => "never".into(),
            },
        ));
        if let Some(url) = &item.url {
            lines.push(Line::from(vec![
                Span::styled(format!("{:<LABEL$}", "App URL"), theme.dim),
                Span::styled(fit(url, 80), theme.accent),
            ]));
        }
        let connectors = if item.connectors.is_empty() {
            "none".to_owned()
        } else {
            fit(&item.connectors.join(", "), 80)
        };
        lines.push(row("Connectors", connectors));
        let functions = if item.edge_functions.is_empty() {
            "none".to_owned()
        } else {
            let names: Vec<&str> = item
                .edge_functions
                .iter()
                .map(|f| f.name.as_str())
                .collect();
            fit(&names.join(", "), 80)
        };
        lines.push(row("Functions", functions));
        if let Some(reason) = &item.matched_reason {
            let v = &reason.values;
            lines.push(row(
                "Counts",
                format!(
                    "open PII {} · secrets {} · shared users {} · errors {} · warnings {}",
                    v.open_pii_finding_count,
                    v.secret_count,
                    v.shared_user_count,
                    v.error_count,
                    v.warning_count
                ),
            ));
        }
        for reason in &item.review_priority_explanation {
            lines.push(Line::from(vec![
                Span::styled(
                    format!("{} ", priority_label(&reason.review_priority)),
                    theme.priority(&reason.review_priority),
                ),
                Span::raw(fit(&format!("{}: {}", reason.label, reason.detail), 90)),
            ]));
        }
        lines
    }

    /// The last write and the deployment being followed, newest facts first.
    fn activity_lines(&self, view: &ScreenView) -> Vec<Line<'static>> {
        let theme = view.theme;
        let mut lines = Vec::new();
        if let Some(why) = self.refusal()
            && self.access != WriteAccess::ReadOnly
        {
            lines.push(Line::from(Span::styled(why, theme.warn)));
        }
        if let Some(watch) = &self.deployment {
            let deployment = &watch.deployment;
            let mut spans = vec![
                Span::styled("Deployment ", theme.dim),
                Span::raw(fit(&deployment.id, 40)),
                Span::styled(" · ", theme.dim),
            ];
            let status = fit(deployment.status.as_str(), 20);
            match &deployment.status {
                DeploymentStatus::Completed => {
                    spans.push(Span::styled(format!("✓ {status}"), theme.ok));
                    if let Some(url) = &deployment.url {
                        spans.push(Span::styled(" · ", theme.dim));
                        spans.push(Span::styled(fit(url, 80), theme.accent));
                    }
                }
                DeploymentStatus::Error => {
                    spans.push(Span::styled(format!("✗ {status}"), theme.error));
                    if let Some(class) = &deployment.error_class {
                        spans.push(Span::styled(
                            format!(" ({})", fit(class.as_str(), 20)),
                            theme.error,
                        ));
                    }
                    if let Some(message) = &deployment.error_message {
                        spans.push(Span::styled(": ", theme.dim));
                        spans.push(Span::raw(fit(message, 100)));
                    }
                }
                _ => {
                    spans.push(Span::styled(format!("… {status}"), theme.warn));
                    // Nothing redraws on a tick, so no countdown: the interval.
                    let every = watch.interval.as_seconds_f64();
                    spans.push(Span::styled(
                        format!(" · checks every {every:.0} s ({} so far)", watch.polls),
                        theme.dim,
                    ));
                }
            }
            lines.push(Line::from(spans));
            if let Some(error) = &watch.last_error {
                lines.push(Line::from(Span::styled(
                    fit(
                        &format!(
                            "last check failed: {} {}",
                            error.kind.as_deref().unwrap_or("error"),
                            error.summary
                        ),
                        150,
                    ),
                    theme.error,
                )));
            }
        }
        if let Some(done) = &self.last_write {
            lines.push(Line::from(Span::styled(format!("✓ {done}"), theme.ok)));
        }
        if let Some(error) = &self.write_error {
            // A refusal of the name is shown on the field instead.
            let on_field = self.is_renaming()
                && matches!(&error.gate, Some(Gate::Fields(fields))
                    if fields.iter().any(|f| f.location.as_deref() == Some("body.name")));
            if !on_field {
                lines.extend(error_text(error, theme));
            }
        }
        lines
    }
}
