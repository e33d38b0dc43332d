//! The App's screens, found by id through the registry (`registry.rs`): the
//! one place that ties a tab to the App's field holding its screen, and its
//! screen's answers to that field (a tab's screen is `screens::<field>`, its
//! answers `screens::<field>::Msg`, taken by its `update`).

use super::App;
use crate::tui::effect::Cx;
use crate::tui::nav::Tab;
use crate::tui::registry::each_screen;
use crate::tui::request::Answer;
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

            /// `answer` to the tab's screen whose message type it carries
            /// (`screens::<field>::Msg`), and whether that changed anything;
            /// the answer back when no tab's screen takes it.
            pub(super) fn route_to_tab(&mut self, answer: Answer, cx: &mut Cx) -> Result<bool, Answer> {
                $(
                    let answer = match answer.open::<crate::tui::screens::$field::Msg>() {
                        Ok((token, msg)) => return Ok(self.$field.update(token, msg, cx)),
                        Err(answer) => answer,
                    };
                )+
                Err(answer)
            }

            /// The tabs' screens whose message type `answer` carries.
            pub(super) fn tab_owners_of(answer: &Answer) -> Vec<&'static str> {
                let mut owners = Vec::new();
                $(
                    if answer.is::<crate::tui::screens::$field::Msg>() {
                        owners.push(stringify!($field));
                    }
                )+
                owners
            }
        }
    };
}
each_screen!(lookups);
