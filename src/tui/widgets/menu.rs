//! A popup list to pick from (sort fields, filter toggles, export format).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, List, ListItem, ListState};

use super::centered;
use crate::tui::action::Action;
use crate::tui::theme::Theme;

/// What an action did to an open menu.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MenuOutcome {
    /// Still open (moved, or the action means nothing here).
    Open,
    /// Closed without a choice (esc, q).
    Closed,
    /// Enter on the item at this index.
    Chosen(usize),
}

/// An action on a screen's open menu of kind `K` (if any): the kind and the
/// index of the item chosen; closes the menu on back or quit.
pub fn choose<K: Copy>(open: &mut Option<(K, Menu)>, action: Action) -> Option<(K, usize)> {
    let (kind, menu) = open.as_mut()?;
    match menu.handle(action) {
        MenuOutcome::Open => None,
        MenuOutcome::Closed => {
            *open = None;
            None
        }
        MenuOutcome::Chosen(choice) => Some((*kind, choice)),
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Menu {
    pub title: String,
    pub items: Vec<String>,
    pub selected: usize,
}

impl Menu {
    pub fn new(title: impl Into<String>, items: Vec<String>, selected: usize) -> Self {
        let selected = selected.min(items.len().saturating_sub(1));
        Self {
            title: title.into(),
            items,
            selected,
        }
    }

    pub fn up(&mut self) {
        self.selected = self.selected.saturating_sub(1);
    }

    pub fn down(&mut self) {
        if self.selected + 1 < self.items.len() {
            self.selected += 1;
        }
    }

    /// Moves on up and down; closes on back and quit; chooses on open.
    pub fn handle(&mut self, action: Action) -> MenuOutcome {
        match action {
            Action::Up => self.up(),
            Action::Down => self.down(),
            Action::Back | Action::Quit => return MenuOutcome::Closed,
            Action::Open => return MenuOutcome::Chosen(self.selected),
            _ => {}
        }
        MenuOutcome::Open
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: &Theme, footer: &str) {
        let width = self
            .items
            .iter()
            .map(|item| crate::text::display_width(item))
            .chain([
                crate::text::display_width(&self.title),
                crate::text::display_width(footer),
            ])
            .max()
            .unwrap_or(10) as u16
            + 6;
        let height = self.items.len() as u16 + 2;
        let popup = centered(area, width, height);
        frame.render_widget(Clear, popup);
        let items: Vec<ListItem> = self
            .items
            .iter()
            .map(|item| ListItem::new(Line::from(Span::raw(item.clone()))))
            .collect();
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.accent)
            .title(Span::styled(format!(" {} ", self.title), theme.title))
            .title_bottom(Span::styled(format!(" {footer} "), theme.dim));
        let list = List::new(items)
            .block(block)
            .highlight_style(theme.selected)
            .highlight_symbol("› ");
        let mut state = ListState::default().with_selected(Some(self.selected));
        frame.render_stateful_widget(list, popup, &mut state);
    }
}
