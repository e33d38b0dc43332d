//! The project screen's Security part: the project's scans (newest first), and
//! the selected scan's findings, paged, with a description pane that wraps and
//! scrolls, and filters by level and status (several of each, `t`) and a
//! search (`/`), ordered by severity (`filters.rs`). What a reviewer opens to
//! learn why a project needs review. The service has no level, status or
//! search parameter on findings, so the filters apply here, page by page.

mod filters;
mod view;

pub use filters::{FindingFilter, by_severity, severity};

use time::OffsetDateTime;

use crate::api::PageParams;
use crate::api::model::{FindingsFilter, Page, ScanFinding, SecurityScan};
use crate::tui::action::Action;
use crate::tui::effect::{Cx, ErrorInfo, Slot, answers};
use crate::tui::export::{ExportNames, ExportRows, ListRows};
use crate::tui::ops::{ListScanFindings, ListSecurityScans};
use crate::tui::screens::actions::ScreenAction;
use crate::tui::screens::paged::{PageReply, PageSource, PagedList, Pages};
use crate::tui::widgets::checklist::CheckMenu;
use crate::tui::widgets::input::TextField;

/// Findings per page asked of the service (its maximum).
const FINDINGS_PAGE: u32 = 100;
/// The newest scans the Security part lists: one page, as the service orders them.
const SCANS_PAGE: u32 = 100;

/// The part's requests: the project's scans, then a scan's findings.
pub const SCANS: Slot = Slot::new("project", "security scans");
pub const FINDINGS: Slot = Slot::new("project", "scan findings");

/// The answers the part gets (inside the project screen's
/// [`super::Msg::Security`]).
#[derive(Debug)]
pub enum Msg {
    Scans(Result<Page<SecurityScan>, ErrorInfo>),
    Findings(Result<Page<ScanFinding>, ErrorInfo>),
}

fn scans_read(result: Result<Page<SecurityScan>, ErrorInfo>) -> super::Msg {
    super::Msg::Security(Msg::Scans(result))
}

fn findings_read(result: Result<Page<ScanFinding>, ErrorInfo>) -> super::Msg {
    super::Msg::Security(Msg::Findings(result))
}

/// Which list the movement keys move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Scans,
    Findings,
}

/// What the project screen does after the part took an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Handled,
    /// Esc on the scans: back to the project.
    Close,
    Ignored,
}

#[derive(Debug)]
pub struct SecurityPart {
    project_id: String,
    pub scans: Vec<SecurityScan>,
    pub scans_more: bool,
    pub selected_scan: usize,
    scans_pending: Option<u64>,
    pub scans_error: Option<ErrorInfo>,
    /// The scan whose findings are shown, and its findings (filtered).
    pub findings_of: Option<String>,
    pub findings: PagedList<ScanFinding>,
    pub focus: Focus,
    /// The levels and statuses ticked (`t`) and the search (`/`) the
    /// findings are filtered by.
    pub filter: FindingsFilter,
    /// The search field while it is open.
    search_field: Option<TextField>,
    /// The level and status menu (`t`) while it is open.
    filter_menu: Option<CheckMenu<FindingFilter>>,
    /// Lines the description pane is scrolled down.
    pub description_scroll: u16,
    pub loaded_at: Option<OffsetDateTime>,
}

impl SecurityPart {
    /// Opens on `project_id` and asks for its scans.
    pub fn open(project_id: &str, cx: &mut Cx) -> Self {
        let mut part = Self {
            project_id: project_id.to_owned(),
            scans: Vec::new(),
            scans_more: false,
            selected_scan: 0,
            scans_pending: None,
            scans_error: None,
            findings_of: None,
            findings: PagedList::new(FINDINGS, 0),
            focus: Focus::Scans,
            filter: FindingsFilter::default(),
            search_field: None,
            filter_menu: None,
            description_scroll: 0,
            loaded_at: None,
        };
        part.load_scans(cx);
        part
    }

    fn load_scans(&mut self, cx: &mut Cx) {
        // The newest scans: one page, no walk.
        let read = ListSecurityScans {
            project_id: self.project_id.clone(),
            params: PageParams {
                limit: Some(SCANS_PAGE),
            },
            cursor: None,
        };
        self.scans_pending = Some(cx.request(SCANS, read, scans_read));
    }

    pub fn is_loading(&self) -> bool {
        self.scans_pending.is_some() || self.findings.is_loading()
    }

    pub fn selected_scan(&self) -> Option<&SecurityScan> {
        self.scans.get(self.selected_scan)
    }

