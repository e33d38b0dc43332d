//! What the inventory asks for, set in a few keys: the hotkeys of the filter
//! and sort menus, the sort's first direction, and the filters, sort and
//! saved views the palette sets through the commands' own flags
//! ([`InventoryFilterArgs`]).

use crossterm::event::KeyEvent;

use super::{InventoryFilter, InventoryScreen, InventoryView};
use crate::api::InventoryParams;
use crate::api::model::{
    ActivityGroup, InventorySortBy, PublishAudience, ReviewPriority, SortOrder, Visibility,
};
use crate::flags::InventoryFilterArgs;
use crate::tui::action::Action;
use crate::tui::effect::Cx;
use crate::tui::keymap::key_of;
use crate::tui::screens::filtered::FilteredList;
use crate::tui::widgets::menu::MenuOutcome;

pub use crate::flags::inventory::first_order;

/// The filter menu's hotkey of each line: fixed for the contract's filters,
/// so the fingers learn them; finding types take what is left, in order.
pub(super) fn filter_hotkeys(filters: &[InventoryFilter]) -> Vec<Option<char>> {
    let fixed = |filter: &InventoryFilter| -> Option<char> {
        Some(match filter {
            InventoryFilter::Priority(ReviewPriority::NeedsReview) => 'n',
            InventoryFilter::Priority(ReviewPriority::ReviewRecommended) => 'r',
            InventoryFilter::Priority(ReviewPriority::NoReviewNeeded) => 'o',
            InventoryFilter::Priority(ReviewPriority::Unscored) => 'u',
            InventoryFilter::Published => 'p',
            InventoryFilter::Audience(PublishAudience::Public) => 'a',
            InventoryFilter::Audience(PublishAudience::Workspace) => 'w',
            InventoryFilter::Audience(PublishAudience::Custom) => 'c',
            InventoryFilter::Visibility(Visibility::Restricted) => 'R',
            InventoryFilter::Visibility(Visibility::WorkspaceEdit) => 'E',
            InventoryFilter::Visibility(Visibility::WorkspaceView) => 'V',
            InventoryFilter::Activity(ActivityGroup::Last14Days) => '1',
            InventoryFilter::Activity(ActivityGroup::Last60Days) => '6',
            InventoryFilter::Activity(ActivityGroup::Older) => 'd',
            InventoryFilter::Pii => 'i',
            InventoryFilter::Connectors => 'C',
            _ => return None,
        })
    };
    let mut keys: Vec<Option<char>> = filters.iter().map(fixed).collect();
    // Never j, k, g, q, t or space: those move, close or toggle.
    let mut spare = "fbhlmxyzFBHLMXYZ2345789"
        .chars()
        .filter(|ch| !keys.contains(&Some(*ch)))
        .collect::<Vec<_>>()
        .into_iter();
    for (key, filter) in keys.iter_mut().zip(filters) {
        if key.is_none()
            && matches!(
                filter,
                InventoryFilter::Finding(_) | InventoryFilter::Violates(_)
            )
        {
            *key = spare.next();
        }
    }
    keys
}

/// The sort menu's hotkeys: its first line (the default order), then one
/// per field of [`InventorySortBy::KNOWN`].
pub(super) fn sort_hotkeys() -> Vec<Option<char>> {
    let field = |sort_by: &InventorySortBy| -> Option<char> {
        Some(match sort_by {
            InventorySortBy::Relevance => 'R',
            InventorySortBy::ReviewPriority => 'p',
            InventorySortBy::Name => 'n',
            InventorySortBy::PublishAudience => 'a',
            InventorySortBy::LastEditedAt => 'l',
            InventorySortBy::RiskFactorCount => 'f',
            InventorySortBy::OpenPiiFindingCount => 'i',
            InventorySortBy::ExternalAccessRank => 'x',
            InventorySortBy::Edits24h => 'h',
            InventorySortBy::Edits7d => 'e',
            InventorySortBy::Edits30d => 'E',
            InventorySortBy::Visitors24h => 'u',
            InventorySortBy::Visitors7d => 'v',
            InventorySortBy::Visitors30d => 'V',
            InventorySortBy::LastSecurityScanAt => 'c',
            InventorySortBy::Unknown(_) => return None,
        })
    };
    std::iter::once(Some('d'))
        .chain(InventorySortBy::KNOWN.iter().map(field))
        .collect()
}

/// Refuses what the contract refuses, before asking: an audience with
/// unpublished projects, the relevance sort without a search.
fn check(args: &InventoryFilterArgs) -> Result<(), String> {
    if args.service.is_published == Some(false) && !args.service.publish_audience.is_empty() {
        return Err("--publish-audience needs --is-published true (or none)".into());
    }
    let searched = args
        .service
        .query
        .as_deref()
        .is_some_and(|q| !q.trim().is_empty());
    if args.service.sort_by == Some(InventorySortBy::Relevance) && !searched {
        return Err("--sort-by relevance needs --query".into());
    }
    Ok(())
}

impl InventoryScreen {
    /// The sort direction: as reversed, else the field's first one (names
    /// A→Z, counts and times highest first).
    pub fn sort_order(&self) -> SortOrder {
        self.query.sort_order.clone().unwrap_or_else(|| {
            self.query
                .sort_by
                .as_ref()
                .map_or(SortOrder::Desc, first_order)
        })
    }

