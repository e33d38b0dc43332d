//! Bulk actions on the marked rows of the inventory (k9s, lazygit): set the
//! visibility of, or unpublish, every marked project (nothing marked: the row
//! under the cursor, as k9s does). One confirm says how many and lists which,
//! each by name with its before → after; the changes run one at a time (the client paces each
//! request by the rate-limit state, so a bulk change never draws a 429), with
//! progress; then a report per row, ok or failed with its error type.
//! The run leaves a reserve of the request budget to the user's own actions:
//! at the reserve it goes on at the limit's own pace. Read-only mode offers
//! none of it, nor does a key found to lack the write scope (from its first
//! 403 on, for the whole session).

mod view;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use time::{Duration, OffsetDateTime};

use super::{BULK, InventoryScreen, Msg};
use crate::api::Reserve;
use crate::api::model::{InventoryItem, Project, ProjectUpdate, Visibility};
use crate::text::{escape_invisible, fit};
use crate::tui::action::Action;
use crate::tui::effect::{Cx, ErrorInfo, Gate, answers};
use crate::tui::nav::ProjectWrite;
use crate::tui::ops::{Unpublish, UpdateProject};
use crate::tui::screens::paged::budget_allows;
use crate::tui::widgets::menu::{Menu, MenuOutcome};
use crate::tui::widgets::visibility;

/// One change applied to every marked project.
#[derive(Debug, Clone, PartialEq)]
pub enum BulkOp {
    Visibility(Visibility),
    Unpublish,
}

impl BulkOp {
    fn describe(&self) -> String {
        match self {
            BulkOp::Visibility(visibility) => format!("Set visibility to {}", visibility.as_str()),
            BulkOp::Unpublish => "Unpublish".into(),
        }
    }

    /// The confirm's question about `count` projects.
    fn question(&self, count: usize) -> String {
        let these = match count {
            1 => "this project".to_owned(),
            _ => format!(
                "these {}",
                crate::tui::widgets::count(count as i64, "project")
            ),
        };
        match self {
            BulkOp::Visibility(visibility) => {
                format!("Set the visibility of {these} to {}?", visibility.as_str())
            }
            BulkOp::Unpublish => format!("Unpublish {these}?"),
        }
    }

    /// What a row's changed field reads before the change: the row as loaded.
    fn before(&self, row: &InventoryItem) -> String {
        match self {
            BulkOp::Visibility(_) => row
                .visibility
                .as_ref()
                .map_or_else(|| "unknown".to_owned(), |v| v.as_str().to_owned()),
            BulkOp::Unpublish => published_text(row.is_published).to_owned(),
        }
    }

    /// What the changed field reads after the change.
    fn after(&self) -> &str {
        match self {
            BulkOp::Visibility(visibility) => visibility.as_str(),
            BulkOp::Unpublish => published_text(false),
        }
    }

    /// Asks for the change of project `project_id`; the token its answer carries.
    fn send(&self, project_id: String, cx: &mut Cx) -> u64 {
        match self {
            BulkOp::Visibility(visibility) => {
                let update = ProjectUpdate {
                    name: None,
                    visibility: Some(visibility.clone()),
                };
                let request = UpdateProject { project_id, update };
                cx.request(BULK, request, Msg::BulkUpdated)
            }
            BulkOp::Unpublish => cx.request(BULK, Unpublish { project_id }, Msg::BulkUnpublished),
        }
    }
}

fn published_text(published: bool) -> &'static str {
    if published {
        "published"
    } else {
        "unpublished"
    }
}

/// A marked project, as the confirm and the report name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BulkTarget {
    pub id: String,
    pub name: Option<String>,
    /// The changed field as the row showed it: visibility, or published.
    /// Known once the change is chosen.
    pub before: Option<String>,
}

impl BulkTarget {
    fn of(row: &InventoryItem) -> Self {
        Self {
            id: row.id.clone(),
            name: row.name.clone(),
            before: None,
        }
    }

    /// `Support studio (prj_…): workspace_edit → workspace_view`, the
    /// service's name escaped, cut to `width`.
    pub fn label(&self, op: &BulkOp, width: usize) -> String {
        let name = match &self.name {
            Some(name) => format!("{} ({})", escape_invisible(name), self.id),
            None => format!("(unnamed) ({})", self.id),
        };
        let before = self.before.as_deref().unwrap_or("unknown");
        fit(&format!("{name}: {before} → {}", op.after()), width)
    }
}

/// How one row's change ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowOutcome {
    Ok,
    /// Failed, with the error type (or a summary when the error had none).
    Failed(String),
    /// Not tried: the run was stopped first.
    Skipped,
}

