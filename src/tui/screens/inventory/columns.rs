//! The inventory table's columns: the item's fields the dashboard lists,
//! each declared once with the command's column in `formats/projects.rs`
//! (its name for `:columns` and saved views, title, width, how long it stays
//! on a narrow terminal, the sorts it shows, its cell); the set on view (the
//! default, which follows the width, or the one `:columns` chose); and the
//! widths, where the spare goes to Owner and Name.

use serde::{Deserialize, Serialize};

use crate::api::model::{InventoryItem, InventorySortBy};
use crate::formats::listed::Listed;
use crate::formats::row::{Field, Row};

/// A column of the inventory table: one of the item's fields that the
/// dashboard lists (its position among [`InventoryItem`]'s fields).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Column(u8);

impl std::fmt::Debug for Column {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The item's fields, as declared.
const FIELDS: &[Field<InventoryItem>] = <InventoryItem as Row>::FIELDS;

impl Column {
    /// The column `name` names; a name no field lists fails the build.
    const fn named(name: &str) -> Column {
        let mut at = 0;
        while at < FIELDS.len() {
            if let Some(listed) = &FIELDS[at].listed
                && same(listed.name, name)
            {
                return Column(at as u8);
            }
            at += 1;
        }
        panic!("no inventory field lists this column")
    }

    pub const NAME: Column = Column::named("name");
    pub const ID: Column = Column::named("id");
    pub const OWNER: Column = Column::named("owner");
    pub const PII: Column = Column::named("pii");
    pub const POLICY: Column = Column::named("policy");
    pub const PRIORITY: Column = Column::named("priority");
    pub const AUDIENCE: Column = Column::named("audience");
    pub const VISIBILITY: Column = Column::named("visibility");
    pub const ACTIVITY: Column = Column::named("activity");
    pub const EDITS_7D: Column = Column::named("edits_7d");
    pub const VISITORS_7D: Column = Column::named("visitors_7d");
    pub const LAST_SCAN: Column = Column::named("last_scan");

    /// Every column, in the order `:columns` lists them.
    pub fn all() -> impl Iterator<Item = Column> {
        FIELDS
            .iter()
            .enumerate()
            .filter(|(_, field)| field.listed.is_some())
            .map(|(at, _)| Column(at as u8))
    }

    /// The field it shows.
    pub fn field(self) -> &'static Field<InventoryItem> {
        &FIELDS[self.0 as usize]
    }

    fn listed(self) -> &'static Listed<InventoryItem> {
        match &self.field().listed {
            Some(listed) => listed,
            // A `Column` is only ever made of a listed field.
            None => unreachable!("a column of a field the dashboard does not list"),
        }
    }

    /// What `:columns` and a saved view call it.
    pub fn name(self) -> &'static str {
        self.listed().name
    }

    pub fn parse(name: &str) -> Option<Column> {
        let name = name.trim().to_lowercase();
        Column::all().find(|column| column.name() == name)
    }

    pub fn title(self) -> &'static str {
        self.listed().title
    }

    /// Its width; the name's is what is left (at least [`NAME_MIN`]), the
    /// owner's its narrowest.
    fn width(self) -> u16 {
        self.listed().width
    }

    /// Lower goes first when the terminal is narrow; from
    /// [`Listed::STAYS`] a column stays.
    fn keep(self) -> u8 {
        self.listed().keep
    }

    fn family(self) -> u8 {
        self.listed().family
    }

    /// The column that shows a sort.
    pub fn for_sort(sort: &InventorySortBy) -> Option<Column> {
        Column::all().find(|column| column.listed().sorts.contains(&sort.as_str()))
    }
}

/// Whether two names are the same (`==` is not yet a `const fn` on `str`).
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut at = 0;
    while at < a.len() {
        if a[at] != b[at] {
            return false;
        }
        at += 1;
    }
    true
}

/// The default columns, in order; [`Column::ID`] only from [`ID_FROM_WIDTH`].
pub const DEFAULT: &[Column] = &[
    Column::PRIORITY,
    Column::NAME,
    Column::ID,
    Column::OWNER,
    Column::AUDIENCE,
    Column::VISIBILITY,
    Column::ACTIVITY,
    Column::EDITS_7D,
    Column::VISITORS_7D,
    Column::PII,
    Column::POLICY,
    Column::LAST_SCAN,
];

/// From this terminal width the default columns include the project's id.
pub const ID_FROM_WIDTH: u16 = 160;

/// Minimum width of the name column.
pub const NAME_MIN: u16 = 18;
/// The owner column's narrowest, and the most the spare width widens it to.
const OWNER_MIN: u16 = crate::formats::projects::OWNER_WIDTH;
const OWNER_MAX: u16 = 32;
/// The name keeps at least this much of the spare width (or its longest name
/// on screen, if shorter) before the owner takes any.
const NAME_KEEPS: u16 = 40;

