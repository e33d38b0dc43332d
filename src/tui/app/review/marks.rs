//! `m`: marking projects reviewed. With rows marked (space), every marked
//! row, as `v` and `u` act on them, with one note for all; else the cursor's
//! row, and the cursor moves on to the next once the mark is written; on the
//! project screen, its project as the screen shows it (after the reviewer's
//! own writes). The field starts empty; an earlier note shows above it. Each mark holds the row as the reviewer saw it, with the time its
//! page was read, so a change made before the mark is never a change since.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::Span;
use time::OffsetDateTime;

use super::App;
use super::msg::{HistoryMsg, REVIEW_MARK};
use crate::api::model::InventoryItem;
use crate::history::{ProjectState, ReviewMark, SeenState};
use crate::text::fit;
use crate::tui::action::Action;
use crate::tui::effect::{Cx, ErrorInfo, ErrorKind};
use crate::tui::keymap::key_of;
use crate::tui::nav::Tab;
use crate::tui::review::ops::MarkReviewed;
use crate::tui::widgets::input::TextField;

/// The note typed when marking projects reviewed.
#[derive(Debug)]
pub struct NoteInput {
    /// Each project with the row the reviewer saw.
    pub projects: Vec<(String, Option<Box<SeenState>>)>,
    /// What the field's title names: the project, or how many.
    pub name: String,
    /// The project's note as marked before, and by whom: shown above the
    /// field, which starts empty.
    pub earlier: Option<String>,
    pub field: TextField,
    /// No rows were marked with space: the cursor's row, which the title
    /// says (never "nothing marked", which reads as no review mark), and the
    /// cursor moves to the next row once it is marked.
    advance: bool,
}

/// A mark under way: the row the cursor leaves once it is written (the
/// cursor's row, when no rows were marked).
#[derive(Debug)]
pub(in crate::tui::app) struct PendingMark {
    pub token: u64,
    pub advance_from: Option<String>,
}

impl App {
    /// When the rows on screen were read: the snapshot's time while its rows
    /// are shown, else the newest page's.
    fn rows_read_at(&self, now: OffsetDateTime) -> OffsetDateTime {
        self.review
            .seeded_at
            .or(self.inventory.list.loaded_at)
            .unwrap_or(now)
    }

    /// `m` on the inventory or the project screen: asks for a note.
    pub(in crate::tui::app) fn begin_mark(&mut self, cx: &mut Cx) {
        if !self.review.enabled {
            cx.notify("reviewed marks need the history file".into());
            return;
        }
        if self.refuse_mark_while_away(cx) {
            return;
        }
        if self.tab != Tab::Inventory {
            cx.notify(format!(
                "mark a project reviewed from the inventory ({})",
                key_of(Action::ShowTab(Tab::Inventory))
            ));
            return;
        }
        let marked_rows = self.project.is_none() && self.inventory.list.marked_count() > 0;
        let read_at = self.rows_read_at(cx.now);
        // Each project with the row the reviewer saw and when it was read; a
        // project screen without a row marks what it cannot show as unknown.
        let seen = |item: &InventoryItem, read_at: OffsetDateTime| SeenState {
            state: ProjectState::from_item(item),
            read_at,
        };
        let projects: Vec<(String, String, Option<SeenState>)> = match &self.project {
            Some(project) => {
                // The project as the screen shows it, the reviewer's own
                // writes included.
                let target = project.project_ref();
                let name = target.name.clone().unwrap_or_else(|| target.id.clone());
                vec![(target.id, name, project.seen_state(read_at))]
            }
            None => {
                let rows: Vec<&InventoryItem> = if marked_rows {
                    self.inventory.list.marked_rows()
                } else {
                    self.inventory.selected_item().into_iter().collect()
                };
                rows.into_iter()
                    .map(|item| {
                        let name = item.name.clone().unwrap_or_else(|| item.id.clone());
                        (item.id.clone(), name, Some(seen(item, read_at)))
                    })
                    .collect()
            }
        };
        let [(first_id, first_name, _), ..] = projects.as_slice() else {
            cx.notify("select a project to mark it reviewed".into());
            return;
        };
        let cursor_row = self.project.is_none() && !marked_rows;
        let (name, earlier) = match projects.len() {
            1 => (
                fit(first_name, 40),
                // The mark that stands, under its own reviewer's name: shown
                // above the field, its note never typed into it for another's Enter.
                self.inventory.reviewed.get(first_id).map(|mark| {
                    let who = mark.reviewer.as_deref().unwrap_or("someone");
                    match mark.note.as_deref() {
                        Some(note) => format!("earlier note by {who}: {note}"),
                        None => format!(
                            "reviewed by {who} at {} UTC, without a note",
                            crate::timefmt::date_time(mark.marked_at)
                        ),
                    }
                }),
            ),
            count => (format!("{count} marked projects"), None),
        };
        let projects = projects
            .into_iter()
            .map(|(id, _, seen)| (id, seen.map(Box::new)))
            .collect();
        self.review.note = Some(NoteInput {
            projects,
            name,
            earlier,
            field: TextField::new(String::new()),
            advance: cursor_row,
        });
    }

