//! What screens ask the runtime to do, and what comes back. Screens never touch the
//! network: they return effects; every reply carries the token of its request, so
//! a stale reply (an older filter, a screen left behind) is dropped. What a screen
//! asks of the App itself (tabs, the project view, the status line) is a
//! [`Nav`], collected apart, so the runtime sees only what it carries out.

use std::path::PathBuf;

use time::OffsetDateTime;

use crate::api::model::{ErrorType, FieldError};
use crate::tui::nav::Nav;
use crate::tui::request::{Job, Message, Operation};

pub use crate::tui::request::Slot;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    Csv,
    Json,
}

impl ExportFormat {
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Csv => "csv",
            ExportFormat::Json => "json",
        }
    }
}

/// What the dashboard needs to know of the context it switched to.
#[derive(Debug, Clone)]
pub struct SwitchedContext {
    pub name: String,
    pub workspace: String,
    pub api_version: String,
    pub read_only: bool,
    /// The monitor's watch list file of this context.
    pub watchlist: PathBuf,
    /// This context's review history as read for its first screens; `None`:
    /// the dashboard runs without one.
    pub history: Option<crate::tui::review::start::HistoryStart>,
}

/// Whether a reply with `token` answers the request `pending` waits for; if
/// so, nothing is pending any more. A stale token leaves `pending` alone.
pub fn answers(pending: &mut Option<u64>, token: u64) -> bool {
    pending.take_if(|waiting| *waiting == token).is_some()
}

/// [`answers`] for a slot's lanes, each waiting with what it asked about:
/// what the lane that `token` answers asked about, that lane now free.
pub fn answered_lane<T>(lanes: &mut [Option<(u64, T)>], token: u64) -> Option<T> {
    lanes
        .iter_mut()
        .find_map(|lane| lane.take_if(|(waiting, _)| *waiting == token))
        .map(|(_, asked)| asked)
}

/// What the runtime carries out for a screen: I/O, and nothing else.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Run `job` in `slot`; its answer carries `token`.
    Fetch {
        slot: Slot,
        token: u64,
        job: Job,
    },
    /// Put text on the clipboard (OSC 52).
    Copy(crate::text::Pasteable),
    Quit,
}

/// Why the API refused, in the words a person needs to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gate {
    /// 402 with `required_plan`.
    Plan(String),
    /// 402 with `required_features`.
    Features(Vec<String>),
    /// 403 `insufficient_scope` with `required_scopes`.
    Scopes(Vec<String>),
    /// A 404 that means a feature is off (e.g. `pii_labels_not_found`).
    FeatureOff(String),
    /// A 404 whose type stands for more than one cause: what the service
    /// said, and each cause it may mean, never one picked for it.
    NotFound(String),
    /// 400 `invalid_request` with field errors: what to fix, field by field.
    Fields(Vec<FieldError>),
    /// `security_critical_findings`: the findings that block publishing.
    BlockingFindings(Vec<String>),
}

impl Gate {
    /// One line for the screen. Plans, features, scopes, locations and finding
    /// refs are the service's words: the dashboard's rule applies here, before
    /// any screen or the error log shows them.
    pub fn explain(&self) -> String {
        crate::text::sanitize_line(&self.explain_unescaped()).into_owned()
    }

    fn explain_unescaped(&self) -> String {
        match self {
            Gate::Plan(plan) => {
                format!("This needs the {plan} plan. Ask a workspace owner to upgrade.")
            }
            Gate::Features(features) => format!(
                "This needs the workspace feature{} {}.",
                if features.len() == 1 { "" } else { "s" },
                features.join(", ")
            ),
            Gate::Scopes(scopes) => format!(
                "The API key lacks a scope: create a key with {}.",
                scopes.join(" or ")
            ),
            Gate::FeatureOff(kind) => {
                format!("The feature is not enabled for this workspace ({kind}).")
            }
            Gate::NotFound(said) => said.clone(),
            Gate::Fields(fields) => {
                let each: Vec<String> = fields
                    .iter()
                    .map(|field| match &field.location {
                        Some(location) => format!("{location}: {}", field.message),
                        None => field.message.clone(),
                    })
                    .collect();
                format!("The server refused the input: {}.", each.join("; "))
            }
            Gate::BlockingFindings(refs) => format!(
                "Publishing is blocked by critical security findings: {}. Resolve them first.",
                refs.join(", ")
            ),
        }
    }
}

/// What kind of error an [`ErrorInfo`] is: the service's `type`, or one of
/// the dashboard's own. Code branches on it, never on its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// The service's error `type`.
    Service(ErrorType),
    /// The history is out of reach (the shared database is down): the App
    /// retries with backoff.
    HistoryAway,
    /// The shared database kept the request waiting past `lock_timeout_secs`
    /// or `statement_timeout_secs` (a teammate's lock): away as
    /// [`ErrorKind::HistoryAway`] is, said as waiting.
    HistoryWaiting,
    /// The dashboard's own request budget ran out.
    RequestBudget,
}

impl ErrorKind {
    /// The token shown beside the error (`type project_not_found`).
    pub fn as_str(&self) -> &str {
        match self {
            Self::Service(kind) => kind.as_str(),
            Self::HistoryAway => "history_unreachable",
            Self::HistoryWaiting => "history_waiting",
            Self::RequestBudget => "request_budget",
        }
    }