    pub fn selected_finding(&self) -> Option<&ScanFinding> {
        self.findings.selected_row()
    }

    /// Loads the findings of the selected scan from the first page.
    fn load_findings(&mut self, cx: &mut Cx) {
        let Some(scan_id) = self.selected_scan().map(|scan| scan.id.clone()) else {
            return;
        };
        self.findings_of = Some(scan_id.clone());
        self.description_scroll = 0;
        let pages = findings_pages(self.project_id.clone(), scan_id);
        self.findings.reload(cx, pages);
    }

    /// `ctrl-s` on the findings: the scan's findings with these filters.
    pub fn export_rows(&self) -> Option<ExportRows> {
        let scan_id = self
            .findings_of
            .clone()
            .filter(|_| self.focus == Focus::Findings)?;
        Some(findings_export(&self.project_id, &scan_id, &self.filter))
    }

    /// Whether a finding passes the level and status filters and the search.
    pub fn keeps(&self, finding: &ScanFinding) -> bool {
        self.filter.keeps(finding)
    }

    /// The filters in words, for the findings' title.
    pub fn filter_summary(&self) -> String {
        let words = |values: Vec<&str>, all: &str| {
            if values.is_empty() {
                all.to_owned()
            } else {
                values.join(",")
            }
        };
        let search = if self.filter.search.is_empty() {
            String::new()
        } else {
            format!(" · search {}", crate::text::fit(&self.filter.search, 24))
        };
        format!(
            "level {} · status {}{search}",
            words(
                self.filter.levels.iter().map(|l| l.as_str()).collect(),
                "any"
            ),
            words(
                self.filter.statuses.iter().map(|s| s.as_str()).collect(),
                "any"
            )
        )
    }

    pub fn handle_action(&mut self, action: Action, cx: &mut Cx) -> Outcome {
        if self.filter_menu_action(action, cx) {
            return Outcome::Handled;
        }
        match action {
            Action::Back => match self.focus {
                Focus::Findings => self.focus = Focus::Scans,
                Focus::Scans => return Outcome::Close,
            },
            Action::Open if self.focus == Focus::Scans => {
                if self.findings_of.as_deref() != self.selected_scan().map(|s| s.id.as_str()) {
                    self.load_findings(cx);
                }
                if self.selected_scan().is_some() {
                    self.focus = Focus::Findings;
                }
            }
            Action::Refresh => {
                self.load_scans(cx);
                if self.findings_of.is_some() {
                    self.load_findings(cx);
                }
            }
            Action::Copy => cx.copy(match self.focus {
                Focus::Scans => self.selected_scan().map(|s| s.id.as_str()),
                Focus::Findings => self.selected_finding().map(|f| f.id.as_str()),
            }),
            // `t` ticks levels and statuses, `/` searches, `c` clears them all.
            Action::Toggles => self.open_filter_menu(),
            Action::Filter => self.open_search(),
            Action::ClearFilters => {
                self.filter = FindingsFilter::default();
                self.refilter(cx);
            }
            // Ctrl-d / ctrl-u scroll the description while the findings have focus.
            Action::PageDown if self.focus == Focus::Findings => {
                self.description_scroll = self.description_scroll.saturating_add(3);
            }
            Action::PageUp if self.focus == Focus::Findings => {
                self.description_scroll = self.description_scroll.saturating_sub(3);
            }
            _ => return self.navigate(action, cx),
        }
        Outcome::Handled
    }

    fn navigate(&mut self, action: Action, cx: &mut Cx) -> Outcome {
        match self.focus {
            Focus::Scans => {
                let Some(index) =
                    crate::tui::widgets::list::navigate(action, self.selected_scan, 5)
                else {
                    return Outcome::Ignored;
                };
                self.selected_scan = index.min(self.scans.len().saturating_sub(1));
            }
            Focus::Findings => {
                let before = self.findings.selected;
                let Some(scan_id) = self.findings_of.clone() else {
                    return Outcome::Ignored;
                };
                let pages = findings_pages(self.project_id.clone(), scan_id);
                if !self.findings.navigate(action, cx, pages) {
                    return Outcome::Ignored;
                }
                if self.findings.selected != before {
                    self.description_scroll = 0;
                }
            }
        }
        Outcome::Handled
    }

    /// The filters changed: the findings load again, keeping only what passes.
    fn refilter(&mut self, cx: &mut Cx) {
        if self.findings_of.is_some() {
            self.load_findings(cx);
        }
    }

