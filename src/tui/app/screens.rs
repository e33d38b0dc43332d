//! The App's screens, found by id through the registry (`registry.rs`): the
//! one place that ties a tab to the App's field holding its screen.

use super::App;
use crate::tui::nav::Tab;
use crate::tui::registry::each_screen;
use crate::tui::screens::Screen;

macro_rules! lookups {
    ($($id:ident $field:ident { $($facts:tt)* })+) => {
        impl App {
            /// The screen of `tab` (the inventory's list, never the project screen).
            pub fn tab_screen(&self, tab: Tab) -> &dyn Screen {
                match tab {
                    $(Tab::$id => &self.$field,)+
                }
            }

            /// The screen of `tab`, to change.
            pub(super) fn tab_screen_mut(&mut self, tab: Tab) -> &mut dyn Screen {
                match tab {
                    $(Tab::$id => &mut self.$field,)+
                }
            }
        }
    };
}
each_screen!(lookups);
