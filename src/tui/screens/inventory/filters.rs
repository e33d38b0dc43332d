//! The inventory's filters, sort and export: the menus that change them, and the
//! line that sums them up.

use super::{InventoryScreen, MenuKind, TOGGLES};
use crate::api::model::{
    ActivityGroup, InventorySortBy, PublishAudience, ReviewPriority, Visibility,
};
use crate::text::sanitize_line;
use crate::tui::action::Action;
use crate::tui::effect::{Cx, ExportFormat, Request, Slot};
use crate::tui::widgets::list;
use crate::tui::widgets::menu::{self, Menu};

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
                Menu::new("Sort by", items, selected)
            }
            MenuKind::Toggles => Menu::new("Filters", self.toggle_lines(), 0),
            MenuKind::Export => Menu::new(
                "Export this view",
                vec!["CSV".to_owned(), "JSON".to_owned()],
                0,
            ),
        };
        self.menu = Some((kind, menu));
    }

    pub(super) fn toggle_lines(&self) -> Vec<String> {
        let q = &self.query;
        let any = |value: Option<String>| value.unwrap_or_else(|| "any".to_owned());
        let yes_no =
            |value: Option<bool>| any(value.map(|v| if v { "yes".into() } else { "no".into() }));
        let values = [
            any(q.review_priority.first().map(|p| p.as_str().to_owned())),
            yes_no(q.is_published),
            any(q.publish_audience.first().map(|a| a.as_str().to_owned())),
            any(q.visibility.first().map(|v| v.as_str().to_owned())),
            any(q.activity_group.first().map(|a| a.as_str().to_owned())),
            yes_no(q.has_pii),
            yes_no(q.has_connectors),
            any(q
                .finding_type_id
                .first()
                .map(|id| sanitize_line(id).into_owned())),
        ];
        TOGGLES
            .iter()
            .zip(values)
            .map(|(label, value)| format!("{label:<18} {value}"))
            .collect()
    }

    /// Moves toggle `index` to its next value.
    pub(super) fn cycle_toggle(&mut self, index: usize) {
        fn next<T: Clone + PartialEq>(current: Option<&T>, values: &[T]) -> Option<T> {
            match current.and_then(|c| values.iter().position(|v| v == c)) {
                None => values.first().cloned(),
                Some(i) if i + 1 < values.len() => Some(values[i + 1].clone()),
                Some(_) => None,
            }
        }
        fn next_bool(current: Option<bool>) -> Option<bool> {
            match current {
                None => Some(true),
                Some(true) => Some(false),
                Some(false) => None,
            }
        }
        let q = &mut self.query;
        match index {
            0 => {
                q.review_priority = next(q.review_priority.first(), ReviewPriority::KNOWN)
                    .into_iter()
                    .collect()
            }
            1 => {
                q.is_published = next_bool(q.is_published);
                // The contract allows an audience filter only with published projects.
                if q.is_published == Some(false) {
                    q.publish_audience.clear();
                }
            }
            2 => {
                q.publish_audience = next(q.publish_audience.first(), PublishAudience::KNOWN)
                    .into_iter()
                    .collect();
                if !q.publish_audience.is_empty() && q.is_published == Some(false) {
                    q.is_published = None;
                }
            }
            3 => {
                q.visibility = next(q.visibility.first(), Visibility::KNOWN)
                    .into_iter()
                    .collect()
            }
            4 => {
                q.activity_group = next(q.activity_group.first(), ActivityGroup::KNOWN)
                    .into_iter()
                    .collect()
            }
            5 => q.has_pii = next_bool(q.has_pii),
            6 => q.has_connectors = next_bool(q.has_connectors),
            7 => {
                let ids: Vec<String> = self.finding_types.iter().map(|f| f.id.clone()).collect();
                q.finding_type_id = next(q.finding_type_id.first(), &ids).into_iter().collect();
            }
            _ => {}
        }
    }

    pub(super) fn handle_menu_action(&mut self, action: Action, cx: &mut Cx) {
        let Some((kind, choice)) = menu::choose(&mut self.menu, action) else {
            return;
        };
        match kind {
            MenuKind::Sort => {
                self.menu = None;
                let sort_by = choice
                    .checked_sub(1)
                    .map(|i| InventorySortBy::KNOWN[i].clone());
                if sort_by == Some(InventorySortBy::Relevance) && self.search().trim().is_empty() {
                    cx.notify("sorting by relevance needs a search: press / first".into());
                    return;
                }
                self.query.sort_by = sort_by;
                self.reload(cx);
            }
            MenuKind::Toggles => {
                self.cycle_toggle(choice);
                let lines = self.toggle_lines();
                if let Some((_, menu)) = &mut self.menu {
                    menu.items = lines;
                }
                self.reload(cx);
            }
            MenuKind::Export => {
                self.menu = None;
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
        self.export_pending = Some(cx.fetch(
            Slot::InventoryExport,
            Request::ExportInventory {
                params: self.params(),
                format,
                path,
                loaded: std::sync::Arc::new(self.list.rows.clone()),
                next_cursor: self.list.next_cursor().map(str::to_owned),
            },
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
        let mut parts = Vec::new();
        let search = self.search().trim();
        if !search.is_empty() {
            parts.push(format!("search \"{}\"", sanitize_line(search)));
        }
        let list = |name: &str, values: Vec<&str>| {
            (!values.is_empty()).then(|| format!("{name} {}", values.join("|")))
        };
        parts.extend(list(
            "priority",
            q.review_priority.iter().map(|v| v.as_str()).collect(),
        ));
        if let Some(published) = q.is_published {
            parts.push(if published {
                "published".into()
            } else {
                "not published".into()
            });
        }
        parts.extend(list(
            "audience",
            q.publish_audience.iter().map(|v| v.as_str()).collect(),
        ));
        parts.extend(list(
            "visibility",
            q.visibility.iter().map(|v| v.as_str()).collect(),
        ));
        parts.extend(list(
            "activity",
            q.activity_group.iter().map(|v| v.as_str()).collect(),
        ));
        if let Some(pii) = q.has_pii {
            parts.push(if pii {
                "with personal data".into()
            } else {
                "without personal data".into()
            });
        }
        if let Some(connectors) = q.has_connectors {
            parts.push(if connectors {
                "with connectors".into()
            } else {
                "without connectors".into()
            });
        }
        if let Some(id) = q.finding_type_id.first() {
            parts.push(format!("finding {}", sanitize_line(id)));
        }
        list::filter_summary(
            &parts,
            q.sort_by.as_ref().map(|by| by.as_str()),
            &self.sort_order(),
        )
    }
}
