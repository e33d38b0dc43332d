//! The inventory's export: every row of the view written to a file, the
//! rows already loaded first, then the pages after them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::StreamExt;

use crate::api::InventoryParams;
use crate::api::model::InventoryItem;
use crate::formats::{CsvWriter, JsonArrayWriter, OutputError};
use crate::safe_file::Replacement;
use crate::tui::effect::{ErrorInfo, ExportFormat};
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
    let failed = |message: String| services.local_failure(message);
    // Written beside the target and renamed over it at the end: 0600 (it
    // holds names and members), never through a planted link, and a failed
    // export leaves no half file.
    let file = Replacement::new(path)
        .map_err(|err| failed(format!("cannot create {}: {err}", path.display())))?;
    let out = std::io::BufWriter::new(file);
    let write_err = |err: OutputError| failed(format!("cannot write {}: {err}", path.display()));
    let mut sink = match format {
        ExportFormat::Csv => {
            let template = Some(crate::formats::inventory_item_template());
            Sink::Csv(Box::new(CsvWriter::with_template(out, template)))
        }
        ExportFormat::Json => Sink::Json(JsonArrayWriter::new(out).map_err(write_err)?),
    };
    let mut count = 0;
    for item in resume.loaded.iter() {
        sink.write(item).map_err(write_err)?;
        count += 1;
    }
    params.limit = Some(100);
    if resume.loaded.is_empty() {
        let mut items = Box::pin(
            services
                .client
                .inventory_stream(&services.workspace_id, params),
        );
        while let Some(item) = items.next().await {
            let item = item.map_err(|error| services.api_failure(&error))?;
            sink.write(&item).map_err(write_err)?;
            count += 1;
        }
    } else {
        let mut cursor = resume.next_cursor;
        let mut walk = services
            .client
            .inventory_walk(&services.workspace_id, &params);
        while let Some(at) = cursor {
            let page = services
                .client
                .list_inventory(&services.workspace_id, &params, Some(&at))
                .await
                .map_err(|error| services.api_failure(&error))?;
            walk.expect(page.total.max(0) as u64);
            cursor = walk
                .follow(page.data.len(), &page.pagination)
                .map_err(|error| services.api_failure(&error))?;
            for item in &page.data {
                sink.write(item).map_err(write_err)?;
                count += 1;
            }
        }
    }
    let file = sink
        .finish()
        .and_then(|out| out.into_inner().map_err(|err| err.into_error().into()))
        .map_err(write_err)?;
    file.commit()
        .map_err(|err| failed(format!("cannot write {}: {err}", path.display())))?;
    Ok(Exported {
        path: path.to_path_buf(),
        count,
    })
}

/// What the dashboard already holds of the view being exported.
struct Resume<'a> {
    loaded: &'a [InventoryItem],
    next_cursor: Option<String>,
}

/// The export's writer, CSV or a JSON array.
enum Sink<W: std::io::Write> {
    Csv(Box<CsvWriter<W>>),
    Json(JsonArrayWriter<W>),
}

impl<W: std::io::Write> Sink<W> {
    fn write(&mut self, item: &InventoryItem) -> Result<(), OutputError> {
        match self {
            Self::Csv(writer) => writer.write(item),
            Self::Json(writer) => writer.write(item),
        }
    }

    fn finish(self) -> Result<W, OutputError> {
        match self {
            Self::Csv(writer) => writer.finish(),
            Self::Json(writer) => writer.finish(),
        }
    }
}
