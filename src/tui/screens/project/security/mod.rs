//! The project screen's Security part: the project's scans (newest first), and
//! the selected scan's findings, paged, with a description pane that wraps and
//! scrolls, and filters by level and status. What a reviewer opens to learn why
//! a project needs review. The service has no level or status parameter on
//! findings, so the filters apply here, page by page.

mod view;

use time::OffsetDateTime;

use crate::api::model::{FindingLevel, FindingStatus, ScanFinding, SecurityScan};
use crate::tui::action::Action;
use crate::tui::effect::{Answer, Cx, ErrorInfo, LegacyReply, Reply, Request, Slot, answers};
use crate::tui::screens::paged::{PageReply, PagedList};

/// Findings per page asked of the service (its maximum).
const FINDINGS_PAGE: u32 = 100;

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
    /// Empty: every level (status).
    pub levels: Vec<FindingLevel>,
    pub statuses: Vec<FindingStatus>,
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
            findings: PagedList::new(Slot::ScanFindings, 0),
            focus: Focus::Scans,
            levels: Vec::new(),
            statuses: Vec::new(),
            description_scroll: 0,
            loaded_at: None,
        };
        part.load_scans(cx);
        part
    }

    fn load_scans(&mut self, cx: &mut Cx) {
        self.scans_pending = Some(cx.fetch(
            Slot::SecurityScans,
            Request::SecurityScans {
                project_id: self.project_id.clone(),
            },
        ));
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
        let request = findings_request(self.project_id.clone(), scan_id);
        self.findings.reload(cx, request, LegacyReply);
    }

    /// Whether a finding passes the level and status filters.
    pub fn keeps(&self, finding: &ScanFinding) -> bool {
        (self.levels.is_empty() || self.levels.contains(&finding.level))
            && (self.statuses.is_empty() || self.statuses.contains(&finding.status))
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
        format!(
            "level {} · status {}",
            words(self.levels.iter().map(|l| l.as_str()).collect(), "any"),
            words(self.statuses.iter().map(|s| s.as_str()).collect(), "any")
        )
    }

    pub fn handle_action(&mut self, action: Action, cx: &mut Cx) -> Outcome {
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
            // `t` cycles the level filter, `/` the status filter, `c` clears both.
            Action::Toggles => {
                self.levels = next_filter(&self.levels, FindingLevel::KNOWN);
                self.refilter(cx);
            }
            Action::Filter => {
                self.statuses = next_filter(&self.statuses, FindingStatus::KNOWN);
                self.refilter(cx);
            }
            Action::ClearFilters => {
                self.levels.clear();
                self.statuses.clear();
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
                let request = findings_request(self.project_id.clone(), scan_id);
                if !self.findings.navigate(action, cx, request, LegacyReply) {
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

    /// Takes a reply of its slots; false for a stale one.
    pub fn handle_reply(&mut self, answer: Answer, cx: &mut Cx) -> bool {
        let Answer { slot, token, reply } = answer;
        match slot {
            Slot::SecurityScans if answers(&mut self.scans_pending, token) => {
                match reply {
                    Ok(Reply::SecurityScans(page)) => {
                        let keep = self.selected_scan().map(|s| s.id.clone());
                        self.scans = page.data;
                        self.scans_more = page.pagination.has_more;
                        self.selected_scan = keep
                            .and_then(|id| self.scans.iter().position(|s| s.id == id))
                            .unwrap_or(0);
                        self.scans_error = None;
                        self.loaded_at = Some(cx.now);
                    }
                    Ok(_) => return false,
                    Err(error) => self.scans_error = Some(error),
                }
                true
            }
            // Through the list's own bookkeeping, so a failure also ends a `G` walk.
            Slot::ScanFindings => match self.findings.take_reply(slot, token, reply, cx) {
                PageReply::Stale => false,
                PageReply::Failed => true,
                PageReply::Ok {
                    reply: Reply::ScanFindingsPage(page),
                    ..
                } => {
                    let page = *page;
                    let kept: Vec<ScanFinding> =
                        page.data.into_iter().filter(|f| self.keeps(f)).collect();
                    self.findings.append(kept, page.pagination, cx.now);
                    // A page the filters emptied still leads to the next one.
                    if let Some(scan_id) = self.findings_of.clone() {
                        let request = findings_request(self.project_id.clone(), scan_id);
                        self.findings.prefetch(cx, request, LegacyReply);
                    }
                    true
                }
                PageReply::Ok { .. } => false,
            },
            _ => false,
        }
    }

    pub fn hints(&self) -> Vec<(Action, &'static str)> {
        match self.focus {
            Focus::Scans => vec![
                (Action::Back, "project"),
                (Action::Open, "findings"),
                (Action::Toggles, "level"),
                (Action::Filter, "status"),
            ],
            Focus::Findings => vec![
                (Action::Back, "scans"),
                (Action::Toggles, "level"),
                (Action::Filter, "status"),
                (Action::ClearFilters, "clear"),
                (Action::PageDown, "scroll text"),
            ],
        }
    }

    pub fn help(&self) -> Vec<(Action, &'static str)> {
        vec![
            (Action::Open, "show the selected scan's findings"),
            (
                Action::Back,
                "from the findings to the scans; from the scans to the project",
            ),
            (
                Action::Toggles,
                "level filter: any, error, warn, info (applied here)",
            ),
            (
                Action::Filter,
                "status filter: any, open, ignored, fixed (applied here)",
            ),
            (Action::ClearFilters, "clear the level and status filters"),
            (Action::PageDown, "scroll the description down"),
            (Action::PageUp, "scroll the description up"),
            (
                Action::Copy,
                "copy the selected scan or finding id (OSC 52)",
            ),
            (Action::Refresh, "read the scans and findings again"),
        ]
    }
}

/// A page of a scan's findings at `cursor`.
fn findings_request(project_id: String, scan_id: String) -> impl FnOnce(Option<String>) -> Request {
    move |cursor| Request::ScanFindingsPage {
        project_id,
        scan_id,
        cursor,
        limit: FINDINGS_PAGE,
    }
}

/// The next filter in the cycle: any, then each known value alone, then any.
fn next_filter<T: Clone + PartialEq>(current: &[T], known: &[T]) -> Vec<T> {
    match current {
        [] => known.first().cloned().into_iter().collect(),
        [one] => known
            .iter()
            .position(|value| value == one)
            .and_then(|index| known.get(index + 1))
            .cloned()
            .into_iter()
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_cycle_through_each_value_then_any() {
        let known = FindingLevel::KNOWN;
        let mut filter = Vec::new();
        let mut seen = Vec::new();
        for _ in 0..4 {
            filter = next_filter(&filter, known);
            seen.push(filter.clone());
        }
        assert_eq!(
            seen,
            [
                vec![FindingLevel::Error],
                vec![FindingLevel::Warn],
                vec![FindingLevel::Info],
                vec![]
            ]
        );
    }
}
