//! What screens ask the runtime to do, and what comes back. Screens never touch the
//! network: they return effects; every reply carries the token of its request, so
//! a stale reply (an older filter, a screen left behind) is dropped. What a screen
//! asks of the App itself (tabs, the project view, the status line) is a
//! [`Nav`], collected apart, so the runtime sees only what it carries out.

use time::OffsetDateTime;

use crate::tui::nav::Nav;
use crate::tui::request::{Job, Message, Operation};

pub use crate::tui::request::Slot;
pub use crate::tui::services::SwitchedContext;
pub use crate::tui::vocab::{ErrorInfo, ErrorKind, Gate};

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

impl Turn<'_> {
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
