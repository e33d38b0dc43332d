//! The inventory's filters, sort and export: the menus that change them, and the
//! line that sums them up.

use super::{EXPORT, InventoryFilter, InventoryScreen, MenuKind, Msg};
use crate::api::model::{InventorySortBy, ReviewPriority};
use crate::text::sanitize_line;
use crate::tui::action::Action;
use crate::tui::effect::{Cx, ExportFormat};
use crate::tui::ops::ExportInventory;
use crate::tui::screens::filtered::FilteredList;
use crate::tui::widgets::checklist::{
    CheckLine, CheckMenu, check_lines, cycle_yes_no, toggle_value,
};
use crate::tui::widgets::list;
use crate::tui::widgets::menu::{self, Menu};
use crate::tui::widgets::search::SearchBox;

impl InventoryScreen {
    pub(super) fn open_menu(&mut self, kind: MenuKind) {
        let menu = match kind {
            MenuKind::Sort => {
                let mut items =
                    vec!["default (recently edited; best match with a search)".to_owned()];
                items.extend(InventorySortBy::KNOWN.iter().map(|s| s.as_str().to_owned()));
                let selected = self
                    .query
                    .sort_by
                    .as_ref()
                    .and_then(|current| InventorySortBy::KNOWN.iter().position(|s| s == current))
                    .map_or(0, |index| index + 1);
                Menu::new("Sort by", items, selected).with_hotkeys(super::query::sort_hotkeys())
            }
            MenuKind::Export => Menu::new(
                "Export this view",
                vec!["CSV".to_owned(), "JSON".to_owned()],
                0,
            ),
        };
        self.menu = Some((kind, menu));
    }

    /// The filter menu's lines: a checkbox per value of each repeatable
    /// filter of the contract (values of one filter match any), a yes/no line
    /// for each boolean one.
    pub(super) fn filter_lines(&self) -> Vec<CheckLine<InventoryFilter>> {
        let q = &self.query;
        let mut lines = check_lines("priority", &q.review_priority, InventoryFilter::Priority);
        lines.push(CheckLine::yes_no(
            InventoryFilter::Published,
            "published",
            q.is_published,
        ));
        lines.extend(check_lines(
            "audience",
            &q.publish_audience,
            InventoryFilter::Audience,
        ));
        lines.extend(check_lines(
            "visibility",
            &q.visibility,
            InventoryFilter::Visibility,
        ));
        lines.extend(check_lines(
            "activity",
            &q.activity_group,
            InventoryFilter::Activity,
        ));
        lines.push(CheckLine::yes_no(
            InventoryFilter::Pii,
            "has personal data",
            q.has_pii,
        ));
        lines.push(CheckLine::yes_no(
            InventoryFilter::Connectors,
            "has connectors",
            q.has_connectors,
        ));
        lines.extend(self.finding_types.iter().map(|f| {
            CheckLine::check(
                InventoryFilter::Finding(f.id.clone()),
                format!("finding {}", crate::text::fit(&f.title, 40)),
                q.finding_type_id.contains(&f.id),
            )
        }));
        // A finding filter set elsewhere (the insights screen) stays untickable.
        let policies = self.policy_lines();
        lines.extend(
            q.finding_type_id
                .iter()
                .filter(|id| !self.finding_types.iter().any(|f| &f.id == *id))
                .map(|id| {
                    CheckLine::check(
                        InventoryFilter::Finding(id.clone()),
                        format!("finding {}", sanitize_line(id)),
                        true,
                    )
                }),
        );
        lines.extend(policies);
        lines
    }

    /// A line per policy the evaluation knows (`--violates`), and one per
    /// id set elsewhere that it does not (yet).
    fn policy_lines(&self) -> Vec<CheckLine<InventoryFilter>> {
        let set = &self.policy.violates;
        let known: Vec<&str> = self
            .policy
            .shown
            .evaluation
            .as_ref()
            .map(|evaluation| {
                evaluation
                    .policies
                    .iter()
                    .map(|policy| policy.meta.id.as_str())
                    .collect()
            })
            .unwrap_or_default();
        let mut lines: Vec<_> = known
            .iter()
            .map(|id| {
                CheckLine::check(
                    InventoryFilter::Violates((*id).to_owned()),
                    format!("violates {}", sanitize_line(id)),
                    set.iter().any(|set| set == id),
                )
            })
            .collect();
        lines.extend(
            set.iter()
                .filter(|id| !known.contains(&id.as_str()))
                .map(|id| {
                    CheckLine::check(
                        InventoryFilter::Violates(id.clone()),
                        format!("violates {}", sanitize_line(id)),
                        true,
                    )
                }),
        );
        lines
    }

    /// `p`: the review-priority filter moves to the next single value (then none).
    pub(super) fn cycle_priority(&mut self) {
        let known = ReviewPriority::KNOWN;
        let q = &mut self.query;
        let next = match q.review_priority.as_slice() {
            [] => known.first(),
            [one] => known
                .iter()
                .position(|p| p == one)
                .and_then(|at| known.get(at + 1)),
            // Several ticked: back to the first value alone.
            _ => known.first(),
        };
        q.review_priority = next.cloned().into_iter().collect();
    }

    /// Line `choice` of the open menu, chosen by enter or its hotkey.
    pub(super) fn menu_chosen(&mut self, kind: MenuKind, choice: usize, cx: &mut Cx) {
        self.menu = None;
        match kind {
            MenuKind::Sort => self.sort_chosen(choice, cx),
            MenuKind::Export => {
                let format = if choice == 0 {
                    ExportFormat::Csv
                } else {
                    ExportFormat::Json
                };
                self.start_export(format, cx);
            }
        }
    }

