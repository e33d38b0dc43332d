//! Bulk actions on the marked rows of the inventory (k9s, lazygit): set the
//! visibility of, or unpublish, every marked project. One confirm says how many
//! and lists which; the changes run one at a time (the client paces each
//! request by the rate-limit state, so a bulk change never draws a 429), with
//! progress; then a report per row, ok or failed with its error type.
//! Read-only mode offers none of it.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::InventoryScreen;
use crate::api::model::{ProjectUpdate, Visibility};
use crate::text::fit;
use crate::tui::action::Action;
use crate::tui::effect::{Cx, ErrorInfo, Reply, Request, Slot};
use crate::tui::nav::ProjectWrite;
use crate::tui::theme::Theme;
use crate::tui::widgets::centered;
use crate::tui::widgets::menu::Menu;

/// The visibilities offered, in the menu's order.
const VISIBILITIES: &[(Visibility, &str)] = &[
    (
        Visibility::Restricted,
        "owner, collaborators, workspace owner",
    ),
    (Visibility::WorkspaceView, "every workspace member can view"),
    (Visibility::WorkspaceEdit, "every workspace member can edit"),
];

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

    fn request(&self, project_id: String) -> Request {
        match self {
            BulkOp::Visibility(visibility) => Request::UpdateProject {
                project_id,
                update: ProjectUpdate {
                    name: None,
                    visibility: Some(visibility.clone()),
                },
            },
            BulkOp::Unpublish => Request::Unpublish { project_id },
        }
    }
}

/// A marked project, as the confirm and the report name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BulkTarget {
    pub id: String,
    pub name: Option<String>,
}

