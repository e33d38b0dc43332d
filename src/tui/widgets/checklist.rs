//! The filter menu of the list screens: a checkbox per value of a filter that
//! takes several values at once (values of one parameter match any), and a
//! line that cycles any → yes → no for a yes/no filter. Enter or space
//! toggles the line under the cursor; the menu stays open so several can be
//! ticked. A screen may give the lines hotkeys (one key toggles its line) and
//! `/` jumps by text (see [`Menu::key`]). One component for the inventory and
//! the member directory.

use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;

use super::menu::{Menu, MenuOutcome};
use crate::api::model::WireEnum;
use crate::tui::action::Action;
use crate::tui::keymap::Keymap;
use crate::tui::theme::Theme;

/// What one line of the menu shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Toggle {
    /// One value of a multi-valued filter: ticked or not.
    Check(bool),
    /// A yes/no filter: `None` filters nothing.
    YesNo(Option<bool>),
}

/// A line of the menu: the filter (or filter value) it stands for, its label
/// and its state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckLine<K> {
    pub key: K,
    pub label: String,
    pub state: Toggle,
}

impl<K> CheckLine<K> {
    pub fn check(key: K, label: impl Into<String>, checked: bool) -> Self {
        Self {
            key,
            label: label.into(),
            state: Toggle::Check(checked),
        }
    }

    pub fn yes_no(key: K, label: impl Into<String>, value: Option<bool>) -> Self {
        Self {
            key,
            label: label.into(),
            state: Toggle::YesNo(value),
        }
    }

    /// `[x] role admin`, or `SCIM managed: any`.
    fn text(&self) -> String {
        match self.state {
            Toggle::Check(checked) => {
                format!("[{}] {}", if checked { "x" } else { " " }, self.label)
            }
            Toggle::YesNo(value) => format!("{}: {}", self.label, yes_no_word(value)),
        }
    }
}

/// A checkbox for each known value of a repeatable filter `name`, ticked
/// when among `chosen`; `key` makes the line's key of a value.
pub fn check_lines<T: WireEnum + PartialEq, K>(
    name: &str,
    chosen: &[T],
    key: impl Fn(T) -> K,
) -> Vec<CheckLine<K>> {
    T::known_values()
        .iter()
        .map(|value| {
            CheckLine::check(
                key(value.clone()),
                format!("{name} {}", value.wire()),
                chosen.contains(value),
            )
        })
        .collect()
}

/// `any`, `yes` or `no`.
pub fn yes_no_word(value: Option<bool>) -> &'static str {
    match value {
        None => "any",
        Some(true) => "yes",
        Some(false) => "no",
    }
}

/// The next state of a yes/no filter: any → yes → no → any.
pub fn cycle_yes_no(value: Option<bool>) -> Option<bool> {
    match value {
        None => Some(true),
        Some(true) => Some(false),
        Some(false) => None,
    }
}

/// Ticks `value` in `values` when absent, else unticks it (order kept).
pub fn toggle_value<T: PartialEq + Clone>(values: &mut Vec<T>, value: &T) {
    match values.iter().position(|v| v == value) {
        Some(at) => {
            values.remove(at);
        }
        None => values.push(value.clone()),
    }
}

/// The hotkey of each line, from the lines' keys.
pub type Hotkeys<K> = fn(&[K]) -> Vec<Option<char>>;

/// An open filter menu whose lines stand for keys of type `K`.
#[derive(Debug, Clone)]
pub struct CheckMenu<K> {
    menu: Menu,
    keys: Vec<K>,
    hotkeys: Option<Hotkeys<K>>,
}

impl<K: Clone> CheckMenu<K> {
    pub fn new(title: impl Into<String>, lines: Vec<CheckLine<K>>) -> Self {
        let (keys, items) = split(lines);
        Self {
            menu: Menu::new(title, items, 0),
            keys,
            hotkeys: None,
        }
    }

    /// The menu with a hotkey on each line, as `hotkeys` gives them.
    pub fn with_hotkeys(mut self, hotkeys: Hotkeys<K>) -> Self {
        self.menu.hotkeys = hotkeys(&self.keys);
        self.hotkeys = Some(hotkeys);
        self
    }

