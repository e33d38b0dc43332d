//! The operations the dashboard's screens ask for, each a typed value with
//! its parameters and what it answers ([`Operation`]): the API's reads and
//! writes (`reads.rs`, `writes.rs`), the inventory's export (`export.rs`) and
//! the other lists' (`list_export.rs`), the dashboard's own files (`files.rs`:
//! the watch list, the saved views; the palette's history in
//! `palette/history.rs`) and a context switch. The history's are in
//! `review/ops.rs`. The runtime runs them on the [`Services`]; a screen
//! never does.

/// Declares an operation that is one call of the client (a read in
/// `reads.rs`, a write in `writes.rs`): its struct, and the
/// call, made with the struct's fields bound by name.
macro_rules! client_call {
    (
        $(#[doc = $doc:literal])*
        $name:ident { $($(#[doc = $field_doc:literal])* $field:ident: $type:ty),* $(,)? } -> $output:ty,
        |$services:ident| $call:expr
    ) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, PartialEq)]
        pub struct $name {
            $($(#[doc = $field_doc])* pub $field: $type,)*
        }

        impl Operation for $name {
            type Output = $output;

            async fn run(self, $services: &Services) -> Result<$output, ErrorInfo> {
                #[allow(unused_variables)]
                let Self { $($field),* } = self;
                $call.await.map_err(|error| $services.api_failure(&error))
            }
        }
    };
}

/// Declares an operation on the dashboard's own files (`files.rs`): its
/// struct, and the work (short and local), made with the struct's fields
/// bound by name; the work's error, in its own words, is a local failure.
macro_rules! file_call {
    (
        $(#[doc = $doc:literal])*
        $name:ident { $($field:ident: $type:ty),* $(,)? } -> $output:ty,
        $work:expr
    ) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, PartialEq)]
        pub struct $name {
            $(pub $field: $type,)*
        }

        impl Operation for $name {
            type Output = $output;

            async fn run(self, services: &Services) -> Result<$output, ErrorInfo> {
                let Self { $($field),* } = self;
                $work.map_err(|error| services.local_failure(error.to_string()))
            }
        }
    };
}

mod export;
mod files;
mod list_export;
mod reads;
mod report;
mod writes;

/// The client's list operations, as `list_operation!` declares them: all of them.
pub use crate::api::lists::*;
pub use export::{ExportInventory, Exported};
pub use files::{
    LoadWatchlist, SavePaletteHistory, SaveView, SaveWatchlist, ViewSaved, save_palette_history,
};
pub use list_export::ExportList;
pub use reads::{
    GetBreakdowns, GetDeployment, GetInsights, GetMember, GetProject, GetRealtime, GetTraffic,
    GetWorkspace,
};
pub use report::WriteReport;
pub use writes::{
    CreateEmbedUrl, DeleteProject, Publish, Unpublish, UpdateProject, UpdatePublishSettings,
};

use crate::tui::effect::{ErrorInfo, SwitchedContext};
use crate::tui::request::Operation;
use crate::tui::services::Services;

/// Connect to the context called `name`; later requests go there. The
/// launcher does it (`launch.rs`); without contexts it fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwitchContext {
    pub name: String,
}

impl Operation for SwitchContext {
    type Output = SwitchedContext;

    async fn run(self, services: &Services) -> Result<SwitchedContext, ErrorInfo> {
        let name = self.name;
        match &services.contexts {
            Some(contexts) => contexts.clone().switch(name).await,
            None => Err(services.local_failure(format!(
                "cannot switch to context {name}: this dashboard has no contexts"
            ))),
        }
    }
}
