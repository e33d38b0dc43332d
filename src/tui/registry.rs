//! The registry of screens: each tab's id, the App's field that holds it, its
//! titles and its palette names, declared once, in tab order. The tab bar, the
//! tab keys (`1`…, config names `tab1`…), the palette, the help and the App's
//! screen lookups all read it (ARCHITECTURE.md: how to add a screen). A leaf:
//! it imports nothing of the dashboard.

/// Calls `$then!` with every screen, in tab order, one a line: `Id field {
/// facts }`. The one list of screens; [`Tab`] and [`SCREENS`] here, and the App's lookups
/// (`app/screens.rs`), are made from it.
macro_rules! each_screen {
    ($then:ident) => {
        $then! {
            Insights insights { title: "Insights", short: "Insights", names: ["insights", "home"], about: "screen: risk overview" }
            Inventory inventory { title: "Inventory", short: "Inventory", names: ["inventory", "projects", "inv"], about: "screen: every project" }
            Members members { title: "Members", short: "Members", names: ["members", "users"], about: "screen: workspace members" }
            Monitor monitor { title: "Monitor", short: "Monitor", names: ["monitor", "realtime", "live"], about: "screen: live visitors" }
            Analytics analytics { title: "Analytics", short: "Analytics", names: ["analytics", "traffic"], about: "screen: traffic breakdowns" }
            PersonalData pii { title: "Personal data", short: "PII", names: ["pii", "personal-data"], about: "screen: personal data found" }
            Changes changes { title: "Changes", short: "Diff", names: ["changes", "diff"], about: "screen: what changed between two snapshots" }
            Policy policy { title: "Policy", short: "Policy", names: ["policy", "policies", "rules"], about: "screen: each policy and its violations" }
        }
    };
}
pub(crate) use each_screen;

/// What the registry says of one screen.
#[derive(Debug)]
pub struct ScreenInfo {
    pub id: Tab,
    pub title: &'static str,
    /// The title for narrow terminals.
    pub short_title: &'static str,
    /// The palette's name for it first, then its aliases.
    pub names: &'static [&'static str],
    /// What the palette's list says of it.
    pub about: &'static str,
}

macro_rules! define_tabs {
    ($($id:ident $field:ident {
        title: $title:literal,
        short: $short:literal,
        names: [$($name:literal),+ $(,)?],
        about: $about:literal $(,)?
    })+) => {
        /// A screen's id. Its position in the registry is its tab's.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Tab {
            $($id),+
        }

        /// Every screen, in tab order.
        pub const SCREENS: &[ScreenInfo] = &[
            $(ScreenInfo {
                id: Tab::$id,
                title: $title,
                short_title: $short,
                names: &[$($name),+],
                about: $about,
            }),+
        ];

        impl Tab {
            /// Every tab, in the order the header shows them.
            pub const ALL: &'static [Tab] = &[$(Tab::$id),+];
        }
    };
}
each_screen!(define_tabs);

/// The names of the tab keys in the config file's `[keys]`, by position.
const TAB_KEY_NAMES: [&str; 9] = [
    "tab1", "tab2", "tab3", "tab4", "tab5", "tab6", "tab7", "tab8", "tab9",
];
// A tab's default key is its digit: nine at most.
const _: () = assert!(SCREENS.len() <= TAB_KEY_NAMES.len());

impl Default for Tab {
    fn default() -> Self {
        Tab::ALL[0]
    }
}

impl Tab {
    /// 0-based position in [`Tab::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The registry's entry.
    pub fn info(self) -> &'static ScreenInfo {
        &SCREENS[self.index()]
    }

    pub fn next(self) -> Tab {
        Tab::ALL[(self.index() + 1) % Tab::ALL.len()]
    }

    pub fn prev(self) -> Tab {
        Tab::ALL[(self.index() + Tab::ALL.len() - 1) % Tab::ALL.len()]
    }

    pub fn title(self) -> &'static str {
        self.info().title
    }

    /// The title for narrow terminals.
    pub fn short_title(self) -> &'static str {
        self.info().short_title
    }

    /// The tab's default key: its position, from 1.
    pub fn digit(self) -> char {
        char::from_digit(self.index() as u32 + 1, 10).unwrap_or('?')
    }

    /// The name of the tab's key in the config file's `[keys]` (`tab1`).
    pub fn key_name(self) -> &'static str {
        TAB_KEY_NAMES[self.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabs_cycle_both_ways() {
        let (first, last) = (Tab::ALL[0], Tab::ALL[Tab::ALL.len() - 1]);
        assert_eq!(first.prev(), last);
        assert_eq!(last.next(), first);
        assert_eq!(Tab::Members.index(), 2);
        assert_eq!(Tab::PersonalData.short_title(), "PII");
    }

    #[test]
    fn every_entry_is_at_its_own_position_and_names_are_unique() {
        let mut names: Vec<&str> = Vec::new();
        for (index, info) in SCREENS.iter().enumerate() {
            assert_eq!(info.id.index(), index);
            assert_eq!(info.id.key_name(), format!("tab{}", index + 1));
            names.extend(info.names);
        }
        let count = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), count, "a palette name names one screen");
    }
}
