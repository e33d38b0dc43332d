//! What an [`Operation`](crate::tui::request::Operation) runs on: the client of
//! the context on screen, its workspace, the clock, the review history when a
//! file is open, and the launcher's context switch when there are contexts.
//! Screens never hold these; only operations, run by the runtime, do.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;

use crate::api::{ApiError, Client};
use crate::clock::Clock;
use crate::tui::vocab::{ErrorInfo, HistoryStart, error_info};

mod history;

pub use history::{HistoryAccess, HistoryDoor, WithHistory, announce};

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

/// The services of a dashboard without contexts to switch to (the demo,
/// tests): one client, no history.
#[derive(Clone)]
pub struct ClientServices {
    pub client: Client,
    pub workspace_id: String,
    pub clock: Clock,
}

impl ServiceSource for ClientServices {
    fn services(&self) -> Services {
        Services {
            client: self.client.clone(),
            workspace_id: self.workspace_id.clone(),
            clock: self.clock.clone(),
            history: None,
            contexts: None,
        }
    }
}

/// Gives the services of the context on screen: the runtime asks once per
/// request, so a request after a switch goes to the new context.
pub trait ServiceSource: Clone + Send + Sync + 'static {
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
    pub history: Option<HistoryStart>,
}
