//! A popup list to pick from (sort fields, filter toggles, export format).
//! A menu may give its items hotkeys (shown before each item: one key
//! chooses it, as lazygit's menus do), and `/` jumps to the first item that
//! holds what is typed next.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, List, ListItem, ListState};

use super::centered;
use crate::text::sanitize_line;
use crate::tui::action::Action;
use crate::tui::keymap::Keymap;
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
    /// The key that chooses each item, if any (beside `items`).
    pub hotkeys: Vec<Option<char>>,
    /// What is typed after `/`, while jumping.
    jump: Option<String>,
}

impl Menu {
    pub fn new(title: impl Into<String>, items: Vec<String>, selected: usize) -> Self {
        let selected = selected.min(items.len().saturating_sub(1));
        Self {
            title: title.into(),
            items,
            selected,
            hotkeys: Vec::new(),
            jump: None,
        }
    }

    /// The menu with a hotkey for each item (`None`: that item has none).
    pub fn with_hotkeys(mut self, hotkeys: Vec<Option<char>>) -> Self {
        self.hotkeys = hotkeys;
        self
    }

    /// A key before it is read as an action: a hotkey chooses its item; `/`
    /// starts a jump, and while jumping the typed text moves the cursor to
    /// the first item that holds it (enter chooses, esc stops jumping).
    /// `None` when the key is for the actions.
    pub fn key(&mut self, key: &KeyEvent) -> Option<MenuOutcome> {
        let plain = !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        if let Some(typed) = &mut self.jump {
            match key.code {
                KeyCode::Esc => self.jump = None,
                KeyCode::Enter => {
                    self.jump = None;
                    return Some(MenuOutcome::Chosen(self.selected));
                }
                KeyCode::Backspace => {
                    typed.pop();
                }
                KeyCode::Up => self.up(),
                KeyCode::Down => self.down(),
                KeyCode::Char(ch) if plain => {
                    typed.push(ch);
                    let wanted = typed.to_lowercase();
                    if let Some(at) = self
                        .items
                        .iter()
                        .position(|item| item.to_lowercase().contains(&wanted))
                    {
                        self.selected = at;
                    }
                }
                _ => return None,
            }
            return Some(MenuOutcome::Open);
        }
        let KeyCode::Char(ch) = key.code else {
            return None;
        };
        if !plain {
            return None;
        }
        if ch == '/' {
            self.jump = Some(String::new());
            return Some(MenuOutcome::Open);
        }
        let at = self.hotkeys.iter().position(|hotkey| *hotkey == Some(ch))?;
        self.selected = at;
        Some(MenuOutcome::Chosen(at))
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

    /// Draws the menu with the usual footer: the keys that open (choose)
    /// and go back (close), named with the words given.
    pub fn draw_keyed(
        &self,
        frame: &mut Frame,
        area: Rect,
        theme: &Theme,
        keymap: &Keymap,
        [open, back]: [&str; 2],
    ) {
        let footer = keymap.prompt(&[(Action::Open, open), (Action::Back, back)]);
        self.draw(frame, area, theme, &footer);
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: &Theme, footer: &str) {
        let jump_footer;
        let footer = match &self.jump {
            Some(typed) => {
                jump_footer = format!("/{} · enter choose · esc stop", sanitize_line(typed));
                jump_footer.as_str()
            }
            None => footer,
        };
        let keyed = self.hotkeys.iter().any(Option::is_some);
        let key_width = if keyed { 2 } else { 0 };
        let width = self
            .items
            .iter()
            .map(|item| crate::text::display_width(item) + key_width)
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
            .enumerate()
            .map(|(at, item)| {
                let mut spans = Vec::new();
                if keyed {
                    let hotkey = self.hotkeys.get(at).copied().flatten();
                    spans.push(Span::styled(
                        format!("{} ", hotkey.unwrap_or(' ')),
                        theme.accent,
                    ));
                }
                spans.push(Span::raw(item.clone()));
                ListItem::new(Line::from(spans))
            })
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