#[derive(Debug)]
enum Stage {
    ChooseVisibility(Menu),
    Confirm {
        op: BulkOp,
        scroll: usize,
    },
    Running {
        op: BulkOp,
        /// The change in flight, or `None` while the run waits for the budget.
        token: Option<u64>,
        /// At the budget's reserve: when the next change goes.
        resume_at: Option<OffsetDateTime>,
        stop: bool,
    },
    Report {
        op: BulkOp,
        scroll: usize,
    },
}

#[derive(Debug)]
struct Flow {
    targets: Vec<BulkTarget>,
    results: Vec<RowOutcome>,
    stage: Stage,
    /// The list's total when only some of its rows were loaded (and so marked).
    of_total: Option<i64>,
    /// Nothing was marked: the flow acts on the row under the cursor.
    cursor_row: bool,
}

impl Flow {
    /// How many rows ended each way: (ok, failed, not run).
    fn tally(&self) -> (usize, usize, usize) {
        let count = |f: fn(&RowOutcome) -> bool| self.results.iter().filter(|r| f(r)).count();
        (
            count(|r| *r == RowOutcome::Ok),
            count(|r| matches!(r, RowOutcome::Failed(_))),
            count(|r| *r == RowOutcome::Skipped),
        )
    }
}

/// `3 ok, 2 failed` (`, 4 not run`): the status line and the report say it alike.
fn tally_text((ok, failed, skipped): (usize, usize, usize)) -> String {
    let mut text = format!("{ok} ok, {failed} failed");
    if skipped > 0 {
        text.push_str(&format!(", {skipped} not run"));
    }
    text
}

/// The bulk flow's state on the inventory.
#[derive(Debug, Default)]
pub struct Bulk {
    /// Read-only mode: no bulk changes.
    pub read_only: bool,
    /// The scopes a write was refused for (403 `insufficient_scope`, here or
    /// on the project screen): bulk changes are off for the session.
    pub missing_scope: Option<Vec<String>>,
    flow: Option<Flow>,
}

impl Bulk {
    pub fn is_open(&self) -> bool {
        self.flow.is_some()
    }

    /// The rows' outcomes so far, with their targets.
    pub fn results(&self) -> Vec<(BulkTarget, RowOutcome)> {
        self.flow.as_ref().map_or_else(Vec::new, |flow| {
            flow.targets
                .iter()
                .cloned()
                .zip(flow.results.iter().cloned())
                .collect()
        })
    }

    /// Whether a run is going on.
    pub fn running(&self) -> bool {
        matches!(
            self.flow.as_ref().map(|flow| &flow.stage),
            Some(Stage::Running { .. })
        )
    }

    /// Why bulk changes are off, if they are.
    pub fn refusal(&self) -> Option<String> {
        if self.read_only {
            return Some("read-only mode: bulk changes are off".into());
        }
        self.missing_scope.as_ref().map(|scopes| {
            format!(
                "bulk changes are off for this session: the API key lacks {}",
                scopes.join(" or ")
            )
        })
    }

    /// When a run waiting at the budget's reserve sends its next change.
    pub fn wake_at(&self) -> Option<OffsetDateTime> {
        match self.flow.as_ref().map(|flow| &flow.stage) {
            Some(Stage::Running { resume_at, .. }) => *resume_at,
            _ => None,
        }
    }
}

/// What the confirm says of the cost: how many requests, and about how long
/// at the current limit, with the reserve left to the user's own actions.
pub fn estimate(requests: usize, rate: Option<(u32, u32)>) -> String {
    let Some((remaining, limit)) = rate else {
        return format!("{requests} requests, one at a time, paced by the rate limit.");
    };
    let kept = Reserve::DASHBOARD.kept(limit);
    let spare = remaining.saturating_sub(kept) as usize;
    if requests <= spare {
        return format!(
            "{requests} requests, within the budget left ({remaining}/{limit}); {kept} kept for your own actions."
        );
    }
    let seconds = (requests - spare) as u64 * 60 / u64::from(limit.max(1));
    let about = if seconds >= 90 {
        format!("{} min", (seconds + 30) / 60)
    } else {
        format!("{} s", seconds.max(1))
    };
    format!("{requests} requests, about {about} at {limit}/min; {kept} kept for your own actions.")
}

