//! The inventory's filters, sort and saved views, as the palette sets them
//! (`:filter`, `:sort`, `:view`). Views are read from the config file at
//! start, kept for every context (so they survive a switch), and each save or
//! delete is written back to the file by an operation (`ops::SaveView`).

use std::path::PathBuf;

use super::App;
use crate::api::model::{InventorySortBy, SortOrder};
use crate::config::{SavedView, ViewsByContext};
use crate::flags::{InventoryFilterArgs, join_words, split_words};
use crate::tui::effect::{ErrorInfo, Slot, Turn};
use crate::tui::nav::Tab;
use crate::tui::ops::{SaveView, ViewSaved};
use crate::tui::palette::inventory::ViewCommand;
use crate::tui::screens::inventory::columns::Column;

/// The views' context when the dashboard has none: `vantage demo`.
pub const NO_CONTEXT: &str = "demo";

/// A saved view written to the config file.
pub const SAVE_VIEW: Slot = Slot::new("app", "save view");

/// A saved view written to the config file (or deleted from it), or why not.
#[derive(Debug)]
pub struct ViewWritten(pub Result<ViewSaved, ErrorInfo>);

/// Every context's saved views, and the config file they are written to.
#[derive(Debug, Clone, Default)]
pub struct SavedViews {
    /// `None`: nowhere to write (no config path), so views last this run only.
    pub path: Option<PathBuf>,
    pub by_context: ViewsByContext,
}

impl App {
    /// The saved views, as the config file holds them; `:view` completes
    /// the names of the context on screen.
    pub fn set_views(&mut self, views: SavedViews) {
        self.contexts.views = views;
        self.refresh_view_names();
    }

    /// The context whose views are shown and saved.
    fn views_context(&self) -> String {
        self.contexts
            .current
            .clone()
            .unwrap_or_else(|| NO_CONTEXT.to_owned())
    }

    /// The palette's view names, of the context on screen: those `:view`
    /// can name (a hand-written key with other characters is never shown).
    pub(super) fn refresh_view_names(&mut self) {
        let context = self.views_context();
        self.palette.view_names = self
            .contexts
            .views
            .by_context
            .get(&context)
            .map(|views| {
                let nameable = |name: &&String| crate::config::check_view_name(name).is_ok();
                views.keys().filter(nameable).cloned().collect()
            })
            .unwrap_or_default();
    }

    /// `:filter FLAGS`, on the inventory's list.
    pub(super) fn filter_inventory(&mut self, args: InventoryFilterArgs, turn: &mut Turn<'_>) {
        let mut cx = turn.cx(&mut self.next_token);
        let applied = self.inventory.apply_filter_args(args, &mut cx);
        self.after_inventory_change(applied, turn);
    }

    /// `:sort FIELD [DIRECTION]`, on the inventory's list.
    pub(super) fn sort_inventory(
        &mut self,
        sort_by: Option<InventorySortBy>,
        order: Option<SortOrder>,
        turn: &mut Turn<'_>,
    ) {
        let mut cx = turn.cx(&mut self.next_token);
        let applied = self.inventory.set_sort(sort_by, order, &mut cx);
        self.after_inventory_change(applied, turn);
    }

    /// The inventory's list shows the change; or the status line says why
    /// there was none.
    fn after_inventory_change(&mut self, applied: Result<(), String>, turn: &mut Turn<'_>) {
        match applied {
            Ok(()) => self.show_tab(Tab::Inventory, turn),
            Err(why) => self.status.notice = Some((why, turn.now)),
        }
    }

    pub(super) fn run_view(&mut self, command: ViewCommand, turn: &mut Turn<'_>) {
        let context = self.views_context();
        match command {
            ViewCommand::Apply(name) => {
                let view = self
                    .contexts
                    .views
                    .by_context
                    .get(&context)
                    .and_then(|views| views.get(&name))
                    .cloned();
                let Some(view) = view else {
                    let known = self.palette.view_names.join(", ");
                    let text = match known.is_empty() {
                        true => format!("no view named {name}: view save {name} keeps one"),
                        false => format!("no view named {name}; saved: {known}"),
                    };
                    self.status.notice = Some((text, turn.now));
                    return;
                };
                self.apply_saved(&name, &view, turn);
            }
            ViewCommand::Save(name) => {
                let flags = join_words(&self.inventory.filter_args().to_words());
                // The columns by their names; none: the dashboard's default set.
                let columns = self
                    .inventory
                    .columns()
                    .map(|chosen| chosen.iter().map(|c| c.name().to_owned()).collect());
                let view = SavedView { flags, columns };
                self.store_view(&context, name, Some(view), turn);
            }
            ViewCommand::Delete(name) => {
                let known = self
                    .contexts
                    .views
                    .by_context
                    .get(&context)
                    .is_some_and(|views| views.contains_key(&name));
                if !known {
                    self.status.notice = Some((format!("no view named {name}"), turn.now));
                    return;
                }
                self.store_view(&context, name, None, turn);
            }
        }
    }

    /// A saved view's flags, read by the commands' declaration: a view
    /// written by hand that it refuses is named with the reason.
    fn apply_saved(&mut self, name: &str, view: &SavedView, turn: &mut Turn<'_>) {
        let args = split_words(&view.flags)
            .map_err(|error| error.to_string())
            .and_then(|words| InventoryFilterArgs::parse_words(&words));
        let columns = view.columns.as_ref().map(|names| {
            names
                .iter()
                .map(|name| Column::parse(name).ok_or_else(|| format!("no column named {name}")))
                .collect::<Result<Vec<_>, _>>()
        });
        let columns = columns.transpose();
        let applied = args.and_then(|args| {
            let columns = columns?;
            let mut cx = turn.cx(&mut self.next_token);
            self.inventory.apply_view(args, &mut cx)?;
            self.inventory.set_columns(columns);
            Ok(())
        });
        match applied {
            Ok(()) => {
                self.show_tab(Tab::Inventory, turn);
                self.status.notice = Some((format!("view {name}"), turn.now));
            }
            Err(why) => {
                self.status.notice = Some((format!("view {name}: {why}"), turn.now));
            }
        }
    }

    /// Keeps (or with `None` forgets) view `name` of `context`, and asks for
    /// it to be written to the config file.
    fn store_view(
        &mut self,
        context: &str,
        name: String,
        view: Option<SavedView>,
        turn: &mut Turn<'_>,
    ) {
        let views = self
            .contexts
            .views
            .by_context
            .entry(context.to_owned())
            .or_default();
        match &view {
            Some(view) => views.insert(name.clone(), view.clone()),
            None => views.remove(&name),
        };
        self.refresh_view_names();
        let Some(path) = self.contexts.views.path.clone() else {
            let text = format!("view {name} kept for this run: there is no config file to write");
            self.status.notice = Some((text, turn.now));
            return;
        };
        let save = SaveView {
            path,
            context: context.to_owned(),
            name,
            view,
        };
        turn.cx(&mut self.next_token)
            .request(SAVE_VIEW, save, ViewWritten);
    }

    /// The config file written: the status line says where. A failure is
    /// in the error log already.
    pub(super) fn view_saved(&mut self, written: ViewWritten, now: time::OffsetDateTime) -> bool {
        let ViewWritten(Ok(ViewSaved { path, name, saved })) = written else {
            return false;
        };
        let what = if saved { "saved in" } else { "deleted from" };
        let text = format!(
            "view {name} {what} {}",
            crate::text::sanitize_line(&path.display().to_string())
        );
        self.status.notice = Some((text, now));
        true
    }
}