    pub(super) fn start_export(&mut self, format: ExportFormat, cx: &mut Cx) {
        let stamp = crate::timefmt::utc(cx.now, crate::timefmt::FILE_STAMP);
        let path = self
            .export_dir
            .join(format!("inventory-{stamp}.{}", format.extension()));
        self.export_pending = Some(cx.request(
            EXPORT,
            ExportInventory {
                params: self.params(),
                format,
                path,
                loaded: std::sync::Arc::new(self.list.rows.clone()),
                next_cursor: self.list.next_cursor().map(str::to_owned),
            },
            Msg::Exported,
        ));
        cx.notify(if self.list.has_more || self.list.rows.is_empty() {
            "exporting this view: the loaded rows, then the pages not loaded yet…".into()
        } else {
            "exporting the loaded rows (every page of this view)…".into()
        });
    }

    /// The active filters in words, for the summary line.
    pub fn filter_summary(&self) -> String {
        let q = &self.query;
        let mut parts: Vec<String> = [
            list::search_part(self.search()),
            list::any_of_part("priority", &q.review_priority),
            list::yes_no_part(q.is_published, "published", "not published"),
            list::any_of_part("audience", &q.publish_audience),
            list::any_of_part("visibility", &q.visibility),
            list::any_of_part("activity", &q.activity_group),
            list::yes_no_part(q.has_pii, "with personal data", "without personal data"),
            list::yes_no_part(q.has_connectors, "with connectors", "without connectors"),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !q.finding_type_id.is_empty() {
            let ids: Vec<String> = q
                .finding_type_id
                .iter()
                .map(|id| sanitize_line(id).into_owned())
                .collect();
            parts.push(format!("finding {}", ids.join("|")));
        }
        if !self.policy.violates.is_empty() {
            let ids: Vec<String> = self
                .policy
                .violates
                .iter()
                .map(|id| sanitize_line(id).into_owned())
                .collect();
            parts.push(format!("violates {}", ids.join("|")));
        }
        // The review filters hide rows as the others do: said with them.
        if self.reviewed.filter != super::reviewed::ReviewFilter::All {
            parts.push(self.reviewed.filter.label().to_owned());
        }
        if let Some(name) = &self.reviewed.reviewer {
            parts.push(format!("reviewed by {}", crate::text::fit(name, 20)));
        }
        list::filter_summary(
            &parts,
            q.sort_by.as_ref().map(|by| by.as_str()),
            &self.sort_order(),
        )
    }
}

impl FilteredList for InventoryScreen {
    type Filter = InventoryFilter;

    /// The sort or export menu's.
    fn menu_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        if self.menu.is_none() {
            return false;
        }
        if let Some((kind, choice)) = menu::choose(&mut self.menu, action) {
            self.menu_chosen(kind, choice, cx);
        }
        true
    }

    fn search_box(&mut self) -> &mut SearchBox {
        &mut self.search_box
    }

    fn filters(&mut self) -> &mut Option<CheckMenu<InventoryFilter>> {
        &mut self.filters
    }

    /// Ticks or cycles one filter of the menu and loads the view anew.
    fn toggle_filter(&mut self, filter: InventoryFilter, cx: &mut Cx) {
        if let InventoryFilter::Violates(id) = &filter {
            toggle_value(&mut self.policy.violates, id);
        }
        let q = &mut self.query;
        let published_changed = filter == InventoryFilter::Published;
        match filter {
            InventoryFilter::Priority(p) => toggle_value(&mut q.review_priority, &p),
            InventoryFilter::Published => q.is_published = cycle_yes_no(q.is_published),
            InventoryFilter::Audience(a) => toggle_value(&mut q.publish_audience, &a),
            InventoryFilter::Visibility(v) => toggle_value(&mut q.visibility, &v),
            InventoryFilter::Activity(g) => toggle_value(&mut q.activity_group, &g),
            InventoryFilter::Pii => q.has_pii = cycle_yes_no(q.has_pii),
            InventoryFilter::Connectors => q.has_connectors = cycle_yes_no(q.has_connectors),
            InventoryFilter::Finding(id) => toggle_value(&mut q.finding_type_id, &id),
            InventoryFilter::Violates(_) => {}
        }
        // The contract allows an audience filter only with published projects
        // (or no published filter): the last one changed wins.
        if q.is_published == Some(false) && !q.publish_audience.is_empty() {
            if published_changed {
                q.publish_audience.clear();
            } else {
                q.is_published = None;
            }
        }
        let lines = self.filter_lines();
        if let Some(menu) = &mut self.filters {
            menu.update(lines);
        }
        self.reload(cx);
    }

    /// Searches for `text`; the relevance sort goes with the search.
    fn set_search(&mut self, text: String) {
        self.query.query = Some(text).filter(|q| !q.is_empty());
        if self.search().trim().is_empty() && self.query.sort_by == Some(InventorySortBy::Relevance)
        {
            self.query.sort_by = None;
        }
    }

    /// Drops what is loaded and asks for the first page under the current query.
    fn reload(&mut self, cx: &mut Cx) {
        self.total = None;
        self.applied_finding = None;
        self.page_cursors.clear();
        self.row_pages.clear();
        self.policy.hidden.clear();
        let pages = self.pages(cx);
        // A new filter keeps the marks of the rows still in the list.
        self.list.reload_keeping_marks(cx, pages);
        self.look_up_id(cx);
    }
}
