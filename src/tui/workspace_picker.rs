//! The workspace picker: with no workspace configured and a key that reaches
//! several (`GET /v1/workspaces`, DESIGN.md), the dashboard asks which one,
//! before it opens.

use crossterm::event::{Event, EventStream, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use futures::StreamExt;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::terminal::Tui;
use super::theme::Theme;
use super::widgets::key_line;
use crate::api::model::Workspace;
use crate::text::fit;

/// What a key did to the picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PickerOutcome {
    Open,
    Chosen(String),
    Cancelled,
}

#[derive(Debug, Clone)]
pub struct WorkspacePicker {
    pub workspaces: Vec<Workspace>,
    pub selected: usize,
}

impl WorkspacePicker {
    pub fn new(workspaces: Vec<Workspace>) -> Self {
        Self {
            workspaces,
            selected: 0,
        }
    }

    pub fn handle_key(&mut self, key: &KeyEvent) -> PickerOutcome {
        let last = self.workspaces.len().saturating_sub(1);
        match key.code {
            KeyCode::Up | KeyCode::Char('k') => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => self.selected = (self.selected + 1).min(last),
            KeyCode::Home | KeyCode::Char('g') => self.selected = 0,
            KeyCode::End | KeyCode::Char('G') => self.selected = last,
            KeyCode::Enter => {
                if let Some(workspace) = self.workspaces.get(self.selected) {
                    return PickerOutcome::Chosen(workspace.id.clone());
                }
            }
            KeyCode::Esc | KeyCode::Char('q') => return PickerOutcome::Cancelled,
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                return PickerOutcome::Cancelled;
            }
            _ => {}
        }
        PickerOutcome::Open
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let width = area.width.saturating_sub(2) as usize;
        let mut lines = vec![
            Line::from(Span::styled(
                "This key reaches several workspaces. Which one?",
                theme.title,
            )),
            Line::from(""),
        ];
        // Keep the selected row on screen.
        let rows = (area.height as usize).saturating_sub(6).max(1);
        let first = self.selected.saturating_sub(rows - 1);
        for (index, workspace) in self.workspaces.iter().enumerate().skip(first).take(rows) {
            let selected = index == self.selected;
            let marker = if selected { "▶ " } else { "  " };
            let text = format!(
                "{marker}{:<24} {:<30} {:<12} {}",
                fit(&workspace.id, 24),
                fit(workspace.name.as_deref().unwrap_or(""), 30),
                workspace.plan.as_ref().map_or("", |plan| plan.as_str()),
                workspace
                    .num_projects
                    .map_or_else(String::new, |n| format!("{n} projects")),
            );
            let style = if selected { theme.selected } else { theme.base };
            lines.push(Line::from(Span::styled(fit(&text, width), style)));
        }
        lines.push(Line::from(""));
        lines.push(key_line(
            theme,
            &[
                ("↑↓", " choose · "),
                ("enter", " open · "),
                ("esc", " quit (or pass --workspace ID)"),
            ],
        ));
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border)
            .title(Span::styled(" vantage · choose a workspace ", theme.title));
        frame.render_widget(Paragraph::new(lines).block(block), area);
    }
}

/// Shows the picker on `terminal` until a workspace is chosen (`Some(id)`) or
/// the person leaves (`None`).
pub async fn pick(
    terminal: &mut Tui,
    workspaces: Vec<Workspace>,
    theme: &Theme,
) -> std::io::Result<Option<String>> {
    let mut picker = WorkspacePicker::new(workspaces);
    let mut events = EventStream::new();
    loop {
        terminal.draw(|frame| picker.draw(frame, frame.area(), theme))?;
        let Some(event) = events.next().await else {
            return Ok(None);
        };
        match event? {
            Event::Key(key) if key.kind != KeyEventKind::Release => match picker.handle_key(&key) {
                PickerOutcome::Open => {}
                PickerOutcome::Chosen(id) => return Ok(Some(id)),
                PickerOutcome::Cancelled => return Ok(None),
            },
            _ => {}
        }
    }
}