impl InventoryScreen {
    /// Marks, and `v`/`u` on the marked rows (none marked: the cursor's row).
    /// `None` leaves the action to the screen.
    pub(super) fn bulk_action(&mut self, action: Action, cx: &mut Cx) -> Option<bool> {
        let pages = self.pages(cx);
        if self.list.handle_marks(action, cx, pages) {
            return Some(true);
        }
        if !matches!(action, Action::Visibility | Action::Unpublish) {
            return None;
        }
        if let Some(refusal) = self.bulk.refusal() {
            cx.notify(refusal);
            return Some(true);
        }
        let cursor_row = self.list.marked_count() == 0;
        let rows: Vec<&InventoryItem> = if cursor_row {
            self.selected_item().into_iter().collect()
        } else {
            self.list.marked_rows()
        };
        // The picker's cursor starts on the value the rows share, as the
        // project screen's on the project's.
        let shared_visibility =
            rows.first()
                .and_then(|row| row.visibility.clone())
                .filter(|first| {
                    rows.iter()
                        .all(|row| row.visibility.as_ref() == Some(first))
                });
        let mut targets: Vec<BulkTarget> = rows.into_iter().map(BulkTarget::of).collect();
        let Some(first) = targets.first() else {
            cx.notify("no project here to change: mark some with space".into());
            return Some(true);
        };
        let stage = if action == Action::Visibility {
            let title = if cursor_row {
                let name = first.name.as_deref().map_or_else(
                    || first.id.clone(),
                    |name| escape_invisible(name).into_owned(),
                );
                format!("Visibility of {} (nothing marked)", fit(&name, 40))
            } else {
                format!("Visibility of {} marked projects", targets.len())
            };
            Stage::ChooseVisibility(visibility::picker(title, shared_visibility.as_ref()))
        } else {
            fill_before(&self.list.rows, &BulkOp::Unpublish, &mut targets);
            Stage::Confirm {
                op: BulkOp::Unpublish,
                scroll: 0,
            }
        };
        // Marks are of loaded rows: say so when the list has more.
        let of_total = self
            .total
            .filter(|&total| self.list.has_more && total > targets.len() as i64);
        self.bulk.flow = Some(Flow {
            results: Vec::new(),
            targets,
            stage,
            of_total,
            cursor_row,
        });
        Some(true)
    }

    /// A key while the bulk flow is open: it takes every key.
    pub(super) fn bulk_key(&mut self, key: &KeyEvent, cx: &mut Cx) -> bool {
        let Some(flow) = &mut self.bulk.flow else {
            return false;
        };
        let page = 10;
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let mut stop_now = false;
        match &mut flow.stage {
            Stage::ChooseVisibility(menu) => match key.code {
                KeyCode::Esc | KeyCode::Char('q') => self.bulk.flow = None,
                KeyCode::Up | KeyCode::Char('k') => menu.up(),
                KeyCode::Down | KeyCode::Char('j') => menu.down(),
                KeyCode::Enter | KeyCode::Char(_)
                    if key.code == KeyCode::Enter
                        || matches!(menu.key(key), Some(MenuOutcome::Chosen(_))) =>
                {
                    let op = BulkOp::Visibility(visibility::chosen(menu.selected));
                    fill_before(&self.list.rows, &op, &mut flow.targets);
                    flow.stage = Stage::Confirm { op, scroll: 0 };
                }
                _ => {}
            },
            Stage::Confirm { op, scroll } => match key.code {
                KeyCode::Esc | KeyCode::Char('n') | KeyCode::Char('q') => self.bulk.flow = None,
                KeyCode::Char('y') | KeyCode::Enter => {
                    let op = op.clone();
                    let token = op.send(flow.targets[0].id.clone(), cx);
                    flow.stage = Stage::Running {
                        op,
                        token: Some(token),
                        resume_at: None,
                        stop: false,
                    };
                }
                code => scroll_by(scroll, code, ctrl, page, flow.targets.len()),
            },
            Stage::Running { stop, token, .. } => {
                if key.code == KeyCode::Esc {
                    *stop = true;
                    // Waiting at the reserve, nothing is in flight: stop now.
                    stop_now = token.is_none();
                }
            }
            Stage::Report { scroll, .. } => match key.code {
                KeyCode::Esc | KeyCode::Enter | KeyCode::Char('q') => self.bulk.flow = None,
                code => scroll_by(scroll, code, ctrl, page, flow.targets.len()),
            },
        }
        if stop_now {
            self.bulk_next(cx);
        }
        true
    }

