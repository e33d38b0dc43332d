//! `ctrl-s` on the lists other than the inventory (whose export keeps its own
//! menu and resumes from its loaded rows): the members, the Changes, and any
//! list of the service's a screen declares (a project's personal data, a
//! scan's findings: [`ListRows`], read generically from the list's call and
//! its rows), written as CSV through the writers the commands use
//! (`crate::formats`), so the file holds the same bytes as `vantage
//! members|changes|pii|scans findings --format csv` with the same filters.
//! Files go through `safe_file::Replacement`: 0600, never through a link, and
//! a failed export leaves no half file.

use std::any::Any;
use std::fmt::Debug;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::future::BoxFuture;
use futures::{Stream, StreamExt, TryStreamExt};
use time::OffsetDateTime;

use crate::api::model::{FindingsFilter, Page, ScanFinding};
use crate::api::page::Pages;
use crate::api::{ApiError, Client, FilledMember, ListCall, MemberListParams, Reserve};
use crate::formats::OutputError;
use crate::formats::list::{ListFormat, ListWriter};
use crate::formats::members::MemberRow;
use crate::formats::row::Row;
use crate::history::Change;
use crate::safe_file::Replacement;

/// Items per page when an export reads a list again: the commands' default.
const EXPORT_PAGE: u32 = 100;

/// What a list's export writes.
#[derive(Debug, Clone, PartialEq)]
pub enum ExportRows {
    /// The workspace's members as the screen shows them (name, e-mail,
    /// role, type, joined, user id: `formats::members::MemberRow`), as
    /// `vantage members --format csv` with the same search, roles, SCIM
    /// filter and sort: each member filled in within the budget.
    Members(MemberListParams),
    /// The changes on screen (the history is local: they are all loaded),
    /// as `vantage changes --since B --until A [--kind K]`.
    Changes(Arc<Vec<Change>>),
    /// Every row of a list of the service's that its filter keeps, its
    /// pages walked from the first, as the list's command writes it.
    List(ListRows),
}

/// How a list's file and rows are named: `pii` and `personal-data finding`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExportNames {
    /// The file name's start, before the list's owner and the time.
    pub file: &'static str,
    /// What a row is, for the status line.
    pub noun: &'static str,
}

/// Which rows of a list an export writes: all of them ([`Every`]), or those a
/// filter keeps (a scan's findings: [`FindingsFilter`], as the command's
/// `--level` and `--status` keep them, after each page arrives).
pub trait Keep<T>: Debug + Clone + PartialEq + Send + Sync + 'static {
    fn keeps(&self, item: &T) -> bool;
}

/// Every row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Every;

impl<T> Keep<T> for Every {
    fn keeps(&self, _item: &T) -> bool {
        true
    }
}

impl Keep<ScanFinding> for FindingsFilter {
    fn keeps(&self, finding: &ScanFinding) -> bool {
        FindingsFilter::keeps(self, finding)
    }
}

/// A list of the service's to export: its first page's call, the filter
/// of its rows, and its names ([`ExportRows::List`]).
#[derive(Debug, Clone)]
pub struct ListRows {
    names: ExportNames,
    /// Whose list it is, in the file's name: the project, the scan.
    owner: String,
    walk: Arc<dyn ListExport>,
}

impl PartialEq for ListRows {
    fn eq(&self, other: &Self) -> bool {
        self.names == other.names && self.owner == other.owner && self.walk.same(&*other.walk)
    }
}

impl ListRows {
    /// Every row from `call`'s page on that `keep` keeps, of `owner`'s list.
    pub fn new<C, T, K>(call: C, keep: K, names: ExportNames, owner: impl Into<String>) -> Self
    where
        C: ListCall<Page = Page<T>>,
        T: Row + Debug + Send + Sync,
        K: Keep<T>,
    {
        Self {
            names,
            owner: owner.into(),
            walk: Arc::new(PagedRows { call, keep }),
        }
    }
}

/// A list's walk written as CSV, whatever its call and its rows.
trait ListExport: Debug + Send + Sync {
    fn as_any(&self) -> &dyn Any;
    /// The same call with the same filter.
    fn same(&self, other: &dyn ListExport) -> bool;
    /// Writes every kept row to `path`; how many.
    fn write<'a>(
        &'a self,
        client: &'a Client,
        path: &'a Path,
    ) -> BoxFuture<'a, Result<usize, ExportError>>;
}

