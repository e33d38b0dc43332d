//! The visibility picker: one order (narrowest first), one word for who each
//! value lets in, one hotkey each, and the cursor on the current value, for
//! the inventory's change of a row or of marked rows and for the project
//! screen alike.

use super::menu::Menu;
use crate::api::model::Visibility;

/// Each value in the picker's order, what it means and its hotkey.
const CHOICES: [(Visibility, &str, char); 3] = [
    (
        Visibility::Restricted,
        "owner, invited collaborators, workspace owner",
        'r',
    ),
    (
        Visibility::WorkspaceView,
        "every member, role access capped at read",
        'v',
    ),
    (
        Visibility::WorkspaceEdit,
        "every member, at their role's level",
        'e',
    ),
];

/// The picker titled `title`, its cursor on `current` (the first value
/// when there is none, or it is one this build does not know).
pub fn picker(title: impl Into<String>, current: Option<&Visibility>) -> Menu {
    let items = CHOICES
        .iter()
        .map(|(value, what, _)| format!("{:<15} {what}", value.as_str()))
        .collect();
    let selected = CHOICES
        .iter()
        .position(|(value, _, _)| Some(value) == current)
        .unwrap_or(0);
    let hotkeys = CHOICES.iter().map(|(_, _, key)| Some(*key)).collect();
    Menu::new(title, items, selected).with_hotkeys(hotkeys)
}

/// The value on the picker's line `index`.
pub fn chosen(index: usize) -> Visibility {
    CHOICES[index.min(CHOICES.len() - 1)].0.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cursor_starts_on_the_current_value() {
        let menu = picker("Visibility", Some(&Visibility::WorkspaceEdit));
        assert_eq!(chosen(menu.selected), Visibility::WorkspaceEdit);
        assert_eq!(picker("Visibility", None).selected, 0);
        assert_eq!(chosen(9), Visibility::WorkspaceEdit);
    }
}
