//! Runs what the command palette (`:`) asks: a screen, a project by id or by
//! name, a context, a theme, or an action as if its key was pressed.

use crossterm::event::KeyEvent;
use time::OffsetDateTime;

use super::App;
use super::AppMsg;
use crate::api::model::InventoryItem;
use crate::api::model::InventoryPage;
use crate::api::page::InventoryParams;
use crate::tui::action::Action;
use crate::tui::effect::{Cx, ErrorInfo, Slot, Turn};
use crate::tui::focus::{ProjectOpen, ProjectRef};
use crate::tui::nav::{Nav, ProjectNav, Tab};
use crate::tui::ops::ListInventory;
use crate::tui::palette::{Command, Outcome};
use crate::tui::theme::{ColorDepth, ThemeName};

/// The palette's requests: its history written after a command runs, and
/// the search of the whole workspace for a project by name.
pub const PALETTE_HISTORY: Slot = Slot::new("palette", "history");
pub const PALETTE_JUMP: Slot = Slot::new("palette", "jump");

/// Most projects a jump by name asks the service for.
const JUMP_LIMIT: u32 = 50;

impl App {
    /// A key while the palette is open: it takes every key.
    pub(super) fn palette_key(&mut self, key: &KeyEvent, turn: &mut Turn<'_>) -> bool {
        // `:filter --finding-type-id` completes the types insights listed.
        let finding_types = self.inventory.finding_types.iter();
        self.palette.finding_type_ids = finding_types.map(|f| f.id.clone()).collect();
        match self.palette.handle_key(key, &self.inventory.list.rows) {
            Outcome::Changed | Outcome::Closed => {}
            Outcome::Run(command) => {
                if let Some(save) = self.palette.history().save_request() {
                    turn.cx(&mut self.next_token).request(
                        PALETTE_HISTORY,
                        save,
                        AppMsg::PaletteHistorySaved,
                    );
                }
                self.run_command(command, turn);
            }
        }
        true
    }

    /// Carries out one palette command.
    pub fn run_command(&mut self, command: Command, turn: &mut Turn<'_>) {
        match command {
            Command::Screen(tab) => self.show_tab(tab, turn),
            // The project screen reads the project by id as it opens, and
            // finds its inventory row (`app/focus.rs`).
            Command::ProjectId(id) => turn.navs.push(Nav::Project(ProjectNav::Open(Box::new(
                ProjectOpen::by_ref(ProjectRef { id, name: None }),
            )))),
            Command::ProjectName(name) => self.open_by_name(&name, turn),
            Command::Context(name) => {
                self.switch_context(&name, turn.now, turn.effects);
            }
            Command::Theme(name) => self.set_theme(name, turn.now),
            Command::Columns(columns) => {
                let said = match &columns {
                    Some(columns) => {
                        let names: Vec<&str> = columns.iter().map(|c| c.name()).collect();
                        format!("inventory columns: {}", names.join(", "))
                    }
                    None => "inventory columns: the default for the width".to_owned(),
                };
                self.inventory.set_columns(columns);
                self.show_tab(Tab::Inventory, turn);
                self.say(said, turn.now);
            }
            Command::Reviewer(name) => {
                self.show_tab(Tab::Inventory, turn);
                let mut cx = turn.cx(&mut self.next_token);
                self.inventory.filter_by_reviewer(name, &mut cx);
            }
            Command::Act(action) => self.perform(action, turn),
            Command::Filter(args) => self.filter_inventory(*args, turn),
            Command::Sort(sort_by, order) => self.sort_inventory(sort_by, order, turn),
            Command::View(view) => self.run_view(view, turn),
            Command::Report => self.write_report(turn),
        }
    }

