//! Keys to actions: vim and arrow defaults, with overrides from the config file's
//! `[keys]` table, which lists only what changes (e.g. `quit = ["q", "ctrl-c"]`).

use std::collections::HashMap;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::action::Action;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum KeymapError {
    #[error("[keys] {0}: no such action; the actions are {names}", names = action_names())]
    UnknownAction(String),
    #[error(
        "[keys] {action}: cannot read key {key:?} (examples: \"q\", \"ctrl-d\", \"shift-tab\", \"enter\", \"f5\")"
    )]
    BadKey { action: String, key: String },
    #[error("[keys] {first} and {second} are both bound to {key:?}; give each its own key")]
    Conflict {
        key: String,
        first: String,
        second: String,
    },
    #[error(
        "[keys] {action} takes {key:?}, the only key of {lost}; bind {lost} to another key too"
    )]
    TakesLastKey {
        action: String,
        key: String,
        lost: String,
    },
}

fn action_names() -> String {
    Action::ALL
        .iter()
        .map(|action| action.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A key with its modifiers, normalised so that lookups match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyPress {
    pub code: KeyCode,
    pub modifiers: KeyModifiers,
}

impl KeyPress {
    pub fn from_event(event: &KeyEvent) -> Self {
        let mut modifiers = event.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT);
        let code = match event.code {
            // Shift is already in the character; BackTab is its own key.
            KeyCode::Char(ch) if event.modifiers.contains(KeyModifiers::CONTROL) => {
                KeyCode::Char(ch.to_ascii_lowercase())
            }
            KeyCode::BackTab => KeyCode::BackTab,
            other => other,
        };
        if matches!(code, KeyCode::BackTab) {
            modifiers = KeyModifiers::NONE;
        }
        Self { code, modifiers }
    }

    pub fn parse(text: &str) -> Option<Self> {
        let mut modifiers = KeyModifiers::NONE;
        let mut rest = text;
        loop {
            if let Some(after) = rest.strip_prefix("ctrl-") {
                modifiers |= KeyModifiers::CONTROL;
                rest = after;
            } else if let Some(after) = rest.strip_prefix("alt-") {
                modifiers |= KeyModifiers::ALT;
                rest = after;
            } else {
                break;
            }
        }
        let code = match rest {
            "enter" => KeyCode::Enter,
            "esc" => KeyCode::Esc,
            "tab" => KeyCode::Tab,
            "shift-tab" | "backtab" => KeyCode::BackTab,
            "up" => KeyCode::Up,
            "down" => KeyCode::Down,
            "left" => KeyCode::Left,
            "right" => KeyCode::Right,
            "home" => KeyCode::Home,
            "end" => KeyCode::End,
            "pageup" => KeyCode::PageUp,
            "pagedown" => KeyCode::PageDown,
            "space" => KeyCode::Char(' '),
            "backspace" => KeyCode::Backspace,
            "delete" => KeyCode::Delete,
            f if f.starts_with('f') && f.len() > 1 => KeyCode::F(f[1..].parse().ok()?),
            single => {
                let mut chars = single.chars();
                let ch = chars.next()?;
                if chars.next().is_some() {
                    return None;
                }
                KeyCode::Char(if modifiers.contains(KeyModifiers::CONTROL) {
                    ch.to_ascii_lowercase()
                } else {
                    ch
                })
            }
        };
        Some(Self { code, modifiers })
    }

    /// How help screens and the footer write the key.
    pub fn label(&self) -> String {
        let mut out = String::new();
        if self.modifiers.contains(KeyModifiers::CONTROL) {
            out.push_str("ctrl-");
        }
        if self.modifiers.contains(KeyModifiers::ALT) {
            out.push_str("alt-");
        }
        match self.code {
            KeyCode::Char(' ') => out.push_str("space"),
            KeyCode::Char(ch) => out.push(ch),
            KeyCode::Enter => out.push_str("enter"),
            KeyCode::Esc => out.push_str("esc"),
            KeyCode::Tab => out.push_str("tab"),
            KeyCode::BackTab => out.push_str("shift-tab"),
            KeyCode::Up => out.push('↑'),
            KeyCode::Down => out.push('↓'),
            KeyCode::Left => out.push('←'),
            KeyCode::Right => out.push('→'),
            KeyCode::Home => out.push_str("home"),
            KeyCode::End => out.push_str("end"),
            KeyCode::PageUp => out.push_str("pgup"),
            KeyCode::PageDown => out.push_str("pgdn"),
            KeyCode::F(n) => out.push_str(&format!("f{n}")),
            _ => out.push('?'),
        }
        out
    }
}

const DEFAULTS: &[(Action, &[&str])] = &[
    (Action::Quit, &["q", "ctrl-c"]),
    (Action::Back, &["esc"]),
    (Action::Help, &["?"]),
    (Action::ErrorLog, &["!"]),
    (Action::NextTab, &["tab"]),
    (Action::PrevTab, &["shift-tab"]),
    (Action::Tab1, &["1"]),
    (Action::Tab2, &["2"]),
    (Action::Tab3, &["3"]),
    (Action::Tab4, &["4"]),
    (Action::Tab5, &["5"]),
    (Action::Tab6, &["6"]),
    (Action::Tab7, &["7"]),
    (Action::Up, &["k", "up"]),
    (Action::Down, &["j", "down"]),
    (Action::Top, &["g", "home"]),
    (Action::Bottom, &["G", "end"]),
    (Action::PageUp, &["ctrl-u", "pageup"]),
    (Action::PageDown, &["ctrl-d", "pagedown"]),
    (Action::Open, &["enter"]),
    (Action::Filter, &["/"]),
    (Action::Sort, &["s"]),
    (Action::ReverseSort, &["S"]),
    (Action::Refresh, &["r", "f5"]),
    (Action::Copy, &["y"]),
    (Action::Export, &["ctrl-s"]),
    (Action::ToggleDetail, &["d"]),
    (Action::PriorityFilter, &["p"]),
    (Action::Toggles, &["t"]),
    (Action::ClearFilters, &["c"]),
    (Action::Rename, &["e"]),
    (Action::Visibility, &["v"]),
    (Action::Unpublish, &["u"]),
    // Shares `p` with the priority filter: each screen takes the action it knows.
    (Action::Publish, &["p"]),
    (Action::Delete, &["D"]),
    (Action::Freeze, &["f"]),
    (Action::Watch, &["w"]),
    (Action::Range, &["R"]),
    (Action::Contexts, &["ctrl-x"]),
    (Action::Audience, &["a"]),
    (Action::EmbedUrl, &["E"]),
    (Action::Palette, &[":"]),
    (Action::Mark, &["space"]),
    (Action::MarkAll, &["A"]),
    (Action::ClearMarks, &["C"]),
    (Action::NavBack, &["["]),
    (Action::NavForward, &["]"]),
    (Action::MarkReviewed, &["m"]),
    (Action::ReviewFilter, &["M"]),
];

/// A key may mean several actions, in the order bound (e.g. `p`: the priority
/// filter of the lists, publish on the project screen); each screen takes the
/// first one it knows.
#[derive(Debug, Clone)]
pub struct Keymap {
    bindings: HashMap<KeyPress, Vec<Action>>,
}

impl Default for Keymap {
    fn default() -> Self {
        let mut bindings: HashMap<KeyPress, Vec<Action>> = HashMap::new();
        for (action, keys) in DEFAULTS {
            for key in *keys {
                if let Some(press) = KeyPress::parse(key) {
                    bindings.entry(press).or_default().push(*action);
                }
            }
        }
        Self { bindings }
    }
}

impl Keymap {
    /// Defaults with `overrides` applied: an action listed there gets exactly the
    /// keys given, and those keys leave any other action.
    pub fn with_overrides(overrides: &HashMap<String, Vec<String>>) -> Result<Self, KeymapError> {
        let mut map = Self::default();
        // Which override took each key, to refuse a second one on it.
        let mut claimed: HashMap<KeyPress, (&str, Action)> = HashMap::new();
        let mut names: Vec<&String> = overrides.keys().collect();
        names.sort();
        for name in names {
            let action =
                Action::from_name(name).ok_or_else(|| KeymapError::UnknownAction(name.clone()))?;
            let mut presses = Vec::new();
            for key in &overrides[name] {
                presses.push(KeyPress::parse(key).ok_or_else(|| KeymapError::BadKey {
                    action: name.clone(),
                    key: key.clone(),
                })?);
            }
            for bound in map.bindings.values_mut() {
                bound.retain(|other| *other != action);
            }
            for (press, key) in presses.into_iter().zip(&overrides[name]) {
                // Two overrides on one key: refused, naming both.
                if let Some((other, _)) = claimed.get(&press) {
                    return Err(KeymapError::Conflict {
                        key: key.clone(),
                        first: (*other).to_owned(),
                        second: name.clone(),
                    });
                }
                claimed.insert(press, (name.as_str(), action));
                map.bindings.insert(press, vec![action]);
            }
            map.bindings.retain(|_, bound| !bound.is_empty());
        }
        // A default action left without any key would read as a blank in help.
        for lost in Action::ALL {
            if !map.keys_for(*lost).is_empty() || overrides.contains_key(lost.name()) {
                continue;
            }
            let defaults = DEFAULTS
                .iter()
                .find(|(action, _)| action == lost)
                .map_or(&[][..], |(_, keys)| *keys);
            if let Some((key, taker)) = defaults.iter().find_map(|key| {
                let press = KeyPress::parse(key)?;
                claimed.get(&press).map(|(taker, _)| (*key, *taker))
            }) {
                return Err(KeymapError::TakesLastKey {
                    action: taker.to_owned(),
                    key: key.to_owned(),
                    lost: lost.name().to_owned(),
                });
            }
        }
        Ok(map)
    }

    /// The first action of the key.
    pub fn action(&self, event: &KeyEvent) -> Option<Action> {
        self.actions(event).first().copied()
    }

    /// Every action of the key, in the order bound.
    pub fn actions(&self, event: &KeyEvent) -> &[Action] {
        self.bindings
            .get(&KeyPress::from_event(event))
            .map_or(&[], Vec::as_slice)
    }

    /// The keys bound to `action`, shortest first, for hints and help.
    pub fn keys_for(&self, action: Action) -> Vec<String> {
        let mut keys: Vec<String> = self
            .bindings
            .iter()
            .filter(|(_, bound)| bound.contains(&action))
            .map(|(press, _)| press.label())
            .collect();
        keys.sort_by_key(|label| (label.chars().count(), label.clone()));
        keys
    }

    /// Every (key, action) pair bound, keys written as help shows them
    /// (`ctrl-d`, `↑`, `pgup`), sorted: what README's key table must list.
    pub fn bindings(&self) -> Vec<(String, Action)> {
        let mut pairs: Vec<(String, Action)> = self
            .bindings
            .iter()
            .flat_map(|(press, actions)| actions.iter().map(|action| (press.label(), *action)))
            .collect();
        pairs.sort_by(|a, b| (a.1.name(), &a.0).cmp(&(b.1.name(), &b.0)));
        pairs
    }

    /// The first key of `action`, or "-" when unbound.
    pub fn key_for(&self, action: Action) -> String {
        self.keys_for(action)
            .into_iter()
            .next()
            .unwrap_or_else(|| "-".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, modifiers)
    }

    #[test]
    fn defaults_include_vim_and_arrows() {
        let map = Keymap::default();
        for (code, modifiers, action) in [
            (KeyCode::Char('j'), KeyModifiers::NONE, Action::Down),
            (KeyCode::Down, KeyModifiers::NONE, Action::Down),
            (KeyCode::Char('G'), KeyModifiers::SHIFT, Action::Bottom),
            (KeyCode::Char('d'), KeyModifiers::CONTROL, Action::PageDown),
            (KeyCode::BackTab, KeyModifiers::SHIFT, Action::PrevTab),
            (KeyCode::Char('S'), KeyModifiers::SHIFT, Action::ReverseSort),
        ] {
            assert_eq!(
                map.action(&key(code, modifiers)),
                Some(action),
                "{code:?} {modifiers:?}"
            );
        }
    }

    #[test]
    fn overrides_replace_only_what_they_name() {
        let overrides = HashMap::from([("quit".to_owned(), vec!["x".to_owned()])]);
        let map = Keymap::with_overrides(&overrides).unwrap();
        assert_eq!(
            map.action(&key(KeyCode::Char('x'), KeyModifiers::NONE)),
            Some(Action::Quit)
        );
        assert_eq!(
            map.action(&key(KeyCode::Char('q'), KeyModifiers::NONE)),
            None
        );
        assert_eq!(
            map.action(&key(KeyCode::Char('j'), KeyModifiers::NONE)),
            Some(Action::Down)
        );
    }

    #[test]
    fn a_shared_key_keeps_every_action_in_order() {
        let map = Keymap::default();
        let p = key(KeyCode::Char('p'), KeyModifiers::NONE);
        assert_eq!(map.actions(&p), &[Action::PriorityFilter, Action::Publish]);
        assert_eq!(map.action(&p), Some(Action::PriorityFilter));
        assert_eq!(map.key_for(Action::Publish), "p");
        // An override takes the key for itself alone.
        let overrides = HashMap::from([("publish".to_owned(), vec!["P".to_owned()])]);
        let map = Keymap::with_overrides(&overrides).unwrap();
        assert_eq!(map.actions(&p), &[Action::PriorityFilter]);
        let shifted = key(KeyCode::Char('P'), KeyModifiers::SHIFT);
        assert_eq!(map.actions(&shifted), &[Action::Publish]);
    }

    #[test]
    fn bad_overrides_are_named() {
        let unknown = HashMap::from([("fly".to_owned(), vec!["x".to_owned()])]);
        assert_eq!(
            Keymap::with_overrides(&unknown).unwrap_err(),
            KeymapError::UnknownAction("fly".into())
        );
        let bad = HashMap::from([("quit".to_owned(), vec!["ctrl-".to_owned()])]);
        assert!(matches!(
            Keymap::with_overrides(&bad),
            Err(KeymapError::BadKey { .. })
        ));
    }

    #[test]
    fn conflicting_overrides_are_refused_naming_both_actions() {
        let both = HashMap::from([
            ("quit".to_owned(), vec!["x".to_owned()]),
            ("help".to_owned(), vec!["x".to_owned()]),
        ]);
        let error = Keymap::with_overrides(&both).unwrap_err();
        assert_eq!(
            error,
            KeymapError::Conflict {
                key: "x".into(),
                first: "help".into(),
                second: "quit".into(),
            }
        );
        assert!(
            error
                .to_string()
                .contains("help and quit are both bound to \"x\"")
        );
        // Taking the only key of another action leaves it blank: refused too.
        let steals = HashMap::from([("quit".to_owned(), vec!["?".to_owned()])]);
        let error = Keymap::with_overrides(&steals).unwrap_err();
        assert!(
            matches!(&error, KeymapError::TakesLastKey { action, lost, .. } if action == "quit" && lost == "help"),
            "{error}"
        );
    }
}
