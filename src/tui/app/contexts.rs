//! Contexts in the dashboard: the context named in the header, a picker on
//! `ctrl-x`, and [`App::switch_context`], which the picker (and the command
//! palette) call. A switch asks the launcher to connect; when it answers, every
//! screen starts afresh on the new context. Request tokens keep growing across
//! the switch, so a reply of the old context finds no screen waiting for it
//! and is dropped.

use ratatui::Frame;
use ratatui::layout::Rect;
use time::OffsetDateTime;

use super::App;
use crate::tui::action::Action;
use crate::tui::effect::{Cx, Effect, ErrorInfo, Slot, SwitchedContext};
use crate::tui::nav::{Nav, Tab};
use crate::tui::ops::SwitchContext;
use crate::tui::widgets::menu::{Menu, MenuOutcome};

/// The App's request to connect to another context.
pub const CONTEXT: Slot = Slot::new("app", "context");

/// The launcher's answer to a switch.
#[derive(Debug)]
pub enum ContextMsg {
    Switched(Result<SwitchedContext, ErrorInfo>),
}

/// The contexts the dashboard knows, and the one it shows.
#[derive(Debug, Clone, Default)]
pub struct Contexts {
    /// Every context of the config file, as `vantage context list` orders them.
    pub names: Vec<String>,
    /// The context on screen; `None` in the demo, which has none.
    pub current: Option<String>,
    /// The switch in flight, and its request token.
    pub switching: Option<(String, u64)>,
    picker: Option<Menu>,
    /// Every context's saved views (`app/views.rs`): the user's, so they
    /// stay across a switch.
    pub views: super::SavedViews,
}

impl Contexts {
    /// The config file's contexts, `current` the one on screen.
    pub fn set(&mut self, names: Vec<String>, current: String) {
        self.names = names;
        self.current = Some(current);
    }

    /// Shown in the header: when there is a choice, or a named one is in use.
    pub fn header_name(&self) -> Option<&str> {
        self.current
            .as_deref()
            .filter(|name| self.names.len() > 1 || *name != crate::config::DEFAULT_CONTEXT)
    }

    pub fn picker_open(&self) -> bool {
        self.picker.is_some()
    }
}

impl App {
    /// The config file's contexts, `current` the one on screen; `:ctx`
    /// completes their names.
    pub fn set_contexts(&mut self, names: Vec<String>, current: String) {
        self.palette.context_names = names.clone();
        self.contexts.set(names, current);
    }

    /// Switches to the context called `name`: connects in the background, then
    /// reloads every screen on it. An unknown name, or the one on screen, only
    /// says so on the status line.
    pub fn switch_context(
        &mut self,
        name: &str,
        now: OffsetDateTime,
        effects: &mut Vec<Effect>,
    ) -> bool {
        let mut navs = Vec::new();
        if !self.contexts.names.iter().any(|known| known == name) {
            let known = self.contexts.names.join(", ");
            let text = if known.is_empty() {
                "no contexts: add [contexts.NAME] to the config file".to_owned()
            } else {
                format!("no context named {name}; known: {known}")
            };
            navs.push(Nav::Notify(text));
        } else if self.contexts.current.as_deref() == Some(name) {
            navs.push(Nav::Notify(format!("already on context {name}")));
        } else {
            let mut cx = Cx::new(
                now,
                &self.identity.workspace_id,
                self.settings.max_walk_items,
                effects,
                &mut navs,
                &mut self.next_token,
            );
            let token = cx.request(
                CONTEXT,
                SwitchContext {
                    name: name.to_owned(),
                },
                ContextMsg::Switched,
            );
            cx.notify(format!("connecting to context {name}…"));
            self.contexts.switching = Some((name.to_owned(), token));
        }
        self.apply_navs(navs, now, effects);
        self.dirty = true;
        true
    }

