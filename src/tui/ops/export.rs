//! The inventory's export: every row of the view written to a file, the
//! rows already loaded first, then the pages after them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::api::model::InventoryItem;
use crate::api::page::Pages;
use crate::api::{InventoryParams, ListInventory};
use crate::formats::list::ListFormat;
use crate::tui::effect::{ErrorInfo, ExportFormat};
use crate::tui::export::{ExportError, ExportFile};
use crate::tui::request::Operation;
use crate::tui::services::Services;

/// Every row of the view: the pages already loaded are written as they are,
/// and only the rest is fetched, from `next_cursor`.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportInventory {
    pub params: InventoryParams,
    pub format: ExportFormat,
    pub path: PathBuf,
    pub loaded: Arc<Vec<InventoryItem>>,
    /// Where the loaded rows stop; `None` with rows loaded: nothing is left.
    pub next_cursor: Option<String>,
}

/// Where the export went, and how many rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exported {
    pub path: PathBuf,
    pub count: usize,
    /// Rows written without what the request budget left unread (members
    /// without name and e-mail), said beside the count.
    pub left_out: usize,
}

impl Operation for ExportInventory {
    type Output = Exported;

    async fn run(self, services: &Services) -> Result<Exported, ErrorInfo> {
        let resume = Resume {
            loaded: &self.loaded,
            next_cursor: self.next_cursor,
        };
        export(services, self.params, self.format, &self.path, resume).await
    }
}

/// Writes every row of the view into a file: the rows already loaded
/// first, then the pages after them (or every page, when none is loaded).
async fn export(
    services: &Services,
    mut params: InventoryParams,
    format: ExportFormat,
    path: &Path,
    resume: Resume<'_>,
) -> Result<Exported, ErrorInfo> {
    let failed = |error: ExportError| match error {
        ExportError::Api(error) => services.api_failure(&error),
        other => services.local_failure(other.to_string()),
    };
    let format = match format {
        ExportFormat::Csv => ListFormat::Csv,
        ExportFormat::Json => ListFormat::Json,
    };
    let mut file = ExportFile::create(path, format).map_err(failed)?;
    for item in resume.loaded.iter() {
        file.write(item).map_err(failed)?;
    }
    params.limit = Some(100);
    if resume.loaded.is_empty() {
        let items = services
            .client
            .inventory_stream(&services.workspace_id, params);
        file.write_all(items).await.map_err(failed)?;
    } else if let Some(cursor) = resume.next_cursor {
        // The rest of the view, from where the loaded rows stop.
        let rest = ListInventory {
            workspace_id: services.workspace_id.clone(),
            params,
            cursor: Some(cursor),
        };
        let mut pages = Pages::new(&services.client, rest);
        while let Some(page) = pages.next(&services.client).await {
            let page = page.map_err(|error| services.api_failure(&error))?;
            for item in &page.data {
                file.write(item).map_err(failed)?;
            }
        }
    }
    let count = file.finish().map_err(failed)?;
    Ok(Exported {
        path: path.to_path_buf(),
        count,
        left_out: 0,
    })
}

/// What the dashboard already holds of the view being exported.
struct Resume<'a> {
    loaded: &'a [InventoryItem],
    next_cursor: Option<String>,
}