    /// Shows the states anew after a toggle; the cursor stays where it is.
    pub fn update(&mut self, lines: Vec<CheckLine<K>>) {
        let (keys, items) = split(lines);
        self.keys = keys;
        self.menu.items = items;
        if let Some(hotkeys) = self.hotkeys {
            self.menu.hotkeys = hotkeys(&self.keys);
        }
        self.menu.selected = self.menu.selected.min(self.keys.len().saturating_sub(1));
    }

    /// A key before it is read as an action (a hotkey, or `/` and the text
    /// to jump to): `None` when it is for the actions; else the key of the
    /// line toggled, if any. `closed` is set when it closes the menu.
    pub fn key(&mut self, key: &KeyEvent, closed: &mut bool) -> Option<Option<K>> {
        Some(match self.menu.key(key)? {
            MenuOutcome::Open => None,
            MenuOutcome::Closed => {
                *closed = true;
                None
            }
            MenuOutcome::Chosen(index) => self.keys.get(index).cloned(),
        })
    }

    /// The key of the line toggled by `action` (enter or space), if any.
    /// `closed` is set when the action closes the menu (esc, q).
    pub fn handle(&mut self, action: Action, closed: &mut bool) -> Option<K> {
        let action = match action {
            Action::Mark => Action::Open,
            // The key that opened the menu closes it.
            Action::Toggles => Action::Back,
            other => other,
        };
        match self.menu.handle(action) {
            MenuOutcome::Open => None,
            MenuOutcome::Closed => {
                *closed = true;
                None
            }
            MenuOutcome::Chosen(index) => self.keys.get(index).cloned(),
        }
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: &Theme, keymap: &Keymap) {
        let (open, close) = (keymap.key_for(Action::Open), keymap.key_for(Action::Back));
        // Only a screen that gives hotkeys reads raw keys (and `/`) first.
        let footer = match self.hotkeys {
            Some(_) => format!("key or {open} toggles · / jump · {close} close"),
            None => format!(
                "{open}/{} toggle · {close} close",
                keymap.key_for(Action::Mark)
            ),
        };
        self.menu.draw(frame, area, theme, &footer);
    }
}

fn split<K>(lines: Vec<CheckLine<K>>) -> (Vec<K>, Vec<String>) {
    lines
        .into_iter()
        .map(|line| {
            let text = line.text();
            (line.key, text)
        })
        .unzip()
}

/// A key on a screen's open filter menu before it is read as an action
/// ([`CheckMenu::key`]): `None` when it is for the actions, else the key of
/// the line toggled, if any.
pub fn choose_key<K: Clone>(open: &mut Option<CheckMenu<K>>, key: &KeyEvent) -> Option<Option<K>> {
    let menu = open.as_mut()?;
    let mut closed = false;
    let chosen = menu.key(key, &mut closed);
    if closed {
        *open = None;
    }
    chosen
}

/// An action on a screen's open filter menu: the key toggled, if any; the menu
/// is dropped when the action closes it.
pub fn choose<K: Clone>(open: &mut Option<CheckMenu<K>>, action: Action) -> Option<K> {
    let menu = open.as_mut()?;
    let mut closed = false;
    let key = menu.handle(action, &mut closed);
    if closed {
        *open = None;
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_toggle_and_cycle() {
        let lines = |ticked: bool, yes: Option<bool>| {
            vec![
                CheckLine::check(1, "role admin", ticked),
                CheckLine::yes_no(2, "SCIM managed", yes),
            ]
        };
        let mut open = Some(CheckMenu::new("Filters", lines(false, None)));
        assert_eq!(choose(&mut open, Action::Open), Some(1));
        assert_eq!(choose(&mut open, Action::Down), None);
        assert_eq!(choose(&mut open, Action::Mark), Some(2));
        if let Some(menu) = &mut open {
            menu.update(lines(true, Some(true)));
            assert_eq!(menu.menu.items, ["[x] role admin", "SCIM managed: yes"]);
            assert_eq!(menu.menu.selected, 1, "the cursor stays");
        }
        assert_eq!(choose(&mut open, Action::Back), None);
        assert!(open.is_none(), "esc closes");

        let mut values = vec!["a", "b"];
        toggle_value(&mut values, &"a");
        toggle_value(&mut values, &"c");
        assert_eq!(values, ["b", "c"]);
        assert_eq!(cycle_yes_no(cycle_yes_no(cycle_yes_no(None))), None);
    }
}