    /// Opens the picker on `ctrl-x`, the current context selected.
    pub(super) fn open_context_picker(&mut self, now: OffsetDateTime) -> bool {
        if self.contexts.names.is_empty() {
            self.status.notice = Some((
                "no contexts: add [contexts.NAME] to the config file".into(),
                now,
            ));
            return true;
        }
        let items: Vec<String> = self
            .contexts
            .names
            .iter()
            .map(
                |name| match self.contexts.current.as_deref() == Some(name) {
                    true => format!("{name} (current)"),
                    false => name.clone(),
                },
            )
            .collect();
        let selected = self
            .contexts
            .names
            .iter()
            .position(|name| self.contexts.current.as_deref() == Some(name))
            .unwrap_or(0);
        self.contexts.picker = Some(Menu::new("Contexts", items, selected));
        true
    }

    /// A key while the picker is open: it takes every key.
    pub(super) fn context_picker_key(
        &mut self,
        action: Option<Action>,
        now: OffsetDateTime,
        effects: &mut Vec<Effect>,
    ) -> bool {
        let (Some(menu), Some(action)) = (&mut self.contexts.picker, action) else {
            return false;
        };
        match menu.handle(action) {
            MenuOutcome::Open => true,
            MenuOutcome::Closed => {
                self.contexts.picker = None;
                true
            }
            MenuOutcome::Chosen(index) => {
                self.contexts.picker = None;
                match self.contexts.names.get(index).cloned() {
                    Some(name) => self.switch_context(&name, now, effects),
                    None => true,
                }
            }
        }
    }

    /// The launcher's answer to a switch. A stale one (a later switch was
    /// asked for) is dropped; a failure leaves the old context in place.
    pub(super) fn handle_context_reply(
        &mut self,
        token: u64,
        reply: ContextMsg,
        now: OffsetDateTime,
        effects: &mut Vec<Effect>,
    ) -> bool {
        let ContextMsg::Switched(reply) = reply;
        let Some((name, expected)) = self.contexts.switching.clone() else {
            return false;
        };
        if token != expected {
            return false;
        }
        self.contexts.switching = None;
        match reply {
            Ok(switched) => {
                self.restart_on(switched, now, effects);
                true
            }
            Err(error) => {
                self.status.notice = Some((format!("context {name} not switched to"), now));
                self.record_error(error);
                true
            }
        }
    }

    /// Every screen afresh on the new context, on the same tab, built as at
    /// start from the App's settings. What belongs to the user rather than to a
    /// context stays: the settings (theme, keys, refresh), the error log, and
    /// the token counter (so no old reply can match a new request).
    fn restart_on(
        &mut self,
        switched: SwitchedContext,
        now: OffsetDateTime,
        effects: &mut Vec<Effect>,
    ) {
        let identity = super::Identity {
            workspace: switched.workspace.clone(),
            workspace_id: switched.workspace,
            plan: None,
            api_version: switched.api_version,
            read_only: switched.read_only,
        };
        let mut fresh = App::new(identity, self.settings.clone());
        fresh.monitor.use_watchlist_file(switched.watchlist);
        let old = std::mem::replace(self, fresh);
        self.errors = old.errors;
        self.next_token = old.next_token;
        self.contexts = old.contexts;
        // The palette's history and context names are the user's, not the context's.
        self.palette = old.palette;
        self.palette.close();
        self.contexts.current = Some(switched.name.clone());
        self.refresh_view_names();
        // The new context's history (its marks, its snapshots), as at launch.
        if let Some(history) = switched.history {
            self.apply_history_start(history, now);
        }
        let tab = old.tab;
        effects.extend(self.start(now));
        if tab != Tab::default() {
            let mut navs = Vec::new();
            self.switch_tab(tab, &mut self.turn(now, effects, &mut navs));
            self.apply_navs(navs, now, effects);
        }
        self.status.notice = Some((format!("context {}", switched.name), now));
        self.dirty = true;
    }

    pub(super) fn draw_context_picker(&self, frame: &mut Frame, area: Rect) {
        if let Some(menu) = &self.contexts.picker {
            menu.draw_keyed(
                frame,
                area,
                &self.theme,
                &self.settings.keymap,
                ["switch", "close"],
            );
        }
    }
}
