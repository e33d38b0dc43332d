//! What an [`Operation`](crate::tui::request::Operation) runs on: the client of
//! the context on screen, its workspace, the clock, the review history when a
//! file is open, and the launcher's context switch when there are contexts.
//! Screens never hold these; only operations, run by the runtime, do.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::api::{ApiError, Client};
use crate::clock::Clock;
use crate::tui::effect::{ErrorInfo, SwitchedContext};
use crate::tui::executor::error_info;
use crate::tui::review::executor::HistoryDoor;

#[derive(Clone)]
pub struct Services {
    pub client: Client,
    pub workspace_id: String,
    pub clock: Clock,
    /// `None` when no history file is open.
    pub history: Option<HistoryDoor>,
    /// `None` in the demo and in tests: nothing to switch to.
    pub contexts: Option<Arc<dyn ContextSwitch>>,
}

/// The launcher's side of a context switch (`launch.rs`): connect to a
/// context by name; later requests go there.
pub trait ContextSwitch: Send + Sync {
    fn switch(
        self: Arc<Self>,
        name: String,
    ) -> Pin<Box<dyn Future<Output = Result<SwitchedContext, ErrorInfo>> + Send>>;
}

/// Gives the services of the context on screen: the runtime asks once per
/// request, so a request after a switch goes to the new context.
pub trait Executor: Clone + Send + Sync + 'static {
    fn services(&self) -> Services;
}

impl Services {
    /// A failure of local I/O (a file), as the TUI shows errors.
    pub fn local_failure(&self, summary: String) -> ErrorInfo {
        ErrorInfo::local(summary, self.clock.now())
    }

    /// The client's error as the TUI shows it.
    pub fn api_failure(&self, error: &ApiError) -> ErrorInfo {
        error_info(error, &self.clock)
    }
}
