//! One project in focus (DESIGN.md, "How data flows through the TUI"): the
//! inventory's cursor, the palette, Changes, a finding's list and the
//! monitor's tiles set it; the project screen, Monitor, Analytics and Personal
//! data show it, and the breadcrumb names it. The project screen opens on a
//! `ProjectOpen` and returns, on `esc`, to the tab it was opened from.

use super::App;
use super::notices::Notice;
use crate::tui::action::Action;
use crate::tui::effect::Turn;
use crate::tui::facts::{Facts, Source};
use crate::tui::focus::{GoneProject, ProjectOpen, ProjectRef};
use crate::tui::keymap::key_of;
use crate::tui::nav::Tab;
use crate::tui::screens::project::{ProjectScreen, WriteAccess};

/// The project in focus, and what moved it last.
#[derive(Debug, Default)]
pub struct FocusState {
    pub project: Option<ProjectRef>,
    /// The tab the project screen was opened from: `esc` returns there.
    pub(super) opened_from: Option<Tab>,
    /// The id under the inventory's or the monitor's cursor when last looked
    /// at: only a move of the cursor sets the focus, not a visit of the tab.
    cursor_seen: Option<String>,
    /// Projects a read found gone (404 `project_not_found`), by id, until a
    /// read finds them again: every tab about one says so.
    pub gone: std::collections::HashMap<String, GoneProject>,
}

impl App {
    /// The project in focus, when a read found it gone.
    pub fn focused_gone(&self) -> Option<&GoneProject> {
        self.focus.gone.get(&self.focused_project()?.id)
    }

    /// The project the project screen, Monitor, Analytics and Personal data show.
    pub fn focused_project(&self) -> Option<&ProjectRef> {
        self.focus.project.as_ref()
    }

    /// The project under the cursor of the screen on view, if that screen has
    /// one that sets the focus.
    fn cursor_project(&self) -> Option<ProjectRef> {
        match self.tab {
            Tab::Inventory => match &self.project {
                Some(project) => Some(project.project_ref()),
                None => self.inventory.selected_item().map(ProjectRef::of_row),
            },
            Tab::Monitor => self.monitor.focused(),
            _ => None,
        }
    }

    /// What a status-line notice is about: the project in focus and the
    /// inventory's search. A notice outlives neither.
    pub(super) fn notice_context(&self) -> (Option<String>, String) {
        let focus = self.focus.project.as_ref().map(|p| p.id.clone());
        (focus, self.inventory.search().to_owned())
    }

    /// After a message: a notice from before it goes when what it was about
    /// changed (another project in focus, another search), unless the
    /// message said something new ("searching the service for …" two
    /// projects later, "not under these filters" after the search ended).
    pub(super) fn drop_stale_notice(
        &mut self,
        before: (Option<String>, String),
        notice_before: Option<Notice>,
    ) {
        let (focus, search) = self.notice_context();
        let moved = before.0.is_some() && focus != before.0;
        if (moved || search != before.1) && self.status.notice == notice_before {
            self.status.notice = None;
        }
    }

    /// After a message: a cursor that moved (or the first one there is) sets
    /// the focus; a tab just shown only notes where its cursor is.
    pub(super) fn follow_focus(&mut self, tab_before: Tab) {
        let cursor = self.cursor_project();
        let seen = cursor.as_ref().map(|project| project.id.clone());
        let moved = self.tab == tab_before && seen != self.focus.cursor_seen;
        let opened = self.tab == Tab::Inventory && self.project.is_some();
        if let Some(project) = cursor
            && (moved || opened || self.focus.project.is_none())
        {
            self.focus.project = Some(project);
        }
        self.focus.cursor_seen = seen;
    }

    /// Opens the project screen on `open`. A project opened without its row
    /// takes the loaded one if the inventory has it; the screen asks the
    /// newest snapshot, then searches for it otherwise (`facts.rs`), and never
    /// makes one up.
    pub(super) fn open_project(&mut self, open: ProjectOpen, turn: &mut Turn<'_>) {
        let ProjectOpen {
            project,
            row,
            searched,
        } = open;
        let row = row.or_else(|| {
            self.inventory
                .list
                .rows
                .iter()
                .find(|item| item.id == project.id)
                .cloned()
        });
        // A project opened by id takes its name from the row found.
        let project = match (&row, &project.name) {
            (Some(row), None) => ProjectRef::of_row(row),
            _ => project,
        };
        // Rows seeded from the snapshot at start say so, with its age.
        let source = match self.review.inventory_seeded_at() {
            _ if searched => Source::Search(turn.now),
            Some(taken_at) => Source::Snapshot(taken_at),
            None => Source::Page(self.inventory.list.loaded_at),
        };
        let access = if self.identity.read_only {
            WriteAccess::ReadOnly
        } else if let Some(scopes) = &self.missing_write_scope {
            WriteAccess::MissingScope(scopes.clone())
        } else {
            WriteAccess::Allowed
        };
        // Opened from a project screen (back, forward): the first origin holds.
        if self.project.is_none() || self.tab != Tab::Inventory {
            self.focus.opened_from = Some(self.tab);
        }
        if self.tab != Tab::Inventory {
            self.with_screen(turn, |screen, _| screen.deactivate());
        }
        self.tab = Tab::Inventory;
        let facts = Facts::new(row.map(|row| (row, source))).with_history(self.review.enabled);
        // What the status line said was about the screen left behind.
        self.status.notice = None;
        self.focus.project = Some(project.clone());
        self.project = Some(ProjectScreen::new(project, facts, access));
        self.show_review_on_project();
        self.share_policies_with_project();
        self.with_screen(turn, |screen, cx| screen.activate(cx));
    }

    /// The tab the project screen was opened from, where `esc` returns.
    pub fn project_origin(&self) -> Tab {
        self.focus.opened_from.unwrap_or(Tab::Inventory)
    }

    /// `esc` on the project screen: back to where it was opened from.
    pub(super) fn close_project(&mut self, turn: &mut Turn<'_>) {
        self.project = None;
        match self.focus.opened_from.take() {
            Some(tab) if tab != Tab::Inventory => self.switch_tab(tab, turn),
            _ => self.select_focus_in_inventory(),
        }
    }

    /// The inventory's list on view again: its cursor goes to the project in
    /// focus when that row is loaded.
    pub(super) fn select_focus_in_inventory(&mut self) {
        let Some(focus) = &self.focus.project else {
            return;
        };
        if let Some(index) = self
            .inventory
            .list
            .rows
            .iter()
            .position(|row| row.id == focus.id)
        {
            self.inventory.list.select(index);
        }
        self.focus.cursor_seen = Some(focus.id.clone());
    }
}

impl App {
    /// `w` outside the monitor: pins or unpins the project in focus.
    pub(super) fn watch_selected(&mut self, turn: &mut Turn<'_>) {
        let selected: Option<ProjectRef> = self.focused_project().cloned();
        let mut cx = turn.cx(&mut self.next_token);
        match selected {
            Some(project) => self.monitor.toggle_watch(project, &mut cx),
            None => cx.notify(format!(
                "select a project in the inventory ({}) to pin it",
                key_of(Action::ShowTab(Tab::Inventory))
            )),
        }
    }
}
