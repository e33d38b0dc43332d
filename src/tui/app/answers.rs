//! Answers on their way to their owners: each request's message goes to the
//! screen (or the App's part) whose message type it is; the App first notes
//! what every answer tells it (a failure for the error log, the status line's
//! "failing", a retry that ended).

use super::App;
use super::contexts::ContextMsg;
use super::export::ListExported;
use super::report::ReportWritten;
use super::review::HistoryMsg;
use super::views::ViewWritten;
use super::*;
use crate::api::model::Workspace;
use crate::tui::effect::Slot;
use crate::tui::request::Answer;
use crate::tui::screens::{insights, inventory, members, project};

/// The App's own request: the workspace read at start, its plan for the header.
pub const WORKSPACE: Slot = Slot::new("app", "workspace");

/// The answers the App itself gets.
#[derive(Debug)]
pub enum AppMsg {
    Workspace(Result<Workspace, ErrorInfo>),
    /// Only a failure matters, and the error log has it.
    PaletteHistorySaved(Result<(), ErrorInfo>),
    /// The palette's search for a project by name.
    Jump(Result<crate::api::model::InventoryPage, ErrorInfo>),
}

/// Hands `answer` to the owner of message type `$msg`, returning what the
/// owner says; leaves it for the next owner when it is not theirs.
macro_rules! route {
    ($answer:ident, $msg:ty, |$token:ident, $message:ident| $owner:expr) => {
        let $answer = match $answer.open::<$msg>() {
            Ok(($token, $message)) => return $owner,
            Err(answer) => answer,
        };
    };
}

impl App {
    /// Every owner whose message type `answer` carries, as `handle_answer`
    /// and `route` try them (the App's parts, then the tabs' screens):
    /// routing hands it to the first, so there must be exactly one.
    pub fn owners_of(answer: &Answer) -> Vec<&'static str> {
        let parts = [
            ("contexts", answer.is::<ContextMsg>()),
            ("app", answer.is::<AppMsg>()),
            ("history", answer.is::<HistoryMsg>()),
            ("views", answer.is::<ViewWritten>()),
            ("export", answer.is::<ListExported>()),
            ("policies", answer.is::<super::policy::PolicyMsg>()),
            ("project", answer.is::<project::Msg>()),
        ];
        let mut owners: Vec<&'static str> = parts
            .into_iter()
            .filter_map(|(owner, takes)| takes.then_some(owner))
            .collect();
        owners.extend(Self::tab_owners_of(answer));
        owners
    }

    /// An answer: to the owner of its message. True when anything changed.
    pub(super) fn handle_answer(&mut self, answer: Answer, turn: &mut Turn<'_>) -> bool {
        let slot = answer.slot;
        // A switch's answer builds a new App: the token counter is its own.
        let answer = match answer.open::<ContextMsg>() {
            Ok((token, msg)) => {
                return self.handle_context_reply(token, msg, turn.now, turn.effects);
            }
            Err(answer) => answer,
        };
        let changed = self.note_failure(slot, answer.failure.as_deref());
        self.note_history_reachability(slot, answer.failure.as_deref());
        // A local token counter: some owners need the whole App.
        let mut next_token = self.next_token;
        let taken = self.route(answer, &mut turn.cx(&mut next_token));
        self.next_token = next_token;
        changed | taken | self.status.retrying.take().is_some()
    }

    /// What every answer tells the App: whether requests fail now (the
    /// status line), and a failure for the error log. True when either changed.
    fn note_failure(&mut self, slot: Slot, failure: Option<&ErrorInfo>) -> bool {
        let mut changed = self.status.failing != failure.is_some();
        self.status.failing = failure.is_some();
        if let Some(error) = failure
            && !expected_absence(slot, error)
        {
            self.record_error(error.clone());
            changed = true;
        }
        changed
    }

    /// `answer` to its owner; true when the owner changed anything.
    fn route(&mut self, answer: Answer, cx: &mut Cx) -> bool {
        route!(answer, AppMsg, |token, msg| match msg {
            // The plan is all the header takes of it; a failure is logged.
            AppMsg::Workspace(workspace) => {
                let plan = self.identity.plan.clone();
                if let Ok(workspace) = workspace {
                    self.note_plan(&workspace);
                }
                plan != self.identity.plan
            }
            AppMsg::PaletteHistorySaved(_) => false,
            AppMsg::Jump(page) => self.complete_jump(token, page, cx),
        });
        route!(answer, HistoryMsg, |token, msg| self
            .history_answered(token, msg, cx));
        route!(answer, ViewWritten, |_token, msg| self
            .view_saved(msg, cx.now));
        route!(answer, super::policy::PolicyMsg, |token, msg| self
            .policies_answered(token, msg, cx));
        route!(answer, ListExported, |token, msg| self
            .list_exported(token, msg, cx));
        route!(answer, ReportWritten, |token, msg| self
            .report_written(token, msg, cx));
        route!(answer, project::Msg, |token, msg| self
            .project_answer(token, msg, cx));
        // The tabs' screens, from the registry (`app/screens.rs`).
        let (slot, ok) = (answer.slot, answer.failure.is_none());
        self.before_screen_answer(slot, ok);
        match self.route_to_tab(answer, cx) {
            Ok(changed) => {
                self.after_screen_answer(slot, ok, cx);
                changed
            }
            Err(answer) => {
                tracing::warn!(slot = ?answer.slot, "an answer that no owner takes");
                false
            }
        }
    }

    /// Before a tab's screen takes an answer: a live one replaces what the
    /// snapshot showed (the insights, the inventory's rows).
    fn before_screen_answer(&mut self, slot: Slot, ok: bool) {
        if ok && slot == insights::INSIGHTS {
            self.insights_live();
        }
        if ok && slot == inventory::PAGE {
            self.inventory_live();
        }
    }

    /// After a tab's screen took an answer: what other parts of the App learn
    /// from it. The inventory's finding-type filter lists the insights'
    /// types; the review filter applies to every inventory page; a bulk
    /// change refused for a missing scope turns writes off everywhere.
    fn after_screen_answer(&mut self, slot: Slot, ok: bool, cx: &mut Cx) {
        if ok
            && slot == insights::INSIGHTS
            && let Some(data) = &self.insights.data
        {
            self.inventory.finding_types = data.findings.clone();
        }
        if slot == inventory::PAGE {
            if ok {
                self.take_inventory_rows();
            }
            self.inventory.apply_review_filter(cx);
        }
        self.share_missing_scope();
    }
}