impl TryFrom<String> for Column {
    type Error = String;

    fn try_from(name: String) -> Result<Self, Self::Error> {
        Column::parse(&name).ok_or_else(|| unknown_column(&name))
    }
}

impl From<Column> for String {
    fn from(column: Column) -> Self {
        column.name().to_owned()
    }
}

fn unknown_column(name: &str) -> String {
    let known: Vec<&str> = Column::all().map(Column::name).collect();
    format!(
        "no column {}; known: {}",
        crate::text::fit(name, 24),
        known.join(", ")
    )
}

/// `:columns`' argument: `default`, or names separated by commas or spaces.
/// `None` is the default set.
pub fn parse_list(text: &str) -> Result<Option<Vec<Column>>, String> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("default") {
        return Ok(None);
    }
    let mut columns = Vec::new();
    for name in text
        .split(|ch: char| ch == ',' || ch.is_whitespace())
        .filter(|name| !name.is_empty())
    {
        let column = Column::parse(name).ok_or_else(|| unknown_column(name))?;
        if !columns.contains(&column) {
            columns.push(column);
        }
    }
    if columns.is_empty() {
        return Err("columns: give names (e.g. name,owner,id) or default".into());
    }
    // The name says which project a row is: it is always shown.
    if !columns.contains(&Column::NAME) {
        columns.insert(0, Column::NAME);
    }
    Ok(Some(columns))
}

impl super::InventoryScreen {
    /// The columns chosen with `:columns`; `None` is the default set, which
    /// follows the terminal's width. A saved view keeps it as it is.
    pub fn columns(&self) -> Option<&[Column]> {
        self.columns.as_deref()
    }

    pub fn set_columns(&mut self, columns: Option<Vec<Column>>) {
        self.columns = columns;
    }
}

/// What the rows on screen would like: their longest name and owner.
#[derive(Debug, Clone, Copy, Default)]
pub struct Wants {
    pub name: u16,
    pub owner: u16,
}

/// The columns on view at `width` and the width of each; the name's is what
/// is left after the others, the owner's grows into the spare width.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    pub columns: Vec<(Column, u16)>,
    /// The sorted column, shown in every layout (a sort never hides it).
    pub sorted: Option<Column>,
}