    /// A reply to the change in flight (the project as changed, or nothing
    /// for an unpublish): record it, show it on the row, start the next one
    /// (or wait at the budget's reserve), or report. A refusal for a missing
    /// scope ends the run: every other row would meet it too.
    pub(super) fn bulk_reply(
        &mut self,
        token: u64,
        reply: Result<Option<Project>, ErrorInfo>,
        cx: &mut Cx,
    ) -> bool {
        let Some(flow) = &mut self.bulk.flow else {
            return false;
        };
        let Stage::Running {
            op, token: pending, ..
        } = &mut flow.stage
        else {
            return false;
        };
        if !answers(pending, token) {
            return false;
        }
        let op = op.clone();
        let index = flow.results.len();
        let target = flow.targets[index].clone();
        let outcome = match &reply {
            Ok(_) => RowOutcome::Ok,
            Err(error) => {
                if let Some(Gate::Scopes(scopes)) = &error.gate {
                    self.bulk.missing_scope = Some(scopes.clone());
                }
                RowOutcome::Failed(
                    error
                        .kind
                        .as_ref()
                        .map_or_else(|| fit(&error.summary, 40), |kind| kind.as_str().to_owned()),
                )
            }
        };
        flow.results.push(outcome.clone());
        if outcome == RowOutcome::Ok {
            self.list.unmark(&target.id);
            match reply {
                Ok(Some(project)) => {
                    self.apply_project_write(&ProjectWrite::Updated(Box::new(project)), cx)
                }
                _ => {
                    if op == BulkOp::Unpublish
                        && let Some(row) = self.list.rows.iter_mut().find(|r| r.id == target.id)
                    {
                        row.is_published = false;
                    }
                }
            }
        }
        self.bulk_next(cx);
        true
    }

    /// Sends the next change, waits at the budget's reserve, or ends the run.
    fn bulk_next(&mut self, cx: &mut Cx) {
        let rate = self.list.rate();
        let refused = self.bulk.missing_scope.is_some();
        let Some(flow) = &mut self.bulk.flow else {
            return;
        };
        let Stage::Running {
            op,
            token,
            resume_at,
            stop,
        } = &mut flow.stage
        else {
            return;
        };
        let next = flow.results.len();
        if next < flow.targets.len() && !*stop && !refused {
            let due = resume_at.is_none_or(|at| at <= cx.now);
            if due && (resume_at.is_some() || budget_allows(rate)) {
                *resume_at = None;
                *token = Some(op.send(flow.targets[next].id.clone(), cx));
            } else if resume_at.is_none() {
                // At the reserve: one change per slot the limit frees.
                let limit = rate.map_or(60, |(_, limit)| limit.max(1));
                *resume_at = Some(cx.now + Duration::milliseconds(60_000 / i64::from(limit)));
            }
            return;
        }
        let op = op.clone();
        let skipped = flow.targets.len() - flow.results.len();
        flow.results
            .extend(std::iter::repeat_n(RowOutcome::Skipped, skipped));
        // The report names a missing scope; the footer keeps saying it.
        cx.notify(format!("{}: {}", op.describe(), tally_text(flow.tally())));
        flow.stage = Stage::Report { op, scroll: 0 };
    }

    /// A run waiting at the budget's reserve: the next change, when due.
    pub(super) fn bulk_wake(&mut self, cx: &mut Cx) -> bool {
        match self.bulk.wake_at() {
            Some(at) if at <= cx.now => {
                self.bulk_next(cx);
                true
            }
            _ => false,
        }
    }
}

/// Each target's changed field as its loaded row shows it (a row no longer
/// loaded is `unknown`).
fn fill_before(rows: &[InventoryItem], op: &BulkOp, targets: &mut [BulkTarget]) {
    for target in targets {
        target.before = rows
            .iter()
            .find(|row| row.id == target.id)
            .map(|row| op.before(row));
    }
}

/// Scrolls a list of `count` rows for a movement key.
fn scroll_by(scroll: &mut usize, code: KeyCode, ctrl: bool, page: usize, count: usize) {
    let last = count.saturating_sub(1);
    *scroll = match code {
        KeyCode::Down | KeyCode::Char('j') => (*scroll + 1).min(last),
        KeyCode::Up | KeyCode::Char('k') => scroll.saturating_sub(1),
        KeyCode::Char('d') if ctrl => (*scroll + page).min(last),
        KeyCode::Char('u') if ctrl => scroll.saturating_sub(page),
        KeyCode::PageDown => (*scroll + page).min(last),
        KeyCode::PageUp => scroll.saturating_sub(page),
        KeyCode::Char('g') | KeyCode::Home => 0,
        KeyCode::Char('G') | KeyCode::End => last,
        _ => *scroll,
    };
}