#[derive(Debug, PartialEq)]
struct PagedRows<C, K> {
    call: C,
    keep: K,
}

impl<C, T, K> ListExport for PagedRows<C, K>
where
    C: ListCall<Page = Page<T>>,
    T: Row + Debug + Send + Sync,
    K: Keep<T>,
{
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn same(&self, other: &dyn ListExport) -> bool {
        other.as_any().downcast_ref::<Self>() == Some(self)
    }

    fn write<'a>(
        &'a self,
        client: &'a Client,
        path: &'a Path,
    ) -> BoxFuture<'a, Result<usize, ExportError>> {
        Box::pin(async move {
            // The one page walk, bounded as every walk is; the rows kept
            // after each page arrives, as the command's filters keep them.
            let mut pages = Pages::new(client, self.call.at(None));
            let mut file = ExportFile::create(path, ListFormat::Csv)?;
            while let Some(page) = pages.next(client).await {
                for item in page?.data {
                    if self.keep.keeps(&item) {
                        file.write(&item)?;
                    }
                }
            }
            file.finish()
        })
    }
}

impl ExportRows {
    /// The file's name: what the list is, and when, e.g. `changes-20261126-004446.csv`.
    pub fn file_name(&self, now: OffsetDateTime) -> String {
        let stamp = crate::timefmt::utc(now, crate::timefmt::FILE_STAMP);
        let what = match self {
            ExportRows::Members(_) => "members".to_owned(),
            ExportRows::Changes(_) => "changes".to_owned(),
            ExportRows::List(list) => format!("{}-{}", list.names.file, list.owner),
        };
        // Ids come from the service: only their plain characters name a file.
        let what: String = what
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        format!("{what}-{stamp}.csv")
    }

    /// What a row is, for the status line: `changes`, `findings`.
    pub fn noun(&self) -> &'static str {
        match self {
            ExportRows::Members(_) => "member",
            ExportRows::Changes(_) => "change",
            ExportRows::List(list) => list.names.noun,
        }
    }
}

/// Why an export failed, in words for the status line.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("cannot create {}: {source}", .path.display())]
    Create {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {}: {source}", .path.display())]
    Write { path: PathBuf, source: OutputError },
    #[error(transparent)]
    Api(#[from] ApiError),
}

/// What an export wrote: its rows, and how many of them lack what the
/// request budget left unread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    pub rows: usize,
    pub left_out: usize,
}

impl From<usize> for Written {
    fn from(rows: usize) -> Self {
        Self { rows, left_out: 0 }
    }
}

/// Writes `rows` of `workspace_id` to `path` as CSV; says how many rows it
/// wrote.
pub async fn write(
    client: &Client,
    workspace_id: &str,
    rows: &ExportRows,
    path: &Path,
) -> Result<Written, ExportError> {
    match rows {
        ExportRows::Members(params) => {
            // What the screen shows (name, e-mail, role, joined): each
            // member filled in as `vantage members --format csv` does.
            let params = MemberListParams {
                limit: Some(EXPORT_PAGE),
                ..params.clone()
            };
            let listed: Vec<_> = client
                .members_stream(workspace_id, params.clone())
                .try_collect()
                .await?;
            // Within the budget, as the screen reads them: a member whose
            // read would go below the reserve is written without name and
            // e-mail, and counted, rather than waiting minutes for windows.
            let (filled, left_out) = client
                .fill_members_within(workspace_id, &params, listed, Reserve::DASHBOARD)
                .await?;
            let mut file = ExportFile::create(path, ListFormat::Csv)?;
            for FilledMember {
                member,
                role,
                detail,
            } in filled
            {
                file.write(&MemberRow::new(member, role, detail))?;
            }
            Ok(Written {
                rows: file.finish()?,
                left_out,
            })
        }
        ExportRows::Changes(changes) => {
            let mut file = ExportFile::<Change>::create(path, ListFormat::Csv)?;
            for change in changes.iter() {
                file.write(change)?;
            }
            file.finish().map(Written::from)
        }
        ExportRows::List(list) => list.walk.write(client, path).await.map(Written::from),
    }
}