    /// Whether the history is away or kept it waiting: worth retrying later.
    pub fn is_history_away(&self) -> bool {
        matches!(self, Self::HistoryAway | Self::HistoryWaiting)
    }
}

impl From<ErrorType> for ErrorKind {
    fn from(kind: ErrorType) -> Self {
        Self::Service(kind)
    }
}

/// A service's `type` as sent (an unknown one kept).
impl From<&str> for ErrorKind {
    fn from(raw: &str) -> Self {
        Self::Service(ErrorType::parse(raw))
    }
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error as the TUI shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorInfo {
    pub status: Option<u16>,
    pub kind: Option<ErrorKind>,
    pub detail: Option<String>,
    pub request_id: Option<String>,
    /// One line a person can act on.
    pub summary: String,
    pub gate: Option<Gate>,
    pub at: OffsetDateTime,
}

impl ErrorInfo {
    /// A failure that is not the service's answer (a local file, connecting
    /// to another context): what happened, and when.
    pub fn local(summary: String, at: OffsetDateTime) -> Self {
        Self {
            status: None,
            kind: None,
            detail: None,
            request_id: None,
            summary,
            gate: None,
            at,
        }
    }

    /// Whether the service answered with this `type`.
    pub fn is_service(&self, wanted: ErrorType) -> bool {
        self.kind == Some(ErrorKind::Service(wanted))
    }

    /// The token shown for the kind, `error` when there is none.
    pub fn kind_str(&self) -> &str {
        self.kind.as_ref().map_or("error", ErrorKind::as_str)
    }
}

/// Hands out request tokens and collects effects (for the runtime) and
/// navigation (for the App) while a message is handled.
pub struct Cx<'a> {
    pub now: OffsetDateTime,
    /// The workspace on screen: the one a workspace's list asks for.
    pub workspace: &'a str,
    /// The most items one walk of a list reads (`max_walk_items`).
    pub walk_limit: u64,
    effects: &'a mut Vec<Effect>,
    navs: &'a mut Vec<Nav>,
    next_token: &'a mut u64,
}

impl<'a> Cx<'a> {
    pub fn new(
        now: OffsetDateTime,
        workspace: &'a str,
        walk_limit: u64,
        effects: &'a mut Vec<Effect>,
        navs: &'a mut Vec<Nav>,
        next_token: &'a mut u64,
    ) -> Self {
        Self {
            now,
            workspace,
            walk_limit,
            effects,
            navs,
            next_token,
        }
    }

    /// Runs `operation` in `slot`, its result made into the owner's message
    /// by `to_message`; returns the token the answer will carry.
    pub fn request<O: Operation, M: Message>(
        &mut self,
        slot: Slot,
        operation: O,
        to_message: fn(Result<O::Output, ErrorInfo>) -> M,
    ) -> u64 {
        *self.next_token += 1;
        let token = *self.next_token;
        self.effects.push(Effect::Fetch {
            slot,
            token,
            job: Job::new(operation, to_message),
        });
        token
    }

    pub fn emit(&mut self, effect: Effect) {
        self.effects.push(effect);
    }

    /// Puts `text`, when there is one (a selected row's id), on the clipboard
    /// (see [`Cx::try_copy`]).
    pub fn copy(&mut self, text: Option<&str>) {
        if let Some(text) = text {
            self.try_copy(text);
        }
    }

    /// Puts `text` on the clipboard, unless a terminal would not paste it as it
    /// looks: then the status line says why (DESIGN.md, "Output that is safe to
    /// look at"). Whether it was sent.
    pub fn try_copy(&mut self, text: &str) -> bool {
        match crate::text::Pasteable::new(text) {
            Ok(text) => {
                self.effects.push(Effect::Copy(text));
                true
            }
            Err(refused) => {
                self.notify(refused.to_string());
                false
            }
        }
    }

    pub fn navigate(&mut self, nav: Nav) {
        self.navs.push(nav);
    }

    /// A short message for the status line.
    pub fn notify(&mut self, text: String) {
        self.navs.push(Nav::Notify(text));
    }
}

/// What the App's handlers pass along while one message is handled: when it
/// happens, on which workspace, and where effects (for the runtime) and
/// navigation (for the App) collect. A screen's [`Cx`] is made from it with
/// the App's token counter.
pub struct Turn<'a> {
    pub now: OffsetDateTime,
    /// Owned: the App's handlers that take a turn borrow the whole App.
    pub workspace: String,
    /// The most items one walk of a list reads (`max_walk_items`).
    pub walk_limit: u64,
    pub effects: &'a mut Vec<Effect>,
    pub navs: &'a mut Vec<Nav>,
}

impl<'a> Turn<'a> {
    pub fn new(
        now: OffsetDateTime,
        workspace: String,
        walk_limit: u64,
        effects: &'a mut Vec<Effect>,
        navs: &'a mut Vec<Nav>,
    ) -> Self {
        Self {
            now,
            workspace,
            walk_limit,
            effects,
            navs,
        }
    }

    /// A screen's context on this turn, its tokens counted in `next_token`.
    pub fn cx<'b>(&'b mut self, next_token: &'b mut u64) -> Cx<'b> {
        Cx::new(
            self.now,
            &self.workspace,
            self.walk_limit,
            self.effects,
            self.navs,
            next_token,
        )
    }
}