    /// A project by name: a loaded row with that name (exactly, then as a
    /// part), else the service's search over the whole workspace, without the
    /// inventory's filters and leaving its search as it was.
    fn open_by_name(&mut self, name: &str, turn: &mut Turn<'_>) {
        let wanted = name.to_lowercase();
        let rows = &self.inventory.list.rows;
        let named = |row: &&InventoryItem| row.name.as_deref().map(str::to_lowercase);
        let found = rows
            .iter()
            .find(|row| named(row).as_deref() == Some(wanted.as_str()))
            .or_else(|| {
                rows.iter()
                    .find(|row| named(row).is_some_and(|n| n.contains(&wanted)))
            })
            .cloned();
        if let Some(item) = found {
            turn.navs
                .push(Nav::Project(ProjectNav::Open(Box::new(ProjectOpen::row(
                    item,
                )))));
            return;
        }
        let search = ListInventory {
            workspace_id: turn.workspace.clone(),
            params: InventoryParams {
                limit: Some(JUMP_LIMIT),
                query: Some(name.trim().to_owned()),
                ..InventoryParams::default()
            },
            cursor: None,
        };
        let token = turn
            .cx(&mut self.next_token)
            .request(PALETTE_JUMP, search, AppMsg::Jump);
        self.palette.pending_jump = Some((name.to_owned(), token));
        self.say(
            format!("searching the service for {}", crate::text::fit(name, 40)),
            turn.now,
        );
    }

    /// Once the service's search for a palette name answers: opens the project
    /// of that name, or the only one found; several are offered in the
    /// palette, opened again on the name.
    pub(super) fn complete_jump(
        &mut self,
        token: u64,
        reply: Result<InventoryPage, ErrorInfo>,
        cx: &mut Cx,
    ) -> bool {
        let now = cx.now;
        let name = match self.palette.pending_jump.take() {
            Some((name, pending)) if pending == token => name,
            other => {
                self.palette.pending_jump = other;
                return false;
            }
        };
        // The search ended: its "searching …" notice with it.
        self.status.notice = None;
        let rows = match reply {
            Ok(page) => page.data,
            Err(error) => {
                self.palette.forget_unconfirmed();
                self.say(
                    format!(
                        "the search for {} failed: {}",
                        crate::text::fit(&name, 40),
                        error.summary
                    ),
                    now,
                );
                return true;
            }
        };
        let wanted = name.to_lowercase();
        let exact = rows
            .iter()
            .find(|row| row.name.as_deref().map(str::to_lowercase).as_deref() == Some(&wanted));
        let found = match (exact, rows.as_slice()) {
            (Some(row), _) | (None, [row]) => Some(row.clone()),
            _ => None,
        };
        match found {
            Some(item) => cx.navigate(Nav::Project(ProjectNav::Open(Box::new(
                ProjectOpen::searched(item),
            )))),
            None if rows.is_empty() => {
                self.palette.forget_unconfirmed();
                self.say(
                    format!("no project matches {}", crate::text::fit(&name, 40)),
                    now,
                );
            }
            None => {
                self.palette.forget_unconfirmed();
                let count = rows.len();
                self.palette.found = rows;
                self.palette.reopen(
                    &name,
                    format!("{count} projects match: enter opens the highlighted one"),
                );
            }
        }
        true
    }

    fn set_theme(&mut self, name: ThemeName, now: OffsetDateTime) {
        // A monochrome theme (NO_COLOR) has no foreground colours to switch.
        if self.settings.depth == ColorDepth::None {
            self.say("colours are off (NO_COLOR): the theme stays".into(), now);
            return;
        }
        // Kept in the settings, so a context switch keeps it too.
        self.settings.tui.theme = name;
        self.theme = self.settings.theme();
    }

    /// An action as if its key was pressed: the screen first, then the App.
    /// The monitor's freeze switches to the monitor.
    fn perform(&mut self, action: Action, turn: &mut Turn<'_>) {
        if action == Action::Freeze && self.tab != Tab::Monitor {
            self.switch_tab(Tab::Monitor, turn);
        }
        let consumed = self.with_screen(turn, |screen, cx| screen.handle_action(action, cx));
        if !consumed && !self.app_action(action, turn) {
            self.say(
                format!(
                    "{} does nothing on the {} screen",
                    action.name(),
                    self.screen().title()
                ),
                turn.now,
            );
        }
    }

    fn say(&mut self, text: String, now: OffsetDateTime) {
        self.status.notice = Some((text, now));
    }
}