impl App {
    /// An answer to the project screen: dropped when the screen was left.
    /// A project run from the palette goes into its history once it loads;
    /// a write refused for a missing scope turns writes off everywhere.
    fn project_answer(&mut self, token: u64, msg: project::Msg, cx: &mut Cx) -> bool {
        if let project::Msg::Loaded(read) = &msg
            && self.palette.confirm_project(read.is_ok())
            && let Some(save) = self.palette.history().save_request()
        {
            cx.request(
                super::commands::PALETTE_HISTORY,
                save,
                AppMsg::PaletteHistorySaved,
            );
        }
        let Some(project) = &mut self.project else {
            return false;
        };
        let changed = project.update(token, msg, cx);
        if let WriteAccess::MissingScope(scopes) = &project.access {
            self.missing_write_scope = Some(scopes.clone());
        }
        self.share_missing_scope();
        changed
    }

    /// A write refused for a missing scope, in bulk or on the project
    /// screen, turns writes off everywhere for the session.
    fn share_missing_scope(&mut self) {
        if self.missing_write_scope.is_none() {
            self.missing_write_scope = self.inventory.bulk.missing_scope.clone();
        }
        self.inventory.bulk.missing_scope = self.missing_write_scope.clone();
    }
}

/// Answers a screen expects as data, not as errors for the log: a member whose
/// membership is not active, a search that is no project's id.
fn expected_absence(slot: Slot, error: &ErrorInfo) -> bool {
    match slot {
        slot if slot.is(members::DETAIL) => {
            error.is_service(crate::api::model::ErrorType::MemberNotFound)
        }
        // A service without the workspace read (DESIGN.md: fall back, never
        // fail a screen): the header just shows no plan.
        slot if slot == WORKSPACE => error.status == Some(404),
        // A search that only looked like a project id.
        slot if slot == inventory::ID_LOOKUP => error.status == Some(404),
        _ => false,
    }
}