    /// A key while the note field is open; it takes every key.
    pub(in crate::tui::app) fn note_key(&mut self, key: &KeyEvent, cx: &mut Cx) {
        let Some(note) = &mut self.review.note else {
            return;
        };
        match key.code {
            KeyCode::Esc => self.review.note = None,
            KeyCode::Enter => {
                let text = note.field.value().trim().to_owned();
                let projects = std::mem::take(&mut note.projects);
                let advance = note.advance;
                self.review.note = None;
                let mark = MarkReviewed {
                    projects,
                    note: (!text.is_empty()).then_some(text),
                };
                // The cursor moves on only once the mark is written: a
                // refused mark keeps it on the row that is not marked.
                let advance_from = advance
                    .then(|| self.inventory.selected_item().map(|item| item.id.clone()))
                    .flatten();
                let token = cx.request(REVIEW_MARK, mark, HistoryMsg::Marked);
                self.review.mark_pending = Some(PendingMark {
                    token,
                    advance_from,
                });
            }
            _ => {
                note.field.handle_key(key);
            }
        }
    }

    /// The marks written, or why not.
    pub(in crate::tui::app) fn marked(
        &mut self,
        marked: Result<Vec<ReviewMark>, ErrorInfo>,
        advance_from: Option<String>,
        cx: &mut Cx,
    ) {
        match marked {
            Ok(marks) => {
                // On to the next row, unless the cursor left the marked one meanwhile.
                if let Some(id) = advance_from
                    && self
                        .inventory
                        .selected_item()
                        .is_some_and(|item| item.id == id)
                {
                    let next = self.inventory.list.selected + 1;
                    self.inventory.list.select(next);
                }
                let said = match marks.as_slice() {
                    [one] => fit(one.name.as_deref().unwrap_or(&one.project_id), 40),
                    many => crate::tui::widgets::count(many.len() as i64, "project"),
                };
                cx.notify(format!("marked {said} reviewed"));
                for mark in marks {
                    self.inventory.reviewed.insert(mark);
                }
            }
            Err(error) if error.kind == Some(ErrorKind::HistoryAway) => cx.notify(
                "NOT marked: the review history is unreachable (retrying); mark again later".into(),
            ),
            Err(error) if error.kind == Some(ErrorKind::HistoryWaiting) => cx.notify(
                "NOT marked: the review history kept the mark waiting on a lock past \
                 lock_timeout_secs (another session holds it; retrying); mark again later"
                    .into(),
            ),
            Err(error) => cx.notify(format!("cannot mark: {}", fit(&error.summary, 60))),
        }
    }

    /// The open project screen shows its project's mark as the marks now stand.
    pub(in crate::tui::app) fn show_review_on_project(&mut self) {
        if let Some(project) = &mut self.project {
            project.review = self.inventory.reviewed.get(&project.target.id).cloned();
        }
    }

    /// The note field, over the body, while it is open.
    pub(in crate::tui::app) fn draw_note(
        &self,
        frame: &mut ratatui::Frame,
        area: ratatui::layout::Rect,
    ) {
        use ratatui::widgets::{Block, Borders, Clear};
        let Some(note) = &self.review.note else {
            return;
        };
        let earlier_rows = u16::from(note.earlier.is_some());
        let popup = crate::tui::widgets::centered(
            area,
            area.width.saturating_sub(8).min(72),
            4 + earlier_rows,
        );
        frame.render_widget(Clear, popup);
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(self.theme.accent)
            .title(Span::styled(
                format!(
                    " Mark {} reviewed{} ",
                    fit(&note.name, 60),
                    if note.advance {
                        " (the cursor's row)"
                    } else {
                        ""
                    }
                ),
                self.theme.title,
            ));
        let mut inner = block.inner(popup);
        frame.render_widget(block, popup);
        if let Some(earlier) = &note.earlier {
            let line = Span::styled(fit(earlier, inner.width as usize), self.theme.dim);
            frame.render_widget(ratatui::widgets::Paragraph::new(line), inner);
            inner.y += 1;
            inner.height = inner.height.saturating_sub(1);
        }
        note.field.draw(
            frame,
            inner,
            &self.theme,
            "note (optional)",
            Some(("enter mark · esc cancel", self.theme.dim)),
        );
    }
}
