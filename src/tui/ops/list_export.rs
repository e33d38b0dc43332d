//! `ctrl-s` on a list other than the inventory: its rows written as CSV
//! (`tui/export.rs` has the writer).

use std::path::PathBuf;

use super::Exported;
use crate::tui::effect::ErrorInfo;
use crate::tui::export::{ExportError, ExportRows, write};
use crate::tui::request::Operation;
use crate::tui::services::Services;

/// A list other than the inventory, written as CSV to `path`.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportList {
    pub rows: ExportRows,
    pub path: PathBuf,
}

impl Operation for ExportList {
    type Output = Exported;

    async fn run(self, services: &Services) -> Result<Exported, ErrorInfo> {
        let written = write(
            &services.client,
            &services.workspace_id,
            &self.rows,
            &self.path,
        );
        match written.await {
            Ok(written) => Ok(Exported {
                path: self.path,
                count: written.rows,
                left_out: written.left_out,
            }),
            Err(ExportError::Api(error)) => Err(services.api_failure(&error)),
            Err(other) => Err(services.local_failure(other.to_string())),
        }
    }
}