impl BulkTarget {
    fn label(&self, width: usize) -> String {
        match &self.name {
            Some(name) => fit(&format!("{name}  ({})", self.id), width),
            None => fit(&self.id, width),
        }
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
    Confirm { op: BulkOp, scroll: usize },
    Running { op: BulkOp, token: u64, stop: bool },
    Report { op: BulkOp, scroll: usize },
}

#[derive(Debug)]
struct Flow {
    targets: Vec<BulkTarget>,
    results: Vec<RowOutcome>,
    stage: Stage,
}

/// The bulk flow's state on the inventory.
#[derive(Debug, Default)]
pub struct Bulk {
    /// Read-only mode: no bulk changes.
    pub read_only: bool,
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
}

impl InventoryScreen {
    /// Marks, and `v`/`u` while rows are marked. `None` leaves the action to
    /// the screen.
    pub(super) fn bulk_action(&mut self, action: Action, cx: &mut Cx) -> Option<bool> {
        if self.list.handle_marks(action) {
            return Some(true);
        }
        if !matches!(action, Action::Visibility | Action::Unpublish) {
            return None;
        }
        if self.bulk.read_only {
            cx.notify("read-only mode: bulk changes are off".into());
            return Some(true);
        }
        if self.list.marked_count() == 0 {
            cx.notify("mark projects with space to change them all, or open one (enter)".into());
            return Some(true);
        }
        let targets: Vec<BulkTarget> = self
            .list
            .marked_rows()
            .into_iter()
            .map(|row| BulkTarget {
                id: row.id.clone(),
                name: row.name.clone(),
            })
            .collect();
        let stage = if action == Action::Visibility {
            let items = VISIBILITIES
                .iter()
                .map(|(v, what)| format!("{:<15} {what}", v.as_str()))
                .collect();
            Stage::ChooseVisibility(Menu::new(
                format!("Visibility of {} marked projects", targets.len()),
                items,
                0,
            ))
        } else {
            Stage::Confirm {
                op: BulkOp::Unpublish,
                scroll: 0,
            }
        };
        self.bulk.flow = Some(Flow {
            results: Vec::new(),
            targets,
            stage,
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
        match &mut flow.stage {
            Stage::ChooseVisibility(menu) => match key.code {
                KeyCode::Esc | KeyCode::Char('q') => self.bulk.flow = None,
                KeyCode::Up | KeyCode::Char('k') => menu.up(),
                KeyCode::Down | KeyCode::Char('j') => menu.down(),
                KeyCode::Enter => {
                    let choice = menu.selected.min(VISIBILITIES.len() - 1);
                    flow.stage = Stage::Confirm {
                        op: BulkOp::Visibility(VISIBILITIES[choice].0.clone()),
                        scroll: 0,
                    };
                }
                _ => {}
            },
            Stage::Confirm { op, scroll } => match key.code {
                KeyCode::Esc | KeyCode::Char('n') | KeyCode::Char('q') => self.bulk.flow = None,
                KeyCode::Char('y') | KeyCode::Enter => {
                    let op = op.clone();
                    let token =
                        cx.fetch(Slot::InventoryBulk, op.request(flow.targets[0].id.clone()));
                    flow.stage = Stage::Running {
                        op,
                        token,
                        stop: false,
                    };
                }
                code => scroll_by(scroll, code, ctrl, page, flow.targets.len()),
            },
            Stage::Running { stop, .. } => {
                if key.code == KeyCode::Esc {
                    *stop = true;
                }
            }
            Stage::Report { scroll, .. } => match key.code {
                KeyCode::Esc | KeyCode::Enter | KeyCode::Char('q') => self.bulk.flow = None,
                code => scroll_by(scroll, code, ctrl, page, flow.targets.len()),
            },
        }
        true
    }

    /// A reply to the change in flight: record it, show it on the row, start
    /// the next one or report.
    pub(super) fn bulk_reply(
        &mut self,
        token: u64,
        reply: Result<Reply, ErrorInfo>,
        cx: &mut Cx,
    ) -> bool {
        let Some(flow) = &mut self.bulk.flow else {
            return false;
        };
        let Stage::Running {
            op,
            token: pending,
            stop,
        } = &mut flow.stage
        else {
            return false;
        };
        if *pending != token {
            return false;
        }
        let index = flow.results.len();
        let target = flow.targets[index].clone();
        let outcome = match &reply {
            Ok(_) => RowOutcome::Ok,
            Err(error) => RowOutcome::Failed(
                error
                    .kind
                    .clone()
                    .unwrap_or_else(|| fit(&error.summary, 40)),
            ),
        };
        flow.results.push(outcome.clone());
        let next = index + 1;
        let op = op.clone();
        if next < flow.targets.len() && !*stop {
            *pending = cx.fetch(
                Slot::InventoryBulk,
                op.request(flow.targets[next].id.clone()),
            );
        } else {
            let skipped = flow.targets.len() - flow.results.len();
            flow.results
                .extend(std::iter::repeat_n(RowOutcome::Skipped, skipped));
            let failed = flow
                .results
                .iter()
                .filter(|r| matches!(r, RowOutcome::Failed(_)))
                .count();
            cx.notify(format!(
                "{}: {} ok, {failed} failed",
                op.describe(),
                flow.results
                    .iter()
                    .filter(|r| **r == RowOutcome::Ok)
                    .count()
            ));
            flow.stage = Stage::Report {
                op: op.clone(),
                scroll: 0,
            };
        }
        if outcome == RowOutcome::Ok {
            self.list.unmark(&target.id);
            match reply {
                Ok(Reply::Project(project)) => {
                    self.apply_project_write(&ProjectWrite::Updated(project), cx)
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
        true
    }

    /// Draws the flow's popup over `area`.
    pub(super) fn draw_bulk(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let Some(flow) = &self.bulk.flow else {
            return;
        };
        let width = area.width.saturating_sub(6).min(90);
        let inner_width = width.saturating_sub(4) as usize;
        let list_height = area.height.saturating_sub(8).max(1) as usize;
        let count = flow.targets.len();
        let (title, mut lines, scroll, footer) = match &flow.stage {
            Stage::ChooseVisibility(menu) => {
                menu.draw(frame, area, theme, "enter choose · esc cancel");
                return;
            }
            Stage::Confirm { op, scroll } => {
                let mut lines = vec![Line::from(Span::styled(
                    format!("{} of these {count} projects?", op.describe()),
                    theme.warn,
                ))];
                if *op == BulkOp::Unpublish {
                    lines.push(Line::from(Span::styled(
                        "They go offline; audience and visibility are kept.",
                        theme.dim,
                    )));
                }
                (
                    format!(" {} — {count} marked ", op.describe()),
                    lines,
                    *scroll,
                    "y or enter: apply to all · n or esc: cancel · j/k scroll",
                )
            }
            Stage::Running { op, stop, .. } => {
                let done = flow.results.len();
                let failed = flow
                    .results
                    .iter()
                    .filter(|r| matches!(r, RowOutcome::Failed(_)))
                    .count();
                let bar_width = inner_width.saturating_sub(12).max(1);
                let filled = bar_width * done / count.max(1);
                let lines = vec![
                    Line::from(format!("{done}/{count} done · {failed} failed")),
                    Line::from(Span::styled(
                        format!("[{}{}]", "█".repeat(filled), "░".repeat(bar_width - filled)),
                        theme.accent,
                    )),
                ];
                let footer = if *stop {
                    "stopping after the change in flight"
                } else {
                    "paced by the rate limit · esc stops after the change in flight"
                };
                (
                    format!(" {} ", op.describe()),
                    lines,
                    done.saturating_sub(list_height / 2),
                    footer,
                )
            }
            Stage::Report { op, scroll } => {
                let ok = flow
                    .results
                    .iter()
                    .filter(|r| **r == RowOutcome::Ok)
                    .count();
                let lines = vec![Line::from(Span::styled(
                    format!("{ok} ok, {} not ok", count - ok),
                    theme.title,
                ))];
                (
                    format!(" {} — report ", op.describe()),
                    lines,
                    *scroll,
                    "esc or enter: close · j/k scroll",
                )
            }
        };
        let head = lines.len();
        let shown = list_height.min(count);
        let scroll = scroll.min(count.saturating_sub(shown));
        for (index, target) in flow.targets.iter().enumerate().skip(scroll).take(shown) {
            let (mark, style) = match flow.results.get(index) {
                Some(RowOutcome::Ok) => ("✓ ok".to_owned(), theme.ok),
                Some(RowOutcome::Failed(kind)) => (format!("✗ failed: {kind}"), theme.error),
                Some(RowOutcome::Skipped) => ("- not run".to_owned(), theme.dim),
                None => ("·".to_owned(), theme.dim),
            };
            let mark = fit(&mark, 32);
            let label_width = inner_width.saturating_sub(crate::text::display_width(&mark) + 1);
            lines.push(Line::from(vec![
                Span::styled(mark, style),
                Span::raw(" "),
                Span::raw(target.label(label_width)),
            ]));
        }
        if scroll + shown < count {
            lines.push(Line::from(Span::styled(
                format!("… {} more (j scrolls)", count - scroll - shown),
                theme.dim,
            )));
        }
        let height = (lines.len() + 2).min(area.height as usize) as u16;
        let _ = head;
        let popup = centered(area, width, height);
        frame.render_widget(Clear, popup);
        frame.render_widget(
            Paragraph::new(lines).block(
                Block::default()
                    .borders(Borders::ALL)
                    .border_style(theme.accent)
                    .title(Span::styled(title, theme.title))
                    .title_bottom(Span::styled(format!(" {footer} "), theme.dim)),
            ),
            popup,
        );
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