    /// Takes an answer to its requests; false for a stale one.
    pub fn update(&mut self, token: u64, msg: Msg, cx: &mut Cx) -> bool {
        match msg {
            Msg::Scans(result) if answers(&mut self.scans_pending, token) => {
                match result {
                    Ok(page) => {
                        let keep = self.selected_scan().map(|s| s.id.clone());
                        self.scans = page.data;
                        self.scans_more = page.pagination.has_more;
                        self.selected_scan = keep
                            .and_then(|id| self.scans.iter().position(|s| s.id == id))
                            .unwrap_or(0);
                        self.scans_error = None;
                        self.loaded_at = Some(cx.now);
                    }
                    Err(error) => self.scans_error = Some(error),
                }
                true
            }
            // Through the list's own bookkeeping, so a failure also ends a `G` walk.
            Msg::Scans(_) => false,
            Msg::Findings(result) => match self.findings.take_reply(FINDINGS, token, result, cx) {
                PageReply::Stale => false,
                PageReply::Failed => true,
                PageReply::Ok { reply: page, .. } => {
                    let kept: Vec<ScanFinding> =
                        page.data.into_iter().filter(|f| self.keeps(f)).collect();
                    self.findings.append(kept, page.pagination, cx.now);
                    // The most severe first, the cursor on the finding it was on.
                    let selected = self.selected_finding().map(|f| f.id.clone());
                    by_severity(&mut self.findings.rows);
                    if let Some(at) =
                        selected.and_then(|id| self.findings.rows.iter().position(|f| f.id == id))
                    {
                        self.findings.select(at);
                    }
                    // A page the filters emptied still leads to the next one.
                    if let Some(scan_id) = self.findings_of.clone() {
                        let pages = findings_pages(self.project_id.clone(), scan_id);
                        self.findings.prefetch(cx, pages);
                    }
                    true
                }
            },
        }
    }

    /// What the part offers, for the footer, the help and the keys.
    pub fn actions(&self) -> Vec<ScreenAction> {
        let findings = self.focus == Focus::Findings;
        vec![
            ScreenAction::new(
                Action::Back,
                if findings { "scans" } else { "project" },
                "from the findings to the scans; from the scans to the project",
            ),
            ScreenAction::new(
                Action::Open,
                "findings",
                "show the selected scan's findings",
            )
            .hint_if(!findings),
            ScreenAction::new(
                Action::Toggles,
                "filters",
                "filters: tick several levels and statuses (applied here); findings are ordered by severity",
            ),
            ScreenAction::new(
                Action::Filter,
                "search",
                "search the findings' names, categories, scanners and ids",
            ),
            ScreenAction::new(
                Action::ClearFilters,
                "clear",
                "clear the level and status filters and the search",
            )
            .hint_if(findings),
            ScreenAction::new(
                Action::PageDown,
                "scroll text",
                "scroll the description down",
            )
            .hint_if(findings),
            ScreenAction::help_only(Action::PageUp, "scroll the description up"),
            ScreenAction::help_only(
                Action::Copy,
                "copy the selected scan or finding id (OSC 52)",
            ),
            ScreenAction::help_only(Action::Refresh, "read the scans and findings again"),
            ScreenAction::help_only(
                Action::Export,
                "export the scan's findings with these filters to CSV, as `vantage scans findings` writes them",
            ),
        ]
    }
}

/// What `ctrl-s` writes of a scan's findings with `filter`: as `vantage
/// scans findings ID SCAN [--level L,...] [--status S,...]` (the search,
/// which the command lacks, keeps only what it matches).
pub fn findings_export(project_id: &str, scan_id: &str, filter: &FindingsFilter) -> ExportRows {
    let first = findings_request(project_id.to_owned(), scan_id.to_owned())(None);
    let names = ExportNames {
        file: "findings",
        noun: "finding",
    };
    ExportRows::List(ListRows::new(first, filter.clone(), names, scan_id))
}

/// A page of a scan's findings at `cursor`.
fn findings_request(
    project_id: String,
    scan_id: String,
) -> impl FnOnce(Option<String>) -> ListScanFindings {
    move |cursor| ListScanFindings {
        project_id,
        scan_id,
        params: PageParams {
            limit: Some(FINDINGS_PAGE),
        },
        cursor,
    }
}

/// How the findings list asks for a page of a scan's findings.
fn findings_pages(project_id: String, scan_id: String) -> impl PageSource<Msg = super::Msg> {
    Pages::new(findings_request(project_id, scan_id), findings_read)
}