/// One export's file: rows written through the lists' one writer
/// ([`ListWriter`]) beside `path`, renamed over it by [`ExportFile::finish`]
/// (0600, never through a link; a failed export leaves no half file).
pub struct ExportFile<'a, T: Row> {
    writer: ListWriter<T, std::io::BufWriter<Replacement>>,
    count: usize,
    path: &'a Path,
}

impl<'a, T: Row> ExportFile<'a, T> {
    pub fn create(path: &'a Path, format: ListFormat) -> Result<Self, ExportError> {
        let file = Replacement::new(path).map_err(|source| ExportError::Create {
            path: path.to_path_buf(),
            source,
        })?;
        let failed = |source| ExportError::Write {
            path: path.to_path_buf(),
            source,
        };
        let writer =
            ListWriter::new(format, std::io::BufWriter::new(file), false).map_err(failed)?;
        Ok(Self {
            writer,
            count: 0,
            path,
        })
    }

    fn failed(&self, source: OutputError) -> ExportError {
        ExportError::Write {
            path: self.path.to_path_buf(),
            source,
        }
    }

    pub fn write(&mut self, item: &T) -> Result<(), ExportError> {
        self.writer.write(item).map_err(|e| self.failed(e))?;
        self.count += 1;
        Ok(())
    }

    pub async fn write_all(
        &mut self,
        items: impl Stream<Item = Result<T, ApiError>>,
    ) -> Result<(), ExportError> {
        let mut items = std::pin::pin!(items);
        while let Some(item) = items.next().await {
            self.write(&item?)?;
        }
        Ok(())
    }

    /// Flushes the file and renames it over the target; returns how many
    /// rows it holds.
    pub fn finish(self) -> Result<usize, ExportError> {
        let path = self.path;
        let write_failed = |source: OutputError| ExportError::Write {
            path: path.to_path_buf(),
            source,
        };
        let file = self
            .writer
            .finish(crate::formats::table::DEFAULT_WIDTH)
            .and_then(|out| out.into_inner().map_err(|err| err.into_error().into()))
            .map_err(write_failed)?;
        file.commit()
            .map_err(|source| write_failed(OutputError::from(source)))?;
        Ok(self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::model::FindingLevel;
    use crate::api::{ListPii, ListScanFindings, PageParams};

    const FINDINGS: ExportNames = ExportNames {
        file: "findings",
        noun: "finding",
    };

    fn findings(scan_id: &str, filter: FindingsFilter) -> ListRows {
        let call = ListScanFindings {
            project_id: "prj_1".into(),
            scan_id: scan_id.into(),
            params: PageParams::default(),
            cursor: None,
        };
        ListRows::new(call, filter, FINDINGS, scan_id)
    }

    /// Two exports are the same when they walk the same call and keep the
    /// same rows: what a test of `ctrl-s` compares.
    #[test]
    fn a_list_export_equals_only_the_same_call_with_the_same_filter() {
        let errors = FindingsFilter {
            levels: vec![FindingLevel::Error],
            ..FindingsFilter::default()
        };
        assert_eq!(
            findings("scn_1", errors.clone()),
            findings("scn_1", errors.clone())
        );
        assert_ne!(
            findings("scn_1", errors.clone()),
            findings("scn_1", FindingsFilter::default())
        );
        assert_ne!(findings("scn_1", errors.clone()), findings("scn_2", errors));
        // Another list under the same names and owner is another export.
        let pii = ListPii {
            project_id: "prj_1".into(),
            params: PageParams::default(),
            cursor: None,
        };
        let pii = ListRows::new(pii, Every, FINDINGS, "scn_1");
        assert_ne!(pii, findings("scn_1", FindingsFilter::default()));
    }

    #[test]
    fn a_list_export_is_named_by_its_list_and_owner_and_says_its_rows() {
        let rows = ExportRows::List(findings("scn/1", FindingsFilter::default()));
        let name = rows.file_name(OffsetDateTime::UNIX_EPOCH);
        assert_eq!(name, "findings-scn_1-19700101-000000.csv");
        assert_eq!(rows.noun(), "finding");
    }
}