/// Lays out `chosen` (or the default set) at `width`, sorted by `sort`.
/// Columns go by `keep` when the width is short; a sort never makes a column
/// go that fits without it: its title's extra room comes from the name.
pub fn layout(
    width: u16,
    chosen: Option<&[Column]>,
    sort: Option<&InventorySortBy>,
    wants: Wants,
) -> Layout {
    let mut shown: Vec<Column> = match chosen {
        Some(chosen) => chosen.to_vec(),
        None => DEFAULT
            .iter()
            .copied()
            .filter(|&column| column != Column::ID || width >= ID_FROM_WIDTH)
            .collect(),
    };
    let sorted = sort.and_then(Column::for_sort);
    if let Some(sorted) = sorted
        && !shown.contains(&sorted)
    {
        match shown
            .iter()
            .position(|c| c.family() != 0 && c.family() == sorted.family())
        {
            Some(at) => shown[at] = sorted,
            None => shown.push(sorted),
        }
    }
    let needed = |shown: &[Column]| -> u16 {
        shown.iter().map(|c| c.width() + 1).sum::<u16>() + NAME_MIN + 2
    };
    while needed(&shown) > width {
        let Some(at) = shown
            .iter()
            .enumerate()
            .filter(|(_, c)| c.keep() < Listed::<InventoryItem>::STAYS && Some(**c) != sorted)
            .min_by_key(|(_, c)| c.keep())
            .map(|(at, _)| at)
        else {
            break;
        };
        shown.remove(at);
    }
    // The sorted column widens for its title and arrow when it must.
    let widen = |column: Column| match sorted {
        Some(s) if s == column && column != Column::NAME => {
            (column.title().chars().count() as u16 + 2).saturating_sub(column.width())
        }
        _ => 0,
    };
    let fixed: u16 = shown.iter().map(|&c| c.width() + widen(c) + 1).sum();
    let left = width.saturating_sub(fixed + 4);
    // The owner takes of the spare what its longest name on screen needs,
    // while the name keeps its own longest (up to NAME_KEEPS).
    let name_keeps = wants.name.clamp(NAME_MIN, NAME_KEEPS.max(NAME_MIN));
    let owner_grows = wants
        .owner
        .clamp(OWNER_MIN, OWNER_MAX)
        .saturating_sub(OWNER_MIN)
        .min(left.saturating_sub(name_keeps));
    let name = left.saturating_sub(owner_grows).max(NAME_MIN);
    let columns = shown
        .into_iter()
        .map(|column| {
            let width = if column == Column::NAME {
                name
            } else if column == Column::OWNER {
                OWNER_MIN + owner_grows
            } else {
                column.width() + widen(column)
            };
            (column, width)
        })
        .collect();
    Layout { columns, sorted }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(layout: &Layout) -> Vec<&'static str> {
        layout.columns.iter().map(|(c, _)| c.name()).collect()
    }

    #[test]
    fn every_column_has_one_name_that_reads_back() {
        for column in Column::all() {
            assert_eq!(Column::parse(column.name()), Some(column));
            let json = serde_json::to_string(&column).unwrap();
            assert_eq!(json, format!("\"{}\"", column.name()));
            assert_eq!(serde_json::from_str::<Column>(&json).unwrap(), column);
        }
        assert!(serde_json::from_str::<Column>("\"nope\"").is_err());
    }

    #[test]
    fn every_column_has_its_own_name_and_shows_known_sorts() {
        let names: std::collections::HashSet<&str> = Column::all().map(Column::name).collect();
        assert_eq!(names.len(), Column::all().count(), "a name given twice");
        for column in Column::all() {
            for sort in column.listed().sorts {
                assert!(
                    InventorySortBy::KNOWN
                        .iter()
                        .any(|known| known.as_str() == *sort),
                    "{} shows a sort the service lacks: {sort}",
                    column.name()
                );
            }
        }
    }

    #[test]
    fn columns_parse_from_names_or_default() {
        assert_eq!(parse_list("default"), Ok(None));
        assert_eq!(
            parse_list("name,owner,id,visitors_7d"),
            Ok(Some(vec![
                Column::NAME,
                Column::OWNER,
                Column::ID,
                Column::VISITORS_7D
            ]))
        );
        // The name is always there.
        assert_eq!(
            parse_list("id pii"),
            Ok(Some(vec![Column::NAME, Column::ID, Column::PII]))
        );
        assert!(
            parse_list("name,colour")
                .unwrap_err()
                .contains("no column colour")
        );
        assert!(parse_list(" , ").is_err());
    }

    #[test]
    fn the_id_is_a_default_column_from_160_wide() {
        let at = |width| names(&layout(width, None, None, Wants::default()));
        assert!(!at(159).contains(&"id"));
        assert!(at(160).contains(&"id"));
        assert!(at(200).contains(&"id"));
    }

    /// Issue 27: sorting by open PII dropped Visibility at 120 columns. A
    /// sort by a column on view keeps every column; one by a column the width
    /// left out brings it in, in place of the least needed.
    #[test]
    fn a_sort_never_drops_a_column() {
        for width in [80, 100, 120, 140, 160, 200] {
            let unsorted = names(&layout(width, None, None, Wants::default()));
            for sort in [
                InventorySortBy::OpenPiiFindingCount,
                InventorySortBy::ReviewPriority,
                InventorySortBy::Name,
                InventorySortBy::PublishAudience,
                InventorySortBy::Edits7d,
                InventorySortBy::Visitors7d,
            ] {
                let sorted = names(&layout(width, None, Some(&sort), Wants::default()));
                let column = Column::for_sort(&sort).unwrap().name();
                if unsorted.contains(&column) {
                    assert_eq!(sorted, unsorted, "{width} sorted by {sort:?}");
                } else {
                    assert!(sorted.contains(&column), "{width} sorted by {sort:?}");
                }
            }
        }
    }

    #[test]
    fn a_sort_by_a_column_not_shown_turns_its_family_or_shows_it() {
        let sorted = layout(
            120,
            None,
            Some(&InventorySortBy::Edits30d),
            Wants::default(),
        );
        assert!(names(&sorted).contains(&"edits_30d"));
        assert!(!names(&sorted).contains(&"edits_7d"));
        let scan = layout(
            60,
            None,
            Some(&InventorySortBy::LastSecurityScanAt),
            Wants::default(),
        );
        assert!(names(&scan).contains(&"last_scan"), "{:?}", names(&scan));
    }

    #[test]
    fn the_spare_width_goes_to_the_owner_and_the_name() {
        let wants = Wants {
            name: 30,
            owner: 22,
        };
        let wide = layout(200, None, None, wants);
        let width_of = |layout: &Layout, wanted: Column| {
            layout
                .columns
                .iter()
                .find(|(c, _)| *c == wanted)
                .map(|(_, w)| *w)
        };
        assert_eq!(width_of(&wide, Column::OWNER), Some(22));
        assert!(width_of(&wide, Column::NAME).unwrap() >= 30);
        // At 120 there is no spare: the owner keeps its narrowest.
        let narrow = layout(120, None, None, wants);
        assert_eq!(width_of(&narrow, Column::OWNER), Some(OWNER_MIN));
    }
}