    /// A key on an open menu before it is read as an action: its hotkeys
    /// and `/` to jump. Whether the key was taken.
    pub(super) fn menu_key(&mut self, key: &KeyEvent, cx: &mut Cx) -> bool {
        if let Some((kind, menu)) = &mut self.menu {
            let kind = *kind;
            return match menu.key(key) {
                None => false,
                Some(MenuOutcome::Chosen(choice)) => {
                    self.menu_chosen(kind, choice, cx);
                    true
                }
                Some(MenuOutcome::Closed) => {
                    self.menu = None;
                    true
                }
                Some(MenuOutcome::Open) => true,
            };
        }
        self.filter_key(key, cx)
    }

    /// The sort menu's line `choice`: the default order (0), or a field,
    /// in its first direction.
    pub(super) fn sort_chosen(&mut self, choice: usize, cx: &mut Cx) {
        let sort_by = choice
            .checked_sub(1)
            .and_then(|i| InventorySortBy::KNOWN.get(i).cloned());
        if let Err(why) = self.set_sort(sort_by, None, cx) {
            cx.notify(why);
        }
    }

    /// Sorts by `sort_by` (none: the default order), in `order` or else the
    /// field's first direction ([`first_order`]).
    pub fn set_sort(
        &mut self,
        sort_by: Option<InventorySortBy>,
        order: Option<SortOrder>,
        cx: &mut Cx,
    ) -> Result<(), String> {
        if sort_by == Some(InventorySortBy::Relevance) && self.search().trim().is_empty() {
            return Err(format!(
                "sorting by relevance needs a search: press {} first",
                key_of(Action::Filter)
            ));
        }
        let query = InventoryParams {
            sort_order: sort_by.as_ref().and(order),
            sort_by,
            ..self.query.clone()
        };
        self.show_query(query, self.policy.violates.clone(), cx);
        Ok(())
    }

    /// The search, sort (with its direction) and filters on screen, as flags.
    pub fn filter_args(&self) -> InventoryFilterArgs {
        let mut args = InventoryFilterArgs::from_params(&self.query);
        args.service.query = Some(self.search().trim().to_owned()).filter(|q| !q.is_empty());
        args.service.sort_order = self.query.sort_by.as_ref().map(|_| self.sort_order());
        args.violates = self.policy.violates.clone();
        args
    }

    /// `:filter FLAGS`: exactly these filters and search; the sort changes
    /// only when the flags give one.
    pub fn apply_filter_args(
        &mut self,
        args: InventoryFilterArgs,
        cx: &mut Cx,
    ) -> Result<(), String> {
        check(&args)?;
        self.policy.check(&args.violates)?;
        let mut query = args.params(None);
        if args.service.sort_by.is_none() {
            query.sort_by = self.query.sort_by.clone();
            query.sort_order = self.query.sort_order.clone();
            if query.sort_by == Some(InventorySortBy::Relevance) && query.query.is_none() {
                query.sort_by = None;
                query.sort_order = None;
            }
        }
        self.show_query(query, args.violates, cx);
        Ok(())
    }

    /// A saved view: its flags, and nothing else (no sort: the default).
    pub fn apply_view(&mut self, args: InventoryFilterArgs, cx: &mut Cx) -> Result<(), String> {
        check(&args)?;
        self.policy.check(&args.violates)?;
        self.show_query(args.params(None), args.violates, cx);
        Ok(())
    }

    fn show_query(&mut self, query: InventoryParams, violates: Vec<String>, cx: &mut Cx) {
        let review_filter = self.reviewed.filter;
        let reviewer = self.reviewed.reviewer.clone();
        self.restore_view(
            InventoryView {
                query,
                review_filter,
                reviewer,
                violates,
            },
            cx,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_hotkey_is_one_of_its_menu() {
        let mut filters: Vec<InventoryFilter> = ReviewPriority::KNOWN
            .iter()
            .cloned()
            .map(InventoryFilter::Priority)
            .collect();
        filters.extend([InventoryFilter::Published, InventoryFilter::Pii]);
        filters.extend(
            PublishAudience::KNOWN
                .iter()
                .cloned()
                .map(InventoryFilter::Audience),
        );
        filters.extend(
            Visibility::KNOWN
                .iter()
                .cloned()
                .map(InventoryFilter::Visibility),
        );
        filters.extend(
            ActivityGroup::KNOWN
                .iter()
                .cloned()
                .map(InventoryFilter::Activity),
        );
        filters.push(InventoryFilter::Connectors);
        filters.extend((0..12).map(|i| InventoryFilter::Finding(format!("f{i}"))));
        let keys: Vec<char> = filter_hotkeys(&filters).into_iter().flatten().collect();
        assert_eq!(keys.len(), filters.len(), "every line has a key");
        let mut unique = keys.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), keys.len(), "no key twice: {keys:?}");
        for reserved in ['j', 'k', 'g', 'G', 'q', 't', ' ', '/'] {
            assert!(!keys.contains(&reserved), "{reserved}");
        }
        let sorts: Vec<char> = sort_hotkeys().into_iter().flatten().collect();
        assert_eq!(sorts.len(), InventorySortBy::KNOWN.len() + 1);
        let mut unique = sorts.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), sorts.len(), "{sorts:?}");
        assert!(!sorts.iter().any(|ch| "jkgGqs /".contains(*ch)));
    }

    #[test]
    fn names_start_ascending_counts_and_times_descending() {
        assert_eq!(first_order(&InventorySortBy::Name), SortOrder::Asc);
        for sort_by in [
            InventorySortBy::OpenPiiFindingCount,
            InventorySortBy::LastEditedAt,
            InventorySortBy::Visitors7d,
        ] {
            assert_eq!(first_order(&sort_by), SortOrder::Desc, "{sort_by:?}");
        }
    }
}
