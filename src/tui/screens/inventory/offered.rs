//! The inventory's actions, declared once: keys, footer, help (`actions.rs`).

use super::InventoryScreen;
use crate::tui::action::Action;
use crate::tui::screens::actions::{RowWords, ScreenAction, copy_project_id, movement};

impl InventoryScreen {
    /// What the inventory offers now: its one list of actions.
    pub(super) fn offered(&self) -> Vec<ScreenAction> {
        let marked = self.list.marked_count() > 0;
        let mut actions = movement(RowWords {
            next: "next project (pages load as you near the end)",
            previous: "previous project",
            first: "first project",
            last: "last project: loads the remaining pages within the request budget",
        });
        actions.extend([
            ScreenAction::new(
                Action::Open,
                "open",
                "open the project: every field, rename, publish, delete",
            ),
            ScreenAction::new(
                Action::Filter,
                "search",
                "search names and owners, or a project id (terms under 3 characters are ignored)",
            ),
            ScreenAction::new(
                Action::Toggles,
                "filters",
                "filters: tick several priorities, audiences, visibilities, activities or finding types (any matches); published, PII, connectors: any/yes/no; each line's hotkey toggles it, / jumps by text (:filter takes vantage inventory's flags)",
            ),
            ScreenAction::help_only(
                Action::PriorityFilter,
                "review-priority filter: the next single priority",
            ),
            ScreenAction::help_only(
                Action::ClearFilters,
                "clear the search and every filter (the sort stays)",
            ),
        ]);
        // With rows marked, their changes come first; read-only mode offers
        // none, a key without the write scope shows them disabled.
        if !self.bulk.read_only {
            let why = self.bulk.refusal();
            actions.extend([
                ScreenAction::new(
                    Action::Visibility,
                    "visibility",
                    "set the visibility of the marked rows, else the cursor's",
                )
                .hint_if(marked)
                .disabled(why.clone()),
                ScreenAction::new(
                    Action::Unpublish,
                    "unpublish",
                    "unpublish the marked rows, else the cursor's",
                )
                .hint_if(marked)
                .disabled(why),
            ]);
        }
        actions.extend([
            ScreenAction::new(Action::ClearMarks, "clear marks", "clear the marks").hint_if(marked),
            ScreenAction::new(
                Action::Mark,
                "mark",
                "mark or unmark the project (and move on)",
            )
            .hint_if(!marked),
            ScreenAction::new(
                Action::MarkAll,
                "mark all",
                "mark every project of the view: loads the rest within the request budget first",
            )
            .hint_if(!marked),
            ScreenAction::new(
                Action::Sort,
                "sort",
                "sort by any field of the contract, one hotkey each: names A→Z first, counts and times highest first (:sort FIELD [asc|desc])",
            ),
            ScreenAction::new(
                Action::Watch,
                "watch",
                "pin or unpin on the monitor's watch list",
            ),
            ScreenAction::new(Action::ReverseSort, "reverse", "reverse the sort order"),
            ScreenAction::new(
                Action::ToggleDetail,
                "detail",
                "show or hide the detail pane",
            ),
            ScreenAction::new(
                Action::Export,
                "export",
                "export every page of this view to CSV or JSON",
            ),
            copy_project_id(),
            ScreenAction::help_only(Action::Refresh, "reload from the first page"),
        ]);
        actions
    }
}
